/* b2rs example: an n-dimensional b2nd array: create from a C buffer, read a
 * slice, write a slice, save to a file, reopen, serialise to a cframe.
 *
 * Plain C-Blosc2 3.3 API: builds unchanged against C-Blosc2 or against b2rs
 *   cc b2nd_array.c $(pkg-config --cflags --libs blosc2)
 * Writes b2nd_array.b2nd in the current directory (Python: blosc2.open).
 * Reads b2nd_array_t fields (ndim, shape, chunkshape, blockshape, dtype,
 * sc->nchunks, ...) directly and prints them with FNV-1a digests.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <b2nd.h>
#include <blosc2.h>

#define URLPATH "b2nd_array.b2nd"

static uint64_t fnv1a(const void *data, size_t len) {
  const uint8_t *p = data;
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= 1099511628211ULL;
  }
  return h;
}

static int failures = 0;
#define EXPECT(cond)                                                   \
  do {                                                                 \
    if (!(cond)) {                                                     \
      printf("EXPECT failed at line %d: %s\n", __LINE__, #cond);       \
      failures++;                                                      \
    }                                                                  \
  } while (0)

static void describe(const char *what, const b2nd_array_t *a) {
  printf("%s: ndim=%d shape=", what, (int)a->ndim);
  for (int i = 0; i < a->ndim; i++) printf("%s%" PRId64, i ? "x" : "", a->shape[i]);
  printf(" chunkshape=");
  for (int i = 0; i < a->ndim; i++) printf("%s%d", i ? "x" : "", a->chunkshape[i]);
  printf(" blockshape=");
  for (int i = 0; i < a->ndim; i++) printf("%s%d", i ? "x" : "", a->blockshape[i]);
  printf(" nitems=%" PRId64 " extnitems=%" PRId64 " dtype=%s dtype_format=%d"
         " sc.nchunks=%" PRId64 " sc.typesize=%d sc.nbytes=%" PRId64 " sc.nmetalayers=%d"
         " meta0=%s\n",
         a->nitems, a->extnitems, a->dtype, (int)a->dtype_format, a->sc->nchunks,
         (int)a->sc->typesize, a->sc->nbytes, (int)a->sc->nmetalayers,
         a->sc->nmetalayers > 0 ? a->sc->metalayers[0]->name : "-");
  int64_t size = a->nitems * a->sc->typesize;
  void *buf = malloc((size_t)size);
  EXPECT(b2nd_to_cbuffer(a, buf, size) == 0);
  printf("  data=%016" PRIx64 "\n", fnv1a(buf, (size_t)size));
  free(buf);
}

int main(void) {
  blosc2_init();
  remove(URLPATH);
  const int8_t ndim = 3;
  const int64_t shape[] = {40, 30, 20};
  const int32_t chunkshape[] = {16, 16, 10};
  const int32_t blockshape[] = {8, 8, 5};
  const int64_t nitems = 40 * 30 * 20;
  double *data = malloc(nitems * sizeof(double));
  for (int64_t i = 0; i < nitems; i++) data[i] = (double)(i % 1000) * 0.5 + (double)(i / 7000);

  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = sizeof(double);
  cparams.compcode = BLOSC_LZ4;
  cparams.nthreads = 1;
  blosc2_dparams dparams = BLOSC2_DPARAMS_DEFAULTS;
  dparams.nthreads = 1;
  blosc2_storage storage = {.contiguous = true, .cparams = &cparams, .dparams = &dparams};
  b2nd_context_t *ctx = b2nd_create_ctx(&storage, ndim, shape, chunkshape, blockshape, "<f8",
                                        DTYPE_NUMPY_FORMAT, NULL, 0);
  EXPECT(ctx != NULL);
  b2nd_array_t *arr = NULL;
  EXPECT(b2nd_from_cbuffer(ctx, &arr, data, nitems * (int64_t)sizeof(double)) == 0);
  if (arr == NULL) return 1;
  describe("created", arr);

  /* a slice */
  const int64_t start[] = {5, 10, 3};
  const int64_t stop[] = {25, 22, 17};
  const int64_t sshape[] = {20, 12, 14};
  double slice[20 * 12 * 14];
  EXPECT(b2nd_get_slice_cbuffer(arr, start, stop, slice, sshape, sizeof(slice)) == 0);
  int slice_ok = 1;
  for (int64_t i = 0; i < 20; i++)
    for (int64_t j = 0; j < 12; j++)
      for (int64_t k = 0; k < 14; k++)
        slice_ok &= slice[(i * 12 + j) * 14 + k] ==
                    data[((i + 5) * 30 + (j + 10)) * 20 + (k + 3)];
  EXPECT(slice_ok);
  printf("slice: %016" PRIx64 " %s\n", fnv1a(slice, sizeof(slice)), slice_ok ? "ok" : "BAD");

  /* overwrite the slice with negated values */
  for (size_t i = 0; i < sizeof(slice) / sizeof(double); i++) slice[i] = -slice[i];
  EXPECT(b2nd_set_slice_cbuffer(slice, sshape, sizeof(slice), start, stop, arr) == 0);
  describe("after set_slice", arr);

  /* the array in a file, reopened */
  EXPECT(b2nd_save(arr, URLPATH) >= 0);
  b2nd_array_t *opened = NULL;
  EXPECT(b2nd_open(URLPATH, &opened) == 0);
  if (opened != NULL) {
    describe("opened", opened);
    printf("  opened: contiguous=%d urlpath=%s\n", (int)opened->sc->storage->contiguous,
           opened->sc->storage->urlpath);
    b2nd_free(opened);
  }

  /* the array as a cframe, and back */
  uint8_t *cframe = NULL;
  int64_t cframe_len = 0;
  bool needs_free = false;
  EXPECT(b2nd_to_cframe(arr, &cframe, &cframe_len, &needs_free) == 0);
  b2nd_array_t *back = NULL;
  EXPECT(b2nd_from_cframe(cframe, cframe_len, true, &back) == 0);
  if (back != NULL) {
    describe("from cframe", back);
    b2nd_free(back);
  }
  if (needs_free) free(cframe);

  /* grow along the first axis */
  double extra[2 * 30 * 20];
  for (int i = 0; i < 2 * 30 * 20; i++) extra[i] = 1000.0 + i;
  EXPECT(b2nd_append(arr, extra, sizeof(extra), 0) == 0);
  describe("after append", arr);

  b2nd_free(arr);
  b2nd_free_ctx(ctx);
  remove(URLPATH);
  free(data);
  blosc2_destroy();
  printf("%s\n", failures == 0 ? "OK" : "FAILED");
  return failures == 0 ? 0 : 1;
}
