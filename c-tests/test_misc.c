/*
 * test_misc.c - area 13 of API.md: timing, index math, raw shuffles and the
 * header-private helper, plus the public constants of blosc2.h.
 *
 * Functions covered: blosc_set_timestamp, blosc_elapsed_nsecs,
 * blosc_elapsed_secs, blosc2_unidim_to_multidim, blosc2_multidim_to_unidim,
 * blosc2_shuffle, blosc2_unshuffle, blosc2_bitshuffle, blosc2_bitunshuffle,
 * swap_store (static inline in blosc2.h).
 *
 * Not tested because the reference crashes: blosc2_bitshuffle /
 * blosc2_bitunshuffle with typesize 0 (SIGFPE), blosc2_bitunshuffle with a
 * negative blocksize (SIGSEGV), NULL buffers with a non-zero size,
 * blosc_set_timestamp(NULL).
 *
 * No reference bugs are compiled out here.
 */
#include "b2rs_test.h"

#include <time.h>

#define T_FABS(x) ((x) < 0 ? -(x) : (x))

/* ------------------------------------------------------------------ */
/* timing                                                               */
/* ------------------------------------------------------------------ */

static void test_timestamps(void) {
  blosc_timestamp_t a, b;
  blosc_set_timestamp(&a);
  struct timespec ts = {0, 20 * 1000 * 1000};
  nanosleep(&ts, NULL);
  blosc_set_timestamp(&b);
  double s = blosc_elapsed_secs(a, b);
  double ns = blosc_elapsed_nsecs(a, b);
  CHECK(s >= 0.015 && s < 10.0);
  CHECK(ns >= 15e6 && ns < 10e9);
  CHECK(T_FABS(ns - s * 1e9) < 1.0);
  /* the same instant */
  CHECK(blosc_elapsed_nsecs(a, a) == 0.0);
  CHECK(blosc_elapsed_secs(b, b) == 0.0);
  /* a monotonic clock: later stamps are not earlier */
  blosc_timestamp_t c;
  blosc_set_timestamp(&c);
  CHECK(blosc_elapsed_nsecs(b, c) >= 0.0);
}

static void test_elapsed_exact(void) {
  blosc_timestamp_t a, b;
  a.tv_sec = 10;
  a.tv_nsec = 500;
  b.tv_sec = 12;
  b.tv_nsec = 250;
  CHECK(blosc_elapsed_nsecs(a, b) == 1999999750.0);
  CHECK(T_FABS(blosc_elapsed_secs(a, b) - 1.99999975) < 1e-12);
  CHECK(blosc_elapsed_nsecs(b, a) == -1999999750.0);
  CHECK(T_FABS(blosc_elapsed_secs(b, a) + 1.99999975) < 1e-12);
  a.tv_sec = 0;
  a.tv_nsec = 0;
  b.tv_sec = 0;
  b.tv_nsec = 1;
  CHECK(blosc_elapsed_nsecs(a, b) == 1.0);
  CHECK(T_FABS(blosc_elapsed_secs(a, b) - 1e-9) < 1e-18);
  b.tv_sec = 100000;
  b.tv_nsec = 999999999;
  CHECK(blosc_elapsed_nsecs(a, b) == 100000999999999.0);
  CHECK_EQ(sizeof(blosc_timestamp_t), 16);
}

/* ------------------------------------------------------------------ */
/* index math                                                           */
/* ------------------------------------------------------------------ */

