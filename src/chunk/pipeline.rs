//! The filter pipeline applied to one block (FILTERS.md §1): forward for compression, backward
//! for decompression, with the built-in filters, the plugin filters C-Blosc2 registers itself
//! (ndcell 32, ndmean 33, bytedelta 34/35, int_trunc 36) and registered user filters.

use crate::codecs::StreamInfo;
use crate::error::{Error, Result};
use crate::filters::bytedelta::{self, Variant};
use crate::filters::{bitshuffle, delta, int_trunc, ndcell, ndmean, shuffle, trunc_prec};
use crate::params::{filter_id, MAX_FILTERS};
use crate::registry;

/// Which buffer holds the current data while filters run.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Cur {
    Input,
    A,
    B,
}

/// Everything the pipeline needs to know about the chunk.
///
/// # Examples
///
/// ```
/// use b2rs::chunk::pipeline::{backward, forward, PipelineInfo};
/// use b2rs::codecs::StreamInfo;
/// use b2rs::params::filter_id;
///
/// let filters = [0, 0, 0, 0, filter_id::DELTA, filter_id::SHUFFLE];
/// let info = PipelineInfo {
///     filters: &filters,
///     filters_meta: &[0; 6],
///     typesize: 2,
///     version: 5,
///     stream: StreamInfo { meta: 0, chunk: &[], cparams: None, dparams: None },
/// };
/// let block: Vec<u8> = (0..64u16).flat_map(|i| (1000 + i).to_le_bytes()).collect();
/// let (mut a, mut b) = (vec![0u8; 128], vec![0u8; 128]);
/// let coded = forward(&info, &block, 0, &block, &mut a, &mut b).unwrap().to_vec();
/// let (mut a, mut b, mut dest) = (coded, vec![0u8; 128], vec![0u8; 128]);
/// backward(&info, 0, &[], &mut a, &mut b, &mut dest).unwrap();
/// assert_eq!(dest, block);
/// ```
pub struct PipelineInfo<'a> {
    /// The filter ids of the six slots.
    pub filters: &'a [u8; MAX_FILTERS],
    /// Their meta bytes.
    pub filters_meta: &'a [u8; MAX_FILTERS],
    /// The typesize stored in the chunk header.
    pub typesize: usize,
    /// Header version (bitshuffle of version ≤ 2 chunks follows the Blosc 1.x rule).
    pub version: u8,
    /// The data handed to user filters.
    pub stream: StreamInfo<'a>,
}

/// Whether a codec id and pipeline read the b2nd shapes of the super-chunk (the n-dimensional
/// plugins C-Blosc2 ships: the NDLZ and ZFP codecs 32..=35, the NDCELL and NDMEAN filters).
///
/// # Examples
///
/// ```
/// use b2rs::chunk::pipeline::uses_nd;
/// use b2rs::{codecs, params::filter_id};
///
/// assert!(uses_nd(codecs::NDLZ, &[0; 6]));
/// assert!(uses_nd(codecs::ZSTD, &[0, 0, 0, 0, 0, filter_id::NDCELL]));
/// assert!(!uses_nd(codecs::ZSTD, &[0, 0, 0, 0, 0, filter_id::SHUFFLE]));
/// ```
pub fn uses_nd(codec: u8, filters: &[u8; MAX_FILTERS]) -> bool {
    (32..=35).contains(&codec)
        || filters
            .iter()
            .any(|&f| f == filter_id::NDCELL || f == filter_id::NDMEAN)
}

/// Whether decoding the chunk with this header reads the b2nd shapes of its super-chunk.
///
/// # Examples
///
/// ```
/// # use b2rs::{chunk, CParams};
/// #
/// # // 10 000 u32 (40 000 bytes) in blocks of 8 KiB: BloscLZ and byte shuffle
/// # let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
/// # let cparams = CParams { typesize: 4, blocksize: 8192, ..CParams::default() };
/// # let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
/// # let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
/// use b2rs::chunk::pipeline::chunk_uses_nd;
///
/// assert!(!chunk_uses_nd(&chunk::Header::parse(&buf).unwrap()));
/// ```
pub fn chunk_uses_nd(h: &crate::chunk::header::Header) -> bool {
    let codec = h.codec_id().unwrap_or(0);
    uses_nd(codec, &h.filters)
}

