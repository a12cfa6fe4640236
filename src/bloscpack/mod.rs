//! The Bloscpack file format (BLOSCPACK.md): a byte stream stored as a sequence of Blosc chunks
//! in one file, with an optional JSON metadata section, an optional table of chunk offsets
//! (with room for appending) and optional per-chunk checksums. Files are interchangeable with
//! the Python `bloscpack` package (format version 3).
//!
//! * [`header`] – the 32-byte `blpk` header;
//! * [`metadata`] – the metadata section with its own header, codec and checksum;
//! * [`checksum`] – the checksum algorithms (Adler-32, CRC-32, MD5, SHA-1, SHA-2);
//! * [`reader`], [`writer`], [`mod@append`] – streaming reading and writing, chunk by chunk, with
//!   bounded memory, and appending in place;
//! * [`blosc1`] – the chunks are written as Blosc 1.x chunks so that python-blosc 1.x reads
//!   them; any valid Blosc chunk (Blosc2 included) is read.
//!
//! The functions below are shortcuts for whole buffers and files.
//!
//! ```
//! use b2rs::bloscpack::{self, PackParams};
//!
//! let data: Vec<u8> = (0..100_000u32).flat_map(|i| i.to_le_bytes()).collect();
//! let params = PackParams { chunk_size: 65536, ..PackParams::default() };
//! let file = bloscpack::pack(&data, &params, Some(br#"{"a":1}"#)).unwrap();
//! let (back, meta) = bloscpack::unpack(&file).unwrap();
//! assert_eq!(back, data);
//! assert_eq!(meta.unwrap().data, br#"{"a":1}"#);
//! ```

pub mod append;
pub mod blosc1;
pub mod checksum;
pub mod error;
pub mod header;
mod io;
pub mod metadata;
pub mod reader;
pub mod writer;

pub use append::{append, rewrite_metadata};
pub use checksum::Checksum;
pub use error::{Error, Part, Result};
pub use header::{calculate_nchunks, Header};
pub use metadata::{MetaCodec, Metadata, MetadataHeader, MetadataParams};
pub use reader::Reader;
pub use writer::{default_cparams, PackParams, Writer};

use crate::params::CParams;
use error::{read_err, write_err};
use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter, Cursor, Read, Seek, Write};
use std::path::Path;

/// Pack `src` into a new in-memory Bloscpack file.
///
/// # Examples
///
/// ```
/// use b2rs::bloscpack::{self, PackParams};
///
/// let data = vec![42u8; 10_000];
/// let file = bloscpack::pack(&data, &PackParams::default(), None).unwrap();
/// assert!(file.len() < 1000);
/// assert_eq!(bloscpack::unpack(&file).unwrap(), (data, None));
/// ```
pub fn pack(src: &[u8], params: &PackParams, metadata: Option<&[u8]>) -> Result<Vec<u8>> {
    let mut w = Writer::new(
        Cursor::new(Vec::new()),
        params,
        Some(src.len() as u64),
        metadata,
    )?;
    w.write_data(src)?;
    Ok(w.finish()?.into_inner())
}

/// Pack `len` bytes read from `src` into `dst` (from its current position), chunk by chunk.
///
/// # Examples
///
/// ```
/// use std::io::Cursor;
/// use b2rs::bloscpack::{self, PackParams};
///
/// let data: Vec<u8> = (0..20_000u32).map(|i| (i % 251) as u8).collect();
/// let params = PackParams { chunk_size: 8192, ..PackParams::default() };
/// let out = bloscpack::pack_stream(&mut &data[..], data.len() as u64, Cursor::new(Vec::new()), &params, None).unwrap();
/// let file = out.into_inner();
/// assert_eq!(bloscpack::unpack(&file).unwrap().0, data);
/// ```
pub fn pack_stream<R, W>(
    src: &mut R,
    len: u64,
    dst: W,
    params: &PackParams,
    metadata: Option<&[u8]>,
) -> Result<W>
where
    R: Read + ?Sized,
    W: Write + Seek,
{
    let mut w = Writer::new(dst, params, Some(len), metadata)?;
    let step = params.chunk_size.clamp(1, 1 << 24) as u64;
    let mut buf = vec![0u8; step.min(len) as usize];
    let mut left = len;
    while left > 0 {
        let n = step.min(left) as usize;
        src.read_exact(&mut buf[..n])
            .map_err(read_err(Part::Input))?;
        w.write_data(&buf[..n])?;
        left -= n as u64;
    }
    w.finish()
}

/// Unpack an in-memory Bloscpack file: the data and the metadata, if any.
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
/// let (back, meta) = bloscpack::unpack(&file).unwrap();
/// assert_eq!(back, data);
/// assert_eq!(meta.unwrap().data, br#"{"units":"m"}"#);
/// assert!(bloscpack::unpack(b"not a bloscpack file at all......").is_err());
/// ```
pub fn unpack(src: &[u8]) -> Result<(Vec<u8>, Option<Metadata>)> {
    let mut r = Reader::new(src)?;
    let mut out = Vec::new();
    if let Some(n) = r.header().nbytes() {
        // a hint only: the chunks are checked against the header as they are read
        out.reserve(n.min(src.len() as u64 * 4) as usize);
    }
    r.unpack_to(&mut out)?;
    let meta = r.metadata().cloned();
    Ok((out, meta))
}

