//! Adapters between C callbacks (prefilter/postfilter, user codecs and filters, the threads
//! callback) and the core's Rust traits and closures.

use super::types::*;
use crate::chunk::worker::Executor;
use crate::codecs::StreamInfo;
use crate::params::{CParams, DParams, PostfilterArgs, PrefilterArgs, SplitMode};
use crate::registry::{CodecImpl, FilterImpl};
use core::ffi::{c_char, c_int, c_void};
use std::sync::Arc;

/// A raw pointer that the C caller promises may be used from any thread.
#[derive(Clone, Copy)]
pub(crate) struct SendPtr(pub *mut c_void);
// SAFETY: these pointers are user data handed back to the user's own callbacks, which C-Blosc2
// also calls from its worker threads; thread-safety is the caller's contract.
unsafe impl Send for SendPtr {}
// SAFETY: as above.
unsafe impl Sync for SendPtr {}

/// A C `blosc2_cparams` for the core parameters (what user callbacks receive).
pub(crate) fn cparams_to_c(p: &CParams) -> blosc2_cparams {
    blosc2_cparams {
        compcode: p.compcode,
        compcode_meta: p.compcode_meta,
        clevel: p.clevel,
        use_dict: p.use_dict as c_int,
        typesize: p.typesize,
        nthreads: p.nthreads,
        blocksize: p.blocksize,
        splitmode: p.splitmode as i32,
        schunk: p.owner as *mut c_void,
        filters: p.filters,
        filters_meta: p.filters_meta,
        codec_params: p.codec_params as *mut c_void,
        ..BLOSC2_CPARAMS_DEFAULTS
    }
}

/// A C `blosc2_dparams` for the core parameters.
pub(crate) fn dparams_to_c(p: &DParams) -> blosc2_dparams {
    blosc2_dparams {
        nthreads: p.nthreads,
        schunk: p.owner as *mut c_void,
        typesize: p.typesize,
        ..BLOSC2_DPARAMS_DEFAULTS
    }
}

/// Core parameters from a C `blosc2_cparams` (callbacks are wired by the context).
pub(crate) fn cparams_from_c(c: &blosc2_cparams) -> CParams {
    CParams {
        compcode: c.compcode,
        compcode_meta: c.compcode_meta,
        clevel: c.clevel,
        use_dict: c.use_dict != 0,
        typesize: c.typesize,
        nthreads: c.nthreads,
        blocksize: c.blocksize,
        splitmode: SplitMode::from_i32(c.splitmode),
        filters: c.filters,
        filters_meta: c.filters_meta,
        prefilter: None,
        nchunk: -1,
        owner: c.schunk as usize,
        codec_params: c.codec_params as usize,
        instr_codec: c.instr_codec != 0,
        schunk_typesize: schunk_typesize(c.schunk),
        b2nd: None,
        basic_header: false,
        prefilter_disposable: false,
    }
}

/// Core parameters from a C `blosc2_dparams`.
pub(crate) fn dparams_from_c(c: &blosc2_dparams) -> DParams {
    DParams {
        nthreads: c.nthreads,
        postfilter: None,
        typesize: c.typesize,
        nchunk: -1,
        owner: c.schunk as usize,
        schunk_typesize: schunk_typesize(c.schunk),
        b2nd: None,
    }
}

/// The typesize of the super-chunk that C parameters point to (`None` for NULL).
fn schunk_typesize(schunk: *mut c_void) -> Option<i32> {
    // SAFETY: a non-null `schunk` in `blosc2_cparams`/`blosc2_dparams` is a `blosc2_schunk` by
    // the C API's contract (C-Blosc2's bytedelta reads its `typesize` the same way).
    unsafe { (schunk as *const blosc2_schunk).as_ref() }.map(|s| s.typesize)
}

