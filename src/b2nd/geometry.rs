//! Array geometry (B2ND.md §2–3): validation of shape / chunk shape / block shape, the padded
//! shapes, item counts, strides, where each element lives, and which chunks and blocks a slice
//! `[start, stop)` touches.
//!
//! All shapes are C (row-major) order. A chunk is padded to whole blocks (`extchunkshape`), the
//! array to whole chunks (`extshape`); every chunk holds `product(extchunkshape)` items made of
//! whole blocks of `product(blockshape)` items, blocks in C order inside the chunk, items in C
//! order inside the block.

use super::dims::Dims;
use super::MAX_DIM;
use crate::{Error, Result};

/// Largest chunk, in bytes, a super-chunk can hold (`BLOSC2_MAX_BUFFERSIZE`).
const MAX_BUFFERSIZE: i64 = i32::MAX as i64 - 32;

/// Check the dimensions as `b2nd_create_ctx` does: at most [`MAX_DIM`] of them, the three shapes of
/// the same length, no negative sizes, and no zero block size where the chunk size is not zero.
/// Errors: [`Error::InvalidParam`].
///
/// This is weaker than [`Geometry::new`] (a context may carry a shape that is only set later).
///
/// # Examples
///
/// ```
/// use b2rs::b2nd::geometry::check_dims;
/// use b2rs::Error;
///
/// assert!(check_dims(&[10, 7], &[4, 4], &[2, 3]).is_ok());
/// // a zero block size where the chunk size is not zero
/// assert_eq!(check_dims(&[10], &[4], &[0]), Err(Error::InvalidParam));
/// // shapes of different lengths
/// assert_eq!(check_dims(&[10, 7], &[4], &[2]), Err(Error::InvalidParam));
/// ```
pub fn check_dims(shape: &[i64], chunkshape: &[i32], blockshape: &[i32]) -> Result<()> {
    let ndim = shape.len();
    if ndim > MAX_DIM {
        crate::trace_error!("ndim must be in [0, {MAX_DIM}]");
        return Err(Error::InvalidParam);
    }
    if chunkshape.len() != ndim || blockshape.len() != ndim {
        crate::trace_error!("shape, chunkshape and blockshape must have the same length");
        return Err(Error::InvalidParam);
    }
    for i in 0..ndim {
        if shape[i] < 0 {
            crate::trace_error!("shape[{i}] cannot be negative");
            return Err(Error::InvalidParam);
        }
        if chunkshape[i] < 0 || blockshape[i] < 0 {
            crate::trace_error!("chunkshape[{i}] and blockshape[{i}] cannot be negative");
            return Err(Error::InvalidParam);
        }
        if chunkshape[i] != 0 && blockshape[i] == 0 {
            crate::trace_error!("blockshape[{i}] cannot be zero when chunkshape[{i}] is non-zero");
            return Err(Error::InvalidParam);
        }
    }
    Ok(())
}

/// Bytes of one block, `product(blockshape) * itemsize`, which must fit the `i32` Blosc block
/// size (the check of `b2nd_create_ctx`). Errors: [`Error::InvalidParam`].
///
/// # Examples
///
/// ```
/// use b2rs::b2nd::geometry::block_nbytes;
/// use b2rs::Error;
///
/// assert_eq!(block_nbytes(&[2, 3], 8), Ok(48));
/// // does not fit an i32 block size
/// assert_eq!(block_nbytes(&[1 << 20, 1 << 20], 1), Err(Error::InvalidParam));
/// ```
pub fn block_nbytes(blockshape: &[i32], itemsize: i32) -> Result<i32> {
    let n = blockshape
        .iter()
        .try_fold(itemsize as i64, |acc, &b| acc.checked_mul(b as i64));
    match n {
        Some(n) if (0..=i32::MAX as i64).contains(&n) => Ok(n as i32),
        _ => {
            crate::trace_error!("blockshape product overflows the maximum blocksize");
            Err(Error::InvalidParam)
        }
    }
}

