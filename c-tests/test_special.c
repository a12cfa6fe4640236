/*
 * test_special.c - area 6 of API.md: special chunks (zeros, NaNs, uninit,
 * repeated value) and blosc2_schunk_fill_special.
 *
 * Functions covered: blosc2_chunk_zeros, blosc2_chunk_nans,
 * blosc2_chunk_repeatval, blosc2_chunk_uninit, blosc2_schunk_fill_special
 * (plus decompression / getitem / cbuffer_* of special chunks and the
 * schunk calls needed to look at the result).
 *
 * Special chunks are reproduced byte for byte by b2rs, so their exact bytes
 * are checked (learned from the reference).
 *
 * Not tested because the reference crashes: cparams.typesize == 0 (SIGFPE),
 * blosc2_chunk_repeatval with a NULL value, NULL dest.
 * Tolerated by the reference and therefore not asserted either way: NaN
 * chunks with a typesize other than 4 or 8 (the reference writes them).
 *
 * No reference bugs are compiled out here.
 */
#include "b2rs_test.h"

static blosc2_cparams ts_params(int32_t ts) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = ts;
  return cp;
}

static void test_zeros_exact(void) {
  uint8_t *d = gbuf(32, 0xEE);
  CHECK_EQ(blosc2_chunk_zeros(ts_params(4), 100, d, 32), 32);
  static const uint8_t z100[32] = {0x05, 0x01, 0x05, 0x04, 0x64, 0, 0, 0, 0x64, 0, 0, 0, 0x20, 0, 0, 0,
                                   0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10};
  CHECK_MEM(d, z100, 32);
  CHECK_GUARD(d, 32);
  /* 1 MB of zeros: blocksize is the automatic one (256 KiB) */
  CHECK_EQ(blosc2_chunk_zeros(ts_params(4), 1000000, d, 32), 32);
  static const uint8_t z1m[32] = {0x05, 0x01, 0x05, 0x04, 0x40, 0x42, 0x0f, 0x00, 0x00, 0x00, 0x04,
                                  0x00, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10};
  CHECK_MEM(d, z1m, 32);
  /* empty */
  CHECK_EQ(blosc2_chunk_zeros(ts_params(1), 0, d, 32), 32);
  static const uint8_t z0[32] = {0x05, 0x01, 0x05, 0x01, 0, 0, 0, 0, 1, 0, 0, 0, 0x20, 0, 0, 0,
                                 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10};
  CHECK_MEM(d, z0, 32);
  CHECK_GUARD(d, 32);
  free(d);
  /* larger destination: only 32 bytes written */
  d = gbuf(100, 0xEE);
  CHECK_EQ(blosc2_chunk_zeros(ts_params(8), 800, d, 100), 32);
  CHECK_EQ(d[32], 0xEE);
  CHECK_EQ(d[99], 0xEE);
  free(d);
}

static void test_nans_exact(void) {
  uint8_t *d = gbuf(32, 0);
  CHECK_EQ(blosc2_chunk_nans(ts_params(4), 100, d, 32), 32);
  static const uint8_t n4[32] = {0x05, 0x01, 0x05, 0x04, 0x64, 0, 0, 0, 0x64, 0, 0, 0, 0x20, 0, 0, 0,
                                 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x20};
  CHECK_MEM(d, n4, 32);
  CHECK_EQ(blosc2_chunk_nans(ts_params(8), 104, d, 32), 32);
  static const uint8_t n8[32] = {0x05, 0x01, 0x05, 0x08, 0x68, 0, 0, 0, 0x68, 0, 0, 0, 0x20, 0, 0, 0,
                                 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x20};
  CHECK_MEM(d, n8, 32);
  CHECK_GUARD(d, 32);
  free(d);
}

static void test_uninit_exact(void) {
  uint8_t *d = gbuf(32, 0);
  CHECK_EQ(blosc2_chunk_uninit(ts_params(4), 100, d, 32), 32);
  static const uint8_t u4[32] = {0x05, 0x01, 0x05, 0x04, 0x64, 0, 0, 0, 0x64, 0, 0, 0, 0x20, 0, 0, 0,
                                 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40};
  CHECK_MEM(d, u4, 32);
  CHECK_GUARD(d, 32);
  free(d);
}

