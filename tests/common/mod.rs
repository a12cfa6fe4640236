//! Helpers shared by the integration tests that drive C programs
//! (`tests/interop.rs`, `tests/packaging.rs`).
//!
//! * where things are: the built `libb2rs.so` of the current cargo profile,
//!   the reference C-Blosc2 (`$B2RS_REF_DIR`, default `target/reference`,
//!   filled by `tools/fetch-reference.sh`), the shared test data;
//! * running child processes with a time limit;
//! * per-test scratch directories under `$TMPDIR/b2rs-<what>-<pid>/`;
//! * a small deterministic PRNG and SHA-256 through `sha256sum`.
#![allow(dead_code)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Root of the crate (where Cargo.toml is).
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `target/<profile>` of the cargo invocation that built this test binary
/// (the binary lives in `target/<profile>/deps/`).
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let deps = exe.parent().expect("test binary has a parent dir");
    if deps.file_name().map(|n| n == "deps").unwrap_or(false) {
        deps.parent().expect("deps has a parent").to_path_buf()
    } else {
        deps.to_path_buf()
    }
}

/// The reference C-Blosc2 install (the unpacked wheel), if present:
/// a dir with `blosc2/include/blosc2.h` and `blosc2/lib/libblosc2.so`.
pub fn ref_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("B2RS_REF_DIR") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => repo_root().join("target").join("reference"),
    };
    let ok = dir.join("blosc2/include/blosc2.h").is_file()
        && dir.join("blosc2/lib/libblosc2.so").is_file();
    if ok {
        Some(absolute(&dir))
    } else {
        None
    }
}

pub fn ref_include(ref_dir: &Path) -> PathBuf {
    match std::env::var_os("B2RS_REF_INCLUDE") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => ref_dir.join("blosc2/include"),
    }
}

pub fn ref_libdir(ref_dir: &Path) -> PathBuf {
    ref_dir.join("blosc2/lib")
}

/// Print why a test is skipped (visible with --nocapture / in nextest output).
pub fn skip(test: &str, why: &str) {
    eprintln!("SKIPPED {test}: {why}");
    println!("SKIPPED {test}: {why}");
}

pub fn missing_ref_message() -> String {
    "reference C-Blosc2 not found (run tools/fetch-reference.sh or set B2RS_REF_DIR; \
     tools/test.sh always provides it)"
        .to_string()
}

/// The directory holding the `libb2rs.so`/`libb2rs.a` built by this cargo
/// invocation.  `cargo test` builds every crate type of the library into
/// `target/<profile>/deps/` but copies them up to `target/<profile>/` only on
/// `cargo build`: take whichever is newer.  `$B2RS_SANITIZE_LIBDIR` (a
/// library built with `-Zsanitizer=address`, see `tests/c_api.rs`) overrides.
pub fn ours_libdir() -> PathBuf {
    if let Some(d) = std::env::var_os("B2RS_SANITIZE_LIBDIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    let top = profile_dir();
    let deps = top.join("deps");
    let mtime = |d: &Path| {
        std::fs::metadata(d.join("libb2rs.so"))
            .and_then(|m| m.modified())
            .ok()
    };
    match (mtime(&top), mtime(&deps)) {
        (Some(a), Some(b)) if b > a => deps,
        (None, Some(_)) => deps,
        _ => top,
    }
}

/// Our generated headers if they exist, else the reference headers (same API).
pub fn ours_include(ref_dir: Option<&Path>) -> PathBuf {
    let ours = repo_root().join("include");
    if ours.join("blosc2.h").is_file() {
        return ours;
    }
    match ref_dir {
        Some(r) => {
            eprintln!(
                "note: {}/blosc2.h does not exist yet; compiling against the reference headers",
                ours.display()
            );
            ref_include(r)
        }
        None => ours,
    }
}

/// `shared/` beside the repository (CI layout), or `$B2RS_SHARED_DIR`, or /work/shared.
pub fn shared_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("B2RS_SHARED_DIR") {
        let p = PathBuf::from(d);
        if p.is_dir() {
            return Some(p);
        }
    }
    let cands = [repo_root().join("../shared"), PathBuf::from("/work/shared")];
    cands
        .into_iter()
        .find(|p| p.join("testdata").is_dir())
        .map(|p| absolute(&p))
}