/// Whether a pipeline has any filter that does something when compressing.
///
/// # Examples
///
/// ```
/// use b2rs::chunk::pipeline::has_forward_filters;
/// use b2rs::params::filter_id;
///
/// assert!(!has_forward_filters(&[0; 6]));
/// assert!(has_forward_filters(&[0, 0, 0, 0, 0, filter_id::TRUNC_PREC]));
/// ```
pub fn has_forward_filters(filters: &[u8; MAX_FILTERS]) -> bool {
    filters.iter().any(|&f| f != filter_id::NOFILTER)
}

/// Whether a slot is skipped when decompressing: no filter, or a lossy truncation whose
/// inverse is a copy (TRUNC_PREC, INT_TRUNC).
fn skipped_backward(id: u8) -> bool {
    matches!(
        id,
        filter_id::NOFILTER | filter_id::TRUNC_PREC | filter_id::INT_TRUNC
    )
}

/// Whether a pipeline has any filter to undo when decompressing.
///
/// # Examples
///
/// ```
/// use b2rs::chunk::pipeline::has_backward_filters;
/// use b2rs::params::filter_id;
///
/// // truncation has nothing to undo
/// assert!(!has_backward_filters(&[0, 0, 0, 0, 0, filter_id::TRUNC_PREC]));
/// assert!(has_backward_filters(&[0, 0, 0, 0, 0, filter_id::BITSHUFFLE]));
/// ```
pub fn has_backward_filters(filters: &[u8; MAX_FILTERS]) -> bool {
    filters.iter().any(|&f| !skipped_backward(f))
}

/// The plane count of bytedelta: its meta, or (meta 0) the typesize of the super-chunk.
fn bytedelta_planes(meta: u8, schunk_typesize: Option<i32>) -> Option<usize> {
    if meta != 0 {
        return Some(meta as usize);
    }
    match schunk_typesize {
        Some(t) if t > 0 => Some(t as usize),
        _ => {
            crate::trace_error!("When meta is 0, you need to be on a schunk!");
            None
        }
    }
}

fn bytedelta_variant(id: u8) -> Variant {
    if id == filter_id::BYTEDELTA_BUGGY {
        Variant::Buggy
    } else {
        Variant::Fixed
    }
}

fn shuffle_size(meta: u8, typesize: usize) -> usize {
    if meta != 0 {
        meta as usize
    } else {
        typesize
    }
}

fn user_filter(id: u8) -> Result<registry::Filter> {
    registry::filter(id).ok_or_else(|| {
        crate::trace_error!("Filter {} not handled during the filter pipeline", id);
        Error::FilterPipeline
    })
}

