//! The I/O registry (`blosc2_register_io_cb`, `blosc2_get_io_cb`, area 10 of the API) and
//! [`CIo`], which turns a C `blosc2_io_cb` into the core's [`Io`] trait.

use super::consts::{BLOSC2_IO_FILESYSTEM, BLOSC2_IO_FILESYSTEM_MMAP, BLOSC2_IO_REGISTERED};
use super::guard;
use super::stdio::*;
use super::types::*;
use crate::frame::{Io, IoHandle, OpenMode};
use crate::{Error, Result};
use core::ffi::{c_int, c_void, CStr};
use std::ffi::CString;
use std::path::Path;
use std::ptr;
use std::sync::Mutex;

/// Addresses of the registered `blosc2_io_cb` entries (leaked, so the pointers handed out by
/// `blosc2_get_io_cb` stay valid).
static REGISTRY: Mutex<Vec<usize>> = Mutex::new(Vec::new());

fn stdio_cb() -> blosc2_io_cb {
    blosc2_io_cb {
        id: BLOSC2_IO_FILESYSTEM as u8,
        name: c"filesystem".as_ptr() as *mut _,
        is_allocation_necessary: 1,
        open: Some(blosc2_stdio_open),
        close: Some(blosc2_stdio_close),
        size: Some(blosc2_stdio_size),
        write: Some(blosc2_stdio_write),
        read: Some(blosc2_stdio_read),
        truncate: Some(blosc2_stdio_truncate),
        destroy: Some(blosc2_stdio_destroy),
    }
}

fn mmap_cb() -> blosc2_io_cb {
    blosc2_io_cb {
        id: BLOSC2_IO_FILESYSTEM_MMAP as u8,
        name: c"filesystem_mmap".as_ptr() as *mut _,
        is_allocation_necessary: 0,
        open: Some(blosc2_stdio_mmap_open),
        close: Some(blosc2_stdio_mmap_close),
        size: Some(blosc2_stdio_mmap_size),
        write: Some(blosc2_stdio_mmap_write),
        read: Some(blosc2_stdio_mmap_read),
        truncate: Some(blosc2_stdio_mmap_truncate),
        destroy: Some(blosc2_stdio_mmap_destroy),
    }
}

fn same_name(a: *const core::ffi::c_char, b: *const core::ffi::c_char) -> bool {
    match (a.is_null(), b.is_null()) {
        (true, true) => true,
        (false, false) => {
            // SAFETY: both are NUL-terminated names of registered (or registering) back-ends.
            unsafe { CStr::from_ptr(a) == CStr::from_ptr(b) }
        }
        _ => false,
    }
}

/// Register (a copy of) `io`; 0 if it is or was already registered with the same name.
fn register(io: &blosc2_io_cb) -> c_int {
    let mut reg = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    for &p in reg.iter() {
        // SAFETY: registry entries are leaked, never freed.
        let e = unsafe { &*(p as *const blosc2_io_cb) };
        if e.id == io.id {
            if same_name(e.name, io.name) {
                return 0;
            }
            crate::trace_error!(
                "The IO (ID: {}) is already registered with another name",
                io.id
            );
            return Error::PluginIo.code();
        }
    }
    if reg.len() >= u8::MAX as usize {
        crate::trace_error!("Can not register more IO back-ends");
        return Error::CodecSupport.code();
    }
    reg.push(Box::into_raw(Box::new(*io)) as usize);
    0
}

fn lookup(id: u8) -> *mut blosc2_io_cb {
    let reg = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    reg.iter()
        .map(|&p| p as *mut blosc2_io_cb)
        // SAFETY: registry entries are leaked, never freed.
        .find(|&p| unsafe { (*p).id } == id)
        .unwrap_or(ptr::null_mut())
}

/// The registered back-end `id` (registering the built-in filesystem and mmap ones on first
/// use), or NULL.
pub(crate) fn io_cb(id: u8) -> *mut blosc2_io_cb {
    let p = lookup(id);
    if !p.is_null() {
        return p;
    }
    let builtin = match id as c_int {
        BLOSC2_IO_FILESYSTEM => stdio_cb(),
        BLOSC2_IO_FILESYSTEM_MMAP => mmap_cb(),
        _ => return ptr::null_mut(),
    };
    register(&builtin);
    lookup(id)
}

/// Register a user-defined I/O back-end (ids 160..=255). Returns 0 on success.
///
/// # Safety
/// `io` must be NULL or point to a valid struct; its name and callbacks must stay valid for the
/// life of the process.
#[no_mangle]
pub unsafe extern "C" fn blosc2_register_io_cb(io: *const blosc2_io_cb) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: checked for NULL.
        let Some(io) = (unsafe { io.as_ref() }) else {
            return Error::InvalidParam.code();
        };
        if (io.id as c_int) < BLOSC2_IO_REGISTERED {
            crate::trace_error!("The IO id must be >= {}", BLOSC2_IO_REGISTERED);
            return Error::PluginIo.code();
        }
        register(io)
    })
}

