//! Bounded reading helpers: sizes come from untrusted headers, so buffers grow only as data
//! actually arrives, and an early end of file is reported as [`Error::Truncated`].

use super::error::{read_err, Error, Part, Result};
use std::io::{self, Read};

/// Read exactly `n` bytes, appended to `buf`. Memory grows with the data read, not with `n`,
/// so a huge announced size in a short file costs nothing.
pub(crate) fn read_vec_into<R: Read>(
    r: &mut R,
    n: u64,
    part: Part,
    buf: &mut Vec<u8>,
) -> Result<()> {
    // Reserve up front only what a sane file would have.
    buf.reserve(n.min(1 << 20) as usize);
    let got = r.take(n).read_to_end(buf).map_err(read_err(part))?;
    if (got as u64) < n {
        return Err(Error::Truncated(part).traced());
    }
    Ok(())
}

/// Read exactly `n` bytes into a new vector.
pub(crate) fn read_vec<R: Read>(r: &mut R, n: u64, part: Part) -> Result<Vec<u8>> {
    let mut v = Vec::new();
    read_vec_into(r, n, part, &mut v)?;
    Ok(v)
}

/// Read and discard exactly `n` bytes.
pub(crate) fn skip<R: Read>(r: &mut R, n: u64, part: Part) -> Result<()> {
    let got = io::copy(&mut r.take(n), &mut io::sink()).map_err(read_err(part))?;
    if got < n {
        return Err(Error::Truncated(part).traced());
    }
    Ok(())
}

/// Fill `buf` completely; `Ok(false)` if the data ended before the first byte (a clean end),
/// [`Error::Truncated`] if it ended later.
pub(crate) fn read_exact_or_eof<R: Read>(r: &mut R, buf: &mut [u8], part: Part) -> Result<bool> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) if got == 0 => return Ok(false),
            Ok(0) => return Err(Error::Truncated(part).traced()),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(read_err(part)(e)),
        }
    }
    Ok(true)
}
