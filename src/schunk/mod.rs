//! The super-chunk: an ordered sequence of Blosc chunks sharing compression parameters, with
//! fixed-size metalayers and variable-length metalayers (FRAME.md §7).
//!
//! A [`Schunk`] keeps the user-facing state (parameters, counters, `chunksize`, metalayers) and
//! stores its chunks in a `Store`: an in-memory list of chunks (a "sparse" in-memory
//! super-chunk, C-Blosc2's `schunk->frame == NULL`), or a [`Frame`] (contiguous frame in memory
//! or in a file, possibly at an offset, or a sparse frame directory). Frame-backed super-chunks
//! forward every chunk and metalayer change to the frame, which keeps its storage a valid frame
//! after every call; the counters are then the frame's.
//!
//! Chunk-size rules (as C-Blosc2 3.3): the first chunk sets `chunksize`; a chunk larger than
//! `chunksize`, or any chunk placed after a smaller one, switches the super-chunk to variable
//! chunk sizes (`chunksize == 0`, for good); a smaller chunk may only be the last one. VL-block
//! chunks and regular chunks cannot be mixed.

mod meta;
mod runs;
mod share;
mod slice;

pub(crate) use meta::to_frame_metalayers;
pub use meta::{Metalayer, MAX_METALAYERS, MAX_VLMETALAYERS, METALAYER_NAME_MAXLEN};

use crate::chunk::header::{Header, Special, EXTENDED_HEADER_LENGTH, MAX_BUFFERSIZE, MAX_OVERHEAD};
use crate::chunk::{self, special};
use crate::error::{Error, Result};
use crate::frame::LockMode;
use crate::frame::{Frame, FrameParams};
use crate::params::{CParams, DParams};
use std::borrow::Cow;
use std::sync::Arc;

/// Makes one chunk out of the data of chunk number `nchunk` (the C layer compresses through
/// the super-chunk's compression context, as C-Blosc2 does).
pub type Compressor<'a> = dyn FnMut(i64, &[u8]) -> Result<Vec<u8>> + 'a;

/// A compressor kept by a super-chunk for the chunks written by the layers above it (B2ND
/// arrays), called with the super-chunk's parameters in place of compressing with them: the C
/// layer sets one that goes through the super-chunk's compression context when that context
/// has a tuner.
///
/// # Examples
///
/// ```
/// use b2rs::schunk::{Schunk, SharedCompressor};
/// use b2rs::{CParams, DParams};
/// use std::sync::Arc;
///
/// let mut sc = Schunk::new(CParams { typesize: 1, ..CParams::default() }, DParams::default());
/// // compress at clevel 1 whatever the super-chunk's clevel
/// let c: SharedCompressor = Arc::new(|p: &CParams, _n: i64, data: &[u8]| {
///     let fast = CParams { clevel: 1, ..p.clone() };
///     let mut out = vec![0u8; data.len() + 32];
///     let k = b2rs::chunk::compress(&fast, data, &mut out)?;
///     out.truncate(k);
///     Ok(out)
/// });
/// sc.set_compressor(Some(c));
/// let chunk = sc.compress_data(0, &[7u8; 1000]).unwrap();
/// assert!(chunk.len() < 100);
/// ```
pub type SharedCompressor = Arc<dyn Fn(&CParams, i64, &[u8]) -> Result<Vec<u8>> + Send + Sync>;

/// The bytes of one stored chunk. Implemented for `Vec<u8>`, `Box<[u8]>` and `Arc<[u8]>`; the
/// C layer implements it for buffers taken over from C callers, so that they are released with
/// the allocator they came from. Only the first `cbytes` bytes (from the chunk header) are used.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use b2rs::schunk::ChunkBytes;
///
/// let v: Vec<u8> = vec![1, 2, 3];
/// let a: Arc<[u8]> = Arc::from(&[4u8, 5][..]);
/// let stored: Vec<Box<dyn ChunkBytes>> = vec![Box::new(v), Box::new(a)];
/// assert_eq!(stored[0].bytes(), [1, 2, 3]);
/// assert_eq!(stored[1].bytes(), [4, 5]);
/// ```
pub trait ChunkBytes: Send + Sync {
    /// The buffer holding the chunk (at least `cbytes` long).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::ChunkBytes;
    ///
    /// let b: Box<[u8]> = vec![7u8; 4].into_boxed_slice();
    /// assert_eq!(ChunkBytes::bytes(&b), [7, 7, 7, 7]);
    /// ```
    fn bytes(&self) -> &[u8];

    /// This storage as a shared buffer when it is one already (a chunk stored by
    /// [`Schunk::chunk_to_share`]), so that sharing it again does not wrap it once more.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::ChunkBytes;
    /// use std::sync::Arc;
    ///
    /// let v: Vec<u8> = vec![1, 2, 3];
    /// assert!(v.shared().is_none());
    /// let a: Arc<dyn ChunkBytes> = Arc::new(v);
    /// assert_eq!(a.shared().unwrap().bytes(), [1, 2, 3]);
    /// ```
    fn shared(&self) -> Option<Arc<dyn ChunkBytes>> {
        None
    }
}

impl ChunkBytes for Arc<dyn ChunkBytes> {
    fn bytes(&self) -> &[u8] {
        (**self).bytes()
    }
    fn shared(&self) -> Option<Arc<dyn ChunkBytes>> {
        Some(self.clone())
    }
}

impl IntoChunk for Arc<dyn ChunkBytes> {
    fn bytes(&self) -> &[u8] {
        (**self).bytes()
    }
    fn into_stored(self) -> Box<dyn ChunkBytes> {
        Box::new(self)
    }
}

impl ChunkBytes for Vec<u8> {
    fn bytes(&self) -> &[u8] {
        self
    }
}

impl ChunkBytes for Box<[u8]> {
    fn bytes(&self) -> &[u8] {
        self
    }
}

impl ChunkBytes for Arc<[u8]> {
    fn bytes(&self) -> &[u8] {
        self
    }
}

/// A chunk handed to a super-chunk. Its bytes are validated first, and only when the chunk is
/// accepted is its storage taken over with [`IntoChunk::into_stored`], so that a rejected chunk
/// stays with the caller.
///
/// # Examples
///
/// ```
/// use b2rs::schunk::{IntoChunk, Schunk};
/// use b2rs::{chunk, CParams, DParams};
///
/// let cparams = CParams { typesize: 1, ..CParams::default() };
/// let mut buf = vec![0u8; 1000 + chunk::header::MAX_OVERHEAD];
/// let n = chunk::compress(&cparams, &[5u8; 1000], &mut buf).unwrap();
/// let mut sc = Schunk::new(cparams, DParams::default());
/// // a borrowed slice is copied when stored, a Vec is taken over
/// sc.append_chunk(&buf[..n]).unwrap();
/// buf.truncate(n);
/// sc.append_chunk(buf).unwrap();
/// assert_eq!(sc.nbytes(), 2000);
/// ```
pub trait IntoChunk {
    /// The chunk bytes (at least the `cbytes` of its header).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::IntoChunk;
    ///
    /// let chunk: &[u8] = &[1, 2, 3];
    /// assert_eq!(IntoChunk::bytes(&chunk), [1, 2, 3]);
    /// ```
    fn bytes(&self) -> &[u8];
    /// Take the storage over (the super-chunk keeps it, or drops it once copied elsewhere).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::IntoChunk;
    ///
    /// let stored = vec![9u8, 8, 7].into_stored();
    /// assert_eq!(stored.bytes(), [9, 8, 7]);
    /// ```
    fn into_stored(self) -> Box<dyn ChunkBytes>;
}

impl IntoChunk for Vec<u8> {
    fn bytes(&self) -> &[u8] {
        self
    }
    fn into_stored(self) -> Box<dyn ChunkBytes> {
        Box::new(self)
    }
}

impl IntoChunk for &[u8] {
    fn bytes(&self) -> &[u8] {
        self
    }
    fn into_stored(self) -> Box<dyn ChunkBytes> {
        Box::new(self.to_vec())
    }
}

/// One chunk held in memory, with the sizes read from its header.
struct Stored {
    buf: Box<dyn ChunkBytes>,
    nbytes: i32,
    cbytes: i32,
    /// Where `buf`'s bytes start (read without a call through `buf`: the C layer mirrors the
    /// addresses of all chunks after each change).
    addr: usize,
}

impl Stored {
    fn new(buf: Box<dyn ChunkBytes>, nbytes: i32, cbytes: i32) -> Stored {
        let addr = buf.bytes().as_ptr() as usize;
        Stored {
            buf,
            nbytes,
            cbytes,
            addr,
        }
    }

    fn bytes(&self) -> &[u8] {
        &self.buf.bytes()[..self.cbytes as usize]
    }
}

/// Whether chunks compressed with `a` are what `b` would write, as C-Blosc2 decides it before
/// copying a super-chunk's chunks as they are: typesize, clevel, codec, dictionary use,
/// blocksize and filters agree.
pub(crate) fn same_coding(a: &CParams, b: &CParams) -> bool {
    a.typesize == b.typesize
        && a.clevel == b.clevel
        && a.compcode == b.compcode
        && a.use_dict == b.use_dict
        && a.blocksize == b.blocksize
        && a.filters == b.filters
        && a.filters_meta == b.filters_meta
}

