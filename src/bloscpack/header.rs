//! The Bloscpack header: 32 bytes starting with `blpk` (BLOSCPACK.md §2, §8).
//!
//! ```text
//! 0  magic "blpk" | 4 version | 5 options | 6 checksum | 7 typesize
//! 8  i32 chunk-size | 12 i32 last-chunk | 16 i64 nchunks | 24 i64 max-app-chunks
//! ```
//!
//! Version 3 is written. Versions 1 (16-byte header: magic, version, 3 reserved bytes, i64
//! nchunks) and 2 (no metadata, bytes 24–31 reserved, offsets table of exactly nchunks entries)
//! are read.

use super::checksum::Checksum;
use super::error::{read_err, Error, Part, Result};
use crate::chunk::header::MAX_BUFFERSIZE;
use std::io::Read;

/// The magic bytes at offset 0.
pub const MAGIC: [u8; 4] = *b"blpk";
/// Length of the header of versions 2 and 3.
pub const HEADER_LENGTH: usize = 32;
/// Length of the header of version 1.
pub const V1_HEADER_LENGTH: usize = 16;
/// The format version written (bloscpack 0.3.0 up to 0.16).
pub const FORMAT_VERSION: u8 = 3;
/// Largest `nchunks + max-app-chunks`.
pub const MAX_CHUNKS: i64 = i64::MAX;

/// Bits of the options byte (offset 5).
pub mod options {
    /// An offsets table follows the header (or the metadata section).
    pub const OFFSETS: u8 = 0x01;
    /// A metadata section follows the header.
    pub const METADATA: u8 = 0x02;
}

/// A decoded Bloscpack header.
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
/// let h = *Reader::new(Cursor::new(&file)).unwrap().header();
/// assert_eq!((h.format_version, h.typesize, h.offsets, h.metadata), (3, 8, true, true));
/// assert_eq!((h.chunk_size, h.last_chunk, h.nchunks, h.max_app_chunks), (4000, 4000, 3, 30));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Format version (1, 2 or 3).
    pub format_version: u8,
    /// An offsets table is present.
    pub offsets: bool,
    /// A metadata section is present.
    pub metadata: bool,
    /// The per-chunk checksum.
    pub checksum: Checksum,
    /// The Blosc typesize of the chunks.
    pub typesize: u8,
    /// Uncompressed size of every chunk except the last; −1 = unknown.
    pub chunk_size: i32,
    /// Uncompressed size of the last chunk; −1 = unknown.
    pub last_chunk: i32,
    /// Number of chunks; −1 = unknown (read until the end of the file).
    pub nchunks: i64,
    /// Offset slots reserved for appending.
    pub max_app_chunks: i64,
}

impl Default for Header {
    /// A version-3 header with nothing known: no offsets, no metadata, no chunks announced.
    fn default() -> Self {
        Header {
            format_version: FORMAT_VERSION,
            offsets: false,
            metadata: false,
            checksum: Checksum::None,
            typesize: 0,
            chunk_size: -1,
            last_chunk: -1,
            nchunks: -1,
            max_app_chunks: 0,
        }
    }
}

fn le_i32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn le_i64(b: &[u8], at: usize) -> i64 {
    let mut v = [0u8; 8];
    v.copy_from_slice(&b[at..at + 8]);
    i64::from_le_bytes(v)
}

impl Header {
    /// Length of this header in the file (16 for version 1, else 32).
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
    /// use b2rs::bloscpack::Header;
    ///
    /// let h = Header::decode(&file).unwrap();
    /// assert_eq!(h.encoded_len(), 32);
    /// ```
    pub fn encoded_len(&self) -> usize {
        if self.format_version == 1 {
            V1_HEADER_LENGTH
        } else {
            HEADER_LENGTH
        }
    }

