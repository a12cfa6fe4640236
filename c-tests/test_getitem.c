/*
 * test_getitem.c - getitem (area 4) on every chunk shape.
 *
 * Functions covered: blosc1_getitem, blosc2_getitem, blosc2_getitem_ctx,
 * blosc2_getitem_bytes_ctx.
 *
 * Chunk shapes: regular split / non-split (every codec, every filter),
 * memcpyed (clevel 0, tiny, incompressible), special zeros / NaN / value /
 * uninit, dictionary chunks, chunks with a 16-byte header
 * (BLOSC_BLOSC1_COMPAT), hand-made version 2 (Blosc 1.x) chunks, chunks with
 * typesize > 255, delta chunks, multi-threaded contexts, VL-block chunks
 * (refused).
 *
 * Reference bugs compiled out with -DB2RS_REFERENCE (see b2rs_test.h):
 *   B2RS_REFERENCE_BUG_GETITEM_DELTA      test_getitem_delta_all_blocks
 *   B2RS_REFERENCE_BUG_GETITEM_BLOCKSIZE  the blocksize-long unaligned ranges
 *                                         in check_getitem_all
 *   B2RS_REFERENCE_BUG_GETITEM_DICT       test_dict_chunks (fresh context)
 *
 * NULL src/dest crash the reference: not tested.
 */
#include "b2rs_test.h"

/* check getitem through all four entry points over many ranges of a chunk
   whose decoded content is `expect` (n bytes, element size ts) */
static void check_getitem_all(const uint8_t *chunk, int32_t cbytes, const uint8_t *expect,
                              int32_t n, int32_t ts, int nthreads) {
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)nthreads;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  int32_t nitems = n / ts;
  int32_t bs = HDR_BLOCKSIZE(chunk);
  int32_t bitems = bs / ts > 0 ? bs / ts : 1;
  int32_t starts[] = {0, 1, 2, bitems - 1, bitems, bitems + 1, 2 * bitems - 3,
                      nitems / 2, nitems - 7, nitems - 1, nitems};
  int32_t counts[] = {0, 1, 2, 5, bitems, bitems + 3, 3 * bitems + 1, nitems};
  for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
    for (size_t j = 0; j < sizeof(counts) / sizeof(counts[0]); j++) {
      int32_t st = starts[i], cnt = counts[j];
      if (st < 0 || cnt < 0 || (int64_t)st + cnt > nitems) continue;
#ifdef B2RS_REFERENCE_BUG_GETITEM_BLOCKSIZE
      if (!HDR_IS_MEMCPYED(chunk) && HDR_SPECIAL(chunk) == 0 && cnt * ts == bs &&
          (st * ts) % bs != 0)
        continue;
#endif
      size_t nb = (size_t)cnt * (size_t)ts;
      uint8_t *out = gbuf(nb, 0xEE);
      int rc = blosc2_getitem_ctx(dctx, chunk, cbytes, st, cnt, out, (int32_t)nb);
      CHECK_EQ(rc, (long long)nb);
      CHECK_MEM(out, expect + (size_t)st * ts, nb);
      CHECK_GUARD(out, nb);
      memset(out, 0xEE, nb);
      rc = blosc2_getitem(chunk, cbytes, st, cnt, out, (int32_t)nb);
      CHECK_EQ(rc, (long long)nb);
      CHECK_MEM(out, expect + (size_t)st * ts, nb);
      CHECK_GUARD(out, nb);
      memset(out, 0xEE, nb);
      rc = blosc1_getitem(chunk, st, cnt, out);
      CHECK_EQ(rc, (long long)nb);
      CHECK_MEM(out, expect + (size_t)st * ts, nb);
      CHECK_GUARD(out, nb);
      memset(out, 0xEE, nb);
      rc = blosc2_getitem_bytes_ctx(dctx, chunk, cbytes, st * ts, (int32_t)nb, out, (int32_t)nb);
      CHECK_EQ(rc, (long long)nb);
      CHECK_MEM(out, expect + (size_t)st * ts, nb);
      CHECK_GUARD(out, nb);
      free(out);
    }
  }
  /* out of range */
  int32_t ob = 2 * ts;
  uint8_t *out = gbuf((size_t)ob, 0);
  CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, cbytes, nitems, 1, out, ob), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, cbytes, -1, 1, out, ob), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, cbytes, 0, -1, out, ob), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_GUARD(out, (size_t)ob);
  free(out);
  blosc2_free_ctx(dctx);
}

