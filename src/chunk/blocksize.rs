//! Choice of the block size and of the split decision, reproducing C-Blosc2's "stune"
//! (CHUNK.md §10).

use crate::codecs;
use crate::params::{filter_id, SplitMode, MAX_FILTERS};

const L1: i64 = 32 * 1024;
const OPENZL: u8 = 38;

/// Whether the codec is one of the "high compression ratio" codecs (LZ4HC, Zlib, Zstd).
fn is_hcr(compcode: u8) -> bool {
    matches!(compcode, codecs::LZ4HC | codecs::ZLIB | codecs::ZSTD)
}

/// The split decision for a block of `bs` bytes (CHUNK.md §10, `split(typesize, bs)`).
///
/// # Examples
///
/// ```
/// use b2rs::chunk::blocksize::split_block;
/// use b2rs::{codecs, params::filter_id, SplitMode};
///
/// let shuffle = [0, 0, 0, 0, 0, filter_id::SHUFFLE];
/// // automatic: BloscLZ with shuffle on 4-byte items splits a block into 4 streams
/// assert!(split_block(SplitMode::Auto, codecs::BLOSCLZ, 5, &shuffle, 4, 8192));
/// // ... but not with a high-ratio codec like LZ4HC
/// assert!(!split_block(SplitMode::Auto, codecs::LZ4HC, 5, &shuffle, 4, 8192));
/// assert!(split_block(SplitMode::Always, codecs::LZ4HC, 5, &shuffle, 4, 8192));
/// ```
pub fn split_block(
    splitmode: SplitMode,
    compcode: u8,
    clevel: u8,
    filters: &[u8; MAX_FILTERS],
    typesize: i64,
    bs: i64,
) -> bool {
    match splitmode {
        SplitMode::Always => true,
        SplitMode::Never => false,
        SplitMode::Auto | SplitMode::ForwardCompat => {
            if compcode == OPENZL {
                return false;
            }
            let codec_ok = compcode == codecs::BLOSCLZ
                || compcode == codecs::LZ4
                || (compcode == codecs::ZSTD && clevel <= 5);
            let has_shuffle = filters.contains(&filter_id::SHUFFLE);
            codec_ok && has_shuffle && typesize > 0 && typesize <= 16 && bs / typesize >= 32
        }
    }
}

/// The automatic block size for `nbytes` of input (`typesize` is the requested element size).
/// `user_blocksize` > 0 overrides the automatic choice (then clamped and rounded).
///
/// # Examples
///
/// ```
/// use b2rs::chunk::blocksize::compute_blocksize;
/// use b2rs::{codecs, params::filter_id, SplitMode};
///
/// let shuffle = [0, 0, 0, 0, 0, filter_id::SHUFFLE];
/// let auto = compute_blocksize(SplitMode::Auto, codecs::LZ4, 5, &shuffle, 4, 1 << 20, 0);
/// assert!(auto > 0 && auto < 1 << 20 && auto % 4 == 0);
/// // a user block size wins
/// assert_eq!(compute_blocksize(SplitMode::Auto, codecs::LZ4, 5, &shuffle, 4, 1 << 20, 8192), 8192);
/// // less than one item
/// assert_eq!(compute_blocksize(SplitMode::Auto, codecs::LZ4, 5, &shuffle, 4, 2, 0), 1);
/// ```
#[allow(clippy::too_many_arguments)]
pub fn compute_blocksize(
    splitmode: SplitMode,
    compcode: u8,
    clevel: u8,
    filters: &[u8; MAX_FILTERS],
    typesize: i64,
    nbytes: i64,
    user_blocksize: i64,
) -> i64 {
    if nbytes < typesize {
        return 1;
    }
    let split = split_block(splitmode, compcode, clevel, filters, typesize, nbytes);
    let mut bs;
    if user_blocksize > 0 {
        bs = user_blocksize;
    } else {
        bs = nbytes;
        if nbytes >= L1 {
            bs = L1;
            let hcr = is_hcr(compcode);
            if hcr {
                bs *= 2;
            }
            match clevel {
                0 => bs /= 4,
                1 => bs /= 2,
                2 => {}
                3 => bs *= 2,
                4 | 5 => bs *= 4,
                6..=8 => bs *= 8,
                _ => {
                    bs *= 8;
                    if hcr {
                        bs *= 2;
                    }
                }
            }
        }
        if clevel > 0 && split {
            let per: i64 = match clevel {
                1..=3 => 32 * 1024,
                4..=6 => 64 * 1024,
                7 => 128 * 1024,
                8 => 256 * 1024,
                _ => 512 * 1024,
            };
            bs = per * typesize;
            bs = bs.clamp(32 * 1024, 4 * 1024 * 1024);
        }
    }
    bs = bs.min(nbytes);
    if bs > typesize {
        bs -= bs % typesize;
    }
    bs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worked_example() {
        let f = [0, 0, 0, 0, 0, 1];
        assert_eq!(
            compute_blocksize(SplitMode::ForwardCompat, 0, 5, &f, 4, 1_000_000, 0),
            262_144
        );
        assert!(split_block(SplitMode::ForwardCompat, 0, 5, &f, 4, 262_144));
    }

    #[test]
    fn compat_files_blocksizes() {
        // C-Blosc2 3.0.0 blosc1_compress(clevel 9, shuffle, typesize 4) of 4 000 000 bytes.
        let f = [0, 0, 0, 0, 0, 1];
        assert_eq!(
            compute_blocksize(SplitMode::ForwardCompat, 5, 9, &f, 4, 4_000_000, 0),
            1_048_576
        );
        assert_eq!(
            compute_blocksize(SplitMode::ForwardCompat, 0, 9, &f, 4, 4_000_000, 0),
            2_097_152
        );
    }

    #[test]
    fn small_inputs() {
        let f = [0; 6];
        assert_eq!(
            compute_blocksize(SplitMode::ForwardCompat, 0, 5, &f, 8, 4, 0),
            1
        );
        assert_eq!(
            compute_blocksize(SplitMode::ForwardCompat, 0, 5, &f, 4, 1000, 0),
            1000
        );
        assert_eq!(
            compute_blocksize(SplitMode::ForwardCompat, 0, 5, &f, 3, 1000, 0),
            999
        );
    }
}
