//! Frames (src/frame): the test data frames, write→read round trips in memory, files (also
//! embedded at an offset) and sparse directories, truncated and corrupted frames, and interop
//! with Python blosc2 (the reference) in both directions.

mod common;

use b2rs::chunk::header::Special;
use b2rs::frame::{Frame, FrameParams, Io, Location, MmapIo, MmapMode, StdIo};
use b2rs::{CParams, DParams, Error, SplitMode};
use common::{sha256_bytes, Rng, Scratch};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

fn testdata() -> PathBuf {
    common::shared_dir()
        .expect("shared/testdata not found")
        .join("testdata")
}

fn stdio() -> Arc<dyn Io> {
    Arc::new(StdIo)
}

fn decode(chunk: &[u8]) -> Vec<u8> {
    let (nbytes, _, _) = b2rs::chunk::Header::sizes(chunk).unwrap();
    let mut out = vec![0u8; nbytes as usize];
    let n = b2rs::chunk::decompress(&DParams::default(), chunk, &mut out, None).unwrap();
    assert_eq!(n, nbytes as usize);
    out
}

/// All chunks decoded and concatenated.
fn content(f: &Frame) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 0..f.nchunks() {
        out.extend_from_slice(&decode(&f.get_chunk(i).unwrap()));
    }
    out
}

fn compress(params: &CParams, data: &[u8]) -> Vec<u8> {
    let mut dst = vec![0u8; data.len() + 64];
    let n = b2rs::chunk::compress(params, data, &mut dst).unwrap();
    dst.truncate(n);
    dst
}

fn special(kind: Special, nbytes: usize, typesize: i32) -> Vec<u8> {
    let params = CParams {
        typesize,
        ..CParams::default()
    };
    let mut dst = vec![0u8; 64];
    let value = [7u8; 8];
    let n =
        b2rs::chunk::special::special_chunk(&params, kind, nbytes, Some(&value), &mut dst).unwrap();
    dst.truncate(n);
    dst
}

/// Open `bytes` in every way: from memory, from a file, embedded in a file at an offset, and
/// as a sparse copy; each must give the same chunks.
fn all_views(bytes: &[u8], scratch: &Scratch, name: &str) -> Vec<Frame> {
    let mem = Frame::from_bytes(bytes.to_vec()).unwrap();
    let file = scratch.path(&format!("{name}.b2frame"));
    std::fs::write(&file, bytes).unwrap();
    let f = Frame::open(
        Location::File {
            path: file.clone(),
            offset: 0,
        },
        stdio(),
    )
    .unwrap();
    let host = scratch.path(&format!("{name}.host"));
    std::fs::write(&host, b"some unrelated bytes before the frame").unwrap();
    let off = Frame::append_file(&host, bytes, &StdIo).unwrap();
    assert_eq!(off, 37);
    Frame::append_file(&host, b"and after it", &StdIo).unwrap();
    let emb = Frame::open_path(&host, off, stdio()).unwrap();
    let dir = mem
        .copy_to(
            Location::Dir(scratch.path(&format!("{name}.b2dir"))),
            stdio(),
        )
        .unwrap();
    let reopened = Frame::open_path(&scratch.path(&format!("{name}.b2dir")), 0, stdio()).unwrap();
    let mm = Frame::open(
        Location::File {
            path: file,
            offset: 0,
        },
        Arc::new(MmapIo::new(MmapMode::Read, 0)),
    )
    .unwrap();
    vec![mem, f, emb, dir, reopened, mm]
}

fn check_same(views: &[Frame]) {
    let first = &views[0];
    let c0 = content(first);
    for v in &views[1..] {
        assert_eq!(v.nchunks(), first.nchunks(), "{v:?}");
        assert_eq!(v.nbytes(), first.nbytes());
        assert_eq!(v.chunksize(), first.chunksize());
        assert_eq!(v.params(), first.params());
        assert_eq!(v.metalayers(), first.metalayers());
        assert_eq!(v.vlmetalayers(), first.vlmetalayers());
        assert_eq!(content(v), c0, "{v:?}");
    }
    // The cframe serialisation of each view reads back the same.
    for v in views {
        let back = Frame::from_bytes(v.to_bytes().unwrap()).unwrap();
        assert_eq!(content(&back), c0);
        assert_eq!(back.metalayers(), first.metalayers());
    }
}

#[test]
fn corpus_frames() {
    let scratch = Scratch::new("frame", "corpus");
    let codecs = [
        ("blosclz", 0u8),
        ("lz4", 1),
        ("lz4hc", 2),
        ("zlib", 4),
        ("zstd", 5),
    ];
    for (name, codec) in codecs {
        let path = testdata().join(format!("corpus/frame_simple-{name}.b2frame"));
        let bytes = std::fs::read(&path).unwrap();
        let views = all_views(&bytes, &scratch, name);
        let f = &views[0];
        assert_eq!(f.nchunks(), 10);
        assert_eq!(f.nbytes(), 2_000_000);
        assert_eq!(f.chunksize(), 200_000);
        assert_eq!(f.params().typesize, 4);
        assert_eq!(f.params().clevel, 5);
        assert_eq!(f.params().compcode, codec);
        assert_eq!(f.params().filters, [0, 0, 0, 0, 0, 1]);
        assert_eq!(f.header_len(), 97);
        assert!(f.metalayers().is_empty());
        assert_eq!(f.vlmetalayers().len(), 1);
        assert_eq!(f.vlmetalayers()[0].name, "vlmetalayer");
        assert_eq!(f.vlmetalayers()[0].content.len(), 42);
        assert_eq!(
            decode(&f.vlmetalayers()[0].content),
            (0u8..10).collect::<Vec<_>>()
        );
        let offsets = f.offsets().unwrap();
        if codec == 0 {
            assert_eq!(offsets[0], 0);
            assert_eq!(f.get_chunk(0).unwrap().len(), 52);
        } else {
            assert_eq!(offsets[0], 0x8100000000000000u64 as i64);
        }
        let data = content(f);
        assert_eq!(
            sha256_bytes(&scratch, name, &data),
            "1d2d58a111f57eeb9f8a75785f94fb3065e4c9e5baf300f8bce2dec6f4e77974"
        );
        check_same(&views);
    }
}

#[test]
fn compat_frames() {
    let scratch = Scratch::new("frame", "compat");
    let cases = [
        (
            "varchunks-lz4-3.0.0",
            0,
            false,
            5,
            4321,
            "3cd5f447ffd0ddc9d69fde77e03ac06246e49e17f12f15b336da554f254cd5ae",
        ),
        (
            "vlblocks-lz4-fixed-3.0.0",
            2000,
            true,
            5,
            10000,
            "49282948b4f2748a59d5673e99a78aee6b4cfed3aa56b280186b54934659e65c",
        ),
        (
            "vlblocks-lz4-variable-3.0.0",
            0,
            true,
            5,
            10000,
            "1418bc37f9672f9d6273ae95f548840748f2a0e89a49ea17d3c857dd16982ade",
        ),
    ];
    for (name, chunksize, vl, nchunks, nbytes, sha) in cases {
        let bytes = std::fs::read(testdata().join(format!("compat/{name}.b2frame"))).unwrap();
        let views = all_views(&bytes, &scratch, name);
        let f = &views[0];
        assert_eq!(f.chunksize(), chunksize, "{name}");
        assert_eq!(f.vl_blocks(), vl, "{name}");
        assert_eq!(f.nchunks(), nchunks, "{name}");
        assert_eq!(f.nbytes(), nbytes, "{name}");
        assert_eq!(f.params().compcode, 1);
        assert_eq!(f.params().clevel, 9);
        let data = content(f);
        assert_eq!(data.len() as i64, nbytes);
        assert_eq!(sha256_bytes(&scratch, name, &data), sha, "{name}");
        check_same(&views);
    }
}

