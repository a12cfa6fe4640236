//! Changing the chunks of a frame: append, insert, update, delete, reorder and special fills,
//! with the chunk-size rules of FRAME.md §7 and C-Blosc2's layout of the chunks section.

use super::io::OpenMode;
use super::offsets::Offsets;
use super::LockMode;
use super::{cframe, check_new_chunk, index, sframe, Frame, NewChunk, OffsetsChunk, Storage};
use crate::chunk::header::{Header, Special, EXTENDED_HEADER_LENGTH};
use crate::error::{Error, Result};
use crate::params::CParams;
use std::collections::HashSet;

impl Frame {
    /// Insert `chunk` at position `n` (under the exclusive frame lock when locking is
    /// on; the unlocked variant has the details).
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// # use b2rs::{chunk, CParams, DParams};
    /// #
    /// # // an in-memory frame holding 3 chunks of 1000 bytes: 1s, 2s, 3s
    /// # let cparams = CParams { typesize: 1, ..CParams::default() };
    /// # let params = FrameParams::from_cparams(&cparams, 1);
    /// # let chunk_of = |b: u8| {
    /// #     let mut buf = vec![0u8; 1000 + chunk::header::MAX_OVERHEAD];
    /// #     let n = chunk::compress(&cparams, &[b; 1000], &mut buf).unwrap();
    /// #     buf.truncate(n);
    /// #     buf
    /// # };
    /// # let mut frame = Frame::create(Location::Memory, &params, Arc::new(StdIo)).unwrap();
    /// # for b in 1..=3 {
    /// #     frame.append_chunk(&chunk_of(b)).unwrap();
    /// # }
    /// # let first_byte = |frame: &Frame, n: i64| {
    /// #     let mut out = vec![0u8; 1000];
    /// #     chunk::decompress(&DParams::default(), &frame.get_chunk(n).unwrap(), &mut out, None).unwrap();
    /// #     out[0]
    /// # };
    /// frame.insert_chunk(0, &chunk_of(9)).unwrap();
    /// assert_eq!(frame.nchunks(), 4);
    /// assert_eq!((first_byte(&frame, 0), first_byte(&frame, 1)), (9, 1));
    /// assert!(frame.insert_chunk(9, &chunk_of(9)).is_err());
    /// ```
    pub fn insert_chunk(&mut self, n: i64, chunk: &[u8]) -> Result<i64> {
        self.locked(LockMode::Exclusive, |f| f.insert_chunk_unlocked(n, chunk))
    }

    /// Replace chunk `n` (under the exclusive frame lock when locking is
    /// on; the unlocked variant has the details).
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// # use b2rs::{chunk, CParams, DParams};
    /// #
    /// # // an in-memory frame holding 3 chunks of 1000 bytes: 1s, 2s, 3s
    /// # let cparams = CParams { typesize: 1, ..CParams::default() };
    /// # let params = FrameParams::from_cparams(&cparams, 1);
    /// # let chunk_of = |b: u8| {
    /// #     let mut buf = vec![0u8; 1000 + chunk::header::MAX_OVERHEAD];
    /// #     let n = chunk::compress(&cparams, &[b; 1000], &mut buf).unwrap();
    /// #     buf.truncate(n);
    /// #     buf
    /// # };
    /// # let mut frame = Frame::create(Location::Memory, &params, Arc::new(StdIo)).unwrap();
    /// # for b in 1..=3 {
    /// #     frame.append_chunk(&chunk_of(b)).unwrap();
    /// # }
    /// # let first_byte = |frame: &Frame, n: i64| {
    /// #     let mut out = vec![0u8; 1000];
    /// #     chunk::decompress(&DParams::default(), &frame.get_chunk(n).unwrap(), &mut out, None).unwrap();
    /// #     out[0]
    /// # };
    /// assert_eq!(frame.update_chunk(1, &chunk_of(7)).unwrap(), 3);
    /// assert_eq!(first_byte(&frame, 1), 7);
    /// ```
    pub fn update_chunk(&mut self, n: i64, chunk: &[u8]) -> Result<i64> {
        self.locked(LockMode::Exclusive, |f| f.update_chunk_unlocked(n, chunk))
    }

