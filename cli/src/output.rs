//! Writing the bytes of an input as a frame (contiguous or sparse), a b2nd array or a Bloscpack
//! file, with the compression options given.

use crate::fail::{d, fail, usage, Res};
use crate::input::read_full;
use crate::nd::{self, Layout};
use crate::opts::Opts;
use b2rs::b2nd::Meta;
use b2rs::bloscpack::{self, PackParams};
use b2rs::frame::{Frame, FrameParams, Io, Location, StdIo};
use b2rs::params::filter_id;
use b2rs::CParams;
use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::Path;
use std::sync::Arc;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum OutFormat {
    Frame,
    B2nd,
    Blp,
}

pub(crate) fn out_format(o: &Opts, out: &Path) -> Res<OutFormat> {
    if let Some(f) = &o.format {
        return match f.as_str() {
            "b2frame" | "frame" | "cframe" | "b2f" => Ok(OutFormat::Frame),
            "sframe" => Ok(OutFormat::Frame),
            "b2nd" => Ok(OutFormat::B2nd),
            "blp" | "bloscpack" => Ok(OutFormat::Blp),
            _ => usage(format!("unknown --format {f:?} (b2frame, b2nd, blp)")),
        };
    }
    let ext = out
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    Ok(match ext.as_str() {
        "b2nd" => OutFormat::B2nd,
        "blp" => OutFormat::Blp,
        _ => OutFormat::Frame,
    })
}

pub(crate) fn sparse_out(o: &Opts) -> bool {
    o.sparse || o.format.as_deref() == Some("sframe")
}

/// Compression parameters from the options, over `base`.
pub(crate) fn cparams_from(o: &Opts, mut base: CParams) -> CParams {
    if let Some(c) = o.codec {
        base.compcode = c;
    }
    if let Some(l) = o.clevel {
        base.clevel = l;
    }
    if let Some(t) = o.typesize {
        base.typesize = t;
    }
    if !o.filters.is_empty() {
        let active: Vec<(u8, u8)> = o.filters.iter().copied().filter(|f| f.0 != 0).collect();
        let mut f = [0u8; 6];
        let mut m = [0u8; 6];
        // left-aligned, as Python blosc2 writes them (C-Blosc2 3.3.5 decodes a masked-out
        // delta chunk wrongly when delta is not in slot 0)
        for (i, (id, meta)) in active.iter().take(6).enumerate() {
            f[i] = *id;
            m[i] = *meta;
        }
        base.filters = f;
        base.filters_meta = m;
    }
    base.nthreads = o.threads;
    // chunks go to a super-chunk: filters with meta 0 (bytedelta) use its typesize
    base.schunk_typesize = Some(base.typesize);
    base
}

pub(crate) fn default_cparams() -> CParams {
    CParams {
        compcode: b2rs::codecs::ZSTD,
        clevel: 5,
        ..CParams::default()
    }
}

/// Where a frame goes; an existing output is replaced (a directory only if it is a sparse
/// frame).
pub(crate) fn out_location(path: &Path, sparse: bool) -> Res<Location> {
    if let Some(url) = remote_url(path) {
        if !url
            .get(..5)
            .is_some_and(|p| p.eq_ignore_ascii_case("s3://"))
        {
            return fail(format!(
                "{url}: an HTTP server is read-only (write to s3:// URLs)"
            ));
        }
        // an object store: the frame replaces what is there when it is uploaded
        return Ok(if sparse {
            Location::Dir(path.to_path_buf())
        } else {
            Location::File {
                path: path.to_path_buf(),
                offset: 0,
            }
        });
    }
    if let Ok(md) = std::fs::symlink_metadata(path) {
        if md.is_dir() {
            if !path.join("chunks.b2frame").is_file() {
                return fail(format!(
                    "{}: is a directory that is not a sparse frame; not replacing it",
                    d(path)
                ));
            }
            std::fs::remove_dir_all(path)
                .map_err(|e| format!("{}: cannot replace: {e}", d(path)))?;
        } else if sparse {
            std::fs::remove_file(path).map_err(|e| format!("{}: cannot replace: {e}", d(path)))?;
        }
    }
    Ok(if sparse {
        Location::Dir(path.to_path_buf())
    } else {
        Location::File {
            path: path.to_path_buf(),
            offset: 0,
        }
    })
}

/// `path` as a remote URL (`s3://`, `http(s)://`), if it is one.
pub(crate) fn remote_url(path: &Path) -> Option<&str> {
    path.to_str().filter(|p| b2rs::remote::is_url(p))
}

