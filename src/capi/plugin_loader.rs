//! Codec, filter and tuner plugins loaded at run time, as C-Blosc2 3.3 does: the codecs known by name only
//! (ids 36–40, and user codecs registered by name without functions) are looked for when first
//! used. `libblosc2_<name>.so` is opened from the loader's path, else from the path that the
//! plugin's Python package prints (`python -c "import blosc2_<name>;
//! blosc2_<name>.print_libpath()"`, then with `python3`); its `info` symbol names the encoder
//! and decoder (`{char *encoder; char *decoder;}`), which are called as user codecs are. A
//! library once opened stays open.

use super::callbacks::{CCodec, CFilter};
use super::types::*;
use crate::registry::{CodecImpl, FilterImpl};
use core::ffi::{c_char, c_void, CStr};
use std::ffi::CString;
use std::process::{Command, Stdio};
use std::sync::Arc;

/// Install the loaders in the registry (idempotent; called by the constructors of the C API).
pub(crate) fn install() {
    crate::registry::set_plugin_loader(load_codec);
    crate::registry::set_filter_loader(load_filter);
}

/// A plugin name is letters, digits and underscores (it becomes part of a file name and of a
/// Python command).
fn valid_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn dlerror_text() -> String {
    // SAFETY: dlerror returns NULL or a NUL-terminated message owned by the C library.
    let e = unsafe { libc::dlerror() };
    if e.is_null() {
        return String::from("unknown error");
    }
    // SAFETY: non-NULL, NUL-terminated (above).
    unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
}

fn dlopen_path(path: &str) -> Option<*mut c_void> {
    let p = CString::new(path).ok()?;
    // SAFETY: a NUL-terminated path; the handle is never closed (the plugin's functions are
    // registered for the life of the process).
    let h = unsafe { libc::dlopen(p.as_ptr(), libc::RTLD_LAZY) };
    if h.is_null() {
        crate::trace_error!("Cannot open {}: {}", path, dlerror_text());
        return None;
    }
    Some(h)
}

/// The path the plugin's Python package prints, from `python` then `python3`.
fn python_libpath(name: &str) -> Option<String> {
    let code = format!("import blosc2_{name}; blosc2_{name}.print_libpath()");
    for py in ["python", "python3"] {
        let out = Command::new(py)
            .arg("-c")
            .arg(&code)
            .stdin(Stdio::null())
            .stderr(Stdio::inherit())
            .output();
        let Ok(out) = out else { continue };
        if !out.status.success() {
            continue;
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text.lines().next().unwrap_or("").trim();
        if !line.is_empty() {
            return Some(line.to_string());
        }
    }
    None
}

/// Open `libblosc2_<name>.so`: from the loader's path, else where its Python package is.
fn load_lib(name: &str) -> Option<*mut c_void> {
    if !valid_name(name) {
        crate::trace_error!("Invalid plugin name: {}", name);
        return None;
    }
    let lib = format!("libblosc2_{name}.so");
    let c = CString::new(lib.as_str()).ok()?;
    // SAFETY: a NUL-terminated file name; the handle is never closed.
    let h = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_LAZY) };
    if !h.is_null() {
        return Some(h);
    }
    match python_libpath(name) {
        Some(path) => dlopen_path(&path),
        None => {
            crate::trace_error!("Cannot find {} nor the Python package blosc2_{}", lib, name);
            None
        }
    }
}

/// The address of symbol `name` in the library `h` (NULL when missing).
fn symbol(h: *mut c_void, name: *const c_char) -> *mut c_void {
    if name.is_null() {
        return core::ptr::null_mut();
    }
    // SAFETY: `h` is an open library handle and `name` a NUL-terminated string.
    unsafe { libc::dlsym(h, name) }
}

/// The functions a plugin's `info` symbol names: `N` C strings (a codec's `{encoder;
/// decoder}`, a filter's `{forward; backward}`, a tuner's `{init; next_blocksize;
/// next_cparams; update; free}`), opened from `libblosc2_<name>.so`.
pub(crate) fn plugin_functions<const N: usize>(name: &str, what: &str) -> Option<[*mut c_void; N]> {
    let h = load_lib(name)?;
    let info = symbol(h, c"info".as_ptr()) as *const [*const c_char; N];
    if info.is_null() {
        crate::trace_error!("The plugin {} has no `info` symbol", name);
        return None;
    }
    // SAFETY: a plugin's `info` symbol is its `codec_info`/`filter_info`/`tuner_info` struct
    // (`N` C strings).
    let names = unsafe { &*info };
    let fns = names.map(|n| symbol(h, n));
    if fns.iter().any(|f| f.is_null()) {
        crate::trace_error!("The {} plugin {} misses a function", what, name);
        return None;
    }
    Some(fns)
}

/// Load the codec plugin `name` (the registry's [`crate::registry::PluginLoader`]).
fn load_codec(_id: u8, name: &str) -> Option<Arc<dyn CodecImpl>> {
    let [enc, dec] = plugin_functions::<2>(name, "codec")?;
    // SAFETY: the functions a codec plugin names have the signatures of `blosc2_codec`'s
    // callbacks (C-Blosc2's plugin contract).
    let (encoder, decoder) = unsafe {
        (
            core::mem::transmute::<*mut c_void, blosc2_codec_encoder_cb>(enc),
            core::mem::transmute::<*mut c_void, blosc2_codec_decoder_cb>(dec),
        )
    };
    Some(Arc::new(CCodec {
        encoder,
        decoder,
        plugin: true,
    }))
}

/// Load the filter plugin `name` (the registry's [`crate::registry::FilterLoader`]).
fn load_filter(_id: u8, name: &str) -> Option<Arc<dyn FilterImpl>> {
    let [fw, bw] = plugin_functions::<2>(name, "filter")?;
    // SAFETY: the functions a filter plugin names have the signatures of `blosc2_filter`'s
    // callbacks (C-Blosc2's plugin contract).
    let (forward, backward) = unsafe {
        (
            core::mem::transmute::<*mut c_void, blosc2_filter_forward_cb>(fw),
            core::mem::transmute::<*mut c_void, blosc2_filter_backward_cb>(bw),
        )
    };
    Some(Arc::new(CFilter { forward, backward }))
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
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_before_anything_runs() {
        assert!(valid_name("j2k"));
        assert!(valid_name("open_zl2"));
        assert!(!valid_name(""));
        assert!(!valid_name("a;rm -rf"));
        assert!(!valid_name("../x"));
        assert!(load_lib("no such").is_none());
    }
}
