#!/usr/bin/env python3
"""Generate c-tests/test_badargs_gen.c: every exported function called with bad arguments.

The exported functions are the names in ../shared/abi/symbols.txt (or $B2RS_SYMBOLS); their
declarations are read from the generated headers in include/ (blosc2.h, b2nd.h,
blosc2/blosc2-stdio.h).  For every function the program runs a baseline call (sensible
arguments: live contexts, super-chunks and arrays, valid chunks and buffers) and then one call
per bad argument, one argument changed at a time:

  null:P    a pointer parameter P is NULL
  neg:P     a signed integer parameter P is -1
  huge:P    an integer parameter P is its type's maximum
  wrong:P   a context of the other kind (compression <-> decompression) for P
  badid:P   blosc2_cparams passed by value with compcode 250 / typesize 0

Each call runs in its own forked child (with a 20 s alarm), which sends the result back through
a pipe: the returned integer, 1/0 for a non-NULL/NULL pointer, 0 for void.  A child that dies
is recorded as CRASH.

The expected results come from tools/badargs_expected.tsv, recorded from the reference
C-Blosc2 by `tools/gen_badargs.py --record` (it compiles the program against
$B2RS_REF_DIR, runs it with B2RS_BADARGS_RECORD=1, stores the results and regenerates).  The
program checks every result against that table, built against either library:
  * built against the reference (-DB2RS_REFERENCE) it must reproduce the table, crashes too;
  * built against b2rs it must give the same result, except where the reference crashes
    (then b2rs must not crash) and the deliberate divergences listed in DIVERGENCES below.
b2rs must never crash.

  tools/gen_badargs.py            write c-tests/test_badargs_gen.c
  tools/gen_badargs.py --check    exit 1 if the committed file is not what the generator makes
  tools/gen_badargs.py --record   re-record tools/badargs_expected.tsv from the reference
"""
import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "c-tests", "test_badargs_gen.c")
EXPECTED = os.path.join(REPO, "tools", "badargs_expected.tsv")
HEADERS = ["include/blosc2.h", "include/b2nd.h", "include/blosc2/blosc2-stdio.h"]

# tools/badargs_divergences.tsv: function, case, our result, why.  Results where b2rs
# differs from the reference although the reference does not crash (deliberate fixes, and
# error codes not aligned yet, each said so; a result written ~N: b2rs gives N, the reference
# reads out of bounds there and its result varies, so it is not checked), and SKIP for calls whose bad size describes the
# caller's own buffers (no library can check it: the reference crashes there or reads out of
# bounds, and b2rs would read out of bounds as told), not run at all.
DIVERGENCE_FILE = os.path.join(REPO, "tools", "badargs_divergences.tsv")


def read_divergences():
    div = {}
    if os.path.isfile(DIVERGENCE_FILE):
        for line in open(DIVERGENCE_FILE):
            if line.startswith("#") or not line.strip():
                continue
            f, c, v, why = line.rstrip("\n").split("\t")
            div[(f, c)] = (v, why)
    return div


DIVERGENCES = read_divergences()

# Functions not called at all, and why.
SKIP = {}

CRASH = "CRASH"


def symbols_path():
    p = os.environ.get("B2RS_SYMBOLS")
    if p:
        return p
    for cand in (os.path.join(REPO, "..", "shared", "abi", "symbols.txt"),
                 "/work/shared/abi/symbols.txt"):
        if os.path.isfile(cand):
            return cand
    sys.exit("gen_badargs.py: symbols.txt not found (set B2RS_SYMBOLS)")


