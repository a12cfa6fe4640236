/*
 * test_runtime_plugins.c - plugins loaded at run time (tuners and codecs), as a C-Blosc2 3.3
 * program uses them, under the sanitizers too (B2RS_SANITIZE=asan|valgrind).
 *
 * The test runner builds c-tests/plugins/b2rstune.c as libblosc2_b2rstune.so and puts its
 * directory on LD_LIBRARY_PATH (this file says B2RS_TEST_PLUGINS). Checked:
 * - blosc2_register_tuner's id rules and the contexts refused for unknown tuner ids;
 * - the b2rstune plugin (a tuner built for 3.3's private context layout, registered by name
 *   without functions) loaded when a context needs it, called as the reference calls tuners
 *   (init, next_cparams or next_blocksize, update with the chunk's size, free), steering
 *   blocksize, codec, clevel, filters, split mode and threads: each tuned chunk is the chunk
 *   that those parameters give without a tuner; its errors give the reference's codes;
 * - BTune (tuner 32, the PyPI wheel blosc2-btune) picked by BTUNE_TRADEOFF in
 *   blosc2_schunk_new, loaded through Python, changing nothing (it was built for the 2.19
 *   layout); skipped when the wheel is missing, except on CI;
 * - the openzl codec plugin (38, PyPI blosc2-openzl) found through Python, in round trips.
 *
 * Reference bugs compiled out (B2RS_REFERENCE only):
 * - B2RS_REFERENCE_BUG_TUNER_FLAGS: the reference computes the header's delta flag (0x08 of
 *   byte 2) from the filters *before* the tuner changed them, so a tuned chunk's flag tells
 *   the previous chunk's filters (the data and the filter list are right); b2rs writes the
 *   flag of the filters used.
 * - B2RS_REFERENCE_BUG_TUNER_BLOCKSIZE_LAG: when a tuner changes the blocksize from one chunk
 *   to the next, the reference writes the previous chunk's blocksize in the header of a chunk
 *   compressed with the new one, and cannot decompress it (-3).
 * - B2RS_REFERENCE_BUG_TUNER_BLOCKSIZE: a tuner leaving blocksize 0 (BTune 1.2.1 on a 3.3
 *   library, with an automatic blocksize) makes the reference divide by zero (SIGFPE); b2rs
 *   chooses the blocksize as without a tuner.
 *
 * B2RS_TEST_PLUGINS
 */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "b2rs_test.h"
#include "b2nd.h"

#ifdef B2RS_REFERENCE
#define B2RS_REFERENCE_BUG_TUNER_FLAGS 1
#define B2RS_REFERENCE_BUG_TUNER_BLOCKSIZE 1
#define B2RS_REFERENCE_BUG_TUNER_BLOCKSIZE_LAG 1
#endif

#define TUNE_ID 170
#define NITEMS 50000
#define NBYTES (NITEMS * 4)

typedef struct {
  int compcode, clevel, blocksize, splitmode, nthreads;
  uint8_t filters[6], filters_meta[6];
} b2rstune_params;

/* a symbol of the loaded tuner plugin (NULL while it is not loaded) */
static void *plug(const char *sym) {
  void *h = dlopen("libblosc2_b2rstune.so", RTLD_LAZY | RTLD_NOLOAD);
  if (h == NULL) return NULL;
  void *p = dlsym(h, sym);
  dlclose(h);
  return p;
}

static int calls(int i) {
  int *c = plug("b2rstune_calls");
  return c ? c[i] : -1;
}

static int plug_bad(void) {
  int *b = plug("b2rstune_bad");
  return b ? *b : -1;
}

/* the plugin's decision for the k-th chunk of a context in steering mode `mode` */
static int mode_now = 0;
static void choice(int k, b2rstune_params *p) {
  void (*f)(int, int, b2rstune_params *) =
      (void (*)(int, int, b2rstune_params *))plug("b2rstune_choice");
  memset(p, 0, sizeof *p);
  if (f) f(k, mode_now, p);
}

static void register_b2rstune(void) {
  blosc2_tuner t = {0};
  t.id = TUNE_ID;
  t.name = "b2rstune";
  CHECK_EQ(blosc2_register_tuner(&t), 0);
}

