//! Run-time registries of user codecs and user filters (ids 160..=255), and of the plugin ids
//! that C-Blosc2 reserves (32..=159).

mod lazy;

use lazy::{load_lazy, load_lazy_filter};
pub use lazy::{
    register_lazy_codec, register_lazy_filter, set_filter_loader, set_plugin_loader, FilterLoader,
    PluginLoader,
};

use crate::error::{Error, Result};
use std::sync::{Arc, RwLock};

/// What a user codec or filter receives along with the data.
///
/// # Examples
///
/// ```
/// use b2rs::codecs::{self, CodecState, StreamInfo};
/// use b2rs::CParams;
///
/// let cparams = CParams::default();
/// // what a codec sees: no header yet, the compression parameters
/// let info = StreamInfo { meta: 0, chunk: &[], cparams: Some(&cparams), dparams: None };
/// let data = vec![9u8; 1000];
/// let mut out = vec![0u8; 1000];
/// let n = CodecState::default().compress(codecs::ZLIB, 1, &data, &mut out, None, info).unwrap();
/// assert!(n > 0 && n < 100);
/// ```
#[derive(Clone, Copy)]
pub struct StreamInfo<'a> {
    /// The `compcode_meta` byte (codecs) or the filter's meta byte (filters).
    pub meta: u8,
    /// The chunk header being built or read.
    pub chunk: &'a [u8],
    /// The compression parameters, when compressing.
    pub cparams: Option<&'a crate::params::CParams>,
    /// The decompression parameters, when decompressing.
    pub dparams: Option<&'a crate::params::DParams>,
}

