/*
 * test_vlblocks.c - area 5 of API.md: variable-length-block (VL-block)
 * chunks.
 *
 * Functions covered: blosc2_vlcompress_ctx, blosc2_vldecompress_ctx,
 * blosc2_vlchunk_get_nblocks, blosc2_vldecompress_block_ctx,
 * blosc2_schunk_get_vlblock (plus blosc2_decompress_ctx and getitem on VL
 * chunks, and blosc2_schunk_new/append_chunk/free to hold them).
 *
 * Reference bugs compiled out with -DB2RS_REFERENCE (see b2rs_test.h):
 *   B2RS_REFERENCE_BUG_VL_TIGHT_DEST  test_vl_tight_destination
 *   B2RS_REFERENCE_BUG_VL_CLEVEL0     test_vl_clevel0
 *   B2RS_REFERENCE_BUG_VL_DELTA       test_vl_delta (blosc2_decompress_ctx part)
 *   B2RS_REFERENCE_BUG_UNDEFINED_TAIL test_vl_delta (odd block lengths)
 *
 * Not tested because the reference crashes: a NULL dest for
 * blosc2_vlcompress_ctx, NULL dests/destsizes/dest/destsize outputs of the
 * decompression functions.
 */
#include "b2rs_test.h"

#define MAXB 64

typedef struct {
  int n;
  const void *srcs[MAXB];
  int32_t sizes[MAXB];
  int32_t total;
} vlset;

static uint8_t g_src[1 << 20];

static vlset make_set(int n, const int32_t *sizes) {
  vlset s;
  s.n = n;
  s.total = 0;
  size_t off = 0;
  for (int i = 0; i < n; i++) {
    s.srcs[i] = g_src + off;
    s.sizes[i] = sizes[i];
    s.total += sizes[i];
    off += (size_t)sizes[i] + 7; /* not contiguous */
  }
  return s;
}

static int vl_compress(blosc2_cparams cp, const vlset *s, uint8_t **out, int32_t *cap_out) {
  int32_t cap = s->total + 32 + 8 * s->n + 64;
  uint8_t *dst = gbuf((size_t)cap, 0);
  blosc2_context *cctx = blosc2_create_cctx(cp);
  int cb = blosc2_vlcompress_ctx(cctx, s->srcs, s->sizes, s->n, dst, cap);
  blosc2_free_ctx(cctx);
  CHECK_GUARD(dst, (size_t)cap);
  *out = dst;
  if (cap_out) *cap_out = cap;
  return cb;
}

/* full check of a VL chunk against the set it was made from */
static void vl_check2(const uint8_t *chunk, int cb, const vlset *s, int nthreads, bool whole);
static void vl_check(const uint8_t *chunk, int cb, const vlset *s, int nthreads) {
  vl_check2(chunk, cb, s, nthreads, true);
}

