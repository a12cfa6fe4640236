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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    /// Read an existing file (`"rb"`).
    Read,
    /// Read and write an existing file (`"rb+"`).
    ReadWrite,
    /// Create or truncate a file for writing (`"wb"`).
    Create,
    /// Open or create a file for appending (`"ab"`); writes go to the end of the file.
    Append,
}

impl OpenMode {
    /// The C `fopen` mode string.
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
pub trait Io: Send + Sync {
    /// Open `path` in `mode`.
    fn open(&self, path: &Path, mode: OpenMode) -> Result<Box<dyn IoHandle + '_>>;

    /// The C-Blosc2 id of this back-end (`BLOSC2_IO_FILESYSTEM` = 0 by default).
    fn id(&self) -> u8 {
        0
    }

    /// Whether frames on this back-end serialise their accesses through a sidecar lock file
    /// (see [`super::lock`]); `false` by default.
    fn locking(&self) -> bool {
        false
    }

    /// Atomically replace the file `to` with the file `from` (a rename), if the back-end can:
    /// returns `Ok(false)` when it cannot (the default), and the caller then writes in place.
    fn replace_file(&self, from: &Path, to: &Path) -> Result<bool> {
        let _ = (from, to);
        Ok(false)
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
pub trait IoHandle {
    /// The size of the file in bytes.
    fn size(&mut self) -> Result<u64>;
    /// Fill `buf` with the bytes at `pos`; a short read is an error ([`Error::FileRead`]).
    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()>;
    /// Write all of `data` at `pos` (extending the file if needed); a short write is an error
    /// ([`Error::FileWrite`]).
    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()>;
    /// Set the file size to `size` bytes.
    fn truncate(&mut self, size: u64) -> Result<()>;
}

/// The default back-end: regular files through the operating system's positioned I/O.
#[derive(Debug, Default, Clone, Copy)]
pub struct StdIo;

/// [`StdIo`] with file locking on (C-Blosc2's `blosc2_stdio_params.locking`).
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
pub fn read_file(io: &dyn Io, path: &Path) -> Result<Vec<u8>> {
    let mut h = io.open(path, OpenMode::Read)?;
    let size = h.size()?;
    let size = usize::try_from(size).map_err(|_| Error::MemoryAlloc)?;
    let mut buf = vec![0u8; size];
    h.read_at(0, &mut buf)?;
    Ok(buf)
}

/// Create (or overwrite) the file at `path` with `data` through `io`.
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