static void fill_data(int32_t *d, int k) {
  for (int i = 0; i < NITEMS; i++) d[i] = i * 3 + (i % 17) * k;
}

static blosc2_cparams tuned_cparams(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.clevel = 5;
  cp.tuner_id = TUNE_ID;
  cp.tuner_params = &mode_now;
  return cp;
}

/* the chunk the k-th decision gives without a tuner */
static int untuned_chunk(int k, const void *src, uint8_t *out, int32_t cap) {
  b2rstune_params p;
  choice(k, &p);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.compcode = (uint8_t)p.compcode;
  cp.clevel = (uint8_t)p.clevel;
  cp.blocksize = p.blocksize;
  cp.splitmode = p.splitmode;
  cp.nthreads = (int16_t)p.nthreads;
  memcpy(cp.filters, p.filters, 6);
  memcpy(cp.filters_meta, p.filters_meta, 6);
  blosc2_context *c = blosc2_create_cctx(cp);
  int n = blosc2_compress_ctx(c, src, NBYTES, out, cap);
  blosc2_free_ctx(c);
  return n;
}

/* a tuned chunk is the untuned chunk of the same decision */
static void check_chunk_is_decision(int k, const void *src, const uint8_t *chunk, int cb) {
  uint8_t *ref = malloc(NBYTES + BLOSC2_MAX_OVERHEAD);
  int n = untuned_chunk(k, src, ref, NBYTES + BLOSC2_MAX_OVERHEAD);
  CHECK_EQ(cb, n);
  b2rstune_params p;
  choice(k, &p);
#ifdef B2RS_REFERENCE
  /* the reference's blocks come in thread-timing order with more than one thread (README) */
  if (p.nthreads > 1 && cb == n && n > 16) {
    CHECK_MEM(chunk + 3, ref + 3, 13);
    n = 0;
  }
#endif
  if (cb == n && n > 16) {
#ifdef B2RS_REFERENCE_BUG_TUNER_FLAGS
    CHECK_EQ(chunk[2] & ~0x08, ref[2] & ~0x08);
    CHECK_MEM(chunk + 3, ref + 3, (size_t)n - 3);
#else
    CHECK_MEM(chunk, ref, (size_t)n);
#endif
  }
  CHECK_EQ(*(int32_t *)(chunk + 8), p.blocksize);
  free(ref);
}

/* ------------------------------------------------------------------ */

static void test_register_tuner_rules(void) {
  static const int refused[] = {0, 1, 5, 31, 32, 33, 100, 159};
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
    blosc2_tuner t = {0};
    t.id = refused[i];
    t.name = "x";
    CHECK_EQ(blosc2_register_tuner(&t), BLOSC2_ERROR_FAILURE);
  }
  blosc2_tuner a = {0};
  a.id = 200;
  a.name = "tuner_a";
  CHECK_EQ(blosc2_register_tuner(&a), 0);
  CHECK_EQ(blosc2_register_tuner(&a), 0);
  blosc2_tuner b = {0};
  b.id = 200;
  b.name = "tuner_b";
  CHECK_EQ(blosc2_register_tuner(&b), BLOSC2_ERROR_FAILURE);
  blosc2_tuner c = {0};
  c.id = 255;
  c.name = "tuner_c";
  CHECK_EQ(blosc2_register_tuner(&c), 0);
}

static void test_unknown_tuner_ids(void) {
  /* 0 is the built-in tuner, and so is every id below it */
  static const int ok[] = {0, -1};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.tuner_id = ok[i];
    blosc2_context *c = blosc2_create_cctx(cp);
    CHECK(c != NULL);
    blosc2_free_ctx(c);
  }
  static const int unknown[] = {1, 2, 31, 33, 100, 199, 300};
  for (size_t i = 0; i < sizeof unknown / sizeof *unknown; i++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.tuner_id = unknown[i];
    CHECK(blosc2_create_cctx(cp) == NULL);
  }
  /* a tuner whose library cannot be found */
  blosc2_tuner t = {0};
  t.id = 201;
  t.name = "no_such_tuner_b2rs";
  CHECK_EQ(blosc2_register_tuner(&t), 0);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.tuner_id = 201;
  CHECK(blosc2_create_cctx(cp) == NULL);
  CHECK(blosc2_create_cctx(cp) == NULL);
}

