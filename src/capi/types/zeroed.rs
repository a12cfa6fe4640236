//! Constructors and accessors of the C struct mirrors (defaults, views of their pointers) used
//! by the rest of the C layer; kept apart from `types.rs`, which cbindgen reads for the headers.

use super::*;

// All-zero / all-NULL values of the structs that have no header default.
impl blosc2_io_cb {
    pub const ZEROED: Self = Self {
        id: 0,
        name: ptr::null_mut(),
        is_allocation_necessary: 0,
        open: None,
        close: None,
        size: None,
        write: None,
        read: None,
        truncate: None,
        destroy: None,
    };
}

impl blosc2_tuner {
    pub const ZEROED: Self = Self {
        init: None,
        next_blocksize: None,
        next_cparams: None,
        update: None,
        free: None,
        id: 0,
        name: ptr::null_mut(),
    };
}

impl blosc2_prefilter_params {
    pub const ZEROED: Self = Self {
        user_data: ptr::null_mut(),
        input: ptr::null(),
        output: ptr::null_mut(),
        output_size: 0,
        output_typesize: 0,
        output_offset: 0,
        nchunk: 0,
        nblock: 0,
        tid: 0,
        ttmp: ptr::null_mut(),
        ttmp_nbytes: 0,
        ctx: ptr::null_mut(),
        output_is_disposable: 0,
    };
}

impl blosc2_postfilter_params {
    pub const ZEROED: Self = Self {
        user_data: ptr::null_mut(),
        input: ptr::null(),
        output: ptr::null_mut(),
        size: 0,
        typesize: 0,
        offset: 0,
        nchunk: 0,
        nblock: 0,
        tid: 0,
        ttmp: ptr::null_mut(),
        ttmp_nbytes: 0,
        ctx: ptr::null_mut(),
    };
}

impl blosc2_metalayer {
    pub const ZEROED: Self = Self {
        name: ptr::null_mut(),
        content: ptr::null_mut(),
        content_len: 0,
    };
}

impl blosc2_schunk {
    /// All fields zero / NULL (what C-Blosc2 gets from `calloc`). 65840 bytes: prefer building it
    /// in place (e.g. `Box::new(blosc2_schunk::ZEROED)` or C `calloc`) over moving it around.
    pub const ZEROED: Self = Self {
        version: 0,
        compcode: 0,
        compcode_meta: 0,
        clevel: 0,
        splitmode: 0,
        typesize: 0,
        blocksize: 0,
        chunksize: 0,
        flags2: 0,
        use_dict: 0,
        filters: [0; BLOSC2_MAX_FILTERS as usize],
        filters_meta: [0; BLOSC2_MAX_FILTERS as usize],
        nchunks: 0,
        current_nchunk: 0,
        nbytes: 0,
        cbytes: 0,
        data: ptr::null_mut(),
        data_len: 0,
        storage: ptr::null_mut(),
        frame: ptr::null_mut(),
        cctx: ptr::null_mut(),
        dctx: ptr::null_mut(),
        metalayers: [ptr::null_mut(); BLOSC2_MAX_METALAYERS as usize],
        nmetalayers: 0,
        vlmetalayers: [ptr::null_mut(); BLOSC2_MAX_VLMETALAYERS as usize],
        nvlmetalayers: 0,
        tuner_params: ptr::null_mut(),
        tuner_id: 0,
        ndim: 0,
        blockshape: ptr::null_mut(),
        view: 0,
        change_tick: 0,
    };
}

impl blosc2_codec {
    pub const ZEROED: Self = Self {
        compcode: 0,
        compname: ptr::null_mut(),
        complib: 0,
        version: 0,
        encoder: None,
        decoder: None,
    };
}

impl blosc2_filter {
    pub const ZEROED: Self = Self {
        id: 0,
        name: ptr::null_mut(),
        version: 0,
        forward: None,
        backward: None,
    };
}

impl blosc2_stdio_file {
    pub const ZEROED: Self = Self {
        file: ptr::null_mut(),
    };
}

impl chunk_cache_s {
    pub const ZEROED: Self = Self {
        data: ptr::null_mut(),
        nchunk: 0,
    };
}

impl b2nd_array_t {
    pub const ZEROED: Self = Self {
        sc: ptr::null_mut(),
        shape: [0; B2ND_MAX_DIM as usize],
        chunkshape: [0; B2ND_MAX_DIM as usize],
        extshape: [0; B2ND_MAX_DIM as usize],
        blockshape: [0; B2ND_MAX_DIM as usize],
        extchunkshape: [0; B2ND_MAX_DIM as usize],
        nitems: 0,
        chunknitems: 0,
        extnitems: 0,
        blocknitems: 0,
        extchunknitems: 0,
        ndim: 0,
        chunk_cache: chunk_cache_s::ZEROED,
        item_array_strides: [0; B2ND_MAX_DIM as usize],
        item_chunk_strides: [0; B2ND_MAX_DIM as usize],
        item_extchunk_strides: [0; B2ND_MAX_DIM as usize],
        item_block_strides: [0; B2ND_MAX_DIM as usize],
        block_chunk_strides: [0; B2ND_MAX_DIM as usize],
        chunk_array_strides: [0; B2ND_MAX_DIM as usize],
        dtype: ptr::null_mut(),
        dtype_format: 0,
        last_tick: 0,
    };
}