    /// Delete chunk `n` (under the exclusive frame lock when locking is
    /// on; the unlocked variant has the details).
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// # use b2rs::{chunk, CParams, DParams};
    /// #
    /// # // an in-memory frame holding 3 chunks of 1000 bytes: 1s, 2s, 3s
    /// # let cparams = CParams { typesize: 1, ..CParams::default() };
    /// # let params = FrameParams::from_cparams(&cparams, 1);
    /// # let chunk_of = |b: u8| {
    /// #     let mut buf = vec![0u8; 1000 + chunk::header::MAX_OVERHEAD];
    /// #     let n = chunk::compress(&cparams, &[b; 1000], &mut buf).unwrap();
    /// #     buf.truncate(n);
    /// #     buf
    /// # };
    /// # let mut frame = Frame::create(Location::Memory, &params, Arc::new(StdIo)).unwrap();
    /// # for b in 1..=3 {
    /// #     frame.append_chunk(&chunk_of(b)).unwrap();
    /// # }
    /// # let first_byte = |frame: &Frame, n: i64| {
    /// #     let mut out = vec![0u8; 1000];
    /// #     chunk::decompress(&DParams::default(), &frame.get_chunk(n).unwrap(), &mut out, None).unwrap();
    /// #     out[0]
    /// # };
    /// assert_eq!(frame.delete_chunk(0).unwrap(), 2);
    /// assert_eq!(first_byte(&frame, 0), 2);
    /// assert_eq!(frame.nbytes(), 2000);
    /// ```
    pub fn delete_chunk(&mut self, n: i64) -> Result<i64> {
        self.locked(LockMode::Exclusive, |f| f.delete_chunk_unlocked(n))
    }

    /// Reorder the chunks as `order` says (under the exclusive frame lock when locking is
    /// on; the unlocked variant has the details).
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// # use b2rs::{chunk, CParams, DParams};
    /// #
    /// # // an in-memory frame holding 3 chunks of 1000 bytes: 1s, 2s, 3s
    /// # let cparams = CParams { typesize: 1, ..CParams::default() };
    /// # let params = FrameParams::from_cparams(&cparams, 1);
    /// # let chunk_of = |b: u8| {
    /// #     let mut buf = vec![0u8; 1000 + chunk::header::MAX_OVERHEAD];
    /// #     let n = chunk::compress(&cparams, &[b; 1000], &mut buf).unwrap();
    /// #     buf.truncate(n);
    /// #     buf
    /// # };
    /// # let mut frame = Frame::create(Location::Memory, &params, Arc::new(StdIo)).unwrap();
    /// # for b in 1..=3 {
    /// #     frame.append_chunk(&chunk_of(b)).unwrap();
    /// # }
    /// # let first_byte = |frame: &Frame, n: i64| {
    /// #     let mut out = vec![0u8; 1000];
    /// #     chunk::decompress(&DParams::default(), &frame.get_chunk(n).unwrap(), &mut out, None).unwrap();
    /// #     out[0]
    /// # };
    /// frame.reorder_offsets(&[2, 1, 0]).unwrap();
    /// assert_eq!((first_byte(&frame, 0), first_byte(&frame, 2)), (3, 1));
    /// ```
    pub fn reorder_offsets(&mut self, order: &[i64]) -> Result<()> {
        self.locked(LockMode::Exclusive, |f| f.reorder_offsets_unlocked(order))
    }

    /// Fill the frame with special chunks (under the exclusive frame lock when locking is
    /// on; the unlocked variant has the details); returns the new frame length (where
    /// [`crate::schunk::Schunk::fill_special`] returns the number of chunks).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::chunk::header::Special;
    /// use b2rs::frame::{index, io::StdIo, Frame, FrameParams, Location};
    /// use b2rs::CParams;
    ///
    /// let params = FrameParams::from_cparams(&CParams { typesize: 8, ..CParams::default() }, 1);
    /// let mut frame = Frame::create(Location::Memory, &params, Arc::new(StdIo)).unwrap();
    /// // 1000 NaN items (f64) in chunks of 300 items; returns the frame length
    /// assert_eq!(frame.fill_special(1000, Special::Nan, 2400).unwrap(), frame.len());
    /// assert_eq!((frame.nchunks(), frame.nbytes()), (4, 8000));
    /// // no chunk is stored: every offset is the special NaN value
    /// assert!(frame.offsets().unwrap().iter().all(|&o| index::special_of_offset(o) == Some(Special::Nan)));
    /// ```
    pub fn fill_special(&mut self, nitems: i64, special: Special, chunksize: i32) -> Result<i64> {
        self.locked(LockMode::Exclusive, |f| {
            f.fill_special_unlocked(nitems, special, chunksize)
        })
    }

