//! The `b2nd` metalayer (B2ND.md §1) and the legacy `caterva` metalayer (§1.1).
//!
//! The metalayer is a msgpack array with a fixed encoding (every integer in its fixed-width big-endian
//! form), so its length only depends on `ndim` and the dtype length:
//!
//! ```text
//! 97                      fixarray of 7
//! 00                      version (B2ND_METALAYER_VERSION)
//! ndim                    positive fixint
//! 90+ndim  (D3 i64)*ndim  shape
//! 90+ndim  (D2 i32)*ndim  chunkshape
//! 90+ndim  (D2 i32)*ndim  blockshape
//! dtype_format            positive fixint (0 = NumPy)
//! DB u32 bytes            dtype string (str32)
//! ```
//!
//! The Caterva layout is the same without the last two entries (`95`, fixarray of 5). Decoding
//! follows C-Blosc2's `b2nd_deserialize_meta`: the array header, the version and the per-value
//! markers are skipped unchecked; the dtype is optional (absent in Caterva metalayers). C-Blosc2
//! keeps a missing dtype as NULL and writes [`DEFAULT_DTYPE`] (`|u1`) when it serialises the
//! array again; python-blosc2 reports such arrays as `|S<itemsize>` (plain bytes).
//!
//! Decoding only checks the encoding; [`Meta::geometry`] applies the rules on the shapes.

use super::geometry::Geometry;
use super::{DEFAULT_DTYPE, MAX_DIM, METALAYER_VERSION};
use crate::{Error, Result};

/// The contents of a `b2nd` (or `caterva`) metalayer.
///
/// ```
/// use b2rs::b2nd::Meta;
///
/// let meta = Meta::new(&[10, 20], &[5, 10], &[5, 5]).with_dtype("<i4");
/// let bytes = meta.serialize().unwrap();          // the metalayer content, msgpack
/// let (back, _) = Meta::deserialize(&bytes).unwrap();
/// assert_eq!(back, meta);
/// assert_eq!(back.dtype_str(), Some("<i4"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Meta {
    /// Shape of the array (its length is `ndim`).
    pub shape: Vec<i64>,
    /// Shape of the chunks.
    pub chunkshape: Vec<i32>,
    /// Shape of the blocks inside a chunk.
    pub blockshape: Vec<i32>,
    /// Format of `dtype`: 0 = NumPy array-interface string ([`super::DTYPE_NUMPY_FORMAT`]).
    pub dtype_format: i8,
    /// Data type description, raw bytes as stored (normally UTF-8); `None` when the metalayer has
    /// none (Caterva) or, when serialising, for [`DEFAULT_DTYPE`].
    pub dtype: Option<Vec<u8>>,
}

/// Number of bytes needed by the fixed part (everything but the dtype) for `ndim` dimensions.
fn dims_len(ndim: usize) -> usize {
    3 + (1 + 9 * ndim) + 2 * (1 + 5 * ndim)
}

impl Meta {
    /// A description with the given shapes, the NumPy dtype format and no dtype.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::b2nd::Meta;
    ///
    /// let m = Meta::new(&[100, 50], &[10, 50], &[5, 10]);
    /// assert_eq!((m.ndim(), m.dtype.as_deref()), (2, None));
    /// assert_eq!(m.dtype_format, b2rs::b2nd::DTYPE_NUMPY_FORMAT);
    /// ```
    pub fn new(shape: &[i64], chunkshape: &[i32], blockshape: &[i32]) -> Meta {
        Meta {
            shape: shape.to_vec(),
            chunkshape: chunkshape.to_vec(),
            blockshape: blockshape.to_vec(),
            dtype_format: super::DTYPE_NUMPY_FORMAT,
            dtype: None,
        }
    }

    /// The same description with a dtype string.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::b2nd::Meta;
    ///
    /// let m = Meta::new(&[10], &[10], &[5]).with_dtype("<i4");
    /// assert_eq!(m.dtype_str(), Some("<i4"));
    /// ```
    pub fn with_dtype(mut self, dtype: &str) -> Meta {
        self.dtype = Some(dtype.as_bytes().to_vec());
        self
    }

    /// Number of dimensions.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::b2nd::Meta;
    ///
    /// assert_eq!(Meta::new(&[2, 3, 4], &[2, 3, 4], &[1, 3, 4]).ndim(), 3);
    /// ```
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// The dtype bytes, or [`DEFAULT_DTYPE`] when there are none (what C-Blosc2 writes back).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::b2nd::Meta;
    ///
    /// assert_eq!(Meta::new(&[4], &[4], &[4]).dtype_or_default(), b"|u1");
    /// assert_eq!(Meta::new(&[4], &[4], &[4]).with_dtype("<f8").dtype_or_default(), b"<f8");
    /// ```
    pub fn dtype_or_default(&self) -> &[u8] {
        self.dtype.as_deref().unwrap_or(DEFAULT_DTYPE.as_bytes())
    }

