use super::slices::BoxIter;
use super::*;

fn geom(shape: &[i64], chunk: &[i32], block: &[i32]) -> Geometry {
    Geometry::new(shape, chunk, block).unwrap()
}

#[test]
fn spec_example() {
    // B2ND.md §4.3
    let g = geom(&[400, 3], &[110, 3], &[57, 3]);
    assert_eq!(g.extchunkshape(), &[114, 3]);
    assert_eq!(g.extshape(), &[440, 3]);
    assert_eq!(g.chunks_grid(), &[4, 1]);
    assert_eq!(g.blocks_grid(), &[2, 1]);
    assert_eq!(g.nchunks(), 4);
    assert_eq!(g.nblocks(), 2);
    assert_eq!(g.extchunknitems(), 342);
    assert_eq!(g.chunk_nbytes(4), Ok(1368));
    assert_eq!(g.block_nbytes(4), Ok(684));
    assert_eq!(g.nitems(), 1200);
    // §4.4
    let l = g.locate(&[111, 1]).unwrap();
    assert_eq!((l.nchunk, l.nblock, l.item, l.chunk_item), (1, 0, 4, 4));
    let l = g.locate(&[100, 2]).unwrap();
    assert_eq!((l.nchunk, l.nblock, l.item), (0, 1, 131));
    assert_eq!(l.chunk_item * 4, 1208);
    assert_eq!(g.locate(&[400, 0]), Err(Error::InvalidIndex));
    assert_eq!(g.locate(&[0]), Err(Error::InvalidIndex));
}

#[test]
fn reference_values() {
    // Values printed by C-Blosc2 3.3.5 for b2nd_uninit with these shapes.
    let g = geom(&[10, 9, 7], &[5, 4, 3], &[2, 3, 2]);
    assert_eq!(g.extshape(), &[10, 12, 9]);
    assert_eq!(g.extchunkshape(), &[6, 6, 4]);
    assert_eq!(g.item_array_strides(), vec![63, 7, 1]);
    assert_eq!(g.item_chunk_strides(), vec![12, 3, 1]);
    assert_eq!(g.item_extchunk_strides(), vec![24, 4, 1]);
    assert_eq!(g.item_block_strides(), vec![6, 2, 1]);
    assert_eq!(g.block_chunk_strides(), &[4, 2, 1]);
    assert_eq!(g.chunk_array_strides(), &[9, 3, 1]);
    assert_eq!(
        (
            g.nitems(),
            g.chunknitems(),
            g.extnitems(),
            g.blocknitems(),
            g.extchunknitems()
        ),
        (630, 60, 1080, 12, 144)
    );
    assert_eq!(g.nchunks(), 2 * 3 * 3);

    let g = geom(&[10, 0, 7], &[5, 4, 3], &[2, 3, 2]);
    assert_eq!(g.extshape(), &[10, 0, 9]);
    assert_eq!(g.nitems(), 0);
    assert_eq!(g.nchunks(), 0);

    // block > chunk: the chunk is padded to one block.
    let g = geom(&[10, 10], &[3, 5], &[5, 2]);
    assert_eq!(g.extshape(), &[12, 10]);
    assert_eq!(g.extchunkshape(), &[5, 6]);
    assert_eq!(
        (g.chunknitems(), g.extchunknitems(), g.nchunks()),
        (15, 30, 8)
    );

    // chunk > shape
    let g = geom(&[10, 10], &[100, 5], &[3, 2]);
    assert_eq!(g.extshape(), &[100, 10]);
    assert_eq!(g.extchunkshape(), &[102, 6]);
    assert_eq!(
        (g.chunknitems(), g.extchunknitems(), g.nchunks()),
        (500, 612, 2)
    );

    // zero sizes
    let g = geom(&[0, 10], &[0, 5], &[0, 2]);
    assert_eq!(
        (g.nitems(), g.chunknitems(), g.extchunknitems(), g.nchunks()),
        (0, 0, 0, 0)
    );
    let g = geom(&[0, 10], &[5, 5], &[2, 2]);
    assert_eq!(g.extchunkshape(), &[6, 6]);
    assert_eq!(
        (g.nitems(), g.chunknitems(), g.extchunknitems()),
        (0, 25, 36)
    );
    let g = geom(&[i64::MAX, 0, i64::MAX], &[1, 1, 1], &[1, 1, 1]);
    assert_eq!(g.nitems(), 0);
}

