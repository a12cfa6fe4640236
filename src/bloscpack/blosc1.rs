//! Chunks that Blosc 1.x reads (CHUNK.md §8): bloscpack files are read by python-blosc 1.x
//! (c-blosc ≤ 1.21), which refuses anything but version-2 chunks with the 16-byte header.
//!
//! The chunk core writes such a chunk with `basic_header` (no zero/run streams, no
//! dictionaries, no special chunks), and the result is labelled version 2 once it reads the
//! same under the Blosc 1.x rules:
//! * blocks are split only when `typesize ≤ 16` and `blocksize / typesize ≥ 128` (otherwise
//!   the chunk is made again without splitting);
//! * a bit-shuffled block is bit-shuffled whole or not at all, so every block must hold a
//!   multiple of 8 elements (otherwise the block size is rounded down to one that does, and if
//!   the last block still cannot, the chunk falls back to byte shuffle);
//! * no delta or other filters, and only the codecs Blosc 1.x has.

use super::error::{Error, Result};
use crate::chunk::header::{flags, EXTENDED_HEADER_LENGTH, MIN_HEADER_LENGTH};
use crate::codecs;
use crate::params::{filter_id, CParams, SplitMode};

/// Chunk format version of Blosc 1.x.
pub const BLOSC1_VERSION_FORMAT: u8 = 2;

/// Check that `p` can make chunks Blosc 1.x reads: a Blosc 1.x codec, at most one filter which
/// is shuffle or bitshuffle, `typesize` 1–255, no dictionary, no prefilter.
///
/// # Examples
///
/// ```
/// use b2rs::bloscpack::blosc1::check_params;
/// use b2rs::{codecs, params::filter_id, CParams};
///
/// assert!(check_params(&CParams::default()).is_ok());
/// // Blosc 1.x has no delta filter in its header flags
/// let mut p = CParams::default();
/// p.filters[4] = filter_id::DELTA;
/// assert!(check_params(&p).is_err());
/// assert!(check_params(&CParams { compcode: codecs::NDLZ, ..CParams::default() }).is_err());
/// ```
pub fn check_params(p: &CParams) -> Result<()> {
    if !matches!(
        p.compcode,
        codecs::BLOSCLZ | codecs::LZ4 | codecs::LZ4HC | codecs::ZLIB | codecs::ZSTD
    ) {
        return Err(Error::param(format!(
            "codec {} cannot be read by Blosc 1.x (BloscLZ, LZ4, LZ4HC, Zlib, Zstd only)",
            p.compcode
        )));
    }
    let active: Vec<u8> = p.filters.iter().copied().filter(|&f| f != 0).collect();
    if active.len() > 1
        || active
            .iter()
            .any(|&f| f != filter_id::SHUFFLE && f != filter_id::BITSHUFFLE)
    {
        return Err(Error::param(format!(
            "filters {:?}: Blosc 1.x chunks have only shuffle or bitshuffle",
            p.filters
        )));
    }
    if !(1..=255).contains(&p.typesize) {
        return Err(Error::param(format!(
            "typesize {} is not in 1..=255",
            p.typesize
        )));
    }
    if p.clevel > 9 {
        return Err(Error::param(format!("clevel {} is not in 0..=9", p.clevel)));
    }
    if p.use_dict {
        return Err(Error::param("Blosc 1.x chunks have no dictionaries"));
    }
    if p.prefilter.is_some() {
        return Err(Error::param(
            "prefilters are not supported in bloscpack files",
        ));
    }
    Ok(())
}

/// What to change so that a chunk reads the same under the Blosc 1.x rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fix {
    NoSplit,
    Blocksize(i32),
    ByteShuffle,
}

