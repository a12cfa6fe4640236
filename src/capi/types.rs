//! `#[repr(C)]` mirrors of every public struct and callback typedef of the C-Blosc2 3.3 headers.
//!
//! Names are the C names, so that cbindgen (run by `build.rs`) prints the same declarations as the
//! reference headers; `tests` below checks every size and field offset against
//! `shared/abi/layout-ref.tsv`. Layout and comments derived from C-Blosc2 (BSD-3-Clause),
//! Copyright (c) 2021 Blosc Development Team.
//!
//! # Opaque types
//! The C headers only forward-declare three structs; their typedefs are hand-written in
//! `include-parts/*.h` and `build.rs` keeps cbindgen from printing the Rust definitions:
//! * `blosc2_context` = `struct blosc2_context_s`: an opaque struct here; the context itself is
//!   `context::Context`, at the address C holds; cbindgen must not emit it.
//! * `blosc2_frame` = `struct blosc2_frame_s`: an opaque struct here (no Rust value ever lives
//!   at a `blosc2_frame*`, which only tells C that a super-chunk has a frame); cbindgen must not
//!   emit it.
//! * `b2nd_context_t` = `struct b2nd_context_s`: defined (with `pub type b2nd_context_t =
//!   b2nd_context_s;`) in the b2nd C-layer module; not needed here.
//!
//! In exported signatures use the typedef names (`*mut blosc2_context`, `*mut b2nd_context_t`);
//! `build.rs` also renames the `_s` names to them, so either spelling prints correctly.
//!
//! # `bool` fields
//! C `bool` fields are [`c_bool`] (a `u8`, printed as `bool` in the headers): C callers may leave
//! them uninitialised or store any byte, and reading a Rust `bool` that is not 0 or 1 is undefined
//! behaviour. Test with `!= 0`; store `0`/`1` (or `b as c_bool`).
//!
//! # Defaults
//! `BLOSC2_CPARAMS_DEFAULTS`, `BLOSC2_DPARAMS_DEFAULTS`, `BLOSC2_STORAGE_DEFAULTS`,
//! `BLOSC2_IO_DEFAULTS`, `BLOSC2_STDIO_PARAMS_DEFAULTS` and `BLOSC2_STDIO_MMAP_DEFAULTS` mirror the
//! `static const` structs of the headers field by field; the same structs implement `Default` with
//! those values. The other structs implement `Default` as all-zero / all-NULL.

#![allow(non_camel_case_types)]

use core::ffi::{c_char, c_int, c_void};
use core::ptr;

use super::consts::*;

mod zeroed;

/// The opaque context behind `blosc2_context` (C: `struct blosc2_context_s`): the C layer's
/// `context::Context` lives at that address (C code only holds the pointer).
#[repr(C)]
pub struct blosc2_context_s {
    _private: [u8; 0],
}

/// The opaque frame behind `blosc2_frame` (C: `struct blosc2_frame_s`).
pub struct blosc2_frame_s {
    _private: (),
}

/// A C `bool` as stored in a struct: one byte, 0 is false, anything else true.
pub type c_bool = u8;

/// Opaque compression/decompression context (`typedef struct blosc2_context_s blosc2_context;`).
pub type blosc2_context = blosc2_context_s;

/// Opaque frame (`typedef struct blosc2_frame_s blosc2_frame;`).
pub type blosc2_frame = blosc2_frame_s;

/// `typedef struct timespec blosc_timestamp_t;` (non-Windows). Hand-written in the header.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct blosc_timestamp_t {
    pub tv_sec: libc::time_t,
    pub tv_nsec: libc::c_long,
}

/// Struct for storing data from instrumentation of codecs.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct blosc2_instr {
    pub cratio: f32,
    pub cspeed: f32,
    pub filter_speed: f32,
    pub flags: [u8; 4],
}

/// Threads callback: runs `dojob(jobdata + i * jobdata_elsize)` for `i` in `0..numjobs`.
pub type blosc_threads_callback = Option<
    unsafe extern "C" fn(
        callback_data: *mut c_void,
        dojob: Option<unsafe extern "C" fn(arg1: *mut c_void)>,
        numjobs: c_int,
        jobdata_elsize: usize,
        jobdata: *mut c_void,
    ),
