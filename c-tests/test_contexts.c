/*
 * test_contexts.c - area 3 of API.md: contexts, cparams/dparams and the
 * default getters.
 *
 * Functions covered: blosc2_create_cctx, blosc2_create_dctx, blosc2_free_ctx,
 * blosc2_ctx_get_cparams, blosc2_ctx_get_dparams, blosc2_set_maskout,
 * blosc2_get_blosc2_cparams_defaults, blosc2_get_blosc2_dparams_defaults,
 * blosc2_get_blosc2_storage_defaults, blosc2_get_blosc2_io_defaults,
 * blosc2_get_blosc2_stdio_mmap_defaults (+ compress_ctx/decompress_ctx).
 *
 * Not tested because the reference crashes: blosc2_free_ctx(NULL),
 * blosc2_ctx_get_cparams/dparams with a NULL context or NULL output,
 * blosc2_set_maskout with a NULL context or NULL mask, compress_ctx /
 * decompress_ctx with a NULL context, cparams.typesize == 0 (SIGFPE).
 *
 * No reference bugs are compiled out here.
 */
#include "b2rs_test.h"

static void check_cparams_eq(const blosc2_cparams *a, const blosc2_cparams *b) {
  CHECK_EQ(a->compcode, b->compcode);
  CHECK_EQ(a->compcode_meta, b->compcode_meta);
  CHECK_EQ(a->clevel, b->clevel);
  CHECK_EQ(a->use_dict, b->use_dict);
  CHECK_EQ(a->typesize, b->typesize);
  CHECK_EQ(a->nthreads, b->nthreads);
  CHECK_EQ(a->blocksize, b->blocksize);
  CHECK_EQ(a->splitmode, b->splitmode);
  CHECK(a->schunk == b->schunk);
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) {
    CHECK_EQ(a->filters[i], b->filters[i]);
    CHECK_EQ(a->filters_meta[i], b->filters_meta[i]);
  }
  CHECK(a->prefilter == b->prefilter);
  CHECK(a->preparams == b->preparams);
}

static void test_cparams_defaults(void) {
  blosc2_cparams d = blosc2_get_blosc2_cparams_defaults();
  const blosc2_cparams s = BLOSC2_CPARAMS_DEFAULTS;
  check_cparams_eq(&d, &s);
  CHECK_EQ(d.compcode, BLOSC_BLOSCLZ);
  CHECK_EQ(d.compcode_meta, 0);
  CHECK_EQ(d.clevel, 5);
  CHECK_EQ(d.use_dict, 0);
  CHECK_EQ(d.typesize, 8);
  CHECK_EQ(d.nthreads, 1);
  CHECK_EQ(d.blocksize, 0);
  CHECK_EQ(d.splitmode, BLOSC_FORWARD_COMPAT_SPLIT);
  CHECK(d.schunk == NULL);
  for (int i = 0; i < 5; i++) CHECK_EQ(d.filters[i], 0);
  CHECK_EQ(d.filters[5], BLOSC_SHUFFLE);
  for (int i = 0; i < 6; i++) CHECK_EQ(d.filters_meta[i], 0);
  CHECK(d.prefilter == NULL);
  CHECK(d.preparams == NULL);
  CHECK(d.tuner_params == NULL);
  CHECK_EQ(d.tuner_id, 0);
  CHECK(d.instr_codec == false);
  CHECK(d.codec_params == NULL);
  for (int i = 0; i < 6; i++) CHECK(d.filter_params[i] == NULL);
  CHECK_EQ(sizeof(blosc2_cparams), 136);
}

static void test_dparams_defaults(void) {
  blosc2_dparams d = blosc2_get_blosc2_dparams_defaults();
  CHECK_EQ(d.nthreads, 1);
  CHECK(d.schunk == NULL);
  CHECK(d.postfilter == NULL);
  CHECK(d.postparams == NULL);
  CHECK_EQ(d.typesize, 8);
  const blosc2_dparams s = BLOSC2_DPARAMS_DEFAULTS;
  CHECK_EQ(s.nthreads, d.nthreads);
  CHECK_EQ(s.typesize, d.typesize);
  CHECK_EQ(sizeof(blosc2_dparams), 40);
}

