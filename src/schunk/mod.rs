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

mod backing;
mod bytes;
mod checksum;
mod compress;
mod copy;
mod meta;
mod ops;
mod runs;
mod share;
mod slice;

use bytes::{new_stamp, Chunks, SharedChunk, Stored};
pub use bytes::{ChunkBytes, IntoChunk};
pub use checksum::{chunk_checksum, ChunkCheck, ChunkChecksums, CHECKSUMS_VLMETA};
pub(crate) use compress::compress_chunk;
#[cfg(feature = "capi")]
pub(crate) use compress::{compress_to_vec, grow_zeroed, scratch_chunk, with_compress_scratch};
pub use compress::{Compressor, SharedCompressor};
pub(crate) use copy::same_coding;
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

/// Where the chunks of a super-chunk live.
///
/// For a frame every chunk operation forwards to the frame (`get_chunk` giving owned bytes for
/// read or synthesised special chunks), the counters come from the frame (`nbytes`, `cbytes`:
/// specials count 0), and metalayer changes are pushed to it (`add_metalayer` only before the
/// first chunk, `update_metalayer`, `set_vlmetalayer`, `delete_vlmetalayer`).
enum Store {
    /// Chunks held in memory one by one (C-Blosc2: `frame == NULL`).
    Memory(Chunks),
    /// A frame (in memory, in a file or a sparse directory).
    Frame(Box<Frame>),
}

/// The operation a chunk is admitted for (the rules differ slightly).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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
    /// Every chunk was deleted since `chunksize` was last set or confirmed: the next chunk is
    /// not held to it (C-Blosc2 refuses one larger than it: see README).
    emptied: bool,
    /// Bumped whenever the chunk checksums are rewritten (see [`Schunk::enable_checksums`]).
    checksums_tick: u64,
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
            emptied: false,
            checksums_tick: 0,
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
        self.record_params();
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
        self.record_params();
    }

    /// Hand the parameters to the frame, which records them in its header at its next change
    /// (C-Blosc2 writes the header from the super-chunk's fields at every change).
    fn record_params(&mut self) {
        if let Store::Frame(f) = &mut self.store {
            let p = crate::frame::FrameParams::from_cparams(&self.cparams, self.dparams.nthreads);
            f.stage_params(p);
        }
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

    /// Set the chunk size the next chunks are checked against (-1: the next chunk sets it, 0:
    /// variable sizes), as C-Blosc2 takes `schunk->chunksize` from its caller at every call
    /// (B2ND arrays without chunks preset it; python-blosc2 writes it after creating a
    /// super-chunk). A frame records it at its next change. A first chunk larger than a preset
    /// chunk size is refused, as in C-Blosc2.
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
    /// assert!(sc.append_buffer(&[0u8; 300]).is_err());
    /// // a shorter first chunk keeps the chunk size; one after it makes sizes variable
    /// sc.append_buffer(&[0u8; 100]).unwrap();
    /// assert_eq!(sc.chunksize(), 288);
    /// sc.append_buffer(&[0u8; 288]).unwrap();
    /// assert_eq!(sc.chunksize(), 0);
    /// assert!(sc.set_chunksize(-2).is_err());
    /// ```
    pub fn set_chunksize(&mut self, chunksize: i32) -> Result<()> {
        if chunksize < -1 {
            crate::trace_error!("The chunk size cannot be {}", chunksize);
            return Err(Error::InvalidParam);
        }
        if let Store::Frame(f) = &mut self.store {
            f.set_chunksize(chunksize)?;
        }
        self.chunksize = chunksize;
        self.emptied = false;
        Ok(())
    }

    /// Record the chunk size and parameters in the frame header now (frame-backed only; a
    /// frame records them at its next change otherwise).
    pub(crate) fn write_header(&mut self) -> Result<()> {
        match &mut self.store {
            Store::Frame(f) => f.write_header(),
            Store::Memory(_) => Ok(()),
        }
    }

    /// Set the chunk most recently accessed (C-Blosc2's `schunk->current_nchunk`, which callers
    /// set before compressing the data of a chunk themselves).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let mut sc = Schunk::new(CParams::default(), DParams::default());
    /// sc.set_current_nchunk(7);
    /// assert_eq!(sc.current_nchunk(), 7);
    /// ```
    pub fn set_current_nchunk(&mut self, nchunk: i64) {
        self.current_nchunk = nchunk;
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
}

#[cfg(test)]
mod tests;
