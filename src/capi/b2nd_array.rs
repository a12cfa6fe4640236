//! b2nd arrays through the C API (areas 12a–12e of API.md): constructors, buffers, frames,
//! slices, selections and shape changes of `b2nd_array_t`.
//!
//! A `b2nd_array_t` is a public struct that C programs read: after every call all its fields
//! (shapes, padded shapes, item counts, strides, dtype) describe the array. Each call rebuilds
//! the core [`Array`] from those fields on the super-chunk behind `sc` (through the super-chunk
//! API, whatever its storage), runs the operation and writes the fields back.

use super::b2nd::{b2nd_context_t, read_array};
use super::guard;
use super::schunk::{handle, SchunkHandle};
use super::types::*;
use crate::b2nd::array::{concatenate, concatenate_into, Array, Fill};
use crate::b2nd::{Geometry, Meta, MAX_DIM, METALAYER_NAME};
use crate::frame::{Frame, Location, LockMode, StdIo};
use crate::schunk::Schunk;
use crate::Error;
use core::ffi::{c_char, c_int, c_void, CStr};
use std::path::Path;
use std::ptr;
use std::sync::Arc;

type R<T> = Result<T, Error>;

fn code(r: R<()>) -> c_int {
    match r {
        Ok(()) => 0,
        Err(e) => e.code(),
    }
}

fn null() -> Error {
    crate::trace_error!("Pointer is NULL");
    Error::NullPointer
}

/// The description stored in the public fields of a C array.
fn c_meta(a: &b2nd_array_t) -> R<Meta> {
    if a.ndim < 0 || a.ndim as usize > MAX_DIM {
        crate::trace_error!("ndim must be in [0, {MAX_DIM}]");
        return Err(Error::InvalidParam);
    }
    let n = a.ndim as usize;
    let mut m = Meta::new(&a.shape[..n], &a.chunkshape[..n], &a.blockshape[..n]);
    m.dtype_format = a.dtype_format;
    if !a.dtype.is_null() {
        // SAFETY: the array's dtype is a NUL-terminated string owned by the array.
        m.dtype = Some(unsafe { CStr::from_ptr(a.dtype) }.to_bytes().to_vec());
    }
    Ok(m)
}

/// The description of a C array: its own fields, or the super-chunk's "b2nd" metalayer when
/// the metalayers changed since the array's last call (another handle or process resized the
/// array on disk) and the metalayer describes the same chunking (a view's shapes are its own).
fn current_meta(a: &b2nd_array_t, h: &mut SchunkHandle) -> R<Meta> {
    let mine = c_meta(a)?;
    if a.last_tick == h.core.change_tick() || h.core.frame().is_none() {
        return Ok(mine);
    }
    let stored = match Array::open(&mut h.core) {
        Ok(arr) => arr.meta(),
        Err(_) => return Ok(mine),
    };
    let same = stored.ndim() == mine.ndim()
        && stored.chunkshape == mine.chunkshape
        && stored.blockshape == mine.blockshape;
    Ok(if same { stored } else { mine })
}

/// Write every public field (but `sc`) of a C array from a geometry; the dtype is replaced
/// when given.
fn set_fields(a: &mut b2nd_array_t, g: &Geometry, h: &SchunkHandle) {
    let n = g.ndim();
    let max = MAX_DIM;
    a.ndim = n as i8;
    let (shape, chunk, block) = (g.shape(), g.chunkshape(), g.blockshape());
    for i in 0..max {
        if i < n {
            a.shape[i] = shape[i];
            a.chunkshape[i] = chunk[i];
            a.blockshape[i] = block[i];
            a.extshape[i] = g.extshape()[i];
            a.extchunkshape[i] = g.extchunkshape()[i];
        } else {
            a.shape[i] = 1;
            a.chunkshape[i] = 1;
            a.blockshape[i] = 1;
            a.extshape[i] = 1;
            a.extchunkshape[i] = 1;
        }
    }
    a.nitems = g.nitems();
    a.chunknitems = g.chunknitems();
    a.extnitems = g.extnitems();
    a.blocknitems = g.blocknitems();
    a.extchunknitems = g.extchunknitems();
    // Like C-Blosc2, the strides in front of an empty dimension are 0.
    let mut kept = [false; MAX_DIM];
    let mut empty_after = false;
    for i in (0..n).rev() {
        kept[i] = !empty_after;
        empty_after |= shape[i] == 0;
    }
    // C-order strides of `dim(0..n)` written straight into the C arrays
    let put = |f: &mut [i64; MAX_DIM], dim: &dyn Fn(usize) -> i64| {
        f.fill(0);
        let mut acc = 1i64;
        for i in (0..n).rev() {
            f[i] = if kept[i] { acc } else { 0 };
            acc = acc.wrapping_mul(dim(i));
        }
    };
    let (ext, bgrid, cgrid) = (g.extchunkshape(), g.blocks_grid(), g.chunks_grid());
    put(&mut a.item_array_strides, &|i| shape[i]);
    put(&mut a.item_chunk_strides, &|i| chunk[i] as i64);
    put(&mut a.item_extchunk_strides, &|i| ext[i]);
    put(&mut a.item_block_strides, &|i| block[i] as i64);
    put(&mut a.block_chunk_strides, &|i| bgrid[i]);
    put(&mut a.chunk_array_strides, &|i| cgrid[i]);
    a.last_tick = h.core.change_tick();
}

/// Replace the dtype of a C array (a `malloc`ed copy; NULL for none).
fn set_dtype(a: &mut b2nd_array_t, dtype: Option<&[u8]>) -> R<()> {
    let p = match dtype {
        Some(d) => {
            let mut v = d.to_vec();
            v.push(0);
            let p = super::schunk::malloc_copy(&v);
            if p.is_null() {
                return Err(Error::MemoryAlloc);
            }
            p as *mut c_char
        }
        None => ptr::null_mut(),
    };
    // SAFETY: the old dtype is NULL or our own malloc'ed string.
    unsafe { libc::free(a.dtype as *mut c_void) };
    a.dtype = p;
    Ok(())
}

/// A new C array owning the super-chunk `sc` (which holds an array described by `meta`).
fn new_c_array(sc: *mut blosc2_schunk, meta: &Meta) -> R<*mut b2nd_array_t> {
    // SAFETY: `sc` is a live handle owned by the caller, handed over to the array.
    let h = unsafe { handle(sc) }.ok_or_else(null)?;
    let g = meta.geometry()?;
    h.rebuild_mirrors()?;
    // SAFETY: all-zero is a valid b2nd_array_t (NULL pointers, zero numbers).
    let mut a: Box<b2nd_array_t> = Box::new(unsafe { core::mem::zeroed() });
    a.sc = sc;
    a.dtype_format = meta.dtype_format;
    a.chunk_cache = chunk_cache_s {
        data: ptr::null_mut(),
        nchunk: -1,
    };
    set_dtype(&mut a, meta.dtype.as_deref())?;
    set_fields(&mut a, &g, h);
    Ok(Box::into_raw(a))
}

