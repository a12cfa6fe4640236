//! Opt-in per-chunk checksums (the `b2rs_crc32c` vlmetalayer, issue 45): kept current by every
//! change of the chunks in every storage kind (in memory, contiguous frame in memory or in a
//! file, sparse frame directory), kept after the frame is opened again, and a byte flipped
//! inside a chunk that still decodes is reported damaged.

mod common;

use b2rs::chunk::{self, header::Special, special::special_chunk};
use b2rs::frame::{Frame, FrameParams, Location, StdIo};
use b2rs::schunk::{ChunkCheck, Schunk, CHECKSUMS_VLMETA};
use b2rs::{codecs, CParams, DParams};
use common::Scratch;
use std::sync::Arc;

const ITEMS: usize = 1000;

fn cparams() -> CParams {
    CParams {
        compcode: codecs::LZ4,
        typesize: 4,
        ..CParams::default()
    }
}

/// Chunk data: 1000 u32 items, different per `seed`, compressible but not trivially.
fn data(seed: u32) -> Vec<u8> {
    (0..ITEMS as u32)
        .flat_map(|i| (seed.wrapping_mul(7919) ^ (i * 13 % 97)).to_le_bytes())
        .collect()
}

fn compress(seed: u32) -> Vec<u8> {
    let mut buf = vec![0u8; ITEMS * 4 + chunk::header::MAX_OVERHEAD];
    let n = chunk::compress(&cparams(), &data(seed), &mut buf).unwrap();
    buf.truncate(n);
    buf
}

fn zeros() -> Vec<u8> {
    let mut buf = vec![0u8; 32];
    let n = special_chunk(&cparams(), Special::Zero, ITEMS * 4, None, &mut buf).unwrap();
    buf.truncate(n);
    buf
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Memory,
    MemFrame,
    File,
    Dir,
}

fn location(kind: Kind, scratch: &Scratch) -> Option<Location> {
    match kind {
        Kind::Memory => None,
        Kind::MemFrame => Some(Location::Memory),
        Kind::File => Some(Location::File {
            path: scratch.path("c.b2frame"),
            offset: 0,
        }),
        Kind::Dir => Some(Location::Dir(scratch.path("s.b2frame"))),
    }
}

fn create(kind: Kind, scratch: &Scratch) -> Schunk {
    match location(kind, scratch) {
        None => Schunk::new(cparams(), DParams::default()),
        Some(loc) => {
            let fp = FrameParams::from_cparams(&cparams(), 1);
            let f = Frame::create(loc, &fp, Arc::new(StdIo)).unwrap();
            Schunk::with_frame(cparams(), DParams::default(), f)
        }
    }
}

fn reopen(kind: Kind, scratch: &Scratch, sc: Schunk) -> Schunk {
    match kind {
        Kind::Memory => sc,
        Kind::MemFrame => {
            let bytes = sc.to_cframe().unwrap();
            Schunk::from_frame(Frame::from_bytes(bytes).unwrap(), DParams::default())
        }
        Kind::File | Kind::Dir => {
            drop(sc);
            let loc = location(kind, scratch).unwrap();
            Schunk::from_frame(
                Frame::open(loc, Arc::new(StdIo)).unwrap(),
                DParams::default(),
            )
        }
    }
}

/// Every chunk intact, one checksum per chunk, and the data as expected.
fn check_all(sc: &mut Schunk, want: &[Option<u32>], what: &str) {
    assert!(sc.has_checksums(), "{what}");
    assert_eq!(sc.nchunks() as usize, want.len(), "{what}");
    let sums = sc.checksums().unwrap().unwrap();
    assert_eq!(sums.crcs().len(), want.len(), "{what}");
    let mut out = vec![0u8; ITEMS * 4];
    for (n, w) in want.iter().enumerate() {
        assert_eq!(
            sc.verify_chunk(n as i64).unwrap(),
            ChunkCheck::Intact,
            "{what}: chunk {n}"
        );
        sc.decompress_chunk(n as i64, &mut out).unwrap();
        let expect = match w {
            Some(seed) => data(*seed),
            None => vec![0u8; ITEMS * 4],
        };
        assert!(out == expect, "{what}: data of chunk {n}");
    }
}

