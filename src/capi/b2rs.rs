//! b2rs's own functions (declared in `include/b2rs.h`, not part of the C-Blosc2 API).

use core::ffi::c_char;

pub mod bloscpack;
pub mod checksum;

/// The version of b2rs itself (the C-Blosc2 API version is `blosc2_get_version_string()`).
///
/// # Safety
/// None: returns a static NUL-terminated string.
#[no_mangle]
pub extern "C" fn b2rs_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr() as *const c_char
}
