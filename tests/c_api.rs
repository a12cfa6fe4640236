//! The C API test programs in `c-tests/*.c`, built and run through the C ABI.
//!
//! Every program is compiled with the C compiler (`$CC`, else `cc`) against
//! our generated headers (`include/`) and linked to the `libb2rs.so` of the
//! current cargo profile (rpath to it), then run; it must exit with 0.  Each
//! program prints `<name>: N passed, M failed` as its last line, runs every
//! test function in a forked child (a crash is reported as a failure of that
//! test) and lists the failing checks as `file:line: [test] ...`.
//!
//! When the reference C-Blosc2 is available (`$B2RS_REF_DIR`, which
//! `tools/test.sh` sets to the unpacked wheel holding `blosc2/include` and
//! `blosc2/lib`; default `target/reference`) the same programs are also built
//! with `-DB2RS_REFERENCE=1` against the reference and run, so that the suite
//! itself stays validated against the reference.  `-DB2RS_REFERENCE` compiles
//! out the checks of behaviour in which the reference has a known bug (see
//! `c-tests/b2rs_test.h`).
//!
//! One `#[test]` per program and library, so they run in parallel and are
//! reported one by one; `every_c_program_is_listed` makes sure a new
//! `c-tests/*.c` file gets its tests here.
//!
//! Environment:
//! * `B2RS_REF_DIR`: the unpacked reference wheel; without it the
//!   `reference_*` tests are skipped with a message;
//! * `B2RS_C_TEST_TIMEOUT`: seconds allowed per program run (default 600, 1800 under
//!   valgrind);
//! * `B2RS_TEST_NOFORK=1`, `B2RS_TEST_VERBOSE=1`: passed through to the
//!   programs (see `c-tests/b2rs_test.h`);
//! * `B2RS_SANITIZE`: a checking mode (`tools/test.sh` runs both):
//!   - `asan`: the programs are compiled with
//!     `-fsanitize=address,undefined -fno-sanitize-recover=all` and run with
//!     LeakSanitizer on (each forked test checks its own leaks, see
//!     `b2rs_test.h`); `B2RS_SANITIZE_LIBDIR` may name a directory with a
//!     `libb2rs.so` built with `-Zsanitizer=address` to link instead of the
//!     profile's library, so the Rust side is instrumented too;
//!   - `valgrind`: the programs run under valgrind memcheck
//!     (`--leak-check=full --errors-for-leak-kinds=definite`), every error
//!     failing the run; forked tests are checked too (`test_badargs_gen` is
//!     left to the asan mode: 768 forked calls are too slow under valgrind).
//!
//!   Suppressions (reference and system noise only) are in `tools/sanitize/`.
//!   Builds go to `c-tests/<variant>-<mode>/` so they do not clobber the
//!   plain ones.

mod common;

use common::Lib;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// Environment variables the library reads; cleared for the programs so the
/// caller's environment cannot change their results (`test_env` sets them
/// itself).
const BLOSC_ENV: [&str; 14] = [
    "BLOSC_NTHREADS",
    "BLOSC_CLEVEL",
    "BLOSC_COMPRESSOR",
    "BLOSC_SHUFFLE",
    "BLOSC_TYPESIZE",
    "BLOSC_BLOCKSIZE",
    "BLOSC_SPLITMODE",
    "BLOSC_DELTA",
    "BLOSC_NOLOCK",
    "BLOSC_BLOSC1_COMPAT",
    "BLOSC_LOCKING",
    "BLOSC_MAX_CACHED_READERS",
    "BLOSC_TRACE",
    "BTUNE_TRADEOFF",
];

fn c_tests_dir() -> PathBuf {
    common::repo_root().join("c-tests")
}

fn timeout() -> Duration {
    let secs = std::env::var("B2RS_C_TEST_TIMEOUT")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .filter(|&s| s > 0)
        .unwrap_or(if sanitize_mode() == Sanitize::Valgrind {
            1800
        } else {
            600
        });
    Duration::from_secs(secs)
}

