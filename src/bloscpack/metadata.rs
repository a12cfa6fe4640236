//! The metadata section (BLOSCPACK.md §3): its own 32-byte header, the (possibly zlib
//! compressed) serialized metadata, zero padding up to `max-meta-size`, then the checksum of the
//! **stored** bytes.
//!
//! ```text
//! | metadata header (32) | data (meta-comp-size) | zero padding | [checksum] |
//!                        |<------ max-meta-size bytes ------->|
//! ```
//!
//! The metadata is handled as the serialized bytes (JSON text for the only serializer, `JSON`);
//! parsing it is left to the caller.

use super::checksum::{Checksum, Digest};
use super::error::{Error, Part, Result};
use super::io::{read_vec, skip};
use flate2::read::ZlibDecoder;
use flate2::write::ZlibEncoder;
use flate2::Compression;
use std::io::{self, Read, Write};

/// Length of the metadata header.
pub const METADATA_HEADER_LENGTH: usize = 32;
/// The `magic-format` of JSON metadata (the only serializer).
pub const MAGIC_JSON: [u8; 8] = *b"JSON\0\0\0\0";
/// Largest metadata sizes (u32 fields).
pub const MAX_META_SIZE: u64 = u32::MAX as u64;
/// Highest `meta-level`.
pub const MAX_META_LEVEL: u8 = 9;

/// How the stored metadata is encoded (`meta-codec`).
///
/// # Examples
///
/// ```
/// use b2rs::bloscpack::{self, MetaCodec, MetadataParams, PackParams};
///
/// let params = PackParams { metadata: MetadataParams { codec: MetaCodec::None, ..MetadataParams::default() }, ..PackParams::default() };
/// let file = bloscpack::pack(b"data", &params, Some(b"{}")).unwrap();
/// let (_, meta) = bloscpack::unpack(&file).unwrap();
/// assert_eq!(meta.unwrap().header.meta_codec, MetaCodec::None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum MetaCodec {
    /// Stored as is (0).
    None = 0,
    /// `zlib.compress` output: RFC 1950 with header and Adler-32 (1); the writer's default.
    #[default]
    Zlib = 1,
}

impl MetaCodec {
    /// The codec with this id.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::bloscpack::MetaCodec;
    ///
    /// assert_eq!(MetaCodec::from_id(1), Some(MetaCodec::Zlib));
    /// assert_eq!(MetaCodec::from_id(2), None);
    /// ```
    pub fn from_id(id: u8) -> Option<MetaCodec> {
        match id {
            0 => Some(MetaCodec::None),
            1 => Some(MetaCodec::Zlib),
            _ => None,
        }
    }

    /// The id stored in the metadata header.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::bloscpack::MetaCodec;
    ///
    /// assert_eq!((MetaCodec::None.id(), MetaCodec::Zlib.id()), (0, 1));
    /// ```
    pub fn id(self) -> u8 {
        self as u8
    }
}

/// A decoded metadata header.
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
/// let meta = Reader::new(Cursor::new(&file)).unwrap().metadata().unwrap().clone();
/// let h = meta.header;
/// assert_eq!((h.magic_name(), h.meta_size as usize), (&b"JSON"[..], br#"{"units":"m"}"#.len()));
/// assert_eq!(h.max_meta_size, 10 * h.meta_size);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetadataHeader {
    /// Serializer name, NUL padded (`JSON`).
    pub magic_format: [u8; 8],
    /// Reserved options bitfield (0).
    pub meta_options: u8,
    /// Checksum of the stored metadata.
    pub meta_checksum: Checksum,
    /// Codec of the stored metadata.
    pub meta_codec: MetaCodec,
    /// Compression level requested; may be non-zero with `meta_codec` `None`.
    pub meta_level: u8,
    /// Size of the serialized (uncompressed) metadata.
    pub meta_size: u32,
    /// Bytes reserved for the stored metadata plus padding.
    pub max_meta_size: u32,
    /// Bytes actually stored.
    pub meta_comp_size: u32,
    /// Reserved (NUL bytes).
    pub user_codec: [u8; 8],
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

