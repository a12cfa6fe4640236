//! Slices and selections of B2ND arrays through the C API: copies, slices into new arrays and
//! C buffers, sparse and orthogonal selections.

use super::*;

/// # Safety
/// `ctx` NULL or live.
pub(super) unsafe fn ctx_of<'a>(ctx: *mut b2nd_context_t) -> R<&'a mut b2nd_context_t> {
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
pub(super) unsafe fn slice_new(
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
pub(super) unsafe fn coords(p: *const i64, n: usize) -> R<Vec<i64>> {
    // SAFETY: forwarded.
    unsafe { read_array(p, n) }.ok_or_else(null)
}

pub(super) fn ndim_of(a: *const b2nd_array_t) -> R<usize> {
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
            let b =
                unsafe { crate::capi::slice_mut(buffer, buffersize as usize) }.ok_or_else(null)?;
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
            let b = unsafe { crate::capi::slice(buffer, buffersize as usize) }.ok_or_else(null)?;
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
            let b =
                unsafe { crate::capi::slice_mut(buffer, buffersize as usize) }.ok_or_else(null)?;
            // SAFETY: forwarded.
            unsafe { with_array(array, |a| a.get_sparse_cbuffer(&c, b)) }
        })();
        code(r)
    })
}

/// # Safety
/// `selection` readable for `n` pointers, each readable for `selection_size[i]` items.
pub(super) unsafe fn read_selection(
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
pub(super) unsafe fn check_selection_size(
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
            let b =
                unsafe { crate::capi::slice_mut(buffer, buffersize as usize) }.ok_or_else(null)?;
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
            let b = unsafe { crate::capi::slice(buffer, buffersize as usize) }.ok_or_else(null)?;
            // SAFETY: forwarded.
            unsafe { with_array_mut(array, |a| a.set_orthogonal_selection(&sel, b, &bs)) }
        })();
        code(r)
    })
}
