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
            _ => 0,
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
