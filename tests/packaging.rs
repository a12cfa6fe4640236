//! Packaging: `tools/install.sh` produces an install tree like C-Blosc2's
//! (shared + static library, headers, CMake configs for `Blosc2` and `b2rs`,
//! pkg-config files) that downstream C projects can use unchanged.
//!
//! The library installed is the one this cargo invocation built
//! (`target/<profile>/libb2rs.{so,a}`), into a temporary prefix that is then
//! moved elsewhere (so every check also proves the tree is relocatable).
//! With `B2RS_INTEROP_OURS=ref` a stand-in `libb2rs` made from the reference
//! `libblosc2.a` is installed instead (to prove the harness itself).

mod common;
#[path = "packaging/dropin.rs"]
mod dropin;

use common::{run_cmd, Out, Scratch};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const BLOSC2_VERSION: &str = "3.3.5";
const LIMIT: Duration = Duration::from_secs(600);

fn so_names() -> (String, String) {
    let v = env!("CARGO_PKG_VERSION");
    let major = v.split('.').next().unwrap_or("0");
    (format!("libb2rs.so.{v}"), format!("libb2rs.so.{major}"))
}

/// Where the library and headers to install come from.
fn sources(scratch: &Scratch) -> Result<(PathBuf, PathBuf), String> {
    let ref_dir = common::ref_dir();
    if common::ours_is_ref() {
        let r = ref_dir.ok_or_else(common::missing_ref_message)?;
        return stand_in(scratch, &r).map(|d| (d, common::ref_include(&r)));
    }
    let from = common::ours_libdir();
    for f in ["libb2rs.so", "libb2rs.a"] {
        if !from.join(f).is_file() {
            return Err(format!(
                "{} does not exist (cargo build builds it)",
                from.join(f).display()
            ));
        }
    }
    Ok((from, common::ours_include(ref_dir.as_deref())))
}

/// With `B2RS_INTEROP_OURS=ref`: a `libb2rs.so` (SONAME libb2rs.so.<major>)
/// made from the reference's `libblosc2.a`, whose symbols are hidden: the
/// few functions `tests/cmake_consumer/main.c` calls are renamed with objcopy
/// and re-exported by a small wrapper.  `libb2rs.a` is the reference archive.
fn stand_in(scratch: &Scratch, r: &Path) -> Result<PathBuf, String> {
    let dir = scratch.path("stand-in");
    std::fs::create_dir_all(&dir).unwrap();
    let a = common::ref_libdir(r).join("libblosc2.a");
    let syms = [
        "blosc2_init",
        "blosc2_destroy",
        "blosc2_compress",
        "blosc2_decompress",
        "blosc2_error_string",
    ];
    let mut objcopy = Command::new("objcopy");
    for s in syms {
        objcopy
            .arg("--redefine-sym")
            .arg(format!("{s}=b2rs_ref_{s}"));
    }
    let renamed = dir.join("renamed.a");
    let o = run_cmd(objcopy.arg(&a).arg(&renamed), LIMIT);
    if !o.ok() {
        return Err(format!("objcopy: {}", o.describe()));
    }
    let wrap = dir.join("wrap.c");
    std::fs::write(
        &wrap,
        "#include <stdint.h>\n\
         void b2rs_ref_blosc2_init(void);\n\
         void b2rs_ref_blosc2_destroy(void);\n\
         int b2rs_ref_blosc2_compress(int, int, int32_t, const void*, int32_t, void*, int32_t);\n\
         int b2rs_ref_blosc2_decompress(const void*, int32_t, void*, int32_t);\n\
         const char* b2rs_ref_blosc2_error_string(int);\n\
         void blosc2_init(void) { b2rs_ref_blosc2_init(); }\n\
         void blosc2_destroy(void) { b2rs_ref_blosc2_destroy(); }\n\
         int blosc2_compress(int c, int d, int32_t t, const void* s, int32_t n, void* o, int32_t m)\n\
         { return b2rs_ref_blosc2_compress(c, d, t, s, n, o, m); }\n\
         int blosc2_decompress(const void* s, int32_t n, void* d, int32_t m)\n\
         { return b2rs_ref_blosc2_decompress(s, n, d, m); }\n\
         const char* blosc2_error_string(int e) { return b2rs_ref_blosc2_error_string(e); }\n",
    )
    .unwrap();
    let (_, soname) = so_names();
    let o = run_cmd(
        Command::new(common::cc())
            .args(["-shared", "-fPIC", "-o"])
            .arg(dir.join("libb2rs.so"))
            .arg(format!("-Wl,-soname,{soname}"))
            .arg(&wrap)
            .arg(&renamed)
            .args(["-lpthread", "-ldl", "-lm", "-lrt"]),
        LIMIT,
    );
    if !o.ok() {
        return Err(format!(
            "building the stand-in libb2rs.so: {}",
            o.describe()
        ));
    }
    std::fs::copy(&a, dir.join("libb2rs.a")).unwrap();
    Ok(dir)
}