static int own_inits = 0, own_blocksizes = 0;
static int own_init_fail(void *cfg, blosc2_context *c, blosc2_context *d) {
  (void)cfg, (void)c, (void)d;
  own_inits++;
  return -3;
}
static int own_init(void *cfg, blosc2_context *c, blosc2_context *d) {
  (void)cfg, (void)c, (void)d;
  own_inits++;
  return 0;
}
static int own_next_blocksize(blosc2_context *c) {
  own_blocksizes++;
  ((int32_t *)c)[9] = 16384; /* blocksize, at offset 36 */
  return 0;
}

/* tuners registered with their functions (only those used need to be there) */
static void test_tuner_with_functions(void) {
  blosc2_tuner f = {0};
  f.id = 210;
  f.name = "own_fail";
  f.init = own_init_fail;
  CHECK_EQ(blosc2_register_tuner(&f), 0);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.tuner_id = 210;
  CHECK(blosc2_create_cctx(cp) == NULL);
  CHECK_EQ(own_inits, 1);

  blosc2_tuner t = {0};
  t.id = 211;
  t.name = "own_blocksize";
  t.init = own_init;
  t.next_blocksize = own_next_blocksize;
  CHECK_EQ(blosc2_register_tuner(&t), 0);
  cp.tuner_id = 211;
  cp.typesize = 4;
  blosc2_context *c = blosc2_create_cctx(cp);
  CHECK(c != NULL);
  CHECK_EQ(own_inits, 2);
  int32_t *src = malloc(NBYTES);
  fill_data(src, 1);
  uint8_t *out = malloc(NBYTES + BLOSC2_MAX_OVERHEAD);
  for (int k = 0; k < 2; k++) {
    int cb = blosc2_compress_ctx(c, src, NBYTES, out, NBYTES + BLOSC2_MAX_OVERHEAD);
    CHECK_GT(cb, 0);
    CHECK_EQ(*(int32_t *)(out + 8), 16384);
  }
  CHECK_EQ(own_blocksizes, 2);
  blosc2_free_ctx(c);
  free(src);
  free(out);
}

/* the plugin loaded by name, steering every chunk of a context */
static void steer_context(int mode) {
  mode_now = mode;
  register_b2rstune();
  CHECK(plug("b2rstune_calls") == NULL); /* not loaded before it is used */
  blosc2_cparams cp = tuned_cparams();
  blosc2_context *c = blosc2_create_cctx(cp);
  CHECK(c != NULL);
  if (c == NULL) return;
  CHECK_EQ(calls(0), 1);
  int32_t *src = malloc(NBYTES);
  uint8_t *out = malloc(NBYTES + BLOSC2_MAX_OVERHEAD);
  int32_t *back = malloc(NBYTES);
  int32_t *cbytes = plug("b2rstune_cbytes");
  for (int k = 0; k < 6; k++) {
    fill_data(src, k);
    int cb = blosc2_compress_ctx(c, src, NBYTES, out, NBYTES + BLOSC2_MAX_OVERHEAD);
    CHECK_GT(cb, 0);
    if (cb <= 0) break;
    check_chunk_is_decision(k, src, out, cb);
    CHECK_EQ(cbytes[k], cb);
    CHECK_EQ(blosc2_decompress(out, cb, back, NBYTES), NBYTES);
    CHECK_MEM(back, src, NBYTES);
    /* the context reports what the tuner chose */
    blosc2_cparams now;
    CHECK_EQ(blosc2_ctx_get_cparams(c, &now), 0);
    b2rstune_params p;
    choice(k, &p);
    CHECK_EQ(now.compcode, p.compcode);
    CHECK_EQ(now.clevel, p.clevel);
    CHECK_EQ(now.nthreads, p.nthreads);
    CHECK_EQ(now.filters[5], p.filters[5]);
    CHECK_EQ(now.tuner_id, TUNE_ID);
  }
  CHECK_EQ(calls(1), 0);
  CHECK_EQ(calls(2), 6);
  CHECK_EQ(calls(3), 6);
  CHECK_EQ(calls(4), 0);
  blosc2_free_ctx(c);
  CHECK_EQ(calls(4), 1);
  CHECK_EQ(plug_bad(), 0);
  free(src);
  free(out);
  free(back);
}