    /// Uncompressed size of logical chunk `i`.
    fn chunk_nbytes(&self, i: usize) -> Result<i64> {
        if self.offsets.get(i)? < 0 {
            return self.special_nbytes(i);
        }
        Ok(self.stored_sizes(i)?.0)
    }

    /// Uncompressed and compressed sizes of the stored logical chunk `i`, from its header only.
    fn stored_sizes(&self, i: usize) -> Result<(i64, i64)> {
        let off = self.offsets.get(i)?;
        let mut h = [0u8; EXTENDED_HEADER_LENGTH];
        match &self.storage {
            Storage::Memory(v) => {
                let v = v.as_slice();
                self.stored_span(off, |pos, buf| {
                    let pos = usize::try_from(pos).map_err(|_| Error::ReadBuffer)?;
                    let src = v.get(pos..pos + buf.len()).ok_or(Error::ReadBuffer)?;
                    buf.copy_from_slice(src);
                    Ok(())
                })?;
                let pos = (self.header_len + off as u64) as usize;
                h.copy_from_slice(
                    v.get(pos..pos + EXTENDED_HEADER_LENGTH)
                        .ok_or(Error::ReadBuffer)?,
                );
            }
            Storage::File { path, offset, io } => {
                let mut f = super::io::open_version(io.as_ref(), path, self.version.as_deref())?;
                let (pos, _) = self.stored_span(off, |pos, buf| f.read_at(offset + pos, buf))?;
                f.read_at(offset + pos, &mut h)?;
            }
            Storage::Dir { .. } => {
                let c = self.get_chunk(i as i64)?;
                h.copy_from_slice(c.get(..EXTENDED_HEADER_LENGTH).ok_or(Error::ReadBuffer)?);
            }
        }
        let (nbytes, cbytes, _) = Header::sizes(&h)?;
        Ok((nbytes as i64, cbytes as i64))
    }

    /// Check that `nc` can join this frame (VL-block chunks and regular chunks do not mix).
    fn check_kind(&mut self, nc: &NewChunk<'_>, err: Error) -> Result<()> {
        if nc.special.is_some() {
            return Ok(());
        }
        if self.offsets.is_empty() {
            self.vl_blocks = nc.vl;
        } else if nc.vl != self.vl_blocks {
            crate::trace_error!("VL-block chunks cannot be mixed with regular chunks in a frame");
            return Err(err);
        }
        Ok(())
    }

    /// Switch to variable chunk sizes, storing the special chunks as real chunks first (their
    /// sizes cannot be derived without a fixed chunk size).
    fn make_variable(&mut self) -> Result<()> {
        if self.chunksize == 0 {
            return Ok(());
        }
        for i in 0..self.offsets.len() {
            if self.offsets.get(i)? < 0 {
                let c = self.special_chunk(i)?;
                let at = self.store_chunk(&c)?;
                self.offsets.table_mut()?[i] = at;
            }
        }
        self.chunksize = 0;
        Ok(())
    }

