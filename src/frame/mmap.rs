//! A memory-mapped I/O back-end (the Rust side of C-Blosc2's `BLOSC2_IO_FILESYSTEM_MMAP`).
//!
//! As in C-Blosc2, the file is mapped once, at the first `open`, and stays mapped until the
//! back-end is dropped; later `open` calls must name the same file (so sparse frames, which use
//! many files, are not supported). Writes extend the file as needed and grow the mapping by
//! doubling it. Reads copy out of the mapping.

use super::io::{Io, IoHandle, OpenMode};
use crate::error::{Error, Result};
use std::fs::{File, OpenOptions};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// How the mapped file is opened (NumPy's `memmap` modes).
///
/// # Examples
///
/// ```
/// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
/// use std::sync::Arc;
/// use b2rs::frame::mmap::{MmapIo, MmapMode};
/// use b2rs::frame::{Frame, FrameParams, Location};
///
/// let loc = Location::File { path: path.clone(), offset: 0 };
/// let mut frame = Frame::create(loc.clone(), &FrameParams::default(), Arc::new(MmapIo::new(MmapMode::Create, 1 << 20))).unwrap();
/// frame.add_metalayer("m", b"v").unwrap();
/// drop(frame);
/// let frame = Frame::open(loc, Arc::new(MmapIo::new(MmapMode::Read, 0))).unwrap();
/// assert_eq!(frame.metalayers()[0].content, b"v");
/// drop(frame);
/// std::fs::remove_file(&path).unwrap();
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MmapMode {
    /// `"r"`: read only.
    Read,
    /// `"r+"`: read and write an existing file.
    ReadWrite,
    /// `"w+"`: create (or truncate) the file, read and write.
    Create,
    /// `"c"`: copy on write: read the file, keep every change in memory only.
    CopyOnWrite,
}

impl MmapMode {
    /// The mode for its C string (`"r"`, `"r+"`, `"w+"`, `"c"`).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::mmap::MmapMode;
    ///
    /// assert_eq!(MmapMode::from_c_mode("r+"), Some(MmapMode::ReadWrite));
    /// assert_eq!(MmapMode::from_c_mode("c"), Some(MmapMode::CopyOnWrite));
    /// assert_eq!(MmapMode::from_c_mode("rw"), None);
    /// ```
    pub fn from_c_mode(mode: &str) -> Option<MmapMode> {
        match mode {
            "r" => Some(MmapMode::Read),
            "r+" => Some(MmapMode::ReadWrite),
            "w+" => Some(MmapMode::Create),
            "c" => Some(MmapMode::CopyOnWrite),
            _ => None,
        }
    }

    /// The C string of the mode.
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::mmap::MmapMode;
    ///
    /// assert_eq!(MmapMode::Create.c_mode(), "w+");
    /// assert_eq!(MmapMode::from_c_mode(MmapMode::ReadWrite.c_mode()), Some(MmapMode::ReadWrite));
    /// ```
    pub fn c_mode(self) -> &'static str {
        match self {
            MmapMode::Read => "r",
            MmapMode::ReadWrite => "r+",
            MmapMode::Create => "w+",
            MmapMode::CopyOnWrite => "c",
        }
    }
}

/// The memory-mapped back-end.
///
/// # Examples
///
/// ```
/// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.b2frame", std::process::id()));
/// use std::sync::Arc;
/// use b2rs::frame::mmap::{MmapIo, MmapMode};
/// use b2rs::frame::{Frame, FrameParams, Location};
///
/// let loc = Location::File { path: path.clone(), offset: 0 };
/// let mut frame = Frame::create(loc.clone(), &FrameParams::default(), Arc::new(MmapIo::new(MmapMode::Create, 1 << 20))).unwrap();
/// frame.add_metalayer("m", b"v1").unwrap();
/// drop(frame);
/// // copy on write: changes stay in memory
/// let mut cow = Frame::open(loc.clone(), Arc::new(MmapIo::new(MmapMode::CopyOnWrite, 0))).unwrap();
/// cow.update_metalayer(0, b"v2").unwrap();
/// assert_eq!(cow.metalayers()[0].content, b"v2");
/// drop(cow);
/// let frame = Frame::open(loc, Arc::new(MmapIo::new(MmapMode::Read, 0))).unwrap();
/// assert_eq!(frame.metalayers()[0].content, b"v1");
/// drop(frame);
/// std::fs::remove_file(&path).unwrap();
/// ```
pub struct MmapIo {
    mode: MmapMode,
    initial_mapping_size: usize,
    state: Mutex<Option<Mapped>>,
}

enum Content {
    /// A shared mapping of the file (`len` bytes mapped at `addr`).
    Map { addr: *mut u8, len: usize },
    /// Copy-on-write mode: the file's bytes, changed in memory only.
    Private(Vec<u8>),
    /// An empty read-only file (nothing to map).
    Empty,
}

struct Mapped {
    path: PathBuf,
    file: File,
    content: Content,
    file_size: usize,
    writable: bool,
}

// SAFETY: the mapping is owned by `Mapped` and only accessed under the `MmapIo` mutex.
unsafe impl Send for Mapped {}

