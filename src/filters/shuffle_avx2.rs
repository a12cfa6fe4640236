//! AVX2 byte-shuffle kernels: the element sizes 2, 4, 8, 12 and 16 have their own; any other size
//! goes through the 8-, 4- and 2-byte networks a piece of its planes at a time.
//!
//! A group is 32 elements (`32*S` bytes = `2*S` 16-byte *segments*) held in `S` registers, and
//! register `i` holds segment `i` in its low lane and segment `i + S` in its high lane: the low
//! lanes hold elements 0–15 and the high lanes elements 16–31. All transposes then work inside
//! 128-bit lanes (`shuffle_epi8`, `unpack*`) and a plane register comes out with its 32 bytes in
//! element order, so no cross-lane fix-up is needed except when loading/storing segments.
//!
//! Forward: `shuffle_epi8` gathers, inside each lane, the bytes of each plane (for `S` = 2, 4, 8:
//! `16/S` elements per lane), then a qword/dword/word transpose across the registers finishes
//! the job; for `S` = 16 (one element per lane) a 16×16 byte transpose by four rounds of
//! `unpack` does it. Inverse: rounds of `unpacklo/hi_epi8` (the merge network of
//! `shuffle_sse2.rs`, inside lanes). Tails go to the SSE2 kernel, then to the generic code.
//!
//! The only `unsafe` precondition of these functions is the CPU feature (AVX2, detected once by
//! the dispatcher). All memory accesses go through `&[u8; N]` / `&mut [u8; N]` references taken
//! from bounds-checked slices.

use std::arch::x86_64::*;

use super::generic;
use super::sse2::{self, at16, at16_mut, planes, planes_mut};

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

/// Loads a group of `32*S` bytes as `S` registers, register `i` = segment `i` (low lane) and
/// segment `i + S` (high lane).
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn load_segments<const S: usize>(group: &[u8]) -> [__m256i; S] {
    let mut r = [_mm256_setzero_si256(); S];
    for (i, v) in r.iter_mut().enumerate() {
        let lo = sse2::load(at16(group, 16 * i));
        let hi = sse2::load(at16(group, 16 * (i + S)));
        *v = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi);
    }
    r
}

/// Inverse of [`load_segments`]: stores `S` registers (`S` even) as a group of `32*S` bytes.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn store_segments<const S: usize>(group: &mut [u8], r: [__m256i; S]) {
    // Stores in address order (the low lanes first, then the high lanes): measurably faster
    // than interleaving the two halves of the group.
    let group: &mut [u8] = &mut group[..32 * S];
    for i in (0..S).step_by(2) {
        store(
            at32_mut(group, 16 * i),
            _mm256_permute2x128_si256::<0x20>(r[i], r[i + 1]),
        );
    }
    for i in (0..S).step_by(2) {
        store(
            at32_mut(group, 16 * (i + S)),
            _mm256_permute2x128_si256::<0x31>(r[i], r[i + 1]),
        );
    }
}

/// In-lane byte pattern gathering the bytes of each plane for element size `s` (2, 4, 8):
/// output byte `j*(16/s) + e` = input byte `e*s + j`.
const fn plane_pattern(s: usize) -> [u8; 32] {
    let mut p = [0u8; 32];
    let per_lane = 16 / s;
    let mut o = 0;
    while o < 16 {
        let (j, e) = (o / per_lane, o % per_lane);
        p[o] = (e * s + j) as u8;
        p[o + 16] = (e * s + j) as u8;
        o += 1;
    }
    p
}

static PATTERN_2: [u8; 32] = plane_pattern(2);
static PATTERN_4: [u8; 32] = plane_pattern(4);
static PATTERN_8: [u8; 32] = plane_pattern(8);

/// `(a, b)` interleaved bytewise: inverse of "even bytes, odd bytes", per lane.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn merge(even: __m256i, odd: __m256i) -> (__m256i, __m256i) {
    (
        _mm256_unpacklo_epi8(even, odd),
        _mm256_unpackhi_epi8(even, odd),
    )
}