impl MetadataHeader {
    /// The serializer name without its NUL padding.
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
    /// assert_eq!(r.metadata().unwrap().header.magic_name(), b"JSON");
    /// ```
    pub fn magic_name(&self) -> &[u8] {
        let end = self
            .magic_format
            .iter()
            .rposition(|&b| b != 0)
            .map_or(0, |p| p + 1);
        &self.magic_format[..end]
    }

    /// Length of the whole section: header, reserved space and digest.
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
    /// let h = r.metadata().unwrap().header;
    /// // the offsets table follows the metadata section
    /// assert_eq!(32 + h.section_len(), r.offsets_pos());
    /// ```
    pub fn section_len(&self) -> u64 {
        METADATA_HEADER_LENGTH as u64 + self.max_meta_size as u64 + self.meta_checksum.size() as u64
    }

    /// The 32-byte encoding.
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
    /// use b2rs::bloscpack::MetadataHeader;
    ///
    /// let h = Reader::new(Cursor::new(&file)).unwrap().metadata().unwrap().header;
    /// assert_eq!(h.encode(), file[32..64]);
    /// assert_eq!(MetadataHeader::decode(&h.encode()).unwrap(), h);
    /// ```
    pub fn encode(&self) -> [u8; METADATA_HEADER_LENGTH] {
        let mut b = [0u8; METADATA_HEADER_LENGTH];
        b[..8].copy_from_slice(&self.magic_format);
        b[8] = self.meta_options;
        b[9] = self.meta_checksum.id();
        b[10] = self.meta_codec.id();
        b[11] = self.meta_level;
        b[12..16].copy_from_slice(&self.meta_size.to_le_bytes());
        b[16..20].copy_from_slice(&self.max_meta_size.to_le_bytes());
        b[20..24].copy_from_slice(&self.meta_comp_size.to_le_bytes());
        b[24..32].copy_from_slice(&self.user_codec);
        b
    }

    /// Decode and validate a metadata header.
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
    /// use b2rs::bloscpack::MetadataHeader;
    ///
    /// let h = MetadataHeader::decode(&file[32..64]).unwrap();
    /// assert_eq!(h.magic_name(), b"JSON");
    /// assert!(MetadataHeader::decode(&file[32..40]).is_err());
    /// ```
    pub fn decode(b: &[u8]) -> Result<MetadataHeader> {
        if b.len() < METADATA_HEADER_LENGTH {
            return Err(Error::Truncated(Part::Metadata).traced());
        }
        let mut magic_format = [0u8; 8];
        magic_format.copy_from_slice(&b[..8]);
        let mut user_codec = [0u8; 8];
        user_codec.copy_from_slice(&b[24..32]);
        if b[8] != 0 {
            return Err(Error::header(format!(
                "metadata options {:#04x} are reserved and must be 0",
                b[8]
            )));
        }
        let meta_checksum = Checksum::from_id(b[9])
            .ok_or_else(|| Error::header(format!("unknown metadata checksum id {}", b[9])))?;
        let meta_codec = MetaCodec::from_id(b[10])
            .ok_or_else(|| Error::header(format!("unknown metadata codec id {}", b[10])))?;
        if b[11] > MAX_META_LEVEL {
            return Err(Error::header(format!(
                "metadata level {} is not in 0..=9",
                b[11]
            )));
        }
        let h = MetadataHeader {
            magic_format,
            meta_options: b[8],
            meta_checksum,
            meta_codec,
            meta_level: b[11],
            meta_size: le_u32(b, 12),
            max_meta_size: le_u32(b, 16),
            meta_comp_size: le_u32(b, 20),
            user_codec,
        };
        if h.meta_comp_size > h.max_meta_size {
            return Err(Error::header(format!(
                "meta-comp-size {} is larger than max-meta-size {}",
                h.meta_comp_size, h.max_meta_size
            )));
        }
        if h.meta_codec == MetaCodec::None && h.meta_comp_size != h.meta_size {
            return Err(Error::header(format!(
                "uncompressed metadata: meta-comp-size {} differs from meta-size {}",
                h.meta_comp_size, h.meta_size
            )));
        }
        Ok(h)
    }
}

