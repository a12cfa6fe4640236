/*
 * test_schunk.c - area 7 of API.md: in-memory (sparse) super-chunks.
 *
 * Functions covered: blosc2_schunk_new, blosc2_schunk_free,
 * blosc2_schunk_copy, blosc2_schunk_append_buffer,
 * blosc2_schunk_append_chunk, blosc2_schunk_insert_chunk,
 * blosc2_schunk_update_chunk, blosc2_schunk_delete_chunk,
 * blosc2_schunk_reorder_offsets, blosc2_schunk_get_chunk,
 * blosc2_schunk_get_lazychunk, blosc2_schunk_decompress_chunk,
 * blosc2_schunk_get_slice_buffer, blosc2_schunk_set_slice_buffer,
 * blosc2_schunk_get_sparse_buffer, blosc2_get_slice_nchunks,
 * blosc2_schunk_get_cparams, blosc2_schunk_get_dparams,
 * blosc2_schunk_fill_special (struct side; the values are in
 * test_special.c), blosc2_schunk_get_vlblock (bad input; the rest is in
 * test_vlblocks.c), blosc2_schunk_lock/unlock/refresh,
 * blosc2_schunk_avoid_cframe_free; and the fields of the public
 * blosc2_schunk struct that C programs read directly (nchunks, nbytes,
 * cbytes, chunksize, typesize, flags2, current_nchunk, data[], data_len,
 * storage, cctx/dctx usable with blosc2_*_ctx, ...).
 *
 * Behaviours learned from the reference (C-Blosc2 3.3.5):
 *   - chunksize is -1 until the first chunk, which sets it; a larger chunk,
 *     or any chunk after a smaller one, makes it 0 (variable) for good;
 *   - VL-block chunks and regular chunks cannot be mixed: append -20,
 *     insert -19, update -21 (an update of the only chunk may switch);
 *   - out-of-range nchunk: -12; decompress_chunk into a too small buffer:
 *     -12; reorder_offsets with a non-permutation: -3;
 *   - append_buffer with a negative size: -35.
 *
 * Reference bugs compiled out with -DB2RS_REFERENCE (found by these tests,
 * not in the spec; b2rs does what the function promises):
 *   B2RS_REFERENCE_BUG_SCHUNK_NULL   NULL schunk/chunk/buffer/out-pointer
 *       arguments and a NULL storage crash most functions (b2rs: an error
 *       code, or defaults for a NULL storage).
 *   B2RS_REFERENCE_BUG_SET_SLICE  set_slice_buffer over a chunk that is not
 *       the last one, when the slice ends inside it at the offset
 *       nbytes % chunksize, replaces it with a chunk of that length (data
 *       loss, chunksize becomes 0); start < 0 or stop past the end is not
 *       refused (b2rs: -12).
 *   B2RS_REFERENCE_BUG_SLICE_VARIABLE  get/set_slice_buffer and
 *       get_slice_nchunks divide by zero (SIGFPE) when chunk sizes vary.
 *   B2RS_REFERENCE_BUG_SPARSE_LIMITS  get_sparse_buffer refuses (-12) super-
 *       chunks with an automatic blocksize or variable chunk sizes.
 *   B2RS_REFERENCE_BUG_COPY  schunk_copy with other cparams recompresses
 *       every chunk as `chunksize` bytes (a smaller last chunk grows, with
 *       garbage); with storage->cparams == NULL it takes typesize from the
 *       context (1 when typesize > 255), sets nthreads 0 and leaves
 *       storage->cparams pointing at a local variable.
 *   B2RS_REFERENCE_BUG_SLICE_NCHUNKS  get_slice_nchunks gives 1 chunk for an
 *       empty range (start > stop) and chunks past the end for stop beyond
 *       the end (b2rs: 0, and -12).
 *   B2RS_REFERENCE_BUG_EMPTIED_SCHUNK  after deleting every chunk, a chunk
 *       larger than the old chunksize is refused with -20.
 *   B2RS_REFERENCE_BUG_REORDER_CHUNKSIZE  reorder_offsets keeps a fixed
 *       chunksize when a smaller last chunk moves to the middle (b2rs: 0).
 * Compressed sizes are only compared with sums over the stored chunks, never
 * as constants: chunks are compressed through schunk->cctx, and the
 * reference's context keeps the blocksize of its previous compression (so a
 * chunk appended after a smaller one compresses differently).
 */
#include "b2rs_test.h"

#ifdef B2RS_REFERENCE
#define B2RS_REFERENCE_BUG_SCHUNK_NULL 1
#define B2RS_REFERENCE_BUG_SET_SLICE 1
#define B2RS_REFERENCE_BUG_SLICE_VARIABLE 1
#define B2RS_REFERENCE_BUG_SPARSE_LIMITS 1
#define B2RS_REFERENCE_BUG_COPY 1
#define B2RS_REFERENCE_BUG_SLICE_NCHUNKS 1
#define B2RS_REFERENCE_BUG_EMPTIED_SCHUNK 1
#define B2RS_REFERENCE_BUG_REORDER_CHUNKSIZE 1
#endif

#define NITEMS 1000 /* int32 items per full chunk */
#define CHUNK_BYTES (NITEMS * 4)

static int32_t g_data[64 * NITEMS];

static void init_data(void) {
  for (int i = 0; i < 64 * NITEMS; i++) g_data[i] = i * 3 + (i % 7);
}

static blosc2_schunk *new_schunk4(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  return blosc2_schunk_new(&st);
}

/* a compressed chunk of `nitems` int32 from g_data[first...] (malloc'd) */
static uint8_t *make_chunk(int first, int nitems, int *cbytes) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  uint8_t *c;
  *cbytes = compress_with(cp, g_data + first, nitems * 4, &c);
  CHECK_GT(*cbytes, 0);
  return c;
}

/* the struct counters agree with the chunks reachable through data[] */
static void check_counters(blosc2_schunk *sc) {
  int64_t nb = 0, cb = 0;
  CHECK_GE(sc->data_len, (size_t)sc->nchunks * sizeof(uint8_t *));
  for (int64_t i = 0; i < sc->nchunks; i++) {
    CHECK(sc->data[i] != NULL);
    if (sc->data[i] == NULL) return;
    nb += HDR_NBYTES(sc->data[i]);
    cb += HDR_CBYTES(sc->data[i]);
    uint8_t *ch;
    bool nf = true;
    CHECK_EQ(blosc2_schunk_get_chunk(sc, i, &ch, &nf), HDR_CBYTES(sc->data[i]));
    CHECK(ch == sc->data[i]);
    CHECK(!nf);
  }
  CHECK_EQ(sc->nbytes, nb);
  CHECK_EQ(sc->cbytes, cb);
}

/* chunk i decompresses to `nitems` int32 from g_data[first...] */
static void check_chunk_data(blosc2_schunk *sc, int64_t i, int first, int nitems) {
  int32_t out[4 * NITEMS];
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, i, out, sizeof(out)), nitems * 4);
  CHECK_MEM(out, g_data + first, (size_t)nitems * 4);
}

/* ------------------------------------------------------------------ */

