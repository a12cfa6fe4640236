//! The frame behind a super-chunk: access to it, its lock, re-syncing with what other handles
//! and processes did, and serialising the super-chunk as a contiguous frame.

use super::*;

impl Schunk {
    /// The frame behind a frame-backed super-chunk.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// assert!(Schunk::new(CParams::default(), DParams::default()).frame().is_none());
    /// let frame = Frame::create(Location::Memory, &FrameParams::from_cparams(&CParams::default(), 1), Arc::new(StdIo))
    ///     .unwrap();
    /// let mut sc = Schunk::with_frame(CParams::default(), DParams::default(), frame);
    /// sc.append_buffer(&[1u8; 800]).unwrap();
    /// assert_eq!(sc.frame().unwrap().nchunks(), 1);
    /// ```
    pub fn frame(&self) -> Option<&Frame> {
        match &self.store {
            Store::Frame(f) => Some(f),
            Store::Memory(_) => None,
        }
    }

    /// The frame behind a frame-backed super-chunk, mutably (counters are re-read by
    /// [`Schunk::refresh`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let frame = Frame::create(Location::Memory, &FrameParams::from_cparams(&CParams::default(), 1), Arc::new(StdIo))
    ///     .unwrap();
    /// let mut sc = Schunk::with_frame(CParams::default(), DParams::default(), frame);
    /// sc.frame_mut().unwrap().add_metalayer("m", b"v").unwrap();
    /// assert_eq!(sc.frame().unwrap().metalayers()[0].name, "m");
    /// ```
    pub fn frame_mut(&mut self) -> Option<&mut Frame> {
        match &mut self.store {
            Store::Frame(f) => Some(f),
            Store::Memory(_) => None,
        }
    }

    /// Take the frame out of a frame-backed super-chunk.
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
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    ///
    /// assert!(sc.into_frame().is_none()); // in memory, no frame
    /// let params = FrameParams::from_cparams(&CParams::default(), 1);
    /// let frame = Frame::create(Location::Memory, &params, Arc::new(StdIo)).unwrap();
    /// let mut sc = Schunk::with_frame(CParams::default(), DParams::default(), frame);
    /// sc.append_buffer(&[1u8; 800]).unwrap();
    /// let bytes = sc.into_frame().unwrap().into_bytes().unwrap();
    /// assert_eq!(Frame::from_bytes(bytes).unwrap().nbytes(), 800);
    /// ```
    pub fn into_frame(self) -> Option<Frame> {
        match self.store {
            Store::Frame(f) => Some(*f),
            Store::Memory(_) => None,
        }
    }

    /// Take the frame lock in `mode` (re-entrant; a no-op in memory or without locking),
    /// re-reading counters and metalayers when another handle changed the frame. Returns
    /// whether that happened.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::LockingStdIo, Frame, FrameParams, LockMode, Location};
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
    /// let loc = Location::File { path: path.clone(), offset: 0 };
    /// let params = FrameParams::from_cparams(&CParams::default(), 1);
    /// let frame = Frame::create(loc.clone(), &params, Arc::new(LockingStdIo)).unwrap();
    /// let mut a = Schunk::with_frame(CParams::default(), DParams::default(), frame);
    /// let mut b = Schunk::from_frame(Frame::open(loc, Arc::new(LockingStdIo)).unwrap(), DParams::default());
    /// b.append_buffer(&[1u8; 800]).unwrap();
    /// // `a` sees that `b` changed the frame and re-reads its counters
    /// assert!(a.lock(LockMode::Shared).unwrap());
    /// assert_eq!(a.nchunks(), 1);
    /// a.unlock().unwrap();
    /// # drop((a, b));
    /// # let _ = std::fs::remove_file(b2rs::frame::lock::sidecar_path(&path, false));
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn lock(&mut self, mode: LockMode) -> Result<bool> {
        let Store::Frame(f) = &mut self.store else {
            return Ok(false);
        };
        let changed = f.lock(mode)?;
        if changed {
            self.reloaded();
        }
        Ok(changed)
    }

