//! Frames (FRAME.md): the serialised form of a super-chunk, either contiguous (a `cframe`, in
//! memory or in a file, possibly embedded at an offset of a larger file) or sparse (an
//! `sframe`: a directory with an index file and one file per chunk).
//!
//! [`Frame`] owns the bytes of a frame (or reads bytes lent by their owner, copying them at the
//! first change: [`Frame::from_shared`]) and keeps them a valid frame after every call: a
//! process killed between two calls leaves a readable file. Appends go further: the header,
//! which commits a change, is written after the new offsets chunk and trailer, and the bytes
//! of the new chunk that overlap the old offsets chunk and trailer only after the header, so a
//! process killed *during* an append of a chunk at least as long as the old offsets chunk and
//! trailer still leaves every chunk appended before readable (the chunk being appended may
//! then read as damaged); a sparse frame's index file is written aside and renamed over the
//! old one when the I/O back-end can (see [`Io::replace_file`]). It knows chunks only as opaque Blosc chunks
//! (plus their headers), and stores zero/NaN/uninit chunks as special offsets instead of bytes.
//!
//! Layout of the module: [`header`] (fixed header and metalayers), [`trailer`] (vlmetalayers,
//! `trailer_len`), [`index`] (the offsets chunk), `offsets` (an open frame's chunk index, read
//! lazily when large), [`io`] and [`mmap`] (I/O back-ends), `cframe` (contiguous storage),
//! `sframe` (directories), `chunks` (changing chunks) and `metalayers`.

pub mod header;
pub mod index;
pub mod io;
pub mod lock;
pub mod mmap;
pub mod trailer;

mod cframe;
mod chunks;
mod metalayers;
mod offsets;
mod sframe;

pub use io::{Io, IoHandle, LockingStdIo, OpenMode, StdIo};
pub use lock::{FrameLock, LockMode};
pub use mmap::{MmapIo, MmapMode};

use crate::chunk::header::{Header, Special, EXTENDED_HEADER_LENGTH};
use crate::error::{Error, Result};
use crate::params::{CParams, SplitMode};
use header::FixedHeader;
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Most metalayers a frame can hold.
pub const MAX_METALAYERS: usize = 16;
/// Longest (vl)metalayer name, in bytes.
pub const MAX_NAME_LEN: usize = 31;
/// Most vlmetalayers written to a frame (C-Blosc2 fails beyond that).
pub const MAX_VLMETALAYERS_WRITE: usize = 16;
/// Most vlmetalayers accepted when reading a frame.
pub const MAX_VLMETALAYERS_READ: usize = 8192;

/// Super-chunk parameters recorded in a frame header (FRAME.md §2).
///
/// # Examples
///
/// ```
/// use b2rs::frame::FrameParams;
/// use b2rs::{codecs, CParams};
///
/// let p = FrameParams { compcode: codecs::ZSTD, clevel: 9, typesize: 4, ..FrameParams::default() };
/// let c = p.to_cparams();
/// assert_eq!((c.compcode, c.clevel, c.typesize), (codecs::ZSTD, 9, 4));
/// assert_eq!(FrameParams::default().to_cparams().filters, CParams::default().filters);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct FrameParams {
    /// Real typesize, may exceed 255.
    pub typesize: i32,
    /// Block size parameter; 0 = automatic.
    pub blocksize: i32,
    /// Public codec id (0 blosclz, 1 lz4, 2 lz4hc, 4 zlib, 5 zstd, ≥ 32 plugin/user).
    pub compcode: u8,
    /// Codec parameter byte.
    pub compcode_meta: u8,
    /// Compression level.
    pub clevel: u8,
    /// Split mode.
    pub splitmode: SplitMode,
    /// Filter pipeline.
    pub filters: [u8; 6],
    /// Filter parameters.
    pub filters_meta: [u8; 6],
    /// Dictionaries in use.
    pub use_dict: bool,
    /// Compression threads (informational).
    pub nthreads_comp: i16,
    /// Decompression threads (informational).
    pub nthreads_decomp: i16,
}

