//! Timing helpers, index arithmetic and the raw shuffle functions (area 13 of the API).

use super::types::*;
use super::{guard, slice, slice_mut};
use crate::filters::{bitshuffle, shuffle};
use crate::Error;
use core::ffi::c_void;

/// Store the current monotonic time.
///
/// # Safety
/// `timestamp` must be writable (or NULL).
#[no_mangle]
pub unsafe extern "C" fn blosc_set_timestamp(timestamp: *mut blosc_timestamp_t) {
    if timestamp.is_null() {
        return;
    }
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec; CLOCK_MONOTONIC is always available on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    // SAFETY: checked for NULL.
    unsafe {
        (*timestamp).tv_sec = ts.tv_sec;
        (*timestamp).tv_nsec = ts.tv_nsec;
    }
}

fn nsecs(a: blosc_timestamp_t, b: blosc_timestamp_t) -> f64 {
    1e9 * (b.tv_sec - a.tv_sec) as f64 + (b.tv_nsec - a.tv_nsec) as f64
}

/// Nanoseconds between two timestamps.
#[no_mangle]
pub extern "C" fn blosc_elapsed_nsecs(
    start_time: blosc_timestamp_t,
    end_time: blosc_timestamp_t,
) -> f64 {
    nsecs(start_time, end_time)
}

/// Seconds between two timestamps.
#[no_mangle]
pub extern "C" fn blosc_elapsed_secs(
    start_time: blosc_timestamp_t,
    end_time: blosc_timestamp_t,
) -> f64 {
    nsecs(start_time, end_time) / 1e9
}

/// C-order multidimensional index of the linear index `i` in an array of `shape`.
///
/// # Safety
/// `shape` readable and `index` writable for `ndim` elements.
#[no_mangle]
pub unsafe extern "C" fn blosc2_unidim_to_multidim(
    ndim: u8,
    shape: *mut i64,
    i: i64,
    index: *mut i64,
) {
    guard((), || {
        if ndim == 0 || shape.is_null() || index.is_null() {
            return;
        }
        let n = ndim as usize;
        // SAFETY: the caller guarantees `ndim` elements in each array.
        let (shape, index) = unsafe {
            (
                core::slice::from_raw_parts(shape, n),
                core::slice::from_raw_parts_mut(index, n),
            )
        };
        let mut strides = vec![1i64; n];
        for k in (0..n - 1).rev() {
            strides[k] = strides[k + 1].wrapping_mul(shape[k + 1]);
        }
        for k in 0..n {
            index[k] = if strides[k] == 0 {
                0
            } else if k == 0 {
                i / strides[0]
            } else {
                (i % strides[k - 1]) / strides[k]
            };
        }
    })
}

/// Linear index of a multidimensional `index` with the given `strides`.
///
/// # Safety
/// `index` and `strides` readable for `ndim` elements; `i` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_multidim_to_unidim(
    index: *const i64,
    ndim: i8,
    strides: *const i64,
    i: *mut i64,
) {
    guard((), || {
        if i.is_null() || index.is_null() || strides.is_null() || ndim < 0 {
            return;
        }
        let n = ndim as usize;
        // SAFETY: the caller guarantees `ndim` elements in each array.
        let (index, strides) = unsafe {
            (
                core::slice::from_raw_parts(index, n),
                core::slice::from_raw_parts(strides, n),
            )
        };
        let v = index
            .iter()
            .zip(strides)
            .fold(0i64, |acc, (a, b)| acc.wrapping_add(a.wrapping_mul(*b)));
        // SAFETY: checked for NULL.
        unsafe { *i = v };
    })
}

type Kernel = fn(usize, &[u8], &mut [u8]);

unsafe fn raw(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
    k: Kernel,
) -> i32 {
    // As C-Blosc2, the raw shuffles take typesizes up to 256 (one more than a chunk header holds)
    // and check their parameters before the buffers, which are not touched for 0 bytes.
    if !(1..=256).contains(&typesize) || blocksize < 0 {
        return Error::InvalidParam.code();
    }
    if core::ptr::eq(src as *const u8, dest as *const u8) && blocksize > 0 {
        return Error::InvalidParam.code();
    }
    let n = blocksize as usize;
    // SAFETY: the caller guarantees `blocksize` bytes in each (non-overlapping) buffer; NULL is
    // refused unless there are no bytes.
    let (Some(s), Some(d)) = (unsafe { slice(src, n) }, unsafe { slice_mut(dest, n) }) else {
        return Error::NullPointer.code();
    };
    k(typesize as usize, s, d);
    blocksize
}

/// Byte-shuffle one block.
///
/// # Safety
/// `src` and `dest` valid for `blocksize` bytes and not overlapping.
#[no_mangle]
pub unsafe extern "C" fn blosc2_shuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    // SAFETY: forwarded caller guarantees.
    guard(Error::Failure.code(), || unsafe {
        raw(typesize, blocksize, src, dest, shuffle::shuffle)
    })
}

/// Undo a byte-shuffle of one block.
///
/// # Safety
/// `src` and `dest` valid for `blocksize` bytes and not overlapping.
#[no_mangle]
pub unsafe extern "C" fn blosc2_unshuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    // SAFETY: forwarded caller guarantees.
    guard(Error::Failure.code(), || unsafe {
        raw(typesize, blocksize, src, dest, shuffle::unshuffle)
    })
}

/// Bit-shuffle one block.
///
/// # Safety
/// `src` and `dest` valid for `blocksize` bytes and not overlapping.
#[no_mangle]
pub unsafe extern "C" fn blosc2_bitshuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    // SAFETY: forwarded caller guarantees.
    guard(Error::Failure.code(), || unsafe {
        raw(typesize, blocksize, src, dest, bitshuffle::bitshuffle)
    })
}

/// Undo a bit-shuffle of one block.
///
/// # Safety
/// `src` and `dest` valid for `blocksize` bytes and not overlapping.
#[no_mangle]
pub unsafe extern "C" fn blosc2_bitunshuffle(
    typesize: i32,
    blocksize: i32,
    src: *const c_void,
    dest: *mut c_void,
) -> i32 {
    // SAFETY: forwarded caller guarantees.
    guard(Error::Failure.code(), || unsafe {
        raw(typesize, blocksize, src, dest, bitshuffle::bitunshuffle)
    })
}
