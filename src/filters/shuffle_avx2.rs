//! AVX2 byte-shuffle kernels for the element sizes 2, 4, 8 and 16 (others use the generic code).
//!
//! Same split/merge networks as `shuffle_sse2.rs` on groups of 32 elements held in `S` 256-bit
//! registers. `packus`/`unpack` work inside 128-bit lanes, so the network transposes the low
//! lanes (16-byte segments 0, 2, 4, … of the group) and the high lanes (segments 1, 3, 5, …)
//! independently; a final *lane fix* (`permute4x64` + `shuffle_epi8`) interleaves the two halves
//! of each plane at the granularity of one segment's share (`16 / S` bytes). Unshuffling undoes
//! the fix first. Tails go to the SSE2 kernel (16-element groups), then to the generic code.
//!
//! The only `unsafe` precondition of these functions is the CPU feature (AVX2, detected once by
//! the dispatcher). All memory accesses go through `&[u8; 32]` / `&mut [u8; 32]` references
//! taken from bounds-checked slices.

use std::arch::x86_64::*;

use super::generic;
use super::sse2;

/// Loads 32 bytes.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn load(b: &[u8; 32]) -> __m256i {
    // SAFETY: `b` is 32 readable bytes (unaligned load); AVX is enabled by the caller's contract.
    unsafe { _mm256_loadu_si256(b.as_ptr().cast()) }
}

/// Stores 32 bytes.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn store(b: &mut [u8; 32], v: __m256i) {
    // SAFETY: `b` is 32 writable bytes (unaligned store); AVX is enabled by the caller's contract.
    unsafe { _mm256_storeu_si256(b.as_mut_ptr().cast(), v) }
}

/// The 32 bytes of `s` starting at `at` (a logic error if out of range).
#[inline(always)]
pub(crate) fn at32(s: &[u8], at: usize) -> &[u8; 32] {
    s[at..at + 32].try_into().expect("32-byte window")
}

/// Mutable version of [`at32`].
#[inline(always)]
pub(crate) fn at32_mut(s: &mut [u8], at: usize) -> &mut [u8; 32] {
    (&mut s[at..at + 32]).try_into().expect("32-byte window")
}

/// In-lane byte pattern interleaving the two 8-byte halves of a lane in chunks of `g` bytes:
/// `A0 B0 A1 B1 …` (forward lane fix).
const fn interleave_pattern(g: usize) -> [u8; 32] {
    let mut p = [0u8; 32];
    let mut i = 0;
    while i < 16 {
        let (c, t) = (i / g, i % g);
        let src = if c % 2 == 0 { (c / 2) * g + t } else { 8 + (c / 2) * g + t };
        p[i] = src as u8;
        p[i + 16] = src as u8;
        i += 1;
    }
    p
}

/// Inverse of [`interleave_pattern`]: even chunks to the low half, odd chunks to the high half.
const fn deinterleave_pattern(g: usize) -> [u8; 32] {
    let mut p = [0u8; 32];
    let mut i = 0;
    while i < 16 {
        let (half, r) = (i / 8, i % 8);
        let (a, t) = (r / g, r % g);
        let src = (2 * a + half) * g + t;
        p[i] = src as u8;
        p[i + 16] = src as u8;
        i += 1;
    }
    p
}

/// Lane-fix patterns for the element sizes 4, 8 and 16 (granularity 4, 2, 1); size 2 needs
/// only the `permute4x64`.
static FIX_FWD_4: [u8; 32] = interleave_pattern(4);
static FIX_FWD_8: [u8; 32] = interleave_pattern(2);
static FIX_FWD_16: [u8; 32] = interleave_pattern(1);
static FIX_INV_4: [u8; 32] = deinterleave_pattern(4);
static FIX_INV_8: [u8; 32] = deinterleave_pattern(2);
static FIX_INV_16: [u8; 32] = deinterleave_pattern(1);

/// `(even bytes, odd bytes)` of `a‖b`, per 128-bit lane.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn split(a: __m256i, b: __m256i) -> (__m256i, __m256i) {
    let mask = _mm256_set1_epi16(0x00FF);
    let even = _mm256_packus_epi16(_mm256_and_si256(a, mask), _mm256_and_si256(b, mask));
    let odd = _mm256_packus_epi16(_mm256_srli_epi16::<8>(a), _mm256_srli_epi16::<8>(b));
    (even, odd)
}

/// Inverse of [`split`].
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn merge(even: __m256i, odd: __m256i) -> (__m256i, __m256i) {
    (_mm256_unpacklo_epi8(even, odd), _mm256_unpackhi_epi8(even, odd))
}

#[target_feature(enable = "avx2")]
#[inline]
unsafe fn net_fwd2(v: [__m256i; 2]) -> [__m256i; 2] {
    let (e, o) = split(v[0], v[1]);
    [e, o]
}