impl MmapIo {
    /// A back-end mapping its file in `mode`, with a first mapping of at least
    /// `initial_mapping_size` bytes in the writable modes (C-Blosc2's default is 1 GiB: the
    /// mapping only reserves address space).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::frame::io::{Io, OpenMode};
    /// use b2rs::frame::mmap::{MmapIo, MmapMode};
    ///
    /// let path = std::env::temp_dir().join(format!("b2rs-doc-{}.bin", std::process::id()));
    /// std::fs::write(&path, b"mapped bytes").unwrap();
    /// let io = MmapIo::new(MmapMode::Read, 0);
    /// let mut h = io.open(&path, OpenMode::Read).unwrap();
    /// let mut buf = [0u8; 5];
    /// h.read_at(7, &mut buf).unwrap();
    /// assert_eq!(&buf, b"bytes");
    /// drop(h);
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn new(mode: MmapMode, initial_mapping_size: usize) -> MmapIo {
        MmapIo {
            mode,
            initial_mapping_size,
            state: Mutex::new(None),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Option<Mapped>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn map(&self, path: &Path) -> Result<Mapped> {
        let mut o = OpenOptions::new();
        let writable = matches!(self.mode, MmapMode::ReadWrite | MmapMode::Create);
        match self.mode {
            MmapMode::Read | MmapMode::CopyOnWrite => o.read(true),
            MmapMode::ReadWrite => o.read(true).write(true),
            MmapMode::Create => o.read(true).write(true).create(true).truncate(true),
        };
        let file = o.open(path).map_err(|e| {
            crate::trace_error!("Cannot open {} for mapping: {}", path.display(), e);
            Error::FileOpen
        })?;
        let file_size = file.metadata().map_err(|_| Error::FileRead)?.len();
        let file_size = usize::try_from(file_size).map_err(|_| Error::FileOpen)?;
        let content = match self.mode {
            MmapMode::CopyOnWrite => {
                let mut buf = vec![0u8; file_size];
                std::os::unix::fs::FileExt::read_exact_at(&file, &mut buf, 0)
                    .map_err(|_| Error::FileRead)?;
                Content::Private(buf)
            }
            MmapMode::Read if file_size == 0 => Content::Empty,
            _ => {
                let len = if writable {
                    self.initial_mapping_size.max(file_size).max(1)
                } else {
                    file_size
                };
                let prot = if writable {
                    libc::PROT_READ | libc::PROT_WRITE
                } else {
                    libc::PROT_READ
                };
                // SAFETY: a fresh shared mapping of an open file descriptor; the result is
                // checked against MAP_FAILED and owned by the returned `Mapped`.
                let addr = unsafe {
                    libc::mmap(
                        std::ptr::null_mut(),
                        len,
                        prot,
                        libc::MAP_SHARED,
                        file.as_raw_fd(),
                        0,
                    )
                };
                if addr == libc::MAP_FAILED {
                    crate::trace_error!("Memory mapping failed for {}", path.display());
                    return Err(Error::FileOpen);
                }
                Content::Map {
                    addr: addr as *mut u8,
                    len,
                }
            }
        };
        // the size C-Blosc2 reports: the initial mapping size in the modes that may grow
        let reported = match (&content, self.mode) {
            (Content::Map { len, .. }, _) => *len,
            (_, MmapMode::CopyOnWrite) => self.initial_mapping_size.max(file_size).max(1),
            _ => file_size.max(1),
        };
        crate::trace_info!(
            "Opened memory-mapped file {} in mode {} with an mapping size of {} bytes.",
            path.display(),
            self.mode.c_mode(),
            reported
        );
        Ok(Mapped {
            path: path.to_path_buf(),
            file,
            content,
            file_size,
            writable,
        })
    }
}

impl Mapped {
    fn read_at(&self, pos: u64, buf: &mut [u8]) -> Result<()> {
        let start = usize::try_from(pos).map_err(|_| Error::FileRead)?;
        let end = start.checked_add(buf.len()).ok_or(Error::FileRead)?;
        if end > self.file_size {
            crate::trace_error!("Cannot read beyond the end of the memory-mapped file");
            return Err(Error::FileRead);
        }
        match &self.content {
            Content::Map { addr, .. } => {
                // SAFETY: `start..end` lies within the file's size, which is within the mapping
                // and backed by the file.
                let src = unsafe { std::slice::from_raw_parts(addr.add(start), buf.len()) };
                buf.copy_from_slice(src);
            }
            Content::Private(v) => buf.copy_from_slice(&v[start..end]),
            Content::Empty => {
                if !buf.is_empty() {
                    return Err(Error::FileRead);
                }
            }
        }
        Ok(())
    }

    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        let start = usize::try_from(pos).map_err(|_| Error::FileWrite)?;
        let end = start.checked_add(data.len()).ok_or(Error::FileWrite)?;
        if let Content::Private(v) = &mut self.content {
            if end > v.len() {
                v.resize(end, 0);
            }
            v[start..end].copy_from_slice(data);
            self.file_size = v.len();
            return Ok(());
        }
        if !self.writable {
            crate::trace_error!("The memory-mapped file is read only");
            return Err(Error::FileWrite);
        }
        if data.is_empty() {
            return Ok(());
        }
        if end > self.file_size {
            self.file
                .set_len(end as u64)
                .map_err(|_| Error::FileWrite)?;
            self.file_size = end;
        }
        if let Content::Map { addr, len } = &mut self.content {
            if *len < self.file_size {
                let new_len = self.file_size.saturating_mul(2);
                // SAFETY: remapping our own mapping; the result is checked.
                let new_addr =
                    unsafe { libc::mremap(*addr as *mut _, *len, new_len, libc::MREMAP_MAYMOVE) };
                if new_addr == libc::MAP_FAILED {
                    crate::trace_error!("Cannot grow the memory mapping");
                    return Err(Error::FileWrite);
                }
                *addr = new_addr as *mut u8;
                *len = new_len;
            }
            // SAFETY: `start..end` lies within the file (just extended) and the mapping.
            let dst = unsafe { std::slice::from_raw_parts_mut(addr.add(start), data.len()) };
            dst.copy_from_slice(data);
            Ok(())
        } else {
            Err(Error::FileWrite)
        }
    }

    fn truncate(&mut self, size: u64) -> Result<()> {
        let size = usize::try_from(size).map_err(|_| Error::FileTruncate)?;
        match &mut self.content {
            Content::Private(v) => {
                v.resize(size, 0);
            }
            _ => {
                if !self.writable {
                    return Err(Error::FileTruncate);
                }
                self.file
                    .set_len(size as u64)
                    .map_err(|_| Error::FileTruncate)?;
            }
        }
        self.file_size = size;
        Ok(())
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        if let Content::Map { addr, len } = self.content {
            // SAFETY: unmapping our own mapping, after syncing the written pages to the file.
            unsafe {
                if self.writable {
                    libc::msync(addr as *mut _, self.file_size.min(len), libc::MS_SYNC);
                }
                libc::munmap(addr as *mut _, len);
            }
        }
    }
}

struct MmapHandle<'a> {
    io: &'a MmapIo,
}

