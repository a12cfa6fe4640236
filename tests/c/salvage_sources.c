/*
 * The undamaged frames of the salvage measurement (tests/salvage.rs): 19 contiguous frame
 * files in several storage kinds and codecs, and b2nd arrays, written into the directory
 * argv[1] by whichever library this is linked with (the test links it with C-Blosc2 3.3.5).
 * Prints the file names, one per line.
 */
#include <blosc2.h>
#include <b2nd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 10000 /* items per chunk */

static char g_dir[4096];
static int g_fail = 0;

static const char *path_of(const char *name) {
  static char p[8192];
  snprintf(p, sizeof p, "%s/%s", g_dir, name);
  return p;
}

#define TRY(x)                                                              \
  do {                                                                      \
    if ((x) < 0) {                                                          \
      fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x);        \
      g_fail = 1;                                                           \
    }                                                                       \
  } while (0)

/* items of chunk k: a noisy ramp (compressible, not a run) */
static void fill(void *buf, int typesize, int n, int k) {
  uint32_t s = 2463534242u + (uint32_t)k * 977u;
  for (int i = 0; i < n; i++) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    int64_t v = (int64_t)k * n + i + (s % 7);
    switch (typesize) {
      case 1: ((uint8_t *)buf)[i] = (uint8_t)("the quick brown fox jumps "[(i + k) % 26] ^ (s % 3 == 0)); break;
      case 2: ((int16_t *)buf)[i] = (int16_t)v; break;
      case 4: ((int32_t *)buf)[i] = (int32_t)v; break;
      default: ((double *)buf)[i] = (double)v * 0.5; break;
    }
  }
}

