/*
 * test_blosc1.c - area 1 of API.md: the Blosc1-style API on global state.
 *
 * Functions covered: blosc1_compress, blosc1_decompress, blosc1_getitem,
 * blosc1_get_compressor, blosc1_set_compressor, blosc1_cbuffer_sizes,
 * blosc1_cbuffer_validate, blosc1_cbuffer_metainfo, blosc1_get_blocksize,
 * blosc1_set_blocksize, blosc1_set_splitmode (plus blosc2_init/destroy,
 * blosc2_set_delta as used by the global API).
 *
 * Reference bugs compiled out with -DB2RS_REFERENCE (see b2rs_test.h):
 *   B2RS_REFERENCE_BUG_BLOCKSIZE_TYPESIZE  test_set_blocksize_not_multiple
 *   B2RS_REFERENCE_BUG_UNDEFINED_TAIL      test_delta_roundtrip (odd sizes)
 *
 * NULL pointers: blosc1_compress/decompress/getitem/cbuffer_* with a NULL
 * src/dest crash in the reference (SIGSEGV), so they are not tested here.
 * blosc1_compress with typesize 0 crashes the reference (SIGFPE): not tested.
 */
#include "b2rs_test.h"

static void reset_globals(void) {
  blosc1_set_compressor("blosclz");
  blosc1_set_blocksize(0);
  blosc1_set_splitmode(BLOSC_FORWARD_COMPAT_SPLIT);
  blosc2_set_delta(0);
  blosc2_set_nthreads(1);
}

/* compress n bytes with the blosc1 API and check the basic invariants; returns
   the chunk (guarded, caller frees) */
static uint8_t *b1_compress_ok(int clevel, int doshuffle, size_t typesize, const uint8_t *src,
                               size_t n, int *cbytes) {
  size_t cap = n + BLOSC2_MAX_OVERHEAD;
  uint8_t *dst = gbuf(cap, 0);
  int rc = blosc1_compress(clevel, doshuffle, typesize, n, src, dst, cap);
  CHECK_GT(rc, 0);
  CHECK_LE(rc, (long long)cap);
  CHECK_GUARD(dst, cap);
  *cbytes = rc;
  return dst;
}

static void test_roundtrip_matrix(void) {
  static const size_t sizes[] = {0, 1, 7, 31, 32, 33, 100, 1000, 4096, 65536 + 3, 200000};
  static const size_t typesizes[] = {1, 2, 3, 4, 7, 8, 16};
  static const int clevels[] = {0, 1, 5, 9};
  size_t maxn = 200000;
  uint8_t *src = malloc(maxn);
  fill_mixed(src, maxn, 1);
  for (int c = 0; c < N_ALL_CODECS; c++) {
    CHECK_EQ(blosc1_set_compressor(ALL_CODEC_NAMES[c]), ALL_CODECS[c]);
    for (int sh = 0; sh <= 2; sh++) {
      for (size_t ti = 0; ti < sizeof(typesizes) / sizeof(typesizes[0]); ti++) {
        for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
          for (size_t li = 0; li < sizeof(clevels) / sizeof(clevels[0]); li++) {
            size_t n = sizes[si];
            /* keep the matrix fast: big sizes only for a few combos */
            if (n > 5000 && !(li == 2 || ti == 3)) continue;
            int cbytes = 0;
            uint8_t *chunk = b1_compress_ok(clevels[li], sh, typesizes[ti], src, n, &cbytes);
            size_t nb = 0, cb = 0, bs = 0;
            blosc1_cbuffer_sizes(chunk, &nb, &cb, &bs);
            CHECK_EQ(nb, n);
            CHECK_EQ(cb, cbytes);
            uint8_t *out = gbuf(n, 0x33);
            int d = blosc1_decompress(chunk, out, n);
            CHECK_EQ(d, (long long)n);
            CHECK_MEM(out, src, n);
            CHECK_GUARD(out, n);
            free(out);
            free(chunk);
          }
        }
      }
    }
  }
  free(src);
  reset_globals();
}

