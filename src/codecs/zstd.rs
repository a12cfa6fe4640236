//! Zstd streams (CODECS.md §4): one Zstd frame per stream, no checksum, level `2*clevel-1`
//! (clevel 9 → the maximum level); level 1 with a chunk dictionary.

use zstd::zstd_safe::{self, CCtx, CDict, DCtx, DDict};

/// Per-thread Zstd contexts, reused across streams.
///
/// # Examples
///
/// ```
/// use b2rs::codecs::zstd;
///
/// let data = b"zstd frames ".repeat(100);
/// let mut state = zstd::State::default();
/// let mut out = vec![0u8; data.len()];
/// let n = state.compress(5, &data, &mut out, None);
/// let mut back = vec![0u8; data.len()];
/// assert_eq!(state.decompress(&out[..n], &mut back, None), Some(data.len()));
/// assert_eq!(back, data);
/// ```
#[derive(Default)]
pub struct State {
    cctx: Option<CCtx<'static>>,
    dctx: Option<DCtx<'static>>,
}

// SAFETY: Zstd contexts are plain heap state, used only through `&mut self`.
unsafe impl Send for State {}

/// The Zstd level for a Blosc clevel.
///
/// # Examples
///
/// ```
/// use b2rs::codecs::zstd;
///
/// assert_eq!(zstd::level(1), 1);
/// assert_eq!(zstd::level(5), 9);
/// assert_eq!(zstd::level(9), 22); // the maximum level
/// ```
pub fn level(clevel: u8) -> i32 {
    if clevel >= 9 {
        zstd_safe::max_c_level()
    } else {
        2 * clevel as i32 - 1
    }
}

impl State {
    /// Compress one stream; 0 when it does not fit (store raw).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::codecs::zstd;
    ///
    /// let data = vec![7u8; 5000];
    /// let mut out = vec![0u8; data.len()];
    /// let n = zstd::State::default().compress(9, &data, &mut out, None);
    /// assert!(n > 0 && n < 50);
    /// // a Zstd frame starts with its magic number
    /// assert_eq!(out[..4], [0x28, 0xb5, 0x2f, 0xfd]);
    /// ```
    pub fn compress(
        &mut self,
        clevel: u8,
        src: &[u8],
        dst: &mut [u8],
        dict: Option<&CDict<'static>>,
    ) -> usize {
        let cctx = self.cctx.get_or_insert_with(CCtx::create);
        let r = match dict {
            None => cctx.compress(dst, src, level(clevel)),
            Some(d) => cctx.compress_using_cdict(dst, src, d),
        };
        r.unwrap_or(0)
    }

    /// Decompress one stream; `None` when malformed.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::codecs::zstd;
    ///
    /// let mut back = [0u8; 16];
    /// assert_eq!(zstd::State::default().decompress(b"garbage", &mut back, None), None);
    /// ```
    pub fn decompress(
        &mut self,
        src: &[u8],
        dst: &mut [u8],
        dict: Option<&DDict<'static>>,
    ) -> Option<usize> {
        let dctx = self.dctx.get_or_insert_with(DCtx::create);
        let r = match dict {
            None => dctx.decompress(dst, src),
            Some(d) => dctx.decompress_using_ddict(dst, src, d),
        };
        r.ok()
    }
}

/// Digest a dictionary for compression at level 1 (C-Blosc2 always uses level 1 with dicts).
///
/// # Examples
///
/// ```
/// use b2rs::codecs::zstd;
///
/// let dict = b"sensor=42 value=17 ".repeat(10);
/// let cdict = zstd::cdict(&dict);
/// let data = b"sensor=42 value=17 sensor=43 value=18 ".repeat(3);
/// let mut state = zstd::State::default();
/// let mut out = vec![0u8; data.len()];
/// let n = state.compress(5, &data, &mut out, Some(&cdict));
/// assert!(n > 0 && n < data.len());
/// ```
pub fn cdict(bytes: &[u8]) -> CDict<'static> {
    CDict::create(bytes, 1)
}

/// Train a Zstd dictionary from samples laid out back to back; `None` when training fails.
///
/// # Examples
///
/// ```
/// use b2rs::codecs::zstd;
///
/// // 200 samples of 64 bytes laid out back to back
/// let samples: Vec<u8> =
///     (0..200u32).flat_map(|i| format!("{{\"id\":{:5},\"temp\":{:4},\"ok\":true}}", i, i % 37)
///         .into_bytes().into_iter().chain(std::iter::repeat(b' ')).take(64)).collect();
/// let dict = zstd::train(&samples, &[64; 200], 1024).unwrap();
/// assert!(!dict.is_empty() && dict.len() <= 1024);
/// // too few samples: no dictionary
/// assert_eq!(zstd::train(&samples[..64], &[64], 1024), None);
/// ```
pub fn train(samples: &[u8], sizes: &[usize], max_size: usize) -> Option<Vec<u8>> {
    zstd::dict::from_continuous(samples, sizes, max_size).ok()
}
