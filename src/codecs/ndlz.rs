//! NDLZ (codec id 32): the experimental LZ codec for 2-D data that C-Blosc2 ships as a plugin,
//! bit-exact with C-Blosc2 3.3.5 (`plugins/codecs/ndlz/ndlz4x4.c`, `ndlz8x8.c`).
//!
//! The block is taken as a `blockshape[0] × blockshape[1]` array of **bytes** (so the codec only
//! works with typesize 1 and 2-D arrays; the shapes come from the super-chunk's "b2nd"
//! metalayer) and cut into square cells of side 4 or 8 (`compcode_meta`). Each cell is encoded
//! after a one-byte token; back-references point into the *compressed* stream itself (to
//! literal rows written earlier), so decoding needs no history of decoded data.
//!
//! Stream layout: `ndim` (1 byte, always 2), `blockshape[0]`, `blockshape[1]` (i32 LE), then the
//! cells in row-major order:
//!
//! | token | 4×4 meaning | payload |
//! |---|---|---|
//! | `0x00` | literal cell (also every cell cut by the block edge) | the cell's bytes |
//! | `0x40` | all bytes equal | the byte |
//! | `0xC0` | same cell as an earlier literal | u16 LE offset back |
//! | `0xE0..` | three rows match (row set from bits 3-4) | u16 offset, the other row |
//! | `0x80..0xBF` | two rows match (rows from bits 3-6) | u16 offset, the two other rows |
//! | `0x28..0x3F` | two row pairs match | two u16 offsets |
//!
//! The 8×8 variant uses `0xA8 | row` for three consecutive rows and `0x88 | row` for two.
//! Offsets are measured from the token back to the referenced literal bytes. Hash tables
//! (XXH32 with seed 1, top 12 bits) index literal cells, row pairs and row triples; their
//! update rule, stale entries included, is C-Blosc2's, which makes the output byte-identical.

use crate::b2nd::Meta;
use crate::error::{Error, Result};

/// Public codec id of NDLZ.
pub const ID: u8 = 32;

const MAX_DISTANCE: usize = 65535;
const HASH_LOG: u32 = 12;
const TAB_SIZE: usize = 1 << HASH_LOG;

const TOKEN_LITERAL: u8 = 0;
const TOKEN_SAME: u8 = 1 << 6;
const TOKEN_CELL: u8 = (1 << 7) | (1 << 6);

/// XXH32 of `data` with `seed` (the reference's `XXH32`, used for its hash tables).
///
/// # Examples
///
/// ```
/// use b2rs::codecs::ndlz::xxh32;
///
/// assert_eq!(xxh32(b"", 0), 0x02CC_5D05);
/// assert_eq!(xxh32(b"abc", 0), 0x32D1_53FF);
/// ```
pub fn xxh32(data: &[u8], seed: u32) -> u32 {
    const P1: u32 = 0x9E37_79B1;
    const P2: u32 = 0x85EB_CA77;
    const P3: u32 = 0xC2B2_AE3D;
    const P4: u32 = 0x27D4_EB2F;
    const P5: u32 = 0x1656_67B1;
    let rd = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let round = |acc: u32, v: u32| {
        acc.wrapping_add(v.wrapping_mul(P2))
            .rotate_left(13)
            .wrapping_mul(P1)
    };
    let mut rest = data;
    let mut h = if data.len() >= 16 {
        let mut v = [
            seed.wrapping_add(P1).wrapping_add(P2),
            seed.wrapping_add(P2),
            seed,
            seed.wrapping_sub(P1),
        ];
        while rest.len() >= 16 {
            for (k, acc) in v.iter_mut().enumerate() {
                *acc = round(*acc, rd(&rest[4 * k..]));
            }
            rest = &rest[16..];
        }
        v[0].rotate_left(1)
            .wrapping_add(v[1].rotate_left(7))
            .wrapping_add(v[2].rotate_left(12))
            .wrapping_add(v[3].rotate_left(18))
    } else {
        seed.wrapping_add(P5)
    };
    h = h.wrapping_add(data.len() as u32);
    while rest.len() >= 4 {
        h = h
            .wrapping_add(rd(rest).wrapping_mul(P3))
            .rotate_left(17)
            .wrapping_mul(P4);
        rest = &rest[4..];
    }
    for &b in rest {
        h = h
            .wrapping_add((b as u32).wrapping_mul(P5))
            .rotate_left(11)
            .wrapping_mul(P1);
    }
    h ^= h >> 15;
    h = h.wrapping_mul(P2);
    h ^= h >> 13;
    h = h.wrapping_mul(P3);
    h ^ (h >> 16)
}

