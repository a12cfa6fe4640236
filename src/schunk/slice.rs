//! Reading and writing element ranges across chunks (`get/set_slice_buffer`,
//! `get_sparse_buffer`, `get_slice_nchunks`).

use super::{compress_chunk, Compressor, Op, Schunk, Store};
use crate::chunk;
use crate::error::{scratch_of, Error, Result};
use crate::frame::LockMode;
use crate::params::{CParams, DParams};

/// Where each chunk starts (in uncompressed bytes).
pub(super) enum Layout {
    /// Every chunk but the last has `chunksize` bytes.
    Fixed(i64),
    /// Start offset, size and number of each chunk that holds bytes of the range asked for
    /// (empty chunks are left out: they hold no position).
    Var(Vec<(i64, i64, usize)>),
}

impl Layout {
    /// The chunk holding byte `pos` (in the range of [`Schunk::layout`]) and its start (for a
    /// damaged super-chunk whose chunks end before `pos`: the last one, or chunk 0 at 0, which
    /// the callers find too short).
    fn locate(&self, pos: i64) -> (usize, i64) {
        match self {
            Layout::Fixed(c) => ((pos / c) as usize, pos / c * c),
            Layout::Var(v) if v.is_empty() => (0, 0),
            Layout::Var(v) => {
                let i = v.partition_point(|&(s, _, _)| s <= pos).saturating_sub(1);
                (v[i].2, v[i].0)
            }
        }
    }
}

impl Schunk {
    /// Where the chunks holding the bytes `from..upto` start. With chunks of varying sizes
    /// only the chunks up to the one holding byte `upto - 1` are measured (a slice near the
    /// start of a frame of a million chunks reads a few chunk headers, not a million), and
    /// only those holding bytes of the range are kept (a slice near the end of a frame of
    /// 2^28 chunks keeps a few places, not gigabytes of them). A chunk that cannot be read
    /// ends the walk with its error (the chunks after it have no known place), instead of
    /// counting as empty and reading on (a damaged frame of a million missing chunks took
    /// seconds).
    pub(super) fn layout(&self, from: i64, upto: i64) -> Result<Layout> {
        if self.chunksize > 0 {
            return Ok(Layout::Fixed(self.chunksize as i64));
        }
        let mut v = Vec::new();
        let mut pos = 0i64;
        match &self.store {
            Store::Memory(chunks) => {
                for (n, c) in chunks.iter().enumerate() {
                    if pos >= upto {
                        break;
                    }
                    let nb = c.nbytes as i64;
                    if nb > 0 && pos + nb > from {
                        v.push((pos, nb, n));
                    }
                    pos += nb.max(0);
                }
            }
            Store::Frame(f) => {
                // chunks stored once and referenced many times (the same offset) are measured
                // once
                let mut last: Option<(i64, i64)> = None;
                f.walk_offsets(0, |n, off| {
                    if pos >= upto {
                        return Ok(false);
                    }
                    let nb = match last {
                        Some((o, nb)) if o == off => nb,
                        _ => {
                            let nb = self.chunk_nbytes(n)? as i64;
                            last = Some((off, nb));
                            nb
                        }
                    };
                    if nb > 0 && pos + nb > from {
                        v.push((pos, nb, n as usize));
                    }
                    pos += nb.max(0);
                    Ok(true)
                })?;
            }
        }
        Ok(Layout::Var(v))
    }

    /// Byte range of the items `[start, stop)`; `None` when empty.
    fn byte_range(&self, start: i64, stop: i64) -> Result<Option<(i64, i64)>> {
        let ts = self.typesize() as i64;
        if start >= stop {
            // nothing to do, whatever the signs (as C-Blosc2)
            return Ok(None);
        }
        if start < 0 || ts <= 0 {
            crate::trace_error!("`start` must be non-negative");
            return Err(Error::InvalidParam);
        }
        let (Some(bstart), Some(bstop)) = (start.checked_mul(ts), stop.checked_mul(ts)) else {
            return Err(Error::InvalidParam);
        };
        if bstop > self.nbytes {
            crate::trace_error!(
                "`stop` ({}) is beyond the end of the super-chunk ({} items)",
                stop,
                self.nbytes / ts
            );
            return Err(Error::InvalidParam);
        }
        Ok(Some((bstart, bstop)))
    }