    /// The dtype as text, if present and valid UTF-8.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::b2nd::Meta;
    ///
    /// let mut m = Meta::new(&[4], &[4], &[4]).with_dtype("<f8");
    /// assert_eq!(m.dtype_str(), Some("<f8"));
    /// m.dtype = Some(vec![0xff]);
    /// assert_eq!(m.dtype_str(), None); // not UTF-8
    /// ```
    pub fn dtype_str(&self) -> Option<&str> {
        self.dtype
            .as_deref()
            .and_then(|d| std::str::from_utf8(d).ok())
    }

    /// Check the lengths of the shapes: equal, and at most [`MAX_DIM`].
    fn check_ndim(&self) -> Result<usize> {
        let ndim = self.shape.len();
        if self.chunkshape.len() != ndim || self.blockshape.len() != ndim {
            crate::trace_error!("shape, chunkshape and blockshape must have the same length");
            return Err(Error::InvalidParam);
        }
        if ndim > MAX_DIM {
            crate::trace_error!("ndim must be in [0, {MAX_DIM}]");
            return Err(Error::InvalidParam);
        }
        Ok(ndim)
    }

    /// Serialise as a `b2nd` metalayer, byte for byte as C-Blosc2's `b2nd_serialize_meta`
    /// (a missing dtype is written as [`DEFAULT_DTYPE`]).
    ///
    /// Errors: [`Error::InvalidParam`] for shapes of different lengths or more than [`MAX_DIM`]
    /// dimensions; [`Error::Failure`] for a negative `dtype_format` or a dtype longer than
    /// `i32::MAX` bytes (as C-Blosc2). The shapes themselves are not checked.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::b2nd::Meta;
    ///
    /// let m = Meta::new(&[10, 10], &[5, 5], &[5, 5]).with_dtype("<f4");
    /// let bytes = m.serialize().unwrap();
    /// // a msgpack array of 7 entries: version, ndim, shape, chunkshape, blockshape, format, dtype
    /// assert_eq!(bytes[0], 0x97);
    /// assert_eq!(Meta::deserialize(&bytes).unwrap(), (m, bytes.len()));
    /// ```
    pub fn serialize(&self) -> Result<Vec<u8>> {
        let ndim = self.check_ndim()?;
        if self.dtype_format < 0 {
            crate::trace_error!("dtype_format cannot be negative");
            return Err(Error::Failure);
        }
        let dtype = self.dtype_or_default();
        let Ok(dtype_len) = i32::try_from(dtype.len()) else {
            crate::trace_error!("dtype is too large (len > {})", i32::MAX);
            return Err(Error::Failure);
        };
        let mut out = Vec::with_capacity(dims_len(ndim) + 6 + dtype.len());
        self.write_dims(&mut out, 0x97);
        out.push(self.dtype_format as u8);
        out.push(0xdb);
        out.extend_from_slice(&dtype_len.to_be_bytes());
        out.extend_from_slice(dtype);
        Ok(out)
    }

    /// Serialise as a legacy `caterva` metalayer (no dtype). C-Blosc2 never writes these; useful
    /// to produce test input for readers.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::b2nd::Meta;
    ///
    /// let m = Meta::new(&[6], &[3], &[3]);
    /// let caterva = m.serialize_caterva().unwrap();
    /// let (back, _) = Meta::deserialize(&caterva).unwrap();
    /// assert_eq!((back.shape, back.dtype), (vec![6], None));
    /// ```
    pub fn serialize_caterva(&self) -> Result<Vec<u8>> {
        let ndim = self.check_ndim()?;
        let mut out = Vec::with_capacity(dims_len(ndim));
        self.write_dims(&mut out, 0x95);
        Ok(out)
    }

    fn write_dims(&self, out: &mut Vec<u8>, header: u8) {
        let ndim = self.shape.len() as u8; // <= MAX_DIM, checked by the callers
        out.push(header);
        out.push(METALAYER_VERSION);
        out.push(ndim);
        // C-Blosc2 writes 0x90 + ndim even when that is no fixarray marker (ndim 16 gives 0xA0).
        out.push(0x90 + ndim);
        for v in &self.shape {
            out.push(0xd3);
            out.extend_from_slice(&v.to_be_bytes());
        }
        for shape in [&self.chunkshape, &self.blockshape] {
            out.push(0x90 + ndim);
            for v in shape {
                out.push(0xd2);
                out.extend_from_slice(&v.to_be_bytes());
            }
        }
    }

