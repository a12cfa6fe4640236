//! The b2nd core (`b2rs::b2nd`) against files written by the reference:
//! * `testdata_files`: the `b2nd` metalayer of `shared/testdata/b2nd/*.b2nd` (read from the frame
//!   header, FRAME.md §3) decodes to the shapes of `testdata/README.md`, re-encodes to the same
//!   bytes, and the geometry matches the frame header's typesize, blocksize and chunksize;
//! * `python_blosc2_metalayers`: arrays written by python-blosc2 (the reference, through a
//!   `python3` subprocess) for many ndims, shapes and dtypes: our serialisation of their
//!   parameters is byte-identical to their `b2nd` metalayer, and our geometry gives their
//!   padded shapes, number of chunks, chunk size and block size.
//!
//! A test prints `SKIPPED: ...` and passes when `../shared` or `python3` with `blosc2` is absent.

mod common;

use b2rs::b2nd::{Geometry, Meta};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

fn be_i32(b: &[u8]) -> i32 {
    i32::from_be_bytes(b[..4].try_into().unwrap())
}

/// What the fixed part of a contiguous frame header says (FRAME.md §2), and its metalayers.
struct FrameHeader {
    typesize: i32,
    blocksize: i32,
    chunksize: i32,
    metalayers: Vec<(String, Vec<u8>)>,
}

/// Parse the header of a contiguous frame, just enough for the metalayers (FRAME.md §2–3).
fn parse_frame_header(frame: &[u8]) -> FrameHeader {
    assert_eq!(&frame[0..10], b"\x9e\xa8b2frame\x00", "not a frame");
    assert_eq!(frame[0x0a], 0xd2);
    let header_len = be_i32(&frame[0x0b..]) as usize;
    assert_eq!(frame[0x2f], 0xd2);
    let typesize = be_i32(&frame[0x30..]);
    assert_eq!(frame[0x34], 0xd2);
    let blocksize = be_i32(&frame[0x35..]);
    assert_eq!(frame[0x39], 0xd2);
    let chunksize = be_i32(&frame[0x3a..]);
    // metalayers section
    let m = &frame[87..header_len];
    assert_eq!(&m[0..2], &[0x93, 0xcd]);
    assert_eq!(m[4], 0xde);
    let n = u16::from_be_bytes([m[5], m[6]]) as usize;
    let mut pos = 7;
    let mut metalayers = Vec::new();
    for _ in 0..n {
        let len = (m[pos] - 0xa0) as usize;
        let name = String::from_utf8(m[pos + 1..pos + 1 + len].to_vec()).unwrap();
        pos += 1 + len;
        assert_eq!(m[pos], 0xd2);
        let off = be_i32(&m[pos + 1..]) as usize;
        pos += 5;
        assert_eq!(frame[off], 0xc6, "metalayer {name}: no bin32 marker");
        let clen = u32::from_be_bytes(frame[off + 1..off + 5].try_into().unwrap()) as usize;
        metalayers.push((name, frame[off + 5..off + 5 + clen].to_vec()));
    }
    FrameHeader {
        typesize,
        blocksize,
        chunksize,
        metalayers,
    }
}

fn b2nd_meta_of(path: &Path) -> (FrameHeader, Vec<u8>) {
    let frame = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let h = parse_frame_header(&frame);
    let bytes = h
        .metalayers
        .iter()
        .find(|(n, _)| n == "b2nd")
        .unwrap_or_else(|| panic!("{}: no b2nd metalayer", path.display()))
        .1
        .clone();
    (h, bytes)
}

