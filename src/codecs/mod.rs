//! The block codecs (CODECS.md): one file per codec, plus the dispatch by codec id.
//!
//! A codec turns one *stream* (a block or one split of a block) into bytes and back. Compressors
//! return `Ok(0)` when the stream should be stored raw (no gain, or the output limit was hit).

pub mod adler32;
pub mod blosclz;
pub mod lz4;
pub mod ndlz;
pub mod zfp;
pub mod zlib;
pub mod zstd;

use crate::error::{Error, Result};
use crate::registry;
pub use crate::registry::StreamInfo;

/// Public codec id of BloscLZ.
pub const BLOSCLZ: u8 = 0;
/// Public codec id of LZ4.
pub const LZ4: u8 = 1;
/// Public codec id of LZ4HC.
pub const LZ4HC: u8 = 2;
/// Public codec id of Zlib.
pub const ZLIB: u8 = 4;
/// Public codec id of Zstd.
pub const ZSTD: u8 = 5;

/// First codec id that is not one of Blosc's own (`BLOSC_LAST_CODEC`).
pub const LAST_CODEC: u8 = 6;

/// Chunk-format code (`flags >> 5`) telling that the codec id is in header byte 22.
pub const UDCODEC_FORMAT: u8 = 6;

/// The built-in codecs: (public id, name, library name, library version, format code).
pub const BUILTIN: [(u8, &str, &str, &str, u8); 5] = [
    (BLOSCLZ, "blosclz", "BloscLZ", "2.5.5", 0),
    (LZ4, "lz4", "LZ4", "1.10.0", 1),
    (LZ4HC, "lz4hc", "LZ4", "1.10.0", 1),
    (ZLIB, "zlib", "Zlib", "2.3.3", 3),
    (ZSTD, "zstd", "Zstd", "1.5.7", 4),
];

/// Public codec id of NDLZ (a plugin C-Blosc2 builds in).
pub const NDLZ: u8 = ndlz::ID;

/// Whether `id` is one of the five built-in codecs.
///
/// # Examples
///
/// ```
/// use b2rs::codecs;
///
/// assert!(codecs::is_builtin(codecs::ZSTD));
/// assert!(!codecs::is_builtin(codecs::NDLZ));
/// assert!(!codecs::is_builtin(3));
/// ```
pub fn is_builtin(id: u8) -> bool {
    BUILTIN.iter().any(|b| b.0 == id)
}

/// The plugin codecs of C-Blosc2 that b2rs implements itself: (public id, name).
pub const BUILTIN_PLUGINS: [(u8, &str); 3] = [
    (zfp::ZFP_ACC, "zfp_acc"),
    (zfp::ZFP_PREC, "zfp_prec"),
    (zfp::ZFP_RATE, "zfp_rate"),
];

/// Whether `id` is a plugin codec of C-Blosc2 that b2rs implements itself (NDLZ, 32, and the
/// ZFP codecs 33..=35), usable without registration.
///
/// # Examples
///
/// ```
/// use b2rs::codecs;
///
/// assert!(codecs::is_builtin_plugin(codecs::NDLZ));
/// assert!(codecs::is_builtin_plugin(codecs::zfp::ZFP_RATE));
/// assert!(!codecs::is_builtin_plugin(codecs::LZ4));
/// ```
pub fn is_builtin_plugin(id: u8) -> bool {
    id == NDLZ || BUILTIN_PLUGINS.iter().any(|p| p.0 == id)
}

/// Whether compressing with codec `id` is possible: built in, a built-in plugin or registered.
///
/// # Examples
///
/// ```
/// use b2rs::codecs;
///
/// assert!(codecs::is_available(codecs::ZLIB));
/// assert!(codecs::is_available(codecs::zfp::ZFP_ACC));
/// // nothing registered under 250
/// assert!(!codecs::is_available(250));
/// ```
pub fn is_available(id: u8) -> bool {
    is_builtin(id) || is_builtin_plugin(id) || registry::codec(id).is_some()
}

/// The name of a codec id (`"blosclz"`, …), built-in or registered.
///
/// # Examples
///
/// ```
/// use b2rs::codecs;
///
/// assert_eq!(codecs::name_of(codecs::LZ4HC).as_deref(), Some("lz4hc"));
/// assert_eq!(codecs::name_of(codecs::zfp::ZFP_PREC).as_deref(), Some("zfp_prec"));
/// assert_eq!(codecs::name_of(250), None);
/// ```
pub fn name_of(id: u8) -> Option<String> {
    if let Some(b) = BUILTIN.iter().find(|b| b.0 == id) {
        return Some(b.1.to_string());
    }
    if let Some(p) = BUILTIN_PLUGINS.iter().find(|p| p.0 == id) {
        return Some(p.1.to_string());
    }
    registry::codec_name(id)
}

