//! Which chunks and blocks a slice of an array touches, and the parts of each it covers:
//! slice checks, the chunk and block iterators, and block masks.

use super::*;

/// The part of a slice inside one chunk (see [`Geometry::slice_chunks`]).
///
/// # Examples
///
/// ```
/// # use b2rs::b2nd::Geometry;
/// #
/// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
/// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
/// let parts: Vec<_> = g.slice_chunks(&[3, 3], &[5, 5]).unwrap().collect();
/// assert_eq!(parts.len(), 4);
/// let c = &parts[3];
/// assert_eq!((c.nchunk, c.coords.clone(), c.origin.clone(), c.end.clone()), (3, vec![1, 1], vec![4, 4], vec![8, 7]));
/// assert_eq!((c.start.clone(), c.stop.clone()), (vec![4, 4], vec![5, 5]));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkSlice {
    /// Chunk number.
    pub nchunk: i64,
    /// Chunk coordinates in the chunk grid.
    pub coords: Vec<i64>,
    /// Array coordinates of the chunk's first element.
    pub origin: Vec<i64>,
    /// Array coordinates where the chunk's valid (non-padding) region ends:
    /// `min(origin + chunkshape, shape)`.
    pub end: Vec<i64>,
    /// Start of the intersection with the slice (array coordinates).
    pub start: Vec<i64>,
    /// Stop of the intersection with the slice (array coordinates, exclusive).
    pub stop: Vec<i64>,
}

impl ChunkSlice {
    /// Whether the slice covers the whole valid region of the chunk (a writer then needs not
    /// read the chunk first).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// let parts: Vec<_> = g.slice_chunks(&[0, 0], &[4, 5]).unwrap().collect();
    /// assert!(parts[0].covers_chunk()); // rows 0..4, columns 0..4
    /// assert!(!parts[1].covers_chunk()); // only column 4 of columns 4..7
    /// ```
    pub fn covers_chunk(&self) -> bool {
        self.start == self.origin && self.stop == self.end
    }

    /// Shape of the intersection.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// let parts: Vec<_> = g.slice_chunks(&[3, 3], &[5, 5]).unwrap().collect();
    /// let shapes: Vec<Vec<i64>> = parts.iter().map(|c| c.shape()).collect();
    /// assert_eq!(shapes, [[1, 1], [1, 1], [1, 1], [1, 1]]);
    /// ```
    pub fn shape(&self) -> Vec<i64> {
        self.stop
            .iter()
            .zip(&self.start)
            .map(|(b, a)| b - a)
            .collect()
    }
}

/// The part of a slice inside one block of a chunk (see [`Geometry::slice_blocks`]).
///
/// # Examples
///
/// ```
/// # use b2rs::b2nd::Geometry;
/// #
/// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
/// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
/// let chunk = g.slice_chunks(&[3, 3], &[4, 4]).unwrap().next().unwrap();
/// let blocks: Vec<_> = g.slice_blocks(&chunk).collect();
/// assert_eq!(blocks.len(), 1);
/// assert_eq!((blocks[0].nblock, blocks[0].origin.clone()), (3, vec![2, 3]));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockSlice {
    /// Block number inside its chunk.
    pub nblock: i64,
    /// Array coordinates of the block's first element (the block may stick out of the chunk
    /// and of the array; those items are padding).
    pub origin: Vec<i64>,
    /// Start of the intersection with the slice (array coordinates).
    pub start: Vec<i64>,
    /// Stop of the intersection with the slice (array coordinates, exclusive).
    pub stop: Vec<i64>,
}

impl BlockSlice {
    /// Start of the intersection inside the block (block coordinates).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// let chunk = g.slice_chunks(&[3, 3], &[4, 4]).unwrap().next().unwrap();
    /// let block = g.slice_blocks(&chunk).next().unwrap();
    /// assert_eq!(block.start_in_block(), [1, 0]);
    /// ```
    pub fn start_in_block(&self) -> Vec<i64> {
        self.start
            .iter()
            .zip(&self.origin)
            .map(|(a, o)| a - o)
            .collect()
    }

    /// Shape of the intersection.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// let chunk = g.slice_chunks(&[0, 0], &[3, 4]).unwrap().next().unwrap();
    /// let shapes: Vec<Vec<i64>> = g.slice_blocks(&chunk).map(|b| b.shape()).collect();
    /// assert_eq!(shapes, [[2, 3], [2, 1], [1, 3], [1, 1]]);
    /// ```
    pub fn shape(&self) -> Vec<i64> {
        self.stop
            .iter()
            .zip(&self.start)
            .map(|(b, a)| b - a)
            .collect()
    }
}

/// C-order iteration over the integer points of the box `[lo, hi)`.
#[derive(Debug, Clone)]
pub(super) struct BoxIter {
    lo: Vec<i64>,
    hi: Vec<i64>,
    cur: Option<Vec<i64>>,
}

