//! Codec plugins loaded at run time, as C-Blosc2 3.3 does: the codecs known by name only
//! (ids 36–40, and user codecs registered by name without functions) are looked for when first
//! used. `libblosc2_<name>.so` is opened from the loader's path, else from the path that the
//! plugin's Python package prints (`python -c "import blosc2_<name>;
//! blosc2_<name>.print_libpath()"`, then with `python3`); its `info` symbol names the encoder
//! and decoder (`{char *encoder; char *decoder;}`), which are called as user codecs are. A
//! library once opened stays open.

use super::callbacks::{cparams_to_c, dparams_to_c};
use super::types::*;
use crate::codecs::StreamInfo;
use crate::registry::CodecImpl;
use core::ffi::{c_char, c_int, c_void, CStr};
use std::ffi::CString;
use std::process::{Command, Stdio};
use std::sync::Arc;

/// The `info` symbol of a codec plugin.
#[repr(C)]
struct CodecInfo {
    encoder: *const c_char,
    decoder: *const c_char,
}

/// The `info` symbol of a filter plugin.
#[repr(C)]
struct FilterInfo {
    forward: *const c_char,
    backward: *const c_char,
}

/// Install the loaders in the registry (idempotent; called by the constructors of the C API).
pub(crate) fn install() {
    crate::registry::set_plugin_loader(load_codec);
    crate::registry::set_filter_loader(load_filter);
}