impl Default for FrameParams {
    fn default() -> Self {
        FrameParams::from_cparams(&CParams::default(), 1)
    }
}

impl FrameParams {
    /// The frame parameters of a super-chunk compressing with `c`.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::FrameParams;
    /// use b2rs::{codecs, CParams};
    ///
    /// let c = CParams { compcode: codecs::LZ4, typesize: 300, nthreads: 4, ..CParams::default() };
    /// let p = FrameParams::from_cparams(&c, 2);
    /// assert_eq!((p.compcode, p.typesize), (codecs::LZ4, 300));
    /// assert_eq!((p.nthreads_comp, p.nthreads_decomp), (4, 2));
    /// ```
    pub fn from_cparams(c: &CParams, nthreads_decomp: i16) -> FrameParams {
        FrameParams {
            typesize: c.typesize,
            blocksize: c.blocksize,
            compcode: c.compcode,
            compcode_meta: c.compcode_meta,
            clevel: c.clevel,
            splitmode: c.splitmode,
            filters: c.filters,
            filters_meta: c.filters_meta,
            use_dict: c.use_dict,
            nthreads_comp: c.nthreads,
            nthreads_decomp,
        }
    }

    /// Compression parameters matching the header (defaults for everything else).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::FrameParams;
    /// use b2rs::{codecs, CParams};
    ///
    /// let c = CParams { compcode: codecs::ZLIB, clevel: 2, typesize: 2, ..CParams::default() };
    /// let back = FrameParams::from_cparams(&c, 1).to_cparams();
    /// assert_eq!((back.compcode, back.clevel, back.typesize, back.filters), (c.compcode, c.clevel, c.typesize, c.filters));
    /// ```
    pub fn to_cparams(&self) -> CParams {
        CParams {
            typesize: self.typesize,
            blocksize: self.blocksize,
            compcode: self.compcode,
            compcode_meta: self.compcode_meta,
            clevel: self.clevel,
            splitmode: self.splitmode,
            filters: self.filters,
            filters_meta: self.filters_meta,
            use_dict: self.use_dict,
            nthreads: self.nthreads_comp.max(1),
            ..CParams::default()
        }
    }
}

/// A fixed-size metalayer (header) or a variable-length one (trailer; `content` is then the
/// *compressed* Blosc chunk exactly as stored).
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location, Metalayer};
///
/// let mut frame = Frame::create(Location::Memory, &FrameParams::default(), Arc::new(StdIo)).unwrap();
/// frame.add_metalayer("units", b"K").unwrap();
/// assert_eq!(frame.metalayers(), [Metalayer { name: "units".into(), content: b"K".to_vec() }]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Metalayer {
    /// Name, 1 to 31 bytes.
    pub name: String,
    /// Content.
    pub content: Vec<u8>,
}

/// Where a frame lives.
///
/// # Examples
///
/// ```
/// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
/// use std::sync::Arc;
/// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
///
/// let dir = std::env::temp_dir().join(format!("b2rs-doc-{}.sparse", std::process::id()));
/// for loc in [Location::Memory, Location::File { path: path.clone(), offset: 0 }, Location::Dir(dir.clone())] {
///     let frame = Frame::create(loc.clone(), &FrameParams::default(), Arc::new(StdIo)).unwrap();
///     assert_eq!(frame.location(), loc);
///     assert_eq!(frame.is_sparse(), matches!(loc, Location::Dir(_)));
/// }
/// assert!(dir.join("chunks.b2frame").exists());
/// std::fs::remove_dir_all(&dir).unwrap();
/// std::fs::remove_file(&path).unwrap();
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A contiguous frame held in a `Vec<u8>`.
    Memory,
    /// A contiguous frame in a file, starting at byte `offset` (0 usually).
    File {
        /// The file.
        path: PathBuf,
        /// Where the frame starts in the file.
        offset: u64,
    },
    /// A sparse frame directory (index `chunks.b2frame` + `NNNNNNNN.chunk` files).
    Dir(PathBuf),
}