/// Unpack the Bloscpack file read from `src` into `dst`, chunk by chunk. Returns the number of
/// bytes written and the metadata.
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
/// let mut out = Vec::new();
/// let (n, meta) = bloscpack::unpack_stream(Cursor::new(&file), &mut out).unwrap();
/// assert_eq!((n, out), (12_000, data));
/// assert!(meta.is_some());
/// ```
pub fn unpack_stream<R, W>(src: R, dst: &mut W) -> Result<(u64, Option<Metadata>)>
where
    R: Read,
    W: Write + ?Sized,
{
    let mut r = Reader::new(src)?;
    let n = r.unpack_to(dst)?;
    let meta = r.metadata().cloned();
    Ok((n, meta))
}

fn open(path: &Path) -> Result<File> {
    File::open(path).map_err(|e| Error::Read(e).traced())
}

/// Pack the file `src` into the Bloscpack file `dst` (created or truncated). Returns the size of
/// `dst`.
///
/// ```
/// use b2rs::bloscpack::{self, PackParams};
///
/// let dir = std::env::temp_dir().join(format!("b2rs-doc-blp-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let (raw, blp, back) = (dir.join("data.raw"), dir.join("data.blp"), dir.join("back.raw"));
/// std::fs::write(&raw, b"bloscpack ".repeat(10_000)).unwrap();
/// bloscpack::pack_file(&raw, &blp, &PackParams::default(), None).unwrap();
/// assert_eq!(bloscpack::unpack_file(&blp, &back).unwrap(), 100_000);
/// assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&raw).unwrap());
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn pack_file(
    src: &Path,
    dst: &Path,
    params: &PackParams,
    metadata: Option<&[u8]>,
) -> Result<u64> {
    let input = open(src)?;
    let len = input.metadata().map_err(|e| Error::Read(e).traced())?.len();
    let out = File::create(dst).map_err(write_err)?;
    let mut w = pack_stream(
        &mut BufReader::new(input),
        len,
        BufWriter::new(out),
        params,
        metadata,
    )?;
    w.stream_position().map_err(write_err)
}

/// Unpack the Bloscpack file `src` into the file `dst` (created or truncated). Returns the
/// number of bytes written.
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
/// let dir = std::env::temp_dir();
/// let (blp, raw) = (dir.join(format!("b2rs-doc-{}.blp", std::process::id())), dir.join(format!("b2rs-doc-{}.raw", std::process::id())));
/// std::fs::write(&blp, &file).unwrap();
/// assert_eq!(bloscpack::unpack_file(&blp, &raw).unwrap(), 12_000);
/// assert_eq!(std::fs::read(&raw).unwrap(), data);
/// std::fs::remove_file(&blp).unwrap();
/// std::fs::remove_file(&raw).unwrap();
/// ```
pub fn unpack_file(src: &Path, dst: &Path) -> Result<u64> {
    let input = BufReader::new(open(src)?);
    let mut out = BufWriter::new(File::create(dst).map_err(write_err)?);
    let (n, _) = unpack_stream(input, &mut out)?;
    out.flush().map_err(write_err)?;
    Ok(n)
}

/// Header and metadata of the Bloscpack file `path`.
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
/// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.blp", std::process::id()));
/// std::fs::write(&path, &file).unwrap();
/// let (header, meta) = bloscpack::read_info(&path).unwrap();
/// assert_eq!((header.nchunks, header.chunk_size), (3, 4000));
/// assert_eq!(meta.unwrap().data, br#"{"units":"m"}"#);
/// std::fs::remove_file(&path).unwrap();
/// ```
pub fn read_info(path: &Path) -> Result<(Header, Option<Metadata>)> {
    let r = Reader::new(BufReader::new(open(path)?))?;
    Ok((*r.header(), r.metadata().cloned()))
}

/// Append `data` to the Bloscpack file `path` (see [`append()`]); the file is truncated after
/// the new end of the data. Returns the number of chunks added.
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
/// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.blp", std::process::id()));
/// std::fs::write(&path, &file).unwrap();
/// assert_eq!(bloscpack::append_file(&path, &[1u8; 100], None).unwrap(), 1);
/// let (back, _) = bloscpack::unpack(&std::fs::read(&path).unwrap()).unwrap();
/// assert_eq!(back.len(), 12_100);
/// std::fs::remove_file(&path).unwrap();
/// ```
pub fn append_file(path: &Path, data: &[u8], cparams: Option<&CParams>) -> Result<u64> {
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(|e| Error::Read(e).traced())?;
    let k = append(&mut file, &mut &data[..], data.len() as u64, cparams)?;
    let end = file.stream_position().map_err(write_err)?;
    file.set_len(end).map_err(write_err)?;
    Ok(k)
}

/// Replace the metadata of the Bloscpack file `path` in place (see [`rewrite_metadata()`]).
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
/// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.blp", std::process::id()));
/// std::fs::write(&path, &file).unwrap();
/// bloscpack::rewrite_metadata_file(&path, br#"{"units":"cm"}"#, None).unwrap();
/// let (_, meta) = bloscpack::read_info(&path).unwrap();
/// assert_eq!(meta.unwrap().data, br#"{"units":"cm"}"#);
/// std::fs::remove_file(&path).unwrap();
/// ```
pub fn rewrite_metadata_file(
    path: &Path,
    data: &[u8],
    params: Option<&MetadataParams>,
) -> Result<()> {
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(|e| Error::Read(e).traced())?;
    rewrite_metadata(&mut file, data, params)
}