/// Where the chunks of a super-chunk live.
///
/// For a frame every chunk operation forwards to the frame (`get_chunk` giving owned bytes for
/// read or synthesised special chunks), the counters come from the frame (`nbytes`, `cbytes`:
/// specials count 0), and metalayer changes are pushed to it (`add_metalayer` only before the
/// first chunk, `update_metalayer`, `set_vlmetalayer`, `delete_vlmetalayer`).
/// The chunks of an in-memory super-chunk, with a stamp that changes whenever they may have
/// changed: every mutable access takes a new value from a process-wide counter, so two equal
/// stamps mean the same chunks in the same buffers (a C mirror of the chunk pointers is then
/// up to date without a pass over them).
struct Chunks {
    v: Vec<Stored>,
    stamp: u64,
}

/// The source of [`Chunks`] stamps.
static CHUNK_STAMPS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

fn new_stamp() -> u64 {
    CHUNK_STAMPS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Chunks {
    fn new() -> Chunks {
        Chunks {
            v: Vec::new(),
            stamp: new_stamp(),
        }
    }
}

impl std::ops::Deref for Chunks {
    type Target = Vec<Stored>;
    fn deref(&self) -> &Vec<Stored> {
        &self.v
    }
}

impl std::ops::DerefMut for Chunks {
    fn deref_mut(&mut self) -> &mut Vec<Stored> {
        self.stamp = new_stamp();
        &mut self.v
    }
}

enum Store {
    /// Chunks held in memory one by one (C-Blosc2: `frame == NULL`).
    Memory(Chunks),
    /// A frame (in memory, in a file or a sparse directory).
    Frame(Box<Frame>),
}

/// The operation a chunk is admitted for (the rules differ slightly).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Append,
    Insert(usize),
    Update(usize),
}

impl Op {
    fn error(self) -> Error {
        match self {
            Op::Append => Error::ChunkAppend,
            Op::Insert(_) => Error::ChunkInsert,
            Op::Update(_) => Error::ChunkUpdate,
        }
    }
}

/// A super-chunk: a sequence of chunks compressed with the same parameters, with metalayers
/// (fixed-size, set before the first chunk) and variable-length metalayers. In memory, or backed
/// by a [`Frame`] (contiguous or sparse, in memory or on disk).
///
/// ```
/// use b2rs::schunk::Schunk;
/// use b2rs::{codecs, CParams, DParams};
///
/// let cparams = CParams { compcode: codecs::ZSTD, typesize: 4, ..CParams::default() };
/// let mut sc = Schunk::new(cparams.clone(), DParams::default());
/// sc.meta_add("units", b"metres").unwrap();
/// for n in 0..3u32 {
///     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
///     assert_eq!(sc.append_buffer(&chunk).unwrap(), n as i64 + 1);
/// }
/// sc.vlmeta_add("note", b"any bytes", &cparams).unwrap();
/// assert_eq!((sc.nchunks(), sc.nbytes()), (3, 12_000));
///
/// let mut out = vec![0u8; 4000];
/// sc.decompress_chunk(2, &mut out).unwrap();
/// assert_eq!(&out[..4], &2000u32.to_le_bytes());
///
/// // serialised as a contiguous frame (what blosc2_schunk_to_buffer gives)
/// let cframe = sc.to_cframe().unwrap();
/// let mut back = Schunk::from_frame(b2rs::frame::Frame::from_bytes(cframe).unwrap(), DParams::default());
/// assert_eq!(back.nchunks(), 3);
/// assert_eq!(back.vlmeta_get("note").unwrap(), b"any bytes");
/// back.decompress_chunk(1, &mut out).unwrap();
/// assert_eq!(&out[..4], &1000u32.to_le_bytes());
/// ```
pub struct Schunk {
    cparams: CParams,
    dparams: DParams,
    store: Store,
    nbytes: i64,
    cbytes: i64,
    chunksize: i32,
    flags2: u8,
    current_nchunk: i64,
    metalayers: Vec<Metalayer>,
    vlmetalayers: Vec<Metalayer>,
    change_tick: i64,
    /// The shapes of the "b2nd" metalayer (decoded once, for the n-dimensional plugins).
    nd: Option<Arc<crate::b2nd::Meta>>,
    /// How many times the state was read again from the frame (changed by another handle).
    reloads: u64,
    /// Unique to this super-chunk in the process (see [`Schunk::meta_stamp`]).
    id: u64,
    /// How the chunks of the layers above are compressed (see [`SharedCompressor`]).
    compressor: Option<SharedCompressor>,
}

impl std::fmt::Debug for Schunk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Schunk")
            .field("cparams", &self.cparams)
            .field("nchunks", &self.nchunks())
            .field("nbytes", &self.nbytes)
            .field("cbytes", &self.cbytes)
            .field("chunksize", &self.chunksize)
            .field("metalayers", &self.metalayers.len())
            .field("vlmetalayers", &self.vlmetalayers.len())
            .finish()
    }
}

/// The `flags2` bit of VL-block chunks.
const VL_BLOCKS: u8 = 0x01;

/// Validate the chunk at the start of `bytes`; returns its header.
fn check_chunk(bytes: &[u8]) -> Result<Header> {
    let h = Header::parse(bytes)?;
    if h.cbytes as usize > bytes.len() {
        crate::trace_error!("The chunk is shorter than its header says");
        return Err(Error::ReadBuffer);
    }
    Ok(h)
}

impl Schunk {
    /// An empty in-memory super-chunk compressing with `cparams` and decompressing with
    /// `dparams`. The parameters are checked when used (as C-Blosc2 does).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let sc = Schunk::new(CParams { typesize: 2, ..CParams::default() }, DParams::default());
    /// assert_eq!((sc.nchunks(), sc.nbytes(), sc.typesize()), (0, 0, 2));
    /// assert!(sc.is_memory());
    /// ```
    pub fn new(cparams: CParams, dparams: DParams) -> Schunk {
        let mut s = Schunk {
            cparams,
            dparams,
            store: Store::Memory(Chunks::new()),
            nbytes: 0,
            cbytes: 0,
            chunksize: -1,
            flags2: 0,
            current_nchunk: 0,
            metalayers: Vec::new(),
            vlmetalayers: Vec::new(),
            change_tick: 0,
            id: new_stamp(),
            nd: None,
            reloads: 0,
            compressor: None,
        };
        s.sync_plugin_params();
        s
    }

