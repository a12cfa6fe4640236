//! The 16- and 32-byte chunk headers (CHUNK.md §2).

use crate::codecs;
use crate::error::{Error, Result};
use crate::params::{filter_id, MAX_FILTERS};

/// Chunk format version written for regular chunks.
pub const VERSION_FORMAT_STABLE: u8 = 5;
/// Chunk format version written for VL-block chunks.
pub const VERSION_FORMAT_VL_BLOCKS: u8 = 6;

/// Length of the basic (Blosc 1.x) header.
pub const MIN_HEADER_LENGTH: usize = 16;
/// Length of the extended (Blosc2) header.
pub const EXTENDED_HEADER_LENGTH: usize = 32;
/// Largest block size.
pub const MAX_BLOCKSIZE: i32 = 536_866_816;
/// Largest input of one chunk.
pub const MAX_BUFFERSIZE: i32 = i32::MAX - 32;
/// The VL-block bit of header byte 30 (the other bits are reserved).
pub const VL_BLOCKS: u8 = 0x01;
/// Overhead of a chunk over its data in the worst case.
pub const MAX_OVERHEAD: usize = 32;
/// Smallest input that is compressed (smaller ones are memcpyed).
pub const MIN_BUFFERSIZE: usize = 32;
/// Largest dictionary.
pub const MAX_DICT_SIZE: usize = 32 * 1024;
/// Smallest useful dictionary.
pub const MIN_USEFUL_DICT: usize = 256;

/// Flag bits of header byte 2.
pub mod flags {
    /// Byte shuffle (basic header) / extended marker.
    pub const DOSHUFFLE: u8 = 0x01;
    /// Memcpyed chunk.
    pub const MEMCPYED: u8 = 0x02;
    /// Bit shuffle (basic header) / extended marker.
    pub const DOBITSHUFFLE: u8 = 0x04;
    /// Delta in the pipeline.
    pub const DODELTA: u8 = 0x08;
    /// Blocks are not split.
    pub const DONT_SPLIT: u8 = 0x10;
}

/// Bits of header byte 31.
pub mod blosc2_flags {
    /// A dictionary follows bstarts.
    pub const USEDICT: u8 = 0x01;
    /// Written by a big-endian machine.
    pub const BIGENDIAN: u8 = 0x02;
    /// Lazy chunk (in-memory only).
    pub const LAZY: u8 = 0x08;
    /// Instrumented codec.
    pub const INSTR_CODEC: u8 = 0x80;
}

/// Special-value codes (byte 31 bits 4–6).
///
/// # Examples
///
/// ```
/// use b2rs::chunk::{self, header::Special, special::special_chunk};
/// use b2rs::{CParams, DParams};
///
/// let cparams = CParams { typesize: 4, ..CParams::default() };
/// let mut buf = [0u8; 64];
/// // 1000 copies of one 4-byte value: a 36-byte chunk
/// let n = special_chunk(&cparams, Special::Value, 4000, Some(&[1, 2, 3, 4]), &mut buf).unwrap();
/// assert_eq!(n, 36);
/// assert_eq!(chunk::Header::parse(&buf[..n]).unwrap().special(), Some(Special::Value));
/// let mut out = vec![0u8; 4000];
/// chunk::decompress(&DParams::default(), &buf[..n], &mut out, None).unwrap();
/// assert!(out.chunks(4).all(|v| v == [1, 2, 3, 4]));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Special {
    /// All zeros.
    Zero = 1,
    /// All NaN (f32 or f64).
    Nan = 2,
    /// A repeated value stored after the header.
    Value = 3,
    /// Uninitialized content.
    Uninit = 4,
}

