/*
 * test_concurrency.c - the library used from several application threads at
 * once (issue 9), with exact results:
 *
 *   - many pthreads compressing and decompressing with their own contexts,
 *     every chunk byte-identical to the one made before by a single thread;
 *   - concurrent readers of one super-chunk (in-memory sparse, in-memory
 *     frame, frame file): blosc2_schunk_get_chunk / get_lazychunk and a
 *     decompression context per thread;
 *   - concurrent readers of one b2nd array through per-thread handles
 *     (b2nd_from_cframe of one shared cframe, b2nd_open of one file);
 *   - blosc2_set_nthreads changed again and again while other threads work
 *     with their own contexts;
 *   - the global blosc1_* / blosc2_compress API from several threads;
 *   - fork() after the thread pools (contexts and global) have run, then
 *     compressing in the child.
 *
 * What is not thread-safe (in the reference C-Blosc2 3.3.5, and in b2rs,
 * which keeps its contract): calls that go through a super-chunk's own
 * contexts (blosc2_schunk_decompress_chunk, b2nd_get_slice_cbuffer and the
 * other b2nd functions on one array handle: the reference uses
 * schunk->dctx, b2rs refreshes the handle's C-visible fields), anything that
 * modifies a super-chunk, blosc1_set_compressor & co. while others compress,
 * and frame locking (BLOSC_LOCKING) on one handle from several threads.
 * Those are not called concurrently here.
 */
#include "b2rs_test.h"

#include "b2nd.h"
#include <pthread.h>

#define NTHREADS 6

/* ------------------------------------------------------------------ */
/* own contexts                                                         */
/* ------------------------------------------------------------------ */

#define OWN_N 120000
#define OWN_CASES 6

typedef struct {
  int id;
  const uint8_t *src;
  const uint8_t *expected[OWN_CASES];
  int expected_len[OWN_CASES];
  int failures;
} own_arg;

/* The chunk made with `nthreads` is the expected one (made with 1 thread):
   identical bytes with 1 thread; with more, the same size and header (the
   reference stores the blocks in the order the threads finish them, see
   test_threads.c) and the caller checks that it decodes exactly. */
static int same_chunk(const uint8_t *c, int cb, const uint8_t *expected, int expected_len,
                      int nthreads) {
  if (cb != expected_len || cb < BLOSC_EXTENDED_HEADER_LENGTH) return 0;
  size_t n = nthreads == 1 ? (size_t)cb : BLOSC_EXTENDED_HEADER_LENGTH;
  return memcmp(c, expected, n) == 0;
}

static blosc2_cparams own_cparams(int c) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)ALL_CODECS[c % N_ALL_CODECS];
  cp.clevel = (uint8_t)(1 + c % 9);
  cp.typesize = 4;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = (uint8_t)(c % 3);
  if (c == 5) cp.filters[BLOSC2_MAX_FILTERS - 2] = BLOSC_DELTA;
  return cp;
}

static void *own_worker(void *p) {
  own_arg *w = (own_arg *)p;
  uint8_t *dst = malloc(OWN_N + BLOSC2_MAX_OVERHEAD);
  uint8_t *out = malloc(OWN_N);
  for (int it = 0; it < 4; it++) {
    int c = (w->id + it) % OWN_CASES;
    blosc2_cparams cp = own_cparams(c);
    cp.nthreads = (int16_t)(1 + (w->id + it) % 3);
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = (int16_t)(1 + it % 2);
    blosc2_context *cctx = blosc2_create_cctx(cp);
    blosc2_context *dctx = blosc2_create_dctx(dp);
    int cb = blosc2_compress_ctx(cctx, w->src, OWN_N, dst, OWN_N + BLOSC2_MAX_OVERHEAD);
    if (!same_chunk(dst, cb, w->expected[c], w->expected_len[c], cp.nthreads)) w->failures++;
    memset(out, 0, OWN_N);
    if (blosc2_decompress_ctx(dctx, dst, cb, out, OWN_N) != OWN_N || memcmp(out, w->src, OWN_N) != 0)
      w->failures++;
    int32_t items[16];
    if (blosc2_getitem_ctx(dctx, dst, cb, 1000 + w->id, 16, items, sizeof(items)) != 64 ||
        memcmp(items, w->src + 4 * (1000 + w->id), 64) != 0)
      w->failures++;
    blosc2_free_ctx(cctx);
    blosc2_free_ctx(dctx);
  }
  free(dst);
  free(out);
  return NULL;
}