>;

// ---------------------------------------------------------------------------------------------
// I/O
// ---------------------------------------------------------------------------------------------

pub type blosc2_open_cb = Option<
    unsafe extern "C" fn(
        urlpath: *const c_char,
        mode: *const c_char,
        params: *mut c_void,
    ) -> *mut c_void,
>;
pub type blosc2_close_cb = Option<unsafe extern "C" fn(stream: *mut c_void) -> c_int>;
pub type blosc2_size_cb = Option<unsafe extern "C" fn(stream: *mut c_void) -> i64>;
pub type blosc2_write_cb = Option<
    unsafe extern "C" fn(
        ptr: *const c_void,
        size: i64,
        nitems: i64,
        position: i64,
        stream: *mut c_void,
    ) -> i64,
>;
pub type blosc2_read_cb = Option<
    unsafe extern "C" fn(
        ptr: *mut *mut c_void,
        size: i64,
        nitems: i64,
        position: i64,
        stream: *mut c_void,
    ) -> i64,
>;
pub type blosc2_truncate_cb = Option<unsafe extern "C" fn(stream: *mut c_void, size: i64) -> c_int>;
pub type blosc2_destroy_cb = Option<unsafe extern "C" fn(params: *mut c_void) -> c_int>;

/// A user-defined I/O backend.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct blosc2_io_cb {
    /// The IO identifier.
    pub id: u8,
    /// The IO name.
    pub name: *mut c_char,
    /// If true, the caller needs to allocate data for the read function (ptr argument). If false,
    /// the read function takes care of memory allocation and stores the address in `*ptr`.
    pub is_allocation_necessary: c_bool,
    /// The IO open callback.
    pub open: blosc2_open_cb,
    /// The IO close callback.
    pub close: blosc2_close_cb,
    /// The IO size callback.
    pub size: blosc2_size_cb,
    /// The IO write callback.
    pub write: blosc2_write_cb,
    /// The IO read callback.
    pub read: blosc2_read_cb,
    /// The IO truncate callback.
    pub truncate: blosc2_truncate_cb,
    /// The IO destroy callback (called in the end when finished with the schunk).
    pub destroy: blosc2_destroy_cb,
}

/// Input/output backend selection.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct blosc2_io {
    pub id: u8,
    /// The IO identifier.
    pub name: *const c_char,
    /// The IO parameters.
    pub params: *mut c_void,
}

// ---------------------------------------------------------------------------------------------
// Tuners, prefilters, postfilters
// ---------------------------------------------------------------------------------------------

/// A tuner.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct blosc2_tuner {
    /// Initialize tuner. Keep in mind dctx may be NULL. This should memcpy the cctx->tuner_params.
    pub init: Option<
        unsafe extern "C" fn(
            config: *mut c_void,
            cctx: *mut blosc2_context,
            dctx: *mut blosc2_context,
        ) -> c_int,
    >,
    /// Only compute the next blocksize. Only it is executed if tuner is not initialized.
    pub next_blocksize: Option<unsafe extern "C" fn(context: *mut blosc2_context) -> c_int>,
    /// Compute the next cparams. Only is executed if tuner is initialized.
    pub next_cparams: Option<unsafe extern "C" fn(context: *mut blosc2_context) -> c_int>,
    /// Update the tuner parameters.
    pub update: Option<unsafe extern "C" fn(context: *mut blosc2_context, ctime: f64) -> c_int>,
    /// Free the tuner.
    pub free: Option<unsafe extern "C" fn(context: *mut blosc2_context) -> c_int>,
    /// The tuner id.
    pub id: c_int,
    /// The tuner name.
    pub name: *mut c_char,
}

