//! Reading a Bloscpack file chunk by chunk (BLOSCPACK.md §1, §4, §6).
//!
//! [`Reader::new`] reads the header, the metadata section and the offsets table; the chunks are
//! then read one at a time, sequentially from any [`Read`] (a pipe will do) or by number through
//! the offsets table when the reader also implements [`Seek`]. Only one compressed and one
//! decompressed chunk are held in memory. Every chunk is checked: its Blosc header, its
//! checksum, its position against the offsets table and its size against the Bloscpack header;
//! the errors name the chunk.
//!
//! Positions (the offsets table) count from the start of the Bloscpack header, which is where
//! the reader is when [`Reader::new`] is called (the start of the file in the usual case).

use super::error::{read_err, Error, Part, Result};
use super::header::Header;
use super::io::{read_exact_or_eof, read_vec, read_vec_into, skip};
use super::metadata::{read_section, Metadata};
use crate::chunk::header::{
    Header as ChunkHeader, EXTENDED_HEADER_LENGTH, MAX_BUFFERSIZE, MAX_OVERHEAD, MIN_HEADER_LENGTH,
};
use crate::params::DParams;
use std::io::{Read, Seek, SeekFrom, Write};

/// A Bloscpack file opened for reading.
///
/// # Examples
///
/// ```
/// # use std::io::Cursor;
/// # use b2rs::bloscpack::{self, PackParams, Reader};
/// #
/// # // 3000 u32 (12 000 bytes) in 3 chunks of 4000 bytes, with JSON metadata
/// # let data: Vec<u8> = (0..3000u32).flat_map(|i| i.to_le_bytes()).collect();
/// # let params = PackParams { chunk_size: 4000, ..PackParams::default() };
/// # let file = bloscpack::pack(&data, &params, Some(br#"{"units":"m"}"#)).unwrap();
/// let mut r = Reader::new(Cursor::new(&file)).unwrap();
/// let mut back = Vec::new();
/// while let Some(chunk) = r.read_next_chunk().unwrap() {
///     assert_eq!(chunk.len(), 4000);
///     back.extend_from_slice(&chunk);
/// }
/// assert_eq!(back, data);
/// ```
#[derive(Debug)]
pub struct Reader<R> {
    inner: R,
    header: Header,
    metadata: Option<Metadata>,
    offsets: Vec<i64>,
    offsets_pos: u64,
    data_start: u64,
    /// Position of `inner`, from the start of the header (unknown after a failed read).
    pos: u64,
    pos_valid: bool,
    /// Stream position of the header (known once `inner` has been asked, for seeking).
    base: Option<u64>,
    /// Number of the chunk at `pos` (when `pos` is at a chunk boundary).
    next_chunk: u64,
    /// A file with nchunks -1 has been read to its end.
    at_end: bool,
    /// A chunk shorter than chunk-size has been read (nchunks -1: it must be the last).
    short_seen: bool,
    dparams: DParams,
    cbuf: Vec<u8>,
}

impl<R: Read> Reader<R> {
    /// Read the header, metadata and offsets table from `inner`, which must be at the start of
    /// the Bloscpack header.
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::io::Cursor;
    /// # use b2rs::bloscpack::{self, PackParams, Reader};
    /// #
    /// # // 3000 u32 (12 000 bytes) in 3 chunks of 4000 bytes, with JSON metadata
    /// # let data: Vec<u8> = (0..3000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let params = PackParams { chunk_size: 4000, ..PackParams::default() };
    /// # let file = bloscpack::pack(&data, &params, Some(br#"{"units":"m"}"#)).unwrap();
    /// use b2rs::bloscpack::Error;
    ///
    /// let r = Reader::new(Cursor::new(&file)).unwrap();
    /// assert_eq!(r.header().nchunks, 3);
    /// assert!(matches!(Reader::new(Cursor::new(b"blpk")), Err(Error::Truncated(_))));
    /// ```
    pub fn new(mut inner: R) -> Result<Reader<R>> {
        let (header, mut pos) = Header::read_from(&mut inner).map(|(h, n)| (h, n as u64))?;
        let metadata = if header.metadata {
            let (m, n) = read_section(&mut inner)?;
            pos += n;
            Some(m)
        } else {
            None
        };
        let offsets_pos = pos;
        let mut offsets = Vec::new();
        if header.offsets {
            let n = header.nchunks as u64;
            let raw = read_vec(&mut inner, n * 8, Part::Offsets)?;
            offsets = raw
                .chunks_exact(8)
                .map(|b| i64::from_le_bytes(b.try_into().unwrap_or([0xff; 8])))
                .collect();
            skip(&mut inner, header.max_app_chunks as u64 * 8, Part::Offsets)?;
            pos += header.offsets_entries() * 8;
        }
        check_offsets(&offsets, pos)?;
        Ok(Reader {
            inner,
            header,
            metadata,
            offsets,
            offsets_pos,
            data_start: pos,
            pos,
            pos_valid: true,
            base: None,
            next_chunk: 0,
            at_end: false,
            short_seen: false,
            dparams: DParams::default(),
            cbuf: Vec::new(),
        })
    }

