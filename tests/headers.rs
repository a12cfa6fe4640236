//! Checks of the generated C headers in `include/` (written by build.rs, so they are current when
//! this test runs):
//! * `layout_c_prints_layout_ref`: `shared/abi/layout.c` compiled against `include/` prints exactly
//!   `shared/abi/layout-ref.tsv` (struct sizes, offsets, constants, default structs);
//! * `headers_compile_as_c_and_cpp`: one file including every header, using the macros, defaults
//!   and inline functions, compiles with `-Wall -Wextra -Werror` as C11 and C++17, with and without
//!   `-DBLOSC1_COMPAT`, at `-O0` and `-O2`;
//! * `constants_match`: every constant printed through our headers equals `src/capi/consts.rs`
//!   and, when `B2RS_REF_INCLUDE` names the reference `include/` folder, the reference's value;
//!   the `#ifndef BLOSC_H` guards let `blosc.h` (Blosc 1) be included first;
//! * `every_function_declared_once`: each of the 164 exported functions plus the header-only and
//!   declared-only ones is declared exactly once, in the same header as in C-Blosc2, and no
//!   function of `include-parts/pending_*.h` is also exported from `src/capi/`;
//! * `signatures_match_reference`: redeclaring every function with the reference prototype (from
//!   `shared/abi/API.md`, and from the reference headers when `B2RS_REF_INCLUDE` is set) after
//!   including our headers compiles: C rejects a conflicting redeclaration.
//!
//! A test prints `SKIPPED: ...` and passes when `../shared` or `gcc` is absent.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::CStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

#[allow(dead_code)]
#[path = "../src/capi/consts.rs"]
mod consts;

const MANIFEST: &str = env!("CARGO_MANIFEST_DIR");
const TMP: &str = env!("CARGO_TARGET_TMPDIR");

/// The functions of the public headers that are not exported symbols.
const NOT_EXPORTED_FUNCTIONS: &[(&str, &str)] = &[
    ("print_error", "blosc2.h"),
    ("blosc2_meta_exists", "blosc2.h"),
    ("blosc2_meta_get", "blosc2.h"),
    ("swap_store", "blosc2.h"),
    ("b2nd_deserialize_meta_inline", "b2nd.h"),
    ("register_codecs", "blosc2/codecs-registry.h"),
    ("register_filters", "blosc2/filters-registry.h"),
    ("register_tuners", "blosc2/tuners-registry.h"),
];

const ALL_HEADERS: &[&str] = &[
    "blosc2.h",
    "b2nd.h",
    "blosc2/blosc2-export.h",
    "blosc2/blosc2-common.h",
    "blosc2/blosc2-stdio.h",
    "blosc2/codecs-registry.h",
    "blosc2/filters-registry.h",
    "blosc2/tuners-registry.h",
];

fn include_dir() -> PathBuf {
    Path::new(MANIFEST).join("include")
}

fn shared_dir() -> Option<PathBuf> {
    let p = Path::new(MANIFEST).join("../shared/abi");
    if p.is_dir() {
        Some(p)
    } else {
        println!("SKIPPED: {} not found", p.display());
        None
    }
}

fn have(tool: &str) -> bool {
    let ok = Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        println!("SKIPPED: {tool} not found");
    }
    ok
}

fn ref_include() -> Option<PathBuf> {
    match std::env::var_os("B2RS_REF_INCLUDE") {
        Some(p) if Path::new(&p).join("blosc2.h").is_file() => Some(PathBuf::from(p)),
        Some(p) => panic!("B2RS_REF_INCLUDE={p:?} has no blosc2.h"),
        None => {
            println!("note: B2RS_REF_INCLUDE unset: not comparing with the reference headers");
            None
        }
    }
}

fn work_dir(name: &str) -> PathBuf {
    let d = Path::new(TMP).join("headers").join(name);
    fs::create_dir_all(&d).unwrap();
    d
}

