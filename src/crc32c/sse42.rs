//! CRC-32C with the SSE4.2 `crc32` instruction (8 bytes per instruction, then the tail byte by
//! byte). Called only after run-time detection of SSE4.2 (see `super::update`).

use std::arch::x86_64::{_mm_crc32_u64, _mm_crc32_u8};

/// SSE4.2 version of [`super::generic::update`].
///
/// # Safety
/// The CPU must support SSE4.2.
#[target_feature(enable = "sse4.2")]
pub(crate) unsafe fn update(crc: u32, data: &[u8]) -> u32 {
    let mut c = !crc as u64;
    let mut words = data.chunks_exact(8);
    for w in &mut words {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        c = _mm_crc32_u64(c, u64::from_le_bytes(b));
    }
    let mut c = c as u32;
    for &b in words.remainder() {
        c = _mm_crc32_u8(c, b);
    }
    !c
}
