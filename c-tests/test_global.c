/*
 * test_global.c - area 2 of API.md: library lifecycle, global thread count,
 * codec name <-> code, versions, error strings.
 *
 * Functions covered: blosc2_init, blosc2_destroy, blosc2_free_resources,
 * blosc2_get_nthreads, blosc2_set_nthreads, blosc2_set_delta,
 * blosc2_compcode_to_compname, blosc2_compname_to_compcode,
 * blosc2_list_compressors, blosc2_get_version_string,
 * blosc2_get_complib_info, blosc2_error_string, print_error (header static).
 * blosc2_set_threads_callback is covered in test_threads_cb.c.
 *
 * Not tested because the reference crashes (strdup(NULL)):
 * blosc2_get_complib_info() with an unknown or plugin codec name.
 * blosc2_compname_to_compcode(NULL) / compcode_to_compname(x, NULL) also
 * crash in the reference (NULL dereference).
 *
 * No reference bugs are compiled out here.
 */
#include "b2rs_test.h"

static void test_no_init_needed(void) {
  /* the global API initialises the library lazily */
  uint8_t src[4000], dst[4000 + 32], out[4000];
  fill_ramp32(src, sizeof(src));
  int c = blosc2_compress(5, 1, 4, src, sizeof(src), dst, sizeof(dst));
  CHECK_GT(c, 0);
  CHECK_EQ(blosc2_decompress(dst, c, out, sizeof(out)), (long long)sizeof(out));
  CHECK_MEM(out, src, sizeof(src));
  blosc2_destroy();
}

static void test_init_destroy_cycles(void) {
  uint8_t src[10000], dst[10000 + 32], out[10000];
  fill_mixed(src, sizeof(src), 2);
  for (int i = 0; i < 4; i++) {
    blosc2_init();
    int c = blosc2_compress(5, 1, 4, src, sizeof(src), dst, sizeof(dst));
    CHECK_GT(c, 0);
    CHECK_EQ(blosc2_decompress(dst, c, out, sizeof(out)), (long long)sizeof(out));
    CHECK_MEM(out, src, sizeof(src));
    CHECK_EQ(blosc2_free_resources(), 0);
    blosc2_destroy();
  }
  /* double init / double destroy are harmless */
  blosc2_init();
  blosc2_init();
  CHECK_GT(blosc2_compress(5, 1, 4, src, sizeof(src), dst, sizeof(dst)), 0);
  blosc2_destroy();
  blosc2_destroy();
}

static void test_nthreads(void) {
  blosc2_init();
  CHECK_EQ(blosc2_get_nthreads(), 1);
  CHECK_EQ(blosc2_set_nthreads(4), 1);
  CHECK_EQ(blosc2_get_nthreads(), 4);
  CHECK_EQ(blosc2_set_nthreads(0), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_get_nthreads(), 4);
  CHECK_EQ(blosc2_set_nthreads(-1), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_set_nthreads(-32768), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_get_nthreads(), 4);
  /* use the threads */
  size_t n = 1 << 20;
  uint8_t *src = malloc(n), *dst = gbuf(n + 32, 0), *out = gbuf(n, 0);
  fill_ramp32(src, n);
  int c = blosc2_compress(5, 1, 4, src, (int32_t)n, dst, (int32_t)n + 32);
  CHECK_GT(c, 0);
  CHECK_EQ(blosc2_decompress(dst, c, out, (int32_t)n), (long long)n);
  CHECK_MEM(out, src, n);
  CHECK_GUARD(dst, n + 32);
  CHECK_GUARD(out, n);
  CHECK_EQ(blosc2_set_nthreads(2), 4);
  CHECK_EQ(blosc2_get_nthreads(), 2);
  c = blosc2_compress(5, 1, 4, src, (int32_t)n, dst, (int32_t)n + 32);
  CHECK_GT(c, 0);
  CHECK_EQ(blosc2_decompress(dst, c, out, (int32_t)n), (long long)n);
  CHECK_MEM(out, src, n);
  CHECK_EQ(blosc2_free_resources(), 0);
  CHECK_EQ(blosc2_set_nthreads(1), 2);
  CHECK_EQ(blosc2_get_nthreads(), 1);
  CHECK_EQ(blosc2_free_resources(), 0);
  free(src);
  free(dst);
  free(out);
  blosc2_destroy();
}

static void test_compcode_to_compname(void) {
  blosc2_init();
  const char *name = NULL;
  for (int c = 0; c < N_ALL_CODECS; c++) {
    name = NULL;
    CHECK_EQ(blosc2_compcode_to_compname(ALL_CODECS[c], &name), ALL_CODECS[c]);
    CHECK_STR(name, ALL_CODEC_NAMES[c]);
  }
  static const int bad[] = {3, 6, 7, 31, 41, 100, 159, 160, 200, 255, 256, -1, 1000};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    name = "sentinel";
    CHECK_EQ(blosc2_compcode_to_compname(bad[i], &name), -1);
    CHECK(name == NULL);
  }
  blosc2_destroy();
}

