/*
 * test_env.c - the environment variables the reference reads for the
 * blosc1/global API and for contexts.
 *
 * What the reference (C-Blosc2 3.3.5) does, learned by running it:
 *
 *   read by blosc1_compress, blosc2_compress (every call) and by
 *   blosc2_create_cctx (once, at creation; later changes do not affect an
 *   existing context, blosc2_compress_ctx reads nothing):
 *     BLOSC_CLEVEL=n        clevel = n if strtol(n) >= 0 (so "abc" -> 0);
 *                           n > 9 then fails with -8
 *     BLOSC_SHUFFLE=NOSHUFFLE|SHUFFLE|BITSHUFFLE   other values ignored
 *     BLOSC_TYPESIZE=n      used if n > 0
 *     BLOSC_COMPRESSOR=name lower-case codec names ("lz4"); anything else
 *                           ("LZ4", "foo") makes compression fail with -7.
 *                           Global API: sticky, like blosc1_set_compressor.
 *     BLOSC_BLOCKSIZE=n     n > 0 forces the blocksize (global: sticky, like
 *                           blosc1_set_blocksize)
 *     BLOSC_SPLITMODE=ALWAYS|NEVER|AUTO|FORWARD_COMPAT (global: sticky)
 *     BLOSC_DELTA=1|0       (global: sticky, like blosc2_set_delta)
 *     BLOSC_NTHREADS=n      global API: blosc2_set_nthreads(n) (sticky);
 *                           contexts: the context's nthreads.  Invalid
 *                           values (0, "abc") are ignored by compression
 *                           and by contexts, but make blosc1_decompress /
 *                           blosc2_decompress fail with -12.
 *   read by blosc1_decompress, blosc2_decompress, blosc2_create_dctx:
 *     BLOSC_NTHREADS
 *   read by blosc1_compress and blosc2_compress only (not contexts):
 *     BLOSC_BLOSC1_COMPAT   any value, even "" or "0": write 16-byte-header
 *                           chunks (version 5)
 *   not read: blosc2_init (BLOSC_NTHREADS), getitem functions.
 *
 * Each test runs in its own forked process, so setenv() does not leak.
 * No reference bugs are compiled out here.
 */
#include "b2rs_test.h"

#define N 200000

static uint8_t *g_src;

static void setup(void) {
  g_src = malloc(N);
  fill_ramp32(g_src, N);
  blosc2_init();
}

/* compress g_src with each of the three entry points that read the
   environment; results into chunks[3] (guarded, N + 32 bytes) */
enum { VIA_BLOSC1, VIA_BLOSC2, VIA_CTX };
static int compress_via(int via, int clevel, int doshuffle, int typesize, uint8_t **out) {
  uint8_t *dst = gbuf(N + 32, 0);
  int rc;
  if (via == VIA_BLOSC1) {
    rc = blosc1_compress(clevel, doshuffle, (size_t)typesize, N, g_src, dst, N + 32);
  } else if (via == VIA_BLOSC2) {
    rc = blosc2_compress(clevel, doshuffle, typesize, g_src, N, dst, N + 32);
  } else {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.clevel = (uint8_t)clevel;
    cp.typesize = typesize;
    cp.filters[5] = (uint8_t)doshuffle;
    blosc2_context *cctx = blosc2_create_cctx(cp);
    rc = blosc2_compress_ctx(cctx, g_src, N, dst, N + 32);
    blosc2_free_ctx(cctx);
  }
  CHECK_GUARD(dst, N + 32);
  *out = dst;
  return rc;
}

static void check_decodes(const uint8_t *chunk, int cb) {
  uint8_t *out;
  CHECK_EQ(decompress_with(1, chunk, cb, N, &out), N);
  CHECK_MEM(out, g_src, N);
  free(out);
}