fn changes_keep_checksums(kind: Kind) {
    let scratch = Scratch::new("checksums", &format!("{kind:?}"));
    let mut sc = create(kind, &scratch);
    sc.append_chunk(compress(1)).unwrap();
    assert!(sc.enable_checksums().unwrap());
    let mut want = vec![Some(1)];
    check_all(&mut sc, &want, "enabled");
    for s in 2..=5 {
        sc.append_chunk(compress(s)).unwrap();
        want.push(Some(s));
    }
    check_all(&mut sc, &want, "appended");
    sc.insert_chunk(2, compress(6)).unwrap();
    want.insert(2, Some(6));
    check_all(&mut sc, &want, "inserted");
    sc.update_chunk(0, compress(7)).unwrap();
    want[0] = Some(7);
    check_all(&mut sc, &want, "updated");
    sc.delete_chunk(3).unwrap();
    want.remove(3);
    check_all(&mut sc, &want, "deleted");
    sc.append_chunk(zeros()).unwrap();
    want.push(None);
    sc.update_chunk(1, zeros()).unwrap();
    want[1] = None;
    check_all(&mut sc, &want, "special chunks");
    sc.insert_chunk_run(2, 3, &compress(8)).unwrap();
    want.splice(2..2, [Some(8); 3]);
    check_all(&mut sc, &want, "run inserted");
    sc.delete_chunk_run(1, 2).unwrap();
    want.drain(1..3);
    check_all(&mut sc, &want, "run deleted");
    let n = want.len() as i64;
    let order: Vec<i64> = (0..n).rev().collect();
    sc.reorder_offsets(&order).unwrap();
    want.reverse();
    check_all(&mut sc, &want, "reordered");
    // the set_slice path (update of chunks through compression)
    sc.set_slice(0, ITEMS as i64, &data(9)).unwrap();
    want[0] = Some(9);
    check_all(&mut sc, &want, "set_slice");
    // a failed change leaves them as they were
    assert!(sc.update_chunk(100, compress(1)).is_err());
    assert!(sc.append_chunk(b"not a chunk".to_vec()).is_err());
    check_all(&mut sc, &want, "failed changes");

    let mut sc = reopen(kind, &scratch, sc);
    check_all(&mut sc, &want, "reopened");
    sc.append_chunk(compress(10)).unwrap();
    want.push(Some(10));
    sc.update_chunk(2, compress(11)).unwrap();
    want[2] = Some(11);
    sc.delete_chunk(0).unwrap();
    want.remove(0);
    check_all(&mut sc, &want, "changed after reopening");
    let mut sc = reopen(kind, &scratch, sc);
    check_all(&mut sc, &want, "reopened twice");
}

#[test]
fn changes_keep_checksums_in_memory() {
    changes_keep_checksums(Kind::Memory);
}

#[test]
fn changes_keep_checksums_in_a_memory_frame() {
    changes_keep_checksums(Kind::MemFrame);
}

#[test]
fn changes_keep_checksums_in_a_file() {
    changes_keep_checksums(Kind::File);
}

#[test]
fn changes_keep_checksums_in_a_sparse_frame() {
    changes_keep_checksums(Kind::Dir);
}

/// Flip one byte of `chunk`'s compressed blocks (from the end backwards) such that the chunk
/// still decodes to its full size, to other data than `want`; returns the position flipped.
pub fn decodable_flip(chunk: &[u8], want: &[u8]) -> usize {
    let mut out = vec![0u8; ITEMS * 4];
    for pos in (chunk::header::EXTENDED_HEADER_LENGTH + 8..chunk.len()).rev() {
        let mut c = chunk.to_vec();
        c[pos] ^= 0x20;
        let r = chunk::decompress(&DParams::default(), &c, &mut out, None);
        if r == Ok(ITEMS * 4) && out != want {
            return pos;
        }
    }
    panic!("no byte flip that still decodes");
}

