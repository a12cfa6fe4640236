//! Bloscpack files (`src/bloscpack/`).
//!
//! * Format checks that need nothing else: a file truncated at every position fails with the
//!   part it ends in, corrupt checksums name their chunk, bad offsets, random corruption never
//!   panics, old format versions, streaming writes equal buffer writes, appending and metadata
//!   rewriting in place.
//! * Interoperability in both directions with the Python `bloscpack` package (0.16, with
//!   python-blosc 1.x), driven through `tests/bloscpack_helper.py`: files bloscpack writes
//!   (every codec, shuffle mode, several typesizes, every checksum, with and without metadata,
//!   offsets, max_app_chunks, appended files, NumPy arrays) read back exactly in b2rs, and files
//!   b2rs writes read back exactly with bloscpack; appends across the two. The matrices are
//!   printed and written to `target/<profile>/bloscpack-interop.txt`.
//!
//! `tools/fetch-reference.sh` installs the Python packages. Without them the interop tests are
//! skipped with a message, except when `CI` is set (then they fail).

mod common;

use b2rs::bloscpack::{
    self, append_file, header::calculate_nchunks, rewrite_metadata_file, Checksum, Error,
    MetaCodec, MetadataParams, PackParams, Part, Reader, Writer,
};
use b2rs::params::{filter_id, CParams};
use common::{Rng, Scratch};
use std::fmt::Write as _;
use std::fs;
use std::io::{BufReader, Cursor, Read, Write};
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

// ---------------------------------------------------------------------------
// data and parameters

fn mixed(size: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(size + 4096);
    while out.len() < size {
        let n = 1 + rng.below(3000) as usize;
        match rng.below(4) {
            0 => out.extend(std::iter::repeat_n(rng.below(256) as u8, n)),
            1 => out.extend((0..n).map(|j| (j * 7) as u8)),
            2 => {
                let mut b = vec![0u8; n / 8 + 1];
                rng.fill(&mut b);
                out.extend(b);
            }
            _ => out.extend((0..n as u64 / 8 + 1).flat_map(|j| (j + seed).to_le_bytes())),
        }
    }
    out.truncate(size);
    out
}

fn random(size: usize, seed: u64) -> Vec<u8> {
    let mut b = vec![0u8; size];
    Rng::new(seed).fill(&mut b);
    b
}

fn ramp(size: usize, seed: u64) -> Vec<u8> {
    let mut b: Vec<u8> = (0..size as u32 / 4 + 1)
        .flat_map(|i| (i.wrapping_mul(3).wrapping_add(seed as u32)).to_le_bytes())
        .collect();
    b.truncate(size);
    b
}

const CODECS: [(u8, &str); 5] = [
    (0, "blosclz"),
    (1, "lz4"),
    (2, "lz4hc"),
    (4, "zlib"),
    (5, "zstd"),
];

fn cparams(compcode: u8, clevel: u8, typesize: i32, shuffle: u8) -> CParams {
    let mut p = bloscpack::default_cparams();
    p.compcode = compcode;
    p.clevel = clevel;
    p.typesize = typesize;
    p.filters = [0, 0, 0, 0, 0, shuffle];
    p
}

fn params(chunk_size: usize) -> PackParams {
    PackParams {
        chunk_size,
        ..PackParams::default()
    }
}

