//! SSE2 byte-shuffle kernels for the element sizes 2, 4, 8 and 16 (others use the generic code).
//!
//! A group of 16 elements of `S` bytes is `S` vectors. One *split* turns two vectors into the
//! vector of their even bytes and the vector of their odd bytes (`and`/`shift` + `packus`).
//! Splitting all `S` vectors pairwise gives the even-byte stream and the odd-byte stream, each
//! a run of 16 elements of `S / 2` bytes, which are split again recursively: byte `j` ends up in
//! plane `j`. Unshuffling *merges* (`unpacklo/hi_epi8`) in the opposite order.
//!
//! SSE2 is part of the x86_64 baseline (checked at compile time below), so everything here is
//! safe code; the only `unsafe` blocks are the intrinsic calls themselves and the unaligned
//! loads/stores through `&[u8; 16]` references taken from bounds-checked slices.

use std::arch::x86_64::*;

use super::generic;

// Every intrinsic below relies on this.
const _: () = assert!(cfg!(target_feature = "sse2"), "x86_64 without SSE2");

/// Loads 16 bytes.
#[inline(always)]
pub(crate) fn load(b: &[u8; 16]) -> __m128i {
    // SAFETY: `b` is 16 readable bytes (unaligned load); SSE2 is enabled (asserted above).
    unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
}

/// Stores 16 bytes.
#[inline(always)]
pub(crate) fn store(b: &mut [u8; 16], v: __m128i) {
    // SAFETY: `b` is 16 writable bytes (unaligned store); SSE2 is enabled (asserted above).
    unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), v) }
}

/// The 16 bytes of `s` starting at `at` (a logic error if out of range).
#[inline(always)]
pub(crate) fn at16(s: &[u8], at: usize) -> &[u8; 16] {
    s[at..at + 16].try_into().expect("16-byte window")
}

/// Mutable version of [`at16`].
#[inline(always)]
pub(crate) fn at16_mut(s: &mut [u8], at: usize) -> &mut [u8; 16] {
    (&mut s[at..at + 16]).try_into().expect("16-byte window")
}

pub(crate) use super::generic::{planes, planes_mut};

/// `(even bytes of a‖b, odd bytes of a‖b)`.
#[inline(always)]
fn split(a: __m128i, b: __m128i) -> (__m128i, __m128i) {
    // SAFETY: register-only SSE2 intrinsics; SSE2 is enabled (asserted above).
    unsafe {
        let mask = _mm_set1_epi16(0x00FF);
        let even = _mm_packus_epi16(_mm_and_si128(a, mask), _mm_and_si128(b, mask));
        let odd = _mm_packus_epi16(_mm_srli_epi16::<8>(a), _mm_srli_epi16::<8>(b));
        (even, odd)
    }
}

/// Inverse of [`split`]: `(a, b)` from the even and odd bytes.
#[inline(always)]
fn merge(even: __m128i, odd: __m128i) -> (__m128i, __m128i) {
    // SAFETY: register-only SSE2 intrinsics; SSE2 is enabled (asserted above).
    unsafe { (_mm_unpacklo_epi8(even, odd), _mm_unpackhi_epi8(even, odd)) }
}

/// 16 elements of 2 bytes (2 vectors) → 2 planes.
#[inline(always)]
pub(crate) fn fwd2(v: [__m128i; 2]) -> [__m128i; 2] {
    let (e, o) = split(v[0], v[1]);
    [e, o]
}

/// 16 elements of 4 bytes → 4 planes.
#[inline(always)]
pub(crate) fn fwd4(v: [__m128i; 4]) -> [__m128i; 4] {
    let (e0, o0) = split(v[0], v[1]);
    let (e1, o1) = split(v[2], v[3]);
    let [a0, a1] = fwd2([e0, e1]);
    let [b0, b1] = fwd2([o0, o1]);
    [a0, b0, a1, b1]
}

/// 8×8 transpose of the 16-bit words held in 8 vectors (`result[j]` word `i` = `r[i]` word `j`).
#[inline(always)]
fn transpose_words(r: [__m128i; 8]) -> [__m128i; 8] {
    // SAFETY: register-only SSE2 intrinsics; SSE2 is enabled (asserted above).
    unsafe {
        let a0 = _mm_unpacklo_epi16(r[0], r[1]);
        let a1 = _mm_unpackhi_epi16(r[0], r[1]);
        let a2 = _mm_unpacklo_epi16(r[2], r[3]);
        let a3 = _mm_unpackhi_epi16(r[2], r[3]);
        let a4 = _mm_unpacklo_epi16(r[4], r[5]);
        let a5 = _mm_unpackhi_epi16(r[4], r[5]);
        let a6 = _mm_unpacklo_epi16(r[6], r[7]);
        let a7 = _mm_unpackhi_epi16(r[6], r[7]);
        let b0 = _mm_unpacklo_epi32(a0, a2);
        let b1 = _mm_unpackhi_epi32(a0, a2);
        let b2 = _mm_unpacklo_epi32(a1, a3);
        let b3 = _mm_unpackhi_epi32(a1, a3);
        let b4 = _mm_unpacklo_epi32(a4, a6);
        let b5 = _mm_unpackhi_epi32(a4, a6);
        let b6 = _mm_unpacklo_epi32(a5, a7);
        let b7 = _mm_unpackhi_epi32(a5, a7);
        [
            _mm_unpacklo_epi64(b0, b4),
            _mm_unpackhi_epi64(b0, b4),
            _mm_unpacklo_epi64(b1, b5),
            _mm_unpackhi_epi64(b1, b5),
            _mm_unpacklo_epi64(b2, b6),
            _mm_unpackhi_epi64(b2, b6),
            _mm_unpacklo_epi64(b3, b7),
            _mm_unpackhi_epi64(b3, b7),
        ]
    }
}

