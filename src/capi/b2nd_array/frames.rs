//! B2ND arrays and their super-chunks and frames through the C API: arrays on an existing
//! super-chunk, to and from contiguous frames, opening and saving files.

use super::*;

/// Make an array of a super-chunk holding a `b2nd` (or `caterva`) metalayer. The array owns
/// the super-chunk from now on (freed by [`b2nd_free`]).
///
/// # Safety
/// `schunk` must be a live super-chunk; `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_from_schunk(
    schunk: *mut blosc2_schunk,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    guard(Error::Failure.code(), || {
        if array.is_null() {
            return null().code();
        }
        // SAFETY: NULL or live (caller).
        let Some(h) = (unsafe { handle(schunk) }) else {
            return null().code();
        };
        let r = Array::open(&mut h.core)
            .map(|a| a.meta())
            .and_then(|m| new_c_array(schunk, &m));
        match r {
            Ok(p) => {
                // SAFETY: checked for NULL.
                unsafe { *array = p };
                0
            }
            Err(e) => e.code(),
        }
    })
}

/// A C super-chunk (in memory) holding a copy of `sc`'s chunks and metalayers.
pub(super) fn c_schunk_from(sc: Schunk) -> R<*mut blosc2_schunk> {
    let mut cp = crate::capi::callbacks::cparams_to_c(sc.cparams());
    cp.schunk = ptr::null_mut();
    let mut dp = crate::capi::callbacks::dparams_to_c(sc.dparams());
    dp.schunk = ptr::null_mut();
    let mut st = blosc2_storage {
        contiguous: 0,
        urlpath: ptr::null_mut(),
        cparams: &mut cp,
        dparams: &mut dp,
        io: ptr::null_mut(),
    };
    // SAFETY: a storage of local parameters.
    let p = unsafe { crate::capi::schunk::blosc2_schunk_new(&mut st) };
    // SAFETY: NULL or the handle just created.
    let Some(h) = (unsafe { handle(p) }) else {
        return Err(Error::Failure);
    };
    let r = (|| {
        for m in sc.metalayers() {
            h.core.meta_add(&m.name, &m.content)?;
        }
        for n in 0..sc.nchunks() {
            h.core.append_chunk(sc.get_chunk(n)?.into_owned())?;
        }
        Ok(())
    })();
    if let Err(e) = r {
        // SAFETY: just created, not handed out.
        unsafe { crate::capi::schunk::blosc2_schunk_free(p) };
        return Err(e);
    }
    Ok(p)
}

pub(super) fn put(array: *mut *mut b2nd_array_t, r: R<*mut b2nd_array_t>) -> c_int {
    match r {
        Ok(p) => {
            // SAFETY: checked for NULL by the callers.
            unsafe { *array = p };
            0
        }
        Err(e) => e.code(),
    }
}

/// Take over a super-chunk just opened for an array (freed on error).
/// `missing`: the error when `sc` is NULL (C-Blosc2 gives -1 for a frame in memory that does
/// not open and -32 for a file).
pub(super) fn array_of_new_schunk(sc: *mut blosc2_schunk, missing: Error) -> R<*mut b2nd_array_t> {
    if sc.is_null() {
        crate::trace_error!("Cannot get the super-chunk of the array");
        return Err(missing);
    }
    // SAFETY: a live handle just created by this library.
    let h = unsafe { handle(sc) }.ok_or_else(null)?;
    let r = Array::open(&mut h.core)
        .map(|a| a.meta())
        .and_then(|m| new_c_array(sc, &m));
    if r.is_err() {
        // SAFETY: not handed out.
        unsafe { crate::capi::schunk::blosc2_schunk_free(sc) };
    }
    r
}