/// The parameters for a prefilter function.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct blosc2_prefilter_params {
    /// User-provided info (optional).
    pub user_data: *mut c_void,
    /// The input buffer.
    pub input: *const u8,
    /// The output buffer.
    pub output: *mut u8,
    /// The output size (in bytes).
    pub output_size: i32,
    /// The output typesize.
    pub output_typesize: i32,
    /// Offset to reach the start of the output buffer.
    pub output_offset: i32,
    /// The current nchunk in associated schunk (if exists; if not -1).
    pub nchunk: i64,
    /// The current nblock in associated chunk.
    pub nblock: i32,
    /// Thread id.
    pub tid: i32,
    /// A temporary that is able to hold several blocks for the output and is private for each thread.
    pub ttmp: *mut u8,
    /// The size of the temporary in bytes.
    pub ttmp_nbytes: usize,
    /// The compression context.
    pub ctx: *mut blosc2_context,
    /// Whether the output buffer is disposable.
    pub output_is_disposable: c_bool,
}

/// The parameters for a postfilter function.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct blosc2_postfilter_params {
    /// User-provided info (optional).
    pub user_data: *mut c_void,
    /// The input buffer.
    pub input: *const u8,
    /// The output buffer.
    pub output: *mut u8,
    /// The input size (in bytes).
    pub size: i32,
    /// The input typesize.
    pub typesize: i32,
    /// Offset to reach the start of the input buffer.
    pub offset: i32,
    /// The current nchunk in associated schunk (if exists; if not -1).
    pub nchunk: i64,
    /// The current nblock in associated chunk.
    pub nblock: i32,
    /// Thread id.
    pub tid: i32,
    /// A temporary that is able to hold several blocks for the output and is private for each thread.
    pub ttmp: *mut u8,
    /// The size of the temporary in bytes.
    pub ttmp_nbytes: usize,
    /// The decompression context.
    pub ctx: *mut blosc2_context,
}

/// The type of the prefilter function.
pub type blosc2_prefilter_fn =
    Option<unsafe extern "C" fn(params: *mut blosc2_prefilter_params) -> c_int>;

/// The type of the postfilter function.
pub type blosc2_postfilter_fn =
    Option<unsafe extern "C" fn(params: *mut blosc2_postfilter_params) -> c_int>;

// ---------------------------------------------------------------------------------------------
// Compression / decompression parameters, storage
// ---------------------------------------------------------------------------------------------

/// The parameters for creating a context for compression purposes.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct blosc2_cparams {
    /// The compressor codec.
    pub compcode: u8,
    /// The metadata for the compressor codec.
    pub compcode_meta: u8,
    /// The compression level (5).
    pub clevel: u8,
    /// Use dicts or not when compressing. Only ZSTD and LZ4/LZ4HC support this.
    pub use_dict: c_int,
    /// The type size (8).
    pub typesize: i32,
    /// The number of threads to use internally (1).
    pub nthreads: i16,
    /// The requested size of the compressed blocks (0 means automatic).
    pub blocksize: i32,
    /// Whether the blocks should be split or not.
    pub splitmode: i32,
    /// The associated schunk, if any (NULL).
    pub schunk: *mut c_void,
    /// The (sequence of) filters.
    pub filters: [u8; BLOSC2_MAX_FILTERS as usize],
    /// The metadata for filters.
    pub filters_meta: [u8; BLOSC2_MAX_FILTERS as usize],
    /// The prefilter function.
    pub prefilter: blosc2_prefilter_fn,
    /// The prefilter parameters.
    pub preparams: *mut blosc2_prefilter_params,
    /// Tune configuration.
    pub tuner_params: *mut c_void,
    /// The tuner id.
    pub tuner_id: c_int,
    /// Whether the codec is instrumented or not.
    pub instr_codec: c_bool,
    /// User defined parameters for the codec.
    pub codec_params: *mut c_void,
    /// User defined parameters for the filters.
    pub filter_params: [*mut c_void; BLOSC2_MAX_FILTERS as usize],
}

/// The parameters for creating a context for decompression purposes.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct blosc2_dparams {
    /// The number of threads to use internally (1).
    pub nthreads: i16,
    /// The associated schunk, if any (NULL).
    pub schunk: *mut c_void,
    /// The postfilter function.
    pub postfilter: blosc2_postfilter_fn,
    /// The postfilter parameters.
    pub postparams: *mut blosc2_postfilter_params,
    /// The type size (8).
    pub typesize: i32,
}