/// Apply the forward pipeline to `block` (at byte `offset` of the chunk whose raw input is
/// `chunk_src`). Returns the filtered block, which lives in `input`, `a` or `b`.
///
/// # Examples
///
/// ```
/// use b2rs::chunk::pipeline::{forward, PipelineInfo};
/// use b2rs::codecs::StreamInfo;
/// use b2rs::params::filter_id;
///
/// let filters = [0, 0, 0, 0, 0, filter_id::SHUFFLE];
/// let info = PipelineInfo {
///     filters: &filters,
///     filters_meta: &[0; 6],
///     typesize: 2,
///     version: 5,
///     stream: StreamInfo { meta: 0, chunk: &[], cparams: None, dparams: None },
/// };
/// let block = [1u8, 2, 3, 4, 5, 6];
/// let (mut a, mut b) = ([0u8; 6], [0u8; 6]);
/// let out = forward(&info, &block, 0, &block, &mut a, &mut b).unwrap();
/// assert_eq!(out, [1, 3, 5, 2, 4, 6]);
/// ```
pub fn forward<'x>(
    info: &PipelineInfo<'_>,
    chunk_src: &[u8],
    offset: usize,
    input: &'x [u8],
    a: &'x mut [u8],
    b: &'x mut [u8],
) -> Result<&'x [u8]> {
    let len = input.len();
    let mut cur = Cur::Input;
    for slot in 0..MAX_FILTERS {
        let id = info.filters[slot];
        if id == filter_id::NOFILTER {
            continue;
        }
        let meta = info.filters_meta[slot];
        let (src, dst): (&[u8], &mut [u8]) = match cur {
            Cur::Input | Cur::B => (
                if cur == Cur::Input { input } else { &b[..len] },
                &mut a[..len],
            ),
            Cur::A => (&a[..len], &mut b[..len]),
        };
        match id {
            filter_id::SHUFFLE => shuffle::shuffle(shuffle_size(meta, info.typesize), src, dst),
            filter_id::BITSHUFFLE => bitshuffle::bitshuffle(info.typesize, src, dst),
            filter_id::DELTA => delta::encode(chunk_src, offset, info.typesize, src, dst),
            filter_id::TRUNC_PREC => trunc_prec::truncate(meta as i8, info.typesize, src, dst)?,
            filter_id::BYTEDELTA_BUGGY | filter_id::BYTEDELTA => {
                let schunk_ts = info.stream.cparams.and_then(|p| p.schunk_typesize);
                let Some(planes) = bytedelta_planes(meta, schunk_ts) else {
                    crate::trace_error!("User-defined filter {} failed during compression", id);
                    return Err(Error::FilterPipeline);
                };
                bytedelta::encode(bytedelta_variant(id), planes, src, dst);
            }
            filter_id::INT_TRUNC => int_trunc::truncate(meta as i8, info.typesize, src, dst)?,
            filter_id::NDCELL | filter_id::NDMEAN => {
                // C-Blosc2's plugins read the context's typesize and the super-chunk's shapes
                let p = info.stream.cparams;
                let nd = p.and_then(|p| p.b2nd.as_deref());
                let ts = p.map_or(info.typesize, |p| p.typesize.max(1) as usize);
                let r = if id == filter_id::NDCELL {
                    ndcell::forward(meta, ts, nd, src, dst)
                } else {
                    ndmean::forward(meta, ts, nd, src, dst)
                };
                if r.is_err() {
                    crate::trace_error!("User-defined filter {} failed during compression", id);
                    return Err(Error::FilterPipeline);
                }
            }
            _ => {
                let f = user_filter(id)?;
                let mut si = info.stream;
                si.meta = meta;
                if f.imp.forward(src, dst, si, id) != 0 {
                    crate::trace_error!("User-defined filter {} failed during compression", id);
                    return Err(Error::FilterPipeline);
                }
            }
        }
        cur = if cur == Cur::A { Cur::B } else { Cur::A };
    }
    Ok(match cur {
        Cur::Input => input,
        Cur::A => &a[..len],
        Cur::B => &b[..len],
    })
}