/// The registered I/O back-end `id` (0 = filesystem, 1 = memory-mapped files, ≥ 160 user), or
/// NULL.
///
/// # Safety
/// Always safe; the returned struct lives as long as the process.
#[no_mangle]
pub unsafe extern "C" fn blosc2_get_io_cb(id: u8) -> *mut blosc2_io_cb {
    guard(ptr::null_mut(), || io_cb(id))
}

/// A C I/O back-end (`blosc2_io_cb` plus its `params`) used through the core's [`Io`] trait.
/// When dropped it calls the back-end's `destroy(params)`, as C-Blosc2 does when it frees a
/// super-chunk.
pub struct CIo {
    cb: blosc2_io_cb,
    params: *mut c_void,
    destroy_on_drop: bool,
}

// SAFETY: C-Blosc2's I/O back-ends are called from any thread (frames are shared between the
// threads of a super-chunk); the callbacks and params are the user's responsibility, as in C.
unsafe impl Send for CIo {}
// SAFETY: see above.
unsafe impl Sync for CIo {}

impl CIo {
    /// Wrap `cb` with `params`.
    ///
    /// # Safety
    /// The callbacks must follow the `blosc2_io_cb` contract and `params` must stay valid for
    /// the life of the returned value.
    pub unsafe fn new(cb: blosc2_io_cb, params: *mut c_void) -> CIo {
        CIo {
            cb,
            params,
            destroy_on_drop: true,
        }
    }

    /// The back-end selected by a `blosc2_io` (looked up in the registry; NULL selects the
    /// default filesystem back-end).
    ///
    /// # Safety
    /// `io` must be NULL or valid; its `params` must stay valid for the life of the result.
    pub unsafe fn from_io(io: *const blosc2_io) -> Result<CIo> {
        // SAFETY: caller's contract.
        let (id, params) = match unsafe { io.as_ref() } {
            Some(io) => (io.id, io.params),
            None => (BLOSC2_IO_FILESYSTEM as u8, ptr::null_mut()),
        };
        let p = io_cb(id);
        if p.is_null() {
            crate::trace_error!("Error getting the input/output API (id {})", id);
            return Err(Error::PluginIo);
        }
        // SAFETY: a registry entry (valid forever) and the caller's params.
        Ok(unsafe { CIo::new(*p, params) })
    }

    /// Do not call `destroy(params)` when dropped.
    pub fn keep_params(mut self) -> CIo {
        self.destroy_on_drop = false;
        self
    }

    /// The back-end's struct.
    pub fn callbacks(&self) -> &blosc2_io_cb {
        &self.cb
    }
}

impl Drop for CIo {
    fn drop(&mut self) {
        if self.destroy_on_drop {
            if let Some(d) = self.cb.destroy {
                // SAFETY: the back-end's own destroy on its own params.
                let _ = guard(0, || unsafe { d(self.params) });
            }
        }
    }
}

struct CHandle<'a> {
    io: &'a CIo,
    stream: *mut c_void,
}

impl Io for CIo {
    fn open(&self, path: &Path, mode: OpenMode) -> Result<Box<dyn IoHandle + '_>> {
        let open = self.cb.open.ok_or(Error::PluginIo)?;
        let cpath = CString::new(path.as_os_str().as_encoded_bytes()).map_err(|_| {
            crate::trace_error!("The path contains a NUL byte");
            Error::InvalidParam
        })?;
        let cmode = CString::new(mode.as_c_mode()).map_err(|_| Error::InvalidParam)?;
        // SAFETY: NUL-terminated strings; the back-end's contract for params.
        let stream = unsafe { open(cpath.as_ptr(), cmode.as_ptr(), self.params) };
        if stream.is_null() {
            crate::trace_error!("Error opening file in: {}", path.display());
            return Err(Error::FileOpen);
        }
        Ok(Box::new(CHandle { io: self, stream }))
    }

    fn id(&self) -> u8 {
        self.cb.id
    }
}

impl Drop for CHandle<'_> {
    fn drop(&mut self) {
        if let Some(close) = self.io.cb.close {
            // SAFETY: a stream of this back-end, closed once.
            let _ = guard(0, || unsafe { close(self.stream) });
        }
    }
}

fn to_i64(n: usize) -> Result<i64> {
    i64::try_from(n).map_err(|_| Error::InvalidParam)
}