static void test_storage_io_mmap_defaults(void) {
  blosc2_storage st = blosc2_get_blosc2_storage_defaults();
  CHECK(st.contiguous == false);
  CHECK(st.urlpath == NULL);
  CHECK(st.cparams == NULL);
  CHECK(st.dparams == NULL);
  CHECK(st.io == NULL);
  CHECK_EQ(sizeof(blosc2_storage), 40);

  blosc2_io io = blosc2_get_blosc2_io_defaults();
  CHECK_EQ(io.id, BLOSC2_IO_FILESYSTEM);
  CHECK_STR(io.name, "filesystem");
  CHECK(io.params == NULL);
  CHECK_EQ(sizeof(blosc2_io), 24);

  blosc2_stdio_mmap m = blosc2_get_blosc2_stdio_mmap_defaults();
  CHECK_STR(m.mode, "r");
  CHECK_EQ(m.initial_mapping_size, (long long)1 << 30);
  CHECK(m.needs_free == false);
  CHECK(m.addr == NULL);
  CHECK(m.urlpath == NULL);
  CHECK_EQ(m.file_size, 0);
  CHECK_EQ(m.mapping_size, 0);
  CHECK(m.is_memory_only == false);
  CHECK(m.file == NULL);
  CHECK_EQ(m.fd, -1);
  CHECK_EQ(m.access_flags, -1);
  CHECK_EQ(m.map_flags, -1);
  CHECK_EQ(sizeof(blosc2_stdio_mmap), 96);
}

static void test_ctx_get_cparams_roundtrip(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = BLOSC_ZSTD;
  cp.compcode_meta = 0;
  cp.clevel = 7;
  cp.typesize = 2;
  cp.nthreads = 3;
  cp.blocksize = 8192;
  cp.splitmode = BLOSC_NEVER_SPLIT;
  cp.filters[0] = BLOSC_DELTA;
  cp.filters[5] = BLOSC_BITSHUFFLE;
  cp.filters_meta[0] = 0;
  cp.filters_meta[5] = 0;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  CHECK(cctx != NULL);
  blosc2_cparams got;
  memset(&got, 0xCC, sizeof(got));
  CHECK_EQ(blosc2_ctx_get_cparams(cctx, &got), 0);
  check_cparams_eq(&got, &cp);
  blosc2_free_ctx(cctx);

  /* defaults */
  cctx = blosc2_create_cctx(BLOSC2_CPARAMS_DEFAULTS);
  CHECK(cctx != NULL);
  memset(&got, 0xCC, sizeof(got));
  CHECK_EQ(blosc2_ctx_get_cparams(cctx, &got), 0);
  const blosc2_cparams d = BLOSC2_CPARAMS_DEFAULTS;
  check_cparams_eq(&got, &d);
  /* after a compression the same, except that (as in the reference) the
     automatic blocksize reports the blocksize last used */
  uint8_t src[50000], dst[50000 + 32];
  fill_ramp64(src, sizeof(src));
  CHECK_GT(blosc2_compress_ctx(cctx, src, sizeof(src), dst, sizeof(dst)), 0);
  memset(&got, 0xCC, sizeof(got));
  CHECK_EQ(blosc2_ctx_get_cparams(cctx, &got), 0);
  CHECK_EQ(got.blocksize, HDR_BLOCKSIZE(dst));
  got.blocksize = 0;
  check_cparams_eq(&got, &d);
  blosc2_free_ctx(cctx);
}

static void test_ctx_get_dparams_roundtrip(void) {
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 3;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  CHECK(dctx != NULL);
  blosc2_dparams got;
  memset(&got, 0xCC, sizeof(got));
  CHECK_EQ(blosc2_ctx_get_dparams(dctx, &got), 0);
  CHECK_EQ(got.nthreads, 3);
  CHECK(got.schunk == NULL);
  CHECK(got.postfilter == NULL);
  CHECK(got.postparams == NULL);
  blosc2_free_ctx(dctx);
}