    /// Check the constraints of BLOSCPACK.md §2 (and §8 for old versions).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::bloscpack::Header;
    ///
    /// let mut h = Header { nchunks: 2, chunk_size: 100, last_chunk: 50, ..Header::default() };
    /// assert!(h.validate().is_ok());
    /// // the last chunk cannot be larger than the others
    /// h.last_chunk = 150;
    /// assert!(h.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<()> {
        if !(1..=FORMAT_VERSION).contains(&self.format_version) {
            return Err(Error::UnsupportedVersion(self.format_version).traced());
        }
        if self.format_version < 3 && self.metadata {
            return Err(Error::header(format!(
                "format version {} has no metadata section",
                self.format_version
            )));
        }
        if self.format_version == 1 && (self.offsets || self.checksum != Checksum::None) {
            return Err(Error::header(
                "format version 1 has no offsets nor checksums",
            ));
        }
        for (name, v) in [
            ("chunk-size", self.chunk_size),
            ("last-chunk", self.last_chunk),
        ] {
            if !(-1..=MAX_BUFFERSIZE).contains(&v) {
                return Err(Error::header(format!(
                    "{name} {v} is not in -1..={MAX_BUFFERSIZE}"
                )));
            }
        }
        if self.chunk_size >= 0 && self.last_chunk > self.chunk_size {
            return Err(Error::header(format!(
                "last-chunk {} is larger than chunk-size {}",
                self.last_chunk, self.chunk_size
            )));
        }
        if self.nchunks < -1 {
            return Err(Error::header(format!(
                "nchunks {} is negative",
                self.nchunks
            )));
        }
        if self.max_app_chunks < 0 {
            return Err(Error::header(format!(
                "max-app-chunks {} is negative",
                self.max_app_chunks
            )));
        }
        if self.max_app_chunks != 0 && (self.nchunks == -1 || !self.offsets) {
            return Err(Error::header(
                "max-app-chunks must be 0 without an offsets table or with nchunks -1",
            ));
        }
        if self.nchunks.checked_add(self.max_app_chunks).is_none() {
            return Err(Error::header("nchunks + max-app-chunks exceeds 2^63 - 1"));
        }
        if self.offsets && self.nchunks == -1 {
            return Err(Error::header(
                "an offsets table needs a known number of chunks (nchunks is -1)",
            ));
        }
        if self.offsets && self.offsets_entries() > (i64::MAX / 8) as u64 {
            return Err(Error::header("the offsets table is larger than 2^63 bytes"));
        }
        if self.nbytes_u128().is_some_and(|n| n > i64::MAX as u128) {
            return Err(Error::header(
                "the uncompressed size exceeds 2^63 - 1 bytes",
            ));
        }
        Ok(())
    }

    fn nbytes_u128(&self) -> Option<u128> {
        match (self.nchunks, self.chunk_size, self.last_chunk) {
            (0, _, _) => Some(0),
            (n, c, l) if n > 0 && l >= 0 && (c >= 0 || n == 1) => {
                Some(c.max(0) as u128 * (n as u128 - 1) + l as u128)
            }
            _ => None,
        }
    }

    /// Total uncompressed size, `chunk-size × (nchunks − 1) + last-chunk`, when known.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::bloscpack::Header;
    ///
    /// let h = Header { nchunks: 3, chunk_size: 100, last_chunk: 40, ..Header::default() };
    /// assert_eq!(h.nbytes(), Some(240));
    /// assert_eq!(Header::default().nbytes(), None); // unknown
    /// ```
    pub fn nbytes(&self) -> Option<u64> {
        self.nbytes_u128().and_then(|n| u64::try_from(n).ok())
    }

    /// The uncompressed size chunk `i` must have, when the header tells it (`None` also for
    /// `i >= nchunks`).
    /// With `nchunks` −1 the last chunk is not known: see [`Header::max_chunk_nbytes`].
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::bloscpack::Header;
    ///
    /// let h = Header { nchunks: 3, chunk_size: 100, last_chunk: 40, ..Header::default() };
    /// assert_eq!(h.chunk_nbytes(0), Some(100));
    /// assert_eq!(h.chunk_nbytes(2), Some(40));
    /// assert_eq!(h.chunk_nbytes(3), None); // there is no chunk 3
    /// // nchunks unknown (-1): the header does not tell
    /// assert_eq!(Header { nchunks: -1, chunk_size: 100, ..h }.chunk_nbytes(0), None);
    /// ```
    pub fn chunk_nbytes(&self, i: u64) -> Option<usize> {
        if self.nchunks < 0 || i >= self.nchunks as u64 {
            return None;
        }
        let last = self.nchunks > 0 && i == self.nchunks as u64 - 1;
        let v = if last {
            self.last_chunk
        } else {
            self.chunk_size
        };
        usize::try_from(v).ok()
    }

    /// The largest uncompressed size a chunk may have (`chunk-size`), when known.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::bloscpack::Header;
    ///
    /// let h = Header { nchunks: 3, chunk_size: 100, last_chunk: 40, ..Header::default() };
    /// assert_eq!(h.max_chunk_nbytes(), Some(100));
    /// ```
    pub fn max_chunk_nbytes(&self) -> Option<usize> {
        usize::try_from(self.chunk_size).ok()
    }

    /// Number of entries of the offsets table (`nchunks + max-app-chunks`), 0 without one.
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
    /// use b2rs::bloscpack::Header;
    ///
    /// // 3 chunks and 30 free slots
    /// assert_eq!(Header::decode(&file).unwrap().offsets_entries(), 33);
    /// assert_eq!(Header::default().offsets_entries(), 0);
    /// ```
    pub fn offsets_entries(&self) -> u64 {
        if self.offsets && self.nchunks >= 0 {
            self.nchunks as u64 + self.max_app_chunks as u64
        } else {
            0
        }
    }

    /// The 32-byte version-3 encoding (the header is validated first).
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
    /// use b2rs::bloscpack::Header;
    ///
    /// let h = Header::decode(&file).unwrap();
    /// assert_eq!(h.encode().unwrap(), file[..32]);
    /// assert_eq!(&file[..4], b"blpk");
    /// ```
    pub fn encode(&self) -> Result<[u8; HEADER_LENGTH]> {
        if self.format_version != FORMAT_VERSION {
            return Err(Error::UnsupportedVersion(self.format_version).traced());
        }
        self.validate()?;
        let mut b = [0u8; HEADER_LENGTH];
        b[..4].copy_from_slice(&MAGIC);
        b[4] = self.format_version;
        b[5] = (self.offsets as u8 * options::OFFSETS) | (self.metadata as u8 * options::METADATA);
        b[6] = self.checksum.id();
        b[7] = self.typesize;
        b[8..12].copy_from_slice(&self.chunk_size.to_le_bytes());
        b[12..16].copy_from_slice(&self.last_chunk.to_le_bytes());
        b[16..24].copy_from_slice(&self.nchunks.to_le_bytes());
        b[24..32].copy_from_slice(&self.max_app_chunks.to_le_bytes());
        Ok(b)
    }

    /// Decode and validate a header from the start of `buf` (16 bytes suffice for version 1, 32
    /// are needed otherwise).
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
    /// use b2rs::bloscpack::{Error, Header};
    ///
    /// assert_eq!(Header::decode(&file).unwrap().nchunks, 3);
    /// assert!(matches!(Header::decode(b"blpk"), Err(Error::Truncated(_))));
    /// ```
    pub fn decode(buf: &[u8]) -> Result<Header> {
        if buf.len() < V1_HEADER_LENGTH {
            return Err(Error::Truncated(Part::Header).traced());
        }
        let magic = [buf[0], buf[1], buf[2], buf[3]];
        if magic != MAGIC {
            return Err(Error::BadMagic(magic).traced());
        }
        let version = buf[4];
        if version == 1 {
            let h = Header {
                format_version: 1,
                nchunks: le_i64(buf, 8),
                ..Header::default()
            };
            h.validate()?;
            return Ok(h);
        }
        if !(2..=FORMAT_VERSION).contains(&version) {
            return Err(Error::UnsupportedVersion(version).traced());
        }
        if buf.len() < HEADER_LENGTH {
            return Err(Error::Truncated(Part::Header).traced());
        }
        let opts = buf[5];
        let allowed = if version == 2 {
            options::OFFSETS
        } else {
            options::OFFSETS | options::METADATA
        };
        if opts & !allowed != 0 {
            return Err(Error::header(format!(
                "options byte {opts:#04x} has reserved bits set"
            )));
        }
        let checksum = Checksum::from_id(buf[6])
            .ok_or_else(|| Error::header(format!("unknown checksum id {}", buf[6])))?;
        let h = Header {
            format_version: version,
            offsets: opts & options::OFFSETS != 0,
            metadata: opts & options::METADATA != 0,
            checksum,
            typesize: buf[7],
            chunk_size: le_i32(buf, 8),
            last_chunk: le_i32(buf, 12),
            nchunks: le_i64(buf, 16),
            // version 2: reserved bytes, and an offsets table of exactly nchunks entries
            max_app_chunks: if version == 2 { 0 } else { le_i64(buf, 24) },
        };
        h.validate()?;
        Ok(h)
    }

    /// Read and decode a header; returns it with the number of bytes consumed.
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
    /// use b2rs::bloscpack::Header;
    ///
    /// let mut r = Cursor::new(&file);
    /// let (h, n) = Header::read_from(&mut r).unwrap();
    /// assert_eq!((h.nchunks, n), (3, 32));
    /// assert_eq!(r.position(), 32);
    /// ```
    pub fn read_from<R: Read>(r: &mut R) -> Result<(Header, usize)> {
        let mut buf = [0u8; HEADER_LENGTH];
        r.read_exact(&mut buf[..V1_HEADER_LENGTH])
            .map_err(read_err(Part::Header))?;
        let magic = [buf[0], buf[1], buf[2], buf[3]];
        if magic != MAGIC {
            return Err(Error::BadMagic(magic).traced());
        }
        if buf[4] == 1 {
            return Ok((Header::decode(&buf[..V1_HEADER_LENGTH])?, V1_HEADER_LENGTH));
        }
        if !(2..=FORMAT_VERSION).contains(&buf[4]) {
            return Err(Error::UnsupportedVersion(buf[4]).traced());
        }
        r.read_exact(&mut buf[V1_HEADER_LENGTH..])
            .map_err(read_err(Part::Header))?;
        Ok((Header::decode(&buf)?, HEADER_LENGTH))
    }
}