static void test_header_fields(void) {
  uint8_t src[40000];
  for (int c = 0; c < N_ALL_CODECS; c++) {
    blosc1_set_compressor(ALL_CODEC_NAMES[c]);
    for (int sh = 0; sh <= 2; sh++) {
      /* data every codec can compress with this filter */
      if (sh == 0) fill_mixed(src, sizeof(src), 99);
      else fill_ramp32(src, sizeof(src));
      int cbytes;
      uint8_t *chunk = b1_compress_ok(5, sh, 4, src, sizeof(src), &cbytes);
      CHECK_EQ(HDR_VERSION(chunk), 5);
      CHECK_EQ(HDR_VERSIONLZ(chunk), 1);
      CHECK(HDR_IS_EXTENDED(chunk));
      CHECK(!HDR_IS_MEMCPYED(chunk));
      CHECK_EQ(HDR_FORMAT(chunk), codec_format(ALL_CODECS[c]));
      CHECK_EQ(HDR_TYPESIZE(chunk), 4);
      CHECK_EQ(HDR_NBYTES(chunk), (int)sizeof(src));
      CHECK_EQ(HDR_CBYTES(chunk), cbytes);
      CHECK_GT(HDR_BLOCKSIZE(chunk), 0);
      CHECK_LE(HDR_BLOCKSIZE(chunk), (int)sizeof(src));
      CHECK_EQ(HDR_FILTER(chunk, 5), sh);
      for (int i = 0; i < 5; i++) CHECK_EQ(HDR_FILTER(chunk, i), 0);
      CHECK_EQ(HDR_UDCOMPCODE(chunk), ALL_CODECS[c]);
      CHECK_EQ(HDR_COMPCODE_META(chunk), 0);
      CHECK_EQ(HDR_FLAGS2(chunk), 0);
      CHECK_EQ(HDR_BLOSC2_FLAGS(chunk), 0);
      free(chunk);
    }
  }
  /* doshuffle = SHUFFLE with typesize 1: no filter is recorded */
  blosc1_set_compressor("blosclz");
  {
    int cbytes;
    uint8_t *chunk = b1_compress_ok(5, BLOSC_SHUFFLE, 1, src, sizeof(src), &cbytes);
    CHECK_EQ(HDR_TYPESIZE(chunk), 1);
    CHECK_EQ(HDR_FILTER(chunk, 5), 0);
    free(chunk);
  }
  /* bitshuffle with typesize 1 is kept */
  {
    int cbytes;
    uint8_t *chunk = b1_compress_ok(5, BLOSC_BITSHUFFLE, 1, src, sizeof(src), &cbytes);
    CHECK_EQ(HDR_FILTER(chunk, 5), BLOSC_BITSHUFFLE);
    free(chunk);
  }
  reset_globals();
}

static void test_compressor_get_set(void) {
  CHECK_STR(blosc1_get_compressor(), "blosclz");
  for (int c = 0; c < N_ALL_CODECS; c++) {
    CHECK_EQ(blosc1_set_compressor(ALL_CODEC_NAMES[c]), ALL_CODECS[c]);
    CHECK_STR(blosc1_get_compressor(), ALL_CODEC_NAMES[c]);
  }
  /* unknown names are refused with -1.  (The reference then leaves the
     global compressor invalid - blosc1_get_compressor() returns NULL - so
     the state after a refused name is not checked.) */
  CHECK_EQ(blosc1_set_compressor("foo"), -1);
  CHECK_EQ(blosc1_set_compressor(""), -1);
  CHECK_EQ(blosc1_set_compressor("ZSTD"), -1);
  CHECK_EQ(blosc1_set_compressor("snappy"), -1);
  CHECK_EQ(blosc1_set_compressor("zstd"), BLOSC_ZSTD);
  CHECK_STR(blosc1_get_compressor(), "zstd");
  /* the chosen compressor is used by blosc1_compress */
  uint8_t src[20000];
  fill_mixed(src, sizeof(src), 7);
  for (int c = 0; c < N_ALL_CODECS; c++) {
    blosc1_set_compressor(ALL_CODEC_NAMES[c]);
    int cbytes;
    uint8_t *chunk = b1_compress_ok(5, 1, 2, src, sizeof(src), &cbytes);
    CHECK_EQ(HDR_FORMAT(chunk), codec_format(ALL_CODECS[c]));
    CHECK_STR(blosc2_cbuffer_complib(chunk),
              c == 0 ? "BloscLZ" : (c <= 2 ? "LZ4" : (c == 3 ? "Zlib" : "Zstd")));
    free(chunk);
  }
  reset_globals();
}

