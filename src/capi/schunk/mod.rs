//! Super-chunks through the C API (area 7 of API.md, plus `blosc2_schunk_get_vlblock` and
//! `blosc2_schunk_fill_special`).
//!
//! A `blosc2_schunk*` handed to C points to the first field of a boxed `SchunkHandle`: the
//! public C struct, followed by the Rust [`Schunk`]. After every call the C struct is brought in
//! sync with the core (counters, `data[]` chunk pointers of in-memory super-chunks, metalayer
//! copies read by the header-inline `blosc2_meta_get`), since C programs read its fields.
//! Everything C may read or free is allocated with `libc::malloc`.
//!
//! Storage kinds (`blosc2_storage`): in-memory sparse (no urlpath, not contiguous: `frame` NULL,
//! `data[]` set), in-memory frame (contiguous, no urlpath), contiguous frame file (urlpath,
//! contiguous) and sparse frame directory (urlpath only). Frame-backed super-chunks show a
//! non-NULL opaque `frame` and a NULL `data`, as C-Blosc2's; their chunks come from the frame
//! (`get_chunk` lends chunks of in-memory frames and gives `malloc`ed copies otherwise).
//! Opening, serialising and the urlpath helpers live in `frame.rs`.

mod chunks;
mod lock;
mod mirror;
mod slice;

pub(crate) use chunks::{ctx_compress, MallocChunk};
pub(crate) use mirror::{free_c_meta, new_c_meta};
// the exported functions, at the paths they had before the split
pub use chunks::*;
pub use lock::*;
pub use slice::*;

use super::context::{Context, Kind};
use super::types::*;
use super::{guard, slice, slice_mut};
use crate::chunk::header::{Header, MAX_BUFFERSIZE, MAX_OVERHEAD};
use crate::params::{CParams, DParams};
use crate::schunk::{
    compress_to_vec, grow_zeroed, with_compress_scratch, ChunkBytes, IntoChunk, Schunk,
};
use crate::Error;
use core::ffi::{c_int, c_void};
use core::ptr;
use std::borrow::Cow;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The allocation behind a `blosc2_schunk*`.
#[repr(C)]
pub(crate) struct SchunkHandle {
    /// The C view. Must stay the first field: C callers hold a pointer to it.
    pub(crate) c: blosc2_schunk,
    /// The super-chunk itself.
    pub(crate) core: Schunk,
    /// Entries allocated in `c.data`.
    data_cap: usize,
    /// Set by `blosc2_schunk_avoid_cframe_free` (used by frame-backed super-chunks).
    pub(crate) avoid_cframe_free: bool,
    /// The `malloc`ed buffer handed over by `blosc2_schunk_from_buffer(.., copy=false)` (0 if
    /// none): freed with the super-chunk unless `avoid_cframe_free` is set, as C-Blosc2 does.
    pub(crate) cframe_owner: usize,
    /// Length of the buffer at `cframe_owner`.
    pub(crate) cframe_len: usize,
    /// Set to hand the `malloc`ed frame bytes lent by `blosc2_schunk_to_buffer` to the caller
    /// (shared with the [`super::frame::MallocedFrame`] the frame reads, if it still does).
    lent_kept: Option<Arc<AtomicBool>>,
    /// The caller's own `blosc2_schunk_avoid_cframe_free` (the default `avoid_cframe_free` of
    /// `blosc2_schunk_from_buffer(.., copy=false)` concerns the caller's buffer only): only
    /// then do the frame bytes lent by `blosc2_schunk_to_buffer` become the caller's.
    pub(crate) caller_avoids_free: bool,
    /// The frame bytes moved out by `blosc2_schunk_to_buffer`, kept until the frame changes or
    /// the super-chunk is freed, so chunks lent from them earlier stay readable until then
    /// (as they would in C-Blosc2, which does not move the frame).
    retired_frame: Vec<u8>,
    /// `core.reloads()` when the C mirrors were last rebuilt.
    seen_reloads: u64,
    /// `core.checksums_tick()` when the C copy of the chunk checksums' vlmetalayer was last
    /// written (the core rewrites it at every change of the chunks).
    seen_checksums: u64,
    /// `core.chunks_stamp()` when `c.data` was last written: a call that changed no chunk
    /// leaves it as it is (no pass over every chunk per call).
    mirrored_chunks: Option<Option<u64>>,
    /// `core.meta_stamp()` when the C metalayers were last rebuilt.
    mirrored_meta: Option<(u64, i64, u64)>,
    /// The chunk-sized buffer the B2ND calls on this super-chunk keep between calls.
    pub(crate) array_scratch: Vec<u8>,
    /// Owners besides the first: B2ND views (`b2nd_squeeze`, `b2nd_expand_dims`) share the
    /// super-chunk of their array; `blosc2_schunk_free` releases one owner at a time.
    pub(crate) extra_owners: usize,
    /// The caller-writable fields of `c` as this library last wrote them (see `pull`).
    written: mirror::Written,
}