static void test_new_fields(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 300;
  cp.compcode = BLOSC_LZ4;
  cp.compcode_meta = 9;
  cp.clevel = 3;
  cp.use_dict = 1;
  cp.nthreads = 2;
  cp.blocksize = 3000;
  cp.splitmode = BLOSC_NEVER_SPLIT;
  cp.filters[0] = BLOSC_DELTA;
  cp.filters_meta[0] = 7;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 3;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  st.dparams = &dp;
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  CHECK(sc != NULL);
  if (sc == NULL) return;
  CHECK_EQ(sc->version, 0);
  CHECK_EQ(sc->compcode, BLOSC_LZ4);
  CHECK_EQ(sc->compcode_meta, 9);
  CHECK_EQ(sc->clevel, 3);
  CHECK_EQ(sc->splitmode, BLOSC_NEVER_SPLIT);
  CHECK_EQ(sc->typesize, 300);
  CHECK_EQ(sc->blocksize, 3000);
  CHECK_EQ(sc->chunksize, -1);
  CHECK_EQ(sc->flags2, 0);
  CHECK_EQ(sc->use_dict, 1);
  static const uint8_t filters[6] = {BLOSC_DELTA, 0, 0, 0, 0, BLOSC_SHUFFLE};
  static const uint8_t fmeta[6] = {7, 0, 0, 0, 0, 0};
  CHECK_MEM(sc->filters, filters, 6);
  CHECK_MEM(sc->filters_meta, fmeta, 6);
  CHECK_EQ(sc->nchunks, 0);
  CHECK_EQ(sc->current_nchunk, 0);
  CHECK_EQ(sc->nbytes, 0);
  CHECK_EQ(sc->cbytes, 0);
  CHECK(sc->data == NULL);
  CHECK_EQ(sc->data_len, 0);
  CHECK(sc->frame == NULL);
  CHECK(sc->cctx != NULL);
  CHECK(sc->dctx != NULL);
  CHECK_EQ(sc->nmetalayers, 0);
  CHECK_EQ(sc->nvlmetalayers, 0);
  CHECK_EQ(sc->ndim, 0);
  CHECK(!sc->view);
  /* the storage is a copy, with the super-chunk recorded in its params */
  CHECK(sc->storage != NULL);
  CHECK(sc->storage != &st);
  CHECK(!sc->storage->contiguous);
  CHECK(sc->storage->urlpath == NULL);
  CHECK(sc->storage->cparams != NULL && sc->storage->cparams != &cp);
  CHECK(sc->storage->dparams != NULL && sc->storage->dparams != &dp);
  CHECK(sc->storage->io != NULL);
  CHECK(sc->storage->cparams->schunk == sc);
  CHECK(sc->storage->dparams->schunk == sc);
  CHECK_EQ(sc->storage->cparams->typesize, 300);
  CHECK_EQ(sc->storage->cparams->clevel, 3);
  CHECK_EQ(sc->storage->cparams->nthreads, 2);
  CHECK_EQ(sc->storage->dparams->nthreads, 3);
  CHECK(cp.schunk == NULL); /* the caller's struct is not modified */
  /* the contexts know their super-chunk */
  blosc2_cparams cc;
  CHECK_EQ(blosc2_ctx_get_cparams(sc->cctx, &cc), 0);
  CHECK(cc.schunk == sc);
  CHECK_EQ(cc.typesize, 300);
  CHECK_EQ(cc.clevel, 3);
  CHECK_EQ(cc.compcode, BLOSC_LZ4);
  blosc2_dparams dd;
  CHECK_EQ(blosc2_ctx_get_dparams(sc->dctx, &dd), 0);
  CHECK(dd.schunk == sc);
  CHECK_EQ(dd.nthreads, 3);
  CHECK_EQ(blosc2_schunk_free(sc), 0);

  /* no cparams/dparams in the storage: the defaults */
  blosc2_storage st2 = BLOSC2_STORAGE_DEFAULTS;
  sc = blosc2_schunk_new(&st2);
  CHECK(sc != NULL);
  CHECK_EQ(sc->typesize, 8);
  CHECK_EQ(sc->clevel, 5);
  CHECK_EQ(sc->compcode, BLOSC_BLOSCLZ);
  CHECK_EQ(sc->filters[5], BLOSC_SHUFFLE);
  CHECK_EQ(sc->splitmode, BLOSC_FORWARD_COMPAT_SPLIT);
  CHECK_EQ(sc->storage->cparams->typesize, 8);
  CHECK(sc->storage->cparams->schunk == sc);
  CHECK_EQ(sc->storage->dparams->nthreads, 1);
  blosc2_schunk_free(sc);
}

static void test_append_buffer(void) {
  init_data();
  blosc2_schunk *sc = new_schunk4();
  for (int k = 0; k < 10; k++) {
    CHECK_EQ(blosc2_schunk_append_buffer(sc, g_data + k * NITEMS, CHUNK_BYTES), k + 1);
    CHECK_EQ(sc->nchunks, k + 1);
    CHECK_EQ(sc->current_nchunk, k);
    CHECK_EQ(sc->chunksize, CHUNK_BYTES);
    CHECK_EQ(sc->nbytes, (int64_t)(k + 1) * CHUNK_BYTES);
  }
  check_counters(sc);
  CHECK_GE(sc->data_len, 4096);
  for (int k = 0; k < 10; k++) {
    CHECK_EQ(HDR_NBYTES(sc->data[k]), CHUNK_BYTES);
    CHECK_EQ(HDR_TYPESIZE(sc->data[k]), 4);
    check_chunk_data(sc, k, k * NITEMS, NITEMS);
    CHECK_EQ(sc->current_nchunk, k);
  }
  /* a smaller last chunk keeps the chunksize, anything after it makes it 0 */
  CHECK_EQ(blosc2_schunk_append_buffer(sc, g_data + 10 * NITEMS, 400), 11);
  CHECK_EQ(sc->chunksize, CHUNK_BYTES);
  CHECK_EQ(blosc2_schunk_append_buffer(sc, g_data + 11 * NITEMS, CHUNK_BYTES), 12);
  CHECK_EQ(sc->chunksize, 0);
  check_chunk_data(sc, 10, 10 * NITEMS, 100);
  check_chunk_data(sc, 11, 11 * NITEMS, NITEMS);
  /* an empty buffer makes an empty chunk */
  CHECK_EQ(blosc2_schunk_append_buffer(sc, g_data, 0), 13);
  CHECK_EQ(blosc2_schunk_append_buffer(sc, NULL, 0), 14);
  CHECK_EQ(HDR_NBYTES(sc->data[13]), 0);
  uint8_t out[16];
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 13, out, sizeof(out)), 0);
  check_counters(sc);
  blosc2_schunk_free(sc);
}

/* many chunks: the data[] pointer array grows and stays valid */
static void test_many_chunks(void) {
  init_data();
  blosc2_schunk *sc = new_schunk4();
  int n = 3000;
  for (int k = 0; k < n; k++) {
    int64_t r = blosc2_schunk_append_buffer(sc, g_data + (k % 60) * NITEMS, 400);
    if (r != k + 1) {
      CHECK_EQ(r, k + 1);
      break;
    }
  }
  CHECK_EQ(sc->nchunks, n);
  CHECK_GE(sc->data_len, (size_t)n * sizeof(uint8_t *));
  check_counters(sc);
  for (int k = 0; k < n; k += 97) check_chunk_data(sc, k, (k % 60) * NITEMS, 100);
  blosc2_schunk_free(sc);
}

/* the contexts of a super-chunk are usable with the *_ctx functions */
static void test_contexts_usable(void) {
  init_data();
  blosc2_schunk *sc = new_schunk4();
  uint8_t chunk[CHUNK_BYTES + BLOSC2_MAX_OVERHEAD];
  int cb = blosc2_compress_ctx(sc->cctx, g_data, CHUNK_BYTES, chunk, sizeof(chunk));
  CHECK_GT(cb, 0);
  CHECK_EQ(HDR_TYPESIZE(chunk), 4);
  CHECK_EQ(blosc2_schunk_append_chunk(sc, chunk, true), 1);
  int32_t out[NITEMS];
  CHECK_EQ(blosc2_decompress_ctx(sc->dctx, sc->data[0], cb, out, sizeof(out)), CHUNK_BYTES);
  CHECK_MEM(out, g_data, CHUNK_BYTES);
  CHECK_EQ(blosc2_getitem_ctx(sc->dctx, sc->data[0], cb, 10, 5, out, sizeof(out)), 20);
  CHECK_MEM(out, g_data + 10, 20);
  blosc2_schunk_free(sc);
}

