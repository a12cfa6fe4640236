//! Frames through the C API (area 8 of API.md): super-chunks opened from files, sparse
//! directories and buffers, serialised to buffers and files, and the urlpath helpers.
//!
//! Frame-backed super-chunks are ordinary `blosc2_schunk`s (see `schunk.rs`) whose core holds a
//! [`Frame`]; their C struct shows a non-NULL opaque `frame` and a NULL `data`, as C-Blosc2's.

use super::guard;
use super::schunk::{
    file_io, handle, io_for_path, malloc_copy, new_schunk_with, urlpath_str, SchunkHandle,
};
use super::types::*;
use crate::frame::Frame;
use crate::schunk::Schunk;
use crate::Error;
use core::ffi::{c_char, c_int};
use core::ptr;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// C compression parameters describing the frame `f`. As in C-Blosc2, `nthreads` is the
/// global number of threads (`blosc2_set_nthreads`), not the one recorded in the frame.
fn frame_cparams(f: &Frame) -> blosc2_cparams {
    let p = f.params();
    blosc2_cparams {
        compcode: p.compcode,
        compcode_meta: p.compcode_meta,
        clevel: p.clevel,
        use_dict: p.use_dict as c_int,
        typesize: p.typesize,
        nthreads: super::global::blosc2_get_nthreads().max(1),
        blocksize: p.blocksize,
        splitmode: p.splitmode as i32,
        filters: p.filters,
        filters_meta: p.filters_meta,
        ..BLOSC2_CPARAMS_DEFAULTS
    }
}

/// A C super-chunk around the frame `f` (NULL on error).
///
/// # Safety
/// `io` valid; `urlpath` as recorded in the storage.
unsafe fn schunk_of_frame(
    f: Frame,
    io: &blosc2_io,
    urlpath: Option<&str>,
    in_memory_copy: bool,
) -> *mut blosc2_schunk {
    let contiguous = !f.is_sparse() && !in_memory_copy;
    let cp = frame_cparams(&f);
    let copied_blocksize = in_memory_copy.then(|| chunks_blocksize(&f));
    let dp = blosc2_dparams {
        // the global number of threads, as for `cp`
        nthreads: super::global::blosc2_get_nthreads().max(1),
        // C-Blosc2 takes an opened frame's storage dparams from `blosc2_schunk_get_dparams`
        // (calloc'ed: typesize 0), not from BLOSC2_DPARAMS_DEFAULTS (8)
        typesize: 0,
        ..BLOSC2_DPARAMS_DEFAULTS
    };
    let mut frame = Some(f);
    let mut make = |c: crate::params::CParams, d: crate::params::DParams| match frame.take() {
        Some(f) if in_memory_copy => {
            // C-Blosc2 turns a copied frame into an in-memory sparse super-chunk.
            let fs = Schunk::with_frame(c.clone(), d.clone(), f);
            let mut m = Schunk::new(c.clone(), d);
            let c = fs.plugin_cparams(&c);
            fs.copy_into(&mut m, &mut |n, s| crate::schunk::compress_chunk(&c, n, s))?;
            if m.nchunks() == 0 {
                // a preset chunk size (B2ND arrays without chunks) is kept, as in C-Blosc2
                m.set_chunksize(fs.chunksize())?;
            }
            Ok(m)
        }
        Some(f) => Ok(Schunk::with_frame(c, d, f)),
        None => Err(Error::Failure),
    };
    // SAFETY: forwarded caller guarantees.
    let out = unsafe { new_schunk_with(&cp, &dp, io, contiguous, urlpath, &mut make) };
    if let Some(bs) = copied_blocksize {
        // SAFETY: NULL or the super-chunk just created.
        if let Some(h) = unsafe { super::schunk::handle(out) } {
            h.write_blocksize(bs);
        }
    }
    out
}