/// C-order strides (in items) of a shape.
///
/// # Examples
///
/// ```
/// use b2rs::b2nd::geometry::c_strides;
///
/// assert_eq!(c_strides(&[2, 3, 4]), [12, 4, 1]);
/// ```
pub fn c_strides(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1i64; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1].wrapping_mul(shape[i + 1]);
    }
    strides
}

/// [`c_strides`] of the values `dim(0..n)`, held inline (`n <= MAX_DIM`).
pub(crate) fn c_strides_of(n: usize, dim: impl Fn(usize) -> i64) -> Dims<i64> {
    let mut strides: Dims<i64> = (0..n).map(|_| 1).collect();
    for i in (0..n.saturating_sub(1)).rev() {
        strides[i] = strides[i + 1].wrapping_mul(dim(i + 1));
    }
    strides
}

/// The linear (C-order) index of `coords` with `strides` (`blosc2_multidim_to_unidim`).
///
/// # Examples
///
/// ```
/// use b2rs::b2nd::geometry::{c_strides, ravel};
///
/// assert_eq!(ravel(&[1, 2, 3], &c_strides(&[2, 3, 4])), 23);
/// ```
pub fn ravel(coords: &[i64], strides: &[i64]) -> i64 {
    coords.iter().zip(strides).map(|(c, s)| c * s).sum()
}

/// The coordinates of the linear (C-order) `index` in `shape` (`blosc2_unidim_to_multidim`).
/// Zero-sized dimensions give coordinate 0.
///
/// # Examples
///
/// ```
/// use b2rs::b2nd::geometry::unravel;
///
/// assert_eq!(unravel(23, &[2, 3, 4]), [1, 2, 3]);
/// assert_eq!(unravel(0, &[5, 0]), [0, 0]);
/// ```
pub fn unravel(mut index: i64, shape: &[i64]) -> Vec<i64> {
    let mut coords = vec![0i64; shape.len()];
    for i in (0..shape.len()).rev() {
        if shape[i] > 0 {
            coords[i] = index % shape[i];
            index /= shape[i];
        }
    }
    coords
}

fn ceil_div(a: i64, b: i64) -> i64 {
    if b == 0 {
        0
    } else {
        a / b + i64::from(a % b != 0)
    }
}

/// Where an array element lives (B2ND.md §3).
///
/// # Examples
///
/// ```
/// # use b2rs::b2nd::Geometry;
/// #
/// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
/// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
/// // element (5, 4): chunk (1, 1), first block of that chunk, row 1 of the block
/// let loc = g.locate(&[5, 4]).unwrap();
/// assert_eq!((loc.nchunk, loc.nblock, loc.item, loc.chunk_item), (3, 0, 3, 3));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// Chunk number (C order over the chunk grid).
    pub nchunk: i64,
    /// Block number inside the chunk (C order over the block grid).
    pub nblock: i64,
    /// Item number inside the block (C order over the block shape).
    pub item: i64,
    /// Item offset inside the decoded chunk: `nblock * blocknitems + item` (multiply by the
    /// item size for bytes).
    pub chunk_item: i64,
}

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
struct BoxIter {
    lo: Vec<i64>,
    hi: Vec<i64>,
    cur: Option<Vec<i64>>,
}