static void test_repeatval_exact(void) {
  uint8_t *d = gbuf(36, 0);
  uint32_t v4 = 0x44332211;
  CHECK_EQ(blosc2_chunk_repeatval(ts_params(4), 64, d, 36, &v4), 36);
  static const uint8_t r4[36] = {0x05, 0x01, 0x05, 0x04, 0x40, 0, 0, 0, 0x40, 0, 0, 0, 0x24, 0, 0, 0,
                                 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x30,
                                 0x11, 0x22, 0x33, 0x44};
  CHECK_MEM(d, r4, 36);
  CHECK_GUARD(d, 36);
  free(d);
  d = gbuf(33, 0);
  CHECK_EQ(blosc2_chunk_repeatval(ts_params(1), 5, d, 33, &v4), 33);
  static const uint8_t r1[33] = {0x05, 0x01, 0x05, 0x01, 0x05, 0, 0, 0, 0x05, 0, 0, 0, 0x21, 0, 0, 0,
                                 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x30, 0x11};
  CHECK_MEM(d, r1, 33);
  CHECK_GUARD(d, 33);
  free(d);
}

/* decoding each kind, through every entry point, with every thread count */
static void test_decode_special(void) {
  int32_t n = 400000;
  uint8_t chunk[32 + 256];
  uint8_t *expect = malloc((size_t)n);
  for (int kind = 0; kind < 5; kind++) {
    int32_t ts = kind == 2 ? 8 : 4;
    int cb;
    uint64_t val = 0x0102030405060708ULL;
    switch (kind) {
      case 0:
        cb = blosc2_chunk_zeros(ts_params(ts), n, chunk, sizeof(chunk));
        memset(expect, 0, (size_t)n);
        break;
      case 1:
        cb = blosc2_chunk_nans(ts_params(ts), n, chunk, sizeof(chunk));
        for (int32_t i = 0; i < n / 4; i++) {
          static const uint8_t nan32[4] = {0x00, 0x00, 0xC0, 0x7F};
          memcpy(expect + 4 * i, nan32, 4);
        }
        break;
      case 2:
        cb = blosc2_chunk_nans(ts_params(ts), n, chunk, sizeof(chunk));
        for (int32_t i = 0; i < n / 8; i++) {
          static const uint8_t nan64[8] = {0, 0, 0, 0, 0, 0, 0xF8, 0x7F};
          memcpy(expect + 8 * i, nan64, 8);
        }
        break;
      case 3:
        cb = blosc2_chunk_repeatval(ts_params(ts), n, chunk, sizeof(chunk), &val);
        for (int32_t i = 0; i < n / 4; i++) memcpy(expect + 4 * i, &val, 4);
        break;
      default:
        ts = 8;
        cb = blosc2_chunk_repeatval(ts_params(ts), n, chunk, sizeof(chunk), &val);
        for (int32_t i = 0; i < n / 8; i++) memcpy(expect + 8 * i, &val, 8);
        break;
    }
    CHECK_GE(cb, 32);
    int32_t nb, cbs, bs;
    CHECK_EQ(blosc2_cbuffer_sizes(chunk, &nb, &cbs, &bs), 0);
    CHECK_EQ(nb, n);
    CHECK_EQ(cbs, cb);
    size_t ts1;
    int flags;
    blosc1_cbuffer_metainfo(chunk, &ts1, &flags);
    CHECK_EQ(ts1, ts);
    size_t vn;
    CHECK_EQ(blosc1_cbuffer_validate(chunk, (size_t)cb, &vn), 0);
    CHECK_EQ(vn, n);
    for (int nt = 1; nt <= 4; nt *= 2) {
      uint8_t *out;
      CHECK_EQ(decompress_with(nt, chunk, cb, n, &out), n);
      CHECK_MEM(out, expect, (size_t)n);
      free(out);
    }
    uint8_t *out = gbuf((size_t)n, 0x11);
    CHECK_EQ(blosc2_decompress(chunk, cb, out, n), n);
    CHECK_MEM(out, expect, (size_t)n);
    memset(out, 0x11, (size_t)n);
    CHECK_EQ(blosc1_decompress(chunk, out, (size_t)n), n);
    CHECK_MEM(out, expect, (size_t)n);
    /* too small by one */
    CHECK_EQ(blosc2_decompress(chunk, cb, out, n - 1), BLOSC2_ERROR_WRITE_BUFFER);
    /* larger destination: only nbytes written */
    free(out);
    out = gbuf((size_t)n + 100, 0x11);
    CHECK_EQ(blosc2_decompress(chunk, cb, out, n + 100), n);
    CHECK_EQ(out[n], 0x11);
    CHECK_GUARD(out, (size_t)n + 100);
    /* truncated */
    CHECK_EQ(blosc2_decompress(chunk, 31, out, n), BLOSC2_ERROR_READ_BUFFER);
    if (cb > 32) CHECK_EQ(blosc2_decompress(chunk, cb - 1, out, n), BLOSC2_ERROR_INVALID_HEADER);
    free(out);
  }
  free(expect);
}

