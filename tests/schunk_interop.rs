//! Super-chunk interop with Python blosc2 (the reference, run in a `python3` subprocess; the
//! reference library is never loaded into this process), for every storage kind: contiguous
//! frame file, sparse frame directory, in-memory contiguous frame (serialised), and a frame at
//! an offset of a larger file; with metalayers, vlmetalayers, special (zero) chunks and the five
//! codecs. Python writes and b2rs reads exactly, and b2rs writes the same set that Python reads
//! exactly (`tests/schunk_interop.py` holds both Python sides and the case definitions).
//! Python's frames are read both through the Rust API and through b2rs's C API. A frame of
//! 200 000 chunks (an index b2rs reads lazily) goes both ways, and Python reads it back after
//! b2rs changed it.

mod common;

use b2rs::frame::{Frame, Io, Location, StdIo};
use b2rs::schunk::Schunk;
use b2rs::{CParams, DParams};
use common::Scratch;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

const CODECS: [u8; 5] = [0, 1, 2, 4, 5];
const KINDS: [&str; 4] = ["cf", "sf", "mem", "off"];
const PREFIX: &[u8] = b"29 bytes before the frame....";
const NITEMS: usize = 10123;
const CHUNKSIZE: usize = 4000;

fn script() -> PathBuf {
    common::repo_root().join("tests").join("schunk_interop.py")
}

fn python_blosc2() -> bool {
    common::python_imports("blosc2, numpy")
}

fn run_python(mode: &str, dir: &Path) {
    let out = Command::new("python3")
        .arg(script())
        .arg(mode)
        .arg(dir)
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "python {mode} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn i32s(v: impl Iterator<Item = i64>) -> Vec<u8> {
    v.flat_map(|x| (x as i32).to_le_bytes()).collect()
}

fn data(ci: usize) -> Vec<u8> {
    i32s((0..NITEMS as i64).map(|i| (i * 7 + ci as i64) % 1000))
}

fn chunk2(ci: usize) -> Vec<u8> {
    i32s((0..1000i64).map(|i| (i * 3 + ci as i64) % 500))
}

fn special_data(ci: usize) -> Vec<u8> {
    let mut d = vec![0u8; 5000 * 4];
    d[8000..12000].copy_from_slice(&chunk2(ci));
    d
}

/// msgpack `bin` encoding of `b` (how Python blosc2 stores bytes in (vl)metalayers).
fn packb(b: &[u8]) -> Vec<u8> {
    let mut v = if b.len() < 256 {
        vec![0xc4, b.len() as u8]
    } else {
        let mut v = vec![0xc5];
        v.extend_from_slice(&(b.len() as u16).to_be_bytes());
        v
    };
    v.extend_from_slice(b);
    v
}

fn meta1(ci: usize) -> Vec<u8> {
    vec![1, 2, 3, ci as u8]
}

fn vl1(ci: usize) -> Vec<u8> {
    format!("vlmeta-{ci}").into_bytes()
}

fn vl2(ci: usize) -> Vec<u8> {
    (0..300).map(|i| ((i * 13 + ci) % 256) as u8).collect()
}

fn path(dir: &Path, name: &str, kind: &str) -> PathBuf {
    let ext = match kind {
        "cf" => "b2frame",
        "sf" => "b2dir",
        "mem" => "cframe",
        _ => "host",
    };
    dir.join(format!("{name}.{ext}"))
}

fn io() -> Arc<dyn Io> {
    Arc::new(StdIo)
}

fn open(dir: &Path, name: &str, kind: &str) -> Schunk {
    let p = path(dir, name, kind);
    let f = match kind {
        "cf" | "sf" => Frame::open_path(&p, 0, io()),
        "mem" => Frame::from_bytes(std::fs::read(&p).unwrap()),
        _ => Frame::open_path(&p, PREFIX.len() as u64, io()),
    }
    .unwrap_or_else(|e| panic!("{name}: {e:?}"));
    if kind == "sf" {
        assert!(f.is_sparse(), "{name}");
    }
    Schunk::from_frame(f, DParams::default())
}

