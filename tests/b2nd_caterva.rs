//! Arrays whose only metalayer is the legacy `caterva` one (B2ND.md §1.1).
//!
//! `tests/c/caterva_write.c` writes such arrays (file frames holding a raw "caterva" metalayer
//! and chunks laid out by `b2nd_from_cbuffer`), and `tests/c/b2nd_dump.c` opens them with
//! `b2nd_open` and prints their description and content. Both are built against the reference
//! C-Blosc2 and against b2rs, and run in separate processes:
//! * arrays written by the reference open in b2rs (C API and Rust core) with the description
//!   the reference gives (no dtype) and the expected content;
//! * arrays written by b2rs open in the reference the same way.

mod common;

use b2rs::b2nd::array::schunk_from_frame;
use b2rs::b2nd::Array;
use b2rs::frame::{Frame, StdIo};
use common::Lib;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

const NAMES: [&str; 5] = ["i4_2d", "u1_1d", "f8_3d", "s6_4d", "i8_empty"];

fn build(scratch: &common::Scratch, ref_dir: &Path, prog: &str, lib: Lib) -> PathBuf {
    let src = common::repo_root()
        .join("tests/c")
        .join(format!("{prog}.c"));
    let tag = if lib == Lib::Ref { "ref" } else { "ours" };
    let out = scratch.path(&format!("{prog}-{tag}"));
    common::compile_c(&src, &out, lib, ref_dir).unwrap();
    out
}

fn run(cmd: &mut Command) -> String {
    let o = common::run_cmd(cmd, Duration::from_secs(300));
    assert!(o.ok(), "{}\n{}\n{}", o.describe(), o.stdout, o.stderr);
    o.stdout
}

/// Run the dump program on the arrays of `dir`; returns its description lines with the
/// directory stripped, after checking every content against `<name>.expected`.
fn dump(prog: &Path, dir: &Path) -> Vec<String> {
    let files: Vec<PathBuf> = NAMES
        .iter()
        .map(|n| dir.join(format!("{n}.b2frame")))
        .collect();
    let out = run(Command::new(prog).args(&files));
    for n in NAMES {
        let got = std::fs::read(dir.join(format!("{n}.b2frame.out"))).unwrap();
        let want = std::fs::read(dir.join(format!("{n}.expected"))).unwrap();
        assert!(got == want, "{}: {n}: content differs", prog.display());
    }
    let prefix = format!("{}/", dir.display());
    out.lines().map(|l| l.replace(&prefix, "")).collect()
}

/// The Rust core opens every array of `dir` with the same content.
fn rust_core_reads(dir: &Path) {
    for n in NAMES {
        let path = dir.join(format!("{n}.b2frame"));
        let frame = Frame::open_path(&path, 0, Arc::new(StdIo)).unwrap();
        let sc = schunk_from_frame(&frame).unwrap();
        let mut a = Array::open(sc).unwrap();
        assert_eq!(a.dtype(), None, "{n}: a caterva array has no dtype");
        let want = std::fs::read(dir.join(format!("{n}.expected"))).unwrap();
        assert!(a.to_vec().unwrap() == want, "{n}: content differs");
    }
}

#[test]
fn caterva_arrays_both_ways() {
    let Some(ref_dir) = common::ref_dir() else {
        common::skip("caterva_arrays_both_ways", &common::missing_ref_message());
        return;
    };
    let scratch = common::Scratch::new("b2nd_caterva", "both_ways");
    let write_ref = build(&scratch, &ref_dir, "caterva_write", Lib::Ref);
    let write_ours = build(&scratch, &ref_dir, "caterva_write", Lib::Ours);
    let dump_ref = build(&scratch, &ref_dir, "b2nd_dump", Lib::Ref);
    let dump_ours = build(&scratch, &ref_dir, "b2nd_dump", Lib::Ours);

    let by_ref = scratch.path("by_ref");
    let by_ours = scratch.path("by_ours");
    for d in [&by_ref, &by_ours] {
        std::fs::create_dir_all(d).unwrap();
    }
    run(Command::new(&write_ref).arg(&by_ref));
    run(Command::new(&write_ours).arg(&by_ours));

    // what the reference says of its own files is the expectation
    let want = dump(&dump_ref, &by_ref);
    assert_eq!(want.len(), NAMES.len(), "{want:?}");
    for l in &want {
        assert!(
            l.contains("dtype=(null)") && l.ends_with("metas=caterva"),
            "{l}"
        );
    }
    assert_eq!(
        dump(&dump_ours, &by_ref),
        want,
        "b2rs reading the reference's files"
    );
    assert_eq!(
        dump(&dump_ref, &by_ours),
        want,
        "the reference reading b2rs's files"
    );
    assert_eq!(
        dump(&dump_ours, &by_ours),
        want,
        "b2rs reading its own files"
    );
    rust_core_reads(&by_ref);
    rust_core_reads(&by_ours);
}
