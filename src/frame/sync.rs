//! The frame's lock and re-syncing with what other handles and processes did: a frame on disk
//! is read again when its header (or the lock's generation) changed.

use super::*;

impl Frame {
    /// Read the frame in `storage`, under a shared lock on the sidecar `lock` if given.
    pub(super) fn load_locked(storage: Storage, lock: Option<PathBuf>) -> Result<Frame> {
        let Some(path) = lock else {
            return cframe::load(storage);
        };
        let mut l = FrameLock::new(path);
        let generation = l.acquire(LockMode::Shared)?.unwrap_or(0);
        let r = cframe::load(storage);
        l.release()?;
        let mut f = r?;
        f.lock = Some(l);
        f.seen_generation = generation;
        Ok(f)
    }

    /// Turn on the sidecar lock when the I/O back-end asks for it (disk-based frames only).
    pub(super) fn setup_lock(&mut self) -> Result<()> {
        let (path, sparse) = match &self.storage {
            Storage::File { path, io, .. } if io.locking() => (path, false),
            Storage::Dir { path, io } if io.locking() => (path, true),
            _ => return Ok(()),
        };
        let mut l = FrameLock::new(lock::sidecar_path(path, sparse));
        self.seen_generation = l.peek_generation()?;
        self.lock = Some(l);
        Ok(())
    }