/// The I/O back-end of an output frame: remote for URLs, else files.
fn out_io(path: &Path) -> Arc<dyn Io> {
    if remote_url(path).is_some() {
        b2rs::remote::shared()
    } else {
        Arc::new(StdIo)
    }
}

/// Make a written frame durable: a frame on `s3://` is uploaded now.
fn finish(mut frame: Frame, out: &Path) -> Res<()> {
    match frame.flush() {
        Ok(()) => Ok(()),
        Err(e) => fail(format!("{}: cannot store the frame: {e}", d(out))),
    }
}

pub(crate) fn remove_output(path: &Path) {
    if remote_url(path).is_some() {
        // what a failed write uploaded (the frame is flushed when dropped, as a file keeps
        // what was written): removed, as a local output is
        let io = b2rs::remote::shared();
        let _ = io.remove_file(path);
        let _ = io.remove_file(&path.join(b2rs::frame::INDEX_NAME));
        return;
    }
    if path.is_dir() {
        if path.join("chunks.b2frame").is_file() {
            let _ = std::fs::remove_dir_all(path);
        }
    } else {
        let _ = std::fs::remove_file(path);
    }
}

pub(crate) fn compress_chunk(cp: &CParams, src: &[u8], dst: &mut Vec<u8>) -> Result<(), String> {
    dst.clear();
    dst.resize(src.len() + b2rs::chunk::header::MAX_OVERHEAD, 0);
    let n = b2rs::chunk::compress(cp, src, dst).map_err(|e| format!("compression failed: {e}"))?;
    dst.truncate(n);
    Ok(())
}

/// Error text of a failed read from the input stream.
pub(crate) fn rerr(inp: &Path, e: std::io::Error) -> String {
    format!("{}: {e}", d(inp))
}

pub(crate) fn write_frame(
    src: &mut dyn Read,
    inp: &Path,
    len: u64,
    cp: &CParams,
    chunk_size: usize,
    out: &Path,
    sparse: bool,
) -> Res<()> {
    let loc = out_location(out, sparse)?;
    let fp = FrameParams::from_cparams(cp, cp.nthreads);
    let mut frame = Frame::create(loc, &fp, out_io(out))
        .map_err(|e| format!("{}: cannot create the frame: {e}", d(out)))?;
    let cs = chunk_size.max(1);
    let mut buf = vec![0u8; (cs as u64).min(len.max(1)) as usize];
    let mut cbuf = Vec::new();
    let mut total = 0u64;
    loop {
        let n = read_full(src, &mut buf).map_err(|e| rerr(inp, e))?;
        if n == 0 {
            break;
        }
        total += n as u64;
        compress_chunk(cp, &buf[..n], &mut cbuf).map_err(|e| format!("{}: {e}", d(inp)))?;
        frame
            .append_chunk(&cbuf)
            .map_err(|e| format!("{}: cannot append a chunk: {e}", d(out)))?;
        if n < buf.len() {
            break;
        }
    }
    if total != len {
        return fail(format!("{}: {total} bytes read, {len} expected", d(inp)));
    }
    finish(frame, out)
}

pub(crate) struct B2ndSpec {
    pub(crate) meta: Meta,
    pub(crate) itemsize: usize,
}

