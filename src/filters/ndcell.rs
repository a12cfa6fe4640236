//! NDCELL (filter id 32): the plugin filter of C-Blosc2 that regroups a block of an n-dimensional
//! array so that each `meta × meta × …` cell becomes contiguous (lossless), bit-exact with
//! C-Blosc2 3.3.5 (`plugins/filters/ndcell/ndcell.c`).
//!
//! The block shape comes from the super-chunk's "b2nd" metalayer; cells are visited in
//! row-major order, and inside a cell the rows (runs along the last dimension) in row-major
//! order. Cells cut by the block edge keep only their inside part. The block must be exactly
//! `typesize × prod(blockshape)` bytes and hold at least one full cell.
//!
//! The cell walk (`for_each_cell`) is shared with NDMEAN (`super::ndmean`).

use crate::b2nd::Meta;
use crate::error::{Error, Result};

/// Filter id of NDCELL.
pub const ID: u8 = 32;

/// Visit the cells of a block of shape `blockshape` cut into cells of shape `cellshape`, in the
/// order of C-Blosc2's ndcell/ndmean plugins. For each cell, `f` gets the start (in elements) of
/// each of its rows and the row length. The origin of a cell is `sum(ii[d] * orig_step *
/// stride[d])` for cell coordinates `ii` (`orig_step` is the cell side for ndcell; ndmean uses
/// its first cell side for every dimension, as C-Blosc2 does).
pub(crate) fn for_each_cell(
    blockshape: &[i64],
    cellshape: &[i64],
    orig_step: i64,
    mut f: impl FnMut(&[i64], i64) -> Result<()>,
) -> Result<()> {
    let ndim = blockshape.len();
    if ndim == 0 || cellshape.iter().any(|&c| c <= 0) || blockshape.iter().any(|&b| b < 0) {
        crate::trace_error!("Cell or block shape not supported");
        return Err(Error::Failure);
    }
    // element strides of the block
    let mut stride = vec![1i64; ndim];
    for d in (0..ndim - 1).rev() {
        stride[d] = stride[d + 1] * blockshape[d + 1];
    }
    let i_shape: Vec<i64> = (0..ndim)
        .map(|d| (blockshape[d] + cellshape[d] - 1) / cellshape[d])
        .collect();
    let ncells: i64 = i_shape.iter().product();
    let mut ii = vec![0i64; ndim];
    let mut pad = vec![0i64; ndim];
    let mut kk = vec![0i64; ndim];
    let mut rows: Vec<i64> = Vec::new();
    for _ in 0..ncells {
        let orig: i64 = (0..ndim).map(|d| ii[d] * orig_step * stride[d]).sum();
        for d in 0..ndim {
            pad[d] = if blockshape[d] % cellshape[d] != 0 && ii[d] == i_shape[d] - 1 {
                blockshape[d] % cellshape[d]
            } else {
                cellshape[d]
            };
        }
        let ncopies: i64 = pad[..ndim - 1].iter().product();
        rows.clear();
        kk.fill(0);
        for _ in 0..ncopies {
            let ind = orig + (0..ndim - 1).map(|d| kk[d] * stride[d]).sum::<i64>();
            rows.push(ind);
            // next row of the cell (row-major over the first ndim-1 dimensions)
            for d in (0..ndim - 1).rev() {
                kk[d] += 1;
                if kk[d] < pad[d] {
                    break;
                }
                kk[d] = 0;
            }
        }
        f(&rows, pad[ndim - 1])?;
        for d in (0..ndim).rev() {
            ii[d] += 1;
            if ii[d] < i_shape[d] {
                break;
            }
            ii[d] = 0;
        }
    }
    Ok(())
}

/// The block shape (as `i64`) and the number of bytes of a block, from the metalayer.
pub(crate) fn block_of(nd: Option<&Meta>, typesize: usize) -> Result<(Vec<i64>, i64)> {
    let Some(nd) = nd else {
        crate::trace_error!("b2nd layer not found!");
        return Err(Error::Failure);
    };
    let bs: Vec<i64> = nd.blockshape.iter().map(|&b| b as i64).collect();
    let len = bs
        .iter()
        .try_fold(typesize as i64, |a, &b| a.checked_mul(b))
        .ok_or(Error::Failure)?;
    Ok((bs, len))
}

