//! Opt-in advisory locking of disk-based frames (C-Blosc2 3.3.5's `BLOSC_LOCKING`).
//!
//! A frame with locking on serialises its accesses through `flock(2)` on a sidecar file:
//! `.b2lock` inside a sparse frame's directory, `<name>.b2lock` next to a contiguous frame
//! (FRAME.md §9). Readers share the lock, mutating operations take it exclusively. The
//! sidecar holds 16 bytes: 8 zero bytes and a little-endian `i64` generation counter that
//! every outermost exclusive acquisition increments, so a reader can tell cheaply whether the
//! frame changed since it last looked. The lock is re-entrant on one [`FrameLock`]: nested
//! acquisitions only count, and an exclusive request while holding a shared lock upgrades it.

use crate::error::{Error, Result};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

/// How a frame lock is held.
///
/// # Examples
///
/// ```
/// use b2rs::frame::lock::{FrameLock, LockMode};
///
/// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2lock", std::process::id()));
/// let mut lock = FrameLock::new(path.clone());
/// lock.acquire(LockMode::Shared).unwrap();
/// assert_eq!(lock.mode(), Some(LockMode::Shared));
/// lock.release().unwrap();
/// std::fs::remove_file(&path).unwrap();
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockMode {
    /// Several readers at once.
    Shared,
    /// One writer, nobody else.
    Exclusive,
}

/// The lock of one frame handle (see the module documentation).
///
/// # Examples
///
/// ```
/// use b2rs::frame::lock::{FrameLock, LockMode};
///
/// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2lock", std::process::id()));
/// let mut a = FrameLock::new(path.clone());
/// let mut b = FrameLock::new(path.clone());
/// a.acquire(LockMode::Exclusive).unwrap();
/// a.release().unwrap();
/// // `b` sees the generation bumped by `a`'s exclusive lock
/// assert_eq!(b.generation().unwrap(), 1);
/// std::fs::remove_file(&path).unwrap();
/// ```
#[derive(Debug)]
pub struct FrameLock {
    path: PathBuf,
    file: Option<File>,
    depth: u32,
    mode: Option<LockMode>,
}

/// The sidecar lock file of the frame at `frame_path`: `<dir>/.b2lock` for a sparse frame
/// directory, `<name>.b2lock` for a contiguous frame file.
///
/// # Examples
///
/// ```
/// use std::path::Path;
/// use b2rs::frame::lock::sidecar_path;
///
/// assert_eq!(sidecar_path(Path::new("/data/a.b2frame"), false), Path::new("/data/a.b2frame.b2lock"));
/// assert_eq!(sidecar_path(Path::new("/data/dir.b2frame"), true), Path::new("/data/dir.b2frame/.b2lock"));
/// ```
pub fn sidecar_path(frame_path: &Path, sparse: bool) -> PathBuf {
    if sparse {
        frame_path.join(".b2lock")
    } else {
        let mut s = frame_path.as_os_str().to_os_string();
        s.push(".b2lock");
        PathBuf::from(s)
    }
}

fn flock(file: &File, op: libc::c_int) -> Result<()> {
    loop {
        // SAFETY: a valid open descriptor owned by `file`.
        let r = unsafe { libc::flock(file.as_raw_fd(), op) };
        if r == 0 {
            return Ok(());
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            crate::trace_error!("Cannot lock the frame: {}", err);
            return Err(Error::Lock);
        }
    }
}

impl FrameLock {
    /// A lock on the sidecar file `path` (opened, and created if missing, on first use).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::lock::FrameLock;
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2lock", std::process::id()));
    /// let lock = FrameLock::new(path.clone());
    /// // nothing is created before the first use
    /// assert!(!path.exists());
    /// assert_eq!(lock.mode(), None);
    /// ```
    pub fn new(path: PathBuf) -> FrameLock {
        FrameLock {
            path,
            file: None,
            depth: 0,
            mode: None,
        }
    }

