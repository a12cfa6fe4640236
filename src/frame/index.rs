//! The offsets chunk (chunk index, FRAME.md §5): a Blosc chunk of little-endian `i64`, one per
//! logical chunk; negative values encode chunks that are not stored (zeros, NaN, uninit).

use crate::chunk::header::{Header, Special, EXTENDED_HEADER_LENGTH, MAX_BUFFERSIZE};
use crate::chunk::{compress, getitem_bytes};
use crate::error::{Error, Result};
use crate::params::{CParams, DParams, SplitMode};

/// Bytes per offset.
pub const OFFSET_SIZE: usize = 8;
/// Most chunks an offsets chunk can index (its payload must fit in one chunk).
pub const MAX_NCHUNKS: i64 = (MAX_BUFFERSIZE as i64) / OFFSET_SIZE as i64;

/// The offset value that stands for a chunk of `special` (zeros, NaN or uninit); `None` for
/// specials that are stored as real chunks (repeated values).
///
/// # Examples
///
/// ```
/// use b2rs::chunk::header::Special;
/// use b2rs::frame::index::{special_of_offset, special_offset};
///
/// let zero = special_offset(Special::Zero).unwrap();
/// assert!(zero < 0);
/// assert_eq!(special_of_offset(zero), Some(Special::Zero));
/// // repeated values are stored as real chunks
/// assert_eq!(special_offset(Special::Value), None);
/// ```
pub fn special_offset(special: Special) -> Option<i64> {
    match special {
        Special::Zero | Special::Nan | Special::Uninit => {
            Some(((0x80u64 | special as u64) << 56) as i64)
        }
        Special::Value => None,
    }
}

/// What a negative offset stands for, tested the way C-Blosc2 does (bit 0, then 2, then 1 of
/// the top byte); `None` if it is not a known special value.
///
/// # Examples
///
/// ```
/// use b2rs::chunk::header::Special;
/// use b2rs::frame::index::{special_of_offset, special_offset};
///
/// assert_eq!(special_of_offset(special_offset(Special::Uninit).unwrap()), Some(Special::Uninit));
/// assert_eq!(special_of_offset(1234), None); // a real offset
/// ```
pub fn special_of_offset(offset: i64) -> Option<Special> {
    if offset >= 0 {
        return None;
    }
    let code = ((offset as u64) >> 56) as u8;
    if code & Special::Zero as u8 != 0 {
        Some(Special::Zero)
    } else if code & Special::Uninit as u8 != 0 {
        Some(Special::Uninit)
    } else if code & Special::Nan as u8 != 0 {
        Some(Special::Nan)
    } else {
        None
    }
}

/// The number of chunks of a frame (FRAME.md §5): 0 without data, `ceil(nbytes / chunksize)`
/// for fixed chunk sizes, else the offsets chunk's `nbytes / 8` (`offsets_nbytes`).
///
/// # Examples
///
/// ```
/// use b2rs::frame::index::nchunks_of;
///
/// assert_eq!(nchunks_of(0, -1, None).unwrap(), 0);
/// assert_eq!(nchunks_of(2500, 1000, None).unwrap(), 3);
/// // variable chunk sizes: the offsets chunk tells (8 bytes per chunk)
/// assert_eq!(nchunks_of(2500, 0, Some(40)).unwrap(), 5);
/// ```
pub fn nchunks_of(nbytes: i64, chunksize: i32, offsets_nbytes: Option<i32>) -> Result<i64> {
    if nbytes <= 0 {
        return Ok(0);
    }
    let n = if chunksize > 0 {
        let cs = chunksize as i64;
        nbytes / cs + i64::from(nbytes % cs != 0)
    } else if chunksize == 0 {
        let onb = offsets_nbytes.ok_or(Error::InvalidHeader)?;
        if onb < 0 || !(onb as usize).is_multiple_of(OFFSET_SIZE) {
            crate::trace_error!("Invalid offsets chunk in frame header");
            return Err(Error::InvalidHeader);
        }
        onb as i64 / OFFSET_SIZE as i64
    } else {
        crate::trace_error!("Invalid chunk size in frame header");
        return Err(Error::InvalidHeader);
    };
    if n > MAX_NCHUNKS {
        crate::trace_error!("Invalid number of chunks in frame header");
        return Err(Error::InvalidHeader);
    }
    Ok(n)
}

