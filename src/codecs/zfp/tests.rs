use super::ints::{plane, planes};
use super::*;

#[test]
fn perm_tables_are_permutations() {
    for nd in 1..=4 {
        let p = perm(nd);
        let mut seen = vec![false; p.len()];
        for &i in p {
            assert!(!seen[i as usize]);
            seen[i as usize] = true;
        }
    }
}

#[test]
fn transposed_planes() {
    let mut seed = 7u64;
    for size in [4usize, 16, 64] {
        let data: Vec<u64> = (0..size)
            .map(|_| {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                seed
            })
            .collect();
        let mut all = [0u64; 64];
        planes(&data, &mut all);
        for (k, &p) in all.iter().enumerate() {
            assert_eq!(p, plane(&data, k as u32), "size {size} plane {k}");
        }
    }
}

#[test]
fn bit_stream_round_trip() {
    let mut w = BitWriter::with_capacity(64);
    w.write_bit(1);
    w.write_bits(0x1234_5678_9abc_def0, 64);
    w.write_bits(0b101, 3);
    w.pad(70);
    w.write_bits(u64::MAX, 61);
    let out = w.finish();
    assert_eq!(out.len() % 8, 0);
    let mut r = BitReader::new(&out);
    assert_eq!(r.read_bit(), 1);
    assert_eq!(r.read_bits(64), 0x1234_5678_9abc_def0);
    assert_eq!(r.read_bits(3), 0b101);
    r.skip(70);
    assert_eq!(r.read_bits(61), (1u64 << 61) - 1);
    assert!(!r.overrun());
}

fn round_trip(mode: Mode, shape: &[usize], typesize: usize, bound: f64) {
    let n: usize = shape.iter().product();
    let vals: Vec<f64> = (0..n)
        .map(|i| ((i as f64) * 0.37).sin() * 10.0 + (i % 7) as f64)
        .collect();
    let src: Vec<u8> = if typesize == 4 {
        vals.iter()
            .flat_map(|&v| (v as f32).to_ne_bytes())
            .collect()
    } else {
        vals.iter().flat_map(|&v| v.to_ne_bytes()).collect()
    };
    let c = encode(mode, shape, typesize, &src).unwrap();
    let mut d = vec![0u8; src.len()];
    decompress(mode, shape, typesize, &c, &mut d).unwrap();
    for i in 0..n {
        let got = if typesize == 4 {
            f64::from(f32::from_ne_bytes(d[4 * i..4 * i + 4].try_into().unwrap()))
        } else {
            f64::from_ne_bytes(d[8 * i..8 * i + 8].try_into().unwrap())
        };
        let want = if typesize == 4 {
            f64::from(vals[i] as f32)
        } else {
            vals[i]
        };
        assert!(
            (got - want).abs() <= bound,
            "{mode:?} {shape:?} [{i}]: {got} vs {want}"
        );
    }
}

#[test]
fn garbage_streams_decode_without_panic() {
    let mut seed = 0x1234_5678_9abc_def0u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for round in 0..400 {
        let len = (next() % 300) as usize;
        let src: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        let shape: &[usize] = match round % 4 {
            0 => &[13],
            1 => &[5, 7],
            2 => &[4, 6, 5],
            _ => &[4, 5, 4, 6],
        };
        let ts = if round % 8 < 4 { 4 } else { 8 };
        let n: usize = shape.iter().product();
        let mut dst = vec![0u8; n * ts];
        for mode in [
            Mode::Accuracy(-(round as i8 % 20)),
            Mode::Precision(round as u8),
            Mode::Rate(round as u8),
        ] {
            let _ = decompress(mode, shape, ts, &src, &mut dst);
        }
    }
}

#[test]
fn modes_round_trip_within_bounds() {
    for ts in [4, 8] {
        for shape in [&[37usize][..], &[9, 13], &[5, 6, 7], &[4, 5, 6, 7]] {
            round_trip(Mode::Accuracy(-3), shape, ts, 1e-3);
            round_trip(Mode::Precision(20), shape, ts, 1e-2);
            round_trip(Mode::Rate(60), shape, ts, 1e-1);
        }
    }
}
