/*
 * test_swmr.c - one frame, many handles and processes (issue 29): what one
 * handle or process changes, the others see at their next data access, as in
 * C-Blosc2 3.3.5 (which re-syncs the cached counters, metalayers and chunk
 * index in its data-access functions), for contiguous files and sparse
 * directories:
 *
 *   - a file replaced under an open handle (a new frame moved over the path):
 *     the next reads return the new frame's chunks and counters;
 *   - a stale reader after another handle's update_chunk (a bigger chunk, a
 *     special chunk): decompress, get_chunk and get_lazychunk all see it;
 *   - a stale writer: two handles that each replace a chunk leave both
 *     changes in the file;
 *   - counters and vlmetalayers (new content of another length) followed by
 *     data accesses, and blosc2_schunk_refresh returning 1 then 0;
 *   - a B2ND reader following a writer's b2nd_resize + set_slice, a shrink
 *     and a regrowth, and b2nd_refresh;
 *   - forked writers appending and inserting under blosc2_schunk_lock with
 *     BLOSC_LOCKING=1: every call succeeds and the array holds every writer's
 *     slabs;
 *   - a forked writer rewriting a whole array while a reader reads it under
 *     the lock: the reader never sees a set_slice half applied;
 *   - a sparse chunk file truncated after a handle read the index: the stale
 *     handle's error is the one a fresh handle gives;
 *   - blosc2_remove_urlpath removing the lock sidecar of a contiguous frame.
 *
 * Reference bugs compiled out: B2RS_REFERENCE_BUG_SFRAME_SPECIAL_UPDATE, a
 * sparse frame whose chunk was replaced by a special zero chunk through
 * blosc2_schunk_update_chunk cannot read that chunk back (-15), from any
 * handle (b2rs reads zeros); B2RS_REFERENCE_BUG_SFRAME_TRUNCATED_CHUNK, a
 * truncated chunk file of a sparse frame makes the reference read past its
 * buffer (valgrind: invalid read in blosc2_decompress_ctx) and give -3 on a
 * stale handle, -5 on a fresh one.
 */
#include "b2rs_test.h"

#include "b2nd.h"
#include <sys/stat.h>
#include <sys/wait.h>

#ifdef B2RS_REFERENCE
#define B2RS_REFERENCE_BUG_SFRAME_SPECIAL_UPDATE 1
#define B2RS_REFERENCE_BUG_SFRAME_TRUNCATED_CHUNK 1
#endif

#define N 1000

static char t_paths[8][256];
static int t_next_path = 0;

static const char *tmp_path(const char *name) {
  char *p = t_paths[t_next_path++ % 8];
  snprintf(p, 256, "/tmp/b2rs_test_swmr_%d_%s", (int)getpid(), name);
  return p;
}

static void fill(int32_t *d, int seed) {
  for (int i = 0; i < N; i++) d[i] = seed * 1000 + (i % 13);
}

/* a new frame of `nchunks` chunks at `path`, chunk c holding fill(val * 10 + c) */
static void make_frame(const char *path, bool contiguous, int val, int nchunks) {
  blosc2_remove_urlpath(path);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)path, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  CHECK(sc != NULL);
  if (!sc) return;
  int32_t d[N];
  for (int c = 0; c < nchunks; c++) {
    fill(d, val * 10 + c);
    CHECK_EQ(blosc2_schunk_append_buffer(sc, d, sizeof d), c + 1);
  }
  blosc2_schunk_free(sc);
}

/* the first item of chunk n (or the error code) */
static int32_t first(blosc2_schunk *sc, int64_t n) {
  int32_t d[N];
  int r = blosc2_schunk_decompress_chunk(sc, n, d, sizeof d);
  return r < 0 ? r : d[0];
}

