//! Sharing a super-chunk's frame with other handles and processes through the C API: the
//! frame lock, re-reading a frame another handle changed, and who frees a lent frame buffer.

use super::*;

/// Take the exclusive frame lock and hold it across several operations (re-entrant; a
/// no-op returning 0 when locking is off or the super-chunk is in memory).
///
/// # Safety
/// `schunk` must be a live super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_lock(schunk: *mut blosc2_schunk) -> c_int {
    // SAFETY: checked for NULL.
    guard(fail(), || match unsafe { handle(schunk) } {
        Some(h) => {
            let r = h.core.lock(crate::frame::LockMode::Exclusive);
            let m = match r {
                Ok(true) => h.rebuild_mirrors(),
                _ => Ok(()),
            };
            h.sync();
            match r.and(m) {
                Ok(_) => 0,
                Err(e) => e.code(),
            }
        }
        None => Error::NullPointer.code(),
    })
}

/// Release one level of the frame lock taken with `blosc2_schunk_lock` (a no-op returning 0
/// when locking is off, the lock is not held or the super-chunk is in memory).
///
/// # Safety
/// `schunk` must be a live super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_unlock(schunk: *mut blosc2_schunk) -> c_int {
    // SAFETY: checked for NULL.
    guard(fail(), || match unsafe { handle(schunk) } {
        Some(h) => crate::capi::code_of(h.core.unlock().map(|_| 0)),
        None => Error::NullPointer.code(),
    })
}

/// Re-sync the counters and metalayers of an on-disk super-chunk changed elsewhere: 1 when
/// they changed, 0 when already current (always the case in memory).
///
/// # Safety
/// `schunk` must be a live super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_refresh(schunk: *mut blosc2_schunk) -> c_int {
    guard(fail(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        match unsafe { handle(schunk) } {
            Some(h) => {
                let r = h.core.sync();
                let m = match r {
                    Ok(true) => h.rebuild_mirrors(),
                    _ => Ok(()),
                };
                h.sync();
                match r.and_then(|c| m.map(|_| c)) {
                    Ok(c) => c as c_int,
                    Err(e) => e.code(),
                }
            }
            None => Error::NullPointer.code(),
        }
    })
}

/// Whether freeing the super-chunk should leave a caller-provided contiguous frame buffer
/// alone (only meaningful for super-chunks made from a buffer without copy).
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_avoid_cframe_free(
    schunk: *mut blosc2_schunk,
    avoid_cframe_free: bool,
) {
    guard((), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        if let Some(h) = unsafe { handle(schunk) } {
            h.avoid_cframe_free = avoid_cframe_free;
            h.caller_avoids_free = avoid_cframe_free;
        }
    })
}