/// The handle behind a C super-chunk pointer (`None` for NULL).
///
/// # Safety
/// `p` must be NULL or a pointer returned by this library's super-chunk constructors and not
/// yet freed.
///
/// What the caller wrote into the public struct since the last call is handed to the core
/// first ([`SchunkHandle::pull`]): the struct is two-way, as C-Blosc2's is its state.
pub(crate) unsafe fn handle<'a>(p: *mut blosc2_schunk) -> Option<&'a mut SchunkHandle> {
    // SAFETY: `c` is the first field of the #[repr(C)] SchunkHandle, so the pointers coincide;
    // the caller guarantees that `p` came from `Box::into_raw` of a handle.
    let h = unsafe { (p as *mut SchunkHandle).as_mut() }?;
    h.pull();
    Some(h)
}

/// The super-chunk handles alive (their addresses): a `blosc2_schunk*` met in parameters
/// (`dparams.schunk`) is only read as a handle when it is one (plugins get views that are not).
static LIVE: std::sync::Mutex<Option<std::collections::HashSet<usize>>> =
    std::sync::Mutex::new(None);

fn live_set() -> std::sync::MutexGuard<'static, Option<std::collections::HashSet<usize>>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// The handle at `p` if it is one of this library's live super-chunks (read only).
///
/// # Safety
/// A live handle at `p` must not be freed or changed by another thread meanwhile.
pub(crate) unsafe fn live_handle<'a>(p: usize) -> Option<&'a SchunkHandle> {
    if !live_set().as_ref().is_some_and(|s| s.contains(&p)) {
        return None;
    }
    // SAFETY: a registered address is a live boxed handle (removed when freed).
    unsafe { (p as *const SchunkHandle).as_ref() }
}

fn fail() -> c_int {
    Error::Failure.code()
}

fn code64(r: crate::Result<i64>) -> i64 {
    match r {
        Ok(n) => n,
        Err(e) => e.code() as i64,
    }
}

/// Copy `b` into a new `malloc`ed buffer (NULL when out of memory).
pub(crate) fn malloc_copy(b: &[u8]) -> *mut u8 {
    // SAFETY: a plain C allocation of at least one byte; the copy stays in bounds.
    unsafe {
        let p = libc::malloc(b.len().max(1)) as *mut u8;
        if !p.is_null() {
            ptr::copy_nonoverlapping(b.as_ptr(), p, b.len());
        }
        p
    }
}

// ---------------------------------------------------------------------------------------------
// Chunks coming from C
// ---------------------------------------------------------------------------------------------

// SAFETY: the buffer is owned exclusively by the super-chunk once taken over and only read.
unsafe impl Send for MallocChunk {}
// SAFETY: as above; shared access is read-only.
unsafe impl Sync for MallocChunk {}

// ---------------------------------------------------------------------------------------------
// Keeping the C struct in sync
// ---------------------------------------------------------------------------------------------

