//! `b2rs_schunk_*_checksums`, `b2rs_schunk_verify_chunk`: the opt-in per-chunk CRC-32C
//! checksums of [`crate::schunk::Schunk::enable_checksums`] from C. Declared in
//! `include/b2rs.h`.

use crate::capi::guard;
use crate::capi::schunk::handle;
use crate::capi::types::blosc2_schunk;
use crate::schunk::ChunkCheck;
use crate::Error;
use core::ffi::c_int;

/// Record a CRC-32C of every chunk of `schunk` in its `"b2rs_crc32c"` vlmetalayer, kept current
/// by every later change of the chunks made through b2rs (also after the frame is opened
/// again). Returns 1 when recorded now, 0 when they were already recorded, or a negative
/// `BLOSC2_ERROR_*` code.
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk of this library.
#[no_mangle]
pub unsafe extern "C" fn b2rs_schunk_enable_checksums(schunk: *mut blosc2_schunk) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::NullPointer.code();
        };
        let r = h.core.enable_checksums();
        h.sync();
        match r {
            Ok(added) => added as c_int,
            Err(e) => e.code(),
        }
    })
}

/// Whether `schunk` records chunk checksums: 1 or 0 (a negative code for NULL).
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk of this library.
#[no_mangle]
pub unsafe extern "C" fn b2rs_schunk_has_checksums(schunk: *mut blosc2_schunk) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::NullPointer.code();
        };
        let r = h.core.has_checksums() as c_int;
        h.sync();
        r
    })
}

/// Check chunk `nchunk` of `schunk` against its recorded checksum, without decompressing it.
/// Returns 1 when it matches, 0 when no checksum is recorded for it, `BLOSC2_ERROR_DATA` when
/// it does not match (damaged, or changed by a library that does not keep the checksums), or
/// another negative code when it cannot be read at all (also a damaged chunk) or `nchunk` is
/// out of range (`BLOSC2_ERROR_INVALID_PARAM`).
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk of this library.
#[no_mangle]
pub unsafe extern "C" fn b2rs_schunk_verify_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::NullPointer.code();
        };
        let r = h.core.verify_chunk(nchunk);
        h.sync();
        match r {
            Ok(ChunkCheck::Intact) => 1,
            Ok(ChunkCheck::Unrecorded) => 0,
            Ok(ChunkCheck::Damaged { recorded, actual }) => {
                crate::trace_error!(
                    "Chunk {} does not match its checksum (recorded {:#010x}, actual {:#010x})",
                    nchunk,
                    recorded,
                    actual
                );
                Error::Data.code()
            }
            Err(e) => e.code(),
        }
    })
}
