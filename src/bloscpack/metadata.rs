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
    pub fn from_id(id: u8) -> Option<MetaCodec> {
        match id {
            0 => Some(MetaCodec::None),
            1 => Some(MetaCodec::Zlib),
            _ => None,
        }
    }

    /// The id stored in the metadata header.
    pub fn id(self) -> u8 {
        self as u8
    }
}

/// A decoded metadata header.
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
    pub fn magic_name(&self) -> &[u8] {
        let end = self
            .magic_format
            .iter()
            .rposition(|&b| b != 0)
            .map_or(0, |p| p + 1);
        &self.magic_format[..end]
    }

    /// Length of the whole section: header, reserved space and digest.
    pub fn section_len(&self) -> u64 {
        METADATA_HEADER_LENGTH as u64 + self.max_meta_size as u64 + self.meta_checksum.size() as u64
    }

    /// The 32-byte encoding.
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Metadata {
    /// Its header.
    pub header: MetadataHeader,
    /// The serialized metadata (decompressed): JSON text for `magic-format` `JSON`.
    pub data: Vec<u8>,
}

/// How the writer stores metadata. The defaults are bloscpack's.
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
    pub fn len(&self) -> u64 {
        self.header.section_len()
    }

    /// Whether the section is empty (never: it has at least its header).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Write the section (header, stored bytes, zero padding, digest).
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
