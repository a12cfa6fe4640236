//! Writing chunks (CHUNK.md §3–§7, §10–§11).

mod vl;

pub use vl::vlcompress;

use super::header::{
    blosc2_flags, flags, Header, EXTENDED_HEADER_LENGTH, MAX_BUFFERSIZE, MAX_DICT_SIZE,
    MIN_BUFFERSIZE, MIN_USEFUL_DICT,
};
pub use super::header::{VERSION_FORMAT_STABLE, VERSION_FORMAT_VL_BLOCKS};
use super::pipeline::{self, PipelineInfo};
pub use super::plan::check_cparams;
pub(crate) use super::plan::run_value;
use super::plan::{plan, write_memcpyed, Plan};
use super::worker::{parallel_for_tid, with_worker, Worker};
use crate::codecs::{self, CDict, StreamInfo};
use crate::error::{Error, Result};
use crate::params::{filter_id, CParams, PrefilterArgs, MAX_FILTERS};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

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

/// What compressing one block of a chunk needs.
struct BlockJob<'a> {
    params: &'a CParams,
    plan: &'a Plan,
    pinfo: &'a PipelineInfo<'a>,
    /// The caller's input.
    src: &'a [u8],
    /// The input the filters see (prefiltered as a whole when the prefilter is not run per
    /// block).
    data: &'a [u8],
    /// Every block already filtered (dictionary training).
    filtered_all: Option<&'a [u8]>,
    /// The prefilter to run on each block, if it runs per block.
    prefilter: Option<&'a crate::params::Prefilter>,
    cdict: Option<&'a CDict<'a>>,
    hdr: &'a [u8],
}

impl BlockJob<'_> {
    /// Compress block `j` as thread `tid` into `out` (at most `budget` bytes), with the
    /// scratch buffers `a`, `b` (block-sized) and `pre` (the prefilter's output): its streams'
    /// length, `None` when they do not fit.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        codec: &mut codecs::CodecState,
        a: &mut [u8],
        b: &mut [u8],
        pre: &mut [u8],
        j: usize,
        tid: usize,
        out: &mut [u8],
        budget: usize,
    ) -> Result<Option<usize>> {
        let (plan, params) = (self.plan, self.params);
        let bsize = plan.bsize(j);
        let off = j * plan.blocksize;
        let nstreams = plan.nstreams(j);
        let filtered: &[u8] = match self.filtered_all {
            Some(f) => &f[off..off + bsize],
            None => {
                let input = match self.prefilter {
                    Some(pf) => {
                        let block = prefilter_block(pf, params, plan, self.src, j, tid, pre)?;
                        if params.prefilter_disposable {
                            // nothing to keep: each stream a run of zeros, as C-Blosc2 writes
                            if out.len() < 4 * nstreams || budget < 4 * nstreams {
                                return Ok(None);
                            }
                            out[..4 * nstreams].fill(0);
                            return Ok(Some(4 * nstreams));
                        }
                        block
                    }
                    None => &self.data[off..off + bsize],
                };
                pipeline::forward(
                    self.pinfo,
                    self.data,
                    off,
                    input,
                    &mut a[..bsize],
                    &mut b[..bsize],
                )?
            }
        };
        encode_streams(
            codec, params, filtered, nstreams, out, budget, self.cdict, self.hdr,
        )
    }
}

/// Run the prefilter `pf` for block `j` of `src` into `out` (its first `bsize` bytes), as
/// thread `tid`; returns the block's bytes.
fn prefilter_block<'o>(
    pf: &crate::params::Prefilter,
    params: &CParams,
    plan: &Plan,
    src: &[u8],
    j: usize,
    tid: usize,
    out: &'o mut [u8],
) -> Result<&'o [u8]> {
    let off = j * plan.blocksize;
    let bsize = plan.bsize(j);
    if !params.prefilter_disposable {
        // what the prefilter leaves unwritten is zeros, as in C-Blosc2
        out[..bsize].fill(0);
    }
    let mut args = PrefilterArgs {
        input: &src[off..off + bsize],
        output: &mut out[..bsize],
        output_typesize: params.typesize,
        output_offset: off as i32,
        nchunk: params.nchunk,
        nblock: j as i32,
        tid: tid as i32,
    };
    if pf(&mut args) != 0 && !params.prefilter_disposable {
        crate::trace_error!("Execution of prefilter function failed");
        return Err(Error::Failure);
    }
    Ok(&out[..bsize])
}

