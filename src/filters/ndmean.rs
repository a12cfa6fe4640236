//! NDMEAN (filter id 33): the lossy plugin filter of C-Blosc2 that replaces every element of a
//! `meta × meta × …` cell of a float32/float64 block with the cell mean, bit-exact with
//! C-Blosc2 3.3.5 (`plugins/filters/ndmean/ndmean.c`).
//!
//! The output is laid out cell by cell (like NDCELL), so the backward step puts the cells back
//! in their places. Cell sides are clipped to the block shape per dimension. C-Blosc2 computes
//! the origin of every cell with the *first* dimension's cell side; when that side was clipped
//! (block shorter than `meta` along dimension 0) the cells read and written are not the cells
//! meant, and decoding then fails its final size check. b2rs does the same, so that both
//! libraries make and accept the same chunks.
//!
//! The mean is the sum in visiting order, in the element's precision, divided by the number of
//! elements of the cell.

use super::ndcell::{block_of, cell_side, for_each_cell, scatter};
use crate::b2nd::Meta;
use crate::error::{Error, Result};

/// Filter id of NDMEAN.
pub const ID: u8 = 33;

/// Per-dimension cell sides: `meta` clipped to the block shape.
fn cellshape(meta: u8, bs: &[i64]) -> Result<Vec<i64>> {
    let c = cell_side(meta)?;
    Ok(bs.iter().map(|&b| c.min(b)).collect())
}

fn check(src_len: usize, blocklen: i64, cs: &[i64], typesize: usize) -> Result<()> {
    if src_len as i64 != blocklen {
        crate::trace_error!("Length not equal to blocksize {} {}", src_len, blocklen);
        return Err(Error::Failure);
    }
    let cell: i64 = cs.iter().product();
    if (src_len as i128) < cell as i128 * typesize as i128 {
        crate::trace_error!("input and output buffer cannot be smaller than cell size");
        return Err(Error::Failure);
    }
    Ok(())
}

/// Replace each cell of one block by its mean, written cell after cell into `dst`. `typesize`
/// must be 4 (float32) or 8 (float64).
///
/// # Examples
///
/// ```
/// use b2rs::b2nd::Meta;
/// use b2rs::filters::ndmean;
///
/// // one 4 x 4 block of f32 is one cell of side 4: every value becomes the mean, 7.5
/// let nd = Meta::new(&[4, 4], &[4, 4], &[4, 4]);
/// let src: Vec<u8> = (0..16).flat_map(|i| (i as f32).to_le_bytes()).collect();
/// let mut dst = vec![0u8; src.len()];
/// ndmean::forward(4, 4, Some(&nd), &src, &mut dst).unwrap();
/// assert!(dst.chunks(4).all(|v| f32::from_le_bytes(v.try_into().unwrap()) == 7.5));
/// ```
pub fn forward(
    meta: u8,
    typesize: usize,
    nd: Option<&Meta>,
    src: &[u8],
    dst: &mut [u8],
) -> Result<()> {
    let (bs, blocklen) = block_of(nd, typesize)?;
    if typesize != 4 && typesize != 8 {
        crate::trace_error!("This filter only works for float or double");
        return Err(Error::Failure);
    }
    let cs = cellshape(meta, &bs)?;
    check(src.len(), blocklen, &cs, typesize)?;
    let mut op = 0usize;
    for_each_cell(&bs, &cs, cs.first().copied().unwrap_or(1), |rows, len| {
        let n = len as usize * typesize;
        let mut sum32 = 0f32;
        let mut sum64 = 0f64;
        for &r in rows {
            let s = r as usize * typesize;
            let row = src.get(s..s + n).ok_or(Error::Failure)?;
            for e in row.chunks_exact(typesize) {
                if typesize == 4 {
                    sum32 += f32::from_le_bytes([e[0], e[1], e[2], e[3]]);
                } else {
                    sum64 += f64::from_le_bytes([e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7]]);
                }
            }
        }
        let cell_len = rows.len() as i64 * len;
        let out = dst
            .get_mut(op..op + cell_len as usize * typesize)
            .ok_or(Error::Failure)?;
        if typesize == 4 {
            let mean = (sum32 / cell_len as f32).to_le_bytes();
            out.chunks_exact_mut(4)
                .for_each(|o| o.copy_from_slice(&mean));
        } else {
            let mean = (sum64 / cell_len as f64).to_le_bytes();
            out.chunks_exact_mut(8)
                .for_each(|o| o.copy_from_slice(&mean));
        }
        op += out.len();
        Ok(())
    })?;
    if op != src.len() {
        crate::trace_error!("Output size must be equal to input size");
        return Err(Error::Failure);
    }
    Ok(())
}