static void test_uninit_decode(void) {
  uint8_t chunk[32];
  int32_t n = 100000;
  CHECK_EQ(blosc2_chunk_uninit(ts_params(4), n, chunk, sizeof(chunk)), 32);
  for (int nt = 1; nt <= 4; nt *= 4) {
    uint8_t *out;
    CHECK_EQ(decompress_with(nt, chunk, 32, n, &out), n);
    free(out);
  }
  uint8_t *out = gbuf((size_t)n, 0);
  CHECK_EQ(blosc2_decompress(chunk, 32, out, n - 1), BLOSC2_ERROR_WRITE_BUFFER);
  CHECK_GUARD(out, (size_t)n);
  free(out);
}

/* repeatval: the element size is cbytes - 32, not the header typesize */
static void test_repeatval_sizes(void) {
  static const int32_t ts[] = {1, 2, 3, 4, 5, 7, 8, 16, 100, 255, 256, 1000};
  for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
    uint8_t val[1000];
    for (int k = 0; k < 1000; k++) val[k] = (uint8_t)(k * 7 + i + 1);
    int32_t n = ts[i] * 301;
    size_t cap = 32 + (size_t)ts[i];
    uint8_t *d = gbuf(cap, 0);
    int cb = blosc2_chunk_repeatval(ts_params(ts[i]), n, d, (int32_t)cap, val);
    CHECK_EQ(cb, (long long)cap);
    CHECK_EQ(HDR_SPECIAL(d), BLOSC2_SPECIAL_VALUE);
    CHECK_MEM(d + 32, val, (size_t)ts[i]);
    CHECK_GUARD(d, cap);
    uint8_t *out;
    CHECK_EQ(decompress_with(1, d, cb, n, &out), n);
    bool ok = true;
    for (int32_t k = 0; k < 301; k++) ok &= memcmp(out + (size_t)k * ts[i], val, (size_t)ts[i]) == 0;
    CHECK(ok);
    free(out);
    /* destination one byte too small */
    free(d);
    d = gbuf(cap - 1, 0);
    CHECK_EQ(blosc2_chunk_repeatval(ts_params(ts[i]), n, d, (int32_t)cap - 1, val), BLOSC2_ERROR_DATA);
    CHECK_GUARD(d, cap - 1);
    free(d);
  }
}