/// A parsed chunk header.
///
/// # Examples
///
/// ```
/// use b2rs::{chunk, CParams};
///
/// // 10 000 u32 (40 000 bytes) in blocks of 8 KiB: BloscLZ and byte shuffle
/// let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
/// let cparams = CParams { typesize: 4, blocksize: 8192, ..CParams::default() };
/// let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
/// let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
/// let header = chunk::Header::parse(&buf).unwrap();
/// assert_eq!((header.version, header.typesize, header.extended), (5, 4, true));
/// assert_eq!((header.nbytes, header.blocksize, header.cbytes as usize), (40_000, 8192, n));
/// assert_eq!(header.filters, cparams.filters);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Format version (byte 0).
    pub version: u8,
    /// Codec stream version (byte 1).
    pub versionlz: u8,
    /// Flags (byte 2).
    pub flags: u8,
    /// Element size (byte 3).
    pub typesize: u8,
    /// Uncompressed size.
    pub nbytes: i32,
    /// Block size (VL-block chunks: the number of blocks).
    pub blocksize: i32,
    /// Total compressed size, header included.
    pub cbytes: i32,
    /// Whether the 32-byte header is present.
    pub extended: bool,
    /// Filter pipeline (derived from the flags for basic headers).
    pub filters: [u8; MAX_FILTERS],
    /// Public codec id for `flags >> 5 == 6` (byte 22).
    pub udcompcode: u8,
    /// Codec parameter byte (byte 23).
    pub compcode_meta: u8,
    /// Filter parameters.
    pub filters_meta: [u8; MAX_FILTERS],
    /// Byte 30.
    pub blosc2_flags2: u8,
    /// Byte 31.
    pub blosc2_flags: u8,
}

fn le_i32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

impl Header {
    /// Read the first 16 bytes only (for the cheap `cbuffer_sizes`-style queries).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::{chunk, CParams};
    /// #
    /// # // 10 000 u32 (40 000 bytes) in blocks of 8 KiB: BloscLZ and byte shuffle
    /// # let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let cparams = CParams { typesize: 4, blocksize: 8192, ..CParams::default() };
    /// # let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
    /// # let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
    /// use b2rs::Error;
    ///
    /// // (nbytes, cbytes, blocksize)
    /// assert_eq!(chunk::Header::sizes(&buf).unwrap(), (40_000, n as i32, 8192));
    /// assert_eq!(chunk::Header::sizes(&buf[..15]), Err(Error::ReadBuffer));
    /// ```
    pub fn sizes(buf: &[u8]) -> Result<(i32, i32, i32)> {
        if buf.len() < MIN_HEADER_LENGTH {
            return Err(Error::ReadBuffer);
        }
        Ok((le_i32(buf, 4), le_i32(buf, 12), le_i32(buf, 8)))
    }

    /// Parse only the first 16 bytes (no extended fields), checking them like [`Header::parse`].
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::{chunk, CParams};
    /// #
    /// # // 10 000 u32 (40 000 bytes) in blocks of 8 KiB: BloscLZ and byte shuffle
    /// # let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let cparams = CParams { typesize: 4, blocksize: 8192, ..CParams::default() };
    /// # let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
    /// # let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
    /// // the first 16 bytes are enough
    /// let basic = chunk::Header::parse_basic(&buf[..16]).unwrap();
    /// assert!(basic.extended);
    /// assert_eq!((basic.nbytes, basic.blocksize, basic.typesize), (40_000, 8192, 4));
    /// ```
    pub fn parse_basic(buf: &[u8]) -> Result<Header> {
        let b = buf.get(..MIN_HEADER_LENGTH).ok_or(Error::ReadBuffer)?;
        let mut tmp = [0u8; MIN_HEADER_LENGTH];
        tmp.copy_from_slice(b);
        // Pretend the header is basic so that no extended bytes are needed.
        let ext = tmp[2] & (flags::DOSHUFFLE | flags::DOBITSHUFFLE);
        tmp[2] &= !flags::DOBITSHUFFLE;
        let mut h = Header::parse(&tmp)?;
        h.flags = b[2];
        h.extended = ext == (flags::DOSHUFFLE | flags::DOBITSHUFFLE);
        h.blocksize = i32::from_le_bytes([b[8], b[9], b[10], b[11]]);
        Ok(h)
    }