impl Io for MmapIo {
    fn open(&self, path: &Path, _mode: OpenMode) -> Result<Box<dyn IoHandle + '_>> {
        let mut st = self.lock();
        match &*st {
            Some(m) if m.path != path => {
                crate::trace_error!(
                    "The memory-mapped file {} cannot be reopened as {} (sparse frames are not \
                     supported)",
                    m.path.display(),
                    path.display()
                );
                return Err(Error::FileOpen);
            }
            Some(_) => {}
            None => *st = Some(self.map(path)?),
        }
        Ok(Box::new(MmapHandle { io: self }))
    }

    fn id(&self) -> u8 {
        1
    }
}

impl MmapHandle<'_> {
    fn with<R>(&mut self, f: impl FnOnce(&mut Mapped) -> Result<R>) -> Result<R> {
        let mut st = self.io.lock();
        let m = st.as_mut().ok_or(Error::FileOpen)?;
        f(m)
    }
}

impl IoHandle for MmapHandle<'_> {
    fn size(&mut self) -> Result<u64> {
        self.with(|m| Ok(m.file_size as u64))
    }

    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        self.with(|m| m.read_at(pos, buf))
    }

    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        self.with(|m| m.write_at(pos, data))
    }

    fn truncate(&mut self, size: u64) -> Result<()> {
        self.with(|m| m.truncate(size))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mmap_modes() {
        let dir = std::env::temp_dir().join(format!("b2rs-mmap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("m.bin");
        {
            let io = MmapIo::new(MmapMode::Create, 16);
            let mut h = io.open(&p, OpenMode::Create).unwrap();
            h.write_at(0, b"0123456789").unwrap();
            h.write_at(30, b"abc").unwrap(); // grows the mapping
            assert_eq!(h.size().unwrap(), 33);
            h.truncate(12).unwrap();
            let mut b = [0u8; 4];
            h.read_at(2, &mut b).unwrap();
            assert_eq!(&b, b"2345");
            assert!(h.read_at(10, &mut b).is_err());
            drop(h);
            assert!(io.open(&dir.join("other"), OpenMode::Read).is_err());
        }
        assert_eq!(std::fs::read(&p).unwrap(), b"0123456789\0\0");
        {
            let io = MmapIo::new(MmapMode::CopyOnWrite, 0);
            let mut h = io.open(&p, OpenMode::ReadWrite).unwrap();
            h.write_at(0, b"XY").unwrap();
            let mut b = [0u8; 3];
            h.read_at(0, &mut b).unwrap();
            assert_eq!(&b, b"XY2");
        }
        assert_eq!(std::fs::read(&p).unwrap(), b"0123456789\0\0");
        {
            let io = MmapIo::new(MmapMode::Read, 0);
            let mut h = io.open(&p, OpenMode::Read).unwrap();
            assert!(h.write_at(0, b"z").is_err());
            let mut b = [0u8; 2];
            h.read_at(8, &mut b).unwrap();
            assert_eq!(&b, b"89");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
