//! Copies of a whole super-chunk, with compressed chunks stored as they are when the coding
//! agrees.

use super::*;

/// Whether chunks compressed with `a` are what `b` would write, as C-Blosc2 decides it before
/// copying a super-chunk's chunks as they are: typesize, clevel, codec, dictionary use,
/// blocksize and filters agree.
pub(crate) fn same_coding(a: &CParams, b: &CParams) -> bool {
    a.typesize == b.typesize
        && a.clevel == b.clevel
        && a.compcode == b.compcode
        && a.use_dict == b.use_dict
        && a.blocksize == b.blocksize
        && a.filters == b.filters
        && a.filters_meta == b.filters_meta
}

impl Schunk {
    /// A copy of this super-chunk (chunks, metalayers, variable-length metalayers) using other
    /// parameters. Chunks are copied as they are when the parameters produce the same chunks,
    /// and recompressed with `compress` otherwise.
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
    /// use b2rs::{chunk, codecs};
    ///
    /// let zlib = CParams { compcode: codecs::ZLIB, typesize: 4, ..CParams::default() };
    /// let mut calls = 0;
    /// let copy = sc
    ///     .copy_by(zlib.clone(), DParams::default(), &mut |_, src| {
    ///         calls += 1;
    ///         let mut buf = vec![0u8; src.len() + chunk::header::MAX_OVERHEAD];
    ///         let n = chunk::compress(&zlib, src, &mut buf)?;
    ///         buf.truncate(n);
    ///         Ok(buf)
    ///     })
    ///     .unwrap();
    /// assert_eq!((copy.nchunks(), copy.nbytes(), calls), (3, 12_000, 3));
    /// ```
    pub fn copy_by(
        &self,
        cparams: CParams,
        dparams: DParams,
        compress: &mut Compressor<'_>,
    ) -> Result<Schunk> {
        let mut out = Schunk::new(cparams, dparams);
        self.copy_into(&mut out, compress)?;
        Ok(out)
    }

    /// Copy the chunks, metalayers and variable-length metalayers of this super-chunk into the
    /// empty super-chunk `out` (of any storage kind). Chunks are copied as they are when `out`'s
    /// parameters produce the same chunks, and recompressed with `compress` otherwise.
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
    /// use std::sync::Arc;
    /// use b2rs::chunk;
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    ///
    /// // copy into a super-chunk backed by an in-memory frame, with the same parameters
    /// let cparams = sc.cparams().clone();
    /// let params = FrameParams::from_cparams(&cparams, 1);
    /// let frame = Frame::create(Location::Memory, &params, Arc::new(StdIo)).unwrap();
    /// let mut out = Schunk::with_frame(cparams.clone(), DParams::default(), frame);
    /// sc.copy_into(&mut out, &mut |_, src| {
    ///     let mut buf = vec![0u8; src.len() + chunk::header::MAX_OVERHEAD];
    ///     let n = chunk::compress(&cparams, src, &mut buf)?;
    ///     buf.truncate(n);
    ///     Ok(buf)
    /// })
    /// .unwrap();
    /// assert_eq!(out.nchunks(), 3);
    /// assert_eq!(out.get_chunk(2).unwrap(), sc.get_chunk(2).unwrap());
    /// ```
    pub fn copy_into(&self, out: &mut Schunk, compress: &mut Compressor<'_>) -> Result<()> {
        let same = self.copies_as_is(&self.cparams, &out.cparams);
        self.copy_into_as(out, compress, same)
    }

    /// Whether chunks made with `made` are what `to` makes, so a copy keeps their bytes (no
    /// prefilter or postfilter to run either).
    pub(crate) fn copies_as_is(&self, made: &CParams, to: &CParams) -> bool {
        same_coding(made, to) && made.prefilter.is_none() && self.dparams.postfilter.is_none()
    }

    /// [`Schunk::copy_into`], the chunks kept as they are when `same` (else recompressed).
    pub(crate) fn copy_into_as(
        &self,
        out: &mut Schunk,
        compress: &mut Compressor<'_>,
        same: bool,
    ) -> Result<()> {
        for m in &self.metalayers {
            out.meta_add(&m.name, &m.content)?;
        }
        let dp = DParams {
            postfilter: None,
            ..self.dparams.clone()
        };
        let mut buf = Vec::new();
        for n in 0..self.nchunks() {
            let src = self.get_chunk(n)?;
            if same {
                out.append_chunk(&*src)?;
            } else {
                let nb = self.chunk_nbytes(n)? as usize;
                buf.resize(nb, 0);
                let mut dpn = dp.clone();
                dpn.nchunk = n;
                chunk::decompress(&dpn, &src, &mut buf, None)?;
                out.append_buffer_by(compress, &buf)?;
            }
        }
        let defaults = CParams::default();
        for m in &self.vlmetalayers {
            let content = self.vlmeta_get(&m.name)?;
            if m.name == super::CHECKSUMS_VLMETA && same {
                // the same chunks: the checksums as recorded (a damaged chunk stays damaged)
                out.adopt_checksums(&content)?;
            } else {
                out.vlmeta_add(&m.name, &content, &defaults)?;
            }
        }
        Ok(())
    }

    /// A copy of this super-chunk using other parameters (see [`Schunk::copy_by`]), chunks
    /// being recompressed with `cparams` when needed.
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
    /// let lz4 = CParams { compcode: codecs::LZ4, typesize: 4, ..CParams::default() };
    /// let mut copy = sc.copy_with(lz4, DParams::default()).unwrap();
    /// let mut out = vec![0u8; 4000];
    /// copy.decompress_chunk(2, &mut out).unwrap();
    /// assert_eq!(out[..4], 2000u32.to_le_bytes());
    /// ```
    pub fn copy_with(&self, cparams: CParams, dparams: DParams) -> Result<Schunk> {
        // the copy has the same metalayers, so the same array shapes
        let mut p = cparams.clone();
        p.b2nd = self.nd.clone();
        p.schunk_typesize = Some(cparams.typesize);
        self.copy_by(cparams, dparams, &mut |n, s| compress_chunk(&p, n, s))
    }
}
