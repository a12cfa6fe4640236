//! Compression and decompression parameters of the core (the Rust side of `blosc2_cparams` and
//! `blosc2_dparams`).

use std::fmt;
use std::sync::Arc;

/// Number of filter slots in the pipeline.
pub const MAX_FILTERS: usize = 6;

/// Filter ids of the pipeline (FILTERS.md §2).
pub mod filter_id {
    /// No filter.
    pub const NOFILTER: u8 = 0;
    /// Byte shuffle.
    pub const SHUFFLE: u8 = 1;
    /// Bit shuffle.
    pub const BITSHUFFLE: u8 = 2;
    /// XOR delta.
    pub const DELTA: u8 = 3;
    /// Mantissa truncation.
    pub const TRUNC_PREC: u8 = 4;
    /// Sentinel: first invalid Blosc-defined id.
    pub const LAST_FILTER: u8 = 5;
    /// Plugin: n-D cell regrouping (FILTERS.md §9).
    pub const NDCELL: u8 = 32;
    /// Plugin: n-D cell mean, lossy (FILTERS.md §9).
    pub const NDMEAN: u8 = 33;
    /// Plugin: legacy byte-plane delta (FILTERS.md §7).
    pub const BYTEDELTA_BUGGY: u8 = 34;
    /// Plugin: byte-plane delta (FILTERS.md §7).
    pub const BYTEDELTA: u8 = 35;
    /// Plugin: integer low-bit truncation (FILTERS.md §8).
    pub const INT_TRUNC: u8 = 36;
    /// Last plugin filter id C-Blosc2 defines (37..=159 are "not yet defined").
    pub const LAST_REGISTERED_FILTER: u8 = 36;
}

/// How blocks are split into streams (`BLOSC_*_SPLIT`).
///
/// # Examples
///
/// ```
/// use b2rs::{chunk, CParams, DParams, SplitMode};
///
/// let data: Vec<u8> = (0..4096u32).flat_map(|i| i.to_le_bytes()).collect();
/// let cparams = CParams { typesize: 4, splitmode: SplitMode::Never, ..CParams::default() };
/// let mut out = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
/// let n = chunk::compress(&cparams, &data, &mut out).unwrap();
/// let mut back = vec![0u8; data.len()];
/// chunk::decompress(&DParams::default(), &out[..n], &mut back, None).unwrap();
/// assert_eq!(back, data);
/// assert_eq!(SplitMode::Never as i32, 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitMode {
    /// Always split (1).
    Always = 1,
    /// Never split (2).
    Never = 2,
    /// Decide from codec, filters and typesize (3).
    Auto = 3,
    /// Same as Auto in 3.x; the default (4).
    ForwardCompat = 4,
}

impl SplitMode {
    /// The mode for its C value; unknown values behave as `ForwardCompat`.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::SplitMode;
    ///
    /// assert_eq!(SplitMode::from_i32(1), SplitMode::Always);
    /// assert_eq!(SplitMode::from_i32(3), SplitMode::Auto);
    /// // unknown values behave as the default
    /// assert_eq!(SplitMode::from_i32(99), SplitMode::ForwardCompat);
    /// ```
    pub fn from_i32(v: i32) -> SplitMode {
        match v {
            1 => SplitMode::Always,
            2 => SplitMode::Never,
            3 => SplitMode::Auto,
            _ => SplitMode::ForwardCompat,
        }
    }
}

/// What a prefilter sees for one block.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use b2rs::{chunk, params::PrefilterArgs, CParams, DParams};
///
/// // a prefilter that adds 1 to every byte before compression
/// let cparams = CParams {
///     typesize: 1,
///     prefilter: Some(Arc::new(|a: &mut PrefilterArgs<'_>| {
///         for (o, i) in a.output.iter_mut().zip(a.input) {
///             *o = i.wrapping_add(1);
///         }
///         0
///     })),
///     ..CParams::default()
/// };
/// let data = vec![7u8; 1000];
/// let mut out = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
/// let n = chunk::compress(&cparams, &data, &mut out).unwrap();
/// let mut back = vec![0u8; data.len()];
/// chunk::decompress(&DParams::default(), &out[..n], &mut back, None).unwrap();
/// assert_eq!(back, vec![8u8; 1000]);
/// ```
pub struct PrefilterArgs<'a> {
    /// The caller's input for this block.
    pub input: &'a [u8],
    /// Where the prefilter writes the data to compress (the block length).
    pub output: &'a mut [u8],
    /// Element size.
    pub output_typesize: i32,
    /// Byte offset of the block in the chunk.
    pub output_offset: i32,
    /// Chunk number in its super-chunk, or -1.
    pub nchunk: i64,
    /// Block number.
    pub nblock: i32,
    /// Worker number.
    pub tid: i32,
}

