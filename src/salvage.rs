//! Salvage: a new frame holding every chunk of a damaged one that still decodes, in its
//! place, lost chunks turned into zero chunks and listed.
//!
//! A frame that still opens gives its chunks through its index. One that does not (a cut
//! file, a damaged index or trailer) is walked: the chunks stored after the frame header each
//! give their length, so every chunk before a cut is found; the last one the walk finds is
//! the offsets chunk when its entries name the chunks found, which then gives their order
//! (and the special chunks, which have no bytes). A sparse frame's chunk files are read in
//! their numbered order. Metalayers and vlmetalayers that still parse are kept. Where the
//! frame records chunk checksums (`b2rs_crc32c`, see [`crate::schunk::ChunkChecksums`]), a
//! chunk that still decodes but does not match its checksum is lost too, and the new frame
//! records the checksums of its own chunks. One chunk is held in memory at a time.

use crate::chunk::header::{Header, Special, EXTENDED_HEADER_LENGTH};
use crate::error::{Error, Result};
use crate::frame::header::{self, FixedHeader, HEADER_MINLEN};
use crate::frame::{index, trailer, Frame, FrameParams, Location, Metalayer, StdIo, INDEX_NAME};
use crate::params::DParams;
use crate::schunk::{chunk_checksum, ChunkCheck, ChunkChecksums, CHECKSUMS_VLMETA};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How the chunks of a damaged frame were found.
///
/// # Examples
///
/// ```
/// use b2rs::salvage::Recovery;
///
/// // a frame that opens gives its chunks through its own index
/// assert_ne!(Recovery::Index, Recovery::Walk);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recovery {
    /// The frame opened: its own index.
    Index,
    /// The offsets chunk found by a walk of the stored chunks.
    WalkedIndex,
    /// The stored chunks in the order the walk found them (no usable index).
    Walk,
}

/// A chunk that could not be recovered.
///
/// # Examples
///
/// ```
/// use b2rs::salvage::{LostChunk, Recovery, Report};
///
/// let r = Report {
///     recovery: Recovery::WalkedIndex,
///     nchunks: 3,
///     recovered: vec![0, 2],
///     lost: vec![LostChunk { n: 1, reason: "does not decode".into(), zeroed: true }],
///     metalayers: vec!["b2nd".into()],
///     vlmetalayers: vec![],
///     damage: Some("Invalid value in header (-11)".into()),
///     notes: vec![],
/// };
/// assert!(r.lost_anything());
/// assert!(r.lost.iter().all(|l| l.zeroed));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LostChunk {
    /// Its number in the frame.
    pub n: i64,
    /// Why.
    pub reason: String,
    /// Whether the new frame holds a zero chunk in its place (else it was dropped: its size
    /// was unknown).
    pub zeroed: bool,
}

/// What [`salvage`] recovered.
///
/// # Examples
///
/// ```
/// use b2rs::salvage::{LostChunk, Recovery, Report};
///
/// let r = Report {
///     recovery: Recovery::WalkedIndex,
///     nchunks: 3,
///     recovered: vec![0, 2],
///     lost: vec![LostChunk { n: 1, reason: "does not decode".into(), zeroed: true }],
///     metalayers: vec!["b2nd".into()],
///     vlmetalayers: vec![],
///     damage: Some("Invalid value in header (-11)".into()),
///     notes: vec![],
/// };
/// assert!(r.lost_anything());
/// assert!(r.lost.iter().all(|l| l.zeroed));
/// ```
#[derive(Clone, Debug)]
pub struct Report {
    /// How the chunks were found.
    pub recovery: Recovery,
    /// Chunks in the new frame.
    pub nchunks: i64,
    /// The chunks recovered intact.
    pub recovered: Vec<i64>,
    /// The chunks lost.
    pub lost: Vec<LostChunk>,
    /// The metalayers kept.
    pub metalayers: Vec<String>,
    /// The vlmetalayers kept.
    pub vlmetalayers: Vec<String>,
    /// Why the frame did not open as it is (`None`: it did).
    pub damage: Option<String>,
    /// Other things found damaged or lost (the header, metalayers, the trailer, ...).
    pub notes: Vec<String>,
}

