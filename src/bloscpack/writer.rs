//! Writing a Bloscpack file chunk by chunk (BLOSCPACK.md §1–§6), like bloscpack's `pack`.
//!
//! The header, the metadata section and an offsets table full of −1 are written first; data is
//! then cut into chunks of `chunk-size` bytes as it arrives, each compressed into a Blosc 1.x
//! chunk (so python-blosc 1.x reads it) and written with its checksum; [`Writer::finish`] seeks
//! back to store the offsets. Only one chunk of input and one compressed chunk are held in
//! memory (plus 8 bytes per chunk for the offsets).
//!
//! When the total size is unknown up front the file announces `nchunks` −1 and has no offsets
//! table; `finish` then rewrites the header with the real counts.

use super::blosc1::{check_params, compress_chunk};
use super::checksum::Checksum;
use super::error::{write_err, Error, Result};
use super::header::{calculate_nchunks, Header, FORMAT_VERSION, MAX_CHUNKS};
use super::metadata::{MetadataParams, MetadataSection};
use crate::chunk::header::MAX_BUFFERSIZE;
use crate::params::{filter_id, CParams, MAX_FILTERS};
use std::io::{self, Seek, SeekFrom, Write};

/// bloscpack's default chunk size (1 MiB).
pub const DEFAULT_CHUNK_SIZE: usize = 1 << 20;

/// bloscpack's default Blosc parameters: typesize 8, clevel 7, shuffle, BloscLZ.
///
/// # Examples
///
/// ```
/// use b2rs::bloscpack::default_cparams;
/// use b2rs::{codecs, params::filter_id};
///
/// let p = default_cparams();
/// assert_eq!((p.compcode, p.clevel, p.typesize), (codecs::BLOSCLZ, 7, 8));
/// assert_eq!(p.filters[5], filter_id::SHUFFLE);
/// ```
pub fn default_cparams() -> CParams {
    let mut filters = [0u8; MAX_FILTERS];
    filters[MAX_FILTERS - 1] = filter_id::SHUFFLE;
    CParams {
        compcode: crate::codecs::BLOSCLZ,
        clevel: 7,
        typesize: 8,
        filters,
        ..CParams::default()
    }
}

/// How a file is written. The defaults are bloscpack's.
///
/// # Examples
///
/// ```
/// use b2rs::bloscpack::{self, Checksum, PackParams};
/// use b2rs::{codecs, CParams};
///
/// let params = PackParams {
///     cparams: CParams { compcode: codecs::ZLIB, typesize: 4, clevel: 9, ..CParams::default() },
///     chunk_size: 1 << 16,
///     checksum: Checksum::Crc32,
///     max_app_chunks: Some(4),
///     ..PackParams::default()
/// };
/// let data = vec![5u8; 200_000];
/// let file = bloscpack::pack(&data, &params, None).unwrap();
/// let h = bloscpack::Header::decode(&file).unwrap();
/// assert_eq!((h.nchunks, h.max_app_chunks, h.typesize, h.checksum), (4, 4, 4, Checksum::Crc32));
/// ```
#[derive(Debug, Clone)]
pub struct PackParams {
    /// Blosc parameters of the chunks: codec (a Blosc 1.x one), clevel, typesize (1–255, also
    /// stored in the Bloscpack header), shuffle or bitshuffle or no filter, threads.
    pub cparams: CParams,
    /// Uncompressed bytes per chunk (default 1 MiB); reduced to the input size when larger.
    pub chunk_size: usize,
    /// Per-chunk checksum (default Adler-32).
    pub checksum: Checksum,
    /// Write an offsets table (default `true`; needs the total size up front).
    pub offsets: bool,
    /// Offset slots reserved for appending; `None` (default) = 10 × nchunks. Ignored without
    /// an offsets table.
    pub max_app_chunks: Option<u64>,
    /// How the metadata (if any) is stored.
    pub metadata: MetadataParams,
}

impl Default for PackParams {
    fn default() -> Self {
        PackParams {
            cparams: default_cparams(),
            chunk_size: DEFAULT_CHUNK_SIZE,
            checksum: Checksum::Adler32,
            offsets: true,
            max_app_chunks: None,
            metadata: MetadataParams::default(),
        }
    }
}

