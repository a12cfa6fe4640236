//! B2ND arrays (`b2rs::b2nd::Array`) against python-blosc2 (the reference, run as a `python3`
//! subprocess):
//! * `b2nd_python_written_arrays_read_exactly`: arrays written by Python to `.b2nd` files (cframes)
//!   and sparse frame directories, for ndim 0..8, zero-length dimensions, chunk/block shapes
//!   that do not divide the shape, dtypes of 1..16 bytes and a large structured one, read through
//!   the Rust core's `Frame` and `Array` give exactly NumPy's bytes, whole and for slices.
//! * `b2nd_arrays_written_by_us_read_by_python`: arrays made in memory by `Array` (from buffers,
//!   fills, after slice writes and shape changes), serialised to cframe bytes, are read by
//!   `blosc2.open` with exactly the expected content, shape, chunks, blocks and dtype.
//!
//! A test prints `SKIPPED: ...` and passes when `python3` with `blosc2` is absent.

mod common;

use b2rs::b2nd::array::schunk_from_frame;
use b2rs::b2nd::{Array, Fill, Meta};
use b2rs::frame::{Frame, StdIo};
use b2rs::{CParams, DParams};
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

fn list<T: std::str::FromStr>(s: &str) -> Vec<T>
where
    T::Err: std::fmt::Debug,
{
    if s.is_empty() {
        return Vec::new();
    }
    s.split(',').map(|x| x.parse().unwrap()).collect()
}

fn run_python(scratch: &common::Scratch, script: &str) -> String {
    let path = scratch.path("script.py");
    std::fs::write(&path, script).unwrap();
    let out = common::run_cmd(
        Command::new("python3").arg(&path).arg(&scratch.dir),
        Duration::from_secs(600),
    );
    assert!(
        out.ok(),
        "python3 failed: {}\n{}",
        out.describe(),
        out.stderr
    );
    out.stdout
}

const WRITE_PY: &str = r#"
import sys, os
import numpy as np
import blosc2