/// The block size a copied frame's super-chunk reports, as C-Blosc2's `frame_to_schunk`
/// computes it: that of the chunks when they all share one, else 0 (0 without chunks).
fn chunks_blocksize(f: &Frame) -> i32 {
    let mut common = None;
    for n in 0..f.nchunks() {
        let bs = match f.get_chunk(n).and_then(|c| crate::chunk::Header::parse(&c)) {
            Ok(h) => h.blocksize,
            Err(_) => return 0,
        };
        match common {
            None => common = Some(bs),
            Some(c) if c != bs => return 0,
            Some(_) => {}
        }
    }
    common.unwrap_or(0)
}

unsafe fn open_impl(
    urlpath: *const c_char,
    offset: i64,
    udio: *const blosc2_io,
) -> *mut blosc2_schunk {
    if urlpath.is_null() {
        crate::trace_error!("Empty path for the super-chunk");
        return ptr::null_mut();
    }
    if offset < 0 {
        crate::trace_error!("The offset of a frame cannot be negative");
        return ptr::null_mut();
    }
    // SAFETY: the caller guarantees a NUL-terminated string.
    let Ok(Some(path)) = (unsafe { urlpath_str(urlpath) }) else {
        return ptr::null_mut();
    };
    // SAFETY: the caller guarantees `udio` NULL or valid.
    let io = unsafe { udio.as_ref() }
        .copied()
        .unwrap_or(BLOSC2_IO_DEFAULTS);
    // SAFETY: caller's contract for the back-end params.
    let cio = match unsafe { io_for_path(&io, &path) } {
        Ok(c) => c,
        Err(_) => return ptr::null_mut(),
    };
    let f = match Frame::open_path(Path::new(&path), offset as u64, cio) {
        Ok(f) => f,
        Err(e) => {
            crate::trace_error!("Cannot open the frame at {}: {}", path, e);
            return ptr::null_mut();
        }
    };
    // SAFETY: forwarded guarantees.
    unsafe { schunk_of_frame(f, &io, Some(&path), false) }
}

/// Open the super-chunk stored at `urlpath` (a contiguous frame file or a sparse frame
/// directory). NULL on error.
///
/// # Safety
/// `urlpath` must be NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open(urlpath: *const c_char) -> *mut blosc2_schunk {
    // SAFETY: forwarded caller guarantees.
    guard(ptr::null_mut(), || unsafe {
        open_impl(urlpath, 0, ptr::null())
    })
}

/// Open the contiguous frame starting at byte `offset` of the file `urlpath`.
///
/// # Safety
/// `urlpath` must be NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open_offset(
    urlpath: *const c_char,
    offset: i64,
) -> *mut blosc2_schunk {
    // SAFETY: forwarded caller guarantees.
    guard(ptr::null_mut(), || unsafe {
        open_impl(urlpath, offset, ptr::null())
    })
}

/// Open the super-chunk at `urlpath` through the I/O back-end `udio`.
///
/// # Safety
/// `urlpath` NULL or a NUL-terminated string; `udio` NULL or valid (its params live while the
/// super-chunk does).
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open_udio(
    urlpath: *const c_char,
    udio: *const blosc2_io,
) -> *mut blosc2_schunk {
    // SAFETY: forwarded caller guarantees.
    guard(ptr::null_mut(), || unsafe { open_impl(urlpath, 0, udio) })
}

/// Open the frame at byte `offset` of `urlpath` through the I/O back-end `udio`.
///
/// # Safety
/// As `blosc2_schunk_open_udio`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_open_offset_udio(
    urlpath: *const c_char,
    offset: i64,
    udio: *const blosc2_io,
) -> *mut blosc2_schunk {
    // SAFETY: forwarded caller guarantees.
    guard(ptr::null_mut(), || unsafe {
        open_impl(urlpath, offset, udio)
    })
}

/// A frame buffer of a C caller, lent to an in-memory frame by
/// `blosc2_schunk_from_buffer(.., copy=false)`.
///
/// This is the one place where the core reads memory it does not own: the frame reads it in
/// place (header, offsets and trailer at once, chunks when asked for) and copies it into a
/// buffer of its own before the first change, so it never writes or frees it.
struct CallerFrame {
    ptr: *const u8,
    len: usize,
}

