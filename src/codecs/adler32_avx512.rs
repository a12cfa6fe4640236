//! AVX-512 Adler-32 (AVX512BW and AVX512-VNNI): 64 bytes a step.
//!
//! Over a piece of `n` bytes starting from `(a, b)`, Adler-32 gives `a' = a + Σ d_i` and
//! `b' = b + n·a + Σ (n - i)·d_i`. Cut into 64-byte chunks `k = 0..c`, the weight of byte `j`
//! of chunk `k` is `64·(c - 1 - k) + (64 - j)`: the `64 - j` part is a `vpdpbusd` of the chunk
//! with the weights 64..1 (four independent accumulators, one per chunk of a group of four, so
//! the multiply-adds do not wait on each other); the `64·(c - 1 - k)` part adds, before each
//! chunk, the byte sums of all earlier chunks (`vpsadbw`) into an accumulator that is multiplied
//! by 64 at the end of the piece. Pieces are at most `PIECE` bytes, short enough that no lane
//! overflows 32 bits; each ends with a reduction modulo 65521. The tail (< 64 bytes) is scalar.
//!
//! The only `unsafe` precondition is the CPU features (detected by the dispatcher in
//! `adler32.rs`); loads go through `&[u8; 64]` references taken from bounds-checked chunks.

use std::arch::x86_64::*;

use super::{adler32_scalar, BASE};

/// Bytes per piece between reductions: 86 chunks of 64. The largest lane value, the weighted
/// accumulator plus 64 times the running byte sums, stays below 2^30.
const PIECE: usize = 86 * 64;

/// Loads 64 bytes.
///
/// # Safety
/// The CPU must support AVX512F.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn load(b: &[u8; 64]) -> __m512i {
    // SAFETY: `b` is 64 readable bytes (unaligned load); AVX512F is the caller's contract.
    unsafe { _mm512_loadu_si512(b.as_ptr().cast()) }
}

/// The sum of the sixteen 32-bit lanes, as a 64-bit number.
#[target_feature(enable = "avx512f")]
#[inline]
fn sum_lanes(v: __m512i) -> u64 {
    let lo = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(v));
    let hi = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64::<1>(v));
    _mm512_reduce_add_epi64(_mm512_add_epi64(lo, hi)) as u64
}

/// Adler-32 of `data` continued from `start`.
///
/// # Safety
/// The CPU must support AVX512BW and AVX512-VNNI.
#[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
pub(super) unsafe fn adler32(start: u32, data: &[u8]) -> u32 {
    let (mut a, mut b) = ((start & 0xffff) as u64, (start >> 16) as u64);
    let body = data.len() / 64 * 64;
    // weights 64, 63, ..., 1 for bytes 0..63 of a chunk (`set_epi8` lists byte 63 first)
    #[rustfmt::skip]
    let weights = _mm512_set_epi8(
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
        17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
        33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48,
        49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64,
    );
    let zero = _mm512_setzero_si512();
    for piece in data[..body].chunks(PIECE) {
        // byte sums so far (in the low half of each 64-bit lane), their running total before
        // each chunk, and the weighted sums of four chunk streams
        let (mut sums, mut earlier) = (zero, zero);
        let mut weighted = [zero; 4];
        let mut chunks = piece.chunks_exact(256);
        for group in &mut chunks {
            for (k, w) in weighted.iter_mut().enumerate() {
                let chunk: &[u8; 64] = group[64 * k..64 * k + 64].try_into().expect("64 bytes");
                // SAFETY: AVX512F (the caller's contract); a bounds-checked 64-byte window.
                let v = unsafe { load(chunk) };
                earlier = _mm512_add_epi32(earlier, sums);
                sums = _mm512_add_epi32(sums, _mm512_sad_epu8(v, zero));
                *w = _mm512_dpbusd_epi32(*w, v, weights);
            }
        }
        for chunk in chunks.remainder().chunks_exact(64) {
            let chunk: &[u8; 64] = chunk.try_into().expect("64 bytes");
            // SAFETY: as above.
            let v = unsafe { load(chunk) };
            earlier = _mm512_add_epi32(earlier, sums);
            sums = _mm512_add_epi32(sums, _mm512_sad_epu8(v, zero));
            weighted[0] = _mm512_dpbusd_epi32(weighted[0], v, weights);
        }
        let w = _mm512_add_epi32(
            _mm512_add_epi32(weighted[0], weighted[1]),
            _mm512_add_epi32(weighted[2], weighted[3]),
        );
        let w = _mm512_add_epi32(w, _mm512_slli_epi32::<6>(earlier));
        b += a * piece.len() as u64 + sum_lanes(w);
        a += sum_lanes(sums);
        a %= BASE as u64;
        b %= BASE as u64;
    }
    adler32_scalar(((b as u32) << 16) | a as u32, &data[body..])
}
