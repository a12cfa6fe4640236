//! The ZFP codecs (ids 33 zfp_acc, 34 zfp_prec, 35 zfp_rate) against python-blosc2 (the
//! reference, run as a `python3` subprocess with `tests/zfp_helper.py`), for float32 and
//! float64, 1 to 4 dimensions, array shapes that divide neither chunks nor blocks and blocks
//! that are not multiples of the 4^d zfp cells:
//! * `zfp_block_streams_bit_identical_to_reference`: every block stream of the reference's
//!   chunks is what `b2rs::codecs::zfp::compress` writes for the same block, and
//!   `b2rs::codecs::zfp::decompress` decodes it to exactly the reference's values (also for
//!   blocks holding NaN, infinities and subnormals).
//! * `zfp_arrays_written_by_reference_read_by_us`: `.b2nd` files written by python-blosc2 with
//!   each mode, read through `b2rs::b2nd::Array` (the whole pipeline: "b2nd" metalayer → block
//!   shape → codec), give exactly the values the reference decodes, within the mode's bound.
//! * `zfp_arrays_written_by_us_read_by_reference`: the same arrays written by `Array` with the
//!   ZFP codecs are read by `blosc2.open` in a separate process: the values it decodes are
//!   exactly ours, exactly what the reference decodes from its own files, within the bound.
//!
//! A test prints `SKIPPED: ...` and passes when `python3` with `blosc2` is absent.

mod common;

use b2rs::b2nd::array::schunk_from_frame;
use b2rs::b2nd::{Array, Fill, Meta};
use b2rs::codecs::zfp::{self, Mode};
use b2rs::frame::{Frame, StdIo};
use b2rs::{CParams, DParams, SplitMode};
use std::path::Path;
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

fn helper(cmd: &str, dir: &Path) -> String {
    let script = common::repo_root().join("tests/zfp_helper.py");
    let out = common::run_cmd(
        Command::new("python3").arg(&script).arg(cmd).arg(dir),
        Duration::from_secs(600),
    );
    assert!(
        out.ok(),
        "zfp_helper.py {cmd} failed: {}\n{}",
        out.describe(),
        out.stderr
    );
    out.stdout
}

fn le_i32(b: &[u8], at: usize) -> usize {
    i32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize
}

struct Case {
    name: String,
    mode: Mode,
    typesize: usize,
    blockshape: Vec<usize>,
    chunk_lens: Vec<usize>,
}

fn read_cases(dir: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(dir.join("cases.txt")).unwrap();
    text.lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            Case {
                name: f[0].to_string(),
                mode: Mode::from_codec(f[1].parse().unwrap(), f[2].parse().unwrap()).unwrap(),
                typesize: f[3].parse().unwrap(),
                blockshape: f[4].split(',').map(|x| x.parse().unwrap()).collect(),
                chunk_lens: f[5].split(',').map(|x| x.parse().unwrap()).collect(),
            }
        })
        .collect()
}

