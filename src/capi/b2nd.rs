//! b2nd: the array context, the metalayer helpers and the buffer copies (areas 12a and 12e of
//! the API). The arrays themselves (`b2nd_array_t` on a super-chunk) come on top of these.

use super::guard;
use super::types::*;
use crate::b2nd::copy::{copy_shape, CopyPlan, Region};
use crate::b2nd::geometry::{block_nbytes, check_dims};
use crate::b2nd::{Meta, MAX_DIM, MAX_METALAYERS};
use crate::Error;
use core::ffi::{c_char, c_int, c_void, CStr};
use std::ffi::CString;
use std::ptr;

/// The parameters of a b2nd array to be created (C: the opaque `b2nd_context_t`).
///
/// Everything the caller handed to [`b2nd_create_ctx`] is copied: the storage with its cparams,
/// dparams, io and urlpath, the shapes, the dtype and the metalayers.
pub struct b2nd_context_s {
    /// Whether the super-chunk is contiguous.
    contiguous: bool,
    urlpath: Option<CString>,
    /// Always present (defaults when the caller gave none); `blocksize` is set to the bytes of
    /// one n-d block, as C-Blosc2 does.
    cparams: Box<blosc2_cparams>,
    dparams: Option<Box<blosc2_dparams>>,
    io: Option<Box<blosc2_io>>,
    /// ndim (length of the shapes), shape, chunkshape, blockshape, dtype (always set), format.
    meta: Meta,
    /// User metalayers to add to the array's super-chunk: name, content.
    metalayers: Vec<(CString, Vec<u8>)>,
}

/// `typedef struct b2nd_context_s b2nd_context_t;`
pub type b2nd_context_t = b2nd_context_s;

#[allow(dead_code)] // the array constructors (b2nd_empty & co.) use these
impl b2nd_context_s {
    /// A `blosc2_storage` for the array's super-chunk; its pointers stay valid as long as the
    /// context lives and is not modified.
    pub(crate) fn storage(&mut self) -> blosc2_storage {
        blosc2_storage {
            contiguous: self.contiguous as c_bool,
            urlpath: self
                .urlpath
                .as_ref()
                .map_or(ptr::null_mut(), |u| u.as_ptr() as *mut c_char),
            cparams: &mut *self.cparams,
            dparams: self
                .dparams
                .as_deref_mut()
                .map_or(ptr::null_mut(), |d| d as *mut _),
            io: self
                .io
                .as_deref_mut()
                .map_or(ptr::null_mut(), |d| d as *mut _),
        }
    }

    /// The compression parameters (a copy owned by the context).
    pub(crate) fn cparams(&self) -> &blosc2_cparams {
        &self.cparams
    }

    /// ndim, shapes, dtype and dtype format.
    pub(crate) fn meta(&self) -> &Meta {
        &self.meta
    }

    /// Mutable description (`b2nd_get_slice`, `b2nd_copy` replace the shape).
    pub(crate) fn meta_mut(&mut self) -> &mut Meta {
        &mut self.meta
    }

    /// The user metalayers (name, content).
    pub(crate) fn metalayers(&self) -> &[(CString, Vec<u8>)] {
        &self.metalayers
    }
}

/// `ndim` items of a C array; `None` for NULL with `ndim > 0`.
///
/// # Safety
/// `p` must be readable for `ndim` items when non-null.
pub(super) unsafe fn read_array<T: Copy>(p: *const T, ndim: usize) -> Option<Vec<T>> {
    if ndim == 0 {
        return Some(Vec::new());
    }
    if p.is_null() {
        return None;
    }
    // SAFETY: the caller guarantees `ndim` readable items.
    Some(unsafe { std::slice::from_raw_parts(p, ndim) }.to_vec())
}

/// Write `v` to a C array.
///
/// # Safety
/// `p` must be writable for `v.len()` items (non-null when `v` is not empty).
unsafe fn write_array<T: Copy>(p: *mut T, v: &[T]) {
    if !v.is_empty() {
        // SAFETY: guaranteed by the caller.
        unsafe { ptr::copy_nonoverlapping(v.as_ptr(), p, v.len()) };
    }
}