static void vl_check2(const uint8_t *chunk, int cb, const vlset *s, int nthreads, bool whole) {
  CHECK_EQ(HDR_VERSION(chunk), 6);
  CHECK(HDR_IS_EXTENDED(chunk));
  CHECK(!HDR_IS_MEMCPYED(chunk));
  CHECK(HDR_DONT_SPLIT(chunk));
  CHECK_EQ(HDR_FLAGS2(chunk) & 1, 1);
  CHECK_EQ(HDR_SPECIAL(chunk), 0);
  CHECK_EQ(HDR_NBYTES(chunk), s->total);
  CHECK_EQ(HDR_BLOCKSIZE(chunk), s->n);
  CHECK_EQ(HDR_CBYTES(chunk), cb);
  /* bstarts are increasing */
  for (int i = 1; i < s->n; i++) CHECK_LT(rd_i32(chunk + 32 + 4 * (i - 1)), rd_i32(chunk + 32 + 4 * i));
  int32_t nb = -1;
  CHECK_EQ(blosc2_vlchunk_get_nblocks(chunk, cb, &nb), 0);
  CHECK_EQ(nb, s->n);
  int32_t nbytes, cbytes, bsize;
  CHECK_EQ(blosc2_cbuffer_sizes(chunk, &nbytes, &cbytes, &bsize), 0);
  CHECK_EQ(nbytes, s->total);
  CHECK_EQ(cbytes, cb);
  CHECK_EQ(bsize, s->n);

  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)nthreads;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  /* all blocks */
  void *dests[MAXB + 4];
  int32_t dsizes[MAXB + 4];
  memset(dests, 0, sizeof(dests));
  int r = blosc2_vldecompress_ctx(dctx, chunk, cb, dests, dsizes, s->n + 4);
  CHECK_EQ(r, s->n);
  if (r == s->n) {
    for (int i = 0; i < s->n; i++) {
      CHECK_EQ(dsizes[i], s->sizes[i]);
      CHECK_MEM(dests[i], s->srcs[i], (size_t)s->sizes[i]);
      free(dests[i]); /* malloc'd by the library, freed by the caller */
    }
  }
  /* exactly nblocks entries is enough */
  r = blosc2_vldecompress_ctx(dctx, chunk, cb, dests, dsizes, s->n);
  CHECK_EQ(r, s->n);
  if (r == s->n)
    for (int i = 0; i < s->n; i++) free(dests[i]);
  /* one block at a time, in reverse order */
  for (int i = s->n - 1; i >= 0; i--) {
    uint8_t *b = NULL;
    int32_t bs = -1;
    r = blosc2_vldecompress_block_ctx(dctx, chunk, cb, i, &b, &bs);
    CHECK_EQ(r, s->sizes[i]);
    CHECK_EQ(bs, s->sizes[i]);
    if (r > 0 && b != NULL) CHECK_MEM(b, s->srcs[i], (size_t)s->sizes[i]);
    free(b);
  }
  /* the whole chunk through the regular API: the blocks concatenated */
  if (!whole) {
    blosc2_free_ctx(dctx);
    return;
  }
  uint8_t *all = gbuf((size_t)s->total, 0);
  CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, cb, all, s->total), s->total);
  size_t off = 0;
  for (int i = 0; i < s->n; i++) {
    CHECK_MEM(all + off, s->srcs[i], (size_t)s->sizes[i]);
    off += (size_t)s->sizes[i];
  }
  CHECK_GUARD(all, (size_t)s->total);
  free(all);
  blosc2_free_ctx(dctx);
}

static void test_vl_basic(void) {
  fill_mixed(g_src, sizeof(g_src), 1);
  static const int32_t sizes[] = {1000, 2000, 7000, 50000};
  vlset s = make_set(4, sizes);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  uint8_t *chunk;
  int cb = vl_compress(cp, &s, &chunk, NULL);
  CHECK_GT(cb, 0);
  vl_check(chunk, cb, &s, 1);
  /* header: filters as requested, codec as requested */
  CHECK_EQ(HDR_FILTER(chunk, 5), BLOSC_SHUFFLE);
  CHECK_EQ(HDR_FORMAT(chunk), 0);
  CHECK_EQ(HDR_TYPESIZE(chunk), 1);
  free(chunk);
}

static void test_vl_codecs_filters(void) {
  fill_mixed(g_src, sizeof(g_src), 2);
  static const int32_t sizes[] = {4000, 12, 33333, 1, 8192, 100000, 7};
  vlset s = make_set(7, sizes);
  static const uint8_t pipes[][6] = {
      {0, 0, 0, 0, 0, 0},
      {0, 0, 0, 0, 0, BLOSC_SHUFFLE},
      {0, 0, 0, 0, 0, BLOSC_BITSHUFFLE},
      {0, 0, 0, 0, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE},
  };
  for (int c = 0; c < N_ALL_CODECS; c++) {
    for (size_t p = 0; p < sizeof(pipes) / sizeof(pipes[0]); p++) {
      for (int ts = 1; ts <= 8; ts *= 2) {
        blosc2_cparams cp = cparams_nofilter(ALL_CODECS[c], 5, ts);
        memcpy(cp.filters, pipes[p], 6);
        uint8_t *chunk;
        int cb = vl_compress(cp, &s, &chunk, NULL);
        CHECK_GT(cb, 0);
        if (cb > 0) {
          vl_check(chunk, cb, &s, 1);
          CHECK_EQ(HDR_FORMAT(chunk), codec_format(ALL_CODECS[c]));
          CHECK_EQ(HDR_UDCOMPCODE(chunk), ALL_CODECS[c]);
          CHECK_EQ(HDR_TYPESIZE(chunk), ts);
          for (int i = 0; i < 6; i++) CHECK_EQ(HDR_FILTER(chunk, i), pipes[p][i]);
        }
        free(chunk);
      }
    }
  }
}