/// Run `f` on the core view of a C array, then bring the C side up to date.
///
/// # Safety
/// `a` must be NULL or a live array made by this library.
unsafe fn with_array<T>(
    a: *const b2nd_array_t,
    f: impl FnOnce(&mut Array<&mut Schunk>) -> R<T>,
) -> R<T> {
    // SAFETY: forwarded.
    unsafe { with_array_locked(a, LockMode::Shared, f) }
}

/// [`with_array`] for a change of the array: one unit under the exclusive frame lock (when
/// locking is on), so that a reader holding the lock never sees it half done.
///
/// # Safety
/// As [`with_array`].
unsafe fn with_array_mut<T>(
    a: *const b2nd_array_t,
    f: impl FnOnce(&mut Array<&mut Schunk>) -> R<T>,
) -> R<T> {
    // SAFETY: forwarded.
    unsafe { with_array_locked(a, LockMode::Exclusive, f) }
}

/// [`with_array`] holding the frame lock in `mode` for the whole call.
///
/// # Safety
/// As [`with_array`].
unsafe fn with_array_locked<T>(
    a: *const b2nd_array_t,
    mode: LockMode,
    f: impl FnOnce(&mut Array<&mut Schunk>) -> R<T>,
) -> R<T> {
    // SAFETY: NULL or live (caller); only its fields are read and rewritten in place.
    let a = unsafe { (a as *mut b2nd_array_t).as_mut() }.ok_or_else(null)?;
    // SAFETY: the array's super-chunk is NULL or live.
    let h = unsafe { handle(a.sc) }.ok_or_else(null)?;
    // As C-Blosc2: another handle or process may have changed the array on disk (taking
    // the lock re-reads it then)
    if h.core.lock(mode)? {
        if let Err(e) = h.rebuild_mirrors() {
            let _ = h.core.unlock();
            return Err(e);
        }
    }
    let r: R<T> = (|| {
        let meta = current_meta(a, h)?;
        let mut arr = Array::attach(&meta, &mut h.core)?;
        arr.set_scratch(std::mem::take(&mut h.array_scratch));
        let r = f(&mut arr);
        h.array_scratch = arr.take_scratch();
        let g = arr.geometry().clone();
        let mirrors = h.rebuild_mirrors();
        set_fields(a, &g, h);
        let v = r?;
        mirrors?;
        Ok(v)
    })();
    let u = h.core.unlock();
    let v = r?;
    u?;
    Ok(v)
}

/// Make a new array from a context with a new in-memory (or storage-defined) super-chunk.
///
/// # Safety
/// `ctx` must be a live context.
unsafe fn create_c(
    ctx: &mut b2nd_context_t,
    meta: &Meta,
    make: impl FnOnce(&mut Schunk, &Meta) -> R<()>,
) -> R<*mut b2nd_array_t> {
    let layers: Vec<(String, Vec<u8>)> = ctx
        .metalayers()
        .iter()
        .map(|(n, c)| {
            Ok((
                n.to_str().map_err(|_| Error::InvalidParam)?.to_string(),
                c.clone(),
            ))
        })
        .collect::<R<_>>()?;
    // SAFETY: forwarded.
    unsafe { create_c_with(ctx, meta, &layers, make) }
}

/// [`create_c`] with the user metalayers `layers` instead of the context's.
///
/// # Safety
/// As [`create_c`].
unsafe fn create_c_with(
    ctx: &mut b2nd_context_t,
    meta: &Meta,
    layers: &[(String, Vec<u8>)],
    make: impl FnOnce(&mut Schunk, &Meta) -> R<()>,
) -> R<*mut b2nd_array_t> {
    let mut storage = ctx.storage();
    // SAFETY: the storage's pointers live as long as the context.
    let sc = unsafe { super::schunk::blosc2_schunk_new(&mut storage) };
    // SAFETY: NULL or the handle just created.
    let Some(h) = (unsafe { handle(sc) }) else {
        crate::trace_error!("Cannot create the super-chunk of the array");
        return Err(Error::Failure);
    };
    let r = (|| {
        if !layers.is_empty() {
            // As C-Blosc2: the b2nd metalayer, then the user's, all before any data (a frame
            // takes no new metalayer after its first chunk); the array rewrites the first.
            h.core.meta_add(METALAYER_NAME, &meta.serialize()?)?;
            for (name, content) in layers {
                h.core.meta_add(name, content)?;
            }
        }
        make(&mut h.core, meta)?;
        let stored = Array::open(&mut h.core)?.meta();
        new_c_array(sc, &stored)
    })();
    if r.is_err() {
        // SAFETY: the super-chunk just created, not handed out.
        unsafe { super::schunk::blosc2_schunk_free(sc) };
    }
    r
}

/// # Safety
/// `ctx` NULL or live; `array` NULL or writable.
unsafe fn constructor(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
    fill: Fill<'_>,
) -> c_int {
    // SAFETY: NULL or live (caller).
    let (Some(ctx), false) = (unsafe { ctx.as_mut() }, array.is_null()) else {
        return null().code();
    };
    let meta = ctx.meta().clone();
    // SAFETY: the context is live.
    let r = unsafe { create_c(ctx, &meta, |sc, m| Array::create(sc, m, fill).map(|_| ())) };
    match r {
        Ok(p) => {
            // SAFETY: checked for NULL above.
            unsafe { *array = p };
            0
        }
        Err(e) => e.code(),
    }
}

/// Create an array whose chunks are uninitialised (nothing is written).
///
/// # Safety
/// `ctx` must be a live context; `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_uninit(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    // SAFETY: forwarded.
    guard(Error::Failure.code(), || unsafe {
        constructor(ctx, array, Fill::Uninit)
    })
}

/// Create an array whose content is unspecified (uninitialised special chunks).
///
/// # Safety
/// `ctx` must be a live context; `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_empty(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    // SAFETY: forwarded.
    guard(Error::Failure.code(), || unsafe {
        constructor(ctx, array, Fill::Uninit)
    })
}

/// Create an array filled with zeros.
///
/// # Safety
/// `ctx` must be a live context; `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_zeros(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    // SAFETY: forwarded.
    guard(Error::Failure.code(), || unsafe {
        constructor(ctx, array, Fill::Zero)
    })
}

/// Create an array filled with NaNs (item size 4 or 8).
///
/// # Safety
/// `ctx` must be a live context; `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_nans(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    // SAFETY: forwarded.
    guard(Error::Failure.code(), || unsafe {
        constructor(ctx, array, Fill::Nan)
    })
}

