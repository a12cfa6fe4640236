//! Reading chunks: full decompression, getitem, VL blocks (CHUNK.md §3.6, §4, §5, §7, §8, §12).

use super::header::{Header, Special, EXTENDED_HEADER_LENGTH, MAX_DICT_SIZE};
use super::pipeline::{self, PipelineInfo};
use super::worker::{parallel_copy, parallel_for, with_worker};
use crate::codecs::{self, DDict, StreamInfo};
use crate::error::{Error, Result};
use crate::params::{DParams, PostfilterArgs};
use std::sync::Mutex;

/// A chunk opened for reading.
///
/// Reading a chunk checks, in C-Blosc2's order: the header ([`Header::parse`]), that the source
/// holds `cbytes` bytes ([`Chunk::open`]), then, when the data are needed, the layout behind the
/// header: bstarts table, dictionary and VL-block table ([`Chunk::layout`]). Each stream is
/// checked when it is decoded. The entry points (`decompress`, `getitem`, the VL-block readers)
/// add their own checks in between, in the order C-Blosc2 makes them.
///
/// # Examples
///
/// ```
/// use b2rs::{chunk, CParams};
///
/// // 10 000 u32 (40 000 bytes) in blocks of 8 KiB: BloscLZ and byte shuffle
/// let data: Vec<u8> = (0..10_000u32).flat_map(|i| i.to_le_bytes()).collect();
/// let cparams = CParams { typesize: 4, blocksize: 8192, ..CParams::default() };
/// let mut buf = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
/// let n = chunk::compress(&cparams, &data, &mut buf).unwrap();
/// let chunk = chunk::Chunk::parse(&buf[..n]).unwrap();
/// assert_eq!(chunk.buf.len(), n);
/// assert_eq!(chunk.header.typesize, 4);
/// assert_eq!(chunk.nbytes(), data.len());
/// ```
pub struct Chunk<'a> {
    /// The whole source (it may extend past the chunk).
    src: &'a [u8],
    /// The chunk bytes, exactly `cbytes` long.
    pub buf: &'a [u8],
    /// Its header.
    pub header: Header,
    data_start: usize,
    dict: Option<&'a [u8]>,
}