static void test_regular_chunks(void) {
  static const uint8_t pipes[][6] = {
      {0, 0, 0, 0, 0, 0},
      {0, 0, 0, 0, 0, BLOSC_SHUFFLE},
      {0, 0, 0, 0, 0, BLOSC_BITSHUFFLE},
      {0, 0, 0, 0, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE},
  };
  int32_t n = 200000;
  uint8_t *src = malloc((size_t)n);
  for (int c = 0; c < N_ALL_CODECS; c++) {
    for (size_t p = 0; p < 4; p++) {
      for (int split = BLOSC_ALWAYS_SPLIT; split <= BLOSC_NEVER_SPLIT; split++) {
        int32_t ts = (c % 2) ? 4 : 8;
        if (ts == 4) fill_ramp32(src, (size_t)n);
        else fill_float64(src, (size_t)n);
        blosc2_cparams cp = cparams_nofilter(ALL_CODECS[c], 5, ts);
        memcpy(cp.filters, pipes[p], 6);
        cp.blocksize = 16384;
        cp.splitmode = split;
        uint8_t *chunk;
        int cb = compress_with(cp, src, n, &chunk);
        CHECK_GT(cb, 0);
        if (!HDR_IS_MEMCPYED(chunk)) CHECK_EQ(HDR_DONT_SPLIT(chunk), split == BLOSC_NEVER_SPLIT);
        check_getitem_all(chunk, cb, src, n, ts, 1 + (int)(p % 2) * 3);
        free(chunk);
      }
    }
  }
  free(src);
}

/* leftover (short last) block, odd typesizes */
static void test_odd_shapes(void) {
  static const int32_t ts[] = {1, 3, 7, 12, 33, 255};
  for (size_t t = 0; t < sizeof(ts) / sizeof(ts[0]); t++) {
    int32_t n = ts[t] * 10007;
    uint8_t *src = malloc((size_t)n);
    fill_mixed(src, (size_t)n, (uint64_t)t);
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = ts[t];
    cp.blocksize = ts[t] * 1000;
    cp.compcode = (uint8_t)ALL_CODECS[t % N_ALL_CODECS];
    uint8_t *chunk;
    int cb = compress_with(cp, src, n, &chunk);
    CHECK_GT(cb, 0);
    check_getitem_all(chunk, cb, src, n, ts[t], 1);
    free(chunk);
    free(src);
  }
}

static void test_memcpyed_chunks(void) {
  int32_t n = 50000;
  uint8_t *src = malloc((size_t)n);
  fill_random(src, (size_t)n, 4);
  /* clevel 0 */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.clevel = 0;
  cp.blocksize = 4096;
  uint8_t *chunk;
  int cb = compress_with(cp, src, n, &chunk);
  CHECK(HDR_IS_MEMCPYED(chunk));
  check_getitem_all(chunk, cb, src, n, 4, 1);
  free(chunk);
  /* incompressible fallback */
  cp.clevel = 9;
  cb = compress_with(cp, src, n, &chunk);
  CHECK(HDR_IS_MEMCPYED(chunk));
  check_getitem_all(chunk, cb, src, n, 4, 4);
  free(chunk);
  /* tiny */
  cb = compress_with(cp, src, 24, &chunk);
  CHECK(HDR_IS_MEMCPYED(chunk));
  check_getitem_all(chunk, cb, src, 24, 4, 1);
  free(chunk);
  free(src);
}

