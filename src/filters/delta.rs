//! DELTA filter (id 3): XOR delta coding of a block (FILTERS.md §5).
//!
//! Data are processed in units of `U` bytes (`U` = typesize for 1, 2, 4, 8; 8 for other
//! multiples of 8; else 1). Block 0 (the block at chunk offset 0) XORs every unit with the
//! previous unit of the same block; every other block XORs with block 0 — the caller's raw
//! block 0 when encoding, the *decoded* block 0 of the output when decoding, so block 0 must be
//! decoded first. XOR is byte-wise, so the unit only matters for the lag within block 0 and for
//! which `L % U` trailing bytes are left alone: those are copied through unchanged (C-Blosc2
//! leaves them undefined; a decoder that leaves them as stored reads our output correctly).

/// The unit size `U` for an element size.
fn unit(typesize: usize) -> usize {
    match typesize {
        1 | 2 | 4 | 8 => typesize,
        t if t % 8 == 0 && t > 0 => 8,
        _ => 1,
    }
}

/// Encode one block. `dref` = the first bytes of the caller's original chunk input (raw block 0),
/// at least src.len() long; `offset` = byte offset of this block in the chunk (0 for block 0).
/// Block 0: each unit XOR previous unit of src; other blocks: XOR dref. Trailing L % U bytes copied.
///
/// Only the first `min(src.len(), dst.len())` bytes are processed. Should `dref` be shorter than
/// the block, the bytes beyond it are copied unchanged (and [`decode`] with the same `dref`
/// leaves them alone, so the pair still round-trips).
///
/// # Examples
///
/// ```
/// use b2rs::filters::delta::{decode, encode};
///
/// // block 0: each 2-byte unit XOR the previous one
/// let block0 = [1u8, 2, 1, 2, 3, 2];
/// let mut coded = [0u8; 6];
/// encode(&block0, 0, 2, &block0, &mut coded);
/// assert_eq!(coded, [1, 2, 0, 0, 2, 0]);
/// decode(&[], 0, 2, &mut coded);
/// assert_eq!(coded, block0);
/// ```
pub fn encode(dref: &[u8], offset: usize, typesize: usize, src: &[u8], dst: &mut [u8]) {
    let len = src.len().min(dst.len());
    let (src, dst) = (&src[..len], &mut dst[..len]);
    let u = unit(typesize);
    let body = len / u * u;
    if offset == 0 {
        let head = u.min(body);
        dst[..head].copy_from_slice(&src[..head]);
        if body > u {
            let cur = &src[u..body];
            let prev = &src[..body - u];
            for ((d, &x), &p) in dst[u..body].iter_mut().zip(cur).zip(prev) {
                *d = x ^ p;
            }
        }
    } else {
        let coded = body.min(dref.len());
        for ((d, &x), &r) in dst[..coded]
            .iter_mut()
            .zip(&src[..coded])
            .zip(&dref[..coded])
        {
            *d = x ^ r;
        }
        dst[coded..body].copy_from_slice(&src[coded..body]);
    }
    dst[body..].copy_from_slice(&src[body..]);
}

/// Decode one block in place. For offset 0, `dref` is ignored (cumulative XOR over `data` itself);
/// otherwise `dref` = decoded block 0 of the final output (at least data.len() long).
///
/// Should `dref` be shorter than the block, the bytes beyond it are left as they are (the
/// mirror of [`encode`]).
///
/// # Examples
///
/// ```
/// use b2rs::filters::delta::{decode, encode};
///
/// // a later block is XORed with block 0 of the chunk
/// let block0 = [5u8, 6, 7, 8];
/// let block1 = [5u8, 6, 7, 9];
/// let mut coded = [0u8; 4];
/// encode(&block0, 4, 1, &block1, &mut coded);
/// assert_eq!(coded, [0, 0, 0, 1]);
/// decode(&block0, 4, 1, &mut coded);
/// assert_eq!(coded, block1);
/// ```
pub fn decode(dref: &[u8], offset: usize, typesize: usize, data: &mut [u8]) {
    let u = unit(typesize);
    let body = data.len() / u * u;
    if offset == 0 {
        prefix_xor(u, &mut data[..body]);
    } else {
        let coded = body.min(dref.len());
        for (d, &r) in data[..coded].iter_mut().zip(&dref[..coded]) {
            *d ^= r;
        }
    }
}