static void test_plugin_tuner_steers_contexts(void) { steer_context(0); }

/* a tuner changing the blocksize from chunk to chunk */
static void test_plugin_tuner_changes_blocksizes(void) {
#ifdef B2RS_REFERENCE_BUG_TUNER_BLOCKSIZE_LAG
  printf("%s: not run on the reference (its chunks cannot be decompressed)\n", t_current);
#else
  steer_context(5);
#endif
}

/* a new in-memory super-chunk with these parameters */
static blosc2_schunk *new_schunk(blosc2_cparams *cp) {
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = cp;
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  CHECK(sc != NULL);
  return sc;
}

/* append the k-th chunk of data (filled into src) and get it back; returns its cbytes */
static int append_and_get(blosc2_schunk *sc, int k, int32_t *src, uint8_t **chunk,
                          bool *needs_free) {
  fill_data(src, k);
  CHECK_EQ(blosc2_schunk_append_buffer(sc, src, NBYTES), k + 1);
  int cb = blosc2_schunk_get_chunk(sc, k, chunk, needs_free);
  CHECK_GT(cb, 0);
  return cb;
}

/* a super-chunk compressing with the plugin: the tuner sees it, each chunk is its decision */
static void test_plugin_tuner_steers_schunk(void) {
  register_b2rstune();
  blosc2_cparams cp = tuned_cparams();
  blosc2_schunk *sc = new_schunk(&cp);
  if (sc == NULL) return;
  int32_t *src = malloc(NBYTES);
  int32_t *back = malloc(NBYTES);
  for (int k = 0; k < 5; k++) {
    uint8_t *chunk;
    bool needs_free;
    int cb = append_and_get(sc, k, src, &chunk, &needs_free);
    if (cb > 0) check_chunk_is_decision(k, src, chunk, cb);
    if (needs_free) free(chunk);
    CHECK_EQ(blosc2_schunk_decompress_chunk(sc, k, back, NBYTES), NBYTES);
    CHECK_MEM(back, src, NBYTES);
  }
  CHECK_EQ(calls(2), 5);
  CHECK_EQ(calls(3), 5);
  int *with_schunk = plug("b2rstune_with_schunk");
  CHECK(with_schunk != NULL && *with_schunk == 5);
  blosc2_schunk_free(sc);
  CHECK_EQ(calls(4), 1);
  CHECK_EQ(plug_bad(), 0);
  free(src);
  free(back);
}

/* a B2ND array written through the tuner: each chunk is compressed as the tuner decided */
static void test_plugin_tuner_steers_b2nd(void) {
  register_b2rstune();
  blosc2_cparams cp = tuned_cparams();
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  /* blocks of 8192 bytes, the blocksize the tuner sets */
  int64_t shape[2] = {100, 200};
  int32_t chunkshape[2] = {50, 100};
  int32_t blockshape[2] = {32, 64};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, chunkshape, blockshape, NULL, 0, NULL, 0);
  CHECK(ctx != NULL);
  if (ctx == NULL) return;
  int n = 100 * 200;
  int32_t *src = malloc((size_t)n * 4);
  for (int i = 0; i < n; i++) src[i] = i * 7 + (i % 13);
  b2nd_array_t *arr = NULL;
  CHECK_EQ(b2nd_from_cbuffer(ctx, &arr, src, (int64_t)n * 4), 0);
  if (arr == NULL) {
    b2nd_free_ctx(ctx);
    free(src);
    return;
  }
  CHECK_EQ(arr->sc->nchunks, 4);
  CHECK_EQ(calls(2), 4);
  CHECK_EQ(calls(3), 4);
  static const int format[4] = {1 /* LZ4 */, 4 /* ZSTD */, 0 /* BLOSCLZ */, 3 /* ZLIB */};
  for (int k = 0; k < 4 && k < arr->sc->nchunks; k++) {
    uint8_t *chunk;
    bool needs_free;
    int cb = blosc2_schunk_get_chunk(arr->sc, k, &chunk, &needs_free);
    CHECK_GT(cb, 0);
    if (cb > 0) {
      CHECK_EQ(*(int32_t *)(chunk + 8), 8192);
      CHECK_EQ(chunk[2] >> 5, format[k]);
    }
    if (needs_free) free(chunk);
  }
  int32_t *back = malloc((size_t)n * 4);
  CHECK_EQ(b2nd_to_cbuffer(arr, back, (int64_t)n * 4), 0);
  CHECK_MEM(back, src, (size_t)n * 4);
  /* a slice across the four chunks (two of them delta-filtered by the tuner, which the
     reference misreads in partial reads: B2RS_REFERENCE_BUG_GETITEM_DELTA) */
  int64_t start[2] = {40, 90}, stop[2] = {60, 110}, sshape[2] = {20, 20};
  int32_t part[400];
  CHECK_EQ(b2nd_get_slice_cbuffer(arr, start, stop, part, sshape, sizeof part), 0);
