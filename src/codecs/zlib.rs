//! Zlib streams (CODECS.md §3): RFC 1950 zlib-wrapped DEFLATE, through flate2 on zlib-rs.

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};

/// Per-thread deflate/inflate states, reused across streams.
#[derive(Default)]
pub struct State {
    comp: Option<(u8, Compress)>,
    decomp: Option<Decompress>,
}

impl State {
    /// Compress one stream at `clevel`; 0 when it does not fit (store raw).
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
    pub fn decompress(&mut self, src: &[u8], dst: &mut [u8]) -> Option<usize> {
        let d = self.decomp.get_or_insert_with(|| Decompress::new(true));
        d.reset(true);
        match d.decompress(src, dst, FlushDecompress::Finish) {
            Ok(Status::StreamEnd) => Some(d.total_out() as usize),
            _ => None,
        }
    }
}