/* delta in VL chunks: every block is coded on its own */
static void test_vl_delta(void) {
  fill_ramp64(g_src, sizeof(g_src));
  static const int32_t sizes[] = {4000, 16, 33336, 8, 8192, 100000, 8};
  vlset s = make_set(7, sizes);
  static const uint8_t pipes[][6] = {
      {0, 0, 0, 0, BLOSC_DELTA, BLOSC_SHUFFLE},
      {0, 0, 0, 0, 0, BLOSC_DELTA},
      {BLOSC_DELTA, 0, 0, 0, 0, BLOSC_BITSHUFFLE},
  };
  for (int c = 0; c < N_ALL_CODECS; c++) {
    for (size_t p = 0; p < 3; p++) {
      blosc2_cparams cp = cparams_nofilter(ALL_CODECS[c], 5, 8);
      memcpy(cp.filters, pipes[p], 6);
      uint8_t *chunk;
      int cb = vl_compress(cp, &s, &chunk, NULL);
      CHECK_GT(cb, 0);
#ifdef B2RS_REFERENCE_BUG_VL_DELTA
      if (cb > 0) vl_check2(chunk, cb, &s, 1, false);
#else
      if (cb > 0) vl_check(chunk, cb, &s, 1);
#endif
      free(chunk);
    }
  }
#ifndef B2RS_REFERENCE_BUG_UNDEFINED_TAIL
  /* block lengths that are not multiples of the delta unit */
  fill_mixed(g_src, sizeof(g_src), 12);
  static const int32_t odd[] = {4001, 13, 33333, 7, 8195};
  s = make_set(5, odd);
  for (int ts = 2; ts <= 8; ts *= 2) {
    blosc2_cparams cp = cparams_nofilter(BLOSC_LZ4, 5, ts);
    cp.filters[4] = BLOSC_DELTA;
    cp.filters[5] = BLOSC_SHUFFLE;
    uint8_t *chunk;
    int cb = vl_compress(cp, &s, &chunk, NULL);
    CHECK_GT(cb, 0);
#ifdef B2RS_REFERENCE_BUG_VL_DELTA
    if (cb > 0) vl_check2(chunk, cb, &s, 1, false);
#else
    if (cb > 0) vl_check(chunk, cb, &s, 1);
#endif
    free(chunk);
  }
#endif
}

static void test_vl_clevels_threads(void) {
  fill_ramp32(g_src, sizeof(g_src));
  int32_t sizes[40];
  for (int i = 0; i < 40; i++) sizes[i] = 1000 + 997 * i;
  vlset s = make_set(40, sizes);
  for (int clevel = 1; clevel <= 9; clevel += 4) {
    for (int nt = 1; nt <= 4; nt *= 2) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.typesize = 4;
      cp.clevel = (uint8_t)clevel;
      cp.nthreads = (int16_t)nt;
      cp.compcode = (uint8_t)ALL_CODECS[(clevel + nt) % N_ALL_CODECS];
      uint8_t *chunk;
      int cb = vl_compress(cp, &s, &chunk, NULL);
      CHECK_GT(cb, 0);
      CHECK_LT(cb, s.total);
      vl_check(chunk, cb, &s, nt);
      free(chunk);
    }
  }
}

static void test_vl_dict(void) {
  fill_mixed(g_src, sizeof(g_src), 4);
  static const int codecs[] = {BLOSC_ZSTD, BLOSC_LZ4, BLOSC_LZ4HC};
  int32_t sizes[8];
  for (int i = 0; i < 8; i++) sizes[i] = 12000 + 100 * i;
  vlset s = make_set(8, sizes);
  for (int k = 0; k < 3; k++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 1;
    cp.compcode = (uint8_t)codecs[k];
    cp.use_dict = 1;
    uint8_t *chunk;
    int cb = vl_compress(cp, &s, &chunk, NULL);
    CHECK_GT(cb, 0);
    CHECK_EQ(HDR_BLOSC2_FLAGS(chunk) & 1, 1);
    vl_check(chunk, cb, &s, 1);
    free(chunk);
  }
}

/* incompressible blocks are stored raw: payload length == block length */
static void test_vl_incompressible(void) {
  fill_random(g_src, sizeof(g_src), 5);
  static const int32_t sizes[] = {1000, 4000};
  vlset s = make_set(2, sizes);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  uint8_t *chunk;
  int cb = vl_compress(cp, &s, &chunk, NULL);
  /* 32 header + 2*4 bstarts + 2*(4 + raw) */
  CHECK_EQ(cb, 32 + 8 + 8 + 5000);
  vl_check(chunk, cb, &s, 1);
  CHECK_EQ(rd_i32(chunk + 32), 40);
  CHECK_EQ(rd_i32(chunk + 36), 40 + 4 + 1000);
  CHECK_EQ(rd_i32(chunk + 40), 1000);
  CHECK_MEM(chunk + 44, s.srcs[0], 1000);
  free(chunk);
}

