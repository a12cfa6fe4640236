//! The ZFP plugin codecs of C-Blosc2 (ids 33 `zfp_acc`, 34 `zfp_prec`, 35 `zfp_rate`): a
//! memory-safe port of the zfp 1.0 lossy block coder for `float`/`double` arrays of 1 to 4
//! dimensions, producing the same bit stream as the zfp library bundled with C-Blosc2 3.3.5.
//!
//! One Blosc block is one zfp *field*: the block's shape (from the "b2nd" metalayer, C order, so
//! the last dimension is zfp's `x`) is cut into cells of 4^d values, coded one after the other
//! into a bit stream of little-endian 64-bit words, with no zfp header. Each cell:
//! * a 1-bit flag (0: all values zero / below the tolerance), else the common exponent
//!   (`EBITS` bits, biased);
//! * the values scaled to integers relative to that exponent, decorrelated by zfp's lifting
//!   transform along each axis, reordered by sequency and turned into negabinary;
//! * their bit planes from the most significant, each coded as the bits of the values already
//!   significant followed by a unary group test for the rest (`encode_*_ints` below), limited by
//!   the mode: a bit budget per cell (fixed rate), a number of planes (fixed precision), or the
//!   planes above the tolerance's exponent (fixed accuracy).
//!
//! Partial cells at the block's edges are padded as zfp does. Arithmetic follows the C code
//! exactly (wrapping integer operations, the x86-64 result of an out-of-range float-to-int
//! conversion), so streams and decoded values are bit-identical to the reference.
//!
//! The `compcode_meta` byte: fixed accuracy, a signed power of ten (tolerance `10^meta`); fixed
//! precision, `meta + 3 + 2·ndim` bit planes (at most 64); fixed rate, a percentage of the
//! uncompressed size (`meta/100 · 8 · typesize` bits per value, at least `1 + EBITS` per cell).

mod ints;
mod stream;

use ints::{decode_ints, encode_ints};
use stream::{BitReader, BitWriter};

use crate::error::{Error, Result};

/// Public codec id of ZFP in fixed-accuracy mode.
pub const ZFP_ACC: u8 = 33;
/// Public codec id of ZFP in fixed-precision mode.
pub const ZFP_PREC: u8 = 34;
/// Public codec id of ZFP in fixed-rate mode.
pub const ZFP_RATE: u8 = 35;

/// zfp's `ZFP_MAX_BITS`: the bit budget of a cell outside fixed-rate mode.
const MAX_BITS: u32 = 16658;
/// zfp's `ZFP_MAX_PREC`.
const MAX_PREC: u32 = 64;
/// zfp's `ZFP_MIN_EXP`.
const MIN_EXP: i32 = -1074;

/// The three ZFP modes, with the `compcode_meta` byte as C-Blosc2 interprets it.
///
/// # Examples
///
/// ```
/// use b2rs::codecs::zfp::{self, Mode};
///
/// let src: Vec<u8> = (0..64).flat_map(|i| (i as f64 * 0.5).to_le_bytes()).collect();
/// let mut dst = vec![0u8; src.len()];
/// let n = zfp::compress(Mode::Precision(20), &[8, 8], 8, &src, &mut dst).unwrap();
/// assert!(n > 0 && n < src.len());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Fixed accuracy: absolute error tolerance `10^meta` (meta read as `i8`).
    Accuracy(i8),
    /// Fixed precision: `meta + 3 + 2·ndim` bit planes per value.
    Precision(u8),
    /// Fixed rate: `meta` percent of the uncompressed size.
    Rate(u8),
}

impl Mode {
    /// The mode of a codec id (33, 34 or 35) with its `compcode_meta` byte.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::codecs::zfp::{self, Mode};
    ///
    /// assert_eq!(Mode::from_codec(zfp::ZFP_ACC, 0xfe), Some(Mode::Accuracy(-2)));
    /// assert_eq!(Mode::from_codec(zfp::ZFP_RATE, 50), Some(Mode::Rate(50)));
    /// assert_eq!(Mode::from_codec(b2rs::codecs::ZSTD, 0), None);
    /// ```
    pub fn from_codec(id: u8, meta: u8) -> Option<Mode> {
        match id {
            ZFP_ACC => Some(Mode::Accuracy(meta as i8)),
            ZFP_PREC => Some(Mode::Precision(meta)),
            ZFP_RATE => Some(Mode::Rate(meta)),
            _ => None,
        }
    }
}

