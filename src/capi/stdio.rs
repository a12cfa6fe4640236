//! The built-in I/O back-ends of `blosc2/blosc2-stdio.h` (area 10 of the API): positioned I/O on
//! a C `FILE*` (`blosc2_stdio_*`) and memory-mapped files (`blosc2_stdio_mmap_*`).
//!
//! These are plain C-level functions that callers may use directly (and that the default
//! entries of the I/O registry point to), so they work on the C structs `blosc2_stdio_file` and
//! `blosc2_stdio_mmap` exactly as C-Blosc2 does: callers read `addr`, `file_size` and
//! `mapping_size` of the mmap struct after use.

use super::guard;
use super::types::*;
use core::ffi::{c_char, c_int, c_void, CStr};
use std::ptr;

fn checked_bytes(size: i64, nitems: i64) -> Option<usize> {
    if size < 0 || nitems < 0 {
        return None;
    }
    size.checked_mul(nitems)
        .and_then(|n| usize::try_from(n).ok())
}

/// Positioned read or write on the descriptor behind `file`, looping over short transfers.
/// Returns the number of bytes transferred (short on EOF or error).
///
/// # Safety
/// `file` must be an open `FILE*`; `buf` valid for `n` bytes (writable when reading).
unsafe fn stdio_pio(
    file: *mut libc::FILE,
    buf: *mut u8,
    n: usize,
    position: i64,
    write: bool,
) -> i64 {
    // SAFETY: the caller guarantees an open FILE*.
    let fd = unsafe { libc::fileno(file) };
    if fd < 0 {
        return 0;
    }
    let mut done = 0usize;
    while done < n {
        let Some(off) = position.checked_add(done as i64) else {
            break;
        };
        let todo = (n - done).min(0x4000_0000);
        // SAFETY: `buf + done .. + todo` lies within the caller's buffer.
        let r = unsafe {
            if write {
                libc::pwrite(fd, buf.add(done) as *const c_void, todo, off as libc::off_t)
            } else {
                libc::pread(fd, buf.add(done) as *mut c_void, todo, off as libc::off_t)
            }
        };
        if r < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            break;
        }
        if r == 0 {
            break;
        }
        done += r as usize;
    }
    done as i64
}

/// Open `urlpath` with the C `fopen` `mode`; returns a `blosc2_stdio_file*` (malloc'ed) or NULL.
///
/// # Safety
/// `urlpath` and `mode` must be NUL-terminated strings (or NULL).
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_open(
    urlpath: *const c_char,
    mode: *const c_char,
    params: *mut c_void,
) -> *mut c_void {
    let _ = params;
    guard(ptr::null_mut(), || {
        if urlpath.is_null() || mode.is_null() {
            crate::trace_error!("Invalid arguments for stdio open.");
            return ptr::null_mut();
        }
        // SAFETY: both are non-NULL NUL-terminated strings (caller's contract).
        let file = unsafe { libc::fopen(urlpath, mode) };
        if file.is_null() {
            crate::trace_error!("Cannot open the file {:?}.", unsafe {
                CStr::from_ptr(urlpath)
            });
            return ptr::null_mut();
        }
        // SAFETY: plain allocation, checked below.
        let fp = unsafe { libc::malloc(std::mem::size_of::<blosc2_stdio_file>()) }
            as *mut blosc2_stdio_file;
        if fp.is_null() {
            // SAFETY: `file` was opened above.
            unsafe { libc::fclose(file) };
            return ptr::null_mut();
        }
        // SAFETY: `fp` is a fresh allocation of the right size.
        unsafe { fp.write(blosc2_stdio_file { file }) };
        fp as *mut c_void
    })
}

/// The open `FILE*` of a `blosc2_stdio_file*`, or None.
///
/// # Safety
/// `stream` must be NULL or a `blosc2_stdio_file*`.
unsafe fn file_of(stream: *mut c_void) -> Option<*mut libc::FILE> {
    // SAFETY: checked for NULL; the caller guarantees the type.
    let fp = unsafe { (stream as *mut blosc2_stdio_file).as_ref() }?;
    if fp.file.is_null() {
        None
    } else {
        Some(fp.file)
    }
}

