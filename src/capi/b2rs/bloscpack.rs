//! `b2rs_bloscpack_*`: Bloscpack files (the format of the Python package `bloscpack`) from C,
//! on top of [`crate::bloscpack`]. Declared in `include/b2rs.h`, not in `blosc2.h`.
//!
//! Like the rest of the C API every function returns a value ≥ 0 or a negative
//! `BLOSC2_ERROR_*` code (with a `BLOSC_TRACE` message saying what is wrong, e.g. which chunk has
//! a bad checksum), and the buffers it hands out are `malloc`ed: the caller `free`s them. Names
//! follow bloscpack's (`pack_bytes_to_file`, `unpack_bytes_from_file`, …).

use crate::bloscpack::{
    self as bp, default_cparams, Checksum, MetaCodec, Metadata, MetadataParams, PackParams, Reader,
};
use crate::capi::callbacks::cparams_from_c;
use crate::capi::guard;
use crate::capi::types::*;
use crate::Error;
use core::ffi::{c_char, c_int, c_void, CStr};
use std::io::{self, Cursor, Seek, SeekFrom, Write};
use std::path::PathBuf;

fn fail() -> i64 {
    Error::Failure.code() as i64
}

fn invalid(msg: &str) -> Error {
    crate::trace_error!("bloscpack: {msg}");
    Error::InvalidParam
}

/// Core pack parameters from the C struct (NULL: the defaults).
fn pack_params(p: Option<&b2rs_bloscpack_params>) -> Result<PackParams, Error> {
    let p = p.copied().unwrap_or(B2RS_BLOSCPACK_PARAMS_DEFAULTS);
    if p.chunk_size <= 0 {
        return Err(invalid("chunk_size must be positive"));
    }
    let checksum = |id: u8| Checksum::from_id(id).ok_or_else(|| invalid("unknown checksum id"));
    let cparams = if p.cparams.is_null() {
        default_cparams()
    } else {
        // SAFETY: non-null, and the caller guarantees it points to a blosc2_cparams.
        let c = unsafe { &*p.cparams };
        if c.prefilter.is_some() {
            return Err(invalid("prefilters are not supported in bloscpack files"));
        }
        let mut core = cparams_from_c(c);
        core.owner = 0;
        core
    };
    Ok(PackParams {
        cparams,
        chunk_size: p.chunk_size as usize,
        checksum: checksum(p.checksum)?,
        offsets: p.offsets != 0,
        max_app_chunks: match p.max_app_chunks {
            -1 => None,
            v if v >= 0 => Some(v as u64),
            _ => return Err(invalid("max_app_chunks must be -1 or >= 0")),
        },
        metadata: MetadataParams {
            checksum: checksum(p.meta_checksum)?,
            codec: MetaCodec::from_id(p.meta_codec)
                .ok_or_else(|| invalid("unknown metadata codec"))?,
            level: p.meta_level,
            max_meta_size: match p.max_meta_size {
                -1 => None,
                v if (0..=u32::MAX as i64).contains(&v) => Some(v as u32),
                _ => return Err(invalid("max_meta_size must be -1 or in 0..2^32")),
            },
        },
    })
}

/// A path from a C string.
///
/// # Safety
/// `p` must be NULL or a NUL-terminated string.
unsafe fn path(p: *const c_char) -> Result<PathBuf, Error> {
    if p.is_null() {
        return Err(Error::NullPointer);
    }
    // SAFETY: non-null and NUL-terminated per the caller.
    let s = unsafe { CStr::from_ptr(p) };
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Ok(PathBuf::from(std::ffi::OsStr::from_bytes(s.to_bytes())))
    }
    #[cfg(not(unix))]
    {
        s.to_str()
            .map(PathBuf::from)
            .map_err(|_| invalid("the path is not UTF-8"))
    }
}

/// An input buffer; NULL is allowed only with size 0.
///
/// # Safety
/// `p` must be readable for `size` bytes when non-null.
unsafe fn input<'a>(p: *const c_void, size: i64) -> Result<&'a [u8], Error> {
    let size = usize::try_from(size).map_err(|_| invalid("negative size"))?;
    // SAFETY: the caller guarantees `size` readable bytes.
    unsafe { super::super::slice(p, size) }.ok_or(Error::NullPointer)
}