    /// Decode the items `[start, stop)` into `dst` (which must hold them) with `dparams`
    /// (under the shared frame lock when locking is on, held for the whole slice).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// let mut out = [0u8; 8];
    /// sc.get_slice_with(&DParams { nthreads: 2, ..DParams::default() }, 999, 1001, &mut out).unwrap();
    /// assert_eq!(out[..4], 999u32.to_le_bytes());
    /// assert_eq!(out[4..], 1000u32.to_le_bytes());
    /// ```
    pub fn get_slice_with(
        &mut self,
        dparams: &DParams,
        start: i64,
        stop: i64,
        dst: &mut [u8],
    ) -> Result<()> {
        self.locked_read(|s| s.get_slice_unlocked(dparams, start, stop, dst))
    }

    fn get_slice_unlocked(
        &mut self,
        dparams: &DParams,
        start: i64,
        stop: i64,
        dst: &mut [u8],
    ) -> Result<()> {
        let Some((bstart, bstop)) = self.byte_range(start, stop)? else {
            return Ok(());
        };
        if (dst.len() as i64) < bstop - bstart {
            crate::trace_error!("The buffer is too small for the slice");
            return Err(Error::InvalidParam);
        }
        let layout = self.layout(bstart, bstop)?;
        let mut pos = bstart;
        let mut scratch = Vec::new();
        while pos < bstop {
            let (i, cstart) = layout.locate(pos);
            let nb = self.chunk_nbytes(i as i64)? as i64;
            let off = pos - cstart;
            let len = (nb - off).min(bstop - pos);
            if len <= 0 {
                // a (damaged) chunk shorter than its place in the super-chunk: the range lies
                // past its end, which getitem refuses
                crate::trace_error!("Chunk {} ends before the slice position", i);
                return Err(Error::InvalidParam);
            }
            let d = &mut dst[(pos - bstart) as usize..(pos - bstart + len) as usize];
            let mut dp = dparams.clone();
            dp.nchunk = i as i64;
            self.attach_plugin_dparams(&mut dp);
            self.current_nchunk = i as i64;
            let src = self.get_chunk(i as i64)?;
            if off == 0 && len == nb {
                chunk::decompress(&dp, &src, d, None)?;
            } else if self.is_vlblocks() {
                // calloc'd (untouched until decoded) and fallible: the size comes from the
                // chunk, which may be damaged
                scratch_of(&mut scratch, nb as usize)?;
                chunk::decompress(&dp, &src, &mut scratch, None)?;
                d.copy_from_slice(&scratch[off as usize..(off + len) as usize]);
            } else {
                chunk::getitem_bytes(&dp, &src, off as usize, len as usize, d)?;
            }
            pos += len;
        }
        Ok(())
    }

    /// Decode the items `[start, stop)` into `dst` with the super-chunk's parameters.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// // items 1998..2002 span chunks 1 and 2
    /// let mut out = [0u8; 16];
    /// sc.get_slice(1998, 2002, &mut out).unwrap();
    /// let items: Vec<u32> = out.chunks(4).map(|b| u32::from_le_bytes(b.try_into().unwrap())).collect();
    /// assert_eq!(items, [1998, 1999, 2000, 2001]);
    /// assert!(sc.get_slice(2999, 3001, &mut out[..8]).is_err());
    /// ```
    pub fn get_slice(&mut self, start: i64, stop: i64, dst: &mut [u8]) -> Result<()> {
        let dp = self.dparams.clone();
        self.get_slice_with(&dp, start, stop, dst)
    }