static void test_own_contexts(void) {
  uint8_t *src = malloc(OWN_N);
  fill_mixed(src, OWN_N, 11);
  own_arg args[NTHREADS];
  uint8_t *expected[OWN_CASES];
  int expected_len[OWN_CASES];
  for (int c = 0; c < OWN_CASES; c++) {
    expected_len[c] = compress_with(own_cparams(c), src, OWN_N, &expected[c]);
    CHECK_GT(expected_len[c], 0);
  }
  pthread_t th[NTHREADS];
  for (int i = 0; i < NTHREADS; i++) {
    args[i].id = i;
    args[i].src = src;
    args[i].failures = 0;
    for (int c = 0; c < OWN_CASES; c++) {
      args[i].expected[c] = expected[c];
      args[i].expected_len[c] = expected_len[c];
    }
    CHECK_EQ(pthread_create(&th[i], NULL, own_worker, &args[i]), 0);
  }
  for (int i = 0; i < NTHREADS; i++) {
    pthread_join(th[i], NULL);
    CHECK_EQ(args[i].failures, 0);
  }
  for (int c = 0; c < OWN_CASES; c++) free(expected[c]);
  free(src);
}

/* ------------------------------------------------------------------ */
/* readers of one super-chunk                                           */
/* ------------------------------------------------------------------ */

#define SC_NCHUNKS 12
#define SC_CHUNK 20000 /* bytes */

typedef struct {
  int id;
  blosc2_schunk *sc;
  const uint8_t *data; /* SC_NCHUNKS * SC_CHUNK bytes */
  bool lazy;
  int failures;
} reader_arg;

static void *reader_worker(void *p) {
  reader_arg *w = (reader_arg *)p;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)(1 + w->id % 2);
  blosc2_context *dctx = blosc2_create_dctx(dp);
  uint8_t *out = malloc(SC_CHUNK);
  for (int round = 0; round < 3; round++) {
    for (int k = 0; k < SC_NCHUNKS; k++) {
      int n = (k + w->id * 5) % SC_NCHUNKS;
      uint8_t *chunk = NULL;
      bool needs_free = false;
      int cb = w->lazy ? blosc2_schunk_get_lazychunk(w->sc, n, &chunk, &needs_free)
                       : blosc2_schunk_get_chunk(w->sc, n, &chunk, &needs_free);
      if (cb <= 0) {
        w->failures++;
        continue;
      }
      memset(out, 0, SC_CHUNK);
      int d = blosc2_decompress_ctx(dctx, chunk, cb, out, SC_CHUNK);
      if (d != SC_CHUNK || memcmp(out, w->data + (size_t)n * SC_CHUNK, SC_CHUNK) != 0) w->failures++;
      if (needs_free) free(chunk);
    }
  }
  free(out);
  blosc2_free_ctx(dctx);
  return NULL;
}

static void run_readers(blosc2_schunk *sc, const uint8_t *data, bool lazy) {
  /* one read first: the reference caches a frame file's chunk offsets on
     first use (not thread-safe) */
  uint8_t *chunk;
  bool needs_free;
  int cb = blosc2_schunk_get_chunk(sc, 0, &chunk, &needs_free);
  CHECK_GT(cb, 0);
  if (cb > 0 && needs_free) free(chunk);
  pthread_t th[NTHREADS];
  reader_arg args[NTHREADS];
  for (int i = 0; i < NTHREADS; i++) {
    args[i].id = i;
    args[i].sc = sc;
    args[i].data = data;
    args[i].lazy = lazy;
    args[i].failures = 0;
    CHECK_EQ(pthread_create(&th[i], NULL, reader_worker, &args[i]), 0);
  }
  for (int i = 0; i < NTHREADS; i++) {
    pthread_join(th[i], NULL);
    CHECK_EQ(args[i].failures, 0);
  }
}

static blosc2_schunk *make_schunk(blosc2_storage *st, const uint8_t *data) {
  blosc2_schunk *sc = blosc2_schunk_new(st);
  CHECK(sc != NULL);
  if (sc == NULL) return NULL;
  for (int k = 0; k < SC_NCHUNKS; k++) {
    CHECK_EQ(blosc2_schunk_append_buffer(sc, data + (size_t)k * SC_CHUNK, SC_CHUNK), k + 1);
  }
  return sc;
}