/// Free a `blosc2_storage` made by [`new_c_storage`].
unsafe fn free_c_storage(st: *mut blosc2_storage) {
    if st.is_null() {
        return;
    }
    // SAFETY: every pointer inside was malloc'ed by `new_c_storage` (or is NULL).
    unsafe {
        libc::free((*st).urlpath as *mut c_void);
        libc::free((*st).cparams as *mut c_void);
        libc::free((*st).dparams as *mut c_void);
        libc::free((*st).io as *mut c_void);
        libc::free(st as *mut c_void);
    }
}

fn malloc_value<T: Copy>(v: &T) -> *mut T {
    // SAFETY: a C allocation of the value's size, written once.
    unsafe {
        let p = libc::malloc(core::mem::size_of::<T>()) as *mut T;
        if !p.is_null() {
            p.write(*v);
        }
        p
    }
}

/// A C-malloc'ed copy of a storage description (with its own cparams, dparams and io).
fn new_c_storage(
    contiguous: bool,
    cparams: &blosc2_cparams,
    dparams: &blosc2_dparams,
    io: &blosc2_io,
) -> *mut blosc2_storage {
    let st = malloc_value(&blosc2_storage {
        contiguous: contiguous as c_bool,
        urlpath: ptr::null_mut(),
        cparams: malloc_value(cparams),
        dparams: malloc_value(dparams),
        io: malloc_value(io),
    });
    // SAFETY: `st` is NULL or the struct just written.
    unsafe {
        if !st.is_null()
            && ((*st).cparams.is_null() || (*st).dparams.is_null() || (*st).io.is_null())
        {
            free_c_storage(st);
            return ptr::null_mut();
        }
    }
    st
}

/// A boxed handle with a zeroed C struct, built in place (the C struct is 65840 bytes).
fn new_handle() -> Box<SchunkHandle> {
    super::plugin_loader::install();
    let mut b = Box::<SchunkHandle>::new_uninit();
    let p = b.as_mut_ptr();
    // SAFETY: every field is initialised before `assume_init`: the C struct with zero bytes
    // (its all-zero pattern is `blosc2_schunk::ZEROED`: NULL pointers, zero integers, false),
    // the others by `write`.
    unsafe {
        ptr::addr_of_mut!((*p).c).write_bytes(0, 1);
        ptr::addr_of_mut!((*p).core).write(Schunk::new(CParams::default(), DParams::default()));
        ptr::addr_of_mut!((*p).data_cap).write(0);
        ptr::addr_of_mut!((*p).avoid_cframe_free).write(false);
        ptr::addr_of_mut!((*p).cframe_owner).write(0);
        ptr::addr_of_mut!((*p).cframe_len).write(0);
        ptr::addr_of_mut!((*p).lent_kept).write(None);
        ptr::addr_of_mut!((*p).caller_avoids_free).write(false);
        ptr::addr_of_mut!((*p).retired_frame).write(Vec::new());
        ptr::addr_of_mut!((*p).seen_reloads).write(0);
        ptr::addr_of_mut!((*p).seen_checksums).write(0);
        ptr::addr_of_mut!((*p).mirrored_chunks).write(None);
        ptr::addr_of_mut!((*p).mirrored_meta).write(None);
        ptr::addr_of_mut!((*p).array_scratch).write(Vec::new());
        ptr::addr_of_mut!((*p).extra_owners).write(0);
        ptr::addr_of_mut!((*p).written).write(mirror::Written::default());
        b.assume_init()
    }
}

/// Create an in-memory super-chunk from C parameters; returns the C pointer (NULL on error).
///
/// # Safety
/// Pointers inside `cparams`/`dparams` (filter params) must stay valid while it is used.
pub(crate) unsafe fn new_schunk_c(
    cparams: &blosc2_cparams,
    dparams: &blosc2_dparams,
    io: &blosc2_io,
) -> *mut blosc2_schunk {
    // SAFETY: forwarded caller guarantees.
    unsafe {
        new_schunk_with(cparams, dparams, io, false, None, &mut |c, d| {
            Ok(Schunk::new(c, d))
        })
    }
}

