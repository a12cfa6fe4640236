//! I/O back-ends of file-based frames: the [`Io`] trait, the default [`StdIo`] (positioned
//! reads and writes on regular files) and, in [`super::mmap`], a memory-mapped one.
//!
//! Like C-Blosc2, a frame opens its file for every operation and closes it (drops the handle)
//! right after, so several frames (or processes) can share a file between operations.

use crate::error::{Error, Result};
use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::Path;

/// How a file is opened (C-Blosc2's `fopen` modes).
///
/// # Examples
///
/// ```
/// use b2rs::frame::io::{Io, OpenMode, StdIo};
///
/// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.bin", std::process::id()));
/// let mut f = StdIo.open(&path, OpenMode::Create).unwrap();
/// f.write_at(0, b"abc").unwrap();
/// drop(f);
/// // appending keeps the content
/// let mut f = StdIo.open(&path, OpenMode::Append).unwrap();
/// let end = f.size().unwrap();
/// f.write_at(end, b"def").unwrap();
/// drop(f);
/// assert_eq!(std::fs::read(&path).unwrap(), b"abcdef");
/// std::fs::remove_file(&path).unwrap();
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    /// Read an existing file (`"rb"`).
    Read,
    /// Read and write an existing file (`"rb+"`).
    ReadWrite,
    /// Create or truncate a file for writing (`"wb"`).
    Create,
    /// Open or create a file to add to it (`"ab"` for C callbacks). [`StdIo`] opens it for
    /// reading and writing without truncating: writes go where `write_at` says (the frame
    /// code writes at the current size).
    Append,
}

impl OpenMode {
    /// The C `fopen` mode string.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::io::OpenMode;
    ///
    /// assert_eq!(OpenMode::Read.as_c_mode(), "rb");
    /// assert_eq!(OpenMode::ReadWrite.as_c_mode(), "rb+");
    /// assert_eq!(OpenMode::Create.as_c_mode(), "wb");
    /// assert_eq!(OpenMode::Append.as_c_mode(), "ab");
    /// ```
    pub fn as_c_mode(self) -> &'static str {
        match self {
            OpenMode::Read => "rb",
            OpenMode::ReadWrite => "rb+",
            OpenMode::Create => "wb",
            OpenMode::Append => "ab",
        }
    }
}

/// An I/O back-end: opens files and hands out handles for positioned I/O.
///
/// # Examples
///
/// ```
/// use std::path::Path;
/// use std::sync::{Arc, Mutex};
/// use b2rs::frame::io::{Io, IoHandle, OpenMode};
/// use b2rs::frame::{Frame, FrameParams, Location};
/// use b2rs::{Error, Result};
///
/// /// Files held in memory: one buffer whatever the path.
/// #[derive(Default)]
/// struct MemIo(Mutex<Vec<u8>>);
/// struct Handle<'a>(&'a Mutex<Vec<u8>>);
///
/// impl Io for MemIo {
///     fn open(&self, _path: &Path, mode: OpenMode) -> Result<Box<dyn IoHandle + '_>> {
///         if mode == OpenMode::Create {
///             self.0.lock().unwrap().clear();
///         }
///         Ok(Box::new(Handle(&self.0)))
///     }
/// }
///
/// impl IoHandle for Handle<'_> {
///     fn size(&mut self) -> Result<u64> {
///         Ok(self.0.lock().unwrap().len() as u64)
///     }
///     fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
///         let v = self.0.lock().unwrap();
///         let src = v.get(pos as usize..pos as usize + buf.len()).ok_or(Error::FileRead)?;
///         buf.copy_from_slice(src);
///         Ok(())
///     }
///     fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
///         let mut v = self.0.lock().unwrap();
///         let end = pos as usize + data.len();
///         if v.len() < end {
///             v.resize(end, 0);
///         }
///         v[pos as usize..end].copy_from_slice(data);
///         Ok(())
///     }
///     fn truncate(&mut self, size: u64) -> Result<()> {
///         self.0.lock().unwrap().resize(size as usize, 0);
///         Ok(())
///     }
/// }
///
/// let io = Arc::new(MemIo::default());
/// let loc = Location::File { path: "virtual.b2frame".into(), offset: 0 };
/// let mut frame = Frame::create(loc.clone(), &FrameParams::default(), io.clone()).unwrap();
/// frame.add_metalayer("m", b"x").unwrap();
/// drop(frame);
/// let frame = Frame::open(loc, io.clone()).unwrap();
/// assert_eq!(frame.metalayers()[0].name, "m");
/// assert_eq!(frame.len() as usize, io.0.lock().unwrap().len());
/// ```
pub trait Io: Send + Sync {
    /// Open `path` in `mode`.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::io::{Io, OpenMode, StdIo};
    /// use b2rs::Error;
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.bin", std::process::id()));
    /// assert!(matches!(StdIo.open(&path, OpenMode::Read), Err(Error::FileOpen)));
    /// let mut f = StdIo.open(&path, OpenMode::Create).unwrap();
    /// f.write_at(4, b"xy").unwrap();
    /// assert_eq!(f.size().unwrap(), 6);
    /// drop(f);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    fn open(&self, path: &Path, mode: OpenMode) -> Result<Box<dyn IoHandle + '_>>;

