//! Library-wide state and information: init/destroy, threads, codec names, versions, errors
//! (area 2 of the API).

use super::callbacks::{CExecutor, SendPtr};
use super::guard;
use super::types::*;
use crate::chunk::worker;
use crate::Error;
use core::ffi::{c_char, c_int, c_void, CStr};
use std::sync::atomic::{AtomicI16, AtomicI32, AtomicU8, Ordering};
use std::sync::Arc;
use std::sync::Mutex;

/// Global number of threads (blosc1 API and `blosc2_compress/decompress`).
pub(crate) static NTHREADS: AtomicI16 = AtomicI16::new(1);

/// The settings of the blosc1-style API (`blosc1_set_compressor`, `blosc1_set_blocksize`,
/// `blosc1_set_splitmode`, `blosc2_set_delta`), which `blosc2_destroy` resets.
pub(crate) static COMPRESSOR: AtomicU8 = AtomicU8::new(0);
pub(crate) static BLOCKSIZE: AtomicI32 = AtomicI32::new(0);
pub(crate) static SPLITMODE: AtomicI32 = AtomicI32::new(4);
pub(crate) static DELTA: AtomicI32 = AtomicI32::new(0);

/// The blosc1-style settings back to the defaults (`blosc2_destroy`).
pub(crate) fn reset_blosc1() {
    COMPRESSOR.store(0, Ordering::Relaxed);
    BLOCKSIZE.store(0, Ordering::Relaxed);
    SPLITMODE.store(4, Ordering::Relaxed);
    DELTA.store(0, Ordering::Relaxed);
}

/// Names of user codecs kept as C strings (for `blosc2_compcode_to_compname`).
pub(crate) static NAMES: Mutex<Vec<(u8, &'static CStr)>> = Mutex::new(Vec::new());

pub(crate) fn user_codec_cname(code: u8) -> Option<&'static CStr> {
    NAMES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .rev()
        .find(|(c, _)| *c == code)
        .map(|(_, n)| *n)
}

/// Initialise the library. Nothing to do in b2rs: its state is ready from the start. (As in
/// C-Blosc2, `BLOSC_NTHREADS` is not read here but by the compression and decompression calls.)
#[no_mangle]
pub extern "C" fn blosc2_init() {
    guard((), super::plugin_loader::install)
}

/// Release global resources; the library can be initialised again afterwards.
#[no_mangle]
pub extern "C" fn blosc2_destroy() {
    guard((), || {
        worker::free_worker();
        reset_blosc1();
    })
}

/// Free the scratch memory of the calling thread. Returns 0.
#[no_mangle]
pub extern "C" fn blosc2_free_resources() -> c_int {
    guard(Error::Failure.code(), || {
        worker::free_worker();
        0
    })
}

/// The global number of threads.
#[no_mangle]
pub extern "C" fn blosc2_get_nthreads() -> i16 {
    NTHREADS.load(Ordering::Relaxed)
}

/// Set the global number of threads; returns the previous value, or an error for `nthreads <= 0`.
#[no_mangle]
pub extern "C" fn blosc2_set_nthreads(nthreads: i16) -> i16 {
    guard(Error::Failure.code() as i16, || {
        if nthreads <= 0 {
            crate::trace_error!("nthreads must be a positive integer");
            return Error::InvalidParam.code() as i16;
        }
        NTHREADS.swap(nthreads, Ordering::Relaxed)
    })
}

/// Use the application's own parallel-for instead of b2rs's threads (NULL restores them).
///
/// # Safety
/// The callback must call `dojob` on every element of the job array before returning.
#[no_mangle]
pub unsafe extern "C" fn blosc2_set_threads_callback(
    callback: blosc_threads_callback,
    callback_data: *mut c_void,
) {
    guard((), || match callback {
        None => worker::set_executor(None),
        Some(cb) => worker::set_executor(Some(Arc::new(CExecutor {
            callback: cb,
            data: SendPtr(callback_data),
        }))),
    })
}

/// The codec name for a code; returns the code, or -1 (and NULL) when unknown.
///
/// # Safety
/// `compname` must be writable (or NULL).
#[no_mangle]
pub unsafe extern "C" fn blosc2_compcode_to_compname(
    compcode: c_int,
    compname: *mut *const c_char,
) -> c_int {
    guard(-1, || {
        let name = u8::try_from(compcode).ok().and_then(codec_cname);
        // SAFETY: checked for NULL.
        if let Some(out) = unsafe { compname.as_mut() } {
            *out = name.map_or(core::ptr::null(), |n| n.as_ptr());
        }
        if name.is_some() {
            compcode
        } else {
            -1
        }
    })
}

/// Names of codecs as static C strings: built-in, then the registered plugin ids.
fn codec_cname(code: u8) -> Option<&'static CStr> {
    Some(match code {
        0 => c"blosclz",
        1 => c"lz4",
        2 => c"lz4hc",
        4 => c"zlib",
        5 => c"zstd",
        32 => c"ndlz",
        33 => c"zfp_acc",
        34 => c"zfp_prec",
        35 => c"zfp_rate",
        36 => c"openhtj2k",
        37 => c"grok",
        38 => c"openzl",
        39 => c"j2k",
        40 => c"htj2k",
        _ => return user_codec_cname(code),
    })
}

