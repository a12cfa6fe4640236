//! The frame header (FRAME.md §2–§3): the fixed 87 bytes read at fixed positions, followed by the
//! metalayers section.
//!
//! Every integer is big-endian and written with one exact msgpack encoding, because readers
//! (C-Blosc2 included) look at fixed offsets instead of parsing msgpack.

use super::{FrameParams, Metalayer, MAX_METALAYERS, MAX_NAME_LEN};
use crate::error::{Error, Result};
use crate::params::SplitMode;

/// Length of the fixed part of the header.
pub const HEADER_MINLEN: usize = 87;
/// Length of the header of a frame without metalayers.
pub const HEADER_NOMETA_LEN: usize = 97;

/// `9E A8 "b2frame\0"`: fixarray of 14 elements, then the magic as a fixstr of 8 bytes.
pub const MAGIC: [u8; 10] = [0x9E, 0xA8, b'b', b'2', b'f', b'r', b'a', b'm', b'e', 0];

pub(crate) const POS_HEADER_LEN: usize = 11;
pub(crate) const POS_FRAME_LEN: usize = 16;
const POS_FLAGS: usize = 25;
const POS_TYPE: usize = 26;
const POS_CODECS: usize = 27;
const POS_OTHER_FLAGS: usize = 28;
const POS_NBYTES: usize = 30;
const POS_CBYTES: usize = 39;
const POS_TYPESIZE: usize = 48;
const POS_BLOCKSIZE: usize = 53;
const POS_CHUNKSIZE: usize = 58;
const POS_NTHREADS_C: usize = 63;
const POS_NTHREADS_D: usize = 66;
const POS_HAS_VLMETA: usize = 68;
const POS_FILTER_PIPELINE: usize = 70;
const POS_FILTERS: usize = 71;
const POS_UDCODEC: usize = 77;
const POS_CODEC_META: usize = 78;
const POS_FILTERS_META: usize = 79;
const POS_OTHER_FLAGS2: usize = 85;
/// Where the metalayers section starts (its `93` marker).
const POS_METALAYERS: usize = 87;

/// General flags, bits 0–3: frame format version written for regular frames.
pub const VERSION_FRAME_FORMAT_RC1: u8 = 2;
/// Frame format version written for variable-size or VL-block frames (and the newest read).
pub const VERSION_FRAME_FORMAT: u8 = 3;
/// General flags bits 4–5 = 1: 64-bit offsets.
const FLAG_OFFSETS_64: u8 = 0x10;
/// General flags bit 6: chunks have variable sizes.
const FLAG_VARIABLE_CHUNKS: u8 = 0x40;
/// General flags bit 7: chunks are VL-block chunks.
const FLAG_VL_BLOCKS: u8 = 0x80;

/// Frame type byte: contiguous frame.
pub const TYPE_CONTIGUOUS: u8 = 0;
/// Frame type byte: sparse frame (directory).
pub const TYPE_DIRECTORY: u8 = 1;

/// The codec nibble meaning "read the codec id from byte 77".
const UDCODEC_NIBBLE: u8 = 6;

/// The values of the fixed part of a header.
///
/// # Examples
///
/// ```
/// # use std::sync::Arc;
/// # use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
/// # use b2rs::{chunk, CParams, DParams};
/// #
/// # // an in-memory frame holding 3 chunks of 1000 bytes: 1s, 2s, 3s
/// # let cparams = CParams { typesize: 1, ..CParams::default() };
/// # let params = FrameParams::from_cparams(&cparams, 1);
/// # let chunk_of = |b: u8| {
/// #     let mut buf = vec![0u8; 1000 + chunk::header::MAX_OVERHEAD];
/// #     let n = chunk::compress(&cparams, &[b; 1000], &mut buf).unwrap();
/// #     buf.truncate(n);
/// #     buf
/// # };
/// # let mut frame = Frame::create(Location::Memory, &params, Arc::new(StdIo)).unwrap();
/// # for b in 1..=3 {
/// #     frame.append_chunk(&chunk_of(b)).unwrap();
/// # }
/// # let first_byte = |frame: &Frame, n: i64| {
/// #     let mut out = vec![0u8; 1000];
/// #     chunk::decompress(&DParams::default(), &frame.get_chunk(n).unwrap(), &mut out, None).unwrap();
/// #     out[0]
/// # };
/// use b2rs::frame::header::FixedHeader;
///
/// let bytes = frame.to_bytes().unwrap();
/// let h = FixedHeader::parse(&bytes, false).unwrap();
/// assert_eq!((h.nbytes, h.chunksize, h.frame_type), (3000, 1000, 0));
/// assert_eq!(h.frame_len as usize, bytes.len());
/// assert_eq!(h.header_len as i64, frame.header_len());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct FixedHeader {
    /// Length of the whole header, metalayers included.
    pub header_len: i32,
    /// Length of the whole frame (of the index file for sparse frames).
    pub frame_len: i64,
    /// Frame type (0 contiguous, 1 directory).
    pub frame_type: u8,
    /// Total uncompressed size.
    pub nbytes: i64,
    /// Size of the chunks section (sum of the stored chunk sizes).
    pub cbytes: i64,
    /// Uncompressed size of every chunk but possibly the last; 0 variable, -1 not yet known.
    pub chunksize: i32,
    /// The chunks are VL-block chunks.
    pub vl_blocks: bool,
    /// The frame has vlmetalayers (byte 68).
    pub has_vlmeta: bool,
    /// Super-chunk parameters.
    pub params: FrameParams,
}