/* the cbytes the stored chunk n declares, through get_chunk or get_lazychunk */
static int32_t stored_cbytes(blosc2_schunk *sc, int64_t n, bool lazy) {
  uint8_t *c = NULL;
  bool nf = false;
  int r = lazy ? blosc2_schunk_get_lazychunk(sc, n, &c, &nf)
               : blosc2_schunk_get_chunk(sc, n, &c, &nf);
  if (r < 0) return r;
  int32_t nb = 0, cb = 0;
  CHECK_EQ(blosc2_cbuffer_sizes(c, &nb, &cb, NULL), 0);
  if (nf) free(c);
  return cb;
}

static void check_replaced_file(bool contiguous) {
  const char *f = tmp_path(contiguous ? "replaced.b2frame" : "replaced.dir");
  const char *t = tmp_path(contiguous ? "replaced.tmp" : "replaced.dirtmp");
  make_frame(f, contiguous, 1, 3);
  blosc2_schunk *r = blosc2_schunk_open(f);
  CHECK(r != NULL);
  if (!r) return;
  CHECK_EQ(first(r, 0), 10000);
  CHECK_EQ(first(r, 2), 12000);
  /* another program writes a new frame and moves it over the path */
  make_frame(t, contiguous, 2, 4);
  if (contiguous) {
    CHECK_EQ(unlink(f), 0);
  } else {
    CHECK_EQ(blosc2_remove_urlpath(f), 0);
  }
  CHECK_EQ(rename(t, f), 0);
  CHECK_EQ(first(r, 0), 20000);
  CHECK_EQ(r->nchunks, 4);
  CHECK_EQ(r->nbytes, 4 * N * 4);
  CHECK_EQ(first(r, 2), 22000);
  CHECK_EQ(first(r, 3), 23000);
  CHECK_GT(stored_cbytes(r, 3, false), 0);
  CHECK_EQ(stored_cbytes(r, 3, true), stored_cbytes(r, 3, false));
  blosc2_schunk_free(r);
  blosc2_remove_urlpath(f);
}

static void test_replaced_file_contiguous(void) { check_replaced_file(true); }
static void test_replaced_file_sparse(void) { check_replaced_file(false); }

static void check_stale_handles(bool contiguous) {
  const char *f = tmp_path(contiguous ? "stale.b2frame" : "stale.dir");
  make_frame(f, contiguous, 1, 3);
  blosc2_schunk *h1 = blosc2_schunk_open(f), *h2 = blosc2_schunk_open(f);
  CHECK(h1 != NULL && h2 != NULL);
  if (!h1 || !h2) return;
  CHECK_EQ(first(h2, 1), 11000);
  int32_t small = stored_cbytes(h2, 1, false);
  /* h1 replaces chunk 1 with a bigger one */
  int32_t d[N];
  for (int i = 0; i < N; i++) d[i] = 5000 + i * 7919;
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  uint8_t c[N * 4 + BLOSC2_MAX_OVERHEAD];
  int cs = blosc2_compress_ctx(cctx, d, sizeof d, c, sizeof c);
  CHECK_GT(cs, small);
  CHECK_EQ(blosc2_schunk_update_chunk(h1, 1, c, true), 3);
  /* every entry point of h2 sees it */
  CHECK_EQ(first(h2, 1), 5000);
  CHECK_EQ(stored_cbytes(h2, 1, false), cs);
  CHECK_EQ(stored_cbytes(h2, 1, true), cs);
  /* a special chunk */
  uint8_t z[BLOSC_EXTENDED_HEADER_LENGTH];
  CHECK_EQ(blosc2_chunk_zeros(cp, sizeof d, z, sizeof z), BLOSC_EXTENDED_HEADER_LENGTH);
  CHECK_EQ(blosc2_schunk_update_chunk(h1, 2, z, true), 3);
#ifndef B2RS_REFERENCE_BUG_SFRAME_SPECIAL_UPDATE
  CHECK_EQ(first(h2, 2), 0);
  CHECK_EQ(stored_cbytes(h2, 2, false), BLOSC_EXTENDED_HEADER_LENGTH);
#else
  if (contiguous) {
    CHECK_EQ(first(h2, 2), 0);
    CHECK_EQ(stored_cbytes(h2, 2, false), BLOSC_EXTENDED_HEADER_LENGTH);
  }
#endif
  /* a stale writer: h2 replaces chunk 0 after h1's changes; both stay */
  for (int i = 0; i < N; i++) d[i] = 7000 + i;
  cs = blosc2_compress_ctx(cctx, d, sizeof d, c, sizeof c);
  CHECK_EQ(blosc2_schunk_update_chunk(h2, 0, c, true), 3);
  blosc2_free_ctx(cctx);
  blosc2_schunk_free(h1);
  blosc2_schunk_free(h2);
  blosc2_schunk *h3 = blosc2_schunk_open(f);
  CHECK(h3 != NULL);
  if (!h3) return;
  CHECK_EQ(h3->nchunks, 3);
  CHECK_EQ(first(h3, 0), 7000);
  CHECK_EQ(first(h3, 1), 5000);
#ifndef B2RS_REFERENCE_BUG_SFRAME_SPECIAL_UPDATE
  CHECK_EQ(first(h3, 2), 0);
#else
  if (contiguous) CHECK_EQ(first(h3, 2), 0);
#endif
  blosc2_schunk_free(h3);
  blosc2_remove_urlpath(f);
}