static void test_schunk_readers(void) {
  uint8_t *data = malloc((size_t)SC_NCHUNKS * SC_CHUNK);
  fill_mixed(data, (size_t)SC_NCHUNKS * SC_CHUNK, 23);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.compcode = BLOSC_LZ4;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;

  /* in-memory, sparse */
  blosc2_storage st = {.contiguous = false, .cparams = &cp, .dparams = &dp};
  blosc2_schunk *sc = make_schunk(&st, data);
  if (sc) {
    run_readers(sc, data, false);
    run_readers(sc, data, true);
    blosc2_schunk_free(sc);
  }

  /* in-memory frame */
  st.contiguous = true;
  sc = make_schunk(&st, data);
  if (sc) {
    run_readers(sc, data, false);
    run_readers(sc, data, true);
    /* and a frame opened from that frame's buffer */
    uint8_t *cframe;
    bool needs_free;
    int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
    CHECK_GT(len, 0);
    if (len > 0) {
      blosc2_schunk *sc2 = blosc2_schunk_from_buffer(cframe, len, true);
      CHECK(sc2 != NULL);
      if (sc2) {
        run_readers(sc2, data, false);
        blosc2_schunk_free(sc2);
      }
      if (needs_free) free(cframe);
    }
    blosc2_schunk_free(sc);
  }

  /* frame file (get_chunk hands out copies read from the file) */
  const char *path = "test_concurrency_readers.b2frame";
  blosc2_remove_urlpath(path);
  st.urlpath = (char *)path;
  sc = make_schunk(&st, data);
  if (sc) {
    blosc2_schunk_free(sc);
    sc = blosc2_schunk_open(path);
    CHECK(sc != NULL);
    if (sc) {
      run_readers(sc, data, false);
      blosc2_schunk_free(sc);
    }
  }
  blosc2_remove_urlpath(path);
  free(data);
}

/* ------------------------------------------------------------------ */
/* readers of one b2nd array (one handle per thread)                    */
/* ------------------------------------------------------------------ */

#define ND_N0 60
#define ND_N1 50

typedef struct {
  int id;
  uint8_t *cframe; /* shared, read-only */
  int64_t cframe_len;
  const char *path; /* or a file */
  const int32_t *data;
  int failures;
} nd_arg;

static void *nd_worker(void *p) {
  nd_arg *w = (nd_arg *)p;
  b2nd_array_t *arr = NULL;
  int rc = w->path ? b2nd_open(w->path, &arr) : b2nd_from_cframe(w->cframe, w->cframe_len, true, &arr);
  if (rc != 0 || arr == NULL) {
    w->failures++;
    return NULL;
  }
  int32_t buf[20 * 20];
  for (int round = 0; round < 6; round++) {
    int64_t start[2] = {(w->id * 7 + round * 11) % (ND_N0 - 20), (w->id * 3 + round * 13) % (ND_N1 - 20)};
    int64_t stop[2] = {start[0] + 20, start[1] + 20};
    int64_t bshape[2] = {20, 20};
    memset(buf, 0, sizeof(buf));
    if (b2nd_get_slice_cbuffer(arr, start, stop, buf, bshape, sizeof(buf)) != 0) {
      w->failures++;
      continue;
    }
    for (int i = 0; i < 20; i++) {
      for (int j = 0; j < 20; j++) {
        if (buf[i * 20 + j] != w->data[(start[0] + i) * ND_N1 + start[1] + j]) {
          w->failures++;
          i = 20;
          break;
        }
      }
    }
  }
  b2nd_free(arr);
  return NULL;
}

static void run_nd_readers(uint8_t *cframe, int64_t len, const char *path, const int32_t *data) {
  pthread_t th[NTHREADS];
  nd_arg args[NTHREADS];
  for (int i = 0; i < NTHREADS; i++) {
    args[i].id = i;
    args[i].cframe = cframe;
    args[i].cframe_len = len;
    args[i].path = path;
    args[i].data = data;
    args[i].failures = 0;
    CHECK_EQ(pthread_create(&th[i], NULL, nd_worker, &args[i]), 0);
  }
  for (int i = 0; i < NTHREADS; i++) {
    pthread_join(th[i], NULL);
    CHECK_EQ(args[i].failures, 0);
  }
}