/// zfp's per-stream coding parameters (`zfp_stream` without its bit stream).
#[derive(Clone, Copy, Debug)]
struct Params {
    minbits: u32,
    maxbits: u32,
    maxprec: u32,
    minexp: i32,
}

impl Params {
    /// As `zfp_stream_set_accuracy(pow(10, tol))`, `zfp_stream_set_precision(meta + 3 + 2·ndim)`
    /// or `zfp_stream_set_rate(meta/100 · typesize · 8, type, ndim, false)`.
    fn new(mode: Mode, ndim: usize, typesize: usize) -> Params {
        let mut p = Params {
            minbits: 1,
            maxbits: MAX_BITS,
            maxprec: MAX_PREC,
            minexp: MIN_EXP,
        };
        match mode {
            Mode::Accuracy(t) => {
                let tolerance = 10f64.powf(f64::from(t));
                if tolerance > 0.0 {
                    // tolerance = x · 2^(emin+1) with 0.5 <= x < 1 (frexp), minus one.
                    p.minexp = frexp_exponent(tolerance) - 1;
                }
            }
            Mode::Precision(m) => {
                let prec = u32::from(m) + 3 + 2 * ndim as u32;
                p.maxprec = prec.min(MAX_PREC);
            }
            Mode::Rate(m) => {
                let ratio = f64::from(m) / 100.0;
                let rate = ratio * typesize as f64 * 8.0;
                let n = 1u32 << (2 * ndim);
                let mut bits = (f64::from(n) * rate + 0.5).floor() as u32;
                let ebits = if typesize == 4 { 8 } else { 11 };
                bits = bits.max(1 + ebits);
                p.minbits = bits;
                p.maxbits = bits;
            }
        }
        p
    }
}

/// The exponent `e` of `frexp(x)` for a finite `x > 0` (`x = m·2^e`, `0.5 <= m < 1`).
fn frexp_exponent(x: f64) -> i32 {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // Subnormal: x = mantissa · 2^-1074.
        let mant = bits & ((1u64 << 52) - 1);
        (64 - mant.leading_zeros() as i32) - 1074
    } else {
        biased - 1022
    }
}

// ---------------------------------------------------------------------------------------------
// Bit stream (zfp's `bitstream` with 64-bit words, little-endian in memory)
// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// Embedded bit-plane coder of 4^d unsigned (negabinary) coefficients
// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// Sequency orderings of the coefficients (zfp's perm_2, perm_3, perm_4): (i, j, k, l) sorted by
// i + j + k + l, then by i² + j² + k² + l², ties in zfp's order. Each entry is i + 4j + 16k + 64l.
// ---------------------------------------------------------------------------------------------

const PERM_1: [u8; 4] = [0, 1, 2, 3];

const PERM_2: [u8; 16] = [0, 1, 4, 5, 2, 8, 6, 9, 3, 12, 10, 7, 13, 11, 14, 15];

const PERM_3: [u8; 64] = [
    0, 1, 4, 16, 20, 17, 5, 2, 8, 32, 21, 6, 18, 24, 9, 33, 36, 3, 12, 48, 22, 25, 37, 40, 34, 10,
    7, 19, 28, 13, 49, 52, 41, 38, 26, 23, 29, 53, 11, 35, 44, 14, 50, 56, 42, 27, 39, 45, 30, 54,
    57, 60, 51, 15, 43, 46, 58, 61, 55, 31, 62, 59, 47, 63,
];

const PERM_4: [u8; 256] = [
    0, 1, 4, 16, 64, 5, 80, 17, 68, 65, 20, 2, 8, 32, 128, 84, 81, 69, 21, 6, 18, 66, 24, 72, 9,
    96, 33, 36, 129, 132, 144, 3, 12, 48, 192, 85, 82, 70, 22, 73, 25, 88, 37, 100, 97, 148, 145,
    133, 10, 160, 34, 136, 130, 40, 7, 19, 67, 28, 76, 13, 112, 49, 52, 193, 196, 208, 86, 89, 101,
    149, 161, 137, 41, 134, 38, 164, 26, 152, 146, 104, 98, 74, 83, 71, 23, 77, 29, 92, 53, 116,
    113, 212, 209, 197, 11, 35, 131, 44, 140, 14, 176, 50, 56, 194, 200, 224, 90, 165, 102, 153,
    150, 105, 168, 162, 138, 42, 87, 93, 117, 213, 27, 75, 99, 39, 135, 147, 108, 45, 141, 156, 30,
    78, 177, 180, 54, 114, 120, 57, 198, 210, 216, 201, 225, 228, 15, 240, 51, 204, 195, 60, 169,
    166, 154, 106, 91, 103, 151, 109, 157, 94, 181, 118, 121, 214, 217, 229, 163, 139, 43, 142, 46,
    172, 58, 184, 178, 232, 226, 202, 241, 205, 61, 199, 55, 244, 31, 220, 211, 124, 115, 79, 170,
    167, 155, 107, 158, 110, 173, 122, 185, 182, 233, 230, 218, 95, 245, 119, 221, 215, 125, 242,
    206, 62, 203, 59, 248, 47, 236, 227, 188, 179, 143, 171, 174, 186, 234, 246, 222, 126, 219,
    123, 249, 111, 237, 231, 189, 183, 159, 252, 243, 207, 63, 175, 250, 187, 238, 235, 190, 253,
    247, 223, 127, 254, 251, 239, 191, 255,
];

