//! Chunk compression, decompression, getitem, header inspection, VL blocks and special chunks
//! (areas 4–6 of the API).

use super::context::{new_cctx, Context, Kind};
use super::types::*;
use super::{code_of, guard, slice, slice_mut};
use crate::chunk::header::{Header, Special, MAX_BUFFERSIZE, MIN_HEADER_LENGTH};
use crate::chunk::{self, special};
use crate::params::DParams;
use crate::Error;
use core::ffi::{c_char, c_int, c_void};
use std::borrow::Cow;

fn fail() -> c_int {
    Error::Failure.code()
}

/// Compress with a context.
///
/// # Safety
/// `context` must be live; `src` readable for `srcsize` bytes; `dest` writable for `destsize`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_compress_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    guard(fail(), || {
        // SAFETY: checked for NULL; the caller guarantees the context is live.
        let Some(ctx) = (unsafe { Context::from_c(context) }) else {
            return Error::NullPointer.code();
        };
        compress_with(ctx, src, srcsize, dest, destsize)
    })
}

pub(crate) fn compress_with(
    ctx: &mut Context,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    if let Kind::Compress(p) = &mut ctx.kind {
        // SAFETY: `cparams.schunk` is NULL or a live super-chunk by the C API's contract; no
        // Rust reference to it is live during a direct C call.
        unsafe { super::callbacks::resolve_cparams(p) };
    }
    compress_resolved(ctx, src, srcsize, dest, destsize)
}

/// Compress with a context whose plugin information (super-chunk typesize and shapes) is
/// already filled in.
pub(crate) fn compress_resolved(
    ctx: &mut Context,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    if !matches!(ctx.kind, Kind::Compress(_)) {
        crate::trace_error!("Context is not meant for compression.  Giving up.");
        return Error::InvalidParam.code();
    }
    if srcsize < 0 {
        return Error::InvalidParam.code();
    }
    // SAFETY: the caller guarantees the buffer sizes. A negative `destsize` is no room at all
    // (below the minimum overhead: -35, as in C-Blosc2).
    let (Some(s), Some(d)) = (unsafe { slice(src, srcsize as usize) }, unsafe {
        slice_mut(dest, destsize.max(0) as usize)
    }) else {
        return Error::NullPointer.code();
    };
    let r = if ctx.tuner.is_some() {
        compress_tuned(ctx, s, d)
    } else {
        let Kind::Compress(p) = &ctx.kind else {
            return Error::InvalidParam.code();
        };
        chunk::compress(p, s, d)
    };
    if let Ok(n) = r {
        if n >= 16 {
            // The blocksize actually used (reported by `blosc2_ctx_get_cparams`).
            ctx.last_blocksize = i32::from_le_bytes([d[8], d[9], d[10], d[11]]);
        }
    }
    code_of(r)
}

/// Compress through a context with a tuner: the tuner sets the parameters (kept in the context
/// for the next chunk) and hears of the result. A blocksize the tuner leaves at 0 is chosen
/// as without a tuner (C-Blosc2 divides by it: see README).
fn compress_tuned(ctx: &mut Context, s: &[u8], d: &mut [u8]) -> crate::Result<usize> {
    let Kind::Compress(p) = &mut ctx.kind else {
        return Err(Error::InvalidParam);
    };
    let mut params = p.clone();
    let r = super::context::tuner_before(ctx, &mut params, s, d);
    let start = std::time::Instant::now();
    let r = r.and_then(|()| chunk::compress(&params, s, d));
    let seconds = start.elapsed().as_secs_f64();
    if let Kind::Compress(p) = &mut ctx.kind {
        *p = params;
    }
    let n = r.inspect_err(|_| ctx.c.clear_buffers())?;
    super::context::tuner_after(ctx, n as i32, seconds)?;
    Ok(n)
}