/// A byte flipped inside a chunk's compressed bytes that still decodes is reported damaged;
/// the other chunks stay intact.
#[test]
fn a_flipped_byte_is_reported() {
    for kind in [Kind::File, Kind::Dir] {
        let scratch = Scratch::new("checksums", &format!("flip-{kind:?}"));
        let mut sc = create(kind, &scratch);
        for s in 0..4 {
            sc.append_chunk(compress(s)).unwrap();
        }
        sc.enable_checksums().unwrap();
        let victim = sc.get_chunk(2).unwrap().into_owned();
        let flip = decodable_flip(&victim, &data(2));
        drop(sc);
        let file = match kind {
            Kind::File => scratch.path("c.b2frame"),
            _ => {
                // the chunk files of a sparse frame are numbered in order of writing
                scratch.path("s.b2frame").join("00000002.chunk")
            }
        };
        let mut bytes = std::fs::read(&file).unwrap();
        let at = bytes
            .windows(victim.len())
            .position(|w| w == &victim[..])
            .unwrap();
        bytes[at + flip] ^= 0x20;
        std::fs::write(&file, &bytes).unwrap();
        let loc = location(kind, &scratch).unwrap();
        let mut sc = Schunk::from_frame(
            Frame::open(loc, Arc::new(StdIo)).unwrap(),
            DParams::default(),
        );
        let mut out = vec![0u8; ITEMS * 4];
        assert_eq!(sc.decompress_chunk(2, &mut out).unwrap(), ITEMS * 4);
        assert!(out != data(2), "the flip changes the data");
        for n in 0..4 {
            let got = sc.verify_chunk(n).unwrap();
            if n == 2 {
                assert!(
                    matches!(got, ChunkCheck::Damaged { .. }),
                    "{kind:?}: {got:?}"
                );
            } else {
                assert_eq!(got, ChunkCheck::Intact, "{kind:?}: chunk {n}");
            }
        }
        drop(sc);
        // salvage tells the damaged chunk by its checksum: zeroed, listed; the new frame
        // records the checksums of its own chunks
        let input = match kind {
            Kind::File => scratch.path("c.b2frame"),
            _ => scratch.path("s.b2frame"),
        };
        let out = scratch.path("salvaged.b2frame");
        let report = b2rs::salvage::salvage(&input, &out, false).unwrap();
        assert_eq!(report.recovered, [0, 1, 3], "{kind:?}: {report:?}");
        assert_eq!(report.lost.len(), 1);
        assert_eq!(report.lost[0].n, 2);
        assert!(report.lost[0].reason.contains("checksum"), "{report:?}");
        let mut sc = Schunk::from_frame(
            Frame::open_path(&out, 0, Arc::new(StdIo)).unwrap(),
            DParams::default(),
        );
        assert!(sc.has_checksums());
        let mut buf = vec![0u8; ITEMS * 4];
        for n in 0..4 {
            assert_eq!(
                sc.verify_chunk(n).unwrap(),
                ChunkCheck::Intact,
                "{kind:?}: {n}"
            );
            sc.decompress_chunk(n, &mut buf).unwrap();
            let want = if n == 2 {
                vec![0u8; ITEMS * 4]
            } else {
                data(n as u32)
            };
            assert!(buf == want, "{kind:?}: data of chunk {n}");
        }
    }
}