/// Bytes of an in-memory frame lent by their owner (e.g. a buffer of a C caller): the frame
/// reads them in place and copies them into a buffer of its own before its first change
/// (copy-on-write), so the owner's bytes are never written.
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
/// use b2rs::frame::SharedBytes;
///
/// // anything that is AsRef<[u8]> + Send + Sync, e.g. an Arc<[u8]>
/// let shared: Arc<[u8]> = Arc::from(frame.to_bytes().unwrap());
/// let lent: Box<dyn SharedBytes> = Box::new(shared.clone());
/// let f = Frame::from_shared(lent).unwrap();
/// assert_eq!(f.nchunks(), 3);
/// ```
pub trait SharedBytes: AsRef<[u8]> + Send + Sync {}

impl<T: AsRef<[u8]> + Send + Sync> SharedBytes for T {}

/// The bytes of an in-memory frame: owned, or lent until the first change.
enum MemBuf {
    Owned(Vec<u8>),
    Lent(Box<dyn SharedBytes>),
}

impl MemBuf {
    fn as_slice(&self) -> &[u8] {
        match self {
            MemBuf::Owned(v) => v,
            MemBuf::Lent(b) => (**b).as_ref(),
        }
    }

    /// The bytes, writable: lent bytes are copied first.
    fn to_mut(&mut self) -> &mut Vec<u8> {
        if let MemBuf::Lent(b) = self {
            *self = MemBuf::Owned((**b).as_ref().to_vec());
        }
        match self {
            MemBuf::Owned(v) => v,
            MemBuf::Lent(_) => unreachable!("made owned above"),
        }
    }

    fn into_vec(self) -> Vec<u8> {
        match self {
            MemBuf::Owned(v) => v,
            MemBuf::Lent(b) => (*b).as_ref().to_vec(),
        }
    }
}

enum Storage {
    Memory(MemBuf),
    File {
        path: PathBuf,
        offset: u64,
        io: Arc<dyn Io>,
    },
    Dir {
        path: PathBuf,
        io: Arc<dyn Io>,
    },
}

/// What `write_tail` does with the offsets chunk.
enum OffsetsChunk {
    /// Leave the stored offsets chunk as it is.
    Keep,
    /// Encode `offsets` again.
    Encode,
    /// Store this already encoded offsets chunk.
    Given(Vec<u8>),
}

/// A contiguous or sparse frame (see the module documentation).
///
/// A super-chunk stored in a frame file, written and reopened (as `blosc2_schunk_new` with a
/// contiguous `urlpath`, then `blosc2_schunk_open`):
///
/// ```
/// use std::sync::Arc;
/// use b2rs::frame::{Frame, FrameParams, Location, StdIo};
/// use b2rs::schunk::Schunk;
/// use b2rs::{CParams, DParams};
///
/// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
/// let cparams = CParams { typesize: 8, ..CParams::default() };
/// let params = FrameParams::from_cparams(&cparams, 1);
/// let loc = Location::File { path: path.clone(), offset: 0 };
/// let frame = Frame::create(loc, &params, Arc::new(StdIo)).unwrap();
/// let mut sc = Schunk::with_frame(cparams, DParams::default(), frame);
/// let data: Vec<u8> = (0..512u64).flat_map(|i| i.to_le_bytes()).collect();
/// sc.append_buffer(&data).unwrap();
/// sc.append_buffer(&data).unwrap();
/// drop(sc);
///
/// let frame = Frame::open_path(&path, 0, Arc::new(StdIo)).unwrap();
/// assert_eq!(frame.nchunks(), 2);
/// let mut sc = Schunk::from_frame(frame, DParams::default());
/// let mut out = vec![0u8; data.len()];
/// sc.decompress_chunk(1, &mut out).unwrap();
/// assert_eq!(out, data);
/// std::fs::remove_file(&path).unwrap();
/// ```
pub struct Frame {
    storage: Storage,
    params: FrameParams,
    header_len: u64,
    nbytes: i64,
    cbytes: i64,
    chunksize: i32,
    vl_blocks: bool,
    metalayers: Vec<Metalayer>,
    vlmetalayers: Vec<Metalayer>,
    offsets: offsets::Offsets,
    /// Length of the stored offsets chunk (0 without chunks).
    off_len: u64,
    trailer_len: u64,
    frame_len: u64,
    /// The sidecar lock when locking is on (disk-based frames whose I/O asks for it).
    lock: Option<FrameLock>,
    /// The lock generation the cached state reflects.
    seen_generation: i64,
    /// Bytes of new chunks of a file frame that overlap the frame as it is on disk (its
    /// offsets chunk and trailer): written by `write_tail` after the new header, so that a
    /// process killed during an append leaves the previous frame intact.
    pending: Vec<(u64, Vec<u8>)>,
    /// The header bytes as on disk (File and Dir storage; empty in memory): what
    /// [`Frame::sync`] compares to notice another handle's change.
    disk_header: Vec<u8>,
    /// Nesting of [`Frame::lock`] without locking (only the outermost call looks at the
    /// header on disk).
    soft_depth: u32,
}

