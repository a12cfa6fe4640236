use super::*;

#[test]
fn xxh32_vectors() {
    assert_eq!(xxh32(b"", 0), 0x02CC_5D05);
    assert_eq!(xxh32(b"a", 0), 0x550D_7456);
    assert_eq!(xxh32(b"abc", 0), 0x32D1_53FF);
    assert_eq!(
        xxh32(b"Nobody inspects the spammish repetition", 0),
        0xE229_3B2F
    );
}

/// Smooth-ish 2-D bytes with repeated rows and cells, so that every token kind shows up.
fn image(b0: usize, b1: usize) -> Vec<u8> {
    let mut v = vec![0u8; b0 * b1];
    for i in 0..b0 {
        for j in 0..b1 {
            v[i * b1 + j] = match (i / 4 + j / 8) % 5 {
                0 => 7,
                1 => ((i % 4) * 3 + j % 4) as u8,
                2 => (j % 4) as u8,
                3 => ((i * 7 + j * 13) % 251) as u8,
                _ => ((i % 2) * 5 + j % 4) as u8,
            };
        }
    }
    v
}

#[test]
fn round_trips() {
    for meta in [4u8, 8] {
        for (b0, b1) in [
            (16, 16),
            (32, 48),
            (10, 12),
            (33, 17),
            (64, 64),
            (8, 8),
            (5, 70),
        ] {
            let nd = Meta::new(&[100, 100], &[50, 50], &[b0, b1]);
            let src = image(b0 as usize, b1 as usize);
            let mut dst = vec![0u8; src.len()];
            let n = compress(meta, Some(&nd), &src, &mut dst).unwrap();
            if n == 0 {
                continue;
            }
            let mut out = vec![0u8; src.len()];
            let got = decompress(meta, &dst[..n], &mut out).unwrap();
            assert_eq!(got, src.len(), "meta {meta} {b0}x{b1}");
            assert_eq!(out, src, "meta {meta} {b0}x{b1}");
        }
    }
}

#[test]
fn refuses_what_the_reference_refuses() {
    let nd2 = Meta::new(&[8, 8], &[8, 8], &[8, 8]);
    let nd3 = Meta::new(&[8, 8, 8], &[8, 8, 8], &[8, 8, 8]);
    let src = image(8, 8);
    let mut dst = vec![0u8; 64];
    assert_eq!(compress(4, None, &src, &mut dst), Err(Error::Failure));
    assert_eq!(compress(5, Some(&nd2), &src, &mut dst), Err(Error::Failure));
    assert_eq!(compress(4, Some(&nd3), &src, &mut dst), Err(Error::Failure));
    assert_eq!(
        compress(4, Some(&nd2), &src[..32], &mut dst),
        Err(Error::Failure)
    );
    // corrupt streams fail cleanly
    let n = compress(4, Some(&nd2), &src, &mut dst).unwrap();
    assert!(n > 0);
    let mut out = vec![0u8; 64];
    for cut in [0, 7, 9, n / 2, n - 1] {
        assert!(decompress(4, &dst[..cut], &mut out) != Ok(64));
    }
    let mut bad = dst[..n].to_vec();
    bad[9] = 0xC0;
    bad[10] = 0xFF;
    bad[11] = 0xFF;
    assert!(decompress(4, &bad, &mut out).is_err());
}
