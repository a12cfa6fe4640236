//! Every constant of the C-Blosc2 3.3 public headers, with the names and values of the reference.
//!
//! The reference declares most of them as anonymous `enum { ... }` members (C type `int`) and the
//! rest as `#define`s; both appear here as `c_int` constants, and the string `#define`s as `&CStr`
//! (use `.as_ptr()` for C, `.to_bytes()` / `.to_str()` for Rust). The generated headers do not take
//! these from here: the enum blocks and `#define`s are hand-written in `include-parts/*.h` (to keep
//! the reference's `#ifndef BLOSC_H` guards and enum-ness), and `tests/headers.rs` compiles a C
//! program that prints every constant through our headers (and through the reference headers when
//! `B2RS_REF_INCLUDE` is set) and compares the output with the values below.
//!
//! Values and grouping derived from C-Blosc2 (BSD-3-Clause), Copyright (c) 2021 Blosc Development Team.
//!
//! Array lengths in `types.rs` use `CONST as usize` casts (cbindgen prints the constant's name).

use core::ffi::{c_int, CStr};

// ---------------------------------------------------------------------------------------------
// blosc2.h: version numbers (#define)
// ---------------------------------------------------------------------------------------------

/// For major interface/format changes.
pub const BLOSC2_VERSION_MAJOR: c_int = 3;
/// For minor interface/format changes.
pub const BLOSC2_VERSION_MINOR: c_int = 3;
/// For tweaks, bug-fixes, or development.
pub const BLOSC2_VERSION_RELEASE: c_int = 5;
/// String version (sync with the three numbers above).
pub const BLOSC2_VERSION_STRING: &CStr = c"3.3.5";
/// Date version, exactly as in the reference header.
pub const BLOSC2_VERSION_DATE: &CStr = c"$Date:: 2026-09-24 #$";

// ---------------------------------------------------------------------------------------------
// blosc2.h: chunk format versions (1 byte)
// ---------------------------------------------------------------------------------------------

/// Blosc pre-1.0.
pub const BLOSC1_VERSION_FORMAT_PRE1: c_int = 1;
/// Blosc 1.x stable series.
pub const BLOSC1_VERSION_FORMAT: c_int = 2;
/// Blosc 2-alpha.x series.
pub const BLOSC2_VERSION_FORMAT_ALPHA: c_int = 3;
/// Blosc 2.x beta.1 series.
pub const BLOSC2_VERSION_FORMAT_BETA1: c_int = 4;
/// Blosc 2.x stable series.
pub const BLOSC2_VERSION_FORMAT_STABLE: c_int = 5;
/// Chunks with variable-length blocks.
pub const BLOSC2_VERSION_FORMAT_VL_BLOCKS: c_int = 6;
/// Highest chunk format version supported by this library.
pub const BLOSC2_VERSION_FORMAT: c_int = BLOSC2_VERSION_FORMAT_VL_BLOCKS;

// ---------------------------------------------------------------------------------------------
// blosc2.h: frame format versions (4 bits)
// ---------------------------------------------------------------------------------------------

/// For 2.0.0-beta2 and after.
pub const BLOSC2_VERSION_FRAME_FORMAT_BETA2: c_int = 1;
/// For 2.0.0-rc1 and after.
pub const BLOSC2_VERSION_FRAME_FORMAT_RC1: c_int = 2;
/// Frames with variable-length-block chunks.
pub const BLOSC2_VERSION_FRAME_FORMAT_VL_BLOCKS: c_int = 3;
/// Highest cframe format version supported by this library.
pub const BLOSC2_VERSION_FRAME_FORMAT: c_int = BLOSC2_VERSION_FRAME_FORMAT_VL_BLOCKS;

// ---------------------------------------------------------------------------------------------
// blosc2.h: header and buffer sizes
// ---------------------------------------------------------------------------------------------