/// 32 elements of 2 bytes → 2 planes.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn fwd2(v: [__m256i; 2]) -> [__m256i; 2] {
    let pat = load(&PATTERN_2);
    let (a, b) = (
        _mm256_shuffle_epi8(v[0], pat),
        _mm256_shuffle_epi8(v[1], pat),
    );
    [_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b)]
}

/// 32 elements of 4 bytes → 4 planes (in-lane byte gather, then a 4×4 dword transpose).
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn fwd4(v: [__m256i; 4]) -> [__m256i; 4] {
    let pat = load(&PATTERN_4);
    let r = [
        _mm256_shuffle_epi8(v[0], pat),
        _mm256_shuffle_epi8(v[1], pat),
        _mm256_shuffle_epi8(v[2], pat),
        _mm256_shuffle_epi8(v[3], pat),
    ];
    let a0 = _mm256_unpacklo_epi32(r[0], r[1]);
    let a1 = _mm256_unpackhi_epi32(r[0], r[1]);
    let a2 = _mm256_unpacklo_epi32(r[2], r[3]);
    let a3 = _mm256_unpackhi_epi32(r[2], r[3]);
    [
        _mm256_unpacklo_epi64(a0, a2),
        _mm256_unpackhi_epi64(a0, a2),
        _mm256_unpacklo_epi64(a1, a3),
        _mm256_unpackhi_epi64(a1, a3),
    ]
}

/// 32 elements of 8 bytes → 8 planes (in-lane byte gather, then an 8×8 word transpose).
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn fwd8(v: [__m256i; 8]) -> [__m256i; 8] {
    let pat = load(&PATTERN_8);
    let mut r = v;
    for x in r.iter_mut() {
        *x = _mm256_shuffle_epi8(*x, pat);
    }
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

/// 32 elements of 16 bytes → 16 planes. Planes 0–7 depend only on the low 8 bytes of the
/// elements and planes 8–15 on the high 8 bytes, so each half is an 8-byte problem: the
/// `unpack*_epi64` pairs the halves of neighbouring elements into the layout [`fwd8`] expects,
/// and only 8 registers are live at a time.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn fwd16(v: [__m256i; 16]) -> [__m256i; 16] {
    let mut lo = [_mm256_setzero_si256(); 8];
    let mut hi = [_mm256_setzero_si256(); 8];
    for i in 0..8 {
        lo[i] = _mm256_unpacklo_epi64(v[2 * i], v[2 * i + 1]);
        hi[i] = _mm256_unpackhi_epi64(v[2 * i], v[2 * i + 1]);
    }
    let a = fwd8(lo);
    let b = fwd8(hi);
    [
        a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], b[0], b[1], b[2], b[3], b[4], b[5], b[6],
        b[7],
    ]
}

/// Inverse of [`fwd2`].
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn inv2(p: [__m256i; 2]) -> [__m256i; 2] {
    let (v0, v1) = merge(p[0], p[1]);
    [v0, v1]
}

/// Inverse of [`fwd4`].
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn inv4(p: [__m256i; 4]) -> [__m256i; 4] {
    let e = inv2([p[0], p[2]]);
    let o = inv2([p[1], p[3]]);
    let (v0, v1) = merge(e[0], o[0]);
    let (v2, v3) = merge(e[1], o[1]);
    [v0, v1, v2, v3]
}

/// Inverse of [`fwd8`].
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn inv8(p: [__m256i; 8]) -> [__m256i; 8] {
    let e = inv4([p[0], p[2], p[4], p[6]]);
    let o = inv4([p[1], p[3], p[5], p[7]]);
    let (v0, v1) = merge(e[0], o[0]);
    let (v2, v3) = merge(e[1], o[1]);
    let (v4, v5) = merge(e[2], o[2]);
    let (v6, v7) = merge(e[3], o[3]);
    [v0, v1, v2, v3, v4, v5, v6, v7]
}

