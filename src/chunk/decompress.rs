//! Reading chunks: full decompression, getitem, VL blocks (CHUNK.md §3.6, §4, §5, §7, §8, §12).

mod reader;

use reader::le_i32;
pub use reader::Chunk;

use super::header::{Header, Special, EXTENDED_HEADER_LENGTH, MAX_DICT_SIZE};
use super::pipeline::{self, PipelineInfo};
use super::worker::{parallel_copy, parallel_for_tid, with_worker};
use crate::codecs::{self, DDict, StreamInfo};
use crate::error::{Error, Result};
use crate::params::{DParams, PostfilterArgs};
use std::sync::Mutex;

/// Decompress a whole chunk into `dst`; returns its uncompressed size.
///
/// `maskout[j] == true` skips block `j`: its part of `dst` is left untouched (the return value is
/// still the whole size, as in C-Blosc2). The mask must have one entry per block, else
/// [`Error::Data`].
///
/// The checks follow C-Blosc2's order: the header, the destination size
/// ([`Error::WriteBuffer`]), the source size ([`Chunk::open`]), the mask, an undefined
/// special-value code ([`Error::Data`]), a memcpyed chunk whose `cbytes` is not
/// `nbytes` + header ([`Error::Data`]), then the layout ([`Chunk::layout`]) and the blocks.
///
/// ```
/// use b2rs::chunk::{self, header::MAX_OVERHEAD};
/// use b2rs::{CParams, DParams, Error};
///
/// let src = b"Blosc2 chunks, decompressed by b2rs. ".repeat(100);
/// let mut comp = vec![0u8; src.len() + MAX_OVERHEAD];
/// let n = chunk::compress(&CParams { typesize: 1, ..CParams::default() }, &src, &mut comp).unwrap();
///
/// let mut back = vec![0u8; src.len()];
/// assert_eq!(chunk::decompress(&DParams::default(), &comp[..n], &mut back, None), Ok(src.len()));
/// assert_eq!(back, src);
/// // a destination too small is an error, not an overflow
/// let mut small = vec![0u8; 10];
/// assert_eq!(chunk::decompress(&DParams::default(), &comp[..n], &mut small, None), Err(Error::WriteBuffer));
/// ```
pub fn decompress(
    dparams: &DParams,
    src: &[u8],
    dst: &mut [u8],
    maskout: Option<&[bool]>,
) -> Result<usize> {
    let header = Header::parse(src)?;
    if dst.len() < header.data_len() {
        crate::trace_error!(
            "The destination is too small: {} < {}",
            dst.len(),
            header.nbytes
        );
        return Err(Error::WriteBuffer);
    }
    let chunk = Chunk::open(src, header)?;
    let nbytes = chunk.nbytes();
    let dst = &mut dst[..nbytes];
    let nblocks = header.nblocks();
    if let Some(m) = maskout {
        if m.len() != nblocks {
            crate::trace_error!(
                "The number of items in block_maskout ({}) must match the number of blocks in \
                 chunk ({})",
                m.len(),
                nblocks
            );
            return Err(Error::Data);
        }
    }
    if header.special_code() > Special::Uninit as u8 {
        crate::trace_error!("Unknown special values ID ({})", header.special_code());
        return Err(Error::Data);
    }
    let hl = header.header_len();
    if header.memcpyed() && header.cbytes as i64 != header.nbytes as i64 + hl as i64 {
        crate::trace_error!("Wrong header info for this memcpyed chunk");
        return Err(Error::Data);
    }
    if header.nbytes == 0 && header.cbytes as usize == hl && header.special_code() == 0 {
        // only a header: an empty buffer
        return Ok(0);
    }
    let chunk = chunk.layout()?;
    let skip = |j: usize| maskout.is_some_and(|m| m[j]);
    if let Some(sp) = header.special() {
        let bs = header.blocksize as usize;
        if let Some(pf) = &dparams.postfilter {
            // C-Blosc2 hands every block of special values to the postfilter too
            let mut input = Vec::new();
            for (j, block) in dst.chunks_mut(bs).enumerate() {
                if !skip(j) {
                    chunk.special_block_postfiltered(sp, pf, j, &mut input, block, dparams)?;
                }
            }
            return Ok(nbytes);
        }
        if maskout.is_none() && nbytes > bs {
            // Block 0 and the last block are checked and filled alone (the others have block
            // 0's length), the blocks between in one call: a tiny blocksize would otherwise
            // mean millions of calls (a 1.4 KB frame took 1.7 s in frame_decode fuzzing).
            let last_start = (nbytes - 1) / bs * bs;
            let (head, rest) = dst.split_at_mut(bs);
            chunk.fill_special(sp, head, 0)?;
            let (mid, last) = rest.split_at_mut(last_start - bs);
            chunk.fill_special(sp, mid, bs)?;
            chunk.fill_special(sp, last, last_start)?;
            return Ok(nbytes);
        }
        for (j, block) in dst.chunks_mut(bs).enumerate() {
            if !skip(j) {
                chunk.fill_special(sp, block, j * bs)?;
            }
        }
        return Ok(nbytes);
    }
    if header.is_vlblocks() {
        let blocks = vldecode_all(&chunk, dparams)?;
        let mut pos = 0;
        for b in blocks {
            dst[pos..pos + b.len()].copy_from_slice(&b);
            pos += b.len();
        }
        return Ok(nbytes);
    }
    if nbytes == 0 {
        return Ok(0);
    }
    if header.memcpyed() && dparams.postfilter.is_none() && maskout.is_none() {
        parallel_copy(
            dparams.nthreads.max(1) as usize,
            dst,
            &chunk.buf[hl..hl + nbytes],
        );
        return Ok(nbytes);
    }
    let bs = chunk.header.blocksize as usize;
    let dict = chunk.ddict()?;
    let delta =
        chunk.header.has_delta() && !chunk.header.memcpyed() && !chunk.header.instrumented();
    let nthreads = dparams.nthreads.max(1) as usize;

    // Decode the blocks of `area` (block `j0` on) by the pool's threads, `dref` the delta
    // reference; the error is the first failing block's, as when decoding in order.
    let parallel = |area: &mut [u8], j0: usize, dref: &[u8]| -> Result<usize> {
        // only the blocks not masked out are handed to the threads (a read of a few blocks
        // of a big chunk wakes no thread for the others)
        let blocks: Vec<(usize, Mutex<&mut [u8]>)> = area
            .chunks_mut(bs)
            .enumerate()
            .map(|(k, b)| (j0 + k, b))
            .filter(|(j, _)| !skip(*j))
            .map(|(j, b)| (j, Mutex::new(b)))
            .collect();
        let error: Mutex<Option<(usize, Error)>> = Mutex::new(None);
        parallel_for_tid(nthreads, blocks.len(), &|tid, k| {
            let (j, block) = &blocks[k];
            let j = *j;
            let mut guard = block.lock().unwrap_or_else(|e| e.into_inner());
            let r = with_worker(|w| {
                w.tid = tid;
                let r = chunk.decode_block(w, j, &mut guard, dref, dict.as_ref(), dparams);
                w.tid = 0;
                r
            });
            if let Err(e) = r {
                let mut first = error.lock().unwrap_or_else(|e| e.into_inner());
                if first.as_ref().is_none_or(|(i, _)| j < *i) {
                    *first = Some((j, e));
                }
            }
        });
        match error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some((_, e)) => Err(e),
            None => Ok(nbytes),
        }
    };
    if nthreads > 1 && nblocks > 1 && !delta {
        // No block depends on another: all of them in parallel (block 0 too; with 2 big
        // blocks, decoding it first would leave one thread idle).
        return parallel(dst, 0, &[]);
    }

    let first_len = bs.min(nbytes);
    let (first, rest) = dst.split_at_mut(first_len);
    // Block 0 is the delta reference of the others: it is decoded even when masked out (into
    // scratch memory then, so that the masked part of `dst` stays untouched).
    let mut scratch0 = Vec::new();
    let first: &[u8] = if !skip(0) {
        with_worker(|w| chunk.decode_block(w, 0, first, &[], dict.as_ref(), dparams))?;
        first
    } else if delta {
        scratch0.resize(first_len, 0);
        with_worker(|w| chunk.decode_block(w, 0, &mut scratch0, &[], dict.as_ref(), dparams))?;
        &scratch0
    } else {
        &[]
    };
    if nthreads <= 1 || nblocks <= 1 {
        return with_worker(|w| -> Result<usize> {
            for (k, block) in rest.chunks_mut(bs).enumerate() {
                let j = k + 1;
                if skip(j) {
                    continue;
                }
                chunk.decode_block(w, j, block, first, dict.as_ref(), dparams)?;
            }
            Ok(nbytes)
        });
    }

    parallel(rest, 1, first)
}

