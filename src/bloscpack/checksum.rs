//! The checksums of chunks and of the metadata section (BLOSCPACK.md §5).
//!
//! Chunks and metadata share one id table. Adler-32 and CRC-32 digests are the 32-bit value in
//! little-endian order; the hash digests (MD5, SHA-1, SHA-2) are the raw digest bytes.

use md5::Md5;
use sha1::Sha1;
use sha2::{Digest as _, Sha224, Sha256, Sha384, Sha512};
use std::fmt;

/// A checksum algorithm of the Bloscpack format, with its id as the discriminant.
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
/// use b2rs::bloscpack::Checksum;
///
/// let sha = PackParams { checksum: Checksum::Sha256, ..params.clone() };
/// let file = bloscpack::pack(&data, &sha, None).unwrap();
/// assert_eq!(Reader::new(Cursor::new(&file)).unwrap().header().checksum, Checksum::Sha256);
/// assert_eq!(bloscpack::unpack(&file).unwrap().0, data);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Checksum {
    /// No checksum (id 0, 0 bytes).
    None = 0,
    /// Adler-32 (id 1, 4 bytes); bloscpack's default.
    #[default]
    Adler32 = 1,
    /// CRC-32 (id 2, 4 bytes).
    Crc32 = 2,
    /// MD5 (id 3, 16 bytes).
    Md5 = 3,
    /// SHA-1 (id 4, 20 bytes).
    Sha1 = 4,
    /// SHA-224 (id 5, 28 bytes).
    Sha224 = 5,
    /// SHA-256 (id 6, 32 bytes).
    Sha256 = 6,
    /// SHA-384 (id 7, 48 bytes).
    Sha384 = 7,
    /// SHA-512 (id 8, 64 bytes).
    Sha512 = 8,
}

/// The longest digest (SHA-512).
pub const MAX_DIGEST_SIZE: usize = 64;

impl Checksum {
    /// Every checksum, in id order.
    pub const ALL: [Checksum; 9] = [
        Checksum::None,
        Checksum::Adler32,
        Checksum::Crc32,
        Checksum::Md5,
        Checksum::Sha1,
        Checksum::Sha224,
        Checksum::Sha256,
        Checksum::Sha384,
        Checksum::Sha512,
    ];

    /// The checksum with this id, if it is one.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::bloscpack::Checksum;
    ///
    /// assert_eq!(Checksum::from_id(2), Some(Checksum::Crc32));
    /// assert_eq!(Checksum::from_id(9), None);
    /// ```
    pub fn from_id(id: u8) -> Option<Checksum> {
        Checksum::ALL.get(id as usize).copied()
    }

    /// The id stored in the headers.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::bloscpack::Checksum;
    ///
    /// assert_eq!(Checksum::Sha512.id(), 8);
    /// ```
    pub fn id(self) -> u8 {
        self as u8
    }