/// Inverse of [`fwd16`].
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn inv16(p: [__m256i; 16]) -> [__m256i; 16] {
    let e = inv8([p[0], p[2], p[4], p[6], p[8], p[10], p[12], p[14]]);
    let o = inv8([p[1], p[3], p[5], p[7], p[9], p[11], p[13], p[15]]);
    let (v0, v1) = merge(e[0], o[0]);
    let (v2, v3) = merge(e[1], o[1]);
    let (v4, v5) = merge(e[2], o[2]);
    let (v6, v7) = merge(e[3], o[3]);
    let (v8, v9) = merge(e[4], o[4]);
    let (v10, v11) = merge(e[5], o[5]);
    let (v12, v13) = merge(e[6], o[6]);
    let (v14, v15) = merge(e[7], o[7]);
    [
        v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15,
    ]
}

/// Generates the group loops for one element size: whole groups of 32 elements from element
/// 0 on; they return the number of elements done.
macro_rules! group_loops {
    ($shuf:ident, $unshuf:ident, $s:literal, $fwd:ident, $inv:ident) => {
        /// # Safety
        /// The CPU must support AVX2.
        #[target_feature(enable = "avx2")]
        unsafe fn $shuf(src: &[u8], dst: &mut [u8]) -> usize {
            let n = src.len().min(dst.len()) / $s;
            if n < 32 {
                return 0;
            }
            let mut planes = planes_mut::<$s>(dst, n);
            let mut k = 0;
            while k + 32 <= n {
                let v = load_segments::<$s>(&src[k * $s..(k + 32) * $s]);
                for (plane, p) in planes.iter_mut().zip($fwd(v)) {
                    store(at32_mut(plane, k), p);
                }
                k += 32;
            }
            k
        }

        /// # Safety
        /// The CPU must support AVX2.
        #[target_feature(enable = "avx2")]
        unsafe fn $unshuf(src: &[u8], dst: &mut [u8]) -> usize {
            let n = src.len().min(dst.len()) / $s;
            if n < 32 {
                return 0;
            }
            let planes = planes::<$s>(src, n);
            let mut k = 0;
            while k + 32 <= n {
                let mut p = [_mm256_setzero_si256(); $s];
                for (r, plane) in p.iter_mut().zip(planes) {
                    *r = load(at32(plane, k));
                }
                store_segments::<$s>(&mut dst[k * $s..(k + 32) * $s], $inv(p));
                k += 32;
            }
            k
        }
    };
}

group_loops!(shuffle2, unshuffle2, 2, fwd2, inv2);
group_loops!(shuffle4, unshuffle4, 4, fwd4, inv4);
group_loops!(shuffle8_one_pass, unshuffle8, 8, fwd8, inv8);

/// Like [`shuffle16`] for 8-byte elements: planes 0–3 from the low 4 bytes of the elements,
/// then planes 4–7 from the high 4 bytes (`shuffle_ps` gathers them in [`fwd4`]'s layout).
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn shuffle8(src: &[u8], dst: &mut [u8]) -> usize {
    let n = src.len().min(dst.len()) / 8;
    if n < 32 {
        return 0;
    }
    let mut planes = planes_mut::<8>(dst, n);
    for (half, half_planes) in planes.chunks_exact_mut(4).enumerate() {
        let mut k = 0;
        while k + 32 <= n {
            let v = load_segments::<8>(&src[k * 8..(k + 32) * 8]);
            let mut h = [_mm256_setzero_si256(); 4];
            for (i, x) in h.iter_mut().enumerate() {
                let (a, b) = (
                    _mm256_castsi256_ps(v[2 * i]),
                    _mm256_castsi256_ps(v[2 * i + 1]),
                );
                *x = _mm256_castps_si256(if half == 0 {
                    _mm256_shuffle_ps::<0b10_00_10_00>(a, b)
                } else {
                    _mm256_shuffle_ps::<0b11_01_11_01>(a, b)
                });
            }
            for (plane, p) in half_planes.iter_mut().zip(fwd4(h)) {
                store(at32_mut(plane, k), p);
            }
            k += 32;
        }
    }
    n / 32 * 32
}
group_loops!(shuffle16_one_pass, unshuffle16, 16, fwd16, inv16);

