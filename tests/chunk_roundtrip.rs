//! Round-trips of the chunk core through its Rust API, and decoding of the compat files.

use b2rs::chunk::{self, header::Header};
use b2rs::params::{CParams, DParams, SplitMode};
use std::path::PathBuf;
use std::process::Command;

fn data(kind: u32, n: usize) -> Vec<u8> {
    let mut s: u64 = 0x9E3779B97F4A7C15 ^ kind as u64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    match kind {
        0 => (0..n)
            .map(|i| ((i / 4) as u32).to_le_bytes()[i % 4])
            .collect(),
        1 => (0..n).map(|_| next() as u8).collect(),
        2 => (0..n)
            .map(|i| b"the quick brown fox jumps over "[(i * 7 + (next() % 3) as usize) % 31])
            .collect(),
        _ => vec![0u8; n],
    }
}

fn roundtrip(p: &CParams, src: &[u8]) -> usize {
    let mut dst = vec![0u8; src.len() + 32];
    let n = chunk::compress(p, src, &mut dst).expect("compress");
    assert!(n > 0, "compress returned 0 for {:?}", p);
    let h = Header::parse(&dst[..n]).unwrap();
    assert_eq!(h.cbytes as usize, n);
    assert_eq!(h.nbytes as usize, src.len());
    let mut out = vec![0xA5u8; src.len()];
    let dp = DParams {
        nthreads: p.nthreads,
        ..DParams::default()
    };
    let m = chunk::decompress(&dp, &dst[..n], &mut out, None).expect("decompress");
    assert_eq!(m, src.len());
    if !p.filters.contains(&4) {
        assert!(out == src, "mismatch for {:?} len {}", p, src.len());
    }
    // getitem over a middle range
    if src.len() > 10 {
        let ts = 1;
        let (a, b) = (src.len() / 3, src.len() / 2);
        let mut g = vec![0u8; b - a];
        chunk::getitem_bytes(&dp, &dst[..n], a * ts, (b - a) * ts, &mut g).unwrap();
        if !p.filters.contains(&4) {
            assert_eq!(&g[..], &src[a..b]);
        }
    }
    n
}

#[test]
fn matrix() {
    for &codec in &[0u8, 1, 2, 4, 5] {
        for filters in [
            [0u8, 0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0, 1],
            [0, 0, 0, 0, 0, 2],
            [0, 0, 0, 0, 3, 1],
        ] {
            for &ts in &[1, 2, 4, 8, 3] {
                for &clevel in &[0u8, 1, 5, 9] {
                    for &(kind, n) in &[
                        (0u32, 100_000usize),
                        (1, 5000),
                        (2, 70_001),
                        (3, 1000),
                        (0, 33),
                    ] {
                        if codec == 5 && clevel == 9 && n > 50_000 {
                            continue;
                        }
                        let p = CParams {
                            compcode: codec,
                            clevel,
                            typesize: ts,
                            filters,
                            ..CParams::default()
                        };
                        roundtrip(&p, &data(kind, n));
                    }
                }
            }
        }
    }
}

#[test]
fn threads_dicts_splitmodes() {
    let src = data(0, 1 << 20);
    for nthreads in [1i16, 2, 4] {
        for sm in [
            SplitMode::Always,
            SplitMode::Never,
            SplitMode::Auto,
            SplitMode::ForwardCompat,
        ] {
            for codec in [0u8, 1, 5] {
                let p = CParams {
                    compcode: codec,
                    typesize: 4,
                    nthreads,
                    splitmode: sm,
                    blocksize: 32 * 1024,
                    ..CParams::default()
                };
                roundtrip(&p, &src);
            }
        }
    }
    for codec in [1u8, 2, 5] {
        let p = CParams {
            compcode: codec,
            typesize: 4,
            use_dict: true,
            blocksize: 16 * 1024,
            ..CParams::default()
        };
        let n = roundtrip(&p, &data(2, 300_000));
        assert!(n > 0);
    }
}

#[test]
fn zeros_become_special() {
    let p = CParams {
        typesize: 4,
        ..CParams::default()
    };
    let src = vec![0u8; 100_000];
    let mut dst = vec![0u8; src.len() + 32];
    let n = chunk::compress(&p, &src, &mut dst).unwrap();
    assert_eq!(n, 32);
    assert_eq!(dst[31], 0x10);
}

#[test]
fn blosclz_worked_example_header() {
    // CHUNK.md §13: 1 000 000 bytes of int32 ramp, typesize 4, clevel 5, BloscLZ, shuffle.
    let src = data(0, 1_000_000);
    let p = CParams {
        typesize: 4,
        ..CParams::default()
    };
    let mut dst = vec![0u8; src.len() + 32];
    let n = chunk::compress(&p, &src, &mut dst).unwrap();
    assert_eq!(&dst[..4], &[5, 1, 5, 4]);
    assert_eq!(i32::from_le_bytes(dst[8..12].try_into().unwrap()), 262_144);
    assert_eq!(i32::from_le_bytes(dst[32..36].try_into().unwrap()), 0x30);
    eprintln!("worked example cbytes {} (reference 10023)", n);
}

fn shared() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/testdata")
}

fn sha256(bytes: &[u8]) -> String {
    let path =
        std::env::temp_dir().join(format!("b2rs-sha-{}-{}", std::process::id(), bytes.len()));
    std::fs::write(&path, bytes).unwrap();
    let out = Command::new("sha256sum")
        .arg(&path)
        .output()
        .expect("sha256sum");
    std::fs::remove_file(&path).ok();
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_string()
}

const COUNT32: &str = "02e21fa3c89fa7d7b61826918a8bd35d3127827b4ef3f3ee47ade5e64e3c2a80";
const COUNT32_SHORT: &str = "883be4b908729934db91cbf0324b10144692f57105f5d7ec09c57e3863b12f30";

#[test]
fn compat_cdata_files() {
    let dir = shared().join("compat");
    if !dir.exists() {
        eprintln!("skipping: {} not found", dir.display());
        return;
    }
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if !name.ends_with(".cdata")
            || name.starts_with("shuffle-")
            || name.starts_with("bitshuffle-")
        {
            continue;
        }
        let buf = std::fs::read(&path).unwrap();
        let h = Header::parse(&buf).unwrap();
        let mut out = vec![0u8; h.nbytes as usize];
        chunk::decompress(&DParams::default(), &buf, &mut out, None)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        if name.contains("bitshuffle") {
            assert_eq!(sha256(&out[..641_088]), COUNT32_SHORT, "{name}");
        } else {
            assert_eq!(sha256(&out), COUNT32, "{name}");
        }
        checked += 1;
    }
    assert!(checked >= 27, "only {checked} files checked");
}