/// The three shapes of a C call; errors for a bad `ndim` or NULL arrays.
///
/// # Safety
/// Each pointer must be readable for `ndim` items when non-null.
unsafe fn read_shapes(
    ndim: i8,
    shape: *const i64,
    chunkshape: *const i32,
    blockshape: *const i32,
) -> Result<Meta, Error> {
    if ndim < 0 || ndim as usize > MAX_DIM {
        crate::trace_error!("ndim must be in [0, {MAX_DIM}]");
        return Err(Error::InvalidParam);
    }
    let n = ndim as usize;
    // SAFETY: forwarded from the caller.
    let arrays = unsafe {
        (
            read_array(shape, n),
            read_array(chunkshape, n),
            read_array(blockshape, n),
        )
    };
    let (Some(s), Some(c), Some(b)) = arrays else {
        crate::trace_error!("shape, chunkshape and blockshape cannot be NULL when ndim > 0");
        return Err(Error::NullPointer);
    };
    Ok(Meta::new(&s, &c, &b))
}

/// Serialise the `b2nd` metalayer of an array (B2ND.md §1). A NULL `dtype` is written as `|u1`.
/// On success `*smeta` receives a `malloc`ed buffer (for the caller to `free`) and the return
/// value is its length; otherwise a negative error code and `*smeta` is left alone.
///
/// Unlike C-Blosc2, `ndim` must be in `0..=B2ND_MAX_DIM` (C-Blosc2 writes metalayers that it
/// cannot read back for larger values).
///
/// # Safety
/// `shape`, `chunkshape` and `blockshape` must be readable for `ndim` items; `dtype` NULL or a
/// NUL-terminated string; `smeta` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_serialize_meta(
    ndim: i8,
    shape: *const i64,
    chunkshape: *const i32,
    blockshape: *const i32,
    dtype: *const c_char,
    dtype_format: i8,
    smeta: *mut *mut u8,
) -> c_int {
    guard(Error::Failure.code(), || {
        if smeta.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: the caller guarantees the array lengths.
        let mut meta = match unsafe { read_shapes(ndim, shape, chunkshape, blockshape) } {
            Ok(m) => m,
            Err(e) => return e.code(),
        };
        if !dtype.is_null() {
            // SAFETY: the caller guarantees a NUL-terminated string.
            meta.dtype = Some(unsafe { CStr::from_ptr(dtype) }.to_bytes().to_vec());
        }
        meta.dtype_format = dtype_format;
        let bytes = match meta.serialize() {
            Ok(b) => b,
            Err(e) => return e.code(),
        };
        let Some(p) = malloc_copy(&bytes, false) else {
            return Error::MemoryAlloc.code();
        };
        // SAFETY: checked for NULL above.
        unsafe { *smeta = p };
        bytes.len() as c_int
    })
}

/// A `malloc`ed copy of `b` (plus a NUL byte when `nul`); `None` if the allocation fails.
fn malloc_copy(b: &[u8], nul: bool) -> Option<*mut u8> {
    let len = b.len() + usize::from(nul);
    // SAFETY: a plain C allocation of at least one byte, written within its length.
    unsafe {
        let p = libc::malloc(len.max(1)) as *mut u8;
        if p.is_null() {
            return None;
        }
        ptr::copy_nonoverlapping(b.as_ptr(), p, b.len());
        if nul {
            *p.add(b.len()) = 0;
        }
        Some(p)
    }
}

