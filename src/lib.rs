//! b2rs — a memory-safe Rust implementation of C-Blosc2.
//!
//! The safe core (chunks, codecs, filters, super-chunks, frames, B2ND arrays, Bloscpack) has an
//! idiomatic Rust API; `capi` (the cargo feature of the same name, on by default) exports the
//! C-Blosc2 3.3 C API on top of it. With `default-features = false` the crate exports no C
//! symbol, so a program can link it beside C-Blosc2 itself.
//!
//! From Rust, use the safe core directly; no `unsafe` is needed:
//!
//! * [`chunk::compress()`] / [`chunk::decompress()`]: one Blosc2 chunk, with [`CParams`] and
//!   [`DParams`];
//! * [`schunk::Schunk`]: a super-chunk (a sequence of chunks with metalayers), in memory or
//!   backed by a [`frame::Frame`] (a contiguous frame in memory or in a file, or a sparse frame
//!   directory);
//! * [`b2nd::Array`]: an n-dimensional array stored in a super-chunk;
//! * [`bloscpack`]: Bloscpack files.
//!
//! ```
//! use b2rs::{chunk, codecs, CParams, DParams};
//!
//! let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
//! let cparams = CParams { compcode: codecs::ZSTD, typesize: 4, ..CParams::default() };
//! let mut compressed = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
//! let n = chunk::compress(&cparams, &data, &mut compressed).unwrap();
//! assert!(n > 0 && n < data.len());
//!
//! let mut back = vec![0u8; data.len()];
//! chunk::decompress(&DParams::default(), &compressed[..n], &mut back, None).unwrap();
//! assert_eq!(back, data);
//! ```
#![warn(missing_docs)]

pub mod b2nd;
pub mod bloscpack;
pub mod chunk;
pub mod codecs;
pub mod crc32c;
pub mod error;
pub mod filters;
pub mod frame;
pub mod params;
pub mod registry;
#[cfg(feature = "remote")]
pub mod remote;
pub mod salvage;
pub mod schunk;

#[cfg(feature = "capi")]
pub mod capi;

pub use error::{Error, Result};
pub use params::{CParams, DParams, SplitMode};
