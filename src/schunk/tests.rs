use super::*;

fn params(typesize: i32) -> CParams {
    CParams {
        typesize,
        ..CParams::default()
    }
}

fn ramp(n: usize, seed: u32) -> Vec<u8> {
    (0..n / 4)
        .flat_map(|i| (i as u32).wrapping_mul(seed).to_le_bytes())
        .collect()
}

fn chunk_of(data: &[u8]) -> Vec<u8> {
    compress_chunk(&params(4), -1, data).unwrap()
}

#[test]
fn append_and_decompress() {
    let mut s = Schunk::new(params(4), DParams::default());
    assert_eq!(s.chunksize(), -1);
    for k in 0..3 {
        assert_eq!(s.append_buffer(&ramp(4000, k + 1)).unwrap(), k as i64 + 1);
    }
    assert_eq!(s.nbytes(), 12000);
    assert_eq!(s.chunksize(), 4000);
    let mut out = vec![0u8; 4000];
    assert_eq!(s.decompress_chunk(1, &mut out).unwrap(), 4000);
    assert_eq!(out, ramp(4000, 2));
    assert_eq!(s.current_nchunk(), 1);
    assert_eq!(
        s.decompress_chunk(1, &mut out[..3999]),
        Err(Error::InvalidParam)
    );
    assert_eq!(s.decompress_chunk(3, &mut out), Err(Error::InvalidParam));
    assert_eq!(s.decompress_chunk(-1, &mut out), Err(Error::InvalidParam));
    let total: i64 = (0..3).map(|i| s.get_chunk(i).unwrap().len() as i64).sum();
    assert_eq!(s.cbytes(), total);
}

#[test]
fn chunksize_rules() {
    let full = chunk_of(&ramp(4000, 1));
    let small = chunk_of(&ramp(2000, 1));
    let big = chunk_of(&ramp(8000, 1));
    let mut s = Schunk::new(params(4), DParams::default());
    s.append_chunk(full.as_slice()).unwrap();
    s.append_chunk(small.as_slice()).unwrap();
    assert_eq!(s.chunksize(), 4000);
    s.delete_chunk(1).unwrap();
    s.append_chunk(full.as_slice()).unwrap();
    assert_eq!(s.chunksize(), 4000);
    s.update_chunk(1, small.as_slice()).unwrap();
    assert_eq!(s.chunksize(), 4000);
    s.insert_chunk(2, full.as_slice()).unwrap();
    assert_eq!(s.chunksize(), 0);
    // once variable, always variable
    s.update_chunk(1, full.as_slice()).unwrap();
    assert_eq!(s.chunksize(), 0);

    let mut s = Schunk::new(params(4), DParams::default());
    s.append_chunk(full.as_slice()).unwrap();
    s.insert_chunk(0, small.as_slice()).unwrap();
    assert_eq!(s.chunksize(), 0);
    let mut s = Schunk::new(params(4), DParams::default());
    s.append_chunk(full.as_slice()).unwrap();
    s.update_chunk(0, big.as_slice()).unwrap();
    assert_eq!(s.chunksize(), 0);
    let mut s = Schunk::new(params(4), DParams::default());
    s.append_chunk(full.as_slice()).unwrap();
    s.update_chunk(0, small.as_slice()).unwrap();
    assert_eq!(s.chunksize(), 4000);
}

#[test]
fn vl_chunks_not_mixed() {
    let p = params(1);
    let mut vl = vec![0u8; 4096];
    let n = chunk::vlcompress(&p, &[b"hello".as_slice(), b"world!"], &mut vl).unwrap();
    vl.truncate(n);
    let reg = chunk_of(&ramp(400, 1));
    let mut s = Schunk::new(p, DParams::default());
    s.append_chunk(vl.as_slice()).unwrap();
    assert!(s.is_vlblocks());
    assert_eq!(s.append_chunk(reg.as_slice()), Err(Error::ChunkAppend));
    assert_eq!(s.insert_chunk(0, reg.as_slice()), Err(Error::ChunkInsert));
    s.append_chunk(vl.as_slice()).unwrap();
    assert_eq!(s.update_chunk(0, reg.as_slice()), Err(Error::ChunkUpdate));
    assert_eq!(s.get_vlblock(1, 1).unwrap(), b"world!");
    assert_eq!(s.get_vlblock(1, 2), Err(Error::InvalidParam));
    s.delete_chunk(0).unwrap();
    s.delete_chunk(0).unwrap();
    assert_eq!(s.flags2(), 0);
}

