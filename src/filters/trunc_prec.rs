//! TRUNC_PREC filter (id 4): lossy truncation of IEEE float mantissas (FILTERS.md §6).
//!
//! Only for typesize 4 (f32, 23 mantissa bits) and 8 (f64, 52 bits). `prec >= 0` keeps `prec`
//! mantissa bits, `prec < 0` clears `|prec|` low bits; clearing the whole mantissa (or more) is
//! refused so that NaN/infinity encodings survive. There is no inverse (decoders skip the slot).

use crate::error::{Error, Result};

/// Zero low mantissa bits (FILTERS.md §6). Errors (typesize not 4/8, invalid precision) return
/// `Err(Error::FilterPipeline)`, the code C-Blosc2's `blosc2_compress_ctx` reports for them
/// (verified against libblosc2 4.14.1: −18 for typesize 2 and for precision 0).
///
/// Only the first `min(src.len(), dst.len())` bytes are processed; the `L % typesize` trailing
/// bytes are copied unchanged. On error `dst` is not written.
///
/// # Examples
///
/// ```
/// use b2rs::filters::trunc_prec::truncate;
/// use b2rs::Error;
///
/// let x = 1.0f32 + f32::EPSILON; // the lowest mantissa bit set
/// let mut dst = [0u8; 4];
/// truncate(10, 4, &x.to_le_bytes(), &mut dst).unwrap();
/// assert_eq!(f32::from_le_bytes(dst), 1.0);
/// // typesize 2 is not a float
/// assert_eq!(truncate(10, 2, &[0; 4], &mut dst), Err(Error::FilterPipeline));
/// ```
pub fn truncate(prec: i8, typesize: usize, src: &[u8], dst: &mut [u8]) -> Result<()> {
    let mantissa: u32 = match typesize {
        4 => 23,
        8 => 52,
        _ => {
            crate::trace_error!(
                "trunc_prec: precision for typesize {} not handled",
                typesize
            );
            return Err(Error::FilterPipeline);
        }
    };
    if prec.unsigned_abs() as u32 > mantissa {
        crate::trace_error!(
            "trunc_prec: the precision cannot be larger than {} bits (asking for {})",
            mantissa,
            prec
        );
        return Err(Error::FilterPipeline);
    }
    let zeroed = if prec >= 0 {
        mantissa - prec as u32
    } else {
        prec.unsigned_abs() as u32
    };
    if zeroed >= mantissa {
        crate::trace_error!(
            "trunc_prec: the reduction in precision cannot be >= {} bits (asking for {})",
            mantissa,
            zeroed
        );
        return Err(Error::FilterPipeline);
    }

    let len = src.len().min(dst.len());
    let body = len / typesize * typesize;
    if typesize == 4 {
        let mask = !((1u32 << zeroed) - 1);
        for (d, s) in dst[..body]
            .chunks_exact_mut(4)
            .zip(src[..body].chunks_exact(4))
        {
            let v = u32::from_le_bytes(s.try_into().expect("4 bytes")) & mask;
            d.copy_from_slice(&v.to_le_bytes());
        }
    } else {
        let mask = !((1u64 << zeroed) - 1);
        for (d, s) in dst[..body]
            .chunks_exact_mut(8)
            .zip(src[..body].chunks_exact(8))
        {
            let v = u64::from_le_bytes(s.try_into().expect("8 bytes")) & mask;
            d.copy_from_slice(&v.to_le_bytes());
        }
    }
    dst[body..len].copy_from_slice(&src[body..len]);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32_bytes(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn f64_bytes(v: &[f64]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn samples32() -> Vec<f32> {
        let mut v: Vec<f32> = (0..1000)
            .map(|i| ((i as f32) * 0.37).sin() * 1234.567 + i as f32)
            .collect();
        v.extend([
            0.0,
            -0.0,
            1.0,
            -1.0,
            f32::MAX,
            f32::MIN_POSITIVE,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ]);
        v
    }

    fn samples64() -> Vec<f64> {
        let mut v: Vec<f64> = (0..1000)
            .map(|i| ((i as f64) * 0.37).sin() * 1234.567 + i as f64 * 1e-7)
            .collect();
        v.extend([
            0.0,
            -0.0,
            1.0,
            -1.0,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ]);
        v
    }

    #[test]
    fn f32_precisions() {
        let x = samples32();
        let src = f32_bytes(&x);
        // (prec, low bits cleared)
        for (p, zeroed) in [
            (10i8, 13u32),
            (20, 3),
            (23, 0),
            (-3, 3),
            (-10, 10),
            (1, 22),
            (-22, 22),
        ] {
            let mut dst = vec![0; src.len()];
            truncate(p, 4, &src, &mut dst).unwrap();
            for (i, (d, &v)) in dst.chunks_exact(4).zip(&x).enumerate() {
                let got = u32::from_le_bytes(d.try_into().unwrap());
                let want = v.to_bits() & !((1u32 << zeroed) - 1);
                assert_eq!(got, want, "p={p} element {i}");
                let g = f32::from_bits(got);
                if v.is_finite() && v != 0.0 {
                    assert!(
                        ((g - v) / v).abs() < 2f32.powi(-(23 - zeroed as i32)),
                        "p={p} {v} -> {g}"
                    );
                }
                assert_eq!(g.is_nan(), v.is_nan());
                assert_eq!(g.is_infinite(), v.is_infinite());
            }
        }
    }

    #[test]
    fn f64_precisions() {
        let x = samples64();
        let src = f64_bytes(&x);
        for (p, zeroed) in [
            (10i8, 42u32),
            (20, 32),
            (23, 29),
            (-3, 3),
            (-10, 10),
            (52, 0),
            (-51, 51),
        ] {
            let mut dst = vec![0; src.len()];
            truncate(p, 8, &src, &mut dst).unwrap();
            for (i, (d, &v)) in dst.chunks_exact(8).zip(&x).enumerate() {
                let got = u64::from_le_bytes(d.try_into().unwrap());
                assert_eq!(
                    got,
                    v.to_bits() & !((1u64 << zeroed) - 1),
                    "p={p} element {i}"
                );
                assert_eq!(f64::from_bits(got).is_nan(), v.is_nan());
            }
        }
    }

    #[test]
    fn trailing_bytes_copied() {
        let src: Vec<u8> = (0..23).map(|i| 0xF0 | i).collect();
        let mut dst = vec![0; 23];
        truncate(-4, 4, &src, &mut dst).unwrap();
        assert_eq!(dst[20..], src[20..]);
        assert_eq!(dst[0], src[0] & 0xF0);
        truncate(-4, 8, &src, &mut dst).unwrap();
        assert_eq!(dst[16..], src[16..]);
    }

    #[test]
    fn errors() {
        let src = [0u8; 64];
        let mut dst = [0xAAu8; 64];
        // typesize not 4 or 8
        for ts in [0, 1, 2, 3, 16] {
            assert_eq!(
                truncate(10, ts, &src, &mut dst),
                Err(Error::FilterPipeline),
                "typesize {ts}"
            );
        }
        // p = 0, p = -MANT, |p| > MANT
        for (ts, p) in [
            (4, 0i8),
            (4, -23),
            (4, 24),
            (4, -24),
            (4, 52),
            (4, i8::MIN),
            (8, 0),
            (8, -52),
            (8, 53),
            (8, -53),
            (8, i8::MAX),
        ] {
            assert_eq!(
                truncate(p, ts, &src, &mut dst),
                Err(Error::FilterPipeline),
                "ts={ts} p={p}"
            );
        }
        assert!(dst.iter().all(|&b| b == 0xAA), "dst written on error");
        // The extremes that are allowed.
        assert!(truncate(23, 4, &src, &mut dst).is_ok());
        assert!(truncate(-22, 4, &src, &mut dst).is_ok());
        assert!(truncate(1, 8, &src, &mut dst).is_ok());
        assert!(truncate(-51, 8, &src, &mut dst).is_ok());
        assert_eq!(Error::FilterPipeline.code(), -18);
    }
}