/// The codec id of a name, built-in or registered.
///
/// # Examples
///
/// ```
/// use b2rs::codecs;
///
/// assert_eq!(codecs::id_of("zstd"), Some(codecs::ZSTD));
/// assert_eq!(codecs::id_of("zfp_acc"), Some(codecs::zfp::ZFP_ACC));
/// assert_eq!(codecs::id_of("snappy"), None);
/// ```
pub fn id_of(name: &str) -> Option<u8> {
    if let Some(b) = BUILTIN.iter().find(|b| b.1 == name) {
        return Some(b.0);
    }
    if let Some(p) = BUILTIN_PLUGINS.iter().find(|p| p.1 == name) {
        return Some(p.0);
    }
    registry::codec_id(name)
}

/// The chunk-format code written in `flags >> 5` for a public codec id.
///
/// # Examples
///
/// ```
/// use b2rs::codecs;
///
/// assert_eq!(codecs::format_of(codecs::LZ4HC), 1);
/// assert_eq!(codecs::format_of(codecs::ZSTD), 4);
/// // codecs outside the built-in five store their id in header byte 22
/// assert_eq!(codecs::format_of(codecs::NDLZ), codecs::UDCODEC_FORMAT);
/// ```
pub fn format_of(id: u8) -> u8 {
    match BUILTIN.iter().find(|b| b.0 == id) {
        Some(b) => b.4,
        None => UDCODEC_FORMAT,
    }
}

/// The library name for a chunk-format code (`blosc2_cbuffer_complib`).
///
/// # Examples
///
/// ```
/// use b2rs::codecs;
///
/// assert_eq!(codecs::libname_of_format(codecs::format_of(codecs::ZLIB)), Some("Zlib"));
/// assert_eq!(codecs::libname_of_format(2), None);
/// ```
pub fn libname_of_format(format: u8) -> Option<&'static str> {
    match format {
        0 => Some("BloscLZ"),
        1 => Some("LZ4"),
        3 => Some("Zlib"),
        4 => Some("Zstd"),
        _ => None,
    }
}

/// The public codec id behind a chunk-format code, for built-in formats.
///
/// # Examples
///
/// ```
/// use b2rs::codecs;
///
/// assert_eq!(codecs::id_of_format(4), Some(codecs::ZSTD));
/// // LZ4 and LZ4HC share format 1
/// assert_eq!(codecs::id_of_format(codecs::format_of(codecs::LZ4HC)), Some(codecs::LZ4));
/// assert_eq!(codecs::id_of_format(codecs::UDCODEC_FORMAT), None);
/// ```
pub fn id_of_format(format: u8) -> Option<u8> {
    match format {
        0 => Some(BLOSCLZ),
        1 => Some(LZ4),
        3 => Some(ZLIB),
        4 => Some(ZSTD),
        _ => None,
    }
}