def read_decls():
    syms = [l.strip() for l in open(symbols_path()) if l.strip()]
    text = ""
    for h in HEADERS:
        t = open(os.path.join(REPO, h)).read()
        t = re.sub(r"/\*.*?\*/", "", t, flags=re.S)
        t = re.sub(r"//[^\n]*", "", t)
        text += t + "\n"
    decls = []
    for s in syms:
        m = re.search(r"(?:^|[;}\n])\s*(?:BLOSC_EXPORT\s+)?((?:const\s+)?[\w]+[\s\*]+)\b" + s +
                      r"\s*\(([^)]*)\)\s*;", text)
        if not m:
            sys.exit(f"gen_badargs.py: no declaration of {s} in {HEADERS}")
        ret = " ".join(m.group(1).split()).replace(" *", "*")
        params = []
        args = " ".join(m.group(2).split())
        if args and args != "void":
            for a in args.split(","):
                a = a.strip()
                pm = re.match(r"(.*?)(\w+)$", a)
                ptype = " ".join(pm.group(1).replace("*", " * ").split()).replace(" *", "*")
                params.append((ptype, pm.group(2)))
        decls.append((s, ret, params))
    return decls


def norm(t):
    """The type without const qualifiers and spaces."""
    return t.replace("const", "").replace(" ", "")


INT_TYPES = {
    # type: (signed, max literal)
    "int": (True, "INT_MAX"),
    "int8_t": (True, "INT8_MAX"),
    "int16_t": (True, "INT16_MAX"),
    "int32_t": (True, "INT32_MAX"),
    "int64_t": (True, "INT64_MAX"),
    "uint8_t": (False, "UINT8_MAX"),
    "size_t": (False, "SIZE_MAX"),
}


def ctx_kind(func):
    if "decompress" in func or "getitem" in func or "dparams" in func:
        return "dctx"
    if "compress" in func or "cparams" in func or func == "blosc2_set_maskout":
        return "cctx" if func != "blosc2_set_maskout" else "dctx"
    return "dctx"


def int_baseline(func, name):
    """The baseline value of an integer parameter."""
    table = {
        "typesize": "4", "clevel": "5", "doshuffle": "1", "nthreads": "1", "compcode": "1",
        "nitems": "10", "ndim": "2", "itemsize": "4", "content_len": "4", "chunksize": "4000",
        "special_value": "BLOSC2_SPECIAL_ZERO", "nblocks": "1", "maxblocks": "1", "ncoords": "1",
        "delete_len": "1", "error_code": "-1", "splitmode": "BLOSC_ALWAYS_SPLIT",
        "final_dims": "3", "smeta_len": "smeta_len", "cframe_len": "cframe_len",
        "len": "cframe_len", "size": "1", "destsize": "BIG", "blocksize": "4000",
        "nbytes": "4000",
    }
    if name == "srcsize":
        if any(k in func for k in ("decompress", "getitem", "vlchunk")):
            return "chunk_len"
        return "4000"
    if name == "nbytes" and func == "blosc2_getitem_bytes_ctx":
        return "40"
    if name == "nbytes" and func == "blosc2_schunk_decompress_chunk":
        return "BIG"
    if name == "blocksize" and func == "blosc1_set_blocksize":
        return "0"
    if name == "buffersize":
        return "400"
    if name in ("stop",) and "schunk" in func:
        return "10"
    return table.get(name, "0")


