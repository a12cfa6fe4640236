/*
 * test_zfp.c - the ZFP plugin codecs (BLOSC_CODEC_ZFP_FIXED_ACCURACY 33,
 * _PRECISION 34, _RATE 35) through the C API: b2nd arrays of float/double in
 * 1 to 4 dimensions (shapes dividing neither chunks nor blocks) written with
 * b2nd_from_cbuffer and read back with b2nd_to_cbuffer, b2nd_get_slice_cbuffer
 * and blosc2_getitem_ctx on a chunk (the codecs read the block shape from the
 * "b2nd" metalayer of cparams->schunk / dparams->schunk), within each mode's
 * error bound; a FNV-1a hash of the decoded values, the same for b2rs and the
 * reference (ZFP is the same algorithm bit for bit); and the failures: blocks
 * smaller than a 4^d cell; a chunk compressed outside a super-chunk (no b2nd
 * metalayer to read) is stored raw.
 *
 * Compiled out against the reference:
 *   B2RS_REFERENCE_BUG_ZFP_GETCELL: blosc2_getitem_ctx on a fixed-rate ZFP
 *     chunk (zfp_getcell) returns items of the wrong cell, or fails (-3) when
 *     the items span two cells; b2rs decodes the block and returns its items.
 */
#include "b2rs_test.h"
#include "b2nd.h"
#include "blosc2/codecs-registry.h"

#ifdef B2RS_REFERENCE
#define B2RS_REFERENCE_BUG_ZFP_GETCELL 1
#endif

typedef struct {
  int8_t ndim;
  int64_t shape[4];
  int32_t chunkshape[4];
  int32_t blockshape[4];
} zshape_t;

static const zshape_t ZSHAPES[] = {
    {1, {1001}, {300}, {37}},
    {2, {50, 37}, {20, 16}, {9, 7}},
    {3, {20, 15, 11}, {10, 8, 6}, {5, 4, 6}},
    {4, {9, 8, 7, 6}, {5, 5, 5, 5}, {4, 5, 4, 5}},
};

static int64_t nitems_of(const zshape_t *s) {
  int64_t n = 1;
  for (int i = 0; i < s->ndim; i++) n *= s->shape[i];
  return n;
}

/* Smooth data plus a little noise (no libm: the harness links without -lm). */
static double value_at(int64_t i) {
  double p = (double)((i * 13) % 2000) / 2000.0, q = (double)(i % 9000) / 9000.0;
  return 50 * (4 * p * (1 - p) - 0.5) + 3 * (4 * q * (1 - q)) + 0.25 * (double)(i % 5);
}

static double absd(double x) { return x < 0 ? -x : x; }

/* 2^k or 10^k for small integer k */
static double ipow(double base, int k) {
  double r = 1;
  for (int i = 0; i < (k < 0 ? -k : k); i++) r *= base;
  return k < 0 ? 1 / r : r;
}

static void fill(void *buf, int64_t n, int ts) {
  for (int64_t i = 0; i < n; i++) {
    if (ts == 4) ((float *)buf)[i] = (float)value_at(i);
    else ((double *)buf)[i] = value_at(i);
  }
}

static double get(const void *buf, int64_t i, int ts) {
  return ts == 4 ? (double)((const float *)buf)[i] : ((const double *)buf)[i];
}

static b2nd_context_t *zctx(const zshape_t *s, int ts, int codec, uint8_t meta,
                            blosc2_cparams *cp, blosc2_storage *st) {
  *cp = BLOSC2_CPARAMS_DEFAULTS;
  cp->typesize = ts;
  cp->nthreads = 1;
  cp->compcode = (uint8_t)codec;
  cp->compcode_meta = meta;
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) cp->filters[i] = BLOSC_NOFILTER;
  cp->splitmode = BLOSC_NEVER_SPLIT;
  *st = (blosc2_storage){.contiguous = true, .cparams = cp};
  return b2nd_create_ctx(st, s->ndim, s->shape, s->chunkshape, s->blockshape,
                         ts == 4 ? "<f4" : "<f8", 0, NULL, 0);
}

/* Max error allowed: accuracy, the tolerance (plus float32 rounding of values
   up to ~55); precision, relative to the largest magnitude; rate: none, only
   the magnitude. */
