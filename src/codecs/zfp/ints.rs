//! zfp's embedded coding of a cell's integers: bit planes from the most significant, each the
//! bits of the values already significant followed by a unary group test for the rest.

use super::*;

/// zfp's `with_maxbits`: whether the bit budget can cut the coding short.
pub(super) fn with_maxbits(maxbits: u32, maxprec: u32, size: u32) -> bool {
    (maxprec + 1) * size - 1 > maxbits
}

/// Bit plane `k` of `data` (at most 64 values) as a word, value `i` in bit `i`.
#[inline]
pub(super) fn plane(data: &[u64], k: u32) -> u64 {
    let mut x = 0u64;
    for (i, &d) in data.iter().enumerate() {
        x += ((d >> k) & 1) << i;
    }
    x
}

/// Transpose a 64×64 bit matrix: afterwards bit `i` of `a[j]` is what bit `j` of `a[i]` was.
pub(super) fn transpose64(a: &mut [u64; 64]) {
    let mut j = 32;
    let mut m: u64 = 0x0000_0000_FFFF_FFFF;
    while j != 0 {
        let mut k = 0;
        while k < 64 {
            let t = ((a[k] >> j) ^ a[k + j]) & m;
            a[k] ^= t << j;
            a[k + j] ^= t;
            k = (k + j + 1) & !j;
        }
        j >>= 1;
        m ^= m << j;
    }
}

/// All bit planes of `data` (at most 64 values): `planes[k]` = [`plane`]`(data, k)`.
pub(super) fn planes(data: &[u64], out: &mut [u64; 64]) {
    if data.len() >= 16 {
        out.fill(0);
        out[..data.len()].copy_from_slice(data);
        transpose64(out);
    } else {
        for (k, p) in out.iter_mut().enumerate() {
            *p = plane(data, k as u32);
        }
    }
}

/// Encode `data` (values of `intprec` bits) with at most `maxbits` bits and `maxprec` planes;
/// return the number of bits written.
pub(super) fn encode_ints(
    s: &mut BitWriter,
    maxbits: u32,
    maxprec: u32,
    data: &[u64],
    intprec: u32,
) -> u32 {
    let size = data.len() as u32;
    let kmin = intprec.saturating_sub(maxprec);
    let mut all = [0u64; 64];
    if size <= 64 {
        planes(data, &mut all);
    }
    if with_maxbits(maxbits, maxprec, size) {
        let mut bits = maxbits;
        let mut k = intprec;
        let mut n = 0u32;
        if size <= 64 {
            while bits != 0 && k > kmin {
                k -= 1;
                let mut x = all[k as usize];
                let m = n.min(bits);
                bits -= m;
                x = s.write_bits(x, m);
                while bits != 0 && n < size {
                    bits -= 1;
                    if s.write_bit((x != 0) as u32) != 0 {
                        while bits != 0 && n < size - 1 {
                            bits -= 1;
                            if s.write_bit((x & 1) as u32) != 0 {
                                break;
                            }
                            x >>= 1;
                            n += 1;
                        }
                    } else {
                        break;
                    }
                    x >>= 1;
                    n += 1;
                }
            }
        } else {
            while bits != 0 && k > kmin {
                k -= 1;
                let m = n.min(bits);
                bits -= m;
                write_prefix(s, &data[..m as usize], k);
                let mut c: u32 = data[m as usize..]
                    .iter()
                    .map(|d| ((d >> k) & 1) as u32)
                    .sum();
                while bits != 0 && n < size {
                    bits -= 1;
                    if s.write_bit((c != 0) as u32) != 0 {
                        c -= 1;
                        while bits != 0 && n < size - 1 {
                            bits -= 1;
                            if s.write_bit(((data[n as usize] >> k) & 1) as u32) != 0 {
                                break;
                            }
                            n += 1;
                        }
                    } else {
                        break;
                    }
                    n += 1;
                }
            }
        }
        maxbits - bits
    } else {
        let start = s.out.len() as u64 * 8 + u64::from(s.bits);
        let mut n = 0u32;
        if size <= 64 {
            for k in (kmin..intprec).rev() {
                let mut x = all[k as usize];
                x = s.write_bits(x, n);
                while n < size && s.write_bit((x != 0) as u32) != 0 {
                    while n < size - 1 && s.write_bit((x & 1) as u32) == 0 {
                        x >>= 1;
                        n += 1;
                    }
                    x >>= 1;
                    n += 1;
                }
            }
        } else {
            for k in (kmin..intprec).rev() {
                write_prefix(s, &data[..n as usize], k);
                let mut c: u32 = data[n as usize..]
                    .iter()
                    .map(|d| ((d >> k) & 1) as u32)
                    .sum();
                while n < size && s.write_bit((c != 0) as u32) != 0 {
                    c = c.wrapping_sub(1);
                    while n < size - 1 && s.write_bit(((data[n as usize] >> k) & 1) as u32) == 0 {
                        n += 1;
                    }
                    n += 1;
                }
            }
        }
        (s.out.len() as u64 * 8 + u64::from(s.bits) - start) as u32
    }
}