static void test_blocksize_get_set(void) {
  CHECK_EQ(blosc1_get_blocksize(), 0);
  blosc1_set_blocksize(4096);
  CHECK_EQ(blosc1_get_blocksize(), 4096);
  size_t n = 100000;
  uint8_t *src = malloc(n);
  fill_ramp32(src, n);
  int cbytes;
  uint8_t *chunk = b1_compress_ok(5, 1, 4, src, n, &cbytes);
  CHECK_EQ(HDR_BLOCKSIZE(chunk), 4096);
  size_t nb, cb, bs;
  blosc1_cbuffer_sizes(chunk, &nb, &cb, &bs);
  CHECK_EQ(bs, 4096);
  uint8_t *out = gbuf(n, 0);
  CHECK_EQ(blosc1_decompress(chunk, out, n), (long long)n);
  CHECK_MEM(out, src, n);
  CHECK_GUARD(out, n);
  free(chunk);
  /* a blocksize larger than the buffer is clamped to nbytes */
  blosc1_set_blocksize(1 << 20);
  chunk = b1_compress_ok(5, 1, 4, src, n, &cbytes);
  CHECK_EQ(HDR_BLOCKSIZE(chunk), (long long)n);
  CHECK_EQ(blosc1_decompress(chunk, out, n), (long long)n);
  CHECK_MEM(out, src, n);
  free(chunk);
  /* back to automatic */
  blosc1_set_blocksize(0);
  CHECK_EQ(blosc1_get_blocksize(), 0);
  chunk = b1_compress_ok(5, 1, 4, src, n, &cbytes);
  CHECK_EQ(HDR_BLOCKSIZE(chunk), (long long)n); /* stune: 256K clamped to nbytes */
  free(chunk);
  {
    size_t n2 = 1000000;
    uint8_t *src2 = malloc(n2);
    fill_ramp32(src2, n2);
    chunk = b1_compress_ok(5, 1, 4, src2, n2, &cbytes);
    CHECK_EQ(HDR_BLOCKSIZE(chunk), 262144); /* stune: clevel 5, split, 64K*4 */
    free(chunk);
    chunk = b1_compress_ok(5, 0, 4, src2, n2, &cbytes);
    CHECK_EQ(HDR_BLOCKSIZE(chunk), 131072); /* no split: 32K*4 */
    free(chunk);
    chunk = b1_compress_ok(1, 1, 8, src2, n2, &cbytes);
    CHECK_EQ(HDR_BLOCKSIZE(chunk), 262144); /* split clevel 1: 32K*8 */
    free(chunk);
    free(src2);
  }
  free(out);
  free(src);
  reset_globals();
}

#ifndef B2RS_REFERENCE_BUG_BLOCKSIZE_TYPESIZE
/* a user blocksize that is not a multiple of typesize must still give a
   decodable chunk whose header records the blocksize really used */
