//! AVX-512 (AVX512BW) bit-shuffle kernels: the scheme of `bitshuffle_avx2.rs` with the bit
//! transpose of each byte plane done 64 bytes at a time. Forward: `_mm512_movepi8_mask` gives a
//! row's 8 bytes in one instruction. Inverse: each row's 8 bytes are a 64-bit mask that adds its
//! bit to the 64 plane bytes (`_mm512_mask_add_epi8`). The byte shuffle of each tile and the
//! plane tails use the AVX2 kernels.
//!
//! The only `unsafe` precondition of these functions is the CPU feature (AVX512BW and AVX2,
//! detected once by the dispatcher). All memory accesses go through `&[u8; 64]` references and
//! bounds-checked slices.

use std::arch::x86_64::*;

use super::avx2;
use crate::filters::shuffle::avx2 as byte;

/// Bit-shuffles `src` (`M*s` bytes, `M` a multiple of 8, `s <= 256`) into `dst`.
///
/// # Safety
/// The CPU must support AVX512BW and AVX2.
#[target_feature(enable = "avx512bw,avx2")]
pub(crate) unsafe fn bitshuffle(s: usize, src: &[u8], dst: &mut [u8]) {
    super::forward_tiles(
        s,
        src,
        dst,
        // SAFETY: AVX2, as for this function.
        |s, a, b| unsafe { byte::shuffle(s, a, b) },
        // SAFETY: AVX512BW and AVX2, as for this function.
        |p, r, row, q| unsafe { trans_plane(p, r, row, q) },
    );
}

/// Inverse of [`bitshuffle`].
///
/// # Safety
/// The CPU must support AVX512BW and AVX2.
#[target_feature(enable = "avx512bw,avx2")]
pub(crate) unsafe fn bitunshuffle(s: usize, src: &[u8], dst: &mut [u8]) {
    super::inverse_tiles(
        s,
        src,
        dst,
        // SAFETY: AVX512BW and AVX2, as for this function.
        |r, row, q, p| unsafe { untrans_plane(r, row, q, p) },
        // SAFETY: AVX2, as for this function.
        |s, a, b| unsafe { byte::unshuffle(s, a, b) },
    );
}

/// Bit-transposes one byte plane into its 8 rows (see `generic::trans_plane`): 64 bytes per
/// step, one 8-byte store per row; the tail goes to the AVX2 version.
///
/// # Safety
/// The CPU must support AVX512BW and AVX2.
#[target_feature(enable = "avx512bw,avx2")]
#[inline]
pub(super) unsafe fn trans_plane(plane: &[u8], rows: &mut [u8], row: usize, q0: usize) {
    let end = plane.len() / 64 * 64;
    for (i, chunk) in plane[..end].chunks_exact(64).enumerate() {
        let chunk: &[u8; 64] = chunk.try_into().expect("64 bytes");
        // SAFETY: `chunk` is 64 readable bytes (unaligned load); AVX-512F comes with AVX512BW.
        let mut v = unsafe { _mm512_loadu_si512(chunk.as_ptr().cast()) };
        let q = q0 + 8 * i;
        for k in (0..8).rev() {
            let mask = _mm512_movepi8_mask(v);
            rows[k * row + q..k * row + q + 8].copy_from_slice(&mask.to_le_bytes());
            v = _mm512_add_epi8(v, v);
        }
    }
    // SAFETY: AVX2, as for this function.
    unsafe { avx2::trans_plane(&plane[end..], rows, row, q0 + end / 8) };
}

/// Inverse of [`trans_plane`] (see `generic::untrans_plane`): 64 plane bytes per step, built
/// from bit 7 down to bit 0, row `k`'s 8 bytes being the mask of the bytes whose bit `k` is set;
/// the tail goes to the AVX2 version.
///
/// # Safety
/// The CPU must support AVX512BW and AVX2.
#[target_feature(enable = "avx512bw,avx2")]
#[inline]
pub(super) unsafe fn untrans_plane(rows: &[u8], row: usize, q0: usize, plane: &mut [u8]) {
    let end = plane.len() / 64 * 64;
    let one = _mm512_set1_epi8(1);
    for (i, chunk) in plane[..end].chunks_exact_mut(64).enumerate() {
        let chunk: &mut [u8; 64] = chunk.try_into().expect("64 bytes");
        let q = q0 + 8 * i;
        let mut v = _mm512_setzero_si512();
        for k in (0..8).rev() {
            let bits: [u8; 8] = rows[k * row + q..k * row + q + 8]
                .try_into()
                .expect("8 bytes");
            v = _mm512_add_epi8(v, v);
            v = _mm512_mask_add_epi8(v, u64::from_le_bytes(bits), v, one);
        }
        // SAFETY: `chunk` is 64 writable bytes (unaligned store); AVX-512F comes with AVX512BW.
        unsafe { _mm512_storeu_si512(chunk.as_mut_ptr().cast(), v) };
    }
    // SAFETY: AVX2, as for this function.
    unsafe { avx2::untrans_plane(rows, row, q0 + end / 8, &mut plane[end..]) };
}
