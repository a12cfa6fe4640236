/*
 * test_ownership.c - every place where a buffer changes hands between a C
 * caller and the library, exercised the way a caller does it, including
 * freeing what the caller owns (API.md, "Memory handed to the caller").
 * The sanitize step runs it under valgrind and ASan on both libraries: a
 * double free, a use after free or a leak fails it.
 *
 * Behaviours probed on the reference (C-Blosc2 3.3.5):
 *   - blosc2_schunk_to_buffer of an in-memory contiguous super-chunk lends
 *     the frame's own buffer (needs_free false); with
 *     blosc2_schunk_avoid_cframe_free(sc, true) (set before or after the
 *     appends, before or after to_buffer) blosc2_schunk_free leaves it
 *     alone and the caller free()s it (blosc2-rs's SChunk::into_vec);
 *     without it blosc2_schunk_free frees it;
 *   - to_buffer of an in-memory sparse super-chunk or of a frame file gives
 *     a malloc'ed copy (needs_free true);
 *   - from_buffer(copy = false) reads the caller's buffer in place and
 *     leaves it to the caller (avoid_cframe_free is true from the start);
 *     blosc2_schunk_avoid_cframe_free(sc, false) hands it to the library;
 *     from_buffer(copy = true) keeps nothing of it;
 *   - append/insert/update with copy = false take the malloc'ed chunk over;
 *   - get_chunk / get_lazychunk hand over a malloc'ed buffer exactly when
 *     *needs_free is true;
 *   - vlmeta_get content, get_cparams / get_dparams structs,
 *     frame_get_offsets, get_slice_nchunks' chunks_idx,
 *     get_complib_info's strings, b2nd_serialize_meta's smeta,
 *     b2nd_deserialize_meta's dtype and vldecompress_block_ctx's dest are
 *     the caller's to free();
 *   - b2nd_to_cframe behaves as to_buffer on the array's super-chunk.
 *
 * Reference bugs compiled out with -DB2RS_REFERENCE (found by this test):
 *   B2RS_REFERENCE_BUG_FROM_BUFFER_REALLOC  a super-chunk made by
 *       from_buffer(copy = false) realloc()s the caller's buffer when it
 *       grows, so the caller's pointer dangles (its free() is a double free)
 *       although the buffer is documented to stay the caller's; b2rs copies
 *       the frame at its first change and never writes or frees the
 *       caller's buffer.
 */
#include "b2rs_test.h"
#include "b2nd.h"

#ifdef B2RS_REFERENCE
#define B2RS_REFERENCE_BUG_FROM_BUFFER_REALLOC 1
#endif

#define NITEMS 2000
#define CHUNK_BYTES (NITEMS * 4)
#define NCH 4

static int32_t g_data[NITEMS];

static void init_data(void) {
  for (int i = 0; i < NITEMS; i++) g_data[i] = i * 7 + (i % 13);
}

static blosc2_schunk *new_mem(bool contiguous) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.compcode = BLOSC_LZ4;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  st.dparams = &dp;
  st.contiguous = contiguous;
  return blosc2_schunk_new(&st);
}

static void append_n(blosc2_schunk *sc, int n) {
  for (int i = 0; i < n; i++) {
    g_data[0] = (int32_t)(sc->nchunks + 1000);
    CHECK_EQ(blosc2_schunk_append_buffer(sc, g_data, CHUNK_BYTES), sc->nchunks);
  }
}

/* The frame in `buf` holds `nchunks` chunks of g_data with the first item nchunk + 1000. */
static void check_frame_bytes(uint8_t *buf, int64_t len, int64_t nchunks) {
  blosc2_schunk *sc = blosc2_schunk_from_buffer(buf, len, true);
  CHECK(sc != NULL);
  if (sc == NULL) return;
  CHECK_EQ(sc->nchunks, nchunks);
  int32_t *out = malloc(CHUNK_BYTES);
  for (int64_t i = 0; i < sc->nchunks; i++) {
    CHECK_EQ(blosc2_schunk_decompress_chunk(sc, i, out, CHUNK_BYTES), CHUNK_BYTES);
    CHECK_EQ(out[0], i + 1000);
    CHECK_MEM(out + 1, g_data + 1, CHUNK_BYTES - 4);
  }
  free(out);
  blosc2_schunk_free(sc);
}