fn perm(ndim: usize) -> &'static [u8] {
    match ndim {
        1 => &PERM_1,
        2 => &PERM_2,
        3 => &PERM_3,
        _ => &PERM_4,
    }
}

/// zfp's `pad_block`: complete a partial line of `n` (1..=3) values at stride `s`.
#[inline]
fn pad_line<T: Copy>(p: &mut [T], base: usize, n: usize, s: usize) {
    if n <= 1 {
        p[base + s] = p[base];
    }
    if n <= 2 {
        p[base + 2 * s] = p[base + s];
    }
    if n <= 3 {
        p[base + 3 * s] = p[base];
    }
}

/// The block's geometry as zfp sees it: sizes `n[0]` = x (fastest, the last b2nd dimension) ...
#[derive(Clone, Copy, Debug)]
struct Field {
    ndim: usize,
    /// Sizes along x, y, z, w (1 for unused dimensions).
    n: [usize; 4],
    /// Element strides along x, y, z, w.
    s: [usize; 4],
}

impl Field {
    fn new(blockshape: &[usize]) -> Field {
        let ndim = blockshape.len();
        let mut n = [1usize; 4];
        for (d, &len) in blockshape.iter().rev().enumerate() {
            n[d] = len;
        }
        let s = [1, n[0], n[0] * n[1], n[0] * n[1] * n[2]];
        Field { ndim, n, s }
    }

    fn len(&self) -> usize {
        self.n.iter().product()
    }

    /// Calls `f(offset, sizes)` for every cell, in zfp's order (x fastest).
    fn for_each_cell(&self, mut f: impl FnMut(usize, [usize; 4])) {
        let n = self.n;
        let step = |d: usize| if d < self.ndim { 4 } else { 1 };
        let mut w = 0;
        while w < n[3] {
            let mut z = 0;
            while z < n[2] {
                let mut y = 0;
                while y < n[1] {
                    let mut x = 0;
                    while x < n[0] {
                        let off = x * self.s[0] + y * self.s[1] + z * self.s[2] + w * self.s[3];
                        let sizes = [
                            (n[0] - x).min(step(0)),
                            (n[1] - y).min(step(1)),
                            (n[2] - z).min(step(2)),
                            (n[3] - w).min(step(3)),
                        ];
                        f(off, sizes);
                        x += step(0);
                    }
                    y += step(1);
                }
                z += step(2);
            }
            w += step(3);
        }
    }
}

/// Cell strides of the contiguous 4^d cell buffer.
const CS: [usize; 4] = [1, 4, 16, 64];

/// `LINES[ndim][axis]`: the first index of every line of 4 values along `axis` in a cell of
/// `ndim` dimensions (4^(ndim-1) lines, in increasing order).
const LINES: [[[u8; 64]; 4]; 5] = {
    let mut t = [[[0u8; 64]; 4]; 5];
    let mut nd = 1;
    while nd <= 4 {
        let mut a = 0;
        while a < nd {
            let mut k = 0;
            let mut base = 0;
            while base < (1usize << (2 * nd)) {
                if (base / CS[a]).is_multiple_of(4) {
                    t[nd][a][k] = base as u8;
                    k += 1;
                }
                base += 1;
            }
            a += 1;
        }
        nd += 1;
    }
    t
};

/// The line bases along `axis` for a cell of `ndim` dimensions.
#[inline]
fn lines(ndim: usize, axis: usize) -> &'static [u8] {
    &LINES[ndim][axis][..1 << (2 * (ndim - 1))]
}