impl BoxIter {
    fn new(lo: Vec<i64>, hi: Vec<i64>) -> BoxIter {
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

/// The validated geometry of an array: shapes, padded shapes, item counts and strides.
///
/// # Examples
///
/// ```
/// use b2rs::b2nd::Geometry;
///
/// // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
/// let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
/// assert_eq!(g.extshape(), [12, 8]);
/// assert_eq!((g.nchunks(), g.nblocks()), (6, 4));
/// assert_eq!(g.chunk_nbytes(8), Ok(24 * 8));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Geometry {
    ndim: usize,
    /// `ndim` values each of: shape, extshape, extchunkshape, chunks grid, blocks grid, chunk
    /// grid strides, block grid strides (one allocation: a geometry is made for each B2ND call
    /// of the C API).
    dims: Box<[i64]>,
    /// `ndim` values each of: chunkshape, blockshape.
    shapes32: Box<[i32]>,
    nitems: i64,
    extnitems: i64,
    chunknitems: i32,
    blocknitems: i32,
    extchunknitems: i64,
}

impl Geometry {
    fn part(&self, k: usize) -> &[i64] {
        &self.dims[k * self.ndim..(k + 1) * self.ndim]
    }
    fn shape_(&self) -> &[i64] {
        self.part(0)
    }
    fn extshape_(&self) -> &[i64] {
        self.part(1)
    }
    fn extchunkshape_(&self) -> &[i64] {
        self.part(2)
    }
    fn chunks_grid_(&self) -> &[i64] {
        self.part(3)
    }
    fn blocks_grid_(&self) -> &[i64] {
        self.part(4)
    }
    fn chunk_grid_strides_(&self) -> &[i64] {
        self.part(5)
    }
    fn block_grid_strides_(&self) -> &[i64] {
        self.part(6)
    }
    fn chunkshape_(&self) -> &[i32] {
        &self.shapes32[..self.ndim]
    }
    fn blockshape_(&self) -> &[i32] {
        &self.shapes32[self.ndim..2 * self.ndim]
    }

    /// Validate the shapes as C-Blosc2 does when it creates or opens an array, and derive the
    /// geometry. Errors ([`Error::InvalidParam`]):
    /// * the checks of [`check_dims`] (ndim ≤ [`MAX_DIM`], equal lengths, no negative sizes, no
    ///   zero block size with a non-zero chunk size);
    /// * a non-zero `shape[i]` with a zero chunk or block size (C-Blosc2 rejects it when opening
    ///   a metalayer, and crashes when creating such an array);
    /// * `shape[i]` that cannot be rounded up to a multiple of `chunkshape[i]` in an `i64`;
    /// * item counts that overflow: `product(shape)`, `product(extshape)`,
    ///   `product(extchunkshape)` must fit an `i64`, `product(chunkshape)` and
    ///   `product(blockshape)` an `i32`.
    ///
    /// A block shape larger than the chunk shape is accepted (as C-Blosc2): the chunk is then
    /// padded to one block.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::b2nd::Geometry;
    /// use b2rs::Error;
    ///
    /// let g = Geometry::new(&[100, 100], &[50, 25], &[10, 25]).unwrap();
    /// assert_eq!(g.chunks_grid(), [2, 4]);
    /// // a non-zero dimension with a zero chunk size
    /// assert_eq!(Geometry::new(&[10], &[0], &[0]).err(), Some(Error::InvalidParam));
    /// ```
    pub fn new(shape: &[i64], chunkshape: &[i32], blockshape: &[i32]) -> Result<Geometry> {
        check_dims(shape, chunkshape, blockshape)?;
        let ndim = shape.len();
        let mut extshape = Dims::new();
        let mut extchunkshape = Dims::new();
        for i in 0..ndim {
            let (s, c, b) = (shape[i], chunkshape[i] as i64, blockshape[i] as i64);
            if s != 0 && (c == 0 || b == 0) {
                crate::trace_error!(
                    "shape[{i}] is non-zero but chunkshape[{i}] or blockshape[{i}] is zero"
                );
                return Err(Error::InvalidParam);
            }
            if c == 0 {
                extshape.push(0);
                extchunkshape.push(0);
                continue;
            }
            let ext = if s % c == 0 {
                Some(s)
            } else {
                s.checked_add(c - s % c)
            };
            let Some(ext) = ext else {
                crate::trace_error!("shape[{i}] is too large to round up to chunkshape[{i}]");
                return Err(Error::InvalidParam);
            };
            extshape.push(ext);
            // c > 0 here, so b > 0 (check_dims); the sum fits easily in an i64.
            extchunkshape.push(if c % b == 0 { c } else { c + b - c % b });
        }

        let overflow = |i: usize| {
            crate::trace_error!(
                "shape, chunkshape or blockshape product overflows at dimension {i}"
            );
            Error::InvalidParam
        };
        let (mut nitems, mut extnitems, mut extchunknitems) = (1i64, 1i64, 1i64);
        let (mut chunknitems, mut blocknitems) = (1i32, 1i32);
        for i in 0..ndim {
            nitems = nitems.checked_mul(shape[i]).ok_or_else(|| overflow(i))?;
            extnitems = extnitems
                .checked_mul(extshape[i])
                .ok_or_else(|| overflow(i))?;
            extchunknitems = extchunknitems
                .checked_mul(extchunkshape[i])
                .ok_or_else(|| overflow(i))?;
            chunknitems = chunknitems
                .checked_mul(chunkshape[i])
                .ok_or_else(|| overflow(i))?;
            blocknitems = blocknitems
                .checked_mul(blockshape[i])
                .ok_or_else(|| overflow(i))?;
        }

        let grid = |outer: &[i64], inner: &[i32]| -> Dims<i64> {
            outer
                .iter()
                .zip(inner)
                .map(|(&o, &n)| if n == 0 { 0 } else { o / n as i64 })
                .collect()
        };
        let chunks_grid = grid(&extshape, chunkshape);
        let blocks_grid = grid(&extchunkshape, blockshape);
        let chunk_grid_strides = c_strides_of(ndim, |i| chunks_grid[i]);
        let block_grid_strides = c_strides_of(ndim, |i| blocks_grid[i]);
        let parts: [&[i64]; 7] = [
            shape,
            &extshape,
            &extchunkshape,
            &chunks_grid,
            &blocks_grid,
            &chunk_grid_strides,
            &block_grid_strides,
        ];
        Ok(Geometry {
            ndim,
            dims: parts.concat().into_boxed_slice(),
            shapes32: [chunkshape, blockshape].concat().into_boxed_slice(),
            nitems,
            extnitems,
            chunknitems,
            blocknitems,
            extchunknitems,
        })
    }

