//! Item ranges across the chunks of a super-chunk through the C API
//! (`blosc2_schunk_get_slice_buffer`, `_set_slice_buffer`, `_get_sparse_buffer`,
//! `blosc2_get_slice_nchunks`).

use super::*;

/// Byte length of the items `[start, stop)` if it is a valid non-empty range of the
/// super-chunk (`Ok(0)` for an empty range).
/// The byte length of the items `[start, stop)`: 0 when `start >= stop` (nothing to do, as
/// in C-Blosc2, whatever the signs); `neg_start` when `start` is negative; -12 past the end.
pub(super) fn range_len(
    h: &SchunkHandle,
    start: i64,
    stop: i64,
    neg_start: Error,
) -> Result<usize, Error> {
    let ts = h.core.typesize() as i64;
    if start >= stop {
        return Ok(0);
    }
    if start < 0 {
        crate::trace_error!("`start` must not be negative");
        return Err(neg_start);
    }
    match stop.checked_mul(ts) {
        Some(b) if b <= h.core.nbytes() => Ok(((stop - start) * ts) as usize),
        _ => {
            crate::trace_error!("`stop` is beyond the end of the super-chunk");
            Err(Error::InvalidParam)
        }
    }
}

/// Decode the items `[start, stop)` into `buffer`.
///
/// # Safety
/// `schunk` live; `buffer` writable for `(stop - start) * typesize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_slice_buffer(
    schunk: *mut blosc2_schunk,
    start: i64,
    stop: i64,
    buffer: *mut c_void,
) -> c_int {
    guard(fail(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::NullPointer.code();
        };
        // Like C-Blosc2, slices see what other handles wrote to the frame.
        if let Err(e) = h.resync() {
            return e.code();
        }
        let len = match range_len(h, start, stop, Error::Failure) {
            Ok(n) => n,
            Err(e) => return e.code(),
        };
        // SAFETY: the caller guarantees the buffer size.
        let Some(d) = (unsafe { slice_mut(buffer, len) }) else {
            return Error::NullPointer.code();
        };
        let dp = h.cur_dparams();
        let r = h.core.get_slice_with(&dp, start, stop, d);
        h.sync();
        match r {
            Ok(()) => 0,
            Err(e) => e.code(),
        }
    })
}

/// Overwrite the items `[start, stop)` with `buffer`.
///
/// # Safety
/// `schunk` live; `buffer` readable for `(stop - start) * typesize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_set_slice_buffer(
    schunk: *mut blosc2_schunk,
    start: i64,
    stop: i64,
    buffer: *mut c_void,
) -> c_int {
    guard(fail(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::NullPointer.code();
        };
        let len = match range_len(h, start, stop, Error::InvalidParam) {
            Ok(n) => n,
            Err(e) => return e.code(),
        };
        // SAFETY: the caller guarantees the buffer size.
        let Some(s) = (unsafe { slice(buffer, len) }) else {
            return Error::NullPointer.code();
        };
        let (cctx, cp, dp) = (h.c.cctx, h.core.cparams().clone(), h.cur_dparams());
        let r = h.core.set_slice_by(
            &mut |n, s| ctx_compress(cctx, &cp, n, s),
            &dp,
            start,
            stop,
            s,
        );
        h.write_data_from(0);
        h.sync();
        match r {
            Ok(()) => 0,
            Err(e) => e.code(),
        }
    })
}