fn to_le_bytes(offsets: &[i64]) -> Result<Vec<u8>> {
    if offsets.len() as i64 > MAX_NCHUNKS {
        crate::trace_error!("Too many chunks for an offsets chunk");
        return Err(Error::MaxBufsizeExceeded);
    }
    // fallible: an index of 2^28 chunks is 2 GiB
    let mut src = crate::error::zeroed_vec(offsets.len() * OFFSET_SIZE)?;
    for (d, o) in src.chunks_exact_mut(OFFSET_SIZE).zip(offsets) {
        d.copy_from_slice(&o.to_le_bytes());
    }
    Ok(src)
}

fn compress_with(params: &CParams, offsets: &[i64]) -> Result<Vec<u8>> {
    compress_into(params, offsets, offsets.len())
}

/// Compress `offsets` into a destination sized for `room` offsets plus the header (C-Blosc2
/// falls back to a memcpyed chunk only when the result does not fit there).
fn compress_into(params: &CParams, offsets: &[i64], room: usize) -> Result<Vec<u8>> {
    let src = to_le_bytes(offsets)?;
    let mut dst =
        crate::error::zeroed_vec(room.max(offsets.len()) * OFFSET_SIZE + EXTENDED_HEADER_LENGTH)?;
    let n = compress(params, &src, &mut dst)?;
    if n == 0 {
        return Err(Error::WriteBuffer);
    }
    dst.truncate(n);
    dst.shrink_to_fit();
    Ok(dst)
}

/// The parameters C-Blosc2 uses when it rewrites the offsets chunk after an append, insert,
/// update, delete or reorder: BloscLZ clevel 5, shuffle, typesize 8, blocksize 16 KiB, never
/// split.
///
/// # Examples
///
/// ```
/// use b2rs::frame::index::update_cparams;
/// use b2rs::{codecs, SplitMode};
///
/// let p = update_cparams();
/// assert_eq!((p.compcode, p.clevel, p.typesize, p.blocksize), (codecs::BLOSCLZ, 5, 8, 16 * 1024));
/// assert_eq!(p.splitmode, SplitMode::Never);
/// ```
pub fn update_cparams() -> CParams {
    CParams {
        typesize: OFFSET_SIZE as i32,
        blocksize: 16 * 1024,
        splitmode: SplitMode::Never,
        clevel: 5,
        compcode: crate::codecs::BLOSCLZ,
        ..CParams::default()
    }
}

/// Encode the offsets chunk as C-Blosc2 does on every change of a frame.
///
/// # Examples
///
/// ```
/// use b2rs::frame::index::{decode, encode};
///
/// let offsets = [0i64, 1000, 2100, 3050];
/// let chunk = encode(&offsets).unwrap();
/// assert_eq!(decode(&chunk, 4).unwrap(), offsets);
/// ```
pub fn encode(offsets: &[i64]) -> Result<Vec<u8>> {
    compress_with(&update_cparams(), offsets)
}

/// Encode the offsets chunk after a chunk deletion as C-Blosc2's `frame_delete_chunk` does: its
/// destination is sized for the offsets before the deletion, one more than `offsets`, so an
/// uncompressible table is kept as a (up to 8 bytes longer) compressed chunk where [`encode`]
/// would memcpy it.
///
/// # Examples
///
/// ```
/// use b2rs::frame::index::{decode, encode_after_delete};
///
/// let offsets = [0i64, 500];
/// assert_eq!(decode(&encode_after_delete(&offsets).unwrap(), 2).unwrap(), offsets);
/// ```
pub fn encode_after_delete(offsets: &[i64]) -> Result<Vec<u8>> {
    compress_into(&update_cparams(), offsets, offsets.len() + 1)
}

