//! The chunks of a super-chunk through the C API: compression through the super-chunk's
//! context, chunks taken over from C callers, append/insert/update/delete, reading and lending
//! chunks, reordering and special fills.

use super::*;

/// Compress the data of chunk `nchunk` through the compression context `cctx` (what C-Blosc2
/// does with `schunk->cctx`, which callers may replace), handing `nchunk` to its prefilter.
/// Falls back on `fallback` when there is no compression context.
pub(crate) fn ctx_compress(
    cctx: *mut blosc2_context,
    fallback: &CParams,
    nchunk: i64,
    src: &[u8],
) -> crate::Result<Vec<u8>> {
    // SAFETY: `cctx` is NULL or a live context of the super-chunk.
    let Some(ctx) = (unsafe { Context::from_c(cctx) }) else {
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
            unsafe { crate::capi::callbacks::resolve_cparams(p) };
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
pub(crate) fn set_ctx_nchunk(cctx: *mut blosc2_context, nchunk: i64) {
    // SAFETY: `cctx` is NULL or a live context of the super-chunk.
    if let Some(ctx) = unsafe { Context::from_c(cctx) } {
        if let Kind::Compress(p) = &mut ctx.kind {
            p.nchunk = nchunk;
        }
    }
}

/// Compress `src` through the live context `cctx` into `out` (grown to the worst case if
/// needed); returns the compressed size.
pub(crate) fn compress_ctx_into(
    cctx: *mut blosc2_context,
    src: &[u8],
    out: &mut Vec<u8>,
) -> crate::Result<usize> {
    let cap = src.len() + MAX_OVERHEAD;
    grow_zeroed(out, cap)?;
    // SAFETY: the caller passes a live context (or NULL).
    let Some(ctx) = (unsafe { Context::from_c(cctx) }) else {
        return Err(Error::NullPointer);
    };
    // `src` and `out` are valid for the lengths given; the plugin information of the context
    // was filled in by the caller.
    let rc = crate::capi::chunk::compress_resolved(
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

/// A chunk buffer taken over from a C caller (`copy == false`), released with `free()`.
pub(crate) struct MallocChunk {
    ptr: *mut u8,
    len: usize,
}

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
pub(crate) struct CChunk {
    ptr: *mut u8,
    len: usize,
    nbytes: i32,
    copy: bool,
    /// A copy taken before the call (see [`CChunk::own`]).
    owned: Option<Vec<u8>>,
}

impl CChunk {
    /// Copy the bytes now: a chunk lent from the super-chunk's own in-memory frame
    /// (`blosc2_schunk_get_chunk`) lies in memory the change itself may move or free.
    fn own(mut self) -> CChunk {
        self.owned = Some(self.bytes().to_vec());
        self.copy = true;
        self
    }
}

impl IntoChunk for CChunk {
    fn bytes(&self) -> &[u8] {
        if let Some(v) = &self.owned {
            return v;
        }
        // SAFETY: `read_chunk` checked the header; the caller guarantees `cbytes` bytes.
        unsafe { core::slice::from_raw_parts(self.ptr, self.len) }
    }

    fn into_stored(self) -> Box<dyn ChunkBytes> {
        if let Some(v) = self.owned {
            return Box::new(v);
        }
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
pub(super) unsafe fn read_chunk(chunk: *mut u8, copy: bool) -> Result<CChunk, Error> {
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
        owned: None,
    })
}

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
        let lent = h.lent(chunk);
        // SAFETY: the caller guarantees the chunk.
        let c = match unsafe { read_chunk(chunk, copy) } {
            Ok(c) if lent => c.own(),
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
        let lent = h.lent(chunk);
        // SAFETY: the caller guarantees the chunk.
        let c = match unsafe { read_chunk(chunk, copy) } {
            Ok(c) if lent => c.own(),
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
        let lent = h.lent(chunk);
        let c = match unsafe { read_chunk(chunk, copy || already_ours) } {
            Ok(c) if lent => c.own(),
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
                            Ok(crate::schunk::scratch_chunk(out, k))
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
        crate::capi::code_of(r)
    })
}

pub(super) unsafe fn get_chunk_impl(
    schunk: *mut blosc2_schunk,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
    lazy: bool,
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
        return unsafe { lend_chunk(h, nchunk, chunk, needs_free, lazy) };
    }
    // the chunk accessed, as C-Blosc2 records it (prefilters and postfilters read it)
    h.core.set_current_nchunk(nchunk);
    h.sync();
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
    let r = unsafe { lend_chunk(h, nchunk, chunk, needs_free, lazy) };
    let u = h.core.unlock();
    match u {
        Err(e) if r >= 0 => e.code(),
        _ => r,
    }
}

/// Hand chunk `nchunk` out (lent when held in memory, else a `malloc` copy), lazily when
/// `lazy` (see [`crate::chunk::lazy`]).
///
/// # Safety
/// `chunk` and `needs_free` must be writable.
pub(super) unsafe fn lend_chunk(
    h: &mut SchunkHandle,
    nchunk: i64,
    chunk: *mut *mut u8,
    needs_free: *mut bool,
    lazy: bool,
) -> c_int {
    let got = if lazy {
        h.core.get_lazychunk(nchunk)
    } else {
        h.core.get_chunk(nchunk)
    };
    match got {
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
        get_chunk_impl(schunk, nchunk, chunk, needs_free, false)
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
        let n = unsafe { get_chunk_impl(schunk, nchunk, chunk, needs_free, true) };
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