/// Decode the items at `coords` (`ncoords` of them) into `buffer`.
///
/// # Safety
/// `schunk` live; `coords` readable for `ncoords` entries; `buffer` writable for
/// `ncoords * typesize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_sparse_buffer(
    schunk: *mut blosc2_schunk,
    ncoords: i64,
    coords: *const i64,
    buffer: *mut c_void,
) -> c_int {
    guard(fail(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::InvalidParam.code();
        };
        if ncoords == 0 {
            return 0;
        }
        if ncoords < 0 || coords.is_null() || buffer.is_null() {
            return Error::InvalidParam.code();
        }
        let ts = h.core.typesize() as i64;
        let Some(len) = ncoords.checked_mul(ts).filter(|&n| n <= isize::MAX as i64) else {
            return Error::InvalidParam.code();
        };
        // SAFETY: the caller guarantees `ncoords` coordinates and the buffer size.
        let (c, d) = unsafe {
            (
                core::slice::from_raw_parts(coords, ncoords as usize),
                core::slice::from_raw_parts_mut(buffer as *mut u8, len as usize),
            )
        };
        let dp = h.cur_dparams();
        let r = h.core.get_sparse_with(&dp, c, d);
        h.sync();
        match r {
            Ok(()) => 0,
            Err(e) => e.code(),
        }
    })
}

/// The chunk numbers holding the items `[*start, *stop)`, in a new `malloc`ed array.
///
/// # Safety
/// `schunk` live; `start`, `stop` readable; `chunks_idx` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_get_slice_nchunks(
    schunk: *mut blosc2_schunk,
    start: *mut i64,
    stop: *mut i64,
    chunks_idx: *mut *mut i64,
) -> i64 {
    guard(fail() as i64, || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::NullPointer.code() as i64;
        };
        if start.is_null() || stop.is_null() || chunks_idx.is_null() {
            return Error::NullPointer.code() as i64;
        }
        // SAFETY: checked for NULL.
        let (a, b) = unsafe { (*start, *stop) };
        if h.core.nchunks() == 0 && !is_ndim(h) {
            // C-Blosc2: nothing to read in an empty super-chunk, whatever the range
            // SAFETY: checked for NULL.
            unsafe { *chunks_idx = ptr::null_mut() };
            return 0;
        }
        let idx = if is_ndim(h) {
            // SAFETY: for n-dimensional arrays `start` and `stop` hold `ndim` entries.
            unsafe { ndim_slice_nchunks(h, start, stop) }
        } else {
            h.core.slice_nchunks(a, b)
        };
        let idx = match idx {
            Ok(v) => v,
            Err(e) => return e.code() as i64,
        };
        // SAFETY: a C allocation of the index array (at least one byte).
        let p = unsafe { libc::malloc((idx.len() * 8).max(1)) } as *mut i64;
        if p.is_null() {
            return Error::MemoryAlloc.code() as i64;
        }
        // SAFETY: `p` holds `idx.len()` i64 values; `chunks_idx` checked for NULL.
        unsafe {
            ptr::copy_nonoverlapping(idx.as_ptr(), p, idx.len());
            *chunks_idx = p;
        }
        idx.len() as i64
    })
}

/// Whether the super-chunk holds an n-dimensional array (b2nd or caterva metalayer).
pub(crate) fn is_ndim(h: &SchunkHandle) -> bool {
    h.core
        .metalayers()
        .iter()
        .any(|m| m.name == "b2nd" || m.name == "caterva")
}

/// The chunks of an n-dimensional array that intersect the box `[start, stop)` (C order).
///
/// # Safety
/// `start` and `stop` must be readable for `ndim` entries.
pub(crate) unsafe fn ndim_slice_nchunks(
    h: &SchunkHandle,
    start: *const i64,
    stop: *const i64,
) -> Result<Vec<i64>, Error> {
    let find = |name: &str| {
        h.core
            .metalayers()
            .iter()
            .find(|m| m.name == name)
            .map(|m| m.content.as_slice())
    };
    let geometry = crate::b2nd::meta::Meta::from_metalayers(find("b2nd"), find("caterva"))
        .and_then(|m| m.geometry())
        .map_err(|_| {
            crate::trace_error!("Cannot read the b2nd metalayer");
            Error::Data
        })?;
    let ndim = geometry.ndim();
    if ndim == 0 {
        return Ok(vec![0]);
    }
    // SAFETY: the caller guarantees `ndim` entries each.
    let (start, stop) = unsafe {
        (
            core::slice::from_raw_parts(start, ndim),
            core::slice::from_raw_parts(stop, ndim),
        )
    };
    geometry.slice_nchunks(start, stop)
}
