//! Writing chunks (CHUNK.md §3–§7, §10–§11).

use super::blocksize::{compute_blocksize, split_block};
use super::header::{
    blosc2_flags, flags, Header, EXTENDED_HEADER_LENGTH, MAX_BLOCKSIZE, MAX_BUFFERSIZE,
    MAX_DICT_SIZE, MIN_BUFFERSIZE, MIN_USEFUL_DICT,
};
use super::pipeline::{self, PipelineInfo};
use super::worker::{parallel_copy, parallel_for, with_worker, Worker};
use crate::codecs::{self, CDict, StreamInfo};
use crate::error::{Error, Result};
use crate::params::{filter_id, CParams, PrefilterArgs, MAX_FILTERS};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Chunk format version written for regular chunks.
pub const VERSION_FORMAT_STABLE: u8 = 5;
/// Chunk format version written for VL-block chunks.
pub const VERSION_FORMAT_VL_BLOCKS: u8 = 6;

/// Validate compression parameters the way C-Blosc2 does when a context is created or used.
///
/// # Examples
///
/// ```
/// use b2rs::chunk::compress::check_cparams;
/// use b2rs::{CParams, Error};
///
/// assert!(check_cparams(&CParams::default()).is_ok());
/// assert_eq!(check_cparams(&CParams { clevel: 10, ..CParams::default() }), Err(Error::CodecParam));
/// assert_eq!(check_cparams(&CParams { compcode: 3, ..CParams::default() }), Err(Error::CodecSupport));
/// ```
pub fn check_cparams(p: &CParams) -> Result<()> {
    if p.clevel > 9 {
        crate::trace_error!("`clevel` parameter must be between 0 and 9!");
        return Err(Error::CodecParam);
    }
    if p.typesize <= 0 || p.typesize > MAX_BLOCKSIZE {
        crate::trace_error!(
            "`typesize` parameter must be between 1 and {}",
            MAX_BLOCKSIZE
        );
        return Err(Error::InvalidParam);
    }
    if p.blocksize < 0 || p.blocksize > MAX_BLOCKSIZE {
        crate::trace_error!("`blocksize` out of range");
        return Err(Error::InvalidParam);
    }
    if !codecs::is_available(p.compcode) {
        crate::trace_error!("Codec {} is not available", p.compcode);
        return Err(Error::CodecSupport);
    }
    if p.use_dict && !matches!(p.compcode, codecs::ZSTD | codecs::LZ4 | codecs::LZ4HC) {
        crate::trace_error!("Dictionaries are only supported with ZSTD, LZ4 and LZ4HC");
        return Err(Error::CodecParam);
    }
    pipeline::validate(&p.filters)?;
    Ok(())
}

/// The layout decisions for one chunk.
pub(super) struct Plan {
    pub(super) header: Header,
    pub(super) hl: usize,
    pub(super) typesize: usize,
    pub(super) blocksize: usize,
    pub(super) nblocks: usize,
    pub(super) split: bool,
}

impl Plan {
    pub(super) fn bsize(&self, j: usize) -> usize {
        let nbytes = self.header.nbytes as usize;
        if j + 1 == self.nblocks && !nbytes.is_multiple_of(self.blocksize) {
            nbytes % self.blocksize
        } else {
            self.blocksize
        }
    }

    pub(super) fn nstreams(&self, j: usize) -> usize {
        let leftover = j + 1 == self.nblocks && self.bsize(j) != self.blocksize;
        if self.split && !leftover {
            self.typesize
        } else {
            1
        }
    }
}

