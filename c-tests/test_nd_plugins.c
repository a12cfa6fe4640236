/*
 * test_nd_plugins.c - the n-dimensional plugins C-Blosc2 builds in (NDLZ codec 32, NDCELL
 * filter 32, NDMEAN filter 33) through the C API: b2nd arrays made with them (chunk hashes
 * are the reference's), contexts whose cparams.schunk / dparams.schunk point to a
 * super-chunk that gets its "b2nd" metalayer only after the contexts were made, the
 * super-chunk's own contexts, and the errors without a super-chunk.
 */
#include "b2rs_test.h"
#include "b2nd.h"
#include "blosc2/codecs-registry.h"
#include "blosc2/filters-registry.h"

/* 2-D bytes with flat areas and repeated rows (NDLZ finds every kind of match). */
static void fill_image(uint8_t *buf, int64_t rows, int64_t cols) {
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++)
      buf[i * cols + j] = (uint8_t)(((i / 5) * 3 + (j / 4) * 7) % 23 + (j % 4) * ((i / 8) % 2) +
                                    ((i * 31 + j * 17) % 97 == 0 ? 200 : 0));
}

/* Hash of all the chunks of a super-chunk. */
static uint64_t chunks_hash(blosc2_schunk *sc) {
  uint64_t h = 0;
  for (int64_t n = 0; n < sc->nchunks; n++) {
    uint8_t *chunk;
    bool needs_free;
    int cb = blosc2_schunk_get_chunk(sc, n, &chunk, &needs_free);
    CHECK_GT(cb, 0);
    if (cb <= 0) continue;
    h = h * 1099511628211ULL ^ fnv1a(chunk, (size_t)cb);
    if (needs_free) free(chunk);
  }
  return h;
}

static b2nd_array_t *make_array(int8_t ndim, const int64_t *shape, const int32_t *chunks,
                                const int32_t *blocks, int32_t typesize, int codec, int codec_meta,
                                int filter, int filter_meta, const void *data, int64_t nbytes) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = typesize;
  cp.nthreads = 1;
  cp.clevel = 5;
  cp.compcode = (uint8_t)codec;
  cp.compcode_meta = (uint8_t)codec_meta;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_NOFILTER;
  cp.filters[0] = (uint8_t)filter;
  cp.filters_meta[0] = (uint8_t)filter_meta;
  blosc2_storage st = {.contiguous = false, .cparams = &cp};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, ndim, shape, chunks, blocks, NULL, 0, NULL, 0);
  CHECK(ctx != NULL);
  if (ctx == NULL) return NULL;
  b2nd_array_t *a = NULL;
  CHECK_EQ(b2nd_from_cbuffer(ctx, &a, data, nbytes), 0);
  b2nd_free_ctx(ctx);
  return a;
}

static void test_ndlz_arrays(void) {
  int64_t shape[2] = {100, 70};
  int32_t chunks[2] = {50, 35};
  int32_t blocks[2] = {25, 17};
  int64_t n = shape[0] * shape[1];
  uint8_t *data = malloc((size_t)n), *out = malloc((size_t)n);
  fill_image(data, shape[0], shape[1]);
  /* the reference's chunks */
  static const uint64_t want[2] = {0xb0c1582fc1bc8859ULL, 0x7eba6e047944cf48ULL};
  for (int k = 0; k < 2; k++) {
    int meta = k == 0 ? 4 : 8;
    b2nd_array_t *a = make_array(2, shape, chunks, blocks, 1, BLOSC_CODEC_NDLZ, meta,
                                 BLOSC_NOFILTER, 0, data, n);
    CHECK(a != NULL);
    if (a == NULL) continue;
    CHECK_EQ(a->sc->compcode, BLOSC_CODEC_NDLZ);
    memset(out, 0, (size_t)n);
    CHECK_EQ(b2nd_to_cbuffer(a, out, n), 0);
    CHECK_MEM(out, data, (size_t)n);
    uint64_t h = chunks_hash(a->sc);
    if (t_verbose()) fprintf(stderr, "ndlz%d hash 0x%016llxULL\n", meta, (unsigned long long)h);
    CHECK_HASH(h, want[k]);
    b2nd_free(a);
  }
  /* NDLZ needs typesize 1: a float64 array cannot be compressed */
  double *f = malloc((size_t)n * 8);
  fill_float64(f, (size_t)n * 8);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  cp.compcode = BLOSC_CODEC_NDLZ;
  cp.compcode_meta = 4;
  blosc2_storage st = {.contiguous = false, .cparams = &cp};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, chunks, blocks, NULL, 0, NULL, 0);
  b2nd_array_t *a = NULL;
  CHECK_LT(b2nd_from_cbuffer(ctx, &a, f, n * 8), 0);
  b2nd_free_ctx(ctx);
  free(f);
  free(data);
  free(out);
}