    /// Overwrite the items `[start, stop)` with `src`, recompressing the chunks concerned with
    /// `compress` (chunks partly covered are decoded with `dparams` first), under the exclusive
    /// frame lock when locking is on, held for the whole slice.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// use b2rs::chunk;
    ///
    /// let cparams = sc.cparams().clone();
    /// let new: Vec<u8> = [7u32, 8].iter().flat_map(|v| v.to_le_bytes()).collect();
    /// let mut recompressed = Vec::new();
    /// sc.set_slice_by(
    ///     &mut |n, src| {
    ///         recompressed.push(n);
    ///         let mut buf = vec![0u8; src.len() + chunk::header::MAX_OVERHEAD];
    ///         let len = chunk::compress(&cparams, src, &mut buf)?;
    ///         buf.truncate(len);
    ///         Ok(buf)
    ///     },
    ///     &DParams::default(),
    ///     999,
    ///     1001,
    ///     &new,
    /// )
    /// .unwrap();
    /// assert_eq!(recompressed, [0, 1]);
    /// let mut out = [0u8; 8];
    /// sc.get_slice(999, 1001, &mut out).unwrap();
    /// assert_eq!(out, new[..]);
    /// ```
    pub fn set_slice_by(
        &mut self,
        compress: &mut Compressor<'_>,
        dparams: &DParams,
        start: i64,
        stop: i64,
        src: &[u8],
    ) -> Result<()> {
        self.locked(LockMode::Exclusive, |s| {
            s.set_slice_unlocked(compress, dparams, start, stop, src)
        })
    }

    fn set_slice_unlocked(
        &mut self,
        compress: &mut Compressor<'_>,
        dparams: &DParams,
        start: i64,
        stop: i64,
        src: &[u8],
    ) -> Result<()> {
        let Some((bstart, bstop)) = self.byte_range(start, stop)? else {
            return Ok(());
        };
        if self.is_vlblocks() {
            crate::trace_error!("Slices cannot be set in super-chunks of VL-block chunks");
            return Err(Error::InvalidParam);
        }
        if (src.len() as i64) < bstop - bstart {
            crate::trace_error!("The buffer is too small for the slice");
            return Err(Error::InvalidParam);
        }
        let layout = self.layout(bstart, bstop)?;
        let mut pos = bstart;
        let mut scratch = Vec::new();
        while pos < bstop {
            let (i, cstart) = layout.locate(pos);
            let nb = self.chunk_nbytes(i as i64)? as i64;
            let off = pos - cstart;
            let len = (nb - off).min(bstop - pos);
            if len <= 0 {
                crate::trace_error!("Chunk {} ends before the slice position", i);
                return Err(Error::InvalidParam);
            }
            let s = &src[(pos - bstart) as usize..(pos - bstart + len) as usize];
            let new = if off == 0 && len == nb {
                compress(i as i64, s)?
            } else {
                scratch_of(&mut scratch, nb as usize)?;
                let mut dp = dparams.clone();
                dp.nchunk = i as i64;
                self.attach_plugin_dparams(&mut dp);
                chunk::decompress(&dp, &self.get_chunk(i as i64)?, &mut scratch, None)?;
                scratch[off as usize..(off + len) as usize].copy_from_slice(s);
                compress(i as i64, &scratch)?
            };
            self.place(new, Op::Update(i))?;
            pos += len;
        }
        Ok(())
    }

    /// Overwrite the items `[start, stop)` with `src`, recompressing with `cparams`.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// use b2rs::codecs;
    ///
    /// let zstd = CParams { compcode: codecs::ZSTD, typesize: 4, ..CParams::default() };
    /// sc.set_slice_with(&zstd, &DParams::default(), 0, 1, &42u32.to_le_bytes()).unwrap();
    /// let header = b2rs::chunk::Header::parse(&sc.get_chunk(0).unwrap()).unwrap();
    /// assert_eq!(header.codec_id(), Ok(codecs::ZSTD));
    /// let mut out = [0u8; 4];
    /// sc.get_slice(0, 1, &mut out).unwrap();
    /// assert_eq!(u32::from_le_bytes(out), 42);
    /// ```
    pub fn set_slice_with(
        &mut self,
        cparams: &CParams,
        dparams: &DParams,
        start: i64,
        stop: i64,
        src: &[u8],
    ) -> Result<()> {
        let cparams = self.plugin_cparams(cparams);
        self.set_slice_by(
            &mut |n, s| compress_chunk(&cparams, n, s),
            dparams,
            start,
            stop,
            src,
        )
    }