/// This struct is meant for holding storage parameters for a blosc2 container.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct blosc2_storage {
    /// Whether the chunks are contiguous or sparse.
    pub contiguous: c_bool,
    /// The path for persistent storage. If NULL, that means in-memory.
    pub urlpath: *mut c_char,
    /// The compression params when creating a schunk. If NULL, sensible defaults are used.
    pub cparams: *mut blosc2_cparams,
    /// The decompression params when creating a schunk. If NULL, sensible defaults are used.
    pub dparams: *mut blosc2_dparams,
    /// Input/output backend.
    pub io: *mut blosc2_io,
}

// ---------------------------------------------------------------------------------------------
// Metalayers and super-chunks
// ---------------------------------------------------------------------------------------------

/// This struct is meant to store metadata information inside a blosc2_schunk.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct blosc2_metalayer {
    /// The metalayer identifier for Blosc client (e.g. Blosc2 NDim).
    pub name: *mut c_char,
    /// The serialized (msgpack preferably) content of the metalayer.
    pub content: *mut u8,
    /// The length in bytes of the content.
    pub content_len: i32,
}

/// This struct is the standard container for Blosc 2 compressed data.
///
/// 65840 bytes on LP64 because of the inline `vlmetalayers` array. Header-inline C functions
/// (`blosc2_meta_exists`, `blosc2_meta_get`) read `nmetalayers` and `metalayers` directly.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct blosc2_schunk {
    pub version: u8,
    /// The default compressor. Each chunk can override this.
    pub compcode: u8,
    /// The default compressor metadata. Each chunk can override this.
    pub compcode_meta: u8,
    /// The compression level and other compress params.
    pub clevel: u8,
    /// The split mode.
    pub splitmode: u8,
    /// The type size.
    pub typesize: i32,
    /// The requested size of the compressed blocks (0; meaning automatic).
    pub blocksize: i32,
    /// Size of each chunk. 0 if not a fixed chunksize.
    pub chunksize: i32,
    /// Secondary chunk-format flags shared by all chunks in the schunk. 0 when empty.
    pub flags2: u8,
    /// Whether to use a dictionary for codec compression (1) or not (0).
    pub use_dict: u8,
    /// The (sequence of) filters. 8-bit per filter.
    pub filters: [u8; BLOSC2_MAX_FILTERS as usize],
    /// Metadata for filters. 8-bit per meta-slot.
    pub filters_meta: [u8; BLOSC2_MAX_FILTERS as usize],
    /// Number of chunks in super-chunk.
    pub nchunks: i64,
    /// The current chunk that is being accessed.
    pub current_nchunk: i64,
    /// The data size (uncompressed).
    pub nbytes: i64,
    /// The data size + chunks header size (compressed).
    pub cbytes: i64,
    /// Pointer to chunk data pointers buffer.
    pub data: *mut *mut u8,
    /// Length of the chunk data pointers buffer.
    pub data_len: usize,
    /// Pointer to storage info.
    pub storage: *mut blosc2_storage,
    /// Pointer to frame used as store for chunks.
    pub frame: *mut blosc2_frame,
    /// Context for compression.
    pub cctx: *mut blosc2_context,
    /// Context for decompression.
    pub dctx: *mut blosc2_context,
    /// The array of metalayers.
    pub metalayers: [*mut blosc2_metalayer; BLOSC2_MAX_METALAYERS as usize],
    /// The number of metalayers in the super-chunk.
    pub nmetalayers: u16,
    /// The array of variable-length metalayers.
    pub vlmetalayers: [*mut blosc2_metalayer; BLOSC2_MAX_VLMETALAYERS as usize],
    /// The number of variable-length metalayers.
    pub nvlmetalayers: i16,
    /// Tune configuration.
    pub tuner_params: *mut c_void,
    /// Id for tuner.
    pub tuner_id: c_int,
    /// The ndim (mainly for ZFP usage).
    pub ndim: i8,
    /// The blockshape (mainly for ZFP usage).
    pub blockshape: *mut i64,
    /// Whether the schunk is a view or not.
    pub view: c_bool,
    /// Bumped whenever the (vl)metalayers change, locally or through another handle on the same
    /// on-disk frame.
    pub change_tick: i64,
}