pub fn absolute(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

pub fn have_command(cmd: &str) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {cmd} >/dev/null 2>&1"))
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

/// The C compiler: `$CC` or `cc`.
pub fn cc() -> String {
    std::env::var("CC")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "cc".into())
}

/// Whether `python3 -c "import <modules>"` succeeds (e.g. `"blosc2, numpy"`).
#[allow(dead_code)]
pub fn python_imports(modules: &str) -> bool {
    Command::new("python3")
        .args(["-c", &format!("import {modules}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// Result of a child process.
#[derive(Debug, Clone)]
pub struct Out {
    /// exit code; None when killed by a signal or by the time limit
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
}

impl Out {
    pub fn ok(&self) -> bool {
        self.code == Some(0)
    }
    /// One-line description for failure messages.
    pub fn describe(&self) -> String {
        let mut s = match (self.code, self.timed_out) {
            (_, true) => "timed out".to_string(),
            (Some(c), _) => format!("exit {c}"),
            (None, _) => "killed by a signal".to_string(),
        };
        let text = format!("{} {}", self.stdout.trim(), self.stderr.trim());
        let text = text.trim();
        if !text.is_empty() {
            let short: String = text.chars().take(400).collect();
            s.push_str(": ");
            s.push_str(&short.replace('\n', " | "));
        }
        s
    }
}

/// Run a command with a time limit, capturing stdout/stderr.
pub fn run_cmd(cmd: &mut Command, limit: Duration) -> Out {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return Out {
                code: Some(127),
                stdout: String::new(),
                stderr: format!("cannot spawn {cmd:?}: {e}"),
                timed_out: false,
            }
        }
    };
    let so = child.stdout.take().expect("stdout");
    let se = child.stderr.take().expect("stderr");
    let t_out = read_in_thread(so);
    let t_err = read_in_thread(se);
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) => {
                if start.elapsed() > limit {
                    let _ = child.kill();
                    timed_out = true;
                    break child.wait().ok();
                }
                let waited = start.elapsed();
                let nap = if waited < Duration::from_millis(20) {
                    1
                } else {
                    10
                };
                std::thread::sleep(Duration::from_millis(nap));
            }
            Err(_) => break None,
        }
    };
    let stdout = String::from_utf8_lossy(&t_out.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&t_err.join().unwrap_or_default()).into_owned();
    Out {
        code: if timed_out {
            None
        } else {
            status.and_then(|s| s.code())
        },
        stdout,
        stderr,
        timed_out,
    }
}

/// A scratch directory `$TMPDIR/b2rs-<group>-<pid>/<name>`, removed on drop
/// (kept when `B2RS_KEEP_TMP` is set, for debugging).
pub struct Scratch {
    pub dir: PathBuf,
    parent: PathBuf,
}

impl Scratch {
    pub fn new(group: &str, name: &str) -> Scratch {
        let parent = std::env::temp_dir().join(format!("b2rs-{group}-{}", std::process::id()));
        let dir = parent.join(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create scratch dir");
        Scratch { dir, parent }
    }
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::env::var_os("B2RS_KEEP_TMP").is_some() {
            eprintln!("keeping {}", self.dir.display());
            return;
        }
        let _ = std::fs::remove_dir_all(&self.dir);
        // succeeds only when the last test of this process is done
        let _ = std::fs::remove_dir(&self.parent);
    }
}

/// SHA-256 (hex) of a file, computed by `sha256sum`.
pub fn sha256_file(path: &Path) -> String {
    let out = run_cmd(
        Command::new("sha256sum").arg("-b").arg(path),
        Duration::from_secs(60),
    );
    assert!(
        out.ok(),
        "sha256sum {} failed: {}",
        path.display(),
        out.describe()
    );
    out.stdout
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_string()
}

