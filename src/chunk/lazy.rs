//! Lazy chunks (CHUNK.md §9): what C-Blosc2 hands out for a chunk of a frame on disk in place
//! of the whole chunk (`blosc2_schunk_get_lazychunk`). A lazy chunk is the chunk's header
//! (bit 3 of byte 31 set, `cbytes` still the stored chunk's), its block starts, and a trailer:
//! where the chunk is (`i32` chunk number, or chunk file number for sparse frames; `i64`
//! position in the frame) and the compressed length of each block (`nblocks × i32`). Its
//! blocks stay on disk: decoding one needs the super-chunk it came from.

use super::header::{blosc2_flags, Header, EXTENDED_HEADER_LENGTH};
use crate::error::{Error, Result};

/// Where a lazy chunk's blocks are, from its trailer.
///
/// # Examples
///
/// ```
/// use b2rs::chunk::lazy::Trailer;
///
/// let t = Trailer { nchunk: 2, offset: 97, block_csizes: vec![10, 12] };
/// assert_eq!(t.block_csizes.len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trailer {
    /// The chunk number (contiguous frames) or chunk file number (sparse frames).
    pub nchunk: i32,
    /// The chunk's position from the start of the frame (contiguous frames), or the chunk file
    /// number (sparse frames).
    pub offset: i64,
    /// The compressed length of each block.
    pub block_csizes: Vec<i32>,
}

/// Whether a stored chunk with header `h` is handed out lazily: not special (a run of a value
/// comes whole), and with blocks.
///
/// # Examples
///
/// ```
/// use b2rs::chunk::{self, header::Special, lazy, special::special_chunk};
/// use b2rs::CParams;
///
/// let mut buf = [0u8; 64];
/// let n = special_chunk(&CParams::default(), Special::Zero, 800, None, &mut buf).unwrap();
/// assert!(!lazy::makes_lazy(&chunk::Header::parse(&buf[..n]).unwrap()));
/// let n = chunk::compress(&CParams::default(), &[0u8; 16], &mut buf).unwrap();
/// assert!(lazy::makes_lazy(&chunk::Header::parse(&buf[..n]).unwrap()));
/// ```
pub fn makes_lazy(h: &Header) -> bool {
    h.special_code() == 0 && h.blocksize > 0 && h.nblocks() > 0
}

/// How many bytes of the stored chunk a lazy chunk starts with: the header and block starts
/// (the header only for a memcpyed chunk, which has none).
///
/// # Examples
///
/// ```
/// use b2rs::{chunk, CParams};
///
/// let cparams = CParams { typesize: 4, blocksize: 4000, ..CParams::default() };
/// let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
/// let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
/// chunk::compress(&cparams, &data, &mut buf).unwrap();
/// let h = chunk::Header::parse(&buf).unwrap();
/// assert_eq!(chunk::lazy::prefix_len(&h).unwrap(), 32 + 4 * 10);
/// ```
pub fn prefix_len(h: &Header) -> Result<usize> {
    let nblocks = h.nblocks();
    if !makes_lazy(h) || h.cbytes < EXTENDED_HEADER_LENGTH as i32 || h.nbytes < 0 {
        return Err(Error::InvalidHeader);
    }
    if h.memcpyed() {
        return Ok(EXTENDED_HEADER_LENGTH);
    }
    let bstarts = nblocks.checked_mul(4).ok_or(Error::InvalidHeader)?;
    if bstarts > h.cbytes as usize - EXTENDED_HEADER_LENGTH {
        crate::trace_error!("The block starts of the chunk exceed its length");
        return Err(Error::InvalidHeader);
    }
    Ok(EXTENDED_HEADER_LENGTH + bstarts)
}

