//! The filter pipeline applied to one block (FILTERS.md §1): forward for compression, backward
//! for decompression, with the built-in filters and registered user filters.

use crate::codecs::StreamInfo;
use crate::error::{Error, Result};
use crate::filters::{bitshuffle, delta, shuffle, trunc_prec};
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

/// Whether a pipeline has any filter that does something when compressing.
pub fn has_forward_filters(filters: &[u8; MAX_FILTERS]) -> bool {
    filters.iter().any(|&f| f != filter_id::NOFILTER)
}

/// Whether a pipeline has any filter to undo when decompressing.
pub fn has_backward_filters(filters: &[u8; MAX_FILTERS]) -> bool {
    filters
        .iter()
        .any(|&f| f != filter_id::NOFILTER && f != filter_id::TRUNC_PREC)
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
pub fn backward(
    info: &PipelineInfo<'_>,
    offset: usize,
    dref: &[u8],
    a: &mut [u8],
    b: &mut [u8],
    dest: &mut [u8],
) -> Result<()> {
    let len = dest.len();
    let active: Vec<usize> = (0..MAX_FILTERS)
        .rev()
        .filter(|&s| {
            info.filters[s] != filter_id::NOFILTER && info.filters[s] != filter_id::TRUNC_PREC
        })
        .collect();
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

/// Check that every filter id of a pipeline is known (built-in or registered).
pub fn validate(filters: &[u8; MAX_FILTERS]) -> Result<()> {
    for &id in filters {
        if id < filter_id::LAST_FILTER {
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
