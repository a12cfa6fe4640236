//! `b2rs verify FILE [--json]`: decode every chunk; exit 1 naming the file and chunk on any
//! damage (`--json`: a report on stdout listing each problem with its chunk number).
//! A frame with chunk checksums (the `b2rs_crc32c` vlmetalayer written by `--checksum`) has
//! every chunk checked against its checksum too: damage that still decodes is found.

use crate::fail::{d, fail, Res};
use crate::input::{b2nd_layout, decode_chunk, input_len, open_input, Input};
use crate::json::{int, obj, s, Json};
use crate::opts::Opts;
use crate::progress::Progress;
use b2rs::frame::Frame;
use b2rs::schunk::{ChunkCheck, ChunkChecksums, CHECKSUMS_VLMETA};
use b2rs::DParams;
use std::path::Path;

/// One thing found wrong: the chunk it concerns (None: the file as a whole) and the message
/// (naming the file and the chunk).
pub(crate) struct Problem {
    chunk: Option<i64>,
    msg: String,
}

/// Problems found so far.
#[derive(Default)]
pub(crate) struct Problems(Vec<Problem>);

impl Problems {
    fn file(&mut self, msg: String) {
        self.0.push(Problem { chunk: None, msg });
    }
    fn chunk(&mut self, n: i64, msg: String) {
        self.0.push(Problem {
            chunk: Some(n),
            msg,
        });
    }
    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

pub(crate) fn verify(o: &Opts, path: &Path, as_json: bool) -> Res<u8> {
    let input = open_input(path)?;
    let mut bad = Problems::default();
    let mut checked_sums: Option<usize> = None;
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
                        bad.file(e.msg);
                        None
                    }
                },
                _ => None,
            };
            nchunks = f.nchunks();
            let sums = checksums(f, path, &mut bad);
            let mut buf = Vec::new();
            for n in 0..nchunks {
                if let Some(s) = &sums {
                    check_chunk(f, n, s, path, &mut bad);
                }
                match decode_chunk(f, n, &dp, &mut buf) {
                    Ok(()) => {
                        if let Some(w) = want {
                            if buf.len() != w {
                                bad.chunk(
                                    n,
                                    format!(
                                        "{}: chunk {n}: holds {} bytes, the b2nd array needs {w}",
                                        d(path),
                                        buf.len()
                                    ),
                                );
                            }
                        }
                        total += buf.len() as u64;
                        prog.add(buf.len() as u64);
                    }
                    Err(e) => bad.chunk(n, format!("{}: {e}", d(path))),
                }
            }
            if let (Some(s), true) = (&sums, bad.is_empty()) {
                let k = s.crcs().len().min(nchunks.max(0) as usize);
                checked_sums = Some(k);
                if !as_json {
                    println!("{}: {k} chunk checksums match", d(path));
                }
            }
            if bad.is_empty() && total != f.nbytes().max(0) as u64 {
                bad.file(format!(
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
                        Err(e) => bad.chunk(
                            i as i64,
                            format!("{}: chunk {i}: {}", d(path), strip_chunk(&e.to_string(), i)),
                        ),
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
                            bad.chunk(nchunks, format!("{}: {e}", d(path)));
                            break;
                        }
                    }
                }
            }
            if bad.is_empty() {
                if let Some(n) = h.nbytes() {
                    if n != total {
                        bad.file(format!(
                            "{}: the chunks hold {total} bytes, the header says {n}",
                            d(path)
                        ));
                    }
                }
            }
            prog.finish();
            return report(path, bad, nchunks, total, checked_sums, as_json);
        }
    }
    prog.finish();
    report(path, bad, nchunks, total, checked_sums, as_json)
}

/// The frame's chunk checksums, if it records them (an unreadable vlmetalayer is a problem).
fn checksums(f: &Frame, path: &Path, bad: &mut Problems) -> Option<ChunkChecksums> {
    let layer = f
        .vlmetalayers()
        .iter()
        .find(|m| m.name == CHECKSUMS_VLMETA)?;
    match ChunkChecksums::from_vlmetalayer(&layer.content) {
        Ok(s) => {
            let (n, k) = (f.nchunks(), s.crcs().len() as i64);
            if k < n {
                eprintln!(
                    "b2rs: note: {}: chunks {k}..{} have no checksum (added by a library that \
                     does not keep them)",
                    d(path),
                    n - 1
                );
            }
            Some(s)
        }
        Err(e) => {
            bad.file(format!(
                "{}: the chunk checksums ({CHECKSUMS_VLMETA}) cannot be read: {e}",
                d(path)
            ));
            None
        }
    }
}

/// Check the stored bytes of chunk `n` against its checksum.
fn check_chunk(f: &Frame, n: i64, sums: &ChunkChecksums, path: &Path, bad: &mut Problems) {
    // a chunk that cannot be read is reported by decoding it
    let Ok(c) = f.get_chunk(n) else {
        return;
    };
    if let ChunkCheck::Damaged { recorded, actual } = sums.check(n as usize, &c) {
        bad.chunk(
            n,
            format!(
                "{}: chunk {n}: does not match its checksum (recorded {recorded:#010x}, actual \
             {actual:#010x}): damaged, or changed by a library that does not keep checksums",
                d(path)
            ),
        );
    }
}

/// "chunk 3: chunk 3: x" → "chunk 3: x".
pub(crate) fn strip_chunk(msg: &str, i: u64) -> String {
    msg.strip_prefix(&format!("chunk {i}: "))
        .unwrap_or(msg)
        .to_string()
}

pub(crate) fn report(
    path: &Path,
    bad: Problems,
    nchunks: i64,
    total: u64,
    checksums: Option<usize>,
    as_json: bool,
) -> Res<u8> {
    if as_json {
        let problems: Vec<Json> = bad
            .0
            .iter()
            .map(|p| {
                obj(vec![
                    ("chunk".into(), p.chunk.map_or(Json::Null, int)),
                    ("problem".into(), s(p.msg.clone())),
                ])
            })
            .collect();
        let v = obj(vec![
            ("file".into(), s(d(path))),
            ("ok".into(), Json::Bool(bad.is_empty())),
            ("chunks".into(), int(nchunks)),
            ("bytes".into(), int(total)),
            (
                "checksums matched".into(),
                checksums.map_or(Json::Null, |k| int(k as i64)),
            ),
            ("problems".into(), Json::Array(problems)),
        ]);
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
    } else if bad.is_empty() {
        println!("{}: OK ({nchunks} chunks, {total} bytes)", d(path));
    }
    if bad.is_empty() {
        return Ok(0);
    }
    if !as_json {
        for b in &bad.0 {
            eprintln!("b2rs: {}", b.msg);
        }
    }
    let n = bad.0.len();
    fail(format!(
        "{}: damaged ({n} problem{})",
        d(path),
        if n == 1 { "" } else { "s" }
    ))
}
