//! Zlib streams (CODECS.md §3): RFC 1950 zlib-wrapped DEFLATE, through flate2 on zlib-rs.

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};

/// Per-thread deflate/inflate states, reused across streams.
///
/// # Examples
///
/// ```
/// use b2rs::codecs::zlib;
///
/// let data = b"zlib wraps deflate ".repeat(50);
/// let mut state = zlib::State::default();
/// let mut out = vec![0u8; data.len()];
/// let n = state.compress(6, &data, &mut out);
/// let mut back = vec![0u8; data.len()];
/// assert_eq!(state.decompress(&out[..n], &mut back), Some(data.len()));
/// assert_eq!(back, data);
/// ```
#[derive(Default)]
pub struct State {
    comp: Option<(u8, Compress)>,
    decomp: Option<Decompress>,
}

impl State {
    /// Compress one stream at `clevel`; 0 when it does not fit (store raw).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::codecs::zlib;
    ///
    /// let data = vec![b'z'; 2000];
    /// let mut state = zlib::State::default();
    /// let mut out = vec![0u8; data.len()];
    /// let n = state.compress(1, &data, &mut out);
    /// assert!(n > 0 && n < 100);
    /// // zlib-wrapped: the stream starts with a CMF byte for deflate (0x78)
    /// assert_eq!(out[0], 0x78);
    /// ```
    pub fn compress(&mut self, clevel: u8, src: &[u8], dst: &mut [u8]) -> usize {
        let c = match &mut self.comp {
            Some((lvl, c)) if *lvl == clevel => {
                c.reset();
                c
            }
            slot => {
                *slot = Some((clevel, Compress::new(Compression::new(clevel as u32), true)));
                &mut slot.as_mut().expect("just set").1
            }
        };
        match c.compress(src, dst, FlushCompress::Finish) {
            Ok(Status::StreamEnd) => c.total_out() as usize,
            _ => {
                // A stream that did not fit is left unfinished, and a `reset()` of such a
                // state made the next stream undecodable (found by fuzzing:
                // fuzz/regressions/chunk_roundtrip/zlib-reset-after-full-output). The cause:
                // `deflateReset` does not clear `block_open`, which level 1 (deflate_quick)
                // keeps across calls, so the next stream lacks its block header; zlib-ng
                // 2.3.3, which zlib-rs follows, does the same (checked with its C API). Start
                // the next stream from a new state.
                self.comp = None;
                0
            }
        }
    }

    /// Decompress one stream; `None` when malformed.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::codecs::zlib;
    ///
    /// let mut state = zlib::State::default();
    /// let mut back = [0u8; 16];
    /// // not a zlib stream
    /// assert_eq!(state.decompress(b"not zlib", &mut back), None);
    /// ```
    pub fn decompress(&mut self, src: &[u8], dst: &mut [u8]) -> Option<usize> {
        let d = self.decomp.get_or_insert_with(|| Decompress::new(true));
        d.reset(true);
        match d.decompress(src, dst, FlushDecompress::Finish) {
            Ok(Status::StreamEnd) => Some(d.total_out() as usize),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(n: usize, seed: u32) -> Vec<u8> {
        let mut x = seed;
        (0..n)
            .map(|i| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                if i % 7 == 0 {
                    (x >> 24) as u8
                } else {
                    (i / 3) as u8
                }
            })
            .collect()
    }

    /// A stream that did not fit must not spoil the next one made with the same state.
    #[test]
    fn stream_after_a_full_output_decodes() {
        let mut st = State::default();
        for level in [1u8, 5, 9] {
            for (first, second) in [(65_280, 123_360), (4_000, 14_400), (300_000, 70_000)] {
                let a = data(first, 1);
                let mut small = vec![0u8; first / 8];
                assert_eq!(st.compress(level, &a, &mut small), 0);
                let b = data(second, 2);
                let mut out = vec![0u8; second + 64];
                let n = st.compress(level, &b, &mut out);
                assert!(n > 0);
                let mut back = vec![0u8; second];
                assert_eq!(st.decompress(&out[..n], &mut back), Some(second));
                assert_eq!(back, b, "level {level}, {first} then {second}");
            }
        }
    }
}