static void test_ndcell_ndmean_arrays(void) {
  int64_t shape[3] = {16, 16, 16};
  int32_t chunks[3] = {8, 8, 8};
  int32_t blocks[3] = {4, 4, 4};
  int64_t n = 4096;
  float *data = malloc((size_t)n * 4), *out = malloc((size_t)n * 4);
  fill_float32(data, (size_t)n * 4);
  b2nd_array_t *a = make_array(3, shape, chunks, blocks, 4, BLOSC_ZSTD, 0, BLOSC_FILTER_NDCELL,
                               2, data, n * 4);
  CHECK(a != NULL);
  if (a != NULL) {
    CHECK_EQ(b2nd_to_cbuffer(a, out, n * 4), 0);
    CHECK_MEM(out, data, (size_t)n * 4);
    b2nd_free(a);
  }
  /* ndmean: lossy; every 2x2x2 cell holds its mean */
  a = make_array(3, shape, chunks, blocks, 4, BLOSC_ZSTD, 0, BLOSC_FILTER_NDMEAN, 2, data, n * 4);
  CHECK(a != NULL);
  if (a != NULL) {
    CHECK_EQ(b2nd_to_cbuffer(a, out, n * 4), 0);
    int bad = 0;
    for (int64_t i = 0; i < 16; i += 2)
      for (int64_t j = 0; j < 16; j += 2)
        for (int64_t k = 0; k < 16; k += 2) {
          float v = out[(i * 16 + j) * 16 + k];
          float s = 0;
          /* the filter sums row by row inside each cell */
          for (int di = 0; di < 2; di++)
            for (int dj = 0; dj < 2; dj++)
              for (int dk = 0; dk < 2; dk++) s += data[((i + di) * 16 + j + dj) * 16 + k + dk];
          if (v != s / 8.0f) bad++;
          for (int di = 0; di < 2; di++)
            for (int dj = 0; dj < 2; dj++)
              for (int dk = 0; dk < 2; dk++)
                if (out[((i + di) * 16 + j + dj) * 16 + k + dk] != v) bad++;
        }
    CHECK_EQ(bad, 0);
    b2nd_free(a);
  }
  free(data);
  free(out);
}

/* Contexts made before the super-chunk gets its "b2nd" metalayer see it when used. */
static void test_contexts_resolve_the_metalayer_late(void) {
  int64_t shape[2] = {32, 48};
  int32_t chunks[2] = {32, 48};
  int32_t blocks[2] = {16, 24};
  int32_t nbytes = 32 * 48;
  uint8_t *data = malloc((size_t)nbytes), *out = malloc((size_t)nbytes);
  fill_image(data, 32, 48);
  uint8_t *chunk = malloc((size_t)nbytes + BLOSC2_MAX_OVERHEAD);

  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  blosc2_storage st = {.contiguous = false, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  cp.compcode = BLOSC_CODEC_NDLZ;
  cp.compcode_meta = 4;
  cp.blocksize = 16 * 24;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_NOFILTER;
  cp.schunk = sc;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.schunk = sc;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  CHECK(cctx != NULL && dctx != NULL);

  /* no metalayer yet: the codec fails (invalid data) */
  CHECK_EQ(blosc2_compress_ctx(cctx, data, nbytes, chunk, nbytes + BLOSC2_MAX_OVERHEAD),
           BLOSC2_ERROR_DATA);

  uint8_t *smeta;
  int32_t smeta_len = b2nd_serialize_meta(2, shape, chunks, blocks, "|u1", 0, &smeta);
  CHECK_GT(smeta_len, 0);
  CHECK_GE(blosc2_meta_add(sc, "b2nd", smeta, smeta_len), 0);
  free(smeta);

  int cb = blosc2_compress_ctx(cctx, data, nbytes, chunk, nbytes + BLOSC2_MAX_OVERHEAD);
  CHECK_GT(cb, 0);
  CHECK_LT(cb, nbytes);
  if (t_verbose()) fprintf(stderr, "ndlz chunk %d bytes, hash 0x%016llxULL\n", cb,
                           (unsigned long long)fnv1a(chunk, (size_t)cb));
  /* the reference's chunk */
  CHECK_EQ(cb, 1236);
  CHECK_HASH(fnv1a(chunk, (size_t)cb), 0x775f96a267190622ULL);
  CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, cb, out, nbytes), nbytes);
  CHECK_MEM(out, data, (size_t)nbytes);
  /* NDLZ decoding needs no super-chunk */
  CHECK_EQ(blosc2_decompress(chunk, cb, out, nbytes), nbytes);
  CHECK_MEM(out, data, (size_t)nbytes);
  /* the super-chunk's own contexts */
  CHECK_EQ(blosc2_schunk_append_chunk(sc, chunk, true), 1);
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 0, out, nbytes), nbytes);
  CHECK_MEM(out, data, (size_t)nbytes);
  blosc2_free_ctx(cctx);

  /* ndcell through contexts on the same super-chunk, and without one */
  cp.compcode = BLOSC_LZ4;
  cp.compcode_meta = 0;
  cp.filters[0] = BLOSC_FILTER_NDCELL;
  cp.filters_meta[0] = 4;
  cctx = blosc2_create_cctx(cp);
  cb = blosc2_compress_ctx(cctx, data, nbytes, chunk, nbytes + BLOSC2_MAX_OVERHEAD);
  CHECK_GT(cb, 0);
  if (t_verbose()) fprintf(stderr, "ndcell chunk %d bytes, hash 0x%016llxULL\n", cb,
                           (unsigned long long)fnv1a(chunk, (size_t)cb));
  CHECK_EQ(cb, 1166);
  CHECK_HASH(fnv1a(chunk, (size_t)cb), 0x85f1d40affc48598ULL);
  memset(out, 0, (size_t)nbytes);
  CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, cb, out, nbytes), nbytes);
  CHECK_MEM(out, data, (size_t)nbytes);
  /* the filter needs the super-chunk to be undone, and reads its typesize */
  CHECK_EQ(blosc2_decompress(chunk, cb, out, nbytes), BLOSC2_ERROR_FAILURE);
  {
    blosc2_storage st8 = BLOSC2_STORAGE_DEFAULTS; /* typesize 8 */
    blosc2_schunk *sc8 = blosc2_schunk_new(&st8);
    int32_t len = b2nd_serialize_meta(2, shape, chunks, blocks, "|u1", 0, &smeta);
    CHECK_GE(blosc2_meta_add(sc8, "b2nd", smeta, len), 0);
    free(smeta);
    blosc2_dparams dp8 = BLOSC2_DPARAMS_DEFAULTS;
    dp8.schunk = sc8;
    blosc2_context *dctx8 = blosc2_create_dctx(dp8);
    CHECK_EQ(blosc2_decompress_ctx(dctx8, chunk, cb, out, nbytes), BLOSC2_ERROR_FAILURE);
    blosc2_free_ctx(dctx8);
    blosc2_schunk_free(sc8);
  }
  blosc2_free_ctx(cctx);
  cp.schunk = NULL;
  cctx = blosc2_create_cctx(cp);
  CHECK_EQ(blosc2_compress_ctx(cctx, data, nbytes, chunk, nbytes + BLOSC2_MAX_OVERHEAD),
           BLOSC2_ERROR_FILTER_PIPELINE);
  blosc2_free_ctx(cctx);
  cp.filters[0] = BLOSC_NOFILTER;
  cp.compcode = BLOSC_CODEC_NDLZ;
  cp.compcode_meta = 4;
  cctx = blosc2_create_cctx(cp);
  CHECK_EQ(blosc2_compress_ctx(cctx, data, nbytes, chunk, nbytes + BLOSC2_MAX_OVERHEAD),
           BLOSC2_ERROR_DATA);
  blosc2_free_ctx(cctx);

  blosc2_free_ctx(dctx);
  blosc2_schunk_free(sc);
  free(chunk);
  free(data);
  free(out);
}

