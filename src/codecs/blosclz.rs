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
mod tests;