static void test_env_clevel(void) {
  setup();
  setenv("BLOSC_CLEVEL", "0", 1);
  for (int via = 0; via < 3; via++) {
    uint8_t *c;
    int cb = compress_via(via, 9, 1, 4, &c);
    CHECK_EQ(cb, N + 32);
    CHECK(HDR_IS_MEMCPYED(c));
    check_decodes(c, cb);
    free(c);
  }
  setenv("BLOSC_CLEVEL", "9", 1);
  for (int via = 0; via < 3; via++) {
    uint8_t *c;
    int cb = compress_via(via, 0, 1, 4, &c);
    CHECK_GT(cb, 0);
    CHECK_LT(cb, N / 10);
    CHECK(!HDR_IS_MEMCPYED(c));
    check_decodes(c, cb);
    free(c);
  }
  setenv("BLOSC_CLEVEL", "10", 1);
  for (int via = 0; via < 3; via++) {
    uint8_t *c;
    CHECK_EQ(compress_via(via, 5, 1, 4, &c), BLOSC2_ERROR_CODEC_PARAM);
    free(c);
  }
  /* negative values are ignored, non-numbers read as 0 */
  setenv("BLOSC_CLEVEL", "-1", 1);
  for (int via = 0; via < 3; via++) {
    uint8_t *c;
    int cb = compress_via(via, 5, 1, 4, &c);
    CHECK(!HDR_IS_MEMCPYED(c));
    check_decodes(c, cb);
    free(c);
  }
  setenv("BLOSC_CLEVEL", "abc", 1);
  for (int via = 0; via < 3; via++) {
    uint8_t *c;
    int cb = compress_via(via, 5, 1, 4, &c);
    CHECK(HDR_IS_MEMCPYED(c));
    check_decodes(c, cb);
    free(c);
  }
  unsetenv("BLOSC_CLEVEL");
}

static void test_env_compressor(void) {
  setup();
  for (int k = 0; k < N_ALL_CODECS; k++) {
    setenv("BLOSC_COMPRESSOR", ALL_CODEC_NAMES[k], 1);
    for (int via = 0; via < 3; via++) {
      uint8_t *c;
      int cb = compress_via(via, 5, 1, 4, &c);
      CHECK_GT(cb, 0);
      CHECK_EQ(HDR_FORMAT(c), codec_format(ALL_CODECS[k]));
      CHECK_EQ(HDR_UDCOMPCODE(c), ALL_CODECS[k]);
      check_decodes(c, cb);
      free(c);
    }
  }
  /* the global API keeps the compressor after the variable goes away */
  setenv("BLOSC_COMPRESSOR", "zstd", 1);
  uint8_t *c;
  CHECK_GT(compress_via(VIA_BLOSC2, 5, 1, 4, &c), 0);
  free(c);
  unsetenv("BLOSC_COMPRESSOR");
  CHECK_STR(blosc1_get_compressor(), "zstd");
  CHECK_GT(compress_via(VIA_BLOSC1, 5, 1, 4, &c), 0);
  CHECK_EQ(HDR_FORMAT(c), codec_format(BLOSC_ZSTD));
  free(c);
  /* unknown names (upper case included) make compression fail */
  static const char *const bad[] = {"LZ4", "foo", "ZSTD"};
  for (int i = 0; i < 3; i++) {
    setenv("BLOSC_COMPRESSOR", bad[i], 1);
    for (int via = 0; via < 3; via++) {
      CHECK_EQ(compress_via(via, 5, 1, 4, &c), BLOSC2_ERROR_CODEC_SUPPORT);
      free(c);
    }
  }
  unsetenv("BLOSC_COMPRESSOR");
}