static void test_special_chunks(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  uint8_t chunk[64];
  int32_t n = 40000;
  uint8_t *expect = malloc(16 * 5000);
  /* zeros */
  cp.typesize = 4;
  int cb = blosc2_chunk_zeros(cp, n, chunk, sizeof(chunk));
  CHECK_EQ(cb, 32);
  memset(expect, 0, (size_t)n);
  check_getitem_all(chunk, cb, expect, n, 4, 1);
  /* NaN float32 */
  cb = blosc2_chunk_nans(cp, n, chunk, sizeof(chunk));
  CHECK_EQ(cb, 32);
  for (int32_t i = 0; i < n / 4; i++) {
    static const uint8_t nan32[4] = {0x00, 0x00, 0xC0, 0x7F};
    memcpy(expect + 4 * i, nan32, 4);
  }
  check_getitem_all(chunk, cb, expect, n, 4, 1);
  /* NaN float64 */
  cp.typesize = 8;
  cb = blosc2_chunk_nans(cp, n, chunk, sizeof(chunk));
  CHECK_EQ(cb, 32);
  for (int32_t i = 0; i < n / 8; i++) {
    static const uint8_t nan64[8] = {0, 0, 0, 0, 0, 0, 0xF8, 0x7F};
    memcpy(expect + 8 * i, nan64, 8);
  }
  check_getitem_all(chunk, cb, expect, n, 8, 1);
  /* repeated value, several sizes */
  static const int32_t vts[] = {1, 2, 4, 8, 16, 5};
  for (size_t k = 0; k < sizeof(vts) / sizeof(vts[0]); k++) {
    cp.typesize = vts[k];
    uint8_t val[16];
    for (int i = 0; i < 16; i++) val[i] = (uint8_t)(0x11 * (i + 1) + k);
    int32_t nn = vts[k] * 5000;
    cb = blosc2_chunk_repeatval(cp, nn, chunk, sizeof(chunk), val);
    CHECK_EQ(cb, 32 + vts[k]);
    for (int32_t i = 0; i < nn / vts[k]; i++) memcpy(expect + (size_t)i * vts[k], val, (size_t)vts[k]);
    check_getitem_all(chunk, cb, expect, nn, vts[k], 1);
  }
  free(expect);
}

/* uninit chunks: getitem succeeds (content undefined) */
static void test_uninit_chunk(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  uint8_t chunk[32];
  int cb = blosc2_chunk_uninit(cp, 4000, chunk, sizeof(chunk));
  CHECK_EQ(cb, 32);
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  uint8_t *out = gbuf(400, 0);
  CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, cb, 10, 100, out, 400), 400);
  CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, cb, 1000, 1, out, 400), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_GUARD(out, 400);
  free(out);
  blosc2_free_ctx(dctx);
}

#ifndef B2RS_REFERENCE_BUG_GETITEM_DICT
static void test_dict_chunks(void) {
  static const int codecs[] = {BLOSC_ZSTD, BLOSC_LZ4, BLOSC_LZ4HC};
  int32_t n = 262144;
  uint8_t *src = malloc((size_t)n);
  fill_mixed(src, (size_t)n, 6);
  for (int k = 0; k < 3; k++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = (uint8_t)codecs[k];
    cp.use_dict = 1;
    cp.typesize = 4;
    cp.blocksize = 16384;
    uint8_t *chunk;
    int cb = compress_with(cp, src, n, &chunk);
    CHECK_GT(cb, 0);
    CHECK_EQ(HDR_BLOSC2_FLAGS(chunk) & 1, 1);
    check_getitem_all(chunk, cb, src, n, 4, 1);
    free(chunk);
  }
  free(src);
}
#endif

/* getitem on dictionary chunks with a context that decompressed the chunk
   before (works in the reference too) */