static void test_set_blocksize_not_multiple(void) {
  size_t n = 50000;
  uint8_t *src = malloc(n);
  fill_ramp32(src, n);
  blosc1_set_blocksize(4098);
  int cbytes;
  uint8_t *chunk = b1_compress_ok(5, 1, 4, src, n, &cbytes);
  CHECK_EQ(HDR_BLOCKSIZE(chunk) % 4, 0);
  uint8_t *out = gbuf(n, 0);
  CHECK_EQ(blosc1_decompress(chunk, out, n), (long long)n);
  CHECK_MEM(out, src, n);
  CHECK_GUARD(out, n);
  free(out);
  free(chunk);
  free(src);
  reset_globals();
}
#endif

static void test_splitmode(void) {
  size_t n = 100000;
  uint8_t *src = malloc(n);
  fill_ramp32(src, n);
  int cbytes;
  uint8_t *chunk;
  /* default (FORWARD_COMPAT): blosclz + shuffle + typesize 4 -> split */
  chunk = b1_compress_ok(5, 1, 4, src, n, &cbytes);
  CHECK(!HDR_DONT_SPLIT(chunk));
  free(chunk);
  blosc1_set_splitmode(BLOSC_NEVER_SPLIT);
  chunk = b1_compress_ok(5, 1, 4, src, n, &cbytes);
  CHECK(HDR_DONT_SPLIT(chunk));
  uint8_t *out = gbuf(n, 0);
  CHECK_EQ(blosc1_decompress(chunk, out, n), (long long)n);
  CHECK_MEM(out, src, n);
  free(chunk);
  blosc1_set_splitmode(BLOSC_ALWAYS_SPLIT);
  /* no shuffle and an HCR codec would normally not split */
  blosc1_set_compressor("zlib");
  chunk = b1_compress_ok(5, 0, 4, src, n, &cbytes);
  CHECK(!HDR_DONT_SPLIT(chunk));
  CHECK_EQ(blosc1_decompress(chunk, out, n), (long long)n);
  CHECK_MEM(out, src, n);
  free(chunk);
  blosc1_set_splitmode(BLOSC_AUTO_SPLIT);
  chunk = b1_compress_ok(5, 0, 4, src, n, &cbytes);
  CHECK(HDR_DONT_SPLIT(chunk));
  free(chunk);
  blosc1_set_compressor("lz4");
  chunk = b1_compress_ok(5, 1, 4, src, n, &cbytes);
  CHECK(!HDR_DONT_SPLIT(chunk));
  free(chunk);
  /* zstd splits only for clevel <= 5 */
  blosc1_set_compressor("zstd");
  chunk = b1_compress_ok(5, 1, 4, src, n, &cbytes);
  CHECK(!HDR_DONT_SPLIT(chunk));
  free(chunk);
  chunk = b1_compress_ok(6, 1, 4, src, n, &cbytes);
  CHECK(HDR_DONT_SPLIT(chunk));
  CHECK_EQ(blosc1_decompress(chunk, out, n), (long long)n);
  CHECK_MEM(out, src, n);
  free(chunk);
  /* typesize > 16 never splits automatically */
  blosc1_set_compressor("blosclz");
  blosc1_set_splitmode(BLOSC_FORWARD_COMPAT_SPLIT);
  chunk = b1_compress_ok(5, 1, 17, src, n, &cbytes);
  CHECK(HDR_DONT_SPLIT(chunk));
  free(chunk);
  free(out);
  free(src);
  reset_globals();
}