#ifndef B2RS_REFERENCE_BUG_GETITEM_DELTA
  for (int i = 0; i < 20; i++)
    for (int j = 0; j < 20; j++) CHECK_EQ(part[i * 20 + j], src[(40 + i) * 200 + 90 + j]);
#endif
  CHECK_EQ(plug_bad(), 0);
  b2nd_free(arr);
  CHECK_EQ(calls(4), 1);
  b2nd_free_ctx(ctx);
  free(src);
  free(back);
}

static int compress_with_mode(int mode, int nchunks, int *last_rc) {
  register_b2rstune();
  blosc2_cparams cp = tuned_cparams();
  cp.tuner_params = &mode;
  blosc2_context *c = blosc2_create_cctx(cp);
  if (c == NULL) return -1;
  int32_t *src = malloc(NBYTES);
  fill_data(src, 1);
  uint8_t *out = malloc(NBYTES + BLOSC2_MAX_OVERHEAD);
  int ok = 0;
  for (int k = 0; k < nchunks; k++) {
    *last_rc = blosc2_compress_ctx(c, src, NBYTES, out, NBYTES + BLOSC2_MAX_OVERHEAD);
    if (*last_rc <= 0) break;
    if (mode == 2) CHECK_EQ(*(int32_t *)(out + 8), 8192);
    ok++;
  }
  blosc2_free_ctx(c);
  free(src);
  free(out);
  return ok;
}

/* the plugin's other paths: failing init, no state (next_blocksize only), failing calls */
static void test_plugin_tuner_modes(void) {
  int rc = 0;
  CHECK_EQ(compress_with_mode(1, 1, &rc), -1); /* init fails: no context */
  CHECK_EQ(calls(0), 1);
  CHECK_EQ(compress_with_mode(2, 3, &rc), 3); /* next_blocksize only */
  CHECK_EQ(calls(1), 3);
  CHECK_EQ(calls(2), 0);
  CHECK_EQ(calls(3), 0);
  CHECK_EQ(calls(4), 0);
  CHECK_EQ(compress_with_mode(3, 3, &rc), 1); /* next_cparams fails on the second chunk */
  CHECK_EQ(rc, BLOSC2_ERROR_TUNER);
  CHECK_EQ(compress_with_mode(4, 3, &rc), 0); /* update fails on the first */
  CHECK_EQ(rc, BLOSC2_ERROR_TUNER);
  CHECK_EQ(calls(4), 2);
  CHECK_EQ(plug_bad(), 0);
}

/* ------------------------------------------------------------------ */
/* BTune (tuner 32) and the openzl codec (38), from their PyPI wheels   */
/* ------------------------------------------------------------------ */