/// The last `max_lines` lines of a text.
fn tail(text: &str, max_lines: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.len().saturating_sub(max_lines);
    let mut s = String::new();
    if start > 0 {
        s.push_str(&format!("[... {start} earlier lines ...]\n"));
    }
    s.push_str(&lines[start..].join("\n"));
    s
}

/// The checking mode chosen by `B2RS_SANITIZE`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Sanitize {
    None,
    Asan,
    Valgrind,
}

fn sanitize_mode() -> Sanitize {
    match std::env::var("B2RS_SANITIZE").unwrap_or_default().as_str() {
        "" | "0" | "none" => Sanitize::None,
        "asan" => Sanitize::Asan,
        "valgrind" => Sanitize::Valgrind,
        other => panic!("B2RS_SANITIZE={other}: expected asan, valgrind or nothing"),
    }
}

/// Exit status of a program run under valgrind that found errors.
const VALGRIND_ERROR_EXIT: i32 = 86;

/// Build `c-tests/<name>.c` against `lib` and run it.
fn build_and_run(name: &str, lib: Lib) {
    let mode = sanitize_mode();
    let variant = match (lib, mode) {
        (Lib::Ours, Sanitize::None) => "ours",
        (Lib::Ref, Sanitize::None) => "reference",
        (Lib::Ours, Sanitize::Asan) => "ours-asan",
        (Lib::Ref, Sanitize::Asan) => "reference-asan",
        (Lib::Ours, Sanitize::Valgrind) => "ours-valgrind",
        (Lib::Ref, Sanitize::Valgrind) => "reference-valgrind",
    };
    let sanitize_dir = common::repo_root().join("tools").join("sanitize");
    if mode == Sanitize::Valgrind && name == "test_badargs_gen" {
        // 768 forked calls, each child checked for leaks by valgrind at its exit: far too
        // slow; the asan mode checks this program (LeakSanitizer in every child).
        common::skip(
            &format!("{variant}_{name}"),
            "not run under valgrind (too slow; covered by B2RS_SANITIZE=asan)",
        );
        return;
    }
    let ref_dir = common::ref_dir();
    if lib == Lib::Ref && ref_dir.is_none() {
        common::skip(&format!("reference_{name}"), &common::missing_ref_message());
        return;
    }
    // link_triple only looks at ref_dir for Lib::Ref, or for Lib::Ours when
    // include/ has no headers yet
    let ref_dir_path = ref_dir
        .clone()
        .unwrap_or_else(|| common::repo_root().join("target").join("reference"));

    let out_dir = common::profile_dir().join("c-tests").join(variant);
    std::fs::create_dir_all(&out_dir).expect("create the c-tests output dir");
    let src = c_tests_dir().join(format!("{name}.c"));
    assert!(src.is_file(), "{} does not exist", src.display());
    let exe = out_dir.join(name);
    // a link dir per program: link_triple (re)creates symlinks in it
    let link_dir = out_dir.join(format!("{name}.lib"));
    let (inc, libdir, libname) = match common::link_triple(lib, &ref_dir_path, &link_dir) {
        Ok(t) => t,
        Err(e) => panic!("{variant}_{name}: {e}"),
    };
    if lib == Lib::Ours && !inc.join("blosc2.h").is_file() {
        panic!(
            "{variant}_{name}: no blosc2.h in {} (the generated headers are missing)",
            inc.display()
        );
    }

    let mut cc = Command::new(common::cc());
    cc.arg("-std=c11")
        .arg("-O1")
        .arg("-g")
        .arg("-Wall")
        .arg("-I")
        .arg(c_tests_dir())
        .arg("-I")
        .arg(&inc);
    if lib == Lib::Ref {
        cc.arg("-DB2RS_REFERENCE=1");
    }
    if mode == Sanitize::Asan {
        cc.args([
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all",
            "-fno-omit-frame-pointer",
        ]);
    }
    cc.arg(&src)
        .arg("-o")
        .arg(&exe)
        .arg("-L")
        .arg(&libdir)
        .arg(format!("-l{libname}"))
        .arg("-lpthread")
        .arg(format!("-Wl,-rpath,{}", libdir.display()));
    let built = common::run_cmd(&mut cc, Duration::from_secs(300));
    assert!(
        built.ok(),
        "{variant}_{name}: compiling {} against {} ({}) failed: {}\n--- compiler output:\n{}{}",
        src.display(),
        libname,
        libdir.display(),
        built.describe(),
        built.stdout,
        built.stderr
    );

    let mut run = match mode {
        Sanitize::Valgrind => {
            let mut v = Command::new("valgrind");
            v.args([
                "--quiet",
                "--tool=memcheck",
                "--leak-check=full",
                "--errors-for-leak-kinds=definite",
                "--show-leak-kinds=definite",
                "--num-callers=30",
            ])
            .arg(format!("--error-exitcode={VALGRIND_ERROR_EXIT}"))
            .arg(format!(
                "--suppressions={}",
                sanitize_dir.join("valgrind.supp").display()
            ))
            .arg(&exe);
            v
        }
        _ => Command::new(&exe),
    };
    if mode == Sanitize::Asan {
        // every error fails the run; leaks are checked per forked test
        // allocator_may_return_null: a malloc larger than ASan's maximum (1 TiB) returns NULL
        // as with glibc, so that b2rs's fallible allocations (sizes read from damaged files,
        // test_damaged) fail with an error instead of being reported
        let mut asan =
            "detect_leaks=1:halt_on_error=1:abort_on_error=0:exitcode=23:allocator_may_return_null=1"
                .to_string();
        if lib == Lib::Ref {
            // the reference's own errors (see the file), and its malloc calls with negative
            // sizes (b2nd_serialize_meta, blosc2_set_maskout) return NULL as with glibc
            asan.push_str(&format!(
                ":suppressions={}",
                sanitize_dir.join("asan-reference.supp").display()
            ));
        }
        run.env("ASAN_OPTIONS", asan)
            .env(
                "LSAN_OPTIONS",
                format!(
                    "suppressions={}:print_suppressions=0",
                    sanitize_dir.join("lsan.supp").display()
                ),
            )
            .env("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1");
    }
    run.current_dir(&out_dir);
    let source = std::fs::read_to_string(&src).unwrap_or_default();
    if source.contains("B2RS_TEST_PLUGINS") {
        // the program loads the plugins of c-tests/plugins at run time, from the loader's path
        let dir = build_plugins(&out_dir.join(format!("{name}.plugins")));
        run.env("LD_LIBRARY_PATH", dir);
    }
    for v in BLOSC_ENV {
        run.env_remove(v);
    }
    let out = common::run_cmd(&mut run, timeout());
    let summary = out
        .stdout
        .lines()
        .rev()
        .find(|l| l.contains(" passed, "))
        .unwrap_or("(no summary line)")
        .to_string();
    if !out.ok() {
        let status = match (out.code, out.timed_out) {
            (_, true) => format!("timed out after {:?}", timeout()),
            (Some(c), _) => format!("exit status {c}"),
            (None, _) => "killed by a signal".to_string(),
        };
        panic!(
            "{variant}_{name}: {} ({status}); {summary}\n--- stderr (failed checks):\n{}\n--- stdout:\n{}",
            exe.display(),
            tail(&out.stderr, 300),
            tail(&out.stdout, 50)
        );
    }
    println!("{variant}_{name}: {summary}");
}

