//! Compression and decompression contexts (`blosc2_context`).

use super::callbacks;
use super::private_context::PrivateContext;
use super::tuner;
use super::types::*;
use super::{guard, slice};
use crate::params::{filter_id, CParams, DParams, SplitMode};
use crate::Error;
use core::ffi::{c_int, c_void};

/// What a context is for.
pub(crate) enum Kind {
    Compress(CParams),
    Decompress(DParams),
}

/// The context behind a `blosc2_context*` (C: the opaque `struct blosc2_context_s`). It starts
/// with C-Blosc2 3.3's private layout, which tuners read and write.
#[repr(C)]
pub struct Context {
    /// What a tuner sees (filled around each tuner call, see [`super::tuner`]).
    pub(crate) c: PrivateContext,
    /// The id of a compression context's tuner, once its `init` ran (not for C-Blosc2's
    /// built-in one).
    pub(crate) tuner: Option<core::ffi::c_int>,
    pub(crate) kind: Kind,
    /// The parameters as the caller gave them (returned by `blosc2_ctx_get_cparams/dparams`).
    pub(crate) cparams_c: blosc2_cparams,
    pub(crate) dparams_c: blosc2_dparams,
    /// Blocks to skip in the next decompression.
    pub(crate) maskout: Option<Vec<bool>>,
    /// The blocksize of the last chunk compressed with this context (0 before the first one);
    /// `blosc2_ctx_get_cparams` reports it, as C-Blosc2 does.
    pub(crate) last_blocksize: i32,
}

impl Context {
    /// The context behind a C pointer (`None` for NULL).
    ///
    /// # Safety
    /// `p` must be NULL or come from [`Context::into_c`] and not be freed yet; no other
    /// reference to the context may be live.
    pub(crate) unsafe fn from_c<'a>(p: *mut blosc2_context) -> Option<&'a mut Context> {
        // SAFETY: the caller guarantees `p` is NULL or a live `Context` given out by `into_c`.
        unsafe { (p as *mut Context).as_mut() }
    }

    /// The context behind a C pointer, shared (`None` for NULL).
    ///
    /// # Safety
    /// As [`Context::from_c`], except that other shared references may be live.
    pub(crate) unsafe fn from_c_ref<'a>(p: *const blosc2_context) -> Option<&'a Context> {
        // SAFETY: the caller guarantees `p` is NULL or a live `Context` given out by `into_c`.
        unsafe { (p as *const Context).as_ref() }
    }

    /// The C pointer of a context.
    pub(crate) fn as_c(&mut self) -> *mut blosc2_context {
        self as *mut Context as *mut blosc2_context
    }

    /// Hand a context to C.
    pub(crate) fn into_c(ctx: Box<Context>) -> *mut blosc2_context {
        Box::into_raw(ctx) as *mut blosc2_context
    }

    /// Take back a context given to C (for freeing it).
    ///
    /// # Safety
    /// As [`Context::from_c`], and `p` not NULL; C must not use it afterwards.
    pub(crate) unsafe fn from_c_owned(p: *mut blosc2_context) -> Box<Context> {
        // SAFETY: the caller's guarantees.
        unsafe { Box::from_raw(p as *mut Context) }
    }
}

/// C's `strtol(s, NULL, 10)`: leading white space, an optional sign, then the digits that follow
/// (0 when there are none; saturated on overflow).
pub(crate) fn strtol(s: &str) -> i64 {
    let t = s.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut v: i64 = 0;
    for d in digits.bytes().take_while(u8::is_ascii_digit) {
        v = v.saturating_mul(10).saturating_add((d - b'0') as i64);
    }
    if neg {
        -v
    } else {
        v
    }
}

/// An environment variable as a string (`None` when unset).
pub(crate) fn env_str(name: &str) -> Option<String> {
    std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
}

/// An environment variable read as C-Blosc2 reads numbers (`strtol`; "abc" gives 0).
pub(crate) fn env_strtol(name: &str) -> Option<i64> {
    env_str(name).map(|v| strtol(&v))
}

/// The split mode named by `BLOSC_SPLITMODE` (unknown names give `None`).
pub(crate) fn env_splitmode() -> Option<SplitMode> {
    match env_str("BLOSC_SPLITMODE")?.as_str() {
        "ALWAYS" => Some(SplitMode::Always),
        "NEVER" => Some(SplitMode::Never),
        "AUTO" => Some(SplitMode::Auto),
        "FORWARD_COMPAT" => Some(SplitMode::ForwardCompat),
        _ => None,
    }
}