/* The idiom: avoid_cframe_free(true), to_buffer, schunk_free, read, free(). */
static void test_into_vec_after_appends(void) {
  blosc2_schunk *sc = new_mem(true);
  append_n(sc, NCH);
  blosc2_schunk_avoid_cframe_free(sc, true);
  uint8_t *buf = NULL;
  bool needs_free = true;
  int64_t len = blosc2_schunk_to_buffer(sc, &buf, &needs_free);
  CHECK_GT(len, 0);
  CHECK(!needs_free);
  blosc2_schunk_free(sc);
  check_frame_bytes(buf, len, NCH);
  free(buf);
}

/* The flag set before the appends that grow the frame. */
static void test_into_vec_flag_first(void) {
  blosc2_schunk *sc = new_mem(true);
  blosc2_schunk_avoid_cframe_free(sc, true);
  append_n(sc, NCH);
  uint8_t *buf = NULL;
  bool needs_free = true;
  int64_t len = blosc2_schunk_to_buffer(sc, &buf, &needs_free);
  CHECK_GT(len, 0);
  CHECK(!needs_free);
  blosc2_schunk_free(sc);
  check_frame_bytes(buf, len, NCH);
  free(buf);
}

/* to_buffer first, then the flag (blosc2-rs sets it before; either order works). */
static void test_into_vec_flag_last(void) {
  blosc2_schunk *sc = new_mem(true);
  append_n(sc, NCH);
  uint8_t *buf = NULL;
  bool needs_free = true;
  int64_t len = blosc2_schunk_to_buffer(sc, &buf, &needs_free);
  CHECK(!needs_free);
  blosc2_schunk_avoid_cframe_free(sc, true);
  blosc2_schunk_free(sc);
  check_frame_bytes(buf, len, NCH);
  free(buf);
}

/* to_buffer, more appends (the frame grows: the first pointer is not to be used any more),
   to_buffer again: the second buffer is the caller's after the free. */
static void test_into_vec_after_growth(void) {
  blosc2_schunk *sc = new_mem(true);
  append_n(sc, 2);
  uint8_t *buf = NULL;
  bool needs_free = true;
  int64_t len = blosc2_schunk_to_buffer(sc, &buf, &needs_free);
  CHECK(!needs_free);
  CHECK_GT(len, 0);
  append_n(sc, 2);
  blosc2_schunk_avoid_cframe_free(sc, true);
  len = blosc2_schunk_to_buffer(sc, &buf, &needs_free);
  CHECK(!needs_free);
  blosc2_schunk_free(sc);
  check_frame_bytes(buf, len, 4);
  free(buf);
}

/* The lent buffer is the frame: two calls without a change give the same pointer. */
static void test_to_buffer_lends_stably(void) {
  blosc2_schunk *sc = new_mem(true);
  append_n(sc, 2);
  uint8_t *b1 = NULL, *b2 = NULL;
  bool nf1 = true, nf2 = true;
  int64_t l1 = blosc2_schunk_to_buffer(sc, &b1, &nf1);
  int64_t l2 = blosc2_schunk_to_buffer(sc, &b2, &nf2);
  CHECK(!nf1);
  CHECK(!nf2);
  CHECK_EQ(l1, l2);
  CHECK(b1 == b2);
  CHECK_EQ(l1, blosc2_schunk_frame_len(sc));
  /* the super-chunk still works on the lent buffer */
  int32_t *out = malloc(CHUNK_BYTES);
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 1, out, CHUNK_BYTES), CHUNK_BYTES);
  CHECK_EQ(out[0], 1001);
  free(out);
  blosc2_schunk_free(sc); /* frees the frame: the caller does not */
}