/// The optional metadata text: NULL means none.
///
/// # Safety
/// `p` must be readable for `len` bytes when non-null.
unsafe fn metadata_arg<'a>(p: *const c_char, len: i64) -> Result<Option<&'a [u8]>, Error> {
    if p.is_null() {
        return if len <= 0 {
            Ok(None)
        } else {
            Err(Error::NullPointer)
        };
    }
    // SAFETY: same contract.
    unsafe { input(p as *const c_void, len) }.map(Some)
}

/// A growable `malloc`ed buffer, handed to the C caller at the end.
struct CBuf {
    ptr: *mut u8,
    len: usize,
    cap: usize,
    pos: usize,
}

impl CBuf {
    fn new() -> CBuf {
        CBuf {
            ptr: core::ptr::null_mut(),
            len: 0,
            cap: 0,
            pos: 0,
        }
    }

    fn reserve(&mut self, total: usize) -> io::Result<()> {
        if total <= self.cap {
            return Ok(());
        }
        let cap = total.max(self.cap.saturating_mul(2)).max(64);
        // SAFETY: `ptr` is NULL or was returned by malloc/realloc; realloc keeps the contents.
        let p = unsafe { libc::realloc(self.ptr as *mut c_void, cap) } as *mut u8;
        if p.is_null() {
            return Err(io::Error::new(io::ErrorKind::OutOfMemory, "realloc failed"));
        }
        self.ptr = p;
        self.cap = cap;
        Ok(())
    }

    /// The buffer (never NULL) and its length; the caller frees it.
    fn into_raw(mut self) -> Result<(*mut u8, usize), Error> {
        self.reserve(1).map_err(|_| Error::MemoryAlloc)?;
        let r = (self.ptr, self.len);
        self.ptr = core::ptr::null_mut();
        Ok(r)
    }
}

impl Drop for CBuf {
    fn drop(&mut self) {
        // SAFETY: NULL or a malloc'ed pointer not handed out.
        unsafe { libc::free(self.ptr as *mut c_void) };
    }
}

impl Write for CBuf {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let end = self
            .pos
            .checked_add(buf.len())
            .ok_or_else(|| io::Error::new(io::ErrorKind::OutOfMemory, "too large"))?;
        self.reserve(end)?;
        // SAFETY: `ptr` holds `cap >= end` bytes, `pos <= len <= cap`; the source is a distinct
        // Rust slice.
        unsafe { core::ptr::copy_nonoverlapping(buf.as_ptr(), self.ptr.add(self.pos), buf.len()) };
        self.pos = end;
        self.len = self.len.max(end);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Seek for CBuf {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(v) => Some(v as i128),
            SeekFrom::Current(d) => Some(self.pos as i128 + d as i128),
            SeekFrom::End(d) => Some(self.len as i128 + d as i128),
        }
        .filter(|&t| (0..=self.len as i128).contains(&t))
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "seek outside the buffer"))?;
        self.pos = target as usize;
        Ok(self.pos as u64)
    }
}

/// Store a malloc'ed buffer in `*dest` and return its length.
///
/// # Safety
/// `dest` must be writable.
unsafe fn hand_out(buf: CBuf, dest: *mut *mut u8) -> i64 {
    match buf.into_raw() {
        Ok((p, n)) => {
            // SAFETY: checked non-null by the callers, writable per the contract.
            unsafe { *dest = p };
            n as i64
        }
        Err(e) => e.code() as i64,
    }
}

fn code(e: bp::Error) -> i64 {
    e.code() as i64
}