/// The range of a getitem call.
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
/// use b2rs::chunk::Span;
/// use b2rs::{DParams, Error};
///
/// let mut out = [0u8; 8];
/// // items 10 and 11
/// chunk::getitem(&DParams::default(), &buf[..n], Span::Items { start: 10, nitems: 2 }, &mut out).unwrap();
/// assert_eq!(out, [10, 0, 0, 0, 11, 0, 0, 0]);
/// // the same bytes
/// let span = Span::AlignedBytes { start: 40, len: 8 };
/// assert_eq!(chunk::getitem(&DParams::default(), &buf[..n], span, &mut out), Ok(8));
/// // not a multiple of the typesize
/// let span = Span::AlignedBytes { start: 41, len: 4 };
/// assert_eq!(chunk::getitem(&DParams::default(), &buf[..n], span, &mut out), Err(Error::InvalidParam));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Span {
    /// `nitems` elements of the chunk's typesize from element `start` (`blosc2_getitem_ctx`).
    Items {
        /// First element.
        start: i64,
        /// Number of elements.
        nitems: i64,
    },
    /// Bytes `[start, start + len)`; both must be multiples of the typesize
    /// (`blosc2_getitem_bytes_ctx`), else [`Error::InvalidParam`].
    AlignedBytes {
        /// First byte.
        start: i64,
        /// Number of bytes.
        len: i64,
    },
    /// Any byte range `[start, start + len)`.
    Bytes {
        /// First byte.
        start: usize,
        /// Number of bytes.
        len: usize,
    },
}