    /// Store the bytes of a new chunk (at the end of the chunks section, or in a new chunk
    /// file) and return its offset (or file number).
    fn store_chunk(&mut self, bytes: &[u8]) -> Result<i64> {
        let off = match &mut self.storage {
            Storage::Dir { path, io } => {
                let mut n = sframe::next_number(self.offsets.table_mut()?)?;
                if io.deferred_removal() {
                    // never the name of a chunk object an older index may still name
                    n = n.max(self.next_file);
                    self.next_file = n + 1;
                }
                sframe::write_chunk(path, io.as_ref(), n, bytes)?;
                n
            }
            _ => {
                let at = self.header_len + self.cbytes as u64;
                // In a file, the bytes overlapping the frame on disk (its old offsets chunk
                // and trailer) wait for `write_tail` (see there).
                let committed = match self.storage {
                    Storage::File { .. } => self.frame_len,
                    _ => 0,
                };
                let split = committed.clamp(at, at + bytes.len() as u64);
                let (head, rest) = bytes.split_at((split - at) as usize);
                if !head.is_empty() {
                    self.pending.push((at, head.to_vec()));
                }
                if !rest.is_empty() {
                    let mut b = cframe::open_bytes(&mut self.storage, OpenMode::ReadWrite)?;
                    b.write_at(split, rest)?;
                }
                self.cbytes
            }
        };
        self.cbytes += bytes.len() as i64;
        Ok(off)
    }

    /// Whether logical chunk `i` is the only one referencing its stored bytes.
    fn sole_owner(&mut self, i: usize) -> Result<bool> {
        let t = self.offsets.table_mut()?;
        let off = t[i];
        Ok(off >= 0 && !t.iter().enumerate().any(|(j, &o)| j != i && o == off))
    }

    /// Delete the chunk file of logical chunk `i` of a sparse frame, unless another logical
    /// chunk shares it.
    fn remove_chunk_file(&mut self, i: usize) -> Result<()> {
        if !self.sole_owner(i)? {
            return Ok(());
        }
        let off = self.offsets.get(i)?;
        if let Storage::Dir { path, io } = &self.storage {
            let len = sframe::chunk_file_len(path, io.as_ref(), off)?;
            sframe::remove_chunk(path, io.as_ref(), off)?;
            self.cbytes = (self.cbytes - len as i64).max(0);
        }
        Ok(())
    }

    /// Replace the stored bytes of logical chunk `i` of a contiguous frame in place with `new`
    /// (or drop them for `None`), moving the rest of the chunks section, as C-Blosc2 does.
    /// Returns false (doing nothing) when the old bytes cannot be replaced in place.
    fn replace_in_place(&mut self, i: usize, new: Option<&[u8]>) -> Result<bool> {
        if !self.sole_owner(i)? {
            return Ok(false);
        }
        let off = self.offsets.get(i)?;
        let old_len = self.stored_sizes(i)?.1;
        let old_end = off + old_len;
        if self
            .offsets
            .table_mut()?
            .iter()
            .any(|&o| o > off && o < old_end)
        {
            // Something points inside these bytes: leave them alone.
            return Ok(false);
        }
        let new_len = new.map_or(0, |c| c.len() as i64);
        let delta = new_len - old_len;
        let hl = self.header_len;
        let tail = (self.cbytes - old_end) as u64;
        {
            let mut b = cframe::open_bytes(&mut self.storage, OpenMode::ReadWrite)?;
            b.copy_within(hl + old_end as u64, hl + (off + new_len) as u64, tail)?;
            if let Some(c) = new {
                b.write_at(hl + off as u64, c)?;
            }
        }
        for o in self.offsets.table_mut()?.iter_mut() {
            if *o > off {
                *o += delta;
            }
        }
        self.cbytes += delta;
        Ok(true)
    }

    /// Store `nc` for a new or updated slot, returning the offset value of the slot.
    fn place(&mut self, nc: &NewChunk<'_>) -> Result<i64> {
        if let Some(sp) = nc.special {
            if self.chunksize > 0 {
                if let Some(o) = index::special_offset(sp) {
                    return Ok(o);
                }
            }
        }
        self.store_chunk(nc.bytes)
    }