/* tiny blocks (smaller than any codec can shrink) */
static void test_vl_tiny_blocks(void) {
  fill_mixed(g_src, sizeof(g_src), 6);
  static const int32_t sizes[] = {3, 2, 1};
  vlset s = make_set(3, sizes);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  uint8_t *chunk;
  int cb = vl_compress(cp, &s, &chunk, NULL);
  CHECK_EQ(cb, 32 + 12 + 12 + 6);
  vl_check(chunk, cb, &s, 1);
  free(chunk);
  /* one block */
  static const int32_t one[] = {100000};
  s = make_set(1, one);
  cb = vl_compress(cp, &s, &chunk, NULL);
  CHECK_GT(cb, 0);
  vl_check(chunk, cb, &s, 1);
  free(chunk);
  /* many small blocks */
  int32_t many[MAXB];
  for (int i = 0; i < MAXB; i++) many[i] = 1 + (i * 37) % 300;
  s = make_set(MAXB, many);
  cb = vl_compress(cp, &s, &chunk, NULL);
  CHECK_GT(cb, 0);
  vl_check(chunk, cb, &s, 2);
  free(chunk);
}

/* an all-zero block is compressed normally (no zero-run shortcut) and the
   chunk is not a special chunk */
static void test_vl_zero_block(void) {
  memset(g_src, 0, 200000);
  static const int32_t sizes[] = {100000};
  vlset s = make_set(1, sizes);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  uint8_t *chunk;
  int cb = vl_compress(cp, &s, &chunk, NULL);
  CHECK_GT(cb, 44);
  CHECK_LT(cb, 1000);
  vl_check(chunk, cb, &s, 1);
  free(chunk);
}

static void test_vl_bad_params(void) {
  fill_mixed(g_src, sizeof(g_src), 7);
  static const int32_t sizes[] = {1000, 2000, 7000, 50000};
  vlset s = make_set(4, sizes);
  blosc2_context *cctx = blosc2_create_cctx(BLOSC2_CPARAMS_DEFAULTS);
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  int32_t cap = 200000;
  uint8_t *dst = gbuf((size_t)cap, 0);
  CHECK_EQ(blosc2_vlcompress_ctx(cctx, s.srcs, s.sizes, 0, dst, cap), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vlcompress_ctx(cctx, s.srcs, s.sizes, -1, dst, cap), BLOSC2_ERROR_INVALID_PARAM);
  int32_t zero[4] = {1000, 0, 7000, 50000};
  CHECK_EQ(blosc2_vlcompress_ctx(cctx, s.srcs, zero, 4, dst, cap), BLOSC2_ERROR_INVALID_PARAM);
  int32_t neg[4] = {1000, -5, 7000, 50000};
  CHECK_EQ(blosc2_vlcompress_ctx(cctx, s.srcs, neg, 4, dst, cap), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vlcompress_ctx(cctx, NULL, s.sizes, 4, dst, cap), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vlcompress_ctx(cctx, s.srcs, NULL, 4, dst, cap), BLOSC2_ERROR_INVALID_PARAM);
  const void *withnull[4] = {s.srcs[0], NULL, s.srcs[2], s.srcs[3]};
  CHECK_EQ(blosc2_vlcompress_ctx(cctx, withnull, s.sizes, 4, dst, cap), BLOSC2_ERROR_INVALID_PARAM);
  /* a decompression context cannot compress */
  CHECK_EQ(blosc2_vlcompress_ctx(dctx, s.srcs, s.sizes, 4, dst, cap), BLOSC2_ERROR_INVALID_PARAM);
  /* destination smaller than the minimum overhead */
  CHECK_EQ(blosc2_vlcompress_ctx(cctx, s.srcs, s.sizes, 4, dst, 31), BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED);
  CHECK_GUARD(dst, (size_t)cap);
  /* compressible data, destination one byte too small: 0 */
  int cb = blosc2_vlcompress_ctx(cctx, s.srcs, s.sizes, 4, dst, cap);
  CHECK_GT(cb, 0);
  free(dst);
  dst = gbuf((size_t)cb - 1, 0);
  CHECK_EQ(blosc2_vlcompress_ctx(cctx, s.srcs, s.sizes, 4, dst, cb - 1), 0);
  CHECK_GUARD(dst, (size_t)cb - 1);
  free(dst);
  dst = gbuf(100, 0);
  CHECK_EQ(blosc2_vlcompress_ctx(cctx, s.srcs, s.sizes, 4, dst, 100), 0);
  CHECK_GUARD(dst, 100);
  free(dst);
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
}