/// SHA-256 (hex) of bytes, computed by `sha256sum` (through a temp file).
pub fn sha256_bytes(scratch: &Scratch, name: &str, data: &[u8]) -> String {
    let p = scratch.path(name);
    std::fs::write(&p, data).expect("write temp file");
    let h = sha256_file(&p);
    let _ = std::fs::remove_file(&p);
    h
}

/// splitmix64: small deterministic PRNG for test data.
#[derive(Clone)]
pub struct Rng(pub u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// uniform in 0..n (n > 0)
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
}

/// Which library a C program is linked with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lib {
    Ref,
    Ours,
}

/// Compile one C source into `out`, linked against the reference
/// (`-lblosc2`) or against ours (`-lb2rs` from the current profile dir).
/// `B2RS_INTEROP_OURS=ref` links "ours" against the reference too (to test
/// the harness itself).
pub fn compile_c(src: &Path, out: &Path, lib: Lib, ref_dir: &Path) -> Result<(), String> {
    let link_dir = out.parent().unwrap_or(Path::new(".")).join("ourslib");
    let (inc, libdir, libname) = link_triple(lib, ref_dir, &link_dir)?;
    let mut cmd = Command::new(cc());
    cmd.arg("-O2")
        .arg("-std=gnu11")
        .arg("-o")
        .arg(out)
        .arg(src)
        .arg("-I")
        .arg(&inc)
        .arg("-L")
        .arg(&libdir)
        .arg(format!("-l{libname}"))
        .arg(format!("-Wl,-rpath,{}", libdir.display()));
    let o = run_cmd(&mut cmd, Duration::from_secs(300));
    if o.ok() {
        Ok(())
    } else {
        Err(format!(
            "compiling {} against {} ({}) failed: {}\n{}",
            src.display(),
            libname,
            libdir.display(),
            o.describe(),
            o.stderr
        ))
    }
}

/// `B2RS_INTEROP_OURS=ref`: the "ours" programs are linked against the reference.
pub fn ours_is_ref() -> bool {
    std::env::var("B2RS_INTEROP_OURS")
        .map(|v| v == "ref")
        .unwrap_or(false)
}

/// (include dir, lib dir, -l name) for a build variant.  For ours, `link_dir`
/// receives `libb2rs.so`, a hard link to (or a copy of) the library of this cargo
/// run, and a symlink `<SONAME>` to it, so that `-lb2rs` finds it and the SONAME the
/// program records (e.g. `libb2rs.so.0`) resolves at run time through the rpath.
///
/// A hard link, not a symlink to `target/<profile>/libb2rs.so`: a concurrent
/// `cargo build` (the CMake consumer test runs one on the same target dir) removes
/// and re-creates that file even when nothing is rebuilt, and a program started in
/// that moment did not find its library (CI stop 47).
pub fn link_triple(
    lib: Lib,
    ref_dir: &Path,
    link_dir: &Path,
) -> Result<(PathBuf, PathBuf, String), String> {
    if lib == Lib::Ref || ours_is_ref() {
        if lib == Lib::Ours {
            eprintln!("note: B2RS_INTEROP_OURS=ref: the 'ours' build links the reference library");
        }
        return Ok((ref_include(ref_dir), ref_libdir(ref_dir), "blosc2".into()));
    }
    std::fs::create_dir_all(link_dir).map_err(|e| format!("{}: {e}", link_dir.display()))?;
    let local = link_dir.join("libb2rs.so");
    pin_library(&local)?;
    if let Some(so) = soname_of(&local) {
        if !so.contains('/') && so != "libb2rs.so" {
            let l = link_dir.join(&so);
            let _ = std::fs::remove_file(&l);
            std::os::unix::fs::symlink("libb2rs.so", &l)
                .map_err(|e| format!("{}: {e}", l.display()))?;
        }
    }
    Ok((
        ours_include(Some(ref_dir)),
        absolute(link_dir),
        "b2rs".into(),
    ))
}