/// The compressed length of each block of the stored chunk `h` whose block starts are
/// `bstarts` (as C-Blosc2 computes them: from the sorted starts and `cbytes`, the starts being
/// in any order when blocks were compressed in parallel; the block sizes for memcpyed chunks).
fn block_csizes(h: &Header, bstarts: &[u8]) -> Result<Vec<i32>> {
    let nblocks = h.nblocks();
    if h.memcpyed() {
        let bs = h.blocksize;
        let left = h.nbytes % bs;
        let mut v = vec![bs; nblocks];
        if left != 0 {
            v[nblocks - 1] = left;
        }
        return Ok(v);
    }
    let starts: Vec<i32> = bstarts
        .chunks_exact(4)
        .map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    if starts.len() != nblocks {
        return Err(Error::InvalidHeader);
    }
    let mut order: Vec<usize> = (0..nblocks).collect();
    order.sort_by_key(|&i| starts[i]);
    let mut csizes = vec![0i32; nblocks];
    for w in order.windows(2) {
        csizes[w[0]] = starts[w[1]].wrapping_sub(starts[w[0]]);
    }
    let last = order[nblocks - 1];
    csizes[last] = h.cbytes.wrapping_sub(starts[last]);
    Ok(csizes)
}

/// Where each block's compressed bytes lie in the stored chunk `h` whose first
/// [`prefix_len`] bytes are `prefix`: `(start, len)` per block, checked to lie within the
/// chunk ([`Error::InvalidHeader`] otherwise).
///
/// # Examples
///
/// ```
/// use b2rs::{chunk, CParams};
///
/// let cparams = CParams { typesize: 4, blocksize: 4000, ..CParams::default() };
/// let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
/// let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
/// let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
/// let h = chunk::Header::parse(&buf).unwrap();
/// let spans = chunk::lazy::block_spans(&h, &buf[..chunk::lazy::prefix_len(&h).unwrap()]).unwrap();
/// assert_eq!(spans.len(), 10);
/// assert_eq!(spans.iter().map(|s| s.1).sum::<usize>(), n - 32 - 40);
/// ```
pub fn block_spans(h: &Header, prefix: &[u8]) -> Result<Vec<(usize, usize)>> {
    let plen = prefix_len(h)?;
    if prefix.len() < plen {
        return Err(Error::ReadBuffer);
    }
    let csizes = block_csizes(h, &prefix[EXTENDED_HEADER_LENGTH..plen])?;
    let cbytes = h.cbytes as usize;
    let mut spans = Vec::with_capacity(csizes.len());
    for (j, &c) in csizes.iter().enumerate() {
        let start = if h.memcpyed() {
            EXTENDED_HEADER_LENGTH + j * h.blocksize as usize
        } else {
            let at = EXTENDED_HEADER_LENGTH + 4 * j;
            i32::from_le_bytes([prefix[at], prefix[at + 1], prefix[at + 2], prefix[at + 3]])
                as usize
        };
        let len = usize::try_from(c).map_err(|_| Error::InvalidHeader)?;
        if start < plen || start.checked_add(len).is_none_or(|e| e > cbytes) {
            crate::trace_error!("Block {} lies outside its chunk", j);
            return Err(Error::InvalidHeader);
        }
        spans.push((start, len));
    }
    Ok(spans)
}

/// The lazy chunk of a stored chunk whose first [`prefix_len`] bytes are `prefix`, chunk
/// number (or chunk file number) `nchunk`, at `offset` in its frame.
///
/// # Examples
///
/// ```
/// use b2rs::{chunk, CParams};
///
/// let cparams = CParams { typesize: 4, blocksize: 4000, ..CParams::default() };
/// let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
/// let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
/// let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
/// let h = chunk::Header::parse(&buf).unwrap();
/// let prefix = &buf[..chunk::lazy::prefix_len(&h).unwrap()];
/// let lazy = chunk::lazy::build(prefix, 3, 1234).unwrap();
/// assert!(chunk::Header::parse(&lazy).unwrap().is_lazy());
/// let t = chunk::lazy::trailer(&lazy).unwrap();
/// assert_eq!((t.nchunk, t.offset), (3, 1234));
/// assert_eq!(t.block_csizes.iter().sum::<i32>() as usize, n - prefix.len());
/// // it describes the stored chunk
/// chunk::lazy::check(&lazy, &buf[..n]).unwrap();
/// ```
pub fn build(prefix: &[u8], nchunk: i32, offset: i64) -> Result<Vec<u8>> {
    let h = Header::parse(prefix)?;
    let plen = prefix_len(&h)?;
    if prefix.len() < plen {
        return Err(Error::ReadBuffer);
    }
    let nblocks = h.nblocks();
    let trailer_at = EXTENDED_HEADER_LENGTH + 4 * nblocks;
    let mut out = vec![0u8; trailer_at + 12 + 4 * nblocks];
    out[..plen].copy_from_slice(&prefix[..plen]);
    out[EXTENDED_HEADER_LENGTH - 1] |= blosc2_flags::LAZY;
    out[trailer_at..trailer_at + 4].copy_from_slice(&nchunk.to_le_bytes());
    out[trailer_at + 4..trailer_at + 12].copy_from_slice(&offset.to_le_bytes());
    let csizes = block_csizes(&h, &prefix[EXTENDED_HEADER_LENGTH..plen])?;
    for (i, c) in csizes.iter().enumerate() {
        let at = trailer_at + 12 + 4 * i;
        out[at..at + 4].copy_from_slice(&c.to_le_bytes());
    }
    Ok(out)
}

