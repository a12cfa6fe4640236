//! Plugins of our own, loaded at run time as C-Blosc2 3.3 loads the PyPI ones: a codec (id 210)
//! and a filter (id 220) each built here as a shared library exporting `info`, registered by
//! name without functions (`blosc2_register_codec` / `blosc2_register_filter`), and found
//! through a Python package of the plugin's name that prints the library's path (the lookup
//! C-Blosc2 does when the library is not on the loader's path). Checked: the plugins' functions
//! really run (a call counter the libraries export), chunks round-trip, and the codec's output
//! is in the chunk.

mod common;

use b2rs::capi::chunk::{blosc2_compress_ctx, blosc2_decompress_ctx};
use b2rs::capi::context::{blosc2_create_cctx, blosc2_create_dctx, blosc2_free_ctx};
use b2rs::capi::global::blosc2_init;
use b2rs::capi::plugins::{blosc2_register_codec, blosc2_register_filter};
use b2rs::capi::types::*;
use common::Scratch;
use std::ffi::CString;
use std::path::Path;
use std::process::Command;

/// A codec for data made of byte pairs (`a a b b …`): keeps one byte of each pair.
const CODEC_C: &str = r#"
#include <stdint.h>
#include <string.h>
typedef struct { char *encoder; char *decoder; } codec_info;
int b2rs_test_calls = 0;
int pair_encode(const uint8_t *in, int32_t n, uint8_t *out, int32_t maxout, uint8_t meta,
                void *cparams, const void *chunk) {
  b2rs_test_calls++;
  if (n % 2 || n / 2 + 4 > maxout) return 0;
  for (int32_t i = 0; i < n; i += 2) if (in[i] != in[i + 1]) return 0;
  memcpy(out, &n, 4);
  for (int32_t i = 0; i < n / 2; i++) out[4 + i] = in[2 * i];
  return 4 + n / 2;
}
int pair_decode(const uint8_t *in, int32_t n, uint8_t *out, int32_t maxout, uint8_t meta,
                void *dparams, const void *chunk) {
  b2rs_test_calls++;
  int32_t len;
  memcpy(&len, in, 4);
  if (len > maxout || n != 4 + len / 2) return -1;
  for (int32_t i = 0; i < len / 2; i++) out[2 * i] = out[2 * i + 1] = in[4 + i];
  return len;
}
codec_info info = {"pair_encode", "pair_decode"};
"#;

/// A filter adding 1 to every byte.
const FILTER_C: &str = r#"
#include <stdint.h>
typedef struct { char *forward; char *backward; } filter_info;
int b2rs_test_calls = 0;
int plus_forward(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta, void *cp, uint8_t id) {
  b2rs_test_calls++;
  for (int32_t i = 0; i < size; i++) dest[i] = src[i] + 1;
  return 0;
}
int plus_backward(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta, void *dp, uint8_t id) {
  b2rs_test_calls++;
  for (int32_t i = 0; i < size; i++) dest[i] = src[i] - 1;
  return 0;
}
filter_info info = {"plus_forward", "plus_backward"};
"#;

/// Build `src` as `dir/libblosc2_<name>.so` and a Python package `blosc2_<name>` in
/// `dir/py` whose `print_libpath()` prints its path.
fn build_plugin(dir: &Path, name: &str, src: &str) -> std::path::PathBuf {
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, src).unwrap();
    let so = dir.join(format!("libblosc2_{name}.so"));
    let st = Command::new(common::cc())
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(&so)
        .arg(&c)
        .status()
        .expect("cc");
    assert!(st.success(), "building the {name} plugin");
    let pkg = dir.join("py").join(format!("blosc2_{name}"));
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(
        pkg.join("__init__.py"),
        format!(
            "def print_libpath():\n    print({:?}, end='')\n",
            so.to_str().unwrap()
        ),
    )
    .unwrap();
    so
}

/// The plugin's call counter (the library is the one b2rs opened: same path, same handle);
/// -1 while the library is not loaded.
fn calls(so: &Path) -> i32 {
    let p = CString::new(so.to_str().unwrap()).unwrap();
    // SAFETY: the library exists and exports `b2rs_test_calls` (an int).
    unsafe {
        let h = libc::dlopen(p.as_ptr(), libc::RTLD_LAZY | libc::RTLD_NOLOAD);
        if h.is_null() {
            return -1;
        }
        let c = libc::dlsym(h, c"b2rs_test_calls".as_ptr()) as *const i32;
        assert!(!c.is_null());
        *c
    }
}