/// Encode the offsets chunk as C-Blosc2 does when it serialises a whole super-chunk at once
/// (default cparams with typesize 8).
///
/// # Examples
///
/// ```
/// use b2rs::frame::index::{decode, encode_whole};
///
/// let offsets: Vec<i64> = (0..100).map(|i| i * 4096).collect();
/// let chunk = encode_whole(&offsets).unwrap();
/// assert!(chunk.len() < 800);
/// assert_eq!(decode(&chunk, 100).unwrap(), offsets);
/// ```
pub fn encode_whole(offsets: &[i64]) -> Result<Vec<u8>> {
    let params = CParams {
        typesize: OFFSET_SIZE as i32,
        ..CParams::default()
    };
    compress_with(&params, offsets)
}

/// An offsets chunk holding `nchunks` copies of `value`, as a run-of-value special chunk (what
/// C-Blosc2 writes when a frame is filled with special values).
///
/// # Examples
///
/// ```
/// use b2rs::chunk::{self, header::Special};
/// use b2rs::frame::index::{decode, encode_repeated, special_offset};
///
/// let zero = special_offset(Special::Zero).unwrap();
/// let c = encode_repeated(zero, 50).unwrap();
/// // a run-of-value chunk: a header and one value
/// assert_eq!(chunk::Header::parse(&c).unwrap().special(), Some(Special::Value));
/// assert_eq!(decode(&c, 50).unwrap(), vec![zero; 50]);
/// ```
pub fn encode_repeated(value: i64, nchunks: i64) -> Result<Vec<u8>> {
    if !(0..=MAX_NCHUNKS).contains(&nchunks) {
        return Err(Error::MaxBufsizeExceeded);
    }
    let mut dst = vec![0u8; EXTENDED_HEADER_LENGTH + OFFSET_SIZE];
    let n = crate::chunk::special::special_chunk(
        &update_cparams(),
        Special::Value,
        nchunks as usize * OFFSET_SIZE,
        Some(&value.to_le_bytes()),
        &mut dst,
    )?;
    dst.truncate(n);
    dst.shrink_to_fit();
    Ok(dst)
}

/// The uncompressed and compressed sizes of an offsets chunk from its header.
///
/// # Examples
///
/// ```
/// use b2rs::frame::index::{encode, sizes};
///
/// let c = encode(&[0, 10, 20]).unwrap();
/// let (nbytes, cbytes) = sizes(&c).unwrap();
/// assert_eq!((nbytes, cbytes as usize), (24, c.len()));
/// ```
pub fn sizes(coffsets: &[u8]) -> Result<(i32, i32)> {
    let (nbytes, cbytes, _) = Header::sizes(coffsets)?;
    Ok((nbytes, cbytes))
}

/// Decode an offsets chunk that must index exactly `nchunks` chunks.
///
/// # Examples
///
/// ```
/// use b2rs::frame::index::{decode, encode};
///
/// let c = encode(&[0, 10, 20]).unwrap();
/// assert_eq!(decode(&c, 3).unwrap(), [0, 10, 20]);
/// // the chunk must index exactly nchunks chunks
/// assert!(decode(&c, 4).is_err());
/// ```
pub fn decode(coffsets: &[u8], nchunks: i64) -> Result<Vec<i64>> {
    let count = check_count(coffsets, nchunks)?;
    let expected = count * OFFSET_SIZE;
    // A few hundred bytes can stand for a billion chunks (a special or a very compressible
    // offsets chunk): the index is reserved fallibly and decoded a piece at a time, so it is
    // not held twice.
    let mut offsets = Vec::new();
    offsets.try_reserve_exact(count).map_err(|_| {
        crate::trace_error!("Cannot allocate the index of {} chunks", count);
        Error::MemoryAlloc
    })?;
    let piece = piece_of(coffsets, expected, DECODE_PIECE);
    let mut buf = crate::error::zeroed_vec(piece)?;
    let mut start = 0;
    while start < expected {
        let len = piece.min(expected - start);
        decode_range(coffsets, start, &mut buf[..len], &mut offsets)?;
        start += len;
    }
    Ok(offsets)
}