/// Create a super-chunk from C parameters whose core is made by `make` (given the parameters
/// of the contexts); `contiguous` and `urlpath` are recorded in `storage`. NULL on error.
///
/// # Safety
/// As [`new_schunk_c`].
pub(crate) unsafe fn new_schunk_with(
    cparams: &blosc2_cparams,
    dparams: &blosc2_dparams,
    io: &blosc2_io,
    contiguous: bool,
    urlpath: Option<&str>,
    make: &mut dyn FnMut(CParams, DParams) -> crate::Result<Schunk>,
) -> *mut blosc2_schunk {
    let mut h = new_handle();
    let cp = h.c_ptr();
    let mut cparams = *cparams;
    let mut dparams = *dparams;
    cparams.schunk = cp as *mut c_void;
    dparams.schunk = cp as *mut c_void;
    // SAFETY: plain context constructors; NULL when the parameters are refused.
    let (cctx, dctx) = unsafe {
        (
            super::context::blosc2_create_cctx(cparams),
            super::context::blosc2_create_dctx(dparams),
        )
    };
    let core_params = |cctx: *mut blosc2_context, dctx: *mut blosc2_context| {
        // SAFETY: both are live contexts just created.
        let (c, d): (&Context, &Context) =
            unsafe { (&*(cctx as *const Context), &*(dctx as *const Context)) };
        match (&c.kind, &d.kind) {
            (Kind::Compress(c), Kind::Decompress(d)) => Some((c.clone(), d.clone())),
            _ => None,
        }
    };
    let params = if cctx.is_null() || dctx.is_null() {
        None
    } else {
        core_params(cctx, dctx)
    };
    let mut st = new_c_storage(contiguous, &cparams, &dparams, io);
    if let (Some(u), false) = (urlpath, st.is_null()) {
        let mut b = u.as_bytes().to_vec();
        b.push(0);
        let p = malloc_copy(&b);
        if p.is_null() {
            // SAFETY: the storage just made here.
            unsafe { free_c_storage(st) };
            st = ptr::null_mut();
        } else {
            // SAFETY: `st` is the live storage just made.
            unsafe { (*st).urlpath = p as *mut core::ffi::c_char };
        }
    }
    let Some((pc, pd)) = params.filter(|_| !st.is_null()) else {
        crate::trace_error!("Could not create the contexts of the super-chunk");
        // SAFETY: NULL or contexts/storage just created here.
        unsafe {
            super::context::blosc2_free_ctx(cctx);
            super::context::blosc2_free_ctx(dctx);
            free_c_storage(st);
        }
        return ptr::null_mut();
    };
    match make(pc, pd) {
        Ok(core) => h.core = core,
        Err(e) => {
            crate::trace_error!("Could not create the super-chunk: {}", e);
            // SAFETY: contexts/storage just created here.
            unsafe {
                super::context::blosc2_free_ctx(cctx);
                super::context::blosc2_free_ctx(dctx);
                free_c_storage(st);
            }
            return ptr::null_mut();
        }
    }
    h.write_coding(&cparams);
    let c = &mut h.c;
    c.version = 0;
    c.chunksize = -1;
    c.flags2 = 0;
    c.storage = st;
    c.frame = ptr::null_mut();
    c.cctx = cctx;
    c.dctx = dctx;
    c.tuner_params = cparams.tuner_params;
    c.tuner_id = cparams.tuner_id;
    // B2ND writes go through the context in `cctx` (the caller may replace it: new codec,
    // prefilter, tuner), as C-Blosc2's do
    let addr = &*h as *const SchunkHandle as usize;
    h.core.set_compressor(Some(std::sync::Arc::new(
        move |cp: &CParams, n, src: &[u8]| {
            // SAFETY: the handle owns the super-chunk calling this, so it is alive; only the
            // `cctx` field of its C struct is read (the caller may have replaced it).
            let cctx = unsafe { (*(addr as *const SchunkHandle)).c.cctx };
            ctx_compress(cctx, cp, n, src)
        },
    )));
    if h.rebuild_mirrors().is_err() {
        crate::trace_error!("Cannot copy the metalayers of the super-chunk");
        let raw = Box::into_raw(h);
        // SAFETY: the handle just leaked.
        unsafe { free_schunk_c(ptr::addr_of_mut!((*raw).c)) };
        return ptr::null_mut();
    }
    let raw = Box::into_raw(h);
    live_set()
        .get_or_insert_with(Default::default)
        .insert(raw as usize);
    // SAFETY: `raw` is the live handle just leaked; `c` is its first field.
    unsafe { ptr::addr_of_mut!((*raw).c) }
}