static void test_stale_handles_contiguous(void) { check_stale_handles(true); }
static void test_stale_handles_sparse(void) { check_stale_handles(false); }

static void check_counters_follow(bool contiguous) {
  const char *f = tmp_path(contiguous ? "count.b2frame" : "count.dir");
  make_frame(f, contiguous, 1, 3);
  blosc2_schunk *h1 = blosc2_schunk_open(f), *h2 = blosc2_schunk_open(f);
  CHECK(h1 != NULL && h2 != NULL);
  if (!h1 || !h2) return;
  /* vlmetalayers, new content of another length */
  CHECK_EQ(blosc2_vlmeta_add(h1, "info", (uint8_t *)"abc", 3, NULL), 0);
  uint8_t *content = NULL;
  int32_t len = 0;
  CHECK_GE(blosc2_vlmeta_get(h2, "info", &content, &len), 0);
  CHECK_EQ(len, 3);
  free(content);
  CHECK_EQ(blosc2_vlmeta_update(h1, "info", (uint8_t *)"abcdefgh", 8, NULL), 0);
  CHECK_GE(blosc2_vlmeta_get(h2, "info", &content, &len), 0);
  CHECK_EQ(len, 8);
  if (len == 8) CHECK_MEM(content, "abcdefgh", 8);
  free(content);
  CHECK_EQ(h2->nvlmetalayers, 1);
  /* counters after a data access */
  int32_t d[N];
  fill(d, 99);
  CHECK_EQ(blosc2_schunk_append_buffer(h1, d, sizeof d), 4);
  CHECK_EQ(h2->nchunks, 3);
  CHECK_EQ(first(h2, 0), 10000);
  CHECK_EQ(h2->nchunks, 4);
  CHECK_EQ(first(h2, 3), 99000);
  /* and after an explicit refresh */
  CHECK_EQ(blosc2_schunk_append_buffer(h1, d, sizeof d), 5);
  CHECK_EQ(blosc2_schunk_refresh(h2), 1);
  CHECK_EQ(h2->nchunks, 5);
  CHECK_EQ(h2->nbytes, 5 * N * 4);
  CHECK_EQ(blosc2_schunk_refresh(h2), 0);
  blosc2_schunk_free(h1);
  blosc2_schunk_free(h2);
  blosc2_remove_urlpath(f);
}

static void test_counters_follow_contiguous(void) { check_counters_follow(true); }
static void test_counters_follow_sparse(void) { check_counters_follow(false); }