/// Create an array with every item equal to `fill_value` (`typesize` bytes).
///
/// # Safety
/// `ctx` must be a live context; `array` writable; `fill_value` readable for `typesize` bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_full(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
    fill_value: *const c_void,
) -> c_int {
    guard(Error::Failure.code(), || {
        if fill_value.is_null() || ctx.is_null() {
            return null().code();
        }
        // SAFETY: live context (caller).
        let ts = unsafe { (*ctx).cparams().typesize }.max(0) as usize;
        // SAFETY: readable for typesize bytes (caller).
        let v: &[u8] = unsafe { std::slice::from_raw_parts(fill_value as *const u8, ts) };
        // SAFETY: forwarded.
        unsafe { constructor(ctx, array, Fill::Value(v)) }
    })
}

/// Create an array from the C-order buffer `buffer` of `buffersize` bytes (at least the
/// array's items × typesize).
///
/// # Safety
/// `ctx` must be a live context; `array` writable; `buffer` readable for `buffersize` bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_from_cbuffer(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
    buffer: *const c_void,
    buffersize: i64,
) -> c_int {
    guard(Error::Failure.code(), || {
        if buffersize < 0 {
            return Error::InvalidParam.code();
        }
        // SAFETY: readable for buffersize bytes (caller).
        let Some(b) = (unsafe { super::slice(buffer, buffersize as usize) }) else {
            return null().code();
        };
        // SAFETY: forwarded.
        unsafe { constructor(ctx, array, Fill::Buffer(b)) }
    })
}

/// Free an array and its super-chunk.
///
/// # Safety
/// `array` must be NULL or a live array, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn b2nd_free(array: *mut b2nd_array_t) -> c_int {
    guard(Error::Failure.code(), || {
        if array.is_null() {
            return null().code();
        }
        // SAFETY: made by Box::into_raw in this module and owned by the caller.
        let a = unsafe { Box::from_raw(array) };
        // SAFETY: the super-chunk is NULL or owned by the array; the buffers are malloc'ed.
        unsafe {
            if !a.sc.is_null() {
                super::schunk::blosc2_schunk_free(a.sc);
            }
            libc::free(a.dtype as *mut c_void);
            libc::free(a.chunk_cache.data as *mut c_void);
        }
        0
    })
}

/// Copy the whole array into the C-order `buffer` of `buffersize` bytes (at least the
/// array's items × typesize).
///
/// # Safety
/// `array` must be live; `buffer` writable for `buffersize` bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_to_cbuffer(
    array: *const b2nd_array_t,
    buffer: *mut c_void,
    buffersize: i64,
) -> c_int {
    guard(Error::Failure.code(), || {
        if buffersize < 0 {
            return Error::InvalidParam.code();
        }
        // SAFETY: writable for buffersize bytes (caller).
        let Some(b) = (unsafe { super::slice_mut(buffer, buffersize as usize) }) else {
            return null().code();
        };
        // SAFETY: forwarded.
        code(unsafe { with_array(array, |a| a.to_cbuffer(b)) })
    })
}

/// Make an array of a super-chunk holding a `b2nd` (or `caterva`) metalayer. The array owns
/// the super-chunk from now on (freed by [`b2nd_free`]).
///
/// # Safety
/// `schunk` must be a live super-chunk; `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_from_schunk(
    schunk: *mut blosc2_schunk,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    guard(Error::Failure.code(), || {
        if array.is_null() {
            return null().code();
        }
        // SAFETY: NULL or live (caller).
        let Some(h) = (unsafe { handle(schunk) }) else {
            return null().code();
        };
        let r = Array::open(&mut h.core)
            .map(|a| a.meta())
            .and_then(|m| new_c_array(schunk, &m));
        match r {
            Ok(p) => {
                // SAFETY: checked for NULL.
                unsafe { *array = p };
                0
            }
            Err(e) => e.code(),
        }
    })
}

/// A C super-chunk (in memory) holding a copy of `sc`'s chunks and metalayers.
fn c_schunk_from(sc: Schunk) -> R<*mut blosc2_schunk> {
    let mut cp = super::callbacks::cparams_to_c(sc.cparams());
    cp.schunk = ptr::null_mut();
    let mut dp = super::callbacks::dparams_to_c(sc.dparams());
    dp.schunk = ptr::null_mut();
    let mut st = blosc2_storage {
        contiguous: 0,
        urlpath: ptr::null_mut(),
        cparams: &mut cp,
        dparams: &mut dp,
        io: ptr::null_mut(),
    };
    // SAFETY: a storage of local parameters.
    let p = unsafe { super::schunk::blosc2_schunk_new(&mut st) };
    // SAFETY: NULL or the handle just created.
    let Some(h) = (unsafe { handle(p) }) else {
        return Err(Error::Failure);
    };
    let r = (|| {
        for m in sc.metalayers() {
            h.core.meta_add(&m.name, &m.content)?;
        }
        for n in 0..sc.nchunks() {
            h.core.append_chunk(sc.get_chunk(n)?.into_owned())?;
        }
        Ok(())
    })();
    if let Err(e) = r {
        // SAFETY: just created, not handed out.
        unsafe { super::schunk::blosc2_schunk_free(p) };
        return Err(e);
    }
    Ok(p)
}

fn put(array: *mut *mut b2nd_array_t, r: R<*mut b2nd_array_t>) -> c_int {
    match r {
        Ok(p) => {
            // SAFETY: checked for NULL by the callers.
            unsafe { *array = p };
            0
        }
        Err(e) => e.code(),
    }
}

/// Take over a super-chunk just opened for an array (freed on error).
/// `missing`: the error when `sc` is NULL (C-Blosc2 gives -1 for a frame in memory that does
/// not open and -32 for a file).
fn array_of_new_schunk(sc: *mut blosc2_schunk, missing: Error) -> R<*mut b2nd_array_t> {
    if sc.is_null() {
        crate::trace_error!("Cannot get the super-chunk of the array");
        return Err(missing);
    }
    // SAFETY: a live handle just created by this library.
    let h = unsafe { handle(sc) }.ok_or_else(null)?;
    let r = Array::open(&mut h.core)
        .map(|a| a.meta())
        .and_then(|m| new_c_array(sc, &m));
    if r.is_err() {
        // SAFETY: not handed out.
        unsafe { super::schunk::blosc2_schunk_free(sc) };
    }
    r
}

/// Make an array from a contiguous frame in memory (`copy`: as `blosc2_schunk_from_buffer`).
///
/// # Safety
/// `cframe` must be readable for `cframe_len` bytes (and stay alive with the array when
/// `copy` is false); `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_from_cframe(
    cframe: *mut u8,
    cframe_len: i64,
    copy: bool,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    guard(Error::Failure.code(), || {
        if array.is_null() || cframe.is_null() {
            return null().code();
        }
        if cframe_len <= 0 {
            crate::trace_error!("The frame length must be positive");
            return Error::Failure.code();
        }
        // SAFETY: forwarded.
        let sc = unsafe { super::frame::blosc2_schunk_from_buffer(cframe, cframe_len, copy) };
        put(array, array_of_new_schunk(sc, Error::Failure))
    })
}