static void test_cbuffer_info(void) {
  size_t n = 30000;
  uint8_t *src = malloc(n);
  fill_ramp32(src, n);
  int cbytes;
  uint8_t *chunk = b1_compress_ok(5, BLOSC_SHUFFLE, 4, src, n, &cbytes);
  size_t nb = 0, cb = 0, bs = 0;
  blosc1_cbuffer_sizes(chunk, &nb, &cb, &bs);
  CHECK_EQ(nb, n);
  CHECK_EQ(cb, cbytes);
  CHECK_EQ(bs, HDR_BLOCKSIZE(chunk));
  size_t ts = 0;
  int flags = -1;
  blosc1_cbuffer_metainfo(chunk, &ts, &flags);
  CHECK_EQ(ts, 4);
  CHECK_EQ(flags, HDR_FLAGS(chunk));
  CHECK((flags & BLOSC_MEMCPYED) == 0);
  size_t vn = 0;
  CHECK_EQ(blosc1_cbuffer_validate(chunk, (size_t)cbytes, &vn), 0);
  CHECK_EQ(vn, n);
  /* the given length must match the header's cbytes */
  CHECK_EQ(blosc1_cbuffer_validate(chunk, (size_t)cbytes - 1, &vn), BLOSC2_ERROR_INVALID_HEADER);
  CHECK_EQ(blosc1_cbuffer_validate(chunk, (size_t)cbytes + 1, &vn), BLOSC2_ERROR_INVALID_HEADER);
  CHECK_EQ(blosc1_cbuffer_validate(chunk, 15, &vn), BLOSC2_ERROR_WRITE_BUFFER);
  CHECK_EQ(blosc1_cbuffer_validate(chunk, 0, &vn), BLOSC2_ERROR_WRITE_BUFFER);
  CHECK_EQ(blosc1_cbuffer_validate(chunk, 16, &vn), BLOSC2_ERROR_INVALID_HEADER);
  CHECK_EQ(blosc1_cbuffer_validate(chunk, 32, &vn), BLOSC2_ERROR_INVALID_HEADER);
  int version = -1, versionlz = -1;
  blosc2_cbuffer_versions(chunk, &version, &versionlz);
  CHECK_EQ(version, 5);
  CHECK_EQ(versionlz, 1);
  free(chunk);
  /* memcpyed chunk: metainfo shows the memcpy flag */
  chunk = b1_compress_ok(0, BLOSC_SHUFFLE, 4, src, n, &cbytes);
  blosc1_cbuffer_metainfo(chunk, &ts, &flags);
  CHECK((flags & BLOSC_MEMCPYED) != 0);
  CHECK_EQ(cbytes, (long long)n + 32);
  CHECK_EQ(blosc1_cbuffer_validate(chunk, (size_t)cbytes, &vn), 0);
  CHECK_EQ(vn, n);
  free(chunk);
  free(src);
}

static void test_getitem(void) {
  size_t n = 200000;
  uint8_t *src = malloc(n);
  fill_ramp32(src, n);
  for (int c = 0; c < N_ALL_CODECS; c++) {
    blosc1_set_compressor(ALL_CODEC_NAMES[c]);
    for (int sh = 0; sh <= 2; sh++) {
      int cbytes;
      uint8_t *chunk = b1_compress_ok(5, sh, 4, src, n, &cbytes);
      int nitems_total = (int)(n / 4);
      static const int starts[] = {0, 1, 100, 16383, 16384, 16385, 49990};
      static const int counts[] = {1, 10, 16384, 3};
      for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
        for (size_t j = 0; j < sizeof(counts) / sizeof(counts[0]); j++) {
          int st = starts[i], cnt = counts[j];
          if (st + cnt > nitems_total) continue;
          uint8_t *out = gbuf((size_t)cnt * 4, 0);
          int rc = blosc1_getitem(chunk, st, cnt, out);
          CHECK_EQ(rc, cnt * 4);
          CHECK_MEM(out, src + (size_t)st * 4, (size_t)cnt * 4);
          CHECK_GUARD(out, (size_t)cnt * 4);
          free(out);
        }
      }
      /* whole buffer */
      uint8_t *out = gbuf(n, 0);
      CHECK_EQ(blosc1_getitem(chunk, 0, nitems_total, out), (long long)n);
      CHECK_MEM(out, src, n);
      CHECK_GUARD(out, n);
      /* out of range */
      CHECK_EQ(blosc1_getitem(chunk, -1, 10, out), BLOSC2_ERROR_INVALID_PARAM);
      CHECK_EQ(blosc1_getitem(chunk, nitems_total - 5, 10, out), BLOSC2_ERROR_INVALID_PARAM);
      CHECK_EQ(blosc1_getitem(chunk, 0, -1, out), BLOSC2_ERROR_INVALID_PARAM);
      CHECK_EQ(blosc1_getitem(chunk, nitems_total + 1, 1, out), BLOSC2_ERROR_INVALID_PARAM);
      CHECK_GUARD(out, n);
      free(out);
      free(chunk);
    }
  }
  free(src);
  reset_globals();
}

