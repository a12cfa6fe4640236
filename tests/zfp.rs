//! The ZFP codecs (ids 33 zfp_acc, 34 zfp_prec, 35 zfp_rate) against python-blosc2 (the
//! reference, run as a `python3` subprocess with `tests/zfp_helper.py`), for float32 and
//! float64, 1 to 4 dimensions, array shapes that divide neither chunks nor blocks and blocks
//! that are not multiples of the 4^d zfp cells:
//! * `zfp_block_streams_bit_identical_to_reference`: every block stream of the reference's
//!   chunks is what `b2rs::codecs::zfp::compress` writes for the same block, and
//!   `b2rs::codecs::zfp::decompress` decodes it to exactly the reference's values.
//!
//! A test prints `SKIPPED: ...` and passes when `python3` with `blosc2` is absent.

mod common;

use b2rs::codecs::zfp::{self, Mode};
use std::path::Path;
use std::process::Command;
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
    assert_eq!(cases.len(), 72);
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