/// Decompress with a context.
///
/// # Safety
/// `context` must be live; `src` readable for `srcsize` bytes; `dest` writable for `destsize`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_decompress_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    guard(fail(), || {
        // SAFETY: checked for NULL; the caller guarantees the context is live.
        let Some(ctx) = (unsafe { Context::from_c(context) }) else {
            return Error::NullPointer.code();
        };
        decompress_with(ctx, src, srcsize, dest, destsize)
    })
}

pub(crate) fn decompress_with(
    ctx: &mut Context,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    // The mask serves one call only, whatever its outcome.
    let maskout = ctx.maskout.take();
    let Kind::Decompress(p) = &mut ctx.kind else {
        crate::trace_error!("Context is not meant for decompression.  Giving up.");
        return Error::InvalidParam.code();
    };
    // SAFETY: the caller guarantees `srcsize` readable bytes (none when negative);
    // `dparams.schunk` is NULL or a live super-chunk by the C API's contract.
    if let Some(s) = unsafe { slice(src, srcsize.max(0) as usize) } {
        // SAFETY: as above.
        unsafe { super::callbacks::resolve_dparams(p, s) };
    }
    decompress_params(p, src, srcsize, dest, destsize, maskout.as_deref())
}

/// The stored chunk that `s` describes when it is a lazy chunk (what
/// `blosc2_schunk_get_lazychunk` gives for a frame on disk): read from the frame of the
/// super-chunk `owner` (`dparams.schunk`), as C-Blosc2 reads its blocks from there; `s` itself
/// otherwise.
///
/// # Safety
/// `owner` must be 0 or a `blosc2_schunk*` (the C API's contract for `dparams.schunk`).
pub(crate) unsafe fn unlazy(owner: usize, s: &[u8]) -> Result<Cow<'_, [u8]>, Error> {
    match Header::parse(s) {
        Ok(h) if h.is_lazy() && h.special_code() == 0 => {}
        _ => return Ok(Cow::Borrowed(s)),
    }
    // SAFETY: the caller's contract; only registered handles are read.
    let Some(sc) = (unsafe { super::schunk::live_handle(owner) }) else {
        crate::trace_error!("Lazy chunk needs an associated super-chunk.");
        return Err(Error::InvalidParam);
    };
    let Some(f) = sc.core.frame() else {
        crate::trace_error!("Lazy chunk needs an associated frame.");
        return Err(Error::InvalidParam);
    };
    f.resolve_lazy(s).map(Cow::Owned)
}

/// Decompress with `p`. A negative `srcsize` reads nothing (not enough to read: -5) and a
/// negative `destsize` has no room (-6 unless the chunk is empty), as in C-Blosc2.
pub(crate) fn decompress_params(
    p: &DParams,
    src: *const c_void,
    srcsize: i32,
    dest: *mut c_void,
    destsize: i32,
    maskout: Option<&[bool]>,
) -> c_int {
    // SAFETY: the caller guarantees the buffer sizes.
    let (Some(s), Some(d)) = (unsafe { slice(src, srcsize.max(0) as usize) }, unsafe {
        slice_mut(dest, destsize.max(0) as usize)
    }) else {
        return Error::NullPointer.code();
    };
    // SAFETY: `p.owner` comes from `dparams.schunk`.
    let s = match unsafe { unlazy(p.owner, s) } {
        Ok(s) => s,
        Err(e) => return e.code(),
    };
    code_of(chunk::decompress(p, &s, d, maskout))
}

fn dparams_of(ctx: Option<&Context>) -> Result<DParams, Error> {
    match ctx.map(|c| &c.kind) {
        None => Ok(DParams::default()),
        Some(Kind::Decompress(p)) => Ok(p.clone()),
        Some(Kind::Compress(p)) => Ok(DParams {
            nthreads: p.nthreads,
            ..DParams::default()
        }),
    }
}

