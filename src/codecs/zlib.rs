//! Zlib streams (CODECS.md §3): RFC 1950 zlib-wrapped DEFLATE, through flate2 on zlib-rs.

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};

/// The zlib header (RFC 1950 §2.2) zlib writes for a 32 KiB window at `level`: method 8, the
/// level class in FLEVEL, then FCHECK, which zlib sets to `31 - h % 31` (31 when `h` is already
/// a multiple).
fn header(level: u8) -> u16 {
    let flevel = match level {
        0 | 1 => 0,
        2..=5 => 1,
        6 => 2,
        _ => 3,
    };
    let h = (8 + ((15 - 8) << 4)) << 8 | flevel << 6;
    h + 31 - h % 31
}

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
    /// The DEFLATE data is made raw and wrapped here, with the Adler-32 of the input computed
    /// by [`adler32`](super::adler32::adler32) (see `decompress`); the bytes are the ones zlib
    /// makes (`zlib_wrapper_equals_zlib` checks it): its header for a 32 KiB window and this
    /// level, the DEFLATE stream, the Adler-32 big-endian; a stream fits when all of it fits.
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
        let Some((head, body)) = dst.split_first_chunk_mut::<2>() else {
            return 0;
        };
        let c = match &mut self.comp {
            Some((lvl, c)) if *lvl == clevel => {
                c.reset();
                c
            }
            slot => {
                *slot = Some((
                    clevel,
                    Compress::new(Compression::new(clevel as u32), false),
                ));
                &mut slot.as_mut().expect("just set").1
            }
        };
        match c.compress(src, body, FlushCompress::Finish) {
            Ok(Status::StreamEnd) => {
                let n = c.total_out() as usize;
                let Some(check) = body.get_mut(n..n + 4) else {
                    return 0;
                };
                check.copy_from_slice(&super::adler32::adler32(1, src).to_be_bytes());
                *head = header(clevel).to_be_bytes();
                2 + n + 4
            }
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
    /// The zlib wrapper is read here and the DEFLATE data inflated raw, so that the Adler-32 of
    /// the output is checked by [`adler32`](super::adler32::adler32) (the AVX-512 kernel where
    /// the CPU has it) rather than by zlib-rs's AVX2 one. What is accepted is what zlib
    /// accepts: the header check (`(CMF·256 + FLG) % 31 == 0`), method 8 (deflate), a window
    /// of at most 32 KiB, no preset dictionary (zlib would ask for one; Blosc never gives one),
    /// the DEFLATE stream to its end, then the Adler-32 of the output, big-endian; bytes after
    /// it are ignored, as `uncompress` ignores them.
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
        let (&[cmf, flg], deflate) = src.split_first_chunk::<2>()?;
        if (u16::from(cmf) << 8 | u16::from(flg)) % 31 != 0
            || cmf & 0x0f != 8
            || (cmf >> 4) > 7
            || flg & 0x20 != 0
        {
            return None;
        }
        let d = self.decomp.get_or_insert_with(|| Decompress::new(false));
        d.reset(false);
        match d.decompress(deflate, dst, FlushDecompress::Finish) {
            Ok(Status::StreamEnd) => {}
            _ => return None,
        }
        let n = usize::try_from(d.total_out()).ok()?;
        let used = usize::try_from(d.total_in()).ok()?;
        let check = deflate.get(used..)?.first_chunk::<4>()?;
        (u32::from_be_bytes(*check) == super::adler32::adler32(1, dst.get(..n)?)).then_some(n)
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

    /// Inflating raw and checking the wrapper here gives zlib's verdict (zlib-rs with its own
    /// wrapper handling) and bytes, on valid streams and damaged ones: header, body and check
    /// value changed, cut short, extended, and output buffers too small.
    #[test]
    fn wrapper_check_matches_zlib() {
        let mut st = State::default();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut accepted = 0;
        for case in 0..3000u64 {
            let n = 1 + (next() % [100, 5_000, 70_000][case as usize % 3]) as usize;
            let src = data(n, case as u32);
            let mut z = vec![0u8; n + n / 100 + 64];
            let len = st.compress([1, 5, 9][(case % 3) as usize], &src, &mut z);
            assert!(len > 0);
            z.truncate(len);
            match next() % 6 {
                0 => {}
                1 => {
                    let i = (next() % 2) as usize;
                    z[i] = next() as u8;
                }
                2 => {
                    let i = len - 1 - (next() % 4) as usize;
                    z[i] ^= 1 << (next() % 8);
                }
                3 => {
                    let i = (next() % len as u64) as usize;
                    z[i] = next() as u8;
                }
                4 => z.truncate((next() % len as u64) as usize),
                _ => z.extend((0..1 + next() % 8).map(|_| next() as u8)),
            }
            let cap = if next() % 4 == 0 {
                (next() % n as u64) as usize
            } else {
                n
            };
            let mut want_out = vec![0u8; cap];
            let mut zlib = Decompress::new(true);
            let want = match zlib.decompress(&z, &mut want_out, FlushDecompress::Finish) {
                Ok(Status::StreamEnd) => Some(zlib.total_out() as usize),
                _ => None,
            };
            let mut out = vec![0u8; cap];
            let got = st.decompress(&z, &mut out);
            assert_eq!(got, want, "case {case}");
            if let Some(k) = got {
                assert_eq!(out[..k], want_out[..k], "case {case}");
                accepted += 1;
            }
        }
        assert!(accepted > 500, "{accepted}");
        // a preset dictionary (FDICT) with a valid header check: zlib asks for the dictionary
        let mut out = [0u8; 8];
        assert_eq!(
            st.decompress(&[0x78, 0xbb, 0, 0, 0, 1, 3, 0], &mut out),
            None
        );
        // a window of 64 KiB (CINFO 8)
        assert_eq!(
            st.decompress(&[0x88, 0x1c, 3, 0, 0, 0, 0, 1], &mut out),
            None
        );
        // the empty stream of a 32 KiB window
        assert_eq!(
            st.decompress(&[0x78, 0x9c, 3, 0, 0, 0, 0, 1], &mut out),
            Some(0)
        );
    }

    /// The raw stream wrapped here is byte for byte what zlib-rs's own zlib wrapper makes, at
    /// every level, and fits exactly when that one fits (output limits around the size).
    #[test]
    fn zlib_wrapper_equals_zlib() {
        let mut st = State::default();
        for case in 0..400u32 {
            let n = 1 + (case as usize * 7919) % [50, 3_000, 90_000][case as usize % 3];
            let src = data(n, case);
            for level in 1..=9u8 {
                let mut full = vec![0u8; n + n / 100 + 64];
                let mut zlib = Compress::new(Compression::new(level as u32), true);
                assert_eq!(
                    zlib.compress(&src, &mut full, FlushCompress::Finish).ok(),
                    Some(Status::StreamEnd)
                );
                let want = &full[..zlib.total_out() as usize];
                for cap in [
                    full.len(),
                    want.len(),
                    want.len() - 1,
                    want.len() - 4,
                    want.len() / 2,
                ] {
                    let mut out = vec![0u8; cap];
                    let got = st.compress(level, &src, &mut out);
                    if cap >= want.len() {
                        assert_eq!(&out[..got], want, "case {case}, level {level}, cap {cap}");
                    } else {
                        assert_eq!(got, 0, "case {case}, level {level}, cap {cap}");
                    }
                }
            }
        }
    }
}