/// Pack `srcsize` bytes into a new in-memory Bloscpack file.
///
/// `params` may be NULL (`B2RS_BLOSCPACK_PARAMS_DEFAULTS`); `metadata` is the serialized
/// metadata (JSON text, e.g. `{"a":1}`) of `metadata_len` bytes, or NULL for none. On success
/// `*dest` receives a `malloc`ed buffer (free it) and the file length is returned; otherwise a
/// negative `BLOSC2_ERROR_*` code.
///
/// # Safety
/// `src` readable for `srcsize` bytes; `params` NULL or valid (with `params->cparams` NULL or
/// valid); `metadata` NULL or readable for `metadata_len` bytes; `dest` writable.
#[no_mangle]
pub unsafe extern "C" fn b2rs_bloscpack_pack_bytes_to_bytes(
    src: *const c_void,
    srcsize: i64,
    params: *const b2rs_bloscpack_params,
    metadata: *const c_char,
    metadata_len: i64,
    dest: *mut *mut u8,
) -> i64 {
    guard(fail(), || {
        if dest.is_null() {
            return Error::NullPointer.code() as i64;
        }
        // SAFETY: per the contract of this function.
        let args = unsafe {
            (
                input(src, srcsize),
                pack_params(params.as_ref()),
                metadata_arg(metadata, metadata_len),
            )
        };
        let (src, p, meta) = match args {
            (Ok(s), Ok(p), Ok(m)) => (s, p, m),
            (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => return e.code() as i64,
        };
        let r = bp::Writer::new(CBuf::new(), &p, Some(src.len() as u64), meta).and_then(|mut w| {
            w.write_data(src)?;
            w.finish()
        });
        match r {
            // SAFETY: `dest` checked non-null.
            Ok(buf) => unsafe { hand_out(buf, dest) },
            Err(e) => code(e),
        }
    })
}

/// Pack `srcsize` bytes into the Bloscpack file `urlpath` (created or truncated). Returns the
/// file size or a negative `BLOSC2_ERROR_*` code. See [`b2rs_bloscpack_pack_bytes_to_bytes`]
/// for `params` and `metadata`.
///
/// # Safety
/// As for [`b2rs_bloscpack_pack_bytes_to_bytes`]; `urlpath` a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn b2rs_bloscpack_pack_bytes_to_file(
    src: *const c_void,
    srcsize: i64,
    params: *const b2rs_bloscpack_params,
    metadata: *const c_char,
    metadata_len: i64,
    urlpath: *const c_char,
) -> i64 {
    guard(fail(), || {
        // SAFETY: per the contract of this function.
        let args = unsafe {
            (
                input(src, srcsize),
                pack_params(params.as_ref()),
                metadata_arg(metadata, metadata_len),
                path(urlpath),
            )
        };
        let (mut src, p, meta, path) = match args {
            (Ok(s), Ok(p), Ok(m), Ok(u)) => (s, p, m, u),
            (Err(e), ..) | (_, Err(e), ..) | (_, _, Err(e), _) | (.., Err(e)) => {
                return e.code() as i64
            }
        };
        let file = match std::fs::File::create(&path) {
            Ok(f) => f,
            Err(e) => {
                crate::trace_error!("bloscpack: cannot create {}: {e}", path.display());
                return Error::FileOpen.code() as i64;
            }
        };
        let len = src.len() as u64;
        let r = bp::pack_stream(&mut src, len, io::BufWriter::new(file), &p, meta)
            .and_then(|mut w| w.stream_position().map_err(bp::Error::Write));
        match r {
            Ok(n) => n as i64,
            Err(e) => code(e),
        }
    })
}

/// Pack the file `src_path` into the Bloscpack file `urlpath` (created or truncated), chunk by
/// chunk (memory: one chunk). Returns the size of `urlpath` or a negative `BLOSC2_ERROR_*` code.
///
/// # Safety
/// `src_path` and `urlpath` NUL-terminated strings; `params` and `metadata` as for
/// [`b2rs_bloscpack_pack_bytes_to_bytes`].
#[no_mangle]
pub unsafe extern "C" fn b2rs_bloscpack_pack_file_to_file(
    src_path: *const c_char,
    urlpath: *const c_char,
    params: *const b2rs_bloscpack_params,
    metadata: *const c_char,
    metadata_len: i64,
) -> i64 {
    guard(fail(), || {
        // SAFETY: per the contract of this function.
        let args = unsafe {
            (
                path(src_path),
                path(urlpath),
                pack_params(params.as_ref()),
                metadata_arg(metadata, metadata_len),
            )
        };
        let (from, to, p, meta) = match args {
            (Ok(a), Ok(b), Ok(p), Ok(m)) => (a, b, p, m),
            (Err(e), ..) | (_, Err(e), ..) | (_, _, Err(e), _) | (.., Err(e)) => {
                return e.code() as i64
            }
        };
        match bp::pack_file(&from, &to, &p, meta) {
            Ok(n) => n as i64,
            Err(bp::Error::Read(e)) => {
                crate::trace_error!("bloscpack: cannot read {}: {e}", from.display());
                Error::FileOpen.code() as i64
            }
            Err(e) => code(e),
        }
    })
}