    /// The Bloscpack header.
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::io::Cursor;
    /// # use b2rs::bloscpack::{self, PackParams, Reader};
    /// #
    /// # // 3000 u32 (12 000 bytes) in 3 chunks of 4000 bytes, with JSON metadata
    /// # let data: Vec<u8> = (0..3000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let params = PackParams { chunk_size: 4000, ..PackParams::default() };
    /// # let file = bloscpack::pack(&data, &params, Some(br#"{"units":"m"}"#)).unwrap();
    /// assert_eq!(Reader::new(Cursor::new(&file)).unwrap().header().typesize, 8);
    /// ```
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The metadata section, if the file has one.
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::io::Cursor;
    /// # use b2rs::bloscpack::{self, PackParams, Reader};
    /// #
    /// # // 3000 u32 (12 000 bytes) in 3 chunks of 4000 bytes, with JSON metadata
    /// # let data: Vec<u8> = (0..3000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let params = PackParams { chunk_size: 4000, ..PackParams::default() };
    /// # let file = bloscpack::pack(&data, &params, Some(br#"{"units":"m"}"#)).unwrap();
    /// let r = Reader::new(Cursor::new(&file)).unwrap();
    /// assert_eq!(r.metadata().unwrap().data, br#"{"units":"m"}"#);
    /// let plain = bloscpack::pack(&data, &params, None).unwrap();
    /// assert!(Reader::new(Cursor::new(&plain)).unwrap().metadata().is_none());
    /// ```
    pub fn metadata(&self) -> Option<&Metadata> {
        self.metadata.as_ref()
    }

    /// The first `nchunks` entries of the offsets table (empty without one); −1 = never written.
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::io::Cursor;
    /// # use b2rs::bloscpack::{self, PackParams, Reader};
    /// #
    /// # // 3000 u32 (12 000 bytes) in 3 chunks of 4000 bytes, with JSON metadata
    /// # let data: Vec<u8> = (0..3000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let params = PackParams { chunk_size: 4000, ..PackParams::default() };
    /// # let file = bloscpack::pack(&data, &params, Some(br#"{"units":"m"}"#)).unwrap();
    /// let r = Reader::new(Cursor::new(&file)).unwrap();
    /// let offsets = r.offsets();
    /// assert_eq!(offsets.len(), 3);
    /// assert_eq!(offsets[0] as u64, r.data_start());
    /// assert!(offsets[0] < offsets[1] && offsets[1] < offsets[2]);
    /// ```
    pub fn offsets(&self) -> &[i64] {
        &self.offsets
    }

    /// Position of the offsets table (from the start of the header).
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::io::Cursor;
    /// # use b2rs::bloscpack::{self, PackParams, Reader};
    /// #
    /// # // 3000 u32 (12 000 bytes) in 3 chunks of 4000 bytes, with JSON metadata
    /// # let data: Vec<u8> = (0..3000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let params = PackParams { chunk_size: 4000, ..PackParams::default() };
    /// # let file = bloscpack::pack(&data, &params, Some(br#"{"units":"m"}"#)).unwrap();
    /// let r = Reader::new(Cursor::new(&file)).unwrap();
    /// // the table follows the metadata section; 33 entries of 8 bytes
    /// assert_eq!(r.offsets_pos() + 33 * 8, r.data_start());
    /// ```
    pub fn offsets_pos(&self) -> u64 {
        self.offsets_pos
    }