static void check_b2nd_growth(bool contiguous) {
  const char *f = tmp_path(contiguous ? "grow.b2nd" : "grow.dir");
  blosc2_remove_urlpath(f);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)f, .cparams = &cp};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, (int64_t[]){10, 8}, (int32_t[]){4, 8},
                                        (int32_t[]){2, 4}, "<i4", DTYPE_NUMPY_FORMAT, NULL, 0);
  int32_t d[20 * 8];
  for (int i = 0; i < 160; i++) d[i] = i;
  b2nd_array_t *w = NULL, *r = NULL;
  CHECK_EQ(b2nd_from_cbuffer(ctx, &w, d, 10 * 8 * 4), 0);
  CHECK_EQ(b2nd_open(f, &r), 0);
  if (!w || !r) return;
  int32_t v[8];
  CHECK_EQ(b2nd_get_slice_cbuffer(r, (int64_t[]){9, 0}, (int64_t[]){10, 8}, v,
                                  (int64_t[]){1, 8}, sizeof v), 0);
  CHECK_EQ(v[0], 72);
  /* the writer grows the array and fills the new rows */
  CHECK_EQ(b2nd_resize(w, (int64_t[]){20, 8}, NULL), 0);
  for (int i = 0; i < 80; i++) d[i] = 1000 + i;
  CHECK_EQ(b2nd_set_slice_cbuffer(d, (int64_t[]){10, 8}, 10 * 8 * 4, (int64_t[]){10, 0},
                                  (int64_t[]){20, 8}, w), 0);
  CHECK_EQ(r->shape[0], 10);
  CHECK_EQ(b2nd_get_slice_cbuffer(r, (int64_t[]){15, 0}, (int64_t[]){16, 8}, v,
                                  (int64_t[]){1, 8}, sizeof v), 0);
  CHECK_EQ(v[0], 1040);
  CHECK_EQ(r->shape[0], 20);
  CHECK_EQ(r->nitems, 160);
  /* a shrink, seen by an explicit refresh */
  CHECK_EQ(b2nd_resize(w, (int64_t[]){3, 8}, NULL), 0);
  CHECK_EQ(b2nd_refresh(r), 1);
  CHECK_EQ(r->shape[0], 3);
  CHECK_EQ(b2nd_refresh(r), 0);
  /* a regrowth, then a read within the new bounds */
  CHECK_EQ(b2nd_resize(w, (int64_t[]){6, 8}, NULL), 0);
  CHECK_EQ(b2nd_get_slice_cbuffer(r, (int64_t[]){2, 0}, (int64_t[]){3, 8}, v,
                                  (int64_t[]){1, 8}, sizeof v), 0);
  CHECK_EQ(v[0], 16);
  CHECK_EQ(r->shape[0], 6);
  CHECK_EQ(b2nd_refresh(r), 0);
  b2nd_free(w);
  b2nd_free(r);
  b2nd_free_ctx(ctx);
  blosc2_remove_urlpath(f);
}

static void test_b2nd_growth_contiguous(void) { check_b2nd_growth(true); }
static void test_b2nd_growth_sparse(void) { check_b2nd_growth(false); }

