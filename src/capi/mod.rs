//! The C-Blosc2 3.3 C API: the only place with `extern "C"`, `#[repr(C)]` types and raw pointers.
//!
//! Every exported function turns its raw pointers into references or slices at the top (returning
//! the reference's error code for NULL or impossible sizes), calls the safe core, and maps the
//! core's [`Error`](crate::Error) to a `BLOSC2_ERROR_*` code. The `guard` function catches any
//! panic so that none unwinds into C.
#![allow(non_camel_case_types, missing_docs, clippy::missing_safety_doc)]

pub mod b2nd;
pub mod b2nd_array;
pub mod b2rs;
pub mod blosc1;
pub mod callbacks;
pub mod chunk;
pub mod consts;
pub mod context;
pub mod frame;
pub mod global;
pub mod io;
pub mod meta;
pub mod plugin_loader;
pub mod plugins;
pub mod private_context;
pub mod schunk;
pub mod stdio;
pub mod tuner;
pub mod types;
pub mod util;

use std::panic::{catch_unwind, AssertUnwindSafe};

/// Run `f`, turning a panic into `on_panic` (with a trace message).
pub(crate) fn guard<R>(on_panic: R, f: impl FnOnce() -> R) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => {
            crate::trace_error!("internal error (panic) caught at the C boundary");
            on_panic
        }
    }
}

/// Map a core result carrying a length to the C convention (length or negative error code).
pub(crate) fn code_of(r: crate::Result<usize>) -> i32 {
    match r {
        Ok(n) => n as i32,
        Err(e) => e.code(),
    }
}

/// A byte slice from a C pointer and length; `None` for NULL with a non-zero length.
///
/// # Safety
/// `p` must be valid for reads of `len` bytes when non-null.
pub(crate) unsafe fn slice<'a>(p: *const core::ffi::c_void, len: usize) -> Option<&'a [u8]> {
    if len == 0 {
        return Some(&[]);
    }
    if p.is_null() {
        return None;
    }
    // SAFETY: the caller guarantees `p` is valid for `len` bytes.
    Some(unsafe { core::slice::from_raw_parts(p as *const u8, len) })
}

/// A mutable byte slice from a C pointer and length; `None` for NULL with a non-zero length.
///
/// # Safety
/// `p` must be valid for writes of `len` bytes when non-null, and not aliased.
pub(crate) unsafe fn slice_mut<'a>(p: *mut core::ffi::c_void, len: usize) -> Option<&'a mut [u8]> {
    if len == 0 {
        return Some(&mut []);
    }
    if p.is_null() {
        return None;
    }
    // SAFETY: the caller guarantees `p` is valid for `len` writable bytes.
    Some(unsafe { core::slice::from_raw_parts_mut(p as *mut u8, len) })
}

/// Read the chunk length from a header (its `cbytes` field) to bound a C buffer of unknown size.
///
/// # Safety
/// `p` must point to at least 16 readable bytes.
pub(crate) unsafe fn header_cbytes(p: *const core::ffi::c_void) -> i32 {
    // SAFETY: the caller guarantees 16 readable bytes.
    let h = unsafe { core::slice::from_raw_parts(p as *const u8, 16) };
    i32::from_le_bytes([h[12], h[13], h[14], h[15]])
}