static void test_env_shuffle(void) {
  setup();
  static const char *const names[] = {"NOSHUFFLE", "SHUFFLE", "BITSHUFFLE"};
  for (int s = 0; s < 3; s++) {
    setenv("BLOSC_SHUFFLE", names[s], 1);
    for (int via = 0; via < 3; via++) {
      uint8_t *c;
      int cb = compress_via(via, 5, (s + 1) % 3, 4, &c);
      CHECK_GT(cb, 0);
      CHECK_EQ(HDR_FILTER(c, 5), s);
      check_decodes(c, cb);
      free(c);
    }
  }
  setenv("BLOSC_SHUFFLE", "foo", 1);
  for (int via = 0; via < 3; via++) {
    uint8_t *c;
    int cb = compress_via(via, 5, BLOSC_BITSHUFFLE, 4, &c);
    CHECK_EQ(HDR_FILTER(c, 5), BLOSC_BITSHUFFLE);
    check_decodes(c, cb);
    free(c);
  }
  unsetenv("BLOSC_SHUFFLE");
}

static void test_env_typesize(void) {
  setup();
  setenv("BLOSC_TYPESIZE", "2", 1);
  for (int via = 0; via < 3; via++) {
    uint8_t *c;
    int cb = compress_via(via, 5, 1, 4, &c);
    CHECK_EQ(HDR_TYPESIZE(c), 2);
    check_decodes(c, cb);
    free(c);
  }
  static const char *const ignored[] = {"0", "abc", "-3"};
  for (int i = 0; i < 3; i++) {
    setenv("BLOSC_TYPESIZE", ignored[i], 1);
    for (int via = 0; via < 3; via++) {
      uint8_t *c;
      int cb = compress_via(via, 5, 1, 4, &c);
      CHECK_EQ(HDR_TYPESIZE(c), 4);
      check_decodes(c, cb);
      free(c);
    }
  }
  unsetenv("BLOSC_TYPESIZE");
}

static void test_env_blocksize(void) {
  setup();
  setenv("BLOSC_BLOCKSIZE", "4096", 1);
  for (int via = 0; via < 3; via++) {
    uint8_t *c;
    int cb = compress_via(via, 5, 1, 4, &c);
    CHECK_EQ(HDR_BLOCKSIZE(c), 4096);
    check_decodes(c, cb);
    free(c);
  }
  unsetenv("BLOSC_BLOCKSIZE");
  /* sticky for the global API */
  CHECK_EQ(blosc1_get_blocksize(), 4096);
  uint8_t *c;
  compress_via(VIA_BLOSC2, 5, 1, 4, &c);
  CHECK_EQ(HDR_BLOCKSIZE(c), 4096);
  free(c);
  blosc1_set_blocksize(0);
  setenv("BLOSC_BLOCKSIZE", "0", 1);
  for (int via = 0; via < 3; via++) {
    compress_via(via, 5, 1, 4, &c);
    CHECK_EQ(HDR_BLOCKSIZE(c), N);
    free(c);
  }
  setenv("BLOSC_BLOCKSIZE", "abc", 1);
  compress_via(VIA_BLOSC2, 5, 1, 4, &c);
  CHECK_EQ(HDR_BLOCKSIZE(c), N);
  free(c);
  unsetenv("BLOSC_BLOCKSIZE");
}

