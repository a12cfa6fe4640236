//! BITSHUFFLE filter (id 2): bit transpose of a block (FILTERS.md §4, CHUNK.md §8.2).
//!
//! With `S` = typesize, `N = L / S` elements and `M = N - N % 8`, the first `M` elements become
//! `8*S` bit rows of `M/8` bytes: row `8*b + k` holds bit `k` of byte `b` of every element, eight
//! elements per byte, first element in the least significant bit. Bytes from `M*S` on are copied.
//!
//! `generic` is the specification. The x86_64 kernels (`bitshuffle_sse2.rs`,
//! `bitshuffle_avx2.rs`, `bitshuffle_avx512.rs`, and `bitshuffle_gfni.rs` on CPUs with GFNI and
//! AVX512VBMI) and the aarch64 one (`bitshuffle_neon.rs`) work on tiles of elements: a tile is
//! byte-shuffled with the SIMD byte shuffle into a per-thread scratch buffer (giving `S` byte
//! planes), and each plane is then bit-transposed (`movemask` or its NEON equivalent, or
//! `gf2p8affine`) into its 8 output rows (and the reverse for unshuffling). The implementation
//! is chosen once per process (`shuffle::isa`, and one-time AVX512BW and GFNI/AVX512VBMI
//! checks).

use super::shuffle::{isa, Isa};

#[cfg(target_arch = "x86_64")]
#[path = "bitshuffle_avx2.rs"]
mod avx2;
#[cfg(target_arch = "x86_64")]
#[path = "bitshuffle_avx512.rs"]
mod avx512;
#[cfg(target_arch = "x86_64")]
#[path = "bitshuffle_gfni.rs"]
mod gfni;
#[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
#[path = "bitshuffle_neon.rs"]
mod neon;
#[cfg(target_arch = "x86_64")]
#[path = "bitshuffle_sse2.rs"]
mod sse2;

/// Whether the CPU has AVX512BW (the AVX-512 kernels), detected on first use.
#[cfg(target_arch = "x86_64")]
fn has_avx512bw() -> bool {
    static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAS.get_or_init(|| std::is_x86_feature_detected!("avx512bw"))
}

/// Whether the CPU also has AVX512VBMI and GFNI (the GFNI kernels), detected on first use.
#[cfg(target_arch = "x86_64")]
fn has_gfni_vbmi() -> bool {
    static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAS.get_or_init(|| super::shuffle::has_avx512vbmi() && std::is_x86_feature_detected!("gfni"))
}

/// Largest element size the SIMD kernels take (their tile sizing assumes it); larger ones
/// (impossible in a chunk header) use the generic code.
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "aarch64", target_feature = "neon")
))]
const MAX_SIMD_TYPESIZE: usize = 256;

/// Runs `f` on a scratch buffer of `n` bytes kept per thread (a tile is up to 64 KiB: allocating
/// and zeroing it on every block cost 5-10% of a bit-shuffle), or on a fresh one if the
/// thread's buffer is in use.
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "aarch64", target_feature = "neon")
))]
fn with_scratch<R>(n: usize, f: impl FnOnce(&mut [u8]) -> R) -> R {
    thread_local! {
        static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut v) => {
            if v.len() < n {
                v.resize(n, 0);
            }
            f(&mut v[..n])
        }
        Err(_) => f(&mut vec![0u8; n]),
    })
}

/// The forward tile loop of the SIMD kernels on `src` (`M*s` bytes, `M` a multiple of 8): one
/// byte plane (`s == 1`) goes straight to `trans`; otherwise each tile of up to
/// `generic::tile_elems(s)` elements is byte-shuffled by `shuffle` into the scratch buffer and
/// each of its `s` byte planes bit-transposed by `trans(plane, rows, row, q0)` into its rows.
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "aarch64", target_feature = "neon")
))]
fn forward_tiles(
    s: usize,
    src: &[u8],
    dst: &mut [u8],
    shuffle: impl Fn(usize, &[u8], &mut [u8]),
    trans: impl Fn(&[u8], &mut [u8], usize, usize),
) {
    let m = src.len().min(dst.len()) / s / 8 * 8;
    let row = m / 8;
    if row == 0 {
        return;
    }
    if s == 1 {
        trans(&src[..m], &mut dst[..m], row, 0);
        return;
    }
    let tile = generic::tile_elems(s).min(m);
    with_scratch(tile * s, |tmp| {
        let mut k0 = 0;
        while k0 < m {
            let t = tile.min(m - k0);
            let buf = &mut tmp[..t * s];
            shuffle(s, &src[k0 * s..(k0 + t) * s], buf);
            for (plane, rows) in buf.chunks_exact(t).zip(dst.chunks_exact_mut(8 * row)) {
                trans(plane, rows, row, k0 / 8);
            }
            k0 += t;
        }
    });
}

