use super::*;
use crate::params::{CParams, DParams};

fn cparams(typesize: i32) -> CParams {
    CParams {
        typesize,
        ..CParams::default()
    }
}

fn meta(shape: &[i64], chunk: &[i32], block: &[i32]) -> Meta {
    Meta::new(shape, chunk, block)
}

fn pattern(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 7 + i / 251) as u8).collect()
}

/// The item at `idx` of a C-order buffer.
fn item<'a>(buf: &'a [u8], shape: &[i64], idx: &[i64], itemsize: usize) -> &'a [u8] {
    let off = super::super::geometry::ravel(idx, &c_strides(shape)) as usize * itemsize;
    &buf[off..off + itemsize]
}

/// Naive slice of a C-order buffer.
fn naive_slice(buf: &[u8], shape: &[i64], start: &[i64], stop: &[i64], itemsize: usize) -> Vec<u8> {
    let sshape: Vec<i64> = stop.iter().zip(start).map(|(b, a)| b - a).collect();
    let n = product(&sshape).unwrap();
    let mut out = Vec::new();
    for k in 0..n {
        let p = unravel(k, &sshape);
        let idx: Vec<i64> = p.iter().zip(start).map(|(a, b)| a + b).collect();
        out.extend_from_slice(item(buf, shape, &idx, itemsize));
    }
    out
}

const CASES: &[(&[i64], &[i32], &[i32])] = &[
    (&[], &[], &[]),
    (&[10], &[7], &[2]),
    (&[14, 10], &[8, 5], &[2, 2]),
    (&[10, 10, 10], &[3, 5, 9], &[3, 4, 4]),
    (&[20, 0], &[7, 0], &[3, 0]),
    (&[5, 4, 3, 2], &[2, 3, 3, 1], &[1, 2, 2, 1]),
    (
        &[3, 2, 3, 2, 3, 2, 1, 2],
        &[2, 2, 2, 2, 2, 2, 1, 1],
        &[1, 1, 2, 1, 1, 2, 1, 1],
    ),
    (&[400, 3], &[110, 3], &[57, 3]),
];

#[test]
fn b2nd_array_roundtrip_and_slices() {
    for &itemsize in &[1usize, 2, 4, 8, 16, 33] {
        for &(shape, chunk, block) in CASES {
            let m = meta(shape, chunk, block);
            let nbytes = buffer_len(shape, itemsize).unwrap();
            let data = pattern(nbytes);
            let mut a = Array::new(
                cparams(itemsize as i32),
                DParams::default(),
                &m,
                Fill::Buffer(&data),
            )
            .unwrap();
            assert_eq!(a.to_vec().unwrap(), data, "{shape:?} {itemsize}");
            assert_eq!(
                a.schunk().nchunks(),
                a.geometry().nchunks(),
                "{shape:?} {itemsize}"
            );
            // A slice in the middle.
            let start: Vec<i64> = shape.iter().map(|&s| s / 3).collect();
            let stop: Vec<i64> = shape.iter().map(|&s| s - s / 4).collect();
            let sshape: Vec<i64> = stop.iter().zip(&start).map(|(b, a)| b - a).collect();
            let mut got = vec![0u8; buffer_len(&sshape, itemsize).unwrap()];
            a.get_slice_cbuffer(&start, &stop, &mut got, &sshape)
                .unwrap();
            assert_eq!(got, naive_slice(&data, shape, &start, &stop, itemsize));
            // Overwrite that slice and read everything back.
            let new = vec![0xA5u8; got.len()];
            a.set_slice_cbuffer(&new, &sshape, &start, &stop).unwrap();
            let all = a.to_vec().unwrap();
            assert_eq!(naive_slice(&all, shape, &start, &stop, itemsize), new);
            // Through a cframe.
            let cf = a.to_cframe().unwrap();
            let mut b = Array::from_cframe(cf).unwrap();
            assert_eq!(b.to_vec().unwrap(), all);
            assert_eq!(b.meta(), a.meta());
        }
    }
}