// ---------------------------------------------------------------------------------------------
// User-defined codecs and filters
// ---------------------------------------------------------------------------------------------

pub type blosc2_codec_encoder_cb = Option<
    unsafe extern "C" fn(
        input: *const u8,
        input_len: i32,
        output: *mut u8,
        output_len: i32,
        meta: u8,
        cparams: *mut blosc2_cparams,
        chunk: *const c_void,
    ) -> c_int,
>;
pub type blosc2_codec_decoder_cb = Option<
    unsafe extern "C" fn(
        input: *const u8,
        input_len: i32,
        output: *mut u8,
        output_len: i32,
        meta: u8,
        dparams: *mut blosc2_dparams,
        chunk: *const c_void,
    ) -> c_int,
>;

/// A user-defined codec.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct blosc2_codec {
    /// The codec identifier.
    pub compcode: u8,
    /// The codec name.
    pub compname: *mut c_char,
    /// The codec library format.
    pub complib: u8,
    /// The codec version.
    pub version: u8,
    /// The codec encoder that is used during compression.
    pub encoder: blosc2_codec_encoder_cb,
    /// The codec decoder that is used during decompression.
    pub decoder: blosc2_codec_decoder_cb,
}

pub type blosc2_filter_forward_cb = Option<
    unsafe extern "C" fn(
        src: *const u8,
        dest: *mut u8,
        size: i32,
        meta: u8,
        cparams: *mut blosc2_cparams,
        id: u8,
    ) -> c_int,
>;
pub type blosc2_filter_backward_cb = Option<
    unsafe extern "C" fn(
        src: *const u8,
        dest: *mut u8,
        size: i32,
        meta: u8,
        dparams: *mut blosc2_dparams,
        id: u8,
    ) -> c_int,
>;

/// The parameters for a user-defined filter.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct blosc2_filter {
    /// The filter identifier.
    pub id: u8,
    /// The filter name.
    pub name: *mut c_char,
    /// The filter version.
    pub version: u8,
    /// The filter function that is used during compression.
    pub forward: blosc2_filter_forward_cb,
    /// The filter function that is used during decompression.
    pub backward: blosc2_filter_backward_cb,
}

// ---------------------------------------------------------------------------------------------
// blosc2/blosc2-stdio.h
// ---------------------------------------------------------------------------------------------

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct blosc2_stdio_file {
    pub file: *mut libc::FILE,
}

/// Parameters for the default filesystem I/O (BLOSC2_IO_FILESYSTEM).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct blosc2_stdio_params {
    /// Serialize accesses to a disk-based frame against other handles and other processes, via a
    /// sidecar lock file next to the frame (advisory locking).
    pub locking: c_bool,
}

/// Parameters for memory-mapped I/O.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct blosc2_stdio_mmap {
    /// The opening mode of the memory-mapped file (r, r+, w+ or c).
    pub mode: *const c_char,
    /// The initial size of the memory mapping used as a large enough write buffer for the r+, w+
    /// and c modes.
    pub initial_mapping_size: usize,
    /// Whether this object should be freed in the blosc2_destroy_cb callback.
    pub needs_free: c_bool,
    /// The starting address of the mapping.
    pub addr: *mut c_char,
    /// The path to the file which is associated with this object.
    pub urlpath: *mut c_char,
    /// The size of the file.
    pub file_size: usize,
    /// The size of the mapping (mapping_size >= file_size).
    pub mapping_size: usize,
    /// Whether the mapping is only in-memory and changes are not reflected to the file (c mode).
    pub is_memory_only: c_bool,
    /// The underlying file handle.
    pub file: *mut libc::FILE,
    /// The underlying file descriptor.
    pub fd: c_int,
    /// The access attributes for the memory pages.
    pub access_flags: i64,
    /// The attributes of the mapping.
    pub map_flags: i64,
    // C-Blosc2 has one more field on Windows (`HANDLE mmap_handle`); b2rs is built for Unix only.
}

