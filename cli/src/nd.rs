//! The b2nd chunk layout (B2ND.md): every chunk holds `extchunkshape` items (the chunk shape
//! padded to whole blocks), as whole blocks in C order, each block its items in C order; items
//! outside the array are zero.
//!
//! The array is processed one *slab* at a time: the rows `[r0, r0 + chunkshape[0])` of the
//! first dimension, which are contiguous in the C-order data and hold whole chunks. Memory is
//! bounded by a slab (plus one chunk), not by the array.

use b2rs::b2nd::geometry::Geometry;
use b2rs::b2nd::{copy_buffer, Meta};

/// The geometry used for copying: a scalar (ndim 0) is laid out as a 1-item 1-d array.
pub struct Layout {
    pub geom: Geometry,
    pub itemsize: usize,
}

impl Layout {
    pub fn new(meta: &Meta, itemsize: usize) -> Result<Layout, String> {
        let geom = if meta.ndim() == 0 {
            Geometry::new(&[1], &[1], &[1])
        } else {
            meta.geometry()
        }
        .map_err(|e| format!("invalid b2nd shapes: {e}"))?;
        if meta.shape.contains(&0) {
            return Err("arrays with a zero-sized dimension are not supported".into());
        }
        Ok(Layout { geom, itemsize })
    }

    /// Bytes of one row of the first dimension.
    pub fn row_bytes(&self) -> u64 {
        self.geom.shape()[1..].iter().product::<i64>() as u64 * self.itemsize as u64
    }

    pub fn nslabs(&self) -> i64 {
        self.geom.chunks_grid()[0]
    }

    /// First row and number of rows of slab `s`.
    pub fn slab_rows(&self, s: i64) -> (i64, i64) {
        let cs = self.geom.chunkshape()[0] as i64;
        let r0 = s * cs;
        (r0, cs.min(self.geom.shape()[0] - r0))
    }

    /// Chunks per slab.
    pub fn chunks_per_slab(&self) -> i64 {
        self.geom.chunks_grid()[1..].iter().product()
    }

    pub fn chunk_bytes(&self) -> usize {
        self.geom.extchunknitems() as usize * self.itemsize
    }

    pub fn block_bytes(&self) -> usize {
        self.geom.blocknitems() as usize * self.itemsize
    }

    /// For chunk `k` of slab `s`: every block that holds array items, as (block number, array
    /// start, array stop).
    fn blocks(&self, s: i64, k: i64) -> Vec<(usize, Vec<i64>, Vec<i64>)> {
        let g = &self.geom;
        let n = g.shape().len();
        // chunk coordinates: s, then k unravelled over chunks_grid[1..]
        let mut cc = vec![0i64; n];
        cc[0] = s;
        let mut rem = k;
        for i in (1..n).rev() {
            cc[i] = rem % g.chunks_grid()[i];
            rem /= g.chunks_grid()[i];
        }
        let mut out = Vec::new();
        let bg = g.blocks_grid();
        let nblocks: i64 = bg.iter().product();
        for b in 0..nblocks {
            let mut bc = vec![0i64; n];
            let mut rem = b;
            for i in (0..n).rev() {
                bc[i] = rem % bg[i];
                rem /= bg[i];
            }
            let mut start = Vec::with_capacity(n);
            let mut stop = Vec::with_capacity(n);
            let mut empty = false;
            for i in 0..n {
                let corig = cc[i] * g.chunkshape()[i] as i64;
                let cend = (corig + g.chunkshape()[i] as i64).min(g.shape()[i]);
                let a = corig + bc[i] * g.blockshape()[i] as i64;
                let e = (a + g.blockshape()[i] as i64).min(cend);
                if a >= e {
                    empty = true;
                }
                start.push(a);
                stop.push(e);
            }
            if !empty {
                out.push((b as usize, start, stop));
            }
        }
        out
    }

    fn slab_shape(&self, rows: i64) -> Vec<i64> {
        let mut s = self.geom.shape().to_vec();
        s[0] = rows;
        s
    }