    /// The C-Blosc2 id of this back-end (`BLOSC2_IO_FILESYSTEM` = 0 by default).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::io::{Io, StdIo};
    /// use b2rs::frame::mmap::{MmapIo, MmapMode};
    ///
    /// assert_eq!(StdIo.id(), 0); // BLOSC2_IO_FILESYSTEM
    /// assert_eq!(MmapIo::new(MmapMode::Read, 0).id(), 1); // BLOSC2_IO_FILESYSTEM_MMAP
    /// ```
    fn id(&self) -> u8 {
        0
    }

    /// Whether frames on this back-end serialise their accesses through a sidecar lock file
    /// (see [`super::lock`]); `false` by default.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::io::{Io, LockingStdIo, StdIo};
    ///
    /// assert!(!StdIo.locking());
    /// assert!(LockingStdIo.locking());
    /// ```
    fn locking(&self) -> bool {
        false
    }

    /// Whether each read of `path` is a round trip (an object store, an HTTP server): a frame
    /// there reads its index a block at a time as its entries are asked for, not whole at open.
    /// `false` by default (and for a file: another handle may rewrite the index in place).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::io::{Io, StdIo};
    ///
    /// assert!(!StdIo.ranged(std::path::Path::new("frame.b2frame")));
    /// ```
    fn ranged(&self, path: &Path) -> bool {
        let _ = path;
        false
    }

    /// Atomically replace the file `to` with the file `from` (a rename), if the back-end can:
    /// returns `Ok(false)` when it cannot (the default), and the caller then writes in place.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::io::{Io, StdIo};
    ///
    /// let dir = std::env::temp_dir();
    /// let (from, to) = (dir.join(format!("b2rs-doc-{}.new", std::process::id())), dir.join(format!("b2rs-doc-{}.old", std::process::id())));
    /// std::fs::write(&from, b"new").unwrap();
    /// std::fs::write(&to, b"old").unwrap();
    /// assert!(StdIo.replace_file(&from, &to).unwrap());
    /// assert_eq!(std::fs::read(&to).unwrap(), b"new");
    /// assert!(!from.exists());
    /// std::fs::remove_file(&to).unwrap();
    /// ```
    fn replace_file(&self, from: &Path, to: &Path) -> Result<bool> {
        let _ = (from, to);
        Ok(false)
    }

    /// Whether `path` is a directory (a sparse frame) rather than a file (a contiguous frame);
    /// an error when it is neither. By default, what the file system says.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::io::{Io, StdIo};
    ///
    /// assert!(StdIo.is_dir(&std::env::temp_dir()).unwrap());
    /// assert!(StdIo.is_dir(std::path::Path::new("/no/such/path")).is_err());
    /// ```
    fn is_dir(&self, path: &Path) -> Result<bool> {
        let md = std::fs::metadata(path).map_err(|_| {
            crate::trace_error!("Cannot get information about the path {}", path.display());
            Error::FileOpen
        })?;
        Ok(md.is_dir())
    }

    /// Forget what the back-end holds in memory of `path` and of the files below it (a
    /// remote back-end's cached ranges), so the next read sees the stored bytes; a no-op by
    /// default.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::io::{Io, StdIo};
    ///
    /// StdIo.forget(std::path::Path::new("any")); // nothing held
    /// ```
    fn forget(&self, path: &Path) {
        let _ = path;
    }

    /// Make sure the directory `dir` of a sparse frame exists, and list the files in it
    /// (`None` when the back-end cannot list: an object store). By default, the file system.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::io::{Io, StdIo};
    ///
    /// let dir = std::env::temp_dir().join(format!("b2rs-doc-{}.d", std::process::id()));
    /// std::fs::create_dir_all(&dir).unwrap();
    /// std::fs::write(dir.join("x"), b"1").unwrap();
    /// assert_eq!(StdIo.prepare_dir(&dir).unwrap(), Some(vec![dir.join("x")]));
    /// std::fs::remove_dir_all(&dir).unwrap();
    /// ```
    fn prepare_dir(&self, dir: &Path) -> Result<Option<Vec<std::path::PathBuf>>> {
        std::fs::create_dir_all(dir).map_err(|e| {
            crate::trace_error!("Cannot create the directory {}: {}", dir.display(), e);
            Error::FileOpen
        })?;
        let entries = std::fs::read_dir(dir).map_err(|_| Error::FileOpen)?;
        let mut v: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        v.sort();
        Ok(Some(v))
    }