fn plan(p: &CParams, nbytes: usize) -> Plan {
    let typesize_stored: u8 = if p.typesize > 255 {
        1
    } else {
        p.typesize as u8
    };
    let blocksize = compute_blocksize(
        p.splitmode,
        p.compcode,
        p.clevel,
        &p.filters,
        p.typesize as i64,
        nbytes as i64,
        p.blocksize as i64,
    )
    .max(1) as usize;
    let split = split_block(
        p.splitmode,
        p.compcode,
        p.clevel,
        &p.filters,
        typesize_stored as i64,
        blocksize as i64,
    );
    let nblocks = nbytes.div_ceil(blocksize);
    let mut fl = codecs::format_of(p.compcode) << 5;
    if p.basic_header {
        if p.filters.contains(&filter_id::SHUFFLE) {
            fl |= flags::DOSHUFFLE;
        }
        if p.filters.contains(&filter_id::BITSHUFFLE) {
            fl |= flags::DOBITSHUFFLE;
        }
    } else {
        fl |= flags::DOSHUFFLE | flags::DOBITSHUFFLE;
    }
    if p.filters.contains(&filter_id::DELTA) {
        fl |= flags::DODELTA;
    }
    if !split {
        fl |= flags::DONT_SPLIT;
    }
    let header = Header {
        version: VERSION_FORMAT_STABLE,
        versionlz: 1,
        flags: fl,
        typesize: typesize_stored,
        nbytes: nbytes as i32,
        blocksize: blocksize as i32,
        cbytes: 0,
        extended: !p.basic_header,
        filters: p.filters,
        udcompcode: p.compcode,
        compcode_meta: p.compcode_meta,
        filters_meta: p.filters_meta,
        blosc2_flags2: 0,
        blosc2_flags: 0,
    };
    Plan {
        hl: header.header_len(),
        header,
        typesize: typesize_stored as usize,
        blocksize,
        nblocks,
        split,
    }
}

/// Write a memcpyed chunk; `Ok(0)` if it does not fit. When the decision is taken up front
/// (`upfront`), C-Blosc2 writes no filter, split or codec bits in the flags; after a failed
/// compression attempt it keeps them.
pub(super) fn write_memcpyed(
    plan: &Plan,
    data: &[u8],
    dst: &mut [u8],
    upfront: bool,
    nthreads: usize,
) -> Result<usize> {
    let hl = plan.hl;
    let total = hl + data.len();
    if dst.len() < total {
        return Ok(0);
    }
    let mut h = plan.header;
    if upfront {
        h.flags &= flags::DOSHUFFLE | flags::DOBITSHUFFLE;
        if !h.extended {
            h.flags = 0;
        }
    }
    h.flags |= flags::MEMCPYED;
    h.blosc2_flags &= !blosc2_flags::USEDICT;
    h.cbytes = total as i32;
    h.write(&mut dst[..hl]);
    parallel_copy(nthreads, &mut dst[hl..total], data);
    Ok(total)
}

/// The in-order placement of compressed blocks in the destination (parallel compression).
///
/// The worker that finishes block `j` when every block before it is placed reserves the next
/// bytes of the destination for it (and for the finished blocks that were waiting for `j`)
/// under the lock, and copies outside it. A worker that finishes early parks its output buffer
/// in `pending` (taking a spare one) and goes on with the next block. No thread waits for
/// another (a block of a fast codec takes microseconds, a sleep and wake-up as long), each block
/// is copied once, and the layout is the serial one whatever the timing.
struct Commit<'d> {
    /// The next block to place.
    next: usize,
    /// Where it goes.
    pos: usize,
    /// Every block so far fits in the destination.
    fits: bool,
    /// Every block so far is a run of zeros only.
    all_zero_runs: bool,
    /// The first error of a block.
    error: Option<Error>,
    /// The header and the block-start table.
    table: &'d mut [u8],
    /// The destination from `pos` on (not reserved yet).
    rest: &'d mut [u8],
    /// Finished blocks after `next`, with their output buffers.
    pending: Vec<(Finished, Vec<u8>)>,
    /// Output buffers to take when parking one.
    spare: Vec<Vec<u8>>,
}

/// A compressed block: its number, the result of [`encode_streams`] and whether it is made of
/// zero runs only.
struct Finished {
    j: usize,
    r: Result<Option<usize>>,
    zero: bool,
}

impl<'d> Commit<'d> {
    /// Account for block `next` (`r` and `zero` as in [`Finished`]) and reserve its bytes,
    /// recording their start in the block-start table after the `hl`-byte header. `None` once
    /// the chunk does not fit or failed.
    fn reserve(&mut self, hl: usize, f: Finished) -> Option<&'d mut [u8]> {
        debug_assert_eq!(f.j, self.next);
        let j = f.j;
        self.next += 1;
        if !self.fits || self.error.is_some() {
            return None;
        }
        let n = match f.r {
            Ok(Some(n)) => n,
            Ok(None) => {
                self.fits = false;
                return None;
            }
            Err(e) => {
                self.error = Some(e);
                return None;
            }
        };
        if n > self.rest.len() {
            self.fits = false;
            return None;
        }
        self.all_zero_runs &= f.zero;
        self.table[hl + 4 * j..hl + 4 * j + 4].copy_from_slice(&(self.pos as i32).to_le_bytes());
        let (mine, tail) = std::mem::take(&mut self.rest).split_at_mut(n);
        self.rest = tail;
        self.pos += n;
        Some(mine)
    }

    /// Whether the blocks not started yet can be skipped.
    fn failed(&self) -> bool {
        !self.fits || self.error.is_some()
    }
}