// SAFETY: the bytes are only read, never written, through this pointer; the caller of
// `blosc2_schunk_from_buffer` keeps them alive and unchanged while the super-chunk lives
// (as C-Blosc2 requires), whatever thread uses the super-chunk.
unsafe impl Send for CallerFrame {}
// SAFETY: as for `Send`: shared read-only access.
unsafe impl Sync for CallerFrame {}

impl AsRef<[u8]> for CallerFrame {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: `ptr` is non-NULL and readable for `len <= isize::MAX` bytes for the life of
        // the super-chunk holding this value (checked and promised in
        // `blosc2_schunk_from_buffer`).
        unsafe { core::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// The bytes of an in-memory frame in a `malloc`ed buffer (what `blosc2_schunk_to_buffer`
/// lends): freed when the frame stops reading them (its next change, or the super-chunk's
/// free) unless `kept` was set, which hands them to the caller
/// (`blosc2_schunk_avoid_cframe_free(sc, true)` at `blosc2_schunk_free`).
pub(crate) struct MallocedFrame {
    ptr: *mut u8,
    len: usize,
    kept: Arc<AtomicBool>,
}

// SAFETY: the buffer is owned by this value (or, once `kept`, by nobody until it is dropped)
// and only read through it.
unsafe impl Send for MallocedFrame {}
// SAFETY: as for `Send`: shared read-only access.
unsafe impl Sync for MallocedFrame {}

impl MallocedFrame {
    /// A `malloc`ed copy of `bytes` (an error when out of memory).
    pub(crate) fn copy_of(bytes: &[u8], kept: Arc<AtomicBool>) -> crate::Result<MallocedFrame> {
        let ptr = malloc_copy(bytes);
        if ptr.is_null() {
            crate::trace_error!("Cannot allocate {} bytes for the frame", bytes.len());
            return Err(Error::MemoryAlloc);
        }
        Ok(MallocedFrame {
            ptr,
            len: bytes.len(),
            kept,
        })
    }
}

impl AsRef<[u8]> for MallocedFrame {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: `ptr` is a live allocation of `len` bytes owned by this value.
        unsafe { core::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl Drop for MallocedFrame {
    fn drop(&mut self) {
        if !self.kept.load(Ordering::Acquire) {
            // SAFETY: allocated by `malloc` in `copy_of`, freed once, here.
            unsafe { libc::free(self.ptr.cast()) };
        }
    }
}

/// A super-chunk from the contiguous frame `cframe` (`len` bytes). With `copy == true` an
/// in-memory sparse super-chunk holding copies of the chunks (as C-Blosc2); with
/// `copy == false` an in-memory frame that reads `cframe` in place (only the header, the
/// offsets and the trailer are parsed now). As in C-Blosc2, the buffer stays the caller's:
/// it is not freed with the super-chunk unless `blosc2_schunk_avoid_cframe_free(schunk,
/// false)` hands it over (it must then come from `malloc`). Unlike C-Blosc2, which
/// `realloc`s the caller's buffer when the super-chunk changes, the frame is copied at its
/// first change and `cframe` is never written.
///
/// # Safety
/// `cframe` must be readable for `len` bytes; with `copy == false` it must stay alive and
/// unchanged while the super-chunk lives.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_from_buffer(
    cframe: *mut u8,
    len: i64,
    copy: bool,
) -> *mut blosc2_schunk {
    guard(ptr::null_mut(), || {
        if cframe.is_null() || len <= 0 || len as u64 > isize::MAX as u64 {
            crate::trace_error!("Invalid frame buffer");
            return ptr::null_mut();
        }
        // An in-memory frame must fill exactly `len` bytes: check the length its header
        // declares before touching (and copying) the whole buffer, so that a `len` larger than
        // the frame is an error, as in C-Blosc2, not a read past its end.
        let minlen = crate::frame::header::HEADER_MINLEN;
        if len as u64 >= minlen as u64 {
            // SAFETY: at least `minlen` of the `len` readable bytes (caller).
            let Some(head) = (unsafe { super::slice(cframe as *const std::ffi::c_void, minlen) })
            else {
                return ptr::null_mut();
            };
            match crate::frame::header::frame_len_of(head) {
                Ok(n) if n == len => {}
                _ => {
                    crate::trace_error!("The frame length in the header does not match {len}");
                    return ptr::null_mut();
                }
            }
        }
        // With `copy`, the chunks are copied out below and the frame (with the borrow) is
        // dropped before returning.
        let parsed = Frame::from_shared(Box::new(CallerFrame {
            ptr: cframe,
            len: len as usize,
        }));
        let f = match parsed {
            Ok(f) => f,
            Err(e) => {
                crate::trace_error!("The buffer is not a valid frame: {}", e);
                return ptr::null_mut();
            }
        };
        if f.is_sparse() {
            crate::trace_error!("The buffer holds the index of a sparse frame");
            return ptr::null_mut();
        }
        // SAFETY: default I/O. With `copy`, the frame (and so the borrow) is dropped inside.
        let out = unsafe { schunk_of_frame(f, &BLOSC2_IO_DEFAULTS, None, copy) };
        if !copy {
            // SAFETY: NULL or the handle just created.
            if let Some(h) = unsafe { handle(out) } {
                h.cframe_owner = cframe as usize;
                h.cframe_len = len as usize;
                // libblosc2 3.3.5 leaves the buffer to the caller unless
                // `blosc2_schunk_avoid_cframe_free(.., false)` is called (its header says
                // otherwise; found by the sanitizer runs: freeing it here made C programs
                // written for the reference free it twice).
                h.avoid_cframe_free = true;
            }
        }
        out
    })
}

/// The super-chunk as a contiguous frame: `*cframe` points to it and `*needs_free` tells
/// whether the caller must `free()` it (in-memory frames lend their own bytes). Returns the
/// length.
///
/// # Safety
/// `schunk` live; `cframe` and `needs_free` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_to_buffer(
    schunk: *mut blosc2_schunk,
    cframe: *mut *mut u8,
    needs_free: *mut bool,
) -> i64 {
    guard(Error::Failure.code() as i64, || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::NullPointer.code() as i64;
        };
        if cframe.is_null() || needs_free.is_null() {
            return Error::NullPointer.code() as i64;
        }
        if lendable_frame(h).is_some() {
            // An in-memory frame lends its own bytes, as C-Blosc2's does; they are moved into
            // a `malloc`ed buffer first, so that a caller who calls
            // `blosc2_schunk_avoid_cframe_free(sc, true)` can `free()` them after
            // `blosc2_schunk_free` (blosc2-rs's `SChunk::into_vec`).
            if let Err(e) = h.lend_frame_malloced() {
                return e.code() as i64;
            }
            let Some(b) = lendable_frame(h) else {
                return Error::Failure.code() as i64;
            };
            // SAFETY: out-pointers checked; the bytes stay until the super-chunk changes.
            unsafe {
                *cframe = b.as_ptr() as *mut u8;
                *needs_free = false;
            }
            return b.len() as i64;
        }
        let bytes = match cframe_of(h) {
            Ok(b) => b,
            Err(e) => return e.code() as i64,
        };
        let p = malloc_copy(&bytes);
        if p.is_null() {
            return Error::MemoryAlloc.code() as i64;
        }
        // SAFETY: out-pointers checked for NULL; the caller frees the copy.
        unsafe {
            *cframe = p;
            *needs_free = true;
        }
        bytes.len() as i64
    })
}