impl Report {
    /// Whether anything was lost: a chunk, a metalayer or a vlmetalayer.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::salvage::{LostChunk, Recovery, Report};
    ///
    /// let r = Report {
    ///     recovery: Recovery::WalkedIndex,
    ///     nchunks: 3,
    ///     recovered: vec![0, 2],
    ///     lost: vec![LostChunk { n: 1, reason: "does not decode".into(), zeroed: true }],
    ///     metalayers: vec!["b2nd".into()],
    ///     vlmetalayers: vec![],
    ///     damage: Some("Invalid value in header (-11)".into()),
    ///     notes: vec![],
    /// };
    /// assert!(r.lost_anything());
    /// assert!(r.lost.iter().all(|l| l.zeroed));
    /// ```
    pub fn lost_anything(&self) -> bool {
        !self.lost.is_empty() || !self.notes.is_empty()
    }
}

/// Where the chunks of the damaged frame come from, one at a time.
trait Source {
    fn nchunks(&self) -> i64;
    /// Chunk `n` as stored (Err: why it is lost).
    fn chunk(&self, n: i64) -> std::result::Result<Vec<u8>, String>;
}

/// What was read of the damaged frame around its chunks.
struct Found {
    params: FrameParams,
    chunksize: i32,
    /// The uncompressed size the header claims (`None` when unknown).
    nbytes: Option<i64>,
    metalayers: Vec<Metalayer>,
    vlmetalayers: Vec<Metalayer>,
    recovery: Recovery,
    damage: Option<String>,
    notes: Vec<String>,
}

/// Salvage the frame at `input` (a contiguous frame file, a b2nd array, or a sparse frame
/// directory) into a new frame at `output` (a sparse frame directory when `sparse`).
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
/// use b2rs::salvage;
/// use b2rs::{chunk, CParams};
///
/// let dir = std::env::temp_dir().join(format!("b2rs-doc-salvage-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let (good, out) = (dir.join("good.b2frame"), dir.join("out.b2frame"));
/// let cparams = CParams { typesize: 1, ..CParams::default() };
/// let mut f = Frame::create(
///     Location::File { path: good.clone(), offset: 0 },
///     &FrameParams::from_cparams(&cparams, 1),
///     Arc::new(StdIo),
/// )
/// .unwrap();
/// for b in 1..=3u8 {
///     let data: Vec<u8> = (0..1000u32).map(|i| (i % 7) as u8 * b).collect();
///     let mut buf = vec![0u8; 1000 + chunk::header::MAX_OVERHEAD];
///     let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
///     f.append_chunk(&buf[..n]).unwrap();
/// }
/// drop(f);
/// // cut the file inside its third chunk: the first two come back, the third is zeroed
/// let bytes = std::fs::read(&good).unwrap();
/// let cut = dir.join("cut.b2frame");
/// std::fs::write(&cut, &bytes[..bytes.len() - 100]).unwrap();
/// assert!(Frame::open_path(&cut, 0, Arc::new(StdIo)).is_err());
/// let report = salvage::salvage(&cut, &out, false).unwrap();
/// assert_eq!(report.recovered, [0, 1]);
/// assert_eq!(report.lost[0].n, 2);
/// let f = Frame::open_path(&out, 0, Arc::new(StdIo)).unwrap();
/// assert_eq!(f.nchunks(), 3);
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn salvage(input: &Path, output: &Path, sparse: bool) -> Result<Report> {
    let io = Arc::new(StdIo);
    let (found, source): (Found, Box<dyn Source>) = match Frame::open_path(input, 0, io.clone()) {
        Ok(f) => opened(f),
        Err(e) if input.is_dir() => walk_dir(input, e)?,
        Err(e) => walk_file(input, e)?,
    };
    write(found, source.as_ref(), output, sparse)
}