fn be_i16(b: &[u8], at: usize) -> i16 {
    i16::from_be_bytes([b[at], b[at + 1]])
}

fn be_i32(b: &[u8], at: usize) -> i32 {
    i32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn be_i64(b: &[u8], at: usize) -> i64 {
    let mut v = [0u8; 8];
    v.copy_from_slice(&b[at..at + 8]);
    i64::from_be_bytes(v)
}

/// `frame_len` of a header whose first bytes are `b` (at least 24 bytes).
///
/// # Examples
///
/// ```
/// # use std::sync::Arc;
/// # use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
/// # use b2rs::{chunk, CParams, DParams};
/// #
/// # // an in-memory frame holding 3 chunks of 1000 bytes: 1s, 2s, 3s
/// # let cparams = CParams { typesize: 1, ..CParams::default() };
/// # let params = FrameParams::from_cparams(&cparams, 1);
/// # let chunk_of = |b: u8| {
/// #     let mut buf = vec![0u8; 1000 + chunk::header::MAX_OVERHEAD];
/// #     let n = chunk::compress(&cparams, &[b; 1000], &mut buf).unwrap();
/// #     buf.truncate(n);
/// #     buf
/// # };
/// # let mut frame = Frame::create(Location::Memory, &params, Arc::new(StdIo)).unwrap();
/// # for b in 1..=3 {
/// #     frame.append_chunk(&chunk_of(b)).unwrap();
/// # }
/// # let first_byte = |frame: &Frame, n: i64| {
/// #     let mut out = vec![0u8; 1000];
/// #     chunk::decompress(&DParams::default(), &frame.get_chunk(n).unwrap(), &mut out, None).unwrap();
/// #     out[0]
/// # };
/// use b2rs::frame::header::frame_len_of;
///
/// let bytes = frame.to_bytes().unwrap();
/// assert_eq!(frame_len_of(&bytes).unwrap(), bytes.len() as i64);
/// assert!(frame_len_of(&bytes[..10]).is_err());
/// ```
pub fn frame_len_of(b: &[u8]) -> Result<i64> {
    if b.len() < POS_FRAME_LEN + 8 {
        return Err(Error::ReadBuffer);
    }
    Ok(be_i64(b, POS_FRAME_LEN))
}

impl FixedHeader {
    /// Parse and check the fixed part (FRAME.md §11 steps 1–2). `sparse` says which frame type
    /// the caller expects.
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// # use b2rs::{chunk, CParams, DParams};
    /// #
    /// # // an in-memory frame holding 3 chunks of 1000 bytes: 1s, 2s, 3s
    /// # let cparams = CParams { typesize: 1, ..CParams::default() };
    /// # let params = FrameParams::from_cparams(&cparams, 1);
    /// # let chunk_of = |b: u8| {
    /// #     let mut buf = vec![0u8; 1000 + chunk::header::MAX_OVERHEAD];
    /// #     let n = chunk::compress(&cparams, &[b; 1000], &mut buf).unwrap();
    /// #     buf.truncate(n);
    /// #     buf
    /// # };
    /// # let mut frame = Frame::create(Location::Memory, &params, Arc::new(StdIo)).unwrap();
    /// # for b in 1..=3 {
    /// #     frame.append_chunk(&chunk_of(b)).unwrap();
    /// # }
    /// # let first_byte = |frame: &Frame, n: i64| {
    /// #     let mut out = vec![0u8; 1000];
    /// #     chunk::decompress(&DParams::default(), &frame.get_chunk(n).unwrap(), &mut out, None).unwrap();
    /// #     out[0]
    /// # };
    /// use b2rs::frame::header::FixedHeader;
    ///
    /// let bytes = frame.to_bytes().unwrap();
    /// assert_eq!(FixedHeader::parse(&bytes, false).unwrap().params.typesize, 1);
    /// // a contiguous frame is not a sparse one
    /// assert!(FixedHeader::parse(&bytes, true).is_err());
    /// ```
    pub fn parse(b: &[u8], sparse: bool) -> Result<FixedHeader> {
        let b = b.get(..HEADER_MINLEN).ok_or_else(|| {
            crate::trace_error!("The frame header is shorter than {} bytes", HEADER_MINLEN);
            Error::ReadBuffer
        })?;
        if b[..MAGIC.len()] != MAGIC {
            // C-Blosc2 never reads them: a damaged magic does not cost the frame
            crate::trace_warning!("The frame does not start with the b2frame magic");
        }
        let flags = b[POS_FLAGS];
        let version = flags & 0x0F;
        if version > VERSION_FRAME_FORMAT {
            crate::trace_error!("Unsupported frame format version: {}", version);
            return Err(Error::VersionSupport);
        }
        let frame_type = b[POS_TYPE];
        let expected = if sparse {
            TYPE_DIRECTORY
        } else {
            TYPE_CONTIGUOUS
        };
        if frame_type != expected {
            crate::trace_error!("Frame type {} where {} was expected", frame_type, expected);
            return Err(Error::FrameType);
        }
        let header_len = be_i32(b, POS_HEADER_LEN);
        let frame_len = be_i64(b, POS_FRAME_LEN);
        if (header_len as i64) < HEADER_MINLEN as i64 {
            crate::trace_error!("Header length is smaller than the minimum allowed");
            return Err(Error::InvalidHeader);
        }
        if header_len as i64 > frame_len {
            crate::trace_error!("Header length exceeds the length of the frame");
            return Err(Error::InvalidHeader);
        }
        let typesize = be_i32(b, POS_TYPESIZE);
        if typesize <= 0 {
            crate::trace_error!("`typesize` cannot be zero or negative");
            return Err(Error::InvalidHeader);
        }
        let nfilters = b[POS_FILTER_PIPELINE] as usize;
        if nfilters > crate::params::MAX_FILTERS {
            crate::trace_error!("Too many filters in the frame header");
            return Err(Error::InvalidHeader);
        }
        let mut filters = [0u8; 6];
        let mut filters_meta = [0u8; 6];
        filters[..nfilters].copy_from_slice(&b[POS_FILTERS..POS_FILTERS + nfilters]);
        filters_meta[..nfilters].copy_from_slice(&b[POS_FILTERS_META..POS_FILTERS_META + nfilters]);
        let codecs = b[POS_CODECS];
        let mut compcode = codecs & 0x0F;
        if compcode == UDCODEC_NIBBLE {
            compcode = b[POS_UDCODEC];
        }
        let params = FrameParams {
            typesize,
            blocksize: be_i32(b, POS_BLOCKSIZE),
            compcode,
            compcode_meta: b[POS_CODEC_META],
            clevel: codecs >> 4,
            splitmode: SplitMode::from_i32((b[POS_OTHER_FLAGS] & 0x03) as i32 + 1),
            filters,
            filters_meta,
            use_dict: b[POS_OTHER_FLAGS2] & 0x01 != 0,
            nthreads_comp: be_i16(b, POS_NTHREADS_C),
            nthreads_decomp: be_i16(b, POS_NTHREADS_D),
        };
        let nbytes = be_i64(b, POS_NBYTES);
        let cbytes = be_i64(b, POS_CBYTES);
        if nbytes < 0 || cbytes < 0 {
            crate::trace_error!("Negative sizes in the frame header");
            return Err(Error::InvalidHeader);
        }
        Ok(FixedHeader {
            header_len,
            frame_len,
            frame_type,
            nbytes,
            cbytes,
            chunksize: be_i32(b, POS_CHUNKSIZE),
            vl_blocks: flags & FLAG_VL_BLOCKS != 0,
            has_vlmeta: b[POS_HAS_VLMETA] == 0xC3,
            params,
        })
    }

    /// The general flags byte for this header (FRAME.md §2).
    fn general_flags(&self) -> u8 {
        let variable = self.chunksize == 0;
        let mut flags = if variable || self.vl_blocks {
            VERSION_FRAME_FORMAT
        } else {
            VERSION_FRAME_FORMAT_RC1
        };
        flags |= FLAG_OFFSETS_64;
        if variable {
            flags |= FLAG_VARIABLE_CHUNKS;
        }
        if self.vl_blocks {
            flags |= FLAG_VL_BLOCKS;
        }
        flags
    }

    /// Encode the whole header (fixed part plus the metalayers section). `header_len` is taken
    /// from the encoding, not from `self`.
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// # use b2rs::{chunk, CParams, DParams};
    /// #
    /// # // an in-memory frame holding 3 chunks of 1000 bytes: 1s, 2s, 3s
    /// # let cparams = CParams { typesize: 1, ..CParams::default() };
    /// # let params = FrameParams::from_cparams(&cparams, 1);
    /// # let chunk_of = |b: u8| {
    /// #     let mut buf = vec![0u8; 1000 + chunk::header::MAX_OVERHEAD];
    /// #     let n = chunk::compress(&cparams, &[b; 1000], &mut buf).unwrap();
    /// #     buf.truncate(n);
    /// #     buf
    /// # };
    /// # let mut frame = Frame::create(Location::Memory, &params, Arc::new(StdIo)).unwrap();
    /// # for b in 1..=3 {
    /// #     frame.append_chunk(&chunk_of(b)).unwrap();
    /// # }
    /// # let first_byte = |frame: &Frame, n: i64| {
    /// #     let mut out = vec![0u8; 1000];
    /// #     chunk::decompress(&DParams::default(), &frame.get_chunk(n).unwrap(), &mut out, None).unwrap();
    /// #     out[0]
    /// # };
    /// use b2rs::frame::header::{parse_metalayers, FixedHeader};
    /// use b2rs::frame::Metalayer;
    ///
    /// let bytes = frame.to_bytes().unwrap();
    /// let h = FixedHeader::parse(&bytes, false).unwrap();
    /// let meta = [Metalayer { name: "units".into(), content: b"m/s".to_vec() }];
    /// let encoded = h.encode(&meta).unwrap();
    /// assert_eq!(FixedHeader::parse(&encoded, false).unwrap().nbytes, 3000);
    /// assert_eq!(parse_metalayers(&encoded).unwrap(), meta);
    /// ```
    pub fn encode(&self, metalayers: &[Metalayer]) -> Result<Vec<u8>> {
        check_metalayers(metalayers)?;
        let p = &self.params;
        let mut h = vec![0u8; HEADER_MINLEN];
        h[..MAGIC.len()].copy_from_slice(&MAGIC);
        h[10] = 0xD2;
        h[15] = 0xCF;
        h[POS_FRAME_LEN..POS_FRAME_LEN + 8].copy_from_slice(&self.frame_len.to_be_bytes());
        h[24] = 0xA4;
        h[POS_FLAGS] = self.general_flags();
        h[POS_TYPE] = self.frame_type;
        let nibble = if p.compcode >= UDCODEC_NIBBLE {
            UDCODEC_NIBBLE
        } else {
            p.compcode
        };
        h[POS_CODECS] = nibble.wrapping_add(p.clevel << 4);
        h[POS_OTHER_FLAGS] = (p.splitmode as u8).wrapping_sub(1) & 0x03;
        h[POS_NBYTES - 1] = 0xD3;
        h[POS_NBYTES..POS_NBYTES + 8].copy_from_slice(&self.nbytes.to_be_bytes());
        h[POS_CBYTES - 1] = 0xD3;
        h[POS_CBYTES..POS_CBYTES + 8].copy_from_slice(&self.cbytes.to_be_bytes());
        h[POS_TYPESIZE - 1] = 0xD2;
        h[POS_TYPESIZE..POS_TYPESIZE + 4].copy_from_slice(&p.typesize.to_be_bytes());
        h[POS_BLOCKSIZE - 1] = 0xD2;
        h[POS_BLOCKSIZE..POS_BLOCKSIZE + 4].copy_from_slice(&p.blocksize.to_be_bytes());
        h[POS_CHUNKSIZE - 1] = 0xD2;
        h[POS_CHUNKSIZE..POS_CHUNKSIZE + 4].copy_from_slice(&self.chunksize.to_be_bytes());
        h[POS_NTHREADS_C - 1] = 0xD1;
        h[POS_NTHREADS_C..POS_NTHREADS_C + 2].copy_from_slice(&p.nthreads_comp.to_be_bytes());
        h[POS_NTHREADS_D - 1] = 0xD1;
        h[POS_NTHREADS_D..POS_NTHREADS_D + 2].copy_from_slice(&p.nthreads_decomp.to_be_bytes());
        h[POS_HAS_VLMETA] = if self.has_vlmeta { 0xC3 } else { 0xC2 };
        h[POS_FILTER_PIPELINE - 1] = 0xD8;
        h[POS_FILTER_PIPELINE] = crate::params::MAX_FILTERS as u8;
        h[POS_FILTERS..POS_FILTERS + 6].copy_from_slice(&p.filters);
        h[POS_UDCODEC] = p.compcode;
        h[POS_CODEC_META] = p.compcode_meta;
        h[POS_FILTERS_META..POS_FILTERS_META + 6].copy_from_slice(&p.filters_meta);
        h[POS_OTHER_FLAGS2] = u8::from(p.use_dict);

        // Metalayers section: 93 CD idx DE n {name D2 offset}* DC n {C6 len content}*
        let n = metalayers.len() as u16;
        h.push(0x93);
        h.push(0xCD);
        h.extend_from_slice(&[0, 0]); // idx_size, patched below
        h.push(0xDE);
        h.extend_from_slice(&n.to_be_bytes());
        let mut offset_slots = Vec::with_capacity(metalayers.len());
        for m in metalayers {
            h.push(0xA0 + m.name.len() as u8);
            h.extend_from_slice(m.name.as_bytes());
            h.push(0xD2);
            offset_slots.push(h.len());
            h.extend_from_slice(&[0; 4]);
        }
        let idx_size = h.len() - POS_METALAYERS;
        let idx_size = u16::try_from(idx_size).map_err(|_| Error::InvalidParam)?;
        h[POS_METALAYERS + 2..POS_METALAYERS + 4].copy_from_slice(&idx_size.to_be_bytes());
        h.push(0xDC);
        h.extend_from_slice(&n.to_be_bytes());
        for (m, slot) in metalayers.iter().zip(offset_slots) {
            let at = i32::try_from(h.len()).map_err(|_| Error::InvalidParam)?;
            h[slot..slot + 4].copy_from_slice(&at.to_be_bytes());
            let len = u32::try_from(m.content.len()).map_err(|_| Error::InvalidParam)?;
            h.push(0xC6);
            h.extend_from_slice(&len.to_be_bytes());
            h.extend_from_slice(&m.content);
        }
        let header_len = i32::try_from(h.len()).map_err(|_| {
            crate::trace_error!("The metalayers are too large for a frame header");
            Error::InvalidParam
        })?;
        h[POS_HEADER_LEN - 1] = 0xD2;
        h[POS_HEADER_LEN..POS_HEADER_LEN + 4].copy_from_slice(&header_len.to_be_bytes());
        Ok(h)
    }
}

/// Check the writer's limits on metalayers: at most 16, names of 1..=31 bytes (that names are
/// unique is checked where metalayers are added, [`crate::frame::Frame::add_metalayer`]).
///
/// # Examples
///
/// ```
/// use b2rs::frame::header::check_metalayers;
/// use b2rs::frame::Metalayer;
///
/// let m = |name: &str| Metalayer { name: name.into(), content: vec![1] };
/// assert!(check_metalayers(&[m("a"), m("b")]).is_ok());
/// assert!(check_metalayers(&[m("a"), m(&"b".repeat(32))]).is_err()); // name too long
/// assert!(check_metalayers(&(0..17).map(|i| m(&i.to_string())).collect::<Vec<_>>()).is_err());
/// ```
pub fn check_metalayers(metalayers: &[Metalayer]) -> Result<()> {
    if metalayers.len() > MAX_METALAYERS {
        crate::trace_error!("Too many metalayers (at most {})", MAX_METALAYERS);
        return Err(Error::InvalidParam);
    }
    for m in metalayers {
        check_name(&m.name)?;
    }
    Ok(())
}

/// Check a (vl)metalayer name: 1 to 31 bytes.
///
/// # Examples
///
/// ```
/// use b2rs::frame::header::check_name;
///
/// assert!(check_name("b2nd").is_ok());
/// assert!(check_name("").is_err());
/// assert!(check_name(&"x".repeat(32)).is_err());
/// ```
pub fn check_name(name: &str) -> Result<()> {
    if name.is_empty() || name.len() > MAX_NAME_LEN {
        crate::trace_error!("Metalayer names must have 1 to {} bytes", MAX_NAME_LEN);
        return Err(Error::InvalidParam);
    }
    Ok(())
}

/// Read a msgpack-indexed list of named binary values: the `DE n {name D2 offset}*` map at
/// `map_pos` of `buf`, offsets relative to the start of `buf`, values `C6 len content`.
/// Shared by the header metalayers and the trailer vlmetalayers. `max` bounds the count.
pub(crate) fn parse_named_values(buf: &[u8], map_pos: usize, max: usize) -> Result<Vec<Metalayer>> {
    let byte = |at: usize| buf.get(at).copied().ok_or(Error::ReadBuffer);
    let be_u16 = |at: usize| -> Result<u16> {
        let s = buf.get(at..at + 2).ok_or(Error::ReadBuffer)?;
        Ok(u16::from_be_bytes([s[0], s[1]]))
    };
    let be_i32 = |at: usize| -> Result<i32> {
        let s = buf.get(at..at + 4).ok_or(Error::ReadBuffer)?;
        Ok(i32::from_be_bytes([s[0], s[1], s[2], s[3]]))
    };
    if byte(map_pos)? != 0xDE {
        crate::trace_error!("Bad marker for the metalayers index");
        return Err(Error::Data);
    }
    let n = be_u16(map_pos + 1)? as usize;
    if n > max {
        crate::trace_error!("Too many metalayers: {}", n);
        return Err(Error::Data);
    }
    let mut pos = map_pos + 3;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let marker = byte(pos)?;
        if marker & 0xE0 != 0xA0 {
            crate::trace_error!("Bad metalayer name marker");
            return Err(Error::Data);
        }
        let nslen = (marker & 0x1F) as usize;
        let name = buf.get(pos + 1..pos + 1 + nslen).ok_or(Error::ReadBuffer)?;
        let name = String::from_utf8_lossy(name).into_owned();
        pos += 1 + nslen;
        if byte(pos)? != 0xD2 {
            crate::trace_error!("Bad metalayer offset marker");
            return Err(Error::Data);
        }
        let offset = be_i32(pos + 1)?;
        pos += 5;
        if offset < 0 || offset as usize >= buf.len() {
            crate::trace_error!("Metalayer offset out of bounds");
            return Err(Error::Data);
        }
        let offset = offset as usize;
        if buf.len() < offset + 5 {
            return Err(Error::ReadBuffer);
        }
        if buf[offset] != 0xC6 {
            crate::trace_error!("Bad metalayer content marker");
            return Err(Error::Data);
        }
        let len = be_i32(offset + 1)?;
        if len < 0 {
            return Err(Error::Data);
        }
        let content = buf
            .get(offset + 5..offset + 5 + len as usize)
            .ok_or_else(|| {
                crate::trace_error!("Metalayer content out of bounds");
                Error::ReadBuffer
            })?
            .to_vec();
        out.push(Metalayer { name, content });
    }
    Ok(out)
}

