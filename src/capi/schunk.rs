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

use super::context::{blosc2_context_s, Kind};
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
}

/// The handle behind a C super-chunk pointer (`None` for NULL).
///
/// # Safety
/// `p` must be NULL or a pointer returned by this library's super-chunk constructors and not
/// yet freed.
pub(crate) unsafe fn handle<'a>(p: *mut blosc2_schunk) -> Option<&'a mut SchunkHandle> {
    // SAFETY: `c` is the first field of the #[repr(C)] SchunkHandle, so the pointers coincide;
    // the caller guarantees that `p` came from `Box::into_raw` of a handle.
    unsafe { (p as *mut SchunkHandle).as_mut() }
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

/// Compress the data of chunk `nchunk` through the compression context `cctx` (what C-Blosc2
/// does with `schunk->cctx`, which callers may replace), handing `nchunk` to its prefilter.
/// Falls back on `fallback` when there is no compression context.
fn ctx_compress(
    cctx: *mut blosc2_context,
    fallback: &CParams,
    nchunk: i64,
    src: &[u8],
) -> crate::Result<Vec<u8>> {
    // SAFETY: `cctx` is NULL or a live context of the super-chunk.
    let Some(ctx) = (unsafe { cctx.as_mut() }) else {
        return crate::schunk::compress_chunk(fallback, nchunk, src);
    };
    if let Kind::Compress(p) = &mut ctx.kind {
        p.nchunk = nchunk;
        if p.owner == fallback.owner {
            // the super-chunk's own context: plugins see its shapes and typesize
            p.b2nd = fallback.b2nd.clone();
            p.schunk_typesize = fallback.schunk_typesize;
        } else {
            // SAFETY: another super-chunk (or NULL) that the caller's context points to.
            unsafe { super::callbacks::resolve_cparams(p) };
        }
    }
    if src.len() > MAX_BUFFERSIZE as usize {
        crate::trace_error!("Input buffer size cannot exceed {} bytes", MAX_BUFFERSIZE);
        return Err(Error::MaxBufsizeExceeded);
    }
    compress_to_vec(src.len() + MAX_OVERHEAD, |out| {
        compress_ctx_into(cctx, src, out)
    })
}

/// Hand the chunk number `nchunk` to the prefilter of the compression context `cctx`.
fn set_ctx_nchunk(cctx: *mut blosc2_context, nchunk: i64) {
    // SAFETY: `cctx` is NULL or a live context of the super-chunk.
    if let Some(ctx) = unsafe { cctx.as_mut() } {
        if let Kind::Compress(p) = &mut ctx.kind {
            p.nchunk = nchunk;
        }
    }
}

/// Compress `src` through the live context `cctx` into `out` (grown to the worst case if
/// needed); returns the compressed size.
fn compress_ctx_into(
    cctx: *mut blosc2_context,
    src: &[u8],
    out: &mut Vec<u8>,
) -> crate::Result<usize> {
    let cap = src.len() + MAX_OVERHEAD;
    grow_zeroed(out, cap)?;
    // SAFETY: the caller passes a live context (or NULL).
    let Some(ctx) = (unsafe { cctx.as_mut() }) else {
        return Err(Error::NullPointer);
    };
    // `src` and `out` are valid for the lengths given; the plugin information of the context
    // was filled in by the caller.
    let rc = super::chunk::compress_resolved(
        ctx,
        src.as_ptr() as *const c_void,
        src.len() as i32,
        out.as_mut_ptr() as *mut c_void,
        cap as i32,
    );
    if rc <= 0 {
        crate::trace_error!("Cannot compress the chunk ({})", rc);
        return Err(Error::from_code(rc).unwrap_or(Error::Failure));
    }
    Ok(rc as usize)
}

// ---------------------------------------------------------------------------------------------
// Chunks coming from C
// ---------------------------------------------------------------------------------------------

/// A chunk buffer taken over from a C caller (`copy == false`), released with `free()`.
struct MallocChunk {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the buffer is owned exclusively by the super-chunk once taken over and only read.
unsafe impl Send for MallocChunk {}
// SAFETY: as above; shared access is read-only.
unsafe impl Sync for MallocChunk {}

impl ChunkBytes for MallocChunk {
    fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` holds at least `len` bytes (the chunk's cbytes) while owned here.
        unsafe { core::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl Drop for MallocChunk {
    fn drop(&mut self) {
        // SAFETY: the caller handed over a `malloc`ed buffer (the API contract for copy=false).
        unsafe { libc::free(self.ptr as *mut c_void) }
    }
}

/// A chunk passed by a C caller: copied, or taken over once accepted.
struct CChunk {
    ptr: *mut u8,
    len: usize,
    nbytes: i32,
    copy: bool,
}

impl IntoChunk for CChunk {
    fn bytes(&self) -> &[u8] {
        // SAFETY: `read_chunk` checked the header; the caller guarantees `cbytes` bytes.
        unsafe { core::slice::from_raw_parts(self.ptr, self.len) }
    }

    fn into_stored(self) -> Box<dyn ChunkBytes> {
        if self.copy {
            return Box::new(self.bytes().to_vec());
        }
        let mut p = self.ptr;
        if (self.len as i64) < self.nbytes as i64 {
            // Like C-Blosc2: trim the allocation (made for the uncompressed size) to the chunk.
            // SAFETY: the buffer came from malloc (API contract for copy=false).
            let q = unsafe { libc::realloc(p as *mut c_void, self.len) } as *mut u8;
            if !q.is_null() {
                p = q;
            }
        }
        Box::new(MallocChunk {
            ptr: p,
            len: self.len,
        })
    }
}

/// Read the header of a chunk passed from C and describe it.
///
/// # Safety
/// `chunk` must point to a chunk readable for its header's `cbytes` bytes.
unsafe fn read_chunk(chunk: *mut u8, copy: bool) -> Result<CChunk, Error> {
    if chunk.is_null() {
        crate::trace_error!("The chunk is NULL");
        return Err(Error::NullPointer);
    }
    // SAFETY: every chunk starts with a 16-byte header (the reference reads it the same way).
    let head = unsafe { core::slice::from_raw_parts(chunk, 16) };
    let h = Header::parse_basic(head)?;
    Ok(CChunk {
        ptr: chunk,
        len: h.cbytes as usize,
        nbytes: h.nbytes,
        copy,
    })
}

// ---------------------------------------------------------------------------------------------
// Keeping the C struct in sync
// ---------------------------------------------------------------------------------------------

impl SchunkHandle {
    /// Whether `p` points into the bytes of an in-memory frame (a chunk lent by
    /// `blosc2_schunk_get_chunk`), which must be copied rather than taken over.
    fn lent(&self, p: *const u8) -> bool {
        let a = p as usize;
        // Chunks lent from a caller's frame buffer stay in it after a copy-on-write.
        if a >= self.cframe_owner && a - self.cframe_owner < self.cframe_len {
            return true;
        }
        if self.retired_frame.as_ptr_range().contains(&p) {
            return true;
        }
        match self.core.frame().and_then(|f| f.as_bytes()) {
            Some(b) => b.as_ptr_range().contains(&p),
            None => false,
        }
    }

    fn c_ptr(&mut self) -> *mut blosc2_schunk {
        &mut self.c
    }

    /// Re-sync with the frame on disk when another handle changed it (counters, metalayers
    /// and their C mirrors), as C-Blosc2's data-access functions do.
    pub(crate) fn resync(&mut self) -> Result<(), Error> {
        if self.core.sync()? {
            self.rebuild_mirrors()?;
            self.sync();
        }
        Ok(())
    }

    /// Make an in-memory frame read its bytes from a `malloc`ed buffer (see
    /// `blosc2_schunk_to_buffer`); nothing to do when it already reads lent bytes.
    pub(crate) fn lend_frame_malloced(&mut self) -> crate::Result<()> {
        let Some(f) = self.core.frame_mut() else {
            return Ok(());
        };
        let kept = Arc::new(AtomicBool::new(false));
        let k = kept.clone();
        let old = f.relocate_memory(|b| {
            Ok(Box::new(super::frame::MallocedFrame::copy_of(b, k)?)
                as Box<dyn crate::frame::SharedBytes>)
        })?;
        if let Some(old) = old {
            self.retired_frame = old;
            self.lent_kept = Some(kept);
        }
        Ok(())
    }

    /// Bring the C struct in sync after a call: every mirror (metalayers, vlmetalayers, chunk
    /// pointers) when the core read the frame again because another handle changed it (any
    /// locked operation may do that), else the counters and the current chunk.
    pub(crate) fn sync(&mut self) {
        if !self.retired_frame.is_empty() && !self.core.frame().is_some_and(|f| f.is_lent()) {
            // the frame changed: what was lent from the bytes before is stale, as in C-Blosc2
            self.retired_frame = Vec::new();
        }
        if self.core.reloads() != self.seen_reloads {
            if let Err(e) = self.rebuild_mirrors() {
                crate::trace_error!("Cannot copy the metalayers of the super-chunk: {}", e);
                self.sync_counters();
            }
            return;
        }
        self.sync_counters();
    }

    /// Counters and the current chunk, also handed to the contexts' pre/postfilters.
    fn sync_counters(&mut self) {
        let s = &self.core;
        self.c.nchunks = s.nchunks();
        self.c.nbytes = s.nbytes();
        self.c.cbytes = s.cbytes();
        self.c.chunksize = s.chunksize();
        self.c.flags2 = s.flags2();
        self.c.current_nchunk = s.current_nchunk();
        self.c.change_tick = s.change_tick();
        // Frame-backed super-chunks show a non-NULL (opaque) `frame`, as C-Blosc2 does.
        self.c.frame = if s.frame().is_some() {
            s as *const Schunk as *mut blosc2_frame
        } else {
            ptr::null_mut()
        };
        let cur = s.current_nchunk();
        // SAFETY: the context pointers are NULL or live contexts owned by this super-chunk.
        unsafe {
            if let Some(ctx) = self.c.cctx.as_mut() {
                if let Kind::Compress(p) = &mut ctx.kind {
                    p.nchunk = cur;
                }
            }
            if let Some(ctx) = self.c.dctx.as_mut() {
                if let Kind::Decompress(p) = &mut ctx.kind {
                    p.nchunk = cur;
                }
            }
        }
    }

    /// Make room for `n` chunk pointers in `c.data`.
    fn reserve_data(&mut self, n: usize) -> Result<(), Error> {
        if !self.core.is_memory() || n <= self.data_cap {
            return Ok(());
        }
        let per_page = 4096 / core::mem::size_of::<*mut u8>();
        let mut cap = self.data_cap.max(per_page);
        while cap < n {
            cap = cap.checked_mul(2).ok_or(Error::MemoryAlloc)?;
        }
        let bytes = cap
            .checked_mul(core::mem::size_of::<*mut u8>())
            .ok_or(Error::MemoryAlloc)?;
        // SAFETY: `c.data` is NULL or our own malloc'ed array.
        let p = unsafe { libc::realloc(self.c.data as *mut c_void, bytes) } as *mut *mut u8;
        if p.is_null() {
            crate::trace_error!("Cannot grow the chunk pointer array");
            return Err(Error::MemoryAlloc);
        }
        self.c.data = p;
        self.c.data_len = bytes;
        self.data_cap = cap;
        Ok(())
    }

    /// Point `c.data[from..nchunks]` at the chunks (in-memory super-chunks).
    fn write_data(&mut self, from: usize, to: usize) {
        if !self.core.is_memory() {
            return;
        }
        let n = (self.core.nchunks() as usize).min(to);
        if self.reserve_data(n).is_err() {
            return;
        }
        for i in from..n {
            let p = self
                .core
                .stored_chunk_addr(i)
                .map_or(ptr::null_mut(), |b| b as *mut u8);
            // SAFETY: `i < n <= data_cap`.
            unsafe { *self.c.data.add(i) = p };
        }
    }

    fn write_data_from(&mut self, from: usize) {
        self.write_data(from, usize::MAX);
    }

    /// Rebuild every C-side copy (chunk pointers, metalayers) from the core: those whose
    /// stamps changed since they were last written.
    pub(crate) fn rebuild_mirrors(&mut self) -> Result<(), Error> {
        self.seen_reloads = self.core.reloads();
        let chunks = self.core.chunks_stamp();
        if self.mirrored_chunks != Some(chunks) || chunks.is_none() {
            self.reserve_data(self.core.nchunks() as usize)?;
            self.write_data_from(0);
            self.mirrored_chunks = Some(chunks);
        }
        let meta = self.core.meta_stamp();
        if self.mirrored_meta != Some(meta) {
            self.mirrored_meta = None;
            self.rebuild_meta_mirrors()?;
            self.mirrored_meta = Some(meta);
        }
        self.sync();
        Ok(())
    }

    /// Rebuild the C metalayers and vlmetalayers from the core.
    fn rebuild_meta_mirrors(&mut self) -> Result<(), Error> {
        // SAFETY: the metalayer arrays hold NULL or our own malloc'ed entries.
        unsafe {
            for i in 0..self.c.nmetalayers as usize {
                super::meta::free_c_meta(self.c.metalayers[i]);
                self.c.metalayers[i] = ptr::null_mut();
            }
            for i in 0..self.c.nvlmetalayers.max(0) as usize {
                super::meta::free_c_meta(self.c.vlmetalayers[i]);
                self.c.vlmetalayers[i] = ptr::null_mut();
            }
            self.c.nmetalayers = 0;
            self.c.nvlmetalayers = 0;
            for (i, m) in self.core.metalayers().iter().enumerate() {
                let p = super::meta::new_c_meta(&m.name, &m.content);
                if p.is_null() {
                    return Err(Error::MemoryAlloc);
                }
                self.c.metalayers[i] = p;
                self.c.nmetalayers = i as u16 + 1;
            }
            for (i, m) in self.core.vlmetalayers().iter().enumerate() {
                let p = super::meta::new_c_meta(&m.name, &m.content);
                if p.is_null() {
                    return Err(Error::MemoryAlloc);
                }
                self.c.vlmetalayers[i] = p;
                self.c.nvlmetalayers = i as i16 + 1;
            }
        }
        Ok(())
    }

    /// The compression parameters of the context currently in `c.cctx` (callers may replace
    /// it), else the super-chunk's own.
    pub(crate) fn cur_cparams(&self) -> CParams {
        // SAFETY: `cctx` is NULL or a live context.
        match unsafe { self.c.cctx.as_ref() }.map(|c| &c.kind) {
            Some(Kind::Compress(p)) => self.core.plugin_cparams(p),
            _ => self.core.cparams().clone(),
        }
    }

    /// The decompression parameters of the context currently in `c.dctx`.
    pub(crate) fn cur_dparams(&self) -> DParams {
        // SAFETY: `dctx` is NULL or a live context.
        match unsafe { self.c.dctx.as_ref() }.map(|c| &c.kind) {
            Some(Kind::Decompress(p)) => {
                let mut p = p.clone();
                p.b2nd = self.core.nd_meta().cloned();
                p.schunk_typesize = Some(self.core.typesize());
                p
            }
            _ => self.core.dparams().clone(),
        }
    }

    /// The block mask set on `c.dctx` with `blosc2_set_maskout` (consumed).
    fn take_maskout(&mut self) -> Option<Vec<bool>> {
        // SAFETY: `dctx` is NULL or a live context.
        unsafe { self.c.dctx.as_mut() }.and_then(|c| c.maskout.take())
    }
}

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
        ptr::addr_of_mut!((*p).mirrored_chunks).write(None);
        ptr::addr_of_mut!((*p).mirrored_meta).write(None);
        ptr::addr_of_mut!((*p).array_scratch).write(Vec::new());
        ptr::addr_of_mut!((*p).extra_owners).write(0);
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
        let (c, d): (&blosc2_context_s, &blosc2_context_s) = unsafe { (&*cctx, &*dctx) };
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
    let c = &mut h.c;
    c.version = 0;
    c.compcode = cparams.compcode;
    c.compcode_meta = cparams.compcode_meta;
    c.clevel = cparams.clevel;
    c.splitmode = cparams.splitmode as u8;
    c.typesize = cparams.typesize;
    c.blocksize = cparams.blocksize;
    c.chunksize = -1;
    c.flags2 = 0;
    c.use_dict = cparams.use_dict as u8;
    c.filters = cparams.filters;
    c.filters_meta = cparams.filters_meta;
    c.storage = st;
    c.frame = ptr::null_mut();
    c.cctx = cctx;
    c.dctx = dctx;
    c.tuner_params = cparams.tuner_params;
    c.tuner_id = cparams.tuner_id;
    // SAFETY: `cctx` is the live context just made.
    if unsafe { (*cctx).tuner.is_some() } {
        // B2ND writes go through the context (and its tuner) as C-Blosc2's do
        let addr = &*h as *const SchunkHandle as usize;
        h.core.set_compressor(Some(std::sync::Arc::new(
            move |cp: &CParams, n, src: &[u8]| {
                // SAFETY: the handle owns the super-chunk calling this, so it is alive; only
                // the `cctx` field of its C struct is read (the caller may have replaced it).
                let cctx = unsafe { (*(addr as *const SchunkHandle)).c.cctx };
                ctx_compress(cctx, cp, n, src)
            },
        )));
    }
    if h.rebuild_mirrors().is_err() {
        crate::trace_error!("Cannot copy the metalayers of the super-chunk");
        let raw = Box::into_raw(h);
        // SAFETY: the handle just leaked.
        unsafe { free_schunk_c(ptr::addr_of_mut!((*raw).c)) };
        return ptr::null_mut();
    }
    let raw = Box::into_raw(h);
    // SAFETY: `raw` is the live handle just leaked; `c` is its first field.
    unsafe { ptr::addr_of_mut!((*raw).c) }
}

/// Release everything a handle owns.
///
/// # Safety
/// `p` must come from `new_schunk_c` and not be used afterwards.
pub(crate) unsafe fn free_schunk_c(p: *mut blosc2_schunk) {
    // SAFETY: the caller guarantees `p` is a live handle created by Box::into_raw.
    let h = unsafe { Box::from_raw(p as *mut SchunkHandle) };
    // SAFETY: all C-side allocations below were made by this module (or replaced by the caller
    // with objects of the same kinds, as C-Blosc2 also frees whatever it finds there).
    unsafe {
        for i in 0..(h.c.nmetalayers as usize).min(h.c.metalayers.len()) {
            super::meta::free_c_meta(h.c.metalayers[i]);
        }
        for i in 0..(h.c.nvlmetalayers.max(0) as usize).min(h.c.vlmetalayers.len()) {
            super::meta::free_c_meta(h.c.vlmetalayers[i]);
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
        let cio = unsafe { core_io(io) }?;
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
                // The source's parameters.
                let s = &src.c;
                blosc2_cparams {
                    compcode: s.compcode,
                    compcode_meta: s.compcode_meta,
                    clevel: s.clevel,
                    use_dict: s.use_dict as c_int,
                    typesize: s.typesize,
                    nthreads: src.cur_cparams().nthreads,
                    blocksize: s.blocksize,
                    splitmode: s.splitmode as i32,
                    filters: s.filters,
                    filters_meta: s.filters_meta,
                    ..BLOSC2_CPARAMS_DEFAULTS
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
        let copied = src
            .core
            .copy_into(&mut dst.core, &mut |n, s| ctx_compress(cctx, &cp, n, s));
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
        // SAFETY: NULL or a live super-chunk (caller).
        if let Some(h) = unsafe { handle(schunk) } {
            if h.extra_owners > 0 {
                // shared with a B2ND view: the last owner frees it
                h.extra_owners -= 1;
                return 0;
            }
            // SAFETY: the caller guarantees a live super-chunk.
            unsafe { free_schunk_c(schunk) };
        }
        0
    })
}

// ---------------------------------------------------------------------------------------------
// Chunks
// ---------------------------------------------------------------------------------------------

/// Append a chunk (`copy == false`: the `malloc`ed chunk is taken over on success).
///
/// # Safety
/// `schunk` live; `chunk` readable for its header's `cbytes`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_chunk(
    schunk: *mut blosc2_schunk,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    guard(fail() as i64, || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::NullPointer.code() as i64;
        };
        let copy = copy || h.lent(chunk);
        // SAFETY: the caller guarantees the chunk.
        let c = match unsafe { read_chunk(chunk, copy) } {
            Ok(c) => c,
            Err(e) => return e.code() as i64,
        };
        let n = h.core.nchunks() as usize;
        if let Err(e) = h.reserve_data(n + 1) {
            return e.code() as i64;
        }
        let r = h.core.append_chunk(c);
        h.write_data_from(n);
        h.sync();
        code64(r)
    })
}

/// Insert a chunk at position `nchunk`.
///
/// # Safety
/// As `blosc2_schunk_append_chunk`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_insert_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    guard(fail() as i64, || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::NullPointer.code() as i64;
        };
        let copy = copy || h.lent(chunk);
        // SAFETY: the caller guarantees the chunk.
        let c = match unsafe { read_chunk(chunk, copy) } {
            Ok(c) => c,
            Err(e) => return e.code() as i64,
        };
        let n = h.core.nchunks() as usize;
        if let Err(e) = h.reserve_data(n + 1) {
            return e.code() as i64;
        }
        let r = h.core.insert_chunk(nchunk, c);
        if r.is_ok() {
            h.write_data_from(nchunk as usize);
        }
        h.sync();
        code64(r)
    })
}

/// Replace chunk `nchunk`.
///
/// # Safety
/// As `blosc2_schunk_append_chunk`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_update_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut u8,
    copy: bool,
) -> i64 {
    guard(fail() as i64, || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::NullPointer.code() as i64;
        };
        // A chunk that is already ours (e.g. from blosc2_schunk_get_chunk) is copied, not
        // adopted a second time.
        let already_ours = usize::try_from(nchunk)
            .ok()
            .and_then(|i| h.core.stored_chunk(i))
            .is_some_and(|b| b.as_ptr() == chunk);
        // SAFETY: the caller guarantees the chunk.
        let c = match unsafe { read_chunk(chunk, copy || already_ours || h.lent(chunk)) } {
            Ok(c) => c,
            Err(e) => return e.code() as i64,
        };
        let r = h.core.update_chunk(nchunk, c);
        if r.is_ok() {
            h.write_data(nchunk as usize, nchunk as usize + 1);
        }
        h.sync();
        code64(r)
    })
}

/// Delete chunk `nchunk`.
///
/// # Safety
/// `schunk` must be a live super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_delete_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
) -> i64 {
    guard(fail() as i64, || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::NullPointer.code() as i64;
        };
        let r = h.core.delete_chunk(nchunk);
        if r.is_ok() {
            h.write_data_from(nchunk as usize);
            let n = h.core.nchunks() as usize;
            if n < h.data_cap && h.core.is_memory() {
                // SAFETY: `n < data_cap`; the stale last entry is cleared.
                unsafe { *h.c.data.add(n) = ptr::null_mut() };
            }
        }
        h.sync();
        code64(r)
    })
}

/// Compress `nbytes` of `src` with the super-chunk's compression context and append them.
///
/// # Safety
/// `schunk` live; `src` readable for `nbytes`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_append_buffer(
    schunk: *mut blosc2_schunk,
    src: *const c_void,
    nbytes: i32,
) -> i64 {
    guard(fail() as i64, || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::NullPointer.code() as i64;
        };
        if nbytes < 0 {
            crate::trace_error!("Input buffer size cannot be negative");
            return Error::MaxBufsizeExceeded.code() as i64;
        }
        // SAFETY: the caller guarantees `nbytes` readable bytes.
        let Some(s) = (unsafe { slice(src, nbytes as usize) }) else {
            return Error::NullPointer.code() as i64;
        };
        let n = h.core.nchunks() as usize;
        if let Err(e) = h.reserve_data(n + 1) {
            return e.code() as i64;
        }
        let (cctx, cp) = (h.c.cctx, h.core.cparams().clone());
        // With a context, compress into the thread's kept buffer and store from there (one
        // copy fewer than compressing into a new chunk).
        let kept = (!cctx.is_null())
            .then(|| {
                with_compress_scratch(s.len() + MAX_OVERHEAD, |out| {
                    h.core.append_buffer_into(
                        |n, s| {
                            set_ctx_nchunk(cctx, n);
                            let k = compress_ctx_into(cctx, s, out)?;
                            Ok(&out[..k])
                        },
                        s,
                    )
                })
            })
            .flatten();
        let r = match kept {
            Some(r) => r,
            None => h
                .core
                .append_buffer_by(&mut |n, s| ctx_compress(cctx, &cp, n, s), s),
        };
        h.write_data_from(n);
        h.sync();
        code64(r)
    })
}

/// Decompress chunk `nchunk` into `dest` (`nbytes` must hold the whole chunk). Returns its
/// size.
///
/// # Safety
/// `schunk` live; `dest` writable for `nbytes`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_decompress_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    dest: *mut c_void,
    nbytes: i32,
) -> c_int {
    guard(fail(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::NullPointer.code();
        };
        if nbytes < 0 {
            crate::trace_error!("`nbytes` cannot be negative");
            return Error::InvalidParam.code();
        }
        // SAFETY: the caller guarantees `nbytes` writable bytes.
        let Some(d) = (unsafe { slice_mut(dest, nbytes as usize) }) else {
            return Error::NullPointer.code();
        };
        let dp = h.cur_dparams();
        let mask = h.take_maskout();
        let r = h
            .core
            .decompress_chunk_with(&dp, nchunk, d, mask.as_deref());
        h.sync();
        super::code_of(r)
    })
}

unsafe fn get_chunk_impl(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
    let Some(h) = (unsafe { handle(schunk) }) else {
        return Error::NullPointer.code();
    };
    if chunk.is_null() || needs_free.is_null() {
        return Error::NullPointer.code();
    }
    // Like C-Blosc2, the chunk number is checked against the counters as they are.
    if nchunk < 0 || nchunk >= h.core.nchunks() {
        // SAFETY: out-pointers checked for NULL above.
        return unsafe { lend_chunk(h, nchunk, chunk, needs_free) };
    }
    // Under the shared frame lock (when locking is on), re-synced with the disk first.
    match h.core.lock(crate::frame::LockMode::Shared) {
        Ok(true) => {
            if let Err(e) = h.rebuild_mirrors() {
                let _ = h.core.unlock();
                return e.code();
            }
            h.sync();
        }
        Ok(false) => {}
        Err(e) => return e.code(),
    }
    // SAFETY: out-pointers checked for NULL above.
    let r = unsafe { lend_chunk(h, nchunk, chunk, needs_free) };
    let u = h.core.unlock();
    match u {
        Err(e) if r >= 0 => e.code(),
        _ => r,
    }
}

/// Hand chunk `nchunk` out (lent when held in memory, else a `malloc` copy).
///
/// # Safety
/// `chunk` and `needs_free` must be writable.
unsafe fn lend_chunk(
    h: &mut SchunkHandle,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    match h.core.get_chunk(nchunk) {
        Ok(Cow::Borrowed(b)) => {
            // SAFETY: both out-pointers checked for NULL. Chunks held in memory are lent.
            unsafe {
                *chunk = b.as_ptr() as *mut u8;
                *needs_free = false;
            }
            b.len() as c_int
        }
        Ok(Cow::Owned(b)) => {
            let p = malloc_copy(&b);
            if p.is_null() {
                return Error::MemoryAlloc.code();
            }
            // SAFETY: both out-pointers checked for NULL; the caller frees the copy.
            unsafe {
                *chunk = p;
                *needs_free = true;
            }
            b.len() as c_int
        }
        Err(e) => e.code(),
    }
}

/// The stored chunk `nchunk` (`*needs_free` tells whether the caller must `free()` it).
///
/// # Safety
/// `schunk` live; `chunk` and `needs_free` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_chunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    // SAFETY: forwarded caller guarantees.
    guard(fail(), || unsafe {
        get_chunk_impl(schunk, nchunk, chunk, needs_free)
    })
}

/// The chunk `nchunk`, lazily (for in-memory super-chunks: the whole chunk, as
/// `blosc2_schunk_get_chunk`).
///
/// # Safety
/// As `blosc2_schunk_get_chunk`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_lazychunk(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
) -> c_int {
    guard(fail(), || {
        // SAFETY: forwarded caller guarantees.
        let n = unsafe { get_chunk_impl(schunk, nchunk, chunk, needs_free) };
        // SAFETY: the handle is live (caller); NULL was refused by get_chunk_impl.
        let framed = unsafe { handle(schunk) }.is_some_and(|h| h.core.frame().is_some());
        if n <= 0 || !framed {
            return n;
        }
        // C-Blosc2 builds a lazy chunk from the stored one's header and block table, and
        // refuses it when they cannot be those of a chunk of that size (e.g. a VL-block count
        // of UINT32_MAX): the chunk handed out is checked the same way.
        // SAFETY: `*chunk` holds `n` bytes (get_chunk_impl succeeded).
        let bytes = unsafe { core::slice::from_raw_parts(*chunk, n as usize) };
        let fits = crate::chunk::Header::parse(bytes).is_ok_and(|hd| {
            hd.special_code() != 0
                || hd.memcpyed()
                || hd
                    .nblocks()
                    .checked_mul(4)
                    .and_then(|t| t.checked_add(hd.header_len()))
                    .is_some_and(|end| end <= bytes.len())
        });
        if !fits {
            crate::trace_error!("The chunk {} claims more blocks than it can hold", nchunk);
            // SAFETY: out-pointers written by get_chunk_impl; a copy is ours to free.
            unsafe {
                if *needs_free {
                    libc::free((*chunk).cast());
                }
                *chunk = ptr::null_mut();
                *needs_free = false;
            }
            return Error::InvalidHeader.code();
        }
        n
    })
}

/// Decompress block `nblock` of the VL-block chunk `nchunk` into a new `malloc`ed buffer.
///
/// # Safety
/// `schunk` live; `dest` and `destsize` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_vlblock(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    nblock: i32,
    dest: *mut *mut u8,
    destsize: *mut i32,
) -> c_int {
    guard(fail(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::InvalidParam.code();
        };
        if dest.is_null() || destsize.is_null() {
            return Error::InvalidParam.code();
        }
        let dp = h.cur_dparams();
        let saved = h.core.dparams().clone();
        h.core.set_dparams(dp);
        let r = h.core.get_vlblock(nchunk, nblock);
        h.core.set_dparams(saved);
        match r {
            Ok(b) => {
                let p = malloc_copy(&b);
                if p.is_null() {
                    return Error::MemoryAlloc.code();
                }
                // SAFETY: checked for NULL.
                unsafe {
                    *dest = p;
                    *destsize = b.len() as i32;
                }
                b.len() as c_int
            }
            Err(e) => e.code(),
        }
    })
}

/// Byte length of the items `[start, stop)` if it is a valid non-empty range of the
/// super-chunk (`Ok(0)` for an empty range).
/// The byte length of the items `[start, stop)`: 0 when `start >= stop` (nothing to do, as
/// in C-Blosc2, whatever the signs); `neg_start` when `start` is negative; -12 past the end.
fn range_len(h: &SchunkHandle, start: i64, stop: i64, neg_start: Error) -> Result<usize, Error> {
    let ts = h.core.typesize() as i64;
    if start >= stop {
        return Ok(0);
    }
    if start < 0 {
        crate::trace_error!("`start` must not be negative");
        return Err(neg_start);
    }
    match stop.checked_mul(ts) {
        Some(b) if b <= h.core.nbytes() => Ok(((stop - start) * ts) as usize),
        _ => {
            crate::trace_error!("`stop` is beyond the end of the super-chunk");
            Err(Error::InvalidParam)
        }
    }
}

/// Decode the items `[start, stop)` into `buffer`.
///
/// # Safety
/// `schunk` live; `buffer` writable for `(stop - start) * typesize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_slice_buffer(
    schunk: *mut blosc2_schunk,
    start: i64,
    stop: i64,
    buffer: *mut c_void,
) -> c_int {
    guard(fail(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::NullPointer.code();
        };
        // Like C-Blosc2, slices see what other handles wrote to the frame.
        if let Err(e) = h.resync() {
            return e.code();
        }
        let len = match range_len(h, start, stop, Error::Failure) {
            Ok(n) => n,
            Err(e) => return e.code(),
        };
        // SAFETY: the caller guarantees the buffer size.
        let Some(d) = (unsafe { slice_mut(buffer, len) }) else {
            return Error::NullPointer.code();
        };
        let dp = h.cur_dparams();
        let r = h.core.get_slice_with(&dp, start, stop, d);
        h.sync();
        match r {
            Ok(()) => 0,
            Err(e) => e.code(),
        }
    })
}

/// Overwrite the items `[start, stop)` with `buffer`.
///
/// # Safety
/// `schunk` live; `buffer` readable for `(stop - start) * typesize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_set_slice_buffer(
    schunk: *mut blosc2_schunk,
    start: i64,
    stop: i64,
    buffer: *mut c_void,
) -> c_int {
    guard(fail(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::NullPointer.code();
        };
        let len = match range_len(h, start, stop, Error::InvalidParam) {
            Ok(n) => n,
            Err(e) => return e.code(),
        };
        // SAFETY: the caller guarantees the buffer size.
        let Some(s) = (unsafe { slice(buffer, len) }) else {
            return Error::NullPointer.code();
        };
        let (cctx, cp, dp) = (h.c.cctx, h.core.cparams().clone(), h.cur_dparams());
        let r = h.core.set_slice_by(
            &mut |n, s| ctx_compress(cctx, &cp, n, s),
            &dp,
            start,
            stop,
            s,
        );
        h.write_data_from(0);
        h.sync();
        match r {
            Ok(()) => 0,
            Err(e) => e.code(),
        }
    })
}