/// getitem through the core ([`chunk::getitem`], which makes C-Blosc2's checks in its order);
/// only the pointers are checked here.
unsafe fn getitem_impl(
    ctx: Option<&Context>,
    src: *const c_void,
    srcsize: i32,
    span: chunk::Span,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    // SAFETY: the caller guarantees `srcsize` readable bytes (none when negative).
    let Some(s) = (unsafe { slice(src, srcsize.max(0) as usize) }) else {
        return Error::NullPointer.code();
    };
    let mut dp = match dparams_of(ctx) {
        Ok(p) => p,
        Err(e) => return e.code(),
    };
    // SAFETY: `dparams.schunk` is NULL or a live super-chunk by the C API's contract.
    unsafe { super::callbacks::resolve_dparams(&mut dp, s) };
    // SAFETY: as above.
    let s = match unsafe { unlazy(dp.owner, s) } {
        Ok(s) => s,
        Err(e) => return e.code(),
    };
    let s = &s[..];
    // SAFETY: the caller guarantees `destsize` writable bytes (none when negative).
    match unsafe { slice_mut(dest, destsize.max(0) as usize) } {
        Some(d) => code_of(chunk::getitem(&dp, s, span, d)),
        // NULL with room: fine for an empty range (as in C-Blosc2), else an error
        None => match chunk::getitem(&dp, s, span, &mut []) {
            Err(Error::WriteBuffer) => Error::NullPointer.code(),
            r => code_of(r),
        },
    }
}

fn items(start: c_int, nitems: c_int) -> chunk::Span {
    chunk::Span::Items {
        start: start as i64,
        nitems: nitems as i64,
    }
}

/// Decode `nitems` elements from `start` of a chunk.
///
/// # Safety
/// `src` readable for `srcsize` bytes, `dest` writable for `destsize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_getitem(
    src: *const c_void,
    srcsize: i32,
    start: c_int,
    nitems: c_int,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    // SAFETY: forwarded caller guarantees.
    guard(fail(), || unsafe {
        getitem_impl(None, src, srcsize, items(start, nitems), dest, destsize)
    })
}

/// Decode `nitems` elements from `start` of a chunk with a context.
///
/// # Safety
/// As `blosc2_getitem`; `context` live.
#[no_mangle]
pub unsafe extern "C" fn blosc2_getitem_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    start: c_int,
    nitems: c_int,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    guard(fail(), || {
        // SAFETY: checked for NULL below; the caller guarantees liveness.
        let Some(ctx) = (unsafe { Context::from_c_ref(context) }) else {
            return Error::NullPointer.code();
        };
        // SAFETY: forwarded caller guarantees.
        unsafe {
            getitem_impl(
                Some(ctx),
                src,
                srcsize,
                items(start, nitems),
                dest,
                destsize,
            )
        }
    })
}

/// Decode `nbytes` bytes from byte `start` of a chunk with a context.
///
/// # Safety
/// As `blosc2_getitem_ctx`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_getitem_bytes_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    start: i32,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    guard(fail(), || {
        // SAFETY: checked for NULL below; the caller guarantees liveness.
        let Some(ctx) = (unsafe { Context::from_c_ref(context) }) else {
            return Error::NullPointer.code();
        };
        // SAFETY: forwarded caller guarantees.
        unsafe {
            getitem_impl(
                Some(ctx),
                src,
                srcsize,
                chunk::Span::AlignedBytes {
                    start: start as i64,
                    len: nbytes as i64,
                },
                dest,
                destsize,
            )
        }
    })
}

/// Sizes from a chunk header.
///
/// # Safety
/// `cbuffer` must point to at least 16 readable bytes; the out-pointers may be NULL.
#[no_mangle]
pub unsafe extern "C" fn blosc2_cbuffer_sizes(
    cbuffer: *const c_void,
    nbytes: *mut i32,
    cbytes: *mut i32,
    blocksize: *mut i32,
) -> c_int {
    guard(fail(), || {
        if cbuffer.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: the caller guarantees 16 readable bytes (the basic header).
        let s = unsafe { core::slice::from_raw_parts(cbuffer as *const u8, 16) };
        let h = match Header::parse_basic(s) {
            Ok(h) => h,
            Err(e) => return e.code(),
        };
        // SAFETY: each out-pointer is checked for NULL.
        unsafe {
            if let Some(n) = nbytes.as_mut() {
                *n = h.nbytes;
            }
            if let Some(c) = cbytes.as_mut() {
                *c = h.cbytes;
            }
            if let Some(b) = blocksize.as_mut() {
                *b = h.blocksize;
            }
        }
        0
    })
}