/// The inverse of [`forward_tiles`]: `untrans(rows, row, q0, plane)` rebuilds each byte plane of
/// a tile from its rows, and `unshuffle` byte-unshuffles the tile into `dst`.
#[cfg(any(
    target_arch = "x86_64",
    all(target_arch = "aarch64", target_feature = "neon")
))]
fn inverse_tiles(
    s: usize,
    src: &[u8],
    dst: &mut [u8],
    untrans: impl Fn(&[u8], usize, usize, &mut [u8]),
    unshuffle: impl Fn(usize, &[u8], &mut [u8]),
) {
    let m = src.len().min(dst.len()) / s / 8 * 8;
    let row = m / 8;
    if row == 0 {
        return;
    }
    if s == 1 {
        untrans(&src[..m], row, 0, &mut dst[..m]);
        return;
    }
    let tile = generic::tile_elems(s).min(m);
    with_scratch(tile * s, |tmp| {
        let mut k0 = 0;
        while k0 < m {
            let t = tile.min(m - k0);
            let buf = &mut tmp[..t * s];
            for (plane, rows) in buf.chunks_exact_mut(t).zip(src.chunks_exact(8 * row)) {
                untrans(rows, row, k0 / 8, plane);
            }
            unshuffle(s, buf, &mut dst[k0 * s..(k0 + t) * s]);
            k0 += t;
        }
    });
}

/// The common prologue: the `min(src.len(), dst.len())` prefix, the element size (0 counts as
/// 1) and the number of bytes `M*S` that are transposed.
fn split_body<'a, 'b>(
    typesize: usize,
    src: &'a [u8],
    dst: &'b mut [u8],
) -> (usize, &'a [u8], &'b mut [u8], usize) {
    let len = src.len().min(dst.len());
    let s = typesize.max(1);
    let m = (len / s) / 8 * 8;
    (s, &src[..len], &mut dst[..len], m * s)
}

/// Bit-transpose of the largest multiple of 8 elements; the rest copied (FILTERS.md §4).
///
/// `src` and `dst` should have the same length `L`; if they differ only the first
/// `min(src.len(), dst.len())` bytes are processed (and the rest of `dst` is left untouched).
///
/// # Examples
///
/// ```
/// use b2rs::filters::bitshuffle::{bitshuffle, bitunshuffle};
///
/// // 8 elements of 1 byte: bit b of every element ends up in byte b
/// let src = [1u8, 1, 1, 1, 1, 1, 1, 1];
/// let mut dst = [0u8; 8];
/// bitshuffle(1, &src, &mut dst);
/// assert_eq!(dst, [0xff, 0, 0, 0, 0, 0, 0, 0]);
/// let mut back = [0u8; 8];
/// bitunshuffle(1, &dst, &mut back);
/// assert_eq!(back, src);
/// ```
pub fn bitshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    let (s, src, dst, body) = split_body(typesize, src, dst);
    if body > 0 {
        let (src_body, dst_body) = (&src[..body], &mut dst[..body]);
        match isa() {
            // SAFETY: `isa()` returns `Avx2` only after detecting AVX2 on this CPU,
            // `has_avx512bw()` is true only after detecting AVX512BW and `has_gfni_vbmi()` only
            // after detecting AVX512BW, AVX512VBMI and GFNI.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 if s <= MAX_SIMD_TYPESIZE => unsafe {
                if has_gfni_vbmi() {
                    gfni::bitshuffle(s, src_body, dst_body)
                } else if has_avx512bw() {
                    avx512::bitshuffle(s, src_body, dst_body)
                } else {
                    avx2::bitshuffle(s, src_body, dst_body)
                }
            },
            #[cfg(target_arch = "x86_64")]
            Isa::Sse2 if s <= MAX_SIMD_TYPESIZE => sse2::bitshuffle(s, src_body, dst_body),
            #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
            Isa::Neon if s <= MAX_SIMD_TYPESIZE => neon::bitshuffle(s, src_body, dst_body),
            _ => generic::bitshuffle(s, src_body, dst_body),
        }
    }
    dst[body..].copy_from_slice(&src[body..]);
}