/// The bytes of an in-memory frame that to_buffer, to_file and append_file hand out as they
/// are: only while the caller's storage still says "contiguous, no urlpath" (C-Blosc2 reads
/// those two fields, not the super-chunk's state).
fn lendable_frame(h: &SchunkHandle) -> Option<&[u8]> {
    h.core
        .frame()
        .and_then(|f| f.as_bytes())
        .filter(|_| h.storage_is_memory_frame())
}

/// The contiguous frame that to_file and append_file write: the [`lendable_frame`], else a
/// new serialisation, as C-Blosc2's copy through `blosc2_schunk_copy`.
fn cframe_of(h: &SchunkHandle) -> crate::Result<std::borrow::Cow<'_, [u8]>> {
    if let Some(b) = lendable_frame(h) {
        return Ok(std::borrow::Cow::Borrowed(b));
    }
    h.core
        .to_cframe_with(&copy_params(h), None)
        .map(std::borrow::Cow::Owned)
}

/// The header of the frame C-Blosc2's `blosc2_schunk_copy` makes without parameters (what
/// `blosc2_schunk_to_buffer`/`_to_file` write for a super-chunk that is not an in-memory
/// frame): the coding of the context in `cctx`, its block size (that of the last chunk it
/// made), no compression threads (its parameters start zeroed), the default decompression
/// threads.
pub(crate) fn copy_params(h: &SchunkHandle) -> crate::frame::FrameParams {
    let mut cp = h.cctx_cparams();
    cp.nthreads = 0;
    crate::frame::FrameParams::from_cparams(&cp, BLOSC2_DPARAMS_DEFAULTS.nthreads)
}

