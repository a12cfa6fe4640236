/*
 * test_prefilter.c - prefilter and postfilter callbacks (cparams.prefilter /
 * preparams, dparams.postfilter / postparams; blosc2_prefilter_params and
 * blosc2_postfilter_params filled by the library).
 *
 * Checks: every block passes through the callback exactly once with the
 * right input pointer, size, typesize, offset, nblock, nchunk (-1 without a
 * super-chunk), tid < nthreads, ctx and user_data; the prefilter's output is
 * what gets compressed (also for memcpyed chunks, clevel 0); the postfilter
 * output is what decompression and getitem return; 1 and 4 threads; error
 * returns.
 *
 * Reference bugs compiled out with -DB2RS_REFERENCE (see b2rs_test.h):
 *   B2RS_REFERENCE_BUG_PREFILTER_DELTA  the delta case of
 *                                       test_prefilter_with_filters
 */
#include "b2rs_test.h"

#define MAXBLK 256

typedef struct {
  const uint8_t *src;   /* the caller's input */
  int32_t blocksize;
  int32_t nbytes;
  int32_t typesize;
  int nthreads;
  blosc2_context *ctx;  /* expected ctx (NULL: not checked) */
  int fail;             /* return an error */
  int calls[MAXBLK];
  int bad;
} pre_info;

static int my_prefilter(blosc2_prefilter_params *p) {
  pre_info *info = (pre_info *)p->user_data;
  if (info == NULL) return -1;
  int32_t nb = p->nblock;
  if (nb < 0 || nb >= MAXBLK) {
    __atomic_add_fetch(&info->bad, 1, __ATOMIC_RELAXED);
    return -1;
  }
  __atomic_add_fetch(&info->calls[nb], 1, __ATOMIC_RELAXED);
  int32_t expect_size = info->blocksize;
  if ((int64_t)(nb + 1) * info->blocksize > info->nbytes) expect_size = info->nbytes - nb * info->blocksize;
  if (p->output_size != expect_size) __atomic_add_fetch(&info->bad, 1, __ATOMIC_RELAXED);
  if (p->output_offset != nb * info->blocksize) __atomic_add_fetch(&info->bad, 1, __ATOMIC_RELAXED);
  if (p->output_typesize != info->typesize) __atomic_add_fetch(&info->bad, 1, __ATOMIC_RELAXED);
  if (p->input != info->src + p->output_offset) __atomic_add_fetch(&info->bad, 1, __ATOMIC_RELAXED);
  if (p->nchunk != -1) __atomic_add_fetch(&info->bad, 1, __ATOMIC_RELAXED);
  if (p->tid < 0 || p->tid >= info->nthreads) __atomic_add_fetch(&info->bad, 1, __ATOMIC_RELAXED);
  if (p->output == NULL) __atomic_add_fetch(&info->bad, 1, __ATOMIC_RELAXED);
  if (info->ctx != NULL && p->ctx != info->ctx) __atomic_add_fetch(&info->bad, 1, __ATOMIC_RELAXED);
  if (info->fail) return -1;
  /* output = input * 2 + 1 (as int32) */
  for (int32_t i = 0; i + 4 <= p->output_size; i += 4) {
    int32_t v;
    memcpy(&v, p->input + i, 4);
    v = v * 2 + 1;
    memcpy(p->output + i, &v, 4);
  }
  for (int32_t i = p->output_size & ~3; i < p->output_size; i++) p->output[i] = p->input[i];
  return 0;
}

typedef struct {
  int32_t blocksize;
  int32_t nbytes;
  int32_t typesize;
  int nthreads;
  uint8_t *dest;       /* the caller's destination (NULL: not checked) */
  blosc2_context *ctx; /* expected ctx (NULL: not checked) */
  int fail;
  int calls[MAXBLK];
  int bad;
} post_info;