    /// Number of dimensions (0 for a scalar).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert_eq!(g.ndim(), 2);
    /// assert_eq!(Geometry::new(&[], &[], &[]).unwrap().ndim(), 0);
    /// ```
    pub fn ndim(&self) -> usize {
        self.shape_().len()
    }

    /// Shape of the array.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert_eq!(g.shape(), [10, 7]);
    /// ```
    pub fn shape(&self) -> &[i64] {
        self.shape_()
    }

    /// Shape of the chunks.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert_eq!(g.chunkshape(), [4, 4]);
    /// ```
    pub fn chunkshape(&self) -> &[i32] {
        self.chunkshape_()
    }

    /// Shape of the blocks.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert_eq!(g.blockshape(), [2, 3]);
    /// ```
    pub fn blockshape(&self) -> &[i32] {
        self.blockshape_()
    }

    /// Shape of the array padded to whole chunks: `ceil(shape / chunkshape) * chunkshape`
    /// (0 where the chunk size is 0).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert_eq!(g.extshape(), [12, 8]);
    /// ```
    pub fn extshape(&self) -> &[i64] {
        self.extshape_()
    }

    /// Shape of a chunk padded to whole blocks: `ceil(chunkshape / blockshape) * blockshape`
    /// (0 where the chunk size is 0).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// // 4 columns in blocks of 3: padded to 6
    /// assert_eq!(g.extchunkshape(), [4, 6]);
    /// ```
    pub fn extchunkshape(&self) -> &[i64] {
        self.extchunkshape_()
    }

    /// Number of chunks along each dimension (`extshape / chunkshape`).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert_eq!(g.chunks_grid(), [3, 2]);
    /// ```
    pub fn chunks_grid(&self) -> &[i64] {
        self.chunks_grid_()
    }

