//! Reading and writing hyper-slices of an array through C-order buffers: whole chunks taken
//! from or written from the buffer directly, partial chunks a block at a time.

use super::*;

impl<S: BorrowMut<Schunk>> Array<S> {
    /// Copy between the blocks of a decoded chunk and a C-order buffer (`to_buf`: chunk to
    /// buffer). `bstart` is where the buffer's `[0, ..]` lies in the array.
    pub(super) fn copy_blocks(
        &self,
        c: &ChunkSlice,
        chunk: &mut [u8],
        buf: BufRef<'_>,
        bufshape: &[i64],
        bstart: &[i64],
    ) -> Result<()> {
        let itemsize = self.itemsize();
        let blockshape = widen(self.geom.blockshape());
        let block_nbytes = self.geom.blocknitems() as usize * itemsize;
        let mut buf = buf;
        let ndim = self.ndim();
        self.geom
            .for_each_block(c, |nblock, in_block, shape, start| {
                let mut in_buf = [0i64; crate::b2nd::MAX_DIM];
                for i in 0..ndim {
                    in_buf[i] = start[i] - bstart[i];
                }
                let off = nblock as usize * block_nbytes;
                let block = &mut chunk[off..off + block_nbytes];
                let breg = Region {
                    pad_shape: &blockshape,
                    start: in_block,
                };
                let ureg = Region {
                    pad_shape: bufshape,
                    start: &in_buf[..ndim],
                };
                match &mut buf {
                    BufRef::Out(out) => CopyPlan::new(itemsize, shape, breg, ureg)?.run(block, out),
                    BufRef::In(src) => CopyPlan::new(itemsize, shape, ureg, breg)?.run(src, block),
                }
            })
    }

    /// Read the slice `[start, stop)` into the C-order buffer `buf` of shape `bufshape` (at
    /// its origin; the rest of the `product(bufshape)` items is zeroed). Only the chunks the
    /// slice touches are read, and of those only the blocks it touches are decompressed.
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
    /// // rows 1..3, columns 2..4
    /// let mut out = [0u8; 4];
    /// a.get_slice_cbuffer(&[1, 2], &[3, 4], &mut out, &[2, 2]).unwrap();
    /// assert_eq!(out, [8, 9, 14, 15]);
    /// // into a larger buffer: the rest is zeroed
    /// let mut out = [9u8; 6];
    /// a.get_slice_cbuffer(&[0, 0], &[1, 2], &mut out, &[2, 3]).unwrap();
    /// assert_eq!(out, [0, 1, 0, 0, 0, 0]);
    /// ```
    pub fn get_slice_cbuffer(
        &mut self,
        start: &[i64],
        stop: &[i64],
        buf: &mut [u8],
        bufshape: &[i64],
    ) -> Result<()> {
        self.geom.check_read_slice(start, stop)?;
        let need = self.check_buffer_shape_of(bufshape, start, stop)?;
        check_buffer("destination", buf.len(), need)?;
        // As C-Blosc2, a slice may pass the shape: what lies outside reads as zeros.
        let shape = self.geom.shape();
        let in_stop: Vec<i64> = stop.iter().zip(shape).map(|(&z, &n)| z.min(n)).collect();
        let in_start: Vec<i64> = start
            .iter()
            .zip(&in_stop)
            .map(|(&a, &z)| a.min(z))
            .collect();
        // As C-Blosc2: the part of the buffer outside the slice reads as zeros (a buffer of
        // the slice's own shape has no such part).
        if in_stop != stop
            || bufshape
                .iter()
                .zip(start.iter().zip(stop))
                .any(|(&b, (&a, &z))| b != z - a)
        {
            buf[..need].fill(0);
        }
        let chunks: Vec<ChunkSlice> = self.geom.slice_chunks(&in_start, &in_stop)?.collect();
        let mut chunk = self.chunk_buffer()?;
        for c in &chunks {
            let mask = self.geom.block_maskout(c);
            self.read_chunk(c.nchunk, &mut chunk, Some(&mask))?;
            self.copy_blocks(c, &mut chunk, BufRef::Out(buf), bufshape, start)?;
        }
        self.set_scratch(chunk);
        Ok(())
    }

