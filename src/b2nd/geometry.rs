//! Array geometry (B2ND.md §2–3): validation of shape / chunk shape / block shape, the padded
//! shapes, item counts, strides, where each element lives, and which chunks and blocks a slice
//! `[start, stop)` touches.
//!
//! All shapes are C (row-major) order. A chunk is padded to whole blocks (`extchunkshape`), the
//! array to whole chunks (`extshape`); every chunk holds `product(extchunkshape)` items made of
//! whole blocks of `product(blockshape)` items, blocks in C order inside the chunk, items in C
//! order inside the block.

mod slices;

pub use slices::{BlockSlice, ChunkSlice, SliceBlocks, SliceChunks};

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
}

fn widen(v: &[i32]) -> Vec<i64> {
    v.iter().map(|&x| x as i64).collect()
}

#[cfg(test)]
mod tests;
