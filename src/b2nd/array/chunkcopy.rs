//! Copies of whole arrays and concatenations that store compressed chunks as they are when
//! the geometries allow it (as C-Blosc2's `b2nd_copy` and `b2nd_concatenate` do), instead of
//! decoding and recompressing every chunk. The compressed bytes are copied, also in memory:
//! each array owns its chunks, as C-Blosc2's do (C callers may write into or free
//! `sc->data[i]`).

use super::{Array, Fill};
use crate::b2nd::geometry::unravel;
use crate::params::CParams;
use crate::schunk::Schunk;
use crate::Result;
use std::borrow::BorrowMut;

impl<S: BorrowMut<Schunk>> Array<S> {
    /// Whether the chunks of this array can stand as chunks of `other`: same chunk and block
    /// shapes and item size (the padding then lies where `other` expects it).
    pub(super) fn chunks_fit<T: BorrowMut<Schunk>>(&self, other: &Array<T>) -> bool {
        self.geom.chunkshape() == other.geom.chunkshape()
            && self.geom.blockshape() == other.geom.blockshape()
            && self.itemsize() == other.itemsize()
    }

    /// Copy this array into `dst`, an array of the same shape created without chunks: the
    /// compressed chunks as they are when they fit and `dst` compresses as this array does
    /// (C-Blosc2's `blosc2_schunk_copy` rule), else decoded and compressed again.
    pub(super) fn copy_into_unfilled<T: BorrowMut<Schunk>>(
        &mut self,
        mut dst: Array<T>,
    ) -> Result<Array<T>> {
        let same = self.chunks_fit(&dst)
            && same_coding(self.sc.borrow().cparams(), dst.sc.borrow().cparams());
        if same {
            let n = self.geom.nchunks();
            for i in 0..n {
                let c = self.sc.borrow().get_chunk(i)?.into_owned();
                dst.sc.borrow_mut().append_chunk(c)?;
            }
        } else {
            dst.fill(Fill::Uninit)?;
            let zero = vec![0i64; self.ndim()];
            let shape = self.geom.shape().to_vec();
            self.copy_slice_to(&zero, &shape, &mut dst, &zero)?;
        }
        dst.preset_chunksize()?;
        Ok(dst)
    }

    /// Store the compressed chunks of this array as the chunks of `dst` from item `offset` of
    /// `axis` on (a chunk boundary; `dst` already has the shape and the chunks there, which
    /// are replaced). [`chunks_fit`](Self::chunks_fit) must hold and the other dimensions
    /// match.
    pub(super) fn move_chunks_to<T: BorrowMut<Schunk>>(
        &mut self,
        dst: &mut Array<T>,
        axis: usize,
        offset: i64,
    ) -> Result<()> {
        let shift = offset / dst.geom.chunkshape()[axis] as i64;
        let grid = self.geom.chunks_grid().to_vec();
        for i in 0..self.geom.nchunks() {
            let mut c = unravel(i, &grid);
            c[axis] += shift;
            let chunk = self.sc.borrow().get_chunk(i)?.into_owned();
            let j = dst.geom.nchunk_of(&c);
            dst.sc.borrow_mut().update_chunk(j, chunk)?;
        }
        Ok(())
    }
}

/// Whether the chunks of an array compressed with `a` can stand in an array compressing with
/// `b`: the super-chunk copy rule, and nothing that makes `b`'s chunks other than plain ones
/// (a codec meta or split mode of its own, a dictionary, a prefilter, instrumentation).
fn same_coding(a: &CParams, b: &CParams) -> bool {
    crate::schunk::same_coding(a, b)
        && a.compcode_meta == b.compcode_meta
        && a.splitmode == b.splitmode
        && !a.use_dict
        && b.prefilter.is_none()
        && !b.instr_codec
}