static void test_dict_chunks_after_decompress(void) {
  static const int codecs[] = {BLOSC_ZSTD, BLOSC_LZ4, BLOSC_LZ4HC};
  int32_t n = 262144;
  uint8_t *src = malloc((size_t)n);
  fill_mixed(src, (size_t)n, 6);
  for (int k = 0; k < 3; k++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = (uint8_t)codecs[k];
    cp.use_dict = 1;
    cp.typesize = 4;
    cp.blocksize = 16384;
    uint8_t *chunk;
    int cb = compress_with(cp, src, n, &chunk);
    CHECK_EQ(HDR_BLOSC2_FLAGS(chunk) & 1, 1);
    blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
    uint8_t *out = gbuf((size_t)n, 0);
    CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, cb, out, n), n);
    CHECK_MEM(out, src, (size_t)n);
    static const int32_t starts[] = {0, 10, 4095, 4096, 30000, 65535};
    static const int32_t counts[] = {1, 10, 5000, 1};
    for (int i = 0; i < 6; i++) {
      for (int j = 0; j < 4; j++) {
        int32_t st = starts[i], cnt = counts[j];
        if (st + cnt > n / 4) continue;
        CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, cb, st, cnt, out, n), cnt * 4);
        CHECK_MEM(out, src + 4 * st, (size_t)cnt * 4);
      }
    }
    CHECK_GUARD(out, (size_t)n);
    free(out);
    blosc2_free_ctx(dctx);
    free(chunk);
  }
  free(src);
}

/* chunks with a 16-byte header (BLOSC_BLOSC1_COMPAT) */
static void test_blosc1_compat_chunks(void) {
  int32_t n = 100000;
  uint8_t *src = malloc((size_t)n);
  fill_ramp32(src, (size_t)n);
  setenv("BLOSC_BLOSC1_COMPAT", "1", 1);
  for (int c = 0; c < N_ALL_CODECS; c++) {
    blosc1_set_compressor(ALL_CODEC_NAMES[c]);
    for (int sh = 0; sh <= 2; sh++) {
      uint8_t *dst = gbuf((size_t)n + 32, 0);
      int cb = blosc1_compress(5, sh, 4, (size_t)n, src, dst, (size_t)n + 32);
      CHECK_GT(cb, 0);
      CHECK(!HDR_IS_EXTENDED(dst));
      check_getitem_all(dst, cb, src, n, 4, 1);
      free(dst);
    }
  }
  unsetenv("BLOSC_BLOSC1_COMPAT");
  blosc1_set_compressor("blosclz");
  free(src);
}

/* a version-2 (Blosc 1.x) memcpyed chunk built by hand */
static void test_version2_memcpyed(void) {
  uint8_t src[256];
  fill_mixed(src, sizeof(src), 9);
  uint8_t chunk[16 + 256];
  chunk[0] = 2;    /* version */
  chunk[1] = 1;    /* versionlz */
  chunk[2] = 0x03; /* shuffle + memcpyed: the shuffle flag is ignored */
  chunk[3] = 4;
  wr_i32(chunk + 4, 256);
  wr_i32(chunk + 8, 256);
  wr_i32(chunk + 12, 16 + 256);
  memcpy(chunk + 16, src, 256);
  check_getitem_all(chunk, sizeof(chunk), src, 256, 4, 1);
  uint8_t out[256];
  CHECK_EQ(blosc2_decompress(chunk, sizeof(chunk), out, sizeof(out)), 256);
  CHECK_MEM(out, src, 256);
  size_t nb;
  CHECK_EQ(blosc1_cbuffer_validate(chunk, sizeof(chunk), &nb), 0);
  CHECK_EQ(nb, 256);
  int v, vlz;
  blosc2_cbuffer_versions(chunk, &v, &vlz);
  CHECK_EQ(v, 2);
  CHECK_EQ(vlz, 1);
}

/* typesize > 255: stored typesize 1, items are bytes */
static void test_big_typesize(void) {
  int32_t n = 100000;
  uint8_t *src = malloc((size_t)n);
  fill_ramp32(src, (size_t)n);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1000;
  uint8_t *chunk;
  int cb = compress_with(cp, src, n, &chunk);
  CHECK_EQ(HDR_TYPESIZE(chunk), 1);
  check_getitem_all(chunk, cb, src, n, 1, 1);
  free(chunk);
  free(src);
}

