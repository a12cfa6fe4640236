//! LZ4 (lz4 C 1.10 vs lz4_flex) and Zlib (zlib-rs vs zlib-ng vs miniz_oxide) on shuffled 128 KiB
//! blocks of the bench's datasets: compression and decompression GB/s (best of 5 passes over
//! 16 MiB) and compressed size. Every library's output is checked by decoding it.

use std::time::Instant;

const N: usize = 16 << 20;
const BLOCK: usize = 128 << 10;

#[path = "../../../benches/common/datasets.rs"]
mod datasets;
use datasets::datasets;

/// Blocks as b2rs hands them to a codec: shuffled by typesize.
fn shuffled(typesize: usize, data: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; data.len()];
    for (s, d) in data.chunks(BLOCK).zip(out.chunks_mut(BLOCK)) {
        b2rs::filters::shuffle::shuffle(typesize, s, d);
    }
    out
}

// zlib-ng's one-call functions (in the library libz-ng-sys builds; it declares only the stream API)
extern "C" {
    fn zng_compress2(
        dst: *mut u8,
        dst_len: *mut usize,
        src: *const u8,
        src_len: usize,
        level: i32,
    ) -> i32;
    fn zng_uncompress(dst: *mut u8, dst_len: *mut usize, src: *const u8, src_len: usize) -> i32;
}
// keep the crate linked
use libz_ng_sys as _;

type Comp = fn(u8, &[u8], &mut [u8]) -> usize;
type Decomp = fn(&[u8], &mut [u8]) -> usize;

fn lz4c_comp(cl: u8, s: &[u8], d: &mut [u8]) -> usize {
    // SAFETY: s/d valid for their lengths; LZ4 writes at most d.len() bytes.
    let n = unsafe {
        lz4_sys::LZ4_compress_fast(
            s.as_ptr() as _,
            d.as_mut_ptr() as _,
            s.len() as i32,
            d.len() as i32,
            10 - cl as i32,
        )
    };
    n.max(0) as usize
}
fn lz4c_decomp(s: &[u8], d: &mut [u8]) -> usize {
    // SAFETY: as above.
    let n = unsafe {
        lz4_sys::LZ4_decompress_safe(
            s.as_ptr() as _,
            d.as_mut_ptr() as _,
            s.len() as i32,
            d.len() as i32,
        )
    };
    n.max(0) as usize
}
fn flex_comp(_cl: u8, s: &[u8], d: &mut [u8]) -> usize {
    lz4_flex::block::compress_into(s, d).unwrap_or(0)
}
fn flex_decomp(s: &[u8], d: &mut [u8]) -> usize {
    lz4_flex::block::decompress_into(s, d).unwrap_or(0)
}
fn zrs_comp(cl: u8, s: &[u8], d: &mut [u8]) -> usize {
    let (out, rc) = zlib_rs::compress_slice(d, s, zlib_rs::DeflateConfig::new(cl as i32));
    if rc == zlib_rs::ReturnCode::Ok {
        out.len()
    } else {
        0
    }
}
fn zrs_decomp(s: &[u8], d: &mut [u8]) -> usize {
    let (out, rc) = zlib_rs::decompress_slice(d, s, zlib_rs::InflateConfig::default());
    if rc == zlib_rs::ReturnCode::Ok {
        out.len()
    } else {
        0
    }
}
fn zng_comp(cl: u8, s: &[u8], d: &mut [u8]) -> usize {
    let mut n = d.len() as usize;
    // SAFETY: zlib-ng's compress2 writes at most *n bytes to d and reads s.len() bytes.
    let rc = unsafe { zng_compress2(d.as_mut_ptr(), &mut n, s.as_ptr(), s.len() as _, cl as i32) };
    if rc == 0 {
        n as usize
    } else {
        0
    }
}
fn zng_decomp(s: &[u8], d: &mut [u8]) -> usize {
    let mut n = d.len() as usize;
    // SAFETY: as above.
    let rc = unsafe { zng_uncompress(d.as_mut_ptr(), &mut n, s.as_ptr(), s.len() as _) };
    if rc == 0 {
        n as usize
    } else {
        0
    }
}
fn miniz_comp(cl: u8, s: &[u8], d: &mut [u8]) -> usize {
    let v = miniz_oxide::deflate::compress_to_vec_zlib(s, cl);
    if v.len() > d.len() {
        return 0;
    }
    d[..v.len()].copy_from_slice(&v);
    v.len()
}
fn miniz_decomp(s: &[u8], d: &mut [u8]) -> usize {
    miniz_oxide::inflate::decompress_slice_iter_to_slice(d, std::iter::once(s), true, false)
        .unwrap_or(0)
}

