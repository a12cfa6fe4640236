/*
 * What C-Blosc2's own tests, examples and python-blosc2 do and check, beyond the struct fields
 * (test_struct_fields.c): lazy chunks of frames on disk, who owns the chunks of an in-memory
 * b2nd copy, the frame of a view, the header of a serialised in-memory super-chunk, error codes
 * of the frame paths.  Built against the reference too (tests/c_api.rs).
 */
#include "b2rs_test.h"

#include <blosc2.h>
#include <b2nd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define N 10000 /* int32 items per chunk */
#define NBLOCKS 10

static int32_t g_buf[N];

static void fill(int32_t first) {
  for (int i = 0; i < N; i++) g_buf[i] = first + i;
}

static blosc2_schunk *new_frame(bool contiguous, const char *urlpath, bool vl) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;
  cp.blocksize = N * 4 / NBLOCKS;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 1;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)urlpath, .cparams = &cp,
                       .dparams = &dp};
  blosc2_remove_urlpath(urlpath);
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  CHECK(sc != NULL);
  for (int c = 0; c < 3; c++) {
    fill(c * N);
    if (!vl) {
      CHECK_EQ(blosc2_schunk_append_buffer(sc, g_buf, sizeof g_buf), c + 1);
      continue;
    }
    const void *srcs[4];
    int32_t sizes[4];
    for (int b = 0; b < 4; b++) {
      srcs[b] = g_buf + b * 100;
      sizes[b] = (b + 1) * 100;
    }
    blosc2_context *cctx = blosc2_create_cctx(cp);
    uint8_t chunk[sizeof g_buf];
    int cb = blosc2_vlcompress_ctx(cctx, srcs, sizes, 4, chunk, sizeof chunk);
    CHECK_GT(cb, 0);
    CHECK_EQ(blosc2_schunk_append_chunk(sc, chunk, true), c + 1);
    blosc2_free_ctx(cctx);
  }
  return sc;
}

/* ------------------------------------------------------------------------------------------ */
/* lazy chunks (python-blosc2's test_get_lazychunk_sections, get_1d_span)                      */

static void check_lazy_layout(uint8_t *lazy, int len, int32_t nchunk) {
  int32_t nbytes, cbytes, blocksize;
  CHECK_EQ(blosc2_cbuffer_sizes(lazy, &nbytes, &cbytes, &blocksize), 0);
  int nblocks = nbytes / blocksize;
  CHECK_EQ(nblocks, NBLOCKS);
  CHECK(lazy[31] & 0x08);
  CHECK_EQ(len, 32 + 4 * nblocks + 4 + 8 + 4 * nblocks);
  int32_t tnchunk;
  memcpy(&tnchunk, lazy + 32 + 4 * nblocks, 4);
  CHECK_EQ(tnchunk, nchunk);
  int64_t sum = 0;
  for (int i = 0; i < nblocks; i++) {
    int32_t bstart, csize;
    memcpy(&bstart, lazy + 32 + 4 * i, 4);
    memcpy(&csize, lazy + len - 4 * nblocks + 4 * i, 4);
    CHECK_GE(bstart, 32 + 4 * nblocks);
    sum += csize;
  }
  CHECK_EQ(32 + 4 * nblocks + sum, cbytes);
}

static void test_lazychunk_file(void) {
  const char *path = "callers_lazy.b2frame";
  blosc2_schunk *sc = new_frame(true, path, false);
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_open(path);
  CHECK(sc != NULL);
  uint8_t *lazy;
  bool needs_free;
  int len = blosc2_schunk_get_lazychunk(sc, 1, &lazy, &needs_free);
  CHECK_GT(len, 0);
  CHECK(needs_free);
  check_lazy_layout(lazy, len, 1);
  /* decoded through a context bound to the super-chunk: the blocks come from the file */
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.schunk = sc;
  dp.nthreads = 1;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  int32_t out[N];
  CHECK_EQ(blosc2_decompress_ctx(dctx, lazy, len, out, sizeof out), (int)sizeof out);
  CHECK_EQ(out[0], N);
  CHECK_EQ(out[N - 1], 2 * N - 1);
  int32_t items[5];
  CHECK_EQ(blosc2_getitem_ctx(dctx, lazy, len, 5000, 5, items, sizeof items), (int)sizeof items);
  CHECK_EQ(items[0], N + 5000);
  /* without a super-chunk a lazy chunk cannot be decoded */
  blosc2_dparams dp0 = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx0 = blosc2_create_dctx(dp0);
  CHECK_LT(blosc2_decompress_ctx(dctx0, lazy, len, out, sizeof out), 0);
  blosc2_free_ctx(dctx0);
  blosc2_free_ctx(dctx);
  if (needs_free) free(lazy);
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(path);
}

