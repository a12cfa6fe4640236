//! Writes seed inputs for the fuzz targets into `<out>/<target>/` (see `fuzz/seeds.sh`): chunks
//! of every codec and filter pipeline, special and VL-block chunks, contiguous and sparse frames
//! with metalayers and vlmetalayers, frame headers and trailers, b2nd metalayers and arrays,
//! Bloscpack files. Everything small, so that libFuzzer's mutations stay fast.

#[allow(dead_code)]
#[path = "../../src/container.rs"]
mod container;

use b2rs::b2nd::{Array, Fill, Meta};
use b2rs::bloscpack::{self, Checksum, PackParams};
use b2rs::chunk::header::Special;
use b2rs::chunk::{self, special::special_chunk};
use b2rs::frame::{Frame, Location, StdIo};
use b2rs::params::filter_id as f;
use b2rs::schunk::Schunk;
use b2rs::{CParams, DParams, SplitMode};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

struct Out {
    root: PathBuf,
}

impl Out {
    fn put(&self, target: &str, name: &str, bytes: &[u8]) {
        let dir = self.root.join(target);
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join(name), bytes).unwrap();
    }
}

/// Items of `ts` bytes counting up, with a little noise: compressible by every pipeline.
fn ramp(n: usize, ts: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(n);
    let mut i: u64 = 0;
    while v.len() < n {
        let b = (i * 3 + (i % 7)).to_le_bytes();
        v.extend((0..ts).map(|k| *b.get(k).unwrap_or(&0)));
        i += 1;
    }
    v.truncate(n);
    v
}

fn floats(n: usize) -> Vec<u8> {
    (0..n / 8)
        .flat_map(|i| ((i as f64) * 0.37).sin().to_le_bytes())
        .collect()
}

fn compress(cp: &CParams, src: &[u8]) -> Option<Vec<u8>> {
    let mut dst = vec![0u8; src.len() + 64];
    let n = chunk::compress(cp, src, &mut dst).ok()?;
    (n > 0).then(|| dst[..n].to_vec())
}

fn cparams(codec: u8, clevel: u8, ts: i32, filters: [u8; 6]) -> CParams {
    CParams {
        compcode: codec,
        clevel,
        typesize: ts,
        nthreads: 1,
        filters,
        ..Default::default()
    }
}