// ---------------------------------------------------------------------------------------------
// b2nd.h
// ---------------------------------------------------------------------------------------------

/// A one-chunk cache of a b2nd array (C: `struct chunk_cache_s`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct chunk_cache_s {
    /// The chunk data.
    pub data: *mut u8,
    /// The chunk number in cache. If nchunk equals to -1, it means that the cache is empty.
    pub nchunk: i64,
}

/// A multidimensional array of data that can be compressed.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct b2nd_array_t {
    /// Pointer to a Blosc super-chunk.
    pub sc: *mut blosc2_schunk,
    /// Shape of original data.
    pub shape: [i64; B2ND_MAX_DIM as usize],
    /// Shape of each chunk.
    pub chunkshape: [i32; B2ND_MAX_DIM as usize],
    /// Shape of padded data.
    pub extshape: [i64; B2ND_MAX_DIM as usize],
    /// Shape of each block.
    pub blockshape: [i32; B2ND_MAX_DIM as usize],
    /// Shape of padded chunk.
    pub extchunkshape: [i64; B2ND_MAX_DIM as usize],
    /// Number of items in original data.
    pub nitems: i64,
    /// Number of items in each chunk.
    pub chunknitems: i32,
    /// Number of items in padded data.
    pub extnitems: i64,
    /// Number of items in each block.
    pub blocknitems: i32,
    /// Number of items in a padded chunk.
    pub extchunknitems: i64,
    /// Data dimensions.
    pub ndim: i8,
    /// A partition cache.
    pub chunk_cache: chunk_cache_s,
    /// Item - shape strides.
    pub item_array_strides: [i64; B2ND_MAX_DIM as usize],
    /// Item - shape strides.
    pub item_chunk_strides: [i64; B2ND_MAX_DIM as usize],
    /// Item - shape strides.
    pub item_extchunk_strides: [i64; B2ND_MAX_DIM as usize],
    /// Item - shape strides.
    pub item_block_strides: [i64; B2ND_MAX_DIM as usize],
    /// Item - shape strides.
    pub block_chunk_strides: [i64; B2ND_MAX_DIM as usize],
    /// Item - shape strides.
    pub chunk_array_strides: [i64; B2ND_MAX_DIM as usize],
    /// Data type. Different formats can be supported (see dtype_format).
    pub dtype: *mut c_char,
    /// The format of the data type. Default is DTYPE_NUMPY_FORMAT.
    pub dtype_format: i8,
    /// The schunk change_tick this struct was last synced with (see blosc2_schunk).
    pub last_tick: i64,
}

// ---------------------------------------------------------------------------------------------
// blosc2/codecs-registry.h, filters-registry.h, tuners-registry.h
// ---------------------------------------------------------------------------------------------

/// Symbol names of a dynamically loaded codec plugin.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct codec_info {
    pub encoder: *mut c_char,
    pub decoder: *mut c_char,
}

/// Symbol names of a dynamically loaded filter plugin.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct filter_info {
    pub forward: *mut c_char,
    pub backward: *mut c_char,
}

/// Symbol names of a dynamically loaded tuner plugin.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct tuner_info {
    pub init: *mut c_char,
    pub next_blocksize: *mut c_char,
    pub next_cparams: *mut c_char,
    pub update: *mut c_char,
    pub free: *mut c_char,
}

// ---------------------------------------------------------------------------------------------
// b2rs additions (include/b2rs.h): Bloscpack files
// ---------------------------------------------------------------------------------------------

