//! Damaged frames: what C-Blosc2 3.3.5 and b2rs read from them, and what `b2rs salvage`
//! gives back.
//!
//! The reference writes 19 frames (`tests/c/salvage_sources.c`: contiguous frames in several
//! storage kinds and codecs, b2nd arrays); [`damages`] makes the damaged copies of each (cut
//! at every byte of the header and of the trailer and at random places; one byte flipped at
//! every byte of the header, the offsets chunk and the trailer and at random places);
//! `tests/c/salvage_read.c`, built against each library, opens every copy as a user would
//! (`blosc2_schunk_open`, else `blosc2_schunk_from_buffer` with a copy) and decompresses
//! every chunk, compared with the source's.  Every chunk the reference recovers intact, b2rs
//! must recover intact, with no crash or hang.

mod common;

use common::{compile_c, ref_dir, repo_root, run_cmd, Lib, Rng, Scratch};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// A damage to apply to a source frame.
#[derive(Clone, Debug)]
pub enum Damage {
    /// Keep the first `n` bytes.
    Cut(usize),
    /// Xor the byte at `pos` with `mask`.
    Flip(usize, u8),
}

impl Damage {
    fn spec(&self) -> String {
        match self {
            Damage::Cut(n) => format!("cut {n} 0"),
            Damage::Flip(p, m) => format!("flip {p} {m}"),
        }
    }

    /// The damaged copy of `src`.
    pub fn apply(&self, src: &[u8]) -> Vec<u8> {
        match *self {
            Damage::Cut(n) => src[..n.min(src.len())].to_vec(),
            Damage::Flip(p, m) => {
                let mut v = src.to_vec();
                if p < v.len() {
                    v[p] ^= m;
                }
                v
            }
        }
    }
}

fn be_u32(b: &[u8], at: usize) -> usize {
    u32::from_be_bytes(b[at..at + 4].try_into().unwrap()) as usize
}

/// The regions of a contiguous frame: (header_len, offsets chunk start, trailer start).
fn regions(f: &[u8]) -> (usize, usize, usize) {
    let header_len = be_u32(f, 11);
    let trailer_len = be_u32(f, f.len() - 22);
    let trailer = f.len() - trailer_len;
    // walk the chunks stored after the header: the last one before the trailer is the index
    let (mut at, mut last) = (header_len, header_len);
    while at + 16 <= trailer {
        let cbytes = u32::from_le_bytes(f[at + 12..at + 16].try_into().unwrap()) as usize;
        if cbytes < 16 || at + cbytes > trailer {
            break;
        }
        last = at;
        at += cbytes;
    }
    (header_len, last, trailer)
}

/// The damaged copies of the frame `f`: cuts at every byte of the header and the trailer and
/// at 12 random places; one bit flipped at every byte of the header, of the offsets chunk
/// (at most 256 of its bytes; every bit of its 32-byte header) and of the trailer, and at 24
/// random places.
pub fn damages(f: &[u8], seed: u64) -> Vec<Damage> {
    let (header_len, coff, trailer) = regions(f);
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let bit = |p: usize| 1u8 << (p % 8);
    for p in (0..header_len).chain(trailer..f.len()) {
        out.push(Damage::Cut(p));
    }
    for _ in 0..12 {
        out.push(Damage::Cut(
            header_len + rng.below((trailer - header_len) as u64) as usize,
        ));
    }
    let coff_bytes: Vec<usize> = (coff..trailer).collect();
    let step = coff_bytes.len().div_ceil(256).max(1);
    for p in (0..header_len)
        .chain(coff_bytes.into_iter().step_by(step))
        .chain(trailer..f.len())
    {
        out.push(Damage::Flip(p, bit(p)));
    }
    // every bit of the offsets chunk's header (its flags, use-dict bit, sizes)
    for p in coff..(coff + 32).min(trailer) {
        for b in 0..8 {
            out.push(Damage::Flip(p, 1 << b));
        }
    }
    for _ in 0..24 {
        let p = rng.below(f.len() as u64) as usize;
        out.push(Damage::Flip(p, 1 << rng.below(8)));
    }
    out
}

/// What a library made of one damaged copy.
#[derive(Clone, Debug, PartialEq)]
enum Outcome {
    NotOpened,
    Opened(String),
    Crash(String),
}

fn parse(out: &str) -> BTreeMap<String, Outcome> {
    let mut m = BTreeMap::new();
    for l in out.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        let o = match w.as_slice() {
            [_, "0"] => Outcome::NotOpened,
            [_, "1", s] => Outcome::Opened(s.to_string()),
            [_, "1"] => Outcome::Opened(String::new()),
            [_, rest @ ..] => Outcome::Crash(rest.join(" ")),
            _ => continue,
        };
        m.insert(w[0].to_string(), o);
    }
    m
}