/// Serialise an array as a contiguous frame (as `blosc2_schunk_to_buffer`): `*cframe`
/// receives the frame of `*cframe_len` bytes; `*needs_free` tells whether the caller must
/// `free()` it.
///
/// # Safety
/// `array` must be live; the output pointers writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_to_cframe(
    array: *const b2nd_array_t,
    cframe: *mut *mut u8,
    cframe_len: *mut i64,
    needs_free: *mut bool,
) -> c_int {
    guard(Error::Failure.code(), || {
        if cframe.is_null() || cframe_len.is_null() || needs_free.is_null() || array.is_null() {
            return null().code();
        }
        // SAFETY: live (caller).
        let sc = unsafe { (*array).sc };
        if sc.is_null() {
            return null().code();
        }
        // SAFETY: forwarded.
        let len = unsafe { super::frame::blosc2_schunk_to_buffer(sc, cframe, needs_free) };
        if len < 0 {
            return len as c_int;
        }
        // SAFETY: checked for NULL.
        unsafe { *cframe_len = len };
        0
    })
}

/// # Safety
/// `urlpath` NUL-terminated.
unsafe fn path_of<'a>(urlpath: *const c_char) -> R<&'a Path> {
    if urlpath.is_null() {
        return Err(null());
    }
    // SAFETY: NUL-terminated (caller).
    let s = unsafe { CStr::from_ptr(urlpath) }
        .to_str()
        .map_err(|_| Error::InvalidParam)?;
    Ok(Path::new(s))
}

/// Open the array stored at `urlpath` (a `.b2nd` contiguous frame file or a sparse frame
/// directory), backed by it (as `blosc2_schunk_open`).
///
/// # Safety
/// `urlpath` NUL-terminated; `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_open(urlpath: *const c_char, array: *mut *mut b2nd_array_t) -> c_int {
    // SAFETY: forwarded.
    unsafe { b2nd_open_offset(urlpath, array, 0) }
}

/// Open the array stored at `offset` of the file `urlpath` (see [`b2nd_open`]).
///
/// # Safety
/// `urlpath` NUL-terminated; `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_open_offset(
    urlpath: *const c_char,
    array: *mut *mut b2nd_array_t,
    offset: i64,
) -> c_int {
    guard(Error::Failure.code(), || {
        if array.is_null() || urlpath.is_null() {
            return null().code();
        }
        if offset < 0 {
            // as C-Blosc2: the super-chunk does not open (-32)
            crate::trace_error!("Negative frame offset is not valid: {}", offset);
            return Error::NullPointer.code();
        }
        // SAFETY: forwarded.
        let sc = unsafe { super::frame::blosc2_schunk_open_offset(urlpath, offset) };
        put(array, array_of_new_schunk(sc, Error::NullPointer))
    })
}

/// Save an array to `urlpath`: a contiguous frame file when the array's super-chunk is
/// contiguous, else (as C-Blosc2) a sparse frame directory.
///
/// # Safety
/// `array` live; `urlpath` NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn b2nd_save(array: *const b2nd_array_t, urlpath: *mut c_char) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: forwarded.
        let r = unsafe { path_of(urlpath) }.and_then(|p| {
            // SAFETY: forwarded.
            let bytes = unsafe { with_array(array, |a| a.to_cframe()) }?;
            // SAFETY: checked live by with_array; the storage is NULL or ours.
            let contiguous =
                unsafe { (*(*array).sc).storage.as_ref() }.is_some_and(|st| st.contiguous != 0);
            let loc = if contiguous {
                Location::File {
                    path: p.to_path_buf(),
                    offset: 0,
                }
            } else {
                Location::Dir(p.to_path_buf())
            };
            Frame::from_bytes(bytes)?.copy_to(loc, Arc::new(StdIo))?;
            Ok(())
        });
        code(r)
    })
}

/// Append an array as a contiguous frame to the end of the file `urlpath`; returns the offset
/// where it starts (for [`b2nd_open_offset`]) or a negative error code.
///
/// # Safety
/// `array` live; `urlpath` NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn b2nd_save_append(
    array: *const b2nd_array_t,
    urlpath: *const c_char,
) -> i64 {
    guard(Error::Failure.code() as i64, || {
        if !array.is_null() && urlpath.is_null() {
            crate::trace_error!("urlpath cannot be NULL");
            return Error::InvalidParam.code() as i64;
        }
        // SAFETY: forwarded.
        let r = unsafe { path_of(urlpath) }.and_then(|p| {
            // SAFETY: forwarded.
            let bytes = unsafe { with_array(array, |a| a.to_cframe()) }?;
            Frame::append_file(p, &bytes, &StdIo)
        });
        match r {
            Ok(off) => off as i64,
            Err(e) => e.code() as i64,
        }
    })
}

/// # Safety
/// `ctx` NULL or live.
unsafe fn ctx_of<'a>(ctx: *mut b2nd_context_t) -> R<&'a mut b2nd_context_t> {
    // SAFETY: NULL or live (caller).
    unsafe { ctx.as_mut() }.ok_or_else(null)
}

/// Copy an array into a new one made with `ctx` (its shape is replaced by `src`'s).
///
/// # Safety
/// `ctx`, `src` live; `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_copy(
    ctx: *mut b2nd_context_t,
    src: *const b2nd_array_t,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    guard(Error::Failure.code(), || {
        if array.is_null() || src.is_null() {
            return null().code();
        }
        // SAFETY: forwarded.
        let r = unsafe { ctx_of(ctx) }.and_then(|ctx| {
            // SAFETY: live (caller).
            let shape = c_meta(unsafe { &*src })?.shape;
            let zero = vec![0i64; shape.len()];
            // SAFETY: the source array and its super-chunk are live (caller).
            let src_h = unsafe { handle((*src).sc) }.ok_or_else(null)?;
            // As C-Blosc2, the copy carries the source's user metalayers (not the context's)
            // and its vlmetalayers.
            let layers: Vec<(String, Vec<u8>)> = src_h
                .core
                .metalayers()
                .iter()
                .filter(|m| m.name != METALAYER_NAME)
                .map(|m| (m.name.clone(), m.content.clone()))
                .collect();
            let vlayers = src_h
                .core
                .vlmetalayers()
                .iter()
                .map(|m| Ok((m.name.clone(), src_h.core.vlmeta_get(&m.name)?)))
                .collect::<R<Vec<_>>>()?;
            // SAFETY: forwarded.
            let p = unsafe { slice_new(ctx, src, &zero, &shape, Some(&layers)) }?;
            // SAFETY: the array just made.
            let h = unsafe { handle((*p).sc) }.ok_or_else(null)?;
            let r = (|| {
                let cp = h.core.cparams().clone();
                for (name, content) in &vlayers {
                    h.core.vlmeta_add(name, content, &cp)?;
                }
                h.rebuild_mirrors()
            })();
            if let Err(e) = r {
                // SAFETY: the array just made, not handed out.
                unsafe { b2nd_free(p) };
                return Err(e);
            }
            Ok(p)
        });
        put(array, r)
    })
}