/// Decode the items at `coords` (`ncoords` of them) into `buffer`.
///
/// # Safety
/// `schunk` live; `coords` readable for `ncoords` entries; `buffer` writable for
/// `ncoords * typesize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_get_sparse_buffer(
    schunk: *mut blosc2_schunk,
    ncoords: i64,
    coords: *const i64,
    buffer: *mut c_void,
) -> c_int {
    guard(fail(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::InvalidParam.code();
        };
        if ncoords == 0 {
            return 0;
        }
        if ncoords < 0 || coords.is_null() || buffer.is_null() {
            return Error::InvalidParam.code();
        }
        let ts = h.core.typesize() as i64;
        let Some(len) = ncoords.checked_mul(ts).filter(|&n| n <= isize::MAX as i64) else {
            return Error::InvalidParam.code();
        };
        // SAFETY: the caller guarantees `ncoords` coordinates and the buffer size.
        let (c, d) = unsafe {
            (
                core::slice::from_raw_parts(coords, ncoords as usize),
                core::slice::from_raw_parts_mut(buffer as *mut u8, len as usize),
            )
        };
        let dp = h.cur_dparams();
        let r = h.core.get_sparse_with(&dp, c, d);
        h.sync();
        match r {
            Ok(()) => 0,
            Err(e) => e.code(),
        }
    })
}

