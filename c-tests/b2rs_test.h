/*
 * b2rs_test.h - a tiny test harness shared by the C API test programs in
 * c-tests/.  Every program includes this header first.
 *
 * Each test is a `static void test_xxx(void)` run with RUN(test_xxx).  By
 * default every test runs in a forked child process, so a crash (SIGSEGV,
 * abort, ...) in one test is reported as a failure of that test and the
 * remaining tests still run.  Set B2RS_TEST_NOFORK=1 to run everything in
 * one process (handy under gdb).  Set B2RS_TEST_VERBOSE=1 to print one line
 * per test.  A child that reports its counts and then exits non-zero (a
 * leak found by LeakSanitizer, valgrind's --error-exitcode) is a failure too
 * (the sanitizer modes of tests/c_api.rs, B2RS_SANITIZE).
 *
 * The program ends with `return TEST_SUMMARY();`, which prints
 * "<program>: N passed, M failed" and yields a non-zero exit status when
 * anything failed.
 *
 * Reference bugs.  When the programs are built against the reference
 * C-Blosc2 library (-DB2RS_REFERENCE=1) the B2RS_REFERENCE_BUG_<NAME> macros
 * are defined and the tests that check the *correct* behaviour in those
 * places are compiled out.  Most are documented in /work/shared/spec; the
 * ones marked "found by these tests" are not (yet):
 *
 *   B2RS_REFERENCE_BUG_GETITEM_DELTA   getitem on a delta-filtered chunk
 *       beyond block 0 returns corrupted data (CHUNK.md 12).
 *   B2RS_REFERENCE_BUG_GETITEM_BLOCKSIZE  (found by these tests, not in the
 *       spec) getitem of exactly `blocksize` bytes starting at an offset that
 *       is not a multiple of blocksize returns the wrong bytes for regular
 *       (non-memcpyed) chunks; one element less works.
 *   B2RS_REFERENCE_BUG_GETITEM_DICT  (found by these tests, not in the spec)
 *       getitem on a chunk with a dictionary fails with -3 unless the same
 *       context decompressed a dictionary chunk before (the dictionary is
 *       only loaded by a full decompression).
 *   B2RS_REFERENCE_BUG_DELTA_PIPELINE  pipelines with 3+ active filters that
 *       include delta write into the caller's input / decode wrongly
 *       (FILTERS.md 1).
 *   B2RS_REFERENCE_BUG_PIPELINE_INPUT  with 3+ active filters the encoder
 *       writes into the caller's input buffer (and a memcpy fallback then
 *       stores the overwritten bytes) (FILTERS.md 1).
 *   B2RS_REFERENCE_BUG_BLOCKSIZE_TYPESIZE  a user blocksize that is not a
 *       multiple of typesize gives chunks that cannot be decoded (CHUNK.md 10).
 *   B2RS_REFERENCE_BUG_DICT_MEMCPY  a dictionary compression that falls back
 *       to a memcpyed chunk keeps the dictionary flag; the chunk then cannot
 *       be read (error -9) (CHUNK.md 4).
 *   B2RS_REFERENCE_BUG_UNDEFINED_TAIL  delta / trunc_prec leave the trailing
 *       bytes of a block (nbytes % unit) undefined (FILTERS.md 5, 6).
 *   B2RS_REFERENCE_BUG_VL_TIGHT_DEST  (found by these tests, not in the
 *       spec) blosc2_vlcompress_ctx with incompressible blocks and a
 *       destination 1..16 bytes too small crashes (memcpy with a negative
 *       length) instead of returning 0.
 *   B2RS_REFERENCE_BUG_VL_CLEVEL0  (found by these tests, not in the spec)
 *       blosc2_vlcompress_ctx with clevel 0 and BloscLZ crashes (SIGBUS).
 *   B2RS_REFERENCE_BUG_VL_DELTA  (found by these tests, not in the spec)
 *       blosc2_decompress_ctx on a VL-block chunk with a delta filter decodes
 *       blocks >= 1 against block 0, although the encoder coded each block
 *       on its own (blosc2_vldecompress_* decode them right).
 *   B2RS_REFERENCE_BUG_PREFILTER_DELTA  (found by these tests, not in the
 *       spec) with a prefilter and a delta filter, compression writes the
 *       prefiltered data into the caller's (const) source buffer, and the
 *       blocks after block 0 decode wrongly.
 *   B2RS_REFERENCE_BUG_BLOSC1_SIZE_TRUNC  (found by these tests, not in the
 *       spec) blosc1_compress truncates its size_t nbytes to 32 bits, so
 *       2^40 bytes gives an empty 32-byte chunk instead of error -35.
 *   B2RS_REFERENCE_BUG_B2ND_UNCHECKED  (found by these tests, not in the
 *       spec) b2nd_copy_buffer2 checks none of its arguments (NULL pointers
 *       and ndim 0 crash, regions outside the buffers are read/written out of
 *       bounds, negative itemsize or ndim > 16 pass); b2nd_create_ctx crashes
 *       with more than B2ND_MAX_METALAYERS metalayers or NULL metalayers, and
 *       b2nd_free_ctx(NULL) crashes; b2nd_serialize_meta crashes on NULL
 *       smeta/shape and writes metalayers for ndim > 16 that
 *       b2nd_deserialize_meta rejects.
 *   B2RS_REFERENCE_BUG_FORK_POOL  (found by these tests, not in the spec)
 *       after fork() in a process whose thread pool has run (a context or
 *       the global API with nthreads > 1), every multi-threaded compression
 *       in the child hangs, also with new contexts (it waits on a condition
 *       variable for pool threads that do not exist in the child); only
 *       nthreads = 1 works there.
 */
