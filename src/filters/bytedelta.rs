//! BYTEDELTA filters (plugin ids 35 and 34): per-byte-plane delta (FILTERS.md §7).
//!
//! A block of `L` bytes is read as `T` consecutive *planes* of `P = L / T` bytes (what a
//! SHUFFLE with element size `T` leaves behind), followed by `L - P*T` trailing bytes that are
//! copied unchanged. Within each plane, modulo 256:
//!
//! * **35, bytedelta**: `out[0] = in[0]`, `out[k] = in[k] - in[k-1]`; decoding is the running
//!   sum `y[k] = e[k] + y[k-1]`.
//! * **34, bytedelta_buggy** (written by early C-Blosc2 versions; its behaviour is the one of
//!   C-Blosc2's SIMD build): the plane is coded as above over its first `16 * (P / 16)` bytes,
//!   then the last `P % 16` bytes are coded as a fresh plane (the previous byte is reset to 0).
//!   C-Blosc2 leaves the trailing bytes of a 34 block undefined; we copy them.
//!
//! `T` is the filter's meta byte, or the super-chunk's typesize when the meta is 0 (resolved by
//! the pipeline). `generic` is the specification. Encoding is left to it: the compiler
//! vectorises the subtraction (measured ~29 GB/s, as fast as hand-written SSE2/AVX2). Decoding
//! is a running sum the compiler cannot vectorise (~3 GB/s); on x86_64 the SSE2 and AVX2 kernels
//! (`bytedelta_sse2.rs`, `bytedelta_avx2.rs`, ~9 and ~15 GB/s) decode whole 16/32-byte groups
//! of each plane and leave the tail to `generic`. The implementation is chosen once per
//! process (the ISA detection of [`crate::filters::shuffle`]).

#[cfg(target_arch = "x86_64")]
#[path = "bytedelta_avx2.rs"]
mod avx2;
#[cfg(target_arch = "x86_64")]
#[path = "bytedelta_sse2.rs"]
mod sse2;

use super::shuffle::{isa, Isa};

/// Which of the two plugin filters.
///
/// # Examples
///
/// ```
/// use b2rs::filters::bytedelta::{decode, encode, Variant};
///
/// let src: Vec<u8> = (0..64u8).collect();
/// for variant in [Variant::Fixed, Variant::Buggy] {
///     let mut coded = vec![0u8; 64];
///     encode(variant, 4, &src, &mut coded);
///     let mut back = vec![0u8; 64];
///     decode(variant, 4, &coded, &mut back);
///     assert_eq!(back, src);
/// }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// Id 35: each plane is one delta run.
    Fixed,
    /// Id 34: the last `P % 16` bytes of each plane restart from 0.
    Buggy,
}

/// Delta-code the planes of `src` into `dst` (FILTERS.md §7). `planes` is `T` (0 is treated
/// as 1). Only the first `min(src.len(), dst.len())` bytes are processed; the trailing
/// `L - P*T` bytes are copied.
///
/// # Examples
///
/// ```
/// use b2rs::filters::bytedelta::{encode, Variant};
///
/// // 2 planes of 4 bytes: each plane is delta-coded
/// let src = [10u8, 11, 13, 16, 100, 100, 101, 103];
/// let mut dst = [0u8; 8];
/// encode(Variant::Fixed, 2, &src, &mut dst);
/// assert_eq!(dst, [10, 1, 2, 3, 100, 0, 1, 2]);
/// ```
pub fn encode(variant: Variant, planes: usize, src: &[u8], dst: &mut [u8]) {
    run(Dir::Encode, variant, planes, src, dst);
}

/// Undo [`encode`] (running sum per plane). Same conventions.
///
/// # Examples
///
/// ```
/// use b2rs::filters::bytedelta::{decode, Variant};
///
/// let coded = [10u8, 1, 2, 3, 100, 0, 1, 2];
/// let mut dst = [0u8; 8];
/// decode(Variant::Fixed, 2, &coded, &mut dst);
/// assert_eq!(dst, [10, 11, 13, 16, 100, 100, 101, 103]);
/// ```
pub fn decode(variant: Variant, planes: usize, src: &[u8], dst: &mut [u8]) {
    run(Dir::Decode, variant, planes, src, dst);
}