static void test_unidim_multidim(void) {
  int64_t shape[3] = {3, 4, 5};
  int64_t idx[3] = {9, 9, 9};
  blosc2_unidim_to_multidim(3, shape, 37, idx);
  CHECK_EQ(idx[0], 1);
  CHECK_EQ(idx[1], 3);
  CHECK_EQ(idx[2], 2);
  int64_t strides[3] = {20, 5, 1};
  int64_t i = -1;
  blosc2_multidim_to_unidim(idx, 3, strides, &i);
  CHECK_EQ(i, 37);
  /* every index of a few shapes round-trips */
  static const int64_t shapes[][16] = {
      {7}, {2, 3}, {4, 1, 6}, {2, 2, 2, 2, 2, 2, 2, 2}, {1, 1, 1, 5, 1, 3}};
  static const int ndims[] = {1, 2, 3, 8, 6};
  for (int s = 0; s < 5; s++) {
    int nd = ndims[s];
    int64_t sh[16], st[16];
    int64_t total = 1;
    for (int d = 0; d < nd; d++) {
      sh[d] = shapes[s][d];
      total *= sh[d];
    }
    st[nd - 1] = 1;
    for (int d = nd - 2; d >= 0; d--) st[d] = st[d + 1] * sh[d + 1];
    bool ok = true;
    for (int64_t k = 0; k < total; k++) {
      int64_t md[16];
      blosc2_unidim_to_multidim((uint8_t)nd, sh, k, md);
      int64_t back = -1;
      blosc2_multidim_to_unidim(md, (int8_t)nd, st, &back);
      ok &= back == k;
      /* C order: the last index varies fastest */
      int64_t rem = k;
      for (int d = nd - 1; d >= 0; d--) {
        ok &= md[d] == rem % sh[d];
        rem /= sh[d];
      }
    }
    CHECK(ok);
  }
  /* strides that are not the C strides of a shape */
  int64_t md2[2] = {3, 7};
  int64_t st2[2] = {100, 2};
  int64_t out = 0;
  blosc2_multidim_to_unidim(md2, 2, st2, &out);
  CHECK_EQ(out, 314);
  /* 16 dimensions */
  int64_t sh16[16], st16[16], md16[16];
  for (int d = 0; d < 16; d++) sh16[d] = 2;
  st16[15] = 1;
  for (int d = 14; d >= 0; d--) st16[d] = st16[d + 1] * 2;
  blosc2_unidim_to_multidim(16, sh16, 0xBEEF, md16);
  for (int d = 0; d < 16; d++) CHECK_EQ(md16[d], (0xBEEF >> (15 - d)) & 1);
  blosc2_multidim_to_unidim(md16, 16, st16, &out);
  CHECK_EQ(out, 0xBEEF);
}

/* ------------------------------------------------------------------ */
/* raw shuffles, compared with the definitions in FILTERS.md            */
/* ------------------------------------------------------------------ */

static void ref_shuffle(int32_t S, int32_t L, const uint8_t *in, uint8_t *out) {
  int32_t n = L / S;
  for (int32_t j = 0; j < S; j++)
    for (int32_t k = 0; k < n; k++) out[j * n + k] = in[k * S + j];
  memcpy(out + n * S, in + n * S, (size_t)(L - n * S));
}

static void ref_bitshuffle(int32_t S, int32_t L, const uint8_t *in, uint8_t *out) {
  int32_t n = L / S;
  int32_t m = n - n % 8;
  int32_t rowlen = m / 8;
  memset(out, 0, (size_t)(m * S));
  for (int32_t b = 0; b < S; b++)
    for (int k = 0; k < 8; k++) {
      int32_t r = 8 * b + k;
      for (int32_t q = 0; q < rowlen; q++) {
        uint8_t v = 0;
        for (int bit = 0; bit < 8; bit++) v |= (uint8_t)(((in[(8 * q + bit) * S + b] >> k) & 1) << bit);
        out[r * rowlen + q] = v;
      }
    }
  memcpy(out + m * S, in + m * S, (size_t)(L - m * S));
}