static void test_env_splitmode(void) {
  setup();
  setenv("BLOSC_SPLITMODE", "NEVER", 1);
  for (int via = 0; via < 3; via++) {
    uint8_t *c;
    int cb = compress_via(via, 5, 1, 4, &c);
    CHECK(HDR_DONT_SPLIT(c));
    check_decodes(c, cb);
    free(c);
  }
  unsetenv("BLOSC_SPLITMODE");
  /* sticky for the global API, not for new contexts */
  uint8_t *c;
  compress_via(VIA_BLOSC2, 5, 1, 4, &c);
  CHECK(HDR_DONT_SPLIT(c));
  free(c);
  compress_via(VIA_CTX, 5, 1, 4, &c);
  CHECK(!HDR_DONT_SPLIT(c));
  free(c);
  /* ALWAYS splits even without shuffle */
  setenv("BLOSC_SPLITMODE", "ALWAYS", 1);
  for (int via = 0; via < 3; via++) {
    int cb = compress_via(via, 5, 0, 4, &c);
    CHECK(!HDR_DONT_SPLIT(c));
    check_decodes(c, cb);
    free(c);
  }
  /* AUTO / FORWARD_COMPAT: shuffle + blosclz splits, no shuffle does not */
  static const char *const modes[] = {"AUTO", "FORWARD_COMPAT"};
  for (int m = 0; m < 2; m++) {
    setenv("BLOSC_SPLITMODE", modes[m], 1);
    for (int via = 0; via < 3; via++) {
      compress_via(via, 5, 0, 4, &c);
      CHECK(HDR_DONT_SPLIT(c));
      free(c);
      compress_via(via, 5, 1, 4, &c);
      CHECK(!HDR_DONT_SPLIT(c));
      free(c);
    }
  }
  /* unknown values are ignored */
  blosc1_set_splitmode(BLOSC_FORWARD_COMPAT_SPLIT);
  setenv("BLOSC_SPLITMODE", "foo", 1);
  compress_via(VIA_BLOSC2, 5, 1, 4, &c);
  CHECK(!HDR_DONT_SPLIT(c));
  free(c);
  unsetenv("BLOSC_SPLITMODE");
}

static void test_env_delta(void) {
  setup();
  setenv("BLOSC_DELTA", "1", 1);
  for (int via = 0; via < 3; via++) {
    uint8_t *c;
    int cb = compress_via(via, 5, 1, 4, &c);
    CHECK_EQ(HDR_FILTER(c, 4), BLOSC_DELTA);
    CHECK((HDR_FLAGS(c) & BLOSC_DODELTA) != 0);
    check_decodes(c, cb);
    free(c);
  }
  unsetenv("BLOSC_DELTA");
  /* sticky for the global API, not for new contexts */
  uint8_t *c;
  compress_via(VIA_BLOSC1, 5, 1, 4, &c);
  CHECK_EQ(HDR_FILTER(c, 4), BLOSC_DELTA);
  free(c);
  compress_via(VIA_CTX, 5, 1, 4, &c);
  CHECK_EQ(HDR_FILTER(c, 4), 0);
  free(c);
  setenv("BLOSC_DELTA", "0", 1);
  for (int via = 0; via < 3; via++) {
    compress_via(via, 5, 1, 4, &c);
    CHECK_EQ(HDR_FILTER(c, 4), 0);
    free(c);
  }
  unsetenv("BLOSC_DELTA");
}

