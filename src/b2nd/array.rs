//! B2ND arrays (B2ND.md): a [`Geometry`] and a dtype on a super-chunk whose chunks hold
//! `product(extchunkshape)` items made of whole blocks (C order inside a block, blocks in C
//! order inside a chunk), described by the `b2nd` metalayer.
//!
//! [`Array`] works on any super-chunk it can borrow mutably (`Array<Schunk>` owns one,
//! `Array<&mut Schunk>` works on somebody else's), through the super-chunk API only, so it does
//! not care where the chunks are stored.

use super::copy::{CopyPlan, Region};
use super::geometry::{c_strides, unravel, ChunkSlice, Geometry};
use super::{Meta, CATERVA_METALAYER_NAME, METALAYER_NAME};
use crate::chunk::header::{Special, EXTENDED_HEADER_LENGTH};
use crate::chunk::special::special_chunk;
use crate::frame::{Frame, FrameParams, Location as FrameLocation, StdIo};
use crate::schunk::Schunk;
use crate::{Error, Result};
use std::borrow::BorrowMut;
use std::sync::Arc;

/// The initial content of a new array.
///
/// # Examples
///
/// ```
/// use b2rs::b2nd::{Array, Fill, Meta};
/// use b2rs::{CParams, DParams};
///
/// let meta = Meta::new(&[10], &[4], &[2]).with_dtype("<f4");
/// let cparams = CParams { typesize: 4, ..CParams::default() };
/// let mut full = Array::new(cparams.clone(), DParams::default(), &meta, Fill::Value(&1.5f32.to_le_bytes())).unwrap();
/// assert!(full.to_vec().unwrap().chunks(4).all(|v| v == 1.5f32.to_le_bytes()));
/// let mut nans = Array::new(cparams.clone(), DParams::default(), &meta, Fill::Nan).unwrap();
/// assert!(nans.to_vec().unwrap().chunks(4).all(|v| f32::from_le_bytes(v.try_into().unwrap()).is_nan()));
/// let mut zeros = Array::new(cparams, DParams::default(), &meta, Fill::Zero).unwrap();
/// assert_eq!(zeros.to_vec().unwrap(), vec![0u8; 40]);
/// ```
#[derive(Debug, Clone, Copy)]
pub enum Fill<'a> {
    /// Uninitialised (special "uninit" chunks): `b2nd_uninit` / `b2nd_empty`.
    Uninit,
    /// Zeros (special zero chunks): `b2nd_zeros`.
    Zero,
    /// NaNs (special NaN chunks; the item size must be 4 or 8): `b2nd_nans`.
    Nan,
    /// Every item set to this value (`itemsize` bytes; run-of-value chunks): `b2nd_full`.
    Value(&'a [u8]),
    /// The items of a C-order buffer of the array's shape: `b2nd_from_cbuffer`.
    Buffer(&'a [u8]),
}

/// An n-dimensional array on a super-chunk.
///
/// ```
/// use b2rs::b2nd::{Array, Fill, Meta};
/// use b2rs::{CParams, DParams};
///
/// // a 100 x 80 array of f64, chunks 50 x 40, blocks 10 x 20
/// let data: Vec<u8> = (0..8000).flat_map(|i| (i as f64).to_le_bytes()).collect();
/// let meta = Meta::new(&[100, 80], &[50, 40], &[10, 20]).with_dtype("<f8");
/// let cparams = CParams { typesize: 8, ..CParams::default() };
/// let mut a = Array::new(cparams, DParams::default(), &meta, Fill::Buffer(&data)).unwrap();
/// assert_eq!((a.shape(), a.ndim(), a.schunk().nchunks()), (&[100i64, 80][..], 2, 4));
///
/// // rows 10..12, columns 5..8
/// let mut slice = vec![0u8; 2 * 3 * 8];
/// a.get_slice_cbuffer(&[10, 5], &[12, 8], &mut slice, &[2, 3]).unwrap();
/// let first = f64::from_le_bytes(slice[..8].try_into().unwrap());
/// assert_eq!(first, (10 * 80 + 5) as f64);
///
/// // the array as a cframe, which Python blosc2 (`blosc2.ndarray_from_cframe`) also reads
/// let cframe = a.to_cframe().unwrap();
/// let mut b = Array::from_cframe(cframe).unwrap();
/// assert_eq!(b.to_vec().unwrap(), data);
/// ```
pub struct Array<S: BorrowMut<Schunk> = Schunk> {
    geom: Geometry,
    dtype: Option<Vec<u8>>,
    dtype_format: i8,
    sc: S,
    /// A chunk-sized buffer kept between calls (slices, selections), so that each call does
    /// not allocate and zero a whole chunk again.
    scratch: Vec<u8>,
}

// By hand: the kept chunk buffer (megabytes of stale bytes) stays out of the output.
impl<S: BorrowMut<Schunk> + std::fmt::Debug> std::fmt::Debug for Array<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Array")
            .field("geom", &self.geom)
            .field("dtype", &self.dtype)
            .field("dtype_format", &self.dtype_format)
            .field("sc", &self.sc)
            .finish_non_exhaustive()
    }
}