/// The whole input through the prefilter of `params`, block by block.
fn prefilter_all(params: &CParams, plan: &Plan, src: &[u8]) -> Result<Vec<u8>> {
    let mut out = crate::error::zeroed_vec(src.len())?;
    if let Some(pf) = &params.prefilter {
        for (j, block) in out.chunks_mut(plan.blocksize).enumerate() {
            prefilter_block(pf, params, plan, src, j, 0, block)?;
        }
    }
    Ok(out)
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
    let hl = plan.hl;
    let nthreads = params.nthreads.max(1) as usize;
    let header_plus_bstarts = hl + 4 * plan.nblocks;
    let memcpyed_upfront =
        params.clevel == 0 || nbytes < MIN_BUFFERSIZE || header_plus_bstarts > dst.len();
    let instr = params.instr_codec && !params.basic_header;
    let dict = params.use_dict && !params.basic_header;

    // The prefilter runs block by block where each block is compressed, as in C-Blosc2 (in
    // the worker threads, on a block-sized buffer). Delta needs the prefiltered block 0 and
    // the other paths the whole prefiltered input: it is made first for them.
    let whole = params.prefilter.is_some()
        && (memcpyed_upfront || instr || dict || params.filters.contains(&filter_id::DELTA));
    let prefiltered = if whole {
        Some(prefilter_all(params, &plan, src)?)
    } else {
        None
    };
    let data: &[u8] = prefiltered.as_deref().unwrap_or(src);
    let block_prefilter = params.prefilter.as_ref().filter(|_| !whole);

    if instr {
        return super::instr::compress(params, &plan, data, dst, nthreads);
    }
    if memcpyed_upfront {
        return write_memcpyed(&plan, data, dst, true, nthreads);
    }

    // Dictionary: filter everything once, then train on samples.
    let mut filtered_all: Option<Vec<u8>> = None;
    let mut dict_bytes: Option<Vec<u8>> = None;
    if dict {
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

    let job = BlockJob {
        params,
        plan: &plan,
        pinfo: &pinfo,
        src,
        data,
        filtered_all: filtered_all.as_deref(),
        prefilter: block_prefilter,
        cdict: cdict.as_ref(),
        hdr: hdr_bytes,
    };
    let mut all_zero_runs = true;
    let fits = if nthreads <= 1 || plan.nblocks <= 1 {
        // Serial: streams go straight to the destination, limited by the space left in it.
        with_worker(|w| -> Result<bool> {
            for j in 0..plan.nblocks {
                let bsize = plan.bsize(j);
                let pre_len = if block_prefilter.is_some() { bsize } else { 0 };
                let (codec, a, b, _, pre) = w.buffers_pre(plan.blocksize, pre_len);
                let nstreams = plan.nstreams(j);
                dst[hl + 4 * j..hl + 4 * j + 4].copy_from_slice(&(pos as i32).to_le_bytes());
                let budget = dst.len() - pos;
                match job.run(codec, a, b, pre, j, 0, &mut dst[pos..], budget)? {
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
        parallel_for_tid(nthreads, plan.nblocks, &|tid, j| {
            with_worker(|w: &mut Worker| {
                let r: Result<Option<usize>> = if stop.load(Ordering::Relaxed) {
                    Ok(None)
                } else {
                    let bsize = plan.bsize(j);
                    let pre_len = if block_prefilter.is_some() { bsize } else { 0 };
                    let (codec, a, b, c, pre) = w.buffers_pre(slot, pre_len);
                    // A panic must not leave the blocks after this one unplaced.
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        job.run(codec, a, b, pre, j, tid, &mut c[..slot], budget)
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
        if block_prefilter.is_some() {
            let all = prefilter_all(params, &plan, src)?;
            return write_memcpyed(&plan, &all, dst, false, nthreads);
        }
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
mod tests;
