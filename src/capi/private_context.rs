//! C-Blosc2 3.3's *private* `struct blosc2_context_s`, the part tuners read and write at fixed
//! offsets: a b2rs context starts with it (see `tuner.rs` and `context.rs`).

use crate::params::{CParams, SplitMode};
use core::ffi::{c_int, c_void};
use core::mem::offset_of;

/// C-Blosc2 3.3's private context, the part a tuner may touch (offsets of
/// `../shared/abi/context-layout-ref.tsv`, checked below); the other fields are never read by
/// b2rs and stay zero.
#[repr(C)]
pub struct PrivateContext {
    pub(crate) src: *const u8,
    pub(crate) dest: *mut u8,
    header_flags: [u8; 3],
    pub(crate) sourcesize: i32,
    header_overhead: i32,
    nblocks: i32,
    leftover: i32,
    pub(crate) blocksize: i32,
    header_blocksize: i32,
    pub(crate) splitmode: i32,
    output_bytes: i32,
    pub(crate) srcsize: i32,
    pub(crate) destsize: i32,
    pub(crate) typesize: i32,
    block_arrays: [*mut c_void; 6],
    special_type: i32,
    pub(crate) compcode: c_int,
    pub(crate) compcode_meta: u8,
    pub(crate) clevel: c_int,
    use_dict: c_int,
    dict: [*mut c_void; 4],
    filter_flags: u8,
    pub(crate) filters: [u8; 6],
    pub(crate) filters_meta: [u8; 6],
    urfilters: [u64; 80],
    prefilter: *mut c_void,
    postfilter: *mut c_void,
    preparams: *mut c_void,
    postparams: *mut c_void,
    /// Freed with `free()` with the context when not NULL, as C-Blosc2 does (BTune 1.2.1, built
    /// for the 2.19 layout, leaves its state here).
    pub(crate) block_maskout: *mut bool,
    block_maskout_nitems: c_int,
    pub(crate) schunk: *mut c_void,
    serial_context: *mut c_void,
    pub(crate) do_compress: c_int,
    pub(crate) tuner_params: *mut c_void,
    pub(crate) tuner_id: c_int,
    pub(crate) codec_params: *mut c_void,
    pub(crate) filter_params: [*mut c_void; 6],
    pub(crate) nthreads: i16,
    pub(crate) new_nthreads: i16,
    thread_backend: i16,
    threads_started: i16,
    reserved: [u64; 46],
}

// The offsets C-Blosc2 3.3.5 compiles into its tuners (context-layout-ref.tsv).
const _: () = {
    assert!(core::mem::size_of::<PrivateContext>() == 1344);
    assert!(offset_of!(PrivateContext, sourcesize) == 20);
    assert!(offset_of!(PrivateContext, blocksize) == 36);
    assert!(offset_of!(PrivateContext, splitmode) == 44);
    assert!(offset_of!(PrivateContext, srcsize) == 52);
    assert!(offset_of!(PrivateContext, destsize) == 56);
    assert!(offset_of!(PrivateContext, typesize) == 60);
    assert!(offset_of!(PrivateContext, special_type) == 112);
    assert!(offset_of!(PrivateContext, compcode) == 116);
    assert!(offset_of!(PrivateContext, compcode_meta) == 120);
    assert!(offset_of!(PrivateContext, clevel) == 124);
    assert!(offset_of!(PrivateContext, use_dict) == 128);
    assert!(offset_of!(PrivateContext, filter_flags) == 168);
    assert!(offset_of!(PrivateContext, filters) == 169);
    assert!(offset_of!(PrivateContext, filters_meta) == 175);
    assert!(offset_of!(PrivateContext, urfilters) == 184);
    assert!(offset_of!(PrivateContext, prefilter) == 824);
    assert!(offset_of!(PrivateContext, postfilter) == 832);
    assert!(offset_of!(PrivateContext, block_maskout) == 856);
    assert!(offset_of!(PrivateContext, schunk) == 872);
    assert!(offset_of!(PrivateContext, do_compress) == 888);
    assert!(offset_of!(PrivateContext, tuner_params) == 896);
    assert!(offset_of!(PrivateContext, tuner_id) == 904);
    assert!(offset_of!(PrivateContext, codec_params) == 912);
    assert!(offset_of!(PrivateContext, filter_params) == 920);
    assert!(offset_of!(PrivateContext, nthreads) == 968);
    assert!(offset_of!(PrivateContext, new_nthreads) == 970);
    assert!(offset_of!(PrivateContext, reserved) == 976);
};