impl BoxIter {
    pub(super) fn new(lo: Vec<i64>, hi: Vec<i64>) -> BoxIter {
        let empty = lo.iter().zip(&hi).any(|(a, b)| a >= b);
        let cur = (!empty).then(|| lo.clone());
        BoxIter { lo, hi, cur }
    }
}

impl Iterator for BoxIter {
    type Item = Vec<i64>;

    fn next(&mut self) -> Option<Vec<i64>> {
        let cur = self.cur.take()?;
        let mut next = cur.clone();
        let mut i = next.len();
        loop {
            if i == 0 {
                break; // wrapped: `cur` was the last point
            }
            i -= 1;
            next[i] += 1;
            if next[i] < self.hi[i] {
                self.cur = Some(next);
                break;
            }
            next[i] = self.lo[i];
        }
        Some(cur)
    }
}

/// The chunks a slice touches, in increasing chunk number ([`Geometry::slice_chunks`]).
///
/// # Examples
///
/// ```
/// # use b2rs::b2nd::Geometry;
/// #
/// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
/// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
/// let nchunks: Vec<i64> = g.slice_chunks(&[0, 0], &[10, 7]).unwrap().map(|c| c.nchunk).collect();
/// assert_eq!(nchunks, [0, 1, 2, 3, 4, 5]);
/// ```
#[derive(Debug, Clone)]
pub struct SliceChunks<'a> {
    geom: &'a Geometry,
    start: Vec<i64>,
    stop: Vec<i64>,
    points: BoxIter,
}

impl Iterator for SliceChunks<'_> {
    type Item = ChunkSlice;

    fn next(&mut self) -> Option<ChunkSlice> {
        let coords = self.points.next()?;
        let g = self.geom;
        let n = coords.len();
        let mut origin = Vec::with_capacity(n);
        let mut end = Vec::with_capacity(n);
        let mut start = Vec::with_capacity(n);
        let mut stop = Vec::with_capacity(n);
        for (i, &c) in coords.iter().enumerate() {
            let o = c * g.chunkshape_()[i] as i64;
            let e = (o + g.chunkshape_()[i] as i64).min(g.shape_()[i]);
            origin.push(o);
            end.push(e);
            start.push(self.start[i].max(o));
            stop.push(self.stop[i].min(e));
        }
        Some(ChunkSlice {
            nchunk: ravel(&coords, g.chunk_grid_strides_()),
            coords,
            origin,
            end,
            start,
            stop,
        })
    }
}

/// The blocks of one chunk a slice touches, in increasing block number
/// ([`Geometry::slice_blocks`]).
///
/// # Examples
///
/// ```
/// # use b2rs::b2nd::Geometry;
/// #
/// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
/// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
/// let chunk = g.slice_chunks(&[0, 0], &[4, 4]).unwrap().next().unwrap();
/// let nblocks: Vec<i64> = g.slice_blocks(&chunk).map(|b| b.nblock).collect();
/// assert_eq!(nblocks, [0, 1, 2, 3]);
/// ```
#[derive(Debug, Clone)]
pub struct SliceBlocks<'a> {
    geom: &'a Geometry,
    chunk: &'a ChunkSlice,
    points: BoxIter,
}

impl Iterator for SliceBlocks<'_> {
    type Item = BlockSlice;

    fn next(&mut self) -> Option<BlockSlice> {
        let coords = self.points.next()?;
        let g = self.geom;
        let c = self.chunk;
        let n = coords.len();
        let mut origin = Vec::with_capacity(n);
        let mut start = Vec::with_capacity(n);
        let mut stop = Vec::with_capacity(n);
        for (i, &b) in coords.iter().enumerate() {
            let o = c.origin[i] + b * g.blockshape_()[i] as i64;
            origin.push(o);
            start.push(c.start[i].max(o));
            stop.push(c.stop[i].min(o + g.blockshape_()[i] as i64));
        }
        Some(BlockSlice {
            nblock: ravel(&coords, g.block_grid_strides_()),
            origin,
            start,
            stop,
        })
    }
}

impl Geometry {
    /// Check a slice `[start, stop)`: both of length `ndim` and `0 ≤ start ≤ stop ≤ shape`.
    /// Errors: [`Error::InvalidParam`].
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// use b2rs::Error;
    ///
    /// assert!(g.check_slice(&[0, 0], &[10, 7]).is_ok());
    /// assert!(g.check_slice(&[3, 3], &[3, 3]).is_ok()); // empty
    /// assert_eq!(g.check_slice(&[0, 0], &[11, 7]), Err(Error::InvalidParam));
    /// assert_eq!(g.check_slice(&[5, 0], &[4, 7]), Err(Error::InvalidParam));
    /// ```
    pub fn check_slice(&self, start: &[i64], stop: &[i64]) -> Result<()> {
        if start.len() != self.ndim() || stop.len() != self.ndim() {
            crate::trace_error!("start and stop must have ndim ({}) items", self.ndim());
            return Err(Error::InvalidParam);
        }
        for i in 0..self.ndim() {
            if start[i] < 0 || start[i] > stop[i] || stop[i] > self.shape_()[i] {
                crate::trace_error!(
                    "slice [{}, {}) is out of the array's dimension {i} (size {})",
                    start[i],
                    stop[i],
                    self.shape_()[i]
                );
                return Err(Error::InvalidParam);
            }
        }
        Ok(())
    }