/// Check that the offsets chunk `coffsets` indexes exactly `nchunks` chunks; returns that count.
pub(super) fn check_count(coffsets: &[u8], nchunks: i64) -> Result<usize> {
    let bad_count = || {
        crate::trace_error!(
            "The number of chunks in the offsets chunk does not match the frame header"
        );
        Error::InvalidHeader
    };
    let count = usize::try_from(nchunks).map_err(|_| bad_count())?;
    let expected = count.checked_mul(OFFSET_SIZE).ok_or_else(bad_count)?;
    let (nbytes, _, _) = Header::sizes(coffsets)?;
    if usize::try_from(nbytes).ok() != Some(expected) {
        return Err(bad_count());
    }
    Ok(count)
}

/// Decode the bytes `start..start + buf.len()` of the offsets chunk (whole offsets) through
/// `buf`, appending the offsets to `out`.
pub(super) fn decode_range(
    coffsets: &[u8],
    start: usize,
    buf: &mut [u8],
    out: &mut Vec<i64>,
) -> Result<()> {
    let len = buf.len();
    let repaired = repair_uninit(coffsets)?;
    let coffsets = repaired.as_deref().unwrap_or(coffsets);
    let n = getitem_bytes(&DParams::default(), coffsets, start, len, buf)
        .inspect_err(|_| crate::trace_error!("Cannot decompress the offsets chunk"))?;
    if n != len {
        return Err(Error::Data);
    }
    out.extend(buf.chunks_exact(OFFSET_SIZE).map(|c| {
        let mut v = [0u8; OFFSET_SIZE];
        v.copy_from_slice(c);
        i64::from_le_bytes(v)
    }));
    Ok(())
}

/// An offsets chunk marked as uninitialised (a damaged special-value code: such an index
/// means nothing) but holding streams, with the mark cleared so its streams are read; an
/// error when it holds none. `None` for any other chunk.
fn repair_uninit(coffsets: &[u8]) -> Result<Option<Vec<u8>>> {
    let h = Header::parse(coffsets)?;
    if h.special() != Some(Special::Uninit) {
        return Ok(None);
    }
    if (h.cbytes as usize) <= EXTENDED_HEADER_LENGTH || coffsets.len() <= EXTENDED_HEADER_LENGTH {
        crate::trace_error!("The offsets chunk is marked uninitialised");
        return Err(Error::InvalidHeader);
    }
    crate::trace_warning!("The offsets chunk is marked uninitialised: reading its streams");
    let mut v = coffsets.to_vec();
    v[31] &= !0x70;
    Ok(Some(v))
}

/// Bytes of the offsets chunk decoded at a time by [`decode`].
const DECODE_PIECE: usize = 1 << 20;

/// Bytes of an offsets chunk of `blocksize` to decode at a time: at least `min`, a whole number
/// of its blocks (so no block is decoded twice) and of offsets, and no more than `total`.
fn piece_len(blocksize: i32, total: usize, min: usize) -> usize {
    let bs = usize::try_from(blocksize).unwrap_or(0).max(1);
    let mut unit = bs;
    while unit % OFFSET_SIZE != 0 {
        unit += bs;
    }
    min.div_ceil(unit).saturating_mul(unit).min(total)
}