    /// Delete the file at `path`. By default, the file system.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::io::{Io, StdIo};
    /// use b2rs::Error;
    ///
    /// let p = std::env::temp_dir().join(format!("b2rs-doc-{}.rm", std::process::id()));
    /// std::fs::write(&p, b"1").unwrap();
    /// StdIo.remove_file(&p).unwrap();
    /// assert_eq!(StdIo.remove_file(&p), Err(Error::FileRemove));
    /// ```
    fn remove_file(&self, path: &Path) -> Result<()> {
        std::fs::remove_file(path).map_err(|e| {
            crate::trace_error!("Cannot remove {}: {}", path.display(), e);
            Error::FileRemove
        })
    }

    /// Delete the file at `path` once what is being written now is durable: a sparse frame's
    /// chunk file that a change dropped goes only after the new index is stored (a remote
    /// back-end waits for [`Io::flush`]), so a writer stopped in between leaves the old index
    /// with every chunk it names. By default, at once ([`Io::remove_file`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::io::{Io, StdIo};
    ///
    /// let p = std::env::temp_dir().join(format!("b2rs-doc-{}.later", std::process::id()));
    /// std::fs::write(&p, b"1").unwrap();
    /// StdIo.remove_after_flush(&p).unwrap();
    /// assert!(!p.exists());
    /// ```
    fn remove_after_flush(&self, path: &Path) -> Result<()> {
        self.remove_file(path)
    }

    /// Whether [`Io::remove_after_flush`] waits for [`Io::flush`] and files are replaced by
    /// uploads (an object store): a sparse frame there never writes a chunk file under a name
    /// an older index may still name (a new frame numbers its chunk files past those found in
    /// its prefix, a writer never reuses the number of a chunk file it dropped), and a new
    /// frame is stored only at its first change or flush, so the frame it replaces stays
    /// readable until then. `false` by default (files: as C-Blosc2).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::io::{Io, StdIo};
    ///
    /// assert!(!StdIo.deferred_removal());
    /// ```
    fn deferred_removal(&self) -> bool {
        false
    }

    /// Make what was written at `path` (and below it) durable where the back-end defers it:
    /// a remote back-end uploads its staged objects. A no-op by default (files are written
    /// in place).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::io::{Io, StdIo};
    ///
    /// StdIo.flush(std::path::Path::new("any")).unwrap();
    /// ```
    fn flush(&self, path: &Path) -> Result<()> {
        let _ = path;
        Ok(())
    }
}

fn rename(from: &Path, to: &Path) -> Result<bool> {
    std::fs::rename(from, to).map_err(|e| {
        crate::trace_error!(
            "Cannot rename {} to {}: {}",
            from.display(),
            to.display(),
            e
        );
        Error::FileWrite
    })?;
    Ok(true)
}

/// An open file of an [`Io`] back-end. Dropping it closes the file.
///
/// # Examples
///
/// ```
/// use b2rs::frame::io::{Io, IoHandle, OpenMode, StdIo};
///
/// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.bin", std::process::id()));
/// let mut h: Box<dyn IoHandle> = StdIo.open(&path, OpenMode::Create).unwrap();
/// h.write_at(0, b"hello world").unwrap();
/// let mut buf = [0u8; 5];
/// h.read_at(6, &mut buf).unwrap();
/// assert_eq!(&buf, b"world");
/// drop(h);
/// std::fs::remove_file(&path).unwrap();
/// ```
pub trait IoHandle {
    /// The size of the file in bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::io::{Io, OpenMode, StdIo};
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.bin", std::process::id()));
    /// std::fs::write(&path, [0u8; 42]).unwrap();
    /// assert_eq!(StdIo.open(&path, OpenMode::Read).unwrap().size().unwrap(), 42);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    fn size(&mut self) -> Result<u64>;
    /// Fill `buf` with the bytes at `pos`; a short read is an error ([`Error::FileRead`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::io::{Io, OpenMode, StdIo};
    /// use b2rs::Error;
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.bin", std::process::id()));
    /// std::fs::write(&path, b"0123456789").unwrap();
    /// let mut h = StdIo.open(&path, OpenMode::Read).unwrap();
    /// let mut buf = [0u8; 3];
    /// h.read_at(7, &mut buf).unwrap();
    /// assert_eq!(&buf, b"789");
    /// // a short read is an error
    /// assert_eq!(h.read_at(8, &mut buf), Err(Error::FileRead));
    /// drop(h);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()>;
    /// Write all of `data` at `pos` (extending the file if needed); a short write is an error
    /// ([`Error::FileWrite`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::io::{Io, OpenMode, StdIo};
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.bin", std::process::id()));
    /// std::fs::write(&path, b"0123").unwrap();
    /// let mut h = StdIo.open(&path, OpenMode::ReadWrite).unwrap();
    /// h.write_at(2, b"abcd").unwrap(); // extends the file
    /// drop(h);
    /// assert_eq!(std::fs::read(&path).unwrap(), b"01abcd");
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()>;
    /// Set the file size to `size` bytes.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::io::{Io, OpenMode, StdIo};
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.bin", std::process::id()));
    /// std::fs::write(&path, b"0123456789").unwrap();
    /// let mut h = StdIo.open(&path, OpenMode::ReadWrite).unwrap();
    /// h.truncate(4).unwrap();
    /// assert_eq!(h.size().unwrap(), 4);
    /// drop(h);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    fn truncate(&mut self, size: u64) -> Result<()>;