    /// A super-chunk backed by `frame` (new or opened), compressing with `cparams` and
    /// decompressing with `dparams`. Counters, chunk size and metalayers are read from the frame.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
    /// let cparams = CParams { typesize: 4, ..CParams::default() };
    /// let loc = Location::File { path: path.clone(), offset: 0 };
    /// let frame = Frame::create(loc, &FrameParams::from_cparams(&cparams, 1), Arc::new(StdIo)).unwrap();
    /// let mut sc = Schunk::with_frame(cparams, DParams::default(), frame);
    /// sc.append_buffer(&[0u8; 4000]).unwrap();
    /// drop(sc);
    /// // the chunks are in the file
    /// let frame = Frame::open(Location::File { path: path.clone(), offset: 0 }, Arc::new(StdIo)).unwrap();
    /// assert_eq!(frame.nchunks(), 1);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn with_frame(cparams: CParams, dparams: DParams, frame: Frame) -> Schunk {
        let mut s = Schunk::new(cparams, dparams);
        s.store = Store::Frame(Box::new(frame));
        s.load_from_frame();
        s
    }

    /// A super-chunk for an existing frame, with the compression parameters recorded in it.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// use b2rs::frame::Frame;
    ///
    /// let frame = Frame::from_bytes(sc.to_cframe().unwrap()).unwrap();
    /// let mut back = Schunk::from_frame(frame, DParams::default());
    /// // the compression parameters come from the frame
    /// assert_eq!((back.nchunks(), back.typesize()), (3, 4));
    /// let mut out = vec![0u8; 4000];
    /// back.decompress_chunk(1, &mut out).unwrap();
    /// assert_eq!(out[..4], 1000u32.to_le_bytes());
    /// ```
    pub fn from_frame(frame: Frame, dparams: DParams) -> Schunk {
        let cparams = frame.params().to_cparams();
        Schunk::with_frame(cparams, dparams, frame)
    }

    /// The frame parameters describing this super-chunk's compression parameters.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{codecs, CParams, DParams};
    ///
    /// let cparams = CParams { compcode: codecs::LZ4, clevel: 3, typesize: 8, ..CParams::default() };
    /// let sc = Schunk::new(cparams, DParams::default());
    /// let fp = sc.frame_params();
    /// assert_eq!((fp.compcode, fp.clevel, fp.typesize), (codecs::LZ4, 3, 8));
    /// ```
    pub fn frame_params(&self) -> FrameParams {
        FrameParams::from_cparams(&self.cparams, self.dparams.nthreads)
    }

    /// Copy counters, chunk size, flags and metalayers from the frame (frame-backed only).
    fn load_from_frame(&mut self) {
        let Store::Frame(f) = &self.store else {
            return;
        };
        let conv = |v: &[crate::frame::Metalayer]| {
            v.iter()
                .map(|m| Metalayer {
                    name: m.name.clone(),
                    content: m.content.clone(),
                })
                .collect::<Vec<_>>()
        };
        self.metalayers = conv(f.metalayers());
        self.vlmetalayers = conv(f.vlmetalayers());
        self.sync_counters();
        self.refresh_nd();
    }

    /// Decode the "b2nd" metalayer again (after a metalayer changed) and hand it to the
    /// parameters.
    pub(crate) fn refresh_nd(&mut self) {
        self.nd = self
            .metalayers
            .iter()
            .find(|m| m.name == crate::b2nd::METALAYER_NAME)
            .and_then(|m| crate::b2nd::Meta::deserialize_dims(&m.content).ok())
            .map(|(m, _)| Arc::new(m));
        self.sync_plugin_params();
    }

    /// Give the super-chunk's own parameters what the plugins read from their super-chunk.
    fn sync_plugin_params(&mut self) {
        self.cparams.b2nd = self.nd.clone();
        self.cparams.schunk_typesize = Some(self.cparams.typesize);
        self.dparams.b2nd = self.nd.clone();
        self.dparams.schunk_typesize = Some(self.cparams.typesize);
    }

    /// The shapes of the b2nd array this super-chunk holds (its "b2nd" metalayer), if any: what
    /// the n-dimensional plugins (NDLZ, NDCELL, NDMEAN, ZFP) read from their super-chunk.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::b2nd::{Array, Fill, Meta};
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// assert!(Schunk::new(CParams::default(), DParams::default()).nd_meta().is_none());
    /// let meta = Meta::new(&[10, 10], &[5, 5], &[5, 5]);
    /// let arr = Array::new(CParams::default(), DParams::default(), &meta, Fill::Zero).unwrap();
    /// assert_eq!(arr.schunk().nd_meta().unwrap().shape, [10, 10]);
    /// ```
    pub fn nd_meta(&self) -> Option<&Arc<crate::b2nd::Meta>> {
        self.nd.as_ref()
    }

    /// `p` completed with what plugins read from the super-chunk (shapes and typesize), for
    /// compressing a chunk of it.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// let p = sc.plugin_cparams(&CParams::default());
    /// assert_eq!(p.schunk_typesize, Some(4));
    /// assert!(p.b2nd.is_none()); // not a b2nd array
    /// ```
    pub fn plugin_cparams(&self, p: &CParams) -> CParams {
        let mut p = p.clone();
        p.b2nd = self.nd.clone();
        p.schunk_typesize = Some(self.typesize());
        p
    }

    /// Complete decompression parameters with what plugins read from the super-chunk.
    pub(crate) fn attach_plugin_dparams(&self, dp: &mut DParams) {
        if dp.b2nd.is_none() {
            dp.b2nd = self.nd.clone();
        }
        dp.schunk_typesize = Some(self.typesize());
    }

    /// Copy counters and chunk size from the frame (frame-backed only).
    fn sync_counters(&mut self) {
        if let Store::Frame(f) = &self.store {
            self.nbytes = f.nbytes();
            self.cbytes = f.cbytes();
            self.chunksize = f.chunksize();
            self.flags2 = if f.nchunks() > 0 && f.vl_blocks() {
                VL_BLOCKS
            } else {
                0
            };
        }
    }

    /// The frame behind a frame-backed super-chunk.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// assert!(Schunk::new(CParams::default(), DParams::default()).frame().is_none());
    /// let frame = Frame::create(Location::Memory, &FrameParams::from_cparams(&CParams::default(), 1), Arc::new(StdIo))
    ///     .unwrap();
    /// let mut sc = Schunk::with_frame(CParams::default(), DParams::default(), frame);
    /// sc.append_buffer(&[1u8; 800]).unwrap();
    /// assert_eq!(sc.frame().unwrap().nchunks(), 1);
    /// ```
    pub fn frame(&self) -> Option<&Frame> {
        match &self.store {
            Store::Frame(f) => Some(f),
            Store::Memory(_) => None,
        }
    }

    /// The frame behind a frame-backed super-chunk, mutably (counters are re-read by
    /// [`Schunk::refresh`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let frame = Frame::create(Location::Memory, &FrameParams::from_cparams(&CParams::default(), 1), Arc::new(StdIo))
    ///     .unwrap();
    /// let mut sc = Schunk::with_frame(CParams::default(), DParams::default(), frame);
    /// sc.frame_mut().unwrap().add_metalayer("m", b"v").unwrap();
    /// assert_eq!(sc.frame().unwrap().metalayers()[0].name, "m");
    /// ```
    pub fn frame_mut(&mut self) -> Option<&mut Frame> {
        match &mut self.store {
            Store::Frame(f) => Some(f),
            Store::Memory(_) => None,
        }
    }

    /// Take the frame out of a frame-backed super-chunk.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    ///
    /// assert!(sc.into_frame().is_none()); // in memory, no frame
    /// let params = FrameParams::from_cparams(&CParams::default(), 1);
    /// let frame = Frame::create(Location::Memory, &params, Arc::new(StdIo)).unwrap();
    /// let mut sc = Schunk::with_frame(CParams::default(), DParams::default(), frame);
    /// sc.append_buffer(&[1u8; 800]).unwrap();
    /// let bytes = sc.into_frame().unwrap().into_bytes().unwrap();
    /// assert_eq!(Frame::from_bytes(bytes).unwrap().nbytes(), 800);
    /// ```
    pub fn into_frame(self) -> Option<Frame> {
        match self.store {
            Store::Frame(f) => Some(*f),
            Store::Memory(_) => None,
        }
    }

    /// Take the frame lock in `mode` (re-entrant; a no-op in memory or without locking),
    /// re-reading counters and metalayers when another handle changed the frame. Returns
    /// whether that happened.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::LockingStdIo, Frame, FrameParams, LockMode, Location};
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
    /// let loc = Location::File { path: path.clone(), offset: 0 };
    /// let params = FrameParams::from_cparams(&CParams::default(), 1);
    /// let frame = Frame::create(loc.clone(), &params, Arc::new(LockingStdIo)).unwrap();
    /// let mut a = Schunk::with_frame(CParams::default(), DParams::default(), frame);
    /// let mut b = Schunk::from_frame(Frame::open(loc, Arc::new(LockingStdIo)).unwrap(), DParams::default());
    /// b.append_buffer(&[1u8; 800]).unwrap();
    /// // `a` sees that `b` changed the frame and re-reads its counters
    /// assert!(a.lock(LockMode::Shared).unwrap());
    /// assert_eq!(a.nchunks(), 1);
    /// a.unlock().unwrap();
    /// # drop((a, b));
    /// # let _ = std::fs::remove_file(b2rs::frame::lock::sidecar_path(&path, false));
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn lock(&mut self, mode: LockMode) -> Result<bool> {
        let Store::Frame(f) = &mut self.store else {
            return Ok(false);
        };
        let changed = f.lock(mode)?;
        if changed {
            self.reloaded();
        }
        Ok(changed)
    }

    /// Release one level of the frame lock taken with [`Schunk::lock`].
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::LockingStdIo, Frame, FrameParams, LockMode, Location};
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
    /// let loc = Location::File { path: path.clone(), offset: 0 };
    /// let params = FrameParams::from_cparams(&CParams::default(), 1);
    /// let mut sc = Schunk::with_frame(CParams::default(), DParams::default(), Frame::create(loc, &params, Arc::new(LockingStdIo)).unwrap());
    /// sc.lock(LockMode::Exclusive).unwrap();
    /// sc.lock(LockMode::Exclusive).unwrap(); // re-entrant
    /// sc.unlock().unwrap();
    /// assert_eq!(sc.frame().unwrap().lock_mode(), Some(LockMode::Exclusive));
    /// sc.unlock().unwrap();
    /// assert_eq!(sc.frame().unwrap().lock_mode(), None);
    /// # drop(sc);
    /// # let _ = std::fs::remove_file(b2rs::frame::lock::sidecar_path(&path, false));
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn unlock(&mut self) -> Result<()> {
        match &mut self.store {
            Store::Frame(f) => f.unlock(),
            Store::Memory(_) => Ok(()),
        }
    }

    /// Run `op` holding the frame lock in `mode`.
    fn locked<T>(
        &mut self,
        mode: LockMode,
        op: impl FnOnce(&mut Schunk) -> Result<T>,
    ) -> Result<T> {
        self.lock(mode)?;
        let r = op(self);
        let u = self.unlock();
        let v = r?;
        u?;
        Ok(v)
    }

    /// Re-sync counters and metalayers with the frame on disk when another handle changed it
    /// (C-Blosc2's `blosc2_schunk_refresh`); returns whether they changed. A no-op returning
    /// `false` in memory.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::LockingStdIo, Frame, FrameParams, Location};
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
    /// let loc = Location::File { path: path.clone(), offset: 0 };
    /// let params = FrameParams::from_cparams(&CParams::default(), 1);
    /// let frame = Frame::create(loc.clone(), &params, Arc::new(LockingStdIo)).unwrap();
    /// let mut a = Schunk::with_frame(CParams::default(), DParams::default(), frame);
    /// assert!(!a.sync().unwrap()); // nothing changed
    /// let mut b = Schunk::from_frame(Frame::open(loc, Arc::new(LockingStdIo)).unwrap(), DParams::default());
    /// b.append_buffer(&[1u8; 800]).unwrap();
    /// assert!(a.sync().unwrap());
    /// assert_eq!(a.nchunks(), 1);
    /// # drop((a, b));
    /// # let _ = std::fs::remove_file(b2rs::frame::lock::sidecar_path(&path, false));
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn sync(&mut self) -> Result<bool> {
        let Store::Frame(f) = &mut self.store else {
            return Ok(false);
        };
        let changed = f.sync()?;
        if changed {
            self.reloaded();
        }
        Ok(changed)
    }

    /// Read the frame again from its storage (after another process changed it) and re-read
    /// counters and metalayers. A no-op for in-memory super-chunks.
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
    /// # let cparams = CParams { typesize: 4, ..CParams::default() };
    /// # let loc = Location::File { path: path.clone(), offset: 0 };
    /// # let frame = Frame::create(loc, &FrameParams::from_cparams(&cparams, 1), Arc::new(StdIo)).unwrap();
    /// # let mut sc = Schunk::with_frame(cparams, DParams::default(), frame);
    /// let mut other = Schunk::from_frame(
    ///     Frame::open(Location::File { path: path.clone(), offset: 0 }, Arc::new(StdIo)).unwrap(),
    ///     DParams::default(),
    /// );
    /// other.append_buffer(&[0u8; 400]).unwrap();
    /// assert_eq!(sc.nchunks(), 0);
    /// sc.refresh().unwrap();
    /// assert_eq!(sc.nchunks(), 1);
    /// # drop((sc, other));
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn refresh(&mut self) -> Result<()> {
        if let Store::Frame(f) = &mut self.store {
            f.refresh()?;
            self.reloaded();
        }
        Ok(())
    }

    /// Re-read counters and metalayers after the frame was read again from its storage.
    fn reloaded(&mut self) {
        self.load_from_frame();
        self.change_tick += 1;
        self.reloads += 1;
    }

    /// How many times counters and metalayers were read again from the frame because another
    /// handle changed it (by [`Schunk::lock`], [`Schunk::sync`], [`Schunk::refresh`] or any
    /// operation taking the frame lock): a caller mirroring them elsewhere compares it with
    /// the value it saw last.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::LockingStdIo, Frame, FrameParams, Location};
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
    /// let loc = Location::File { path: path.clone(), offset: 0 };
    /// let params = FrameParams::from_cparams(&CParams::default(), 1);
    /// let frame = Frame::create(loc.clone(), &params, Arc::new(LockingStdIo)).unwrap();
    /// let mut a = Schunk::with_frame(CParams::default(), DParams::default(), frame);
    /// let mut b = Schunk::from_frame(Frame::open(loc, Arc::new(LockingStdIo)).unwrap(), DParams::default());
    /// let seen = a.reloads();
    /// b.append_buffer(&[1u8; 800]).unwrap();
    /// a.sync().unwrap();
    /// assert_eq!(a.reloads(), seen + 1);
    /// # drop((a, b));
    /// # let _ = std::fs::remove_file(b2rs::frame::lock::sidecar_path(&path, false));
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn reloads(&self) -> u64 {
        self.reloads
    }

    /// The super-chunk serialised as a contiguous frame (cframe).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// use b2rs::frame::Frame;
    ///
    /// let cframe = sc.to_cframe().unwrap();
    /// // a contiguous frame starts with a msgpack fixarray of 14 entries and the magic "b2frame"
    /// assert_eq!(&cframe[..1], [0x90 + 14]);
    /// assert_eq!(&cframe[2..9], b"b2frame");
    /// assert_eq!(Frame::from_bytes(cframe).unwrap().nchunks(), 3);
    /// ```
    pub fn to_cframe(&self) -> Result<Vec<u8>> {
        match &self.store {
            Store::Frame(f) => f.to_bytes(),
            Store::Memory(v) => {
                let conv = to_frame_metalayers;
                let chunks: Vec<&[u8]> = v.iter().map(Stored::bytes).collect();
                if self.chunksize > 0 {
                    // Keep the common chunk size in the header (a smaller last chunk does not
                    // make it variable), as C-Blosc2 does: the frame that appending the chunks
                    // one by one makes, built at once.
                    let f = Frame::from_fixed_chunks(
                        &self.frame_params(),
                        self.chunksize,
                        &chunks,
                        &conv(&self.metalayers),
                        &conv(&self.vlmetalayers),
                    )?;
                    return f.into_bytes();
                }
                let f = Frame::from_chunks(
                    &self.frame_params(),
                    &chunks,
                    &conv(&self.metalayers),
                    &conv(&self.vlmetalayers),
                )?;
                f.into_bytes()
            }
        }
    }

    /// Compress the layers above with `c` instead of this super-chunk's parameters (`None`:
    /// with the parameters again).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let mut sc = Schunk::new(CParams::default(), DParams::default());
    /// sc.set_compressor(None);
    /// assert!(sc.compress_data(0, &[1u8; 64]).is_ok());
    /// ```
    pub fn set_compressor(&mut self, c: Option<SharedCompressor>) {
        self.compressor = c;
    }

    /// Compress `src` as chunk number `nchunk` the way this super-chunk compresses its chunks
    /// (its [`SharedCompressor`], else its parameters).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// let data: Vec<u8> = (0..1000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// let chunk = sc.compress_data(0, &data).unwrap();
    /// assert!(chunk.len() < data.len());
    /// ```
    pub fn compress_data(&self, nchunk: i64, src: &[u8]) -> Result<Vec<u8>> {
        match &self.compressor {
            Some(c) => c(&self.cparams, nchunk, src),
            None => compress_chunk(&self.cparams, nchunk, src),
        }
    }

    /// The compression parameters.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{codecs, CParams, DParams};
    ///
    /// let sc = Schunk::new(CParams { compcode: codecs::ZLIB, ..CParams::default() }, DParams::default());
    /// assert_eq!(sc.cparams().compcode, codecs::ZLIB);
    /// ```
    pub fn cparams(&self) -> &CParams {
        &self.cparams
    }

    /// The decompression parameters.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let sc = Schunk::new(CParams::default(), DParams { nthreads: 3, ..DParams::default() });
    /// assert_eq!(sc.dparams().nthreads, 3);
    /// ```
    pub fn dparams(&self) -> &DParams {
        &self.dparams
    }

    /// Replace the compression parameters (used for the chunks compressed from now on).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// use b2rs::codecs;
    ///
    /// sc.set_cparams(CParams { compcode: codecs::ZSTD, typesize: 4, ..CParams::default() });
    /// sc.append_buffer(&[0u8; 4000]).unwrap();
    /// // only the new chunk uses Zstd
    /// let header = b2rs::chunk::Header::parse(&sc.get_chunk(3).unwrap()).unwrap();
    /// assert_eq!(header.codec_id(), Ok(codecs::ZSTD));
    /// ```
    pub fn set_cparams(&mut self, p: CParams) {
        self.cparams = p;
        self.sync_plugin_params();
    }

    /// Replace the decompression parameters.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// sc.set_dparams(DParams { nthreads: 2, ..DParams::default() });
    /// assert_eq!(sc.dparams().nthreads, 2);
    /// let mut out = vec![0u8; 4000];
    /// assert_eq!(sc.decompress_chunk(2, &mut out).unwrap(), 4000);
    /// ```
    pub fn set_dparams(&mut self, p: DParams) {
        self.dparams = p;
        self.sync_plugin_params();
    }

    /// The element size of the super-chunk (may exceed 255).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// assert_eq!(sc.typesize(), 4);
    /// ```
    pub fn typesize(&self) -> i32 {
        self.cparams.typesize
    }

    /// Number of chunks.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// assert_eq!(sc.nchunks(), 3);
    /// sc.delete_chunk(0).unwrap();
    /// assert_eq!(sc.nchunks(), 2);
    /// ```
    pub fn nchunks(&self) -> i64 {
        match &self.store {
            Store::Memory(v) => v.len() as i64,
            Store::Frame(f) => f.nchunks(),
        }
    }

    /// Uncompressed size of all chunks.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// assert_eq!(sc.nbytes(), 12_000);
    /// ```
    pub fn nbytes(&self) -> i64 {
        self.nbytes
    }

    /// Stored size of all chunks (headers included).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// // counting values compress well
    /// assert!(sc.cbytes() > 0 && sc.cbytes() < sc.nbytes());
    /// ```
    pub fn cbytes(&self) -> i64 {
        self.cbytes
    }

    /// The common uncompressed chunk size: -1 before the first chunk, 0 when sizes vary.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// assert_eq!(sc.chunksize(), 4000);
    /// // a smaller last chunk keeps the chunk size...
    /// sc.append_buffer(&[0u8; 40]).unwrap();
    /// assert_eq!(sc.chunksize(), 4000);
    /// // ... but a chunk after it makes the sizes vary
    /// sc.append_buffer(&[0u8; 4000]).unwrap();
    /// assert_eq!(sc.chunksize(), 0);
    /// assert_eq!(Schunk::new(CParams::default(), DParams::default()).chunksize(), -1);
    /// ```
    pub fn chunksize(&self) -> i32 {
        self.chunksize
    }

    /// Preset the chunk size of a super-chunk without chunks (recorded in its frame, if any),
    /// as C-Blosc2's B2ND arrays do for arrays that hold no chunk yet (a zero-length
    /// dimension). [`Error::InvalidParam`] once a chunk is stored.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let mut sc = Schunk::new(CParams::default(), DParams::default());
    /// sc.set_chunksize(288).unwrap();
    /// assert_eq!(sc.chunksize(), 288);
    /// sc.append_buffer(&[0u8; 288]).unwrap();
    /// assert!(sc.set_chunksize(100).is_err());
    /// ```
    pub fn set_chunksize(&mut self, chunksize: i32) -> Result<()> {
        if self.nchunks() != 0 || chunksize < -1 {
            crate::trace_error!("The chunk size can only be preset before the first chunk");
            return Err(Error::InvalidParam);
        }
        if let Store::Frame(f) = &mut self.store {
            f.set_chunksize(chunksize)?;
        }
        self.chunksize = chunksize;
        Ok(())
    }

    /// Secondary chunk flags shared by all chunks (bit 0: VL-block chunks); 0 when empty.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{chunk, CParams, DParams};
    ///
    /// let cparams = CParams { typesize: 1, ..CParams::default() };
    /// let mut sc = Schunk::new(cparams.clone(), DParams::default());
    /// assert_eq!(sc.flags2(), 0);
    /// let mut buf = vec![0u8; 256];
    /// let n = chunk::vlcompress(&cparams, &[b"ab", b"cde"], &mut buf).unwrap();
    /// sc.append_chunk(&buf[..n]).unwrap();
    /// assert_eq!(sc.flags2(), 1);
    /// ```
    pub fn flags2(&self) -> u8 {
        self.flags2
    }

    /// Whether the chunks are VL-block chunks.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{chunk, CParams, DParams};
    ///
    /// let cparams = CParams { typesize: 1, ..CParams::default() };
    /// let mut sc = Schunk::new(cparams.clone(), DParams::default());
    /// let mut buf = vec![0u8; 256];
    /// let n = chunk::vlcompress(&cparams, &[b"ab", b"cde"], &mut buf).unwrap();
    /// sc.append_chunk(&buf[..n]).unwrap();
    /// assert!(sc.is_vlblocks());
    /// ```
    pub fn is_vlblocks(&self) -> bool {
        self.flags2 & VL_BLOCKS != 0
    }

    /// The chunk most recently accessed (appended, inserted, updated, deleted or decompressed).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// assert_eq!(sc.current_nchunk(), 2); // the last appended
    /// let mut out = vec![0u8; 4000];
    /// sc.decompress_chunk(1, &mut out).unwrap();
    /// assert_eq!(sc.current_nchunk(), 1);
    /// ```
    pub fn current_nchunk(&self) -> i64 {
        self.current_nchunk
    }

    /// Bumped on every change of the metalayers or variable-length metalayers.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// let t = sc.change_tick();
    /// sc.vlmeta_add("v", b"1", &CParams::default()).unwrap();
    /// assert!(sc.change_tick() > t);
    /// ```
    pub fn change_tick(&self) -> i64 {
        self.change_tick
    }

    /// A stamp of the metalayers and variable-length metalayers: equal stamps mean the same
    /// super-chunk with the same metalayers (a mirror of them needs no update).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// let mut sc = Schunk::new(CParams::default(), DParams::default());
    /// let s0 = sc.meta_stamp();
    /// sc.append_buffer(&[1u8; 100]).unwrap();
    /// assert_eq!(sc.meta_stamp(), s0);
    /// sc.meta_add("m", b"x").unwrap();
    /// assert_ne!(sc.meta_stamp(), s0);
    /// // another super-chunk never has the same stamps
    /// assert_ne!(Schunk::new(CParams::default(), DParams::default()).meta_stamp(), s0);
    /// ```
    pub fn meta_stamp(&self) -> (u64, i64, u64) {
        (self.id, self.change_tick, self.reloads)
    }

    /// A stamp of the stored chunks of an in-memory super-chunk: equal stamps (from the same
    /// super-chunk) mean the same chunks in the same buffers, so that a mirror of their
    /// addresses needs no update. `None` for a frame.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// let mut sc = Schunk::new(CParams::default(), DParams::default());
    /// let s0 = sc.chunks_stamp();
    /// assert_eq!(sc.chunks_stamp(), s0);
    /// sc.append_buffer(&[1u8; 100]).unwrap();
    /// assert_ne!(sc.chunks_stamp(), s0);
    /// ```
    pub fn chunks_stamp(&self) -> Option<u64> {
        match &self.store {
            Store::Memory(c) => Some(c.stamp),
            Store::Frame(_) => None,
        }
    }

    /// Whether the chunks are held in memory one by one (then [`Schunk::stored_chunk`] gives
    /// stable slices of them).
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
    /// # let cparams = CParams { typesize: 4, ..CParams::default() };
    /// # let loc = Location::File { path: path.clone(), offset: 0 };
    /// # let frame = Frame::create(loc, &FrameParams::from_cparams(&cparams, 1), Arc::new(StdIo)).unwrap();
    /// # let mut sc = Schunk::with_frame(cparams, DParams::default(), frame);
    /// assert!(!sc.is_memory());
    /// assert!(Schunk::new(CParams::default(), DParams::default()).is_memory());
    /// # drop(sc);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn is_memory(&self) -> bool {
        matches!(self.store, Store::Memory(_))
    }

    /// The in-memory bytes of chunk `n` (`None` out of range or when not held in memory). The
    /// slice stays at the same address until the chunk is updated or deleted.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// let c = sc.stored_chunk(0).unwrap();
    /// assert_eq!(b2rs::chunk::Header::parse(c).unwrap().nbytes, 4000);
    /// assert!(sc.stored_chunk(3).is_none());
    /// ```
    pub fn stored_chunk(&self, n: usize) -> Option<&[u8]> {
        match &self.store {
            Store::Memory(v) => v.get(n).map(Stored::bytes),
            Store::Frame(_) => None,
        }
    }

    /// The address of [`stored_chunk`](Self::stored_chunk)`(n)`, read without touching the
    /// chunk (for a mirror of the addresses of all chunks).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// let mut sc = Schunk::new(CParams::default(), DParams::default());
    /// sc.append_buffer(&[1u8; 100]).unwrap();
    /// assert_eq!(sc.stored_chunk_addr(0), sc.stored_chunk(0).map(|c| c.as_ptr()));
    /// assert_eq!(sc.stored_chunk_addr(1), None);
    /// ```
    pub fn stored_chunk_addr(&self, n: usize) -> Option<*const u8> {
        match &self.store {
            Store::Memory(v) => v.get(n).map(|c| c.addr as *const u8),
            Store::Frame(_) => None,
        }
    }

    fn index(&self, n: i64) -> Result<usize> {
        if n < 0 || n >= self.nchunks() {
            crate::trace_error!(
                "nchunk ('{}') exceeds the number of chunks ('{}') in super-chunk",
                n,
                self.nchunks()
            );
            return Err(Error::InvalidParam);
        }
        Ok(n as usize)
    }

    /// The uncompressed size of chunk `n`.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// use b2rs::Error;
    ///
    /// assert_eq!(sc.chunk_nbytes(2), Ok(4000));
    /// assert!(sc.chunk_nbytes(3).is_err());
    /// ```
    pub fn chunk_nbytes(&self, n: i64) -> Result<i32> {
        let i = self.index(n)?;
        match &self.store {
            Store::Memory(v) => Ok(v[i].nbytes),
            Store::Frame(f) => Ok(Header::sizes(&f.get_chunk(i as i64)?)?.0),
        }
    }

    /// The stored bytes of chunk `n` (exactly its `cbytes`): borrowed for chunks held in
    /// memory or in an in-memory frame, owned when read from a file or synthesised (special
    /// chunks of frames).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// use b2rs::chunk;
    ///
    /// let c = sc.get_chunk(1).unwrap();
    /// let mut out = vec![0u8; 4000];
    /// chunk::decompress(&DParams::default(), &c, &mut out, None).unwrap();
    /// assert_eq!(out[..4], 1000u32.to_le_bytes());
    /// assert!(sc.get_chunk(5).is_err());
    /// ```
    pub fn get_chunk(&self, n: i64) -> Result<Cow<'_, [u8]>> {
        let i = self.index(n)?;
        match &self.store {
            Store::Memory(v) => Ok(Cow::Borrowed(v[i].bytes())),
            Store::Frame(f) => f.get_chunk(i as i64),
        }
    }

    /// Check that a chunk with header `h` may be placed by `op`; returns the new `chunksize`.
    fn admit(&self, h: &Header, op: Op) -> Result<i32> {
        let n = self.nchunks() as usize;
        let others = if matches!(op, Op::Update(_)) {
            n - 1
        } else {
            n
        };
        if others > 0 && h.is_vlblocks() != self.is_vlblocks() {
            crate::trace_error!(
                "VL-block chunks and regular chunks cannot be mixed in a super-chunk"
            );
            return Err(op.error());
        }
        let nb = h.nbytes;
        let last_nbytes = |s: &Self| match &s.store {
            Store::Memory(v) => v.last().map(|c| c.nbytes),
            Store::Frame(_) => s.chunk_nbytes(n as i64 - 1).ok(),
        };
        Ok(match self.chunksize {
            -1 => nb,
            0 => 0,
            c => {
                let like_append =
                    |s: &Self| nb > c || (n > 0 && last_nbytes(s).is_some_and(|l| l < c));
                let variable = match op {
                    Op::Append => like_append(self),
                    Op::Insert(i) if i == n => like_append(self),
                    Op::Insert(_) => nb != c,
                    Op::Update(i) => nb > c || (i + 1 < n && nb < c),
                };
                if variable {
                    0
                } else {
                    c
                }
            }
        })
    }

    fn place_unlocked(&mut self, chunk: impl IntoChunk, op: Op) -> Result<i64> {
        let h = check_chunk(chunk.bytes())?;
        let n = self.nchunks() as usize;
        match op {
            Op::Insert(i) if i > n => return Err(Error::InvalidParam),
            Op::Update(i) if i >= n => return Err(Error::InvalidParam),
            _ => {}
        }
        let chunksize = self.admit(&h, op)?;
        if let Store::Frame(f) = &mut self.store {
            let bytes = &chunk.bytes()[..h.cbytes as usize];
            let r = match op {
                Op::Append => f.append_chunk(bytes),
                Op::Insert(i) => f.insert_chunk(i as i64, bytes),
                Op::Update(i) => f.update_chunk(i as i64, bytes),
            };
            self.current_nchunk = match op {
                Op::Append => n as i64,
                Op::Insert(i) | Op::Update(i) => i as i64,
            };
            self.sync_counters();
            r?;
            // The frame keeps its own copy: a chunk handed over is released now.
            drop(chunk.into_stored());
            return Ok(self.nchunks());
        }
        let stored = Stored::new(chunk.into_stored(), h.nbytes, h.cbytes);
        let others = if matches!(op, Op::Update(_)) {
            n - 1
        } else {
            n
        };
        match &mut self.store {
            Store::Memory(v) => match op {
                Op::Append => {
                    v.try_reserve(1).map_err(|_| Error::MemoryAlloc)?;
                    self.current_nchunk = n as i64;
                    v.push(stored);
                }
                Op::Insert(i) => {
                    v.try_reserve(1).map_err(|_| Error::MemoryAlloc)?;
                    self.current_nchunk = i as i64;
                    v.insert(i, stored);
                }
                Op::Update(i) => {
                    self.current_nchunk = i as i64;
                    let old = std::mem::replace(&mut v[i], stored);
                    self.nbytes -= old.nbytes as i64;
                    self.cbytes -= old.cbytes as i64;
                }
            },
            Store::Frame(_) => unreachable!("frames are handled above"),
        }
        self.nbytes += h.nbytes as i64;
        self.cbytes += h.cbytes as i64;
        self.chunksize = chunksize;
        if others == 0 {
            self.flags2 = h.blosc2_flags2;
        }
        Ok(self.nchunks())
    }

    /// Append a chunk; returns the new number of chunks.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{chunk, CParams, DParams};
    ///
    /// let cparams = CParams { typesize: 1, ..CParams::default() };
    /// let mut buf = vec![0u8; 600];
    /// let n = chunk::compress(&cparams, &[3u8; 500], &mut buf).unwrap();
    /// let mut sc = Schunk::new(cparams, DParams::default());
    /// assert_eq!(sc.append_chunk(&buf[..n]).unwrap(), 1);
    /// assert_eq!(sc.append_chunk(&buf[..n]).unwrap(), 2);
    /// // not a chunk
    /// assert!(sc.append_chunk(&[1u8, 2, 3][..]).is_err());
    /// ```
    pub fn append_chunk(&mut self, chunk: impl IntoChunk) -> Result<i64> {
        self.place(chunk, Op::Append)
    }

    /// Insert a chunk at position `n` (`0..=nchunks`); returns the new number of chunks.
    ///
    /// Chunks move between super-chunks as bytes ([`Schunk::get_chunk`]), without recompression:
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let mut sc = Schunk::new(CParams { typesize: 1, ..CParams::default() }, DParams::default());
    /// for b in [b'a', b'b', b'c'] {
    ///     sc.append_buffer(&[b; 1000]).unwrap();
    /// }
    /// let c = sc.get_chunk(2).unwrap().into_owned();
    /// assert_eq!(sc.insert_chunk(0, c).unwrap(), 4); // c a b c
    /// assert_eq!(sc.delete_chunk(1).unwrap(), 3); // c b c
    /// let mut other = Schunk::new(CParams { typesize: 1, ..CParams::default() }, DParams::default());
    /// other.append_buffer(&[b'z'; 1000]).unwrap();
    /// sc.update_chunk(1, other.get_chunk(0).unwrap().into_owned()).unwrap(); // c z c
    ///
    /// let mut out = vec![0u8; 3000];
    /// sc.get_slice(0, 3000, &mut out).unwrap();
    /// assert_eq!((out[0], out[1500], out[2999]), (b'c', b'z', b'c'));
    /// ```
    pub fn insert_chunk(&mut self, n: i64, chunk: impl IntoChunk) -> Result<i64> {
        if n < 0 || n > self.nchunks() {
            crate::trace_error!(
                "nchunk ('{}') exceeds the number of chunks ('{}') in super-chunk",
                n,
                self.nchunks()
            );
            return Err(Error::InvalidParam);
        }
        self.place(chunk, Op::Insert(n as usize))
    }

    /// Replace chunk `n`; returns the number of chunks.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// use b2rs::chunk;
    ///
    /// let mut buf = vec![0u8; 4100];
    /// let n = chunk::compress(sc.cparams(), &[0u8; 4000], &mut buf).unwrap();
    /// assert_eq!(sc.update_chunk(1, &buf[..n]).unwrap(), 3);
    /// let mut out = vec![1u8; 4000];
    /// sc.decompress_chunk(1, &mut out).unwrap();
    /// assert!(out.iter().all(|&b| b == 0));
    /// ```
    pub fn update_chunk(&mut self, n: i64, chunk: impl IntoChunk) -> Result<i64> {
        let i = self.index(n)?;
        self.place(chunk, Op::Update(i))
    }

    /// Delete chunk `n`; returns the new number of chunks.
    fn delete_chunk_unlocked(&mut self, n: i64) -> Result<i64> {
        let i = self.index(n)?;
        match &mut self.store {
            Store::Memory(v) => {
                let old = v.remove(i);
                self.nbytes -= old.nbytes as i64;
                self.cbytes -= old.cbytes as i64;
            }
            Store::Frame(f) => {
                let r = f.delete_chunk(i as i64);
                self.sync_counters();
                r?;
            }
        }
        self.current_nchunk = i as i64;
        if self.nchunks() == 0 {
            self.flags2 = 0;
        }
        Ok(self.nchunks())
    }

    /// Reorder the chunks: the new chunk `i` is the old chunk `order[i]`. `order` must be a
    /// permutation of `0..nchunks`.
    fn reorder_offsets_unlocked(&mut self, order: &[i64]) -> Result<()> {
        let n = self.nchunks() as usize;
        let mut seen = vec![false; n];
        if order.len() != n {
            crate::trace_error!("The order must have one entry per chunk");
            return Err(Error::Data);
        }
        for &o in order {
            if o < 0 || o as usize >= n || seen[o as usize] {
                crate::trace_error!("Index is repeated or out of range in offsets_order");
                return Err(Error::Data);
            }
            seen[o as usize] = true;
        }
        match &mut self.store {
            Store::Memory(v) => {
                let mut old: Vec<Option<Stored>> = v.drain(..).map(Some).collect();
                for &o in order {
                    if let Some(c) = old[o as usize].take() {
                        v.push(c);
                    }
                }
            }
            Store::Frame(f) => {
                let r = f.reorder_offsets(order);
                self.sync_counters();
                return r;
            }
        }
        // A smaller chunk that is no longer the last one makes the sizes variable.
        if self.chunksize > 0 {
            let c = self.chunksize;
            let ok = match &self.store {
                Store::Memory(v) => v
                    .iter()
                    .enumerate()
                    .all(|(i, s)| s.nbytes == c || (i + 1 == n && s.nbytes <= c)),
                Store::Frame(_) => true,
            };
            if !ok {
                self.chunksize = 0;
            }
        }
        Ok(())
    }

    /// Compress `src` with `compress` (given the number of the new chunk) into any chunk
    /// (e.g. a slice of a buffer the caller reuses, copied when stored) and append it; returns
    /// the new number of chunks.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// use b2rs::chunk;
    ///
    /// // compress into a buffer the caller keeps; the super-chunk copies the chunk
    /// let mut scratch = vec![0u8; 4000 + chunk::header::MAX_OVERHEAD];
    /// let cparams = sc.cparams().clone();
    /// let n = sc
    ///     .append_buffer_into(
    ///         |_nchunk, src| {
    ///             let len = chunk::compress(&cparams, src, &mut scratch)?;
    ///             Ok(&scratch[..len])
    ///         },
    ///         &[7u8; 4000],
    ///     )
    ///     .unwrap();
    /// assert_eq!(n, 4);
    /// ```
    pub fn append_buffer_into<C: IntoChunk>(
        &mut self,
        compress: impl FnOnce(i64, &[u8]) -> Result<C>,
        src: &[u8],
    ) -> Result<i64> {
        let n = self.nchunks();
        self.current_nchunk = n;
        let chunk = compress(n, src)?;
        self.append_chunk(chunk)
    }

    /// Compress `src` with `compress` (given the number of the new chunk) and append it;
    /// returns the new number of chunks.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// use b2rs::chunk;
    ///
    /// let cparams = sc.cparams().clone();
    /// let mut numbers = Vec::new();
    /// let n = sc
    ///     .append_buffer_by(
    ///         &mut |nchunk, src| {
    ///             numbers.push(nchunk);
    ///             let mut buf = vec![0u8; src.len() + chunk::header::MAX_OVERHEAD];
    ///             let len = chunk::compress(&cparams, src, &mut buf)?;
    ///             buf.truncate(len);
    ///             Ok(buf)
    ///         },
    ///         &[1u8; 4000],
    ///     )
    ///     .unwrap();
    /// assert_eq!((n, numbers), (4, vec![3]));
    /// ```
    pub fn append_buffer_by(&mut self, compress: &mut Compressor<'_>, src: &[u8]) -> Result<i64> {
        let n = self.nchunks();
        self.current_nchunk = n;
        let chunk = compress(n, src)?;
        self.append_chunk(chunk)
    }

    /// Compress `src` with `cparams` (chunk number handed to the prefilter: the new chunk's) and
    /// append it; returns the new number of chunks.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// use b2rs::codecs;
    ///
    /// let zstd = CParams { compcode: codecs::ZSTD, typesize: 4, ..CParams::default() };
    /// assert_eq!(sc.append_buffer_with(&zstd, &[2u8; 4000]).unwrap(), 4);
    /// let header = b2rs::chunk::Header::parse(&sc.get_chunk(3).unwrap()).unwrap();
    /// assert_eq!(header.codec_id(), Ok(codecs::ZSTD));
    /// ```
    pub fn append_buffer_with(&mut self, cparams: &CParams, src: &[u8]) -> Result<i64> {
        let cparams = self.plugin_cparams(cparams);
        self.append_buffer_by(&mut |n, s| compress_chunk(&cparams, n, s), src)
    }

    /// Compress `src` with the super-chunk's parameters and append it.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let mut sc = Schunk::new(CParams { typesize: 1, ..CParams::default() }, DParams::default());
    /// assert_eq!(sc.append_buffer(b"first chunk").unwrap(), 1);
    /// assert_eq!(sc.append_buffer(b"second").unwrap(), 2);
    /// assert_eq!(sc.nbytes(), 17);
    /// ```
    pub fn append_buffer(&mut self, src: &[u8]) -> Result<i64> {
        let p = self.cparams.clone();
        self.append_buffer_with(&p, src)
    }

    /// Decompress chunk `n` into `dst` with `dparams` (chunk number handed to the postfilter:
    /// `n`), skipping the blocks set in `maskout`. `dst` must hold the whole chunk. Returns the
    /// chunk's uncompressed size.
    fn decompress_chunk_with_unlocked(
        &mut self,
        dparams: &DParams,
        n: i64,
        dst: &mut [u8],
        maskout: Option<&[bool]>,
    ) -> Result<usize> {
        self.current_nchunk = n;
        let i = self.index(n)?;
        let src = self.get_chunk(i as i64)?;
        let nb = Header::sizes(&src)?.0 as usize;
        if dst.len() < nb {
            crate::trace_error!(
                "Buffer size is too small for the decompressed buffer ('{}' bytes, but '{}' are needed)",
                dst.len(),
                nb
            );
            return Err(Error::InvalidParam);
        }
        let mut dp = dparams.clone();
        dp.nchunk = n;
        self.attach_plugin_dparams(&mut dp);
        let got = chunk::decompress(&dp, &src, dst, maskout)?;
        if got != nb {
            crate::trace_error!("Error in decompressing chunk");
            return Err(Error::Failure);
        }
        Ok(got)
    }

    /// Decompress chunk `n` into `dst` with the super-chunk's parameters.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// let mut out = vec![0u8; 4000];
    /// assert_eq!(sc.decompress_chunk(2, &mut out).unwrap(), 4000);
    /// assert_eq!(out[4 * 999..], 2999u32.to_le_bytes());
    /// // a destination too small
    /// assert!(sc.decompress_chunk(2, &mut out[..100]).is_err());
    /// ```
    pub fn decompress_chunk(&mut self, n: i64, dst: &mut [u8]) -> Result<usize> {
        let dp = self.dparams.clone();
        self.decompress_chunk_with(&dp, n, dst, None)
    }

    /// Decompress block `nblock` of the VL-block chunk `n`.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{chunk, CParams, DParams};
    ///
    /// let cparams = CParams { typesize: 1, ..CParams::default() };
    /// let mut sc = Schunk::new(cparams.clone(), DParams::default());
    /// let mut buf = vec![0u8; 256];
    /// let n = chunk::vlcompress(&cparams, &[b"block zero", b"block one"], &mut buf).unwrap();
    /// sc.append_chunk(&buf[..n]).unwrap();
    /// assert_eq!(sc.get_vlblock(0, 1).unwrap(), b"block one");
    /// assert!(sc.get_vlblock(0, 2).is_err());
    /// ```
    pub fn get_vlblock(&self, n: i64, nblock: i32) -> Result<Vec<u8>> {
        let src = self.get_chunk(n)?;
        let Ok(nblock) = usize::try_from(nblock) else {
            crate::trace_error!("VL block {} out of range", nblock);
            return Err(Error::InvalidParam);
        };
        let mut dp = self.dparams.clone();
        dp.nchunk = n;
        self.attach_plugin_dparams(&mut dp);
        chunk::decompress::vldecompress_block(&dp, &src, nblock)
    }

    /// Fill an empty super-chunk with `nitems` elements of a special value (zeros, NaNs or
    /// uninitialised) in chunks of `chunksize` bytes (the last one may be shorter). Returns the
    /// number of chunks.
    fn fill_special_unlocked(&mut self, nitems: i64, special: i32, chunksize: i32) -> Result<i64> {
        if nitems < 0 || chunksize <= 0 {
            crate::trace_error!("`nitems` must be non-negative and `chunksize` positive");
            return Err(Error::InvalidParam);
        }
        // checked before the value and the sizes, as C-Blosc2 does
        if self.nbytes > 0 || self.cbytes > 0 || self.nchunks() > 0 {
            crate::trace_error!("Filling with special values only works on empty super-chunks");
            return Err(Error::FrameSpecial);
        }
        let kind = match special {
            1 => Special::Zero,
            2 => Special::Nan,
            4 => Special::Uninit,
            _ => {
                crate::trace_error!("Only zeros, NaNs or non-initialized values are supported");
                return Err(Error::SchunkSpecial);
            }
        };
        let typesize = self.cparams.typesize;
        if typesize <= 0 || chunksize % typesize != 0 || chunksize > MAX_BUFFERSIZE {
            crate::trace_error!("`chunksize` must be a multiple of typesize and <= the maximum");
            return Err(Error::SchunkSpecial);
        }
        if nitems == 0 {
            return Ok(0);
        }
        if let Store::Frame(f) = &mut self.store {
            let r = f.fill_special(nitems, kind, chunksize);
            self.sync_counters();
            r?;
            return Ok(self.nchunks());
        }
        let chunkitems = (chunksize / typesize) as i64;
        let nfull = nitems / chunkitems;
        let leftover = nitems % chunkitems;
        if nfull + (leftover > 0) as i64 > i32::MAX as i64 {
            crate::trace_error!("nitems is too large.  Try increasing the chunksize.");
            return Err(Error::SchunkSpecial);
        }
        let make = |nbytes: i64| -> Result<Arc<[u8]>> {
            let mut buf = [0u8; EXTENDED_HEADER_LENGTH];
            let n = special::special_chunk(&self.cparams, kind, nbytes as usize, None, &mut buf)
                .map_err(|_| Error::SchunkSpecial)?;
            Ok(Arc::from(&buf[..n]))
        };
        let full = make(chunksize as i64)?;
        let last = if leftover > 0 {
            Some(make(leftover * typesize as i64)?)
        } else {
            None
        };
        let total = nfull as usize + last.is_some() as usize;
        match &mut self.store {
            Store::Memory(v) => {
                v.try_reserve(total).map_err(|_| Error::MemoryAlloc)?;
            }
            Store::Frame(_) => {}
        }
        for _ in 0..nfull {
            self.append_chunk(SharedChunk(full.clone()))?;
        }
        if let Some(l) = last {
            self.append_chunk(SharedChunk(l))?;
        }
        Ok(self.nchunks())
    }

    /// A copy of this super-chunk (chunks, metalayers, variable-length metalayers) using other
    /// parameters. Chunks are copied as they are when the parameters produce the same chunks,
    /// and recompressed with `compress` otherwise.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// use b2rs::{chunk, codecs};
    ///
    /// let zlib = CParams { compcode: codecs::ZLIB, typesize: 4, ..CParams::default() };
    /// let mut calls = 0;
    /// let copy = sc
    ///     .copy_by(zlib.clone(), DParams::default(), &mut |_, src| {
    ///         calls += 1;
    ///         let mut buf = vec![0u8; src.len() + chunk::header::MAX_OVERHEAD];
    ///         let n = chunk::compress(&zlib, src, &mut buf)?;
    ///         buf.truncate(n);
    ///         Ok(buf)
    ///     })
    ///     .unwrap();
    /// assert_eq!((copy.nchunks(), copy.nbytes(), calls), (3, 12_000, 3));
    /// ```
    pub fn copy_by(
        &self,
        cparams: CParams,
        dparams: DParams,
        compress: &mut Compressor<'_>,
    ) -> Result<Schunk> {
        let mut out = Schunk::new(cparams, dparams);
        self.copy_into(&mut out, compress)?;
        Ok(out)
    }

    /// Copy the chunks, metalayers and variable-length metalayers of this super-chunk into the
    /// empty super-chunk `out` (of any storage kind). Chunks are copied as they are when `out`'s
    /// parameters produce the same chunks, and recompressed with `compress` otherwise.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// use std::sync::Arc;
    /// use b2rs::chunk;
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    ///
    /// // copy into a super-chunk backed by an in-memory frame, with the same parameters
    /// let cparams = sc.cparams().clone();
    /// let params = FrameParams::from_cparams(&cparams, 1);
    /// let frame = Frame::create(Location::Memory, &params, Arc::new(StdIo)).unwrap();
    /// let mut out = Schunk::with_frame(cparams.clone(), DParams::default(), frame);
    /// sc.copy_into(&mut out, &mut |_, src| {
    ///     let mut buf = vec![0u8; src.len() + chunk::header::MAX_OVERHEAD];
    ///     let n = chunk::compress(&cparams, src, &mut buf)?;
    ///     buf.truncate(n);
    ///     Ok(buf)
    /// })
    /// .unwrap();
    /// assert_eq!(out.nchunks(), 3);
    /// assert_eq!(out.get_chunk(2).unwrap(), sc.get_chunk(2).unwrap());
    /// ```
    pub fn copy_into(&self, out: &mut Schunk, compress: &mut Compressor<'_>) -> Result<()> {
        let a = &self.cparams;
        let same = same_coding(a, &out.cparams)
            && a.prefilter.is_none()
            && self.dparams.postfilter.is_none();
        for m in &self.metalayers {
            out.meta_add(&m.name, &m.content)?;
        }
        let dp = DParams {
            postfilter: None,
            ..self.dparams.clone()
        };
        let mut buf = Vec::new();
        for n in 0..self.nchunks() {
            let src = self.get_chunk(n)?;
            if same {
                out.append_chunk(&*src)?;
            } else {
                let nb = self.chunk_nbytes(n)? as usize;
                buf.resize(nb, 0);
                let mut dpn = dp.clone();
                dpn.nchunk = n;
                chunk::decompress(&dpn, &src, &mut buf, None)?;
                out.append_buffer_by(compress, &buf)?;
            }
        }
        let defaults = CParams::default();
        for m in &self.vlmetalayers {
            let content = self.vlmeta_get(&m.name)?;
            out.vlmeta_add(&m.name, &content, &defaults)?;
        }
        Ok(())
    }

    /// A copy of this super-chunk using other parameters (see [`Schunk::copy_by`]), chunks
    /// being recompressed with `cparams` when needed.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// use b2rs::codecs;
    ///
    /// let lz4 = CParams { compcode: codecs::LZ4, typesize: 4, ..CParams::default() };
    /// let mut copy = sc.copy_with(lz4, DParams::default()).unwrap();
    /// let mut out = vec![0u8; 4000];
    /// copy.decompress_chunk(2, &mut out).unwrap();
    /// assert_eq!(out[..4], 2000u32.to_le_bytes());
    /// ```
    pub fn copy_with(&self, cparams: CParams, dparams: DParams) -> Result<Schunk> {
        // the copy has the same metalayers, so the same array shapes
        let mut p = cparams.clone();
        p.b2nd = self.nd.clone();
        p.schunk_typesize = Some(cparams.typesize);
        self.copy_by(cparams, dparams, &mut |n, s| compress_chunk(&p, n, s))
    }
}

