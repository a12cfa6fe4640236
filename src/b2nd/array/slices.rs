//! Reading and writing hyper-slices of an array through C-order buffers: whole chunks taken
//! from or written from the buffer directly, partial chunks a block at a time.

use super::*;

/// Where [`Array::copy_blocks`] finds the blocks of a chunk.
pub(super) enum Blocks<'a> {
    /// In the decoded chunk.
    Chunk(&'a mut [u8]),
    /// Decoded one at a time from the stored chunk `src` into `scratch`.
    Decode {
        src: &'a [u8],
        dparams: &'a crate::params::DParams,
        scratch: &'a mut Vec<u8>,
    },
}

impl<S: BorrowMut<Schunk>> Array<S> {
    /// Copy between the blocks of a decoded chunk and a C-order buffer (`to_buf`: chunk to
    /// buffer). `bstart` is where the buffer's `[0, ..]` lies in the array.
    pub(super) fn copy_blocks(
        &self,
        c: &ChunkSlice,
        blocks: Blocks<'_>,
        buf: BufRef<'_>,
        bufshape: &[i64],
        bstart: &[i64],
    ) -> Result<()> {
        let itemsize = self.itemsize();
        let blockshape = widen(self.geom.blockshape());
        let block_nbytes = self.geom.blocknitems() as usize * itemsize;
        let mut buf = buf;
        let mut blocks = blocks;
        let ndim = self.ndim();
        self.geom
            .for_each_block(c, |nblock, in_block, shape, start| {
                let mut in_buf = [0i64; crate::b2nd::MAX_DIM];
                for i in 0..ndim {
                    in_buf[i] = start[i] - bstart[i];
                }
                let off = nblock as usize * block_nbytes;
                let block: &mut [u8] = match &mut blocks {
                    Blocks::Chunk(chunk) => &mut chunk[off..off + block_nbytes],
                    Blocks::Decode {
                        src,
                        dparams,
                        scratch,
                    } => {
                        scratch.resize(block_nbytes, 0);
                        crate::chunk::getitem_bytes(dparams, src, off, block_nbytes, scratch)?;
                        &mut scratch[..]
                    }
                };
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
        let chunk_len = self.chunk_len()?;
        let block_nbytes = self.geom.blocknitems() as usize * self.itemsize();
        // As C-Blosc2: when the slice needs few of a chunk's blocks, they are decoded one at
        // a time into a block-sized buffer, and from a frame on disk only they are read (the
        // read costs what it asks for, not the chunk); else the needed blocks are decoded in
        // parallel into a chunk-sized buffer.
        let frac = if self.sc.borrow().on_disk() { 4 } else { 16 };
        let mut chunk = Vec::new();
        let mut block = Vec::new();
        for c in &chunks {
            let mask = self.geom.block_maskout(c);
            let needed: Vec<usize> = (0..mask.len()).filter(|&j| !mask[j]).collect();
            if needed.len() * block_nbytes * frac <= chunk_len {
                let s: &mut Schunk = self.sc.borrow_mut();
                s.set_current_nchunk(c.nchunk);
                let mut dp = s.dparams().clone();
                dp.nchunk = c.nchunk;
                dp.nthreads = 1;
                s.attach_plugin_dparams(&mut dp);
                let s: &Schunk = self.sc.borrow();
                let src = s.get_chunk_blocks(c.nchunk, &needed)?;
                let blocks = Blocks::Decode {
                    src: &src,
                    dparams: &dp,
                    scratch: &mut block,
                };
                self.copy_blocks(c, blocks, BufRef::Out(buf), bufshape, start)?;
                continue;
            }
            if chunk.is_empty() {
                chunk = self.chunk_buffer()?;
            }
            self.read_chunk(c.nchunk, &mut chunk, Some(&mask))?;
            self.copy_blocks(
                c,
                Blocks::Chunk(&mut chunk),
                BufRef::Out(buf),
                bufshape,
                start,
            )?;
        }
        if !chunk.is_empty() {
            self.set_scratch(chunk);
        }
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
            self.copy_blocks(
                c,
                Blocks::Chunk(&mut chunk),
                BufRef::In(buf),
                bufshape,
                start,
            )?;
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
        locs.sort_by_key(|(l, _)| (l.nchunk, l.nblock));
        let s: &mut Schunk = self.sc.borrow_mut();
        let dparams = s.dparams().clone();
        let nthreads = dparams.nthreads.max(1) as usize;
        // As C-Blosc2: only the blocks holding requested items are decoded (in parallel, each
        // in the thread's block scratch), and only their span is copied out.
        for group in locs.chunk_by(|a, b| a.0.nchunk == b.0.nchunk) {
            let n = group[0].0.nchunk;
            let mut dp = dparams.clone();
            dp.nchunk = n;
            dp.nthreads = 1;
            s.attach_plugin_dparams(&mut dp);
            s.set_current_nchunk(n);
            let blocks: Vec<&[(crate::b2nd::Location, usize)]> =
                group.chunk_by(|a, b| a.0.nblock == b.0.nblock).collect();
            let needed: Vec<usize> = blocks.iter().map(|b| b[0].0.nblock as usize).collect();
            let src = s.get_chunk_blocks(n, &needed)?;
            let nbytes = crate::chunk::Header::sizes(&src)?.0 as usize;
            let picked: Vec<std::sync::Mutex<Result<Vec<u8>>>> = (0..blocks.len())
                .map(|_| std::sync::Mutex::new(Ok(Vec::new())))
                .collect();
            crate::chunk::worker::parallel_for(nthreads, blocks.len(), &|t| {
                let items = blocks[t];
                // the span of the block the items lie in (the block is decoded once)
                let first = items.iter().map(|(l, _)| l.chunk_item).min().unwrap_or(0);
                let last = items.iter().map(|(l, _)| l.chunk_item).max().unwrap_or(0);
                let start = first as usize * itemsize;
                let len = ((last - first) as usize + 1) * itemsize;
                let len = len.min(nbytes.saturating_sub(start));
                let r = BLOCK.with(|b| {
                    let mut block = b.borrow_mut();
                    block.resize(len, 0);
                    crate::chunk::getitem_bytes(&dp, &src, start, len, &mut block)?;
                    let mut out = Vec::with_capacity(items.len() * itemsize);
                    for (l, _) in items {
                        let off = l.chunk_item as usize * itemsize - start;
                        let item = block.get(off..off + itemsize).ok_or(Error::ReadBuffer)?;
                        out.extend_from_slice(item);
                    }
                    Ok(out)
                });
                *picked[t].lock().unwrap_or_else(|e| e.into_inner()) = r;
            });
            for (items, p) in blocks.iter().zip(picked) {
                let bytes = p.into_inner().unwrap_or_else(|e| e.into_inner())?;
                for ((_, k), item) in items.iter().zip(bytes.chunks_exact(itemsize)) {
                    buf[k * itemsize..(k + 1) * itemsize].copy_from_slice(item);
                }
            }
        }
        Ok(())
    }
}

thread_local! {
    /// The span of a block a sparse read copies out, kept by each thread.
    static BLOCK: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}
