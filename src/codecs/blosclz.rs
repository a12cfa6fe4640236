//! BloscLZ: the native Blosc codec (CODECS.md §5).
//!
//! A byte-oriented LZ77 derived from FastLZ level 1, with 16-bit "far"
//! distances.  The encoder reproduces C-Blosc2 3.3.5's `blosclz_compress`
//! byte for byte (entropy probe, hash sizes, give-up rules, literal
//! placeholder patching); the decoder accepts every stream of the format in
//! §5.1 and rejects malformed input without panicking.
//!
//! Everything here is safe Rust.  The hot loops are written against slices
//! whose bounds the optimiser can see (hash indices are masked to the table
//! size, reads go through fixed-size arrays), so most checks disappear.

/// Longest literal run of one instruction.
const MAX_COPY: u32 = 32;
/// Largest biased distance that fits a near match (13 bits, value 8191 is the
/// escape for far matches).
const MAX_DISTANCE: usize = 8191;
/// Candidates at this distance or more are not matched.
const MAX_FARDISTANCE: usize = 65535 + MAX_DISTANCE - 1;
/// Largest hash log used by any clevel.
const HASH_LOG_MAX: u32 = 14;
const HTAB_SIZE: usize = 1 << HASH_LOG_MAX;
/// Matches are shortened by this much so the next position re-hashes.
const IPSHIFT: usize = 4;
/// Shortest match (in encoder length units) worth encoding.
const MINLEN: usize = 4;

/// `hashlog` per clevel (index 0 unused).
const HASHLOG: [u32; 10] = [0, 12, 13, 14, 14, 14, 14, 14, 14, 14];
/// Entropy-probe give-up thresholds per clevel (index 0 unused).
const THRESHOLD: [f64; 10] = [0.0, 2.0, 1.5, 1.2, 1.2, 1.2, 1.2, 1.15, 1.1, 1.0];

#[cfg(test)]
type HashTable = [u32; HTAB_SIZE];

#[inline(always)]
fn read_u32(buf: &[u8], p: usize) -> u32 {
    let b: [u8; 4] = buf[p..p + 4].try_into().unwrap();
    u32::from_le_bytes(b)
}

#[inline(always)]
fn read_u64(buf: &[u8], p: usize) -> u64 {
    let b: [u8; 8] = buf[p..p + 8].try_into().unwrap();
    u64::from_le_bytes(b)
}

/// `H(x)`; `shift = 32 - hashlog`.  The mask never changes the value (the
/// shifted product is already `< 2^hashlog <= HTAB_SIZE`); it only lets the
/// optimiser drop the table bounds check.
#[cfg(test)]
#[inline(always)]
fn hash(x: u32, shift: u32) -> usize {
    hash_in::<HTAB_SIZE>(x, shift)
}

/// `H(x)` for a table of `N` slots (`N` a power of two, `N >= 2^(32 - shift)`): the mask keeps
/// the index in the table for the optimiser without changing it.
#[inline(always)]
fn hash_in<const N: usize>(x: u32, shift: u32) -> usize {
    (x.wrapping_mul(2_654_435_761) >> shift) as usize & (N - 1)
}

/// The match length rule of §5.2: the smallest `q >= start` with `q < bound`
/// and `buf[q] != buf[q - dist]` gives `q + 1`; if there is none, `bound`.
/// Requires `1 <= dist <= start` and `bound <= buf.len()`.  (The encoder compares the first 8
/// bytes of a candidate itself and calls this only past them.)
#[inline(always)]
fn match_end(buf: &[u8], start: usize, dist: usize, bound: usize) -> usize {
    let buf = &buf[..bound];
    let mut i = start;
    // 64 bytes per step while they compare equal (four SIMD compares, one branch): long
    // matches and runs are where the encoder spends its time on very compressible data.
    while i + 64 <= bound {
        let x: &[u8; 64] = buf[i..i + 64].try_into().unwrap();
        let y: &[u8; 64] = buf[i - dist..i - dist + 64].try_into().unwrap();
        let mut diff = 0u128;
        for k in 0..4 {
            let a = u128::from_le_bytes(x[16 * k..16 * k + 16].try_into().unwrap());
            let b = u128::from_le_bytes(y[16 * k..16 * k + 16].try_into().unwrap());
            diff |= a ^ b;
        }
        if diff != 0 {
            break;
        }
        i += 64;
    }
    // 16 bytes per step while they compare equal (one SIMD compare).
    {
        let x = &buf[i..];
        let y = &buf[i - dist..bound - dist];
        for (a, b) in x.chunks_exact(16).zip(y.chunks_exact(16)) {
            let a: &[u8; 16] = a.try_into().unwrap();
            let b: &[u8; 16] = b.try_into().unwrap();
            if a != b {
                break;
            }
            i += 16;
        }
    }
    while i + 8 <= bound {
        let x = read_u64(buf, i) ^ read_u64(buf, i - dist);
        if x != 0 {
            return i + (x.trailing_zeros() / 8) as usize + 1;
        }
        i += 8;
    }
    while i < bound {
        if buf[i] != buf[i - dist] {
            return i + 1;
        }
        i += 1;
    }
    bound
}