static void test_shuffle_examples(void) {
  uint8_t in[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  uint8_t out[16], back[16];
  CHECK_EQ(blosc2_shuffle(4, 12, in, out), 12);
  static const uint8_t e12[12] = {0x01, 0x05, 0x09, 0x02, 0x06, 0x0a, 0x03, 0x07, 0x0b, 0x04, 0x08, 0x0c};
  CHECK_MEM(out, e12, 12);
  CHECK_EQ(blosc2_shuffle(4, 14, in, out), 14);
  static const uint8_t e14[14] = {0x01, 0x05, 0x09, 0x02, 0x06, 0x0a, 0x03, 0x07, 0x0b, 0x04, 0x08, 0x0c, 0x0d, 0x0e};
  CHECK_MEM(out, e14, 14);
  CHECK_EQ(blosc2_unshuffle(4, 14, out, back), 14);
  CHECK_MEM(back, in, 14);
  /* bitshuffle worked example */
  static const uint8_t bin[16] = {0x01, 0x00, 0x02, 0x00, 0x03, 0x00, 0x04, 0x01,
                                  0x05, 0x00, 0x06, 0x00, 0x07, 0x00, 0x08, 0x80};
  static const uint8_t bout[16] = {0x55, 0x66, 0x78, 0x80, 0x00, 0x00, 0x00, 0x00,
                                   0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80};
  CHECK_EQ(blosc2_bitshuffle(2, 16, bin, out), 16);
  CHECK_MEM(out, bout, 16);
  CHECK_EQ(blosc2_bitunshuffle(2, 16, bout, back), 16);
  CHECK_MEM(back, bin, 16);
}

static void test_shuffle_generic(void) {
  static const int32_t lens[] = {0, 1, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 100, 255, 256, 1000,
                                 4095, 4096, 4097, 65536 + 5, 262144 + 17};
  size_t maxl = 262144 + 17;
  uint8_t *in = malloc(maxl), *out = gbuf(maxl, 0), *exp = malloc(maxl), *back = gbuf(maxl, 0);
  fill_random(in, maxl, 99);
  for (int32_t S = 1; S <= 40; S++) {
    int32_t s = S <= 33 ? S : (S == 34 ? 64 : (S == 35 ? 100 : (S == 36 ? 128 : (S == 37 ? 200 : (S == 38 ? 255 : (S == 39 ? 16 : 8))))));
    for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++) {
      int32_t L = lens[li];
      if (s > 16 && L > 70000) continue; /* keep it fast */
      ref_shuffle(s, L, in, exp);
      CHECK_EQ(blosc2_shuffle(s, L, in, out), L);
      if (t_first_diff(out, exp, (size_t)L) != (size_t)-1) {
        fprintf(stderr, "  shuffle typesize %d len %d\n", s, L);
        CHECK_MEM(out, exp, (size_t)L);
      }
      CHECK_EQ(blosc2_unshuffle(s, L, out, back), L);
      CHECK_MEM(back, in, (size_t)L);
      ref_bitshuffle(s, L, in, exp);
      CHECK_EQ(blosc2_bitshuffle(s, L, in, out), L);
      if (t_first_diff(out, exp, (size_t)L) != (size_t)-1) {
        fprintf(stderr, "  bitshuffle typesize %d len %d\n", s, L);
        CHECK_MEM(out, exp, (size_t)L);
      }
      CHECK_EQ(blosc2_bitunshuffle(s, L, out, back), L);
      CHECK_MEM(back, in, (size_t)L);
    }
  }
  CHECK_GUARD(out, maxl);
  CHECK_GUARD(back, maxl);
  free(in);
  free(out);
  free(exp);
  free(back);
}

/* the raw shuffles accept typesizes up to 256; above that shuffle,
   unshuffle and bitshuffle refuse (-12).  (The reference's bitunshuffle
   accepts larger typesizes; not asserted.) */