/// # Safety
/// `src` live.
unsafe fn slice_new(
    ctx: &mut b2nd_context_t,
    src: *const b2nd_array_t,
    start: &[i64],
    stop: &[i64],
    layers: Option<&[(String, Vec<u8>)]>,
) -> R<*mut b2nd_array_t> {
    let mut meta = ctx.meta().clone();
    // SAFETY: live (caller).
    let smeta = c_meta(unsafe { &*src })?;
    if meta.ndim() != smeta.ndim() {
        crate::trace_error!("The context and the source array differ in ndim");
        return Err(Error::InvalidParam);
    }
    // SAFETY: the source array and its super-chunk are live (caller).
    let src_h = unsafe { handle((*src).sc) }.ok_or_else(null)?;
    if ctx.cparams().typesize != src_h.core.typesize() {
        crate::trace_error!("The context and the source array differ in typesize");
        return Err(Error::InvalidParam);
    }
    meta.shape = stop.iter().zip(start).map(|(b, a)| b - a).collect();
    let make = |sc: &mut Schunk, m: &Meta| {
        // SAFETY: the source array is live (caller).
        unsafe { with_array(src, |a| a.slice_to(&mut *sc, m, start, stop).map(|_| ())) }
    };
    // SAFETY: forwarded.
    unsafe {
        match layers {
            Some(l) => create_c_with(ctx, &meta, l, make),
            None => create_c(ctx, &meta, make),
        }
    }
}

/// # Safety
/// `p` readable for `n` items when `n > 0`.
unsafe fn coords(p: *const i64, n: usize) -> R<Vec<i64>> {
    // SAFETY: forwarded.
    unsafe { read_array(p, n) }.ok_or_else(null)
}

fn ndim_of(a: *const b2nd_array_t) -> R<usize> {
    // SAFETY: NULL or live (callers).
    let a = unsafe { a.as_ref() }.ok_or_else(null)?;
    if a.ndim < 0 || a.ndim as usize > MAX_DIM {
        return Err(Error::InvalidParam);
    }
    Ok(a.ndim as usize)
}

/// The slice `[start, stop)` of `src` as a new array made with `ctx` (shape `stop - start`).
///
/// # Safety
/// `ctx`, `src` live; `start`/`stop` readable for ndim items; `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_slice(
    ctx: *mut b2nd_context_t,
    array: *mut *mut b2nd_array_t,
    src: *const b2nd_array_t,
    start: *const i64,
    stop: *const i64,
) -> c_int {
    guard(Error::Failure.code(), || {
        if array.is_null() {
            return null().code();
        }
        let r = (|| {
            let n = ndim_of(src)?;
            // SAFETY: forwarded.
            let (s, e) = unsafe { (coords(start, n)?, coords(stop, n)?) };
            // SAFETY: forwarded.
            unsafe { slice_new(ctx_of(ctx)?, src, &s, &e, None) }
        })();
        put(array, r)
    })
}

/// Copy the slice `[start, stop)` into the C-order `buffer` of shape `buffershape`
/// (`buffersize` bytes, at least product(buffershape) × typesize).
///
/// # Safety
/// `array` live; the coordinate arrays readable for ndim items; `buffer` writable for
/// `buffersize` bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_slice_cbuffer(
    array: *const b2nd_array_t,
    start: *const i64,
    stop: *const i64,
    buffer: *mut c_void,
    buffershape: *const i64,
    buffersize: i64,
) -> c_int {
    guard(Error::Failure.code(), || {
        let r = (|| {
            let n = ndim_of(array)?;
            // SAFETY: forwarded.
            let (s, e, bs) =
                unsafe { (coords(start, n)?, coords(stop, n)?, coords(buffershape, n)?) };
            if buffersize < 0 {
                return Err(Error::InvalidParam);
            }
            // SAFETY: writable for buffersize bytes (caller).
            let b = unsafe { super::slice_mut(buffer, buffersize as usize) }.ok_or_else(null)?;
            // SAFETY: forwarded.
            unsafe { with_array(array, |a| a.get_slice_cbuffer(&s, &e, b, &bs)) }
        })();
        code(r)
    })
}

/// Write the C-order `buffer` of shape `buffershape` to the slice `[start, stop)`.
///
/// # Safety
/// `array` live; the coordinate arrays readable for ndim items; `buffer` readable for
/// `buffersize` bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_set_slice_cbuffer(
    buffer: *const c_void,
    buffershape: *const i64,
    buffersize: i64,
    start: *const i64,
    stop: *const i64,
    array: *mut b2nd_array_t,
) -> c_int {
    guard(Error::Failure.code(), || {
        let r = (|| {
            let n = ndim_of(array)?;
            // SAFETY: forwarded.
            let (s, e, bs) =
                unsafe { (coords(start, n)?, coords(stop, n)?, coords(buffershape, n)?) };
            if buffersize < 0 {
                return Err(Error::InvalidParam);
            }
            // SAFETY: readable for buffersize bytes (caller).
            let b = unsafe { super::slice(buffer, buffersize as usize) }.ok_or_else(null)?;
            // SAFETY: forwarded.
            unsafe { with_array_mut(array, |a| a.set_slice_cbuffer(b, &bs, &s, &e)) }
        })();
        code(r)
    })
}

/// Gather `ncoords` items by flat C-order indices in `[0, nitems)` into `buffer` (in the
/// order of `coords`).
///
/// # Safety
/// `array` live; `coords` readable for `ncoords` items; `buffer` writable for `buffersize`
/// bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_sparse_cbuffer(
    array: *const b2nd_array_t,
    ncoords: i64,
    coords: *const i64,
    buffer: *mut c_void,
    buffersize: i64,
) -> c_int {
    guard(Error::Failure.code(), || {
        let r = (|| {
            ndim_of(array)?;
            if ncoords < 0 || buffersize < 0 {
                return Err(Error::InvalidParam);
            }
            if ncoords == 0 {
                return Ok(());
            }
            if ncoords > i64::MAX / 256 {
                // more coordinates than any allocation can hold (C-Blosc2: -4)
                crate::trace_error!("Too many coordinates: {}", ncoords);
                return Err(Error::MemoryAlloc);
            }
            // SAFETY: forwarded.
            let c = unsafe { read_array(coords, ncoords as usize) }.ok_or_else(null)?;
            // SAFETY: writable for buffersize bytes (caller).
            let b = unsafe { super::slice_mut(buffer, buffersize as usize) }.ok_or_else(null)?;
            // SAFETY: forwarded.
            unsafe { with_array(array, |a| a.get_sparse_cbuffer(&c, b)) }
        })();
        code(r)
    })
}