macro_rules! scalar_codec {
    ($modname:ident, $f:ty, $i:ty, $u:ty, $ebits:expr, $nbmask:expr) => {
        mod $modname {
            use super::*;

            const INTPREC: u32 = <$u>::BITS;
            const EBITS: u32 = $ebits;
            const EBIAS: i32 = (1 << (EBITS - 1)) - 1;
            const NBMASK: $u = $nbmask;
            /// Mantissa bits of the float type.
            const MANT: u32 = <$f>::MANTISSA_DIGITS - 1;

            /// `ldexp(1, k)` exactly: a power of two, subnormal, 0 or infinity.
            fn pow2(k: i32) -> $f {
                let emax = EBIAS;
                let emin = 1 - EBIAS;
                if k > emax {
                    <$f>::INFINITY
                } else if k >= emin {
                    <$f>::from_bits(((k + EBIAS) as $u) << MANT)
                } else if k >= emin - MANT as i32 {
                    <$f>::from_bits((1 as $u) << (k - (emin - MANT as i32)))
                } else {
                    0.0
                }
            }

            /// `frexp` exponent of the largest magnitude (0 -> -EBIAS, subnormal clamped).
            fn exponent_block(block: &[$f]) -> i32 {
                let mut max: $f = 0.0;
                for &v in block {
                    let f = v.abs();
                    if max < f {
                        max = f;
                    }
                }
                if max > 0.0 {
                    if max.is_infinite() {
                        // glibc's frexp sets the exponent of an infinity to 0.
                        return 0;
                    }
                    let biased = ((max.to_bits() >> MANT) as i32) & ((1 << EBITS) - 1);
                    let e = if biased == 0 { 1 - EBIAS } else { biased - EBIAS + 1 };
                    e.max(1 - EBIAS)
                } else {
                    -EBIAS
                }
            }

            /// `(Int)(s * x)` with x86-64's result for NaN or out-of-range values.
            #[inline]
            fn to_int(y: $f) -> $i {
                let lim = pow2(INTPREC as i32 - 1);
                if y.is_nan() || y >= lim || y < -lim {
                    <$i>::MIN
                } else {
                    y as $i
                }
            }

            #[inline]
            fn fwd_lift(p: &mut [$i], base: usize, s: usize) {
                let mut x = p[base];
                let mut y = p[base + s];
                let mut z = p[base + 2 * s];
                let mut w = p[base + 3 * s];
                x = x.wrapping_add(w);
                x >>= 1;
                w = w.wrapping_sub(x);
                z = z.wrapping_add(y);
                z >>= 1;
                y = y.wrapping_sub(z);
                x = x.wrapping_add(z);
                x >>= 1;
                z = z.wrapping_sub(x);
                w = w.wrapping_add(y);
                w >>= 1;
                y = y.wrapping_sub(w);
                w = w.wrapping_add(y >> 1);
                y = y.wrapping_sub(w >> 1);
                p[base] = x;
                p[base + s] = y;
                p[base + 2 * s] = z;
                p[base + 3 * s] = w;
            }

            #[inline]
            fn inv_lift(p: &mut [$i], base: usize, s: usize) {
                let mut x = p[base];
                let mut y = p[base + s];
                let mut z = p[base + 2 * s];
                let mut w = p[base + 3 * s];
                y = y.wrapping_add(w >> 1);
                w = w.wrapping_sub(y >> 1);
                y = y.wrapping_add(w);
                w = w.wrapping_shl(1);
                w = w.wrapping_sub(y);
                z = z.wrapping_add(x);
                x = x.wrapping_shl(1);
                x = x.wrapping_sub(z);
                y = y.wrapping_add(z);
                z = z.wrapping_shl(1);
                z = z.wrapping_sub(y);
                w = w.wrapping_add(x);
                x = x.wrapping_shl(1);
                x = x.wrapping_sub(w);
                p[base] = x;
                p[base + s] = y;
                p[base + 2 * s] = z;
                p[base + 3 * s] = w;
            }

            fn fwd_xform(p: &mut [$i], ndim: usize) {
                for a in 0..ndim {
                    for &b in lines(ndim, a) {
                        fwd_lift(p, usize::from(b), CS[a]);
                    }
                }
            }

            fn inv_xform(p: &mut [$i], ndim: usize) {
                for a in (0..ndim).rev() {
                    for &b in lines(ndim, a) {
                        inv_lift(p, usize::from(b), CS[a]);
                    }
                }
            }

            /// Encode one contiguous cell; return the bits written.
            /// Integer and coefficient buffers reused across the cells of a field.
            struct Work {
                i: [$i; 256],
                u: [u64; 256],
            }

            impl Work {
                fn new() -> Box<Work> {
                    Box::new(Work {
                        i: [0; 256],
                        u: [0; 256],
                    })
                }
            }

            fn encode_cell(
                s: &mut BitWriter,
                p: &Params,
                ndim: usize,
                fblock: &[$f],
                work: &mut Work,
            ) -> u32 {
                let size = fblock.len();
                let mut bits: u32 = 1;
                let emax = exponent_block(fblock);
                let maxprec = precision(emax, p.maxprec, p.minexp, ndim);
                let e = if maxprec != 0 { (emax + EBIAS) as u32 } else { 0 };
                if e != 0 {
                    bits += EBITS;
                    s.write_bits(2 * u64::from(e) + 1, bits);
                    // Forward block-floating-point transform.
                    let scale = pow2((INTPREC as i32 - 2) - emax);
                    let iblock = &mut work.i[..size];
                    for (q, &v) in iblock.iter_mut().zip(fblock) {
                        *q = to_int(scale * v);
                    }
                    fwd_xform(iblock, ndim);
                    let ublock = &mut work.u[..size];
                    for (u, &pi) in ublock.iter_mut().zip(perm(ndim)) {
                        let v = iblock[pi as usize] as $u;
                        *u = u64::from(v.wrapping_add(NBMASK) ^ NBMASK);
                    }
                    let minbits = p.minbits as i64 - i64::from(bits);
                    let maxbits = p.maxbits - bits;
                    let mut ib = encode_ints(s, maxbits, maxprec, ublock, INTPREC) as i64;
                    if ib < minbits {
                        s.pad((minbits - ib) as u32);
                        ib = minbits;
                    }
                    bits += ib as u32;
                } else {
                    s.write_bit(0);
                    if p.minbits > bits {
                        s.pad(p.minbits - bits);
                        bits = p.minbits;
                    }
                }
                bits
            }

            /// Decode one contiguous cell; return the bits read.
            fn decode_cell(
                s: &mut BitReader<'_>,
                p: &Params,
                ndim: usize,
                fblock: &mut [$f],
                work: &mut Work,
            ) -> u32 {
                let size = fblock.len();
                let mut bits: u32 = 1;
                if s.read_bit() != 0 {
                    bits += EBITS;
                    let emax = s.read_bits(EBITS) as i32 - EBIAS;
                    let maxprec = precision(emax, p.maxprec, p.minexp, ndim);
                    let minbits = p.minbits as i64 - i64::from(bits);
                    let maxbits = p.maxbits.wrapping_sub(bits);
                    let ublock = &mut work.u[..size];
                    let mut ib = decode_ints(s, maxbits, maxprec, ublock, INTPREC) as i64;
                    if ib < minbits {
                        s.skip((minbits - ib) as u32);
                        ib = minbits;
                    }
                    bits = bits.wrapping_add(ib as u32);
                    let iblock = &mut work.i[..size];
                    for (&u, &pi) in ublock.iter().zip(perm(ndim)) {
                        let u = u as $u;
                        iblock[pi as usize] = (u ^ NBMASK).wrapping_sub(NBMASK) as $i;
                    }
                    inv_xform(iblock, ndim);
                    let scale = pow2(emax - (INTPREC as i32 - 2));
                    for (f, &q) in fblock.iter_mut().zip(iblock.iter()) {
                        *f = scale * (q as $f);
                    }
                } else {
                    fblock.fill(0.0);
                    if p.minbits > bits {
                        s.skip(p.minbits - bits);
                        bits = p.minbits;
                    }
                }
                bits
            }

            /// Compress a whole field (one Blosc block) of native-endian values.
            pub(super) fn compress(p: &Params, field: &Field, src: &[u8], cap: usize) -> Vec<u8> {
                const W: usize = std::mem::size_of::<$f>();
                let data: Vec<$f> = src
                    .chunks_exact(W)
                    .map(|c| <$f>::from_ne_bytes(c.try_into().unwrap()))
                    .collect();
                let ndim = field.ndim;
                let size = 1usize << (2 * ndim);
                let mut s = BitWriter::with_capacity(cap);
                let mut work = Work::new();
                let mut cell = [0.0 as $f; 256];
                field.for_each_cell(|off, n| {
                    let cell = &mut cell[..size];
                    // Gather the valid values, then pad each axis as zfp's gather_partial.
                    for w in 0..n[3] {
                        for z in 0..n[2] {
                            for y in 0..n[1] {
                                let src_off = off + y * field.s[1] + z * field.s[2] + w * field.s[3];
                                let dst_off = y * CS[1] + z * CS[2] + w * CS[3];
                                cell[dst_off..dst_off + n[0]]
                                    .copy_from_slice(&data[src_off..src_off + n[0]]);
                            }
                        }
                    }
                    for a in 0..ndim {
                        if n[a] < 4 {
                            for &b in lines(ndim, a) {
                                let b = usize::from(b);
                                // Only lines inside the already-complete region of the later axes.
                                let inside = (a + 1..ndim).all(|d| (b / CS[d]) % 4 < n[d]);
                                if inside {
                                    pad_line(cell, b, n[a], CS[a]);
                                }
                            }
                        }
                    }
                    encode_cell(&mut s, p, ndim, cell, &mut work);
                });
                s.finish()
            }

            /// Decompress a whole field into `dst` (native-endian values); returns whether the
            /// stream held enough bits.
            pub(super) fn decompress(p: &Params, field: &Field, src: &[u8], dst: &mut [u8]) -> bool {
                const W: usize = std::mem::size_of::<$f>();
                let ndim = field.ndim;
                let size = 1usize << (2 * ndim);
                let mut s = BitReader::new(src);
                let mut work = Work::new();
                let mut cell = [0.0 as $f; 256];
                field.for_each_cell(|off, n| {
                    let cell = &mut cell[..size];
                    decode_cell(&mut s, p, ndim, cell, &mut work);
                    for w in 0..n[3] {
                        for z in 0..n[2] {
                            for y in 0..n[1] {
                                let dst_off = off + y * field.s[1] + z * field.s[2] + w * field.s[3];
                                let src_off = y * CS[1] + z * CS[2] + w * CS[3];
                                let out = &mut dst[dst_off * W..(dst_off + n[0]) * W];
                                for (o, v) in out.chunks_exact_mut(W).zip(&cell[src_off..]) {
                                    o.copy_from_slice(&v.to_ne_bytes());
                                }
                            }
                        }
                    }
                });
                !s.overrun()
            }
        }
    };
}

