//! Reading chunks: full decompression, getitem, VL blocks (CHUNK.md §3.6, §4, §5, §7, §8, §12).

use super::header::{Header, Special, EXTENDED_HEADER_LENGTH, MAX_DICT_SIZE};
use super::pipeline::{self, PipelineInfo};
use super::worker::{parallel_for, with_worker};
use crate::codecs::{self, DDict, StreamInfo};
use crate::error::{Error, Result};
use crate::params::{DParams, PostfilterArgs};
use std::sync::Mutex;

/// A validated chunk ready to be decoded.
pub struct Chunk<'a> {
    /// The chunk bytes, exactly `cbytes` long.
    pub buf: &'a [u8],
    /// Its header.
    pub header: Header,
    codec: u8,
    data_start: usize,
    dict: Option<&'a [u8]>,
}

fn le_i32(b: &[u8], at: usize) -> Result<i32> {
    let s = b.get(at..at + 4).ok_or(Error::ReadBuffer)?;
    Ok(i32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

impl<'a> Chunk<'a> {
    /// Parse a chunk at the start of `src` (which may be longer than the chunk).
    pub fn parse(src: &'a [u8]) -> Result<Chunk<'a>> {
        let header = Header::parse(src)?;
        let cbytes = header.cbytes as usize;
        if src.len() < cbytes {
            // C-Blosc2 reports a header whose `cbytes` exceeds the source as an invalid header.
            crate::trace_error!(
                "The header's cbytes ({}) exceeds the source size ({})",
                cbytes,
                src.len()
            );
            return Err(Error::InvalidHeader);
        }
        if header.is_lazy() {
            crate::trace_error!("Lazy chunks cannot be decoded from a buffer");
            return Err(Error::InvalidParam);
        }
        let buf = &src[..cbytes];
        let hl = header.header_len();
        let mut chunk = Chunk {
            buf,
            header,
            codec: 0,
            data_start: hl,
            dict: None,
        };
        if let Some(sp) = header.special() {
            match sp {
                Special::Value => {
                    let es = cbytes - EXTENDED_HEADER_LENGTH;
                    if es == 0 || header.nbytes as usize % es != 0 {
                        crate::trace_error!("Invalid repeated-value special chunk");
                        return Err(Error::InvalidHeader);
                    }
                }
                Special::Nan => {
                    if header.nbytes > 0 && header.typesize != 4 && header.typesize != 8 {
                        crate::trace_error!("NaN special chunks need typesize 4 or 8");
                        return Err(Error::InvalidHeader);
                    }
                }
                Special::Zero | Special::Uninit => {}
            }
            return Ok(chunk);
        }
        if header.memcpyed() {
            if header.nbytes as usize + hl != cbytes {
                crate::trace_error!("Wrong cbytes for a memcpyed chunk");
                return Err(Error::ReadBuffer);
            }
            return Ok(chunk);
        }
        chunk.codec = header.codec_id()?;
        let nblocks = header.nblocks();
        let bstarts_end = hl
            .checked_add(nblocks.checked_mul(4).ok_or(Error::InvalidHeader)?)
            .ok_or(Error::InvalidHeader)?;
        if bstarts_end > cbytes {
            crate::trace_error!("The bstarts table does not fit in the chunk");
            return Err(Error::ReadBuffer);
        }
        chunk.data_start = bstarts_end;
        if header.has_dict() {
            let dsize = le_i32(buf, bstarts_end)?;
            if dsize <= 0 || dsize as usize > MAX_DICT_SIZE {
                crate::trace_error!("Invalid dictionary size {}", dsize);
                return Err(Error::CodecDict);
            }
            let d = buf
                .get(bstarts_end + 4..bstarts_end + 4 + dsize as usize)
                .ok_or(Error::ReadBuffer)?;
            chunk.dict = Some(d);
            chunk.data_start = bstarts_end + 4 + dsize as usize;
        }
        Ok(chunk)
    }

    /// Uncompressed size.
    pub fn nbytes(&self) -> usize {
        self.header.nbytes as usize
    }

    fn bstart(&self, j: usize) -> Result<usize> {
        let v = le_i32(self.buf, self.header.header_len() + 4 * j)?;
        if v <= 0 || v as usize >= self.buf.len() || (v as usize) < self.data_start {
            crate::trace_error!("Invalid block start {} for block {}", v, j);
            return Err(Error::Data);
        }
        Ok(v as usize)
    }

    fn bsize(&self, j: usize) -> usize {
        let bs = self.header.blocksize as usize;
        let nbytes = self.nbytes();
        if (j + 1) * bs > nbytes {
            nbytes - j * bs
        } else {
            bs
        }
    }

    fn nstreams(&self, j: usize) -> usize {
        let h = &self.header;
        let bsize = self.bsize(j);
        let leftover = bsize != h.blocksize as usize;
        if h.dont_split() || leftover {
            return 1;
        }
        let ts = h.typesize as usize;
        if h.version <= 2 && (ts > 16 || (h.blocksize as usize) / ts < 128) {
            return 1;
        }
        if bsize % ts != 0 {
            return 1;
        }
        ts
    }

    fn ddict(&self) -> Result<Option<DDict<'a>>> {
        match self.dict {
            None => Ok(None),
            Some(d) => Ok(Some(DDict::new(self.codec, d)?)),
        }
    }

    fn fill_special(&self, sp: Special, dest: &mut [u8], start: usize) {
        match sp {
            Special::Zero => dest.fill(0),
            Special::Uninit => {}
            Special::Nan => {
                let pat: &[u8] = if self.header.typesize == 4 {
                    &[0x00, 0x00, 0xC0, 0x7F]
                } else {
                    &[0, 0, 0, 0, 0, 0, 0xF8, 0x7F]
                };
                fill_pattern(dest, pat, start);
            }
            Special::Value => {
                let pat = &self.buf[EXTENDED_HEADER_LENGTH..];
                fill_pattern(dest, pat, start);
            }
        }
    }

    /// Decode the streams of block `j` into `out` (exactly the block length).
    fn decode_streams(
        &self,
        codec: &mut codecs::CodecState,
        j: usize,
        out: &mut [u8],
        dict: Option<&DDict<'_>>,
        dparams: &DParams,
    ) -> Result<()> {
        let nstreams = self.nstreams(j);
        let neblock = out.len() / nstreams;
        let mut p = self.bstart(j)?;
        let info = StreamInfo {
            meta: self.header.compcode_meta,
            chunk: &self.buf[..self.header.header_len()],
            cparams: None,
            dparams: Some(dparams),
        };
        for s in 0..nstreams {
            let piece = &mut out[s * neblock..(s + 1) * neblock];
            let csize = le_i32(self.buf, p)?;
            p += 4;
            if csize == 0 {
                piece.fill(0);
            } else if csize < 0 {
                if csize < -255 {
                    crate::trace_error!("Invalid run length {}", csize);
                    return Err(Error::RunLength);
                }
                let token = *self.buf.get(p).ok_or(Error::ReadBuffer)?;
                if token & 0x01 == 0 || token & !0x01 != 0 {
                    crate::trace_error!("Unknown run token {:#x}", token);
                    return Err(Error::RunLength);
                }
                p += 1;
                piece.fill((-csize) as u8);
            } else {
                let csize = csize as usize;
                let stream = self.buf.get(p..p + csize).ok_or_else(|| {
                    crate::trace_error!("Stream of block {} runs past the chunk end", j);
                    Error::ReadBuffer
                })?;
                if csize == neblock {
                    piece.copy_from_slice(stream);
                } else {
                    codec.decompress(self.codec, stream, piece, dict, info)?;
                }
                p += csize;
            }
        }
        Ok(())
    }

    fn pipeline_info<'x>(&'x self, dparams: &'x DParams) -> PipelineInfo<'x> {
        PipelineInfo {
            filters: &self.header.filters,
            filters_meta: &self.header.filters_meta,
            typesize: self.header.typesize as usize,
            version: self.header.version,
            stream: StreamInfo {
                meta: 0,
                chunk: &self.buf[..self.header.header_len()],
                cparams: None,
                dparams: Some(dparams),
            },
        }
    }

    /// Fully decode block `j` into `dest` (its length). `dref` is the decoded block 0 (or
    /// empty for block 0).
    fn decode_block(
        &self,
        w: &mut super::worker::Worker,
        j: usize,
        dest: &mut [u8],
        dref: &[u8],
        dict: Option<&DDict<'_>>,
        dparams: &DParams,
    ) -> Result<()> {
        let bsize = dest.len();
        if self.header.memcpyed() {
            let start = self.header.header_len() + j * self.header.blocksize as usize;
            dest.copy_from_slice(&self.buf[start..start + bsize]);
            return self.postfilter(w, j, dest, dparams);
        }
        let pinfo = self.pipeline_info(dparams);
        let filters = pipeline::has_backward_filters(&self.header.filters);
        let (codec, a, b, c) = w.buffers(self.header.blocksize as usize);
        match (filters, &dparams.postfilter) {
            (false, None) => self.decode_streams(codec, j, dest, dict, dparams),
            (true, None) => {
                self.decode_streams(codec, j, &mut a[..bsize], dict, dparams)?;
                let offset = j * self.header.blocksize as usize;
                pipeline::backward(&pinfo, offset, dref, &mut a[..bsize], &mut b[..bsize], dest)
            }
            (_, Some(pf)) => {
                self.decode_streams(codec, j, &mut a[..bsize], dict, dparams)?;
                if filters {
                    let offset = j * self.header.blocksize as usize;
                    pipeline::backward(
                        &pinfo,
                        offset,
                        dref,
                        &mut a[..bsize],
                        &mut b[..bsize],
                        &mut c[..bsize],
                    )?;
                } else {
                    c[..bsize].copy_from_slice(&a[..bsize]);
                }
                run_postfilter(pf, &c[..bsize], dest, self, j, dparams)
            }
        }
    }

    fn postfilter(
        &self,
        w: &mut super::worker::Worker,
        j: usize,
        dest: &mut [u8],
        dparams: &DParams,
    ) -> Result<()> {
        let Some(pf) = &dparams.postfilter else {
            return Ok(());
        };
        let (_, a, _, _) = w.buffers(dest.len());
        a.copy_from_slice(dest);
        run_postfilter(pf, a, dest, self, j, dparams)
    }
}

fn run_postfilter(
    pf: &crate::params::Postfilter,
    input: &[u8],
    dest: &mut [u8],
    chunk: &Chunk<'_>,
    j: usize,
    dparams: &DParams,
) -> Result<()> {
    let mut args = PostfilterArgs {
        input,
        output: dest,
        typesize: chunk.header.typesize as i32,
        offset: (j * chunk.header.blocksize as usize) as i32,
        nchunk: dparams.nchunk,
        nblock: j as i32,
        tid: 0,
    };
    if pf(&mut args) != 0 {
        crate::trace_error!("Execution of postfilter function failed");
        return Err(Error::Postfilter);
    }
    Ok(())
}

/// Fill `dest` with `pat` repeated, as if `dest` started at byte `start` of the repetition.
fn fill_pattern(dest: &mut [u8], pat: &[u8], start: usize) {
    if pat.is_empty() {
        return;
    }
    let n = pat.len();
    for (i, d) in dest.iter_mut().enumerate() {
        *d = pat[(start + i) % n];
    }
}

/// Decompress a whole chunk into `dst`; returns its uncompressed size.
///
/// `maskout[j] == true` skips block `j`: its part of `dst` is left untouched (the return value is
/// still the whole size, as in C-Blosc2). The mask must have one entry per block, else
/// [`Error::Data`].
pub fn decompress(
    dparams: &DParams,
    src: &[u8],
    dst: &mut [u8],
    maskout: Option<&[bool]>,
) -> Result<usize> {
    // As C-Blosc2: the header and the source length first, then the destination size, then the
    // rest of the chunk.
    let header = Header::parse(src)?;
    if src.len() < header.cbytes as usize {
        crate::trace_error!("The header's cbytes exceeds the source size");
        return Err(Error::InvalidHeader);
    }
    if dst.len() < header.nbytes as usize {
        crate::trace_error!(
            "The destination is too small: {} < {}",
            dst.len(),
            header.nbytes
        );
        return Err(Error::WriteBuffer);
    }
    let chunk = Chunk::parse(src)?;
    let nbytes = chunk.nbytes();
    let dst = &mut dst[..nbytes];
    let nblocks = chunk.header.nblocks();
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
    let skip = |j: usize| maskout.is_some_and(|m| m[j]);
    if let Some(sp) = chunk.header.special() {
        if maskout.is_none() {
            chunk.fill_special(sp, dst, 0);
        } else {
            let bs = chunk.header.blocksize as usize;
            for (j, block) in dst.chunks_mut(bs).enumerate() {
                if !skip(j) {
                    chunk.fill_special(sp, block, j * bs);
                }
            }
        }
        return Ok(nbytes);
    }
    if nbytes == 0 {
        return Ok(0);
    }
    if chunk.header.is_vlblocks() {
        let blocks = vldecompress(dparams, src)?;
        let mut pos = 0;
        for b in blocks {
            dst[pos..pos + b.len()].copy_from_slice(&b);
            pos += b.len();
        }
        return Ok(nbytes);
    }
    if chunk.header.memcpyed() && dparams.postfilter.is_none() && maskout.is_none() {
        let hl = chunk.header.header_len();
        dst.copy_from_slice(&chunk.buf[hl..hl + nbytes]);
        return Ok(nbytes);
    }
    let bs = chunk.header.blocksize as usize;
    let dict = chunk.ddict()?;
    let delta = chunk.header.has_delta() && !chunk.header.memcpyed();
    let nthreads = dparams.nthreads.max(1) as usize;

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

    let blocks: Vec<Mutex<&mut [u8]>> = rest.chunks_mut(bs).map(Mutex::new).collect();
    let error: Mutex<Option<Error>> = Mutex::new(None);
    parallel_for(nthreads, blocks.len(), &|k| {
        let j = k + 1;
        if skip(j) {
            return;
        }
        let mut guard = blocks[k].lock().unwrap_or_else(|e| e.into_inner());
        let r =
            with_worker(|w| chunk.decode_block(w, j, &mut guard, first, dict.as_ref(), dparams));
        if let Err(e) = r {
            *error.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
        }
    });
    if let Some(e) = error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    Ok(nbytes)
}

/// Decode bytes `[start, start + len)` of a chunk into `dst` (`getitem`). Only the blocks
/// overlapping the range are decoded (plus block 0 when delta is in use).
pub fn getitem_bytes(
    dparams: &DParams,
    src: &[u8],
    start: usize,
    len: usize,
    dst: &mut [u8],
) -> Result<usize> {
    let chunk = Chunk::parse(src)?;
    let nbytes = chunk.nbytes();
    let end = start.checked_add(len).ok_or(Error::InvalidParam)?;
    if end > nbytes {
        crate::trace_error!("`start` + `nitems` out of bounds");
        return Err(Error::InvalidParam);
    }
    if dst.len() < len {
        crate::trace_error!("The destination is too small");
        return Err(Error::WriteBuffer);
    }
    let dst = &mut dst[..len];
    if let Some(sp) = chunk.header.special() {
        chunk.fill_special(sp, dst, start);
        return Ok(len);
    }
    if chunk.header.is_vlblocks() {
        crate::trace_error!("getitem is not supported for VL-block chunks");
        return Err(Error::InvalidParam);
    }
    if len == 0 {
        return Ok(0);
    }
    if chunk.header.memcpyed() && dparams.postfilter.is_none() {
        let hl = chunk.header.header_len();
        dst.copy_from_slice(&chunk.buf[hl + start..hl + end]);
        return Ok(len);
    }
    let bs = chunk.header.blocksize as usize;
    let dict = chunk.ddict()?;
    let delta = chunk.header.has_delta() && !chunk.header.memcpyed();
    with_worker(|w| -> Result<usize> {
        let first_len = bs.min(nbytes);
        let mut block0 = Vec::new();
        if delta {
            block0.resize(first_len, 0);
            chunk.decode_block(w, 0, &mut block0, &[], dict.as_ref(), dparams)?;
        }
        let mut scratch = vec![0u8; bs];
        for j in start / bs..end.div_ceil(bs) {
            let bstart = j * bs;
            let bsize = chunk.bsize(j);
            let block: &[u8] = if j == 0 && delta {
                &block0
            } else {
                chunk.decode_block(w, j, &mut scratch[..bsize], &block0, dict.as_ref(), dparams)?;
                &scratch[..bsize]
            };
            let lo = start.max(bstart);
            let hi = end.min(bstart + bsize);
            dst[lo - start..hi - start].copy_from_slice(&block[lo - bstart..hi - bstart]);
        }
        Ok(len)
    })
}

/// Decode every block of a VL-block chunk.
pub fn vldecompress(dparams: &DParams, src: &[u8]) -> Result<Vec<Vec<u8>>> {
    let chunk = Chunk::parse(src)?;
    if !chunk.header.is_vlblocks() {
        crate::trace_error!("The chunk is not a VL-block chunk");
        return Err(Error::InvalidParam);
    }
    let n = chunk.header.nblocks();
    let mut out = Vec::with_capacity(n);
    let mut total = 0usize;
    for j in 0..n {
        let b = vldecompress_block(&chunk, dparams, j)?;
        total += b.len();
        out.push(b);
    }
    if total != chunk.nbytes() {
        crate::trace_error!("VL blocks do not add up to nbytes");
        return Err(Error::Data);
    }
    Ok(out)
}

/// Decode block `j` of a parsed VL-block chunk.
pub fn vldecompress_block(chunk: &Chunk<'_>, dparams: &DParams, j: usize) -> Result<Vec<u8>> {
    let n = chunk.header.nblocks();
    if j >= n {
        return Err(Error::InvalidIndex);
    }
    let start = chunk.bstart(j)?;
    let next = if j + 1 < n {
        chunk.bstart(j + 1)?
    } else {
        chunk.buf.len()
    };
    if next < start + 4 {
        return Err(Error::Data);
    }
    let ulen = le_i32(chunk.buf, start)?;
    if ulen <= 0 || ulen > chunk.header.nbytes {
        return Err(Error::Data);
    }
    let ulen = ulen as usize;
    let payload = &chunk.buf[start + 4..next];
    let dict = chunk.ddict()?;
    let mut out = vec![0u8; ulen];
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
            codec.decompress(chunk.codec, payload, a, dict.as_ref(), info)?;
        }
        let pinfo = chunk.pipeline_info(dparams);
        pipeline::backward(&pinfo, 0, &[], a, b, &mut out)
    })?;
    Ok(out)
}