def ptr_baseline(func, ptype, name):
    """The baseline expression of a pointer parameter (all objects are set up by setup())."""
    t = norm(ptype)
    raw = ptype.replace(" ", "")
    if raw == "constvoid*const*":
        return "(const void *const *)srcs"
    if raw == "constchar**":
        return "&out_cstr"
    if t == "blosc2_context*":
        return ctx_kind(func)
    if t == "blosc2_schunk*":
        return "sc"
    if t == "b2nd_array_t*":
        return "arr"
    if t == "b2nd_context_t*":
        return "nctx"
    if t == "b2nd_array_t**":
        return "&out_arr"
    if t == "blosc2_cparams**":
        return "&out_cp"
    if t == "blosc2_dparams**":
        return "&out_dp"
    if t == "blosc2_cparams*":
        return "&cp_local"
    if t == "blosc2_dparams*":
        return "&dp_local"
    if t == "blosc2_storage*":
        return "&storage"
    if t == "blosc2_metalayer*":
        return "metalayers"
    if t == "blosc2_io*":
        return "&io"
    if t == "blosc2_io_cb*":
        return "&io_cb"
    if t == "blosc2_codec*":
        return "&codec"
    if t == "blosc2_filter*":
        return "&filter"
    if t == "blosc2_tuner*":
        return "&tuner"
    if t == "blosc_timestamp_t*":
        return "&ts"
    if t == "uint8_t**":
        return "&out_u8"
    if t == "char**":
        if name == "names":
            return "names"
        return "&out_str2" if name == "version" else "&out_str"
    if t == "void**":
        return "dests" if name == "dests" else "&out_void"
    if t == "int64_t**":
        return "selection" if name == "selection" else "&out_i64p"
    if t == "int64_t*":
        zeros = ("start", "src_start", "dst_start", "index", "coords", "offsets_order", "i",
                 "cframe_len")
        if name == "selection_size":
            return "twos64"
        return "zeros64" if name in zeros else "tens64"
    if t == "int32_t*":
        if name in ("chunkshape", "blockshape"):
            return "fives32"
        if name == "srcsizes":
            return "srcsizes"
        return "out32"
    if t in ("size_t*", "int*", "int8_t*", "bool*"):
        return {"size_t*": "outsz", "int*": "outint", "int8_t*": "out8", "bool*": "bools"}[t]
    if t == "char*" and name in ("urlpath", "old_urlpath", "new_path"):
        return "tmp_path"
    if t == "char*":
        names = {
            "urlpath": "missing_path", "path": "missing_path", "compname": '"lz4"',
            "name": '"meta"', "mode": '"rb"', "dtype": '"<i4"',
        }
        if func in ("blosc2_stdio_open", "blosc2_stdio_mmap_open") and name == "urlpath":
            return "tmp_path"
        if func in ("blosc2_stdio_open",) and name == "mode":
            return '"w+b"'
        if func in ("blosc2_stdio_mmap_open",) and name == "mode":
            return '"w+"'
        if func in ("b2nd_save", "b2nd_save_append", "blosc2_schunk_to_file") and name == "urlpath":
            return "tmp_path"
        return names.get(name, '"x"')
    if t == "uint8_t*":
        if name == "cframe":
            return "cframe"
        if name == "smeta":
            return "smeta"
        if name == "content":
            return "content"
        return "chunk_copy()"
    if raw == "constvoid*":
        return "cbuf"
    if t == "void*":
        if name == "stream":
            return "mmap_stream" if "mmap" in func else "stdio_stream"
        if name == "params":
            return "mmap_params" if "mmap" in func else "NULL"
        if name == "callback_data":
            return "NULL"
        return "dst"
    sys.exit(f"gen_badargs.py: no baseline for {func}({ptype} {name})")


def value_baseline(func, ptype, name):
    t = norm(ptype)
    if t in INT_TYPES:
        return int_baseline(func, name)
    if t == "bool":
        return "false" if name == "avoid_cframe_free" else "true"
    if t == "blosc2_cparams":
        return "cp_local"
    if t == "blosc2_dparams":
        return "dp_local"
    if t == "blosc_timestamp_t":
        return "ts"
    if t == "blosc_threads_callback":
        return "NULL"
    if t == "double":
        return "0.0"
    if "*" in t:
        return ptr_baseline(func, ptype, name)
    sys.exit(f"gen_badargs.py: no baseline for {func}({ptype} {name})")


def cases(func, params):
    """[(case name, [arg expressions])]"""
    base = [value_baseline(func, t, n) for t, n in params]
    out = [("base", base)]
    for i, (t, n) in enumerate(params):
        nt = norm(t)
        def with_arg(v):
            a = list(base)
            a[i] = v
            return a
        if "*" in nt:
            out.append((f"null:{n}", with_arg("NULL")))
            if nt == "blosc2_context*":
                other = "cctx" if base[i] == "dctx" else "dctx"
                out.append((f"wrong:{n}", with_arg(other)))
        elif nt in INT_TYPES:
            signed, mx = INT_TYPES[nt]
            if signed:
                out.append((f"neg:{n}", with_arg(f"({nt})-1")))
            out.append((f"huge:{n}", with_arg(f"({nt}){mx}")))
        elif nt == "blosc2_cparams":
            out.append((f"badid:{n}", with_arg("cp_badcodec")))
            out.append((f"badtypesize:{n}", with_arg("cp_typesize0")))
    return out


