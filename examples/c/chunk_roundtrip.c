/* b2rs example: compress and decompress one chunk with each codec and filter.
 *
 * Plain C-Blosc2 3.3 API: builds unchanged against C-Blosc2 or against b2rs
 *   cc chunk_roundtrip.c $(pkg-config --cflags --libs blosc2)
 * Prints one line per (codec, filter) with the chunk header fields and an
 * FNV-1a digest of the compressed bytes, so two runs can be compared.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <blosc2.h>

#define N (100 * 1000)

static uint64_t fnv1a(const void *data, size_t len) {
  const uint8_t *p = data;
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= 1099511628211ULL;
  }
  return h;
}

int main(void) {
  int64_t *src = malloc(N * sizeof(int64_t));
  int64_t *back = malloc(N * sizeof(int64_t));
  int32_t nbytes = N * (int32_t)sizeof(int64_t);
  int32_t destsize = nbytes + BLOSC2_MAX_OVERHEAD;
  uint8_t *comp = malloc(destsize);
  if (src == NULL || back == NULL || comp == NULL) return 2;
  for (int64_t i = 0; i < N; i++) src[i] = (i * 7) % 1000 + (i / 3000);

  blosc2_init();
  printf("version %s\n", BLOSC2_VERSION_STRING);
  const uint8_t codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
  const uint8_t filters[] = {BLOSC_NOSHUFFLE, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE, BLOSC_DELTA};
  int failures = 0;
  for (size_t c = 0; c < sizeof(codecs); c++) {
    for (size_t f = 0; f < sizeof(filters); f++) {
      blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
      cparams.compcode = codecs[c];
      cparams.clevel = 5;
      cparams.typesize = sizeof(int64_t);
      cparams.nthreads = 1;
      if (filters[f] == BLOSC_DELTA) {
        cparams.filters[BLOSC2_MAX_FILTERS - 2] = BLOSC_DELTA;
        cparams.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE;
      } else {
        cparams.filters[BLOSC2_MAX_FILTERS - 1] = filters[f];
      }
      blosc2_context *cctx = blosc2_create_cctx(cparams);
      int csize = blosc2_compress_ctx(cctx, src, nbytes, comp, destsize);
      blosc2_free_ctx(cctx);
      if (csize <= 0) {
        printf("compress codec=%d filter=%d failed: %d\n", (int)codecs[c], (int)filters[f], csize);
        failures++;
        continue;
      }
      int32_t hn, hc, hb;
      blosc2_cbuffer_sizes(comp, &hn, &hc, &hb);
      const char *cname = NULL;
      blosc2_compcode_to_compname(codecs[c], &cname);

      blosc2_dparams dparams = BLOSC2_DPARAMS_DEFAULTS;
      dparams.nthreads = 1;
      blosc2_context *dctx = blosc2_create_dctx(dparams);
      memset(back, 0, nbytes);
      int dsize = blosc2_decompress_ctx(dctx, comp, csize, back, nbytes);
      int64_t item[4];
      int g = blosc2_getitem_ctx(dctx, comp, csize, 12345, 4, item, sizeof(item));
      blosc2_free_ctx(dctx);
      int ok = dsize == nbytes && memcmp(src, back, nbytes) == 0 && g == (int)sizeof(item) &&
               memcmp(item, src + 12345, sizeof(item)) == 0;
      if (!ok) failures++;
      printf("%-8s filter=%d csize=%d nbytes=%d cbytes=%d blocksize=%d comp=%016" PRIx64
             " %s\n",
             cname, (int)filters[f], csize, hn, hc, hb, fnv1a(comp, (size_t)csize),
             ok ? "roundtrip-ok" : "ROUNDTRIP-FAILED");
    }
  }

  /* special chunks */
  int zsize = blosc2_chunk_zeros(BLOSC2_CPARAMS_DEFAULTS, nbytes, comp, destsize);
  int dsize = blosc2_decompress(comp, zsize, back, nbytes);
  int zeros_ok = dsize == nbytes;
  for (int i = 0; i < N && zeros_ok; i++) zeros_ok = back[i] == 0;
  printf("zeros chunk: csize=%d decompressed=%d %s\n", zsize, dsize, zeros_ok ? "ok" : "BAD");
  if (!zeros_ok) failures++;

  blosc2_destroy();
  free(src);
  free(back);
  free(comp);
  printf("%s\n", failures == 0 ? "OK" : "FAILED");
  return failures == 0 ? 0 : 1;
}
