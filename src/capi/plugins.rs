//! Registration of user codecs, filters and tuners (area 11 of the API).

use super::callbacks::{CCodec, CFilter};
use super::global::NAMES;
use super::guard;
use super::types::*;
use crate::registry;
use crate::Error;
use core::ffi::{c_char, c_int, CStr};
use std::sync::Arc;

fn name_of(p: *const c_char) -> Option<String> {
    if p.is_null() {
        return None;
    }
    // SAFETY: the caller of the registration guarantees a NUL-terminated name.
    Some(unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

/// Register a user codec (ids 160..=255).
///
/// # Safety
/// `codec` must point to a valid struct whose name is NUL-terminated; its callbacks must stay
/// valid for the life of the process.
#[no_mangle]
pub unsafe extern "C" fn blosc2_register_codec(codec: *mut blosc2_codec) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: checked for NULL.
        let Some(c) = (unsafe { codec.as_ref() }) else {
            return Error::NullPointer.code();
        };
        // the id is checked first, as C-Blosc2 does
        if c.compcode < registry::USER_START {
            crate::trace_error!(
                "The compcode must be greater or equal than {}",
                registry::USER_START
            );
            return Error::CodecParam.code();
        }
        let Some(name) = name_of(c.compname) else {
            return Error::NullPointer.code();
        };
        let cname = std::ffi::CString::new(name.clone()).unwrap_or_default();
        let r = if c.encoder.is_none() && c.decoder.is_none() {
            // as C-Blosc2: a codec registered by name only is a plugin, loaded when first used
            super::plugin_loader::install();
            registry::register_lazy_codec(c.compcode, &name);
            Ok(())
        } else {
            registry::register_codec(registry::Codec {
                id: c.compcode,
                name,
                complib: c.complib,
                version: c.version,
                imp: Arc::new(CCodec {
                    encoder: c.encoder,
                    decoder: c.decoder,
                    plugin: false,
                }),
            })
        };
        match r {
            Ok(()) => {
                // kept for the life of the process (only when registered: a refused
                // registration must not leak it)
                let cname: &'static CStr = Box::leak(cname.into_boxed_c_str());
                NAMES
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((c.compcode, cname));
                0
            }
            Err(e) => e.code(),
        }
    })
}

/// Register a user filter (ids 160..=255).
///
/// # Safety
/// `filter` must point to a valid struct; its callbacks must stay valid for the process's life.
#[no_mangle]
pub unsafe extern "C" fn blosc2_register_filter(filter: *mut blosc2_filter) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: checked for NULL.
        let Some(f) = (unsafe { filter.as_ref() }) else {
            return Error::NullPointer.code();
        };
        let name = name_of(f.name).unwrap_or_default();
        if f.forward.is_none() && f.backward.is_none() && !name.is_empty() {
            if f.id < registry::USER_START {
                crate::trace_error!(
                    "The id must be greater or equal to {}",
                    registry::USER_START
                );
                return Error::Failure.code();
            }
            // as C-Blosc2: a filter registered by name only is a plugin, loaded when first used
            super::plugin_loader::install();
            registry::register_lazy_filter(f.id, &name);
            return 0;
        }
        let r = registry::register_filter(registry::Filter {
            id: f.id,
            name,
            version: f.version,
            imp: Arc::new(CFilter {
                forward: f.forward,
                backward: f.backward,
            }),
        });
        match r {
            Ok(()) => 0,
            Err(e) => e.code(),
        }
    })
}

/// Register a tuner (ids 160..=255; the functions left NULL are loaded by name when first
/// needed, from `libblosc2_<name>.so`).
///
/// # Safety
/// `tuner` must point to a valid struct (or be NULL); its functions stay callable for the life
/// of the process.
#[no_mangle]
pub unsafe extern "C" fn blosc2_register_tuner(tuner: *mut blosc2_tuner) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: checked for NULL; the caller guarantees a valid struct.
        let Some(t) = (unsafe { tuner.as_ref() }) else {
            return Error::NullPointer.code();
        };
        match super::tuner::register(t) {
            Ok(()) => 0,
            Err(e) => e.code(),
        }
    })
}