/// Inverse of [`bitshuffle`] (the decoder rule for chunks of version 3 and later).
///
/// # Examples
///
/// ```
/// use b2rs::filters::bitshuffle::{bitshuffle, bitunshuffle};
///
/// let src: Vec<u8> = (0..100u32).flat_map(|i| i.to_le_bytes()).collect();
/// let mut shuffled = vec![0u8; src.len()];
/// bitshuffle(4, &src, &mut shuffled);
/// assert_ne!(shuffled, src);
/// let mut back = vec![0u8; src.len()];
/// bitunshuffle(4, &shuffled, &mut back);
/// assert_eq!(back, src);
/// ```
pub fn bitunshuffle(typesize: usize, src: &[u8], dst: &mut [u8]) {
    let (s, src, dst, body) = split_body(typesize, src, dst);
    if body > 0 {
        let (src_body, dst_body) = (&src[..body], &mut dst[..body]);
        match isa() {
            // SAFETY: `isa()` returns `Avx2` only after detecting AVX2 on this CPU,
            // `has_avx512bw()` is true only after detecting AVX512BW and `has_gfni_vbmi()` only
            // after detecting AVX512BW, AVX512VBMI and GFNI.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 if s <= MAX_SIMD_TYPESIZE => unsafe {
                if has_gfni_vbmi() {
                    gfni::bitunshuffle(s, src_body, dst_body)
                } else if has_avx512bw() {
                    avx512::bitunshuffle(s, src_body, dst_body)
                } else {
                    avx2::bitunshuffle(s, src_body, dst_body)
                }
            },
            #[cfg(target_arch = "x86_64")]
            Isa::Sse2 if s <= MAX_SIMD_TYPESIZE => sse2::bitunshuffle(s, src_body, dst_body),
            #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
            Isa::Neon if s <= MAX_SIMD_TYPESIZE => neon::bitunshuffle(s, src_body, dst_body),
            _ => generic::bitunshuffle(s, src_body, dst_body),
        }
    }
    dst[body..].copy_from_slice(&src[body..]);
}

/// Decoder rule for version-2 (Blosc 1.x) chunks (CHUNK.md §8.2): if the element count is a
/// multiple of 8 unshuffle all of them and copy the trailing L % typesize bytes, else copy
/// unchanged.
///
/// # Examples
///
/// ```
/// use b2rs::filters::bitshuffle::{bitshuffle, bitunshuffle_v2};
///
/// // 16 elements (a multiple of 8): unshuffled as version 3 does
/// let src: Vec<u8> = (0..16u16).flat_map(|i| i.to_le_bytes()).collect();
/// let mut shuffled = vec![0u8; src.len()];
/// bitshuffle(2, &src, &mut shuffled);
/// let mut back = vec![0u8; src.len()];
/// bitunshuffle_v2(2, &shuffled, &mut back);
/// assert_eq!(back, src);
/// // 5 elements (not a multiple of 8): copied unchanged
/// let mut copy = [0u8; 10];
/// bitunshuffle_v2(2, &[9; 10], &mut copy);
/// assert_eq!(copy, [9; 10]);
/// ```
pub fn bitunshuffle_v2(typesize: usize, src: &[u8], dst: &mut [u8]) {
    let len = src.len().min(dst.len());
    if (len / typesize.max(1)).is_multiple_of(8) {
        // All N elements are the largest multiple of 8: the version-3 rule does exactly this.
        bitunshuffle(typesize, src, dst);
    } else {
        dst[..len].copy_from_slice(&src[..len]);
    }
}

/// The portable bit transpose; this is the specification the SIMD kernels are tested against.
pub(crate) mod generic {
    /// Transposes the 8×8 bit matrix held in `x` (bit `8*r + c` ↔ bit `8*c + r`): byte `k` of
    /// the result holds bit `k` of every byte of `x`, byte `m`'s bit in bit `m`.
    #[inline(always)]
    pub(crate) fn transpose8(mut x: u64) -> u64 {
        let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
        x ^= t ^ (t << 7);
        let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
        x ^= t ^ (t << 14);
        let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
        x ^= t ^ (t << 28);
        x
    }