#[test]
fn scalar() {
    let g = geom(&[], &[], &[]);
    assert_eq!(
        (g.ndim(), g.nitems(), g.nchunks(), g.nblocks()),
        (0, 1, 1, 1)
    );
    assert_eq!(g.chunk_nbytes(8), Ok(8));
    let chunks: Vec<_> = g.slice_chunks(&[], &[]).unwrap().collect();
    assert_eq!(chunks.len(), 1);
    assert_eq!(chunks[0].nchunk, 0);
    let blocks: Vec<_> = g.slice_blocks(&chunks[0]).collect();
    assert_eq!(blocks.len(), 1);
    assert_eq!(g.block_maskout(&chunks[0]), vec![false]);
    assert_eq!(g.locate(&[]).unwrap().chunk_item, 0);
}

#[test]
fn validation_errors() {
    let bad: &[(&[i64], &[i32], &[i32])] = &[
        (&[-1, 10], &[5, 5], &[2, 2]),
        (&[10, 10], &[-5, 5], &[2, 2]),
        (&[10, 10], &[5, 5], &[2, -2]),
        (&[10, 10], &[5, 5], &[0, 2]),
        (&[10, 10], &[0, 5], &[0, 2]), // non-zero shape, zero chunk
        (&[10, 10], &[0, 5], &[3, 2]),
        (&[10], &[5, 5], &[2, 2]),
        (&[1; 17], &[1; 17], &[1; 17]),
        (&[i64::MAX], &[5], &[5]),              // cannot round up
        (&[i64::MAX / 2, 3], &[5, 3], &[2, 3]), // nitems overflow
        (&[1 << 40, 1 << 23], &[5, 5], &[2, 2]),
        (&[1 << 61, 3], &[1 << 20, 2], &[1, 1]), // extnitems overflow only
        (&[65536, 32768], &[65536, 32768], &[1, 1]), // chunknitems > i32
        (
            &[1 << 20, 1 << 20],
            &[1 << 20, 1 << 20],
            &[1 << 16, 1 << 15],
        ), // blocknitems
    ];
    for (s, c, b) in bad {
        assert_eq!(
            Geometry::new(s, c, b),
            Err(Error::InvalidParam),
            "{s:?} {c:?} {b:?}"
        );
    }
    // extchunknitems may exceed i32; the chunk size check catches it.
    let g = geom(&[65535, 32768], &[65535, 32768], &[65535, 32767]);
    assert_eq!(g.extchunknitems(), 65535 * 65534);
    assert_eq!(g.chunk_nbytes(1), Err(Error::MaxBufsizeExceeded));
    let g = geom(&[i64::MAX - 7], &[8], &[8]);
    assert_eq!(g.extshape(), &[i64::MAX - 7]);
    assert_eq!(g.chunk_nbytes(-1), Err(Error::InvalidParam));

    // check_dims is what b2nd_create_ctx checks: zero chunks with a shape pass.
    assert!(check_dims(&[10], &[0], &[0]).is_ok());
    assert!(check_dims(&[10], &[0], &[3]).is_ok());
    assert_eq!(check_dims(&[10], &[5], &[0]), Err(Error::InvalidParam));
}

#[test]
fn block_nbytes_limits() {
    // C-Blosc2 3.3.5: 2^27 items of 8 bytes pass, 2^28 do not; typesize -1 fails.
    assert_eq!(block_nbytes(&[1 << 27], 8), Ok(1 << 30));
    assert_eq!(block_nbytes(&[1 << 28], 8), Err(Error::InvalidParam));
    assert_eq!(block_nbytes(&[2, 3], -1), Err(Error::InvalidParam));
    assert_eq!(block_nbytes(&[2, 3], 0), Ok(0));
    assert_eq!(block_nbytes(&[], 4), Ok(4));
    assert_eq!(
        block_nbytes(&[i32::MAX, i32::MAX, i32::MAX], 1),
        Err(Error::InvalidParam)
    );
}

#[test]
fn ravel_unravel() {
    let shape = [3i64, 4, 5];
    let strides = c_strides(&shape);
    assert_eq!(strides, vec![20, 5, 1]);
    for i in 0..60 {
        assert_eq!(ravel(&unravel(i, &shape), &strides), i);
    }
    assert_eq!(c_strides(&[]), Vec::<i64>::new());
    let g = geom(&[10, 9, 7], &[5, 4, 3], &[2, 3, 2]);
    for n in 0..g.nchunks() {
        assert_eq!(g.nchunk_of(&g.chunk_coords(n)), n);
    }
}

