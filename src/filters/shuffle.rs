//! SHUFFLE filter (id 1): byte transpose of a block (FILTERS.md §3).
//!
//! For a block of `L` bytes and element size `S`, the `N = L / S` whole elements are split into
//! `S` planes of `N` bytes (all first bytes, then all second bytes, …); the `L % S` trailing
//! bytes are copied unchanged. `generic` is the specification; on x86_64 the SSE2 kernels
//! (`shuffle_sse2.rs`) handle the element sizes 2, 4, 8 and 16, the AVX2 ones
//! (`shuffle_avx2.rs`) every size (using `generic` for the tails), and with AVX512VBMI
//! `shuffle_avx512.rs` the sizes 4 and 8; on aarch64 the NEON kernels (`shuffle_neon.rs`) the
//! sizes 2, 3, 4, 8 and 16. The other sizes run `generic`. The implementation is chosen once per
//! process (`isa`, `has_avx512vbmi`).

use std::sync::OnceLock;

#[cfg(target_arch = "x86_64")]
#[path = "shuffle_avx2.rs"]
pub(crate) mod avx2;
#[cfg(target_arch = "x86_64")]
#[path = "shuffle_avx512.rs"]
pub(crate) mod avx512;
#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
#[path = "shuffle_neon.rs"]
pub(crate) mod neon;
#[cfg(target_arch = "x86_64")]
#[path = "shuffle_sse2.rs"]
pub(crate) mod sse2;

/// The instruction-set level the shuffle kernels (byte and bit) run with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Isa {
    /// Portable scalar code only (targets without SIMD kernels; on x86_64 SSE2 is always there,
    /// and [`generic`] serves the SIMD kernels for the other element sizes and the tails).
    #[cfg(not(any(
        target_arch = "x86_64",
        all(target_arch = "aarch64", target_feature = "neon")
    )))]
    Generic,
    /// aarch64 NEON (part of the baseline of the usual aarch64 targets).
    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    Neon,
    /// x86_64 SSE2 (always present on x86_64).
    #[cfg(target_arch = "x86_64")]
    Sse2,
    /// x86_64 AVX2, detected at run time.
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

/// The best implementation for this CPU, detected on first use and cached.
///
/// `Isa::Avx2` is only ever returned when the CPU (and OS) support AVX2, which is what makes
/// the `unsafe` calls of the AVX2 kernels sound.
pub(crate) fn isa() -> Isa {
    static ISA: OnceLock<Isa> = OnceLock::new();
    *ISA.get_or_init(detect)
}

#[cfg(target_arch = "x86_64")]
fn detect() -> Isa {
    if std::is_x86_feature_detected!("avx2") {
        Isa::Avx2
    } else {
        Isa::Sse2
    }
}

#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
fn detect() -> Isa {
    Isa::Neon
}

#[cfg(not(any(
    target_arch = "x86_64",
    all(target_arch = "aarch64", target_feature = "neon")
)))]
fn detect() -> Isa {
    Isa::Generic
}

/// Whether the CPU has AVX512BW and AVX512VBMI (the AVX-512 byte-shuffle kernels, and with GFNI
/// the bit-shuffle ones), detected on first use.
#[cfg(target_arch = "x86_64")]
pub(crate) fn has_avx512vbmi() -> bool {
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| {
        std::is_x86_feature_detected!("avx512bw") && std::is_x86_feature_detected!("avx512vbmi")
    })
}

/// Whether the SSE2 kernels have a vector path for this element size (the others run the
/// generic code; the AVX2 kernels take every size).
#[cfg(target_arch = "x86_64")]
fn has_simd_kernel(typesize: usize) -> bool {
    matches!(typesize, 2 | 4 | 8 | 16)
}

/// Byte-transpose with element size `typesize` (1 = identity copy). Trailing L % typesize bytes
/// copied.
///
/// `src` and `dst` should have the same length `L`; if they differ only the first
/// `min(src.len(), dst.len())` bytes are processed (and the rest of `dst` is left untouched).
///
/// # Examples
///
/// ```
/// use b2rs::filters::shuffle::shuffle;
///
/// // 3 elements of 2 bytes (plus one trailing byte, copied)
/// let src = [1u8, 2, 3, 4, 5, 6, 7];
/// let mut dst = [0u8; 7];
/// shuffle(2, &src, &mut dst);
/// assert_eq!(dst, [1, 3, 5, 2, 4, 6, 7]);
/// ```
pub fn shuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    let len = src.len().min(dst.len());
    let (src, dst) = (&src[..len], &mut dst[..len]);
    if typesize <= 1 || len < 2 * typesize {
        dst.copy_from_slice(src);
        return;
    }
    match isa() {
        // SAFETY: `isa()` returns `Avx2` only after detecting AVX2 on this CPU, and
        // `has_avx512vbmi()` is true only after detecting AVX512BW and AVX512VBMI.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe {
            if matches!(typesize, 4 | 8) && has_avx512vbmi() {
                avx512::shuffle(typesize, src, dst)
            } else {
                avx2::shuffle(typesize, src, dst)
            }
        },
        #[cfg(target_arch = "x86_64")]
        Isa::Sse2 if has_simd_kernel(typesize) => sse2::shuffle(typesize, src, dst),
        #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
        Isa::Neon => neon::shuffle(typesize, src, dst),
        // the SSE2 kernels' other sizes, and targets without kernels
        #[allow(unreachable_patterns)]
        _ => generic::shuffle(typesize, src, dst),
    }
}