    /// The version of the stored object this handle reads (a remote object's ETag): every
    /// read of the handle is of that version; `None` (the default) when the back-end has no
    /// versions (a file).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::io::{Io, OpenMode, StdIo};
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.ver", std::process::id()));
    /// std::fs::write(&path, b"x").unwrap();
    /// assert_eq!(StdIo.open(&path, OpenMode::Read).unwrap().version(), None);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    fn version(&self) -> Option<String> {
        None
    }
}

/// Open `path` for reading, checking that it still holds `version` (the version a frame read
/// its state from: `None`, no check): a replaced object fails with [`Error::FileRead`] rather
/// than giving bytes of another version.
///
/// # Examples
///
/// ```
/// use b2rs::frame::io::{open_version, StdIo};
///
/// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.ov", std::process::id()));
/// std::fs::write(&path, b"x").unwrap();
/// assert!(open_version(&StdIo, &path, None).is_ok());
/// assert!(open_version(&StdIo, &path, Some("\"e1\"")).is_err()); // a file has no version
/// std::fs::remove_file(&path).unwrap();
/// ```
pub fn open_version<'a>(
    io: &'a dyn Io,
    path: &Path,
    version: Option<&str>,
) -> Result<Box<dyn IoHandle + 'a>> {
    let h = io.open(path, OpenMode::Read)?;
    if let Some(v) = version {
        let now = h.version();
        if now.as_deref() != Some(v) {
            crate::trace_error!(
                "{}: replaced since the frame was read (version {}, now {}): refresh the frame \
                 (blosc2_schunk_refresh) or open it again",
                path.display(),
                v,
                now.as_deref().unwrap_or("unknown")
            );
            return Err(Error::FileRead);
        }
    }
    Ok(h)
}

/// The default back-end: regular files through the operating system's positioned I/O.
///
/// # Examples
///
/// ```
/// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
/// use std::sync::Arc;
/// use b2rs::frame::{io::StdIo, Frame, FrameParams, Location};
///
/// let loc = Location::File { path: path.clone(), offset: 0 };
/// Frame::create(loc.clone(), &FrameParams::default(), Arc::new(StdIo)).unwrap();
/// assert!(path.exists());
/// assert_eq!(Frame::open(loc, Arc::new(StdIo)).unwrap().nchunks(), 0);
/// std::fs::remove_file(&path).unwrap();
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct StdIo;

/// [`StdIo`] with file locking on (C-Blosc2's `blosc2_stdio_params.locking`).
///
/// # Examples
///
/// ```
/// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
/// use std::sync::Arc;
/// use b2rs::frame::{io::LockingStdIo, lock, Frame, FrameParams, Location};
///
/// let loc = Location::File { path: path.clone(), offset: 0 };
/// let mut frame = Frame::create(loc, &FrameParams::default(), Arc::new(LockingStdIo)).unwrap();
/// assert!(frame.is_locking());
/// frame.add_metalayer("m", b"v").unwrap();
/// // accesses go through the sidecar lock file
/// let sidecar = lock::sidecar_path(&path, false);
/// assert!(sidecar.exists());
/// drop(frame);
/// std::fs::remove_file(&sidecar).unwrap();
/// std::fs::remove_file(&path).unwrap();
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct LockingStdIo;

