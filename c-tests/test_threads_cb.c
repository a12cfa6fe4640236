/*
 * test_threads_cb.c - blosc2_set_threads_callback (area 2): a caller-managed
 * threading backend.  The callback must be installed before any other Blosc
 * function, so every test installs it first thing (each test runs in its
 * own forked process, see b2rs_test.h).
 *
 * Checks: with nthreads > 1 the library hands its work to the callback
 * (called at least once, with numjobs > 1 ... <= nthreads and a non-NULL
 * dojob), the results are right whether the callback runs the jobs serially
 * or on its own pthreads, callback_data is passed through, and with
 * nthreads == 1 the callback is not needed.  Resetting the callback to NULL
 * restores the built-in threads.
 *
 * No reference bugs are compiled out here.
 */
#include "b2rs_test.h"

#include <pthread.h>

typedef struct {
  long calls;
  long jobs;
  int max_numjobs;
  int bad;
  void *expected_data;
} cb_stats;

static cb_stats g_stats;

static void serial_callback(void *callback_data, void (*dojob)(void *), int numjobs,
                            size_t jobdata_elsize, void *jobdata) {
  cb_stats *s = (cb_stats *)callback_data;
  if (s != &g_stats || dojob == NULL || numjobs <= 0 || jobdata == NULL) {
    g_stats.bad++;
    return;
  }
  s->calls++;
  s->jobs += numjobs;
  if (numjobs > s->max_numjobs) s->max_numjobs = numjobs;
  for (int i = 0; i < numjobs; i++) dojob((char *)jobdata + (size_t)i * jobdata_elsize);
}

typedef struct {
  void (*dojob)(void *);
  void *arg;
} job_t;

static void *job_runner(void *p) {
  job_t *j = (job_t *)p;
  j->dojob(j->arg);
  return NULL;
}

static long g_parallel_calls = 0;

static void pthread_callback(void *callback_data, void (*dojob)(void *), int numjobs,
                             size_t jobdata_elsize, void *jobdata) {
  (void)callback_data;
  __atomic_add_fetch(&g_parallel_calls, 1, __ATOMIC_RELAXED);
  pthread_t th[64];
  job_t jobs[64];
  int n = numjobs > 64 ? 64 : numjobs;
  for (int i = 0; i < n; i++) {
    jobs[i].dojob = dojob;
    jobs[i].arg = (char *)jobdata + (size_t)i * jobdata_elsize;
    pthread_create(&th[i], NULL, job_runner, &jobs[i]);
  }
  for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
  for (int i = n; i < numjobs; i++) dojob((char *)jobdata + (size_t)i * jobdata_elsize);
}

static void roundtrip_ctx(int nthreads, int codec, size_t n) {
  uint8_t *src = malloc(n);
  fill_mixed(src, n, 3);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)codec;
  cp.typesize = 4;
  cp.nthreads = (int16_t)nthreads;
  cp.blocksize = 32768;
  uint8_t *chunk;
  int cb = compress_with(cp, src, (int32_t)n, &chunk);
  CHECK_GT(cb, 0);
  uint8_t *out;
  CHECK_EQ(decompress_with(nthreads, chunk, cb, (int32_t)n, &out), (long long)n);
  CHECK_MEM(out, src, n);
  free(out);
  free(chunk);
  free(src);
}

static void test_serial_callback_ctx(void) {
  memset(&g_stats, 0, sizeof(g_stats));
  blosc2_set_threads_callback(serial_callback, &g_stats);
  blosc2_init();
  for (int c = 0; c < N_ALL_CODECS; c++) roundtrip_ctx(4, ALL_CODECS[c], 1 << 20);
  CHECK_GT(g_stats.calls, 0);
  CHECK_GE(g_stats.jobs, g_stats.calls);
  CHECK_LE(g_stats.max_numjobs, 4);
  CHECK_GT(g_stats.max_numjobs, 1);
  CHECK_EQ(g_stats.bad, 0);
  blosc2_destroy();
}