/// A frame that opens: its index gives the chunks.
fn opened(f: Frame) -> (Found, Box<dyn Source>) {
    let found = Found {
        params: f.params().clone(),
        chunksize: f.chunksize(),
        nbytes: Some(f.nbytes()),
        metalayers: f.metalayers().to_vec(),
        vlmetalayers: f.vlmetalayers().to_vec(),
        recovery: Recovery::Index,
        damage: None,
        notes: Vec::new(),
    };
    struct Opened(Frame);
    impl Source for Opened {
        fn nchunks(&self) -> i64 {
            self.0.nchunks()
        }
        fn chunk(&self, n: i64) -> std::result::Result<Vec<u8>, String> {
            self.0
                .get_chunk(n)
                .map(|c| c.into_owned())
                .map_err(|e| e.to_string())
        }
    }
    (found, Box::new(Opened(f)))
}

/// The stored chunks of a contiguous frame file, found by walking their headers.
struct Walked {
    file: std::fs::File,
    /// Where the chunks section starts (the header length).
    base: u64,
    /// (offset from `base`, cbytes) of each chunk found, in file order.
    stored: Vec<(u64, u32)>,
    /// The entries of the offsets chunk found (logical order), if any.
    index: Option<Vec<i64>>,
    /// The file length.
    len: u64,
    chunksize: i32,
    typesize: i32,
}

impl Walked {
    fn read(&self, pos: u64, cbytes: u32) -> std::result::Result<Vec<u8>, String> {
        let mut v = vec![0u8; cbytes as usize];
        self.file
            .read_exact_at(&mut v, self.base + pos)
            .map_err(|e| format!("cannot read it: {e}"))?;
        Ok(v)
    }
}

impl Source for Walked {
    fn nchunks(&self) -> i64 {
        match &self.index {
            Some(ix) => ix.len() as i64,
            None => self.stored.len() as i64,
        }
    }

    fn chunk(&self, n: i64) -> std::result::Result<Vec<u8>, String> {
        let Some(ix) = &self.index else {
            let (pos, cb) = self.stored[n as usize];
            return self.read(pos, cb);
        };
        let off = ix[n as usize];
        if let Some(sp) = index::special_of_offset(off) {
            if self.chunksize <= 0 {
                return Err("a special chunk of unknown size".into());
            }
            return special(sp, self.chunksize as usize, self.typesize);
        }
        match chunk_at(&self.file, self.base + off as u64, self.len) {
            Some(cb) => self.read(off as u64, cb),
            None => Err(format!("no chunk stored at offset {off}")),
        }
    }
}

/// A special chunk of `nbytes` (a lost chunk's stand-in is [`Special::Zero`]).
fn special(sp: Special, nbytes: usize, typesize: i32) -> std::result::Result<Vec<u8>, String> {
    let p = crate::CParams {
        typesize: typesize.max(1),
        ..crate::CParams::default()
    };
    let mut buf = vec![0u8; EXTENDED_HEADER_LENGTH + 16];
    let one = crate::CParams {
        typesize: 1,
        ..p.clone()
    };
    // (a damaged header's typesize may not divide the chunk: then items of 1 byte)
    let n = crate::chunk::special::special_chunk(&p, sp, nbytes, None, &mut buf)
        .or_else(|_| crate::chunk::special::special_chunk(&one, sp, nbytes, None, &mut buf))
        .map_err(|e| e.to_string())?;
    buf.truncate(n);
    Ok(buf)
}

/// The header of the chunk at `pos` of `file` when it is one (a plausible length within the
/// file), with its cbytes.
fn chunk_at(file: &std::fs::File, pos: u64, end: u64) -> Option<u32> {
    let mut h = [0u8; EXTENDED_HEADER_LENGTH];
    let n = (end.checked_sub(pos)?).min(h.len() as u64) as usize;
    file.read_exact_at(&mut h[..n], pos).ok()?;
    let (nbytes, cbytes, _) = Header::sizes(&h[..n]).ok()?;
    let hdr = Header::parse(&h[..n]).ok()?;
    let ok = nbytes >= 0
        && cbytes as usize >= hdr.header_len()
        && pos + cbytes as u64 <= end
        && (2..=5).contains(&h[0]);
    ok.then_some(cbytes as u32)
}