    /// Append a chunk; returns the new number of chunks.
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// # use b2rs::{chunk, CParams, DParams};
    /// #
    /// # // an in-memory frame holding 3 chunks of 1000 bytes: 1s, 2s, 3s
    /// # let cparams = CParams { typesize: 1, ..CParams::default() };
    /// # let params = FrameParams::from_cparams(&cparams, 1);
    /// # let chunk_of = |b: u8| {
    /// #     let mut buf = vec![0u8; 1000 + chunk::header::MAX_OVERHEAD];
    /// #     let n = chunk::compress(&cparams, &[b; 1000], &mut buf).unwrap();
    /// #     buf.truncate(n);
    /// #     buf
    /// # };
    /// # let mut frame = Frame::create(Location::Memory, &params, Arc::new(StdIo)).unwrap();
    /// # for b in 1..=3 {
    /// #     frame.append_chunk(&chunk_of(b)).unwrap();
    /// # }
    /// # let first_byte = |frame: &Frame, n: i64| {
    /// #     let mut out = vec![0u8; 1000];
    /// #     chunk::decompress(&DParams::default(), &frame.get_chunk(n).unwrap(), &mut out, None).unwrap();
    /// #     out[0]
    /// # };
    /// assert_eq!(frame.append_chunk(&chunk_of(4)).unwrap(), 4);
    /// assert_eq!(first_byte(&frame, 3), 4);
    /// assert!(frame.append_chunk(b"not a chunk").is_err());
    /// ```
    pub fn append_chunk(&mut self, chunk: &[u8]) -> Result<i64> {
        let nc = check_new_chunk(chunk, Error::ChunkAppend)?;
        let n = self.nchunks();
        self.insert_at(n, &nc, Error::ChunkAppend)
    }

    /// Insert a chunk before logical chunk `n` (`n == nchunks` appends); returns the new number
    /// of chunks.
    fn insert_chunk_unlocked(&mut self, n: i64, chunk: &[u8]) -> Result<i64> {
        let nc = check_new_chunk(chunk, Error::ChunkInsert)?;
        if n < 0 || n > self.nchunks() {
            crate::trace_error!("Cannot insert at position {}", n);
            return Err(Error::InvalidParam);
        }
        self.insert_at(n, &nc, Error::ChunkInsert)
    }

    fn insert_at(&mut self, n: i64, nc: &NewChunk<'_>, err: Error) -> Result<i64> {
        if self.nchunks() + 1 > index::MAX_NCHUNKS {
            crate::trace_error!("Too many chunks for a frame");
            return Err(err);
        }
        // A change needs the whole index: decoded now, before anything is written.
        self.offsets.table_mut()?;
        self.check_kind(nc, err)?;
        let nchunks = self.nchunks();
        if self.chunksize < 0 || (nchunks == 0 && self.chunksize == 0) {
            self.chunksize = nc.nbytes as i32;
        } else if self.chunksize > 0 {
            // Fixed sizes hold while every chunk but the last is full. Like C-Blosc2, any
            // insertion after a short last chunk switches to variable sizes.
            let cs = self.chunksize as i64;
            let last_short = self.nbytes % cs != 0;
            let ok = !last_short
                && if n == nchunks {
                    nc.nbytes <= cs
                } else {
                    nc.nbytes == cs
                };
            if !ok {
                self.make_variable()?;
            }
        }
        let value = self.place(nc)?;
        self.offsets.table_mut()?.insert(n as usize, value);
        self.nbytes += nc.nbytes;
        self.write_tail(OffsetsChunk::Encode)?;
        Ok(self.nchunks())
    }

