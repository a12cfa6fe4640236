//! Tuners (`blosc2_tuner`), as C-Blosc2 3.3 runs them. A tuner gets the library's *private*
//! `blosc2_context*` and reads and writes its fields at fixed offsets, so a context starts with
//! [`PrivateContext`], the first 976 bytes of C-Blosc2 3.3's `struct blosc2_context_s` (1344
//! bytes in all, the rest reserved), filled from the Rust state before each tuner call and read
//! back after it.
//!
//! The table holds BTune (id 32, loaded by name like every tuner registered without functions:
//! `libblosc2_btune.so` on the loader's path, else where the Python package `blosc2_btune`
//! says; its `info` symbol names the five functions) and the tuners users register (ids
//! 160..=255). The calls, as in the reference: `init(cparams.tuner_params, cctx, NULL)` when a
//! compression context is created; before each chunk, `next_cparams` if `init` set
//! `tuner_params`, else `next_blocksize`; after it, `update(ctx, seconds)` with `destsize` the
//! chunk's size (only with `tuner_params`); `free` when the context goes (only with
//! `tuner_params`). Whatever the tuner wrote stays in the context for the next chunk.

use super::context::blosc2_context_s;
use super::types::*;
use crate::params::{CParams, SplitMode};
use crate::Error;
use core::ffi::{c_int, c_void, CStr};
use core::mem::offset_of;
use std::ffi::CString;
use std::sync::Mutex;

/// C-Blosc2 3.3's private context, the part a tuner may touch (offsets of
/// `../shared/abi/context-layout-ref.tsv`, checked below); the other fields are never read by
/// b2rs and stay zero.
#[repr(C)]
pub struct PrivateContext {
    pub(crate) src: *const u8,
    pub(crate) dest: *mut u8,
    header_flags: [u8; 3],
    pub(crate) sourcesize: i32,
    header_overhead: i32,
    nblocks: i32,
    leftover: i32,
    pub(crate) blocksize: i32,
    header_blocksize: i32,
    pub(crate) splitmode: i32,
    output_bytes: i32,
    pub(crate) srcsize: i32,
    pub(crate) destsize: i32,
    pub(crate) typesize: i32,
    block_arrays: [*mut c_void; 6],
    special_type: i32,
    pub(crate) compcode: c_int,
    pub(crate) compcode_meta: u8,
    pub(crate) clevel: c_int,
    use_dict: c_int,
    dict: [*mut c_void; 4],
    filter_flags: u8,
    pub(crate) filters: [u8; 6],
    pub(crate) filters_meta: [u8; 6],
    urfilters: [u64; 80],
    prefilter: *mut c_void,
    postfilter: *mut c_void,
    preparams: *mut c_void,
    postparams: *mut c_void,
    /// Freed with `free()` with the context when not NULL, as C-Blosc2 does (BTune 1.2.1, built
    /// for the 2.19 layout, leaves its state here).
    pub(crate) block_maskout: *mut bool,
    block_maskout_nitems: c_int,
    pub(crate) schunk: *mut c_void,
    serial_context: *mut c_void,
    pub(crate) do_compress: c_int,
    pub(crate) tuner_params: *mut c_void,
    pub(crate) tuner_id: c_int,
    pub(crate) codec_params: *mut c_void,
    pub(crate) filter_params: [*mut c_void; 6],
    pub(crate) nthreads: i16,
    pub(crate) new_nthreads: i16,
    thread_backend: i16,
    threads_started: i16,
    reserved: [u64; 46],
}

