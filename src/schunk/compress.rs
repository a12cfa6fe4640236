//! Compressing data into the chunks of a super-chunk: the compressors the layers above may
//! set, the thread's kept output buffer, and appending uncompressed data.

use super::*;

/// Makes one chunk out of the data of chunk number `nchunk` (the C layer compresses through
/// the super-chunk's compression context, as C-Blosc2 does).
pub type Compressor<'a> = dyn FnMut(i64, &[u8]) -> Result<Vec<u8>> + 'a;

/// A compressor kept by a super-chunk for the chunks written by the layers above it (B2ND
/// arrays), called with the super-chunk's parameters in place of compressing with them: the C
/// layer sets one that goes through the super-chunk's compression context when that context
/// has a tuner.
///
/// # Examples
///
/// ```
/// use b2rs::schunk::{Schunk, SharedCompressor};
/// use b2rs::{CParams, DParams};
/// use std::sync::Arc;
///
/// let mut sc = Schunk::new(CParams { typesize: 1, ..CParams::default() }, DParams::default());
/// // compress at clevel 1 whatever the super-chunk's clevel
/// let c: SharedCompressor = Arc::new(|p: &CParams, _n: i64, data: &[u8]| {
///     let fast = CParams { clevel: 1, ..p.clone() };
///     let mut out = vec![0u8; data.len() + 32];
///     let k = b2rs::chunk::compress(&fast, data, &mut out)?;
///     out.truncate(k);
///     Ok(out)
/// });
/// sc.set_compressor(Some(c));
/// let chunk = sc.compress_data(0, &[7u8; 1000]).unwrap();
/// assert!(chunk.len() < 100);
/// ```
pub type SharedCompressor = Arc<dyn Fn(&CParams, i64, &[u8]) -> Result<Vec<u8>> + Send + Sync>;

/// Compress `src` into a new chunk (chunk number `nchunk` for the prefilter), trimmed to size.
pub(crate) fn compress_chunk(cparams: &CParams, nchunk: i64, src: &[u8]) -> Result<Vec<u8>> {
    if src.len() > MAX_BUFFERSIZE as usize {
        crate::trace_error!("Input buffer size cannot exceed {} bytes", MAX_BUFFERSIZE);
        return Err(Error::MaxBufsizeExceeded);
    }
    let mut p = cparams.clone();
    p.nchunk = nchunk;
    let cap = src.len() + MAX_OVERHEAD;
    let compress_into = |out: &mut Vec<u8>| -> Result<usize> {
        grow_zeroed(out, cap)?;
        let n = chunk::compress(&p, src, &mut out[..cap])?;
        if n == 0 {
            crate::trace_error!("The chunk does not fit in its buffer");
            return Err(Error::Failure);
        }
        Ok(n)
    };
    compress_to_vec(cap, compress_into)
}

/// A new chunk from `compress_into` (which compresses into the buffer it is given, grown to
/// `cap` bytes as needed, and returns the compressed size). It works in the buffer the thread
/// keeps (a new buffer per chunk costs zeroing or a page fault per page of the whole chunk) and
/// the compressed bytes are copied out; a nested call (from a prefilter) or a chunk too big to
/// keep a buffer for gets a buffer of its own, trimmed to size.
pub(crate) fn compress_to_vec(
    cap: usize,
    mut compress_into: impl FnMut(&mut Vec<u8>) -> Result<usize>,
) -> Result<Vec<u8>> {
    if let Some(r) = with_compress_scratch(cap, |out| {
        compress_into(out).map(|n| scratch_chunk(out, n).into_owned())
    }) {
        return r;
    }
    let mut out = Vec::new();
    let n = compress_into(&mut out)?;
    out.truncate(n);
    out.shrink_to_fit();
    Ok(out)
}

/// The chunk compressed into the thread's kept buffer `out` (its first `n` bytes): borrowed
/// (copied when stored) when small, else the buffer itself, trimmed, so a chunk that hardly
/// compressed (stored as it came) is not copied again; the thread's next chunk then gets a new
/// buffer, as a chunk compressed into a fresh allocation would.
pub(crate) fn scratch_chunk(out: &mut Vec<u8>, n: usize) -> std::borrow::Cow<'_, [u8]> {
    if n < out.len() / 2 {
        return std::borrow::Cow::Borrowed(&out[..n]);
    }
    let mut v = std::mem::take(out);
    v.truncate(n);
    v.shrink_to_fit();
    std::borrow::Cow::Owned(v)
}

/// Grow `out` to at least `len` bytes (contents unspecified; an allocation failure is an
/// error). A buffer that grows is a fresh zeroed allocation (calloc), not the old one extended
/// and zeroed: a large output buffer then costs page faults only on the pages the compressed
/// bytes reach.
pub(crate) fn grow_zeroed(out: &mut Vec<u8>, len: usize) -> Result<()> {
    if out.len() < len {
        *out = Vec::new();
        *out = crate::error::zeroed_vec(len)?;
    }
    Ok(())
}

/// Largest compression output buffer a thread keeps between chunks.
pub(super) const SCRATCH_MAX: usize = 64 << 20;