static void test_special_bad_params(void) {
  uint8_t *d = gbuf(64, 0);
  uint64_t v = 0x1122334455667788ULL;
  /* destination too small */
  CHECK_EQ(blosc2_chunk_zeros(ts_params(4), 1000, d, 31), BLOSC2_ERROR_DATA);
  CHECK_EQ(blosc2_chunk_nans(ts_params(4), 1000, d, 31), BLOSC2_ERROR_DATA);
  CHECK_EQ(blosc2_chunk_uninit(ts_params(4), 1000, d, 31), BLOSC2_ERROR_DATA);
  CHECK_EQ(blosc2_chunk_repeatval(ts_params(8), 1000, d, 39, &v), BLOSC2_ERROR_DATA);
  CHECK_EQ(blosc2_chunk_zeros(ts_params(4), 1000, d, 0), BLOSC2_ERROR_DATA);
  CHECK_EQ(blosc2_chunk_zeros(ts_params(4), 1000, d, -1), BLOSC2_ERROR_DATA);
  /* nbytes not a multiple of typesize */
  CHECK_EQ(blosc2_chunk_zeros(ts_params(4), 1001, d, 64), BLOSC2_ERROR_DATA);
  CHECK_EQ(blosc2_chunk_nans(ts_params(4), 1001, d, 64), BLOSC2_ERROR_DATA);
  CHECK_EQ(blosc2_chunk_nans(ts_params(8), 1004, d, 64), BLOSC2_ERROR_DATA);
  CHECK_EQ(blosc2_chunk_uninit(ts_params(4), 1001, d, 64), BLOSC2_ERROR_DATA);
  CHECK_EQ(blosc2_chunk_repeatval(ts_params(8), 1001, d, 64, &v), BLOSC2_ERROR_DATA);
  CHECK_EQ(blosc2_chunk_zeros(ts_params(256), 1000, d, 64), BLOSC2_ERROR_DATA);
  /* too large */
  CHECK_EQ(blosc2_chunk_zeros(ts_params(4), BLOSC2_MAX_BUFFERSIZE + 1, d, 64),
           BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED);
  CHECK_EQ(blosc2_chunk_zeros(ts_params(1), BLOSC2_MAX_BUFFERSIZE + 1, d, 64),
           BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED);
  CHECK_GUARD(d, 64);
  /* negative nbytes: the reference writes a 32-byte header-only chunk; an
     error is acceptable too, but nothing may be written past destsize */
  int rc = blosc2_chunk_zeros(ts_params(4), -1, d, 32);
  CHECK(rc == 32 || rc < 0);
  rc = blosc2_chunk_nans(ts_params(4), -4, d, 32);
  CHECK(rc == 32 || rc < 0);
  rc = blosc2_chunk_uninit(ts_params(4), -4, d, 32);
  CHECK(rc == 32 || rc < 0);
  rc = blosc2_chunk_repeatval(ts_params(8), -8, d, 40, &v);
  CHECK(rc == 40 || rc < 0);
  CHECK_GUARD(d, 64);
  free(d);
}

/* ------------------------------------------------------------------ */
/* blosc2_schunk_fill_special                                            */
/* ------------------------------------------------------------------ */

static blosc2_schunk *new_schunk(int32_t ts) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = ts;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  return blosc2_schunk_new(&st);
}

static void test_fill_special_kinds(void) {
  for (int kind = BLOSC2_SPECIAL_ZERO; kind <= BLOSC2_SPECIAL_UNINIT; kind++) {
    if (kind == BLOSC2_SPECIAL_VALUE) continue;
    blosc2_schunk *sc = new_schunk(4);
    int64_t r = blosc2_schunk_fill_special(sc, 250000, kind, 40000);
    CHECK_EQ(r, 25);
    CHECK_EQ(sc->nchunks, 25);
    CHECK_EQ(sc->nbytes, 1000000);
    CHECK_EQ(sc->chunksize, 40000);
    CHECK_EQ(sc->typesize, 4);
    for (int64_t i = 0; i < 25; i += 6) {
      uint8_t *chunk;
      bool needs_free;
      int cs = blosc2_schunk_get_chunk(sc, i, &chunk, &needs_free);
      CHECK_EQ(cs, 32);
      if (cs == 32) {
        uint8_t expect[32] = {0x05, 0x01, 0x05, 0x04, 0x40, 0x9c, 0, 0, 0x40, 0x9c, 0, 0, 0x20, 0, 0, 0,
                              0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        expect[31] = (uint8_t)(kind << 4);
        CHECK_MEM(chunk, expect, 32);
      }
      if (needs_free) free(chunk);
      uint8_t *out = gbuf(40000, 0x33);
      CHECK_EQ(blosc2_schunk_decompress_chunk(sc, i, out, 40000), 40000);
      if (kind == BLOSC2_SPECIAL_ZERO) {
        uint8_t *z = calloc(1, 40000);
        CHECK_MEM(out, z, 40000);
        free(z);
      } else if (kind == BLOSC2_SPECIAL_NAN) {
        bool ok = true;
        for (int k = 0; k < 10000; k++) {
          uint32_t u;
          memcpy(&u, out + 4 * k, 4);
          ok &= u == 0x7FC00000u;
        }
        CHECK(ok);
      }
      CHECK_GUARD(out, 40000);
      free(out);
    }
    blosc2_schunk_free(sc);
  }
}

static void test_fill_special_partial_last(void) {
  blosc2_schunk *sc = new_schunk(4);
  CHECK_EQ(blosc2_schunk_fill_special(sc, 10001, BLOSC2_SPECIAL_ZERO, 40000), 2);
  CHECK_EQ(sc->nchunks, 2);
  CHECK_EQ(sc->nbytes, 40004);
  uint8_t out[40000];
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 1, out, sizeof(out)), 4);
  blosc2_schunk_free(sc);
  /* NaN, typesize 8 */
  sc = new_schunk(8);
  CHECK_EQ(blosc2_schunk_fill_special(sc, 1000, BLOSC2_SPECIAL_NAN, 8000), 1);
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 0, out, sizeof(out)), 8000);
  uint64_t u;
  memcpy(&u, out + 8 * 999, 8);
  CHECK_EQ(u, 0x7FF8000000000000ULL);
  blosc2_schunk_free(sc);
  /* nothing to fill */
  sc = new_schunk(4);
  CHECK_EQ(blosc2_schunk_fill_special(sc, 0, BLOSC2_SPECIAL_ZERO, 40000), 0);
  CHECK_EQ(sc->nchunks, 0);
  blosc2_schunk_free(sc);
  /* huge logical size, cheap */
  sc = new_schunk(4);
  CHECK_EQ(blosc2_schunk_fill_special(sc, (int64_t)1 << 40, BLOSC2_SPECIAL_ZERO, 1 << 30), 4096);
  CHECK_EQ(sc->nbytes, (int64_t)1 << 42);
  blosc2_schunk_free(sc);
}