fn chunks(out: &Out) {
    let pipelines: [(&str, [u8; 6], [u8; 6]); 9] = [
        ("nofilter", [0; 6], [0; 6]),
        ("shuffle", [0, 0, 0, 0, 0, f::SHUFFLE], [0; 6]),
        ("bitshuffle", [0, 0, 0, 0, 0, f::BITSHUFFLE], [0; 6]),
        ("delta", [0, 0, 0, 0, f::DELTA, f::SHUFFLE], [0; 6]),
        (
            "truncprec",
            [0, 0, 0, 0, f::TRUNC_PREC, f::SHUFFLE],
            [0, 0, 0, 0, 20, 0],
        ),
        (
            "bytedelta",
            [0, 0, 0, 0, f::SHUFFLE, f::BYTEDELTA],
            [0, 0, 0, 0, 0, 4],
        ),
        (
            "bytedelta34",
            [0, 0, 0, 0, f::SHUFFLE, f::BYTEDELTA_BUGGY],
            [0, 0, 0, 0, 0, 4],
        ),
        (
            "inttrunc",
            [0, 0, 0, 0, f::INT_TRUNC, f::SHUFFLE],
            [0, 0, 0, 0, 3, 0],
        ),
        (
            "all",
            [f::DELTA, f::SHUFFLE, f::BITSHUFFLE, 0, 0, 0],
            [0; 6],
        ),
    ];
    let codecs = [
        (0u8, "blosclz"),
        (1, "lz4"),
        (2, "lz4hc"),
        (4, "zlib"),
        (5, "zstd"),
    ];
    for &(codec, cname) in &codecs {
        for (i, &(pname, filters, metas)) in pipelines.iter().enumerate() {
            let ts = [4, 8, 2, 4, 8, 4, 4, 4, 1][i];
            let src = if pname == "truncprec" {
                floats(2048)
            } else {
                ramp(2048, ts as usize)
            };
            let mut cp = cparams(codec, 5, ts, filters);
            cp.filters_meta = metas;
            // a few blocks per chunk
            cp.blocksize = 512;
            if let Some(c) = compress(&cp, &src) {
                out.put("chunk_decompress", &format!("{cname}-{pname}.cdata"), &c);
            }
        }
        // single block, split and not split, level 9 and 1
        for (tag, split, clevel) in [
            ("always", SplitMode::Always, 9),
            ("never", SplitMode::Never, 1),
        ] {
            let mut cp = cparams(codec, clevel, 4, [0, 0, 0, 0, 0, f::SHUFFLE]);
            cp.splitmode = split;
            if let Some(c) = compress(&cp, &ramp(1000, 4)) {
                out.put(
                    "chunk_decompress",
                    &format!("{cname}-split-{tag}.cdata"),
                    &c,
                );
            }
        }
        // Blosc1 header
        let mut cp = cparams(codec, 5, 4, [0, 0, 0, 0, 0, f::BITSHUFFLE]);
        cp.basic_header = true;
        if let Some(c) = compress(&cp, &ramp(1500, 4)) {
            out.put("chunk_decompress", &format!("{cname}-blosc1.cdata"), &c);
        }
        // dictionary
        if matches!(codec, 1 | 2 | 5) {
            let mut cp = cparams(codec, 5, 4, [0, 0, 0, 0, 0, f::SHUFFLE]);
            cp.use_dict = true;
            cp.blocksize = 1024;
            if let Some(c) = compress(&cp, &ramp(8192, 4)) {
                out.put("chunk_decompress", &format!("{cname}-dict.cdata"), &c);
            }
        }
        // VL-block chunk
        let cp = cparams(codec, 5, 1, [0, 0, 0, 0, 0, f::SHUFFLE]);
        let blocks: Vec<Vec<u8>> = (1..4).map(|k| ramp(300 * k, 1)).collect();
        let refs: Vec<&[u8]> = blocks.iter().map(Vec::as_slice).collect();
        let mut dst = vec![0u8; 4096];
        if let Ok(n) = chunk::vlcompress(&cp, &refs, &mut dst) {
            out.put(
                "chunk_decompress",
                &format!("{cname}-vlblocks.cdata"),
                &dst[..n],
            );
        }
    }
    // memcpyed (clevel 0) and incompressible
    let cp = cparams(0, 0, 4, [0; 6]);
    out.put(
        "chunk_decompress",
        "memcpyed.cdata",
        &compress(&cp, &ramp(700, 4)).unwrap(),
    );
    // special chunks
    let cp = cparams(0, 5, 4, [0, 0, 0, 0, 0, f::SHUFFLE]);
    for (name, sp, value) in [
        ("zeros", Special::Zero, None),
        ("nans", Special::Nan, None),
        ("uninit", Special::Uninit, None),
        ("value", Special::Value, Some(&[1u8, 2, 3, 4][..])),
    ] {
        let mut dst = vec![0u8; 64];
        if let Ok(n) = special_chunk(&cp, sp, 4000, value, &mut dst) {
            out.put(
                "chunk_decompress",
                &format!("special-{name}.cdata"),
                &dst[..n],
            );
        }
    }
}