/// A tiny deterministic generator for the randomised tests.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Every element of a slice is found in exactly the chunk/block pieces the iterators give,
/// those pieces touch nothing else, and `locate` agrees with them.
#[test]
fn slice_pieces_cover_exactly_the_slice() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..300 {
        let ndim = 1 + rng.below(4) as usize;
        let shape: Vec<i64> = (0..ndim).map(|_| rng.below(12) as i64).collect();
        let chunk: Vec<i32> = (0..ndim).map(|_| 1 + rng.below(6) as i32).collect();
        let block: Vec<i32> = chunk
            .iter()
            .map(|&c| 1 + rng.below(c as u64 + 1) as i32)
            .collect();
        let g = geom(&shape, &chunk, &block);
        let start: Vec<i64> = shape
            .iter()
            .map(|&s| rng.below(s as u64 + 1) as i64)
            .collect();
        let stop: Vec<i64> = shape
            .iter()
            .zip(&start)
            .map(|(&s, &a)| a + rng.below((s - a) as u64 + 1) as i64)
            .collect();

        // (nchunk, chunk_item) of every element covered by the pieces
        let mut seen = std::collections::BTreeSet::new();
        let mut last_chunk = -1;
        for c in g.slice_chunks(&start, &stop).unwrap() {
            assert!(c.nchunk > last_chunk);
            last_chunk = c.nchunk;
            assert!(c.shape().iter().all(|&n| n > 0));
            let mask = g.block_maskout(&c);
            let mut last_block = -1;
            for b in g.slice_blocks(&c) {
                assert!(b.nblock > last_block);
                last_block = b.nblock;
                assert!(!mask[b.nblock as usize]);
                assert!(b.shape().iter().all(|&n| n > 0));
                for p in BoxIter::new(b.start.clone(), b.stop.clone()) {
                    let l = g.locate(&p).unwrap();
                    assert_eq!((l.nchunk, l.nblock), (c.nchunk, b.nblock));
                    let e: Vec<i64> = p.iter().zip(&b.origin).map(|(x, o)| x - o).collect();
                    assert_eq!(l.item, ravel(&e, &g.item_block_strides()));
                    assert!(seen.insert((l.nchunk, l.chunk_item)));
                }
            }
            assert_eq!(mask.iter().filter(|m| !**m).count() as i64, {
                g.slice_blocks(&c).count() as i64
            });
        }
        let expected: i64 = start.iter().zip(&stop).map(|(a, b)| b - a).product();
        assert_eq!(
            seen.len() as i64,
            expected,
            "{shape:?} {chunk:?} {block:?} {start:?} {stop:?}"
        );
    }
}

#[test]
fn slice_chunk_numbers() {
    let g = geom(&[10, 10], &[3, 4], &[2, 2]);
    assert_eq!(g.chunks_grid(), &[4, 3]);
    assert_eq!(
        g.slice_nchunks(&[0, 0], &[10, 10]).unwrap(),
        (0..12).collect::<Vec<_>>()
    );
    assert_eq!(g.slice_nchunks(&[2, 3], &[4, 5]).unwrap(), vec![0, 1, 3, 4]);
    assert_eq!(g.slice_nchunks(&[3, 4], &[6, 8]).unwrap(), vec![4]);
    assert_eq!(
        g.slice_nchunks(&[3, 4], &[3, 8]).unwrap(),
        Vec::<i64>::new()
    );
    let c: Vec<_> = g.slice_chunks(&[3, 4], &[6, 8]).unwrap().collect();
    assert!(c[0].covers_chunk());
    let c: Vec<_> = g.slice_chunks(&[9, 8], &[10, 10]).unwrap().collect();
    assert_eq!(c.len(), 1);
    assert!(c[0].covers_chunk()); // edge chunk: valid region is [9,10) x [8,10)
    assert_eq!(c[0].end, vec![10, 10]);
    assert_eq!(
        g.slice_nchunks(&[0, 0], &[11, 10]),
        Err(Error::InvalidParam)
    );
    assert_eq!(g.slice_nchunks(&[5, 0], &[4, 10]), Err(Error::InvalidParam));
    assert_eq!(
        g.slice_nchunks(&[-1, 0], &[4, 10]),
        Err(Error::InvalidParam)
    );
    assert_eq!(g.slice_nchunks(&[0], &[4]), Err(Error::InvalidParam));
}