#[test]
fn testdata_files() {
    let Some(shared) = common::shared_dir() else {
        common::skip("testdata_files", "no shared/ directory");
        return;
    };
    let dir = shared.join("testdata/b2nd");
    // (file, shape, chunkshape, blockshape, nchunks, chunk bytes, blocksize) from testdata/README.md
    type Case = (
        &'static str,
        &'static [i64],
        &'static [i32],
        &'static [i32],
        i64,
        i32,
        i32,
    );
    let cases: [Case; 2] = [
        (
            "example_day_month_temp.b2nd",
            &[400, 3],
            &[110, 3],
            &[57, 3],
            4,
            1368,
            684,
        ),
        (
            "example_item_prices.b2nd",
            &[12, 25, 250],
            &[8, 10, 50],
            &[4, 5, 10],
            30,
            16000,
            800,
        ),
    ];
    for (file, shape, chunkshape, blockshape, nchunks, chunk_nbytes, blocksize) in cases {
        let (h, bytes) = b2nd_meta_of(&dir.join(file));
        assert_eq!(h.metalayers.len(), 1, "{file}");
        let (meta, len) = Meta::deserialize(&bytes).unwrap();
        assert_eq!(len, bytes.len(), "{file}");
        assert_eq!(meta.shape, shape, "{file}");
        assert_eq!(meta.chunkshape, chunkshape, "{file}");
        assert_eq!(meta.blockshape, blockshape, "{file}");
        assert_eq!(meta.dtype_format, 0, "{file}");
        assert_eq!(meta.dtype_str(), Some("|u1"), "{file}");
        assert_eq!(
            meta.serialize().unwrap(),
            bytes,
            "{file}: re-encoding differs"
        );
        // The element size is the frame typesize (4), not the dtype's.
        assert_eq!(h.typesize, 4, "{file}");
        let g = meta.geometry().unwrap();
        assert_eq!(g.nchunks(), nchunks, "{file}");
        assert_eq!(g.chunk_nbytes(h.typesize), Ok(chunk_nbytes), "{file}");
        assert_eq!(h.chunksize, chunk_nbytes, "{file}");
        assert_eq!(g.block_nbytes(h.typesize), Ok(blocksize), "{file}");
        assert_eq!(h.blocksize, blocksize, "{file}");
    }
    // example_item_prices: blocks tile the chunks, the array is padded to [16, 30, 250].
    let (_, bytes) = b2nd_meta_of(&dir.join("example_item_prices.b2nd"));
    let g = Meta::deserialize(&bytes).unwrap().0.geometry().unwrap();
    assert_eq!(g.extchunkshape(), &[8, 10, 50]);
    assert_eq!(g.extshape(), &[16, 30, 250]);
    assert_eq!(g.chunks_grid(), &[2, 3, 5]);
}

/// Arrays written by python-blosc2: one line per array,
/// `path;shape;chunks;blocks;ext_shape;ext_chunks;dtype;typesize;nchunks;chunksize;blocksize`
/// (lists comma-separated; `dtype` is what python-blosc2 stores, B2ND.md §1.2).
const PY_SCRIPT: &str = r#"
import sys, numpy as np, blosc2
out = sys.argv[1]
cases = [
    ((10, 7), (5, 4), (2, 3), 'f4'),
    ((100,), (30,), (7,), 'f8'),
    ((100,), None, None, 'i8'),
    ((33, 17), (10, 10), (3, 10), 'u2'),
    ((5, 6, 7), (2, 3, 4), (1, 2, 3), 'i4'),
    ((4, 5, 6, 7), (2, 5, 3, 4), (1, 2, 3, 4), 'u1'),
    ((3, 4, 3, 4, 3), (2, 2, 2, 2, 2), (1, 2, 1, 2, 1), 'i1'),
    ((2, 3, 2, 3, 2, 3), (2, 2, 2, 2, 2, 2), (1, 1, 2, 2, 1, 1), '?'),
    ((2, 2, 3, 2, 2, 3, 2), (1, 2, 2, 2, 1, 2, 2), (1, 1, 1, 2, 1, 1, 2), 'c16'),
    ((2,) * 8, (2,) * 8, (1,) * 8, 'c8'),
    ((3,) * 8, (2,) * 8, (1, 2) * 4, 'S10'),
    ((7, 9), (7, 9), (7, 9), 'U8'),
    ((50,), (20,), (20,), 'M8[ns]'),
    ((50,), (20,), (8,), 'm8[s]'),
    ((6, 4), (4, 4), (2, 2), [('a', '<i4'), ('b', '<f8')]),
    ((6,), (4,), (2,), [('x', '<f4', (2,)), ('y', 'u1')]),
    ((0, 5), (2, 5), (1, 5), 'i4'),
    ((0, 5), (0, 5), (0, 5), 'i4'),
    ((), None, None, 'f8'),
    ((), None, None, 'i2'),
    ((10, 10), (20, 3), (7, 2), 'f4'),
    ((1000, 1000), None, None, 'f8'),
]
for i, (shape, chunks, blocks, dt) in enumerate(cases):
    path = f"{out}/a{i}.b2nd"
    a = blosc2.zeros(shape, chunks=chunks, blocks=blocks, dtype=dt, urlpath=path, mode='w')
    d = a.dtype
    dstr = str(d) if d.fields is not None else d.str
    j = lambda v: ','.join(str(x) for x in v)
    s = a.schunk
    print(';'.join([path, j(a.shape), j(a.chunks), j(a.blocks), j(a.ext_shape), j(a.ext_chunks),
                    dstr, str(s.typesize), str(s.nchunks), str(s.chunksize), str(s.blocksize)]))
