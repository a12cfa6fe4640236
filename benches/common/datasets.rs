//! The datasets of `shared/bench/b2bench.c` (int32 ramp, float64 smooth, int64 timestamps,
//! random bytes, text, float32 low entropy), made the same way, for the Rust benchmarks and
//! tools: `benches/kernels.rs` and `tools/codec-choice` take this file with `#[path]`.

/// splitmix64, as the C benchmark.
pub fn sm64(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A uniform f64 in [0, 1).
fn unit(s: &mut u64) -> f64 {
    (sm64(s) >> 11) as f64 * (1.0 / 9_007_199_254_740_992.0)
}

/// A dataset: name, typesize (the C benchmark's) and bytes.
pub struct Data {
    pub name: &'static str,
    pub typesize: usize,
    pub bytes: Vec<u8>,
}

const WORDS: [&str; 20] = [
    "the",
    "of",
    "and",
    "to",
    "in",
    "a",
    "is",
    "that",
    "for",
    "it",
    "data",
    "value",
    "array",
    "chunk",
    "block",
    "sensor",
    "station",
    "temperature",
    "pressure",
    "compression",
];

/// Text-like words with a skewed distribution, numbers and sentence ends.
fn text(n: usize, seed: &mut u64) -> Vec<u8> {
    let mut text = Vec::with_capacity(n + 16);
    while text.len() < n {
        let u = unit(seed);
        if u < 0.03 {
            text.extend_from_slice((sm64(seed) % 100_000).to_string().as_bytes());
        } else {
            text.extend_from_slice(WORDS[(WORDS.len() as f64 * u * u) as usize].as_bytes());
        }
        text.extend_from_slice(if sm64(seed).is_multiple_of(10) {
            b". "
        } else {
            b" "
        });
    }
    text.truncate(n);
    text
}

/// The six datasets of about `n` bytes each (whole items).
pub fn datasets(n: usize) -> Vec<Data> {
    let mut seed = 42u64;
    let ramp: Vec<u8> = (0..n / 4)
        .flat_map(|i| (i as i32 + 1000).to_le_bytes())
        .collect();
    let smooth: Vec<u8> = (0..n / 8)
        .flat_map(|i| {
            let t = i as f64;
            let tau = std::f64::consts::TAU;
            (15.0
                + 8.0 * (tau * t / 65536.0).sin()
                + 0.5 * (tau * t / 977.0).sin()
                + 1e-3 * (unit(&mut seed) - 0.5))
                .to_le_bytes()
        })
        .collect();
    let mut v = 1_700_000_000_000_000_000i64;
    let tstamp: Vec<u8> = (0..n / 8)
        .flat_map(|_| {
            v += 1 + (sm64(&mut seed) & 0xff) as i64;
            v.to_le_bytes()
        })
        .collect();
    let random: Vec<u8> = (0..n / 8)
        .flat_map(|_| sm64(&mut seed).to_le_bytes())
        .collect();
    let text = text(n, &mut seed);
    let mut k = 20_000i32;
    let lowent: Vec<u8> = (0..n / 4)
        .flat_map(|_| {
            k += (sm64(&mut seed) % 9) as i32 - 4;
            k = k.abs();
            if k > 40_000 {
                k = 80_000 - k;
            }
            (k as f32 * 0.25).to_le_bytes()
        })
        .collect();
    let data = |name, typesize, bytes| Data {
        name,
        typesize,
        bytes,
    };
    vec![
        data("int32_ramp", 4, ramp),
        data("float64_smooth", 8, smooth),
        data("int64_tstamp", 8, tstamp),
        data("random_bytes", 4, random),
        data("text", 1, text),
        data("float32_lowent", 4, lowent),
    ]
}
