//! `b2rs`: compress, decompress, inspect, convert and verify Blosc2 frames (contiguous and
//! sparse), b2nd arrays and Bloscpack files, with the safe Rust core of b2rs.
//!
//! Every command streams: one chunk (or, for b2nd, one slab of chunk rows) at a time, so files
//! larger than memory work with bounded memory.

mod json;
mod nd;
mod progress;

use b2rs::b2nd::Meta;
use b2rs::bloscpack::{self, PackParams};
use b2rs::chunk::header::{Header, Special};
use b2rs::frame::{index, Frame, FrameParams, Location, StdIo};
use b2rs::params::filter_id;
use b2rs::{CParams, DParams};
use json::Json;
use nd::Layout;
use progress::{Counted, Progress};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

const USAGE: &str = "\
b2rs — Blosc2 frames, b2nd arrays and Bloscpack files

Usage:
  b2rs compress IN OUT [options]     raw bytes → .b2frame (default), .b2nd or .blp
  b2rs decompress IN OUT [options]   any of those → raw bytes (b2nd: C-order items)
  b2rs convert IN OUT [options]      between .b2frame, sparse frames, .b2nd and .blp
  b2rs info FILE [--json]            header, codec, filters, sizes, chunks, metalayers
  b2rs verify FILE                   decode every chunk; non-zero exit on any damage

The output format comes from OUT's extension (.b2frame/.b2f, .b2nd, .blp) or --format.