d = sys.argv[1]
rng = np.random.default_rng(1)
struct = np.dtype([('a', '<i4'), ('b', '<f8'), ('c', 'S13'), ('d', '<u2', (3,))])
cases = [
    ((), None, None, 'f8'),
    ((10,), (7,), (2,), 'i1'),
    ((1000,), (100,), (30,), 'f4'),
    ((14, 10), (8, 5), (2, 2), 'i2'),
    ((400, 3), (110, 3), (57, 3), 'f4'),
    ((20, 0), (7, 1), (3, 1), 'i8'),
    ((10, 10, 10), (3, 5, 9), (3, 4, 4), 'c16'),
    ((5, 4, 3, 2), (2, 3, 3, 1), (1, 2, 2, 1), 'u2'),
    ((3, 4, 2, 5, 3), (2, 2, 2, 3, 3), (1, 2, 1, 2, 2), 'i4'),
    ((2, 3, 2, 3, 2, 3), (1, 2, 2, 2, 1, 2), (1, 1, 2, 1, 1, 2), 'u1'),
    ((2, 2, 3, 2, 2, 3, 2), (2, 1, 2, 2, 2, 2, 1), (1, 1, 1, 2, 1, 2, 1), 'f8'),
    ((3, 2, 3, 2, 3, 2, 1, 2), (2, 2, 2, 2, 2, 2, 1, 1), (1, 1, 2, 1, 1, 2, 1, 1), 'i2'),
    ((33, 17), (10, 6), (4, 5), struct),
    ((50,), (16,), (5,), 'U3'),
    ((7, 9), (4, 4), (4, 4), '?'),
]
for k, (shape, chunks, blocks, dt) in enumerate(cases):
    dt = np.dtype(dt)
    n = int(np.prod(shape)) if shape else 1
    raw = rng.integers(0, 256, size=n * dt.itemsize, dtype=np.uint8).tobytes()
    if dt.kind == 'U':
        arr = np.array([chr(65 + i % 26) * (i % 4) for i in range(n)], dtype=dt).reshape(shape)
    elif dt.kind == 'b':
        arr = (np.frombuffer(raw, dtype=np.uint8) % 2).astype(dt).reshape(shape)
    else:
        arr = np.frombuffer(raw, dtype=dt).reshape(shape).copy()
    for contiguous in (True, False):
        path = os.path.join(d, f"a{k}_{int(contiguous)}.b2nd")
        kw = dict(urlpath=path, contiguous=contiguous, mode='w')
        if chunks is not None:
            kw.update(chunks=chunks, blocks=blocks)
        a = blosc2.asarray(arr, **kw)
        if k == 3 and contiguous:
            # a resized array: the super-chunk was changed after creation
            a.resize((20, 10))
            a[14:20, :] = np.arange(60, dtype=dt).reshape(6, 10)
            arr = a[...]
        with open(path + '.raw', 'wb') as f:
            f.write(np.ascontiguousarray(arr).tobytes())
        # slices: start/stop per dimension
        start = [s // 3 for s in arr.shape]
        stop = [s - s // 4 for s in arr.shape]
        sl = tuple(slice(a0, b0) for a0, b0 in zip(start, stop))
        with open(path + '.slice', 'wb') as f:
            f.write(np.ascontiguousarray(arr[sl]).tobytes())
        j = lambda v: ','.join(str(x) for x in v)
        print(';'.join([path, j(arr.shape), j(a.chunks), j(a.blocks), str(dt.itemsize),
                        j(start), j(stop)]))
"#;

#[test]
fn b2nd_python_written_arrays_read_exactly() {
    if !python_has_blosc2() {
        common::skip(
            "b2nd_python_written_arrays_read_exactly",
            "python3 with blosc2 and numpy not found",
        );
        return;
    }
    let scratch = common::Scratch::new("b2nd_array", "python_written");
    let out = run_python(&scratch, WRITE_PY);
    let mut n = 0;
    for line in out.lines().filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split(';').collect();
        assert_eq!(f.len(), 7, "bad line {line}");
        let path = Path::new(f[0]);
        let shape: Vec<i64> = list(f[1]);
        let chunks: Vec<i32> = list(f[2]);
        let blocks: Vec<i32> = list(f[3]);
        let itemsize: usize = f[4].parse().unwrap();
        let start: Vec<i64> = list(f[5]);
        let stop: Vec<i64> = list(f[6]);

        let frame = Frame::open_path(path, 0, Arc::new(StdIo)).unwrap();
        let sc = schunk_from_frame(&frame).unwrap();
        let mut a = Array::open(sc).unwrap();
        assert_eq!(a.shape(), &shape[..], "{line}");
        assert_eq!(a.geometry().chunkshape(), &chunks[..], "{line}");
        assert_eq!(a.geometry().blockshape(), &blocks[..], "{line}");
        assert_eq!(a.itemsize(), itemsize, "{line}");

        let want = std::fs::read(format!("{}.raw", f[0])).unwrap();
        let got = a.to_vec().unwrap();
        assert!(got == want, "{line}: the array differs from NumPy's bytes");

        let want = std::fs::read(format!("{}.slice", f[0])).unwrap();
        let sshape: Vec<i64> = stop.iter().zip(&start).map(|(b, a)| b - a).collect();
        let mut got = vec![0u8; want.len()];
        a.get_slice_cbuffer(&start, &stop, &mut got, &sshape)
            .unwrap();
        assert!(got == want, "{line}: the slice differs from NumPy's bytes");

        // the same through an in-memory cframe of our own
        let cf = a.to_cframe().unwrap();
        let mut b = Array::from_cframe(cf).unwrap();
        assert!(b.to_vec().unwrap() == a.to_vec().unwrap(), "{line}");
        n += 1;
    }
    assert!(n >= 30, "only {n} arrays checked");
}

const READ_PY: &str = r#"
import sys, os, ast
import numpy as np
import blosc2

d = sys.argv[1]
bad = 0
n = 0
for line in open(os.path.join(d, 'manifest.txt')):
    line = line.rstrip('\n')
    if not line:
        continue
    name, shape, chunks, blocks, dtype = line.split(';')
    lst = lambda s: tuple(int(x) for x in s.split(',')) if s else ()
    shape, chunks, blocks = lst(shape), lst(chunks), lst(blocks)
    dt = np.dtype(ast.literal_eval(dtype)) if dtype.startswith('[') else np.dtype(dtype)
    path = os.path.join(d, name)
    try:
        a = blosc2.open(path)
    except Exception as e:
        bad += 1
        print(name, "cannot open:", e)
        continue
    raw = open(path + '.raw', 'rb').read()
    want = np.frombuffer(raw, dtype=dt).reshape(shape)
    got = a[()] if shape == () else a[...]
    problems = []
    if tuple(a.shape) != shape: problems.append(f"shape {a.shape}")
    if tuple(a.chunks) != chunks: problems.append(f"chunks {a.chunks}")
    if tuple(a.blocks) != blocks: problems.append(f"blocks {a.blocks}")
    if a.dtype != dt: problems.append(f"dtype {a.dtype}")
    if np.asarray(got).tobytes() != want.tobytes(): problems.append("content")
    if shape and all(s > 1 for s in shape):
        sl = tuple(slice(1, s - 1) for s in shape)
        if np.asarray(a[sl]).tobytes() != np.ascontiguousarray(want[sl]).tobytes():
            problems.append("slice")
    if problems:
        bad += 1
        print(name, problems)
    n += 1
print(f"checked {n}, bad {bad}")
sys.exit(1 if bad else 0)
"#;

/// shape, chunk shape, block shape, dtype, item size
type Case<'a> = (Vec<i64>, Vec<i32>, Vec<i32>, &'a str, usize);