#[target_feature(enable = "avx2")]
#[inline]
unsafe fn net_fwd4(v: [__m256i; 4]) -> [__m256i; 4] {
    let (e0, o0) = split(v[0], v[1]);
    let (e1, o1) = split(v[2], v[3]);
    let [a0, a1] = net_fwd2([e0, e1]);
    let [b0, b1] = net_fwd2([o0, o1]);
    [a0, b0, a1, b1]
}

/// In-lane 8×8 transpose of 16-bit words held in 8 registers.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn transpose_words(r: [__m256i; 8]) -> [__m256i; 8] {
    let a0 = _mm256_unpacklo_epi16(r[0], r[1]);
    let a1 = _mm256_unpackhi_epi16(r[0], r[1]);
    let a2 = _mm256_unpacklo_epi16(r[2], r[3]);
    let a3 = _mm256_unpackhi_epi16(r[2], r[3]);
    let a4 = _mm256_unpacklo_epi16(r[4], r[5]);
    let a5 = _mm256_unpackhi_epi16(r[4], r[5]);
    let a6 = _mm256_unpacklo_epi16(r[6], r[7]);
    let a7 = _mm256_unpackhi_epi16(r[6], r[7]);
    let b0 = _mm256_unpacklo_epi32(a0, a2);
    let b1 = _mm256_unpackhi_epi32(a0, a2);
    let b2 = _mm256_unpacklo_epi32(a1, a3);
    let b3 = _mm256_unpackhi_epi32(a1, a3);
    let b4 = _mm256_unpacklo_epi32(a4, a6);
    let b5 = _mm256_unpackhi_epi32(a4, a6);
    let b6 = _mm256_unpacklo_epi32(a5, a7);
    let b7 = _mm256_unpackhi_epi32(a5, a7);
    [
        _mm256_unpacklo_epi64(b0, b4),
        _mm256_unpackhi_epi64(b0, b4),
        _mm256_unpacklo_epi64(b1, b5),
        _mm256_unpackhi_epi64(b1, b5),
        _mm256_unpacklo_epi64(b2, b6),
        _mm256_unpackhi_epi64(b2, b6),
        _mm256_unpacklo_epi64(b3, b7),
        _mm256_unpackhi_epi64(b3, b7),
    ]
}

/// Each lane's two elements interleaved byte by byte, then an in-lane 8×8 word transpose.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn net_fwd8(v: [__m256i; 8]) -> [__m256i; 8] {
    let mut w = v;
    for x in w.iter_mut() {
        *x = _mm256_unpacklo_epi8(*x, _mm256_shuffle_epi32::<0x4E>(*x));
    }
    transpose_words(w)
}

/// In-lane 16×16 byte transpose (its own inverse).
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn net_fwd16(v: [__m256i; 16]) -> [__m256i; 16] {
    net_inv16(v)
}

#[target_feature(enable = "avx2")]
#[inline]
unsafe fn net_inv2(p: [__m256i; 2]) -> [__m256i; 2] {
    let (v0, v1) = merge(p[0], p[1]);
    [v0, v1]
}

#[target_feature(enable = "avx2")]
#[inline]
unsafe fn net_inv4(p: [__m256i; 4]) -> [__m256i; 4] {
    let e = net_inv2([p[0], p[2]]);
    let o = net_inv2([p[1], p[3]]);
    let (v0, v1) = merge(e[0], o[0]);
    let (v2, v3) = merge(e[1], o[1]);
    [v0, v1, v2, v3]
}

#[target_feature(enable = "avx2")]
#[inline]
unsafe fn net_inv8(p: [__m256i; 8]) -> [__m256i; 8] {
    let e = net_inv4([p[0], p[2], p[4], p[6]]);
    let o = net_inv4([p[1], p[3], p[5], p[7]]);
    let (v0, v1) = merge(e[0], o[0]);
    let (v2, v3) = merge(e[1], o[1]);
    let (v4, v5) = merge(e[2], o[2]);
    let (v6, v7) = merge(e[3], o[3]);
    [v0, v1, v2, v3, v4, v5, v6, v7]
}

#[target_feature(enable = "avx2")]
#[inline]
unsafe fn net_inv16(p: [__m256i; 16]) -> [__m256i; 16] {
    let e = net_inv8([p[0], p[2], p[4], p[6], p[8], p[10], p[12], p[14]]);
    let o = net_inv8([p[1], p[3], p[5], p[7], p[9], p[11], p[13], p[15]]);
    let (v0, v1) = merge(e[0], o[0]);
    let (v2, v3) = merge(e[1], o[1]);
    let (v4, v5) = merge(e[2], o[2]);
    let (v6, v7) = merge(e[3], o[3]);
    let (v8, v9) = merge(e[4], o[4]);
    let (v10, v11) = merge(e[5], o[5]);
    let (v12, v13) = merge(e[6], o[6]);
    let (v14, v15) = merge(e[7], o[7]);
    [v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15]
}