/// Check that `cbytes` bytes at `cbuffer` hold a chunk and give its uncompressed size.
///
/// # Safety
/// `cbuffer` readable for `cbytes` bytes; `nbytes` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc1_cbuffer_validate(
    cbuffer: *const c_void,
    cbytes: usize,
    nbytes: *mut usize,
) -> c_int {
    guard(Error::Failure.code(), || {
        let (rc, n) = validate(cbuffer, cbytes);
        // SAFETY: checked for NULL.
        if let Some(out) = unsafe { nbytes.as_mut() } {
            *out = n;
        }
        rc
    })
}

/// `blosc1_cbuffer_validate` as C-Blosc2 does it: the basic header must be readable and sound
/// (-6 when `cbytes < 16`, -11 for bad fields), its `cbytes` must equal the given length (-11)
/// and `nbytes` must not exceed `BLOSC2_MAX_BUFFERSIZE` (-4). Returns the code and the size to
/// report (0 on failure).
fn validate(cbuffer: *const c_void, cbytes: usize) -> (c_int, usize) {
    if cbytes < MIN_HEADER_LENGTH {
        crate::trace_error!("Not enough space to read the header");
        return (Error::WriteBuffer.code(), 0);
    }
    if cbuffer.is_null() {
        return (Error::NullPointer.code(), 0);
    }
    // SAFETY: the caller guarantees `cbytes` (>= 16) readable bytes.
    let s = unsafe { core::slice::from_raw_parts(cbuffer as *const u8, MIN_HEADER_LENGTH) };
    let h = match Header::parse_basic(s) {
        Ok(h) => h,
        Err(e) => return (e.code(), 0),
    };
    let nbytes = h.nbytes;
    if h.cbytes as usize != cbytes {
        crate::trace_error!("The header's cbytes ({}) differs from {}", h.cbytes, cbytes);
        return (Error::InvalidHeader.code(), 0);
    }
    if !(0..=MAX_BUFFERSIZE).contains(&nbytes) {
        crate::trace_error!("The uncompressed size exceeds the maximum buffer size");
        return (Error::MemoryAlloc.code(), 0);
    }
    (0, nbytes as usize)
}

/// Type size and flags of a chunk.
///
/// # Safety
/// `cbuffer` must point to a chunk header; out-pointers may be NULL.
#[no_mangle]
pub unsafe extern "C" fn blosc1_cbuffer_metainfo(
    cbuffer: *const c_void,
    typesize: *mut usize,
    flags: *mut c_int,
) {
    guard((), || {
        if cbuffer.is_null() {
            return;
        }
        // SAFETY: the caller guarantees the 16-byte basic header is readable.
        let s = unsafe { core::slice::from_raw_parts(cbuffer as *const u8, 16) };
        // SAFETY: out-pointers checked for NULL.
        unsafe {
            if let Some(t) = typesize.as_mut() {
                *t = s[3] as usize;
            }
            if let Some(f) = flags.as_mut() {
                *f = s[2] as c_int;
            }
        }
    })
}