static void test_getitem_memcpyed(void) {
  size_t n = 1000;
  uint8_t *src = malloc(n);
  fill_random(src, n, 3);
  int cbytes;
  uint8_t *chunk = b1_compress_ok(0, 1, 8, src, n, &cbytes);
  CHECK(HDR_IS_MEMCPYED(chunk));
  uint8_t out[800];
  CHECK_EQ(blosc1_getitem(chunk, 5, 100, out), 800);
  CHECK_MEM(out, src + 40, 800);
  free(chunk);
  free(src);
}

static void test_memcpyed_exact(void) {
  /* clevel 0 -> memcpyed chunk: header + raw data, reproduced exactly */
  size_t n = 5000;
  uint8_t *src = malloc(n);
  fill_mixed(src, n, 11);
  int cbytes;
  uint8_t *chunk = b1_compress_ok(0, BLOSC_SHUFFLE, 4, src, n, &cbytes);
  CHECK_EQ(cbytes, (long long)n + BLOSC_EXTENDED_HEADER_LENGTH);
  CHECK(HDR_IS_MEMCPYED(chunk));
  CHECK_MEM(chunk + 32, src, n);
  static const uint8_t hdr[16] = {0x05, 0x01, 0x07, 0x04, 0x88, 0x13, 0x00, 0x00,
                                  0x88, 0x13, 0x00, 0x00, 0xa8, 0x13, 0x00, 0x00};
  CHECK_MEM(chunk, hdr, 16);
  free(chunk);
  /* tiny buffers (< 32 bytes) are always memcpyed */
  chunk = b1_compress_ok(9, BLOSC_SHUFFLE, 4, src, 31, &cbytes);
  CHECK(HDR_IS_MEMCPYED(chunk));
  CHECK_EQ(cbytes, 31 + 32);
  CHECK_MEM(chunk + 32, src, 31);
  free(chunk);
  /* empty buffer: 32-byte chunk with blocksize 1 */
  chunk = b1_compress_ok(5, BLOSC_SHUFFLE, 4, src, 0, &cbytes);
  CHECK_EQ(cbytes, 32);
  CHECK_EQ(HDR_NBYTES(chunk), 0);
  CHECK_EQ(HDR_BLOCKSIZE(chunk), 1);
  uint8_t *out = gbuf(0, 0);
  CHECK_EQ(blosc1_decompress(chunk, out, 0), 0);
  CHECK_GUARD(out, 0);
  free(out);
  free(chunk);
  free(src);
}

static void test_incompressible(void) {
  size_t n = 100000;
  uint8_t *src = malloc(n);
  fill_random(src, n, 5);
  for (int c = 0; c < N_ALL_CODECS; c++) {
    blosc1_set_compressor(ALL_CODEC_NAMES[c]);
    /* nbytes + 32 always succeeds (memcpy fallback) */
    int cbytes;
    uint8_t *chunk = b1_compress_ok(9, 1, 1, src, n, &cbytes);
    CHECK_EQ(cbytes, (long long)n + 32);
    CHECK(HDR_IS_MEMCPYED(chunk));
    CHECK_MEM(chunk + 32, src, n);
    uint8_t *out = gbuf(n, 0);
    CHECK_EQ(blosc1_decompress(chunk, out, n), (long long)n);
    CHECK_MEM(out, src, n);
    free(out);
    free(chunk);
    /* one byte less: cannot compress -> 0, nothing written past destsize */
    size_t cap = n + 31;
    uint8_t *dst = gbuf(cap, 0);
    CHECK_EQ(blosc1_compress(9, 1, 1, n, src, dst, cap), 0);
    CHECK_GUARD(dst, cap);
    free(dst);
  }
  free(src);
  reset_globals();
}