/// A Bloscpack file being written. Write the data with [`Writer::write_data`] (or
/// [`std::io::Write`]), then call [`Writer::finish`]; a writer dropped unfinished leaves an
/// incomplete file.
///
/// # Examples
///
/// ```
/// use std::io::{Cursor, Write};
/// use b2rs::bloscpack::{self, PackParams, Writer};
///
/// // the total size unknown up front: no offsets table
/// let params = PackParams { chunk_size: 1000, offsets: false, ..PackParams::default() };
/// let mut w = Writer::new(Cursor::new(Vec::new()), &params, None, None).unwrap();
/// for i in 0..5u8 {
///     w.write_all(&[i; 700]).unwrap();
/// }
/// let file = w.finish().unwrap().into_inner();
/// let (back, _) = bloscpack::unpack(&file).unwrap();
/// assert_eq!(back.len(), 3500);
/// assert_eq!(bloscpack::Header::decode(&file).unwrap().nchunks, 4);
/// ```
#[derive(Debug)]
pub struct Writer<W: Write + Seek> {
    inner: W,
    header: Header,
    cparams: CParams,
    /// Size of every chunk but the last.
    chunk_size: usize,
    /// Total size announced, if any.
    expected: Option<u64>,
    /// Stream position of the header.
    start: u64,
    offsets_pos: u64,
    offsets: Vec<i64>,
    /// Position of the next chunk, from the header.
    pos: u64,
    buf: Vec<u8>,
    cbuf: Vec<u8>,
    consumed: u64,
    nwritten: u64,
}

impl<W: Write + Seek> Writer<W> {
    /// Start a file at the current position of `inner`. `total_size` is the number of bytes
    /// that will be written (`None`: unknown, then no offsets table is possible); `metadata` the
    /// serialized metadata (JSON text), if any.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Cursor;
    /// use b2rs::bloscpack::{PackParams, Writer};
    /// use b2rs::{codecs, CParams};
    ///
    /// let w = Writer::new(Cursor::new(Vec::new()), &PackParams::default(), Some(5000), Some(b"{}")).unwrap();
    /// assert_eq!(w.header().nchunks, 1);
    /// // Blosc 1.x has no Zstd dictionaries
    /// let bad = PackParams { cparams: CParams { compcode: codecs::ZSTD, use_dict: true, ..CParams::default() }, ..PackParams::default() };
    /// assert!(Writer::new(Cursor::new(Vec::new()), &bad, Some(5000), None).is_err());
    /// ```
    pub fn new(
        mut inner: W,
        params: &PackParams,
        total_size: Option<u64>,
        metadata: Option<&[u8]>,
    ) -> Result<Writer<W>> {
        check_params(&params.cparams)?;
        let (nchunks, chunk_size, last_chunk) = match total_size {
            Some(s) => {
                let (n, c, l) = calculate_nchunks(s, params.chunk_size)?;
                (n as i64, c, l)
            }
            None => {
                if params.chunk_size == 0 || params.chunk_size > MAX_BUFFERSIZE as usize {
                    return Err(Error::param(format!(
                        "chunk size {} is not in 1..={MAX_BUFFERSIZE}",
                        params.chunk_size
                    )));
                }
                (-1, params.chunk_size as i32, -1)
            }
        };
        if params.offsets && total_size.is_none() {
            return Err(Error::param(
                "an offsets table needs the total size up front",
            ));
        }
        let max_app_chunks = if params.offsets {
            let room = (MAX_CHUNKS - nchunks) as u64;
            let want = params
                .max_app_chunks
                .unwrap_or_else(|| (nchunks as u64).saturating_mul(10));
            want.min(room) as i64
        } else {
            0
        };
        let header = Header {
            format_version: FORMAT_VERSION,
            offsets: params.offsets,
            metadata: metadata.is_some(),
            checksum: params.checksum,
            typesize: params.cparams.typesize as u8,
            chunk_size,
            last_chunk,
            nchunks,
            max_app_chunks,
        };
        let encoded = header.encode()?;
        let section = metadata
            .map(|m| MetadataSection::new(m, &params.metadata))
            .transpose()?;
        let start = inner.stream_position().map_err(write_err)?;
        inner.write_all(&encoded).map_err(write_err)?;
        let mut pos = encoded.len() as u64;
        if let Some(s) = &section {
            s.write_to(&mut inner).map_err(write_err)?;
            pos += s.len();
        }
        let offsets_pos = pos;
        let entries = header.offsets_entries();
        // −1 is all 0xFF bytes
        io::copy(
            &mut io::Read::take(io::repeat(0xff), entries * 8),
            &mut inner,
        )
        .map_err(write_err)?;
        pos += entries * 8;
        let chunk_size = chunk_size as usize;
        Ok(Writer {
            inner,
            header,
            cparams: params.cparams.clone(),
            chunk_size,
            expected: total_size,
            start,
            offsets_pos,
            offsets: Vec::new(),
            pos,
            buf: Vec::new(),
            cbuf: Vec::new(),
            consumed: 0,
            nwritten: 0,
        })
    }

