use super::*;

/// Element by element, the specification.
#[allow(clippy::too_many_arguments)]
fn naive(
    itemsize: usize,
    src: &[u8],
    src_pad: &[i64],
    src_start: &[i64],
    src_stop: &[i64],
    dst: &mut [u8],
    dst_pad: &[i64],
    dst_start: &[i64],
) {
    let shape: Vec<i64> = src_start.iter().zip(src_stop).map(|(a, b)| b - a).collect();
    let n: i64 = shape.iter().product();
    let ss = super::super::geometry::c_strides(src_pad);
    let ds = super::super::geometry::c_strides(dst_pad);
    for lin in 0..n {
        let c = super::super::geometry::unravel(lin, &shape);
        let mut so = 0;
        let mut to = 0;
        for i in 0..c.len() {
            so += (src_start[i] + c[i]) * ss[i];
            to += (dst_start[i] + c[i]) * ds[i];
        }
        let (so, to) = (so as usize * itemsize, to as usize * itemsize);
        dst[to..to + itemsize].copy_from_slice(&src[so..so + itemsize]);
    }
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

#[test]
fn matches_naive_on_random_shapes() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut cases = 0;
    while cases < 3000 {
        let ndim = 1 + rng.below(8) as usize;
        let itemsize = 1 + rng.below(16) as usize;
        // keep buffers small: total items at most a few thousand
        let max_dim = match ndim {
            1 => 40,
            2 => 20,
            3 => 10,
            4 => 6,
            _ => 4,
        };
        let src_pad: Vec<i64> = (0..ndim).map(|_| 1 + rng.below(max_dim) as i64).collect();
        let src_start: Vec<i64> = src_pad
            .iter()
            .map(|&p| rng.below(p as u64 + 1) as i64)
            .collect();
        let src_stop: Vec<i64> = src_pad
            .iter()
            .zip(&src_start)
            .map(|(&p, &s)| s + rng.below((p - s) as u64 + 1) as i64)
            .collect();
        let shape: Vec<i64> = src_start
            .iter()
            .zip(&src_stop)
            .map(|(a, b)| b - a)
            .collect();
        // destination: sometimes exactly the copy shape (contiguous fast path), sometimes
        // larger
        let dst_pad: Vec<i64> = shape
            .iter()
            .map(|&n| {
                if rng.below(3) == 0 {
                    n
                } else {
                    n + rng.below(4) as i64
                }
            })
            .collect();
        let dst_start: Vec<i64> = dst_pad
            .iter()
            .zip(&shape)
            .map(|(&p, &n)| rng.below((p - n) as u64 + 1) as i64)
            .collect();
        let src_n: i64 = src_pad.iter().product();
        let dst_n: i64 = dst_pad.iter().product();
        let mut src = vec![0u8; src_n as usize * itemsize];
        src.iter_mut().for_each(|b| *b = rng.next() as u8);
        let fill = rng.next() as u8;
        let mut want = vec![fill; dst_n as usize * itemsize];
        let mut got = want.clone();
        naive(
            itemsize, &src, &src_pad, &src_start, &src_stop, &mut want, &dst_pad, &dst_start,
        );
        copy_buffer(
            itemsize, &src, &src_pad, &src_start, &src_stop, &mut got, &dst_pad, &dst_start,
        )
        .unwrap();
        assert_eq!(
            got, want,
            "itemsize {itemsize} src {src_pad:?} [{src_start:?}, {src_stop:?}) dst {dst_pad:?} at {dst_start:?}"
        );
        // The plan's lengths are tight: the buffers cut to them work.
        let plan = CopyPlan::new(
            itemsize,
            &shape,
            Region {
                pad_shape: &src_pad,
                start: &src_start,
            },
            Region {
                pad_shape: &dst_pad,
                start: &dst_start,
            },
        )
        .unwrap();
        let mut got2 = vec![fill; plan.dst_len()];
        plan.run(&src[..plan.src_len()], &mut got2).unwrap();
        assert_eq!(got2[..], want[..plan.dst_len()]);
        if !plan.is_empty() {
            assert_eq!(
                plan.run(&src[..plan.src_len() - 1], &mut got2),
                Err(Error::InvalidParam)
            );
            let mut short = vec![0u8; plan.dst_len() - 1];
            assert_eq!(plan.run(&src, &mut short), Err(Error::InvalidParam));
        }
        cases += 1;
    }
}