/// The shuffle filter named by `BLOSC_SHUFFLE` (unknown names give `None`).
pub(crate) fn env_shuffle() -> Option<u8> {
    match env_str("BLOSC_SHUFFLE")?.as_str() {
        "NOSHUFFLE" => Some(filter_id::NOFILTER),
        "SHUFFLE" => Some(filter_id::SHUFFLE),
        "BITSHUFFLE" => Some(filter_id::BITSHUFFLE),
        _ => None,
    }
}

/// The codec code for `BLOSC_COMPRESSOR`: `Some(-1)` for an unknown name, `None` when unset.
pub(crate) fn env_compcode() -> Option<c_int> {
    let name = std::ffi::CString::new(env_str("BLOSC_COMPRESSOR")?).ok()?;
    Some(super::global::compcode_of_name(&name))
}

/// Apply the `BLOSC_*` environment variables that C-Blosc2 reads when a compression context is
/// created (the values are taken as the reference does, integer casts included).
pub(crate) fn apply_env_cparams(p: &mut CParams) {
    if let Some(v) = env_strtol("BLOSC_CLEVEL") {
        if v >= 0 {
            // C-Blosc2 stores the value in a uint8_t; > 9 is refused when compressing.
            p.clevel = v as u8;
        }
    }
    if let Some(f) = env_shuffle() {
        p.filters[5] = f;
    }
    if env_str("BLOSC_DELTA").as_deref() == Some("1") {
        p.filters[4] = filter_id::DELTA;
    }
    if let Some(v) = env_strtol("BLOSC_TYPESIZE") {
        if v > 0 && v <= i32::MAX as i64 {
            p.typesize = v as i32;
        }
    }
    if let Some(code) = env_compcode() {
        // An unknown name becomes code 255 (C's `(uint8_t)-1`), which compression refuses.
        p.compcode = code as u8;
    }
    if let Some(v) = env_strtol("BLOSC_BLOCKSIZE") {
        if v > 0 && v <= i32::MAX as i64 {
            p.blocksize = v as i32;
        }
    }
    if let Some(v) = env_strtol("BLOSC_NTHREADS") {
        if v > 0 {
            // C-Blosc2 casts to int16_t.
            p.nthreads = v as i16;
        }
    }
    if let Some(m) = env_splitmode() {
        p.splitmode = m;
    }
}

/// Apply `BLOSC_NTHREADS` to the parameters of a new decompression context.
pub(crate) fn apply_env_dparams(p: &mut DParams) {
    if let Some(v) = env_strtol("BLOSC_NTHREADS") {
        if v > 0 {
            p.nthreads = v as i16;
        }
    }
}

/// Whether C-Blosc2's `blosc2_create_cctx` refuses these parameters (and returns NULL): a filter
/// id in the undefined ranges 5..=31 or (above the registered plugins) ..=159.
pub(crate) fn cparams_refused(cparams: &blosc2_cparams) -> bool {
    crate::chunk::pipeline::check_defined(&cparams.filters).is_err()
}

/// Create a compression context from C parameters (boxed; callbacks get its address).
pub(crate) fn new_cctx(cparams: &blosc2_cparams) -> Box<Context> {
    let mut p = callbacks::cparams_from_c(cparams);
    apply_env_cparams(&mut p);
    let mut ctx = Box::new(Context {
        c: PrivateContext::ZEROED,
        tuner: None,
        kind: Kind::Compress(CParams::default()),
        cparams_c: *cparams,
        dparams_c: BLOSC2_DPARAMS_DEFAULTS,
        maskout: None,
        last_blocksize: 0,
    });
    if let Some(f) = cparams.prefilter {
        // SAFETY: a non-null `preparams` points to the caller's prefilter params (copied, as
        // C-Blosc2 copies them).
        let template = unsafe { cparams.preparams.as_ref() };
        p.prefilter_disposable = template.is_some_and(|t| t.output_is_disposable != 0);
        p.prefilter = Some(callbacks::prefilter(f, template, ctx.as_c()));
    }
    ctx.c.set_cparams(&p);
    ctx.c.schunk = cparams.schunk;
    ctx.c.codec_params = cparams.codec_params;
    ctx.c.filter_params = cparams.filter_params;
    ctx.kind = Kind::Compress(p);
    ctx
}

impl Drop for Context {
    fn drop(&mut self) {
        tuner_release(self);
    }
}

