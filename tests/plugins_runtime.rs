//! Codec plugins loaded at run time from their PyPI wheels (`blosc2-openzl` 38, `blosc2-j2k` 39,
//! `blosc2-htj2k` 40), through b2rs's C API as a C program uses them: a 2-D b2nd image (uint8
//! and uint16, 64 × 64, one chunk and block) compressed with the plugin by b2rs into a frame
//! file, read back by b2rs and by the reference (Python blosc2 in a subprocess), and the
//! reference's own file read by b2rs; contents compared exactly (the plugins' default modes are
//! lossless). A codec registered by name only that no plugin provides gives the reference's
//! error. Each test is its own process (nextest), so each loads one plugin (j2k and htj2k in one
//! process crash at exit, in the reference too).
//!
//! The plugins are found as C-Blosc2 finds them: not on the loader's path here, so through
//! `python -c "import blosc2_<name>; blosc2_<name>.print_libpath()"`.

mod common;

use b2rs::capi::b2nd::{b2nd_create_ctx, b2nd_free_ctx};
use b2rs::capi::b2nd_array::{b2nd_free, b2nd_from_cbuffer, b2nd_open, b2nd_to_cbuffer};
use b2rs::capi::chunk::blosc2_compress_ctx;
use b2rs::capi::context::{blosc2_create_cctx, blosc2_free_ctx};
use b2rs::capi::frame::blosc2_remove_urlpath;
use b2rs::capi::global::blosc2_init;
use b2rs::capi::plugins::blosc2_register_codec;
use b2rs::capi::types::*;
use common::Scratch;
use std::ffi::CString;
use std::path::Path;
use std::process::Command;

fn have_plugin(test: &str, module: &str) -> bool {
    if common::python_imports(&format!("blosc2, numpy, {module}")) {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{test}: the Python package {module} is needed in CI (tools/fetch-reference.sh installs it)"
    );
    common::skip(test, &format!("python3 -c 'import {module}' fails"));
    false
}

/// The test image: 64 × 64 items of `typesize` 1 or 2 (little endian).
fn image(typesize: usize) -> Vec<u8> {
    (0..4096usize)
        .flat_map(|i| {
            if typesize == 2 {
                (((i * 37) % 4096) as u16).to_le_bytes().to_vec()
            } else {
                vec![((i * 7 + i / 64) % 251) as u8]
            }
        })
        .collect()
}

/// The same image in numpy (for the Python side).
fn numpy_image(typesize: usize) -> &'static str {
    if typesize == 2 {
        "(np.arange(4096) * 37 % 4096).astype(np.uint16).reshape(64, 64)"
    } else {
        "((np.arange(4096) * 7 + np.arange(4096) // 64) % 251).astype(np.uint8).reshape(64, 64)"
    }
}

/// Write the image compressed with `codec` to `path` through the C API.
fn write_b2rs(path: &Path, codec: u8, typesize: usize) {
    let p = CString::new(path.to_str().unwrap()).unwrap();
    let data = image(typesize);
    // SAFETY: the C API used as a C program does, with valid pointers that outlive the calls.
    unsafe {
        blosc2_init();
        blosc2_remove_urlpath(p.as_ptr());
        let mut cp = BLOSC2_CPARAMS_DEFAULTS;
        cp.compcode = codec;
        cp.typesize = typesize as i32;
        cp.splitmode = 2; // BLOSC_NEVER_SPLIT
        cp.filters = [0; 6];
        let mut st = BLOSC2_STORAGE_DEFAULTS;
        st.contiguous = 1;
        st.urlpath = p.as_ptr() as *mut _;
        st.cparams = &mut cp;
        let dtype = CString::new(if typesize == 2 { "<u2" } else { "|u1" }).unwrap();
        let shape = [64i64, 64];
        let cs = [64i32, 64];
        let ctx = b2nd_create_ctx(
            &st,
            2,
            shape.as_ptr(),
            cs.as_ptr(),
            cs.as_ptr(),
            dtype.as_ptr(),
            0,
            std::ptr::null(),
            0,
        );
        assert!(!ctx.is_null());
        let mut a = std::ptr::null_mut();
        let rc = b2nd_from_cbuffer(ctx, &mut a, data.as_ptr() as *const _, data.len() as i64);
        assert_eq!(rc, 0, "b2nd_from_cbuffer with codec {codec}");
        b2nd_free(a);
        b2nd_free_ctx(ctx);
    }
}

