/* More growing-array workloads for tools/b2ndgrow.py (same output format as
 * ../shared/bench/b2ndgrow.c: "name<TAB>what # seconds s"): a 3-D float32 array growing along
 * its last axis slab by slab (in memory and in a contiguous file), and b2nd_delete of chunk
 * slabs from the middle of a 2-D array. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "blosc2.h"
#include "b2nd.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t fnv(const uint8_t *p, int64_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (int64_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 1099511628211ULL;
  }
  return h;
}

static void report(const char *name, b2nd_array_t *a, double t) {
  int64_t n = a->nitems * a->sc->typesize;
  uint8_t *buf = malloc(n > 0 ? n : 1);
  int rc = b2nd_to_cbuffer(a, buf, n);
  printf("%s\tnitems=%lld hash=%016llx rc=%d # %.6f s\n", name, (long long)a->nitems,
         (unsigned long long)(rc < 0 ? 0 : fnv(buf, n)), rc < 0 ? rc : 0, t);
  free(buf);
}

static b2nd_context_t *ctx3(const char *url, int64_t nz) {
  static blosc2_cparams cp;
  cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.compcode = BLOSC_LZ4;
  cp.nthreads = 1;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  st.contiguous = url != NULL;
  st.urlpath = (char *)url;
  int64_t shape[3] = {64, 128, nz};
  int32_t cs[3] = {32, 64, 16}, bs[3] = {8, 32, 16};
  return b2nd_create_ctx(&st, 3, shape, cs, bs, "<f4", 0, NULL, 0);
}

/* 3-D, growing along the last axis 4 items at a time (a quarter of a chunk) */
static void t_grow_last(const char *name, const char *url, int steps) {
  if (url) blosc2_remove_urlpath(url);
  b2nd_context_t *ctx = ctx3(url, 0);
  b2nd_array_t *a;
  if (b2nd_zeros(ctx, &a) < 0) { printf("%s\tERROR\n", name); return; }
  float *slab = malloc(64 * 128 * 4 * sizeof(float));
  double t0 = now();
  for (int i = 0; i < steps; i++) {
    for (int k = 0; k < 64 * 128 * 4; k++) slab[k] = (float)(i * 3 + k % 11);
    if (b2nd_append(a, slab, 64 * 128 * 4 * sizeof(float), 2) < 0) { printf("%s\tERROR append\n", name); return; }
  }
  report(name, a, now() - t0);
  free(slab);
  b2nd_free(a);
  b2nd_free_ctx(ctx);
  if (url) blosc2_remove_urlpath(url);
}

/* 2-D 8192 x 512 float64, chunks 64 x 512: delete 64-row chunk slabs from the middle */
static void t_delete(const char *name, const char *url, int n) {
  if (url) blosc2_remove_urlpath(url);
  static blosc2_cparams cp;
  cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  cp.compcode = BLOSC_LZ4;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  st.contiguous = url != NULL;
  st.urlpath = (char *)url;
  int64_t shape[2] = {8192, 512};
  int32_t cs[2] = {64, 512}, bs[2] = {8, 512};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, cs, bs, "<f8", 0, NULL, 0);
  int64_t items = 8192 * 512;
  double *d = malloc(items * 8);
  for (int64_t i = 0; i < items; i++) d[i] = (double)(i % 1009);
  b2nd_array_t *a;
  if (b2nd_from_cbuffer(ctx, &a, d, items * 8) < 0) { printf("%s\tERROR\n", name); return; }
  double t0 = now();
  for (int i = 0; i < n; i++) {
    if (b2nd_delete(a, 0, 64 * (int64_t)(a->shape[0] / 64 / 2), 64) < 0) { printf("%s\tERROR delete\n", name); return; }
  }
  report(name, a, now() - t0);
  free(d);
  b2nd_free(a);
  b2nd_free_ctx(ctx);
  if (url) blosc2_remove_urlpath(url);
}

int main(void) {
  blosc2_init();
  const char *tmp = getenv("TMPDIR");
  char dir[200];
  snprintf(dir, sizeof dir, "%s/b2ndgrowmoreXXXXXX", tmp && *tmp ? tmp : ".");
  if (!mkdtemp(dir)) return 1;
  char f[256];
  snprintf(f, sizeof f, "%s/a.b2nd", dir);
  t_grow_last("grow3d_last_mem", NULL, 200);
  t_grow_last("grow3d_last_file", f, 200);
  t_delete("delete_slabs_mem", NULL, 64);
  t_delete("delete_slabs_file", f, 64);
  rmdir(dir);
  blosc2_destroy();
  return 0;
}
