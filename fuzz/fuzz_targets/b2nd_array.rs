//! See `b2rs_fuzz::targets::b2nd_array`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| b2rs_fuzz::targets::b2nd_array(data));