static void test_b2nd_readers(void) {
  int32_t *data = malloc(sizeof(int32_t) * ND_N0 * ND_N1);
  for (int i = 0; i < ND_N0 * ND_N1; i++) data[i] = i * 7 - 1000;
  int64_t shape[2] = {ND_N0, ND_N1};
  int32_t chunkshape[2] = {16, 16};
  int32_t blockshape[2] = {8, 8};
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  const char *path = "test_concurrency.b2nd";
  blosc2_remove_urlpath(path);
  for (int on_disk = 0; on_disk <= 1; on_disk++) {
    blosc2_storage st = {.contiguous = true, .cparams = &cp, .dparams = &dp};
    if (on_disk) st.urlpath = (char *)path;
    b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, chunkshape, blockshape, NULL, 0, NULL, 0);
    CHECK(ctx != NULL);
    if (ctx == NULL) continue;
    b2nd_array_t *arr = NULL;
    CHECK_EQ(b2nd_from_cbuffer(ctx, &arr, data, (int64_t)sizeof(int32_t) * ND_N0 * ND_N1), 0);
    if (arr != NULL) {
      if (on_disk) {
        b2nd_free(arr);
        run_nd_readers(NULL, 0, path, data);
      } else {
        uint8_t *cframe;
        int64_t len;
        bool needs_free;
        CHECK_EQ(b2nd_to_cframe(arr, &cframe, &len, &needs_free), 0);
        run_nd_readers(cframe, len, NULL, data);
        if (needs_free) free(cframe);
        b2nd_free(arr);
      }
    }
    b2nd_free_ctx(ctx);
  }
  blosc2_remove_urlpath(path);
  free(data);
}

/* ------------------------------------------------------------------ */
/* blosc2_set_nthreads while others work                                */
/* ------------------------------------------------------------------ */

static volatile int stop_flag = 0;

static void *nthreads_toggler(void *p) {
  (void)p;
  int16_t n = 1;
  while (!__atomic_load_n(&stop_flag, __ATOMIC_ACQUIRE)) {
    blosc2_set_nthreads(n);
    n = (int16_t)(n % 4 + 1);
    sched_yield();
  }
  blosc2_set_nthreads(1);
  return NULL;
}

static void test_set_nthreads_while_working(void) {
  uint8_t *src = malloc(OWN_N);
  fill_mixed(src, OWN_N, 31);
  own_arg args[NTHREADS];
  uint8_t *expected[OWN_CASES];
  int expected_len[OWN_CASES];
  for (int c = 0; c < OWN_CASES; c++) {
    expected_len[c] = compress_with(own_cparams(c), src, OWN_N, &expected[c]);
    CHECK_GT(expected_len[c], 0);
  }
  stop_flag = 0;
  pthread_t tog;
  CHECK_EQ(pthread_create(&tog, NULL, nthreads_toggler, NULL), 0);
  pthread_t th[NTHREADS];
  for (int i = 0; i < NTHREADS; i++) {
    args[i].id = i;
    args[i].src = src;
    args[i].failures = 0;
    for (int c = 0; c < OWN_CASES; c++) {
      args[i].expected[c] = expected[c];
      args[i].expected_len[c] = expected_len[c];
    }
    CHECK_EQ(pthread_create(&th[i], NULL, own_worker, &args[i]), 0);
  }
  for (int i = 0; i < NTHREADS; i++) {
    pthread_join(th[i], NULL);
    CHECK_EQ(args[i].failures, 0);
  }
  __atomic_store_n(&stop_flag, 1, __ATOMIC_RELEASE);
  pthread_join(tog, NULL);
  CHECK_EQ(blosc2_get_nthreads(), 1);
  for (int c = 0; c < OWN_CASES; c++) free(expected[c]);
  free(src);
}

/* ------------------------------------------------------------------ */
/* the global API from several threads                                  */
/* ------------------------------------------------------------------ */

#define GL_N 100000

typedef struct {
  int id;
  int nthreads; /* the global thread count */
  const uint8_t *src;
  const uint8_t *expected1; /* blosc1_compress result */
  int expected1_len;
  const uint8_t *expected2; /* blosc2_compress result */
  int expected2_len;
  int failures;
} gl_arg;