/// A metadata section read from a file.
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
/// let (_, meta) = bloscpack::unpack(&file).unwrap();
/// let meta = meta.unwrap();
/// assert_eq!(meta.data, br#"{"units":"m"}"#);
/// assert_eq!(meta.header.meta_size as usize, meta.data.len());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metadata {
    /// Its header.
    pub header: MetadataHeader,
    /// The serialized metadata (decompressed): JSON text for `magic-format` `JSON`.
    pub data: Vec<u8>,
}

/// How the writer stores metadata. The defaults are bloscpack's.
///
/// # Examples
///
/// ```
/// use b2rs::bloscpack::{self, Checksum, MetadataParams, PackParams};
///
/// let metadata = MetadataParams { checksum: Checksum::Crc32, level: 9, max_meta_size: Some(1000), ..MetadataParams::default() };
/// let file = bloscpack::pack(b"data", &PackParams { metadata, ..PackParams::default() }, Some(b"{\"k\":1}")).unwrap();
/// let h = bloscpack::unpack(&file).unwrap().1.unwrap().header;
/// assert_eq!((h.meta_checksum, h.meta_level, h.max_meta_size), (Checksum::Crc32, 9, 1000));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetadataParams {
    /// Checksum of the stored bytes (default Adler-32).
    pub checksum: Checksum,
    /// Codec (default zlib; dropped when its output is longer than the input).
    pub codec: MetaCodec,
    /// zlib level 0–9 (default 6); stored in `meta-level` even when the codec is dropped.
    pub level: u8,
    /// Bytes reserved for the stored metadata; `None` (default) = 10 × the serialized size.
    pub max_meta_size: Option<u32>,
}

impl Default for MetadataParams {
    fn default() -> Self {
        MetadataParams {
            checksum: Checksum::Adler32,
            codec: MetaCodec::Zlib,
            level: 6,
            max_meta_size: None,
        }
    }
}

/// An encoded metadata section, ready to be written.
///
/// # Examples
///
/// ```
/// use b2rs::bloscpack::metadata::{read_section, MetadataSection};
/// use b2rs::bloscpack::MetadataParams;
///
/// let section = MetadataSection::new(br#"{"a": [1, 2, 3]}"#, &MetadataParams::default()).unwrap();
/// let mut out = Vec::new();
/// section.write_to(&mut out).unwrap();
/// assert_eq!(out.len() as u64, section.len());
/// let (meta, len) = read_section(&mut &out[..]).unwrap();
/// assert_eq!((meta.data, len), (br#"{"a": [1, 2, 3]}"#.to_vec(), section.len()));
/// ```
#[derive(Debug, Clone)]
pub struct MetadataSection {
    /// The metadata header.
    pub header: MetadataHeader,
    stored: Vec<u8>,
    digest: Digest,
}

