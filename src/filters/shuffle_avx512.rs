//! AVX-512 (AVX512BW + AVX512VBMI) byte-shuffle kernels for the element sizes 4 and 8, whole
//! 64-byte lines in and out: a group of 64 elements is loaded as `S` vectors, `permutexvar_epi8`
//! gathers each vector's bytes by plane (a 128-bit lane per plane for `S` = 4, a 64-bit lane for
//! `S` = 8), and a transpose of those lanes across the `S` vectors gives 64 bytes of each plane.
//! The inverse runs the same steps backwards. Other sizes go to the AVX2 kernels, tails to the
//! SSE2 ones, then to the generic code.
//!
//! The only `unsafe` precondition of these functions is the CPU feature (AVX512BW, AVX512VBMI
//! and AVX2, detected once by the dispatcher). All memory accesses go through `&[u8; 64]` /
//! `&mut [u8; 64]` references taken from bounds-checked slices.

use std::arch::x86_64::*;

use super::sse2::{self, planes, planes_mut};
use super::{avx2, generic};

/// The `permutexvar_epi8` indices of the kernels (see [`plane_order`], [`element_order`]).
const SHUF4: [u8; 64] = plane_order(4);
pub(crate) const SHUF8: [u8; 64] = plane_order(8);
const UNSHUF4: [u8; 64] = element_order(4);

/// `permutexvar_epi8` indices putting 64 bytes of `64 / s` elements in plane order: byte
/// `(64 / s) * p + e` is byte `p` of element `e`.
const fn plane_order(s: usize) -> [u8; 64] {
    let per = 64 / s;
    let mut a = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        a[i] = ((i % per) * s + i / per) as u8;
        i += 1;
    }
    a
}

/// The inverse of [`plane_order`]: byte `s * e + p` comes from byte `(64 / s) * p + e`.
const fn element_order(s: usize) -> [u8; 64] {
    let per = 64 / s;
    let mut a = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        a[i] = ((i % s) * per + i / s) as u8;
        i += 1;
    }
    a
}

/// Loads the 64 bytes at `at`.
///
/// # Safety
/// The CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) unsafe fn load(s: &[u8], at: usize) -> __m512i {
    let b: &[u8; 64] = s[at..at + 64].try_into().expect("64 bytes");
    // SAFETY: `b` is 64 readable bytes (unaligned load).
    unsafe { _mm512_loadu_si512(b.as_ptr().cast()) }
}

/// Stores 64 bytes at `at`.
///
/// # Safety
/// The CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) unsafe fn store(s: &mut [u8], at: usize, v: __m512i) {
    let b: &mut [u8; 64] = (&mut s[at..at + 64]).try_into().expect("64 bytes");
    // SAFETY: `b` is 64 writable bytes (unaligned store).
    unsafe { _mm512_storeu_si512(b.as_mut_ptr().cast(), v) }
}

/// The 8×8 transpose of 64-bit lanes over eight vectors: lane `k` of result `j` is lane `j` of
/// `u[k]` (its own inverse).
///
/// # Safety
/// The CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) unsafe fn transpose_lanes(u: [__m512i; 8]) -> [__m512i; 8] {
    let lo = _mm512_set_epi64(13, 12, 5, 4, 9, 8, 1, 0);
    let hi = _mm512_set_epi64(15, 14, 7, 6, 11, 10, 3, 2);
    let l = [
        _mm512_unpacklo_epi64(u[0], u[1]),
        _mm512_unpacklo_epi64(u[2], u[3]),
        _mm512_unpacklo_epi64(u[4], u[5]),
        _mm512_unpacklo_epi64(u[6], u[7]),
    ];
    let h = [
        _mm512_unpackhi_epi64(u[0], u[1]),
        _mm512_unpackhi_epi64(u[2], u[3]),
        _mm512_unpackhi_epi64(u[4], u[5]),
        _mm512_unpackhi_epi64(u[6], u[7]),
    ];
    let m0 = _mm512_permutex2var_epi64(l[0], lo, l[1]);
    let m1 = _mm512_permutex2var_epi64(l[0], hi, l[1]);
    let m2 = _mm512_permutex2var_epi64(l[2], lo, l[3]);
    let m3 = _mm512_permutex2var_epi64(l[2], hi, l[3]);
    let n0 = _mm512_permutex2var_epi64(h[0], lo, h[1]);
    let n1 = _mm512_permutex2var_epi64(h[0], hi, h[1]);
    let n2 = _mm512_permutex2var_epi64(h[2], lo, h[3]);
    let n3 = _mm512_permutex2var_epi64(h[2], hi, h[3]);
    [
        _mm512_shuffle_i64x2::<0x44>(m0, m2),
        _mm512_shuffle_i64x2::<0x44>(n0, n2),
        _mm512_shuffle_i64x2::<0x44>(m1, m3),
        _mm512_shuffle_i64x2::<0x44>(n1, n3),
        _mm512_shuffle_i64x2::<0xEE>(m0, m2),
        _mm512_shuffle_i64x2::<0xEE>(n0, n2),
        _mm512_shuffle_i64x2::<0xEE>(m1, m3),
        _mm512_shuffle_i64x2::<0xEE>(n1, n3),
    ]
}