/// Minimum header length (Blosc1).
pub const BLOSC_MIN_HEADER_LENGTH: c_int = 16;
/// Extended header length (Blosc2).
pub const BLOSC_EXTENDED_HEADER_LENGTH: c_int = 32;
/// The maximum overhead during compression in bytes.
pub const BLOSC2_MAX_OVERHEAD: c_int = BLOSC_EXTENDED_HEADER_LENGTH;
/// Maximum source buffer size to be compressed (`INT_MAX - BLOSC2_MAX_OVERHEAD`).
pub const BLOSC2_MAX_BUFFERSIZE: c_int = c_int::MAX - BLOSC2_MAX_OVERHEAD;
/// Maximum typesize before considering the source buffer as a stream of bytes (`UINT8_MAX`).
pub const BLOSC_MAX_TYPESIZE: c_int = u8::MAX as c_int;
/// Minimum buffer size to be compressed.
pub const BLOSC_MIN_BUFFERSIZE: c_int = 32;

// ---------------------------------------------------------------------------------------------
// blosc2.h: tuner id ranges and codes
// ---------------------------------------------------------------------------------------------

pub const BLOSC2_DEFINED_TUNER_START: c_int = 0;
/// Blosc-defined tuners must be between 0 - 31.
pub const BLOSC2_DEFINED_TUNER_STOP: c_int = 31;
pub const BLOSC2_GLOBAL_REGISTERED_TUNER_START: c_int = 32;
/// Blosc-registered tuners must be between 32 - 159.
pub const BLOSC2_GLOBAL_REGISTERED_TUNER_STOP: c_int = 159;
/// Number of Blosc-registered tuners at the moment.
pub const BLOSC2_GLOBAL_REGISTERED_TUNERS: c_int = 0;
pub const BLOSC2_USER_REGISTERED_TUNER_START: c_int = 160;
/// User-defined tuners must be between 160 - 255.
pub const BLOSC2_USER_REGISTERED_TUNER_STOP: c_int = 255;

/// The built-in tuner.
pub const BLOSC_STUNE: c_int = 0;
/// Determine the last tuner defined by Blosc.
pub const BLOSC_LAST_TUNER: c_int = 1;
/// Determine the last registered tuner (31: no tuner is globally registered).
pub const BLOSC_LAST_REGISTERED_TUNE: c_int =
    BLOSC2_GLOBAL_REGISTERED_TUNER_START + BLOSC2_GLOBAL_REGISTERED_TUNERS - 1;

// ---------------------------------------------------------------------------------------------
// blosc2.h: filter id ranges and codes
// ---------------------------------------------------------------------------------------------

pub const BLOSC2_DEFINED_FILTERS_START: c_int = 0;
/// Blosc-defined filters must be between 0 - 31.
pub const BLOSC2_DEFINED_FILTERS_STOP: c_int = 31;
pub const BLOSC2_GLOBAL_REGISTERED_FILTERS_START: c_int = 32;
/// Blosc-registered filters must be between 32 - 159.
pub const BLOSC2_GLOBAL_REGISTERED_FILTERS_STOP: c_int = 159;
/// Number of Blosc-registered filters at the moment.
pub const BLOSC2_GLOBAL_REGISTERED_FILTERS: c_int = 5;
pub const BLOSC2_USER_REGISTERED_FILTERS_START: c_int = 160;
/// User-defined filters must be between 160 - 255.
pub const BLOSC2_USER_REGISTERED_FILTERS_STOP: c_int = 255;
/// Maximum number of filters in the filter pipeline.
pub const BLOSC2_MAX_FILTERS: c_int = 6;
/// Maximum number of filters that a user can register.
pub const BLOSC2_MAX_UDFILTERS: c_int = 16;

/// No shuffle (for compatibility with Blosc1).
pub const BLOSC_NOSHUFFLE: c_int = 0;
/// No filter.
pub const BLOSC_NOFILTER: c_int = 0;
/// Byte-wise shuffle.
pub const BLOSC_SHUFFLE: c_int = 1;
/// Bit-wise shuffle.
pub const BLOSC_BITSHUFFLE: c_int = 2;
/// Delta filter (bitwise XOR relative to reference).
pub const BLOSC_DELTA: c_int = 3;
/// Truncate mantissa precision.
pub const BLOSC_TRUNC_PREC: c_int = 4;
/// Sentinel.
pub const BLOSC_LAST_FILTER: c_int = 5;
/// Determine the last registered filter.
pub const BLOSC_LAST_REGISTERED_FILTER: c_int =
    BLOSC2_GLOBAL_REGISTERED_FILTERS_START + BLOSC2_GLOBAL_REGISTERED_FILTERS - 1;