fn le_i32(b: &[u8], at: usize) -> Result<i32> {
    let s = at
        .checked_add(4)
        .and_then(|end| b.get(at..end))
        .ok_or(Error::ReadBuffer)?;
    Ok(i32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

impl<'a> Chunk<'a> {
    /// Open the chunk at the start of `src` (which may be longer than the chunk) and check its
    /// layout: [`Chunk::open`] then [`Chunk::layout`].
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
    /// use b2rs::Error;
    ///
    /// let chunk = chunk::Chunk::parse(&buf).unwrap(); // the source may be longer than the chunk
    /// assert_eq!(chunk.buf.len(), n);
    /// assert_eq!(chunk::Chunk::parse(&buf[..10]).err(), Some(Error::ReadBuffer));
    /// ```
    pub fn parse(src: &'a [u8]) -> Result<Chunk<'a>> {
        Chunk::open(src, Header::parse(src)?)?.layout()
    }

    /// Open the chunk at the start of `src` whose parsed header is `header`: `cbytes` must not
    /// exceed the source ([`Error::InvalidHeader`], as C-Blosc2), and lazy chunks, which only
    /// exist inside C-Blosc2's frame readers, are refused ([`Error::InvalidParam`]).
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
    /// use b2rs::Error;
    ///
    /// let header = chunk::Header::parse(&buf).unwrap();
    /// assert_eq!(chunk::Chunk::open(&buf[..n], header).unwrap().header, header);
    /// // cbytes exceeds the source
    /// assert_eq!(chunk::Chunk::open(&buf[..n - 1], header).err(), Some(Error::InvalidHeader));
    /// ```
    pub fn open(src: &'a [u8], header: Header) -> Result<Chunk<'a>> {
        let cbytes = header.cbytes as usize;
        if src.len() < cbytes {
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
        Ok(Chunk {
            src,
            buf: &src[..cbytes],
            header,
            data_start: header.header_len(),
            dict: None,
        })
    }

    /// Check what follows the header of a chunk that has blocks (neither special nor
    /// memcpyed): the bstarts table must fit in the source ([`Error::ReadBuffer`]; C-Blosc2
    /// checks it against the source size, the blocks it points to must then lie within
    /// `cbytes`), then the
    /// dictionary (size in `1..=32768`, else [`Error::CodecDict`]; its bytes must fit:
    /// [`Error::ReadBuffer`]), then for VL-block chunks the block table
    /// ([`Error::InvalidHeader`], see `Chunk::check_vlblocks`).
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
    /// use b2rs::Error;
    ///
    /// let header = chunk::Header::parse(&buf).unwrap();
    /// let chunk = chunk::Chunk::open(&buf[..n], header).unwrap().layout().unwrap();
    /// assert_eq!(chunk.nbytes(), 40_000);
    /// // a chunk cut right after its header: the bstarts table is missing
    /// let mut cut = buf[..40].to_vec();
    /// cut[12..16].copy_from_slice(&40i32.to_le_bytes()); // cbytes
    /// let header = chunk::Header::parse(&cut).unwrap();
    /// assert_eq!(chunk::Chunk::open(&cut, header).unwrap().layout().err(), Some(Error::ReadBuffer));
    /// ```
    pub fn layout(mut self) -> Result<Chunk<'a>> {
        let header = self.header;
        if header.special_code() != 0 || header.memcpyed() {
            return Ok(self);
        }
        let hl = header.header_len();
        let bstarts_end = header
            .nblocks()
            .checked_mul(4)
            .and_then(|n| n.checked_add(hl))
            .filter(|&end| end <= self.src.len());
        let Some(bstarts_end) = bstarts_end else {
            crate::trace_error!("`bstarts` exceeds length of source buffer.");
            return Err(Error::ReadBuffer);
        };
        self.data_start = bstarts_end;
        if header.has_dict() {
            let dsize = le_i32(self.buf, bstarts_end).inspect_err(|_| {
                crate::trace_error!("Not enough space to read size of dictionary.");
            })?;
            if dsize <= 0 || dsize as usize > MAX_DICT_SIZE {
                crate::trace_error!("Invalid dictionary size {}", dsize);
                return Err(Error::CodecDict);
            }
            let start = bstarts_end + 4;
            let end = start + dsize as usize;
            let Some(d) = self.buf.get(start..end) else {
                crate::trace_error!("Not enough space to read entire dictionary.");
                return Err(Error::ReadBuffer);
            };
            self.dict = Some(d);
            self.data_start = end;
        }
        if header.is_vlblocks() {
            self.check_vlblocks()?;
        }
        Ok(self)
    }

    /// The block table of a VL-block chunk (CHUNK.md §7): block `j` spans
    /// `[bstarts[j], bstarts[j+1])` (the last one up to `cbytes`), starts after the bstarts
    /// table and the dictionary and holds at least its `i32` length; every length is positive
    /// and together they make `nbytes`. Anything else is [`Error::InvalidHeader`], as C-Blosc2
    /// checks it before decoding any block.
    fn check_vlblocks(&self) -> Result<()> {
        let n = self.header.nblocks();
        let mut total: i64 = 0;
        for j in 0..n {
            let (start, end) = self.vlblock_span(j)?;
            if start < self.data_start || start.saturating_add(4) > end || end > self.buf.len() {
                crate::trace_error!("Invalid VL-block offsets in chunk.");
                return Err(Error::InvalidHeader);
            }
            let ulen = le_i32(self.buf, start)?;
            if ulen <= 0 {
                crate::trace_error!("Invalid VL-block uncompressed size in chunk.");
                return Err(Error::InvalidHeader);
            }
            total += ulen as i64;
            if total > self.header.nbytes as i64 {
                crate::trace_error!("VL-block sizes exceed chunk nbytes.");
                return Err(Error::InvalidHeader);
            }
        }
        if total != self.header.nbytes as i64 {
            crate::trace_error!("VL-block sizes do not add up to chunk nbytes.");
            return Err(Error::InvalidHeader);
        }
        Ok(())
    }

    /// Where VL block `j` lies: `bstarts[j]` up to the next block's start (or the chunk's end).
    /// Offsets that are negative read as `usize::MAX` (never a valid position).
    fn vlblock_span(&self, j: usize) -> Result<(usize, usize)> {
        let at = |k: usize| -> Result<usize> {
            Ok(usize::try_from(self.bstarts(k)?).unwrap_or(usize::MAX))
        };
        let start = at(j)?;
        let end = if j + 1 < self.header.nblocks() {
            at(j + 1)?
        } else {
            self.buf.len()
        };
        Ok((start, end))
    }

    /// Uncompressed size.
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
    /// assert_eq!(chunk::Chunk::parse(&buf[..n]).unwrap().nbytes(), 40_000);
    /// ```
    pub fn nbytes(&self) -> usize {
        self.header.data_len()
    }

    /// The codec of the streams (checked when a stream is decoded, as in C-Blosc2).
    fn codec(&self) -> Result<u8> {
        self.header.codec_id()
    }

    /// Entry `j` of the bstarts table (which [`Chunk::layout`] checked to be in the source).
    fn bstarts(&self, j: usize) -> Result<i32> {
        le_i32(self.src, self.header.header_len() + 4 * j)
    }

    /// Where block `j` starts: anywhere inside the chunk but its first byte (C-Blosc2 allows
    /// any such offset; whatever is read there must then decode). Else [`Error::Data`].
    fn bstart(&self, j: usize) -> Result<usize> {
        let v = self.bstarts(j)?;
        if v <= 0 || v as usize >= self.buf.len() {
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

    /// The number of streams of block `j` (CHUNK.md §3.3, §8.1): the typesize when splitting,
    /// except for the leftover block.
    fn nstreams(&self, j: usize) -> usize {
        let h = &self.header;
        let leftover = self.bsize(j) != h.blocksize as usize;
        if h.dont_split() || leftover {
            return 1;
        }
        let ts = h.typesize as usize;
        if h.version <= 2 && (ts > 16 || (h.blocksize as usize) / ts < 128) {
            return 1;
        }
        ts
    }

    fn ddict(&self) -> Result<Option<DDict<'a>>> {
        match self.dict {
            None => Ok(None),
            Some(d) => Ok(Some(DDict::new(self.codec()?, d)?)),
        }
    }

    /// Fill `dest` (bytes `start..` of the chunk's data) with the special value. NaN chunks need
    /// typesize 4 or 8 and run-of-value chunks whole values in `dest`: else [`Error::Data`], as
    /// C-Blosc2 finds out when it fills a block (or a getitem range).
    fn fill_special(&self, sp: Special, dest: &mut [u8], start: usize) -> Result<()> {
        match sp {
            Special::Zero => dest.fill(0),
            Special::Uninit => {}
            Special::Nan => {
                let pat: &[u8] = match self.header.typesize {
                    4 => &[0x00, 0x00, 0xC0, 0x7F],
                    8 => &[0, 0, 0, 0, 0, 0, 0xF8, 0x7F],
                    ts => {
                        crate::trace_error!("Unsupported typesize {} for NaN", ts);
                        return Err(Error::Data);
                    }
                };
                if !dest.len().is_multiple_of(pat.len()) {
                    crate::trace_error!("set_nans failed: not a whole number of NaNs");
                    return Err(Error::Data);
                }
                fill_pattern(dest, pat, start);
            }
            Special::Value => {
                let pat = &self.buf[EXTENDED_HEADER_LENGTH..];
                if !dest.len().is_multiple_of(pat.len()) {
                    crate::trace_error!("set_values failed: not a whole number of values");
                    return Err(Error::Data);
                }
                fill_pattern(dest, pat, start);
            }
        }
        Ok(())
    }

    /// Block `j` of a special chunk through the postfilter `pf` into `out` (the block's
    /// length): `input` is filled with the special values (zeros for uninitialised ones) and
    /// handed to it as the decoded block.
    fn special_block_postfiltered(
        &self,
        sp: Special,
        pf: &crate::params::Postfilter,
        j: usize,
        input: &mut Vec<u8>,
        out: &mut [u8],
        dparams: &DParams,
    ) -> Result<()> {
        input.clear();
        input.resize(out.len(), 0);
        let start = j * self.header.blocksize as usize;
        if sp != Special::Uninit {
            self.fill_special(sp, input, start)?;
        }
        run_postfilter(pf, input, out, self, j, dparams)
    }

    /// Decode the streams of block `j` into `out` (exactly the block length). A stream is
    /// `i32 csize` + payload (CHUNK.md §3.4): not enough bytes for either is
    /// [`Error::ReadBuffer`]; a run needs its token with bit 0 set and a byte value
    /// ([`Error::RunLength`]); a codec stream must decode to exactly its length
    /// ([`Error::Data`]). A block too short for one byte per stream is [`Error::WriteBuffer`].
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
        if neblock == 0 {
            crate::trace_error!("Not enough space to write");
            return Err(Error::WriteBuffer);
        }
        // Bytes beyond whole streams (a block length that is not a multiple of the typesize)
        // belong to no stream: C-Blosc2 leaves them undefined.
        let (streams, tail) = out.split_at_mut(nstreams * neblock);
        tail.fill(0);
        let mut p = self.bstart(j)?;
        let info = StreamInfo {
            meta: self.header.compcode_meta,
            chunk: &self.buf[..self.header.header_len()],
            cparams: None,
            dparams: Some(dparams),
        };
        for piece in streams.chunks_exact_mut(neblock) {
            let csize = le_i32(self.buf, p).inspect_err(|_| {
                crate::trace_error!(
                    "Not enough input to read the size of a stream of block {}",
                    j
                );
            })?;
            p += 4;
            if csize == 0 {
                piece.fill(0);
            } else if csize < 0 {
                let Some(&token) = self.buf.get(p) else {
                    crate::trace_error!("Not enough input to read the run token of block {}", j);
                    return Err(Error::ReadBuffer);
                };
                p += 1;
                if token & 0x01 == 0 {
                    crate::trace_error!("Invalid or unsupported stream token value {:#x}", token);
                    return Err(Error::RunLength);
                }
                if csize < -255 {
                    crate::trace_error!("Invalid run length {}", csize);
                    return Err(Error::RunLength);
                }
                piece.fill((-csize) as u8);
            } else {
                let csize = csize as usize;
                let Some(stream) = self.buf.get(p..p + csize) else {
                    crate::trace_error!("Stream of block {} runs past the chunk end", j);
                    return Err(Error::ReadBuffer);
                };
                if csize == neblock {
                    piece.copy_from_slice(stream);
                } else {
                    codec.decompress(self.codec()?, stream, piece, dict, info)?;
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
            let Some(data) = self.buf.get(start..start + bsize) else {
                crate::trace_error!("Not enough input to copy block {}", j);
                return Err(Error::ReadBuffer);
            };
            dest.copy_from_slice(data);
            return self.postfilter(w, j, dest, dparams);
        }
        if self.header.instrumented() {
            // C-Blosc2 runs neither the filters nor the postfilter on the records.
            let (codec, ..) = w.buffers(0);
            return self.decode_streams(codec, j, dest, dict, dparams);
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
///
/// Patterns that divide 64 bytes are stored a 64-byte line at a time; others are written once
/// byte by byte, then the run is copied onto itself, doubling up to 64 KiB pieces (whole
/// patterns, so the phase holds). A division per byte made value chunks decode at 0.6 GB/s.
fn fill_pattern(dest: &mut [u8], pat: &[u8], start: usize) {
    const PIECE: usize = 1 << 16;
    let n = pat.len();
    let len = dest.len();
    if n == 0 || len == 0 {
        return;
    }
    if 64 % n == 0 {
        // the usual item sizes: 64-byte stores of one line of patterns (write-only, as fast
        // as C-Blosc2's per-item copies)
        let line: [u8; 64] = std::array::from_fn(|i| pat[(start + i) % n]);
        let mut lines = dest.chunks_exact_mut(64);
        for l in &mut lines {
            l.copy_from_slice(&line);
        }
        let rest = lines.into_remainder();
        let k = rest.len();
        rest.copy_from_slice(&line[..k]);
        return;
    }
    let head = n.min(len);
    for (i, d) in dest[..head].iter_mut().enumerate() {
        *d = pat[(start + i) % n];
    }
    let piece = (PIECE / n * n).max(n);
    // `filled` stays a whole number of patterns until the last, partial copy
    let mut filled = head;
    while filled < len {
        let take = filled.min(piece).min(len - filled);
        dest.copy_within(0..take, filled);
        filled += take;
    }
}

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
        let blocks: Vec<Mutex<&mut [u8]>> = area.chunks_mut(bs).map(Mutex::new).collect();
        let error: Mutex<Option<(usize, Error)>> = Mutex::new(None);
        parallel_for(nthreads, blocks.len(), &|k| {
            let j = j0 + k;
            if skip(j) {
                return;
            }
            let mut guard = blocks[k].lock().unwrap_or_else(|e| e.into_inner());
            let r =
                with_worker(|w| chunk.decode_block(w, j, &mut guard, dref, dict.as_ref(), dparams));
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
mod tests {
    //! The reading rules for malformed chunks (the C test `test_badinput.c` checks them against
    //! C-Blosc2 through the C API).
    use super::*;
    use crate::chunk::{compress, vlcompress};
    use crate::params::CParams;

    #[test]
    fn fill_pattern_equals_the_bytewise_repetition() {
        for n in [1usize, 2, 3, 4, 7, 8, 12, 16, 32, 64, 100, 4096, 65_537] {
            let pat: Vec<u8> = (0..n).map(|i| (i * 31 + 7) as u8).collect();
            for len in [0usize, 1, n - 1, n, n + 1, 3 * n + 2, 70_001, 200_000] {
                for start in [0, 1, n / 2, n + 3] {
                    let mut got = vec![0xEEu8; len];
                    fill_pattern(&mut got, &pat, start);
                    let want: Vec<u8> = (0..len).map(|i| pat[(start + i) % n]).collect();
                    assert!(got == want, "pattern {n}, length {len}, start {start}");
                }
            }
        }
    }

    #[test]
    fn special_chunks_filled_whole_or_by_blocks_alike() {
        use crate::chunk::special::special_chunk;
        let cparams = CParams {
            typesize: 4,
            blocksize: 64,
            ..CParams::default()
        };
        let v = 0x1234_5678u32.to_le_bytes();
        for (sp, value, want) in [
            (Special::Value, Some(&v[..]), v),
            (Special::Nan, None, [0x00, 0x00, 0xC0, 0x7F]),
        ] {
            let mut c = vec![0u8; 64];
            let n = special_chunk(&cparams, sp, 1000, value, &mut c).unwrap();
            let c = &c[..n];
            let nblocks = Header::parse(c).unwrap().nblocks();
            assert_eq!(nblocks, 16);
            let mask = vec![false; nblocks];
            for m in [None, Some(&mask[..])] {
                let mut out = vec![0u8; 1000];
                assert_eq!(decompress(&DParams::default(), c, &mut out, m), Ok(1000));
                assert!(out.chunks_exact(4).all(|x| x == want), "{sp:?} {m:?}");
            }
            // a block that is not a whole number of values fails either way
            let mut bad = c.to_vec();
            bad[8..12].copy_from_slice(&66i32.to_le_bytes());
            let mask = vec![false; Header::parse(&bad).unwrap().nblocks()];
            for m in [None, Some(&mask[..])] {
                let mut out = vec![0u8; 1000];
                assert_eq!(
                    decompress(&DParams::default(), &bad, &mut out, m),
                    Err(Error::Data)
                );
            }
        }
    }

    const N: usize = 100_000;

    fn ramp() -> Vec<u8> {
        (0..N / 4).flat_map(|i| (i as u32).to_le_bytes()).collect()
    }

    fn chunk_with(p: &CParams, src: &[u8]) -> Vec<u8> {
        let mut dst = vec![0u8; src.len() + 64];
        let n = compress(p, src, &mut dst).unwrap();
        dst.truncate(n);
        dst
    }

    fn regular() -> Vec<u8> {
        let p = CParams {
            typesize: 4,
            blocksize: 16384,
            ..CParams::default()
        };
        chunk_with(&p, &ramp())
    }

    fn set_i32(c: &mut [u8], at: usize, v: i32) {
        c[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    fn dec(c: &[u8]) -> Result<usize> {
        decompress(&DParams::default(), c, &mut vec![0u8; N + 64], None)
    }

    fn items(c: &[u8], start: i64, nitems: i64) -> Result<usize> {
        let span = Span::Items { start, nitems };
        getitem(&DParams::default(), c, span, &mut vec![0u8; N + 64])
    }

    #[test]
    fn negative_nbytes_decodes_to_nothing() {
        let mut c = regular();
        set_i32(&mut c, 4, -1);
        assert_eq!(dec(&c), Ok(0));
        assert_eq!(items(&c, 0, 1), Err(Error::InvalidParam));
        assert_eq!(items(&c, 0, 0), Ok(0));
    }

    #[test]
    fn blocks_too_short_for_their_streams() {
        let mut c = regular();
        // one byte, split in 4 streams
        set_i32(&mut c, 4, 1);
        assert_eq!(dec(&c), Err(Error::WriteBuffer));
        // a blocksize that is not a multiple of the typesize still splits
        let mut c = regular();
        set_i32(&mut c, 8, 16385);
        assert_eq!(items(&c, 5000, 100), Ok(400));
        assert_eq!(dec(&c), Err(Error::Data));
    }

    #[test]
    fn run_tokens_and_block_starts() {
        let p = CParams {
            typesize: 1,
            filters: [0; 6],
            ..CParams::default()
        };
        let c = chunk_with(&p, &[7u8; 1000]);
        assert_eq!((c.len(), c[40]), (41, 0x01), "one run stream");
        let mut out = vec![0u8; 1000];
        for (token, want) in [(0x03u8, Ok(1000)), (0x02, Err(Error::RunLength))] {
            let mut c = c.clone();
            c[40] = token;
            assert_eq!(decompress(&DParams::default(), &c, &mut out, None), want);
        }
        assert_eq!(out, [7u8; 1000]);
        // a block may start anywhere in the chunk but at its first byte
        let mut c2 = c.clone();
        c2.extend_from_slice(&[0xF9, 0xFF, 0xFF, 0xFF, 0x01]);
        set_i32(&mut c2, 12, 46);
        set_i32(&mut c2, 32, 41);
        assert_eq!(
            decompress(&DParams::default(), &c2, &mut out, None),
            Ok(1000)
        );
        for bad in [0, -1, 46] {
            set_i32(&mut c2, 32, bad);
            let r = decompress(&DParams::default(), &c2, &mut out, None);
            assert_eq!(r, Err(Error::Data), "{bad}");
        }
    }

    #[test]
    fn memcpyed_chunks() {
        let p = CParams {
            typesize: 4,
            clevel: 0,
            ..CParams::default()
        };
        let mut c = chunk_with(&p, &ramp());
        set_i32(&mut c, 12, 32);
        // decompression checks cbytes, getitem copies from the source
        assert_eq!(dec(&c), Err(Error::Data));
        assert_eq!(items(&c, 5000, 100), Ok(400));
        assert_eq!(items(&c[..20_100], 5000, 100), Err(Error::ReadBuffer));
    }

    #[test]
    fn special_chunks() {
        let mut c = regular();
        c[31] = 5 << 4;
        assert_eq!(dec(&c), Err(Error::Data));
        assert_eq!(items(&c, 0, 1), Err(Error::SchunkSpecial));
        // a repeated value that does not fill a block a whole number of times
        let p = CParams {
            typesize: 4,
            clevel: 0,
            ..CParams::default()
        };
        let mut c = chunk_with(&p, &ramp());
        c[31] = (Special::Value as u8) << 4;
        assert_eq!(dec(&c), Err(Error::Data));
        assert_eq!(items(&c, 0, 1), Err(Error::Data));
    }

    #[test]
    fn filter_ids_when_decoding() {
        for (id, want) in [
            (5u8, Error::Failure),
            (31, Error::Failure),
            (32, Error::Failure),
            (37, Error::FilterPipeline),
            (255, Error::FilterPipeline),
        ] {
            let mut c = regular();
            c[16] = id;
            assert_eq!(dec(&c), Err(want), "{id}");
        }
    }

    #[test]
    fn vl_block_tables() {
        let src = ramp();
        let sizes = [10_000usize, 20_000, 30_000, 30_000, 10_000];
        let mut blocks = Vec::new();
        let mut pos = 0;
        for s in sizes {
            blocks.push(&src[pos..pos + s]);
            pos += s;
        }
        let p = CParams {
            typesize: 4,
            ..CParams::default()
        };
        let mut c = vec![0u8; N + 200];
        let n = vlcompress(&p, &blocks, &mut c).unwrap();
        c.truncate(n);
        let dp = DParams::default();
        assert_eq!(vldecompress_block(&dp, &c, 2).unwrap(), blocks[2]);
        assert_eq!(vldecompress_block(&dp, &c, 5), Err(Error::InvalidParam));
        let b2 = i32::from_le_bytes(c[40..44].try_into().unwrap()) as usize;
        let b3 = i32::from_le_bytes(c[44..48].try_into().unwrap());
        for (at, v) in [
            (40, 0),
            (40, b3),
            (40, b3 + 1),
            (b2, 0),
            (b2, 29_999),
            (8, 4),
        ] {
            let mut bad = c.clone();
            set_i32(&mut bad, at, v);
            assert_eq!(
                vldecompress(&dp, &bad),
                Err(Error::InvalidHeader),
                "{at} {v}"
            );
            // the table is checked before the block index
            assert_eq!(vldecompress_block(&dp, &bad, 9), Err(Error::InvalidHeader));
            assert_eq!(dec(&bad), Err(Error::InvalidHeader));
        }
        let mut not_vl = c.clone();
        not_vl[30] = 0;
        assert_eq!(vldecompress(&dp, &not_vl), Err(Error::InvalidParam));
        assert_eq!(items(&c, 0, 1), Err(Error::InvalidParam));
    }
}
