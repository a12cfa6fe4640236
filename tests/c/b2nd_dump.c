/* Open each b2nd (or caterva) array named on the command line with b2nd_open and print its
 * description; write its logical content (b2nd_to_cbuffer) to "<path>.out".
 * Used by tests/b2nd_caterva.rs, built once against the reference and once against b2rs. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b2nd.h"
#include "blosc2.h"

int main(int argc, char **argv) {
  blosc2_init();
  int rc = 0;
  for (int a = 1; a < argc; a++) {
    b2nd_array_t *arr = NULL;
    int err = b2nd_open(argv[a], &arr);
    if (err < 0) {
      printf("%s: open error %d\n", argv[a], err);
      rc = 1;
      continue;
    }
    printf("%s: ndim=%d typesize=%d dtype=%s dtype_format=%d nitems=%" PRId64 " shape=",
           argv[a], arr->ndim, arr->sc->typesize, arr->dtype ? arr->dtype : "(null)",
           (int)arr->dtype_format, arr->nitems);
    for (int i = 0; i < arr->ndim; i++) printf("%s%" PRId64, i ? "," : "", arr->shape[i]);
    printf(" chunks=");
    for (int i = 0; i < arr->ndim; i++) printf("%s%d", i ? "," : "", arr->chunkshape[i]);
    printf(" blocks=");
    for (int i = 0; i < arr->ndim; i++) printf("%s%d", i ? "," : "", arr->blockshape[i]);
    printf(" metas=");
    for (int i = 0; i < arr->sc->nmetalayers; i++)
      printf("%s%s", i ? "," : "", arr->sc->metalayers[i]->name);
    printf("\n");
    int64_t size = arr->nitems * arr->sc->typesize;
    uint8_t *buf = malloc(size > 0 ? (size_t)size : 1);
    err = b2nd_to_cbuffer(arr, buf, size);
    if (err < 0) {
      printf("%s: to_cbuffer error %d\n", argv[a], err);
      rc = 1;
    } else {
      char out[4096];
      snprintf(out, sizeof out, "%s.out", argv[a]);
      FILE *f = fopen(out, "wb");
      if (f == NULL || fwrite(buf, 1, (size_t)size, f) != (size_t)size) rc = 1;
      if (f) fclose(f);
    }
    free(buf);
    b2nd_free(arr);
  }
  blosc2_destroy();
  return rc;
}