    /// Replace logical chunk `n`; returns the number of chunks.
    fn update_chunk_unlocked(&mut self, n: i64, chunk: &[u8]) -> Result<i64> {
        let nc = check_new_chunk(chunk, Error::ChunkUpdate)?;
        let i = self.check_index(n, Error::InvalidParam)?;
        // A change needs the whole index: decoded now, before anything is written.
        self.offsets.table_mut()?;
        let nchunks = self.offsets.len();
        if nchunks == 1 {
            self.vl_blocks = if nc.special.is_some() {
                self.vl_blocks
            } else {
                nc.vl
            };
        } else {
            self.check_kind(&nc, Error::ChunkUpdate)?;
        }
        let old_nbytes = self.chunk_nbytes(i)?;
        if self.chunksize > 0 {
            let cs = self.chunksize as i64;
            let ok = if nchunks == 1 {
                true
            } else if i + 1 == nchunks {
                nc.nbytes <= cs
            } else {
                nc.nbytes == cs
            };
            if !ok {
                self.make_variable()?;
            } else if nchunks == 1 {
                self.chunksize = nc.nbytes as i32;
            }
        }
        let old = self.offsets.get(i)?;
        let special = nc
            .special
            .filter(|_| self.chunksize > 0)
            .and_then(index::special_offset);
        let value = match &self.storage {
            Storage::Dir { path, io } => match (old >= 0, special) {
                // A sparse frame rewrites the same chunk file.
                (true, None) => {
                    let old_len = sframe::chunk_file_len(path, io.as_ref(), old)?;
                    sframe::write_chunk(path, io.as_ref(), old, nc.bytes)?;
                    self.cbytes += nc.bytes.len() as i64 - old_len as i64;
                    old
                }
                _ => {
                    self.remove_chunk_file(i)?;
                    // The slot must not count as "in use" when a new file number is chosen.
                    self.offsets.table_mut()?[i] = -1;
                    match special {
                        Some(code) => code,
                        None => self.store_chunk(nc.bytes)?,
                    }
                }
            },
            _ => {
                let new = if special.is_some() {
                    None
                } else {
                    Some(nc.bytes)
                };
                if old >= 0 && self.replace_in_place(i, new)? {
                    special.unwrap_or(old)
                } else {
                    match special {
                        Some(code) => code,
                        None => self.store_chunk(nc.bytes)?,
                    }
                }
            }
        };
        self.offsets.table_mut()?[i] = value;
        self.nbytes += nc.nbytes - old_nbytes;
        self.write_tail(OffsetsChunk::Encode)?;
        Ok(self.nchunks())
    }

    /// Delete logical chunk `n`; returns the new number of chunks.
    /// Insert `count` copies of `chunk` at position `n` in one index update: what `count`
    /// calls of [`insert_chunk`](Self::insert_chunk) at `n` make, for the cost of one when
    /// `chunk` is a special chunk of the frame's chunk size (stored as special offsets), else
    /// chunk by chunk. Under the exclusive frame lock when locking is on. Returns the number
    /// of chunks.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::chunk::{header::Special, special::special_chunk};
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// use b2rs::CParams;
    ///
    /// let cparams = CParams { typesize: 4, ..CParams::default() };
    /// let mut frame = Frame::create(Location::Memory, &FrameParams::from_cparams(&cparams, 1), Arc::new(StdIo)).unwrap();
    /// frame.set_chunksize(4000).unwrap();
    /// let mut zeros = [0u8; 32];
    /// special_chunk(&cparams, Special::Zero, 4000, None, &mut zeros).unwrap();
    /// assert_eq!(frame.insert_chunk_run(0, 1000, &zeros).unwrap(), 1000);
    /// assert_eq!(frame.nbytes(), 4_000_000);
    /// assert_eq!(frame.delete_chunk_run(10, 990).unwrap(), 10);
    /// ```
    pub fn insert_chunk_run(&mut self, n: i64, count: i64, chunk: &[u8]) -> Result<i64> {
        self.locked(LockMode::Exclusive, |f| {
            f.insert_chunk_run_unlocked(n, count, chunk)
        })
    }

    fn insert_chunk_run_unlocked(&mut self, n: i64, count: i64, chunk: &[u8]) -> Result<i64> {
        let nc = check_new_chunk(chunk, Error::ChunkInsert)?;
        if n < 0 || n > self.nchunks() || count < 0 {
            crate::trace_error!("Cannot insert {} chunks at position {}", count, n);
            return Err(Error::InvalidParam);
        }
        if self.nchunks().saturating_add(count) > index::MAX_NCHUNKS {
            crate::trace_error!("Too many chunks for a frame");
            return Err(Error::ChunkInsert);
        }
        let (mut n, mut count) = (n, count);
        // C-Blosc2's rules need a chunk size set and the last chunk full: chunk by chunk until
        // then (at most once, the first insertion sets them)
        let fast = |f: &Frame| {
            f.chunksize > 0
                && nc.nbytes == f.chunksize as i64
                && f.nbytes % f.chunksize as i64 == 0
                && nc.special.and_then(index::special_offset).is_some()
        };
        while count > 0 && !fast(self) {
            self.insert_at(n, &nc, Error::ChunkInsert)?;
            n += 1;
            count -= 1;
        }
        if count == 0 {
            return Ok(self.nchunks());
        }
        self.offsets.table_mut()?;
        self.check_kind(&nc, Error::ChunkInsert)?;
        let value = self.place(&nc)?;
        let at = n as usize;
        self.offsets
            .table_mut()?
            .splice(at..at, std::iter::repeat_n(value, count as usize));
        self.nbytes += nc.nbytes * count;
        self.write_tail(OffsetsChunk::Encode)?;
        Ok(self.nchunks())
    }