static int python_has(const char *module) {
  char cmd[256];
  snprintf(cmd, sizeof cmd, "python3 -c 'import %s' >/dev/null 2>&1", module);
  int r = system(cmd);
  if (r != 0) {
    printf("%s: the Python package %s is not installed%s\n", t_current, module,
           getenv("CI") ? " (required on CI)" : ", skipped");
    CHECK(getenv("CI") == NULL);
    return 0;
  }
  return 1;
}

static uint32_t fnv(const uint8_t *p, int n) {
  uint32_t h = 2166136261u;
  for (int i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
  return h;
}

/* hashes of the 4 chunks of a super-chunk made from the same data */
static void schunk_hashes(int32_t blocksize, uint32_t *h, int *tuner_id) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.clevel = 5;
  cp.blocksize = blocksize;
  blosc2_schunk *sc = new_schunk(&cp);
  if (sc == NULL) return;
  *tuner_id = sc->tuner_id;
  int32_t *src = malloc(NBYTES);
  for (int k = 0; k < 4; k++) {
    uint8_t *chunk;
    bool needs_free;
    int cb = append_and_get(sc, k, src, &chunk, &needs_free);
    h[k] = cb > 0 ? fnv(chunk, cb) : 0;
    if (needs_free) free(chunk);
  }
  blosc2_schunk_free(sc);
  free(src);
}

static void test_btune_changes_nothing(void) {
  if (!python_has("blosc2_btune")) return;
  uint32_t plain[4], tuned[4];
  int id = -1;
  schunk_hashes(16384, plain, &id);
  CHECK_EQ(id, 0);
  setenv("BTUNE_TRADEOFF", "0.5", 1);
  schunk_hashes(16384, tuned, &id);
  CHECK_EQ(id, 32);
  for (int k = 0; k < 4; k++) CHECK_EQ(tuned[k], plain[k]);
  /* the same chunks with both libraries (the reference's hashes) */
  static const uint32_t ref_hashes[4] = {0x1a4a8021, 0xe38e9030, 0x62a74efd, 0xc0f9cac8};
  for (int k = 0; k < 4; k++) CHECK_EQ(tuned[k], ref_hashes[k]);
#ifndef B2RS_REFERENCE_BUG_TUNER_BLOCKSIZE
  /* with an automatic blocksize too */
  unsetenv("BTUNE_TRADEOFF");
  schunk_hashes(0, plain, &id);
  setenv("BTUNE_TRADEOFF", "0.5", 1);
  schunk_hashes(0, tuned, &id);
  for (int k = 0; k < 4; k++) CHECK_EQ(tuned[k], plain[k]);
#endif
  unsetenv("BTUNE_TRADEOFF");
}

static void test_openzl_codec_plugin(void) {
  if (!python_has("blosc2_openzl")) return;
  int n = 60000;
  uint16_t *src = malloc((size_t)n * 2);
  for (int i = 0; i < n; i++) src[i] = (uint16_t)((i % 300) * 7 + i / 1000);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = 38;
  cp.typesize = 2;
  cp.filters[5] = 0;
  blosc2_context *c = blosc2_create_cctx(cp);
  int cap = n * 2 + BLOSC2_MAX_OVERHEAD;
  uint8_t *out = malloc((size_t)cap);
  int cb = blosc2_compress_ctx(c, src, n * 2, out, cap);
  CHECK_GT(cb, 0);
  CHECK_LT(cb, n);
  uint16_t *back = malloc((size_t)n * 2);
  CHECK_EQ(blosc2_decompress(out, cb, back, n * 2), n * 2);
  CHECK_MEM(back, src, (size_t)n * 2);
  blosc2_free_ctx(c);
  free(src);
  free(out);
  free(back);
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  blosc2_init();
  RUN(test_register_tuner_rules);
  RUN(test_unknown_tuner_ids);
  RUN(test_tuner_with_functions);
  RUN(test_plugin_tuner_steers_contexts);
  RUN(test_plugin_tuner_changes_blocksizes);
  RUN(test_plugin_tuner_steers_schunk);
  RUN(test_plugin_tuner_steers_b2nd);
  RUN(test_plugin_tuner_modes);
  RUN(test_btune_changes_nothing);
  RUN(test_openzl_codec_plugin);
  blosc2_destroy();
  return TEST_SUMMARY();
}