/// Create a decompression context from C parameters.
pub(crate) fn new_dctx(dparams: &blosc2_dparams) -> Box<Context> {
    let mut p = callbacks::dparams_from_c(dparams);
    apply_env_dparams(&mut p);
    let mut ctx = Box::new(Context {
        c: PrivateContext::ZEROED,
        tuner: None,
        kind: Kind::Decompress(DParams::default()),
        cparams_c: BLOSC2_CPARAMS_DEFAULTS,
        dparams_c: *dparams,
        maskout: None,
        last_blocksize: 0,
    });
    if let Some(f) = dparams.postfilter {
        let user = if dparams.postparams.is_null() {
            core::ptr::null_mut()
        } else {
            // SAFETY: a non-null `postparams` points to the caller's postfilter params.
            unsafe { (*dparams.postparams).user_data }
        };
        p.postfilter = Some(callbacks::postfilter(f, user, ctx.as_c()));
    }
    ctx.kind = Kind::Decompress(p);
    ctx
}

/// Create a context for compression; NULL for filter ids that are not defined (5..=31, and
/// 37..=159 above the registered plugins), for a tuner id that is not registered, and when the
/// tuner cannot be loaded or its `init` fails. Other bad parameters make compression fail
/// instead.
///
/// # Safety
/// None beyond passing a valid struct by value; pointers inside `cparams` (prefilter params)
/// must stay valid while the context is used.
#[no_mangle]
pub unsafe extern "C" fn blosc2_create_cctx(cparams: blosc2_cparams) -> *mut blosc2_context {
    super::plugin_loader::install();
    guard(core::ptr::null_mut(), || {
        if cparams_refused(&cparams) {
            return core::ptr::null_mut();
        }
        let mut ctx = new_cctx(&cparams);
        if !tuner::is_stune(cparams.tuner_id) && tuner_init(&mut ctx, cparams.tuner_params).is_err()
        {
            return core::ptr::null_mut();
        }
        Context::into_c(ctx)
    })
}

/// Create a context for decompression.
///
/// # Safety
/// Pointers inside `dparams` (postfilter params) must stay valid while the context is used.
#[no_mangle]
pub unsafe extern "C" fn blosc2_create_dctx(dparams: blosc2_dparams) -> *mut blosc2_context {
    super::plugin_loader::install();
    guard(core::ptr::null_mut(), || {
        Context::into_c(new_dctx(&dparams))
    })
}

/// Free a context created by `blosc2_create_cctx` or `blosc2_create_dctx` (NULL is ignored).
///
/// # Safety
/// `context` must come from one of the create functions and not be used afterwards.
#[no_mangle]
pub unsafe extern "C" fn blosc2_free_ctx(context: *mut blosc2_context) {
    guard((), || {
        if !context.is_null() {
            // SAFETY: the pointer came from `Context::into_c` in a create function.
            drop(unsafe { Context::from_c_owned(context) });
        }
    })
}

/// Copy the compression parameters of a context.
///
/// # Safety
/// `ctx` must be a live context and `cparams` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_ctx_get_cparams(
    ctx: *mut blosc2_context,
    cparams: *mut blosc2_cparams,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: checked for NULL; the caller guarantees validity.
        let (Some(ctx), Some(out)) = (unsafe { Context::from_c_ref(ctx) }, unsafe {
            cparams.as_mut()
        }) else {
            return Error::NullPointer.code();
        };
        let Kind::Compress(p) = &ctx.kind else {
            // C-Blosc2 reads the (unused) compression fields of a decompression context: zeros,
            // its nthreads and super-chunk (tuner_params and filter_params left as they were)
            let Kind::Decompress(d) = &ctx.kind else {
                return Error::InvalidParam.code();
            };
            out.compcode = 0;
            out.compcode_meta = 0;
            out.clevel = 0;
            out.use_dict = 0;
            out.typesize = 0;
            out.nthreads = d.nthreads;
            out.blocksize = 0;
            out.splitmode = 0;
            out.schunk = ctx.dparams_c.schunk;
            out.filters = [0; 6];
            out.filters_meta = [0; 6];
            out.prefilter = None;
            out.preparams = core::ptr::null_mut();
            out.tuner_id = 0;
            out.instr_codec = 0;
            out.codec_params = core::ptr::null_mut();
            return 0;
        };
        let mut c = callbacks::cparams_to_c(p);
        if ctx.last_blocksize > 0 {
            c.blocksize = ctx.last_blocksize;
        }
        c.prefilter = ctx.cparams_c.prefilter;
        c.preparams = ctx.cparams_c.preparams;
        c.schunk = ctx.cparams_c.schunk;
        c.tuner_id = ctx.cparams_c.tuner_id;
        // C-Blosc2 leaves the caller's `tuner_params` as it was
        c.tuner_params = out.tuner_params;
        c.codec_params = ctx.cparams_c.codec_params;
        c.filter_params = ctx.cparams_c.filter_params;
        *out = c;
        0
    })
}

