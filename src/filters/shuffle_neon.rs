//! NEON byte-shuffle kernels for the element sizes 2, 3, 4, 8 and 16 (others use the generic
//! code).
//!
//! A group is 16 elements. For 2, 3 and 4 bytes the structure loads `vld2q/vld3q/vld4q_u8`
//! de-interleave a group straight into its planes, and the structure stores `vst2q/vst3q/vst4q`
//! interleave them back. For 8 and 16 bytes a group is loaded as 2 or 4 `vld4q_u8` (vector `j`
//! of a load holds bytes `j, j+4, j+8, …` of its elements), and one or two rounds of
//! `uzp1/uzp2` (even/odd bytes of two vectors) finish the transpose; unshuffling runs the same
//! network backwards with `zip1/zip2` and `vst4q_u8`.
//!
//! NEON is part of the aarch64 baseline (checked at compile time below), so everything here is
//! safe code; the only `unsafe` blocks are the intrinsic calls themselves and the loads and
//! stores through references to exactly as many bytes as they touch, taken from bounds-checked
//! slices.

use std::arch::aarch64::*;

use super::generic;

// Every intrinsic below relies on this.
const _: () = assert!(cfg!(target_feature = "neon"), "aarch64 without NEON");

/// Loads 16 bytes.
#[inline(always)]
pub(crate) fn load(b: &[u8; 16]) -> uint8x16_t {
    // SAFETY: `b` is 16 readable bytes (no alignment needed); NEON is enabled (asserted above).
    unsafe { vld1q_u8(b.as_ptr()) }
}

/// Stores 16 bytes.
#[inline(always)]
pub(crate) fn store(b: &mut [u8; 16], v: uint8x16_t) {
    // SAFETY: `b` is 16 writable bytes (no alignment needed); NEON is enabled (asserted above).
    unsafe { vst1q_u8(b.as_mut_ptr(), v) }
}

/// The `N` bytes of `s` starting at `at` (a logic error if out of range).
#[inline(always)]
pub(crate) fn at<const N: usize>(s: &[u8], at: usize) -> &[u8; N] {
    s[at..at + N].try_into().expect("window")
}

/// Mutable version of [`at`].
#[inline(always)]
pub(crate) fn at_mut<const N: usize>(s: &mut [u8], at: usize) -> &mut [u8; N] {
    (&mut s[at..at + N]).try_into().expect("window")
}

/// 4 elements of 16 bytes, or 8 of 8, or 16 of 4: vector `j` holds bytes `j, j+4, j+8, …`.
#[inline(always)]
fn ld4(b: &[u8; 64]) -> [uint8x16_t; 4] {
    // SAFETY: `b` is 64 readable bytes, what `vld4q_u8` reads; NEON is enabled.
    let v = unsafe { vld4q_u8(b.as_ptr()) };
    [v.0, v.1, v.2, v.3]
}

/// Inverse of [`ld4`].
#[inline(always)]
fn st4(b: &mut [u8; 64], v: [uint8x16_t; 4]) {
    // SAFETY: `b` is 64 writable bytes, what `vst4q_u8` writes; NEON is enabled.
    unsafe { vst4q_u8(b.as_mut_ptr(), uint8x16x4_t(v[0], v[1], v[2], v[3])) }
}

/// `(even bytes of a‖b, odd bytes of a‖b)`.
#[inline(always)]
fn unzip(a: uint8x16_t, b: uint8x16_t) -> (uint8x16_t, uint8x16_t) {
    // SAFETY: register-only NEON intrinsics; NEON is enabled (asserted above).
    unsafe { (vuzp1q_u8(a, b), vuzp2q_u8(a, b)) }
}

/// Inverse of [`unzip`].
#[inline(always)]
fn zip(even: uint8x16_t, odd: uint8x16_t) -> (uint8x16_t, uint8x16_t) {
    // SAFETY: register-only NEON intrinsics; NEON is enabled (asserted above).
    unsafe { (vzip1q_u8(even, odd), vzip2q_u8(even, odd)) }
}

/// 16 elements of 8 bytes (128 bytes) → 8 planes.
#[inline(always)]
pub(crate) fn fwd8(group: &[u8; 128]) -> [uint8x16_t; 8] {
    let a = ld4(at(group, 0));
    let b = ld4(at(group, 64));
    let mut p = [a[0]; 8];
    for j in 0..4 {
        (p[j], p[j + 4]) = unzip(a[j], b[j]);
    }
    p
}

/// Inverse of [`fwd8`].
#[inline(always)]
pub(crate) fn inv8(p: [uint8x16_t; 8], group: &mut [u8; 128]) {
    let mut a = [p[0]; 4];
    let mut b = [p[0]; 4];
    for j in 0..4 {
        (a[j], b[j]) = zip(p[j], p[j + 4]);
    }
    st4(at_mut(group, 0), a);
    st4(at_mut(group, 64), b);
}