/// Check one case read by b2rs.
fn check(dir: &Path, ci: usize, kind: &str, case: char) {
    let name = format!("{case}{ci}_{kind}");
    let mut s = open(dir, &name, kind);
    assert_eq!(s.cparams().compcode, CODECS[ci], "{name}");
    assert_eq!(s.typesize(), 4, "{name}");
    let want = if case == 'd' {
        data(ci)
    } else {
        special_data(ci)
    };
    assert_eq!(s.nchunks(), if case == 'd' { 11 } else { 5 }, "{name}");
    assert_eq!(s.nbytes(), want.len() as i64, "{name}");
    assert_eq!(s.chunksize(), CHUNKSIZE as i32, "{name}");
    let mut got = Vec::new();
    for n in 0..s.nchunks() {
        let mut buf = vec![0u8; CHUNKSIZE];
        let len = s.decompress_chunk(n, &mut buf).unwrap();
        got.extend_from_slice(&buf[..len]);
    }
    assert!(got == want, "{name}: data differs");
    // the same through slices
    let mut all = vec![0u8; want.len()];
    s.get_slice_with(&DParams::default(), 0, (want.len() / 4) as i64, &mut all)
        .unwrap();
    assert!(all == want, "{name}: slice differs");
    assert_eq!(s.metalayers().len(), 1, "{name}");
    assert_eq!(s.metalayers()[0].name, "meta1");
    assert_eq!(s.metalayers()[0].content, packb(&meta1(ci)), "{name}");
    assert_eq!(s.vlmeta_get("vl1").unwrap(), packb(&vl1(ci)), "{name}");
    if case == 'd' {
        assert_eq!(s.vlmetalayers().len(), 2, "{name}");
        assert_eq!(s.vlmeta_get("vl2").unwrap(), packb(&vl2(ci)), "{name}");
    } else {
        assert_eq!(s.vlmetalayers().len(), 1, "{name}");
        // zero chunks are stored as special offsets, the updated one as a real chunk
        let offs = s.frame().unwrap().offsets().unwrap();
        for (i, o) in offs.iter().enumerate() {
            assert_eq!(*o < 0, i != 2, "{name}: offset {i} = {o}");
        }
    }
}

/// Check one case read through b2rs's C API (`blosc2_schunk_open`, `_open_offset`,
/// `_from_buffer`), with the public struct.
fn check_c(dir: &Path, ci: usize, kind: &str, case: char) {
    use b2rs::capi::{frame as cf, meta as cm, schunk as cs};
    use std::ffi::CString;
    let name = format!("{case}{ci}_{kind}");
    let p = path(dir, &name, kind);
    let cpath = CString::new(p.to_str().unwrap()).unwrap();
    let mut buf = Vec::new();
    // SAFETY: valid NUL-terminated paths and buffers; the super-chunk is freed below.
    let sc = unsafe {
        match kind {
            "cf" | "sf" => cf::blosc2_schunk_open(cpath.as_ptr()),
            "mem" => {
                buf = std::fs::read(&p).unwrap();
                cf::blosc2_schunk_from_buffer(buf.as_mut_ptr(), buf.len() as i64, true)
            }
            _ => cf::blosc2_schunk_open_offset(cpath.as_ptr(), PREFIX.len() as i64),
        }
    };
    assert!(!sc.is_null(), "{name}");
    let want = if case == 'd' {
        data(ci)
    } else {
        special_data(ci)
    };
    // SAFETY: a live super-chunk from the calls above.
    unsafe {
        let c = &*sc;
        assert_eq!(c.nbytes, want.len() as i64, "{name}");
        assert_eq!(c.nchunks, if case == 'd' { 11 } else { 5 }, "{name}");
        assert_eq!(c.typesize, 4, "{name}");
        assert_eq!(c.compcode, CODECS[ci], "{name}");
        // from_buffer with copy gives an in-memory sparse super-chunk, as C-Blosc2
        assert_eq!(c.frame.is_null(), kind == "mem", "{name}");
        assert_eq!(c.data.is_null(), kind != "mem", "{name}");
        assert_eq!(
            (*c.storage).contiguous != 0,
            kind == "cf" || kind == "off",
            "{name}"
        );
        assert_eq!((*c.storage).urlpath.is_null(), kind == "mem", "{name}");
        assert_eq!(c.nmetalayers, 1, "{name}");
        let m = &*c.metalayers[0];
        let content = std::slice::from_raw_parts(m.content, m.content_len as usize);
        assert_eq!(content, packb(&meta1(ci)), "{name}");
        assert_eq!(c.nvlmetalayers, if case == 'd' { 2 } else { 1 }, "{name}");
        let mut got = Vec::new();
        let mut out = vec![0u8; CHUNKSIZE];
        for n in 0..c.nchunks {
            let len = cs::blosc2_schunk_decompress_chunk(
                sc,
                n,
                out.as_mut_ptr().cast(),
                CHUNKSIZE as i32,
            );
            assert!(len > 0, "{name}: chunk {n}: {len}");
            got.extend_from_slice(&out[..len as usize]);
        }
        assert!(got == want, "{name}: data differs");
        let vname = CString::new("vl1").unwrap();
        let mut content: *mut u8 = std::ptr::null_mut();
        let mut clen = 0i32;
        assert!(cm::blosc2_vlmeta_get(sc, vname.as_ptr(), &mut content, &mut clen) >= 0);
        assert_eq!(
            std::slice::from_raw_parts(content, clen as usize),
            packb(&vl1(ci)),
            "{name}"
        );
        libc::free(content.cast());
        cs::blosc2_schunk_free(sc);
    }
    drop(buf);
}