/// Undo the pipeline on a decoded block held in `a` (length `dest.len()`), writing the result
/// into `dest`. `b` is scratch. `dref` is decoded block 0 of the output (delta reference) when
/// `offset > 0`.
///
/// As in C-Blosc2, an undefined id below 32 or a plugin that fails is [`Error::Failure`], an id
/// of 37 and above that is not registered [`Error::FilterPipeline`], and a user filter that
/// fails returns its own code.
///
/// # Examples
///
/// ```
/// use b2rs::chunk::pipeline::{backward, PipelineInfo};
/// use b2rs::codecs::StreamInfo;
/// use b2rs::params::filter_id;
///
/// let filters = [0, 0, 0, 0, 0, filter_id::SHUFFLE];
/// let info = PipelineInfo {
///     filters: &filters,
///     filters_meta: &[0; 6],
///     typesize: 2,
///     version: 5,
///     stream: StreamInfo { meta: 0, chunk: &[], cparams: None, dparams: None },
/// };
/// let (mut a, mut b, mut dest) = ([1u8, 3, 5, 2, 4, 6], [0u8; 6], [0u8; 6]);
/// backward(&info, 0, &[], &mut a, &mut b, &mut dest).unwrap();
/// assert_eq!(dest, [1, 2, 3, 4, 5, 6]);
/// ```
pub fn backward(
    info: &PipelineInfo<'_>,
    offset: usize,
    dref: &[u8],
    a: &mut [u8],
    b: &mut [u8],
    dest: &mut [u8],
) -> Result<()> {
    let len = dest.len();
    // the slots to undo, last first (an array: no allocation per block)
    let mut slots = [0usize; MAX_FILTERS];
    let mut nactive = 0;
    for s in (0..MAX_FILTERS).rev() {
        if !skipped_backward(info.filters[s]) {
            slots[nactive] = s;
            nactive += 1;
        }
    }
    let active = &slots[..nactive];
    if active.is_empty() {
        dest.copy_from_slice(&a[..len]);
        return Ok(());
    }
    let mut in_a = true;
    for (k, &slot) in active.iter().enumerate() {
        let last = k + 1 == active.len();
        let id = info.filters[slot];
        let meta = info.filters_meta[slot];
        let (src, dst): (&[u8], &mut [u8]) = match (in_a, last) {
            (true, true) => (&a[..len], &mut dest[..]),
            (false, true) => (&b[..len], &mut dest[..]),
            (true, false) => (&a[..len], &mut b[..len]),
            (false, false) => (&b[..len], &mut a[..len]),
        };
        match id {
            filter_id::SHUFFLE => shuffle::unshuffle(shuffle_size(meta, info.typesize), src, dst),
            filter_id::BITSHUFFLE => {
                if info.version <= 2 {
                    bitshuffle::bitunshuffle_v2(info.typesize, src, dst)
                } else {
                    bitshuffle::bitunshuffle(info.typesize, src, dst)
                }
            }
            filter_id::DELTA => {
                dst.copy_from_slice(src);
                delta::decode(dref, offset, info.typesize, dst);
            }
            filter_id::BYTEDELTA_BUGGY | filter_id::BYTEDELTA => {
                let schunk_ts = info.stream.dparams.and_then(|p| p.schunk_typesize);
                let Some(planes) = bytedelta_planes(meta, schunk_ts) else {
                    // C-Blosc2 returns the filter's own error code here
                    return Err(Error::Failure);
                };
                bytedelta::decode(bytedelta_variant(id), planes, src, dst);
            }
            _ if id < registry::GLOBAL_START => {
                // ids 5..=31 are Blosc's own but undefined
                crate::trace_error!("Filter {} not handled during decompression.", id);
                return Err(Error::Failure);
            }
            filter_id::NDCELL | filter_id::NDMEAN => {
                // C-Blosc2's plugins read the super-chunk's typesize and shapes, and fail (-1)
                // without them
                let p = info.stream.dparams;
                let nd = p.and_then(|p| p.b2nd.as_deref());
                let ts = p.and_then(|p| p.schunk_typesize).unwrap_or(0).max(1) as usize;
                let r = if id == filter_id::NDCELL {
                    ndcell::backward(meta, ts, nd, src, dst)
                } else {
                    ndmean::backward(meta, ts, nd, src, dst)
                };
                if r.is_err() {
                    crate::trace_error!("User-defined filter {} failed during decompression.", id);
                    return Err(Error::Failure);
                }
            }
            _ => {
                let f = user_filter(id)?;
                let mut si = info.stream;
                si.meta = meta;
                let rc = f.imp.backward(src, dst, si, id);
                if rc != 0 {
                    crate::trace_error!("User-defined filter {} failed during decompression", id);
                    // C-Blosc2 returns the filter's own error code.
                    return Err(Error::from_callback(rc, Error::FilterPipeline));
                }
            }
        }
        in_a = !in_a;
    }
    Ok(())
}

/// Check that no slot holds an id that C-Blosc2 leaves undefined: 5..=31 (Blosc-reserved) and
/// 37..=159 (plugin ids not yet assigned). C-Blosc2 refuses such pipelines when a compression
/// context is created (`blosc2_create_cctx` returns NULL); unregistered user ids (160..) only
/// fail when compressing.
///
/// # Examples
///
/// ```
/// use b2rs::chunk::pipeline::check_defined;
/// use b2rs::{params::filter_id, Error};
///
/// assert!(check_defined(&[0, 0, 0, 0, filter_id::DELTA, filter_id::SHUFFLE]).is_ok());
/// // 5..=31 are reserved by Blosc
/// assert_eq!(check_defined(&[0, 0, 0, 0, 0, 7]), Err(Error::FilterPipeline));
/// // an unregistered user id only fails when compressing
/// assert!(check_defined(&[0, 0, 0, 0, 0, 200]).is_ok());
/// ```
pub fn check_defined(filters: &[u8; MAX_FILTERS]) -> Result<()> {
    for &id in filters {
        let reserved = (filter_id::LAST_FILTER..registry::GLOBAL_START).contains(&id);
        let unassigned =
            (filter_id::LAST_REGISTERED_FILTER + 1..registry::USER_START).contains(&id);
        if reserved || unassigned {
            crate::trace_error!("filter {} is not defined", id);
            return Err(Error::FilterPipeline);
        }
    }
    Ok(())
}

