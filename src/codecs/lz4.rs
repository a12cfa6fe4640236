//! LZ4 and LZ4HC streams (CODECS.md §2): raw LZ4 blocks, through the LZ4 1.10 C library
//! (the version C-Blosc2 3.3.5 bundles, so output is byte-identical to the reference).

use libc::{c_char, c_int, c_void};
use std::ptr::NonNull;

// Functions of the bundled LZ4 library that lz4-sys does not declare.
extern "C" {
    fn LZ4_createStream() -> *mut c_void;
    fn LZ4_freeStream(s: *mut c_void) -> c_int;
    fn LZ4_loadDict(s: *mut c_void, dict: *const c_char, dict_size: c_int) -> c_int;
    fn LZ4_compress_fast_continue(
        s: *mut c_void,
        src: *const c_char,
        dst: *mut c_char,
        src_size: c_int,
        dst_cap: c_int,
        accel: c_int,
    ) -> c_int;
    fn LZ4_createStreamHC() -> *mut c_void;
    fn LZ4_freeStreamHC(s: *mut c_void) -> c_int;
    fn LZ4_resetStreamHC_fast(s: *mut c_void, level: c_int);
    fn LZ4_compress_HC_extStateHC_fastReset(
        s: *mut c_void,
        src: *const c_char,
        dst: *mut c_char,
        src_size: c_int,
        dst_cap: c_int,
        level: c_int,
    ) -> c_int;
    fn LZ4_loadDictHC(s: *mut c_void, dict: *const c_char, dict_size: c_int) -> c_int;
    fn LZ4_compress_HC_continue(
        s: *mut c_void,
        src: *const c_char,
        dst: *mut c_char,
        src_size: c_int,
        dst_cap: c_int,
    ) -> c_int;
    fn LZ4_decompress_safe_usingDict(
        src: *const c_char,
        dst: *mut c_char,
        src_size: c_int,
        dst_cap: c_int,
        dict: *const c_char,
        dict_size: c_int,
    ) -> c_int;
}

/// Per-thread LZ4 streams: the HC one serves every LZ4HC stream, the fast one streams with a
/// dictionary; each is created on first use.
///
/// # Examples
///
/// ```
/// use b2rs::codecs::lz4;
///
/// let data = b"0123456789".repeat(300);
/// let mut state = lz4::State::default();
/// let mut out = vec![0u8; data.len()];
/// let n = state.compress(false, 5, &data, &mut out, None);
/// let mut back = vec![0u8; data.len()];
/// assert_eq!(lz4::decompress(&out[..n], &mut back, None), Some(data.len()));
/// assert_eq!(back, data);
/// ```
#[derive(Default)]
pub struct State {
    fast: Option<NonNull<c_void>>,
    hc: Option<NonNull<c_void>>,
}

// SAFETY: the LZ4 stream objects are plain heap state owned by this value and only used through
// `&mut self`.
unsafe impl Send for State {}

impl Drop for State {
    fn drop(&mut self) {
        // SAFETY: the pointers were returned by the matching create functions and are freed once.
        unsafe {
            if let Some(p) = self.fast.take() {
                LZ4_freeStream(p.as_ptr());
            }
            if let Some(p) = self.hc.take() {
                LZ4_freeStreamHC(p.as_ptr());
            }
        }
    }
}

fn int_len(n: usize) -> Option<c_int> {
    c_int::try_from(n).ok()
}

impl State {
    /// The fast (dictionary) stream, created on first use; `None` when out of memory.
    fn fast_stream(&mut self) -> Option<NonNull<c_void>> {
        if self.fast.is_none() {
            // SAFETY: plain allocation of a zeroed, aligned stream (freed in `drop`).
            self.fast = NonNull::new(unsafe { LZ4_createStream() });
        }
        self.fast
    }

