//! The blosc1-style API on global state, and the context-less `blosc2_compress`/`decompress`
//! (area 1 of the API, plus `blosc2_set_delta`).

use super::context::{env_compcode, env_shuffle, env_splitmode, env_str, env_strtol};
use super::global::{BLOCKSIZE, COMPRESSOR, DELTA, NTHREADS, SPLITMODE};
use super::{code_of, guard, header_cbytes, slice, slice_mut};
use crate::chunk;
use crate::params::{filter_id, CParams, DParams, SplitMode};
use crate::Error;
use core::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::Ordering;
fn fail() -> c_int {
    Error::Failure.code()
}

/// The parameters of the context-less API from the arguments, the global state and the
/// environment, read as C-Blosc2's `blosc2_compress` does on every call:
/// `BLOSC_CLEVEL` (>= 0) and `BLOSC_SHUFFLE`, `BLOSC_TYPESIZE` (> 0) replace the arguments;
/// `BLOSC_DELTA` ("1"/"0"), `BLOSC_COMPRESSOR` (unknown names fail with -7), `BLOSC_BLOCKSIZE`
/// (> 0), `BLOSC_NTHREADS` (> 0) and `BLOSC_SPLITMODE` change the global settings for good, as
/// the matching setters would; `BLOSC_BLOSC1_COMPAT` (any value) asks for 16-byte headers.
fn global_cparams(clevel: c_int, doshuffle: c_int, typesize: i32) -> Result<CParams, Error> {
    let mut clevel = clevel;
    if let Some(v) = env_strtol("BLOSC_CLEVEL") {
        if v >= 0 {
            clevel = v as c_int;
        }
    }
    let mut doshuffle = doshuffle;
    if let Some(f) = env_shuffle() {
        doshuffle = f as c_int;
    }
    match env_str("BLOSC_DELTA").as_deref() {
        Some("1") => DELTA.store(1, Ordering::Relaxed),
        Some("0") => DELTA.store(0, Ordering::Relaxed),
        _ => {}
    }
    let mut typesize = typesize;
    if let Some(v) = env_strtol("BLOSC_TYPESIZE") {
        if v > 0 && v <= i32::MAX as i64 {
            typesize = v as i32;
        }
    }
    if let Some(code) = env_compcode() {
        if code < 0 {
            crate::trace_error!("The codec in BLOSC_COMPRESSOR is not supported");
            return Err(Error::CodecSupport);
        }
        COMPRESSOR.store(code as u8, Ordering::Relaxed);
    }
    if let Some(v) = env_strtol("BLOSC_BLOCKSIZE") {
        if v > 0 {
            BLOCKSIZE.store(v.min(i32::MAX as i64) as i32, Ordering::Relaxed);
        }
    }
    if let Some(v) = env_strtol("BLOSC_NTHREADS") {
        if v > 0 {
            // C-Blosc2 calls blosc2_set_nthreads((int16_t)v).
            let n = v as i16;
            if n <= 0 {
                crate::trace_error!("nthreads must be a positive integer");
                return Err(Error::InvalidParam);
            }
            NTHREADS.store(n, Ordering::Relaxed);
        }
    }
    if let Some(m) = env_splitmode() {
        SPLITMODE.store(m as i32, Ordering::Relaxed);
    }
    if !(0..=9).contains(&clevel) {
        crate::trace_error!("`clevel` parameter must be between 0 and 9!");
        return Err(Error::CodecParam);
    }
    if !(0..=2).contains(&doshuffle) {
        // C-Blosc2 3.3 applies no shuffle for any other value (and does not fail)
        crate::trace_error!(
            "`shuffle` parameter {} is not 0, 1 or 2: no shuffle",
            doshuffle
        );
        doshuffle = 0;
    }
    let mut p = CParams {
        compcode: COMPRESSOR.load(Ordering::Relaxed),
        clevel: clevel as u8,
        typesize,
        nthreads: NTHREADS.load(Ordering::Relaxed),
        blocksize: BLOCKSIZE.load(Ordering::Relaxed),
        splitmode: SplitMode::from_i32(SPLITMODE.load(Ordering::Relaxed)),
        filters: [0; 6],
        ..CParams::default()
    };
    if doshuffle != 1 || p.typesize > 1 {
        p.filters[5] = doshuffle as u8;
    }
    if DELTA.load(Ordering::Relaxed) != 0 {
        p.filters[4] = filter_id::DELTA;
    }
    p.basic_header = std::env::var_os("BLOSC_BLOSC1_COMPAT").is_some();
    Ok(p)
}