static void test_shuffle_big_typesize(void) {
  size_t L = 256 * 40 + 100;
  uint8_t *in = malloc(L), *out = gbuf(L, 0), *exp = malloc(L), *back = gbuf(L, 0);
  fill_random(in, L, 5);
  CHECK_EQ(blosc2_shuffle(256, (int32_t)L, in, out), (long long)L);
  ref_shuffle(256, (int32_t)L, in, exp);
  CHECK_MEM(out, exp, L);
  CHECK_EQ(blosc2_unshuffle(256, (int32_t)L, out, back), (long long)L);
  CHECK_MEM(back, in, L);
  CHECK_EQ(blosc2_bitshuffle(256, (int32_t)L, in, out), (long long)L);
  ref_bitshuffle(256, (int32_t)L, in, exp);
  CHECK_MEM(out, exp, L);
  CHECK_EQ(blosc2_bitunshuffle(256, (int32_t)L, out, back), (long long)L);
  CHECK_MEM(back, in, L);
  static const int32_t ts[] = {257, 300, 1000, 65536};
  for (int i = 0; i < 4; i++) {
    CHECK_EQ(blosc2_shuffle(ts[i], (int32_t)L, in, out), BLOSC2_ERROR_INVALID_PARAM);
    CHECK_EQ(blosc2_unshuffle(ts[i], (int32_t)L, in, out), BLOSC2_ERROR_INVALID_PARAM);
    CHECK_EQ(blosc2_bitshuffle(ts[i], (int32_t)L, in, out), BLOSC2_ERROR_INVALID_PARAM);
  }
  CHECK_GUARD(out, L);
  CHECK_GUARD(back, L);
  free(in);
  free(out);
  free(exp);
  free(back);
}

static void test_shuffle_errors(void) {
  uint8_t in[128], out[128];
  fill_mixed(in, sizeof(in), 1);
  CHECK_EQ(blosc2_shuffle(0, 100, in, out), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_shuffle(-1, 100, in, out), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_shuffle(4, -1, in, out), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_unshuffle(0, 100, in, out), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_unshuffle(-5, 100, in, out), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_unshuffle(4, -1, in, out), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_bitshuffle(-1, 100, in, out), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_bitshuffle(4, -1, in, out), BLOSC2_ERROR_INVALID_PARAM);
  /* zero-length blocks are a no-op */
  CHECK_EQ(blosc2_shuffle(4, 0, in, out), 0);
  CHECK_EQ(blosc2_unshuffle(4, 0, in, out), 0);
  CHECK_EQ(blosc2_bitshuffle(4, 0, in, out), 0);
  CHECK_EQ(blosc2_bitunshuffle(4, 0, in, out), 0);
}

/* ------------------------------------------------------------------ */
/* swap_store (static inline in blosc2.h)                               */
/* ------------------------------------------------------------------ */

static void test_swap_store(void) {
  uint8_t src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  uint8_t dst[8];
  memset(dst, 0, 8);
  swap_store(dst, src, 8);
  static const uint8_t e8[8] = {8, 7, 6, 5, 4, 3, 2, 1};
  CHECK_MEM(dst, e8, 8);
  memset(dst, 0, 8);
  swap_store(dst, src, 4);
  static const uint8_t e4[4] = {4, 3, 2, 1};
  CHECK_MEM(dst, e4, 4);
  CHECK_EQ(dst[4], 0);
  swap_store(dst, src, 2);
  CHECK_EQ(dst[0], 2);
  CHECK_EQ(dst[1], 1);
  swap_store(dst, src, 1);
  CHECK_EQ(dst[0], 1);
  int64_t v = 0x0102030405060708LL, w = 0;
  swap_store(&w, &v, 8);
  CHECK_EQ(w, 0x0807060504030201LL);
}

/* ------------------------------------------------------------------ */
/* public constants                                                     */
/* ------------------------------------------------------------------ */