#[test]
fn b2nd_frames() {
    let scratch = Scratch::new("frame", "b2nd");
    let cases = [
        (
            "example_day_month_temp",
            4,
            5472,
            "1ce160232af384637d93ec91c1354e781847f71358e1f228b3b7e566fa3e52a2",
        ),
        (
            "example_item_prices",
            30,
            480000,
            "647c48cc165e1462204bab3d88f84c74391fd4b0cc5cdf14b6cae5e3f37cdbe5",
        ),
    ];
    for (name, nchunks, len, sha) in cases {
        let bytes = std::fs::read(testdata().join(format!("b2nd/{name}.b2nd"))).unwrap();
        let views = all_views(&bytes, &scratch, name);
        let f = &views[0];
        assert_eq!(f.nchunks(), nchunks);
        assert_eq!(f.params().typesize, 4);
        assert_eq!(f.metalayers().len(), 1);
        assert_eq!(f.metalayers()[0].name, "b2nd");
        let data = content(f);
        assert_eq!(data.len(), len);
        assert_eq!(sha256_bytes(&scratch, name, &data), sha);
        check_same(&views);
    }
}

fn params(typesize: i32) -> FrameParams {
    FrameParams {
        typesize,
        ..FrameParams::default()
    }
}

/// The chunks a test appends: (compressed chunk, its decoded content).
fn sample_chunks(typesize: i32, chunk_nbytes: usize, rng: &mut Rng) -> Vec<(Vec<u8>, Vec<u8>)> {
    let cp = CParams {
        typesize,
        ..CParams::default()
    };
    let mut out = Vec::new();
    let mut counting = vec![0u8; chunk_nbytes];
    for (i, b) in counting.iter_mut().enumerate() {
        *b = (i / 7) as u8;
    }
    out.push((compress(&cp, &counting), counting));
    let mut random = vec![0u8; chunk_nbytes];
    rng.fill(&mut random);
    out.push((compress(&cp, &random), random));
    out.push((
        special(Special::Zero, chunk_nbytes, typesize),
        vec![0; chunk_nbytes],
    ));
    let nan = special(Special::Nan, chunk_nbytes, typesize);
    let nan_data = decode(&nan);
    out.push((nan, nan_data));
    let uninit = special(Special::Uninit, chunk_nbytes, typesize);
    let uninit_len = decode(&uninit).len();
    out.push((uninit, vec![0; uninit_len])); // content undefined; compared by length below
    out.push((
        special(Special::Value, chunk_nbytes, typesize),
        vec![7; chunk_nbytes],
    ));
    out
}

/// Compare decoded chunks, ignoring the bytes of uninit chunks.
fn assert_chunks(f: &Frame, expected: &[(Vec<u8>, Vec<u8>)], uninit: &[bool]) {
    assert_eq!(f.nchunks() as usize, expected.len(), "{f:?}");
    let mut nbytes = 0;
    for (i, (_, data)) in expected.iter().enumerate() {
        let got = decode(&f.get_chunk(i as i64).unwrap());
        nbytes += got.len() as i64;
        if uninit[i] {
            assert_eq!(got.len(), data.len(), "chunk {i}");
        } else {
            assert_eq!(&got, data, "chunk {i} of {f:?}");
        }
    }
    assert_eq!(f.nbytes(), nbytes);
}

fn locations(scratch: &Scratch, name: &str) -> Vec<Location> {
    vec![
        Location::Memory,
        Location::File {
            path: scratch.path(&format!("{name}.b2frame")),
            offset: 0,
        },
        Location::File {
            path: scratch.path(&format!("{name}.embedded")),
            offset: 1000,
        },
        Location::Dir(scratch.path(&format!("{name}.b2dir"))),
    ]
}

/// Reopen a frame from its location (a memory frame from its bytes).
fn reopen(f: &Frame) -> Frame {
    match f.location() {
        Location::Memory => Frame::from_bytes(f.to_bytes().unwrap()).unwrap(),
        loc => Frame::open(loc, stdio()).unwrap(),
    }
}

#[test]
fn roundtrip_all_locations() {
    let scratch = Scratch::new("frame", "roundtrip");
    let mut rng = Rng::new(42);
    for (k, loc) in locations(&scratch, "rt").into_iter().enumerate() {
        if let Location::File { path, offset } = &loc {
            if *offset > 0 {
                std::fs::write(path, vec![0xAB; *offset as usize]).unwrap();
            }
        }
        let mut f = Frame::create(loc.clone(), &params(4), stdio()).unwrap();
        assert_eq!(f.nchunks(), 0);
        assert_eq!(f.chunksize(), -1);
        assert_eq!(f.add_metalayer("meta1", &[0x93, 9, 8, 7]).unwrap(), 0);
        assert_eq!(f.add_metalayer("m2", b"xyz").unwrap(), 1);
        assert_eq!(
            f.add_metalayer("m2", b"again").unwrap_err(),
            Error::InvalidParam
        );
        let chunks = sample_chunks(4, 4000, &mut rng);
        let mut uninit = Vec::new();
        for (i, (c, _)) in chunks.iter().enumerate() {
            assert_eq!(f.append_chunk(c).unwrap(), i as i64 + 1);
            uninit.push(i == 4);
            // valid after every call
            assert_chunks(&reopen(&f), &chunks[..=i], &uninit);
        }
        assert_eq!(f.chunksize(), 4000);
        // zeros, NaN and uninit chunks are not stored
        let offs = f.offsets().unwrap();
        assert_eq!(offs[2], 0x8100000000000000u64 as i64);
        assert_eq!(offs[3], 0x8200000000000000u64 as i64);
        assert_eq!(offs[4], 0x8400000000000000u64 as i64);
        assert!(offs[5] >= 0);
        // metalayers are fixed once chunks exist
        assert_eq!(
            f.add_metalayer("late", b"x").unwrap_err(),
            Error::InvalidParam
        );
        assert_eq!(
            f.update_metalayer(1, b"abcd").unwrap_err(),
            Error::InvalidParam
        );
        f.update_metalayer(1, b"XY").unwrap();
        assert_eq!(f.metalayers()[1].content, b"XYz");
        // vlmetalayers can change at any time
        let vl = compress(&CParams::default(), b"some vl content....");
        assert_eq!(f.set_vlmetalayer("vl1", &vl).unwrap(), 0);
        let vl2 = compress(&CParams::default(), &[5u8; 1000]);
        assert_eq!(f.set_vlmetalayer("vl2", &vl2).unwrap(), 1);
        assert_eq!(f.set_vlmetalayer("vl1", &vl2).unwrap(), 0);
        let g = reopen(&f);
        assert_eq!(g.metalayers().len(), 2);
        assert_eq!(g.metalayers()[0].content, [0x93, 9, 8, 7]);
        assert_eq!(g.vlmetalayers().len(), 2);
        assert_eq!(decode(&g.vlmetalayers()[0].content), vec![5u8; 1000]);
        assert_chunks(&g, &chunks, &uninit);
        assert_eq!(f.delete_vlmetalayer("vl2").unwrap(), 1);
        assert_eq!(f.delete_vlmetalayer("vl2").unwrap_err(), Error::NotFound);
        assert_eq!(reopen(&f).vlmetalayers().len(), 1);

        // insert, update, delete, reorder
        let mut expected = chunks.clone();
        let mut uninit = uninit.clone();
        f.insert_chunk(1, &chunks[1].0).unwrap();
        expected.insert(1, chunks[1].clone());
        uninit.insert(1, false);
        f.update_chunk(3, &chunks[0].0).unwrap(); // zeros slot becomes a stored chunk
        expected[3] = chunks[0].clone();
        f.update_chunk(0, &chunks[2].0).unwrap(); // stored chunk becomes zeros
        expected[0] = chunks[2].clone();
        assert_chunks(&reopen(&f), &expected, &uninit);
        f.update_chunk(1, &chunks[0].0).unwrap(); // shrinks in place
        expected[1] = chunks[0].clone();
        assert_chunks(&reopen(&f), &expected, &uninit);
        f.update_chunk(1, &chunks[1].0).unwrap(); // grows in place
        expected[1] = chunks[1].clone();
        assert_chunks(&reopen(&f), &expected, &uninit);
        f.delete_chunk(2).unwrap();
        expected.remove(2);
        uninit.remove(2);
        assert_chunks(&reopen(&f), &expected, &uninit);
        let n = f.nchunks();
        let order: Vec<i64> = (0..n).rev().collect();
        f.reorder_offsets(&order).unwrap();
        expected.reverse();
        uninit.reverse();
        assert_chunks(&reopen(&f), &expected, &uninit);
        assert_eq!(f.reorder_offsets(&[0, 0]).unwrap_err(), Error::InvalidParam);
        if !f.is_sparse() {
            // the chunks section holds the stored chunks (and, as in C-Blosc2, the bytes of
            // deleted chunks)
            let stored: i64 = (0..f.nchunks())
                .filter(|&i| f.offsets().unwrap()[i as usize] >= 0)
                .map(|i| f.get_chunk(i).unwrap().len() as i64)
                .sum();
            assert!(f.cbytes() >= stored, "location {k}");
        }
        // a short last chunk, then a variable-size chunk
        let cp = CParams {
            typesize: 4,
            ..CParams::default()
        };
        let short: Vec<u8> = (0..1000u32)
            .flat_map(|v| v.to_le_bytes())
            .take(1000)
            .collect();
        f.append_chunk(&compress(&cp, &short)).unwrap();
        expected.push((compress(&cp, &short), short.clone()));
        uninit.push(false);
        assert_eq!(f.chunksize(), 4000);
        assert_chunks(&reopen(&f), &expected, &uninit);
        let zeros_short = special(Special::Zero, 400, 4);
        f.append_chunk(&zeros_short).unwrap();
        expected.push((zeros_short.clone(), vec![0; 400]));
        uninit.push(false);
        assert_eq!(f.chunksize(), 0, "sizes vary now");
        let g = reopen(&f);
        assert_eq!(g.chunksize(), 0);
        assert_chunks(&g, &expected, &uninit);
        // the former special offsets were turned into stored chunks
        assert!(g.offsets().unwrap().iter().all(|&o| o >= 0));
        // delete everything
        while f.nchunks() > 0 {
            f.delete_chunk(0).unwrap();
        }
        let g = reopen(&f);
        assert_eq!(g.nchunks(), 0);
        assert_eq!(g.nbytes(), 0);
        assert_eq!(g.cbytes(), 0);
        assert_eq!(g.metalayers().len(), 2);
        if let Location::File { path, offset } = &loc {
            let len = std::fs::metadata(path).unwrap().len();
            assert_eq!(len, offset + f.len() as u64);
            if *offset > 0 {
                let bytes = std::fs::read(path).unwrap();
                assert!(bytes[..*offset as usize].iter().all(|&b| b == 0xAB));
            }
        }
        if let Location::Dir(d) = &loc {
            let files: Vec<_> = std::fs::read_dir(d).unwrap().flatten().collect();
            assert_eq!(files.len(), 1, "only the index is left");
        }
    }
}