/// Read the metalayers of a whole header (`header.len() == header_len`).
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use b2rs::frame::{header::parse_metalayers, io::StdIo, Frame, FrameParams, Location};
///
/// let mut frame = Frame::create(Location::Memory, &FrameParams::default(), Arc::new(StdIo)).unwrap();
/// frame.add_metalayer("first", b"1").unwrap();
/// frame.add_metalayer("second", b"22").unwrap();
/// let bytes = frame.to_bytes().unwrap();
/// let found = parse_metalayers(&bytes[..frame.header_len() as usize]).unwrap();
/// assert_eq!((found[1].name.as_str(), found[1].content.as_slice()), ("second", &b"22"[..]));
/// ```
pub fn parse_metalayers(header: &[u8]) -> Result<Vec<Metalayer>> {
    // 87: 93, 88: CD, 89–90: idx_size, 91: DE map
    parse_named_values(header, POS_METALAYERS + 4, MAX_METALAYERS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> FrameParams {
        FrameParams {
            typesize: 2,
            blocksize: 0,
            compcode: 5,
            compcode_meta: 0,
            clevel: 3,
            splitmode: SplitMode::ForwardCompat,
            filters: [0, 0, 0, 0, 0, 1],
            filters_meta: [0; 6],
            use_dict: false,
            nthreads_comp: 3,
            nthreads_decomp: 2,
        }
    }

    #[test]
    fn empty_header_matches_spec_example() {
        let h = FixedHeader {
            header_len: 0,
            frame_len: 132,
            frame_type: 0,
            nbytes: 0,
            cbytes: 0,
            chunksize: -1,
            vl_blocks: false,
            has_vlmeta: false,
            params: params(),
        };
        let b = h.encode(&[]).unwrap();
        let expected: [u8; 97] = [
            0x9e, 0xa8, 0x62, 0x32, 0x66, 0x72, 0x61, 0x6d, 0x65, 0x00, 0xd2, 0x00, 0x00, 0x00,
            0x61, 0xcf, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x84, 0xa4, 0x12, 0x00, 0x35,
            0x03, 0xd3, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xd3, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x00, 0x00, 0xd2, 0x00, 0x00, 0x00, 0x02, 0xd2, 0x00, 0x00, 0x00,
            0x00, 0xd2, 0xff, 0xff, 0xff, 0xff, 0xd1, 0x00, 0x03, 0xd1, 0x00, 0x02, 0xc2, 0xd8,
            0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x93, 0xcd, 0x00, 0x07, 0xde, 0x00, 0x00, 0xdc, 0x00, 0x00,
        ];
        assert_eq!(&b[..], &expected[..]);
        let back = FixedHeader::parse(&b, false).unwrap();
        assert_eq!(back.header_len, 97);
        assert_eq!(back.params, params());
        assert_eq!(back.chunksize, -1);
        assert!(parse_metalayers(&b).unwrap().is_empty());
    }

    #[test]
    fn metalayers_match_spec_example() {
        let h = FixedHeader {
            header_len: 0,
            frame_len: 0,
            frame_type: 0,
            nbytes: 0,
            cbytes: 0,
            chunksize: -1,
            vl_blocks: false,
            has_vlmeta: false,
            params: params(),
        };
        let metas = vec![
            Metalayer {
                name: "meta1".into(),
                content: vec![0x93, 0x09, 0x08, 0x07],
            },
            Metalayer {
                name: "m2".into(),
                content: vec![0xa3, 0x78, 0x79, 0x7a],
            },
        ];
        let b = h.encode(&metas).unwrap();
        let expected: [u8; 47] = [
            0x93, 0xcd, 0x00, 0x1a, 0xde, 0x00, 0x02, 0xa5, 0x6d, 0x65, 0x74, 0x61, 0x31, 0xd2,
            0x00, 0x00, 0x00, 0x74, 0xa2, 0x6d, 0x32, 0xd2, 0x00, 0x00, 0x00, 0x7d, 0xdc, 0x00,
            0x02, 0xc6, 0x00, 0x00, 0x00, 0x04, 0x93, 0x09, 0x08, 0x07, 0xc6, 0x00, 0x00, 0x00,
            0x04, 0xa3, 0x78, 0x79, 0x7a,
        ];
        assert_eq!(&b[87..], &expected[..]);
        assert_eq!(b.len(), 134);
        assert_eq!(parse_metalayers(&b).unwrap(), metas);
    }

    #[test]
    fn codec_nibble_for_user_codecs() {
        let mut p = params();
        p.compcode = 32;
        p.clevel = 5;
        let h = FixedHeader {
            header_len: 0,
            frame_len: 200,
            frame_type: 0,
            nbytes: 0,
            cbytes: 0,
            chunksize: 0,
            vl_blocks: true,
            has_vlmeta: true,
            params: p.clone(),
        };
        let b = h.encode(&[]).unwrap();
        assert_eq!(b[27], 0x56);
        assert_eq!(b[77], 0x20);
        assert_eq!(b[25], 0xD3);
        assert_eq!(b[68], 0xC3);
        let back = FixedHeader::parse(&b, false).unwrap();
        assert_eq!(back.params, p);
        assert!(back.vl_blocks && back.has_vlmeta && back.chunksize == 0);
        assert_eq!(FixedHeader::parse(&b, true).unwrap_err(), Error::FrameType);
    }
}