static void test_compname_to_compcode(void) {
  blosc2_init();
  for (int c = 0; c < N_ALL_CODECS; c++) {
    CHECK_EQ(blosc2_compname_to_compcode(ALL_CODEC_NAMES[c]), ALL_CODECS[c]);
  }
  CHECK_EQ(blosc2_compname_to_compcode("foo"), -1);
  CHECK_EQ(blosc2_compname_to_compcode(""), -1);
  CHECK_EQ(blosc2_compname_to_compcode("BLOSCLZ"), -1);
  CHECK_EQ(blosc2_compname_to_compcode("snappy"), -1);
  CHECK_EQ(blosc2_compname_to_compcode("lz4 "), -1);
  CHECK_EQ(blosc2_compname_to_compcode("bytedelta"), -1);
  blosc2_destroy();
}

/* the globally registered codec plugins (ids 32..40) are known by name after
   blosc2_init() */
static void test_plugin_codec_names(void) {
  blosc2_init();
  static const char *const names[] = {"ndlz", "zfp_acc", "zfp_prec", "zfp_rate", "openhtj2k",
                                      "grok", "openzl", "j2k", "htj2k"};
  for (int i = 0; i < 9; i++) {
    const char *name = NULL;
    CHECK_EQ(blosc2_compcode_to_compname(32 + i, &name), 32 + i);
    CHECK_STR(name, names[i]);
    CHECK_EQ(blosc2_compname_to_compcode(names[i]), 32 + i);
  }
  blosc2_destroy();
}

static void test_list_and_version(void) {
  CHECK_STR(blosc2_list_compressors(), "blosclz,lz4,lz4hc,zlib,zstd");
  CHECK_STR(blosc2_get_version_string(), BLOSC2_VERSION_STRING);
  CHECK_STR(blosc2_get_version_string(), "3.3.5");
  /* the returned strings are static: the pointer stays valid */
  const char *a = blosc2_list_compressors();
  const char *b = blosc2_list_compressors();
  CHECK_STR(a, b);
}

static void test_complib_info(void) {
  blosc2_init();
  static const char *const libs[] = {"BloscLZ", "LZ4", "LZ4", "Zlib", "Zstd"};
  static const int codes[] = {BLOSC_BLOSCLZ_LIB, BLOSC_LZ4_LIB, BLOSC_LZ4_LIB, BLOSC_ZLIB_LIB,
                              BLOSC_ZSTD_LIB};
  for (int c = 0; c < N_ALL_CODECS; c++) {
    char *complib = NULL, *version = NULL;
    CHECK_EQ(blosc2_get_complib_info(ALL_CODEC_NAMES[c], &complib, &version), codes[c]);
    CHECK_STR(complib, libs[c]);
    CHECK(version != NULL && strlen(version) > 0);
    /* strings are the caller's to free() */
    free(complib);
    free(version);
  }
  CHECK_EQ(BLOSC_BLOSCLZ_LIB, 0);
  CHECK_EQ(BLOSC_LZ4_LIB, 1);
  CHECK_EQ(BLOSC_ZLIB_LIB, 3);
  CHECK_EQ(BLOSC_ZSTD_LIB, 4);
  blosc2_destroy();
}

static void test_error_strings(void) {
  static const char *const msgs[] = {
      "Generic failure",
      "Bad stream",
      "Invalid data",
      "Memory alloc/realloc failure",
      "Not enough space to read",
      "Not enough space to write",
      "Codec not supported",
      "Invalid parameter supplied to codec",
      "Codec dictionary error",
      "Version not supported",
      "Invalid value in header",
      "Invalid parameter supplied to function",
      "File read failure",
      "File write failure",
      "File open failure",
      "Not found",
      "Bad run length encoding",
      "Filter pipeline error",
      "Chunk insert failure",
      "Chunk append failure",
      "Chunk update failure",
      "Sizes larger than 2gb not supported",
      "Super-chunk copy failure",
      "Wrong type for frame",
      "File truncate failure",
      "Thread or thread context creation failure",
      "Postfilter failure",
      "Special frame failure",
      "Special super-chunk failure",
      "IO plugin error",
      "Remove file failure",
      "Pointer is null",
      "Invalid index",
      "Metalayer has not been found",
      "Maximum buffersize exceeded",
      "Tuner failure",
      "Frame lock failure",
  };
  for (int i = 0; i < 37; i++) {
    CHECK_STR(blosc2_error_string(-(i + 1)), msgs[i]);
    CHECK_STR(print_error(-(i + 1)), msgs[i]);
  }
  CHECK_EQ(BLOSC2_ERROR_LOCK, -37);
  static const int unknown[] = {0, 1, 2, 100, -38, -39, -100, -1000, 2147483647, -2147483647 - 1};
  for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
    CHECK_STR(blosc2_error_string(unknown[i]), "Unknown error");
  }
  /* static strings: same pointer every time */
  CHECK(blosc2_error_string(-5) == blosc2_error_string(-5));
}