/// Write the super-chunk as a contiguous frame to the file `urlpath` (replaced). Returns the
/// frame length.
///
/// # Safety
/// `schunk` live; `urlpath` NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_to_file(
    schunk: *mut blosc2_schunk,
    urlpath: *const c_char,
) -> i64 {
    guard(Error::Failure.code() as i64, || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::NullPointer.code() as i64;
        };
        // SAFETY: the caller guarantees a NUL-terminated string.
        let path = match unsafe { urlpath_str(urlpath) } {
            Ok(Some(p)) => p,
            Ok(None) => {
                crate::trace_error!("urlpath cannot be NULL");
                return Error::InvalidParam.code() as i64;
            }
            Err(e) => return e.code() as i64,
        };
        let r = file_io(&path).and_then(|io| {
            let b = cframe_of(h)?;
            crate::frame::io::write_file(io.as_ref(), Path::new(&path), &b)?;
            io.flush(Path::new(&path))?;
            Ok(b.len() as i64)
        });
        match r {
            Ok(n) => n,
            Err(e) => e.code() as i64,
        }
    })
}

/// Append the super-chunk as a contiguous frame to the end of the file `urlpath` (created if
/// missing). Returns the offset where the frame starts.
///
/// # Safety
/// `schunk` live; `urlpath` NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_file(
    schunk: *mut blosc2_schunk,
    urlpath: *const c_char,
) -> i64 {
    guard(Error::Failure.code() as i64, || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::NullPointer.code() as i64;
        };
        // SAFETY: the caller guarantees a NUL-terminated string.
        let path = match unsafe { urlpath_str(urlpath) } {
            Ok(Some(p)) => p,
            Ok(None) => {
                crate::trace_error!("urlpath cannot be NULL");
                return Error::InvalidParam.code() as i64;
            }
            Err(e) => return e.code() as i64,
        };
        let r = file_io(&path).and_then(|io| {
            let b = cframe_of(h)?;
            let at = Frame::append_file(Path::new(&path), &b, io.as_ref())?;
            io.flush(Path::new(&path))?;
            Ok(at as i64)
        });
        match r {
            Ok(n) => n,
            Err(e) => e.code() as i64,
        }
    })
}

/// Length of the frame behind the super-chunk (an estimate, `cbytes` plus a minimal trailer,
/// for in-memory super-chunks without a frame, as C-Blosc2).
///
/// # Safety
/// `schunk` must be a live super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_frame_len(schunk: *mut blosc2_schunk) -> i64 {
    guard(Error::Failure.code() as i64, || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::NullPointer.code() as i64;
        };
        match h.core.frame() {
            Some(f) => f.len(),
            // no frame: C-Blosc2's estimate, the chunks and one 64-bit offset each
            None => h.core.cbytes() + 8 * h.core.nchunks(),
        }
    })
}