/// Read the whole array at `path` through the C API.
fn read_b2rs(path: &Path, len: usize) -> Vec<u8> {
    let p = CString::new(path.to_str().unwrap()).unwrap();
    let mut out = vec![0u8; len];
    // SAFETY: as in `write_b2rs`.
    unsafe {
        blosc2_init();
        let mut a = std::ptr::null_mut();
        assert_eq!(
            b2nd_open(p.as_ptr(), &mut a),
            0,
            "b2nd_open {}",
            path.display()
        );
        let rc = b2nd_to_cbuffer(a, out.as_mut_ptr() as *mut _, len as i64);
        assert_eq!(rc, 0, "b2nd_to_cbuffer {}", path.display());
        b2nd_free(a);
    }
    out
}

fn python(code: &str) -> String {
    let out = Command::new("python3")
        .args(["-c", code])
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "python failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn check_codec(test: &str, module: &str, codec: u8, typesize: usize) {
    if !have_plugin(test, module) {
        return;
    }
    let s = Scratch::new("plugins", test);
    let want = image(typesize);
    // b2rs writes, b2rs and the reference read
    let ours = s.path("b2rs.b2nd");
    write_b2rs(&ours, codec, typesize);
    assert_eq!(
        read_b2rs(&ours, want.len()),
        want,
        "b2rs reads its own file"
    );
    let same = python(&format!(
        "import numpy as np, blosc2\n\
         a = blosc2.open({:?})\n\
         print(np.array_equal(a[...], {}), a.schunk.cparams.codec.value)",
        ours.to_str().unwrap(),
        numpy_image(typesize)
    ));
    assert_eq!(
        same,
        format!("True {codec}"),
        "the reference reads b2rs's file"
    );
    // the reference writes, b2rs reads
    let theirs = s.path("ref.b2nd");
    python(&format!(
        "import numpy as np, blosc2\n\
         d = {}\n\
         blosc2.asarray(d, urlpath={:?}, mode='w', chunks=d.shape, blocks=d.shape, \
         cparams={{'codec': blosc2.Codec({codec}), 'filters': [], \
         'splitmode': blosc2.SplitMode.NEVER_SPLIT}})",
        numpy_image(typesize),
        theirs.to_str().unwrap()
    ));
    assert_eq!(
        read_b2rs(&theirs, want.len()),
        want,
        "b2rs reads the reference's file"
    );
}

#[test]
fn openzl_u8() {
    check_codec("openzl_u8", "blosc2_openzl", 38, 1);
}

#[test]
fn openzl_u16() {
    check_codec("openzl_u16", "blosc2_openzl", 38, 2);
}

#[test]
fn j2k_u8() {
    check_codec("j2k_u8", "blosc2_j2k", 39, 1);
}

#[test]
fn j2k_u16() {
    check_codec("j2k_u16", "blosc2_j2k", 39, 2);
}

#[test]
fn htj2k_u8() {
    check_codec("htj2k_u8", "blosc2_htj2k", 40, 1);
}

#[test]
fn htj2k_u16() {
    check_codec("htj2k_u16", "blosc2_htj2k", 40, 2);
}

/// A codec registered by name only that no plugin provides: compressing with it gives the
/// reference's error (-7, BLOSC2_ERROR_CODEC_SUPPORT), every time, and nothing crashes.
#[test]
fn missing_plugin_is_an_error() {
    let name = CString::new("b2rsnosuchplugin").unwrap();
    // SAFETY: the C API used as a C program does.
    unsafe {
        blosc2_init();
        let mut c = blosc2_codec {
            compcode: 200,
            compname: name.as_ptr() as *mut _,
            complib: 200,
            version: 1,
            encoder: None,
            decoder: None,
        };
        assert_eq!(blosc2_register_codec(&mut c), 0);
        let mut cp = BLOSC2_CPARAMS_DEFAULTS;
        cp.compcode = 200;
        cp.typesize = 1;
        let ctx = blosc2_create_cctx(cp);
        let src: Vec<u8> = (0..10000u32).map(|i| (i % 251) as u8).collect();
        let mut dst = vec![0u8; 11000];
        for _ in 0..2 {
            let rc = blosc2_compress_ctx(
                ctx,
                src.as_ptr() as *const _,
                src.len() as i32,
                dst.as_mut_ptr() as *mut _,
                dst.len() as i32,
            );
            assert_eq!(rc, -7);
        }
        blosc2_free_ctx(ctx);
    }
}