    /// Parse and sanity-check a header (CHUNK.md §2.5), with the checks C-Blosc2 makes when it
    /// reads a header, in its order and with its error codes:
    ///
    /// * fewer than 16 bytes (32 for an extended header): [`Error::ReadBuffer`];
    /// * `cbytes` below the header length, `blocksize` not in `1..=MAX_BLOCKSIZE`, typesize 0:
    ///   [`Error::InvalidHeader`];
    /// * a VL-block chunk that is special or memcpyed, a run-of-value chunk whose value size
    ///   (`cbytes - 32`) is not positive, exceeds `nbytes` or does not divide it, a NaN chunk
    ///   whose `nbytes` is not a multiple of the typesize: [`Error::InvalidHeader`];
    /// * a version above 6 with reserved bits of byte 30 set: [`Error::VersionSupport`];
    /// * the instrumented-codec bit: [`Error::CodecSupport`].
    ///
    /// A negative `nbytes` is accepted: such a chunk decodes to nothing (see
    /// [`Header::data_len`]). Unknown special-value codes (5..7) are left to the readers, which
    /// refuse them when they decode (CHUNK.md §5).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::{chunk, CParams};
    /// #
    /// # // 10 000 u32 (40 000 bytes) in blocks of 8 KiB: BloscLZ and byte shuffle
    /// # let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let cparams = CParams { typesize: 4, blocksize: 8192, ..CParams::default() };
    /// # let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
    /// # let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
    /// use b2rs::Error;
    ///
    /// let header = chunk::Header::parse(&buf[..n]).unwrap();
    /// assert_eq!(header.cbytes as usize, n);
    /// // an extended header needs 32 bytes
    /// assert_eq!(chunk::Header::parse(&buf[..20]), Err(Error::ReadBuffer));
    /// // typesize 0 is invalid
    /// let mut bad = buf[..n].to_vec();
    /// bad[3] = 0;
    /// assert_eq!(chunk::Header::parse(&bad), Err(Error::InvalidHeader));
    /// ```
    pub fn parse(buf: &[u8]) -> Result<Header> {
        if buf.len() < MIN_HEADER_LENGTH {
            crate::trace_error!("Not enough space to read Blosc header.");
            return Err(Error::ReadBuffer);
        }
        let mut h = Header {
            version: buf[0],
            versionlz: buf[1],
            flags: buf[2],
            typesize: buf[3],
            nbytes: le_i32(buf, 4),
            blocksize: le_i32(buf, 8),
            cbytes: le_i32(buf, 12),
            extended: false,
            filters: [0; MAX_FILTERS],
            udcompcode: 0,
            compcode_meta: 0,
            filters_meta: [0; MAX_FILTERS],
            blosc2_flags2: 0,
            blosc2_flags: 0,
        };
        if h.cbytes < MIN_HEADER_LENGTH as i32 {
            crate::trace_error!("`cbytes` is too small to read min header.");
            return Err(Error::InvalidHeader);
        }
        if h.blocksize <= 0 || h.blocksize > MAX_BLOCKSIZE {
            crate::trace_error!("`blocksize` is zero, negative or greater than maximum allowed");
            return Err(Error::InvalidHeader);
        }
        if h.typesize == 0 {
            crate::trace_error!("`typesize` is zero.");
            return Err(Error::InvalidHeader);
        }
        h.extended = h.flags & (flags::DOSHUFFLE | flags::DOBITSHUFFLE)
            == (flags::DOSHUFFLE | flags::DOBITSHUFFLE);
        if h.extended {
            if h.cbytes < EXTENDED_HEADER_LENGTH as i32 {
                crate::trace_error!("`cbytes` is too small to read extended header.");
                return Err(Error::InvalidHeader);
            }
            if buf.len() < EXTENDED_HEADER_LENGTH {
                crate::trace_error!("Not enough space to read Blosc extended header.");
                return Err(Error::ReadBuffer);
            }
            h.filters.copy_from_slice(&buf[16..22]);
            h.udcompcode = buf[22];
            h.compcode_meta = buf[23];
            h.filters_meta.copy_from_slice(&buf[24..30]);
            h.blosc2_flags2 = buf[30];
            h.blosc2_flags = buf[31];
            if h.version == 3 {
                h.filters[5] = 0;
                h.filters_meta[5] = 0;
            }
            if h.is_vlblocks() && h.special_code() != 0 {
                crate::trace_error!("VL-block chunks cannot use special chunk encodings.");
                return Err(Error::InvalidHeader);
            }
            h.check_special_sizes()?;
            if h.is_vlblocks() && h.memcpyed() {
                crate::trace_error!("VL-block chunks cannot be memcpyed.");
                return Err(Error::InvalidHeader);
            }
            if h.version > VERSION_FORMAT_VL_BLOCKS && h.blosc2_flags2 & !VL_BLOCKS != 0 {
                crate::trace_error!("Unknown bits set in blosc2_flags2 of a future version.");
                return Err(Error::VersionSupport);
            }
            if !h.is_vlblocks() && h.nbytes > 0 && h.blocksize > h.nbytes {
                h.blocksize = h.nbytes;
            }
        } else {
            if h.flags & flags::DOSHUFFLE != 0 {
                h.filters[MAX_FILTERS - 1] = filter_id::SHUFFLE;
            }
            if h.flags & flags::DOBITSHUFFLE != 0 {
                h.filters[MAX_FILTERS - 1] = filter_id::BITSHUFFLE;
            }
            if h.flags & flags::DODELTA != 0 {
                h.filters[MAX_FILTERS - 2] = filter_id::DELTA;
            }
            if h.nbytes > 0 && h.blocksize > h.nbytes {
                h.blocksize = h.nbytes;
            }
        }
        Ok(h)
    }

