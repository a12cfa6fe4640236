/*
 * test_plugin_filters.c - the plugin filters that C-Blosc2 registers itself
 * (FILTERS.md 7-8): BLOSC_FILTER_BYTEDELTA (35), BLOSC_FILTER_BYTEDELTA_BUGGY
 * (34) and BLOSC_FILTER_INT_TRUNC (36), plus how filter ids are checked.
 *
 * The filter output itself is captured by a user codec (it receives the
 * filtered block when the chunk is not split) and compared with the
 * definition.  Reference behaviour checked here: bytedelta with meta 0 needs
 * the typesize of cparams.schunk / dparams.schunk (compression without one:
 * -18; decompression without one: -1, the filter's own code); int_trunc
 * accepts precisions 1..bits and -(bits-1)..-1 on typesizes 1, 2, 4, 8 (the
 * header typesize: a typesize > 255 counts as 1) and fails with -18
 * otherwise; blosc2_register_filter refuses ids 34..36 (-1);
 * blosc2_create_cctx refuses undefined ids (5..31, 37..159).
 *
 * Not checked: the trailing bytes (block length not a multiple of the plane
 * count) of a BYTEDELTA_BUGGY block, which C-Blosc2 leaves undefined (b2rs
 * copies them, like BYTEDELTA does).  Chunks under 32 bytes are never
 * filtered, so the capture starts at 32.
 */
#include "b2rs_test.h"
#include "blosc2/filters-registry.h"

#define CAPTURE_ID 240

static uint8_t *captured = NULL;
static int32_t captured_len = -1;

/* stores its input (the filtered block) and declines to compress it */
static int capture_encoder(const uint8_t *in, int32_t in_len, uint8_t *out, int32_t out_len,
                           uint8_t meta, blosc2_cparams *cparams, const void *chunk) {
  (void)out, (void)out_len, (void)meta, (void)cparams, (void)chunk;
  free(captured);
  captured = malloc((size_t)in_len + 1);
  memcpy(captured, in, (size_t)in_len);
  captured_len = in_len;
  return 0;
}

static int capture_decoder(const uint8_t *in, int32_t in_len, uint8_t *out, int32_t out_len,
                           uint8_t meta, blosc2_dparams *dparams, const void *chunk) {
  (void)in, (void)in_len, (void)out, (void)out_len, (void)meta, (void)dparams, (void)chunk;
  return -1;
}

static void register_capture(void) {
  static blosc2_codec c = {CAPTURE_ID, "capture", CAPTURE_ID, 1, capture_encoder,
                           capture_decoder};
  CHECK_EQ(blosc2_register_codec(&c), 0);
}

/* FILTERS.md 7: T planes of P = n / T bytes; 34 restarts the last P % 16
   bytes of each plane from 0; trailing bytes copied */
static void bytedelta_def(int buggy, int t, const uint8_t *src, int32_t n, uint8_t *out) {
  int32_t p = n / t;
  memcpy(out, src, (size_t)n);
  for (int j = 0; j < t; j++) {
    uint8_t prev = 0;
    for (int32_t k = 0; k < p; k++) {
      if (buggy && k == p - p % 16) prev = 0;
      uint8_t v = src[j * p + k];
      out[j * p + k] = (uint8_t)(v - prev);
      prev = v;
    }
  }
}

/* smooth little-endian integers of `ts` bytes with a little noise */
static void fill_smooth(uint8_t *p, size_t n, int ts, uint64_t seed) {
  t_seed(seed);
  size_t i = 0;
  for (uint64_t k = 0; i < n; k++) {
    uint64_t v = k * k / 5 + (t_rand64() >> 60);
    for (int b = 0; b < ts && i < n; b++, i++) p[i] = (uint8_t)(v >> (8 * b));
  }
}

static blosc2_cparams plugin_cparams(int codec, int32_t ts, uint8_t id, uint8_t meta) {
  blosc2_cparams cp = cparams_nofilter(codec, 5, ts);
  cp.filters[4] = BLOSC_SHUFFLE;
  cp.filters[5] = id;
  cp.filters_meta[5] = meta;
  return cp;
}