// The offsets C-Blosc2 3.3.5 compiles into its tuners (context-layout-ref.tsv).
const _: () = {
    assert!(core::mem::size_of::<PrivateContext>() == 1344);
    assert!(offset_of!(PrivateContext, sourcesize) == 20);
    assert!(offset_of!(PrivateContext, blocksize) == 36);
    assert!(offset_of!(PrivateContext, splitmode) == 44);
    assert!(offset_of!(PrivateContext, srcsize) == 52);
    assert!(offset_of!(PrivateContext, destsize) == 56);
    assert!(offset_of!(PrivateContext, typesize) == 60);
    assert!(offset_of!(PrivateContext, special_type) == 112);
    assert!(offset_of!(PrivateContext, compcode) == 116);
    assert!(offset_of!(PrivateContext, compcode_meta) == 120);
    assert!(offset_of!(PrivateContext, clevel) == 124);
    assert!(offset_of!(PrivateContext, use_dict) == 128);
    assert!(offset_of!(PrivateContext, filter_flags) == 168);
    assert!(offset_of!(PrivateContext, filters) == 169);
    assert!(offset_of!(PrivateContext, filters_meta) == 175);
    assert!(offset_of!(PrivateContext, urfilters) == 184);
    assert!(offset_of!(PrivateContext, prefilter) == 824);
    assert!(offset_of!(PrivateContext, postfilter) == 832);
    assert!(offset_of!(PrivateContext, block_maskout) == 856);
    assert!(offset_of!(PrivateContext, schunk) == 872);
    assert!(offset_of!(PrivateContext, do_compress) == 888);
    assert!(offset_of!(PrivateContext, tuner_params) == 896);
    assert!(offset_of!(PrivateContext, tuner_id) == 904);
    assert!(offset_of!(PrivateContext, codec_params) == 912);
    assert!(offset_of!(PrivateContext, filter_params) == 920);
    assert!(offset_of!(PrivateContext, nthreads) == 968);
    assert!(offset_of!(PrivateContext, new_nthreads) == 970);
    assert!(offset_of!(PrivateContext, reserved) == 976);
};

impl PrivateContext {
    /// All fields zero / NULL.
    pub(crate) const ZEROED: PrivateContext = PrivateContext {
        src: core::ptr::null(),
        dest: core::ptr::null_mut(),
        header_flags: [0; 3],
        sourcesize: 0,
        header_overhead: 0,
        nblocks: 0,
        leftover: 0,
        blocksize: 0,
        header_blocksize: 0,
        splitmode: 0,
        output_bytes: 0,
        srcsize: 0,
        destsize: 0,
        typesize: 0,
        block_arrays: [core::ptr::null_mut(); 6],
        special_type: 0,
        compcode: 0,
        compcode_meta: 0,
        clevel: 0,
        use_dict: 0,
        dict: [core::ptr::null_mut(); 4],
        filter_flags: 0,
        filters: [0; 6],
        filters_meta: [0; 6],
        urfilters: [0; 80],
        prefilter: core::ptr::null_mut(),
        postfilter: core::ptr::null_mut(),
        preparams: core::ptr::null_mut(),
        postparams: core::ptr::null_mut(),
        block_maskout: core::ptr::null_mut(),
        block_maskout_nitems: 0,
        schunk: core::ptr::null_mut(),
        serial_context: core::ptr::null_mut(),
        do_compress: 0,
        tuner_params: core::ptr::null_mut(),
        tuner_id: 0,
        codec_params: core::ptr::null_mut(),
        filter_params: [core::ptr::null_mut(); 6],
        nthreads: 0,
        new_nthreads: 0,
        thread_backend: 0,
        threads_started: 0,
        reserved: [0; 46],
    };

    /// Write the compression parameters `p` into the fields a tuner reads.
    pub(crate) fn set_cparams(&mut self, p: &CParams) {
        self.do_compress = 1;
        self.typesize = p.typesize;
        self.compcode = p.compcode as c_int;
        self.compcode_meta = p.compcode_meta;
        self.clevel = p.clevel as c_int;
        self.use_dict = p.use_dict as c_int;
        self.blocksize = p.blocksize;
        self.splitmode = p.splitmode as i32;
        self.filters = p.filters;
        self.filters_meta = p.filters_meta;
        self.nthreads = p.nthreads;
        self.new_nthreads = p.nthreads;
    }