/// The chunk numbers holding the items `[*start, *stop)`, in a new `malloc`ed array.
///
/// # Safety
/// `schunk` live; `start`, `stop` readable; `chunks_idx` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_get_slice_nchunks(
    schunk: *mut blosc2_schunk,
    start: *mut i64,
    stop: *mut i64,
    chunks_idx: *mut *mut i64,
) -> i64 {
    guard(fail() as i64, || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::NullPointer.code() as i64;
        };
        if start.is_null() || stop.is_null() || chunks_idx.is_null() {
            return Error::NullPointer.code() as i64;
        }
        // SAFETY: checked for NULL.
        let (a, b) = unsafe { (*start, *stop) };
        if h.core.nchunks() == 0 && !super::meta::is_ndim(h) {
            // C-Blosc2: nothing to read in an empty super-chunk, whatever the range
            // SAFETY: checked for NULL.
            unsafe { *chunks_idx = ptr::null_mut() };
            return 0;
        }
        let idx = if super::meta::is_ndim(h) {
            // SAFETY: for n-dimensional arrays `start` and `stop` hold `ndim` entries.
            unsafe { super::meta::ndim_slice_nchunks(h, start, stop) }
        } else {
            h.core.slice_nchunks(a, b)
        };
        let idx = match idx {
            Ok(v) => v,
            Err(e) => return e.code() as i64,
        };
        // SAFETY: a C allocation of the index array (at least one byte).
        let p = unsafe { libc::malloc((idx.len() * 8).max(1)) } as *mut i64;
        if p.is_null() {
            return Error::MemoryAlloc.code() as i64;
        }
        // SAFETY: `p` holds `idx.len()` i64 values; `chunks_idx` checked for NULL.
        unsafe {
            ptr::copy_nonoverlapping(idx.as_ptr(), p, idx.len());
            *chunks_idx = p;
        }
        idx.len() as i64
    })
}

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

