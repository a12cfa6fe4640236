/* What a C-Blosc2 user writes to store a super-chunk and a b2nd array: with b2rs the urlpath
 * may be an s3:// URL.
 *
 * usage: remote_write sparse|contiguous URLPATH N   new super-chunk of N chunks (int32 ramps)
 *        remote_write append URLPATH N [DELAY_MS]   open it and append N more chunks
 *        remote_write update URLPATH K              open it, replace chunk K by -1s, delete chunk 0
 *        remote_write b2nd URLPATH                  new 10x12x5 int64 array (arange)
 * $CLEVEL sets the compression level of new super-chunks (default 5).
 * prints a line per chunk appended, flushed, and the return code of the free call. */
#include <blosc2.h>
#include <b2nd.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK_ITEMS 10000

static int append(blosc2_schunk *sc, int64_t first, int64_t n, long delay_ms) {
  int32_t *buf = malloc(CHUNK_ITEMS * sizeof(int32_t));
  for (int64_t k = 0; k < n; k++) {
    int64_t c = first + k;
    for (int j = 0; j < CHUNK_ITEMS; j++) buf[j] = (int32_t)(c * CHUNK_ITEMS + j);
    int64_t rc = blosc2_schunk_append_buffer(sc, buf, CHUNK_ITEMS * sizeof(int32_t));
    if (rc < 0) {
      printf("append error %" PRId64 "\n", rc);
      free(buf);
      return 1;
    }
    printf("appended %" PRId64 "\n", c);
    fflush(stdout);
    if (delay_ms > 0) {
      struct timespec ts = {delay_ms / 1000, (delay_ms % 1000) * 1000000L};
      nanosleep(&ts, NULL);
    }
  }
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: see the source\n");
    return 2;
  }
  blosc2_init();
  int rc = 0;
  if (strcmp(argv[1], "sparse") == 0 || strcmp(argv[1], "contiguous") == 0) {
    blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
    cparams.typesize = sizeof(int32_t);
    cparams.clevel = getenv("CLEVEL") ? atoi(getenv("CLEVEL")) : 5;
    blosc2_storage storage = {.contiguous = strcmp(argv[1], "contiguous") == 0,
                              .urlpath = argv[2], .cparams = &cparams};
    blosc2_schunk *sc = blosc2_schunk_new(&storage);
    if (sc == NULL) {
      printf("create failed\n");
      return 1;
    }
    rc = append(sc, 0, atoll(argv[3]), 0);
    printf("free %d\n", blosc2_schunk_free(sc));
  } else if (strcmp(argv[1], "append") == 0) {
    blosc2_schunk *sc = blosc2_schunk_open(argv[2]);
    if (sc == NULL) {
      printf("open failed\n");
      return 1;
    }
    rc = append(sc, sc->nchunks, atoll(argv[3]), argc > 4 ? atol(argv[4]) : 0);
    printf("free %d\n", blosc2_schunk_free(sc));
  } else if (strcmp(argv[1], "update") == 0) {
    blosc2_schunk *sc = blosc2_schunk_open(argv[2]);
    if (sc == NULL) {
      printf("open failed\n");
      return 1;
    }
    int32_t *buf = malloc(CHUNK_ITEMS * sizeof(int32_t));
    for (int j = 0; j < CHUNK_ITEMS; j++) buf[j] = -1;
    uint8_t *chunk = malloc(CHUNK_ITEMS * sizeof(int32_t) + BLOSC2_MAX_OVERHEAD);
    int csize = blosc2_compress_ctx(sc->cctx, buf, CHUNK_ITEMS * sizeof(int32_t), chunk,
                                    CHUNK_ITEMS * sizeof(int32_t) + BLOSC2_MAX_OVERHEAD);
    int64_t k = atoll(argv[3]);
    printf("update %" PRId64 "\n", csize < 0 ? (int64_t)csize : blosc2_schunk_update_chunk(sc, k, chunk, true));
    printf("delete %" PRId64 "\n", blosc2_schunk_delete_chunk(sc, 0));
    free(chunk);
    free(buf);
    printf("free %d\n", blosc2_schunk_free(sc));
  } else if (strcmp(argv[1], "b2nd") == 0) {
    int64_t shape[3] = {10, 12, 5};
    int32_t chunkshape[3] = {4, 5, 5};
    int32_t blockshape[3] = {2, 3, 5};
    int64_t n = 10 * 12 * 5;
    int64_t *data = malloc(n * sizeof(int64_t));
    for (int64_t i = 0; i < n; i++) data[i] = i;
    blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
    cparams.typesize = sizeof(int64_t);
    blosc2_storage storage = {.contiguous = true, .urlpath = argv[2], .cparams = &cparams};
    b2nd_context_t *ctx = b2nd_create_ctx(&storage, 3, shape, chunkshape, blockshape, "<i8",
                                          DTYPE_NUMPY_FORMAT, NULL, 0);
    b2nd_array_t *arr = NULL;
    rc = b2nd_from_cbuffer(ctx, &arr, data, n * sizeof(int64_t));
    printf("from_cbuffer %d\n", rc);
    if (rc == 0) printf("free %d\n", b2nd_free(arr));
    b2nd_free_ctx(ctx);
    free(data);
  }
  blosc2_destroy();
  return rc < 0 ? 1 : rc;
}