static double bound(int codec, uint8_t meta, int ts) {
  double maxabs = 60, eps = ts == 4 ? 1.2e-7 : 2.3e-16;
  if (codec == BLOSC_CODEC_ZFP_FIXED_ACCURACY) return ipow(10, (int8_t)meta) + 4 * eps * maxabs;
  if (codec == BLOSC_CODEC_ZFP_FIXED_PRECISION)
    return maxabs * ipow(2, 2 - (int)meta) + 4 * eps * maxabs;
  return 2 * maxabs;
}

static const struct {
  int codec;
  uint8_t meta;
} MODES[] = {
    {BLOSC_CODEC_ZFP_FIXED_ACCURACY, (uint8_t)-3},
    {BLOSC_CODEC_ZFP_FIXED_ACCURACY, (uint8_t)-6},
    {BLOSC_CODEC_ZFP_FIXED_PRECISION, 12},
    {BLOSC_CODEC_ZFP_FIXED_PRECISION, 30},
    {BLOSC_CODEC_ZFP_FIXED_RATE, 25},
    {BLOSC_CODEC_ZFP_FIXED_RATE, 60},
};

/* Expected FNV-1a of the decoded arrays, in the loop order of test_roundtrip
   (computed with the reference C-Blosc2 3.3.5). */
static const uint64_t HASHES[] = {
#include "test_zfp_hashes.h"
};

static void test_roundtrip(void) {
  blosc2_init();
  int k = 0;
  int print = getenv("B2RS_ZFP_PRINT_HASHES") != NULL;
  for (size_t si = 0; si < sizeof(ZSHAPES) / sizeof(ZSHAPES[0]); si++) {
    const zshape_t *s = &ZSHAPES[si];
    for (int ts = 4; ts <= 8; ts += 4) {
      for (size_t mi = 0; mi < sizeof(MODES) / sizeof(MODES[0]); mi++, k++) {
        int64_t n = nitems_of(s);
        size_t nbytes = (size_t)n * ts;
        void *data = malloc(nbytes), *out = malloc(nbytes);
        fill(data, n, ts);
        blosc2_cparams cp;
        blosc2_storage st;
        b2nd_context_t *ctx = zctx(s, ts, MODES[mi].codec, MODES[mi].meta, &cp, &st);
        CHECK(ctx != NULL);
        b2nd_array_t *a = NULL;
        CHECK_EQ(b2nd_from_cbuffer(ctx, &a, data, (int64_t)nbytes), 0);
        if (a == NULL) {
          free(data);
          free(out);
          b2nd_free_ctx(ctx);
          continue;
        }
        CHECK_EQ(a->sc->compcode, MODES[mi].codec);
        CHECK_EQ(a->sc->compcode_meta, MODES[mi].meta);
        CHECK_EQ(b2nd_to_cbuffer(a, out, (int64_t)nbytes), 0);
        double err = 0;
        for (int64_t i = 0; i < n; i++) {
          double e = absd(get(out, i, ts) - get(data, i, ts));
          if (!(e <= err)) err = e;
        }
        CHECK(err <= bound(MODES[mi].codec, MODES[mi].meta, ts));
        uint64_t h = fnv1a(out, nbytes);
        if (print) printf("    0x%016llxULL,\n", (unsigned long long)h);
        else if ((size_t)k < sizeof(HASHES) / sizeof(HASHES[0])) CHECK_EQ(h, HASHES[k]);

        /* A slice decodes to the same values as the whole array. */
        int64_t start[4], stop[4], sshape[4], sn = 1;
        for (int d = 0; d < s->ndim; d++) {
          start[d] = s->shape[d] / 3;
          stop[d] = s->shape[d] - s->shape[d] / 4;
          sshape[d] = stop[d] - start[d];
          sn *= sshape[d];
        }
        void *sl = malloc((size_t)sn * ts);
        CHECK_EQ(b2nd_get_slice_cbuffer(a, start, stop, sl, sshape, sn * ts), 0);
        int64_t idx[4] = {0}, bad = 0;
        for (int64_t j = 0; j < sn; j++) {
          int64_t off = 0, r = j;
          for (int d = s->ndim - 1; d >= 0; d--) {
            idx[d] = r % sshape[d];
            r /= sshape[d];
          }
          for (int d = 0; d < s->ndim; d++) off = off * s->shape[d] + start[d] + idx[d];
          if (memcmp((uint8_t *)sl + j * ts, (uint8_t *)out + off * ts, ts) != 0) bad++;
        }
        CHECK_EQ(bad, 0);
        free(sl);

        /* Items of the first chunk through blosc2_getitem_ctx equal the
           decoded chunk (C-Blosc2 uses zfp's cell decoder for fixed rate). */
        uint8_t *chunk = NULL;
        bool needs_free = false;
        int cb = blosc2_schunk_get_chunk(a->sc, 0, &chunk, &needs_free);
        CHECK_GT(cb, 0);
        int32_t chunk_nbytes = a->sc->chunksize;
        uint8_t *dec = malloc(chunk_nbytes);
        CHECK_EQ(blosc2_schunk_decompress_chunk(a->sc, 0, dec, chunk_nbytes), chunk_nbytes);
        blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
        dp.schunk = a->sc;
        blosc2_context *dctx = blosc2_create_dctx(dp);
        uint8_t item[4 * 8];
        int32_t nitems_chunk = chunk_nbytes / ts;
        int32_t starts[] = {0, 3, nitems_chunk / 2, nitems_chunk - 4};
        for (int q = 0; q < 4; q++) {
#ifdef B2RS_REFERENCE_BUG_ZFP_GETCELL
          if (MODES[mi].codec == BLOSC_CODEC_ZFP_FIXED_RATE) continue;
#endif
          CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, cb, starts[q], 4, item, sizeof(item)), 4 * ts);
          CHECK_MEM(item, dec + (size_t)starts[q] * ts, (size_t)4 * ts);
        }
        blosc2_free_ctx(dctx);
        free(dec);
        if (needs_free) free(chunk);

        b2nd_free(a);
        b2nd_free_ctx(ctx);
        free(data);
        free(out);
      }
    }
  }
  blosc2_destroy();
}

