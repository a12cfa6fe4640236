//! b2nd arrays through the C API (areas 12a–12e of API.md): constructors, buffers, frames,
//! slices, selections and shape changes of `b2nd_array_t`.
//!
//! A `b2nd_array_t` is a public struct that C programs read: after every call all its fields
//! (shapes, padded shapes, item counts, strides, dtype) describe the array. Each call rebuilds
//! the core [`Array`] from those fields on the super-chunk behind `sc` (through the super-chunk
//! API, whatever its storage), runs the operation and writes the fields back.

mod frames;
mod shape;
mod slices;

use frames::{c_schunk_from, put};
// the exported functions, at the paths they had before the split
pub use frames::*;
use shape::is_view_of;
pub use shape::*;
pub use slices::*;
use slices::{coords, ctx_of, ndim_of};

use super::b2nd::{b2nd_context_t, read_array};
use super::guard;
use super::schunk::{handle, SchunkHandle};
use super::types::*;
use crate::b2nd::array::{concatenate, concatenate_into, Array, Fill};
use crate::b2nd::{Geometry, Meta, MAX_DIM, METALAYER_NAME};
use crate::frame::{Frame, Location, LockMode};
use crate::schunk::Schunk;
use crate::Error;
use core::ffi::{c_char, c_int, c_void, CStr};
use std::path::Path;
use std::ptr;

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
        let rc = unsafe {
            let rc = if a.sc.is_null() {
                0
            } else {
                // a frame on `s3://` is uploaded here: its error is returned
                super::schunk::blosc2_schunk_free(a.sc)
            };
            libc::free(a.dtype as *mut c_void);
            libc::free(a.chunk_cache.data as *mut c_void);
            rc
        };
        rc.min(0)
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
            // As C-Blosc2: nothing to follow in memory, or when nothing changed since the
            // array's last call.
            if h.core.frame().is_none() || a.last_tick == h.core.change_tick() {
                return Ok(0);
            }
            let stored = Array::open(&mut h.core)?.meta();
            if stored.ndim() != cur.ndim()
                || stored.chunkshape != cur.chunkshape
                || stored.blockshape != cur.blockshape
            {
                if is_view_of(&cur, &stored) {
                    // a view (squeeze, expand_dims) keeps its own shapes, as C-Blosc2's views
                    // (with a super-chunk of their own) do
                    return Ok(0);
                }
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
