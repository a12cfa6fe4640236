/* b2rs example: a super-chunk with metalayers, stored as a frame in memory and
 * in a file, then reopened.
 *
 * Plain C-Blosc2 3.3 API: builds unchanged against C-Blosc2 or against b2rs
 *   cc schunk_frame.c $(pkg-config --cflags --libs blosc2)
 * Writes schunk_frame.b2frame in the current directory.  Reads the public
 * struct fields (schunk->nchunks, nbytes, cbytes, storage, metalayers[i]->name,
 * ...) directly, as C-Blosc2 programs do, and prints them with FNV-1a digests.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <blosc2.h>

#define CHUNK_ITEMS (50 * 1000)
#define NCHUNKS 6
#define URLPATH "schunk_frame.b2frame"

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

static void fill(int32_t *buf, int nchunk) {
  for (int i = 0; i < CHUNK_ITEMS; i++) buf[i] = nchunk * 1000 + (i % 777) + i / 5000;
}

/* Print what a C-Blosc2 program sees in the struct fields. */
static void describe(const char *what, blosc2_schunk *sc) {
  printf("%s: nchunks=%" PRId64 " nbytes=%" PRId64 " cbytes=%" PRId64
         " typesize=%d chunksize=%d blocksize=%d compcode=%d clevel=%d filters[5]=%d"
         " contiguous=%d urlpath=%s nmetalayers=%d nvlmetalayers=%d\n",
         what, sc->nchunks, sc->nbytes, sc->cbytes, (int)sc->typesize, sc->chunksize,
         sc->blocksize, (int)sc->compcode, (int)sc->clevel, (int)sc->filters[5],
         (int)sc->storage->contiguous, sc->storage->urlpath ? sc->storage->urlpath : "(null)",
         (int)sc->nmetalayers, (int)sc->nvlmetalayers);
  for (int i = 0; i < sc->nmetalayers; i++) {
    blosc2_metalayer *m = sc->metalayers[i];
    printf("  meta[%d] name=%s len=%d content=%016" PRIx64 "\n", i, m->name, m->content_len,
           fnv1a(m->content, (size_t)m->content_len));
  }
  for (int i = 0; i < sc->nvlmetalayers; i++) {
    uint8_t *content = NULL;
    int32_t len = 0;
    int r = blosc2_vlmeta_get(sc, sc->vlmetalayers[i]->name, &content, &len);
    printf("  vlmeta[%d] name=%s get=%d len=%d content=%016" PRIx64 "\n", i,
           sc->vlmetalayers[i]->name, r, len, content ? fnv1a(content, (size_t)len) : 0);
    free(content);
  }
  /* every chunk, decompressed */
  int32_t *buf = malloc(CHUNK_ITEMS * sizeof(int32_t));
  uint64_t h = 0;
  for (int64_t n = 0; n < sc->nchunks; n++) {
    int d = blosc2_schunk_decompress_chunk(sc, n, buf, CHUNK_ITEMS * sizeof(int32_t));
    EXPECT(d == CHUNK_ITEMS * (int)sizeof(int32_t));
    h ^= fnv1a(buf, CHUNK_ITEMS * sizeof(int32_t)) + (uint64_t)n;
  }
  printf("  data=%016" PRIx64 "\n", h);
  free(buf);
}

static void add_layers(blosc2_schunk *sc) {
  uint8_t shape_meta[] = {0x93, 0x01, 0x02, 0x03};
  EXPECT(blosc2_meta_add(sc, "shape", shape_meta, sizeof(shape_meta)) == 0);
  EXPECT(blosc2_meta_add(sc, "units", (uint8_t *)"metres", 6) == 1);
  EXPECT(blosc2_meta_exists(sc, "units") == 1);
  EXPECT(blosc2_meta_exists(sc, "nope") < 0);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.nthreads = 1;
  const char *note = "created by the schunk_frame example";
  EXPECT(blosc2_vlmeta_add(sc, "note", (uint8_t *)note, (int32_t)strlen(note), &cp) == 0);
  EXPECT(blosc2_vlmeta_add(sc, "scale", (uint8_t *)"\x01\x02\x03", 3, &cp) == 1);
}