"#;

fn python_has_blosc2() -> bool {
    Command::new("python3")
        .args(["-c", "import blosc2, numpy"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
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

#[test]
fn python_blosc2_metalayers() {
    if !python_has_blosc2() {
        common::skip(
            "python_blosc2_metalayers",
            "python3 with blosc2 and numpy not found",
        );
        return;
    }
    let scratch = common::Scratch::new("b2nd", "python");
    let script = scratch.path("make.py");
    std::fs::write(&script, PY_SCRIPT).unwrap();
    let out = common::run_cmd(
        Command::new("python3").arg(&script).arg(&scratch.dir),
        Duration::from_secs(300),
    );
    assert!(
        out.ok(),
        "python3 failed: {}\n{}",
        out.describe(),
        out.stderr
    );
    let mut n = 0;
    for line in out.stdout.lines().filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split(';').collect();
        assert_eq!(f.len(), 11, "bad line {line}");
        let shape: Vec<i64> = list(f[1]);
        let chunks: Vec<i32> = list(f[2]);
        let blocks: Vec<i32> = list(f[3]);
        let ext_shape: Vec<i64> = list(f[4]);
        let ext_chunks: Vec<i64> = list(f[5]);
        let dtype = f[6];
        let typesize: i32 = f[7].parse().unwrap();
        let nchunks: i64 = f[8].parse().unwrap();
        let chunksize: i32 = f[9].parse().unwrap();
        let blocksize: i32 = f[10].parse().unwrap();

        let (h, bytes) = b2nd_meta_of(Path::new(f[0]));
        let ours = Meta::new(&shape, &chunks, &blocks).with_dtype(dtype);
        assert_eq!(
            ours.serialize().unwrap(),
            bytes,
            "{line}: our metalayer differs from python-blosc2's"
        );
        let (back, len) = Meta::deserialize(&bytes).unwrap();
        assert_eq!((back, len), (ours, bytes.len()), "{line}");
        assert_eq!(h.typesize, typesize, "{line}");

        let g = Geometry::new(&shape, &chunks, &blocks).unwrap();
        assert_eq!(g.extshape(), ext_shape, "{line}: extshape");
        assert_eq!(g.extchunkshape(), ext_chunks, "{line}: extchunkshape");
        assert_eq!(g.nchunks(), nchunks, "{line}: nchunks");
        assert_eq!(g.chunk_nbytes(typesize), Ok(chunksize), "{line}: chunksize");
        if g.nitems() > 0 {
            assert_eq!(g.block_nbytes(typesize), Ok(blocksize), "{line}: blocksize");
        }
        n += 1;
    }
    assert_eq!(n, 22, "python-blosc2 printed {n} arrays:\n{}", out.stdout);
}