/// Unpack an in-memory Bloscpack file: `*dest` receives the data in a `malloc`ed buffer (free
/// it; never NULL on success) and its length is returned, or a negative `BLOSC2_ERROR_*` code
/// (`BLOSC2_ERROR_DATA` for a checksum mismatch, `BLOSC2_ERROR_READ_BUFFER` for a truncated
/// file, `BLOSC2_ERROR_INVALID_HEADER` for a bad header or offsets table, …).
///
/// # Safety
/// `src` readable for `srcsize` bytes; `dest` writable.
#[no_mangle]
pub unsafe extern "C" fn b2rs_bloscpack_unpack_bytes_from_bytes(
    src: *const c_void,
    srcsize: i64,
    dest: *mut *mut u8,
) -> i64 {
    guard(fail(), || {
        if dest.is_null() {
            return Error::NullPointer.code() as i64;
        }
        // SAFETY: per the contract of this function.
        let src = match unsafe { input(src, srcsize) } {
            Ok(s) => s,
            Err(e) => return e.code() as i64,
        };
        // SAFETY: `dest` checked non-null.
        unsafe { unpack_into(src, dest) }
    })
}

/// Decode a whole file from `src` into a malloc'ed buffer stored in `*dest`.
///
/// # Safety
/// `dest` must be non-null and writable.
unsafe fn unpack_into<R: io::Read>(src: R, dest: *mut *mut u8) -> i64 {
    let mut r = match Reader::new(src) {
        Ok(r) => r,
        Err(e) => return code(e),
    };
    let mut buf = CBuf::new();
    if let Some(n) = r.header().nbytes() {
        // The header is validated, but the chunks are not read yet: reserve what one chunk
        // at most needs, the rest grows as chunks are decoded.
        let first = r.header().chunk_size.max(0) as u64;
        if buf.reserve(n.min(first.max(1)) as usize).is_err() {
            return Error::MemoryAlloc.code() as i64;
        }
    }
    match r.unpack_to(&mut buf) {
        // SAFETY: `dest` is non-null and writable per the caller.
        Ok(_) => unsafe { hand_out(buf, dest) },
        Err(e) => code(e),
    }
}

fn open(path: &std::path::Path) -> Result<std::fs::File, Error> {
    std::fs::File::open(path).map_err(|e| {
        crate::trace_error!("bloscpack: cannot open {}: {e}", path.display());
        Error::FileOpen
    })
}

/// Unpack the Bloscpack file `urlpath` into a `malloc`ed buffer stored in `*dest` (free it);
/// returns its length or a negative `BLOSC2_ERROR_*` code (see
/// [`b2rs_bloscpack_unpack_bytes_from_bytes`]).
///
/// # Safety
/// `urlpath` a NUL-terminated string; `dest` writable.
#[no_mangle]
pub unsafe extern "C" fn b2rs_bloscpack_unpack_bytes_from_file(
    urlpath: *const c_char,
    dest: *mut *mut u8,
) -> i64 {
    guard(fail(), || {
        if dest.is_null() {
            return Error::NullPointer.code() as i64;
        }
        // SAFETY: per the contract of this function.
        let file = match unsafe { path(urlpath) }.and_then(|p| open(&p)) {
            Ok(f) => f,
            Err(e) => return e.code() as i64,
        };
        // SAFETY: `dest` checked non-null.
        unsafe { unpack_into(io::BufReader::new(file), dest) }
    })
}

