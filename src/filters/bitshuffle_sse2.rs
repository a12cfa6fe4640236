//! SSE2 bit-shuffle kernels.
//!
//! Forward: a tile of elements is byte-shuffled (SSE2 byte shuffle) into a scratch buffer, then
//! each byte plane is bit-transposed 16 bytes at a time: `movemask_epi8` collects bit 7 of the
//! 16 bytes (two bytes of row 7), the bytes are doubled (`add_epi8`) and the next mask gives
//! row 6, and so on. Inverse: 16 bytes of each of the 8 rows of a plane are byte-interleaved
//! with the 8-byte unshuffle network (giving, per group of 8 elements, the 8 row bytes as one
//! `u64`), each `u64` is bit-transposed with the shift/mask network, and the tile is
//! byte-unshuffled.
//!
//! SSE2 is part of the x86_64 baseline (checked at compile time in `shuffle_sse2.rs`), so this
//! is safe code except for the register-only intrinsic calls.

use std::arch::x86_64::*;

use super::generic;
use crate::filters::shuffle::sse2::{self as byte, at16, at16_mut, load, store};

/// Bit-shuffles `src` (`M*s` bytes, `M` a multiple of 8, `s <= 256`) into `dst`.
pub(crate) fn bitshuffle(s: usize, src: &[u8], dst: &mut [u8]) {
    super::forward_tiles(s, src, dst, byte::shuffle, trans_plane);
}

/// Inverse of [`bitshuffle`].
pub(crate) fn bitunshuffle(s: usize, src: &[u8], dst: &mut [u8]) {
    super::inverse_tiles(s, src, dst, untrans_plane, byte::unshuffle);
}

/// Bit-transposes one byte plane into its 8 rows (see `generic::trans_plane`).
pub(crate) fn trans_plane(plane: &[u8], rows: &mut [u8], row: usize, q0: usize) {
    let vec_end = plane.len() / 16 * 16;
    for (i, chunk) in plane[..vec_end].chunks_exact(16).enumerate() {
        let mut v = load(chunk.try_into().expect("16 bytes"));
        let q = q0 + 2 * i;
        for k in (0..8).rev() {
            // SAFETY: register-only SSE2 intrinsics; SSE2 is part of the x86_64 baseline.
            let mask = unsafe { _mm_movemask_epi8(v) } as u16;
            rows[k * row + q..k * row + q + 2].copy_from_slice(&mask.to_le_bytes());
            // SAFETY: as above.
            v = unsafe { _mm_add_epi8(v, v) };
        }
    }
    generic::trans_plane(&plane[vec_end..], rows, row, q0 + vec_end / 8);
}

/// Inverse of [`trans_plane`] (see `generic::untrans_plane`).
pub(crate) fn untrans_plane(rows: &[u8], row: usize, q0: usize, plane: &mut [u8]) {
    let vec_end = plane.len() / 128 * 128;
    for (i, chunk) in plane[..vec_end].chunks_exact_mut(128).enumerate() {
        let q = q0 + 16 * i;
        let mut r = [load(at16(rows, q)); 8];
        for (k, v) in r.iter_mut().enumerate().skip(1) {
            *v = load(at16(rows, k * row + q));
        }
        for (j, v) in byte::inv8(r).into_iter().enumerate() {
            store(at16_mut(chunk, 16 * j), transpose_bits(v));
        }
    }
    generic::untrans_plane(rows, row, q0 + vec_end / 8, &mut plane[vec_end..]);
}

/// `generic::transpose8` on both 64-bit lanes.
#[inline(always)]
pub(crate) fn transpose_bits(x: __m128i) -> __m128i {
    // SAFETY: register-only SSE2 intrinsics; SSE2 is part of the x86_64 baseline.
    unsafe {
        let c1 = _mm_set1_epi64x(0x00AA_00AA_00AA_00AA);
        let c2 = _mm_set1_epi64x(0x0000_CCCC_0000_CCCC);
        let c3 = _mm_set1_epi64x(0x0000_0000_F0F0_F0F0);
        let t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi64::<7>(x)), c1);
        let x = _mm_xor_si128(_mm_xor_si128(x, t), _mm_slli_epi64::<7>(t));
        let t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi64::<14>(x)), c2);
        let x = _mm_xor_si128(_mm_xor_si128(x, t), _mm_slli_epi64::<14>(t));
        let t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi64::<28>(x)), c3);
        _mm_xor_si128(_mm_xor_si128(x, t), _mm_slli_epi64::<28>(t))
    }
}
