//! The `b2rs` command-line tool, run as a program:
//!
//! * files written by Python blosc2 (the reference: contiguous and sparse frames, b2nd arrays
//!   of several dtypes, special chunks, vlmetalayers) and by Python bloscpack → `info`,
//!   `decompress`, `verify` give the right content;
//! * `b2rs compress` output (frames, sparse frames, b2nd, Bloscpack) read back exactly by Python
//!   blosc2 / bloscpack;
//! * `convert` round trips between every pair of formats;
//! * damaged files (truncated, flipped bytes) → `verify`/`decompress` exit 1 with a message
//!   naming the file (and the chunk), never a panic;
//! * `info --json` is JSON; usage errors exit 2.
//!
//! Python blosc2 is required (tools/test.sh installs it); bloscpack 0.16 is optional like in
//! tests/bloscpack.rs (skipped without it, except on CI).

#[path = "../../tests/common/mod.rs"]
mod common;

use common::{run_cmd, Out, Rng, Scratch};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const B2RS: &str = env!("CARGO_BIN_EXE_b2rs");

fn b2rs(args: &[&str]) -> Out {
    run_cmd(Command::new(B2RS).args(args), Duration::from_secs(120))
}

fn b2rs_ok(args: &[&str]) -> Out {
    let o = b2rs(args);
    assert!(o.ok(), "b2rs {args:?}: {}", o.describe());
    o
}

fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

fn python_exe() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_string())
}

/// Shim for bloscpack 0.16 on Python ≥ 3.10 (as tests/bloscpack_helper.py).
const BLOSCPACK_SHIM: &str = r#"
import collections, collections.abc
for _n in ("Mapping", "MutableMapping", "Sequence", "MutableSequence", "Iterable",
           "Callable", "Set", "MutableSet", "Hashable"):
    if not hasattr(collections, _n):
        setattr(collections, _n, getattr(collections.abc, _n))
"#;

/// Run a Python script in `dir`; panics with its output on failure.
fn python(dir: &Path, script: &str) -> String {
    let o = run_cmd(
        Command::new(python_exe())
            .arg("-c")
            .arg(script)
            .current_dir(dir),
        Duration::from_secs(300),
    );
    assert!(o.ok(), "python failed: {}\n{}", o.describe(), o.stderr);
    o.stdout
}

