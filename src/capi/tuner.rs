//! Tuners (`blosc2_tuner`), as C-Blosc2 3.3 runs them. A tuner gets the library's *private*
//! `blosc2_context*` and reads and writes its fields at fixed offsets, so a context starts with
//! [`PrivateContext`](super::private_context::PrivateContext), the first 976 bytes of C-Blosc2 3.3's `struct blosc2_context_s` (1344
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

use super::types::*;
use crate::Error;
use core::ffi::{c_int, c_void, CStr};
use std::ffi::CString;
use std::sync::Mutex;

/// The functions of a tuner (C's `blosc2_tuner` callbacks; a registered tuner may miss some).
type TunerFns = blosc2_tuner;

/// The tuner function a call needs.
#[derive(Clone, Copy)]
pub(crate) enum Need {
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
pub(crate) fn lookup(id: c_int, need: Need) -> Result<TunerFns, Error> {
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
