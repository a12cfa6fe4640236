//! Compressed chunks shared between in-memory super-chunks: copies of arrays and super-chunks
//! that keep the chunks as they are store the same buffer under several owners instead of
//! copying its bytes (C-Blosc2 copies them; the contents are the same, and a copy costs
//! nothing).

use super::{ChunkBytes, Schunk, Store};
use crate::error::Result;
use std::sync::Arc;

impl Schunk {
    /// Chunk `n` as a value another super-chunk can store ([`append_chunk`](Self::append_chunk),
    /// [`update_chunk`](Self::update_chunk), …). In memory it is this super-chunk's own buffer,
    /// shared: the first call hands the buffer over to a shared owner (no byte moves, so chunk
    /// pointers lent before stay valid) and later calls share it again; from a frame, its bytes
    /// read.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let cparams = CParams { typesize: 4, ..CParams::default() };
    /// let mut a = Schunk::new(cparams.clone(), DParams::default());
    /// a.append_buffer(&[7u8; 4000]).unwrap();
    /// let mut b = Schunk::new(cparams, DParams::default());
    /// let c = a.chunk_to_share(0).unwrap();
    /// b.append_chunk(c).unwrap();
    /// // the same bytes, in one buffer
    /// assert_eq!(a.get_chunk(0).unwrap().as_ptr(), b.get_chunk(0).unwrap().as_ptr());
    /// let mut out = vec![0u8; 4000];
    /// b.decompress_chunk(0, &mut out).unwrap();
    /// assert_eq!(out, [7u8; 4000]);
    /// ```
    pub fn chunk_to_share(&mut self, n: i64) -> Result<Arc<dyn ChunkBytes>> {
        let i = self.index(n)?;
        let Store::Memory(v) = &mut self.store else {
            return Ok(Arc::new(self.get_chunk(n)?.into_owned()));
        };
        let stored = &mut v[i];
        if let Some(a) = stored.buf.shared() {
            return Ok(a);
        }
        let own = std::mem::replace(&mut stored.buf, Box::new(Vec::new()));
        let a: Arc<dyn ChunkBytes> = Arc::from(own);
        stored.buf = Box::new(a.clone());
        stored.addr = stored.buf.bytes().as_ptr() as usize;
        Ok(a)
    }
}
