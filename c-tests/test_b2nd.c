/*
 * test_b2nd.c - b2nd arrays (area 12 of API.md): every b2nd_* function that
 * works on a b2nd_array_t, with the public fields of the struct read
 * directly after each call.
 *
 * Functions covered: b2nd_uninit, b2nd_empty, b2nd_zeros, b2nd_nans,
 * b2nd_full, b2nd_free, b2nd_from_cbuffer, b2nd_to_cbuffer,
 * b2nd_from_schunk, b2nd_from_cframe, b2nd_to_cframe, b2nd_open,
 * b2nd_open_offset, b2nd_save, b2nd_save_append, b2nd_copy, b2nd_get_slice,
 * b2nd_get_slice_cbuffer, b2nd_set_slice_cbuffer, b2nd_get_sparse_cbuffer,
 * b2nd_get_orthogonal_selection, b2nd_set_orthogonal_selection,
 * b2nd_resize, b2nd_insert, b2nd_append, b2nd_delete, b2nd_squeeze,
 * b2nd_squeeze_index, b2nd_expand_dims, b2nd_concatenate, b2nd_print_meta,
 * b2nd_refresh.
 *
 * Compiled out against the reference:
 *   B2RS_REFERENCE_BUG_B2ND_STRIDES: chunk_array_strides is not the C-order
 *     stride of the chunk grid;
 *   B2RS_REFERENCE_BUG_B2ND_UNCHECKED: NULL arguments crash; slices outside
 *     the array, start > stop, selection indices out of range and too small
 *     selection buffers are not checked (out-of-bounds reads/writes); negative
 *     selection indices read arbitrary items.
 */
#include "b2rs_test.h"
#include "b2nd.h"

#include <dirent.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef B2RS_REFERENCE
#define B2RS_REFERENCE_BUG_B2ND_STRIDES 1
#endif

typedef struct {
  int8_t ndim;
  int64_t shape[8];
  int32_t chunkshape[8];
  int32_t blockshape[8];
} shapes_t;

static const shapes_t SHAPES[] = {
    {0, {0}, {0}, {0}},
    {1, {10}, {7}, {2}},
    {1, {1000}, {100}, {30}},
    {2, {14, 10}, {8, 5}, {2, 2}},
    {2, {400, 3}, {110, 3}, {57, 3}},
    {2, {20, 0}, {7, 0}, {3, 0}},
    {2, {0, 5}, {3, 2}, {2, 2}},
    {3, {10, 10, 10}, {3, 5, 9}, {3, 4, 4}},
    {3, {5, 1, 7}, {5, 1, 7}, {5, 1, 7}},
    {4, {5, 4, 3, 2}, {2, 3, 3, 1}, {1, 2, 2, 1}},
    {5, {3, 4, 2, 5, 3}, {2, 2, 2, 3, 3}, {1, 2, 1, 2, 2}},
    {6, {2, 3, 2, 3, 2, 3}, {1, 2, 2, 2, 1, 2}, {1, 1, 2, 1, 1, 2}},
    {7, {2, 2, 3, 2, 2, 3, 2}, {2, 1, 2, 2, 2, 2, 1}, {1, 1, 1, 2, 1, 2, 1}},
    {8, {3, 2, 3, 2, 3, 2, 1, 2}, {2, 2, 2, 2, 2, 2, 1, 1}, {1, 1, 2, 1, 1, 2, 1, 1}},
};
#define NSHAPES (sizeof(SHAPES) / sizeof(SHAPES[0]))

static const int32_t TYPESIZES[] = {1, 2, 3, 4, 8, 16, 200};
#define NTYPESIZES (sizeof(TYPESIZES) / sizeof(TYPESIZES[0]))

static int64_t prod64(const int64_t *v, int n) {
  int64_t p = 1;
  for (int i = 0; i < n; i++) p *= v[i];
  return p;
}

static b2nd_context_t *make_ctx(const shapes_t *s, int32_t typesize, blosc2_cparams *cp,
                                blosc2_storage *st) {
  *cp = BLOSC2_CPARAMS_DEFAULTS;
  cp->typesize = typesize;
  cp->nthreads = 1;
  cp->clevel = 5;
  *st = (blosc2_storage){.contiguous = false, .cparams = cp};
  return b2nd_create_ctx(st, s->ndim, s->shape, s->chunkshape, s->blockshape, NULL, 0, NULL,
                         0);
}

static void fill_pattern(uint8_t *buf, int64_t n, int seed) {
  for (int64_t i = 0; i < n; i++) buf[i] = (uint8_t)(i * 7 + i / 251 + seed);
}

/* Offset (items) of idx in a C-order buffer of shape. */
static int64_t c_offset(int ndim, const int64_t *shape, const int64_t *idx) {
  int64_t off = 0;
  for (int i = 0; i < ndim; i++) off = off * shape[i] + idx[i];
  return off;
}

/* Naive copy of [start, stop) of a C-order buffer of shape into dst (C order). */
static void naive_slice(const uint8_t *src, int ndim, const int64_t *shape, const int64_t *start,
                        const int64_t *stop, int32_t ts, uint8_t *dst) {
  int64_t sshape[8], idx[8], pos[8];
  int64_t n = 1;
  for (int i = 0; i < ndim; i++) {
    sshape[i] = stop[i] - start[i];
    n *= sshape[i];
  }
  for (int64_t k = 0; k < n; k++) {
    int64_t r = k;
    for (int i = ndim - 1; i >= 0; i--) {
      pos[i] = r % sshape[i];
      r /= sshape[i];
      idx[i] = pos[i] + start[i];
    }
    memcpy(dst + k * ts, src + c_offset(ndim, shape, idx) * ts, (size_t)ts);
  }
}

/* Every public field of the struct for these shapes and typesize. */
static void check_fields(const b2nd_array_t *a, const shapes_t *s, int32_t ts) {
  int n = s->ndim;
  CHECK_EQ(a->ndim, n);
  CHECK(a->sc != NULL);
  CHECK_EQ(a->sc->typesize, ts);
  int64_t nitems = 1, extnitems = 1, extchunknitems = 1;
  int64_t chunknitems = 1, blocknitems = 1;
  int64_t ext[8], extc[8], grid[8], bgrid[8];
  for (int i = 0; i < n; i++) {
    CHECK_EQ(a->shape[i], s->shape[i]);
    CHECK_EQ(a->chunkshape[i], s->chunkshape[i]);
    CHECK_EQ(a->blockshape[i], s->blockshape[i]);
    int64_t c = s->chunkshape[i], b = s->blockshape[i];
    ext[i] = c == 0 ? 0 : (s->shape[i] + c - 1) / c * c;
    extc[i] = b == 0 ? c : (c + b - 1) / b * b;
    grid[i] = c == 0 ? 0 : ext[i] / c;
    bgrid[i] = b == 0 ? 0 : extc[i] / b;
    CHECK_EQ(a->extshape[i], ext[i]);
    if (s->shape[i] != 0) CHECK_EQ(a->extchunkshape[i], extc[i]);
    nitems *= s->shape[i];
    extnitems *= ext[i];
    extchunknitems *= extc[i];
    chunknitems *= c;
    blocknitems *= b;
  }
  for (int i = n; i < B2ND_MAX_DIM; i++) {
    CHECK_EQ(a->shape[i], 1);
    CHECK_EQ(a->chunkshape[i], 1);
    CHECK_EQ(a->blockshape[i], 1);
  }
  CHECK_EQ(a->nitems, nitems);
  CHECK_EQ(a->extnitems, extnitems);
  CHECK_EQ(a->chunknitems, chunknitems);
  CHECK_EQ(a->blocknitems, blocknitems);
  if (nitems != 0) CHECK_EQ(a->extchunknitems, extchunknitems);
  CHECK(a->dtype != NULL);
  CHECK_EQ(a->dtype_format, 0);
  CHECK_EQ(a->chunk_cache.nchunk, -1);
  CHECK(a->chunk_cache.data == NULL);
  if (nitems == 0) return;
  /* C-order strides */
  int64_t sa = 1, sc = 1, se = 1, sb = 1, sbc = 1, sca = 1;
  for (int i = n - 1; i >= 0; i--) {
    CHECK_EQ(a->item_array_strides[i], sa);
    CHECK_EQ(a->item_chunk_strides[i], sc);
    CHECK_EQ(a->item_extchunk_strides[i], se);
    CHECK_EQ(a->item_block_strides[i], sb);
    CHECK_EQ(a->block_chunk_strides[i], sbc);
#ifndef B2RS_REFERENCE_BUG_B2ND_STRIDES
    CHECK_EQ(a->chunk_array_strides[i], sca);
#endif
    sa *= s->shape[i];
    sc *= s->chunkshape[i];
    se *= extc[i];
    sb *= s->blockshape[i];
    sbc *= bgrid[i];
    sca *= grid[i];
  }
  /* the super-chunk holds one padded chunk per chunk of the grid */
  CHECK_EQ(a->sc->nchunks, prod64(grid, n));
  CHECK_EQ(a->sc->chunksize, (int32_t)(extchunknitems * ts));
  CHECK_EQ(a->sc->blocksize, (int32_t)(blocknitems * ts));
  CHECK_EQ(a->sc->nmetalayers, 1);
  CHECK_STR(a->sc->metalayers[0]->name, "b2nd");
}