// ---------------------------------------------------------------------------------------------
// blosc2.h: chunk header flags
// ---------------------------------------------------------------------------------------------

/// Byte-wise shuffle.
pub const BLOSC_DOSHUFFLE: c_int = 0x1;
/// Plain copy.
pub const BLOSC_MEMCPYED: c_int = 0x2;
/// Bit-wise shuffle.
pub const BLOSC_DOBITSHUFFLE: c_int = 0x4;
/// Delta coding.
pub const BLOSC_DODELTA: c_int = 0x8;

/// Use dictionaries with codec.
pub const BLOSC2_USEDICT: c_int = 0x1;
/// Data is in big-endian ordering.
pub const BLOSC2_BIGENDIAN: c_int = 0x2;
/// Codec is instrumented (mainly for development).
pub const BLOSC2_INSTR_CODEC: c_int = 0x80;

/// Second flags byte: chunk uses variable-length blocks.
pub const BLOSC2_VL_BLOCKS: c_int = 0x1;

// ---------------------------------------------------------------------------------------------
// blosc2.h: capabilities
// ---------------------------------------------------------------------------------------------

/// Maximum size for compression dicts.
pub const BLOSC2_MAXDICTSIZE: c_int = 32 * 1024;
/// Minimum dict size considered useful.
pub const BLOSC2_MINUSEFULDICT: c_int = 256;
/// Maximum size for blocks.
pub const BLOSC2_MAXBLOCKSIZE: c_int = 536866816;
/// Maximum size for types.
pub const BLOSC2_MAXTYPESIZE: c_int = BLOSC2_MAXBLOCKSIZE;

// ---------------------------------------------------------------------------------------------
// blosc2.h: codec id ranges, codes, names, libraries, formats
// ---------------------------------------------------------------------------------------------

pub const BLOSC2_DEFINED_CODECS_START: c_int = 0;
/// Blosc-defined codecs must be between 0 - 31.
pub const BLOSC2_DEFINED_CODECS_STOP: c_int = 31;
pub const BLOSC2_GLOBAL_REGISTERED_CODECS_START: c_int = 32;
/// Blosc-registered codecs must be between 32 - 159.
pub const BLOSC2_GLOBAL_REGISTERED_CODECS_STOP: c_int = 159;
/// Number of Blosc-registered codecs at the moment.
pub const BLOSC2_GLOBAL_REGISTERED_CODECS: c_int = 5;
pub const BLOSC2_USER_REGISTERED_CODECS_START: c_int = 160;
/// User-defined codecs must be between 160 - 255.
pub const BLOSC2_USER_REGISTERED_CODECS_STOP: c_int = 255;

pub const BLOSC_BLOSCLZ: c_int = 0;
pub const BLOSC_LZ4: c_int = 1;
pub const BLOSC_LZ4HC: c_int = 2;
pub const BLOSC_ZLIB: c_int = 4;
pub const BLOSC_ZSTD: c_int = 5;
/// Determine the last codec defined by Blosc.
pub const BLOSC_LAST_CODEC: c_int = 6;
/// Determine the last registered codec.
pub const BLOSC_LAST_REGISTERED_CODEC: c_int =
    BLOSC2_GLOBAL_REGISTERED_CODECS_START + BLOSC2_GLOBAL_REGISTERED_CODECS - 1;

pub const BLOSC_BLOSCLZ_COMPNAME: &CStr = c"blosclz";
pub const BLOSC_LZ4_COMPNAME: &CStr = c"lz4";
pub const BLOSC_LZ4HC_COMPNAME: &CStr = c"lz4hc";
pub const BLOSC_ZLIB_COMPNAME: &CStr = c"zlib";
pub const BLOSC_ZSTD_COMPNAME: &CStr = c"zstd";

/// Codes for compression libraries shipped with Blosc (code must be < 8).
pub const BLOSC_BLOSCLZ_LIB: c_int = 0;
pub const BLOSC_LZ4_LIB: c_int = 1;
pub const BLOSC_ZLIB_LIB: c_int = 3;
pub const BLOSC_ZSTD_LIB: c_int = 4;
pub const BLOSC_UDCODEC_LIB: c_int = 6;
/// Compressor library in super-chunk header.
pub const BLOSC_SCHUNK_LIB: c_int = 7;

