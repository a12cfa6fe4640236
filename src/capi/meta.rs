//! Metalayers and variable-length metalayers through the C API (area 9 of API.md).
//!
//! The header-inline `blosc2_meta_exists` / `blosc2_meta_get` read `schunk->nmetalayers` and
//! `schunk->metalayers[i]->{name,content,content_len}` directly, so every change made through
//! the core is mirrored into `malloc`ed `blosc2_metalayer` structs. Variable-length
//! metalayers are mirrored the same way (`content` = the stored, compressed chunk), and
//! `blosc2_vlmeta_get_names` hands out pointers to those names.

use super::context::Kind;
use super::schunk::{free_c_meta, new_c_meta};
use super::schunk::{handle, malloc_copy};
use super::types::*;
use super::{guard, slice};
use crate::Error;
use core::ffi::{c_char, c_int, c_void, CStr};
use core::ptr;

/// A metalayer name from C (`InvalidParam` for NULL or non-UTF-8 names).
///
/// # Safety
/// `name` must be NULL or a NUL-terminated string.
unsafe fn name_of<'a>(name: *const c_char) -> Result<&'a str, Error> {
    if name.is_null() {
        crate::trace_error!("The metalayer name is NULL");
        return Err(Error::InvalidParam);
    }
    // SAFETY: the caller guarantees a NUL-terminated string.
    unsafe { CStr::from_ptr(name) }.to_str().map_err(|_| {
        crate::trace_error!("Metalayer names must be UTF-8");
        Error::InvalidParam
    })
}

/// The `content_len` bytes of `content` (`InvalidParam` for a negative length or NULL).
///
/// # Safety
/// `content` must be readable for `content_len` bytes.
unsafe fn content_of<'a>(content: *const u8, content_len: i32) -> Result<&'a [u8], Error> {
    if content_len < 0 {
        crate::trace_error!("`content_len` cannot be negative");
        return Err(Error::InvalidParam);
    }
    // SAFETY: the caller guarantees the length.
    unsafe { slice(content as *const c_void, content_len as usize) }.ok_or_else(|| {
        crate::trace_error!("The content is NULL");
        Error::InvalidParam
    })
}

fn result(r: Result<usize, Error>) -> c_int {
    match r {
        Ok(n) => n as c_int,
        Err(e) => e.code(),
    }
}

/// Add a fixed-size metalayer; returns its index.
///
/// # Safety
/// `schunk` live; `name` a C string; `content` readable for `content_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_meta_add(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut u8,
    content_len: i32,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::InvalidParam.code();
        };
        // SAFETY: forwarded caller guarantees.
        let r = unsafe { name_of(name).and_then(|n| Ok((n, content_of(content, content_len)?))) }
            .and_then(|(n, c)| {
                let i = h.core.meta_add(n, c)?;
                let m = new_c_meta(n, c);
                if m.is_null() {
                    return Err(Error::MemoryAlloc);
                }
                h.c.metalayers[i] = m;
                h.c.nmetalayers = i as u16 + 1;
                Ok(i)
            });
        h.sync();
        result(r)
    })
}

/// Overwrite the start of an existing metalayer (`content_len` may not exceed its length);
/// returns its index.
///
/// # Safety
/// As `blosc2_meta_add`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_meta_update(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut u8,
    content_len: i32,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::InvalidParam.code();
        };
        // SAFETY: forwarded caller guarantees.
        let r = unsafe { name_of(name).and_then(|n| Ok((n, content_of(content, content_len)?))) }
            .and_then(|(n, c)| {
                let i = h.core.meta_update(n, c)?;
                let new = &h.core.metalayers()[i].content;
                let m = h.c.metalayers[i];
                // SAFETY: our own mirror of metalayer `i`, of the same length as the core's.
                unsafe {
                    if !m.is_null() && (*m).content_len as usize == new.len() {
                        ptr::copy_nonoverlapping(new.as_ptr(), (*m).content, new.len());
                    }
                }
                Ok(i)
            });
        h.sync();
        result(r)
    })
}

/// Whether a variable-length metalayer exists: its index, or `BLOSC2_ERROR_NOT_FOUND`.
///
/// # Safety
/// `schunk` live; `name` a C string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_exists(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::InvalidParam.code();
        };
        if let Err(e) = h.resync() {
            return e.code();
        }
        // SAFETY: the caller guarantees a C string.
        result(unsafe { name_of(name) }.and_then(|n| h.core.vlmeta_exists(n)))
    })
}

/// Compression parameters for a variable-length metalayer (NULL: the defaults), run through
/// a compression context like C-Blosc2 does (environment variables, parameter checks).
///
/// # Safety
/// `cparams` must be NULL or valid.
unsafe fn with_vl_cparams<R>(
    cparams: *const blosc2_cparams,
    f: impl FnOnce(&crate::CParams) -> Result<R, Error>,
) -> Result<R, Error> {
    // SAFETY: checked for NULL.
    let c = unsafe { cparams.as_ref() }
        .copied()
        .unwrap_or(BLOSC2_CPARAMS_DEFAULTS);
    // SAFETY: a plain context constructor.
    let ctx = unsafe { super::context::blosc2_create_cctx(c) };
    // SAFETY: NULL or the live context just created.
    let r = match unsafe { super::context::Context::from_c_ref(ctx) }.map(|c| &c.kind) {
        Some(Kind::Compress(p)) => f(p),
        _ => {
            crate::trace_error!("Error while creating the compression context");
            Err(Error::NullPointer)
        }
    };
    // SAFETY: NULL or the context created above (freed after its last use).
    unsafe { super::context::blosc2_free_ctx(ctx) };
    r
}