/// Runs a compiler; panics with its output on failure.
fn compile(cc: &str, args: &[&str], what: &str) {
    let out = Command::new(cc).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{what}: `{cc} {}` failed:\n{}{}",
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Compiles `source` as C against `include` into an executable, runs it and returns its stdout.
fn run_c(source: &Path, include: &Path, extra: &[&str], exe: &Path) -> String {
    let inc = format!("-I{}", include.display());
    let mut args = vec!["-O2", inc.as_str()];
    args.extend_from_slice(extra);
    args.extend([source.to_str().unwrap(), "-o", exe.to_str().unwrap()]);
    compile("gcc", &args, &format!("building {}", source.display()));
    let out = Command::new(exe).output().unwrap();
    assert!(out.status.success(), "{} failed", exe.display());
    String::from_utf8(out.stdout).unwrap()
}

fn first_difference(got: &str, want: &str) -> String {
    let (g, w): (Vec<&str>, Vec<&str>) = (got.lines().collect(), want.lines().collect());
    for i in 0..g.len().max(w.len()) {
        let (a, b) = (g.get(i).copied(), w.get(i).copied());
        if a != b {
            return format!("line {}: ours {a:?}, expected {b:?}", i + 1);
        }
    }
    "no difference".into()
}

// ---------------------------------------------------------------------------------------------
// (a) struct layouts, constants and defaults, through shared/abi/layout.c
// ---------------------------------------------------------------------------------------------

#[test]
fn layout_c_prints_layout_ref() {
    let Some(shared) = shared_dir() else { return };
    if !have("gcc") {
        return;
    }
    let exe = work_dir("layout").join("layout");
    let got = run_c(&shared.join("layout.c"), &include_dir(), &[], &exe);
    let want = fs::read_to_string(shared.join("layout-ref.tsv")).unwrap();
    assert!(
        got == want,
        "layout.c output differs from layout-ref.tsv: {}",
        first_difference(&got, &want)
    );
}

// ---------------------------------------------------------------------------------------------
// (b) every header compiles as C and C++, warnings as errors
// ---------------------------------------------------------------------------------------------

const ALL_HEADERS_PROGRAM: &str = r#"
#include <blosc2.h>
#include <b2nd.h>
#include <blosc2/blosc2-export.h>
#include <blosc2/blosc2-common.h>
#include <blosc2/blosc2-stdio.h>
#include <blosc2/codecs-registry.h>
#include <blosc2/filters-registry.h>
#include <blosc2/tuners-registry.h>
#ifdef B2RS_H
#error "blosc2.h or b2nd.h includes b2rs.h"
#endif
#ifdef TEST_B2RS_H
#include <b2rs.h>
#endif

/* The macros and header-only functions, used the way C-Blosc2 programs use them. */
static int read_b2nd_meta(blosc2_schunk *schunk) {
  uint8_t *smeta = NULL;
  int32_t smeta_len = 0;
  BLOSC_ERROR_NULL(schunk, BLOSC2_ERROR_NULL_POINTER);
  if (blosc2_meta_exists(schunk, "b2nd") < 0) {
    BLOSC_TRACE_WARNING("no b2nd metalayer in %p", (void *)schunk);
    return BLOSC2_ERROR_NOT_FOUND;
  }
  BLOSC_ERROR(blosc2_meta_get(schunk, "b2nd", &smeta, &smeta_len));
  int8_t ndim = 0;
  int64_t shape[B2ND_MAX_DIM] = {0};
  int32_t chunkshape[B2ND_MAX_DIM] = {0};
  int32_t blockshape[B2ND_MAX_DIM] = {0};
  char *dtype = NULL;
  int8_t dtype_format = 0;
  int rc = b2nd_deserialize_meta_inline(smeta, smeta_len, &ndim, shape, chunkshape, blockshape,
                                        &dtype, &dtype_format);
  free(smeta);
  free(dtype);
  BLOSC_INFO("ndim %d", (int)ndim);
  BLOSC_TRACE_INFO("rc %d", rc);
  int64_t big;
  swap_store(&big, shape, sizeof(big));
  return rc;
}

static int failing(void) {
  BLOSC_TRACE_ERROR("%s", blosc2_error_string(BLOSC2_ERROR_FAILURE));
  BLOSC_ERROR(BLOSC2_ERROR_INVALID_PARAM);
  return 0;
}

int entry_point(void);
int entry_point(void) {
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  blosc2_dparams dparams = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_storage storage = BLOSC2_STORAGE_DEFAULTS;
  blosc2_io io = BLOSC2_IO_DEFAULTS;
  blosc2_stdio_mmap mmap_params = BLOSC2_STDIO_MMAP_DEFAULTS;
  blosc2_stdio_params stdio_params = BLOSC2_STDIO_PARAMS_DEFAULTS;
  cparams.typesize = sizeof(float);
  cparams.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_BITSHUFFLE;
  storage.cparams = &cparams;
  storage.dparams = &dparams;
  storage.io = &io;
  io.params = stdio_params.locking ? (void *)&stdio_params : (void *)&mmap_params;

  blosc2_init();
  blosc2_context *cctx = blosc2_create_cctx(cparams);
  blosc2_free_ctx(cctx);
  blosc2_schunk *schunk = blosc2_schunk_new(&storage);
  struct blosc2_metalayer *meta = schunk->metalayers[0];
  int rc = read_b2nd_meta(schunk) + (meta != NULL) + failing();
  b2nd_array_t *array = NULL;
  rc += b2nd_from_schunk(schunk, &array);
  rc += (int)array->chunk_cache.nchunk;
  blosc_timestamp_t t0, t1;
  blosc_set_timestamp(&t0);
  blosc_set_timestamp(&t1);
  rc += (int)blosc_elapsed_secs(t0, t1);
  codec_info ci = {NULL, NULL};
  filter_info fi = {NULL, NULL};
  tuner_info ti = {NULL, NULL, NULL, NULL, NULL};
  rc += (ci.encoder != NULL) + (fi.forward != NULL) + (ti.init != NULL);
  rc += (int)BLOSC_CODEC_NDLZ + (int)BLOSC_FILTER_BYTEDELTA + (int)BLOSC_BTUNE;
#ifdef BLOSC1_COMPAT
  blosc_init();
  rc += blosc_compress(5, BLOSC_SHUFFLE, 4, 0, NULL, NULL, BLOSC_MAX_OVERHEAD);
  rc += BLOSC_VERSION_MAJOR + BLOSC_MAX_BUFFERSIZE + (int)sizeof(BLOSC_VERSION_STRING);
  blosc_destroy();
#endif
  blosc2_schunk_free(schunk);
  blosc2_destroy();
  return rc;
}
"#;

#[test]
fn headers_compile_as_c_and_cpp() {
    if !have("gcc") {
        return;
    }
    let dir = work_dir("compile");
    let c_file = dir.join("all_headers.c");
    let cpp_file = dir.join("all_headers.cpp");
    fs::write(&c_file, ALL_HEADERS_PROGRAM).unwrap();
    fs::write(&cpp_file, ALL_HEADERS_PROGRAM).unwrap();
    let obj = dir.join("all_headers.o");
    let mut sets: Vec<(PathBuf, &str)> = vec![(include_dir(), "ours")];
    if let Some(r) = ref_include() {
        sets.push((r, "reference"));
    }
    let cpp = have("g++");
    for (include, which) in &sets {
        let inc = format!("-I{}", include.display());
        // Each header compiles on its own.
        let mut alone: Vec<&str> = ALL_HEADERS.to_vec();
        if *which == "ours" {
            alone.push("b2rs.h");
        }
        for h in alone {
            let src = dir.join("alone.c");
            fs::write(
                &src,
                format!("#include <{h}>\nint alone(void);\nint alone(void) {{ return 0; }}\n"),
            )
            .unwrap();
            let args = [
                "-std=c11",
                "-Wall",
                "-Wextra",
                "-Werror",
                &inc,
                "-c",
                src.to_str().unwrap(),
                "-o",
                obj.to_str().unwrap(),
            ];
            compile("gcc", &args, &format!("{which} {h} alone"));
        }
        let b2rs_h = if *which == "ours" {
            "-DTEST_B2RS_H"
        } else {
            "-UTEST_B2RS_H"
        };
        for compat in ["-UBLOSC1_COMPAT", "-DBLOSC1_COMPAT"] {
            for opt in ["-O0", "-O2"] {
                let mut jobs = vec![("gcc", "-std=c11", &c_file)];
                if cpp {
                    jobs.push(("g++", "-std=c++17", &cpp_file));
                }
                for (cc, std, src) in jobs {
                    let args = [
                        std,
                        opt,
                        "-Wall",
                        "-Wextra",
                        "-Werror",
                        compat,
                        b2rs_h,
                        inc.as_str(),
                        "-c",
                        src.to_str().unwrap(),
                        "-o",
                        obj.to_str().unwrap(),
                    ];
                    compile(cc, &args, &format!("{which} headers"));
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// (c) constants
// ---------------------------------------------------------------------------------------------

enum Value {
    Int(i64),
    Str(&'static CStr),
}

macro_rules! consts_table {
    ($($name:ident),* $(,)?) => {
        fn rust_constants() -> Vec<(&'static str, Value)> {
            vec![$((stringify!($name), consts::$name.into_value())),*]
        }
    };
}

trait IntoValue {
    fn into_value(self) -> Value;
}
impl IntoValue for core::ffi::c_int {
    fn into_value(self) -> Value {
        Value::Int(self as i64)
    }
}
impl IntoValue for &'static CStr {
    fn into_value(self) -> Value {
        Value::Str(self)
    }
}

consts_table!(
    BLOSC2_VERSION_MAJOR,
    BLOSC2_VERSION_MINOR,
    BLOSC2_VERSION_RELEASE,
    BLOSC2_VERSION_STRING,
    BLOSC2_VERSION_DATE,
    BLOSC1_VERSION_FORMAT_PRE1,
    BLOSC1_VERSION_FORMAT,
    BLOSC2_VERSION_FORMAT_ALPHA,
    BLOSC2_VERSION_FORMAT_BETA1,
    BLOSC2_VERSION_FORMAT_STABLE,
    BLOSC2_VERSION_FORMAT_VL_BLOCKS,
    BLOSC2_VERSION_FORMAT,
    BLOSC2_VERSION_FRAME_FORMAT_BETA2,
    BLOSC2_VERSION_FRAME_FORMAT_RC1,
    BLOSC2_VERSION_FRAME_FORMAT_VL_BLOCKS,
    BLOSC2_VERSION_FRAME_FORMAT,
    BLOSC_MIN_HEADER_LENGTH,
    BLOSC_EXTENDED_HEADER_LENGTH,
    BLOSC2_MAX_OVERHEAD,
    BLOSC2_MAX_BUFFERSIZE,
    BLOSC_MAX_TYPESIZE,
    BLOSC_MIN_BUFFERSIZE,
    BLOSC2_DEFINED_TUNER_START,
    BLOSC2_DEFINED_TUNER_STOP,
    BLOSC2_GLOBAL_REGISTERED_TUNER_START,
    BLOSC2_GLOBAL_REGISTERED_TUNER_STOP,
    BLOSC2_GLOBAL_REGISTERED_TUNERS,
    BLOSC2_USER_REGISTERED_TUNER_START,
    BLOSC2_USER_REGISTERED_TUNER_STOP,
    BLOSC_STUNE,
    BLOSC_LAST_TUNER,
    BLOSC_LAST_REGISTERED_TUNE,
    BLOSC2_DEFINED_FILTERS_START,
    BLOSC2_DEFINED_FILTERS_STOP,
    BLOSC2_GLOBAL_REGISTERED_FILTERS_START,
    BLOSC2_GLOBAL_REGISTERED_FILTERS_STOP,
    BLOSC2_GLOBAL_REGISTERED_FILTERS,
    BLOSC2_USER_REGISTERED_FILTERS_START,
    BLOSC2_USER_REGISTERED_FILTERS_STOP,
    BLOSC2_MAX_FILTERS,
    BLOSC2_MAX_UDFILTERS,
    BLOSC_NOSHUFFLE,
    BLOSC_NOFILTER,
    BLOSC_SHUFFLE,
    BLOSC_BITSHUFFLE,
    BLOSC_DELTA,
    BLOSC_TRUNC_PREC,
    BLOSC_LAST_FILTER,
    BLOSC_LAST_REGISTERED_FILTER,
    BLOSC_DOSHUFFLE,
    BLOSC_MEMCPYED,
    BLOSC_DOBITSHUFFLE,
    BLOSC_DODELTA,
    BLOSC2_USEDICT,
    BLOSC2_BIGENDIAN,
    BLOSC2_INSTR_CODEC,
    BLOSC2_VL_BLOCKS,
    BLOSC2_MAXDICTSIZE,
    BLOSC2_MINUSEFULDICT,
    BLOSC2_MAXBLOCKSIZE,
    BLOSC2_MAXTYPESIZE,
    BLOSC2_DEFINED_CODECS_START,
    BLOSC2_DEFINED_CODECS_STOP,
    BLOSC2_GLOBAL_REGISTERED_CODECS_START,
    BLOSC2_GLOBAL_REGISTERED_CODECS_STOP,
    BLOSC2_GLOBAL_REGISTERED_CODECS,
    BLOSC2_USER_REGISTERED_CODECS_START,
    BLOSC2_USER_REGISTERED_CODECS_STOP,
    BLOSC_BLOSCLZ,
    BLOSC_LZ4,
    BLOSC_LZ4HC,
    BLOSC_ZLIB,
    BLOSC_ZSTD,
    BLOSC_LAST_CODEC,
    BLOSC_LAST_REGISTERED_CODEC,
    BLOSC_BLOSCLZ_COMPNAME,
    BLOSC_LZ4_COMPNAME,
    BLOSC_LZ4HC_COMPNAME,
    BLOSC_ZLIB_COMPNAME,
    BLOSC_ZSTD_COMPNAME,
    BLOSC_BLOSCLZ_LIB,
    BLOSC_LZ4_LIB,
    BLOSC_ZLIB_LIB,
    BLOSC_ZSTD_LIB,
    BLOSC_UDCODEC_LIB,
    BLOSC_SCHUNK_LIB,
    BLOSC_BLOSCLZ_LIBNAME,
    BLOSC_LZ4_LIBNAME,
    BLOSC_ZLIB_LIBNAME,
    BLOSC_ZSTD_LIBNAME,
    BLOSC_BLOSCLZ_FORMAT,
    BLOSC_LZ4_FORMAT,
    BLOSC_LZ4HC_FORMAT,
    BLOSC_ZLIB_FORMAT,
    BLOSC_ZSTD_FORMAT,
    BLOSC_UDCODEC_FORMAT,
    BLOSC_BLOSCLZ_VERSION_FORMAT,
    BLOSC_LZ4_VERSION_FORMAT,
    BLOSC_LZ4HC_VERSION_FORMAT,
    BLOSC_ZLIB_VERSION_FORMAT,
    BLOSC_ZSTD_VERSION_FORMAT,
    BLOSC_UDCODEC_VERSION_FORMAT,
    BLOSC_ALWAYS_SPLIT,
    BLOSC_NEVER_SPLIT,
    BLOSC_AUTO_SPLIT,
    BLOSC_FORWARD_COMPAT_SPLIT,
    BLOSC2_CHUNK_VERSION,
    BLOSC2_CHUNK_VERSIONLZ,
    BLOSC2_CHUNK_FLAGS,
    BLOSC2_CHUNK_TYPESIZE,
    BLOSC2_CHUNK_NBYTES,
    BLOSC2_CHUNK_BLOCKSIZE,
    BLOSC2_CHUNK_CBYTES,
    BLOSC2_CHUNK_FILTER_CODES,
    BLOSC2_CHUNK_FILTER_META,
    BLOSC2_CHUNK_BLOSC2_FLAGS2,
    BLOSC2_CHUNK_BLOSC2_FLAGS,
    BLOSC2_NO_SPECIAL,
    BLOSC2_SPECIAL_ZERO,
    BLOSC2_SPECIAL_NAN,
    BLOSC2_SPECIAL_VALUE,
    BLOSC2_SPECIAL_UNINIT,
    BLOSC2_SPECIAL_LASTID,
    BLOSC2_SPECIAL_MASK,
    BLOSC2_ERROR_SUCCESS,
    BLOSC2_ERROR_FAILURE,
    BLOSC2_ERROR_STREAM,
    BLOSC2_ERROR_DATA,
    BLOSC2_ERROR_MEMORY_ALLOC,
    BLOSC2_ERROR_READ_BUFFER,
    BLOSC2_ERROR_WRITE_BUFFER,
    BLOSC2_ERROR_CODEC_SUPPORT,
    BLOSC2_ERROR_CODEC_PARAM,
    BLOSC2_ERROR_CODEC_DICT,
    BLOSC2_ERROR_VERSION_SUPPORT,
    BLOSC2_ERROR_INVALID_HEADER,
    BLOSC2_ERROR_INVALID_PARAM,
    BLOSC2_ERROR_FILE_READ,
    BLOSC2_ERROR_FILE_WRITE,
    BLOSC2_ERROR_FILE_OPEN,
    BLOSC2_ERROR_NOT_FOUND,
    BLOSC2_ERROR_RUN_LENGTH,
    BLOSC2_ERROR_FILTER_PIPELINE,
    BLOSC2_ERROR_CHUNK_INSERT,
    BLOSC2_ERROR_CHUNK_APPEND,
    BLOSC2_ERROR_CHUNK_UPDATE,
    BLOSC2_ERROR_2GB_LIMIT,
    BLOSC2_ERROR_SCHUNK_COPY,
    BLOSC2_ERROR_FRAME_TYPE,
    BLOSC2_ERROR_FILE_TRUNCATE,
    BLOSC2_ERROR_THREAD_CREATE,
    BLOSC2_ERROR_POSTFILTER,
    BLOSC2_ERROR_FRAME_SPECIAL,
    BLOSC2_ERROR_SCHUNK_SPECIAL,
    BLOSC2_ERROR_PLUGIN_IO,
    BLOSC2_ERROR_FILE_REMOVE,
    BLOSC2_ERROR_NULL_POINTER,
    BLOSC2_ERROR_INVALID_INDEX,
    BLOSC2_ERROR_METALAYER_NOT_FOUND,
    BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED,
    BLOSC2_ERROR_TUNER,
    BLOSC2_ERROR_LOCK,
    BLOSC2_IO_FILESYSTEM,
    BLOSC2_IO_FILESYSTEM_MMAP,
    BLOSC_IO_LAST_BLOSC_DEFINED,
    BLOSC_IO_LAST_REGISTERED,
    BLOSC2_IO_BLOSC_DEFINED,
    BLOSC2_IO_REGISTERED,
    BLOSC2_IO_USER_DEFINED,
    BLOSC2_MAX_METALAYERS,
    BLOSC2_METALAYER_NAME_MAXLEN,
    BLOSC2_MAX_VLMETALAYERS,
    BLOSC2_VLMETALAYERS_NAME_MAXLEN,
    BLOSC_CODEC_NDLZ,
    BLOSC_CODEC_ZFP_FIXED_ACCURACY,
    BLOSC_CODEC_ZFP_FIXED_PRECISION,
    BLOSC_CODEC_ZFP_FIXED_RATE,
    BLOSC_CODEC_OPENHTJ2K,
    BLOSC_CODEC_GROK,
    BLOSC_CODEC_OPENZL,
    BLOSC_CODEC_J2K,
    BLOSC_CODEC_HTJ2K,
    BLOSC_FILTER_NDCELL,
    BLOSC_FILTER_NDMEAN,
    BLOSC_FILTER_BYTEDELTA_BUGGY,
    BLOSC_FILTER_BYTEDELTA,
    BLOSC_FILTER_INT_TRUNC,
    BLOSC_BTUNE,
    B2ND_METALAYER_VERSION,
    B2ND_MAX_DIM,
    B2ND_MAX_METALAYERS,
    DTYPE_NUMPY_FORMAT,
    B2ND_DEFAULT_DTYPE,
    B2ND_DEFAULT_DTYPE_FORMAT,
);

/// `BLOSC1_COMPAT` aliases: (alias, constant it stands for).
const COMPAT_ALIASES: &[(&str, &str)] = &[
    ("BLOSC_VERSION_MAJOR", "BLOSC2_VERSION_MAJOR"),
    ("BLOSC_VERSION_MINOR", "BLOSC2_VERSION_MINOR"),
    ("BLOSC_VERSION_RELEASE", "BLOSC2_VERSION_RELEASE"),
    ("BLOSC_VERSION_STRING", "BLOSC2_VERSION_STRING"),
    ("BLOSC_VERSION_DATE", "BLOSC2_VERSION_DATE"),
    ("BLOSC_MAX_OVERHEAD", "BLOSC2_MAX_OVERHEAD"),
    ("BLOSC_MAX_BUFFERSIZE", "BLOSC2_MAX_BUFFERSIZE"),
];

/// The constants C-Blosc2 puts under `#ifndef BLOSC_H`, because Blosc 1's `blosc.h` defines them
/// too (as macros).
const BLOSC_H_GUARDED: &[&str] = &[
    "BLOSC_MIN_HEADER_LENGTH",
    "BLOSC_MAX_TYPESIZE",
    "BLOSC_NOSHUFFLE",
    "BLOSC_NOFILTER",
    "BLOSC_SHUFFLE",
    "BLOSC_BITSHUFFLE",
    "BLOSC_DOSHUFFLE",
    "BLOSC_MEMCPYED",
    "BLOSC_DOBITSHUFFLE",
    "BLOSC_BLOSCLZ",
    "BLOSC_LZ4",
    "BLOSC_LZ4HC",
    "BLOSC_ZLIB",
    "BLOSC_ZSTD",
    "BLOSC_BLOSCLZ_COMPNAME",
    "BLOSC_LZ4_COMPNAME",
    "BLOSC_LZ4HC_COMPNAME",
    "BLOSC_ZLIB_COMPNAME",
    "BLOSC_ZSTD_COMPNAME",
    "BLOSC_BLOSCLZ_LIB",
    "BLOSC_LZ4_LIB",
    "BLOSC_ZLIB_LIB",
    "BLOSC_ZSTD_LIB",
    "BLOSC_BLOSCLZ_LIBNAME",
    "BLOSC_LZ4_LIBNAME",
    "BLOSC_ZLIB_LIBNAME",
    "BLOSC_ZSTD_LIBNAME",
    "BLOSC_BLOSCLZ_FORMAT",
    "BLOSC_LZ4_FORMAT",
    "BLOSC_LZ4HC_FORMAT",
    "BLOSC_ZLIB_FORMAT",
    "BLOSC_ZSTD_FORMAT",
    "BLOSC_BLOSCLZ_VERSION_FORMAT",
    "BLOSC_LZ4_VERSION_FORMAT",
    "BLOSC_LZ4HC_VERSION_FORMAT",
    "BLOSC_ZLIB_VERSION_FORMAT",
    "BLOSC_ZSTD_VERSION_FORMAT",
    "BLOSC_ALWAYS_SPLIT",
    "BLOSC_NEVER_SPLIT",
    "BLOSC_AUTO_SPLIT",
    "BLOSC_FORWARD_COMPAT_SPLIT",
];

fn value_text(v: &Value) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Str(s) => format!("\"{}\"", s.to_str().unwrap()),
    }
}

/// A C program printing `NAME\tVALUE` for every constant (and the compat aliases).
fn constants_program(table: &[(&str, Value)]) -> String {
    let mut p = String::from(
        "#include <stdio.h>\n#include <blosc2.h>\n#include <b2nd.h>\n#include <blosc2/codecs-registry.h>\n#include <blosc2/filters-registry.h>\n#include <blosc2/tuners-registry.h>\nint main(void) {\n",
    );
    let mut print = |name: &str, is_str: bool| {
        if is_str {
            p.push_str(&format!("  printf(\"{name}\\t\\\"%s\\\"\\n\", {name});\n"));
        } else {
            p.push_str(&format!(
                "  printf(\"{name}\\t%lld\\n\", (long long)({name}));\n"
            ));
        }
    };
    for (name, v) in table {
        print(name, matches!(v, Value::Str(_)));
    }
    for (alias, target) in COMPAT_ALIASES {
        let is_str = table
            .iter()
            .any(|(n, v)| n == target && matches!(v, Value::Str(_)));
        print(alias, is_str);
    }
    p.push_str("  return 0;\n}\n");
    p
}

#[test]
fn constants_match() {
    let table = rust_constants();
    let names: BTreeSet<&str> = table.iter().map(|(n, _)| *n).collect();
    assert_eq!(names.len(), table.len(), "a constant is listed twice");

    // The table lists every constant of consts.rs ...
    let consts_rs = fs::read_to_string(Path::new(MANIFEST).join("src/capi/consts.rs")).unwrap();
    let in_file: BTreeSet<&str> = consts_rs
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("pub const "))
        .map(|r| r.split(':').next().unwrap().trim())
        .collect();
    assert_eq!(in_file, names, "update the table in tests/headers.rs");

    // ... and every constant of the reference (E, D, DS rows of layout-ref.tsv), same value.
    let Some(shared) = shared_dir() else { return };
    let layout_ref = fs::read_to_string(shared.join("layout-ref.tsv")).unwrap();
    let mut reference = BTreeMap::new();
    for line in layout_ref.lines() {
        let c: Vec<&str> = line.split('\t').collect();
        match c[0] {
            "E" => reference.insert(c[2], c[3].to_string()),
            "D" | "DS" => reference.insert(c[1], c[2].to_string()),
            _ => None,
        };
    }
    let rust: BTreeMap<&str, String> = table.iter().map(|(n, v)| (*n, value_text(v))).collect();
    let missing: Vec<&&str> = reference
        .keys()
        .filter(|k| !rust.contains_key(*k))
        .collect();
    assert!(missing.is_empty(), "consts.rs lacks {missing:?}");
    for (name, want) in &reference {
        assert_eq!(&rust[name], want, "consts.rs {name}");
    }

    // Printed through our headers (and the reference's): same values as consts.rs.
    if !have("gcc") {
        return;
    }
    let dir = work_dir("constants");
    let src = dir.join("constants.c");
    fs::write(&src, constants_program(&table)).unwrap();
    let ours = run_c(
        &src,
        &include_dir(),
        &["-DBLOSC1_COMPAT"],
        &dir.join("ours"),
    );
    let mut expected = String::new();
    for (name, v) in &table {
        expected.push_str(&format!("{name}\t{}\n", value_text(v)));
    }
    for (alias, target) in COMPAT_ALIASES {
        expected.push_str(&format!("{alias}\t{}\n", rust[target]));
    }
    assert!(
        ours == expected,
        "constants through include/ differ from consts.rs: {}",
        first_difference(&ours, &expected)
    );
    let reference_include = ref_include();
    if let Some(r) = &reference_include {
        let theirs = run_c(&src, r, &["-DBLOSC1_COMPAT"], &dir.join("reference"));
        assert!(
            ours == theirs,
            "constants differ from the reference headers: {}",
            first_difference(&ours, &theirs)
        );
    }

    // blosc.h (Blosc 1) defines the guarded names as macros; including it first must work.
    let mut p = String::from("#define BLOSC_H\n");
    for name in BLOSC_H_GUARDED {
        p.push_str(&format!("#define {name} {}\n", rust[name]));
    }
    for h in ALL_HEADERS {
        p.push_str(&format!("#include <{h}>\n"));
    }
    p.push_str("int main(void) {\n");
    for (name, _) in &table {
        p.push_str(&format!("  (void)({name});\n"));
    }
    p.push_str("  return 0;\n}\n");
    let src = dir.join("after_blosc_h.c");
    fs::write(&src, p).unwrap();
    let mut sets = vec![include_dir()];
    sets.extend(reference_include);
    for include in sets {
        let inc = format!("-I{}", include.display());
        let obj = dir.join("after_blosc_h.o");
        compile(
            "gcc",
            &[
                "-std=c11",
                "-Wall",
                "-Wextra",
                "-Werror",
                &inc,
                "-c",
                src.to_str().unwrap(),
                "-o",
                obj.to_str().unwrap(),
            ],
            &format!("blosc.h guards ({})", include.display()),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// (d) every function declared exactly once, in the right header
// ---------------------------------------------------------------------------------------------

/// Removes comments and preprocessor lines (with their continuations), keeping string literals.
fn strip_c(src: &str) -> String {
    let mut no_comments = String::with_capacity(src.len());
    let b = src.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = src[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
                no_comments.push(' ');
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = src[i..].find('\n').map_or(b.len(), |e| i + e);
            }
            q @ (b'"' | b'\'') => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != q {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(b.len());
                no_comments.push_str(&src[start..i]);
            }
            _ => {
                let c = src[i..].chars().next().unwrap();
                no_comments.push(c);
                i += c.len_utf8();
            }
        }
    }
    let mut out = String::new();
    let mut continued = false;
    for line in no_comments.lines() {
        let directive = continued || line.trim_start().starts_with('#');
        continued = directive && line.trim_end().ends_with('\\');
        if !directive {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Decl {
    Prototype,
    StaticPrototype,
    StaticDefinition,
    Definition,
}

/// The functions declared at file scope of a header: (name, kind).
fn declared_functions(header: &str) -> Vec<(String, Decl)> {
    let code = strip_c(header);
    let b = code.as_bytes();
    let mut found = Vec::new();
    let mut depth = 0usize;
    let mut extern_blocks = 0usize;
    let mut stmt = String::new(); // the statement at depth 0, with "{}" for each braced block
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if depth == 0 && code[i..].starts_with("extern \"C\"") {
            let after = code[i + 10..].trim_start();
            if after.starts_with('{') {
                extern_blocks += 1;
                i = code.len() - after.len() + 1;
                continue;
            }
        }
        match c {
            b'"' | b'\'' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != c {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
                if depth == 0 {
                    stmt.push_str(&code[start..i.min(b.len())]);
                }
                continue;
            }
            b'{' => {
                if depth == 0 {
                    stmt.push_str("{}");
                }
                depth += 1;
            }
            b'}' => {
                if depth == 0 {
                    assert!(extern_blocks > 0, "unbalanced }}");
                    extern_blocks -= 1;
                } else {
                    depth -= 1;
                    if depth == 0 && stmt.contains('(') && !stmt.trim_start().starts_with("typedef")
                    {
                        finish_statement(&stmt, true, &mut found);
                        stmt.clear();
                    }
                }
            }
            b';' if depth == 0 => {
                finish_statement(&stmt, false, &mut found);
                stmt.clear();
            }
            _ if depth == 0 => stmt.push(c as char),
            _ => {}
        }
        i += 1;
    }
    found
}

fn finish_statement(stmt: &str, definition: bool, found: &mut Vec<(String, Decl)>) {
    let s = stmt.trim();
    if s.starts_with("typedef") {
        return;
    }
    let Some(name) = function_name(s) else { return };
    let is_static = s.split_whitespace().next() == Some("static");
    let kind = match (is_static, definition) {
        (false, false) => Decl::Prototype,
        (true, false) => Decl::StaticPrototype,
        (true, true) => Decl::StaticDefinition,
        (false, true) => Decl::Definition,
    };
    found.push((name, kind));
}

/// The first identifier followed by `(` at parenthesis depth 0 that is not a macro (upper case)
/// nor `__attribute__`-like.
fn function_name(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut parens = 0usize;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'(' => {
                if parens == 0 {
                    let before = s[..i].trim_end();
                    let ident: String = before
                        .chars()
                        .rev()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev()
                        .collect();
                    if ident.chars().any(|c| c.is_ascii_lowercase()) && !ident.starts_with("__") {
                        return Some(ident);
                    }
                }
                parens += 1;
            }
            b')' => parens = parens.saturating_sub(1),
            b'=' if parens == 0 => return None,
            _ => {}
        }
    }
    None
}

/// (function, header) from API.md's function tables.
fn api_md_functions(shared: &Path) -> Vec<(String, String, String)> {
    let md = fs::read_to_string(shared.join("API.md")).unwrap();
    let mut out = Vec::new();
    for line in md.lines() {
        let Some(rest) = line.strip_prefix("| `") else {
            continue;
        };
        let Some((name, rest)) = rest.split_once("` | `") else {
            continue;
        };
        let Some((cell, _)) = rest.split_once("` |") else {
            continue;
        };
        let (signature, header) = match cell.rsplit_once(";  *(") {
            Some((sig, h)) => (format!("{sig};"), h.trim_end_matches(")*").to_string()),
            None => (cell.to_string(), "blosc2.h".to_string()),
        };
        if !signature.contains('(') || !signature.ends_with(';') {
            continue; // a row of the constants tables
        }
        out.push((name.to_string(), header, signature));
    }
    out
}

fn headers_in(dir: &Path, rel: &Path, out: &mut Vec<(String, PathBuf)>) {
    for e in fs::read_dir(dir.join(rel)).unwrap().flatten() {
        let r = rel.join(e.file_name());
        if e.path().is_dir() {
            headers_in(dir, &r, out);
        } else if r.extension().is_some_and(|x| x == "h") {
            out.push((r.to_string_lossy().replace('\\', "/"), e.path()));
        }
    }
}

/// Names of the `pub [unsafe] extern "C" fn` of the Rust files under `dir`.
fn exported_rust_functions(dir: &Path, out: &mut BTreeMap<String, PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            exported_rust_functions(&p, out);
            continue;
        }
        if !matches!(p.extension(), Some(x) if x == "rs") {
            continue;
        }
        let src = fs::read_to_string(&p).unwrap();
        for line in src.lines() {
            let t = line.trim_start();
            for prefix in ["pub unsafe extern \"C\" fn ", "pub extern \"C\" fn "] {
                if let Some(rest) = t.strip_prefix(prefix) {
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    out.insert(name, p.clone());
                }
            }
        }
    }
}

#[test]
fn every_function_declared_once() {
    let Some(shared) = shared_dir() else { return };
    let mut expected: BTreeMap<String, String> = BTreeMap::new();
    let symbols = fs::read_to_string(shared.join("symbols.txt")).unwrap();
    let api = api_md_functions(&shared);
    for sym in symbols.split_whitespace() {
        let header = api
            .iter()
            .find(|(n, _, _)| n == sym)
            .map_or("blosc2.h".to_string(), |(_, h, _)| h.clone());
        expected.insert(sym.to_string(), header);
    }
    assert_eq!(expected.len(), 164, "symbols.txt");
    for (name, header) in NOT_EXPORTED_FUNCTIONS {
        expected.insert(name.to_string(), header.to_string());
    }

    let mut headers = Vec::new();
    headers_in(&include_dir(), Path::new(""), &mut headers);
    let mut declared: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut errors = Vec::new();
    for (rel, path) in &headers {
        let text = fs::read_to_string(path).unwrap();
        for (name, kind) in declared_functions(&text) {
            match kind {
                Decl::StaticPrototype => continue,
                Decl::Definition => errors.push(format!("{rel}: non-static definition of {name}")),
                Decl::Prototype | Decl::StaticDefinition => {}
            }
            declared.entry(name).or_default().push(rel.clone());
        }
        if rel != "b2rs.h" {
            assert!(!text.contains("b2rs.h\""), "{rel} includes b2rs.h");
        }
    }
    for (name, header) in &expected {
        match declared.get(name).map(Vec::as_slice) {
            None | Some([]) => {
                errors.push(format!("{name} is not declared (expected in {header})"))
            }
            Some([h]) if h == header => {}
            Some([h]) => errors.push(format!(
                "{name} is declared in {h}, C-Blosc2 has it in {header}"
            )),
            Some(hs) => errors.push(format!("{name} is declared {} times: {hs:?}", hs.len())),
        }
    }
    for (name, hs) in &declared {
        if !expected.contains_key(name) && hs.iter().any(|h| h != "b2rs.h") {
            errors.push(format!(
                "{name} (in {hs:?}) is not a C-Blosc2 function: b2rs additions go to src/capi/b2rs.rs (b2rs.h)"
            ));
        }
    }

    // No function of the pending files is exported from src/capi/.
    let mut exported = BTreeMap::new();
    exported_rust_functions(&Path::new(MANIFEST).join("src/capi"), &mut exported);
    for pending in ["pending_blosc2.h", "pending_b2nd.h", "pending_stdio.h"] {
        let path = Path::new(MANIFEST).join("include-parts").join(pending);
        let text = fs::read_to_string(&path).unwrap();
        for (name, _) in declared_functions(&text) {
            if let Some(file) = exported.get(&name) {
                errors.push(format!(
                    "{name} is exported from {} and still declared in include-parts/{pending}: delete it there",
                    file.display()
                ));
            }
            if !expected.contains_key(&name) {
                errors.push(format!("include-parts/{pending} declares unknown {name}"));
            }
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    println!(
        "{} functions declared once each; {} exported from src/capi/",
        expected.len(),
        exported.len()
    );
}

// ---------------------------------------------------------------------------------------------
// (e) signatures
// ---------------------------------------------------------------------------------------------

/// `BLOSC_EXPORT ...;` declarations of a reference header (comments removed, macros kept).
fn reference_prototypes(include: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for h in ["blosc2.h", "b2nd.h", "blosc2/blosc2-stdio.h"] {
        let text = strip_c(&fs::read_to_string(include.join(h)).unwrap());
        let mut rest = text.as_str();
        while let Some(pos) = rest.find("BLOSC_EXPORT") {
            let decl = &rest[pos..];
            let end = decl.find(';').unwrap();
            out.push(decl[..=end].to_string());
            rest = &decl[end + 1..];
        }
    }
    out
}

#[test]
fn signatures_match_reference() {
    let Some(shared) = shared_dir() else { return };
    if !have("gcc") {
        return;
    }
    let mut prototypes: Vec<String> = api_md_functions(&shared)
        .into_iter()
        .map(|(_, _, sig)| sig)
        .collect();
    assert!(
        prototypes.len() >= 172,
        "API.md: {} signatures",
        prototypes.len()
    );
    let reference = ref_include();
    if let Some(r) = &reference {
        let from_ref = reference_prototypes(r);
        assert_eq!(from_ref.len(), 164, "reference prototypes");
        prototypes.extend(from_ref);
    }
    let mut p = String::new();
    for h in ALL_HEADERS {
        p.push_str(&format!("#include <{h}>\n"));
    }
    p.push_str("\n/* C-Blosc2's prototypes: a conflicting one does not compile. */\n");
    for proto in &prototypes {
        p.push_str(proto);
        p.push('\n');
    }
    let dir = work_dir("signatures");
    let src = dir.join("signatures.c");
    fs::write(&src, p).unwrap();
    let inc = format!("-I{}", include_dir().display());
    let obj = dir.join("signatures.o");
    compile(
        "gcc",
        &[
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-Werror",
            &inc,
            "-c",
            src.to_str().unwrap(),
            "-o",
            obj.to_str().unwrap(),
        ],
        "redeclaring every function with the C-Blosc2 prototype",
    );
}