/// Make `local` a hard link to (a copy of, across file systems) this run's
/// `libb2rs.so`.  The `deps/` file is preferred when it is the same build: cargo
/// never removes it for a fresh build, while it re-links `target/<profile>/libb2rs.so`.
/// A few retries cover the moment the top-level file is missing.
fn pin_library(local: &Path) -> Result<(), String> {
    let mut last = String::new();
    for attempt in 0..50 {
        if attempt > 0 {
            std::thread::sleep(Duration::from_millis(100));
        }
        let dir = ours_libdir();
        let mut sources = vec![dir.join("libb2rs.so")];
        if dir.file_name().is_some_and(|n| n != "deps") {
            let deps = dir.join("deps/libb2rs.so");
            let same = |a: &Path, b: &Path| {
                use std::os::unix::fs::MetadataExt;
                match (std::fs::metadata(a), std::fs::metadata(b)) {
                    (Ok(x), Ok(y)) => x.ino() == y.ino() && x.dev() == y.dev(),
                    _ => false,
                }
            };
            if same(&deps, &sources[0]) || !sources[0].is_file() && deps.is_file() {
                sources.insert(0, deps);
            }
        }
        for src in sources {
            let src = absolute(&src);
            if !src.is_file() {
                last = format!(
                    "{} does not exist: build the library first (cargo build / cargo test builds it)",
                    src.display()
                );
                continue;
            }
            let _ = std::fs::remove_file(local);
            match std::fs::hard_link(&src, local) {
                Ok(()) => return Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    last = format!("{}: {e}", src.display());
                }
                Err(_) => match std::fs::copy(&src, local) {
                    Ok(_) => return Ok(()),
                    Err(e) => {
                        last = format!("copying {} to {}: {e}", src.display(), local.display())
                    }
                },
            }
        }
    }
    Err(last)
}

/// The DT_SONAME of a shared library (via `readelf -d`), if any.
pub fn soname_of(lib: &Path) -> Option<String> {
    let o = run_cmd(
        Command::new("readelf").arg("-d").arg(lib),
        Duration::from_secs(60),
    );
    o.stdout
        .lines()
        .find(|l| l.contains("(SONAME)"))
        .and_then(|l| l.split('[').nth(1))
        .map(|s| s.trim_end_matches(']').to_string())
}

/// Number of worker threads for case matrices.
pub fn workers() -> usize {
    if let Ok(v) = std::env::var("B2RS_TEST_JOBS") {
        if let Ok(n) = v.parse::<usize>() {
            if n > 0 {
                return n;
            }
        }
    }
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
}

/// Run `f` over `items` on `workers()` threads; results in input order.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(usize, &T) -> R + Sync) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    let n = workers().min(items.len().max(1));
    std::thread::scope(|s| {
        for _ in 0..n {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                if i >= items.len() {
                    break;
                }
                let r = f(i, &items[i]);
                results.lock().unwrap()[i] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|r| r.expect("every item processed"))
        .collect()
}

/// A thread reading `r` to its end. Creating it waits and retries while the system cannot make
/// a thread right now (EAGAIN: seen once while another test forked hundreds of crashing children
/// of the reference).
fn read_in_thread<R: Read + Send + 'static>(r: R) -> std::thread::JoinHandle<Vec<u8>> {
    let slot = std::sync::Arc::new(std::sync::Mutex::new(Some(r)));
    let mut wait = Duration::from_millis(10);
    loop {
        let mine = slot.clone();
        let spawned = std::thread::Builder::new().spawn(move || {
            let mut v = Vec::new();
            if let Some(mut r) = mine.lock().unwrap().take() {
                let _ = r.read_to_end(&mut v);
            }
            v
        });
        match spawned {
            Ok(h) => return h,
            Err(e)
                if e.kind() == std::io::ErrorKind::WouldBlock && wait < Duration::from_secs(5) =>
            {
                std::thread::sleep(wait);
                wait *= 2;
            }
            Err(e) => panic!("failed to spawn thread: {e}"),
        }
    }
}