#[test]
fn b2nd_array_fills() {
    let m = meta(&[5, 7], &[2, 3], &[2, 2]);
    for (fill, want) in [
        (Fill::Zero, vec![0u8; 8]),
        (
            Fill::Value(&[1, 2, 3, 4, 5, 6, 7, 8]),
            vec![1, 2, 3, 4, 5, 6, 7, 8],
        ),
        (Fill::Nan, f64::NAN.to_le_bytes().to_vec()),
    ] {
        let mut a = Array::new(cparams(8), DParams::default(), &m, fill).unwrap();
        let v = a.to_vec().unwrap();
        assert_eq!(v.len(), 35 * 8);
        for c in v.chunks(8) {
            assert_eq!(c, &want[..]);
        }
    }
    let mut a = Array::new(cparams(2), DParams::default(), &m, Fill::Uninit).unwrap();
    assert_eq!(a.to_vec().unwrap().len(), 70);
    assert!(Array::new(cparams(2), DParams::default(), &m, Fill::Nan).is_err());
}

fn array_1d(n: i64) -> Array {
    let data: Vec<u8> = (1..=n).flat_map(|i| (i as i32).to_le_bytes()).collect();
    Array::new(
        cparams(4),
        DParams::default(),
        &meta(&[n], &[3], &[2]),
        Fill::Buffer(&data),
    )
    .unwrap()
}

