//! The binary drop-in (programs linked against the reference `libblosc2.so.9`
//! run on b2rs through `<prefix>/lib/b2rs-compat`) and the C examples of
//! `examples/c/` built against the installed tree.
//!
//! Every example prints what a C-Blosc2 program sees (struct fields read
//! directly, return codes, FNV-1a digests of compressed bytes and data); the
//! output with b2rs must equal the output with the reference library.

use super::{install, readelf_dynamic, so_names, LIMIT};
use crate::common::{self, run_cmd, Out, Scratch};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The programs of `examples/c/`.
const EXAMPLES: &[&str] = &["chunk_roundtrip", "schunk_frame", "b2nd_array"];

/// Output lines allowed to differ from the reference, each with the reason:
/// (program, line prefix, why).  Every tolerated difference is printed.
/// None at present; `compare` keeps the mechanism for deliberate differences
/// (the README lists the reference bugs b2rs does not copy).
const KNOWN_DIFFS: &[(&str, &str, &str)] = &[];

fn skip_stand_in(test: &str) -> bool {
    if common::ours_is_ref() {
        common::skip(
            test,
            "B2RS_INTEROP_OURS=ref installs a stand-in with 5 functions only",
        );
        return true;
    }
    false
}

fn example_src(name: &str) -> PathBuf {
    common::repo_root().join(format!("examples/c/{name}.c"))
}

/// Compile an example against the reference headers and `libblosc2.so`
/// (DT_NEEDED libblosc2.so.9), without an rpath: the loader takes the
/// library from LD_LIBRARY_PATH.
fn compile_against_reference(src: &Path, exe: &Path, r: &Path) -> Result<(), String> {
    let o = run_cmd(
        Command::new(common::cc())
            .args(["-O2", "-std=gnu11", "-o"])
            .arg(exe)
            .arg(src)
            .arg("-I")
            .arg(common::ref_include(r))
            .arg("-L")
            .arg(common::ref_libdir(r))
            .arg("-lblosc2"),
        LIMIT,
    );
    if o.ok() {
        Ok(())
    } else {
        Err(format!(
            "cc {} against the reference: {}\n{}",
            src.display(),
            o.describe(),
            o.stderr
        ))
    }
}

/// Run `exe` in a fresh directory `dir` with the given library path.
fn run_in(exe: &Path, dir: &Path, ld_path: Option<&Path>, trace: bool) -> Out {
    std::fs::create_dir_all(dir).unwrap();
    let mut cmd = Command::new(exe);
    cmd.current_dir(dir)
        .env_remove("LD_PRELOAD")
        .env("LD_BIND_NOW", "1");
    match ld_path {
        Some(p) => cmd.env("LD_LIBRARY_PATH", p),
        None => cmd.env_remove("LD_LIBRARY_PATH"),
    };
    if trace {
        cmd.env("LD_DEBUG", "libs");
    }
    run_cmd(&mut cmd, LIMIT)
}

/// The libraries the loader initialised (from LD_DEBUG=libs), resolved.
fn loaded(stderr: &str) -> Vec<PathBuf> {
    stderr
        .lines()
        .filter_map(|l| l.split("calling init: ").nth(1))
        .map(|p| common::absolute(Path::new(p.trim())))
        .collect()
}

/// Compare two outputs line by line, allowing only KNOWN_DIFFS.
fn compare(program: &str, reference: &str, ours: &str) -> Result<(), String> {
    let (a, b): (Vec<&str>, Vec<&str>) = (reference.lines().collect(), ours.lines().collect());
    let mut errs = Vec::new();
    if a.len() != b.len() {
        errs.push(format!(
            "{} lines with the reference, {} with b2rs",
            a.len(),
            b.len()
        ));
    }
    for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
        if x == y {
            continue;
        }
        let known = KNOWN_DIFFS
            .iter()
            .find(|(p, pre, _)| *p == program && x.starts_with(pre) && y.starts_with(pre));
        match known {
            Some((_, _, why)) => eprintln!(
                "{program}: known difference on line {}: {why}\n  reference: {x}\n  b2rs:      {y}",
                i + 1
            ),
            None => errs.push(format!(
                "line {}:\n  reference: {x}\n  b2rs:      {y}",
                i + 1
            )),
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{program}: output differs from the reference:\n{}",
            errs.join("\n")
        ))
    }
}