/// Format and codec versions of a chunk.
///
/// # Safety
/// `cbuffer` must point to a chunk header; out-pointers may be NULL.
#[no_mangle]
pub unsafe extern "C" fn blosc2_cbuffer_versions(
    cbuffer: *const c_void,
    version: *mut c_int,
    versionlz: *mut c_int,
) {
    guard((), || {
        if cbuffer.is_null() {
            return;
        }
        // SAFETY: the caller guarantees the header is readable.
        let s = unsafe { core::slice::from_raw_parts(cbuffer as *const u8, 2) };
        // SAFETY: out-pointers checked for NULL.
        unsafe {
            if let Some(v) = version.as_mut() {
                *v = s[0] as c_int;
            }
            if let Some(v) = versionlz.as_mut() {
                *v = s[1] as c_int;
            }
        }
    })
}

/// The name of the codec library used by a chunk.
///
/// # Safety
/// `cbuffer` must point to a chunk header.
#[no_mangle]
pub unsafe extern "C" fn blosc2_cbuffer_complib(cbuffer: *const c_void) -> *const c_char {
    guard(core::ptr::null(), || {
        if cbuffer.is_null() {
            return core::ptr::null();
        }
        // SAFETY: the caller guarantees the header is readable.
        let s = unsafe { core::slice::from_raw_parts(cbuffer as *const u8, 3) };
        let name: &'static [u8] = match s[2] >> 5 {
            0 => b"BloscLZ\0",
            1 => b"LZ4\0",
            3 => b"Zlib\0",
            4 => b"Zstd\0",
            _ => return core::ptr::null(),
        };
        name.as_ptr() as *const c_char
    })
}

/// Compress variable-length blocks into one chunk.
///
/// # Safety
/// `srcs[i]` readable for `srcsizes[i]` bytes for `i < nblocks`; `dest` writable for `destsize`.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlcompress_ctx(
    context: *mut blosc2_context,
    srcs: *const *const c_void,
    srcsizes: *const i32,
    nblocks: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    guard(fail(), || {
        // SAFETY: checked for NULL; the caller guarantees liveness.
        let Some(ctx) = (unsafe { Context::from_c_ref(context) }) else {
            return Error::NullPointer.code();
        };
        let Kind::Compress(p) = &ctx.kind else {
            crate::trace_error!("Context is not meant for compression.  Giving up.");
            return Error::InvalidParam.code();
        };
        if nblocks <= 0 || srcs.is_null() || srcsizes.is_null() {
            crate::trace_error!("Invalid VL blocks (count or NULL arrays)");
            return Error::InvalidParam.code();
        }
        let n = nblocks as usize;
        // SAFETY: the caller guarantees `nblocks` entries in both arrays.
        let (ptrs, sizes) = unsafe {
            (
                core::slice::from_raw_parts(srcs, n),
                core::slice::from_raw_parts(srcsizes, n),
            )
        };
        let mut blocks = Vec::with_capacity(n);
        for (&ptr, &size) in ptrs.iter().zip(sizes) {
            if size < 0 || ptr.is_null() {
                crate::trace_error!("Invalid VL block (negative size or NULL pointer)");
                return Error::InvalidParam.code();
            }
            // SAFETY: the caller guarantees each block is readable for its size.
            match unsafe { slice(ptr, size as usize) } {
                Some(b) => blocks.push(b),
                None => return Error::InvalidParam.code(),
            }
        }
        // SAFETY: the caller guarantees `destsize` writable bytes (none when negative: -35).
        let Some(d) = (unsafe { slice_mut(dest, destsize.max(0) as usize) }) else {
            return Error::NullPointer.code();
        };
        code_of(chunk::vlcompress(p, &blocks, d))
    })
}

/// The parameters of a context for the VL-block decompressors, which need a decompression
/// context (-12 otherwise).
fn vl_dparams(context: *mut blosc2_context) -> Result<DParams, Error> {
    // SAFETY: checked for NULL; the caller guarantees the context is live.
    match unsafe { Context::from_c_ref(context) }.map(|c| &c.kind) {
        None => Err(Error::NullPointer),
        Some(Kind::Decompress(p)) => Ok(p.clone()),
        Some(Kind::Compress(_)) => {
            crate::trace_error!("Context is not meant for decompression.  Giving up.");
            Err(Error::InvalidParam)
        }
    }
}