/// Decode bytes `[start, start + len)` of a chunk into `dst`; returns `len`. See [`getitem`].
///
/// Only the blocks holding the range are decompressed:
///
/// ```
/// use b2rs::chunk::{self, header::MAX_OVERHEAD};
/// use b2rs::{CParams, DParams};
///
/// let src: Vec<u8> = (0..100_000u32).flat_map(|i| i.to_le_bytes()).collect();
/// let cparams = CParams { typesize: 4, blocksize: 16 * 1024, ..CParams::default() };
/// let mut comp = vec![0u8; src.len() + MAX_OVERHEAD];
/// let n = chunk::compress(&cparams, &src, &mut comp).unwrap();
/// let mut items = [0u8; 8];
/// chunk::getitem_bytes(&DParams::default(), &comp[..n], 4 * 70_000, 8, &mut items).unwrap();
/// assert_eq!(items[..4], 70_000u32.to_le_bytes());
/// assert_eq!(items[4..], 70_001u32.to_le_bytes());
/// ```
pub fn getitem_bytes(
    dparams: &DParams,
    src: &[u8],
    start: usize,
    len: usize,
    dst: &mut [u8],
) -> Result<usize> {
    getitem(dparams, src, Span::Bytes { start, len }, dst)
}

/// Decode part of a chunk into `dst` (`getitem`, CHUNK.md §12); returns the number of bytes.
/// Only the blocks overlapping the range are decoded (plus block 0 when delta is in use).
///
/// The checks follow C-Blosc2's order: the header; VL-block chunks are refused
/// ([`Error::InvalidParam`]); the alignment of an [`Span::AlignedBytes`] range
/// ([`Error::InvalidParam`]); the source size ([`Chunk::open`]); an empty range is done; the
/// destination must hold the range ([`Error::WriteBuffer`]); the range must lie within `nbytes`
/// ([`Error::InvalidParam`]); the layout of a chunk with blocks ([`Chunk::layout`]). An undefined
/// special-value code is [`Error::SchunkSpecial`]. The range of a memcpyed chunk is copied from
/// the source (it must lie within the source: [`Error::ReadBuffer`]) without checking `cbytes`,
/// as C-Blosc2 does.
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
/// use b2rs::chunk::Span;
/// use b2rs::{DParams, Error};
///
/// let mut out = [0u8; 3];
/// let span = Span::Bytes { start: 4 * 9_999, len: 3 };
/// assert_eq!(chunk::getitem(&DParams::default(), &buf[..n], span, &mut out), Ok(3));
/// assert_eq!(out, [0x0f, 0x27, 0]); // 9999 = 0x270f
/// // past the end of the data
/// let span = Span::Items { start: 9_999, nitems: 2 };
/// let mut out = [0u8; 8];
/// assert_eq!(chunk::getitem(&DParams::default(), &buf[..n], span, &mut out), Err(Error::InvalidParam));
/// ```
pub fn getitem(dparams: &DParams, src: &[u8], span: Span, dst: &mut [u8]) -> Result<usize> {
    let header = Header::parse(src)?;
    if header.is_vlblocks() {
        crate::trace_error!("getitem is not supported for VL-block chunks.");
        return Err(Error::InvalidParam);
    }
    let ts = header.typesize as i64;
    let (start, len) = match span {
        Span::Items { start, nitems } => (start.saturating_mul(ts), nitems.saturating_mul(ts)),
        Span::AlignedBytes { start, len } => {
            if start < 0 || len < 0 || start % ts != 0 || len % ts != 0 {
                crate::trace_error!(
                    "`start` ({}) and `nbytes` ({}) must both be non-negative multiples of the \
                     typesize stored in the chunk ({})",
                    start,
                    len,
                    ts
                );
                return Err(Error::InvalidParam);
            }
            (start, len)
        }
        Span::Bytes { start, len } => (
            i64::try_from(start).unwrap_or(i64::MAX),
            i64::try_from(len).unwrap_or(i64::MAX),
        ),
    };
    let chunk = Chunk::open(src, header)?;
    if len == 0 {
        return Ok(0);
    }
    if len > dst.len() as i64 {
        crate::trace_error!("`nitems`*`typesize` out of dest bounds.");
        return Err(Error::WriteBuffer);
    }
    let nbytes = header.nbytes as i64;
    if start < 0 || start > nbytes {
        crate::trace_error!("`start` out of bounds.");
        return Err(Error::InvalidParam);
    }
    let end = start.saturating_add(len);
    if len < 0 || end > nbytes {
        crate::trace_error!("`start`+`nitems` out of bounds.");
        return Err(Error::InvalidParam);
    }
    let (start, len, end) = (start as usize, len as usize, end as usize);
    let dst = &mut dst[..len];
    let chunk = chunk.layout()?;
    if header.special_code() > Special::Uninit as u8 {
        crate::trace_error!("Unhandled special value case");
        return Err(Error::SchunkSpecial);
    }
    if let Some(sp) = header.special() {
        let Some(pf) = &dparams.postfilter else {
            chunk.fill_special(sp, dst, start)?;
            return Ok(len);
        };
        // the blocks of the range through the postfilter, as C-Blosc2 does
        let bs = header.blocksize as usize;
        let (mut input, mut block) = (Vec::new(), Vec::new());
        for j in start / bs..end.div_ceil(bs) {
            let bstart = j * bs;
            block.clear();
            block.resize(chunk.bsize(j), 0);
            chunk.special_block_postfiltered(sp, pf, j, &mut input, &mut block, dparams)?;
            let lo = start.max(bstart);
            let hi = end.min(bstart + block.len());
            dst[lo - start..hi - start].copy_from_slice(&block[lo - bstart..hi - bstart]);
        }
        return Ok(len);
    }
    if header.memcpyed() && dparams.postfilter.is_none() {
        let hl = header.header_len();
        let Some(data) = chunk.src.get(hl + start..hl + end) else {
            crate::trace_error!("getitem memcpy source out of bounds.");
            return Err(Error::ReadBuffer);
        };
        dst.copy_from_slice(data);
        return Ok(len);
    }
    let nbytes = chunk.nbytes();
    let bs = chunk.header.blocksize as usize;
    let dict = chunk.ddict()?;
    let delta =
        chunk.header.has_delta() && !chunk.header.memcpyed() && !chunk.header.instrumented();
    with_worker(|w| -> Result<usize> {
        let first_len = bs.min(nbytes);
        let mut block0 = Vec::new();
        if delta {
            block0.resize(first_len, 0);
            chunk.decode_block(w, 0, &mut block0, &[], dict.as_ref(), dparams)?;
        }
        // the decoded block goes to the worker's prefilter buffer, unused when decoding (no
        // allocation per call: python-blosc2 reads an item at a time)
        let mut scratch = std::mem::take(&mut w.pre);
        if scratch.len() < bs {
            scratch = crate::error::zeroed_vec(bs)?;
        }
        let r = (|| -> Result<usize> {
            for j in start / bs..end.div_ceil(bs) {
                let bstart = j * bs;
                let bsize = chunk.bsize(j);
                let block: &[u8] = if j == 0 && delta {
                    &block0
                } else {
                    let out = &mut scratch[..bsize];
                    chunk.decode_block(w, j, out, &block0, dict.as_ref(), dparams)?;
                    &scratch[..bsize]
                };
                let lo = start.max(bstart);
                let hi = end.min(bstart + bsize);
                dst[lo - start..hi - start].copy_from_slice(&block[lo - bstart..hi - bstart]);
            }
            Ok(len)
        })();
        w.pre = scratch;
        r
    })
}