/// The entries of the offsets chunk at `pos` (from `base`) when each names a chunk stored
/// before it (or a special value): then it is the frame's index.
fn index_at(
    file: &std::fs::File,
    base: u64,
    pos: u64,
    len: u64,
    expected: Option<i64>,
) -> Option<Vec<i64>> {
    let cb = chunk_at(file, base + pos, len)?;
    let mut c = vec![0u8; cb as usize];
    file.read_exact_at(&mut c, base + pos).ok()?;
    let (nbytes, _, _) = Header::sizes(&c).ok()?;
    if nbytes <= 0 || nbytes % 8 != 0 {
        return None;
    }
    if expected.is_some_and(|e| e != nbytes as i64 / 8) {
        return None;
    }
    let ix = index::decode(&c, nbytes as i64 / 8).ok()?;
    // the exact values C-Blosc2 writes for special chunks
    let special = |o: i64| {
        [Special::Zero, Special::Uninit, Special::Nan]
            .into_iter()
            .any(|sp| index::special_offset(sp) == Some(o))
    };
    let named = |o: i64| {
        special(o)
            || (o >= 0 && (o as u64) < pos && chunk_at(file, base + o as u64, base + pos).is_some())
    };
    ix.iter().all(|&o| named(o)).then_some(ix)
}

/// Walk a contiguous frame file that does not open (`why`).
fn walk_file(input: &Path, why: Error) -> Result<(Found, Box<dyn Source>)> {
    let file = std::fs::File::open(input).map_err(|_| Error::FileOpen)?;
    let len = file.metadata().map_err(|_| Error::FileRead)?.len();
    let mut notes = Vec::new();
    let mut hbuf = vec![0u8; HEADER_MINLEN.min(len as usize)];
    file.read_exact_at(&mut hbuf, 0)
        .map_err(|_| Error::FileRead)?;
    let fixed = FixedHeader::parse(&hbuf, false).ok();
    // where the chunks start: after the header it claims, else after the first position
    // past the fixed header where a chunk is found
    let base = match &fixed {
        Some(h)
            if chunk_at(&file, h.header_len as u64, len).is_some()
                || len <= h.header_len as u64 =>
        {
            h.header_len as u64
        }
        _ => {
            notes.push("the frame header is damaged: the chunks were searched for".into());
            let lim = len.min(1 << 16);
            (HEADER_MINLEN as u64..lim)
                .find(|&p| chunk_at(&file, p, len).is_some_and(|cb| decodes_at(&file, p, cb)))
                .unwrap_or(len)
        }
    };
    let (metalayers, header_ok) = match &fixed {
        Some(h) if (h.header_len as u64) <= len => {
            let mut b = vec![0u8; h.header_len as usize];
            match file
                .read_exact_at(&mut b, 0)
                .ok()
                .and_then(|_| header::parse_metalayers(&b).ok())
            {
                Some(m) => (m, true),
                None => (Vec::new(), false),
            }
        }
        _ => (Vec::new(), false),
    };
    if !header_ok && fixed.is_some() {
        notes.push("the metalayers do not parse: none kept".into());
    }
    // walk the chunks
    let mut stored = Vec::new();
    let mut pos = base;
    while let Some(cb) = chunk_at(&file, pos, len) {
        stored.push((pos - base, cb));
        pos += cb as u64;
    }
    let vlmetalayers = walked_trailer(&file, len, &fixed).unwrap_or_else(|| {
        notes.push("the trailer is damaged or cut: no vlmetalayers kept".into());
        Vec::new()
    });
    // the last chunk found is the offsets chunk when its entries name chunks found
    let mut w = Walked {
        file,
        base,
        stored,
        index: None,
        len,
        chunksize: fixed.as_ref().map_or(0, |h| h.chunksize),
        typesize: fixed.as_ref().map_or(1, |h| h.params.typesize),
    };
    // where the header says the offsets chunk is (after `cbytes` of chunks), else the last
    // chunk the walk found
    let claimed = fixed.as_ref().map(|h| h.cbytes as u64);
    let last = w.stored.last().map(|s| s.0);
    for pos in claimed.into_iter().chain(last) {
        let expected = fixed
            .as_ref()
            .filter(|h| h.chunksize > 0 && h.nbytes >= 0)
            .map(|h| (h.nbytes + h.chunksize as i64 - 1) / h.chunksize as i64);
        if let Some(ix) = index_at(&w.file, w.base, pos, w.len, expected) {
            w.index = Some(ix);
            break;
        }
    }
    let recovery = if w.index.is_some() {
        Recovery::WalkedIndex
    } else {
        notes.push("no usable offsets chunk: the chunks are in the order they are stored".into());
        Recovery::Walk
    };
    let params = match &fixed {
        Some(h) => h.params.clone(),
        None => first_chunk_params(&w),
    };
    let found = Found {
        params,
        chunksize: w.chunksize,
        nbytes: fixed.as_ref().map(|h| h.nbytes),
        metalayers,
        vlmetalayers,
        recovery,
        damage: Some(why.to_string()),
        notes,
    };
    Ok((found, Box::new(w)))
}