def ret_expr(ret, call):
    r = norm(ret)
    if r == "void":
        return f"{call}; r = 0;"
    if r.endswith("*"):
        # kept in a global: a returned object is not a leak of the library
        return f"kept = (const void *)({call});\n      r = kept != NULL;"
    if r in INT_TYPES:
        return f"r = (int64_t)({call});"
    return f"(void)({call}); r = 0;"


def read_expected():
    exp = {}
    if os.path.isfile(EXPECTED):
        for line in open(EXPECTED):
            if line.startswith("#") or not line.strip():
                continue
            f, c, v = line.rstrip("\n").split("\t")
            exp[(f, c)] = v
    return exp


PRELUDE = r'''/*
 * test_badargs_gen.c - GENERATED by tools/gen_badargs.py from the declarations in include/
 * and the results in tools/badargs_expected.tsv; do not edit (tests/c_api.rs checks that it
 * is up to date).
 *
 * Every exported function is called with NULL pointers, negative and huge sizes and wrong
 * contexts / ids, one bad argument at a time, each call in its own forked child; the results
 * (return code, NULL-ness of a returned pointer, or CRASH) must be the reference's
 * (tools/badargs_expected.tsv), except that b2rs must not crash where the reference does and
 * the deliberate divergences listed in tools/gen_badargs.py.
 *
 * B2RS_BADARGS_RECORD=1 prints "function<TAB>case<TAB>result" lines instead of checking.
 */
#include "b2rs_test.h"

#include <limits.h>
/* b2nd_copy_buffer is deprecated but exported: it is called too */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <time.h>

#include "b2nd.h"
#include "blosc2/blosc2-stdio.h"

#define BIG (1 << 20)
#define R_CRASH INT64_MIN

/* the objects the baseline arguments point to (set up in every child) */
static blosc2_context *cctx, *dctx;
static blosc2_schunk *sc;
static b2nd_array_t *arr, *out_arr;
static b2nd_context_t *nctx;
static blosc2_cparams *out_cp;
static blosc2_dparams *out_dp;
static blosc2_cparams cp_local, cp_badcodec, cp_typesize0;
static blosc2_dparams dp_local;
static blosc2_storage storage;
static blosc2_metalayer metalayers[1];
static blosc2_io io;
static blosc2_io_cb io_cb;
static blosc2_codec codec;
static blosc2_filter filter;
static blosc2_tuner tuner;
static blosc_timestamp_t ts;
static uint8_t *out_u8;
static char *out_str, *out_str2;
static const char *out_cstr;
static char *names[64];
static void *out_void;
static int64_t *out_i64p;
static int64_t zeros64[64], tens64[64], twos64[64];
static int32_t fives32[64], out32[64], srcsizes[4];
static size_t outsz[64];
static int outint[64];
static int8_t out8[64];
static bool bools[64];
static uint8_t *cbuf, *dst, *chunk, *cframe, *smeta, content[16];
static int32_t chunk_len;
static int64_t cframe_len;
static int32_t smeta_len;
static const void *srcs[4];
static void *dests[4];
static int64_t sel0[2] = {0, 1}, sel1[2] = {0, 1};
static int64_t *selection[2] = {sel0, sel1};
static void *stdio_stream, *mmap_stream, *mmap_params;
static char tmp_path[64], missing_path[64];
/* volatile: stores to it must not be optimised away (LeakSanitizer must see the objects) */
static const void *volatile kept;
static uint8_t *volatile chunk_dups[1024];
static int n_chunk_dups;
static int last_exit; /* exit status of the last child that sent its result */

static uint8_t *chunk_copy(void) {
  uint8_t *c = malloc((size_t)chunk_len);
  memcpy(c, chunk, (size_t)chunk_len);
  if (n_chunk_dups < 1024) chunk_dups[n_chunk_dups++] = c; /* not a leak of the library */
  return c;
}

static void setup(const char *func) {
  snprintf(tmp_path, sizeof(tmp_path), "badargs_tmp_%d.bin", (int)getpid());
  snprintf(missing_path, sizeof(missing_path), "badargs_missing_%d.b2frame", (int)getpid());
  blosc2_init();
  cp_local = BLOSC2_CPARAMS_DEFAULTS;
  cp_local.typesize = 4;
  cp_badcodec = cp_local;
  cp_badcodec.compcode = 250;
  cp_typesize0 = cp_local;
  cp_typesize0.typesize = 0;
  dp_local = BLOSC2_DPARAMS_DEFAULTS;
  cctx = blosc2_create_cctx(cp_local);
  dctx = blosc2_create_dctx(dp_local);
  cbuf = calloc(1, BIG + 1024);
  dst = calloc(1, BIG + 1024);
  for (int i = 0; i < 1000; i++) ((int32_t *)cbuf)[i] = i;
  chunk = calloc(1, 4000 + BLOSC2_MAX_OVERHEAD);
  chunk_len = blosc2_compress_ctx(cctx, cbuf, 4000, chunk, 4000 + BLOSC2_MAX_OVERHEAD);
  /* the chunk also starts the source buffer, so decompressing `cbuf` works too */
  memcpy(cbuf, chunk, (size_t)chunk_len);
  for (int i = 0; i < 64; i++) {
    tens64[i] = 10;
    twos64[i] = 2;
    fives32[i] = 5;
  }
  srcsizes[0] = 4000;
  srcs[0] = cbuf;
  dests[0] = dst;
  memcpy(content, "abcd", 4);
  storage = BLOSC2_STORAGE_DEFAULTS;
  storage.cparams = &cp_local;
  storage.dparams = &dp_local;
  metalayers[0].name = "m";
  metalayers[0].content = content;
  metalayers[0].content_len = 4;
  io = BLOSC2_IO_DEFAULTS;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  sc = blosc2_schunk_new(&storage);
  blosc2_schunk_append_buffer(sc, cbuf + 4096, 4000);
  blosc2_schunk_append_buffer(sc, cbuf + 8192, 4000);
  blosc2_meta_add(sc, "meta", content, 4);
  blosc2_vlmeta_add(sc, "meta", content, 4, NULL);
  int64_t shape[2] = {10, 10};
  int32_t cshape[2] = {5, 5}, bshape[2] = {5, 5};
  nctx = b2nd_create_ctx(&storage, 2, shape, cshape, bshape, NULL, 0, NULL, 0);
  b2nd_zeros(nctx, &arr);
  bool needs_free;
  b2nd_to_cframe(arr, &cframe, &cframe_len, &needs_free);
  smeta_len = b2nd_serialize_meta(2, shape, cshape, bshape, "<i4", 0, &smeta);
  if (strstr(func, "stdio") != NULL) {
    stdio_stream = blosc2_stdio_open(tmp_path, "w+b", NULL);
    blosc2_stdio_mmap *mp = malloc(sizeof(blosc2_stdio_mmap));
    *mp = BLOSC2_STDIO_MMAP_DEFAULTS;
    mp->mode = "w+";
    mp->needs_free = true;
    mmap_params = mp;
    char mpath[80];
    snprintf(mpath, sizeof(mpath), "%s.mmap", tmp_path);
    blosc2_stdio_mmap *mp2 = malloc(sizeof(blosc2_stdio_mmap));
    *mp2 = *mp;
    mmap_stream = blosc2_stdio_mmap_open(mpath, "w+", mp2);
  }
}

static void cleanup_files(void) {
  char p[80];
  snprintf(p, sizeof(p), "badargs_tmp_*");
  (void)p;
}

typedef struct {
  const char *func;
  const char *cas;
  int64_t ref;  /* the reference's result (R_CRASH: it crashes) */
  int64_t ours; /* ours: the same unless a deliberate divergence */
  int known;    /* 0: no recorded result yet */
  int skip;     /* not run: the bad size describes the caller's buffers */
  int ref_varies; /* the reference reads out of bounds here: its result is not checked */
} expect_t;

static int64_t run_case(int id, const char *func);

/* run case `id` in a child; R_CRASH when it dies */
static int64_t in_child(int id, const char *func) {
  int fds[2];
  if (pipe(fds) != 0) return R_CRASH;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = t_fork();
  if (pid < 0) return R_CRASH;
  if (pid == 0) {
    close(fds[0]);
    alarm(20);
    /* stderr: the libraries' traces are noise here */
    if (getenv("B2RS_TEST_VERBOSE") == NULL) {
      FILE *f = freopen("/dev/null", "w", stderr);
      (void)f;
    }
    setup(func);
    int64_t r = run_case(id, func);
    ssize_t w = write(fds[1], &r, sizeof(r));
    (void)w;
#ifdef B2RS_REFERENCE
    _exit(0);
#else
    /* a leak in the call (LeakSanitizer, B2RS_SANITIZE=asan) */
    _exit(t_leak_check() ? 23 : 0);
#endif
  }
  close(fds[1]);
  int64_t r = 0;
  size_t got = 0;
  while (got < sizeof(r)) {
    ssize_t n = read(fds[0], (char *)&r + got, sizeof(r) - got);
    if (n <= 0) break;
    got += (size_t)n;
  }
  close(fds[0]);
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  char p[80];
  snprintf(p, sizeof(p), "badargs_tmp_%d.bin", (int)pid);
  blosc2_remove_urlpath(p);
  snprintf(p, sizeof(p), "badargs_tmp_%d.bin.mmap", (int)pid);
  blosc2_remove_urlpath(p);
  last_exit = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return got == sizeof(r) ? r : R_CRASH;
}
'''