/// Reorder the chunks: the new chunk `i` is the old chunk `offsets_order[i]` (a permutation
/// of `0..nchunks`).
///
/// # Safety
/// `schunk` live; `offsets_order` readable for `nchunks` entries.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_reorder_offsets(
    schunk: *mut blosc2_schunk,
    offsets_order: *mut i64,
) -> c_int {
    guard(fail(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::NullPointer.code();
        };
        let n = h.core.nchunks() as usize;
        if offsets_order.is_null() && n > 0 {
            return Error::NullPointer.code();
        }
        let order: &[i64] = if n == 0 {
            &[]
        } else {
            // SAFETY: the caller guarantees `nchunks` entries.
            unsafe { core::slice::from_raw_parts(offsets_order, n) }
        };
        let r = h.core.reorder_offsets(order);
        h.write_data_from(0);
        h.sync();
        match r {
            Ok(()) => 0,
            Err(e) => e.code(),
        }
    })
}

/// Fill an empty super-chunk with `nitems` special values (zeros, NaNs, uninitialised) in
/// chunks of `chunksize` bytes. Returns the number of chunks.
///
/// # Safety
/// `schunk` must be a live super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_fill_special(
    schunk: *mut blosc2_schunk,
    nitems: i64,
    special_value: c_int,
    chunksize: i32,
) -> i64 {
    guard(fail() as i64, || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        let Some(h) = (unsafe { handle(schunk) }) else {
            return Error::NullPointer.code() as i64;
        };
        let mut r = h.core.fill_special(nitems, special_value, chunksize);
        if r.is_ok() {
            if let Err(e) = h.reserve_data(h.core.nchunks() as usize) {
                while h.core.nchunks() > 0 {
                    let _ = h.core.delete_chunk(h.core.nchunks() - 1);
                }
                r = Err(e);
            }
            h.write_data_from(0);
        }
        h.sync();
        code64(r)
    })
}

