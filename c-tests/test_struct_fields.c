/*
 * The public structs are two-way: C callers write fields of blosc2_schunk (and through it
 * of its contexts and storage) and C-Blosc2 reads them back at its next call, its struct
 * being its state.  python-blosc2 writes `current_nchunk` before
 * blosc2_compress_ctx(schunk->cctx, ...), `chunksize` right after blosc2_schunk_new, the
 * coding fields and new `cctx`/`dctx` when its parameters change.  Each test writes a field
 * the way such a caller does and checks what the next calls make of it; built against the
 * reference too (tests/c_api.rs), where every check holds.
 */
#include "b2rs_test.h"

#include <blosc2.h>
#include <b2nd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define N 1000 /* int32 items per chunk */

static int32_t g_buf[4 * N];

static void fill(int32_t first) {
  for (int i = 0; i < 4 * N; i++) g_buf[i] = first + i;
}

static blosc2_schunk *new_schunk(bool contiguous, const char *urlpath, int nthreads) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = nthreads;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = nthreads;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)urlpath, .cparams = &cp,
                       .dparams = &dp};
  if (urlpath != NULL) blosc2_remove_urlpath(urlpath);
  return blosc2_schunk_new(&st);
}

/* ------------------------------------------------------------------------------------------ */
/* current_nchunk: what the prefilter and the postfilter see as nchunk                        */

static int64_t g_pre_seen = -99;
static int64_t g_post_seen = -99;

static int prefilter(blosc2_prefilter_params *p) {
  g_pre_seen = p->nchunk;
  memcpy(p->output, p->input, (size_t)p->output_size);
  return 0;
}

static int postfilter(blosc2_postfilter_params *p) {
  g_post_seen = p->nchunk;
  memcpy(p->output, p->input, (size_t)p->size);
  return 0;
}

static void test_current_nchunk_reaches_prefilter(void) {
  blosc2_prefilter_params pp;
  memset(&pp, 0, sizeof pp);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;
  cp.prefilter = prefilter;
  cp.preparams = &pp;
  blosc2_storage st = {.contiguous = false, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  CHECK(sc != NULL);
  fill(0);
  for (int c = 0; c < 3; c++) CHECK_EQ(blosc2_schunk_append_buffer(sc, g_buf, N * 4), c + 1);
  CHECK_EQ(g_pre_seen, 2);
  uint8_t out[N * 4 + BLOSC2_MAX_OVERHEAD];
  /* python-blosc2's SChunk.update_data and lazy expressions */
  for (int64_t want = 0; want < 3; want++) {
    sc->current_nchunk = want;
    CHECK_GT(blosc2_compress_ctx(sc->cctx, g_buf, N * 4, out, sizeof out), 0);
    CHECK_EQ(g_pre_seen, want);
  }
  /* a context the caller makes from the storage's parameters (bound to the super-chunk) */
  blosc2_context *cctx = blosc2_create_cctx(*sc->storage->cparams);
  CHECK(cctx != NULL);
  blosc2_free_ctx(sc->cctx);
  sc->cctx = cctx;
  sc->current_nchunk = 7;
  CHECK_GT(blosc2_compress_ctx(sc->cctx, g_buf, N * 4, out, sizeof out), 0);
  CHECK_EQ(g_pre_seen, 7);
  /* the library's own appends set it */
  CHECK_EQ(blosc2_schunk_append_buffer(sc, g_buf, N * 4), 4);
  CHECK_EQ(g_pre_seen, 3);
  CHECK_EQ(sc->current_nchunk, 3);
  blosc2_schunk_free(sc);
}

static void test_current_nchunk_reaches_postfilter(void) {
  blosc2_schunk *sc = new_schunk(false, NULL, 1);
  fill(0);
  for (int c = 0; c < 3; c++) blosc2_schunk_append_buffer(sc, g_buf, N * 4);
  blosc2_postfilter_params pp;
  memset(&pp, 0, sizeof pp);
  sc->storage->dparams->postfilter = postfilter;
  sc->storage->dparams->postparams = &pp;
  blosc2_free_ctx(sc->dctx);
  sc->dctx = blosc2_create_dctx(*sc->storage->dparams);
  uint8_t *chunk;
  bool needs_free;
  int cbytes = blosc2_schunk_get_chunk(sc, 1, &chunk, &needs_free);
  CHECK_GT(cbytes, 0);
  CHECK_EQ(sc->current_nchunk, 1);
  int32_t out[N];
  sc->current_nchunk = 5;
  CHECK_EQ(blosc2_decompress_ctx(sc->dctx, chunk, cbytes, out, sizeof out), N * 4);
  CHECK_EQ(g_post_seen, 5);
  CHECK_EQ(out[0], 0);
  /* the super-chunk's own decompression sets it */
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 2, out, sizeof out), N * 4);
  CHECK_EQ(g_post_seen, 2);
  CHECK_EQ(sc->current_nchunk, 2);
  if (needs_free) free(chunk);
  blosc2_schunk_free(sc);
}