#ifndef B2RS_TEST_H
#define B2RS_TEST_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "blosc2.h"

#define T_UNUSED __attribute__((unused))

#ifdef B2RS_REFERENCE
#define B2RS_REFERENCE_BUG_GETITEM_DELTA 1
#define B2RS_REFERENCE_BUG_GETITEM_BLOCKSIZE 1
#define B2RS_REFERENCE_BUG_GETITEM_DICT 1
#define B2RS_REFERENCE_BUG_DELTA_PIPELINE 1
#define B2RS_REFERENCE_BUG_PIPELINE_INPUT 1
#define B2RS_REFERENCE_BUG_BLOCKSIZE_TYPESIZE 1
#define B2RS_REFERENCE_BUG_DICT_MEMCPY 1
#define B2RS_REFERENCE_BUG_UNDEFINED_TAIL 1
#define B2RS_REFERENCE_BUG_VL_TIGHT_DEST 1
#define B2RS_REFERENCE_BUG_VL_CLEVEL0 1
#define B2RS_REFERENCE_BUG_VL_DELTA 1
#define B2RS_REFERENCE_BUG_PREFILTER_DELTA 1
#define B2RS_REFERENCE_BUG_BLOSC1_SIZE_TRUNC 1
#define B2RS_REFERENCE_BUG_B2ND_UNCHECKED 1
#define B2RS_REFERENCE_BUG_FORK_POOL 1
#endif

/* ------------------------------------------------------------------ */
/* assertion counters                                                   */
/* ------------------------------------------------------------------ */

static long t_passed = 0;
static long t_failed = 0;
static const char *t_current = "";

#define T_FAIL_HDR() fprintf(stderr, "%s:%d: [%s] ", __FILE__, __LINE__, t_current)