impl MetadataSection {
    /// Encode `data` (the serialized metadata, e.g. JSON text) like bloscpack's writer: zlib is
    /// kept only when its output is not longer than `data`; `max-meta-size` defaults to
    /// 10 × `data.len()`.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::bloscpack::metadata::MetadataSection;
    /// use b2rs::bloscpack::{MetaCodec, MetadataParams};
    ///
    /// // zlib is dropped when it does not make the data smaller
    /// let tiny = MetadataSection::new(b"{}", &MetadataParams::default()).unwrap();
    /// assert_eq!(tiny.header.meta_codec, MetaCodec::None);
    /// let long = MetadataSection::new(&b"{\"k\": 0}".repeat(50), &MetadataParams::default()).unwrap();
    /// assert_eq!(long.header.meta_codec, MetaCodec::Zlib);
    /// ```
    pub fn new(data: &[u8], params: &MetadataParams) -> Result<MetadataSection> {
        if params.level > MAX_META_LEVEL {
            return Err(Error::param(format!(
                "metadata level {} is not in 0..=9",
                params.level
            )));
        }
        let meta_size =
            u32::try_from(data.len()).map_err(|_| Error::param("metadata larger than 4 GiB"))?;
        let mut codec = params.codec;
        let compressed = match codec {
            MetaCodec::None => None,
            MetaCodec::Zlib => {
                let mut enc = ZlibEncoder::new(Vec::new(), Compression::new(params.level as u32));
                enc.write_all(data)
                    .and_then(|_| enc.finish())
                    .map(Some)
                    .map_err(|e| Error::BadMetadata(format!("zlib: {e}")).traced())?
            }
        };
        let stored = match compressed {
            Some(c) if c.len() <= data.len() => c,
            _ => {
                codec = MetaCodec::None;
                data.to_vec()
            }
        };
        let max_meta_size = match params.max_meta_size {
            Some(m) => m,
            None => meta_size
                .checked_mul(10)
                .ok_or_else(|| Error::param("10 x the metadata size exceeds 4 GiB"))?,
        };
        if stored.len() as u64 > max_meta_size as u64 {
            return Err(Error::MetadataTooLarge {
                needed: stored.len() as u64,
                available: max_meta_size as u64,
            }
            .traced());
        }
        let header = MetadataHeader {
            magic_format: MAGIC_JSON,
            meta_options: 0,
            meta_checksum: params.checksum,
            meta_codec: codec,
            meta_level: params.level,
            meta_size,
            max_meta_size,
            meta_comp_size: stored.len() as u32,
            user_codec: [0; 8],
        };
        let digest = params.checksum.digest(&stored);
        Ok(MetadataSection {
            header,
            stored,
            digest,
        })
    }

    /// Length of the section in the file.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::bloscpack::metadata::MetadataSection;
    /// use b2rs::bloscpack::MetadataParams;
    ///
    /// let s = MetadataSection::new(b"{}", &MetadataParams::default()).unwrap();
    /// // header, 10 x 2 reserved bytes and an Adler-32 digest
    /// assert_eq!(s.len(), 32 + 20 + 4);
    /// ```
    pub fn len(&self) -> u64 {
        self.header.section_len()
    }

    /// Whether the section is empty (never: it has at least its header).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::bloscpack::metadata::MetadataSection;
    /// use b2rs::bloscpack::MetadataParams;
    ///
    /// assert!(!MetadataSection::new(b"{}", &MetadataParams::default()).unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Write the section (header, stored bytes, zero padding, digest).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::bloscpack::metadata::MetadataSection;
    /// use b2rs::bloscpack::MetadataParams;
    ///
    /// let s = MetadataSection::new(b"{}", &MetadataParams::default()).unwrap();
    /// let mut out = Vec::new();
    /// s.write_to(&mut out).unwrap();
    /// assert_eq!(out[..32], s.header.encode());
    /// assert_eq!(&out[32..34], b"{}");
    /// ```
    pub fn write_to<W: Write>(&self, w: &mut W) -> io::Result<()> {
        w.write_all(&self.header.encode())?;
        w.write_all(&self.stored)?;
        let pad = self.header.max_meta_size as u64 - self.stored.len() as u64;
        io::copy(&mut io::repeat(0).take(pad), w)?;
        w.write_all(self.digest.as_bytes())
    }
}