static int my_postfilter(blosc2_postfilter_params *p) {
  post_info *info = (post_info *)p->user_data;
  if (info == NULL) return -1;
  int32_t nb = p->nblock;
  if (nb < 0 || nb >= MAXBLK) {
    __atomic_add_fetch(&info->bad, 1, __ATOMIC_RELAXED);
    return -1;
  }
  __atomic_add_fetch(&info->calls[nb], 1, __ATOMIC_RELAXED);
  int32_t expect_size = info->blocksize;
  if ((int64_t)(nb + 1) * info->blocksize > info->nbytes) expect_size = info->nbytes - nb * info->blocksize;
  if (p->size != expect_size) __atomic_add_fetch(&info->bad, 1, __ATOMIC_RELAXED);
  if (p->offset != nb * info->blocksize) __atomic_add_fetch(&info->bad, 1, __ATOMIC_RELAXED);
  if (p->typesize != info->typesize) __atomic_add_fetch(&info->bad, 1, __ATOMIC_RELAXED);
  if (info->dest != NULL && p->output != info->dest + p->offset)
    __atomic_add_fetch(&info->bad, 1, __ATOMIC_RELAXED);
  if (p->input == NULL || p->output == NULL) __atomic_add_fetch(&info->bad, 1, __ATOMIC_RELAXED);
  if (p->nchunk != -1) __atomic_add_fetch(&info->bad, 1, __ATOMIC_RELAXED);
  if (p->tid < 0 || p->tid >= info->nthreads) __atomic_add_fetch(&info->bad, 1, __ATOMIC_RELAXED);
  if (info->ctx != NULL && p->ctx != info->ctx) __atomic_add_fetch(&info->bad, 1, __ATOMIC_RELAXED);
  if (info->fail) return -1;
  /* output = input - 1 (as int32) */
  for (int32_t i = 0; i + 4 <= p->size; i += 4) {
    int32_t v;
    memcpy(&v, p->input + i, 4);
    v = v - 1;
    memcpy(p->output + i, &v, 4);
  }
  for (int32_t i = p->size & ~3; i < p->size; i++) p->output[i] = p->input[i];
  return 0;
}

static void expected_pre(const uint8_t *src, uint8_t *dst, size_t n) {
  for (size_t i = 0; i + 4 <= n; i += 4) {
    int32_t v;
    memcpy(&v, src + i, 4);
    v = v * 2 + 1;
    memcpy(dst + i, &v, 4);
  }
  for (size_t i = n & ~(size_t)3; i < n; i++) dst[i] = src[i];
}

static void test_prefilter_basic(void) {
  static const int clevels[] = {5, 0};
  for (int nt = 1; nt <= 4; nt *= 4) {
    for (int k = 0; k < 2; k++) {
      for (int c = 0; c < N_ALL_CODECS; c += 2) {
        int32_t n = 100000, bs = 30000;
        uint8_t *src = malloc((size_t)n);
        fill_ramp32(src, (size_t)n);
        pre_info info;
        memset(&info, 0, sizeof(info));
        info.src = src;
        info.blocksize = bs;
        info.nbytes = n;
        info.typesize = 4;
        info.nthreads = nt;
        blosc2_prefilter_params pp;
        memset(&pp, 0, sizeof(pp));
        pp.user_data = &info;
        blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
        cp.compcode = (uint8_t)ALL_CODECS[c];
        cp.typesize = 4;
        cp.blocksize = bs;
        cp.clevel = (uint8_t)clevels[k];
        cp.nthreads = (int16_t)nt;
        cp.prefilter = my_prefilter;
        cp.preparams = &pp;
        blosc2_context *cctx = blosc2_create_cctx(cp);
        info.ctx = cctx;
        uint8_t *dst = gbuf((size_t)n + 32, 0);
        int cb = blosc2_compress_ctx(cctx, src, n, dst, n + 32);
        CHECK_GT(cb, 0);
        CHECK_GUARD(dst, (size_t)n + 32);
        for (int b = 0; b < 4; b++) CHECK_EQ(info.calls[b], 1);
        CHECK_EQ(info.calls[4], 0);
        CHECK_EQ(info.bad, 0);
        CHECK_EQ(HDR_IS_MEMCPYED(dst), clevels[k] == 0);
        /* the source is untouched, the chunk holds the prefiltered data */
        uint8_t *orig = malloc((size_t)n);
        fill_ramp32(orig, (size_t)n);
        CHECK_MEM(src, orig, (size_t)n);
        uint8_t *expect = malloc((size_t)n);
        expected_pre(src, expect, (size_t)n);
        uint8_t *out;
        CHECK_EQ(decompress_with(nt, dst, cb, n, &out), n);
        CHECK_MEM(out, expect, (size_t)n);
        free(out);
        free(expect);
        free(orig);
        free(dst);
        blosc2_free_ctx(cctx);
        free(src);
      }
    }
  }
}

