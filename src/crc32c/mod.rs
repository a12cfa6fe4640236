//! CRC-32C (Castagnoli, the checksum of iSCSI, ext4 and SSE4.2's `crc32` instruction): what
//! b2rs records per chunk in a super-chunk's `b2rs_crc32c` vlmetalayer (see
//! [`crate::schunk::ChunkChecksums`]).
//!
//! One public entry, [`crc32c_append`] (and [`crc32c`] for a whole buffer), picks the
//! implementation once: the SSE4.2 kernel on x86_64 CPUs that have it (`sse42.rs`), else the
//! portable slicing-by-8 tables (`generic.rs`, the specification the kernel is tested against).

mod generic;
#[cfg(target_arch = "x86_64")]
mod sse42;

/// The CRC-32C of `data`.
///
/// # Examples
///
/// ```
/// assert_eq!(b2rs::crc32c::crc32c(b"123456789"), 0xE306_9283);
/// assert_eq!(b2rs::crc32c::crc32c(b""), 0);
/// ```
pub fn crc32c(data: &[u8]) -> u32 {
    crc32c_append(0, data)
}

/// Continue the CRC-32C `crc` of some bytes over the bytes `data` that follow them: the CRC of
/// a buffer given in pieces.
///
/// # Examples
///
/// ```
/// use b2rs::crc32c::{crc32c, crc32c_append};
///
/// let whole = crc32c(b"123456789");
/// assert_eq!(crc32c_append(crc32c(b"1234"), b"56789"), whole);
/// ```
pub fn crc32c_append(crc: u32, data: &[u8]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    if has_sse42() {
        // SAFETY: SSE4.2 was detected on this CPU.
        return unsafe { sse42::update(crc, data) };
    }
    generic::update(crc, data)
}

/// Whether the CPU has SSE4.2 (detected once).
#[cfg(target_arch = "x86_64")]
fn has_sse42() -> bool {
    static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAS.get_or_init(|| std::is_x86_feature_detected!("sse4.2"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known vectors: RFC 3720 (iSCSI) appendix B.4 and the usual check value.
    #[test]
    fn known_vectors() {
        let cases: [(&[u8], u32); 5] = [
            (b"123456789", 0xE306_9283),
            (&[0u8; 32], 0x8A91_36AA),
            (&[0xFFu8; 32], 0x62A8_AB43),
            (b"", 0),
            (b"a", 0xC1D0_4330),
        ];
        let inc: Vec<u8> = (0u8..32).collect();
        let dec: Vec<u8> = (0u8..32).rev().collect();
        assert_eq!(generic::update(0, &inc), 0x46DD_794E);
        assert_eq!(generic::update(0, &dec), 0x113F_DB5C);
        for (data, want) in cases {
            assert_eq!(generic::update(0, data), want, "{data:?}");
            assert_eq!(crc32c(data), want, "{data:?}");
        }
        assert_eq!(crc32c(&inc), 0x46DD_794E);
        assert_eq!(crc32c(&dec), 0x113F_DB5C);
    }

    /// Pseudo-random bytes (xorshift), deterministic.
    fn noise(n: usize, seed: u64) -> Vec<u8> {
        let mut s = seed | 1;
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s >> 24) as u8
            })
            .collect()
    }

    /// The bit-at-a-time definition, for checking the tables.
    fn bitwise(data: &[u8]) -> u32 {
        let mut c = !0u32;
        for &b in data {
            c ^= b as u32;
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    (c >> 1) ^ 0x82F6_3B78
                } else {
                    c >> 1
                };
            }
        }
        !c
    }

    #[test]
    fn generic_matches_bitwise_definition() {
        for n in [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000] {
            let d = noise(n, n as u64 + 3);
            assert_eq!(generic::update(0, &d), bitwise(&d), "len {n}");
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn sse42_matches_generic() {
        if !has_sse42() {
            return;
        }
        let d = noise(5000, 42);
        for start in 0..9 {
            for len in [
                0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 63, 64, 65, 255, 1000, 4000,
            ] {
                let s = &d[start..start + len];
                for seed in [0, 0xDEAD_BEEF] {
                    // SAFETY: SSE4.2 detected above.
                    let fast = unsafe { sse42::update(seed, s) };
                    assert_eq!(fast, generic::update(seed, s), "start {start} len {len}");
                }
            }
        }
    }

    #[test]
    fn pieces_give_the_whole() {
        let d = noise(3001, 7);
        let whole = crc32c(&d);
        for cut in [0, 1, 8, 13, 1500, 3000, 3001] {
            assert_eq!(crc32c_append(crc32c(&d[..cut]), &d[cut..]), whole);
            assert_eq!(
                generic::update(generic::update(0, &d[..cut]), &d[cut..]),
                whole
            );
        }
    }
}
