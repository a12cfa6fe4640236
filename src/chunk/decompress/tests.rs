//! The reading rules for malformed chunks (the C test `test_badinput.c` checks them against
//! C-Blosc2 through the C API).

use super::reader::fill_pattern;
use super::*;
use crate::chunk::{compress, vlcompress};
use crate::params::CParams;

#[test]
fn fill_pattern_equals_the_bytewise_repetition() {
    for n in [1usize, 2, 3, 4, 7, 8, 12, 16, 32, 64, 100, 4096, 65_537] {
        let pat: Vec<u8> = (0..n).map(|i| (i * 31 + 7) as u8).collect();
        for len in [0usize, 1, n - 1, n, n + 1, 3 * n + 2, 70_001, 200_000] {
            for start in [0, 1, n / 2, n + 3] {
                let mut got = vec![0xEEu8; len];
                fill_pattern(&mut got, &pat, start);
                let want: Vec<u8> = (0..len).map(|i| pat[(start + i) % n]).collect();
                assert!(got == want, "pattern {n}, length {len}, start {start}");
            }
        }
    }
}

#[test]
fn special_chunks_filled_whole_or_by_blocks_alike() {
    use crate::chunk::special::special_chunk;
    let cparams = CParams {
        typesize: 4,
        blocksize: 64,
        ..CParams::default()
    };
    let v = 0x1234_5678u32.to_le_bytes();
    for (sp, value, want) in [
        (Special::Value, Some(&v[..]), v),
        (Special::Nan, None, [0x00, 0x00, 0xC0, 0x7F]),
    ] {
        let mut c = vec![0u8; 64];
        let n = special_chunk(&cparams, sp, 1000, value, &mut c).unwrap();
        let c = &c[..n];
        let nblocks = Header::parse(c).unwrap().nblocks();
        assert_eq!(nblocks, 16);
        let mask = vec![false; nblocks];
        for m in [None, Some(&mask[..])] {
            let mut out = vec![0u8; 1000];
            assert_eq!(decompress(&DParams::default(), c, &mut out, m), Ok(1000));
            assert!(out.chunks_exact(4).all(|x| x == want), "{sp:?} {m:?}");
        }
        // a block that is not a whole number of values fails either way
        let mut bad = c.to_vec();
        bad[8..12].copy_from_slice(&66i32.to_le_bytes());
        let mask = vec![false; Header::parse(&bad).unwrap().nblocks()];
        for m in [None, Some(&mask[..])] {
            let mut out = vec![0u8; 1000];
            assert_eq!(
                decompress(&DParams::default(), &bad, &mut out, m),
                Err(Error::Data)
            );
        }
    }
}

const N: usize = 100_000;

fn ramp() -> Vec<u8> {
    (0..N / 4).flat_map(|i| (i as u32).to_le_bytes()).collect()
}

fn chunk_with(p: &CParams, src: &[u8]) -> Vec<u8> {
    let mut dst = vec![0u8; src.len() + 64];
    let n = compress(p, src, &mut dst).unwrap();
    dst.truncate(n);
    dst
}

fn regular() -> Vec<u8> {
    let p = CParams {
        typesize: 4,
        blocksize: 16384,
        ..CParams::default()
    };
    chunk_with(&p, &ramp())
}

