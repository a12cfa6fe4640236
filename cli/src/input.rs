//! Opening an input (a contiguous or sparse frame, a b2nd array, a Bloscpack file) and reading
//! its uncompressed bytes in order, one chunk (b2nd: one slab of chunk rows) at a time.

use crate::fail::{d, fail, Res};
use crate::json;
use crate::nd::{self, Layout};
use b2rs::b2nd::Meta;
use b2rs::bloscpack;
use b2rs::chunk::header::Header;
use b2rs::frame::{Frame, StdIo};
use b2rs::{CParams, DParams};
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;
use std::sync::Arc;

/// An opened input.
pub(crate) enum Input {
    Frame(Frame),
    B2nd(Frame, Meta),
    Blp(bloscpack::Reader<BufReader<File>>),
}

pub(crate) fn open_input(path: &Path) -> Res<Input> {
    if let Some(url) = path.to_str().filter(|p| b2rs::remote::is_url(p)) {
        // a frame or array on an object store or HTTP server: read through ranges
        let frame = Frame::open_path(path, 0, b2rs::remote::shared())
            .map_err(|e| format!("{url}: cannot open the remote frame: {e}"))?;
        return classify(frame, path);
    }
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
    classify(frame, path)
}

/// A frame, or a b2nd array when its metalayers say so.
fn classify(frame: Frame, path: &Path) -> Res<Input> {
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
pub(crate) fn truncation_note(path: &Path, len: u64) -> String {
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

pub(crate) fn index_magic() -> [u8; 10] {
    b2rs::frame::header::MAGIC
}

/// Uncompressed size of an input.
pub(crate) fn input_len(inp: &Input, path: &Path) -> Res<u64> {
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

pub(crate) fn b2nd_layout(f: &Frame, m: &Meta, path: &Path) -> Res<Layout> {
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
pub(crate) fn input_cparams(inp: &Input) -> CParams {
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
pub(crate) fn numpy_hint(data: &[u8]) -> Option<(Meta, usize)> {
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

pub(crate) fn read_full(r: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
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
pub(crate) fn decode_chunk(
    f: &Frame,
    n: i64,
    dp: &DParams,
    out: &mut Vec<u8>,
) -> Result<(), String> {
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
pub(crate) struct Decoded {
    pub(crate) inp: Input,
    pub(crate) layout: Option<Layout>,
    pub(crate) dp: DParams,
    pub(crate) next: i64,
    pub(crate) buf: Vec<u8>,
    pub(crate) cbuf: Vec<u8>,
    pub(crate) pos: usize,
}

impl Decoded {
    pub(crate) fn new(inp: Input, path: &Path, threads: i16) -> Res<Decoded> {
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
    pub(crate) fn fill(&mut self) -> Result<bool, String> {
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

impl Decoded {
    /// Make sure unread bytes are in `buf`; false at the end.
    pub(crate) fn fill_if_empty(&mut self) -> Result<bool, String> {
        while self.pos >= self.buf.len() {
            if !self.fill()? {
                return Ok(false);
            }
        }
        Ok(true)
    }
}