/// Make an array from a contiguous frame in memory (`copy`: as `blosc2_schunk_from_buffer`).
///
/// # Safety
/// `cframe` must be readable for `cframe_len` bytes (and stay alive with the array when
/// `copy` is false); `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_from_cframe(
    cframe: *mut u8,
    cframe_len: i64,
    copy: bool,
    array: *mut *mut b2nd_array_t,
) -> c_int {
    guard(Error::Failure.code(), || {
        if array.is_null() || cframe.is_null() {
            return null().code();
        }
        if cframe_len <= 0 {
            crate::trace_error!("The frame length must be positive");
            return Error::Failure.code();
        }
        // SAFETY: forwarded.
        let sc = unsafe { crate::capi::frame::blosc2_schunk_from_buffer(cframe, cframe_len, copy) };
        put(array, array_of_new_schunk(sc, Error::Failure))
    })
}

/// Serialise an array as a contiguous frame (as `blosc2_schunk_to_buffer`): `*cframe`
/// receives the frame of `*cframe_len` bytes; `*needs_free` tells whether the caller must
/// `free()` it.
///
/// # Safety
/// `array` must be live; the output pointers writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_to_cframe(
    array: *const b2nd_array_t,
    cframe: *mut *mut u8,
    cframe_len: *mut i64,
    needs_free: *mut bool,
) -> c_int {
    guard(Error::Failure.code(), || {
        if cframe.is_null() || cframe_len.is_null() || needs_free.is_null() || array.is_null() {
            return null().code();
        }
        // SAFETY: live (caller).
        let a = unsafe { &*array };
        let sc = a.sc;
        // SAFETY: NULL or live (the array's).
        let Some(h) = (unsafe { handle(sc) }) else {
            return null().code();
        };
        let mine = match c_meta(a) {
            Ok(m) => m,
            Err(e) => return e.code(),
        };
        let same = |m: &Meta| {
            m.shape == mine.shape
                && m.chunkshape == mine.chunkshape
                && m.blockshape == mine.blockshape
        };
        if h.core.nd_meta().is_some_and(|m| !same(m)) {
            // a view (squeeze, expand_dims): a frame of its own shapes, as C-Blosc2's views
            // (a super-chunk of their own on the array's chunks) serialise
            let r = view_cframe(h, &mine);
            return match r {
                Ok(b) => {
                    let p = crate::capi::schunk::malloc_copy(&b);
                    if p.is_null() {
                        return Error::MemoryAlloc.code();
                    }
                    // SAFETY: the out-pointers were checked for NULL.
                    unsafe {
                        *cframe = p;
                        *cframe_len = b.len() as i64;
                        *needs_free = true;
                    }
                    0
                }
                Err(e) => e.code(),
            };
        }
        // SAFETY: forwarded.
        let len = unsafe { crate::capi::frame::blosc2_schunk_to_buffer(sc, cframe, needs_free) };
        if len < 0 {
            return len as c_int;
        }
        // SAFETY: checked for NULL.
        unsafe { *cframe_len = len };
        0
    })
}

/// The frame of a view described by `meta` on the super-chunk of `h`: its chunks and
/// metalayers, with `meta` as its "b2nd" metalayer.
fn view_cframe(h: &SchunkHandle, meta: &Meta) -> R<Vec<u8>> {
    let content = meta.serialize()?;
    let metas: Vec<crate::schunk::Metalayer> = h
        .core
        .metalayers()
        .iter()
        .map(|m| crate::schunk::Metalayer {
            name: m.name.clone(),
            content: if m.name == METALAYER_NAME {
                content.clone()
            } else {
                m.content.clone()
            },
        })
        .collect();
    h.core
        .to_cframe_with(&crate::capi::frame::copy_params(h), Some(&metas))
}

/// # Safety
/// `urlpath` NUL-terminated.
pub(super) unsafe fn path_of<'a>(urlpath: *const c_char) -> R<&'a Path> {
    if urlpath.is_null() {
        return Err(null());
    }
    // SAFETY: NUL-terminated (caller).
    let s = unsafe { CStr::from_ptr(urlpath) }
        .to_str()
        .map_err(|_| Error::InvalidParam)?;
    Ok(Path::new(s))
}