/// The sources written by the reference into `dir`, as (path, bytes).
fn sources(scratch: &Scratch, rd: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let exe = scratch.path("salvage_sources");
    let src = repo_root().join("tests/c/salvage_sources.c");
    compile_c(&src, &exe, Lib::Ref, rd).unwrap();
    let dir = scratch.path("sources");
    std::fs::create_dir_all(&dir).unwrap();
    let o = run_cmd(Command::new(&exe).arg(&dir), Duration::from_secs(120));
    assert!(o.ok(), "salvage_sources: {}", o.describe());
    o.stdout
        .lines()
        .map(|n| {
            let p = dir.join(n.trim());
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect()
}

/// Run the reader built against `lib` over the spec lines, split over the test workers.
fn read_all(scratch: &Scratch, rd: &Path, lib: Lib, lines: &[String]) -> BTreeMap<String, Outcome> {
    let tag = if lib == Lib::Ref { "ref" } else { "ours" };
    let exe = scratch.path(&format!("salvage_read_{tag}"));
    compile_c(&repo_root().join("tests/c/salvage_read.c"), &exe, lib, rd).unwrap();
    let parts: Vec<&[String]> = lines
        .chunks(lines.len().div_ceil(common::workers()))
        .collect();
    let outs = common::par_map(&parts, |i, part| {
        let list = scratch.path(&format!("list_{tag}_{i}"));
        std::fs::write(&list, part.join("\n") + "\n").unwrap();
        let dir = scratch.path(&format!("copies_{tag}_{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        let o = run_cmd(
            Command::new(&exe)
                .arg(&list)
                .arg(&dir)
                .env_remove("BLOSC_TRACE"),
            Duration::from_secs(1200),
        );
        assert!(o.ok(), "salvage_read ({tag}): {}", o.describe());
        parse(&o.stdout)
    });
    outs.into_iter().flatten().collect()
}

#[derive(Default, Debug)]
struct Tally {
    opened: usize,
    intact: usize,
    wrong: usize,
    crashes: usize,
}

fn tally(m: &BTreeMap<String, Outcome>) -> Tally {
    let mut t = Tally::default();
    for o in m.values() {
        match o {
            Outcome::Opened(s) => {
                t.opened += 1;
                t.intact += s.matches('I').count();
                t.wrong += s.matches('W').count();
            }
            Outcome::Crash(_) => t.crashes += 1,
            Outcome::NotOpened => {}
        }
    }
    t
}

#[test]
fn damaged_frames_read_at_least_what_the_reference_reads() {
    let Some(rd) = ref_dir() else {
        panic!("{}", common::missing_ref_message());
    };
    let scratch = Scratch::new("salvage", "measure");
    let srcs = sources(&scratch, &rd);
    assert_eq!(srcs.len(), 19);
    let mut lines = Vec::new();
    for (k, (p, b)) in srcs.iter().enumerate() {
        for (i, d) in damages(b, k as u64).iter().enumerate() {
            lines.push(format!("c{k:02}-{i:05} {} {}", p.display(), d.spec()));
        }
    }
    let refs = read_all(&scratch, &rd, Lib::Ref, &lines);
    let ours = read_all(&scratch, &rd, Lib::Ours, &lines);
    let (tr, to) = (tally(&refs), tally(&ours));
    println!("{} damaged copies of {} frames", lines.len(), srcs.len());
    println!("reference: {tr:?}");
    println!("b2rs:      {to:?}");
    // chunks the reference recovers intact and b2rs does not, per copy; and the other way
    let mut lost = Vec::new();
    let (mut nlost, mut more) = (0, 0);
    let status = |o: Option<&Outcome>| match o {
        Some(Outcome::Opened(s)) => s.clone(),
        _ => String::new(),
    };
    for (id, r) in &refs {
        let (rs, os) = (status(Some(r)), status(ours.get(id)));
        let intact = |s: &str, i: usize| s.as_bytes().get(i) == Some(&b'I');
        let n = (0..rs.len())
            .filter(|&i| intact(&rs, i) && !intact(&os, i))
            .count();
        more += (0..os.len())
            .filter(|&i| intact(&os, i) && !intact(&rs, i))
            .count();
        let w = |s: &str, i: usize| s.as_bytes().get(i) == Some(&b'W');
        if std::env::var_os("B2RS_SALVAGE_VERBOSE").is_some()
            && (0..os.len()).any(|i| w(&os, i) && !w(&rs, i))
        {
            let spec = lines.iter().find(|l| l.starts_with(id.as_str())).unwrap();
            println!("WRONG {spec}: reference {rs}, b2rs {os}");
        }
        if n > 0 {
            nlost += n;
            let spec = lines.iter().find(|l| l.starts_with(id.as_str())).unwrap();
            let spec = spec.split(' ').skip(1).collect::<Vec<_>>().join(" ");
            lost.push(format!("{spec}: reference {rs}, b2rs {:?}", ours.get(id)));
        }
    }
    println!("chunks b2rs recovers intact and the reference does not: {more}");
    println!(
        "chunks the reference recovers intact and b2rs does not: {nlost} ({} copies)",
        lost.len()
    );
    for l in lost.iter().take(100) {
        println!("LOST {l}");
    }
    assert_eq!(to.crashes, 0, "b2rs crashed or hung on damaged copies");
    assert_eq!(
        nlost, 0,
        "chunks the reference recovers intact are not recovered by b2rs"
    );
}

/// The decompressed chunks of a frame (`None`: a chunk that does not decode).
fn chunks_of(f: &b2rs::frame::Frame) -> Vec<Option<Vec<u8>>> {
    (0..f.nchunks())
        .map(|n| {
            let c = f.get_chunk(n).ok()?;
            let (nb, _, _) = b2rs::chunk::header::Header::sizes(&c).ok()?;
            let mut out = vec![0u8; usize::try_from(nb).ok()?];
            b2rs::chunk::decompress(&b2rs::DParams::default(), &c, &mut out, None).ok()?;
            Some(out)
        })
        .collect()
}

#[test]
fn salvage_gives_back_every_chunk_before_a_cut() {
    use b2rs::frame::{Frame, StdIo};
    use b2rs::salvage;
    use std::sync::Arc;
    let Some(rd) = ref_dir() else {
        panic!("{}", common::missing_ref_message());
    };
    let scratch = Scratch::new("salvage", "cuts");
    let srcs = sources(&scratch, &rd);
    let (mut runs, mut recovered, mut before_cut) = (0, 0, 0);
    for (k, (path, bytes)) in srcs.iter().enumerate() {
        let f = Frame::open_path(path, 0, Arc::new(StdIo)).unwrap();
        let want = chunks_of(&f);
        let offsets = f.offsets().unwrap();
        let hl = f.header_len() as usize;
        // physical end of each logical chunk (None: special, no bytes)
        let ends: Vec<Option<usize>> = (0..f.nchunks())
            .map(|n| {
                let o = offsets[n as usize];
                (o >= 0).then(|| hl + o as usize + f.get_chunk(n).unwrap().len())
            })
            .collect();
        // stored in logical order, no special chunks: a walk without the index keeps the order
        let in_order = ends.iter().all(|e| e.is_some()) && ends.windows(2).all(|w| w[0] < w[1]);
        let (_, coff, trailer) = regions(bytes);
        let cuts = damages(bytes, k as u64)
            .into_iter()
            .filter_map(|d| match d {
                Damage::Cut(n) => Some(n),
                _ => None,
            })
            .chain([coff + 1, trailer - 1]);
        for cut in cuts {
            let damaged = scratch.path(&format!("cut-{k}-{cut}.b2frame"));
            std::fs::write(&damaged, &bytes[..cut]).unwrap();
            let out = scratch.path(&format!("out-{k}.b2frame"));
            let _ = std::fs::remove_file(&out);
            let report = salvage::salvage(&damaged, &out, false);
            std::fs::remove_file(&damaged).unwrap();
            // nothing to find before the first chunk: salvage may fail
            let Ok(report) = report else {
                assert!(
                    cut <= hl + 32,
                    "{}: cut at {cut}: {report:?}",
                    path.display()
                );
                continue;
            };
            runs += 1;
            let g = Frame::open_path(&out, 0, Arc::new(StdIo)).unwrap();
            let got = chunks_of(&g);
            // the index survives a cut past it: every chunk comes back, in its place
            let index_kept = cut >= trailer;
            for (n, e) in ends.iter().enumerate() {
                let whole = e.is_some_and(|e| e <= cut);
                if !(whole && (in_order || index_kept)) {
                    continue;
                }
                before_cut += 1;
                assert_eq!(
                    got.get(n).cloned().flatten(),
                    want[n],
                    "{}: cut at {cut}: chunk {n} not given back ({report:?})",
                    path.display()
                );
                assert!(report.recovered.contains(&(n as i64)));
                recovered += 1;
            }
            // b2nd arrays keep their shape: as many chunks as the source
            if path.extension().is_some_and(|e| e == "b2nd") && cut > coff {
                assert_eq!(g.nchunks(), f.nchunks(), "{}: cut at {cut}", path.display());
            }
        }
    }
    println!("{runs} cut copies salvaged; {recovered} of the {before_cut} chunks stored before the cuts given back");
}

#[test]
fn salvage_keeps_every_chunk_that_reads_intact() {
    use b2rs::frame::{Frame, StdIo};
    use b2rs::salvage;
    use std::sync::Arc;
    let Some(rd) = ref_dir() else {
        panic!("{}", common::missing_ref_message());
    };
    let scratch = Scratch::new("salvage", "flips");
    let srcs = sources(&scratch, &rd);
    let (mut read_intact, mut salvaged_intact, mut copies) = (0, 0, 0);
    for (k, (path, bytes)) in srcs.iter().enumerate() {
        let want = chunks_of(&Frame::open_path(path, 0, Arc::new(StdIo)).unwrap());
        for (i, d) in damages(bytes, k as u64).iter().enumerate() {
            if matches!(d, Damage::Cut(_)) {
                continue;
            }
            copies += 1;
            let damaged = scratch.path(&format!("flip-{k}-{i}.b2frame"));
            std::fs::write(&damaged, d.apply(bytes)).unwrap();
            // what reading the damaged copy gives intact
            let read: Vec<bool> = match Frame::open_path(&damaged, 0, Arc::new(StdIo)) {
                Ok(f) => {
                    let got = chunks_of(&f);
                    (0..want.len())
                        .map(|n| got.get(n).cloned().flatten() == want[n])
                        .collect()
                }
                Err(_) => vec![false; want.len()],
            };
            let out = scratch.path(&format!("flip-out-{k}.b2frame"));
            let _ = std::fs::remove_file(&out);
            if let Ok(report) = salvage::salvage(&damaged, &out, false) {
                let got = chunks_of(&Frame::open_path(&out, 0, Arc::new(StdIo)).unwrap());
                for (n, &ok) in read.iter().enumerate() {
                    let kept = got.get(n).cloned().flatten() == want[n];
                    assert!(
                        !ok || kept,
                        "{}: {d:?}: chunk {n} reads intact but is not salvaged ({report:?})",
                        path.display()
                    );
                    read_intact += ok as usize;
                    salvaged_intact += kept as usize;
                }
            } else {
                assert!(
                    read.iter().all(|&ok| !ok),
                    "{}: {d:?}: salvage failed",
                    path.display()
                );
            }
            std::fs::remove_file(&damaged).unwrap();
        }
    }
    println!("{copies} flipped copies: {read_intact} chunks read intact, {salvaged_intact} salvaged intact");
    assert!(salvaged_intact >= read_intact);
}

/// Frames with b2rs's chunk checksums (the `b2rs_crc32c` vlmetalayer) read unchanged in
/// C-Blosc2: every chunk of a contiguous frame file, by the C reader above.
#[test]
fn the_reference_reads_checksummed_frames() {
    use b2rs::frame::{Frame, FrameParams, Location, StdIo};
    use b2rs::schunk::Schunk;
    use b2rs::{CParams, DParams};
    use std::sync::Arc;
    let Some(rd) = ref_dir() else {
        panic!("{}", common::missing_ref_message());
    };
    let scratch = Scratch::new("salvage", "checksummed");
    let mut lines = Vec::new();
    for (k, codec) in [b2rs::codecs::LZ4, b2rs::codecs::ZSTD]
        .into_iter()
        .enumerate()
    {
        let path = scratch.path(&format!("crc{k}.b2frame"));
        let cp = CParams {
            compcode: codec,
            typesize: 4,
            ..CParams::default()
        };
        let loc = Location::File {
            path: path.clone(),
            offset: 0,
        };
        let f = Frame::create(loc, &FrameParams::from_cparams(&cp, 1), Arc::new(StdIo)).unwrap();
        let mut sc = Schunk::with_frame(cp, DParams::default(), f);
        sc.enable_checksums().unwrap();
        for n in 0..5u32 {
            let data: Vec<u8> = (0..10_000u32)
                .flat_map(|i| (i * 7 + n * 3 % 11).to_le_bytes())
                .collect();
            sc.append_buffer(&data).unwrap();
        }
        sc.delete_chunk(1).unwrap();
        drop(sc);
        lines.push(format!("k{k} {} flip 0 0", path.display()));
    }
    let got = read_all(&scratch, &rd, Lib::Ref, &lines);
    for k in 0..2 {
        assert_eq!(got[&format!("k{k}")], Outcome::Opened("IIII".into()));
    }
}