    /// Position of chunk 0 (from the start of the header).
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::io::Cursor;
    /// # use b2rs::bloscpack::{self, PackParams, Reader};
    /// #
    /// # // 3000 u32 (12 000 bytes) in 3 chunks of 4000 bytes, with JSON metadata
    /// # let data: Vec<u8> = (0..3000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let params = PackParams { chunk_size: 4000, ..PackParams::default() };
    /// # let file = bloscpack::pack(&data, &params, Some(br#"{"units":"m"}"#)).unwrap();
    /// let r = Reader::new(Cursor::new(&file)).unwrap();
    /// assert_eq!(r.data_start(), r.offsets()[0] as u64);
    /// ```
    pub fn data_start(&self) -> u64 {
        self.data_start
    }

    /// The decompression parameters (e.g. the number of threads).
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::io::Cursor;
    /// # use b2rs::bloscpack::{self, PackParams, Reader};
    /// #
    /// # // 3000 u32 (12 000 bytes) in 3 chunks of 4000 bytes, with JSON metadata
    /// # let data: Vec<u8> = (0..3000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let params = PackParams { chunk_size: 4000, ..PackParams::default() };
    /// # let file = bloscpack::pack(&data, &params, Some(br#"{"units":"m"}"#)).unwrap();
    /// use b2rs::DParams;
    ///
    /// let mut r = Reader::new(Cursor::new(&file)).unwrap();
    /// r.set_dparams(DParams { nthreads: 2, ..DParams::default() });
    /// assert_eq!(r.read_chunk(1).unwrap(), data[4000..8000]);
    /// ```
    pub fn set_dparams(&mut self, dparams: DParams) {
        self.dparams = dparams;
    }

    /// The underlying reader.
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::io::Cursor;
    /// # use b2rs::bloscpack::{self, PackParams, Reader};
    /// #
    /// # // 3000 u32 (12 000 bytes) in 3 chunks of 4000 bytes, with JSON metadata
    /// # let data: Vec<u8> = (0..3000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let params = PackParams { chunk_size: 4000, ..PackParams::default() };
    /// # let file = bloscpack::pack(&data, &params, Some(br#"{"units":"m"}"#)).unwrap();
    /// let r = Reader::new(Cursor::new(file.clone())).unwrap();
    /// assert_eq!(r.into_inner().into_inner(), file);
    /// ```
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// Position after the last byte read (from the start of the header), e.g. the end of the
    /// data after the last chunk has been read.
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::io::Cursor;
    /// # use b2rs::bloscpack::{self, PackParams, Reader};
    /// #
    /// # // 3000 u32 (12 000 bytes) in 3 chunks of 4000 bytes, with JSON metadata
    /// # let data: Vec<u8> = (0..3000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let params = PackParams { chunk_size: 4000, ..PackParams::default() };
    /// # let file = bloscpack::pack(&data, &params, Some(br#"{"units":"m"}"#)).unwrap();
    /// let mut r = Reader::new(Cursor::new(&file)).unwrap();
    /// assert_eq!(r.position(), r.data_start());
    /// r.unpack_to(&mut std::io::sink()).unwrap();
    /// assert_eq!(r.position(), file.len() as u64); // the end of the data
    /// ```
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// Decompress the next chunk into `out` (replaced). `Ok(false)` after the last chunk.
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::io::Cursor;
    /// # use b2rs::bloscpack::{self, PackParams, Reader};
    /// #
    /// # // 3000 u32 (12 000 bytes) in 3 chunks of 4000 bytes, with JSON metadata
    /// # let data: Vec<u8> = (0..3000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let params = PackParams { chunk_size: 4000, ..PackParams::default() };
    /// # let file = bloscpack::pack(&data, &params, Some(br#"{"units":"m"}"#)).unwrap();
    /// let mut r = Reader::new(Cursor::new(&file)).unwrap();
    /// let mut buf = Vec::new();
    /// let mut n = 0;
    /// while r.read_next_chunk_into(&mut buf).unwrap() {
    ///     assert_eq!(buf, data[n * 4000..(n + 1) * 4000]);
    ///     n += 1;
    /// }
    /// assert_eq!(n, 3);
    /// ```
    pub fn read_next_chunk_into(&mut self, out: &mut Vec<u8>) -> Result<bool> {
        if !self.pos_valid {
            return Err(Error::param(
                "a previous read failed midway: the position is lost",
            ));
        }
        let i = self.next_chunk;
        if self.at_end || (self.header.nchunks >= 0 && i >= self.header.nchunks as u64) {
            return Ok(false);
        }
        if let Some(&o) = self.offsets.get(i as usize) {
            if o != -1 && o as u64 != self.pos {
                return Err(Error::BadOffset {
                    chunk: i,
                    offset: o,
                }
                .traced());
            }
        }
        if !self.read_compressed(i)? {
            self.at_end = true;
            return Ok(false);
        }
        self.next_chunk += 1;
        self.decode(i, out)?;
        Ok(true)
    }

