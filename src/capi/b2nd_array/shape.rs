//! Shape changes of B2ND arrays through the C API: resize, insert, append, delete, the views
//! of squeeze and expand_dims, and concatenation.

use super::*;

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
            let b = unsafe { crate::capi::slice(buffer, buffersize as usize) }.ok_or_else(null)?;
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
            let b = unsafe { crate::capi::slice(buffer, buffersize as usize) }.ok_or_else(null)?;
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

/// Whether `a` and `b` lay out the same chunks alike: they differ only in dimensions of size
/// 1 with chunk and block length 1 (what `b2nd_squeeze`/`b2nd_expand_dims` views change).
pub(super) fn is_view_of(a: &Meta, b: &Meta) -> bool {
    let kept = |m: &Meta| -> Vec<usize> {
        (0..m.shape.len())
            .filter(|&i| !(m.shape[i] == 1 && m.chunkshape[i] == 1 && m.blockshape[i] == 1))
            .collect()
    };
    let (ka, kb) = (kept(a), kept(b));
    ka.len() == kb.len()
        && ka.iter().zip(&kb).all(|(&i, &j)| {
            a.shape[i] == b.shape[j]
                && a.chunkshape[i] == b.chunkshape[j]
                && a.blockshape[i] == b.blockshape[j]
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
pub(super) unsafe fn view_of(array: *const b2nd_array_t, meta: &Meta) -> R<*mut b2nd_array_t> {
    // SAFETY: live (caller).
    let a = unsafe { &*array };
    let m = c_meta(a)?;
    if !is_view_of(&m, meta) {
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
pub(super) unsafe fn reshaped(array: *const b2nd_array_t, meta: &Meta) -> R<*mut b2nd_array_t> {
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
        unsafe { crate::capi::schunk::blosc2_schunk_free(p) };
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
