//! SSE2 bytedelta plane decoder (16 bytes per step; the tail goes to the generic code).
//!
//! Decoding is a prefix sum: inside a vector, four shifted adds (by 1, 2, 4 and 8 bytes) give
//! the running sum of its 16 bytes; the running value of the plane so far (`carry`, all 16
//! lanes equal) is added to it, and `carry` grows by the vector's total, broadcast from lane 15
//! — so the loop-carried dependency is a single add.
//!
//! SSE2 is part of the x86_64 baseline (asserted in `shuffle_sse2.rs`), so this is a safe
//! function; memory goes through the bounds-checked 16-byte windows of `shuffle_sse2.rs`.

use std::arch::x86_64::*;

use super::generic;
use crate::filters::shuffle::sse2::{at16, at16_mut, load, store};

/// The running sum of the 16 bytes of `x` (lane `k` = `x[0] + … + x[k]`).
#[inline(always)]
fn prefix_sum(x: __m128i) -> __m128i {
    // SAFETY: register-only SSE2 intrinsics; SSE2 is in the x86_64 baseline.
    unsafe {
        let x = _mm_add_epi8(x, _mm_slli_si128::<1>(x));
        let x = _mm_add_epi8(x, _mm_slli_si128::<2>(x));
        let x = _mm_add_epi8(x, _mm_slli_si128::<4>(x));
        _mm_add_epi8(x, _mm_slli_si128::<8>(x))
    }
}

/// Byte 15 of `x` in all 16 lanes.
#[inline(always)]
fn broadcast15(x: __m128i) -> __m128i {
    // SAFETY: register-only SSE2 intrinsics; SSE2 is in the x86_64 baseline.
    unsafe {
        let w = _mm_unpackhi_epi8(x, x); // word 7 = (x15, x15)
        let w = _mm_shufflehi_epi16::<0xFF>(w); // words 4..7 = word 7
        _mm_shuffle_epi32::<0xFF>(w) // all dwords = dword 3
    }
}

/// SSE2 version of [`generic::decode_plane`].
pub(crate) fn decode_plane(src: &[u8], dst: &mut [u8], prev: u8) -> u8 {
    let n = src.len().min(dst.len());
    if n < 16 {
        return generic::decode_plane(src, dst, prev);
    }
    // SAFETY: register-only SSE2 intrinsic.
    let mut carry = unsafe { _mm_set1_epi8(prev as i8) };
    let mut i = 0;
    while i + 16 <= n {
        let x = prefix_sum(load(at16(src, i)));
        // SAFETY: register-only SSE2 intrinsics.
        unsafe {
            store(at16_mut(dst, i), _mm_add_epi8(x, carry));
            carry = _mm_add_epi8(carry, broadcast15(x));
        }
        i += 16;
    }
    let last = dst[i - 1];
    generic::decode_plane(&src[i..n], &mut dst[i..n], last)
}