/* a compression context cannot decompress and vice versa */
static void test_ctx_kind_mismatch(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  uint8_t src[40000];
  fill_ramp32(src, sizeof(src));
  uint8_t *dst = gbuf(sizeof(src) + 32, 0);
  uint8_t *out = gbuf(sizeof(src), 0);
  CHECK_EQ(blosc2_compress_ctx(dctx, src, sizeof(src), dst, sizeof(src) + 32),
           BLOSC2_ERROR_INVALID_PARAM);
  int c = blosc2_compress_ctx(cctx, src, sizeof(src), dst, sizeof(src) + 32);
  CHECK_GT(c, 0);
  CHECK_EQ(blosc2_decompress_ctx(cctx, dst, c, out, sizeof(src)), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_decompress_ctx(dctx, dst, c, out, sizeof(src)), (long long)sizeof(src));
  CHECK_MEM(out, src, sizeof(src));
  CHECK_GUARD(dst, sizeof(src) + 32);
  CHECK_GUARD(out, sizeof(src));
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  free(dst);
  free(out);
}

/* one context compresses many buffers of different sizes / contents */
static void test_ctx_reuse(void) {
  for (int c = 0; c < N_ALL_CODECS; c++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = (uint8_t)ALL_CODECS[c];
    cp.typesize = 4;
    blosc2_context *cctx = blosc2_create_cctx(cp);
    blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
    static const int32_t sizes[] = {100000, 10, 0, 65536, 300001, 4096, 33};
    size_t maxn = 300001;
    uint8_t *src = malloc(maxn);
    uint8_t *dst = gbuf(maxn + 32, 0);
    uint8_t *out = gbuf(maxn, 0);
    for (int rep = 0; rep < 2; rep++) {
      for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        int32_t n = sizes[i];
        fill_mixed(src, (size_t)n, (uint64_t)(i + 10 * rep + 1));
        int cb = blosc2_compress_ctx(cctx, src, n, dst, n + 32);
        CHECK_GT(cb, 0);
        CHECK_EQ(HDR_NBYTES(dst), n);
        int d = blosc2_decompress_ctx(dctx, dst, cb, out, (int32_t)maxn);
        CHECK_EQ(d, n);
        CHECK_MEM(out, src, (size_t)n);
      }
    }
    CHECK_GUARD(dst, maxn + 32);
    CHECK_GUARD(out, maxn);
    free(src);
    free(dst);
    free(out);
    blosc2_free_ctx(cctx);
    blosc2_free_ctx(dctx);
  }
}

/* parameters that create_cctx refuses (returns NULL) */
static void test_create_cctx_refused(void) {
  static const int bad_filters[] = {5, 6, 31, 37, 100, 159};
  for (size_t i = 0; i < sizeof(bad_filters) / sizeof(bad_filters[0]); i++) {
    for (int slot = 0; slot < 6; slot += 5) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.filters[slot] = (uint8_t)bad_filters[i];
      blosc2_context *cctx = blosc2_create_cctx(cp);
      CHECK(cctx == NULL);
      if (cctx) blosc2_free_ctx(cctx);
    }
  }
}

/* parameters that create_cctx accepts but compression refuses */
static void test_compress_ctx_refused(void) {
  uint8_t src[40000];
  fill_ramp32(src, sizeof(src));
  size_t cap = sizeof(src) + 32;
  struct {
    int field, value, expect;
  } cases[] = {
      {0, 10, BLOSC2_ERROR_CODEC_PARAM},       /* clevel 10 */
      {0, 255, BLOSC2_ERROR_CODEC_PARAM},      /* clevel 255 */
      {1, 3, BLOSC2_ERROR_CODEC_SUPPORT},      /* codec id 3 (was snappy) */
      {1, 6, BLOSC2_ERROR_CODEC_SUPPORT},      /* BLOSC_LAST_CODEC */
      {1, 7, BLOSC2_ERROR_CODEC_SUPPORT},
      {1, 31, BLOSC2_ERROR_CODEC_SUPPORT},
      {1, 41, BLOSC2_ERROR_CODEC_SUPPORT},     /* not a registered plugin */
      {1, 100, BLOSC2_ERROR_CODEC_SUPPORT},
      {1, 159, BLOSC2_ERROR_CODEC_SUPPORT},
      {1, 160, BLOSC2_ERROR_CODEC_SUPPORT},    /* user range, unregistered */
      {1, 255, BLOSC2_ERROR_CODEC_SUPPORT},
      {2, BLOSC2_MAXTYPESIZE + 1, BLOSC2_ERROR_INVALID_PARAM}, /* typesize */
      {3, 160, BLOSC2_ERROR_FILTER_PIPELINE},  /* user filter, unregistered */
      {3, 255, BLOSC2_ERROR_FILTER_PIPELINE},
      {4, BLOSC_BLOSCLZ, BLOSC2_ERROR_CODEC_PARAM}, /* use_dict + blosclz */
      {4, BLOSC_ZLIB, BLOSC2_ERROR_CODEC_PARAM},    /* use_dict + zlib */
      {5, 0, BLOSC2_ERROR_FILTER_PIPELINE},    /* trunc_prec with meta 0 */
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    switch (cases[i].field) {
      case 0: cp.clevel = (uint8_t)cases[i].value; break;
      case 1: cp.compcode = (uint8_t)cases[i].value; break;
      case 2: cp.typesize = cases[i].value; break;
      case 3: cp.filters[5] = (uint8_t)cases[i].value; break;
      case 4: cp.compcode = (uint8_t)cases[i].value; cp.use_dict = 1; break;
      case 5: cp.filters[0] = BLOSC_TRUNC_PREC; cp.filters_meta[0] = (uint8_t)cases[i].value; break;
    }
    blosc2_context *cctx = blosc2_create_cctx(cp);
    CHECK(cctx != NULL);
    if (cctx == NULL) continue;
    uint8_t *dst = gbuf(cap, 0);
    int rc = blosc2_compress_ctx(cctx, src, sizeof(src), dst, (int32_t)cap);
    if (rc != cases[i].expect) fprintf(stderr, "  case %zu (field %d value %d)\n", i,
                                       cases[i].field, cases[i].value);
    CHECK_EQ(rc, cases[i].expect);
    CHECK_GUARD(dst, cap);
    free(dst);
    blosc2_free_ctx(cctx);
  }
}