#[derive(Clone, Copy)]
enum Dir {
    Encode,
    Decode,
}

/// Code one plane (or a piece of one) with the best kernel: `src` into `dst` (same length),
/// starting from the previous byte `prev`.
fn plane(isa: Isa, dir: Dir, src: &[u8], dst: &mut [u8], prev: u8) {
    match (dir, isa) {
        (Dir::Encode, _) => {
            generic::encode_plane(src, dst, prev);
        }
        // SAFETY: `isa()` returns `Avx2` only after detecting AVX2 on this CPU, the only
        // requirement of the AVX2 kernel.
        #[cfg(target_arch = "x86_64")]
        (Dir::Decode, Isa::Avx2) => unsafe {
            avx2::decode_plane(src, dst, prev);
        },
        #[cfg(target_arch = "x86_64")]
        (Dir::Decode, Isa::Sse2) => {
            sse2::decode_plane(src, dst, prev);
        }
        // no SIMD decoder outside x86_64 (the prefix sum is serial; NEON would gain little)
        #[cfg(not(target_arch = "x86_64"))]
        (Dir::Decode, _) => {
            generic::decode_plane(src, dst, prev);
        }
    }
}

/// Split the block into planes and code each (in two pieces for the buggy variant).
fn run(dir: Dir, variant: Variant, planes: usize, src: &[u8], dst: &mut [u8]) {
    let isa = isa();
    let len = src.len().min(dst.len());
    let (src, dst) = (&src[..len], &mut dst[..len]);
    let planes = planes.max(1);
    let p = len / planes;
    let body = p * planes;
    if p > 0 {
        for (s, d) in src[..body]
            .chunks_exact(p)
            .zip(dst[..body].chunks_exact_mut(p))
        {
            match variant {
                Variant::Fixed => {
                    plane(isa, dir, s, d, 0);
                }
                Variant::Buggy => {
                    let g = p - p % 16;
                    let (s0, s1) = s.split_at(g);
                    let (d0, d1) = d.split_at_mut(g);
                    plane(isa, dir, s0, d0, 0);
                    plane(isa, dir, s1, d1, 0);
                }
            }
        }
    }
    dst[body..].copy_from_slice(&src[body..]);
}

/// The portable plane kernels; the specification the SIMD kernels are tested against.
pub(crate) mod generic {
    /// `dst[k] = src[k] - src[k-1]` with `src[-1] = prev`.
    pub(crate) fn encode_plane(src: &[u8], dst: &mut [u8], prev: u8) {
        let mut last = prev;
        for (d, &s) in dst.iter_mut().zip(src) {
            *d = s.wrapping_sub(last);
            last = s;
        }
    }

