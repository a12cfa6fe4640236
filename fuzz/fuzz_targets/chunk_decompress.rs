//! See `b2rs_fuzz::targets::chunk_decompress`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| b2rs_fuzz::targets::chunk_decompress(data));
