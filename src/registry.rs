//! Run-time registries of user codecs and user filters (ids 160..=255), and of the plugin ids
//! that C-Blosc2 reserves (32..=159).

use crate::codecs::StreamInfo;
use crate::error::{Error, Result};
use std::sync::{Arc, RwLock};

/// The behaviour of a registered codec.
pub trait CodecImpl: Send + Sync {
    /// Compress `src` into `dst` (its length is the limit). Returns the number of bytes written,
    /// 0 for "store raw", or a negative error code.
    fn encode(&self, src: &[u8], dst: &mut [u8], info: StreamInfo<'_>) -> i32;
    /// Decompress `src` into `dst`. Returns the number of bytes written or a negative error code.
    fn decode(&self, src: &[u8], dst: &mut [u8], info: StreamInfo<'_>) -> i32;
}

/// The behaviour of a registered filter.
pub trait FilterImpl: Send + Sync {
    /// Forward transform of one block (`src` and `dst` have the same length); `id` is the filter id.
    fn forward(&self, src: &[u8], dst: &mut [u8], info: StreamInfo<'_>, id: u8) -> i32;
    /// Backward transform of one block.
    fn backward(&self, src: &[u8], dst: &mut [u8], info: StreamInfo<'_>, id: u8) -> i32;
}

/// A registered codec.
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
pub fn codec(id: u8) -> Option<Codec> {
    CODECS
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|c| c.id == id)
        .cloned()
}

/// The registered filter with this id.
pub fn filter(id: u8) -> Option<Filter> {
    FILTERS
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|f| f.id == id)
        .cloned()
}

/// The name of a registered codec.
pub fn codec_name(id: u8) -> Option<String> {
    codec(id).map(|c| c.name)
}

/// The id of a registered codec by name.
pub fn codec_id(name: &str) -> Option<u8> {
    CODECS
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .find(|c| c.name == name)
        .map(|c| c.id)
}

/// Names of the registered codecs, in registration order.
pub fn codec_names() -> Vec<String> {
    CODECS
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .map(|c| c.name.clone())
        .collect()
}