/// Whether `piece` is one repeated byte; returns it.
///
/// Runs are common in shuffled data (constant byte planes) and a run is only known once every
/// byte has been seen, so this is checked 64 bytes at a time: the OR of the XORs over a
/// fixed-size array compiles to a few vector instructions, and the early exit per window keeps
/// non-runs (the usual case) cheap.
pub(crate) fn run_value(piece: &[u8]) -> Option<u8> {
    const W: usize = 64;
    let first = *piece.first()?;
    let mut windows = piece.chunks_exact(W);
    for w in &mut windows {
        let w: &[u8; W] = w.try_into().expect("64-byte window");
        if w.iter().fold(0u8, |acc, &b| acc | (b ^ first)) != 0 {
            return None;
        }
    }
    windows
        .remainder()
        .iter()
        .all(|&b| b == first)
        .then_some(first)
}

/// Encode the streams of one filtered block into `out`; `Ok(None)` if it does not fit.
/// `limit_base` is the space left in the destination at `out[0]` (streams are limited by it).
#[allow(clippy::too_many_arguments)]
fn encode_streams(
    codec: &mut codecs::CodecState,
    p: &CParams,
    data: &[u8],
    nstreams: usize,
    out: &mut [u8],
    budget: usize,
    dict: Option<&CDict<'_>>,
    chunk_hdr: &[u8],
) -> Result<Option<usize>> {
    let neblock = data.len() / nstreams;
    let mut pos = 0usize;
    let info = StreamInfo {
        meta: p.compcode_meta,
        chunk: chunk_hdr,
        cparams: Some(p),
        dparams: None,
    };
    let budget = budget.min(out.len());
    for s in 0..nstreams {
        let piece = &data[s * neblock..(s + 1) * neblock];
        if budget < pos + 4 {
            return Ok(None);
        }
        if let Some(v) = run_value(piece).filter(|_| !p.basic_header) {
            if v == 0 {
                out[pos..pos + 4].copy_from_slice(&0i32.to_le_bytes());
                pos += 4;
            } else {
                if budget < pos + 5 {
                    return Ok(None);
                }
                out[pos..pos + 4].copy_from_slice(&(-(v as i32)).to_le_bytes());
                out[pos + 4] = 0x01;
                pos += 5;
            }
            continue;
        }
        let maxout = neblock.min(budget - pos - 4);
        let n = if p.clevel == 0 || maxout == 0 {
            0
        } else {
            codec.compress(
                p.compcode,
                p.clevel,
                piece,
                &mut out[pos + 4..pos + 4 + maxout],
                dict,
                info,
            )?
        };
        if n == 0 || n >= neblock {
            if budget < pos + 4 + neblock {
                return Ok(None);
            }
            out[pos..pos + 4].copy_from_slice(&(neblock as i32).to_le_bytes());
            out[pos + 4..pos + 4 + neblock].copy_from_slice(piece);
            pos += 4 + neblock;
        } else {
            out[pos..pos + 4].copy_from_slice(&(n as i32).to_le_bytes());
            pos += 4 + n;
        }
    }
    Ok(Some(pos))
}

/// A 16-byte header records the pipeline only as flags, which a reader turns into
/// `[.., DELTA, SHUFFLE or BITSHUFFLE]` with the typesize as element size (CHUNK.md §2): refuse
/// ([`Error::InvalidParam`]) any other pipeline instead of writing a chunk that decodes wrongly
/// (C-Blosc2 does; byte- and bit-shuffle together would even set the extended-header marker).
fn check_basic_pipeline(p: &CParams) -> Result<()> {
    let active: Vec<(u8, u8)> = (0..MAX_FILTERS)
        .filter(|&k| p.filters[k] != filter_id::NOFILTER)
        .map(|k| (p.filters[k], p.filters_meta[k]))
        .collect();
    let shuffle_ok = |(f, m): (u8, u8)| {
        (f == filter_id::SHUFFLE || f == filter_id::BITSHUFFLE)
            && (m == 0 || m as i32 == p.typesize)
    };
    let ok = match active[..] {
        [] => true,
        [one] => one.0 == filter_id::DELTA || shuffle_ok(one),
        [first, second] => first.0 == filter_id::DELTA && shuffle_ok(second),
        _ => false,
    };
    if !ok {
        crate::trace_error!(
            "The filter pipeline {:?} cannot be recorded in a Blosc1 (16-byte) header",
            p.filters
        );
        return Err(Error::InvalidParam);
    }
    Ok(())
}

