//! Frames made from a set of chunks at once, and frames turned into bytes, copied to another
//! location or appended to a file.

use super::*;

impl Frame {
    /// Build an in-memory frame from whole chunks, as C-Blosc2 serialises an in-memory
    /// super-chunk: every chunk stored as it is (special ones included), `chunksize` the common
    /// chunk size or 0, the offsets chunk compressed with the default parameters.
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
    /// let chunks = [chunk_of(7), chunk_of(8)];
    /// let refs: Vec<&[u8]> = chunks.iter().map(|c| c.as_slice()).collect();
    /// let f = Frame::from_chunks(&params, &refs, &[], &[]).unwrap();
    /// assert_eq!((f.nchunks(), f.chunksize()), (2, 1000));
    /// assert_eq!(first_byte(&f, 1), 8);
    /// ```
    pub fn from_chunks(
        params: &FrameParams,
        chunks: &[&[u8]],
        metalayers: &[Metalayer],
        vlmetalayers: &[Metalayer],
    ) -> Result<Frame> {
        let (mut f, news) = Frame::new_memory(params, chunks, metalayers, vlmetalayers)?;
        for (i, nc) in news.iter().enumerate() {
            if i == 0 {
                f.chunksize = nc.nbytes as i32;
                f.vl_blocks = nc.vl;
            } else {
                if nc.nbytes != f.chunksize as i64 {
                    f.chunksize = 0;
                }
                if nc.vl != f.vl_blocks {
                    crate::trace_error!("VL-block chunks cannot be mixed with regular chunks");
                    return Err(Error::ChunkAppend);
                }
            }
        }
        f.assemble(&news, index::encode_whole)?;
        Ok(f)
    }

    /// The frame that appending `chunks` one by one to an empty in-memory frame with the chunk
    /// size `chunksize` (> 0) and these metalayers, then adding the vlmetalayers, makes — built
    /// at once instead of rewriting the offsets chunk after every chunk. Every chunk but the
    /// last must hold `chunksize` bytes and the last at most that ([`Error::ChunkAppend`]).
    pub(crate) fn from_fixed_chunks(
        params: &FrameParams,
        chunksize: i32,
        chunks: &[&[u8]],
        metalayers: &[Metalayer],
        vlmetalayers: &[Metalayer],
    ) -> Result<Frame> {
        if chunksize <= 0 {
            return Err(Error::InvalidParam);
        }
        let (mut f, news) = Frame::new_memory(params, chunks, metalayers, vlmetalayers)?;
        f.chunksize = chunksize;
        // as `append_chunk` decides: the first chunk, unless special, sets the kind
        f.vl_blocks = news.first().is_some_and(|nc| nc.special.is_none() && nc.vl);
        let cs = chunksize as i64;
        for (i, nc) in news.iter().enumerate() {
            let fits = nc.nbytes == cs || (i + 1 == news.len() && nc.nbytes < cs);
            if !fits || (nc.special.is_none() && nc.vl != f.vl_blocks) {
                crate::trace_error!("Chunk {} does not fit a frame of chunk size {}", i, cs);
                return Err(Error::ChunkAppend);
            }
        }
        f.assemble(&news, index::encode)?;
        Ok(f)
    }

    /// An empty in-memory frame with these parameters and metalayers (checked), and `chunks`
    /// checked for it.
    pub(super) fn new_memory<'c>(
        params: &FrameParams,
        chunks: &[&'c [u8]],
        metalayers: &[Metalayer],
        vlmetalayers: &[Metalayer],
    ) -> Result<(Frame, Vec<NewChunk<'c>>)> {
        check_params(params)?;
        header::check_metalayers(metalayers)?;
        let mut f = Frame::empty(Storage::Memory(MemBuf::Owned(Vec::new())), params);
        f.metalayers = metalayers.to_vec();
        f.vlmetalayers = vlmetalayers.to_vec();
        let news = chunks
            .iter()
            .map(|c| check_new_chunk(c, Error::ChunkAppend))
            .collect::<Result<Vec<_>>>()?;
        Ok((f, news))
    }