    /// Delete the `count` chunks from `n` in one index update (what `count` calls of
    /// [`delete_chunk`](Self::delete_chunk) at `n` make). Under the exclusive frame lock when
    /// locking is on. Returns the number of chunks.
    ///
    /// # Examples
    ///
    /// See [`insert_chunk_run`](Self::insert_chunk_run).
    pub fn delete_chunk_run(&mut self, n: i64, count: i64) -> Result<i64> {
        self.locked(LockMode::Exclusive, |f| {
            f.delete_chunk_run_unlocked(n, count)
        })
    }

    fn delete_chunk_run_unlocked(&mut self, n: i64, count: i64) -> Result<i64> {
        if count < 0 || n < 0 || n.saturating_add(count) > self.nchunks() {
            crate::trace_error!("Cannot delete {} chunks from position {}", count, n);
            return Err(Error::InvalidParam);
        }
        if count == 0 {
            return Ok(self.nchunks());
        }
        if count == 1 {
            return self.delete_chunk_unlocked(n);
        }
        self.offsets.table_mut()?;
        let (a, b) = (n as usize, (n + count) as usize);
        let mut gone = 0i64;
        for i in a..b {
            gone += self.chunk_nbytes(i)?;
        }
        if self.is_sparse() {
            // the chunk files of the run that no chunk outside it shares, each once: one pass
            // over the index, not one per chunk
            let t = self.offsets.table_mut()?;
            let outside: HashSet<i64> = t[..a].iter().chain(&t[b..]).copied().collect();
            let mut gone_files: Vec<i64> = t[a..b]
                .iter()
                .copied()
                .filter(|&o| o >= 0 && !outside.contains(&o))
                .collect();
            gone_files.sort_unstable();
            gone_files.dedup();
            if let Storage::Dir { path, io } = &self.storage {
                for &off in &gone_files {
                    let len = sframe::chunk_file_len(path, io.as_ref(), off)?;
                    sframe::remove_chunk(path, io.as_ref(), off)?;
                    self.cbytes = (self.cbytes - len as i64).max(0);
                }
            }
        }
        self.offsets.table_mut()?.drain(a..b);
        self.nbytes -= gone;
        if self.offsets.is_empty() {
            self.nbytes = 0;
            self.cbytes = 0;
            self.write_tail(OffsetsChunk::Encode)?;
        } else {
            let coff = index::encode_after_delete(self.offsets.table_mut()?)?;
            self.write_tail(OffsetsChunk::Given(coff))?;
        }
        Ok(self.nchunks())
    }

    fn delete_chunk_unlocked(&mut self, n: i64) -> Result<i64> {
        let i = self.check_index(n, Error::InvalidParam)?;
        // A change needs the whole index: decoded now, before anything is written.
        self.offsets.table_mut()?;
        let old_nbytes = self.chunk_nbytes(i)?;
        // A sparse frame deletes the chunk file; a contiguous one leaves the bytes unreferenced
        // (as C-Blosc2 does).
        if self.is_sparse() {
            self.remove_chunk_file(i)?;
        }
        self.offsets.table_mut()?.remove(i);
        self.nbytes -= old_nbytes;
        if self.offsets.is_empty() {
            self.nbytes = 0;
            self.cbytes = 0;
        }
        if self.offsets.is_empty() {
            self.write_tail(OffsetsChunk::Encode)?;
        } else {
            let coff = index::encode_after_delete(self.offsets.table_mut()?)?;
            self.write_tail(OffsetsChunk::Given(coff))?;
        }
        Ok(self.nchunks())
    }