thread_local! {
    /// The compression output buffer each thread keeps between chunks.
    static COMPRESS_SCRATCH: std::cell::RefCell<Vec<u8>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// Run `f` on the compression output buffer the thread keeps between chunks, unless `cap`
/// bytes are too many to keep or the buffer is in use already (a call nested in a prefilter):
/// then `None`, and the caller allocates a buffer of its own.
pub(crate) fn with_compress_scratch<R>(cap: usize, f: impl FnOnce(&mut Vec<u8>) -> R) -> Option<R> {
    if cap > SCRATCH_MAX {
        return None;
    }
    COMPRESS_SCRATCH.with(|cell| cell.try_borrow_mut().ok().map(|mut out| f(&mut out)))
}

impl Schunk {
    /// Compress the layers above with `c` instead of this super-chunk's parameters (`None`:
    /// with the parameters again).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let mut sc = Schunk::new(CParams::default(), DParams::default());
    /// sc.set_compressor(None);
    /// assert!(sc.compress_data(0, &[1u8; 64]).is_ok());
    /// ```
    pub fn set_compressor(&mut self, c: Option<SharedCompressor>) {
        self.compressor = c;
    }

    /// Compress `src` as chunk number `nchunk` the way this super-chunk compresses its chunks
    /// (its [`SharedCompressor`], else its parameters).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let sc = Schunk::new(CParams { typesize: 4, ..CParams::default() }, DParams::default());
    /// let data: Vec<u8> = (0..1000u32).flat_map(|i| i.to_le_bytes()).collect();
    /// let chunk = sc.compress_data(0, &data).unwrap();
    /// assert!(chunk.len() < data.len());
    /// ```
    pub fn compress_data(&self, nchunk: i64, src: &[u8]) -> Result<Vec<u8>> {
        match &self.compressor {
            Some(c) => c(&self.cparams, nchunk, src),
            None => compress_chunk(&self.cparams, nchunk, src),
        }
    }

    /// Compress `src` with `compress` (given the number of the new chunk) into any chunk
    /// (e.g. a slice of a buffer the caller reuses, copied when stored) and append it; returns
    /// the new number of chunks.
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
    /// // compress into a buffer the caller keeps; the super-chunk copies the chunk
    /// let mut scratch = vec![0u8; 4000 + chunk::header::MAX_OVERHEAD];
    /// let cparams = sc.cparams().clone();
    /// let n = sc
    ///     .append_buffer_into(
    ///         |_nchunk, src| {
    ///             let len = chunk::compress(&cparams, src, &mut scratch)?;
    ///             Ok(&scratch[..len])
    ///         },
    ///         &[7u8; 4000],
    ///     )
    ///     .unwrap();
    /// assert_eq!(n, 4);
    /// ```
    pub fn append_buffer_into<C: IntoChunk>(
        &mut self,
        compress: impl FnOnce(i64, &[u8]) -> Result<C>,
        src: &[u8],
    ) -> Result<i64> {
        let n = self.nchunks();
        self.current_nchunk = n;
        let chunk = compress(n, src)?;
        self.append_chunk(chunk)
    }

    /// Compress `src` with `compress` (given the number of the new chunk) and append it;
    /// returns the new number of chunks.
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
    /// let mut numbers = Vec::new();
    /// let n = sc
    ///     .append_buffer_by(
    ///         &mut |nchunk, src| {
    ///             numbers.push(nchunk);
    ///             let mut buf = vec![0u8; src.len() + chunk::header::MAX_OVERHEAD];
    ///             let len = chunk::compress(&cparams, src, &mut buf)?;
    ///             buf.truncate(len);
    ///             Ok(buf)
    ///         },
    ///         &[1u8; 4000],
    ///     )
    ///     .unwrap();
    /// assert_eq!((n, numbers), (4, vec![3]));
    /// ```
    pub fn append_buffer_by(&mut self, compress: &mut Compressor<'_>, src: &[u8]) -> Result<i64> {
        let n = self.nchunks();
        self.current_nchunk = n;
        let chunk = compress(n, src)?;
        self.append_chunk(chunk)
    }

    /// Compress `src` with `cparams` (chunk number handed to the prefilter: the new chunk's) and
    /// append it; returns the new number of chunks.
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
    /// assert_eq!(sc.append_buffer_with(&zstd, &[2u8; 4000]).unwrap(), 4);
    /// let header = b2rs::chunk::Header::parse(&sc.get_chunk(3).unwrap()).unwrap();
    /// assert_eq!(header.codec_id(), Ok(codecs::ZSTD));
    /// ```
    pub fn append_buffer_with(&mut self, cparams: &CParams, src: &[u8]) -> Result<i64> {
        let cparams = self.plugin_cparams(cparams);
        self.append_buffer_by(&mut |n, s| compress_chunk(&cparams, n, s), src)
    }

    /// Compress `src` with the super-chunk's parameters and append it.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let mut sc = Schunk::new(CParams { typesize: 1, ..CParams::default() }, DParams::default());
    /// assert_eq!(sc.append_buffer(b"first chunk").unwrap(), 1);
    /// assert_eq!(sc.append_buffer(b"second").unwrap(), 2);
    /// assert_eq!(sc.nbytes(), 17);
    /// ```
    pub fn append_buffer(&mut self, src: &[u8]) -> Result<i64> {
        let p = self.cparams.clone();
        self.append_buffer_with(&p, src)
    }
}