    /// Lay out the checked chunks `news` of a new in-memory frame (chunk size and kind set)
    /// and build it, its offsets chunk encoded by `encode`. Whole-chunk zeros/NaN/uninit chunks
    /// become special offsets when the chunk size is fixed (FRAME.md §5), as C-Blosc2
    /// serialises them; C-Blosc2 cannot open a frame that stores them inline.
    pub(super) fn assemble(
        &mut self,
        news: &[NewChunk<'_>],
        encode: fn(&[i64]) -> Result<Vec<u8>>,
    ) -> Result<()> {
        if news.len() as i64 > index::MAX_NCHUNKS {
            crate::trace_error!("Too many chunks for a frame");
            return Err(Error::ChunkAppend);
        }
        let mut section = Vec::new();
        let mut table = offsets::reserve_table(news.len())?;
        for nc in news {
            let special = nc
                .special
                .filter(|_| self.chunksize > 0)
                .and_then(index::special_offset);
            match special {
                Some(o) => table.push(o),
                None => {
                    table.push(section.len() as i64);
                    section.extend_from_slice(nc.bytes);
                }
            }
            self.nbytes += nc.nbytes;
        }
        self.cbytes = section.len() as i64;
        let coff = if table.is_empty() {
            Vec::new()
        } else {
            encode(&table)?
        };
        self.offsets = offsets::Offsets::from_table(table);
        self.build_memory(section, coff)
    }

    /// The whole frame serialised as a contiguous frame (cframe), whatever the location.
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
    /// let bytes = frame.to_bytes().unwrap();
    /// assert_eq!(bytes.len() as i64, frame.len());
    /// assert_eq!(&bytes[2..9], b"b2frame");
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        match &self.storage {
            Storage::Memory(v) => Ok(v.as_slice().to_vec()),
            Storage::File { path, offset, io } => {
                let mut h = super::io::open_version(io.as_ref(), path, self.version.as_deref())?;
                let len = usize::try_from(self.frame_len).map_err(|_| Error::MemoryAlloc)?;
                let mut buf = vec![0u8; len];
                h.read_at(*offset, &mut buf)?;
                Ok(buf)
            }
            Storage::Dir { .. } => {
                let mut f = self.contiguous_copy()?;
                match std::mem::replace(&mut f.storage, Storage::Memory(MemBuf::Owned(Vec::new())))
                {
                    Storage::Memory(v) => Ok(v.into_vec()),
                    _ => Err(Error::Failure),
                }
            }
        }
    }

    /// The frame bytes of an in-memory frame (`None` for File/Dir frames).
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
    /// assert_eq!(frame.as_bytes().unwrap(), frame.to_bytes().unwrap());
    /// ```
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match &self.storage {
            Storage::Memory(v) => Some(v.as_slice()),
            _ => None,
        }
    }

    /// The frame serialised as a cframe, consuming the frame (no copy for in-memory frames).
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
    /// let len = frame.len();
    /// assert_eq!(frame.into_bytes().unwrap().len() as i64, len);
    /// ```
    pub fn into_bytes(mut self) -> Result<Vec<u8>> {
        if let Storage::Memory(v) = &mut self.storage {
            return Ok(std::mem::replace(v, MemBuf::Owned(Vec::new())).into_vec());
        }
        self.to_bytes()
    }

    /// Write a copy of this frame at `loc` (which must not be this frame's own location) and
    /// return it.
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
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
    /// let on_disk = frame.copy_to(Location::File { path: path.clone(), offset: 0 }, Arc::new(StdIo)).unwrap();
    /// assert_eq!(on_disk.nchunks(), 3);
    /// assert_eq!(std::fs::read(&path).unwrap(), frame.to_bytes().unwrap());
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn copy_to(&self, loc: Location, io: Arc<dyn Io>) -> Result<Frame> {
        match loc {
            Location::Memory => Frame::from_bytes(self.to_bytes()?),
            Location::File { path, offset } => {
                let bytes = self.to_bytes()?;
                {
                    let mode = if offset == 0 {
                        OpenMode::Create
                    } else {
                        OpenMode::Append
                    };
                    let mut h = io.open(&path, mode)?;
                    h.write_at(offset, &bytes)?;
                    h.truncate(offset + bytes.len() as u64)?;
                }
                Frame::open(Location::File { path, offset }, io)
            }
            Location::Dir(path) => self.sparse_copy(path, io),
        }
    }

    /// Append a serialised contiguous frame to the end of the file at `path` (created if
    /// missing) and return the offset where it starts (C-Blosc2's
    /// `blosc2_schunk_append_file`).
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
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.bin", std::process::id()));
    /// std::fs::write(&path, b"a file header").unwrap();
    /// let offset = Frame::append_file(&path, &frame.to_bytes().unwrap(), &StdIo).unwrap();
    /// assert_eq!(offset, 13);
    /// let opened = Frame::open(Location::File { path: path.clone(), offset }, Arc::new(StdIo)).unwrap();
    /// assert_eq!(first_byte(&opened, 0), 1);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn append_file(path: &Path, cframe: &[u8], io: &dyn Io) -> Result<u64> {
        let mut h = io.open(path, OpenMode::Append)?;
        let at = h.size()?;
        h.write_at(at, cframe)?;
        Ok(at)
    }

    pub(super) fn fixed_header(&self, frame_len: u64) -> FixedHeader {
        FixedHeader {
            header_len: 0,
            frame_len: frame_len as i64,
            frame_type: if self.is_sparse() {
                header::TYPE_DIRECTORY
            } else {
                header::TYPE_CONTIGUOUS
            },
            nbytes: self.nbytes,
            cbytes: self.cbytes,
            chunksize: self.chunksize,
            vl_blocks: self.vl_blocks,
            has_vlmeta: !self.vlmetalayers.is_empty(),
            params: self.params.clone(),
        }
    }
}