    /// Write the C-order buffer `buf` of shape `bufshape` (from its origin) to the slice
    /// `[start, stop)`. Only the chunks the slice touches are rewritten; chunks it covers
    /// entirely are not read.
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
    /// a.set_slice_cbuffer(&[100, 101, 102, 103], &[2, 2], &[2, 4], &[4, 6]).unwrap();
    /// let v = a.to_vec().unwrap();
    /// assert_eq!(v[16..18], [100, 101]);
    /// assert_eq!(v[22..24], [102, 103]);
    /// ```
    pub fn set_slice_cbuffer(
        &mut self,
        buf: &[u8],
        bufshape: &[i64],
        start: &[i64],
        stop: &[i64],
    ) -> Result<()> {
        let need = self.check_buffer_shape(bufshape, start, stop)?;
        check_buffer("source", buf.len(), need)?;
        let chunks: Vec<ChunkSlice> = self.geom.slice_chunks(start, stop)?.collect();
        let mut chunk = self.chunk_buffer()?;
        for c in &chunks {
            if let Some(r) = self.chunk_in_buffer(c, bufshape, start) {
                // the chunk's bytes lie in the buffer as they are: compressed from there
                self.write_chunk(c.nchunk, &buf[r])?;
                continue;
            }
            if !c.covers_chunk() {
                // the blocks the slice overwrites whole are not decoded
                let covered = self.geom.blocks_covered(c);
                let mask = covered.iter().any(|&b| b).then_some(covered);
                self.read_chunk(c.nchunk, &mut chunk, mask.as_deref())?;
            } else if !self.writes_whole_chunk(c) {
                // the padding beyond the array's edge (or the chunk's last blocks) is zeros
                chunk.fill(0);
            }
            self.copy_blocks(c, &mut chunk, BufRef::In(buf), bufshape, start)?;
            self.write_chunk(c.nchunk, &chunk)?;
        }
        self.set_scratch(chunk);
        Ok(())
    }

    /// The whole array as a C-order buffer.
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
    /// let mut out = vec![0u8; 24];
    /// a.to_cbuffer(&mut out).unwrap();
    /// assert_eq!(out, data);
    /// ```
    pub fn to_cbuffer(&mut self, buf: &mut [u8]) -> Result<()> {
        let shape = self.geom.shape().to_vec();
        let zero = vec![0i64; shape.len()];
        self.get_slice_cbuffer(&zero, &shape, buf, &shape)
    }

    /// The whole array as a new C-order buffer.
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
    /// assert_eq!(a.to_vec().unwrap(), data);
    /// ```
    pub fn to_vec(&mut self) -> Result<Vec<u8>> {
        let mut v = crate::error::zeroed_vec(self.nbytes()?)?;
        self.to_cbuffer(&mut v)?;
        Ok(v)
    }

    /// Gather single items by flat C-order indices in `[0, nitems)` (as
    /// `b2nd_get_sparse_cbuffer`): item `k` goes to `buf[k * itemsize..]`. Repeated and
    /// unsorted indices are fine; each chunk is decompressed once.
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
    /// let mut out = [0u8; 4];
    /// a.get_sparse_cbuffer(&[23, 0, 7, 7], &mut out).unwrap();
    /// assert_eq!(out, [23, 0, 7, 7]);
    /// ```
    pub fn get_sparse_cbuffer(&mut self, flat: &[i64], buf: &mut [u8]) -> Result<()> {
        let itemsize = self.itemsize();
        let need = flat
            .len()
            .checked_mul(itemsize)
            .ok_or(Error::InvalidParam)?;
        check_buffer("destination", buf.len(), need)?;
        let nitems = self.geom.nitems();
        let mut locs = Vec::with_capacity(flat.len());
        for (k, &f) in flat.iter().enumerate() {
            if f < 0 || f >= nitems {
                crate::trace_error!("Coordinate {f} out of [0, {nitems})");
                return Err(Error::InvalidIndex);
            }
            let idx = unravel(f, self.geom.shape());
            locs.push((self.geom.locate(&idx)?, k));
        }
        locs.sort_by_key(|(l, _)| l.nchunk);
        let mut chunk = self.chunk_buffer()?;
        let mut cur = -1;
        for (l, k) in locs {
            if l.nchunk != cur {
                self.read_chunk(l.nchunk, &mut chunk, None)?;
                cur = l.nchunk;
            }
            let off = l.chunk_item as usize * itemsize;
            buf[k * itemsize..(k + 1) * itemsize].copy_from_slice(&chunk[off..off + itemsize]);
        }
        self.set_scratch(chunk);
        Ok(())
    }
}