/// zfp's `precision`: the number of bit planes to code for a cell of exponent `maxexp`.
fn precision(maxexp: i32, maxprec: u32, minexp: i32, ndim: usize) -> u32 {
    let p = i64::from(maxexp) - i64::from(minexp) + 2 * ndim as i64 + 2;
    (p.max(0) as u64).min(u64::from(maxprec)) as u32
}

scalar_codec!(single, f32, i32, u32, 8, 0xaaaa_aaaa);
scalar_codec!(double, f64, i64, u64, 11, 0xaaaa_aaaa_aaaa_aaaa);

fn check_geometry(blockshape: &[usize], typesize: usize, len: usize) -> Result<Field> {
    if !(1..=4).contains(&blockshape.len()) {
        crate::trace_error!("ZFP is not available for ndims: {}", blockshape.len());
        return Err(Error::Failure);
    }
    if typesize != 4 && typesize != 8 {
        crate::trace_error!("ZFP is not available for typesize: {}", typesize);
        return Err(Error::Failure);
    }
    let field = Field::new(blockshape);
    if field.len().checked_mul(typesize) != Some(len) {
        crate::trace_error!(
            "ZFP: a block of shape {:?} and typesize {} is not {} bytes",
            blockshape,
            typesize,
            len
        );
        return Err(Error::Failure);
    }
    Ok(field)
}