/// Install into `<scratch>/stage`, then move the tree to `<scratch>/moved`.
fn install(scratch: &Scratch) -> PathBuf {
    let (from, inc) = sources(scratch).unwrap_or_else(|e| panic!("packaging: {e}"));
    let stage = scratch.path("stage");
    let o = run_cmd(
        Command::new("bash")
            .arg(common::repo_root().join("tools/install.sh"))
            .arg("--prefix")
            .arg(&stage)
            .arg("--libdir-from")
            .arg(&from)
            .arg("--include-from")
            .arg(&inc)
            .env_remove("DESTDIR")
            .env_remove("PREFIX"),
        LIMIT,
    );
    assert!(
        o.ok(),
        "install.sh failed: {}\n{}\n{}",
        o.describe(),
        o.stdout,
        o.stderr
    );
    let moved = scratch.path("moved");
    std::fs::rename(&stage, &moved).expect("move the install tree");
    moved
}

fn readelf_dynamic(path: &Path) -> String {
    let o = run_cmd(Command::new("readelf").arg("-d").arg(path), LIMIT);
    o.stdout
}

fn needed(path: &Path) -> Vec<String> {
    readelf_dynamic(path)
        .lines()
        .filter(|l| l.contains("(NEEDED)"))
        .filter_map(|l| {
            l.split('[')
                .nth(1)
                .map(|s| s.trim_end_matches(']').to_string())
        })
        .collect()
}

fn soname(path: &Path) -> Option<String> {
    readelf_dynamic(path)
        .lines()
        .find(|l| l.contains("(SONAME)"))
        .and_then(|l| {
            l.split('[')
                .nth(1)
                .map(|s| s.trim_end_matches(']').to_string())
        })
}