impl Io for LockingStdIo {
    fn open(&self, path: &Path, mode: OpenMode) -> Result<Box<dyn IoHandle + '_>> {
        StdIo.open(path, mode)
    }

    fn locking(&self) -> bool {
        true
    }

    fn replace_file(&self, from: &Path, to: &Path) -> Result<bool> {
        rename(from, to)
    }
}

struct StdHandle {
    file: File,
}

impl Io for StdIo {
    fn open(&self, path: &Path, mode: OpenMode) -> Result<Box<dyn IoHandle + '_>> {
        let mut o = OpenOptions::new();
        match mode {
            OpenMode::Read => o.read(true),
            OpenMode::ReadWrite => o.read(true).write(true),
            OpenMode::Create => o.read(true).write(true).create(true).truncate(true),
            OpenMode::Append => o.read(true).write(true).create(true),
        };
        let file = o.open(path).map_err(|e| {
            crate::trace_error!(
                "Cannot open the file {} ({:?}): {}",
                path.display(),
                mode,
                e
            );
            Error::FileOpen
        })?;
        Ok(Box::new(StdHandle { file }))
    }

    fn replace_file(&self, from: &Path, to: &Path) -> Result<bool> {
        rename(from, to)
    }
}

impl IoHandle for StdHandle {
    fn size(&mut self) -> Result<u64> {
        self.file.metadata().map(|m| m.len()).map_err(|e| {
            crate::trace_error!("Cannot get the file size: {}", e);
            Error::FileRead
        })
    }

    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        self.file.read_exact_at(buf, pos).map_err(|e| {
            crate::trace_error!("Cannot read {} bytes at {}: {}", buf.len(), pos, e);
            Error::FileRead
        })
    }

    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        self.file.write_all_at(data, pos).map_err(|e| {
            crate::trace_error!("Cannot write {} bytes at {}: {}", data.len(), pos, e);
            Error::FileWrite
        })
    }

    fn truncate(&mut self, size: u64) -> Result<()> {
        self.file.set_len(size).map_err(|e| {
            crate::trace_error!("Cannot truncate the file to {} bytes: {}", size, e);
            Error::FileTruncate
        })
    }
}

/// Read the whole file at `path` through `io`.
///
/// # Examples
///
/// ```
/// use b2rs::frame::io::{read_file, write_file, StdIo};
///
/// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.bin", std::process::id()));
/// write_file(&StdIo, &path, b"some bytes").unwrap();
/// assert_eq!(read_file(&StdIo, &path).unwrap(), b"some bytes");
/// std::fs::remove_file(&path).unwrap();
/// assert!(read_file(&StdIo, &path).is_err());
/// ```
pub fn read_file(io: &dyn Io, path: &Path) -> Result<Vec<u8>> {
    let mut h = io.open(path, OpenMode::Read)?;
    let size = h.size()?;
    let size = usize::try_from(size).map_err(|_| Error::MemoryAlloc)?;
    let mut buf = vec![0u8; size];
    h.read_at(0, &mut buf)?;
    Ok(buf)
}

/// Create (or overwrite) the file at `path` with `data` through `io`.
///
/// # Examples
///
/// ```
/// use b2rs::frame::io::{read_file, write_file, StdIo};
///
/// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.bin", std::process::id()));
/// write_file(&StdIo, &path, b"a longer first content").unwrap();
/// write_file(&StdIo, &path, b"short").unwrap(); // overwritten, not merged
/// assert_eq!(read_file(&StdIo, &path).unwrap(), b"short");
/// std::fs::remove_file(&path).unwrap();
/// ```
pub fn write_file(io: &dyn Io, path: &Path, data: &[u8]) -> Result<()> {
    let mut h = io.open(path, OpenMode::Create)?;
    h.write_at(0, data)?;
    h.truncate(data.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stdio_roundtrip() {
        let dir = std::env::temp_dir().join(format!("b2rs-io-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("f.bin");
        write_file(&StdIo, &p, b"hello world").unwrap();
        assert_eq!(read_file(&StdIo, &p).unwrap(), b"hello world");
        {
            let mut h = StdIo.open(&p, OpenMode::ReadWrite).unwrap();
            h.write_at(20, b"!").unwrap();
            assert_eq!(h.size().unwrap(), 21);
            let mut b = [0u8; 5];
            h.read_at(6, &mut b).unwrap();
            assert_eq!(&b, b"world");
            assert_eq!(h.read_at(19, &mut b).unwrap_err(), Error::FileRead);
            h.truncate(5).unwrap();
        }
        assert_eq!(read_file(&StdIo, &p).unwrap(), b"hello");
        assert_eq!(
            StdIo.open(&dir.join("nope"), OpenMode::Read).err(),
            Some(Error::FileOpen)
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