/// 16 elements of 8 bytes → 8 planes: each vector's two elements are interleaved byte by byte
/// (word `j` = byte `j` of both), then the 8×8 word matrix is transposed.
#[inline(always)]
pub(crate) fn fwd8(v: [__m128i; 8]) -> [__m128i; 8] {
    let mut w = v;
    for x in w.iter_mut() {
        // SAFETY: register-only SSE2 intrinsics; SSE2 is enabled (asserted above).
        *x = unsafe { _mm_unpacklo_epi8(*x, _mm_shuffle_epi32::<0x4E>(*x)) };
    }
    transpose_words(w)
}

/// 16 elements of 16 bytes → 16 planes: a 16×16 byte transpose, which is its own inverse.
#[inline(always)]
pub(crate) fn fwd16(v: [__m128i; 16]) -> [__m128i; 16] {
    inv16(v)
}

/// Inverse of [`fwd2`].
#[inline(always)]
pub(crate) fn inv2(p: [__m128i; 2]) -> [__m128i; 2] {
    let (v0, v1) = merge(p[0], p[1]);
    [v0, v1]
}

/// Inverse of [`fwd4`].
#[inline(always)]
pub(crate) fn inv4(p: [__m128i; 4]) -> [__m128i; 4] {
    let e = inv2([p[0], p[2]]);
    let o = inv2([p[1], p[3]]);
    let (v0, v1) = merge(e[0], o[0]);
    let (v2, v3) = merge(e[1], o[1]);
    [v0, v1, v2, v3]
}

/// Inverse of [`fwd8`].
#[inline(always)]
pub(crate) fn inv8(p: [__m128i; 8]) -> [__m128i; 8] {
    let e = inv4([p[0], p[2], p[4], p[6]]);
    let o = inv4([p[1], p[3], p[5], p[7]]);
    let (v0, v1) = merge(e[0], o[0]);
    let (v2, v3) = merge(e[1], o[1]);
    let (v4, v5) = merge(e[2], o[2]);
    let (v6, v7) = merge(e[3], o[3]);
    [v0, v1, v2, v3, v4, v5, v6, v7]
}

/// Inverse of [`fwd16`].
#[inline(always)]
pub(crate) fn inv16(p: [__m128i; 16]) -> [__m128i; 16] {
    let e = inv8([p[0], p[2], p[4], p[6], p[8], p[10], p[12], p[14]]);
    let o = inv8([p[1], p[3], p[5], p[7], p[9], p[11], p[13], p[15]]);
    let mut v = [e[0]; 16];
    for i in 0..8 {
        (v[2 * i], v[2 * i + 1]) = merge(e[i], o[i]);
    }
    v
}

/// Generates the group loops for one element size: `$shuf`/`$unshuf` process whole groups of
/// 16 elements from element `k0` on and return the first element not done.
macro_rules! group_loops {
    ($shuf:ident, $unshuf:ident, $s:literal, $fwd:ident, $inv:ident) => {
        pub(crate) fn $shuf(k0: usize, src: &[u8], dst: &mut [u8]) -> usize {
            let n = src.len().min(dst.len()) / $s;
            if k0 + 16 > n {
                return k0;
            }
            let mut planes = planes_mut::<$s>(dst, n);
            let mut k = k0;
            while k + 16 <= n {
                let group = &src[k * $s..(k + 16) * $s];
                let mut v = [load(at16(group, 0)); $s];
                for (i, r) in v.iter_mut().enumerate().skip(1) {
                    *r = load(at16(group, 16 * i));
                }
                for (plane, p) in planes.iter_mut().zip($fwd(v)) {
                    store(at16_mut(plane, k), p);
                }
                k += 16;
            }
            k
        }

        pub(crate) fn $unshuf(k0: usize, src: &[u8], dst: &mut [u8]) -> usize {
            let n = src.len().min(dst.len()) / $s;
            if k0 + 16 > n {
                return k0;
            }
            let planes = planes::<$s>(src, n);
            let mut k = k0;
            while k + 16 <= n {
                let mut p = [load(at16(planes[0], k)); $s];
                for (r, plane) in p.iter_mut().zip(planes).skip(1) {
                    *r = load(at16(plane, k));
                }
                let group = &mut dst[k * $s..(k + 16) * $s];
                for (i, r) in $inv(p).into_iter().enumerate() {
                    store(at16_mut(group, 16 * i), r);
                }
                k += 16;
            }
            k
        }
    };
}

group_loops!(shuffle2, unshuffle2, 2, fwd2, inv2);
group_loops!(shuffle4, unshuffle4, 4, fwd4, inv4);
group_loops!(shuffle8, unshuffle8, 8, fwd8, inv8);
group_loops!(shuffle16, unshuffle16, 16, fwd16, inv16);

/// Byte shuffle of all of `src` into `dst` (equal lengths, `typesize >= 1`).
pub(crate) fn shuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    let done = match typesize {
        2 => shuffle2(0, src, dst),
        4 => shuffle4(0, src, dst),
        8 => shuffle8(0, src, dst),
        16 => shuffle16(0, src, dst),
        _ => 0,
    };
    generic::shuffle_from(typesize, done, src, dst);
}

/// Inverse of [`shuffle`].
pub(crate) fn unshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    let done = match typesize {
        2 => unshuffle2(0, src, dst),
        4 => unshuffle4(0, src, dst),
        8 => unshuffle8(0, src, dst),
        16 => unshuffle16(0, src, dst),
        _ => 0,
    };
    generic::unshuffle_from(typesize, done, src, dst);
}