/// # Safety
/// `selection` readable for `n` pointers, each readable for `selection_size[i]` items.
unsafe fn read_selection(
    selection: *mut *mut i64,
    selection_size: *mut i64,
    n: usize,
) -> R<Vec<Vec<i64>>> {
    // SAFETY: forwarded.
    let sizes = unsafe { read_array(selection_size as *const i64, n) }.ok_or_else(null)?;
    // SAFETY: forwarded.
    let ptrs = unsafe { read_array(selection as *const *mut i64, n) }.ok_or_else(null)?;
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        if sizes[i] < 0 {
            return Err(Error::InvalidParam);
        }
        // SAFETY: forwarded.
        out.push(unsafe { read_array(ptrs[i] as *const i64, sizes[i] as usize) }.ok_or_else(null)?);
    }
    Ok(out)
}

/// C-Blosc2's buffer check for orthogonal selections, made before the buffer and its shape
/// are looked at: a `buffersize` larger than the selection's bytes is -12 (and b2rs also
/// refuses a negative one, which C-Blosc2 takes as large enough).
///
/// # Safety
/// `array` live (checked by the caller).
unsafe fn check_selection_size(
    array: *const b2nd_array_t,
    sel: &[Vec<i64>],
    buffersize: i64,
) -> R<()> {
    // SAFETY: live (caller); its super-chunk mirror is ours.
    let typesize = unsafe { (*array).sc.as_ref() }.map_or(0, |sc| sc.typesize) as i64;
    let sel_bytes = sel
        .iter()
        .fold(typesize, |acc, v| acc.saturating_mul(v.len() as i64));
    if buffersize < 0 || sel_bytes < buffersize {
        crate::trace_error!(
            "The buffer size ({}) must not exceed the selection's {} bytes",
            buffersize,
            sel_bytes
        );
        return Err(Error::InvalidParam);
    }
    Ok(())
}

/// Read an orthogonal selection (`selection[i]`: `selection_size[i]` indices of dimension
/// `i`; negative ones count from the end) into the C-order `buffer` of shape `buffershape`,
/// which must equal `selection_size`. Indices out of range and a buffer smaller than the
/// selection are errors (C-Blosc2 reads out of bounds); as in C-Blosc2, so is a
/// `buffersize` larger than the selection.
///
/// # Safety
/// `array` live; the selection arrays readable; `buffershape` readable for ndim items;
/// `buffer` writable for `buffersize` bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_get_orthogonal_selection(
    array: *const b2nd_array_t,
    selection: *mut *mut i64,
    selection_size: *mut i64,
    buffer: *mut c_void,
    buffershape: *mut i64,
    buffersize: i64,
) -> c_int {
    guard(Error::Failure.code(), || {
        let r = (|| {
            let n = ndim_of(array)?;
            // SAFETY: forwarded.
            let sel = unsafe { read_selection(selection, selection_size, n)? };
            // SAFETY: forwarded.
            unsafe { check_selection_size(array, &sel, buffersize)? };
            // SAFETY: forwarded.
            let bs = unsafe { coords(buffershape, n)? };
            // SAFETY: writable for buffersize bytes (caller).
            let b = unsafe { super::slice_mut(buffer, buffersize as usize) }.ok_or_else(null)?;
            // SAFETY: forwarded.
            unsafe { with_array(array, |a| a.get_orthogonal_selection(&sel, b, &bs)) }
        })();
        code(r)
    })
}

/// Write an orthogonal selection from the C-order `buffer` of shape `buffershape`.
///
/// # Safety
/// As [`b2nd_get_orthogonal_selection`], `buffer` readable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_set_orthogonal_selection(
    array: *mut b2nd_array_t,
    selection: *mut *mut i64,
    selection_size: *mut i64,
    buffer: *const c_void,
    buffershape: *mut i64,
    buffersize: i64,
) -> c_int {
    guard(Error::Failure.code(), || {
        let r = (|| {
            let n = ndim_of(array)?;
            // SAFETY: forwarded.
            let sel = unsafe { read_selection(selection, selection_size, n)? };
            // SAFETY: forwarded.
            unsafe { check_selection_size(array, &sel, buffersize)? };
            // SAFETY: forwarded.
            let bs = unsafe { coords(buffershape, n)? };
            // SAFETY: readable for buffersize bytes (caller).
            let b = unsafe { super::slice(buffer, buffersize as usize) }.ok_or_else(null)?;
            // SAFETY: forwarded.
            unsafe { with_array_mut(array, |a| a.set_orthogonal_selection(&sel, b, &bs)) }
        })();
        code(r)
    })
}

/// Change the shape of an array. With `start`, dimension `i` grows by inserting zeros at
/// `start[i]` or shrinks by removing items from `start[i]` (a position other than the end
/// and the change must then be multiples of the chunk shape); with NULL, at the end.
///
/// # Safety
/// `array` live; `new_shape` (and `start` unless NULL) readable for ndim items.
#[no_mangle]
pub unsafe extern "C" fn b2nd_resize(
    array: *mut b2nd_array_t,
    new_shape: *const i64,
    start: *const i64,
) -> c_int {
    guard(Error::Failure.code(), || {
        let r = (|| {
            let n = ndim_of(array)?;
            if new_shape.is_null() {
                return Err(null());
            }
            // SAFETY: forwarded.
            let ns = unsafe { coords(new_shape, n)? };
            let st = if start.is_null() {
                None
            } else {
                // SAFETY: forwarded.
                Some(unsafe { coords(start, n)? })
            };
            // SAFETY: forwarded.
            unsafe { with_array_mut(array, |a| a.resize(&ns, st.as_deref())) }
        })();
        code(r)
    })
}

/// Insert the C-order items of `buffer` along `axis` at `insert_start`.
///
/// # Safety
/// `array` live; `buffer` readable for `buffersize` bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_insert(
    array: *mut b2nd_array_t,
    buffer: *const c_void,
    buffersize: i64,
    axis: i8,
    insert_start: i64,
) -> c_int {
    guard(Error::Failure.code(), || {
        let r = (|| {
            let n = ndim_of(array)?;
            if axis < 0 || axis as usize >= n || buffersize < 0 {
                crate::trace_error!("axis must be in [0, ndim) and buffersize non-negative");
                return Err(Error::InvalidParam);
            }
            // SAFETY: readable (caller).
            let b = unsafe { super::slice(buffer, buffersize as usize) }.ok_or_else(null)?;
            // SAFETY: forwarded.
            unsafe { with_array_mut(array, |a| a.insert(b, axis as usize, insert_start)) }
        })();
        code(r)
    })
}

/// Append the C-order items of `buffer` at the end of `axis`.
///
/// # Safety
/// `array` live; `buffer` readable for `buffersize` bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_append(
    array: *mut b2nd_array_t,
    buffer: *const c_void,
    buffersize: i64,
    axis: i8,
) -> c_int {
    guard(Error::Failure.code(), || {
        let r = (|| {
            let n = ndim_of(array)?;
            if axis < 0 || axis as usize >= n || buffersize < 0 {
                crate::trace_error!("axis must be in [0, ndim) and buffersize non-negative");
                return Err(Error::InvalidParam);
            }
            // SAFETY: readable (caller).
            let b = unsafe { super::slice(buffer, buffersize as usize) }.ok_or_else(null)?;
            // SAFETY: forwarded.
            unsafe { with_array_mut(array, |a| a.append(b, axis as usize)) }
        })();
        code(r)
    })
}