/// Read a `b2nd` (or legacy `caterva`) metalayer, as the header-inline
/// `b2nd_deserialize_meta_inline` does. Returns the number of bytes read, or a negative error
/// code: `BLOSC2_ERROR_NULL_POINTER` for NULL `smeta`/`ndim`/shape arrays, `BLOSC2_ERROR_FAILURE`
/// for malformed input (empty, truncated, ndim out of range, bad dtype marker or length).
///
/// When both `dtype` and `dtype_format` are given they receive the dtype (a `malloc`ed,
/// NUL-terminated copy for the caller to `free`; NULL and 0 when the metalayer has none);
/// otherwise the dtype part is not read.
///
/// # Safety
/// `smeta` must be readable for `smeta_len` bytes; `ndim` writable; `shape`, `chunkshape` and
/// `blockshape` writable for `B2ND_MAX_DIM` items (or at least the metalayer's ndim); `dtype`
/// and `dtype_format` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_deserialize_meta(
    smeta: *const u8,
    smeta_len: i32,
    ndim: *mut i8,
    shape: *mut i64,
    chunkshape: *mut i32,
    blockshape: *mut i32,
    dtype: *mut *mut c_char,
    dtype_format: *mut i8,
) -> c_int {
    guard(Error::Failure.code(), || {
        if smeta.is_null()
            || ndim.is_null()
            || shape.is_null()
            || chunkshape.is_null()
            || blockshape.is_null()
        {
            return Error::NullPointer.code();
        }
        // SAFETY: NULL or writable (caller).
        unsafe {
            if !dtype.is_null() {
                *dtype = ptr::null_mut();
            }
            if !dtype_format.is_null() {
                *dtype_format = 0;
            }
        }
        if smeta_len <= 0 {
            crate::trace_error!("Malformed b2nd metalayer: empty metadata");
            return Error::Failure.code();
        }
        // SAFETY: the caller guarantees `smeta_len` readable bytes.
        let bytes = unsafe { std::slice::from_raw_parts(smeta, smeta_len as usize) };
        let want_dtype = !dtype.is_null() && !dtype_format.is_null();
        let parsed = if want_dtype {
            Meta::deserialize(bytes)
        } else {
            Meta::deserialize_dims(bytes)
        };
        let (meta, len) = match parsed {
            Ok(p) => p,
            Err(e) => return e.code(),
        };
        let dtype_copy = match (&meta.dtype, want_dtype) {
            (Some(d), true) => match malloc_copy(d, true) {
                Some(p) => p as *mut c_char,
                None => return Error::MemoryAlloc.code(),
            },
            _ => ptr::null_mut(),
        };
        // SAFETY: writable for ndim (<= B2ND_MAX_DIM) items (caller); checked for NULL.
        unsafe {
            *ndim = meta.ndim() as i8;
            write_array(shape, &meta.shape);
            write_array(chunkshape, &meta.chunkshape);
            write_array(blockshape, &meta.blockshape);
            if want_dtype {
                *dtype = dtype_copy;
                *dtype_format = meta.dtype_format;
            }
        }
        len as c_int
    })
}

/// Copy the hyper-rectangle `[src_start, src_stop)` of the C-order buffer `src` (shape
/// `src_pad_shape`, items of `itemsize` bytes) into the C-order buffer `dst` (shape
/// `dst_pad_shape`) at `dst_start`.
///
/// Returns 0, or `BLOSC2_ERROR_INVALID_PARAM` for `ndim` outside `0..=B2ND_MAX_DIM`, a negative
/// `itemsize`, `start > stop`, or a rectangle that does not fit either buffer, and
/// `BLOSC2_ERROR_NULL_POINTER` for NULL arrays (or NULL buffers when something is to be copied).
/// C-Blosc2 checks none of these. An empty rectangle copies nothing; `ndim` 0 copies one item.
/// Overlapping buffers are copied as if through a temporary buffer.
///
/// # Safety
/// The shape/start/stop arrays must be readable for `ndim` items; `src` and `dst` must hold the
/// buffers of those shapes (at least up to the last item copied).
#[no_mangle]
pub unsafe extern "C" fn b2nd_copy_buffer2(
    ndim: i8,
    itemsize: i32,
    src: *const c_void,
    src_pad_shape: *const i64,
    src_start: *const i64,
    src_stop: *const i64,
    dst: *mut c_void,
    dst_pad_shape: *const i64,
    dst_start: *const i64,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: forwarded from the caller.
        let r = unsafe {
            copy_buffer_c(
                ndim,
                itemsize,
                src,
                [src_pad_shape, src_start, src_stop],
                dst,
                [dst_pad_shape, dst_start],
            )
        };
        match r {
            Ok(()) => 0,
            Err(e) => e.code(),
        }
    })
}

/// The deprecated form of [`b2nd_copy_buffer2`] with an 8-bit `itemsize`.
///
/// # Safety
/// As [`b2nd_copy_buffer2`].
#[deprecated(note = "Use b2nd_copy_buffer2 instead.")]
#[no_mangle]
pub unsafe extern "C" fn b2nd_copy_buffer(
    ndim: i8,
    itemsize: u8,
    src: *const c_void,
    src_pad_shape: *const i64,
    src_start: *const i64,
    src_stop: *const i64,
    dst: *mut c_void,
    dst_pad_shape: *const i64,
    dst_start: *const i64,
) -> c_int {
    // SAFETY: same contract.
    unsafe {
        b2nd_copy_buffer2(
            ndim,
            itemsize as i32,
            src,
            src_pad_shape,
            src_start,
            src_stop,
            dst,
            dst_pad_shape,
            dst_start,
        )
    }
}

