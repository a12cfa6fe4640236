//! N-dimensional strided copies (what C-Blosc2's `b2nd_copy_buffer2` does): copy the
//! hyper-rectangle `[src_start, src_stop)` of a C-order buffer of shape `src_pad_shape` into a
//! C-order buffer of shape `dst_pad_shape`, at `dst_start`.
//!
//! A [`CopyPlan`] validates the request once and merges dimensions so that every innermost run is
//! as long as possible (whole rows, or whole planes when the copy spans full rows in both buffers),
//! then each run is one `copy_from_slice` (memcpy).
//!
//! The buffers only need to reach the last item copied: a plan says how many bytes of each
//! it reads or writes ([`CopyPlan::src_len`], [`CopyPlan::dst_len`]), counted from the buffer's
//! first item (coordinates all 0).

use super::MAX_DIM;
use crate::{Error, Result};

/// Where a hyper-rectangle sits in a C-order buffer.
///
/// # Examples
///
/// ```
/// use b2rs::b2nd::copy::{CopyPlan, Region};
///
/// // the 2 x 2 square at (1, 1) of a 4 x 4 buffer of u8
/// let src_region = Region { pad_shape: &[4, 4], start: &[1, 1] };
/// let dst_region = Region { pad_shape: &[2, 2], start: &[0, 0] };
/// let plan = CopyPlan::new(1, &[2, 2], src_region, dst_region).unwrap();
/// let src: Vec<u8> = (0..16).collect();
/// let mut dst = [0u8; 4];
/// plan.run(&src, &mut dst).unwrap();
/// assert_eq!(dst, [5, 6, 9, 10]);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Region<'a> {
    /// Shape of the whole buffer (C-Blosc2's `pad_shape`).
    pub pad_shape: &'a [i64],
    /// Coordinates of the first item of the hyper-rectangle.
    pub start: &'a [i64],
}

/// One merged dimension: `count` steps of the given byte strides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Dim {
    count: usize,
    src_stride: usize,
    dst_stride: usize,
}

/// A validated n-dimensional copy, ready to run on buffers.
///
/// # Examples
///
/// ```
/// use b2rs::b2nd::copy::{CopyPlan, Region};
///
/// // a whole row of u16 is one contiguous run
/// let plan = CopyPlan::new(
///     2,
///     &[2, 3],
///     Region { pad_shape: &[4, 3], start: &[2, 0] },
///     Region { pad_shape: &[2, 3], start: &[0, 0] },
/// )
/// .unwrap();
/// assert_eq!(plan.run_len(), 12);
/// let src: Vec<u8> = (0..24).collect();
/// let mut dst = [0u8; 12];
/// plan.run(&src, &mut dst).unwrap();
/// assert_eq!(dst[..], src[12..]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CopyPlan {
    /// Outer dimensions (outermost first, `nouter` of them); the innermost run is not
    /// included. A fixed array: a plan is made per block copied, without allocating.
    outer: [Dim; MAX_DIM],
    nouter: usize,
    /// Bytes copied per run (0 for an empty copy).
    run: usize,
    src_offset: usize,
    dst_offset: usize,
    src_len: usize,
    dst_len: usize,
}

fn invalid(msg: std::fmt::Arguments<'_>) -> Error {
    crate::trace_error!("{msg}");
    Error::InvalidParam
}

/// Byte offset of `coords` in a C-order buffer of `shape`, checked against `usize`.
fn offset_of(coords: &[i64], strides: &[usize], itemsize: usize) -> Option<usize> {
    coords
        .iter()
        .zip(strides)
        .try_fold(0usize, |acc, (&c, &s)| {
            (c as usize).checked_mul(s).and_then(|v| acc.checked_add(v))
        })?
        .checked_mul(itemsize)
}

/// C-order item strides as `usize` (the first `shape.len()` of the array); `None` if they
/// overflow. `shape.len() <= MAX_DIM`.
fn strides_of(shape: &[i64]) -> Option<[usize; MAX_DIM]> {
    let mut strides = [1usize; MAX_DIM];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1].checked_mul(shape[i + 1] as usize)?;
    }
    Some(strides)
}

const NO_DIM: Dim = Dim {
    count: 0,
    src_stride: 0,
    dst_stride: 0,
};