    /// The size rules of special chunks: a run-of-value chunk stores one value of `cbytes - 32`
    /// bytes that must fit `nbytes` a whole number of times; a NaN chunk holds whole elements.
    fn check_special_sizes(&self) -> Result<()> {
        match self.special() {
            Some(Special::Value) => {
                let vsize = self.cbytes - EXTENDED_HEADER_LENGTH as i32;
                if vsize <= 0 {
                    crate::trace_error!("The repeated value of a special chunk is empty");
                    return Err(Error::InvalidHeader);
                }
                if vsize > self.nbytes {
                    crate::trace_error!("The repeated value is larger than `nbytes`");
                    return Err(Error::InvalidHeader);
                }
                if self.nbytes % vsize != 0 {
                    crate::trace_error!("`nbytes` is not a multiple of the repeated value size");
                    return Err(Error::InvalidHeader);
                }
            }
            Some(Special::Nan) if self.nbytes % self.typesize as i32 != 0 => {
                crate::trace_error!("`nbytes` is not a multiple of typesize");
                return Err(Error::InvalidHeader);
            }
            _ => {}
        }
        Ok(())
    }

    /// The number of bytes the chunk decodes to: `nbytes`, or 0 when `nbytes` is negative
    /// (C-Blosc2 reads such a chunk as one without blocks).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::{chunk, CParams};
    /// #
    /// # // 10 000 u32 (40 000 bytes) in blocks of 8 KiB: BloscLZ and byte shuffle
    /// # let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let cparams = CParams { typesize: 4, blocksize: 8192, ..CParams::default() };
    /// # let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
    /// # let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
    /// let mut header = chunk::Header::parse(&buf).unwrap();
    /// assert_eq!(header.data_len(), 40_000);
    /// header.nbytes = -5;
    /// assert_eq!(header.data_len(), 0);
    /// ```
    pub fn data_len(&self) -> usize {
        self.nbytes.max(0) as usize
    }

    /// Header length in bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::{chunk, CParams};
    /// #
    /// # // 10 000 u32 (40 000 bytes) in blocks of 8 KiB: BloscLZ and byte shuffle
    /// # let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let cparams = CParams { typesize: 4, blocksize: 8192, ..CParams::default() };
    /// # let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
    /// # let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
    /// assert_eq!(chunk::Header::parse(&buf).unwrap().header_len(), 32);
    /// ```
    pub fn header_len(&self) -> usize {
        if self.extended {
            EXTENDED_HEADER_LENGTH
        } else {
            MIN_HEADER_LENGTH
        }
    }

