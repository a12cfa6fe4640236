/* C-Blosc2's own B2ND growth benchmarks, bench/b2nd/bench_stack_append.c and
 * bench/b2nd/bench_concatenate.c (BSD-3-Clause, The Blosc Development Team), with their
 * workloads and geometries unchanged, in the output format of tools/b2ndgrow.py
 * ("name<TAB>what # seconds s"; "what" sums up the result's shape, chunks and the content of
 * three slabs of it).
 *
 * - stack_*: 1000 images of 256 x 512 uint16 in chunks of 10 images, by b2nd_set_slice_cbuffer
 *   of 10 images at image i (i = 0..99: overlapping writes, as the original) into a
 *   preallocated array, or by b2nd_append of 10 images to an empty one.
 * - concat_*: 99 b2nd_concatenate of a 10 x 1000 x 1000 uint16 array to a growing one, with
 *   chunks of 10 images (the fast path: chunks move as they are) or of 11 (the slow path), with
 *   copy = false and true. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "blosc2.h"
#include "b2nd.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/* shape, nchunks and a hash of the 10 images from each of starts[0..3] (by default the first,
 * middle and last 10) */
static void report_at(const char *name, b2nd_array_t *a, double t, const int64_t *at) {
  int64_t img = a->shape[1] * a->shape[2];
  int64_t n = 10 * img * a->sc->typesize;
  uint8_t *buf = malloc(n);
  uint64_t h = 1469598103934665603ULL;
  int64_t last[3] = {0, a->shape[0] / 2 - 5, a->shape[0] - 10};
  const int64_t *starts = at ? at : last;
  for (int k = 0; k < 3; k++) {
    int64_t start[3] = {starts[k], 0, 0}, stop[3] = {starts[k] + 10, a->shape[1], a->shape[2]};
    int64_t bshape[3] = {10, a->shape[1], a->shape[2]};
    if (b2nd_get_slice_cbuffer(a, start, stop, buf, bshape, n) < 0) {
      printf("%s: get_slice failed\n", name);
      exit(1);
    }
    uint64_t *w = (uint64_t *)buf;
    for (int64_t i = 0; i < n / 8; i++) h = (h ^ w[i]) * 1099511628211ULL;
  }
  printf("%s\tshape %lldx%lldx%lld nchunks %lld hash %016llx # %.6f s\n", name,
         (long long)a->shape[0], (long long)a->shape[1], (long long)a->shape[2],
         (long long)a->sc->nchunks, (unsigned long long)h, t);
  free(buf);
}

static void report(const char *name, b2nd_array_t *a, double t) { report_at(name, a, t, NULL); }

static int stack(int accel) {
  const int width = 512, height = 256, nimages_inbuf = 10;
  const int64_t buffershape[] = {nimages_inbuf, height, width};
  int64_t N_images = 1000;
  int64_t shape[] = {accel ? 0 : N_images, height, width};
  int32_t chunkshape[] = {nimages_inbuf, height, width};
  int32_t blockshape[] = {1, height, width};
  const int64_t buffersize = nimages_inbuf * height * width * (int64_t)sizeof(uint16_t);
  uint16_t *image = malloc(buffersize);
  for (int j = 0; j < nimages_inbuf * height * width; j++) image[j] = j;
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = 2;
  blosc2_storage storage = BLOSC2_STORAGE_DEFAULTS;
  storage.cparams = &cparams;
  b2nd_context_t *ctx = b2nd_create_ctx(&storage, 3, shape, chunkshape, blockshape, "|u2",
                                        DTYPE_NUMPY_FORMAT, NULL, 0);
  b2nd_array_t *src;
  if (b2nd_empty(ctx, &src) < 0) return -1;
  double t0 = now();
  for (int i = 0; i < N_images / nimages_inbuf; i++) {
    if (accel) {
      if (b2nd_append(src, image, buffersize, 0) < 0) return -1;
    } else {
      int64_t start[] = {i, 0, 0};
      int64_t stop[] = {i + nimages_inbuf, height, width};
      if (b2nd_set_slice_cbuffer(image, buffershape, buffersize, start, stop, src) < 0) return -1;
    }
  }
  double t = now() - t0;
  /* the writes reach image 109 of the preallocated array: the rest is uninitialized */
  const int64_t written[3] = {0, 50, 99};
  report_at(accel ? "stack_append" : "stack_set_slice", src, t, accel ? NULL : written);
  b2nd_free(src);
  b2nd_free_ctx(ctx);
  free(image);
  return 0;
}

static int concat(int fast, int copy) {
  const int width = 1000, height = 1000, nimages_inbuf = 10;
  int64_t N_images = 1000;
  int64_t shape[] = {nimages_inbuf, height, width};
  int32_t chunkshape[] = {nimages_inbuf + (fast ? 0 : 1), height, width};
  int32_t blockshape[] = {1, height, width};
  const int64_t buffersize = nimages_inbuf * height * width * (int64_t)sizeof(uint16_t);
  uint16_t *image = malloc(buffersize);
  for (int j = 0; j < nimages_inbuf * height * width; j++) image[j] = j;
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = 2;
  blosc2_storage storage = BLOSC2_STORAGE_DEFAULTS;
  storage.cparams = &cparams;
  b2nd_context_t *ctx = b2nd_create_ctx(&storage, 3, shape, chunkshape, blockshape, "|u2",
                                        DTYPE_NUMPY_FORMAT, NULL, 0);
  b2nd_array_t *src1, *src2, *array = NULL;
  if (b2nd_empty(ctx, &src1) < 0) return -1;
  if (b2nd_from_cbuffer(ctx, &src2, image, buffersize) < 0) return -1;
  double t0 = now();
  for (int i = 1; i < N_images / nimages_inbuf; i++) {
    if (b2nd_concatenate(ctx, src1, src2, 0, copy, &array) < 0) return -1;
    if (copy) b2nd_free(src1);
    src1 = array;
  }
  double t = now() - t0;
  char name[64];
  snprintf(name, sizeof name, "concat_%s_%s", fast ? "fast" : "slow", copy ? "copy" : "nocopy");
  report(name, array, t);
  b2nd_free(src2);
  b2nd_free(array);
  b2nd_free_ctx(ctx);
  free(image);
  return 0;
}

int main(void) {
  blosc2_init();
  int rc = stack(0) || stack(1) || concat(1, 0) || concat(1, 1) || concat(0, 0) || concat(0, 1);
  blosc2_destroy();
  if (rc) printf("a workload failed\n");
  return rc ? 1 : 0;
}