fn le_i32(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// `None` when the chunk with 16-byte header `h` for `nbytes` of input decodes the same under
/// the Blosc 1.x rules as under the Blosc2 ones.
fn incompatibility(h: &[u8], nbytes: usize) -> Option<Fix> {
    let fl = h[2];
    if fl & flags::MEMCPYED != 0 || nbytes == 0 {
        return None;
    }
    let ts = h[3].max(1) as usize;
    let blocksize = le_i32(h, 8).max(1) as usize;
    let split = fl & flags::DONT_SPLIT == 0;
    if split && !(ts <= 16 && blocksize / ts >= 128) {
        return Some(Fix::NoSplit);
    }
    if fl & flags::DOBITSHUFFLE != 0 {
        if !(blocksize / ts).is_multiple_of(8) {
            let bs = blocksize / (8 * ts) * (8 * ts);
            return Some(if bs > 0 {
                Fix::Blocksize(bs as i32)
            } else {
                Fix::ByteShuffle
            });
        }
        let leftover = nbytes % blocksize;
        if leftover > 0 && !(leftover / ts).is_multiple_of(8) {
            return Some(Fix::ByteShuffle);
        }
    }
    None
}

/// Compress `src` into `out` (replaced) as a Blosc 1.x (version 2) chunk.
///
/// # Examples
///
/// ```
/// use b2rs::bloscpack::blosc1::compress_chunk;
/// use b2rs::{chunk, CParams, DParams};
///
/// let data = vec![1u8; 5000];
/// let mut out = Vec::new();
/// compress_chunk(&CParams::default(), &data, &mut out).unwrap();
/// let header = chunk::Header::parse(&out).unwrap();
/// assert_eq!((header.version, header.extended), (2, false)); // a Blosc 1.x chunk
/// let mut back = vec![0u8; 5000];
/// chunk::decompress(&DParams::default(), &out, &mut back, None).unwrap();
/// assert_eq!(back, data);
/// ```
pub fn compress_chunk(params: &CParams, src: &[u8], out: &mut Vec<u8>) -> Result<()> {
    check_params(params)?;
    let mut p = params.clone();
    p.basic_header = true;
    p.nchunk = -1;
    // Like Blosc 1.x: a chunk that does not fit in `nbytes + 16` bytes is stored memcpyed
    // (the core wants at least 32 bytes of room; smaller inputs are memcpyed anyway).
    out.clear();
    out.resize(
        (src.len() + MIN_HEADER_LENGTH).max(EXTENDED_HEADER_LENGTH),
        0,
    );
    for _ in 0..5 {
        let n = crate::chunk::compress(&p, src, out).map_err(|e| Error::Compress(e).traced())?;
        if n < MIN_HEADER_LENGTH {
            return Err(Error::Compress(crate::Error::Failure).traced());
        }
        match incompatibility(&out[..MIN_HEADER_LENGTH], src.len()) {
            None => {
                out.truncate(n);
                out[0] = BLOSC1_VERSION_FORMAT;
                return Ok(());
            }
            Some(Fix::NoSplit) => p.splitmode = SplitMode::Never,
            Some(Fix::Blocksize(bs)) => p.blocksize = bs,
            Some(Fix::ByteShuffle) => {
                for f in p.filters.iter_mut() {
                    if *f == filter_id::BITSHUFFLE {
                        *f = filter_id::SHUFFLE;
                    }
                }
            }
        }
    }
    crate::trace_error!("bloscpack: could not make a chunk Blosc 1.x reads");
    Err(Error::Compress(crate::Error::Failure))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::DParams;

    fn data(n: usize, ts: usize) -> Vec<u8> {
        (0..n)
            .map(|i| ((i / ts) as u32).wrapping_mul(2654435761).to_le_bytes()[i % ts % 4] >> 5)
            .collect()
    }

    #[test]
    fn chunks_are_version_2_and_roundtrip() {
        let mut out = Vec::new();
        for &compcode in &[0u8, 1, 2, 4, 5] {
            for &filter in &[0u8, filter_id::SHUFFLE, filter_id::BITSHUFFLE] {
                for &ts in &[1i32, 2, 3, 4, 8, 12, 16, 17, 32, 255] {
                    for &n in &[0usize, 1, 7, 100, 129, 1000, 4096, 65536 + 13, 300_000] {
                        let mut p = CParams {
                            compcode,
                            clevel: 7,
                            typesize: ts,
                            ..CParams::default()
                        };
                        p.filters = [0, 0, 0, 0, 0, filter];
                        let src = data(n, ts as usize);
                        compress_chunk(&p, &src, &mut out).unwrap();
                        let h = &out[..16];
                        assert_eq!((h[0], h[1]), (2, 1), "{compcode} {filter} {ts} {n}");
                        assert!(incompatibility(h, n).is_none());
                        let mut back = vec![0u8; n];
                        let got =
                            crate::chunk::decompress(&DParams::default(), &out, &mut back, None)
                                .unwrap();
                        assert_eq!(got, n);
                        assert!(back == src, "{compcode} {filter} {ts} {n}");
                    }
                }
            }
        }
    }

    #[test]
    fn rejects_blosc2_only_params() {
        let mut out = Vec::new();
        let p = CParams {
            filters: [0, 0, 0, 0, filter_id::DELTA, filter_id::SHUFFLE],
            ..CParams::default()
        };
        assert!(compress_chunk(&p, b"abc", &mut out).is_err());
        let p = CParams {
            typesize: 256,
            ..CParams::default()
        };
        assert!(compress_chunk(&p, b"abc", &mut out).is_err());
        let p = CParams {
            use_dict: true,
            compcode: codecs::ZSTD,
            ..CParams::default()
        };
        assert!(compress_chunk(&p, b"abc", &mut out).is_err());
        let p = CParams {
            compcode: 32,
            ..CParams::default()
        };
        assert!(compress_chunk(&p, b"abc", &mut out).is_err());
    }
}