#[test]
fn install_tree_layout() {
    let scratch = Scratch::new("packaging", "layout");
    let prefix = install(&scratch);
    let (real, so) = so_names();
    let lib = prefix.join("lib");
    let mut fails = Vec::new();
    for f in [
        format!("lib/{real}"),
        "lib/libb2rs.a".into(),
        "include/blosc2.h".into(),
        "include/b2nd.h".into(),
        "include/blosc2/blosc2-export.h".into(),
        "lib/cmake/b2rs/b2rsConfig.cmake".into(),
        "lib/cmake/b2rs/b2rsConfigVersion.cmake".into(),
        "lib/cmake/Blosc2/Blosc2Config.cmake".into(),
        "lib/cmake/Blosc2/Blosc2ConfigVersion.cmake".into(),
        "lib/pkgconfig/blosc2.pc".into(),
        "lib/pkgconfig/b2rs.pc".into(),
    ] {
        if !prefix.join(&f).is_file() {
            fails.push(format!("missing {f}"));
        }
    }
    // symlink chain libb2rs.so -> libb2rs.so.0 -> libb2rs.so.0.1.0
    for (link, target) in [("libb2rs.so", so.as_str()), (so.as_str(), real.as_str())] {
        match std::fs::read_link(lib.join(link)) {
            Ok(t) if t == Path::new(target) => {}
            Ok(t) => fails.push(format!("lib/{link} -> {} (want {target})", t.display())),
            Err(e) => fails.push(format!("lib/{link} is not a symlink: {e}")),
        }
    }
    // the SONAME programs record must be the versioned link name
    if common::have_command("readelf") {
        match soname(&lib.join(&real)) {
            Some(s) if s == so => {}
            other => fails.push(format!(
                "SONAME of {real} is {other:?}, want {so} (set it in build.rs)"
            )),
        }
    }
    // the opt-in binary drop-in names (relative links to the real library)
    for (link, target) in [
        ("b2rs-compat/libblosc2.so.9", format!("../{real}")),
        ("b2rs-compat/libblosc2.so", "libblosc2.so.9".to_string()),
    ] {
        match std::fs::read_link(lib.join(link)) {
            Ok(t) if t == Path::new(&target) => {}
            Ok(t) => fails.push(format!("lib/{link} -> {} (want {target})", t.display())),
            Err(e) => fails.push(format!("lib/{link} is not a symlink: {e}")),
        }
    }
    if !lib.join("b2rs-compat/libblosc2.so.9").is_file() {
        fails.push("lib/b2rs-compat/libblosc2.so.9 does not resolve to a file".into());
    }
    // relocatable: no installed file, text or binary, mentions the staging or
    // build paths (install.sh strips the debug info, which names the build dir)
    let stage = scratch.path("stage").display().to_string();
    let repo = common::repo_root().display().to_string();
    for f in walk_files(&prefix) {
        let bytes = std::fs::read(&f).unwrap_or_default();
        for (what, p) in [("staging", &stage), ("build", &repo)] {
            if contains(&bytes, p.as_bytes()) {
                fails.push(format!("{} contains the {what} path {p}", f.display()));
            }
        }
    }
    for f in [
        format!("lib/{real}"),
        "lib/b2rs-compat/libblosc2.so.9".into(),
    ] {
        let d = readelf_dynamic(&prefix.join(&f));
        if d.contains("(RPATH)") || d.contains("(RUNPATH)") {
            fails.push(format!("{f} has an RPATH/RUNPATH"));
        }
    }
    for f in [
        "lib/cmake/b2rs/b2rsConfig.cmake",
        "lib/cmake/b2rs/b2rsConfigVersion.cmake",
        "lib/cmake/Blosc2/Blosc2Config.cmake",
        "lib/cmake/Blosc2/Blosc2ConfigVersion.cmake",
        "lib/pkgconfig/blosc2.pc",
        "lib/pkgconfig/b2rs.pc",
    ] {
        let text = std::fs::read_to_string(prefix.join(f)).unwrap_or_default();
        if text.contains(&stage) || text.contains(&repo) {
            fails.push(format!("{f} contains an absolute build path"));
        }
        if let Some(line) = text.lines().find(|l| {
            let t = l.trim_start();
            !t.starts_with('#') && t.contains('@')
        }) {
            fails.push(format!("{f}: unsubstituted template variable in: {line}"));
        }
    }
    assert!(
        fails.is_empty(),
        "install tree problems:\n  {}",
        fails.join("\n  ")
    );
}

fn walk_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(p),
                Ok(t) if t.is_file() => out.push(p),
                _ => {}
            }
        }
    }
    out.sort();
    out
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