/// Release everything a handle owns.
///
/// # Safety
/// `p` must come from `new_schunk_c` and not be used afterwards.
pub(crate) unsafe fn free_schunk_c(p: *mut blosc2_schunk) {
    if let Some(s) = live_set().as_mut() {
        s.remove(&(p as usize));
    }
    // SAFETY: the caller guarantees `p` is a live handle created by Box::into_raw.
    let h = unsafe { Box::from_raw(p as *mut SchunkHandle) };
    // SAFETY: all C-side allocations below were made by this module (or replaced by the caller
    // with objects of the same kinds, as C-Blosc2 also frees whatever it finds there).
    unsafe {
        for i in 0..(h.c.nmetalayers as usize).min(h.c.metalayers.len()) {
            free_c_meta(h.c.metalayers[i]);
        }
        for i in 0..(h.c.nvlmetalayers.max(0) as usize).min(h.c.vlmetalayers.len()) {
            free_c_meta(h.c.vlmetalayers[i]);
        }
        free_c_storage(h.c.storage);
        super::context::blosc2_free_ctx(h.c.cctx);
        super::context::blosc2_free_ctx(h.c.dctx);
        libc::free(h.c.data as *mut c_void);
        if h.cframe_owner != 0 && !h.avoid_cframe_free {
            libc::free(h.cframe_owner as *mut c_void);
        }
    }
    if h.caller_avoids_free {
        // the frame bytes last lent by `blosc2_schunk_to_buffer` (if the frame still reads
        // them) become the caller's
        if let Some(k) = &h.lent_kept {
            k.store(true, std::sync::atomic::Ordering::Release);
        }
    }
    drop(h);
}

// ---------------------------------------------------------------------------------------------
// Creation, copy, free
// ---------------------------------------------------------------------------------------------

/// Create a new super-chunk (NULL `storage`: in-memory with default parameters). With
/// `contiguous` it is a contiguous frame (in memory, or a file at `urlpath`); with only
/// `urlpath` a sparse frame directory.
///
/// # Safety
/// `storage` must be NULL or valid, with its pointers NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_new(storage: *mut blosc2_storage) -> *mut blosc2_schunk {
    guard(ptr::null_mut(), || {
        // SAFETY: checked for NULL; the caller guarantees validity.
        let st = unsafe { storage.as_ref() }
            .copied()
            .unwrap_or(BLOSC2_STORAGE_DEFAULTS);
        // SAFETY: each pointer checked for NULL; the caller guarantees validity.
        let (cp, dp, io) = unsafe {
            (
                st.cparams
                    .as_ref()
                    .copied()
                    .unwrap_or(BLOSC2_CPARAMS_DEFAULTS),
                st.dparams
                    .as_ref()
                    .copied()
                    .unwrap_or(BLOSC2_DPARAMS_DEFAULTS),
                st.io.as_ref().copied().unwrap_or(BLOSC2_IO_DEFAULTS),
            )
        };
        let mut cp = cp;
        if std::env::var_os("BTUNE_TRADEOFF").is_some() {
            // as C-Blosc2: BTune tunes every new super-chunk when its trade-off is set
            cp.tuner_id = super::tuner::BTUNE;
        }
        // SAFETY: forwarded caller guarantees.
        unsafe { new_storage_schunk(&st, &cp, &dp, &io) }
    })
}

