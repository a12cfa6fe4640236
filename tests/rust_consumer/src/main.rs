//! The safe core of b2rs and C-Blosc2 in one process: b2rs compresses what C-Blosc2 decompresses
//! and the other way round. It links because the core, built without the `capi` feature,
//! defines no C symbol (`blosc2_*` all come from C-Blosc2's `libblosc2.so`).
use b2rs::{chunk, codecs, CParams, DParams};
use std::ffi::{c_char, c_int, c_void, CStr};

extern "C" {
    fn blosc2_init();
    fn blosc2_destroy();
    fn blosc2_get_version_string() -> *const c_char;
    fn blosc2_compress(
        clevel: c_int,
        doshuffle: c_int,
        typesize: i32,
        src: *const c_void,
        srcsize: i32,
        dest: *mut c_void,
        destsize: i32,
    ) -> c_int;
    fn blosc2_decompress(src: *const c_void, srcsize: i32, dest: *mut c_void, destsize: i32)
        -> c_int;
}

fn main() {
    let data: Vec<u8> = (0..100_000u32).flat_map(|i| (i / 7).to_le_bytes()).collect();

    // b2rs writes, C-Blosc2 reads
    let cparams = CParams {
        compcode: codecs::ZSTD,
        typesize: 4,
        ..CParams::default()
    };
    let mut ours = vec![0u8; data.len() + chunk::header::MAX_OVERHEAD];
    let n = chunk::compress(&cparams, &data, &mut ours).expect("b2rs compresses");
    // SAFETY: C-Blosc2's documented calls, with buffers of the sizes given.
    let (version, back) = unsafe {
        blosc2_init();
        let version = CStr::from_ptr(blosc2_get_version_string())
            .to_string_lossy()
            .into_owned();
        let mut back = vec![0u8; data.len()];
        let r = blosc2_decompress(
            ours.as_ptr().cast(),
            n as i32,
            back.as_mut_ptr().cast(),
            back.len() as i32,
        );
        assert_eq!(r as usize, data.len(), "C-Blosc2 decompresses b2rs's chunk");
        (version, back)
    };
    assert_eq!(back, data);

    // C-Blosc2 writes, b2rs reads
    let mut theirs = vec![0u8; data.len() + 32];
    // SAFETY: as above.
    let m = unsafe {
        blosc2_compress(
            5,
            1,
            4,
            data.as_ptr().cast(),
            data.len() as i32,
            theirs.as_mut_ptr().cast(),
            theirs.len() as i32,
        )
    };
    assert!(m > 0, "C-Blosc2 compresses");
    let mut back = vec![0u8; data.len()];
    chunk::decompress(&DParams::default(), &theirs[..m as usize], &mut back, None)
        .expect("b2rs decompresses C-Blosc2's chunk");
    assert_eq!(back, data);
    // SAFETY: after the last C-Blosc2 call.
    unsafe { blosc2_destroy() };
    println!("C-Blosc2 {version} and the b2rs core in one process: {n} and {m} bytes, both read back");
}