fn ints(a: &mut Array) -> Vec<i32> {
    a.to_vec()
        .unwrap()
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

#[test]
fn b2nd_array_resize_like_reference() {
    // Outcomes observed with C-Blosc2 3.3.5 (see c-tests/test_b2nd.c).
    let v: Vec<i32> = (1..=12).collect();
    let mut a = array_1d(12);
    assert!(a.resize(&[14], Some(&[3])).is_err());
    assert!(a.resize(&[14], Some(&[13])).is_err());
    assert!(a.resize(&[14], Some(&[0])).is_err());
    assert_eq!(ints(&mut a), v);
    a.resize(&[15], Some(&[6])).unwrap();
    assert_eq!(
        ints(&mut a),
        [1, 2, 3, 4, 5, 6, 0, 0, 0, 7, 8, 9, 10, 11, 12]
    );
    let mut a = array_1d(12);
    a.resize(&[10], Some(&[10])).unwrap();
    assert_eq!(ints(&mut a), (1..=10).collect::<Vec<_>>());
    let mut a = array_1d(12);
    assert!(a.resize(&[10], Some(&[9])).is_err());
    assert!(a.resize(&[10], Some(&[2])).is_err());
    a.resize(&[9], Some(&[3])).unwrap();
    assert_eq!(ints(&mut a), [1, 2, 3, 7, 8, 9, 10, 11, 12]);
    let mut a = array_1d(12);
    a.resize(&[7], None).unwrap();
    a.resize(&[13], None).unwrap();
    // As C-Blosc2: the kept edge chunk's padding still holds items 8, 9; new chunks are zeros.
    assert_eq!(ints(&mut a), [1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0]);
    let mut a = array_1d(12);
    a.resize(&[0], None).unwrap();
    assert_eq!(a.schunk().nchunks(), 0);
    a.resize(&[4], None).unwrap();
    assert_eq!(ints(&mut a), [0, 0, 0, 0]);
    let mut a = array_1d(12);
    a.delete(0, 0, 3).unwrap();
    assert_eq!(ints(&mut a), (4..=12).collect::<Vec<_>>());
    let mut a = array_1d(12);
    assert!(a.delete(0, 9, 2).is_err());
    assert!(a.delete(0, 9, 4).is_err());
    assert!(a.delete(1, 0, 1).is_err());
    let ib: Vec<u8> = [100i32, 101, 102, 103]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    assert!(a.insert(&ib, 0, 3).is_err());
    assert!(a.insert(&ib[..8], 0, 13).is_err());
    assert!(a.insert(&ib[..13], 0, 6).is_err());
    a.insert(&ib[..12], 0, 6).unwrap();
    assert_eq!(
        ints(&mut a),
        [1, 2, 3, 4, 5, 6, 100, 101, 102, 7, 8, 9, 10, 11, 12]
    );
    a.append(&ib[..4], 0).unwrap();
    assert_eq!(ints(&mut a).len(), 16);
    assert!(a.append(&ib[..6], 0).is_err());
    assert!(a.append(&ib[..4], 1).is_err());
}

#[test]
fn b2nd_array_resize_2d() {
    let shape = [5i64, 7];
    let data = pattern(35);
    let mut a = Array::new(
        cparams(1),
        DParams::default(),
        &meta(&shape, &[1, 3], &[1, 2]),
        Fill::Buffer(&data),
    )
    .unwrap();
    a.resize(&[6, 10], Some(&[2, 3])).unwrap();
    let got = a.to_vec().unwrap();
    for i in 0..6i64 {
        for j in 0..10i64 {
            let v = item(&got, &[6, 10], &[i, j], 1)[0];
            let oi = if i < 2 {
                Some(i)
            } else if i < 3 {
                None
            } else {
                Some(i - 1)
            };
            let oj = if j < 3 {
                Some(j)
            } else if j < 6 {
                None
            } else {
                Some(j - 3)
            };
            let want = match (oi, oj) {
                (Some(a), Some(b)) => item(&data, &shape, &[a, b], 1)[0],
                _ => 0,
            };
            assert_eq!(v, want, "{i} {j}");
        }
    }
}

#[test]
fn b2nd_array_sparse_orthogonal_concat_copy() {
    let shape = [6i64, 5, 4];
    let data = pattern(120 * 2);
    let m = meta(&shape, &[4, 3, 3], &[2, 2, 2]);
    let mut a = Array::new(cparams(2), DParams::default(), &m, Fill::Buffer(&data)).unwrap();
    let coords = [0i64, 0, 0, 5, 4, 3, 2, 3, 1];
    let flat: Vec<i64> = coords
        .chunks(3)
        .map(|c| c[0] * 20 + c[1] * 4 + c[2])
        .collect();
    let mut out = vec![0u8; 6];
    a.get_sparse_cbuffer(&flat, &mut out).unwrap();
    for k in 0..3 {
        assert_eq!(
            &out[k * 2..k * 2 + 2],
            item(&data, &shape, &coords[k * 3..k * 3 + 3], 2)
        );
    }
    assert!(a.get_sparse_cbuffer(&[120], &mut out).is_err());
    assert!(a.get_sparse_cbuffer(&[-1], &mut out).is_err());

    let sel = vec![vec![5, 0], vec![1, -1, 2], vec![3]];
    let mut out = vec![0u8; 2 * 3 * 2];
    a.get_orthogonal_selection(&sel, &mut out, &[2, 3, 1])
        .unwrap();
    let mut k = 0;
    for &i in &[5, 0] {
        for &j in &[1, 4, 2] {
            assert_eq!(&out[k..k + 2], item(&data, &shape, &[i, j, 3], 2));
            k += 2;
        }
    }
    let vals = vec![0xEEu8; 12];
    a.set_orthogonal_selection(&sel, &vals, &[2, 3, 1]).unwrap();
    let all = a.to_vec().unwrap();
    assert_eq!(item(&all, &shape, &[0, 4, 3], 2), &[0xEE, 0xEE]);
    assert_eq!(
        item(&all, &shape, &[0, 3, 3], 2),
        item(&data, &shape, &[0, 3, 3], 2)
    );

    let m2 = meta(&shape, &[3, 2, 4], &[3, 1, 2]);
    let mut c = a
        .copy_to(Schunk::new(cparams(2), DParams::default()), &m2)
        .unwrap();
    assert_eq!(c.to_vec().unwrap(), all);
    assert_eq!(c.geometry().chunkshape(), &[3, 2, 4]);
    let mut s = a
        .slice_to(
            Schunk::new(cparams(2), DParams::default()),
            &m2,
            &[1, 1, 1],
            &[4, 5, 3],
        )
        .unwrap();
    assert_eq!(
        s.to_vec().unwrap(),
        naive_slice(&all, &shape, &[1, 1, 1], &[4, 5, 3], 2)
    );

    let mut cc = concatenate(
        &mut a,
        &mut c,
        1,
        Schunk::new(cparams(2), DParams::default()),
        &m2,
    )
    .unwrap();
    assert_eq!(cc.shape(), &[6, 10, 4]);
    let got = cc.to_vec().unwrap();
    assert_eq!(
        naive_slice(&got, &[6, 10, 4], &[0, 0, 0], &[6, 5, 4], 2),
        all
    );
    assert_eq!(
        naive_slice(&got, &[6, 10, 4], &[0, 5, 0], &[6, 10, 4], 2),
        all
    );
    concatenate_into(&mut a, &mut c, 0).unwrap();
    assert_eq!(a.shape(), &[12, 5, 4]);
    let got = a.to_vec().unwrap();
    assert_eq!(&got[..all.len()], &all[..]);
    assert_eq!(&got[all.len()..], &all[..]);
}

#[test]
fn b2nd_array_slices_touch_only_their_chunks() {
    // 4 x 3 chunks of 3 x 4 items; a write inside chunk (1, 2) and a read across (2..3, 0..2).
    let m = meta(&[12, 12], &[3, 4], &[2, 2]);
    let mut a = Array::new(cparams(4), DParams::default(), &m, Fill::Zero).unwrap();
    let before: Vec<Vec<u8>> = (0..a.schunk().nchunks())
        .map(|n| a.schunk().get_chunk(n).unwrap().into_owned())
        .collect();
    let v = vec![7u8; 2 * 2 * 4];
    a.set_slice_cbuffer(&v, &[2, 2], &[4, 9], &[6, 11]).unwrap();
    let touched = a.geometry().slice_nchunks(&[4, 9], &[6, 11]).unwrap();
    assert_eq!(touched, vec![5]);
    for (n, old) in before.iter().enumerate() {
        let now = a.schunk().get_chunk(n as i64).unwrap();
        assert_eq!(
            &now[..] == old.as_slice(),
            !touched.contains(&(n as i64)),
            "chunk {n}"
        );
    }
    let mut out = vec![0u8; v.len()];
    a.get_slice_cbuffer(&[4, 9], &[6, 11], &mut out, &[2, 2])
        .unwrap();
    assert_eq!(out, v);
    // a read decompresses only what it needs: a scalar array element and an empty slice work
    let mut none: [u8; 0] = [];
    a.get_slice_cbuffer(&[5, 5], &[5, 12], &mut none, &[0, 7])
        .unwrap();
}

#[test]
fn b2nd_array_reads_decompress_only_needed_blocks() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};
    let seen = Arc::new(Mutex::new(Vec::new()));
    let calls = Arc::new(AtomicUsize::new(0));
    let (s2, c2) = (seen.clone(), calls.clone());
    let dparams = DParams {
        postfilter: Some(Arc::new(
            move |a: &mut crate::params::PostfilterArgs<'_>| {
                a.output.copy_from_slice(a.input);
                s2.lock().unwrap().push((a.nchunk, a.nblock));
                c2.fetch_add(1, Ordering::SeqCst);
                0
            },
        )),
        ..DParams::default()
    };
    // 2 x 2 chunks of 4 x 4 blocks of 2 x 2 items (8 x 8 items per chunk)
    let data = pattern(16 * 16);
    let mut cp = cparams(1);
    cp.clevel = 5;
    let mut a = Array::new(
        cp,
        dparams,
        &meta(&[16, 16], &[8, 8], &[2, 2]),
        Fill::Buffer(&data),
    )
    .unwrap();
    seen.lock().unwrap().clear();
    // rows 9..11, columns 2..3: chunk 2, blocks (0, 1) and (1, 1) of it
    let mut out = vec![0u8; 2];
    a.get_slice_cbuffer(&[9, 2], &[11, 3], &mut out, &[2, 1])
        .unwrap();
    assert_eq!(out, naive_slice(&data, &[16, 16], &[9, 2], &[11, 3], 1));
    let mut got = seen.lock().unwrap().clone();
    got.sort();
    assert_eq!(got, vec![(2, 1), (2, 5)]);
}