/// The path of a C `urlpath` without its `file:///` prefix (`None` for NULL).
///
/// # Safety
/// `p` must be NULL or a NUL-terminated string.
pub(crate) unsafe fn urlpath_str(p: *const core::ffi::c_char) -> Result<Option<String>, Error> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: the caller guarantees a NUL-terminated string.
    let s = unsafe { core::ffi::CStr::from_ptr(p) }
        .to_str()
        .map_err(|_| {
            crate::trace_error!("The urlpath is not valid UTF-8");
            Error::InvalidParam
        })?;
    Ok(Some(s.strip_prefix("file:///").unwrap_or(s).to_string()))
}

/// Whether `path` is a remote URL (`s3://`, `http://`, `https://`).
pub(crate) fn is_remote(path: &str) -> bool {
    #[cfg(feature = "remote")]
    return crate::remote::is_url(path);
    #[cfg(not(feature = "remote"))]
    return ["s3://", "http://", "https://"]
        .iter()
        .any(|p| path.len() >= p.len() && path[..p.len()].eq_ignore_ascii_case(p));
}

/// Refuse to create or write a frame at an `http(s)://` URL (read-only); `s3://` is
/// writable.
pub(crate) fn refuse_remote_write(path: &str) -> Result<(), Error> {
    let s3 = path.len() >= 5 && path[..5].eq_ignore_ascii_case("s3://");
    if is_remote(path) && !s3 {
        crate::trace_error!(
            "{}: an HTTP server is read-only (write to s3:// URLs)",
            path
        );
        return Err(Error::FileWrite);
    }
    Ok(())
}

/// The back-end that writes a whole frame file at `path` (remote for `s3://`); flush it
/// after the write.
pub(crate) fn file_io(path: &str) -> Result<std::sync::Arc<dyn crate::frame::Io>, Error> {
    refuse_remote_write(path)?;
    if is_remote(path) {
        #[cfg(feature = "remote")]
        return Ok(crate::remote::shared());
        #[cfg(not(feature = "remote"))]
        {
            crate::trace_error!("{}: this b2rs was built without remote URLs", path);
            return Err(Error::FileOpen);
        }
    }
    Ok(std::sync::Arc::new(crate::frame::StdIo))
}

/// The I/O back-end for the frame at `path`: the remote one for `s3://` and `http(s)://`
/// URLs opened with the default filesystem back-end, else the one `io` selects.
///
/// # Safety
/// As [`core_io`].
pub(crate) unsafe fn io_for_path(
    io: &blosc2_io,
    path: &str,
) -> Result<std::sync::Arc<dyn crate::frame::Io>, Error> {
    if is_remote(path) && io.id as c_int == super::consts::BLOSC2_IO_FILESYSTEM {
        #[cfg(feature = "remote")]
        return Ok(crate::remote::shared());
        #[cfg(not(feature = "remote"))]
        {
            crate::trace_error!("{}: this b2rs was built without remote URLs", path);
            return Err(Error::FileOpen);
        }
    }
    // SAFETY: caller's contract.
    unsafe { core_io(io) }
}