/// Build one example against the reference and run it with the reference
/// library; returns the executable and its output.
fn reference_run(scratch: &Scratch, r: &Path, name: &str) -> Result<(PathBuf, String), String> {
    let exe = scratch.path(&format!("{name}-ref"));
    compile_against_reference(&example_src(name), &exe, r)?;
    let o = run_in(
        &exe,
        &scratch.path(&format!("run-{name}-ref")),
        Some(&common::ref_libdir(r)),
        false,
    );
    if !o.ok() || !o.stdout.trim_end().ends_with("OK") {
        return Err(format!(
            "{name} with the reference library: {}\n{}",
            o.describe(),
            o.stdout
        ));
    }
    Ok((exe, o.stdout))
}

#[test]
fn binary_dropin() {
    if skip_stand_in("binary_dropin") {
        return;
    }
    let r = common::ref_dir().unwrap_or_else(|| panic!("{}", common::missing_ref_message()));
    let scratch = Scratch::new("packaging", "dropin");
    let prefix = install(&scratch);
    let compat = prefix.join("lib/b2rs-compat");
    let (real, _) = so_names();
    let ours_lib = common::absolute(&prefix.join("lib").join(&real));
    let ref_lib = common::absolute(&common::ref_libdir(r.as_path()).join("libblosc2.so.9"));

    let results = common::par_map(EXAMPLES, |_, name| -> Result<String, String> {
        let (exe, ref_out) = reference_run(&scratch, &r, name)?;
        // linked against the reference: records libblosc2.so.9, not libb2rs
        let dynamic = readelf_dynamic(&exe);
        if !dynamic.contains("[libblosc2.so.9]") || dynamic.contains("libb2rs") {
            return Err(format!("{name}: unexpected DT_NEEDED:\n{dynamic}"));
        }
        // the harness: the reference run really loads the reference
        let t = run_in(
            &exe,
            &scratch.path(&format!("run-{name}-reftrace")),
            Some(&common::ref_libdir(&r)),
            true,
        );
        if !loaded(&t.stderr).contains(&ref_lib) {
            return Err(format!(
                "{name}: LD_DEBUG shows no {} in the reference run",
                ref_lib.display()
            ));
        }
        // the same executable, unchanged, on b2rs
        let o = run_in(
            &exe,
            &scratch.path(&format!("run-{name}-ours")),
            Some(&compat),
            true,
        );
        if !o.ok() {
            let tail: Vec<&str> = o.stderr.lines().rev().take(15).collect();
            return Err(format!(
                "{name} on b2rs (LD_LIBRARY_PATH={}): {}\nstdout:\n{}\nstderr (last lines):\n{}",
                compat.display(),
                o.describe(),
                o.stdout,
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            ));
        }
        let libs = loaded(&o.stderr);
        if !libs.contains(&ours_lib) || libs.contains(&ref_lib) {
            return Err(format!(
                "{name}: the loader did not use b2rs ({}); it initialised {libs:?}",
                ours_lib.display()
            ));
        }
        compare(name, &ref_out, &o.stdout)?;
        Ok(format!(
            "{} output lines, as with the reference (known differences printed above)",
            ref_out.lines().count()
        ))
    });
    let mut fails = Vec::new();
    for (name, res) in EXAMPLES.iter().zip(results) {
        match res {
            Ok(s) => eprintln!("binary drop-in {name}: {s}"),
            Err(e) => fails.push(e),
        }
    }
    assert!(fails.is_empty(), "{}", fails.join("\n\n"));
}

/// `cc example.c $(pkg-config --cflags --libs blosc2)` against the installed
/// (and moved) tree; without pkg-config, the equivalent -I/-L flags.
fn compile_against_install(src: &Path, exe: &Path, prefix: &Path) -> Result<(), String> {
    let mut flags: Vec<String> = Vec::new();
    if common::have_command("pkg-config") {
        let o = run_cmd(
            Command::new("pkg-config")
                .args(["--cflags", "--libs", "blosc2"])
                .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig"))
                .env_remove("PKG_CONFIG_LIBDIR"),
            LIMIT,
        );
        if !o.ok() {
            return Err(format!("pkg-config blosc2: {}", o.describe()));
        }
        flags.extend(o.stdout.split_whitespace().map(String::from));
    } else {
        flags.push(format!("-I{}", prefix.join("include").display()));
        flags.push(format!("-L{}", prefix.join("lib").display()));
        flags.push("-lb2rs".into());
    }
    flags.push(format!("-Wl,-rpath,{}", prefix.join("lib").display()));
    let o = run_cmd(
        Command::new(common::cc())
            .args(["-O2", "-std=gnu11", "-Wall", "-o"])
            .arg(exe)
            .arg(src)
            .args(&flags),
        LIMIT,
    );
    if o.ok() {
        Ok(())
    } else {
        Err(format!(
            "cc {} {}: {}\n{}",
            src.display(),
            flags.join(" "),
            o.describe(),
            o.stderr
        ))
    }
}