/// `schunk_to_cframe` builds at once the frame that appending the array's chunks one by one
/// makes (byte for byte), zero chunks and vlmetalayers included.
#[test]
fn cframe_equals_appending_the_chunks() {
    let m = meta(&[37, 20], &[10, 8], &[5, 4]).with_dtype("|u1");
    let data = pattern(37 * 20);
    let mut a = Array::new(cparams(1), DParams::default(), &m, Fill::Buffer(&data)).unwrap();
    // a chunk of zeros
    a.set_slice_cbuffer(&[0u8; 80], &[10, 8], &[10, 8], &[20, 16])
        .unwrap();
    a.schunk_mut()
        .vlmeta_add("v", b"\xa3abc", &CParams::default())
        .unwrap();
    let sc = a.schunk();
    let got = schunk_to_cframe(sc).unwrap();

    let params = FrameParams::from_cparams(sc.cparams(), sc.dparams().nthreads.max(1));
    let mut f = Frame::create(FrameLocation::Memory, &params, Arc::new(StdIo)).unwrap();
    for m in sc.metalayers() {
        f.add_metalayer(&m.name, &m.content).unwrap();
    }
    for n in 0..sc.nchunks() {
        f.append_chunk(&sc.get_chunk(n).unwrap()).unwrap();
    }
    for m in sc.vlmetalayers() {
        f.set_vlmetalayer(&m.name, &m.content).unwrap();
    }
    assert!(got == f.into_bytes().unwrap(), "frames differ");
    assert_eq!(Array::from_cframe(got).unwrap().to_vec().unwrap(), {
        let mut d = data.clone();
        for r in 10..20 {
            d[r * 20 + 8..r * 20 + 16].fill(0);
        }
        d
    });
}