/// How bloscpack cuts `size` bytes into chunks of (at most) `chunk_size` bytes
/// (`calculate_nchunks`, BLOSCPACK.md §2): returns `(nchunks, chunk-size, last-chunk)`.
///
/// `size == 0` gives one empty chunk; a `chunk_size` larger than `size` is reduced to `size`.
///
/// # Examples
///
/// ```
/// use b2rs::bloscpack::calculate_nchunks;
///
/// assert_eq!(calculate_nchunks(10_000, 4096).unwrap(), (3, 4096, 1808));
/// assert_eq!(calculate_nchunks(100, 4096).unwrap(), (1, 100, 100));
/// assert_eq!(calculate_nchunks(0, 4096).unwrap(), (1, 0, 0));
/// ```
pub fn calculate_nchunks(size: u64, chunk_size: usize) -> Result<(u64, i32, i32)> {
    if size == 0 {
        return Ok((1, 0, 0));
    }
    if chunk_size == 0 || chunk_size > MAX_BUFFERSIZE as usize {
        return Err(Error::param(format!(
            "chunk size {chunk_size} is not in 1..={MAX_BUFFERSIZE}"
        )));
    }
    let c = (chunk_size as u64).min(size);
    let (q, r) = (size / c, size % c);
    if q > MAX_CHUNKS as u64 {
        return Err(Error::param("too many chunks"));
    }
    Ok(if r == 0 {
        (q, c as i32, c as i32)
    } else {
        (q + 1, c as i32, r as i32)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The header of the worked example (BLOSCPACK.md §9).
    const EXAMPLE: [u8; 32] = [
        0x62, 0x6c, 0x70, 0x6b, 0x03, 0x03, 0x01, 0x01, 0x00, 0x01, 0x00, 0x00, 0x58, 0x00, 0x00,
        0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1e, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00,
    ];

    #[test]
    fn worked_example() {
        let h = Header::decode(&EXAMPLE).unwrap();
        assert_eq!(
            h,
            Header {
                format_version: 3,
                offsets: true,
                metadata: true,
                checksum: Checksum::Adler32,
                typesize: 1,
                chunk_size: 256,
                last_chunk: 88,
                nchunks: 3,
                max_app_chunks: 30,
            }
        );
        assert_eq!(h.nbytes(), Some(600));
        assert_eq!(h.chunk_nbytes(0), Some(256));
        assert_eq!(h.chunk_nbytes(2), Some(88));
        assert_eq!(h.offsets_entries(), 33);
        assert_eq!(h.encode().unwrap(), EXAMPLE);
        let (h2, n) = Header::read_from(&mut &EXAMPLE[..]).unwrap();
        assert_eq!((h2, n), (h, 32));
    }

    #[test]
    fn rejects_bad_headers() {
        let bad = |f: &dyn Fn(&mut [u8; 32])| {
            let mut b = EXAMPLE;
            f(&mut b);
            Header::decode(&b).unwrap_err()
        };
        assert!(matches!(bad(&|b| b[0] = b'B'), Error::BadMagic(_)));
        assert!(matches!(bad(&|b| b[4] = 4), Error::UnsupportedVersion(4)));
        assert!(matches!(bad(&|b| b[4] = 0), Error::UnsupportedVersion(0)));
        assert!(matches!(bad(&|b| b[5] = 0x07), Error::InvalidHeader(_)));
        assert!(matches!(bad(&|b| b[6] = 9), Error::InvalidHeader(_)));
        // last-chunk > chunk-size
        assert!(matches!(bad(&|b| b[13] = 1), Error::InvalidHeader(_)));
        // chunk-size -2
        assert!(matches!(
            bad(&|b| b[8..12].copy_from_slice(&(-2i32).to_le_bytes())),
            Error::InvalidHeader(_)
        ));
        // nchunks -2
        assert!(matches!(
            bad(&|b| b[16..24].copy_from_slice(&(-2i64).to_le_bytes())),
            Error::InvalidHeader(_)
        ));
        // nchunks + max-app-chunks overflows
        assert!(matches!(
            bad(&|b| b[24..32].copy_from_slice(&i64::MAX.to_le_bytes())),
            Error::InvalidHeader(_)
        ));
        // offsets with nchunks -1
        assert!(matches!(
            bad(&|b| b[16..24].copy_from_slice(&(-1i64).to_le_bytes())),
            Error::InvalidHeader(_)
        ));
        // max-app-chunks without offsets
        assert!(matches!(bad(&|b| b[5] = 0x02), Error::InvalidHeader(_)));
        // huge uncompressed size
        assert!(matches!(
            bad(&|b| {
                b[16..24].copy_from_slice(&(1i64 << 60).to_le_bytes());
                b[24..32].copy_from_slice(&0i64.to_le_bytes());
            }),
            Error::InvalidHeader(_)
        ));
        // version 2 with metadata
        assert!(matches!(
            bad(&|b| {
                b[4] = 2;
            }),
            Error::InvalidHeader(_)
        ));
        for n in 0..32 {
            let e = Header::decode(&EXAMPLE[..n]).unwrap_err();
            assert!(matches!(e, Error::Truncated(Part::Header)), "{n}: {e}");
            let e = Header::read_from(&mut &EXAMPLE[..n]).unwrap_err();
            assert!(matches!(e, Error::Truncated(Part::Header)), "{n}: {e}");
        }
    }

    #[test]
    fn old_versions() {
        let mut v1 = [0u8; 16];
        v1[..4].copy_from_slice(b"blpk");
        v1[4] = 1;
        v1[8..16].copy_from_slice(&5i64.to_le_bytes());
        let h = Header::decode(&v1).unwrap();
        assert_eq!((h.format_version, h.nchunks, h.encoded_len()), (1, 5, 16));
        assert_eq!((h.chunk_size, h.last_chunk, h.nbytes()), (-1, -1, None));
        assert_eq!(Header::read_from(&mut &v1[..]).unwrap().1, 16);
        assert!(h.encode().is_err());

        let mut v2 = EXAMPLE;
        v2[4] = 2;
        v2[5] = 1;
        let h = Header::decode(&v2).unwrap();
        assert_eq!(
            (h.format_version, h.max_app_chunks, h.offsets_entries()),
            (2, 0, 3)
        );
    }

    #[test]
    fn nchunks_like_bloscpack() {
        assert_eq!(calculate_nchunks(0, 1 << 20).unwrap(), (1, 0, 0));
        assert_eq!(calculate_nchunks(0, 0).unwrap(), (1, 0, 0));
        assert_eq!(calculate_nchunks(600, 1 << 20).unwrap(), (1, 600, 600));
        assert_eq!(calculate_nchunks(600, 600).unwrap(), (1, 600, 600));
        assert_eq!(calculate_nchunks(600, 200).unwrap(), (3, 200, 200));
        assert_eq!(calculate_nchunks(600, 256).unwrap(), (3, 256, 88));
        assert!(calculate_nchunks(600, 0).is_err());
        assert!(calculate_nchunks(600, 1 << 31).is_err());
    }
}