/// Copy the decompression parameters of a context.
///
/// # Safety
/// `ctx` must be a live context and `dparams` writable.
#[no_mangle]
pub unsafe extern "C" fn blosc2_ctx_get_dparams(
    ctx: *mut blosc2_context,
    dparams: *mut blosc2_dparams,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: checked for NULL; the caller guarantees validity.
        let (Some(ctx), Some(out)) = (unsafe { Context::from_c_ref(ctx) }, unsafe {
            dparams.as_mut()
        }) else {
            return Error::NullPointer.code();
        };
        let Kind::Decompress(p) = &ctx.kind else {
            // C-Blosc2 reads the decompression fields of a compression context
            let Kind::Compress(c) = &ctx.kind else {
                return Error::InvalidParam.code();
            };
            out.nthreads = c.nthreads;
            out.schunk = ctx.cparams_c.schunk;
            out.postfilter = None;
            out.postparams = core::ptr::null_mut();
            out.typesize = c.typesize;
            return 0;
        };
        let mut d = callbacks::dparams_to_c(p);
        d.postfilter = ctx.dparams_c.postfilter;
        d.postparams = ctx.dparams_c.postparams;
        d.schunk = ctx.dparams_c.schunk;
        *out = d;
        0
    })
}

/// Skip the blocks whose `maskout` entry is true in the next `blosc2_decompress_ctx` call.
///
/// # Safety
/// `ctx` must be a live decompression context and `maskout` readable for `nblocks` bools.
#[no_mangle]
pub unsafe extern "C" fn blosc2_set_maskout(
    ctx: *mut blosc2_context,
    maskout: *mut bool,
    nblocks: c_int,
) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: checked for NULL.
        let Some(ctx) = (unsafe { Context::from_c(ctx) }) else {
            return Error::NullPointer.code();
        };
        if nblocks < 0 {
            // C-Blosc2 fails to allocate a mask of negative size.
            crate::trace_error!("Error allocating memory!");
            return Error::MemoryAlloc.code();
        }
        // SAFETY: the caller guarantees `nblocks` readable bools; read as bytes.
        let Some(m) = (unsafe { slice(maskout as *const _, nblocks as usize) }) else {
            return Error::NullPointer.code();
        };
        ctx.maskout = Some(m.iter().map(|&b| b != 0).collect());
        0
    })
}

/// The defaults of `BLOSC2_CPARAMS_DEFAULTS`.
#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_cparams_defaults() -> blosc2_cparams {
    BLOSC2_CPARAMS_DEFAULTS
}

/// The defaults of `BLOSC2_DPARAMS_DEFAULTS`.
#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_dparams_defaults() -> blosc2_dparams {
    BLOSC2_DPARAMS_DEFAULTS
}

/// The defaults of `BLOSC2_STORAGE_DEFAULTS`.
#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_storage_defaults() -> blosc2_storage {
    BLOSC2_STORAGE_DEFAULTS
}

/// The defaults of `BLOSC2_IO_DEFAULTS`.
#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_io_defaults() -> blosc2_io {
    BLOSC2_IO_DEFAULTS
}

/// The defaults of `BLOSC2_STDIO_MMAP_DEFAULTS`.
#[no_mangle]
pub extern "C" fn blosc2_get_blosc2_stdio_mmap_defaults() -> blosc2_stdio_mmap {
    BLOSC2_STDIO_MMAP_DEFAULTS
}

// --- The tuner protocol on a context (the table of tuners is in `tuner.rs`) ---

/// The C pointer of a context, as tuners get it.
fn c_ptr(ctx: &mut Context) -> *mut blosc2_context {
    ctx.as_c()
}

/// Run the tuner's `init` on a new compression context (`config` is `cparams.tuner_params`).
/// The context's `tuner_id` is set after it, as in the reference.
pub(crate) fn tuner_init(ctx: &mut Context, config: *mut c_void) -> Result<(), Error> {
    let id = ctx.cparams_c.tuner_id;
    let init = tuner::lookup(id, tuner::Need::Init)?
        .init
        .ok_or(Error::Failure)?;
    // SAFETY: the context starts with the private layout tuners are built for; a tuner may
    // write any field of it (and nothing else: the contract of a C-Blosc2 tuner).
    let rc = unsafe { init(config, c_ptr(ctx), core::ptr::null_mut()) };
    if rc < 0 {
        crate::trace_error!("Error in user-defined tuner {} init function", id);
        return Err(Error::Tuner);
    }
    ctx.tuner = Some(id);
    ctx.c.tuner_id = id;
    Ok(())
}

