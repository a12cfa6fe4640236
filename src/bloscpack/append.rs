//! Appending to a Bloscpack file and rewriting its metadata in place (BLOSCPACK.md §7), like
//! bloscpack's `append` and `_rewrite_metadata_fp`.
//!
//! Appending needs an offsets table with free slots: the last chunk is decompressed, topped up
//! with new data to `chunk-size`, recompressed and rewritten in place; the rest of the new data
//! is cut into chunks written after it; then the offsets table and the header are updated.

use super::blosc1::{check_params, compress_chunk};
use super::error::{read_err, write_err, Error, Part, Result};
use super::header::{calculate_nchunks, Header, FORMAT_VERSION};
use super::metadata::{read_section, MetaCodec, MetadataParams, MetadataSection};
use super::reader::Reader;
use super::writer::default_cparams;
use crate::params::CParams;
use std::io::{Read, Seek, SeekFrom, Write};

/// Append `len` bytes read from `src` to the Bloscpack file whose header starts at the current
/// position of `file`. `cparams` are the Blosc parameters of the rewritten and new chunks
/// (`None`: bloscpack's defaults with the typesize of the header). Returns the number of chunks
/// added and leaves `file` at the end of the data (where a file may be truncated).
///
/// Nothing is written when the checks fail (no offsets table, not enough free slots, a corrupt
/// last chunk, …); if `src` fails midway the file is left inconsistent.
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
/// let mut f = Cursor::new(file);
/// let added = bloscpack::append(&mut f, &mut &[7u8; 6000][..], 6000, None).unwrap();
/// assert_eq!(added, 2); // 6000 bytes: one more full chunk and a half one
/// let (back, _) = bloscpack::unpack(f.get_ref()).unwrap();
/// assert_eq!(back.len(), 18_000);
/// assert_eq!(back[..12_000], data[..]);
/// assert!(back[12_000..].iter().all(|&b| b == 7));
/// ```
pub fn append<F, R>(file: &mut F, src: &mut R, len: u64, cparams: Option<&CParams>) -> Result<u64>
where
    F: Read + Write + Seek,
    R: Read + ?Sized,
{
    let start = file.stream_position().map_err(read_err(Part::Header))?;
    let mut reader = Reader::new(&mut *file)?;
    let mut header = *reader.header();
    if header.format_version != FORMAT_VERSION {
        return Err(Error::UnsupportedVersion(header.format_version).traced());
    }
    if !header.offsets {
        return Err(Error::param("appending needs an offsets table"));
    }
    if header.nchunks < 1 || header.chunk_size < 1 {
        return Err(Error::param(format!(
            "cannot append to a file with {} chunks of {} bytes",
            header.nchunks, header.chunk_size
        )));
    }
    let cparams = match cparams {
        Some(p) => p.clone(),
        None => CParams {
            typesize: header.typesize as i32,
            ..default_cparams()
        },
    };
    check_params(&cparams)?;
    let n = header.nchunks as u64;
    let mut last = reader.read_chunk(n - 1)?;
    let last_off = reader.offsets()[(n - 1) as usize] as u64;
    let offsets_pos = reader.offsets_pos();
    let end = reader.position();
    drop(reader);
    if len == 0 {
        file.seek(SeekFrom::Start(start + end)).map_err(write_err)?;
        return Ok(0);
    }
    let chunk_size = header.chunk_size as usize;
    let fill = (chunk_size - last.len()) as u64;
    let (k, last_size) = if len <= fill {
        (0, last.len() as u64 + len)
    } else {
        let (k, _, l) = calculate_nchunks(len - fill, chunk_size)?;
        if k > header.max_app_chunks as u64 {
            return Err(Error::NotEnoughSpace {
                needed: k,
                available: header.max_app_chunks as u64,
            }
            .traced());
        }
        (k, l as u64)
    };
    let head = len.min(fill) as usize;
    let old_len = last.len();
    last.resize(old_len + head, 0);
    src.read_exact(&mut last[old_len..])
        .map_err(read_err(Part::Input))?;

    // the topped-up last chunk, in place
    let mut cbuf = Vec::new();
    let mut pos = last_off;
    file.seek(SeekFrom::Start(start + pos)).map_err(write_err)?;
    pos += write_chunk(file, &cparams, &header, &last, &mut cbuf)?;
    // the new chunks after it
    let mut new_offsets = Vec::with_capacity(k as usize);
    let mut buf = vec![0u8; if k > 0 { chunk_size } else { 0 }];
    for j in 0..k {
        let size = if j + 1 == k {
            last_size as usize
        } else {
            chunk_size
        };
        src.read_exact(&mut buf[..size])
            .map_err(read_err(Part::Input))?;
        new_offsets.extend_from_slice(&(pos as i64).to_le_bytes());
        pos += write_chunk(file, &cparams, &header, &buf[..size], &mut cbuf)?;
    }
    if k > 0 {
        file.seek(SeekFrom::Start(start + offsets_pos + n * 8))
            .map_err(write_err)?;
        file.write_all(&new_offsets).map_err(write_err)?;
    }
    header.nchunks += k as i64;
    header.max_app_chunks -= k as i64;
    header.last_chunk = last_size as i32;
    let raw = header.encode()?;
    file.seek(SeekFrom::Start(start)).map_err(write_err)?;
    file.write_all(&raw).map_err(write_err)?;
    file.seek(SeekFrom::Start(start + pos)).map_err(write_err)?;
    file.flush().map_err(write_err)?;
    Ok(k)
}