    /// Reorder the chunks: new chunk `i` is old chunk `order[i]` (a permutation).
    fn reorder_offsets_unlocked(&mut self, order: &[i64]) -> Result<()> {
        // A change needs the whole index: decoded now, before anything is written.
        self.offsets.table_mut()?;
        let n = self.offsets.len();
        let mut seen = vec![false; n];
        if order.len() != n {
            crate::trace_error!("The order must have one entry per chunk");
            return Err(Error::InvalidParam);
        }
        for &o in order {
            if o < 0 || o as usize >= n || seen[o as usize] {
                crate::trace_error!("The order is not a permutation of the chunks");
                return Err(Error::InvalidParam);
            }
            seen[o as usize] = true;
        }
        if self.chunksize > 0
            && n > 0
            && self.nbytes % self.chunksize as i64 != 0
            && order[n - 1] as usize != n - 1
        {
            // The short last chunk moves: sizes become variable.
            self.make_variable()?;
        }
        let t = self.offsets.table_mut()?;
        let reordered = order.iter().map(|&o| t[o as usize]).collect();
        *t = reordered;
        self.write_tail(OffsetsChunk::Encode)
    }

    /// Fill an empty frame with `nitems` items of a special value (zeros, NaN or uninit) in
    /// chunks of `chunksize` bytes, storing only a run-of-value offsets chunk (C-Blosc2's fast
    /// path of `blosc2_schunk_fill_special`). Returns the frame length.
    fn fill_special_unlocked(
        &mut self,
        nitems: i64,
        special: Special,
        chunksize: i32,
    ) -> Result<i64> {
        let code = index::special_offset(special).ok_or_else(|| {
            crate::trace_error!("Only zeros, NaNs or non-initialized values are supported");
            Error::FrameSpecial
        })?;
        if nitems < 0 {
            return Err(Error::InvalidParam);
        }
        if nitems == 0 {
            return Ok(self.len());
        }
        if self.nbytes > 0 || self.cbytes > 0 || !self.offsets.is_empty() {
            crate::trace_error!("Filling with special values only works on empty frames");
            return Err(Error::FrameSpecial);
        }
        let typesize = self.params.typesize as i64;
        let chunkitems = chunksize as i64 / typesize;
        if chunkitems <= 0 {
            crate::trace_error!("chunksize must be >= typesize for a special fill");
            return Err(Error::FrameSpecial);
        }
        let nchunks = nitems / chunkitems + i64::from(nitems % chunkitems != 0);
        let nbytes = nitems.checked_mul(typesize).ok_or(Error::FrameSpecial)?;
        if nchunks > index::MAX_NCHUNKS {
            crate::trace_error!("nitems is too large; try increasing the chunksize");
            return Err(Error::FrameSpecial);
        }
        let coff = index::encode_repeated(code, nchunks)?;
        let offsets = Offsets::from_chunk(coff.clone(), nchunks, 0)?;
        // The super-chunk blocksize becomes the one of a sample special chunk.
        let sample_params = CParams {
            blocksize: self.params.blocksize,
            ..self.params.to_cparams()
        };
        let mut sample = [0u8; EXTENDED_HEADER_LENGTH];
        let chunk_nbytes = (chunkitems * typesize) as usize;
        crate::chunk::special::special_chunk(
            &sample_params,
            special,
            chunk_nbytes,
            None,
            &mut sample,
        )
        .map_err(|_| Error::FrameSpecial)?;
        let (_, _, blocksize) = Header::sizes(&sample)?;
        let old = (self.params.blocksize, self.chunksize, self.nbytes);
        self.params.blocksize = blocksize;
        self.chunksize = chunk_nbytes as i32;
        self.nbytes = nbytes;
        self.offsets = offsets;
        if let Err(e) = self.write_tail(OffsetsChunk::Given(coff)) {
            (self.params.blocksize, self.chunksize, self.nbytes) = old;
            self.offsets = Offsets::new();
            return Err(e);
        }
        Ok(self.len())
    }
}