/// A small file with everything: metadata, offsets with spare slots, checksums, 3 chunks.
fn sample_file(checksum: Checksum) -> (Vec<u8>, Vec<u8>) {
    let data = mixed(2500, 7);
    let p = PackParams {
        chunk_size: 1000,
        checksum,
        cparams: cparams(0, 5, 4, filter_id::SHUFFLE),
        ..PackParams::default()
    };
    let file = bloscpack::pack(&data, &p, Some(br#"{"x":[1,2,3],"name":"sample"}"#)).unwrap();
    (file, data)
}

/// A reader that returns at most a few bytes per call and cannot seek.
struct Trickle<'a> {
    data: &'a [u8],
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.step = self.step % 7 + 1;
        let n = self.step.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Read a whole file every way b2rs can: from memory, streaming from a non-seekable reader,
/// and by chunk number through the offsets table (in reverse order). Checks the data, the
/// metadata and the announced size.
fn read_every_way(file: &[u8], data: &[u8], meta: Option<&[u8]>) -> Result<(), String> {
    let (got, m) = bloscpack::unpack(file).map_err(|e| format!("unpack: {e}"))?;
    if got != data {
        return Err(format!(
            "unpack: {} bytes differ from the {} expected",
            got.len(),
            data.len()
        ));
    }
    let m = m.map(|m| m.data);
    if m.as_deref() != meta {
        return Err(format!(
            "metadata {:?} instead of {:?}",
            m.map(|v| String::from_utf8_lossy(&v).into_owned()),
            meta.map(|v| String::from_utf8_lossy(v).into_owned())
        ));
    }
    let mut r = Reader::new(Trickle {
        data: file,
        step: 0,
    })
    .map_err(|e| format!("trickle: {e}"))?;
    let mut out = Vec::new();
    r.unpack_to(&mut out).map_err(|e| format!("trickle: {e}"))?;
    if out != data {
        return Err("streaming read differs".into());
    }
    let h = *r.header();
    if h.nbytes().is_some_and(|n| n != data.len() as u64) {
        return Err(format!("header announces {:?} bytes", h.nbytes()));
    }
    if h.offsets {
        let mut r = Reader::new(Cursor::new(file)).map_err(|e| e.to_string())?;
        let n = h.nchunks as u64;
        let mut parts = Vec::new();
        for i in (0..n).rev() {
            parts.push(
                r.read_chunk(i)
                    .map_err(|e| format!("read_chunk({i}): {e}"))?,
            );
        }
        parts.reverse();
        if parts.concat() != data {
            return Err("random access differs".into());
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// format checks (no Python needed)

#[test]
fn roundtrip_matrix() {
    let mut n = 0;
    for (compcode, _) in CODECS {
        for shuffle in [0, filter_id::SHUFFLE, filter_id::BITSHUFFLE] {
            for typesize in [1, 2, 3, 4, 8, 16, 24, 255] {
                for size in [0usize, 1, 100, 4096, 70_001] {
                    let data = mixed(size, n);
                    let p = PackParams {
                        cparams: cparams(compcode, (n % 10) as u8, typesize, shuffle),
                        chunk_size: 16384,
                        checksum: Checksum::ALL[n as usize % 9],
                        ..PackParams::default()
                    };
                    let file = bloscpack::pack(&data, &p, None).unwrap();
                    read_every_way(&file, &data, None).unwrap_or_else(|e| {
                        panic!("codec {compcode} shuffle {shuffle} typesize {typesize} size {size}: {e}")
                    });
                    n += 1;
                }
            }
        }
    }
}

/// Readers accept any valid Blosc chunk: here Blosc2 chunks (32-byte headers, delta filter, a
/// special all-zeros chunk) in a file assembled by hand.
#[test]
fn reads_blosc2_chunks() {
    let mut data = ramp(40_000, 3);
    data.extend(vec![0u8; 40_000]);
    data.extend(mixed(20_000, 3));
    let mut chunks = Vec::new();
    for (i, piece) in data.chunks(40_000).enumerate() {
        let p = CParams {
            compcode: [5, 0, 1][i],
            typesize: 4,
            filters: [0, 0, 0, 0, filter_id::DELTA, filter_id::SHUFFLE],
            ..CParams::default()
        };
        let mut out = vec![0u8; piece.len() + 64];
        let n = b2rs::chunk::compress(&p, piece, &mut out).unwrap();
        out.truncate(n);
        assert!(out[0] >= 5 && out[2] & 0x05 == 0x05, "a Blosc2 chunk");
        chunks.push(out);
    }
    assert_eq!(chunks[1].len(), 32, "all zeros: a special chunk");
    let h = bloscpack::Header {
        format_version: 3,
        offsets: true,
        metadata: false,
        checksum: Checksum::Sha256,
        typesize: 4,
        chunk_size: 40_000,
        last_chunk: 20_000,
        nchunks: 3,
        max_app_chunks: 2,
    };
    let mut file = h.encode().unwrap().to_vec();
    let table = file.len();
    file.extend([0xff; 8 * 5]);
    for (i, c) in chunks.iter().enumerate() {
        let pos = (file.len() as i64).to_le_bytes();
        file[table + 8 * i..table + 8 * i + 8].copy_from_slice(&pos);
        file.extend(c);
        file.extend(Checksum::Sha256.digest(c).as_bytes());
    }
    read_every_way(&file, &data, None).unwrap();
    // appending rewrites the last chunk as a Blosc 1.x chunk and adds one
    let scratch = Scratch::new("bloscpack", "blosc2chunks");
    let path = scratch.path("b2.blp");
    fs::write(&path, &file).unwrap();
    let extra = mixed(30_000, 4);
    assert_eq!(append_file(&path, &extra, None).unwrap(), 1);
    data.extend(&extra);
    read_every_way(&fs::read(&path).unwrap(), &data, None).unwrap();
}

#[test]
fn truncated_at_every_position() {
    for checksum in [Checksum::Adler32, Checksum::None, Checksum::Sha512] {
        let (file, data) = sample_file(checksum);
        read_every_way(&file, &data, Some(br#"{"x":[1,2,3],"name":"sample"}"#)).unwrap();
        let r = Reader::new(file.as_slice()).unwrap();
        let meta_end = r.offsets_pos() as usize;
        let data_start = r.data_start() as usize;
        let offsets: Vec<usize> = r.offsets().iter().map(|&o| o as usize).collect();
        assert_eq!(offsets.len(), 3);
        for cut in 0..file.len() {
            let e = bloscpack::unpack(&file[..cut]).unwrap_err();
            let want = if cut < 32 {
                Part::Header
            } else if cut < meta_end {
                Part::Metadata
            } else if cut < data_start {
                Part::Offsets
            } else {
                Part::Chunk(offsets.iter().rposition(|&o| o <= cut).unwrap() as u64)
            };
            match e {
                Error::Truncated(p) if p == want => {}
                other => panic!("{checksum} cut at {cut}: {other} (expected truncated {want})"),
            }
            assert_eq!(e_code(&file[..cut]), b2rs::Error::ReadBuffer.code());
            // streaming, from a non-seekable reader
            let mut out = Vec::new();
            let res = Reader::new(Trickle {
                data: &file[..cut],
                step: cut,
            })
            .and_then(|mut r| r.unpack_to(&mut out));
            assert!(
                matches!(res, Err(Error::Truncated(p)) if p == want),
                "{cut}"
            );
        }
    }
}

fn e_code(file: &[u8]) -> i32 {
    bloscpack::unpack(file).unwrap_err().code()
}

#[test]
fn corrupt_checksums_name_the_chunk() {
    for checksum in Checksum::ALL.into_iter().skip(1) {
        let (file, _) = sample_file(checksum);
        let r = Reader::new(file.as_slice()).unwrap();
        let offsets: Vec<usize> = r.offsets().iter().map(|&o| o as usize).collect();
        for (i, &o) in offsets.iter().enumerate() {
            // a byte of the chunk data, then a byte of its digest
            let cbytes = u32::from_le_bytes(file[o + 12..o + 16].try_into().unwrap()) as usize;
            for pos in [o + 20, o + cbytes + checksum.size() - 1] {
                let mut bad = file.clone();
                bad[pos] ^= 0x10;
                match bloscpack::unpack(&bad) {
                    Err(Error::ChunkChecksum { chunk }) => assert_eq!(chunk, i as u64),
                    other => panic!("{checksum} chunk {i} byte {pos}: {other:?}"),
                }
                let mut r = Reader::new(Cursor::new(&bad)).unwrap();
                let e = r.read_chunk(i as u64).unwrap_err();
                assert!(e.to_string().contains(&format!("chunk {i}")), "{e}");
                assert_eq!(e.code(), b2rs::Error::Data.code());
                // the other chunks still read
                for j in (0..3).filter(|&j| j != i) {
                    r.read_chunk(j as u64).unwrap();
                }
            }
        }
        // the metadata checksum
        let mut bad = file.clone();
        bad[32 + 32] ^= 1;
        assert!(matches!(
            bloscpack::unpack(&bad),
            Err(Error::MetadataChecksum) | Err(Error::BadMetadata(_))
        ));
    }
}

#[test]
fn bad_offsets_and_headers() {
    let (file, _) = sample_file(Checksum::Adler32);
    let r = Reader::new(file.as_slice()).unwrap();
    let op = r.offsets_pos() as usize;
    let set = |f: &mut Vec<u8>, i: usize, v: i64| {
        f[op + 8 * i..op + 8 * i + 8].copy_from_slice(&v.to_le_bytes())
    };
    // an offset that points elsewhere
    let mut bad = file.clone();
    let o1 = r.offsets()[1];
    set(&mut bad, 1, o1 + 1);
    assert!(matches!(
        bloscpack::unpack(&bad),
        Err(Error::BadOffset { chunk: 1, .. })
    ));
    // before the data, decreasing, negative
    for v in [0, 31, r.offsets()[0] - 1, -2, i64::MIN] {
        let mut bad = file.clone();
        set(&mut bad, 2, v);
        assert!(
            matches!(
                bloscpack::unpack(&bad),
                Err(Error::BadOffset { chunk: 2, .. })
            ),
            "{v}"
        );
    }
    // far beyond the end: sequential reading notices it, random access is truncated
    let mut bad = file.clone();
    set(&mut bad, 2, 1 << 40);
    assert!(matches!(
        bloscpack::unpack(&bad),
        Err(Error::BadOffset { chunk: 2, .. })
    ));
    let mut rr = Reader::new(Cursor::new(&bad)).unwrap();
    assert!(matches!(
        rr.read_chunk(2),
        Err(Error::Truncated(Part::Chunk(2))) | Err(Error::Read(_))
    ));
    assert!(matches!(
        rr.read_chunk(3),
        Err(Error::ChunkIndex {
            chunk: 3,
            nchunks: 3
        })
    ));
    // a writer that died: -1 entries are read sequentially, not by number
    let mut died = file.clone();
    for i in 0..3 {
        set(&mut died, i, -1);
    }
    assert!(bloscpack::unpack(&died).is_ok());
    let mut rr = Reader::new(Cursor::new(&died)).unwrap();
    assert!(matches!(
        rr.read_chunk(0),
        Err(Error::BadOffset {
            chunk: 0,
            offset: -1
        })
    ));

    // header fields
    let patch = |at: usize, bytes: &[u8]| {
        let mut f = file.clone();
        f[at..at + bytes.len()].copy_from_slice(bytes);
        bloscpack::unpack(&f).unwrap_err()
    };
    assert!(matches!(patch(0, b"BLPK"), Error::BadMagic(_)));
    assert!(matches!(patch(4, &[4]), Error::UnsupportedVersion(4)));
    assert!(matches!(patch(5, &[0x83]), Error::InvalidHeader(_)));
    assert!(matches!(patch(6, &[200]), Error::InvalidHeader(_)));
    // chunk-size smaller than the chunks: the chunk holds more than announced
    assert!(matches!(
        patch(8, &900i32.to_le_bytes()),
        Error::BadChunk { chunk: 0, .. }
    ));
    assert!(matches!(
        patch(8, &(-7i32).to_le_bytes()),
        Error::InvalidHeader(_)
    ));
    // more chunks than stored: the offsets table is cut short by the chunks
    assert!(matches!(
        patch(16, &(i64::MAX / 16).to_le_bytes()),
        Error::InvalidHeader(_)
    ));
    let e = patch(16, &1_000_000i64.to_le_bytes());
    assert!(
        matches!(e, Error::BadOffset { .. } | Error::Truncated(_)),
        "{e}"
    );
    // metadata header fields
    assert!(matches!(patch(32 + 8, &[1]), Error::InvalidHeader(_)));
    assert!(matches!(patch(32 + 10, &[5]), Error::InvalidHeader(_)));
    assert!(matches!(
        patch(32 + 16, &u32::MAX.to_le_bytes()),
        Error::Truncated(Part::Metadata) | Error::MetadataChecksum
    ));
    // a chunk whose Blosc header is broken
    let o0 = r.offsets()[0] as usize;
    assert!(matches!(
        patch(o0 + 12, &3i32.to_le_bytes()),
        Error::BadChunk { chunk: 0, .. }
    ));
}

#[test]
fn random_corruption_never_panics() {
    let mut rng = Rng::new(99);
    let mut files = Vec::new();
    for checksum in [Checksum::None, Checksum::Crc32] {
        files.push(sample_file(checksum).0);
    }
    let data = mixed(3000, 3);
    let p = PackParams {
        chunk_size: 700,
        checksum: Checksum::None,
        offsets: false,
        ..PackParams::default()
    };
    files.push(bloscpack::pack(&data, &p, None).unwrap());
    for file in &files {
        for _ in 0..3000 {
            let mut f = file.clone();
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(f.len() as u64) as usize;
                f[i] = rng.below(256) as u8;
            }
            let cut = if rng.below(4) == 0 {
                rng.below(f.len() as u64) as usize
            } else {
                f.len()
            };
            let _ = bloscpack::unpack(&f[..cut]);
            if let Ok(mut r) = Reader::new(Cursor::new(&f[..cut])) {
                for i in 0..4 {
                    let _ = r.read_chunk(i);
                }
            }
        }
    }
}

#[test]
fn huge_announced_sizes_fail_fast() {
    // nchunks 2^40 with an offsets table, in a 200-byte file
    let (mut file, _) = sample_file(Checksum::Adler32);
    file[16..24].copy_from_slice(&(1i64 << 40).to_le_bytes());
    file[24..32].copy_from_slice(&0i64.to_le_bytes());
    file[8..12].copy_from_slice(&1i32.to_le_bytes());
    file[12..16].copy_from_slice(&1i32.to_le_bytes());
    let e = bloscpack::unpack(&file).unwrap_err();
    assert!(matches!(e, Error::Truncated(Part::Offsets)), "{e}");
    // a 4 GiB metadata section
    let (mut file, _) = sample_file(Checksum::Adler32);
    file[32 + 12..32 + 24].copy_from_slice(&[0xff; 12]);
    file[32 + 10] = 1;
    let e = bloscpack::unpack(&file).unwrap_err();
    assert!(matches!(e, Error::Truncated(Part::Metadata)), "{e}");
}

#[test]
fn old_format_versions() {
    let data = mixed(5000, 11);
    let p = PackParams {
        chunk_size: 2048,
        max_app_chunks: Some(0),
        ..PackParams::default()
    };
    let v3 = bloscpack::pack(&data, &p, None).unwrap();
    // version 2: same layout without max-app-chunks (reserved bytes)
    let mut v2 = v3.clone();
    v2[4] = 2;
    read_every_way(&v2, &data, None).unwrap();
    // version 1: 16-byte header, then the chunks (no checksums)
    let p = PackParams {
        chunk_size: 2048,
        checksum: Checksum::None,
        offsets: false,
        ..PackParams::default()
    };
    let v3 = bloscpack::pack(&data, &p, None).unwrap();
    let mut v1 = b"blpk\x01\0\0\0".to_vec();
    v1.extend(3i64.to_le_bytes());
    v1.extend(&v3[32..]);
    read_every_way(&v1, &data, None).unwrap();
    let mut r = Reader::new(v1.as_slice()).unwrap();
    assert_eq!(r.header().format_version, 1);
    assert_eq!(r.header().chunk_size, -1);
    let mut out = Vec::new();
    assert_eq!(r.unpack_to(&mut out).unwrap(), 5000);
    // unknown nchunks (-1): read to the end of the file
    let mut unknown = v3.clone();
    unknown[16..24].copy_from_slice(&(-1i64).to_le_bytes());
    unknown[12..16].copy_from_slice(&(-1i32).to_le_bytes());
    let (got, _) = bloscpack::unpack(&unknown).unwrap();
    assert_eq!(got, data);
    // ... and a truncated chunk is still an error
    let e = bloscpack::unpack(&unknown[..unknown.len() - 1]).unwrap_err();
    assert!(matches!(e, Error::Truncated(Part::Chunk(2))), "{e}");
}

#[test]
fn streaming_writes_equal_buffer_writes() {
    let data = mixed(300_000, 5);
    let meta = br#"{"k":"v"}"#;
    for (chunk_size, offsets) in [(65536, true), (100_000, false), (1 << 20, true), (1, true)] {
        let data = if chunk_size == 1 {
            &data[..300]
        } else {
            &data[..]
        };
        let p = PackParams {
            chunk_size,
            offsets,
            ..PackParams::default()
        };
        let whole = bloscpack::pack(data, &p, Some(meta)).unwrap();
        let mut rng = Rng::new(chunk_size as u64);
        let mut w = Writer::new(
            Cursor::new(Vec::new()),
            &p,
            Some(data.len() as u64),
            Some(meta),
        )
        .unwrap();
        let mut rest = data;
        while !rest.is_empty() {
            let n = (1 + rng.below(40_000) as usize).min(rest.len());
            w.write_all(&rest[..n]).unwrap();
            rest = &rest[n..];
        }
        let pieces = w.finish().unwrap().into_inner();
        assert_eq!(pieces, whole, "chunk size {chunk_size}");
        read_every_way(&whole, data, Some(meta)).unwrap();
        // unknown size: no offsets, header rewritten at the end
        if !offsets {
            let mut w = Writer::new(Cursor::new(Vec::new()), &p, None, Some(meta)).unwrap();
            assert_eq!(w.header().nchunks, -1);
            w.write_all(data).unwrap();
            let unknown = w.finish().unwrap().into_inner();
            assert_eq!(unknown, whole);
        }
    }
    // announced size must be respected
    let p = params(1000);
    let mut w = Writer::new(Cursor::new(Vec::new()), &p, Some(10), None).unwrap();
    assert!(w.write_data(&[0; 11]).is_err());
    w.write_data(&[0; 9]).unwrap();
    assert!(w.finish().is_err());
    // unknown size with an offsets table is refused
    assert!(Writer::new(Cursor::new(Vec::new()), &p, None, None).is_err());
    // an empty input gives one empty chunk
    for total in [Some(0), None] {
        let p = PackParams {
            offsets: total.is_some(),
            ..PackParams::default()
        };
        let w = Writer::new(Cursor::new(Vec::new()), &p, total, None).unwrap();
        let f = w.finish().unwrap().into_inner();
        let r = Reader::new(f.as_slice()).unwrap();
        assert_eq!(
            (
                r.header().nchunks,
                r.header().chunk_size,
                r.header().last_chunk
            ),
            (1, 0, 0)
        );
        assert_eq!(bloscpack::unpack(&f).unwrap().0, b"");
    }
}

#[test]
fn pack_params_are_checked() {
    let bad = [
        {
            let mut p = PackParams::default();
            p.cparams.filters = [0, 0, 0, 0, filter_id::DELTA, filter_id::SHUFFLE];
            p
        },
        {
            let mut p = PackParams::default();
            p.cparams.typesize = 256;
            p
        },
        {
            let mut p = PackParams::default();
            p.cparams.compcode = 32;
            p
        },
        PackParams {
            chunk_size: 0,
            ..PackParams::default()
        },
        PackParams {
            metadata: MetadataParams {
                level: 10,
                ..MetadataParams::default()
            },
            ..PackParams::default()
        },
        PackParams {
            metadata: MetadataParams {
                max_meta_size: Some(1),
                ..MetadataParams::default()
            },
            ..PackParams::default()
        },
    ];
    for (i, p) in bad.iter().enumerate() {
        let e = bloscpack::pack(b"some data", p, Some(b"{}")).unwrap_err();
        assert!(e.code() < 0, "{i}: {e}");
    }
    // max_app_chunks is clamped to what the header can hold
    let p = PackParams {
        max_app_chunks: Some(u64::MAX),
        chunk_size: 10,
        ..PackParams::default()
    };
    let f = bloscpack::pack(&[1; 25], &p, None);
    // 2^63 - 4 spare entries do not fit in a file: the header refuses such a table
    assert!(f.is_err());
    assert_eq!(calculate_nchunks(25, 10).unwrap(), (3, 10, 5));
}

/// The number of chunks bloscpack's append adds.
fn chunks_added(file: &[u8], len: usize) -> u64 {
    let h = *Reader::new(file).unwrap().header();
    let fill = (h.chunk_size - h.last_chunk) as usize;
    if len <= fill {
        0
    } else {
        (len - fill).div_ceil(h.chunk_size as usize) as u64
    }
}

#[test]
fn append_in_place() {
    let scratch = Scratch::new("bloscpack", "append");
    let path = scratch.path("a.blp");
    let mut data = mixed(5000, 21);
    let p = PackParams {
        chunk_size: 1024,
        max_app_chunks: Some(8),
        cparams: cparams(5, 5, 4, filter_id::SHUFFLE),
        ..PackParams::default()
    };
    fs::write(
        &path,
        bloscpack::pack(&data, &p, Some(b"{\"m\":0}")).unwrap(),
    )
    .unwrap();
    let mut added = 0;
    for add in [100usize, 0, 3000, 1024, 1, 91] {
        let extra = mixed(add, add as u64);
        let k = chunks_added(&fs::read(&path).unwrap(), add);
        assert_eq!(append_file(&path, &extra, None).unwrap(), k, "append {add}");
        added += k;
        data.extend(&extra);
        let file = fs::read(&path).unwrap();
        read_every_way(&file, &data, Some(b"{\"m\":0}")).unwrap();
    }
    let r = Reader::new(BufReader::new(fs::File::open(&path).unwrap())).unwrap();
    assert_eq!(added, 4);
    assert_eq!(
        (
            r.header().nchunks,
            r.header().max_app_chunks,
            r.header().last_chunk
        ),
        (9, 4, 1024)
    );
    // not enough space: nothing changes
    let before = fs::read(&path).unwrap();
    let e = append_file(&path, &mixed(5 * 1024, 1), None).unwrap_err();
    assert!(
        matches!(
            e,
            Error::NotEnoughSpace {
                needed: 5,
                available: 4
            }
        ),
        "{e}"
    );
    assert_eq!(e.code(), b2rs::Error::ChunkAppend.code());
    assert_eq!(fs::read(&path).unwrap(), before);
    // other Blosc parameters for the new chunks
    let extra = ramp(2000, 1);
    append_file(
        &path,
        &extra,
        Some(&cparams(4, 9, 8, filter_id::BITSHUFFLE)),
    )
    .unwrap();
    data.extend(&extra);
    read_every_way(&fs::read(&path).unwrap(), &data, Some(b"{\"m\":0}")).unwrap();

    // no offsets table, old versions, corrupt last chunk: refused, file unchanged
    let nooff = scratch.path("b.blp");
    let p = PackParams {
        offsets: false,
        ..PackParams::default()
    };
    fs::write(&nooff, bloscpack::pack(&data, &p, None).unwrap()).unwrap();
    assert!(matches!(
        append_file(&nooff, b"x", None),
        Err(Error::InvalidParam(_))
    ));
    let p = PackParams {
        chunk_size: 1024,
        max_app_chunks: Some(0),
        ..PackParams::default()
    };
    let mut v2 = bloscpack::pack(&data, &p, None).unwrap();
    v2[4] = 2;
    let v2p = scratch.path("v2.blp");
    fs::write(&v2p, &v2).unwrap();
    assert!(matches!(
        append_file(&v2p, b"x", None),
        Err(Error::UnsupportedVersion(2))
    ));
    let mut corrupt = fs::read(&path).unwrap();
    let r = Reader::new(corrupt.as_slice()).unwrap();
    let n = r.header().nchunks as usize;
    let last = r.offsets()[n - 1] as usize;
    corrupt[last + 20] ^= 1;
    fs::write(&path, &corrupt).unwrap();
    match append_file(&path, b"x", None) {
        Err(Error::ChunkChecksum { chunk }) => assert_eq!(chunk, n as u64 - 1),
        other => panic!("{other:?}"),
    }
    assert_eq!(fs::read(&path).unwrap(), corrupt);
}

#[test]
fn rewrite_metadata_in_place() {
    let scratch = Scratch::new("bloscpack", "meta");
    let path = scratch.path("m.blp");
    let data = mixed(3000, 2);
    fs::write(
        &path,
        bloscpack::pack(&data, &params(1000), Some(br#"{"a":1,"b":"xyz"}"#)).unwrap(),
    )
    .unwrap();
    let len = fs::metadata(&path).unwrap().len();
    let new = br#"{"a":2,"b":"a longer value than before, but it still fits","c":[1,2,3,4,5,6]}"#;
    rewrite_metadata_file(&path, new, None).unwrap();
    assert_eq!(fs::metadata(&path).unwrap().len(), len);
    let file = fs::read(&path).unwrap();
    read_every_way(&file, &data, Some(new)).unwrap();
    let r = Reader::new(file.as_slice()).unwrap();
    let mh = r.metadata().unwrap().header;
    assert_eq!(mh.max_meta_size, 170);
    // too large
    let huge = format!("{{\"k\":\"{}\"}}", "ab".repeat(200));
    let huge_random: String = {
        let mut rng = Rng::new(5);
        (0..400)
            .map(|_| (b'a' + rng.below(26) as u8) as char)
            .collect()
    };
    let e = rewrite_metadata_file(
        &path,
        format!("{{\"k\":\"{huge_random}\"}}").as_bytes(),
        None,
    )
    .unwrap_err();
    assert!(matches!(e, Error::MetadataTooLarge { .. }), "{e}");
    // highly compressible: fits thanks to zlib
    rewrite_metadata_file(&path, huge.as_bytes(), None).unwrap();
    let r = Reader::new(BufReader::new(fs::File::open(&path).unwrap())).unwrap();
    assert_eq!(r.metadata().unwrap().header.meta_codec, MetaCodec::Zlib);
    assert_eq!(r.metadata().unwrap().data, huge.as_bytes());
    // checksum of another digest size
    let p = MetadataParams {
        checksum: Checksum::Sha256,
        ..MetadataParams::default()
    };
    assert!(rewrite_metadata_file(&path, b"{}", Some(&p)).is_err());
    let p = MetadataParams {
        checksum: Checksum::Crc32,
        codec: MetaCodec::None,
        ..MetadataParams::default()
    };
    rewrite_metadata_file(&path, b"{}", Some(&p)).unwrap();
    read_every_way(&fs::read(&path).unwrap(), &data, Some(b"{}")).unwrap();
}

// ---------------------------------------------------------------------------
// interoperability with the Python bloscpack package

const HELPER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/bloscpack_helper.py");

fn python_exe() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_string())
}

/// Whether the Python packages can be used; skips (or, on CI, fails) the test otherwise.
fn python(test: &str) -> bool {
    static CHECK: OnceLock<Result<String, String>> = OnceLock::new();
    let r = CHECK.get_or_init(|| {
        let out = common::run_cmd(
            Command::new(python_exe()).arg(HELPER).arg("check"),
            Duration::from_secs(120),
        );
        if out.ok() {
            Ok(out.stdout.trim().to_string())
        } else {
            Err(out.describe())
        }
    });
    match r {
        Ok(v) => {
            println!("{test}: using {v}");
            true
        }
        Err(e) => {
            let msg = format!(
                "the Python packages bloscpack 0.16 + python-blosc 1.x are not importable \
                 (tools/fetch-reference.sh installs them: pip install bloscpack blosc): {e}"
            );
            if std::env::var_os("CI").is_some() {
                panic!("{test}: {msg}");
            }
            common::skip(test, &msg);
            false
        }
    }
}

fn run_helper(cmd: &str, plan: &str, dir: &Path) {
    let plan_path = dir.join(format!("plan-{cmd}.json"));
    fs::write(&plan_path, plan).unwrap();
    let out = common::run_cmd(
        Command::new(python_exe())
            .arg(HELPER)
            .arg(cmd)
            .arg(&plan_path)
            .arg(dir),
        Duration::from_secs(900),
    );
    assert!(
        out.ok(),
        "bloscpack_helper.py {cmd}: {}\n{}",
        out.describe(),
        out.stderr
    );
}

fn jstr(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// A file for bloscpack to write.
#[derive(Clone, Debug)]
struct PyCase {
    name: String,
    kind: &'static str,
    size: usize,
    seed: u64,
    chunk_size: usize,
    typesize: u8,
    clevel: u8,
    shuffle: u8,
    cname: &'static str,
    checksum: &'static str,
    offsets: bool,
    max_app_chunks: Option<i64>,
    metadata: Option<&'static str>,
    meta_checksum: Option<&'static str>,
    meta_codec: Option<&'static str>,
    meta_level: Option<u8>,
    max_meta_size: Option<u32>,
    appends: Vec<usize>,
    ndarray: bool,
    fortran: bool,
}

impl PyCase {
    fn new(name: impl Into<String>, size: usize) -> PyCase {
        PyCase {
            name: name.into(),
            kind: "mixed",
            size,
            seed: 1,
            chunk_size: 1 << 20,
            typesize: 8,
            clevel: 7,
            shuffle: 1,
            cname: "blosclz",
            checksum: "adler32",
            offsets: true,
            max_app_chunks: None,
            metadata: None,
            meta_checksum: None,
            meta_codec: None,
            meta_level: None,
            max_meta_size: None,
            appends: Vec::new(),
            ndarray: false,
            fortran: false,
        }
    }

    fn json(&self) -> String {
        let mut f = vec![
            format!("\"name\":{}", jstr(&self.name)),
            format!("\"kind\":{}", jstr(self.kind)),
            format!("\"size\":{}", self.size),
            format!("\"seed\":{}", self.seed),
            format!("\"chunk_size\":{}", self.chunk_size),
            format!("\"typesize\":{}", self.typesize),
            format!("\"clevel\":{}", self.clevel),
            format!("\"shuffle\":{}", self.shuffle),
            format!("\"cname\":{}", jstr(self.cname)),
            format!("\"checksum\":{}", jstr(self.checksum)),
            format!("\"offsets\":{}", self.offsets),
            format!("\"ndarray\":{}", self.ndarray),
            format!("\"fortran\":{}", self.fortran),
            format!(
                "\"appends\":[{}]",
                self.appends
                    .iter()
                    .map(|a| a.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        ];
        if let Some(v) = self.max_app_chunks {
            f.push(format!("\"max_app_chunks\":{v}"));
        }
        if let Some(v) = self.metadata {
            f.push(format!("\"metadata\":{v}"));
        }
        if let Some(v) = self.meta_checksum {
            f.push(format!("\"meta_checksum\":{}", jstr(v)));
        }
        if let Some(v) = self.meta_codec {
            f.push(format!("\"meta_codec\":{}", jstr(v)));
        }
        if let Some(v) = self.meta_level {
            f.push(format!("\"meta_level\":{v}"));
        }
        if let Some(v) = self.max_meta_size {
            f.push(format!("\"max_meta_size\":{v}"));
        }
        format!("{{{}}}", f.join(","))
    }

    fn label(&self) -> String {
        format!(
            "{:<8} shuffle {} ts {:<3} clevel {} {:<8} size {:<7} chunk {:<7} offsets {:<5} max_app {:<5} meta {:<5} appends {:?}{}",
            self.cname,
            self.shuffle,
            self.typesize,
            self.clevel,
            self.checksum,
            self.size,
            self.chunk_size,
            self.offsets,
            self.max_app_chunks.map_or("dflt".into(), |v| v.to_string()),
            self.metadata.is_some(),
            self.appends,
            if self.ndarray { " ndarray" } else { "" }
        )
    }
}

fn plan_json<'a>(items: impl Iterator<Item = String> + 'a) -> String {
    format!("[{}]", items.collect::<Vec<_>>().join(",\n"))
}

const CHECKSUM_NAMES: [&str; 9] = [
    "None", "adler32", "crc32", "md5", "sha1", "sha224", "sha256", "sha384", "sha512",
];

/// A named change of a case's metadata parameters.
type MetaVariant = (&'static str, Box<dyn Fn(&mut PyCase)>);

fn py_cases() -> Vec<PyCase> {
    let mut v = Vec::new();
    let mut n = 0u64;
    // codecs x shuffle modes x typesizes
    for (_, cname) in CODECS {
        for shuffle in [0u8, 1, 2] {
            for typesize in [1u8, 2, 3, 4, 8, 16, 24] {
                n += 1;
                let mut c = PyCase::new(format!("codec-{cname}-s{shuffle}-t{typesize}"), 150_001);
                c.cname = cname;
                c.shuffle = shuffle;
                c.typesize = typesize;
                c.clevel = (n % 10) as u8;
                c.chunk_size = 65536;
                c.seed = n;
                c.kind = ["mixed", "ramp", "text"][n as usize % 3];
                v.push(c);
            }
        }
    }
    // checksums, with and without offsets
    for (i, name) in CHECKSUM_NAMES.iter().enumerate() {
        for offsets in [true, false] {
            let mut c = PyCase::new(format!("checksum-{name}-{offsets}"), 30_000 + i);
            c.checksum = name;
            c.offsets = offsets;
            c.chunk_size = 8192;
            c.seed = i as u64;
            v.push(c);
        }
    }
    // metadata
    let meta_variants: Vec<MetaVariant> = vec![
        ("small", Box::new(|c| c.metadata = Some(r#"{"a":1}"#))),
        (
            "compressible",
            Box::new(|c| {
                c.metadata = Some(
                    r#"{"dtype":"'<f8'","shape":[1000,300],"order":"C","container":"numpy","note":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}"#,
                )
            }),
        ),
        (
            "nocodec",
            Box::new(|c| {
                c.metadata =
                    Some(r#"{"list":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]}"#);
                c.meta_codec = Some("None");
            }),
        ),
        (
            "level0",
            Box::new(|c| {
                c.metadata =
                    Some(r#"{"b":[true,false,null],"s":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}"#);
                c.meta_level = Some(0);
            }),
        ),
        (
            "level9",
            Box::new(|c| {
                c.metadata =
                    Some(r#"{"b":[true,false,null],"s":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}"#);
                c.meta_level = Some(9);
            }),
        ),
        (
            "maxsize",
            Box::new(|c| {
                c.metadata = Some(r#"{"nested":{"k":[1.5,-2,"x"]}}"#);
                c.max_meta_size = Some(1000);
            }),
        ),
        (
            "exactsize",
            Box::new(|c| {
                c.metadata = Some(r#"{"z":"0123456789"}"#);
                c.meta_codec = Some("None");
                c.max_meta_size = Some(18);
            }),
        ),
        (
            "unicode",
            Box::new(|c| c.metadata = Some(r#"{"\u00e9t\u00e9":"\u65e5\u672c"}"#)),
        ),
        ("empty", Box::new(|c| c.metadata = Some("{}"))),
    ];
    for (name, f) in &meta_variants {
        let mut c = PyCase::new(format!("meta-{name}"), 20_000);
        c.chunk_size = 6000;
        f(&mut c);
        v.push(c);
    }
    for name in CHECKSUM_NAMES {
        let mut c = PyCase::new(format!("metacheck-{name}"), 1000);
        c.metadata = Some(r#"{"checked":"yes","n":12345}"#);
        c.meta_checksum = Some(name);
        v.push(c);
    }
    // max_app_chunks and offsets
    for (i, m) in [Some(0), Some(1), Some(7), None].into_iter().enumerate() {
        let mut c = PyCase::new(format!("maxapp-{i}"), 10_000);
        c.chunk_size = 3000;
        c.max_app_chunks = m;
        v.push(c);
    }
    // sizes
    for (i, (size, chunk, kind)) in [
        (0usize, 1usize << 20, "mixed"),
        (1, 1 << 20, "mixed"),
        (7, 1 << 20, "text"),
        (127, 1 << 20, "ramp"),
        (128, 1 << 20, "ramp"),
        (129, 64, "ramp"),
        (4096, 1024, "mixed"),
        (4095, 4096, "mixed"),
        (50, 1, "text"),
        (3_000_000, 1 << 20, "random"),
        (2_500_000, 1 << 20, "zeros"),
        (600, 256, "cycle200"),
    ]
    .into_iter()
    .enumerate()
    {
        let mut c = PyCase::new(format!("size-{i}"), size);
        c.chunk_size = chunk;
        c.kind = kind;
        v.push(c);
    }
    // appended files
    for (i, (size, chunk, appends, cname)) in [
        (5000usize, 1024usize, vec![100usize], "blosclz"),
        (5000, 1024, vec![5000], "lz4"),
        (4096, 1024, vec![10, 20_000, 1], "zstd"),
        (100, 1 << 20, vec![0, 50], "zlib"),
        (3000, 1000, vec![1000, 999], "lz4hc"),
    ]
    .into_iter()
    .enumerate()
    {
        let mut c = PyCase::new(format!("append-{i}"), size);
        c.chunk_size = chunk;
        c.appends = appends;
        c.cname = cname;
        c.typesize = 4;
        if i == 2 {
            c.metadata = Some(r#"{"appended":true}"#);
            c.checksum = "sha256";
        }
        v.push(c);
    }
    // NumPy arrays
    for fortran in [false, true] {
        let mut c = PyCase::new(format!("ndarray-{fortran}"), 80_000);
        c.ndarray = true;
        c.fortran = fortran;
        c.chunk_size = 16_384;
        c.kind = "ramp";
        v.push(c);
    }
    v
}

/// Check the files the helper wrote (`.blp`, `.raw`, `.meta`) with the b2rs reader.
fn check_python_file(dir: &Path, name: &str) -> Result<(), String> {
    if let Ok(e) = fs::read_to_string(dir.join(format!("{name}.err"))) {
        return Err(format!("bloscpack failed to write it: {e}"));
    }
    let file = fs::read(dir.join(format!("{name}.blp"))).map_err(|e| e.to_string())?;
    let raw = fs::read(dir.join(format!("{name}.raw"))).map_err(|e| e.to_string())?;
    let meta = fs::read(dir.join(format!("{name}.meta"))).ok();
    read_every_way(&file, &raw, meta.as_deref())
}

fn write_summary(name: &str, text: &str) {
    let path = common::profile_dir().join(name);
    let _ = fs::write(&path, text);
    println!("{text}");
}

#[test]
fn python_writes_b2rs_reads() {
    if !python("python_writes_b2rs_reads") {
        return;
    }
    let scratch = Scratch::new("bloscpack", "py2rs");
    let cases = py_cases();
    run_helper(
        "write",
        &plan_json(cases.iter().map(|c| c.json())),
        &scratch.dir,
    );
    let mut report = String::from("bloscpack (Python) writes, b2rs reads:\n");
    let mut failures = Vec::new();
    for c in &cases {
        let r = check_python_file(&scratch.dir, &c.name);
        let _ = writeln!(
            report,
            "  {:<28} {}  {}",
            c.name,
            if r.is_ok() { "ok  " } else { "FAIL" },
            c.label()
        );
        if let Err(e) = r {
            failures.push(format!("{}: {e}", c.name));
        }
    }
    let _ = writeln!(
        report,
        "  {} files, {} failures",
        cases.len(),
        failures.len()
    );
    write_summary("bloscpack-py2rs.txt", &report);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A file for b2rs to write and bloscpack to read.
struct OursCase {
    name: String,
    data: Vec<u8>,
    params: PackParams,
    metadata: Option<String>,
    /// What bloscpack's JSON round trip of the metadata gives, when it differs.
    python_meta: Option<&'static str>,
    how: How,
    ndarray: bool,
    label: String,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum How {
    Memory,
    Pieces,
    UnknownSize,
    File,
}

impl OursCase {
    fn new(name: impl Into<String>, data: Vec<u8>, params: PackParams) -> OursCase {
        OursCase {
            name: name.into(),
            data,
            params,
            metadata: None,
            python_meta: None,
            how: How::Memory,
            ndarray: false,
            label: String::new(),
        }
    }

    fn write(&self, dir: &Path) -> Result<(), Error> {
        let path = dir.join(format!("{}.blp", self.name));
        let meta = self.metadata.as_deref().map(str::as_bytes);
        match self.how {
            How::Memory => {
                let f = bloscpack::pack(&self.data, &self.params, meta)?;
                fs::write(&path, f).map_err(Error::Write)
            }
            How::Pieces | How::UnknownSize => {
                let total = (self.how == How::Pieces).then_some(self.data.len() as u64);
                let file = fs::File::create(&path).map_err(Error::Write)?;
                let mut w = Writer::new(std::io::BufWriter::new(file), &self.params, total, meta)?;
                for piece in self.data.chunks(12_345) {
                    w.write_data(piece)?;
                }
                w.finish()?;
                Ok(())
            }
            How::File => {
                let src = dir.join(format!("{}.src", self.name));
                fs::write(&src, &self.data).map_err(Error::Write)?;
                bloscpack::pack_file(&src, &path, &self.params, meta)?;
                Ok(())
            }
        }
    }
}

fn ours_cases() -> Vec<OursCase> {
    let mut v = Vec::new();
    let mut n = 0u64;
    for (compcode, cname) in CODECS {
        for shuffle in [0u8, filter_id::SHUFFLE, filter_id::BITSHUFFLE] {
            for typesize in [1i32, 2, 3, 4, 8, 16, 24] {
                n += 1;
                let clevel = (n % 10) as u8;
                let data = match n % 3 {
                    0 => mixed(150_001, n),
                    1 => ramp(150_001, n),
                    _ => random(150_001, n),
                };
                let p = PackParams {
                    cparams: cparams(compcode, clevel, typesize, shuffle),
                    chunk_size: 65536,
                    ..PackParams::default()
                };
                let mut c = OursCase::new(format!("codec-{cname}-s{shuffle}-t{typesize}"), data, p);
                c.label = format!("{cname:<8} shuffle {shuffle} ts {typesize:<3} clevel {clevel}");
                v.push(c);
            }
        }
    }
    for (i, checksum) in Checksum::ALL.into_iter().enumerate() {
        for offsets in [true, false] {
            let p = PackParams {
                checksum,
                offsets,
                chunk_size: 8192,
                ..PackParams::default()
            };
            let mut c = OursCase::new(
                format!("checksum-{checksum}-{offsets}"),
                mixed(30_000 + i, i as u64),
                p,
            );
            c.label = format!("checksum {checksum} offsets {offsets}");
            v.push(c);
        }
    }
    let metas: [(&str, &str, MetadataParams); 9] = [
        ("small", r#"{"a":1}"#, MetadataParams::default()),
        (
            "compressible",
            r#"{"dtype":"'<f8'","shape":[1000,300],"order":"C","container":"numpy","note":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}"#,
            MetadataParams::default(),
        ),
        (
            "nocodec",
            r#"{"list":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20]}"#,
            MetadataParams {
                codec: MetaCodec::None,
                ..MetadataParams::default()
            },
        ),
        (
            "level0",
            r#"{"s":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}"#,
            MetadataParams {
                level: 0,
                ..MetadataParams::default()
            },
        ),
        (
            "level9-sha512",
            r#"{"s":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}"#,
            MetadataParams {
                level: 9,
                checksum: Checksum::Sha512,
                ..MetadataParams::default()
            },
        ),
        (
            "maxsize-md5",
            r#"{"nested":{"k":[1.5,-2,"x"]}}"#,
            MetadataParams {
                max_meta_size: Some(1000),
                checksum: Checksum::Md5,
                ..MetadataParams::default()
            },
        ),
        (
            "exact-nochecksum",
            r#"{"z":"0123456789"}"#,
            MetadataParams {
                max_meta_size: Some(18),
                codec: MetaCodec::None,
                checksum: Checksum::None,
                ..MetadataParams::default()
            },
        ),
        (
            "unicode",
            "{\"\u{e9}t\u{e9}\":\"\u{65e5}\u{672c}\"}",
            MetadataParams::default(),
        ),
        ("empty", "{}", MetadataParams::default()),
    ];
    for (name, json, mp) in metas {
        let p = PackParams {
            chunk_size: 6000,
            metadata: mp,
            ..PackParams::default()
        };
        let mut c = OursCase::new(format!("meta-{name}"), mixed(20_000, 3), p);
        c.metadata = Some(json.to_string());
        if name == "unicode" {
            c.python_meta = Some(r#"{"\u00e9t\u00e9":"\u65e5\u672c"}"#);
        }
        c.label = format!("metadata {name} {mp:?}");
        v.push(c);
    }
    for (i, m) in [Some(0u64), Some(1), Some(7), None].into_iter().enumerate() {
        let p = PackParams {
            chunk_size: 3000,
            max_app_chunks: m,
            ..PackParams::default()
        };
        let mut c = OursCase::new(format!("maxapp-{i}"), mixed(10_000, 9), p);
        c.label = format!("max_app_chunks {m:?}");
        v.push(c);
    }
    for (i, (size, chunk, kind)) in [
        (0usize, 1usize << 20, 0),
        (1, 1 << 20, 0),
        (7, 1 << 20, 1),
        (31, 1 << 20, 1),
        (32, 1 << 20, 1),
        (127, 1 << 20, 1),
        (128, 1 << 20, 1),
        (129, 64, 1),
        (4096, 1024, 0),
        (4095, 4096, 0),
        (50, 1, 0),
        (3_000_000, 1 << 20, 2),
        (2_500_000, 1 << 20, 3),
    ]
    .into_iter()
    .enumerate()
    {
        let data = match kind {
            0 => mixed(size, i as u64),
            1 => ramp(size, i as u64),
            2 => random(size, i as u64),
            _ => vec![0u8; size],
        };
        let mut c = OursCase::new(format!("size-{i}"), data, params(chunk));
        c.label = format!("size {size} chunk {chunk}");
        v.push(c);
    }
    for (i, how) in [How::Pieces, How::UnknownSize, How::File]
        .into_iter()
        .enumerate()
    {
        let p = PackParams {
            chunk_size: 50_000,
            offsets: how != How::UnknownSize,
            ..PackParams::default()
        };
        let mut c = OursCase::new(format!("how-{i}"), mixed(234_567, 4), p);
        c.how = how;
        c.metadata = Some(r#"{"how":"streamed"}"#.into());
        c.label = format!("{how:?}");
        v.push(c);
    }
    for (i, nthreads) in [2i16, 4].into_iter().enumerate() {
        let mut cp = cparams([5, 0][i], 5, 8, filter_id::SHUFFLE);
        cp.nthreads = nthreads;
        let p = PackParams {
            chunk_size: 300_000,
            cparams: cp,
            ..PackParams::default()
        };
        let mut c = OursCase::new(format!("threads-{nthreads}"), mixed(700_001, 6), p);
        c.label = format!("{nthreads} threads per chunk");
        v.push(c);
    }
    for order in ["C", "F"] {
        let p = PackParams {
            chunk_size: 16_384,
            cparams: cparams(0, 7, 8, filter_id::SHUFFLE),
            ..PackParams::default()
        };
        let data: Vec<u8> = (0..10_000)
            .flat_map(|i| (i as f64 * 0.5).to_le_bytes())
            .collect();
        let mut c = OursCase::new(format!("ndarray-{order}"), data, p);
        c.metadata = Some(format!(
            r#"{{"dtype":"'<f8'","shape":[2500,4],"order":"{order}","container":"numpy"}}"#
        ));
        c.ndarray = true;
        c.label = format!("NumPy float64 (2500, 4) order {order}");
        v.push(c);
    }
    v
}

fn check_python_read(dir: &Path, c: &OursCase) -> Result<(), String> {
    if let Ok(e) = fs::read_to_string(dir.join(format!("{}.err", c.name))) {
        return Err(format!("bloscpack failed to read it: {e}"));
    }
    let out = fs::read(dir.join(format!("{}.out", c.name))).map_err(|e| e.to_string())?;
    if out != c.data {
        return Err(format!(
            "bloscpack read {} bytes that differ from the {} written",
            out.len(),
            c.data.len()
        ));
    }
    let meta =
        fs::read_to_string(dir.join(format!("{}.outmeta", c.name))).map_err(|e| e.to_string())?;
    let want = c
        .python_meta
        .map(str::to_string)
        .or_else(|| c.metadata.clone())
        .unwrap_or_else(|| "null".into());
    if meta != want {
        return Err(format!(
            "bloscpack read the metadata {meta}, expected {want}"
        ));
    }
    Ok(())
}

#[test]
fn b2rs_writes_python_reads() {
    if !python("b2rs_writes_python_reads") {
        return;
    }
    let scratch = Scratch::new("bloscpack", "rs2py");
    let cases = ours_cases();
    for c in &cases {
        c.write(&scratch.dir)
            .unwrap_or_else(|e| panic!("{}: b2rs cannot write it: {e}", c.name));
        // and b2rs reads its own file
        let file = fs::read(scratch.dir.join(format!("{}.blp", c.name))).unwrap();
        read_every_way(&file, &c.data, c.metadata.as_deref().map(str::as_bytes))
            .unwrap_or_else(|e| panic!("{}: {e}", c.name));
    }
    let plan = plan_json(
        cases
            .iter()
            .map(|c| format!("{{\"name\":{},\"ndarray\":{}}}", jstr(&c.name), c.ndarray)),
    );
    run_helper("read", &plan, &scratch.dir);
    let mut report = String::from("b2rs writes, bloscpack (Python) reads:\n");
    let mut failures = Vec::new();
    for c in &cases {
        let r = check_python_read(&scratch.dir, c);
        let _ = writeln!(
            report,
            "  {:<28} {}  {} size {} chunk {} {} offsets {} {:?}",
            c.name,
            if r.is_ok() { "ok  " } else { "FAIL" },
            c.label,
            c.data.len(),
            c.params.chunk_size,
            c.params.checksum,
            c.params.offsets,
            c.how
        );
        if let Err(e) = r {
            failures.push(format!("{}: {e}", c.name));
        }
    }
    let _ = writeln!(
        report,
        "  {} files, {} failures",
        cases.len(),
        failures.len()
    );
    write_summary("bloscpack-rs2py.txt", &report);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn appends_across_implementations() {
    if !python("appends_across_implementations") {
        return;
    }
    let scratch = Scratch::new("bloscpack", "appends");
    let dir = &scratch.dir;
    let mut report = String::from("appends across bloscpack (Python) and b2rs:\n");

    // 1. bloscpack writes, b2rs appends; both read
    let mut base = Vec::new();
    for (i, (size, chunk, max_app, meta)) in [
        (5000usize, 1024usize, None, false),
        (4096, 1024, None, true),
        (3000, 1000, Some(1), false),
        (100, 1 << 20, None, true),
    ]
    .into_iter()
    .enumerate()
    {
        let mut c = PyCase::new(format!("pyfile-{i}"), size);
        c.chunk_size = chunk;
        c.max_app_chunks = max_app;
        c.typesize = 4;
        if meta {
            c.metadata = Some(r#"{"origin":"python"}"#);
            c.checksum = "sha1";
        }
        base.push(c);
    }
    run_helper("write", &plan_json(base.iter().map(|c| c.json())), dir);
    let adds: [&[usize]; 4] = [&[100, 5000], &[1, 1023, 2048], &[1000], &[0, 50, 300]];
    let mut expected: Vec<(String, Vec<u8>, Option<Vec<u8>>)> = Vec::new();
    for (c, adds) in base.iter().zip(adds) {
        let path = dir.join(format!("{}.blp", c.name));
        let mut data = fs::read(dir.join(format!("{}.raw", c.name))).unwrap();
        let meta = fs::read(dir.join(format!("{}.meta", c.name))).ok();
        for (j, &a) in adds.iter().enumerate() {
            let extra = mixed(a, j as u64 + 77);
            let r = append_file(&path, &extra, None);
            let _ = writeln!(report, "  b2rs appends {a} bytes to {}: {r:?}", c.name);
            r.unwrap_or_else(|e| panic!("{}: append {a}: {e}", c.name));
            data.extend(extra);
        }
        read_every_way(&fs::read(&path).unwrap(), &data, meta.as_deref())
            .unwrap_or_else(|e| panic!("{}: {e}", c.name));
        expected.push((c.name.clone(), data, meta));
    }
    // not enough room: refused, unchanged
    let path = dir.join("pyfile-2.blp");
    let before = fs::read(&path).unwrap();
    let e = append_file(&path, &mixed(3000, 1), None).unwrap_err();
    assert!(matches!(e, Error::NotEnoughSpace { .. }), "{e}");
    assert_eq!(fs::read(&path).unwrap(), before);
    let _ = writeln!(
        report,
        "  b2rs appends 3000 bytes to pyfile-2: {e} (file unchanged)"
    );

    // 2. b2rs writes, bloscpack appends
    let mut ours = Vec::new();
    for (i, (size, chunk, checksum, meta)) in [
        (5000usize, 1024usize, Checksum::Adler32, None),
        (4096, 1024, Checksum::Sha384, Some(r#"{"origin":"b2rs"}"#)),
        (77, 1 << 20, Checksum::Crc32, None),
    ]
    .into_iter()
    .enumerate()
    {
        let name = format!("rsfile-{i}");
        let data = mixed(size, i as u64 + 40);
        let p = PackParams {
            chunk_size: chunk,
            checksum,
            cparams: cparams(1, 5, 4, filter_id::SHUFFLE),
            ..PackParams::default()
        };
        let f = bloscpack::pack(&data, &p, meta.map(str::as_bytes)).unwrap();
        fs::write(dir.join(format!("{name}.blp")), f).unwrap();
        let extra = ramp([3000, 10, 500][i], i as u64);
        fs::write(dir.join(format!("{name}.add")), &extra).unwrap();
        let mut all = data.clone();
        all.extend(&extra);
        ours.push((name, all, meta.map(|m| m.as_bytes().to_vec())));
    }
    let plan = plan_json(
        ours.iter()
            .map(|(n, _, _)| format!("{{\"name\":{},\"cname\":\"zstd\",\"clevel\":3}}", jstr(n))),
    );
    run_helper("append", &plan, dir);
    for (name, data, meta) in &ours {
        if let Ok(e) = fs::read_to_string(dir.join(format!("{name}.err"))) {
            panic!("bloscpack cannot append to {name}: {e}");
        }
        read_every_way(
            &fs::read(dir.join(format!("{name}.blp"))).unwrap(),
            data,
            meta.as_deref(),
        )
        .unwrap_or_else(|e| panic!("{name} after bloscpack's append: {e}"));
        let _ = writeln!(report, "  bloscpack appends to {name}: ok, b2rs reads it");
    }

    // 3. b2rs appends to its own file; rewrites metadata of one of each
    let name = "rsfile-3".to_string();
    let mut data = mixed(10_000, 8);
    let p = PackParams {
        chunk_size: 4096,
        ..PackParams::default()
    };
    let path = dir.join(format!("{name}.blp"));
    fs::write(
        &path,
        bloscpack::pack(&data, &p, Some(br#"{"v":1}"#)).unwrap(),
    )
    .unwrap();
    for a in [5, 4091, 9000] {
        let extra = text_like(a);
        append_file(&path, &extra, None).unwrap();
        data.extend(extra);
    }
    rewrite_metadata_file(&path, br#"{"v":2,"w":"rewritten"}"#, None).unwrap();
    let meta = br#"{"v":2,"w":"rewritten"}"#.to_vec();
    read_every_way(&fs::read(&path).unwrap(), &data, Some(&meta)).unwrap();
    ours.push((name, data, Some(meta)));
    rewrite_metadata_file(&dir.join("pyfile-1.blp"), br#"{"origin":"b2rs"}"#, None).unwrap();
    expected[1].2 = Some(br#"{"origin":"b2rs"}"#.to_vec());

    // bloscpack reads everything
    let all: Vec<(String, Vec<u8>, Option<Vec<u8>>)> = expected.into_iter().chain(ours).collect();
    let plan = plan_json(
        all.iter()
            .map(|(n, _, _)| format!("{{\"name\":{}}}", jstr(n))),
    );
    run_helper("read", &plan, dir);
    let mut failures = Vec::new();
    for (name, data, meta) in &all {
        let r = (|| -> Result<(), String> {
            if let Ok(e) = fs::read_to_string(dir.join(format!("{name}.err"))) {
                return Err(format!("bloscpack cannot read it: {e}"));
            }
            let out = fs::read(dir.join(format!("{name}.out"))).map_err(|e| e.to_string())?;
            if &out != data {
                return Err("bloscpack reads other data".into());
            }
            let m = fs::read(dir.join(format!("{name}.outmeta"))).map_err(|e| e.to_string())?;
            let want = meta.clone().unwrap_or_else(|| b"null".to_vec());
            if m != want {
                return Err(format!(
                    "metadata {} instead of {}",
                    String::from_utf8_lossy(&m),
                    String::from_utf8_lossy(&want)
                ));
            }
            Ok(())
        })();
        let _ = writeln!(
            report,
            "  bloscpack reads {name}: {}",
            r.as_ref()
                .map_or_else(|e| format!("FAIL {e}"), |_| "ok".into())
        );
        if let Err(e) = r {
            failures.push(format!("{name}: {e}"));
        }
    }
    write_summary("bloscpack-appends.txt", &report);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn text_like(n: usize) -> Vec<u8> {
    b"the quick brown fox jumps over the lazy dog "
        .iter()
        .copied()
        .cycle()
        .take(n)
        .collect()
}

/// The worked example of BLOSCPACK.md §9, written by bloscpack, read by b2rs; and written by
/// b2rs with the same parameters.
#[test]
fn worked_example_of_the_spec() {
    if !python("worked_example_of_the_spec") {
        return;
    }
    let scratch = Scratch::new("bloscpack", "example");
    let mut c = PyCase::new("example", 600);
    c.kind = "cycle200";
    c.chunk_size = 256;
    c.metadata = Some(r#"{"a":1}"#);
    c.typesize = 1;
    c.clevel = 5;
    c.shuffle = 0;
    run_helper("write", &plan_json(std::iter::once(c.json())), &scratch.dir);
    let file = fs::read(scratch.path("example.blp")).unwrap();
    assert_eq!(file.len(), 1062);
    let data: Vec<u8> = (0..600).map(|i| (i % 200) as u8).collect();
    read_every_way(&file, &data, Some(br#"{"a":1}"#)).unwrap();
    let r = Reader::new(file.as_slice()).unwrap();
    let h = *r.header();
    assert_eq!(
        (
            h.chunk_size,
            h.last_chunk,
            h.nchunks,
            h.max_app_chunks,
            h.typesize
        ),
        (256, 88, 3, 30, 1)
    );
    assert_eq!(r.offsets(), &[0x192, 0x2a6, 0x3ba]);
    let m = r.metadata().unwrap().header;
    assert_eq!(
        (m.meta_codec, m.meta_level, m.max_meta_size),
        (MetaCodec::None, 6, 70)
    );
    assert_eq!(&file[0x86..0x8a], &[0x09, 0x02, 0x2a, 0x08]);
    assert!(file[0x9a + 8 * 2..0x192].iter().all(|&b| b == 0xff));

    // b2rs with the same parameters: same header, metadata and offsets table (the chunks are
    // memcpyed by both, with other header flags)
    let p = PackParams {
        chunk_size: 256,
        cparams: cparams(0, 5, 1, 0),
        ..PackParams::default()
    };
    let ours = bloscpack::pack(&data, &p, Some(br#"{"a":1}"#)).unwrap();
    fs::write(scratch.path("ours.blp"), &ours).unwrap();
    assert_eq!(ours.len(), file.len());
    assert_eq!(&ours[..0x192], &file[..0x192]);
    let ro = Reader::new(ours.as_slice()).unwrap();
    assert_eq!(ro.offsets(), r.offsets());
    // both memcpy the three chunks: only the flags (split bit) and so the checksums differ
    for &o in r.offsets() {
        let o = o as usize;
        let cbytes = u32::from_le_bytes(file[o + 12..o + 16].try_into().unwrap()) as usize;
        assert_eq!(&ours[o..o + 2], &file[o..o + 2]);
        assert_eq!(&ours[o + 3..o + cbytes], &file[o + 3..o + cbytes]);
        assert_eq!(ours[o + 2] & !0x10, file[o + 2] & !0x10);
    }
}