int main(void) {
  blosc2_init();
  remove(URLPATH);
  int32_t *buf = malloc(CHUNK_ITEMS * sizeof(int32_t));

  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = sizeof(int32_t);
  cparams.compcode = BLOSC_ZSTD;
  cparams.clevel = 3;
  cparams.nthreads = 1;
  blosc2_dparams dparams = BLOSC2_DPARAMS_DEFAULTS;
  dparams.nthreads = 1;

  /* 1. in memory, contiguous: append, metalayers, update, insert, delete */
  blosc2_storage storage = {.contiguous = true, .cparams = &cparams, .dparams = &dparams};
  blosc2_schunk *sc = blosc2_schunk_new(&storage);
  EXPECT(sc != NULL);
  add_layers(sc);
  for (int n = 0; n < NCHUNKS; n++) {
    fill(buf, n);
    EXPECT(blosc2_schunk_append_buffer(sc, buf, CHUNK_ITEMS * sizeof(int32_t)) == n + 1);
  }
  uint8_t units[] = "feet!!";
  EXPECT(blosc2_meta_update(sc, "units", units, 6) == 1);
  const char *note2 = "updated note, longer than the first one was";
  EXPECT(blosc2_vlmeta_update(sc, "note", (uint8_t *)note2, (int32_t)strlen(note2), NULL) == 0);
  describe("memory", sc);

  uint8_t *chunk = NULL;
  bool needs_free = false;
  int csize = blosc2_schunk_get_chunk(sc, 2, &chunk, &needs_free);
  EXPECT(csize > 0);
  printf("chunk 2: csize=%d bytes=%016" PRIx64 "\n", csize, fnv1a(chunk, (size_t)csize));
  uint8_t *copy = malloc((size_t)csize);
  memcpy(copy, chunk, (size_t)csize);
  if (needs_free) free(chunk);
  EXPECT(blosc2_schunk_insert_chunk(sc, 0, copy, true) == NCHUNKS + 1);
  EXPECT(blosc2_schunk_delete_chunk(sc, 3) == NCHUNKS);
  free(copy);
  describe("edited", sc);

  /* 2. the frame in memory, and a super-chunk made from it */
  uint8_t *cframe = NULL;
  bool cframe_free = false;
  int64_t flen = blosc2_schunk_to_buffer(sc, &cframe, &cframe_free);
  EXPECT(flen > 0);
  printf("frame in memory: len=%" PRId64 " bytes=%016" PRIx64 "\n", flen,
         fnv1a(cframe, (size_t)flen));
  blosc2_schunk *sc2 = blosc2_schunk_from_buffer(cframe, flen, true);
  EXPECT(sc2 != NULL);
  if (sc2 != NULL) {
    describe("from buffer", sc2);
    blosc2_schunk_free(sc2);
  }

  /* 3. the frame in a file, reopened */
  EXPECT(blosc2_schunk_to_file(sc, URLPATH) == flen);
  blosc2_schunk_free(sc);
  if (cframe_free) free(cframe);

  blosc2_schunk *sc3 = blosc2_schunk_open(URLPATH);
  EXPECT(sc3 != NULL);
  if (sc3 != NULL) {
    describe("file", sc3);
    fill(buf, 99);
    EXPECT(blosc2_schunk_append_buffer(sc3, buf, CHUNK_ITEMS * sizeof(int32_t)) == NCHUNKS + 1);
    EXPECT(blosc2_vlmeta_delete(sc3, "scale") == 1);
    blosc2_schunk_free(sc3);
  }
  sc3 = blosc2_schunk_open(URLPATH);
  EXPECT(sc3 != NULL);
  if (sc3 != NULL) {
    describe("file after append", sc3);
    char **names = malloc(sc3->nvlmetalayers * sizeof(char *));
    int nn = blosc2_vlmeta_get_names(sc3, names);
    for (int i = 0; i < nn; i++) printf("  vlmeta name %s\n", names[i]);
    free(names);
    blosc2_schunk_free(sc3);
  }
  FILE *f = fopen(URLPATH, "rb");
  if (f != NULL) {
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *bytes = malloc((size_t)size);
    size_t got = fread(bytes, 1, (size_t)size, f);
    fclose(f);
    printf("frame file: len=%ld bytes=%016" PRIx64 "\n", size, fnv1a(bytes, got));
    free(bytes);
  }
  remove(URLPATH);

  free(buf);
  blosc2_destroy();
  printf("%s\n", failures == 0 ? "OK" : "FAILED");
  return failures == 0 ? 0 : 1;
}
