//! The n-dimensional plugins C-Blosc2 builds in (NDLZ codec 32 with cells of 4 and 8, NDCELL
//! filter 32, NDMEAN filter 33) against python-blosc2 (the reference, run as a `python3`
//! subprocess; `tests/nd_plugins.py` holds the cases and both Python sides):
//!
//! * `nd_plugins_reference_written_read_by_b2rs`: b2nd arrays written by the reference (2-D
//!   NDLZ-4/8 with chunk and block shapes that do not divide, NDCELL in 1..4 dimensions with
//!   several cell sides, dtypes and codecs, NDMEAN on float32/float64) are decoded by b2rs to
//!   exactly what the reference decodes (for the lossless ones: the input); every chunk of the
//!   lossless ones, decoded and compressed again by b2rs, is byte-identical to the reference's;
//!   where the reference cannot decode its own chunks (NDMEAN with a block thinner than the
//!   cell along the first dimension) b2rs fails too, and where the reference cannot make the
//!   array at all (NDCELL blocks smaller than a cell, NDLZ on 3-D or 2-byte items, NDLZ blocks
//!   whose streams get less than 9 bytes of room) b2rs refuses it too.
//! * `nd_plugins_b2rs_written_read_by_reference`: b2rs writes the same arrays from the same
//!   input; the reference decodes them to exactly what b2rs decodes and what it decodes from
//!   its own arrays, and every chunk is byte-identical to the reference's.
//!
//! A test prints `SKIPPED: ...` and passes when `python3` with `blosc2` is absent.

mod common;

use b2rs::b2nd::array::schunk_from_frame;
use b2rs::b2nd::{Array, Fill, Meta};
use b2rs::frame::{Frame, StdIo};
use b2rs::{CParams, DParams};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

