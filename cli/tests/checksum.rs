//! `b2rs compress/convert --checksum` and `b2rs verify` with chunk checksums: a byte flipped
//! inside a chunk that still decodes (which `verify` cannot see without them) is named.

#[path = "../../tests/common/mod.rs"]
mod common;

use b2rs::frame::{Frame, Location, StdIo};
use b2rs::schunk::{Schunk, CHECKSUMS_VLMETA};
use b2rs::DParams;
use common::{run_cmd, Out, Scratch};
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
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

fn open(path: &Path) -> Schunk {
    let loc = if path.is_dir() {
        Location::Dir(path.to_path_buf())
    } else {
        Location::File {
            path: path.to_path_buf(),
            offset: 0,
        }
    };
    Schunk::from_frame(
        Frame::open(loc, Arc::new(StdIo)).unwrap(),
        DParams::default(),
    )
}

/// Flip a byte of chunk `n`'s bytes in `file` such that the chunk still decodes to its size,
/// to other data.
fn flip_decodable(frame: &Path, file: &Path, n: i64) {
    let sc = open(frame);
    let chunk = sc.get_chunk(n).unwrap().into_owned();
    let nb = sc.chunk_nbytes(n).unwrap() as usize;
    let mut want = vec![0u8; nb];
    b2rs::chunk::decompress(&DParams::default(), &chunk, &mut want, None).unwrap();
    drop(sc);
    let mut out = vec![0u8; nb];
    let pos = (40..chunk.len())
        .rev()
        .find(|&i| {
            let mut c = chunk.clone();
            c[i] ^= 0x04;
            let r = b2rs::chunk::decompress(&DParams::default(), &c, &mut out, None);
            r == Ok(nb) && out != want
        })
        .expect("a flip that still decodes");
    let mut bytes = std::fs::read(file).unwrap();
    let at = bytes
        .windows(chunk.len())
        .position(|w| w == &chunk[..])
        .unwrap();
    bytes[at + pos] ^= 0x04;
    std::fs::write(file, &bytes).unwrap();
}