#[test]
fn merges_contiguous_dimensions() {
    // Whole array to an identical array: one run.
    let pad = [4i64, 5, 6];
    let p = CopyPlan::new(
        2,
        &pad,
        Region {
            pad_shape: &pad,
            start: &[0, 0, 0],
        },
        Region {
            pad_shape: &pad,
            start: &[0, 0, 0],
        },
    )
    .unwrap();
    assert_eq!(p.run_len(), 4 * 5 * 6 * 2);
    assert_eq!(p.nouter, 0);
    // Full rows of a sub-box: planes of 5*6 items for each of 2 outer steps merge into one run
    // per outer step.
    let p = CopyPlan::new(
        1,
        &[2, 5, 6],
        Region {
            pad_shape: &pad,
            start: &[1, 0, 0],
        },
        Region {
            pad_shape: &[2, 5, 6],
            start: &[0, 0, 0],
        },
    )
    .unwrap();
    assert_eq!(p.run_len(), 60);
    // Partial rows: runs of 3 items; source rows are 6 apart, destination rows 3 apart, and
    // the planes chain in both buffers, so the two outer dimensions merge into 10 steps.
    let p = CopyPlan::new(
        1,
        &[2, 5, 3],
        Region {
            pad_shape: &pad,
            start: &[1, 0, 2],
        },
        Region {
            pad_shape: &[2, 5, 3],
            start: &[0, 0, 0],
        },
    )
    .unwrap();
    assert_eq!(p.run_len(), 3);
    assert_eq!(
        p.outer[..p.nouter],
        [Dim {
            count: 10,
            src_stride: 6,
            dst_stride: 3
        }]
    );
}

#[test]
fn errors() {
    let src = vec![0u8; 120];
    let mut dst = vec![0u8; 120];
    let pad = [4i64, 5, 6];
    let ok = |src_start: &[i64], src_stop: &[i64], dst_start: &[i64], dst: &mut [u8]| {
        copy_buffer(1, &src, &pad, src_start, src_stop, dst, &pad, dst_start)
    };
    assert_eq!(ok(&[0, 0, 0], &[4, 5, 6], &[0, 0, 0], &mut dst), Ok(()));
    // start > stop
    assert_eq!(
        ok(&[1, 0, 0], &[0, 5, 6], &[0, 0, 0], &mut dst),
        Err(Error::InvalidParam)
    );
    // stop beyond the source
    assert_eq!(
        ok(&[0, 0, 0], &[4, 5, 7], &[0, 0, 0], &mut dst),
        Err(Error::InvalidParam)
    );
    // does not fit the destination
    assert_eq!(
        ok(&[0, 0, 0], &[4, 5, 6], &[0, 0, 1], &mut dst),
        Err(Error::InvalidParam)
    );
    // negative coordinates
    assert_eq!(
        ok(&[-1, 0, 0], &[1, 5, 6], &[0, 0, 0], &mut dst),
        Err(Error::InvalidParam)
    );
    assert_eq!(
        ok(&[0, 0, 0], &[1, 5, 6], &[-1, 0, 0], &mut dst),
        Err(Error::InvalidParam)
    );
    // wrong lengths
    assert_eq!(
        ok(&[0, 0], &[1, 5], &[0, 0], &mut dst),
        Err(Error::InvalidParam)
    );
    assert_eq!(
        ok(&[0, 0, 0], &[1, 5], &[0, 0, 0], &mut dst),
        Err(Error::InvalidParam)
    );
    // short destination
    assert_eq!(
        ok(&[0, 0, 0], &[4, 5, 6], &[0, 0, 0], &mut dst[..119]),
        Err(Error::InvalidParam)
    );
    // empty copies touch nothing, even with empty buffers
    assert_eq!(
        copy_buffer(
            4,
            &[],
            &pad,
            &[1, 1, 1],
            &[1, 5, 6],
            &mut [],
            &pad,
            &[3, 0, 0]
        ),
        Ok(())
    );
    // itemsize 0 copies nothing
    assert_eq!(
        copy_buffer(
            0,
            &[],
            &pad,
            &[0, 0, 0],
            &[4, 5, 6],
            &mut [],
            &pad,
            &[0, 0, 0]
        ),
        Ok(())
    );
    // huge shapes overflow cleanly
    let big = [i64::MAX, i64::MAX];
    assert_eq!(
        copy_buffer(8, &src, &big, &[0, 0], &[2, 2], &mut dst, &big, &[0, 0]),
        Err(Error::InvalidParam)
    );
    assert_eq!(
        copy_buffer(
            8,
            &src,
            &pad,
            &[i64::MIN, 0, 0],
            &[0, 0, 0],
            &mut dst,
            &pad,
            &[0, 0, 0]
        ),
        Err(Error::InvalidParam)
    );
}

#[test]
fn zero_dimensions_copy_one_item() {
    let src = [1u8, 2, 3, 4];
    let mut dst = [0u8; 4];
    copy_buffer(4, &src, &[], &[], &[], &mut dst, &[], &[]).unwrap();
    assert_eq!(dst, src);
}
