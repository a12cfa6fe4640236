//! Throughput of the hot kernels (shuffles, BloscLZ, Zlib, Adler-32) and of whole-chunk compression, so that
//! speed regressions are visible: `cargo bench --bench kernels [-- FILTER...]`.
//!
//! A plain harness (no dependencies): every case is run for at least `B2RS_BENCH_TIME` seconds
//! (default 0.2) and the best repetition is printed in GB/s of uncompressed data. Only the
//! cases whose name contains one of the FILTER words run. The datasets follow
//! `shared/bench/b2bench.c` (int32 ramp, float64 smooth, int64 timestamps, random bytes,
//! float32 low entropy).

use b2rs::codecs::{blosclz, BLOSCLZ, LZ4};
use b2rs::filters::{bitshuffle, bytedelta, int_trunc, shuffle};
use b2rs::params::filter_id;
use b2rs::{CParams, DParams};
use std::hint::black_box;
use std::time::{Duration, Instant};

#[path = "common/datasets.rs"]
mod datasets;
use datasets::{datasets, Data};

struct Bench {
    filters: Vec<String>,
    min_time: Duration,
}

impl Bench {
    /// Time `f` (which processes `bytes` bytes per call) and print its best throughput.
    /// Returns whether the case ran (it matched the filter).
    fn run(&self, name: &str, bytes: usize, mut f: impl FnMut()) -> bool {
        if !self.filters.is_empty() && !self.filters.iter().any(|w| name.contains(w.as_str())) {
            return false;
        }
        f(); // warm-up
        let start = Instant::now();
        let mut best = Duration::MAX;
        let mut reps = 0;
        while reps < 5 || start.elapsed() < self.min_time {
            let t = Instant::now();
            f();
            best = best.min(t.elapsed());
            reps += 1;
        }
        let gbs = bytes as f64 / best.as_secs_f64() / 1e9;
        println!("{name:<48} {gbs:8.3} GB/s  ({reps} reps)");
        true
    }
}

fn main() {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let min_time = std::env::var("B2RS_BENCH_TIME")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(0.2);
    let b = Bench {
        filters,
        min_time: Duration::from_secs_f64(min_time),
    };
    // the text dataset is left out (a byte stream: no shuffle case)
    let data: Vec<Data> = datasets(4 << 20)
        .into_iter()
        .filter(|d| d.name != "text")
        .collect();

    // Byte and bit shuffles on one 256 KiB block.
    let block = &data[3].bytes[..256 << 10];
    let mut out = vec![0u8; block.len()];
    let mut back = vec![0u8; block.len()];
    for ts in [2usize, 4, 8, 16] {
        let _ = b.run(&format!("shuffle/ts{ts}/256K"), block.len(), || {
            shuffle::shuffle(ts, black_box(block), &mut out)
        });
        let _ = b.run(&format!("unshuffle/ts{ts}/256K"), block.len(), || {
            shuffle::unshuffle(ts, black_box(&out), &mut back)
        });
        let _ = b.run(&format!("bitshuffle/ts{ts}/256K"), block.len(), || {
            bitshuffle::bitshuffle(ts, black_box(block), &mut out)
        });
        let _ = b.run(&format!("bitunshuffle/ts{ts}/256K"), block.len(), || {
            bitshuffle::bitunshuffle(ts, black_box(&out), &mut back)
        });
    }
    // The plugin filters bytedelta (35; SIMD decoder chosen at run time) and int_trunc (36) on
    // the same block.
    for ts in [4usize, 8] {
        let v = bytedelta::Variant::Fixed;
        let _ = b.run(&format!("bytedelta/ts{ts}/256K"), block.len(), || {
            bytedelta::encode(v, ts, black_box(block), &mut out)
        });
        let _ = b.run(
            &format!("bytedelta_decode/ts{ts}/256K"),
            block.len(),
            || bytedelta::decode(v, ts, black_box(&out), &mut back),
        );
        let _ = b.run(&format!("int_trunc/ts{ts}/256K"), block.len(), || {
            let _ = int_trunc::truncate(-3, ts, black_box(block), &mut out);
        });
    }

    // BloscLZ on 64 KiB streams (one byte plane of a shuffled 256 KiB block), and unshuffled.
    for d in &data {
        let mut planes = vec![0u8; 256 << 10];
        shuffle::shuffle(d.typesize, &d.bytes[..256 << 10], &mut planes);
        for (what, src) in [
            ("plane", &planes[..64 << 10]),
            ("raw", &d.bytes[..64 << 10]),
        ] {
            let mut comp = vec![0u8; src.len()];
            let n = blosclz::compress(5, src, &mut comp);
            let _ = b.run(
                &format!("blosclz_compress/{}/{what}", d.name),
                src.len(),
                || {
                    black_box(blosclz::compress(5, black_box(src), &mut comp));
                },
            );
            if n > 0 {
                let mut dec = vec![0u8; src.len()];
                let _ = b.run(
                    &format!("blosclz_decompress/{}/{what}", d.name),
                    src.len(),
                    || {
                        black_box(blosclz::decompress(black_box(&comp[..n]), &mut dec));
                    },
                );
            }
        }
    }

    // Zlib (zlib-rs through the codec's per-thread state) on one shuffled 256 KiB block, as the
    // chunk pipeline hands it over, at clevels 1, 5 and 9.
    for d in &data {
        let mut planes = vec![0u8; 256 << 10];
        shuffle::shuffle(d.typesize, &d.bytes[..256 << 10], &mut planes);
        let mut st = b2rs::codecs::zlib::State::default();
        for clevel in [1u8, 5, 9] {
            let mut comp = vec![0u8; planes.len()];
            let n = st.compress(clevel, &planes, &mut comp);
            let _ = b.run(
                &format!("zlib_compress/{}/cl{clevel}", d.name),
                planes.len(),
                || {
                    black_box(st.compress(clevel, black_box(&planes), &mut comp));
                },
            );
            if n > 0 {
                let mut dec = vec![0u8; planes.len()];
                let ran = b.run(
                    &format!("zlib_decompress/{}/cl{clevel}", d.name),
                    planes.len(),
                    || {
                        black_box(st.decompress(black_box(&comp[..n]), &mut dec));
                    },
                );
                assert!(!ran || dec == planes, "zlib round trip");
            }
        }
    }

    // Adler-32 (the zlib stream check): the dispatched kernel against zlib-rs's own.
    if let Some(d) = data.first() {
        let _ = b.run("adler32/b2rs", d.bytes.len(), || {
            black_box(b2rs::codecs::adler32::adler32(1, black_box(&d.bytes)));
        });
        let _ = b.run("adler32/scalar", d.bytes.len(), || {
            black_box(b2rs::codecs::adler32::adler32_scalar(
                1,
                black_box(&d.bytes),
            ));
        });
    }

    // Whole 4 MiB chunks through the chunk pipeline.
    for d in &data {
        for (cname, codec) in [("blosclz", BLOSCLZ), ("lz4", LZ4)] {
            for (fname, filter) in [
                ("noshuffle", filter_id::NOFILTER),
                ("shuffle", filter_id::SHUFFLE),
                ("bitshuffle", filter_id::BITSHUFFLE),
            ] {
                for nthreads in [1i16, 2] {
                    let p = CParams {
                        compcode: codec,
                        clevel: 5,
                        typesize: d.typesize as i32,
                        nthreads,
                        filters: [0, 0, 0, 0, 0, filter],
                        ..CParams::default()
                    };
                    let dp = DParams {
                        nthreads,
                        ..DParams::default()
                    };
                    let mut chunk = vec![0u8; d.bytes.len() + 64];
                    let n = b2rs::chunk::compress(&p, &d.bytes, &mut chunk).expect("compress");
                    let name = format!("chunk/{}/{cname}/{fname}/nt{nthreads}", d.name);
                    let _ = b.run(&format!("{name}/comp"), d.bytes.len(), || {
                        black_box(b2rs::chunk::compress(&p, black_box(&d.bytes), &mut chunk).ok());
                    });
                    let mut dec = vec![0u8; d.bytes.len()];
                    let n2 = b2rs::chunk::compress(&p, &d.bytes, &mut chunk).expect("compress");
                    assert_eq!(n, n2);
                    let ran = b.run(&format!("{name}/decomp"), d.bytes.len(), || {
                        black_box(
                            b2rs::chunk::decompress(&dp, black_box(&chunk[..n]), &mut dec, None)
                                .ok(),
                        );
                    });
                    assert!(!ran || dec == d.bytes, "{name}: round trip");
                }
            }
        }
    }
    zfp_cases(&b);
}

