//! See `b2rs_fuzz::targets::frame_decode`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| b2rs_fuzz::targets::frame_decode(data));