/// The cell side: C-Blosc2 reads `meta` as a signed byte; 0 and negative sides are refused here
/// (they crash or misbehave in C-Blosc2).
pub(crate) fn cell_side(meta: u8) -> Result<i64> {
    let c = meta as i8 as i64;
    if c <= 0 {
        crate::trace_error!("Cell side {} is not supported", c);
        return Err(Error::Failure);
    }
    Ok(c)
}

/// Check the block length and that it holds one cell of `cell_len` elements.
fn check_block(src_len: usize, blocklen: i64, cell_len: i64, typesize: usize) -> Result<()> {
    if src_len as i64 != blocklen {
        crate::trace_error!("Length not equal to blocksize {} {}", src_len, blocklen);
        return Err(Error::Failure);
    }
    if (src_len as i128) < cell_len as i128 * typesize as i128 {
        crate::trace_error!("input and output buffer cannot be smaller than cell size");
        return Err(Error::Failure);
    }
    Ok(())
}

fn cells_len(c: i64, ndim: usize) -> i64 {
    (0..ndim).fold(1i64, |a, _| a.saturating_mul(c))
}

/// Regroup one block (`src`, `typesize`-byte elements) into cells of side `meta` into `dst`.
///
/// # Examples
///
/// ```
/// use b2rs::b2nd::Meta;
/// use b2rs::filters::ndcell;
///
/// // one 8 x 8 block of bytes in cells of 4 x 4
/// let nd = Meta::new(&[8, 8], &[8, 8], &[8, 8]);
/// let src: Vec<u8> = (0..64).collect();
/// let mut dst = vec![0u8; 64];
/// ndcell::forward(4, 1, Some(&nd), &src, &mut dst).unwrap();
/// // the first cell holds rows 0..4, columns 0..4
/// assert_eq!(dst[..16], [0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27]);
/// ```
pub fn forward(
    meta: u8,
    typesize: usize,
    nd: Option<&Meta>,
    src: &[u8],
    dst: &mut [u8],
) -> Result<()> {
    let (bs, blocklen) = block_of(nd, typesize)?;
    let c = cell_side(meta)?;
    check_block(src.len(), blocklen, cells_len(c, bs.len()), typesize)?;
    let cs = vec![c; bs.len()];
    let mut op = 0usize;
    for_each_cell(&bs, &cs, c, |rows, len| {
        let n = len as usize * typesize;
        for &r in rows {
            let s = r as usize * typesize;
            let from = src.get(s..s + n).ok_or(Error::Failure)?;
            dst.get_mut(op..op + n)
                .ok_or(Error::Failure)?
                .copy_from_slice(from);
            op += n;
        }
        Ok(())
    })?;
    if op != src.len() {
        crate::trace_error!("Output size must be equal to input size");
        return Err(Error::Failure);
    }
    Ok(())
}

/// Put the cells of `src` back in their places (the inverse of [`forward`]); `typesize` is the
/// super-chunk's. Also the backward step of NDMEAN (`cellshape` per dimension and the origin
/// step of C-Blosc2's code).
pub(crate) fn scatter(
    bs: &[i64],
    cs: &[i64],
    orig_step: i64,
    typesize: usize,
    src: &[u8],
    dst: &mut [u8],
) -> Result<()> {
    let mut ip = 0usize;
    let mut last = (0i64, 0i64);
    for_each_cell(bs, cs, orig_step, |rows, len| {
        let n = len as usize * typesize;
        for &r in rows {
            let d = r as usize * typesize;
            let from = src.get(ip..ip + n).ok_or(Error::Failure)?;
            dst.get_mut(d..d + n)
                .ok_or(Error::Failure)?
                .copy_from_slice(from);
            ip += n;
            last = (r, len);
        }
        Ok(())
    })?;
    // C-Blosc2's final check: the last row written ends the block
    if last.0 + last.1 != (src.len() / typesize.max(1)) as i64 {
        crate::trace_error!("Output size is not compatible with embedded blockshape");
        return Err(Error::Failure);
    }
    Ok(())
}