    /// How this handle holds the frame lock now (`None`: not held, or no locking).
    ///
    /// # Examples
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::LockingStdIo, Frame, FrameParams, LockMode, Location};
    ///
    /// let loc = Location::File { path: path.clone(), offset: 0 };
    /// let mut frame = Frame::create(loc, &FrameParams::default(), Arc::new(LockingStdIo)).unwrap();
    /// assert_eq!(frame.lock_mode(), None);
    /// frame.lock(LockMode::Shared).unwrap();
    /// assert_eq!(frame.lock_mode(), Some(LockMode::Shared));
    /// frame.unlock().unwrap();
    /// drop(frame);
    /// std::fs::remove_file(b2rs::frame::lock::sidecar_path(&path, false)).unwrap();
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn lock_mode(&self) -> Option<LockMode> {
        self.lock.as_ref().and_then(|l| l.mode())
    }

    /// Whether the frame serialises its accesses through a sidecar lock file.
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// # use b2rs::{chunk, CParams, DParams};
    /// #
    /// # // an in-memory frame holding 3 chunks of 1000 bytes: 1s, 2s, 3s
    /// # let cparams = CParams { typesize: 1, ..CParams::default() };
    /// # let params = FrameParams::from_cparams(&cparams, 1);
    /// # let chunk_of = |b: u8| {
    /// #     let mut buf = vec![0u8; 1000 + chunk::header::MAX_OVERHEAD];
    /// #     let n = chunk::compress(&cparams, &[b; 1000], &mut buf).unwrap();
    /// #     buf.truncate(n);
    /// #     buf
    /// # };
    /// # let mut frame = Frame::create(Location::Memory, &params, Arc::new(StdIo)).unwrap();
    /// # for b in 1..=3 {
    /// #     frame.append_chunk(&chunk_of(b)).unwrap();
    /// # }
    /// # let first_byte = |frame: &Frame, n: i64| {
    /// #     let mut out = vec![0u8; 1000];
    /// #     chunk::decompress(&DParams::default(), &frame.get_chunk(n).unwrap(), &mut out, None).unwrap();
    /// #     out[0]
    /// # };
    /// assert!(!frame.is_locking()); // in memory
    /// ```
    pub fn is_locking(&self) -> bool {
        self.lock.is_some()
    }

    /// Take the frame lock in `mode` (re-entrant; without locking no lock is taken). When
    /// the lock is really taken and another handle changed the frame since this one last
    /// looked (the sidecar generation; without locking, the header on disk: see
    /// [`Frame::sync`]), the frame is read again; returns whether that happened.
    ///
    /// # Examples
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::LockingStdIo, Frame, FrameParams, LockMode, Location};
    ///
    /// let loc = Location::File { path: path.clone(), offset: 0 };
    /// let mut a = Frame::create(loc.clone(), &FrameParams::default(), Arc::new(LockingStdIo)).unwrap();
    /// let mut b = Frame::open(loc, Arc::new(LockingStdIo)).unwrap();
    /// b.add_metalayer("m", b"v").unwrap();
    /// // `a` re-reads the frame changed by `b`
    /// assert!(a.lock(LockMode::Shared).unwrap());
    /// assert_eq!(a.metalayers().len(), 1);
    /// a.unlock().unwrap();
    /// drop((a, b));
    /// std::fs::remove_file(b2rs::frame::lock::sidecar_path(&path, false)).unwrap();
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn lock(&mut self, mode: LockMode) -> Result<bool> {
        let Some(l) = self.lock.as_mut() else {
            // Without locking, the header on disk tells whether another handle changed the
            // frame since this one last saw it: looked at when the outermost "lock" is
            // taken (the operations nested inside see the state it found).
            let changed = if self.soft_depth == 0 {
                self.sync_stored()?
            } else {
                false
            };
            self.soft_depth += 1;
            return Ok(changed);
        };
        let Some(found) = l.acquire(mode)? else {
            return Ok(false);
        };
        let mut changed = false;
        if found != self.seen_generation {
            if let Err(e) = self.reload() {
                if let Some(l) = self.lock.as_mut() {
                    let _ = l.release();
                }
                return Err(e);
            }
            changed = true;
        }
        self.seen_generation = match mode {
            LockMode::Exclusive => found.wrapping_add(1),
            LockMode::Shared => found,
        };
        Ok(changed)
    }

    /// Release one level of the frame lock (a no-op without locking or when not held).
    ///
    /// # Examples
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    /// # use b2rs::{chunk, CParams, DParams};
    /// #
    /// # // an in-memory frame holding 3 chunks of 1000 bytes: 1s, 2s, 3s
    /// # let cparams = CParams { typesize: 1, ..CParams::default() };
    /// # let params = FrameParams::from_cparams(&cparams, 1);
    /// # let chunk_of = |b: u8| {
    /// #     let mut buf = vec![0u8; 1000 + chunk::header::MAX_OVERHEAD];
    /// #     let n = chunk::compress(&cparams, &[b; 1000], &mut buf).unwrap();
    /// #     buf.truncate(n);
    /// #     buf
    /// # };
    /// # let mut frame = Frame::create(Location::Memory, &params, Arc::new(StdIo)).unwrap();
    /// # for b in 1..=3 {
    /// #     frame.append_chunk(&chunk_of(b)).unwrap();
    /// # }
    /// # let first_byte = |frame: &Frame, n: i64| {
    /// #     let mut out = vec![0u8; 1000];
    /// #     chunk::decompress(&DParams::default(), &frame.get_chunk(n).unwrap(), &mut out, None).unwrap();
    /// #     out[0]
    /// # };
    /// use b2rs::frame::LockMode;
    ///
    /// // without locking, lock and unlock do nothing
    /// assert!(!frame.lock(LockMode::Exclusive).unwrap());
    /// frame.unlock().unwrap();
    /// assert_eq!(frame.lock_mode(), None);
    /// ```
    pub fn unlock(&mut self) -> Result<()> {
        match self.lock.as_mut() {
            Some(l) => l.release(),
            None => {
                self.soft_depth = self.soft_depth.saturating_sub(1);
                Ok(())
            }
        }
    }

    /// Run `op` holding the frame lock in `mode`.
    pub(crate) fn locked<T>(
        &mut self,
        mode: LockMode,
        op: impl FnOnce(&mut Frame) -> Result<T>,
    ) -> Result<T> {
        self.lock(mode)?;
        let r = op(self);
        let u = self.unlock();
        let v = r?;
        u?;
        Ok(v)
    }

    /// Re-read the frame from its storage if another handle changed it: with locking, under
    /// a shared lock when the sidecar generation moved; without, when its header on disk
    /// differs from the one this handle knows (one read of the header, a few hundred bytes:
    /// every change of a frame rewrites it). Returns whether the cached state changed (C-Blosc2's
    /// `blosc2_schunk_refresh`). A no-op returning `false` in memory.
    ///
    /// # Examples
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    ///
    /// let loc = Location::File { path: path.clone(), offset: 0 };
    /// let mut a = Frame::create(loc.clone(), &FrameParams::default(), Arc::new(StdIo)).unwrap();
    /// assert!(!a.sync().unwrap());
    /// let mut b = Frame::open(loc, Arc::new(StdIo)).unwrap();
    /// b.add_metalayer("m", b"v").unwrap();
    /// assert!(a.sync().unwrap());
    /// assert_eq!(a.metalayers().len(), 1);
    /// drop((a, b));
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn sync(&mut self) -> Result<bool> {
        self.forget_cached();
        self.sync_stored()
    }

    /// Drop what the I/O back-end caches of this frame (a remote back-end's ranges): asked
    /// by [`Frame::sync`] and [`Frame::refresh`], so they read what is stored now; the
    /// operations themselves look at the cached header.
    fn forget_cached(&self) {
        match &self.storage {
            Storage::Memory(_) => {}
            Storage::File { path, io, .. } | Storage::Dir { path, io } => io.forget(path),
        }
    }

    /// Make the frame's changes durable where its I/O back-end defers them: a contiguous
    /// frame on `s3://` is uploaded now (a sparse one is at the end of every change). Also
    /// done when the frame is dropped (an error then only traced); a no-op for files and
    /// memory.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    ///
    /// let mut f = Frame::create(Location::Memory, &FrameParams::default(), Arc::new(StdIo)).unwrap();
    /// f.flush().unwrap();
    /// ```
    pub fn flush(&mut self) -> Result<()> {
        match &self.storage {
            Storage::Memory(_) => Ok(()),
            Storage::File { path, io, .. } | Storage::Dir { path, io } => io.flush(path),
        }
    }

    /// After a read failed: read the frame again if what is stored changed since this handle
    /// read it (its header, or the version of a remote object); returns whether it did. No
    /// more than that with locking (the lock already re-syncs) or in memory.
    pub(crate) fn resync_replaced(&mut self) -> Result<bool> {
        if self.lock.is_some() || matches!(self.storage, Storage::Memory(_)) {
            return Ok(false);
        }
        self.sync_stored()
    }

    /// [`Frame::sync`] without forgetting the back-end's cache.
    fn sync_stored(&mut self) -> Result<bool> {
        if self.lock.is_some() {
            let changed = self.lock(LockMode::Shared)?;
            self.unlock()?;
            return Ok(changed);
        }
        // without locking: read again only when the header on disk moved (one read of it,
        // not of the whole frame)
        if !self.disk_changed()? {
            return Ok(false);
        }
        let before = (self.state_key(), self.version.clone());
        self.reload()?;
        // (another version of a remote object is a change even when its header and index
        // hold the same numbers)
        Ok((self.state_key(), self.version.clone()) != before)
    }

    /// What [`Frame::sync`] compares: counters, metalayers and the offsets.
    pub(super) fn state_key(&self) -> (i64, i64, i64, u64, Vec<Metalayer>, Vec<Metalayer>) {
        (
            self.nbytes,
            self.cbytes,
            self.nchunks(),
            self.frame_len,
            self.metalayers.clone(),
            self.vlmetalayers.clone(),
        )
    }

    /// Read the frame again keeping the lock state.
    pub(super) fn reload(&mut self) -> Result<()> {
        let lock = self.lock.take();
        let seen = self.seen_generation;
        let depth = self.soft_depth;
        let r = self.reload_storage();
        self.lock = lock;
        self.seen_generation = seen;
        self.soft_depth = depth;
        r
    }

    /// Read the frame again from its storage (after another process changed it), under a
    /// shared lock when locking is on. A no-op for in-memory frames.
    ///
    /// # Examples
    ///
    /// ```
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
    /// use std::sync::Arc;
    /// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
    ///
    /// let loc = Location::File { path: path.clone(), offset: 0 };
    /// let mut a = Frame::create(loc.clone(), &FrameParams::default(), Arc::new(StdIo)).unwrap();
    /// let mut b = Frame::open(loc, Arc::new(StdIo)).unwrap();
    /// b.add_metalayer("m", b"v").unwrap();
    /// assert!(a.metalayers().is_empty());
    /// a.refresh().unwrap();
    /// assert_eq!(a.metalayers()[0].name, "m");
    /// drop((a, b));
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn refresh(&mut self) -> Result<()> {
        self.forget_cached();
        if self.lock.is_some() {
            self.lock(LockMode::Shared)?;
            let r = self.reload();
            self.unlock()?;
            return r;
        }
        self.reload()
    }

    pub(super) fn reload_storage(&mut self) -> Result<()> {
        let storage = match &self.storage {
            Storage::Memory(_) => return Ok(()),
            Storage::File { path, offset, io } => Storage::File {
                path: path.clone(),
                offset: *offset,
                io: io.clone(),
            },
            Storage::Dir { path, io } => Storage::Dir {
                path: path.clone(),
                io: io.clone(),
            },
        };
        *self = cframe::load(storage)?;
        Ok(())
    }
}

impl Drop for Frame {
    fn drop(&mut self) {
        if let Err(e) = self.flush() {
            crate::trace_error!("The frame could not be flushed when dropped: {}", e);
        }
    }
}