/// Whether `import MODULES` works; else skip (on CI: fail).
fn have_python(test: &str, import: &str) -> bool {
    let o = run_cmd(
        Command::new(python_exe())
            .arg("-c")
            .arg(format!("{BLOSCPACK_SHIM}\nimport {import}")),
        Duration::from_secs(120),
    );
    if o.ok() {
        return true;
    }
    let msg = format!(
        "python3 cannot import {import} (tools/fetch-reference.sh installs it): {}",
        o.describe()
    );
    if std::env::var_os("CI").is_some() {
        panic!("{test}: {msg}");
    }
    common::skip(test, &msg);
    false
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `info --json FILE` parsed by Python's json module; returns selected fields as text.
fn info_json(dir: &Path, file: &Path, exprs: &[&str]) -> Vec<String> {
    let o = b2rs_ok(&["info", "--json", p(file)]);
    let j = dir.join("info.json");
    std::fs::write(&j, &o.stdout).unwrap();
    let script = format!(
        "import json\nj = json.load(open({:?}))\n{}",
        p(&j),
        exprs
            .iter()
            .map(|e| format!("print(json.dumps({e}))"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    python(dir, &script).lines().map(String::from).collect()
}

#[test]
fn python_blosc2_files() {
    if !have_python("python_blosc2_files", "blosc2") {
        return;
    }
    let s = Scratch::new("cli", "pyblosc2");
    python(
        &s.dir,
        r#"
import blosc2, numpy as np
rng = np.random.default_rng(3)
a = (np.sin(np.arange(50_000) / 100.0) * 1000).astype('<f8')
open('frame.raw', 'wb').write(a.tobytes())
sc = blosc2.SChunk(chunksize=64_000, data=a.tobytes(), urlpath='py.b2frame', mode='w',
                   cparams={'typesize': 8, 'codec': blosc2.Codec.LZ4, 'clevel': 6})
sc.vlmeta['info'] = {'author': 'test', 'n': [1, 2, 3]}
sc2 = blosc2.SChunk(chunksize=30_000, data=a.tobytes(), urlpath='pysparse.b2frame',
                    contiguous=False, mode='w', cparams={'typesize': 8})
arrays = {
    'f8': a.reshape(250, 200),
    'i4': rng.integers(-1000, 1000, (37, 41, 13), dtype='<i4'),
    'u1': rng.integers(0, 4, (333, 77), dtype='u1'),
    'f4': np.linspace(0, 1, 1000, dtype='<f4'),
    'i2': np.arange(50 * 60, dtype='<i2').reshape(50, 60),
}
chunks = {'f8': (64, 50), 'i4': (10, 16, 13), 'u1': (100, 30), 'f4': (300,), 'i2': (20, 25)}
blocks = {'f8': (16, 25), 'i4': (5, 8, 4), 'u1': (32, 16), 'f4': (64,), 'i2': (7, 9)}
for k, v in arrays.items():
    blosc2.asarray(v, urlpath=k + '.b2nd', mode='w', chunks=chunks[k], blocks=blocks[k])
    open(k + '.raw', 'wb').write(np.ascontiguousarray(v).tobytes())
z = blosc2.zeros((120, 100), dtype='<f8', urlpath='zeros.b2nd', mode='w', chunks=(50, 100),
                 blocks=(25, 50))
z[60:70, :] = 1.5
open('zeros.raw', 'wb').write(z[:].tobytes())
sp = blosc2.asarray(arrays['f8'], urlpath='sparse.b2nd', mode='w', contiguous=False,
                    chunks=(100, 100), blocks=(50, 50))
"#,
    );
    // frames
    for (f, raw) in [
        ("py.b2frame", "frame.raw"),
        ("pysparse.b2frame", "frame.raw"),
        ("f8.b2nd", "f8.raw"),
        ("i4.b2nd", "i4.raw"),
        ("u1.b2nd", "u1.raw"),
        ("f4.b2nd", "f4.raw"),
        ("i2.b2nd", "i2.raw"),
        ("zeros.b2nd", "zeros.raw"),
        ("sparse.b2nd", "f8.raw"),
    ] {
        let out = s.path(&format!("{f}.out"));
        b2rs_ok(&["decompress", p(&s.path(f)), p(&out)]);
        assert!(
            read(&out) == read(&s.path(raw)),
            "{f}: decompressed bytes differ"
        );
        let v = b2rs_ok(&["verify", p(&s.path(f))]);
        assert!(v.stdout.contains("OK"), "{f}: {}", v.stdout);
        let text = b2rs_ok(&["info", p(&s.path(f))]);
        assert!(text.stdout.contains("nchunks:"), "{f}: {}", text.stdout);
    }
    // info fields
    let j = info_json(
        &s.dir,
        &s.path("py.b2frame"),
        &[
            "j['codec']",
            "j['nbytes']",
            "j['typesize']",
            "j['vlmetalayers']['info']",
            "j['nchunks']",
            "j['filters'][0]['name']",
        ],
    );
    assert_eq!(
        j,
        [
            "\"lz4\"",
            "400000",
            "8",
            "{\"author\": \"test\", \"n\": [1, 2, 3]}",
            "7",
            "\"shuffle\""
        ]
    );
    let j = info_json(
        &s.dir,
        &s.path("i4.b2nd"),
        &[
            "j['b2nd']['shape']",
            "j['b2nd']['chunkshape']",
            "j['b2nd']['blockshape']",
            "j['b2nd']['dtype']",
            "j['metalayers']['b2nd']['shape']",
        ],
    );
    assert_eq!(
        j,
        [
            "[37, 41, 13]",
            "[10, 16, 13]",
            "[5, 8, 4]",
            "\"<i4\"",
            "[37, 41, 13]"
        ]
    );
    let j = info_json(
        &s.dir,
        &s.path("zeros.b2nd"),
        &[
            "[c['chunk'] for c in j['special_chunks']]",
            "j['special_chunks'][0]['kind']",
        ],
    );
    assert_eq!(j, ["[0, 2]", "\"zeros\""]);
    let j = info_json(&s.dir, &s.path("sparse.b2nd"), &["j['format']"]);
    assert_eq!(j, ["\"b2nd array (sparse frame)\""]);
}

/// Deterministic, somewhat compressible bytes.
fn sample(len: usize, seed: u64) -> Vec<u8> {
    let mut r = Rng::new(seed);
    let mut v = Vec::with_capacity(len);
    let mut x = 0f64;
    while v.len() < len {
        x += r.f64() - 0.5;
        v.extend_from_slice(&((x * 100.0).round() / 100.0).to_le_bytes());
    }
    v.truncate(len);
    v
}

#[test]
fn compress_read_by_python_blosc2() {
    if !have_python("compress_read_by_python_blosc2", "blosc2") {
        return;
    }
    let s = Scratch::new("cli", "topy");
    let raw = s.path("in.raw");
    std::fs::write(&raw, sample(300_000, 1)).unwrap();
    let odd = s.path("odd.raw");
    std::fs::write(&odd, sample(100_003, 2)).unwrap();
    b2rs_ok(&["compress", p(&raw), p(&s.path("a.b2frame"))]);
    b2rs_ok(&[
        "compress",
        p(&raw),
        p(&s.path("b.b2frame")),
        "--codec",
        "lz4hc",
        "--clevel",
        "9",
        "--filter",
        "bitshuffle",
        "--chunk-size",
        "32K",
        "--threads",
        "2",
    ]);
    b2rs_ok(&[
        "compress",
        p(&odd),
        p(&s.path("c.b2frame")),
        "--sparse",
        "--codec",
        "zlib",
        "--typesize",
        "4",
        "--filter",
        "delta",
        "--filter",
        "shuffle",
        "--chunk-size",
        "20000",
    ]);
    b2rs_ok(&[
        "compress",
        p(&odd),
        p(&s.path("d.b2frame")),
        "--filter",
        "none",
        "--codec",
        "blosclz",
    ]);
    b2rs_ok(&[
        "compress",
        p(&raw),
        p(&s.path("e.b2frame")),
        "--filter",
        "trunc_prec:30",
        "--filter",
        "bytedelta",
    ]);
    // b2nd: several dtypes and shapes (300_000 bytes)
    let nd = [
        ("f8.b2nd", "<f8", "150,250", Some(("64,100", "16,25"))),
        ("i4.b2nd", "<i4", "25,30,100", Some(("10,7,33", "3,4,11"))),
        ("u1.b2nd", "|u1", "300000", None),
        ("i2.b2nd", "<i2", "150000", Some(("40000", "5000"))),
        ("f4.b2nd", "<f4", "300,250", None),
    ];
    for (f, dtype, shape, cb) in nd {
        let out = s.path(f);
        let mut args = vec![
            "compress",
            p(&raw),
            p(&out),
            "--shape",
            shape,
            "--dtype",
            dtype,
        ];
        if let Some((c, b)) = cb {
            args.extend(["--chunks", c, "--blocks", b]);
        }
        b2rs_ok(&args);
    }
    b2rs_ok(&[
        "compress",
        p(&raw),
        p(&s.path("sp.b2nd")),
        "--sparse",
        "--shape",
        "300,125",
        "--dtype",
        "<f8",
        "--chunks",
        "128,50",
        "--blocks",
        "32,25",
        "--codec",
        "lz4",
    ]);
    let out = python(
        &s.dir,
        r#"
import blosc2, numpy as np
raw = open('in.raw', 'rb').read()
odd = open('odd.raw', 'rb').read()
assert blosc2.open('a.b2frame')[:] == raw
b = blosc2.open('b.b2frame')
assert b[:] == raw and b.cparams.codec == blosc2.Codec.LZ4HC and b.chunksize == 32768
def chunks(f):
    # `schunk[:]` stops at the last whole item (100_003 is not a multiple of the typesize)
    s = blosc2.open(f)
    return b''.join(blosc2.decompress2(s.get_chunk(i)) for i in range(s.nchunks))
assert chunks('c.b2frame') == odd
assert chunks('d.b2frame') == odd
assert blosc2.open('c.b2frame').typesize == 4
e = np.frombuffer(blosc2.open('e.b2frame')[:], dtype='<f8')
r = np.frombuffer(raw, dtype='<f8')
assert np.allclose(e, r, rtol=1e-6), 'trunc_prec'
for f, dt, shape in [('f8.b2nd', '<f8', (150, 250)), ('i4.b2nd', '<i4', (25, 30, 100)),
                     ('u1.b2nd', '|u1', (300000,)), ('i2.b2nd', '<i2', (150000,)),
                     ('f4.b2nd', '<f4', (300, 250)), ('sp.b2nd', '<f8', (300, 125))]:
    a = blosc2.open(f)
    assert a.shape == shape and a.dtype == np.dtype(dt), (f, a.shape, a.dtype)
    want = np.frombuffer(raw, dtype=dt).reshape(shape)
    assert np.array_equal(a[:], want), f
    # a partial slice goes through C-Blosc2's masked-out block path
    idx = tuple(slice(1, max(2, n // 3)) for n in shape)
    assert np.array_equal(a[idx], want[idx]), (f, 'slice')
print('ok')
"#,
    );
    assert_eq!(out.trim(), "ok");
}

#[test]
fn bloscpack_interop() {
    if !have_python("bloscpack_interop", "blosc, bloscpack") {
        return;
    }
    let s = Scratch::new("cli", "blp");
    let raw = s.path("in.raw");
    std::fs::write(&raw, sample(250_000, 3)).unwrap();
    b2rs_ok(&["compress", p(&raw), p(&s.path("ours.blp"))]);
    b2rs_ok(&[
        "compress",
        p(&raw),
        p(&s.path("ours2.blp")),
        "--codec",
        "zstd",
        "--filter",
        "bitshuffle",
        "--chunk-size",
        "50000",
        "--typesize",
        "4",
    ]);
    b2rs_ok(&[
        "compress",
        p(&raw),
        p(&s.path("ours3.bin")),
        "--format",
        "blp",
        "--codec",
        "lz4",
    ]);
    let script = format!(
        "{BLOSCPACK_SHIM}{}",
        r#"
import bloscpack, numpy as np
raw = open('in.raw', 'rb').read()
for f in ['ours.blp', 'ours2.blp', 'ours3.bin']:
    d, m = bloscpack.unpack_bytes_from_file(f)
    assert d == raw, f
bloscpack.pack_bytes_to_file(raw, 'py.blp', chunk_size=40000,
    blosc_args=bloscpack.BloscArgs(typesize=8, clevel=5, shuffle=True, cname='lz4'),
    bloscpack_args=bloscpack.BloscpackArgs(checksum='sha256'), metadata={'foo': 'bar'})
bloscpack.pack_bytes_to_file(raw, 'pynocheck.blp', chunk_size='64K',
    bloscpack_args=bloscpack.BloscpackArgs(checksum='None', offsets=False))
arr = np.arange(30000, dtype='<i4')
bloscpack.pack_ndarray_to_file(arr, 'pynd.blp', chunk_size='32K')
open('nd.raw', 'wb').write(arr.tobytes())
print('ok')
"#
    );
    assert_eq!(python(&s.dir, &script).trim(), "ok");
    for (f, want) in [
        ("py.blp", "in.raw"),
        ("pynocheck.blp", "in.raw"),
        ("pynd.blp", "nd.raw"),
    ] {
        let out = s.path(&format!("{f}.out"));
        b2rs_ok(&["decompress", p(&s.path(f)), p(&out)]);
        assert!(read(&out) == read(&s.path(want)), "{f}");
        b2rs_ok(&["verify", p(&s.path(f))]);
    }
    let j = info_json(
        &s.dir,
        &s.path("py.blp"),
        &[
            "j['format']",
            "j['checksum']",
            "j['nchunks']",
            "j['codec']",
            "json.loads(j['metadata']['data'])",
        ],
    );
    assert_eq!(
        j,
        [
            "\"bloscpack\"",
            "\"sha256\"",
            "7",
            "\"lz4\"",
            "{\"foo\": \"bar\"}"
        ]
    );
    // an array packed by bloscpack converts to b2nd with its shape and dtype
    let nd = s.path("pynd.b2nd");
    b2rs_ok(&["convert", p(&s.path("pynd.blp")), p(&nd)]);
    let j = info_json(&s.dir, &nd, &["j['b2nd']['shape']", "j['b2nd']['dtype']"]);
    assert_eq!(j, ["[30000]", "\"<i4\""]);
    let back = s.path("pynd.b2nd.raw");
    b2rs_ok(&["decompress", p(&nd), p(&back)]);
    assert!(read(&back) == read(&s.path("nd.raw")));
    // a damaged chunk is named, through its checksum
    let mut bytes = read(&s.path("py.blp"));
    let n = bytes.len();
    bytes[n - 100] ^= 0x10;
    std::fs::write(s.path("bad.blp"), &bytes).unwrap();
    let v = b2rs(&["verify", p(&s.path("bad.blp"))]);
    assert_eq!(v.code, Some(1), "{}", v.describe());
    assert!(
        v.stderr.contains("bad.blp") && v.stderr.contains("chunk 6"),
        "{}",
        v.stderr
    );
}

/// Every format to every other and back to raw bytes.
#[test]
fn convert_round_trips() {
    let s = Scratch::new("cli", "convert");
    let raw = s.path("in.raw");
    let data = sample(160_000, 4);
    std::fs::write(&raw, &data).unwrap();
    let outputs: [(&str, &[&str]); 5] = [
        ("a.b2frame", &[]),
        ("b.b2frame", &["--sparse"]),
        ("c.b2nd", &["--shape", "100,200", "--dtype", "<f8"]),
        ("d.blp", &[]),
        (
            "e.b2nd",
            &["--sparse", "--shape", "20000", "--dtype", "<f8"],
        ),
    ];
    for (src, _) in outputs {
        let first = s.path(&format!("first-{src}"));
        let extra = outputs.iter().find(|o| o.0 == src).unwrap().1;
        let mut args = vec!["compress", p(&raw), p(&first), "--chunk-size", "24K"];
        args.extend_from_slice(extra);
        b2rs_ok(&args);
        for (dst, dextra) in outputs {
            let out = s.path(&format!("{src}-to-{dst}"));
            let mut args = vec!["convert", p(&first), p(&out)];
            args.extend_from_slice(dextra);
            b2rs_ok(&args);
            b2rs_ok(&["verify", p(&out)]);
            let back = s.path(&format!("{src}-to-{dst}.raw"));
            b2rs_ok(&["decompress", p(&out), p(&back)]);
            assert!(read(&back) == data, "{src} → {dst}");
        }
    }
    // b2nd → b2nd keeps the shapes and dtype unless told otherwise
    let j = info_json(
        &s.dir,
        &s.path("c.b2nd-to-c.b2nd"),
        &["j['b2nd']['shape']", "j['b2nd']['dtype']"],
    );
    assert_eq!(j, ["[100, 200]", "\"<f8\""]);
    let out = s.path("reshaped.b2nd");
    b2rs_ok(&[
        "convert",
        p(&s.path("first-c.b2nd")),
        p(&out),
        "--shape",
        "400,50",
        "--chunks",
        "33,20",
        "--blocks",
        "8,8",
    ]);
    let j = info_json(
        &s.dir,
        &out,
        &[
            "j['b2nd']['shape']",
            "j['b2nd']['chunkshape']",
            "j['b2nd']['dtype']",
        ],
    );
    assert_eq!(j, ["[400, 50]", "[33, 20]", "\"<f8\""]);
}

/// Position of chunk `n` of a contiguous frame (b2nd or not): header_len + offset.
fn chunk_pos(file: &Path, n: usize) -> usize {
    let f = b2rs::frame::Frame::open_path(file, 0, std::sync::Arc::new(b2rs::frame::StdIo))
        .expect("open frame");
    (f.header_len() + f.offsets().unwrap()[n]) as usize
}

fn expect_damage(out: &Out, file: &Path, what: &str) {
    assert_eq!(out.code, Some(1), "{what}: {}", out.describe());
    let name = file.file_name().unwrap().to_str().unwrap();
    assert!(
        out.stderr.contains(name),
        "{what}: the message does not name {name}: {}",
        out.stderr
    );
    assert!(!out.stderr.contains("panicked"), "{what}: {}", out.stderr);
}

#[test]
fn damaged_files() {
    let s = Scratch::new("cli", "damaged");
    let raw = s.path("in.raw");
    std::fs::write(&raw, sample(200_000, 5)).unwrap();
    let files: Vec<PathBuf> = ["f.b2frame", "n.b2nd", "p.blp"]
        .iter()
        .map(|f| s.path(f))
        .collect();
    b2rs_ok(&["compress", p(&raw), p(&files[0]), "--chunk-size", "40000"]);
    b2rs_ok(&[
        "compress",
        p(&raw),
        p(&files[1]),
        "--shape",
        "250,100",
        "--dtype",
        "<f8",
        "--chunks",
        "50,100",
    ]);
    b2rs_ok(&["compress", p(&raw), p(&files[2]), "--chunk-size", "40000"]);
    for f in &files {
        let good = read(f);
        // truncated
        for cut in [0, 7, 60, good.len() / 2, good.len() - 1] {
            let t = s.path(&format!(
                "cut{cut}-{}",
                f.file_name().unwrap().to_str().unwrap()
            ));
            std::fs::write(&t, &good[..cut]).unwrap();
            let what = format!("{} cut at {cut}", f.display());
            expect_damage(&b2rs(&["verify", p(&t)]), &t, &what);
            let out = s.path("out.raw");
            expect_damage(&b2rs(&["decompress", p(&t), p(&out)]), &t, &what);
            assert!(!out.exists(), "{what}: partial output left behind");
            let i = b2rs(&["info", p(&t)]);
            assert!(matches!(i.code, Some(0 | 1)), "{what}: {}", i.describe());
        }
        // random bit flips: never a panic; verify and decompress agree
        let mut rng = Rng::new(9);
        for k in 0..40 {
            let mut b = good.clone();
            for _ in 0..=rng.below(3) {
                let i = rng.below(b.len() as u64) as usize;
                b[i] ^= 1 << rng.below(8);
            }
            let t = s.path(&format!(
                "flip-{}",
                f.file_name().unwrap().to_str().unwrap()
            ));
            std::fs::write(&t, &b).unwrap();
            let v = b2rs(&["verify", p(&t)]);
            let dcmp = b2rs(&["decompress", p(&t), p(&s.path("flip.raw"))]);
            let what = format!("{} flip {k}", f.display());
            assert!(matches!(v.code, Some(0 | 1)), "{what}: {}", v.describe());
            assert_eq!(
                v.code,
                dcmp.code,
                "{what}: verify {} / decompress {}",
                v.describe(),
                dcmp.describe()
            );
            if v.code == Some(1) {
                expect_damage(&v, &t, &what);
                expect_damage(&dcmp, &t, &what);
            }
            let i = b2rs(&["info", "--json", p(&t)]);
            assert!(matches!(i.code, Some(0 | 1)), "{what}: {}", i.describe());
        }
    }
    // a broken chunk header is named
    for (f, n) in [(&files[0], 2usize), (&files[1], 3)] {
        let mut b = read(f);
        let pos = chunk_pos(f, n);
        b[pos + 12..pos + 16].copy_from_slice(&0x7fff_0000i32.to_le_bytes()); // cbytes
        let t = s.path(&format!("hdr-{}", f.file_name().unwrap().to_str().unwrap()));
        std::fs::write(&t, &b).unwrap();
        let v = b2rs(&["verify", p(&t)]);
        expect_damage(&v, &t, "chunk header");
        assert!(v.stderr.contains(&format!("chunk {n}")), "{}", v.stderr);
        let d = b2rs(&["decompress", p(&t), p(&s.path("x.raw"))]);
        expect_damage(&d, &t, "chunk header");
        assert!(d.stderr.contains(&format!("chunk {n}")), "{}", d.stderr);
        // and garbage in its zstd stream
        let mut b = read(f);
        for x in &mut b[pos + 64..pos + 400] {
            *x = 0xa5;
        }
        std::fs::write(&t, &b).unwrap();
        let v = b2rs(&["verify", p(&t)]);
        expect_damage(&v, &t, "chunk data");
        assert!(v.stderr.contains(&format!("chunk {n}")), "{}", v.stderr);
    }
    // a missing chunk file of a sparse frame
    let dir = s.path("sp.b2frame");
    b2rs_ok(&[
        "compress",
        p(&raw),
        p(&dir),
        "--sparse",
        "--chunk-size",
        "40000",
    ]);
    std::fs::remove_file(dir.join("00000001.chunk")).unwrap();
    let v = b2rs(&["verify", p(&dir)]);
    expect_damage(&v, &dir, "missing chunk file");
    assert!(v.stderr.contains("chunk 1"), "{}", v.stderr);
    // not a Blosc file at all
    let t = s.path("text.txt");
    std::fs::write(&t, b"hello world, this is not a frame").unwrap();
    expect_damage(&b2rs(&["info", p(&t)]), &t, "text file");
    let missing = s.path("missing.b2frame");
    expect_damage(&b2rs(&["verify", p(&missing)]), &missing, "missing file");
}

#[test]
fn usage_errors() {
    let s = Scratch::new("cli", "usage");
    let raw = s.path("in.raw");
    std::fs::write(&raw, sample(8000, 6)).unwrap();
    let out = p(&s.path("o.b2nd")).to_string();
    for args in [
        vec!["frobnicate"],
        vec!["compress", p(&raw)],
        vec!["compress", p(&raw), &out, "--codec", "nope"],
        vec!["compress", p(&raw), &out, "--clevel", "12"],
        vec!["compress", p(&raw), &out, "--filter", "sparkle"],
        vec![
            "compress",
            p(&raw),
            &out,
            "--shape",
            "10,x",
            "--dtype",
            "<f8",
        ],
        vec!["compress", p(&raw), &out, "--bogus"],
    ] {
        let o = b2rs(&args);
        assert_eq!(o.code, Some(2), "{args:?}: {}", o.describe());
        assert!(o.stderr.starts_with("b2rs: "), "{args:?}: {}", o.stderr);
    }
    // a shape that does not match the data: runtime error naming the input
    let o = b2rs(&[
        "compress",
        p(&raw),
        &out,
        "--shape",
        "10,10",
        "--dtype",
        "<f8",
    ]);
    assert_eq!(o.code, Some(1), "{}", o.describe());
    assert!(
        o.stderr.contains("in.raw") && o.stderr.contains("8000"),
        "{}",
        o.stderr
    );
    assert!(!s.path("o.b2nd").exists());
    let h = b2rs_ok(&["--help"]);
    assert!(h.stdout.contains("b2rs compress"));
}

/// `info --json` on every kind of file is JSON (checked with Python's parser when available,
/// else by the shape of the text).
#[test]
fn info_json_is_json() {
    let s = Scratch::new("cli", "json");
    let raw = s.path("in.raw");
    std::fs::write(&raw, sample(50_000, 7)).unwrap();
    let zeros = s.path("zeros.raw");
    std::fs::write(&zeros, vec![0u8; 64_000]).unwrap();
    let mk: [(&Path, &str, &[&str]); 5] = [
        (&raw, "a.b2frame", &[]),
        (&raw, "b.b2frame", &["--sparse"]),
        (&raw, "c.b2nd", &["--shape", "25,250", "--dtype", "<f8"]),
        (&raw, "d.blp", &[]),
        (&zeros, "z.b2frame", &["--chunk-size", "16K"]),
    ];
    let have_py = run_cmd(
        Command::new(python_exe()).arg("-c").arg("import json"),
        Duration::from_secs(60),
    )
    .ok();
    for (src, f, extra) in mk {
        let out = s.path(f);
        let mut args = vec!["compress", p(src), p(&out)];
        args.extend_from_slice(extra);
        b2rs_ok(&args);
        let o = b2rs_ok(&["info", "--json", p(&out)]);
        let t = o.stdout.trim();
        assert!(t.starts_with('{') && t.ends_with('}'), "{f}: {t}");
        if have_py {
            let j = s.path("j.json");
            std::fs::write(&j, &o.stdout).unwrap();
            python(
                &s.dir,
                &format!(
                    "import json; j = json.load(open({:?})); assert j['file']",
                    p(&j)
                ),
            );
        }
    }
    let o = b2rs_ok(&["info", "--json", p(&s.path("z.b2frame"))]);
    assert!(o.stdout.contains("\"zeros\""), "{}", o.stdout);
}

/// `info` of a frame of 300 000 special chunks (its index read lazily) looks at the first
/// 100 000 chunks one by one and says so, instead of listing every chunk.
#[test]
fn info_of_a_frame_of_many_chunks() {
    use b2rs::chunk::header::Special;
    use b2rs::frame::{Frame, FrameParams, Location, StdIo};
    let s = Scratch::new("cli", "many-chunks");
    let path = s.path("zeros.b2frame");
    let loc = Location::File {
        path: path.clone(),
        offset: 0,
    };
    let mut f = Frame::create(loc, &FrameParams::default(), std::sync::Arc::new(StdIo)).unwrap();
    f.fill_special(300_000, Special::Zero, 8).unwrap(); // typesize 8: one item a chunk
    drop(f);
    let out = b2rs_ok(&["info", "--json", p(&path)]);
    let text = &out.stdout;
    assert!(
        text.contains("\"nchunks\": 300000"),
        "{}",
        &text[..text.len().min(2000)]
    );
    assert!(
        text.contains("\"chunks_inspected\": 100000"),
        "{}",
        &text[..text.len().min(2000)]
    );
    assert_eq!(text.matches("\"kind\": \"zeros\"").count(), 100_000);
}