static void test_lazychunk_in_memory(void) {
  blosc2_schunk *sc = new_frame(true, NULL, false);
  uint8_t *c;
  bool needs_free;
  int len = blosc2_schunk_get_lazychunk(sc, 1, &c, &needs_free);
  CHECK_GT(len, 0);
  CHECK(!(c[31] & 0x08)); /* a whole chunk, lent */
  CHECK(!needs_free);
  int32_t cbytes;
  blosc2_cbuffer_sizes(c, NULL, &cbytes, NULL);
  CHECK_EQ(len, cbytes);
  blosc2_schunk_free(sc);
}

static void test_lazychunk_vl_damaged(void) {
  const char *path = "callers_lazy_vl.b2frame";
  blosc2_schunk *sc = new_frame(true, path, true);
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_open(path);
  CHECK(sc != NULL);
  uint8_t *lazy;
  bool needs_free;
  int len = blosc2_schunk_get_lazychunk(sc, 2, &lazy, &needs_free);
  CHECK_GT(len, 0);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.schunk = sc;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  uint8_t *block;
  int32_t bsize;
  int n = blosc2_vldecompress_block_ctx(dctx, lazy, len, 1, &block, &bsize);
  CHECK_EQ(n, 200);
  if (n > 0) {
    CHECK_EQ(((int32_t *)block)[0], 2 * N + 100);
    free(block);
  }
  /* the first block's compressed size overwritten with 1: too small for the block */
  int32_t one = 1;
  int32_t nblocks;
  CHECK_EQ(blosc2_vlchunk_get_nblocks(lazy, len, &nblocks), 0);
  memcpy(lazy + len - 4 * nblocks, &one, 4);
  CHECK_LT(blosc2_vldecompress_block_ctx(dctx, lazy, len, 0, &block, &bsize), 0);
  blosc2_free_ctx(dctx);
  if (needs_free) free(lazy);
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(path);
}

static void test_sparse_chunk_file_emptied(void) {
  const char *dir = "callers_sparse.b2frame";
  blosc2_schunk *sc = new_frame(false, dir, false);
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_open(dir);
  CHECK(sc != NULL);
  /* chunk file 1 truncated behind the library, after its offsets were read */
  char path[256];
  snprintf(path, sizeof path, "%s/%08X.chunk", dir, 1);
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL);
  if (f) fclose(f);
  uint8_t *c;
  bool needs_free;
  CHECK_EQ(blosc2_schunk_get_chunk(sc, 1, &c, &needs_free), BLOSC2_ERROR_FILE_READ);
  CHECK_EQ(blosc2_schunk_get_lazychunk(sc, 1, &c, &needs_free), BLOSC2_ERROR_FILE_READ);
  /* the other chunks still read */
  int32_t out[N];
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 2, out, sizeof out), (int)sizeof out);
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(dir);
}

/* ------------------------------------------------------------------------------------------ */
/* frames                                                                                     */

static void test_decompress_chunk_small_dest(void) {
  const char *path = "callers_small.b2frame";
  const char *paths[3] = {NULL, NULL, path};
  const bool contiguous[3] = {false, true, true};
  const int want[3] = {BLOSC2_ERROR_INVALID_PARAM, BLOSC2_ERROR_WRITE_BUFFER,
                       BLOSC2_ERROR_WRITE_BUFFER};
  for (int k = 0; k < 3; k++) {
    blosc2_schunk *sc = new_frame(contiguous[k], paths[k], false);
    int32_t out[N];
    CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 0, out, sizeof out - 4), want[k]);
    blosc2_schunk_free(sc);
  }
  blosc2_remove_urlpath(path);
}