/// Compress `src` into `dst` with `params`. Returns the chunk length, or 0 when the result does
/// not fit in `dst` (not even as a memcpyed chunk).
///
/// A `dst` of `src.len() + MAX_OVERHEAD` bytes always fits (`blosc2_compress`):
///
/// ```
/// use b2rs::chunk::{self, header::MAX_OVERHEAD, Header};
/// use b2rs::{codecs, params::filter_id, CParams};
///
/// let src: Vec<u8> = (0..4096u64).flat_map(|i| (i % 100).to_le_bytes()).collect();
/// let mut cparams = CParams { compcode: codecs::LZ4, clevel: 9, typesize: 8, ..CParams::default() };
/// cparams.filters[5] = filter_id::BITSHUFFLE;
/// let mut dst = vec![0u8; src.len() + MAX_OVERHEAD];
/// let n = chunk::compress(&cparams, &src, &mut dst).unwrap();
/// let header = Header::parse(&dst[..n]).unwrap();
/// assert_eq!(header.nbytes as usize, src.len());
/// assert_eq!(header.cbytes as usize, n);
/// ```
pub fn compress(params: &CParams, src: &[u8], dst: &mut [u8]) -> Result<usize> {
    check_cparams(params)?;
    if params.basic_header {
        check_basic_pipeline(params)?;
    }
    if src.len() > MAX_BUFFERSIZE as usize {
        crate::trace_error!("Input buffer size cannot exceed {} bytes", MAX_BUFFERSIZE);
        return Err(Error::MaxBufsizeExceeded);
    }
    if dst.len() < EXTENDED_HEADER_LENGTH {
        crate::trace_error!("Output buffer size should be larger than 32 bytes");
        return Err(Error::MaxBufsizeExceeded);
    }
    let nbytes = src.len();
    let plan = plan(params, nbytes);

    // Apply the prefilter once over the whole input, block by block.
    let prefiltered: Option<Vec<u8>> = match &params.prefilter {
        None => None,
        Some(pf) => {
            let mut out = vec![0u8; nbytes];
            for (j, block) in out.chunks_mut(plan.blocksize).enumerate() {
                let off = j * plan.blocksize;
                let mut args = PrefilterArgs {
                    input: &src[off..off + block.len()],
                    output: block,
                    output_typesize: params.typesize,
                    output_offset: off as i32,
                    nchunk: params.nchunk,
                    nblock: j as i32,
                    tid: 0,
                };
                if pf(&mut args) != 0 {
                    crate::trace_error!("Execution of prefilter function failed");
                    return Err(Error::Failure);
                }
            }
            Some(out)
        }
    };
    let data: &[u8] = prefiltered.as_deref().unwrap_or(src);

    let hl = plan.hl;
    let nthreads = params.nthreads.max(1) as usize;
    if params.instr_codec && !params.basic_header {
        return super::instr::compress(params, &plan, data, dst, nthreads);
    }
    let header_plus_bstarts = hl + 4 * plan.nblocks;
    if params.clevel == 0 || nbytes < MIN_BUFFERSIZE || header_plus_bstarts > dst.len() {
        return write_memcpyed(&plan, data, dst, true, nthreads);
    }

    // Dictionary: filter everything once, then train on samples.
    let mut filtered_all: Option<Vec<u8>> = None;
    let mut dict_bytes: Option<Vec<u8>> = None;
    if params.use_dict && !params.basic_header {
        let filtered = filter_all(params, &plan, data)?;
        dict_bytes = build_dict(params, &plan, &filtered);
        if dict_bytes.is_some() {
            filtered_all = Some(filtered);
        }
    }
    let cdict = match (&dict_bytes, params.compcode) {
        (Some(d), codecs::ZSTD) => Some(CDict::Zstd(codecs::zstd::cdict(d))),
        (Some(d), _) => Some(CDict::Lz4(d.as_slice())),
        (None, _) => None,
    };

    let mut header = plan.header;
    let mut pos = header_plus_bstarts;
    if let Some(d) = &dict_bytes {
        header.blosc2_flags |= blosc2_flags::USEDICT;
        if dst.len() < pos + 4 + d.len() {
            return write_memcpyed(&plan, data, dst, false, nthreads);
        }
        dst[pos..pos + 4].copy_from_slice(&(d.len() as i32).to_le_bytes());
        dst[pos + 4..pos + 4 + d.len()].copy_from_slice(d);
        pos += 4 + d.len();
    }
    let mut hdr_bytes = [0u8; EXTENDED_HEADER_LENGTH];
    header.write(&mut hdr_bytes[..hl]);
    let hdr_bytes = &hdr_bytes[..hl];
    let pinfo = PipelineInfo {
        filters: &params.filters,
        filters_meta: &params.filters_meta,
        typesize: plan.typesize,
        version: VERSION_FORMAT_STABLE,
        stream: StreamInfo {
            meta: 0,
            chunk: hdr_bytes,
            cparams: Some(params),
            dparams: None,
        },
    };

    let mut all_zero_runs = true;
    let fits = if nthreads <= 1 || plan.nblocks <= 1 {
        // Serial: streams go straight to the destination, limited by the space left in it.
        with_worker(|w| -> Result<bool> {
            for j in 0..plan.nblocks {
                let bsize = plan.bsize(j);
                let off = j * plan.blocksize;
                let (codec, a, b, _) = w.buffers(plan.blocksize);
                let filtered: &[u8] = match &filtered_all {
                    Some(f) => &f[off..off + bsize],
                    None => pipeline::forward(
                        &pinfo,
                        data,
                        off,
                        &data[off..off + bsize],
                        &mut a[..bsize],
                        &mut b[..bsize],
                    )?,
                };
                let nstreams = plan.nstreams(j);
                dst[hl + 4 * j..hl + 4 * j + 4].copy_from_slice(&(pos as i32).to_le_bytes());
                let budget = dst.len() - pos;
                match encode_streams(
                    codec,
                    params,
                    filtered,
                    nstreams,
                    &mut dst[pos..],
                    budget,
                    cdict.as_ref(),
                    hdr_bytes,
                )? {
                    None => return Ok(false),
                    Some(n) => {
                        if n != 4 * nstreams || dst[pos..pos + n].iter().any(|&b| b != 0) {
                            all_zero_runs = false;
                        }
                        pos += n;
                    }
                }
            }
            Ok(true)
        })?
    } else {
        // Parallel: each worker compresses a block into its own scratch buffer, then places it
        // in the destination in block order (see `Commit`).
        let nstreams_max = if plan.split { plan.typesize.max(1) } else { 1 };
        let budget = plan.blocksize + 4 * plan.typesize.max(nstreams_max);
        let slot = budget + 4 * nstreams_max + 1;
        let (table, rest) = dst.split_at_mut(pos);
        let commit = Mutex::new(Commit {
            next: 0,
            pos,
            fits: true,
            all_zero_runs: true,
            error: None,
            table,
            rest,
            pending: Vec::new(),
            spare: Vec::new(),
        });
        // Set once the chunk is known not to fit or to have failed: the blocks not started
        // yet are skipped.
        let stop = AtomicBool::new(false);
        let lock = || commit.lock().unwrap_or_else(|e| e.into_inner());
        parallel_for(nthreads, plan.nblocks, &|j| {
            with_worker(|w: &mut Worker| {
                let r: Result<Option<usize>> = if stop.load(Ordering::Relaxed) {
                    Ok(None)
                } else {
                    let (codec, a, b, c) = w.buffers(slot);
                    // A panic must not leave the blocks after this one unplaced.
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        let bsize = plan.bsize(j);
                        let off = j * plan.blocksize;
                        let filtered: &[u8] = match &filtered_all {
                            Some(f) => &f[off..off + bsize],
                            None => pipeline::forward(
                                &pinfo,
                                data,
                                off,
                                &data[off..off + bsize],
                                &mut a[..bsize],
                                &mut b[..bsize],
                            )?,
                        };
                        encode_streams(
                            codec,
                            params,
                            filtered,
                            plan.nstreams(j),
                            &mut c[..slot],
                            budget,
                            cdict.as_ref(),
                            hdr_bytes,
                        )
                    }))
                    .unwrap_or(Err(Error::Failure))
                };
                let zero = match &r {
                    Ok(Some(n)) => {
                        *n == 4 * plan.nstreams(j) && w.tmp[2][..*n].iter().all(|&b| b == 0)
                    }
                    _ => false,
                };
                let f = Finished { j, r, zero };
                let mut st = lock();
                if st.next != j {
                    // Not its turn: park the output buffer.
                    let fresh = st.spare.pop().unwrap_or_default();
                    let out = std::mem::replace(&mut w.tmp[2], fresh);
                    st.pending.push((f, out));
                    return;
                }
                let mine = st.reserve(hl, f);
                // The parked blocks that follow, in order.
                let mut ready: Vec<(&mut [u8], Vec<u8>)> = Vec::new();
                while let Some(i) = st.pending.iter().position(|p| p.0.j == st.next) {
                    let (f, buf) = st.pending.swap_remove(i);
                    match st.reserve(hl, f) {
                        Some(m) => ready.push((m, buf)),
                        None => st.spare.push(buf),
                    }
                }
                if st.failed() {
                    stop.store(true, Ordering::Relaxed);
                }
                drop(st);
                if let Some(m) = mine {
                    let n = m.len();
                    m.copy_from_slice(&w.tmp[2][..n]);
                }
                if !ready.is_empty() {
                    let mut bufs = Vec::with_capacity(ready.len());
                    for (m, buf) in ready {
                        let n = m.len();
                        m.copy_from_slice(&buf[..n]);
                        bufs.push(buf);
                    }
                    lock().spare.extend(bufs);
                }
            })
        });
        let st = commit.into_inner().unwrap_or_else(|e| e.into_inner());
        if st.next != plan.nblocks {
            return Err(Error::ThreadCreate);
        }
        if let Some(e) = st.error {
            return Err(e);
        }
        all_zero_runs = st.all_zero_runs;
        pos = st.pos;
        st.fits
    };

    if !fits {
        // Fall back to a memcpyed chunk of the (prefiltered) input.
        return write_memcpyed(&plan, data, dst, false, nthreads);
    }
    if all_zero_runs && dict_bytes.is_none() && !params.basic_header {
        header.blosc2_flags |= (super::header::Special::Zero as u8) << 4;
        header.cbytes = EXTENDED_HEADER_LENGTH as i32;
        header.write(&mut dst[..EXTENDED_HEADER_LENGTH]);
        return Ok(EXTENDED_HEADER_LENGTH);
    }
    header.cbytes = pos as i32;
    header.write(&mut dst[..hl]);
    Ok(pos)
}