static char tmpname[64];
static const char *tmp_path(const char *what) {
  snprintf(tmpname, sizeof(tmpname), "/tmp/b2rs_test_b2nd_%d_%s.b2nd", (int)getpid(), what);
  return tmpname;
}

/* Remove a file or a directory of files. */
static void rm_rf(const char *path) {
  DIR *d = opendir(path);
  if (d != NULL) {
    struct dirent *ent;
    char p[256];
    while ((ent = readdir(d)) != NULL) {
      if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0) continue;
      snprintf(p, sizeof(p), "%s/%s", path, ent->d_name);
      unlink(p);
    }
    closedir(d);
    rmdir(path);
  } else {
    unlink(path);
  }
}

static void roundtrip_one(const shapes_t *s, int32_t ts) {
  blosc2_cparams cp;
  blosc2_storage st;
  b2nd_context_t *ctx = make_ctx(s, ts, &cp, &st);
  CHECK(ctx != NULL);
  if (ctx == NULL) return;
  int64_t nitems = prod64(s->shape, s->ndim);
  int64_t nbytes = nitems * ts;
  uint8_t *data = malloc((size_t)nbytes + 1);
  uint8_t *out = malloc((size_t)nbytes + 1);
  fill_pattern(data, nbytes, ts);

  b2nd_array_t *a = NULL;
  CHECK_EQ(b2nd_from_cbuffer(ctx, &a, data, nbytes), 0);
  if (a == NULL) return;
  check_fields(a, s, ts);
  char want_dtype[16];
  snprintf(want_dtype, sizeof(want_dtype), "|S%d", ts);
  CHECK_STR(a->dtype, want_dtype);
  memset(out, 0xEE, (size_t)nbytes + 1);
  CHECK_EQ(b2nd_to_cbuffer(a, out, nbytes), 0);
  CHECK_MEM(out, data, (size_t)nbytes);
  if (nbytes > 0) CHECK_LT(b2nd_to_cbuffer(a, out, nbytes - 1), 0);

  /* a slice in the middle, into a larger buffer */
  int64_t start[8], stop[8], sshape[8], bshape[8];
  for (int i = 0; i < s->ndim; i++) {
    start[i] = s->shape[i] / 3;
    stop[i] = s->shape[i] - s->shape[i] / 4;
    sshape[i] = stop[i] - start[i];
    bshape[i] = sshape[i];
  }
  int64_t sn = prod64(sshape, s->ndim) * ts;
  uint8_t *sl = malloc((size_t)sn + 1), *want = malloc((size_t)sn + 1);
  naive_slice(data, s->ndim, s->shape, start, stop, ts, want);
  CHECK_EQ(b2nd_get_slice_cbuffer(a, start, stop, sl, bshape, sn), 0);
  CHECK_MEM(sl, want, (size_t)sn);

  /* sparse items by flat index: the corners of the slice, repeated and unsorted
   * (the reference refuses index 0 of a scalar) */
  if (nitems > 0 && s->ndim > 0) {
    int64_t last[8];
    for (int i = 0; i < s->ndim; i++) last[i] = s->shape[i] - 1;
    int64_t coords[3] = {c_offset(s->ndim, s->shape, last), c_offset(s->ndim, s->shape, start),
                         c_offset(s->ndim, s->shape, last)};
    uint8_t three[3 * 200];
    CHECK_EQ(b2nd_get_sparse_cbuffer(a, 3, coords, three, 3 * ts), 0);
    for (int k = 0; k < 3; k++) CHECK_MEM(three + k * ts, data + coords[k] * ts, (size_t)ts);
    int64_t bad = nitems;
    CHECK_LT(b2nd_get_sparse_cbuffer(a, 1, &bad, three, ts), 0);
    CHECK_LT(b2nd_get_sparse_cbuffer(a, 2, coords, three, 2 * ts - 1), 0);
    CHECK_EQ(b2nd_get_sparse_cbuffer(a, 0, NULL, NULL, 0), 0);
  }

  /* the slice as a new array with other chunk/block shapes */
  shapes_t s2 = *s;
  for (int i = 0; i < s->ndim; i++) {
    s2.chunkshape[i] = s->chunkshape[i] > 1 ? s->chunkshape[i] - 1 : s->chunkshape[i];
    s2.blockshape[i] = s->blockshape[i] > 1 ? s->blockshape[i] / 2 : s->blockshape[i];
  }
  blosc2_cparams cp2;
  blosc2_storage st2;
  b2nd_context_t *ctx2 = make_ctx(&s2, ts, &cp2, &st2);
  b2nd_array_t *b = NULL;
  CHECK_EQ(b2nd_get_slice(ctx2, &b, a, start, stop), 0);
  if (b != NULL) {
    for (int i = 0; i < s->ndim; i++) s2.shape[i] = sshape[i];
    check_fields(b, &s2, ts);
    memset(sl, 0, (size_t)sn);
    CHECK_EQ(b2nd_to_cbuffer(b, sl, sn), 0);
    CHECK_MEM(sl, want, (size_t)sn);
    CHECK_EQ(b2nd_free(b), 0);
  }

  /* write the slice, read everything back */
  memset(sl, 0xA5, (size_t)sn);
  CHECK_EQ(b2nd_set_slice_cbuffer(sl, bshape, sn, start, stop, a), 0);
  check_fields(a, s, ts);
  CHECK_EQ(b2nd_to_cbuffer(a, out, nbytes), 0);
  naive_slice(out, s->ndim, s->shape, start, stop, ts, want);
  CHECK_MEM(want, sl, (size_t)sn);
  /* the rest is untouched: write the original slice back */
  naive_slice(data, s->ndim, s->shape, start, stop, ts, want);
  CHECK_EQ(b2nd_set_slice_cbuffer(want, bshape, sn, start, stop, a), 0);
  CHECK_EQ(b2nd_to_cbuffer(a, out, nbytes), 0);
  CHECK_MEM(out, data, (size_t)nbytes);

  /* copy with other chunk/block shapes */
  for (int i = 0; i < s->ndim; i++) s2.shape[i] = s->shape[i];
  b2nd_array_t *c = NULL;
  CHECK_EQ(b2nd_copy(ctx2, a, &c), 0);
  if (c != NULL) {
    check_fields(c, &s2, ts);
    memset(out, 0, (size_t)nbytes);
    CHECK_EQ(b2nd_to_cbuffer(c, out, nbytes), 0);
    CHECK_MEM(out, data, (size_t)nbytes);
    CHECK_EQ(b2nd_free(c), 0);
  }

  /* cframe round trip */
  uint8_t *cframe = NULL;
  int64_t cframe_len = 0;
  bool needs_free = false;
  CHECK_EQ(b2nd_to_cframe(a, &cframe, &cframe_len, &needs_free), 0);
  CHECK_GT(cframe_len, 0);
  b2nd_array_t *d = NULL;
  CHECK_EQ(b2nd_from_cframe(cframe, cframe_len, true, &d), 0);
  if (needs_free) free(cframe);
  if (d != NULL) {
    check_fields(d, s, ts);
    CHECK_STR(d->dtype, want_dtype);
    memset(out, 0, (size_t)nbytes);
    CHECK_EQ(b2nd_to_cbuffer(d, out, nbytes), 0);
    CHECK_MEM(out, data, (size_t)nbytes);
    CHECK_EQ(b2nd_free(d), 0);
  }

  /* save / open (a non-contiguous array is saved as a sparse frame directory),
   * save_append / open_offset */
  char p1[64];
  snprintf(p1, sizeof(p1), "%s", tmp_path("save"));
  rm_rf(p1);
  CHECK_EQ(b2nd_save(a, p1), 0);
  struct stat sb;
  CHECK_EQ(stat(p1, &sb), 0);
  CHECK(S_ISDIR(sb.st_mode));
  b2nd_array_t *e = NULL;
  CHECK_EQ(b2nd_open(p1, &e), 0);
  if (e != NULL) {
    check_fields(e, s, ts);
    memset(out, 0, (size_t)nbytes);
    CHECK_EQ(b2nd_to_cbuffer(e, out, nbytes), 0);
    CHECK_MEM(out, data, (size_t)nbytes);
    CHECK_EQ(b2nd_free(e), 0);
  }
  rm_rf(p1);
  CHECK_EQ(b2nd_save_append(a, p1), 0);
  int64_t off = b2nd_save_append(a, p1);
  CHECK_GT(off, 0);
  e = NULL;
  CHECK_EQ(b2nd_open_offset(p1, &e, off), 0);
  if (e != NULL) {
    check_fields(e, s, ts);
    memset(out, 0, (size_t)nbytes);
    CHECK_EQ(b2nd_to_cbuffer(e, out, nbytes), 0);
    CHECK_MEM(out, data, (size_t)nbytes);
    CHECK_EQ(b2nd_free(e), 0);
  }
  e = NULL;
  CHECK_EQ(b2nd_open(p1, &e), 0);
  if (e != NULL) {
    check_fields(e, s, ts);
    CHECK_EQ(b2nd_free(e), 0);
  }
  rm_rf(p1);

  CHECK_EQ(b2nd_refresh(a), 0);
  CHECK_EQ(b2nd_free(a), 0);
  CHECK_EQ(b2nd_free_ctx(ctx), 0);
  CHECK_EQ(b2nd_free_ctx(ctx2), 0);
  free(data);
  free(out);
  free(sl);
  free(want);
}