/// Open a VL-block chunk: the header, then [`Error::InvalidParam`] if the chunk has no VL
/// blocks, then [`Chunk::open`] and [`Chunk::layout`] (which checks the block table).
fn open_vl(src: &[u8]) -> Result<Chunk<'_>> {
    let header = Header::parse(src)?;
    if !header.is_vlblocks() {
        crate::trace_error!("Chunk does not use VL blocks.");
        return Err(Error::InvalidParam);
    }
    Chunk::open(src, header)?.layout()
}

/// Decode every block of a VL-block chunk.
///
/// # Examples
///
/// ```
/// use b2rs::{chunk, CParams, DParams, Error};
///
/// let blocks: [&[u8]; 2] = [b"first", b"second block"];
/// let mut buf = vec![0u8; 256];
/// let n = chunk::vlcompress(&CParams { typesize: 1, ..CParams::default() }, &blocks, &mut buf).unwrap();
/// assert_eq!(chunk::vldecompress(&DParams::default(), &buf[..n]).unwrap(), blocks);
/// // a regular chunk has no VL blocks
/// let m = chunk::compress(&CParams::default(), &[0u8; 64], &mut buf).unwrap();
/// assert_eq!(chunk::vldecompress(&DParams::default(), &buf[..m]), Err(Error::InvalidParam));
/// ```
pub fn vldecompress(dparams: &DParams, src: &[u8]) -> Result<Vec<Vec<u8>>> {
    vldecode_all(&open_vl(src)?, dparams)
}