/// Wrap a C prefilter (with its `preparams` template, NULL for none) as a core prefilter: each
/// call gets the template's `user_data`, `output_typesize` (else the typesize) and
/// `output_is_disposable`, as C-Blosc2 copies them.
pub(crate) fn prefilter(
    f: unsafe extern "C" fn(*mut blosc2_prefilter_params) -> c_int,
    template: Option<&blosc2_prefilter_params>,
    ctx: *mut blosc2_context,
) -> crate::params::Prefilter {
    let user = SendPtr(template.map_or(core::ptr::null_mut(), |t| t.user_data));
    let out_ts = template.map_or(0, |t| t.output_typesize);
    let disposable = template.map_or(0, |t| t.output_is_disposable);
    let ctx = SendPtr(ctx as *mut c_void);
    Arc::new(move |a: &mut PrefilterArgs<'_>| {
        let user = user;
        let ctx = ctx;
        let mut p = blosc2_prefilter_params {
            user_data: user.0,
            input: a.input.as_ptr(),
            output: a.output.as_mut_ptr(),
            output_size: a.output.len() as i32,
            output_typesize: if out_ts > 0 {
                out_ts
            } else {
                a.output_typesize
            },
            output_offset: a.output_offset,
            nchunk: a.nchunk,
            nblock: a.nblock,
            tid: a.tid,
            ttmp: core::ptr::null_mut(),
            ttmp_nbytes: 0,
            ctx: ctx.0 as *mut blosc2_context,
            output_is_disposable: disposable,
        };
        // SAFETY: `p` points to valid input/output buffers of the stated sizes for the call.
        unsafe { f(&mut p) }
    })
}

/// Wrap a C postfilter as a core postfilter.
pub(crate) fn postfilter(
    f: unsafe extern "C" fn(*mut blosc2_postfilter_params) -> c_int,
    user_data: *mut c_void,
    ctx: *mut blosc2_context,
) -> crate::params::Postfilter {
    let user = SendPtr(user_data);
    let ctx = SendPtr(ctx as *mut c_void);
    Arc::new(move |a: &mut PostfilterArgs<'_>| {
        let user = user;
        let ctx = ctx;
        let mut p = blosc2_postfilter_params {
            user_data: user.0,
            input: a.input.as_ptr(),
            output: a.output.as_mut_ptr(),
            size: a.output.len() as i32,
            typesize: a.typesize,
            offset: a.offset,
            nchunk: a.nchunk,
            nblock: a.nblock,
            tid: a.tid,
            ttmp: core::ptr::null_mut(),
            ttmp_nbytes: 0,
            ctx: ctx.0 as *mut blosc2_context,
        };
        // SAFETY: `p` points to valid input/output buffers of the stated sizes for the call.
        unsafe { f(&mut p) }
    })
}

/// A user codec registered from C, or a codec plugin loaded at run time (`plugin`: the calls
/// then get a view of the super-chunk with its current "b2nd" metalayer, see
/// [`super::plugin_loader::with_schunk_view`]).
pub(crate) struct CCodec {
    pub encoder: blosc2_codec_encoder_cb,
    pub decoder: blosc2_codec_decoder_cb,
    pub plugin: bool,
}

impl CodecImpl for CCodec {
    fn encode(&self, src: &[u8], dst: &mut [u8], info: StreamInfo<'_>) -> i32 {
        let Some(enc) = self.encoder else {
            return crate::Error::CodecSupport.code();
        };
        let mut cp = info
            .cparams
            .map(cparams_to_c)
            .unwrap_or(BLOSC2_CPARAMS_DEFAULTS);
        let mut call = |schunk: Option<*mut c_void>| {
            if let Some(sc) = schunk {
                cp.schunk = sc;
            }
            // SAFETY: buffers are valid for the stated lengths; `cp` (and the view it may
            // point to) lives for the call.
            unsafe {
                enc(
                    src.as_ptr(),
                    src.len() as i32,
                    dst.as_mut_ptr(),
                    dst.len() as i32,
                    info.meta,
                    &mut cp,
                    info.chunk.as_ptr() as *const c_void,
                )
            }
        };
        match info.cparams.filter(|_| self.plugin) {
            Some(p) => with_schunk_view(
                p.owner,
                p.schunk_typesize.unwrap_or(p.typesize),
                p.b2nd.as_deref(),
                call,
            ),
            None => call(None),
        }
    }