macro_rules! c_programs {
    ($($name:ident),* $(,)?) => {
        /// The programs that have tests below.
        const PROGRAMS: &[&str] = &[$(stringify!($name)),*];

        mod ours {
            $(
                #[test]
                fn $name() {
                    super::build_and_run(stringify!($name), super::Lib::Ours);
                }
            )*
        }

        mod reference {
            $(
                #[test]
                fn $name() {
                    super::build_and_run(stringify!($name), super::Lib::Ref);
                }
            )*
        }
    };
}

c_programs!(
    test_b2nd,
    test_b2nd_grow,
    test_b2nd_meta,
    test_badargs_gen,
    test_badinput,
    test_blosc1,
    test_callers,
    test_bloscpack,
    test_checksums,
    test_chunk,
    test_compat,
    test_concurrency,
    test_contexts,
    test_damaged,
    test_env,
    test_frame,
    test_frame_share,
    test_getitem,
    test_global,
    test_huge,
    test_instr,
    test_io,
    test_killed,
    test_lock,
    test_meta,
    test_misc,
    test_nd_plugins,
    test_ownership,
    test_plugins,
    test_plugin_filters,
    test_prefilter,
    test_runtime_plugins,
    test_schunk,
    test_special,
    test_struct_fields,
    test_swmr,
    test_threads,
    test_threads_cb,
    test_vlblocks,
    test_zfp,
);