def generate(decls, expected):
    out = [PRELUDE]
    entries = []
    body = []
    for func, ret, params in decls:
        if func in SKIP:
            continue
        for cname, args in cases(func, params):
            entries.append((func, cname))
            call = f"{func}({', '.join(args)})"
            body.append(f"    case {len(entries) - 1}: /* {func} {cname} */\n"
                        f"      {ret_expr(ret, call)}\n      break;")
    out.append("static int64_t run_case(int id, const char *func) {\n  (void)func;\n"
               "  int64_t r = 0;\n  switch (id) {\n")
    out.append("\n".join(body))
    out.append("\n    default:\n      r = R_CRASH;\n  }\n  return r;\n}\n\n")
    out.append("static const expect_t EXPECT[] = {\n")
    for func, cname in entries:
        v = expected.get((func, cname))
        known = 0 if v is None else 1
        ref = "0" if v is None else ("R_CRASH" if v == CRASH else f"INT64_C({v})")
        ours = ref
        skip = 0
        ref_varies = 0
        if (func, cname) in DIVERGENCES:
            v = DIVERGENCES[(func, cname)][0]
            if v == "SKIP":
                skip = 1
            else:
                if v.startswith("~"):
                    ref_varies = 1
                    v = v[1:]
                ours = f"INT64_C({v})"
        out.append(f'    {{"{func}", "{cname}", {ref}, {ours}, {known}, {skip}, {ref_varies}}},\n')
    out.append("};\n\n")
    out.append(r'''#define N_CASES ((int)(sizeof(EXPECT) / sizeof(EXPECT[0])))

static void test_badargs(void) {
  int record = getenv("B2RS_BADARGS_RECORD") != NULL;
  const char *only = getenv("B2RS_BADARGS_ONLY");
  int same = 0, crash_ref = 0, diverge = 0, skipped = 0;
  for (int i = 0; i < N_CASES; i++) {
    const expect_t *e = &EXPECT[i];
    /* B2RS_BADARGS_ONLY=substring: only the functions whose name contains it (for probing) */
    if (only != NULL && strstr(e->func, only) == NULL) continue;
    if (e->skip && !record) {
      skipped++;
      continue;
    }
    int64_t r = in_child(i, e->func);
    if (record) {
      if (r == R_CRASH)
        printf("%s\t%s\tCRASH\n", e->func, e->cas);
      else
        printf("%s\t%s\t%" PRId64 "\n", e->func, e->cas, r);
      continue;
    }
    CHECK(e->known);
#ifdef B2RS_REFERENCE
    if (e->ref_varies) {
      skipped++;
    } else if (r != e->ref) {
      t_failed++;
      fprintf(stderr, "%s %s: %" PRId64 " but the table says %" PRId64 "\n", e->func, e->cas, r,
              e->ref);
    } else {
      t_passed++;
    }
#else
    if (r == R_CRASH) {
      t_failed++;
      fprintf(stderr, "%s %s: CRASH\n", e->func, e->cas);
    } else if (last_exit != 0) {
      /* the call returned, then LeakSanitizer or valgrind (--error-exitcode) found an error */
      t_failed++;
      fprintf(stderr, "%s %s: exit status %d after the call (leak or memory error)\n", e->func,
              e->cas, last_exit);
    } else if (e->ref == R_CRASH) {
      t_passed++;
      crash_ref++;
    } else if (r != e->ours) {
      t_failed++;
      fprintf(stderr, "%s %s: %" PRId64 " but the reference gives %" PRId64 "\n", e->func, e->cas,
              r, e->ours);
    } else {
      t_passed++;
      if (e->ours != e->ref)
        diverge++;
      else
        same++;
    }
#endif
  }
  if (!record)
    printf("badargs: %d cases: %d same as the reference, %d where the reference crashes, "
           "%d divergences (tools/badargs_divergences.tsv), %d not run or not checked\n",
           N_CASES, same, crash_ref, diverge, skipped);
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  (void)cleanup_files;
  if (getenv("B2RS_BADARGS_RECORD") != NULL) {
    test_badargs();
    return 0;
  }
  RUN(test_badargs);
  return TEST_SUMMARY();
}
''')
    return "".join(out), entries