    /// The name bloscpack uses (`"None"`, `"adler32"`, `"crc32"`, `"md5"`, `"sha1"`, …).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::bloscpack::Checksum;
    ///
    /// assert_eq!(Checksum::Adler32.name(), "adler32");
    /// assert_eq!(Checksum::None.name(), "None");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            Checksum::None => "None",
            Checksum::Adler32 => "adler32",
            Checksum::Crc32 => "crc32",
            Checksum::Md5 => "md5",
            Checksum::Sha1 => "sha1",
            Checksum::Sha224 => "sha224",
            Checksum::Sha256 => "sha256",
            Checksum::Sha384 => "sha384",
            Checksum::Sha512 => "sha512",
        }
    }

    /// The checksum with this bloscpack name (case-insensitive).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::bloscpack::Checksum;
    ///
    /// assert_eq!(Checksum::from_name("SHA1"), Some(Checksum::Sha1));
    /// assert_eq!(Checksum::from_name("blake3"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Checksum> {
        Checksum::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(name))
    }

    /// Length of the digest in bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::bloscpack::Checksum;
    ///
    /// assert_eq!(Checksum::None.size(), 0);
    /// assert_eq!(Checksum::Md5.size(), 16);
    /// assert_eq!(Checksum::Sha384.size(), 48);
    /// ```
    pub fn size(self) -> usize {
        match self {
            Checksum::None => 0,
            Checksum::Adler32 | Checksum::Crc32 => 4,
            Checksum::Md5 => 16,
            Checksum::Sha1 => 20,
            Checksum::Sha224 => 28,
            Checksum::Sha256 => 32,
            Checksum::Sha384 => 48,
            Checksum::Sha512 => 64,
        }
    }

    /// The digest of `data`, as stored in a file.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::bloscpack::Checksum;
    ///
    /// // Adler-32 of "Wikipedia" is 0x11E60398, stored little-endian
    /// assert_eq!(Checksum::Adler32.digest(b"Wikipedia").as_bytes(), 0x11E6_0398u32.to_le_bytes());
    /// // CRC-32 of "123456789" is 0xCBF43926
    /// assert_eq!(Checksum::Crc32.digest(b"123456789").as_bytes(), 0xCBF4_3926u32.to_le_bytes());
    /// ```
    pub fn digest(self, data: &[u8]) -> Digest {
        let mut d = Digest {
            len: self.size() as u8,
            bytes: [0; MAX_DIGEST_SIZE],
        };
        let out = &mut d.bytes[..self.size()];
        match self {
            Checksum::None => {}
            Checksum::Adler32 => {
                out.copy_from_slice(&crate::codecs::adler32::adler32(1, data).to_le_bytes())
            }
            Checksum::Crc32 => out.copy_from_slice(&zlib_rs::crc32::crc32(0, data).to_le_bytes()),
            Checksum::Md5 => out.copy_from_slice(&Md5::digest(data)),
            Checksum::Sha1 => out.copy_from_slice(&Sha1::digest(data)),
            Checksum::Sha224 => out.copy_from_slice(&Sha224::digest(data)),
            Checksum::Sha256 => out.copy_from_slice(&Sha256::digest(data)),
            Checksum::Sha384 => out.copy_from_slice(&Sha384::digest(data)),
            Checksum::Sha512 => out.copy_from_slice(&Sha512::digest(data)),
        }
        d
    }
}

impl fmt::Display for Checksum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A digest of up to [`MAX_DIGEST_SIZE`] bytes (no allocation).
///
/// # Examples
///
/// ```
/// use b2rs::bloscpack::Checksum;
///
/// let d = Checksum::Sha1.digest(b"abc");
/// assert_eq!(d.as_bytes().len(), 20);
/// assert_eq!(d.as_bytes()[..4], [0xa9, 0x99, 0x3e, 0x36]);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Digest {
    len: u8,
    bytes: [u8; MAX_DIGEST_SIZE],
}

impl Digest {
    /// The digest bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::bloscpack::Checksum;
    ///
    /// assert_eq!(Checksum::Md5.digest(b"").as_bytes()[..4], [0xd4, 0x1d, 0x8c, 0xd9]);
    /// assert!(Checksum::None.digest(b"abc").as_bytes().is_empty());
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }
}

impl AsRef<[u8]> for Digest {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.as_bytes() {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(d: Digest) -> String {
        format!("{d:?}")
    }

    #[test]
    fn ids_names_sizes() {
        for (i, c) in Checksum::ALL.iter().enumerate() {
            assert_eq!(c.id() as usize, i);
            assert_eq!(Checksum::from_id(i as u8), Some(*c));
            assert_eq!(Checksum::from_name(c.name()), Some(*c));
            assert_eq!(c.digest(b"abc").as_bytes().len(), c.size());
        }
        assert_eq!(Checksum::from_id(9), None);
        assert_eq!(Checksum::from_name("sha3"), None);
        assert_eq!(Checksum::default(), Checksum::Adler32);
    }

    #[test]
    fn known_digests() {
        // Python: struct.pack('<I', zlib.adler32(b'{"a":1}')) (BLOSCPACK.md §9)
        assert_eq!(hex(Checksum::Adler32.digest(b"{\"a\":1}")), "09022a08");
        assert_eq!(hex(Checksum::Adler32.digest(b"")), "01000000");
        // zlib.crc32(b'abc') = 0x352441c2
        assert_eq!(hex(Checksum::Crc32.digest(b"abc")), "c2412435");
        assert_eq!(
            hex(Checksum::Md5.digest(b"abc")),
            "900150983cd24fb0d6963f7d28e17f72"
        );
        assert_eq!(
            hex(Checksum::Sha1.digest(b"abc")),
            "a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        assert_eq!(
            hex(Checksum::Sha224.digest(b"abc")),
            "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"
        );
        assert_eq!(
            hex(Checksum::Sha256.digest(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(hex(Checksum::Sha384.digest(b"abc")).starts_with("cb00753f45a35e8b"));
        assert!(hex(Checksum::Sha512.digest(b"abc")).starts_with("ddaf35a193617aba"));
        assert_eq!(Checksum::None.digest(b"abc").as_bytes(), b"");
    }
}