/// Generates, for one element size, the full forward/inverse transposes of a 32-element group
/// (network + lane fix) and the group loops over a block.
macro_rules! kernels {
    ($s:literal, $fwd:ident, $inv:ident, $net_fwd:ident, $net_inv:ident, $fix_fwd:expr, $fix_inv:expr,
     $shuf:ident, $unshuf:ident) => {
        /// 32 elements in `S` consecutive registers → `S` plane registers (element order).
        ///
        /// # Safety
        /// The CPU must support AVX2.
        #[target_feature(enable = "avx2")]
        #[inline]
        pub(crate) unsafe fn $fwd(v: [__m256i; $s]) -> [__m256i; $s] {
            let fix: Option<&[u8; 32]> = $fix_fwd;
            let mut p = $net_fwd(v);
            for r in p.iter_mut() {
                *r = _mm256_permute4x64_epi64::<0xD8>(*r);
                if let Some(f) = fix {
                    *r = _mm256_shuffle_epi8(*r, load(f));
                }
            }
            p
        }

        /// Inverse of the forward group transpose.
        ///
        /// # Safety
        /// The CPU must support AVX2.
        #[target_feature(enable = "avx2")]
        #[inline]
        pub(crate) unsafe fn $inv(mut p: [__m256i; $s]) -> [__m256i; $s] {
            let fix: Option<&[u8; 32]> = $fix_inv;
            for r in p.iter_mut() {
                if let Some(f) = fix {
                    *r = _mm256_shuffle_epi8(*r, load(f));
                }
                *r = _mm256_permute4x64_epi64::<0xD8>(*r);
            }
            $net_inv(p)
        }

        /// Shuffles whole groups of 32 elements; returns the number of elements done.
        ///
        /// # Safety
        /// The CPU must support AVX2.
        #[target_feature(enable = "avx2")]
        unsafe fn $shuf(src: &[u8], dst: &mut [u8]) -> usize {
            let n = src.len().min(dst.len()) / $s;
            let mut k = 0;
            while k + 32 <= n {
                let group = &src[k * $s..(k + 32) * $s];
                let mut v = [_mm256_setzero_si256(); $s];
                for (i, r) in v.iter_mut().enumerate() {
                    *r = load(at32(group, 32 * i));
                }
                for (j, p) in $fwd(v).into_iter().enumerate() {
                    store(at32_mut(dst, j * n + k), p);
                }
                k += 32;
            }
            k
        }

        /// Unshuffles whole groups of 32 elements; returns the number of elements done.
        ///
        /// # Safety
        /// The CPU must support AVX2.
        #[target_feature(enable = "avx2")]
        unsafe fn $unshuf(src: &[u8], dst: &mut [u8]) -> usize {
            let n = src.len().min(dst.len()) / $s;
            let mut k = 0;
            while k + 32 <= n {
                let mut p = [_mm256_setzero_si256(); $s];
                for (j, r) in p.iter_mut().enumerate() {
                    *r = load(at32(src, j * n + k));
                }
                let group = &mut dst[k * $s..(k + 32) * $s];
                for (i, r) in $inv(p).into_iter().enumerate() {
                    store(at32_mut(group, 32 * i), r);
                }
                k += 32;
            }
            k
        }
    };
}

kernels!(2, fwd2, inv2, net_fwd2, net_inv2, None, None, shuffle2, unshuffle2);
kernels!(4, fwd4, inv4, net_fwd4, net_inv4, Some(&FIX_FWD_4), Some(&FIX_INV_4), shuffle4, unshuffle4);
kernels!(8, fwd8, inv8, net_fwd8, net_inv8, Some(&FIX_FWD_8), Some(&FIX_INV_8), shuffle8, unshuffle8);
kernels!(
    16,
    fwd16,
    inv16,
    net_fwd16,
    net_inv16,
    Some(&FIX_FWD_16),
    Some(&FIX_INV_16),
    shuffle16,
    unshuffle16
);

/// Byte shuffle of all of `src` into `dst` (equal lengths, `typesize >= 1`).
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn shuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    let done = match typesize {
        2 => sse2::shuffle2(shuffle2(src, dst), src, dst),
        4 => sse2::shuffle4(shuffle4(src, dst), src, dst),
        8 => sse2::shuffle8(shuffle8(src, dst), src, dst),
        16 => sse2::shuffle16(shuffle16(src, dst), src, dst),
        _ => 0,
    };
    generic::shuffle_from(typesize, done, src, dst);
}

/// Inverse of [`shuffle`].
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn unshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    let done = match typesize {
        2 => sse2::unshuffle2(unshuffle2(src, dst), src, dst),
        4 => sse2::unshuffle4(unshuffle4(src, dst), src, dst),
        8 => sse2::unshuffle8(unshuffle8(src, dst), src, dst),
        16 => sse2::unshuffle16(unshuffle16(src, dst), src, dst),
        _ => 0,
    };
    generic::unshuffle_from(typesize, done, src, dst);
}