/// Check that every filter id of a pipeline is known (built-in, built-in plugin or registered).
///
/// # Examples
///
/// ```
/// use b2rs::chunk::pipeline::validate;
/// use b2rs::{params::filter_id, Error};
///
/// assert!(validate(&[0, 0, 0, 0, filter_id::BYTEDELTA, filter_id::SHUFFLE]).is_ok());
/// assert_eq!(validate(&[0, 0, 0, 0, 0, 7]), Err(Error::FilterPipeline));
/// // an unregistered user filter
/// assert!(validate(&[0, 0, 0, 0, 0, 200]).is_err());
/// ```
pub fn validate(filters: &[u8; MAX_FILTERS]) -> Result<()> {
    for &id in filters {
        if id < filter_id::LAST_FILTER
            || matches!(
                id,
                filter_id::NDCELL
                    | filter_id::NDMEAN
                    | filter_id::BYTEDELTA_BUGGY
                    | filter_id::BYTEDELTA
                    | filter_id::INT_TRUNC
            )
        {
            continue;
        }
        if id < registry::GLOBAL_START {
            crate::trace_error!("Filter {} is not a valid filter id", id);
            return Err(Error::FilterPipeline);
        }
        user_filter(id)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::{compress, decompress, getitem_bytes};
    use crate::filters::shuffle::tests::random_bytes;
    use crate::params::{CParams, DParams};

    /// Smooth little-endian integers of `ts` bytes with some noise: what bytedelta is for.
    fn smooth(n: usize, ts: usize) -> Vec<u8> {
        let noise = random_bytes(n / ts + 1, 7);
        let mut v = Vec::with_capacity(n + 8);
        let mut i = 0u64;
        while v.len() < n {
            let x = (i * i / 3 + noise[i as usize] as u64 / 16).to_le_bytes();
            v.extend_from_slice(&x[..ts]);
            i += 1;
        }
        v.truncate(n);
        v
    }

    fn cparams(codec: u8, ts: usize, filters: [u8; 6], metas: [u8; 6]) -> CParams {
        CParams {
            compcode: codec,
            typesize: ts as i32,
            filters,
            filters_meta: metas,
            blocksize: 16 * 1024,
            ..CParams::default()
        }
    }

    fn comp(p: &CParams, src: &[u8]) -> Result<Vec<u8>> {
        let mut dst = vec![0u8; src.len() + 64];
        let n = compress(p, src, &mut dst)?;
        dst.truncate(n);
        Ok(dst)
    }

    fn decomp(dp: &DParams, chunk: &[u8], n: usize) -> Result<Vec<u8>> {
        let mut out = vec![0u8; n];
        assert_eq!(decompress(dp, chunk, &mut out, None)?, n);
        Ok(out)
    }

    #[test]
    fn bytedelta_round_trips() {
        for id in [filter_id::BYTEDELTA, filter_id::BYTEDELTA_BUGGY] {
            for codec in [0u8, 1, 5] {
                for ts in [1usize, 2, 4, 8] {
                    for n in [100_000usize, 100_003, 7, 0] {
                        for nthreads in [1i16, 3] {
                            let src = smooth(n, ts);
                            let mut p = cparams(codec, ts, [0, 0, 0, 0, 1, id], [0; 6]);
                            p.filters_meta[5] = ts as u8;
                            p.nthreads = nthreads;
                            let chunk = comp(&p, &src).unwrap();
                            let dp = DParams {
                                nthreads,
                                ..DParams::default()
                            };
                            let what = format!("id {id} codec {codec} ts {ts} n {n}");
                            assert_eq!(decomp(&dp, &chunk, n).unwrap(), src, "{what}");
                            if n > 40_000 {
                                let mut part = vec![0u8; 20_000];
                                getitem_bytes(&dp, &chunk, 20_001, 20_000, &mut part).unwrap();
                                assert_eq!(part, src[20_001..40_001], "getitem {what}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn bytedelta_helps_smooth_data() {
        let src = smooth(400_000, 4);
        let plain = comp(&cparams(5, 4, [0, 0, 0, 0, 0, 1], [0; 6]), &src).unwrap();
        let bd = comp(
            &cparams(5, 4, [0, 0, 0, 0, 1, 35], [0, 0, 0, 0, 0, 4]),
            &src,
        )
        .unwrap();
        assert!(bd.len() < plain.len(), "{} vs {}", bd.len(), plain.len());
    }

    #[test]
    fn bytedelta_meta_zero_needs_a_schunk() {
        let src = smooth(50_000, 4);
        let mut p = cparams(1, 4, [0, 0, 0, 0, 1, 35], [0; 6]);
        assert_eq!(comp(&p, &src).unwrap_err(), Error::FilterPipeline);
        p.schunk_typesize = Some(4);
        let zero = comp(&p, &src).unwrap();
        p.filters_meta[5] = 4;
        p.schunk_typesize = None;
        let four = comp(&p, &src).unwrap();
        // same chunk but for the meta byte (header byte 29)
        assert_eq!(zero[..29], four[..29]);
        assert_eq!(zero[30..], four[30..]);
        // decoding: C-Blosc2 reports the filter's own error (-1) without a super-chunk
        let dp = DParams::default();
        assert_eq!(decomp(&dp, &zero, src.len()).unwrap_err(), Error::Failure);
        let dp = DParams {
            schunk_typesize: Some(4),
            ..DParams::default()
        };
        assert_eq!(decomp(&dp, &zero, src.len()).unwrap(), src);
    }

    #[test]
    fn int_trunc_is_applied_and_skipped_on_decode() {
        let src = smooth(60_001, 8);
        for ts in [1usize, 2, 4, 8] {
            for meta in [1i8, 5, (8 * ts) as i8, -1, -(8 * ts as i8 - 1)] {
                let p = cparams(1, ts, [0, 0, 0, 0, 36, 1], [0, 0, 0, 0, meta as u8, 0]);
                let chunk = comp(&p, &src).unwrap();
                let mut want = vec![0u8; src.len()];
                int_trunc::truncate(meta, ts, &src, &mut want).unwrap();
                if chunk[2] & 0x02 != 0 {
                    // incompressible even truncated: C-Blosc2 also falls back to a memcpyed
                    // chunk of the *unfiltered* input
                    want.copy_from_slice(&src);
                }
                let got = decomp(&DParams::default(), &chunk, src.len()).unwrap();
                assert_eq!(got, want, "ts {ts} meta {meta}");
            }
            let p = cparams(1, ts, [0, 0, 0, 0, 0, 36], [0; 6]);
            assert_eq!(comp(&p, &src).unwrap_err(), Error::FilterPipeline);
        }
        let p = cparams(1, 3, [0, 0, 0, 0, 0, 36], [0, 0, 0, 0, 0, 8]);
        assert_eq!(comp(&p, &src).unwrap_err(), Error::FilterPipeline);
    }

    #[test]
    fn filter_ids() {
        let with = |id: u8| [0, 0, 0, 0, 1, id];
        for id in [0u8, 1, 2, 3, 4, 32, 33, 34, 35, 36] {
            assert!(validate(&with(id)).is_ok(), "{id}");
            assert!(check_defined(&with(id)).is_ok(), "{id}");
        }
        for id in [5u8, 31, 37, 100, 159] {
            assert!(validate(&with(id)).is_err(), "{id}");
            assert!(check_defined(&with(id)).is_err(), "{id}");
        }
        // defined but not available: unregistered user ids
        for id in [160u8, 255] {
            assert!(check_defined(&with(id)).is_ok(), "{id}");
            assert!(validate(&with(id)).is_err(), "{id}");
        }
        assert!(!has_backward_filters(&[0, 0, 0, 4, 36, 0]));
        assert!(has_backward_filters(&[0, 0, 0, 0, 36, 35]));
    }
}