fn set_i32(c: &mut [u8], at: usize, v: i32) {
    c[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn dec(c: &[u8]) -> Result<usize> {
    decompress(&DParams::default(), c, &mut vec![0u8; N + 64], None)
}

fn items(c: &[u8], start: i64, nitems: i64) -> Result<usize> {
    let span = Span::Items { start, nitems };
    getitem(&DParams::default(), c, span, &mut vec![0u8; N + 64])
}

#[test]
fn negative_nbytes_decodes_to_nothing() {
    let mut c = regular();
    set_i32(&mut c, 4, -1);
    assert_eq!(dec(&c), Ok(0));
    assert_eq!(items(&c, 0, 1), Err(Error::InvalidParam));
    assert_eq!(items(&c, 0, 0), Ok(0));
}

#[test]
fn blocks_too_short_for_their_streams() {
    let mut c = regular();
    // one byte, split in 4 streams
    set_i32(&mut c, 4, 1);
    assert_eq!(dec(&c), Err(Error::WriteBuffer));
    // a blocksize that is not a multiple of the typesize still splits
    let mut c = regular();
    set_i32(&mut c, 8, 16385);
    assert_eq!(items(&c, 5000, 100), Ok(400));
    assert_eq!(dec(&c), Err(Error::Data));
}

#[test]
fn run_tokens_and_block_starts() {
    let p = CParams {
        typesize: 1,
        filters: [0; 6],
        ..CParams::default()
    };
    let c = chunk_with(&p, &[7u8; 1000]);
    assert_eq!((c.len(), c[40]), (41, 0x01), "one run stream");
    let mut out = vec![0u8; 1000];
    for (token, want) in [(0x03u8, Ok(1000)), (0x02, Err(Error::RunLength))] {
        let mut c = c.clone();
        c[40] = token;
        assert_eq!(decompress(&DParams::default(), &c, &mut out, None), want);
    }
    assert_eq!(out, [7u8; 1000]);
    // a block may start anywhere in the chunk but at its first byte
    let mut c2 = c.clone();
    c2.extend_from_slice(&[0xF9, 0xFF, 0xFF, 0xFF, 0x01]);
    set_i32(&mut c2, 12, 46);
    set_i32(&mut c2, 32, 41);
    assert_eq!(
        decompress(&DParams::default(), &c2, &mut out, None),
        Ok(1000)
    );
    for bad in [0, -1, 46] {
        set_i32(&mut c2, 32, bad);
        let r = decompress(&DParams::default(), &c2, &mut out, None);
        assert_eq!(r, Err(Error::Data), "{bad}");
    }
}

#[test]
fn memcpyed_chunks() {
    let p = CParams {
        typesize: 4,
        clevel: 0,
        ..CParams::default()
    };
    let mut c = chunk_with(&p, &ramp());
    set_i32(&mut c, 12, 32);
    // decompression checks cbytes, getitem copies from the source
    assert_eq!(dec(&c), Err(Error::Data));
    assert_eq!(items(&c, 5000, 100), Ok(400));
    assert_eq!(items(&c[..20_100], 5000, 100), Err(Error::ReadBuffer));
}

#[test]
fn special_chunks() {
    let mut c = regular();
    c[31] = 5 << 4;
    assert_eq!(dec(&c), Err(Error::Data));
    assert_eq!(items(&c, 0, 1), Err(Error::SchunkSpecial));
    // a repeated value that does not fill a block a whole number of times
    let p = CParams {
        typesize: 4,
        clevel: 0,
        ..CParams::default()
    };
    let mut c = chunk_with(&p, &ramp());
    c[31] = (Special::Value as u8) << 4;
    assert_eq!(dec(&c), Err(Error::Data));
    assert_eq!(items(&c, 0, 1), Err(Error::Data));
}

#[test]
fn filter_ids_when_decoding() {
    for (id, want) in [
        (5u8, Error::Failure),
        (31, Error::Failure),
        (32, Error::Failure),
        (37, Error::FilterPipeline),
        (255, Error::FilterPipeline),
    ] {
        let mut c = regular();
        c[16] = id;
        assert_eq!(dec(&c), Err(want), "{id}");
    }
}

#[test]
fn vl_block_tables() {
    let src = ramp();
    let sizes = [10_000usize, 20_000, 30_000, 30_000, 10_000];
    let mut blocks = Vec::new();
    let mut pos = 0;
    for s in sizes {
        blocks.push(&src[pos..pos + s]);
        pos += s;
    }
    let p = CParams {
        typesize: 4,
        ..CParams::default()
    };
    let mut c = vec![0u8; N + 200];
    let n = vlcompress(&p, &blocks, &mut c).unwrap();
    c.truncate(n);
    let dp = DParams::default();
    assert_eq!(vldecompress_block(&dp, &c, 2).unwrap(), blocks[2]);
    assert_eq!(vldecompress_block(&dp, &c, 5), Err(Error::InvalidParam));
    let b2 = i32::from_le_bytes(c[40..44].try_into().unwrap()) as usize;
    let b3 = i32::from_le_bytes(c[44..48].try_into().unwrap());
    for (at, v) in [
        (40, 0),
        (40, b3),
        (40, b3 + 1),
        (b2, 0),
        (b2, 29_999),
        (8, 4),
    ] {
        let mut bad = c.clone();
        set_i32(&mut bad, at, v);
        assert_eq!(
            vldecompress(&dp, &bad),
            Err(Error::InvalidHeader),
            "{at} {v}"
        );
        // the table is checked before the block index
        assert_eq!(vldecompress_block(&dp, &bad, 9), Err(Error::InvalidHeader));
        assert_eq!(dec(&bad), Err(Error::InvalidHeader));
    }
    let mut not_vl = c.clone();
    not_vl[30] = 0;
    assert_eq!(vldecompress(&dp, &not_vl), Err(Error::InvalidParam));
    assert_eq!(items(&c, 0, 1), Err(Error::InvalidParam));
}