/* the prefilter output goes through the filter pipeline */
static void test_prefilter_with_filters(void) {
  int32_t n = 262144 + 12, bs = 65536;
  uint8_t *src = malloc((size_t)n);
  fill_ramp32(src, (size_t)n);
  static const uint8_t pipes[][6] = {
      {0, 0, 0, 0, 0, BLOSC_SHUFFLE},
      {0, 0, 0, 0, 0, BLOSC_BITSHUFFLE},
      {0, 0, 0, 0, BLOSC_DELTA, BLOSC_SHUFFLE},
  };
  for (int p = 0; p < 3; p++) {
#ifdef B2RS_REFERENCE_BUG_PREFILTER_DELTA
    if (p == 2) continue;
#endif
    pre_info info;
    memset(&info, 0, sizeof(info));
    info.src = src;
    info.blocksize = bs;
    info.nbytes = n;
    info.typesize = 4;
    info.nthreads = 2;
    blosc2_prefilter_params pp;
    memset(&pp, 0, sizeof(pp));
    pp.user_data = &info;
    blosc2_cparams cp = cparams_nofilter(BLOSC_LZ4, 5, 4);
    memcpy(cp.filters, pipes[p], 6);
    cp.blocksize = bs;
    cp.nthreads = 2;
    cp.prefilter = my_prefilter;
    cp.preparams = &pp;
    fill_ramp32(src, (size_t)n);
    uint8_t *expect = malloc((size_t)n);
    expected_pre(src, expect, (size_t)n);
    uint8_t *chunk;
    int cb = compress_with(cp, src, n, &chunk);
    CHECK_GT(cb, 0);
    {
      /* the caller's input is never written */
      uint8_t *orig = malloc((size_t)n);
      fill_ramp32(orig, (size_t)n);
      CHECK_MEM(src, orig, (size_t)n);
      free(orig);
    }
    for (int b = 0; b < 5; b++) CHECK_EQ(info.calls[b], 1);
    CHECK_EQ(info.bad, 0);
    uint8_t *out;
    CHECK_EQ(decompress_with(1, chunk, cb, n, &out), n);
    CHECK_MEM(out, expect, (size_t)n);
    free(out);
    free(expect);
    free(chunk);
  }
  free(src);
}

static void test_prefilter_error(void) {
  int32_t n = 100000;
  uint8_t *src = malloc((size_t)n);
  fill_ramp32(src, (size_t)n);
  for (int nt = 1; nt <= 4; nt *= 4) {
    pre_info info;
    memset(&info, 0, sizeof(info));
    info.src = src;
    info.blocksize = 25000;
    info.nbytes = n;
    info.typesize = 4;
    info.nthreads = nt;
    info.fail = 1;
    blosc2_prefilter_params pp;
    memset(&pp, 0, sizeof(pp));
    pp.user_data = &info;
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    cp.blocksize = 25000;
    cp.nthreads = (int16_t)nt;
    cp.prefilter = my_prefilter;
    cp.preparams = &pp;
    uint8_t *chunk;
    int cb = compress_with(cp, src, n, &chunk);
    CHECK_LT(cb, 0);
    free(chunk);
  }
  free(src);
}

static void test_postfilter_basic(void) {
  int32_t n = 100000, bs = 30000;
  uint8_t *src = malloc((size_t)n);
  fill_ramp32(src, (size_t)n);
  for (int k = 0; k < 2; k++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    cp.blocksize = bs;
    cp.clevel = (uint8_t)(k == 0 ? 5 : 0);
    uint8_t *chunk;
    int cb = compress_with(cp, src, n, &chunk);
    CHECK_GT(cb, 0);
    uint8_t *expect = malloc((size_t)n);
    for (int32_t i = 0; i < n / 4; i++) {
      int32_t v;
      memcpy(&v, src + 4 * i, 4);
      v -= 1;
      memcpy(expect + 4 * i, &v, 4);
    }
    for (int nt = 1; nt <= 4; nt *= 4) {
      post_info info;
      memset(&info, 0, sizeof(info));
      info.blocksize = bs;
      info.nbytes = n;
      info.typesize = 4;
      info.nthreads = nt;
      blosc2_postfilter_params qp;
      memset(&qp, 0, sizeof(qp));
      qp.user_data = &info;
      blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
      dp.nthreads = (int16_t)nt;
      dp.postfilter = my_postfilter;
      dp.postparams = &qp;
      blosc2_context *dctx = blosc2_create_dctx(dp);
      info.ctx = dctx;
      uint8_t *out = gbuf((size_t)n, 0);
      info.dest = out;
      CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, cb, out, n), n);
      CHECK_MEM(out, expect, (size_t)n);
      CHECK_GUARD(out, (size_t)n);
      for (int b = 0; b < 4; b++) CHECK_EQ(info.calls[b], 1);
      CHECK_EQ(info.calls[4], 0);
      CHECK_EQ(info.bad, 0);
      /* getitem applies the postfilter to the blocks it decodes */
      info.dest = NULL;
      memset(info.calls, 0, sizeof(info.calls));
      uint8_t part[40];
      CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, cb, 10, 10, part, sizeof(part)), 40);
      CHECK_MEM(part, expect + 40, 40);
      CHECK_EQ(info.calls[0], 1);
      CHECK_EQ(info.calls[1], 0);
      CHECK_EQ(info.bad, 0);
      free(out);
      blosc2_free_ctx(dctx);
    }
    free(expect);
    free(chunk);
  }
  free(src);
}