#[test]
fn c_examples_against_install() {
    if skip_stand_in("c_examples_against_install") {
        return;
    }
    let r = common::ref_dir().unwrap_or_else(|| panic!("{}", common::missing_ref_message()));
    let scratch = Scratch::new("packaging", "examples");
    let prefix = install(&scratch);
    let (_, so) = so_names();
    let results = common::par_map(EXAMPLES, |_, name| -> Result<(), String> {
        let exe = scratch.path(&format!("{name}-installed"));
        compile_against_install(&example_src(name), &exe, &prefix)?;
        let dynamic = readelf_dynamic(&exe);
        if !dynamic.contains(&format!("[{so}]")) {
            return Err(format!("{name}: does not need {so}:\n{dynamic}"));
        }
        let o = run_in(&exe, &scratch.path(&format!("run-{name}")), None, false);
        if !o.ok() || !o.stdout.trim_end().ends_with("OK") {
            return Err(format!(
                "{name} built against the install: {}\n{}",
                o.describe(),
                o.stdout
            ));
        }
        let (_, ref_out) = reference_run(&scratch, &r, name)?;
        compare(name, &ref_out, &o.stdout)
    });
    let fails: Vec<String> = results.into_iter().filter_map(Result::err).collect();
    assert!(fails.is_empty(), "{}", fails.join("\n\n"));
}

/// `examples/python/ctypes_roundtrip.py` loads the installed `libb2rs.so`
/// with ctypes, round-trips a chunk and writes a frame file with a metalayer
/// and a vlmetalayer; `read_with_blosc2.py` (Python `blosc2`, which bundles
/// C-Blosc2) then reads it in a separate process.  The same script run with
/// the reference library proves the harness.
#[test]
fn python_ctypes() {
    if skip_stand_in("python_ctypes") {
        return;
    }
    let have_blosc2 = run_cmd(Command::new("python3").args(["-c", "import blosc2"]), LIMIT);
    if !have_blosc2.ok() {
        let msg = format!(
            "python3 cannot import blosc2 (tools/fetch-reference.sh installs it): {}",
            have_blosc2.describe()
        );
        if std::env::var_os("CI").is_some() {
            panic!("python_ctypes: {msg}");
        }
        common::skip("python_ctypes", &msg);
        return;
    }
    let scratch = Scratch::new("packaging", "ctypes");
    let prefix = install(&scratch);
    let dir = common::repo_root().join("examples/python");
    let mut libs = vec![("b2rs", prefix.join("lib/libb2rs.so"))];
    if let Some(r) = common::ref_dir() {
        libs.push(("reference", common::ref_libdir(&r).join("libblosc2.so")));
    }
    let mut fails = Vec::new();
    for (what, lib) in libs {
        let work = scratch.path(&format!("run-{what}"));
        std::fs::create_dir_all(&work).unwrap();
        let frame = work.join("roundtrip.b2frame");
        let w = run_cmd(
            Command::new("python3")
                .arg(dir.join("ctypes_roundtrip.py"))
                .arg(&lib)
                .arg(&frame)
                .current_dir(&work),
            LIMIT,
        );
        if !w.ok() || !w.stdout.contains("\nOK ") {
            fails.push(format!("ctypes_roundtrip.py with {what}: {}", w.describe()));
            continue;
        }
        let rd = run_cmd(
            Command::new("python3")
                .arg(dir.join("read_with_blosc2.py"))
                .arg(&frame)
                .current_dir(&work),
            LIMIT,
        );
        if !rd.ok() || !rd.stdout.starts_with("OK ") {
            fails.push(format!(
                "read_with_blosc2.py on the frame written by {what}: {}",
                rd.describe()
            ));
            continue;
        }
        eprintln!("{what}: {}{}", w.stdout, rd.stdout);
    }
    assert!(fails.is_empty(), "{}", fails.join("\n"));
}