/// Load the filter plugin `name` (the registry's [`crate::registry::FilterLoader`]).
fn load_filter(id: u8, name: &str) -> Option<Arc<dyn crate::registry::FilterImpl>> {
    let h = load_lib(name)?;
    let info = symbol(h, c"info".as_ptr()) as *const FilterInfo;
    if info.is_null() {
        crate::trace_error!("The plugin {} has no `info` symbol", name);
        return None;
    }
    // SAFETY: a filter plugin's `info` symbol is its `filter_info` struct (two C strings).
    let info = unsafe { &*info };
    let (fw, bw) = (symbol(h, info.forward), symbol(h, info.backward));
    if fw.is_null() || bw.is_null() {
        crate::trace_error!("The plugin {} (filter {}) misses a function", name, id);
        return None;
    }
    // SAFETY: the symbols the plugin names are functions with the signatures of
    // `blosc2_filter`'s callbacks (C-Blosc2's plugin contract).
    let (forward, backward) = unsafe {
        (
            core::mem::transmute::<*mut c_void, blosc2_filter_forward_cb>(fw),
            core::mem::transmute::<*mut c_void, blosc2_filter_backward_cb>(bw),
        )
    };
    Some(Arc::new(super::callbacks::CFilter { forward, backward }))
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

/// Load the codec plugin `name` (the registry's [`crate::registry::PluginLoader`]).
fn load_codec(id: u8, name: &str) -> Option<Arc<dyn CodecImpl>> {
    let h = load_lib(name)?;
    let info = symbol(h, c"info".as_ptr()) as *const CodecInfo;
    if info.is_null() {
        crate::trace_error!("The plugin {} has no `info` symbol", name);
        return None;
    }
    // SAFETY: the plugin's `info` symbol is its `codec_info` struct (two C string pointers).
    let info = unsafe { &*info };
    let (enc, dec) = (symbol(h, info.encoder), symbol(h, info.decoder));
    if enc.is_null() || dec.is_null() {
        crate::trace_error!(
            "The plugin {} (codec {}) misses its encoder or decoder",
            name,
            id
        );
        return None;
    }
    // SAFETY: the symbols the plugin names as its encoder and decoder are functions with the
    // signatures of `blosc2_codec`'s callbacks (C-Blosc2's plugin contract).
    let (encoder, decoder) = unsafe {
        (
            core::mem::transmute::<*mut c_void, blosc2_codec_encoder_cb>(enc),
            core::mem::transmute::<*mut c_void, blosc2_codec_decoder_cb>(dec),
        )
    };
    Some(Arc::new(PluginCodec { encoder, decoder }))
}

/// A codec plugin: called as a user codec, with `cparams->schunk` / `dparams->schunk`
/// pointing at a view of the super-chunk that plugins read (its typesize and its "b2nd"
/// metalayer, current even in the middle of an operation that just changed it: the handle's own
/// C struct is brought up to date after the operation).
struct PluginCodec {
    encoder: blosc2_codec_encoder_cb,
    decoder: blosc2_codec_decoder_cb,
}

/// The C view of a super-chunk handed to a plugin call.
struct SchunkView {
    sc: Box<blosc2_schunk>,
    // what `sc.metalayers[0]` points to
    _meta: Box<blosc2_metalayer>,
    _content: Vec<u8>,
}

impl SchunkView {
    /// A view with the typesize and the "b2nd" metalayer of `nd` (`None`: the super-chunk's own
    /// C struct is handed over as it is).
    fn new(owner: usize, typesize: i32, nd: Option<&crate::b2nd::Meta>) -> Option<SchunkView> {
        let mut content = nd?.serialize().ok()?;
        let mut meta = Box::new(blosc2_metalayer {
            name: c"b2nd".as_ptr() as *mut c_char,
            content: content.as_mut_ptr(),
            content_len: content.len() as i32,
        });
        let mut sc = Box::new(blosc2_schunk::ZEROED);
        // SAFETY: a non-null owner is the `blosc2_schunk` of the super-chunk being compressed
        // (read only: its scalar fields are copied).
        if let Some(own) = unsafe { (owner as *const blosc2_schunk).as_ref() } {
            sc.version = own.version;
            sc.compcode = own.compcode;
            sc.compcode_meta = own.compcode_meta;
            sc.clevel = own.clevel;
            sc.splitmode = own.splitmode;
            sc.blocksize = own.blocksize;
            sc.chunksize = own.chunksize;
            sc.filters = own.filters;
            sc.filters_meta = own.filters_meta;
            sc.nchunks = own.nchunks;
            sc.nbytes = own.nbytes;
            sc.cbytes = own.cbytes;
            sc.storage = own.storage;
        }
        sc.typesize = typesize;
        sc.nmetalayers = 1;
        sc.metalayers[0] = &mut *meta;
        Some(SchunkView {
            sc,
            _meta: meta,
            _content: content,
        })
    }
}

impl CodecImpl for PluginCodec {
    fn encode(&self, src: &[u8], dst: &mut [u8], info: StreamInfo<'_>) -> i32 {
        let Some(enc) = self.encoder else {
            return crate::Error::CodecSupport.code();
        };
        let mut cp = info
            .cparams
            .map(cparams_to_c)
            .unwrap_or(BLOSC2_CPARAMS_DEFAULTS);
        let view = info.cparams.and_then(|p| {
            let ts = p.schunk_typesize.unwrap_or(p.typesize);
            SchunkView::new(p.owner, ts, p.b2nd.as_deref())
        });
        let mut view = view;
        if let Some(v) = view.as_mut() {
            cp.schunk = &mut *v.sc as *mut blosc2_schunk as *mut c_void;
        }
        // SAFETY: buffers are valid for the stated lengths; `cp` and the view live for the call.
        let r: c_int = unsafe {
            enc(
                src.as_ptr(),
                src.len() as i32,
                dst.as_mut_ptr(),
                dst.len() as i32,
                info.meta,
                &mut cp,
                info.chunk.as_ptr() as *const c_void,
            )
        };
        drop(view);
        r
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
        let view = info.dparams.and_then(|p| {
            let ts = p.schunk_typesize.unwrap_or(dp.typesize);
            SchunkView::new(p.owner, ts, p.b2nd.as_deref())
        });
        let mut view = view;
        if let Some(v) = view.as_mut() {
            dp.schunk = &mut *v.sc as *mut blosc2_schunk as *mut c_void;
        }
        // SAFETY: buffers are valid for the stated lengths; `dp` and the view live for the call.
        let r: c_int = unsafe {
            dec(
                src.as_ptr(),
                src.len() as i32,
                dst.as_mut_ptr(),
                dst.len() as i32,
                info.meta,
                &mut dp,
                info.chunk.as_ptr() as *const c_void,
            )
        };
        drop(view);
        r
    }
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