/// Close a stream of [`blosc2_stdio_open`] (and free it). Returns `fclose`'s result, or -1.
///
/// # Safety
/// `stream` must be NULL or a stream returned by `blosc2_stdio_open`, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_close(stream: *mut c_void) -> c_int {
    guard(-1, || {
        // SAFETY: caller's contract.
        let Some(file) = (unsafe { file_of(stream) }) else {
            crate::trace_error!("Invalid stream for stdio close.");
            return -1;
        };
        // SAFETY: an open FILE* and our malloc'ed wrapper.
        unsafe {
            let err = libc::fclose(file);
            libc::free(stream);
            err
        }
    })
}

/// The size of the file behind a stream, or -1.
///
/// # Safety
/// `stream` must be NULL or a live stream of `blosc2_stdio_open`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_size(stream: *mut c_void) -> i64 {
    guard(-1, || {
        // SAFETY: caller's contract.
        let Some(file) = (unsafe { file_of(stream) }) else {
            crate::trace_error!("Invalid stream for stdio size.");
            return -1;
        };
        // SAFETY: `file` is an open FILE*.
        unsafe {
            let current = libc::ftell(file);
            if current < 0 {
                return -1;
            }
            if libc::fseek(file, 0, libc::SEEK_END) != 0 {
                libc::fseek(file, current, libc::SEEK_SET);
                return -1;
            }
            let size = libc::ftell(file);
            if libc::fseek(file, current, libc::SEEK_SET) != 0 || size < 0 {
                return -1;
            }
            size as i64
        }
    })
}

/// Write `nitems` items of `size` bytes at `position`; returns the number of items written.
///
/// # Safety
/// `ptr` must be readable for `size * nitems` bytes; `stream` a live stdio stream (or NULL).
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_write(
    ptr: *const c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    guard(0, || {
        // SAFETY: caller's contract.
        let file = unsafe { file_of(stream) };
        let (Some(file), Some(n), false, true) = (
            file,
            checked_bytes(size, nitems),
            ptr.is_null(),
            position >= 0,
        ) else {
            crate::trace_error!("Invalid arguments for stdio write.");
            return 0;
        };
        // SAFETY: `ptr` is readable for `n` bytes (caller's contract); pwrite only reads it.
        let done = unsafe { stdio_pio(file, ptr as *mut u8, n, position, true) };
        if size > 0 {
            done / size
        } else {
            0
        }
    })
}

/// Read `nitems` items of `size` bytes at `position` into `*ptr`; returns the number of items
/// read.
///
/// # Safety
/// `ptr` must point to a buffer pointer writable for `size * nitems` bytes; `stream` a live
/// stdio stream (or NULL).
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_read(
    ptr: *mut *mut c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    guard(0, || {
        // SAFETY: caller's contract.
        let file = unsafe { file_of(stream) };
        let (Some(file), Some(n), false, true) = (
            file,
            checked_bytes(size, nitems),
            ptr.is_null(),
            position >= 0,
        ) else {
            crate::trace_error!("Invalid arguments for stdio read.");
            return 0;
        };
        // SAFETY: `ptr` is non-NULL.
        let buf = unsafe { *ptr } as *mut u8;
        if n > 0 && buf.is_null() {
            crate::trace_error!("stdio read called with a NULL buffer.");
            return 0;
        }
        // SAFETY: `buf` is writable for `n` bytes (caller's contract).
        let done = unsafe { stdio_pio(file, buf, n, position, false) };
        if size > 0 {
            done / size
        } else {
            0
        }
    })
}

/// Truncate (or extend) the file behind a stream to `size` bytes; 0 on success, else -1.
///
/// # Safety
/// `stream` must be NULL or a live stdio stream.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_truncate(stream: *mut c_void, size: i64) -> c_int {
    guard(-1, || {
        // SAFETY: caller's contract.
        let Some(file) = (unsafe { file_of(stream) }) else {
            crate::trace_error!("Invalid arguments for stdio truncate.");
            return -1;
        };
        if size < 0 {
            return -1;
        }
        // SAFETY: an open FILE*.
        unsafe { libc::ftruncate(libc::fileno(file), size as libc::off_t) }
    })
}

/// Release the parameters of the stdio back-end (nothing to do). Returns 0.
///
/// # Safety
/// Always safe.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_destroy(params: *mut c_void) -> c_int {
    let _ = params;
    0
}

