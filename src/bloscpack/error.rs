//! Errors of the Bloscpack reader and writer: they say which part of the file or which chunk is
//! wrong, and map to a `BLOSC2_ERROR_*` code with [`Error::code`].

use std::fmt;
use std::io;

/// The part of a Bloscpack file being read when it ended early.
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
/// use b2rs::bloscpack::{Error, Part};
///
/// assert!(matches!(bloscpack::unpack(&file[..20]), Err(Error::Truncated(Part::Header))));
/// assert!(matches!(bloscpack::unpack(&file[..file.len() - 10]), Err(Error::Truncated(Part::Chunk(2)))));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The 32-byte (16 for version 1) Bloscpack header.
    Header,
    /// The metadata section (header, data, padding or checksum).
    Metadata,
    /// The offsets table.
    Offsets,
    /// Chunk `n` (its Blosc data or its checksum).
    Chunk(u64),
    /// The data to append or to pack (shorter than announced).
    Input,
}

impl fmt::Display for Part {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Part::Header => f.write_str("the bloscpack header"),
            Part::Metadata => f.write_str("the metadata section"),
            Part::Offsets => f.write_str("the offsets table"),
            Part::Chunk(n) => write!(f, "chunk {n}"),
            Part::Input => f.write_str("the input data"),
        }
    }
}

/// What went wrong reading, writing or appending to a Bloscpack file.
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
/// let mut bad = file.clone();
/// bad[..4].copy_from_slice(b"nope");
/// assert!(matches!(bloscpack::unpack(&bad), Err(Error::BadMagic(m)) if &m == b"nope"));
/// // a flipped byte in the last chunk: its Adler-32 no longer matches
/// let mut bad = file.clone();
/// let n = bad.len();
/// bad[n - 6] ^= 0xff;
/// assert!(matches!(bloscpack::unpack(&bad), Err(Error::ChunkChecksum { chunk: 2 } | Error::BadChunk { chunk: 2, .. })));
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Reading from the underlying reader failed.
    Read(io::Error),
    /// Writing to (or seeking in) the underlying writer failed.
    Write(io::Error),
    /// The data ends in the middle of a part of the file.
    Truncated(Part),
    /// The first four bytes are not `blpk`.
    BadMagic([u8; 4]),
    /// A format version this implementation does not read (or cannot append to).
    UnsupportedVersion(u8),
    /// A field of the Bloscpack or metadata header has an impossible value.
    InvalidHeader(String),
    /// The offsets table does not point at chunk `chunk`.
    BadOffset {
        /// The chunk number.
        chunk: u64,
        /// The offset stored in the table (−1: never written).
        offset: i64,
    },
    /// The stored checksum of chunk `chunk` does not match its data.
    ChunkChecksum {
        /// The chunk number.
        chunk: u64,
    },
    /// The stored checksum of the metadata does not match.
    MetadataChecksum,
    /// Chunk `chunk` is not a valid Blosc chunk, or does not decompress to its announced size.
    BadChunk {
        /// The chunk number.
        chunk: u64,
        /// What is wrong.
        reason: String,
        /// The matching core error.
        source: crate::Error,
    },
    /// The metadata cannot be decoded (bad zlib stream or wrong size).
    BadMetadata(String),
    /// A parameter is out of range, or the operation does not apply to this file.
    InvalidParam(String),
    /// Chunk `chunk` does not exist.
    ChunkIndex {
        /// The chunk number asked for.
        chunk: u64,
        /// The number of chunks.
        nchunks: u64,
    },
    /// Appending needs more chunks than the offsets table has room for.
    NotEnoughSpace {
        /// Chunks that would be added.
        needed: u64,
        /// Free offset slots (`max-app-chunks`).
        available: u64,
    },
    /// The new metadata does not fit in the space reserved for it.
    MetadataTooLarge {
        /// Bytes needed.
        needed: u64,
        /// Bytes reserved (`max-meta-size`).
        available: u64,
    },
    /// Compressing a chunk failed.
    Compress(crate::Error),
}