    /// The sidecar file.
    ///
    /// # Examples
    ///
    /// ```
    /// use std::path::PathBuf;
    /// use b2rs::frame::lock::FrameLock;
    ///
    /// let lock = FrameLock::new(PathBuf::from("/tmp/x.b2lock"));
    /// assert_eq!(lock.path(), PathBuf::from("/tmp/x.b2lock"));
    /// ```
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// How the lock is held now (`None`: not held).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::lock::{FrameLock, LockMode};
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2lock", std::process::id()));
    /// let mut lock = FrameLock::new(path.clone());
    /// lock.acquire(LockMode::Shared).unwrap();
    /// // an exclusive request while shared upgrades the lock
    /// lock.acquire(LockMode::Exclusive).unwrap();
    /// assert_eq!(lock.mode(), Some(LockMode::Exclusive));
    /// lock.release().unwrap();
    /// lock.release().unwrap();
    /// assert_eq!(lock.mode(), None);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn mode(&self) -> Option<LockMode> {
        self.mode
    }

    fn file(&mut self) -> Result<&mut File> {
        if self.file.is_none() {
            let f = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&self.path)
                .map_err(|e| {
                    crate::trace_error!("Cannot open the lock file {}: {}", self.path.display(), e);
                    Error::Lock
                })?;
            self.file = Some(f);
        }
        Ok(self.file.as_mut().expect("opened above"))
    }

    /// Take the lock in `mode` (nesting on an already held lock; an exclusive request while
    /// shared upgrades it). The outermost exclusive acquisition bumps the generation.
    ///
    /// Returns the generation found when the lock was really taken (or upgraded), before
    /// any bump; `None` when the request only nested on the lock already held.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::lock::{FrameLock, LockMode};
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2lock", std::process::id()));
    /// let mut lock = FrameLock::new(path.clone());
    /// assert_eq!(lock.acquire(LockMode::Exclusive).unwrap(), Some(0)); // the generation found
    /// assert_eq!(lock.acquire(LockMode::Shared).unwrap(), None); // nested
    /// lock.release().unwrap();
    /// lock.release().unwrap();
    /// assert_eq!(lock.acquire(LockMode::Shared).unwrap(), Some(1));
    /// lock.release().unwrap();
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn acquire(&mut self, mode: LockMode) -> Result<Option<i64>> {
        let held = self.mode;
        let op = match (held, mode) {
            (None, LockMode::Shared) => Some(libc::LOCK_SH),
            (None, LockMode::Exclusive) | (Some(LockMode::Shared), LockMode::Exclusive) => {
                Some(libc::LOCK_EX)
            }
            _ => None,
        };
        let mut found = None;
        if let Some(op) = op {
            let f = self.file()?;
            flock(f, op)?;
            self.mode = Some(mode);
            let g = read_generation(self.file()?)?;
            if mode == LockMode::Exclusive {
                write_generation(self.file()?, g.wrapping_add(1))?;
            }
            found = Some(g);
        }
        self.depth += 1;
        Ok(found)
    }

    /// Release one level of the lock (dropping it at the outermost level). Releasing a lock
    /// that is not held does nothing, as in C-Blosc2.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::lock::{FrameLock, LockMode};
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2lock", std::process::id()));
    /// let mut lock = FrameLock::new(path.clone());
    /// lock.release().unwrap(); // not held: nothing to do
    /// lock.acquire(LockMode::Exclusive).unwrap();
    /// lock.release().unwrap();
    /// assert_eq!(lock.mode(), None);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn release(&mut self) -> Result<()> {
        if self.depth == 0 {
            return Ok(());
        }
        self.depth -= 1;
        if self.depth == 0 {
            self.mode = None;
            if let Some(f) = &self.file {
                flock(f, libc::LOCK_UN)?;
            }
        }
        Ok(())
    }

    /// The generation counter stored in the sidecar, without creating it (0 when missing).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::lock::{FrameLock, LockMode};
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2lock", std::process::id()));
    /// let mut lock = FrameLock::new(path.clone());
    /// assert_eq!(lock.peek_generation().unwrap(), 0);
    /// assert!(!path.exists()); // not created by a peek
    /// lock.acquire(LockMode::Exclusive).unwrap();
    /// lock.release().unwrap();
    /// assert_eq!(lock.peek_generation().unwrap(), 1);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn peek_generation(&mut self) -> Result<i64> {
        if self.file.is_none() && !self.path.exists() {
            return Ok(0);
        }
        self.generation()
    }

    /// The generation counter stored in the sidecar (0 for a new sidecar).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::lock::{FrameLock, LockMode};
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2lock", std::process::id()));
    /// let mut lock = FrameLock::new(path.clone());
    /// assert_eq!(lock.generation().unwrap(), 0);
    /// for _ in 0..3 {
    ///     lock.acquire(LockMode::Exclusive).unwrap();
    ///     lock.release().unwrap();
    /// }
    /// assert_eq!(lock.generation().unwrap(), 3);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn generation(&mut self) -> Result<i64> {
        read_generation(self.file()?)
    }
}