/// Add a variable-length metalayer, compressed with `cparams` (NULL: defaults); returns its
/// index.
///
/// # Safety
/// `schunk` live; `name` a C string; `content` readable for `content_len`; `cparams` NULL or
/// valid.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_add(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut u8,
    content_len: i32,
    cparams: *mut blosc2_cparams,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::InvalidParam.code();
        };
        // SAFETY: forwarded caller guarantees.
        let r = unsafe { name_of(name).and_then(|n| Ok((n, content_of(content, content_len)?))) }
            .and_then(|(n, c)| {
                // SAFETY: forwarded caller guarantee on `cparams`.
                let i = unsafe { with_vl_cparams(cparams, |p| h.core.vlmeta_add(n, c, p)) }?;
                let stored = &h.core.vlmetalayers()[i];
                let m = new_c_meta(&stored.name, &stored.content);
                if m.is_null() {
                    let _ = h.core.vlmeta_delete(n);
                    return Err(Error::MemoryAlloc);
                }
                h.c.vlmetalayers[i] = m;
                h.c.nvlmetalayers = i as i16 + 1;
                Ok(i)
            });
        h.sync();
        result(r)
    })
}

/// Replace the content of a variable-length metalayer; returns its index.
///
/// # Safety
/// As `blosc2_vlmeta_add`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_update(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut u8,
    content_len: i32,
    cparams: *mut blosc2_cparams,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::InvalidParam.code();
        };
        if content_len > crate::chunk::header::MAX_BUFFERSIZE {
            // -12 as in C-Blosc2 (blosc2_vlmeta_add fails later, when compressing: -35)
            crate::trace_error!("Variable-length metalayer size is too large.");
            return Error::InvalidParam.code();
        }
        // SAFETY: forwarded caller guarantees.
        let r = unsafe { name_of(name).and_then(|n| Ok((n, content_of(content, content_len)?))) }
            .and_then(|(n, c)| {
                // SAFETY: forwarded caller guarantee on `cparams`.
                let i = unsafe { with_vl_cparams(cparams, |p| h.core.vlmeta_update(n, c, p)) }?;
                let stored = &h.core.vlmetalayers()[i].content;
                let copy = malloc_copy(stored);
                if copy.is_null() {
                    return Err(Error::MemoryAlloc);
                }
                let m = h.c.vlmetalayers[i];
                // SAFETY: our own mirror of vlmetalayer `i`.
                unsafe {
                    libc::free((*m).content as *mut c_void);
                    (*m).content = copy;
                    (*m).content_len = stored.len() as i32;
                }
                Ok(i)
            });
        h.sync();
        result(r)
    })
}

/// The decompressed content of a variable-length metalayer, in a new `malloc`ed buffer (NULL
/// when empty); returns its index.
///
/// # Safety
/// `schunk` live; `name` a C string; `content` and `content_len` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_get(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
    content: *mut *mut u8,
    content_len: *mut i32,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::InvalidParam.code();
        };
        if content.is_null() || content_len.is_null() {
            return Error::InvalidParam.code();
        }
        if let Err(e) = h.resync() {
            return e.code();
        }
        // SAFETY: the caller guarantees a C string.
        let r = unsafe { name_of(name) }.and_then(|n| {
            let i = h.core.vlmeta_exists(n)?;
            let data = h.core.vlmeta_get(n)?;
            let p = if data.is_empty() {
                ptr::null_mut()
            } else {
                let p = malloc_copy(&data);
                if p.is_null() {
                    return Err(Error::MemoryAlloc);
                }
                p
            };
            // SAFETY: checked for NULL.
            unsafe {
                *content = p;
                *content_len = data.len() as i32;
            }
            Ok(i)
        });
        result(r)
    })
}

/// Delete a variable-length metalayer; returns how many are left.
///
/// # Safety
/// `schunk` live; `name` a C string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_delete(
    schunk: *mut blosc2_schunk,
    name: *const c_char,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::InvalidParam.code();
        };
        // SAFETY: the caller guarantees a C string.
        let r = unsafe { name_of(name) }.and_then(|n| {
            let i = h.core.vlmeta_exists(n)?;
            let left = h.core.vlmeta_delete(n)?;
            // SAFETY: `i < nvlmetalayers <= MAX`; our own mirrors, shifted like C-Blosc2.
            unsafe {
                free_c_meta(h.c.vlmetalayers[i]);
                for k in i..left {
                    h.c.vlmetalayers[k] = h.c.vlmetalayers[k + 1];
                }
                h.c.vlmetalayers[left] = ptr::null_mut();
            }
            h.c.nvlmetalayers = left as i16;
            Ok(left)
        });
        h.sync();
        result(r)
    })
}

/// Fill `names` with pointers to the names of the variable-length metalayers (owned by the
/// super-chunk); returns their number.
///
/// # Safety
/// `schunk` live; `names` writable for `nvlmetalayers` pointers.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlmeta_get_names(
    schunk: *mut blosc2_schunk,
    names: *mut *mut c_char,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::InvalidParam.code();
        };
        let n = h.core.vlmetalayers().len();
        if n == 0 {
            return 0;
        }
        if names.is_null() {
            return Error::InvalidParam.code();
        }
        for i in 0..n {
            let m = h.c.vlmetalayers[i];
            // SAFETY: `m` is our own mirror; the caller guarantees `n` writable entries.
            unsafe {
                *names.add(i) = if m.is_null() {
                    ptr::null_mut()
                } else {
                    (*m).name
                }
            };
        }
        n as c_int
    })
}

// ---------------------------------------------------------------------------------------------
// n-dimensional super-chunks (b2nd / caterva metalayer) for blosc2_get_slice_nchunks
// ---------------------------------------------------------------------------------------------