    fn decode(&self, src: &[u8], dst: &mut [u8], info: StreamInfo<'_>) -> i32 {
        let Some(dec) = self.decoder else {
            return crate::Error::CodecSupport.code();
        };
        let mut dp = info
            .dparams
            .map(dparams_to_c)
            .unwrap_or(BLOSC2_DPARAMS_DEFAULTS);
        // as C-Blosc2, the decoder sees the typesize of the chunk it decodes
        if let Some(&ts) = info.chunk.get(3) {
            dp.typesize = ts as i32;
        }
        let typesize = dp.typesize;
        let mut call = |schunk: Option<*mut c_void>| {
            if let Some(sc) = schunk {
                dp.schunk = sc;
            }
            // SAFETY: buffers are valid for the stated lengths; `dp` (and the view it may
            // point to) lives for the call.
            unsafe {
                dec(
                    src.as_ptr(),
                    src.len() as i32,
                    dst.as_mut_ptr(),
                    dst.len() as i32,
                    info.meta,
                    &mut dp,
                    info.chunk.as_ptr() as *const c_void,
                )
            }
        };
        match info.dparams.filter(|_| self.plugin) {
            Some(p) => with_schunk_view(
                p.owner,
                p.schunk_typesize.unwrap_or(typesize),
                p.b2nd.as_deref(),
                call,
            ),
            None => call(None),
        }
    }
}

/// A user filter registered from C.
pub(crate) struct CFilter {
    pub forward: blosc2_filter_forward_cb,
    pub backward: blosc2_filter_backward_cb,
}

impl FilterImpl for CFilter {
    fn forward(&self, src: &[u8], dst: &mut [u8], info: StreamInfo<'_>, id: u8) -> i32 {
        let Some(f) = self.forward else {
            return crate::Error::FilterPipeline.code();
        };
        let mut cp = info
            .cparams
            .map(cparams_to_c)
            .unwrap_or(BLOSC2_CPARAMS_DEFAULTS);
        // SAFETY: src and dst are valid for `len` bytes each; `cp` lives for the call.
        unsafe {
            f(
                src.as_ptr(),
                dst.as_mut_ptr(),
                src.len() as i32,
                info.meta,
                &mut cp,
                id,
            )
        }
    }

    fn backward(&self, src: &[u8], dst: &mut [u8], info: StreamInfo<'_>, id: u8) -> i32 {
        let Some(f) = self.backward else {
            return crate::Error::FilterPipeline.code();
        };
        let mut dp = info
            .dparams
            .map(dparams_to_c)
            .unwrap_or(BLOSC2_DPARAMS_DEFAULTS);
        // SAFETY: src and dst are valid for `len` bytes each; `dp` lives for the call.
        unsafe {
            f(
                src.as_ptr(),
                dst.as_mut_ptr(),
                src.len() as i32,
                info.meta,
                &mut dp,
                id,
            )
        }
    }
}

/// The application's threads callback (`blosc2_set_threads_callback`) as a core executor.
pub(crate) struct CExecutor {
    pub callback: unsafe extern "C" fn(
        *mut c_void,
        Option<unsafe extern "C" fn(*mut c_void)>,
        c_int,
        usize,
        *mut c_void,
    ),
    pub data: SendPtr,
}

struct Job<'a> {
    f: &'a (dyn Fn(usize) + Sync),
    i: usize,
}

unsafe extern "C" fn run_job(p: *mut c_void) {
    // SAFETY: `p` points to one `Job` of the array built in `CExecutor::run`, alive for the call.
    let job = unsafe { &*(p as *const Job<'_>) };
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (job.f)(job.i))).is_err() {
        crate::trace_error!("panic in a job run by the threads callback");
    }
}