    /// Decompress the next chunk; `None` after the last one.
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::io::Cursor;
    /// # use b2rs::bloscpack::{self, PackParams, Reader};
    /// #
    /// # // 3000 u32 (12 000 bytes) in 3 chunks of 4000 bytes, with JSON metadata
    /// # let data: Vec<u8> = (0..3000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let params = PackParams { chunk_size: 4000, ..PackParams::default() };
    /// # let file = bloscpack::pack(&data, &params, Some(br#"{"units":"m"}"#)).unwrap();
    /// let mut r = Reader::new(Cursor::new(&file)).unwrap();
    /// assert_eq!(r.read_next_chunk().unwrap().unwrap(), data[..4000]);
    /// r.read_next_chunk().unwrap();
    /// r.read_next_chunk().unwrap();
    /// assert!(r.read_next_chunk().unwrap().is_none());
    /// ```
    pub fn read_next_chunk(&mut self) -> Result<Option<Vec<u8>>> {
        let mut out = Vec::new();
        Ok(self.read_next_chunk_into(&mut out)?.then_some(out))
    }

    /// Decompress the remaining chunks into `w`; returns the number of bytes written.
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::io::Cursor;
    /// # use b2rs::bloscpack::{self, PackParams, Reader};
    /// #
    /// # // 3000 u32 (12 000 bytes) in 3 chunks of 4000 bytes, with JSON metadata
    /// # let data: Vec<u8> = (0..3000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let params = PackParams { chunk_size: 4000, ..PackParams::default() };
    /// # let file = bloscpack::pack(&data, &params, Some(br#"{"units":"m"}"#)).unwrap();
    /// let mut r = Reader::new(Cursor::new(&file)).unwrap();
    /// r.read_next_chunk().unwrap(); // skip chunk 0
    /// let mut rest = Vec::new();
    /// assert_eq!(r.unpack_to(&mut rest).unwrap(), 8000);
    /// assert_eq!(rest, data[4000..]);
    /// ```
    pub fn unpack_to<W: Write + ?Sized>(&mut self, w: &mut W) -> Result<u64> {
        let mut buf = Vec::new();
        let mut total = 0u64;
        while self.read_next_chunk_into(&mut buf)? {
            w.write_all(&buf).map_err(super::error::write_err)?;
            total += buf.len() as u64;
        }
        Ok(total)
    }

    /// Read the compressed chunk `i` at the current position into `cbuf` and check its digest.
    /// `Ok(false)` at a clean end of the data when the number of chunks is unknown.
    fn read_compressed(&mut self, i: u64) -> Result<bool> {
        self.pos_valid = false;
        let r = self.read_compressed_at(i);
        if !matches!(r, Err(Error::Read(_)) | Err(Error::Truncated(_))) {
            self.pos_valid = true;
        }
        r
    }