fn compress(p: &CParams, d: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; d.len() + 64];
    let n = b2rs::chunk::compress(p, d, &mut out).unwrap();
    out.truncate(n);
    out
}

/// Write one case with b2rs.
fn write(dir: &Path, ci: usize, kind: &str, case: char) {
    let name = format!("{case}{ci}_{kind}");
    let p = path(dir, &name, kind);
    let cp = CParams {
        typesize: 4,
        compcode: CODECS[ci],
        clevel: 5,
        ..CParams::default()
    };
    let dp = DParams::default();
    let fp = b2rs::frame::FrameParams::from_cparams(&cp, 1);
    let mut s = match kind {
        "cf" => Schunk::with_frame(
            cp.clone(),
            dp,
            Frame::create(
                Location::File {
                    path: p.clone(),
                    offset: 0,
                },
                &fp,
                io(),
            )
            .unwrap(),
        ),
        "sf" => Schunk::with_frame(
            cp.clone(),
            dp,
            Frame::create(Location::Dir(p.clone()), &fp, io()).unwrap(),
        ),
        "mem" => Schunk::with_frame(
            cp.clone(),
            dp,
            Frame::create(Location::Memory, &fp, io()).unwrap(),
        ),
        // the in-memory sparse super-chunk, serialised
        _ => Schunk::new(cp.clone(), dp),
    };
    s.meta_add("meta1", &packb(&meta1(ci))).unwrap();
    let defaults = CParams::default();
    if case == 'd' {
        for c in data(ci).chunks(CHUNKSIZE) {
            s.append_buffer(c).unwrap();
        }
        s.vlmeta_add("vl1", &packb(&vl1(ci)), &defaults).unwrap();
        s.vlmeta_add("vl2", &packb(&vl2(ci)), &defaults).unwrap();
    } else {
        assert_eq!(s.fill_special(5000, 1, CHUNKSIZE as i32).unwrap(), 5);
        s.update_chunk(2, compress(&cp, &chunk2(ci))).unwrap();
        s.vlmeta_add("vl1", &packb(&vl1(ci)), &defaults).unwrap();
    }
    match kind {
        "mem" => std::fs::write(&p, s.to_cframe().unwrap()).unwrap(),
        "off" => {
            std::fs::write(&p, PREFIX).unwrap();
            let off = Frame::append_file(&p, &s.to_cframe().unwrap(), &StdIo).unwrap();
            assert_eq!(off, PREFIX.len() as u64);
            Frame::append_file(&p, b"trailing bytes", &StdIo).unwrap();
        }
        _ => {}
    }
}

fn each_case(mut f: impl FnMut(usize, &str, char)) {
    for ci in 0..CODECS.len() {
        for kind in KINDS {
            for case in ['d', 's'] {
                f(ci, kind, case);
            }
        }
    }
}

