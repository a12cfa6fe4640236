//! Copies of arrays and of their slices into new arrays, and concatenations along an axis
//! (decoded and compressed again; `chunkcopy.rs` stores matching compressed chunks as they are).

use super::*;

/// The user buffer of a block copy.
pub(super) enum BufRef<'a> {
    /// Destination.
    Out(&'a mut [u8]),
    /// Source.
    In(&'a [u8]),
}

/// Concatenate `a` and `b` along `axis` into a new array on the empty super-chunk `sc` with
/// the chunk and block shapes and dtype of `meta`. The shapes must agree except along `axis`
/// and the item sizes must be equal.
///
/// # Examples
///
/// ```
/// # use b2rs::b2nd::{Array, Fill, Meta};
/// # use b2rs::{CParams, DParams};
/// #
/// # // a 4 x 6 array of u8 holding 0..24, in chunks of 2 x 3 and blocks of 1 x 3
/// # let data: Vec<u8> = (0..24).collect();
/// # let meta = Meta::new(&[4, 6], &[2, 3], &[1, 3]).with_dtype("|u1");
/// # let cparams = CParams { typesize: 1, ..CParams::default() };
/// # let mut a = Array::new(cparams.clone(), DParams::default(), &meta, Fill::Buffer(&data)).unwrap();
/// use b2rs::b2nd::array::concatenate;
/// use b2rs::schunk::Schunk;
///
/// let mut b = Array::new(cparams.clone(), DParams::default(), &meta, Fill::Value(&[99])).unwrap();
/// let out = Schunk::new(cparams.clone(), DParams::default());
/// let mut c = concatenate(&mut a, &mut b, 0, out, &meta).unwrap();
/// assert_eq!(c.shape(), [8, 6]);
/// let v = c.to_vec().unwrap();
/// assert_eq!(v[..24], data[..]);
/// assert_eq!(v[24..], [99; 24]);
/// ```
pub fn concatenate<A, B, T>(
    a: &mut Array<A>,
    b: &mut Array<B>,
    axis: usize,
    sc: T,
    meta: &Meta,
) -> Result<Array<T>>
where
    A: BorrowMut<Schunk>,
    B: BorrowMut<Schunk>,
    T: BorrowMut<Schunk>,
{
    let shape = concat_shape(a, b, axis)?;
    let mut m = meta.clone();
    if m.ndim() != a.ndim() {
        crate::trace_error!("The new array must have the same ndim");
        return Err(Error::InvalidParam);
    }
    m.shape = shape;
    if m.chunkshape == a.geom.chunkshape() && m.blockshape == a.geom.blockshape() {
        // a copy of the first (its compressed chunks when they fit), then the second appended
        let mut am = m.clone();
        am.shape = a.shape().to_vec();
        let mut dst = a.copy_into_unfilled(Array::create_unfilled(sc, &am)?)?;
        concatenate_into(&mut dst, b, axis)?;
        return Ok(dst);
    }
    let mut dst = Array::create(sc, &m, Fill::Uninit)?;
    let zero = vec![0i64; a.ndim()];
    let ashape = a.shape().to_vec();
    a.copy_slice_to(&zero, &ashape, &mut dst, &zero)?;
    let mut at = zero.clone();
    at[axis] = ashape[axis];
    let bshape = b.shape().to_vec();
    b.copy_slice_to(&zero, &bshape, &mut dst, &at)?;
    Ok(dst)
}

/// Append `b` to `a` along `axis` in place (`a` grows).
///
/// # Examples
///
/// ```
/// # use b2rs::b2nd::{Array, Fill, Meta};
/// # use b2rs::{CParams, DParams};
/// #
/// # // a 4 x 6 array of u8 holding 0..24, in chunks of 2 x 3 and blocks of 1 x 3
/// # let data: Vec<u8> = (0..24).collect();
/// # let meta = Meta::new(&[4, 6], &[2, 3], &[1, 3]).with_dtype("|u1");
/// # let cparams = CParams { typesize: 1, ..CParams::default() };
/// # let mut a = Array::new(cparams.clone(), DParams::default(), &meta, Fill::Buffer(&data)).unwrap();
/// use b2rs::b2nd::array::concatenate_into;
///
/// let mut b = Array::new(cparams.clone(), DParams::default(), &meta, Fill::Value(&[99])).unwrap();
/// concatenate_into(&mut a, &mut b, 1).unwrap();
/// assert_eq!(a.shape(), [4, 12]);
/// assert_eq!(a.to_vec().unwrap()[..12], [0, 1, 2, 3, 4, 5, 99, 99, 99, 99, 99, 99]);
/// ```
pub fn concatenate_into<A, B>(a: &mut Array<A>, b: &mut Array<B>, axis: usize) -> Result<()>
where
    A: BorrowMut<Schunk>,
    B: BorrowMut<Schunk>,
{
    let shape = concat_shape(a, b, axis)?;
    let mut at = vec![0i64; a.ndim()];
    at[axis] = a.shape()[axis];
    let chunks_move = b.chunks_fit(a) && a.shape()[axis] % a.geom.chunkshape()[axis] as i64 == 0;
    a.resize(&shape, None)?;
    if chunks_move {
        // as C-Blosc2: the second array's compressed chunks are stored as they are
        return b.move_chunks_to(a, axis, at[axis]);
    }
    let zero = vec![0i64; b.ndim()];
    let bshape = b.shape().to_vec();
    b.copy_slice_to(&zero, &bshape, a, &at)
}

pub(super) fn concat_shape<A, B>(a: &Array<A>, b: &Array<B>, axis: usize) -> Result<Vec<i64>>
where
    A: BorrowMut<Schunk>,
    B: BorrowMut<Schunk>,
{
    if a.ndim() != b.ndim() || axis >= a.ndim() || a.itemsize() != b.itemsize() {
        crate::trace_error!("Arrays of different ndim or item sizes, or axis out of range");
        return Err(Error::InvalidParam);
    }
    let mut shape = a.shape().to_vec();
    for i in 0..a.ndim() {
        if i != axis && a.shape()[i] != b.shape()[i] {
            crate::trace_error!("The shapes differ in dimension {i}");
            return Err(Error::InvalidParam);
        }
    }
    shape[axis] = shape[axis]
        .checked_add(b.shape()[axis])
        .ok_or(Error::InvalidParam)?;
    Ok(shape)
}

impl<S: BorrowMut<Schunk>> Array<S> {
    /// Copy the slice `[start, stop)` into `dst` at `dst_start`, one destination chunk at a
    /// time.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::{Array, Fill, Meta};
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // a 4 x 6 array of u8 holding 0..24, in chunks of 2 x 3 and blocks of 1 x 3
    /// # let data: Vec<u8> = (0..24).collect();
    /// # let meta = Meta::new(&[4, 6], &[2, 3], &[1, 3]).with_dtype("|u1");
    /// # let cparams = CParams { typesize: 1, ..CParams::default() };
    /// # let mut a = Array::new(cparams.clone(), DParams::default(), &meta, Fill::Buffer(&data)).unwrap();
    /// let mut dst = Array::new(cparams.clone(), DParams::default(), &meta, Fill::Zero).unwrap();
    /// // rows 0..2 of `a` into rows 2..4 of `dst`
    /// a.copy_slice_to(&[0, 0], &[2, 6], &mut dst, &[2, 0]).unwrap();
    /// let v = dst.to_vec().unwrap();
    /// assert_eq!(v[..12], [0; 12]);
    /// assert_eq!(v[12..], data[..12]);
    /// ```
    pub fn copy_slice_to<T: BorrowMut<Schunk>>(
        &mut self,
        start: &[i64],
        stop: &[i64],
        dst: &mut Array<T>,
        dst_start: &[i64],
    ) -> Result<()> {
        // the source range may pass the shape (zeros there), as for get_slice_cbuffer
        self.geom.check_read_slice(start, stop)?;
        if dst.itemsize() != self.itemsize() || dst_start.len() != self.ndim() {
            crate::trace_error!("Arrays of different item sizes or ndim");
            return Err(Error::InvalidParam);
        }
        let dst_stop: Vec<i64> = (0..self.ndim())
            .map(|i| dst_start[i] + stop[i] - start[i])
            .collect();
        let chunks: Vec<ChunkSlice> = dst.geom.slice_chunks(dst_start, &dst_stop)?.collect();
        // the piece of each destination chunk passes through a buffer the thread keeps (the
        // piece fills it: no zeroing, and no allocation per chunk or call)
        let mut tmp = SLICE_SCRATCH.with(|t| t.take());
        let r = (|| {
            for c in chunks {
                let shape = c.shape();
                let s: Vec<i64> = (0..self.ndim())
                    .map(|i| c.start[i] - dst_start[i] + start[i])
                    .collect();
                let e: Vec<i64> = s.iter().zip(&shape).map(|(a, n)| a + n).collect();
                let n = buffer_len(&shape, self.itemsize())?;
                if tmp.len() < n {
                    tmp = Vec::new();
                    tmp = crate::error::zeroed_vec(n)?;
                }
                self.get_slice_cbuffer(&s, &e, &mut tmp[..n], &shape)?;
                dst.set_slice_cbuffer(&tmp[..n], &shape, &c.start, &c.stop)?;
            }
            Ok(())
        })();
        if tmp.len() <= SLICE_SCRATCH_MAX {
            SLICE_SCRATCH.with(|t| t.replace(tmp));
        }
        r
    }

    /// A copy of the data in a new array on the empty super-chunk `sc` with the chunk and
    /// block shapes and dtype of `meta` (its shape is replaced by this array's).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::{Array, Fill, Meta};
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // a 4 x 6 array of u8 holding 0..24, in chunks of 2 x 3 and blocks of 1 x 3
    /// # let data: Vec<u8> = (0..24).collect();
    /// # let meta = Meta::new(&[4, 6], &[2, 3], &[1, 3]).with_dtype("|u1");
    /// # let cparams = CParams { typesize: 1, ..CParams::default() };
    /// # let mut a = Array::new(cparams.clone(), DParams::default(), &meta, Fill::Buffer(&data)).unwrap();
    /// use b2rs::schunk::Schunk;
    ///
    /// // a copy with other chunks and blocks
    /// let other = Meta::new(&[0, 0], &[4, 6], &[2, 6]);
    /// let mut b = a.copy_to(Schunk::new(cparams.clone(), DParams::default()), &other).unwrap();
    /// assert_eq!(b.shape(), [4, 6]);
    /// assert_eq!(b.schunk().nchunks(), 1);
    /// assert_eq!(b.to_vec().unwrap(), data);
    /// ```
    pub fn copy_to<T: BorrowMut<Schunk>>(&mut self, sc: T, meta: &Meta) -> Result<Array<T>> {
        let zero = vec![0i64; self.ndim()];
        let shape = self.geom.shape().to_vec();
        self.slice_to(sc, meta, &zero, &shape)
    }

    /// The slice `[start, stop)` as a new array on the empty super-chunk `sc` with the chunk
    /// and block shapes and dtype of `meta` (its shape is replaced by `stop - start`).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::{Array, Fill, Meta};
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // a 4 x 6 array of u8 holding 0..24, in chunks of 2 x 3 and blocks of 1 x 3
    /// # let data: Vec<u8> = (0..24).collect();
    /// # let meta = Meta::new(&[4, 6], &[2, 3], &[1, 3]).with_dtype("|u1");
    /// # let cparams = CParams { typesize: 1, ..CParams::default() };
    /// # let mut a = Array::new(cparams.clone(), DParams::default(), &meta, Fill::Buffer(&data)).unwrap();
    /// use b2rs::schunk::Schunk;
    ///
    /// let small = Meta::new(&[0, 0], &[2, 2], &[1, 2]);
    /// let mut b = a.slice_to(Schunk::new(cparams.clone(), DParams::default()), &small, &[1, 1], &[3, 3]).unwrap();
    /// assert_eq!(b.shape(), [2, 2]);
    /// assert_eq!(b.to_vec().unwrap(), [7, 8, 13, 14]);
    /// ```
    pub fn slice_to<T: BorrowMut<Schunk>>(
        &mut self,
        sc: T,
        meta: &Meta,
        start: &[i64],
        stop: &[i64],
    ) -> Result<Array<T>> {
        self.geom.check_read_slice(start, stop)?;
        if meta.ndim() != self.ndim() {
            crate::trace_error!("The new array must have the same ndim");
            return Err(Error::InvalidParam);
        }
        let mut m = meta.clone();
        m.shape = stop.iter().zip(start).map(|(b, a)| b - a).collect();
        let whole = start.iter().all(|&x| x == 0) && stop == self.geom.shape();
        if whole {
            let dst = Array::create_unfilled(sc, &m)?;
            return self.copy_into_unfilled(dst);
        }
        let mut dst = Array::create(sc, &m, Fill::Uninit)?;
        let zero = vec![0i64; self.ndim()];
        self.copy_slice_to(start, stop, &mut dst, &zero)?;
        Ok(dst)
    }
}