impl Executor for CExecutor {
    fn run(&self, njobs: usize, job: &(dyn Fn(usize) + Sync)) {
        let mut jobs: Vec<Job<'_>> = (0..njobs).map(|i| Job { f: job, i }).collect();
        // SAFETY: the callback must run `run_job` on each element before returning (its C
        // contract); the array outlives the call.
        unsafe {
            (self.callback)(
                self.data.0,
                Some(run_job),
                njobs as c_int,
                core::mem::size_of::<Job<'_>>(),
                jobs.as_mut_ptr() as *mut c_void,
            )
        }
    }
}

/// What a compression or decompression call reads from the public struct of the super-chunk
/// its parameters point to, at the time of the call (C-Blosc2 reads `context->schunk`'s fields).
pub(crate) struct CSchunkInfo {
    /// `typesize` (the n-dimensional plugins and bytedelta read it).
    pub typesize: i32,
    /// `current_nchunk`: the prefilter's and postfilter's `nchunk` (callers set it before
    /// `blosc2_compress_ctx(schunk->cctx, ...)`, as python-blosc2 does).
    pub current_nchunk: i64,
    /// The shapes of its "b2nd" metalayer, when asked for.
    pub nd: Option<Arc<crate::b2nd::Meta>>,
}

/// What the n-dimensional plugins read at call time from the super-chunk that C parameters
/// point to (`cparams.schunk` / `dparams.schunk`): its typesize and, when `want_nd`, the shapes
/// of its "b2nd" metalayer. Read from the public C struct, as C-Blosc2's plugins do through
/// `blosc2_meta_get`, so a metalayer added after the context was made is seen.
///
/// # Safety
/// `owner` must be 0 or point to a live `blosc2_schunk` (the C API's contract for these fields)
/// that no Rust reference is mutating.
pub(crate) unsafe fn c_schunk_info(owner: usize, want_nd: bool) -> Option<CSchunkInfo> {
    // SAFETY: see the function's contract.
    let s = unsafe { (owner as *const blosc2_schunk).as_ref() }?;
    let mut info = CSchunkInfo {
        typesize: s.typesize,
        current_nchunk: s.current_nchunk,
        nd: None,
    };
    if !want_nd {
        return Some(info);
    }
    let n = (s.nmetalayers as usize).min(s.metalayers.len());
    for &m in &s.metalayers[..n] {
        // SAFETY: non-null entries of a live super-chunk are valid metalayers with C-string
        // names and `content_len` readable content bytes.
        let Some(m) = (unsafe { m.as_ref() }) else {
            continue;
        };
        if m.name.is_null() || m.content.is_null() || m.content_len < 0 {
            continue;
        }
        // SAFETY: as above.
        let name = unsafe { core::ffi::CStr::from_ptr(m.name) };
        if name.to_bytes() != crate::b2nd::METALAYER_NAME.as_bytes() {
            continue;
        }
        // SAFETY: as above.
        let content = unsafe { core::slice::from_raw_parts(m.content, m.content_len as usize) };
        info.nd = crate::b2nd::Meta::deserialize_dims(content)
            .ok()
            .map(|(m, _)| Arc::new(m));
        break;
    }
    Some(info)
}

/// Resolve, at call time, what plugins read from the super-chunk compression parameters
/// point to (see [`c_schunk_info`]).
///
/// # Safety
/// As [`c_schunk_info`] for `p.owner`.
pub(crate) unsafe fn resolve_cparams(p: &mut CParams) {
    if p.owner == 0 {
        return;
    }
    let want = crate::chunk::pipeline::uses_nd(p.compcode, &p.filters);
    // SAFETY: forwarded contract.
    let info = unsafe { c_schunk_info(p.owner, want) };
    p.schunk_typesize = info.as_ref().map(|i| i.typesize);
    if let Some(i) = &info {
        p.nchunk = i.current_nchunk;
    }
    p.b2nd = info.and_then(|i| i.nd);
}

