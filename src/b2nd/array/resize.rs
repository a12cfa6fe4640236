//! Shape changes of B2ND arrays chunk by chunk, as C-Blosc2 makes them (`b2nd_resize`,
//! `b2nd_insert`, `b2nd_append`, `b2nd_delete`).
//!
//! Only the chunks a change touches are written: a shrink deletes the chunks that lie wholly
//! in the removed range (edge chunks keep their bytes, the items past the new edge becoming
//! padding), a growth inserts special zero chunks where the chunk grid gains chunks (a header
//! each) and changes nothing else, so that the items a dimension gains inside an old edge chunk
//! show what that chunk's padding held, as in C-Blosc2. No chunk is decoded; the cost is that
//! of the index changes and the metalayer.

use super::{buffer_len, Array, Geometry};
use crate::chunk::header::{Special, EXTENDED_HEADER_LENGTH};
use crate::chunk::special::special_chunk;
use crate::schunk::Schunk;
use crate::{Error, Result};
use std::borrow::BorrowMut;

impl<S: BorrowMut<Schunk>> Array<S> {
    /// Change the shape. With `start`, dimension `i` grows by inserting items at `start[i]`
    /// or shrinks by removing the items from `start[i]` (as C-Blosc2, a `start[i]` other than
    /// the end must be a multiple of the chunk shape, and so must the change); without it,
    /// items are added or removed at the end. Items in new chunks are zeros; items gained
    /// inside an old edge chunk show what its padding held (zeros for chunks written whole,
    /// the fill value of [`Fill::Value`](super::Fill::Value) arrays, items removed by an
    /// earlier shrink), as in C-Blosc2. Only the chunks entering or leaving the grid are
    /// written or deleted: no chunk is decoded.
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
    /// a.resize(&[6, 6], None).unwrap();
    /// let v = a.to_vec().unwrap();
    /// assert_eq!(v[..24], data[..]);
    /// assert_eq!(v[24..], [0; 12]); // new chunks hold zeros
    /// assert_eq!(a.schunk().nchunks(), 6);
    /// // the last column goes into the padding of the chunks that keep columns 3 and 4
    /// a.resize(&[4, 5], None).unwrap();
    /// assert_eq!(a.to_vec().unwrap()[..10], [0, 1, 2, 3, 4, 6, 7, 8, 9, 10]);
    /// // growing back inside those chunks shows what their padding holds: the old items
    /// a.resize(&[4, 6], None).unwrap();
    /// assert_eq!(a.to_vec().unwrap(), data);
    /// a.resize(&[2, 3], None).unwrap();
    /// assert_eq!(a.to_vec().unwrap(), [0, 1, 2, 6, 7, 8]);
    /// ```
    pub fn resize(&mut self, new_shape: &[i64], start: Option<&[i64]>) -> Result<()> {
        let ndim = self.ndim();
        if new_shape.len() != ndim || start.is_some_and(|s| s.len() != ndim) {
            crate::trace_error!("new_shape and start must have ndim items");
            return Err(Error::InvalidParam);
        }
        let shape = self.geom.shape().to_vec();
        let mut at = Vec::with_capacity(ndim);
        for i in 0..ndim {
            let (old, new) = (shape[i], new_shape[i]);
            if new < 0 {
                crate::trace_error!("The new shape cannot be negative");
                return Err(Error::InvalidParam);
            }
            let cs = self.geom.chunkshape()[i] as i64;
            let s = match start {
                None => old.min(new),
                Some(st) => st[i],
            };
            if new == old {
                at.push(old);
                continue;
            }
            let delta = (new - old).abs();
            let ok = if new > old {
                s == old || (s >= 0 && s < old && cs > 0 && s % cs == 0 && delta % cs == 0)
            } else {
                s >= 0
                    && s.checked_add(delta).is_some_and(|e| e <= old)
                    && (s + delta == old || (cs > 0 && s % cs == 0 && delta % cs == 0))
            };
            if !ok {
                crate::trace_error!(
                    "Cannot resize dimension {i} at {s}: the position and the change must be \
                     multiples of the chunk shape, or at the end"
                );
                return Err(Error::InvalidParam);
            }
            at.push(s);
        }
        // chunks over 2 GiB cannot be written (C-Blosc2 answers BLOSC2_ERROR_FAILURE)
        self.chunk_nbytes().map_err(|e| match e {
            Error::MaxBufsizeExceeded => Error::Failure,
            e => e,
        })?;
        if shape == new_shape {
            return Ok(());
        }
        let shrunk: Vec<i64> = shape
            .iter()
            .zip(new_shape)
            .map(|(&o, &n)| o.min(n))
            .collect();
        let r = self
            .shrink(&shrunk, start)
            .and_then(|()| self.extend(new_shape, start));
        // the metalayer describes the shape reached, also after a failure half-way
        let m = self.write_meta();
        r.and(m)
    }