impl CopyPlan {
    /// Validate a copy of the `copy_shape` hyper-rectangle at `src.start` in the source to
    /// `dst.start` in the destination, items of `itemsize` bytes.
    ///
    /// Errors ([`Error::InvalidParam`]): more than [`MAX_DIM`] dimensions, lengths that differ from `copy_shape.len()`, negative
    /// sizes or coordinates, a rectangle that does not fit inside either `pad_shape`, or byte
    /// offsets that overflow. An empty rectangle (some size 0) is valid and copies nothing.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::b2nd::copy::{CopyPlan, Region};
    /// use b2rs::Error;
    ///
    /// let ok = CopyPlan::new(4, &[1, 2], Region { pad_shape: &[3, 3], start: &[2, 1] }, Region { pad_shape: &[1, 2], start: &[0, 0] });
    /// assert!(ok.is_ok());
    /// // does not fit in the source
    /// let err = CopyPlan::new(4, &[2, 2], Region { pad_shape: &[3, 3], start: &[2, 1] }, Region { pad_shape: &[2, 2], start: &[0, 0] });
    /// assert_eq!(err.err(), Some(Error::InvalidParam));
    /// ```
    pub fn new(
        itemsize: usize,
        copy_shape: &[i64],
        src: Region<'_>,
        dst: Region<'_>,
    ) -> Result<CopyPlan> {
        let ndim = copy_shape.len();
        if ndim > MAX_DIM {
            return Err(invalid(format_args!(
                "ndim must be at most {MAX_DIM}, not {ndim}"
            )));
        }
        for (what, len) in [
            ("src_pad_shape", src.pad_shape.len()),
            ("src_start", src.start.len()),
            ("dst_pad_shape", dst.pad_shape.len()),
            ("dst_start", dst.start.len()),
        ] {
            if len != ndim {
                return Err(invalid(format_args!(
                    "{what} must have {ndim} items, not {len}"
                )));
            }
        }
        for (i, &n) in copy_shape.iter().enumerate() {
            for (which, r) in [("source", &src), ("destination", &dst)] {
                let (p, s) = (r.pad_shape[i], r.start[i]);
                if n < 0 || p < 0 || s < 0 || s > p || n > p - s {
                    return Err(invalid(format_args!(
                        "copy of {n} items from {s} does not fit the {which} dimension {i} of size {p}"
                    )));
                }
            }
        }
        let empty = CopyPlan {
            outer: [NO_DIM; MAX_DIM],
            nouter: 0,
            run: 0,
            src_offset: 0,
            dst_offset: 0,
            src_len: 0,
            dst_len: 0,
        };
        if itemsize == 0 || copy_shape.contains(&0) {
            return Ok(empty);
        }
        let overflow = || invalid(format_args!("buffer offsets overflow"));
        let src_strides = strides_of(src.pad_shape).ok_or_else(overflow)?;
        let dst_strides = strides_of(dst.pad_shape).ok_or_else(overflow)?;
        let src_offset = offset_of(src.start, &src_strides, itemsize).ok_or_else(overflow)?;
        let dst_offset = offset_of(dst.start, &dst_strides, itemsize).ok_or_else(overflow)?;
        // Last item copied, relative to the start item.
        let mut last = [0i64; MAX_DIM];
        for (l, n) in last.iter_mut().zip(copy_shape) {
            *l = n - 1;
        }
        let last = &last[..ndim];
        let src_span = offset_of(last, &src_strides, itemsize).ok_or_else(overflow)?;
        let dst_span = offset_of(last, &dst_strides, itemsize).ok_or_else(overflow)?;
        let src_len = src_offset
            .checked_add(src_span)
            .and_then(|v| v.checked_add(itemsize))
            .ok_or_else(overflow)?;
        let dst_len = dst_offset
            .checked_add(dst_span)
            .and_then(|v| v.checked_add(itemsize))
            .ok_or_else(overflow)?;

        // Dimensions in bytes, dropping those of size 1, then merging neighbours whose strides
        // chain (an outer step equals a whole inner extent in both buffers).
        let mut dims = [NO_DIM; MAX_DIM];
        let mut ndims = 0;
        for i in 0..ndim {
            if copy_shape[i] == 1 {
                continue;
            }
            // All products below are bounded by src_len / dst_len, so they cannot overflow.
            dims[ndims] = Dim {
                count: copy_shape[i] as usize,
                src_stride: src_strides[i] * itemsize,
                dst_stride: dst_strides[i] * itemsize,
            };
            ndims += 1;
        }
        // The innermost run: items are contiguous in both buffers.
        let mut run = itemsize;
        while ndims > 0 {
            let d = dims[ndims - 1];
            if d.src_stride == run && d.dst_stride == run {
                run *= d.count;
                ndims -= 1;
            } else {
                break;
            }
        }
        // Merge outer dimensions that chain.
        let mut outer = [NO_DIM; MAX_DIM];
        let mut nouter = 0;
        for &d in &dims[..ndims] {
            match outer[..nouter].last_mut() {
                Some(prev)
                    if prev.src_stride == d.src_stride * d.count
                        && prev.dst_stride == d.dst_stride * d.count =>
                {
                    prev.count *= d.count;
                    prev.src_stride = d.src_stride;
                    prev.dst_stride = d.dst_stride;
                }
                _ => {
                    outer[nouter] = d;
                    nouter += 1;
                }
            }
        }
        Ok(CopyPlan {
            outer,
            nouter,
            run,
            src_offset,
            dst_offset,
            src_len,
            dst_len,
        })
    }

