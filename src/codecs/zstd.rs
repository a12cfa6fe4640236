//! Zstd streams (CODECS.md §4): one Zstd frame per stream, no checksum, level `2*clevel-1`
//! (clevel 9 → the maximum level); level 1 with a chunk dictionary.

use zstd::zstd_safe::{self, CCtx, CDict, DCtx, DDict};

/// Per-thread Zstd contexts, reused across streams.
#[derive(Default)]
pub struct State {
    cctx: Option<CCtx<'static>>,
    dctx: Option<DCtx<'static>>,
}

// SAFETY: Zstd contexts are plain heap state, used only through `&mut self`.
unsafe impl Send for State {}

/// The Zstd level for a Blosc clevel.
pub fn level(clevel: u8) -> i32 {
    if clevel >= 9 {
        zstd_safe::max_c_level()
    } else {
        2 * clevel as i32 - 1
    }
}

impl State {
    /// Compress one stream; 0 when it does not fit (store raw).
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
pub fn cdict(bytes: &[u8]) -> CDict<'static> {
    CDict::create(bytes, 1)
}

/// Train a Zstd dictionary from samples laid out back to back; `None` when training fails.
pub fn train(samples: &[u8], sizes: &[usize], max_size: usize) -> Option<Vec<u8>> {
    zstd::dict::from_continuous(samples, sizes, max_size).ok()
}
