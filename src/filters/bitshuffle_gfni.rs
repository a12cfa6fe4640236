//! AVX-512 + GFNI + VBMI bit-shuffle kernels: the bit transpose of each byte plane done 512
//! bytes at a time with whole-line row stores (forward) and loads (inverse). Per 64 plane bytes (eight groups of eight elements),
//! `gf2p8affine` transposes the 8×8 bit matrix of every group (the group's bytes, reversed, are
//! the matrix; the vector is the bit of each row) and `permutexvar_epi8` gathers the eight
//! groups' bytes of each row into one 64-bit lane; an 8×8 transpose of 64-bit lanes over eight
//! such vectors then gives 64 bytes of each row, stored in one instruction (the AVX512BW kernel
//! stores 8 bytes per row per 64 plane bytes). The inverse runs the same steps backwards (each
//! is its own inverse). The byte shuffle of each tile is `shuffle_avx512.rs` (AVX2 for the sizes
//! it does not take); plane tails use the AVX512BW kernel.
//!
//! The only `unsafe` precondition of these functions is the CPU feature (AVX512BW, AVX512VBMI,
//! GFNI and AVX2, detected once by the dispatcher). All memory accesses go through `&[u8; 64]`
//! / `&mut [u8; 64]` references taken from bounds-checked slices.

use std::arch::x86_64::*;

use super::avx512;
use crate::filters::shuffle::avx512::{self as byte, transpose_lanes};

/// Bit-shuffles `src` (`M*s` bytes, `M` a multiple of 8, `s <= 256`) into `dst`.
///
/// # Safety
/// The CPU must support AVX512BW, AVX512VBMI, GFNI and AVX2.
#[target_feature(enable = "avx512bw,avx512vbmi,gfni,avx2")]
pub(crate) unsafe fn bitshuffle(s: usize, src: &[u8], dst: &mut [u8]) {
    super::forward_tiles(
        s,
        src,
        dst,
        // SAFETY: AVX2, as for this function.
        |s, a, b| unsafe { byte::shuffle(s, a, b) },
        // SAFETY: the features of this function.
        |p, r, row, q| unsafe { trans_plane(p, r, row, q) },
    );
}

/// Inverse of [`bitshuffle`].
///
/// # Safety
/// The CPU must support AVX512BW, AVX512VBMI, GFNI and AVX2.
#[target_feature(enable = "avx512bw,avx512vbmi,gfni,avx2")]
pub(crate) unsafe fn bitunshuffle(s: usize, src: &[u8], dst: &mut [u8]) {
    super::inverse_tiles(
        s,
        src,
        dst,
        // SAFETY: the features of this function.
        |r, row, q, p| unsafe { untrans_plane(r, row, q, p) },
        // SAFETY: AVX2, as for this function.
        |s, a, b| unsafe { byte::unshuffle(s, a, b) },
    );
}

/// Byte `i` of each 8-byte group selects bit `i` (the vector operand of `gf2p8affine`).
const BITS: i64 = 0x8040_2010_0804_0201u64 as i64;