    /// Whether the copy moves no byte.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::b2nd::copy::{CopyPlan, Region};
    ///
    /// let r = || Region { pad_shape: &[4, 4], start: &[0, 0] };
    /// assert!(CopyPlan::new(1, &[0, 4], r(), r()).unwrap().is_empty());
    /// assert!(!CopyPlan::new(1, &[1, 4], r(), r()).unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.run == 0
    }

    /// Bytes of the source the copy needs, from the source's first item (0 if empty).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::b2nd::copy::{CopyPlan, Region};
    ///
    /// // the source buffer up to item (2, 2) of its 4 x 4 items: 11 items
    /// let plan = CopyPlan::new(1, &[2, 2], Region { pad_shape: &[4, 4], start: &[1, 1] }, Region { pad_shape: &[2, 2], start: &[0, 0] })
    ///     .unwrap();
    /// assert_eq!(plan.src_len(), 11);
    /// ```
    pub fn src_len(&self) -> usize {
        self.src_len
    }

    /// Bytes of the destination the copy needs, from the destination's first item (0 if empty).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::b2nd::copy::{CopyPlan, Region};
    ///
    /// let plan = CopyPlan::new(8, &[2, 2], Region { pad_shape: &[2, 2], start: &[0, 0] }, Region { pad_shape: &[4, 4], start: &[2, 2] })
    ///     .unwrap();
    /// // the destination buffer up to item (3, 3): 16 items of 8 bytes
    /// assert_eq!(plan.dst_len(), 128);
    /// ```
    pub fn dst_len(&self) -> usize {
        self.dst_len
    }

    /// Bytes moved by each contiguous copy (the merged innermost run; 0 if empty).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::b2nd::copy::{CopyPlan, Region};
    ///
    /// let r = || Region { pad_shape: &[4, 4], start: &[0, 0] };
    /// // whole rows merge into one run of 16 items
    /// assert_eq!(CopyPlan::new(1, &[4, 4], r(), r()).unwrap().run_len(), 16);
    /// assert_eq!(CopyPlan::new(1, &[4, 2], r(), r()).unwrap().run_len(), 2);
    /// ```
    pub fn run_len(&self) -> usize {
        self.run
    }

    /// Run the copy. Errors: [`Error::InvalidParam`] when `src` is shorter than
    /// [`src_len`](Self::src_len) or `dst` shorter than [`dst_len`](Self::dst_len).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::b2nd::copy::{CopyPlan, Region};
    /// use b2rs::Error;
    ///
    /// let plan = CopyPlan::new(1, &[2], Region { pad_shape: &[4], start: &[2] }, Region { pad_shape: &[2], start: &[0] }).unwrap();
    /// let mut dst = [0u8; 2];
    /// plan.run(&[1, 2, 3, 4], &mut dst).unwrap();
    /// assert_eq!(dst, [3, 4]);
    /// assert_eq!(plan.run(&[1, 2, 3], &mut dst), Err(Error::InvalidParam));
    /// ```
    pub fn run(&self, src: &[u8], dst: &mut [u8]) -> Result<()> {
        if self.is_empty() {
            return Ok(());
        }
        if src.len() < self.src_len || dst.len() < self.dst_len {
            return Err(invalid(format_args!(
                "buffers of {} / {} bytes, the copy needs {} / {}",
                src.len(),
                dst.len(),
                self.src_len,
                self.dst_len
            )));
        }
        let run = self.run;
        let outer = &self.outer[..self.nouter];
        match outer.len() {
            0 => {
                dst[self.dst_offset..self.dst_offset + run]
                    .copy_from_slice(&src[self.src_offset..self.src_offset + run]);
            }
            1 => copy_runs(run, outer[0], src, self.src_offset, dst, self.dst_offset),
            n => {
                // Odometer over the outer dimensions; the innermost of them is a plain loop.
                let inner = outer[n - 1];
                let mut idx = [0usize; MAX_DIM];
                let (mut s0, mut t0) = (self.src_offset, self.dst_offset);
                loop {
                    copy_runs(run, inner, src, s0, dst, t0);
                    // advance the odometer
                    let mut k = n - 1;
                    loop {
                        if k == 0 {
                            return Ok(());
                        }
                        k -= 1;
                        let d = outer[k];
                        idx[k] += 1;
                        s0 += d.src_stride;
                        t0 += d.dst_stride;
                        if idx[k] < d.count {
                            break;
                        }
                        s0 -= d.src_stride * d.count;
                        t0 -= d.dst_stride * d.count;
                        idx[k] = 0;
                    }
                }
            }
        }
        Ok(())
    }
}