#[test]
fn sframe_file_numbers() {
    // FRAME.md §9's example: 3 data chunks, zeros, NaN, uninit, a run-of-value chunk and a
    // short last chunk → files 0..=4 and offsets [0, 1, 2, 0x81.., 0x82.., 0x84.., 3, 4].
    let scratch = Scratch::new("frame", "sfnum");
    let dir = scratch.path("s.b2frame");
    let mut f = Frame::create(Location::Dir(dir.clone()), &params(4), stdio()).unwrap();
    let cp = CParams {
        typesize: 4,
        ..CParams::default()
    };
    let data: Vec<u8> = (0..4000u32).map(|v| (v % 251) as u8).collect();
    for _ in 0..3 {
        f.append_chunk(&compress(&cp, &data)).unwrap();
    }
    f.append_chunk(&special(Special::Zero, 4000, 4)).unwrap();
    f.append_chunk(&special(Special::Nan, 4000, 4)).unwrap();
    f.append_chunk(&special(Special::Uninit, 4000, 4)).unwrap();
    f.append_chunk(&special(Special::Value, 4000, 4)).unwrap();
    f.append_chunk(&compress(&cp, &data[..1000])).unwrap();
    assert_eq!(
        f.offsets().unwrap(),
        vec![
            0,
            1,
            2,
            0x8100000000000000u64 as i64,
            0x8200000000000000u64 as i64,
            0x8400000000000000u64 as i64,
            3,
            4
        ]
    );
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "00000000.chunk",
            "00000001.chunk",
            "00000002.chunk",
            "00000003.chunk",
            "00000004.chunk",
            "chunks.b2frame"
        ]
    );
    // numbers are "largest in use + 1", whatever the logical order
    f.delete_chunk(1).unwrap(); // file 1
    f.insert_chunk(0, &compress(&cp, &data)).unwrap();
    // inserting after a short last chunk makes sizes variable (as in C-Blosc2), so the zeros,
    // NaN and uninit chunks are written as files 5, 6, 7 first
    assert_eq!(f.chunksize(), 0);
    assert_eq!(f.offsets().unwrap(), vec![8, 0, 2, 5, 6, 7, 3, 4]);
    f.delete_chunk(2).unwrap(); // file 2
    assert!(!dir.join("00000002.chunk").exists());
    assert!(!dir.join("00000001.chunk").exists());
    f.append_chunk(&special(Special::Zero, 0, 4)).unwrap_err();
    let g = Frame::open(Location::Dir(dir.clone()), stdio()).unwrap();
    assert_eq!(g.offsets().unwrap(), f.offsets().unwrap());
    // the index file is a frame of type 1 whose cbytes is the chunk files' total size
    let index = std::fs::read(dir.join("chunks.b2frame")).unwrap();
    assert_eq!(index[26], 1);
    let total: u64 = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".chunk"))
        .map(|e| e.metadata().unwrap().len())
        .sum();
    assert_eq!(g.cbytes() as u64, total);
    assert_eq!(content(&g).len() as i64, g.nbytes());
}

#[test]
fn vl_block_frames() {
    let scratch = Scratch::new("frame", "vl");
    for loc in locations(&scratch, "vl") {
        let mut f = Frame::create(loc, &params(1), stdio()).unwrap();
        let cp = CParams {
            typesize: 1,
            ..CParams::default()
        };
        let mut expected = Vec::new();
        for k in 1..4usize {
            let blocks: Vec<Vec<u8>> = (0..k).map(|j| vec![(k * 10 + j) as u8; 300 + j]).collect();
            let refs: Vec<&[u8]> = blocks.iter().map(|b| b.as_slice()).collect();
            let mut dst = vec![0u8; 4096];
            let n = b2rs::chunk::vlcompress(&cp, &refs, &mut dst).unwrap();
            dst.truncate(n);
            f.append_chunk(&dst).unwrap();
            expected.push((dst, blocks.concat()));
        }
        assert!(f.vl_blocks());
        assert_eq!(f.chunksize(), 0);
        // regular chunks cannot join
        let regular = compress(&cp, &[1u8; 1000]);
        assert_eq!(f.append_chunk(&regular).unwrap_err(), Error::ChunkAppend);
        let g = reopen(&f);
        assert!(g.vl_blocks());
        let flags = g.to_bytes().unwrap()[25];
        assert_eq!(flags, 0xD3);
        assert_chunks(&g, &expected, &[false; 3]);
    }
}