def record(decls):
    ref = os.environ.get("B2RS_REF_DIR") or os.path.join(REPO, "target", "reference")
    inc = os.path.join(ref, "blosc2", "include")
    lib = os.path.join(ref, "blosc2", "lib")
    text, entries = generate(decls, {})
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "badargs.c")
        open(src, "w").write(text)
        exe = os.path.join(d, "badargs")
        subprocess.check_call([os.environ.get("CC", "cc"), "-std=c11", "-O1", "-g",
                               "-DB2RS_REFERENCE=1", "-I", os.path.join(REPO, "c-tests"),
                               "-I", inc, src, "-o", exe, "-L", lib, "-lblosc2", "-lpthread",
                               f"-Wl,-rpath,{lib}"])
        env = dict(os.environ, B2RS_BADARGS_RECORD="1")
        for v in list(env):
            if v.startswith("BLOSC_"):
                del env[v]
        outp = subprocess.run([exe], cwd=d, env=env, check=True, capture_output=True,
                              text=True).stdout
    lines = [l for l in outp.splitlines() if l.count("\t") == 2]
    if len(lines) != len(entries):
        sys.exit(f"gen_badargs.py: recorded {len(lines)} results for {len(entries)} cases")
    with open(EXPECTED, "w") as f:
        f.write("# function\tcase\tresult of the reference C-Blosc2 3.3.5 "
                "(recorded by tools/gen_badargs.py --record)\n")
        for l in lines:
            f.write(l + "\n")


def main():
    decls = read_decls()
    if "--record" in sys.argv:
        record(decls)
    text, entries = generate(decls, read_expected())
    if "--check" in sys.argv:
        old = open(OUT).read() if os.path.isfile(OUT) else ""
        if old != text:
            sys.exit("c-tests/test_badargs_gen.c is not up to date: run tools/gen_badargs.py")
        nfunc = len({f for f, _ in entries})
        print(f"c-tests/test_badargs_gen.c is up to date ({nfunc} functions, {len(entries)} cases)")
        return
    open(OUT, "w").write(text)
    nfunc = len({f for f, _ in entries})
    print(f"wrote {OUT}: {nfunc} functions, {len(entries)} cases")


if __name__ == "__main__":
    main()
