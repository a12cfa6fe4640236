//! Interoperability with the reference C-Blosc2 3.3.5, through the C ABI.
//!
//! `tools/refchunk.c` is compiled twice: against the reference library
//! (`-lblosc2` from `$B2RS_REF_DIR`, see `tools/fetch-reference.sh`) and
//! against ours (`-lb2rs` from the `target/<profile>` of this cargo run).
//! Every case runs in its own processes: the reference compresses and ours
//! decompresses, ours compresses and the reference decompresses; the round
//! trip must be byte-exact.  Compressed sizes are compared too (the ratio
//! must be within 2 % of the reference) and a ratio table is printed and
//! written to `target/<profile>/interop-summary.txt`.
//!
//! Environment:
//! * `B2RS_REF_DIR`: the unpacked reference wheel (default `target/reference`);
//!   without it the tests are skipped with a message;
//! * `B2RS_INTEROP_OURS=ref`: link the "ours" program against the reference
//!   too (proves the harness itself);
//! * `B2RS_TEST_JOBS`: worker threads (default: number of CPUs);
//! * `B2RS_KEEP_TMP`: keep `$TMPDIR/b2rs-interop-<pid>/`.

mod common;

use common::{Lib, Out, Rng, Scratch};
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------
// constants of the C API

const BLOSCLZ: u8 = 0;
const LZ4: u8 = 1;
const LZ4HC: u8 = 2;
const ZLIB: u8 = 4;
const ZSTD: u8 = 5;
const CODECS: [u8; 5] = [BLOSCLZ, LZ4, LZ4HC, ZLIB, ZSTD];

const ALWAYS_SPLIT: i32 = 1;
const NEVER_SPLIT: i32 = 2;
const AUTO_SPLIT: i32 = 3;
const FORWARD_COMPAT_SPLIT: i32 = 4;

const MIB: usize = 1 << 20;

fn codec_name(c: u8) -> &'static str {
    match c {
        BLOSCLZ => "blosclz",
        LZ4 => "lz4",
        LZ4HC => "lz4hc",
        ZLIB => "zlib",
        ZSTD => "zstd",
        _ => "?",
    }
}

/// A filter pipeline with a short label (the column of the ratio table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Filt {
    None,
    Shuffle,
    Bitshuffle,
    DeltaShuffle,
    TruncPrec,
    /// shuffle, then bytedelta (35) with meta = typesize
    ByteDelta,
    /// shuffle, then the legacy bytedelta (34) with meta = typesize
    ByteDeltaBuggy,
    /// int_trunc (36) with this precision (meta), no other filter
    IntTrunc(i8),
}

impl Filt {
    fn label(self) -> &'static str {
        match self {
            Filt::None => "none",
            Filt::Shuffle => "shuffle",
            Filt::Bitshuffle => "bitshuffle",
            Filt::DeltaShuffle => "delta+shuf",
            Filt::TruncPrec => "trunc_prec",
            Filt::ByteDelta => "bytedelta",
            Filt::ByteDeltaBuggy => "bytedelta_buggy",
            Filt::IntTrunc(_) => "int_trunc",
        }
    }
    fn filters(self) -> [u8; 6] {
        match self {
            Filt::None => [0, 0, 0, 0, 0, 0],
            Filt::Shuffle => [0, 0, 0, 0, 0, 1],
            Filt::Bitshuffle => [0, 0, 0, 0, 0, 2],
            Filt::DeltaShuffle => [0, 0, 0, 0, 3, 1],
            Filt::TruncPrec => [0, 0, 0, 0, 4, 1],
            Filt::ByteDelta => [0, 0, 0, 0, 1, 35],
            Filt::ByteDeltaBuggy => [0, 0, 0, 0, 1, 34],
            Filt::IntTrunc(_) => [0, 0, 0, 0, 0, 36],
        }
    }
    fn fmeta(self, typesize: i32) -> [u8; 6] {
        match self {
            // keep 10 of 23 (f32) or 20 of 52 (f64) mantissa bits
            Filt::TruncPrec => [0, 0, 0, 0, if typesize == 4 { 10 } else { 20 }, 0],
            Filt::ByteDelta | Filt::ByteDeltaBuggy => [0, 0, 0, 0, 0, typesize as u8],
            Filt::IntTrunc(p) => [0, 0, 0, 0, 0, p as u8],
            _ => [0; 6],
        }
    }
}

const ALL_FILTS: [Filt; 5] = [
    Filt::None,
    Filt::Shuffle,
    Filt::Bitshuffle,
    Filt::DeltaShuffle,
    Filt::TruncPrec,
];

// ---------------------------------------------------------------------------
// test data

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Kind {
    /// element i = i as a little-endian integer of `typesize` bytes
    Ramp,
    /// smooth f32 (typesize 4) or f64 (otherwise) series with a little noise
    Floats,
    /// uniformly random bytes
    Random,
    /// words with a skewed distribution
    Text,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Ramp => "ramp",
            Kind::Floats => "floats",
            Kind::Random => "random",
            Kind::Text => "text",
        }
    }
}

const WORDS: [&str; 48] = [
    "the",
    "of",
    "and",
    "to",
    "in",
    "a",
    "is",
    "that",
    "for",
    "it",
    "as",
    "was",
    "with",
    "be",
    "by",
    "on",
    "not",
    "he",
    "this",
    "are",
    "or",
    "his",
    "from",
    "at",
    "which",
    "but",
    "have",
    "an",
    "had",
    "they",
    "you",
    "were",
    "their",
    "one",
    "all",
    "we",
    "can",
    "her",
    "has",
    "there",
    "been",
    "if",
    "more",
    "when",
    "will",
    "would",
    "compression",
    "blosc",
];

fn gen_data(kind: Kind, size: usize, typesize: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(size + 16);
    let seed = (size as u64) << 16 ^ (typesize as u64) << 8 ^ kind as u64;
    let mut rng = Rng::new(0x5EED_0000 ^ seed);
    match kind {
        Kind::Ramp => {
            let ts = typesize.max(1);
            let mut i: u64 = 0;
            while out.len() < size {
                let b = i.to_le_bytes();
                out.extend((0..ts).map(|k| b.get(k).copied().unwrap_or(0)));
                i += 1;
            }
        }
        Kind::Floats => {
            let mut i: u64 = 0;
            while out.len() < size {
                let x = i as f64;
                let v = 100.0 * (x * 0.001).sin() + 10.0 * (x * 0.037).cos() + rng.f64() * 1e-3;
                if typesize == 4 {
                    out.extend_from_slice(&(v as f32).to_le_bytes());
                } else {
                    out.extend_from_slice(&v.to_le_bytes());
                }
                i += 1;
            }
        }
        Kind::Random => {
            out.resize(size, 0);
            rng.fill(&mut out);
        }
        Kind::Text => {
            let mut col = 0;
            while out.len() < size {
                let u = rng.f64();
                let w = WORDS[((u * u * u) * WORDS.len() as f64) as usize % WORDS.len()];
                out.extend_from_slice(w.as_bytes());
                col += w.len() + 1;
                if col > 70 {
                    out.push(b'\n');
                    col = 0;
                } else {
                    out.push(b' ');
                }
            }
        }
    }
    out.truncate(size);
    out
}

// ---------------------------------------------------------------------------
// the two refchunk builds

struct Tools {
    refb: PathBuf,
    ours: PathBuf,
}

/// Per-test setup: scratch dir and the two refchunk programs.  `None` (after
/// printing why) when the reference is not available.
fn setup(test: &str) -> Option<(Scratch, Tools)> {
    let ref_dir = match common::ref_dir() {
        Some(d) => d,
        None => {
            common::skip(test, &common::missing_ref_message());
            return None;
        }
    };
    let scratch = Scratch::new("interop", test);
    let src = common::repo_root().join("tools/refchunk.c");
    let refb = scratch.path("refchunk-ref");
    let ours = scratch.path("refchunk-ours");
    if let Err(e) = common::compile_c(&src, &refb, Lib::Ref, &ref_dir) {
        panic!("{test}: cannot build refchunk against the reference: {e}");
    }
    if let Err(e) = common::compile_c(&src, &ours, Lib::Ours, &ref_dir) {
        panic!("{test}: cannot build refchunk against libb2rs: {e}");
    }
    Some((scratch, Tools { refb, ours }))
}

const LIMIT: Duration = Duration::from_secs(300);

fn run(bin: &Path, args: &[String]) -> Out {
    common::run_cmd(Command::new(bin).args(args), LIMIT)
}

fn s<T: ToString>(v: T) -> String {
    v.to_string()
}

