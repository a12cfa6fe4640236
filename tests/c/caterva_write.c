/* Write arrays whose only metalayer is the legacy "caterva" one (fixarray of 5: version,
 * ndim, shape, chunkshape, blockshape; no dtype), as Caterva did, into <dir>/<name>.b2frame,
 * with the expected logical content in <dir>/<name>.expected.
 * The chunks are laid out by b2nd_from_cbuffer on an in-memory array, then copied into a
 * file super-chunk that carries only the "caterva" metalayer.
 * Used by tests/b2nd_caterva.rs, built once against the reference and once against b2rs. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b2nd.h"
#include "blosc2.h"

static int put_be(uint8_t *p, uint64_t v, int n) {
  for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
  return n;
}

static int caterva_meta(uint8_t *m, int8_t ndim, const int64_t *shape, const int32_t *chunks,
                        const int32_t *blocks) {
  int n = 0;
  m[n++] = 0x95;
  m[n++] = 0;
  m[n++] = (uint8_t)ndim;
  m[n++] = (uint8_t)(0x90 + ndim);
  for (int i = 0; i < ndim; i++) {
    m[n++] = 0xd3;
    n += put_be(m + n, (uint64_t)shape[i], 8);
  }
  m[n++] = (uint8_t)(0x90 + ndim);
  for (int i = 0; i < ndim; i++) {
    m[n++] = 0xd2;
    n += put_be(m + n, (uint32_t)chunks[i], 4);
  }
  m[n++] = (uint8_t)(0x90 + ndim);
  for (int i = 0; i < ndim; i++) {
    m[n++] = 0xd2;
    n += put_be(m + n, (uint32_t)blocks[i], 4);
  }
  return n;
}

static int write_one(const char *dir, const char *name, int8_t ndim, const int64_t *shape,
                     const int32_t *chunks, const int32_t *blocks, int32_t typesize,
                     uint8_t codec) {
  int64_t nitems = 1;
  for (int i = 0; i < ndim; i++) nitems *= shape[i];
  int64_t size = nitems * typesize;
  uint8_t *data = malloc(size > 0 ? (size_t)size : 1);
  uint64_t x = 0x9e3779b97f4a7c15ULL * (uint64_t)(typesize + ndim);
  for (int64_t i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    /* compressible: a ramp with some noise in the low byte of each item */
    data[i] = (uint8_t)((i % typesize == 0) ? (x & 3) : (i / typesize / 7));
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.expected", dir, name);
  FILE *f = fopen(path, "wb");
  if (f == NULL || fwrite(data, 1, (size_t)size, f) != (size_t)size) return 1;
  fclose(f);

  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = typesize;
  cparams.compcode = codec;
  blosc2_storage storage = {.contiguous = false, .cparams = &cparams};
  b2nd_context_t *ctx =
      b2nd_create_ctx(&storage, ndim, shape, chunks, blocks, NULL, 0, NULL, 0);
  b2nd_array_t *arr = NULL;
  if (ctx == NULL || b2nd_from_cbuffer(ctx, &arr, data, size) < 0) return 2;

  snprintf(path, sizeof path, "%s/%s.b2frame", dir, name);
  blosc2_remove_urlpath(path);
  blosc2_storage fstorage = {.contiguous = true, .urlpath = path, .cparams = &cparams};
  blosc2_schunk *sc = blosc2_schunk_new(&fstorage);
  if (sc == NULL) return 3;
  uint8_t meta[1024];
  int mlen = caterva_meta(meta, ndim, shape, chunks, blocks);
  if (blosc2_meta_add(sc, "caterva", meta, mlen) < 0) return 4;
  for (int64_t i = 0; i < arr->sc->nchunks; i++) {
    uint8_t *chunk;
    bool needs_free;
    if (blosc2_schunk_get_chunk(arr->sc, i, &chunk, &needs_free) < 0) return 5;
    if (blosc2_schunk_append_chunk(sc, chunk, true) < 0) return 6;
    if (needs_free) free(chunk);
  }
  blosc2_schunk_free(sc);
  b2nd_free(arr);
  b2nd_free_ctx(ctx);
  free(data);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) return 64;
  blosc2_init();
  const char *d = argv[1];
  int rc = 0;
  {
    int64_t s[] = {14, 10};
    int32_t c[] = {8, 5}, b[] = {2, 2};
    rc |= write_one(d, "i4_2d", 2, s, c, b, 4, BLOSC_LZ4);
  }
  {
    int64_t s[] = {1000};
    int32_t c[] = {100}, b[] = {30};
    rc |= write_one(d, "u1_1d", 1, s, c, b, 1, BLOSC_BLOSCLZ);
  }
  {
    int64_t s[] = {10, 10, 10};
    int32_t c[] = {3, 5, 9}, b[] = {3, 4, 4};
    rc |= write_one(d, "f8_3d", 3, s, c, b, 8, BLOSC_ZSTD);
  }
  {
    int64_t s[] = {5, 4, 3, 2};
    int32_t c[] = {2, 3, 3, 1}, b[] = {1, 2, 2, 1};
    rc |= write_one(d, "s6_4d", 4, s, c, b, 6, BLOSC_ZLIB);
  }
  {
    int64_t s[] = {20, 0};
    int32_t c[] = {7, 1}, b[] = {3, 1};
    rc |= write_one(d, "i8_empty", 2, s, c, b, 8, BLOSC_LZ4);
  }
  blosc2_destroy();
  if (rc) fprintf(stderr, "caterva_write failed: %d\n", rc);
  return rc;
}