fn meta(shape: &[i64], chunks: &[i32], blocks: &[i32], dtype: &str) -> Meta {
    Meta::new(shape, chunks, blocks).with_dtype(dtype)
}

fn params(typesize: i32) -> (CParams, DParams) {
    (
        CParams {
            typesize,
            ..CParams::default()
        },
        DParams::default(),
    )
}

#[test]
fn b2nd_arrays_written_by_us_read_by_python() {
    if !python_has_blosc2() {
        common::skip(
            "b2nd_arrays_written_by_us_read_by_python",
            "python3 with blosc2 and numpy not found",
        );
        return;
    }
    let scratch = common::Scratch::new("b2nd_array", "python_reads");
    let mut rng = common::Rng::new(7);
    let mut manifest = String::new();
    let structured = "[('a', '<i4'), ('b', '<f8'), ('c', 'S13')]";
    let cases: Vec<Case> = vec![
        (vec![], vec![], vec![], "<f8", 8),
        (vec![10], vec![7], vec![2], "|i1", 1),
        (vec![1000], vec![100], vec![30], "<f4", 4),
        (vec![14, 10], vec![8, 5], vec![2, 2], "<i2", 2),
        (vec![400, 3], vec![110, 3], vec![57, 3], "<f4", 4),
        (vec![20, 0], vec![7, 1], vec![3, 1], "<i8", 8),
        (vec![10, 10, 10], vec![3, 5, 9], vec![3, 4, 4], "<c16", 16),
        (
            vec![5, 4, 3, 2],
            vec![2, 3, 3, 1],
            vec![1, 2, 2, 1],
            "<u2",
            2,
        ),
        (
            vec![3, 4, 2, 5, 3],
            vec![2, 2, 2, 3, 3],
            vec![1, 2, 1, 2, 2],
            "<i4",
            4,
        ),
        (
            vec![3, 2, 3, 2, 3, 2, 1, 2],
            vec![2, 2, 2, 2, 2, 2, 1, 1],
            vec![1, 1, 2, 1, 1, 2, 1, 1],
            "<i2",
            2,
        ),
        (vec![33, 17], vec![10, 6], vec![4, 5], structured, 25),
    ];
    let mut add = |name: &str, a: &mut Array, dtype: &str| {
        let path = scratch.path(name);
        std::fs::write(&path, a.to_cframe().unwrap()).unwrap();
        std::fs::write(format!("{}.raw", path.display()), a.to_vec().unwrap()).unwrap();
        let j = |v: Vec<String>| v.join(",");
        let g = a.geometry();
        manifest.push_str(&format!(
            "{name};{};{};{};{dtype}\n",
            j(g.shape().iter().map(|x| x.to_string()).collect()),
            j(g.chunkshape().iter().map(|x| x.to_string()).collect()),
            j(g.blockshape().iter().map(|x| x.to_string()).collect()),
        ));
    };
    for (k, (shape, chunks, blocks, dtype, itemsize)) in cases.iter().enumerate() {
        let n: i64 = shape.iter().product();
        let mut data = vec![0u8; n as usize * itemsize];
        rng.fill(&mut data);
        let (cp, dp) = params(*itemsize as i32);
        let m = meta(shape, chunks, blocks, dtype);
        let mut a = Array::new(cp.clone(), dp.clone(), &m, Fill::Buffer(&data)).unwrap();
        assert!(a.to_vec().unwrap() == data);
        add(&format!("buf{k}.b2nd"), &mut a, dtype);

        // a slice overwritten, then the array grown and shrunk at the end
        if n > 0 && !shape.is_empty() {
            let start: Vec<i64> = shape.iter().map(|s| s / 3).collect();
            let stop: Vec<i64> = shape.iter().map(|s| s - s / 4).collect();
            let sshape: Vec<i64> = stop.iter().zip(&start).map(|(b, a)| b - a).collect();
            let len = sshape.iter().product::<i64>() as usize * itemsize;
            a.set_slice_cbuffer(&vec![3u8; len], &sshape, &start, &stop)
                .unwrap();
            let mut grown = shape.clone();
            grown[0] += 5;
            a.resize(&grown, None).unwrap();
            add(&format!("mod{k}.b2nd"), &mut a, dtype);
        }
        // fills
        let mut z = Array::new(cp.clone(), dp.clone(), &m, Fill::Zero).unwrap();
        add(&format!("zero{k}.b2nd"), &mut z, dtype);
        let value: Vec<u8> = (0..*itemsize as u8).collect();
        let value = if *dtype == "<f8" || *dtype == "<c16" {
            2.5f64.to_le_bytes().repeat(itemsize / 8)
        } else if *dtype == "<f4" {
            2.5f32.to_le_bytes().to_vec()
        } else {
            value
        };
        let mut f = Array::new(cp, dp, &m, Fill::Value(&value)).unwrap();
        add(&format!("full{k}.b2nd"), &mut f, dtype);
    }
    std::fs::write(scratch.path("manifest.txt"), &manifest).unwrap();
    let out = run_python(&scratch, READ_PY);
    assert!(out.contains("bad 0"), "{out}");
}