#[test]
fn reorder() {
    let mut s = Schunk::new(params(4), DParams::default());
    for k in 0..4 {
        s.append_buffer(&ramp(4000, k + 1)).unwrap();
    }
    s.append_buffer(&ramp(400, 9)).unwrap();
    assert_eq!(s.reorder_offsets(&[0, 0, 1, 2, 3]), Err(Error::Data));
    assert_eq!(s.reorder_offsets(&[0, 1, 2, 3]), Err(Error::Data));
    s.reorder_offsets(&[4, 3, 2, 1, 0]).unwrap();
    assert_eq!(s.chunksize(), 0);
    let mut out = vec![0u8; 4000];
    assert_eq!(s.decompress_chunk(0, &mut out).unwrap(), 400);
    assert_eq!(&out[..400], &ramp(400, 9)[..]);
}

#[test]
fn slices_fixed_and_variable() {
    let data = ramp(22000, 1);
    for variable in [false, true] {
        let mut s = Schunk::new(params(4), DParams::default());
        let sizes: &[usize] = if variable {
            &[4000, 2000, 8000, 4000, 4000]
        } else {
            &[4000, 4000, 4000, 4000, 4000, 2000]
        };
        let mut pos = 0;
        for &n in sizes {
            s.append_buffer(&data[pos..pos + n]).unwrap();
            pos += n;
        }
        assert_eq!(s.chunksize() == 0, variable);
        let mut out = vec![0u8; 22000];
        s.get_slice(0, 5500, &mut out).unwrap();
        assert_eq!(out, data);
        s.get_slice(777, 4321, &mut out).unwrap();
        assert_eq!(&out[..(4321 - 777) * 4], &data[777 * 4..4321 * 4]);
        assert_eq!(s.get_slice(0, 5501, &mut out), Err(Error::InvalidParam));
        assert_eq!(s.get_slice(-1, 10, &mut out), Err(Error::InvalidParam));
        s.get_slice(10, 5, &mut out).unwrap();
        // set
        let new: Vec<u8> = (0..(3700 - 500) * 4).map(|i| (i % 251) as u8).collect();
        s.set_slice(500, 3700, &new).unwrap();
        assert_eq!(s.nbytes(), 22000);
        let mut expect = data.clone();
        expect[2000..14800].copy_from_slice(&new);
        s.get_slice(0, 5500, &mut out).unwrap();
        assert_eq!(out, expect);
        assert_eq!(s.chunksize() == 0, variable);
        // sparse
        let coords = [5499, 0, 1234, 1234, 3000, 4999];
        let mut sp = vec![0u8; coords.len() * 4];
        s.get_sparse_with(&DParams::default(), &coords, &mut sp)
            .unwrap();
        for (k, &c) in coords.iter().enumerate() {
            assert_eq!(
                &sp[k * 4..k * 4 + 4],
                &expect[c as usize * 4..c as usize * 4 + 4]
            );
        }
        assert_eq!(
            s.get_sparse_with(&DParams::default(), &[5500], &mut sp),
            Err(Error::InvalidParam)
        );
        let idx = s.slice_nchunks(1500, 4100).unwrap();
        if variable {
            assert_eq!(idx, vec![2, 3]);
        } else {
            assert_eq!(idx, vec![1, 2, 3, 4]);
        }
        assert_eq!(s.slice_nchunks(5, 5).unwrap(), Vec::<i64>::new());
    }
}