/// What a postfilter sees for one block.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use b2rs::{chunk, params::PostfilterArgs, CParams, DParams};
///
/// let data: Vec<u8> = (0..1000u32).map(|i| i as u8).collect();
/// let cparams = CParams { typesize: 1, ..CParams::default() };
/// let mut out = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
/// let n = chunk::compress(&cparams, &data, &mut out).unwrap();
/// // a postfilter that inverts every decoded byte
/// let dparams = DParams {
///     postfilter: Some(Arc::new(|a: &mut PostfilterArgs<'_>| {
///         for (o, i) in a.output.iter_mut().zip(a.input) {
///             *o = !*i;
///         }
///         0
///     })),
///     ..DParams::default()
/// };
/// let mut back = vec![0u8; data.len()];
/// chunk::decompress(&dparams, &out[..n], &mut back, None).unwrap();
/// assert!(back.iter().zip(&data).all(|(b, d)| *b == !*d));
/// ```
pub struct PostfilterArgs<'a> {
    /// The decoded block.
    pub input: &'a [u8],
    /// Where the postfilter writes the block delivered to the caller.
    pub output: &'a mut [u8],
    /// Element size.
    pub typesize: i32,
    /// Byte offset of the block in the chunk.
    pub offset: i32,
    /// Chunk number in its super-chunk, or -1.
    pub nchunk: i64,
    /// Block number.
    pub nblock: i32,
    /// Worker number.
    pub tid: i32,
}

/// A prefilter: transforms each block of the input before the filter pipeline. Returns 0 on
/// success.
pub type Prefilter = Arc<dyn Fn(&mut PrefilterArgs<'_>) -> i32 + Send + Sync>;
/// A postfilter: transforms each decoded block. Returns 0 on success.
pub type Postfilter = Arc<dyn Fn(&mut PostfilterArgs<'_>) -> i32 + Send + Sync>;

/// Compression parameters (`blosc2_cparams`); [`CParams::default`] is
/// `BLOSC2_CPARAMS_DEFAULTS` (BloscLZ, clevel 5, typesize 8, shuffle, one thread).
///
/// ```
/// use b2rs::{codecs, params::filter_id, CParams};
///
/// let mut cparams = CParams { compcode: codecs::ZSTD, clevel: 7, typesize: 4, nthreads: 2, ..CParams::default() };
/// // the filter pipeline runs from filters[0] to filters[5]: delta, then byte shuffle
/// cparams.filters[4] = filter_id::DELTA;
/// assert_eq!(cparams.filters, [0, 0, 0, 0, filter_id::DELTA, filter_id::SHUFFLE]);
/// ```
#[derive(Clone)]
pub struct CParams {
    /// Public codec id.
    pub compcode: u8,
    /// Parameter byte for plugin codecs.
    pub compcode_meta: u8,
    /// Compression level 0..=9.
    pub clevel: u8,
    /// Build and use a chunk dictionary (Zstd, LZ4, LZ4HC).
    pub use_dict: bool,
    /// Element size in bytes (may exceed 255).
    pub typesize: i32,
    /// Worker threads.
    pub nthreads: i16,
    /// Block size; 0 = automatic.
    pub blocksize: i32,
    /// Split mode.
    pub splitmode: SplitMode,
    /// Filter pipeline.
    pub filters: [u8; MAX_FILTERS],
    /// Filter parameters.
    pub filters_meta: [u8; MAX_FILTERS],
    /// Optional prefilter.
    pub prefilter: Option<Prefilter>,
    /// The prefilter's output is not needed (C-Blosc2's `output_is_disposable`: the prefilter
    /// computes what it is run for, a reduction say): blocks are neither filtered nor
    /// compressed, each stream is stored as a run of zeros, and a prefilter error is ignored.
    pub prefilter_disposable: bool,
    /// Chunk number handed to prefilters (-1 when not in a super-chunk).
    pub nchunk: i64,
    /// Opaque handle of the owner (e.g. the super-chunk) handed back to plugins.
    pub owner: usize,
    /// Opaque parameters for the codec, handed to codec plugins as they are (C-Blosc2's
    /// `cparams.codec_params`; 0 for none).
    pub codec_params: usize,
    /// Instrumented-codec mode (development feature of C-Blosc2; refused).
    pub instr_codec: bool,
    /// Typesize of the super-chunk the chunk belongs to (bytedelta with meta 0 uses it as its
    /// plane count); `None` outside a super-chunk.
    pub schunk_typesize: Option<i32>,
    /// Shapes of the b2nd array the chunk belongs to (the super-chunk's "b2nd" metalayer), for
    /// the n-dimensional plugins (NDLZ, NDCELL, NDMEAN, ZFP); `None` outside a b2nd array.
    pub b2nd: Option<Arc<crate::b2nd::Meta>>,
    /// Write the 16-byte Blosc 1.x header layout (C-Blosc2's `BLOSC_BLOSC1_COMPAT`): filters
    /// recorded as flags, no zero/run streams, no special chunks.
    pub basic_header: bool,
}

impl Default for CParams {
    fn default() -> Self {
        CParams {
            compcode: 0,
            compcode_meta: 0,
            clevel: 5,
            use_dict: false,
            typesize: 8,
            nthreads: 1,
            blocksize: 0,
            splitmode: SplitMode::ForwardCompat,
            filters: [0, 0, 0, 0, 0, filter_id::SHUFFLE],
            filters_meta: [0; MAX_FILTERS],
            prefilter: None,
            nchunk: -1,
            owner: 0,
            codec_params: 0,
            instr_codec: false,
            schunk_typesize: None,
            b2nd: None,
            basic_header: false,
            prefilter_disposable: false,
        }
    }
}

impl fmt::Debug for CParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CParams")
            .field("compcode", &self.compcode)
            .field("compcode_meta", &self.compcode_meta)
            .field("clevel", &self.clevel)
            .field("use_dict", &self.use_dict)
            .field("typesize", &self.typesize)
            .field("nthreads", &self.nthreads)
            .field("blocksize", &self.blocksize)
            .field("splitmode", &self.splitmode)
            .field("filters", &self.filters)
            .field("filters_meta", &self.filters_meta)
            .field("prefilter", &self.prefilter.is_some())
            .finish()
    }
}