pub const BLOSC_BLOSCLZ_LIBNAME: &CStr = c"BloscLZ";
pub const BLOSC_LZ4_LIBNAME: &CStr = c"LZ4";
pub const BLOSC_ZLIB_LIBNAME: &CStr = c"Zlib";
pub const BLOSC_ZSTD_LIBNAME: &CStr = c"Zstd";

pub const BLOSC_BLOSCLZ_FORMAT: c_int = BLOSC_BLOSCLZ_LIB;
pub const BLOSC_LZ4_FORMAT: c_int = BLOSC_LZ4_LIB;
/// LZ4HC and LZ4 share the same format.
pub const BLOSC_LZ4HC_FORMAT: c_int = BLOSC_LZ4_LIB;
pub const BLOSC_ZLIB_FORMAT: c_int = BLOSC_ZLIB_LIB;
pub const BLOSC_ZSTD_FORMAT: c_int = BLOSC_ZSTD_LIB;
pub const BLOSC_UDCODEC_FORMAT: c_int = BLOSC_UDCODEC_LIB;

pub const BLOSC_BLOSCLZ_VERSION_FORMAT: c_int = 1;
pub const BLOSC_LZ4_VERSION_FORMAT: c_int = 1;
/// LZ4HC and LZ4 share the same format.
pub const BLOSC_LZ4HC_VERSION_FORMAT: c_int = 1;
pub const BLOSC_ZLIB_VERSION_FORMAT: c_int = 1;
pub const BLOSC_ZSTD_VERSION_FORMAT: c_int = 1;
pub const BLOSC_UDCODEC_VERSION_FORMAT: c_int = 1;

// ---------------------------------------------------------------------------------------------
// blosc2.h: split modes
// ---------------------------------------------------------------------------------------------

pub const BLOSC_ALWAYS_SPLIT: c_int = 1;
pub const BLOSC_NEVER_SPLIT: c_int = 2;
pub const BLOSC_AUTO_SPLIT: c_int = 3;
/// Best forward compatibility (default).
pub const BLOSC_FORWARD_COMPAT_SPLIT: c_int = 4;

// ---------------------------------------------------------------------------------------------
// blosc2.h: offsets of the fields of a Blosc2 chunk header
// ---------------------------------------------------------------------------------------------

/// The version for the chunk format.
pub const BLOSC2_CHUNK_VERSION: c_int = 0x0;
/// The version for the format of internal codec.
pub const BLOSC2_CHUNK_VERSIONLZ: c_int = 0x1;
/// Flags and codec info.
pub const BLOSC2_CHUNK_FLAGS: c_int = 0x2;
/// (uint8) the number of bytes of the atomic type.
pub const BLOSC2_CHUNK_TYPESIZE: c_int = 0x3;
/// (int32) uncompressed size of the buffer (this header is not included).
pub const BLOSC2_CHUNK_NBYTES: c_int = 0x4;
/// (int32) size of internal blocks.
pub const BLOSC2_CHUNK_BLOCKSIZE: c_int = 0x8;
/// (int32) compressed size of the buffer (including this header).
pub const BLOSC2_CHUNK_CBYTES: c_int = 0xc;
/// The codecs for the filter pipeline (1 byte per code).
pub const BLOSC2_CHUNK_FILTER_CODES: c_int = 0x10;
/// Meta info for the filter pipeline (1 byte per code).
pub const BLOSC2_CHUNK_FILTER_META: c_int = 0x18;
/// Second flags byte specific for Blosc2 functionality.
pub const BLOSC2_CHUNK_BLOSC2_FLAGS2: c_int = 0x1e;
/// Flags specific for Blosc2 functionality.
pub const BLOSC2_CHUNK_BLOSC2_FLAGS: c_int = 0x1f;

// ---------------------------------------------------------------------------------------------
// blosc2.h: run lengths for special values for chunks/frames
// ---------------------------------------------------------------------------------------------