fn product(shape: &[i64]) -> Result<i64> {
    shape
        .iter()
        .try_fold(1i64, |a, &b| a.checked_mul(b))
        .ok_or_else(|| {
            crate::trace_error!("The shape product overflows");
            Error::InvalidParam
        })
}

fn widen(v: &[i32]) -> Vec<i64> {
    v.iter().map(|&x| x as i64).collect()
}

/// Bytes of a C-order buffer of `shape` with items of `itemsize` bytes.
fn buffer_len(shape: &[i64], itemsize: usize) -> Result<usize> {
    let n = product(shape)?;
    usize::try_from(n)
        .ok()
        .and_then(|n| n.checked_mul(itemsize))
        .ok_or_else(|| {
            crate::trace_error!("The buffer size overflows");
            Error::InvalidParam
        })
}

/// Check that `n` items (the count given as an `i64`) fit in `bytes` bytes.
fn check_buffer(what: &str, have: usize, need: usize) -> Result<()> {
    if have < need {
        crate::trace_error!("The {what} buffer is too small ({have} bytes, {need} needed)");
        return Err(Error::InvalidParam);
    }
    Ok(())
}

impl Array<Schunk> {
    /// A new array owning an empty in-memory super-chunk with `cparams` / `dparams` (the
    /// block size is set to one n-d block).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::b2nd::{Array, Fill, Meta};
    /// use b2rs::{CParams, DParams};
    ///
    /// // a 4 x 6 array of u8 holding 0..24, in chunks of 2 x 3 and blocks of 1 x 3
    /// let data: Vec<u8> = (0..24).collect();
    /// let meta = Meta::new(&[4, 6], &[2, 3], &[1, 3]).with_dtype("|u1");
    /// let cparams = CParams { typesize: 1, ..CParams::default() };
    /// let mut a = Array::new(cparams.clone(), DParams::default(), &meta, Fill::Buffer(&data)).unwrap();
    /// assert_eq!(a.shape(), [4, 6]);
    /// assert_eq!(a.schunk().nchunks(), 4);
    /// assert_eq!(a.to_vec().unwrap(), data);
    /// ```
    pub fn new(
        cparams: crate::params::CParams,
        dparams: crate::params::DParams,
        meta: &Meta,
        fill: Fill<'_>,
    ) -> Result<Array<Schunk>> {
        Array::create(Schunk::new(cparams, dparams), meta, fill)
    }
}