/// Inverse of [`shuffle`]: gathers the `typesize` planes back into elements. Trailing
/// L % typesize bytes copied.
///
/// # Examples
///
/// ```
/// use b2rs::filters::shuffle::{shuffle, unshuffle};
///
/// let src: Vec<u8> = (0..1000u32).map(|i| (i * 7) as u8).collect();
/// let mut shuffled = vec![0u8; src.len()];
/// shuffle(8, &src, &mut shuffled);
/// let mut back = vec![0u8; src.len()];
/// unshuffle(8, &shuffled, &mut back);
/// assert_eq!(back, src);
/// ```
pub fn unshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    let len = src.len().min(dst.len());
    let (src, dst) = (&src[..len], &mut dst[..len]);
    if typesize <= 1 || len < 2 * typesize {
        dst.copy_from_slice(src);
        return;
    }
    match isa() {
        // SAFETY: `isa()` returns `Avx2` only after detecting AVX2 on this CPU, and
        // `has_avx512vbmi()` is true only after detecting AVX512BW and AVX512VBMI.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe {
            if matches!(typesize, 4 | 8) && has_avx512vbmi() {
                avx512::unshuffle(typesize, src, dst)
            } else {
                avx2::unshuffle(typesize, src, dst)
            }
        },
        #[cfg(target_arch = "x86_64")]
        Isa::Sse2 if has_simd_kernel(typesize) => sse2::unshuffle(typesize, src, dst),
        #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
        Isa::Neon => neon::unshuffle(typesize, src, dst),
        // the SSE2 kernels' other sizes, and targets without kernels
        #[allow(unreachable_patterns)]
        _ => generic::unshuffle(typesize, src, dst),
    }
}