    /// Release one level of the frame lock taken with [`Schunk::lock`].
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::LockingStdIo, Frame, FrameParams, LockMode, Location};
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
    /// let loc = Location::File { path: path.clone(), offset: 0 };
    /// let params = FrameParams::from_cparams(&CParams::default(), 1);
    /// let mut sc = Schunk::with_frame(CParams::default(), DParams::default(), Frame::create(loc, &params, Arc::new(LockingStdIo)).unwrap());
    /// sc.lock(LockMode::Exclusive).unwrap();
    /// sc.lock(LockMode::Exclusive).unwrap(); // re-entrant
    /// sc.unlock().unwrap();
    /// assert_eq!(sc.frame().unwrap().lock_mode(), Some(LockMode::Exclusive));
    /// sc.unlock().unwrap();
    /// assert_eq!(sc.frame().unwrap().lock_mode(), None);
    /// # drop(sc);
    /// # let _ = std::fs::remove_file(b2rs::frame::lock::sidecar_path(&path, false));
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn unlock(&mut self) -> Result<()> {
        match &mut self.store {
            Store::Frame(f) => f.unlock(),
            Store::Memory(_) => Ok(()),
        }
    }

    /// Run the read `op` holding the frame lock in shared mode; when it fails because the
    /// stored frame was replaced meanwhile (a remote object of another version), the frame is
    /// read again and `op` runs once more, on the new version only.
    pub(super) fn locked_read<T>(
        &mut self,
        mut op: impl FnMut(&mut Schunk) -> Result<T>,
    ) -> Result<T> {
        self.lock(LockMode::Shared)?;
        let mut r = op(self);
        if r.is_err() {
            if let Store::Frame(f) = &mut self.store {
                match f.resync_replaced() {
                    Ok(true) => {
                        self.reloaded();
                        r = op(self);
                    }
                    Ok(false) => {}
                    Err(e) => r = Err(e),
                }
            }
        }
        let u = self.unlock();
        let v = r?;
        u?;
        Ok(v)
    }

    /// Run `op` holding the frame lock in `mode`.
    pub(super) fn locked<T>(
        &mut self,
        mode: LockMode,
        op: impl FnOnce(&mut Schunk) -> Result<T>,
    ) -> Result<T> {
        self.lock(mode)?;
        let r = op(self);
        let u = self.unlock();
        let v = r?;
        u?;
        Ok(v)
    }

    /// Re-sync counters and metalayers with the frame on disk when another handle changed it
    /// (C-Blosc2's `blosc2_schunk_refresh`); returns whether they changed. A no-op returning
    /// `false` in memory.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::LockingStdIo, Frame, FrameParams, Location};
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
    /// let loc = Location::File { path: path.clone(), offset: 0 };
    /// let params = FrameParams::from_cparams(&CParams::default(), 1);
    /// let frame = Frame::create(loc.clone(), &params, Arc::new(LockingStdIo)).unwrap();
    /// let mut a = Schunk::with_frame(CParams::default(), DParams::default(), frame);
    /// assert!(!a.sync().unwrap()); // nothing changed
    /// let mut b = Schunk::from_frame(Frame::open(loc, Arc::new(LockingStdIo)).unwrap(), DParams::default());
    /// b.append_buffer(&[1u8; 800]).unwrap();
    /// assert!(a.sync().unwrap());
    /// assert_eq!(a.nchunks(), 1);
    /// # drop((a, b));
    /// # let _ = std::fs::remove_file(b2rs::frame::lock::sidecar_path(&path, false));
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn sync(&mut self) -> Result<bool> {
        let Store::Frame(f) = &mut self.store else {
            return Ok(false);
        };
        let changed = f.sync()?;
        if changed {
            self.reloaded();
        }
        Ok(changed)
    }

    /// Read the frame again from its storage (after another process changed it) and re-read
    /// counters and metalayers. A no-op for in-memory super-chunks.
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// # use b2rs::schunk::Schunk;
    /// # use b2rs::{CParams, DParams};
    /// #
    /// # let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
    /// # let cparams = CParams { typesize: 4, ..CParams::default() };
    /// # let loc = Location::File { path: path.clone(), offset: 0 };
    /// # let frame = Frame::create(loc, &FrameParams::from_cparams(&cparams, 1), Arc::new(StdIo)).unwrap();
    /// # let mut sc = Schunk::with_frame(cparams, DParams::default(), frame);
    /// let mut other = Schunk::from_frame(
    ///     Frame::open(Location::File { path: path.clone(), offset: 0 }, Arc::new(StdIo)).unwrap(),
    ///     DParams::default(),
    /// );
    /// other.append_buffer(&[0u8; 400]).unwrap();
    /// assert_eq!(sc.nchunks(), 0);
    /// sc.refresh().unwrap();
    /// assert_eq!(sc.nchunks(), 1);
    /// # drop((sc, other));
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn refresh(&mut self) -> Result<()> {
        if let Store::Frame(f) = &mut self.store {
            f.refresh()?;
            self.reloaded();
        }
        Ok(())
    }

    /// Make the changes durable where the frame's I/O back-end defers them (a contiguous
    /// frame on `s3://` is uploaded; see [`Frame::flush`]); a no-op in memory.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let mut sc = Schunk::new(CParams::default(), DParams::default());
    /// sc.flush().unwrap();
    /// ```
    pub fn flush(&mut self) -> Result<()> {
        match &mut self.store {
            Store::Frame(f) => f.flush(),
            _ => Ok(()),
        }
    }

    /// Re-read counters and metalayers after the frame was read again from its storage.
    pub(super) fn reloaded(&mut self) {
        self.load_from_frame();
        self.change_tick += 1;
        self.reloads += 1;
    }

    /// How many times counters and metalayers were read again from the frame because another
    /// handle changed it (by [`Schunk::lock`], [`Schunk::sync`], [`Schunk::refresh`] or any
    /// operation taking the frame lock): a caller mirroring them elsewhere compares it with
    /// the value it saw last.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::LockingStdIo, Frame, FrameParams, Location};
    /// use b2rs::schunk::Schunk;
    /// use b2rs::{CParams, DParams};
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
    /// let loc = Location::File { path: path.clone(), offset: 0 };
    /// let params = FrameParams::from_cparams(&CParams::default(), 1);
    /// let frame = Frame::create(loc.clone(), &params, Arc::new(LockingStdIo)).unwrap();
    /// let mut a = Schunk::with_frame(CParams::default(), DParams::default(), frame);
    /// let mut b = Schunk::from_frame(Frame::open(loc, Arc::new(LockingStdIo)).unwrap(), DParams::default());
    /// let seen = a.reloads();
    /// b.append_buffer(&[1u8; 800]).unwrap();
    /// a.sync().unwrap();
    /// assert_eq!(a.reloads(), seen + 1);
    /// # drop((a, b));
    /// # let _ = std::fs::remove_file(b2rs::frame::lock::sidecar_path(&path, false));
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn reloads(&self) -> u64 {
        self.reloads
    }

    /// The super-chunk serialised as a contiguous frame (cframe).
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
    /// use b2rs::frame::Frame;
    ///
    /// let cframe = sc.to_cframe().unwrap();
    /// // a contiguous frame starts with a msgpack fixarray of 14 entries and the magic "b2frame"
    /// assert_eq!(&cframe[..1], [0x90 + 14]);
    /// assert_eq!(&cframe[2..9], b"b2frame");
    /// assert_eq!(Frame::from_bytes(cframe).unwrap().nchunks(), 3);
    /// ```
    pub fn to_cframe(&self) -> Result<Vec<u8>> {
        match &self.store {
            Store::Frame(f) => f.to_bytes(),
            Store::Memory(_) => self.to_cframe_with(&self.frame_params(), None),
        }
    }

    /// A new contiguous frame holding the chunks, metalayers and vlmetalayers of the
    /// super-chunk (whatever its storage: the chunks are read one by one), with `params` in its
    /// header: what C-Blosc2's `blosc2_schunk_to_buffer` makes by copying a super-chunk into a
    /// new in-memory frame, from what the handle holds (a frame file replaced since it was
    /// read is not read again but for its chunks). `metalayers` stand in for the super-chunk's
    /// own when given (a B2ND view's shapes).
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
    /// use b2rs::frame::{Frame, FrameParams};
    ///
    /// let params = FrameParams { nthreads_comp: 0, ..sc.frame_params() };
    /// let frame = Frame::from_bytes(sc.to_cframe_with(&params, None).unwrap()).unwrap();
    /// assert_eq!((frame.nchunks(), frame.params().nthreads_comp), (3, 0));
    /// ```
    pub fn to_cframe_with(
        &self,
        params: &FrameParams,
        metalayers: Option<&[Metalayer]>,
    ) -> Result<Vec<u8>> {
        let conv = to_frame_metalayers;
        let metas = conv(metalayers.unwrap_or(&self.metalayers));
        let held: Vec<Cow<'_, [u8]>> = match &self.store {
            Store::Memory(v) => v.iter().map(|c| Cow::Borrowed(c.bytes())).collect(),
            Store::Frame(f) => (0..f.nchunks())
                .map(|i| f.get_chunk(i).map(|c| Cow::Owned(c.into_owned())))
                .collect::<Result<_>>()?,
        };
        let chunks: Vec<&[u8]> = held.iter().map(|c| c.as_ref()).collect();
        if self.chunksize > 0 {
            // Keep the common chunk size in the header (a smaller last chunk does not make it
            // variable), as C-Blosc2 does: the frame that appending the chunks one by one
            // makes, built at once.
            if let Ok(f) = Frame::from_fixed_chunks(
                params,
                self.chunksize,
                &chunks,
                &metas,
                &conv(&self.vlmetalayers),
            ) {
                return f.into_bytes();
            }
        }
        let f = Frame::from_chunks(params, &chunks, &metas, &conv(&self.vlmetalayers))?;
        f.into_bytes()
    }
}