/// Unpack the Bloscpack file `urlpath` into the file `dst_path` (created or truncated), chunk
/// by chunk (memory: one chunk). Returns the number of bytes written or a negative
/// `BLOSC2_ERROR_*` code.
///
/// # Safety
/// `urlpath` and `dst_path` NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn b2rs_bloscpack_unpack_file_from_file(
    urlpath: *const c_char,
    dst_path: *const c_char,
) -> i64 {
    guard(fail(), || {
        // SAFETY: per the contract of this function.
        let (from, to) = match unsafe { (path(urlpath), path(dst_path)) } {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => return e.code() as i64,
        };
        if let Err(e) = open(&from) {
            return e.code() as i64;
        }
        match bp::unpack_file(&from, &to) {
            Ok(n) => n as i64,
            Err(bp::Error::Write(e)) => {
                crate::trace_error!("bloscpack: cannot write {}: {e}", to.display());
                Error::FileWrite.code() as i64
            }
            Err(e) => code(e),
        }
    })
}

fn info_of(h: &bp::Header, m: Option<&Metadata>) -> b2rs_bloscpack_info {
    let mh = m.map(|m| m.header);
    b2rs_bloscpack_info {
        format_version: h.format_version,
        offsets: h.offsets as c_bool,
        metadata: h.metadata as c_bool,
        checksum: h.checksum.id(),
        typesize: h.typesize,
        meta_checksum: mh.map_or(0, |m| m.meta_checksum.id()),
        meta_codec: mh.map_or(0, |m| m.meta_codec.id()),
        meta_level: mh.map_or(0, |m| m.meta_level),
        chunk_size: h.chunk_size,
        last_chunk: h.last_chunk,
        nchunks: h.nchunks,
        max_app_chunks: h.max_app_chunks,
        nbytes: h.nbytes().map_or(-1, |n| n as i64),
        meta_size: mh.map_or(-1, |m| m.meta_size as i64),
        max_meta_size: mh.map_or(-1, |m| m.max_meta_size as i64),
    }
}

/// Read the header, metadata section and offsets table of `src` into `*info`.
fn info_from<R: io::Read>(src: R, info: &mut b2rs_bloscpack_info) -> c_int {
    match Reader::new(src) {
        Ok(r) => {
            *info = info_of(r.header(), r.metadata());
            0
        }
        Err(e) => e.code(),
    }
}

/// Describe an in-memory Bloscpack file (header and metadata section; the chunks are not
/// read). Returns 0 or a negative `BLOSC2_ERROR_*` code.
///
/// # Safety
/// `src` readable for `srcsize` bytes; `info` writable.
#[no_mangle]
pub unsafe extern "C" fn b2rs_bloscpack_get_info(
    src: *const c_void,
    srcsize: i64,
    info: *mut b2rs_bloscpack_info,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: per the contract of this function.
        let (src, info) = match unsafe { (input(src, srcsize), info.as_mut()) } {
            (Ok(s), Some(i)) => (s, i),
            (Err(e), _) => return e.code(),
            (_, None) => return Error::NullPointer.code(),
        };
        info_from(src, info)
    })
}

/// Describe the Bloscpack file `urlpath` (header and metadata section). Returns 0 or a
/// negative `BLOSC2_ERROR_*` code.
///
/// # Safety
/// `urlpath` a NUL-terminated string; `info` writable.
#[no_mangle]
pub unsafe extern "C" fn b2rs_bloscpack_get_info_file(
    urlpath: *const c_char,
    info: *mut b2rs_bloscpack_info,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: per the contract of this function.
        let Some(info) = (unsafe { info.as_mut() }) else {
            return Error::NullPointer.code();
        };
        // SAFETY: per the contract of this function.
        match unsafe { path(urlpath) }.and_then(|p| open(&p)) {
            Ok(f) => info_from(io::BufReader::new(f), info),
            Err(e) => e.code(),
        }
    })
}

/// Copy the metadata of `src` into a malloc'ed NUL-terminated buffer.
///
/// # Safety
/// `metadata` must be non-null and writable.
unsafe fn metadata_from<R: io::Read>(src: R, metadata: *mut *mut c_char) -> i64 {
    let r = match Reader::new(src) {
        Ok(r) => r,
        Err(e) => return code(e),
    };
    let Some(m) = r.metadata() else {
        crate::trace_error!("bloscpack: the file has no metadata");
        return Error::NotFound.code() as i64;
    };
    let mut buf = CBuf::new();
    if buf
        .write_all(&m.data)
        .and_then(|_| buf.write_all(&[0]))
        .is_err()
    {
        return Error::MemoryAlloc.code() as i64;
    }
    // SAFETY: `metadata` is non-null and writable per the caller.
    let n = unsafe { hand_out(buf, metadata.cast::<*mut u8>()) };
    if n > 0 {
        n - 1
    } else {
        n
    }
}

