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