/// Compress and write one chunk with its checksum at the current position; returns its length.
fn write_chunk<F: Write>(
    file: &mut F,
    cparams: &CParams,
    header: &Header,
    data: &[u8],
    cbuf: &mut Vec<u8>,
) -> Result<u64> {
    compress_chunk(cparams, data, cbuf)?;
    let digest = header.checksum.digest(cbuf);
    file.write_all(cbuf).map_err(write_err)?;
    file.write_all(digest.as_bytes()).map_err(write_err)?;
    Ok((cbuf.len() + digest.as_bytes().len()) as u64)
}

/// Replace the metadata of the file whose header starts at the current position of `file`.
///
/// The section keeps its size (`max-meta-size`) and its checksum's digest size. `params`
/// `None` keeps the checksum and compresses with zlib level 6 when that helps (bloscpack's
/// behaviour); given params must have a checksum of the same digest size, and their
/// `max_meta_size` is ignored. Fails with [`Error::MetadataTooLarge`] when the new metadata does
/// not fit.
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
/// let mut f = Cursor::new(file);
/// bloscpack::rewrite_metadata(&mut f, br#"{"units":"km"}"#, None).unwrap();
/// let (back, meta) = bloscpack::unpack(f.get_ref()).unwrap();
/// assert_eq!((back, meta.unwrap().data), (data, br#"{"units":"km"}"#.to_vec()));
/// // more than the space reserved (10 x the first metadata)
/// f.set_position(0);
/// let noise: Vec<u8> = (0..1000u32).map(|i| (i.wrapping_mul(2654435761) >> 24) as u8).collect();
/// assert!(bloscpack::rewrite_metadata(&mut f, &noise, None).is_err());
/// ```
pub fn rewrite_metadata<F>(file: &mut F, data: &[u8], params: Option<&MetadataParams>) -> Result<()>
where
    F: Read + Write + Seek,
{
    let start = file.stream_position().map_err(read_err(Part::Header))?;
    let (header, hl) = Header::read_from(file)?;
    if !header.metadata {
        return Err(Error::param("the file has no metadata section"));
    }
    let (old, _) = read_section(file)?;
    let old = old.header;
    let mut p = params.copied().unwrap_or(MetadataParams {
        checksum: old.meta_checksum,
        codec: MetaCodec::Zlib,
        level: 6,
        max_meta_size: None,
    });
    if p.checksum.size() != old.meta_checksum.size() {
        return Err(Error::param(format!(
            "the new metadata checksum {} has not the digest size of {}",
            p.checksum, old.meta_checksum
        )));
    }
    p.max_meta_size = Some(old.max_meta_size);
    let section = MetadataSection::new(data, &p)?;
    file.seek(SeekFrom::Start(start + hl as u64))
        .map_err(write_err)?;
    section.write_to(file).map_err(write_err)?;
    file.flush().map_err(write_err)?;
    Ok(())
}