/* out-of-range values that the reference tolerates: nthreads <= 0 and an
   unknown splitmode still compress correctly */
static void test_tolerated_params(void) {
  uint8_t src[40000];
  fill_ramp32(src, sizeof(src));
  struct {
    int field, value;
  } cases[] = {{0, 0}, {0, -1}, {1, 0}, {1, 5}, {1, -1}, {1, 100}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    if (cases[i].field == 0) cp.nthreads = (int16_t)cases[i].value;
    else cp.splitmode = cases[i].value;
    uint8_t *chunk;
    int rc = compress_with(cp, src, sizeof(src), &chunk);
    CHECK_GT(rc, 0);
    uint8_t *out;
    CHECK_EQ(decompress_with(1, chunk, rc, sizeof(src), &out), (long long)sizeof(src));
    CHECK_MEM(out, src, sizeof(src));
    free(out);
    free(chunk);
  }
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 0;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  CHECK(dctx != NULL);
  if (dctx) blosc2_free_ctx(dctx);
}

static void test_maskout(void) {
  for (int nthreads = 1; nthreads <= 4; nthreads *= 4) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    cp.blocksize = 4000;
    size_t n = 38000; /* 10 blocks, the last one short */
    uint8_t *src = malloc(n);
    fill_ramp32(src, n);
    uint8_t *chunk;
    int cb = compress_with(cp, src, (int32_t)n, &chunk);
    CHECK_GT(cb, 0);
    CHECK_EQ(HDR_BLOCKSIZE(chunk), 4000);
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = (int16_t)nthreads;
    blosc2_context *dctx = blosc2_create_dctx(dp);
    bool mask[10] = {false, true, false, true, false, true, false, true, false, true};
    CHECK_EQ(blosc2_set_maskout(dctx, mask, 10), 0);
    uint8_t *out = gbuf(n, 0xEE);
    CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, cb, out, (int32_t)n), (long long)n);
    for (int b = 0; b < 10; b++) {
      size_t s = (size_t)b * 4000, l = b == 9 ? 2000 : 4000;
      if (mask[b]) {
        /* masked blocks are not written */
        uint8_t *ee = malloc(l);
        memset(ee, 0xEE, l);
        CHECK_MEM(out + s, ee, l);
        free(ee);
      } else {
        CHECK_MEM(out + s, src + s, l);
      }
    }
    CHECK_GUARD(out, n);
    /* the mask is used once only */
    memset(out, 0xEE, n);
    CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, cb, out, (int32_t)n), (long long)n);
    CHECK_MEM(out, src, n);
    /* everything masked */
    bool all[10];
    for (int i = 0; i < 10; i++) all[i] = true;
    CHECK_EQ(blosc2_set_maskout(dctx, all, 10), 0);
    memset(out, 0xEE, n);
    CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, cb, out, (int32_t)n), (long long)n);
    CHECK_EQ(out[0], 0xEE);
    CHECK_EQ(out[n - 1], 0xEE);
    /* a mask for the wrong number of blocks is an error, and is then dropped */
    CHECK_EQ(blosc2_set_maskout(dctx, mask, 3), 0);
    CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, cb, out, (int32_t)n), BLOSC2_ERROR_DATA);
    CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, cb, out, (int32_t)n), (long long)n);
    CHECK_MEM(out, src, n);
    CHECK_EQ(blosc2_set_maskout(dctx, mask, 0), 0);
    CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, cb, out, (int32_t)n), BLOSC2_ERROR_DATA);
    CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, cb, out, (int32_t)n), (long long)n);
    /* negative block count */
    CHECK_EQ(blosc2_set_maskout(dctx, mask, -1), BLOSC2_ERROR_MEMORY_ALLOC);
    CHECK_GUARD(out, n);
    blosc2_free_ctx(dctx);
    free(out);
    free(chunk);

    /* memcpyed chunk: the unmasked blocks are still right */
    cp.clevel = 0;
    cb = compress_with(cp, src, (int32_t)n, &chunk);
    CHECK(HDR_IS_MEMCPYED(chunk));
    dctx = blosc2_create_dctx(dp);
    out = gbuf(n, 0xEE);
    CHECK_EQ(blosc2_set_maskout(dctx, mask, 10), 0);
    CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, cb, out, (int32_t)n), (long long)n);
    for (int b = 0; b < 10; b += 2) {
      size_t s = (size_t)b * 4000;
      CHECK_MEM(out + s, src + s, 4000);
    }
    CHECK_GUARD(out, n);
    blosc2_free_ctx(dctx);
    free(out);
    free(chunk);
    free(src);
  }
}