/// Bytes of the offsets chunk `coffsets` (`total` bytes of offsets) to decode at a time, at
/// least `min`: whole blocks of a compressed chunk; any range of a special or memcpyed chunk
/// costs only its length (whatever blocksize its header claims), so there `min`.
pub(super) fn piece_of(coffsets: &[u8], total: usize, min: usize) -> usize {
    let blocksize = match Header::parse_basic(coffsets) {
        Ok(h) if h.special().is_some() || h.memcpyed() => OFFSET_SIZE as i32,
        Ok(h) => h.blocksize,
        Err(_) => 0,
    };
    piece_len(blocksize, total, min)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoded_a_piece_at_a_time() {
        // 2.4 MB of offsets: several pieces
        let want: Vec<i64> = (0..300_000i64).map(|i| i * 1000 + i % 7).collect();
        let c = encode(&want).unwrap();
        assert_eq!(decode(&c, want.len() as i64).unwrap(), want);
        let r = decode(&encode_repeated(5, 400_000).unwrap(), 400_000).unwrap();
        assert_eq!(r.len(), 400_000);
        assert!(r.iter().all(|&v| v == 5));
        assert!(decode(&c, -1).is_err());
        assert!(decode(&c, i64::MAX).is_err());
        // whole blocks and whole offsets, at least 1 MiB, at most the total
        assert_eq!(piece_len(0, 10, 1 << 20), 10);
        assert_eq!(piece_len(12, usize::MAX, 1 << 20), 43_691 * 24);
        assert_eq!(piece_len(3 << 20, usize::MAX, 1 << 20), 3 << 20);
        assert_eq!(piece_len(-5, usize::MAX, 1 << 20), 1 << 20);
        assert_eq!(piece_len(16 << 10, usize::MAX, 16 << 10), 16 << 10);
        // a run of one value claiming one block of 2 GiB: pieces of 1 MiB all the same
        let mut run = encode_repeated(5, MAX_NCHUNKS - 1).unwrap();
        run[8..12].copy_from_slice(&(MAX_BUFFERSIZE - 8).to_le_bytes());
        assert_eq!(piece_of(&run, usize::MAX, 1 << 20), 1 << 20);
        assert_eq!(
            piece_of(&c, usize::MAX, 1 << 20),
            piece_len(16 << 10, usize::MAX, 1 << 20)
        );
    }

    #[test]
    fn special_codes() {
        assert_eq!(
            special_offset(Special::Zero),
            Some(0x8100000000000000u64 as i64)
        );
        assert_eq!(
            special_offset(Special::Nan),
            Some(0x8200000000000000u64 as i64)
        );
        assert_eq!(
            special_offset(Special::Uninit),
            Some(0x8400000000000000u64 as i64)
        );
        assert_eq!(special_offset(Special::Value), None);
        for s in [Special::Zero, Special::Nan, Special::Uninit] {
            assert_eq!(special_of_offset(special_offset(s).unwrap()), Some(s));
        }
        assert_eq!(special_of_offset(i64::MIN), None);
        assert_eq!(special_of_offset(5), None);
    }

    #[test]
    fn nchunks_rule() {
        assert_eq!(nchunks_of(0, 10, None).unwrap(), 0);
        assert_eq!(nchunks_of(25, 10, None).unwrap(), 3);
        assert_eq!(nchunks_of(30, 10, None).unwrap(), 3);
        assert_eq!(nchunks_of(30, 0, Some(40)).unwrap(), 5);
        assert!(nchunks_of(30, 0, Some(41)).is_err());
        assert!(nchunks_of(30, -1, None).is_err());
    }

    #[test]
    fn roundtrip() {
        let offs: Vec<i64> = (0..5000).map(|i| i * 1234).chain([i64::MIN + 1]).collect();
        for enc in [encode(&offs).unwrap(), encode_whole(&offs).unwrap()] {
            assert_eq!(decode(&enc, offs.len() as i64).unwrap(), offs);
            assert!(decode(&enc, offs.len() as i64 - 1).is_err());
        }
        let rep = encode_repeated(special_offset(Special::Zero).unwrap(), 1000).unwrap();
        assert_eq!(rep.len(), 40);
        assert_eq!(
            decode(&rep, 1000).unwrap(),
            vec![special_offset(Special::Zero).unwrap(); 1000]
        );
    }
}