fn hash(data: &[u8]) -> usize {
    (xxh32(data, 1) >> (32 - HASH_LOG)) as usize
}

/// Compress one block with cells of side `meta` (4 or 8), the block shape being read from `nd`
/// (the array's "b2nd" metalayer). `Ok(0)`: store the block raw (no gain, or `dst` too small).
/// Errors (C-Blosc2's plugin returns a negative code, which fails the compression): no
/// metalayer, a cell side other than 4 or 8, an array that is not 2-D, a block whose length is
/// not `blockshape[0] * blockshape[1]` (typesize other than 1).
///
/// # Examples
///
/// ```
/// use b2rs::b2nd::Meta;
/// use b2rs::codecs::ndlz;
///
/// // one 32 x 32 block of bytes (typesize 1) of a 2-D array
/// let nd = Meta::new(&[32, 32], &[32, 32], &[32, 32]);
/// let src: Vec<u8> = (0..1024u32).map(|i| (i % 32 / 8) as u8).collect();
/// let mut dst = vec![0u8; src.len()];
/// let n = ndlz::compress(4, Some(&nd), &src, &mut dst).unwrap();
/// assert!(n > 0 && n < src.len());
/// // NDLZ needs the "b2nd" metalayer
/// assert!(ndlz::compress(4, None, &src, &mut dst).is_err());
/// ```
pub fn compress(meta: u8, nd: Option<&Meta>, src: &[u8], dst: &mut [u8]) -> Result<usize> {
    let Some(nd) = nd else {
        crate::trace_error!("b2nd layer not found!");
        return Err(Error::Failure);
    };
    if meta != 4 && meta != 8 {
        crate::trace_error!("NDLZ is not available for this cellsize: {}", meta);
        return Err(Error::Failure);
    }
    if nd.ndim() != 2 {
        crate::trace_error!("This codec only works for ndim = 2");
        return Err(Error::Failure);
    }
    let (b0, b1) = (nd.blockshape[0], nd.blockshape[1]);
    if src.len() as i64 != b0 as i64 * b1 as i64 || b0 < 0 || b1 < 0 {
        crate::trace_error!("Length not equal to blocksize");
        return Err(Error::Failure);
    }
    if dst.len() < 9 {
        crate::trace_error!("Output too small");
        return Err(Error::Failure);
    }
    let (b0, b1) = (b0 as usize, b1 as usize);
    let c = meta as usize;
    let cell_size = c * c;
    let overhead = 17 + ((b0 * b1 / cell_size) as i64 - 1) * 2;
    if src.len() < cell_size || (dst.len() as i64) < overhead {
        crate::trace_error!("Incorrect length or maxout");
        return Ok(0);
    }
    let mut enc = Encoder {
        src,
        dst,
        op: 0,
        b0,
        b1,
        tab_cell: vec![0; TAB_SIZE],
        tab_triple: vec![0; TAB_SIZE],
        tab_pair: vec![0; TAB_SIZE],
    };
    if c == 4 {
        enc.run(4, Encoder::cell4)
    } else {
        enc.run(8, Encoder::cell8)
    }
}

/// Compressor state: the output written so far and the three hash tables (positions in the
/// output, 0 = empty).
struct Encoder<'a> {
    src: &'a [u8],
    dst: &'a mut [u8],
    op: usize,
    b0: usize,
    b1: usize,
    tab_cell: Vec<u32>,
    tab_triple: Vec<u32>,
    tab_pair: Vec<u32>,
}