/// `PREFIX=... tools/install.sh` (no --prefix) and `--destdir` staging: the
/// same tree lands where asked.
#[test]
fn install_prefix_env_and_destdir() {
    let scratch = Scratch::new("packaging", "prefix-env");
    let (from, inc) = sources(&scratch).unwrap_or_else(|e| panic!("packaging: {e}"));
    let (real, _) = so_names();
    let script = common::repo_root().join("tools/install.sh");
    let env_prefix = scratch.path("env-prefix");
    let o = run_cmd(
        Command::new("bash")
            .arg(&script)
            .env("PREFIX", &env_prefix)
            .env("B2RS_LIBDIR_FROM", &from)
            .env("B2RS_INCLUDE_FROM", &inc)
            .env_remove("DESTDIR"),
        LIMIT,
    );
    assert!(o.ok(), "PREFIX=... install.sh: {}", o.describe());
    let stage = scratch.path("destdir");
    let o = run_cmd(
        Command::new("bash")
            .arg(&script)
            .arg("--prefix=/opt/b2rs")
            .arg("--destdir")
            .arg(&stage)
            .arg("--libdir-from")
            .arg(&from)
            .arg("--include-from")
            .arg(&inc)
            .env_remove("PREFIX"),
        LIMIT,
    );
    assert!(o.ok(), "install.sh --destdir: {}", o.describe());
    let mut fails = Vec::new();
    for root in [env_prefix, stage.join("opt/b2rs")] {
        for f in [
            format!("lib/{real}"),
            "lib/libb2rs.a".into(),
            "include/blosc2.h".into(),
            "lib/pkgconfig/blosc2.pc".into(),
            "lib/cmake/Blosc2/Blosc2Config.cmake".into(),
            "lib/b2rs-compat/libblosc2.so.9".into(),
        ] {
            if !root.join(&f).is_file() {
                fails.push(format!("missing {}", root.join(f).display()));
            }
        }
    }
    assert!(fails.is_empty(), "{}", fails.join("\n"));
}

/// Configure and build the consumer project in one mode; run it unless it
/// is a configure-only mode.
fn cmake_mode(scratch: &Scratch, prefix: &Path, mode: &str) -> Result<String, String> {
    let src = common::repo_root().join("tests/cmake_consumer");
    let build = scratch.path(&format!("build-{mode}"));
    let conf = run_cmd(
        Command::new("cmake")
            .arg("-S")
            .arg(&src)
            .arg("-B")
            .arg(&build)
            .arg(format!("-DCMAKE_PREFIX_PATH={}", prefix.display()))
            .arg(format!("-DCONSUMER_MODE={mode}"))
            .arg(format!(
                "-DB2RS_SOURCE_DIR={}",
                common::repo_root().display()
            ))
            .arg(format!(
                "-DB2RS_CARGO_TARGET_DIR={}",
                cargo_target_dir().display()
            ))
            .arg("-DCMAKE_BUILD_TYPE=Release")
            .arg("-DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON")
            .arg("-DCMAKE_FIND_PACKAGE_NO_SYSTEM_PACKAGE_REGISTRY=ON"),
        LIMIT,
    );
    let text = format!("{}\n{}", conf.stdout, conf.stderr);
    match mode {
        "too_new" => {
            return if conf.ok() && text.contains("Blosc2 4.0 not found, as expected") {
                Ok(String::new())
            } else {
                Err(format!(
                    "find_package(Blosc2 4.0 CONFIG) was not refused cleanly: {}\n{text}",
                    conf.describe()
                ))
            };
        }
        "too_new_required" => {
            let mentions =
                text.contains("4.0") && (text.contains("3.3.5") || text.contains("version"));
            return if !conf.ok() && conf.code.is_some() && mentions {
                Ok(String::new())
            } else {
                Err(format!("find_package(Blosc2 4.0 CONFIG REQUIRED) must fail at configure time with a version message: {}\n{text}", conf.describe()))
            };
        }
        _ => {}
    }
    if !conf.ok() {
        return Err(format!(
            "cmake configure failed: {}\n{text}",
            conf.describe()
        ));
    }
    let from_source = matches!(mode, "subdirectory" | "fetchcontent");
    let prefix_s = prefix.display().to_string();
    let dir_line = text
        .lines()
        .find(|l| l.contains("CONSUMER: Blosc2_DIR="))
        .unwrap_or("");
    if from_source {
        if !text.contains("CONSUMER: from source") {
            return Err(format!("b2rs was not used from its source tree:\n{text}"));
        }
    } else if !dir_line.contains(&prefix_s) {
        return Err(format!(
            "the config was not taken from the install prefix {prefix_s}: {dir_line}"
        ));
    }
    let b = run_cmd(Command::new("cmake").arg("--build").arg(&build), LIMIT);
    if !b.ok() {
        return Err(format!(
            "cmake --build failed: {}\n{}\n{}",
            b.describe(),
            b.stdout,
            b.stderr
        ));
    }
    let exe = build.join("consumer");
    let r = run_cmd(&mut Command::new(&exe), LIMIT);
    if !r.ok() || !r.stdout.starts_with("OK ") {
        return Err(format!("running the consumer failed: {}", r.describe()));
    }
    check_linkage(&exe, matches!(mode, "static" | "b2rs_static"))?;
    if from_source {
        let exe = build.join("consumer_static");
        let r = run_cmd(&mut Command::new(&exe), LIMIT);
        if !r.ok() || !r.stdout.starts_with("OK ") {
            return Err(format!("running consumer_static failed: {}", r.describe()));
        }
        check_linkage(&exe, true)?;
    }
    Ok(r.stdout.trim().to_string())
}