#[test]
fn fill_special_and_from_chunks() {
    let scratch = Scratch::new("frame", "fill");
    for loc in locations(&scratch, "fill") {
        let mut f = Frame::create(loc, &params(8), stdio()).unwrap();
        f.add_metalayer("b2nd", b"shape").unwrap();
        f.fill_special(1001, Special::Nan, 800).unwrap();
        assert_eq!(f.nchunks(), 11);
        assert_eq!(f.nbytes(), 8008);
        assert_eq!(f.cbytes(), 0);
        let g = reopen(&f);
        assert_eq!(g.nchunks(), 11);
        let data = content(&g);
        assert_eq!(data.len(), 8008);
        assert!(data
            .chunks(8)
            .all(|c| f64::from_le_bytes(c.try_into().unwrap()).is_nan()));
        assert_eq!(
            f.fill_special(10, Special::Zero, 800).unwrap_err(),
            Error::FrameSpecial
        );
        // then update one chunk with real data
        let cp = CParams::default();
        let real: Vec<u8> = (0..800u32).map(|v| v as u8).collect();
        f.update_chunk(3, &compress(&cp, &real)).unwrap();
        let g = reopen(&f);
        assert_eq!(decode(&g.get_chunk(3).unwrap()), real);
        assert_eq!(g.nbytes(), 8008);
    }
    // C-Blosc2's serialisation of an in-memory super-chunk (blosc2_schunk_to_buffer of a
    // sparse in-memory super-chunk, checked against libblosc2 3.3.5): with a fixed chunk size a
    // zeros chunk becomes the special offset 0x81 << 56 and is not stored.
    let cp = CParams::default();
    let a = compress(&cp, &[1u8; 800]);
    let z = special(Special::Zero, 800, 8);
    let f = Frame::from_chunks(&params(8), &[&a, &z, &a], &[], &[]).unwrap();
    assert_eq!(f.chunksize(), 800);
    assert_eq!(
        f.offsets().unwrap(),
        vec![0, (0x81u64 << 56) as i64, a.len() as i64],
        "specials become special offsets"
    );
    assert_eq!(f.cbytes(), 2 * a.len() as i64);
    let g = Frame::from_bytes(f.to_bytes().unwrap()).unwrap();
    assert_eq!(content(&g).len(), 2400);
}

/// A small frame with a metalayer, a vlmetalayer, a special and two stored chunks.
fn small_frame() -> Vec<u8> {
    let mut f = Frame::create(Location::Memory, &params(4), stdio()).unwrap();
    f.add_metalayer("meta", b"abc").unwrap();
    let cp = CParams {
        typesize: 4,
        ..CParams::default()
    };
    let data: Vec<u8> = (0..400u32).flat_map(|v| v.to_le_bytes()).collect();
    f.append_chunk(&compress(&cp, &data)).unwrap();
    f.append_chunk(&special(Special::Zero, 1600, 4)).unwrap();
    f.append_chunk(&compress(&cp, &data[..800])).unwrap();
    f.set_vlmetalayer("vl", &compress(&cp, b"0123456789"))
        .unwrap();
    f.into_bytes().unwrap()
}

fn read_all(f: &Frame) {
    for i in 0..f.nchunks() {
        if let Ok(c) = f.get_chunk(i) {
            let mut out = vec![0u8; 1 << 16];
            let _ = b2rs::chunk::decompress(&DParams::default(), &c, &mut out, None);
        }
    }
}

#[test]
fn truncated_frames_fail_cleanly() {
    let bytes = small_frame();
    let scratch = Scratch::new("frame", "trunc");
    let path = scratch.path("t.b2frame");
    for len in 0..bytes.len() {
        let cut = bytes[..len].to_vec();
        assert!(Frame::from_bytes(cut.clone()).is_err(), "prefix {len}");
        std::fs::write(&path, &cut).unwrap();
        assert!(
            Frame::open_path(&path, 0, stdio()).is_err(),
            "file prefix {len}"
        );
    }
    // a frame whose file was cut, but whose header still claims more bytes
    std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
    assert_eq!(
        Frame::open_path(&path, 0, stdio()).unwrap_err(),
        Error::ReadBuffer
    );
    // an offset past the end
    std::fs::write(&path, &bytes).unwrap();
    assert!(Frame::open_path(&path, bytes.len() as u64 + 5, stdio()).is_err());
}

#[test]
fn corrupted_frames_never_panic() {
    let bytes = small_frame();
    let f = Frame::from_bytes(bytes.clone()).unwrap();
    let hl = f.header_len() as usize;
    let mut rng = Rng::new(7);
    // every byte of the header and of the trailer, each set to a few values
    let trailer_start = bytes.len() - 35 - 8 - 42;
    let positions: Vec<usize> = (0..hl).chain(trailer_start.min(hl)..bytes.len()).collect();
    for &pos in &positions {
        for v in [0u8, 0xFF, 0x7F, 0x80, bytes[pos] ^ 1, rng.next_u64() as u8] {
            let mut b = bytes.clone();
            b[pos] = v;
            if let Ok(f) = Frame::from_bytes(b) {
                read_all(&f);
                let _ = f.to_bytes();
            }
        }
    }
    // random multi-byte corruption anywhere
    for _ in 0..3000 {
        let mut b = bytes.clone();
        for _ in 0..1 + rng.below(4) {
            let pos = rng.below(b.len() as u64) as usize;
            b[pos] = rng.next_u64() as u8;
        }
        if let Ok(f) = Frame::from_bytes(b) {
            read_all(&f);
        }
    }
}

#[test]
fn specific_validation_errors() {
    let bytes = small_frame();
    let set = |pos: usize, val: &[u8]| {
        let mut b = bytes.clone();
        b[pos..pos + val.len()].copy_from_slice(val);
        Frame::from_bytes(b).map(|_| ())
    };
    // the magic is not read (as C-Blosc2): a damaged one does not cost the frame
    assert!(set(0, &[0]).is_ok() && set(2, b"x2frame").is_ok());
    assert_eq!(set(25, &[0x14]).unwrap_err(), Error::VersionSupport);
    assert_eq!(set(26, &[1]).unwrap_err(), Error::FrameType);
    assert_eq!(set(11, &[0, 0, 0, 10]).unwrap_err(), Error::InvalidHeader); // header_len < 87
    assert_eq!(set(11, &[0x7F, 0, 0, 0]).unwrap_err(), Error::InvalidHeader); // > frame_len
    assert_eq!(set(48, &[0, 0, 0, 0]).unwrap_err(), Error::InvalidHeader); // typesize
    assert_eq!(
        set(16, &[0, 0, 0, 0, 0, 0, 0, 5]).unwrap_err(),
        Error::InvalidHeader
    );
    assert_eq!(set(39, &[0x7F; 8]).unwrap_err(), Error::InvalidHeader); // cbytes
    assert_eq!(
        set(58, &[0xFF, 0xFF, 0xFF, 0xF0]).unwrap_err(),
        Error::InvalidHeader
    );
    let n = bytes.len();
    // trailer_len past the end, and below the minimum
    assert_eq!(
        set(n - 22, &[0, 0, 0x10, 0]).unwrap_err(),
        Error::InvalidHeader
    );
    assert_eq!(
        set(n - 22, &[0, 0, 0, 5]).unwrap_err(),
        Error::InvalidHeader
    );
    assert_eq!(set(n - 23, &[0]).unwrap_err(), Error::InvalidHeader);
    // 17 metalayers claimed
    assert_eq!(set(92, &[0, 17]).unwrap_err(), Error::Data);
    // metalayer content length past the header
    let meta_at = 100; // 87: 93 CD idx DE n, 94: A4 "meta" D2, then the offset
    let off = i32::from_be_bytes(bytes[meta_at..meta_at + 4].try_into().unwrap()) as usize;
    assert_eq!(set(off + 1, &[0, 0, 1, 0]).unwrap_err(), Error::ReadBuffer);
    // frames longer than the buffer / buffers longer than the frame
    let mut longer = bytes.clone();
    longer.push(0);
    assert_eq!(Frame::from_bytes(longer).unwrap_err(), Error::InvalidHeader);
}

#[test]
fn writer_limits() {
    let mut f = Frame::create(Location::Memory, &params(4), stdio()).unwrap();
    for i in 0..16 {
        f.add_metalayer(&format!("m{i}"), &[i as u8]).unwrap();
    }
    assert_eq!(
        f.add_metalayer("m16", b"x").unwrap_err(),
        Error::InvalidParam
    );
    let long = "n".repeat(32);
    let mut g = Frame::create(Location::Memory, &params(4), stdio()).unwrap();
    assert_eq!(
        g.add_metalayer(&long, b"x").unwrap_err(),
        Error::InvalidParam
    );
    g.add_metalayer(&long[..31], b"x").unwrap();
    let vl = compress(&CParams::default(), b"v");
    for i in 0..16 {
        g.set_vlmetalayer(&format!("v{i}"), &vl).unwrap();
    }
    assert_eq!(
        g.set_vlmetalayer("v16", &vl).unwrap_err(),
        Error::InvalidParam
    );
    g.set_vlmetalayer("v3", &vl).unwrap(); // replacing is fine
    assert_eq!(
        g.set_vlmetalayer(&long, &vl).unwrap_err(),
        Error::InvalidParam
    );
    let g = Frame::from_bytes(g.to_bytes().unwrap()).unwrap();
    assert_eq!(g.vlmetalayers().len(), 16);
    assert_eq!(g.metalayers()[0].name.len(), 31);
}