    /// Shrink to `shrunk` (every dimension at most the current one): delete the chunks whose
    /// origin lies in a removed range `[start, start + removed)` of some dimension (`start`
    /// the new shape when not given), as C-Blosc2's `shrink_shape`. One dimension after the
    /// other, each as runs of chunks (the same chunks go, the others keep their order).
    fn shrink(&mut self, shrunk: &[i64], start: Option<&[i64]>) -> Result<()> {
        let mut cur = self.geom.shape().to_vec();
        for j in 0..cur.len() {
            if cur[j] == shrunk[j] {
                continue;
            }
            let at = start.map_or(shrunk[j], |s| s[j]);
            let (lo, hi) = chunk_span(at, cur[j] - shrunk[j], self.geom.chunkshape()[j]);
            let hi = hi.min(self.geom.chunks_grid()[j]);
            if hi > lo {
                let runs = Runs::along(self.geom.chunks_grid(), j, lo, hi - lo)?;
                let s: &mut Schunk = self.sc.borrow_mut();
                for pos in runs.positions().rev() {
                    s.delete_chunk_run(pos, runs.len)?;
                }
            }
            cur[j] = shrunk[j];
            self.geom = Geometry::new(&cur, self.geom.chunkshape(), self.geom.blockshape())?;
        }
        Ok(())
    }

    /// Grow to `new_shape` (every dimension at least the current one): insert a special zero
    /// chunk at every position of the new chunk grid whose origin lies in an added range
    /// `[start, start + added)` of some dimension (`start` the current shape when not given),
    /// as C-Blosc2's `extend_shape`. One dimension after the other, each as runs of chunks.
    fn extend(&mut self, new_shape: &[i64], start: Option<&[i64]>) -> Result<()> {
        let mut cur = self.geom.shape().to_vec();
        if cur == new_shape {
            return Ok(());
        }
        let total = Geometry::new(new_shape, self.geom.chunkshape(), self.geom.blockshape())?;
        if total.nchunks() > crate::frame::index::MAX_NCHUNKS {
            crate::trace_error!("The new shape needs {} chunks: too many", total.nchunks());
            return Err(Error::Failure);
        }
        let chunk_nbytes = total.chunk_nbytes(self.sc.borrow().typesize())? as usize;
        let mut zeros = [0u8; EXTENDED_HEADER_LENGTH];
        let n = {
            let s: &Schunk = self.sc.borrow();
            special_chunk(s.cparams(), Special::Zero, chunk_nbytes, None, &mut zeros)?
        };
        for j in 0..cur.len() {
            if cur[j] == new_shape[j] {
                continue;
            }
            let at = start.map_or(cur[j], |s| s[j]);
            let added = new_shape[j] - cur[j];
            cur[j] = new_shape[j];
            let geom = Geometry::new(&cur, self.geom.chunkshape(), self.geom.blockshape())?;
            let (lo, hi) = chunk_span(at, added, geom.chunkshape()[j]);
            let hi = hi.min(geom.chunks_grid()[j]);
            if hi > lo {
                let runs = Runs::along(geom.chunks_grid(), j, lo, hi - lo)?;
                let s: &mut Schunk = self.sc.borrow_mut();
                for pos in runs.positions() {
                    s.insert_chunk_run(pos, runs.len, &zeros[..n])?;
                }
            }
            self.geom = geom;
        }
        Ok(())
    }

    /// Insert the C-order items of `buf` along `axis` at `at` (same rules as
    /// [`resize`](Self::resize)); the buffer's shape is the array's with `axis` set to
    /// `buf.len() / (itemsize × product of the other dimensions)`.
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
    /// // two rows at row 2 (a multiple of the chunk shape)
    /// a.insert(&[100; 12], 0, 2).unwrap();
    /// assert_eq!(a.shape(), [6, 6]);
    /// let v = a.to_vec().unwrap();
    /// assert_eq!((v[11], v[12], v[23], v[24]), (11, 100, 100, 12));
    /// ```
    pub fn insert(&mut self, buf: &[u8], axis: usize, at: i64) -> Result<()> {
        let ndim = self.ndim();
        if axis >= ndim {
            crate::trace_error!("axis ({axis}) must be lower than ndim ({ndim})");
            return Err(Error::InvalidParam);
        }
        let mut other = self.geom.shape().to_vec();
        other[axis] = 1;
        let per = buffer_len(&other, self.itemsize())?;
        if per == 0 {
            if buf.is_empty() {
                return Ok(());
            }
            crate::trace_error!("Cannot insert into an array with a zero-sized dimension");
            return Err(Error::InvalidParam);
        }
        if !buf.len().is_multiple_of(per) {
            crate::trace_error!("The buffer size must be a multiple of the size of a slab");
            return Err(Error::InvalidParam);
        }
        let n = (buf.len() / per) as i64;
        if n == 0 {
            return Ok(());
        }
        let mut new_shape = self.geom.shape().to_vec();
        let mut start = new_shape.clone();
        new_shape[axis] += n;
        start[axis] = at;
        self.resize(&new_shape, Some(&start))?;
        let mut bshape = self.geom.shape().to_vec();
        bshape[axis] = n;
        let mut s = vec![0i64; ndim];
        s[axis] = at;
        let e: Vec<i64> = s.iter().zip(&bshape).map(|(a, b)| a + b).collect();
        self.set_slice_cbuffer(buf, &bshape, &s, &e)
    }