impl PrivateContext {
    /// All fields zero / NULL.
    pub(crate) const ZEROED: PrivateContext = PrivateContext {
        src: core::ptr::null(),
        dest: core::ptr::null_mut(),
        header_flags: [0; 3],
        sourcesize: 0,
        header_overhead: 0,
        nblocks: 0,
        leftover: 0,
        blocksize: 0,
        header_blocksize: 0,
        splitmode: 0,
        output_bytes: 0,
        srcsize: 0,
        destsize: 0,
        typesize: 0,
        block_arrays: [core::ptr::null_mut(); 6],
        special_type: 0,
        compcode: 0,
        compcode_meta: 0,
        clevel: 0,
        use_dict: 0,
        dict: [core::ptr::null_mut(); 4],
        filter_flags: 0,
        filters: [0; 6],
        filters_meta: [0; 6],
        urfilters: [0; 80],
        prefilter: core::ptr::null_mut(),
        postfilter: core::ptr::null_mut(),
        preparams: core::ptr::null_mut(),
        postparams: core::ptr::null_mut(),
        block_maskout: core::ptr::null_mut(),
        block_maskout_nitems: 0,
        schunk: core::ptr::null_mut(),
        serial_context: core::ptr::null_mut(),
        do_compress: 0,
        tuner_params: core::ptr::null_mut(),
        tuner_id: 0,
        codec_params: core::ptr::null_mut(),
        filter_params: [core::ptr::null_mut(); 6],
        nthreads: 0,
        new_nthreads: 0,
        thread_backend: 0,
        threads_started: 0,
        reserved: [0; 46],
    };

    /// Write the compression parameters `p` into the fields a tuner reads.
    pub(crate) fn set_cparams(&mut self, p: &CParams) {
        self.do_compress = 1;
        self.typesize = p.typesize;
        self.compcode = p.compcode as c_int;
        self.compcode_meta = p.compcode_meta;
        self.clevel = p.clevel as c_int;
        self.use_dict = p.use_dict as c_int;
        self.blocksize = p.blocksize;
        self.splitmode = p.splitmode as i32;
        self.filters = p.filters;
        self.filters_meta = p.filters_meta;
        self.nthreads = p.nthreads;
        self.new_nthreads = p.nthreads;
    }

    /// Forget the buffers of the chunk just compressed (so that no later tuner call sees them
    /// dangling).
    pub(crate) fn clear_buffers(&mut self) {
        self.src = core::ptr::null();
        self.dest = core::ptr::null_mut();
    }

    /// Take back what a tuner may have changed into `p` (values C-Blosc2 would refuse when
    /// compressing are kept refusable: a codec id out of range becomes 255, a clevel past 255
    /// becomes 255, both refused by the compression that follows).
    pub(crate) fn get_cparams(&mut self, p: &mut CParams) {
        p.typesize = self.typesize;
        p.compcode = u8::try_from(self.compcode).unwrap_or(u8::MAX);
        p.compcode_meta = self.compcode_meta;
        p.clevel = u8::try_from(self.clevel).unwrap_or(u8::MAX);
        p.blocksize = self.blocksize;
        p.splitmode = SplitMode::from_i32(self.splitmode);
        p.filters = self.filters;
        p.filters_meta = self.filters_meta;
        if self.new_nthreads > 0 {
            // applied to the compression that follows, as C-Blosc2 does
            p.nthreads = self.new_nthreads;
            self.nthreads = self.new_nthreads;
        }
    }
}