/// The ZFP codec on one block (same data and cases as `tools/zfp_ref_bench.c`, which times the
/// zfp library inside libblosc2.so): `zfp/<mode><meta>/<type>/<ndim>d/{comp,decomp}`.
fn zfp_cases(b: &Bench) {
    use b2rs::codecs::zfp::{self, Mode};
    let cases: [(&str, usize, &[usize], Mode); 8] = [
        ("acc-3/f32/3d", 4, &[64, 64, 64], Mode::Accuracy(-3)),
        ("prec10/f32/3d", 4, &[64, 64, 64], Mode::Precision(10)),
        ("rate30/f32/3d", 4, &[64, 64, 64], Mode::Rate(30)),
        ("acc-3/f64/2d", 8, &[256, 256], Mode::Accuracy(-3)),
        ("prec10/f64/2d", 8, &[256, 256], Mode::Precision(10)),
        ("rate30/f64/2d", 8, &[256, 256], Mode::Rate(30)),
        ("acc-3/f32/1d", 4, &[262144], Mode::Accuracy(-3)),
        ("rate30/f64/4d", 8, &[16, 16, 16, 16], Mode::Rate(30)),
    ];
    for (name, ts, shape, mode) in cases {
        let n: usize = shape.iter().product();
        let vals = (0..n).map(|i| {
            let t = i as f64;
            (t * 0.013).sin() * 50.0 + (t * 0.0007).cos() * 3.0 + 0.001 * (i % 17) as f64
        });
        let src: Vec<u8> = if ts == 4 {
            vals.flat_map(|v| (v as f32).to_ne_bytes()).collect()
        } else {
            vals.flat_map(|v| v.to_ne_bytes()).collect()
        };
        let mut out = vec![0u8; src.len()];
        let csize = zfp::compress(mode, shape, ts, &src, &mut out).expect("zfp compress");
        let name = format!("zfp/{name} (csize {csize})");
        let _ = b.run(&format!("{name}/comp"), src.len(), || {
            black_box(zfp::compress(mode, shape, ts, black_box(&src), &mut out).ok());
        });
        let mut dec = vec![0u8; src.len()];
        let _ = b.run(&format!("{name}/decomp"), src.len(), || {
            black_box(zfp::decompress(mode, shape, ts, black_box(&out[..csize]), &mut dec).ok());
        });
    }
}