/// Slices of a frame-backed super-chunk of chunks of varying sizes: the chunks are measured only
/// up to the slice's end, and an unreadable chunk stops the slices that lie past it.
#[test]
fn slices_of_a_frame_with_variable_chunks() {
    let data = ramp(22000, 3);
    let mut s = Schunk::new(params(4), DParams::default());
    let mut pos = 0;
    for n in [4000, 2000, 8000, 4000, 4000] {
        s.append_buffer(&data[pos..pos + n]).unwrap();
        pos += n;
    }
    let bytes = s.to_cframe().unwrap();
    let mut f = Schunk::from_frame(
        crate::frame::Frame::from_bytes(bytes.clone()).unwrap(),
        DParams::default(),
    );
    assert_eq!(f.chunksize(), 0);
    let mut out = vec![0u8; 22000];
    for (a, b) in [(0, 5500), (0, 1), (999, 1001), (1499, 3501), (5499, 5500)] {
        f.get_slice(a, b, &mut out).unwrap();
        assert_eq!(
            &out[..(b - a) as usize * 4],
            &data[a as usize * 4..b as usize * 4]
        );
    }
    assert_eq!(f.slice_nchunks(1500, 4100).unwrap(), vec![2, 3]);
    let mut sp = [0u8; 8];
    f.get_sparse_with(&DParams::default(), &[5499, 2], &mut sp)
        .unwrap();
    assert_eq!(&sp[..4], &data[5499 * 4..5500 * 4]);
    assert_eq!(&sp[4..], &data[8..12]);
    // only the chunks holding bytes of the range keep a place
    for (from, upto, want) in [
        (0, 4, vec![0]),
        (5000, 14001, vec![1, 2, 3]),
        (21999, 22000, vec![4]),
    ] {
        match f.layout(from, upto).unwrap() {
            super::slice::Layout::Var(v) => {
                assert_eq!(
                    v.iter().map(|e| e.2).collect::<Vec<_>>(),
                    want,
                    "{from}..{upto}"
                );
            }
            super::slice::Layout::Fixed(_) => panic!("variable sizes"),
        }
    }

    // chunk 2 made unreadable (its cbytes beyond the frame): the slices in chunks 0-1 still
    // decode, the ones past it fail
    let fr = f.frame().unwrap();
    let at = fr.header_len() as usize + fr.offsets().unwrap()[2] as usize + 12; // its cbytes
    let mut bad = bytes.clone();
    bad[at..at + 4].copy_from_slice(&i32::MAX.to_le_bytes());
    let mut g = Schunk::from_frame(
        crate::frame::Frame::from_bytes(bad).unwrap(),
        DParams::default(),
    );
    g.get_slice(0, 1500, &mut out).unwrap();
    assert_eq!(&out[..6000], &data[..6000]);
    assert!(g.get_slice(1499, 1600, &mut out).is_err());
    assert!(g.get_slice(5000, 5100, &mut out).is_err());
    assert!(g.set_slice(5000, 5100, &out[..400]).is_err());
}

#[test]
fn fill_special() {
    let mut s = Schunk::new(params(4), DParams::default());
    assert_eq!(s.fill_special(10001, 1, 40000).unwrap(), 2);
    assert_eq!(s.nbytes(), 40004);
    assert_eq!(s.chunksize(), 40000);
    let mut out = vec![1u8; 40000];
    assert_eq!(s.decompress_chunk(0, &mut out).unwrap(), 40000);
    assert!(out.iter().all(|&b| b == 0));
    assert_eq!(s.fill_special(10, 1, 40000), Err(Error::FrameSpecial));
    let mut s = Schunk::new(params(4), DParams::default());
    assert_eq!(s.fill_special(10, 3, 40000), Err(Error::SchunkSpecial));
    assert_eq!(s.fill_special(10, 1, 40001), Err(Error::SchunkSpecial));
    assert_eq!(s.fill_special(10, 1, 0), Err(Error::InvalidParam));
    assert_eq!(s.fill_special(-1, 1, 4), Err(Error::InvalidParam));
    assert_eq!(s.fill_special(0, 1, 4), Ok(0));
}