static void test_vl_decompress_errors(void) {
  fill_mixed(g_src, sizeof(g_src), 8);
  static const int32_t sizes[] = {1000, 2000, 7000, 50000};
  vlset s = make_set(4, sizes);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  uint8_t *chunk;
  int cb = vl_compress(cp, &s, &chunk, NULL);
  CHECK_GT(cb, 0);
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  blosc2_context *cctx = blosc2_create_cctx(cp);
  void *dests[8];
  int32_t dsizes[8];
  uint8_t *b = NULL;
  int32_t bs = 0;
  int32_t nb = 0;
  /* too few output slots */
  CHECK_EQ(blosc2_vldecompress_ctx(dctx, chunk, cb, dests, dsizes, 3), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vldecompress_ctx(dctx, chunk, cb, dests, dsizes, 0), BLOSC2_ERROR_INVALID_PARAM);
  /* truncated */
  CHECK_EQ(blosc2_vldecompress_ctx(dctx, chunk, cb - 1, dests, dsizes, 8), BLOSC2_ERROR_INVALID_HEADER);
  CHECK_EQ(blosc2_vldecompress_block_ctx(dctx, chunk, cb - 1, 0, &b, &bs), BLOSC2_ERROR_INVALID_HEADER);
  CHECK_EQ(blosc2_vlchunk_get_nblocks(chunk, 31, &nb), BLOSC2_ERROR_READ_BUFFER);
  CHECK_EQ(blosc2_vlchunk_get_nblocks(chunk, 0, &nb), BLOSC2_ERROR_READ_BUFFER);
  CHECK_EQ(blosc2_vlchunk_get_nblocks(chunk, cb, NULL), BLOSC2_ERROR_INVALID_PARAM);
  /* block index out of range */
  CHECK_EQ(blosc2_vldecompress_block_ctx(dctx, chunk, cb, 4, &b, &bs), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vldecompress_block_ctx(dctx, chunk, cb, -1, &b, &bs), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vldecompress_block_ctx(dctx, chunk, cb, 1000000, &b, &bs), BLOSC2_ERROR_INVALID_PARAM);
  /* a compression context cannot decompress */
  CHECK_EQ(blosc2_vldecompress_ctx(cctx, chunk, cb, dests, dsizes, 8), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vldecompress_block_ctx(cctx, chunk, cb, 0, &b, &bs), BLOSC2_ERROR_INVALID_PARAM);
  /* blosc2_decompress_ctx with a too small destination */
  uint8_t *out = gbuf((size_t)s.total - 1, 0);
  CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, cb, out, s.total - 1), BLOSC2_ERROR_WRITE_BUFFER);
  CHECK_GUARD(out, (size_t)s.total - 1);
  free(out);
  /* regular chunks are not VL chunks */
  uint8_t reg[20000 + 32];
  int rc = blosc2_compress_ctx(cctx, g_src, 20000, reg, sizeof(reg));
  CHECK_GT(rc, 0);
  CHECK_EQ(blosc2_vlchunk_get_nblocks(reg, rc, &nb), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vldecompress_ctx(dctx, reg, rc, dests, dsizes, 8), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vldecompress_block_ctx(dctx, reg, rc, 0, &b, &bs), BLOSC2_ERROR_INVALID_PARAM);
  /* special chunks neither */
  uint8_t sp[32];
  CHECK_EQ(blosc2_chunk_zeros(cp, 1000, sp, sizeof(sp)), 32);
  CHECK_EQ(blosc2_vlchunk_get_nblocks(sp, 32, &nb), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vldecompress_ctx(dctx, sp, 32, dests, dsizes, 8), BLOSC2_ERROR_INVALID_PARAM);
  blosc2_free_ctx(dctx);
  blosc2_free_ctx(cctx);
  free(chunk);
}

#ifndef B2RS_REFERENCE_BUG_VL_TIGHT_DEST
/* incompressible blocks and a destination a few bytes too small: 0 and no
   write past destsize (the reference crashes with a wild memcpy) */