/// The portable byte transpose; this is the specification the SIMD kernels are tested against.
pub(crate) mod generic {
    /// Shuffles all of `src` into `dst` (same length; `typesize >= 1`).
    pub(crate) fn shuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
        shuffle_from(typesize, 0, src, dst);
    }

    /// Inverse of [`shuffle`].
    pub(crate) fn unshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
        unshuffle_from(typesize, 0, src, dst);
    }

    /// Shuffles the elements `k0..N` of `src` (N = len / typesize) into their places in `dst`
    /// and copies the trailing `len % typesize` bytes: the finishing step of the SIMD kernels,
    /// which do the elements `0..k0`.
    pub(crate) fn shuffle_from(typesize: usize, k0: usize, src: &[u8], dst: &mut [u8]) {
        // Constant element sizes let the compiler unroll the inner loops.
        match typesize {
            0 | 1 => copy_all(src, dst),
            2 => shuffle_impl(2, k0, src, dst),
            3 => shuffle_impl(3, k0, src, dst),
            4 => shuffle_impl(4, k0, src, dst),
            8 => shuffle_impl(8, k0, src, dst),
            16 => shuffle_impl(16, k0, src, dst),
            s => shuffle_impl(s, k0, src, dst),
        }
    }

    /// Inverse of [`shuffle_from`]: restores the elements `k0..N` and the trailing bytes.
    pub(crate) fn unshuffle_from(typesize: usize, k0: usize, src: &[u8], dst: &mut [u8]) {
        match typesize {
            0 | 1 => copy_all(src, dst),
            2 => unshuffle_impl(2, k0, src, dst),
            3 => unshuffle_impl(3, k0, src, dst),
            4 => unshuffle_impl(4, k0, src, dst),
            8 => unshuffle_impl(8, k0, src, dst),
            16 => unshuffle_impl(16, k0, src, dst),
            s => unshuffle_impl(s, k0, src, dst),
        }
    }

    /// The first `S` planes of `n` bytes of `dst` as separate slices (each exactly `n` long, which
    /// lets the compiler drop the bounds checks of the stores in the group loops).
    #[inline(always)]
    pub(crate) fn planes_mut<const S: usize>(dst: &mut [u8], n: usize) -> [&mut [u8]; S] {
        let mut rest = &mut dst[..S * n];
        std::array::from_fn(|_| {
            let (plane, tail) = std::mem::take(&mut rest).split_at_mut(n);
            rest = tail;
            plane
        })
    }

    /// Shared version of [`planes_mut`].
    #[inline(always)]
    pub(crate) fn planes<const S: usize>(src: &[u8], n: usize) -> [&[u8]; S] {
        let mut rest = &src[..S * n];
        std::array::from_fn(|_| {
            let (plane, tail) = rest.split_at(n);
            rest = tail;
            plane
        })
    }

    fn copy_all(src: &[u8], dst: &mut [u8]) {
        let len = src.len().min(dst.len());
        dst[..len].copy_from_slice(&src[..len]);
    }

    /// `dst[j*n + k] = src[k*s + j]` for k in k0..n, groups of 8 elements at a time so that
    /// each plane receives 8-byte writes.
    #[inline(always)]
    fn shuffle_impl(s: usize, k0: usize, src: &[u8], dst: &mut [u8]) {
        let len = src.len().min(dst.len());
        let n = len / s;
        let body = n * s;
        let mut k = k0.min(n);
        while k + 8 <= n {
            let group = &src[k * s..(k + 8) * s];
            for (j, plane) in dst[..body].chunks_exact_mut(n).enumerate() {
                let mut w = [0u8; 8];
                for (i, b) in w.iter_mut().enumerate() {
                    *b = group[i * s + j];
                }
                plane[k..k + 8].copy_from_slice(&w);
            }
            k += 8;
        }
        for k in k..n {
            let elem = &src[k * s..(k + 1) * s];
            for (j, &b) in elem.iter().enumerate() {
                dst[j * n + k] = b;
            }
        }
        dst[body..len].copy_from_slice(&src[body..len]);
    }

    /// `dst[k*s + j] = src[j*n + k]` for k in k0..n, 8 elements at a time.
    #[inline(always)]
    fn unshuffle_impl(s: usize, k0: usize, src: &[u8], dst: &mut [u8]) {
        let len = src.len().min(dst.len());
        let n = len / s;
        let body = n * s;
        let mut k = k0.min(n);
        while k + 8 <= n {
            let group = &mut dst[k * s..(k + 8) * s];
            for (j, plane) in src[..body].chunks_exact(n).enumerate() {
                let w = &plane[k..k + 8];
                for (i, &b) in w.iter().enumerate() {
                    group[i * s + j] = b;
                }
            }
            k += 8;
        }
        for k in k..n {
            let elem = &mut dst[k * s..(k + 1) * s];
            for (j, b) in elem.iter_mut().enumerate() {
                *b = src[j * n + k];
            }
        }
        dst[body..len].copy_from_slice(&src[body..len]);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A shuffle kernel: (typesize, src, dst).
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    type Kernel = dyn Fn(usize, &[u8], &mut [u8]);

    /// Deterministic pseudo-random bytes (xorshift64*), shared by the filter tests.
    pub(crate) fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
        let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..len)
            .map(|_| {
                s ^= s >> 12;
                s ^= s << 25;
                s ^= s >> 27;
                (s.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 56) as u8
            })
            .collect()
    }

    /// Lengths that stress the vector loops and the tails for element size `ts`.
    pub(crate) fn awkward_lengths(ts: usize) -> Vec<usize> {
        let mut v = vec![
            0, 1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 255, 257, 1001,
        ];
        for k in [
            1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 128, 129, 333,
        ] {
            v.extend([
                k * ts,
                k * ts + 1,
                (k * ts).saturating_sub(1),
                k * ts + ts / 2,
            ]);
        }
        v.extend([4096 * ts + 3, 100_000, 100_003]);
        v.sort_unstable();
        v.dedup();
        v
    }

    pub(crate) fn typesizes() -> Vec<usize> {
        let mut v: Vec<usize> = (1..=32).collect();
        v.extend([33, 48, 64, 100, 255]);
        v
    }

    /// The definition of FILTERS.md §3, element by element.
    fn shuffle_naive(s: usize, src: &[u8]) -> Vec<u8> {
        let mut out = src.to_vec();
        let n = src.len() / s;
        for j in 0..s {
            for k in 0..n {
                out[j * n + k] = src[k * s + j];
            }
        }
        out
    }

    fn count32() -> Vec<u8> {
        (0..1_000_000i32).flat_map(|i| i.to_le_bytes()).collect()
    }

    #[test]
    fn worked_examples() {
        let src: Vec<u8> = (1..=12).collect();
        let mut dst = vec![0; 12];
        shuffle(4, &src, &mut dst);
        assert_eq!(
            dst,
            [0x01, 0x05, 0x09, 0x02, 0x06, 0x0a, 0x03, 0x07, 0x0b, 0x04, 0x08, 0x0c]
        );
        let mut back = vec![0; 12];
        unshuffle(4, &dst, &mut back);
        assert_eq!(back, src);

        let src: Vec<u8> = (1..=14).collect();
        let mut dst = vec![0; 14];
        shuffle(4, &src, &mut dst);
        assert_eq!(
            dst,
            [0x01, 0x05, 0x09, 0x02, 0x06, 0x0a, 0x03, 0x07, 0x0b, 0x04, 0x08, 0x0c, 0x0d, 0x0e]
        );
        let mut back = vec![0; 14];
        unshuffle(4, &dst, &mut back);
        assert_eq!(back, src);
    }

    #[test]
    fn generic_matches_definition() {
        for ts in typesizes() {
            for len in [0, 1, 7, 8 * ts, 8 * ts + 3, 17 * ts + 1, 1000] {
                let src = random_bytes(len, (ts * 1000 + len) as u64);
                let want = shuffle_naive(ts, &src);
                let mut got = vec![0xEE; len];
                generic::shuffle(ts, &src, &mut got);
                assert_eq!(got, want, "ts={ts} len={len}");
                let mut back = vec![0xEE; len];
                generic::unshuffle(ts, &got, &mut back);
                assert_eq!(back, src, "ts={ts} len={len}");
            }
        }
    }

    /// Runs `kernel` and the generic version on the same random inputs, both directions.
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    fn check_kernel(name: &str, shuf: &Kernel, unshuf: &Kernel) {
        for ts in typesizes() {
            for len in awkward_lengths(ts) {
                let src = random_bytes(len, (ts * 7919 + len) as u64);
                let mut want = vec![0; len];
                generic::shuffle(ts, &src, &mut want);
                let mut got = vec![0xEE; len];
                shuf(ts, &src, &mut got);
                assert_eq!(got, want, "{name} shuffle ts={ts} len={len}");

                generic::unshuffle(ts, &src, &mut want);
                unshuf(ts, &src, &mut got);
                assert_eq!(got, want, "{name} unshuffle ts={ts} len={len}");
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn sse2_matches_generic() {
        check_kernel("sse2", &sse2::shuffle, &sse2::unshuffle);
    }

    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    #[test]
    fn neon_matches_generic() {
        assert_eq!(isa(), Isa::Neon);
        check_kernel("neon", &neon::shuffle, &neon::unshuffle);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_matches_generic() {
        if !std::is_x86_feature_detected!("avx2") {
            eprintln!("note: AVX2 not available, AVX2 shuffle kernels not tested");
            return;
        }
        check_kernel(
            "avx2",
            // SAFETY: AVX2 was detected just above.
            &|t, s, d| unsafe { avx2::shuffle(t, s, d) },
            // SAFETY: as above.
            &|t, s, d| unsafe { avx2::unshuffle(t, s, d) },
        );
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx512_matches_generic() {
        if !(has_avx512vbmi() && std::is_x86_feature_detected!("avx2")) {
            eprintln!("note: AVX512VBMI not available, AVX-512 shuffle kernels not tested");
            return;
        }
        check_kernel(
            "avx512",
            // SAFETY: AVX512BW, AVX512VBMI and AVX2 were detected just above.
            &|t, s, d| unsafe { avx512::shuffle(t, s, d) },
            // SAFETY: as above.
            &|t, s, d| unsafe { avx512::unshuffle(t, s, d) },
        );
    }

    #[test]
    fn round_trips_and_odd_arguments() {
        for ts in typesizes().into_iter().chain([0, 256, 1000]) {
            for len in [0, 1, 7, 31, 4 * ts + 1, 5000] {
                let src = random_bytes(len, len as u64 + 11);
                let mut mid = vec![0; len];
                let mut back = vec![0; len];
                shuffle(ts, &src, &mut mid);
                unshuffle(ts, &mid, &mut back);
                assert_eq!(back, src, "ts={ts} len={len}");
            }
        }
        // Unequal lengths: only the common prefix is processed, nothing panics.
        let src = random_bytes(100, 5);
        let mut dst = vec![0; 60];
        shuffle(4, &src, &mut dst);
        let mut want = vec![0; 60];
        generic::shuffle(4, &src[..60], &mut want);
        assert_eq!(dst, want);
        let mut dst = vec![0; 200];
        unshuffle(4, &src, &mut dst);
        assert!(dst[100..].iter().all(|&b| b == 0));
    }

    #[test]
    fn compat_shuffle_2_20_0() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/testdata/compat/shuffle-2.20.0.cdata"
        );
        let Ok(file) = std::fs::read(path) else {
            eprintln!("note: {path} not found, test skipped");
            return;
        };
        let count = count32();
        let mut out = vec![0; count.len()];
        shuffle(4, &count, &mut out);
        assert!(
            out == file,
            "shuffle(COUNT32) differs from shuffle-2.20.0.cdata"
        );
        unshuffle(4, &file, &mut out);
        assert!(
            out == count,
            "unshuffle(shuffle-2.20.0.cdata) differs from COUNT32"
        );
    }
}
