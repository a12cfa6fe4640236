//! The safe core used from several threads at once (issue 9): chunk compression with
//! independent parameters, and many readers sharing one super-chunk (`&Schunk` through
//! `Arc`, in memory and as an in-memory frame) with exact results.
//!
//! `Schunk` being `Sync` is what lets the readers share it; this is checked at compile time
//! below. These tests are also what `tools/test.sh` may run under ThreadSanitizer
//! (`RUSTC_BOOTSTRAP=1 RUSTFLAGS=-Zsanitizer=thread`, see the report of issue 9).

use b2rs::frame::Frame;
use b2rs::schunk::Schunk;
use b2rs::{CParams, DParams};
use std::sync::Arc;
use std::thread;

const CHUNK: usize = 40_000;
const NCHUNKS: usize = 12;
const THREADS: usize = 6;

fn data(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if i % 3 == 0 {
                (x >> 56) as u8
            } else {
                (i / 13) as u8
            }
        })
        .collect()
}

fn cparams(case: usize, nthreads: i16) -> CParams {
    CParams {
        compcode: [0u8, 1, 2, 4, 5][case % 5],
        clevel: (1 + case % 9) as u8,
        typesize: 4,
        nthreads,
        ..CParams::default()
    }
}

#[test]
fn schunk_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Schunk>();
    check::<CParams>();
    check::<DParams>();
}

/// Threads compressing and decompressing with their own parameters: every chunk is
/// byte-identical to the one compressed by one thread first (b2rs's multi-threaded output is
/// deterministic), and decodes exactly.
#[test]
fn own_parameters_in_threads() {
    let src = Arc::new(data(7, 150_000));
    let expected: Arc<Vec<Vec<u8>>> = Arc::new(
        (0..6)
            .map(|c| {
                let mut dst = vec![0u8; src.len() + 64];
                let n = b2rs::chunk::compress(&cparams(c, 1), &src, &mut dst).unwrap();
                dst.truncate(n);
                dst
            })
            .collect(),
    );
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let src = Arc::clone(&src);
            let expected = Arc::clone(&expected);
            thread::spawn(move || {
                for it in 0..4 {
                    let c = (t + it) % 6;
                    let cp = cparams(c, (1 + (t + it) % 3) as i16);
                    let mut dst = vec![0u8; src.len() + 64];
                    let n = b2rs::chunk::compress(&cp, &src, &mut dst).unwrap();
                    assert_eq!(&dst[..n], &expected[c][..], "thread {t} case {c}");
                    let dp = DParams {
                        nthreads: (1 + it % 2) as i16,
                        ..DParams::default()
                    };
                    let mut out = vec![0u8; src.len()];
                    let d = b2rs::chunk::decompress(&dp, &dst[..n], &mut out, None).unwrap();
                    assert_eq!(d, src.len());
                    assert!(out == *src, "thread {t} case {c}: decoded data differ");
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("worker panicked");
    }
}

fn filled(mut sc: Schunk, all: &[u8]) -> Schunk {
    for k in 0..NCHUNKS {
        sc.append_buffer(&all[k * CHUNK..(k + 1) * CHUNK]).unwrap();
    }
    sc
}

/// Many readers of one shared super-chunk: `get_chunk` and a decompression per thread.
fn readers(sc: Arc<Schunk>, all: Arc<Vec<u8>>) {
    let handles: Vec<_> = (0..THREADS)
        .map(|t| {
            let sc = Arc::clone(&sc);
            let all = Arc::clone(&all);
            thread::spawn(move || {
                let dp = DParams {
                    nthreads: (1 + t % 2) as i16,
                    ..DParams::default()
                };
                let mut out = vec![0u8; CHUNK];
                for round in 0..3 {
                    for k in 0..NCHUNKS {
                        let n = (k + t * 5 + round) % NCHUNKS;
                        let chunk = sc.get_chunk(n as i64).unwrap();
                        out.fill(0);
                        let d = b2rs::chunk::decompress(&dp, &chunk, &mut out, None).unwrap();
                        assert_eq!(d, CHUNK);
                        assert!(
                            out[..] == all[n * CHUNK..(n + 1) * CHUNK],
                            "thread {t}: chunk {n} differs"
                        );
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("reader panicked");
    }
}

#[test]
fn shared_schunk_readers_in_memory() {
    let all = Arc::new(data(11, NCHUNKS * CHUNK));
    let sc = filled(Schunk::new(cparams(1, 1), DParams::default()), &all);
    readers(Arc::new(sc), all);
}

#[test]
fn shared_schunk_readers_frame() {
    let all = Arc::new(data(13, NCHUNKS * CHUNK));
    let sc = filled(Schunk::new(cparams(3, 2), DParams::default()), &all);
    let cframe = sc.to_cframe().unwrap();
    let frame = Frame::from_bytes(cframe).unwrap();
    let sc = Schunk::from_frame(frame, DParams::default());
    assert_eq!(sc.nchunks(), NCHUNKS as i64);
    readers(Arc::new(sc), all);
}

/// Readers of one frame whose index is read lazily (150 000 chunks: 1.2 MB of offsets, decoded a
/// piece at a time into a cache the readers share), each walking the chunks from its own place.
#[test]
fn shared_schunk_readers_lazy_index() {
    const N: u32 = 150_000;
    let cp = CParams {
        typesize: 4,
        ..CParams::default()
    };
    let mut sc = Schunk::new(cp, DParams::default());
    for i in 0..N {
        sc.append_buffer(&i.to_le_bytes()).unwrap();
    }
    let frame = Frame::from_bytes(sc.to_cframe().unwrap()).unwrap();
    let sc = Arc::new(Schunk::from_frame(frame, DParams::default()));
    let handles: Vec<_> = (0..THREADS as u32)
        .map(|t| {
            let sc = Arc::clone(&sc);
            thread::spawn(move || {
                let mut out = [0u8; 4];
                // strides that cross the pieces (128 Ki offsets) back and forth
                let stride = [1, 7919, 65_537, 104_729, 131_071, 149_999][t as usize % 6];
                let mut n = t * 9_973 % N;
                for _ in 0..20_000 {
                    let c = sc.get_chunk(n as i64).unwrap();
                    b2rs::chunk::decompress(&DParams::default(), &c, &mut out, None).unwrap();
                    assert_eq!(u32::from_le_bytes(out), n, "thread {t}: chunk {n}");
                    n = (n + stride) % N;
                }
            })
        })
        .collect();
    for h in handles {
        h.join().expect("reader panicked");
    }
}

/// A `parallel_for` inside a job of a `parallel_for` (a user callback that compresses with
/// threads): with a pool of one thread, the caller and the pool thread could both wait in a
/// nested call for a queued task that no thread was free to start (a deadlock found with loom,
/// `tests/loom_pool.rs`; the caller now takes its unstarted tasks back).
#[test]
fn nested_parallel_for() {
    use b2rs::chunk::worker::parallel_for;
    use std::sync::atomic::{AtomicUsize, Ordering};
    for round in 0..100 {
        let count = AtomicUsize::new(0);
        parallel_for(2, 2, &|_| {
            parallel_for(2, 2, &|_| {
                thread::sleep(std::time::Duration::from_micros(100));
                count.fetch_add(1, Ordering::Relaxed);
            });
        });
        assert_eq!(count.into_inner(), 4, "round {round}");
    }
}