/// `shared/testdata/b2nd/*.b2nd` (written by C-Blosc2) read through `Frame` and `Array` give the
/// C-order arrays of `testdata/README.md` (SHA-256), and the elements of B2ND.md §4.4.
#[test]
fn b2nd_testdata_arrays() {
    let Some(shared) = common::shared_dir() else {
        common::skip("b2nd_testdata_arrays", "../shared not found");
        return;
    };
    let scratch = common::Scratch::new("b2nd_array", "testdata");
    let files = [
        (
            "example_day_month_temp.b2nd",
            vec![400i64, 3],
            "0dc81ad04c51978088816bfd06241fecc8ca9cb4c132ffd1d9ade02fada31228",
        ),
        (
            "example_item_prices.b2nd",
            vec![12, 25, 250],
            "55bf0fe603f55201bfaad37d64de94cea1cbd39911930787458bb6e6edaae28c",
        ),
    ];
    for (name, shape, sha) in files {
        let path = shared.join("testdata/b2nd").join(name);
        let frame = Frame::open_path(&path, 0, Arc::new(StdIo)).unwrap();
        let mut a = Array::open(schunk_from_frame(&frame).unwrap()).unwrap();
        assert_eq!(a.shape(), &shape[..], "{name}");
        assert_eq!(a.itemsize(), 4, "{name}");
        let all = a.to_vec().unwrap();
        assert_eq!(common::sha256_bytes(&scratch, name, &all), sha, "{name}");
        if name == "example_day_month_temp.b2nd" {
            let mut v = [0u8; 4];
            a.get_slice_cbuffer(&[111, 1], &[112, 2], &mut v, &[1, 1])
                .unwrap();
            assert_eq!(v, [0x50, 0x8d, 0xdf, 0xc0]);
            // flat index 100 * 3 + 2
            a.get_sparse_cbuffer(&[302], &mut v).unwrap();
            assert_eq!(v, [0x9d, 0xef, 0x14, 0x42]);
        }
    }
}