    /// The HC stream, created on first use; `None` when out of memory.
    fn hc_stream(&mut self) -> Option<NonNull<c_void>> {
        if self.hc.is_none() {
            // SAFETY: plain allocation of a zeroed, aligned stream (freed in `drop`).
            self.hc = NonNull::new(unsafe { LZ4_createStreamHC() });
        }
        self.hc
    }

    /// Compress one stream. Returns 0 when the output does not fit (store raw).
    ///
    /// # Examples
    ///
    /// ```
    /// use b2rs::codecs::lz4;
    ///
    /// let data = b"0123456789".repeat(300);
    /// let mut state = lz4::State::default();
    /// let mut out = vec![0u8; data.len()];
    /// // LZ4HC (hc = true) at clevel 9
    /// let n = state.compress(true, 9, &data, &mut out, None);
    /// assert!(n > 0 && n < data.len() / 10);
    /// // an output limit too small: 0, store raw
    /// assert_eq!(state.compress(false, 5, &data, &mut out[..4], None), 0);
    /// ```
    pub fn compress(
        &mut self,
        hc: bool,
        clevel: u8,
        src: &[u8],
        dst: &mut [u8],
        dict: Option<&[u8]>,
    ) -> usize {
        let (Some(slen), Some(dlen)) = (int_len(src.len()), int_len(dst.len())) else {
            return 0;
        };
        let s = src.as_ptr() as *const c_char;
        let d = dst.as_mut_ptr() as *mut c_char;
        let n = match (hc, dict) {
            // SAFETY: src/dst are valid for slen/dlen bytes; LZ4 never writes past dlen.
            (false, None) => unsafe {
                lz4_sys::LZ4_compress_fast(s, d, slen, dlen, 10 - clevel as c_int)
            },
            // One HC state reused for every stream: `LZ4_compress_HC` would allocate and zero
            // its 256 KiB per call. The fast reset moves the window past the old positions (or
            // starts afresh when the last call failed), so the bytes equal `LZ4_compress_HC`'s
            // (tested below).
            (true, None) => {
                let Some(st) = self.hc_stream() else {
                    return 0;
                };
                // SAFETY: `st` is a live HC stream; src/dst are valid for slen/dlen bytes.
                unsafe {
                    LZ4_compress_HC_extStateHC_fastReset(
                        st.as_ptr(),
                        s,
                        d,
                        slen,
                        dlen,
                        clevel as c_int,
                    )
                }
            }
            (false, Some(dict)) => {
                let Some(st) = self.fast_stream() else {
                    return 0;
                };
                // SAFETY: `st` is a live stream; dict, src and dst are valid for their lengths.
                unsafe {
                    LZ4_loadDict(
                        st.as_ptr(),
                        dict.as_ptr() as *const c_char,
                        dict.len() as c_int,
                    );
                    LZ4_compress_fast_continue(st.as_ptr(), s, d, slen, dlen, 10 - clevel as c_int)
                }
            }
            (true, Some(dict)) => {
                let Some(st) = self.hc_stream() else {
                    return 0;
                };
                // SAFETY: `st` is a live HC stream; dict, src and dst are valid for their lengths.
                unsafe {
                    LZ4_resetStreamHC_fast(st.as_ptr(), clevel as c_int);
                    LZ4_loadDictHC(
                        st.as_ptr(),
                        dict.as_ptr() as *const c_char,
                        dict.len() as c_int,
                    );
                    LZ4_compress_HC_continue(st.as_ptr(), s, d, slen, dlen)
                }
            }
        };
        if n <= 0 {
            0
        } else {
            n as usize
        }
    }
}