pub const BLOSC2_NO_SPECIAL: c_int = 0x0;
pub const BLOSC2_SPECIAL_ZERO: c_int = 0x1;
pub const BLOSC2_SPECIAL_NAN: c_int = 0x2;
pub const BLOSC2_SPECIAL_VALUE: c_int = 0x3;
pub const BLOSC2_SPECIAL_UNINIT: c_int = 0x4;
/// Last valid ID for special value.
pub const BLOSC2_SPECIAL_LASTID: c_int = 0x4;
/// Special value mask (prev IDs cannot be larger than this).
pub const BLOSC2_SPECIAL_MASK: c_int = 0x7;

// ---------------------------------------------------------------------------------------------
// blosc2.h: error codes
// ---------------------------------------------------------------------------------------------

pub const BLOSC2_ERROR_SUCCESS: c_int = 0;
pub const BLOSC2_ERROR_FAILURE: c_int = -1;
pub const BLOSC2_ERROR_STREAM: c_int = -2;
pub const BLOSC2_ERROR_DATA: c_int = -3;
pub const BLOSC2_ERROR_MEMORY_ALLOC: c_int = -4;
pub const BLOSC2_ERROR_READ_BUFFER: c_int = -5;
pub const BLOSC2_ERROR_WRITE_BUFFER: c_int = -6;
pub const BLOSC2_ERROR_CODEC_SUPPORT: c_int = -7;
pub const BLOSC2_ERROR_CODEC_PARAM: c_int = -8;
pub const BLOSC2_ERROR_CODEC_DICT: c_int = -9;
pub const BLOSC2_ERROR_VERSION_SUPPORT: c_int = -10;
pub const BLOSC2_ERROR_INVALID_HEADER: c_int = -11;
pub const BLOSC2_ERROR_INVALID_PARAM: c_int = -12;
pub const BLOSC2_ERROR_FILE_READ: c_int = -13;
pub const BLOSC2_ERROR_FILE_WRITE: c_int = -14;
pub const BLOSC2_ERROR_FILE_OPEN: c_int = -15;
pub const BLOSC2_ERROR_NOT_FOUND: c_int = -16;
pub const BLOSC2_ERROR_RUN_LENGTH: c_int = -17;
pub const BLOSC2_ERROR_FILTER_PIPELINE: c_int = -18;
pub const BLOSC2_ERROR_CHUNK_INSERT: c_int = -19;
pub const BLOSC2_ERROR_CHUNK_APPEND: c_int = -20;
pub const BLOSC2_ERROR_CHUNK_UPDATE: c_int = -21;
pub const BLOSC2_ERROR_2GB_LIMIT: c_int = -22;
pub const BLOSC2_ERROR_SCHUNK_COPY: c_int = -23;
pub const BLOSC2_ERROR_FRAME_TYPE: c_int = -24;
pub const BLOSC2_ERROR_FILE_TRUNCATE: c_int = -25;
pub const BLOSC2_ERROR_THREAD_CREATE: c_int = -26;
pub const BLOSC2_ERROR_POSTFILTER: c_int = -27;
pub const BLOSC2_ERROR_FRAME_SPECIAL: c_int = -28;
pub const BLOSC2_ERROR_SCHUNK_SPECIAL: c_int = -29;
pub const BLOSC2_ERROR_PLUGIN_IO: c_int = -30;
pub const BLOSC2_ERROR_FILE_REMOVE: c_int = -31;
pub const BLOSC2_ERROR_NULL_POINTER: c_int = -32;
pub const BLOSC2_ERROR_INVALID_INDEX: c_int = -33;
pub const BLOSC2_ERROR_METALAYER_NOT_FOUND: c_int = -34;
pub const BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED: c_int = -35;
pub const BLOSC2_ERROR_TUNER: c_int = -36;
pub const BLOSC2_ERROR_LOCK: c_int = -37;

// ---------------------------------------------------------------------------------------------
// blosc2.h: I/O backends
// ---------------------------------------------------------------------------------------------

pub const BLOSC2_IO_FILESYSTEM: c_int = 0;
pub const BLOSC2_IO_FILESYSTEM_MMAP: c_int = 1;
pub const BLOSC_IO_LAST_BLOSC_DEFINED: c_int = 2;
pub const BLOSC_IO_LAST_REGISTERED: c_int = 32;

