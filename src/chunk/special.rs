//! Special-value chunks (CHUNK.md §5): zeros, NaNs, uninitialised and repeated values.

use super::blocksize::compute_blocksize;
use super::header::{
    flags, Header, Special, EXTENDED_HEADER_LENGTH, MAX_BUFFERSIZE, VERSION_FORMAT_STABLE,
};
use super::plan::check_cparams;
use crate::error::{Error, Result};
use crate::params::CParams;

/// Write a special chunk of `nbytes` into `dst`; `value` is the element for `Special::Value`.
/// Returns the chunk length. As in C-Blosc2, `nbytes` not a multiple of the typesize and a
/// destination too small for the chunk are [`Error::Data`].
///
/// # Examples
///
/// ```
/// use b2rs::chunk::{self, header::Special, special::special_chunk};
/// use b2rs::{CParams, DParams, Error};
///
/// let cparams = CParams { typesize: 8, ..CParams::default() };
/// let mut buf = [0u8; 32];
/// let n = special_chunk(&cparams, Special::Zero, 8000, None, &mut buf).unwrap();
/// assert_eq!(n, 32); // just a header
/// let mut out = vec![1u8; 8000];
/// chunk::decompress(&DParams::default(), &buf[..n], &mut out, None).unwrap();
/// assert!(out.iter().all(|&b| b == 0));
/// // nbytes must be a multiple of the typesize
/// assert_eq!(special_chunk(&cparams, Special::Zero, 8001, None, &mut buf), Err(Error::Data));
/// ```
pub fn special_chunk(
    params: &CParams,
    special: Special,
    nbytes: usize,
    value: Option<&[u8]>,
    dst: &mut [u8],
) -> Result<usize> {
    // No codec runs for a special chunk (its header names none): like C-Blosc2, any
    // compcode is accepted here, and `use_dict` is ignored.
    let compcode = if crate::codecs::is_available(params.compcode) {
        params.compcode
    } else {
        crate::codecs::BLOSCLZ
    };
    check_cparams(&CParams {
        compcode,
        use_dict: false,
        ..params.clone()
    })?;
    if nbytes > MAX_BUFFERSIZE as usize {
        crate::trace_error!("nbytes cannot exceed {}", MAX_BUFFERSIZE);
        return Err(Error::MaxBufsizeExceeded);
    }
    let typesize = params.typesize as usize;
    if !nbytes.is_multiple_of(typesize) {
        crate::trace_error!("nbytes must be a multiple of typesize");
        return Err(Error::Data);
    }
    let extra = match special {
        Special::Value => typesize,
        _ => 0,
    };
    let total = EXTENDED_HEADER_LENGTH + extra;
    if dst.len() < total {
        crate::trace_error!("The destination is too small for a special chunk");
        return Err(Error::Data);
    }
    let blocksize = compute_blocksize(
        params.splitmode,
        params.compcode,
        params.clevel,
        &params.filters,
        params.typesize as i64,
        nbytes as i64,
        params.blocksize as i64,
    )
    .max(1);
    let header = Header {
        version: VERSION_FORMAT_STABLE,
        versionlz: 1,
        flags: flags::DOSHUFFLE | flags::DOBITSHUFFLE,
        typesize: if typesize > 255 { 1 } else { typesize as u8 },
        nbytes: nbytes as i32,
        blocksize: blocksize as i32,
        cbytes: total as i32,
        extended: true,
        filters: [0; 6],
        udcompcode: 0,
        compcode_meta: 0,
        filters_meta: [0; 6],
        blosc2_flags2: 0,
        blosc2_flags: (special as u8) << 4,
    };
    header.write(&mut dst[..EXTENDED_HEADER_LENGTH]);
    if special == Special::Value {
        let v = value.ok_or(Error::NullPointer)?;
        if v.len() < typesize {
            return Err(Error::InvalidParam);
        }
        dst[EXTENDED_HEADER_LENGTH..total].copy_from_slice(&v[..typesize]);
    }
    Ok(total)
}