#[test]
fn metalayers() {
    let mut s = Schunk::new(params(4), DParams::default());
    assert_eq!(s.meta_add("a", b"hello").unwrap(), 0);
    assert_eq!(s.meta_add("a", b"x"), Err(Error::InvalidParam));
    assert_eq!(s.meta_add(&"n".repeat(32), b"x"), Err(Error::InvalidParam));
    assert_eq!(s.meta_update("a", b"HE").unwrap(), 0);
    assert_eq!(s.metalayers()[0].content, b"HEllo");
    assert_eq!(s.meta_update("a", b"too long!"), Err(Error::InvalidParam));
    assert_eq!(s.meta_update("b", b"x"), Err(Error::NotFound));
    for i in 1..MAX_METALAYERS {
        s.meta_add(&format!("m{i}"), b"x").unwrap();
    }
    assert_eq!(s.meta_add("one more", b"x"), Err(Error::InvalidParam));

    let data = ramp(4000, 3);
    assert_eq!(s.vlmeta_add("v", &data, &CParams::default()).unwrap(), 0);
    assert!(s.vlmetalayers()[0].content.len() < 4000);
    assert_eq!(s.vlmeta_get("v").unwrap(), data);
    assert_eq!(
        s.vlmeta_update("v", b"abc", &CParams::default()).unwrap(),
        0
    );
    assert_eq!(s.vlmeta_get("v").unwrap(), b"abc");
    assert_eq!(s.vlmeta_add("w", b"", &CParams::default()).unwrap(), 1);
    assert_eq!(s.vlmeta_get("w").unwrap(), b"");
    assert_eq!(s.vlmeta_delete("v").unwrap(), 1);
    assert_eq!(s.vlmeta_get("v"), Err(Error::NotFound));
    assert_eq!(s.vlmetalayers()[0].name, "w");
}

#[test]
fn copy_recompresses_when_needed() {
    let mut s = Schunk::new(params(4), DParams::default());
    s.meta_add("m", b"abc").unwrap();
    s.vlmeta_add("v", b"hello", &CParams::default()).unwrap();
    s.append_buffer(&ramp(40000, 1)).unwrap();
    s.append_buffer(&ramp(4000, 2)).unwrap();
    let same = s.copy_with(params(4), DParams::default()).unwrap();
    assert_eq!(same.cbytes(), s.cbytes());
    let other = s
        .copy_with(
            CParams {
                clevel: 9,
                compcode: crate::codecs::ZSTD,
                ..params(4)
            },
            DParams::default(),
        )
        .unwrap();
    assert_eq!(other.nbytes(), 44000);
    assert_eq!(other.chunksize(), 40000);
    let mut out = vec![0u8; 4000];
    let mut other = other;
    other.decompress_chunk(1, &mut out).unwrap();
    assert_eq!(out, ramp(4000, 2));
    assert_eq!(other.metalayers()[0].content, b"abc");
    assert_eq!(other.vlmeta_get("v").unwrap(), b"hello");
}