/// Decode into `data` (zeroed here) what [`encode_ints`] wrote; return the bits read.
pub(super) fn decode_ints(
    s: &mut BitReader<'_>,
    maxbits: u32,
    maxprec: u32,
    data: &mut [u64],
    intprec: u32,
) -> u32 {
    let size = data.len() as u32;
    let kmin = intprec.saturating_sub(maxprec);
    data.fill(0);
    if with_maxbits(maxbits, maxprec, size) {
        let mut bits = maxbits;
        let mut k = intprec;
        let mut n = 0u32;
        if size <= 64 {
            while bits != 0 && k > kmin {
                k -= 1;
                let m = n.min(bits);
                bits -= m;
                let mut x = s.read_bits(m);
                while bits != 0 && n < size {
                    bits -= 1;
                    if s.read_bit() != 0 {
                        while bits != 0 && n < size - 1 {
                            bits -= 1;
                            if s.read_bit() != 0 {
                                break;
                            }
                            n += 1;
                        }
                        x += 1u64 << n;
                    } else {
                        break;
                    }
                    n += 1;
                }
                deposit(data, x, k);
            }
        } else {
            while bits != 0 && k > kmin {
                k -= 1;
                let m = n.min(bits);
                bits -= m;
                read_prefix(s, &mut data[..m as usize], k);
                while bits != 0 && n < size {
                    bits -= 1;
                    if s.read_bit() != 0 {
                        while bits != 0 && n < size - 1 {
                            bits -= 1;
                            if s.read_bit() != 0 {
                                break;
                            }
                            n += 1;
                        }
                        let d = &mut data[n as usize];
                        *d = d.wrapping_add(1u64 << k);
                    } else {
                        break;
                    }
                    n += 1;
                }
            }
        }
        maxbits - bits
    } else {
        let start = s.tell();
        let mut n = 0u32;
        if size <= 64 {
            for k in (kmin..intprec).rev() {
                let mut x = s.read_bits(n);
                while n < size && s.read_bit() != 0 {
                    while n < size - 1 && s.read_bit() == 0 {
                        n += 1;
                    }
                    x += 1u64 << n;
                    n += 1;
                }
                deposit(data, x, k);
            }
        } else {
            for k in (kmin..intprec).rev() {
                read_prefix(s, &mut data[..n as usize], k);
                while n < size && s.read_bit() != 0 {
                    while n < size - 1 && s.read_bit() == 0 {
                        n += 1;
                    }
                    let d = &mut data[n as usize];
                    *d = d.wrapping_add(1u64 << k);
                    n += 1;
                }
            }
        }
        (s.tell() - start) as u32
    }
}

/// Write bit `k` of each value of `data`, in order (64 at a time).
#[inline]
pub(super) fn write_prefix(s: &mut BitWriter, data: &[u64], k: u32) {
    for chunk in data.chunks(64) {
        s.write_bits(plane(chunk, k), chunk.len() as u32);
    }
}

/// Read one bit per value of `data`, in order, and add it at position `k` (64 at a time).
#[inline]
pub(super) fn read_prefix(s: &mut BitReader<'_>, data: &mut [u64], k: u32) {
    for chunk in data.chunks_mut(64) {
        let mut x = s.read_bits(chunk.len() as u32);
        for d in chunk {
            *d = d.wrapping_add((x & 1) << k);
            x >>= 1;
        }
    }
}

/// Add bit plane `x` (bit `i` for value `i`) at position `k`.
#[inline]
pub(super) fn deposit(data: &mut [u64], mut x: u64, k: u32) {
    while x != 0 {
        let i = x.trailing_zeros() as usize;
        data[i] = data[i].wrapping_add(1u64 << k);
        x &= x - 1;
    }
}