/* A chunk lent by get_lazychunk stays readable across to_buffer (which changes nothing). */
static void test_lazychunk_across_to_buffer(void) {
  blosc2_schunk *sc = new_mem(true);
  append_n(sc, 3);
  uint8_t *chunk = NULL;
  bool needs_free = true;
  int cb = blosc2_schunk_get_lazychunk(sc, 2, &chunk, &needs_free);
  CHECK_GT(cb, 0);
  uint8_t *buf = NULL;
  bool nf = true;
  CHECK_GT(blosc2_schunk_to_buffer(sc, &buf, &nf), 0);
  int32_t *out = malloc(CHUNK_BYTES);
  CHECK_EQ(blosc2_decompress(chunk, cb, out, CHUNK_BYTES), CHUNK_BYTES);
  CHECK_EQ(out[0], 1002);
  /* copied back in: still readable, and the frame's own bytes after it */
  CHECK_EQ(blosc2_schunk_append_chunk(sc, chunk, true), 4);
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 3, out, CHUNK_BYTES), CHUNK_BYTES);
  CHECK_EQ(out[0], 1002);
  free(out);
  if (needs_free) free(chunk);
  blosc2_schunk_free(sc);
}

/* Without the flag the library frees the lent frame. */
static void test_to_buffer_library_frees(void) {
  blosc2_schunk *sc = new_mem(true);
  append_n(sc, NCH);
  uint8_t *buf = NULL;
  bool needs_free = true;
  int64_t len = blosc2_schunk_to_buffer(sc, &buf, &needs_free);
  CHECK(!needs_free);
  check_frame_bytes(buf, len, NCH);
  blosc2_schunk_avoid_cframe_free(sc, true);
  blosc2_schunk_avoid_cframe_free(sc, false); /* taken back */
  blosc2_schunk_free(sc);
}

/* In-memory sparse super-chunks and frame files give a copy to free. */
static void test_to_buffer_copy(void) {
  blosc2_schunk *sc = new_mem(false);
  append_n(sc, NCH);
  uint8_t *buf = NULL;
  bool needs_free = false;
  int64_t len = blosc2_schunk_to_buffer(sc, &buf, &needs_free);
  CHECK_GT(len, 0);
  CHECK(needs_free);
  blosc2_schunk_avoid_cframe_free(sc, true); /* changes nothing for a copy */
  blosc2_schunk_free(sc);
  check_frame_bytes(buf, len, NCH);
  if (needs_free) free(buf);

  const char *path = "test_ownership.b2frame";
  blosc2_remove_urlpath(path);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  st.contiguous = true;
  st.urlpath = (char *)path;
  sc = blosc2_schunk_new(&st);
  append_n(sc, NCH);
  needs_free = false;
  len = blosc2_schunk_to_buffer(sc, &buf, &needs_free);
  CHECK(needs_free);
  blosc2_schunk_free(sc);
  check_frame_bytes(buf, len, NCH);
  if (needs_free) free(buf);
  blosc2_remove_urlpath(path);
}

static uint8_t *frame_copy(int64_t *len) {
  blosc2_schunk *sc = new_mem(false);
  append_n(sc, NCH);
  uint8_t *buf = NULL;
  bool needs_free = false;
  *len = blosc2_schunk_to_buffer(sc, &buf, &needs_free);
  CHECK(needs_free);
  blosc2_schunk_free(sc);
  return buf;
}

/* from_buffer(copy = true): the caller's buffer may go right away. */
static void test_from_buffer_copy(void) {
  int64_t len = 0;
  uint8_t *buf = frame_copy(&len);
  blosc2_schunk *sc = blosc2_schunk_from_buffer(buf, len, true);
  CHECK(sc != NULL);
  free(buf);
  if (sc == NULL) return;
  append_n(sc, 1);
  int32_t *out = malloc(CHUNK_BYTES);
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 0, out, CHUNK_BYTES), CHUNK_BYTES);
  CHECK_EQ(out[0], 1000);
  free(out);
  blosc2_schunk_free(sc);
}

/* from_buffer(copy = false): read in place, the buffer stays the caller's. */
static void test_from_buffer_nocopy_caller_frees(void) {
  int64_t len = 0;
  uint8_t *buf = frame_copy(&len);
  blosc2_schunk *sc = blosc2_schunk_from_buffer(buf, len, false);
  CHECK(sc != NULL);
  if (sc == NULL) {
    free(buf);
    return;
  }
  int32_t *out = malloc(CHUNK_BYTES);
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, NCH - 1, out, CHUNK_BYTES), CHUNK_BYTES);
  CHECK_EQ(out[0], 1000 + NCH - 1);
  free(out);
  /* to_buffer lends the same bytes */
  uint8_t *lent = NULL;
  bool needs_free = true;
  CHECK_EQ(blosc2_schunk_to_buffer(sc, &lent, &needs_free), len);
  CHECK(!needs_free);
  CHECK(lent == buf);
  blosc2_schunk_free(sc);
  check_frame_bytes(buf, len, NCH);
  free(buf);
}