/// `d.count` runs of `run` bytes, from `s` in `src` and `t` in `dst` on, `d`'s strides apart.
/// Short runs (a few items of a slice that cuts a block's last dimension) are copied with
/// their length known to the compiler: a `memcpy` call per run of 16 bytes cost more than the
/// copy.
#[inline]
fn copy_runs(run: usize, d: Dim, src: &[u8], s: usize, dst: &mut [u8], t: usize) {
    #[inline(always)]
    fn fixed<const R: usize>(d: Dim, src: &[u8], mut s: usize, dst: &mut [u8], mut t: usize) {
        for _ in 0..d.count {
            let from: &[u8; R] = src[s..s + R].try_into().expect("R bytes");
            let to: &mut [u8; R] = (&mut dst[t..t + R]).try_into().expect("R bytes");
            *to = *from;
            s += d.src_stride;
            t += d.dst_stride;
        }
    }
    match run {
        1 => fixed::<1>(d, src, s, dst, t),
        2 => fixed::<2>(d, src, s, dst, t),
        4 => fixed::<4>(d, src, s, dst, t),
        8 => fixed::<8>(d, src, s, dst, t),
        12 => fixed::<12>(d, src, s, dst, t),
        16 => fixed::<16>(d, src, s, dst, t),
        24 => fixed::<24>(d, src, s, dst, t),
        32 => fixed::<32>(d, src, s, dst, t),
        48 => fixed::<48>(d, src, s, dst, t),
        64 => fixed::<64>(d, src, s, dst, t),
        _ => {
            let (mut s, mut t) = (s, t);
            for _ in 0..d.count {
                dst[t..t + run].copy_from_slice(&src[s..s + run]);
                s += d.src_stride;
                t += d.dst_stride;
            }
        }
    }
}

/// Copy the hyper-rectangle `[src_start, src_stop)` of `src` (a C-order buffer of shape
/// `src_pad_shape`, items of `itemsize` bytes) into `dst` (shape `dst_pad_shape`) at `dst_start`.
/// The safe counterpart of C-Blosc2's `b2nd_copy_buffer2`.
///
/// Errors ([`Error::InvalidParam`]): see [`CopyPlan::new`] and [`CopyPlan::run`]; also
/// `src_start > src_stop` in some dimension.
///
/// # Examples
///
/// ```
/// use b2rs::b2nd::copy_buffer;
///
/// // column 1 of a 3 x 3 source into column 2 of a 3 x 3 destination
/// let src: Vec<u8> = (0..9).collect();
/// let mut dst = [0u8; 9];
/// copy_buffer(1, &src, &[3, 3], &[0, 1], &[3, 2], &mut dst, &[3, 3], &[0, 2]).unwrap();
/// assert_eq!(dst, [0, 0, 1, 0, 0, 4, 0, 0, 7]);
/// ```
#[allow(clippy::too_many_arguments)]
pub fn copy_buffer(
    itemsize: usize,
    src: &[u8],
    src_pad_shape: &[i64],
    src_start: &[i64],
    src_stop: &[i64],
    dst: &mut [u8],
    dst_pad_shape: &[i64],
    dst_start: &[i64],
) -> Result<()> {
    let copy_shape = copy_shape(src_start, src_stop)?;
    let plan = CopyPlan::new(
        itemsize,
        &copy_shape,
        Region {
            pad_shape: src_pad_shape,
            start: src_start,
        },
        Region {
            pad_shape: dst_pad_shape,
            start: dst_start,
        },
    )?;
    plan.run(src, dst)
}

/// `stop - start` per dimension. Errors: [`Error::InvalidParam`] for different lengths or
/// `start > stop`.
///
/// # Examples
///
/// ```
/// use b2rs::b2nd::copy::copy_shape;
/// use b2rs::Error;
///
/// assert_eq!(copy_shape(&[1, 2], &[4, 2]).unwrap(), [3, 0]);
/// assert_eq!(copy_shape(&[3], &[1]), Err(Error::InvalidParam));
/// ```
pub fn copy_shape(start: &[i64], stop: &[i64]) -> Result<Vec<i64>> {
    if start.len() != stop.len() {
        return Err(invalid(format_args!(
            "start and stop have different lengths"
        )));
    }
    start
        .iter()
        .zip(stop)
        .enumerate()
        .map(|(i, (&a, &b))| {
            b.checked_sub(a)
                .filter(|n| *n >= 0)
                .ok_or_else(|| invalid(format_args!("start[{i}] = {a} is after stop[{i}] = {b}")))
        })
        .collect()
}

#[cfg(test)]
mod tests;