/// A small super-chunk with metalayers, vlmetalayers and a mix of chunk kinds.
fn schunk(codec: u8, vl_special: bool) -> Schunk {
    let cp = cparams(codec, 5, 4, [0, 0, 0, 0, 0, f::SHUFFLE]);
    let mut sc = Schunk::new(cp.clone(), DParams::default());
    sc.meta_add("m1", b"\x93\x01\x02\x03").unwrap();
    sc.meta_add("metalayer2", &[0xc0]).unwrap();
    for k in 0..3 {
        sc.append_buffer(&ramp(1024, 4 + k)).unwrap();
    }
    if vl_special {
        let mut dst = vec![0u8; 64];
        let n = special_chunk(&cp, Special::Zero, 1024, None, &mut dst).unwrap();
        sc.append_chunk(dst[..n].to_vec()).unwrap();
        let n = special_chunk(&cp, Special::Value, 1024, Some(&[7, 7, 7, 7]), &mut dst).unwrap();
        sc.append_chunk(dst[..n].to_vec()).unwrap();
    }
    sc.vlmeta_add("vlmeta1", b"{\"a\": 1}", &cp).unwrap();
    sc.vlmeta_add("vlmeta2", &ramp(200, 1), &cp).unwrap();
    sc
}

fn frames(out: &Out, tmp: &Path) {
    let codecs = [(0u8, "blosclz"), (1, "lz4"), (5, "zstd")];
    for &(codec, name) in &codecs {
        for special in [false, true] {
            let sc = schunk(codec, special);
            let cframe = sc.to_cframe().unwrap();
            let tag = format!("{name}{}", if special { "-special" } else { "" });
            out.put("frame_decode", &format!("{tag}.b2frame"), &cframe);
            // header and trailer for the metalayer parsers
            let frame = Frame::from_bytes(cframe.clone()).unwrap();
            let hl = frame.header_len() as usize;
            out.put("metalayers", &format!("{tag}-header"), &cframe[..hl]);
            let tl = u32::from_be_bytes(
                cframe[cframe.len() - 9..cframe.len() - 5]
                    .try_into()
                    .unwrap(),
            ) as usize;
            if tl <= cframe.len() {
                out.put(
                    "metalayers",
                    &format!("{tag}-trailer"),
                    &cframe[cframe.len() - tl..],
                );
            }
            // the same as a sparse frame
            let dir = tmp.join(format!("sframe-{tag}"));
            let _ = fs::remove_dir_all(&dir);
            frame
                .copy_to(Location::Dir(dir.clone()), Arc::new(StdIo))
                .unwrap();
            out.put("sframe_decode", &format!("{tag}.sframe"), &pack_dir(&dir));
            let _ = fs::remove_dir_all(&dir);
        }
    }
    // an empty frame and one of special chunks only
    let cp = cparams(5, 5, 8, [0, 0, 0, 0, 0, f::SHUFFLE]);
    let sc = Schunk::new(cp.clone(), DParams::default());
    out.put("frame_decode", "empty.b2frame", &sc.to_cframe().unwrap());
    let mut sc = Schunk::new(cp, DParams::default());
    sc.fill_special(1000, 1, 800).unwrap();
    out.put("frame_decode", "zeros.b2frame", &sc.to_cframe().unwrap());
    // VL-block chunks in a frame
    let cp = cparams(1, 5, 1, [0; 6]);
    let mut sc = Schunk::new(cp.clone(), DParams::default());
    let blocks: Vec<Vec<u8>> = (1..4).map(|k| ramp(100 * k, 1)).collect();
    let refs: Vec<&[u8]> = blocks.iter().map(Vec::as_slice).collect();
    let mut dst = vec![0u8; 2048];
    let n = chunk::vlcompress(&cp, &refs, &mut dst).unwrap();
    sc.append_chunk(dst[..n].to_vec()).unwrap();
    sc.append_chunk(dst[..n].to_vec()).unwrap();
    if let Ok(c) = sc.to_cframe() {
        out.put("frame_decode", "vlblocks.b2frame", &c);
    }
}