    /// Decode a `b2nd` or `caterva` metalayer as C-Blosc2's `b2nd_deserialize_meta` does, dtype
    /// included. Returns the description and the number of bytes read (bytes after it are
    /// ignored).
    ///
    /// Errors ([`Error::Failure`], like C-Blosc2): empty or truncated input, `ndim` outside
    /// `0..=`[`MAX_DIM`], a dtype marker other than `DB`, a negative dtype length. When the input
    /// ends right after the block shape (Caterva) the dtype is `None` and `dtype_format` 0.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::b2nd::Meta;
    /// use b2rs::Error;
    ///
    /// let m = Meta::new(&[7, 3], &[4, 3], &[2, 3]).with_dtype("<u2");
    /// let mut bytes = m.serialize().unwrap();
    /// let len = bytes.len();
    /// bytes.extend_from_slice(b"trailing bytes are ignored");
    /// assert_eq!(Meta::deserialize(&bytes).unwrap(), (m, len));
    /// assert_eq!(Meta::deserialize(&bytes[..5]), Err(Error::Failure));
    /// ```
    pub fn deserialize(smeta: &[u8]) -> Result<(Meta, usize)> {
        let (mut meta, mut r) = Self::read_dims(smeta)?;
        if r.remaining() > 0 {
            let head = r.take(6)?;
            meta.dtype_format = head[0] as i8;
            if head[1] != 0xdb {
                crate::trace_error!("Malformed b2nd metalayer: invalid dtype MsgPack marker");
                return Err(Error::Failure);
            }
            let len = i32::from_be_bytes([head[2], head[3], head[4], head[5]]);
            if len < 0 {
                crate::trace_error!("Malformed b2nd metalayer: negative dtype length");
                return Err(Error::Failure);
            }
            meta.dtype = Some(r.take(len as usize)?.to_vec());
        }
        Ok((meta, r.pos))
    }

    /// Decode only `ndim` and the three shapes (what `b2nd_deserialize_meta` does when called
    /// without `dtype` outputs): the dtype part is not looked at. Returns the description (no
    /// dtype) and the number of bytes read.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::b2nd::Meta;
    ///
    /// let m = Meta::new(&[7, 3], &[4, 3], &[2, 3]).with_dtype("<u2");
    /// let (dims, _) = Meta::deserialize_dims(&m.serialize().unwrap()).unwrap();
    /// assert_eq!((dims.shape, dims.chunkshape, dims.blockshape), (vec![7, 3], vec![4, 3], vec![2, 3]));
    /// assert_eq!(dims.dtype, None);
    /// ```
    pub fn deserialize_dims(smeta: &[u8]) -> Result<(Meta, usize)> {
        let (meta, r) = Self::read_dims(smeta)?;
        Ok((meta, r.pos))
    }

    fn read_dims(smeta: &[u8]) -> Result<(Meta, Reader<'_>)> {
        if smeta.is_empty() {
            crate::trace_error!("Malformed b2nd metalayer: empty metadata");
            return Err(Error::Failure);
        }
        let mut r = Reader { buf: smeta, pos: 0 };
        r.take(2)?; // array header and version: not checked (as C-Blosc2)
        let ndim = r.take(1)?[0] as i8;
        if ndim < 0 || ndim as usize > MAX_DIM {
            crate::trace_error!("ndim {ndim} is out of range");
            return Err(Error::Failure);
        }
        let ndim = ndim as usize;
        let mut meta = Meta::default();
        r.take(1)?;
        for _ in 0..ndim {
            let v = r.take(9)?;
            meta.shape
                .push(i64::from_be_bytes(v[1..9].try_into().unwrap()));
        }
        for shape in [&mut meta.chunkshape, &mut meta.blockshape] {
            r.take(1)?;
            for _ in 0..ndim {
                let v = r.take(5)?;
                shape.push(i32::from_be_bytes(v[1..5].try_into().unwrap()));
            }
        }
        Ok((meta, r))
    }

