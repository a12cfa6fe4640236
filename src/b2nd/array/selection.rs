//! Orthogonal selections: the items at given indices along each axis, read and written.

use super::*;

impl<S: BorrowMut<Schunk>> Array<S> {
    /// The items of an orthogonal selection: `selection[i]` lists indices along dimension `i`
    /// (negative ones count from the end); for each combination (C order) `(out position,
    /// chunk, item in chunk)`.
    pub(super) fn orthogonal_plan(
        &self,
        selection: &[Vec<i64>],
        bufshape: &[i64],
    ) -> Result<Vec<(usize, i64, i64)>> {
        let ndim = self.ndim();
        if selection.len() != ndim || bufshape.len() != ndim {
            crate::trace_error!("The selection and the buffer shape must have ndim items");
            return Err(Error::InvalidParam);
        }
        let mut sel = Vec::with_capacity(ndim);
        for i in 0..ndim {
            let size = self.geom.shape()[i];
            let mut v = Vec::with_capacity(selection[i].len());
            for &x in &selection[i] {
                let x = if x < 0 { x + size } else { x };
                if x < 0 || x >= size {
                    crate::trace_error!("Selection index out of range in dimension {i}");
                    return Err(Error::InvalidIndex);
                }
                v.push(x);
            }
            if v.len() as i64 != bufshape[i] {
                crate::trace_error!("The buffer shape must be the shape of the selection");
                return Err(Error::InvalidParam);
            }
            sel.push(v);
        }
        let counts: Vec<i64> = sel.iter().map(|v| v.len() as i64).collect();
        let total = product(&counts)?;
        let bstrides = c_strides(bufshape);
        let mut out = Vec::with_capacity(total as usize);
        let mut idx = vec![0i64; ndim];
        for k in 0..total {
            let pos = unravel(k, &counts);
            let mut bpos = 0i64;
            for i in 0..ndim {
                idx[i] = sel[i][pos[i] as usize];
                bpos += pos[i] * bstrides[i];
            }
            let l = self.geom.locate(&idx)?;
            out.push((bpos as usize, l.nchunk, l.chunk_item));
        }
        out.sort_by_key(|t| t.1);
        Ok(out)
    }

    /// Read an orthogonal selection into the C-order buffer `buf` of shape `bufshape` (which
    /// must be the shape of the selection, as in C-Blosc2): item `(k0, k1, …)` of the selection
    /// at that position of the buffer. Negative indices count from the end of their dimension
    /// (C-Blosc2 reads arbitrary items for them); indices out of range are
    /// [`Error::InvalidIndex`].
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
    /// // rows {0, 3} x columns {1, 5}
    /// let mut out = [0u8; 4];
    /// a.get_orthogonal_selection(&[vec![0, 3], vec![1, 5]], &mut out, &[2, 2]).unwrap();
    /// assert_eq!(out, [1, 5, 19, 23]);
    /// // -1 is the last row
    /// a.get_orthogonal_selection(&[vec![-1], vec![0]], &mut out[..1], &[1, 1]).unwrap();
    /// assert_eq!(out[0], 18);
    /// ```
    pub fn get_orthogonal_selection(
        &mut self,
        selection: &[Vec<i64>],
        buf: &mut [u8],
        bufshape: &[i64],
    ) -> Result<()> {
        let itemsize = self.itemsize();
        let plan = self.orthogonal_plan(selection, bufshape)?;
        check_buffer("destination", buf.len(), buffer_len(bufshape, itemsize)?)?;
        let mut chunk = self.chunk_buffer()?;
        let mut cur = -1;
        for (bpos, nchunk, item) in plan {
            if nchunk != cur {
                self.read_chunk(nchunk, &mut chunk, None)?;
                cur = nchunk;
            }
            let (o, i) = (bpos * itemsize, item as usize * itemsize);
            buf[o..o + itemsize].copy_from_slice(&chunk[i..i + itemsize]);
        }
        self.set_scratch(chunk);
        Ok(())
    }

    /// Write an orthogonal selection from the C-order buffer `buf` of shape `bufshape`.
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
    /// a.set_orthogonal_selection(&[vec![0, 3], vec![1, 5]], &[50, 51, 52, 53], &[2, 2]).unwrap();
    /// let v = a.to_vec().unwrap();
    /// assert_eq!((v[1], v[5], v[19], v[23]), (50, 51, 52, 53));
    /// assert_eq!(v[2], 2);
    /// ```
    pub fn set_orthogonal_selection(
        &mut self,
        selection: &[Vec<i64>],
        buf: &[u8],
        bufshape: &[i64],
    ) -> Result<()> {
        let itemsize = self.itemsize();
        let plan = self.orthogonal_plan(selection, bufshape)?;
        check_buffer("source", buf.len(), buffer_len(bufshape, itemsize)?)?;
        let mut chunk = self.chunk_buffer()?;
        let mut cur = -1;
        for (bpos, nchunk, item) in plan {
            if nchunk != cur {
                if cur >= 0 {
                    self.write_chunk(cur, &chunk)?;
                }
                self.read_chunk(nchunk, &mut chunk, None)?;
                cur = nchunk;
            }
            let (o, i) = (bpos * itemsize, item as usize * itemsize);
            chunk[i..i + itemsize].copy_from_slice(&buf[o..o + itemsize]);
        }
        if cur >= 0 {
            self.write_chunk(cur, &chunk)?;
        }
        self.set_scratch(chunk);
        Ok(())
    }
}