fn python_ok() -> bool {
    Command::new("python3")
        .args(["-c", "pass"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// Compress `src` with `cp` and decompress it again through the C API; returns the chunk.
fn roundtrip(cp: blosc2_cparams, src: &[u8]) -> Vec<u8> {
    let mut chunk = vec![0u8; src.len() + 64];
    let mut back = vec![0u8; src.len()];
    // SAFETY: the C API used as a C program does, buffers valid for the lengths given.
    unsafe {
        let c = blosc2_create_cctx(cp);
        let n = blosc2_compress_ctx(
            c,
            src.as_ptr() as *const _,
            src.len() as i32,
            chunk.as_mut_ptr() as *mut _,
            chunk.len() as i32,
        );
        blosc2_free_ctx(c);
        assert!(n > 0, "compress: {n}");
        chunk.truncate(n as usize);
        let d = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
        let m = blosc2_decompress_ctx(
            d,
            chunk.as_ptr() as *const _,
            chunk.len() as i32,
            back.as_mut_ptr() as *mut _,
            back.len() as i32,
        );
        blosc2_free_ctx(d);
        assert_eq!(m, src.len() as i32, "decompress");
    }
    assert_eq!(back, src);
    chunk
}

#[test]
fn own_codec_and_filter_found_through_python() {
    if !python_ok() {
        assert!(std::env::var_os("CI").is_none(), "python3 is needed in CI");
        common::skip("own_codec_and_filter_found_through_python", "no python3");
        return;
    }
    let s = Scratch::new("plugins-own", "lookup");
    let codec_so = build_plugin(&s.dir, "b2rspair", CODEC_C);
    let filter_so = build_plugin(&s.dir, "b2rsplus", FILTER_C);
    // the Python lookup runs in child processes, which inherit this
    std::env::set_var("PYTHONPATH", s.dir.join("py"));
    let cname = CString::new("b2rspair").unwrap();
    let fname = CString::new("b2rsplus").unwrap();
    // SAFETY: the C API used as a C program does.
    unsafe {
        blosc2_init();
        let mut codec = blosc2_codec {
            compcode: 210,
            compname: cname.as_ptr() as *mut _,
            complib: 210,
            version: 1,
            encoder: None,
            decoder: None,
        };
        assert_eq!(blosc2_register_codec(&mut codec), 0);
        let mut filter = blosc2_filter {
            id: 220,
            name: fname.as_ptr() as *mut _,
            version: 1,
            forward: None,
            backward: None,
        };
        assert_eq!(blosc2_register_filter(&mut filter), 0);
    }
    // the codec: byte pairs, one block, no filters
    let src: Vec<u8> = (0..20000u32).map(|i| ((i / 2) % 251) as u8).collect();
    let mut cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = 210;
    cp.typesize = 1;
    cp.filters = [0; 6];
    cp.splitmode = 2; // never split
    assert_eq!(calls(&codec_so), -1);
    let chunk = roundtrip(cp, &src);
    assert!(
        calls(&codec_so) >= 2,
        "the plugin's encoder and decoder ran"
    );
    // its output is in the chunk: half the data, plus its 4-byte length, per block
    assert!(
        chunk.len() < src.len() / 2 + 200,
        "chunk of {} bytes",
        chunk.len()
    );
    // the filter, in front of LZ4
    // nothing loads a plugin before it is used
    assert_eq!(calls(&filter_so), -1);
    let mut cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = 1;
    cp.typesize = 1;
    cp.filters = [0, 0, 0, 0, 0, 220];
    let data: Vec<u8> = (0..20000u32).map(|i| (i % 97) as u8).collect();
    roundtrip(cp, &data);
    assert!(
        calls(&filter_so) >= 2,
        "the plugin's forward and backward ran"
    );
}

/// The other lookup: `libblosc2_<name>.so` on the dynamic loader's path (`LD_LIBRARY_PATH`,
/// read at process start: checked in a child process of this test binary), with no Python
/// package of that name anywhere.
#[test]
fn own_codec_found_on_the_loader_path() {
    if let Some(dir) = std::env::var_os("B2RS_PLUGIN_CHILD") {
        let name = CString::new("b2rsloaderpath").unwrap();
        // SAFETY: the C API used as a C program does.
        unsafe {
            blosc2_init();
            let mut codec = blosc2_codec {
                compcode: 211,
                compname: name.as_ptr() as *mut _,
                complib: 211,
                version: 1,
                encoder: None,
                decoder: None,
            };
            assert_eq!(blosc2_register_codec(&mut codec), 0);
        }
        let src: Vec<u8> = (0..20000u32).map(|i| ((i / 2) % 251) as u8).collect();
        let mut cp = BLOSC2_CPARAMS_DEFAULTS;
        cp.compcode = 211;
        cp.typesize = 1;
        cp.filters = [0; 6];
        cp.splitmode = 2;
        let chunk = roundtrip(cp, &src);
        let so = Path::new(&dir).join("libblosc2_b2rsloaderpath.so");
        assert!(calls(&so) >= 2, "the plugin ran");
        assert!(chunk.len() < src.len() / 2 + 200);
        println!("child ok");
        return;
    }
    let s = Scratch::new("plugins-own", "loaderpath");
    build_plugin(&s.dir, "b2rsloaderpath", CODEC_C);
    // no Python package for it: only the loader's path can find it
    std::fs::remove_dir_all(s.dir.join("py")).unwrap();
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "own_codec_found_on_the_loader_path",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("B2RS_PLUGIN_CHILD", &s.dir)
        .env("LD_LIBRARY_PATH", &s.dir)
        .env_remove("PYTHONPATH")
        .output()
        .expect("run the child");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("child ok"),
        "child failed:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