fn malloc_copy(b: &[u8]) -> *mut u8 {
    // SAFETY: plain C allocation of at least one byte; the copy stays in bounds.
    unsafe {
        let p = libc::malloc(b.len().max(1)) as *mut u8;
        if !p.is_null() {
            core::ptr::copy_nonoverlapping(b.as_ptr(), p, b.len());
        }
        p
    }
}

/// Decompress every block of a VL-block chunk into newly `malloc`ed buffers.
///
/// # Safety
/// `src` readable for `srcsize`; `dests`/`destsizes` writable for `maxblocks` entries.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vldecompress_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    dests: *mut *mut c_void,
    destsizes: *mut i32,
    maxblocks: i32,
) -> c_int {
    guard(fail(), || {
        let dp = match vl_dparams(context) {
            Ok(p) => p,
            Err(e) => return e.code(),
        };
        if src.is_null() || dests.is_null() || destsizes.is_null() || maxblocks < 0 {
            crate::trace_error!("Invalid parameters (NULL pointers or negative maxblocks)");
            return Error::InvalidParam.code();
        }
        // SAFETY: the caller guarantees `srcsize` readable bytes (none when negative).
        let Some(s) = (unsafe { slice(src, srcsize.max(0) as usize) }) else {
            return Error::NullPointer.code();
        };
        // SAFETY: `dp.owner` comes from `dparams.schunk`.
        let s = match unsafe { unlazy(dp.owner, s) } {
            Ok(s) => s,
            Err(e) => return e.code(),
        };
        let blocks = match chunk::vldecompress(&dp, &s) {
            Ok(b) => b,
            Err(e) => return e.code(),
        };
        if blocks.len() > maxblocks as usize {
            crate::trace_error!("maxblocks ({}) is smaller than the block count", maxblocks);
            return Error::InvalidParam.code();
        }
        for (i, b) in blocks.iter().enumerate() {
            let p = malloc_copy(b);
            if p.is_null() {
                return Error::MemoryAlloc.code();
            }
            // SAFETY: `i < maxblocks`, within the caller's arrays.
            unsafe {
                *dests.add(i) = p as *mut c_void;
                *destsizes.add(i) = b.len() as i32;
            }
        }
        blocks.len() as c_int
    })
}

/// The number of blocks of a VL-block chunk.
///
/// # Safety
/// `src` readable for `srcsize`; `nblocks` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vlchunk_get_nblocks(
    src: *const c_void,
    srcsize: i32,
    nblocks: *mut i32,
) -> c_int {
    guard(fail(), || {
        if src.is_null() || nblocks.is_null() {
            crate::trace_error!("NULL chunk or output");
            return Error::InvalidParam.code();
        }
        // SAFETY: the caller guarantees `srcsize` readable bytes (none when negative).
        let Some(s) = (unsafe { slice(src, srcsize.max(0) as usize) }) else {
            return Error::NullPointer.code();
        };
        match Header::parse(s) {
            Ok(h) if h.is_vlblocks() => {
                // SAFETY: checked for NULL.
                unsafe { *nblocks = h.blocksize };
                0
            }
            Ok(_) => Error::InvalidParam.code(),
            Err(e) => e.code(),
        }
    })
}