    /// Whether the data are stored uncompressed after the header.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::{chunk, CParams};
    ///
    /// // below MIN_BUFFERSIZE (32 bytes) the input is stored as is
    /// let mut buf = [0u8; 64];
    /// let n = chunk::compress(&CParams { typesize: 1, ..CParams::default() }, b"tiny", &mut buf).unwrap();
    /// let header = chunk::Header::parse(&buf[..n]).unwrap();
    /// assert!(header.memcpyed());
    /// assert_eq!(n, header.header_len() + 4);
    /// ```
    pub fn memcpyed(&self) -> bool {
        self.flags & flags::MEMCPYED != 0
    }

    /// Whether blocks are not split into streams.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::{chunk, CParams};
    /// #
    /// # // 10 000 u32 (40 000 bytes) in blocks of 8 KiB: BloscLZ and byte shuffle
    /// # let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let cparams = CParams { typesize: 4, blocksize: 8192, ..CParams::default() };
    /// # let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
    /// # let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
    /// use b2rs::SplitMode;
    ///
    /// assert!(!chunk::Header::parse(&buf).unwrap().dont_split());
    /// let never = CParams { splitmode: SplitMode::Never, ..cparams };
    /// let n = chunk::compress(&never, &data, &mut buf).unwrap();
    /// assert!(chunk::Header::parse(&buf[..n]).unwrap().dont_split());
    /// ```
    pub fn dont_split(&self) -> bool {
        self.flags & flags::DONT_SPLIT != 0
    }

    /// The raw special-value code (byte 31 bits 4–6; 0 for basic headers). Codes above
    /// [`Special::Uninit`] are undefined.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::chunk::{self, header::Special, special::special_chunk};
    /// use b2rs::CParams;
    ///
    /// let mut buf = [0u8; 32];
    /// let n = special_chunk(&CParams::default(), Special::Nan, 800, None, &mut buf).unwrap();
    /// assert_eq!(chunk::Header::parse(&buf[..n]).unwrap().special_code(), Special::Nan as u8);
    /// ```
    pub fn special_code(&self) -> u8 {
        if !self.extended {
            return 0;
        }
        (self.blosc2_flags >> 4) & 0x7
    }

    /// The special-value code, if it is a defined one.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::{chunk, CParams};
    /// #
    /// # // 10 000 u32 (40 000 bytes) in blocks of 8 KiB: BloscLZ and byte shuffle
    /// # let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let cparams = CParams { typesize: 4, blocksize: 8192, ..CParams::default() };
    /// # let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
    /// # let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
    /// use b2rs::chunk::{header::Special, special::special_chunk};
    ///
    /// assert_eq!(chunk::Header::parse(&buf).unwrap().special(), None);
    /// let n = special_chunk(&cparams, Special::Zero, 400, None, &mut buf).unwrap();
    /// assert_eq!(chunk::Header::parse(&buf[..n]).unwrap().special(), Some(Special::Zero));
    /// ```
    pub fn special(&self) -> Option<Special> {
        match self.special_code() {
            1 => Some(Special::Zero),
            2 => Some(Special::Nan),
            3 => Some(Special::Value),
            4 => Some(Special::Uninit),
            _ => None,
        }
    }

    /// Whether this is a VL-block chunk.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::{chunk, CParams};
    /// #
    /// # // 10 000 u32 (40 000 bytes) in blocks of 8 KiB: BloscLZ and byte shuffle
    /// # let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let cparams = CParams { typesize: 4, blocksize: 8192, ..CParams::default() };
    /// # let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
    /// # let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
    /// assert!(!chunk::Header::parse(&buf).unwrap().is_vlblocks());
    /// let n = chunk::vlcompress(&cparams, &[&[1u8; 8], &[2u8; 12]], &mut buf).unwrap();
    /// assert!(chunk::Header::parse(&buf[..n]).unwrap().is_vlblocks());
    /// ```
    pub fn is_vlblocks(&self) -> bool {
        self.extended && self.blosc2_flags2 & VL_BLOCKS != 0
    }