/* Forked writers append and insert 4-row slabs under the lock. */
static void check_locked_writers(bool contiguous) {
  const char *f = tmp_path(contiguous ? "writers.b2nd" : "writers.dir");
  blosc2_remove_urlpath(f);
  setenv("BLOSC_LOCKING", "1", 1);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)f, .cparams = &cp};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, (int64_t[]){4, 8}, (int32_t[]){4, 8},
                                        (int32_t[]){2, 4}, "<i4", DTYPE_NUMPY_FORMAT, NULL, 0);
  b2nd_array_t *a = NULL;
  CHECK_EQ(b2nd_zeros(ctx, &a), 0);
  b2nd_free(a);
  enum { NW = 4, NI = 8 };
  pid_t pids[NW];
  for (int w = 0; w < NW; w++) {
    pids[w] = fork();
    if (pids[w] == 0) {
      b2nd_array_t *x = NULL;
      if (b2nd_open(f, &x) < 0) _exit(2);
      int32_t slab[4 * 8];
      for (int i = 0; i < 32; i++) slab[i] = w + 1;
      int fails = 0;
      for (int k = 0; k < NI; k++) {
        if (blosc2_schunk_lock(x->sc) < 0) fails++;
        int rc = k % 2 ? b2nd_insert(x, slab, sizeof slab, 0, 0)
                       : b2nd_append(x, slab, sizeof slab, 0);
        if (rc < 0) fails++;
        if (blosc2_schunk_unlock(x->sc) < 0) fails++;
      }
      b2nd_free(x);
      _exit(fails ? 1 : 0);
    }
  }
  for (int w = 0; w < NW; w++) {
    int s = 0;
    CHECK_EQ(waitpid(pids[w], &s, 0), pids[w]);
    CHECK(WIFEXITED(s) && WEXITSTATUS(s) == 0);
  }
  CHECK_EQ(b2nd_open(f, &a), 0);
  if (a) {
    CHECK_EQ(a->shape[0], 4 + NW * NI * 4);
    int64_t rows = a->shape[0];
    int32_t *all = malloc(rows * 8 * 4);
    CHECK_EQ(b2nd_to_cbuffer(a, all, rows * 8 * 4), 0);
    int count[NW + 1] = {0};
    for (int64_t i = 0; i < rows * 8; i++) {
      if (all[i] >= 0 && all[i] <= NW) count[all[i]]++;
    }
    CHECK_EQ(count[0], 4 * 8);
    for (int w = 1; w <= NW; w++) CHECK_EQ(count[w], NI * 4 * 8);
    free(all);
    b2nd_free(a);
  }
  b2nd_free_ctx(ctx);
  blosc2_remove_urlpath(f);
  unsetenv("BLOSC_LOCKING");
}

static void test_locked_writers_contiguous(void) { check_locked_writers(true); }
static void test_locked_writers_sparse(void) { check_locked_writers(false); }

/* A forked writer rewrites the whole array (10 chunks) again and again while a
   reader reads it under the lock: every read sees one write whole. */
static void check_whole_writes(bool contiguous) {
  const char *f = tmp_path(contiguous ? "whole.b2nd" : "whole.dir");
  blosc2_remove_urlpath(f);
  setenv("BLOSC_LOCKING", "1", 1);
  enum { R = 40, C = 64 };
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)f, .cparams = &cp};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, (int64_t[]){R, C}, (int32_t[]){4, C},
                                        (int32_t[]){2, C}, "<i4", DTYPE_NUMPY_FORMAT, NULL, 0);
  b2nd_array_t *a = NULL;
  CHECK_EQ(b2nd_zeros(ctx, &a), 0);
  b2nd_free(a);
  pid_t pw = fork();
  if (pw == 0) {
    b2nd_array_t *x = NULL;
    if (b2nd_open(f, &x) < 0) _exit(2);
    int32_t *d = malloc(R * C * 4);
    for (int k = 1; k <= 150; k++) {
      for (int i = 0; i < R * C; i++) d[i] = k;
      if (b2nd_set_slice_cbuffer(d, (int64_t[]){R, C}, R * C * 4, (int64_t[]){0, 0},
                                 (int64_t[]){R, C}, x) < 0)
        _exit(3);
    }
    free(d);
    b2nd_free(x);
    _exit(0);
  }
  b2nd_array_t *r = NULL;
  CHECK_EQ(b2nd_open(f, &r), 0);
  int32_t *d = malloc(R * C * 4);
  int torn = 0, errors = 0;
  for (int it = 0; it < 200 && r; it++) {
    CHECK_EQ(blosc2_schunk_lock(r->sc), 0);
    int rc = b2nd_get_slice_cbuffer(r, (int64_t[]){0, 0}, (int64_t[]){R, C}, d,
                                    (int64_t[]){R, C}, R * C * 4);
    CHECK_EQ(blosc2_schunk_unlock(r->sc), 0);
    if (rc < 0) {
      errors++;
      continue;
    }
    for (int i = 1; i < R * C; i++) {
      if (d[i] != d[0]) {
        torn++;
        break;
      }
    }
  }
  int s = 0;
  CHECK_EQ(waitpid(pw, &s, 0), pw);
  CHECK(WIFEXITED(s) && WEXITSTATUS(s) == 0);
  CHECK_EQ(torn, 0);
  CHECK_EQ(errors, 0);
  /* after the writer: its last write, whole */
  if (r) {
    CHECK_EQ(b2nd_get_slice_cbuffer(r, (int64_t[]){0, 0}, (int64_t[]){R, C}, d,
                                    (int64_t[]){R, C}, R * C * 4), 0);
    CHECK_EQ(d[0], 150);
    CHECK_EQ(d[R * C - 1], 150);
    b2nd_free(r);
  }
  free(d);
  b2nd_free_ctx(ctx);
  blosc2_remove_urlpath(f);
  unsetenv("BLOSC_LOCKING");
}