pub const BLOSC2_IO_BLOSC_DEFINED: c_int = 32;
pub const BLOSC2_IO_REGISTERED: c_int = 160;
pub const BLOSC2_IO_USER_DEFINED: c_int = 256;

// ---------------------------------------------------------------------------------------------
// blosc2.h: metalayers (#define)
// ---------------------------------------------------------------------------------------------

pub const BLOSC2_MAX_METALAYERS: c_int = 16;
pub const BLOSC2_METALAYER_NAME_MAXLEN: c_int = 31;
pub const BLOSC2_MAX_VLMETALAYERS: c_int = 8 * 1024;
pub const BLOSC2_VLMETALAYERS_NAME_MAXLEN: c_int = BLOSC2_METALAYER_NAME_MAXLEN;

// ---------------------------------------------------------------------------------------------
// blosc2/codecs-registry.h, filters-registry.h, tuners-registry.h
// ---------------------------------------------------------------------------------------------

/// Simple Lempel-Ziv compressor for NDim data.
pub const BLOSC_CODEC_NDLZ: c_int = 32;
/// ZFP, fixed accuracy mode (accuracy in `compcode_meta`).
pub const BLOSC_CODEC_ZFP_FIXED_ACCURACY: c_int = 33;
/// ZFP, fixed precision mode (precision in `compcode_meta`).
pub const BLOSC_CODEC_ZFP_FIXED_PRECISION: c_int = 34;
/// ZFP, fixed rate mode (rate in `compcode_meta`).
pub const BLOSC_CODEC_ZFP_FIXED_RATE: c_int = 35;
/// OpenHTJ2K compressor for JPEG 2000 HT (dynamically loaded plugin).
pub const BLOSC_CODEC_OPENHTJ2K: c_int = 36;
/// Grok compressor for JPEG 2000 (dynamically loaded plugin).
pub const BLOSC_CODEC_GROK: c_int = 37;
/// OpenZL metacompressor (dynamically loaded plugin).
pub const BLOSC_CODEC_OPENZL: c_int = 38;
/// JPEG 2000 compressor plugin (dynamically loaded).
pub const BLOSC_CODEC_J2K: c_int = 39;
/// High Throughput JPEG 2000 compressor plugin (dynamically loaded).
pub const BLOSC_CODEC_HTJ2K: c_int = 40;

/// Groups NDim cell data together.
pub const BLOSC_FILTER_NDCELL: c_int = 32;
/// Replaces the content of a NDim cell with its mean value.
pub const BLOSC_FILTER_NDMEAN: c_int = 33;
/// Buggy version of bytedelta (C-Blosc2 issue #524), kept for decoding old data.
pub const BLOSC_FILTER_BYTEDELTA_BUGGY: c_int = 34;
/// Byte-wise delta of M streams of N bytes (M = typesize, from `filters_meta`).
pub const BLOSC_FILTER_BYTEDELTA: c_int = 35;
/// Truncate int precision (like `BLOSC_TRUNC_PREC`, for integers).
pub const BLOSC_FILTER_INT_TRUNC: c_int = 36;

pub const BLOSC_BTUNE: c_int = 32;

// ---------------------------------------------------------------------------------------------
// b2nd.h (#define)
// ---------------------------------------------------------------------------------------------

/// The version for metalayer format; starts from 0 and it must not exceed 127.
pub const B2ND_METALAYER_VERSION: c_int = 0;
/// The maximum number of dimensions for b2nd arrays.
pub const B2ND_MAX_DIM: c_int = 16;
/// The maximum number of metalayers for b2nd arrays (one is reserved for "b2nd").
pub const B2ND_MAX_METALAYERS: c_int = BLOSC2_MAX_METALAYERS - 1;
/// NumPy dtype format.
pub const DTYPE_NUMPY_FORMAT: c_int = 0;
/// The default data type (unsigned byte).
pub const B2ND_DEFAULT_DTYPE: &CStr = c"|u1";
/// The default data format.
pub const B2ND_DEFAULT_DTYPE_FORMAT: c_int = DTYPE_NUMPY_FORMAT;