static void test_names(void) {
  const char *name = NULL;
  CHECK_EQ(blosc2_compcode_to_compname(BLOSC_CODEC_NDLZ, &name), BLOSC_CODEC_NDLZ);
  CHECK_STR(name, "ndlz");
  CHECK_EQ(blosc2_compname_to_compcode("ndlz"), BLOSC_CODEC_NDLZ);
  CHECK_STR(blosc2_list_compressors(), "blosclz,lz4,lz4hc,zlib,zstd");
  char *lib = NULL, *ver = NULL;
  CHECK_EQ(blosc2_get_complib_info("ndlz", &lib, &ver), BLOSC_CODEC_NDLZ);
  CHECK_STR(lib, "ndlz");
  CHECK_STR(ver, "unknown");
  free(lib);
  free(ver);
  /* not a global compressor */
  CHECK_EQ(blosc1_set_compressor("lz4"), BLOSC_LZ4);
  CHECK_EQ(blosc1_set_compressor("ndlz"), BLOSC2_ERROR_CODEC_SUPPORT);
  CHECK_STR(blosc1_get_compressor(), "lz4");
  CHECK_EQ(blosc1_set_compressor("blosclz"), BLOSC_BLOSCLZ);
  /* plugin ids are not for users */
  blosc2_codec c = {BLOSC_CODEC_NDLZ, "ndlz", BLOSC_CODEC_NDLZ, 1, NULL, NULL};
  CHECK_EQ(blosc2_register_codec(&c), BLOSC2_ERROR_CODEC_PARAM);
  for (int id = BLOSC_FILTER_NDCELL; id <= BLOSC_FILTER_NDMEAN; id++) {
    blosc2_filter f = {(uint8_t)id, "mine", 1, NULL, NULL};
    CHECK_EQ(blosc2_register_filter(&f), BLOSC2_ERROR_FAILURE);
  }
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  blosc2_init();
  RUN(test_ndlz_arrays);
  RUN(test_ndcell_ndmean_arrays);
  RUN(test_contexts_resolve_the_metalayer_late);
  RUN(test_names);
  blosc2_destroy();
  return TEST_SUMMARY();
}
