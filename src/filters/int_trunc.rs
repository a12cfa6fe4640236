//! INT_TRUNC filter (plugin id 36): lossy truncation of the low bits of integers
//! (FILTERS.md §8).
//!
//! Elements of 1, 2, 4 or 8 bytes (little-endian, signedness irrelevant). With `p = meta as
//! i8` and `bits = 8 * typesize`, `zeroed = bits - p` when `p >= 0` and `-p` otherwise,
//! computed like C-Blosc2 on a `u8` (so a `p` above `bits` wraps to a huge value); the filter
//! refuses `zeroed >= bits` (nothing would be kept) and otherwise clears the `zeroed` low bits of
//! every element. The valid metas are thus `1..=bits` and `-(bits-1)..=-1`. There is no inverse:
//! decoders skip the slot (C-Blosc2 copies the block, which is the same).

use crate::error::{Error, Result};

/// The number of low bits cleared for precision `prec` on `typesize`-byte integers, or `None`
/// when C-Blosc2 refuses the combination.
///
/// # Examples
///
/// ```
/// use b2rs::filters::int_trunc::zeroed_bits;
///
/// // keep 12 of the 16 bits
/// assert_eq!(zeroed_bits(12, 2), Some(4));
/// // a negative precision is the number of bits to clear
/// assert_eq!(zeroed_bits(-3, 4), Some(3));
/// assert_eq!(zeroed_bits(8, 3), None);
/// ```
pub fn zeroed_bits(prec: i8, typesize: usize) -> Option<u32> {
    if !matches!(typesize, 1 | 2 | 4 | 8) {
        return None;
    }
    let bits = (8 * typesize) as u8;
    let zeroed = if prec >= 0 {
        bits.wrapping_sub(prec as u8)
    } else {
        prec.unsigned_abs()
    };
    (zeroed < bits).then_some(zeroed as u32)
}