/// A sparse frame directory as one input (see `container`).
fn pack_dir(dir: &Path) -> Vec<u8> {
    let index = fs::read(dir.join("chunks.b2frame")).unwrap();
    let mut chunks: Vec<(u32, Vec<u8>)> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            let n = u32::from_str_radix(name.strip_suffix(".chunk")?, 16).ok()?;
            Some((n, fs::read(e.path()).ok()?))
        })
        .collect();
    chunks.sort();
    let last = chunks.last().map_or(0, |c| c.0 as usize + 1);
    let mut files: Vec<Vec<u8>> = vec![Vec::new(); last + 1];
    files[0] = index;
    for (n, c) in chunks {
        files[n as usize + 1] = c;
    }
    let refs: Vec<&[u8]> = files.iter().map(Vec::as_slice).collect();
    container::encode(&refs)
}

fn b2nd(out: &Out) {
    let cases: [(&[i64], &[i32], &[i32], &str); 5] = [
        (&[10], &[4], &[2], "|u1"),
        (&[7, 9], &[4, 5], &[2, 3], "<i4"),
        (&[5, 6, 7], &[3, 3, 3], &[2, 2, 2], "<f8"),
        (&[3, 1, 4, 1, 5], &[2, 1, 2, 1, 3], &[1, 1, 2, 1, 2], "<u2"),
        (&[0, 4], &[2, 2], &[1, 2], "|b1"),
    ];
    for (k, (shape, cs, bs, dtype)) in cases.iter().enumerate() {
        let meta = Meta::new(shape, cs, bs).with_dtype(dtype);
        let smeta = meta.serialize().unwrap();
        out.put("b2nd_meta", &format!("meta-{k}"), &smeta);
        if let Ok(c) = meta.serialize_caterva() {
            out.put("b2nd_meta", &format!("caterva-{k}"), &c);
        }
        let itemsize: usize = match *dtype {
            "<i4" => 4,
            "<f8" => 8,
            "<u2" => 2,
            _ => 1,
        };
        let nitems: i64 = shape.iter().product();
        let buf = ramp(nitems as usize * itemsize, itemsize);
        let mut cp = cparams(5, 5, itemsize as i32, [0, 0, 0, 0, 0, f::SHUFFLE]);
        cp.typesize = itemsize as i32;
        let fills = [
            ("buffer", Fill::Buffer(&buf)),
            ("zero", Fill::Zero),
            ("uninit", Fill::Uninit),
        ];
        for (fname, fill) in fills {
            if let Ok(a) = Array::new(cp.clone(), DParams::default(), &meta, fill) {
                if let Ok(c) = a.to_cframe() {
                    out.put("b2nd_array", &format!("array-{k}-{fname}.b2frame"), &c);
                }
            }
        }
    }
}

fn bloscpack(out: &Out) {
    let data = ramp(5000, 4);
    let variants: [(&str, Checksum, bool, Option<&[u8]>, usize); 5] = [
        ("default", Checksum::Adler32, true, None, 1024),
        ("nooffsets", Checksum::Crc32, false, None, 2048),
        (
            "meta",
            Checksum::Md5,
            true,
            Some(br#"{"dtype": "float64", "shape": [625]}"#),
            1000,
        ),
        ("sha", Checksum::Sha256, true, None, 4096),
        ("nochecksum", Checksum::None, true, Some(b"{}"), 5000),
    ];
    for (name, checksum, offsets, meta, chunk_size) in variants {
        let params = PackParams {
            checksum,
            offsets,
            chunk_size,
            max_app_chunks: Some(2),
            ..Default::default()
        };
        if let Ok(p) = bloscpack::pack(&data, &params, meta) {
            out.put("bloscpack", &format!("{name}.blp"), &p);
        }
    }
}

fn main() {
    let root = PathBuf::from(std::env::args().nth(1).expect("usage: seedgen OUT_DIR"));
    let tmp = std::env::temp_dir().join(format!("b2rs-seedgen-{}", std::process::id()));
    fs::create_dir_all(&tmp).unwrap();
    let out = Out { root };
    chunks(&out);
    frames(&out, &tmp);
    b2nd(&out);
    bloscpack(&out);
    let _ = fs::remove_dir_all(&tmp);
}