static void test_append_chunk_copy(void) {
  init_data();
  blosc2_schunk *sc = new_schunk4();
  int cb;
  /* copy = true: the caller keeps its buffer */
  uint8_t *c0 = make_chunk(0, NITEMS, &cb);
  CHECK_EQ(blosc2_schunk_append_chunk(sc, c0, true), 1);
  CHECK(sc->data[0] != c0);
  CHECK_MEM(sc->data[0], c0, (size_t)cb);
  memset(c0, 0, (size_t)cb);
  free(c0);
  check_chunk_data(sc, 0, 0, NITEMS);
  /* copy = false, buffer of exactly cbytes: taken over (realloc may move it) */
  uint8_t *c1 = make_chunk(NITEMS, NITEMS, &cb);
  uint8_t *exact = malloc((size_t)cb);
  memcpy(exact, c1, (size_t)cb);
  CHECK_EQ(blosc2_schunk_append_chunk(sc, exact, false), 2);
  CHECK_MEM(sc->data[1], c1, (size_t)cb);
  free(c1);
  check_chunk_data(sc, 1, NITEMS, NITEMS);
  /* copy = false, buffer of nbytes + overhead: taken over (maybe trimmed) */
  uint8_t *c2 = make_chunk(2 * NITEMS, NITEMS, &cb);
  CHECK_EQ(blosc2_schunk_insert_chunk(sc, 0, c2, false), 3);
  check_chunk_data(sc, 0, 2 * NITEMS, NITEMS);
  uint8_t *c3 = make_chunk(3 * NITEMS, NITEMS, &cb);
  CHECK_EQ(blosc2_schunk_update_chunk(sc, 2, c3, false), 3);
  check_chunk_data(sc, 2, 3 * NITEMS, NITEMS);
  check_chunk_data(sc, 1, 0, NITEMS);
  /* a refused chunk stays with the caller (freed here: no double free) */
  uint8_t *big = make_chunk(0, 2 * NITEMS, &cb);
  int32_t srcs_len[1] = {100};
  const void *srcs[1] = {g_data};
  uint8_t *vl = gbuf(200, 0);
  blosc2_context *cctx = blosc2_create_cctx(BLOSC2_CPARAMS_DEFAULTS);
  CHECK_GT(blosc2_vlcompress_ctx(cctx, srcs, srcs_len, 1, vl, 200), 0);
  blosc2_free_ctx(cctx);
  CHECK_EQ(blosc2_schunk_append_chunk(sc, vl, false), BLOSC2_ERROR_CHUNK_APPEND);
  CHECK_EQ(blosc2_schunk_insert_chunk(sc, 0, vl, false), BLOSC2_ERROR_CHUNK_INSERT);
  CHECK_EQ(blosc2_schunk_update_chunk(sc, 0, vl, false), BLOSC2_ERROR_CHUNK_UPDATE);
  CHECK_EQ(blosc2_schunk_insert_chunk(sc, 5, big, false), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_schunk_update_chunk(sc, 3, big, false), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(sc->nchunks, 3);
  free(vl);
  free(big);
  check_counters(sc);
  blosc2_schunk_free(sc);
}

static void test_insert_update_delete(void) {
  init_data();
  blosc2_schunk *sc = new_schunk4();
  for (int k = 0; k < 4; k++) CHECK_EQ(blosc2_schunk_append_buffer(sc, g_data + k * NITEMS, CHUNK_BYTES), k + 1);
  int cb;
  uint8_t *c = make_chunk(10 * NITEMS, NITEMS, &cb);
  /* insert in the middle, at the start and at the end */
  CHECK_EQ(blosc2_schunk_insert_chunk(sc, 2, c, true), 5);
  CHECK_EQ(sc->current_nchunk, 2);
  CHECK_EQ(blosc2_schunk_insert_chunk(sc, 0, c, true), 6);
  CHECK_EQ(sc->current_nchunk, 0);
  CHECK_EQ(blosc2_schunk_insert_chunk(sc, 6, c, true), 7);
  CHECK_EQ(sc->current_nchunk, 6);
  CHECK_EQ(sc->chunksize, CHUNK_BYTES);
  static const int order[7] = {10, 0, 1, 10, 2, 3, 10};
  for (int i = 0; i < 7; i++) check_chunk_data(sc, i, order[i] * NITEMS, NITEMS);
  check_counters(sc);
  /* out of range */
  CHECK_EQ(blosc2_schunk_insert_chunk(sc, 8, c, true), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_schunk_insert_chunk(sc, -1, c, true), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_schunk_update_chunk(sc, 7, c, true), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_schunk_update_chunk(sc, -1, c, true), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_schunk_delete_chunk(sc, 7), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_schunk_delete_chunk(sc, -1), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(sc->nchunks, 7);
  CHECK_EQ(sc->current_nchunk, 6);
  /* update */
  uint8_t *u = make_chunk(20 * NITEMS, NITEMS, &cb);
  CHECK_EQ(blosc2_schunk_update_chunk(sc, 3, u, true), 7);
  CHECK_EQ(sc->current_nchunk, 3);
  check_chunk_data(sc, 3, 20 * NITEMS, NITEMS);
  check_counters(sc);
  /* delete */
  CHECK_EQ(blosc2_schunk_delete_chunk(sc, 0), 6);
  CHECK_EQ(sc->current_nchunk, 0);
  CHECK_EQ(blosc2_schunk_delete_chunk(sc, 5), 5);
  CHECK_EQ(sc->current_nchunk, 5);
  CHECK_EQ(blosc2_schunk_delete_chunk(sc, 2), 4);
  static const int order2[4] = {0, 1, 2, 3};
  for (int i = 0; i < 4; i++) check_chunk_data(sc, i, order2[i] * NITEMS, NITEMS);
  check_counters(sc);
  CHECK_EQ(sc->chunksize, CHUNK_BYTES);
  while (sc->nchunks > 0) CHECK_EQ(blosc2_schunk_delete_chunk(sc, 0), sc->nchunks);
  CHECK_EQ(sc->nbytes, 0);
  CHECK_EQ(sc->cbytes, 0);
  CHECK_EQ(sc->flags2, 0);
  /* chunks of the same size can come back */
  CHECK_EQ(blosc2_schunk_append_chunk(sc, c, true), 1);
  CHECK_EQ(sc->chunksize, CHUNK_BYTES);
  check_counters(sc);
  free(c);
  free(u);
  blosc2_schunk_free(sc);
}

/* when chunksize becomes variable (0) and when it does not */
static void test_chunksize_rules(void) {
  init_data();
  int cb;
  uint8_t *full = make_chunk(0, NITEMS, &cb);
  uint8_t *half = make_chunk(0, NITEMS / 2, &cb);
  uint8_t *dbl = make_chunk(0, 2 * NITEMS, &cb);
  uint8_t *empty = make_chunk(0, 0, &cb);
  blosc2_schunk *sc;

  sc = new_schunk4(); /* smaller chunk inserted before another one */
  CHECK_EQ(blosc2_schunk_append_chunk(sc, full, true), 1);
  CHECK_EQ(blosc2_schunk_insert_chunk(sc, 0, half, true), 2);
  CHECK_EQ(sc->chunksize, 0);
  blosc2_schunk_free(sc);

  sc = new_schunk4(); /* larger chunk appended */
  CHECK_EQ(blosc2_schunk_append_chunk(sc, full, true), 1);
  CHECK_EQ(blosc2_schunk_append_chunk(sc, dbl, true), 2);
  CHECK_EQ(sc->chunksize, 0);
  check_counters(sc);
  blosc2_schunk_free(sc);

  sc = new_schunk4(); /* the first chunk can be inserted */
  CHECK_EQ(blosc2_schunk_insert_chunk(sc, 0, full, true), 1);
  CHECK_EQ(sc->chunksize, CHUNK_BYTES);
  CHECK_EQ(blosc2_schunk_insert_chunk(sc, 0, dbl, true), 2);
  CHECK_EQ(sc->chunksize, 0);
  blosc2_schunk_free(sc);

  sc = new_schunk4(); /* updates: smaller only for the last chunk */
  CHECK_EQ(blosc2_schunk_append_chunk(sc, full, true), 1);
  CHECK_EQ(blosc2_schunk_update_chunk(sc, 0, half, true), 1);
  CHECK_EQ(sc->chunksize, CHUNK_BYTES);
  CHECK_EQ(blosc2_schunk_update_chunk(sc, 0, full, true), 1);
  CHECK_EQ(blosc2_schunk_append_chunk(sc, full, true), 2);
  CHECK_EQ(blosc2_schunk_update_chunk(sc, 1, half, true), 2);
  CHECK_EQ(sc->chunksize, CHUNK_BYTES);
  CHECK_EQ(blosc2_schunk_insert_chunk(sc, 2, full, true), 3);
  CHECK_EQ(sc->chunksize, 0);
  /* once variable, always variable */
  CHECK_EQ(blosc2_schunk_update_chunk(sc, 1, full, true), 3);
  CHECK_EQ(sc->chunksize, 0);
  check_counters(sc);
  blosc2_schunk_free(sc);

  sc = new_schunk4(); /* smaller chunk updated into the middle */
  CHECK_EQ(blosc2_schunk_append_chunk(sc, full, true), 1);
  CHECK_EQ(blosc2_schunk_append_chunk(sc, full, true), 2);
  CHECK_EQ(blosc2_schunk_update_chunk(sc, 0, half, true), 2);
  CHECK_EQ(sc->chunksize, 0);
  blosc2_schunk_free(sc);

  sc = new_schunk4(); /* deleting the smaller last chunk */
  CHECK_EQ(blosc2_schunk_append_chunk(sc, full, true), 1);
  CHECK_EQ(blosc2_schunk_append_chunk(sc, half, true), 2);
  CHECK_EQ(blosc2_schunk_delete_chunk(sc, 1), 1);
  CHECK_EQ(blosc2_schunk_append_chunk(sc, full, true), 2);
  CHECK_EQ(sc->chunksize, CHUNK_BYTES);
  CHECK_EQ(blosc2_schunk_insert_chunk(sc, 1, half, true), 3);
  CHECK_EQ(sc->chunksize, 0);
  blosc2_schunk_free(sc);

  sc = new_schunk4(); /* empty chunks */
  CHECK_EQ(blosc2_schunk_append_chunk(sc, full, true), 1);
  CHECK_EQ(blosc2_schunk_append_chunk(sc, empty, true), 2);
  CHECK_EQ(sc->chunksize, CHUNK_BYTES);
  blosc2_schunk_free(sc);
  sc = new_schunk4();
  CHECK_EQ(blosc2_schunk_append_chunk(sc, empty, true), 1);
  CHECK_EQ(sc->chunksize, 0);
  CHECK_EQ(sc->nbytes, 0);
  CHECK_EQ(sc->cbytes, HDR_CBYTES(empty));
  CHECK_EQ(blosc2_schunk_append_chunk(sc, full, true), 2);
  CHECK_EQ(sc->chunksize, 0);
  blosc2_schunk_free(sc);

#ifndef B2RS_REFERENCE_BUG_EMPTIED_SCHUNK
  sc = new_schunk4(); /* an emptied super-chunk takes any chunk */
  CHECK_EQ(blosc2_schunk_append_chunk(sc, half, true), 1);
  CHECK_EQ(blosc2_schunk_delete_chunk(sc, 0), 0);
  CHECK_EQ(blosc2_schunk_append_chunk(sc, dbl, true), 1);
  CHECK_EQ(sc->nbytes, 2 * CHUNK_BYTES);
  check_chunk_data(sc, 0, 0, 2 * NITEMS);
  blosc2_schunk_free(sc);
#endif
  free(full);
  free(half);
  free(dbl);
  free(empty);
}

static void test_vl_chunks(void) {
  init_data();
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  const void *srcs[2] = {g_data, g_data + 100};
  int32_t sizes[2] = {400, 800};
  uint8_t vl[4000];
  int vcb = blosc2_vlcompress_ctx(cctx, srcs, sizes, 2, vl, sizeof(vl));
  CHECK_GT(vcb, 0);
  blosc2_free_ctx(cctx);
  int cb;
  uint8_t *reg = make_chunk(0, NITEMS, &cb);

  blosc2_schunk *sc = new_schunk4();
  CHECK_EQ(blosc2_schunk_append_chunk(sc, vl, true), 1);
  CHECK_EQ(sc->flags2, 1);
  CHECK_EQ(sc->chunksize, 1200);
  CHECK_EQ(blosc2_schunk_append_chunk(sc, reg, true), BLOSC2_ERROR_CHUNK_APPEND);
  CHECK_EQ(blosc2_schunk_insert_chunk(sc, 0, reg, true), BLOSC2_ERROR_CHUNK_INSERT);
  CHECK_EQ(blosc2_schunk_append_chunk(sc, vl, true), 2);
  CHECK_EQ(blosc2_schunk_insert_chunk(sc, 1, vl, true), 3);
  CHECK_EQ(blosc2_schunk_update_chunk(sc, 0, reg, true), BLOSC2_ERROR_CHUNK_UPDATE);
  CHECK_EQ(sc->nchunks, 3);
  CHECK_EQ(sc->nbytes, 3600);
  check_counters(sc);
  /* the whole VL chunk decompresses to its blocks one after the other */
  int32_t out[300];
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 1, out, sizeof(out)), 1200);
  CHECK_MEM(out, g_data, 400);
  CHECK_MEM((uint8_t *)out + 400, g_data + 100, 800);
  uint8_t *b = NULL;
  int32_t bs = 0;
  CHECK_EQ(blosc2_schunk_get_vlblock(sc, 2, 1, &b, &bs), 800);
  CHECK_EQ(bs, 800);
  if (b) CHECK_MEM(b, g_data + 100, 800);
  free(b);
  while (sc->nchunks > 1) blosc2_schunk_delete_chunk(sc, 0);
  CHECK_EQ(sc->flags2, 1);
  /* the only chunk may be replaced by a regular one */
  CHECK_EQ(blosc2_schunk_update_chunk(sc, 0, reg, true), 1);
  CHECK_EQ(sc->flags2, 0);
  CHECK_EQ(sc->chunksize, 0);
  CHECK_EQ(blosc2_schunk_append_chunk(sc, vl, true), BLOSC2_ERROR_CHUNK_APPEND);
  CHECK_EQ(blosc2_schunk_get_vlblock(sc, 0, 0, &b, &bs), BLOSC2_ERROR_INVALID_PARAM);
  blosc2_schunk_delete_chunk(sc, 0);
  CHECK_EQ(sc->flags2, 0);
  blosc2_schunk_free(sc);
  /* and the other way round */
  sc = new_schunk4();
  CHECK_EQ(blosc2_schunk_append_chunk(sc, reg, true), 1);
  CHECK_EQ(blosc2_schunk_append_chunk(sc, vl, true), BLOSC2_ERROR_CHUNK_APPEND);
  CHECK_EQ(blosc2_schunk_insert_chunk(sc, 0, vl, true), BLOSC2_ERROR_CHUNK_INSERT);
  CHECK_EQ(blosc2_schunk_update_chunk(sc, 0, vl, true), 1);
  CHECK_EQ(sc->flags2, 1);
  blosc2_schunk_free(sc);
  free(reg);
}