    /// Bit-shuffles `src` (`M*s` bytes, `M` a multiple of 8) into `dst` (same length).
    pub(crate) fn bitshuffle(s: usize, src: &[u8], dst: &mut [u8]) {
        match s {
            1 => bitshuffle_impl(1, src, dst),
            2 => bitshuffle_impl(2, src, dst),
            4 => bitshuffle_impl(4, src, dst),
            8 => bitshuffle_impl(8, src, dst),
            16 => bitshuffle_impl(16, src, dst),
            _ => bitshuffle_impl(s, src, dst),
        }
    }

    /// Inverse of [`bitshuffle`].
    pub(crate) fn bitunshuffle(s: usize, src: &[u8], dst: &mut [u8]) {
        match s {
            1 => bitunshuffle_impl(1, src, dst),
            2 => bitunshuffle_impl(2, src, dst),
            4 => bitunshuffle_impl(4, src, dst),
            8 => bitunshuffle_impl(8, src, dst),
            16 => bitunshuffle_impl(16, src, dst),
            _ => bitunshuffle_impl(s, src, dst),
        }
    }

    /// `out[r*(M/8) + q]` bit `m` = bit `k` of `in[(8q + m)*s + b]`, `r = 8b + k`.
    #[inline(always)]
    fn bitshuffle_impl(s: usize, src: &[u8], dst: &mut [u8]) {
        let len = src.len().min(dst.len());
        let row = len / s / 8;
        if row == 0 {
            return;
        }
        for (q, group) in src[..8 * s * row].chunks_exact(8 * s).enumerate() {
            for (b, rows) in dst[..8 * s * row].chunks_exact_mut(8 * row).enumerate() {
                let mut x = 0u64;
                for m in 0..8 {
                    x |= u64::from(group[m * s + b]) << (8 * m);
                }
                let y = transpose8(x).to_le_bytes();
                for (k, &byte) in y.iter().enumerate() {
                    rows[k * row + q] = byte;
                }
            }
        }
    }

    /// Inverse of [`bitshuffle_impl`].
    #[inline(always)]
    fn bitunshuffle_impl(s: usize, src: &[u8], dst: &mut [u8]) {
        let len = src.len().min(dst.len());
        let row = len / s / 8;
        if row == 0 {
            return;
        }
        for (q, group) in dst[..8 * s * row].chunks_exact_mut(8 * s).enumerate() {
            for (b, rows) in src[..8 * s * row].chunks_exact(8 * row).enumerate() {
                let mut y = [0u8; 8];
                for (k, byte) in y.iter_mut().enumerate() {
                    *byte = rows[k * row + q];
                }
                let x = transpose8(u64::from_le_bytes(y)).to_le_bytes();
                for (m, &byte) in x.iter().enumerate() {
                    group[m * s + b] = byte;
                }
            }
        }
    }