impl std::fmt::Debug for Frame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Frame")
            .field("location", &self.location())
            .field("params", &self.params)
            .field("nchunks", &self.nchunks())
            .field("nbytes", &self.nbytes)
            .field("cbytes", &self.cbytes)
            .field("chunksize", &self.chunksize)
            .field("frame_len", &self.frame_len)
            .finish()
    }
}

/// A chunk handed to a mutating call, checked.
struct NewChunk<'a> {
    bytes: &'a [u8],
    nbytes: i64,
    /// Zero/NaN/uninit: can be stored as a special offset.
    special: Option<Special>,
    vl: bool,
}

fn check_new_chunk(chunk: &[u8], err: Error) -> Result<NewChunk<'_>> {
    let h = Header::parse(chunk)?;
    if !h.extended {
        crate::trace_error!("Chunks stored in frames need the 32-byte extended header");
        return Err(err);
    }
    let cbytes = h.cbytes as usize;
    if cbytes < EXTENDED_HEADER_LENGTH || chunk.len() < cbytes {
        crate::trace_error!("The chunk is shorter than its header says");
        return Err(Error::ReadBuffer);
    }
    if h.is_lazy() {
        crate::trace_error!("Lazy chunks cannot be stored in a frame");
        return Err(err);
    }
    if h.nbytes <= 0 {
        crate::trace_error!("Empty chunks cannot be stored in a frame");
        return Err(err);
    }
    Ok(NewChunk {
        bytes: &chunk[..cbytes],
        nbytes: h.nbytes as i64,
        special: h.special().filter(|s| index::special_offset(*s).is_some()),
        vl: h.is_vlblocks(),
    })
}