static void test_whole_writes_contiguous(void) { check_whole_writes(true); }
static void test_whole_writes_sparse(void) { check_whole_writes(false); }

/* A chunk file of a sparse frame truncated behind the library's back after a
   handle read the index: the stale handle gives a clean error, the one a fresh
   handle gives. */
static void test_damaged_chunk_file(void) {
#ifndef B2RS_REFERENCE_BUG_SFRAME_TRUNCATED_CHUNK
  const char *f = tmp_path("damaged.dir");
  make_frame(f, false, 1, 3);
  blosc2_schunk *r = blosc2_schunk_open(f);
  CHECK(r != NULL);
  if (!r) return;
  CHECK_EQ(first(r, 1), 11000);
  char chunk[300];
  snprintf(chunk, sizeof chunk, "%s/00000001.chunk", f);
  CHECK_EQ(truncate(chunk, 20), 0);
  int32_t stale = first(r, 1);
  CHECK_LT(stale, 0);
  blosc2_schunk *fresh = blosc2_schunk_open(f);
  CHECK(fresh != NULL);
  if (fresh) {
    int32_t again = first(fresh, 1);
    CHECK_LT(again, 0);
#ifndef B2RS_REFERENCE
    CHECK_EQ(stale, again);
#endif
    CHECK_EQ(first(fresh, 2), 12000);
    blosc2_schunk_free(fresh);
  }
  /* the other chunks still read */
  CHECK_EQ(first(r, 0), 10000);
  blosc2_schunk_free(r);
  blosc2_remove_urlpath(f);
#endif
}

static void test_remove_sidecar(void) {
  const char *f = tmp_path("sidecar.b2frame");
  char lock[300];
  snprintf(lock, sizeof lock, "%s.b2lock", f);
  setenv("BLOSC_LOCKING", "1", 1);
  make_frame(f, true, 1, 2);
  blosc2_schunk *sc = blosc2_schunk_open(f);
  CHECK(sc != NULL);
  CHECK_EQ(first(sc, 1), 11000);
  blosc2_schunk_free(sc);
  struct stat sb;
  CHECK_EQ(stat(lock, &sb), 0);
  CHECK_EQ(blosc2_remove_urlpath(f), 0);
  CHECK_EQ(stat(f, &sb), -1);
  CHECK_EQ(stat(lock, &sb), -1);
  unsetenv("BLOSC_LOCKING");
}

int main(void) {
  blosc2_init();
  RUN(test_replaced_file_contiguous);
  RUN(test_replaced_file_sparse);
  RUN(test_stale_handles_contiguous);
  RUN(test_stale_handles_sparse);
  RUN(test_counters_follow_contiguous);
  RUN(test_counters_follow_sparse);
  RUN(test_b2nd_growth_contiguous);
  RUN(test_b2nd_growth_sparse);
  RUN(test_locked_writers_contiguous);
  RUN(test_locked_writers_sparse);
  RUN(test_whole_writes_contiguous);
  RUN(test_whole_writes_sparse);
  RUN(test_damaged_chunk_file);
  RUN(test_remove_sidecar);
  blosc2_destroy();
  return TEST_SUMMARY();
}
