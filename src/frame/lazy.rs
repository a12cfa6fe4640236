//! Lazy chunks of frames on disk ([`crate::chunk::lazy`]): handing them out, and reading the
//! stored chunk one describes back.

use super::*;
use crate::chunk::lazy;
use io::OpenMode;

impl Frame {
    /// Chunk `n` as C-Blosc2's `blosc2_schunk_get_lazychunk` gives it: for a frame on disk its
    /// header and block starts with a trailer saying where its blocks are (a lazy chunk, read
    /// back by [`Frame::resolve_lazy`]); a special chunk, or a chunk of a frame in memory, whole.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// use b2rs::{chunk, CParams};
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-lazy-doc-{}.b2frame", std::process::id()));
    /// let cparams = CParams { typesize: 4, blocksize: 4000, ..CParams::default() };
    /// let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
    /// let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
    /// let loc = Location::File { path: path.clone(), offset: 0 };
    /// let mut frame = Frame::create(loc, &FrameParams::from_cparams(&cparams, 1), Arc::new(StdIo)).unwrap();
    /// frame.append_chunk(&buf[..n]).unwrap();
    /// let lazy = frame.get_lazychunk(0).unwrap();
    /// assert!(chunk::Header::parse(&lazy).unwrap().is_lazy());
    /// assert!(lazy.len() < n);
    /// assert_eq!(frame.resolve_lazy(&lazy).unwrap(), &buf[..n]);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn get_lazychunk(&self, n: i64) -> Result<Cow<'_, [u8]>> {
        let i = self.check_index(n, Error::InvalidParam)?;
        let off = self.offsets.get(i)?;
        if off < 0 {
            return Ok(Cow::Owned(self.special_chunk(i)?));
        }
        let read_prefix = |read: &mut dyn FnMut(u64, &mut [u8]) -> Result<()>,
                           at: u64|
         -> Result<Option<Vec<u8>>> {
            let mut head = [0u8; EXTENDED_HEADER_LENGTH];
            read(at, &mut head)?;
            let h = Header::parse(&head)?;
            if !lazy::makes_lazy(&h) {
                return Ok(None);
            }
            let mut prefix = vec![0u8; lazy::prefix_len(&h)?];
            read(at, &mut prefix)?;
            Ok(Some(prefix))
        };
        let (prefix, nchunk, pos) = match &self.storage {
            Storage::Memory(_) => return self.get_chunk(n),
            Storage::File { path, offset, io } => {
                let mut h = io.open(path, OpenMode::Read)?;
                let mut read = |pos: u64, buf: &mut [u8]| h.read_at(offset + pos, buf);
                let (start, _) = self.stored_span(off, &mut read)?;
                (read_prefix(&mut read, start)?, i as i32, start as i64)
            }
            Storage::Dir { path, io } => {
                let mut h = io.open(&sframe::chunk_path(path, off)?, OpenMode::Read)?;
                let mut read = |pos: u64, buf: &mut [u8]| h.read_at(pos, buf);
                let file = i32::try_from(off).map_err(|_| Error::InvalidHeader)?;
                (read_prefix(&mut read, 0)?, file, off)
            }
        };
        match prefix {
            Some(p) => Ok(Cow::Owned(lazy::build(&p, nchunk, pos)?)),
            // a stored special chunk (a run of a value) comes whole
            None => self.get_chunk(n),
        }
    }

    /// The stored chunk the lazy chunk `lazy` (from [`Frame::get_lazychunk`]) describes, read
    /// from the frame and checked against it ([`Error::InvalidHeader`] for a lazy chunk that
    /// does not describe a chunk of this frame).
    ///
    /// # Examples
    ///
    /// See [`Frame::get_lazychunk`].
    pub fn resolve_lazy(&self, lazy_chunk: &[u8]) -> Result<Vec<u8>> {
        let t = lazy::trailer(lazy_chunk)?;
        let stored = match &self.storage {
            Storage::Memory(_) => {
                crate::trace_error!("A lazy chunk needs a frame on disk");
                return Err(Error::InvalidParam);
            }
            Storage::File { path, offset, io } => {
                let off = t
                    .offset
                    .checked_sub(self.header_len as i64)
                    .ok_or(Error::InvalidHeader)?;
                let mut h = io.open(path, OpenMode::Read)?;
                let (start, len) =
                    self.stored_span(off, |pos, buf| h.read_at(offset + pos, buf))?;
                let mut buf = vec![0u8; len];
                h.read_at(offset + start, &mut buf)?;
                buf
            }
            Storage::Dir { path, io } => sframe::read_chunk(path, io.as_ref(), t.offset)?,
        };
        lazy::check(lazy_chunk, &stored)?;
        Ok(stored)
    }
}
