//! Chunk operations of a super-chunk: reading, admitting, appending, inserting, updating,
//! deleting and reordering chunks, special fills and decompression.

use super::checksum::Change;
use super::*;

impl Schunk {
    /// The in-memory bytes of chunk `n` (`None` out of range or when not held in memory). The
    /// slice stays at the same address until the chunk is updated or deleted.
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
    /// let c = sc.stored_chunk(0).unwrap();
    /// assert_eq!(b2rs::chunk::Header::parse(c).unwrap().nbytes, 4000);
    /// assert!(sc.stored_chunk(3).is_none());
    /// ```
    pub fn stored_chunk(&self, n: usize) -> Option<&[u8]> {
        match &self.store {
            Store::Memory(v) => v.get(n).map(Stored::bytes),
            Store::Frame(_) => None,
        }
    }

    /// The address of [`stored_chunk`](Self::stored_chunk)`(n)`, read without touching the
    /// chunk (for a mirror of the addresses of all chunks).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// let mut sc = Schunk::new(CParams::default(), DParams::default());
    /// sc.append_buffer(&[1u8; 100]).unwrap();
    /// assert_eq!(sc.stored_chunk_addr(0), sc.stored_chunk(0).map(|c| c.as_ptr()));
    /// assert_eq!(sc.stored_chunk_addr(1), None);
    /// ```
    pub fn stored_chunk_addr(&self, n: usize) -> Option<*const u8> {
        match &self.store {
            Store::Memory(v) => v.get(n).map(|c| c.addr as *const u8),
            Store::Frame(_) => None,
        }
    }

    pub(super) fn index(&self, n: i64) -> Result<usize> {
        if n < 0 || n >= self.nchunks() {
            crate::trace_error!(
                "nchunk ('{}') exceeds the number of chunks ('{}') in super-chunk",
                n,
                self.nchunks()
            );
            return Err(Error::InvalidParam);
        }
        Ok(n as usize)
    }

    /// The uncompressed size of chunk `n`.
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
    /// use b2rs::Error;
    ///
    /// assert_eq!(sc.chunk_nbytes(2), Ok(4000));
    /// assert!(sc.chunk_nbytes(3).is_err());
    /// ```
    pub fn chunk_nbytes(&self, n: i64) -> Result<i32> {
        let i = self.index(n)?;
        match &self.store {
            Store::Memory(v) => Ok(v[i].nbytes),
            Store::Frame(f) => Ok(Header::sizes(&f.get_chunk(i as i64)?)?.0),
        }
    }

