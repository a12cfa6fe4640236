//! The layout decisions for one chunk before any codec runs: the parameter checks, block size
//! and split, the header; and the two outcomes that need no codec (a memcpyed chunk, a block
//! that is one repeated byte).

use super::blocksize::{compute_blocksize, split_block};
use super::header::{blosc2_flags, flags, Header, MAX_BLOCKSIZE, VERSION_FORMAT_STABLE};
use super::pipeline;
use super::worker::parallel_copy;
use crate::codecs;
use crate::error::{Error, Result};
use crate::params::{filter_id, CParams};

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

pub(super) fn plan(p: &CParams, nbytes: usize) -> Plan {
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
