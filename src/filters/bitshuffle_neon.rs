//! NEON bit-shuffle kernels.
//!
//! Forward: a tile of elements is byte-shuffled (NEON byte shuffle) into a scratch buffer, then
//! each byte plane is bit-transposed 16 bytes at a time. NEON has no `movemask`: bit 7 of each
//! of the 16 bytes is moved to bit `i % 8` of its byte (`ushr` by 7, then `ushl` by `0..8`) and
//! each half is summed across (`addv`), giving two bytes of row 7; the bytes are doubled and
//! the next round gives row 6, and so on. Inverse: 16 bytes of each of the 8 rows of a plane
//! are byte-interleaved with the 8-byte unshuffle network (giving, per group of 8 elements, the
//! 8 row bytes as one `u64`), each `u64` is bit-transposed with the shift/mask network, and the
//! tile is byte-unshuffled.
//!
//! NEON is part of the aarch64 baseline (checked at compile time in `shuffle_neon.rs`), so this
//! is safe code except for the register-only intrinsic calls.

use std::arch::aarch64::*;

use super::generic;
use crate::filters::shuffle::neon::{self as byte, at, load, store};

/// Bit-shuffles `src` (`M*s` bytes, `M` a multiple of 8, `s <= 256`) into `dst`.
pub(crate) fn bitshuffle(s: usize, src: &[u8], dst: &mut [u8]) {
    super::forward_tiles(s, src, dst, byte::shuffle, trans_plane);
}

/// Inverse of [`bitshuffle`].
pub(crate) fn bitunshuffle(s: usize, src: &[u8], dst: &mut [u8]) {
    super::inverse_tiles(s, src, dst, untrans_plane, byte::unshuffle);
}

/// Bit 7 of each byte of `v`, byte `i` in bit `i` (SSE2's `movemask_epi8`).
#[inline(always)]
fn movemask(v: uint8x16_t) -> u16 {
    const SHIFTS: [i8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7];
    // SAFETY: register-only NEON intrinsics, and a load of the 16 bytes of `SHIFTS`; NEON is
    // part of the aarch64 baseline.
    unsafe {
        let bits = vshlq_u8(vshrq_n_u8::<7>(v), vld1q_s8(SHIFTS.as_ptr()));
        let lo = vaddv_u8(vget_low_u8(bits));
        let hi = vaddv_u8(vget_high_u8(bits));
        u16::from_le_bytes([lo, hi])
    }
}

/// Bit-transposes one byte plane into its 8 rows (see `generic::trans_plane`).
pub(crate) fn trans_plane(plane: &[u8], rows: &mut [u8], row: usize, q0: usize) {
    let vec_end = plane.len() / 16 * 16;
    for (i, chunk) in plane[..vec_end].chunks_exact(16).enumerate() {
        let mut v = load(chunk.try_into().expect("16 bytes"));
        let q = q0 + 2 * i;
        for k in (0..8).rev() {
            let mask = movemask(v);
            rows[k * row + q..k * row + q + 2].copy_from_slice(&mask.to_le_bytes());
            // SAFETY: register-only NEON intrinsic; NEON is part of the aarch64 baseline.
            v = unsafe { vaddq_u8(v, v) };
        }
    }
    generic::trans_plane(&plane[vec_end..], rows, row, q0 + vec_end / 8);
}

/// Inverse of [`trans_plane`] (see `generic::untrans_plane`).
pub(crate) fn untrans_plane(rows: &[u8], row: usize, q0: usize, plane: &mut [u8]) {
    let vec_end = plane.len() / 128 * 128;
    for (i, chunk) in plane[..vec_end].chunks_exact_mut(128).enumerate() {
        let q = q0 + 16 * i;
        let r: [uint8x16_t; 8] = std::array::from_fn(|k| load(at(rows, k * row + q)));
        let chunk: &mut [u8; 128] = chunk.try_into().expect("128 bytes");
        byte::inv8(r, chunk);
        for piece in chunk.chunks_exact_mut(16) {
            let piece: &mut [u8; 16] = piece.try_into().expect("16 bytes");
            store(piece, transpose_bits(load(piece)));
        }
    }
    generic::untrans_plane(rows, row, q0 + vec_end / 8, &mut plane[vec_end..]);
}

/// `generic::transpose8` on both 64-bit lanes.
#[inline(always)]
fn transpose_bits(v: uint8x16_t) -> uint8x16_t {
    // SAFETY: register-only NEON intrinsics; NEON is part of the aarch64 baseline.
    unsafe {
        let x = vreinterpretq_u64_u8(v);
        let c1 = vdupq_n_u64(0x00AA_00AA_00AA_00AA);
        let c2 = vdupq_n_u64(0x0000_CCCC_0000_CCCC);
        let c3 = vdupq_n_u64(0x0000_0000_F0F0_F0F0);
        let t = vandq_u64(veorq_u64(x, vshrq_n_u64::<7>(x)), c1);
        let x = veorq_u64(veorq_u64(x, t), vshlq_n_u64::<7>(t));
        let t = vandq_u64(veorq_u64(x, vshrq_n_u64::<14>(x)), c2);
        let x = veorq_u64(veorq_u64(x, t), vshlq_n_u64::<14>(t));
        let t = vandq_u64(veorq_u64(x, vshrq_n_u64::<28>(x)), c3);
        vreinterpretq_u8_u64(veorq_u64(veorq_u64(x, t), vshlq_n_u64::<28>(t)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn movemask_takes_bit_7_of_each_byte() {
        let mut b = [0u8; 16];
        for (i, x) in b.iter_mut().enumerate() {
            *x = if i % 3 == 0 { 0x80 | i as u8 } else { 0x7F };
        }
        let want = (0..16).filter(|i| i % 3 == 0).fold(0u16, |m, i| m | 1 << i);
        assert_eq!(movemask(load(&b)), want);
    }

    #[test]
    fn transpose_bits_matches_generic() {
        let mut x = 0x0123_4567_89AB_CDEFu64;
        for _ in 0..1000 {
            x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17) ^ 0x5555;
            let y = x.rotate_left(31) ^ 0xDEAD_BEEF;
            let mut b = [0u8; 16];
            b[..8].copy_from_slice(&x.to_le_bytes());
            b[8..].copy_from_slice(&y.to_le_bytes());
            let mut out = [0u8; 16];
            store(&mut out, transpose_bits(load(&b)));
            let lo = u64::from_le_bytes(out[..8].try_into().unwrap());
            let hi = u64::from_le_bytes(out[8..].try_into().unwrap());
            assert_eq!((lo, hi), (generic::transpose8(x), generic::transpose8(y)));
        }
    }
}