/// Build every `c-tests/plugins/*.c` as `dir/libblosc2_<name>.so` (plugins that C programs load
/// at run time); returns `dir`.
fn build_plugins(dir: &std::path::Path) -> PathBuf {
    std::fs::create_dir_all(dir).expect("create the plugins dir");
    let src_dir = c_tests_dir().join("plugins");
    let entries =
        std::fs::read_dir(&src_dir).unwrap_or_else(|e| panic!("{}: {e}", src_dir.display()));
    for entry in entries {
        let path = entry.expect("read_dir entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("c") {
            continue;
        }
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let so = dir.join(format!("libblosc2_{stem}.so"));
        let mut cc = Command::new(common::cc());
        cc.args(["-std=c11", "-O1", "-g", "-Wall", "-shared", "-fPIC", "-I"])
            .arg(&src_dir)
            .arg(&path)
            .arg("-o")
            .arg(&so);
        let built = common::run_cmd(&mut cc, Duration::from_secs(120));
        assert!(
            built.ok(),
            "building the plugin {}: {}\n{}{}",
            path.display(),
            built.describe(),
            built.stdout,
            built.stderr
        );
    }
    dir.to_path_buf()
}

/// Every `c-tests/*.c` has its pair of tests in `c_programs!` above.
#[test]
fn every_c_program_is_listed() {
    let mut missing = Vec::new();
    let dir = c_tests_dir();
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("read_dir entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("c") {
            continue;
        }
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        if !PROGRAMS.contains(&stem.as_str()) {
            missing.push(stem);
        }
    }
    missing.sort();
    assert!(
        missing.is_empty(),
        "c-tests programs without tests in tests/c_api.rs (add them to c_programs!): {missing:?}"
    );
    for p in PROGRAMS {
        assert!(
            dir.join(format!("{p}.c")).is_file(),
            "c_programs! lists {p} but c-tests/{p}.c does not exist"
        );
    }
}

/// `c-tests/test_badargs_gen.c` is what `tools/gen_badargs.py` makes of the current headers,
/// `tools/badargs_expected.tsv` and `tools/badargs_divergences.tsv`.
#[test]
fn badargs_generated_is_up_to_date() {
    let Some(shared) = common::shared_dir() else {
        common::skip(
            "badargs_generated_is_up_to_date",
            "shared/abi/symbols.txt not found (set B2RS_SHARED_DIR)",
        );
        return;
    };
    let root = common::repo_root();
    let mut cmd = Command::new("python3");
    cmd.arg(root.join("tools").join("gen_badargs.py"))
        .arg("--check")
        .env("B2RS_SYMBOLS", shared.join("abi").join("symbols.txt"))
        .current_dir(&root);
    let out = common::run_cmd(&mut cmd, Duration::from_secs(120));
    assert!(
        out.ok(),
        "tools/gen_badargs.py --check: {}\n{}{}",
        out.describe(),
        out.stdout,
        out.stderr
    );
}