/// How `b2rs_bloscpack_pack_*` write a Bloscpack file (`B2RS_BLOSCPACK_PARAMS_DEFAULTS` holds
/// bloscpack's defaults).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct b2rs_bloscpack_params {
    /// Uncompressed bytes per chunk (default 1 MiB); reduced to the input size when larger.
    pub chunk_size: i32,
    /// Checksum of every chunk, a `B2RS_BLOSCPACK_CHECKSUM_*` id (default Adler-32).
    pub checksum: u8,
    /// Write an offsets table (default true; needed for appending).
    pub offsets: c_bool,
    /// Checksum of the metadata, a `B2RS_BLOSCPACK_CHECKSUM_*` id (default Adler-32).
    pub meta_checksum: u8,
    /// Codec of the metadata: `B2RS_BLOSCPACK_META_CODEC_ZLIB` (default; dropped when it does
    /// not help) or `B2RS_BLOSCPACK_META_CODEC_NONE`.
    pub meta_codec: u8,
    /// zlib level of the metadata, 0-9 (default 6).
    pub meta_level: u8,
    /// Offset slots reserved for appending; -1 (default) = 10 x the number of chunks.
    pub max_app_chunks: i64,
    /// Bytes reserved for the metadata; -1 (default) = 10 x its size.
    pub max_meta_size: i64,
    /// Blosc parameters of the chunks: compcode (BloscLZ, LZ4, LZ4HC, Zlib or Zstd), clevel,
    /// typesize (1-255), at most one filter (BLOSC_SHUFFLE or BLOSC_BITSHUFFLE), nthreads,
    /// blocksize. NULL (default) = bloscpack's: BloscLZ, clevel 7, shuffle, typesize 8.
    pub cparams: *const blosc2_cparams,
}

/// What `b2rs_bloscpack_get_info*` report about a Bloscpack file.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct b2rs_bloscpack_info {
    /// Format version (1, 2 or 3).
    pub format_version: u8,
    /// The file has an offsets table.
    pub offsets: c_bool,
    /// The file has a metadata section.
    pub metadata: c_bool,
    /// Checksum id of the chunks.
    pub checksum: u8,
    /// Blosc typesize of the chunks.
    pub typesize: u8,
    /// Checksum id of the metadata (0 without metadata).
    pub meta_checksum: u8,
    /// Codec id of the metadata (0 without metadata).
    pub meta_codec: u8,
    /// zlib level recorded for the metadata (0 without metadata).
    pub meta_level: u8,
    /// Uncompressed size of every chunk but the last; -1 = unknown.
    pub chunk_size: i32,
    /// Uncompressed size of the last chunk; -1 = unknown.
    pub last_chunk: i32,
    /// Number of chunks; -1 = unknown.
    pub nchunks: i64,
    /// Offset slots left for appending.
    pub max_app_chunks: i64,
    /// Total uncompressed size; -1 = unknown.
    pub nbytes: i64,
    /// Size of the serialized metadata (JSON text); -1 without metadata.
    pub meta_size: i64,
    /// Bytes reserved for the metadata; -1 without metadata.
    pub max_meta_size: i64,
}

/// `B2RS_BLOSCPACK_PARAMS_DEFAULTS`: bloscpack's defaults.
pub const B2RS_BLOSCPACK_PARAMS_DEFAULTS: b2rs_bloscpack_params = b2rs_bloscpack_params {
    chunk_size: 1 << 20,
    checksum: 1,
    offsets: 1,
    meta_checksum: 1,
    meta_codec: 1,
    meta_level: 6,
    max_app_chunks: -1,
    max_meta_size: -1,
    cparams: ptr::null(),
};

// ---------------------------------------------------------------------------------------------
// The `static const` defaults of the headers
// ---------------------------------------------------------------------------------------------

/// `BLOSC2_CPARAMS_DEFAULTS`: blosclz, clevel 5, typesize 8, 1 thread, automatic blocksize,
/// `BLOSC_FORWARD_COMPAT_SPLIT`, filters `{0,0,0,0,0,BLOSC_SHUFFLE}`.
pub const BLOSC2_CPARAMS_DEFAULTS: blosc2_cparams = blosc2_cparams {
    compcode: BLOSC_BLOSCLZ as u8,
    compcode_meta: 0,
    clevel: 5,
    use_dict: 0,
    typesize: 8,
    nthreads: 1,
    blocksize: 0,
    splitmode: BLOSC_FORWARD_COMPAT_SPLIT,
    schunk: ptr::null_mut(),
    filters: [0, 0, 0, 0, 0, BLOSC_SHUFFLE as u8],
    filters_meta: [0; BLOSC2_MAX_FILTERS as usize],
    prefilter: None,
    preparams: ptr::null_mut(),
    tuner_params: ptr::null_mut(),
    tuner_id: 0,
    instr_codec: 0,
    codec_params: ptr::null_mut(),
    filter_params: [ptr::null_mut(); BLOSC2_MAX_FILTERS as usize],
};