#[test]
fn kept_chunk_buffer_leaves_no_trace() {
    // Chunks written after reads (which leave other data in the kept chunk buffer) are the
    // same bytes as those of a fresh array: the padding of edge chunks and of chunks that are
    // not a whole number of blocks is zeros, and masked reads return only their own blocks.
    for (shape, chunk, block) in [
        (&[37i64, 20][..], &[10i32, 8][..], &[5i32, 4][..]),
        (&[30, 24], &[10, 8], &[4, 3]),
        (&[40], &[8], &[8]),
    ] {
        let m = meta(shape, chunk, block).with_dtype("|u1");
        let n = product(shape).unwrap() as usize;
        let data = pattern(n);
        let fresh = Array::new(cparams(1), DParams::default(), &m, Fill::Buffer(&data)).unwrap();
        let mut a = Array::new(cparams(1), DParams::default(), &m, Fill::Zero).unwrap();
        // chunks of 0xff bytes, padding included (as a writer that leaves its padding
        // uninitialised may store them); reading them all leaves 0xff in the kept buffer
        let full = vec![0xffu8; a.chunk_nbytes().unwrap()];
        for k in 0..a.schunk().nchunks() {
            let c = crate::schunk::compress_chunk(a.schunk().cparams(), k, &full).unwrap();
            a.schunk_mut().update_chunk(k, c).unwrap();
        }
        let mut out = vec![0u8; n];
        a.to_cbuffer(&mut out).unwrap();
        assert!(out.iter().all(|&b| b == 0xff));
        // then write the whole array over it
        a.set_slice_cbuffer(&data, shape, &vec![0; shape.len()], shape)
            .unwrap();
        for k in 0..a.schunk().nchunks() {
            assert_eq!(
                a.schunk().get_chunk(k).unwrap(),
                fresh.schunk().get_chunk(k).unwrap(),
                "chunk {k} of {shape:?}"
            );
        }
        // the kept buffer stays out of the Debug output
        assert!(!format!("{a:?}").contains("scratch"));
        // slices after reads of other chunks
        let stop: Vec<i64> = shape.iter().map(|&s| s / 2 + 1).collect();
        let start: Vec<i64> = shape.iter().map(|&s| s / 3).collect();
        let want = naive_slice(&data, shape, &start, &stop, 1);
        let sshape: Vec<i64> = stop.iter().zip(&start).map(|(b, a)| b - a).collect();
        for _ in 0..2 {
            let mut got = vec![0u8; want.len()];
            a.get_slice_cbuffer(&start, &stop, &mut got, &sshape)
                .unwrap();
            assert_eq!(got, want);
            a.to_cbuffer(&mut out).unwrap();
        }
    }
}