thread_local! {
    static DEFL: std::cell::RefCell<Vec<Option<libdeflater::Compressor>>> =
        std::cell::RefCell::new((0..13).map(|_| None).collect());
    static INFL: std::cell::RefCell<libdeflater::Decompressor> =
        std::cell::RefCell::new(libdeflater::Decompressor::new());
}
/// libdeflate at its own level `cl` (1..=12), zlib-wrapped
fn defl_comp(cl: u8, s: &[u8], d: &mut [u8]) -> usize {
    DEFL.with(|v| {
        let mut v = v.borrow_mut();
        let c = v[cl as usize].get_or_insert_with(|| {
            libdeflater::Compressor::new(libdeflater::CompressionLvl::new(cl as i32).unwrap())
        });
        c.zlib_compress(s, d).unwrap_or(0)
    })
}
fn defl_decomp(s: &[u8], d: &mut [u8]) -> usize {
    INFL.with(|i| i.borrow_mut().zlib_decompress(s, d).unwrap_or(0))
}

/// (compress GB/s, decompress GB/s, compression ratio); a block that does not shrink is kept raw
/// (so decompression of incompressible data measures nothing).
fn measure(data: &[u8], cl: u8, comp: Comp, decomp: Decomp) -> (f64, f64, f64) {
    let blocks: Vec<&[u8]> = data.chunks(BLOCK).collect();
    // room for the worst case (lz4_flex refuses a smaller output up front)
    let mut outs: Vec<Vec<u8>> = blocks
        .iter()
        .map(|b| vec![0u8; lz4_flex::block::get_maximum_output_size(b.len())])
        .collect();
    let mut lens = vec![0usize; blocks.len()];
    let mut back = vec![0u8; BLOCK];
    let (mut tc, mut td) = (f64::MAX, f64::MAX);
    for _ in 0..5 {
        let t = Instant::now();
        for ((b, o), l) in blocks.iter().zip(&mut outs).zip(&mut lens) {
            *l = comp(cl, b, o);
            if *l >= b.len() {
                *l = 0; // kept raw, as Blosc does
            }
        }
        tc = tc.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        for ((b, o), &l) in blocks.iter().zip(&outs).zip(&lens) {
            if l > 0 {
                let n = decomp(&o[..l], &mut back[..b.len()]);
                assert_eq!(n, b.len());
            }
        }
        td = td.min(t.elapsed().as_secs_f64());
    }
    for ((b, o), &l) in blocks.iter().zip(&outs).zip(&lens) {
        if l > 0 {
            assert_eq!(decomp(&o[..l], &mut back[..b.len()]), b.len());
            assert_eq!(&back[..b.len()], *b, "a stream did not decode to its block");
        }
    }
    let csize: usize = blocks
        .iter()
        .zip(&lens)
        .map(|(b, &l)| if l > 0 { l } else { b.len() })
        .sum();
    let gb = data.len() as f64 / 1e9;
    (gb / tc, gb / td, data.len() as f64 / csize as f64)
}

fn main() {
    let flex = if cfg!(feature = "flex-safe") {
        "lz4_flex(safe)"
    } else {
        "lz4_flex(unsafe)"
    };
    let only_zlib = std::env::args().any(|a| a == "--zlib");
    let libs: [(&str, &str, Comp, Decomp, &[u8]); 6] = [
        ("LZ4", "lz4 C 1.10", lz4c_comp, lz4c_decomp, &[1, 5, 9]),
        ("LZ4", flex, flex_comp, flex_decomp, &[5]),
        ("Zlib", "zlib-rs", zrs_comp, zrs_decomp, &[1, 5, 9]),
        ("Zlib", "zlib-ng", zng_comp, zng_decomp, &[1, 5, 9]),
        ("Zlib", "miniz_oxide", miniz_comp, miniz_decomp, &[1, 5, 9]),
        ("Zlib", "libdeflate", defl_comp, defl_decomp, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]),
    ];
    println!("dataset codec library clevel comp_GB/s decomp_GB/s ratio");
    let mut geo: Vec<(String, f64, f64, f64, usize)> = Vec::new();
    for d in datasets(N) {
        let (name, data) = (d.name, shuffled(d.typesize, &d.bytes));
        for &(codec, lib, c, d, levels) in &libs {
            if only_zlib && codec != "Zlib" {
                continue;
            }
            let all = [1u8, 2, 3, 4, 5, 6, 7, 8, 9];
            let levels = if only_zlib && lib == "zlib-ng" { &all[..] } else { levels };
            if only_zlib && lib == "miniz_oxide" {
                continue;
            }
            for &cl in levels {
                let (cs, ds, r) = measure(&data, cl, c, d);
                println!("{name} {codec} {lib} {cl} {cs:.3} {ds:.3} {r:.3}");
                if name == "random_bytes" {
                    continue; // stored raw: no decompression to average
                }
                let key = format!("{codec} {lib} cl{cl}");
                match geo.iter_mut().find(|g| g.0 == key) {
                    Some(g) => {
                        g.1 += cs.ln();
                        g.2 += ds.ln();
                        g.3 += r.ln();
                        g.4 += 1;
                    }
                    None => geo.push((key, cs.ln(), ds.ln(), r.ln(), 1)),
                }
            }
        }
    }
    println!("\ngeomean over the 5 compressible datasets: library clevel comp_GB/s decomp_GB/s ratio");
    for (k, c, d, r, n) in geo {
        println!(
            "{k} {:.3} {:.3} {:.3}",
            (c / n as f64).exp(),
            (d / n as f64).exp(),
            (r / n as f64).exp()
        );
    }
}
