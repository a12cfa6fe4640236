//! Plugins known by name only (C-Blosc2 3.3's codec plugins, and user codecs and filters
//! registered without functions), loaded once per process when first used through the loaders
//! the C layer installs.

use super::*;

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

pub(super) static LOADER: std::sync::OnceLock<PluginLoader> = std::sync::OnceLock::new();

/// The codec plugins C-Blosc2 3.3 knows by name before any is installed.
pub(super) const KNOWN_PLUGINS: [(u8, &str); 5] = [
    (36, "openhtj2k"),
    (37, "grok"),
    (38, "openzl"),
    (39, "j2k"),
    (40, "htj2k"),
];

/// Codecs known by name only, to load when first used (`KNOWN_PLUGINS` and user codecs
/// registered without functions), and whether their loading was tried already.
pub(super) static LAZY: LazyNames = std::sync::Mutex::new(Vec::new());

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

pub(super) static FILTER_LOADER: std::sync::OnceLock<FilterLoader> = std::sync::OnceLock::new();

/// Filters known by name only, to load when first used, and whether that was tried.
pub(super) static LAZY_FILTERS: LazyNames = std::sync::Mutex::new(Vec::new());

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
pub(super) type LazyNames = std::sync::Mutex<Vec<(u8, String, bool)>>;

/// Note `name` as plugin `id`, not tried yet.
pub(super) fn remember(lazy: &LazyNames, id: u8, name: &str) {
    let mut lazy = lazy.lock().unwrap_or_else(|e| e.into_inner());
    lazy.retain(|(i, _, _)| *i != id);
    lazy.push((id, name.to_string(), false));
}

/// The name to load plugin `id` under, once per process: `None` when it is known neither in
/// `lazy` nor in `known`, or was tried already.
pub(super) fn name_to_try(
    lazy: &mut Vec<(u8, String, bool)>,
    id: u8,
    known: &[(u8, &str)],
) -> Option<String> {
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
pub(super) fn load_lazy_filter(id: u8) -> Option<Filter> {
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
pub(super) fn load_lazy(id: u8) -> Option<Codec> {
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