static void test_decompress_small_dest(void) {
  size_t n = 10000;
  uint8_t *src = malloc(n);
  fill_ramp32(src, n);
  int cbytes;
  uint8_t *chunk = b1_compress_ok(5, 1, 4, src, n, &cbytes);
  uint8_t *out = gbuf(n - 1, 0);
  CHECK_EQ(blosc1_decompress(chunk, out, n - 1), BLOSC2_ERROR_WRITE_BUFFER);
  CHECK_GUARD(out, n - 1);
  free(out);
  out = gbuf(0, 0);
  CHECK_EQ(blosc1_decompress(chunk, out, 0), BLOSC2_ERROR_WRITE_BUFFER);
  CHECK_GUARD(out, 0);
  free(out);
  /* a larger destination is fine */
  out = gbuf(n + 100, 0x11);
  CHECK_EQ(blosc1_decompress(chunk, out, n + 100), (long long)n);
  CHECK_MEM(out, src, n);
  CHECK_GUARD(out, n + 100);
  free(out);
  free(chunk);
  free(src);
}

static void test_bad_params(void) {
  uint8_t src[1000];
  fill_ramp32(src, sizeof(src));
  size_t cap = sizeof(src) + 32;
  uint8_t *dst = gbuf(cap, 0);
  CHECK_EQ(blosc1_compress(10, 1, 4, sizeof(src), src, dst, cap), BLOSC2_ERROR_CODEC_PARAM);
  CHECK_EQ(blosc1_compress(-1, 1, 4, sizeof(src), src, dst, cap), BLOSC2_ERROR_CODEC_PARAM);
  CHECK_EQ(blosc1_compress(5, 1, 4, (size_t)BLOSC2_MAX_BUFFERSIZE + 1, src, dst, cap),
           BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED);
  CHECK_EQ(blosc1_compress(5, 1, 4, sizeof(src), src, dst, 31),
           BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED);
  CHECK_EQ(blosc1_compress(5, 1, BLOSC2_MAXTYPESIZE + 1, sizeof(src), src, dst, cap),
           BLOSC2_ERROR_INVALID_PARAM);
  CHECK_GUARD(dst, cap);
  free(dst);
}

static void test_delta_roundtrip(void) {
  blosc2_set_delta(1);
  static const size_t sizes[] = {4000, 100000, 262144 * 2};
  for (size_t si = 0; si < 3; si++) {
    size_t n = sizes[si];
    uint8_t *src = malloc(n);
    fill_ramp32(src, n);
    for (int sh = 0; sh <= 2; sh++) {
      int cbytes;
      uint8_t *chunk = b1_compress_ok(5, sh, 4, src, n, &cbytes);
      CHECK_EQ(HDR_FILTER(chunk, 4), BLOSC_DELTA);
      CHECK((HDR_FLAGS(chunk) & BLOSC_DODELTA) != 0);
      uint8_t *out = gbuf(n, 0);
      CHECK_EQ(blosc1_decompress(chunk, out, n), (long long)n);
      CHECK_MEM(out, src, n);
      CHECK_GUARD(out, n);
      free(out);
      free(chunk);
    }
    free(src);
  }
#ifndef B2RS_REFERENCE_BUG_UNDEFINED_TAIL
  /* nbytes not a multiple of typesize: the tail must survive */
  {
    size_t n = 100003;
    uint8_t *src = malloc(n);
    fill_ramp32(src, n);
    int cbytes;
    uint8_t *chunk = b1_compress_ok(5, 1, 4, src, n, &cbytes);
    uint8_t *out = gbuf(n, 0);
    CHECK_EQ(blosc1_decompress(chunk, out, n), (long long)n);
    CHECK_MEM(out, src, n);
    free(out);
    free(chunk);
    free(src);
  }
#endif
  blosc2_set_delta(0);
  {
    uint8_t src[4000];
    fill_ramp32(src, sizeof(src));
    int cbytes;
    uint8_t *chunk = b1_compress_ok(5, 1, 4, src, sizeof(src), &cbytes);
    CHECK_EQ(HDR_FILTER(chunk, 4), 0);
    CHECK((HDR_FLAGS(chunk) & BLOSC_DODELTA) == 0);
    free(chunk);
  }
}

