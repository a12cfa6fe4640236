//! Creating and opening frames: in memory (owned or lent bytes), in a file (possibly at an
//! offset) or as a sparse directory.

use super::*;

impl Frame {
    pub(super) fn empty(storage: Storage, params: &FrameParams) -> Frame {
        Frame {
            storage,
            params: params.clone(),
            header_len: header::HEADER_NOMETA_LEN as u64,
            nbytes: 0,
            cbytes: 0,
            chunksize: -1,
            vl_blocks: false,
            metalayers: Vec::new(),
            vlmetalayers: Vec::new(),
            offsets: offsets::Offsets::new(),
            off_len: 0,
            trailer_len: 0,
            frame_len: 0,
            lock: None,
            seen_generation: 0,
            pending: Vec::new(),
            disk_header: Vec::new(),
            version: None,
            next_file: 0,
            hold_flush: false,
            soft_depth: 0,
        }
    }

    /// Create an empty frame (written at once for File/Dir; nchunks 0, chunksize -1).
    ///
    /// # Examples
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    ///
    /// let loc = Location::File { path: path.clone(), offset: 0 };
    /// let frame = Frame::create(loc, &FrameParams::default(), Arc::new(StdIo)).unwrap();
    /// assert_eq!((frame.nchunks(), frame.chunksize()), (0, -1));
    /// // written at once
    /// assert_eq!(std::fs::metadata(&path).unwrap().len() as i64, frame.len());
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn create(loc: Location, params: &FrameParams, io: Arc<dyn Io>) -> Result<Frame> {
        check_params(params)?;
        let storage = match loc {
            Location::Memory => Storage::Memory(MemBuf::Owned(Vec::new())),
            Location::File { path, offset } => {
                // Make sure the file exists; an embedded frame keeps the bytes before it.
                let mode = if offset == 0 {
                    OpenMode::Create
                } else {
                    OpenMode::Append
                };
                drop(io.open(&path, mode)?);
                Storage::File { path, offset, io }
            }
            Location::Dir(path) => {
                let base = sframe::create_dir(&path, io.as_ref())?;
                let hold = io.deferred_removal();
                let mut f = Frame::empty(Storage::Dir { path, io }, params);
                f.next_file = base;
                f.hold_flush = hold;
                f.write_tail(OffsetsChunk::Encode)?;
                f.hold_flush = false;
                f.setup_lock()?;
                return Ok(f);
            }
        };
        let mut f = Frame::empty(storage, params);
        f.write_tail(OffsetsChunk::Encode)?;
        f.setup_lock()?;
        Ok(f)
    }

    /// Open an existing frame (File: validated per FRAME.md §11; Dir: `chunks.b2frame`).
    /// `Location::Memory` is refused: use [`Frame::from_bytes`].
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
    /// use b2rs::Error;
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
    /// std::fs::write(&path, frame.to_bytes().unwrap()).unwrap();
    /// let opened = Frame::open(Location::File { path: path.clone(), offset: 0 }, Arc::new(StdIo)).unwrap();
    /// assert_eq!(first_byte(&opened, 2), 3);
    /// assert!(Frame::open(Location::Memory, Arc::new(StdIo)).is_err());
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn open(loc: Location, io: Arc<dyn Io>) -> Result<Frame> {
        if let Location::File { path, .. } | Location::Dir(path) = &loc {
            io.forget(path);
        }
        Frame::open_fresh(loc, io)
    }

    /// [`Frame::open`] once the back-end forgot what it held of the frame's objects: an open
    /// reads what is stored now, as a local file's does (a remote back-end's cache otherwise
    /// hands out the version it read first, however long ago).
    fn open_fresh(loc: Location, io: Arc<dyn Io>) -> Result<Frame> {
        match loc {
            Location::Memory => {
                crate::trace_error!("An in-memory frame is opened with Frame::from_bytes");
                Err(Error::InvalidParam)
            }
            Location::File { path, offset } => {
                let lock = io.locking().then(|| lock::sidecar_path(&path, false));
                Frame::load_locked(Storage::File { path, offset, io }, lock)
            }
            Location::Dir(path) => {
                let lock = io.locking().then(|| lock::sidecar_path(&path, true));
                Frame::load_locked(Storage::Dir { path, io }, lock)
            }
        }
    }