/// # Safety
/// See [`b2nd_copy_buffer2`].
unsafe fn copy_buffer_c(
    ndim: i8,
    itemsize: i32,
    src: *const c_void,
    [src_pad_shape, src_start, src_stop]: [*const i64; 3],
    dst: *mut c_void,
    [dst_pad_shape, dst_start]: [*const i64; 2],
) -> Result<(), Error> {
    if ndim < 0 || ndim as usize > MAX_DIM {
        crate::trace_error!("ndim must be in [0, {MAX_DIM}]");
        return Err(Error::InvalidParam);
    }
    if itemsize < 0 {
        crate::trace_error!("itemsize cannot be negative");
        return Err(Error::InvalidParam);
    }
    let n = ndim as usize;
    // SAFETY: the caller guarantees `ndim` readable items per non-null array.
    let arrays = unsafe {
        [src_pad_shape, src_start, src_stop, dst_pad_shape, dst_start].map(|p| read_array(p, n))
    };
    let [Some(src_pad), Some(src_start), Some(src_stop), Some(dst_pad), Some(dst_start)] = arrays
    else {
        return Err(Error::NullPointer);
    };
    let shape = copy_shape(&src_start, &src_stop)?;
    let plan = CopyPlan::new(
        itemsize as usize,
        &shape,
        Region {
            pad_shape: &src_pad,
            start: &src_start,
        },
        Region {
            pad_shape: &dst_pad,
            start: &dst_start,
        },
    )?;
    if plan.is_empty() {
        return Ok(());
    }
    if src.is_null() || dst.is_null() {
        return Err(Error::NullPointer);
    }
    let (s0, s1) = (src as usize, src as usize + plan.src_len());
    let (d0, d1) = (dst as usize, dst as usize + plan.dst_len());
    // SAFETY: the caller guarantees both buffers reach their last copied item, which is what
    // src_len / dst_len measure.
    unsafe {
        if s0 < d1 && d0 < s1 {
            // Overlapping buffers: never hold a shared and a mutable view of the same bytes.
            let tmp = std::slice::from_raw_parts(src as *const u8, plan.src_len()).to_vec();
            let dst_slice = std::slice::from_raw_parts_mut(dst as *mut u8, plan.dst_len());
            plan.run(&tmp, dst_slice)
        } else {
            let src_slice = std::slice::from_raw_parts(src as *const u8, plan.src_len());
            let dst_slice = std::slice::from_raw_parts_mut(dst as *mut u8, plan.dst_len());
            plan.run(src_slice, dst_slice)
        }
    }
}

/// Create the parameters of a b2nd array. Everything is copied (storage with cparams, dparams,
/// io and urlpath; shapes; dtype; metalayers), so the caller's structures may go away. A NULL
/// `b2_storage` or `cparams` means the defaults; a NULL `dtype` means `|S<typesize>`. The
/// cparams copy gets `blocksize = product(blockshape) * typesize`.
///
/// Returns NULL (with a trace message) for `ndim` outside `0..=B2ND_MAX_DIM`, NULL shape
/// arrays, negative sizes, a zero block size where the chunk size is not zero, a block of more
/// than `INT32_MAX` bytes, and (where C-Blosc2 crashes) more than `B2ND_MAX_METALAYERS`
/// metalayers, a NULL `metalayers` with `nmetalayers > 0`, or a metalayer without name or with
/// bad content. A negative `nmetalayers` counts as 0. The shape itself is checked when an array
/// is created from the context.
///
/// # Safety
/// `b2_storage` NULL or valid (with its pointers NULL or valid, `urlpath` NUL-terminated); the
/// shape arrays readable for `ndim` items; `dtype` NULL or NUL-terminated; `metalayers` readable
/// for `nmetalayers` items, each with a NUL-terminated `name` and `content_len` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn b2nd_create_ctx(
    b2_storage: *const blosc2_storage,
    ndim: i8,
    shape: *const i64,
    chunkshape: *const i32,
    blockshape: *const i32,
    dtype: *const c_char,
    dtype_format: i8,
    metalayers: *const blosc2_metalayer,
    nmetalayers: i32,
) -> *mut b2nd_context_t {
    guard(ptr::null_mut(), || {
        // SAFETY: forwarded from the caller.
        let created =
            unsafe { read_shapes(ndim, shape, chunkshape, blockshape) }.and_then(|dims| {
                let meta = Meta {
                    dtype_format,
                    ..dims
                };
                // SAFETY: forwarded from the caller.
                unsafe { create_ctx(b2_storage, meta, dtype, metalayers, nmetalayers) }
            });
        match created {
            Ok(ctx) => Box::into_raw(Box::new(ctx)),
            Err(_) => ptr::null_mut(),
        }
    })
}