    /// Number of blocks along each dimension of a chunk (`extchunkshape / blockshape`).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert_eq!(g.blocks_grid(), [2, 2]);
    /// ```
    pub fn blocks_grid(&self) -> &[i64] {
        self.blocks_grid_()
    }

    /// Number of items of the array (1 for a scalar).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert_eq!(g.nitems(), 70);
    /// ```
    pub fn nitems(&self) -> i64 {
        self.nitems
    }

    /// Number of items of the padded array (`product(extshape)`).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert_eq!(g.extnitems(), 96);
    /// ```
    pub fn extnitems(&self) -> i64 {
        self.extnitems
    }

    /// Number of items of a chunk without block padding (`product(chunkshape)`).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert_eq!(g.chunknitems(), 16);
    /// ```
    pub fn chunknitems(&self) -> i32 {
        self.chunknitems
    }

    /// Number of items of a block (`product(blockshape)`).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert_eq!(g.blocknitems(), 6);
    /// ```
    pub fn blocknitems(&self) -> i32 {
        self.blocknitems
    }

    /// Number of items stored in every chunk (`product(extchunkshape)`).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert_eq!(g.extchunknitems(), 24);
    /// ```
    pub fn extchunknitems(&self) -> i64 {
        self.extchunknitems
    }

    /// Number of chunks of the array: `product(chunks_grid)`, 0 when the array is empty, 1 for a
    /// scalar.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert_eq!(g.nchunks(), 6);
    /// assert_eq!(Geometry::new(&[0], &[4], &[2]).unwrap().nchunks(), 0);
    /// ```
    pub fn nchunks(&self) -> i64 {
        if self.nitems == 0 {
            0
        } else {
            self.chunks_grid_().iter().product()
        }
    }

    /// Number of blocks in each chunk (`product(blocks_grid)`).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert_eq!(g.nblocks(), 4);
    /// ```
    pub fn nblocks(&self) -> i64 {
        self.blocks_grid_().iter().product()
    }

    /// Bytes of every chunk (`extchunknitems * itemsize`, the super-chunk's `chunksize`).
    /// Errors: [`Error::MaxBufsizeExceeded`] above `BLOSC2_MAX_BUFFERSIZE` (as C-Blosc2),
    /// [`Error::InvalidParam`] for a negative `itemsize`.
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
    /// assert_eq!(g.chunk_nbytes(8), Ok(192));
    /// assert_eq!(g.chunk_nbytes(-1), Err(Error::InvalidParam));
    /// ```
    pub fn chunk_nbytes(&self, itemsize: i32) -> Result<i32> {
        if itemsize < 0 {
            crate::trace_error!("Invalid typesize");
            return Err(Error::InvalidParam);
        }
        match self.extchunknitems.checked_mul(itemsize as i64) {
            Some(n) if n <= MAX_BUFFERSIZE => Ok(n as i32),
            _ => {
                crate::trace_error!("Chunksize exceeds maximum of {MAX_BUFFERSIZE}");
                Err(Error::MaxBufsizeExceeded)
            }
        }
    }

    /// Bytes of one block (the Blosc blocksize of the chunks); see [`block_nbytes`].
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert_eq!(g.block_nbytes(4), Ok(24));
    /// ```
    pub fn block_nbytes(&self, itemsize: i32) -> Result<i32> {
        block_nbytes(self.blockshape_(), itemsize)
    }

    /// C-order item strides of the array.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert_eq!(g.item_array_strides(), [7, 1]);
    /// ```
    pub fn item_array_strides(&self) -> Vec<i64> {
        c_strides(self.shape_())
    }

    /// C-order item strides of a chunk without padding (`chunkshape`).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert_eq!(g.item_chunk_strides(), [4, 1]);
    /// ```
    pub fn item_chunk_strides(&self) -> Vec<i64> {
        c_strides(&widen(self.chunkshape_()))
    }