#[test]
fn zfp_block_streams_bit_identical_to_reference() {
    if !python_has_blosc2() {
        common::skip(
            "zfp_block_streams_bit_identical_to_reference",
            "python3 with blosc2 not found",
        );
        return;
    }
    let scratch = common::Scratch::new("zfp", "blocks");
    helper("blocks", &scratch.dir);
    let cases = read_cases(&scratch.dir);
    assert_eq!(cases.len(), 72 + 18);
    let (mut streams, mut raw_blocks, mut memcpyed) = (0, 0, 0);
    for case in &cases {
        let raw = std::fs::read(scratch.path(&format!("{}.raw", case.name))).unwrap();
        let refc = std::fs::read(scratch.path(&format!("{}.ref", case.name))).unwrap();
        let dec = std::fs::read(scratch.path(&format!("{}.dec", case.name))).unwrap();
        let mut at = 0;
        let mut out_at = 0;
        for (ci, &clen) in case.chunk_lens.iter().enumerate() {
            let chunk = &refc[at..at + clen];
            at += clen;
            let nbytes = le_i32(chunk, 4);
            let blocksize = le_i32(chunk, 8);
            assert_eq!(chunk[22], 33 + (case.mode_index() as u8), "{}", case.name);
            if chunk[2] & 0x2 != 0 {
                // Stored raw by the pipeline (ZFP made it bigger): no streams to compare.
                assert_eq!(&chunk[32..32 + nbytes], &dec[out_at..out_at + nbytes]);
                out_at += nbytes;
                memcpyed += 1;
                continue;
            }
            let nblocks = nbytes.div_ceil(blocksize);
            for b in 0..nblocks {
                let start = le_i32(chunk, 32 + 4 * b);
                let csize = le_i32(chunk, start);
                let stream = &chunk[start + 4..start + 4 + csize];
                let src = &raw[out_at + b * blocksize..out_at + (b + 1) * blocksize];
                let want = &dec[out_at + b * blocksize..out_at + (b + 1) * blocksize];
                let what = format!("{} chunk {ci} block {b}", case.name);
                let mut ours = vec![0u8; blocksize];
                let n = zfp::compress(case.mode, &case.blockshape, case.typesize, src, &mut ours)
                    .unwrap_or_else(|e| panic!("{what}: compress: {e:?}"));
                if csize == 0 {
                    // A run of zeros, coded by the Blosc pipeline, not by the codec.
                    assert!(want.iter().all(|&x| x == 0), "{what}");
                    continue;
                }
                if csize == blocksize {
                    // The reference stored the block raw (no gain): so must we.
                    assert_eq!(n, 0, "{what}: reference stored the block raw");
                    assert_eq!(stream, want, "{what}");
                    raw_blocks += 1;
                    continue;
                }
                assert_eq!(
                    &ours[..n],
                    stream,
                    "{what}: stream differs ({n} vs {csize} bytes)"
                );
                let mut got = vec![0u8; blocksize];
                zfp::decompress(case.mode, &case.blockshape, case.typesize, stream, &mut got)
                    .unwrap_or_else(|e| panic!("{what}: decompress: {e:?}"));
                assert!(got == want, "{what}: decoded values differ");
                streams += 1;
            }
            out_at += nbytes;
        }
    }
    eprintln!(
        "{streams} block streams bit-identical, {raw_blocks} raw blocks, {memcpyed} raw chunks"
    );
    assert!(streams > 100);
}

impl Case {
    fn mode_index(&self) -> usize {
        match self.mode {
            Mode::Accuracy(_) => 0,
            Mode::Precision(_) => 1,
            Mode::Rate(_) => 2,
        }
    }
}

/// One array case of `zfp_helper.py write`.
struct ArrayCase {
    name: String,
    codec: u8,
    meta: u8,
    dtype: String,
    shape: Vec<i64>,
    chunks: Vec<i32>,
    blocks: Vec<i32>,
}

impl ArrayCase {
    fn parse(line: &str) -> ArrayCase {
        let f: Vec<&str> = line.split_whitespace().collect();
        let list = |s: &str| -> Vec<i64> { s.split(',').map(|x| x.parse().unwrap()).collect() };
        ArrayCase {
            name: f[0].to_string(),
            codec: f[1].parse().unwrap(),
            meta: f[2].parse().unwrap(),
            dtype: f[3].to_string(),
            shape: list(f[4]),
            chunks: list(f[5]).into_iter().map(|x| x as i32).collect(),
            blocks: list(f[6]).into_iter().map(|x| x as i32).collect(),
        }
    }

    fn typesize(&self) -> usize {
        if self.dtype == "<f4" {
            4
        } else {
            8
        }
    }

    fn values(&self, bytes: &[u8]) -> Vec<f64> {
        if self.typesize() == 4 {
            bytes
                .chunks_exact(4)
                .map(|c| f64::from(f32::from_le_bytes(c.try_into().unwrap())))
                .collect()
        } else {
            bytes
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
                .collect()
        }
    }

    /// The largest error the mode allows for these values (`orig`): fixed accuracy, the
    /// tolerance plus the float type's own rounding; fixed precision, a bound relative to the
    /// largest magnitude that halves with each extra bit plane; fixed rate has no error bound,
    /// only the magnitude of the data.
    fn bound(&self, orig: &[f64]) -> f64 {
        let maxabs = orig.iter().fold(0f64, |m, v| m.max(v.abs()));
        let eps = if self.typesize() == 4 {
            f64::from(f32::EPSILON)
        } else {
            f64::EPSILON
        };
        match zfp::Mode::from_codec(self.codec, self.meta).unwrap() {
            Mode::Accuracy(t) => 10f64.powi(i32::from(t)) + 4.0 * eps * maxabs,
            Mode::Precision(m) => maxabs * 2f64.powi(2 - i32::from(m)) + 4.0 * eps * maxabs,
            Mode::Rate(_) => 2.0 * maxabs,
        }
    }