/* special chunks are stored as they are (32 or 32+typesize bytes) */
static void test_special_chunks(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_schunk *sc = new_schunk4();
  uint8_t z[64];
  CHECK_EQ(blosc2_chunk_zeros(cp, CHUNK_BYTES, z, sizeof(z)), 32);
  CHECK_EQ(blosc2_schunk_append_chunk(sc, z, true), 1);
  int32_t v = 0x12345678;
  CHECK_EQ(blosc2_chunk_repeatval(cp, CHUNK_BYTES, z, sizeof(z), &v), 36);
  CHECK_EQ(blosc2_schunk_append_chunk(sc, z, true), 2);
  CHECK_EQ(blosc2_chunk_uninit(cp, CHUNK_BYTES, z, sizeof(z)), 32);
  CHECK_EQ(blosc2_schunk_append_chunk(sc, z, true), 3);
  CHECK_EQ(sc->cbytes, 32 + 36 + 32);
  CHECK_EQ(sc->nbytes, 3 * CHUNK_BYTES);
  CHECK_EQ(sc->chunksize, CHUNK_BYTES);
  int32_t out[NITEMS];
  memset(out, 1, sizeof(out));
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 0, out, sizeof(out)), CHUNK_BYTES);
  CHECK_EQ(out[0], 0);
  CHECK_EQ(out[NITEMS - 1], 0);
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 1, out, sizeof(out)), CHUNK_BYTES);
  CHECK_EQ(out[0], v);
  CHECK_EQ(out[NITEMS - 1], v);
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 2, out, sizeof(out)), CHUNK_BYTES);
  check_counters(sc);
  blosc2_schunk_free(sc);
}

static void test_decompress_chunk_errors(void) {
  init_data();
  blosc2_schunk *sc = new_schunk4();
  CHECK_EQ(blosc2_schunk_append_buffer(sc, g_data, CHUNK_BYTES), 1);
  uint8_t *out = gbuf(CHUNK_BYTES + 100, 0x33);
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 0, out, CHUNK_BYTES - 1), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(out[0], 0x33);
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 0, out, -1), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 1, out, CHUNK_BYTES), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, -1, out, CHUNK_BYTES), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, INT64_MAX, out, CHUNK_BYTES), BLOSC2_ERROR_INVALID_PARAM);
  /* a larger buffer: only the chunk is written */
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 0, out, CHUNK_BYTES + 100), CHUNK_BYTES);
  CHECK_MEM(out, g_data, CHUNK_BYTES);
  CHECK_EQ(out[CHUNK_BYTES], 0x33);
  CHECK_GUARD(out, CHUNK_BYTES + 100);
  free(out);
  uint8_t *ch = NULL;
  bool nf = false;
  CHECK_EQ(blosc2_schunk_get_chunk(sc, 1, &ch, &nf), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_schunk_get_chunk(sc, -1, &ch, &nf), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_schunk_get_lazychunk(sc, 1, &ch, &nf), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_schunk_get_lazychunk(sc, -1, &ch, &nf), BLOSC2_ERROR_INVALID_PARAM);
  /* lazy chunks of in-memory super-chunks are the chunks themselves */
  int cb = blosc2_schunk_get_lazychunk(sc, 0, &ch, &nf);
  CHECK_EQ(cb, HDR_CBYTES(sc->data[0]));
  CHECK(ch == sc->data[0]);
  CHECK(!nf);
  blosc2_schunk_free(sc);
}