/// A special chunk shared by many positions of a super-chunk.
struct SharedChunk(Arc<[u8]>);

impl IntoChunk for SharedChunk {
    fn bytes(&self) -> &[u8] {
        &self.0
    }
    fn into_stored(self) -> Box<dyn ChunkBytes> {
        Box::new(self.0)
    }
}

/// Compress `src` into a new chunk (chunk number `nchunk` for the prefilter), trimmed to size.
pub(crate) fn compress_chunk(cparams: &CParams, nchunk: i64, src: &[u8]) -> Result<Vec<u8>> {
    if src.len() > MAX_BUFFERSIZE as usize {
        crate::trace_error!("Input buffer size cannot exceed {} bytes", MAX_BUFFERSIZE);
        return Err(Error::MaxBufsizeExceeded);
    }
    let mut p = cparams.clone();
    p.nchunk = nchunk;
    let cap = src.len() + MAX_OVERHEAD;
    let compress_into = |out: &mut Vec<u8>| -> Result<usize> {
        grow_zeroed(out, cap)?;
        let n = chunk::compress(&p, src, &mut out[..cap])?;
        if n == 0 {
            crate::trace_error!("The chunk does not fit in its buffer");
            return Err(Error::Failure);
        }
        Ok(n)
    };
    compress_to_vec(cap, compress_into)
}

