//! The Blosc2 chunk (CHUNK.md): headers, blocks, streams, special and VL-block chunks.

pub mod blocksize;
pub mod compress;
pub mod decompress;
pub mod header;
pub mod instr;
pub mod lazy;
pub mod pipeline;
mod plan;
mod pool_sync;
pub mod special;
pub mod worker;

pub use compress::{compress, vlcompress};
pub use decompress::{
    decompress, getitem, getitem_bytes, vldecompress, vldecompress_block, Chunk, Span,
};
pub use header::Header;