/* a compression context ignores set_maskout: it is accepted */
static void test_maskout_on_cctx(void) {
  blosc2_context *cctx = blosc2_create_cctx(BLOSC2_CPARAMS_DEFAULTS);
  bool mask[4] = {true, false, true, false};
  CHECK_EQ(blosc2_set_maskout(cctx, mask, 4), 0);
  blosc2_free_ctx(cctx);
}

/* many contexts alive at the same time, freed in a different order */
static void test_many_contexts(void) {
  enum { N = 32 };
  blosc2_context *cc[N], *dc[N];
  for (int i = 0; i < N; i++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = (uint8_t)ALL_CODECS[i % N_ALL_CODECS];
    cp.nthreads = (int16_t)(1 + i % 3);
    cp.typesize = 1 + i % 8;
    cc[i] = blosc2_create_cctx(cp);
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = (int16_t)(1 + i % 2);
    dc[i] = blosc2_create_dctx(dp);
    CHECK(cc[i] != NULL && dc[i] != NULL);
  }
  uint8_t src[70000], dst[70000 + 32], out[70000];
  fill_mixed(src, sizeof(src), 77);
  for (int i = 0; i < N; i++) {
    int cb = blosc2_compress_ctx(cc[i], src, sizeof(src), dst, sizeof(dst));
    CHECK_GT(cb, 0);
    CHECK_EQ(blosc2_decompress_ctx(dc[N - 1 - i], dst, cb, out, sizeof(out)), (long long)sizeof(out));
    CHECK_MEM(out, src, sizeof(src));
  }
  for (int i = N - 1; i >= 0; i -= 2) blosc2_free_ctx(cc[i]);
  for (int i = 0; i < N; i++) blosc2_free_ctx(dc[i]);
  for (int i = N - 2; i >= 0; i -= 2) blosc2_free_ctx(cc[i]);
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  blosc2_init();
  RUN(test_cparams_defaults);
  RUN(test_dparams_defaults);
  RUN(test_storage_io_mmap_defaults);
  RUN(test_ctx_get_cparams_roundtrip);
  RUN(test_ctx_get_dparams_roundtrip);
  RUN(test_ctx_kind_mismatch);
  RUN(test_ctx_reuse);
  RUN(test_create_cctx_refused);
  RUN(test_compress_ctx_refused);
  RUN(test_tolerated_params);
  RUN(test_maskout);
  RUN(test_maskout_on_cctx);
  RUN(test_many_contexts);
  blosc2_destroy();
  return TEST_SUMMARY();
}
