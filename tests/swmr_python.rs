//! One frame shared with another process running Python blosc2 (the reference C-Blosc2 3.3.5,
//! in a `python3` subprocess), through the Rust API, for a contiguous frame file and a sparse
//! frame directory:
//!
//! - Python appends to, updates and adds a vlmetalayer to a frame a b2rs handle has open and
//!   has read: the b2rs handle's next reads (which re-validate the frame) see the new chunks,
//!   the replaced chunk and the counters; `Schunk::sync` reports the change once.
//! - b2rs appends to and updates a frame a Python process has open and has read: Python's
//!   next reads see them.

mod common;

use b2rs::frame::{Frame, FrameParams, Location, StdIo};
use b2rs::schunk::Schunk;
use b2rs::{CParams, DParams};
use common::Scratch;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;

const N: usize = 1000;

fn python_blosc2() -> bool {
    common::python_imports("blosc2, numpy")
}

/// Skip (locally) or fail (in CI) without Python blosc2.
fn have_python(test: &str) -> bool {
    if python_blosc2() {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{test}: Python blosc2 is needed in CI"
    );
    common::skip(test, "python3 -c 'import blosc2' fails");
    false
}

fn chunk_of(seed: i32) -> Vec<u8> {
    (0..N as i32)
        .flat_map(|i| (seed * 1000 + i % 13).to_le_bytes())
        .collect()
}

fn first(sc: &mut Schunk, n: i64) -> i32 {
    let mut out = vec![0u8; N * 4];
    sc.decompress_chunk(n, &mut out).expect("decompress");
    i32::from_le_bytes(out[..4].try_into().unwrap())
}

fn new_frame(path: &Path, sparse: bool, nchunks: i32) -> Schunk {
    let cparams = CParams {
        typesize: 4,
        ..CParams::default()
    };
    let loc = if sparse {
        Location::Dir(path.into())
    } else {
        Location::File {
            path: path.into(),
            offset: 0,
        }
    };
    let params = FrameParams::from_cparams(&cparams, 1);
    let frame = Frame::create(loc, &params, Arc::new(StdIo)).expect("create");
    let mut sc = Schunk::with_frame(cparams, DParams::default(), frame);
    for c in 0..nchunks {
        sc.append_buffer(&chunk_of(10 + c)).expect("append");
    }
    sc
}

fn open(path: &Path) -> Schunk {
    let frame = Frame::open_path(path, 0, Arc::new(StdIo)).expect("open");
    Schunk::from_frame(frame, DParams::default())
}

const PY_WRITER: &str = r#"
import sys, numpy as np, blosc2
sc = blosc2.open(sys.argv[1], mode="a")
def chunk(seed):
    return (seed * 1000 + np.arange(1000, dtype=np.int32) % 13).astype(np.int32)
sc.append_data(chunk(50))
sc.append_data(chunk(51))
sc.update_data(1, chunk(60), copy=True)
sc.vlmeta["note"] = b"written by python"
print(sc.nchunks)
"#;

fn check_python_writes(sparse: bool) {
    let s = Scratch::new("swmr", if sparse { "pyw-dir" } else { "pyw-file" });
    let path = s.path(if sparse { "a.b2frame.d" } else { "a.b2frame" });
    drop(new_frame(&path, sparse, 3));
    let mut reader = open(&path);
    assert_eq!(first(&mut reader, 1), 11000);
    let out = Command::new("python3")
        .args(["-c", PY_WRITER])
        .arg(&path)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "python: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "5");
    // the next read re-validates the frame
    assert_eq!(first(&mut reader, 1), 60000);
    assert_eq!(reader.nchunks(), 5);
    assert_eq!(first(&mut reader, 3), 50000);
    assert_eq!(first(&mut reader, 4), 51000);
    assert_eq!(reader.nbytes(), 5 * N as i64 * 4);
    assert!(reader.vlmetalayers().iter().any(|m| m.name == "note"));
    assert!(!reader.sync().unwrap());
    // an explicit re-validation after another change
    let more = Command::new("python3")
        .args([
            "-c",
            "import sys, numpy as np, blosc2; sc = blosc2.open(sys.argv[1], mode='a'); \
             sc.append_data(np.full(1000, 7, dtype=np.int32))",
        ])
        .arg(&path)
        .output()
        .expect("python3");
    assert!(more.status.success());
    assert_eq!(reader.nchunks(), 5);
    assert!(reader.sync().unwrap());
    assert_eq!(reader.nchunks(), 6);
    assert_eq!(first(&mut reader, 5), 7);
}

#[test]
fn python_writes_b2rs_reader_follows_file() {
    if have_python("python_writes_b2rs_reader_follows_file") {
        check_python_writes(false);
    }
}

#[test]
fn python_writes_b2rs_reader_follows_dir() {
    if have_python("python_writes_b2rs_reader_follows_dir") {
        check_python_writes(true);
    }
}

const PY_READER: &str = r#"
import sys, numpy as np, blosc2
sc = blosc2.open(sys.argv[1])
first = lambda n: int(np.frombuffer(sc.decompress_chunk(n), dtype=np.int32)[0])
print(sc.nchunks, first(0), flush=True)
sys.stdin.readline()
print(first(0), first(3), sc.nchunks, flush=True)
"#;

fn check_b2rs_writes(sparse: bool) {
    let s = Scratch::new("swmr", if sparse { "rsw-dir" } else { "rsw-file" });
    let path = s.path(if sparse { "b.b2frame.d" } else { "b.b2frame" });
    let mut writer = new_frame(&path, sparse, 3);
    let mut py = Command::new("python3")
        .args(["-c", PY_READER])
        .arg(&path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3");
    let mut lines = BufReader::new(py.stdout.take().unwrap()).lines();
    let ready = lines.next().expect("python output").expect("line");
    assert_eq!(ready.trim(), "3 10000");
    writer.append_buffer(&chunk_of(70)).expect("append");
    let mut buf = vec![0u8; N * 4 + 64];
    let n = b2rs::chunk::compress(&writer.cparams().clone(), &chunk_of(80), &mut buf).unwrap();
    buf.truncate(n);
    writer.update_chunk(0, buf).expect("update");
    let mut stdin = py.stdin.take().unwrap();
    writeln!(stdin, "go").unwrap();
    drop(stdin);
    let after = lines.next().expect("python output").expect("line");
    let status = py.wait().unwrap();
    assert!(status.success(), "python reader failed");
    assert_eq!(after.trim(), "80000 70000 4");
}

#[test]
fn b2rs_writes_python_reader_follows_file() {
    if have_python("b2rs_writes_python_reader_follows_file") {
        check_b2rs_writes(false);
    }
}

#[test]
fn b2rs_writes_python_reader_follows_dir() {
    if have_python("b2rs_writes_python_reader_follows_dir") {
        check_b2rs_writes(true);
    }
}