    /// Append the items of `buf` at the end of `axis` (see [`insert`](Self::insert)).
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
    /// // three more columns: a 4 x 3 buffer
    /// a.append(&[200; 12], 1).unwrap();
    /// assert_eq!(a.shape(), [4, 9]);
    /// assert_eq!(a.to_vec().unwrap()[..9], [0, 1, 2, 3, 4, 5, 200, 200, 200]);
    /// ```
    pub fn append(&mut self, buf: &[u8], axis: usize) -> Result<()> {
        let at = *self.geom.shape().get(axis).ok_or_else(|| {
            crate::trace_error!("axis ({axis}) must be lower than ndim");
            Error::InvalidParam
        })?;
        self.insert(buf, axis, at)
    }

    /// Remove `len` items of `axis` from `start` (same rules as [`resize`](Self::resize)).
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
    /// a.delete(0, 0, 2).unwrap();
    /// assert_eq!(a.shape(), [2, 6]);
    /// assert_eq!(a.to_vec().unwrap(), data[12..]);
    /// ```
    pub fn delete(&mut self, axis: usize, start: i64, len: i64) -> Result<()> {
        let ndim = self.ndim();
        if axis >= ndim || len < 0 {
            crate::trace_error!("axis ({axis}) must be lower than ndim and len non-negative");
            return Err(Error::InvalidParam);
        }
        let mut new_shape = self.geom.shape().to_vec();
        let mut st = new_shape.clone();
        if len > new_shape[axis] {
            crate::trace_error!("Cannot delete more items than there are");
            return Err(Error::InvalidParam);
        }
        new_shape[axis] -= len;
        st[axis] = start;
        self.resize(&new_shape, Some(&st))
    }
}

/// The chunk indexes `[lo, hi)` along a dimension of chunk length `cs` whose origin
/// `cs × c` lies in `[start, start + len)`.
fn chunk_span(start: i64, len: i64, cs: i32) -> (i64, i64) {
    let cs = (cs as i64).max(1);
    let ceil = |x: i64| x.div_euclid(cs) + i64::from(x.rem_euclid(cs) != 0);
    (ceil(start), ceil(start.saturating_add(len)))
}

/// The chunks of a grid whose coordinate along dimension `j` is in `[lo, lo + k)`: in C
/// order, one run of `k × (chunks of the dimensions after j)` chunks for every combination of
/// the dimensions before `j`.
struct Runs {
    /// Runs (combinations of the dimensions before `j`).
    count: i64,
    /// Chunks per step of the dimensions before `j`.
    stride: i64,
    /// Position of the first run.
    first: i64,
    /// Chunks per run.
    len: i64,
}

impl Runs {
    fn along(grid: &[i64], j: usize, lo: i64, k: i64) -> Result<Runs> {
        let prod = |d: &[i64]| -> Result<i64> {
            d.iter()
                .try_fold(1i64, |a, &b| a.checked_mul(b))
                .ok_or(Error::InvalidParam)
        };
        let inner = prod(&grid[j + 1..])?;
        let overflow = || Error::InvalidParam;
        Ok(Runs {
            count: prod(&grid[..j])?,
            stride: grid[j].checked_mul(inner).ok_or_else(overflow)?,
            first: lo.checked_mul(inner).ok_or_else(overflow)?,
            len: k.checked_mul(inner).ok_or_else(overflow)?,
        })
    }

    /// The run starts, in increasing order (empty when a run holds no chunk).
    fn positions(&self) -> impl DoubleEndedIterator<Item = i64> + '_ {
        let n = if self.len > 0 { self.count } else { 0 };
        (0..n).map(move |o| o * self.stride + self.first)
    }
}

#[cfg(test)]
mod tests {
    use super::{chunk_span, Runs};

    #[test]
    fn chunk_spans() {
        // chunks of 3: origins 0, 3, 6, 9
        assert_eq!(chunk_span(7, 5, 3), (3, 4)); // [7, 12): the chunk at 9
        assert_eq!(chunk_span(12, 3, 3), (4, 5)); // [12, 15): a new chunk at 12
        assert_eq!(chunk_span(10, 1, 3), (4, 4)); // [10, 11): no origin
        assert_eq!(chunk_span(3, 6, 3), (1, 3)); // [3, 9): the chunks at 3 and 6
    }

    #[test]
    fn runs_in_c_order() {
        // grid 2 x 3 x 4, chunks 1..3 of dimension 1: for each of the 2 rows, 2 x 4 chunks
        let r = Runs::along(&[2, 3, 4], 1, 1, 2).unwrap();
        assert_eq!(r.positions().collect::<Vec<_>>(), [4, 16]);
        assert_eq!(r.len, 8);
        // the last dimension: one chunk per run
        let r = Runs::along(&[2, 3], 1, 2, 1).unwrap();
        assert_eq!(r.positions().collect::<Vec<_>>(), [2, 5]);
        // nothing in an empty grid
        let r = Runs::along(&[0, 3], 1, 0, 3).unwrap();
        assert_eq!(r.positions().count(), 0);
    }
}