/// [`path_of`] for writing: a remote URL is refused (not built yet).
///
/// # Safety
/// As [`path_of`].
unsafe fn write_path_of<'a>(urlpath: *const c_char) -> R<&'a Path> {
    // SAFETY: forwarded.
    let p = unsafe { path_of(urlpath) }?;
    crate::capi::schunk::refuse_remote_write(&p.to_string_lossy())?;
    Ok(p)
}

/// Open the array stored at `urlpath` (a `.b2nd` contiguous frame file or a sparse frame
/// directory), backed by it (as `blosc2_schunk_open`).
///
/// # Safety
/// `urlpath` NUL-terminated; `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_open(urlpath: *const c_char, array: *mut *mut b2nd_array_t) -> c_int {
    // SAFETY: forwarded.
    unsafe { b2nd_open_offset(urlpath, array, 0) }
}

/// Open the array stored at `offset` of the file `urlpath` (see [`b2nd_open`]).
///
/// # Safety
/// `urlpath` NUL-terminated; `array` writable.
#[no_mangle]
pub unsafe extern "C" fn b2nd_open_offset(
    urlpath: *const c_char,
    array: *mut *mut b2nd_array_t,
    offset: i64,
) -> c_int {
    guard(Error::Failure.code(), || {
        if array.is_null() || urlpath.is_null() {
            return null().code();
        }
        if offset < 0 {
            // as C-Blosc2: the super-chunk does not open (-32)
            crate::trace_error!("Negative frame offset is not valid: {}", offset);
            return Error::NullPointer.code();
        }
        // SAFETY: forwarded.
        let sc = unsafe { crate::capi::frame::blosc2_schunk_open_offset(urlpath, offset) };
        put(array, array_of_new_schunk(sc, Error::NullPointer))
    })
}

/// Save an array to `urlpath`: a contiguous frame file when the array's super-chunk is
/// contiguous, else (as C-Blosc2) a sparse frame directory.
///
/// # Safety
/// `array` live; `urlpath` NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn b2nd_save(array: *const b2nd_array_t, urlpath: *mut c_char) -> c_int {
    guard(Error::Failure.code(), || {
        // SAFETY: forwarded.
        let r = unsafe { write_path_of(urlpath) }.and_then(|p| {
            // SAFETY: forwarded.
            let bytes = unsafe { with_array(array, |a| a.to_cframe()) }?;
            // SAFETY: checked live by with_array; the storage is NULL or ours.
            let contiguous =
                unsafe { (*(*array).sc).storage.as_ref() }.is_some_and(|st| st.contiguous != 0);
            let loc = if contiguous {
                Location::File {
                    path: p.to_path_buf(),
                    offset: 0,
                }
            } else {
                Location::Dir(p.to_path_buf())
            };
            let io = crate::capi::schunk::file_io(&p.to_string_lossy())?;
            Frame::from_bytes(bytes)?.copy_to(loc, io)?.flush()?;
            Ok(())
        });
        code(r)
    })
}

/// Append an array as a contiguous frame to the end of the file `urlpath`; returns the offset
/// where it starts (for [`b2nd_open_offset`]) or a negative error code.
///
/// # Safety
/// `array` live; `urlpath` NUL-terminated.
#[no_mangle]
pub unsafe extern "C" fn b2nd_save_append(
    array: *const b2nd_array_t,
    urlpath: *const c_char,
) -> i64 {
    guard(Error::Failure.code() as i64, || {
        if !array.is_null() && urlpath.is_null() {
            crate::trace_error!("urlpath cannot be NULL");
            return Error::InvalidParam.code() as i64;
        }
        // SAFETY: forwarded.
        let r = unsafe { write_path_of(urlpath) }.and_then(|p| {
            // SAFETY: forwarded.
            let bytes = unsafe { with_array(array, |a| a.to_cframe()) }?;
            let io = crate::capi::schunk::file_io(&p.to_string_lossy())?;
            let at = Frame::append_file(p, &bytes, io.as_ref())?;
            io.flush(p)?;
            Ok(at)
        });
        match r {
            Ok(off) => off as i64,
            Err(e) => e.code() as i64,
        }
    })
}