/* bad chunks and bad buffers */
static void test_append_errors(void) {
  init_data();
  blosc2_schunk *sc = new_schunk4();
  uint8_t junk[64];
  memset(junk, 0xFF, sizeof(junk));
  CHECK_EQ(blosc2_schunk_append_chunk(sc, junk, true), BLOSC2_ERROR_INVALID_HEADER);
  memset(junk, 0, sizeof(junk));
  CHECK_EQ(blosc2_schunk_append_chunk(sc, junk, true), BLOSC2_ERROR_INVALID_HEADER);
  CHECK_EQ(blosc2_schunk_insert_chunk(sc, 0, junk, true), BLOSC2_ERROR_INVALID_HEADER);
  CHECK_EQ(sc->nchunks, 0);
  CHECK_EQ(sc->chunksize, -1);
  CHECK(sc->data == NULL || sc->data_len > 0);
  /* negative sizes */
  CHECK_EQ(blosc2_schunk_append_buffer(sc, g_data, -4), BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED);
  CHECK_EQ(blosc2_schunk_append_buffer(sc, g_data, INT32_MAX), BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED);
  CHECK_EQ(sc->nchunks, 0);
  blosc2_schunk_free(sc);
  /* parameters refused when compressing */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.clevel = 12;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  sc = blosc2_schunk_new(&st);
  CHECK(sc != NULL);
  if (sc) {
    CHECK_EQ(blosc2_schunk_append_buffer(sc, g_data, 1000), BLOSC2_ERROR_CODEC_PARAM);
    CHECK_EQ(sc->nchunks, 0);
    blosc2_schunk_free(sc);
  }
  cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = 99;
  sc = blosc2_schunk_new(&st);
  CHECK(sc != NULL);
  if (sc) {
    CHECK_EQ(blosc2_schunk_append_buffer(sc, g_data, 1000), BLOSC2_ERROR_CODEC_SUPPORT);
    blosc2_schunk_free(sc);
  }
}

static void test_reorder(void) {
  init_data();
  blosc2_schunk *sc = new_schunk4();
  for (int k = 0; k < 6; k++) blosc2_schunk_append_buffer(sc, g_data + k * NITEMS, CHUNK_BYTES);
  uint8_t *ptrs[6];
  for (int k = 0; k < 6; k++) ptrs[k] = sc->data[k];
  int64_t order[6] = {5, 3, 4, 0, 1, 2};
  CHECK_EQ(blosc2_schunk_reorder_offsets(sc, order), 0);
  for (int k = 0; k < 6; k++) {
    CHECK(sc->data[k] == ptrs[order[k]]);
    check_chunk_data(sc, k, (int)order[k] * NITEMS, NITEMS);
  }
  CHECK_EQ(sc->nchunks, 6);
  CHECK_EQ(sc->chunksize, CHUNK_BYTES);
  check_counters(sc);
  int64_t dup[6] = {0, 0, 1, 2, 3, 4};
  int64_t big[6] = {0, 1, 2, 3, 4, 6};
  int64_t neg[6] = {0, 1, 2, 3, 4, -1};
  CHECK_EQ(blosc2_schunk_reorder_offsets(sc, dup), BLOSC2_ERROR_DATA);
  CHECK_EQ(blosc2_schunk_reorder_offsets(sc, big), BLOSC2_ERROR_DATA);
  CHECK_EQ(blosc2_schunk_reorder_offsets(sc, neg), BLOSC2_ERROR_DATA);
  for (int k = 0; k < 6; k++) CHECK(sc->data[k] == ptrs[order[k]]);
#ifndef B2RS_REFERENCE_BUG_REORDER_CHUNKSIZE
  /* a smaller last chunk moved to the middle makes the sizes variable */
  blosc2_schunk_append_buffer(sc, g_data, 400);
  int64_t mid[7] = {0, 6, 1, 2, 3, 4, 5};
  CHECK_EQ(blosc2_schunk_reorder_offsets(sc, mid), 0);
  CHECK_EQ(sc->chunksize, 0);
  check_chunk_data(sc, 1, 0, 100);
  int32_t out[2 * NITEMS];
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, NITEMS - 10, NITEMS + 110, out), 0);
  CHECK_MEM(out, g_data + 5 * NITEMS + NITEMS - 10, 40);
  CHECK_MEM(out + 10, g_data, 400);
  CHECK_MEM(out + 110, g_data + 3 * NITEMS, 40);
#endif
  blosc2_schunk_free(sc);
}

/* get/set slices with fixed chunk sizes */
static void test_slices(void) {
  init_data();
  blosc2_schunk *sc = new_schunk4();
  for (int k = 0; k < 6; k++) blosc2_schunk_append_buffer(sc, g_data + k * NITEMS, CHUNK_BYTES);
  int total = 6 * NITEMS;
  int32_t *out = (int32_t *)gbuf((size_t)total * 4, 0);
  static const int64_t ranges[][2] = {{0, 6000}, {0, 1}, {999, 1001}, {1500, 2500}, {10, 5990},
                                      {5000, 6000}, {5999, 6000}, {2000, 4000}, {3, 4}};
  for (size_t r = 0; r < sizeof(ranges) / sizeof(ranges[0]); r++) {
    int64_t a = ranges[r][0], b = ranges[r][1];
    memset(out, 0, (size_t)total * 4);
    CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, a, b, out), 0);
    CHECK_MEM(out, g_data + a, (size_t)(b - a) * 4);
    if (b - a < total) CHECK_EQ(out[b - a], 0);
  }
  CHECK_GUARD(out, (size_t)total * 4);
  /* empty ranges */
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 5, 5, out), 0);
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 6000, 6000, out), 0);
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 10, 5, out), 0);
  /* out of range */
  CHECK_LT(blosc2_schunk_get_slice_buffer(sc, 5000, 6001, out), 0);
  CHECK_LT(blosc2_schunk_get_slice_buffer(sc, -1, 5, out), 0);

  /* set: partial first and last chunks, whole chunks in between */
  int32_t *nv = malloc((size_t)total * 4);
  for (int i = 0; i < total; i++) nv[i] = -i;
  CHECK_EQ(blosc2_schunk_set_slice_buffer(sc, 500, 3700, nv), 0);
  CHECK_EQ(sc->nchunks, 6);
  CHECK_EQ(sc->nbytes, total * 4);
  CHECK_EQ(sc->chunksize, CHUNK_BYTES);
  check_counters(sc);
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 0, total, out), 0);
  CHECK_MEM(out, g_data, 500 * 4);
  CHECK_MEM(out + 500, nv, 3200 * 4);
  CHECK_MEM(out + 3700, g_data + 3700, (size_t)(total - 3700) * 4);
  /* set whole chunks, and a slice inside one chunk */
  CHECK_EQ(blosc2_schunk_set_slice_buffer(sc, 4000, 6000, nv + 100), 0);
  CHECK_EQ(blosc2_schunk_set_slice_buffer(sc, 10, 20, nv + 1000), 0);
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 0, total, out), 0);
  CHECK_MEM(out, g_data, 10 * 4);
  CHECK_MEM(out + 10, nv + 1000, 10 * 4);
  CHECK_MEM(out + 20, g_data + 20, 480 * 4);
  CHECK_MEM(out + 4000, nv + 100, 2000 * 4);
  CHECK_EQ(blosc2_schunk_set_slice_buffer(sc, 5, 5, nv), 0);
  CHECK_EQ(blosc2_schunk_set_slice_buffer(sc, 10, 5, nv), 0);
  check_counters(sc);
#ifndef B2RS_REFERENCE_BUG_SET_SLICE
  CHECK_EQ(blosc2_schunk_set_slice_buffer(sc, 5000, 6001, nv), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_schunk_set_slice_buffer(sc, -1, 10, nv), BLOSC2_ERROR_INVALID_PARAM);
  /* a smaller last chunk, and a slice ending inside a chunk at the offset
     nbytes % chunksize */
  CHECK_EQ(blosc2_schunk_append_buffer(sc, g_data, 2000), 7);
  CHECK_EQ(blosc2_schunk_set_slice_buffer(sc, 2000, 3500, nv), 0);
  CHECK_EQ(sc->nbytes, total * 4 + 2000);
  CHECK_EQ(sc->chunksize, CHUNK_BYTES);
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 2000, 4000, out), 0);
  CHECK_MEM(out, nv, 1500 * 4);
  CHECK_EQ(blosc2_schunk_set_slice_buffer(sc, 5800, 6500, nv), 0);
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 5800, 6500, out), 0);
  CHECK_MEM(out, nv, 700 * 4);
  check_counters(sc);
#endif
  free(nv);
  free(out);
  blosc2_schunk_free(sc);
}