/// Every storage kind gives the same super-chunk after the same operations (the in-memory
/// one is the model), and file/directory frames reopen to the same content.
#[test]
fn frame_stores_follow_the_memory_model() {
    use crate::frame::{Frame, Location, StdIo};
    let dir = std::env::temp_dir().join(format!("b2rs-schunk-unit-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("f.b2frame");
    let sdir = dir.join("d.b2dir");
    let io = || -> Arc<dyn crate::frame::Io> { Arc::new(StdIo) };
    let p = params(4);
    let fp = crate::frame::FrameParams::from_cparams(&p, 1);
    let frame = |loc| {
        Schunk::with_frame(
            p.clone(),
            DParams::default(),
            Frame::create(loc, &fp, io()).unwrap(),
        )
    };
    let mut all = vec![
        Schunk::new(p.clone(), DParams::default()),
        frame(Location::Memory),
        frame(Location::File {
            path: file.clone(),
            offset: 0,
        }),
        frame(Location::Dir(sdir.clone())),
    ];
    let contents = |s: &mut Schunk| -> Vec<Vec<u8>> {
        (0..s.nchunks())
            .map(|n| {
                let mut out = vec![0u8; 4000];
                let len = s.decompress_chunk(n, &mut out).unwrap();
                out.truncate(len);
                out
            })
            .collect()
    };
    let same = |all: &mut Vec<Schunk>, what: &str| {
        let model = contents(&mut all[0]);
        let (nb, cs, nc) = (all[0].nbytes(), all[0].chunksize(), all[0].nchunks());
        for (k, s) in all.iter_mut().enumerate().skip(1) {
            assert_eq!(s.nchunks(), nc, "{what}: kind {k}");
            assert_eq!(s.nbytes(), nb, "{what}: kind {k}");
            assert_eq!(s.chunksize(), cs, "{what}: kind {k}");
            assert!(contents(s) == model, "{what}: kind {k}");
            assert_eq!(s.metalayers(), all_meta_model(), "{what}: kind {k}");
        }
    };
    fn all_meta_model() -> Vec<Metalayer> {
        vec![Metalayer {
            name: "m".into(),
            content: b"abcd".to_vec(),
        }]
    }
    for s in all.iter_mut() {
        s.meta_add("m", b"abxx").unwrap();
        s.meta_update("m", b"abcd").unwrap();
    }
    for k in 0..4 {
        for s in all.iter_mut() {
            s.append_buffer(&ramp(4000, k + 1)).unwrap();
        }
        same(&mut all, "append");
    }
    for s in all.iter_mut() {
        s.insert_chunk(1, chunk_of(&ramp(4000, 9))).unwrap();
        s.update_chunk(3, chunk_of(&ramp(4000, 11))).unwrap();
        s.delete_chunk(0).unwrap();
        s.reorder_offsets(&[3, 1, 0, 2]).unwrap();
        s.append_buffer(&ramp(400, 5)).unwrap();
        s.vlmeta_add("v", b"value", &CParams::default()).unwrap();
    }
    same(&mut all, "changes");
    // slices across chunks
    let mut model = vec![0u8; 4 * 3000];
    all[0]
        .get_slice_with(&DParams::default(), 500, 3500, &mut model)
        .unwrap();
    for s in all.iter_mut().skip(1) {
        let mut got = vec![0u8; 4 * 3000];
        s.get_slice_with(&DParams::default(), 500, 3500, &mut got)
            .unwrap();
        assert!(got == model);
        assert_eq!(s.vlmeta_get("v").unwrap(), b"value");
        // metalayers cannot be added to frames with chunks
        assert!(s.meta_add("late", b"x").is_err());
    }
    // reopen the file and directory frames
    for path in [&file, &sdir] {
        let f = Frame::open_path(path, 0, io()).unwrap();
        let mut s = Schunk::from_frame(f, DParams::default());
        assert!(contents(&mut s) == contents(&mut all[0]));
        assert_eq!(s.metalayers(), all_meta_model());
        assert_eq!(s.vlmeta_get("v").unwrap(), b"value");
    }
    // serialised frames of every kind read back the same
    let model = contents(&mut all[0]);
    for s in all.iter_mut() {
        let f = Frame::from_bytes(s.to_cframe().unwrap()).unwrap();
        let mut r = Schunk::from_frame(f, DParams::default());
        assert!(contents(&mut r) == model);
    }
    drop(all);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two handles on one locked frame: each write re-syncs with the other's changes first, so
/// appends from both land one after the other, and `sync` tells whether anything changed.
#[test]
fn locked_frame_handles_see_each_other() {
    use crate::frame::{Frame, Location, LockMode, LockingStdIo};
    let dir = std::env::temp_dir().join(format!("b2rs-schunk-lock-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for sparse in [false, true] {
        let path = dir.join(if sparse { "l.b2sframe" } else { "l.b2frame" });
        let loc = if sparse {
            Location::Dir(path.clone())
        } else {
            Location::File {
                path: path.clone(),
                offset: 0,
            }
        };
        let io = || -> Arc<dyn crate::frame::Io> { Arc::new(LockingStdIo) };
        let p = params(4);
        let fp = crate::frame::FrameParams::from_cparams(&p, 1);
        let mut a = Schunk::with_frame(
            p.clone(),
            DParams::default(),
            Frame::create(loc.clone(), &fp, io()).unwrap(),
        );
        assert!(a.frame().unwrap().is_locking());
        a.append_buffer(&ramp(4000, 1)).unwrap();
        let mut b = Schunk::from_frame(Frame::open(loc, io()).unwrap(), DParams::default());
        assert_eq!(b.nchunks(), 1);
        assert!(!b.sync().unwrap());
        assert_eq!(a.append_buffer(&ramp(4000, 2)).unwrap(), 2);
        // `b` is stale, but its append happens after re-reading the frame under the lock.
        assert_eq!(b.nchunks(), 1);
        assert_eq!(b.append_buffer(&ramp(4000, 3)).unwrap(), 3);
        assert!(a.sync().unwrap());
        assert!(!a.sync().unwrap());
        assert_eq!(a.nchunks(), 3);
        let mut out = vec![0u8; 4000];
        for k in 0..3 {
            a.decompress_chunk(k, &mut out).unwrap();
            assert_eq!(out, ramp(4000, k as u32 + 1));
        }
        // A bracket nests; the frame lock is released at the outermost level only.
        a.lock(LockMode::Exclusive).unwrap();
        a.append_buffer(&ramp(4000, 4)).unwrap();
        assert_eq!(a.frame().unwrap().lock_mode(), Some(LockMode::Exclusive));
        a.unlock().unwrap();
        assert_eq!(a.frame().unwrap().lock_mode(), None);
        // Chunk numbers are checked against the cached counters; reading one in range
        // re-syncs under the shared lock.
        assert!(b.decompress_chunk(3, &mut out).is_err());
        b.decompress_chunk(0, &mut out).unwrap();
        assert_eq!(b.nchunks(), 4);
        b.decompress_chunk(3, &mut out).unwrap();
        assert_eq!(out, ramp(4000, 4));
        let lock = crate::frame::lock::sidecar_path(&path, sparse);
        assert_eq!(std::fs::read(lock).unwrap().len(), 16);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn b2nd_metalayer_reaches_the_parameters() {
    let mut s = Schunk::new(CParams::default(), DParams::default());
    assert!(s.nd_meta().is_none() && s.cparams().b2nd.is_none());
    assert_eq!(s.cparams().schunk_typesize, Some(8));
    let meta = crate::b2nd::Meta::new(&[10, 20], &[5, 10], &[5, 5]);
    s.meta_add("b2nd", &meta.serialize().unwrap()).unwrap();
    let want = crate::b2nd::Meta::new(&[10, 20], &[5, 10], &[5, 5]);
    assert_eq!(**s.nd_meta().unwrap(), want);
    assert_eq!(**s.cparams().b2nd.as_ref().unwrap(), want);
    assert_eq!(**s.dparams().b2nd.as_ref().unwrap(), want);
    let p = s.plugin_cparams(&CParams::default());
    assert_eq!(**p.b2nd.as_ref().unwrap(), want);
    // a later update is seen too
    let meta2 = crate::b2nd::Meta::new(&[10, 20], &[5, 10], &[5, 2]);
    s.meta_update("b2nd", &meta2.serialize().unwrap()).unwrap();
    assert_eq!(s.nd_meta().unwrap().blockshape, vec![5, 2]);
}

/// `to_cframe` of an in-memory super-chunk of fixed chunk size builds at once the frame that
/// appending its chunks one by one makes (byte for byte).
#[test]
fn cframe_of_fixed_chunks_equals_appending_them() {
    use crate::chunk::header::Special;
    use crate::frame::{io::StdIo, Location};
    for (nchunks, last, zeros) in [(1, 4000, false), (5, 1000, true), (1000, 4000, true)] {
        let mut s = Schunk::new(params(4), DParams::default());
        s.meta_add("m", b"\x93\x01\x02\x03").unwrap();
        for k in 0..nchunks {
            let n = if k + 1 == nchunks { last } else { 4000 };
            if zeros && k % 3 == 1 {
                let mut c = vec![0u8; 64];
                let p = params(4);
                let len = crate::chunk::special::special_chunk(&p, Special::Zero, n, None, &mut c)
                    .unwrap();
                c.truncate(len);
                s.append_chunk(c).unwrap();
            } else {
                s.append_buffer(&ramp(n, k as u32 + 7)).unwrap();
            }
        }
        s.vlmeta_add("v", b"\xa3abc", &CParams::default()).unwrap();
        assert_eq!(s.chunksize(), 4000);
        let got = s.to_cframe().unwrap();

        let mut f = Frame::create(Location::Memory, &s.frame_params(), Arc::new(StdIo)).unwrap();
        f.add_metalayer("m", b"\x93\x01\x02\x03").unwrap();
        f.set_chunksize(4000).unwrap();
        for k in 0..nchunks {
            f.append_chunk(&s.get_chunk(k).unwrap()).unwrap();
        }
        f.set_vlmetalayer("v", &s.vlmetalayers()[0].content)
            .unwrap();
        let want = f.into_bytes().unwrap();
        assert!(got == want, "{nchunks} chunks: frames differ");
        let back = Frame::from_bytes(got).unwrap();
        assert_eq!(back.nchunks(), nchunks);
    }
}