fn read_generation(f: &mut File) -> Result<i64> {
    let mut b = [0u8; 16];
    f.seek(SeekFrom::Start(0)).map_err(|_| Error::Lock)?;
    let mut n = 0;
    while n < 16 {
        match f.read(&mut b[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return Err(Error::Lock),
        }
    }
    if n < 16 {
        return Ok(0);
    }
    Ok(i64::from_le_bytes(b[8..16].try_into().expect("8 bytes")))
}

fn write_generation(f: &mut File, g: i64) -> Result<()> {
    let mut b = [0u8; 16];
    b[8..].copy_from_slice(&g.to_le_bytes());
    f.seek(SeekFrom::Start(0))
        .and_then(|_| f.write_all(&b))
        .map_err(|e| {
            crate::trace_error!("Cannot write the lock file: {}", e);
            Error::Lock
        })
}

impl Drop for FrameLock {
    fn drop(&mut self) {
        if self.depth > 0 {
            self.depth = 1;
            let _ = self.release();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("b2rs-lock-{}-{}", std::process::id(), name));
        let _ = std::fs::remove_file(&d);
        d
    }

    #[test]
    fn sidecar_names() {
        assert_eq!(
            sidecar_path(Path::new("a/x.b2frame"), false),
            PathBuf::from("a/x.b2frame.b2lock")
        );
        assert_eq!(
            sidecar_path(Path::new("a/x.b2sframe"), true),
            PathBuf::from("a/x.b2sframe/.b2lock")
        );
    }

    #[test]
    fn reentrant_and_generation() {
        let p = tmp("gen");
        let mut l = FrameLock::new(p.clone());
        assert_eq!(l.peek_generation().unwrap(), 0);
        assert!(!p.exists());
        assert_eq!(l.generation().unwrap(), 0);
        assert_eq!(l.acquire(LockMode::Exclusive).unwrap(), Some(0));
        assert_eq!(l.acquire(LockMode::Exclusive).unwrap(), None);
        assert_eq!(l.acquire(LockMode::Shared).unwrap(), None);
        assert_eq!(l.mode(), Some(LockMode::Exclusive));
        assert_eq!(l.generation().unwrap(), 1);
        l.release().unwrap();
        l.release().unwrap();
        assert_eq!(l.mode(), Some(LockMode::Exclusive));
        l.release().unwrap();
        assert_eq!(l.mode(), None);
        l.release().unwrap(); // unbalanced: fine
        assert_eq!(l.acquire(LockMode::Shared).unwrap(), Some(1));
        assert_eq!(l.generation().unwrap(), 1);
        assert_eq!(l.acquire(LockMode::Exclusive).unwrap(), Some(1)); // upgrade
        assert_eq!(l.generation().unwrap(), 2);
        l.release().unwrap();
        l.release().unwrap();
        assert_eq!(std::fs::read(&p).unwrap().len(), 16);
        let _ = std::fs::remove_file(&p);
    }

    #[test]
    fn excludes_other_handles() {
        let p = tmp("excl");
        let mut a = FrameLock::new(p.clone());
        let mut b = FrameLock::new(p.clone());
        a.acquire(LockMode::Shared).unwrap();
        b.acquire(LockMode::Shared).unwrap(); // readers share
        b.release().unwrap();
        a.release().unwrap();
        a.acquire(LockMode::Exclusive).unwrap();
        // A second open file description cannot take the lock while `a` holds it.
        let f = File::open(&p).unwrap();
        // SAFETY: valid descriptor.
        let r = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_SH | libc::LOCK_NB) };
        assert_ne!(r, 0);
        a.release().unwrap();
        // SAFETY: valid descriptor.
        let r = unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_SH | libc::LOCK_NB) };
        assert_eq!(r, 0);
        let _ = std::fs::remove_file(&p);
    }
}