static void test_bytedelta_filter_output(void) {
  register_capture();
  static const int32_t sizes[] = {32, 43, 100, 255, 1000, 4099, 65536};
  static const int planes[] = {1, 2, 3, 4, 7, 8, 16, 200};
  for (int id = BLOSC_FILTER_BYTEDELTA_BUGGY; id <= BLOSC_FILTER_BYTEDELTA; id++) {
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
      for (size_t pi = 0; pi < sizeof(planes) / sizeof(planes[0]); pi++) {
        int32_t n = sizes[si];
        int t = planes[pi];
        /* 34 leaves all of such a block undefined (C-Blosc2 may then even
           see a run of zeros) */
        if (id == BLOSC_FILTER_BYTEDELTA_BUGGY && t > n) continue;
        uint8_t *src = malloc((size_t)n), *want = malloc((size_t)n);
        fill_random(src, (size_t)n, (uint64_t)(n * 131 + t));
        /* typesize 1 and blocksize n: the filter sees the whole chunk */
        blosc2_cparams cp = cparams_nofilter(CAPTURE_ID, 5, 1);
        cp.filters[5] = (uint8_t)id;
        cp.filters_meta[5] = (uint8_t)t;
        cp.blocksize = n;
        cp.splitmode = BLOSC_NEVER_SPLIT;
        captured_len = -1;
        uint8_t *chunk;
        int cb = compress_with(cp, src, n, &chunk);
        CHECK_GT(cb, 0);
        CHECK_EQ(captured_len, n);
        if (captured_len == n) {
          bytedelta_def(id == BLOSC_FILTER_BYTEDELTA_BUGGY, t, src, n, want);
          /* 34 leaves the trailing bytes undefined in C-Blosc2 */
          int32_t cmp = id == BLOSC_FILTER_BYTEDELTA_BUGGY ? n / t * t : n;
          CHECK_MEM(captured, want, (size_t)cmp);
        }
        free(chunk);
        free(src);
        free(want);
      }
    }
  }
}

static void test_bytedelta_roundtrip(void) {
  static const int32_t tss[] = {1, 2, 4, 8};
  static const int32_t sizes[] = {200000, 200003, 1000, 7};
  size_t nmax = 200003;
  uint8_t *src = malloc(nmax);
  for (int id = BLOSC_FILTER_BYTEDELTA_BUGGY; id <= BLOSC_FILTER_BYTEDELTA; id++) {
    for (int c = 0; c < N_ALL_CODECS; c++) {
      for (int t = 0; t < 4; t++) {
        for (int s = 0; s < 4; s++) {
          int32_t ts = tss[t], n = sizes[s];
          /* 34 leaves trailing bytes undefined: only whole elements */
          if (id == BLOSC_FILTER_BYTEDELTA_BUGGY && n % ts != 0) continue;
          fill_smooth(src, (size_t)n, ts, (uint64_t)(n + ts));
          for (int nt = 1; nt <= 4; nt *= 4) {
            blosc2_cparams cp = plugin_cparams(ALL_CODECS[c], ts, (uint8_t)id, (uint8_t)ts);
            cp.nthreads = (int16_t)nt;
            cp.blocksize = 32768;
            uint8_t *chunk;
            int cb = compress_with(cp, src, n, &chunk);
            CHECK_GT(cb, 0);
            if (cb > 0 && !HDR_IS_MEMCPYED(chunk)) {
              CHECK_EQ(HDR_FILTER(chunk, 5), id);
              CHECK_EQ(HDR_FILTER_META(chunk, 5), ts);
            }
            uint8_t *out;
            CHECK_EQ(decompress_with(nt, chunk, cb, n, &out), n);
            CHECK_MEM(out, src, (size_t)n);
            free(out);
            if (n > 100000 && cb > 0) {
              blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
              uint8_t part[24000];
              int32_t start = 50001 / ts, nitems = 24000 / ts;
              CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, cb, start, nitems, part, sizeof(part)),
                       nitems * ts);
              CHECK_MEM(part, src + start * ts, (size_t)(nitems * ts));
              blosc2_free_ctx(dctx);
            }
            free(chunk);
          }
        }
      }
    }
  }
  free(src);
}

static void test_bytedelta_compresses_better(void) {
  size_t n = 400000;
  uint8_t *src = malloc(n);
  fill_smooth(src, n, 4, 9);
  uint8_t *a, *b;
  int ca = compress_with(plugin_cparams(BLOSC_ZSTD, 4, 0, 0), src, (int32_t)n, &a);
  int cb = compress_with(plugin_cparams(BLOSC_ZSTD, 4, BLOSC_FILTER_BYTEDELTA, 4), src,
                         (int32_t)n, &b);
  CHECK_GT(ca, 0);
  CHECK_GT(cb, 0);
  CHECK_LT(cb, ca);
  free(a);
  free(b);
  free(src);
}