/// Take the exclusive frame lock and hold it across several operations (re-entrant; a
/// no-op returning 0 when locking is off or the super-chunk is in memory).
///
/// # Safety
/// `schunk` must be a live super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_lock(schunk: *mut blosc2_schunk) -> c_int {
    // SAFETY: checked for NULL.
    guard(fail(), || match unsafe { handle(schunk) } {
        Some(h) => {
            let r = h.core.lock(crate::frame::LockMode::Exclusive);
            let m = match r {
                Ok(true) => h.rebuild_mirrors(),
                _ => Ok(()),
            };
            h.sync();
            match r.and(m) {
                Ok(_) => 0,
                Err(e) => e.code(),
            }
        }
        None => Error::NullPointer.code(),
    })
}

/// Release one level of the frame lock taken with `blosc2_schunk_lock` (a no-op returning 0
/// when locking is off, the lock is not held or the super-chunk is in memory).
///
/// # Safety
/// `schunk` must be a live super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_unlock(schunk: *mut blosc2_schunk) -> c_int {
    // SAFETY: checked for NULL.
    guard(fail(), || match unsafe { handle(schunk) } {
        Some(h) => super::code_of(h.core.unlock().map(|_| 0)),
        None => Error::NullPointer.code(),
    })
}

/// Re-sync the counters and metalayers of an on-disk super-chunk changed elsewhere: 1 when
/// they changed, 0 when already current (always the case in memory).
///
/// # Safety
/// `schunk` must be a live super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_refresh(schunk: *mut blosc2_schunk) -> c_int {
    guard(fail(), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        match unsafe { handle(schunk) } {
            Some(h) => {
                let r = h.core.sync();
                let m = match r {
                    Ok(true) => h.rebuild_mirrors(),
                    _ => Ok(()),
                };
                h.sync();
                match r.and_then(|c| m.map(|_| c)) {
                    Ok(c) => c as c_int,
                    Err(e) => e.code(),
                }
            }
            None => Error::NullPointer.code(),
        }
    })
}

/// Whether freeing the super-chunk should leave a caller-provided contiguous frame buffer
/// alone (only meaningful for super-chunks made from a buffer without copy).
///
/// # Safety
/// `schunk` must be NULL or a live super-chunk.
#[no_mangle]
pub unsafe extern "C" fn blosc2_schunk_avoid_cframe_free(
    schunk: *mut blosc2_schunk,
    avoid_cframe_free: bool,
) {
    guard((), || {
        // SAFETY: checked for NULL; the caller guarantees a live super-chunk.
        if let Some(h) = unsafe { handle(schunk) } {
            h.avoid_cframe_free = avoid_cframe_free;
            h.caller_avoids_free = avoid_cframe_free;
        }
    })
}