/// Compress one Blosc block `src`, of shape `blockshape` (C order, the b2nd block shape) and
/// items of `typesize` bytes (4: `float`, 8: `double`), into `dst`.
///
/// Returns the compressed size, or `Ok(0)` when the stream would not be smaller than `src` (or
/// does not fit `dst`), or `src` is not one whole block (a split stream): store it raw. Blocks
/// with a dimension below 4, other typesizes and other ranks are refused, as C-Blosc2 does.
///
/// # Examples
///
/// ```
/// use b2rs::codecs::zfp::{self, Mode};
///
/// // an 8 x 8 block of f32 values, lossy to 1e-2
/// let vals: Vec<f32> = (0..64).map(|i| (i as f32 * 0.1).sin()).collect();
/// let src: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
/// let mut dst = vec![0u8; src.len()];
/// let n = zfp::compress(Mode::Accuracy(-2), &[8, 8], 4, &src, &mut dst).unwrap();
/// assert!(n > 0 && n < src.len());
/// // blocks smaller than a 4 x 4 cell are refused
/// assert!(zfp::compress(Mode::Accuracy(-2), &[2, 32], 4, &src, &mut dst).is_err());
/// ```
pub fn compress(
    mode: Mode,
    blockshape: &[usize],
    typesize: usize,
    src: &[u8],
    dst: &mut [u8],
) -> Result<usize> {
    if blockshape.iter().any(|&n| n < 4) {
        crate::trace_error!("ZFP does not support blocks smaller than cells (4x...x4)");
        return Err(Error::Failure);
    }
    let block_len = blockshape
        .iter()
        .try_fold(typesize, |n, &d| n.checked_mul(d));
    if block_len != Some(src.len()) {
        // Not a whole block (split streams, a partial buffer): stored raw, as C-Blosc2's
        // plugin does.
        return Ok(0);
    }
    let out = encode(mode, blockshape, typesize, src)?;
    if out.len() >= src.len() || out.len() > dst.len() {
        return Ok(0);
    }
    dst[..out.len()].copy_from_slice(&out);
    Ok(out.len())
}