/// Bit-transposes one byte plane into its 8 rows (see `generic::trans_plane`): 512 bytes per
/// step, one 64-byte store per row; the tail goes to the AVX512BW version.
///
/// # Safety
/// The CPU must support AVX512BW, AVX512VBMI, GFNI and AVX2.
#[target_feature(enable = "avx512bw,avx512vbmi,gfni,avx2")]
#[inline]
unsafe fn trans_plane(plane: &[u8], rows: &mut [u8], row: usize, q0: usize) {
    let end = plane.len() / 512 * 512;
    // Reverses the 8 bytes of each group: the matrix's row 7 - b gives output bit b, so the
    // group's first element lands in bit 0.
    let rev = _mm512_set_epi64(
        0x0001_0203_0405_0607 + 0x3838_3838_3838_3838,
        0x0001_0203_0405_0607 + 0x3030_3030_3030_3030,
        0x0001_0203_0405_0607 + 0x2828_2828_2828_2828,
        0x0001_0203_0405_0607 + 0x2020_2020_2020_2020,
        0x0001_0203_0405_0607 + 0x1818_1818_1818_1818,
        0x0001_0203_0405_0607 + 0x1010_1010_1010_1010,
        0x0001_0203_0405_0607 + 0x0808_0808_0808_0808,
        0x0001_0203_0405_0607,
    );
    // Byte i of each group selects bit i: output byte i = bit i of the group's 8 elements.
    let bits = _mm512_set1_epi64(BITS);
    // Byte 8k + j of the result = byte 8j + k of the input (8×8 byte transpose): lane k holds
    // row k's bytes of the 8 groups.
    let gather = _mm512_set_epi64(
        0x3f37_2f27_1f17_0f07,
        0x3e36_2e26_1e16_0e06,
        0x3d35_2d25_1d15_0d05,
        0x3c34_2c24_1c14_0c04,
        0x3b33_2b23_1b13_0b03,
        0x3a32_2a22_1a12_0a02,
        0x3931_2921_1911_0901,
        0x3830_2820_1810_0800,
    );
    for (i, chunk) in plane[..end].chunks_exact(512).enumerate() {
        let mut u = [_mm512_setzero_si512(); 8];
        for (j, x) in u.iter_mut().enumerate() {
            let c: &[u8; 64] = chunk[64 * j..64 * j + 64].try_into().expect("64 bytes");
            // SAFETY: `c` is 64 readable bytes (unaligned load).
            let v = unsafe { _mm512_loadu_si512(c.as_ptr().cast()) };
            let m = _mm512_permutexvar_epi8(rev, v);
            let t = _mm512_gf2p8affine_epi64_epi8::<0>(bits, m);
            *x = _mm512_permutexvar_epi8(gather, t);
        }
        // Row k = lane k of u[0..8].
        let out = transpose_lanes(u);
        let q = q0 + 64 * i;
        for (k, v) in out.into_iter().enumerate() {
            let r: &mut [u8; 64] = (&mut rows[k * row + q..k * row + q + 64])
                .try_into()
                .expect("64 bytes");
            // SAFETY: `r` is 64 writable bytes (unaligned store).
            unsafe { _mm512_storeu_si512(r.as_mut_ptr().cast(), v) };
        }
    }
    // SAFETY: AVX512BW and AVX2, as for this function.
    unsafe { avx512::trans_plane(&plane[end..], rows, row, q0 + end / 8) };
}

/// Inverse of [`trans_plane`] (see `generic::untrans_plane`): 64 bytes of each of the 8 rows per
/// step (whole-line loads), transposed back into 512 plane bytes; the tail goes to the AVX512BW
/// version.
///
/// # Safety
/// The CPU must support AVX512BW, AVX512VBMI, GFNI and AVX2.
#[target_feature(enable = "avx512bw,avx512vbmi,gfni,avx2")]
#[inline]
unsafe fn untrans_plane(rows: &[u8], row: usize, q0: usize, plane: &mut [u8]) {
    let end = plane.len() / 512 * 512;
    let bits = _mm512_set1_epi64(BITS);
    // The forward kernel's byte gather followed by its group reversal, in one permutation: byte
    // t of group j comes from byte 8(7 - t) + j.
    let scatter = _mm512_set_epi64(
        0x0008_1018_2028_3038 + 0x0707_0707_0707_0707,
        0x0008_1018_2028_3038 + 0x0606_0606_0606_0606,
        0x0008_1018_2028_3038 + 0x0505_0505_0505_0505,
        0x0008_1018_2028_3038 + 0x0404_0404_0404_0404,
        0x0008_1018_2028_3038 + 0x0303_0303_0303_0303,
        0x0008_1018_2028_3038 + 0x0202_0202_0202_0202,
        0x0008_1018_2028_3038 + 0x0101_0101_0101_0101,
        0x0008_1018_2028_3038,
    );
    for (i, chunk) in plane[..end].chunks_exact_mut(512).enumerate() {
        let q = q0 + 64 * i;
        let mut r = [_mm512_setzero_si512(); 8];
        for (k, x) in r.iter_mut().enumerate() {
            let c: &[u8; 64] = rows[k * row + q..k * row + q + 64]
                .try_into()
                .expect("64 bytes");
            // SAFETY: `c` is 64 readable bytes (unaligned load).
            *x = unsafe { _mm512_loadu_si512(c.as_ptr().cast()) };
        }
        for (j, u) in transpose_lanes(r).into_iter().enumerate() {
            // The 8×8 bit transpose is its own inverse (with the group reversal before it).
            let t = _mm512_gf2p8affine_epi64_epi8::<0>(bits, _mm512_permutexvar_epi8(scatter, u));
            let c: &mut [u8; 64] = (&mut chunk[64 * j..64 * j + 64])
                .try_into()
                .expect("64 bytes");
            // SAFETY: `c` is 64 writable bytes (unaligned store).
            unsafe { _mm512_storeu_si512(c.as_mut_ptr().cast(), t) };
        }
    }
    // SAFETY: AVX512BW and AVX2, as for this function.
    unsafe { avx512::untrans_plane(rows, row, q0 + end / 8, &mut plane[end..]) };
}