/// The behaviour of a registered codec.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use b2rs::codecs::StreamInfo;
/// use b2rs::registry::{self, Codec, CodecImpl};
///
/// /// Keeps one byte of each pair: for data whose bytes come in equal pairs.
/// struct Pairs;
///
/// impl CodecImpl for Pairs {
///     fn encode(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>) -> i32 {
///         if src.len() % 2 != 0 || dst.len() < src.len() / 2 || src.chunks(2).any(|p| p[0] != p[1]) {
///             return 0; // store raw
///         }
///         for (d, p) in dst.iter_mut().zip(src.chunks(2)) {
///             *d = p[0];
///         }
///         (src.len() / 2) as i32
///     }
///     fn decode(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>) -> i32 {
///         if dst.len() != 2 * src.len() {
///             return -1;
///         }
///         for (p, s) in dst.chunks_mut(2).zip(src) {
///             p.fill(*s);
///         }
///         dst.len() as i32
///     }
/// }
/// use b2rs::{chunk, CParams, DParams, SplitMode};
///
/// registry::register_codec(Codec {
///     id: 200, name: "pairs".into(), complib: 200, version: 1, imp: Arc::new(Pairs),
/// }).unwrap();
/// let data: Vec<u8> = (0..2000u32).map(|i| (i / 2 % 251) as u8).collect();
/// let cparams = CParams {
///     compcode: 200, typesize: 1, filters: [0; 6], splitmode: SplitMode::Never, ..CParams::default()
/// };
/// let mut out = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
/// let n = chunk::compress(&cparams, &data, &mut out).unwrap();
/// assert!(n < data.len());
/// let mut back = vec![0u8; data.len()];
/// chunk::decompress(&DParams::default(), &out[..n], &mut back, None).unwrap();
/// assert_eq!(back, data);
/// ```
pub trait CodecImpl: Send + Sync {
    /// Compress `src` into `dst` (its length is the limit). Returns the number of bytes written,
    /// 0 for "store raw", or a negative error code.
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use b2rs::codecs::StreamInfo;
    /// # use b2rs::registry::{self, Codec, CodecImpl};
    /// #
    /// # /// Keeps one byte of each pair: for data whose bytes come in equal pairs.
    /// # struct Pairs;
    /// #
    /// # impl CodecImpl for Pairs {
    /// #     fn encode(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>) -> i32 {
    /// #         if src.len() % 2 != 0 || dst.len() < src.len() / 2 || src.chunks(2).any(|p| p[0] != p[1]) {
    /// #             return 0; // store raw
    /// #         }
    /// #         for (d, p) in dst.iter_mut().zip(src.chunks(2)) {
    /// #             *d = p[0];
    /// #         }
    /// #         (src.len() / 2) as i32
    /// #     }
    /// #     fn decode(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>) -> i32 {
    /// #         if dst.len() != 2 * src.len() {
    /// #             return -1;
    /// #         }
    /// #         for (p, s) in dst.chunks_mut(2).zip(src) {
    /// #             p.fill(*s);
    /// #         }
    /// #         dst.len() as i32
    /// #     }
    /// # }
    /// let info = StreamInfo { meta: 0, chunk: &[], cparams: None, dparams: None };
    /// let mut dst = [0u8; 4];
    /// assert_eq!(Pairs.encode(&[1, 1, 2, 2], &mut dst, info), 2);
    /// assert_eq!(&dst[..2], &[1, 2]);
    /// ```
    fn encode(&self, src: &[u8], dst: &mut [u8], info: StreamInfo<'_>) -> i32;
    /// Decompress `src` into `dst`. Returns the number of bytes written or a negative error code.
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use b2rs::codecs::StreamInfo;
    /// # use b2rs::registry::{self, Codec, CodecImpl};
    /// #
    /// # /// Keeps one byte of each pair: for data whose bytes come in equal pairs.
    /// # struct Pairs;
    /// #
    /// # impl CodecImpl for Pairs {
    /// #     fn encode(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>) -> i32 {
    /// #         if src.len() % 2 != 0 || dst.len() < src.len() / 2 || src.chunks(2).any(|p| p[0] != p[1]) {
    /// #             return 0; // store raw
    /// #         }
    /// #         for (d, p) in dst.iter_mut().zip(src.chunks(2)) {
    /// #             *d = p[0];
    /// #         }
    /// #         (src.len() / 2) as i32
    /// #     }
    /// #     fn decode(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>) -> i32 {
    /// #         if dst.len() != 2 * src.len() {
    /// #             return -1;
    /// #         }
    /// #         for (p, s) in dst.chunks_mut(2).zip(src) {
    /// #             p.fill(*s);
    /// #         }
    /// #         dst.len() as i32
    /// #     }
    /// # }
    /// let info = StreamInfo { meta: 0, chunk: &[], cparams: None, dparams: None };
    /// let mut dst = [0u8; 4];
    /// assert_eq!(Pairs.decode(&[1, 2], &mut dst, info), 4);
    /// assert_eq!(dst, [1, 1, 2, 2]);
    /// ```
    fn decode(&self, src: &[u8], dst: &mut [u8], info: StreamInfo<'_>) -> i32;
}

/// The behaviour of a registered filter.
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use b2rs::codecs::StreamInfo;
/// use b2rs::registry::{self, Filter, FilterImpl};
///
/// /// Adds 1 to every byte (forward), subtracts it again (backward).
/// struct PlusOne;
///
/// impl FilterImpl for PlusOne {
///     fn forward(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>, _id: u8) -> i32 {
///         for (d, s) in dst.iter_mut().zip(src) {
///             *d = s.wrapping_add(1);
///         }
///         0
///     }
///     fn backward(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>, _id: u8) -> i32 {
///         for (d, s) in dst.iter_mut().zip(src) {
///             *d = s.wrapping_sub(1);
///         }
///         0
///     }
/// }
/// use b2rs::{chunk, CParams, DParams};
///
/// registry::register_filter(Filter { id: 170, name: "plus1".into(), version: 1, imp: Arc::new(PlusOne) })
///     .unwrap();
/// let data: Vec<u8> = (0..1000u32).map(|i| i as u8).collect();
/// let cparams = CParams { typesize: 1, filters: [0, 0, 0, 0, 0, 170], ..CParams::default() };
/// let mut out = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
/// let n = chunk::compress(&cparams, &data, &mut out).unwrap();
/// let mut back = vec![0u8; data.len()];
/// chunk::decompress(&DParams::default(), &out[..n], &mut back, None).unwrap();
/// assert_eq!(back, data);
/// ```
pub trait FilterImpl: Send + Sync {
    /// Forward transform of one block (`src` and `dst` have the same length); `id` is the filter id.
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use b2rs::codecs::StreamInfo;
    /// # use b2rs::registry::{self, Filter, FilterImpl};
    /// #
    /// # /// Adds 1 to every byte (forward), subtracts it again (backward).
    /// # struct PlusOne;
    /// #
    /// # impl FilterImpl for PlusOne {
    /// #     fn forward(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>, _id: u8) -> i32 {
    /// #         for (d, s) in dst.iter_mut().zip(src) {
    /// #             *d = s.wrapping_add(1);
    /// #         }
    /// #         0
    /// #     }
    /// #     fn backward(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>, _id: u8) -> i32 {
    /// #         for (d, s) in dst.iter_mut().zip(src) {
    /// #             *d = s.wrapping_sub(1);
    /// #         }
    /// #         0
    /// #     }
    /// # }
    /// let info = StreamInfo { meta: 0, chunk: &[], cparams: None, dparams: None };
    /// let mut dst = [0u8; 3];
    /// assert_eq!(PlusOne.forward(&[0, 1, 255], &mut dst, info, 170), 0);
    /// assert_eq!(dst, [1, 2, 0]);
    /// ```
    fn forward(&self, src: &[u8], dst: &mut [u8], info: StreamInfo<'_>, id: u8) -> i32;
    /// Backward transform of one block.
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use b2rs::codecs::StreamInfo;
    /// # use b2rs::registry::{self, Filter, FilterImpl};
    /// #
    /// # /// Adds 1 to every byte (forward), subtracts it again (backward).
    /// # struct PlusOne;
    /// #
    /// # impl FilterImpl for PlusOne {
    /// #     fn forward(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>, _id: u8) -> i32 {
    /// #         for (d, s) in dst.iter_mut().zip(src) {
    /// #             *d = s.wrapping_add(1);
    /// #         }
    /// #         0
    /// #     }
    /// #     fn backward(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>, _id: u8) -> i32 {
    /// #         for (d, s) in dst.iter_mut().zip(src) {
    /// #             *d = s.wrapping_sub(1);
    /// #         }
    /// #         0
    /// #     }
    /// # }
    /// let info = StreamInfo { meta: 0, chunk: &[], cparams: None, dparams: None };
    /// let mut dst = [0u8; 3];
    /// assert_eq!(PlusOne.backward(&[1, 2, 0], &mut dst, info, 170), 0);
    /// assert_eq!(dst, [0, 1, 255]);
    /// ```
    fn backward(&self, src: &[u8], dst: &mut [u8], info: StreamInfo<'_>, id: u8) -> i32;
}

/// A registered codec.
///
/// # Examples
///
/// ```
/// # use std::sync::Arc;
/// # use b2rs::codecs::StreamInfo;
/// # use b2rs::registry::{self, Codec, CodecImpl};
/// #
/// # /// Keeps one byte of each pair: for data whose bytes come in equal pairs.
/// # struct Pairs;
/// #
/// # impl CodecImpl for Pairs {
/// #     fn encode(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>) -> i32 {
/// #         if src.len() % 2 != 0 || dst.len() < src.len() / 2 || src.chunks(2).any(|p| p[0] != p[1]) {
/// #             return 0; // store raw
/// #         }
/// #         for (d, p) in dst.iter_mut().zip(src.chunks(2)) {
/// #             *d = p[0];
/// #         }
/// #         (src.len() / 2) as i32
/// #     }
/// #     fn decode(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>) -> i32 {
/// #         if dst.len() != 2 * src.len() {
/// #             return -1;
/// #         }
/// #         for (p, s) in dst.chunks_mut(2).zip(src) {
/// #             p.fill(*s);
/// #         }
/// #         dst.len() as i32
/// #     }
/// # }
/// let codec = Codec { id: 201, name: "pairs".into(), complib: 201, version: 1, imp: Arc::new(Pairs) };
/// registry::register_codec(codec.clone()).unwrap();
/// let found = registry::codec(201).unwrap();
/// assert_eq!((found.name.as_str(), found.version), ("pairs", 1));
/// ```
#[derive(Clone)]
pub struct Codec {
    /// Its id (32..=255).
    pub id: u8,
    /// Its name.
    pub name: String,
    /// The library code it declares.
    pub complib: u8,
    /// Its version.
    pub version: u8,
    /// Its encoder and decoder.
    pub imp: Arc<dyn CodecImpl>,
}

/// A registered filter.
///
/// # Examples
///
/// ```
/// # use std::sync::Arc;
/// # use b2rs::codecs::StreamInfo;
/// # use b2rs::registry::{self, Filter, FilterImpl};
/// #
/// # /// Adds 1 to every byte (forward), subtracts it again (backward).
/// # struct PlusOne;
/// #
/// # impl FilterImpl for PlusOne {
/// #     fn forward(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>, _id: u8) -> i32 {
/// #         for (d, s) in dst.iter_mut().zip(src) {
/// #             *d = s.wrapping_add(1);
/// #         }
/// #         0
/// #     }
/// #     fn backward(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>, _id: u8) -> i32 {
/// #         for (d, s) in dst.iter_mut().zip(src) {
/// #             *d = s.wrapping_sub(1);
/// #         }
/// #         0
/// #     }
/// # }
/// let filter = Filter { id: 171, name: "plus1".into(), version: 2, imp: Arc::new(PlusOne) };
/// registry::register_filter(filter).unwrap();
/// assert_eq!(registry::filter(171).unwrap().version, 2);
/// ```
#[derive(Clone)]
pub struct Filter {
    /// Its id (32..=255).
    pub id: u8,
    /// Its name.
    pub name: String,
    /// Its version.
    pub version: u8,
    /// Its forward and backward functions.
    pub imp: Arc<dyn FilterImpl>,
}

/// First id of user-registered codecs and filters.
pub const USER_START: u8 = 160;
/// First id of globally registered plugins.
pub const GLOBAL_START: u8 = 32;
/// Most user filters or codecs that can be registered (`BLOSC2_MAX_UDFILTERS`).
pub const MAX_USER: usize = 16;

static CODECS: RwLock<Vec<Codec>> = RwLock::new(Vec::new());

static FILTERS: RwLock<Vec<Filter>> = RwLock::new(Vec::new());

/// Register a user codec. Ids below 160 are refused (those are Blosc's: `CodecParam`, as in
/// C-Blosc2), as are duplicates.
///
/// # Examples
///
/// ```
/// # use std::sync::Arc;
/// # use b2rs::codecs::StreamInfo;
/// # use b2rs::registry::{self, Codec, CodecImpl};
/// #
/// # /// Keeps one byte of each pair: for data whose bytes come in equal pairs.
/// # struct Pairs;
/// #
/// # impl CodecImpl for Pairs {
/// #     fn encode(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>) -> i32 {
/// #         if src.len() % 2 != 0 || dst.len() < src.len() / 2 || src.chunks(2).any(|p| p[0] != p[1]) {
/// #             return 0; // store raw
/// #         }
/// #         for (d, p) in dst.iter_mut().zip(src.chunks(2)) {
/// #             *d = p[0];
/// #         }
/// #         (src.len() / 2) as i32
/// #     }
/// #     fn decode(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>) -> i32 {
/// #         if dst.len() != 2 * src.len() {
/// #             return -1;
/// #         }
/// #         for (p, s) in dst.chunks_mut(2).zip(src) {
/// #             p.fill(*s);
/// #         }
/// #         dst.len() as i32
/// #     }
/// # }
/// use b2rs::Error;
///
/// let pairs = |id| Codec { id, name: "pairs".into(), complib: 1, version: 1, imp: Arc::new(Pairs) };
/// registry::register_codec(pairs(202)).unwrap();
/// assert_eq!(b2rs::codecs::id_of("pairs"), Some(202));
/// // ids below 160 belong to Blosc
/// assert_eq!(registry::register_codec(pairs(40)).unwrap_err(), Error::CodecParam);
/// ```
pub fn register_codec(codec: Codec) -> Result<()> {
    if codec.id < USER_START {
        crate::trace_error!("The compcode must be greater or equal than {}", USER_START);
        return Err(Error::CodecParam);
    }
    let mut v = CODECS.write().unwrap_or_else(|e| e.into_inner());
    if let Some(existing) = v.iter_mut().find(|c| c.id == codec.id) {
        if existing.name == codec.name {
            // C-Blosc2 accepts re-registering the same codec under the same name.
            *existing = codec;
            return Ok(());
        }
        crate::trace_error!("The codec {} is already registered", codec.id);
        return Err(Error::CodecParam);
    }
    if v.len() >= MAX_USER * 8 {
        return Err(Error::CodecParam);
    }
    v.push(codec);
    Ok(())
}

/// Register a user filter. Ids below 160 are refused (`Failure`, as in C-Blosc2), as are
/// duplicates.
///
/// # Examples
///
/// ```
/// # use std::sync::Arc;
/// # use b2rs::codecs::StreamInfo;
/// # use b2rs::registry::{self, Filter, FilterImpl};
/// #
/// # /// Adds 1 to every byte (forward), subtracts it again (backward).
/// # struct PlusOne;
/// #
/// # impl FilterImpl for PlusOne {
/// #     fn forward(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>, _id: u8) -> i32 {
/// #         for (d, s) in dst.iter_mut().zip(src) {
/// #             *d = s.wrapping_add(1);
/// #         }
/// #         0
/// #     }
/// #     fn backward(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>, _id: u8) -> i32 {
/// #         for (d, s) in dst.iter_mut().zip(src) {
/// #             *d = s.wrapping_sub(1);
/// #         }
/// #         0
/// #     }
/// # }
/// use b2rs::Error;
///
/// let plus1 = |id, name: &str| Filter { id, name: name.into(), version: 1, imp: Arc::new(PlusOne) };
/// registry::register_filter(plus1(172, "plus1")).unwrap();
/// assert!(registry::filter(172).is_some());
/// assert_eq!(registry::register_filter(plus1(40, "low")).unwrap_err(), Error::Failure);
/// // another filter under a taken id
/// assert_eq!(registry::register_filter(plus1(172, "other")).unwrap_err(), Error::FilterPipeline);
/// ```
pub fn register_filter(filter: Filter) -> Result<()> {
    if filter.id < USER_START {
        crate::trace_error!("The id must be greater or equal than {}", USER_START);
        return Err(Error::Failure);
    }
    let mut v = FILTERS.write().unwrap_or_else(|e| e.into_inner());
    if let Some(existing) = v.iter_mut().find(|f| f.id == filter.id) {
        if existing.name == filter.name {
            *existing = filter;
            return Ok(());
        }
        crate::trace_error!("The filter {} is already registered", filter.id);
        return Err(Error::FilterPipeline);
    }
    if v.len() >= MAX_USER * 8 {
        return Err(Error::FilterPipeline);
    }
    v.push(filter);
    Ok(())
}

/// The registered codec with this id.
///
/// # Examples
///
/// ```
/// # use std::sync::Arc;
/// # use b2rs::codecs::StreamInfo;
/// # use b2rs::registry::{self, Codec, CodecImpl};
/// #
/// # /// Keeps one byte of each pair: for data whose bytes come in equal pairs.
/// # struct Pairs;
/// #
/// # impl CodecImpl for Pairs {
/// #     fn encode(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>) -> i32 {
/// #         if src.len() % 2 != 0 || dst.len() < src.len() / 2 || src.chunks(2).any(|p| p[0] != p[1]) {
/// #             return 0; // store raw
/// #         }
/// #         for (d, p) in dst.iter_mut().zip(src.chunks(2)) {
/// #             *d = p[0];
/// #         }
/// #         (src.len() / 2) as i32
/// #     }
/// #     fn decode(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>) -> i32 {
/// #         if dst.len() != 2 * src.len() {
/// #             return -1;
/// #         }
/// #         for (p, s) in dst.chunks_mut(2).zip(src) {
/// #             p.fill(*s);
/// #         }
/// #         dst.len() as i32
/// #     }
/// # }
/// assert!(registry::codec(203).is_none());
/// registry::register_codec(Codec { id: 203, name: "p".into(), complib: 1, version: 1, imp: Arc::new(Pairs) })
///     .unwrap();
/// assert_eq!(registry::codec(203).unwrap().id, 203);
/// ```
pub fn codec(id: u8) -> Option<Codec> {
    let found = CODECS
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|c| c.id == id)
        .cloned();
    found.or_else(|| load_lazy(id))
}

/// The registered filter with this id.
///
/// # Examples
///
/// ```
/// # use std::sync::Arc;
/// # use b2rs::codecs::StreamInfo;
/// # use b2rs::registry::{self, Filter, FilterImpl};
/// #
/// # /// Adds 1 to every byte (forward), subtracts it again (backward).
/// # struct PlusOne;
/// #
/// # impl FilterImpl for PlusOne {
/// #     fn forward(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>, _id: u8) -> i32 {
/// #         for (d, s) in dst.iter_mut().zip(src) {
/// #             *d = s.wrapping_add(1);
/// #         }
/// #         0
/// #     }
/// #     fn backward(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>, _id: u8) -> i32 {
/// #         for (d, s) in dst.iter_mut().zip(src) {
/// #             *d = s.wrapping_sub(1);
/// #         }
/// #         0
/// #     }
/// # }
/// assert!(registry::filter(173).is_none());
/// registry::register_filter(Filter { id: 173, name: "p1".into(), version: 1, imp: Arc::new(PlusOne) })
///     .unwrap();
/// assert_eq!(registry::filter(173).unwrap().name, "p1");
/// ```
pub fn filter(id: u8) -> Option<Filter> {
    let found = FILTERS
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|f| f.id == id)
        .cloned();
    found.or_else(|| load_lazy_filter(id))
}

/// The name of a registered codec.
///
/// # Examples
///
/// ```
/// # use std::sync::Arc;
/// # use b2rs::codecs::StreamInfo;
/// # use b2rs::registry::{self, Codec, CodecImpl};
/// #
/// # /// Keeps one byte of each pair: for data whose bytes come in equal pairs.
/// # struct Pairs;
/// #
/// # impl CodecImpl for Pairs {
/// #     fn encode(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>) -> i32 {
/// #         if src.len() % 2 != 0 || dst.len() < src.len() / 2 || src.chunks(2).any(|p| p[0] != p[1]) {
/// #             return 0; // store raw
/// #         }
/// #         for (d, p) in dst.iter_mut().zip(src.chunks(2)) {
/// #             *d = p[0];
/// #         }
/// #         (src.len() / 2) as i32
/// #     }
/// #     fn decode(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>) -> i32 {
/// #         if dst.len() != 2 * src.len() {
/// #             return -1;
/// #         }
/// #         for (p, s) in dst.chunks_mut(2).zip(src) {
/// #             p.fill(*s);
/// #         }
/// #         dst.len() as i32
/// #     }
/// # }
/// registry::register_codec(Codec { id: 204, name: "pairs".into(), complib: 1, version: 1, imp: Arc::new(Pairs) })
///     .unwrap();
/// assert_eq!(registry::codec_name(204).as_deref(), Some("pairs"));
/// assert_eq!(registry::codec_name(205), None);
/// ```
pub fn codec_name(id: u8) -> Option<String> {
    codec(id).map(|c| c.name)
}

/// The id of a registered codec by name.
///
/// # Examples
///
/// ```
/// # use std::sync::Arc;
/// # use b2rs::codecs::StreamInfo;
/// # use b2rs::registry::{self, Codec, CodecImpl};
/// #
/// # /// Keeps one byte of each pair: for data whose bytes come in equal pairs.
/// # struct Pairs;
/// #
/// # impl CodecImpl for Pairs {
/// #     fn encode(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>) -> i32 {
/// #         if src.len() % 2 != 0 || dst.len() < src.len() / 2 || src.chunks(2).any(|p| p[0] != p[1]) {
/// #             return 0; // store raw
/// #         }
/// #         for (d, p) in dst.iter_mut().zip(src.chunks(2)) {
/// #             *d = p[0];
/// #         }
/// #         (src.len() / 2) as i32
/// #     }
/// #     fn decode(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>) -> i32 {
/// #         if dst.len() != 2 * src.len() {
/// #             return -1;
/// #         }
/// #         for (p, s) in dst.chunks_mut(2).zip(src) {
/// #             p.fill(*s);
/// #         }
/// #         dst.len() as i32
/// #     }
/// # }
/// registry::register_codec(Codec { id: 206, name: "pairs".into(), complib: 1, version: 1, imp: Arc::new(Pairs) })
///     .unwrap();
/// assert_eq!(registry::codec_id("pairs"), Some(206));
/// assert_eq!(registry::codec_id("nope"), None);
/// ```
pub fn codec_id(name: &str) -> Option<u8> {
    CODECS
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|c| c.name == name)
        .map(|c| c.id)
}

/// Names of the registered codecs, in registration order.
///
/// # Examples
///
/// ```
/// # use std::sync::Arc;
/// # use b2rs::codecs::StreamInfo;
/// # use b2rs::registry::{self, Codec, CodecImpl};
/// #
/// # /// Keeps one byte of each pair: for data whose bytes come in equal pairs.
/// # struct Pairs;
/// #
/// # impl CodecImpl for Pairs {
/// #     fn encode(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>) -> i32 {
/// #         if src.len() % 2 != 0 || dst.len() < src.len() / 2 || src.chunks(2).any(|p| p[0] != p[1]) {
/// #             return 0; // store raw
/// #         }
/// #         for (d, p) in dst.iter_mut().zip(src.chunks(2)) {
/// #             *d = p[0];
/// #         }
/// #         (src.len() / 2) as i32
/// #     }
/// #     fn decode(&self, src: &[u8], dst: &mut [u8], _info: StreamInfo<'_>) -> i32 {
/// #         if dst.len() != 2 * src.len() {
/// #             return -1;
/// #         }
/// #         for (p, s) in dst.chunks_mut(2).zip(src) {
/// #             p.fill(*s);
/// #         }
/// #         dst.len() as i32
/// #     }
/// # }
/// let pairs = |id, name: &str| Codec { id, name: name.into(), complib: 1, version: 1, imp: Arc::new(Pairs) };
/// registry::register_codec(pairs(207, "first")).unwrap();
/// registry::register_codec(pairs(208, "second")).unwrap();
/// assert_eq!(registry::codec_names(), ["first", "second"]);
/// ```
pub fn codec_names() -> Vec<String> {
    CODECS
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .map(|c| c.name.clone())
        .collect()
}