/* from_buffer(copy = false) + avoid_cframe_free(false): the library frees it. */
static void test_from_buffer_nocopy_library_frees(void) {
  int64_t len = 0;
  uint8_t *buf = frame_copy(&len);
  blosc2_schunk *sc = blosc2_schunk_from_buffer(buf, len, false);
  CHECK(sc != NULL);
  if (sc == NULL) {
    free(buf);
    return;
  }
  blosc2_schunk_avoid_cframe_free(sc, false);
  CHECK_EQ(sc->nchunks, NCH);
  blosc2_schunk_free(sc); /* frees buf */
}

/* from_buffer(copy = false), then the super-chunk grows. */
static void test_from_buffer_nocopy_grows(void) {
#ifndef B2RS_REFERENCE_BUG_FROM_BUFFER_REALLOC
  int64_t len = 0;
  uint8_t *buf = frame_copy(&len);
  uint8_t *saved = malloc(len);
  memcpy(saved, buf, len);
  blosc2_schunk *sc = blosc2_schunk_from_buffer(buf, len, false);
  CHECK(sc != NULL);
  if (sc == NULL) {
    free(buf);
    free(saved);
    return;
  }
  append_n(sc, 2);
  CHECK_EQ(sc->nchunks, NCH + 2);
  /* the grown frame lent: still the library's (the caller did not ask for it) */
  uint8_t *lent = NULL;
  bool needs_free = true;
  int64_t l2 = blosc2_schunk_to_buffer(sc, &lent, &needs_free);
  CHECK(!needs_free);
  check_frame_bytes(lent, l2, NCH + 2);
  blosc2_schunk_free(sc);
  CHECK_MEM(buf, saved, len); /* never written */
  free(buf);
  free(saved);
#endif
}

/* from_buffer(copy = false), grows, avoid_cframe_free(false): nothing leaks. */
static void test_from_buffer_nocopy_grows_library_frees(void) {
  int64_t len = 0;
  uint8_t *buf = frame_copy(&len);
  blosc2_schunk *sc = blosc2_schunk_from_buffer(buf, len, false);
  CHECK(sc != NULL);
  if (sc == NULL) {
    free(buf);
    return;
  }
  blosc2_schunk_avoid_cframe_free(sc, false);
  append_n(sc, 2);
  uint8_t *lent = NULL;
  bool needs_free = true;
  int64_t l2 = blosc2_schunk_to_buffer(sc, &lent, &needs_free);
  CHECK(!needs_free);
  check_frame_bytes(lent, l2, NCH + 2);
  blosc2_schunk_free(sc);
}

static uint8_t *compress_chunk(int32_t first) {
  uint8_t *chunk = malloc(CHUNK_BYTES + BLOSC2_MAX_OVERHEAD);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  g_data[0] = first;
  int cb = blosc2_compress_ctx(cctx, g_data, CHUNK_BYTES, chunk, CHUNK_BYTES + BLOSC2_MAX_OVERHEAD);
  CHECK_GT(cb, 0);
  blosc2_free_ctx(cctx);
  return chunk;
}

/* Chunks given with copy = false are the library's afterwards, on every kind. */
static void test_chunks_copy_false(void) {
  for (int k = 0; k < 2; k++) {
    blosc2_schunk *sc = new_mem(k == 1);
    CHECK_EQ(blosc2_schunk_append_chunk(sc, compress_chunk(1000), false), 1);
    CHECK_EQ(blosc2_schunk_append_chunk(sc, compress_chunk(1002), false), 2);
    CHECK_EQ(blosc2_schunk_insert_chunk(sc, 1, compress_chunk(1001), false), 3);
    CHECK_GE(blosc2_schunk_update_chunk(sc, 2, compress_chunk(1002), false), 0);
    uint8_t *c = compress_chunk(1003);
    CHECK_EQ(blosc2_schunk_append_chunk(sc, c, true), 4);
    free(c); /* copied: still the caller's */
    int32_t *out = malloc(CHUNK_BYTES);
    for (int i = 0; i < 4; i++) {
      CHECK_EQ(blosc2_schunk_decompress_chunk(sc, i, out, CHUNK_BYTES), CHUNK_BYTES);
      CHECK_EQ(out[0], 1000 + i);
    }
    free(out);
    blosc2_schunk_free(sc);
  }
}