#ifndef B2RS_REFERENCE_BUG_SLICE_VARIABLE
/* slices over chunks of different sizes */
static void test_slices_variable(void) {
  init_data();
  blosc2_schunk *sc = new_schunk4();
  static const int sizes[] = {1000, 300, 2000, 0, 1000, 700};
  int pos = 0;
  for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
    blosc2_schunk_append_buffer(sc, g_data + pos, sizes[k] * 4);
    pos += sizes[k];
  }
  CHECK_EQ(sc->chunksize, 0);
  CHECK_EQ(sc->nbytes, pos * 4);
  int32_t *out = (int32_t *)gbuf((size_t)pos * 4, 0);
  for (int a = 0; a < pos; a += 377) {
    for (int b = a; b <= pos; b += 511) {
      CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, a, b, out), 0);
      CHECK_MEM(out, g_data + a, (size_t)(b - a) * 4);
    }
  }
  CHECK_GUARD(out, (size_t)pos * 4);
  int32_t *nv = malloc((size_t)pos * 4);
  for (int i = 0; i < pos; i++) nv[i] = ~i;
  CHECK_EQ(blosc2_schunk_set_slice_buffer(sc, 900, 3400, nv), 0);
  CHECK_EQ(sc->nbytes, pos * 4);
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 0, pos, out), 0);
  CHECK_MEM(out, g_data, 900 * 4);
  CHECK_MEM(out + 900, nv, 2500 * 4);
  CHECK_MEM(out + 3400, g_data + 3400, (size_t)(pos - 3400) * 4);
  CHECK_EQ(blosc2_schunk_get_slice_buffer(sc, 0, pos + 1, out), BLOSC2_ERROR_INVALID_PARAM);
  /* chunk numbers of a slice */
  int64_t start = 1000, stop = 3301, *idx = NULL;
  CHECK_EQ(blosc2_get_slice_nchunks(sc, &start, &stop, &idx), 4);
  if (idx) {
    CHECK_EQ(idx[0], 1);
    CHECK_EQ(idx[3], 4);
  }
  free(idx);
  check_counters(sc);
  free(nv);
  free(out);
  blosc2_schunk_free(sc);
}
#endif

static void test_sparse_buffer(void) {
  init_data();
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.blocksize = 1000;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  for (int k = 0; k < 4; k++) blosc2_schunk_append_buffer(sc, g_data + k * NITEMS, CHUNK_BYTES);
  blosc2_schunk_append_buffer(sc, g_data + 4 * NITEMS, 400);
  int64_t coords[8] = {4099, 0, 1500, 1500, 3999, 1, 4000, 2222};
  int32_t out[8 + 16];
  memset(out, 0, sizeof(out));
  CHECK_EQ(blosc2_schunk_get_sparse_buffer(sc, 8, coords, out), 0);
  for (int k = 0; k < 8; k++) CHECK_EQ(out[k], g_data[coords[k]]);
  CHECK_EQ(out[8], 0);
  CHECK_EQ(blosc2_schunk_get_sparse_buffer(sc, 0, coords, out), 0);
  int64_t bad1[2] = {0, 4100};
  int64_t bad2[2] = {-1, 0};
  CHECK_EQ(blosc2_schunk_get_sparse_buffer(sc, 2, bad1, out), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_schunk_get_sparse_buffer(sc, 2, bad2, out), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_schunk_get_sparse_buffer(sc, -1, coords, out), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_schunk_get_sparse_buffer(sc, 1, NULL, out), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_schunk_get_sparse_buffer(sc, 1, coords, NULL), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_schunk_get_sparse_buffer(NULL, 1, coords, out), BLOSC2_ERROR_INVALID_PARAM);
  /* special chunks */
  uint8_t z[32];
  CHECK_EQ(blosc2_chunk_zeros(cp, CHUNK_BYTES, z, sizeof(z)), 32);
  CHECK_EQ(blosc2_schunk_update_chunk(sc, 1, z, true), 5);
  CHECK_EQ(blosc2_schunk_get_sparse_buffer(sc, 8, coords, out), 0);
  CHECK_EQ(out[2], 0);
  CHECK_EQ(out[3], 0);
  CHECK_EQ(out[0], g_data[4099]);
  blosc2_schunk_free(sc);
#ifndef B2RS_REFERENCE_BUG_SPARSE_LIMITS
  /* automatic blocksize and variable chunk sizes */
  sc = new_schunk4();
  blosc2_schunk_append_buffer(sc, g_data, 2000);
  blosc2_schunk_append_buffer(sc, g_data + 500, 8000);
  CHECK_EQ(sc->chunksize, 0);
  int64_t c2[4] = {2499, 0, 499, 500};
  CHECK_EQ(blosc2_schunk_get_sparse_buffer(sc, 4, c2, out), 0);
  for (int k = 0; k < 4; k++) CHECK_EQ(out[k], g_data[c2[k]]);
  blosc2_schunk_free(sc);
#endif
}

static void test_slice_nchunks(void) {
  init_data();
  blosc2_schunk *sc = new_schunk4();
  for (int k = 0; k < 5; k++) blosc2_schunk_append_buffer(sc, g_data + k * NITEMS, CHUNK_BYTES);
  blosc2_schunk_append_buffer(sc, g_data, 2000);
  struct {
    int64_t start, stop, n, first;
  } cases[] = {{0, 5500, 6, 0}, {1500, 4100, 4, 1}, {1000, 2000, 1, 1}, {999, 1000, 1, 0},
               {5000, 5500, 1, 5}, {5499, 5500, 1, 5}, {0, 1, 1, 0}};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    int64_t a = cases[i].start, b = cases[i].stop, *idx = NULL;
    CHECK_EQ(blosc2_get_slice_nchunks(sc, &a, &b, &idx), cases[i].n);
    CHECK(idx != NULL);
    if (idx) {
      for (int64_t k = 0; k < cases[i].n; k++) CHECK_EQ(idx[k], cases[i].first + k);
    }
    free(idx);
  }
  int64_t a = 0, b = 10, *idx = NULL;
  CHECK_EQ(blosc2_get_slice_nchunks(NULL, &a, &b, &idx), BLOSC2_ERROR_NULL_POINTER);
#ifndef B2RS_REFERENCE_BUG_SLICE_NCHUNKS
  a = 10;
  b = 5;
  CHECK_EQ(blosc2_get_slice_nchunks(sc, &a, &b, &idx), 0);
  free(idx);
  a = 5400;
  b = 9000;
  CHECK_EQ(blosc2_get_slice_nchunks(sc, &a, &b, &idx), BLOSC2_ERROR_INVALID_PARAM);
#endif
  blosc2_schunk_free(sc);
}

/* a b2nd metalayer makes start/stop n-dimensional */
static void test_slice_nchunks_b2nd(void) {
  /* shape (10, 12), chunkshape (4, 5), blockshape (2, 5), dtype "|u1" */
  uint8_t meta[3 + 1 + 18 + 1 + 10 + 1 + 10 + 1 + 5 + 3];
  size_t p = 0;
  meta[p++] = 0x97;
  meta[p++] = 0;
  meta[p++] = 2;
  meta[p++] = 0x92;
  int64_t shape[2] = {10, 12};
  int32_t cshape[2] = {4, 5}, bshape[2] = {2, 5};
  for (int i = 0; i < 2; i++) {
    meta[p++] = 0xd3;
    for (int k = 7; k >= 0; k--) meta[p++] = (uint8_t)(shape[i] >> (8 * k));
  }
  meta[p++] = 0x92;
  for (int i = 0; i < 2; i++) {
    meta[p++] = 0xd2;
    for (int k = 3; k >= 0; k--) meta[p++] = (uint8_t)(cshape[i] >> (8 * k));
  }
  meta[p++] = 0x92;
  for (int i = 0; i < 2; i++) {
    meta[p++] = 0xd2;
    for (int k = 3; k >= 0; k--) meta[p++] = (uint8_t)(bshape[i] >> (8 * k));
  }
  meta[p++] = 0;
  meta[p++] = 0xdb;
  meta[p++] = 0;
  meta[p++] = 0;
  meta[p++] = 0;
  meta[p++] = 3;
  memcpy(meta + p, "|u1", 3);
  p += 3;
  CHECK_EQ(p, sizeof(meta));
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  cp.blocksize = 10;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  CHECK_EQ(blosc2_meta_add(sc, "b2nd", meta, (int32_t)sizeof(meta)), 0);
  /* 3 x 3 chunks of 4 x 5 (padded) bytes */
  uint8_t buf[20];
  memset(buf, 7, sizeof(buf));
  for (int k = 0; k < 9; k++) CHECK_EQ(blosc2_schunk_append_buffer(sc, buf, 20), k + 1);
  struct {
    int64_t start[2], stop[2];
    int n;
    int64_t idx[9];
  } cases[] = {
      {{0, 0}, {10, 12}, 9, {0, 1, 2, 3, 4, 5, 6, 7, 8}},
      {{0, 0}, {1, 1}, 1, {0}},
      {{3, 4}, {5, 6}, 4, {0, 1, 3, 4}},
      {{4, 5}, {8, 10}, 1, {4}},
      {{9, 11}, {10, 12}, 1, {8}},
      {{2, 0}, {9, 3}, 3, {0, 3, 6}},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    int64_t *idx = NULL;
    CHECK_EQ(blosc2_get_slice_nchunks(sc, cases[i].start, cases[i].stop, &idx), cases[i].n);
    if (idx) {
      for (int k = 0; k < cases[i].n; k++) CHECK_EQ(idx[k], cases[i].idx[k]);
    }
    free(idx);
  }
  blosc2_schunk_free(sc);
}