static void test_env_nthreads(void) {
  setenv("BLOSC_NTHREADS", "3", 1);
  /* blosc2_init does not read it */
  setup();
  CHECK_EQ(blosc2_get_nthreads(), 1);
  uint8_t *c;
  int cb = compress_via(VIA_BLOSC2, 5, 1, 4, &c);
  CHECK_GT(cb, 0);
  CHECK_EQ(blosc2_get_nthreads(), 3);
  setenv("BLOSC_NTHREADS", "2", 1);
  uint8_t *out = gbuf(N, 0);
  CHECK_EQ(blosc2_decompress(c, cb, out, N), N);
  CHECK_MEM(out, g_src, N);
  CHECK_EQ(blosc2_get_nthreads(), 2);
  setenv("BLOSC_NTHREADS", "4", 1);
  CHECK_EQ(blosc1_decompress(c, out, N), N);
  CHECK_EQ(blosc2_get_nthreads(), 4);
  /* getitem does not read it */
  setenv("BLOSC_NTHREADS", "2", 1);
  CHECK_EQ(blosc1_getitem(c, 10, 10, out), 40);
  CHECK_EQ(blosc2_getitem(c, cb, 10, 10, out, N), 40);
  CHECK_EQ(blosc2_get_nthreads(), 4);
  /* contexts take it at creation */
  setenv("BLOSC_NTHREADS", "3", 1);
  blosc2_context *cctx = blosc2_create_cctx(BLOSC2_CPARAMS_DEFAULTS);
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  blosc2_cparams gc;
  blosc2_dparams gd;
  CHECK_EQ(blosc2_ctx_get_cparams(cctx, &gc), 0);
  CHECK_EQ(blosc2_ctx_get_dparams(dctx, &gd), 0);
  CHECK_EQ(gc.nthreads, 3);
  CHECK_EQ(gd.nthreads, 3);
  CHECK_EQ(blosc2_get_nthreads(), 4);
  CHECK_EQ(blosc2_decompress_ctx(dctx, c, cb, out, N), N);
  CHECK_MEM(out, g_src, N);
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  free(c);
  /* invalid values: compression ignores them, the global decompressors
     fail, contexts keep their own value */
  blosc2_set_nthreads(1);
  static const char *const bad[] = {"0", "abc", "-2"};
  for (int i = 0; i < 3; i++) {
    setenv("BLOSC_NTHREADS", bad[i], 1);
    cb = compress_via(VIA_BLOSC2, 5, 1, 4, &c);
    CHECK_GT(cb, 0);
    CHECK_EQ(blosc2_get_nthreads(), 1);
    CHECK_EQ(blosc2_decompress(c, cb, out, N), BLOSC2_ERROR_INVALID_PARAM);
    CHECK_EQ(blosc1_decompress(c, out, N), BLOSC2_ERROR_INVALID_PARAM);
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = 2;
    dctx = blosc2_create_dctx(dp);
    CHECK(dctx != NULL);
    CHECK_EQ(blosc2_ctx_get_dparams(dctx, &gd), 0);
    CHECK_EQ(gd.nthreads, 2);
    CHECK_EQ(blosc2_decompress_ctx(dctx, c, cb, out, N), N);
    blosc2_free_ctx(dctx);
    free(c);
    cb = compress_via(VIA_CTX, 5, 1, 4, &c);
    CHECK_GT(cb, 0);
    free(c);
  }
  CHECK_GUARD(out, N);
  free(out);
  unsetenv("BLOSC_NTHREADS");
}

static void test_env_blosc1_compat(void) {
  setup();
  static const char *const values[] = {"1", "0", ""};
  for (int i = 0; i < 3; i++) {
    setenv("BLOSC_BLOSC1_COMPAT", values[i], 1);
    for (int via = 0; via < 3; via++) {
      for (int sh = 0; sh <= 2; sh++) {
        uint8_t *c;
        int cb = compress_via(via, 5, sh, 4, &c);
        CHECK_GT(cb, 0);
        if (via == VIA_CTX) {
          CHECK(HDR_IS_EXTENDED(c));
        } else {
          CHECK(!HDR_IS_EXTENDED(c));
          CHECK_EQ(HDR_VERSION(c), 5);
          /* the filter shows in the flags */
          if (sh == 1) CHECK_EQ(HDR_FLAGS(c) & 0x05, BLOSC_DOSHUFFLE);
          if (sh == 2) CHECK_EQ(HDR_FLAGS(c) & 0x05, BLOSC_DOBITSHUFFLE);
          if (sh == 0) CHECK_EQ(HDR_FLAGS(c) & 0x05, 0);
          CHECK_EQ(HDR_NBYTES(c), N);
          CHECK_EQ(HDR_CBYTES(c), cb);
        }
        check_decodes(c, cb);
        free(c);
      }
    }
    /* memcpyed and tiny chunks too */
    uint8_t *c;
    int cb = compress_via(VIA_BLOSC2, 0, 1, 4, &c);
    CHECK_EQ(cb, N + 16);
    CHECK(HDR_IS_MEMCPYED(c));
    CHECK_MEM(c + 16, g_src, N);
    check_decodes(c, cb);
    free(c);
  }
  unsetenv("BLOSC_BLOSC1_COMPAT");
}