/// The filtered blocks of the whole input, back to back (first pass of dictionary building).
fn filter_all(params: &CParams, plan: &Plan, data: &[u8]) -> Result<Vec<u8>> {
    let mut out = vec![0u8; data.len()];
    let hdr = [0u8; EXTENDED_HEADER_LENGTH];
    let pinfo = PipelineInfo {
        filters: &params.filters,
        filters_meta: &params.filters_meta,
        typesize: plan.typesize,
        version: VERSION_FORMAT_STABLE,
        stream: StreamInfo {
            meta: 0,
            chunk: &hdr,
            cparams: Some(params),
            dparams: None,
        },
    };
    with_worker(|w| -> Result<()> {
        for j in 0..plan.nblocks {
            let bsize = plan.bsize(j);
            let off = j * plan.blocksize;
            let (_, a, b, _) = w.buffers(plan.blocksize);
            let f = pipeline::forward(
                &pinfo,
                data,
                off,
                &data[off..off + bsize],
                &mut a[..bsize],
                &mut b[..bsize],
            )?;
            out[off..off + bsize].copy_from_slice(f);
        }
        Ok(())
    })?;
    Ok(out)
}

/// Build the chunk dictionary from the filtered data (CHUNK.md §6); `None` if not worth it.
fn build_dict(params: &CParams, plan: &Plan, filtered: &[u8]) -> Option<Vec<u8>> {
    let mut nsamples = plan.nblocks;
    if plan.split {
        nsamples *= plan.typesize;
    }
    train_dict(params, nsamples, filtered)
}