/// The 4×4 transpose of 128-bit lanes over four vectors: lane `k` of result `j` is lane `j` of
/// `u[k]` (its own inverse).
///
/// # Safety
/// The CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn transpose_lanes4(u: [__m512i; 4]) -> [__m512i; 4] {
    let t0 = _mm512_shuffle_i64x2::<0x44>(u[0], u[1]);
    let t1 = _mm512_shuffle_i64x2::<0xEE>(u[0], u[1]);
    let t2 = _mm512_shuffle_i64x2::<0x44>(u[2], u[3]);
    let t3 = _mm512_shuffle_i64x2::<0xEE>(u[2], u[3]);
    [
        _mm512_shuffle_i64x2::<0x88>(t0, t2),
        _mm512_shuffle_i64x2::<0xDD>(t0, t2),
        _mm512_shuffle_i64x2::<0x88>(t1, t3),
        _mm512_shuffle_i64x2::<0xDD>(t1, t3),
    ]
}

/// Byte-shuffles `src` into `dst` (see `shuffle::shuffle`; same lengths).
///
/// # Safety
/// The CPU must support AVX512BW, AVX512VBMI and AVX2.
#[target_feature(enable = "avx512bw,avx512vbmi,avx2")]
pub(crate) unsafe fn shuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    let done = match typesize {
        4 => sse2::shuffle4(shuffle4(src, dst), src, dst),
        8 => sse2::shuffle8(shuffle8(src, dst), src, dst),
        // SAFETY: AVX2, as for this function.
        _ => return unsafe { avx2::shuffle(typesize, src, dst) },
    };
    generic::shuffle_from(typesize, done, src, dst);
}

/// Inverse of [`shuffle`].
///
/// # Safety
/// The CPU must support AVX512BW, AVX512VBMI and AVX2.
#[target_feature(enable = "avx512bw,avx512vbmi,avx2")]
pub(crate) unsafe fn unshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    let done = match typesize {
        4 => sse2::unshuffle4(unshuffle4(src, dst), src, dst),
        8 => sse2::unshuffle8(unshuffle8(src, dst), src, dst),
        // SAFETY: AVX2, as for this function.
        _ => return unsafe { avx2::unshuffle(typesize, src, dst) },
    };
    generic::unshuffle_from(typesize, done, src, dst);
}

/// Generates the group loops for one element size `$s`: `$shuf`/`$unshuf` process whole groups
/// of 64 elements (`$s` vectors, permuted by `$fwd`/`$inv` and lane-transposed by `$transpose`)
/// and return the elements done.
macro_rules! group_loops {
    ($shuf:ident, $unshuf:ident, $s:literal, $fwd:ident, $inv:ident, $transpose:ident) => {
        /// Byte-shuffles whole groups of 64 elements; returns the elements done.
        ///
        /// # Safety
        /// The CPU must support AVX512BW and AVX512VBMI.
        #[target_feature(enable = "avx512bw,avx512vbmi")]
        unsafe fn $shuf(src: &[u8], dst: &mut [u8]) -> usize {
            let n = src.len().min(dst.len()) / $s;
            let end = n / 64 * 64;
            if end == 0 {
                return 0;
            }
            let idx = load(&$fwd, 0);
            let mut planes = planes_mut::<$s>(dst, n);
            for k in (0..end).step_by(64) {
                let group = &src[$s * k..$s * (k + 64)];
                let mut u = [_mm512_setzero_si512(); $s];
                for (j, x) in u.iter_mut().enumerate() {
                    *x = _mm512_permutexvar_epi8(idx, load(group, 64 * j));
                }
                for (plane, v) in planes.iter_mut().zip($transpose(u)) {
                    store(plane, k, v);
                }
            }
            end
        }

        /// The inverse of the loop above.
        ///
        /// # Safety
        /// The CPU must support AVX512BW and AVX512VBMI.
        #[target_feature(enable = "avx512bw,avx512vbmi")]
        unsafe fn $unshuf(src: &[u8], dst: &mut [u8]) -> usize {
            let n = src.len().min(dst.len()) / $s;
            let end = n / 64 * 64;
            if end == 0 {
                return 0;
            }
            let idx = load(&$inv, 0);
            let planes = planes::<$s>(src, n);
            for k in (0..end).step_by(64) {
                let mut r = [_mm512_setzero_si512(); $s];
                for (x, plane) in r.iter_mut().zip(planes) {
                    *x = load(plane, k);
                }
                let group = &mut dst[$s * k..$s * (k + 64)];
                for (j, v) in $transpose(r).into_iter().enumerate() {
                    store(group, 64 * j, _mm512_permutexvar_epi8(idx, v));
                }
            }
            end
        }
    };
}

group_loops!(shuffle4, unshuffle4, 4, SHUF4, UNSHUF4, transpose_lanes4);
// The 8×8 byte transpose of `SHUF8` is its own inverse.
group_loops!(shuffle8, unshuffle8, 8, SHUF8, SHUF8, transpose_lanes);