static int32_t be32(const uint8_t *p) {
  return (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
}

static void test_to_buffer_header_of_sparse(void) {
  /* default parameters: the blocksize the chunks used is recorded, no compression threads */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  blosc2_storage st = {.contiguous = false, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  static int32_t big[256 * 1024];
  for (int i = 0; i < 256 * 1024; i++) big[i] = i;
  CHECK_EQ(blosc2_schunk_append_buffer(sc, big, sizeof big), 1);
  uint8_t *chunk;
  bool nf;
  CHECK_GT(blosc2_schunk_get_chunk(sc, 0, &chunk, &nf), 0);
  int32_t chunk_bs;
  blosc2_cbuffer_sizes(chunk, NULL, NULL, &chunk_bs);
  uint8_t *cf;
  bool needs_free;
  int64_t len = blosc2_schunk_to_buffer(sc, &cf, &needs_free);
  CHECK_GT(len, 0);
  CHECK(needs_free);
  CHECK_EQ(be32(cf + 53), chunk_bs);             /* blocksize */
  CHECK_EQ((int16_t)(cf[63] << 8 | cf[64]), 0);  /* compression threads */
  CHECK_EQ((int16_t)(cf[66] << 8 | cf[67]), 1);  /* decompression threads */
  blosc2_schunk *back = blosc2_schunk_from_buffer(cf, len, true);
  CHECK(back != NULL);
  if (back) {
    CHECK_EQ(back->blocksize, chunk_bs);
    blosc2_schunk_free(back);
  }
  if (needs_free) free(cf);
  blosc2_schunk_free(sc);
}

/* ------------------------------------------------------------------------------------------ */
/* b2nd copies own their chunks; a view's frame holds its own shapes                           */

static b2nd_array_t *new_array(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;
  blosc2_storage st = {.contiguous = false, .cparams = &cp};
  int64_t shape[2] = {40, 50};
  int32_t cs[2] = {20, 25}, bs[2] = {10, 5};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, cs, bs, "<i4", DTYPE_NUMPY_FORMAT, NULL, 0);
  b2nd_array_t *a = NULL;
  fill(0);
  CHECK_EQ(b2nd_from_cbuffer(ctx, &a, g_buf, 40 * 50 * 4), 0);
  b2nd_free_ctx(ctx);
  return a;
}

static void test_b2nd_copy_owns_chunks(void) {
  b2nd_array_t *a = new_array();
  b2nd_context_t *ctx = b2nd_create_ctx(a->sc->storage, a->ndim, a->shape, a->chunkshape,
                                        a->blockshape, a->dtype, a->dtype_format, NULL, 0);
  b2nd_array_t *copy = NULL;
  CHECK_EQ(b2nd_copy(ctx, a, &copy), 0);
  CHECK_EQ(copy->sc->nchunks, a->sc->nchunks);
  for (int i = 0; i < a->sc->nchunks; i++) {
    CHECK(copy->sc->data[i] != a->sc->data[i]);
  }
  /* a view's copy too */
  bool axis[3] = {true, false, false};
  b2nd_array_t *view = NULL;
  CHECK_EQ(b2nd_expand_dims(a, &view, axis, 3), 0);
  b2nd_context_t *vctx = b2nd_create_ctx(a->sc->storage, view->ndim, view->shape,
                                         view->chunkshape, view->blockshape, view->dtype,
                                         view->dtype_format, NULL, 0);
  b2nd_array_t *vcopy = NULL;
  CHECK_EQ(b2nd_copy(vctx, view, &vcopy), 0);
  for (int i = 0; i < a->sc->nchunks && i < vcopy->sc->nchunks; i++) {
    CHECK(vcopy->sc->data[i] != a->sc->data[i]);
  }
  /* a concatenation */
  b2nd_array_t *cat = NULL;
  CHECK_EQ(b2nd_concatenate(ctx, a, copy, 0, true, &cat), 0);
  for (int i = 0; i < cat->sc->nchunks; i++) {
    for (int j = 0; j < a->sc->nchunks; j++) CHECK(cat->sc->data[i] != a->sc->data[j]);
  }
  int32_t out[2 * 40 * 50];
  CHECK_EQ(b2nd_to_cbuffer(cat, out, sizeof out), 0);
  CHECK_EQ(out[40 * 50 + 49], 49);
  b2nd_free(cat);
  b2nd_free(vcopy);
  b2nd_free_ctx(vctx);
  b2nd_free(view);
  b2nd_free(copy);
  b2nd_free_ctx(ctx);
  b2nd_free(a);
}

static void test_b2nd_view_to_cframe(void) {
  b2nd_array_t *a = new_array();
  bool axis[3] = {true, false, false};
  b2nd_array_t *view = NULL;
  CHECK_EQ(b2nd_expand_dims(a, &view, axis, 3), 0);
  uint8_t *cf;
  int64_t len;
  bool needs_free;
  CHECK_EQ(b2nd_to_cframe(view, &cf, &len, &needs_free), 0);
  b2nd_array_t *back = NULL;
  CHECK_EQ(b2nd_from_cframe(cf, len, true, &back), 0);
  if (back) {
    CHECK_EQ(back->ndim, 3);
    CHECK_EQ(back->shape[0], 1);
    CHECK_EQ(back->shape[1], 40);
    CHECK_EQ(back->shape[2], 50);
    int32_t out[40 * 50];
    CHECK_EQ(b2nd_to_cbuffer(back, out, sizeof out), 0);
    CHECK_EQ(out[40 * 50 - 1], 40 * 50 - 1);
    b2nd_free(back);
  }
  if (needs_free) free(cf);
  b2nd_free(view);
  b2nd_free(a);
}

int main(void) {
  blosc2_init();
  RUN(test_lazychunk_file);
  RUN(test_lazychunk_in_memory);
  RUN(test_lazychunk_vl_damaged);
  RUN(test_sparse_chunk_file_emptied);
  RUN(test_decompress_chunk_small_dest);
  RUN(test_to_buffer_header_of_sparse);
  RUN(test_b2nd_copy_owns_chunks);
  RUN(test_b2nd_view_to_cframe);
  blosc2_destroy();
  return TEST_SUMMARY();
}