/// Step 1 of §5.2: estimate the compression ratio on the window `w`
/// (already cut to `min(maxlen, 2^hashlog)` bytes).  `htab` must be zero in
/// every slot reachable with this `shift`.
///
/// Without `EARLY`, returns the ratio C-Blosc2 computes. With `EARLY`, the probe stops as
/// soon as the ratio is certain to end on one side of `threshold` and returns 0.0 (below) or
/// a lower bound of the ratio (at or above): the caller's decision (`ratio < threshold`,
/// store the block raw) is the same as C's, and the window is scanned only until that
/// decision is known (about half of it at clevel 1 on incompressible data) instead of to its
/// end.
fn probe_ratio<const SHIFT: u32, const N: usize, const EARLY: bool>(
    w: &[u8],
    htab: &mut [u32; N],
    threshold: f64,
) -> f64 {
    let limit = w.len();
    if limit <= 12 {
        // The loop would not run: ratio 0 / 5.
        return 0.0;
    }
    let ip_limit = limit - 12;
    let bound = limit - 1;
    let mut copy: u64 = 4;
    let mut oc: u64 = 5;
    let mut p = 0usize;
    // Start of the current run of literals. Inside a run only the hash table changes; the
    // output count is settled when the run ends (one byte per literal, plus one per
    // `MAX_COPY` of them), which keeps the scanning loop short.
    let mut run = 0usize;
    // The early decisions. The ratio is `p / oc` at the end, where `ip_limit <= p <= last`
    // (a match ends at most at `bound - IPSHIFT`, then `p` skips 2) and `oc` never decreases
    // (a literal adds at least 1, a match at least 2 net of the run it closes).
    // - Give up: at any point `oc + (p - run)` is a lower bound of the final `oc` (the
    //   pending run's literals are counted when it closes). Once it reaches `stop_oc`, more
    //   than `last / threshold + 1`, the final ratio is below `threshold` with a margin of one
    //   output byte, far more than the rounding of the division.
    // - Accept: right after a match (no pending run), each of the `last - p` positions left
    //   adds at most 33/32 to `oc` (a literal 1, plus 1 per `MAX_COPY` of them; a match of
    //   `l >= 4` covers `l + 2` positions for at most `6 + (l - 7) / 255` bytes). So once
    //   `ip_limit >= threshold * (oc + (last - p) * 33 / 32 + 2)`, the final ratio is at
    //   least `threshold` (again with a margin). In integers: `32 oc - 33 p <= accept_k`.
    let last = limit - 3;
    let (stop_oc, accept_k) = if EARLY {
        let stop_oc = ((last as f64 / threshold) as u64).saturating_add(2);
        let k = 32.0 * (ip_limit as f64 / threshold - 2.0) - 33.0 * last as f64;
        (stop_oc, k.floor() as i64)
    } else {
        (u64::MAX, i64::MIN)
    };
    while p < ip_limit {
        // Scan no further than the position where the bound reaches `stop_oc`.
        let budget = stop_oc.saturating_sub(oc).min(ip_limit as u64) as usize;
        let stop = ip_limit.min(run + budget);
        let Some(d) = scan_literals::<SHIFT, N>(w, &mut p, stop, htab) else {
            if p < ip_limit {
                return 0.0;
            }
            break;
        };
        let l = match_end(w, p + 4, d, bound) - IPSHIFT - p;
        if l < MINLEN {
            p += 1;
            continue;
        }
        let lits = (p - run) as u64;
        oc += lits + (copy + lits) / MAX_COPY as u64;
        copy = (copy + lits) % MAX_COPY as u64;
        if copy == 0 {
            oc -= 1;
        }
        copy = 0;
        if l >= 7 {
            oc += ((l - 7) / 255) as u64 + 1;
        }
        oc += if d - 1 < MAX_DISTANCE { 2 } else { 4 };
        let q = p + l;
        htab[hash_in::<N>(read_u32(w, q), SHIFT)] = q as u32;
        p = q + 2;
        run = p;
        oc += 1;
        if 32 * oc as i64 - 33 * p as i64 <= accept_k {
            // At least `threshold`, and a lower bound of the ratio C would find.
            let left = last.saturating_sub(p) as u64;
            return ip_limit as f64 / (oc + left + left / 32 + 2) as f64;
        }
    }
    if run < p {
        let lits = (p - run) as u64;
        oc += lits + (copy + lits) / MAX_COPY as u64;
    }
    p as f64 / oc as f64
}

/// The probe's literal scan: from `*p` on, hash each position into `htab` until one has a
/// match candidate (a previous position with the same 4 bytes, at a distance
/// `1..MAX_FARDISTANCE`), and return that distance with `*p` left on it; `None` (and `*p`
/// moved up to `ip_limit`, or left where it is if already there or past it) if no position
/// before `ip_limit` has one.
#[inline(always)]
fn scan_literals<const SHIFT: u32, const N: usize>(
    buf: &[u8],
    p: &mut usize,
    ip_limit: usize,
    htab: &mut [u32; N],
) -> Option<usize> {
    let mut q = *p;
    while q < ip_limit {
        let seq = read_u32(buf, q);
        let h = hash_in::<N>(seq, SHIFT);
        let r = htab[h] as usize;
        htab[h] = q as u32;
        let d = q.wrapping_sub(r);
        if d != 0 && d < MAX_FARDISTANCE && read_u32(buf, r) == seq {
            *p = q;
            return Some(d);
        }
        q += 1;
    }
    *p = q;
    None
}

/// Compress `input` into `output` at `clevel` (1..=9). Returns the number of bytes written,
/// or 0 when the stream should be stored raw (probe gave up, input too small, output limit hit).
/// Never writes past output.len(); output.len() is the output limit ("maxout").
///
/// # Examples
///
/// ```
/// use b2rs::codecs::blosclz;
///
/// let data = b"abcdefgh".repeat(500);
/// let mut out = vec![0u8; data.len()];
/// let n = blosclz::compress(5, &data, &mut out);
/// assert!(n > 0 && n < data.len());
/// // clevel 0 means: store raw
/// assert_eq!(blosclz::compress(0, &data, &mut out), 0);
/// ```
pub fn compress(clevel: u8, input: &[u8], output: &mut [u8]) -> usize {
    if clevel == 0 {
        return 0;
    }
    // C-Blosc2 uses `int` lengths; positions must fit the u32 hash table.
    if input.len() > i32::MAX as usize {
        return 0;
    }
    let clevel = clevel.min(9) as usize;
    // A table of 2^hashlog slots, zeroed as C-Blosc2 zeroes its table (a 64 KiB table for
    // every clevel cost ~10% of the give-up path of 32 KiB blocks at clevel 1).
    match HASHLOG[clevel] {
        12 => compress_with::<{ 32 - 12 }, { 1 << 12 }>(clevel, input, output),
        13 => compress_with::<{ 32 - 13 }, { 1 << 13 }>(clevel, input, output),
        _ => compress_with::<{ 32 - HASH_LOG_MAX }, HTAB_SIZE>(clevel, input, output),
    }
}

/// [`compress`] with a hash table of `N = 2^(32 - SHIFT)` slots.
fn compress_with<const SHIFT: u32, const N: usize>(
    clevel: usize,
    input: &[u8],
    output: &mut [u8],
) -> usize {
    let len_in = input.len();
    let mut htab = [0u32; N];

    // Step 1: entropy probe on the tail of the buffer.
    let maxlen = match clevel {
        1 => len_in / 8,
        2 | 3 => len_in / 4,
        4..=6 => len_in / 2,
        _ => len_in,
    };
    let base = len_in - maxlen;
    let limit = maxlen.min(N);
    let w = &input[base..base + limit];
    if probe_ratio::<SHIFT, N, true>(w, &mut htab, THRESHOLD[clevel]) < THRESHOLD[clevel] {
        return 0;
    }

    // Step 2: size checks.
    if len_in < 16 || output.len() < 66 {
        return 0;
    }

    // Step 3: encode.
    htab.fill(0);
    encode::<SHIFT, N>(clevel == 9, input, output, &mut htab)
}