/* get_chunk / get_lazychunk: free exactly when *needs_free. */
static void test_get_chunk_needs_free(void) {
  const char *path = "test_ownership_get.b2frame";
  const char *dir = "test_ownership_get.b2dir";
  for (int k = 0; k < 4; k++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
    st.cparams = &cp;
    st.contiguous = (k == 1 || k == 2);
    st.urlpath = k == 2 ? (char *)path : k == 3 ? (char *)dir : NULL;
    if (st.urlpath) blosc2_remove_urlpath(st.urlpath);
    blosc2_schunk *sc = blosc2_schunk_new(&st);
    append_n(sc, 2);
    for (int lazy = 0; lazy < 2; lazy++) {
      uint8_t *chunk = NULL;
      bool needs_free = false;
      int cb = lazy ? blosc2_schunk_get_lazychunk(sc, 1, &chunk, &needs_free)
                    : blosc2_schunk_get_chunk(sc, 1, &chunk, &needs_free);
      CHECK_GT(cb, 0);
      if (!lazy) {
        int32_t *out = malloc(CHUNK_BYTES);
        CHECK_EQ(blosc2_decompress(chunk, cb, out, CHUNK_BYTES), CHUNK_BYTES);
        CHECK_EQ(out[0], 1001);
        free(out);
      }
      if (needs_free) free(chunk);
    }
    blosc2_schunk_free(sc);
    if (st.urlpath) blosc2_remove_urlpath(st.urlpath);
  }
}

/* vlmeta_get content, cparams/dparams structs, frame offsets, slice chunk indexes. */
static void test_getters_caller_frees(void) {
  blosc2_schunk *sc = new_mem(true);
  append_n(sc, NCH);
  CHECK_GE(blosc2_vlmeta_add(sc, "note", (uint8_t *)"hello", 5, NULL), 0);
  uint8_t *content = NULL;
  int32_t clen = 0;
  CHECK_GE(blosc2_vlmeta_get(sc, "note", &content, &clen), 0);
  CHECK_EQ(clen, 5);
  CHECK(content != NULL && memcmp(content, "hello", 5) == 0);
  free(content);
  /* updated with a longer value, read again */
  CHECK_GE(blosc2_vlmeta_update(sc, "note", (uint8_t *)"hello, world", 12, NULL), 0);
  CHECK_GE(blosc2_vlmeta_get(sc, "note", &content, &clen), 0);
  CHECK_EQ(clen, 12);
  CHECK(content != NULL && memcmp(content, "hello, world", 12) == 0);
  free(content);

  blosc2_cparams *cp = NULL;
  blosc2_dparams *dp = NULL;
  CHECK_EQ(blosc2_schunk_get_cparams(sc, &cp), 0);
  CHECK_EQ(blosc2_schunk_get_dparams(sc, &dp), 0);
  CHECK(cp != NULL && cp->typesize == 4);
  CHECK(dp != NULL);
  free(cp);
  free(dp);

  int64_t *offsets = blosc2_frame_get_offsets(sc);
  CHECK(offsets != NULL);
  if (offsets != NULL) CHECK_GE(offsets[NCH - 1], 0);
  free(offsets);

  int64_t start = 0, stop = (int64_t)NCH * NITEMS;
  int64_t *idx = NULL;
  CHECK_EQ(blosc2_get_slice_nchunks(sc, &start, &stop, &idx), NCH);
  CHECK(idx != NULL && idx[NCH - 1] == NCH - 1);
  free(idx);
  blosc2_schunk_free(sc);

  char *complib = NULL, *version = NULL;
  CHECK_GE(blosc2_get_complib_info("zstd", &complib, &version), 0);
  CHECK(complib != NULL && version != NULL);
  free(complib);
  free(version);
}