pub(crate) fn b2nd_spec(
    o: &Opts,
    from: Option<(&Meta, usize)>,
    len: u64,
    inp: &Path,
) -> Res<B2ndSpec> {
    let dtype = o
        .dtype
        .clone()
        .or_else(|| from.and_then(|(m, _)| m.dtype_str().map(String::from)));
    let itemsize = match (&dtype, o.typesize, from) {
        (Some(dt), _, _) => nd::itemsize_of_dtype(dt).or_else(usage)?,
        (None, Some(t), _) => t as usize,
        (None, None, Some((_, t))) => t,
        (None, None, None) => {
            return usage("a .b2nd output needs --dtype (e.g. '<f8') or --typesize")
        }
    };
    if let Some(t) = o.typesize {
        if t as usize != itemsize {
            return usage(format!(
                "--typesize {t} differs from the dtype's item size {itemsize}"
            ));
        }
    }
    let shape = match (&o.shape, from) {
        (Some(s), _) => s.clone(),
        (None, Some((m, _))) => m.shape.clone(),
        (None, None) => {
            if !len.is_multiple_of(itemsize as u64) {
                return usage("a .b2nd output needs --shape");
            }
            vec![(len / itemsize as u64) as i64]
        }
    };
    if shape.iter().any(|&s| s <= 0) {
        return usage("--shape: every dimension must be positive");
    }
    let nitems = shape.iter().try_fold(1u64, |a, &s| a.checked_mul(s as u64));
    if nitems.and_then(|n| n.checked_mul(itemsize as u64)) != Some(len) {
        return fail(format!(
            "{}: holds {len} bytes, but shape {:?} of {itemsize}-byte items needs {}",
            d(inp),
            shape,
            nitems
                .map(|n| (n as u128 * itemsize as u128).to_string())
                .unwrap_or("too many".into())
        ));
    }
    let keep = |v: &Option<Vec<i32>>, from_v: Option<Vec<i32>>| -> Option<Vec<i32>> {
        let from_v = from_v.filter(|f| f.len() == shape.len() && !f.is_empty());
        v.clone()
            .or(if o.shape.is_none() && o.chunk_size.is_none() {
                from_v
            } else {
                None
            })
    };
    let chunks = keep(&o.chunks, from.map(|(m, _)| m.chunkshape.clone()));
    let blocks = keep(
        &o.blocks,
        if o.chunks.is_none() {
            from.map(|(m, _)| m.blockshape.clone())
        } else {
            None
        },
    );
    for (what, v) in [("--chunks", &chunks), ("--blocks", &blocks)] {
        if let Some(v) = v {
            if v.len() != shape.len() {
                return usage(format!(
                    "{what} must have {} dimensions like the shape",
                    shape.len()
                ));
            }
            if v.iter().any(|&x| x <= 0) {
                return usage(format!("{what}: every dimension must be positive"));
            }
        }
    }
    let target = o.chunk_size.unwrap_or(4 << 20);
    let (chunks, blocks) = nd::auto_shapes(&shape, itemsize, target, chunks, blocks);
    let mut meta = Meta::new(&shape, &chunks, &blocks);
    if let Some(dt) = dtype {
        meta = meta.with_dtype(&dt);
    }
    Ok(B2ndSpec { meta, itemsize })
}

pub(crate) fn write_b2nd(
    src: &mut dyn Read,
    inp: &Path,
    spec: &B2ndSpec,
    cp: &CParams,
    out: &Path,
    sparse: bool,
) -> Res<()> {
    let layout = Layout::new(&spec.meta, spec.itemsize).map_err(|e| format!("{}: {e}", d(out)))?;
    if spec.itemsize > 255 {
        return fail(format!(
            "{}: item size {} is above Blosc's 255",
            d(out),
            spec.itemsize
        ));
    }
    let mut cp = cp.clone();
    cp.typesize = spec.itemsize as i32;
    cp.schunk_typesize = Some(cp.typesize);
    cp.blocksize = layout.block_bytes() as i32;
    let cb = layout.chunk_bytes();
    if cb > b2rs::chunk::header::MAX_BUFFERSIZE as usize || layout.block_bytes() > cb {
        return usage(format!(
            "chunks of {cb} bytes are too large (--chunks / --chunk-size)"
        ));
    }
    let serialized = spec
        .meta
        .serialize()
        .map_err(|e| format!("{}: cannot encode the b2nd metalayer: {e}", d(out)))?;
    let loc = out_location(out, sparse)?;
    let fp = FrameParams::from_cparams(&cp, cp.nthreads);
    let mut frame = Frame::create(loc, &fp, out_io(out))
        .map_err(|e| format!("{}: cannot create the frame: {e}", d(out)))?;
    frame
        .add_metalayer("b2nd", &serialized)
        .map_err(|e| format!("{}: cannot add the b2nd metalayer: {e}", d(out)))?;
    let mut slab = Vec::new();
    let mut chunk = vec![0u8; cb];
    let mut cbuf = Vec::new();
    for s in 0..layout.nslabs() {
        let (_, rows) = layout.slab_rows(s);
        slab.resize((rows as u64 * layout.row_bytes()) as usize, 0);
        let n = read_full(src, &mut slab).map_err(|e| rerr(inp, e))?;
        if n != slab.len() {
            return fail(format!(
                "{}: ends early (the shape needs more data)",
                d(inp)
            ));
        }
        for k in 0..layout.chunks_per_slab() {
            layout
                .pack_chunk(s, k, &slab, &mut chunk)
                .map_err(|e| format!("{}: {e}", d(out)))?;
            compress_chunk(&cp, &chunk, &mut cbuf).map_err(|e| format!("{}: {e}", d(inp)))?;
            frame
                .append_chunk(&cbuf)
                .map_err(|e| format!("{}: cannot append a chunk: {e}", d(out)))?;
        }
    }
    let mut extra = [0u8; 1];
    if read_full(src, &mut extra).map_err(|e| rerr(inp, e))? != 0 {
        return fail(format!("{}: holds more data than the shape", d(inp)));
    }
    finish(frame, out)
}