/// The code of a codec name, or -1.
///
/// # Safety
/// `compname` must be a NUL-terminated string (or NULL).
#[no_mangle]
pub unsafe extern "C" fn blosc2_compname_to_compcode(compname: *const c_char) -> c_int {
    guard(-1, || {
        if compname.is_null() {
            return -1;
        }
        // SAFETY: the caller guarantees a NUL-terminated string.
        compcode_of_name(unsafe { CStr::from_ptr(compname) })
    })
}

/// The code of a codec name (built-in, plugin or registered user codec), or -1.
pub(crate) fn compcode_of_name(name: &CStr) -> c_int {
    (0u8..=255)
        .find(|&c| codec_cname(c).is_some_and(|n| n == name))
        .map_or(-1, |c| c as c_int)
}

/// The comma-separated list of supported codecs.
#[no_mangle]
pub extern "C" fn blosc2_list_compressors() -> *const c_char {
    c"blosclz,lz4,lz4hc,zlib,zstd".as_ptr()
}

/// The C-Blosc2 API version implemented ("3.3.5").
#[no_mangle]
pub extern "C" fn blosc2_get_version_string() -> *const c_char {
    super::consts::BLOSC2_VERSION_STRING.as_ptr()
}

fn strdup(s: &CStr) -> *mut c_char {
    // SAFETY: strdup of a valid NUL-terminated string; the caller frees it.
    unsafe { libc::strdup(s.as_ptr()) }
}

/// Library name and version of a codec (strings `malloc`ed, to be freed by the caller).
/// Returns the library code, or -1 for an unknown codec.
///
/// # Safety
/// `compname` must be NUL-terminated; `complib` and `version` writable (or NULL).
#[no_mangle]
pub unsafe extern "C" fn blosc2_get_complib_info(
    compname: *const c_char,
    complib: *mut *mut c_char,
    version: *mut *mut c_char,
) -> c_int {
    guard(-1, || {
        if compname.is_null() {
            return -1;
        }
        // SAFETY: the caller guarantees a NUL-terminated string.
        let name = unsafe { CStr::from_ptr(compname) };
        let (code, lib, ver): (c_int, &CStr, &CStr) = match name.to_bytes() {
            b"blosclz" => (0, c"BloscLZ", c"2.5.3"),
            b"lz4" | b"lz4hc" => (1, c"LZ4", c"1.10.0"),
            b"zlib" => (3, c"Zlib", c"2.3.3"),
            b"zstd" => (4, c"Zstd", c"1.5.7"),
            _ => {
                // the plugin codecs C-Blosc2 registers: their name as library, version unknown
                let code = compcode_of_name(name);
                if !(32..=40).contains(&code) {
                    return -1;
                }
                (code, name, c"unknown")
            }
        };
        // SAFETY: out-pointers checked for NULL.
        unsafe {
            if let Some(c) = complib.as_mut() {
                *c = strdup(lib);
            }
            if let Some(v) = version.as_mut() {
                *v = strdup(ver);
            }
        }
        code
    })
}

/// The message for an error code.
#[no_mangle]
pub extern "C" fn blosc2_error_string(error_code: c_int) -> *const c_char {
    let msg: &'static CStr = match Error::from_code(error_code) {
        None => c"Unknown error",
        Some(e) => error_cstr(e),
    };
    msg.as_ptr()
}

fn error_cstr(e: Error) -> &'static CStr {
    match e {
        Error::Failure => c"Generic failure",
        Error::Stream => c"Bad stream",
        Error::Data => c"Invalid data",
        Error::MemoryAlloc => c"Memory alloc/realloc failure",
        Error::ReadBuffer => c"Not enough space to read",
        Error::WriteBuffer => c"Not enough space to write",
        Error::CodecSupport => c"Codec not supported",
        Error::CodecParam => c"Invalid parameter supplied to codec",
        Error::CodecDict => c"Codec dictionary error",
        Error::VersionSupport => c"Version not supported",
        Error::InvalidHeader => c"Invalid value in header",
        Error::InvalidParam => c"Invalid parameter supplied to function",
        Error::FileRead => c"File read failure",
        Error::FileWrite => c"File write failure",
        Error::FileOpen => c"File open failure",
        Error::NotFound => c"Not found",
        Error::RunLength => c"Bad run length encoding",
        Error::FilterPipeline => c"Filter pipeline error",
        Error::ChunkInsert => c"Chunk insert failure",
        Error::ChunkAppend => c"Chunk append failure",
        Error::ChunkUpdate => c"Chunk update failure",
        Error::TwoGbLimit => c"Sizes larger than 2gb not supported",
        Error::SchunkCopy => c"Super-chunk copy failure",
        Error::FrameType => c"Wrong type for frame",
        Error::FileTruncate => c"File truncate failure",
        Error::ThreadCreate => c"Thread or thread context creation failure",
        Error::Postfilter => c"Postfilter failure",
        Error::FrameSpecial => c"Special frame failure",
        Error::SchunkSpecial => c"Special super-chunk failure",
        Error::PluginIo => c"IO plugin error",
        Error::FileRemove => c"Remove file failure",
        Error::NullPointer => c"Pointer is null",
        Error::InvalidIndex => c"Invalid index",
        Error::MetalayerNotFound => c"Metalayer has not been found",
        Error::MaxBufsizeExceeded => c"Maximum buffersize exceeded",
        Error::Tuner => c"Tuner failure",
        Error::Lock => c"Frame lock failure",
        Error::Callback(_) => c"Unknown error",
    }
}