static void test_bytedelta_meta0(void) {
  size_t n = 100000;
  uint8_t *src = malloc(n);
  fill_smooth(src, n, 4, 3);
  for (int id = BLOSC_FILTER_BYTEDELTA_BUGGY; id <= BLOSC_FILTER_BYTEDELTA; id++) {
    /* without a super-chunk: refused */
    blosc2_cparams cp = plugin_cparams(BLOSC_LZ4, 4, (uint8_t)id, 0);
    uint8_t *chunk0, *chunk4;
    CHECK_EQ(compress_with(cp, src, (int32_t)n, &chunk0), BLOSC2_ERROR_FILTER_PIPELINE);
    free(chunk0);
    /* the typesize of cparams.schunk is used */
    blosc2_schunk *sc = calloc(1, sizeof(blosc2_schunk));
    sc->typesize = 4;
    cp.schunk = sc;
    int c0 = compress_with(cp, src, (int32_t)n, &chunk0);
    CHECK_GT(c0, 0);
    int c4 = compress_with(plugin_cparams(BLOSC_LZ4, 4, (uint8_t)id, 4), src, (int32_t)n, &chunk4);
    CHECK_EQ(c0, c4);
    if (c0 > 0 && c0 == c4) {
      CHECK_EQ(HDR_FILTER_META(chunk0, 5), 0);
      CHECK_MEM(chunk0, chunk4, 29);
      CHECK_MEM(chunk0 + 30, chunk4 + 30, (size_t)c0 - 30);
    }
    /* decoding needs it too: without, the filter's error -1 */
    uint8_t *out;
    CHECK_EQ(decompress_with(1, chunk0, c0, (int32_t)n, &out), BLOSC2_ERROR_FAILURE);
    free(out);
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.schunk = sc;
    blosc2_context *dctx = blosc2_create_dctx(dp);
    out = malloc(n);
    CHECK_EQ(blosc2_decompress_ctx(dctx, chunk0, c0, out, (int32_t)n), (long long)n);
    CHECK_MEM(out, src, n);
    blosc2_free_ctx(dctx);
    free(out);
    free(chunk0);
    free(chunk4);
    free(sc);
  }
  free(src);
}

/* whether C-Blosc2 accepts int_trunc precision p on ts-byte integers */
static int int_trunc_valid(int ts, int p, int *zeroed) {
  if (ts != 1 && ts != 2 && ts != 4 && ts != 8) return 0;
  int bits = 8 * ts;
  if (p > bits) return 0; /* bits - p wraps around in C-Blosc2's uint8_t */
  *zeroed = p >= 0 ? bits - p : -p;
  return *zeroed < bits;
}