/* delta chunks: block 0 and single-block chunks work in every version */
static void test_getitem_delta_block0(void) {
  int32_t n = 100000;
  uint8_t *src = malloc((size_t)n);
  fill_ramp32(src, (size_t)n);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.filters[4] = BLOSC_DELTA;
  cp.blocksize = 16384;
  uint8_t *chunk;
  int cb = compress_with(cp, src, n, &chunk);
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  uint8_t out[16384];
  CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, cb, 0, 4096, out, sizeof(out)), 16384);
  CHECK_MEM(out, src, 16384);
  CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, cb, 100, 50, out, sizeof(out)), 200);
  CHECK_MEM(out, src + 400, 200);
  free(chunk);
  /* one block only */
  cp.blocksize = 0;
  cb = compress_with(cp, src, 20000, &chunk);
  check_getitem_all(chunk, cb, src, 20000, 4, 1);
  free(chunk);
  blosc2_free_ctx(dctx);
  free(src);
}

#ifndef B2RS_REFERENCE_BUG_GETITEM_DELTA
/* getitem on delta chunks beyond block 0 must give the decoded data */
static void test_getitem_delta_all_blocks(void) {
  int32_t n = 200000;
  uint8_t *src = malloc((size_t)n);
  static const uint8_t pipes[][6] = {
      {0, 0, 0, 0, BLOSC_DELTA, BLOSC_SHUFFLE},
      {0, 0, 0, 0, BLOSC_DELTA, BLOSC_BITSHUFFLE},
      {0, 0, 0, 0, 0, BLOSC_DELTA},
      {BLOSC_DELTA, 0, 0, 0, 0, 0},
  };
  for (size_t p = 0; p < 4; p++) {
    for (int c = 0; c < N_ALL_CODECS; c += 2) {
      fill_ramp64(src, (size_t)n);
      blosc2_cparams cp = cparams_nofilter(ALL_CODECS[c], 5, 8);
      memcpy(cp.filters, pipes[p], 6);
      cp.blocksize = 8192;
      uint8_t *chunk;
      int cb = compress_with(cp, src, n, &chunk);
      CHECK_GT(cb, 0);
      check_getitem_all(chunk, cb, src, n, 8, 1 + (int)(p % 2));
      free(chunk);
    }
  }
  free(src);
}
#endif

static void test_getitem_errors(void) {
  int32_t n = 100000;
  uint8_t *src = malloc((size_t)n);
  fill_ramp32(src, (size_t)n);
  uint8_t *chunk;
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  int cb = compress_with(cp, src, n, &chunk);
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  uint8_t *out = gbuf(400, 0);
  /* destination too small by one */
  CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, cb, 0, 100, out, 399), BLOSC2_ERROR_WRITE_BUFFER);
  CHECK_EQ(blosc2_getitem(chunk, cb, 0, 100, out, 399), BLOSC2_ERROR_WRITE_BUFFER);
  CHECK_EQ(blosc2_getitem_bytes_ctx(dctx, chunk, cb, 0, 400, out, 399), BLOSC2_ERROR_WRITE_BUFFER);
  CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, cb, 0, 10, out, -1), BLOSC2_ERROR_WRITE_BUFFER);
  CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, cb, 0, 0x7fffffff, out, 400), BLOSC2_ERROR_WRITE_BUFFER);
  CHECK_GUARD(out, 400);
  /* ranges */
  CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, cb, 24999, 2, out, 400), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, cb, 0x7fffffff, 1, out, 400), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, cb, 0x40000000, 1, out, 400), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, cb, -5, 10, out, 400), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_getitem(chunk, cb, -5, 10, out, 400), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_getitem(chunk, cb, 25000, 1, out, 400), BLOSC2_ERROR_INVALID_PARAM);
  /* zero items at the very end are fine */
  CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, cb, 25000, 0, out, 400), 0);
  /* byte ranges must be multiples of typesize */
  CHECK_EQ(blosc2_getitem_bytes_ctx(dctx, chunk, cb, 1, 40, out, 400), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_getitem_bytes_ctx(dctx, chunk, cb, 0, 41, out, 400), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_getitem_bytes_ctx(dctx, chunk, cb, -4, 40, out, 400), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_getitem_bytes_ctx(dctx, chunk, cb, 0, -4, out, 400), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_getitem_bytes_ctx(dctx, chunk, cb, 99996, 8, out, 400), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_getitem_bytes_ctx(dctx, chunk, cb, 100000, 0, out, 400), 0);
  /* truncated source */
  CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, 16, 0, 10, out, 400), BLOSC2_ERROR_READ_BUFFER);
  CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, 31, 0, 10, out, 400), BLOSC2_ERROR_READ_BUFFER);
  CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, 0, 0, 10, out, 400), BLOSC2_ERROR_READ_BUFFER);
  CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, -1, 0, 10, out, 400), BLOSC2_ERROR_READ_BUFFER);
  CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, cb - 1, 0, 10, out, 400), BLOSC2_ERROR_INVALID_HEADER);
  CHECK_EQ(blosc2_getitem(chunk, cb - 1, 0, 10, out, 400), BLOSC2_ERROR_INVALID_HEADER);
  CHECK_GUARD(out, 400);
  free(out);
  blosc2_free_ctx(dctx);
  free(chunk);
  free(src);
}