static void test_set_delta_global(void) {
  blosc2_init();
  size_t n = 200000;
  uint8_t *src = malloc(n), *dst = gbuf(n + 32, 0), *out = gbuf(n, 0);
  fill_ramp64(src, n);
  blosc2_set_delta(1);
  int c = blosc2_compress(5, BLOSC_SHUFFLE, 8, src, (int32_t)n, dst, (int32_t)n + 32);
  CHECK_GT(c, 0);
  CHECK_EQ(HDR_FILTER(dst, 4), BLOSC_DELTA);
  CHECK_EQ(HDR_FILTER(dst, 5), BLOSC_SHUFFLE);
  CHECK((HDR_FLAGS(dst) & BLOSC_DODELTA) != 0);
  CHECK_EQ(blosc2_decompress(dst, c, out, (int32_t)n), (long long)n);
  CHECK_MEM(out, src, n);
  blosc2_set_delta(0);
  c = blosc2_compress(5, BLOSC_SHUFFLE, 8, src, (int32_t)n, dst, (int32_t)n + 32);
  CHECK_GT(c, 0);
  CHECK_EQ(HDR_FILTER(dst, 4), 0);
  CHECK((HDR_FLAGS(dst) & BLOSC_DODELTA) == 0);
  CHECK_EQ(blosc2_decompress(dst, c, out, (int32_t)n), (long long)n);
  CHECK_MEM(out, src, n);
  CHECK_GUARD(dst, n + 32);
  CHECK_GUARD(out, n);
  free(src);
  free(dst);
  free(out);
  blosc2_destroy();
}

/* blosc2_compress / blosc2_decompress use the global compressor, blocksize,
   splitmode and nthreads */
static void test_global_compress_uses_globals(void) {
  blosc2_init();
  size_t n = 300000;
  uint8_t *src = malloc(n), *dst = gbuf(n + 32, 0), *out = gbuf(n, 0);
  fill_ramp32(src, n);
  for (int c = 0; c < N_ALL_CODECS; c++) {
    blosc1_set_compressor(ALL_CODEC_NAMES[c]);
    for (int sh = 0; sh <= 2; sh++) {
      int cb = blosc2_compress(5, sh, 4, src, (int32_t)n, dst, (int32_t)n + 32);
      CHECK_GT(cb, 0);
      if (!HDR_IS_MEMCPYED(dst)) {
        CHECK_EQ(HDR_FORMAT(dst), codec_format(ALL_CODECS[c]));
        CHECK_EQ(HDR_UDCOMPCODE(dst), ALL_CODECS[c]);
      }
      CHECK_EQ(HDR_FILTER(dst, 5), sh);
      CHECK_EQ(blosc2_decompress(dst, cb, out, (int32_t)n), (long long)n);
      CHECK_MEM(out, src, n);
    }
  }
  blosc1_set_compressor("blosclz");
  blosc1_set_blocksize(16384);
  int cb = blosc2_compress(5, 1, 4, src, (int32_t)n, dst, (int32_t)n + 32);
  CHECK_EQ(HDR_BLOCKSIZE(dst), 16384);
  CHECK_EQ(blosc2_decompress(dst, cb, out, (int32_t)n), (long long)n);
  CHECK_MEM(out, src, n);
  blosc1_set_blocksize(0);
  blosc1_set_splitmode(BLOSC_NEVER_SPLIT);
  cb = blosc2_compress(5, 1, 4, src, (int32_t)n, dst, (int32_t)n + 32);
  CHECK(HDR_DONT_SPLIT(dst));
  CHECK_EQ(blosc2_decompress(dst, cb, out, (int32_t)n), (long long)n);
  CHECK_MEM(out, src, n);
  blosc1_set_splitmode(BLOSC_ALWAYS_SPLIT);
  cb = blosc2_compress(5, 1, 4, src, (int32_t)n, dst, (int32_t)n + 32);
  CHECK(!HDR_DONT_SPLIT(dst));
  CHECK_EQ(blosc2_decompress(dst, cb, out, (int32_t)n), (long long)n);
  CHECK_MEM(out, src, n);
  blosc1_set_splitmode(BLOSC_FORWARD_COMPAT_SPLIT);
  CHECK_GUARD(dst, n + 32);
  CHECK_GUARD(out, n);
  free(src);
  free(dst);
  free(out);
  blosc2_destroy();
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  RUN(test_no_init_needed);
  RUN(test_init_destroy_cycles);
  RUN(test_nthreads);
  RUN(test_compcode_to_compname);
  RUN(test_compname_to_compcode);
  RUN(test_plugin_codec_names);
  RUN(test_list_and_version);
  RUN(test_complib_info);
  RUN(test_error_strings);
  RUN(test_set_delta_global);
  RUN(test_global_compress_uses_globals);
  return TEST_SUMMARY();
}
