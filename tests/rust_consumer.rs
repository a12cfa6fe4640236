//! The safe core without the C symbols: `tests/rust_consumer/` depends on b2rs with
//! `default-features = false` (no `capi`) and links the reference C-Blosc2 beside it. It must
//! build (no duplicate symbols), define no `blosc2_*`/`b2nd_*` symbol of its own, and exchange
//! chunks with C-Blosc2 both ways.
mod common;

use common::*;
use std::process::Command;
use std::time::Duration;

#[test]
fn core_links_beside_c_blosc2() {
    let Some(ref_dir) = ref_dir() else {
        panic!("{}", missing_ref_message());
    };
    let root = repo_root();
    // a target directory of its own: a build of b2rs as a dependency without `capi` must not
    // replace the `target/release/libb2rs.so` that the other tests load (cargo copies a
    // dependency's cdylib there too)
    let target = profile_dir()
        .parent()
        .expect("target dir")
        .join("rust-consumer");
    let manifest = root.join("tests/rust_consumer/Cargo.toml");
    let out = run_cmd(
        Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["build", "--release", "--quiet", "--manifest-path"])
            .arg(&manifest)
            .arg("--target-dir")
            .arg(&target)
            .env("B2RS_REF_LIB", ref_libdir(&ref_dir))
            .current_dir(&root),
        Duration::from_secs(1200),
    );
    assert!(out.ok(), "building the consumer: {}", out.describe());
    let exe = target.join("release/b2rs-consumer");

    let run = run_cmd(&mut Command::new(&exe), Duration::from_secs(60));
    assert!(run.ok(), "running the consumer: {}", run.describe());
    assert!(
        run.stdout.contains("C-Blosc2 2.") || run.stdout.contains("C-Blosc2 3."),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("both read back"), "{}", run.stdout);

    // every blosc2_* symbol of the program is C-Blosc2's (undefined here, from libblosc2.so)
    let nm = run_cmd(
        Command::new("nm").arg("--defined-only").arg(&exe),
        Duration::from_secs(60),
    );
    assert!(nm.ok(), "nm: {}", nm.describe());
    let ours: Vec<&str> = nm
        .stdout
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .filter(|s| s.starts_with("blosc2_") || s.starts_with("b2nd_") || s.starts_with("b2rs_"))
        .collect();
    assert!(ours.is_empty(), "C symbols defined by the core: {ours:?}");
    let undefined = run_cmd(
        Command::new("nm").arg("--undefined-only").arg(&exe),
        Duration::from_secs(60),
    );
    assert!(
        undefined.stdout.contains("blosc2_compress"),
        "{}",
        undefined.stdout
    );
}