    /// Read the description of an array from its metalayers as `b2nd_from_schunk` does: the
    /// `b2nd` one if present, else the legacy `caterva` one; [`Error::MetalayerNotFound`] when
    /// there is neither.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::b2nd::Meta;
    /// use b2rs::Error;
    ///
    /// let m = Meta::new(&[8], &[4], &[2]).with_dtype("<i8");
    /// let b2nd = m.serialize().unwrap();
    /// let caterva = Meta::new(&[9], &[3], &[3]).serialize_caterva().unwrap();
    /// // "b2nd" wins over "caterva"
    /// assert_eq!(Meta::from_metalayers(Some(&b2nd), Some(&caterva)).unwrap(), m);
    /// assert_eq!(Meta::from_metalayers(None, Some(&caterva)).unwrap().shape, [9]);
    /// assert_eq!(Meta::from_metalayers(None, None), Err(Error::MetalayerNotFound));
    /// ```
    pub fn from_metalayers(b2nd: Option<&[u8]>, caterva: Option<&[u8]>) -> Result<Meta> {
        match b2nd.or(caterva) {
            Some(bytes) => Ok(Self::deserialize(bytes)?.0),
            None => {
                crate::trace_error!("Metalayer \"b2nd\" not found");
                Err(Error::MetalayerNotFound)
            }
        }
    }

    /// The validated geometry of these shapes ([`Geometry::new`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::b2nd::Meta;
    ///
    /// let g = Meta::new(&[10, 7], &[4, 4], &[2, 3]).geometry().unwrap();
    /// assert_eq!(g.nchunks(), 6);
    /// assert!(Meta::new(&[10], &[0], &[0]).geometry().is_err());
    /// ```
    pub fn geometry(&self) -> Result<Geometry> {
        Geometry::new(&self.shape, &self.chunkshape, &self.blockshape)
    }
}