/// Read `BLOSC_NTHREADS` for the context-less decompression, as C-Blosc2 does: the value is set
/// as the global number of threads, and a value that is not a positive number fails (-12).
fn global_env_nthreads() -> Result<(), Error> {
    if let Some(v) = env_strtol("BLOSC_NTHREADS") {
        let n = v as i16;
        if n <= 0 {
            crate::trace_error!("BLOSC_NTHREADS must be a positive integer");
            return Err(Error::InvalidParam);
        }
        NTHREADS.store(n, Ordering::Relaxed);
    }
    Ok(())
}

/// Compress with the global parameters (blosc2 API without a context).
///
/// # Safety
/// `src` readable for `srcsize`, `dest` writable for `destsize`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_compress(
    clevel: c_int,
    doshuffle: c_int,
    typesize: i32,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    guard(fail(), || {
        let p = match global_cparams(clevel, doshuffle, typesize) {
            Ok(p) => p,
            Err(e) => return e.code(),
        };
        if srcsize < 0 {
            return Error::InvalidParam.code();
        }
        // SAFETY: the caller guarantees the buffer sizes. A negative `destsize` is no room at
        // all (below the minimum overhead: -35, as in C-Blosc2).
        let (Some(s), Some(d)) = (unsafe { slice(src, srcsize as usize) }, unsafe {
            slice_mut(dest, destsize.max(0) as usize)
        }) else {
            return Error::NullPointer.code();
        };
        code_of(chunk::compress(&p, s, d))
    })
}

/// Decompress with the global number of threads.
///
/// # Safety
/// `src` readable for `srcsize`, `dest` writable for `destsize`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_decompress(
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    guard(fail(), || {
        if let Err(e) = global_env_nthreads() {
            return e.code();
        }
        let p = DParams {
            nthreads: NTHREADS.load(Ordering::Relaxed),
            ..DParams::default()
        };
        super::chunk::decompress_params(&p, src, srcsize, dest, destsize, None)
    })
}

/// Enable (1) or disable (0) the delta filter for the context-less API.
#[no_mangle]
pub extern "C" fn blosc2_set_delta(dodelta: c_int) {
    DELTA.store(dodelta, Ordering::Relaxed);
}

/// Blosc1 compression of `nbytes` bytes.
///
/// # Safety
/// `src` readable for `nbytes`, `dest` writable for `destsize`.
#[no_mangle]
pub unsafe extern "C" fn blosc1_compress(
    clevel: c_int,
    doshuffle: c_int,
    typesize: usize,
    nbytes: usize,
    src: *const c_void,
    dest: *mut c_void,
    destsize: usize,
) -> c_int {
    guard(fail(), || {
        if nbytes > crate::chunk::header::MAX_BUFFERSIZE as usize {
            crate::trace_error!("Input buffer size cannot exceed {} bytes", i32::MAX - 32);
            return Error::MaxBufsizeExceeded.code();
        }
        let typesize = typesize.min(i32::MAX as usize) as i32;
        let destsize = destsize.min(i32::MAX as usize) as i32;
        // SAFETY: forwarded caller guarantees.
        unsafe {
            blosc2_compress(
                clevel,
                doshuffle,
                typesize,
                src,
                nbytes as i32,
                dest,
                destsize,
            )
        }
    })
}

/// Blosc1 decompression into `destsize` bytes.
///
/// # Safety
/// `src` must hold a whole chunk (its length is read from the header); `dest` writable for
/// `destsize`.
#[no_mangle]
pub unsafe extern "C" fn blosc1_decompress(
    src: *const c_void,
    dest: *mut c_void,
    destsize: usize,
) -> c_int {
    guard(fail(), || {
        if src.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: the caller guarantees a whole chunk at `src`.
        let cbytes = unsafe { header_cbytes(src) };
        if cbytes < 16 {
            return Error::InvalidHeader.code();
        }
        let destsize = destsize.min(i32::MAX as usize) as i32;
        // SAFETY: forwarded caller guarantees; `cbytes` comes from the chunk itself.
        unsafe { blosc2_decompress(src, cbytes, dest, destsize) }
    })
}