static void test_get_cparams_dparams(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 300;
  cp.compcode = BLOSC_LZ4;
  cp.compcode_meta = 9;
  cp.clevel = 3;
  cp.use_dict = 1;
  cp.nthreads = 2;
  cp.blocksize = 3000;
  cp.splitmode = BLOSC_NEVER_SPLIT;
  cp.filters[0] = BLOSC_DELTA;
  cp.filters_meta[0] = 7;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 3;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  st.dparams = &dp;
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  blosc2_cparams *g = NULL;
  CHECK_EQ(blosc2_schunk_get_cparams(sc, &g), 0);
  CHECK(g != NULL);
  if (g) {
    CHECK(g->schunk == sc);
    CHECK_EQ(g->compcode, BLOSC_LZ4);
    CHECK_EQ(g->compcode_meta, 9);
    CHECK_EQ(g->clevel, 3);
    CHECK_EQ(g->use_dict, 1);
    CHECK_EQ(g->typesize, 300);
    CHECK_EQ(g->nthreads, 2);
    CHECK_EQ(g->blocksize, 3000);
    CHECK_EQ(g->splitmode, BLOSC_NEVER_SPLIT);
    CHECK_EQ(g->filters[0], BLOSC_DELTA);
    CHECK_EQ(g->filters[5], BLOSC_SHUFFLE);
    CHECK_EQ(g->filters_meta[0], 7);
    CHECK(g->prefilter == NULL);
    CHECK(g->preparams == NULL);
    CHECK_EQ(g->instr_codec, 0);
    free(g);
  }
  blosc2_dparams *gd = NULL;
  CHECK_EQ(blosc2_schunk_get_dparams(sc, &gd), 0);
  CHECK(gd != NULL);
  if (gd) {
    CHECK(gd->schunk == sc);
    CHECK_EQ(gd->nthreads, 3);
    CHECK(gd->postfilter == NULL);
    CHECK(gd->postparams == NULL);
    free(gd);
  }
  blosc2_schunk_free(sc);
}

static void test_copy(void) {
  init_data();
  blosc2_schunk *sc = new_schunk4();
  for (int k = 0; k < 5; k++) blosc2_schunk_append_buffer(sc, g_data + k * NITEMS, CHUNK_BYTES);
  uint8_t m[4] = {1, 2, 3, 4};
  CHECK_EQ(blosc2_meta_add(sc, "meta", m, 4), 0);
  CHECK_EQ(blosc2_vlmeta_add(sc, "vl", (uint8_t *)"hello", 5, NULL), 0);
  /* same parameters: the chunks are copied as they are */
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  st.cparams = &cp;
  blosc2_schunk *c = blosc2_schunk_copy(sc, &st);
  CHECK(c != NULL);
  if (c) {
    CHECK_EQ(c->nchunks, 5);
    CHECK_EQ(c->nbytes, sc->nbytes);
    CHECK_EQ(c->cbytes, sc->cbytes);
    CHECK_EQ(c->chunksize, CHUNK_BYTES);
    CHECK_EQ(c->typesize, 4);
    for (int k = 0; k < 5; k++) {
      CHECK(c->data[k] != sc->data[k]);
      CHECK_MEM(c->data[k], sc->data[k], (size_t)HDR_CBYTES(sc->data[k]));
    }
    CHECK_EQ(c->nmetalayers, 1);
    CHECK_STR(c->metalayers[0]->name, "meta");
    CHECK_EQ(c->metalayers[0]->content_len, 4);
    CHECK_MEM(c->metalayers[0]->content, m, 4);
    CHECK_EQ(c->nvlmetalayers, 1);
    uint8_t *v = NULL;
    int32_t vl = 0;
    CHECK_EQ(blosc2_vlmeta_get(c, "vl", &v, &vl), 0);
    CHECK_EQ(vl, 5);
    if (v) CHECK_MEM(v, "hello", 5);
    free(v);
    CHECK(c->storage->cparams->schunk == c);
    check_counters(c);
    blosc2_schunk_free(c);
  }
  /* other parameters: recompressed */
  cp.compcode = BLOSC_ZSTD;
  cp.clevel = 9;
  c = blosc2_schunk_copy(sc, &st);
  CHECK(c != NULL);
  if (c) {
    CHECK_EQ(c->nchunks, 5);
    CHECK_EQ(c->nbytes, sc->nbytes);
    CHECK_EQ(c->compcode, BLOSC_ZSTD);
    for (int k = 0; k < 5; k++) {
      CHECK_EQ(HDR_FORMAT(c->data[k]), codec_format(BLOSC_ZSTD));
      check_chunk_data(c, k, k * NITEMS, NITEMS);
    }
    check_counters(c);
    blosc2_schunk_free(c);
  }
  /* the source is unchanged */
  for (int k = 0; k < 5; k++) check_chunk_data(sc, k, k * NITEMS, NITEMS);
  CHECK(blosc2_schunk_copy(NULL, &st) == NULL);
#ifndef B2RS_REFERENCE_BUG_COPY
  /* a smaller last chunk, recompressed */
  blosc2_schunk_append_buffer(sc, g_data, 400);
  c = blosc2_schunk_copy(sc, &st);
  CHECK(c != NULL);
  if (c) {
    CHECK_EQ(c->nbytes, sc->nbytes);
    CHECK_EQ(c->chunksize, CHUNK_BYTES);
    check_chunk_data(c, 5, 0, 100);
    blosc2_schunk_free(c);
  }
  /* no cparams: those of the source */
  blosc2_storage st0 = BLOSC2_STORAGE_DEFAULTS;
  c = blosc2_schunk_copy(sc, &st0);
  CHECK(c != NULL);
  CHECK(st0.cparams == NULL);
  if (c) {
    CHECK_EQ(c->typesize, 4);
    CHECK_EQ(c->cbytes, sc->cbytes);
    CHECK_EQ(c->storage->cparams->nthreads, 1);
    blosc2_schunk_free(c);
  }
#endif
  blosc2_schunk_free(sc);
}

static void test_fill_special_struct(void) {
  blosc2_schunk *sc = new_schunk4();
  CHECK_EQ(blosc2_schunk_fill_special(sc, 10 * NITEMS + 10, BLOSC2_SPECIAL_ZERO, CHUNK_BYTES), 11);
  CHECK_EQ(sc->nchunks, 11);
  CHECK_EQ(sc->chunksize, CHUNK_BYTES);
  CHECK_EQ(sc->nbytes, (10 * NITEMS + 10) * 4);
  CHECK_EQ(sc->cbytes, 11 * 32);
  check_counters(sc);
  CHECK_EQ(HDR_NBYTES(sc->data[10]), 40);
  CHECK_EQ(HDR_SPECIAL(sc->data[3]), BLOSC2_SPECIAL_ZERO);
  /* the chunks can then be replaced */
  init_data();
  CHECK_EQ(blosc2_schunk_set_slice_buffer(sc, 2 * NITEMS, 3 * NITEMS, g_data), 0);
  check_chunk_data(sc, 2, 0, NITEMS);
  int32_t out[NITEMS];
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 3, out, sizeof(out)), CHUNK_BYTES);
  CHECK_EQ(out[0], 0);
  blosc2_schunk_free(sc);
}

/* pre/postfilters see the chunk number */
static int64_t g_pre_nchunks[16];
static int g_npre = 0;
static int64_t g_post_nchunk = -100;
static void *g_pre_schunk = NULL;

static int rec_prefilter(blosc2_prefilter_params *p) {
  if (p->nblock == 0 && g_npre < 16) g_pre_nchunks[g_npre++] = p->nchunk;
  memcpy(p->output, p->input, (size_t)p->output_size);
  blosc2_cparams cc;
  if (blosc2_ctx_get_cparams(p->ctx, &cc) == 0) g_pre_schunk = cc.schunk;
  return 0;
}

static int rec_postfilter(blosc2_postfilter_params *p) {
  if (p->nblock == 0) g_post_nchunk = p->nchunk;
  memcpy(p->output, p->input, (size_t)p->size);
  return 0;
}