#[test]
fn verify_names_a_chunk_damaged_but_decodable() {
    let s = Scratch::new("cli-checksum", "flip");
    let raw = s.path("in.raw");
    let data: Vec<u8> = (0..600_000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8 & 0x3f)
        .collect();
    std::fs::write(&raw, &data).unwrap();
    let (plain, summed, sparse) = (
        s.path("plain.b2frame"),
        s.path("sum.b2frame"),
        s.path("sum.b2sframe"),
    );
    let args = ["-q", "--codec", "lz4", "--chunk-size", "100K"];
    b2rs_ok(&[&["compress"][..], &args, &[p(&raw), p(&plain)]].concat());
    b2rs_ok(
        &[
            &["compress"][..],
            &args,
            &["--checksum", p(&raw), p(&summed)],
        ]
        .concat(),
    );
    b2rs_ok(&[
        "convert",
        "-q",
        "--checksum",
        "--sparse",
        "--chunk-size",
        "100K",
        p(&plain),
        p(&sparse),
    ]);
    for f in [&summed, &sparse] {
        let v = b2rs_ok(&["verify", "-q", p(f)]);
        assert!(v.stdout.contains("6 chunk checksums match"), "{}", v.stdout);
        assert!(open(f).has_checksums());
        let v = b2rs_ok(&["verify", "-q", "--json", p(f)]);
        let r: serde_json::Value = serde_json::from_str(&v.stdout).unwrap();
        assert_eq!(r["ok"], true, "{}", v.stdout);
        assert_eq!(r["chunks"], 6, "{}", v.stdout);
        assert_eq!(r["bytes"], 600_000, "{}", v.stdout);
        assert_eq!(r["checksums matched"], 6, "{}", v.stdout);
        assert_eq!(r["problems"], serde_json::json!([]), "{}", v.stdout);
    }
    let v = b2rs_ok(&["verify", "-q", "--json", p(&plain)]);
    let r: serde_json::Value = serde_json::from_str(&v.stdout).unwrap();
    assert_eq!(
        r["checksums matched"],
        serde_json::Value::Null,
        "{}",
        v.stdout
    );
    assert!(!open(&plain).has_checksums());
    let info = b2rs_ok(&["info", p(&summed)]);
    assert!(info.stdout.contains(CHECKSUMS_VLMETA), "{}", info.stdout);

    // without checksums the damage goes unseen; with them chunk 2 is named
    flip_decodable(&plain, &plain, 2);
    b2rs_ok(&["verify", "-q", p(&plain)]);
    flip_decodable(&summed, &summed, 2);
    flip_decodable(&sparse, &sparse.join("00000003.chunk"), 3);
    for (f, n) in [(&summed, 2), (&sparse, 3)] {
        let v = b2rs(&["verify", "-q", p(f)]);
        assert_eq!(v.code, Some(1), "{}", v.describe());
        assert!(
            v.stderr
                .contains(&format!("chunk {n}: does not match its checksum")),
            "{}",
            v.stderr
        );
        assert_eq!(
            v.stderr.matches("does not match").count(),
            1,
            "{}",
            v.stderr
        );
        // --json: the same verdict and exit code, each problem with its chunk number
        let v = b2rs(&["verify", "-q", "--json", p(f)]);
        assert_eq!(v.code, Some(1), "{}", v.describe());
        let r: serde_json::Value = serde_json::from_str(&v.stdout).unwrap();
        assert_eq!(r["ok"], false, "{}", v.stdout);
        assert_eq!(r["problems"].as_array().unwrap().len(), 1, "{}", v.stdout);
        assert_eq!(r["problems"][0]["chunk"], n, "{}", v.stdout);
        assert!(r["problems"][0]["problem"]
            .as_str()
            .unwrap()
            .contains("does not match its checksum"));
    }
    // salvage: the damaged chunk zeroed and listed (exit 3), the new frame verifies; a cut
    // file gives back the chunks before the cut
    for (f, n) in [(&summed, 2), (&sparse, 3)] {
        let out = s.path(&format!("salvaged-{n}.b2frame"));
        let v = b2rs(&["salvage", "--json", p(f), p(&out)]);
        assert_eq!(v.code, Some(3), "{}", v.describe());
        let r: serde_json::Value = serde_json::from_str(&v.stdout).unwrap();
        assert_eq!(r["recovered"], 5, "{}", v.stdout);
        let want = if n == 2 { "0-1, 3-5" } else { "0-2, 4-5" };
        assert_eq!(r["recovered chunks"], want, "{}", v.stdout);
        assert_eq!(r["lost"][0]["chunk"], n, "{}", v.stdout);
        assert!(r["lost"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("checksum"));
        let v = b2rs_ok(&["verify", "-q", p(&out)]);
        assert!(v.stdout.contains("6 chunk checksums match"), "{}", v.stdout);
    }
    let good = s.path("good.b2frame");
    b2rs_ok(&[&["compress"][..], &args, &[p(&raw), p(&good)]].concat());
    let v = b2rs(&["salvage", p(&good), p(&s.path("same.b2frame"))]);
    assert_eq!(v.code, Some(0), "{}", v.describe());
    let bytes = std::fs::read(&good).unwrap();
    let cut = s.path("cut.b2frame");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let v = b2rs(&["salvage", "--json", p(&cut), p(&s.path("from-cut.b2frame"))]);
    assert_eq!(v.code, Some(3), "{}", v.describe());
    let r: serde_json::Value = serde_json::from_str(&v.stdout).unwrap();
    let got = r["recovered"].as_i64().unwrap();
    assert!(got >= 2, "{}", v.stdout);
    assert_eq!(r["chunks"], 6, "{}", v.stdout);
    assert_eq!(r["lost"].as_array().unwrap().len() as i64, 6 - got);
    // Bloscpack keeps its own checksums
    let v = b2rs(&["compress", "--checksum", p(&raw), p(&s.path("x.blp"))]);
    assert_eq!(v.code, Some(2), "{}", v.describe());
}
