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
//! GFNI and AVX2, detected once by the dispatcher). All memory accesses go through the
//! bounds-checked 64-byte `load`/`store` of `shuffle_avx512.rs`.

use std::arch::x86_64::*;

use super::avx512;
use crate::filters::shuffle::avx512::{self as byte, load, store, transpose_lanes, SHUF8};

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

/// Reverses the 8 bytes of each group: `gf2p8affine` takes the matrix's row `7 - b` for output
/// bit `b`, so after the reversal a group's first element lands in bit 0.
const REV: [u8; 64] = {
    let mut a = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        a[i] = (i / 8 * 8 + 7 - i % 8) as u8;
        i += 1;
    }
    a
};

/// The inverse kernel's [`SHUF8`] (the forward kernel's row gather, its own inverse) followed
/// by [`REV`], in one permutation: byte `t` of group `j` comes from byte `8 * (7 - t) + j`.
const SCATTER: [u8; 64] = {
    let mut a = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        a[i] = SHUF8[REV[i] as usize];
        i += 1;
    }
    a
};

/// Bit-transposes one byte plane into its 8 rows (see `generic::trans_plane`): 512 bytes per
/// step, one 64-byte store per row; the tail goes to the AVX512BW version.
///
/// # Safety
/// The CPU must support AVX512BW, AVX512VBMI, GFNI and AVX2.
#[target_feature(enable = "avx512bw,avx512vbmi,gfni,avx2")]
#[inline]
unsafe fn trans_plane(plane: &[u8], rows: &mut [u8], row: usize, q0: usize) {
    let end = plane.len() / 512 * 512;
    let rev = load(&REV, 0);
    // Byte i of each group selects bit i: output byte i = bit i of the group's 8 elements.
    let bits = _mm512_set1_epi64(BITS);
    // The 8×8 byte transpose of the byte shuffle: lane k gets row k's bytes of the 8 groups.
    let gather = load(&SHUF8, 0);
    for (i, chunk) in plane[..end].chunks_exact(512).enumerate() {
        let mut u = [_mm512_setzero_si512(); 8];
        for (j, x) in u.iter_mut().enumerate() {
            let m = _mm512_permutexvar_epi8(rev, load(chunk, 64 * j));
            let t = _mm512_gf2p8affine_epi64_epi8::<0>(bits, m);
            *x = _mm512_permutexvar_epi8(gather, t);
        }
        // Row k = lane k of u[0..8].
        let out = transpose_lanes(u);
        let q = q0 + 64 * i;
        for (k, v) in out.into_iter().enumerate() {
            store(rows, k * row + q, v);
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
    let scatter = load(&SCATTER, 0);
    for (i, chunk) in plane[..end].chunks_exact_mut(512).enumerate() {
        let q = q0 + 64 * i;
        let mut r = [_mm512_setzero_si512(); 8];
        for (k, x) in r.iter_mut().enumerate() {
            *x = load(rows, k * row + q);
        }
        for (j, u) in transpose_lanes(r).into_iter().enumerate() {
            // The 8×8 bit transpose is its own inverse (with the group reversal before it).
            let t = _mm512_gf2p8affine_epi64_epi8::<0>(bits, _mm512_permutexvar_epi8(scatter, u));
            store(chunk, 64 * j, t);
        }
    }
    // SAFETY: AVX512BW and AVX2, as for this function.
    unsafe { avx512::untrans_plane(rows, row, q0 + end / 8, &mut plane[end..]) };
}