    fn max_err(&self, got: &[u8], orig: &[u8]) -> f64 {
        let (g, o) = (self.values(got), self.values(orig));
        assert_eq!(g.len(), o.len(), "{}", self.name);
        g.iter().zip(&o).fold(0f64, |m, (a, b)| {
            if a.is_nan() {
                f64::INFINITY
            } else {
                m.max((a - b).abs())
            }
        })
    }
}

fn write_reference_arrays(dir: &Path) -> Vec<ArrayCase> {
    let out = helper("write", dir);
    let cases: Vec<ArrayCase> = out.lines().map(ArrayCase::parse).collect();
    assert_eq!(cases.len(), 72);
    cases
}

#[test]
fn zfp_arrays_written_by_reference_read_by_us() {
    if !python_has_blosc2() {
        common::skip(
            "zfp_arrays_written_by_reference_read_by_us",
            "python3 with blosc2 not found",
        );
        return;
    }
    let scratch = common::Scratch::new("zfp", "ref_written");
    let cases = write_reference_arrays(&scratch.dir);
    for c in &cases {
        let path = scratch.path(&format!("{}.b2nd", c.name));
        let frame = Frame::open_path(&path, 0, Arc::new(StdIo)).unwrap();
        let mut a = Array::open(schunk_from_frame(&frame).unwrap()).unwrap();
        assert_eq!(a.shape(), &c.shape[..], "{}", c.name);
        assert_eq!(a.geometry().blockshape(), &c.blocks[..], "{}", c.name);
        let got = a
            .to_vec()
            .unwrap_or_else(|e| panic!("{}: read: {e:?}", c.name));
        let orig = std::fs::read(scratch.path(&format!("{}.orig", c.name))).unwrap();
        let refdec = std::fs::read(scratch.path(&format!("{}.refdec", c.name))).unwrap();
        let err = c.max_err(&got, &orig);
        let bound = c.bound(&c.values(&orig));
        assert!(err <= bound, "{}: error {err} above {bound}", c.name);
        assert!(
            got == refdec,
            "{}: values differ from the reference's decoding",
            c.name
        );
        eprintln!(
            "{:<16} max error {err:.3e} (bound {bound:.3e}), bit-identical",
            c.name
        );
    }
}

#[test]
fn zfp_arrays_written_by_us_read_by_reference() {
    if !python_has_blosc2() {
        common::skip(
            "zfp_arrays_written_by_us_read_by_reference",
            "python3 with blosc2 not found",
        );
        return;
    }
    let scratch = common::Scratch::new("zfp", "ours_written");
    let cases = write_reference_arrays(&scratch.dir);
    for c in &cases {
        let orig = std::fs::read(scratch.path(&format!("{}.orig", c.name))).unwrap();
        let cp = CParams {
            compcode: c.codec,
            compcode_meta: c.meta,
            typesize: c.typesize() as i32,
            filters: [0; 6],
            splitmode: SplitMode::Never,
            ..CParams::default()
        };
        let m = Meta::new(&c.shape, &c.chunks, &c.blocks).with_dtype(&c.dtype);
        let mut a = Array::new(cp, DParams::default(), &m, Fill::Buffer(&orig))
            .unwrap_or_else(|e| panic!("{}: write: {e:?}", c.name));
        let ours = a.to_vec().unwrap();
        let path = scratch.path(&format!("{}.b2rs.b2nd", c.name));
        std::fs::write(&path, a.to_cframe().unwrap()).unwrap();
        std::fs::write(scratch.path(&format!("{}.b2rs.bin", c.name)), &ours).unwrap();
        let err = c.max_err(&ours, &orig);
        let bound = c.bound(&c.values(&orig));
        assert!(
            err <= bound,
            "{}: our own decoding: error {err} above {bound}",
            c.name
        );
    }
    let out = helper("read", &scratch.dir);
    let mut n = 0;
    for line in out.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let c = cases.iter().find(|c| c.name == f[0]).unwrap();
        let orig = std::fs::read(scratch.path(&format!("{}.orig", c.name))).unwrap();
        let err: f64 = f[1].parse().unwrap();
        let bound = c.bound(&c.values(&orig));
        assert!(
            err <= bound,
            "{}: the reference decodes with error {err} > {bound}",
            c.name
        );
        assert_eq!(
            f[2], "1",
            "{}: the reference decodes other values than b2rs",
            c.name
        );
        assert_eq!(
            f[3], "1",
            "{}: our file decodes to other values than the reference's own file",
            c.name
        );
        eprintln!(
            "{:<16} reference reads ours: max error {err:.3e}, bit-identical",
            c.name
        );
        n += 1;
    }
    assert_eq!(n, cases.len());
}