    /// Whether the chunk holds codec instrumentation records (`cparams.instr_codec`): its
    /// streams decode without the filter pipeline.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::{chunk, CParams};
    ///
    /// let data: Vec<u8> = (0..4000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
    /// let cparams = CParams { typesize: 4, instr_codec: true, ..CParams::default() };
    /// let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
    /// assert!(chunk::Header::parse(&buf[..n]).unwrap().instrumented());
    /// let n = chunk::compress(&CParams { typesize: 4, ..CParams::default() }, &data, &mut buf).unwrap();
    /// assert!(!chunk::Header::parse(&buf[..n]).unwrap().instrumented());
    /// ```
    pub fn instrumented(&self) -> bool {
        self.extended && self.blosc2_flags & blosc2_flags::INSTR_CODEC != 0
    }

    /// Whether a dictionary is stored (never for memcpyed or special chunks).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::{chunk, CParams};
    /// #
    /// # // 10 000 u32 (40 000 bytes) in blocks of 8 KiB: BloscLZ and byte shuffle
    /// # let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let cparams = CParams { typesize: 4, blocksize: 8192, ..CParams::default() };
    /// # let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
    /// # let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
    /// use b2rs::codecs;
    ///
    /// assert!(!chunk::Header::parse(&buf).unwrap().has_dict());
    /// // a Zstd dictionary built from the chunk's own blocks
    /// let text: Vec<u8> = (0..2000u32).flat_map(|i| format!("row {} value {};", i, i % 13).into_bytes()).collect();
    /// let dict = CParams { compcode: codecs::ZSTD, use_dict: true, typesize: 1, blocksize: 4096, ..CParams::default() };
    /// let mut out = vec![0u8; text.len() + chunk::header::MAX_OVERHEAD];
    /// let m = chunk::compress(&dict, &text, &mut out).unwrap();
    /// assert!(chunk::Header::parse(&out[..m]).unwrap().has_dict());
    /// ```
    pub fn has_dict(&self) -> bool {
        self.extended
            && self.blosc2_flags & blosc2_flags::USEDICT != 0
            && !self.memcpyed()
            && self.special_code() == 0
    }

    /// Whether this is a lazy chunk.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::{chunk, CParams};
    /// #
    /// # // 10 000 u32 (40 000 bytes) in blocks of 8 KiB: BloscLZ and byte shuffle
    /// # let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let cparams = CParams { typesize: 4, blocksize: 8192, ..CParams::default() };
    /// # let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
    /// # let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
    /// assert!(!chunk::Header::parse(&buf).unwrap().is_lazy());
    /// ```
    pub fn is_lazy(&self) -> bool {
        self.extended && self.blosc2_flags & blosc2_flags::LAZY != 0
    }

    /// The chunk-format code (`flags >> 5`).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::{chunk, CParams};
    /// #
    /// # // 10 000 u32 (40 000 bytes) in blocks of 8 KiB: BloscLZ and byte shuffle
    /// # let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let cparams = CParams { typesize: 4, blocksize: 8192, ..CParams::default() };
    /// # let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
    /// # let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
    /// use b2rs::codecs;
    ///
    /// assert_eq!(chunk::Header::parse(&buf).unwrap().format(), codecs::format_of(codecs::BLOSCLZ));
    /// ```
    pub fn format(&self) -> u8 {
        self.flags >> 5
    }