/// The cargo target directory of this test binary (`target/`), handed to the
/// repository's CMakeLists.txt in the add_subdirectory/FetchContent modes so
/// that its `cargo build --release --lib` finds the library already built.
fn cargo_target_dir() -> PathBuf {
    let p = common::profile_dir();
    p.parent().map(Path::to_path_buf).unwrap_or(p)
}

/// A shared build records libb2rs' SONAME; a static one does not need it.
fn check_linkage(exe: &Path, is_static: bool) -> Result<(), String> {
    if !common::have_command("readelf") {
        return Ok(());
    }
    let n = needed(exe);
    let (_, so) = so_names();
    let has = n
        .iter()
        .any(|x| x.starts_with("libb2rs") || x.starts_with("libblosc2"));
    if is_static && has {
        return Err(format!("static build still needs {n:?}"));
    }
    if !is_static && !n.contains(&so) {
        return Err(format!("shared build needs {n:?}, want {so}"));
    }
    Ok(())
}

#[test]
fn cmake_consumer() {
    if !common::have_command("cmake") {
        let why = "cmake not on PATH (tools/fetch-reference.sh installs it)";
        if std::env::var_os("CI").is_some() {
            panic!("cmake_consumer: {why}");
        }
        common::skip("cmake_consumer", why);
        return;
    }
    let scratch = Scratch::new("packaging", "cmake");
    let prefix = install(&scratch);
    let modes = [
        "shared",
        "alias",
        "static",
        "b2rs",
        "b2rs_static",
        "subdirectory",
        "fetchcontent",
        "too_new",
        "too_new_required",
    ];
    // the stand-in library of B2RS_INTEROP_OURS=ref exists only as an install
    let modes: Vec<&str> = modes
        .into_iter()
        .filter(|m| !(common::ours_is_ref() && matches!(*m, "subdirectory" | "fetchcontent")))
        .collect();
    let results = common::par_map(&modes, |_, m| {
        (m.to_string(), cmake_mode(&scratch, &prefix, m))
    });
    let mut fails = Vec::new();
    for (m, r) in results {
        match r {
            Ok(out) => eprintln!("cmake consumer {m}: ok {out}"),
            Err(e) => fails.push(format!("mode {m}: {e}")),
        }
    }
    assert!(
        fails.is_empty(),
        "cmake consumer failures:\n{}",
        fails.join("\n\n")
    );
}