    /// C-order item strides of a padded chunk (`extchunkshape`).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert_eq!(g.item_extchunk_strides(), [6, 1]);
    /// ```
    pub fn item_extchunk_strides(&self) -> Vec<i64> {
        c_strides(self.extchunkshape_())
    }

    /// C-order item strides of a block (`blockshape`).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert_eq!(g.item_block_strides(), [3, 1]);
    /// ```
    pub fn item_block_strides(&self) -> Vec<i64> {
        c_strides(&widen(self.blockshape_()))
    }

    /// C-order strides of the block grid of a chunk (block number of block coordinates).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert_eq!(g.block_chunk_strides(), [2, 1]);
    /// ```
    pub fn block_chunk_strides(&self) -> &[i64] {
        self.block_grid_strides_()
    }

    /// C-order strides of the chunk grid (chunk number of chunk coordinates).
    ///
    /// C-Blosc2 stores something else in `b2nd_array_t.chunk_array_strides`
    /// (`stride[i+1] * extshape[i+1] * chunkshape[i+1]`, a bug it never reads back); these are the
    /// real ones.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert_eq!(g.chunk_array_strides(), [2, 1]);
    /// ```
    pub fn chunk_array_strides(&self) -> &[i64] {
        self.chunk_grid_strides_()
    }

    /// Chunk number of chunk-grid coordinates.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert_eq!(g.nchunk_of(&[1, 1]), 3);
    /// assert_eq!(g.nchunk_of(&[2, 0]), 4);
    /// ```
    pub fn nchunk_of(&self, chunk_coords: &[i64]) -> i64 {
        ravel(chunk_coords, self.chunk_grid_strides_())
    }

    /// Chunk-grid coordinates of a chunk number.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::Geometry;
    /// #
    /// # // a 10 x 7 array in chunks of 4 x 4 and blocks of 2 x 3
    /// # let g = Geometry::new(&[10, 7], &[4, 4], &[2, 3]).unwrap();
    /// assert_eq!(g.chunk_coords(5), [2, 1]);
    /// ```
    pub fn chunk_coords(&self, nchunk: i64) -> Vec<i64> {
        unravel(nchunk, self.chunks_grid_())
    }

    /// Where the element at array coordinates `index` lives. Errors: [`Error::InvalidIndex`]
    /// when `index` has the wrong length or lies outside the array.
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
    /// let loc = g.locate(&[9, 6]).unwrap();
    /// // chunk (2, 1), its first block, row 1 column 2 of that block
    /// assert_eq!((loc.nchunk, loc.nblock, loc.item), (5, 0, 5));
    /// assert_eq!(g.locate(&[10, 0]).err(), Some(Error::InvalidIndex));
    /// assert_eq!(g.locate(&[1]).err(), Some(Error::InvalidIndex));
    /// ```
    pub fn locate(&self, index: &[i64]) -> Result<Location> {
        if index.len() != self.ndim()
            || index
                .iter()
                .zip(self.shape_())
                .any(|(&g, &s)| g < 0 || g >= s)
        {
            crate::trace_error!("Coordinate out of bounds");
            return Err(Error::InvalidIndex);
        }
        let n = self.ndim();
        let (mut c, mut b, mut e) = (vec![0; n], vec![0; n], vec![0; n]);
        for i in 0..n {
            let cs = self.chunkshape_()[i] as i64;
            let bs = self.blockshape_()[i] as i64;
            c[i] = index[i] / cs;
            let r = index[i] % cs;
            b[i] = r / bs;
            e[i] = r % bs;
        }
        let nblock = ravel(&b, self.block_grid_strides_());
        let item = ravel(&e, &self.item_block_strides());
        Ok(Location {
            nchunk: ravel(&c, self.chunk_grid_strides_()),
            nblock,
            item,
            chunk_item: nblock * self.blocknitems as i64 + item,
        })
    }

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

fn widen(v: &[i32]) -> Vec<i64> {
    v.iter().map(|&x| x as i64).collect()
}

#[cfg(test)]
mod tests {
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
}