    /// Overwrite the items `[start, stop)` with `src`, with the super-chunk's parameters.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// sc.set_slice(2500, 2501, &7u32.to_le_bytes()).unwrap();
    /// let mut out = [0u8; 12];
    /// sc.get_slice(2499, 2502, &mut out).unwrap();
    /// assert_eq!(out[4..8], 7u32.to_le_bytes());
    /// assert_eq!(out[8..], 2501u32.to_le_bytes());
    /// ```
    pub fn set_slice(&mut self, start: i64, stop: i64, src: &[u8]) -> Result<()> {
        let (cp, dp) = (self.cparams.clone(), self.dparams.clone());
        self.set_slice_with(&cp, &dp, start, stop, src)
    }

    /// Decode the items at `coords` into `dst` (`coords.len()` items, in order).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// let mut out = [0u8; 12];
    /// sc.get_sparse_with(&DParams::default(), &[2999, 5, 1500], &mut out).unwrap();
    /// let items: Vec<u32> = out.chunks(4).map(|b| u32::from_le_bytes(b.try_into().unwrap())).collect();
    /// assert_eq!(items, [2999, 5, 1500]);
    /// ```
    pub fn get_sparse_with(
        &mut self,
        dparams: &DParams,
        coords: &[i64],
        dst: &mut [u8],
    ) -> Result<()> {
        let ts = self.typesize() as i64;
        let nitems = if ts > 0 { self.nbytes / ts } else { 0 };
        if coords.iter().any(|&c| c < 0 || c >= nitems) {
            crate::trace_error!("Coordinate out of bounds");
            return Err(Error::InvalidParam);
        }
        if (dst.len() as i64) < coords.len() as i64 * ts {
            crate::trace_error!("The buffer is too small for the coordinates");
            return Err(Error::InvalidParam);
        }
        let from = coords.iter().min().map_or(0, |&c| c * ts);
        let upto = coords.iter().max().map_or(0, |&c| (c + 1) * ts);
        let layout = self.layout(from, upto)?;
        // Visit the coordinates chunk by chunk; decode a chunk whole when it serves several.
        let mut order: Vec<(usize, i64, usize)> = coords
            .iter()
            .enumerate()
            .map(|(k, &c)| {
                let (i, s) = layout.locate(c * ts);
                (i, c * ts - s, k)
            })
            .collect();
        order.sort_unstable();
        let mut scratch = Vec::new();
        let ts = ts as usize;
        let mut g = 0;
        while g < order.len() {
            let i = order[g].0;
            let end = g + order[g..].iter().take_while(|e| e.0 == i).count();
            let mut dp = dparams.clone();
            dp.nchunk = i as i64;
            self.attach_plugin_dparams(&mut dp);
            self.current_nchunk = i as i64;
            let src = self.get_chunk(i as i64)?;
            if end - g == 1 && !self.is_vlblocks() {
                let (_, off, k) = order[g];
                chunk::getitem_bytes(&dp, &src, off as usize, ts, &mut dst[k * ts..(k + 1) * ts])?;
            } else {
                scratch_of(&mut scratch, self.chunk_nbytes(i as i64)? as usize)?;
                chunk::decompress(&dp, &src, &mut scratch, None)?;
                for &(_, off, k) in &order[g..end] {
                    let off = off as usize;
                    dst[k * ts..(k + 1) * ts].copy_from_slice(&scratch[off..off + ts]);
                }
            }
            g = end;
        }
        Ok(())
    }

    /// The chunk numbers holding the items `[start, stop)`.
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // 3 chunks of 1000 u32 items: item i holds i
    /// # let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// # for n in 0..3u32 {
    /// #     let chunk: Vec<u8> = (0..1000u32).flat_map(|i| (n * 1000 + i).to_le_bytes()).collect();
    /// #     sc.append_buffer(&chunk).unwrap();
    /// # }
    /// assert_eq!(sc.slice_nchunks(500, 2500).unwrap(), [0, 1, 2]);
    /// assert_eq!(sc.slice_nchunks(1000, 2000).unwrap(), [1]);
    /// ```
    pub fn slice_nchunks(&self, start: i64, stop: i64) -> Result<Vec<i64>> {
        let Some((bstart, bstop)) = self.byte_range(start, stop)? else {
            return Ok(Vec::new());
        };
        let layout = self.layout(bstart, bstop)?;
        let first = layout.locate(bstart).0 as i64;
        let last = layout.locate(bstop - 1).0 as i64;
        Ok((first..=last).collect())
    }
}