    fn read_compressed_at(&mut self, i: u64) -> Result<bool> {
        let part = Part::Chunk(i);
        let mut h = [0u8; MIN_HEADER_LENGTH];
        if self.header.nchunks < 0 {
            if !read_exact_or_eof(&mut self.inner, &mut h, part)? {
                return Ok(false);
            }
        } else {
            self.inner.read_exact(&mut h).map_err(read_err(part))?;
        }
        self.pos += MIN_HEADER_LENGTH as u64;
        let nbytes = i32::from_le_bytes([h[4], h[5], h[6], h[7]]);
        let cbytes = i32::from_le_bytes([h[12], h[13], h[14], h[15]]);
        let extended = h[2] & 0x05 == 0x05;
        let min = if extended {
            EXTENDED_HEADER_LENGTH
        } else {
            MIN_HEADER_LENGTH
        };
        if cbytes < min as i32 || cbytes as i64 > MAX_BUFFERSIZE as i64 + MAX_OVERHEAD as i64 {
            return Err(bad_chunk(
                i,
                format!("impossible compressed size {cbytes} in its Blosc header"),
                crate::Error::InvalidHeader,
            ));
        }
        if let Some(want) = self.header.chunk_nbytes(i) {
            if nbytes as i64 != want as i64 {
                return Err(bad_chunk(
                    i,
                    format!("holds {nbytes} bytes, the bloscpack header says {want}"),
                    crate::Error::Data,
                ));
            }
        } else if let Some(max) = self.header.max_chunk_nbytes() {
            // unknown number of chunks: only the last one may be shorter
            if nbytes as i64 > max as i64 || self.short_seen {
                return Err(bad_chunk(
                    i,
                    format!("holds {nbytes} bytes, chunk-size is {max} and only the last chunk may be shorter"),
                    crate::Error::Data,
                ));
            }
            self.short_seen = (nbytes as i64) < max as i64;
        }
        self.cbuf.clear();
        self.cbuf.extend_from_slice(&h);
        read_vec_into(
            &mut self.inner,
            cbytes as u64 - MIN_HEADER_LENGTH as u64,
            part,
            &mut self.cbuf,
        )?;
        self.pos += cbytes as u64 - MIN_HEADER_LENGTH as u64;
        let size = self.header.checksum.size();
        if size > 0 {
            let mut digest = [0u8; super::checksum::MAX_DIGEST_SIZE];
            self.inner
                .read_exact(&mut digest[..size])
                .map_err(read_err(part))?;
            self.pos += size as u64;
            if self.header.checksum.digest(&self.cbuf).as_bytes() != &digest[..size] {
                return Err(Error::ChunkChecksum { chunk: i }.traced());
            }
        }
        Ok(true)
    }

    /// Decompress the chunk in `cbuf` (number `i`) into `out`.
    fn decode(&mut self, i: u64, out: &mut Vec<u8>) -> Result<()> {
        let h = ChunkHeader::parse(&self.cbuf)
            .map_err(|e| bad_chunk(i, format!("bad Blosc header ({e})"), e))?;
        if h.cbytes as usize != self.cbuf.len() {
            return Err(bad_chunk(
                i,
                "inconsistent Blosc header".into(),
                crate::Error::InvalidHeader,
            ));
        }
        let nbytes = h.nbytes.max(0) as usize;
        out.clear();
        out.resize(nbytes, 0);
        let n = crate::chunk::decompress(&self.dparams, &self.cbuf, out, None)
            .map_err(|e| bad_chunk(i, format!("cannot be decompressed ({e})"), e))?;
        if n != nbytes {
            return Err(bad_chunk(
                i,
                format!("decompressed to {n} bytes instead of {nbytes}"),
                crate::Error::Data,
            ));
        }
        Ok(())
    }
}