/* CHECK(expr): the expression must be true. */
#define CHECK(expr)                                                     \
  do {                                                                  \
    if (expr) {                                                         \
      t_passed++;                                                       \
    } else {                                                            \
      t_failed++;                                                       \
      T_FAIL_HDR();                                                     \
      fprintf(stderr, "CHECK failed: %s\n", #expr);                     \
    }                                                                   \
  } while (0)

/* CHECK_EQ(a, b): integers, both values printed on failure. */
#define CHECK_EQ(a, b)                                                  \
  do {                                                                  \
    long long _a = (long long)(a);                                      \
    long long _b = (long long)(b);                                      \
    if (_a == _b) {                                                     \
      t_passed++;                                                       \
    } else {                                                            \
      t_failed++;                                                       \
      T_FAIL_HDR();                                                     \
      fprintf(stderr, "CHECK_EQ failed: %s == %s  (%lld != %lld)\n",    \
              #a, #b, _a, _b);                                          \
    }                                                                   \
  } while (0)

/* CHECK_LT / CHECK_LE / CHECK_GT / CHECK_GE for integers */
#define T_CMP(a, op, b)                                                 \
  do {                                                                  \
    long long _a = (long long)(a);                                      \
    long long _b = (long long)(b);                                      \
    if (_a op _b) {                                                     \
      t_passed++;                                                       \
    } else {                                                            \
      t_failed++;                                                       \
      T_FAIL_HDR();                                                     \
      fprintf(stderr, "CHECK failed: %s %s %s  (%lld vs %lld)\n",       \
              #a, #op, #b, _a, _b);                                     \
    }                                                                   \
  } while (0)
#define CHECK_LT(a, b) T_CMP(a, <, b)
#define CHECK_LE(a, b) T_CMP(a, <=, b)
#define CHECK_GT(a, b) T_CMP(a, >, b)
#define CHECK_GE(a, b) T_CMP(a, >=, b)

/* CHECK_HASH(a, b): 64-bit values printed in hex (golden hashes). */
#define CHECK_HASH(a, b)                                                \
  do {                                                                  \
    unsigned long long _a = (unsigned long long)(a);                    \
    unsigned long long _b = (unsigned long long)(b);                    \
    if (_a == _b) {                                                     \
      t_passed++;                                                       \
    } else {                                                            \
      t_failed++;                                                       \
      T_FAIL_HDR();                                                     \
      fprintf(stderr, "CHECK_HASH failed: %s == %s  (0x%016llxULL != "  \
              "0x%016llxULL)\n", #a, #b, _a, _b);                       \
    }                                                                   \
  } while (0)

/* CHECK_STR(a, b): C strings (NULL-safe). */
#define CHECK_STR(a, b)                                                 \
  do {                                                                  \
    const char *_a = (a);                                               \
    const char *_b = (b);                                               \
    if (_a != NULL && _b != NULL && strcmp(_a, _b) == 0) {              \
      t_passed++;                                                       \
    } else {                                                            \
      t_failed++;                                                       \
      T_FAIL_HDR();                                                     \
      fprintf(stderr, "CHECK_STR failed: %s == %s  (\"%s\" != \"%s\")\n", \
              #a, #b, _a ? _a : "(null)", _b ? _b : "(null)");          \
    }                                                                   \
  } while (0)

/* CHECK_MEM(a, b, n): memory ranges equal; prints the first difference. */
#define CHECK_MEM(a, b, n)                                              \
  do {                                                                  \
    const uint8_t *_a = (const uint8_t *)(a);                           \
    const uint8_t *_b = (const uint8_t *)(b);                           \
    size_t _n = (size_t)(n);                                            \
    size_t _i = t_first_diff(_a, _b, _n);                               \
    if (_i == (size_t)-1) {                                             \
      t_passed++;                                                       \
    } else {                                                            \
      t_failed++;                                                       \
      T_FAIL_HDR();                                                     \
      fprintf(stderr, "CHECK_MEM failed: %s vs %s (%zu bytes): first "  \
              "difference at %zu (0x%02x != 0x%02x)\n", #a, #b, _n, _i,  \
              _a[_i], _b[_i]);                                          \
    }                                                                   \
  } while (0)

/* CHECK_GUARD(buf, n): the guard bytes after buf[n] are intact. */
#define CHECK_GUARD(buf, n)                                             \
  do {                                                                  \
    if (guard_ok((const uint8_t *)(buf), (size_t)(n))) {                \
      t_passed++;                                                       \
    } else {                                                            \
      t_failed++;                                                       \
      T_FAIL_HDR();                                                     \
      fprintf(stderr, "CHECK_GUARD failed: write past %s[%zu]\n", #buf, \
              (size_t)(n));                                             \
    }                                                                   \
  } while (0)

T_UNUSED static inline size_t t_first_diff(const uint8_t *a, const uint8_t *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (a[i] != b[i]) return i;
  }
  return (size_t)-1;
}

/* ------------------------------------------------------------------ */
/* running tests                                                        */
/* ------------------------------------------------------------------ */

/* fork(), waiting and retrying while the system cannot make a process right now (EAGAIN: seen
   when two test programs fork hundreds of children side by side); -1 after ~10 s of that. */
#include <time.h>
T_UNUSED static pid_t t_fork(void) {
  long wait_ms = 1;
  for (;;) {
    pid_t pid = fork();
    if (pid >= 0 || errno != EAGAIN || wait_ms > 4096) return pid;
    struct timespec ts = {wait_ms / 1000, (wait_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    wait_ms *= 2;
  }
}

T_UNUSED static int t_nofork(void) {
  const char *e = getenv("B2RS_TEST_NOFORK");
  return e != NULL && e[0] != '\0' && e[0] != '0';
}

T_UNUSED static int t_verbose(void) {
  const char *e = getenv("B2RS_TEST_VERBOSE");
  return e != NULL && e[0] != '\0' && e[0] != '0';
}

/* Built with -fsanitize=address (B2RS_SANITIZE=asan in tests/c_api.rs): run
   LeakSanitizer now; non-zero when it reported leaks. */
#if defined(__SANITIZE_ADDRESS__)
int __lsan_do_recoverable_leak_check(void);
T_UNUSED static int t_leak_check(void) { return __lsan_do_recoverable_leak_check(); }
#else
T_UNUSED static int t_leak_check(void) { return 0; }
#endif

T_UNUSED static void t_run(const char *name, void (*fn)(void)) {
  t_current = name;
  if (t_verbose()) fprintf(stderr, "-- %s\n", name);
  if (t_nofork()) {
    long f0 = t_failed;
    fn();
    if (t_failed != f0) fprintf(stderr, "FAILED: %s\n", name);
    return;
  }
  int fds[2];
  if (pipe(fds) != 0) {
    perror("pipe");
    exit(2);
  }
  fflush(stdout);
  fflush(stderr);
  pid_t pid = t_fork();
  if (pid < 0) {
    perror("fork");
    exit(2);
  }
  if (pid == 0) {
    close(fds[0]);
    t_passed = 0;
    t_failed = 0;
    fn();
    long counts[2] = {t_passed, t_failed};
    ssize_t w = write(fds[1], counts, sizeof(counts));
    (void)w;
    close(fds[1]);
    fflush(stdout);
    fflush(stderr);
    /* _exit skips LeakSanitizer's exit hook: check this test's leaks here */
    _exit(t_leak_check() ? 23 : 0);
  }
  close(fds[1]);
  long counts[2] = {0, 0};
  size_t got = 0;
  while (got < sizeof(counts)) {
    ssize_t r = read(fds[0], (char *)counts + got, sizeof(counts) - got);
    if (r <= 0) break;
    got += (size_t)r;
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (got == sizeof(counts)) {
    t_passed += counts[0];
    t_failed += counts[1];
    if (counts[1] != 0) fprintf(stderr, "FAILED: %s\n", name);
  }
  if (WIFSIGNALED(status)) {
    t_failed++;
    fprintf(stderr, "CRASH: %s killed by signal %d\n", name, WTERMSIG(status));
  } else if (got == sizeof(counts) && WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    /* the counts arrived but the child then failed: a leak found by
       LeakSanitizer, or valgrind's --error-exitcode */
    t_failed++;
    fprintf(stderr, "FAILED: %s exited with status %d after its checks (leak or memory error)\n",
            name, WEXITSTATUS(status));
  } else if (got != sizeof(counts)) {
    t_failed++;
    fprintf(stderr, "FAILED: %s exited early (status %d) without reporting\n", name,
            WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
}

#define RUN(fn) t_run(#fn, fn)

static const char *t_progname = "test";

#define TEST_BEGIN(argc, argv)                                          \
  do {                                                                  \
    (void)(argc);                                                       \
    t_progname = (argv)[0];                                             \
    const char *_s = strrchr(t_progname, '/');                          \
    if (_s) t_progname = _s + 1;                                        \
    setvbuf(stdout, NULL, _IONBF, 0);                                   \
  } while (0)

static int TEST_SUMMARY(void) {
  printf("%s: %ld passed, %ld failed\n", t_progname, t_passed, t_failed);
  return t_failed == 0 ? 0 : 1;
}

/* ------------------------------------------------------------------ */
/* guard-byte buffers                                                   */
/* ------------------------------------------------------------------ */

#define GUARD_LEN 64
#define GUARD_BYTE 0xA7

/* malloc n + GUARD_LEN bytes; the n bytes are filled with `fill`, the guard
   bytes with GUARD_BYTE. */
T_UNUSED static uint8_t *gbuf(size_t n, int fill) {
  uint8_t *p = (uint8_t *)malloc(n + GUARD_LEN);
  if (p == NULL) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  memset(p, fill, n);
  memset(p + n, GUARD_BYTE, GUARD_LEN);
  return p;
}

T_UNUSED static int guard_ok(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < GUARD_LEN; i++) {
    if (p[n + i] != GUARD_BYTE) return 0;
  }
  return 1;
}

/* ------------------------------------------------------------------ */
/* data generators                                                      */
/* ------------------------------------------------------------------ */

static uint64_t t_rng_state = 0x9E3779B97F4A7C15ULL;

T_UNUSED static inline uint64_t t_rand64(void) {
  uint64_t x = t_rng_state;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  t_rng_state = x;
  return x;
}

T_UNUSED static void t_seed(uint64_t s) { t_rng_state = s ? s : 1; }

/* incompressible bytes */
T_UNUSED static void fill_random(void *buf, size_t n, uint64_t seed) {
  t_seed(seed);
  uint8_t *p = (uint8_t *)buf;
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(t_rand64() >> 24);
}

/* int32 ramp (very compressible with shuffle) */
T_UNUSED static void fill_ramp32(void *buf, size_t n) {
  uint8_t *p = (uint8_t *)buf;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    int32_t v = (int32_t)(i / 4);
    memcpy(p + i, &v, 4);
  }
  for (; i < n; i++) p[i] = (uint8_t)i;
}

/* int64 ramp */
T_UNUSED static void fill_ramp64(void *buf, size_t n) {
  uint8_t *p = (uint8_t *)buf;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    int64_t v = (int64_t)(i / 8) * 3 + 1000000007LL;
    memcpy(p + i, &v, 8);
  }
  for (; i < n; i++) p[i] = (uint8_t)(i * 5);
}

/* compressible but not trivial bytes: a mix of runs, text-like patterns and
   some noise */
T_UNUSED static void fill_mixed(void *buf, size_t n, uint64_t seed) {
  t_seed(seed);
  uint8_t *p = (uint8_t *)buf;
  static const char words[] =
      "the quick brown fox jumps over the lazy dog blosc shuffles bytes ";
  size_t wl = sizeof(words) - 1;
  for (size_t i = 0; i < n; i++) {
    uint64_t r = t_rand64();
    switch ((i / 97) % 4) {
      case 0: p[i] = (uint8_t)words[(i + (r & 3)) % wl]; break;
      case 1: p[i] = (uint8_t)(i / 13); break;
      case 2: p[i] = (uint8_t)((r & 7) == 0 ? r >> 32 : 0x41); break;
      default: p[i] = (uint8_t)(i * 31 + (i >> 8)); break;
    }
  }
}

/* a smooth integer wave (triangle plus a slow drift); no libm needed and
   exactly reproducible */
T_UNUSED static inline int64_t t_wave(size_t k, int64_t period) {
  int64_t m = (int64_t)(k % (size_t)(2 * period));
  int64_t tri = m < period ? m : 2 * period - m;
  return tri * 7 + (int64_t)(k / (size_t)(2 * period)) * 3;
}

/* float32 smooth data (values exactly representable) */
T_UNUSED static void fill_float32(void *buf, size_t n) {
  uint8_t *p = (uint8_t *)buf;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    float v = (float)t_wave(i / 4, 1500) * 0.125f - 1000.0f;
    memcpy(p + i, &v, 4);
  }
  for (; i < n; i++) p[i] = (uint8_t)i;
}

/* float64 smooth data (values exactly representable) */
T_UNUSED static void fill_float64(void *buf, size_t n) {
  uint8_t *p = (uint8_t *)buf;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    double v = (double)t_wave(i / 8, 4000) * 0.03125 + 12345.5;
    memcpy(p + i, &v, 8);
  }
  for (; i < n; i++) p[i] = (uint8_t)i;
}

/* ------------------------------------------------------------------ */
/* chunk header accessors                                               */
/* ------------------------------------------------------------------ */

T_UNUSED static inline int32_t rd_i32(const void *p) {
  int32_t v;
  memcpy(&v, p, 4);
  return v;
}

T_UNUSED static inline void wr_i32(void *p, int32_t v) { memcpy(p, &v, 4); }

#define HDR_VERSION(c) (((const uint8_t *)(c))[0])
#define HDR_VERSIONLZ(c) (((const uint8_t *)(c))[1])
#define HDR_FLAGS(c) (((const uint8_t *)(c))[2])
#define HDR_TYPESIZE(c) (((const uint8_t *)(c))[3])
#define HDR_NBYTES(c) rd_i32((const uint8_t *)(c) + 4)
#define HDR_BLOCKSIZE(c) rd_i32((const uint8_t *)(c) + 8)
#define HDR_CBYTES(c) rd_i32((const uint8_t *)(c) + 12)
#define HDR_FILTER(c, i) (((const uint8_t *)(c))[16 + (i)])
#define HDR_UDCOMPCODE(c) (((const uint8_t *)(c))[22])
#define HDR_COMPCODE_META(c) (((const uint8_t *)(c))[23])
#define HDR_FILTER_META(c, i) (((const uint8_t *)(c))[24 + (i)])
#define HDR_FLAGS2(c) (((const uint8_t *)(c))[30])
#define HDR_BLOSC2_FLAGS(c) (((const uint8_t *)(c))[31])
#define HDR_IS_EXTENDED(c) ((HDR_FLAGS(c) & 0x05) == 0x05)
#define HDR_IS_MEMCPYED(c) ((HDR_FLAGS(c) & 0x02) != 0)
#define HDR_DONT_SPLIT(c) ((HDR_FLAGS(c) & 0x10) != 0)
#define HDR_FORMAT(c) (HDR_FLAGS(c) >> 5)
#define HDR_SPECIAL(c) ((HDR_BLOSC2_FLAGS(c) >> 4) & 0x07)

/* FNV-1a 64 of a byte range (for exact-bytes checks of BloscLZ/special/
   memcpyed chunks, which b2rs reproduces byte for byte) */
T_UNUSED static uint64_t fnv1a(const void *data, size_t n) {
  const uint8_t *p = (const uint8_t *)data;
  uint64_t h = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

/* public codec id -> chunk format code (flags >> 5) */
T_UNUSED static inline int codec_format(int compcode) {
  switch (compcode) {
    case BLOSC_BLOSCLZ: return 0;
    case BLOSC_LZ4: return 1;
    case BLOSC_LZ4HC: return 1;
    case BLOSC_ZLIB: return 3;
    case BLOSC_ZSTD: return 4;
    default: return 6;
  }
}

static const int ALL_CODECS[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
#define N_ALL_CODECS 5
static const char *const ALL_CODEC_NAMES[] = {"blosclz", "lz4", "lz4hc", "zlib", "zstd"};

/* cparams with no filters */
T_UNUSED static inline blosc2_cparams cparams_nofilter(int compcode, int clevel, int32_t typesize) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)compcode;
  cp.clevel = (uint8_t)clevel;
  cp.typesize = typesize;
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) {
    cp.filters[i] = 0;
    cp.filters_meta[i] = 0;
  }
  return cp;
}

/* compress `src` with cparams into a fresh malloc'd buffer (guarded); returns
   cbytes (or the error) and stores the buffer in *out */
T_UNUSED static int compress_with(blosc2_cparams cp, const void *src, int32_t n, uint8_t **out) {
  int32_t cap = n + BLOSC2_MAX_OVERHEAD;
  uint8_t *dst = gbuf((size_t)cap, 0);
  blosc2_context *cctx = blosc2_create_cctx(cp);
  int rc = BLOSC2_ERROR_NULL_POINTER;
  if (cctx != NULL) {
    rc = blosc2_compress_ctx(cctx, src, n, dst, cap);
    blosc2_free_ctx(cctx);
  }
  if (!guard_ok(dst, (size_t)cap)) {
    fprintf(stderr, "compress_with: guard bytes overwritten\n");
    t_failed++;
  }
  *out = dst;
  return rc;
}

/* decompress a chunk with a fresh default dctx into a guarded buffer of
   `cap` bytes; returns the rc, buffer in *out */
T_UNUSED static int decompress_with(int nthreads, const void *chunk, int32_t csize, int32_t cap,
                           uint8_t **out) {
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)nthreads;
  uint8_t *dst = gbuf((size_t)(cap > 0 ? cap : 0), 0x5A);
  blosc2_context *dctx = blosc2_create_dctx(dp);
  int rc = BLOSC2_ERROR_NULL_POINTER;
  if (dctx != NULL) {
    rc = blosc2_decompress_ctx(dctx, chunk, csize, dst, cap);
    blosc2_free_ctx(dctx);
  }
  if (!guard_ok(dst, (size_t)(cap > 0 ? cap : 0))) {
    fprintf(stderr, "decompress_with: guard bytes overwritten\n");
    t_failed++;
  }
  *out = dst;
  return rc;
}

#endif /* B2RS_TEST_H */