    /// Bit-transposes one byte plane (a multiple of 8 bytes, the bytes `b` of consecutive
    /// elements from element `8*q0` on) into its 8 rows: `rows` holds 8 rows of `row` bytes and
    /// receives bytes `q0..q0 + plane.len()/8` of each. Tail step of the SIMD kernels.
    pub(crate) fn trans_plane(plane: &[u8], rows: &mut [u8], row: usize, q0: usize) {
        for (i, chunk) in plane.chunks_exact(8).enumerate() {
            let y = transpose8(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
            for (k, byte) in y.to_le_bytes().into_iter().enumerate() {
                rows[k * row + q0 + i] = byte;
            }
        }
    }

    /// Inverse of [`trans_plane`]: rebuilds the plane bytes from bytes `q0..` of the 8 rows.
    pub(crate) fn untrans_plane(rows: &[u8], row: usize, q0: usize, plane: &mut [u8]) {
        for (i, chunk) in plane.chunks_exact_mut(8).enumerate() {
            let mut y = [0u8; 8];
            for (k, byte) in y.iter_mut().enumerate() {
                *byte = rows[k * row + q0 + i];
            }
            chunk.copy_from_slice(&transpose8(u64::from_le_bytes(y)).to_le_bytes());
        }
    }

    /// Elements per tile of the SIMD kernels for element size `s` (<= 256): about 64 KiB of
    /// scratch (L2-resident; each row then gets runs of 1 KiB per tile, which the prefetchers
    /// follow: 16 KiB tiles were 10-40% slower on AMD Zen 5, typesize 8 and 256 KiB blocks
    /// worst), a multiple of 256 elements so the vector loops rarely hit a tail.
    pub(crate) fn tile_elems(s: usize) -> usize {
        ((65536 / s.max(1)) / 256 * 256).max(256)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::shuffle::tests::{awkward_lengths, random_bytes, typesizes};

    /// A bitshuffle kernel: (typesize, src, dst).
    type Kernel = dyn Fn(usize, &[u8], &mut [u8]);

    /// The formula of FILTERS.md §4, bit by bit.
    fn bitshuffle_naive(s: usize, src: &[u8]) -> Vec<u8> {
        let mut out = src.to_vec();
        let n = src.len() / s;
        let m = n - n % 8;
        out[..m * s].fill(0);
        for b in 0..s {
            for k in 0..8 {
                let r = 8 * b + k;
                for q in 0..m / 8 {
                    for bit in 0..8 {
                        let v = (src[(8 * q + bit) * s + b] >> k) & 1;
                        out[r * (m / 8) + q] |= v << bit;
                    }
                }
            }
        }
        out
    }

    fn count32() -> Vec<u8> {
        (0..1_000_000i32).flat_map(|i| i.to_le_bytes()).collect()
    }

    #[test]
    fn transpose8_is_the_bit_matrix_transpose() {
        for seed in 0..200 {
            let x = u64::from_le_bytes(random_bytes(8, seed).try_into().unwrap());
            let y = generic::transpose8(x);
            for r in 0..8 {
                for c in 0..8 {
                    assert_eq!((y >> (8 * r + c)) & 1, (x >> (8 * c + r)) & 1);
                }
            }
        }
    }

    #[test]
    fn worked_example() {
        let src = [
            0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x04, 0x01, 0x05, 0x00, 0x06, 0x00, 0x07, 0x00,
            0x08, 0x80,
        ];
        let want = [
            0x55, 0x66, 0x78, 0x80, 0x00, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x80,
        ];
        let mut dst = [0u8; 16];
        bitshuffle(2, &src, &mut dst);
        assert_eq!(dst, want);
        let mut back = [0u8; 16];
        bitunshuffle(2, &dst, &mut back);
        assert_eq!(back, src);
        generic::bitshuffle(2, &src, &mut dst);
        assert_eq!(dst, want);
    }

    #[test]
    fn generic_matches_definition() {
        for ts in typesizes() {
            for len in [0, 1, 7, 8 * ts, 8 * ts + 3, 9 * ts, 17 * ts + 1, 1000, 4099] {
                let src = random_bytes(len, (ts * 1000 + len) as u64);
                let want = bitshuffle_naive(ts, &src);
                let mut got = vec![0xEE; len];
                bitshuffle_with(&generic::bitshuffle, ts, &src, &mut got);
                assert_eq!(got, want, "ts={ts} len={len}");
                let mut back = vec![0xEE; len];
                bitshuffle_with(&generic::bitunshuffle, ts, &got, &mut back);
                assert_eq!(back, src, "ts={ts} len={len}");
            }
        }
    }

    /// Applies a kernel the way the public functions do (body + copied rest).
    fn bitshuffle_with(kernel: &Kernel, ts: usize, src: &[u8], dst: &mut [u8]) {
        let body = (src.len() / ts) / 8 * 8 * ts;
        if body > 0 {
            kernel(ts, &src[..body], &mut dst[..body]);
        }
        dst[body..].copy_from_slice(&src[body..]);
    }

    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    fn check_kernel(name: &str, fwd: &Kernel, inv: &Kernel) {
        for ts in typesizes().into_iter().chain([256]) {
            for len in awkward_lengths(ts) {
                let src = random_bytes(len, (ts * 7919 + len) as u64);
                let mut want = vec![0; len];
                let mut got = vec![0xEE; len];
                bitshuffle_with(&generic::bitshuffle, ts, &src, &mut want);
                bitshuffle_with(fwd, ts, &src, &mut got);
                assert_eq!(got, want, "{name} bitshuffle ts={ts} len={len}");

                bitshuffle_with(&generic::bitunshuffle, ts, &src, &mut want);
                bitshuffle_with(inv, ts, &src, &mut got);
                assert_eq!(got, want, "{name} bitunshuffle ts={ts} len={len}");
            }
        }
    }

    #[cfg(all(target_arch = "aarch64", target_feature = "neon"))]
    #[test]
    fn neon_matches_generic() {
        check_kernel("neon", &neon::bitshuffle, &neon::bitunshuffle);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn sse2_matches_generic() {
        check_kernel("sse2", &sse2::bitshuffle, &sse2::bitunshuffle);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx512_matches_generic() {
        if !(std::is_x86_feature_detected!("avx512bw") && std::is_x86_feature_detected!("avx2")) {
            eprintln!("note: AVX512BW not available, AVX-512 bitshuffle kernel not tested");
            return;
        }
        check_kernel(
            "avx512",
            // SAFETY: AVX512BW and AVX2 were detected just above.
            &|t, s, d| unsafe { avx512::bitshuffle(t, s, d) },
            // SAFETY: as above.
            &|t, s, d| unsafe { avx512::bitunshuffle(t, s, d) },
        );
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn gfni_matches_generic() {
        if !(std::is_x86_feature_detected!("avx512bw")
            && std::is_x86_feature_detected!("avx512vbmi")
            && std::is_x86_feature_detected!("gfni")
            && std::is_x86_feature_detected!("avx2"))
        {
            eprintln!("note: AVX512VBMI/GFNI not available, GFNI bitshuffle kernel not tested");
            return;
        }
        check_kernel(
            "gfni",
            // SAFETY: AVX512BW, AVX512VBMI, GFNI and AVX2 were detected just above.
            &|t, s, d| unsafe { gfni::bitshuffle(t, s, d) },
            // SAFETY: as above.
            &|t, s, d| unsafe { gfni::bitunshuffle(t, s, d) },
        );
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_matches_generic() {
        if !std::is_x86_feature_detected!("avx2") {
            eprintln!("note: AVX2 not available, AVX2 bitshuffle kernels not tested");
            return;
        }
        check_kernel(
            "avx2",
            // SAFETY: AVX2 was detected just above.
            &|t, s, d| unsafe { avx2::bitshuffle(t, s, d) },
            // SAFETY: as above.
            &|t, s, d| unsafe { avx2::bitunshuffle(t, s, d) },
        );
    }

    #[test]
    fn round_trips_and_odd_arguments() {
        for ts in typesizes().into_iter().chain([0, 256, 300, 1000]) {
            for len in [0, 1, 7, 31, 8 * ts.max(1), 8 * ts + 1, 5000, 70_001] {
                let src = random_bytes(len, len as u64 + 3);
                let mut mid = vec![0; len];
                let mut back = vec![0; len];
                bitshuffle(ts, &src, &mut mid);
                bitunshuffle(ts, &mid, &mut back);
                assert_eq!(back, src, "ts={ts} len={len}");
            }
        }
        let src = random_bytes(100, 5);
        let mut dst = vec![0; 64];
        bitshuffle(4, &src, &mut dst);
        assert_eq!(dst, bitshuffle_naive(4, &src[..64]));
    }

    #[test]
    fn version2_rule() {
        for ts in [1, 2, 3, 4, 8, 12] {
            // N a multiple of 8, with and without trailing bytes: same as the v3 rule.
            for len in [8 * ts, 16 * ts + ts / 2, 64 * ts] {
                let src = random_bytes(len, len as u64);
                let mut a = vec![0; len];
                let mut b = vec![0; len];
                bitunshuffle_v2(ts, &src, &mut a);
                bitunshuffle(ts, &src, &mut b);
                assert_eq!(a, b, "ts={ts} len={len}");
            }
            // N not a multiple of 8: copied unchanged.
            for len in [9 * ts, 15 * ts + ts / 2, 1] {
                let src = random_bytes(len, len as u64);
                let mut a = vec![0; len];
                bitunshuffle_v2(ts, &src, &mut a);
                assert_eq!(a, src, "ts={ts} len={len}");
            }
        }
    }

    #[test]
    fn compat_bitshuffle_2_20_0() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/testdata/compat/bitshuffle-2.20.0.cdata"
        );
        let Ok(file) = std::fs::read(path) else {
            eprintln!("note: {path} not found, test skipped");
            return;
        };
        let count = count32();
        let mut out = vec![0; count.len()];
        bitshuffle(4, &count, &mut out);
        assert!(
            out == file,
            "bitshuffle(COUNT32) differs from bitshuffle-2.20.0.cdata"
        );
        bitunshuffle(4, &file, &mut out);
        assert!(
            out == count,
            "bitunshuffle(bitshuffle-2.20.0.cdata) differs from COUNT32"
        );
    }
}