    /// The header as announced so far.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Cursor;
    /// use b2rs::bloscpack::{PackParams, Writer};
    ///
    /// let params = PackParams { chunk_size: 4096, ..PackParams::default() };
    /// let w = Writer::new(Cursor::new(Vec::new()), &params, Some(10_000), None).unwrap();
    /// let h = w.header();
    /// assert_eq!((h.nchunks, h.chunk_size, h.last_chunk), (3, 4096, 1808));
    /// ```
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Add data; full chunks are compressed and written as they fill.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Cursor;
    /// use b2rs::bloscpack::{self, PackParams, Writer};
    ///
    /// let mut w = Writer::new(Cursor::new(Vec::new()), &PackParams::default(), Some(300), None).unwrap();
    /// w.write_data(b"first part, ").unwrap();
    /// w.write_data(&[b'x'; 288]).unwrap();
    /// let file = w.finish().unwrap().into_inner();
    /// assert_eq!(&bloscpack::unpack(&file).unwrap().0[..12], b"first part, ");
    /// ```
    pub fn write_data(&mut self, mut data: &[u8]) -> Result<()> {
        if let Some(exp) = self.expected {
            if self.consumed + data.len() as u64 > exp {
                return Err(Error::param(format!(
                    "more data than the {exp} bytes announced"
                )));
            }
        }
        self.consumed += data.len() as u64;
        while !data.is_empty() {
            if self.buf.is_empty() && data.len() >= self.chunk_size {
                let (chunk, rest) = data.split_at(self.chunk_size);
                self.emit(Some(chunk))?;
                data = rest;
                continue;
            }
            let take = (self.chunk_size - self.buf.len()).min(data.len());
            self.buf.extend_from_slice(&data[..take]);
            data = &data[take..];
            if self.buf.len() == self.chunk_size {
                self.emit(None)?;
            }
        }
        Ok(())
    }

    /// Compress and write one chunk: `data`, or the pending buffer when `None`.
    fn emit(&mut self, data: Option<&[u8]>) -> Result<()> {
        let i = self.nwritten;
        if self.header.nchunks >= 0 && i >= self.header.nchunks as u64 {
            return Err(Error::param("more chunks than announced"));
        }
        let src = data.unwrap_or(&self.buf);
        compress_chunk(&self.cparams, src, &mut self.cbuf)?;
        let digest = self.header.checksum.digest(&self.cbuf);
        self.inner.write_all(&self.cbuf).map_err(write_err)?;
        self.inner.write_all(digest.as_bytes()).map_err(write_err)?;
        if self.header.offsets {
            self.offsets.push(self.pos as i64);
        }
        self.pos += (self.cbuf.len() + digest.as_bytes().len()) as u64;
        self.nwritten += 1;
        self.buf.clear();
        Ok(())
    }

    /// Write the last chunk and the offsets table (or the final header when the size was not
    /// known), leave the stream at the end of the file, and return it.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::io::Cursor;
    /// use b2rs::bloscpack::{PackParams, Writer};
    ///
    /// let mut w = Writer::new(Cursor::new(Vec::new()), &PackParams::default(), Some(100), None).unwrap();
    /// w.write_data(&[1u8; 60]).unwrap();
    /// // 40 bytes are missing
    /// assert!(w.finish().is_err());
    /// ```
    pub fn finish(mut self) -> Result<W> {
        if let Some(exp) = self.expected {
            if self.consumed != exp {
                return Err(Error::param(format!(
                    "{} bytes written, {exp} announced",
                    self.consumed
                )));
            }
        }
        if !self.buf.is_empty() || self.nwritten == 0 {
            self.emit(None)?;
        }
        let end = self.pos;
        if self.header.nchunks < 0 {
            let n = self.nwritten;
            let c = self.chunk_size as u64;
            self.header.nchunks = n as i64;
            let last = if n == 1 {
                self.header.chunk_size = self.consumed as i32;
                self.consumed
            } else {
                self.consumed - c * (n - 1)
            };
            self.header.last_chunk = last as i32;
            let raw = self.header.encode()?;
            self.inner
                .seek(SeekFrom::Start(self.start))
                .map_err(write_err)?;
            self.inner.write_all(&raw).map_err(write_err)?;
        } else if self.nwritten != self.header.nchunks as u64 {
            return Err(Error::param(format!(
                "{} chunks written, {} announced",
                self.nwritten, self.header.nchunks
            )));
        }
        if self.header.offsets {
            let raw: Vec<u8> = self.offsets.iter().flat_map(|o| o.to_le_bytes()).collect();
            self.inner
                .seek(SeekFrom::Start(self.start + self.offsets_pos))
                .map_err(write_err)?;
            self.inner.write_all(&raw).map_err(write_err)?;
        }
        self.inner
            .seek(SeekFrom::Start(self.start + end))
            .map_err(write_err)?;
        self.inner.flush().map_err(write_err)?;
        Ok(self.inner)
    }
}

impl<W: Write + Seek> Write for Writer<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_data(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