/* getitem on a compression context works as well */
static void test_getitem_with_cctx(void) {
  uint8_t src[40000];
  fill_ramp32(src, sizeof(src));
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  uint8_t *chunk;
  int cb = compress_with(cp, src, sizeof(src), &chunk);
  blosc2_context *cctx = blosc2_create_cctx(cp);
  uint8_t out[40];
  CHECK_EQ(blosc2_getitem_ctx(cctx, chunk, cb, 100, 10, out, sizeof(out)), 40);
  CHECK_MEM(out, src + 400, 40);
  blosc2_free_ctx(cctx);
  free(chunk);
}

/* VL-block chunks do not support getitem */
static void test_getitem_vlblocks_refused(void) {
  uint8_t src[2000];
  fill_mixed(src, sizeof(src), 1);
  const void *srcs[3] = {src, src + 100, src + 300};
  int32_t sizes[3] = {100, 200, 1000};
  blosc2_context *cctx = blosc2_create_cctx(BLOSC2_CPARAMS_DEFAULTS);
  uint8_t dst[4000];
  int cb = blosc2_vlcompress_ctx(cctx, srcs, sizes, 3, dst, sizeof(dst));
  CHECK_GT(cb, 0);
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  uint8_t *out = gbuf(64, 0);
  CHECK_EQ(blosc2_getitem_ctx(dctx, dst, cb, 0, 5, out, 64), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_getitem(dst, cb, 0, 5, out, 64), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc1_getitem(dst, 0, 5, out), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_getitem_bytes_ctx(dctx, dst, cb, 0, 8, out, 64), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_GUARD(out, 64);
  free(out);
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  blosc2_init();
  RUN(test_regular_chunks);
  RUN(test_odd_shapes);
  RUN(test_memcpyed_chunks);
  RUN(test_special_chunks);
  RUN(test_uninit_chunk);
#ifndef B2RS_REFERENCE_BUG_GETITEM_DICT
  RUN(test_dict_chunks);
#endif
  RUN(test_dict_chunks_after_decompress);
  RUN(test_blosc1_compat_chunks);
  RUN(test_version2_memcpyed);
  RUN(test_big_typesize);
  RUN(test_getitem_delta_block0);
#ifndef B2RS_REFERENCE_BUG_GETITEM_DELTA
  RUN(test_getitem_delta_all_blocks);
#endif
  RUN(test_getitem_errors);
  RUN(test_getitem_with_cctx);
  RUN(test_getitem_vlblocks_refused);
  blosc2_destroy();
  return TEST_SUMMARY();
}
