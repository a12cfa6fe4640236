//! Adler-32 (RFC 1950 §8.2), the check value that ends every zlib stream.
//!
//! Zlib decompression (`zlib.rs`) inflates raw DEFLATE and checks the stream's Adler-32 itself,
//! with [`adler32`]: on CPUs with AVX512BW and AVX512-VNNI, the kernel in `adler32_avx512.rs`
//! (64 bytes a step, `vpdpbusd`), about twice as fast as zlib-rs's AVX2 one that the inflater
//! would otherwise run over every decoded block (the reference's zlib-ng picks an AVX-512 VNNI
//! kernel at run time; zlib-rs only at compile time); elsewhere zlib-rs's own dispatch (AVX2 or
//! scalar). [`adler32_scalar`] is the specification the kernel is tested against.

#[cfg(target_arch = "x86_64")]
#[path = "adler32_avx512.rs"]
mod avx512;

/// The modulus: the largest prime below 2^16.
const BASE: u32 = 65521;
/// The most bytes whose sums cannot overflow 32 bits before a reduction (zlib's NMAX).
const NMAX: usize = 5552;

/// Whether the CPU has AVX512BW and AVX512-VNNI (the AVX-512 kernel), detected on first use.
#[cfg(target_arch = "x86_64")]
fn has_avx512_vnni() -> bool {
    static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAS.get_or_init(|| {
        std::is_x86_feature_detected!("avx512bw") && std::is_x86_feature_detected!("avx512vnni")
    })
}

/// The Adler-32 of `data` continued from `start` (1 for a new stream), with the fastest kernel
/// of this CPU.
///
/// # Examples
///
/// ```
/// use b2rs::codecs::adler32::adler32;
///
/// // RFC 1950's check value of "Wikipedia" (the classic example)
/// assert_eq!(adler32(1, b"Wikipedia"), 0x11e6_0398);
/// // continued over two pieces
/// assert_eq!(adler32(adler32(1, b"Wiki"), b"pedia"), 0x11e6_0398);
/// ```
pub fn adler32(start: u32, data: &[u8]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if has_avx512_vnni() {
        // SAFETY: AVX512BW and AVX512-VNNI were detected on this CPU, the kernel's only
        // requirement.
        return unsafe { avx512::adler32(start, data) };
    }
    zlib_rs::adler32::adler32(start, data)
}

/// Adler-32, byte by byte: the specification the kernels are tested against.
///
/// # Examples
///
/// ```
/// use b2rs::codecs::adler32::adler32_scalar;
///
/// assert_eq!(adler32_scalar(1, b""), 1);
/// assert_eq!(adler32_scalar(1, b"Wikipedia"), 0x11e6_0398);
/// ```
pub fn adler32_scalar(start: u32, data: &[u8]) -> u32 {
    let (mut a, mut b) = (start & 0xffff, start >> 16);
    for piece in data.chunks(NMAX) {
        for &x in piece {
            a += x as u32;
            b += a;
        }
        a %= BASE;
        b %= BASE;
    }
    (b << 16) | a
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(n: usize, seed: u64) -> Vec<u8> {
        let mut x = seed | 1;
        (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // runs of 0xff (the largest sums) among noise
                if (i / 700) % 3 == 0 {
                    0xff
                } else {
                    x as u8
                }
            })
            .collect()
    }

    /// The dispatched kernel, the AVX-512 one where the CPU has it and zlib-rs's equal the
    /// scalar specification on every length up to a few blocks, from every start value kind.
    #[test]
    fn kernels_match_scalar() {
        let buf = data(300_000, 7);
        let mut lens: Vec<usize> = (0..300).collect();
        lens.extend([
            511, 512, 513, 5503, 5504, 5505, 5551, 5552, 5553, 11_008, 65_536, 262_144, 300_000,
        ]);
        for (k, &n) in lens.iter().enumerate() {
            let off = k % 61;
            let piece = &buf[off..(off + n).min(buf.len())];
            for start in [1u32, 0, 0xfff0_fff0, (BASE - 1) << 16 | (BASE - 1)] {
                let want = adler32_scalar(start, piece);
                assert_eq!(adler32(start, piece), want, "len {n}, start {start:#x}");
                assert_eq!(
                    zlib_rs::adler32::adler32(start, piece),
                    want,
                    "zlib-rs, len {n}"
                );
                #[cfg(target_arch = "x86_64")]
                if has_avx512_vnni() {
                    // SAFETY: the features were just detected.
                    assert_eq!(
                        unsafe { avx512::adler32(start, piece) },
                        want,
                        "avx512, len {n}"
                    );
                }
            }
        }
        let ones = vec![0xffu8; 1 << 20];
        assert_eq!(adler32(1, &ones), adler32_scalar(1, &ones));
    }
}