/// Undo a half-done [`blosc2_stdio_mmap_open`].
///
/// # Safety
/// `m` must be a valid mmap struct whose `urlpath` was malloc'ed and `file` opened (or NULL).
unsafe fn mmap_open_fail(m: &mut blosc2_stdio_mmap) -> *mut c_void {
    // SAFETY: our own FILE* and malloc'ed path.
    unsafe {
        if !m.file.is_null() {
            libc::fclose(m.file);
        }
        libc::free(m.urlpath as *mut c_void);
    }
    m.file = ptr::null_mut();
    m.urlpath = ptr::null_mut();
    ptr::null_mut()
}

/// Map `urlpath` into memory as described by `params` (a `blosc2_stdio_mmap*`, whose `mode`
/// decides how); `mode` is ignored. The file is mapped once: later calls with the same path
/// return the same stream. Returns `params` or NULL.
///
/// # Safety
/// `urlpath` must be NUL-terminated; `params` must point to a valid `blosc2_stdio_mmap` that
/// outlives the stream.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_open(
    urlpath: *const c_char,
    mode: *const c_char,
    params: *mut c_void,
) -> *mut c_void {
    let _ = mode;
    guard(ptr::null_mut(), || {
        if urlpath.is_null() || params.is_null() {
            crate::trace_error!("Invalid arguments for memory-mapped open.");
            return ptr::null_mut();
        }
        // SAFETY: non-NULL, valid for the stream's life (caller's contract).
        let m = unsafe { &mut *(params as *mut blosc2_stdio_mmap) };
        // SAFETY: NUL-terminated (caller's contract).
        let path = unsafe { CStr::from_ptr(urlpath) };
        if !m.addr.is_null() {
            if m.urlpath.is_null() {
                crate::trace_error!("Memory-mapped file has invalid state: urlpath is NULL.");
                return ptr::null_mut();
            }
            // SAFETY: our own NUL-terminated copy.
            if unsafe { CStr::from_ptr(m.urlpath) } != path {
                crate::trace_error!(
                    "The memory-mapped file is already opened with another path (sparse frames \
                     are not supported with memory-mapped I/O)."
                );
                return ptr::null_mut();
            }
            return params;
        }
        if m.mode.is_null() {
            crate::trace_error!("Memory-mapped mode is NULL.");
            return ptr::null_mut();
        }
        // SAFETY: NUL-terminated (caller's contract).
        let mmode = unsafe { CStr::from_ptr(m.mode) }.to_bytes();
        let (prot, flags, memory_only, open_mode, use_initial): (c_int, c_int, bool, &CStr, bool) =
            match mmode {
                b"r" => (libc::PROT_READ, libc::MAP_SHARED, false, c"rb", false),
                b"r+" => (
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED,
                    false,
                    c"rb+",
                    true,
                ),
                b"w+" => (
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED,
                    false,
                    c"wb+",
                    true,
                ),
                b"c" => (
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE,
                    true,
                    c"rb",
                    true,
                ),
                _ => {
                    crate::trace_error!("Mode {:?} not supported for memory-mapped files.", mmode);
                    return ptr::null_mut();
                }
            };
        // Keep a copy of the path: later opens must use the same one.
        let bytes = path.to_bytes_with_nul();
        // SAFETY: plain allocation, checked.
        let copy = unsafe { libc::malloc(bytes.len()) } as *mut c_char;
        if copy.is_null() {
            return ptr::null_mut();
        }
        // SAFETY: `copy` has room for `bytes`.
        unsafe { ptr::copy_nonoverlapping(bytes.as_ptr() as *const c_char, copy, bytes.len()) };
        m.urlpath = copy;
        m.access_flags = prot as i64;
        m.map_flags = flags as i64;
        m.is_memory_only = memory_only as c_bool;
        // SAFETY: valid strings.
        m.file = unsafe { libc::fopen(urlpath, open_mode.as_ptr()) };
        if m.file.is_null() {
            crate::trace_error!("Cannot open the file {:?} with mode {:?}.", path, open_mode);
            // SAFETY: the struct's own resources.
            return unsafe { mmap_open_fail(m) };
        }
        // SAFETY: an open FILE*.
        let size = unsafe {
            if libc::fseek(m.file, 0, libc::SEEK_END) != 0 {
                -1
            } else {
                let s = libc::ftell(m.file);
                if libc::fseek(m.file, 0, libc::SEEK_SET) != 0 {
                    -1
                } else {
                    s
                }
            }
        };
        if size < 0 {
            crate::trace_error!("Cannot retrieve the file size of {:?}.", path);
            // SAFETY: the struct's own resources.
            return unsafe { mmap_open_fail(m) };
        }
        m.file_size = size as usize;
        m.mapping_size = if use_initial {
            m.initial_mapping_size
        } else {
            m.file_size
        };
        if m.file_size > m.mapping_size {
            m.mapping_size = m.file_size;
        }
        if m.mapping_size == 0 {
            m.mapping_size = 1;
        }
        // SAFETY: an open FILE*.
        m.fd = unsafe { libc::fileno(m.file) };
        // SAFETY: a fresh mapping of our descriptor; checked against MAP_FAILED.
        let addr = unsafe { libc::mmap(ptr::null_mut(), m.mapping_size, prot, flags, m.fd, 0) };
        if addr == libc::MAP_FAILED {
            crate::trace_error!("Memory mapping failed for file {:?}.", path);
            // SAFETY: the struct's own resources.
            return unsafe { mmap_open_fail(m) };
        }
        m.addr = addr as *mut c_char;
        crate::trace_info!(
            "Opened memory-mapped file {} in mode {} with an mapping size of {} bytes.",
            path.to_string_lossy(),
            String::from_utf8_lossy(mmode),
            m.mapping_size
        );
        // The caller's mode string may not outlive this call.
        m.mode = ptr::null();
        params
    })
}