/// A cursor that fails with [`Error::Failure`] instead of reading past the end.
struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.remaining() < n {
            crate::trace_error!("Malformed b2nd metalayer: truncated metadata");
            return Err(Error::Failure);
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The metalayer of B2ND.md §4.2 (testdata/b2nd/example_day_month_temp.b2nd).
    const EXAMPLE: &str = "97 00 02 92 d3 00 00 00 00 00 00 01 90 d3 00 00 00 00 00 00 00 03 \
                           92 d2 00 00 00 6e d2 00 00 00 03 92 d2 00 00 00 39 d2 00 00 00 03 \
                           00 db 00 00 00 03 7c 75 31";

    fn hex(s: &str) -> Vec<u8> {
        s.split_whitespace()
            .map(|b| u8::from_str_radix(b, 16).unwrap())
            .collect()
    }

    fn example() -> Meta {
        Meta::new(&[400, 3], &[110, 3], &[57, 3]).with_dtype("|u1")
    }

    #[test]
    fn serialize_spec_example() {
        let bytes = example().serialize().unwrap();
        assert_eq!(bytes, hex(EXAMPLE));
        assert_eq!(bytes.len(), 53);
        // No dtype → "|u1" as well.
        let mut m = example();
        m.dtype = None;
        assert_eq!(m.serialize().unwrap(), hex(EXAMPLE));
    }

    #[test]
    fn deserialize_spec_example() {
        let (m, n) = Meta::deserialize(&hex(EXAMPLE)).unwrap();
        assert_eq!(n, 53);
        assert_eq!(m, example());
        assert_eq!(m.dtype_str(), Some("|u1"));
        let (d, n) = Meta::deserialize_dims(&hex(EXAMPLE)).unwrap();
        assert_eq!(n, 53 - 9);
        assert_eq!(d.shape, m.shape);
        assert_eq!(d.dtype, None);
    }

    #[test]
    fn length_formula() {
        for ndim in 0..=MAX_DIM {
            let m = Meta::new(&vec![7; ndim], &vec![3; ndim], &vec![2; ndim]).with_dtype("<f8");
            let b = m.serialize().unwrap();
            assert_eq!(b.len(), 3 + (1 + 9 * ndim) + 2 * (1 + 5 * ndim) + 1 + 5 + 3);
            let (back, n) = Meta::deserialize(&b).unwrap();
            assert_eq!(n, b.len());
            assert_eq!(back, m);
        }
    }

    #[test]
    fn scalar_matches_reference_bytes() {
        // b2nd_serialize_meta(0, NULL, NULL, NULL, "<f8", 0) in C-Blosc2 3.3.5.
        let m = Meta::new(&[], &[], &[]).with_dtype("<f8");
        assert_eq!(
            m.serialize().unwrap(),
            hex("97 00 00 90 90 90 00 db 00 00 00 03 3c 66 38")
        );
    }

    #[test]
    fn serialize_errors() {
        let mut m = example();
        m.dtype_format = -1;
        assert_eq!(m.serialize(), Err(Error::Failure));
        m.dtype_format = 127;
        assert_eq!(m.serialize().unwrap()[44], 0x7f);
        let m = Meta::new(&[1, 2], &[1], &[1, 1]);
        assert_eq!(m.serialize(), Err(Error::InvalidParam));
        let m = Meta::new(&[1; 17], &[1; 17], &[1; 17]);
        assert_eq!(m.serialize(), Err(Error::InvalidParam));
        assert_eq!(m.serialize_caterva(), Err(Error::InvalidParam));
    }

    #[test]
    fn caterva_layout() {
        let m = Meta::new(&[400, 3], &[110, 3], &[57, 3]);
        let b = m.serialize_caterva().unwrap();
        assert_eq!(b[0], 0x95);
        assert_eq!(&b[1..], &hex(EXAMPLE)[1..44]);
        let (back, n) = Meta::deserialize(&b).unwrap();
        assert_eq!(n, b.len());
        assert_eq!(back, m);
        assert_eq!(back.dtype, None);
        assert_eq!(back.dtype_format, 0);
        assert_eq!(back.dtype_or_default(), b"|u1");
    }

    #[test]
    fn from_metalayers_prefers_b2nd() {
        let b2nd = example().serialize().unwrap();
        let cat = Meta::new(&[5], &[5], &[5]).serialize_caterva().unwrap();
        assert_eq!(
            Meta::from_metalayers(Some(&b2nd), Some(&cat)).unwrap(),
            example()
        );
        assert_eq!(
            Meta::from_metalayers(None, Some(&cat)).unwrap().shape,
            vec![5]
        );
        assert_eq!(
            Meta::from_metalayers(None, None),
            Err(Error::MetalayerNotFound)
        );
    }

    #[test]
    fn malformed_inputs() {
        let good = hex(EXAMPLE);
        assert_eq!(Meta::deserialize(&[]), Err(Error::Failure));
        // ndim out of range (as i8: 17, 0x80 = -128, 0xff = -1).
        for bad_ndim in [17u8, 0x7f, 0x80, 0xff] {
            let mut b = good.clone();
            b[2] = bad_ndim;
            assert_eq!(
                Meta::deserialize(&b),
                Err(Error::Failure),
                "ndim {bad_ndim}"
            );
        }
        // wrong dtype marker
        let mut b = good.clone();
        b[45] = 0xd9;
        assert_eq!(Meta::deserialize(&b), Err(Error::Failure));
        assert!(Meta::deserialize_dims(&b).is_ok());
        // negative dtype length
        let mut b = good.clone();
        b[46] = 0x80;
        assert_eq!(Meta::deserialize(&b), Err(Error::Failure));
        // dtype longer than the input
        let mut b = good.clone();
        b[49] = 4;
        assert_eq!(Meta::deserialize(&b), Err(Error::Failure));
        // trailing bytes are ignored
        let mut b = good.clone();
        b.extend_from_slice(b"junk");
        assert_eq!(Meta::deserialize(&b).unwrap().1, 53);
    }

    #[test]
    fn truncated_at_every_position() {
        for ndim in [0usize, 1, 2, 5, 16] {
            let m = Meta::new(&vec![9; ndim], &vec![4; ndim], &vec![2; ndim]).with_dtype("<i4");
            let b = m.serialize().unwrap();
            let dims_end = dims_len(ndim);
            for cut in 0..b.len() {
                let r = Meta::deserialize(&b[..cut]);
                if cut == dims_end {
                    // Ends right after the block shape: a Caterva-style metalayer.
                    let (back, n) = r.unwrap();
                    assert_eq!(n, cut);
                    assert_eq!(back.dtype, None);
                } else {
                    assert_eq!(r, Err(Error::Failure), "ndim {ndim} cut {cut}");
                }
                let r = Meta::deserialize_dims(&b[..cut]);
                assert_eq!(r.is_ok(), cut >= dims_end, "dims ndim {ndim} cut {cut}");
            }
        }
    }

    #[test]
    fn flipped_bytes_never_panic() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let base = Meta::new(&[10, 20, 30], &[5, 10, 15], &[2, 5, 5])
            .with_dtype("[('a', '<i4'), ('b', '<f8')]")
            .serialize()
            .unwrap();
        for _ in 0..20_000 {
            let mut b = base.clone();
            for _ in 0..1 + rnd() % 4 {
                let i = (rnd() as usize) % b.len();
                b[i] ^= 1 << (rnd() % 8);
            }
            let cut = (rnd() as usize) % (b.len() + 1);
            for input in [&b[..], &b[..cut]] {
                if let Ok((m, n)) = Meta::deserialize(input) {
                    assert!(n <= input.len());
                    assert!(m.ndim() <= MAX_DIM);
                    // Whatever decodes must survive the semantic checks without panicking.
                    let _ = m.geometry();
                    let _ = m.serialize();
                }
                let _ = Meta::deserialize_dims(input);
            }
        }
    }
}
