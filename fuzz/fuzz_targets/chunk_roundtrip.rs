//! See `b2rs_fuzz::targets::chunk_roundtrip`.
#![no_main]

libfuzzer_sys::fuzz_target!(|inp: b2rs_fuzz::targets::RoundtripInput| {
    b2rs_fuzz::targets::chunk_roundtrip(&inp)
});