/// Clear the low bits of every `typesize`-byte element of `src` into `dst`. Errors (typesize
/// not 1/2/4/8, invalid precision) return `Err(Error::FilterPipeline)`, the code C-Blosc2's
/// `blosc2_compress_ctx` reports for them (verified against libblosc2 3.3.5).
///
/// Only the first `min(src.len(), dst.len())` bytes are processed; the `L % typesize` trailing
/// bytes are copied unchanged (C-Blosc2 leaves them undefined). On error `dst` is not written.
///
/// # Examples
///
/// ```
/// use b2rs::filters::int_trunc::truncate;
/// use b2rs::Error;
///
/// let src: Vec<u8> = [0x1234u16, 0xffff].iter().flat_map(|v| v.to_le_bytes()).collect();
/// let mut dst = [0u8; 4];
/// truncate(-4, 2, &src, &mut dst).unwrap();
/// assert_eq!(dst, [0x30, 0x12, 0xf0, 0xff]);
/// assert_eq!(truncate(4, 3, &src, &mut dst), Err(Error::FilterPipeline));
/// ```
pub fn truncate(prec: i8, typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<()> {
    let Some(zeroed) = zeroed_bits(prec, typesize) else {
        if matches!(typesize, 1 | 2 | 4 | 8) {
            crate::trace_error!(
                "int_trunc: the reduction in precision cannot be larger or equal than {} bits \
                 (asking for {} bits)",
                8 * typesize,
                prec
            );
        } else {
            crate::trace_error!(
                "Error in BLOSC_FILTER_INT_TRUNC filter: precision for typesize {} not handled",
                typesize
            );
        }
        return Err(Error::FilterPipeline);
    };
    let len = src.len().min(dst.len());
    let (src, dst) = (&src[..len], &mut dst[..len]);
    let body = len / typesize * typesize;
    let mask = !((1u64 << zeroed) - 1);
    match typesize {
        1 => mask_elems::<1>(mask, &src[..body], &mut dst[..body]),
        2 => mask_elems::<2>(mask, &src[..body], &mut dst[..body]),
        4 => mask_elems::<4>(mask, &src[..body], &mut dst[..body]),
        _ => mask_elems::<8>(mask, &src[..body], &mut dst[..body]),
    }
    dst[body..].copy_from_slice(&src[body..]);
    Ok(())
}

/// AND each little-endian element of `N` bytes with the low `8*N` bits of `mask`.
fn mask_elems<const N: usize>(mask: u64, src: &[u8], dst: &mut [u8]) {
    let m = mask.to_le_bytes();
    for (d, s) in dst.chunks_exact_mut(N).zip(src.chunks_exact(N)) {
        for k in 0..N {
            d[k] = s[k] & m[k];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filters::shuffle::tests::random_bytes;

    #[test]
    fn valid_precisions_match_reference() {
        // (typesize, metas C-Blosc2 3.3.5 accepts among a probe set, as observed)
        let probe: [i8; 20] = [
            0, 1, 4, 7, 8, 9, 16, 31, 32, 33, 63, 64, 65, 127, -1, -7, -8, -63, -64, -128,
        ];
        let accepted: [(usize, &[i8]); 4] = [
            (1, &[1, 4, 7, 8, -1, -7]),
            (2, &[1, 4, 7, 8, 9, 16, -1, -7, -8]),
            (4, &[1, 4, 7, 8, 9, 16, 31, 32, -1, -7, -8]),
            (8, &[1, 4, 7, 8, 9, 16, 31, 32, 33, 63, 64, -1, -7, -8, -63]),
        ];
        for (ts, ok) in accepted {
            for p in probe {
                assert_eq!(
                    zeroed_bits(p, ts).is_some(),
                    ok.contains(&p),
                    "typesize {ts} prec {p}"
                );
            }
        }
        for ts in [0, 3, 5, 16, 255] {
            assert!(zeroed_bits(4, ts).is_none());
        }
    }

    #[test]
    fn clears_low_bits() {
        let src: Vec<u8> = [0x1234_5678u32, 0xFFFF_FFFF, 0x8000_0FFF]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let mut dst = vec![0u8; src.len() + 2];
        let mut src2 = src.clone();
        src2.extend([0xAB, 0xCD]); // trailing bytes: copied
        truncate(20, 4, &src2, &mut dst).unwrap();
        let got: Vec<u32> = dst[..12]
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(got, [0x1234_5000, 0xFFFF_F000, 0x8000_0000]);
        assert_eq!(&dst[12..], &[0xAB, 0xCD]);
        // negative: clear 4 bits
        truncate(-4, 4, &src, &mut dst).unwrap();
        assert_eq!(&dst[..4], &0x1234_5670u32.to_le_bytes());
        // p = bits keeps everything
        for ts in [1usize, 2, 4, 8] {
            let s = random_bytes(1000, ts as u64);
            let mut d = vec![0u8; 1000];
            truncate((8 * ts) as i8, ts, &s, &mut d).unwrap();
            assert_eq!(d, s);
        }
    }

    #[test]
    fn every_typesize_and_precision() {
        let src = random_bytes(4099, 36);
        for ts in [1usize, 2, 4, 8] {
            for p in i8::MIN..=i8::MAX {
                let mut dst = vec![0x55u8; src.len()];
                let r = truncate(p, ts, &src, &mut dst);
                let Some(z) = zeroed_bits(p, ts) else {
                    assert_eq!(r, Err(Error::FilterPipeline));
                    assert!(dst.iter().all(|&b| b == 0x55), "dst written on error");
                    continue;
                };
                r.unwrap();
                let body = src.len() / ts * ts;
                for (s, d) in src[..body].chunks(ts).zip(dst.chunks(ts)) {
                    let mut v = [0u8; 8];
                    v[..ts].copy_from_slice(s);
                    let want = u64::from_le_bytes(v) & !((1u64 << z) - 1);
                    assert_eq!(d, &want.to_le_bytes()[..ts], "ts {ts} p {p}");
                }
                assert_eq!(&dst[body..], &src[body..]);
            }
        }
    }
}