#[test]
fn schunk_interop_python_writes_b2rs_reads() {
    if !python_blosc2() {
        common::skip(
            "schunk_interop_python_writes_b2rs_reads",
            "python3 -c 'import blosc2' fails: Python blosc2 (the reference) is not installed",
        );
        return;
    }
    let scratch = Scratch::new("schunk-interop", "py2rs");
    run_python("write", &scratch.dir);
    each_case(|ci, kind, case| check(&scratch.dir, ci, kind, case));
    each_case(|ci, kind, case| check_c(&scratch.dir, ci, kind, case));
}

#[test]
fn schunk_interop_b2rs_writes_python_reads() {
    if !python_blosc2() {
        common::skip(
            "schunk_interop_b2rs_writes_python_reads",
            "python3 -c 'import blosc2' fails: Python blosc2 (the reference) is not installed",
        );
        return;
    }
    let scratch = Scratch::new("schunk-interop", "rs2py");
    each_case(|ci, kind, case| write(&scratch.dir, ci, kind, case));
    // b2rs reads its own set too
    each_case(|ci, kind, case| check(&scratch.dir, ci, kind, case));
    run_python("read", &scratch.dir);
}

const BIG_NCHUNKS: i64 = 200_000;
const BIG_NEW: [i64; 4] = [-1, -2, -3, -4];

/// Chunks of the large frame that are not zeros (see schunk_interop.py).
const BIG_SET: [i64; 6] = [0, 1, 77_777, 131_072, 150_000, BIG_NCHUNKS - 1];

fn big_data() -> Vec<u8> {
    i32s((0..BIG_NCHUNKS * 4).map(|i| {
        if BIG_SET.contains(&(i / 4)) {
            (i * 7) % 1000 + 1
        } else {
            0
        }
    }))
}

/// Every item of the super-chunk `s` (chunk by chunk).
fn all_items(s: &mut Schunk) -> Vec<u8> {
    let mut got = Vec::with_capacity(s.nbytes().max(0) as usize);
    let mut buf = [0u8; 16];
    for n in 0..s.nchunks() {
        let len = s.decompress_chunk(n, &mut buf).unwrap();
        got.extend_from_slice(&buf[..len]);
    }
    got
}

#[test]
fn schunk_interop_large_index() {
    if !python_blosc2() {
        common::skip(
            "schunk_interop_large_index",
            "python3 -c 'import blosc2' fails: Python blosc2 (the reference) is not installed",
        );
        return;
    }
    let scratch = Scratch::new("schunk-interop", "big");
    let dir = &scratch.dir;
    run_python("bigwrite", dir);
    let want = big_data();

    // Python's frame, read (its index lazily), then changed in place
    let py = dir.join("big_py.b2frame");
    let mut s = Schunk::from_frame(Frame::open_path(&py, 0, io()).unwrap(), DParams::default());
    assert_eq!(s.nchunks(), BIG_NCHUNKS);
    assert!(all_items(&mut s) == want, "big_py: data differs");
    let mut slice = vec![0u8; 64];
    s.get_slice_with(&DParams::default(), 600_000, 600_016, &mut slice)
        .unwrap();
    assert!(slice == want[2_400_000..2_400_064], "big_py: slice differs");
    let cp = CParams {
        typesize: 4,
        ..CParams::default()
    };
    s.update_chunk(150_000, compress(&cp, &i32s(BIG_NEW.into_iter())))
        .unwrap();
    s.delete_chunk(0).unwrap();
    drop(s);
    let mut s = Schunk::from_frame(Frame::open_path(&py, 0, io()).unwrap(), DParams::default());
    let mut changed = want[16..].to_vec();
    changed[149_999 * 16..150_000 * 16].copy_from_slice(&i32s(BIG_NEW.into_iter()));
    assert!(all_items(&mut s) == changed, "big_py changed: data differs");

    // the same data written by b2rs (in memory, serialised once)
    let mut s = Schunk::new(cp, DParams::default());
    for c in want.chunks(16) {
        s.append_buffer(c).unwrap();
    }
    std::fs::write(dir.join("big_rs.b2frame"), s.to_cframe().unwrap()).unwrap();
    run_python("bigread", dir);
}