/// Closing a memory-mapped stream does nothing (see [`blosc2_stdio_mmap_destroy`]). Returns 0.
///
/// # Safety
/// Always safe.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_close(stream: *mut c_void) -> c_int {
    let _ = stream;
    0
}

/// The logical size of the memory-mapped file, or -1 for NULL.
///
/// # Safety
/// `stream` must be NULL or a `blosc2_stdio_mmap*`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_size(stream: *mut c_void) -> i64 {
    guard(-1, || {
        // SAFETY: caller's contract.
        match unsafe { (stream as *const blosc2_stdio_mmap).as_ref() } {
            Some(m) => m.file_size.min(i64::MAX as usize) as i64,
            None => -1,
        }
    })
}

/// Write into the mapping (growing the file and the mapping as needed); returns the number of
/// items written.
///
/// # Safety
/// `ptr` must be readable for `size * nitems` bytes; `stream` a stream of
/// `blosc2_stdio_mmap_open`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_write(
    ptr: *const c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    guard(0, || {
        // SAFETY: caller's contract.
        let Some(m) = (unsafe { (stream as *mut blosc2_stdio_mmap).as_mut() }) else {
            return 0;
        };
        let (Some(n), false, true) = (checked_bytes(size, nitems), ptr.is_null(), position >= 0)
        else {
            crate::trace_error!("Invalid arguments for mmap write.");
            return 0;
        };
        if n == 0 {
            return 0;
        }
        if m.addr.is_null() {
            crate::trace_error!("The file is not mapped.");
            return 0;
        }
        let Some(end) = (position as usize).checked_add(n) else {
            return 0;
        };
        if end > i64::MAX as usize {
            return 0;
        }
        if m.file_size < end {
            m.file_size = end;
            if m.is_memory_only == 0 {
                // SAFETY: our descriptor.
                if unsafe { libc::ftruncate(m.fd, end as libc::off_t) } < 0 {
                    crate::trace_error!("Cannot extend the file size to {} bytes.", end);
                    return 0;
                }
            }
        }
        if m.mapping_size < m.file_size {
            let new_size = m.file_size.checked_mul(2).unwrap_or(m.file_size);
            // SAFETY: remapping our own mapping; checked against MAP_FAILED.
            let a = unsafe {
                libc::mremap(
                    m.addr as *mut c_void,
                    m.mapping_size,
                    new_size,
                    libc::MREMAP_MAYMOVE,
                )
            };
            if a == libc::MAP_FAILED {
                crate::trace_error!("Cannot remap the memory-mapped file.");
                return 0;
            }
            m.addr = a as *mut c_char;
            m.mapping_size = new_size;
        }
        // SAFETY: `position..end` lies within the mapping (just grown), `ptr` readable for `n`.
        unsafe {
            ptr::copy_nonoverlapping(
                ptr as *const u8,
                m.addr.cast::<u8>().add(position as usize),
                n,
            )
        };
        nitems
    })
}