/// Decompress one block of a VL-block chunk into a newly `malloc`ed buffer.
///
/// # Safety
/// `src` readable for `srcsize`; `dest` and `destsize` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_vldecompress_block_ctx(
    context: *mut blosc2_context,
    src: *const c_void,
    srcsize: i32,
    nblock: i32,
    dest: *mut *mut u8,
    destsize: *mut i32,
) -> c_int {
    guard(fail(), || {
        let dp = match vl_dparams(context) {
            Ok(p) => p,
            Err(e) => return e.code(),
        };
        if src.is_null() || dest.is_null() || destsize.is_null() {
            crate::trace_error!("NULL chunk or output");
            return Error::InvalidParam.code();
        }
        // SAFETY: the caller guarantees `srcsize` readable bytes (none when negative).
        let Some(s) = (unsafe { slice(src, srcsize.max(0) as usize) }) else {
            return Error::NullPointer.code();
        };
        // a negative index is out of range like any other (checked after the chunk)
        let j = usize::try_from(nblock).unwrap_or(usize::MAX);
        // SAFETY: `dp.owner` comes from `dparams.schunk`.
        let s = match unsafe { unlazy(dp.owner, s) } {
            Ok(s) => s,
            Err(e) => return e.code(),
        };
        match chunk::vldecompress_block(&dp, &s, j) {
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

unsafe fn special_impl(
    cparams: &blosc2_cparams,
    kind: Special,
    nbytes: i32,
    value: *const c_void,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    // C-Blosc2's order: a size that is not a multiple of the typesize is -3 (DATA), also
    // when negative (but for zeros, where b2rs refuses a negative size below)
    let ts = cparams.typesize;
    if ts > 0 && nbytes % ts != 0 && !(kind == Special::Zero && nbytes < 0) {
        crate::trace_error!("nbytes must be a multiple of typesize");
        return Error::Data.code();
    }
    if nbytes < 0 {
        return Error::InvalidParam.code();
    }
    // A negative `destsize` is no room (-3 like a too small destination, as in C-Blosc2).
    let destsize = destsize.max(0);
    if dest.is_null() && destsize > 0 {
        return Error::NullPointer.code();
    }
    let ctx = new_cctx(cparams);
    let Kind::Compress(p) = &ctx.kind else {
        return Error::Failure.code();
    };
    let v = if kind == Special::Value {
        if value.is_null() {
            return Error::NullPointer.code();
        }
        // SAFETY: the caller guarantees `typesize` readable bytes of value.
        unsafe { slice(value, p.typesize.max(0) as usize) }
    } else {
        None
    };
    // SAFETY: the caller guarantees `destsize` writable bytes.
    let Some(d) = (unsafe { slice_mut(dest, destsize as usize) }) else {
        return Error::NullPointer.code();
    };
    code_of(special::special_chunk(p, kind, nbytes as usize, v, d))
}

/// A chunk of zeros.
///
/// # Safety
/// `dest` writable for `destsize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_zeros(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    // SAFETY: forwarded caller guarantees.
    guard(fail(), || unsafe {
        special_impl(
            &cparams,
            Special::Zero,
            nbytes,
            core::ptr::null(),
            dest,
            destsize,
        )
    })
}

/// A chunk of NaNs (typesize 4 or 8).
///
/// # Safety
/// `dest` writable for `destsize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_nans(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    // SAFETY: forwarded caller guarantees.
    guard(fail(), || unsafe {
        special_impl(
            &cparams,
            Special::Nan,
            nbytes,
            core::ptr::null(),
            dest,
            destsize,
        )
    })
}

/// A chunk of uninitialised values.
///
/// # Safety
/// `dest` writable for `destsize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_uninit(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
) -> c_int {
    // SAFETY: forwarded caller guarantees.
    guard(fail(), || unsafe {
        special_impl(
            &cparams,
            Special::Uninit,
            nbytes,
            core::ptr::null(),
            dest,
            destsize,
        )
    })
}

/// A chunk of one repeated value (`typesize` bytes at `repeatval`).
///
/// # Safety
/// `dest` writable for `destsize` bytes; `repeatval` readable for `cparams.typesize` bytes.
#[no_mangle]
pub unsafe extern "C" fn blosc2_chunk_repeatval(
    cparams: blosc2_cparams,
    nbytes: i32,
    dest: *mut c_void,
    destsize: i32,
    repeatval: *const c_void,
) -> c_int {
    // SAFETY: forwarded caller guarantees.
    guard(fail(), || unsafe {
        special_impl(&cparams, Special::Value, nbytes, repeatval, dest, destsize)
    })
}