static void test_fill_special_errors(void) {
  struct {
    int64_t nitems;
    int special;
    int32_t chunksize;
    int expect;
  } cases[] = {
      {1000000, BLOSC2_SPECIAL_VALUE, 40000, BLOSC2_ERROR_SCHUNK_SPECIAL},
      {1000000, 0, 40000, BLOSC2_ERROR_SCHUNK_SPECIAL},
      {1000000, 5, 40000, BLOSC2_ERROR_SCHUNK_SPECIAL},
      {1000000, -1, 40000, BLOSC2_ERROR_SCHUNK_SPECIAL},
      {1000000, BLOSC2_SPECIAL_ZERO, 40001, BLOSC2_ERROR_SCHUNK_SPECIAL},
      {1000000, BLOSC2_SPECIAL_ZERO, 0, BLOSC2_ERROR_INVALID_PARAM},
      {1000000, BLOSC2_SPECIAL_ZERO, -4, BLOSC2_ERROR_INVALID_PARAM},
      {-1, BLOSC2_SPECIAL_ZERO, 40000, BLOSC2_ERROR_INVALID_PARAM},
      {1000, BLOSC2_SPECIAL_ZERO, BLOSC2_MAX_BUFFERSIZE, BLOSC2_ERROR_SCHUNK_SPECIAL},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    blosc2_schunk *sc = new_schunk(4);
    int64_t r = blosc2_schunk_fill_special(sc, cases[i].nitems, cases[i].special, cases[i].chunksize);
    if (r != cases[i].expect) fprintf(stderr, "  fill_special case %zu\n", i);
    CHECK_EQ(r, cases[i].expect);
    blosc2_schunk_free(sc);
  }
  /* the super-chunk must be empty */
  blosc2_schunk *sc = new_schunk(4);
  uint8_t buf[4000];
  memset(buf, 1, sizeof(buf));
  CHECK_EQ(blosc2_schunk_append_buffer(sc, buf, sizeof(buf)), 1);
  CHECK_EQ(blosc2_schunk_fill_special(sc, 1000, BLOSC2_SPECIAL_ZERO, 4000), BLOSC2_ERROR_FRAME_SPECIAL);
  blosc2_schunk_free(sc);
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  blosc2_init();
  RUN(test_zeros_exact);
  RUN(test_nans_exact);
  RUN(test_uninit_exact);
  RUN(test_repeatval_exact);
  RUN(test_decode_special);
  RUN(test_uninit_decode);
  RUN(test_repeatval_sizes);
  RUN(test_special_bad_params);
  RUN(test_fill_special_kinds);
  RUN(test_fill_special_partial_last);
  RUN(test_fill_special_errors);
  blosc2_destroy();
  return TEST_SUMMARY();
}