static void test_current_nchunk_kept_by_metalayers(void) {
  blosc2_schunk *sc = new_schunk(true, NULL, 1);
  fill(0);
  for (int c = 0; c < 2; c++) blosc2_schunk_append_buffer(sc, g_buf, N * 4);
  sc->current_nchunk = 77;
  uint8_t v[3] = {1, 2, 3};
  CHECK_GE(blosc2_vlmeta_add(sc, "kind", v, 3, NULL), 0);
  CHECK_EQ(sc->current_nchunk, 77);
  uint8_t *lazy;
  bool needs_free;
  CHECK_GT(blosc2_schunk_get_lazychunk(sc, 1, &lazy, &needs_free), 0);
  CHECK_EQ(sc->current_nchunk, 1);
  if (needs_free) free(lazy);
  blosc2_schunk_free(sc);
}

/* ------------------------------------------------------------------------------------------ */
/* chunksize written by the caller                                                            */

static void test_chunksize_preset_kept(void) {
  const bool kinds[2] = {false, true};
  for (int k = 0; k < 2; k++) {
    blosc2_schunk *sc = new_schunk(kinds[k], NULL, 1);
    CHECK_EQ(sc->chunksize, -1);
    sc->chunksize = 8192;
    uint8_t v[3] = {1, 2, 3};
    CHECK_GE(blosc2_vlmeta_add(sc, "kind", v, 3, NULL), 0);
    CHECK_EQ(sc->chunksize, 8192);
    CHECK_LT(blosc2_meta_exists(sc, "b2nd"), 0);
    CHECK_EQ(sc->chunksize, 8192);
    uint8_t *cf;
    bool needs_free;
    CHECK_GT(blosc2_schunk_to_buffer(sc, &cf, &needs_free), 0);
    CHECK_EQ(sc->chunksize, 8192);
    if (needs_free) free(cf);
    blosc2_schunk_free(sc);
  }
}

static void test_chunksize_preset_rules(void) {
  const bool kinds[2] = {false, true};
  fill(0);
  for (int k = 0; k < 2; k++) {
    /* a shorter first chunk keeps the chunk size; the next one makes sizes variable */
    blosc2_schunk *sc = new_schunk(kinds[k], NULL, 1);
    sc->chunksize = 4000;
    CHECK_EQ(blosc2_schunk_append_buffer(sc, g_buf, 2000), 1);
    CHECK_EQ(sc->chunksize, 4000);
    CHECK_EQ(blosc2_schunk_append_buffer(sc, g_buf, 4000), 2);
    CHECK_EQ(sc->chunksize, 0);
    blosc2_schunk_free(sc);
    /* a first chunk larger than the preset chunk size is refused */
    sc = new_schunk(kinds[k], NULL, 1);
    sc->chunksize = 4000;
    CHECK_EQ(blosc2_schunk_append_buffer(sc, g_buf, 8000), BLOSC2_ERROR_CHUNK_APPEND);
    CHECK_EQ(sc->chunksize, 4000);
    CHECK_EQ(sc->nchunks, 0);
    /* full chunks keep it, and a larger one after them makes sizes variable */
    CHECK_EQ(blosc2_schunk_append_buffer(sc, g_buf, 4000), 1);
    CHECK_EQ(sc->chunksize, 4000);
    CHECK_EQ(blosc2_schunk_append_buffer(sc, g_buf, 8000), 2);
    CHECK_EQ(sc->chunksize, 0);
    blosc2_schunk_free(sc);
  }
}

static void test_chunksize_preset_in_file_header(void) {
  const char *path = "struct_fields_cs.b2frame";
  blosc2_schunk *sc = new_schunk(true, path, 1);
  sc->chunksize = 4000;
  fill(0);
  CHECK_EQ(blosc2_schunk_append_buffer(sc, g_buf, 2000), 1);
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_open(path);
  CHECK(sc != NULL);
  if (sc != NULL) {
    CHECK_EQ(sc->chunksize, 4000);
    CHECK_EQ(sc->nbytes, 2000);
    blosc2_schunk_free(sc);
  }
  blosc2_remove_urlpath(path);
}

/* ------------------------------------------------------------------------------------------ */
/* coding fields and contexts replaced, as python-blosc2's update_cparams does                */