/// Hash-table updates collected while looking for matches (C-Blosc2 keeps the hashes of earlier
/// cells when a slot is not refreshed; so do we).
struct Updates<const T: usize, const P: usize> {
    hash_triple: [u32; T],
    hash_pair: [u32; P],
}

impl Encoder<'_> {
    fn put(&mut self, b: &[u8]) {
        self.dst[self.op..self.op + b.len()].copy_from_slice(b);
        self.op += b.len();
    }

    /// Whether the output at table position `tab` holds `bytes`.
    fn same(&self, tab: u32, bytes: &[u8]) -> bool {
        tab != 0 && self.dst[tab as usize..tab as usize + bytes.len()] == *bytes
    }

    /// Run over the cells; `cell` encodes a full cell (`anchor` = its token position).
    fn run<const T: usize, const P: usize, const N: usize>(
        &mut self,
        c: usize,
        cell: fn(&mut Self, &[u8; N], &mut Updates<T, P>),
    ) -> Result<usize> {
        let (b0, b1) = (self.b0, self.b1);
        self.put(&[2]);
        self.put(&(b0 as i32).to_le_bytes());
        self.put(&(b1 as i32).to_le_bytes());
        let stop = [b0.div_ceil(c), b1.div_ceil(c)];
        let mut up = Updates {
            hash_triple: [0; T],
            hash_pair: [0; P],
        };
        let mut buf = [0u8; N];
        for i0 in 0..stop[0] {
            for i1 in 0..stop[1] {
                if self.op + N + 1 > self.dst.len() {
                    return Ok(0);
                }
                let orig = i0 * c * b1 + i1 * c;
                let last0 = i0 == stop[0] - 1;
                let last1 = i1 == stop[1] - 1;
                if (b0 % c != 0 && last0) || (b1 % c != 0 && last1) {
                    // cut by the block edge: literal copy of what is inside
                    self.put(&[TOKEN_LITERAL]);
                    let p0 = if last0 && b0 % c != 0 { b0 % c } else { c };
                    let p1 = if last1 && b1 % c != 0 { b1 % c } else { c };
                    for i in 0..p0 {
                        let s = orig + i * b1;
                        let src = self.src;
                        self.put(&src[s..s + p1]);
                    }
                } else {
                    for i in 0..c {
                        let s = orig + i * b1;
                        buf[i * c..(i + 1) * c].copy_from_slice(&self.src[s..s + c]);
                    }
                    cell(self, &buf, &mut up);
                }
                if self.op > self.src.len() {
                    crate::trace_error!("Compressed data is bigger than input!");
                    return Ok(0);
                }
            }
        }
        Ok(self.op)
    }

    /// Encode an all-equal cell, a whole-cell match or (`None`) neither. Returns the cell hash.
    fn same_or_cell_match(&mut self, cell: &[u8]) -> (usize, bool) {
        let anchor = self.op;
        let hash_cell = hash(cell);
        let tab = self.tab_cell[hash_cell];
        let distance = if self.same(tab, cell) {
            anchor - tab as usize
        } else {
            0
        };
        if cell.iter().all(|&b| b == cell[0]) {
            self.put(&[TOKEN_SAME, cell[0]]);
            return (hash_cell, true);
        }
        if distance != 0 && distance < MAX_DISTANCE {
            let offset = (anchor - tab as usize) as u16;
            self.put(&[TOKEN_CELL]);
            self.put(&offset.to_le_bytes());
            return (hash_cell, true);
        }
        (hash_cell, false)
    }

    /// Write a literal cell and apply the collected hash-table updates (C-Blosc2's rule: all
    /// slots are rewritten when the first one was set in this cell).
    fn literal<const T: usize, const P: usize>(
        &mut self,
        cell: &[u8],
        hash_cell: usize,
        up: &Updates<T, P>,
        update_triple: &[u32; T],
        update_pair: &[u32; P],
    ) {
        let anchor = self.op;
        self.tab_cell[hash_cell] = (anchor + 1) as u32;
        if update_triple[0] != 0 {
            for (&h, &u) in up.hash_triple.iter().zip(update_triple) {
                self.tab_triple[h as usize] = u;
            }
        }
        if update_pair[0] != 0 {
            for (&h, &u) in up.hash_pair.iter().zip(update_pair) {
                self.tab_pair[h as usize] = u;
            }
        }
        self.put(&[TOKEN_LITERAL]);
        self.put(cell);
    }

    /// One full 4×4 cell (`ndlz4_compress`).
    #[allow(clippy::needless_range_loop)] // row indices, as in the reference
    fn cell4(&mut self, cell: &[u8; 16], up: &mut Updates<2, 3>) {
        let (hash_cell, done) = self.same_or_cell_match(cell);
        if done {
            return;
        }
        let anchor = self.op;
        let row = |k: usize| &cell[4 * k..4 * k + 4];
        let mut update_triple = [0u32; 2];
        let mut update_pair = [0u32; 3];
        let dist = |tab: u32, extra: usize| anchor + extra - tab as usize;
        // two row pairs: rows (0, j) and the other two
        for j in 1..4 {
            let mut pair = [0u8; 8];
            pair[..4].copy_from_slice(row(0));
            pair[4..].copy_from_slice(row(j));
            let tab1 = self.tab_pair[hash(&pair)];
            if !self.same(tab1, &pair) {
                continue;
            }
            let distance = dist(tab1, 0);
            if distance == 0 || distance >= MAX_DISTANCE {
                continue;
            }
            let offset = (anchor - tab1 as usize) as u16;
            let (l, m) = other_rows(j);
            pair[..4].copy_from_slice(row(l));
            pair[4..].copy_from_slice(row(m));
            let tab2 = self.tab_pair[hash(&pair)];
            if !self.same(tab2, &pair) {
                continue;
            }
            let distance = dist(tab2, l * 4);
            if distance != 0 && distance < MAX_DISTANCE {
                let offset_2 = (anchor - tab2 as usize) as u16;
                self.put(&[(1 << 5) | ((j as u8) << 3)]);
                self.put(&offset.to_le_bytes());
                self.put(&offset_2.to_le_bytes());
                return;
            }
        }
        // three rows
        for i in 0..2 {
            for j in i + 1..3 {
                for k in j + 1..4 {
                    let mut triple = [0u8; 12];
                    triple[..4].copy_from_slice(row(i));
                    triple[4..8].copy_from_slice(row(j));
                    triple[8..].copy_from_slice(row(k));
                    let hval = hash(&triple);
                    let tab = self.tab_triple[hval];
                    let same = if tab != 0 {
                        self.same(tab, &triple)
                    } else {
                        if j - i == 1 && k - j == 1 {
                            update_triple[i] = (anchor + 1 + i * 4) as u32;
                            up.hash_triple[i] = hval as u32;
                        }
                        false
                    };
                    let distance = if same { dist(tab, i * 4) } else { 0 };
                    if distance != 0 && distance < MAX_DISTANCE {
                        let offset = (anchor - tab as usize) as u16;
                        let token = if i == 1 {
                            7 << 5
                        } else {
                            (7 << 5) | (((j + k - 2) as u8) << 3)
                        };
                        self.put(&[token]);
                        self.put(&offset.to_le_bytes());
                        let l = (0..4).find(|&l| l != i && l != j && l != k).unwrap_or(0);
                        self.put(row(l));
                        return;
                    }
                }
            }
        }
        // two rows
        for i in 0..3 {
            for j in i + 1..4 {
                let mut pair = [0u8; 8];
                pair[..4].copy_from_slice(row(i));
                pair[4..].copy_from_slice(row(j));
                let hval = hash(&pair);
                let tab = self.tab_pair[hval];
                let same = if tab != 0 {
                    self.same(tab, &pair)
                } else {
                    if j - i == 1 {
                        update_pair[i] = (anchor + 1 + i * 4) as u32;
                        up.hash_pair[i] = hval as u32;
                    }
                    false
                };
                let distance = if same { dist(tab, i * 4) } else { 0 };
                if distance != 0 && distance < MAX_DISTANCE {
                    let offset = (anchor - tab as usize) as u16;
                    let token = if i == 2 {
                        1 << 7
                    } else {
                        (1 << 7) | ((i as u8) << 5) | ((j as u8) << 3)
                    };
                    self.put(&[token]);
                    self.put(&offset.to_le_bytes());
                    for k in (0..4).filter(|&k| k != i && k != j) {
                        self.put(row(k));
                    }
                    return;
                }
            }
        }
        self.literal(cell, hash_cell, up, &update_triple, &update_pair);
    }

    /// One full 8×8 cell (`ndlz8_compress`).
    #[allow(clippy::needless_range_loop)] // row indices, as in the reference
    fn cell8(&mut self, cell: &[u8; 64], up: &mut Updates<6, 7>) {
        let (hash_cell, done) = self.same_or_cell_match(cell);
        if done {
            return;
        }
        let anchor = self.op;
        let mut update_triple = [0u32; 6];
        let mut update_pair = [0u32; 7];
        // three consecutive rows
        for i in 0..6 {
            let start = i * 8;
            let triple = &cell[start..start + 24];
            let hval = hash(triple);
            let tab = self.tab_triple[hval];
            let same = if tab != 0 {
                self.same(tab, triple)
            } else {
                update_triple[i] = (anchor + 1 + start) as u32;
                up.hash_triple[i] = hval as u32;
                false
            };
            let distance = if same {
                anchor + start - tab as usize
            } else {
                0
            };
            if distance != 0 && distance < MAX_DISTANCE {
                let offset = (anchor - tab as usize) as u16;
                self.put(&[(21 << 3) | i as u8]);
                self.put(&offset.to_le_bytes());
                for l in (0..8).filter(|&l| l < i || l > i + 2) {
                    self.put(&cell[l * 8..l * 8 + 8]);
                }
                return;
            }
        }
        // two consecutive rows
        for i in 0..7 {
            let start = i * 8;
            let pair = &cell[start..start + 16];
            let hval = hash(pair);
            let tab = self.tab_pair[hval];
            let same = if tab != 0 {
                self.same(tab, pair)
            } else {
                update_pair[i] = (anchor + 1 + start) as u32;
                up.hash_pair[i] = hval as u32;
                false
            };
            let distance = if same {
                anchor + start - tab as usize
            } else {
                0
            };
            if distance != 0 && distance < MAX_DISTANCE {
                let offset = (anchor - tab as usize) as u16;
                self.put(&[(17 << 3) | i as u8]);
                self.put(&offset.to_le_bytes());
                for l in (0..8).filter(|&l| l < i || l > i + 1) {
                    self.put(&cell[l * 8..l * 8 + 8]);
                }
                return;
            }
        }
        self.literal(cell, hash_cell, up, &update_triple, &update_pair);
    }
}

