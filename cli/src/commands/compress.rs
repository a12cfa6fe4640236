//! `b2rs compress IN OUT`: raw bytes into a frame, a b2nd array or a Bloscpack file.

use crate::fail::{d, fail, Res};
use crate::opts::Opts;
use crate::output::{default_cparams, encode, out_format, OutFormat};
use crate::progress::{Counted, Progress};
use b2rs::bloscpack;
use std::fs::File;
use std::io::BufReader;
use std::path::Path;

pub(crate) fn compress(o: &Opts, inp: &Path, out: &Path) -> Res<()> {
    let fmt = out_format(o, out)?;
    let f = File::open(inp).map_err(|e| format!("{}: {e}", d(inp)))?;
    let md = f.metadata().map_err(|e| format!("{}: {e}", d(inp)))?;
    if md.is_dir() {
        return fail(format!(
            "{}: is a directory, not a file of raw bytes",
            d(inp)
        ));
    }
    let len = md.len();
    let base = if fmt == OutFormat::Blp {
        let mut c = bloscpack::default_cparams();
        c.nthreads = o.threads;
        c
    } else {
        default_cparams()
    };
    let mut src = Counted {
        inner: BufReader::with_capacity(1 << 20, f),
        progress: Progress::new("compress", len, o.quiet),
    };
    encode(o, &mut src, inp, len, fmt, base, None, out)?;
    src.progress.finish();
    Ok(())
}