static void update_cparams(blosc2_schunk *sc) {
  blosc2_cparams *cp = sc->storage->cparams;
  cp->compcode = BLOSC_ZSTD;
  cp->clevel = 7;
  cp->typesize = 8;
  cp->nthreads = 2;
  cp->filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_BITSHUFFLE;
  blosc2_free_ctx(sc->cctx);
  sc->cctx = blosc2_create_cctx(*cp);
  sc->compcode = cp->compcode;
  sc->compcode_meta = cp->compcode_meta;
  sc->clevel = cp->clevel;
  sc->splitmode = cp->splitmode;
  sc->typesize = cp->typesize;
  sc->blocksize = cp->blocksize;
  memcpy(sc->filters, cp->filters, BLOSC2_MAX_FILTERS);
  memcpy(sc->filters_meta, cp->filters_meta, BLOSC2_MAX_FILTERS);
}

static void test_coding_fields_reach_the_frame(void) {
  const char *path = "struct_fields_coding.b2frame";
  blosc2_schunk *sc = new_schunk(true, path, 1);
  fill(0);
  CHECK_EQ(blosc2_schunk_append_buffer(sc, g_buf, N * 4), 1);
  update_cparams(sc);
  CHECK_EQ(blosc2_schunk_append_buffer(sc, g_buf, N * 4), 2);
  /* the new chunk comes from the new context */
  uint8_t *chunk;
  bool needs_free;
  CHECK_GT(blosc2_schunk_get_chunk(sc, 1, &chunk, &needs_free), 0);
  CHECK_EQ(chunk[3], 8);                              /* typesize */
  CHECK_EQ((chunk[2] >> 5) & 0x7, BLOSC_ZSTD_FORMAT); /* codec format */
  if (needs_free) free(chunk);
  blosc2_cparams *got;
  CHECK_EQ(blosc2_schunk_get_cparams(sc, &got), 0);
  CHECK_EQ(got->compcode, BLOSC_ZSTD);
  CHECK_EQ(got->clevel, 7);
  CHECK_EQ(got->typesize, 8);
  CHECK_EQ(got->nthreads, 2);
  free(got);
  blosc2_schunk_free(sc);
  /* the frame header records what the struct said at the last change */
  sc = blosc2_schunk_open(path);
  CHECK(sc != NULL);
  if (sc != NULL) {
    CHECK_EQ(sc->compcode, BLOSC_ZSTD);
    CHECK_EQ(sc->clevel, 7);
    CHECK_EQ(sc->typesize, 8);
    CHECK_EQ(sc->filters[BLOSC2_MAX_FILTERS - 1], BLOSC_BITSHUFFLE);
    int32_t out[N];
    CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 0, out, sizeof out), N * 4);
    CHECK_EQ(out[N - 1], N - 1);
    blosc2_schunk_free(sc);
  }
  blosc2_remove_urlpath(path);
}

/* blosc2_schunk_copy without cparams takes the coding of `cctx`, blocksize included (the one
 * its last chunk used), and keeps the chunks as they are */
static void test_copy_takes_cctx(void) {
  blosc2_schunk *sc = new_schunk(false, NULL, 1);
  fill(0);
  CHECK_EQ(blosc2_schunk_append_buffer(sc, g_buf, 4 * N * 4), 1);
  CHECK_EQ(blosc2_schunk_append_buffer(sc, g_buf, 4 * N * 4), 2);
  CHECK_EQ(sc->blocksize, 0);
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  blosc2_schunk *c = blosc2_schunk_copy(sc, &st);
  CHECK(c != NULL);
  if (c != NULL) {
    CHECK_GT(c->blocksize, 0);
    CHECK_EQ(c->storage->cparams->blocksize, c->blocksize);
    CHECK_EQ(c->cbytes, sc->cbytes);
    CHECK_EQ(c->typesize, 4);
    blosc2_schunk_free(c);
  }
  blosc2_schunk_free(sc);
}

static void test_typesize_field_sets_item_size(void) {
  blosc2_schunk *sc = new_schunk(false, NULL, 1);
  fill(0);
  for (int c = 0; c < 2; c++) blosc2_schunk_append_buffer(sc, g_buf + c * N, N * 4);
  /* items of 8 bytes from now on: item 100 starts at byte 800 */
  sc->typesize = 8;
  int32_t out[4] = {-1, -1, -1, -1};
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 100, 102, out), 0);
  CHECK_EQ(out[0], 200);
  CHECK_EQ(out[3], 203);
  blosc2_schunk_free(sc);
}