/// The offsets table of a frame-backed super-chunk (`nchunks` entries, special values
/// included) in a new `malloc`ed array; NULL without a frame.
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_frame_get_offsets(schunk: *mut blosc2_schunk) -> *mut i64 {
    guard(ptr::null_mut(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            crate::trace_error!("The super-chunk is NULL");
            return ptr::null_mut();
        };
        let Some(f) = h.core.frame() else {
            crate::trace_error!("This function needs a frame.");
            return ptr::null_mut();
        };
        let Ok(off) = f.offsets() else {
            return ptr::null_mut();
        };
        let bytes: Vec<u8> = off.iter().flat_map(|o| o.to_ne_bytes()).collect();
        malloc_copy(&bytes) as *mut i64
    })
}

/// A path from C (`None` for NULL or non-UTF-8).
///
/// # Safety
/// `p` NULL or a NUL-terminated string.
unsafe fn path_of(p: *const c_char) -> Option<std::path::PathBuf> {
    if p.is_null() {
        return None;
    }
    // SAFETY: the caller guarantees a NUL-terminated string.
    let s = unsafe { core::ffi::CStr::from_ptr(p) };
    use std::os::unix::ffi::OsStrExt;
    Some(std::ffi::OsStr::from_bytes(s.to_bytes()).into())
}

/// Remove the directory `path` and the regular files in it (a sparse frame).
///
/// # Safety
/// `path` must be NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_remove_dir(path: *const c_char) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: caller's contract.
        let Some(dir) = (unsafe { path_of(path) }) else {
            crate::trace_error!("The path cannot be NULL");
            return Error::InvalidParam.code();
        };
        let Ok(entries) = std::fs::read_dir(&dir) else {
            crate::trace_error!("No file or directory found.");
            return Error::NotFound.code();
        };
        for e in entries.flatten() {
            let p = e.path();
            if std::fs::metadata(&p).is_ok_and(|m| m.is_file()) && std::fs::remove_file(&p).is_err()
            {
                crate::trace_error!("Could not remove file {}", p.display());
                return Error::FileRemove.code();
            }
        }
        let _ = std::fs::remove_dir(&dir);
        0
    })
}

/// Remove the file or sparse frame directory `path` (0 also when it does not exist or is
/// NULL).
///
/// # Safety
/// `path` must be NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn blosc2_remove_urlpath(path: *const c_char) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: caller's contract.
        let Some(p) = (unsafe { path_of(path) }) else {
            return 0;
        };
        match std::fs::metadata(&p) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
            Err(_) => {
                crate::trace_error!("Could not access {}", p.display());
                Error::FileRemove.code()
            }
            // SAFETY: forwarded caller guarantees.
            Ok(m) if m.is_dir() => unsafe { blosc2_remove_dir(path) },
            Ok(_) => match std::fs::remove_file(&p) {
                Ok(()) => {
                    // as C-Blosc2: the lock sidecar of a contiguous frame goes with it (a
                    // sparse frame's lies inside its directory)
                    let _ = std::fs::remove_file(crate::frame::lock::sidecar_path(&p, false));
                    0
                }
                Err(_) => {
                    crate::trace_error!("Could not remove {}", p.display());
                    Error::FileRemove.code()
                }
            },
        }
    })
}

/// Rename the file or directory `old_urlpath` to `new_path` (0 when either is NULL).
///
/// # Safety
/// Both must be NULL or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn blosc2_rename_urlpath(
    old_urlpath: *mut c_char,
    new_path: *mut c_char,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: caller's contract.
        let (Some(a), Some(b)) = (unsafe { path_of(old_urlpath) }, unsafe {
            path_of(new_path)
        }) else {
            return 0;
        };
        // both failures are -1 in C-Blosc2
        if std::fs::symlink_metadata(&a).is_err() {
            crate::trace_error!("Could not access {}", a.display());
            return Error::Failure.code();
        }
        match std::fs::rename(&a, &b) {
            Ok(()) => 0,
            Err(_) => {
                crate::trace_error!("Could not rename {} to {}", a.display(), b.display());
                Error::Failure.code()
            }
        }
    })
}