impl Frame {
    fn empty(storage: Storage, params: &FrameParams) -> Frame {
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
                sframe::create_dir(&path, io.as_ref())?;
                Storage::Dir { path, io }
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
        let md = std::fs::metadata(path).map_err(|_| {
            crate::trace_error!("Cannot get information about the path {}", path.display());
            Error::FileOpen
        })?;
        if md.is_dir() {
            if offset != 0 {
                crate::trace_error!("Sparse frames cannot be opened at an offset");
                return Err(Error::InvalidParam);
            }
            Frame::open(Location::Dir(path.to_path_buf()), io)
        } else {
            Frame::open(
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
    fn new_memory<'c>(
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
    fn assemble(
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
                let mut h = io.open(path, OpenMode::Read)?;
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
    pub fn into_bytes(self) -> Result<Vec<u8>> {
        match self.storage {
            Storage::Memory(v) => Ok(v.into_vec()),
            _ => self.to_bytes(),
        }
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

    /// Read the frame in `storage`, under a shared lock on the sidecar `lock` if given.
    fn load_locked(storage: Storage, lock: Option<PathBuf>) -> Result<Frame> {
        let Some(path) = lock else {
            return cframe::load(storage);
        };
        let mut l = FrameLock::new(path);
        let generation = l.acquire(LockMode::Shared)?.unwrap_or(0);
        let r = cframe::load(storage);
        l.release()?;
        let mut f = r?;
        f.lock = Some(l);
        f.seen_generation = generation;
        Ok(f)
    }

    /// Turn on the sidecar lock when the I/O back-end asks for it (disk-based frames only).
    fn setup_lock(&mut self) -> Result<()> {
        let (path, sparse) = match &self.storage {
            Storage::File { path, io, .. } if io.locking() => (path, false),
            Storage::Dir { path, io } if io.locking() => (path, true),
            _ => return Ok(()),
        };
        let mut l = FrameLock::new(lock::sidecar_path(path, sparse));
        self.seen_generation = l.peek_generation()?;
        self.lock = Some(l);
        Ok(())
    }

    /// How this handle holds the frame lock now (`None`: not held, or no locking).
    ///
    /// # Examples
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::LockingStdIo, Frame, FrameParams, LockMode, Location};
    ///
    /// let loc = Location::File { path: path.clone(), offset: 0 };
    /// let mut frame = Frame::create(loc, &FrameParams::default(), Arc::new(LockingStdIo)).unwrap();
    /// assert_eq!(frame.lock_mode(), None);
    /// frame.lock(LockMode::Shared).unwrap();
    /// assert_eq!(frame.lock_mode(), Some(LockMode::Shared));
    /// frame.unlock().unwrap();
    /// drop(frame);
    /// std::fs::remove_file(b2rs::frame::lock::sidecar_path(&path, false)).unwrap();
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn lock_mode(&self) -> Option<LockMode> {
        self.lock.as_ref().and_then(|l| l.mode())
    }

    /// Whether the frame serialises its accesses through a sidecar lock file.
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
    /// assert!(!frame.is_locking()); // in memory
    /// ```
    pub fn is_locking(&self) -> bool {
        self.lock.is_some()
    }

    /// Take the frame lock in `mode` (re-entrant; without locking no lock is taken). When
    /// the lock is really taken and another handle changed the frame since this one last
    /// looked (the sidecar generation; without locking, the header on disk: see
    /// [`Frame::sync`]), the frame is read again; returns whether that happened.
    ///
    /// # Examples
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::LockingStdIo, Frame, FrameParams, LockMode, Location};
    ///
    /// let loc = Location::File { path: path.clone(), offset: 0 };
    /// let mut a = Frame::create(loc.clone(), &FrameParams::default(), Arc::new(LockingStdIo)).unwrap();
    /// let mut b = Frame::open(loc, Arc::new(LockingStdIo)).unwrap();
    /// b.add_metalayer("m", b"v").unwrap();
    /// // `a` re-reads the frame changed by `b`
    /// assert!(a.lock(LockMode::Shared).unwrap());
    /// assert_eq!(a.metalayers().len(), 1);
    /// a.unlock().unwrap();
    /// drop((a, b));
    /// std::fs::remove_file(b2rs::frame::lock::sidecar_path(&path, false)).unwrap();
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn lock(&mut self, mode: LockMode) -> Result<bool> {
        let Some(l) = self.lock.as_mut() else {
            // Without locking, the header on disk tells whether another handle changed the
            // frame since this one last saw it: looked at when the outermost "lock" is
            // taken (the operations nested inside see the state it found).
            let changed = if self.soft_depth == 0 {
                self.sync()?
            } else {
                false
            };
            self.soft_depth += 1;
            return Ok(changed);
        };
        let Some(found) = l.acquire(mode)? else {
            return Ok(false);
        };
        let mut changed = false;
        if found != self.seen_generation {
            if let Err(e) = self.reload() {
                if let Some(l) = self.lock.as_mut() {
                    let _ = l.release();
                }
                return Err(e);
            }
            changed = true;
        }
        self.seen_generation = match mode {
            LockMode::Exclusive => found.wrapping_add(1),
            LockMode::Shared => found,
        };
        Ok(changed)
    }

    /// Release one level of the frame lock (a no-op without locking or when not held).
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
    /// use b2rs::frame::LockMode;
    ///
    /// // without locking, lock and unlock do nothing
    /// assert!(!frame.lock(LockMode::Exclusive).unwrap());
    /// frame.unlock().unwrap();
    /// assert_eq!(frame.lock_mode(), None);
    /// ```
    pub fn unlock(&mut self) -> Result<()> {
        match self.lock.as_mut() {
            Some(l) => l.release(),
            None => {
                self.soft_depth = self.soft_depth.saturating_sub(1);
                Ok(())
            }
        }
    }

    /// Run `op` holding the frame lock in `mode`.
    pub(crate) fn locked<T>(
        &mut self,
        mode: LockMode,
        op: impl FnOnce(&mut Frame) -> Result<T>,
    ) -> Result<T> {
        self.lock(mode)?;
        let r = op(self);
        let u = self.unlock();
        let v = r?;
        u?;
        Ok(v)
    }

    /// Re-read the frame from its storage if another handle changed it: with locking, under
    /// a shared lock when the sidecar generation moved; without, when its header on disk
    /// differs from the one this handle knows (one read of the header, a few hundred bytes:
    /// every change of a frame rewrites it). Returns whether the cached state changed (C-Blosc2's
    /// `blosc2_schunk_refresh`). A no-op returning `false` in memory.
    ///
    /// # Examples
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    ///
    /// let loc = Location::File { path: path.clone(), offset: 0 };
    /// let mut a = Frame::create(loc.clone(), &FrameParams::default(), Arc::new(StdIo)).unwrap();
    /// assert!(!a.sync().unwrap());
    /// let mut b = Frame::open(loc, Arc::new(StdIo)).unwrap();
    /// b.add_metalayer("m", b"v").unwrap();
    /// assert!(a.sync().unwrap());
    /// assert_eq!(a.metalayers().len(), 1);
    /// drop((a, b));
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn sync(&mut self) -> Result<bool> {
        if self.lock.is_some() {
            let changed = self.lock(LockMode::Shared)?;
            self.unlock()?;
            return Ok(changed);
        }
        // without locking: read again only when the header on disk moved (one read of it,
        // not of the whole frame)
        if !self.disk_changed()? {
            return Ok(false);
        }
        let before = self.state_key();
        self.reload()?;
        Ok(self.state_key() != before)
    }

    /// What [`Frame::sync`] compares: counters, metalayers and the offsets.
    fn state_key(&self) -> (i64, i64, i64, u64, Vec<Metalayer>, Vec<Metalayer>) {
        (
            self.nbytes,
            self.cbytes,
            self.nchunks(),
            self.frame_len,
            self.metalayers.clone(),
            self.vlmetalayers.clone(),
        )
    }

    /// Read the frame again keeping the lock state.
    fn reload(&mut self) -> Result<()> {
        let lock = self.lock.take();
        let seen = self.seen_generation;
        let depth = self.soft_depth;
        let r = self.reload_storage();
        self.lock = lock;
        self.seen_generation = seen;
        self.soft_depth = depth;
        r
    }

    /// Read the frame again from its storage (after another process changed it), under a
    /// shared lock when locking is on. A no-op for in-memory frames.
    ///
    /// # Examples
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    ///
    /// let loc = Location::File { path: path.clone(), offset: 0 };
    /// let mut a = Frame::create(loc.clone(), &FrameParams::default(), Arc::new(StdIo)).unwrap();
    /// let mut b = Frame::open(loc, Arc::new(StdIo)).unwrap();
    /// b.add_metalayer("m", b"v").unwrap();
    /// assert!(a.metalayers().is_empty());
    /// a.refresh().unwrap();
    /// assert_eq!(a.metalayers()[0].name, "m");
    /// drop((a, b));
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn refresh(&mut self) -> Result<()> {
        if self.lock.is_some() {
            self.lock(LockMode::Shared)?;
            let r = self.reload();
            self.unlock()?;
            return r;
        }
        self.reload()
    }

    fn reload_storage(&mut self) -> Result<()> {
        let storage = match &self.storage {
            Storage::Memory(_) => return Ok(()),
            Storage::File { path, offset, io } => Storage::File {
                path: path.clone(),
                offset: *offset,
                io: io.clone(),
            },
            Storage::Dir { path, io } => Storage::Dir {
                path: path.clone(),
                io: io.clone(),
            },
        };
        *self = cframe::load(storage)?;
        Ok(())
    }

    /// Where the frame lives.
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
    /// assert_eq!(frame.location(), Location::Memory);
    /// ```
    pub fn location(&self) -> Location {
        match &self.storage {
            Storage::Memory(_) => Location::Memory,
            Storage::File { path, offset, .. } => Location::File {
                path: path.clone(),
                offset: *offset,
            },
            Storage::Dir { path, .. } => Location::Dir(path.clone()),
        }
    }

    /// The I/O back-end of a File/Dir frame.
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
    /// use b2rs::frame::io::Io;
    ///
    /// assert!(frame.io().is_none()); // in memory
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
    /// let f = frame.copy_to(Location::File { path: path.clone(), offset: 0 }, Arc::new(StdIo)).unwrap();
    /// assert_eq!(f.io().unwrap().id(), 0);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn io(&self) -> Option<&Arc<dyn Io>> {
        match &self.storage {
            Storage::Memory(_) => None,
            Storage::File { io, .. } | Storage::Dir { io, .. } => Some(io),
        }
    }

    /// Whether this is a sparse frame (directory).
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
    /// assert!(!frame.is_sparse());
    /// let dir = std::env::temp_dir().join(format!("b2rs-doc-{}.sparse", std::process::id()));
    /// assert!(frame.copy_to(Location::Dir(dir.clone()), Arc::new(StdIo)).unwrap().is_sparse());
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    pub fn is_sparse(&self) -> bool {
        matches!(self.storage, Storage::Dir { .. })
    }

    /// Length of the frame in bytes (of the index file for sparse frames).
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
    /// assert_eq!(frame.len() as usize, frame.to_bytes().unwrap().len());
    /// ```
    pub fn len(&self) -> i64 {
        self.frame_len as i64
    }

    /// Whether the frame holds no data (no chunks).
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
    /// assert!(!frame.is_empty());
    /// assert!(Frame::create(Location::Memory, &params, Arc::new(StdIo)).unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// Length of the header (metalayers included).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::frame::{header, io::StdIo, Frame, FrameParams, Location};
    ///
    /// let mut frame = Frame::create(Location::Memory, &FrameParams::default(), Arc::new(StdIo)).unwrap();
    /// assert_eq!(frame.header_len() as usize, header::HEADER_NOMETA_LEN);
    /// frame.add_metalayer("m", b"v").unwrap();
    /// assert!(frame.header_len() as usize > header::HEADER_NOMETA_LEN);
    /// ```
    pub fn header_len(&self) -> i64 {
        self.header_len as i64
    }

    /// The super-chunk parameters of the header.
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
    /// assert_eq!(frame.params().typesize, 1);
    /// ```
    pub fn params(&self) -> &FrameParams {
        &self.params
    }

    /// Replace the super-chunk parameters (rewrites the header).
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
    /// use b2rs::codecs;
    ///
    /// let p = FrameParams { compcode: codecs::ZSTD, ..frame.params().clone() };
    /// frame.set_params(&p).unwrap();
    /// let back = Frame::from_bytes(frame.to_bytes().unwrap()).unwrap();
    /// assert_eq!(back.params().compcode, codecs::ZSTD);
    /// ```
    pub fn set_params(&mut self, p: &FrameParams) -> Result<()> {
        check_params(p)?;
        let old = std::mem::replace(&mut self.params, p.clone());
        if let Err(e) = self.write_tail(OffsetsChunk::Keep) {
            self.params = old;
            return Err(e);
        }
        Ok(())
    }

    /// Number of chunks.
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
    /// assert_eq!(frame.nchunks(), 3);
    /// ```
    pub fn nchunks(&self) -> i64 {
        self.offsets.len() as i64
    }

    /// Total uncompressed size.
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
    /// assert_eq!(frame.nbytes(), 3000);
    /// ```
    pub fn nbytes(&self) -> i64 {
        self.nbytes
    }

    /// The header's `cbytes`: size of the stored chunks.
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
    /// let stored: usize = (0..3).map(|n| frame.get_chunk(n).unwrap().len()).sum();
    /// assert_eq!(frame.cbytes() as usize, stored);
    /// ```
    pub fn cbytes(&self) -> i64 {
        self.cbytes
    }

    /// Uncompressed size of every chunk but possibly the last: -1 none yet, 0 variable.
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
    /// assert_eq!(frame.chunksize(), 1000);
    /// ```
    pub fn chunksize(&self) -> i32 {
        self.chunksize
    }

    /// Preset the chunk size of a frame without chunks (as a super-chunk created with a known
    /// chunk size does): the first chunks are then checked against it instead of defining it.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// use b2rs::{chunk, CParams};
    ///
    /// let mut frame = Frame::create(Location::Memory, &FrameParams::default(), Arc::new(StdIo)).unwrap();
    /// frame.set_chunksize(800).unwrap();
    /// assert_eq!(frame.chunksize(), 800);
    /// let mut buf = [0u8; 900];
    /// let n = chunk::compress(&CParams::default(), &[1u8; 800], &mut buf).unwrap();
    /// frame.append_chunk(&buf[..n]).unwrap();
    /// // only before the first chunk
    /// assert!(frame.set_chunksize(400).is_err());
    /// ```
    pub fn set_chunksize(&mut self, chunksize: i32) -> Result<()> {
        if !self.offsets.is_empty() {
            crate::trace_error!("The chunk size can only be set before the first chunk");
            return Err(Error::InvalidParam);
        }
        if chunksize < -1 {
            return Err(Error::InvalidParam);
        }
        let old = std::mem::replace(&mut self.chunksize, chunksize);
        if let Err(e) = self.write_tail(OffsetsChunk::Keep) {
            self.chunksize = old;
            return Err(e);
        }
        Ok(())
    }

    /// Whether the frame holds VL-block chunks.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// use b2rs::{chunk, CParams};
    ///
    /// let mut frame = Frame::create(Location::Memory, &FrameParams::default(), Arc::new(StdIo)).unwrap();
    /// assert!(!frame.vl_blocks());
    /// let mut buf = [0u8; 256];
    /// let n = chunk::vlcompress(&CParams { typesize: 1, ..CParams::default() }, &[b"a", b"bc"], &mut buf).unwrap();
    /// frame.append_chunk(&buf[..n]).unwrap();
    /// assert!(frame.vl_blocks());
    /// ```
    pub fn vl_blocks(&self) -> bool {
        self.vl_blocks
    }

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

    fn check_index(&self, n: i64, err: Error) -> Result<usize> {
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
    fn special_nbytes(&self, n: usize) -> Result<i64> {
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
    fn special_chunk(&self, n: usize) -> Result<Vec<u8>> {
        let off = self.offsets.get(n)?;
        let special = index::special_of_offset(off).ok_or_else(|| {
            crate::trace_error!("Special value not recognized: {:#x}", off);
            Error::Data
        })?;
        let nbytes = self.special_nbytes(n)?;
        let params = CParams {
            typesize: self.params.typesize,
            blocksize: self.params.blocksize,
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
                let mut h = io.open(path, OpenMode::Read)?;
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
    fn stored_span(
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

    fn fixed_header(&self, frame_len: u64) -> FixedHeader {
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

fn check_params(p: &FrameParams) -> Result<()> {
    if p.typesize <= 0 {
        crate::trace_error!("`typesize` must be positive");
        return Err(Error::InvalidParam);
    }
    if p.clevel > 9 {
        crate::trace_error!("`clevel` must be between 0 and 9");
        return Err(Error::InvalidParam);
    }
    if p.blocksize < 0 {
        crate::trace_error!("`blocksize` cannot be negative");
        return Err(Error::InvalidParam);
    }
    Ok(())
}