/// Result alias of the Bloscpack module.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// The closest `BLOSC2_ERROR_*` code (negative).
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
    /// let err = bloscpack::unpack(&file[..10]).unwrap_err();
    /// assert_eq!(err.code(), b2rs::Error::ReadBuffer.code());
    /// assert_eq!(Error::MetadataChecksum.code(), -3);
    /// ```
    pub fn code(&self) -> i32 {
        self.core().code()
    }

    /// The closest core error.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::bloscpack::Error;
    ///
    /// assert_eq!(Error::UnsupportedVersion(9).core(), b2rs::Error::VersionSupport);
    /// assert_eq!(Error::ChunkIndex { chunk: 5, nchunks: 3 }.core(), b2rs::Error::InvalidIndex);
    /// ```
    pub fn core(&self) -> crate::Error {
        use crate::Error as E;
        match self {
            Error::Read(_) => E::FileRead,
            Error::Write(_) => E::FileWrite,
            Error::Truncated(Part::Input) => E::ReadBuffer,
            Error::Truncated(_) => E::ReadBuffer,
            Error::BadMagic(_) | Error::InvalidHeader(_) | Error::BadOffset { .. } => {
                E::InvalidHeader
            }
            Error::UnsupportedVersion(_) => E::VersionSupport,
            Error::ChunkChecksum { .. } | Error::MetadataChecksum | Error::BadMetadata(_) => {
                E::Data
            }
            Error::BadChunk { source, .. } => *source,
            Error::InvalidParam(_) => E::InvalidParam,
            Error::ChunkIndex { .. } => E::InvalidIndex,
            Error::NotEnoughSpace { .. } => E::ChunkAppend,
            Error::MetadataTooLarge { .. } => E::WriteBuffer,
            Error::Compress(e) => *e,
        }
    }

    /// Emit this error as a `BLOSC_TRACE` message and return it.
    pub(crate) fn traced(self) -> Error {
        crate::trace_error!("bloscpack: {self}");
        self
    }

    pub(crate) fn header(msg: impl Into<String>) -> Error {
        Error::InvalidHeader(msg.into()).traced()
    }

    pub(crate) fn param(msg: impl Into<String>) -> Error {
        Error::InvalidParam(msg.into()).traced()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Read(e) => write!(f, "read error: {e}"),
            Error::Write(e) => write!(f, "write error: {e}"),
            Error::Truncated(p) => write!(f, "the data ends in {p} (truncated file)"),
            Error::BadMagic(m) => write!(f, "not a bloscpack file (magic {m:02x?}, not \"blpk\")"),
            Error::UnsupportedVersion(v) => write!(f, "unsupported bloscpack format version {v}"),
            Error::InvalidHeader(m) => write!(f, "invalid header: {m}"),
            Error::BadOffset { chunk, offset } => {
                write!(f, "the offsets table gives {offset} for chunk {chunk}, which is not where it is")
            }
            Error::ChunkChecksum { chunk } => write!(f, "checksum mismatch in chunk {chunk}"),
            Error::MetadataChecksum => f.write_str("checksum mismatch in the metadata"),
            Error::BadChunk { chunk, reason, .. } => write!(f, "chunk {chunk}: {reason}"),
            Error::BadMetadata(m) => write!(f, "bad metadata: {m}"),
            Error::InvalidParam(m) => write!(f, "invalid parameter: {m}"),
            Error::ChunkIndex { chunk, nchunks } => {
                write!(f, "chunk {chunk} does not exist (the file has {nchunks})")
            }
            Error::NotEnoughSpace { needed, available } => write!(
                f,
                "not enough space: appending needs {needed} new chunks, the offsets table has room for {available}"
            ),
            Error::MetadataTooLarge { needed, available } => write!(
                f,
                "metadata section too small: {needed} bytes needed, {available} reserved"
            ),
            Error::Compress(e) => write!(f, "compression failed: {e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Read(e) | Error::Write(e) => Some(e),
            Error::BadChunk { source, .. } | Error::Compress(source) => Some(source),
            _ => None,
        }
    }
}

impl From<Error> for crate::Error {
    fn from(e: Error) -> crate::Error {
        e.core()
    }
}

impl From<Error> for io::Error {
    fn from(e: Error) -> io::Error {
        match e {
            Error::Read(e) | Error::Write(e) => e,
            Error::Truncated(_) => io::Error::new(io::ErrorKind::UnexpectedEof, e),
            other => io::Error::other(other),
        }
    }
}

/// Turn a read error into [`Error::Truncated`] when it is an early end of file.
pub(crate) fn read_err(part: Part) -> impl FnOnce(io::Error) -> Error {
    move |e| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            Error::Truncated(part).traced()
        } else {
            Error::Read(e).traced()
        }
    }
}

pub(crate) fn write_err(e: io::Error) -> Error {
    Error::Write(e).traced()
}
