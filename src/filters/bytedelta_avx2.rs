//! AVX2 bytedelta plane decoder (32 bytes per step; shorter tails go to the SSE2 kernel).
//!
//! Same scheme as `bytedelta_sse2.rs`. The in-vector prefix sum works inside each 128-bit lane
//! (`slli_si256` shifts lanes separately), so the low lane's total is then added to the high
//! lane; the carry grows by the sum of both lane totals.
//!
//! The only `unsafe` precondition of these functions is the CPU feature (AVX2, detected once by
//! the dispatcher). All memory accesses go through `&[u8; 32]` / `&mut [u8; 32]` references
//! taken from bounds-checked slices.

use std::arch::x86_64::*;

use super::sse2;

#[inline(always)]
fn at32(s: &[u8], at: usize) -> &[u8; 32] {
    s[at..at + 32].try_into().expect("32-byte window")
}

#[inline(always)]
fn at32_mut(s: &mut [u8], at: usize) -> &mut [u8; 32] {
    (&mut s[at..at + 32]).try_into().expect("32-byte window")
}

/// Loads 32 bytes.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load(b: &[u8; 32]) -> __m256i {
    // SAFETY: `b` is 32 readable bytes (unaligned load); AVX is enabled by the caller's contract.
    unsafe { _mm256_loadu_si256(b.as_ptr().cast()) }
}

/// Stores 32 bytes.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn store(b: &mut [u8; 32], v: __m256i) {
    // SAFETY: `b` is 32 writable bytes (unaligned store); AVX is enabled by the caller's contract.
    unsafe { _mm256_storeu_si256(b.as_mut_ptr().cast(), v) }
}

/// AVX2 version of [`super::generic::decode_plane`].
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn decode_plane(src: &[u8], dst: &mut [u8], prev: u8) -> u8 {
    let n = src.len().min(dst.len());
    if n < 32 {
        return sse2::decode_plane(src, dst, prev);
    }
    let mut i = 0;
    // SAFETY: register-only AVX/AVX2 intrinsics (AVX2 available by the caller's contract) and
    // loads/stores through bounds-checked 32-byte windows.
    unsafe {
        let mut carry = _mm256_set1_epi8(prev as i8);
        let lane_last = _mm256_set1_epi8(15);
        while i + 32 <= n {
            let x = load(at32(src, i));
            let x = _mm256_add_epi8(x, _mm256_slli_si256::<1>(x));
            let x = _mm256_add_epi8(x, _mm256_slli_si256::<2>(x));
            let x = _mm256_add_epi8(x, _mm256_slli_si256::<4>(x));
            let x = _mm256_add_epi8(x, _mm256_slli_si256::<8>(x));
            // each lane's total in all of its bytes
            let t = _mm256_shuffle_epi8(x, lane_last);
            // low lane's total added to the high lane
            let x = _mm256_add_epi8(x, _mm256_permute2x128_si256::<0x08>(t, t));
            // both totals, in both lanes
            let total = _mm256_add_epi8(t, _mm256_permute2x128_si256::<0x01>(t, t));
            store(at32_mut(dst, i), _mm256_add_epi8(x, carry));
            carry = _mm256_add_epi8(carry, total);
            i += 32;
        }
    }
    let last = dst[i - 1];
    sse2::decode_plane(&src[i..n], &mut dst[i..n], last)
}