/// Step 3 of §5.2.  Requires `input.len() >= 16` and `output.len() >= 66`.
fn encode<const SHIFT: u32, const N: usize>(
    level9: bool,
    input: &[u8],
    out: &mut [u8],
    htab: &mut [u32; N],
) -> usize {
    let len_in = input.len();
    let maxout = out.len();
    let ip_bound = len_in - 1;
    let ip_limit = len_in - 12;

    out[0] = (MAX_COPY - 1) as u8;
    out[1..5].copy_from_slice(&input[..4]);
    let mut op = 5usize;
    let mut copy: u32 = 4;
    let mut p = 4usize;

    while p < ip_limit {
        let anchor = p;
        // The 8 bytes at `p`: the low 4 are hashed, all 8 are compared with a candidate.
        let here = read_u64(input, p);
        let h = hash_in::<N>(here as u32, SHIFT);
        let r = htab[h] as usize;
        htab[h] = p as u32;
        let dist = anchor.wrapping_sub(r);

        let mut l = 0;
        let mut is_match = false;
        if dist.wrapping_sub(1) < MAX_FARDISTANCE - 1 {
            // The 4 bytes of the candidate and the 4 after them in one compare: most
            // candidates fail on the first 4 or end within the next 4 (too short to encode
            // unless all 8 are equal), which then needs no call to `match_end`.
            let x = here ^ read_u64(input, r);
            if x as u32 == 0 {
                // `anchor + 8 < ip_bound`: the first mismatch, if any, is in `..ip_bound`.
                let end = if x != 0 {
                    anchor + (x.trailing_zeros() / 8) as usize + 1
                } else {
                    match_end(input, anchor + 8, dist, ip_bound)
                };
                l = end - IPSHIFT - anchor;
                is_match = l >= MINLEN && (l > 5 || dist - 1 < MAX_DISTANCE);
            }
        }
        if !is_match {
            // LIT
            if op + 2 > maxout {
                return 0;
            }
            out[op] = input[anchor];
            op += 1;
            p = anchor + 1;
            copy += 1;
            if copy == MAX_COPY {
                copy = 0;
                out[op] = (MAX_COPY - 1) as u8;
                op += 1;
            }
            continue;
        }

        // Close the pending literal run (or drop its unused placeholder).
        if copy > 0 {
            out[op - copy as usize - 1] = (copy - 1) as u8;
        } else {
            op -= 1;
        }
        copy = 0;

        let d = dist - 1;
        if d < MAX_DISTANCE {
            let dhi = (d >> 8) as u8;
            let dlo = d as u8;
            if l < 7 {
                if op + 2 > maxout {
                    return 0;
                }
                out[op] = ((l as u8) << 5) + dhi;
                out[op + 1] = dlo;
                op += 2;
            } else {
                if op + 1 > maxout {
                    return 0;
                }
                out[op] = (7 << 5) + dhi;
                op += 1;
                match put_length(out, op, l - 7) {
                    Some(o) => op = o,
                    None => return 0,
                }
                if op + 1 > maxout {
                    return 0;
                }
                out[op] = dlo;
                op += 1;
            }
        } else {
            let e = d - MAX_DISTANCE;
            let far = [255u8, (e >> 8) as u8, e as u8];
            if l < 7 {
                if op + 4 > maxout {
                    return 0;
                }
                out[op] = ((l as u8) << 5) + 31;
                out[op + 1..op + 4].copy_from_slice(&far);
                op += 4;
            } else {
                if op + 1 > maxout {
                    return 0;
                }
                out[op] = 0xFF;
                op += 1;
                match put_length(out, op, l - 7) {
                    Some(o) => op = o,
                    None => return 0,
                }
                if op + 3 > maxout {
                    return 0;
                }
                out[op..op + 3].copy_from_slice(&far);
                op += 3;
            }
        }

        // Update the hash at the match boundary.
        let q = anchor + l;
        let seq = read_u32(input, q);
        htab[hash_in::<N>(seq, SHIFT)] = q as u32;
        if level9 {
            // The hash of the shifted value, not of U32(q + 1) (as C does).
            htab[hash_in::<N>(seq >> 8, SHIFT)] = (q + 1) as u32;
        }
        p = q + 2;

        if op + 1 > maxout {
            return 0;
        }
        out[op] = (MAX_COPY - 1) as u8;
        op += 1;
    }

    // Left-over bytes as literals.
    while p <= ip_bound {
        if op + 2 > maxout {
            return 0;
        }
        out[op] = input[p];
        op += 1;
        p += 1;
        copy += 1;
        if copy == MAX_COPY {
            copy = 0;
            out[op] = (MAX_COPY - 1) as u8;
            op += 1;
        }
    }
    if copy > 0 {
        out[op - copy as usize - 1] = (copy - 1) as u8;
    } else {
        op -= 1;
    }
    // Marker for BloscLZ.
    out[0] |= 1 << 5;
    op
}

/// Write the length extension of a long match: one 255 byte per full 255 of
/// `r`, then the remainder byte.  `None` if it does not fit.  (C checks the
/// remainder byte together with the distance bytes that follow it; since any
/// failed check aborts the whole call, checking them one after the other
/// gives the same result.)
#[inline(always)]
fn put_length(out: &mut [u8], mut op: usize, mut r: usize) -> Option<usize> {
    while r >= 255 {
        *out.get_mut(op)? = 255;
        op += 1;
        r -= 255;
    }
    *out.get_mut(op)? = r as u8;
    Some(op + 1)
}

/// Decompress a whole BloscLZ stream into `output`. Returns Some(n) with n bytes written on
/// success, None on any malformed input (reading past input, distance before output start,
/// output overflow, truncated match). The caller checks n == expected length.
///
/// Never writes past `output.len()`, but bytes of `output` beyond the returned
/// length may be used as scratch (fixed-size copies), so pass a slice of exactly
/// the expected length.
///
/// # Examples
///
/// ```
/// use b2rs::codecs::blosclz;
///
/// let data = b"abcdefgh".repeat(500);
/// let mut out = vec![0u8; data.len()];
/// let n = blosclz::compress(9, &data, &mut out);
/// let mut back = vec![0u8; data.len()];
/// assert_eq!(blosclz::decompress(&out[..n], &mut back), Some(data.len()));
/// assert_eq!(back, data);
/// ```
pub fn decompress(input: &[u8], output: &mut [u8]) -> Option<usize> {
    let ilen = input.len();
    let olen = output.len();
    let first = *input.first()?;
    let mut ctrl = (first & 31) as usize;
    let mut ip = 1usize;
    let mut op = 0usize;
    loop {
        if ctrl < 32 {
            // Literal run of ctrl + 1 bytes.
            let n = ctrl + 1;
            if ip + 32 <= ilen && op + 32 <= olen {
                // Fast path: a fixed-size copy (n <= 32); bytes past `n` are
                // scratch and get overwritten by later instructions.
                let chunk: &[u8; 32] = input[ip..ip + 32].try_into().unwrap();
                output[op..op + 32].copy_from_slice(chunk);
            } else {
                if ip + n > ilen || op + n > olen {
                    return None;
                }
                output[op..op + n].copy_from_slice(&input[ip..ip + n]);
            }
            ip += n;
            op += n;
            if ip >= ilen {
                return Some(op);
            }
        } else {
            let mut len = (ctrl >> 5) + 2;
            let hi = ctrl & 31;
            if len == 9 {
                loop {
                    let code = *input.get(ip)?;
                    ip += 1;
                    len += code as usize;
                    if code != 255 {
                        break;
                    }
                }
            }
            let lo = *input.get(ip)? as usize;
            ip += 1;
            let dist = if hi == 31 && lo == 255 {
                let b = input.get(ip..ip + 2)?;
                ip += 2;
                ((b[0] as usize) << 8 | b[1] as usize) + MAX_DISTANCE + 1
            } else {
                (hi << 8) + lo + 1
            };
            // A valid stream never ends with a match (C-Blosc2 would skip
            // the copy and come out short).
            if ip >= ilen || dist > op || len > olen - op {
                return None;
            }
            copy_match(output, op, dist, len);
            op += len;
        }
        ctrl = input[ip] as usize;
        ip += 1;
    }
}