/// Shuffle of whole groups of 32 elements of 16 bytes in two passes over `src`: planes 0–7
/// from the low 8 bytes of the elements, then planes 8–15 from the high 8 bytes. Writing 8
/// planes at a time instead of 16 matters because with power-of-two block sizes all planes map
/// to the same cache sets. Returns the number of elements done.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn shuffle16(src: &[u8], dst: &mut [u8]) -> usize {
    let n = src.len().min(dst.len()) / 16;
    if n < 32 {
        return 0;
    }
    let mut planes = planes_mut::<16>(dst, n);
    for (half, half_planes) in planes.chunks_exact_mut(8).enumerate() {
        let mut k = 0;
        while k + 32 <= n {
            let v = load_segments::<16>(&src[k * 16..(k + 32) * 16]);
            let mut h = [_mm256_setzero_si256(); 8];
            for (i, x) in h.iter_mut().enumerate() {
                *x = if half == 0 {
                    _mm256_unpacklo_epi64(v[2 * i], v[2 * i + 1])
                } else {
                    _mm256_unpackhi_epi64(v[2 * i], v[2 * i + 1])
                };
            }
            for (plane, p) in half_planes.iter_mut().zip(fwd8(h)) {
                store(at32_mut(plane, k), p);
            }
            k += 32;
        }
    }
    n / 32 * 32
}

/// 12-byte elements as three 4-byte streams: dwords `[a b c]` of each element. In each lane,
/// the 4 elements `[a0 b0 c0 a1] [b1 c1 a2 b2] [c2 a3 b3 c3]` (three 16-byte rows) and the
/// three dword vectors `[a0..a3] [b0..b3] [c0..c3]` are exchanged with in-lane dword shuffles
/// and blends; the dword streams then go through the 4-byte networks.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn shuffle12(src: &[u8], dst: &mut [u8]) -> usize {
    let n = src.len().min(dst.len()) / 12;
    if n < 32 {
        return 0;
    }
    let mut k = 0;
    while k + 32 <= n {
        let group = &src[k * 12..(k + 32) * 12];
        let mut abc = [[_mm256_setzero_si256(); 4]; 3];
        let [va, vb, vc] = &mut abc;
        let regs = va.iter_mut().zip(vb.iter_mut()).zip(vc.iter_mut());
        for (i, ((va, vb), vc)) in regs.enumerate() {
            let row = |j: usize| {
                let lo = sse2::load(at16(group, 48 * i + 16 * j));
                let hi = sse2::load(at16(group, 192 + 48 * i + 16 * j));
                _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi)
            };
            let (x0, x1, x2) = (row(0), row(1), row(2));
            let a = _mm256_blend_epi32::<0x44>(
                _mm256_shuffle_epi32::<0x0C>(x0),
                _mm256_shuffle_epi32::<0x20>(x1),
            );
            *va = _mm256_blend_epi32::<0x88>(a, _mm256_shuffle_epi32::<0x40>(x2));
            let b = _mm256_blend_epi32::<0x66>(
                _mm256_shuffle_epi32::<0x01>(x0),
                _mm256_shuffle_epi32::<0x30>(x1),
            );
            *vb = _mm256_blend_epi32::<0x88>(b, _mm256_shuffle_epi32::<0x80>(x2));
            let c = _mm256_blend_epi32::<0x22>(
                _mm256_shuffle_epi32::<0x02>(x0),
                _mm256_shuffle_epi32::<0x04>(x1),
            );
            *vc = _mm256_blend_epi32::<0xCC>(c, _mm256_shuffle_epi32::<0xC0>(x2));
        }
        for (d, v) in abc.into_iter().enumerate() {
            for (j, p) in fwd4(v).into_iter().enumerate() {
                store(at32_mut(dst, (4 * d + j) * n + k), p);
            }
        }
        k += 32;
    }
    k
}