/* a context keeps what the environment said when it was created */
static void test_env_context_snapshot(void) {
  setup();
  setenv("BLOSC_TYPESIZE", "8", 1);
  setenv("BLOSC_CLEVEL", "0", 1);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.compcode = BLOSC_LZ4;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  unsetenv("BLOSC_TYPESIZE");
  unsetenv("BLOSC_CLEVEL");
  blosc2_cparams got;
  CHECK_EQ(blosc2_ctx_get_cparams(cctx, &got), 0);
  CHECK_EQ(got.typesize, 8);
  CHECK_EQ(got.clevel, 0);
  uint8_t *dst = gbuf(N + 32, 0);
  int cb = blosc2_compress_ctx(cctx, g_src, N, dst, N + 32);
  CHECK_EQ(cb, N + 32);
  CHECK_EQ(HDR_TYPESIZE(dst), 8);
  CHECK(HDR_IS_MEMCPYED(dst));
  /* variables set after creation do not matter */
  setenv("BLOSC_COMPRESSOR", "zstd", 1);
  setenv("BLOSC_CLEVEL", "9", 1);
  cb = blosc2_compress_ctx(cctx, g_src, N, dst, N + 32);
  CHECK(HDR_IS_MEMCPYED(dst));
  unsetenv("BLOSC_COMPRESSOR");
  unsetenv("BLOSC_CLEVEL");
  CHECK_GUARD(dst, N + 32);
  free(dst);
  blosc2_free_ctx(cctx);
}

/* decompression and getitem ignore the compression variables */
static void test_env_decompression_unaffected(void) {
  setup();
  uint8_t *c;
  int cb = compress_via(VIA_CTX, 5, 1, 4, &c);
  setenv("BLOSC_CLEVEL", "0", 1);
  setenv("BLOSC_TYPESIZE", "2", 1);
  setenv("BLOSC_SHUFFLE", "NOSHUFFLE", 1);
  setenv("BLOSC_COMPRESSOR", "foo", 1);
  setenv("BLOSC_BLOCKSIZE", "4096", 1);
  setenv("BLOSC_DELTA", "1", 1);
  setenv("BLOSC_BLOSC1_COMPAT", "1", 1);
  uint8_t *out = gbuf(N, 0);
  CHECK_EQ(blosc2_decompress(c, cb, out, N), N);
  CHECK_MEM(out, g_src, N);
  CHECK_EQ(blosc1_decompress(c, out, N), N);
  CHECK_EQ(blosc2_getitem(c, cb, 100, 100, out, N), 400);
  CHECK_MEM(out, g_src + 400, 400);
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  CHECK_EQ(blosc2_decompress_ctx(dctx, c, cb, out, N), N);
  CHECK_MEM(out, g_src, N);
  blosc2_free_ctx(dctx);
  CHECK_GUARD(out, N);
  free(out);
  free(c);
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  /* start from a clean environment for the variables under test */
  static const char *const vars[] = {"BLOSC_NTHREADS", "BLOSC_CLEVEL", "BLOSC_COMPRESSOR",
                                     "BLOSC_SHUFFLE", "BLOSC_TYPESIZE", "BLOSC_BLOCKSIZE",
                                     "BLOSC_SPLITMODE", "BLOSC_DELTA", "BLOSC_BLOSC1_COMPAT",
                                     "BLOSC_NOLOCK"};
  for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) unsetenv(vars[i]);
  RUN(test_env_clevel);
  RUN(test_env_compressor);
  RUN(test_env_shuffle);
  RUN(test_env_typesize);
  RUN(test_env_blocksize);
  RUN(test_env_splitmode);
  RUN(test_env_delta);
  RUN(test_env_nthreads);
  RUN(test_env_blosc1_compat);
  RUN(test_env_context_snapshot);
  RUN(test_env_decompression_unaffected);
  return TEST_SUMMARY();
}