/// Decompress one raw LZ4 block; `None` on malformed input.
///
/// # Examples
///
/// ```
/// use b2rs::codecs::lz4;
///
/// let dict = b"0123456789";
/// let data = b"0123456789abc".repeat(100);
/// let mut out = vec![0u8; data.len()];
/// let n = lz4::State::default().compress(false, 5, &data, &mut out, Some(dict));
/// let mut back = vec![0u8; data.len()];
/// assert_eq!(lz4::decompress(&out[..n], &mut back, Some(dict)), Some(data.len()));
/// assert_eq!(back, data);
/// // malformed input
/// assert_eq!(lz4::decompress(&[0xff], &mut back, None), None);
/// ```
pub fn decompress(src: &[u8], dst: &mut [u8], dict: Option<&[u8]>) -> Option<usize> {
    let slen = int_len(src.len())?;
    let dlen = int_len(dst.len())?;
    let s = src.as_ptr() as *const c_char;
    let d = dst.as_mut_ptr() as *mut c_char;
    let n = match dict {
        // SAFETY: LZ4_decompress_safe reads at most slen bytes and writes at most dlen bytes.
        None => unsafe { lz4_sys::LZ4_decompress_safe(s, d, slen, dlen) },
        // SAFETY: as above; the dictionary is only read.
        Some(dict) => unsafe {
            LZ4_decompress_safe_usingDict(
                s,
                d,
                slen,
                dlen,
                dict.as_ptr() as *const c_char,
                int_len(dict.len())?,
            )
        },
    };
    usize::try_from(n).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Data of several kinds: runs, a ramp, words, noise, by pieces chosen from `seed`.
    fn data(n: usize, seed: u64) -> Vec<u8> {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut v = Vec::with_capacity(n);
        while v.len() < n {
            let kind = next() % 4;
            let len = (next() % 3000) as usize + 1;
            for i in 0..len {
                v.push(match kind {
                    0 => 7,
                    1 => (i / 4) as u8,
                    2 => b"lz4 high compression "[i % 21],
                    _ => next() as u8,
                });
            }
        }
        v.truncate(n);
        v
    }

    fn fresh_hc(src: &[u8], cap: usize, level: c_int) -> Vec<u8> {
        let mut out = vec![0u8; cap];
        // SAFETY: src/out are valid for their lengths.
        let n = unsafe {
            lz4_sys::LZ4_compress_HC(
                src.as_ptr() as *const c_char,
                out.as_mut_ptr() as *mut c_char,
                src.len() as c_int,
                cap as c_int,
                level,
            )
        };
        out.truncate(n.max(0) as usize);
        out
    }

    /// The reused HC state gives exactly the bytes of a fresh `LZ4_compress_HC` (the
    /// reference's call), whatever came before: other levels and sizes, streams with a
    /// dictionary, streams that did not fit.
    #[test]
    fn reused_hc_state_equals_fresh_compression() {
        let mut st = State::default();
        let sizes = [100usize, 4_000, 65_535, 65_536, 70_000, 262_144, 1 << 20];
        let mut case = 0u64;
        for level in [1u8, 2, 3, 4, 5, 6, 8, 9, 10, 12] {
            for &n in &sizes {
                case += 1;
                let src = data(n, case);
                match case % 4 {
                    // a stream with a dictionary before
                    1 => {
                        let dict = data(5_000, case + 1000);
                        let mut out = vec![0u8; n + n / 200 + 64];
                        assert!(st.compress(true, level, &src, &mut out, Some(&dict)) > 0);
                    }
                    // a stream that did not fit before (LZ4 marks the state dirty)
                    2 => {
                        let mut out = vec![0u8; 2];
                        assert_eq!(st.compress(true, level, &src, &mut out, None), 0);
                    }
                    _ => {}
                }
                for cap in [n + n / 200 + 64, n / 2] {
                    let want = fresh_hc(&src, cap, level as c_int);
                    let mut out = vec![0u8; cap];
                    let got = st.compress(true, level, &src, &mut out, None);
                    assert_eq!(got, want.len(), "level {level}, size {n}, cap {cap}");
                    assert_eq!(&out[..got], &want[..], "level {level}, size {n}, cap {cap}");
                }
            }
        }
    }
}