#[test]
fn big_offsets_are_64_bit() {
    // An offset beyond 4 GiB round-trips through the offsets chunk and the header cbytes.
    let offs = vec![0i64, 5_000_000_000, 0x8100000000000000u64 as i64];
    let c = b2rs::frame::index::encode(&offs).unwrap();
    assert_eq!(b2rs::frame::index::decode(&c, 3).unwrap(), offs);
    let h = b2rs::frame::header::FixedHeader {
        header_len: 0,
        frame_len: 6_000_000_000,
        frame_type: 0,
        nbytes: 9_000_000_000,
        cbytes: 5_500_000_000,
        chunksize: 1 << 30,
        vl_blocks: false,
        has_vlmeta: false,
        params: params(4),
    };
    let b = h.encode(&[]).unwrap();
    let back = b2rs::frame::header::FixedHeader::parse(&b, false).unwrap();
    assert_eq!(back.cbytes, 5_500_000_000);
    assert_eq!(back.nbytes, 9_000_000_000);
    assert_eq!(back.frame_len, 6_000_000_000);
}

#[test]
fn mmap_backend_writes_frames() {
    let scratch = Scratch::new("frame", "mmap");
    let path = scratch.path("m.b2frame");
    let io: Arc<dyn Io> = Arc::new(MmapIo::new(MmapMode::Create, 1 << 16));
    let cp = CParams {
        typesize: 4,
        ..CParams::default()
    };
    let data: Vec<u8> = (0..10000u32).flat_map(|v| v.to_le_bytes()).collect();
    {
        let mut f = Frame::create(
            Location::File {
                path: path.clone(),
                offset: 0,
            },
            &params(4),
            io.clone(),
        )
        .unwrap();
        for _ in 0..5 {
            f.append_chunk(&compress(&cp, &data)).unwrap();
        }
        drop(f);
    }
    drop(io);
    let f = Frame::open_path(&path, 0, stdio()).unwrap();
    assert_eq!(content(&f), data.repeat(5));
    assert_eq!(std::fs::metadata(&path).unwrap().len() as i64, f.len());
}

// ---------------------------------------------------------------------------------------------
// Interop with Python blosc2
// ---------------------------------------------------------------------------------------------

fn python_blosc2() -> bool {
    common::python_imports("blosc2, numpy")
}

fn run_python(script: &str, args: &[&Path]) {
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "python failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

const PY_COMMON: &str = r#"
import sys, os, json, shutil
import numpy as np
import blosc2

CODECS = [blosc2.Codec.BLOSCLZ, blosc2.Codec.LZ4, blosc2.Codec.LZ4HC, blosc2.Codec.ZLIB,
          blosc2.Codec.ZSTD]

def chunk_data(k):
    # chunk k of 1000 int32: some compressible, some random
    if k % 3 == 1:
        return np.random.default_rng(k).integers(0, 2**31, 1000, dtype=np.int32)
    return (np.arange(1000, dtype=np.int32) * (k + 1)) // 3

def cases():
    for i, codec in enumerate(CODECS):
        for contiguous in (True, False):
            yield f"c{i}_{'cf' if contiguous else 'sf'}", codec, contiguous
"#;

const PY_WRITE: &str = r#"
out = sys.argv[1]
manifest = {}
for name, codec, contiguous in cases():
    path = os.path.join(out, name + (".b2frame" if contiguous else ".b2dir"))
    cparams = {"codec": codec, "clevel": 5, "typesize": 4, "nthreads": 1}
    s = blosc2.SChunk(chunksize=4000, urlpath=path, contiguous=contiguous, cparams=cparams,
                      mode="w", meta={"info": {"a": 1, "b": [1, 2]}, "raw": b"\x01\x02"})
    data = []
    for k in range(5):
        d = chunk_data(k)
        s.append_data(d)
        data.append(d.tobytes())
    # special chunks: zeros, nans (as float32 bits) and a value run
    s.append_data(np.zeros(1000, dtype=np.int32)); data.append(bytes(4000))
    s.vlmeta["vl1"] = {"x": 1}
    s.vlmeta["vl2"] = b"bytes here"
    manifest[name] = {"path": path, "nchunks": s.nchunks, "data": [d.hex() for d in data]}
    del s
# filled with special values
for name, value in (("fill_zeros", blosc2.SpecialValue.ZERO), ("fill_nan", blosc2.SpecialValue.NAN),
                    ("fill_uninit", blosc2.SpecialValue.UNINIT)):
    path = os.path.join(out, name + ".b2frame")
    s = blosc2.SChunk(chunksize=4000, urlpath=path, contiguous=True, mode="w",
                      cparams={"typesize": 4}, meta={"m": 1})
    s.fill_special(2500, value)
    manifest[name] = {"path": path, "nchunks": s.nchunks, "nbytes": s.nbytes}
    del s
with open(os.path.join(out, "manifest.json"), "w") as f:
    json.dump(manifest, f)
"#;

#[test]
fn python_writes_rust_reads() {
    if !python_blosc2() {
        common::skip(
            "python_writes_rust_reads",
            "python3 -c 'import blosc2' fails: Python blosc2 (the reference) is not installed",
        );
        return;
    }
    let scratch = Scratch::new("frame", "py2rs");
    run_python(&format!("{PY_COMMON}{PY_WRITE}"), &[&scratch.dir]);
    let manifest = std::fs::read_to_string(scratch.path("manifest.json")).unwrap();
    // a tiny reader for the manifest: "name": {"path": "...", "nchunks": N, "data": [...]}
    for name in [
        "c0_cf", "c0_sf", "c1_cf", "c1_sf", "c2_cf", "c2_sf", "c3_cf", "c3_sf", "c4_cf", "c4_sf",
    ] {
        let ext = if name.ends_with("cf") {
            ".b2frame"
        } else {
            ".b2dir"
        };
        let path = scratch.path(&format!("{name}{ext}"));
        let f = Frame::open_path(&path, 0, stdio()).unwrap();
        let entry = &manifest[manifest.find(&format!("\"{name}\"")).unwrap()..];
        let data_start = entry.find("\"data\": [").unwrap() + 9;
        let data_end = data_start + entry[data_start..].find(']').unwrap();
        let hexes: Vec<&str> = entry[data_start..data_end]
            .split(", ")
            .map(|s| s.trim_matches('"'))
            .collect();
        assert_eq!(f.nchunks() as usize, hexes.len(), "{name}");
        assert_eq!(f.is_sparse(), name.ends_with("sf"));
        for (i, h) in hexes.iter().enumerate() {
            let got = decode(&f.get_chunk(i as i64).unwrap());
            let want: Vec<u8> = (0..h.len() / 2)
                .map(|k| u8::from_str_radix(&h[2 * k..2 * k + 2], 16).unwrap())
                .collect();
            assert_eq!(got, want, "{name} chunk {i}");
        }
        // the zeros chunk is a special offset
        assert_eq!(
            f.offsets().unwrap()[5],
            0x8100000000000000u64 as i64,
            "{name}"
        );
        let codec = name.as_bytes()[1] - b'0';
        assert_eq!(f.params().compcode, [0, 1, 2, 4, 5][codec as usize]);
        assert_eq!(f.params().typesize, 4);
        let names: Vec<&str> = f.metalayers().iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["info", "raw"]);
        // msgpack of {"a": 1, "b": [1, 2]} and of b"\x01\x02"
        assert_eq!(
            f.metalayers()[0].content,
            [0x82, 0xa1, b'a', 1, 0xa1, b'b', 0x92, 1, 2]
        );
        assert_eq!(f.metalayers()[1].content, [0xc4, 2, 1, 2]);
        let vl: Vec<&str> = f.vlmetalayers().iter().map(|m| m.name.as_str()).collect();
        assert_eq!(vl, ["vl1", "vl2"]);
        // vlmetalayer values are msgpack inside a Blosc chunk
        assert_eq!(decode(&f.vlmetalayers()[0].content), [0x81, 0xa1, b'x', 1]);
        let mut want = vec![0xc4, 10];
        want.extend_from_slice(b"bytes here");
        assert_eq!(decode(&f.vlmetalayers()[1].content), want);
        // the whole frame as a cframe, and a sparse copy, read the same
        let back = Frame::from_bytes(f.to_bytes().unwrap()).unwrap();
        assert_eq!(content(&back), content(&f));
    }
    for (name, check) in [("fill_zeros", 0u8), ("fill_nan", 1), ("fill_uninit", 2)] {
        let f = Frame::open_path(&scratch.path(&format!("{name}.b2frame")), 0, stdio()).unwrap();
        assert_eq!(f.nbytes(), 10000, "{name}");
        assert_eq!(f.nchunks(), 3);
        assert_eq!(f.chunksize(), 4000);
        assert_eq!(f.cbytes(), 0);
        let data = content(&f);
        assert_eq!(data.len(), 10000);
        match check {
            0 => assert!(data.iter().all(|&b| b == 0)),
            1 => assert!(data
                .chunks(4)
                .all(|c| f32::from_le_bytes(c.try_into().unwrap()).is_nan())),
            _ => {}
        }
    }
}