    /// Open the frame at `path`: a sparse frame if it is a directory, else a contiguous frame
    /// starting at `offset` of the file.
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
    /// let dir = std::env::temp_dir().join(format!("b2rs-doc-{}.sparse", std::process::id()));
    /// frame.copy_to(Location::Dir(dir.clone()), Arc::new(StdIo)).unwrap();
    /// // a directory: a sparse frame
    /// let opened = Frame::open_path(&dir, 0, Arc::new(StdIo)).unwrap();
    /// assert!(opened.is_sparse());
    /// assert_eq!(first_byte(&opened, 1), 2);
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn open_path(path: &Path, offset: u64, io: Arc<dyn Io>) -> Result<Frame> {
        io.forget(path);
        if io.is_dir(path)? {
            if offset != 0 {
                crate::trace_error!("Sparse frames cannot be opened at an offset");
                return Err(Error::InvalidParam);
            }
            Frame::open_fresh(Location::Dir(path.to_path_buf()), io)
        } else {
            Frame::open_fresh(
                Location::File {
                    path: path.to_path_buf(),
                    offset,
                },
                io,
            )
        }
    }

    /// Parse a contiguous frame held in memory (taken over).
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
    /// let copy = Frame::from_bytes(frame.to_bytes().unwrap()).unwrap();
    /// assert_eq!((copy.nchunks(), first_byte(&copy, 0)), (3, 1));
    /// assert!(Frame::from_bytes(vec![0u8; 100]).is_err());
    /// ```
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Frame> {
        cframe::load(Storage::Memory(MemBuf::Owned(bytes)))
    }

    /// Parse a contiguous frame held in memory by someone else, without copying it: only the
    /// header, the offsets chunk and the trailer are read now, chunks when asked for. The
    /// bytes are copied into the frame's own buffer before its first change (copy-on-write),
    /// so `bytes` is never written.
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
    /// let bytes: Arc<[u8]> = Arc::from(frame.to_bytes().unwrap());
    /// let mut f = Frame::from_shared(Box::new(bytes.clone())).unwrap();
    /// assert!(f.is_lent());
    /// f.append_chunk(&chunk_of(4)).unwrap(); // copies the bytes first
    /// assert!(!f.is_lent());
    /// assert_eq!(Frame::from_bytes(bytes.to_vec()).unwrap().nchunks(), 3); // untouched
    /// ```
    pub fn from_shared(bytes: Box<dyn SharedBytes>) -> Result<Frame> {
        cframe::load(Storage::Memory(MemBuf::Lent(bytes)))
    }

    /// Whether this in-memory frame still reads bytes lent by [`Frame::from_shared`] (no
    /// change since).
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
    /// assert!(!frame.is_lent());
    /// let lent = Frame::from_shared(Box::new(frame.to_bytes().unwrap())).unwrap();
    /// assert!(lent.is_lent());
    /// ```
    pub fn is_lent(&self) -> bool {
        matches!(self.storage, Storage::Memory(MemBuf::Lent(_)))
    }

    /// Move the bytes of this in-memory frame into a buffer made by `place` (given the current
    /// bytes), which the frame then reads until its next change, as bytes lent by
    /// [`Frame::from_shared`]; returns the buffer the frame held before (`None`, and `place`
    /// not called, when it already reads lent bytes or is not in memory). A C layer uses this
    /// to hand a caller the frame in memory of its own allocator without copying it again.
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// # use b2rs::CParams;
    /// let params = FrameParams::from_cparams(&CParams::default(), 1);
    /// let mut frame = Frame::create(Location::Memory, &params, Arc::new(StdIo)).unwrap();
    /// let before = frame.to_bytes().unwrap();
    /// let old = frame.relocate_memory(|b| Ok(Box::new(b.to_vec()))).unwrap();
    /// assert_eq!(old.as_deref(), Some(&before[..]));
    /// assert!(frame.is_lent());
    /// assert_eq!(frame.as_bytes().unwrap(), &before[..]);
    /// // already lent: nothing to move
    /// assert!(frame.relocate_memory(|_| unreachable!()).unwrap().is_none());
    /// ```
    pub fn relocate_memory<F>(&mut self, place: F) -> Result<Option<Vec<u8>>>
    where
        F: FnOnce(&[u8]) -> Result<Box<dyn SharedBytes>>,
    {
        let Storage::Memory(MemBuf::Owned(v)) = &self.storage else {
            return Ok(None);
        };
        let lent = place(v)?;
        match std::mem::replace(&mut self.storage, Storage::Memory(MemBuf::Lent(lent))) {
            Storage::Memory(MemBuf::Owned(v)) => Ok(Some(v)),
            _ => unreachable!("matched as owned memory above"),
        }
    }
}