/// Decode block `j` of a VL-block chunk; an index out of range is [`Error::InvalidParam`]
/// (checked after the chunk, as in C-Blosc2).
///
/// # Examples
///
/// ```
/// use b2rs::{chunk, CParams, DParams, Error};
///
/// let blocks: [&[u8]; 3] = [b"zero", b"one", b"two"];
/// let mut buf = vec![0u8; 256];
/// let n = chunk::vlcompress(&CParams { typesize: 1, ..CParams::default() }, &blocks, &mut buf).unwrap();
/// assert_eq!(chunk::vldecompress_block(&DParams::default(), &buf[..n], 1).unwrap(), b"one");
/// assert_eq!(chunk::vldecompress_block(&DParams::default(), &buf[..n], 3), Err(Error::InvalidParam));
/// ```
pub fn vldecompress_block(dparams: &DParams, src: &[u8], j: usize) -> Result<Vec<u8>> {
    let chunk = open_vl(src)?;
    let n = chunk.header.nblocks();
    if j >= n {
        crate::trace_error!("nblock ({}) out of range [0, {}).", j, n);
        return Err(Error::InvalidParam);
    }
    vldecode_block(&chunk, dparams, j)
}

fn vldecode_all(chunk: &Chunk<'_>, dparams: &DParams) -> Result<Vec<Vec<u8>>> {
    (0..chunk.header.nblocks())
        .map(|j| vldecode_block(chunk, dparams, j))
        .collect()
}

/// Decode block `j` of a VL-block chunk whose layout was checked: `i32 ulen` then the payload,
/// raw when it is `ulen` bytes long, else one codec stream.
fn vldecode_block(chunk: &Chunk<'_>, dparams: &DParams, j: usize) -> Result<Vec<u8>> {
    let (start, next) = chunk.vlblock_span(j)?;
    let ulen = le_i32(chunk.buf, start)?;
    let (Ok(ulen), Some(payload)) = (
        usize::try_from(ulen),
        chunk.buf.get(start.saturating_add(4)..next),
    ) else {
        return Err(Error::InvalidHeader);
    };
    let dict = chunk.ddict()?;
    // the size comes from the chunk, which may be damaged: a failed allocation is an error
    let mut out = crate::error::zeroed_vec(ulen)?;
    with_worker(|w| -> Result<()> {
        let (codec, a, b, _) = w.buffers(ulen);
        if payload.len() == ulen {
            a.copy_from_slice(payload);
        } else {
            let info = StreamInfo {
                meta: chunk.header.compcode_meta,
                chunk: &chunk.buf[..EXTENDED_HEADER_LENGTH],
                cparams: None,
                dparams: Some(dparams),
            };
            codec.decompress(chunk.codec()?, payload, a, dict.as_ref(), info)?;
        }
        let pinfo = chunk.pipeline_info(dparams);
        pipeline::backward(&pinfo, 0, &[], a, b, &mut out)
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests;