const PY_READ: &str = r#"
out = sys.argv[1]
with open(os.path.join(out, "manifest.json")) as f:
    manifest = json.load(f)
for name, m in manifest.items():
    s = blosc2.open(m["path"], mode="a" if m.get("appendable") else "r", offset=m.get("offset", 0))
    if m.get("offset", 0) == 0 and not os.path.isdir(m["path"]):
        # the same bytes through the in-memory API
        with open(m["path"], "rb") as fh:
            s2 = blosc2.schunk_from_cframe(fh.read(), copy=True)
        assert s2.nchunks == m["nchunks"], name
        for i, h in enumerate(m["chunks"]):
            if h is not None:  # uninit chunks have no defined content
                assert s2.decompress_chunk(i) == s.decompress_chunk(i), (name, i)
    assert s.nchunks == m["nchunks"], (name, s.nchunks, m["nchunks"])
    assert s.nbytes == m["nbytes"], (name, s.nbytes)
    assert s.cbytes == m["cbytes"], (name, s.cbytes)
    assert s.chunksize == m["chunksize"], (name, s.chunksize)
    assert s.typesize == m["typesize"], (name, s.typesize)
    assert int(s.cparams.codec.value) == m["codec"], (name, s.cparams.codec)
    assert s.cparams.clevel == m["clevel"], name
    for i, h in enumerate(m["chunks"]):
        got = s.decompress_chunk(i)
        if h is not None:
            assert got == bytes.fromhex(h), (name, i)
        else:
            assert len(got) == m["sizes"][i], (name, i)
    assert list(s.meta.keys()) == ["info", "raw"], (name, list(s.meta.keys()))
    assert s.meta["info"] == {"k": [1, 2, 3]}, (name, s.meta["info"])
    assert s.meta["raw"] == b"\x01\x02", (name, s.meta["raw"])
    assert sorted(s.vlmeta.getall().keys()) == sorted(m["vlmeta"].keys()), (name, s.vlmeta.getall())
    for k, v in m["vlmeta"].items():
        assert s.vlmeta[k] == v, (name, k, s.vlmeta[k], v)
    # Python can also append to our frames
    if m.get("appendable"):
        s.append_data(np.arange(m["chunksize"] // 4, dtype=np.int32))
        assert s.nchunks == m["nchunks"] + 1
        assert s.decompress_chunk(s.nchunks - 1) == np.arange(m["chunksize"] // 4, dtype=np.int32).tobytes()
print("ok", len(manifest))
"#;

/// msgpack of a small map {"k": [1, 2, 3]} (what python-blosc2 stores for meta/vlmeta).
const MSGPACK_MAP: [u8; 7] = [0x81, 0xa1, b'k', 0x93, 1, 2, 3];

#[test]
fn rust_writes_python_reads() {
    if !python_blosc2() {
        common::skip(
            "rust_writes_python_reads",
            "python3 -c 'import blosc2' fails: Python blosc2 (the reference) is not installed",
        );
        return;
    }
    let scratch = Scratch::new("frame", "rs2py");
    let mut rng = Rng::new(3);
    let mut manifest = String::from("{");
    let codecs = [0u8, 1, 2, 4, 5];
    for (ci, &codec) in codecs.iter().enumerate() {
        for sparse in [false, true] {
            let name = format!("c{ci}_{}", if sparse { "sf" } else { "cf" });
            let path = scratch.path(&format!(
                "{name}{}",
                if sparse { ".b2dir" } else { ".b2frame" }
            ));
            let loc = if sparse {
                Location::Dir(path.clone())
            } else {
                Location::File {
                    path: path.clone(),
                    offset: 0,
                }
            };
            let fp = FrameParams {
                typesize: 4,
                compcode: codec,
                clevel: 5,
                splitmode: SplitMode::ForwardCompat,
                ..FrameParams::default()
            };
            let mut f = Frame::create(loc, &fp, stdio()).unwrap();
            f.add_metalayer("info", &MSGPACK_MAP).unwrap();
            f.add_metalayer("raw", &[0xc4, 2, 1, 2]).unwrap();
            let cp = fp.to_cparams();
            let mut chunks_hex = Vec::new();
            let mut sizes = Vec::new();
            for k in 0..6 {
                let mut d = vec![0u8; 4000];
                if k % 2 == 0 {
                    rng.fill(&mut d);
                } else {
                    for (i, b) in d.iter_mut().enumerate() {
                        *b = (i * k / 5) as u8;
                    }
                }
                f.append_chunk(&compress(&cp, &d)).unwrap();
                chunks_hex.push(format!("\"{}\"", hex(&d)));
                sizes.push(4000);
            }
            f.append_chunk(&special(Special::Zero, 4000, 4)).unwrap();
            chunks_hex.push(format!("\"{}\"", hex(&[0u8; 4000])));
            f.append_chunk(&special(Special::Uninit, 4000, 4)).unwrap();
            chunks_hex.push("null".into());
            f.append_chunk(&special(Special::Nan, 4000, 4)).unwrap();
            let nan: Vec<u8> = std::iter::repeat_n(0x7FC00000u32.to_le_bytes(), 1000)
                .flatten()
                .collect();
            chunks_hex.push(format!("\"{}\"", hex(&nan)));
            f.append_chunk(&special(Special::Value, 4000, 4)).unwrap();
            chunks_hex.push(format!("\"{}\"", hex(&[7u8; 4000])));
            f.insert_chunk(2, &compress(&cp, &[9u8; 4000])).unwrap();
            chunks_hex.insert(2, format!("\"{}\"", hex(&[9u8; 4000])));
            f.update_chunk(0, &compress(&cp, &[3u8; 4000])).unwrap();
            chunks_hex[0] = format!("\"{}\"", hex(&[3u8; 4000]));
            f.delete_chunk(1).unwrap();
            chunks_hex.remove(1);
            sizes.extend([4000; 4]);
            sizes.truncate(chunks_hex.len());
            // vlmetalayers: msgpack values in Blosc chunks
            let vcp = CParams {
                typesize: 1,
                ..CParams::default()
            };
            f.set_vlmetalayer("vl1", &compress(&vcp, &MSGPACK_MAP))
                .unwrap();
            f.set_vlmetalayer("vl2", &compress(&vcp, &[0xa3, b'a', b'b', b'c']))
                .unwrap();
            manifest.push_str(&format!(
                "\"{name}\": {{\"path\": \"{}\", \"nchunks\": {}, \"nbytes\": {}, \"cbytes\": {}, \
                 \"chunksize\": 4000, \"typesize\": 4, \"codec\": {codec}, \"clevel\": 5, \
                 \"chunks\": [{}], \"sizes\": [{}], \"vlmeta\": {{\"vl1\": {{\"k\": [1, 2, 3]}}, \
                 \"vl2\": \"abc\"}}, \"appendable\": {}}},",
                path.display(),
                f.nchunks(),
                f.nbytes(),
                f.cbytes(),
                chunks_hex.join(", "),
                sizes
                    .iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                if ci == 0 { "true" } else { "false" }
            ));
        }
    }
    // more shapes of frames: variable chunk sizes, embedded at an offset, built from chunks,
    // filled with special values
    let cp = CParams {
        typesize: 4,
        ..CParams::default()
    };
    let mut extra = |name: &str, f: &Frame, offset: u64, chunks: &[Vec<u8>]| {
        let path = match f.location() {
            Location::File { path, .. } => path,
            _ => unreachable!(),
        };
        let hexes: Vec<String> = chunks.iter().map(|c| format!("\"{}\"", hex(c))).collect();
        let sizes: Vec<String> = chunks.iter().map(|c| c.len().to_string()).collect();
        manifest.push_str(&format!(
            "\"{name}\": {{\"path\": \"{}\", \"offset\": {offset}, \"nchunks\": {}, \
             \"nbytes\": {}, \"cbytes\": {}, \"chunksize\": {}, \"typesize\": 4, \"codec\": 0, \
             \"clevel\": 5, \"chunks\": [{}], \"sizes\": [{}], \"vlmeta\": {{}}}},",
            path.display(),
            f.nchunks(),
            f.nbytes(),
            f.cbytes(),
            f.chunksize(),
            hexes.join(", "),
            sizes.join(", ")
        ));
    };
    let fp = FrameParams {
        typesize: 4,
        ..FrameParams::default()
    };
    let mut big = vec![0u8; 4000];
    rng.fill(&mut big);
    let small: Vec<u8> = (0..1000u32).map(|v| (v % 13) as u8).collect();
    let chunks = vec![big.clone(), vec![0u8; 4000], small.clone(), big.clone()];
    let path = scratch.path("var.b2frame");
    let mut f = Frame::create(
        Location::File {
            path: path.clone(),
            offset: 0,
        },
        &fp,
        stdio(),
    )
    .unwrap();
    f.add_metalayer("info", &MSGPACK_MAP).unwrap();
    f.add_metalayer("raw", &[0xc4, 2, 1, 2]).unwrap();
    f.append_chunk(&compress(&cp, &big)).unwrap();
    f.append_chunk(&special(Special::Zero, 4000, 4)).unwrap();
    f.append_chunk(&compress(&cp, &small)).unwrap();
    f.append_chunk(&compress(&cp, &big)).unwrap();
    assert_eq!(f.chunksize(), 0);
    extra("var", &f, 0, &chunks);
    // the same frame appended to a host file
    let host = scratch.path("host.bin");
    std::fs::write(&host, vec![0x55u8; 100]).unwrap();
    let off = Frame::append_file(&host, &f.to_bytes().unwrap(), &StdIo).unwrap();
    let emb = Frame::open_path(&host, off, stdio()).unwrap();
    extra("emb", &emb, off, &chunks);
    // built at once from chunks, then saved
    let c1 = compress(&cp, &big);
    let mut g = Frame::from_chunks(&fp, &[&c1, &c1], f.metalayers(), &[])
        .unwrap()
        .copy_to(
            Location::File {
                path: scratch.path("whole.b2frame"),
                offset: 0,
            },
            stdio(),
        )
        .unwrap();
    extra("whole", &g, 0, &[big.clone(), big.clone()]);
    g = Frame::create(
        Location::File {
            path: scratch.path("fill.b2frame"),
            offset: 0,
        },
        &fp,
        stdio(),
    )
    .unwrap();
    g.add_metalayer("info", &MSGPACK_MAP).unwrap();
    g.add_metalayer("raw", &[0xc4, 2, 1, 2]).unwrap();
    g.fill_special(2500, Special::Zero, 4000).unwrap();
    extra(
        "fill",
        &g,
        0,
        &[vec![0; 4000], vec![0; 4000], vec![0; 2000]],
    );
    manifest.pop();
    manifest.push('}');
    std::fs::write(scratch.path("manifest.json"), manifest).unwrap();
    run_python(&format!("{PY_COMMON}{PY_READ}"), &[&scratch.dir]);
    // after Python appended a chunk to c0, we still read it
    let f = Frame::open_path(&scratch.path("c0_cf.b2frame"), 0, stdio()).unwrap();
    assert_eq!(f.nchunks(), 11);
    let f = Frame::open_path(&scratch.path("c0_sf.b2dir"), 0, stdio()).unwrap();
    assert_eq!(f.nchunks(), 11);
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

const PY_SAME: &str = r#"
out = sys.argv[1]
cp = {"codec": blosc2.Codec.ZSTD, "clevel": 3, "typesize": 4, "nthreads": 1}
dp = {"nthreads": 1}
for contiguous, name in ((True, "py.b2frame"), (False, "pysf.b2frame")):
    s = blosc2.SChunk(chunksize=4000, urlpath=os.path.join(out, name), contiguous=contiguous,
                      cparams=cp, dparams=dp, mode="w", meta={"m1": [1, 2]})
    for k in (1, 2, 3):
        s.append_data(np.arange(1000, dtype=np.int32) * k)
    s.append_data(np.zeros(1000, dtype=np.int32))
    s.append_data(np.arange(1000, dtype=np.int32) * 4)
    s.vlmeta["v"] = "hello"
    s.insert_data(2, np.arange(1000, dtype=np.int32) + 5, copy=True)
    for i in range(s.nchunks):
        with open(os.path.join(out, f"{name}.{i}.chunk"), "wb") as fh:
            fh.write(s.get_chunk(i))
    s.delete_chunk(1)
    s.vlmeta["w"] = [1, 2, 3]
    rnd = np.random.default_rng(5).integers(0, 2**31, 1000, dtype=np.int32)
    s.update_data(0, rnd, copy=True)
    s.update_data(2, np.arange(1000, dtype=np.int32) * 7, copy=True)
    s.update_data(1, np.zeros(1000, dtype=np.int32), copy=True)
    s.update_data(3, rnd, copy=True)
    s.append_data(np.arange(500, dtype=np.int32))
    for i in range(s.nchunks):
        with open(os.path.join(out, f"{name}.final{i}.chunk"), "wb") as fh:
            fh.write(s.get_chunk(i))
    del s
"#;

/// The same operations as C-Blosc2 (through Python) give the same bytes: header, offsets chunk
/// (FRAME.md §5), trailer, and for sparse frames the index and the chunk files.
#[test]
fn byte_exact_like_reference() {
    if !python_blosc2() {
        common::skip(
            "byte_exact_like_reference",
            "python3 -c 'import blosc2' fails: Python blosc2 (the reference) is not installed",
        );
        return;
    }
    let scratch = Scratch::new("frame", "exact");
    run_python(&format!("{PY_COMMON}{PY_SAME}"), &[&scratch.dir]);
    for (name, sparse) in [("py.b2frame", false), ("pysf.b2frame", true)] {
        let py = Frame::open_path(&scratch.path(name), 0, stdio()).unwrap();
        let ours_path = scratch.path(&format!("ours-{name}"));
        let loc = if sparse {
            Location::Dir(ours_path.clone())
        } else {
            Location::File {
                path: ours_path.clone(),
                offset: 0,
            }
        };
        let mut f = Frame::create(loc, py.params(), stdio()).unwrap();
        for m in py.metalayers() {
            f.add_metalayer(&m.name, &m.content).unwrap();
        }
        // replay the history with the chunks Python saved
        let saved = |n: String| std::fs::read(scratch.path(&n)).unwrap();
        let c: Vec<Vec<u8>> = (0..6).map(|i| saved(format!("{name}.{i}.chunk"))).collect();
        let fin: Vec<Vec<u8>> = (0..6)
            .map(|i| saved(format!("{name}.final{i}.chunk")))
            .collect();
        for k in [0, 1, 3, 4, 5] {
            f.append_chunk(&c[k]).unwrap();
        }
        f.set_vlmetalayer("v", &py.vlmetalayers()[0].content)
            .unwrap();
        f.insert_chunk(2, &c[2]).unwrap();
        f.delete_chunk(1).unwrap();
        f.set_vlmetalayer("w", &py.vlmetalayers()[1].content)
            .unwrap();
        f.update_chunk(0, &fin[0]).unwrap();
        f.update_chunk(2, &fin[2]).unwrap();
        f.update_chunk(1, &fin[1]).unwrap();
        f.update_chunk(3, &fin[3]).unwrap();
        f.append_chunk(&fin[5]).unwrap();
        assert_eq!(f.cbytes(), py.cbytes(), "{name}");
        assert_eq!(f.offsets().unwrap(), py.offsets().unwrap(), "{name}");
        if sparse {
            let read = |d: &Path, n: &str| std::fs::read(d.join(n)).unwrap();
            assert_eq!(
                read(&ours_path, "chunks.b2frame"),
                read(&scratch.path(name), "chunks.b2frame"),
                "{name}"
            );
            for o in f.offsets().unwrap().into_iter().filter(|&o| o >= 0) {
                let n = format!("{o:08X}.chunk");
                assert_eq!(read(&ours_path, &n), read(&scratch.path(name), &n));
            }
        } else {
            assert_eq!(
                std::fs::read(&ours_path).unwrap(),
                std::fs::read(scratch.path(name)).unwrap(),
                "{name}"
            );
        }
    }
}

#[test]
fn preset_chunksize() {
    let mut f = Frame::create(Location::Memory, &params(4), stdio()).unwrap();
    f.set_chunksize(4000).unwrap();
    let cp = CParams {
        typesize: 4,
        ..CParams::default()
    };
    // a short first chunk keeps the preset size (it is the last one)
    f.append_chunk(&compress(&cp, &[1u8; 2000])).unwrap();
    assert_eq!(f.chunksize(), 4000);
    assert_eq!(f.set_chunksize(-2).unwrap_err(), Error::InvalidParam);
    // anything after a short chunk makes sizes variable
    f.append_chunk(&compress(&cp, &[2u8; 4000])).unwrap();
    assert_eq!(f.chunksize(), 0);
    let g = Frame::from_bytes(f.to_bytes().unwrap()).unwrap();
    assert_eq!(content(&g), [vec![1u8; 2000], vec![2u8; 4000]].concat());
}

/// A frame serialised from whole chunks stores zeros/NaN/uninit chunks as special offsets when
/// the chunk size is fixed, as C-Blosc2's `blosc2_schunk_to_buffer` does (and as its reader
/// expects), and they still decode.
#[test]
fn from_chunks_writes_special_offsets() {
    let cp = CParams {
        typesize: 4,
        ..CParams::default()
    };
    let data: Vec<u8> = (0..1000u32).flat_map(|v| v.to_le_bytes()).collect();
    let chunks = [
        compress(&cp, &data),
        special(Special::Zero, 4000, 4),
        special(Special::Nan, 4000, 4),
        special(Special::Uninit, 4000, 4),
        compress(&cp, &data),
    ];
    let refs: Vec<&[u8]> = chunks.iter().map(|c| c.as_slice()).collect();
    let f = Frame::from_chunks(&FrameParams::from_cparams(&cp, 1), &refs, &[], &[]).unwrap();
    let offsets = f.offsets().unwrap();
    assert_eq!(offsets[0], 0);
    assert_eq!(offsets[1] as u64, 0x81u64 << 56);
    assert_eq!(offsets[2] as u64, 0x82u64 << 56);
    assert_eq!(offsets[3] as u64, 0x84u64 << 56);
    assert!(offsets[4] > 0);
    assert_eq!(f.cbytes(), 2 * chunks[0].len() as i64);
    let back = Frame::from_bytes(f.to_bytes().unwrap()).unwrap();
    assert_eq!(back.nchunks(), 5);
    assert_eq!(decode(&back.get_chunk(1).unwrap()), vec![0u8; 4000]);
    assert_eq!(decode(&back.get_chunk(4).unwrap()), data);
}

/// Sizes read from a damaged file can ask for more memory than exists: the reads and changes
/// that allocate them fail with `Error::MemoryAlloc` instead of aborting the process
/// (`c-tests/test_damaged.c` found a b2nd resize aborting on a flipped shape byte).
#[test]
fn damaged_sizes_fail_without_aborting() {
    use b2rs::b2nd::{Array, Fill, Meta};
    let cp = CParams {
        typesize: 4,
        ..CParams::default()
    };
    let good = Meta::new(&[50, 40], &[16, 16], &[8, 8]);
    let a = Array::new(cp, DParams::default(), &good, Fill::Zero).unwrap();
    let sc = a.into_schunk();
    // shape[0] with its high bytes flipped: 2^50 + 50 items by 40, 180 PB
    let huge = Meta::new(&[(1i64 << 50) + 50, 40], &[16, 16], &[8, 8]);
    let mut a = Array::attach(&huge, sc).unwrap();
    assert_eq!(a.to_vec().unwrap_err(), Error::MemoryAlloc);
    // a resize changes chunks, not a copy of the array: the chunk grid such a shape asks for
    // is refused before anything is touched
    assert_eq!(
        a.resize(&[(1i64 << 50) + 53, 40], None).unwrap_err(),
        Error::Failure
    );
}

/// `delete_chunk_run` on every location is what deleting the chunks one by one makes: the same
/// chunks left, the same counters, in a sparse frame the run's chunk files gone, and the frame
/// reads back the same when reopened.
#[test]
fn delete_chunk_run_like_single_deletes() {
    let scratch = Scratch::new("frame", "delete_run");
    let cp = CParams {
        typesize: 4,
        ..CParams::default()
    };
    let chunks: Vec<Vec<u8>> = (0..8u32)
        .map(|k| {
            let data: Vec<u8> = (0..1000u32)
                .flat_map(|i| (k * 7919 + i).to_le_bytes())
                .collect();
            compress(&cp, &data)
        })
        .collect();
    for (pass, tag) in ["run", "one"].iter().enumerate() {
        for (k, loc) in locations(&scratch, &format!("dr{tag}"))
            .into_iter()
            .enumerate()
        {
            if let Location::File { path, offset } = &loc {
                if *offset > 0 {
                    std::fs::write(path, vec![0xAB; *offset as usize]).unwrap();
                }
            }
            let mut f = Frame::create(loc.clone(), &params(4), stdio()).unwrap();
            for c in &chunks {
                f.append_chunk(c).unwrap();
            }
            if pass == 0 {
                assert_eq!(f.delete_chunk_run(2, 4).unwrap(), 4, "location {k}");
            } else {
                for _ in 0..4 {
                    f.delete_chunk(2).unwrap();
                }
            }
            let kept: Vec<Vec<u8>> = (0..f.nchunks())
                .map(|n| f.get_chunk(n).unwrap().into_owned())
                .collect();
            let want: Vec<Vec<u8>> = [0, 1, 6, 7].iter().map(|&i| chunks[i].clone()).collect();
            assert_eq!(kept, want, "location {k}");
            assert_eq!(f.nbytes(), 4 * 4000);
            if let Location::Dir(d) = &loc {
                let files = std::fs::read_dir(d)
                    .unwrap()
                    .filter(|e| {
                        e.as_ref()
                            .unwrap()
                            .path()
                            .extension()
                            .is_some_and(|x| x == "chunk")
                    })
                    .count();
                assert_eq!(files, 4, "the run's chunk files are removed");
            }
            let back = reopen(&f);
            assert_eq!(back.nchunks(), 4);
            assert_eq!(decode(&back.get_chunk(2).unwrap()), decode(&chunks[6]));
        }
    }
}