/// Resolve, at call time, what plugins read from the super-chunk decompression parameters
/// point to, for decoding `chunk` (the b2nd shapes are only looked up when its header names
/// an n-dimensional plugin).
///
/// # Safety
/// As [`c_schunk_info`] for `p.owner`.
pub(crate) unsafe fn resolve_dparams(p: &mut DParams, chunk: &[u8]) {
    if p.owner == 0 {
        return;
    }
    let want = crate::chunk::header::Header::parse(chunk)
        .map(|h| crate::chunk::pipeline::chunk_uses_nd(&h))
        .unwrap_or(false);
    // SAFETY: forwarded contract.
    let info = unsafe { c_schunk_info(p.owner, want) };
    p.schunk_typesize = info.as_ref().map(|i| i.typesize);
    if let Some(i) = &info {
        p.nchunk = i.current_nchunk;
    }
    p.b2nd = info.and_then(|i| i.nd);
}

thread_local! {
    /// The C super-chunk struct of [`with_schunk_view`], kept between calls (65840 bytes).
    static VIEW: std::cell::RefCell<Option<Box<blosc2_schunk>>> =
        const { std::cell::RefCell::new(None) };
}

/// Run `f` with what a plugin call gets as `cparams->schunk` / `dparams->schunk`: a view of
/// the super-chunk `owner` (its scalar fields) with `typesize` and, when the super-chunk is a
/// B2ND array, its current "b2nd" metalayer `nd` (the handle's own C struct is brought up to
/// date only after the operation in progress, which may just have changed it). `f` gets
/// `None` (keep the parameters' own pointer) outside an array.
pub(crate) fn with_schunk_view<R>(
    owner: usize,
    typesize: i32,
    nd: Option<&crate::b2nd::Meta>,
    f: impl FnOnce(Option<*mut c_void>) -> R,
) -> R {
    let Some(mut content) = nd.and_then(|m| m.serialize().ok()) else {
        return f(None);
    };
    let mut meta = blosc2_metalayer {
        name: c"b2nd".as_ptr() as *mut c_char,
        content: content.as_mut_ptr(),
        content_len: content.len() as i32,
    };
    // the thread's struct, or a new one when it is in use (a plugin compressing from inside)
    let kept = VIEW.with(|v| v.try_borrow_mut().ok().and_then(|mut v| v.take()));
    let mut sc = kept.unwrap_or_else(|| Box::new(blosc2_schunk::ZEROED));
    // SAFETY: a non-null owner is the `blosc2_schunk` of the super-chunk being worked on (read
    // only: its scalar fields are copied).
    let own = unsafe { (owner as *const blosc2_schunk).as_ref() };
    // (a promoted constant: no 65 KB struct on the stack per call)
    let zeroed: &'static blosc2_schunk = &blosc2_schunk::ZEROED;
    let o = own.unwrap_or(zeroed);
    sc.version = o.version;
    sc.compcode = o.compcode;
    sc.compcode_meta = o.compcode_meta;
    sc.clevel = o.clevel;
    sc.splitmode = o.splitmode;
    sc.blocksize = o.blocksize;
    sc.chunksize = o.chunksize;
    sc.filters = o.filters;
    sc.filters_meta = o.filters_meta;
    sc.nchunks = o.nchunks;
    sc.nbytes = o.nbytes;
    sc.cbytes = o.cbytes;
    sc.storage = o.storage;
    sc.typesize = typesize;
    sc.nmetalayers = 1;
    sc.metalayers[0] = &mut meta;
    let r = f(Some(&mut *sc as *mut blosc2_schunk as *mut c_void));
    sc.metalayers[0] = core::ptr::null_mut();
    VIEW.with(|v| {
        if let Ok(mut v) = v.try_borrow_mut() {
            *v = Some(sc);
        }
    });
    r
}