/// A chunk dictionary prepared for compression.
///
/// # Examples
///
/// ```
/// use b2rs::codecs::{self, CDict, CodecState, DDict, StreamInfo};
///
/// let dict = b"temperature pressure humidity ".repeat(4);
/// let cdict = CDict::Lz4(&dict);
/// let data = b"humidity pressure temperature ".repeat(20);
/// let info = StreamInfo { meta: 0, chunk: &[], cparams: None, dparams: None };
/// let mut state = CodecState::default();
/// let mut out = vec![0u8; data.len()];
/// let n = state.compress(codecs::LZ4, 5, &data, &mut out, Some(&cdict), info).unwrap();
/// assert!(n > 0);
/// let ddict = DDict::new(codecs::LZ4, &dict).unwrap();
/// let mut back = vec![0u8; data.len()];
/// state.decompress(codecs::LZ4, &out[..n], &mut back, Some(&ddict), info).unwrap();
/// assert_eq!(back, data);
/// ```
pub enum CDict<'a> {
    /// A Zstd dictionary (trained), digested once per chunk.
    Zstd(::zstd::zstd_safe::CDict<'static>),
    /// Raw LZ4 history bytes.
    Lz4(&'a [u8]),
}

/// A chunk dictionary prepared for decompression.
///
/// # Examples
///
/// ```
/// use b2rs::codecs::{self, zstd, CDict, CodecState, DDict, StreamInfo};
///
/// let dict = b"a zstd dictionary is just bytes too ".repeat(8);
/// let data = b"a zstd dictionary ".repeat(30);
/// let info = StreamInfo { meta: 0, chunk: &[], cparams: None, dparams: None };
/// let mut state = CodecState::default();
/// let mut out = vec![0u8; data.len()];
/// let cdict = CDict::Zstd(zstd::cdict(&dict));
/// let n = state.compress(codecs::ZSTD, 5, &data, &mut out, Some(&cdict), info).unwrap();
/// let ddict = DDict::new(codecs::ZSTD, &dict).unwrap();
/// let mut back = vec![0u8; data.len()];
/// state.decompress(codecs::ZSTD, &out[..n], &mut back, Some(&ddict), info).unwrap();
/// assert_eq!(back, data);
/// ```
pub enum DDict<'a> {
    /// A Zstd dictionary.
    Zstd(::zstd::zstd_safe::DDict<'static>),
    /// Raw LZ4 history bytes.
    Lz4(&'a [u8]),
}

impl<'a> DDict<'a> {
    /// Prepare the dictionary stored in a chunk for the codec of that chunk.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::{codecs::{self, DDict}, Error};
    ///
    /// assert!(matches!(DDict::new(codecs::LZ4HC, b"history"), Ok(DDict::Lz4(b"history"))));
    /// // BloscLZ has no dictionaries
    /// assert!(matches!(DDict::new(codecs::BLOSCLZ, b"history"), Err(Error::CodecDict)));
    /// ```
    pub fn new(codec: u8, bytes: &'a [u8]) -> Result<DDict<'a>> {
        match codec {
            // a damaged zstd-format dictionary (bad entropy tables) makes ZSTD_createDDict fail
            ZSTD => ::zstd::zstd_safe::DDict::try_create(bytes)
                .map(DDict::Zstd)
                .ok_or_else(|| {
                    crate::trace_error!("Cannot create the Zstd dictionary");
                    Error::CodecDict
                }),
            LZ4 | LZ4HC => Ok(DDict::Lz4(bytes)),
            _ => Err(Error::CodecDict),
        }
    }
}

/// Per-thread codec state reused across streams and calls (Zstd and Zlib contexts, LZ4 streams).
///
/// # Examples
///
/// ```
/// use b2rs::codecs::{self, CodecState, StreamInfo};
///
/// let data = b"one stream of a block ".repeat(40);
/// let info = StreamInfo { meta: 0, chunk: &[], cparams: None, dparams: None };
/// let mut state = CodecState::default();
/// for codec in [codecs::BLOSCLZ, codecs::LZ4, codecs::LZ4HC, codecs::ZLIB, codecs::ZSTD] {
///     let mut out = vec![0u8; data.len()];
///     let n = state.compress(codec, 5, &data, &mut out, None, info).unwrap();
///     assert!(n > 0 && n < data.len());
///     let mut back = vec![0u8; data.len()];
///     state.decompress(codec, &out[..n], &mut back, None, info).unwrap();
///     assert_eq!(back, data);
/// }
/// ```
#[derive(Default)]
pub struct CodecState {
    zstd: zstd::State,
    zlib: zlib::State,
    lz4: lz4::State,
}

impl CodecState {
    /// Compress `src` with codec `id` at `clevel` into `dst` (its length is the output limit).
    /// `Ok(0)` means: store the stream raw.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::codecs::{self, CodecState, StreamInfo};
    ///
    /// let info = StreamInfo { meta: 0, chunk: &[], cparams: None, dparams: None };
    /// let mut state = CodecState::default();
    /// let data = vec![1u8; 4096];
    /// let mut out = vec![0u8; 4096];
    /// let n = state.compress(codecs::ZSTD, 3, &data, &mut out, None, info).unwrap();
    /// assert!(n > 0 && n < 100);
    /// // incompressible data: Ok(0), store raw
    /// let noise: Vec<u8> = (0..256u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
    /// assert_eq!(state.compress(codecs::BLOSCLZ, 5, &noise, &mut out[..256], None, info).unwrap(), 0);
    /// ```
    pub fn compress(
        &mut self,
        id: u8,
        clevel: u8,
        src: &[u8],
        dst: &mut [u8],
        dict: Option<&CDict<'_>>,
        info: StreamInfo<'_>,
    ) -> Result<usize> {
        if src.is_empty() || dst.is_empty() {
            return Ok(0);
        }
        let n = match id {
            BLOSCLZ => blosclz::compress(clevel, src, dst),
            LZ4 => self.lz4.compress(false, clevel, src, dst, lz4_dict(dict)),
            LZ4HC => self.lz4.compress(true, clevel, src, dst, lz4_dict(dict)),
            ZLIB => self.zlib.compress(clevel, src, dst),
            ZSTD => self.zstd.compress(clevel, src, dst, zstd_cdict(dict)),
            NDLZ => {
                let nd = info.cparams.and_then(|p| p.b2nd.as_deref());
                // as for any plugin, a failure of the codec is invalid data
                ndlz::compress(info.meta, nd, src, dst).map_err(|_| Error::Data)?
            }
            zfp::ZFP_ACC | zfp::ZFP_PREC | zfp::ZFP_RATE => {
                zfp::compress_stream(id, src, dst, info)?
            }
            _ => {
                let codec = registry::codec(id).ok_or(Error::CodecSupport)?;
                let r = codec.imp.encode(src, dst, info);
                if r < 0 {
                    crate::trace_error!("user codec {} failed compressing a stream: {}", id, r);
                    return Err(Error::Data);
                }
                r as usize
            }
        };
        Ok(if n >= src.len() || n > dst.len() {
            0
        } else {
            n
        })
    }

    /// Decompress one stream into `dst`, which must come out exactly full.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::codecs::{self, CodecState, StreamInfo};
    /// use b2rs::Error;
    ///
    /// let info = StreamInfo { meta: 0, chunk: &[], cparams: None, dparams: None };
    /// let mut state = CodecState::default();
    /// let data = b"decompress fills dst exactly ".repeat(10);
    /// let mut out = vec![0u8; data.len()];
    /// let n = state.compress(codecs::LZ4, 5, &data, &mut out, None, info).unwrap();
    /// let mut back = vec![0u8; data.len()];
    /// state.decompress(codecs::LZ4, &out[..n], &mut back, None, info).unwrap();
    /// assert_eq!(back, data);
    /// // a destination of the wrong length is invalid data
    /// let mut short = vec![0u8; data.len() - 1];
    /// let err = state.decompress(codecs::LZ4, &out[..n], &mut short, None, info).unwrap_err();
    /// assert_eq!(err, Error::Data);
    /// ```
    pub fn decompress(
        &mut self,
        id: u8,
        src: &[u8],
        dst: &mut [u8],
        dict: Option<&DDict<'_>>,
        info: StreamInfo<'_>,
    ) -> Result<()> {
        let n = match id {
            BLOSCLZ => blosclz::decompress(src, dst),
            LZ4 | LZ4HC => lz4::decompress(src, dst, lz4_ddict(dict)),
            ZLIB => self.zlib.decompress(src, dst),
            ZSTD => self.zstd.decompress(src, dst, zstd_ddict(dict)),
            NDLZ => Some(ndlz::decompress(info.meta, src, dst).map_err(|_| Error::Data)?),
            zfp::ZFP_ACC | zfp::ZFP_PREC | zfp::ZFP_RATE => {
                Some(zfp::decompress_stream(id, src, dst, info)?)
            }
            _ => {
                let codec = registry::codec(id).ok_or_else(|| {
                    crate::trace_error!("codec {} is not registered", id);
                    Error::CodecSupport
                })?;
                let r = codec.imp.decode(src, dst, info);
                if r < 0 {
                    crate::trace_error!("user codec {} failed decompressing a stream: {}", id, r);
                    return Err(Error::Data);
                }
                Some(r as usize)
            }
        };
        // As C-Blosc2: a stream that does not decode to exactly its length is invalid data.
        match n {
            Some(n) if n == dst.len() => Ok(()),
            _ => Err(Error::Data),
        }
    }
}

fn lz4_dict<'a>(d: Option<&'a CDict<'_>>) -> Option<&'a [u8]> {
    match d {
        Some(CDict::Lz4(b)) => Some(b),
        _ => None,
    }
}

fn lz4_ddict<'a>(d: Option<&'a DDict<'_>>) -> Option<&'a [u8]> {
    match d {
        Some(DDict::Lz4(b)) => Some(b),
        _ => None,
    }
}

fn zstd_cdict<'a>(d: Option<&'a CDict<'_>>) -> Option<&'a ::zstd::zstd_safe::CDict<'static>> {
    match d {
        Some(CDict::Zstd(c)) => Some(c),
        _ => None,
    }
}

fn zstd_ddict<'a>(d: Option<&'a DDict<'_>>) -> Option<&'a ::zstd::zstd_safe::DDict<'static>> {
    match d {
        Some(DDict::Zstd(c)) => Some(c),
        _ => None,
    }
}