/// `data[b] ^= data[b - u]` for `b = u, u+1, …` in order (each unit XORed with the already
/// decoded previous unit), eight bytes at a time: within a little-endian word the running XOR
/// of the units is a few shift-XORs, and the last decoded unit of the previous word, repeated
/// in every unit, is XORed in. `u` is 1, 2, 4 or 8.
fn prefix_xor(u: usize, data: &mut [u8]) {
    let replicate: u64 = match u {
        1 => 0x0101_0101_0101_0101,
        2 => 0x0001_0001_0001_0001,
        4 => 0x0000_0001_0000_0001,
        _ => 1,
    };
    let mut carry = 0u64;
    let start = data.len() / 8 * 8;
    for word in data[..start].chunks_exact_mut(8) {
        let mut w = u64::from_le_bytes((&*word).try_into().expect("8 bytes"));
        if u <= 1 {
            w ^= w << 8;
        }
        if u <= 2 {
            w ^= w << 16;
        }
        if u <= 4 {
            w ^= w << 32;
        }
        w ^= carry;
        word.copy_from_slice(&w.to_le_bytes());
        carry = (w >> (64 - 8 * u)).wrapping_mul(replicate);
    }
    for b in start.max(u)..data.len() {
        data[b] ^= data[b - u];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::shuffle::tests::random_bytes;

    /// FILTERS.md §5 literally, unit by unit (trailing bytes copied).
    fn encode_naive(dref: &[u8], offset: usize, ts: usize, src: &[u8]) -> Vec<u8> {
        let u = unit(ts);
        let n = src.len() / u;
        let mut out = src.to_vec();
        for i in 0..n {
            for b in 0..u {
                let p = i * u + b;
                out[p] = if offset == 0 {
                    if i == 0 {
                        src[p]
                    } else {
                        src[p] ^ src[p - u]
                    }
                } else {
                    src[p] ^ dref[p]
                };
            }
        }
        out
    }

    const TYPESIZES: [usize; 9] = [1, 2, 3, 4, 5, 8, 12, 16, 24];

    #[test]
    fn units() {
        let want = [
            (1, 1),
            (2, 2),
            (3, 1),
            (4, 4),
            (5, 1),
            (6, 1),
            (7, 1),
            (8, 8),
            (12, 1),
            (16, 8),
            (24, 8),
            (0, 1),
        ];
        for (ts, u) in want {
            assert_eq!(unit(ts), u, "typesize {ts}");
        }
    }

    #[test]
    fn encode_matches_definition_and_decodes() {
        for ts in TYPESIZES {
            for len in [0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 100, 1001, 4096 + 5] {
                let src = random_bytes(len, (ts * 31 + len) as u64);
                let dref = random_bytes(len + 10, 77);
                for offset in [0, len.max(1)] {
                    let want = encode_naive(&dref, offset, ts, &src);
                    let mut got = vec![0xEE; len];
                    encode(&dref, offset, ts, &src, &mut got);
                    assert_eq!(got, want, "ts={ts} len={len} offset={offset}");
                    decode(&dref, offset, ts, &mut got);
                    assert_eq!(got, src, "ts={ts} len={len} offset={offset}");
                }
            }
        }
    }

    /// A chunk of several blocks (the last one short): encode every block against raw block 0,
    /// then decode block 0 first and the others against the decoded block 0.
    #[test]
    fn multi_block_round_trip() {
        for ts in TYPESIZES {
            for (nbytes, blocksize) in
                [(10_000, 1024), (4096 * 3 + 17, 4096), (999, 1000), (64, 16)]
            {
                let blocksize = (blocksize / ts * ts).max(ts);
                let chunk = random_bytes(nbytes, (ts * 1000 + nbytes) as u64);
                let mut coded = vec![0u8; nbytes];
                for (j, (src, dst)) in chunk
                    .chunks(blocksize)
                    .zip(coded.chunks_mut(blocksize))
                    .enumerate()
                {
                    encode(&chunk, j * blocksize, ts, src, dst);
                }
                assert_eq!(coded[..unit(ts)], chunk[..unit(ts)]);
                let mut out = coded.clone();
                let (block0, rest) = out.split_at_mut(blocksize.min(nbytes));
                decode(&[], 0, ts, block0);
                for (j, block) in rest.chunks_mut(blocksize).enumerate() {
                    decode(block0, (j + 1) * blocksize, ts, block);
                }
                assert_eq!(out, chunk, "ts={ts} nbytes={nbytes} blocksize={blocksize}");
            }
        }
    }

    #[test]
    fn short_reference_does_not_panic() {
        let src = random_bytes(100, 1);
        let dref = random_bytes(40, 2);
        let mut dst = vec![0; 100];
        encode(&dref, 100, 4, &src, &mut dst);
        assert_eq!(dst[40..], src[40..]);
        decode(&dref, 100, 4, &mut dst);
        assert_eq!(dst, src);
        // Unequal src/dst lengths.
        let mut small = vec![0; 10];
        encode(&dref, 0, 8, &src, &mut small);
        decode(&[], 0, 8, &mut small);
        assert_eq!(small, src[..10]);
    }
}
