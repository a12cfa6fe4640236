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
            // reported when opened again, as C-Blosc2 writes it with the metalayer
            s.write_header()?;
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

    /// The bytes of a decoded chunk; chunks over 2 GiB are an invalid request here, as
    /// C-Blosc2 answers it.
    pub(super) fn chunk_len(&self) -> Result<usize> {
        self.chunk_nbytes().map_err(|e| match e {
            Error::MaxBufsizeExceeded => Error::InvalidParam,
            e => e,
        })
    }

    /// A chunk-sized buffer: the one kept from an earlier call, or a new zeroed one. Its
    /// content is whatever the last call left; give it back with [`Self::set_scratch`].
    fn chunk_buffer(&mut self) -> Result<Vec<u8>> {
        let n = self.chunk_len()?;
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
    #[cfg(feature = "capi")]
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
}

/// Largest slice buffer a thread keeps between [`Array::copy_slice_to`] calls.
const SLICE_SCRATCH_MAX: usize = 64 << 20;

thread_local! {
    /// The buffer [`Array::copy_slice_to`] passes pieces through (taken while in use, so a
    /// nested call gets a buffer of its own).
    static SLICE_SCRATCH: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

mod chunkcopy;
mod copy;
mod frames;
mod resize;
mod selection;
mod slices;

use copy::BufRef;
pub use copy::{concatenate, concatenate_into};
pub use frames::{schunk_from_frame, schunk_to_cframe};
#[cfg(test)]
mod tests;
