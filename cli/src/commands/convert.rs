//! `b2rs convert IN OUT`: between contiguous and sparse frames, b2nd arrays and Bloscpack files,
//! keeping the input's compression parameters unless options change them.

use crate::fail::Res;
use crate::input::{input_cparams, input_len, numpy_hint, open_input, Decoded, Input};
use crate::opts::Opts;
use crate::output::{encode, out_format, OutFormat};
use crate::progress::{Counted, Progress};
use b2rs::params::filter_id;
use std::path::Path;

pub(crate) fn convert(o: &Opts, inp: &Path, out: &Path) -> Res<()> {
    let fmt = out_format(o, out)?;
    let input = open_input(inp)?;
    let len = input_len(&input, inp)?;
    let mut base = input_cparams(&input);
    if fmt == OutFormat::Blp {
        // Bloscpack holds Blosc 1.x chunks: keep only shuffle/bitshuffle
        let keep = base
            .filters
            .iter()
            .copied()
            .rfind(|&f| f == filter_id::SHUFFLE || f == filter_id::BITSHUFFLE)
            .unwrap_or(0);
        base.filters = [0, 0, 0, 0, 0, keep];
        base.filters_meta = [0; 6];
        base.typesize = base.typesize.clamp(1, 255);
        if !b2rs::codecs::BUILTIN.iter().any(|b| b.0 == base.compcode) {
            base.compcode = b2rs::codecs::BLOSCLZ;
        }
    }
    base.blocksize = 0;
    base.splitmode = b2rs::SplitMode::ForwardCompat;
    base.use_dict = false;
    let from_meta = match &input {
        Input::B2nd(f, m) => Some((m.clone(), f.params().typesize.max(1) as usize)),
        Input::Blp(r) => r.metadata().and_then(|m| numpy_hint(&m.data)),
        _ => None,
    };
    let dec = Decoded::new(input, inp, o.threads)?;
    let mut src = Counted {
        inner: dec,
        progress: Progress::new("convert", len, o.quiet),
    };
    encode(
        o,
        &mut src,
        inp,
        len,
        fmt,
        base,
        from_meta.as_ref().map(|(m, t)| (m, *t)),
        out,
    )?;
    src.progress.finish();
    Ok(())
}