static void test_constants(void) {
  CHECK_EQ(BLOSC2_VERSION_MAJOR, 3);
  CHECK_EQ(BLOSC2_VERSION_MINOR, 3);
  CHECK_EQ(BLOSC2_VERSION_RELEASE, 5);
  CHECK_STR(BLOSC2_VERSION_STRING, "3.3.5");
  CHECK_EQ(BLOSC2_VERSION_FORMAT, 6);
  CHECK_EQ(BLOSC2_VERSION_FORMAT_STABLE, 5);
  CHECK_EQ(BLOSC2_VERSION_FORMAT_VL_BLOCKS, 6);
  CHECK_EQ(BLOSC1_VERSION_FORMAT, 2);
  CHECK_EQ(BLOSC2_VERSION_FRAME_FORMAT, 3);
  CHECK_EQ(BLOSC_MIN_HEADER_LENGTH, 16);
  CHECK_EQ(BLOSC_EXTENDED_HEADER_LENGTH, 32);
  CHECK_EQ(BLOSC2_MAX_OVERHEAD, 32);
  CHECK_EQ(BLOSC2_MAX_BUFFERSIZE, 2147483615);
  CHECK_EQ(BLOSC_MAX_TYPESIZE, 255);
  CHECK_EQ(BLOSC_MIN_BUFFERSIZE, 32);
  CHECK_EQ(BLOSC2_MAXDICTSIZE, 32768);
  CHECK_EQ(BLOSC2_MINUSEFULDICT, 256);
  CHECK_EQ(BLOSC2_MAXBLOCKSIZE, 536866816);
  CHECK_EQ(BLOSC2_MAXTYPESIZE, 536866816);
  CHECK_EQ(BLOSC2_MAX_FILTERS, 6);
  CHECK_EQ(BLOSC2_MAX_UDFILTERS, 16);
  CHECK_EQ(BLOSC_NOSHUFFLE, 0);
  CHECK_EQ(BLOSC_NOFILTER, 0);
  CHECK_EQ(BLOSC_SHUFFLE, 1);
  CHECK_EQ(BLOSC_BITSHUFFLE, 2);
  CHECK_EQ(BLOSC_DELTA, 3);
  CHECK_EQ(BLOSC_TRUNC_PREC, 4);
  CHECK_EQ(BLOSC_LAST_FILTER, 5);
  CHECK_EQ(BLOSC_LAST_REGISTERED_FILTER, 36);
  CHECK_EQ(BLOSC_DOSHUFFLE, 1);
  CHECK_EQ(BLOSC_MEMCPYED, 2);
  CHECK_EQ(BLOSC_DOBITSHUFFLE, 4);
  CHECK_EQ(BLOSC_DODELTA, 8);
  CHECK_EQ(BLOSC2_USEDICT, 1);
  CHECK_EQ(BLOSC2_BIGENDIAN, 2);
  CHECK_EQ(BLOSC2_INSTR_CODEC, 128);
  CHECK_EQ(BLOSC2_VL_BLOCKS, 1);
  CHECK_EQ(BLOSC_BLOSCLZ, 0);
  CHECK_EQ(BLOSC_LZ4, 1);
  CHECK_EQ(BLOSC_LZ4HC, 2);
  CHECK_EQ(BLOSC_ZLIB, 4);
  CHECK_EQ(BLOSC_ZSTD, 5);
  CHECK_EQ(BLOSC_LAST_CODEC, 6);
  CHECK_EQ(BLOSC_LAST_REGISTERED_CODEC, 36);
  CHECK_EQ(BLOSC_BLOSCLZ_FORMAT, 0);
  CHECK_EQ(BLOSC_LZ4_FORMAT, 1);
  CHECK_EQ(BLOSC_LZ4HC_FORMAT, 1);
  CHECK_EQ(BLOSC_ZLIB_FORMAT, 3);
  CHECK_EQ(BLOSC_ZSTD_FORMAT, 4);
  CHECK_EQ(BLOSC_UDCODEC_FORMAT, 6);
  CHECK_EQ(BLOSC_ALWAYS_SPLIT, 1);
  CHECK_EQ(BLOSC_NEVER_SPLIT, 2);
  CHECK_EQ(BLOSC_AUTO_SPLIT, 3);
  CHECK_EQ(BLOSC_FORWARD_COMPAT_SPLIT, 4);
  CHECK_EQ(BLOSC2_CHUNK_VERSION, 0);
  CHECK_EQ(BLOSC2_CHUNK_VERSIONLZ, 1);
  CHECK_EQ(BLOSC2_CHUNK_FLAGS, 2);
  CHECK_EQ(BLOSC2_CHUNK_TYPESIZE, 3);
  CHECK_EQ(BLOSC2_CHUNK_NBYTES, 4);
  CHECK_EQ(BLOSC2_CHUNK_BLOCKSIZE, 8);
  CHECK_EQ(BLOSC2_CHUNK_CBYTES, 12);
  CHECK_EQ(BLOSC2_CHUNK_FILTER_CODES, 16);
  CHECK_EQ(BLOSC2_CHUNK_FILTER_META, 24);
  CHECK_EQ(BLOSC2_CHUNK_BLOSC2_FLAGS2, 30);
  CHECK_EQ(BLOSC2_CHUNK_BLOSC2_FLAGS, 31);
  CHECK_EQ(BLOSC2_SPECIAL_ZERO, 1);
  CHECK_EQ(BLOSC2_SPECIAL_NAN, 2);
  CHECK_EQ(BLOSC2_SPECIAL_VALUE, 3);
  CHECK_EQ(BLOSC2_SPECIAL_UNINIT, 4);
  CHECK_EQ(BLOSC2_SPECIAL_MASK, 7);
  CHECK_EQ(BLOSC2_USER_REGISTERED_CODECS_START, 160);
  CHECK_EQ(BLOSC2_USER_REGISTERED_CODECS_STOP, 255);
  CHECK_EQ(BLOSC2_USER_REGISTERED_FILTERS_START, 160);
  CHECK_EQ(BLOSC2_USER_REGISTERED_FILTERS_STOP, 255);
  CHECK_EQ(BLOSC2_GLOBAL_REGISTERED_CODECS_START, 32);
  CHECK_EQ(BLOSC2_GLOBAL_REGISTERED_FILTERS_START, 32);
  CHECK_EQ(BLOSC2_ERROR_SUCCESS, 0);
  CHECK_EQ(BLOSC2_ERROR_FAILURE, -1);
  CHECK_EQ(BLOSC2_ERROR_READ_BUFFER, -5);
  CHECK_EQ(BLOSC2_ERROR_WRITE_BUFFER, -6);
  CHECK_EQ(BLOSC2_ERROR_INVALID_HEADER, -11);
  CHECK_EQ(BLOSC2_ERROR_INVALID_PARAM, -12);
  CHECK_EQ(BLOSC2_ERROR_NULL_POINTER, -32);
  CHECK_EQ(BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED, -35);
  CHECK_EQ(BLOSC2_ERROR_LOCK, -37);
  CHECK_STR(BLOSC_BLOSCLZ_COMPNAME, "blosclz");
  CHECK_STR(BLOSC_LZ4_COMPNAME, "lz4");
  CHECK_STR(BLOSC_LZ4HC_COMPNAME, "lz4hc");
  CHECK_STR(BLOSC_ZLIB_COMPNAME, "zlib");
  CHECK_STR(BLOSC_ZSTD_COMPNAME, "zstd");
  CHECK_STR(BLOSC_BLOSCLZ_LIBNAME, "BloscLZ");
  CHECK_STR(BLOSC_LZ4_LIBNAME, "LZ4");
  CHECK_STR(BLOSC_ZLIB_LIBNAME, "Zlib");
  CHECK_STR(BLOSC_ZSTD_LIBNAME, "Zstd");
  /* struct sizes the C side relies on (API.md layouts) */
  CHECK_EQ(sizeof(blosc2_cparams), 136);
  CHECK_EQ(sizeof(blosc2_dparams), 40);
  CHECK_EQ(sizeof(blosc2_prefilter_params), 88);
  CHECK_EQ(sizeof(blosc2_postfilter_params), 80);
  CHECK_EQ(sizeof(blosc2_codec), 40);
  CHECK_EQ(sizeof(blosc2_filter), 40);
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  blosc2_init();
  RUN(test_timestamps);
  RUN(test_elapsed_exact);
  RUN(test_unidim_multidim);
  RUN(test_shuffle_examples);
  RUN(test_shuffle_generic);
  RUN(test_shuffle_big_typesize);
  RUN(test_shuffle_errors);
  RUN(test_swap_store);
  RUN(test_constants);
  blosc2_destroy();
  return TEST_SUMMARY();
}
