//! See `b2rs_fuzz::targets::sframe_decode`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| b2rs_fuzz::targets::sframe_decode(data));
