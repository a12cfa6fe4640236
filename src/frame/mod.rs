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
mod coff;
mod lazy;
mod metalayers;
mod offsets;
mod open;
mod params;
mod read;
mod serial;
mod sframe;
mod sync;

pub use io::{Io, IoHandle, LockingStdIo, OpenMode, StdIo};
pub use lock::{FrameLock, LockMode};
pub use mmap::{MmapIo, MmapMode};
pub use params::{FrameParams, Location, Metalayer};
pub use sframe::INDEX_NAME;

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
    /// The version of the stored object the state was read from (a remote object's ETag;
    /// `None` for files, or once this handle wrote the frame): every later read of a
    /// contiguous frame's bytes checks it ([`io::open_version`]).
    version: Option<String>,
    /// The smallest number a new chunk file may take (a sparse frame on an object store: see
    /// [`Io::deferred_removal`]); 0 otherwise.
    next_file: i64,
    /// A new sparse frame on an object store not stored yet: [`Frame::create`] leaves the
    /// older frame there readable until the first change or flush.
    hold_flush: bool,
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

    /// Set the chunk size the next chunks are checked against (as a super-chunk created with a
    /// known chunk size does: the first chunks are then checked against it instead of defining
    /// it). Written in the header at the frame's next change (or [`Frame::write_header`]), as
    /// C-Blosc2 writes `schunk->chunksize`.
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
    /// assert_eq!(Frame::from_bytes(frame.to_bytes().unwrap()).unwrap().chunksize(), 800);
    /// assert!(frame.set_chunksize(-2).is_err());
    /// ```
    pub fn set_chunksize(&mut self, chunksize: i32) -> Result<()> {
        if chunksize < -1 {
            return Err(Error::InvalidParam);
        }
        self.chunksize = chunksize;
        Ok(())
    }

    /// Write the header now, with the chunk size and parameters set since the last change.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    ///
    /// let mut frame = Frame::create(Location::Memory, &FrameParams::default(), Arc::new(StdIo)).unwrap();
    /// frame.set_chunksize(800).unwrap();
    /// frame.write_header().unwrap();
    /// assert_eq!(Frame::from_bytes(frame.to_bytes().unwrap()).unwrap().chunksize(), 800);
    /// ```
    pub fn write_header(&mut self) -> Result<()> {
        self.write_tail(OffsetsChunk::Keep)
    }

    /// Set the parameters the header records at the frame's next change (C-Blosc2 writes the
    /// header from the super-chunk's fields at every change, not when they change).
    /// Parameters that would not make a valid header are not taken.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// use b2rs::{chunk, codecs, CParams};
    ///
    /// let mut frame = Frame::create(Location::Memory, &FrameParams::default(), Arc::new(StdIo)).unwrap();
    /// frame.stage_params(FrameParams { compcode: codecs::ZSTD, ..frame.params().clone() });
    /// let mut buf = [0u8; 900];
    /// let n = chunk::compress(&CParams::default(), &[1u8; 800], &mut buf).unwrap();
    /// frame.append_chunk(&buf[..n]).unwrap();
    /// let back = Frame::from_bytes(frame.to_bytes().unwrap()).unwrap();
    /// assert_eq!(back.params().compcode, codecs::ZSTD);
    /// ```
    pub fn stage_params(&mut self, p: FrameParams) {
        if check_params(&p).is_ok() {
            self.params = p;
        }
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