/// The metadata (JSON text) of an in-memory Bloscpack file: `*metadata` receives a `malloc`ed,
/// NUL-terminated copy (free it) and its length (without the NUL) is returned;
/// `BLOSC2_ERROR_NOT_FOUND` when the file has no metadata section, or another negative
/// `BLOSC2_ERROR_*` code.
///
/// # Safety
/// `src` readable for `srcsize` bytes; `metadata` writable.
#[no_mangle]
pub unsafe extern "C" fn b2rs_bloscpack_get_metadata(
    src: *const c_void,
    srcsize: i64,
    metadata: *mut *mut c_char,
) -> i64 {
    guard(fail(), || {
        if metadata.is_null() {
            return Error::NullPointer.code() as i64;
        }
        // SAFETY: per the contract of this function.
        match unsafe { input(src, srcsize) } {
            // SAFETY: `metadata` checked non-null.
            Ok(s) => unsafe { metadata_from(s, metadata) },
            Err(e) => e.code() as i64,
        }
    })
}

/// The metadata (JSON text) of the Bloscpack file `urlpath`; see
/// [`b2rs_bloscpack_get_metadata`].
///
/// # Safety
/// `urlpath` a NUL-terminated string; `metadata` writable.
#[no_mangle]
pub unsafe extern "C" fn b2rs_bloscpack_get_metadata_file(
    urlpath: *const c_char,
    metadata: *mut *mut c_char,
) -> i64 {
    guard(fail(), || {
        if metadata.is_null() {
            return Error::NullPointer.code() as i64;
        }
        // SAFETY: per the contract of this function.
        match unsafe { path(urlpath) }.and_then(|p| open(&p)) {
            // SAFETY: `metadata` checked non-null.
            Ok(f) => unsafe { metadata_from(io::BufReader::new(f), metadata) },
            Err(e) => e.code() as i64,
        }
    })
}

/// Decompress chunk `nchunk` (found through the offsets table) of `src`.
///
/// # Safety
/// `dest` must be non-null and writable.
unsafe fn chunk_from<R: io::Read + Seek>(src: R, nchunk: i64, dest: *mut *mut u8) -> i64 {
    let Ok(i) = u64::try_from(nchunk) else {
        crate::trace_error!("bloscpack: negative chunk number {nchunk}");
        return Error::InvalidIndex.code() as i64;
    };
    let mut r = match Reader::new(src) {
        Ok(r) => r,
        Err(e) => return code(e),
    };
    match r.read_chunk(i) {
        Ok(data) => {
            let mut buf = CBuf::new();
            if buf.write_all(&data).is_err() {
                return Error::MemoryAlloc.code() as i64;
            }
            // SAFETY: `dest` is non-null and writable per the caller.
            unsafe { hand_out(buf, dest) }
        }
        Err(e) => code(e),
    }
}

/// Decompress chunk `nchunk` of an in-memory Bloscpack file, found through its offsets table
/// (the other chunks are not read). `*dest` receives a `malloc`ed buffer (free it) and its
/// length is returned; `BLOSC2_ERROR_INVALID_INDEX` for a chunk number out of range,
/// `BLOSC2_ERROR_INVALID_PARAM` for a file without offsets table, or another negative
/// `BLOSC2_ERROR_*` code.
///
/// # Safety
/// `src` readable for `srcsize` bytes; `dest` writable.
#[no_mangle]
pub unsafe extern "C" fn b2rs_bloscpack_decompress_chunk(
    src: *const c_void,
    srcsize: i64,
    nchunk: i64,
    dest: *mut *mut u8,
) -> i64 {
    guard(fail(), || {
        if dest.is_null() {
            return Error::NullPointer.code() as i64;
        }
        // SAFETY: per the contract of this function.
        match unsafe { input(src, srcsize) } {
            // SAFETY: `dest` checked non-null.
            Ok(s) => unsafe { chunk_from(Cursor::new(s), nchunk, dest) },
            Err(e) => e.code() as i64,
        }
    })
}