/// Remove `delete_len` items of `axis` from `delete_start`.
///
/// # Safety
/// `array` live.
#[no_mangle]
pub unsafe extern "C" fn b2nd_delete(
    array: *mut b2nd_array_t,
    axis: i8,
    delete_start: i64,
    delete_len: i64,
) -> c_int {
    guard(Error::Failure.code(), || {
        let r = (|| {
            let n = ndim_of(array)?;
            if axis < 0 || axis as usize >= n {
                crate::trace_error!("axis must be in [0, ndim)");
                return Err(Error::InvalidParam);
            }
            // SAFETY: forwarded.
            unsafe { with_array_mut(array, |a| a.delete(axis as usize, delete_start, delete_len)) }
        })();
        code(r)
    })
}

/// A view of `array` described by `meta`, whose chunks are those of `array` laid out alike
/// (dimensions of size 1 and chunk and block length 1 added or removed): a new C array on the
/// same super-chunk, which it shares (reads and writes through either reach the other; the
/// super-chunk goes with the last of them), as C-Blosc2's views. Other descriptions get a
/// copy ([`reshaped`]).
///
/// # Safety
/// `array` live.
unsafe fn view_of(array: *const b2nd_array_t, meta: &Meta) -> R<*mut b2nd_array_t> {
    // SAFETY: live (caller).
    let a = unsafe { &*array };
    let m = c_meta(a)?;
    let unit = |shape: &[i64], cs: &[i32], bs: &[i32], other: &Meta| {
        // the dimensions present in one description only must be unit ones
        let kept: Vec<usize> = (0..shape.len())
            .filter(|&i| !(shape[i] == 1 && cs[i] == 1 && bs[i] == 1))
            .collect();
        let okept: Vec<usize> = (0..other.shape.len())
            .filter(|&i| {
                !(other.shape[i] == 1 && other.chunkshape[i] == 1 && other.blockshape[i] == 1)
            })
            .collect();
        kept.len() == okept.len()
            && kept.iter().zip(&okept).all(|(&i, &j)| {
                shape[i] == other.shape[j]
                    && cs[i] == other.chunkshape[j]
                    && bs[i] == other.blockshape[j]
            })
    };
    if !unit(&m.shape, &m.chunkshape, &m.blockshape, meta) {
        // SAFETY: forwarded.
        return unsafe { reshaped(array, meta) };
    }
    // SAFETY: the array's super-chunk is live.
    let h = unsafe { handle(a.sc) }.ok_or_else(null)?;
    let p = new_c_array(a.sc, meta)?;
    h.extra_owners += 1;
    Ok(p)
}

/// A new array holding the data of `array` with the description `meta` (same items in C
/// order), in memory with the same parameters.
///
/// # Safety
/// `array` live.
unsafe fn reshaped(array: *const b2nd_array_t, meta: &Meta) -> R<*mut b2nd_array_t> {
    // SAFETY: forwarded.
    let (data, cp, dp) = unsafe {
        with_array(array, |a| {
            let data = a.to_vec()?;
            let s = a.schunk();
            Ok((data, s.cparams().clone(), s.dparams().clone()))
        })?
    };
    let mut sc = Schunk::new(cp, dp);
    Array::create(&mut sc, meta, Fill::Buffer(&data))?;
    let p = c_schunk_from(sc)?;
    let r = new_c_array(p, meta);
    if r.is_err() {
        // SAFETY: just created, not handed out.
        unsafe { super::schunk::blosc2_schunk_free(p) };
    }
    r
}

/// Remove the dimensions of size 1 flagged in `index` (a dimension flagged but not of size 1
/// is `BLOSC2_ERROR_INVALID_INDEX`). `*view` receives a view sharing the array's super-chunk
/// (to be freed with [`b2nd_free`], before or after `array`); `array` is left as it is.
///
/// # Safety
/// `array` live; `index` readable for ndim items; `view` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_squeeze_index(
    array: *mut b2nd_array_t,
    view: *mut *mut b2nd_array_t,
    index: *const bool,
) -> c_int {
    guard(Error::Failure.code(), || {
        if view.is_null() {
            return null().code();
        }
        let r = (|| {
            let n = ndim_of(array)?;
            // SAFETY: forwarded.
            let idx = unsafe { read_array(index, n) }.ok_or_else(null)?;
            // SAFETY: live (checked by ndim_of).
            let a = unsafe { &*array };
            // SAFETY: the array's super-chunk is live.
            let h = unsafe { handle(a.sc) }.ok_or_else(null)?;
            if h.core.metalayers().iter().any(|m| m.name != METALAYER_NAME) {
                crate::trace_error!(
                    "Cannot squeeze dimensions of an array with non-b2nd metalayers"
                );
                return Err(Error::InvalidParam);
            }
            let m = c_meta(a)?;
            let mut out = Meta {
                shape: vec![],
                chunkshape: vec![],
                blockshape: vec![],
                ..m.clone()
            };
            for (i, &squeeze) in idx.iter().enumerate() {
                if squeeze {
                    if m.shape[i] != 1 {
                        crate::trace_error!("Dimension {i} does not have size 1");
                        return Err(Error::InvalidIndex);
                    }
                } else {
                    out.shape.push(m.shape[i]);
                    out.chunkshape.push(m.chunkshape[i]);
                    out.blockshape.push(m.blockshape[i]);
                }
            }
            // SAFETY: forwarded.
            unsafe { view_of(array, &out) }
        })();
        put(view, r)
    })
}

/// Remove all the dimensions of size 1 (see [`b2nd_squeeze_index`]).
///
/// # Safety
/// `array` live; `view` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_squeeze(
    array: *mut b2nd_array_t,
    view: *mut *mut b2nd_array_t,
) -> c_int {
    guard(Error::Failure.code(), || {
        let n = match ndim_of(array) {
            Ok(n) => n,
            Err(e) => return e.code(),
        };
        // SAFETY: live (checked).
        let a = unsafe { &*array };
        let index: Vec<bool> = (0..n).map(|i| a.shape[i] == 1).collect();
        // SAFETY: forwarded; `index` holds ndim items.
        unsafe { b2nd_squeeze_index(array, view, index.as_ptr()) }
    })
}