/// Before compressing `src` into `dest`: let the tuner change the context's parameters `p`
/// (`next_cparams` once it holds state, else `next_blocksize`).
pub(crate) fn tuner_before(
    ctx: &mut Context,
    p: &mut CParams,
    src: &[u8],
    dest: &mut [u8],
) -> Result<(), Error> {
    let Some(id) = ctx.tuner else {
        return Ok(());
    };
    let c = &mut ctx.c;
    c.set_cparams(p);
    c.src = src.as_ptr();
    c.dest = dest.as_mut_ptr();
    c.sourcesize = src.len() as i32;
    c.srcsize = src.len() as i32;
    c.destsize = dest.len() as i32;
    let need = if c.tuner_params.is_null() {
        tuner::Need::NextBlocksize
    } else {
        tuner::Need::NextCparams
    };
    let f = match tuner::lookup(id, need) {
        Ok(f) if c.tuner_params.is_null() => f.next_blocksize,
        Ok(f) => f.next_cparams,
        Err(e) => {
            c.clear_buffers();
            return Err(e);
        }
    };
    // (present: `lookup` checked it)
    let f = f.ok_or(Error::Failure)?;
    // SAFETY: as in `init`; the buffers stay valid for the call (a tuner may read both).
    let rc = unsafe { f(c_ptr(ctx)) };
    if rc < 0 {
        crate::trace_error!("Error in tuner {} next_cparams func", ctx.c.tuner_id);
        ctx.c.clear_buffers();
        return Err(Error::Tuner);
    }
    ctx.c.get_cparams(p);
    Ok(())
}

/// After a chunk of `cbytes` bytes took `seconds` to compress: `update` (when the tuner holds
/// state). The buffer pointers are cleared afterwards.
pub(crate) fn tuner_after(ctx: &mut Context, cbytes: i32, seconds: f64) -> Result<(), Error> {
    let Some(id) = ctx.tuner else {
        return Ok(());
    };
    ctx.c.destsize = cbytes;
    let rc = if ctx.c.tuner_params.is_null() {
        Ok(0)
    } else {
        tuner::lookup(id, tuner::Need::Update).map(|f| match f.update {
            // SAFETY: as in `before`.
            Some(f) => unsafe { f(c_ptr(ctx), seconds) },
            None => Error::Failure.code(),
        })
    };
    ctx.c.clear_buffers();
    if rc? < 0 {
        crate::trace_error!("Error in tuner update func");
        return Err(Error::Tuner);
    }
    Ok(())
}

/// When a context goes: the tuner's `free` (when it holds state), then what C-Blosc2 frees
/// with a context (`block_maskout`).
pub(crate) fn tuner_release(ctx: &mut Context) {
    if let Some(id) = ctx.tuner.take() {
        if !ctx.c.tuner_params.is_null() {
            match tuner::lookup(id, tuner::Need::Free).map(|f| f.free) {
                // SAFETY: as in `init`; the last call the tuner gets for this context.
                Ok(Some(f)) => {
                    if unsafe { f(c_ptr(ctx)) } < 0 {
                        crate::trace_error!("Error in user-defined tuner free function");
                    }
                }
                _ => crate::trace_error!("Could not free tuner {}", id),
            }
        }
    }
    if !ctx.c.block_maskout.is_null() {
        // SAFETY: only a tuner writes this field (b2rs keeps its masks elsewhere), with memory
        // it allocated for the context to free, as C-Blosc2 frees it.
        unsafe { libc::free(ctx.c.block_maskout as *mut c_void) };
        ctx.c.block_maskout = core::ptr::null_mut();
    }
}

#[cfg(test)]
mod tests {
    use super::strtol;

    #[test]
    fn strtol_reads_like_c() {
        assert_eq!(strtol("42"), 42);
        assert_eq!(strtol("  -7"), -7);
        assert_eq!(strtol("+3x"), 3);
        assert_eq!(strtol("10abc"), 10);
        assert_eq!(strtol("abc"), 0);
        assert_eq!(strtol(""), 0);
        assert_eq!(strtol("-"), 0);
        assert_eq!(strtol("99999999999999999999999"), i64::MAX);
        assert_eq!(strtol("-99999999999999999999999"), -i64::MAX);
    }
}
