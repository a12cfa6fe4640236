//! Arrays as frames: super-chunks read from and written as contiguous frames, with the array's
//! metalayers.

use super::*;

/// A super-chunk in memory holding the chunks and metalayers of `frame` (variable-length
/// metalayers are not carried over).
///
/// # Examples
///
/// ```
/// # use b2rs::b2nd::{Array, Fill, Meta};
/// # use b2rs::{CParams, DParams};
/// #
/// # // a 4 x 6 array of u8 holding 0..24, in chunks of 2 x 3 and blocks of 1 x 3
/// # let data: Vec<u8> = (0..24).collect();
/// # let meta = Meta::new(&[4, 6], &[2, 3], &[1, 3]).with_dtype("|u1");
/// # let cparams = CParams { typesize: 1, ..CParams::default() };
/// # let mut a = Array::new(cparams.clone(), DParams::default(), &meta, Fill::Buffer(&data)).unwrap();
/// use b2rs::b2nd::array::schunk_from_frame;
/// use b2rs::frame::Frame;
///
/// let frame = Frame::from_bytes(a.to_cframe().unwrap()).unwrap();
/// let sc = schunk_from_frame(&frame).unwrap();
/// assert!(sc.is_memory());
/// assert_eq!(Array::open(sc).unwrap().to_vec().unwrap(), data);
/// ```
pub fn schunk_from_frame(frame: &Frame) -> Result<Schunk> {
    let cparams = frame.params().to_cparams();
    let dparams = crate::params::DParams {
        typesize: cparams.typesize,
        ..Default::default()
    };
    let mut sc = Schunk::new(cparams, dparams);
    for m in frame.metalayers() {
        sc.meta_add(&m.name, &m.content)?;
    }
    for n in 0..frame.nchunks() {
        let c = frame.get_chunk(n)?;
        sc.append_chunk(c.into_owned())?;
    }
    Ok(sc)
}

/// A contiguous frame (cframe) holding the chunks and metalayers of `sc`, built as C-Blosc2
/// builds a frame chunk by chunk (zero, NaN and uninitialised chunks become special offsets).
///
/// # Examples
///
/// ```
/// # use b2rs::b2nd::{Array, Fill, Meta};
/// # use b2rs::{CParams, DParams};
/// #
/// # // a 4 x 6 array of u8 holding 0..24, in chunks of 2 x 3 and blocks of 1 x 3
/// # let data: Vec<u8> = (0..24).collect();
/// # let meta = Meta::new(&[4, 6], &[2, 3], &[1, 3]).with_dtype("|u1");
/// # let cparams = CParams { typesize: 1, ..CParams::default() };
/// # let mut a = Array::new(cparams.clone(), DParams::default(), &meta, Fill::Buffer(&data)).unwrap();
/// use b2rs::b2nd::array::schunk_to_cframe;
///
/// let cframe = schunk_to_cframe(a.schunk()).unwrap();
/// assert_eq!(Array::from_cframe(cframe).unwrap().to_vec().unwrap(), data);
/// ```
pub fn schunk_to_cframe(sc: &Schunk) -> Result<Vec<u8>> {
    let params = FrameParams::from_cparams(sc.cparams(), sc.dparams().nthreads.max(1));
    // The chunks of an array share one size: the frame that appending them makes is built at
    // once (appending rewrites the offsets chunk every time).
    let chunks = (0..sc.nchunks())
        .map(|n| sc.get_chunk(n))
        .collect::<Result<Vec<_>>>()?;
    if let Some(first) = chunks.first() {
        let chunksize = crate::chunk::Header::sizes(first)?.0;
        let refs: Vec<&[u8]> = chunks.iter().map(|c| &**c).collect();
        let conv = crate::schunk::to_frame_metalayers;
        let (metas, vlmetas) = (conv(sc.metalayers()), conv(sc.vlmetalayers()));
        if let Ok(f) = Frame::from_fixed_chunks(&params, chunksize, &refs, &metas, &vlmetas) {
            return f.into_bytes();
        }
    }
    let mut f = Frame::create(FrameLocation::Memory, &params, Arc::new(StdIo))?;
    for m in sc.metalayers() {
        f.add_metalayer(&m.name, &m.content)?;
    }
    for c in &chunks {
        f.append_chunk(c)?;
    }
    for m in sc.vlmetalayers() {
        f.set_vlmetalayer(&m.name, &m.content)?;
    }
    f.into_bytes()
}

impl Array<Schunk> {
    /// The array held in the contiguous frame `cframe` (copied into memory).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::{Array, Fill, Meta};
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // a 4 x 6 array of u8 holding 0..24, in chunks of 2 x 3 and blocks of 1 x 3
    /// # let data: Vec<u8> = (0..24).collect();
    /// # let meta = Meta::new(&[4, 6], &[2, 3], &[1, 3]).with_dtype("|u1");
    /// # let cparams = CParams { typesize: 1, ..CParams::default() };
    /// # let mut a = Array::new(cparams.clone(), DParams::default(), &meta, Fill::Buffer(&data)).unwrap();
    /// let mut b = Array::from_cframe(a.to_cframe().unwrap()).unwrap();
    /// assert_eq!((b.shape(), b.dtype()), (&[4i64, 6][..], Some(&b"|u1"[..])));
    /// assert_eq!(b.to_vec().unwrap(), data);
    /// assert!(Array::from_cframe(vec![0u8; 10]).is_err());
    /// ```
    pub fn from_cframe(cframe: Vec<u8>) -> Result<Array<Schunk>> {
        let frame = Frame::from_bytes(cframe)?;
        Array::open(schunk_from_frame(&frame)?)
    }
}

impl<S: BorrowMut<Schunk>> Array<S> {
    /// The array serialised as a contiguous frame (a `.b2nd` file's content).
    ///
    /// # Examples
    ///
    /// ```
    /// # use b2rs::b2nd::{Array, Fill, Meta};
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # // a 4 x 6 array of u8 holding 0..24, in chunks of 2 x 3 and blocks of 1 x 3
    /// # let data: Vec<u8> = (0..24).collect();
    /// # let meta = Meta::new(&[4, 6], &[2, 3], &[1, 3]).with_dtype("|u1");
    /// # let cparams = CParams { typesize: 1, ..CParams::default() };
    /// # let mut a = Array::new(cparams.clone(), DParams::default(), &meta, Fill::Buffer(&data)).unwrap();
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2nd", std::process::id()));
    /// std::fs::write(&path, a.to_cframe().unwrap()).unwrap();
    /// let mut b = Array::from_cframe(std::fs::read(&path).unwrap()).unwrap();
    /// assert_eq!(b.to_vec().unwrap(), data);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn to_cframe(&self) -> Result<Vec<u8>> {
        schunk_to_cframe(self.sc.borrow())
    }
}