    /// The stored bytes of chunk `n` (exactly its `cbytes`): borrowed for chunks held in
    /// memory or in an in-memory frame, owned when read from a file or synthesised (special
    /// chunks of frames).
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
    /// let c = sc.get_chunk(1).unwrap();
    /// let mut out = vec![0u8; 4000];
    /// chunk::decompress(&DParams::default(), &c, &mut out, None).unwrap();
    /// assert_eq!(out[..4], 1000u32.to_le_bytes());
    /// assert!(sc.get_chunk(5).is_err());
    /// ```
    pub fn get_chunk(&self, n: i64) -> Result<Cow<'_, [u8]>> {
        let i = self.index(n)?;
        match &self.store {
            Store::Memory(v) => Ok(Cow::Borrowed(v[i].bytes())),
            Store::Frame(f) => f.get_chunk(i as i64),
        }
    }

    /// Chunk `n` as C-Blosc2's `blosc2_schunk_get_lazychunk` hands it out: a lazy chunk for a
    /// frame on disk ([`Frame::get_lazychunk`]), else the whole chunk.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// sc.append_buffer(&[7u8; 4000]).unwrap();
    /// // in memory: the whole chunk
    /// assert_eq!(sc.get_lazychunk(0).unwrap(), sc.get_chunk(0).unwrap());
    /// ```
    pub fn get_lazychunk(&self, n: i64) -> Result<Cow<'_, [u8]>> {
        let i = self.index(n)?;
        match &self.store {
            Store::Memory(v) => Ok(Cow::Borrowed(v[i].bytes())),
            Store::Frame(f) => f.get_lazychunk(i as i64),
        }
    }

    /// Chunk `n` with only what decoding `blocks` needs read from a frame on disk (see
    /// [`Frame::get_chunk_blocks`]); the whole chunk otherwise.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// sc.append_buffer(&[7u8; 4000]).unwrap();
    /// assert_eq!(sc.get_chunk_blocks(0, &[0]).unwrap(), sc.get_chunk(0).unwrap());
    /// ```
    pub fn get_chunk_blocks(&self, n: i64, blocks: &[usize]) -> Result<Cow<'_, [u8]>> {
        let i = self.index(n)?;
        match &self.store {
            Store::Memory(v) => Ok(Cow::Borrowed(v[i].bytes())),
            Store::Frame(f) => f.get_chunk_blocks(i as i64, blocks),
        }
    }

    /// Whether the chunks are read from storage (a frame file or directory) rather than
    /// memory.
    pub(crate) fn on_disk(&self) -> bool {
        matches!(&self.store, Store::Frame(f) if f.as_bytes().is_none())
    }

    /// Check that a chunk with header `h` may be placed by `op`; returns the new `chunksize`.
    pub(super) fn admit(&self, h: &Header, op: Op) -> Result<i32> {
        let n = self.nchunks() as usize;
        let others = if matches!(op, Op::Update(_)) {
            n - 1
        } else {
            n
        };
        if others > 0 && h.is_vlblocks() != self.is_vlblocks() {
            crate::trace_error!(
                "VL-block chunks and regular chunks cannot be mixed in a super-chunk"
            );
            return Err(op.error());
        }
        let nb = h.nbytes;
        let last_nbytes = |s: &Self| match &s.store {
            Store::Memory(v) => v.last().map(|c| c.nbytes),
            Store::Frame(_) => s.chunk_nbytes(n as i64 - 1).ok(),
        };
        // C-Blosc2 3.3's rules (schunk.c): after a short last chunk, or for a larger chunk,
        // sizes become variable; a first chunk larger than a preset chunk size is refused.
        Ok(match self.chunksize {
            -1 => nb,
            0 => 0,
            c => {
                let short_last = |s: &Self| last_nbytes(s).is_some_and(|l| l < c);
                let variable = match op {
                    // the chunk size of chunks since deleted binds nothing (README)
                    Op::Append | Op::Insert(_) if n == 0 && self.emptied => return Ok(nb),
                    Op::Append | Op::Insert(_) if n == 0 => {
                        if nb > c {
                            crate::trace_error!(
                                "Appending chunks that have different lengths in the same \
                                 schunk is not supported yet: {} > {}",
                                nb,
                                c
                            );
                            return Err(op.error());
                        }
                        false
                    }
                    Op::Append => nb > c || short_last(self),
                    Op::Insert(i) => nb > c || short_last(self) || (i != n && nb != c),
                    Op::Update(i) => nb > c || (i + 1 < n && nb < c),
                };
                if variable {
                    0
                } else {
                    c
                }
            }
        })
    }

    pub(super) fn place_unlocked(&mut self, chunk: impl IntoChunk, op: Op) -> Result<i64> {
        let h = check_chunk(chunk.bytes())?;
        let n = self.nchunks() as usize;
        match op {
            Op::Insert(i) if i > n => return Err(Error::InvalidParam),
            Op::Update(i) if i >= n => return Err(Error::InvalidParam),
            _ => {}
        }
        let chunksize = self.admit(&h, op)?;
        self.emptied = false;
        if let Store::Frame(f) = &mut self.store {
            let bytes = &chunk.bytes()[..h.cbytes as usize];
            let r = match op {
                Op::Append => f.append_chunk(bytes),
                Op::Insert(i) => f.insert_chunk(i as i64, bytes),
                Op::Update(i) => f.update_chunk(i as i64, bytes),
            };
            self.current_nchunk = match op {
                Op::Append => n as i64,
                Op::Insert(i) | Op::Update(i) => i as i64,
            };
            self.sync_counters();
            r?;
            // The frame keeps its own copy: a chunk handed over is released now.
            drop(chunk.into_stored());
            return Ok(self.nchunks());
        }
        let stored = Stored::new(chunk.into_stored(), h.nbytes, h.cbytes);
        let others = if matches!(op, Op::Update(_)) {
            n - 1
        } else {
            n
        };
        match &mut self.store {
            Store::Memory(v) => match op {
                Op::Append => {
                    v.try_reserve(1).map_err(|_| Error::MemoryAlloc)?;
                    self.current_nchunk = n as i64;
                    v.push(stored);
                }
                Op::Insert(i) => {
                    v.try_reserve(1).map_err(|_| Error::MemoryAlloc)?;
                    self.current_nchunk = i as i64;
                    v.insert(i, stored);
                }
                Op::Update(i) => {
                    self.current_nchunk = i as i64;
                    let old = std::mem::replace(&mut v[i], stored);
                    self.nbytes -= old.nbytes as i64;
                    self.cbytes -= counted_cbytes(&old);
                }
            },
            Store::Frame(_) => unreachable!("frames are handled above"),
        }
        self.nbytes += h.nbytes as i64;
        self.cbytes += h.cbytes as i64;
        self.chunksize = chunksize;
        if others == 0 {
            self.flags2 = h.blosc2_flags2;
        }
        Ok(self.nchunks())
    }

    /// Append a chunk; returns the new number of chunks.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{chunk, CParams, DParams};
    ///
    /// let cparams = CParams { typesize: 1, ..CParams::default() };
    /// let mut buf = vec![0u8; 600];
    /// let n = chunk::compress(&cparams, &[3u8; 500], &mut buf).unwrap();
    /// let mut sc = Schunk::new(cparams, DParams::default());
    /// assert_eq!(sc.append_chunk(&buf[..n]).unwrap(), 1);
    /// assert_eq!(sc.append_chunk(&buf[..n]).unwrap(), 2);
    /// // not a chunk
    /// assert!(sc.append_chunk(&[1u8, 2, 3][..]).is_err());
    /// ```
    pub fn append_chunk(&mut self, chunk: impl IntoChunk) -> Result<i64> {
        self.place(chunk, Op::Append)
    }

    /// Insert a chunk at position `n` (`0..=nchunks`); returns the new number of chunks.
    ///
    /// Chunks move between super-chunks as bytes ([`Schunk::get_chunk`]), without recompression:
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let mut sc = Schunk::new(CParams { typesize: 1, ..CParams::default() }, DParams::default());
    /// for b in [b'a', b'b', b'c'] {
    ///     sc.append_buffer(&[b; 1000]).unwrap();
    /// }
    /// let c = sc.get_chunk(2).unwrap().into_owned();
    /// assert_eq!(sc.insert_chunk(0, c).unwrap(), 4); // c a b c
    /// assert_eq!(sc.delete_chunk(1).unwrap(), 3); // c b c
    /// let mut other = Schunk::new(CParams { typesize: 1, ..CParams::default() }, DParams::default());
    /// other.append_buffer(&[b'z'; 1000]).unwrap();
    /// sc.update_chunk(1, other.get_chunk(0).unwrap().into_owned()).unwrap(); // c z c
    ///
    /// let mut out = vec![0u8; 3000];
    /// sc.get_slice(0, 3000, &mut out).unwrap();
    /// assert_eq!((out[0], out[1500], out[2999]), (b'c', b'z', b'c'));
    /// ```
    pub fn insert_chunk(&mut self, n: i64, chunk: impl IntoChunk) -> Result<i64> {
        if n < 0 || n > self.nchunks() {
            crate::trace_error!(
                "nchunk ('{}') exceeds the number of chunks ('{}') in super-chunk",
                n,
                self.nchunks()
            );
            return Err(Error::InvalidParam);
        }
        self.place(chunk, Op::Insert(n as usize))
    }

    /// Replace chunk `n`; returns the number of chunks.
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
    /// let mut buf = vec![0u8; 4100];
    /// let n = chunk::compress(sc.cparams(), &[0u8; 4000], &mut buf).unwrap();
    /// assert_eq!(sc.update_chunk(1, &buf[..n]).unwrap(), 3);
    /// let mut out = vec![1u8; 4000];
    /// sc.decompress_chunk(1, &mut out).unwrap();
    /// assert!(out.iter().all(|&b| b == 0));
    /// ```
    pub fn update_chunk(&mut self, n: i64, chunk: impl IntoChunk) -> Result<i64> {
        let i = self.index(n)?;
        self.place(chunk, Op::Update(i))
    }

    /// Delete chunk `n`; returns the new number of chunks.
    pub(super) fn delete_chunk_unlocked(&mut self, n: i64) -> Result<i64> {
        let i = self.index(n)?;
        match &mut self.store {
            Store::Memory(v) => {
                let old = v.remove(i);
                self.nbytes -= old.nbytes as i64;
                self.cbytes -= counted_cbytes(&old);
                self.emptied = v.is_empty();
            }
            Store::Frame(f) => {
                let r = f.delete_chunk(i as i64);
                self.sync_counters();
                r?;
                self.emptied = self.nchunks() == 0;
            }
        }
        self.current_nchunk = i as i64;
        if self.nchunks() == 0 {
            self.flags2 = 0;
        }
        Ok(self.nchunks())
    }

    /// Reorder the chunks: the new chunk `i` is the old chunk `order[i]`. `order` must be a
    /// permutation of `0..nchunks`.
    pub(super) fn reorder_offsets_unlocked(&mut self, order: &[i64]) -> Result<()> {
        let n = self.nchunks() as usize;
        let mut seen = vec![false; n];
        if order.len() != n {
            crate::trace_error!("The order must have one entry per chunk");
            return Err(Error::Data);
        }
        for &o in order {
            if o < 0 || o as usize >= n || seen[o as usize] {
                crate::trace_error!("Index is repeated or out of range in offsets_order");
                return Err(Error::Data);
            }
            seen[o as usize] = true;
        }
        match &mut self.store {
            Store::Memory(v) => {
                let mut old: Vec<Option<Stored>> = v.drain(..).map(Some).collect();
                for &o in order {
                    if let Some(c) = old[o as usize].take() {
                        v.push(c);
                    }
                }
            }
            Store::Frame(f) => {
                let r = f.reorder_offsets(order);
                self.sync_counters();
                return r;
            }
        }
        // A smaller chunk that is no longer the last one makes the sizes variable.
        if self.chunksize > 0 {
            let c = self.chunksize;
            let ok = match &self.store {
                Store::Memory(v) => v
                    .iter()
                    .enumerate()
                    .all(|(i, s)| s.nbytes == c || (i + 1 == n && s.nbytes <= c)),
                Store::Frame(_) => true,
            };
            if !ok {
                self.chunksize = 0;
            }
        }
        Ok(())
    }

    /// Decompress chunk `n` into `dst` with `dparams` (chunk number handed to the postfilter:
    /// `n`), skipping the blocks set in `maskout`. `dst` must hold the whole chunk. Returns the
    /// chunk's uncompressed size.
    pub(super) fn decompress_chunk_with_unlocked(
        &mut self,
        dparams: &DParams,
        n: i64,
        dst: &mut [u8],
        maskout: Option<&[bool]>,
    ) -> Result<usize> {
        self.current_nchunk = n;
        let i = self.index(n)?;
        let src = self.get_chunk(i as i64)?;
        let nb = Header::sizes(&src)?.0 as usize;
        if dst.len() < nb {
            crate::trace_error!(
                "Buffer size is too small for the decompressed buffer ('{}' bytes, but '{}' are needed)",
                dst.len(),
                nb
            );
            // C-Blosc2's codes: -12 in memory, -6 from a frame
            return Err(match self.store {
                Store::Memory(_) => Error::InvalidParam,
                Store::Frame(_) => Error::WriteBuffer,
            });
        }
        let mut dp = dparams.clone();
        dp.nchunk = n;
        self.attach_plugin_dparams(&mut dp);
        let got = chunk::decompress(&dp, &src, dst, maskout)?;
        if got != nb {
            crate::trace_error!("Error in decompressing chunk");
            return Err(Error::Failure);
        }
        Ok(got)
    }

    /// Decompress chunk `n` into `dst` with the super-chunk's parameters.
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
    /// let mut out = vec![0u8; 4000];
    /// assert_eq!(sc.decompress_chunk(2, &mut out).unwrap(), 4000);
    /// assert_eq!(out[4 * 999..], 2999u32.to_le_bytes());
    /// // a destination too small
    /// assert!(sc.decompress_chunk(2, &mut out[..100]).is_err());
    /// ```
    pub fn decompress_chunk(&mut self, n: i64, dst: &mut [u8]) -> Result<usize> {
        let dp = self.dparams.clone();
        self.decompress_chunk_with(&dp, n, dst, None)
    }

    /// Decompress block `nblock` of the VL-block chunk `n`.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{chunk, CParams, DParams};
    ///
    /// let cparams = CParams { typesize: 1, ..CParams::default() };
    /// let mut sc = Schunk::new(cparams.clone(), DParams::default());
    /// let mut buf = vec![0u8; 256];
    /// let n = chunk::vlcompress(&cparams, &[b"block zero", b"block one"], &mut buf).unwrap();
    /// sc.append_chunk(&buf[..n]).unwrap();
    /// assert_eq!(sc.get_vlblock(0, 1).unwrap(), b"block one");
    /// assert!(sc.get_vlblock(0, 2).is_err());
    /// ```
    pub fn get_vlblock(&self, n: i64, nblock: i32) -> Result<Vec<u8>> {
        let src = self.get_chunk(n)?;
        let Ok(nblock) = usize::try_from(nblock) else {
            crate::trace_error!("VL block {} out of range", nblock);
            return Err(Error::InvalidParam);
        };
        let mut dp = self.dparams.clone();
        dp.nchunk = n;
        self.attach_plugin_dparams(&mut dp);
        chunk::decompress::vldecompress_block(&dp, &src, nblock)
    }

    /// Fill an empty super-chunk with `nitems` elements of a special value (zeros, NaNs or
    /// uninitialised) in chunks of `chunksize` bytes (the last one may be shorter). Returns the
    /// number of chunks.
    pub(super) fn fill_special_unlocked(
        &mut self,
        nitems: i64,
        special: i32,
        chunksize: i32,
    ) -> Result<i64> {
        if nitems < 0 || chunksize <= 0 {
            crate::trace_error!("`nitems` must be non-negative and `chunksize` positive");
            return Err(Error::InvalidParam);
        }
        // checked before the value and the sizes, as C-Blosc2 does
        if self.nbytes > 0 || self.cbytes > 0 || self.nchunks() > 0 {
            crate::trace_error!("Filling with special values only works on empty super-chunks");
            return Err(Error::FrameSpecial);
        }
        let kind = match special {
            1 => Special::Zero,
            2 => Special::Nan,
            4 => Special::Uninit,
            _ => {
                crate::trace_error!("Only zeros, NaNs or non-initialized values are supported");
                return Err(Error::SchunkSpecial);
            }
        };
        let typesize = self.cparams.typesize;
        if typesize <= 0 || chunksize % typesize != 0 || chunksize > MAX_BUFFERSIZE {
            crate::trace_error!("`chunksize` must be a multiple of typesize and <= the maximum");
            return Err(Error::SchunkSpecial);
        }
        if nitems == 0 {
            return Ok(0);
        }
        if let Store::Frame(f) = &mut self.store {
            let r = f.fill_special(nitems, kind, chunksize);
            self.sync_counters();
            r?;
            return Ok(self.nchunks());
        }
        let chunkitems = (chunksize / typesize) as i64;
        let nfull = nitems / chunkitems;
        let leftover = nitems % chunkitems;
        if nfull + (leftover > 0) as i64 > i32::MAX as i64 {
            crate::trace_error!("nitems is too large.  Try increasing the chunksize.");
            return Err(Error::SchunkSpecial);
        }
        let make = |nbytes: i64| -> Result<Arc<[u8]>> {
            let mut buf = [0u8; EXTENDED_HEADER_LENGTH];
            let n = special::special_chunk(&self.cparams, kind, nbytes as usize, None, &mut buf)
                .map_err(|_| Error::SchunkSpecial)?;
            Ok(Arc::from(&buf[..n]))
        };
        let full = make(chunksize as i64)?;
        let last = if leftover > 0 {
            Some(make(leftover * typesize as i64)?)
        } else {
            None
        };
        let total = nfull as usize + last.is_some() as usize;
        match &mut self.store {
            Store::Memory(v) => {
                v.try_reserve(total).map_err(|_| Error::MemoryAlloc)?;
            }
            Store::Frame(_) => {}
        }
        for _ in 0..nfull {
            self.place_unlocked(SharedChunk(full.clone()), Op::Append)?;
        }
        if let Some(l) = last {
            self.place_unlocked(SharedChunk(l), Op::Append)?;
        }
        Ok(self.nchunks())
    }

    /// Store a chunk as `op` says (under the exclusive frame lock when locking is on).
    pub(super) fn place(&mut self, chunk: impl IntoChunk, op: Op) -> Result<i64> {
        self.locked(LockMode::Exclusive, |s| {
            if !s.has_checksums() {
                return s.place_unlocked(chunk, op);
            }
            let crc = checksum::chunk_checksum(chunk.bytes());
            s.with_checksums(Change::Place(op, crc), |s| s.place_unlocked(chunk, op))
        })
    }

    /// Delete chunk `n`; returns the new number of chunks (under the exclusive frame lock when locking is on).
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
    /// assert_eq!(sc.delete_chunk(0).unwrap(), 2);
    /// let mut out = vec![0u8; 4000];
    /// sc.decompress_chunk(0, &mut out).unwrap();
    /// assert_eq!(out[..4], 1000u32.to_le_bytes());
    /// assert!(sc.delete_chunk(5).is_err());
    /// ```
    pub fn delete_chunk(&mut self, n: i64) -> Result<i64> {
        self.locked(LockMode::Exclusive, |s| {
            let change = Change::DeleteRun(n.max(0) as usize, 1);
            s.with_checksums(change, |s| s.delete_chunk_unlocked(n))
        })
    }

    /// Reorder the chunks: the new chunk `i` is the old chunk `order[i]` (under the exclusive frame lock when locking is on).
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
    /// sc.reorder_offsets(&[2, 0, 1]).unwrap();
    /// let mut out = vec![0u8; 4000];
    /// sc.decompress_chunk(0, &mut out).unwrap();
    /// assert_eq!(out[..4], 2000u32.to_le_bytes());
    /// // not a permutation
    /// assert!(sc.reorder_offsets(&[0, 0, 1]).is_err());
    /// ```
    pub fn reorder_offsets(&mut self, order: &[i64]) -> Result<()> {
        self.locked(LockMode::Exclusive, |s| {
            s.with_checksums(Change::Reorder(order), |s| {
                s.reorder_offsets_unlocked(order)
            })
        })
    }

    /// Fill an empty super-chunk with `nitems` special items; returns the number of chunks (under the exclusive frame lock when locking is on).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::chunk::header::Special;
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let mut sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// // 1000 zero items in chunks of 400 items (1600 bytes)
    /// assert_eq!(sc.fill_special(1000, Special::Zero as i32, 1600).unwrap(), 3);
    /// assert_eq!(sc.nbytes(), 4000);
    /// let mut out = vec![1u8; 800];
    /// sc.get_slice(900, 1000, &mut out[..400]).unwrap();
    /// assert!(out[..400].iter().all(|&b| b == 0));
    /// ```
    pub fn fill_special(&mut self, nitems: i64, special: i32, chunksize: i32) -> Result<i64> {
        self.locked(LockMode::Exclusive, |s| {
            let n = s.fill_special_unlocked(nitems, special, chunksize)?;
            s.after_fill()?;
            Ok(n)
        })
    }

    /// Decompress chunk `n` into `dst` with `dparams`, skipping the blocks set in `maskout`; returns the chunk's uncompressed size (under the shared frame lock when locking is on).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// // one chunk of 4 blocks of 1000 bytes
    /// let cparams = CParams { typesize: 1, blocksize: 1000, ..CParams::default() };
    /// let mut sc = Schunk::new(cparams, DParams::default());
    /// let data: Vec<u8> = (0..4000u32).map(|i| (i / 1000) as u8 + 1).collect();
    /// sc.append_buffer(&data).unwrap();
    /// let mut out = vec![0u8; 4000];
    /// // skip blocks 1 and 2
    /// let mask = [false, true, true, false];
    /// sc.decompress_chunk_with(&DParams::default(), 0, &mut out, Some(&mask)).unwrap();
    /// assert_eq!((out[0], out[1500], out[2500], out[3999]), (1, 0, 0, 4));
    /// ```
    pub fn decompress_chunk_with(
        &mut self,
        dparams: &DParams,
        n: i64,
        dst: &mut [u8],
        maskout: Option<&[bool]>,
    ) -> Result<usize> {
        // Like C-Blosc2, the chunk number is checked against the counters as they are.
        if self.index(n).is_err() {
            return self.decompress_chunk_with_unlocked(dparams, n, dst, maskout);
        }
        self.locked_read(|s| s.decompress_chunk_with_unlocked(dparams, n, dst, maskout))
    }
}

/// What a chunk replaced or deleted in memory takes off `cbytes`: as C-Blosc2 counts it, a
/// chunk of just a header (a special chunk) takes nothing off, although it was counted when
/// stored (python-blosc2's documented `cbytes` of an array filled after creation shows it).
fn counted_cbytes(old: &Stored) -> i64 {
    if old.cbytes as usize == MAX_OVERHEAD {
        0
    } else {
        old.cbytes as i64
    }
}