static void *gl_worker(void *p) {
  gl_arg *w = (gl_arg *)p;
  uint8_t *dst = malloc(GL_N + BLOSC2_MAX_OVERHEAD);
  uint8_t *out = malloc(GL_N);
  for (int it = 0; it < 6; it++) {
    int cb;
    if ((w->id + it) % 2 == 0) {
      cb = blosc1_compress(5, BLOSC_SHUFFLE, 4, GL_N, w->src, dst, GL_N + BLOSC2_MAX_OVERHEAD);
      if (!same_chunk(dst, cb, w->expected1, w->expected1_len, w->nthreads)) w->failures++;
    } else {
      cb = blosc2_compress(5, BLOSC_SHUFFLE, 4, w->src, GL_N, dst, GL_N + BLOSC2_MAX_OVERHEAD);
      if (!same_chunk(dst, cb, w->expected2, w->expected2_len, w->nthreads)) w->failures++;
    }
    if (cb <= 0) continue;
    size_t nbytes = 0, cbytes = 0, blocksize = 0;
    blosc1_cbuffer_sizes(dst, &nbytes, &cbytes, &blocksize);
    if (nbytes != GL_N || cbytes != (size_t)cb) w->failures++;
    memset(out, 0, GL_N);
    int d = (it % 2 == 0) ? blosc1_decompress(dst, out, GL_N) : blosc2_decompress(dst, cb, out, GL_N);
    if (d != GL_N || memcmp(out, w->src, GL_N) != 0) w->failures++;
    int32_t items[8];
    if (blosc1_getitem(dst, 100 + w->id, 8, items) != 32 || memcmp(items, w->src + 4 * (100 + w->id), 32) != 0)
      w->failures++;
  }
  free(dst);
  free(out);
  return NULL;
}

static void test_global_api_threads(void) {
  blosc2_init();
  CHECK_GE(blosc1_set_compressor("lz4"), 0);
  uint8_t *src = malloc(GL_N);
  fill_mixed(src, GL_N, 41);
  for (int nt = 1; nt <= 3; nt += 2) {
    blosc2_set_nthreads((int16_t)nt);
    uint8_t *e1 = malloc(GL_N + BLOSC2_MAX_OVERHEAD), *e2 = malloc(GL_N + BLOSC2_MAX_OVERHEAD);
    int l1 = blosc1_compress(5, BLOSC_SHUFFLE, 4, GL_N, src, e1, GL_N + BLOSC2_MAX_OVERHEAD);
    int l2 = blosc2_compress(5, BLOSC_SHUFFLE, 4, src, GL_N, e2, GL_N + BLOSC2_MAX_OVERHEAD);
    CHECK_GT(l1, 0);
    CHECK_GT(l2, 0);
    pthread_t th[NTHREADS];
    gl_arg args[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
      args[i] = (gl_arg){.id = i, .nthreads = nt, .src = src, .expected1 = e1, .expected1_len = l1, .expected2 = e2,
                         .expected2_len = l2, .failures = 0};
      CHECK_EQ(pthread_create(&th[i], NULL, gl_worker, &args[i]), 0);
    }
    for (int i = 0; i < NTHREADS; i++) {
      pthread_join(th[i], NULL);
      CHECK_EQ(args[i].failures, 0);
    }
    free(e1);
    free(e2);
  }
  blosc2_set_nthreads(1);
  free(src);
  blosc2_destroy();
}

/* ------------------------------------------------------------------ */
/* fork() after the thread pools ran                                    */
/* ------------------------------------------------------------------ */

/* compress and decompress with an `nt`-thread context and the global API;
   returns the number of failures */