    /// Fill `chunk` (zeroed, `chunk_bytes` long) with chunk `k` of slab `s` from the slab data.
    pub fn pack_chunk(&self, s: i64, k: i64, slab: &[u8], chunk: &mut [u8]) -> Result<(), String> {
        let (r0, rows) = self.slab_rows(s);
        let sshape = self.slab_shape(rows);
        let bshape: Vec<i64> = self.geom.blockshape().iter().map(|&x| x as i64).collect();
        let zero = vec![0i64; bshape.len()];
        let bb = self.block_bytes();
        chunk.fill(0);
        for (b, mut start, mut stop) in self.blocks(s, k) {
            start[0] -= r0;
            stop[0] -= r0;
            copy_buffer(
                self.itemsize,
                slab,
                &sshape,
                &start,
                &stop,
                &mut chunk[b * bb..(b + 1) * bb],
                &bshape,
                &zero,
            )
            .map_err(|e| format!("internal copy error: {e}"))?;
        }
        Ok(())
    }

    /// Copy the array items of chunk `k` of slab `s` into the slab data.
    pub fn unpack_chunk(
        &self,
        s: i64,
        k: i64,
        chunk: &[u8],
        slab: &mut [u8],
    ) -> Result<(), String> {
        let (r0, rows) = self.slab_rows(s);
        let sshape = self.slab_shape(rows);
        let bshape: Vec<i64> = self.geom.blockshape().iter().map(|&x| x as i64).collect();
        let zero = vec![0i64; bshape.len()];
        let bb = self.block_bytes();
        for (b, start, stop) in self.blocks(s, k) {
            let shape: Vec<i64> = start.iter().zip(&stop).map(|(a, e)| e - a).collect();
            let mut dst_start = start.clone();
            dst_start[0] -= r0;
            copy_buffer(
                self.itemsize,
                &chunk[b * bb..(b + 1) * bb],
                &bshape,
                &zero,
                &shape,
                slab,
                &sshape,
                &dst_start,
            )
            .map_err(|e| format!("internal copy error: {e}"))?;
        }
        Ok(())
    }
}

/// Chunk and block shapes for an array when none are given: shrink the leading dimensions first
/// (halving) until a chunk is at most `chunk_target` bytes and a block at most `block_target`.
pub fn auto_shapes(
    shape: &[i64],
    itemsize: usize,
    chunk_target: usize,
    chunks: Option<Vec<i32>>,
    blocks: Option<Vec<i32>>,
) -> (Vec<i32>, Vec<i32>) {
    fn shrink(mut s: Vec<i64>, itemsize: usize, target: usize) -> Vec<i64> {
        for i in 0..s.len() {
            while s[i] > 1 && s.iter().product::<i64>() as u128 * itemsize as u128 > target as u128
            {
                s[i] = (s[i] + 1) / 2;
            }
        }
        s
    }
    let chunks = chunks.unwrap_or_else(|| {
        shrink(
            shape.iter().map(|&x| x.max(1)).collect(),
            itemsize,
            chunk_target,
        )
        .into_iter()
        .map(|x| x.min(i32::MAX as i64) as i32)
        .collect()
    });
    let blocks = blocks.unwrap_or_else(|| {
        let block_target = (chunk_target / 16).clamp(16 << 10, 256 << 10);
        shrink(
            chunks.iter().map(|&x| x.max(1) as i64).collect(),
            itemsize,
            block_target,
        )
        .into_iter()
        .map(|x| x as i32)
        .collect()
    });
    (chunks, blocks)
}

/// Item size of a NumPy array-interface dtype string (`<f8`, `|u1`, `<U10`, `|S5`, `|V16`, …).
pub fn itemsize_of_dtype(dtype: &str) -> Result<usize, String> {
    let bad = || format!("unsupported dtype {dtype:?} (expected e.g. '<f8', '<i4', '|u1', '|S10')");
    let d = dtype.trim();
    let body = d.strip_prefix(['<', '>', '|', '=']).unwrap_or(d);
    let kind = body.chars().next().ok_or_else(bad)?;
    let n: usize = body[kind.len_utf8()..].parse().map_err(|_| bad())?;
    let size = match kind {
        'b' | 'i' | 'u' | 'f' | 'c' | 'S' | 'V' | 'm' | 'M' => n,
        'U' => n * 4,
        '?' => 1,
        _ => return Err(bad()),
    };
    if size == 0 {
        return Err(bad());
    }
    Ok(size)
}