static void test_serial_callback_global(void) {
  memset(&g_stats, 0, sizeof(g_stats));
  blosc2_set_threads_callback(serial_callback, &g_stats);
  blosc2_init();
  blosc2_set_nthreads(3);
  size_t n = 1 << 20;
  uint8_t *src = malloc(n), *dst = gbuf(n + 32, 0), *out = gbuf(n, 0);
  fill_ramp32(src, n);
  blosc1_set_blocksize(16384);
  int cb = blosc2_compress(5, 1, 4, src, (int32_t)n, dst, (int32_t)n + 32);
  CHECK_GT(cb, 0);
  CHECK_EQ(blosc2_decompress(dst, cb, out, (int32_t)n), (long long)n);
  CHECK_MEM(out, src, n);
  CHECK_GT(g_stats.calls, 0);
  CHECK_LE(g_stats.max_numjobs, 3);
  CHECK_EQ(g_stats.bad, 0);
  CHECK_GUARD(dst, n + 32);
  CHECK_GUARD(out, n);
  free(src);
  free(dst);
  free(out);
  blosc2_destroy();
}

static void test_pthread_callback(void) {
  g_parallel_calls = 0;
  blosc2_set_threads_callback(pthread_callback, NULL);
  blosc2_init();
  for (int nt = 2; nt <= 4; nt += 2) {
    for (int c = 0; c < N_ALL_CODECS; c += 2) roundtrip_ctx(nt, ALL_CODECS[c], 3 << 20);
  }
  CHECK_GT(g_parallel_calls, 0);
  blosc2_destroy();
}

/* with one thread the callback is not needed (and not required to be
   called); results are right either way */
static void test_callback_single_thread(void) {
  memset(&g_stats, 0, sizeof(g_stats));
  blosc2_set_threads_callback(serial_callback, &g_stats);
  blosc2_init();
  roundtrip_ctx(1, BLOSC_BLOSCLZ, 1 << 20);
  CHECK_EQ(g_stats.bad, 0);
  blosc2_destroy();
}

/* NULL restores the built-in threads */
static void test_callback_reset(void) {
  memset(&g_stats, 0, sizeof(g_stats));
  blosc2_set_threads_callback(serial_callback, &g_stats);
  blosc2_set_threads_callback(NULL, NULL);
  blosc2_init();
  roundtrip_ctx(4, BLOSC_LZ4, 1 << 20);
  CHECK_EQ(g_stats.calls, 0);
  blosc2_destroy();
}

/* VL-block chunks with the callback */
static void test_callback_vlblocks(void) {
  memset(&g_stats, 0, sizeof(g_stats));
  blosc2_set_threads_callback(serial_callback, &g_stats);
  blosc2_init();
  size_t n = 1 << 20;
  uint8_t *src = malloc(n);
  fill_mixed(src, n, 8);
  const void *srcs[16];
  int32_t sizes[16];
  for (int i = 0; i < 16; i++) {
    srcs[i] = src + (size_t)i * 65536;
    sizes[i] = 65536 - i * 100;
  }
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 1;
  cp.nthreads = 4;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  uint8_t *dst = gbuf(n + 1000, 0);
  int cb = blosc2_vlcompress_ctx(cctx, srcs, sizes, 16, dst, (int32_t)n + 1000);
  CHECK_GT(cb, 0);
  CHECK_GUARD(dst, n + 1000);
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 4;
  blosc2_context *dctx = blosc2_create_dctx(dp);
  void *dests[16];
  int32_t dsizes[16];
  CHECK_EQ(blosc2_vldecompress_ctx(dctx, dst, cb, dests, dsizes, 16), 16);
  for (int i = 0; i < 16; i++) {
    CHECK_EQ(dsizes[i], sizes[i]);
    CHECK_MEM(dests[i], srcs[i], (size_t)sizes[i]);
    free(dests[i]);
  }
  CHECK_EQ(g_stats.bad, 0);
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  free(dst);
  free(src);
  blosc2_destroy();
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  RUN(test_serial_callback_ctx);
  RUN(test_serial_callback_global);
  RUN(test_pthread_callback);
  RUN(test_callback_single_thread);
  RUN(test_callback_reset);
  RUN(test_callback_vlblocks);
  return TEST_SUMMARY();
}