/// # Safety
/// See [`b2nd_create_ctx`].
unsafe fn create_ctx(
    b2_storage: *const blosc2_storage,
    mut meta: Meta,
    dtype: *const c_char,
    metalayers: *const blosc2_metalayer,
    nmetalayers: i32,
) -> Result<b2nd_context_s, Error> {
    check_dims(&meta.shape, &meta.chunkshape, &meta.blockshape)?;

    // SAFETY: NULL or valid (caller).
    let storage = unsafe { b2_storage.as_ref() }
        .copied()
        .unwrap_or(BLOSC2_STORAGE_DEFAULTS);
    // SAFETY: the storage's pointers are NULL or valid (caller).
    let mut cparams = Box::new(
        unsafe { storage.cparams.as_ref() }
            .copied()
            .unwrap_or(BLOSC2_CPARAMS_DEFAULTS),
    );
    // SAFETY: as above.
    let dparams = unsafe { storage.dparams.as_ref() }.map(|d| Box::new(*d));
    // SAFETY: as above.
    let io = unsafe { storage.io.as_ref() }.map(|d| Box::new(*d));
    let urlpath = (!storage.urlpath.is_null())
        // SAFETY: NUL-terminated (caller).
        .then(|| unsafe { CStr::from_ptr(storage.urlpath) }.to_owned());

    cparams.blocksize = block_nbytes(&meta.blockshape, cparams.typesize)?;
    meta.dtype = Some(if dtype.is_null() {
        format!("|S{}", cparams.typesize).into_bytes()
    } else {
        // SAFETY: NUL-terminated (caller).
        unsafe { CStr::from_ptr(dtype) }.to_bytes().to_vec()
    });

    let n = nmetalayers.max(0) as usize;
    if n > MAX_METALAYERS {
        crate::trace_error!("the number of metalayers ({n}) exceeds {MAX_METALAYERS}");
        return Err(Error::InvalidParam);
    }
    // SAFETY: readable for `nmetalayers` items (caller).
    let Some(layers) = (unsafe { read_array(metalayers, n) }) else {
        crate::trace_error!("metalayers cannot be NULL when nmetalayers > 0");
        return Err(Error::NullPointer);
    };
    let mut copies = Vec::with_capacity(n);
    for m in layers {
        if m.name.is_null() {
            crate::trace_error!("a metalayer has no name");
            return Err(Error::NullPointer);
        }
        // SAFETY: NUL-terminated (caller).
        let name = unsafe { CStr::from_ptr(m.name) }.to_owned();
        if m.content_len < 0 {
            crate::trace_error!("Metalayer content length must not be negative.");
            return Err(Error::InvalidParam);
        }
        // SAFETY: readable for content_len bytes (caller).
        let Some(content) = (unsafe { read_array(m.content as *const u8, m.content_len as usize) })
        else {
            crate::trace_error!(
                "Metalayer content pointer must not be NULL when content length is positive."
            );
            return Err(Error::NullPointer);
        };
        copies.push((name, content));
    }

    Ok(b2nd_context_s {
        contiguous: storage.contiguous != 0,
        urlpath,
        cparams,
        dparams,
        io,
        meta,
        metalayers: copies,
    })
}

/// Free a context made by [`b2nd_create_ctx`]. Returns 0, or `BLOSC2_ERROR_NULL_POINTER` for
/// NULL (C-Blosc2 crashes).
///
/// # Safety
/// `ctx` must be NULL or a live context from [`b2nd_create_ctx`], not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn b2nd_free_ctx(ctx: *mut b2nd_context_t) -> c_int {
    guard(Error::Failure.code(), || {
        if ctx.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: made by Box::into_raw in b2nd_create_ctx and owned by the caller.
        drop(unsafe { Box::from_raw(ctx) });
        0
    })
}
