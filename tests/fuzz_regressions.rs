//! The fuzz targets' bodies (`fuzz/src/targets.rs`) run in the normal test suite on:
//!
//! * `fuzz/regressions/TARGET/*`: every input a fuzzer found crashing (kept after the fix, so
//!   the bug stays fixed);
//! * `fuzz/seeds/TARGET/*`: the committed seeds (valid inputs of every kind: the targets'
//!   round-trip and getitem-agreement assertions hold on them).
//!
//! A failing input is named in the panic message; `tools/fuzz.sh` has the fuzzing commands.

#[allow(dead_code, missing_docs)]
#[path = "../fuzz/src/lib.rs"]
mod harness;

use arbitrary::{Arbitrary, Unstructured};
use harness::targets;
use std::path::{Path, PathBuf};

fn inputs(target: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let mut v = Vec::new();
    for kind in ["regressions", "seeds"] {
        if let Ok(rd) = std::fs::read_dir(root.join(kind).join(target)) {
            v.extend(rd.flatten().map(|e| e.path()).filter(|p| p.is_file()));
        }
    }
    v.sort();
    v
}

fn run_all(target: &str, f: impl Fn(&[u8])) -> usize {
    let files = inputs(target);
    for p in &files {
        let data = std::fs::read(p).unwrap();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&data)));
        assert!(r.is_ok(), "{target}: the input {} fails", p.display());
    }
    files.len()
}

#[test]
fn fuzz_chunk_decompress() {
    assert!(run_all("chunk_decompress", targets::chunk_decompress) > 0);
}

#[test]
fn fuzz_chunk_roundtrip() {
    run_all("chunk_roundtrip", |data| {
        // as libfuzzer-sys builds a typed input
        if let Ok(inp) = targets::RoundtripInput::arbitrary_take_rest(Unstructured::new(data)) {
            targets::chunk_roundtrip(&inp);
        }
    });
}

#[test]
fn fuzz_frame_decode() {
    assert!(run_all("frame_decode", targets::frame_decode) > 0);
}

#[test]
fn fuzz_sframe_decode() {
    assert!(run_all("sframe_decode", targets::sframe_decode) > 0);
}

#[test]
fn fuzz_metalayers() {
    assert!(run_all("metalayers", targets::metalayers) > 0);
}

#[test]
fn fuzz_b2nd_meta() {
    assert!(run_all("b2nd_meta", targets::b2nd_meta) > 0);
}

#[test]
fn fuzz_b2nd_array() {
    assert!(run_all("b2nd_array", targets::b2nd_array) > 0);
}

#[test]
fn fuzz_bloscpack() {
    assert!(run_all("bloscpack", targets::bloscpack) > 0);
}