impl<S: BorrowMut<Schunk>> Array<S> {
    /// Make an array on the empty super-chunk `sc`: set its block size to one n-d block, add
    /// the `b2nd` metalayer describing `meta` (a missing dtype is written as `|u1`) and fill
    /// the chunks. Errors: a super-chunk with chunks, a bad geometry or item size, the errors
    /// of the super-chunk.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::b2nd::{Array, Fill, Meta};
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams, Error};
    ///
    /// // an array on a super-chunk the caller keeps (any `BorrowMut<Schunk>`)
    /// let mut sc = Schunk::new(CParams { typesize: 2, ..CParams::default() }, DParams::default());
    /// let meta = Meta::new(&[5, 5], &[5, 5], &[5, 5]);
    /// let a = Array::create(&mut sc, &meta, Fill::Zero).unwrap();
    /// assert_eq!(a.itemsize(), 2);
    /// assert_eq!(sc.nbytes(), 50);
    /// assert!(sc.meta_exists("b2nd").is_ok());
    /// // not on a super-chunk that already has chunks
    /// assert_eq!(Array::create(&mut sc, &meta, Fill::Zero).err(), Some(Error::InvalidParam));
    /// ```
    pub fn create(sc: S, meta: &Meta, fill: Fill<'_>) -> Result<Array<S>> {
        let mut a = Array::create_unfilled(sc, meta)?;
        a.fill(fill)?;
        a.preset_chunksize()?;
        Ok(a)
    }

    /// [`create`](Self::create) without the chunks: the caller stores every chunk next.
    fn create_unfilled(mut sc: S, meta: &Meta) -> Result<Array<S>> {
        let geom = meta.geometry()?;
        {
            let s: &mut Schunk = sc.borrow_mut();
            if s.nchunks() != 0 {
                crate::trace_error!("An array can only be created on an empty super-chunk");
                return Err(Error::InvalidParam);
            }
            if s.typesize() <= 0 {
                crate::trace_error!("The item size must be positive");
                return Err(Error::InvalidParam);
            }
            let mut cp = s.cparams().clone();
            cp.blocksize = geom.block_nbytes(cp.typesize)?;
            s.set_cparams(cp);
        }
        let mut a = Array {
            geom,
            dtype: Some(meta.dtype_or_default().to_vec()),
            dtype_format: meta.dtype_format,
            sc,
            scratch: Vec::new(),
        };
        a.chunk_nbytes()?;
        a.write_meta()?;
        Ok(a)
    }

    /// As C-Blosc2: an array without chunks still reports its chunk size.
    fn preset_chunksize(&mut self) -> Result<()> {
        if self.geom.nchunks() == 0 {
            let n = self.chunk_nbytes()?;
            let s: &mut Schunk = self.sc.borrow_mut();
            s.set_chunksize(i32::try_from(n).map_err(|_| Error::InvalidParam)?)?;
        }
        Ok(())
    }

    /// An array on an existing super-chunk described by its `b2nd` (or legacy `caterva`)
    /// metalayer. Errors: [`Error::MetalayerNotFound`], a malformed metalayer or geometry.
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
    /// use b2rs::Error;
    ///
    /// let sc = a.into_schunk();
    /// let mut b = Array::open(sc).unwrap();
    /// assert_eq!(b.shape(), [4, 6]);
    /// assert_eq!(b.to_vec().unwrap(), data);
    /// // a super-chunk without the "b2nd" metalayer
    /// let plain = Schunk::new(CParams::default(), DParams::default());
    /// assert_eq!(Array::open(plain).err(), Some(Error::MetalayerNotFound));
    /// ```
    pub fn open(sc: S) -> Result<Array<S>> {
        let s: &Schunk = sc.borrow();
        let find = |name: &str| {
            s.metalayers()
                .iter()
                .find(|m| m.name == name)
                .map(|m| m.content.as_slice())
        };
        let meta = Meta::from_metalayers(find(METALAYER_NAME), find(CATERVA_METALAYER_NAME))?;
        Array::attach(&meta, sc)
    }

    /// An array on `sc` described by `meta`, trusted to match the super-chunk's metalayer
    /// (the C layer rebuilds the array from the public struct this way).
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
    /// let sc = a.into_schunk();
    /// let mut b = Array::attach(&meta, sc).unwrap();
    /// assert_eq!(b.to_vec().unwrap(), data);
    /// ```
    pub fn attach(meta: &Meta, sc: S) -> Result<Array<S>> {
        let geom = meta.geometry()?;
        if sc.borrow().typesize() <= 0 {
            crate::trace_error!("The item size must be positive");
            return Err(Error::InvalidParam);
        }
        let a = Array {
            geom,
            dtype: meta.dtype.clone(),
            dtype_format: meta.dtype_format,
            sc,
            scratch: Vec::new(),
        };
        // Like C-Blosc2, chunks too big for a Blosc chunk (over 2 GiB) are only refused by the
        // operations that need one.
        Ok(a)
    }

    /// The geometry.
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
    /// let g = a.geometry();
    /// assert_eq!((g.nchunks(), g.chunknitems(), g.blocknitems()), (4, 6, 3));
    /// ```
    pub fn geometry(&self) -> &Geometry {
        &self.geom
    }

    /// The shape.
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
    /// assert_eq!(a.shape(), [4, 6]);
    /// ```
    pub fn shape(&self) -> &[i64] {
        self.geom.shape()
    }

    /// Number of dimensions.
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
    /// assert_eq!(a.ndim(), 2);
    /// ```
    pub fn ndim(&self) -> usize {
        self.geom.ndim()
    }

    /// Bytes per item (the super-chunk's typesize).
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
    /// assert_eq!(a.itemsize(), 1);
    /// ```
    pub fn itemsize(&self) -> usize {
        self.sc.borrow().typesize() as usize
    }

    /// The dtype as stored (`None`: none in the metalayer).
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
    /// assert_eq!(a.dtype(), Some(&b"|u1"[..]));
    /// ```
    pub fn dtype(&self) -> Option<&[u8]> {
        self.dtype.as_deref()
    }

    /// The dtype format.
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
    /// assert_eq!(a.dtype_format(), b2rs::b2nd::DTYPE_NUMPY_FORMAT);
    /// ```
    pub fn dtype_format(&self) -> i8 {
        self.dtype_format
    }

    /// The description (shapes, dtype) as in the metalayer.
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
    /// assert_eq!(a.meta(), meta);
    /// ```
    pub fn meta(&self) -> Meta {
        Meta {
            shape: self.geom.shape().to_vec(),
            chunkshape: self.geom.chunkshape().to_vec(),
            blockshape: self.geom.blockshape().to_vec(),
            dtype_format: self.dtype_format,
            dtype: self.dtype.clone(),
        }
    }

    /// The super-chunk.
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
    /// assert_eq!((a.schunk().nbytes(), a.schunk().typesize()), (24, 1));
    /// ```
    pub fn schunk(&self) -> &Schunk {
        self.sc.borrow()
    }

    /// The super-chunk, mutable (changing its chunks may break the array).
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
    /// a.schunk_mut().vlmeta_add("note", b"hello", &cparams).unwrap();
    /// assert_eq!(a.schunk().vlmeta_get("note").unwrap(), b"hello");
    /// ```
    pub fn schunk_mut(&mut self) -> &mut Schunk {
        self.sc.borrow_mut()
    }

    /// Give the super-chunk back.
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
    /// let sc = a.into_schunk();
    /// assert_eq!(sc.nchunks(), 4);
    /// ```
    pub fn into_schunk(self) -> S {
        self.sc
    }

    /// Bytes of a C-order buffer holding the whole array.
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
    /// assert_eq!(a.nbytes(), Ok(24));
    /// ```
    pub fn nbytes(&self) -> Result<usize> {
        buffer_len(self.geom.shape(), self.itemsize())
    }

    /// Bytes of every (padded) chunk.
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
    /// assert_eq!(a.chunk_nbytes(), Ok(6));
    /// ```
    pub fn chunk_nbytes(&self) -> Result<usize> {
        let n = self.geom.chunk_nbytes(self.sc.borrow().typesize())?;
        Ok(n as usize)
    }

    /// Write the description to the `b2nd` metalayer (or to the legacy `caterva` one if that is
    /// the only one present).
    fn write_meta(&mut self) -> Result<()> {
        let meta = self.meta();
        let s: &mut Schunk = self.sc.borrow_mut();
        let has = |name: &str| s.metalayers().iter().any(|m| m.name == name);
        if !has(METALAYER_NAME) && has(CATERVA_METALAYER_NAME) {
            let bytes = meta.serialize_caterva()?;
            s.meta_update(CATERVA_METALAYER_NAME, &bytes)?;
            return Ok(());
        }
        let bytes = meta.serialize()?;
        if has(METALAYER_NAME) {
            s.meta_update(METALAYER_NAME, &bytes)?;
        } else {
            s.meta_add(METALAYER_NAME, &bytes)?;
        }
        Ok(())
    }

    fn fill(&mut self, fill: Fill<'_>) -> Result<()> {
        let nchunks = self.geom.nchunks();
        let chunk_nbytes = self.chunk_nbytes()?;
        let itemsize = self.itemsize();
        let special = match fill {
            Fill::Uninit | Fill::Buffer(_) => Special::Uninit,
            Fill::Zero => Special::Zero,
            Fill::Nan => {
                if itemsize != 4 && itemsize != 8 {
                    crate::trace_error!("Unsupported typesize for NaN");
                    return Err(Error::Data);
                }
                Special::Nan
            }
            Fill::Value(v) => {
                check_buffer("fill value", v.len(), itemsize)?;
                let s: &mut Schunk = self.sc.borrow_mut();
                let mut buf = vec![0u8; EXTENDED_HEADER_LENGTH + itemsize];
                let n = special_chunk(
                    s.cparams(),
                    Special::Value,
                    chunk_nbytes,
                    Some(&v[..itemsize]),
                    &mut buf,
                )?;
                buf.truncate(n);
                for _ in 0..nchunks {
                    s.append_chunk(buf.as_slice())?;
                }
                return Ok(());
            }
        };
        if nchunks > 0 {
            let s: &mut Schunk = self.sc.borrow_mut();
            let nitems = nchunks
                .checked_mul(self.geom.extchunknitems())
                .ok_or(Error::InvalidParam)?;
            s.fill_special(nitems, special as i32, chunk_nbytes as i32)?;
        }
        if let Fill::Buffer(b) = fill {
            let shape = self.geom.shape().to_vec();
            let zero = vec![0i64; shape.len()];
            self.set_slice_cbuffer(b, &shape, &zero, &shape)?;
        }
        Ok(())
    }

    /// Decompress chunk `n` (whole, or only the blocks not masked out) into `buf`.
    fn read_chunk(&mut self, n: i64, buf: &mut [u8], mask: Option<&[bool]>) -> Result<()> {
        let s: &mut Schunk = self.sc.borrow_mut();
        if n >= s.nchunks() {
            crate::trace_error!("The array's super-chunk misses chunk {n}");
            return Err(Error::ReadBuffer);
        }
        let nb = s.chunk_nbytes(n)? as usize;
        if nb != buf.len() {
            crate::trace_error!(
                "Chunk {n} holds {nb} bytes, but the array's chunks have {}",
                buf.len()
            );
            return Err(Error::Data);
        }
        let dp = s.dparams().clone();
        s.decompress_chunk_with(&dp, n, buf, mask)?;
        Ok(())
    }

    /// Compress `buf` as chunk `n` (replacing it, or appended when `n == nchunks`).
    fn write_chunk(&mut self, n: i64, buf: &[u8]) -> Result<()> {
        let s: &mut Schunk = self.sc.borrow_mut();
        let chunk = s.compress_data(n, buf)?;
        if n < s.nchunks() {
            s.update_chunk(n, chunk)?;
        } else {
            s.append_chunk(chunk)?;
        }
        Ok(())
    }

    /// A chunk-sized buffer: the one kept from an earlier call, or a new zeroed one. Its
    /// content is whatever the last call left; give it back with [`Self::set_scratch`].
    fn chunk_buffer(&mut self) -> Result<Vec<u8>> {
        // chunks over 2 GiB: an invalid request here, as C-Blosc2 answers it
        let n = self.chunk_nbytes().map_err(|e| match e {
            Error::MaxBufsizeExceeded => Error::InvalidParam,
            e => e,
        })?;
        let v = std::mem::take(&mut self.scratch);
        if v.len() == n {
            Ok(v)
        } else {
            crate::error::zeroed_vec(n)
        }
    }

    /// Keep `v` as the chunk buffer of the next call (from [`Self::chunk_buffer`], or kept by
    /// the C layer, which rebuilds its array view on each call, between calls).
    pub(crate) fn set_scratch(&mut self, v: Vec<u8>) {
        self.scratch = v;
    }

    /// Take the chunk buffer kept for the next call.
    pub(crate) fn take_scratch(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.scratch)
    }

    /// Whether copying the slice part `c` into a chunk buffer writes every byte of it (the
    /// slice covers the chunk, which is not cut by the array's edge and is a whole number of
    /// blocks), so that the buffer needs no clearing first.
    fn writes_whole_chunk(&self, c: &ChunkSlice) -> bool {
        let g = &self.geom;
        c.covers_chunk()
            && g.chunkshape()
                .iter()
                .zip(g.blockshape())
                .zip(c.origin.iter().zip(&c.end))
                .all(|((&cs, &bs), (&o, &e))| cs % bs == 0 && e - o == cs as i64)
    }

    /// Where the bytes of chunk `c` lie, as the chunk holds them, in a C-order buffer of shape
    /// `bufshape` whose first item is at `bstart`: when `c` is written whole without padding,
    /// its blocks span every dimension but the first (so the chunk is in C order) and the
    /// buffer is as wide as the chunk in those dimensions. `None` otherwise.
    fn chunk_in_buffer(
        &self,
        c: &ChunkSlice,
        bufshape: &[i64],
        bstart: &[i64],
    ) -> Option<std::ops::Range<usize>> {
        let g = &self.geom;
        let n = g.ndim();
        if n == 0 || !self.writes_whole_chunk(c) {
            return None;
        }
        let (cs, bs) = (g.chunkshape(), g.blockshape());
        if (1..n).any(|i| bs[i] != cs[i] || bufshape[i] != cs[i] as i64 || c.origin[i] != bstart[i])
        {
            return None;
        }
        let row = bufshape[1..]
            .iter()
            .try_fold(self.itemsize(), |a, &b| a.checked_mul(b as usize))?;
        let first = usize::try_from(c.origin[0] - bstart[0])
            .ok()?
            .checked_mul(row)?;
        Some(first..first + cs[0] as usize * row)
    }

    fn check_buffer_shape(&self, bufshape: &[i64], start: &[i64], stop: &[i64]) -> Result<usize> {
        self.geom.check_slice(start, stop)?;
        self.check_buffer_shape_of(bufshape, start, stop)
    }

    /// The buffer length for a buffer of shape `bufshape` holding the (checked) slice
    /// `[start, stop)`.
    fn check_buffer_shape_of(
        &self,
        bufshape: &[i64],
        start: &[i64],
        stop: &[i64],
    ) -> Result<usize> {
        if bufshape.len() != self.ndim() {
            crate::trace_error!("The buffer shape must have ndim ({}) items", self.ndim());
            return Err(Error::InvalidParam);
        }
        for i in 0..self.ndim() {
            if bufshape[i] < stop[i] - start[i] {
                crate::trace_error!(
                    "The buffer shape ({}) is smaller than the slice ({}) in dimension {i}",
                    bufshape[i],
                    stop[i] - start[i]
                );
                return Err(Error::InvalidParam);
            }
        }
        buffer_len(bufshape, self.itemsize())
    }

    /// Copy between the blocks of a decoded chunk and a C-order buffer (`to_buf`: chunk to
    /// buffer). `bstart` is where the buffer's `[0, ..]` lies in the array.
    fn copy_blocks(
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

    /// The items of an orthogonal selection: `selection[i]` lists indices along dimension `i`
    /// (negative ones count from the end); for each combination (C order) `(out position,
    /// chunk, item in chunk)`.
    fn orthogonal_plan(
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

/// A super-chunk in memory holding the chunks and metalayers of `frame` (variable-length
/// metalayers are not carried over).
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
/// use b2rs::b2nd::array::schunk_from_frame;
/// use b2rs::frame::Frame;
///
/// let frame = Frame::from_bytes(a.to_cframe().unwrap()).unwrap();
/// let sc = schunk_from_frame(&frame).unwrap();
/// assert!(sc.is_memory());
/// assert_eq!(Array::open(sc).unwrap().to_vec().unwrap(), data);
/// ```
pub fn schunk_from_frame(frame: &Frame) -> Result<Schunk> {
    let cparams = frame.params().to_cparams();
    let dparams = crate::params::DParams {
        typesize: cparams.typesize,
        ..Default::default()
    };
    let mut sc = Schunk::new(cparams, dparams);
    for m in frame.metalayers() {
        sc.meta_add(&m.name, &m.content)?;
    }
    for n in 0..frame.nchunks() {
        let c = frame.get_chunk(n)?;
        sc.append_chunk(c.into_owned())?;
    }
    Ok(sc)
}

/// A contiguous frame (cframe) holding the chunks and metalayers of `sc`, built as C-Blosc2
/// builds a frame chunk by chunk (zero, NaN and uninitialised chunks become special offsets).
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
/// use b2rs::b2nd::array::schunk_to_cframe;
///
/// let cframe = schunk_to_cframe(a.schunk()).unwrap();
/// assert_eq!(Array::from_cframe(cframe).unwrap().to_vec().unwrap(), data);
/// ```
pub fn schunk_to_cframe(sc: &Schunk) -> Result<Vec<u8>> {
    let params = FrameParams::from_cparams(sc.cparams(), sc.dparams().nthreads.max(1));
    // The chunks of an array share one size: the frame that appending them makes is built at
    // once (appending rewrites the offsets chunk every time).
    let chunks = (0..sc.nchunks())
        .map(|n| sc.get_chunk(n))
        .collect::<Result<Vec<_>>>()?;
    if let Some(first) = chunks.first() {
        let chunksize = crate::chunk::Header::sizes(first)?.0;
        let refs: Vec<&[u8]> = chunks.iter().map(|c| &**c).collect();
        let conv = crate::schunk::to_frame_metalayers;
        let (metas, vlmetas) = (conv(sc.metalayers()), conv(sc.vlmetalayers()));
        if let Ok(f) = Frame::from_fixed_chunks(&params, chunksize, &refs, &metas, &vlmetas) {
            return f.into_bytes();
        }
    }
    let mut f = Frame::create(FrameLocation::Memory, &params, Arc::new(StdIo))?;
    for m in sc.metalayers() {
        f.add_metalayer(&m.name, &m.content)?;
    }
    for c in &chunks {
        f.append_chunk(c)?;
    }
    for m in sc.vlmetalayers() {
        f.set_vlmetalayer(&m.name, &m.content)?;
    }
    f.into_bytes()
}

impl Array<Schunk> {
    /// The array held in the contiguous frame `cframe` (copied into memory).
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
    /// let mut b = Array::from_cframe(a.to_cframe().unwrap()).unwrap();
    /// assert_eq!((b.shape(), b.dtype()), (&[4i64, 6][..], Some(&b"|u1"[..])));
    /// assert_eq!(b.to_vec().unwrap(), data);
    /// assert!(Array::from_cframe(vec![0u8; 10]).is_err());
    /// ```
    pub fn from_cframe(cframe: Vec<u8>) -> Result<Array<Schunk>> {
        let frame = Frame::from_bytes(cframe)?;
        Array::open(schunk_from_frame(&frame)?)
    }
}

impl<S: BorrowMut<Schunk>> Array<S> {
    /// The array serialised as a contiguous frame (a `.b2nd` file's content).
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
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2nd", std::process::id()));
    /// std::fs::write(&path, a.to_cframe().unwrap()).unwrap();
    /// let mut b = Array::from_cframe(std::fs::read(&path).unwrap()).unwrap();
    /// assert_eq!(b.to_vec().unwrap(), data);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn to_cframe(&self) -> Result<Vec<u8>> {
        schunk_to_cframe(self.sc.borrow())
    }
}

/// The user buffer of a block copy.
enum BufRef<'a> {
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

fn concat_shape<A, B>(a: &Array<A>, b: &Array<B>, axis: usize) -> Result<Vec<i64>>
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

/// Largest slice buffer a thread keeps between [`Array::copy_slice_to`] calls.
const SLICE_SCRATCH_MAX: usize = 64 << 20;

thread_local! {
    /// The buffer [`Array::copy_slice_to`] passes pieces through (taken while in use, so a
    /// nested call gets a buffer of its own).
    static SLICE_SCRATCH: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

mod chunkcopy;
mod resize;
#[cfg(test)]
mod tests;