static void test_roundtrip(void) {
  for (size_t k = 0; k < NSHAPES; k++) {
    for (size_t t = 0; t < NTYPESIZES; t++) {
      roundtrip_one(&SHAPES[k], TYPESIZES[t]);
    }
  }
}

static void test_constructors(void) {
  const shapes_t s = {3, {7, 5, 4}, {3, 5, 2}, {2, 2, 2}};
  int64_t n = 7 * 5 * 4;
  for (int ts = 4; ts <= 8; ts += 4) {
    blosc2_cparams cp;
    blosc2_storage st;
    b2nd_context_t *ctx = make_ctx(&s, ts, &cp, &st);
    uint8_t *out = malloc((size_t)(n * ts));
    b2nd_array_t *a = NULL;

    CHECK_EQ(b2nd_zeros(ctx, &a), 0);
    check_fields(a, &s, ts);
    CHECK_EQ(b2nd_to_cbuffer(a, out, n * ts), 0);
    for (int64_t i = 0; i < n * ts; i++) CHECK_EQ(out[i], 0);
    CHECK_EQ(b2nd_free(a), 0);

    CHECK_EQ(b2nd_nans(ctx, &a), 0);
    check_fields(a, &s, ts);
    CHECK_EQ(b2nd_to_cbuffer(a, out, n * ts), 0);
    for (int64_t i = 0; i < n; i++) {
      if (ts == 4) {
        float f;
        memcpy(&f, out + i * 4, 4);
        CHECK(isnan(f));
      } else {
        double f;
        memcpy(&f, out + i * 8, 8);
        CHECK(isnan(f));
      }
    }
    CHECK_EQ(b2nd_free(a), 0);

    uint8_t value[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    CHECK_EQ(b2nd_full(ctx, &a, value), 0);
    check_fields(a, &s, ts);
    CHECK_EQ(b2nd_to_cbuffer(a, out, n * ts), 0);
    for (int64_t i = 0; i < n; i++) CHECK_MEM(out + i * ts, value, (size_t)ts);
    CHECK_EQ(b2nd_free(a), 0);

    CHECK_EQ(b2nd_empty(ctx, &a), 0);
    check_fields(a, &s, ts);
    CHECK_EQ(b2nd_to_cbuffer(a, out, n * ts), 0);
    CHECK_EQ(b2nd_free(a), 0);

    CHECK_EQ(b2nd_uninit(ctx, &a), 0);
    check_fields(a, &s, ts);
    /* written regions read back */
    int64_t start[3] = {0, 0, 0}, stop[3] = {7, 5, 4}, shape[3] = {7, 5, 4};
    fill_pattern(out, n * ts, 3);
    CHECK_EQ(b2nd_set_slice_cbuffer(out, shape, n * ts, start, stop, a), 0);
    uint8_t *back = malloc((size_t)(n * ts));
    CHECK_EQ(b2nd_to_cbuffer(a, back, n * ts), 0);
    CHECK_MEM(back, out, (size_t)(n * ts));
    free(back);
    CHECK_EQ(b2nd_free(a), 0);
    free(out);
    CHECK_EQ(b2nd_free_ctx(ctx), 0);
  }
  /* NaNs need 4- or 8-byte items */
  blosc2_cparams cp;
  blosc2_storage st;
  b2nd_context_t *ctx = make_ctx(&s, 2, &cp, &st);
  b2nd_array_t *a = NULL;
  CHECK_LT(b2nd_nans(ctx, &a), 0);
  CHECK_EQ(b2nd_free_ctx(ctx), 0);
}

/* A 1-d int32 array 1..n, chunks of 3, blocks of 2. */
static b2nd_context_t *ctx1d;
static b2nd_array_t *mk1d(int n) {
  int32_t buf[64];
  for (int i = 0; i < n; i++) buf[i] = i + 1;
  b2nd_array_t *a = NULL;
  CHECK_EQ(b2nd_from_cbuffer(ctx1d, &a, buf, n * 4), 0);
  return a;
}

static int ints_eq(b2nd_array_t *a, const int32_t *want, int n) {
  int32_t out[64];
  if (a->nitems != n || a->shape[0] != n) return 0;
  if (b2nd_to_cbuffer(a, out, n * 4) != 0) return 0;
  if (memcmp(out, want, (size_t)n * 4) != 0) return 0;
  const shapes_t s = {1, {n}, {3}, {2}};
  check_fields(a, &s, 4);
  return 1;
}

static void test_shape_changes(void) {
  blosc2_cparams cp;
  blosc2_storage st;
  const shapes_t s = {1, {12}, {3}, {2}};
  ctx1d = make_ctx(&s, 4, &cp, &st);
  int32_t v12[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  b2nd_array_t *a = mk1d(12);
  CHECK_LT(b2nd_resize(a, (int64_t[]){14}, (int64_t[]){3}), 0);
  CHECK_LT(b2nd_resize(a, (int64_t[]){14}, (int64_t[]){13}), 0);
  CHECK_LT(b2nd_resize(a, (int64_t[]){14}, (int64_t[]){0}), 0);
  CHECK_LT(b2nd_resize(a, (int64_t[]){-1}, NULL), 0);
  CHECK(ints_eq(a, v12, 12));
  CHECK_EQ(b2nd_resize(a, (int64_t[]){14}, (int64_t[]){12}), 0);
  CHECK(ints_eq(a, (int32_t[]){1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 0}, 14));
  b2nd_free(a);
  a = mk1d(12);
  CHECK_EQ(b2nd_resize(a, (int64_t[]){15}, (int64_t[]){6}), 0);
  CHECK(ints_eq(a, (int32_t[]){1, 2, 3, 4, 5, 6, 0, 0, 0, 7, 8, 9, 10, 11, 12}, 15));
  b2nd_free(a);
  a = mk1d(12);
  CHECK_LT(b2nd_resize(a, (int64_t[]){10}, (int64_t[]){9}), 0);
  CHECK_LT(b2nd_resize(a, (int64_t[]){10}, (int64_t[]){2}), 0);
  CHECK_EQ(b2nd_resize(a, (int64_t[]){10}, (int64_t[]){10}), 0);
  CHECK(ints_eq(a, v12, 10));
  b2nd_free(a);
  a = mk1d(12);
  CHECK_EQ(b2nd_resize(a, (int64_t[]){9}, (int64_t[]){3}), 0);
  CHECK(ints_eq(a, (int32_t[]){1, 2, 3, 7, 8, 9, 10, 11, 12}, 9));
  b2nd_free(a);
  a = mk1d(12);
  CHECK_EQ(b2nd_resize(a, (int64_t[]){7}, NULL), 0);
  CHECK(ints_eq(a, v12, 7));
  CHECK_EQ(b2nd_resize(a, (int64_t[]){13}, NULL), 0);
  /* as the reference: growing inside the kept edge chunk shows its padding (the items 8, 9
     the shrink left there); the new chunks hold zeros */
  CHECK(ints_eq(a, (int32_t[]){1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0}, 13));
  b2nd_free(a);
  a = mk1d(12);
  CHECK_EQ(b2nd_resize(a, (int64_t[]){0}, NULL), 0);
  CHECK_EQ(a->nitems, 0);
  CHECK_EQ(a->sc->nchunks, 0);
  CHECK_EQ(b2nd_resize(a, (int64_t[]){4}, NULL), 0);
  CHECK(ints_eq(a, (int32_t[]){0, 0, 0, 0}, 4));
  b2nd_free(a);

  a = mk1d(12);
  CHECK_EQ(b2nd_delete(a, 0, 0, 3), 0);
  CHECK(ints_eq(a, v12 + 3, 9));
  b2nd_free(a);
  a = mk1d(12);
  CHECK_EQ(b2nd_delete(a, 0, 10, 2), 0);
  CHECK(ints_eq(a, v12, 10));
  CHECK_EQ(b2nd_delete(a, 0, 9, 1), 0);
  CHECK(ints_eq(a, v12, 9));
  CHECK_EQ(b2nd_delete(a, 0, 0, 0), 0);
  CHECK(ints_eq(a, v12, 9));
  CHECK_LT(b2nd_delete(a, 0, 3, 2), 0);
  CHECK_LT(b2nd_delete(a, 0, 6, 4), 0);
  CHECK_LT(b2nd_delete(a, 1, 0, 1), 0);
  CHECK(ints_eq(a, v12, 9));
  b2nd_free(a);

  int32_t ib[4] = {100, 101, 102, 103};
  a = mk1d(12);
  CHECK_LT(b2nd_insert(a, ib, 16, 0, 3), 0);
  CHECK_LT(b2nd_insert(a, ib, 8, 0, 3), 0);
  CHECK_LT(b2nd_insert(a, ib, 8, 0, 13), 0);
  CHECK_LT(b2nd_insert(a, ib, 13, 0, 6), 0);
  CHECK_LT(b2nd_insert(a, ib, 4, 1, 0), 0);
  CHECK(ints_eq(a, v12, 12));
  CHECK_EQ(b2nd_insert(a, ib, 0, 0, 6), 0);
  CHECK(ints_eq(a, v12, 12));
  CHECK_EQ(b2nd_insert(a, ib, 12, 0, 6), 0);
  CHECK(ints_eq(a, (int32_t[]){1, 2, 3, 4, 5, 6, 100, 101, 102, 7, 8, 9, 10, 11, 12}, 15));
  CHECK_EQ(b2nd_insert(a, ib, 8, 0, 15), 0);
  CHECK_EQ(a->shape[0], 17);
  b2nd_free(a);
  a = mk1d(12);
  CHECK_EQ(b2nd_append(a, ib, 4, 0), 0);
  CHECK(ints_eq(a, (int32_t[]){1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 100}, 13));
  CHECK_EQ(b2nd_append(a, ib, 12, 0), 0);
  CHECK(ints_eq(a, (int32_t[]){1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 100, 100, 101, 102}, 16));
  CHECK_LT(b2nd_append(a, ib, 6, 0), 0);
  CHECK_LT(b2nd_append(a, ib, 4, 1), 0);
  CHECK_LT(b2nd_append(a, ib, 4, -1), 0);
  b2nd_free(a);
  b2nd_free_ctx(ctx1d);

  /* 2-d: append rows and columns, resize both dimensions at once */
  const shapes_t s2 = {2, {4, 5}, {2, 3}, {2, 2}};
  ctx1d = make_ctx(&s2, 1, &cp, &st);
  uint8_t d[20], out[64];
  fill_pattern(d, 20, 0);
  CHECK_EQ(b2nd_from_cbuffer(ctx1d, &a, d, 20), 0);
  uint8_t col[4] = {200, 201, 202, 203};
  CHECK_EQ(b2nd_append(a, col, 4, 1), 0);
  CHECK_EQ(a->shape[0], 4);
  CHECK_EQ(a->shape[1], 6);
  const shapes_t s3 = {2, {4, 6}, {2, 3}, {2, 2}};
  check_fields(a, &s3, 1);
  CHECK_EQ(b2nd_to_cbuffer(a, out, 24), 0);
  for (int i = 0; i < 4; i++) {
    CHECK_MEM(out + i * 6, d + i * 5, 5);
    CHECK_EQ(out[i * 6 + 5], 200 + i);
  }
  CHECK_EQ(b2nd_resize(a, (int64_t[]){6, 9}, (int64_t[]){2, 3}), 0);
  const shapes_t s4 = {2, {6, 9}, {2, 3}, {2, 2}};
  check_fields(a, &s4, 1);
  CHECK_EQ(b2nd_to_cbuffer(a, out, 54), 0);
  for (int i = 0; i < 6; i++) {
    for (int j = 0; j < 9; j++) {
      int oi = i < 2 ? i : (i < 4 ? -1 : i - 2);
      int oj = j < 3 ? j : (j < 6 ? -1 : j - 3);
      uint8_t w = 0;
      if (oi >= 0 && oj >= 0) w = oj == 5 ? (uint8_t)(200 + oi) : d[oi * 5 + oj];
      CHECK_EQ(out[i * 9 + j], w);
    }
  }
  CHECK_EQ(b2nd_delete(a, 0, 2, 2), 0);
  CHECK_EQ(b2nd_delete(a, 1, 3, 3), 0);
  CHECK_EQ(b2nd_to_cbuffer(a, out, 24), 0);
  for (int i = 0; i < 4; i++) {
    CHECK_MEM(out + i * 6, d + i * 5, 5);
    CHECK_EQ(out[i * 6 + 5], 200 + i);
  }
  b2nd_free(a);
  b2nd_free_ctx(ctx1d);
}

static void test_orthogonal(void) {
  const shapes_t s = {3, {6, 5, 4}, {4, 3, 3}, {2, 2, 2}};
  blosc2_cparams cp;
  blosc2_storage st;
  b2nd_context_t *ctx = make_ctx(&s, 2, &cp, &st);
  uint8_t d[240];
  fill_pattern(d, 240, 1);
  b2nd_array_t *a = NULL;
  CHECK_EQ(b2nd_from_cbuffer(ctx, &a, d, 240), 0);
  /* a slice into a larger buffer lands at its origin, the rest is zeroed */
  {
    int64_t st0[3] = {1, 1, 0}, sp0[3] = {4, 3, 2}, big[3] = {4, 3, 3};
    uint8_t bb[72];
    memset(bb, 0x77, sizeof(bb));
    CHECK_EQ(b2nd_get_slice_cbuffer(a, st0, sp0, bb, big, 72), 0);
    for (int64_t i = 0; i < 4; i++) {
      for (int64_t j = 0; j < 3; j++) {
        for (int64_t l = 0; l < 3; l++) {
          int64_t bi[3] = {i, j, l};
          int64_t o = c_offset(3, big, bi) * 2;
          if (i < 3 && j < 2 && l < 2) {
            int64_t ai[3] = {i + 1, j + 1, l};
            CHECK_MEM(bb + o, d + c_offset(3, s.shape, ai) * 2, 2);
          } else {
            CHECK_EQ(bb[o], 0);
            CHECK_EQ(bb[o + 1], 0);
          }
        }
      }
    }
  }
  /* writing from a larger buffer takes the items at its origin */
  {
    int64_t st0[3] = {2, 0, 1}, sp0[3] = {4, 2, 2}, big[3] = {3, 3, 2};
    uint8_t bb[36], back[8];
    fill_pattern(bb, 36, 50);
    CHECK_EQ(b2nd_set_slice_cbuffer(bb, big, 36, st0, sp0, a), 0);
    int64_t one[3] = {2, 2, 1};
    CHECK_EQ(b2nd_get_slice_cbuffer(a, st0, sp0, back, one, 8), 0);
    for (int64_t i = 0; i < 2; i++) {
      for (int64_t j = 0; j < 2; j++) {
        int64_t bi[3] = {i, j, 0};
        CHECK_MEM(back + (i * 2 + j) * 2, bb + c_offset(3, big, bi) * 2, 2);
      }
    }
    /* restore */
    int64_t full[3] = {6, 5, 4}, zero[3] = {0, 0, 0};
    CHECK_EQ(b2nd_set_slice_cbuffer(d, full, 240, zero, full, a), 0);
  }
  int64_t s0[2] = {5, 0}, s1[3] = {1, 4, 2}, s2[1] = {3};
  int64_t *sel[3] = {s0, s1, s2};
  int64_t sizes[3] = {2, 3, 1};
  int64_t bshape[3] = {2, 3, 1};
  uint8_t out[12];
  CHECK_EQ(b2nd_get_orthogonal_selection(a, sel, sizes, out, bshape, 12), 0);
  int k = 0;
  for (int i = 0; i < 2; i++) {
    for (int j = 0; j < 3; j++) {
      int64_t idx[3] = {s0[i], s1[j], 3};
      CHECK_MEM(out + k * 2, d + c_offset(3, s.shape, idx) * 2, 2);
      k++;
    }
  }
  /* the buffer shape must be the selection's */
  int64_t bigger[3] = {3, 3, 1};
  uint8_t big[18];
  CHECK_LT(b2nd_get_orthogonal_selection(a, sel, sizes, big, bigger, 18), 0);
#ifndef B2RS_REFERENCE_BUG_B2ND_UNCHECKED
  /* indices out of range, buffer too small */
  s0[0] = 6;
  CHECK_LT(b2nd_get_orthogonal_selection(a, sel, sizes, out, bshape, 12), 0);
  s0[0] = 5;
  CHECK_LT(b2nd_get_orthogonal_selection(a, sel, sizes, out, bshape, 11), 0);
  /* negative indices count from the end */
  s0[0] = -1;
  uint8_t neg[12];
  CHECK_EQ(b2nd_get_orthogonal_selection(a, sel, sizes, neg, bshape, 12), 0);
  CHECK_MEM(neg, out, 12);
  s0[0] = 5;
#endif
  uint8_t vals[12];
  memset(vals, 0xEE, 12);
  CHECK_EQ(b2nd_set_orthogonal_selection(a, sel, sizes, vals, bshape, 12), 0);
  uint8_t all[240];
  CHECK_EQ(b2nd_to_cbuffer(a, all, 240), 0);
  for (int64_t i = 0; i < 6; i++) {
    for (int64_t j = 0; j < 5; j++) {
      for (int64_t l = 0; l < 4; l++) {
        int64_t idx[3] = {i, j, l};
        int64_t o = c_offset(3, s.shape, idx) * 2;
        int hit = (i == 5 || i == 0) && (j == 1 || j == 4 || j == 2) && l == 3;
        if (hit) {
          CHECK_EQ(all[o], 0xEE);
        } else {
          CHECK_MEM(all + o, d + o, 2);
        }
      }
    }
  }
  check_fields(a, &s, 2);
  CHECK_EQ(b2nd_free(a), 0);
  CHECK_EQ(b2nd_free_ctx(ctx), 0);
}

static void test_views(void) {
  const shapes_t s = {4, {1, 5, 1, 3}, {1, 3, 1, 2}, {1, 2, 1, 2}};
  blosc2_cparams cp;
  blosc2_storage st;
  b2nd_context_t *ctx = make_ctx(&s, 4, &cp, &st);
  int32_t d[15], out[15];
  for (int i = 0; i < 15; i++) d[i] = i * 3 + 1;
  b2nd_array_t *a = NULL, *v = NULL;
  CHECK_EQ(b2nd_from_cbuffer(ctx, &a, d, 60), 0);

  CHECK_EQ(b2nd_squeeze(a, &v), 0);
  const shapes_t sq = {2, {5, 3}, {3, 2}, {2, 2}};
  CHECK_EQ(v->ndim, 2);
  CHECK_EQ(v->shape[0], 5);
  CHECK_EQ(v->shape[1], 3);
  CHECK_EQ(v->chunkshape[0], 3);
  CHECK_EQ(v->blockshape[1], 2);
  CHECK_EQ(v->nitems, 15);
  check_fields(v, &sq, 4);
  CHECK_EQ(b2nd_to_cbuffer(v, out, 60), 0);
  CHECK_MEM(out, d, 60);
  CHECK_EQ(a->ndim, 4); /* the array itself is unchanged */
  /* a view: a write through it reaches the array, and one to the array is seen by it */
  {
    int32_t w[3] = {-1, -2, -3};
    int64_t vs[2] = {4, 0}, ve[2] = {5, 3}, vb[2] = {1, 3};
    CHECK_EQ(b2nd_set_slice_cbuffer(w, vb, sizeof w, vs, ve, v), 0);
    CHECK_EQ(b2nd_to_cbuffer(a, out, 60), 0);
    CHECK_MEM(out + 12, w, 12);
    CHECK_MEM(out, d, 48);
    int64_t as[4] = {0, 0, 0, 0}, ae[4] = {1, 1, 1, 3}, ab[4] = {1, 1, 1, 3};
    CHECK_EQ(b2nd_set_slice_cbuffer(d, ab, 12, as, ae, a), 0);
    int64_t rs[2] = {0, 0}, re[2] = {1, 3}, rb[2] = {1, 3};
    int32_t got[3] = {0};
    CHECK_EQ(b2nd_get_slice_cbuffer(v, rs, re, got, rb, sizeof got), 0);
    CHECK_MEM(got, d, 12);
    int64_t rs2[4] = {0, 4, 0, 0}, re2[4] = {1, 5, 1, 3}, rb2[4] = {1, 1, 1, 3};
    CHECK_EQ(b2nd_set_slice_cbuffer(d + 12, rb2, 12, rs2, re2, a), 0); /* restored */
  }
  CHECK_EQ(b2nd_free(v), 0);

  bool idx[4] = {false, false, true, false};
  v = NULL;
  CHECK_EQ(b2nd_squeeze_index(a, &v, idx), 0);
  CHECK_EQ(v->ndim, 3);
  CHECK_EQ(v->shape[0], 1);
  CHECK_EQ(v->shape[1], 5);
  CHECK_EQ(v->shape[2], 3);
  CHECK_EQ(b2nd_to_cbuffer(v, out, 60), 0);
  CHECK_MEM(out, d, 60);
  CHECK_EQ(b2nd_free(v), 0);
  bool bad[4] = {false, true, false, false};
  v = NULL;
  CHECK_EQ(b2nd_squeeze_index(a, &v, bad), BLOSC2_ERROR_INVALID_INDEX);

  bool axis[6] = {true, false, false, false, true, false};
  v = NULL;
  CHECK_EQ(b2nd_expand_dims(a, &v, axis, 6), 0);
  CHECK_EQ(v->ndim, 6);
  int64_t want[6] = {1, 1, 5, 1, 1, 3};
  for (int i = 0; i < 6; i++) CHECK_EQ(v->shape[i], want[i]);
  CHECK_EQ(v->chunkshape[0], 1);
  CHECK_EQ(v->blockshape[4], 1);
  CHECK_EQ(v->nitems, 15);
  CHECK_EQ(b2nd_to_cbuffer(v, out, 60), 0);
  CHECK_MEM(out, d, 60);
#ifndef B2RS_REFERENCE
  /* b2rs: the array may go first, the view keeps the chunks (the reference reads freed
     memory then) */
  CHECK_EQ(b2nd_free(a), 0);
  memset(out, 0, sizeof out);
  CHECK_EQ(b2nd_to_cbuffer(v, out, 60), 0);
  CHECK_MEM(out, d, 60);
  CHECK_EQ(b2nd_free(v), 0);
#else
  CHECK_EQ(b2nd_free(v), 0);
  CHECK_EQ(b2nd_free(a), 0);
#endif
  CHECK_EQ(b2nd_free_ctx(ctx), 0);
}

static void test_concatenate(void) {
  const shapes_t s = {2, {4, 5}, {3, 2}, {2, 2}};
  blosc2_cparams cp;
  blosc2_storage st;
  b2nd_context_t *ctx = make_ctx(&s, 2, &cp, &st);
  uint8_t d1[40], d2[40], out[80];
  fill_pattern(d1, 40, 1);
  fill_pattern(d2, 40, 99);
  for (int axis = 0; axis < 2; axis++) {
    for (int copy = 1; copy >= 0; copy--) {
      b2nd_array_t *a = NULL, *b = NULL, *c = NULL;
      CHECK_EQ(b2nd_from_cbuffer(ctx, &a, d1, 40), 0);
      CHECK_EQ(b2nd_from_cbuffer(ctx, &b, d2, 40), 0);
      CHECK_EQ(b2nd_concatenate(ctx, a, b, (int8_t)axis, copy, &c), 0);
      if (c == NULL) continue;
      CHECK_EQ(c->shape[0], axis == 0 ? 8 : 4);
      CHECK_EQ(c->shape[1], axis == 1 ? 10 : 5);
      CHECK_EQ(c->nitems, 40);
      shapes_t sc = s;
      sc.shape[axis] *= 2;
      check_fields(c, &sc, 2);
      CHECK_EQ(b2nd_to_cbuffer(c, out, 80), 0);
      if (axis == 0) {
        CHECK_MEM(out, d1, 40);
        CHECK_MEM(out + 40, d2, 40);
      } else {
        for (int i = 0; i < 4; i++) {
          CHECK_MEM(out + i * 20, d1 + i * 10, 10);
          CHECK_MEM(out + i * 20 + 10, d2 + i * 10, 10);
        }
      }
      if (c != a) CHECK_EQ(b2nd_free(c), 0);
      CHECK_EQ(b2nd_free(a), 0);
      CHECK_EQ(b2nd_free(b), 0);
    }
  }
  /* shapes must agree outside the axis */
  const shapes_t s2 = {2, {4, 6}, {3, 2}, {2, 2}};
  blosc2_cparams cp2;
  blosc2_storage st2;
  b2nd_context_t *ctx2 = make_ctx(&s2, 2, &cp2, &st2);
  b2nd_array_t *a = NULL, *b = NULL, *c = NULL;
  CHECK_EQ(b2nd_zeros(ctx, &a), 0);
  CHECK_EQ(b2nd_zeros(ctx2, &b), 0);
  CHECK_LT(b2nd_concatenate(ctx, a, b, 0, true, &c), 0);
  CHECK_EQ(b2nd_concatenate(ctx, a, b, 1, true, &c), 0);
  if (c != NULL) {
    CHECK_EQ(c->shape[1], 11);
    CHECK_EQ(b2nd_free(c), 0);
  }
  CHECK_EQ(b2nd_free(a), 0);
  CHECK_EQ(b2nd_free(b), 0);
  CHECK_EQ(b2nd_free_ctx(ctx), 0);
  CHECK_EQ(b2nd_free_ctx(ctx2), 0);
}

static void test_from_schunk(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  cp.blocksize = 2 * 2 * 8;
  blosc2_storage st = {.contiguous = false, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  CHECK(sc != NULL);
  int64_t shape[2] = {5, 3};
  int32_t chunkshape[2] = {3, 2}, blockshape[2] = {2, 2};
  uint8_t *smeta = NULL;
  int len = b2nd_serialize_meta(2, shape, chunkshape, blockshape, "<f8", 0, &smeta);
  CHECK_GT(len, 0);
  CHECK_GE(blosc2_meta_add(sc, "b2nd", smeta, len), 0);
  free(smeta);
  /* 4 chunks of 4x2 items */
  CHECK_EQ(blosc2_schunk_fill_special(sc, 4 * 8, BLOSC2_SPECIAL_ZERO, 8 * 8), 4);
  b2nd_array_t *a = NULL;
  CHECK_EQ(b2nd_from_schunk(sc, &a), 0);
  CHECK(a->sc == sc);
  CHECK_STR(a->dtype, "<f8");
  const shapes_t s = {2, {5, 3}, {3, 2}, {2, 2}};
  check_fields(a, &s, 8);
  double out[15];
  memset(out, 1, sizeof(out));
  CHECK_EQ(b2nd_to_cbuffer(a, out, sizeof(out)), 0);
  for (int i = 0; i < 15; i++) CHECK(out[i] == 0.0);
  double x = 2.5;
  int64_t start[2] = {4, 2}, stop[2] = {5, 3}, one[2] = {1, 1};
  CHECK_EQ(b2nd_set_slice_cbuffer(&x, one, 8, start, stop, a), 0);
  CHECK_EQ(b2nd_to_cbuffer(a, out, sizeof(out)), 0);
  CHECK(out[14] == 2.5);
  CHECK_EQ(b2nd_print_meta(a), 0);
  CHECK_EQ(b2nd_free(a), 0); /* frees the super-chunk too */

  /* a super-chunk without the metalayer */
  sc = blosc2_schunk_new(&st);
  a = NULL;
  CHECK_LT(b2nd_from_schunk(sc, &a), 0);
  blosc2_schunk_free(sc);
}

static void test_user_metalayers(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 2;
  blosc2_storage st = {.contiguous = false, .cparams = &cp};
  int64_t shape[3] = {1, 6, 5};
  int32_t chunkshape[3] = {1, 4, 3}, blockshape[3] = {1, 2, 2};
  uint8_t content[3] = {1, 2, 3};
  blosc2_metalayer meta = {.name = "mine", .content = content, .content_len = 3};
  b2nd_context_t *ctx =
      b2nd_create_ctx(&st, 3, shape, chunkshape, blockshape, "<i2", 0, &meta, 1);
  CHECK(ctx != NULL);
  b2nd_array_t *a = NULL;
  CHECK_EQ(b2nd_zeros(ctx, &a), 0);
  CHECK_STR(a->dtype, "<i2");
  CHECK_EQ(a->sc->nmetalayers, 2);
  CHECK_STR(a->sc->metalayers[0]->name, "b2nd");
  CHECK_STR(a->sc->metalayers[1]->name, "mine");
  CHECK_EQ(a->sc->metalayers[1]->content_len, 3);
  CHECK_MEM(a->sc->metalayers[1]->content, content, 3);
  uint8_t *got = NULL;
  int32_t len = 0;
  CHECK_GE(blosc2_meta_get(a->sc, "mine", &got, &len), 0);
  CHECK_EQ(len, 3);
  free(got);
  /* the b2nd metalayer follows the shape */
  CHECK_EQ(b2nd_resize(a, (int64_t[]){1, 8, 5}, NULL), 0);
  CHECK_GE(blosc2_meta_get(a->sc, "b2nd", &got, &len), 0);
  int8_t ndim;
  int64_t sh[B2ND_MAX_DIM];
  int32_t cs[B2ND_MAX_DIM], bs[B2ND_MAX_DIM];
  char *dtype = NULL;
  int8_t fmt;
  CHECK_GT(b2nd_deserialize_meta(got, len, &ndim, sh, cs, bs, &dtype, &fmt), 0);
  CHECK_EQ(ndim, 3);
  CHECK_EQ(sh[1], 8);
  CHECK_STR(dtype, "<i2");
  free(dtype);
  free(got);
  /* squeezing needs an array with the b2nd metalayer only */
  b2nd_array_t *v = NULL;
  CHECK_EQ(b2nd_squeeze(a, &v), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(b2nd_free(a), 0);
  CHECK_EQ(b2nd_free_ctx(ctx), 0);
}

/* Arrays on frame-backed super-chunks: contiguous in memory, a file, a directory. Changes
 * to an opened file persist. */
static void test_storages(void) {
  const shapes_t s = {3, {9, 7, 5}, {4, 3, 5}, {2, 2, 3}};
  int64_t n = 9 * 7 * 5 * 4;
  uint8_t *d = malloc((size_t)n), *out = malloc((size_t)n);
  fill_pattern(d, n, 5);
  char path[64];
  snprintf(path, sizeof(path), "%s", tmp_path("storage"));
  for (int kind = 0; kind < 3; kind++) {
    rm_rf(path);
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    blosc2_storage st = {.contiguous = kind != 2, .urlpath = kind == 0 ? NULL : path,
                         .cparams = &cp};
    b2nd_context_t *ctx =
        b2nd_create_ctx(&st, s.ndim, s.shape, s.chunkshape, s.blockshape, "<i4", 0, NULL, 0);
    b2nd_array_t *a = NULL;
    CHECK_EQ(b2nd_from_cbuffer(ctx, &a, d, n), 0);
    if (a == NULL) continue;
    check_fields(a, &s, 4);
    CHECK_EQ(b2nd_to_cbuffer(a, out, n), 0);
    CHECK_MEM(out, d, (size_t)n);
    int64_t start[3] = {2, 1, 0}, stop[3] = {5, 6, 3}, sh[3] = {3, 5, 3};
    uint8_t v[180];
    memset(v, 0xC3, sizeof(v));
    CHECK_EQ(b2nd_set_slice_cbuffer(v, sh, 180, start, stop, a), 0);
    CHECK_EQ(b2nd_append(a, d, 7 * 5 * 4, 0), 0);
    const shapes_t s10 = {3, {10, 7, 5}, {4, 3, 5}, {2, 2, 3}};
    check_fields(a, &s10, 4);
    uint8_t *want = malloc((size_t)(n + 140));
    CHECK_EQ(b2nd_to_cbuffer(a, want, n + 140), 0);
    uint8_t *cframe = NULL;
    int64_t len = 0;
    bool needs_free = false;
    CHECK_EQ(b2nd_to_cframe(a, &cframe, &len, &needs_free), 0);
    b2nd_array_t *c = NULL;
    CHECK_EQ(b2nd_from_cframe(cframe, len, true, &c), 0);
    if (needs_free) free(cframe);
    if (c != NULL) {
      uint8_t *o2 = malloc((size_t)(n + 140));
      CHECK_EQ(b2nd_to_cbuffer(c, o2, n + 140), 0);
      CHECK_MEM(o2, want, (size_t)(n + 140));
      free(o2);
      CHECK_EQ(b2nd_free(c), 0);
    }
    CHECK_EQ(b2nd_free(a), 0);
    if (kind > 0) {
      /* reopen: the changes were written to the file */
      a = NULL;
      CHECK_EQ(b2nd_open(path, &a), 0);
      if (a != NULL) {
        check_fields(a, &s10, 4);
        CHECK_STR(a->dtype, "<i4");
        uint8_t *o2 = malloc((size_t)(n + 140));
        CHECK_EQ(b2nd_to_cbuffer(a, o2, n + 140), 0);
        CHECK_MEM(o2, want, (size_t)(n + 140));
        /* change it through the opened array, reopen again */
        CHECK_EQ(b2nd_delete(a, 0, 8, 2), 0);
        CHECK_EQ(b2nd_free(a), 0);
        a = NULL;
        CHECK_EQ(b2nd_open(path, &a), 0);
        if (a != NULL) {
          const shapes_t s8 = {3, {8, 7, 5}, {4, 3, 5}, {2, 2, 3}};
          check_fields(a, &s8, 4);
          CHECK_EQ(b2nd_to_cbuffer(a, o2, 8 * 140), 0);
          CHECK_MEM(o2, want, 8 * 140);
          CHECK_EQ(b2nd_free(a), 0);
        }
        free(o2);
      }
    }
    free(want);
    CHECK_EQ(b2nd_free_ctx(ctx), 0);
    rm_rf(path);
  }
  free(d);
  free(out);
}

static void test_bad_input(void) {
  const shapes_t s = {2, {10, 10}, {4, 4}, {2, 2}};
  blosc2_cparams cp;
  blosc2_storage st;
  b2nd_context_t *ctx = make_ctx(&s, 4, &cp, &st);
  b2nd_array_t *a = NULL;
  CHECK_EQ(b2nd_zeros(ctx, &a), 0);
  uint8_t buf[400];
  int64_t start[2] = {0, 0}, stop[2] = {11, 5}, bshape[2] = {11, 5};
  int64_t stop2[2] = {5, 5}, small[2] = {5, 5};
  CHECK_LT(b2nd_get_slice_cbuffer(a, start, stop2, buf, small, 99), 0);
  CHECK_LT(b2nd_set_slice_cbuffer(buf, small, 99, start, stop2, a), 0);
  CHECK_LT(b2nd_from_cbuffer(ctx, &a, buf, 399), 0);
  CHECK_LT(b2nd_to_cbuffer(a, buf, 399), 0);
  CHECK_LT(b2nd_insert(a, buf, 40, 2, 0), 0);
  CHECK_LT(b2nd_delete(a, 0, 0, 11), 0);
  uint8_t junk[64];
  memset(junk, 0x55, sizeof(junk));
  b2nd_array_t *b = NULL;
  CHECK_LT(b2nd_from_cframe(junk, sizeof(junk), true, &b), 0);
  CHECK_LT(b2nd_open("/nonexistent/dir/x.b2nd", &b), 0);
  /* the array is still fine */
  const shapes_t s1 = s;
  check_fields(a, &s1, 4);
  CHECK_EQ(b2nd_to_cbuffer(a, buf, 400), 0);
  for (int i = 0; i < 400; i++) CHECK_EQ(buf[i], 0);
  /* reading past the shape or with start > stop is accepted, as by the reference (zeros
     outside the shape, an empty slice; c-tests/test_compat.c checks the values) */
  CHECK_EQ(b2nd_get_slice_cbuffer(a, start, stop, buf, bshape, 400), 0);
  int64_t rev_start[2] = {3, 3}, rev_stop[2] = {2, 5};
  CHECK_EQ(b2nd_get_slice_cbuffer(a, rev_start, rev_stop, buf, small, 400), 0);
#ifndef B2RS_REFERENCE_BUG_B2ND_UNCHECKED
  /* writing there is not */
  CHECK_LT(b2nd_set_slice_cbuffer(buf, bshape, 400, start, stop, a), 0);
  CHECK_LT(b2nd_set_slice_cbuffer(buf, small, 400, rev_start, rev_stop, a), 0);
  CHECK_LT(b2nd_free(NULL), 0);
  CHECK_LT(b2nd_zeros(NULL, &b), 0);
  CHECK_LT(b2nd_zeros(ctx, NULL), 0);
  CHECK_LT(b2nd_to_cbuffer(NULL, buf, 400), 0);
  CHECK_LT(b2nd_to_cbuffer(a, NULL, 400), 0);
  CHECK_LT(b2nd_get_slice_cbuffer(a, NULL, stop2, buf, small, 400), 0);
  CHECK_LT(b2nd_resize(a, NULL, NULL), 0);
  CHECK_LT(b2nd_full(ctx, &b, NULL), 0);
  CHECK_LT(b2nd_from_schunk(NULL, &b), 0);
  CHECK_LT(b2nd_open(NULL, &b), 0);
  CHECK_LT(b2nd_print_meta(NULL), 0);
  CHECK_LT(b2nd_refresh(NULL), 0);
#endif
  CHECK_EQ(b2nd_free(a), 0);
  CHECK_EQ(b2nd_free_ctx(ctx), 0);
}

/* What C code reads straight from the structs (sc->data[], sc->nchunks, the metalayers, the
 * array's shape fields) follows every change of an in-memory array, calls that read (and
 * change nothing) in between included. */
static void check_mirrors(b2nd_array_t *a) {
  blosc2_schunk *sc = a->sc;
  int64_t nb = 0;
  for (int64_t i = 0; i < sc->nchunks; i++) {
    uint8_t *lazy = NULL;
    bool nf = false;
    CHECK_GT(blosc2_schunk_get_lazychunk(sc, i, &lazy, &nf), 0);
    CHECK(!nf);
    CHECK(sc->data[i] == lazy);
    int32_t n = 0, c = 0;
    CHECK_EQ(blosc2_cbuffer_sizes(sc->data[i], &n, &c, NULL), 0);
    nb += n;
  }
  CHECK_EQ(nb, sc->nbytes);
  CHECK_STR(sc->metalayers[0]->name, "b2nd");
  int8_t ndim;
  int64_t sh[B2ND_MAX_DIM];
  int32_t cs[B2ND_MAX_DIM], bs[B2ND_MAX_DIM];
  char *dtype = NULL;
  int8_t fmt;
  CHECK_GT(b2nd_deserialize_meta(sc->metalayers[0]->content, sc->metalayers[0]->content_len,
                                 &ndim, sh, cs, bs, &dtype, &fmt), 0);
  free(dtype);
  CHECK_EQ(ndim, a->ndim);
  for (int i = 0; i < ndim; i++) CHECK_EQ(sh[i], a->shape[i]);
}

static void test_mirrors_follow_changes(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, (int64_t[]){0, 6}, (int32_t[]){4, 6},
                                        (int32_t[]){2, 3}, "<i4", DTYPE_NUMPY_FORMAT, NULL, 0);
  b2nd_array_t *a = NULL;
  CHECK_EQ(b2nd_zeros(ctx, &a), 0);
  int32_t row[4 * 6];
  int32_t got[6];
  for (int k = 0; k < 40; k++) {
    for (int i = 0; i < 24; i++) row[i] = k * 100 + i;
    switch (k % 5) {
      case 0: CHECK_EQ(b2nd_append(a, row, 4 * 6 * 4, 0), 0); break;
      case 1: CHECK_EQ(b2nd_insert(a, row, 4 * 6 * 4, 0, 0), 0); break;
      case 2: CHECK_EQ(b2nd_append(a, row, 6 * 4, 0), 0); break;
      case 3: CHECK_EQ(b2nd_delete(a, 0, 0, 4), 0); break;
      case 4: {
        int64_t start[2] = {a->shape[0] / 2, 0}, stop[2] = {a->shape[0] / 2 + 1, 6};
        CHECK_EQ(b2nd_set_slice_cbuffer(row, (int64_t[]){1, 6}, 6 * 4, start, stop, a), 0);
        break;
      }
    }
    check_mirrors(a);
    /* reads change nothing: the mirrors stay right */
    int64_t start[2] = {a->shape[0] - 1, 0}, stop[2] = {a->shape[0], 6};
    CHECK_EQ(b2nd_get_slice_cbuffer(a, start, stop, got, (int64_t[]){1, 6}, sizeof got), 0);
    check_mirrors(a);
  }
  /* a metalayer change through the super-chunk, then a read through the array */
  CHECK_GE(blosc2_meta_add(a->sc, "mine", (uint8_t *)"abc", 3), 0);
  CHECK_EQ(b2nd_get_slice_cbuffer(a, (int64_t[]){0, 0}, (int64_t[]){1, 6}, got, (int64_t[]){1, 6}, sizeof got), 0);
  CHECK_EQ(a->sc->nmetalayers, 2);
  CHECK_STR(a->sc->metalayers[1]->name, "mine");
  CHECK_EQ(b2nd_free(a), 0);
  CHECK_EQ(b2nd_free_ctx(ctx), 0);
}

int main(void) {
  blosc2_init();
  RUN(test_roundtrip);
  RUN(test_constructors);
  RUN(test_shape_changes);
  RUN(test_orthogonal);
  RUN(test_views);
  RUN(test_concatenate);
  RUN(test_from_schunk);
  RUN(test_user_metalayers);
  RUN(test_storages);
  RUN(test_bad_input);
  RUN(test_mirrors_follow_changes);
  blosc2_destroy();
  return TEST_SUMMARY();
}