/* BloscLZ output is reproduced byte for byte by b2rs: golden hashes learned
   from the reference */
static void test_blosclz_exact(void) {
  size_t n = 100000;
  uint8_t *src = malloc(n);
  int cbytes;
  uint8_t *chunk;

  fill_ramp32(src, n);
  chunk = b1_compress_ok(5, BLOSC_SHUFFLE, 4, src, n, &cbytes);
  CHECK_EQ(cbytes, 1013);
  CHECK_HASH(fnv1a(chunk, (size_t)cbytes), 0x3560dbc073deabacULL);
  free(chunk);

  chunk = b1_compress_ok(9, BLOSC_BITSHUFFLE, 4, src, n, &cbytes);
  CHECK_EQ(cbytes, 608);
  CHECK_HASH(fnv1a(chunk, (size_t)cbytes), 0x33fb459ed31709c8ULL);
  free(chunk);

  fill_mixed(src, n, 42);
  chunk = b1_compress_ok(1, BLOSC_NOSHUFFLE, 1, src, n, &cbytes);
  CHECK_EQ(cbytes, 100032);
  CHECK_HASH(fnv1a(chunk, (size_t)cbytes), 0xb9e29ab265f0bbfbULL);
  free(chunk);

  chunk = b1_compress_ok(9, BLOSC_SHUFFLE, 8, src, n, &cbytes);
  CHECK_EQ(cbytes, 77661);
  CHECK_HASH(fnv1a(chunk, (size_t)cbytes), 0xbce1ba46b8ce35b1ULL);
  free(chunk);

  fill_float64(src, n);
  chunk = b1_compress_ok(7, BLOSC_SHUFFLE, 8, src, n, &cbytes);
  CHECK_EQ(cbytes, 3834);
  CHECK_HASH(fnv1a(chunk, (size_t)cbytes), 0xabd8a4fd1d1d46e3ULL);
  free(chunk);

  fill_mixed(src, n, 43);
  chunk = b1_compress_ok(5, BLOSC_NOSHUFFLE, 1, src, n, &cbytes);
  CHECK_EQ(cbytes, 49527);
  CHECK_HASH(fnv1a(chunk, (size_t)cbytes), 0x3b6d05894e398a39ULL);
  free(chunk);

  fill_mixed(src, n, 44);
  chunk = b1_compress_ok(3, BLOSC_SHUFFLE, 2, src, n, &cbytes);
  CHECK_EQ(cbytes, 59727);
  CHECK_HASH(fnv1a(chunk, (size_t)cbytes), 0x1eb20017fc452229ULL);
  free(chunk);

  free(src);
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  blosc2_init();
  RUN(test_compressor_get_set);
  RUN(test_roundtrip_matrix);
  RUN(test_header_fields);
  RUN(test_blocksize_get_set);
#ifndef B2RS_REFERENCE_BUG_BLOCKSIZE_TYPESIZE
  RUN(test_set_blocksize_not_multiple);
#endif
  RUN(test_splitmode);
  RUN(test_cbuffer_info);
  RUN(test_getitem);
  RUN(test_getitem_memcpyed);
  RUN(test_memcpyed_exact);
  RUN(test_incompressible);
  RUN(test_decompress_small_dest);
  RUN(test_bad_params);
  RUN(test_delta_roundtrip);
  RUN(test_blosclz_exact);
  blosc2_destroy();
  return TEST_SUMMARY();
}