fn python_has_blosc2() -> bool {
    Command::new("python3")
        .args(["-c", "import blosc2, numpy"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn script() -> PathBuf {
    common::repo_root().join("tests").join("nd_plugins.py")
}

fn run_python(mode: &str, dir: &Path) -> String {
    let out = common::run_cmd(
        Command::new("python3").arg(script()).arg(mode).arg(dir),
        Duration::from_secs(600),
    );
    assert!(
        out.ok(),
        "python3 {mode} failed: {}\n{}\n{}",
        out.describe(),
        out.stdout,
        out.stderr
    );
    out.stdout
}

fn list<T: std::str::FromStr>(s: &str) -> Vec<T>
where
    T::Err: std::fmt::Debug,
{
    if s.is_empty() {
        return Vec::new();
    }
    s.split(',').map(|x| x.parse().unwrap()).collect()
}

/// One array written by the reference (a line of the writer's manifest).
struct Case {
    name: String,
    shape: Vec<i64>,
    chunks: Vec<i32>,
    blocks: Vec<i32>,
    dtype: String,
    codec: u8,
    codec_meta: u8,
    filters: Vec<u8>,
    filters_meta: Vec<u8>,
    /// Whether the reference decodes its own array.
    decodes: bool,
    /// Whether the reference could make the array at all.
    written: bool,
}

impl Case {
    fn parse(line: &str) -> Case {
        let f: Vec<&str> = line.split(';').collect();
        assert_eq!(f.len(), 10, "bad line {line}");
        Case {
            name: f[0].to_string(),
            shape: list(f[1]),
            chunks: list(f[2]),
            blocks: list(f[3]),
            dtype: f[4].to_string(),
            codec: f[5].parse().unwrap(),
            codec_meta: f[6].parse().unwrap(),
            filters: list(f[7]),
            filters_meta: list(f[8]),
            decodes: f[9] == "ok",
            written: f[9] != "nowrite",
        }
    }

    fn itemsize(&self) -> i32 {
        self.dtype[2..].parse::<i32>().unwrap()
    }

    fn lossless(&self) -> bool {
        !self.filters.contains(&33)
    }

    fn cparams(&self) -> CParams {
        let mut filters = [0u8; 6];
        let mut filters_meta = [0u8; 6];
        filters[..self.filters.len()].copy_from_slice(&self.filters);
        filters_meta[..self.filters_meta.len()].copy_from_slice(&self.filters_meta);
        CParams {
            compcode: self.codec,
            compcode_meta: self.codec_meta,
            clevel: 5,
            typesize: self.itemsize(),
            nthreads: 1,
            filters,
            filters_meta,
            ..CParams::default()
        }
    }

    fn meta(&self) -> Meta {
        Meta::new(&self.shape, &self.chunks, &self.blocks).with_dtype(&self.dtype)
    }

    /// What the matrix row says: plugin, ndim, dtype.
    fn what(&self) -> String {
        format!(
            "{} (ndim {}, {}, codec {}/{}, filters {:?}/{:?})",
            self.name,
            self.shape.len(),
            self.dtype,
            self.codec,
            self.codec_meta,
            self.filters,
            self.filters_meta
        )
    }
}

fn cases(out: &str) -> Vec<Case> {
    out.lines()
        .filter(|l| !l.trim().is_empty())
        .map(Case::parse)
        .collect()
}

#[test]
fn nd_plugins_reference_written_read_by_b2rs() {
    if !python_has_blosc2() {
        common::skip(
            "nd_plugins_reference_written_read_by_b2rs",
            "python3 with blosc2 and numpy not found",
        );
        return;
    }
    let scratch = common::Scratch::new("nd_plugins", "reference_written");
    let cases = cases(&run_python("write", &scratch.dir));
    assert!(cases.len() >= 24, "only {} cases", cases.len());
    let (mut chunks_checked, mut failing, mut refused) = (0, 0, 0);
    for c in &cases {
        let path = scratch.path(&format!("{}.b2nd", c.name));
        if !c.written {
            // the reference cannot compress these arrays: neither do we
            let src = std::fs::read(format!("{}.src", path.display())).unwrap();
            let r = Array::new(
                c.cparams(),
                DParams::default(),
                &c.meta(),
                Fill::Buffer(&src),
            );
            assert!(
                r.is_err(),
                "{}: compressed what the reference cannot",
                c.what()
            );
            refused += 1;
            continue;
        }
        let frame = Frame::open_path(&path, 0, Arc::new(StdIo)).unwrap();
        let sc = schunk_from_frame(&frame).unwrap();
        let mut a = Array::open(sc).unwrap();
        assert_eq!(a.shape(), &c.shape[..], "{}", c.what());
        let got = a.to_vec();
        if !c.decodes {
            // the reference cannot decode these chunks: neither do we
            assert!(
                got.is_err(),
                "{}: decoded what the reference cannot",
                c.what()
            );
            failing += 1;
            continue;
        }
        let got = got.unwrap_or_else(|e| panic!("{}: {e:?}", c.what()));
        let dec = std::fs::read(format!("{}.dec", path.display())).unwrap();
        assert!(
            got == dec,
            "{}: differs from the reference's decoding",
            c.what()
        );
        if !c.lossless() {
            continue;
        }
        let src = std::fs::read(format!("{}.src", path.display())).unwrap();
        assert!(dec == src, "{}: lossless but not the input", c.what());
        // every chunk, decoded and compressed again, is the reference's chunk
        let s = a.schunk_mut();
        let cp = s.plugin_cparams(&c.cparams());
        assert!(cp.b2nd.is_some());
        for n in 0..s.nchunks() {
            let theirs = s.get_chunk(n).unwrap().into_owned();
            let nb = s.chunk_nbytes(n).unwrap() as usize;
            let mut buf = vec![0u8; nb];
            s.decompress_chunk(n, &mut buf).unwrap();
            let mut p = cp.clone();
            p.blocksize = s.cparams().blocksize;
            for nthreads in [1, 3] {
                p.nthreads = nthreads;
                let mut ours = vec![0u8; nb + b2rs::chunk::header::MAX_OVERHEAD];
                let len = b2rs::chunk::compress(&p, &buf, &mut ours).unwrap();
                assert!(
                    ours[..len] == theirs[..],
                    "{}: chunk {n} differs from the reference's ({len} vs {} bytes, {nthreads} \
                     threads)",
                    c.what(),
                    theirs.len()
                );
            }
            // decoding with several threads and the array's shapes
            let dp = DParams {
                nthreads: 3,
                b2nd: cp.b2nd.clone(),
                schunk_typesize: Some(c.itemsize()),
                ..DParams::default()
            };
            let mut again = vec![0u8; nb];
            assert_eq!(
                b2rs::chunk::decompress(&dp, &theirs, &mut again, None),
                Ok(nb)
            );
            assert!(again == buf, "{}: chunk {n} decoded with threads", c.what());
            chunks_checked += 1;
        }
    }
    assert_eq!((failing, refused), (1, 4));
    println!(
        "{} arrays, {chunks_checked} chunks byte-identical, {refused} refused by both",
        cases.len()
    );
}

#[test]
fn nd_plugins_b2rs_written_read_by_reference() {
    if !python_has_blosc2() {
        common::skip(
            "nd_plugins_b2rs_written_read_by_reference",
            "python3 with blosc2 and numpy not found",
        );
        return;
    }
    let scratch = common::Scratch::new("nd_plugins", "b2rs_written");
    let cases = cases(&run_python("write", &scratch.dir));
    let mut manifest = String::new();
    for c in &cases {
        let base = scratch.path(&c.name);
        let src = std::fs::read(format!("{}.b2nd.src", base.display())).unwrap();
        let a = Array::new(
            c.cparams(),
            DParams::default(),
            &c.meta(),
            Fill::Buffer(&src),
        );
        if !c.written {
            assert!(
                a.is_err(),
                "{}: compressed what the reference cannot",
                c.what()
            );
            continue;
        }
        let mut a = a.unwrap_or_else(|e| panic!("{}: {e:?}", c.what()));
        let ours = format!("{}.ours.b2nd", base.display());
        std::fs::write(&ours, a.to_cframe().unwrap()).unwrap();
        let status = match a.to_vec() {
            Ok(v) => {
                if c.lossless() {
                    assert!(v == src, "{}: b2rs does not decode its input", c.what());
                }
                std::fs::write(format!("{ours}.dec"), v).unwrap();
                "ok"
            }
            Err(_) => "err",
        };
        manifest.push_str(&format!("{};{status}\n", c.name));
    }
    std::fs::write(scratch.path("manifest.txt"), &manifest).unwrap();
    let out = run_python("read", &scratch.dir);
    assert!(out.contains("bad 0"), "{out}");
    println!("{out}");
}