static void test_filters_nchunk(void) {
  init_data();
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.prefilter = rec_prefilter;
  blosc2_prefilter_params pp;
  memset(&pp, 0, sizeof(pp));
  cp.preparams = &pp;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.postfilter = rec_postfilter;
  blosc2_postfilter_params pop;
  memset(&pop, 0, sizeof(pop));
  dp.postparams = &pop;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  st.dparams = &dp;
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  for (int k = 0; k < 3; k++) CHECK_EQ(blosc2_schunk_append_buffer(sc, g_data + k * NITEMS, CHUNK_BYTES), k + 1);
  CHECK_EQ(g_npre, 3);
  for (int k = 0; k < 3; k++) CHECK_EQ(g_pre_nchunks[k], k);
  CHECK(g_pre_schunk == sc);
  CHECK(sc->storage->cparams->prefilter == rec_prefilter);
  CHECK(sc->storage->cparams->preparams == &pp);
  int32_t out[NITEMS];
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 1, out, sizeof(out)), CHUNK_BYTES);
  CHECK_EQ(g_post_nchunk, 1);
  CHECK_MEM(out, g_data + NITEMS, CHUNK_BYTES);
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 2, out, sizeof(out)), CHUNK_BYTES);
  CHECK_EQ(g_post_nchunk, 2);
  /* the contexts follow the current chunk */
  CHECK_EQ(blosc2_decompress_ctx(sc->dctx, sc->data[0], HDR_CBYTES(sc->data[0]), out, sizeof(out)),
           CHUNK_BYTES);
  CHECK_EQ(g_post_nchunk, 2);
  blosc2_schunk_free(sc);
}

static void test_lock_refresh(void) {
  blosc2_schunk *sc = new_schunk4();
  CHECK_EQ(blosc2_schunk_lock(sc), 0);
  CHECK_EQ(blosc2_schunk_lock(sc), 0);
  CHECK_EQ(blosc2_schunk_unlock(sc), 0);
  CHECK_EQ(blosc2_schunk_unlock(sc), 0);
  CHECK_EQ(blosc2_schunk_refresh(sc), 0);
  CHECK_EQ(blosc2_schunk_refresh(NULL), BLOSC2_ERROR_NULL_POINTER);
  blosc2_schunk_avoid_cframe_free(sc, true);
  blosc2_schunk_avoid_cframe_free(sc, false);
  CHECK_EQ(blosc2_schunk_free(sc), 0);
}

/* bad input the reference survives */
static void test_bad_input(void) {
  init_data();
  blosc2_schunk *sc = new_schunk4();
  blosc2_schunk_append_buffer(sc, g_data, CHUNK_BYTES);
  uint8_t *b = NULL;
  int32_t bs = 0;
  CHECK_EQ(blosc2_schunk_get_vlblock(NULL, 0, 0, &b, &bs), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_schunk_get_vlblock(sc, 0, 0, NULL, &bs), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_schunk_get_vlblock(sc, 0, 0, &b, NULL), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_schunk_get_vlblock(sc, 1, 0, &b, &bs), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_schunk_get_vlblock(sc, 0, 0, &b, &bs), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, -1, g_data, CHUNK_BYTES), BLOSC2_ERROR_INVALID_PARAM);
  CHECK(blosc2_schunk_copy(NULL, NULL) == NULL);
  CHECK_EQ(sc->nchunks, 1);
  blosc2_schunk_free(sc);
}

#ifndef B2RS_REFERENCE_BUG_SCHUNK_NULL
/* bad input the reference crashes on: b2rs returns errors */
static void test_null_pointers(void) {
  init_data();
  blosc2_schunk *sc = blosc2_schunk_new(NULL);
  CHECK(sc != NULL);
  if (sc == NULL) return;
  CHECK_EQ(sc->typesize, 8);
  CHECK(sc->storage != NULL && sc->storage->cparams != NULL);
  CHECK_EQ(blosc2_schunk_append_buffer(sc, g_data, 800), 1);
  int cb;
  uint8_t *c = make_chunk(0, 200, &cb);
  uint8_t *ch;
  bool nf;
  int32_t out[NITEMS];
  int64_t st = 0, sp = 1, *idx;
  blosc2_cparams *pc;
  blosc2_dparams *pd;
  CHECK_EQ(blosc2_schunk_free(NULL), 0);
  CHECK_LT(blosc2_schunk_append_buffer(NULL, g_data, 800), 0);
  CHECK_LT(blosc2_schunk_append_buffer(sc, NULL, 800), 0);
  CHECK_LT(blosc2_schunk_append_chunk(NULL, c, true), 0);
  CHECK_LT(blosc2_schunk_append_chunk(sc, NULL, true), 0);
  CHECK_LT(blosc2_schunk_insert_chunk(NULL, 0, c, true), 0);
  CHECK_LT(blosc2_schunk_insert_chunk(sc, 0, NULL, true), 0);
  CHECK_LT(blosc2_schunk_update_chunk(NULL, 0, c, true), 0);
  CHECK_LT(blosc2_schunk_update_chunk(sc, 0, NULL, true), 0);
  CHECK_LT(blosc2_schunk_delete_chunk(NULL, 0), 0);
  CHECK_LT(blosc2_schunk_decompress_chunk(NULL, 0, out, sizeof(out)), 0);
  CHECK_LT(blosc2_schunk_decompress_chunk(sc, 0, NULL, sizeof(out)), 0);
  CHECK_LT(blosc2_schunk_get_chunk(NULL, 0, &ch, &nf), 0);
  CHECK_LT(blosc2_schunk_get_chunk(sc, 0, NULL, &nf), 0);
  CHECK_LT(blosc2_schunk_get_chunk(sc, 0, &ch, NULL), 0);
  CHECK_LT(blosc2_schunk_get_lazychunk(NULL, 0, &ch, &nf), 0);
  CHECK_LT(blosc2_schunk_get_lazychunk(sc, 0, NULL, &nf), 0);
  CHECK_LT(blosc2_schunk_get_slice_buffer(NULL, 0, 10, out), 0);
  CHECK_LT(blosc2_schunk_get_slice_buffer(sc, 0, 10, NULL), 0);
  CHECK_LT(blosc2_schunk_set_slice_buffer(NULL, 0, 10, out), 0);
  CHECK_LT(blosc2_schunk_set_slice_buffer(sc, 0, 10, NULL), 0);
  CHECK_LT(blosc2_get_slice_nchunks(sc, NULL, &sp, &idx), 0);
  CHECK_LT(blosc2_get_slice_nchunks(sc, &st, NULL, &idx), 0);
  CHECK_LT(blosc2_get_slice_nchunks(sc, &st, &sp, NULL), 0);
  CHECK_LT(blosc2_schunk_get_cparams(NULL, &pc), 0);
  CHECK_LT(blosc2_schunk_get_cparams(sc, NULL), 0);
  CHECK_LT(blosc2_schunk_get_dparams(NULL, &pd), 0);
  CHECK_LT(blosc2_schunk_get_dparams(sc, NULL), 0);
  CHECK_LT(blosc2_schunk_reorder_offsets(NULL, &st), 0);
  CHECK_LT(blosc2_schunk_reorder_offsets(sc, NULL), 0);
  CHECK_LT(blosc2_schunk_lock(NULL), 0);
  CHECK_LT(blosc2_schunk_unlock(NULL), 0);
  CHECK_LT(blosc2_schunk_fill_special(NULL, 10, BLOSC2_SPECIAL_ZERO, 4000), 0);
  blosc2_schunk_avoid_cframe_free(NULL, true);
  /* nothing changed */
  CHECK_EQ(sc->nchunks, 1);
  CHECK_EQ(sc->nbytes, 800);
  /* copy with a NULL storage: in memory, same parameters */
  blosc2_schunk *cp = blosc2_schunk_copy(sc, NULL);
  CHECK(cp != NULL);
  if (cp) {
    CHECK_EQ(cp->nchunks, 1);
    CHECK_EQ(cp->typesize, 8);
    blosc2_schunk_free(cp);
  }
  free(c);
  blosc2_schunk_free(sc);
}
#endif

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  blosc2_init();
  RUN(test_new_fields);
  RUN(test_append_buffer);
  RUN(test_many_chunks);
  RUN(test_contexts_usable);
  RUN(test_append_chunk_copy);
  RUN(test_insert_update_delete);
  RUN(test_chunksize_rules);
  RUN(test_vl_chunks);
  RUN(test_special_chunks);
  RUN(test_decompress_chunk_errors);
  RUN(test_append_errors);
  RUN(test_reorder);
  RUN(test_slices);
#ifndef B2RS_REFERENCE_BUG_SLICE_VARIABLE
  RUN(test_slices_variable);
#endif
  RUN(test_sparse_buffer);
  RUN(test_slice_nchunks);
  RUN(test_slice_nchunks_b2nd);
  RUN(test_get_cparams_dparams);
  RUN(test_copy);
  RUN(test_fill_special_struct);
  RUN(test_filters_nchunk);
  RUN(test_lock_refresh);
  RUN(test_bad_input);
#ifndef B2RS_REFERENCE_BUG_SCHUNK_NULL
  RUN(test_null_pointers);
#endif
  blosc2_destroy();
  return TEST_SUMMARY();
}