static int pool_roundtrip(int nt, const uint8_t *src, int32_t n, const uint8_t *expected,
                          int expected_len) {
  int failures = 0;
  uint8_t *dst = malloc((size_t)n + BLOSC2_MAX_OVERHEAD);
  uint8_t *out = malloc((size_t)n);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = (int16_t)nt;
  cp.blocksize = 16384;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  int cb = blosc2_compress_ctx(cctx, src, n, dst, n + BLOSC2_MAX_OVERHEAD);
  if (!same_chunk(dst, cb, expected, expected_len, nt)) failures++;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)nt;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  if (blosc2_decompress_ctx(dctx, dst, cb, out, n) != n || memcmp(out, src, (size_t)n) != 0) failures++;
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  /* global API with nt threads */
  blosc2_set_nthreads((int16_t)nt);
  cb = blosc2_compress(5, BLOSC_SHUFFLE, 4, src, n, dst, n + BLOSC2_MAX_OVERHEAD);
  if (cb <= 0) failures++;
  memset(out, 0, (size_t)n);
  if (cb > 0 && (blosc2_decompress(dst, cb, out, n) != n || memcmp(out, src, (size_t)n) != 0)) failures++;
  free(dst);
  free(out);
  return failures;
}

static void test_fork_after_pool(void) {
  int32_t n = 400000;
  uint8_t *src = malloc((size_t)n);
  fill_mixed(src, (size_t)n, 53);
  blosc2_init();
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.blocksize = 16384;
  uint8_t *expected;
  int expected_len = compress_with(cp, src, n, &expected);
  CHECK_GT(expected_len, 0);
  /* the pools run (and a context with a live pool stays around) */
  CHECK_EQ(pool_roundtrip(4, src, n, expected, expected_len), 0);
  blosc2_cparams cp4 = cp;
  cp4.nthreads = 4;
  blosc2_context *live = blosc2_create_cctx(cp4);
  uint8_t *dst = malloc((size_t)n + BLOSC2_MAX_OVERHEAD);
  CHECK_EQ(blosc2_compress_ctx(live, src, n, dst, n + BLOSC2_MAX_OVERHEAD), expected_len);
  fflush(stdout);
  fflush(stderr);
  /* the child reports its failures through a pipe, not its exit status: under valgrind the
     memory of the parent's pool threads (threads that do not exist in the child) is reported
     lost when the child exits, which is inherent to fork() */
  int fds[2];
  CHECK_EQ(pipe(fds), 0);
  pid_t pid = t_fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    alarm(120); /* a deadlock fails instead of hanging */
#ifdef B2RS_REFERENCE_BUG_FORK_POOL
    /* only single-threaded work completes in the child (and blosc2_destroy
       would wait for the parent's pool threads too) */
    int f = pool_roundtrip(1, src, n, expected, expected_len);
#else
    int f = pool_roundtrip(4, src, n, expected, expected_len);
    /* the inherited context with its pool, used in the child */
    uint8_t *out = malloc((size_t)n);
    int cb = blosc2_compress_ctx(live, src, n, dst, n + BLOSC2_MAX_OVERHEAD);
    if (!same_chunk(dst, cb, expected, expected_len, 4) ||
        blosc2_decompress(dst, cb, out, n) != n || memcmp(out, src, (size_t)n) != 0)
      f++;
    free(out);
    blosc2_free_ctx(live);
    blosc2_destroy();
#endif
    free(dst);
    free(expected);
    free(src);
    ssize_t w = write(fds[1], &f, sizeof(f));
    (void)w;
    _exit(0);
  }
  close(fds[1]);
  int child_failures = -1;
  ssize_t got = 0;
  while (got < (ssize_t)sizeof(child_failures)) {
    ssize_t r = read(fds[0], (char *)&child_failures + got, sizeof(child_failures) - (size_t)got);
    if (r <= 0) break;
    got += r;
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  CHECK(WIFEXITED(status)); /* no crash, no deadlock (alarm) */
  CHECK_EQ(got, (ssize_t)sizeof(child_failures));
  CHECK_EQ(child_failures, 0);
  /* and the parent goes on */
  CHECK_EQ(pool_roundtrip(4, src, n, expected, expected_len), 0);
  CHECK_EQ(blosc2_compress_ctx(live, src, n, dst, n + BLOSC2_MAX_OVERHEAD), expected_len);
  blosc2_free_ctx(live);
  blosc2_set_nthreads(1);
  blosc2_destroy();
  free(dst);
  free(expected);
  free(src);
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  blosc2_init();
  RUN(test_own_contexts);
  RUN(test_schunk_readers);
  RUN(test_b2nd_readers);
  RUN(test_set_nthreads_while_working);
  RUN(test_global_api_threads);
  RUN(test_fork_after_pool);
  blosc2_destroy();
  return TEST_SUMMARY();
}