    /// The public codec id used by the chunk. With format 6 the id in byte 22 names a plugin or
    /// user codec (looked up in the registry when decoding); a built-in id there is refused
    /// ([`Error::CodecSupport`]), as C-Blosc2 only searches its registered codecs.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::{chunk, CParams};
    /// #
    /// # // 10 000 u32 (40 000 bytes) in blocks of 8 KiB: BloscLZ and byte shuffle
    /// # let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let cparams = CParams { typesize: 4, blocksize: 8192, ..CParams::default() };
    /// # let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
    /// # let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
    /// use b2rs::codecs;
    ///
    /// assert_eq!(chunk::Header::parse(&buf).unwrap().codec_id(), Ok(codecs::BLOSCLZ));
    /// let zstd = CParams { compcode: codecs::ZSTD, ..cparams };
    /// let n = chunk::compress(&zstd, &data, &mut buf).unwrap();
    /// assert_eq!(chunk::Header::parse(&buf[..n]).unwrap().codec_id(), Ok(codecs::ZSTD));
    /// ```
    pub fn codec_id(&self) -> Result<u8> {
        let format = self.format();
        if format == codecs::UDCODEC_FORMAT && self.extended {
            if codecs::is_builtin(self.udcompcode) {
                crate::trace_error!(
                    "User-defined compressor codec {} not found during decompression",
                    self.udcompcode
                );
                return Err(Error::CodecSupport);
            }
            return Ok(self.udcompcode);
        }
        if format == 1 && self.extended && self.udcompcode == codecs::LZ4HC {
            return Ok(codecs::LZ4HC);
        }
        codecs::id_of_format(format).ok_or_else(|| {
            crate::trace_error!("Codec format {} is not supported.", format);
            Error::CodecSupport
        })
    }

    /// Number of blocks (for VL-block chunks, the stored count; none when `nbytes` is negative).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::{chunk, CParams};
    /// #
    /// # // 10 000 u32 (40 000 bytes) in blocks of 8 KiB: BloscLZ and byte shuffle
    /// # let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let cparams = CParams { typesize: 4, blocksize: 8192, ..CParams::default() };
    /// # let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
    /// # let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
    /// // 40 000 bytes in blocks of 8192
    /// assert_eq!(chunk::Header::parse(&buf).unwrap().nblocks(), 5);
    /// ```
    pub fn nblocks(&self) -> usize {
        if self.is_vlblocks() {
            return self.blocksize as usize;
        }
        self.data_len().div_ceil(self.blocksize as usize)
    }

    /// Whether the pipeline holds a delta filter.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::{chunk, CParams};
    /// #
    /// # // 10 000 u32 (40 000 bytes) in blocks of 8 KiB: BloscLZ and byte shuffle
    /// # let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let cparams = CParams { typesize: 4, blocksize: 8192, ..CParams::default() };
    /// # let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
    /// # let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
    /// use b2rs::params::filter_id;
    ///
    /// assert!(!chunk::Header::parse(&buf).unwrap().has_delta());
    /// let mut delta = cparams.clone();
    /// delta.filters[4] = filter_id::DELTA;
    /// let n = chunk::compress(&delta, &data, &mut buf).unwrap();
    /// assert!(chunk::Header::parse(&buf[..n]).unwrap().has_delta());
    /// ```
    pub fn has_delta(&self) -> bool {
        self.filters.contains(&filter_id::DELTA)
    }

    /// Serialise into `out` (16 or 32 bytes depending on `extended`).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::{chunk, CParams};
    /// #
    /// # // 10 000 u32 (40 000 bytes) in blocks of 8 KiB: BloscLZ and byte shuffle
    /// # let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// # let cparams = CParams { typesize: 4, blocksize: 8192, ..CParams::default() };
    /// # let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
    /// # let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
    /// let mut header = chunk::Header::parse(&buf).unwrap();
    /// let mut out = [0u8; 32];
    /// header.write(&mut out);
    /// assert_eq!(out, buf[..32]);
    /// header.nbytes = 12_345;
    /// header.write(&mut out);
    /// assert_eq!(chunk::Header::parse(&out).unwrap().nbytes, 12_345);
    /// ```
    pub fn write(&self, out: &mut [u8]) {
        out[0] = self.version;
        out[1] = self.versionlz;
        out[2] = self.flags;
        out[3] = self.typesize;
        out[4..8].copy_from_slice(&self.nbytes.to_le_bytes());
        out[8..12].copy_from_slice(&self.blocksize.to_le_bytes());
        out[12..16].copy_from_slice(&self.cbytes.to_le_bytes());
        if self.extended {
            out[16..22].copy_from_slice(&self.filters);
            out[22] = self.udcompcode;
            out[23] = self.compcode_meta;
            out[24..30].copy_from_slice(&self.filters_meta);
            out[30] = self.blosc2_flags2;
            out[31] = self.blosc2_flags;
        }
    }
}