/// Insert dimensions of size 1 (chunk and block size 1): the result has `final_dims`
/// dimensions, `axis[i]` telling whether dimension `i` is a new one. `*view` receives a view
/// sharing the array's super-chunk (see [`b2nd_squeeze_index`]).
///
/// # Safety
/// `array` live; `axis` readable for `final_dims` items; `view` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_expand_dims(
    array: *const b2nd_array_t,
    view: *mut *mut b2nd_array_t,
    axis: *const bool,
    final_dims: u8,
) -> c_int {
    guard(Error::Failure.code(), || {
        if view.is_null() {
            return null().code();
        }
        let r = (|| {
            let n = ndim_of(array)?;
            let f = final_dims as usize;
            if f > MAX_DIM {
                crate::trace_error!("final_dims exceeds {MAX_DIM}");
                return Err(Error::InvalidParam);
            }
            // SAFETY: forwarded.
            let ax = unsafe { read_array(axis, f) }.ok_or_else(null)?;
            if f != n + ax.iter().filter(|&&x| x).count() {
                crate::trace_error!("final_dims must be ndim plus the number of new axes");
                return Err(Error::InvalidParam);
            }
            // SAFETY: live (checked).
            let m = c_meta(unsafe { &*array })?;
            let mut out = Meta {
                shape: vec![],
                chunkshape: vec![],
                blockshape: vec![],
                ..m.clone()
            };
            let mut j = 0;
            for &new in &ax {
                if new {
                    out.shape.push(1);
                    out.chunkshape.push(1);
                    out.blockshape.push(1);
                } else {
                    out.shape.push(m.shape[j]);
                    out.chunkshape.push(m.chunkshape[j]);
                    out.blockshape.push(m.blockshape[j]);
                    j += 1;
                }
            }
            // SAFETY: forwarded.
            unsafe { view_of(array, &out) }
        })();
        put(view, r)
    })
}

/// Concatenate `src1` and `src2` along `axis`: with `copy`, into a new array made with `ctx`;
/// without, `src1` grows and `*array` receives `src1`.
///
/// # Safety
/// `ctx`, `src1`, `src2` live (`src1` is modified when `copy` is false); `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_concatenate(
    ctx: *mut b2nd_context_t,
    src1: *const b2nd_array_t,
    src2: *const b2nd_array_t,
    axis: i8,
    copy: bool,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    guard(Error::Failure.code(), || {
        if array.is_null() {
            return null().code();
        }
        let r = (|| {
            let n = ndim_of(src1)?;
            ndim_of(src2)?;
            if axis < 0 || axis as usize >= n {
                crate::trace_error!("axis must be in [0, ndim)");
                return Err(Error::InvalidParam);
            }
            let ax = axis as usize;
            // SAFETY: both checked for NULL by ndim_of and live (caller).
            if ptr::eq(src1, src2) || unsafe { (*src1).sc == (*src2).sc } {
                // an array concatenated with itself (C-Blosc2 allows it): the second operand
                // is an in-memory copy of the first, taken before anything changes
                // SAFETY: forwarded.
                let mut b = Array::from_cframe(unsafe { with_array(src2, |a| a.to_cframe())? })?;
                if !copy {
                    // SAFETY: forwarded.
                    unsafe { with_array_mut(src1, |a| concatenate_into(a, &mut b, ax))? };
                    return Ok(src1 as *mut b2nd_array_t);
                }
                // SAFETY: forwarded.
                let ctx = unsafe { ctx_of(ctx)? };
                let meta = ctx.meta().clone();
                // SAFETY: forwarded.
                return unsafe {
                    create_c(ctx, &meta, |sc, m| {
                        with_array(src1, |a| {
                            concatenate(a, &mut b, ax, &mut *sc, m).map(|_| ())
                        })
                    })
                };
            }
            if !copy {
                // SAFETY: forwarded; distinct arrays.
                unsafe {
                    with_array_mut(src1, |a| with_array(src2, |b| concatenate_into(a, b, ax)))?;
                }
                return Ok(src1 as *mut b2nd_array_t);
            }
            // SAFETY: forwarded.
            let ctx = unsafe { ctx_of(ctx)? };
            let meta = ctx.meta().clone();
            // SAFETY: forwarded.
            unsafe {
                create_c(ctx, &meta, |sc, m| {
                    with_array(src1, |a| {
                        with_array(src2, |b| concatenate(a, b, ax, &mut *sc, m).map(|_| ()))
                    })
                })
            }
        })();
        put(array, r)
    })
}

/// Print the `b2nd` metalayer of an array to stdout.
///
/// # Safety
/// `array` live.
#[no_mangle]
pub unsafe extern "C" fn b2nd_print_meta(array: *const b2nd_array_t) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: forwarded.
        let r = unsafe {
            with_array(array, |a| {
                let s = a.schunk();
                let find = |name: &str| {
                    s.metalayers()
                        .iter()
                        .find(|m| m.name == name)
                        .map(|m| m.content.as_slice())
                };
                Meta::from_metalayers(find(METALAYER_NAME), find("caterva"))
            })
        };
        let m = match r {
            Ok(m) => m,
            Err(e) => return e.code(),
        };
        let join = |v: Vec<String>| v.join(", ");
        let text = format!(
            "b2nd metalayer parameters:\n Ndim:       {}\n shape:      {}\n chunkshape: {}\n dtype: {}\n blockshape: {}\n",
            m.ndim(),
            join(m.shape.iter().map(|x| x.to_string()).collect()),
            join(m.chunkshape.iter().map(|x| x.to_string()).collect()),
            String::from_utf8_lossy(m.dtype_or_default()),
            join(m.blockshape.iter().map(|x| x.to_string()).collect()),
        );
        // SAFETY: C stdio, a NUL-free string printed with a "%s" format.
        unsafe {
            let c = std::ffi::CString::new(text.replace('\0', "")).unwrap_or_default();
            libc::printf(c"%s".as_ptr(), c.as_ptr());
        }
        0
    })
}

/// Bring the public fields up to date with the `b2nd` metalayer of the super-chunk (changed
/// through another handle). Returns 1 when the shape changed, 0 when it was current, and
/// `BLOSC2_ERROR_DATA` when ndim, chunk or block shape changed.
///
/// # Safety
/// `array` live.
#[no_mangle]
pub unsafe extern "C" fn b2nd_refresh(array: *mut b2nd_array_t) -> c_int {
    guard(Error::Failure.code(), || {
        let r = (|| {
            // SAFETY: NULL or live (caller).
            let a = unsafe { array.as_mut() }.ok_or_else(null)?;
            let cur = c_meta(a)?;
            // SAFETY: the array's super-chunk is live.
            let h = unsafe { handle(a.sc) }.ok_or_else(null)?;
            h.resync()?;
            let stored = Array::open(&mut h.core)?.meta();
            if stored.ndim() != cur.ndim()
                || stored.chunkshape != cur.chunkshape
                || stored.blockshape != cur.blockshape
            {
                crate::trace_error!("The array's ndim, chunk or block shape changed");
                return Err(Error::Data);
            }
            let changed = stored.shape != cur.shape;
            h.rebuild_mirrors()?;
            set_fields(a, &stored.geometry()?, h);
            Ok(changed as c_int)
        })();
        match r {
            Ok(n) => n,
            Err(e) => e.code(),
        }
    })
}