impl IoHandle for CHandle<'_> {
    fn size(&mut self) -> Result<u64> {
        let size = self.io.cb.size.ok_or(Error::PluginIo)?;
        // SAFETY: a live stream of this back-end.
        let s = unsafe { size(self.stream) };
        u64::try_from(s).map_err(|_| Error::FileRead)
    }

    fn read_at(&mut self, pos: u64, buf: &mut [u8]) -> Result<()> {
        let read = self.io.cb.read.ok_or(Error::PluginIo)?;
        if buf.is_empty() {
            return Ok(());
        }
        let n = to_i64(buf.len())?;
        let pos = i64::try_from(pos).map_err(|_| Error::FileRead)?;
        if self.io.cb.is_allocation_necessary != 0 {
            let mut p = buf.as_mut_ptr() as *mut c_void;
            // SAFETY: `p` points to `n` writable bytes.
            let r = unsafe { read(&mut p, 1, n, pos, self.stream) };
            if r != n {
                crate::trace_error!("Cannot read {} bytes at {}", n, pos);
                return Err(Error::FileRead);
            }
        } else {
            let mut p: *mut c_void = ptr::null_mut();
            // SAFETY: the back-end sets `p` to `n` readable bytes of its own.
            let r = unsafe { read(&mut p, 1, n, pos, self.stream) };
            if r != n || p.is_null() {
                crate::trace_error!("Cannot read {} bytes at {}", n, pos);
                return Err(Error::FileRead);
            }
            // SAFETY: the back-end returned `n` readable bytes at `p`.
            buf.copy_from_slice(unsafe { std::slice::from_raw_parts(p as *const u8, buf.len()) });
        }
        Ok(())
    }

    fn write_at(&mut self, pos: u64, data: &[u8]) -> Result<()> {
        let write = self.io.cb.write.ok_or(Error::PluginIo)?;
        if data.is_empty() {
            return Ok(());
        }
        let n = to_i64(data.len())?;
        let pos = i64::try_from(pos).map_err(|_| Error::FileWrite)?;
        // SAFETY: `data` is readable for `n` bytes.
        let w = unsafe { write(data.as_ptr() as *const c_void, 1, n, pos, self.stream) };
        if w != n {
            crate::trace_error!("Cannot write {} bytes at {}", n, pos);
            return Err(Error::FileWrite);
        }
        Ok(())
    }

    fn truncate(&mut self, size: u64) -> Result<()> {
        let truncate = self.io.cb.truncate.ok_or(Error::PluginIo)?;
        let size = i64::try_from(size).map_err(|_| Error::FileTruncate)?;
        // SAFETY: a live stream of this back-end.
        if unsafe { truncate(self.stream, size) } != 0 {
            return Err(Error::FileTruncate);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::{Frame, FrameParams, Location};
    use std::sync::Arc;

    #[test]
    fn frames_through_c_backends() {
        let dir = std::env::temp_dir().join(format!("b2rs-cio-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f.b2frame");
        let cp = crate::CParams::default();
        let data: Vec<u8> = (0..8000u32).map(|v| (v % 97) as u8).collect();
        let mut chunk = vec![0u8; 9000];
        let n = crate::chunk::compress(&cp, &data, &mut chunk).unwrap();
        chunk.truncate(n);
        // stdio callbacks
        let io: Arc<dyn Io> = Arc::new(unsafe { CIo::from_io(ptr::null()) }.unwrap());
        let loc = Location::File {
            path: path.clone(),
            offset: 0,
        };
        let mut f = Frame::create(loc.clone(), &FrameParams::default(), io.clone()).unwrap();
        for _ in 0..3 {
            f.append_chunk(&chunk).unwrap();
        }
        drop(f);
        // mmap callbacks, reading in place
        let mut mm = BLOSC2_STDIO_MMAP_DEFAULTS;
        let mode = c"r";
        mm.mode = mode.as_ptr();
        let cio = blosc2_io {
            id: BLOSC2_IO_FILESYSTEM_MMAP as u8,
            name: ptr::null(),
            params: &mut mm as *mut _ as *mut c_void,
        };
        {
            let io: Arc<dyn Io> = Arc::new(unsafe { CIo::from_io(&cio) }.unwrap());
            let f = Frame::open(loc, io).unwrap();
            assert_eq!(f.nchunks(), 3);
            assert_eq!(&*f.get_chunk(2).unwrap(), &chunk[..]);
        }
        assert!(
            mm.addr.is_null(),
            "destroy ran when the back-end was dropped"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn registry() {
        unsafe {
            assert!(!blosc2_get_io_cb(0).is_null());
            assert!(!blosc2_get_io_cb(1).is_null());
            assert!(blosc2_get_io_cb(2).is_null());
            assert_eq!(
                blosc2_register_io_cb(ptr::null()),
                Error::InvalidParam.code()
            );
            let mut cb = *blosc2_get_io_cb(0);
            cb.id = 5;
            assert_eq!(blosc2_register_io_cb(&cb), Error::PluginIo.code());
            cb.id = 200;
            cb.name = c"mine".as_ptr() as *mut _;
            assert_eq!(blosc2_register_io_cb(&cb), 0);
            assert_eq!(blosc2_register_io_cb(&cb), 0);
            cb.name = c"other".as_ptr() as *mut _;
            assert_eq!(blosc2_register_io_cb(&cb), Error::PluginIo.code());
            assert_eq!((*blosc2_get_io_cb(200)).id, 200);
        }
    }
}