    /// Forget the buffers of the chunk just compressed (so that no later tuner call sees them
    /// dangling).
    pub(crate) fn clear_buffers(&mut self) {
        self.src = core::ptr::null();
        self.dest = core::ptr::null_mut();
    }

    /// Take back what a tuner may have changed into `p` (values C-Blosc2 would refuse when
    /// compressing are kept refusable: a codec id out of range becomes 255, a clevel past 255
    /// becomes 255, both refused by the compression that follows).
    fn get_cparams(&mut self, p: &mut CParams) {
        p.typesize = self.typesize;
        p.compcode = u8::try_from(self.compcode).unwrap_or(u8::MAX);
        p.compcode_meta = self.compcode_meta;
        p.clevel = u8::try_from(self.clevel).unwrap_or(u8::MAX);
        p.blocksize = self.blocksize;
        p.splitmode = SplitMode::from_i32(self.splitmode);
        p.filters = self.filters;
        p.filters_meta = self.filters_meta;
        if self.new_nthreads > 0 {
            // applied to the compression that follows, as C-Blosc2 does
            p.nthreads = self.new_nthreads;
            self.nthreads = self.new_nthreads;
        }
    }
}

/// The functions of a tuner (C's `blosc2_tuner` callbacks; a registered tuner may miss some).
type TunerFns = blosc2_tuner;

/// The tuner function a call needs.
#[derive(Clone, Copy)]
enum Need {
    Init,
    NextBlocksize,
    NextCparams,
    Update,
    Free,
}

impl Need {
    fn present(self, f: &TunerFns) -> bool {
        match self {
            Need::Init => f.init.is_some(),
            Need::NextBlocksize => f.next_blocksize.is_some(),
            Need::NextCparams => f.next_cparams.is_some(),
            Need::Update => f.update.is_some(),
            Need::Free => f.free.is_some(),
        }
    }
}

/// One entry of the tuner table: its functions, and its name to load missing ones by.
struct Entry {
    id: c_int,
    name: Option<CString>,
    fns: TunerFns,
    /// The plugin was looked for by name already.
    tried: bool,
}

// SAFETY: the entry's pointers are a C string owned by it and functions (callable from any
// thread: C-Blosc2's tuner contract).
unsafe impl Send for Entry {}

/// The tuner table (C-Blosc2's `g_tuners`), BTune first.
static TUNERS: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

/// BTune's id (`BLOSC_BTUNE`).
pub(crate) const BTUNE: c_int = 32;

fn with_table<R>(f: impl FnOnce(&mut Vec<Entry>) -> R) -> R {
    let mut t = TUNERS.lock().unwrap_or_else(|e| e.into_inner());
    if t.is_empty() {
        t.push(Entry {
            id: BTUNE,
            name: Some(CString::from(c"btune")),
            fns: blosc2_tuner::ZEROED,
            tried: false,
        });
    }
    f(&mut t)
}

/// Register a tuner (`blosc2_register_tuner`): ids 160..=255; the functions it lacks are loaded
/// by name when first needed. The same id again is accepted and changes nothing when the name
/// is the same, and refused otherwise.
pub(crate) fn register(t: &blosc2_tuner) -> Result<(), Error> {
    if t.id < crate::registry::USER_START as c_int {
        crate::trace_error!(
            "The id must be greater or equal to {}",
            crate::registry::USER_START
        );
        return Err(Error::Failure);
    }
    // SAFETY: a non-null name is a NUL-terminated string (C API contract).
    let name = (!t.name.is_null()).then(|| CString::from(unsafe { CStr::from_ptr(t.name) }));
    with_table(|table| {
        if let Some(e) = table.iter().find(|e| e.id == t.id) {
            if e.name == name {
                return Ok(());
            }
            crate::trace_error!("The tuner (ID: {}) is already registered", t.id);
            return Err(Error::Failure);
        }
        let mut fns = *t;
        fns.name = core::ptr::null_mut();
        table.push(Entry {
            id: t.id,
            name,
            fns,
            tried: false,
        });
        Ok(())
    })
}