/// `BLOSC2_DPARAMS_DEFAULTS`: 1 thread, no schunk, no postfilter, typesize 8.
pub const BLOSC2_DPARAMS_DEFAULTS: blosc2_dparams = blosc2_dparams {
    nthreads: 1,
    schunk: ptr::null_mut(),
    postfilter: None,
    postparams: ptr::null_mut(),
    typesize: 8,
};

/// `BLOSC2_STORAGE_DEFAULTS`: sparse, in memory, default cparams/dparams/io.
pub const BLOSC2_STORAGE_DEFAULTS: blosc2_storage = blosc2_storage {
    contiguous: 0,
    urlpath: ptr::null_mut(),
    cparams: ptr::null_mut(),
    dparams: ptr::null_mut(),
    io: ptr::null_mut(),
};

/// `BLOSC2_IO_DEFAULTS`: `{BLOSC2_IO_FILESYSTEM, "filesystem", NULL}`.
pub const BLOSC2_IO_DEFAULTS: blosc2_io = blosc2_io {
    id: BLOSC2_IO_FILESYSTEM as u8,
    name: c"filesystem".as_ptr(),
    params: ptr::null_mut(),
};

/// `BLOSC2_STDIO_PARAMS_DEFAULTS`: no locking.
pub const BLOSC2_STDIO_PARAMS_DEFAULTS: blosc2_stdio_params = blosc2_stdio_params { locking: 0 };

/// `BLOSC2_STDIO_MMAP_DEFAULTS`: `{"r", (size_t)1 << 30, false, NULL, NULL, 0, 0, false, NULL,
/// -1, -1, -1}`.
pub const BLOSC2_STDIO_MMAP_DEFAULTS: blosc2_stdio_mmap = blosc2_stdio_mmap {
    mode: c"r".as_ptr(),
    initial_mapping_size: 1 << 30,
    needs_free: 0,
    addr: ptr::null_mut(),
    urlpath: ptr::null_mut(),
    file_size: 0,
    mapping_size: 0,
    is_memory_only: 0,
    file: ptr::null_mut(),
    fd: -1,
    access_flags: -1,
    map_flags: -1,
};

macro_rules! default_from_const {
    ($($ty:ident => $value:expr;)*) => {$(
        impl Default for $ty {
            fn default() -> Self {
                $value
            }
        }
    )*};
}

default_from_const! {
    blosc2_cparams => BLOSC2_CPARAMS_DEFAULTS;
    blosc2_dparams => BLOSC2_DPARAMS_DEFAULTS;
    blosc2_storage => BLOSC2_STORAGE_DEFAULTS;
    blosc2_io => BLOSC2_IO_DEFAULTS;
    blosc2_stdio_params => BLOSC2_STDIO_PARAMS_DEFAULTS;
    blosc2_stdio_mmap => BLOSC2_STDIO_MMAP_DEFAULTS;
}

default_from_const! {
    blosc2_io_cb => Self::ZEROED;
    blosc2_tuner => Self::ZEROED;
    blosc2_prefilter_params => Self::ZEROED;
    blosc2_postfilter_params => Self::ZEROED;
    blosc2_metalayer => Self::ZEROED;
    blosc2_schunk => Self::ZEROED;
    blosc2_codec => Self::ZEROED;
    blosc2_filter => Self::ZEROED;
    blosc2_stdio_file => Self::ZEROED;
    chunk_cache_s => Self::ZEROED;
    b2nd_array_t => Self::ZEROED;
}

#[cfg(test)]
mod tests;