fn p(path: &Path) -> String {
    path.display().to_string()
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_default()
}

/// Record a failure unless `got` decoded to `want`.
fn check(fails: &mut Vec<String>, what: &str, got: Result<Vec<u8>, String>, want: &[u8]) {
    match got {
        Err(e) => fails.push(format!("{what}: failed: {e}")),
        Ok(g) => {
            if let Some(d) = diff(what, &g, want) {
                fails.push(d)
            }
        }
    }
}

/// Describe the first difference between two buffers, or None when equal.
fn diff(what: &str, got: &[u8], want: &[u8]) -> Option<String> {
    if got == want {
        return None;
    }
    let first = got
        .iter()
        .zip(want.iter())
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(want.len()));
    Some(format!(
        "{what}: {} bytes vs {} expected, first difference at byte {first} (got {:?}, want {:?})",
        got.len(),
        want.len(),
        got.get(first..(first + 8).min(got.len())).unwrap_or(&[]),
        want.get(first..(first + 8).min(want.len())).unwrap_or(&[]),
    ))
}

fn le32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Compare the chunk headers written by both sides (except `cbytes`).  For
/// memcpyed chunks the filter/split/codec flag bits and the dictionary bit
/// carry no meaning, so they are not compared.
fn header_diff(r: &[u8], o: &[u8]) -> Option<String> {
    if r.len() < 16 || o.len() < 16 {
        return Some(format!(
            "short chunk: ref {} bytes, ours {} bytes",
            r.len(),
            o.len()
        ));
    }
    let mut d = Vec::new();
    let names = ["version", "versionlz"];
    for (i, n) in names.iter().enumerate() {
        if r[i] != o[i] {
            d.push(format!("{n} {} vs ref {}", o[i], r[i]));
        }
    }
    let (rm, om) = (r[2] & 2 != 0, o[2] & 2 != 0);
    if rm != om {
        d.push(format!(
            "memcpyed {om} vs ref {rm} (flags {:#04x} vs ref {:#04x})",
            o[2], r[2]
        ));
    } else if !rm && r[2] != o[2] {
        d.push(format!("flags {:#04x} vs ref {:#04x}", o[2], r[2]));
    }
    if r[3] != o[3] {
        d.push(format!("typesize {} vs ref {}", o[3], r[3]));
    }
    if le32(r, 4) != le32(o, 4) {
        d.push(format!("nbytes {} vs ref {}", le32(o, 4), le32(r, 4)));
    }
    if le32(r, 8) != le32(o, 8) {
        d.push(format!("blocksize {} vs ref {}", le32(o, 8), le32(r, 8)));
    }
    let rext = r[2] & 5 == 5 && r.len() >= 32;
    let oext = o[2] & 5 == 5 && o.len() >= 32;
    if rext != oext {
        d.push(format!("extended header {oext} vs ref {rext}"));
    } else if rext {
        if r[16..31] != o[16..31] {
            d.push(format!(
                "bytes 16..31 {:?} vs ref {:?}",
                &o[16..31],
                &r[16..31]
            ));
        }
        let mask = if rm { 0xFE } else { 0xFF };
        if r[31] & mask != o[31] & mask {
            d.push(format!("blosc2_flags {:#04x} vs ref {:#04x}", o[31], r[31]));
        }
    }
    if d.is_empty() {
        None
    } else {
        Some(format!("header differs: {}", d.join(", ")))
    }
}

// ---------------------------------------------------------------------------
// compression parameters and cases

#[derive(Clone, Debug)]
struct Cp {
    codec: u8,
    clevel: u8,
    typesize: i32,
    filt: Filt,
    splitmode: i32,
    blocksize: i32,
    nthreads: i16,
    use_dict: bool,
}

