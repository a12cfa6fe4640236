/* Round-trips a buffer through the C-Blosc2 API; prints "OK <cbytes>". */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <blosc2.h>

#define N (256 * 1024)

int main(void) {
  int32_t *src = malloc(N * sizeof(int32_t));
  int32_t *back = malloc(N * sizeof(int32_t));
  size_t nbytes = N * sizeof(int32_t);
  size_t destsize = nbytes + BLOSC2_MAX_OVERHEAD;
  void *comp = malloc(destsize);
  if (src == NULL || back == NULL || comp == NULL) return 2;
  for (int32_t i = 0; i < N; i++) src[i] = i;

  blosc2_init();
  int csize = blosc2_compress(5, BLOSC_SHUFFLE, sizeof(int32_t), src, (int32_t)nbytes, comp,
                              (int32_t)destsize);
  if (csize <= 0) {
    printf("compress failed: %d\n", csize);
    return 1;
  }
  memset(back, 0, nbytes);
  int dsize = blosc2_decompress(comp, csize, back, (int32_t)nbytes);
  if (dsize != (int)nbytes || memcmp(src, back, nbytes) != 0) {
    printf("decompress failed: %d\n", dsize);
    return 1;
  }
  blosc2_destroy();
  printf("OK %d\n", csize);
  free(src);
  free(back);
  free(comp);
  return 0;
}