/* storage->dparams as held: what new was given, and after open/from_buffer what
   blosc2_schunk_get_dparams gives (typesize 0); a dctx made from it still decodes */
static void test_storage_dparams_after_open(void) {
  const char *path = "test_struct_fields_dp.b2frame";
  blosc2_schunk *sc = new_schunk(true, path, 1);
  CHECK_EQ(sc->storage->dparams->typesize, 8);
  fill(0);
  CHECK_EQ(blosc2_schunk_append_buffer(sc, g_buf, N * 4), 1);
  uint8_t *buf = NULL;
  bool needs_free = false;
  int64_t len = blosc2_schunk_to_buffer(sc, &buf, &needs_free);
  CHECK_GT(len, 0);
  blosc2_schunk_free(sc);
  blosc2_schunk *o = blosc2_schunk_open(path);
  CHECK(o != NULL);
  if (o != NULL) {
    CHECK_EQ(o->storage->dparams->typesize, 0);
    CHECK(o->storage->dparams->schunk == (void *)o);
    blosc2_dparams dp = *o->storage->dparams;
    blosc2_context *dctx = blosc2_create_dctx(dp);
    uint8_t *chunk = NULL;
    bool nf = false;
    int cb = blosc2_schunk_get_chunk(o, 0, &chunk, &nf);
    CHECK_GT(cb, 0);
    int32_t out[N];
    CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, cb, out, sizeof out), N * 4);
    CHECK_EQ(out[N - 1], N - 1);
    if (nf) free(chunk);
    blosc2_free_ctx(dctx);
    blosc2_schunk_free(o);
  }
  if (len > 0) {
    blosc2_schunk *f = blosc2_schunk_from_buffer(buf, len, true);
    CHECK(f != NULL);
    if (f != NULL) {
      CHECK_EQ(f->storage->dparams->typesize, 0);
      blosc2_schunk_free(f);
    }
  }
  if (needs_free) free(buf);
  blosc2_remove_urlpath(path);
}

/* to_buffer lends an in-memory frame only while storage says "contiguous, no urlpath": a
   caller who writes contiguous = false gets a copy to free */
static void test_to_buffer_reads_storage(void) {
  blosc2_schunk *sc = new_schunk(true, NULL, 1);
  fill(0);
  CHECK_EQ(blosc2_schunk_append_buffer(sc, g_buf, N * 4), 1);
  uint8_t *buf = NULL;
  bool needs_free = true;
  int64_t len = blosc2_schunk_to_buffer(sc, &buf, &needs_free);
  CHECK_GT(len, 0);
  CHECK(!needs_free);
  sc->storage->contiguous = false;
  uint8_t *copy = NULL;
  bool copy_free = false;
  int64_t clen = blosc2_schunk_to_buffer(sc, &copy, &copy_free);
  CHECK_GT(clen, 0);
  CHECK(copy_free);
  CHECK(copy != buf);
  if (clen > 0) {
    blosc2_schunk *back = blosc2_schunk_from_buffer(copy, clen, true);
    CHECK(back != NULL);
    if (back != NULL) {
      int32_t out[N];
      CHECK_EQ(blosc2_schunk_decompress_chunk(back, 0, out, sizeof out), N * 4);
      CHECK_EQ(out[N - 1], N - 1);
      blosc2_schunk_free(back);
    }
  }
  if (copy_free) free(copy);
  /* to_file and append_file take the copy path too: the files read back */
  const char *path = "test_struct_fields_tb.b2frame";
  blosc2_remove_urlpath(path);
  CHECK_GT(blosc2_schunk_to_file(sc, path), 0);
  int64_t at = blosc2_schunk_append_file(sc, path);
  CHECK_GT(at, 0);
  for (int k = 0; k < 2; k++) {
    blosc2_schunk *f = blosc2_schunk_open_offset(path, k == 0 ? 0 : at);
    CHECK(f != NULL);
    if (f != NULL) {
      int32_t out[N];
      CHECK_EQ(blosc2_schunk_decompress_chunk(f, 0, out, sizeof out), N * 4);
      CHECK_EQ(out[7], 7);
      blosc2_schunk_free(f);
    }
  }
  blosc2_remove_urlpath(path);
  sc->storage->contiguous = true;
  blosc2_schunk_free(sc);
}

/* ------------------------------------------------------------------------------------------ */
/* b2nd arrays compress through sc->cctx and decompress through sc->dctx                      */

