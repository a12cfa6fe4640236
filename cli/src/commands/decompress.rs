//! `b2rs decompress IN OUT`: any input back to raw bytes (b2nd: C-order items).

use crate::fail::{d, Res};
use crate::input::{input_len, open_input, Decoded};
use crate::opts::Opts;
use crate::progress::{Counted, Progress};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

pub(crate) fn decompress(o: &Opts, inp: &Path, out: &Path) -> Res<()> {
    let input = open_input(inp)?;
    let len = input_len(&input, inp).unwrap_or(0);
    let dec = Decoded::new(input, inp, o.threads)?;
    let mut src = Counted {
        inner: dec,
        progress: Progress::new("decompress", len, o.quiet),
    };
    let f = File::create(out).map_err(|e| format!("{}: {e}", d(out)))?;
    let mut w = BufWriter::with_capacity(1 << 20, f);
    let r = (|| -> Res<()> {
        loop {
            if !src
                .inner
                .fill_if_empty()
                .map_err(|e| format!("{}: {e}", d(inp)))?
            {
                break;
            }
            let piece = &src.inner.buf[src.inner.pos..];
            w.write_all(piece).map_err(|e| format!("{}: {e}", d(out)))?;
            let n = piece.len();
            src.inner.pos += n;
            src.progress.add(n as u64);
        }
        w.flush().map_err(|e| format!("{}: {e}", d(out)))?;
        Ok(())
    })();
    if r.is_err() {
        let _ = std::fs::remove_file(out);
    }
    r?;
    src.progress.finish();
    Ok(())
}