    /// `dst[k] = src[k] + dst[k-1]` with `dst[-1] = prev`; returns the last byte written
    /// (`prev` when empty).
    pub(crate) fn decode_plane(src: &[u8], dst: &mut [u8], prev: u8) -> u8 {
        let mut acc = prev;
        for (d, &s) in dst.iter_mut().zip(src) {
            acc = acc.wrapping_add(s);
            *d = acc;
        }
        acc
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::shuffle::tests::{awkward_lengths, random_bytes};

    /// FILTERS.md §7, written out directly from the definition.
    fn naive(variant: Variant, decode: bool, t: usize, src: &[u8]) -> Vec<u8> {
        let mut out = src.to_vec();
        let p = src.len() / t;
        for j in 0..t {
            let plane = &src[j * p..(j + 1) * p];
            let reset_at = match variant {
                Variant::Fixed => usize::MAX,
                Variant::Buggy => p - p % 16,
            };
            let mut prev = 0u8;
            for k in 0..p {
                if k == reset_at {
                    prev = 0;
                }
                let v = if decode {
                    plane[k].wrapping_add(prev)
                } else {
                    plane[k].wrapping_sub(prev)
                };
                out[j * p + k] = v;
                prev = if decode { v } else { plane[k] };
            }
        }
        out
    }

    fn code(variant: Variant, dec: bool, t: usize, src: &[u8]) -> Vec<u8> {
        let mut dst = vec![0xEEu8; src.len()];
        if dec {
            decode(variant, t, src, &mut dst);
        } else {
            encode(variant, t, src, &mut dst);
        }
        dst
    }

    #[test]
    fn worked_example() {
        // T = 2, 6 bytes: planes [10 13 11] [200 100 5], one trailing byte.
        let src = [10u8, 13, 11, 200, 100, 5, 77];
        let enc = code(Variant::Fixed, false, 2, &src);
        assert_eq!(enc, [10, 3, 254, 200, 156, 161, 77]);
        assert_eq!(code(Variant::Fixed, true, 2, &enc), src);
    }

    /// Captured from C-Blosc2 3.3.5 (its filter output handed to a user codec): 43 bytes,
    /// T = 1, so a 32-byte SIMD body and an 11-byte tail.
    #[test]
    fn reference_output() {
        let input: Vec<u8> = (0..43u32)
            .map(|i| (i.wrapping_mul(i).wrapping_mul(7) + i / 3 + 11) as u8)
            .collect();
        let fixed = code(Variant::Fixed, false, 1, &input);
        let buggy = code(Variant::Buggy, false, 1, &input);
        assert_eq!(&fixed[..4], &[0x0b, 0x07, 0x15, 0x24]);
        assert_eq!(&fixed[31..35], &[0xab, 0xb9, 0xc8, 0xd5]);
        assert_eq!(&buggy[31..35], &[0xab, 0x15, 0xc8, 0xd5]);
        assert_eq!(fixed[42], 0x46);
        assert_eq!(buggy[..32], fixed[..32]);
        assert_eq!(buggy[33..], fixed[33..]);
    }

    #[test]
    fn matches_definition_and_round_trips() {
        for t in [1usize, 2, 3, 4, 7, 8, 16, 17, 255] {
            for len in awkward_lengths(t) {
                let src = random_bytes(len, (len * 31 + t) as u64);
                for variant in [Variant::Fixed, Variant::Buggy] {
                    let enc = code(variant, false, t, &src);
                    assert_eq!(
                        enc,
                        naive(variant, false, t, &src),
                        "{variant:?} t={t} len={len}"
                    );
                    let dec = code(variant, true, t, &enc);
                    assert_eq!(dec, src, "{variant:?} roundtrip t={t} len={len}");
                    assert_eq!(dec, naive(variant, true, t, &enc));
                }
            }
        }
    }

    #[test]
    fn degenerate_plane_counts() {
        let src = random_bytes(100, 5);
        // T > L: everything is trailing bytes
        assert_eq!(code(Variant::Fixed, false, 200, &src), src);
        // T = 0 behaves as 1
        assert_eq!(
            code(Variant::Fixed, false, 0, &src),
            code(Variant::Fixed, false, 1, &src)
        );
        // only min(src, dst) bytes are processed
        let mut dst = vec![9u8; 150];
        encode(Variant::Fixed, 1, &src, &mut dst);
        assert_eq!(&dst[100..], &[9u8; 50][..]);
    }

    /// Every SIMD decoder against the generic one, with a carried previous byte.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn simd_kernels_match_generic() {
        type PlaneFn = fn(&[u8], &mut [u8], u8) -> u8;
        let mut kernels: Vec<(&str, PlaneFn)> = vec![("sse2", sse2::decode_plane)];
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 was detected just above.
            let dec: PlaneFn = |s, d, p| unsafe { avx2::decode_plane(s, d, p) };
            kernels.push(("avx2", dec));
        }
        for len in awkward_lengths(1).into_iter().chain([48, 80, 96, 4097]) {
            let src = random_bytes(len, len as u64 ^ 0xBD);
            for prev in [0u8, 1, 0x80, 0xFF] {
                let mut want = vec![0u8; len];
                let last = generic::decode_plane(&src, &mut want, prev);
                for (name, dec) in &kernels {
                    let mut got = vec![0xAAu8; len];
                    assert_eq!(dec(&src, &mut got, prev), last, "{name} last, len={len}");
                    assert_eq!(got, want, "{name} len={len} prev={prev}");
                }
            }
        }
    }
}