/// Whether the chunk of `cbytes` at `pos` decodes.
fn decodes_at(file: &std::fs::File, pos: u64, cbytes: u32) -> bool {
    let mut v = vec![0u8; cbytes as usize];
    file.read_exact_at(&mut v, pos).is_ok() && check(&v).is_ok()
}

/// The frame parameters when the header is lost: those of the first chunk found.
fn first_chunk_params(w: &Walked) -> FrameParams {
    let mut p = FrameParams::default();
    if let Some(h) = w
        .stored
        .first()
        .and_then(|&(pos, cb)| w.read(pos, cb).ok())
        .and_then(|c| Header::parse(&c).ok())
    {
        p.typesize = (h.typesize as i32).max(1);
        p.compcode = h.codec_id().unwrap_or(0);
    }
    p
}

/// The vlmetalayers of the trailer at the end of a file whose header is `fixed`.
fn walked_trailer(
    file: &std::fs::File,
    len: u64,
    fixed: &Option<FixedHeader>,
) -> Option<Vec<Metalayer>> {
    let flen = fixed.as_ref()?.frame_len as u64;
    if flen > len || flen < trailer::TRAILER_MINLEN as u64 {
        return None;
    }
    let mut tail = [0u8; trailer::TRAILER_MINLEN];
    file.read_exact_at(&mut tail, flen - trailer::TRAILER_MINLEN as u64)
        .ok()?;
    let tl = trailer::trailer_len_of(&tail).ok()? as u64;
    let mut t = vec![0u8; usize::try_from(tl).ok().filter(|&n| n as u64 <= flen)?];
    file.read_exact_at(&mut t, flen - tl).ok()?;
    trailer::parse_vlmetalayers(&t).ok()
}