/// Blosc1 getitem: `nitems` elements from `start`.
///
/// # Safety
/// `src` must hold a whole chunk; `dest` writable for `nitems * typesize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc1_getitem(
    src: *const c_void,
    start: c_int,
    nitems: c_int,
    dest: *mut c_void,
) -> c_int {
    guard(fail(), || {
        if src.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: the caller guarantees a whole chunk at `src`.
        let cbytes = unsafe { header_cbytes(src) };
        if cbytes < 16 {
            return Error::InvalidHeader.code();
        }
        // SAFETY: the header is readable.
        let ts = unsafe { *(src as *const u8).add(3) } as i64;
        let destsize = (nitems.max(0) as i64 * ts).min(i32::MAX as i64) as i32;
        // SAFETY: forwarded caller guarantees.
        unsafe { super::chunk::blosc2_getitem(src, cbytes, start, nitems, dest, destsize) }
    })
}

/// The name of the global compressor.
#[no_mangle]
pub extern "C" fn blosc1_get_compressor() -> *const c_char {
    let mut name: *const c_char = core::ptr::null();
    // SAFETY: `name` is a valid out-pointer.
    unsafe {
        super::global::blosc2_compcode_to_compname(
            COMPRESSOR.load(Ordering::Relaxed) as c_int,
            &mut name,
        )
    };
    name
}

/// Select the global compressor by name; returns its code, -1 for an unknown name or -7 for a
/// plugin or user codec.
///
/// # Safety
/// `compname` must be NUL-terminated (or NULL).
#[no_mangle]
pub unsafe extern "C" fn blosc1_set_compressor(compname: *const c_char) -> c_int {
    guard(-1, || {
        if compname.is_null() {
            return -1;
        }
        // SAFETY: forwarded.
        let code = unsafe { super::global::blosc2_compname_to_compcode(compname) };
        // SAFETY: the caller guarantees a NUL-terminated string.
        let _ = unsafe { CStr::from_ptr(compname) };
        // As C-Blosc2: plugin and user codecs cannot be the global compressor (-7, nothing
        // changes); an unknown name is stored as code -1, so compressing then fails (-7) and
        // `blosc1_get_compressor` returns NULL.
        if code >= crate::codecs::LAST_CODEC as c_int {
            crate::trace_error!(
                "User defined codecs cannot be set here. Use Blosc2 mechanism instead."
            );
            return crate::Error::CodecSupport.code();
        }
        COMPRESSOR.store(code as u8, Ordering::Relaxed);
        code
    })
}

/// Sizes from a chunk header (size_t variant).
///
/// # Safety
/// `cbuffer` must point to a chunk header; out-pointers may be NULL.
#[no_mangle]
pub unsafe extern "C" fn blosc1_cbuffer_sizes(
    cbuffer: *const c_void,
    nbytes: *mut usize,
    cbytes: *mut usize,
    blocksize: *mut usize,
) {
    guard((), || {
        let (mut n, mut c, mut b) = (0i32, 0i32, 0i32);
        // SAFETY: forwarded caller guarantees.
        let rc = unsafe { super::chunk::blosc2_cbuffer_sizes(cbuffer, &mut n, &mut c, &mut b) };
        if rc < 0 {
            (n, c, b) = (0, 0, 0);
        }
        // SAFETY: out-pointers checked for NULL.
        unsafe {
            if let Some(x) = nbytes.as_mut() {
                *x = n as usize;
            }
            if let Some(x) = cbytes.as_mut() {
                *x = c as usize;
            }
            if let Some(x) = blocksize.as_mut() {
                *x = b as usize;
            }
        }
    })
}

/// The global blocksize (0 = automatic).
#[no_mangle]
pub extern "C" fn blosc1_get_blocksize() -> c_int {
    BLOCKSIZE.load(Ordering::Relaxed)
}

/// Set the global blocksize (0 = automatic).
#[no_mangle]
pub extern "C" fn blosc1_set_blocksize(blocksize: usize) {
    BLOCKSIZE.store(blocksize.min(i32::MAX as usize) as i32, Ordering::Relaxed);
}

/// Set the global split mode.
#[no_mangle]
pub extern "C" fn blosc1_set_splitmode(splitmode: c_int) {
    if crate::chunk::compress::valid_splitmode(splitmode) {
        SPLITMODE.store(splitmode, Ordering::Relaxed);
    }
}