static void test_vl_tight_destination(void) {
  fill_random(g_src, sizeof(g_src), 9);
  static const int32_t sizes[] = {1000, 4000};
  vlset s = make_set(2, sizes);
  blosc2_context *cctx = blosc2_create_cctx(BLOSC2_CPARAMS_DEFAULTS);
  int32_t need = 32 + 8 + 8 + 5000;
  for (int32_t d = need - 1; d >= need - 20; d--) {
    uint8_t *dst = gbuf((size_t)d, 0);
    CHECK_EQ(blosc2_vlcompress_ctx(cctx, s.srcs, s.sizes, 2, dst, d), 0);
    CHECK_GUARD(dst, (size_t)d);
    free(dst);
  }
  blosc2_free_ctx(cctx);
}
#endif

#ifndef B2RS_REFERENCE_BUG_VL_CLEVEL0
/* clevel 0 with every codec round-trips (the reference crashes with
   BloscLZ) */
static void test_vl_clevel0(void) {
  fill_mixed(g_src, sizeof(g_src), 10);
  static const int32_t sizes[] = {1000, 2000, 7000, 50000};
  vlset s = make_set(4, sizes);
  for (int c = 0; c < N_ALL_CODECS; c++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = (uint8_t)ALL_CODECS[c];
    cp.clevel = 0;
    cp.typesize = 1;
    uint8_t *chunk;
    int cb = vl_compress(cp, &s, &chunk, NULL);
    CHECK_GT(cb, 0);
    if (cb > 0) vl_check(chunk, cb, &s, 1);
    free(chunk);
  }
}
#endif

/* VL chunks in a super-chunk: blosc2_schunk_get_vlblock */
static void test_schunk_get_vlblock(void) {
  fill_mixed(g_src, sizeof(g_src), 11);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  st.contiguous = false;
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  CHECK(sc != NULL);
  vlset sets[3];
  static const int32_t s0[] = {100, 2000, 300};
  static const int32_t s1[] = {5000};
  static const int32_t s2[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  sets[0] = make_set(3, s0);
  sets[1] = make_set(1, s1);
  sets[2] = make_set(10, s2);
  for (int k = 0; k < 3; k++) {
    uint8_t *chunk;
    int cb = vl_compress(cp, &sets[k], &chunk, NULL);
    CHECK_GT(cb, 0);
    CHECK_EQ(blosc2_schunk_append_chunk(sc, chunk, true), k + 1);
    free(chunk);
  }
  for (int k = 2; k >= 0; k--) {
    for (int i = 0; i < sets[k].n; i++) {
      uint8_t *b = NULL;
      int32_t bs = -1;
      int r = blosc2_schunk_get_vlblock(sc, k, i, &b, &bs);
      CHECK_EQ(r, sets[k].sizes[i]);
      CHECK_EQ(bs, sets[k].sizes[i]);
      if (r > 0 && b) CHECK_MEM(b, sets[k].srcs[i], (size_t)r);
      free(b);
    }
    uint8_t *b = NULL;
    int32_t bs = -1;
    CHECK_EQ(blosc2_schunk_get_vlblock(sc, k, sets[k].n, &b, &bs), BLOSC2_ERROR_INVALID_PARAM);
    CHECK_EQ(blosc2_schunk_get_vlblock(sc, k, -1, &b, &bs), BLOSC2_ERROR_INVALID_PARAM);
  }
  uint8_t *b = NULL;
  int32_t bs = -1;
  CHECK_LT(blosc2_schunk_get_vlblock(sc, 3, 0, &b, &bs), 0);
  CHECK_LT(blosc2_schunk_get_vlblock(sc, -1, 0, &b, &bs), 0);
  blosc2_schunk_free(sc);
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  blosc2_init();
  RUN(test_vl_basic);
  RUN(test_vl_codecs_filters);
  RUN(test_vl_delta);
  RUN(test_vl_clevels_threads);
  RUN(test_vl_dict);
  RUN(test_vl_incompressible);
  RUN(test_vl_tiny_blocks);
  RUN(test_vl_zero_block);
  RUN(test_vl_bad_params);
  RUN(test_vl_decompress_errors);
#ifndef B2RS_REFERENCE_BUG_VL_TIGHT_DEST
  RUN(test_vl_tight_destination);
#endif
#ifndef B2RS_REFERENCE_BUG_VL_CLEVEL0
  RUN(test_vl_clevel0);
#endif
  RUN(test_schunk_get_vlblock);
  blosc2_destroy();
  return TEST_SUMMARY();
}