static blosc2_schunk *new_frame(const char *name, blosc2_cparams *cp) {
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  const char *p = path_of(name);
  blosc2_remove_urlpath(p);
  blosc2_storage st = {.contiguous = true, .urlpath = (char *)p, .cparams = cp, .dparams = &dp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  if (sc == NULL) {
    fprintf(stderr, "cannot create %s\n", name);
    exit(1);
  }
  return sc;
}

static void append(blosc2_schunk *sc, int typesize, int nchunks, int n) {
  void *buf = malloc((size_t)n * typesize);
  for (int k = 0; k < nchunks; k++) {
    fill(buf, typesize, n, k);
    TRY(blosc2_schunk_append_buffer(sc, buf, (int32_t)n * typesize));
  }
  free(buf);
}

static void done(blosc2_schunk *sc, const char *name) {
  blosc2_schunk_free(sc);
  printf("%s\n", name);
}

static void simple(const char *name, int compcode, int clevel, int typesize, uint8_t filter,
                   int nchunks) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = compcode;
  cp.clevel = clevel;
  cp.typesize = typesize;
  cp.filters[BLOSC2_MAX_FILTERS - 1] = filter;
  blosc2_schunk *sc = new_frame(name, &cp);
  append(sc, typesize, nchunks, N);
  done(sc, name);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  snprintf(g_dir, sizeof g_dir, "%s", argv[1]);
  blosc2_init();

  simple("s01-lz4.b2frame", BLOSC_LZ4, 5, 4, BLOSC_SHUFFLE, 8);
  simple("s02-zstd-bitshuffle.b2frame", BLOSC_ZSTD, 5, 8, BLOSC_BITSHUFFLE, 6);
  simple("s03-blosclz.b2frame", BLOSC_BLOSCLZ, 5, 4, BLOSC_SHUFFLE, 8);
  simple("s04-zlib.b2frame", BLOSC_ZLIB, 9, 4, BLOSC_SHUFFLE, 5);
  simple("s17-text-blosclz1.b2frame", BLOSC_BLOSCLZ, 1, 1, BLOSC_NOFILTER, 6);

  { /* LZ4HC, delta then shuffle */
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = BLOSC_LZ4HC;
    cp.typesize = 4;
    cp.filters[BLOSC2_MAX_FILTERS - 2] = BLOSC_DELTA;
    blosc2_schunk *sc = new_frame("s05-lz4hc-delta.b2frame", &cp);
    append(sc, 4, 6, N);
    done(sc, "s05-lz4hc-delta.b2frame");
  }
  { /* Zstd with a dictionary */
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = BLOSC_ZSTD;
    cp.typesize = 4;
    cp.use_dict = 1;
    cp.clevel = 3;
    blosc2_schunk *sc = new_frame("s06-zstd-dict.b2frame", &cp);
    append(sc, 4, 6, N);
    done(sc, "s06-zstd-dict.b2frame");
  }
  { /* metalayers and vlmetalayers */
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    blosc2_schunk *sc = new_frame("s07-meta.b2frame", &cp);
    uint8_t m1[] = {0x93, 1, 2, 3}, m2[40];
    for (int i = 0; i < 40; i++) m2[i] = (uint8_t)(0xA0 + i % 16);
    TRY(blosc2_meta_add(sc, "first", m1, sizeof m1));
    TRY(blosc2_meta_add(sc, "second_meta", m2, sizeof m2));
    append(sc, 4, 6, N);
    const char *v1 = "\xa5hello";
    uint8_t v2[300];
    for (int i = 0; i < 300; i++) v2[i] = (uint8_t)(i * 7);
    TRY(blosc2_vlmeta_add(sc, "vl1", (uint8_t *)v1, 6, NULL));
    TRY(blosc2_vlmeta_add(sc, "vl_two", v2, sizeof v2, NULL));
    done(sc, "s07-meta.b2frame");
  }
  { /* variable chunk sizes */
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    blosc2_schunk *sc = new_frame("s08-varchunks.b2frame", &cp);
    int32_t *buf = malloc(2 * N * 4);
    int sizes[] = {N, N / 2, 2 * N, 1000, N, 333};
    for (int k = 0; k < 6; k++) {
      fill(buf, 4, sizes[k], k);
      TRY(blosc2_schunk_append_buffer(sc, buf, sizes[k] * 4));
    }
    free(buf);
    done(sc, "s08-varchunks.b2frame");
  }
  { /* special chunks between normal ones */
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    blosc2_schunk *sc = new_frame("s09-special.b2frame", &cp);
    append(sc, 4, 2, N);
    uint8_t chunk[BLOSC_EXTENDED_HEADER_LENGTH + 8];
    TRY(blosc2_chunk_zeros(cp, N * 4, chunk, sizeof chunk));
    TRY(blosc2_schunk_append_chunk(sc, chunk, true));
    int32_t v = 1234;
    TRY(blosc2_chunk_repeatval(cp, N * 4, chunk, sizeof chunk, &v));
    TRY(blosc2_schunk_append_chunk(sc, chunk, true));
    TRY(blosc2_chunk_uninit(cp, N * 4, chunk, sizeof chunk));
    TRY(blosc2_schunk_append_chunk(sc, chunk, true));
    int32_t *buf = malloc(N * 4);
    fill(buf, 4, N, 9);
    TRY(blosc2_schunk_append_buffer(sc, buf, N * 4));
    memset(buf, 0, N * 4);
    TRY(blosc2_schunk_append_buffer(sc, buf, N * 4));
    free(buf);
    done(sc, "s09-special.b2frame");
  }
  { /* many small chunks: an index of several blocks */
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    blosc2_schunk *sc = new_frame("s10-many.b2frame", &cp);
    append(sc, 4, 300, 200);
    done(sc, "s10-many.b2frame");
  }
  { /* inserts, deletes and updates: offsets out of order */
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    blosc2_schunk *sc = new_frame("s11-edited.b2frame", &cp);
    append(sc, 4, 6, N);
    int32_t *buf = malloc(N * 4);
    blosc2_context *cctx = blosc2_create_cctx(cp);
    uint8_t *chunk = malloc(N * 4 + BLOSC2_MAX_OVERHEAD);
    fill(buf, 4, N, 20);
    int cs = blosc2_compress_ctx(cctx, buf, N * 4, chunk, N * 4 + BLOSC2_MAX_OVERHEAD);
    TRY(cs);
    TRY(blosc2_schunk_insert_chunk(sc, 1, chunk, true));
    fill(buf, 4, N, 21);
    cs = blosc2_compress_ctx(cctx, buf, N * 4, chunk, N * 4 + BLOSC2_MAX_OVERHEAD);
    TRY(blosc2_schunk_update_chunk(sc, 4, chunk, true));
    TRY(blosc2_schunk_delete_chunk(sc, 2));
    blosc2_free_ctx(cctx);
    free(chunk);
    free(buf);
    done(sc, "s11-edited.b2frame");
  }
  { /* an in-memory contiguous frame, serialised */
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    cp.compcode = BLOSC_ZSTD;
    cp.clevel = 1;
    blosc2_storage st = {.contiguous = true, .cparams = &cp};
    blosc2_schunk *sc = blosc2_schunk_new(&st);
    append(sc, 4, 6, N);
    TRY(blosc2_schunk_to_file(sc, path_of("s12-memory.b2frame")));
    blosc2_schunk_free(sc);
    printf("s12-memory.b2frame\n");
  }
  { /* an in-memory sparse super-chunk, serialised */
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 8;
    blosc2_storage st = {.contiguous = false, .cparams = &cp};
    blosc2_schunk *sc = blosc2_schunk_new(&st);
    append(sc, 8, 5, N);
    uint8_t vl[] = {0xc3};
    TRY(blosc2_vlmeta_add(sc, "flag", vl, 1, NULL));
    TRY(blosc2_schunk_to_file(sc, path_of("s13-sparse-memory.b2frame")));
    blosc2_schunk_free(sc);
    printf("s13-sparse-memory.b2frame\n");
  }
  { /* b2nd: a 2-D int32 array from a buffer */
    int64_t shape[] = {300, 200};
    int32_t chunkshape[] = {100, 100}, blockshape[] = {25, 50};
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    blosc2_storage st = {.contiguous = true, .urlpath = (char *)path_of("s14-b2nd-2d.b2nd"),
                         .cparams = &cp};
    blosc2_remove_urlpath(st.urlpath);
    b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, chunkshape, blockshape, NULL, 0, NULL, 0);
    int32_t *buf = malloc(300 * 200 * 4);
    fill(buf, 4, 300 * 200, 3);
    b2nd_array_t *a;
    TRY(b2nd_from_cbuffer(ctx, &a, buf, 300 * 200 * 4));
    TRY(b2nd_free(a));
    TRY(b2nd_free_ctx(ctx));
    free(buf);
    printf("s14-b2nd-2d.b2nd\n");
  }
  { /* b2nd: a 3-D float64 array of zeros with a slice written */
    int64_t shape[] = {40, 30, 20};
    int32_t chunkshape[] = {20, 15, 20}, blockshape[] = {10, 5, 10};
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 8;
    cp.compcode = BLOSC_ZSTD;
    blosc2_storage st = {.contiguous = true, .urlpath = (char *)path_of("s15-b2nd-3d.b2nd"),
                         .cparams = &cp};
    blosc2_remove_urlpath(st.urlpath);
    b2nd_context_t *ctx = b2nd_create_ctx(&st, 3, shape, chunkshape, blockshape, "<f8", 0, NULL, 0);
    b2nd_array_t *a;
    TRY(b2nd_zeros(ctx, &a));
    int64_t start[] = {5, 0, 0}, stop[] = {35, 30, 20}, bshape[] = {30, 30, 20};
    double *buf = malloc(30 * 30 * 20 * 8);
    fill(buf, 8, 30 * 30 * 20, 4);
    TRY(b2nd_set_slice_cbuffer(buf, bshape, 30 * 30 * 20 * 8, start, stop, a));
    TRY(b2nd_free(a));
    TRY(b2nd_free_ctx(ctx));
    free(buf);
    printf("s15-b2nd-3d.b2nd\n");
  }
  { /* b2nd: 1-D int16 with a vlmetalayer */
    int64_t shape[] = {50000};
    int32_t chunkshape[] = {8000}, blockshape[] = {2000};
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 2;
    cp.compcode = BLOSC_LZ4;
    blosc2_storage st = {.contiguous = true, .urlpath = (char *)path_of("s16-b2nd-1d.b2nd"),
                         .cparams = &cp};
    blosc2_remove_urlpath(st.urlpath);
    b2nd_context_t *ctx = b2nd_create_ctx(&st, 1, shape, chunkshape, blockshape, "<i2", 0, NULL, 0);
    int16_t *buf = malloc(50000 * 2);
    fill(buf, 2, 50000, 5);
    b2nd_array_t *a;
    TRY(b2nd_from_cbuffer(ctx, &a, buf, 50000 * 2));
    uint8_t vl[] = {0xa3, 'a', 'b', 'c'};
    TRY(blosc2_vlmeta_add(a->sc, "name", vl, 4, NULL));
    TRY(b2nd_free(a));
    TRY(b2nd_free_ctx(ctx));
    free(buf);
    printf("s16-b2nd-1d.b2nd\n");
  }
  { /* two threads, fixed 64 KiB blocks */
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    cp.nthreads = 2;
    cp.blocksize = 1 << 16;
    blosc2_schunk *sc = new_frame("s18-threads-blocks.b2frame", &cp);
    append(sc, 4, 4, 4 * N);
    done(sc, "s18-threads-blocks.b2frame");
  }
  { /* Zstd, always split */
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 8;
    cp.compcode = BLOSC_ZSTD;
    cp.splitmode = BLOSC_ALWAYS_SPLIT;
    blosc2_schunk *sc = new_frame("s19-zstd-split.b2frame", &cp);
    append(sc, 8, 5, N);
    done(sc, "s19-zstd-split.b2frame");
  }
  blosc2_destroy();
  return g_fail;
}