static b2nd_array_t *new_array(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;
  blosc2_storage st = {.contiguous = false, .cparams = &cp};
  int64_t shape[1] = {4 * N};
  int32_t cs[1] = {N}, bs[1] = {N / 4};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 1, shape, cs, bs, "<i4", DTYPE_NUMPY_FORMAT, NULL, 0);
  b2nd_array_t *a = NULL;
  fill(0);
  CHECK_EQ(b2nd_from_cbuffer(ctx, &a, g_buf, sizeof g_buf), 0);
  b2nd_free_ctx(ctx);
  return a;
}

static void test_b2nd_writes_through_cctx(void) {
  b2nd_array_t *a = new_array();
  update_cparams(a->sc);
  /* the array keeps its own typesize: only the codec changes here */
  blosc2_cparams cp = *a->sc->storage->cparams;
  cp.typesize = 4;
  blosc2_free_ctx(a->sc->cctx);
  a->sc->cctx = blosc2_create_cctx(cp);
  a->sc->typesize = 4;
  int64_t start[1] = {N}, stop[1] = {2 * N};
  int64_t bshape[1] = {N};
  fill(100000);
  CHECK_EQ(b2nd_set_slice_cbuffer(g_buf, bshape, N * 4, start, stop, a), 0);
  uint8_t *chunk;
  bool needs_free;
  CHECK_GT(blosc2_schunk_get_chunk(a->sc, 1, &chunk, &needs_free), 0);
  CHECK_EQ((chunk[2] >> 5) & 0x7, BLOSC_ZSTD_FORMAT);
  if (needs_free) free(chunk);
  CHECK_GT(blosc2_schunk_get_chunk(a->sc, 0, &chunk, &needs_free), 0);
  CHECK_EQ((chunk[2] >> 5) & 0x7, BLOSC_BLOSCLZ_FORMAT);
  if (needs_free) free(chunk);
  int32_t back[4 * N];
  CHECK_EQ(b2nd_to_cbuffer(a, back, sizeof back), 0);
  CHECK_EQ(back[N], 100000);
  CHECK_EQ(back[N - 1], N - 1);
  b2nd_free(a);
}

static int g_post_calls = 0;

static int counting_postfilter(blosc2_postfilter_params *p) {
  g_post_calls++;
  memcpy(p->output, p->input, (size_t)p->size);
  return 0;
}

static void test_b2nd_reads_through_dctx(void) {
  b2nd_array_t *a = new_array();
  blosc2_postfilter_params pp;
  memset(&pp, 0, sizeof pp);
  blosc2_dparams dp = *a->sc->storage->dparams;
  dp.postfilter = counting_postfilter;
  dp.postparams = &pp;
  dp.nthreads = 1;
  blosc2_free_ctx(a->sc->dctx);
  a->sc->dctx = blosc2_create_dctx(dp);
  g_post_calls = 0;
  int32_t back[4 * N];
  CHECK_EQ(b2nd_to_cbuffer(a, back, sizeof back), 0);
  CHECK_GT(g_post_calls, 0);
  CHECK_EQ(back[4 * N - 1], 4 * N - 1);
  b2nd_free(a);
}

/* ------------------------------------------------------------------------------------------ */
/* b2nd_refresh of a view (python-blosc2 refreshes before every read)                          */

static void test_refresh_view(void) {
  b2nd_array_t *a = new_array();
  CHECK_EQ(b2nd_refresh(a), 0);
  bool axis[2] = {true, false};
  b2nd_array_t *v = NULL;
  CHECK_EQ(b2nd_expand_dims(a, &v, axis, 2), 0);
  CHECK_EQ(v->ndim, 2);
  CHECK_EQ(b2nd_refresh(v), 0);
  b2nd_array_t *s = NULL;
  CHECK_EQ(b2nd_squeeze(v, &s), 0);
  CHECK_EQ(s->ndim, 1);
  CHECK_EQ(b2nd_refresh(s), 0);
  b2nd_free(s);
  b2nd_free(v);
  b2nd_free(a);
}

int main(void) {
  blosc2_init();
  RUN(test_current_nchunk_reaches_prefilter);
  RUN(test_current_nchunk_reaches_postfilter);
  RUN(test_current_nchunk_kept_by_metalayers);
  RUN(test_chunksize_preset_kept);
  RUN(test_chunksize_preset_rules);
  RUN(test_chunksize_preset_in_file_header);
  RUN(test_coding_fields_reach_the_frame);
  RUN(test_copy_takes_cctx);
  RUN(test_typesize_field_sets_item_size);
  RUN(test_storage_dparams_after_open);
  RUN(test_to_buffer_reads_storage);
  RUN(test_b2nd_writes_through_cctx);
  RUN(test_b2nd_reads_through_dctx);
  RUN(test_refresh_view);
  blosc2_destroy();
  return TEST_SUMMARY();
}
