/* What a C-Blosc2 user writes to read a super-chunk and a b2nd array: with b2rs the urlpaths
 * may be s3:// or http(s):// URLs; with C-Blosc2 they are local paths. The output is the
 * same for the same bytes.
 *
 * usage: remote_read SCHUNK_URLPATH [ARRAY_URLPATH]
 * prints: nchunks, nbytes, an FNV-1a hash of each decompressed chunk; for the array: ndim,
 * shape and the sum of the int64 items of the slice [1:3, 2:7, ...full] */
#include <blosc2.h>
#include <b2nd.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t fnv(const uint8_t *p, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 1099511628211ULL;
  }
  return h;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s SCHUNK_URLPATH [ARRAY_URLPATH]\n", argv[0]);
    return 2;
  }
  blosc2_init();
  blosc2_schunk *sc = blosc2_schunk_open(argv[1]);
  if (sc == NULL) {
    printf("open failed\n");
    blosc2_destroy();
    return 1;
  }
  printf("nchunks %" PRId64 " nbytes %" PRId64 "\n", sc->nchunks, sc->nbytes);
  uint8_t *buf = malloc((size_t)sc->chunksize > 0 ? (size_t)sc->chunksize : 1);
  for (int64_t i = 0; i < sc->nchunks; i++) {
    int n = blosc2_schunk_decompress_chunk(sc, i, buf, sc->chunksize);
    if (n < 0) {
      printf("chunk %" PRId64 " error %d\n", i, n);
      continue;
    }
    printf("chunk %" PRId64 " %d %016" PRIx64 "\n", i, n, fnv(buf, (size_t)n));
  }
  free(buf);
  blosc2_schunk_free(sc);

  if (argc > 2) {
    b2nd_array_t *arr = NULL;
    int rc = b2nd_open(argv[2], &arr);
    if (rc < 0) {
      printf("b2nd_open failed %d\n", rc);
      blosc2_destroy();
      return 1;
    }
    printf("ndim %d shape", arr->ndim);
    for (int i = 0; i < arr->ndim; i++) printf(" %" PRId64, arr->shape[i]);
    printf("\n");
    int64_t start[B2ND_MAX_DIM], stop[B2ND_MAX_DIM], shape[B2ND_MAX_DIM];
    int64_t items = 1;
    for (int i = 0; i < arr->ndim; i++) {
      start[i] = 0;
      stop[i] = arr->shape[i];
    }
    start[0] = 1; stop[0] = 3;
    if (arr->ndim > 1) { start[1] = 2; stop[1] = 7; }
    for (int i = 0; i < arr->ndim; i++) {
      shape[i] = stop[i] - start[i];
      items *= shape[i];
    }
    int64_t *out = malloc((size_t)items * sizeof(int64_t));
    rc = b2nd_get_slice_cbuffer(arr, start, stop, out, shape, items * (int64_t)sizeof(int64_t));
    if (rc < 0) {
      printf("slice failed %d\n", rc);
    } else {
      int64_t sum = 0;
      for (int64_t i = 0; i < items; i++) sum += out[i];
      printf("slice sum %" PRId64 "\n", sum);
    }
    free(out);
    b2nd_free(arr);
  }
  blosc2_destroy();
  return 0;
}