/// Train (Zstd) or cut (LZ4) a dictionary from `nsamples` samples of the filtered data.
fn train_dict(params: &CParams, nsamples: usize, filtered: &[u8]) -> Option<Vec<u8>> {
    if params.clevel == 0 {
        return None;
    }
    let nbytes = filtered.len();
    let dict_maxsize = MAX_DICT_SIZE.min(nbytes / 20);
    let nsamples = nsamples.max(8);
    let sample = nbytes / nsamples / 16;
    if dict_maxsize < MIN_USEFUL_DICT || sample == 0 {
        return None;
    }
    match params.compcode {
        codecs::ZSTD => {
            // Like C-Blosc2: `nsamples` consecutive samples from the start of the filtered data.
            let sizes = vec![sample; nsamples];
            codecs::zstd::train(&filtered[..nsamples * sample], &sizes, dict_maxsize)
                .filter(|d| !d.is_empty())
        }
        _ => Some(filtered[..(nsamples * sample).min(dict_maxsize)].to_vec()),
    }
}

/// The dictionary of a VL-block chunk: each block is one sample.
fn train_vl_dict(params: &CParams, blocks: &[&[u8]], filtered: &[u8]) -> Option<Vec<u8>> {
    if params.clevel == 0 {
        return None;
    }
    let dict_maxsize = MAX_DICT_SIZE.min(filtered.len() / 20);
    if dict_maxsize < MIN_USEFUL_DICT {
        return None;
    }
    match params.compcode {
        codecs::ZSTD => {
            let sizes: Vec<usize> = blocks.iter().map(|b| b.len()).collect();
            codecs::zstd::train(filtered, &sizes, dict_maxsize).filter(|d| !d.is_empty())
        }
        _ => Some(filtered[..dict_maxsize.min(filtered.len())].to_vec()),
    }
}