/// The whole zfp stream of a block (whatever its size).
fn encode(mode: Mode, blockshape: &[usize], typesize: usize, src: &[u8]) -> Result<Vec<u8>> {
    let field = check_geometry(blockshape, typesize, src.len())?;
    let params = Params::new(mode, field.ndim, typesize);
    let cap = src.len() + 64;
    Ok(if typesize == 4 {
        single::compress(&params, &field, src, cap)
    } else {
        double::compress(&params, &field, src, cap)
    })
}

/// Decompress one Blosc block written by [`compress`] (or C-Blosc2) into `dst`, which must be
/// the whole block (`prod(blockshape) · typesize` bytes). Returns `dst.len()`.
///
/// # Examples
///
/// ```
/// use b2rs::codecs::zfp::{self, Mode};
///
/// let vals: Vec<f32> = (0..64).map(|i| (i as f32 * 0.1).sin()).collect();
/// let src: Vec<u8> = vals.iter().flat_map(|v| v.to_le_bytes()).collect();
/// let mut dst = vec![0u8; src.len()];
/// let n = zfp::compress(Mode::Accuracy(-2), &[8, 8], 4, &src, &mut dst).unwrap();
/// let mut back = vec![0u8; src.len()];
/// assert_eq!(zfp::decompress(Mode::Accuracy(-2), &[8, 8], 4, &dst[..n], &mut back).unwrap(), src.len());
/// for (b, v) in back.chunks(4).zip(&vals) {
///     assert!((f32::from_le_bytes(b.try_into().unwrap()) - v).abs() <= 1e-2);
/// }
/// ```
pub fn decompress(
    mode: Mode,
    blockshape: &[usize],
    typesize: usize,
    src: &[u8],
    dst: &mut [u8],
) -> Result<usize> {
    if blockshape.contains(&0) {
        crate::trace_error!("ZFP: empty block shape {:?}", blockshape);
        return Err(Error::Failure);
    }
    let field = check_geometry(blockshape, typesize, dst.len())?;
    let params = Params::new(mode, field.ndim, typesize);
    let ok = if typesize == 4 {
        single::decompress(&params, &field, src, dst)
    } else {
        double::decompress(&params, &field, src, dst)
    };
    if !ok {
        crate::trace_error!("ZFP: the stream ends before the block does");
        return Err(Error::Data);
    }
    Ok(dst.len())
}

/// The block shape of the b2nd array a stream belongs to, as C-Blosc2's plugin reads it from
/// the super-chunk's "b2nd" metalayer.
fn blockshape_of(b2nd: Option<&crate::b2nd::Meta>) -> Result<Vec<usize>> {
    let Some(meta) = b2nd else {
        crate::trace_error!("b2nd layer not found!");
        return Err(Error::Failure);
    };
    meta.blockshape
        .iter()
        .map(|&n| usize::try_from(n).map_err(|_| Error::Failure))
        .collect()
}