/// Decompression parameters.
///
/// # Examples
///
/// ```
/// use b2rs::{chunk, CParams, DParams};
///
/// let data = vec![3u8; 50_000];
/// let mut out = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
/// let n = chunk::compress(&CParams { typesize: 1, ..CParams::default() }, &data, &mut out).unwrap();
/// let dparams = DParams { nthreads: 2, ..DParams::default() };
/// let mut back = vec![0u8; data.len()];
/// assert_eq!(chunk::decompress(&dparams, &out[..n], &mut back, None).unwrap(), data.len());
/// assert_eq!(back, data);
/// ```
#[derive(Clone)]
pub struct DParams {
    /// Worker threads.
    pub nthreads: i16,
    /// Optional postfilter.
    pub postfilter: Option<Postfilter>,
    /// Element size hint (used by some plugins).
    pub typesize: i32,
    /// Chunk number handed to postfilters (-1 when not in a super-chunk).
    pub nchunk: i64,
    /// Opaque handle of the owner handed back to plugins.
    pub owner: usize,
    /// Typesize of the super-chunk the chunk belongs to (bytedelta with meta 0 uses it as its
    /// plane count); `None` outside a super-chunk.
    pub schunk_typesize: Option<i32>,
    /// Shapes of the b2nd array the chunk belongs to (the super-chunk's "b2nd" metalayer), for
    /// the n-dimensional plugins (NDLZ, NDCELL, NDMEAN, ZFP); `None` outside a b2nd array.
    pub b2nd: Option<Arc<crate::b2nd::Meta>>,
}

impl Default for DParams {
    fn default() -> Self {
        DParams {
            nthreads: 1,
            postfilter: None,
            typesize: 8,
            nchunk: -1,
            owner: 0,
            schunk_typesize: None,
            b2nd: None,
        }
    }
}

impl fmt::Debug for DParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DParams")
            .field("nthreads", &self.nthreads)
            .field("postfilter", &self.postfilter.is_some())
            .field("typesize", &self.typesize)
            .finish()
    }
}