    /// Check a slice to read: as [`check_slice`](Self::check_slice) but `stop` (and `start`)
    /// may pass the shape, whose outside part reads as zeros, and a `start` past `stop` is an
    /// empty slice (as C-Blosc2 accepts them); `start` must not be negative.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::b2nd::Geometry;
    ///
    /// let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert!(g.check_read_slice(&[8, 0], &[12, 9]).is_ok());
    /// assert!(g.check_slice(&[8, 0], &[12, 9]).is_err());
    /// assert!(g.check_read_slice(&[5, 0], &[4, 7]).is_ok()); // empty
    /// assert!(g.check_read_slice(&[-1, 0], &[4, 7]).is_err());
    /// ```
    pub fn check_read_slice(&self, start: &[i64], stop: &[i64]) -> Result<()> {
        if start.len() != self.ndim() || stop.len() != self.ndim() {
            crate::trace_error!("start and stop must have ndim ({}) items", self.ndim());
            return Err(Error::InvalidParam);
        }
        for i in 0..self.ndim() {
            if start[i] < 0 {
                crate::trace_error!(
                    "slice [{}, {}) is invalid in dimension {i}",
                    start[i],
                    stop[i]
                );
                return Err(Error::InvalidParam);
            }
        }
        Ok(())
    }