/// A sparse frame directory whose index does not open: its chunk files in numbered order.
fn walk_dir(input: &Path, why: Error) -> Result<(Found, Box<dyn Source>)> {
    let mut files: Vec<(u64, PathBuf)> = std::fs::read_dir(input)
        .map_err(|_| Error::FileOpen)?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let num = name.strip_suffix(".chunk")?;
            (num.len() == 8).then(|| u64::from_str_radix(num, 16).ok())??;
            Some((u64::from_str_radix(num, 16).ok()?, e.path()))
        })
        .collect();
    files.sort();
    let mut notes =
        vec!["the index does not open: the chunk files are in their numbered order".to_string()];
    let mut hbuf = vec![0u8; HEADER_MINLEN];
    let ixpath = input.join(INDEX_NAME);
    let fixed = std::fs::File::open(&ixpath)
        .ok()
        .and_then(|f| f.read_exact_at(&mut hbuf, 0).ok())
        .and_then(|_| FixedHeader::parse(&hbuf, true).ok());
    let metalayers = fixed
        .as_ref()
        .and_then(|h| {
            let b = std::fs::read(&ixpath).ok()?;
            header::parse_metalayers(b.get(..h.header_len as usize)?).ok()
        })
        .unwrap_or_else(|| {
            notes.push("the index file's header is damaged: no metalayers kept".into());
            Vec::new()
        });
    struct Dir(Vec<(u64, PathBuf)>);
    impl Source for Dir {
        fn nchunks(&self) -> i64 {
            self.0.len() as i64
        }
        fn chunk(&self, n: i64) -> std::result::Result<Vec<u8>, String> {
            std::fs::read(&self.0[n as usize].1).map_err(|e| format!("cannot read it: {e}"))
        }
    }
    let found = Found {
        params: fixed.as_ref().map(|h| h.params.clone()).unwrap_or_default(),
        chunksize: fixed.as_ref().map_or(0, |h| h.chunksize),
        nbytes: fixed.as_ref().map(|h| h.nbytes),
        metalayers,
        vlmetalayers: Vec::new(),
        recovery: Recovery::Walk,
        damage: Some(why.to_string()),
        notes,
    };
    Ok((found, Box::new(Dir(files))))
}

/// Check that `chunk` decodes whole; its size.
fn check(chunk: &[u8]) -> std::result::Result<usize, String> {
    let (nbytes, cbytes, _) = Header::sizes(chunk).map_err(|e| format!("bad header: {e}"))?;
    if cbytes as usize > chunk.len() || nbytes < 0 {
        return Err("bad header sizes".into());
    }
    let mut out = crate::error::zeroed_vec(nbytes as usize).map_err(|e| e.to_string())?;
    match crate::chunk::decompress(&DParams::default(), chunk, &mut out, None) {
        Ok(n) if n == nbytes as usize => Ok(n),
        Ok(n) => Err(format!("decodes to {n} bytes, not {nbytes}")),
        Err(e) => Err(format!("does not decode: {e}")),
    }
}

/// Most zero chunks a walk adds past the chunks it found, up to the count the header gives
/// (a damaged header can claim billions).
const MAX_ZEROED: i64 = 1 << 16;