/// Inverse of [`shuffle12`].
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn unshuffle12(src: &[u8], dst: &mut [u8]) -> usize {
    let n = src.len().min(dst.len()) / 12;
    if n < 32 {
        return 0;
    }
    let mut k = 0;
    while k + 32 <= n {
        let dwords = |d: usize| {
            let mut p = [_mm256_setzero_si256(); 4];
            for (j, r) in p.iter_mut().enumerate() {
                *r = load(at32(src, (4 * d + j) * n + k));
            }
            inv4(p)
        };
        let (a, b, c) = (dwords(0), dwords(1), dwords(2));
        let group = &mut dst[k * 12..(k + 32) * 12];
        for i in 0..4 {
            let x0 = _mm256_blend_epi32::<0x44>(
                _mm256_blend_epi32::<0x22>(
                    _mm256_shuffle_epi32::<0x40>(a[i]),
                    _mm256_shuffle_epi32::<0x00>(b[i]),
                ),
                _mm256_shuffle_epi32::<0x00>(c[i]),
            );
            let x1 = _mm256_blend_epi32::<0x22>(
                _mm256_blend_epi32::<0x44>(
                    _mm256_shuffle_epi32::<0x81>(b[i]),
                    _mm256_shuffle_epi32::<0x20>(a[i]),
                ),
                _mm256_shuffle_epi32::<0x04>(c[i]),
            );
            let x2 = _mm256_blend_epi32::<0x44>(
                _mm256_blend_epi32::<0x22>(
                    _mm256_shuffle_epi32::<0xC2>(c[i]),
                    _mm256_shuffle_epi32::<0x0C>(a[i]),
                ),
                _mm256_shuffle_epi32::<0x30>(b[i]),
            );
            for (j, x) in [x0, x1, x2].into_iter().enumerate() {
                sse2::store(at16_mut(group, 48 * i + 16 * j), _mm256_castsi256_si128(x));
                sse2::store(
                    at16_mut(group, 192 + 48 * i + 16 * j),
                    _mm256_extracti128_si256::<1>(x),
                );
            }
        }
        k += 32;
    }
    k
}

/// Generates the staging steps of [`shuffle_any`] / [`unshuffle_any`] for a piece of `$w`
/// planes (`$w` even): the `$w`-byte slices of 32 consecutive elements are gathered into (or
/// scattered from) a `32*$w`-byte buffer in the element layout of [`load_segments`], which the
/// `$w`-byte network transposes to (or from) `$w` plane registers.
macro_rules! piece_steps {
    ($shuf:ident, $unshuf:ident, $w:literal, $fwd:ident, $inv:ident) => {
        /// # Safety
        /// The CPU must support AVX2.
        #[target_feature(enable = "avx2")]
        #[inline]
        unsafe fn $shuf(s: usize, n: usize, k: usize, p0: usize, src: &[u8], dst: &mut [u8]) {
            let mut tmp = [0u8; 32 * $w];
            for (e, t) in tmp.chunks_exact_mut($w).enumerate() {
                let at = (k + e) * s + p0;
                t.copy_from_slice(&src[at..at + $w]);
            }
            for (j, p) in $fwd(load_segments::<$w>(&tmp)).into_iter().enumerate() {
                store(at32_mut(dst, (p0 + j) * n + k), p);
            }
        }

        /// # Safety
        /// The CPU must support AVX2.
        #[target_feature(enable = "avx2")]
        #[inline]
        unsafe fn $unshuf(s: usize, n: usize, k: usize, p0: usize, src: &[u8], dst: &mut [u8]) {
            let mut p = [_mm256_setzero_si256(); $w];
            for (j, r) in p.iter_mut().enumerate() {
                *r = load(at32(src, (p0 + j) * n + k));
            }
            let mut tmp = [0u8; 32 * $w];
            store_segments::<$w>(&mut tmp, $inv(p));
            for (e, t) in tmp.chunks_exact($w).enumerate() {
                let at = (k + e) * s + p0;
                dst[at..at + $w].copy_from_slice(t);
            }
        }
    };
}