/// Point `*ptr` at `size * nitems` bytes of the mapping at `position` (no copy); returns the
/// number of items, or 0 (and `*ptr = NULL`) when they are not all within the file.
///
/// # Safety
/// `ptr` must be writable; `stream` a stream of `blosc2_stdio_mmap_open`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_read(
    ptr: *mut *mut c_void,
    size: i64,
    nitems: i64,
    position: i64,
    stream: *mut c_void,
) -> i64 {
    guard(0, || {
        if ptr.is_null() {
            crate::trace_error!("Invalid pointer argument for mmap read.");
            return 0;
        }
        // SAFETY: caller's contract.
        let m = unsafe { (stream as *const blosc2_stdio_mmap).as_ref() };
        let ok = match (m, checked_bytes(size, nitems), position >= 0) {
            (Some(m), Some(n), true) => (position as usize)
                .checked_add(n)
                .filter(|&end| end <= m.file_size && !m.addr.is_null())
                .map(|_| m),
            _ => None,
        };
        let Some(m) = ok else {
            crate::trace_error!("Cannot read beyond the end of the memory-mapped file.");
            // SAFETY: `ptr` is non-NULL and writable.
            unsafe { *ptr = ptr::null_mut() };
            return 0;
        };
        // SAFETY: `position` is within the mapping; `ptr` is writable.
        unsafe { *ptr = m.addr.cast::<u8>().add(position as usize).cast::<c_void>() };
        nitems
    })
}

/// Set the logical size of the memory-mapped file (and of the file unless in `c` mode).
/// Returns 0 on success.
///
/// # Safety
/// `stream` must be a stream of `blosc2_stdio_mmap_open`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_truncate(stream: *mut c_void, size: i64) -> c_int {
    guard(-1, || {
        // SAFETY: caller's contract.
        let Some(m) = (unsafe { (stream as *mut blosc2_stdio_mmap).as_mut() }) else {
            return -1;
        };
        if size < 0 {
            crate::trace_error!("Cannot truncate the mmap file to a negative size.");
            return -1;
        }
        if m.file_size == size as usize {
            return 0;
        }
        m.file_size = size as usize;
        if m.is_memory_only != 0 {
            return 0;
        }
        // SAFETY: our descriptor.
        unsafe { libc::ftruncate(m.fd, size as libc::off_t) }
    })
}

/// Sync, unmap and close a memory-mapped file (freeing `params` when `needs_free`). Returns 0
/// on success, -1 on error.
///
/// # Safety
/// `params` must be NULL or a `blosc2_stdio_mmap*` (heap-allocated with `malloc` if
/// `needs_free`), not used as a stream afterwards.
#[no_mangle]
pub unsafe extern "C" fn blosc2_stdio_mmap_destroy(params: *mut c_void) -> c_int {
    guard(-1, || {
        // SAFETY: caller's contract.
        let Some(m) = (unsafe { (params as *mut blosc2_stdio_mmap).as_mut() }) else {
            crate::trace_error!("Invalid arguments for memory-mapped destroy.");
            return -1;
        };
        let mut err = 0;
        if m.addr.is_null() || m.file.is_null() {
            crate::trace_error!("Invalid memory-mapped state during destroy.");
            err = -1;
        } else {
            let writable = m.access_flags & libc::PROT_WRITE as i64 != 0 && m.is_memory_only == 0;
            // SAFETY: our own mapping and descriptor.
            unsafe {
                if writable && libc::msync(m.addr as *mut c_void, m.file_size, libc::MS_SYNC) < 0 {
                    err = -1;
                }
                if libc::munmap(m.addr as *mut c_void, m.mapping_size) < 0 {
                    err = -1;
                }
                if writable {
                    let mut st: libc::stat = std::mem::zeroed();
                    if libc::fstat(m.fd, &mut st) == 0 {
                        let disk = st.st_size as i64;
                        if disk > m.file_size as i64 && disk >= m.mapping_size as i64 {
                            let target = m.file_size as i64 + (disk - m.mapping_size as i64);
                            if target < disk && libc::ftruncate(m.fd, target as libc::off_t) < 0 {
                                err = -1;
                            }
                        }
                    }
                }
            }
        }
        // SAFETY: our own FILE* and malloc'ed path; `params` was malloc'ed if `needs_free`.
        unsafe {
            if !m.file.is_null() && libc::fclose(m.file) != 0 {
                err = -1;
            }
            m.file = ptr::null_mut();
            m.addr = ptr::null_mut();
            libc::free(m.urlpath as *mut c_void);
            m.urlpath = ptr::null_mut();
            if m.needs_free != 0 {
                libc::free(params);
            }
        }
        err
    })
}