/// A write decodes only the blocks of a chunk it does not overwrite whole, and every decoded
/// chunk (padding included) ends up as the old chunk with the slice's items written: the
/// padding the write does not reach keeps what it held (the fill value of `Fill::Value`),
/// except in chunks the write covers, which start from zeros.
#[test]
fn writes_decode_only_the_blocks_they_keep() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let decoded = Arc::new(AtomicUsize::new(0));
    let d2 = decoded.clone();
    let dparams = DParams {
        postfilter: Some(Arc::new(
            move |a: &mut crate::params::PostfilterArgs<'_>| {
                a.output.copy_from_slice(a.input);
                d2.fetch_add(1, Ordering::SeqCst);
                0
            },
        )),
        ..DParams::default()
    };
    let cases: &[(&[i64], &[i32], &[i32])] = &[
        (&[10], &[7], &[2]),
        (&[14, 10], &[8, 5], &[2, 2]),
        (&[10, 10, 10], &[3, 5, 9], &[3, 4, 4]),
        (&[5, 4, 3, 2], &[2, 3, 3, 1], &[1, 2, 2, 1]),
        (&[40, 6], &[11, 6], &[1, 6]),
    ];
    let mut seed = 12345u64;
    let mut rnd = |n: i64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) % n.max(1) as u64) as i64
    };
    for &(shape, chunk, block) in cases {
        let itemsize = 2usize;
        let m = meta(shape, chunk, block);
        let mut a = Array::new(
            cparams(itemsize as i32),
            dparams.clone(),
            &m,
            Fill::Value(&[0xEE, 0x11]),
        )
        .unwrap();
        let g = a.geometry().clone();
        let nb = a.chunk_nbytes().unwrap();
        let chunks = |a: &mut Array| -> Vec<Vec<u8>> {
            (0..a.schunk().nchunks())
                .map(|n| {
                    let mut v = vec![0u8; nb];
                    a.schunk_mut().decompress_chunk(n, &mut v).unwrap();
                    v
                })
                .collect()
        };
        for k in 0..12u8 {
            let start: Vec<i64> = shape.iter().map(|&s| rnd(s)).collect();
            let stop: Vec<i64> = start
                .iter()
                .zip(shape)
                .map(|(&a, &s)| a + 1 + rnd(s - a))
                .collect();
            let sshape: Vec<i64> = stop.iter().zip(&start).map(|(b, a)| b - a).collect();
            let n = buffer_len(&sshape, itemsize).unwrap();
            let new: Vec<u8> = (0..n)
                .map(|i| (i as u8).wrapping_mul(3).wrapping_add(k))
                .collect();
            // the expected chunks: the old ones with the slice's items written (a chunk the
            // slice covers starts from zeros, its padding too, as in C-Blosc2)
            let mut want = chunks(&mut a);
            for c in g.slice_chunks(&start, &stop).unwrap() {
                if c.covers_chunk() {
                    want[c.nchunk as usize].fill(0);
                }
            }
            for i in 0..product(&sshape).unwrap() {
                let p = unravel(i, &sshape);
                let idx: Vec<i64> = p.iter().zip(&start).map(|(a, b)| a + b).collect();
                let l = g.locate(&idx).unwrap();
                let at = l.chunk_item as usize * itemsize;
                let from = i as usize * itemsize;
                want[l.nchunk as usize][at..at + itemsize]
                    .copy_from_slice(&new[from..from + itemsize]);
            }
            // the blocks a write must decode: those of partly written chunks it does not cover
            let mut need = 0;
            for c in g.slice_chunks(&start, &stop).unwrap() {
                if !c.covers_chunk() {
                    need += g.blocks_covered(&c).iter().filter(|&&b| !b).count();
                }
            }
            decoded.store(0, Ordering::SeqCst);
            a.set_slice_cbuffer(&new, &sshape, &start, &stop).unwrap();
            assert_eq!(
                decoded.load(Ordering::SeqCst),
                need,
                "{shape:?} {start:?} {stop:?}"
            );
            assert_eq!(chunks(&mut a), want, "{shape:?} {start:?} {stop:?}");
        }
    }
}