impl Cp {
    fn new(codec: u8, clevel: u8, typesize: i32, filt: Filt) -> Cp {
        Cp {
            codec,
            clevel,
            typesize,
            filt,
            splitmode: FORWARD_COMPAT_SPLIT,
            blocksize: 0,
            nthreads: 1,
            use_dict: false,
        }
    }
    fn args(&self) -> Vec<String> {
        let list = |v: [u8; 6]| {
            v.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        vec![
            s("--codec"),
            s(self.codec),
            s("--clevel"),
            s(self.clevel),
            s("--typesize"),
            s(self.typesize),
            s("--filters"),
            list(self.filt.filters()),
            s("--fmeta"),
            list(self.filt.fmeta(self.typesize)),
            s("--splitmode"),
            s(self.splitmode),
            s("--blocksize"),
            s(self.blocksize),
            s("--nthreads"),
            s(self.nthreads),
            s("--use-dict"),
            s(self.use_dict as u8),
        ]
    }
    fn describe(&self) -> String {
        let mut d = format!(
            "{} clevel={} ts={} {}",
            codec_name(self.codec),
            self.clevel,
            self.typesize,
            self.filt.label()
        );
        if let Filt::IntTrunc(p) = self.filt {
            let _ = write!(d, "({p})");
        }
        if self.splitmode != FORWARD_COMPAT_SPLIT {
            let _ = write!(d, " split={}", self.splitmode);
        }
        if self.blocksize != 0 {
            let _ = write!(d, " bs={}", self.blocksize);
        }
        if self.nthreads != 1 {
            let _ = write!(d, " nthreads={}", self.nthreads);
        }
        if self.use_dict {
            d.push_str(" dict");
        }
        d
    }
}

/// C-Blosc2 3.3.x records min(user blocksize, nbytes) in the header but
/// blocks with the value rounded down to a multiple of typesize: when the
/// two differ its chunk cannot be decoded (CHUNK.md §10 "Header value").
fn blocksize_bad(nbytes: usize, typesize: i32, b: i32) -> bool {
    let ts = typesize.max(1) as i64;
    let (n, b) = (nbytes as i64, b as i64);
    if b <= 0 || n < ts {
        return false;
    }
    let bs = b.min(n);
    let rounded = if bs > ts { bs - bs % ts } else { bs };
    rounded != bs
}

#[derive(Clone, Debug)]
struct Case {
    group: &'static str,
    kind: Kind,
    size: usize,
    cp: Cp,
}

impl Case {
    fn new(group: &'static str, kind: Kind, size: usize, cp: Cp) -> Case {
        Case {
            group,
            kind,
            size,
            cp,
        }
    }
    fn key(&self) -> (Kind, usize, usize) {
        // the data's element width follows the typesize for ramps and floats
        (self.kind, self.size, self.cp.typesize as usize)
    }
    fn lossy(&self) -> bool {
        matches!(self.cp.filt, Filt::TruncPrec | Filt::IntTrunc(_))
    }
    fn bad_blocksize(&self) -> bool {
        blocksize_bad(self.size, self.cp.typesize, self.cp.blocksize)
    }
    fn describe(&self) -> String {
        format!(
            "[{}] {} {}B {}",
            self.group,
            self.kind.name(),
            self.size,
            self.cp.describe()
        )
    }
}

#[derive(Debug, Default, Clone)]
struct CaseResult {
    ref_cbytes: Option<usize>,
    ours_cbytes: Option<usize>,
    identical: bool,
    /// sizes count for the 2 % rule (the reference's size is reproducible
    /// and its chunk valid)
    sized: bool,
    failures: Vec<String>,
}

fn generate_cases() -> Vec<Case> {
    let mut v = Vec::new();

    // A. full codec x filter x clevel x typesize on a 100 000-byte ramp
    for &codec in &CODECS {
        for &clevel in &[0u8, 1, 5, 9] {
            for &ts in &[1i32, 2, 4, 8, 3, 16, 255] {
                let size = if ts == 255 {
                    100_000 - 100_000 % 255
                } else {
                    100_000
                };
                for &f in &ALL_FILTS {
                    if f == Filt::TruncPrec {
                        if ts == 4 || ts == 8 {
                            v.push(Case::new(
                                "grid",
                                Kind::Floats,
                                size,
                                Cp::new(codec, clevel, ts, f),
                            ));
                        }
                        continue;
                    }
                    v.push(Case::new(
                        "grid",
                        Kind::Ramp,
                        size,
                        Cp::new(codec, clevel, ts, f),
                    ));
                }
            }
        }
    }

    // B1. small and medium sizes x data kinds
    let natural_ts = |k: Kind| match k {
        Kind::Ramp => 8,
        Kind::Floats => 8,
        Kind::Random => 4,
        Kind::Text => 1,
    };
    let kinds = [Kind::Ramp, Kind::Floats, Kind::Random, Kind::Text];
    for &size in &[0usize, 1, 31, 32, 1000, 100_000] {
        for &kind in &kinds {
            for &codec in &CODECS {
                for &clevel in &[1u8, 5, 9] {
                    for &f in &[Filt::None, Filt::Shuffle, Filt::Bitshuffle] {
                        v.push(Case::new(
                            "sizes",
                            kind,
                            size,
                            Cp::new(codec, clevel, natural_ts(kind), f),
                        ));
                    }
                }
            }
        }
    }
    // B2. large sizes
    for &kind in &kinds {
        for &codec in &CODECS {
            for &clevel in &[1u8, 5, 9] {
                for &f in &[Filt::Shuffle, Filt::Bitshuffle] {
                    let ts = if kind == Kind::Floats {
                        4
                    } else {
                        natural_ts(kind)
                    };
                    v.push(Case::new(
                        "large",
                        kind,
                        1_000_003,
                        Cp::new(codec, clevel, ts, f),
                    ));
                }
            }
            for &f in &[
                Filt::None,
                Filt::Shuffle,
                Filt::Bitshuffle,
                Filt::DeltaShuffle,
            ] {
                v.push(Case::new(
                    "large",
                    kind,
                    4 * MIB,
                    Cp::new(codec, 5, natural_ts(kind), f),
                ));
            }
        }
    }

    // C. split modes
    for &mode in &[ALWAYS_SPLIT, NEVER_SPLIT, AUTO_SPLIT, FORWARD_COMPAT_SPLIT] {
        for &codec in &CODECS {
            for &f in &[Filt::None, Filt::Shuffle] {
                let mut cp = Cp::new(codec, 5, 4, f);
                cp.splitmode = mode;
                v.push(Case::new("split", Kind::Floats, 1_000_003, cp));
                for &clevel in &[1u8, 9] {
                    let mut cp = Cp::new(codec, clevel, 8, f);
                    cp.splitmode = mode;
                    v.push(Case::new("split", Kind::Ramp, 100_000, cp));
                }
            }
        }
    }

    // D. two threads (compression and decompression)
    for &codec in &CODECS {
        for &(kind, size, f) in &[
            (Kind::Ramp, 1_000_003, Filt::Shuffle),
            (Kind::Floats, 1_000_003, Filt::Bitshuffle),
            (Kind::Ramp, 4 * MIB, Filt::DeltaShuffle),
            (Kind::Text, 4 * MIB, Filt::None),
            (Kind::Random, 1_000_003, Filt::Shuffle),
        ] {
            let ts = if kind == Kind::Text { 1 } else { 4 };
            let mut cp = Cp::new(codec, 5, ts, f);
            cp.nthreads = 2;
            v.push(Case::new("threads", kind, size, cp));
        }
    }

    // E. dictionaries
    for &codec in &[ZSTD, LZ4, LZ4HC] {
        for &clevel in &[1u8, 5, 9] {
            for &kind in &[Kind::Text, Kind::Ramp, Kind::Floats] {
                for &size in &[100_000usize, 1_000_003] {
                    let ts = if kind == Kind::Text { 1 } else { 4 };
                    let mut cp = Cp::new(codec, clevel, ts, Filt::Shuffle);
                    cp.use_dict = true;
                    v.push(Case::new("dict", kind, size, cp));
                }
            }
        }
    }

    // F. explicit blocksizes (some not a multiple of the typesize)
    for &codec in &[BLOSCLZ, LZ4, ZSTD] {
        for &(kind, size, ts) in &[
            (Kind::Ramp, 1_000_003usize, 4i32),
            (Kind::Floats, 100_000, 8),
        ] {
            for &bs in &[4096i32, 32768, 65536, 1 << 20, 2_000_000, 4099, 1001, 1000] {
                let mut cp = Cp::new(codec, 5, ts, Filt::Shuffle);
                cp.blocksize = bs;
                v.push(Case::new("blocksize", kind, size, cp));
            }
        }
    }
    v
}

/// Inputs for all cases, generated once and written to the scratch dir.
struct Inputs {
    map: HashMap<(Kind, usize, usize), (PathBuf, Vec<u8>)>,
}

impl Inputs {
    fn new(dir: &Path, keys: impl Iterator<Item = (Kind, usize, usize)>) -> Inputs {
        let mut map = HashMap::new();
        for key in keys {
            map.entry(key).or_insert_with(|| {
                let (kind, size, ts) = key;
                let data = gen_data(kind, size, ts);
                let path = dir.join(format!("in-{}-{size}-{ts}.bin", kind.name()));
                std::fs::write(&path, &data).expect("write input");
                (path, data)
            });
        }
        Inputs { map }
    }
    fn get(&self, key: (Kind, usize, usize)) -> (&Path, &[u8]) {
        let (p, d) = &self.map[&key];
        (p, d)
    }
}

fn run_case(t: &Tools, dir: &Path, idx: usize, case: &Case, inputs: &Inputs) -> CaseResult {
    let (inpath, input) = inputs.get(case.key());
    let mut res = CaseResult::default();
    let f = |suffix: &str| dir.join(format!("c{idx}-{suffix}"));
    let (rchunk, ochunk) = (f("r.chunk"), f("o.chunk"));
    let mut args = vec![s("compress")];
    args.extend(case.cp.args());
    let with = |out: &Path| {
        let mut a = args.clone();
        a.push(p(inpath));
        a.push(p(out));
        a
    };
    let r = run(&t.refb, &with(&rchunk));
    let o = run(&t.ours, &with(&ochunk));
    if !r.ok() {
        res.failures
            .push(format!("reference compress failed: {}", r.describe()));
    }
    if !o.ok() {
        res.failures
            .push(format!("ours compress failed: {}", o.describe()));
    }
    let dthreads = [s("--nthreads"), s(case.cp.nthreads)];
    let decomp = |bin: &Path, chunk: &Path, out: &Path| -> Result<Vec<u8>, String> {
        let mut a = vec![s("decompress")];
        a.extend(dthreads.iter().cloned());
        a.push(p(chunk));
        a.push(p(out));
        let x = run(bin, &a);
        if x.ok() {
            Ok(read(out))
        } else {
            Err(x.describe())
        }
    };
    let mut rbytes = Vec::new();
    let mut obytes = Vec::new();
    if r.ok() {
        rbytes = read(&rchunk);
        res.ref_cbytes = Some(rbytes.len());
    }
    if o.ok() {
        obytes = read(&ochunk);
        res.ours_cbytes = Some(obytes.len());
    }
    let bad = case.bad_blocksize();
    // with B2RS_INTEROP_OURS=ref, "ours" has the reference's blocksize bug
    if o.ok() && !(bad && common::ours_is_ref()) {
        // ref decodes ours; ours decodes its own
        let ro = decomp(&t.refb, &ochunk, &f("o.refdec"));
        let oo = decomp(&t.ours, &ochunk, &f("o.oursdec"));
        if case.lossy() {
            // trunc_prec is deterministic: all decodings agree, and with
            // the reference's own decoding of its own chunk
            let rr = if r.ok() {
                decomp(&t.refb, &rchunk, &f("r.refdec")).ok()
            } else {
                None
            };
            match (&oo, &rr) {
                (Ok(own), Some(refown)) => {
                    check(
                        &mut res.failures,
                        "ref decodes ours (lossy; vs ours decoding ours)",
                        ro,
                        own,
                    );
                    check(
                        &mut res.failures,
                        "ours decodes ours (lossy; vs ref decoding ref)",
                        Ok(own.clone()),
                        refown,
                    );
                }
                (Ok(own), None) => check(
                    &mut res.failures,
                    "ref decodes ours (lossy; vs ours decoding ours)",
                    ro,
                    own,
                ),
                (Err(e), _) => res.failures.push(format!("ours decodes ours: failed: {e}")),
            }
        } else {
            check(&mut res.failures, "ref decodes ours", ro, input);
            check(&mut res.failures, "ours decodes ours", oo, input);
        }
    }
    if r.ok() && !bad {
        let or = decomp(&t.ours, &rchunk, &f("r.oursdec"));
        if case.lossy() {
            let rr = decomp(&t.refb, &rchunk, &f("r.refdec2"));
            match rr {
                Ok(want) => {
                    if want.len() != input.len() {
                        res.failures
                            .push(format!("ref decodes ref (lossy): {} bytes", want.len()));
                    }
                    check(
                        &mut res.failures,
                        "ours decodes ref (lossy; vs ref decoding ref)",
                        or,
                        &want,
                    )
                }
                Err(e) => res
                    .failures
                    .push(format!("ref decodes ref (lossy): failed: {e}")),
            }
        } else {
            check(&mut res.failures, "ours decodes ref", or, input);
        }
    }
    if r.ok() && o.ok() {
        res.identical = rbytes == obytes;
        if !bad {
            if let Some(d) = header_diff(&rbytes, &obytes) {
                res.failures.push(d);
            }
            res.sized = true;
            if case.cp.nthreads > 1 {
                // only sizes the reference reproduces count
                let again = f("r2.chunk");
                let r2 = run(&t.refb, &with(&again));
                res.sized = r2.ok() && read(&again).len() == rbytes.len();
            }
        }
    }
    // free the disk space early (4 MiB cases)
    if let Ok(entries) = std::fs::read_dir(dir) {
        let prefix = format!("c{idx}-");
        for e in entries.flatten() {
            if e.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    res
}

/// Size statistics: per (codec, column) the geometric mean of ours/ref.
#[derive(Default)]
struct Cell {
    log_sum: f64,
    n: usize,
    identical: usize,
}

fn ratio_table(
    title: &str,
    rows: &[(String, String, usize, usize, bool)],
    columns: &[&str],
) -> (String, Vec<(String, String, f64)>) {
    // rows: (row label, column label, ref cbytes, ours cbytes, identical)
    let mut cells: BTreeMap<(String, String), Cell> = BTreeMap::new();
    let mut row_names: Vec<String> = Vec::new();
    for (rl, cl, r, o, same) in rows {
        if !row_names.contains(rl) {
            row_names.push(rl.clone());
        }
        let c = cells.entry((rl.clone(), cl.clone())).or_default();
        c.log_sum += (*o as f64 / *r as f64).ln();
        c.n += 1;
        c.identical += *same as usize;
    }
    let mut out = String::new();
    let _ = writeln!(out, "{title}");
    let _ = writeln!(
        out,
        "geometric mean of compressed size ours/ref  [cases, byte-identical chunks]"
    );
    let _ = write!(out, "{:<9}", "codec");
    for c in columns {
        let _ = write!(out, " | {c:>20}");
    }
    let _ = writeln!(out, " | {:>20}", "all");
    let mut geo = Vec::new();
    let mut tot = Cell::default();
    for rl in &row_names {
        let _ = write!(out, "{rl:<9}");
        let mut rowc = Cell::default();
        for c in columns {
            match cells.get(&(rl.clone(), c.to_string())) {
                Some(cell) if cell.n > 0 => {
                    let g = (cell.log_sum / cell.n as f64).exp();
                    geo.push((rl.clone(), c.to_string(), g));
                    let _ = write!(out, " | {:>7.4} [{:>4},{:>4}]", g, cell.n, cell.identical);
                    rowc.log_sum += cell.log_sum;
                    rowc.n += cell.n;
                    rowc.identical += cell.identical;
                }
                _ => {
                    let _ = write!(out, " | {:>20}", "-");
                }
            }
        }
        if rowc.n > 0 {
            let _ = writeln!(
                out,
                " | {:>7.4} [{:>4},{:>4}]",
                (rowc.log_sum / rowc.n as f64).exp(),
                rowc.n,
                rowc.identical
            );
        } else {
            let _ = writeln!(out, " | {:>20}", "-");
        }
        tot.log_sum += rowc.log_sum;
        tot.n += rowc.n;
        tot.identical += rowc.identical;
    }
    if tot.n > 0 {
        let _ = writeln!(
            out,
            "overall: {:.4} over {} cases, {} byte-identical",
            (tot.log_sum / tot.n as f64).exp(),
            tot.n,
            tot.identical
        );
    }
    (out, geo)
}

fn write_summary(name: &str, text: &str) {
    let path = common::profile_dir().join(format!("interop-{name}.txt"));
    let _ = std::fs::write(&path, text);
    eprintln!("(written to {})", path.display());
}

/// The 2 % rule on sizes: every case ours <= 1.02 x ref, every table cell's
/// geometric mean within [0.98, 1.02].
fn size_failures(
    rows: &[(String, String, usize, usize, bool, String)],
    geo: &[(String, String, f64)],
) -> (Vec<String>, Vec<String>) {
    let mut fails = Vec::new();
    let mut notes = Vec::new();
    for (_, _, r, o, _, what) in rows {
        let ratio = *o as f64 / *r as f64;
        if ratio > 1.02 {
            fails.push(format!(
                "size: {what}: ours {o} vs ref {r} bytes ({:+.2} %)",
                (ratio - 1.0) * 100.0
            ));
        } else if ratio < 0.98 {
            notes.push(format!(
                "smaller: {what}: ours {o} vs ref {r} bytes ({:+.2} %)",
                (ratio - 1.0) * 100.0
            ));
        }
    }
    for (rl, cl, g) in geo {
        if !(0.98..=1.02).contains(g) {
            fails.push(format!(
                "size: mean ratio for {rl} x {cl} is {g:.4}, not within 2 % of the reference"
            ));
        }
    }
    (fails, notes)
}

fn report(test: &str, fails: &[String], notes: &[String], ncases: usize, started: Instant) {
    for n in notes.iter().take(40) {
        eprintln!("note: {n}");
    }
    if notes.len() > 40 {
        eprintln!("note: ... {} more", notes.len() - 40);
    }
    for f in fails.iter().take(300) {
        eprintln!("CASE FAILED: {f}");
    }
    if fails.len() > 300 {
        eprintln!("CASE FAILED: ... {} more", fails.len() - 300);
    }
    eprintln!(
        "{test}: {ncases} cases, {} failures, {:.1}s",
        fails.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        fails.is_empty(),
        "{test}: {} failures (see above)",
        fails.len()
    );
}

// ---------------------------------------------------------------------------
// tests

#[test]
fn roundtrip_matrix() {
    let Some((scratch, t)) = setup("roundtrip_matrix") else {
        return;
    };
    let started = Instant::now();
    let cases = generate_cases();
    let inputs = Inputs::new(&scratch.dir, cases.iter().map(|c| c.key()));
    eprintln!(
        "roundtrip_matrix: {} cases on {} workers",
        cases.len(),
        common::workers()
    );
    let results = common::par_map(&cases, |i, c| run_case(&t, &scratch.dir, i, c, &inputs));

    let mut fails = Vec::new();
    let mut rows = Vec::new();
    let mut size_rows = Vec::new();
    // group -> (cases, failing cases, chunks not byte-identical)
    let mut by_group: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    for (c, r) in cases.iter().zip(&results) {
        let g = by_group.entry(c.group).or_default();
        g.0 += 1;
        if !r.failures.is_empty() {
            g.1 += 1;
        }
        for f in &r.failures {
            fails.push(format!("{}: {f}", c.describe()));
        }
        if r.ref_cbytes.is_some() && r.ours_cbytes.is_some() && !r.identical {
            g.2 += 1;
            if std::env::var_os("B2RS_INTEROP_VERBOSE").is_some() {
                eprintln!("not byte-identical: {}", c.describe());
            }
        }
        if let (true, Some(rc), Some(oc)) = (r.sized, r.ref_cbytes, r.ours_cbytes) {
            let row = (
                codec_name(c.cp.codec).to_string(),
                c.cp.filt.label().to_string(),
                rc,
                oc,
                r.identical,
            );
            rows.push(row.clone());
            size_rows.push((row.0, row.1, rc, oc, r.identical, c.describe()));
        }
    }
    let cols: Vec<&str> = ALL_FILTS.iter().map(|f| f.label()).collect();
    let (table, geo) = ratio_table(
        "interop roundtrip_matrix: ours vs reference C-Blosc2 3.3.5",
        &rows,
        &cols,
    );
    let mut summary = table.clone();
    let _ = writeln!(
        summary,
        "per group: (cases, failing, chunks not byte-identical to the reference's)"
    );
    for (g, (n, f, d)) in &by_group {
        let _ = writeln!(summary, "  {g:<10} {n:>5} {f:>5} {d:>5}");
    }
    eprintln!("{summary}");
    write_summary("summary", &summary);
    let (sf, notes) = size_failures(&size_rows, &geo);
    fails.extend(sf);
    report("roundtrip_matrix", &fails, &notes, cases.len(), started);
}

/// The plugin filters C-Blosc2 registers itself (FILTERS.md §7-8): bytedelta
/// (35) and the legacy bytedelta (34) after a shuffle, int_trunc (36), in
/// both directions through `run_case` (int_trunc is lossy: every decoding
/// must equal the reference's decoding of its own chunk).  Sizes are
/// multiples of the typesize for 34 (C-Blosc2 leaves its trailing bytes
/// undefined) and also odd for 35.
#[test]
fn plugin_filters() {
    let Some((scratch, t)) = setup("plugin_filters") else {
        return;
    };
    let started = Instant::now();
    let mut cases = Vec::new();
    for &codec in &[ZSTD, LZ4, BLOSCLZ] {
        for &ts in &[1i32, 2, 4, 8] {
            for &f in &[Filt::ByteDelta, Filt::ByteDeltaBuggy] {
                for &(kind, size) in &[
                    (Kind::Ramp, 400_000usize),
                    (Kind::Floats, 1_000_000),
                    (Kind::Random, 100_000),
                    (Kind::Text, 65_536),
                ] {
                    v_push_plugin(&mut cases, kind, size, Cp::new(codec, 5, ts, f));
                }
                if f == Filt::ByteDelta {
                    // a last block whose length is not a multiple of the plane count
                    v_push_plugin(&mut cases, Kind::Floats, 100_003, Cp::new(codec, 5, ts, f));
                }
                let mut cp = Cp::new(codec, 9, ts, f);
                cp.nthreads = 2;
                v_push_plugin(&mut cases, Kind::Floats, 4 * MIB, cp);
            }
            let bits = 8 * ts as i8;
            let mut precs = vec![1, bits / 2, bits - 1, bits, -1, -(bits / 2), -(bits - 1)];
            precs.dedup();
            for p in precs {
                for &kind in &[Kind::Ramp, Kind::Random] {
                    let cp = Cp::new(codec, 5, ts, Filt::IntTrunc(p));
                    v_push_plugin(&mut cases, kind, 200_000, cp);
                }
            }
            let mut cp = Cp::new(codec, 5, ts, Filt::IntTrunc(bits / 2));
            cp.nthreads = 2;
            v_push_plugin(&mut cases, Kind::Floats, 4 * MIB, cp);
        }
    }
    let inputs = Inputs::new(&scratch.dir, cases.iter().map(|c| c.key()));
    eprintln!(
        "plugin_filters: {} cases on {} workers",
        cases.len(),
        common::workers()
    );
    let results = common::par_map(&cases, |i, c| run_case(&t, &scratch.dir, i, c, &inputs));

    let mut fails = Vec::new();
    let mut rows = Vec::new();
    let mut size_rows = Vec::new();
    // (filter, typesize) -> (cases, failing, byte-identical chunks)
    let mut matrix: BTreeMap<(&str, i32), (usize, usize, usize)> = BTreeMap::new();
    for (c, r) in cases.iter().zip(&results) {
        let m = matrix
            .entry((c.cp.filt.label(), c.cp.typesize))
            .or_default();
        m.0 += 1;
        m.1 += !r.failures.is_empty() as usize;
        m.2 += r.identical as usize;
        if !r.identical && std::env::var_os("B2RS_INTEROP_VERBOSE").is_some() {
            eprintln!("not byte-identical: {}", c.describe());
        }
        for f in &r.failures {
            fails.push(format!("{}: {f}", c.describe()));
        }
        if let (true, Some(rc), Some(oc)) = (r.sized, r.ref_cbytes, r.ours_cbytes) {
            let row = (
                codec_name(c.cp.codec).to_string(),
                c.cp.filt.label().to_string(),
                rc,
                oc,
                r.identical,
            );
            rows.push(row.clone());
            size_rows.push((row.0, row.1, rc, oc, r.identical, c.describe()));
        }
    }
    let (table, geo) = ratio_table(
        "interop plugin_filters: ours vs reference C-Blosc2 3.3.5",
        &rows,
        &["bytedelta", "bytedelta_buggy", "int_trunc"],
    );
    let mut summary = table;
    let _ = writeln!(
        summary,
        "per filter and typesize: cases, failing, chunks byte-identical to the reference's"
    );
    for ((f, ts), (n, bad, same)) in &matrix {
        let _ = writeln!(summary, "  {f:<16} ts={ts:<2} {n:>4} {bad:>4} {same:>4}");
    }
    eprintln!("{summary}");
    write_summary("plugin-filters", &summary);
    let (sf, notes) = size_failures(&size_rows, &geo);
    fails.extend(sf);
    report("plugin_filters", &fails, &notes, cases.len(), started);
}

fn v_push_plugin(v: &mut Vec<Case>, kind: Kind, size: usize, cp: Cp) {
    // whole elements only, so that the legacy filter's output is defined
    let size = if cp.filt == Filt::ByteDeltaBuggy {
        size - size % cp.typesize as usize
    } else {
        size
    };
    v.push(Case::new("plugins", kind, size, cp));
}

#[test]
fn getitem_ranges() {
    let Some((scratch, t)) = setup("getitem_ranges") else {
        return;
    };
    let started = Instant::now();
    let dir = &scratch.dir;
    let mut fails = Vec::new();
    let configs: Vec<(Kind, usize, Cp)> = vec![
        (Kind::Ramp, 1_000_003, Cp::new(BLOSCLZ, 5, 4, Filt::Shuffle)),
        (Kind::Ramp, 1_000_000, Cp::new(LZ4, 9, 4, Filt::Bitshuffle)),
        (Kind::Floats, 800_000, Cp::new(ZSTD, 1, 8, Filt::None)),
        (Kind::Ramp, 4 * MIB, Cp::new(ZLIB, 5, 4, Filt::DeltaShuffle)),
        (Kind::Ramp, 100_000, Cp::new(LZ4HC, 0, 4, Filt::Shuffle)), // memcpyed
        (Kind::Random, 100_000, Cp::new(LZ4, 5, 4, Filt::Shuffle)), // memcpy fallback
        (Kind::Ramp, 300_000, Cp::new(BLOSCLZ, 9, 3, Filt::Shuffle)),
        (Kind::Text, 500_001, Cp::new(ZSTD, 9, 1, Filt::None)),
        (
            Kind::Ramp,
            16 * 40_000,
            Cp::new(LZ4, 5, 16, Filt::Bitshuffle),
        ),
        (
            Kind::Ramp,
            1_000_000,
            Cp {
                splitmode: NEVER_SPLIT,
                ..Cp::new(BLOSCLZ, 5, 4, Filt::Shuffle)
            },
        ),
        (
            Kind::Ramp,
            1_000_000,
            Cp {
                blocksize: 65536,
                ..Cp::new(LZ4, 5, 8, Filt::Shuffle)
            },
        ),
        (Kind::Ramp, 0, Cp::new(LZ4, 5, 4, Filt::Shuffle)),
    ];
    let mut ncases = 0;
    for (ci, (kind, size, cp)) in configs.iter().enumerate() {
        let data = gen_data(*kind, *size, cp.typesize as usize);
        let inp = dir.join(format!("g{ci}.in"));
        std::fs::write(&inp, &data).unwrap();
        let ts = cp.typesize as usize;
        let delta = cp.filt == Filt::DeltaShuffle;
        let what = format!("{} {}B {}", kind.name(), size, cp.describe());
        let mut chunks = Vec::new();
        for (side, bin) in [("ref", &t.refb), ("ours", &t.ours)] {
            let chunk = dir.join(format!("g{ci}-{side}.chunk"));
            let mut a = vec![s("compress")];
            a.extend(cp.args());
            a.push(p(&inp));
            a.push(p(&chunk));
            let o = run(bin, &a);
            if !o.ok() {
                fails.push(format!("{what}: {side} compress failed: {}", o.describe()));
                continue;
            }
            chunks.push((side, chunk));
        }
        let hdr = chunks.first().map(|(_, c)| read(c)).unwrap_or_default();
        let blocksize = if hdr.len() >= 12 {
            le32(&hdr, 8).max(1) as usize
        } else {
            1
        };
        let nitems = size / ts;
        let bitems = (blocksize / ts).max(1);
        let mut ranges: Vec<(usize, usize)> = vec![(0, nitems.min(1)), (0, nitems)];
        if nitems > 0 {
            ranges.push((nitems - 1, 1));
            ranges.push((nitems / 2, (nitems - nitems / 2).min(10_000)));
        }
        if nitems > bitems + 1 {
            ranges.push((bitems - 1, 2)); // crosses the first block boundary
            ranges.push((bitems, 1)); // first item of block 1
            ranges.push((bitems + 3, (nitems - bitems - 3).min(3 * bitems))); // several blocks
        }
        for (side, chunk) in &chunks {
            for (ri, &(start, n)) in ranges.iter().enumerate() {
                ncases += 1;
                let want = &data[start * ts..(start + n) * ts];
                for (reader, bin) in [("ours", &t.ours), ("ref", &t.refb)] {
                    // C-Blosc2 3.3.5's getitem is wrong for delta chunks
                    // (CHUNK.md §12): only ours is checked there.
                    if (reader == "ref" || common::ours_is_ref()) && delta {
                        continue;
                    }
                    let out = dir.join(format!("g{ci}-{side}-{reader}-{ri}.out"));
                    let o = run(bin, &[s("getitem"), s(start), s(n), p(chunk), p(&out)]);
                    let label = format!("{what}: {reader} getitem({start},{n}) on {side}'s chunk");
                    if !o.ok() {
                        fails.push(format!("{label}: failed: {}", o.describe()));
                    } else if let Some(d) = diff(&label, &read(&out), want) {
                        fails.push(d);
                    }
                    let _ = std::fs::remove_file(&out);
                }
            }
            // out of range: both must refuse
            ncases += 1;
            let out = dir.join(format!("g{ci}-{side}-oob.out"));
            let args = [s("getitem"), s(nitems), s(1), p(chunk), p(&out)];
            let (ro, oo) = (run(&t.refb, &args), run(&t.ours, &args));
            if ro.ok() != oo.ok() {
                fails.push(format!(
                    "{what}: getitem({nitems},1) past the end on {side}'s chunk: ref {}, ours {}",
                    ro.describe(),
                    oo.describe()
                ));
            }
        }
    }
    report("getitem_ranges", &fails, &[], ncases, started);
}

#[test]
fn special_chunks() {
    let Some((scratch, t)) = setup("special_chunks") else {
        return;
    };
    let started = Instant::now();
    let dir = &scratch.dir;
    let mut fails = Vec::new();
    let mut ncases = 0;
    let extra: [&[&str]; 3] = [
        &[],
        &["--codec", "5", "--clevel", "9"],
        &["--codec", "1", "--clevel", "1", "--filters", "0,0,0,0,0,2"],
    ];
    for kind in ["zeros", "nans", "uninit", "repeatval"] {
        for &ts in &[1usize, 2, 4, 8, 3, 16] {
            for &nitems in &[0usize, 1, 1000, 250_000] {
                for (xi, x) in extra.iter().enumerate() {
                    ncases += 1;
                    let nbytes = nitems * ts;
                    let what = format!("special {kind} nbytes={nbytes} ts={ts} opts={x:?}");
                    let mut chunks = Vec::new();
                    let mut oks = Vec::new();
                    for (side, bin) in [("ref", &t.refb), ("ours", &t.ours)] {
                        let chunk = dir.join(format!("s-{kind}-{ts}-{nitems}-{xi}-{side}.chunk"));
                        let mut a = vec![s("special")];
                        a.extend(x.iter().map(|v| v.to_string()));
                        a.extend([s(kind), s(nbytes), s(ts), p(&chunk)]);
                        let o = run(bin, &a);
                        oks.push((side, o.clone()));
                        if o.ok() {
                            chunks.push((side, chunk));
                        }
                    }
                    let (rok, ook) = (oks[0].1.ok(), oks[1].1.ok());
                    if rok != ook {
                        fails.push(format!(
                            "{what}: ref {} but ours {}",
                            oks[0].1.describe(),
                            oks[1].1.describe()
                        ));
                        continue;
                    }
                    if !rok {
                        continue; // both refuse (e.g. NaNs of typesize 3)
                    }
                    let (rb, ob) = (read(&chunks[0].1), read(&chunks[1].1));
                    if let Some(d) = diff(&format!("{what}: chunk bytes (ours vs ref)"), &ob, &rb) {
                        fails.push(d);
                    }
                    let expect: Option<Vec<u8>> = match kind {
                        "zeros" => Some(vec![0u8; nbytes]),
                        "nans" => Some(match ts {
                            4 => f32::NAN.to_bits().to_le_bytes().repeat(nitems),
                            _ => 0x7FF8_0000_0000_0000u64.to_le_bytes().repeat(nitems),
                        }),
                        "repeatval" => {
                            let val: Vec<u8> = (0..ts).map(|j| (0x11 * (j + 1)) as u8).collect();
                            Some(val.repeat(nitems))
                        }
                        _ => None, // uninit: contents undefined
                    };
                    // NaN chunks exist only for typesize 4 and 8: C-Blosc2 writes
                    // them for any typesize but refuses to decode them (CHUNK.md §5).
                    let must_refuse = kind == "nans" && ts != 4 && ts != 8 && nbytes > 0;
                    // C-Blosc2 3.3.5 cannot read some special chunks it writes
                    // (nbytes 0): ours may read them or refuse cleanly.
                    let ref_self = run(
                        &t.refb,
                        &[
                            s("decompress"),
                            p(&chunks[0].1),
                            p(&dir.join("s-selfcheck.out")),
                        ],
                    );
                    let _ = std::fs::remove_file(dir.join("s-selfcheck.out"));
                    for (side, chunk) in &chunks {
                        for (reader, bin) in [("ours", &t.ours), ("ref", &t.refb)] {
                            let out = dir
                                .join(format!("s-{kind}-{ts}-{nitems}-{xi}-{side}-{reader}.out"));
                            let o = run(bin, &[s("decompress"), p(chunk), p(&out)]);
                            let label = format!("{what}: {reader} decodes {side}'s chunk");
                            if must_refuse {
                                if o.ok() || o.code != Some(1) {
                                    fails.push(format!("{label}: must fail cleanly (NaNs need typesize 4 or 8): {}", o.describe()));
                                }
                                continue;
                            }
                            if !ref_self.ok() && !o.ok() {
                                if o.code != Some(1) {
                                    fails.push(format!(
                                        "{label}: did not fail cleanly: {}",
                                        o.describe()
                                    ));
                                }
                                continue;
                            }
                            if !o.ok() {
                                fails.push(format!("{label}: failed: {}", o.describe()));
                                continue;
                            }
                            let got = read(&out);
                            match &expect {
                                Some(want) => {
                                    if let Some(d) = diff(&label, &got, want) {
                                        fails.push(d);
                                    }
                                }
                                None => {
                                    if got.len() != nbytes {
                                        fails.push(format!(
                                            "{label}: {} bytes, want {nbytes}",
                                            got.len()
                                        ));
                                    }
                                }
                            }
                            let _ = std::fs::remove_file(&out);
                            // a getitem in the middle
                            if nitems >= 1000 && kind != "uninit" {
                                let out = dir.join(format!(
                                    "s-{kind}-{ts}-{nitems}-{xi}-{side}-{reader}.gi"
                                ));
                                let o = run(
                                    bin,
                                    &[s("getitem"), s(nitems / 3), s(7), p(chunk), p(&out)],
                                );
                                if !o.ok() {
                                    fails
                                        .push(format!("{label}: getitem failed: {}", o.describe()));
                                } else if let Some(want) = &expect {
                                    let w = &want[nitems / 3 * ts..(nitems / 3 + 7) * ts];
                                    if let Some(d) =
                                        diff(&format!("{label}: getitem"), &read(&out), w)
                                    {
                                        fails.push(d);
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    // repeatval with nbytes not a multiple of the typesize: both must agree
    for (kind, nbytes, ts) in [
        ("repeatval", 1001usize, 4usize),
        ("nans", 1001, 8),
        ("zeros", 1001, 4),
    ] {
        ncases += 1;
        let r = run(
            &t.refb,
            &[
                s("special"),
                s(kind),
                s(nbytes),
                s(ts),
                p(&dir.join("odd-r")),
            ],
        );
        let o = run(
            &t.ours,
            &[
                s("special"),
                s(kind),
                s(nbytes),
                s(ts),
                p(&dir.join("odd-o")),
            ],
        );
        if r.ok() != o.ok() {
            fails.push(format!(
                "special {kind} nbytes={nbytes} ts={ts}: ref {} but ours {}",
                r.describe(),
                o.describe()
            ));
        } else if r.ok() {
            if let Some(d) = diff(
                &format!("special {kind} nbytes={nbytes} ts={ts}"),
                &read(&dir.join("odd-o")),
                &read(&dir.join("odd-r")),
            ) {
                fails.push(d);
            }
        }
    }
    report("special_chunks", &fails, &[], ncases, started);
}

#[test]
fn vlblock_chunks() {
    let Some((scratch, t)) = setup("vlblock_chunks") else {
        return;
    };
    let started = Instant::now();
    let dir = &scratch.dir;
    let mut fails = Vec::new();
    let block_sets: Vec<(&str, Vec<(Kind, usize)>)> = vec![
        ("4x500 text", vec![(Kind::Text, 500); 4]),
        (
            "mixed",
            vec![
                (Kind::Ramp, 1),
                (Kind::Text, 31),
                (Kind::Floats, 32),
                (Kind::Random, 1000),
                (Kind::Ramp, 100_000),
            ],
        ),
        ("3x64K ramp", vec![(Kind::Ramp, 65536); 3]),
        ("1x1M floats", vec![(Kind::Floats, 1_000_000)]),
        (
            "20 small",
            (0..20)
                .map(|i| {
                    (
                        if i % 2 == 0 { Kind::Text } else { Kind::Ramp },
                        100 + 37 * i,
                    )
                })
                .collect(),
        ),
    ];
    struct VlCase {
        set: usize,
        cp: Cp,
    }
    let mut cases = Vec::new();
    for set in 0..block_sets.len() {
        for &codec in &CODECS {
            for &clevel in &[1u8, 5, 9] {
                for &(f, ts) in &[(Filt::None, 1), (Filt::Shuffle, 4)] {
                    cases.push(VlCase {
                        set,
                        cp: Cp::new(codec, clevel, ts, f),
                    });
                }
            }
            if codec == ZSTD || codec == LZ4 || codec == LZ4HC {
                cases.push(VlCase {
                    set,
                    cp: Cp {
                        use_dict: true,
                        ..Cp::new(codec, 5, 1, Filt::None)
                    },
                });
            }
        }
    }
    // block files
    let mut blocks: Vec<Vec<(PathBuf, Vec<u8>)>> = Vec::new();
    for (si, (_, set)) in block_sets.iter().enumerate() {
        let mut v = Vec::new();
        for (bi, &(kind, size)) in set.iter().enumerate() {
            let mut data = gen_data(kind, size + bi, 4);
            data.truncate(size);
            let path = dir.join(format!("vl{si}-b{bi}.in"));
            std::fs::write(&path, &data).unwrap();
            v.push((path, data));
        }
        blocks.push(v);
    }
    let results = common::par_map(&cases, |ci, c| {
        let mut fails = Vec::new();
        let bl = &blocks[c.set];
        let what = format!("vl '{}' {}", block_sets[c.set].0, c.cp.describe());
        let concat: Vec<u8> = bl.iter().flat_map(|(_, d)| d.iter().copied()).collect();
        let mut sizes = (None, None);
        let mut chunks = Vec::new();
        for (side, bin) in [("ref", &t.refb), ("ours", &t.ours)] {
            let chunk = dir.join(format!("v{ci}-{side}.chunk"));
            let mut a = vec![s("vlcompress")];
            a.extend(c.cp.args());
            a.push(p(&chunk));
            a.extend(bl.iter().map(|(path, _)| p(path)));
            let o = run(bin, &a);
            if !o.ok() {
                fails.push(format!(
                    "{what}: {side} vlcompress failed: {}",
                    o.describe()
                ));
                continue;
            }
            let n = read(&chunk).len();
            if side == "ref" {
                sizes.0 = Some(n);
            } else {
                sizes.1 = Some(n);
            }
            chunks.push((side, chunk));
        }
        let mut identical = false;
        if chunks.len() == 2 {
            let (rb, ob) = (read(&chunks[0].1), read(&chunks[1].1));
            identical = rb == ob;
            if let Some(d) = header_diff(&rb, &ob) {
                fails.push(format!("{what}: {d}"));
            }
        }
        for (side, chunk) in &chunks {
            for (reader, bin) in [("ours", &t.ours), ("ref", &t.refb)] {
                let label = format!("{what}: {reader} decodes {side}'s chunk");
                let out = dir.join(format!("v{ci}-{side}-{reader}"));
                let o = run(bin, &[s("vldecompress"), p(chunk), p(&out)]);
                if !o.ok() {
                    fails.push(format!("{label} (vldecompress): failed: {}", o.describe()));
                } else {
                    for (bi, (_, want)) in bl.iter().enumerate() {
                        let part = PathBuf::from(format!("{}.{bi}", out.display()));
                        if let Some(d) = diff(
                            &format!("{label} (vldecompress block {bi})"),
                            &read(&part),
                            want,
                        ) {
                            fails.push(d);
                        }
                        let _ = std::fs::remove_file(&part);
                    }
                    let extra = PathBuf::from(format!("{}.{}", out.display(), bl.len()));
                    if extra.exists() {
                        fails.push(format!("{label}: more blocks than were compressed"));
                    }
                }
                let o = run(bin, &[s("decompress"), p(chunk), p(&out)]);
                if !o.ok() {
                    fails.push(format!(
                        "{label} (plain decompress): failed: {}",
                        o.describe()
                    ));
                } else if let Some(d) =
                    diff(&format!("{label} (plain decompress)"), &read(&out), &concat)
                {
                    fails.push(d);
                }
                let _ = std::fs::remove_file(&out);
            }
            // getitem is not defined on VL-block chunks: both must refuse
            let gi = dir.join(format!("v{ci}-{side}.gi"));
            let args = [s("getitem"), s(0), s(1), p(chunk), p(&gi)];
            let (ro, oo) = (run(&t.refb, &args), run(&t.ours, &args));
            if ro.ok() != oo.ok() {
                fails.push(format!(
                    "{what}: getitem on {side}'s VL chunk: ref {}, ours {}",
                    ro.describe(),
                    oo.describe()
                ));
            }
        }
        (fails, sizes, identical, what)
    });
    let mut rows = Vec::new();
    let mut size_rows = Vec::new();
    for (c, (f, sizes, identical, what)) in cases.iter().zip(results) {
        fails.extend(f);
        if let (Some(r), Some(o)) = sizes {
            let col = if c.cp.use_dict {
                "vl-dict".to_string()
            } else {
                format!("vl-{}", c.cp.filt.label())
            };
            rows.push((
                codec_name(c.cp.codec).to_string(),
                col.clone(),
                r,
                o,
                identical,
            ));
            size_rows.push((
                codec_name(c.cp.codec).to_string(),
                col,
                r,
                o,
                identical,
                what,
            ));
        }
    }
    let (table, geo) = ratio_table(
        "interop vlblock_chunks",
        &rows,
        &["vl-none", "vl-shuffle", "vl-dict"],
    );
    eprintln!("{table}");
    write_summary("vlblocks", &table);
    let (sf, notes) = size_failures(&size_rows, &geo);
    fails.extend(sf);
    report("vlblock_chunks", &fails, &notes, cases.len(), started);
}

/// What a compat file must decode to (hashes from shared/testdata/README.md).
enum Expect {
    /// not a chunk (raw filter output): only the file hash is checked
    NotAChunk,
    /// the whole decoded content
    Full(&'static str),
    /// only the first `n` bytes are defined; optionally the full output too
    Prefix(usize, &'static str, Option<&'static str>),
}

const COUNT32: &str = "02e21fa3c89fa7d7b61826918a8bd35d3127827b4ef3f3ee47ade5e64e3c2a80";
const COUNT32_SHORT: &str = "883be4b908729934db91cbf0324b10144692f57105f5d7ec09c57e3863b12f30";
const COUNT32_SHORT_PLUS1: &str =
    "395a955b701fde14e8fcd36ffa151eeb7de604a17e9f5bac7d240d4050b80599";

fn compat_table() -> Vec<(&'static str, &'static str, Expect)> {
    use Expect::*;
    vec![
        (
            "blosc-1.3.0-blosclz.cdata",
            "7c944ce004a68e44a90bcb8d40ad0b9b582adc5fee75b4481aa3715ac4d7c3dc",
            Full(COUNT32),
        ),
        (
            "blosc-1.3.0-lz4.cdata",
            "238d80be2e17384ad4dad635dc4661e81cbd3630ebcfe08fedcf639ecaf76bb2",
            Full(COUNT32),
        ),
        (
            "blosc-1.3.0-lz4hc.cdata",
            "a9caaefdba21271ffdfc6ba02032df8d446794e712cbcb4098d1a178890016f6",
            Full(COUNT32),
        ),
        (
            "blosc-1.3.0-zlib.cdata",
            "efa0eacfc7e78564395ac68847194b23f9d9efedda38302a66db68f07c435b8c",
            Full(COUNT32),
        ),
        (
            "blosc-1.7.0-blosclz.cdata",
            "b0999593519aa818f3b7ac8e59bc362259cd5712a3a5e7704fe696b48da335c7",
            Full(COUNT32),
        ),
        (
            "blosc-1.7.0-lz4.cdata",
            "238d80be2e17384ad4dad635dc4661e81cbd3630ebcfe08fedcf639ecaf76bb2",
            Full(COUNT32),
        ),
        (
            "blosc-1.7.0-lz4hc.cdata",
            "a9caaefdba21271ffdfc6ba02032df8d446794e712cbcb4098d1a178890016f6",
            Full(COUNT32),
        ),
        (
            "blosc-1.7.0-zlib.cdata",
            "efa0eacfc7e78564395ac68847194b23f9d9efedda38302a66db68f07c435b8c",
            Full(COUNT32),
        ),
        (
            "blosc-1.11.1-blosclz.cdata",
            "80aee584bf6d18c1dbcaa0e507d3123c54a13de84daacf831232f8d1157a6200",
            Full(COUNT32),
        ),
        (
            "blosc-1.11.1-lz4.cdata",
            "fa462d6352f616b9ff3631ac3a6b9a1c5cc66ebd5d3b1deaad5f90b6de2b53a7",
            Full(COUNT32),
        ),
        (
            "blosc-1.11.1-lz4hc.cdata",
            "2b8cdc87ba74fb42dadd6275cd140bddcf91225463d88d3a61f6df337aa543a3",
            Full(COUNT32),
        ),
        (
            "blosc-1.11.1-zlib.cdata",
            "53815cf8c096d6ad2641eed326b94a99de5aae841b4dbc9127c78f3724d1d1a8",
            Full(COUNT32),
        ),
        (
            "blosc-1.11.1-zstd.cdata",
            "974f291f221bef856afacfe7ccf055218bc3e7c6780ecbbeb4c4cc3ac0f0d067",
            Full(COUNT32),
        ),
        (
            "blosc-1.14.0-blosclz.cdata",
            "c1c3d3ee95c1f11cc242939834ee01b14e0226c5e9e63616d4d1b8e307f3fd0a",
            Full(COUNT32),
        ),
        (
            "blosc-1.14.0-lz4.cdata",
            "238d80be2e17384ad4dad635dc4661e81cbd3630ebcfe08fedcf639ecaf76bb2",
            Full(COUNT32),
        ),
        (
            "blosc-1.14.0-lz4hc.cdata",
            "a51e058641afd7c84226ec93b279e1243e789a56705af015df705606e9bdb3b4",
            Full(COUNT32),
        ),
        (
            "blosc-1.14.0-zlib.cdata",
            "107fca5d49fc04c653ef106b61eee5f14f5bfbf85c517c53d6bf77f2cb5092c5",
            Full(COUNT32),
        ),
        (
            "blosc-1.14.0-zstd.cdata",
            "974f291f221bef856afacfe7ccf055218bc3e7c6780ecbbeb4c4cc3ac0f0d067",
            Full(COUNT32),
        ),
        (
            "blosc-1.17.1-lz4-bitshuffle4-memcpy.cdata",
            "7cc7a5e37461ffe913e7c0fb502bcf9b9a82d6c479c5a8f7d4a17b1e625a4c79",
            Prefix(641_088, COUNT32_SHORT, None),
        ),
        (
            "blosc-1.17.1-lz4-bitshuffle8-nomemcpy.cdata",
            "dd3ff0cbcabd072a8d2e55ee4f217a3ae514143133883019f9c8474b19333277",
            Prefix(641_088, COUNT32_SHORT, None),
        ),
        (
            "blosc-1.18.0-lz4-bitshuffle4-memcpy.cdata",
            "52abc1fd318b0681a3d7ae7743f83c04eb62b34e42fde079b88cc6f1b5dbc76b",
            Prefix(641_088, COUNT32_SHORT, None),
        ),
        (
            "blosc-1.18.0-lz4-bitshuffle8-nomemcpy.cdata",
            "e92f28c01e16476a520a4468af06f238e9beb33fb3dea3353a726ce768eefbd9",
            Prefix(641_088, COUNT32_SHORT, None),
        ),
        (
            "blosc-2.0.0-lz4-bitshuffle4-memcpy.cdata",
            "69d593b4824e3e9b15459f5911c0682ec1d73c66f21db81fcc4124c9274129c5",
            Prefix(641_088, COUNT32_SHORT, Some(COUNT32_SHORT_PLUS1)),
        ),
        (
            "blosc-2.0.0-lz4-bitshuffle8-nomemcpy.cdata",
            "12f132538db50b29c518ae9f5f86e2b89a48d90063a3a9ab995c138563161e3d",
            Prefix(641_088, COUNT32_SHORT, Some(COUNT32_SHORT_PLUS1)),
        ),
        (
            "blosc-blosclz-3.0.0.cdata",
            "f2f086e45bcfc4692d927eb9b2baf6e3d7d9b3f209f8e2525501f825526d063c",
            Full(COUNT32),
        ),
        (
            "blosc-lz4-3.0.0.cdata",
            "b5bbc42729649ce76b7d3755555867f24c60d605eb45cba2ff3eeb563aed8606",
            Full(COUNT32),
        ),
        (
            "blosc-zstd-3.0.0.cdata",
            "f4a35db4d99d800de6b29cc43d51825dbfba51ef37072e13e910f6e114bcb184",
            Full(COUNT32),
        ),
        (
            "shuffle-2.20.0.cdata",
            "40e1351bba9155c3d765d66b5b4d25cb104aa2ad4b844b0a5d20af40cab2b920",
            NotAChunk,
        ),
        (
            "bitshuffle-2.20.0.cdata",
            "a1bba6ced356ddca157010f340b8b5a39a5cd43a77b7c99cd1cb8896e853169d",
            NotAChunk,
        ),
    ]
}

#[test]
fn compat_cdata_decode() {
    let Some((scratch, t)) = setup("compat_cdata_decode") else {
        return;
    };
    let started = Instant::now();
    let Some(shared) = common::shared_dir() else {
        panic!("shared/testdata not found (expected ../shared beside the repository or B2RS_SHARED_DIR)");
    };
    let compat = shared.join("testdata/compat");
    let table = compat_table();
    let mut fails = Vec::new();
    // every .cdata file in the directory must be known to the table
    let mut on_disk: Vec<String> = std::fs::read_dir(&compat)
        .expect("read testdata/compat")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".cdata"))
        .collect();
    on_disk.sort();
    for n in &on_disk {
        if !table.iter().any(|(f, _, _)| f == n) {
            fails.push(format!(
                "{n}: not in the expectations table of tests/interop.rs"
            ));
        }
    }
    let mut ncases = 0;
    for (name, file_sha, expect) in &table {
        let path = compat.join(name);
        if !path.is_file() {
            fails.push(format!("{name}: missing from {}", compat.display()));
            continue;
        }
        let got = common::sha256_file(&path);
        if &got != file_sha {
            fails.push(format!("{name}: damaged copy (file SHA-256 {got})"));
            continue;
        }
        if matches!(expect, Expect::NotAChunk) {
            continue;
        }
        for (side, bin) in [("ref", &t.refb), ("ours", &t.ours)] {
            ncases += 1;
            let out = scratch.path(&format!("{name}.{side}.out"));
            let o = run(bin, &[s("decompress"), p(&path), p(&out)]);
            if !o.ok() {
                fails.push(format!(
                    "{name}: {side} decompress failed: {}",
                    o.describe()
                ));
                continue;
            }
            match expect {
                Expect::Full(h) => {
                    let got = common::sha256_file(&out);
                    if &got != h {
                        fails.push(format!("{name}: {side} decodes to SHA-256 {got}, want {h}"));
                    }
                }
                Expect::Prefix(n, h, full) => {
                    let data = read(&out);
                    let got = common::sha256_bytes(
                        &scratch,
                        &format!("{name}.{side}.prefix"),
                        &data[..(*n).min(data.len())],
                    );
                    if &got != h {
                        fails.push(format!("{name}: {side} decodes to a first {n} bytes with SHA-256 {got}, want {h}"));
                    }
                    if let Some(fh) = full {
                        let got = common::sha256_file(&out);
                        if &got != fh {
                            fails.push(format!(
                                "{name}: {side} full output SHA-256 {got}, want {fh}"
                            ));
                        }
                    }
                }
                Expect::NotAChunk => {}
            }
            // ours and the reference read the same header values
            let ri = run(&t.refb, &[s("info"), p(&path)]);
            let oi = run(&t.ours, &[s("info"), p(&path)]);
            if ri.stdout != oi.stdout || ri.ok() != oi.ok() {
                fails.push(format!(
                    "{name}: info differs: ref [{}] ours [{}]",
                    ri.describe(),
                    oi.describe()
                ));
            }
        }
    }
    report("compat_cdata_decode", &fails, &[], ncases, started);
}