/// Put the cells written by [`forward`] back in their places; `typesize` is the super-chunk's.
///
/// # Examples
///
/// ```
/// use b2rs::b2nd::Meta;
/// use b2rs::filters::ndmean;
///
/// let nd = Meta::new(&[8, 4], &[8, 4], &[8, 4]);
/// let src: Vec<u8> = (0..32).flat_map(|i| (i as f64).to_le_bytes()).collect();
/// let mut means = vec![0u8; src.len()];
/// ndmean::forward(4, 8, Some(&nd), &src, &mut means).unwrap();
/// let mut back = vec![0u8; src.len()];
/// ndmean::backward(4, 8, Some(&nd), &means, &mut back).unwrap();
/// let vals: Vec<f64> = back.chunks(8).map(|v| f64::from_le_bytes(v.try_into().unwrap())).collect();
/// // rows 0..4 hold the mean of the first cell, rows 4..8 that of the second
/// assert_eq!(vals[0], 7.5);
/// assert_eq!(vals[31], 23.5);
/// ```
pub fn backward(
    meta: u8,
    typesize: usize,
    nd: Option<&Meta>,
    src: &[u8],
    dst: &mut [u8],
) -> Result<()> {
    let (bs, blocklen) = block_of(nd, typesize)?;
    let cs = cellshape(meta, &bs)?;
    check(src.len(), blocklen, &cs, typesize)?;
    scatter(
        &bs,
        &cs,
        cs.first().copied().unwrap_or(1),
        typesize,
        src,
        dst,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(v: &[u8]) -> Vec<f32> {
        v.chunks(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect()
    }

    #[test]
    fn cell_means_in_place() {
        // 4x4 block of float32, cells of 2
        let nd = Meta::new(&[4, 4], &[4, 4], &[4, 4]);
        let vals: Vec<f32> = (0..16).map(|v| v as f32).collect();
        let src: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut mid = vec![0u8; 64];
        forward(2, 4, Some(&nd), &src, &mut mid).unwrap();
        assert_eq!(
            f32s(&mid),
            vec![
                2.5, 2.5, 2.5, 2.5, 4.5, 4.5, 4.5, 4.5, 10.5, 10.5, 10.5, 10.5, 12.5, 12.5, 12.5,
                12.5
            ]
        );
        let mut out = vec![0u8; 64];
        backward(2, 4, Some(&nd), &mid, &mut out).unwrap();
        assert_eq!(
            f32s(&out),
            vec![
                2.5, 2.5, 4.5, 4.5, 2.5, 2.5, 4.5, 4.5, 10.5, 10.5, 12.5, 12.5, 10.5, 10.5, 12.5,
                12.5
            ]
        );
    }

    #[test]
    fn float64_and_cut_cells() {
        let nd = Meta::new(&[5, 3], &[5, 3], &[5, 3]);
        let vals: Vec<f64> = (0..15).map(|v| v as f64 * 0.1).collect();
        let src: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut mid = vec![0u8; src.len()];
        forward(2, 8, Some(&nd), &src, &mut mid).unwrap();
        let mut out = vec![0u8; src.len()];
        backward(2, 8, Some(&nd), &mid, &mut out).unwrap();
        let got: Vec<f64> = out
            .chunks(8)
            .map(|b| f64::from_le_bytes(b.try_into().unwrap()))
            .collect();
        // last column cell (cut to 1 wide) of rows 0-1: mean of 0.2 and 0.5
        assert_eq!(got[2], (0.2f64 + 0.5) / 2.0);
        assert_eq!(got[14], 1.4000000000000001);
    }

    #[test]
    fn refusals() {
        let nd = Meta::new(&[4], &[4], &[4]);
        let src = [0u8; 8];
        let mut dst = [0u8; 8];
        assert!(forward(2, 2, Some(&nd), &src, &mut dst).is_err());
        assert!(forward(2, 4, None, &src, &mut dst).is_err());
        assert!(forward(0, 2, Some(&nd), &src, &mut dst).is_err());
    }
}