/// 16 elements of 16 bytes (256 bytes) → 16 planes.
#[inline(always)]
fn fwd16(group: &[u8; 256]) -> [uint8x16_t; 16] {
    let v: [[uint8x16_t; 4]; 4] = std::array::from_fn(|k| ld4(at(group, 64 * k)));
    let mut p = [v[0][0]; 16];
    for j in 0..4 {
        // bytes j and j+8 of elements 0-7 (u) and 8-15 (u2); bytes j+4 and j+12 (w, w2)
        let (u, w) = unzip(v[0][j], v[1][j]);
        let (u2, w2) = unzip(v[2][j], v[3][j]);
        (p[j], p[j + 8]) = unzip(u, u2);
        (p[j + 4], p[j + 12]) = unzip(w, w2);
    }
    p
}

/// Inverse of [`fwd16`].
#[inline(always)]
fn inv16(p: [uint8x16_t; 16], group: &mut [u8; 256]) {
    let mut v = [[p[0]; 4]; 4];
    for j in 0..4 {
        let (u, u2) = zip(p[j], p[j + 8]);
        let (w, w2) = zip(p[j + 4], p[j + 12]);
        (v[0][j], v[1][j]) = zip(u, w);
        (v[2][j], v[3][j]) = zip(u2, w2);
    }
    for (k, vk) in v.into_iter().enumerate() {
        st4(at_mut(group, 64 * k), vk);
    }
}

/// Byte-shuffles whole groups of 16 elements of `S` bytes, `fwd` giving the group's `S` plane
/// vectors; returns the elements done.
#[inline(always)]
fn shuffle_groups<const S: usize, const G: usize>(
    src: &[u8],
    dst: &mut [u8],
    fwd: impl Fn(&[u8; G]) -> [uint8x16_t; S],
) -> usize {
    let n = src.len().min(dst.len()) / S;
    let end = n / 16 * 16;
    let mut planes = generic::planes_mut::<S>(dst, n);
    for k in (0..end).step_by(16) {
        let v = fwd(at(src, S * k));
        for (plane, x) in planes.iter_mut().zip(v) {
            store(at_mut(plane, k), x);
        }
    }
    end
}

/// Inverse of [`shuffle_groups`].
#[inline(always)]
fn unshuffle_groups<const S: usize, const G: usize>(
    src: &[u8],
    dst: &mut [u8],
    inv: impl Fn([uint8x16_t; S], &mut [u8; G]),
) -> usize {
    let n = src.len().min(dst.len()) / S;
    let end = n / 16 * 16;
    let planes = generic::planes::<S>(src, n);
    for k in (0..end).step_by(16) {
        let v: [uint8x16_t; S] = std::array::from_fn(|j| load(at(planes[j], k)));
        inv(v, at_mut(dst, S * k));
    }
    end
}

/// Byte-shuffles `src` into `dst` (equal lengths) for any element size, vectorised for 2, 3,
/// 4, 8 and 16 bytes.
pub(crate) fn shuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    let done = match typesize {
        2 => shuffle_groups::<2, 32>(src, dst, |g| {
            // SAFETY: `g` is the 32 bytes `vld2q_u8` reads; NEON is enabled.
            let v = unsafe { vld2q_u8(g.as_ptr()) };
            [v.0, v.1]
        }),
        3 => shuffle_groups::<3, 48>(src, dst, |g| {
            // SAFETY: `g` is the 48 bytes `vld3q_u8` reads; NEON is enabled.
            let v = unsafe { vld3q_u8(g.as_ptr()) };
            [v.0, v.1, v.2]
        }),
        4 => shuffle_groups::<4, 64>(src, dst, ld4),
        8 => shuffle_groups::<8, 128>(src, dst, fwd8),
        16 => shuffle_groups::<16, 256>(src, dst, fwd16),
        _ => 0,
    };
    generic::shuffle_from(typesize, done, src, dst);
}

/// Inverse of [`shuffle`].
pub(crate) fn unshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    let done = match typesize {
        2 => unshuffle_groups::<2, 32>(src, dst, |p, g| {
            // SAFETY: `g` is the 32 bytes `vst2q_u8` writes; NEON is enabled.
            unsafe { vst2q_u8(g.as_mut_ptr(), uint8x16x2_t(p[0], p[1])) }
        }),
        3 => unshuffle_groups::<3, 48>(src, dst, |p, g| {
            // SAFETY: `g` is the 48 bytes `vst3q_u8` writes; NEON is enabled.
            unsafe { vst3q_u8(g.as_mut_ptr(), uint8x16x3_t(p[0], p[1], p[2])) }
        }),
        4 => unshuffle_groups::<4, 64>(src, dst, |p, g| st4(g, p)),
        8 => unshuffle_groups::<8, 128>(src, dst, inv8),
        16 => unshuffle_groups::<16, 256>(src, dst, inv16),
        _ => 0,
    };
    generic::unshuffle_from(typesize, done, src, dst);
}