piece_steps!(shuffle_piece8, unshuffle_piece8, 8, fwd8, inv8);
piece_steps!(shuffle_piece4, unshuffle_piece4, 4, fwd4, inv4);
piece_steps!(shuffle_piece2, unshuffle_piece2, 2, fwd2, inv2);

/// Shuffle of whole groups of 32 elements for any element size `s`: the planes of each group
/// are done 8 at a time, then 4, 2 and 1 for the rest (`s` = 12: 8 + 4). Returns the number of
/// elements done.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn shuffle_any(s: usize, src: &[u8], dst: &mut [u8]) -> usize {
    let n = src.len().min(dst.len()) / s;
    if n < 32 {
        return 0;
    }
    let mut k = 0;
    while k + 32 <= n {
        let mut p0 = 0;
        while s - p0 >= 8 {
            shuffle_piece8(s, n, k, p0, src, dst);
            p0 += 8;
        }
        if s - p0 >= 4 {
            shuffle_piece4(s, n, k, p0, src, dst);
            p0 += 4;
        }
        if s - p0 >= 2 {
            shuffle_piece2(s, n, k, p0, src, dst);
            p0 += 2;
        }
        if p0 < s {
            for (e, d) in dst[p0 * n + k..p0 * n + k + 32].iter_mut().enumerate() {
                *d = src[(k + e) * s + p0];
            }
        }
        k += 32;
    }
    k
}

/// Inverse of [`shuffle_any`].
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn unshuffle_any(s: usize, src: &[u8], dst: &mut [u8]) -> usize {
    let n = src.len().min(dst.len()) / s;
    if n < 32 {
        return 0;
    }
    let mut k = 0;
    while k + 32 <= n {
        let mut p0 = 0;
        while s - p0 >= 8 {
            unshuffle_piece8(s, n, k, p0, src, dst);
            p0 += 8;
        }
        if s - p0 >= 4 {
            unshuffle_piece4(s, n, k, p0, src, dst);
            p0 += 4;
        }
        if s - p0 >= 2 {
            unshuffle_piece2(s, n, k, p0, src, dst);
            p0 += 2;
        }
        if p0 < s {
            for (e, &b) in src[p0 * n + k..p0 * n + k + 32].iter().enumerate() {
                dst[(k + e) * s + p0] = b;
            }
        }
        k += 32;
    }
    k
}

/// Whether the 8- and 16-byte shuffles write their planes in two passes: only when the planes
/// are `n` bytes apart with `n` a multiple of 1024, where they share cache sets (power-of-two
/// blocks); otherwise one pass over `src` is faster.
fn two_pass(n: usize) -> bool {
    n.is_multiple_of(1024)
}

/// Byte shuffle of all of `src` into `dst` (equal lengths, `typesize >= 1`).
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn shuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    let done = match typesize {
        2 => sse2::shuffle2(shuffle2(src, dst), src, dst),
        4 => sse2::shuffle4(shuffle4(src, dst), src, dst),
        8 => sse2::shuffle8(
            if two_pass(src.len() / 8) {
                shuffle8(src, dst)
            } else {
                shuffle8_one_pass(src, dst)
            },
            src,
            dst,
        ),
        16 => sse2::shuffle16(
            if two_pass(src.len() / 16) {
                shuffle16(src, dst)
            } else {
                shuffle16_one_pass(src, dst)
            },
            src,
            dst,
        ),
        12 => shuffle12(src, dst),
        s => shuffle_any(s, src, dst),
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
        12 => unshuffle12(src, dst),
        s => unshuffle_any(s, src, dst),
    };
    generic::unshuffle_from(typesize, done, src, dst);
}
