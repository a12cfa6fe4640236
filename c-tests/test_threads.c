/*
 * test_threads.c - multi-threading: nthreads 1/2/4 in contexts and in the
 * global API, several application threads each with its own contexts
 * (pthreads), the global API used from several threads at once, and chunks
 * written with one thread count read with another.
 *
 * The threads callback (blosc2_set_threads_callback) is in test_threads_cb.c
 * because it must be installed before any other Blosc call.
 *
 * No reference bugs are compiled out here.
 */
#include "b2rs_test.h"

#include <pthread.h>

static void test_ctx_thread_counts(void) {
  size_t n = 4 * 1024 * 1024 + 77;
  uint8_t *src = malloc(n);
  fill_mixed(src, n, 21);
  for (int c = 0; c < N_ALL_CODECS; c++) {
    uint8_t *chunks[3];
    int cbs[3];
    for (int k = 0; k < 3; k++) {
      int nt = 1 << k;
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.compcode = (uint8_t)ALL_CODECS[c];
      cp.clevel = 4;
      cp.typesize = 4;
      cp.nthreads = (int16_t)nt;
      cp.blocksize = 131072;
      cbs[k] = compress_with(cp, src, (int32_t)n, &chunks[k]);
      CHECK_GT(cbs[k], 0);
    }
    /* same compressed size whatever the thread count (same blocks) */
    CHECK_EQ(cbs[1], cbs[0]);
    CHECK_EQ(cbs[2], cbs[0]);
    for (int k = 0; k < 3; k++) {
      for (int dk = 0; dk < 3; dk++) {
        uint8_t *out;
        CHECK_EQ(decompress_with(1 << dk, chunks[k], cbs[k], (int32_t)n, &out), (long long)n);
        CHECK_MEM(out, src, n);
        free(out);
      }
    }
    for (int k = 0; k < 3; k++) free(chunks[k]);
  }
  free(src);
}

/* BloscLZ single-threaded output is deterministic: two runs give the same
   bytes; multi-threaded output holds the same blocks (maybe in another
   order), so it decodes to the same data and has the same size */
static void test_deterministic(void) {
  size_t n = 2 * 1024 * 1024;
  uint8_t *src = malloc(n);
  fill_ramp64(src, n);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  cp.blocksize = 65536;
  uint8_t *a, *b;
  int ca = compress_with(cp, src, (int32_t)n, &a);
  int cb = compress_with(cp, src, (int32_t)n, &b);
  CHECK_EQ(ca, cb);
  CHECK_MEM(a, b, (size_t)ca);
  free(b);
  cp.nthreads = 4;
  cb = compress_with(cp, src, (int32_t)n, &b);
  CHECK_EQ(ca, cb);
  CHECK_MEM(a, b, 32); /* same header */
  free(a);
  free(b);
  free(src);
}

static void test_global_thread_counts(void) {
  size_t n = 3 * 1024 * 1024;
  uint8_t *src = malloc(n);
  uint8_t *dst = gbuf(n + 32, 0);
  uint8_t *out = gbuf(n, 0);
  fill_float32(src, n);
  for (int nt = 1; nt <= 4; nt++) {
    blosc2_set_nthreads((int16_t)nt);
    CHECK_EQ(blosc2_get_nthreads(), nt);
    for (int c = 0; c < N_ALL_CODECS; c++) {
      blosc1_set_compressor(ALL_CODEC_NAMES[c]);
      int cb = blosc2_compress(5, BLOSC_SHUFFLE, 4, src, (int32_t)n, dst, (int32_t)n + 32);
      CHECK_GT(cb, 0);
      CHECK_EQ(blosc2_decompress(dst, cb, out, (int32_t)n), (long long)n);
      CHECK_MEM(out, src, n);
      memset(out, 0, n);
      CHECK_EQ(blosc1_decompress(dst, out, n), (long long)n);
      CHECK_MEM(out, src, n);
      /* getitem with several threads configured */
      CHECK_EQ(blosc1_getitem(dst, 100000, 1000, out), 4000);
      CHECK_MEM(out, src + 400000, 4000);
    }
  }
  blosc2_set_nthreads(1);
  blosc1_set_compressor("blosclz");
  CHECK_GUARD(dst, n + 32);
  CHECK_GUARD(out, n);
  free(src);
  free(dst);
  free(out);
}

/* ------------------------------------------------------------------ */
/* application threads, each with its own contexts                      */
/* ------------------------------------------------------------------ */

typedef struct {
  int id;
  int inner_threads;
  int iterations;
  int failures;
} worker_arg;

static void *ctx_worker(void *p) {
  worker_arg *w = (worker_arg *)p;
  size_t n = 300000 + (size_t)w->id * 1000;
  uint8_t *src = malloc(n);
  uint8_t *dst = malloc(n + 32);
  uint8_t *out = malloc(n);
  uint64_t seed = (uint64_t)w->id * 7919 + 1;
  /* private rng: the shared one in b2rs_test.h is not thread safe */
  for (size_t i = 0; i < n; i++) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    src[i] = (uint8_t)((i / 7) ^ ((seed >> 60) & 1));
  }
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)ALL_CODECS[w->id % N_ALL_CODECS];
  cp.typesize = 1 + w->id % 8;
  cp.nthreads = (int16_t)w->inner_threads;
  cp.filters[5] = (uint8_t)(w->id % 3);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)w->inner_threads;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  blosc2_context *dctx = blosc2_create_dctx(dp);
  for (int it = 0; it < w->iterations; it++) {
    src[it % n] ^= 0x55;
    int cb = blosc2_compress_ctx(cctx, src, (int32_t)n, dst, (int32_t)n + 32);
    if (cb <= 0) {
      w->failures++;
      continue;
    }
    memset(out, 0, n);
    int d = blosc2_decompress_ctx(dctx, dst, cb, out, (int32_t)n);
    if (d != (int)n || memcmp(out, src, n) != 0) w->failures++;
    uint8_t part[64];
    if (blosc2_getitem_ctx(dctx, dst, cb, 0, 64 / cp.typesize, part, sizeof(part)) !=
            (64 / cp.typesize) * cp.typesize ||
        memcmp(part, src, (size_t)(64 / cp.typesize) * cp.typesize) != 0)
      w->failures++;
  }
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  free(src);
  free(dst);
  free(out);
  return NULL;
}