pub(crate) fn write_blp(
    src: &mut dyn Read,
    inp: &Path,
    len: u64,
    cp: &CParams,
    chunk_size: usize,
    out: &Path,
) -> Res<()> {
    let f = File::create(out).map_err(|e| format!("{}: {e}", d(out)))?;
    let params = PackParams {
        cparams: cp.clone(),
        chunk_size,
        ..PackParams::default()
    };
    let w = BufWriter::with_capacity(1 << 20, f);
    let mut w = bloscpack::pack_stream(src, len, w, &params, None).map_err(|e| match e {
        bloscpack::Error::Read(io) | bloscpack::Error::Write(io)
            if io.kind() == std::io::ErrorKind::Other =>
        {
            format!("{}: {io}", d(inp))
        }
        bloscpack::Error::Truncated(_) => format!("{}: shorter than announced", d(inp)),
        e => format!("{}: {e}", d(out)),
    })?;
    w.flush().map_err(|e| format!("{}: {e}", d(out)))?;
    Ok(())
}

/// Write the bytes of `src` (`len` bytes, read from `inp`) to `out` in `fmt`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn encode(
    o: &Opts,
    src: &mut dyn Read,
    inp: &Path,
    len: u64,
    fmt: OutFormat,
    base: CParams,
    from_b2nd: Option<(&Meta, usize)>,
    out: &Path,
) -> Res<()> {
    let sparse = sparse_out(o);
    let cp = cparams_from(o, base);
    let chunk_size = o.chunk_size.unwrap_or(1 << 20);
    if o.checksum && fmt == OutFormat::Blp {
        return usage("--checksum applies to frames and b2nd arrays (Bloscpack has its own)");
    }
    let r = match fmt {
        OutFormat::Frame => {
            let cs = chunk_size / cp.typesize.max(1) as usize * cp.typesize.max(1) as usize;
            write_frame(
                src,
                inp,
                len,
                &cp,
                cs.max(cp.typesize as usize),
                out,
                sparse,
            )
        }
        OutFormat::B2nd => {
            let spec = b2nd_spec(o, from_b2nd, len, inp)?;
            if cp.filters.contains(&filter_id::DELTA) && !o.quiet {
                eprintln!(
                    "b2rs: note: C-Blosc2 3.3.5 and Python blosc2 misread slices of delta-filtered \
                     b2nd arrays whose chunks are not covered whole (b2rs reads them correctly)"
                );
            }
            write_b2nd(src, inp, &spec, &cp, out, sparse)
        }
        OutFormat::Blp => {
            if sparse {
                return usage("--sparse applies to frames only");
            }
            if let Some(url) = remote_url(out) {
                return fail(format!(
                    "{url}: Bloscpack files are written to local paths only"
                ));
            }
            write_blp(src, inp, len, &cp, chunk_size, out)
        }
    };
    let r = r.and_then(|()| match o.checksum {
        true => add_checksums(out, sparse),
        false => Ok(()),
    });
    if r.is_err() {
        remove_output(out);
    }
    r
}

/// Record the chunk checksums of the frame just written at `out` (its chunks are read back,
/// not decompressed).
fn add_checksums(out: &Path, sparse: bool) -> Res<()> {
    let loc = if sparse {
        Location::Dir(out.to_path_buf())
    } else {
        Location::File {
            path: out.to_path_buf(),
            offset: 0,
        }
    };
    let frame = Frame::open(loc, out_io(out))
        .map_err(|e| format!("{}: cannot open the frame written: {e}", d(out)))?;
    let mut sc = b2rs::schunk::Schunk::from_frame(frame, b2rs::DParams::default());
    sc.enable_checksums()
        .map_err(|e| format!("{}: cannot record the chunk checksums: {e}", d(out)))?;
    match sc.into_frame() {
        Some(frame) => finish(frame, out),
        None => Ok(()),
    }
}
