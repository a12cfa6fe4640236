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
                let mut h = super::io::open_version(io.as_ref(), path, self.version.as_deref())?;
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
                let mut h = super::io::open_version(io.as_ref(), path, self.version.as_deref())?;
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

impl Frame {
    /// Chunk `n` with only the compressed bytes of `blocks` read (and of block 0 when the
    /// chunk holds a delta filter, which refers to it), the others left zero: enough to decode
    /// those blocks (with a mask, or `getitem`), as C-Blosc2 reads a lazy chunk's blocks from
    /// disk. A frame in memory lends the whole chunk; special chunks come whole.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// use b2rs::{chunk, CParams, DParams};
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-blocks-doc-{}.b2frame", std::process::id()));
    /// let cparams = CParams { typesize: 4, blocksize: 4000, ..CParams::default() };
    /// let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
    /// let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
    /// let loc = Location::File { path: path.clone(), offset: 0 };
    /// let mut frame = Frame::create(loc, &FrameParams::from_cparams(&cparams, 1), Arc::new(StdIo)).unwrap();
    /// frame.append_chunk(&buf[..n]).unwrap();
    /// let part = frame.get_chunk_blocks(0, &[7]).unwrap();
    /// let mut out = vec![0u8; 4000];
    /// chunk::getitem_bytes(&DParams::default(), &part, 7 * 4000, 4000, &mut out).unwrap();
    /// assert_eq!(out, data[7 * 4000..8 * 4000]);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn get_chunk_blocks(&self, n: i64, blocks: &[usize]) -> Result<Cow<'_, [u8]>> {
        let i = self.check_index(n, Error::InvalidParam)?;
        let off = self.offsets.get(i)?;
        if off < 0 || matches!(self.storage, Storage::Memory(_)) {
            return self.get_chunk(n);
        }
        let (mut h, base): (Box<dyn io::IoHandle + '_>, u64) = match &self.storage {
            Storage::File { path, offset, io } => {
                let mut h = super::io::open_version(io.as_ref(), path, self.version.as_deref())?;
                let (start, _) = self.stored_span(off, |pos, buf| h.read_at(offset + pos, buf))?;
                (h, offset + start)
            }
            Storage::Dir { path, io } => {
                (io.open(&sframe::chunk_path(path, off)?, OpenMode::Read)?, 0)
            }
            Storage::Memory(_) => return self.get_chunk(n),
        };
        let mut head = [0u8; EXTENDED_HEADER_LENGTH];
        h.read_at(base, &mut head)?;
        let hd = Header::parse(&head)?;
        if !lazy::makes_lazy(&hd) || hd.is_vlblocks() {
            return self.get_chunk(n);
        }
        let cbytes = hd.cbytes as usize;
        let mut buf = crate::error::zeroed_vec(cbytes)?;
        let mut plen = lazy::prefix_len(&hd)?;
        h.read_at(base, &mut buf[..plen])?;
        if hd.has_dict() {
            // the dictionary follows the block starts: [i32 size | bytes]
            if plen + 4 > cbytes {
                return Err(Error::InvalidHeader);
            }
            h.read_at(base + plen as u64, &mut buf[plen..plen + 4])?;
            let d = i32::from_le_bytes([buf[plen], buf[plen + 1], buf[plen + 2], buf[plen + 3]]);
            let end = usize::try_from(d)
                .ok()
                .and_then(|d| (plen + 4).checked_add(d))
                .filter(|&e| e <= cbytes)
                .ok_or(Error::InvalidHeader)?;
            h.read_at(base + plen as u64 + 4, &mut buf[plen + 4..end])?;
            plen = end;
        }
        let spans = lazy::block_spans(&hd, &buf[..plen])?;
        let want = blocks
            .iter()
            .copied()
            .chain(hd.has_delta().then_some(0))
            .filter(|&j| j < spans.len());
        for j in want {
            let (start, len) = spans[j];
            h.read_at(base + start as u64, &mut buf[start..start + len])?;
        }
        Ok(Cow::Owned(buf))
    }
}