/// Copy `len` bytes from `src` to `op` in fixed `W`-byte steps (the last step may write up to
/// `W - 1` bytes past `op + len`). Requires `op - src >= W` and room in `out` for the last step.
#[inline(always)]
fn copy_in_steps<const W: usize>(out: &mut [u8], mut src: usize, op: usize, len: usize) {
    let mut d = op;
    while d < op + len {
        let t: [u8; W] = out[src..src + W].try_into().unwrap();
        out[d..d + W].copy_from_slice(&t);
        src += W;
        d += W;
    }
}

/// Copy `len` bytes from `dist` back, LZ77 style (overlap allowed).
/// Requires `1 <= dist <= op` and `op + len <= out.len()`.
#[inline(always)]
fn copy_match(out: &mut [u8], op: usize, dist: usize, len: usize) {
    let src = op - dist;
    if dist >= 8 && len <= 32 && op + 40 <= out.len() {
        // Short match: 8-byte steps, each reading only bytes already in place (dist >= 8);
        // bytes past `len` are scratch, overwritten by later instructions.
        copy_in_steps::<8>(out, src, op, len);
    } else if dist >= 16 && len <= 48 && op + 48 <= out.len() {
        // Longer match, no overlap within a 16-byte step: fixed-size copies, scratch as above.
        copy_in_steps::<16>(out, src, op, len);
    } else if dist < 8 && len <= 32 {
        // Short match at a small distance (typical of 2/4/8-byte items): a byte loop is
        // cheaper than the memmove calls of the general path.
        let w = &mut out[src..op + len];
        for i in 0..len {
            w[dist + i] = w[i];
        }
    } else if dist >= len {
        out.copy_within(src..src + len, op);
    } else if dist == 1 {
        let b = out[src];
        out[op..op + len].fill(b);
    } else {
        // Overlapping: the region [src, op + done) has period `dist`, so it can
        // be copied in doubling non-overlapping chunks.
        let mut done = 0;
        let mut chunk = dist;
        while done < len {
            let n = chunk.min(len - done);
            out.copy_within(src..src + n, op + done);
            done += n;
            chunk += n;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // --- deterministic inputs (also used to produce the C reference vectors) ---
    // GEN-BEGIN
    struct XorShift(u64);
    impl XorShift {
        fn next(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x
        }
        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    const WORDS: [&str; 16] = [
        "the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "blosc", "chunk", "frame",
        "codec", "of", "and", "a", "\n",
    ];

    /// Kinds: 0 text, 1 four-letter alphabet, 2 random with near/far copies,
    /// 3 shuffled i32 ramp, 4 random block repeated with a far period,
    /// 5 random bytes, 6 runs of random lengths.
    fn gen(kind: u32, seed: u64, n: usize) -> Vec<u8> {
        let mut r = XorShift(seed | 1);
        let mut v: Vec<u8> = Vec::with_capacity(n + 16);
        match kind {
            0 => {
                while v.len() < n {
                    v.extend_from_slice(WORDS[r.below(16) as usize].as_bytes());
                    v.push(b' ');
                }
            }
            1 => v.extend((0..n).map(|_| b'a' + r.below(4) as u8)),
            2 => {
                while v.len() < n {
                    if v.len() > 16 && r.below(3) > 0 {
                        let d = 1 + r.below(v.len().min(80_000) as u64) as usize;
                        let m = if r.below(4) == 0 { 600 } else { 12 };
                        let l = 3 + r.below(m) as usize;
                        for _ in 0..l {
                            let b = v[v.len() - d];
                            v.push(b);
                        }
                    } else {
                        let l = 1 + r.below(40);
                        v.extend((0..l).map(|_| r.next() as u8));
                    }
                }
            }
            3 => {
                let ne = n / 4;
                v.resize(n, 0);
                let start = r.next() as u32;
                for i in 0..ne {
                    let x = start.wrapping_add(i as u32).to_le_bytes();
                    for (b, &xb) in x.iter().enumerate() {
                        v[b * ne + i] = xb;
                    }
                }
            }
            4 => {
                let p = 8192 + r.below(20_000) as usize;
                let pat: Vec<u8> = (0..p).map(|_| r.next() as u8).collect();
                v.extend((0..n).map(|i| pat[i % p]));
            }
            5 => v.extend((0..n).map(|_| r.next() as u8)),
            _ => {
                while v.len() < n {
                    let b = r.next() as u8;
                    let m = if r.below(2) == 0 { 6 } else { 700 };
                    let l = 1 + r.below(m) as usize;
                    v.resize(v.len() + l, b);
                }
            }
        }
        v.truncate(n);
        v
    }

    fn fnv1a(data: &[u8]) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for &b in data {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h
    }
    // GEN-END

    /// Compress as C-Blosc2 does for a single-block chunk written into
    /// `nbytes + 32` bytes: output limit `nbytes - 8` (CHUNK.md §3.5).
    fn blosc_like(clevel: u8, input: &[u8]) -> Vec<u8> {
        let mut out = vec![0u8; input.len().saturating_sub(8)];
        let n = compress(clevel, input, &mut out);
        out.truncate(n);
        out
    }

    fn roundtrip(clevel: u8, input: &[u8]) {
        let mut out = vec![0u8; input.len() + input.len() / 16 + 100];
        let n = compress(clevel, input, &mut out);
        assert!(n <= out.len());
        if n == 0 {
            return;
        }
        let mut dec = vec![0u8; input.len()];
        assert_eq!(
            decompress(&out[..n], &mut dec),
            Some(input.len()),
            "clevel {clevel} len {}",
            input.len()
        );
        assert!(dec == input, "clevel {clevel} len {}", input.len());
        // Same stream when limited to exactly its size plus the literal slack,
        // and 0 (never a partial stream) when limited below it.
        let mut exact = vec![0u8; n + 1];
        let m = compress(clevel, input, &mut exact);
        assert!(m == 0 || (m == n && exact[..n] == out[..n]));
        let mut short = vec![0u8; n - 1];
        assert_eq!(compress(clevel, input, &mut short), 0);
    }

    /// Streams produced by C-Blosc2 3.3.5 (single-block chunk, no filters,
    /// typesize 1, destsize nbytes + 32, so the codec limit is nbytes - 8):
    /// (kind, seed, len, clevel, exact stream; empty = stored raw).
    #[rustfmt::skip]
    const C_SMALL: &[(u32, u64, usize, u8, &[u8])] = &[
        (0, 1, 120, 9,
            &[
                58, 113, 117, 105, 99, 107, 32, 113, 117, 105, 99, 107, 32, 99, 104, 117,
                110, 107, 32, 111, 118, 101, 114, 32, 111, 118, 101, 114, 128, 21, 128, 5,
                13, 32, 97, 110, 100, 32, 10, 32, 97, 32, 106, 117, 109, 112, 115, 128,
                41, 8, 32, 108, 97, 122, 121, 32, 102, 111, 120, 160, 20, 4, 99, 111,
                100, 101, 99, 224, 2, 57, 8, 32, 10, 32, 111, 102, 32, 116, 104, 101,
                128, 46, 13, 32, 98, 114, 111, 119, 110, 32, 99, 104, 117, 110, 107, 32,
                102,
            ],
        ),
        (0, 2, 200, 5,
            &[],
        ),
        (1, 3, 150, 9,
            &[],
        ),
        (2, 4, 180, 1,
            &[],
        ),
        (2, 5, 300, 9,
            &[
                63, 71, 13, 161, 32, 70, 118, 135, 64, 56, 110, 80, 0, 206, 249, 170,
                33, 39, 25, 29, 249, 34, 208, 139, 58, 238, 67, 155, 170, 125, 187, 160,
                155, 10, 16, 12, 226, 185, 42, 134, 7, 87, 127, 63, 67, 224, 245, 31,
                2, 63, 67, 0,
            ],
        ),
        (6, 6, 200, 3,
            &[
                42, 199, 199, 199, 199, 227, 227, 209, 209, 209, 209, 69, 224, 177, 0, 2,
                69, 69, 69,
            ],
        ),
        (3, 7, 256, 7,
            &[
                63, 199, 200, 201, 202, 203, 204, 205, 206, 207, 208, 209, 210, 211, 212, 213,
                214, 215, 216, 217, 218, 219, 220, 221, 222, 223, 224, 225, 226, 227, 228, 229,
                230, 31, 231, 232, 233, 234, 235, 236, 237, 238, 239, 240, 241, 242, 243, 244,
                245, 246, 247, 248, 249, 250, 251, 252, 253, 254, 255, 0, 1, 2, 3, 4,
                5, 6, 0, 225, 224, 46, 0, 8, 225, 226, 226, 226, 226, 226, 226, 226,
                142, 224, 53, 0, 1, 142, 195, 224, 51, 0, 2, 195, 195, 195,
            ],
        ),
        (5, 8, 200, 9,
            &[],
        ),
    ];

    /// Same, for larger inputs: per clevel 1..=9 the C stream's length and
    /// FNV-1a 64 (length 0 = stored raw).
    type HashedCase = (u32, u64, usize, [(usize, u64); 9]);
    const C_HASHED: &[HashedCase] = &[
        (
            0,
            1005,
            5000,
            [
                (0, 0xcbf29ce484222325),
                (2627, 0xc9c71e1cf43bf360),
                (2607, 0x17220d1eb1295350),
                (2607, 0x17220d1eb1295350),
                (2607, 0x17220d1eb1295350),
                (2607, 0x17220d1eb1295350),
                (2607, 0x17220d1eb1295350),
                (2607, 0x17220d1eb1295350),
                (2607, 0x17220d1eb1295350),
            ],
        ),
        (
            0,
            1070,
            70000,
            [
                (0, 0xcbf29ce484222325),
                (34063, 0x6c7c5324978563eb),
                (33792, 0x9df0b4f5a388ec22),
                (33792, 0x9df0b4f5a388ec22),
                (33792, 0x9df0b4f5a388ec22),
                (33792, 0x9df0b4f5a388ec22),
                (33792, 0x9df0b4f5a388ec22),
                (33792, 0x9df0b4f5a388ec22),
                (33792, 0x9df0b4f5a388ec22),
            ],
        ),
        (
            1,
            1015,
            5000,
            [
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (4926, 0x346a72aac372d493),
            ],
        ),
        (
            1,
            1080,
            70000,
            [
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (68627, 0x8943047958c48b11),
            ],
        ),
        (
            2,
            1025,
            5000,
            [
                (0, 0xcbf29ce484222325),
                (1098, 0xcd4fc1b4b5dca2ed),
                (1097, 0x0b7a7b5e83ebdfe0),
                (1097, 0x0b7a7b5e83ebdfe0),
                (1097, 0x0b7a7b5e83ebdfe0),
                (1097, 0x0b7a7b5e83ebdfe0),
                (1097, 0x0b7a7b5e83ebdfe0),
                (1097, 0x0b7a7b5e83ebdfe0),
                (1097, 0x0b7a7b5e83ebdfe0),
            ],
        ),
        (
            2,
            1090,
            70000,
            [
                (0, 0xcbf29ce484222325),
                (15354, 0xeeac7c12b8acb3ec),
                (15039, 0xd2cc78dedafb388a),
                (15039, 0xd2cc78dedafb388a),
                (15039, 0xd2cc78dedafb388a),
                (15039, 0xd2cc78dedafb388a),
                (15039, 0xd2cc78dedafb388a),
                (15039, 0xd2cc78dedafb388a),
                (15049, 0x6ab5814d52329980),
            ],
        ),
        (
            3,
            1035,
            5000,
            [
                (330, 0x4a96baecd91a776a),
                (330, 0x4a96baecd91a776a),
                (330, 0x4a96baecd91a776a),
                (330, 0x4a96baecd91a776a),
                (330, 0x4a96baecd91a776a),
                (330, 0x4a96baecd91a776a),
                (330, 0x4a96baecd91a776a),
                (330, 0x4a96baecd91a776a),
                (330, 0x4a96baecd91a776a),
            ],
        ),
        (
            3,
            1100,
            70000,
            [
                (900, 0xc23fe60d0388c20a),
                (900, 0xc23fe60d0388c20a),
                (900, 0xc23fe60d0388c20a),
                (900, 0xc23fe60d0388c20a),
                (900, 0xc23fe60d0388c20a),
                (900, 0xc23fe60d0388c20a),
                (900, 0xc23fe60d0388c20a),
                (900, 0xc23fe60d0388c20a),
                (900, 0xc23fe60d0388c20a),
            ],
        ),
        (
            4,
            1045,
            5000,
            [
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
            ],
        ),
        (
            4,
            1110,
            70000,
            [
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (16397, 0x25a4fac770809348),
            ],
        ),
        (
            5,
            1055,
            5000,
            [
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
            ],
        ),
        (
            5,
            1120,
            70000,
            [
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
            ],
        ),
        (
            6,
            1065,
            5000,
            [
                (170, 0x01376ddd21f9a150),
                (170, 0x01376ddd21f9a150),
                (170, 0x01376ddd21f9a150),
                (170, 0x01376ddd21f9a150),
                (170, 0x01376ddd21f9a150),
                (170, 0x01376ddd21f9a150),
                (170, 0x01376ddd21f9a150),
                (170, 0x01376ddd21f9a150),
                (170, 0x01376ddd21f9a150),
            ],
        ),
        (
            6,
            1130,
            70000,
            [
                (2247, 0x7b5488954e653bd9),
                (2252, 0x1cfde139a859712a),
                (2252, 0x1cfde139a859712a),
                (2252, 0x1cfde139a859712a),
                (2252, 0x1cfde139a859712a),
                (2252, 0x1cfde139a859712a),
                (2252, 0x1cfde139a859712a),
                (2252, 0x1cfde139a859712a),
                (2251, 0x24476d5a3b4a838c),
            ],
        ),
        (
            4,
            2000,
            60000,
            [
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (9484, 0x5379df92326e19a8),
                (9484, 0x5379df92326e19a8),
                (9484, 0x5379df92326e19a8),
                (9484, 0x5379df92326e19a8),
                (9484, 0x5379df92326e19a8),
                (9484, 0x5379df92326e19a8),
                (9484, 0x5379df92326e19a8),
            ],
        ),
        (
            2,
            3000,
            300000,
            [
                (0, 0xcbf29ce484222325),
                (0, 0xcbf29ce484222325),
                (73970, 0xe601d74d3051d041),
                (73970, 0xe601d74d3051d041),
                (73970, 0xe601d74d3051d041),
                (73970, 0xe601d74d3051d041),
                (73970, 0xe601d74d3051d041),
                (73970, 0xe601d74d3051d041),
                (74021, 0xcc57f52149f65a8e),
            ],
        ),
        (
            0,
            3001,
            300000,
            [
                (0, 0xcbf29ce484222325),
                (144556, 0x11fdb5b013b3eee1),
                (143675, 0x141b6652d6168204),
                (143675, 0x141b6652d6168204),
                (143675, 0x141b6652d6168204),
                (143675, 0x141b6652d6168204),
                (143675, 0x141b6652d6168204),
                (143675, 0x141b6652d6168204),
                (143681, 0xb30aba87b52f8c64),
            ],
        ),
    ];

    /// The probe as first written (one literal at a time), the oracle for [`probe_ratio`].
    #[allow(clippy::all)]
    fn probe_ratio_simple(w: &[u8], htab: &mut HashTable, shift: u32) -> f64 {
        let limit = w.len();
        if limit <= 12 {
            // The loop would not run: ratio 0 / 5.
            return 0.0;
        }
        let ip_limit = limit - 12;
        let bound = limit - 1;
        let mut copy: u32 = 4;
        let mut oc: u64 = 5;
        let mut p = 0usize;
        while p < ip_limit {
            let anchor = p;
            let seq = read_u32(w, p);
            let h = hash(seq, shift);
            let r = htab[h] as usize;
            htab[h] = p as u32;
            let d = anchor.wrapping_sub(r);
            let mut is_match = d != 0 && d < MAX_FARDISTANCE && read_u32(w, r) == seq;
            let mut l = 0;
            if is_match {
                l = match_end(w, anchor + 4, d, bound) - IPSHIFT - anchor;
                is_match = l >= MINLEN;
            }
            if !is_match {
                oc += 1;
                p = anchor + 1;
                copy += 1;
                if copy == MAX_COPY {
                    copy = 0;
                    oc += 1;
                }
                continue;
            }
            if copy == 0 {
                oc -= 1;
            }
            copy = 0;
            if l >= 7 {
                oc += ((l - 7) / 255) as u64 + 1;
            }
            oc += if d - 1 < MAX_DISTANCE { 2 } else { 4 };
            let q = anchor + l;
            htab[hash(read_u32(w, q), shift)] = q as u32;
            p = q + 2;
            oc += 1;
        }
        p as f64 / oc as f64
    }

    #[test]
    fn probe_matches_the_simple_version() {
        let (mut gave_up, mut accepted) = (0, 0);
        for kind in 0..6u32 {
            for seed in 0..12u64 {
                let n = [20usize, 100, 1000, 5000, 16384, 20000][seed as usize % 6];
                let d = gen(kind, seed, n);
                for hashlog in [12u32, 13, 14] {
                    let mut h2: HashTable = [0; HTAB_SIZE];
                    let simple = probe_ratio_simple(&d, &mut h2, 32 - hashlog);
                    let mut h1: HashTable = [0; HTAB_SIZE];
                    let full = match hashlog {
                        12 => probe_ratio::<20, HTAB_SIZE, false>(&d, &mut h1, 1.0),
                        13 => probe_ratio::<19, HTAB_SIZE, false>(&d, &mut h1, 1.0),
                        _ => probe_ratio::<18, HTAB_SIZE, false>(&d, &mut h1, 1.0),
                    };
                    assert_eq!(full.to_bits(), simple.to_bits(), "kind {kind} seed {seed}");
                    assert!(h1 == h2, "hash tables differ: kind {kind} seed {seed}");
                    for t in THRESHOLD[1..]
                        .iter()
                        .copied()
                        .chain([0.5, 1.3, 1.7, 3.0, 8.0])
                    {
                        let mut h1: HashTable = [0; HTAB_SIZE];
                        let fast = match hashlog {
                            12 => probe_ratio::<20, HTAB_SIZE, true>(&d, &mut h1, t),
                            13 => probe_ratio::<19, HTAB_SIZE, true>(&d, &mut h1, t),
                            _ => probe_ratio::<18, HTAB_SIZE, true>(&d, &mut h1, t),
                        };
                        // The decision is C's; the ratio may be cut short on either side.
                        assert_eq!(
                            fast < t,
                            simple < t,
                            "kind {kind} seed {seed} threshold {t}"
                        );
                        if fast.to_bits() != simple.to_bits() {
                            if simple < t {
                                gave_up += 1;
                            } else {
                                assert!(fast <= simple, "kind {kind} seed {seed} threshold {t}");
                                accepted += 1;
                            }
                        }
                    }
                }
            }
        }
        // Both early decisions were taken (and agreed with the full scan).
        assert!(
            gave_up > 20 && accepted > 20,
            "early: {gave_up} give-ups, {accepted} accepts"
        );
    }

    #[test]
    fn byte_exact_against_c_blosc2() {
        for &(kind, seed, n, clevel, expect) in C_SMALL {
            let d = gen(kind, seed, n);
            assert_eq!(
                blosc_like(clevel, &d),
                expect,
                "kind {kind} seed {seed} clevel {clevel}"
            );
        }
        for (kind, seed, n, per_level) in C_HASHED {
            let d = gen(*kind, *seed, *n);
            for (i, &(len, h)) in per_level.iter().enumerate() {
                let clevel = i as u8 + 1;
                let s = blosc_like(clevel, &d);
                assert_eq!(
                    (s.len(), fnv1a(&s)),
                    (len, h),
                    "kind {kind} seed {seed} clevel {clevel}"
                );
            }
        }
    }

    #[test]
    fn roundtrip_all_levels_varied_data() {
        let lens = [0usize, 1, 15, 16, 17, 100, 65536, 1 << 20];
        for &n in &lens {
            let mut datasets: Vec<Vec<u8>> = vec![
                vec![0u8; n],
                (0..n).map(|i| i as u8).collect(),
                (0..n).map(|i| (i / 3) as u8).collect(),
            ];
            for kind in 0..7 {
                datasets.push(gen(kind, 0x1234 + kind as u64, n));
            }
            for d in &datasets {
                for clevel in 1..=9 {
                    roundtrip(clevel, d);
                }
            }
        }
    }

    #[test]
    fn compresses_what_it_should() {
        // Zeros must compress at every level, text (ratio ~2.1) from clevel 2 on
        // (clevel 1 needs a probe ratio of 2.0 and gives up on it, as C does).
        let zeros = vec![0u8; 65536];
        let text = gen(0, 7, 65536);
        // A random 9000-byte block repeated: only far matches (8192..73725).
        let block = gen(5, 9, 9000);
        let far: Vec<u8> = (0..100_000).map(|i| block[i % 9000]).collect();
        for clevel in 1..=9 {
            let z = blosc_like(clevel, &zeros);
            assert!(
                !z.is_empty() && z.len() < 1000,
                "clevel {clevel}: {}",
                z.len()
            );
            assert_eq!(
                blosc_like(clevel, &text).is_empty(),
                clevel == 1,
                "clevel {clevel}"
            );
            // Far matches: a period > 8191 repeated must compress well once the
            // probe window (2^hashlog bytes) is longer than the period.
            let f = blosc_like(clevel, &far);
            if clevel >= 3 {
                assert!(!f.is_empty() && f.len() < far.len() / 2, "clevel {clevel}");
            }
        }
        // Random data gives up; tiny inputs give up.
        let rnd = gen(5, 3, 65536);
        for clevel in 1..=9 {
            assert!(blosc_like(clevel, &rnd).is_empty());
            let mut out = [0u8; 256];
            for n in 0..16 {
                assert_eq!(compress(clevel, &zeros[..n], &mut out), 0);
            }
        }
        assert_eq!(compress(0, &zeros, &mut vec![0u8; 65536]), 0);
    }

    #[test]
    fn far_matches_are_emitted_and_decoded() {
        let data = gen(4, 11, 200_000);
        let s = blosc_like(9, &data);
        assert!(!s.is_empty());
        // Walk the instructions and count far ones.
        let (mut ip, mut far) = (1usize, 0);
        let mut ctrl = (s[0] & 31) as usize;
        loop {
            if ctrl < 32 {
                ip += ctrl + 1;
            } else {
                if ctrl >> 5 == 7 {
                    while s[ip] == 255 {
                        ip += 1;
                    }
                    ip += 1;
                }
                let lo = s[ip];
                ip += 1;
                if ctrl & 31 == 31 && lo == 255 {
                    far += 1;
                    ip += 2;
                }
            }
            if ip >= s.len() {
                break;
            }
            ctrl = s[ip] as usize;
            ip += 1;
        }
        assert_eq!(ip, s.len());
        assert!(far > 0);
        let mut dec = vec![0u8; data.len()];
        assert_eq!(decompress(&s, &mut dec), Some(data.len()));
        assert!(dec == data);
    }

    #[test]
    fn output_limit_property() {
        // compress never returns more than output.len(), and with any limit the
        // result is either 0 or exactly the unlimited stream.
        let mut r = XorShift(99);
        for kind in [0u32, 1, 2, 3, 4, 6] {
            let data = gen(kind, 5 + kind as u64, 3000 + kind as usize * 1000);
            for clevel in [1u8, 5, 9] {
                let mut full = vec![0u8; data.len() * 2];
                let n = compress(clevel, &data, &mut full);
                for _ in 0..40 {
                    let lim = r.below(data.len() as u64 + 50) as usize;
                    let mut out = vec![0xAAu8; lim];
                    let m = compress(clevel, &data, &mut out);
                    assert!(m <= lim);
                    assert!(m == 0 || (m == n && out[..m] == full[..n]));
                    if lim > n && n > 0 {
                        assert_eq!(m, n); // one byte of slack is always enough
                    }
                }
            }
        }
    }

    #[test]
    fn hand_made_streams() {
        let mut out = [0u8; 64];
        // First control byte: top 3 bits are a marker and ignored.
        assert_eq!(decompress(&[0x22, 1, 2, 3], &mut out), Some(3));
        assert_eq!(out[..3], [1, 2, 3]);
        assert_eq!(decompress(&[0xE2, 1, 2, 3], &mut out), Some(3));
        // Literal 'a', short match len 3 dist 1, literal 'b'.
        assert_eq!(
            decompress(&[0x20, b'a', 0x20, 0x00, 0x00, b'b'], &mut out),
            Some(5)
        );
        assert_eq!(&out[..5], b"aaaab");
        // Short match L = 6 -> len 8, dist 2 (h = 0, l = 1).
        assert_eq!(
            decompress(&[0x21, b'x', b'y', 0xC0, 0x01, 0x00, b'z'], &mut out),
            Some(11)
        );
        assert_eq!(&out[..11], b"xyxyxyxyxyz");
        // Long match: 111hhhhh, x = 3 -> len 12, dist 3.
        assert_eq!(
            decompress(&[0x22, 1, 2, 3, 0xE0, 3, 0x02, 0x00, 9], &mut out),
            Some(16)
        );
        assert_eq!(out[..16], [1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 9]);

        // Long match with 255 extension bytes: len = 9 + 255 + 10 = 274, dist 1.
        let mut big = vec![0u8; 400];
        assert_eq!(
            decompress(&[0x20, 7, 0xE0, 255, 10, 0x00, 0x00, 8], &mut big),
            Some(276)
        );
        assert!(big[..275].iter().all(|&b| b == 7) && big[275] == 8);

        // Near distance using hi = 31 and lo != 255: dist = 31*256 + 254 + 1 = 8191.
        // Near distance with lo = 255 and hi != 31: dist = 256 + 255 + 1 = 512.
        let mut lits: Vec<u8> = Vec::new();
        let mut expect: Vec<u8> = Vec::new();
        let mut r = XorShift(5);
        while expect.len() < 8600 {
            let run: Vec<u8> = (0..32).map(|_| r.next() as u8).collect();
            lits.push(31);
            lits.extend_from_slice(&run);
            expect.extend_from_slice(&run);
        }
        lits[0] |= 0x20;
        let n0 = expect.len(); // 8608
        let mut s = lits.clone();
        s.extend_from_slice(&[(1 << 5) | 31, 254]); // len 3, dist 8191
        s.extend_from_slice(&[(2 << 5) | 1, 255]); // len 4, dist 512
        s.extend_from_slice(&[(1 << 5) | 31, 255, 0x00, 0x05]); // far: len 3, dist 8197
        s.extend_from_slice(&[0xFF, 255, 3, 255, 0x00, 0x00]); // far long: len 267, dist 8192
        s.extend_from_slice(&[0x00, 0xAB]);
        for (len, dist) in [(3usize, 8191usize), (4, 512), (3, 8197), (267, 8192)] {
            for _ in 0..len {
                let b = expect[expect.len() - dist];
                expect.push(b);
            }
        }
        expect.push(0xAB);
        let mut dec = vec![0u8; expect.len()];
        assert_eq!(decompress(&s, &mut dec), Some(expect.len()));
        assert!(dec == expect);
        assert_eq!(expect.len(), n0 + 3 + 4 + 3 + 267 + 1);
        // Far distance is big-endian: 0x01 0x00 means 256 + 8192.
        let mut s2 = lits.clone();
        s2.extend_from_slice(&[(1 << 5) | 31, 255, 0x00, 0x01, 0x00, 0]);
        let mut s3 = lits.clone();
        s3.extend_from_slice(&[(1 << 5) | 31, 255, 0x01, 0x00, 0x00, 0]);
        let mut d2 = vec![0u8; n0 + 4];
        let mut d3 = vec![0u8; n0 + 4];
        assert_eq!(decompress(&s2, &mut d2), Some(n0 + 4));
        assert_eq!(decompress(&s3, &mut d3), Some(n0 + 4));
        assert_eq!(d2[n0..n0 + 3], expect[n0 - 8193..n0 - 8190]);
        assert_eq!(d3[n0..n0 + 3], expect[n0 - 8448..n0 - 8445]);
        // Largest far distance 65535 + 8192 is "before output start" here.
        let mut s4 = lits.clone();
        s4.extend_from_slice(&[(1 << 5) | 31, 255, 0xFF, 0xFF, 0x00, 0]);
        assert_eq!(decompress(&s4, &mut d2), None);
    }

    #[test]
    fn decoder_errors() {
        let mut out = [0u8; 64];
        // Empty input.
        assert_eq!(decompress(&[], &mut out), None);
        // Literal longer than the input.
        assert_eq!(decompress(&[0x23, 1, 2, 3], &mut out), None);
        // Literal longer than the output.
        assert_eq!(decompress(&[0x23, 1, 2, 3, 4], &mut out[..3]), None);
        // Distance before the output start: 2 bytes produced, dist 3.
        assert_eq!(
            decompress(&[0x21, 1, 2, 0x20, 0x02, 0x00, 0], &mut out),
            None
        );
        // Distance exactly the output produced so far is fine.
        assert_eq!(
            decompress(&[0x21, 1, 2, 0x20, 0x01, 0x00, 0], &mut out),
            Some(6)
        );
        // Match overflowing the output.
        assert_eq!(
            decompress(&[0x20, 1, 0xC0, 0x00, 0x00, 0], &mut out[..5]),
            None
        );
        assert_eq!(
            decompress(&[0x20, 1, 0xC0, 0x00, 0x00, 0], &mut out[..10]),
            Some(10)
        );
        // Stream ending with a match (valid streams end with a literal).
        assert_eq!(decompress(&[0x20, 1, 0x20, 0x00], &mut out), None);
        // Truncated matches: missing distance, missing extension, missing far bytes.
        assert_eq!(decompress(&[0x20, 1, 0x20], &mut out), None);
        assert_eq!(decompress(&[0x20, 1, 0xE0], &mut out), None);
        assert_eq!(decompress(&[0x20, 1, 0xE0, 255], &mut out), None);
        assert_eq!(decompress(&[0x20, 1, 0xE0, 255, 1], &mut out), None);
        assert_eq!(decompress(&[0x20, 1, 0x3F, 255], &mut out), None);
        assert_eq!(decompress(&[0x20, 1, 0x3F, 255, 0], &mut out), None);
        assert_eq!(decompress(&[0x20, 1, 0x3F, 255, 0, 0], &mut out), None);
        // Output buffer of size 0.
        assert_eq!(decompress(&[0x20, 1], &mut []), None);
    }

    #[test]
    fn fuzz_never_panics() {
        let mut r = XorShift(0xDEAD_BEEF);
        let mut out = vec![0u8; 4096];
        // Pure random streams.
        for _ in 0..20_000 {
            let n = r.below(64) as usize;
            let s: Vec<u8> = (0..n).map(|_| r.next() as u8).collect();
            let olen = r.below(4096) as usize;
            if let Some(m) = decompress(&s, &mut out[..olen]) {
                assert!(m <= olen);
            }
        }
        // Mutations of valid streams.
        let sources: Vec<Vec<u8>> = (0..7u32).map(|k| gen(k, 77 + k as u64, 3000)).collect();
        for (k, src) in sources.iter().enumerate() {
            let mut c = vec![0u8; 4000];
            let n = compress(9, src, &mut c);
            if n == 0 {
                continue;
            }
            let valid = c[..n].to_vec();
            for i in 0..3000 {
                let mut s = valid.clone();
                let muts = 1 + r.below(4);
                for _ in 0..muts {
                    match r.below(4) {
                        0 => {
                            let p = r.below(s.len() as u64) as usize;
                            s[p] = r.next() as u8;
                        }
                        1 => {
                            let p = r.below(s.len() as u64) as usize;
                            s[p] ^= 1 << r.below(8);
                        }
                        2 => {
                            let t = r.below(s.len() as u64 + 1) as usize;
                            s.truncate(t);
                        }
                        _ => {
                            let p = r.below(s.len() as u64 + 1) as usize;
                            s.insert(p, r.next() as u8);
                        }
                    }
                    if s.is_empty() {
                        break;
                    }
                }
                let olen = if i % 2 == 0 {
                    src.len()
                } else {
                    r.below(4000) as usize
                };
                let mut o = vec![0u8; olen];
                if let Some(m) = decompress(&s, &mut o) {
                    assert!(m <= olen, "kind {k}");
                }
            }
        }
        // compress on random inputs and random limits.
        for _ in 0..300 {
            let n = r.below(3000) as usize;
            let kind = r.below(7) as u32;
            let d = gen(kind, r.next(), n);
            let lim = r.below(3500) as usize;
            let mut o = vec![0u8; lim];
            let clevel = 1 + r.below(9) as u8;
            let m = compress(clevel, &d, &mut o);
            assert!(m <= lim);
            if m > 0 {
                let mut back = vec![0u8; n];
                assert_eq!(decompress(&o[..m], &mut back), Some(n));
                assert!(back == d);
            }
        }
    }
}