/// Special fills, copies, and a vlmetalayer copied from another super-chunk: the checksums
/// are those of the chunks of the super-chunk they sit in.
#[test]
fn fills_and_copies_record_their_own_chunks() {
    let scratch = Scratch::new("checksums", "fills");
    for kind in [Kind::Memory, Kind::MemFrame, Kind::File, Kind::Dir] {
        let mut sc = create(kind, &scratch);
        sc.enable_checksums().unwrap();
        sc.fill_special(5 * ITEMS as i64 + 10, 1, (ITEMS * 4) as i32)
            .unwrap();
        assert_eq!(sc.checksums().unwrap().unwrap().crcs().len(), 6);
        sc.update_chunk(1, compress(3)).unwrap();
        for n in 0..6 {
            assert_eq!(sc.verify_chunk(n).unwrap(), ChunkCheck::Intact, "{kind:?}");
        }
        // a memory super-chunk's special chunks stay intact once in a frame
        let back = Schunk::from_frame(
            Frame::from_bytes(sc.to_cframe().unwrap()).unwrap(),
            DParams::default(),
        );
        for n in 0..6 {
            assert_eq!(
                back.verify_chunk(n).unwrap(),
                ChunkCheck::Intact,
                "{kind:?}"
            );
        }
        // a copy recompressed with another codec records its own chunks
        let zstd = CParams {
            compcode: codecs::ZSTD,
            ..cparams()
        };
        let copy = sc.copy_with(zstd, DParams::default()).unwrap();
        assert!(copy.has_checksums());
        for n in 0..6 {
            assert_eq!(
                copy.verify_chunk(n).unwrap(),
                ChunkCheck::Intact,
                "{kind:?}"
            );
        }
        drop(sc);
        let _ = std::fs::remove_file(scratch.path("c.b2frame"));
        let _ = std::fs::remove_dir_all(scratch.path("s.b2frame"));
    }
    // the vlmetalayer written as any other: recorded from this super-chunk's chunks
    let mut sc = Schunk::new(cparams(), DParams::default());
    sc.append_chunk(compress(1)).unwrap();
    sc.vlmeta_add(CHECKSUMS_VLMETA, b"stale", &CParams::default())
        .unwrap();
    assert_eq!(sc.verify_chunk(0).unwrap(), ChunkCheck::Intact);
    assert!(sc
        .vlmeta_add(CHECKSUMS_VLMETA, b"", &CParams::default())
        .is_err());
    // deleting it turns them off
    sc.vlmeta_delete(CHECKSUMS_VLMETA).unwrap();
    assert!(!sc.has_checksums());
    sc.append_chunk(compress(2)).unwrap();
    assert_eq!(sc.verify_chunk(1).unwrap(), ChunkCheck::Unrecorded);
}

/// Chunks another library appended (the vlmetalayer not updated) are unrecorded; a chunk it
/// replaced shows as damaged.
#[test]
fn stale_checksums() {
    let mut sc = Schunk::new(cparams(), DParams::default());
    for s in 0..3 {
        sc.append_chunk(compress(s)).unwrap();
    }
    sc.enable_checksums().unwrap();
    let layer = sc.vlmetalayers()[0].content.clone();
    // what C-Blosc2 would leave: chunks changed, the vlmetalayer as it was
    let mut frame = Frame::from_bytes(sc.to_cframe().unwrap()).unwrap();
    frame.update_chunk(1, &compress(7)).unwrap();
    frame.append_chunk(&compress(8)).unwrap();
    assert_eq!(frame.vlmetalayers()[0].content, layer);
    let mut sc = Schunk::from_frame(frame, DParams::default());
    assert_eq!(sc.verify_chunk(0).unwrap(), ChunkCheck::Intact);
    assert!(matches!(
        sc.verify_chunk(1).unwrap(),
        ChunkCheck::Damaged { .. }
    ));
    assert_eq!(sc.verify_chunk(3).unwrap(), ChunkCheck::Unrecorded);
    // b2rs changes keep what is known in place
    sc.update_chunk(0, compress(9)).unwrap();
    sc.append_chunk(compress(10)).unwrap();
    assert_eq!(sc.verify_chunk(0).unwrap(), ChunkCheck::Intact);
    assert_eq!(sc.verify_chunk(4).unwrap(), ChunkCheck::Unrecorded);
}