/// Decompress chunk `nchunk` of the Bloscpack file `urlpath`; see
/// [`b2rs_bloscpack_decompress_chunk`].
///
/// # Safety
/// `urlpath` a NUL-terminated string; `dest` writable.
#[no_mangle]
pub unsafe extern "C" fn b2rs_bloscpack_decompress_chunk_file(
    urlpath: *const c_char,
    nchunk: i64,
    dest: *mut *mut u8,
) -> i64 {
    guard(fail(), || {
        if dest.is_null() {
            return Error::NullPointer.code() as i64;
        }
        // SAFETY: per the contract of this function.
        match unsafe { path(urlpath) }.and_then(|p| open(&p)) {
            // SAFETY: `dest` checked non-null.
            Ok(f) => unsafe { chunk_from(io::BufReader::new(f), nchunk, dest) },
            Err(e) => e.code() as i64,
        }
    })
}

/// Append `srcsize` bytes to the Bloscpack file `urlpath` in place, like bloscpack's
/// `append`: the last chunk is topped up to the chunk size, the rest goes to new chunks, which
/// need free slots in the offsets table. `cparams` are the Blosc parameters of the rewritten and
/// new chunks (NULL: BloscLZ, clevel 7, shuffle, the typesize of the file). Returns the number
/// of chunks added, or a negative `BLOSC2_ERROR_*` code (`BLOSC2_ERROR_CHUNK_APPEND` when the
/// offsets table has no room left; the file is then unchanged).
///
/// # Safety
/// `urlpath` a NUL-terminated string; `src` readable for `srcsize` bytes; `cparams` NULL or
/// valid.
#[no_mangle]
pub unsafe extern "C" fn b2rs_bloscpack_append_file(
    urlpath: *const c_char,
    src: *const c_void,
    srcsize: i64,
    cparams: *const blosc2_cparams,
) -> i64 {
    guard(fail(), || {
        // SAFETY: per the contract of this function.
        let (path, src) = match unsafe { (path(urlpath), input(src, srcsize)) } {
            (Ok(p), Ok(s)) => (p, s),
            (Err(e), _) | (_, Err(e)) => return e.code() as i64,
        };
        // SAFETY: NULL or valid per the contract.
        let cp = match unsafe { cparams.as_ref() } {
            None => None,
            Some(c) if c.prefilter.is_some() => {
                return invalid("prefilters are not supported in bloscpack files").code() as i64
            }
            Some(c) => {
                let mut p = cparams_from_c(c);
                p.owner = 0;
                Some(p)
            }
        };
        if let Err(e) = open(&path) {
            return e.code() as i64;
        }
        match bp::append_file(&path, src, cp.as_ref()) {
            Ok(k) => k as i64,
            Err(e) => code(e),
        }
    })
}

/// Replace the metadata of the Bloscpack file `urlpath` in place. The new metadata (JSON text
/// of `metadata_len` bytes) is compressed with zlib when that helps and keeps the checksum of
/// the old; it must fit in the space reserved when the file was written (else
/// `BLOSC2_ERROR_WRITE_BUFFER`). Returns 0 or a negative `BLOSC2_ERROR_*` code.
///
/// # Safety
/// `urlpath` a NUL-terminated string; `metadata` readable for `metadata_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn b2rs_bloscpack_set_metadata_file(
    urlpath: *const c_char,
    metadata: *const c_char,
    metadata_len: i64,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: per the contract of this function.
        let (path, meta) = match unsafe {
            (
                path(urlpath),
                input(metadata as *const c_void, metadata_len),
            )
        } {
            (Ok(p), Ok(m)) => (p, m),
            (Err(e), _) | (_, Err(e)) => return e.code(),
        };
        if let Err(e) = open(&path) {
            return e.code();
        }
        match bp::rewrite_metadata_file(&path, meta, None) {
            Ok(()) => 0,
            Err(e) => e.code(),
        }
    })
}

/// `B2RS_BLOSCPACK_PARAMS_DEFAULTS` (for languages that cannot read the header's static const).
///
/// # Safety
/// None.
#[no_mangle]
pub extern "C" fn b2rs_bloscpack_get_params_defaults() -> b2rs_bloscpack_params {
    B2RS_BLOSCPACK_PARAMS_DEFAULTS
}