/// The codec entry point of the pipeline: compress one block with codec `id` (33, 34 or 35),
/// the `compcode_meta` byte, the compression typesize and the b2nd block shape of `info`.
/// Outside a super-chunk the block is stored raw (`Ok(0)`, as C-Blosc2); in a super-chunk
/// without "b2nd" metalayer it is an error.
///
/// # Examples
///
/// ```
/// use b2rs::codecs::{zfp, StreamInfo};
/// use b2rs::CParams;
///
/// // outside a super-chunk (no b2nd metalayer) the block is stored raw, as C-Blosc2
/// let cparams = CParams { typesize: 4, ..CParams::default() };
/// let info = StreamInfo { meta: 0, chunk: &[], cparams: Some(&cparams), dparams: None };
/// let src = vec![0u8; 256];
/// let mut dst = vec![0u8; 256];
/// assert_eq!(zfp::compress_stream(zfp::ZFP_ACC, &src, &mut dst, info).unwrap(), 0);
/// ```
pub fn compress_stream(
    id: u8,
    src: &[u8],
    dst: &mut [u8],
    info: crate::codecs::StreamInfo<'_>,
) -> Result<usize> {
    let Some(cparams) = info.cparams else {
        return Err(Error::Failure);
    };
    let mode = Mode::from_codec(id, info.meta).ok_or(Error::CodecSupport)?;
    if cparams.b2nd.is_none() && cparams.schunk_typesize.is_none() {
        // Outside a super-chunk C-Blosc2's plugin returns 0: the block is stored raw.
        return Ok(0);
    }
    let blockshape = blockshape_of(cparams.b2nd.as_deref())?;
    let typesize = usize::try_from(cparams.typesize).map_err(|_| Error::Failure)?;
    compress(mode, &blockshape, typesize, src, dst)
}

/// The codec entry point of the pipeline: decompress one block with codec `id`, the
/// `compcode_meta` byte, the super-chunk's typesize (else the chunk's) and the b2nd block shape
/// of `info`. Returns the decoded size (`dst.len()`).
///
/// # Examples
///
/// ```
/// use std::sync::Arc;
/// use b2rs::b2nd::Meta;
/// use b2rs::codecs::{zfp, StreamInfo};
/// use b2rs::{CParams, DParams};
///
/// let nd = Arc::new(Meta::new(&[8, 8], &[8, 8], &[8, 8]));
/// let cparams = CParams { typesize: 8, b2nd: Some(nd.clone()), ..CParams::default() };
/// let dparams = DParams { schunk_typesize: Some(8), b2nd: Some(nd), ..DParams::default() };
/// let src: Vec<u8> = (0..64).flat_map(|i| (i as f64).to_le_bytes()).collect();
/// let mut dst = vec![0u8; src.len()];
/// let info = StreamInfo { meta: 30, chunk: &[], cparams: Some(&cparams), dparams: None };
/// let n = zfp::compress_stream(zfp::ZFP_PREC, &src, &mut dst, info).unwrap();
/// assert!(n > 0);
/// let info = StreamInfo { meta: 30, chunk: &[], cparams: None, dparams: Some(&dparams) };
/// let mut back = vec![0u8; src.len()];
/// assert_eq!(zfp::decompress_stream(zfp::ZFP_PREC, &dst[..n], &mut back, info).unwrap(), src.len());
/// for (b, i) in back.chunks(8).zip(0..) {
///     assert!((f64::from_le_bytes(b.try_into().unwrap()) - i as f64).abs() < 1e-3);
/// }
/// ```
pub fn decompress_stream(
    id: u8,
    src: &[u8],
    dst: &mut [u8],
    info: crate::codecs::StreamInfo<'_>,
) -> Result<usize> {
    let Some(dparams) = info.dparams else {
        return Err(Error::Failure);
    };
    let mode = Mode::from_codec(id, info.meta).ok_or(Error::CodecSupport)?;
    if dparams.b2nd.is_none() && dparams.schunk_typesize.is_none() {
        // Outside a super-chunk C-Blosc2's plugin decodes nothing (and Blosc reports bad data).
        crate::trace_error!("ZFP needs the b2nd metalayer of the chunk's super-chunk");
        return Ok(0);
    }
    let blockshape = blockshape_of(dparams.b2nd.as_deref())?;
    let typesize = match dparams.schunk_typesize {
        Some(t) => t,
        None => i32::from(*info.chunk.get(3).ok_or(Error::Failure)?),
    };
    let typesize = usize::try_from(typesize).map_err(|_| Error::Failure)?;
    decompress(mode, &blockshape, typesize, src, dst)
}

#[cfg(test)]
mod tests;