/// Bounds-checked reads of the compressed stream.
struct Input<'a> {
    buf: &'a [u8],
}

impl<'a> Input<'a> {
    fn get(&self, pos: i64, len: usize) -> Result<&'a [u8]> {
        if pos < 0 || pos as u64 + len as u64 > self.buf.len() as u64 {
            crate::trace_error!("ndlz: out-of-bounds reference in compressed stream");
            return Err(Error::Failure);
        }
        Ok(&self.buf[pos as usize..pos as usize + len])
    }

    fn u16_at(&self, pos: i64) -> Result<i64> {
        let b = self.get(pos, 2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]) as i64)
    }
}

/// Decompress one NDLZ stream made with cells of side `meta` (4 or 8) into `dst`. Returns the
/// number of bytes written (the block shape is in the stream; the metalayer is not needed).
/// `Ok(0)` for a stream shorter than 8 bytes or a block larger than `dst`, as C-Blosc2.
///
/// # Examples
///
/// ```
/// use b2rs::b2nd::Meta;
/// use b2rs::codecs::ndlz;
///
/// let nd = Meta::new(&[32, 32], &[32, 32], &[32, 32]);
/// let src: Vec<u8> = (0..1024u32).map(|i| (i % 32 / 8) as u8).collect();
/// let mut dst = vec![0u8; src.len()];
/// let n = ndlz::compress(8, Some(&nd), &src, &mut dst).unwrap();
/// let mut back = vec![0u8; src.len()];
/// assert_eq!(ndlz::decompress(8, &dst[..n], &mut back).unwrap(), src.len());
/// assert_eq!(back, src);
/// ```
pub fn decompress(meta: u8, src: &[u8], dst: &mut [u8]) -> Result<usize> {
    let c: usize = match meta {
        4 => 4,
        8 => 8,
        _ => {
            crate::trace_error!("NDLZ is not available for this cellsize: {}", meta);
            return Err(Error::Failure);
        }
    };
    if src.len() < 8 {
        return Ok(0);
    }
    if src[0] != 2 {
        crate::trace_error!("This codec only works for ndim = 2");
        return Err(Error::Failure);
    }
    let inp = Input { buf: src };
    let rd = |p: i64| -> Result<i32> {
        let b = inp.get(p, 4)?;
        Ok(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let (b0, b1) = (rd(1)?, rd(5)?);
    if b0 < 0 || b1 < 0 {
        crate::trace_error!("Output length or blockshape is negative");
        return Err(Error::Failure);
    }
    let (b0, b1) = (b0 as usize, b1 as usize);
    if (dst.len() as u64) < b0 as u64 * b1 as u64 {
        crate::trace_error!("The blockshape is bigger than the output buffer");
        return Ok(0);
    }
    dst[..b0 * b1].fill(0);
    let cell_size = c * c;
    let stop = [b0.div_ceil(c), b1.div_ceil(c)];
    let mut ip: i64 = 9;
    let mut ind = 0usize;
    let mut pad = [0usize; 2];
    let mut local = [0u8; 64];
    for i0 in 0..stop[0] {
        for i1 in 0..stop[1] {
            if ip > src.len() as i64 {
                crate::trace_error!("Exceeding input length");
                return Err(Error::Failure);
            }
            pad[0] = if i0 == stop[0] - 1 && b0 % c != 0 {
                b0 % c
            } else {
                c
            };
            pad[1] = if i1 == stop[1] - 1 && b1 % c != 0 {
                b1 % c
            } else {
                c
            };
            let cur = ip;
            let token = inp.get(cur, 1)?[0];
            ip += 1;
            // the cell's bytes, rows of `pad[1]` bytes
            let cellbuf: &[u8] = if token == TOKEN_LITERAL {
                let n = pad[0] * pad[1];
                let b = inp.get(cur + 1, n)?;
                ip += n as i64;
                b
            } else if token == TOKEN_CELL {
                let offset = inp.u16_at(cur + 1)?;
                ip += 2;
                inp.get(cur - offset, pad[0] * pad[1])?
            } else if token == TOKEN_SAME {
                let v = inp.get(cur + 1, 1)?[0];
                ip += 1;
                local[..cell_size].fill(v);
                &local[..cell_size]
            } else if c == 4 {
                ip = decode_match4(&inp, token, cur, &mut local)?;
                &local[..16]
            } else {
                ip = decode_match8(&inp, token, cur, &mut local)?;
                &local[..64]
            };
            let orig = i0 * c * b1 + i1 * c;
            for i in 0..pad[0] {
                ind = orig + i * b1;
                let from = cellbuf.get(i * pad[1]..(i + 1) * pad[1]).ok_or_else(|| {
                    crate::trace_error!("ndlz: cell shorter than its rows");
                    Error::Failure
                })?;
                dst[ind..ind + pad[1]].copy_from_slice(from);
            }
        }
    }
    ind += pad[1];
    if ind != b0 * b1 {
        crate::trace_error!("Output size is not compatible with embedded blockshape");
        return Err(Error::Failure);
    }
    Ok(ind)
}

/// The two rows of 1..=3 other than `j` (2-pair matches of 4×4 cells), ascending.
fn other_rows(j: usize) -> (usize, usize) {
    match j {
        1 => (2, 3),
        2 => (1, 3),
        _ => (1, 2),
    }
}

fn wrap16(v: i64) -> i64 {
    v & 0xFFFF
}

/// Decode the row-match tokens of a 4×4 cell at `cur` into `out`; returns the next position.
fn decode_match4(inp: &Input<'_>, token: u8, cur: i64, out: &mut [u8; 64]) -> Result<i64> {
    let mut ip = cur + 1;
    if token >= 224 {
        // three rows match
        let offset = inp.u16_at(ip)?;
        ip += 2;
        let (i, j, k) = match token >> 3 {
            28 => (1, 2, 3),
            29 => (0, 1, 2),
            30 => (0, 1, 3),
            _ => (0, 2, 3),
        };
        // C-Blosc2 adds the token and offset lengths in 16 bits (wrapping) before going back
        let r = inp.get(cur + 3 - wrap16(offset + 3), 12)?;
        out[i * 4..i * 4 + 4].copy_from_slice(&r[..4]);
        out[j * 4..j * 4 + 4].copy_from_slice(&r[4..8]);
        out[k * 4..k * 4 + 4].copy_from_slice(&r[8..12]);
        let l = 6 - i - j - k;
        out[l * 4..l * 4 + 4].copy_from_slice(inp.get(ip, 4)?);
        ip += 4;
    } else if (128..=191).contains(&token) {
        // two rows match
        let offset = inp.u16_at(ip)?;
        ip += 2;
        let (i, j) = if token == 128 {
            (2usize, 3usize)
        } else {
            let i = ((token - 128) >> 5) as usize;
            (i, ((token - 128) >> 3) as usize - (i << 2))
        };
        let r = inp.get(cur + 3 - wrap16(offset + 3), 8)?;
        out[i * 4..i * 4 + 4].copy_from_slice(&r[..4]);
        out[j * 4..j * 4 + 4].copy_from_slice(&r[4..8]);
        for k in (0..4).filter(|&k| k != i && k != j) {
            out[k * 4..k * 4 + 4].copy_from_slice(inp.get(ip, 4)?);
            ip += 4;
        }
    } else if (40..=63).contains(&token) {
        // two row pairs match
        let offset_1 = inp.u16_at(ip)?;
        let offset_2 = inp.u16_at(ip + 2)?;
        ip += 4;
        let j = ((token - 32) >> 3) as usize;
        let (l, m) = other_rows(j);
        let r1 = inp.get(cur + 5 - wrap16(offset_1 + 5), 8)?;
        out[..4].copy_from_slice(&r1[..4]);
        out[j * 4..j * 4 + 4].copy_from_slice(&r1[4..8]);
        let r2 = inp.get(cur + 5 - wrap16(offset_2 + 5), 8)?;
        out[l * 4..l * 4 + 4].copy_from_slice(&r2[..4]);
        out[m * 4..m * 4 + 4].copy_from_slice(&r2[4..8]);
    } else {
        crate::trace_error!("Invalid token: {}", token);
        return Err(Error::Failure);
    }
    Ok(ip)
}

/// Decode the row-match tokens of an 8×8 cell at `cur` into `out`; returns the next position.
fn decode_match8(inp: &Input<'_>, token: u8, cur: i64, out: &mut [u8; 64]) -> Result<i64> {
    let nrows = match token >> 3 {
        21 => 3,
        17 => 2,
        _ => {
            crate::trace_error!("Invalid token: {}", token);
            return Err(Error::Failure);
        }
    };
    let row = (token & 7) as usize;
    if row + nrows > 8 {
        crate::trace_error!("Row match out of bounds");
        return Err(Error::Failure);
    }
    let offset = inp.u16_at(cur + 1)?;
    let mut ip = cur + 3;
    let r = inp.get(cur - offset, nrows * 8)?;
    out[row * 8..(row + nrows) * 8].copy_from_slice(r);
    for l in (0..8).filter(|&l| l < row || l >= row + nrows) {
        out[l * 8..l * 8 + 8].copy_from_slice(inp.get(ip, 8)?);
        ip += 8;
    }
    Ok(ip)
}

#[cfg(test)]
mod tests;