/// Whether the `BLOSC_LOCKING` environment variable turns file locking on (set, not empty
/// and not "0").
fn locking_env() -> bool {
    std::env::var_os("BLOSC_LOCKING").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The I/O back-end selected by a C `blosc2_io` (the native one for the default filesystem).
///
/// # Safety
/// `io` must be valid, its `params` valid for the life of the back-end.
pub(crate) unsafe fn core_io(
    io: &blosc2_io,
) -> Result<std::sync::Arc<dyn crate::frame::Io>, Error> {
    if io.id as c_int == super::consts::BLOSC2_IO_FILESYSTEM {
        // SAFETY: the filesystem back-end's params are NULL or a `blosc2_stdio_params`.
        let asked = unsafe { (io.params as *const super::types::blosc2_stdio_params).as_ref() }
            .is_some_and(|p| p.locking != 0);
        if asked || locking_env() {
            return Ok(std::sync::Arc::new(crate::frame::LockingStdIo));
        }
        return Ok(std::sync::Arc::new(crate::frame::StdIo));
    }
    // SAFETY: caller's contract.
    Ok(std::sync::Arc::new(unsafe { super::io::CIo::from_io(io) }?))
}

/// Create an empty super-chunk stored as `st` says (memory, in-memory frame, file frame or
/// sparse directory).
///
/// # Safety
/// As [`new_schunk_c`]; `st.urlpath` NULL or a NUL-terminated string.
pub(crate) unsafe fn new_storage_schunk(
    st: &blosc2_storage,
    cp: &blosc2_cparams,
    dp: &blosc2_dparams,
    io: &blosc2_io,
) -> *mut blosc2_schunk {
    // SAFETY: caller's contract.
    let path = match unsafe { urlpath_str(st.urlpath) } {
        Ok(p) => p,
        Err(_) => return ptr::null_mut(),
    };
    if let Some(p) = &path {
        if refuse_remote_write(p).is_err() {
            return ptr::null_mut();
        }
    }
    let contiguous = st.contiguous != 0;
    if !contiguous && path.is_none() {
        // SAFETY: forwarded caller guarantees.
        return unsafe { new_schunk_c(cp, dp, io) };
    }
    use crate::frame::{Frame, Location};
    let loc = match (&path, contiguous) {
        (None, _) => Location::Memory,
        (Some(p), true) => Location::File {
            path: p.into(),
            offset: 0,
        },
        (Some(p), false) => Location::Dir(p.into()),
    };
    let mut make = |c: CParams, d: DParams| -> crate::Result<Schunk> {
        // SAFETY: caller's contract for `io`.
        let cio = match &path {
            Some(p) => unsafe { io_for_path(io, p) }?,
            None => unsafe { core_io(io) }?,
        };
        let fp = crate::frame::FrameParams::from_cparams(&c, d.nthreads);
        let f = Frame::create(loc.clone(), &fp, cio)?;
        Ok(Schunk::with_frame(c, d, f))
    };
    // SAFETY: forwarded caller guarantees.
    unsafe { new_schunk_with(cp, dp, io, contiguous, path.as_deref(), &mut make) }
}

/// Copy a super-chunk into a new one with `storage` (NULL: in memory, same parameters).
///
/// # Safety
/// `schunk` must be a live super-chunk; `storage` NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_copy(
    schunk: *mut blosc2_schunk,
    storage: *mut blosc2_storage,
) -> *mut blosc2_schunk {
    guard(ptr::null_mut(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(src) = (unsafe { handle(schunk) }) else {
            crate::trace_error!("Can not copy a NULL `schunk`");
            return ptr::null_mut();
        };
        // SAFETY: checked for NULL.
        let st = unsafe { storage.as_ref() }
            .copied()
            .unwrap_or(BLOSC2_STORAGE_DEFAULTS);
        // SAFETY: checked for NULL.
        let cp = match unsafe { st.cparams.as_ref() } {
            Some(c) => *c,
            None => {
                // The source's compression context's coding and last blocksize, as
                // C-Blosc2 takes them.
                blosc2_cparams {
                    schunk: ptr::null_mut(),
                    codec_params: ptr::null_mut(),
                    ..super::callbacks::cparams_to_c(&src.cctx_cparams())
                }
            }
        };
        // SAFETY: checked for NULL.
        let (dp, io) = unsafe {
            (
                st.dparams
                    .as_ref()
                    .copied()
                    .unwrap_or(BLOSC2_DPARAMS_DEFAULTS),
                st.io.as_ref().copied().unwrap_or(BLOSC2_IO_DEFAULTS),
            )
        };
        // SAFETY: forwarded caller guarantees.
        let out = unsafe { new_storage_schunk(&st, &cp, &dp, &io) };
        // SAFETY: NULL or the handle just created.
        let Some(dst) = (unsafe { handle(out) }) else {
            return ptr::null_mut();
        };
        let (cctx, mut cp) = (dst.c.cctx, dst.core.cparams().clone());
        // the copy gets the same metalayers, so the same array shapes
        cp.b2nd = src.core.nd_meta().cloned();
        // Chunks are kept as they are when the source's compression context makes what the
        // copy's parameters make (a blocksize of 0 being the context's last one), as C-Blosc2.
        let made = src.cctx_cparams();
        let mut to = cp.clone();
        if to.blocksize == 0 {
            to.blocksize = made.blocksize;
        }
        let same = src.core.copies_as_is(&made, &to);
        let copied = src.core.copy_into_as(
            &mut dst.core,
            &mut |n, s| ctx_compress(cctx, &cp, n, s),
            same,
        );
        match copied {
            Ok(()) => {
                if dst.rebuild_mirrors().is_ok() {
                    return out;
                }
            }
            Err(e) => crate::trace_error!("Can not copy the super-chunk: {}", e),
        }
        // SAFETY: `out` is the handle created above.
        unsafe { free_schunk_c(out) };
        ptr::null_mut()
    })
}