/// A copy that keeps the chunks as they are keeps their checksums as recorded: a damaged chunk
/// stays damaged in the copy (a copy recompressing the chunks records its own).
#[test]
fn a_copy_as_is_keeps_the_damage_visible() {
    let p = CParams {
        clevel: 0,
        ..cparams()
    };
    let mut sc = Schunk::new(p.clone(), DParams::default());
    for s in 0..4 {
        sc.append_buffer(&data(s)).unwrap();
    }
    sc.enable_checksums().unwrap();
    let c = sc.get_chunk(2).unwrap().into_owned();
    let mut b = sc.to_cframe().unwrap();
    let at = b.windows(c.len()).position(|w| w == &c[..]).unwrap();
    b[at + c.len() - 5] ^= 0x40;
    let back = Schunk::from_frame(Frame::from_bytes(b).unwrap(), DParams::default());
    assert!(matches!(
        back.verify_chunk(2).unwrap(),
        ChunkCheck::Damaged { .. }
    ));
    let copy = back.copy_with(p, DParams::default()).unwrap();
    assert!(matches!(
        copy.verify_chunk(2).unwrap(),
        ChunkCheck::Damaged { .. }
    ));
    assert_eq!(copy.verify_chunk(1).unwrap(), ChunkCheck::Intact);
}

/// The reference python-blosc2 (and the C-Blosc2 inside it) opens checksummed frames, contiguous
/// and sparse, reads every chunk and the vlmetalayers unchanged, and unpacks the checksums'
/// vlmetalayer as a dict.
#[test]
fn python_blosc2_reads_checksummed_frames() {
    if !common::python_imports("blosc2") {
        common::skip("python_blosc2_reads_checksummed_frames", "no python blosc2");
        return;
    }
    let scratch = Scratch::new("checksums", "python");
    for kind in [Kind::File, Kind::Dir] {
        let mut sc = create(kind, &scratch);
        for s in 0..3 {
            sc.append_chunk(compress(s)).unwrap();
        }
        // "note": msgpack of the string "hello", as python-blosc2 writes it
        sc.vlmeta_add("note", b"\xa5hello", &CParams::default())
            .unwrap();
        sc.enable_checksums().unwrap();
        sc.append_chunk(zeros()).unwrap();
        let crcs = sc.checksums().unwrap().unwrap().crcs().to_vec();
        drop(sc);
        let path = match kind {
            Kind::File => scratch.path("c.b2frame"),
            _ => scratch.path("s.b2frame"),
        };
        let want: Vec<u8> = (0..3).flat_map(data).chain(vec![0u8; ITEMS * 4]).collect();
        std::fs::write(scratch.path("want.raw"), &want).unwrap();
        let crc_hex: String = crcs
            .iter()
            .flat_map(|c| c.to_le_bytes())
            .map(|b| format!("{b:02x}"))
            .collect();
        let script = format!(
            r#"
import blosc2, sys
s = blosc2.open({path:?})
want = open({raw:?}, "rb").read()
got = b"".join(s.decompress_chunk(i) for i in range(s.nchunks))
assert got == want, "chunks differ"
assert s.vlmeta["note"] == "hello"
v = s.vlmeta["b2rs_crc32c"]
assert v["version"] == 1, v
assert v["crc32c"].hex() == {crc_hex:?}, v
assert sorted(s.vlmeta.getall().keys()) == ["b2rs_crc32c", "note"]
print("ok")
"#,
            path = path.to_str().unwrap(),
            raw = scratch.path("want.raw").to_str().unwrap(),
        );
        let out = std::process::Command::new("python3")
            .arg("-c")
            .arg(&script)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{kind:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
