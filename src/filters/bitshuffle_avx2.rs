//! AVX2 bit-shuffle kernels: the scheme of `bitshuffle_sse2.rs` with 256-bit registers.
//!
//! Forward: tile byte-shuffled with the AVX2 byte shuffle, then each plane bit-transposed 32
//! bytes at a time with `movemask_epi8` (4 bytes per row per step). Inverse: 32 bytes of each
//! of the 8 rows go through the AVX2 8-byte unshuffle network (32 groups of 8 elements, in the
//! segment layout of `shuffle_avx2.rs`), each `u64` is bit-transposed, and the tile is
//! byte-unshuffled. Tails use the SSE2 steps, then the generic ones.
//!
//! The only `unsafe` precondition of these functions is the CPU feature (AVX2, detected once by
//! the dispatcher). All memory accesses go through `&[u8; 32]` / `&mut [u8; 32]` references
//! taken from bounds-checked slices.

use std::arch::x86_64::*;

use super::sse2;
use crate::filters::shuffle::avx2::{self as byte, at32, load};

/// Bit-shuffles `src` (`M*s` bytes, `M` a multiple of 8, `s <= 256`) into `dst`.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn bitshuffle(s: usize, src: &[u8], dst: &mut [u8]) {
    super::forward_tiles(
        s,
        src,
        dst,
        // SAFETY: AVX2, as for this function.
        |s, a, b| unsafe { byte::shuffle(s, a, b) },
        // SAFETY: as above.
        |p, r, row, q| unsafe { trans_plane(p, r, row, q) },
    );
}

/// Inverse of [`bitshuffle`].
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn bitunshuffle(s: usize, src: &[u8], dst: &mut [u8]) {
    super::inverse_tiles(
        s,
        src,
        dst,
        // SAFETY: AVX2, as for this function.
        |r, row, q, p| unsafe { untrans_plane(r, row, q, p) },
        // SAFETY: as above.
        |s, a, b| unsafe { byte::unshuffle(s, a, b) },
    );
}

/// Bit-transposes one byte plane into its 8 rows (see `generic::trans_plane`).
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn trans_plane(plane: &[u8], rows: &mut [u8], row: usize, q0: usize) {
    // 64 bytes per step: two masks make one 8-byte store per row (half the stores of 32-byte
    // steps).
    let end64 = plane.len() / 64 * 64;
    for (i, chunk) in plane[..end64].chunks_exact(64).enumerate() {
        let mut a = load(at32(chunk, 0));
        let mut b = load(at32(chunk, 32));
        let q = q0 + 8 * i;
        for k in (0..8).rev() {
            let lo = _mm256_movemask_epi8(a) as u32 as u64;
            let hi = _mm256_movemask_epi8(b) as u32 as u64;
            rows[k * row + q..k * row + q + 8].copy_from_slice(&(lo | hi << 32).to_le_bytes());
            a = _mm256_add_epi8(a, a);
            b = _mm256_add_epi8(b, b);
        }
    }
    let (plane, q0) = (&plane[end64..], q0 + end64 / 8);
    let vec_end = plane.len() / 32 * 32;
    for (i, chunk) in plane[..vec_end].chunks_exact(32).enumerate() {
        let mut v = load(chunk.try_into().expect("32 bytes"));
        let q = q0 + 4 * i;
        for k in (0..8).rev() {
            let mask = _mm256_movemask_epi8(v) as u32;
            rows[k * row + q..k * row + q + 4].copy_from_slice(&mask.to_le_bytes());
            v = _mm256_add_epi8(v, v);
        }
    }
    sse2::trans_plane(&plane[vec_end..], rows, row, q0 + vec_end / 8);
}

/// Inverse of [`trans_plane`] (see `generic::untrans_plane`).
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn untrans_plane(rows: &[u8], row: usize, q0: usize, plane: &mut [u8]) {
    let vec_end = plane.len() / 256 * 256;
    for (i, chunk) in plane[..vec_end].chunks_exact_mut(256).enumerate() {
        let q = q0 + 32 * i;
        let mut r = [_mm256_setzero_si256(); 8];
        for (k, v) in r.iter_mut().enumerate() {
            *v = load(at32(rows, k * row + q));
        }
        let mut v = byte::inv8(r);
        for x in v.iter_mut() {
            *x = transpose_bits(*x);
        }
        byte::store_segments::<8>(chunk, v);
    }
    sse2::untrans_plane(rows, row, q0 + vec_end / 8, &mut plane[vec_end..]);
}

/// `generic::transpose8` on the four 64-bit lanes.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn transpose_bits(x: __m256i) -> __m256i {
    let c1 = _mm256_set1_epi64x(0x00AA_00AA_00AA_00AA);
    let c2 = _mm256_set1_epi64x(0x0000_CCCC_0000_CCCC);
    let c3 = _mm256_set1_epi64x(0x0000_0000_F0F0_F0F0);
    let t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi64::<7>(x)), c1);
    let x = _mm256_xor_si256(_mm256_xor_si256(x, t), _mm256_slli_epi64::<7>(t));
    let t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi64::<14>(x)), c2);
    let x = _mm256_xor_si256(_mm256_xor_si256(x, t), _mm256_slli_epi64::<14>(t));
    let t = _mm256_and_si256(_mm256_xor_si256(x, _mm256_srli_epi64::<28>(x)), c3);
    _mm256_xor_si256(_mm256_xor_si256(x, t), _mm256_slli_epi64::<28>(t))
}