static void test_int_trunc(void) {
  size_t n = 64000;
  uint8_t *src = malloc(n), *want = malloc(n);
  static const int32_t tss[] = {1, 2, 3, 4, 8, 16};
  for (int t = 0; t < 6; t++) {
    int ts = tss[t];
    fill_smooth(src, n, ts > 8 ? 8 : ts, (uint64_t)ts);
    for (int p = -128; p <= 127; p++) {
      blosc2_cparams cp = cparams_nofilter(BLOSC_BLOSCLZ, 5, ts);
      cp.filters[5] = BLOSC_FILTER_INT_TRUNC;
      cp.filters_meta[5] = (uint8_t)(int8_t)p;
      uint8_t *chunk;
      int cb = compress_with(cp, src, (int32_t)n, &chunk);
      int zeroed = 0;
      if (!int_trunc_valid(ts, p, &zeroed)) {
        CHECK_EQ(cb, BLOSC2_ERROR_FILTER_PIPELINE);
        free(chunk);
        continue;
      }
      CHECK_GT(cb, 0);
      uint64_t mask = zeroed >= 64 ? 0 : ~((UINT64_C(1) << zeroed) - 1);
      for (size_t i = 0; i < n; i += (size_t)ts) {
        for (int b = 0; b < ts; b++) want[i + b] = src[i + b] & (uint8_t)(mask >> (8 * b));
      }
      uint8_t *out;
      CHECK_EQ(decompress_with(2, chunk, cb, (int32_t)n, &out), (long long)n);
      /* a chunk that does not compress even truncated is stored unfiltered */
      CHECK_MEM(out, HDR_IS_MEMCPYED(chunk) ? src : want, n);
      free(out);
      free(chunk);
    }
  }
  /* typesize > 255 is stored as 1 and the filter works on bytes */
  fill_smooth(src, n, 4, 1);
  blosc2_cparams cp = cparams_nofilter(BLOSC_LZ4, 5, 320);
  cp.filters[5] = BLOSC_FILTER_INT_TRUNC;
  cp.filters_meta[5] = 9;
  uint8_t *chunk;
  CHECK_EQ(compress_with(cp, src, 64000, &chunk), BLOSC2_ERROR_FILTER_PIPELINE);
  free(chunk);
  cp.filters_meta[5] = 5;
  int cb = compress_with(cp, src, 64000, &chunk);
  CHECK_GT(cb, 0);
  uint8_t *out;
  CHECK_EQ(decompress_with(1, chunk, cb, 64000, &out), 64000);
  for (size_t i = 0; i < 64000; i++) want[i] = src[i] & 0xF8;
  CHECK_MEM(out, want, 64000);
  free(out);
  free(chunk);
  free(src);
  free(want);
}

static void test_register_refused(void) {
  for (int id = 32; id <= 36; id++) {
    blosc2_filter f = {(uint8_t)id, "mine", 1, NULL, NULL};
    CHECK_EQ(blosc2_register_filter(&f), BLOSC2_ERROR_FAILURE);
  }
  /* the built-in bytedelta is still there */
  size_t n = 50000;
  uint8_t *src = malloc(n);
  fill_smooth(src, n, 2, 4);
  uint8_t *chunk, *out;
  int cb = compress_with(plugin_cparams(BLOSC_LZ4, 2, BLOSC_FILTER_BYTEDELTA, 2), src,
                         (int32_t)n, &chunk);
  CHECK_GT(cb, 0);
  CHECK_EQ(decompress_with(1, chunk, cb, (int32_t)n, &out), (long long)n);
  CHECK_MEM(out, src, n);
  free(out);
  free(chunk);
  free(src);
}

static void test_filter_ids_at_context_creation(void) {
  static const int undefined[] = {5, 6, 31, 37, 38, 100, 159};
  static const int defined[] = {0, 1, 2, 3, 4, 32, 33, 34, 35, 36, 160, 255};
  for (int slot = 0; slot < BLOSC2_MAX_FILTERS; slot += 5) {
    for (size_t i = 0; i < sizeof(undefined) / sizeof(undefined[0]); i++) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.filters[slot] = (uint8_t)undefined[i];
      blosc2_context *c = blosc2_create_cctx(cp);
      CHECK(c == NULL);
      if (c != NULL) blosc2_free_ctx(c);
    }
    for (size_t i = 0; i < sizeof(defined) / sizeof(defined[0]); i++) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.filters[slot] = (uint8_t)defined[i];
      blosc2_context *c = blosc2_create_cctx(cp);
      CHECK(c != NULL);
      if (c != NULL) blosc2_free_ctx(c);
    }
  }
  /* ndcell / ndmean need a b2nd super-chunk: compression fails */
  size_t n = 40000;
  uint8_t *src = malloc(n);
  fill_smooth(src, n, 4, 5);
  for (int id = 32; id <= 33; id++) {
    blosc2_cparams cp = cparams_nofilter(BLOSC_LZ4, 5, 4);
    cp.filters[5] = (uint8_t)id;
    cp.filters_meta[5] = 4;
    uint8_t *chunk;
    CHECK_EQ(compress_with(cp, src, (int32_t)n, &chunk), BLOSC2_ERROR_FILTER_PIPELINE);
    free(chunk);
  }
  free(src);
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  blosc2_init();
  RUN(test_bytedelta_filter_output);
  RUN(test_bytedelta_roundtrip);
  RUN(test_bytedelta_compresses_better);
  RUN(test_bytedelta_meta0);
  RUN(test_int_trunc);
  RUN(test_register_refused);
  RUN(test_filter_ids_at_context_creation);
  blosc2_destroy();
  return TEST_SUMMARY();
}