/// The functions of tuner `id`, with the one `need`ed loaded by name (once) when it was not
/// registered; `Err` with the reference's message when the id is unknown or the function
/// cannot be had.
fn lookup(id: c_int, need: Need) -> Result<TunerFns, Error> {
    with_table(|table| {
        let Some(e) = table.iter_mut().find(|e| e.id == id) else {
            crate::trace_error!("User-defined tuner {} not found", id);
            return Err(Error::InvalidParam);
        };
        if !need.present(&e.fns) && !e.tried {
            e.tried = true;
            let name = e.name.as_deref().map(|n| n.to_string_lossy().into_owned());
            if let Some(f) = name.as_deref().and_then(load) {
                e.fns = f;
            }
        }
        if !need.present(&e.fns) {
            crate::trace_error!("Could not load tuner {}.", id);
            return Err(Error::Failure);
        }
        Ok(e.fns)
    })
}

type InitFn = unsafe extern "C" fn(*mut c_void, *mut blosc2_context, *mut blosc2_context) -> c_int;
type CtxFn = unsafe extern "C" fn(*mut blosc2_context) -> c_int;
type UpdateFn = unsafe extern "C" fn(*mut blosc2_context, f64) -> c_int;

/// Load the tuner plugin `name`: its `info` symbol names init, next_blocksize, next_cparams,
/// update and free.
fn load(name: &str) -> Option<TunerFns> {
    let [i, nb, nc, u, f] = super::plugin_loader::plugin_functions::<5>(name, "tuner")?;
    // SAFETY: the functions a tuner plugin names have the signatures of `blosc2_tuner`'s
    // callbacks (C-Blosc2's plugin contract); all five are non-NULL.
    unsafe {
        Some(blosc2_tuner {
            init: core::mem::transmute::<*mut c_void, Option<InitFn>>(i),
            next_blocksize: core::mem::transmute::<*mut c_void, Option<CtxFn>>(nb),
            next_cparams: core::mem::transmute::<*mut c_void, Option<CtxFn>>(nc),
            update: core::mem::transmute::<*mut c_void, Option<UpdateFn>>(u),
            free: core::mem::transmute::<*mut c_void, Option<CtxFn>>(f),
            id: 0,
            name: core::ptr::null_mut(),
        })
    }
}

/// Whether a context with this `tuner_id` uses C-Blosc2's built-in tuner (ids below
/// `BLOSC_LAST_TUNER`, as the reference tests them).
pub(crate) fn is_stune(id: c_int) -> bool {
    id < super::consts::BLOSC_LAST_TUNER
}

/// The C pointer of a context, as tuners get it.
fn c_ptr(ctx: &mut blosc2_context_s) -> *mut blosc2_context {
    ctx as *mut blosc2_context_s
}

/// Run the tuner's `init` on a new compression context (`config` is `cparams.tuner_params`).
/// The context's `tuner_id` is set after it, as in the reference.
pub(crate) fn init(ctx: &mut blosc2_context_s, config: *mut c_void) -> Result<(), Error> {
    let id = ctx.cparams_c.tuner_id;
    let init = lookup(id, Need::Init)?.init.ok_or(Error::Failure)?;
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
pub(crate) fn before(
    ctx: &mut blosc2_context_s,
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
        Need::NextBlocksize
    } else {
        Need::NextCparams
    };
    let f = match lookup(id, need) {
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
pub(crate) fn after(ctx: &mut blosc2_context_s, cbytes: i32, seconds: f64) -> Result<(), Error> {
    let Some(id) = ctx.tuner else {
        return Ok(());
    };
    ctx.c.destsize = cbytes;
    let rc = if ctx.c.tuner_params.is_null() {
        Ok(0)
    } else {
        lookup(id, Need::Update).map(|f| match f.update {
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
pub(crate) fn release(ctx: &mut blosc2_context_s) {
    if let Some(id) = ctx.tuner.take() {
        if !ctx.c.tuner_params.is_null() {
            match lookup(id, Need::Free).map(|f| f.free) {
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