static void test_postfilter_error(void) {
  int32_t n = 100000;
  uint8_t *src = malloc((size_t)n);
  fill_ramp32(src, (size_t)n);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.blocksize = 25000;
  uint8_t *chunk;
  int cb = compress_with(cp, src, n, &chunk);
  for (int nt = 1; nt <= 4; nt *= 4) {
    post_info info;
    memset(&info, 0, sizeof(info));
    info.blocksize = 25000;
    info.nbytes = n;
    info.typesize = 4;
    info.nthreads = nt;
    info.fail = 1;
    blosc2_postfilter_params qp;
    memset(&qp, 0, sizeof(qp));
    qp.user_data = &info;
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = (int16_t)nt;
    dp.postfilter = my_postfilter;
    dp.postparams = &qp;
    blosc2_context *dctx = blosc2_create_dctx(dp);
    uint8_t *out = gbuf((size_t)n, 0);
    CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, cb, out, n), BLOSC2_ERROR_POSTFILTER);
    CHECK_GUARD(out, (size_t)n);
    free(out);
    blosc2_free_ctx(dctx);
  }
  free(chunk);
  free(src);
}

/* prefilter and postfilter together undo each other */
static void test_pre_post_roundtrip(void) {
  int32_t n = 500000, bs = 65536;
  uint8_t *src = malloc((size_t)n);
  fill_ramp32(src, (size_t)n);
  for (int nt = 1; nt <= 4; nt *= 2) {
    pre_info pinfo;
    memset(&pinfo, 0, sizeof(pinfo));
    pinfo.src = src;
    pinfo.blocksize = bs;
    pinfo.nbytes = n;
    pinfo.typesize = 4;
    pinfo.nthreads = nt;
    blosc2_prefilter_params pp;
    memset(&pp, 0, sizeof(pp));
    pp.user_data = &pinfo;
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = BLOSC_ZSTD;
    cp.typesize = 4;
    cp.blocksize = bs;
    cp.nthreads = (int16_t)nt;
    cp.prefilter = my_prefilter;
    cp.preparams = &pp;
    uint8_t *chunk;
    int cb = compress_with(cp, src, n, &chunk);
    CHECK_GT(cb, 0);
    post_info qinfo;
    memset(&qinfo, 0, sizeof(qinfo));
    qinfo.blocksize = bs;
    qinfo.nbytes = n;
    qinfo.typesize = 4;
    qinfo.nthreads = nt;
    blosc2_postfilter_params qp;
    memset(&qp, 0, sizeof(qp));
    qp.user_data = &qinfo;
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = (int16_t)nt;
    dp.postfilter = my_postfilter;
    dp.postparams = &qp;
    blosc2_context *dctx = blosc2_create_dctx(dp);
    uint8_t *out = gbuf((size_t)n, 0);
    CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, cb, out, n), n);
    /* (2x + 1) - 1 = 2x */
    bool ok = true;
    for (int32_t i = 0; i < n / 4; i++) {
      int32_t a, b;
      memcpy(&a, src + 4 * i, 4);
      memcpy(&b, out + 4 * i, 4);
      ok &= b == 2 * a;
    }
    CHECK(ok);
    CHECK_EQ(pinfo.bad, 0);
    CHECK_EQ(qinfo.bad, 0);
    free(out);
    blosc2_free_ctx(dctx);
    free(chunk);
  }
  free(src);
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  blosc2_init();
  RUN(test_prefilter_basic);
  RUN(test_prefilter_with_filters);
  RUN(test_prefilter_error);
  RUN(test_postfilter_basic);
  RUN(test_postfilter_error);
  RUN(test_pre_post_roundtrip);
  blosc2_destroy();
  return TEST_SUMMARY();
}