/// A new chunk from `compress_into` (which compresses into the buffer it is given, grown to
/// `cap` bytes as needed, and returns the compressed size). It works in the buffer the thread
/// keeps (a new buffer per chunk costs zeroing or a page fault per page of the whole chunk) and
/// the compressed bytes are copied out; a nested call (from a prefilter) or a chunk too big to
/// keep a buffer for gets a buffer of its own, trimmed to size.
pub(crate) fn compress_to_vec(
    cap: usize,
    mut compress_into: impl FnMut(&mut Vec<u8>) -> Result<usize>,
) -> Result<Vec<u8>> {
    if let Some(r) = with_compress_scratch(cap, |out| compress_into(out).map(|n| out[..n].to_vec()))
    {
        return r;
    }
    let mut out = Vec::new();
    let n = compress_into(&mut out)?;
    out.truncate(n);
    out.shrink_to_fit();
    Ok(out)
}

/// Grow `out` to at least `len` bytes (contents unspecified; an allocation failure is an
/// error). A buffer that grows is a fresh zeroed allocation (calloc), not the old one extended
/// and zeroed: a large output buffer then costs page faults only on the pages the compressed
/// bytes reach.
pub(crate) fn grow_zeroed(out: &mut Vec<u8>, len: usize) -> Result<()> {
    if out.len() < len {
        *out = Vec::new();
        *out = crate::error::zeroed_vec(len)?;
    }
    Ok(())
}