Options:
  --format F        b2frame | b2nd | blp (alias: frame, bloscpack)
  --sparse          write a sparse frame (a directory) instead of a contiguous one
  --codec C         blosclz | lz4 | lz4hc | zlib | zstd (default zstd; blp: blosclz)
  --clevel N        0..9 (default 5; blp: 7)
  --filter F        shuffle | bitshuffle | delta | trunc_prec:BITS | bytedelta | none;
                    repeat for a pipeline (default shuffle)
  --typesize N      item size in bytes (default 8, or the dtype's itemsize)
  --chunk-size N    bytes per chunk (default 1M; b2nd: the target chunk size); K/M/G suffixes
  --shape A,B,..    b2nd: array shape (items)
  --dtype D         b2nd: NumPy dtype string, e.g. '<f8', '<i4', '|u1'
  --chunks A,B,..   b2nd: chunk shape (default: derived from --chunk-size)
  --blocks A,B,..   b2nd: block shape (default: derived from the chunk shape)
  --threads N       compression/decompression threads (default 1)
  --json            info: print JSON
  -q, --quiet       no progress bar
";

/// A failure: the message (naming the file) and the exit code.
struct Fail {
    msg: String,
    code: u8,
}

type Res<T> = Result<T, Fail>;

fn fail<T>(msg: impl Into<String>) -> Res<T> {
    Err(Fail {
        msg: msg.into(),
        code: 1,
    })
}

fn usage<T>(msg: impl Into<String>) -> Res<T> {
    Err(Fail {
        msg: format!("{}\n(run `b2rs --help` for usage)", msg.into()),
        code: 2,
    })
}

impl From<String> for Fail {
    fn from(msg: String) -> Fail {
        Fail { msg, code: 1 }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(args) {
        Ok(code) => ExitCode::from(code),
        Err(f) => {
            let _ = std::io::stdout().flush();
            eprintln!("b2rs: {}", f.msg);
            ExitCode::from(f.code)
        }
    }
}

#[derive(Default)]
struct Opts {
    pos: Vec<String>,
    format: Option<String>,
    sparse: bool,
    codec: Option<u8>,
    clevel: Option<u8>,
    filters: Vec<(u8, u8)>,
    typesize: Option<i32>,
    chunk_size: Option<usize>,
    shape: Option<Vec<i64>>,
    dtype: Option<String>,
    chunks: Option<Vec<i32>>,
    blocks: Option<Vec<i32>>,
    threads: i16,
    json: bool,
    quiet: bool,
}

fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let lower = s.to_ascii_lowercase();
    let t = lower.trim_end_matches("ib").trim_end_matches('b');
    let (num, mul) = match t.chars().last()? {
        'k' => (&t[..t.len() - 1], 1usize << 10),
        'm' => (&t[..t.len() - 1], 1 << 20),
        'g' => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    num.trim().parse::<usize>().ok()?.checked_mul(mul)
}

fn parse_list<T: std::str::FromStr>(opt: &str, s: &str) -> Res<Vec<T>> {
    let s = s
        .trim()
        .trim_start_matches(['(', '['])
        .trim_end_matches([')', ']']);
    if s.trim().is_empty() {
        return Ok(Vec::new());
    }
    s.split(',')
        .filter(|x| !x.trim().is_empty())
        .map(|x| x.trim().parse::<T>())
        .collect::<Result<Vec<T>, _>>()
        .or_else(|_| {
            usage(format!(
                "{opt}: expected a comma-separated list of integers, got {s:?}"
            ))
        })
}

fn parse_filter(s: &str) -> Res<(u8, u8)> {
    let (name, meta) = match s.split_once(':') {
        Some((n, m)) => (n, Some(m)),
        None => (s, None),
    };
    let meta = match meta {
        Some(m) => match m.parse::<u8>() {
            Ok(v) => v,
            Err(_) => return usage(format!("--filter {s}: the filter meta must be 0..255")),
        },
        None => 0,
    };
    let id = match name.to_ascii_lowercase().as_str() {
        "none" | "nofilter" => filter_id::NOFILTER,
        "shuffle" => filter_id::SHUFFLE,
        "bitshuffle" => filter_id::BITSHUFFLE,
        "delta" => filter_id::DELTA,
        "trunc_prec" | "truncprec" => {
            if meta == 0 {
                return usage("--filter trunc_prec needs the number of mantissa bits to keep, e.g. trunc_prec:20");
            }
            filter_id::TRUNC_PREC
        }
        "bytedelta" => filter_id::BYTEDELTA,
        _ => {
            return usage(format!(
                "unknown filter {name:?} (shuffle, bitshuffle, delta, trunc_prec:BITS, bytedelta, none)"
            ))
        }
    };
    Ok((id, meta))
}

fn parse_args(args: Vec<String>) -> Res<Opts> {
    let mut o = Opts {
        threads: 1,
        ..Opts::default()
    };
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        let (key, inline) = match a.split_once('=') {
            Some((k, v)) if k.starts_with("--") => (k.to_string(), Some(v.to_string())),
            _ => (a.clone(), None),
        };
        let takes_value = matches!(
            key.as_str(),
            "--format"
                | "--codec"
                | "--clevel"
                | "--filter"
                | "--typesize"
                | "--chunk-size"
                | "--shape"
                | "--dtype"
                | "--chunks"
                | "--blocks"
                | "--threads"
        );
        let val = if takes_value {
            match inline.or_else(|| it.next()) {
                Some(v) => v,
                None => return usage(format!("{key} needs a value")),
            }
        } else {
            if inline.is_some() {
                return usage(format!("{key} takes no value"));
            }
            String::new()
        };
        match key.as_str() {
            "--format" => o.format = Some(val.to_ascii_lowercase()),
            "--sparse" => o.sparse = true,
            "--codec" => {
                o.codec = Some(match b2rs::codecs::id_of(&val.to_ascii_lowercase()) {
                    Some(c) => c,
                    None => {
                        return usage(format!(
                            "unknown codec {val:?} (blosclz, lz4, lz4hc, zlib, zstd)"
                        ))
                    }
                })
            }
            "--clevel" => match val.parse::<u8>() {
                Ok(v) if v <= 9 => o.clevel = Some(v),
                _ => return usage(format!("--clevel {val}: must be 0..9")),
            },
            "--filter" => o.filters.push(parse_filter(&val)?),
            "--typesize" => match val.parse::<i32>() {
                Ok(v) if (1..=255).contains(&v) => o.typesize = Some(v),
                _ => return usage(format!("--typesize {val}: must be 1..255")),
            },
            "--chunk-size" => match parse_size(&val) {
                Some(v) if v > 0 && v <= (i32::MAX as usize - 64) => o.chunk_size = Some(v),
                _ => return usage(format!("--chunk-size {val}: must be a size like 1M, 65536")),
            },
            "--shape" => o.shape = Some(parse_list("--shape", &val)?),
            "--dtype" => o.dtype = Some(val),
            "--chunks" => o.chunks = Some(parse_list("--chunks", &val)?),
            "--blocks" => o.blocks = Some(parse_list("--blocks", &val)?),
            "--threads" => match val.parse::<i16>() {
                Ok(v) if v >= 1 => o.threads = v,
                _ => return usage(format!("--threads {val}: must be a positive integer")),
            },
            "--json" => o.json = true,
            "-q" | "--quiet" => o.quiet = true,
            "-h" | "--help" => o.pos.insert(0, "help".into()),
            _ if key.starts_with('-') && key.len() > 1 => {
                return usage(format!("unknown option {key}"))
            }
            _ => o.pos.push(a),
        }
    }
    Ok(o)
}

fn run(args: Vec<String>) -> Res<u8> {
    let o = parse_args(args)?;
    let cmd = o.pos.first().cloned().unwrap_or_default();
    let want = |n: usize| -> Res<()> {
        if o.pos.len() != n + 1 {
            return usage(format!(
                "`b2rs {cmd}` takes {n} file argument{}",
                if n == 1 { "" } else { "s" }
            ));
        }
        Ok(())
    };
    match cmd.as_str() {
        "help" | "" => {
            print!("{USAGE}");
            Ok(if cmd.is_empty() { 2 } else { 0 })
        }
        "compress" => {
            want(2)?;
            compress(&o, Path::new(&o.pos[1]), Path::new(&o.pos[2]))?;
            Ok(0)
        }
        "decompress" => {
            want(2)?;
            decompress(&o, Path::new(&o.pos[1]), Path::new(&o.pos[2]))?;
            Ok(0)
        }
        "convert" => {
            want(2)?;
            convert(&o, Path::new(&o.pos[1]), Path::new(&o.pos[2]))?;
            Ok(0)
        }
        "info" => {
            want(1)?;
            info(&o, Path::new(&o.pos[1]))?;
            Ok(0)
        }
        "verify" => {
            want(1)?;
            verify(&o, Path::new(&o.pos[1]))
        }
        other => usage(format!("unknown command {other:?}")),
    }
}

// ---------------------------------------------------------------------------------------------
// Formats

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum OutFormat {
    Frame,
    B2nd,
    Blp,
}

fn out_format(o: &Opts, out: &Path) -> Res<OutFormat> {
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

fn sparse_out(o: &Opts) -> bool {
    o.sparse || o.format.as_deref() == Some("sframe")
}

fn d(p: &Path) -> String {
    p.display().to_string()
}

/// An opened input.
enum Input {
    Frame(Frame),
    B2nd(Frame, Meta),
    Blp(bloscpack::Reader<BufReader<File>>),
}

fn open_input(path: &Path) -> Res<Input> {
    let md = std::fs::metadata(path).map_err(|e| format!("{}: {e}", d(path)))?;
    if !md.is_dir() {
        let mut magic = [0u8; 4];
        let mut f = File::open(path).map_err(|e| format!("{}: {e}", d(path)))?;
        let n = read_full(&mut f, &mut magic).map_err(|e| format!("{}: {e}", d(path)))?;
        if n == 4 && &magic == b"blpk" {
            let r = bloscpack::Reader::new(BufReader::with_capacity(
                1 << 20,
                File::open(path).map_err(|e| format!("{}: {e}", d(path)))?,
            ))
            .map_err(|e| format!("{}: bad Bloscpack file: {e}", d(path)))?;
            return Ok(Input::Blp(r));
        }
        if n < 4 || magic[..2] != index_magic()[..2] {
            return fail(format!(
                "{}: neither a Blosc2 frame nor a Bloscpack file (unknown magic bytes {})",
                d(path),
                json::hex(&magic[..n])
            ));
        }
    }
    let frame = Frame::open_path(path, 0, Arc::new(StdIo)).map_err(|e| {
        format!(
            "{}: cannot open the {}frame: {e}{}",
            d(path),
            if md.is_dir() { "sparse " } else { "" },
            if md.is_dir() {
                String::new()
            } else {
                truncation_note(path, md.len())
            }
        )
    })?;
    let find = |name: &str| {
        frame
            .metalayers()
            .iter()
            .find(|m| m.name == name)
            .map(|m| m.content.clone())
    };
    let (b2nd, caterva) = (find("b2nd"), find("caterva"));
    if b2nd.is_some() || caterva.is_some() {
        let meta = Meta::from_metalayers(b2nd.as_deref(), caterva.as_deref())
            .map_err(|e| format!("{}: bad b2nd metalayer: {e}", d(path)))?;
        return Ok(Input::B2nd(frame, meta));
    }
    Ok(Input::Frame(frame))
}

/// Why a contiguous frame may not open: a file shorter than the length its header records.
fn truncation_note(path: &Path, len: u64) -> String {
    let mut head = [0u8; 32];
    let n = File::open(path)
        .and_then(|mut f| read_full(&mut f, &mut head))
        .unwrap_or(0);
    if n < 24 {
        return format!(" (the file is truncated: only {len} bytes)");
    }
    match b2rs::frame::header::frame_len_of(&head[..n]) {
        Ok(fl) if fl > 0 && (fl as u64) > len => {
            format!(" (the file is truncated: its header says {fl} bytes, it has {len})")
        }
        _ => String::new(),
    }
}

fn index_magic() -> [u8; 10] {
    b2rs::frame::header::MAGIC
}

/// Uncompressed size of an input.
fn input_len(inp: &Input, path: &Path) -> Res<u64> {
    Ok(match inp {
        Input::Frame(f) => f.nbytes().max(0) as u64,
        Input::B2nd(f, m) => {
            let l = b2nd_layout(f, m, path)?;
            l.geom.nitems() as u64 * l.itemsize as u64
        }
        Input::Blp(r) => match r.header().nbytes() {
            Some(n) => n,
            None => {
                return fail(format!(
                    "{}: the Bloscpack file does not record its size (unknown number of chunks)",
                    d(path)
                ))
            }
        },
    })
}

fn b2nd_layout(f: &Frame, m: &Meta, path: &Path) -> Res<Layout> {
    let l = Layout::new(m, f.params().typesize.max(1) as usize)
        .map_err(|e| format!("{}: {e}", d(path)))?;
    if f.nchunks() != l.geom.nchunks() {
        return fail(format!(
            "{}: the b2nd array has {} chunks, the frame {}",
            d(path),
            l.geom.nchunks(),
            f.nchunks()
        ));
    }
    Ok(l)
}

/// The compression parameters an input was written with (defaults for conversions).
fn input_cparams(inp: &Input) -> CParams {
    match inp {
        Input::Frame(f) | Input::B2nd(f, _) => {
            let mut c = f.params().to_cparams();
            c.nthreads = 1;
            c
        }
        Input::Blp(r) => {
            let mut c = bloscpack::default_cparams();
            c.typesize = r.header().typesize as i32;
            c
        }
    }
}

/// The shape and dtype of a NumPy array packed by Python bloscpack (`pack_ndarray_*`), from its
/// metadata `{"dtype": "'<i4'", "shape": [..], "order": "C", "container": "numpy"}`; `None` for
/// anything else (Fortran order, structured dtypes, other metadata).
fn numpy_hint(data: &[u8]) -> Option<(Meta, usize)> {
    let text = std::str::from_utf8(data).ok()?;
    let value = |key: &str| -> Option<&str> {
        let i = text.find(&format!("\"{key}\""))? + key.len() + 2;
        let rest = text[i..].trim_start().strip_prefix(':')?.trim_start();
        if let Some(r) = rest.strip_prefix('"') {
            return r.find('"').map(|e| &r[..e]);
        }
        if rest.starts_with('[') {
            return rest.find(']').map(|e| &rest[1..e]);
        }
        None
    };
    if value("container")? != "numpy" || value("order")? != "C" {
        return None;
    }
    let dtype = value("dtype")?.trim_matches('\'');
    let itemsize = nd::itemsize_of_dtype(dtype).ok()?;
    let shape: Vec<i64> = value("shape")?
        .split(',')
        .filter(|x| !x.trim().is_empty())
        .map(|x| x.trim().parse().ok())
        .collect::<Option<Vec<i64>>>()?;
    if shape.is_empty() {
        return None;
    }
    Some((Meta::new(&shape, &[], &[]).with_dtype(dtype), itemsize))
}

fn read_full(r: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Decompress one chunk of a frame, checking its size.
fn decode_chunk(f: &Frame, n: i64, dp: &DParams, out: &mut Vec<u8>) -> Result<(), String> {
    let c = f
        .get_chunk(n)
        .map_err(|e| format!("chunk {n}: cannot be read: {e}"))?;
    let h = Header::parse(&c).map_err(|e| format!("chunk {n}: bad header: {e}"))?;
    let nb = h.nbytes.max(0) as usize;
    out.clear();
    out.resize(nb, 0);
    let mut dp = dp.clone();
    dp.schunk_typesize = Some(f.params().typesize);
    let got = b2rs::chunk::decompress(&dp, &c, out, None)
        .map_err(|e| format!("chunk {n}: cannot be decompressed: {e}"))?;
    if got != nb {
        return Err(format!(
            "chunk {n}: decompressed to {got} bytes, header says {nb}"
        ));
    }
    Ok(())
}

/// The uncompressed bytes of an input, in order (b2nd: C-order items), as a reader.
struct Decoded {
    inp: Input,
    layout: Option<Layout>,
    dp: DParams,
    next: i64,
    buf: Vec<u8>,
    cbuf: Vec<u8>,
    pos: usize,
}

impl Decoded {
    fn new(inp: Input, path: &Path, threads: i16) -> Res<Decoded> {
        let layout = match &inp {
            Input::B2nd(f, m) => Some(b2nd_layout(f, m, path)?),
            _ => None,
        };
        let dp = DParams {
            nthreads: threads,
            ..DParams::default()
        };
        Ok(Decoded {
            inp,
            layout,
            dp,
            next: 0,
            buf: Vec::new(),
            cbuf: Vec::new(),
            pos: 0,
        })
    }

    /// Load the next piece into `buf`; false at the end.
    fn fill(&mut self) -> Result<bool, String> {
        self.pos = 0;
        match &mut self.inp {
            Input::Frame(f) => {
                if self.next >= f.nchunks() {
                    return Ok(false);
                }
                decode_chunk(f, self.next, &self.dp, &mut self.buf)?;
            }
            Input::B2nd(f, _) => {
                let l = self.layout.as_ref().expect("b2nd layout");
                if self.next >= l.nslabs() {
                    return Ok(false);
                }
                let s = self.next;
                let (_, rows) = l.slab_rows(s);
                self.buf.clear();
                self.buf.resize((rows as u64 * l.row_bytes()) as usize, 0);
                let cps = l.chunks_per_slab();
                for k in 0..cps {
                    let n = s * cps + k;
                    decode_chunk(f, n, &self.dp, &mut self.cbuf)?;
                    if self.cbuf.len() != l.chunk_bytes() {
                        return Err(format!(
                            "chunk {n}: holds {} bytes, the b2nd array needs {}",
                            self.cbuf.len(),
                            l.chunk_bytes()
                        ));
                    }
                    l.unpack_chunk(s, k, &self.cbuf, &mut self.buf)
                        .map_err(|e| format!("chunk {n}: {e}"))?;
                }
            }
            Input::Blp(r) => {
                if !r
                    .read_next_chunk_into(&mut self.buf)
                    .map_err(|e| e.to_string())?
                {
                    return Ok(false);
                }
            }
        }
        self.next += 1;
        Ok(true)
    }
}

impl Read for Decoded {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while self.pos >= self.buf.len() {
            if !self.fill().map_err(std::io::Error::other)? {
                return Ok(0);
            }
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

// ---------------------------------------------------------------------------------------------
// Writing

/// Compression parameters from the options, over `base`.
fn cparams_from(o: &Opts, mut base: CParams) -> CParams {
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

fn default_cparams() -> CParams {
    CParams {
        compcode: b2rs::codecs::ZSTD,
        clevel: 5,
        ..CParams::default()
    }
}

/// Where a frame goes; an existing output is replaced (a directory only if it is a sparse
/// frame).
fn out_location(path: &Path, sparse: bool) -> Res<Location> {
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

fn remove_output(path: &Path) {
    if path.is_dir() {
        if path.join("chunks.b2frame").is_file() {
            let _ = std::fs::remove_dir_all(path);
        }
    } else {
        let _ = std::fs::remove_file(path);
    }
}

fn compress_chunk(cp: &CParams, src: &[u8], dst: &mut Vec<u8>) -> Result<(), String> {
    dst.clear();
    dst.resize(src.len() + b2rs::chunk::header::MAX_OVERHEAD, 0);
    let n = b2rs::chunk::compress(cp, src, dst).map_err(|e| format!("compression failed: {e}"))?;
    dst.truncate(n);
    Ok(())
}

/// Error text of a failed read from the input stream.
fn rerr(inp: &Path, e: std::io::Error) -> String {
    format!("{}: {e}", d(inp))
}

fn write_frame(
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
    let mut frame = Frame::create(loc, &fp, Arc::new(StdIo))
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
    Ok(())
}

struct B2ndSpec {
    meta: Meta,
    itemsize: usize,
}

fn b2nd_spec(o: &Opts, from: Option<(&Meta, usize)>, len: u64, inp: &Path) -> Res<B2ndSpec> {
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

fn write_b2nd(
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
    let mut frame = Frame::create(loc, &fp, Arc::new(StdIo))
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
    Ok(())
}

fn write_blp(
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
fn encode(
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
            write_blp(src, inp, len, &cp, chunk_size, out)
        }
    };
    if r.is_err() {
        remove_output(out);
    }
    r
}

// ---------------------------------------------------------------------------------------------
// Commands

fn compress(o: &Opts, inp: &Path, out: &Path) -> Res<()> {
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

fn decompress(o: &Opts, inp: &Path, out: &Path) -> Res<()> {
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

impl Decoded {
    /// Make sure unread bytes are in `buf`; false at the end.
    fn fill_if_empty(&mut self) -> Result<bool, String> {
        while self.pos >= self.buf.len() {
            if !self.fill()? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

fn convert(o: &Opts, inp: &Path, out: &Path) -> Res<()> {
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

fn special_name(s: Special) -> &'static str {
    match s {
        Special::Zero => "zeros",
        Special::Nan => "nan",
        Special::Value => "value",
        Special::Uninit => "uninit",
    }
}

fn filter_name(id: u8) -> String {
    match id {
        filter_id::NOFILTER => "none".into(),
        filter_id::SHUFFLE => "shuffle".into(),
        filter_id::BITSHUFFLE => "bitshuffle".into(),
        filter_id::DELTA => "delta".into(),
        filter_id::TRUNC_PREC => "trunc_prec".into(),
        filter_id::NDCELL => "ndcell".into(),
        filter_id::NDMEAN => "ndmean".into(),
        filter_id::BYTEDELTA_BUGGY => "bytedelta(old)".into(),
        filter_id::BYTEDELTA => "bytedelta".into(),
        filter_id::INT_TRUNC => "int_trunc".into(),
        other => format!("filter{other}"),
    }
}

fn codec_name(id: u8) -> String {
    b2rs::codecs::name_of(id).unwrap_or_else(|| format!("codec{id}"))
}

fn filters_json(filters: &[u8], meta: &[u8]) -> Json {
    Json::Arr(
        filters
            .iter()
            .zip(meta)
            .filter(|(f, _)| **f != 0)
            .map(|(&f, &m)| {
                let mut v = vec![("name".into(), Json::str(filter_name(f)))];
                if m != 0 {
                    v.push(("meta".into(), Json::int(m)));
                }
                Json::Obj(v)
            })
            .collect(),
    )
}

fn ratio(nbytes: i64, cbytes: i64) -> Json {
    if cbytes > 0 {
        Json::Num(format!("{:.3}", nbytes as f64 / cbytes as f64))
    } else {
        Json::Null
    }
}

fn meta_json(m: &Meta, typesize: i32) -> Json {
    let arr = |v: Vec<i64>| Json::Arr(v.into_iter().map(Json::int).collect());
    Json::Obj(vec![
        ("ndim".into(), Json::int(m.ndim() as i64)),
        ("shape".into(), arr(m.shape.clone())),
        (
            "chunkshape".into(),
            arr(m.chunkshape.iter().map(|&x| x as i64).collect()),
        ),
        (
            "blockshape".into(),
            arr(m.blockshape.iter().map(|&x| x as i64).collect()),
        ),
        (
            "dtype".into(),
            match &m.dtype {
                Some(d) => Json::str(String::from_utf8_lossy(d)),
                None => Json::Null,
            },
        ),
        ("dtype_format".into(), Json::int(m.dtype_format)),
        ("itemsize".into(), Json::int(typesize)),
    ])
}

/// A metalayer content: msgpack as JSON, else text, else hex.
fn content_json(b: &[u8]) -> Json {
    if let Some(j) = json::msgpack_to_json(b) {
        return j;
    }
    Json::Obj(vec![("hex".into(), Json::str(json::hex(b)))])
}

/// Most chunks of a frame `inspect` looks at one by one (special and unreadable chunks).
const INSPECT_CHUNKS: i64 = 100_000;

fn frame_info(f: &Frame, path: &Path, b2nd: Option<&Meta>) -> Json {
    let p = f.params();
    let mut v: Vec<(String, Json)> = vec![
        ("file".into(), Json::str(d(path))),
        (
            "format".into(),
            Json::str(match (b2nd.is_some(), f.is_sparse()) {
                (false, false) => "contiguous frame",
                (false, true) => "sparse frame",
                (true, false) => "b2nd array (contiguous frame)",
                (true, true) => "b2nd array (sparse frame)",
            }),
        ),
        ("typesize".into(), Json::int(p.typesize)),
        ("blocksize".into(), Json::int(p.blocksize)),
        ("codec".into(), Json::str(codec_name(p.compcode))),
        ("codec_meta".into(), Json::int(p.compcode_meta)),
        ("clevel".into(), Json::int(p.clevel)),
        ("filters".into(), filters_json(&p.filters, &p.filters_meta)),
        ("splitmode".into(), Json::str(format!("{:?}", p.splitmode))),
        ("use_dict".into(), Json::Bool(p.use_dict)),
        ("nbytes".into(), Json::int(f.nbytes())),
        ("cbytes".into(), Json::int(f.cbytes())),
        ("ratio".into(), ratio(f.nbytes(), f.cbytes())),
        ("chunksize".into(), Json::int(f.chunksize())),
        ("nchunks".into(), Json::int(f.nchunks())),
        ("vl_blocks".into(), Json::Bool(f.vl_blocks())),
    ];
    let mut specials = Vec::new();
    let mut errors = Vec::new();
    // the chunks are looked at one by one: only the first INSPECT_CHUNKS of a big frame
    let shown = f.nchunks().min(INSPECT_CHUNKS);
    if shown < f.nchunks() {
        v.push(("chunks_inspected".into(), Json::int(shown)));
    }
    for i in 0..shown {
        let o = match f.chunk_offset(i) {
            Ok(o) => o,
            Err(e) => {
                errors.push(Json::str(format!("chunk {i}: {e}")));
                continue;
            }
        };
        let kind = if o < 0 {
            index::special_of_offset(o).map(special_name)
        } else {
            match f
                .get_chunk(i)
                .map(|c| Header::parse(&c).map(|h| h.special()))
            {
                Ok(Ok(s)) => s.map(special_name),
                Ok(Err(e)) | Err(e) => {
                    errors.push(Json::str(format!("chunk {i}: {e}")));
                    None
                }
            }
        };
        if let Some(k) = kind {
            specials.push(Json::Obj(vec![
                ("chunk".into(), Json::int(i)),
                ("kind".into(), Json::str(k)),
            ]));
        }
    }
    v.push(("special_chunks".into(), Json::Arr(specials)));
    if !errors.is_empty() {
        v.push(("unreadable_chunks".into(), Json::Arr(errors)));
    }
    if let Some(m) = b2nd {
        v.push(("b2nd".into(), meta_json(m, p.typesize)));
    }
    let metas: Vec<(String, Json)> = f
        .metalayers()
        .iter()
        .map(|m| {
            let j = if m.name == "b2nd" || m.name == "caterva" {
                match Meta::deserialize(&m.content) {
                    Ok((mm, _)) => meta_json(&mm, p.typesize),
                    Err(_) => content_json(&m.content),
                }
            } else {
                content_json(&m.content)
            };
            (m.name.clone(), j)
        })
        .collect();
    v.push(("metalayers".into(), Json::Obj(metas)));
    let vl: Vec<(String, Json)> = f
        .vlmetalayers()
        .iter()
        .map(|m| {
            let j = match Header::parse(&m.content) {
                Ok(h) => {
                    let mut out = vec![0u8; h.nbytes.max(0) as usize];
                    match b2rs::chunk::decompress(&DParams::default(), &m.content, &mut out, None) {
                        Ok(n) => {
                            out.truncate(n);
                            content_json(&out)
                        }
                        Err(e) => Json::Obj(vec![("error".into(), Json::str(e.to_string()))]),
                    }
                }
                Err(e) => Json::Obj(vec![("error".into(), Json::str(e.to_string()))]),
            };
            (m.name.clone(), j)
        })
        .collect();
    v.push(("vlmetalayers".into(), Json::Obj(vl)));
    Json::Obj(v)
}

fn blp_info(r: &bloscpack::Reader<BufReader<File>>, path: &Path) -> Res<Json> {
    let h = r.header();
    let file_len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let mut v: Vec<(String, Json)> = vec![
        ("file".into(), Json::str(d(path))),
        ("format".into(), Json::str("bloscpack")),
        ("format_version".into(), Json::int(h.format_version)),
        ("typesize".into(), Json::int(h.typesize)),
        ("chunk_size".into(), Json::int(h.chunk_size)),
        ("last_chunk".into(), Json::int(h.last_chunk)),
        ("nchunks".into(), Json::int(h.nchunks)),
        ("max_app_chunks".into(), Json::int(h.max_app_chunks)),
        ("offsets".into(), Json::Bool(h.offsets)),
        ("checksum".into(), Json::str(h.checksum.name())),
    ];
    // codec and filter from the first chunk's Blosc header
    if h.nchunks != 0 {
        let mut hb = [0u8; 32];
        let ok = File::open(path)
            .and_then(|mut f| {
                use std::io::{Seek, SeekFrom};
                f.seek(SeekFrom::Start(r.data_start()))?;
                f.read_exact(&mut hb[..16])
            })
            .is_ok();
        if ok {
            let flags = hb[2];
            v.push(("codec".into(), Json::str(codec_name(flags >> 5))));
            let filter = if flags & 0x04 != 0 && flags & 0x01 == 0 {
                "bitshuffle"
            } else if flags & 0x01 != 0 && flags & 0x04 == 0 {
                "shuffle"
            } else {
                "none"
            };
            v.push((
                "filters".into(),
                Json::Arr(vec![Json::Obj(vec![("name".into(), Json::str(filter))])]),
            ));
            v.push(("blosc_version".into(), Json::int(hb[0])));
        }
    }
    let nbytes = h.nbytes();
    v.push(("nbytes".into(), nbytes.map(Json::int).unwrap_or(Json::Null)));
    v.push(("file_size".into(), Json::int(file_len)));
    v.push((
        "ratio".into(),
        nbytes
            .map(|n| ratio(n as i64, file_len as i64))
            .unwrap_or(Json::Null),
    ));
    if let Some(m) = r.metadata() {
        let mh = &m.header;
        let data = match std::str::from_utf8(&m.data) {
            Ok(s) => Json::str(s),
            Err(_) => Json::Obj(vec![("hex".into(), Json::str(json::hex(&m.data)))]),
        };
        v.push((
            "metadata".into(),
            Json::Obj(vec![
                (
                    "magic_format".into(),
                    Json::str(String::from_utf8_lossy(mh.magic_name())),
                ),
                ("codec".into(), Json::str(format!("{:?}", mh.meta_codec))),
                ("checksum".into(), Json::str(mh.meta_checksum.name())),
                ("size".into(), Json::int(mh.meta_size)),
                ("max_size".into(), Json::int(mh.max_meta_size)),
                ("data".into(), data),
            ]),
        ));
    }
    Ok(Json::Obj(v))
}

fn info(o: &Opts, path: &Path) -> Res<()> {
    let input = open_input(path)?;
    let j = match &input {
        Input::Frame(f) => frame_info(f, path, None),
        Input::B2nd(f, m) => frame_info(f, path, Some(m)),
        Input::Blp(r) => blp_info(r, path)?,
    };
    let text = if o.json {
        j.to_json_pretty() + "\n"
    } else {
        j.to_text()
    };
    let mut so = std::io::stdout().lock();
    let _ = so.write_all(text.as_bytes());
    Ok(())
}

fn verify(o: &Opts, path: &Path) -> Res<u8> {
    let input = open_input(path)?;
    let mut bad: Vec<String> = Vec::new();
    let dp = DParams {
        nthreads: o.threads,
        ..DParams::default()
    };
    let mut nchunks = 0i64;
    let mut total = 0u64;
    let len = input_len(&input, path).unwrap_or(0);
    let mut prog = Progress::new("verify", len, o.quiet);
    match &input {
        Input::Frame(f) | Input::B2nd(f, _) => {
            let want = match &input {
                Input::B2nd(f, m) => match b2nd_layout(f, m, path) {
                    Ok(l) => Some(l.chunk_bytes()),
                    Err(e) => {
                        bad.push(e.msg);
                        None
                    }
                },
                _ => None,
            };
            nchunks = f.nchunks();
            let mut buf = Vec::new();
            for n in 0..nchunks {
                match decode_chunk(f, n, &dp, &mut buf) {
                    Ok(()) => {
                        if let Some(w) = want {
                            if buf.len() != w {
                                bad.push(format!(
                                    "{}: chunk {n}: holds {} bytes, the b2nd array needs {w}",
                                    d(path),
                                    buf.len()
                                ));
                            }
                        }
                        total += buf.len() as u64;
                        prog.add(buf.len() as u64);
                    }
                    Err(e) => bad.push(format!("{}: {e}", d(path))),
                }
            }
            if bad.is_empty() && total != f.nbytes().max(0) as u64 {
                bad.push(format!(
                    "{}: the chunks hold {total} bytes, the frame header says {}",
                    d(path),
                    f.nbytes()
                ));
            }
        }
        Input::Blp(_) => {
            let Input::Blp(mut r) = input else {
                unreachable!()
            };
            r.set_dparams(dp);
            let h = *r.header();
            let mut buf = Vec::new();
            if h.offsets && h.nchunks >= 0 {
                nchunks = h.nchunks;
                for i in 0..h.nchunks as u64 {
                    match r.read_chunk_into(i, &mut buf) {
                        Ok(()) => {
                            total += buf.len() as u64;
                            prog.add(buf.len() as u64);
                        }
                        Err(e) => bad.push(format!(
                            "{}: chunk {i}: {}",
                            d(path),
                            strip_chunk(&e.to_string(), i)
                        )),
                    }
                }
            } else {
                loop {
                    match r.read_next_chunk_into(&mut buf) {
                        Ok(true) => {
                            nchunks += 1;
                            total += buf.len() as u64;
                            prog.add(buf.len() as u64);
                        }
                        Ok(false) => break,
                        Err(e) => {
                            bad.push(format!("{}: {e}", d(path)));
                            break;
                        }
                    }
                }
            }
            if bad.is_empty() {
                if let Some(n) = h.nbytes() {
                    if n != total {
                        bad.push(format!(
                            "{}: the chunks hold {total} bytes, the header says {n}",
                            d(path)
                        ));
                    }
                }
            }
            prog.finish();
            return report(path, bad, nchunks, total);
        }
    }
    prog.finish();
    report(path, bad, nchunks, total)
}

/// "chunk 3: chunk 3: x" → "chunk 3: x".
fn strip_chunk(msg: &str, i: u64) -> String {
    msg.strip_prefix(&format!("chunk {i}: "))
        .unwrap_or(msg)
        .to_string()
}

fn report(path: &Path, bad: Vec<String>, nchunks: i64, total: u64) -> Res<u8> {
    if bad.is_empty() {
        println!("{}: OK ({nchunks} chunks, {total} bytes)", d(path));
        return Ok(0);
    }
    for b in &bad {
        eprintln!("b2rs: {b}");
    }
    fail(format!(
        "{}: damaged ({} problem{})",
        d(path),
        bad.len(),
        if bad.len() == 1 { "" } else { "s" }
    ))
}