    /// The chunks that the slice `[start, stop)` touches, in increasing chunk number, each with
    /// its intersection with the slice. Nothing for an empty slice; for a scalar (ndim 0) the
    /// one chunk. Errors: those of [`check_slice`](Self::check_slice).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// let parts: Vec<_> = g.slice_chunks(&[3, 0], &[5, 2]).unwrap().collect();
    /// let found: Vec<(i64, Vec<i64>)> = parts.iter().map(|c| (c.nchunk, c.shape())).collect();
    /// assert_eq!(found, [(0, vec![1, 2]), (2, vec![1, 2])]);
    /// ```
    pub fn slice_chunks(&self, start: &[i64], stop: &[i64]) -> Result<SliceChunks<'_>> {
        self.check_slice(start, stop)?;
        let n = self.ndim();
        let mut lo = Vec::with_capacity(n);
        let mut hi = Vec::with_capacity(n);
        for i in 0..n {
            if start[i] == stop[i] {
                // empty slice (also covers zero-sized dimensions)
                lo.push(0);
                hi.push(0);
            } else {
                let cs = self.chunkshape_()[i] as i64; // > 0 since shape[i] >= stop[i] > 0
                lo.push(start[i] / cs);
                hi.push(ceil_div(stop[i], cs));
            }
        }
        Ok(SliceChunks {
            geom: self,
            start: start.to_vec(),
            stop: stop.to_vec(),
            points: BoxIter::new(lo, hi),
        })
    }

    /// Chunk numbers touched by the slice `[start, stop)` (what `b2nd_get_slice_nchunks`
    /// returns), in increasing order.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert_eq!(g.slice_nchunks(&[3, 3], &[5, 5]).unwrap(), [0, 1, 2, 3]);
    /// assert_eq!(g.slice_nchunks(&[8, 0], &[10, 7]).unwrap(), [4, 5]);
    /// ```
    pub fn slice_nchunks(&self, start: &[i64], stop: &[i64]) -> Result<Vec<i64>> {
        Ok(self.slice_chunks(start, stop)?.map(|c| c.nchunk).collect())
    }

    /// The blocks of a chunk that its part of a slice touches, in increasing block number, each
    /// with its intersection with the slice. `chunk` comes from
    /// [`slice_chunks`](Self::slice_chunks) of this geometry.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// let chunk = g.slice_chunks(&[1, 1], &[2, 5]).unwrap().next().unwrap();
    /// let blocks: Vec<i64> = g.slice_blocks(&chunk).map(|b| b.nblock).collect();
    /// assert_eq!(blocks, [0, 1]);
    /// ```
    pub fn slice_blocks<'a>(&'a self, chunk: &'a ChunkSlice) -> SliceBlocks<'a> {
        let n = self.ndim();
        let mut lo = Vec::with_capacity(n);
        let mut hi = Vec::with_capacity(n);
        for i in 0..n {
            let bs = self.blockshape_()[i] as i64;
            if chunk.start[i] >= chunk.stop[i] || bs == 0 {
                lo.push(0);
                hi.push(0);
            } else {
                lo.push((chunk.start[i] - chunk.origin[i]) / bs);
                hi.push(ceil_div(chunk.stop[i] - chunk.origin[i], bs));
            }
        }
        SliceBlocks {
            geom: self,
            chunk,
            points: BoxIter::new(lo, hi),
        }
    }

    /// What [`slice_blocks`](Self::slice_blocks) yields, handed to `f` without allocating:
    /// `f(nblock, start_in_block, shape, start)` for each block the chunk's part of the slice
    /// touches, in increasing block number (the slices have `ndim` items: the intersection's
    /// start inside the block, its shape, and its start in array coordinates). Stops at the
    /// first error of `f`.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// let chunk = g.slice_chunks(&[0, 0], &[3, 4]).unwrap().next().unwrap();
    /// let mut shapes = Vec::new();
    /// g.for_each_block(&chunk, |_, _, shape, _| -> Result<(), ()> {
    ///     shapes.push(shape.to_vec());
    ///     Ok(())
    /// })
    /// .unwrap();
    /// let same: Vec<Vec<i64>> = g.slice_blocks(&chunk).map(|b| b.shape()).collect();
    /// assert_eq!(shapes, same);
    /// ```
    pub fn for_each_block<E>(
        &self,
        chunk: &ChunkSlice,
        mut f: impl FnMut(i64, &[i64], &[i64], &[i64]) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let n = self.ndim();
        let (mut lo, mut hi) = ([0i64; MAX_DIM], [0i64; MAX_DIM]);
        for i in 0..n {
            let bs = self.blockshape_()[i] as i64;
            if chunk.start[i] >= chunk.stop[i] || bs == 0 {
                return Ok(());
            }
            lo[i] = (chunk.start[i] - chunk.origin[i]) / bs;
            hi[i] = ceil_div(chunk.stop[i] - chunk.origin[i], bs);
        }
        let mut cur = lo;
        loop {
            let (mut inb, mut shape, mut start) =
                ([0i64; MAX_DIM], [0i64; MAX_DIM], [0i64; MAX_DIM]);
            for i in 0..n {
                let bs = self.blockshape_()[i] as i64;
                let o = chunk.origin[i] + cur[i] * bs;
                start[i] = chunk.start[i].max(o);
                shape[i] = chunk.stop[i].min(o + bs) - start[i];
                inb[i] = start[i] - o;
            }
            let nblock = ravel(&cur[..n], self.block_grid_strides_());
            f(nblock, &inb[..n], &shape[..n], &start[..n])?;
            // the next block, C order
            let mut i = n;
            loop {
                if i == 0 {
                    return Ok(());
                }
                i -= 1;
                cur[i] += 1;
                if cur[i] < hi[i] {
                    break;
                }
                cur[i] = lo[i];
            }
        }
    }

    /// Per block of the chunk, whether a reader of the slice can skip it (`true`, the
    /// convention of `blosc2_set_maskout`).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// // true: the block can be skipped
    /// let chunk = g.slice_chunks(&[3, 3], &[4, 4]).unwrap().next().unwrap();
    /// assert_eq!(g.block_maskout(&chunk), [true, true, true, false]);
    /// ```
    pub fn block_maskout(&self, chunk: &ChunkSlice) -> Vec<bool> {
        let mut mask = vec![true; self.nblocks().max(0) as usize];
        for b in self.slice_blocks(chunk) {
            if let Some(m) = mask.get_mut(b.nblock as usize) {
                *m = false;
            }
        }
        mask
    }

    /// Per block of the chunk, whether the slice covers all of it (`true`): a writer of the
    /// slice overwrites every item of such a block, so it needs not decode it first. A block
    /// that sticks out of the chunk or of the array holds padding the slice does not reach, so
    /// it is never covered.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// // rows 0..2, columns 0..4 of chunk 0: block 0 (columns 0..3) is covered, block 1 is not
    /// let chunk = g.slice_chunks(&[0, 0], &[2, 4]).unwrap().next().unwrap();
    /// assert_eq!(g.blocks_covered(&chunk), [true, false, false, false]);
    /// ```
    pub fn blocks_covered(&self, chunk: &ChunkSlice) -> Vec<bool> {
        let mut covered = vec![false; self.nblocks().max(0) as usize];
        for b in self.slice_blocks(chunk) {
            let whole = (0..self.ndim()).all(|i| {
                b.start[i] == b.origin[i] && b.stop[i] == b.origin[i] + self.blockshape_()[i] as i64
            });
            if let Some(m) = covered.get_mut(b.nblock as usize) {
                *m = whole;
            }
        }
        covered
    }
}