static void run_workers(int nworkers, int inner_threads, int iterations) {
  pthread_t th[8];
  worker_arg args[8];
  for (int i = 0; i < nworkers; i++) {
    args[i].id = i;
    args[i].inner_threads = inner_threads;
    args[i].iterations = iterations;
    args[i].failures = 0;
    CHECK_EQ(pthread_create(&th[i], NULL, ctx_worker, &args[i]), 0);
  }
  for (int i = 0; i < nworkers; i++) {
    pthread_join(th[i], NULL);
    CHECK_EQ(args[i].failures, 0);
  }
}

static void test_two_threads_own_contexts(void) { run_workers(2, 1, 20); }

static void test_two_threads_own_contexts_inner_threads(void) { run_workers(2, 2, 10); }

static void test_many_threads_own_contexts(void) { run_workers(6, 1, 5); }

/* the global API is serialised internally and can be called from several
   threads */
typedef struct {
  int id;
  int failures;
} gworker_arg;

static void *global_worker(void *p) {
  gworker_arg *w = (gworker_arg *)p;
  size_t n = 200000;
  uint8_t *src = malloc(n), *dst = malloc(n + 32), *out = malloc(n);
  for (size_t i = 0; i < n; i++) src[i] = (uint8_t)(i * (w->id + 1) / 5);
  for (int it = 0; it < 20; it++) {
    int cb = blosc2_compress(5, BLOSC_SHUFFLE, 4, src, (int32_t)n, dst, (int32_t)n + 32);
    if (cb <= 0) {
      w->failures++;
      continue;
    }
    if (blosc2_decompress(dst, cb, out, (int32_t)n) != (int)n || memcmp(out, src, n) != 0) w->failures++;
  }
  free(src);
  free(dst);
  free(out);
  return NULL;
}

static void test_global_api_from_threads(void) {
  blosc2_init();
  for (int nt = 1; nt <= 2; nt++) {
    blosc2_set_nthreads((int16_t)nt);
    pthread_t th[3];
    gworker_arg args[3];
    for (int i = 0; i < 3; i++) {
      args[i].id = i;
      args[i].failures = 0;
      CHECK_EQ(pthread_create(&th[i], NULL, global_worker, &args[i]), 0);
    }
    for (int i = 0; i < 3; i++) {
      pthread_join(th[i], NULL);
      CHECK_EQ(args[i].failures, 0);
    }
  }
  blosc2_set_nthreads(1);
}

/* more threads than blocks, one block, tiny chunks */
static void test_threads_edge_cases(void) {
  static const int32_t sizes[] = {0, 1, 31, 32, 100, 4096, 65536};
  uint8_t src[65536];
  fill_mixed(src, sizeof(src), 5);
  for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
    for (int nt = 1; nt <= 8; nt *= 2) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.typesize = 2;
      cp.nthreads = (int16_t)nt;
      uint8_t *chunk;
      int cb = compress_with(cp, src, sizes[s], &chunk);
      CHECK_GT(cb, 0);
      uint8_t *out;
      CHECK_EQ(decompress_with(nt, chunk, cb, sizes[s], &out), sizes[s]);
      CHECK_MEM(out, src, (size_t)sizes[s]);
      free(out);
      free(chunk);
    }
  }
  /* many tiny blocks with many threads */
  size_t n = 1 << 20;
  uint8_t *big = malloc(n);
  fill_ramp32(big, n);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.blocksize = 1024;
  cp.nthreads = 4;
  uint8_t *chunk;
  int cb = compress_with(cp, big, (int32_t)n, &chunk);
  CHECK_GT(cb, 0);
  uint8_t *out;
  CHECK_EQ(decompress_with(4, chunk, cb, (int32_t)n, &out), (long long)n);
  CHECK_MEM(out, big, n);
  free(out);
  free(chunk);
  free(big);
}

/* a context used alternately with different thread counts in dparams of
   new contexts, and freeing contexts with live thread pools */
static void test_context_churn(void) {
  size_t n = 1 << 20;
  uint8_t *src = malloc(n);
  fill_ramp32(src, n);
  for (int i = 0; i < 20; i++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    cp.nthreads = (int16_t)(1 + i % 4);
    uint8_t *chunk;
    int cb = compress_with(cp, src, (int32_t)n, &chunk);
    CHECK_GT(cb, 0);
    uint8_t *out;
    CHECK_EQ(decompress_with(1 + (i + 1) % 4, chunk, cb, (int32_t)n, &out), (long long)n);
    CHECK_MEM(out, src, n);
    free(out);
    free(chunk);
  }
  free(src);
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  blosc2_init();
  RUN(test_ctx_thread_counts);
  RUN(test_deterministic);
  RUN(test_global_thread_counts);
  RUN(test_two_threads_own_contexts);
  RUN(test_two_threads_own_contexts_inner_threads);
  RUN(test_many_threads_own_contexts);
  RUN(test_global_api_from_threads);
  RUN(test_threads_edge_cases);
  RUN(test_context_churn);
  blosc2_destroy();
  return TEST_SUMMARY();
}
