use super::{compress, run_value};
use crate::params::{filter_id, CParams};

/// Bytes of mixed compressibility: runs, a ramp, noise (xorshift), in 4 KiB stretches.
fn mixed(len: usize) -> Vec<u8> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..len)
        .map(|i| match (i / 4096) % 3 {
            0 => 7,
            1 => (i / 3) as u8,
            _ => {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            }
        })
        .collect()
}

/// The parallel path places blocks in the serial layout: the same bytes for any number of
/// threads, for compressible and incompressible data, and when the destination is too
/// small (memcpyed fallback or "does not fit").
#[test]
fn threads_give_the_serial_bytes() {
    let noise: Vec<u8> = {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        (0..600_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    };
    let zeros = vec![0u8; 300_000];
    for src in [mixed(1_000_000), noise, zeros] {
        for compcode in [0u8, 1, 2, 4, 5] {
            for (clevel, filter) in [(1, filter_id::NOFILTER), (5, filter_id::SHUFFLE)] {
                let mut filters = [0u8; 6];
                filters[5] = filter;
                let p = |nthreads| CParams {
                    compcode,
                    clevel,
                    typesize: 4,
                    filters,
                    blocksize: if clevel == 1 { 4096 } else { 0 },
                    nthreads,
                    ..CParams::default()
                };
                for room in [src.len() + 64, src.len() / 2, src.len() / 50] {
                    let mut one = vec![0u8; room];
                    let r1 = compress(&p(1), &src, &mut one);
                    for nthreads in [2, 3, 8] {
                        let mut many = vec![0u8; room];
                        let r = compress(&p(nthreads), &src, &mut many);
                        assert_eq!(r, r1, "codec {compcode} clevel {clevel} room {room}");
                        if let Ok(n) = r {
                            assert!(
                                one[..n] == many[..n],
                                "codec {compcode} nthreads {nthreads}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn run_value_matches_the_definition() {
    assert_eq!(run_value(&[]), None);
    for len in [1usize, 2, 63, 64, 65, 127, 128, 129, 1000] {
        for v in [0u8, 1, 0xff] {
            let mut piece = vec![v; len];
            assert_eq!(run_value(&piece), Some(v), "len {len}");
            for at in [0, len / 2, len - 1] {
                piece[at] ^= 0x10;
                let want = if len == 1 { Some(v ^ 0x10) } else { None };
                assert_eq!(run_value(&piece), want, "len {len} at {at}");
                piece[at] ^= 0x10;
            }
        }
    }
}