/// Compress variable-length blocks into one VL-block chunk (CHUNK.md §7).
///
/// # Examples
///
/// ```
/// use b2rs::{chunk, CParams, DParams};
///
/// let blocks: [&[u8]; 3] = [b"short", &[7u8; 3000], b"a third block"];
/// let mut buf = vec![0u8; 4096];
/// let n = chunk::vlcompress(&CParams { typesize: 1, ..CParams::default() }, &blocks, &mut buf).unwrap();
/// let header = chunk::Header::parse(&buf[..n]).unwrap();
/// assert!(header.is_vlblocks());
/// assert_eq!(header.nblocks(), 3);
/// let back = chunk::vldecompress(&DParams::default(), &buf[..n]).unwrap();
/// assert_eq!(back, blocks);
/// ```
pub fn vlcompress(params: &CParams, blocks: &[&[u8]], dst: &mut [u8]) -> Result<usize> {
    check_cparams(params)?;
    if blocks.is_empty() {
        crate::trace_error!("At least one block is needed");
        return Err(Error::InvalidParam);
    }
    let nbytes: usize = blocks.iter().map(|b| b.len()).sum();
    if nbytes > MAX_BUFFERSIZE as usize {
        return Err(Error::MaxBufsizeExceeded);
    }
    if dst.len() < EXTENDED_HEADER_LENGTH {
        crate::trace_error!(
            "Output buffer size should be larger than {} bytes",
            EXTENDED_HEADER_LENGTH
        );
        return Err(Error::MaxBufsizeExceeded);
    }
    if blocks.iter().any(|b| b.is_empty()) {
        crate::trace_error!("VL blocks cannot be empty");
        return Err(Error::InvalidParam);
    }
    let nblocks = blocks.len();
    let typesize_stored: u8 = if params.typesize > 255 {
        1
    } else {
        params.typesize as u8
    };
    let mut fl = flags::DOSHUFFLE
        | flags::DOBITSHUFFLE
        | flags::DONT_SPLIT
        | (codecs::format_of(params.compcode) << 5);
    if params.filters.contains(&filter_id::DELTA) {
        fl |= flags::DODELTA;
    }
    let mut header = Header {
        version: VERSION_FORMAT_VL_BLOCKS,
        versionlz: 1,
        flags: fl,
        typesize: typesize_stored,
        nbytes: nbytes as i32,
        blocksize: nblocks as i32,
        cbytes: 0,
        extended: true,
        filters: params.filters,
        udcompcode: params.compcode,
        compcode_meta: params.compcode_meta,
        filters_meta: params.filters_meta,
        blosc2_flags2: 0x01,
        blosc2_flags: 0,
    };
    let mut pos = EXTENDED_HEADER_LENGTH + 4 * nblocks;
    if dst.len() < pos {
        return Ok(0);
    }
    let mut hdr_bytes = [0u8; EXTENDED_HEADER_LENGTH];
    header.write(&mut hdr_bytes);
    let pinfo = PipelineInfo {
        filters: &params.filters,
        filters_meta: &params.filters_meta,
        typesize: typesize_stored as usize,
        version: VERSION_FORMAT_VL_BLOCKS,
        stream: StreamInfo {
            meta: 0,
            chunk: &hdr_bytes,
            cparams: Some(params),
            dparams: None,
        },
    };
    let maxlen = blocks.iter().map(|b| b.len()).max().unwrap_or(0);
    // Filter every block first (each block is its own delta reference).
    let mut filtered: Vec<u8> = Vec::with_capacity(nbytes);
    with_worker(|w| -> Result<()> {
        for block in blocks {
            let (_, a, b, _) = w.buffers(maxlen);
            let len = block.len();
            let f = pipeline::forward(&pinfo, block, 0, block, &mut a[..len], &mut b[..len])?;
            filtered.extend_from_slice(f);
        }
        Ok(())
    })?;
    // VL blocks are the dictionary samples (as many as there are blocks, at least 8).
    let dict_bytes = if params.use_dict && !params.basic_header && nblocks >= 8 {
        train_vl_dict(params, blocks, &filtered)
    } else {
        None
    };
    let cdict = match (&dict_bytes, params.compcode) {
        (Some(d), codecs::ZSTD) => Some(CDict::Zstd(codecs::zstd::cdict(d))),
        (Some(d), _) => Some(CDict::Lz4(d.as_slice())),
        (None, _) => None,
    };
    if let Some(d) = &dict_bytes {
        header.blosc2_flags |= blosc2_flags::USEDICT;
        header.write(&mut hdr_bytes);
        if dst.len() < pos + 4 + d.len() {
            return Ok(0);
        }
        dst[pos..pos + 4].copy_from_slice(&(d.len() as i32).to_le_bytes());
        dst[pos + 4..pos + 4 + d.len()].copy_from_slice(d);
        pos += 4 + d.len();
    }
    let ok = with_worker(|w| -> Result<bool> {
        let mut off = 0usize;
        for (j, block) in blocks.iter().enumerate() {
            let len = block.len();
            let filtered = &filtered[off..off + len];
            off += len;
            if dst.len() < pos + 4 {
                return Ok(false);
            }
            dst[EXTENDED_HEADER_LENGTH + 4 * j..EXTENDED_HEADER_LENGTH + 4 * j + 4]
                .copy_from_slice(&(pos as i32).to_le_bytes());
            dst[pos..pos + 4].copy_from_slice(&(len as i32).to_le_bytes());
            pos += 4;
            let maxout = len.min(dst.len() - pos);
            let n = if params.clevel == 0 || maxout == 0 {
                0
            } else {
                w.codec.compress(
                    params.compcode,
                    params.clevel,
                    filtered,
                    &mut dst[pos..pos + maxout],
                    cdict.as_ref(),
                    StreamInfo {
                        meta: params.compcode_meta,
                        chunk: &hdr_bytes,
                        cparams: Some(params),
                        dparams: None,
                    },
                )?
            };
            if n == 0 || n >= len {
                if dst.len() < pos + len {
                    return Ok(false);
                }
                dst[pos..pos + len].copy_from_slice(filtered);
                pos += len;
            } else {
                pos += n;
            }
        }
        Ok(true)
    })?;
    if !ok {
        return Ok(0);
    }
    header.cbytes = pos as i32;
    header.write(&mut dst[..EXTENDED_HEADER_LENGTH]);
    Ok(pos)
}

/// Whether a split mode setting is one of the valid values.
///
/// # Examples
///
/// ```
/// use b2rs::chunk::compress::valid_splitmode;
///
/// assert!(valid_splitmode(1) && valid_splitmode(4));
/// assert!(!valid_splitmode(0) && !valid_splitmode(5));
/// ```
pub fn valid_splitmode(v: i32) -> bool {
    (1..=4).contains(&v)
}

#[cfg(test)]
mod tests {
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
}