/// Largest compression output buffer a thread keeps between chunks.
const SCRATCH_MAX: usize = 64 << 20;

thread_local! {
    /// The compression output buffer each thread keeps between chunks.
    static COMPRESS_SCRATCH: std::cell::RefCell<Vec<u8>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Run `f` on the compression output buffer the thread keeps between chunks, unless `cap`
/// bytes are too many to keep or the buffer is in use already (a call nested in a prefilter):
/// then `None`, and the caller allocates a buffer of its own.
pub(crate) fn with_compress_scratch<R>(cap: usize, f: impl FnOnce(&mut Vec<u8>) -> R) -> Option<R> {
    if cap > SCRATCH_MAX {
        return None;
    }
    COMPRESS_SCRATCH.with(|cell| cell.try_borrow_mut().ok().map(|mut out| f(&mut out)))
}

#[cfg(test)]
mod tests;

impl Schunk {
    /// Store a chunk as `op` says (under the exclusive frame lock when locking is on).
    fn place(&mut self, chunk: impl IntoChunk, op: Op) -> Result<i64> {
        self.locked(LockMode::Exclusive, |s| s.place_unlocked(chunk, op))
    }

    /// Delete chunk `n`; returns the new number of chunks (under the exclusive frame lock when locking is on).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// assert_eq!(sc.delete_chunk(0).unwrap(), 2);
    /// let mut out = vec![0u8; 4000];
    /// sc.decompress_chunk(0, &mut out).unwrap();
    /// assert_eq!(out[..4], 1000u32.to_le_bytes());
    /// assert!(sc.delete_chunk(5).is_err());
    /// ```
    pub fn delete_chunk(&mut self, n: i64) -> Result<i64> {
        self.locked(LockMode::Exclusive, |s| s.delete_chunk_unlocked(n))
    }

    /// Reorder the chunks: the new chunk `i` is the old chunk `order[i]` (under the exclusive frame lock when locking is on).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// sc.reorder_offsets(&[2, 0, 1]).unwrap();
    /// let mut out = vec![0u8; 4000];
    /// sc.decompress_chunk(0, &mut out).unwrap();
    /// assert_eq!(out[..4], 2000u32.to_le_bytes());
    /// // not a permutation
    /// assert!(sc.reorder_offsets(&[0, 0, 1]).is_err());
    /// ```
    pub fn reorder_offsets(&mut self, order: &[i64]) -> Result<()> {
        self.locked(LockMode::Exclusive, |s| s.reorder_offsets_unlocked(order))
    }

    /// Fill an empty super-chunk with `nitems` special items; returns the number of chunks (under the exclusive frame lock when locking is on).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::chunk::header::Special;
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// // 1000 zero items in chunks of 400 items (1600 bytes)
    /// assert_eq!(sc.fill_special(1000, Special::Zero as i32, 1600).unwrap(), 3);
    /// assert_eq!(sc.nbytes(), 4000);
    /// let mut out = vec![1u8; 800];
    /// sc.get_slice(900, 1000, &mut out[..400]).unwrap();
    /// assert!(out[..400].iter().all(|&b| b == 0));
    /// ```
    pub fn fill_special(&mut self, nitems: i64, special: i32, chunksize: i32) -> Result<i64> {
        self.locked(LockMode::Exclusive, |s| {
            s.fill_special_unlocked(nitems, special, chunksize)
        })
    }

    /// Decompress chunk `n` into `dst` with `dparams`, skipping the blocks set in `maskout`; returns the chunk's uncompressed size (under the shared frame lock when locking is on).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// // one chunk of 4 blocks of 1000 bytes
    /// let cparams = CParams { typesize: 1, blocksize: 1000, ..CParams::default() };
    /// let mut sc = Schunk::new(cparams, DParams::default());
    /// let data: Vec<u8> = (0..4000u32).map(|i| (i / 1000) as u8 + 1).collect();
    /// sc.append_buffer(&data).unwrap();
    /// let mut out = vec![0u8; 4000];
    /// // skip blocks 1 and 2
    /// let mask = [false, true, true, false];
    /// sc.decompress_chunk_with(&DParams::default(), 0, &mut out, Some(&mask)).unwrap();
    /// assert_eq!((out[0], out[1500], out[2500], out[3999]), (1, 0, 0, 4));
    /// ```
    pub fn decompress_chunk_with(
        &mut self,
        dparams: &DParams,
        n: i64,
        dst: &mut [u8],
        maskout: Option<&[bool]>,
    ) -> Result<usize> {
        // Like C-Blosc2, the chunk number is checked against the counters as they are.
        if self.index(n).is_err() {
            return self.decompress_chunk_with_unlocked(dparams, n, dst, maskout);
        }
        self.locked(LockMode::Shared, |s| {
            s.decompress_chunk_with_unlocked(dparams, n, dst, maskout)
        })
    }
}