/// Read a metadata section: check its checksum and decompress it. Returns the metadata and the
/// section length.
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
/// use b2rs::bloscpack::metadata::read_section;
///
/// let (meta, len) = read_section(&mut &file[32..]).unwrap();
/// assert_eq!(meta.data, br#"{"units":"m"}"#);
/// assert_eq!(len, meta.header.section_len());
/// ```
pub fn read_section<R: Read>(r: &mut R) -> Result<(Metadata, u64)> {
    let raw = read_vec(r, METADATA_HEADER_LENGTH as u64, Part::Metadata)?;
    let header = MetadataHeader::decode(&raw)?;
    let stored = read_vec(r, header.meta_comp_size as u64, Part::Metadata)?;
    skip(
        r,
        (header.max_meta_size - header.meta_comp_size) as u64,
        Part::Metadata,
    )?;
    let size = header.meta_checksum.size();
    if size > 0 {
        let digest = read_vec(r, size as u64, Part::Metadata)?;
        if header.meta_checksum.digest(&stored).as_bytes() != digest.as_slice() {
            return Err(Error::MetadataChecksum.traced());
        }
    }
    let data = match header.meta_codec {
        MetaCodec::None => stored,
        MetaCodec::Zlib => {
            let mut out = Vec::new();
            let want = header.meta_size as u64;
            ZlibDecoder::new(stored.as_slice())
                .take(want + 1)
                .read_to_end(&mut out)
                .map_err(|e| Error::BadMetadata(format!("zlib: {e}")).traced())?;
            if out.len() as u64 != want {
                return Err(Error::BadMetadata(format!(
                    "decompresses to {} bytes, meta-size says {want}",
                    out.len()
                ))
                .traced());
            }
            out
        }
    };
    Ok((Metadata { header, data }, header.section_len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worked_example_section() {
        // BLOSCPACK.md §9: {"a":1}, zlib requested but dropped, level kept at 6.
        let s = MetadataSection::new(b"{\"a\":1}", &MetadataParams::default()).unwrap();
        let mut out = Vec::new();
        s.write_to(&mut out).unwrap();
        assert_eq!(out.len() as u64, s.len());
        assert_eq!(out.len(), 32 + 70 + 4);
        assert_eq!(
            &out[..32],
            &[
                0x4a, 0x53, 0x4f, 0x4e, 0, 0, 0, 0, 0, 1, 0, 6, 7, 0, 0, 0, 0x46, 0, 0, 0, 7, 0, 0,
                0, 0, 0, 0, 0, 0, 0, 0, 0
            ]
        );
        assert_eq!(&out[32..39], b"{\"a\":1}");
        assert!(out[39..102].iter().all(|&b| b == 0));
        assert_eq!(&out[102..], &[0x09, 0x02, 0x2a, 0x08]);
        let (m, n) = read_section(&mut out.as_slice()).unwrap();
        assert_eq!(n, 106);
        assert_eq!(m.data, b"{\"a\":1}");
        assert_eq!(m.header.magic_name(), b"JSON");
    }

    #[test]
    fn compressed_roundtrip_and_errors() {
        let json = br#"{"dtype":"'<f8'","shape":[1000,300],"order":"C","container":"numpy","pad":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}"#;
        for checksum in Checksum::ALL {
            let p = MetadataParams {
                checksum,
                ..MetadataParams::default()
            };
            let s = MetadataSection::new(json, &p).unwrap();
            assert_eq!(s.header.meta_codec, MetaCodec::Zlib);
            let mut out = Vec::new();
            s.write_to(&mut out).unwrap();
            let (m, n) = read_section(&mut out.as_slice()).unwrap();
            assert_eq!((m.data.as_slice(), n), (&json[..], out.len() as u64));
            for cut in 0..out.len() {
                let e = read_section(&mut &out[..cut]).unwrap_err();
                assert!(matches!(e, Error::Truncated(Part::Metadata)), "{cut}: {e}");
            }
            if checksum != Checksum::None {
                let mut bad = out.clone();
                bad[40] ^= 1;
                assert!(matches!(
                    read_section(&mut bad.as_slice()).unwrap_err(),
                    Error::MetadataChecksum
                ));
            }
        }
        let too_small = MetadataParams {
            max_meta_size: Some(3),
            ..MetadataParams::default()
        };
        assert!(matches!(
            MetadataSection::new(json, &too_small).unwrap_err(),
            Error::MetadataTooLarge { .. }
        ));
        let s = MetadataSection::new(json, &MetadataParams::default()).unwrap();
        let mut hdr = s.header.encode();
        hdr[8] = 1;
        assert!(MetadataHeader::decode(&hdr).is_err());
        let mut hdr = s.header.encode();
        hdr[10] = 2;
        assert!(MetadataHeader::decode(&hdr).is_err());
        let mut hdr = s.header.encode();
        hdr[20..24].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(MetadataHeader::decode(&hdr).is_err());
    }
}