/// The trailer of the lazy chunk `lazy` ([`Error::ReadBuffer`] when it is too short for it).
///
/// # Examples
///
/// See [`build`]; a chunk that is not lazy has none:
///
/// ```
/// use b2rs::{chunk, CParams};
///
/// let mut buf = [0u8; 64];
/// let n = chunk::compress(&CParams::default(), &[0u8; 16], &mut buf).unwrap();
/// assert!(chunk::lazy::trailer(&buf[..n]).is_err());
/// ```
pub fn trailer(lazy: &[u8]) -> Result<Trailer> {
    let h = Header::parse(lazy)?;
    if !h.is_lazy() {
        return Err(Error::InvalidParam);
    }
    let nblocks = h.nblocks();
    let trailer_at = EXTENDED_HEADER_LENGTH + 4 * nblocks;
    let end = nblocks
        .checked_mul(8)
        .and_then(|n| n.checked_add(EXTENDED_HEADER_LENGTH + 12))
        .ok_or(Error::ReadBuffer)?;
    if lazy.len() < end {
        crate::trace_error!("Lazy trailer exceeds source buffer.");
        return Err(Error::ReadBuffer);
    }
    let i32_at = |at: usize| i32::from_le_bytes(lazy[at..at + 4].try_into().unwrap_or([0; 4]));
    let offset = i64::from_le_bytes(
        lazy[trailer_at + 4..trailer_at + 12]
            .try_into()
            .unwrap_or([0; 8]),
    );
    Ok(Trailer {
        nchunk: i32_at(trailer_at),
        offset,
        block_csizes: (0..nblocks)
            .map(|i| i32_at(trailer_at + 12 + 4 * i))
            .collect(),
    })
}

/// Check that the lazy chunk `lazy` describes the stored chunk `stored`: the same header but
/// for the lazy bit, the same block starts, and the block lengths of `stored` in its trailer
/// ([`Error::InvalidHeader`] otherwise: a lazy chunk altered since it was handed out).
///
/// # Examples
///
/// ```
/// use b2rs::{chunk, CParams, Error};
///
/// let cparams = CParams { typesize: 4, blocksize: 4000, ..CParams::default() };
/// let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
/// let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
/// let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
/// let h = chunk::Header::parse(&buf).unwrap();
/// let mut lazy = chunk::lazy::build(&buf[..chunk::lazy::prefix_len(&h).unwrap()], 0, 97).unwrap();
/// let last = lazy.len() - 4;
/// lazy[last] ^= 1; // a block length changed
/// assert_eq!(chunk::lazy::check(&lazy, &buf[..n]), Err(Error::InvalidHeader));
/// ```
pub fn check(lazy: &[u8], stored: &[u8]) -> Result<()> {
    let h = Header::parse(stored)?;
    let plen = prefix_len(&h)?;
    let t = trailer(lazy)?;
    let mut head = [0u8; EXTENDED_HEADER_LENGTH];
    head.copy_from_slice(&lazy[..EXTENDED_HEADER_LENGTH]);
    head[EXTENDED_HEADER_LENGTH - 1] &= !blosc2_flags::LAZY;
    let same_prefix = stored.len() >= plen
        && head[..] == stored[..EXTENDED_HEADER_LENGTH]
        && lazy[EXTENDED_HEADER_LENGTH..plen] == stored[EXTENDED_HEADER_LENGTH..plen];
    if !same_prefix || block_csizes(&h, &stored[EXTENDED_HEADER_LENGTH..plen])? != t.block_csizes {
        crate::trace_error!("The lazy chunk does not describe the chunk stored in its frame");
        return Err(Error::InvalidHeader);
    }
    Ok(())
}