/// Undo [`forward`] on one block; `typesize` is the super-chunk's (what C-Blosc2 reads).
///
/// # Examples
///
/// ```
/// use b2rs::b2nd::Meta;
/// use b2rs::filters::ndcell;
///
/// let nd = Meta::new(&[8, 8], &[8, 8], &[8, 8]);
/// let src: Vec<u8> = (0..64).collect();
/// let mut cells = vec![0u8; 64];
/// ndcell::forward(4, 1, Some(&nd), &src, &mut cells).unwrap();
/// let mut back = vec![0u8; 64];
/// ndcell::backward(4, 1, Some(&nd), &cells, &mut back).unwrap();
/// assert_eq!(back, src);
/// ```
pub fn backward(
    meta: u8,
    typesize: usize,
    nd: Option<&Meta>,
    src: &[u8],
    dst: &mut [u8],
) -> Result<()> {
    let (bs, blocklen) = block_of(nd, typesize)?;
    let c = cell_side(meta)?;
    check_block(src.len(), blocklen, cells_len(c, bs.len()), typesize)?;
    let cs = vec![c; bs.len()];
    scatter(&bs, &cs, c, typesize, src, dst)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regroups_cells_and_back() {
        // 2-D 5x6 block of u16, cells of 2: cut cells at the bottom and right edges
        let nd = Meta::new(&[10, 12], &[5, 6], &[5, 6]);
        let src: Vec<u8> = (0..30u16).flat_map(|v| v.to_le_bytes()).collect();
        let mut dst = vec![0u8; src.len()];
        forward(2, 2, Some(&nd), &src, &mut dst).unwrap();
        let got: Vec<u16> = dst
            .chunks(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(
            got,
            vec![
                0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11, 12, 13, 18, 19, 14, 15, 20, 21, 16, 17, 22,
                23, 24, 25, 26, 27, 28, 29
            ]
        );
        let mut back = vec![0u8; src.len()];
        backward(2, 2, Some(&nd), &dst, &mut back).unwrap();
        assert_eq!(back, src);
    }

    #[test]
    fn round_trips_in_1_to_4_dims() {
        for (bs, c) in [
            (vec![37], 4u8),
            (vec![7, 9], 3),
            (vec![4, 6, 5], 2),
            (vec![3, 4, 5, 6], 3),
        ] {
            let n: i32 = bs.iter().product();
            let shape: Vec<i64> = bs.iter().map(|&b| b as i64).collect();
            let nd = Meta::new(&shape, &bs, &bs);
            for ts in [1usize, 4, 8] {
                let src: Vec<u8> = (0..n as usize * ts).map(|i| (i * 7 % 256) as u8).collect();
                let mut dst = vec![0u8; src.len()];
                forward(c, ts, Some(&nd), &src, &mut dst).unwrap();
                let mut back = vec![0u8; src.len()];
                backward(c, ts, Some(&nd), &dst, &mut back).unwrap();
                assert_eq!(back, src, "{bs:?} c {c} ts {ts}");
            }
        }
    }

    #[test]
    fn refusals() {
        let nd = Meta::new(&[8, 8], &[8, 8], &[2, 2]);
        let src = [0u8; 4];
        let mut dst = [0u8; 4];
        // no metalayer, wrong length, block smaller than a cell, cell side 0
        assert!(forward(2, 1, None, &src, &mut dst).is_err());
        assert!(forward(2, 2, Some(&nd), &src, &mut dst).is_err());
        assert!(forward(3, 1, Some(&nd), &src, &mut dst).is_err());
        assert!(forward(0, 1, Some(&nd), &src, &mut dst).is_err());
        assert!(backward(2, 1, None, &src, &mut dst).is_err());
        forward(2, 1, Some(&nd), &src, &mut dst).unwrap();
    }
}