/// Free a super-chunk and everything it holds (NULL is ignored).
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_free(schunk: *mut blosc2_schunk) -> c_int {
    guard(fail(), || {
        // SAFETY: NULL or a live super-chunk (caller). What the caller wrote into the struct
        // is not taken: freeing writes nothing, as in C-Blosc2.
        if let Some(h) = unsafe { (schunk as *mut SchunkHandle).as_mut() } {
            if h.extra_owners > 0 {
                // shared with a B2ND view: the last owner frees it
                h.extra_owners -= 1;
                return 0;
            }
            // a frame on `s3://` is uploaded now: its error is this call's
            let flushed = h.core.flush();
            // SAFETY: the caller guarantees a live super-chunk.
            unsafe { free_schunk_c(schunk) };
            if let Err(e) = flushed {
                return e.code();
            }
        }
        0
    })
}

// ---------------------------------------------------------------------------------------------
// Chunks
// ---------------------------------------------------------------------------------------------

/// A new `calloc`ed copy of the super-chunk's compression parameters (the caller frees it).
///
/// # Safety
/// `schunk` live; `cparams` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_cparams(
    schunk: *mut blosc2_schunk,
    cparams: *mut *mut blosc2_cparams,
) -> c_int {
    guard(fail(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::NullPointer.code();
        };
        if cparams.is_null() {
            return Error::NullPointer.code();
        }
        let s = &h.c;
        let c = blosc2_cparams {
            schunk: schunk as *mut c_void,
            filters: s.filters,
            filters_meta: s.filters_meta,
            compcode: s.compcode,
            compcode_meta: s.compcode_meta,
            clevel: s.clevel,
            use_dict: s.use_dict as c_int,
            typesize: s.typesize,
            blocksize: s.blocksize,
            splitmode: s.splitmode as i32,
            nthreads: h.cur_cparams().nthreads,
            ..blosc2_cparams::default()
        };
        let p = calloc_value(&c);
        if p.is_null() {
            return Error::MemoryAlloc.code();
        }
        // SAFETY: checked for NULL.
        unsafe { *cparams = p };
        0
    })
}

/// A new `calloc`ed copy of the super-chunk's decompression parameters (the caller frees it).
///
/// # Safety
/// `schunk` live; `dparams` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_dparams(
    schunk: *mut blosc2_schunk,
    dparams: *mut *mut blosc2_dparams,
) -> c_int {
    guard(fail(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::NullPointer.code();
        };
        if dparams.is_null() {
            return Error::NullPointer.code();
        }
        let d = blosc2_dparams {
            nthreads: h.cur_dparams().nthreads,
            schunk: schunk as *mut c_void,
            postfilter: None,
            postparams: ptr::null_mut(),
            typesize: 0,
        };
        let p = calloc_value(&d);
        if p.is_null() {
            return Error::MemoryAlloc.code();
        }
        // SAFETY: checked for NULL.
        unsafe { *dparams = p };
        0
    })
}

fn calloc_value<T: Copy>(v: &T) -> *mut T {
    // SAFETY: a zeroed C allocation of the value's size, written once.
    unsafe {
        let p = libc::calloc(1, core::mem::size_of::<T>()) as *mut T;
        if !p.is_null() {
            p.write(*v);
        }
        p
    }
}
