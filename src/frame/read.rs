//! Reading the chunks of a frame: the index (whole or a piece at a time), special chunks made
//! from their index entries, and the stored bytes of a chunk.

use super::*;

impl Frame {
    /// The raw offsets table (special values included).
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
    /// let offsets = frame.offsets().unwrap();
    /// assert_eq!(offsets.len(), 3);
    /// assert_eq!(offsets[0], 0);
    /// assert_eq!(offsets[1] as usize, frame.get_chunk(0).unwrap().len());
    /// ```
    pub fn offsets(&self) -> Result<Vec<i64>> {
        self.offsets.to_vec()
    }

    pub(super) fn check_index(&self, n: i64, err: Error) -> Result<usize> {
        if n < 0 || n >= self.nchunks() {
            crate::trace_error!(
                "nchunk ({}) exceeds the number of chunks ({}) in frame",
                n,
                self.nchunks()
            );
            return Err(err);
        }
        Ok(n as usize)
    }

    /// The raw offset of chunk `n` (negative: a special value): chunks with the same offset
    /// are the same bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// # use b2rs::{chunk, CParams};
    /// #
    /// # let cparams = CParams { typesize: 1, ..CParams::default() };
    /// # let params = FrameParams::from_cparams(&cparams, 1);
    /// # let mut buf = vec![0u8; 1000 + chunk::header::MAX_OVERHEAD];
    /// # let n = chunk::compress(&cparams, &[7u8; 1000], &mut buf).unwrap();
    /// # buf.truncate(n);
    /// let mut frame = Frame::create(Location::Memory, &params, Arc::new(StdIo)).unwrap();
    /// frame.append_chunk(&buf).unwrap();
    /// frame.append_chunk(&buf).unwrap();
    /// assert_eq!(frame.chunk_offset(0).unwrap(), 0);
    /// assert_eq!(frame.chunk_offset(1).unwrap(), buf.len() as i64);
    /// assert!(frame.chunk_offset(2).is_err());
    /// ```
    pub fn chunk_offset(&self, n: i64) -> Result<i64> {
        let i = self.check_index(n, Error::InvalidParam)?;
        self.offsets.get(i)
    }

    /// Call `f` with each chunk number and raw offset from chunk `first` on, in order, until
    /// it returns `false` — cheaper than [`Frame::chunk_offset`] per chunk on a large index.
    pub(crate) fn walk_offsets(
        &self,
        first: i64,
        mut f: impl FnMut(i64, i64) -> Result<bool>,
    ) -> Result<()> {
        let first = usize::try_from(first).map_err(|_| Error::InvalidParam)?;
        self.offsets.walk(first, |i, o| f(i as i64, o))
    }

    /// Uncompressed size of the special chunk `n` (FRAME.md §5).
    pub(super) fn special_nbytes(&self, n: usize) -> Result<i64> {
        if self.chunksize <= 0 {
            crate::trace_error!("A special chunk in a frame without a fixed chunk size");
            return Err(Error::InvalidHeader);
        }
        let cs = self.chunksize as i64;
        if n + 1 == self.offsets.len() && self.nbytes % cs != 0 {
            Ok(self.nbytes % cs)
        } else {
            Ok(cs)
        }
    }

    /// Build the chunk standing for the special offset of logical chunk `n`.
    pub(super) fn special_chunk(&self, n: usize) -> Result<Vec<u8>> {
        let off = self.offsets.get(n)?;
        let special = index::special_of_offset(off).ok_or_else(|| {
            crate::trace_error!("Special value not recognized: {:#x}", off);
            Error::Data
        })?;
        let nbytes = self.special_nbytes(n)?;
        let params = CParams {
            typesize: self.params.typesize,
            // a damaged header's blocksize does not cost the chunk (it is at most nbytes)
            blocksize: self.params.blocksize.clamp(0, nbytes as i32),
            ..CParams::default()
        };
        let mut buf = vec![0u8; EXTENDED_HEADER_LENGTH];
        let len = crate::chunk::special::special_chunk(
            &params,
            special,
            nbytes as usize,
            None,
            &mut buf,
        )?;
        buf.truncate(len);
        Ok(buf)
    }

    /// Logical chunk `n`: the stored chunk bytes, or a synthesised special chunk for a
    /// zeros/NaN/uninit offset (FRAME.md §5).
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
    /// let c = frame.get_chunk(2).unwrap();
    /// assert_eq!(chunk::Header::parse(&c).unwrap().nbytes, 1000);
    /// assert_eq!(first_byte(&frame, 2), 3);
    /// assert!(frame.get_chunk(3).is_err());
    /// ```
    pub fn get_chunk(&self, n: i64) -> Result<Cow<'_, [u8]>> {
        let i = self.check_index(n, Error::InvalidParam)?;
        let off = self.offsets.get(i)?;
        if off < 0 {
            return Ok(Cow::Owned(self.special_chunk(i)?));
        }
        match &self.storage {
            Storage::Memory(v) => {
                let v = v.as_slice();
                let (start, len) = self.stored_span(off, |pos, buf| {
                    let pos = usize::try_from(pos).map_err(|_| Error::ReadBuffer)?;
                    let src = v.get(pos..pos + buf.len()).ok_or(Error::ReadBuffer)?;
                    buf.copy_from_slice(src);
                    Ok(())
                })?;
                let start = start as usize;
                v.get(start..start + len)
                    .map(Cow::Borrowed)
                    .ok_or(Error::ReadBuffer)
            }
            Storage::File { path, offset, io } => {
                let mut h = super::io::open_version(io.as_ref(), path, self.version.as_deref())?;
                let (start, len) =
                    self.stored_span(off, |pos, buf| h.read_at(offset + pos, buf))?;
                let mut buf = vec![0u8; len];
                h.read_at(offset + start, &mut buf)?;
                Ok(Cow::Owned(buf))
            }
            Storage::Dir { path, io } => {
                Ok(Cow::Owned(sframe::read_chunk(path, io.as_ref(), off)?))
            }
        }
    }

    /// Where a stored chunk of a contiguous frame is: its position from the frame start and its
    /// length, checked against `cbytes`. `read` reads frame bytes.
    pub(super) fn stored_span(
        &self,
        off: i64,
        mut read: impl FnMut(u64, &mut [u8]) -> Result<()>,
    ) -> Result<(u64, usize)> {
        if off < 0 || off > self.cbytes - EXTENDED_HEADER_LENGTH as i64 {
            crate::trace_error!("Chunk offset {} out of the chunks section", off);
            return Err(Error::InvalidHeader);
        }
        let pos = self.header_len + off as u64;
        let mut h = [0u8; EXTENDED_HEADER_LENGTH];
        read(pos, &mut h)?;
        let (_, cbytes, _) = Header::sizes(&h)?;
        // (a negative cbytes must not pass as a huge unsigned size)
        if cbytes < EXTENDED_HEADER_LENGTH as i32 || off + cbytes as i64 > self.cbytes {
            crate::trace_error!("Invalid chunk size {} in frame", cbytes);
            return Err(Error::InvalidHeader);
        }
        Ok((pos, cbytes as usize))
    }
}