impl<R: Read + Seek> Reader<R> {
    /// Decompress chunk `i`, found through the offsets table. Sequential reading continues
    /// after it.
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::io::Cursor;
    /// # use b2rs::bloscpack::{self, PackParams, Reader};
    /// #
    /// # // 3000 u32 (12 000 bytes) in 3 chunks of 4000 bytes, with JSON metadata
    /// # let data: Vec<u8> = (0..3000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let params = PackParams { chunk_size: 4000, ..PackParams::default() };
    /// # let file = bloscpack::pack(&data, &params, Some(br#"{"units":"m"}"#)).unwrap();
    /// use b2rs::bloscpack::Error;
    ///
    /// let mut r = Reader::new(Cursor::new(&file)).unwrap();
    /// assert_eq!(r.read_chunk(2).unwrap(), data[8000..]);
    /// assert!(matches!(r.read_chunk(3), Err(Error::ChunkIndex { chunk: 3, nchunks: 3 })));
    /// ```
    pub fn read_chunk(&mut self, i: u64) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.read_chunk_into(i, &mut out)?;
        Ok(out)
    }

    /// Decompress chunk `i` into `out` (replaced), found through the offsets table.
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::io::Cursor;
    /// # use b2rs::bloscpack::{self, PackParams, Reader};
    /// #
    /// # // 3000 u32 (12 000 bytes) in 3 chunks of 4000 bytes, with JSON metadata
    /// # let data: Vec<u8> = (0..3000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let params = PackParams { chunk_size: 4000, ..PackParams::default() };
    /// # let file = bloscpack::pack(&data, &params, Some(br#"{"units":"m"}"#)).unwrap();
    /// let mut r = Reader::new(Cursor::new(&file)).unwrap();
    /// let mut buf = vec![0u8; 10];
    /// r.read_chunk_into(1, &mut buf).unwrap();
    /// assert_eq!(buf, data[4000..8000]);
    /// // sequential reading continues after chunk 1
    /// assert_eq!(r.read_next_chunk().unwrap().unwrap(), data[8000..]);
    /// ```
    pub fn read_chunk_into(&mut self, i: u64, out: &mut Vec<u8>) -> Result<()> {
        if !self.header.offsets {
            return Err(Error::param(
                "the file has no offsets table: read the chunks sequentially",
            ));
        }
        let nchunks = self.header.nchunks as u64;
        if i >= nchunks {
            return Err(Error::ChunkIndex { chunk: i, nchunks }.traced());
        }
        let o = self.offsets[i as usize];
        if o < 0 {
            return Err(Error::BadOffset {
                chunk: i,
                offset: o,
            }
            .traced());
        }
        self.seek_to(o as u64, Part::Chunk(i))?;
        self.next_chunk = i;
        self.at_end = false;
        if !self.read_compressed(i)? {
            return Err(Error::Truncated(Part::Chunk(i)).traced());
        }
        self.next_chunk = i + 1;
        self.decode(i, out)
    }

    /// Go back to chunk 0 for sequential reading.
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::io::Cursor;
    /// # use b2rs::bloscpack::{self, PackParams, Reader};
    /// #
    /// # // 3000 u32 (12 000 bytes) in 3 chunks of 4000 bytes, with JSON metadata
    /// # let data: Vec<u8> = (0..3000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let params = PackParams { chunk_size: 4000, ..PackParams::default() };
    /// # let file = bloscpack::pack(&data, &params, Some(br#"{"units":"m"}"#)).unwrap();
    /// let mut r = Reader::new(Cursor::new(&file)).unwrap();
    /// r.unpack_to(&mut std::io::sink()).unwrap();
    /// r.rewind().unwrap();
    /// assert_eq!(r.read_next_chunk().unwrap().unwrap(), data[..4000]);
    /// ```
    pub fn rewind(&mut self) -> Result<()> {
        self.seek_to(self.data_start, Part::Chunk(0))?;
        self.next_chunk = 0;
        self.at_end = false;
        self.short_seen = false;
        Ok(())
    }
}

impl<R: Read + Seek> Reader<R> {
    /// Seek to `target` (from the start of the header).
    fn seek_to(&mut self, target: u64, part: Part) -> Result<()> {
        let base = match self.base {
            Some(b) => b,
            None if self.pos_valid => {
                let now = self.inner.stream_position().map_err(read_err(part))?;
                let b = now.checked_sub(self.pos).ok_or_else(|| {
                    Error::param("the reader was not at the start of the bloscpack header")
                })?;
                self.base = Some(b);
                b
            }
            None => {
                return Err(Error::param(
                    "a previous read failed midway: the position is lost",
                ))
            }
        };
        let abs = base.checked_add(target).ok_or(Error::BadOffset {
            chunk: self.next_chunk,
            offset: target as i64,
        })?;
        self.inner
            .seek(SeekFrom::Start(abs))
            .map_err(read_err(part))?;
        self.pos = target;
        self.pos_valid = true;
        Ok(())
    }
}

fn bad_chunk(chunk: u64, reason: String, source: crate::Error) -> Error {
    Error::BadChunk {
        chunk,
        reason,
        source,
    }
    .traced()
}

/// The known entries must point after the table and leave room for a chunk between them.
fn check_offsets(offsets: &[i64], data_start: u64) -> Result<()> {
    let mut prev: Option<i64> = None;
    for (i, &o) in offsets.iter().enumerate() {
        if o == -1 {
            continue;
        }
        let bad = o < data_start as i64
            || prev.is_some_and(|p| o < p.saturating_add(MIN_HEADER_LENGTH as i64));
        if bad {
            return Err(Error::BadOffset {
                chunk: i as u64,
                offset: o,
            }
            .traced());
        }
        prev = Some(o);
    }
    Ok(())
}