/// Write the new frame from what was found.
fn write(found: Found, src: &dyn Source, output: &Path, sparse: bool) -> Result<Report> {
    let loc = if sparse {
        Location::Dir(output.to_path_buf())
    } else {
        Location::File {
            path: output.to_path_buf(),
            offset: 0,
        }
    };
    let mut out = Frame::create(loc, &found.params, Arc::new(StdIo))?;
    let mut notes = found.notes;
    let mut metalayers = Vec::new();
    for m in &found.metalayers {
        match out.add_metalayer(&m.name, &m.content) {
            Ok(_) => metalayers.push(m.name.clone()),
            Err(e) => notes.push(format!("metalayer {:?} not kept: {e}", m.name)),
        }
    }
    let cs = found.chunksize;
    // how many chunks the header says there are (fixed chunk sizes)
    let expected = match (found.nbytes, cs) {
        (Some(nb), cs) if cs > 0 && nb >= 0 => Some((nb + cs as i64 - 1) / cs as i64),
        _ => None,
    };
    let count = match expected {
        // an opened frame, or one whose index was found: as many chunks as the index has
        _ if found.recovery != Recovery::Walk => src.nchunks(),
        Some(e) if e > src.nchunks() + MAX_ZEROED => {
            notes.push(format!(
                "the header counts {e} chunks, far more than the {} found: not believed",
                src.nchunks()
            ));
            src.nchunks()
        }
        Some(e) => {
            if found.recovery == Recovery::Walk && e < src.nchunks() {
                // chunks replaced or deleted by edits stay stored: without the index, which
                // of them the frame still uses is unknown
                notes.push(format!(
                    "{} chunks stored for the {e} the header counts: some may be stale or out of order",
                    src.nchunks()
                ));
            }
            e
        }
        None => src.nchunks(),
    };
    let size_of = |n: i64| -> Option<usize> {
        let nb = found.nbytes?;
        if cs <= 0 {
            return None;
        }
        let last = nb - n * cs as i64;
        Some(last.clamp(0, cs as i64) as usize)
    };
    let (mut recovered, mut lost) = (Vec::new(), Vec::new());
    let mut out_n = 0i64;
    // the size of the chunks recovered (but the last): a damaged header's chunksize is not
    // what the chunks hold, and each chunk's own header says its size
    let mut seen: Option<usize> = None;
    let mut last = 0usize;
    // the chunk checksums b2rs records (b2rs_crc32c), which tell a chunk damaged inside its
    // compressed bytes (it still decodes) from an intact one, when the index gives the order
    let sums = found
        .vlmetalayers
        .iter()
        .find(|m| m.name == CHECKSUMS_VLMETA)
        .and_then(|m| ChunkChecksums::from_vlmetalayer(&m.content).ok());
    let by_index = found.recovery != Recovery::Walk;
    let mut crcs = Vec::new();
    for n in 0..count {
        let got = if n < src.nchunks() {
            src.chunk(n).and_then(|c| {
                if let (Some(s), true) = (&sums, by_index) {
                    if let ChunkCheck::Damaged { recorded, actual } = s.check(n as usize, &c) {
                        return Err(format!(
                            "does not match its checksum (recorded {recorded:#010x}, actual {actual:#010x})"
                        ));
                    }
                }
                check(&c).map(|nb| (c, nb))
            })
        } else {
            Err("past the end of what the file holds".into())
        };
        match got {
            Ok((c, nb)) => {
                out.append_chunk(&c)?;
                crcs.push(chunk_checksum(&c));
                recovered.push(n);
                out_n += 1;
                last = nb;
                if n + 1 < count && seen.is_none() {
                    seen = Some(nb);
                }
            }
            Err(reason) => {
                let size = match (size_of(n), seen) {
                    (Some(_), Some(s)) if s != cs as usize => Some(s),
                    (Some(w), _) => Some(w),
                    // a variable-size frame: the damaged chunk's own header when it parses,
                    // else (to keep the chunks after it in their places) the size of the
                    // chunk before it
                    (None, _) => src
                        .chunk(n)
                        .ok()
                        .and_then(|c| Header::sizes(&c).ok())
                        .and_then(|(nb, _, _)| (nb > 0).then_some(nb as usize))
                        .or(Some(last.max(found.params.typesize.max(1) as usize))),
                };
                let zeroed = match size {
                    Some(s) if s > 0 => {
                        let z = special(Special::Zero, s, found.params.typesize)
                            .map_err(|_| Error::Data)?;
                        out.append_chunk(&z)?;
                        crcs.push(chunk_checksum(&z));
                        out_n += 1;
                        true
                    }
                    _ => false,
                };
                lost.push(LostChunk { n, reason, zeroed });
            }
        }
    }
    let mut vlmetalayers = Vec::new();
    for m in &found.vlmetalayers {
        if m.name == CHECKSUMS_VLMETA && sums.is_some() {
            // recorded again for the new frame's chunks (lost ones: their zero chunks)
            let c = ChunkChecksums::from_crcs(std::mem::take(&mut crcs)).to_vlmetalayer()?;
            out.set_vlmetalayer(&m.name, &c)?;
            vlmetalayers.push(m.name.clone());
            continue;
        }
        let ok = check(&m.content).is_ok() && out.set_vlmetalayer(&m.name, &m.content).is_ok();
        if ok {
            vlmetalayers.push(m.name.clone());
        } else {
            notes.push(format!(
                "vlmetalayer {:?} does not decode: not kept",
                m.name
            ));
        }
    }
    out.flush()?;
    Ok(Report {
        recovery: found.recovery,
        nchunks: out_n,
        recovered,
        lost,
        metalayers,
        vlmetalayers,
        damage: found.damage,
        notes,
    })
}