/* Blocks smaller than a cell along any dimension cannot be compressed. */
static void test_small_blocks(void) {
  blosc2_init();
  zshape_t s = {2, {40, 40}, {20, 20}, {10, 3}};
  int64_t n = nitems_of(&s);
  float *data = malloc((size_t)n * 4);
  fill(data, n, 4);
  blosc2_cparams cp;
  blosc2_storage st;
  b2nd_context_t *ctx = zctx(&s, 4, BLOSC_CODEC_ZFP_FIXED_RATE, 50, &cp, &st);
  b2nd_array_t *a = NULL;
  CHECK_LT(b2nd_from_cbuffer(ctx, &a, data, n * 4), 0);
  if (a != NULL) b2nd_free(a);
  b2nd_free_ctx(ctx);
  free(data);
  blosc2_destroy();
}

/* A chunk compressed outside a super-chunk has no b2nd metalayer to read:
   the codec gives up and the chunk is stored raw. */
static void test_no_schunk(void) {
  blosc2_init();
  float data[256];
  fill(data, 256, 4);
  uint8_t out[256 * 4 + BLOSC2_MAX_OVERHEAD];
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.compcode = BLOSC_CODEC_ZFP_FIXED_ACCURACY;
  cp.compcode_meta = (uint8_t)-3;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_NOFILTER;
  cp.splitmode = BLOSC_NEVER_SPLIT;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  /* the plugin returns 0 (no super-chunk): the chunk is stored raw */
  int cbytes = blosc2_compress_ctx(cctx, data, sizeof(data), out, sizeof(out));
  CHECK_EQ(cbytes, (int)sizeof(data) + BLOSC2_MAX_OVERHEAD);
  CHECK(HDR_FLAGS(out) & BLOSC_MEMCPYED);
  float back[256];
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  CHECK_EQ(blosc2_decompress_ctx(dctx, out, cbytes, back, sizeof(back)), (int)sizeof(back));
  CHECK_MEM(back, data, sizeof(data));
  blosc2_free_ctx(dctx);
  blosc2_free_ctx(cctx);
  blosc2_destroy();
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  RUN(test_roundtrip);
  RUN(test_small_blocks);
  RUN(test_no_schunk);
  return TEST_SUMMARY();
}