fn pkg_config(prefix: &Path, args: &[&str]) -> Out {
    run_cmd(
        Command::new("pkg-config")
            .args(args)
            .env("PKG_CONFIG_PATH", prefix.join("lib/pkgconfig"))
            .env_remove("PKG_CONFIG_LIBDIR")
            .env_remove("PKG_CONFIG_SYSROOT_DIR"),
        LIMIT,
    )
}

#[test]
fn pkg_config_consumer() {
    if !common::have_command("pkg-config") {
        let why = "pkg-config not on PATH (tools/fetch-reference.sh installs it)";
        if std::env::var_os("CI").is_some() {
            panic!("pkg_config_consumer: {why}");
        }
        common::skip("pkg_config_consumer", why);
        return;
    }
    let scratch = Scratch::new("packaging", "pkgconfig");
    let prefix = install(&scratch);
    let main_c = common::repo_root().join("tests/cmake_consumer/main.c");
    let mut fails = Vec::new();

    for (pkg, want) in [
        ("blosc2", BLOSC2_VERSION),
        ("b2rs", env!("CARGO_PKG_VERSION")),
    ] {
        let v = pkg_config(&prefix, &["--modversion", pkg]);
        if !v.ok() || v.stdout.trim() != want {
            fails.push(format!(
                "pkg-config --modversion {pkg}: {} (want {want})",
                v.describe()
            ));
        }
    }
    if !pkg_config(&prefix, &["--atleast-version=3.3", "blosc2"]).ok() {
        fails.push("pkg-config --atleast-version=3.3 blosc2 failed".into());
    }
    if pkg_config(&prefix, &["--exact-version=4.0.0", "blosc2"]).ok() {
        fails.push("pkg-config --exact-version=4.0.0 blosc2 succeeded".into());
    }

    for pkg in ["blosc2", "b2rs"] {
        for is_static in [false, true] {
            let mut args = vec!["--cflags", "--libs"];
            if is_static {
                args.push("--static");
            }
            args.push(pkg);
            let flags = pkg_config(&prefix, &args);
            if !flags.ok() {
                fails.push(format!("pkg-config {args:?}: {}", flags.describe()));
                continue;
            }
            let mut words: Vec<String> =
                flags.stdout.split_whitespace().map(String::from).collect();
            // every path pkg-config hands out must be inside the (moved) prefix
            for w in &words {
                if let Some(path) = w.strip_prefix("-I").or_else(|| w.strip_prefix("-L")) {
                    let canon = common::absolute(Path::new(path));
                    if !canon.starts_with(common::absolute(&prefix)) {
                        fails.push(format!("pkg-config {pkg} gives {w}, outside the prefix"));
                    }
                }
            }
            if is_static {
                // link the archive itself: Libs.private must be enough for it
                for w in words.iter_mut() {
                    if w == "-lb2rs" {
                        *w = "-l:libb2rs.a".into();
                    }
                }
            } else {
                words.push(format!("-Wl,-rpath,{}", prefix.join("lib").display()));
            }
            let exe = scratch.path(&format!(
                "pc-{pkg}-{}",
                if is_static { "static" } else { "shared" }
            ));
            let cc = run_cmd(
                Command::new(common::cc())
                    .arg("-O2")
                    .arg("-o")
                    .arg(&exe)
                    .arg(&main_c)
                    .args(&words),
                LIMIT,
            );
            if !cc.ok() {
                fails.push(format!(
                    "cc main.c $(pkg-config {args:?}): {}\n{}",
                    cc.describe(),
                    cc.stderr
                ));
                continue;
            }
            let r = run_cmd(&mut Command::new(&exe), LIMIT);
            if !r.ok() || !r.stdout.starts_with("OK ") {
                fails.push(format!("running {}: {}", exe.display(), r.describe()));
                continue;
            }
            if let Err(e) = check_linkage(&exe, is_static) {
                fails.push(format!("{pkg} static={is_static}: {e}"));
            }
        }
    }
    assert!(
        fails.is_empty(),
        "pkg-config consumer failures:\n  {}",
        fails.join("\n  ")
    );
}