/* vldecompress_block_ctx's dest is the caller's. */
static void test_vlblock_dest(void) {
  const void *srcs[2] = {g_data, g_data + 100};
  int32_t sizes[2] = {400, 800};
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  uint8_t *chunk = malloc(4096);
  int cb = blosc2_vlcompress_ctx(cctx, srcs, sizes, 2, chunk, 4096);
  CHECK_GT(cb, 0);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  uint8_t *dest = NULL;
  int32_t destsize = 0;
  CHECK_EQ(blosc2_vldecompress_block_ctx(dctx, chunk, cb, 1, &dest, &destsize), 800);
  CHECK(dest != NULL && memcmp(dest, g_data + 100, 800) == 0);
  free(dest);
  free(chunk);
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
}

/* b2nd: serialize/deserialize meta, to_cframe / from_cframe. */
static void test_b2nd_handovers(void) {
  int64_t shape[2] = {40, 50};
  int32_t chunkshape[2] = {20, 25};
  int32_t blockshape[2] = {10, 5};
  uint8_t *smeta = NULL;
  int slen = b2nd_serialize_meta(2, shape, chunkshape, blockshape, "<i4", 0, &smeta);
  CHECK_GT(slen, 0);
  int8_t ndim = 0, fmt = -1;
  int64_t sh[B2ND_MAX_DIM];
  int32_t ch[B2ND_MAX_DIM], bl[B2ND_MAX_DIM];
  char *dtype = NULL;
  CHECK_GE(b2nd_deserialize_meta(smeta, slen, &ndim, sh, ch, bl, &dtype, &fmt), 0);
  CHECK_EQ(ndim, 2);
  CHECK_STR(dtype, "<i4");
  free(dtype);
  free(smeta);

  for (int contiguous = 0; contiguous < 2; contiguous++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
    st.cparams = &cp;
    st.contiguous = contiguous;
    b2nd_context_t *ctx =
        b2nd_create_ctx(&st, 2, shape, chunkshape, blockshape, "<i4", 0, NULL, 0);
    b2nd_array_t *arr = NULL;
    CHECK_EQ(b2nd_from_cbuffer(ctx, &arr, g_data, 40 * 50 * 4), 0);
    uint8_t *cframe = NULL;
    int64_t cframe_len = 0;
    bool needs_free = false;
    CHECK_EQ(b2nd_to_cframe(arr, &cframe, &cframe_len, &needs_free), 0);
    CHECK_EQ(needs_free, !contiguous);
    b2nd_array_t *back = NULL;
    CHECK_EQ(b2nd_from_cframe(cframe, cframe_len, true, &back), 0);
    int32_t *out = malloc(40 * 50 * 4);
    CHECK_EQ(b2nd_to_cbuffer(back, out, 40 * 50 * 4), 0);
    CHECK_MEM(out, g_data, 40 * 50 * 4);
    b2nd_free(back);
    if (contiguous) {
      /* the array's frame buffer handed over, as for to_buffer */
      blosc2_schunk_avoid_cframe_free(arr->sc, true);
    }
    b2nd_free(arr);
    b2nd_free_ctx(ctx);
    /* still readable after the array is gone, then freed by the caller */
    CHECK_EQ(b2nd_from_cframe(cframe, cframe_len, false, &back), 0);
    memset(out, 0, 40 * 50 * 4);
    CHECK_EQ(b2nd_to_cbuffer(back, out, 40 * 50 * 4), 0);
    CHECK_MEM(out, g_data, 40 * 50 * 4);
    b2nd_free(back);
    free(out);
    free(cframe);
  }
}

int main(void) {
  blosc2_init();
  init_data();
  RUN(test_into_vec_after_appends);
  RUN(test_into_vec_flag_first);
  RUN(test_into_vec_flag_last);
  RUN(test_into_vec_after_growth);
  RUN(test_to_buffer_lends_stably);
  RUN(test_lazychunk_across_to_buffer);
  RUN(test_to_buffer_library_frees);
  RUN(test_to_buffer_copy);
  RUN(test_from_buffer_copy);
  RUN(test_from_buffer_nocopy_caller_frees);
  RUN(test_from_buffer_nocopy_library_frees);
  RUN(test_from_buffer_nocopy_grows);
  RUN(test_from_buffer_nocopy_grows_library_frees);
  RUN(test_chunks_copy_false);
  RUN(test_get_chunk_needs_free);
  RUN(test_getters_caller_frees);
  RUN(test_vlblock_dest);
  RUN(test_b2nd_handovers);
  blosc2_destroy();
  return TEST_SUMMARY();
}
