//! Run-time registries of user codecs and user filters (ids 160..=255), and of the plugin ids
//! that C-Blosc2 reserves (32..=159).

use crate::codecs::StreamInfo;
use crate::error::{Error, Result};
use std::sync::{Arc, RwLock};

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

/// Loads a codec plugin known by name (C-Blosc2 3.3 loads codec plugins when first used): the
/// C layer installs one that finds and loads the plugin's shared library. `None`: not found.
///
/// # Examples
///
/// ```
/// use b2rs::registry::PluginLoader;
///
/// // a loader that never finds anything
/// let none: PluginLoader = |_id, _name| None;
/// assert!(none(39, "j2k").is_none());
/// ```
pub type PluginLoader = fn(id: u8, name: &str) -> Option<Arc<dyn CodecImpl>>;

static LOADER: std::sync::OnceLock<PluginLoader> = std::sync::OnceLock::new();

/// The codec plugins C-Blosc2 3.3 knows by name before any is installed.
const KNOWN_PLUGINS: [(u8, &str); 5] = [
    (36, "openhtj2k"),
    (37, "grok"),
    (38, "openzl"),
    (39, "j2k"),
    (40, "htj2k"),
];

/// Codecs known by name only, to load when first used (`KNOWN_PLUGINS` and user codecs
/// registered without functions), and whether their loading was tried already.
static LAZY: LazyNames = std::sync::Mutex::new(Vec::new());

/// Loads a filter plugin known by name only (a user filter registered without functions);
/// installed by the C layer.
///
/// # Examples
///
/// ```
/// use b2rs::registry::FilterLoader;
///
/// let none: FilterLoader = |_id, _name| None;
/// assert!(none(200, "myfilter").is_none());
/// ```
pub type FilterLoader = fn(id: u8, name: &str) -> Option<Arc<dyn FilterImpl>>;

static FILTER_LOADER: std::sync::OnceLock<FilterLoader> = std::sync::OnceLock::new();

/// Filters known by name only, to load when first used, and whether that was tried.
static LAZY_FILTERS: LazyNames = std::sync::Mutex::new(Vec::new());

/// Install the loader of filter plugins known by name (the first one installed stays).
///
/// # Examples
///
/// ```
/// use b2rs::registry;
///
/// registry::set_filter_loader(|_, _| None);
/// registry::register_lazy_filter(233, "myfilter");
/// // no loader finds it
/// assert!(registry::filter(233).is_none());
/// ```
pub fn set_filter_loader(loader: FilterLoader) {
    let _ = FILTER_LOADER.set(loader);
}

/// Make `name` the filter `id` to load when first used (a user filter registered without
/// functions, as C-Blosc2 allows).
///
/// # Examples
///
/// ```
/// use b2rs::registry;
///
/// registry::register_lazy_filter(234, "otherfilter");
/// registry::set_filter_loader(|_, _| None);
/// assert!(registry::filter(234).is_none());
/// ```
pub fn register_lazy_filter(id: u8, name: &str) {
    remember(&LAZY_FILTERS, id, name);
}

/// Plugins known by name only: (id, name, whether loading was tried).
type LazyNames = std::sync::Mutex<Vec<(u8, String, bool)>>;

/// Note `name` as plugin `id`, not tried yet.
fn remember(lazy: &LazyNames, id: u8, name: &str) {
    let mut lazy = lazy.lock().unwrap_or_else(|e| e.into_inner());
    lazy.retain(|(i, _, _)| *i != id);
    lazy.push((id, name.to_string(), false));
}

/// The name to load plugin `id` under, once per process: `None` when it is known neither in
/// `lazy` nor in `known`, or was tried already.
fn name_to_try(lazy: &mut Vec<(u8, String, bool)>, id: u8, known: &[(u8, &str)]) -> Option<String> {
    match lazy.iter_mut().find(|(i, _, _)| *i == id) {
        Some((_, _, true)) => None,
        Some((_, name, tried)) => {
            *tried = true;
            Some(name.clone())
        }
        None => {
            let (_, name) = known.iter().find(|(i, _)| *i == id)?;
            lazy.push((id, name.to_string(), true));
            Some(name.to_string())
        }
    }
}

/// Load filter `id` when it is known by name only; once per process.
fn load_lazy_filter(id: u8) -> Option<Filter> {
    let loader = FILTER_LOADER.get()?;
    let mut lazy = LAZY_FILTERS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(f) = FILTERS
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|f| f.id == id)
    {
        return Some(f.clone());
    }
    let name = name_to_try(&mut lazy, id, &[])?;
    let imp = loader(id, &name)?;
    let filter = Filter {
        id,
        name,
        version: 1,
        imp,
    };
    FILTERS
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .push(filter.clone());
    Some(filter)
}

/// Install the loader of codec plugins known by name (the first one installed stays).
///
/// # Examples
///
/// ```
/// use b2rs::registry;
///
/// // a loader that finds nothing: codec 39 (j2k) stays unavailable
/// registry::set_plugin_loader(|_, _| None);
/// assert!(registry::codec(39).is_none());
/// ```
pub fn set_plugin_loader(loader: PluginLoader) {
    let _ = LOADER.set(loader);
}

/// Make `name` the codec `id` to load when first used (a user codec registered without
/// functions, as C-Blosc2 allows).
///
/// # Examples
///
/// ```
/// use b2rs::registry;
///
/// registry::register_lazy_codec(222, "mycodec");
/// // nothing loads it here (no loader finds it)
/// registry::set_plugin_loader(|_, _| None);
/// assert!(registry::codec(222).is_none());
/// ```
pub fn register_lazy_codec(id: u8, name: &str) {
    remember(&LAZY, id, name);
}

/// Load codec `id` when it is known by name only; once per process (a second thread waits
/// for the first one's load).
fn load_lazy(id: u8) -> Option<Codec> {
    let loader = LOADER.get()?;
    let mut lazy = LAZY.lock().unwrap_or_else(|e| e.into_inner());
    // loaded by another thread meanwhile
    if let Some(c) = CODECS
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|c| c.id == id)
    {
        return Some(c.clone());
    }
    let name = name_to_try(&mut lazy, id, &KNOWN_PLUGINS)?;
    let imp = loader(id, &name)?;
    let codec = Codec {
        id,
        name,
        complib: id,
        version: 1,
        imp,
    };
    CODECS
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .push(codec.clone());
    Some(codec)
}
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
