/*
 * test_chunk.c - area 4 of API.md: single-chunk compression and
 * decompression with the global and the context API, header inspection.
 *
 * Functions covered: blosc2_compress, blosc2_decompress, blosc2_compress_ctx,
 * blosc2_decompress_ctx, blosc2_cbuffer_sizes, blosc2_cbuffer_versions,
 * blosc2_cbuffer_complib (getitem: see test_getitem.c).
 *
 * Covers every codec (BloscLZ, LZ4, LZ4HC, Zlib, Zstd) and every filter
 * (shuffle with and without meta, bitshuffle, delta, trunc_prec, and the
 * registered bytedelta / int_trunc plugins), typesizes 1..255 and > 255,
 * user blocksizes, split modes, dictionaries (Zstd, LZ4, LZ4HC), memcpyed
 * and zero-run chunks, nthreads 1/2/4, and exact bytes for BloscLZ,
 * memcpyed and special chunks (golden hashes learned from the reference).
 *
 * Reference bugs compiled out with -DB2RS_REFERENCE (see b2rs_test.h):
 *   B2RS_REFERENCE_BUG_DELTA_PIPELINE      test_pipeline_3_filters_delta
 *   B2RS_REFERENCE_BUG_PIPELINE_INPUT      test_input_not_modified
 *   B2RS_REFERENCE_BUG_BLOCKSIZE_TYPESIZE  test_blocksize_not_multiple
 *   B2RS_REFERENCE_BUG_DICT_MEMCPY         test_dict_memcpy_fallback
 *   B2RS_REFERENCE_BUG_UNDEFINED_TAIL      test_delta_tail, test_trunc_prec_tail
 *
 * NULL src/dest pointers crash the reference: not tested.
 */
#include "b2rs_test.h"
#include "blosc2/filters-registry.h"

/* compress with cp, check the generic header invariants, decompress with
   `dthreads` threads and compare; returns cbytes (chunk in *out if out) */
static int roundtrip(blosc2_cparams cp, const uint8_t *src, int32_t n, int dthreads,
                     uint8_t **out_chunk) {
  uint8_t *chunk;
  int cb = compress_with(cp, src, n, &chunk);
  CHECK_GT(cb, 0);
  CHECK_LE(cb, n + BLOSC2_MAX_OVERHEAD);
  if (cb <= 0) {
    free(chunk);
    /* a zeroed stand-in, so that callers can look at "header fields" and
       fail instead of crashing */
    if (out_chunk) *out_chunk = calloc(1, 64);
    return cb;
  }
  CHECK_EQ(HDR_NBYTES(chunk), n);
  CHECK_EQ(HDR_CBYTES(chunk), cb);
  CHECK(HDR_IS_EXTENDED(chunk));
  CHECK_EQ(HDR_VERSION(chunk), 5);
  CHECK_EQ(HDR_VERSIONLZ(chunk), 1);
  int32_t nb = -1, cbs = -1, bs = -1;
  CHECK_EQ(blosc2_cbuffer_sizes(chunk, &nb, &cbs, &bs), 0);
  CHECK_EQ(nb, n);
  CHECK_EQ(cbs, cb);
  CHECK_EQ(bs, HDR_BLOCKSIZE(chunk));
  uint8_t *out;
  int d = decompress_with(dthreads, chunk, cb, n, &out);
  CHECK_EQ(d, n);
  CHECK_MEM(out, src, (size_t)n);
  free(out);
  if (out_chunk) *out_chunk = chunk;
  else free(chunk);
  return cb;
}

/* ------------------------------------------------------------------ */

static void set_pipeline(blosc2_cparams *cp, const uint8_t f[6], const uint8_t m[6]) {
  for (int i = 0; i < 6; i++) {
    cp->filters[i] = f[i];
    cp->filters_meta[i] = m ? m[i] : 0;
  }
}

static void test_codec_filter_matrix(void) {
  static const uint8_t pipes[][6] = {
      {0, 0, 0, 0, 0, 0},
      {0, 0, 0, 0, 0, BLOSC_SHUFFLE},
      {0, 0, 0, 0, 0, BLOSC_BITSHUFFLE},
      {0, 0, 0, 0, 0, BLOSC_DELTA},
      {0, 0, 0, 0, BLOSC_DELTA, BLOSC_SHUFFLE},
      {0, 0, 0, 0, BLOSC_DELTA, BLOSC_BITSHUFFLE},
      {BLOSC_DELTA, 0, 0, 0, 0, BLOSC_SHUFFLE},
      {BLOSC_SHUFFLE, 0, 0, 0, 0, 0},
      {0, 0, BLOSC_BITSHUFFLE, 0, BLOSC_DELTA, 0},
      {0, 0, 0, 0, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE},
  };
  static const int32_t typesizes[] = {1, 2, 4, 8, 3, 16};
  static const int32_t sizes[] = {100, 10000, 131072 + 17};
  size_t maxn = 131072 + 17;
  uint8_t *src = malloc(maxn);
  for (size_t p = 0; p < sizeof(pipes) / sizeof(pipes[0]); p++) {
    for (int c = 0; c < N_ALL_CODECS; c++) {
      for (size_t t = 0; t < sizeof(typesizes) / sizeof(typesizes[0]); t++) {
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
          int32_t n = sizes[s];
          int32_t ts = typesizes[t];
#ifdef B2RS_REFERENCE_BUG_UNDEFINED_TAIL
          /* delta leaves n % unit tail bytes undefined in the reference */
          bool has_delta = false;
          for (int i = 0; i < 6; i++) has_delta |= pipes[p][i] == BLOSC_DELTA;
          int unit = (ts == 1 || ts == 2 || ts == 4 || ts == 8) ? ts : (ts % 8 == 0 ? 8 : 1);
          if (has_delta && n % unit != 0) continue;
#endif
          if (ts == 8) fill_ramp64(src, (size_t)n);
          else if (ts == 4) fill_ramp32(src, (size_t)n);
          else fill_mixed(src, (size_t)n, (uint64_t)(p * 100 + t));
          blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
          cp.compcode = (uint8_t)ALL_CODECS[c];
          cp.typesize = ts;
          cp.clevel = (uint8_t)(1 + (p + t + s) % 9);
          set_pipeline(&cp, pipes[p], NULL);
          uint8_t *chunk;
          int cb = roundtrip(cp, src, n, 1, &chunk);
          if (cb > 0 && chunk != NULL) {
            CHECK_EQ(HDR_TYPESIZE(chunk), ts);
            for (int i = 0; i < 6; i++) CHECK_EQ(HDR_FILTER(chunk, i), pipes[p][i]);
            if (!HDR_IS_MEMCPYED(chunk)) {
              CHECK_EQ(HDR_FORMAT(chunk), codec_format(ALL_CODECS[c]));
              CHECK_EQ(HDR_UDCOMPCODE(chunk), ALL_CODECS[c]);
            }
            bool has_d = false;
            for (int i = 0; i < 6; i++) has_d |= pipes[p][i] == BLOSC_DELTA;
            CHECK_EQ((HDR_FLAGS(chunk) & BLOSC_DODELTA) != 0, has_d);
            free(chunk);
          }
        }
      }
    }
  }
  free(src);
}

static void test_clevels(void) {
  size_t n = 200000;
  uint8_t *src = malloc(n);
  fill_mixed(src, n, 9);
  for (int c = 0; c < N_ALL_CODECS; c++) {
    int prev = 0;
    for (int clevel = 0; clevel <= 9; clevel++) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.compcode = (uint8_t)ALL_CODECS[c];
      cp.clevel = (uint8_t)clevel;
      cp.typesize = 1;
      uint8_t *chunk;
      int cb = roundtrip(cp, src, (int32_t)n, 1, &chunk);
      if (clevel == 0) {
        CHECK(HDR_IS_MEMCPYED(chunk));
        CHECK_EQ(cb, (long long)n + 32);
      } else if (clevel >= 5) {
        /* (BloscLZ gives up early on this data at low clevels) */
        CHECK(!HDR_IS_MEMCPYED(chunk));
        CHECK_LT(cb, (long long)n);
      }
      (void)prev;
      prev = cb;
      free(chunk);
    }
  }
  free(src);
}

static void test_header_codec_fields(void) {
  size_t n = 100000;
  uint8_t *src = malloc(n);
  fill_ramp32(src, n);
  static const char *const libs[] = {"BloscLZ", "LZ4", "LZ4", "Zlib", "Zstd"};
  for (int c = 0; c < N_ALL_CODECS; c++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = (uint8_t)ALL_CODECS[c];
    cp.typesize = 4;
    cp.filters[0] = BLOSC_DELTA;
    cp.filters_meta[5] = 2; /* shuffle with element size 2 */
    uint8_t *chunk;
    roundtrip(cp, src, (int32_t)n, 1, &chunk);
    CHECK_EQ(HDR_FORMAT(chunk), codec_format(ALL_CODECS[c]));
    CHECK_EQ(HDR_UDCOMPCODE(chunk), ALL_CODECS[c]);
    CHECK_EQ(HDR_COMPCODE_META(chunk), 0);
    CHECK_EQ(HDR_FILTER(chunk, 0), BLOSC_DELTA);
    CHECK_EQ(HDR_FILTER(chunk, 5), BLOSC_SHUFFLE);
    CHECK_EQ(HDR_FILTER_META(chunk, 5), 2);
    CHECK_EQ(HDR_FLAGS2(chunk), 0);
    CHECK_EQ(HDR_BLOSC2_FLAGS(chunk), 0);
    CHECK_STR(blosc2_cbuffer_complib(chunk), libs[c]);
    int v = -1, vlz = -1;
    blosc2_cbuffer_versions(chunk, &v, &vlz);
    CHECK_EQ(v, 5);
    CHECK_EQ(vlz, 1);
    free(chunk);
  }
  free(src);
}

static void test_global_api_roundtrip(void) {
  static const int32_t sizes[] = {0, 1, 31, 32, 1000, 77777, 1 << 20};
  uint8_t *src = malloc(1 << 20);
  uint8_t *dst = gbuf((1 << 20) + 32, 0);
  uint8_t *out = gbuf(1 << 20, 0);
  for (int c = 0; c < N_ALL_CODECS; c++) {
    blosc1_set_compressor(ALL_CODEC_NAMES[c]);
    for (int sh = 0; sh <= 2; sh++) {
      for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        int32_t n = sizes[s];
        fill_float32(src, (size_t)n);
        int cb = blosc2_compress(5, sh, 4, src, n, dst, n + 32);
        CHECK_GT(cb, 0);
        CHECK_LE(cb, n + 32);
        int d = blosc2_decompress(dst, cb, out, 1 << 20);
        CHECK_EQ(d, n);
        CHECK_MEM(out, src, (size_t)n);
      }
    }
  }
  CHECK_GUARD(dst, (1 << 20) + 32);
  CHECK_GUARD(out, 1 << 20);
  blosc1_set_compressor("blosclz");
  free(src);
  free(dst);
  free(out);
}

static void test_empty_and_tiny(void) {
  uint8_t src[40];
  fill_mixed(src, sizeof(src), 1);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  uint8_t *chunk;
  int cb = compress_with(cp, src, 0, &chunk);
  CHECK_EQ(cb, 32);
  static const uint8_t empty_hdr[32] = {0x05, 0x01, 0x07, 0x04, 0, 0, 0, 0, 1, 0, 0, 0, 0x20, 0, 0, 0,
                                        0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  CHECK_MEM(chunk, empty_hdr, 32);
  uint8_t *out;
  CHECK_EQ(decompress_with(1, chunk, cb, 0, &out), 0);
  free(out);
  CHECK_EQ(decompress_with(1, chunk, cb, 100, &out), 0);
  free(out);
  free(chunk);

  /* 10 bytes, typesize 4: memcpyed, blocksize rounded down to 8 */
  cb = compress_with(cp, src, 10, &chunk);
  CHECK_EQ(cb, 42);
  static const uint8_t tiny_hdr[32] = {0x05, 0x01, 0x07, 0x04, 10, 0, 0, 0, 8, 0, 0, 0, 42, 0, 0, 0,
                                       0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  CHECK_MEM(chunk, tiny_hdr, 32);
  CHECK_MEM(chunk + 32, src, 10);
  CHECK_EQ(decompress_with(1, chunk, cb, 10, &out), 10);
  CHECK_MEM(out, src, 10);
  free(out);
  free(chunk);

  /* every size from 1 to 40 round-trips with every codec */
  for (int c = 0; c < N_ALL_CODECS; c++) {
    for (int32_t n = 1; n <= 40; n++) {
      blosc2_cparams cp2 = BLOSC2_CPARAMS_DEFAULTS;
      cp2.compcode = (uint8_t)ALL_CODECS[c];
      cp2.typesize = 1 + n % 5;
      roundtrip(cp2, src, n, 1, NULL);
    }
  }
}

/* an all-zero input becomes a 32-byte special-zeros chunk */
static void test_zero_run_chunk(void) {
  size_t n = 100000;
  uint8_t *src = calloc(1, n);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  uint8_t *chunk;
  int cb = roundtrip(cp, src, (int32_t)n, 1, &chunk);
  CHECK_EQ(cb, 32);
  static const uint8_t expect[32] = {0x05, 0x01, 0x05, 0x04, 0xa0, 0x86, 0x01, 0x00,
                                     0xa0, 0x86, 0x01, 0x00, 0x20, 0x00, 0x00, 0x00,
                                     0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10};
  CHECK_MEM(chunk, expect, 32);
  free(chunk);
  for (int c = 0; c < N_ALL_CODECS; c++) {
    for (int sh = 0; sh <= 2; sh++) {
      blosc2_cparams cp2 = BLOSC2_CPARAMS_DEFAULTS;
      cp2.compcode = (uint8_t)ALL_CODECS[c];
      cp2.typesize = 8;
      cp2.filters[5] = (uint8_t)sh;
      cb = roundtrip(cp2, src, (int32_t)n, 1, &chunk);
      CHECK_EQ(cb, 32);
      CHECK_EQ(HDR_SPECIAL(chunk), BLOSC2_SPECIAL_ZERO);
      free(chunk);
    }
  }
  /* a run of a non-zero byte: tiny regular chunk with run streams */
  memset(src, 7, n);
  cb = roundtrip(cp, src, (int32_t)n, 1, &chunk);
  CHECK_EQ(cb, 56);
  CHECK_EQ(HDR_SPECIAL(chunk), 0);
  CHECK_EQ(rd_i32(chunk + 32), 36);
  CHECK_EQ(rd_i32(chunk + 36), -7);
  CHECK_EQ(chunk[40], 1);
  free(chunk);
  free(src);
}

static void test_typesizes(void) {
  size_t n = 100000;
  uint8_t *src = malloc(n);
  fill_mixed(src, n, 123);
  static const int32_t ts[] = {1, 2, 3, 5, 6, 7, 9, 12, 15, 16, 17, 31, 32, 33, 64, 100, 127, 128, 200, 255};
  for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
    for (int sh = 0; sh <= 2; sh++) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.typesize = ts[i];
      cp.filters[5] = (uint8_t)sh;
      cp.compcode = (uint8_t)ALL_CODECS[i % N_ALL_CODECS];
      uint8_t *chunk;
      roundtrip(cp, src, (int32_t)n, 1, &chunk);
      CHECK_EQ(HDR_TYPESIZE(chunk), ts[i]);
      free(chunk);
    }
  }
  free(src);
}

/* typesize > 255 is stored as 1; blocks are computed with the real size */
static void test_typesize_over_255(void) {
  size_t n = 100000;
  uint8_t *src = malloc(n);
  fill_ramp32(src, n);
  static const int32_t ts[] = {256, 1000, 4096, 65536};
  for (size_t i = 0; i < 4; i++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = ts[i];
    uint8_t *chunk;
    roundtrip(cp, src, (int32_t)n, 1, &chunk);
    CHECK_EQ(HDR_TYPESIZE(chunk), 1);
    free(chunk);
  }
  /* blosc2_compress with typesize 256: 10000 bytes -> blocksize 9984 */
  uint8_t dst[10000 + 32], out[10000];
  int cb = blosc2_compress(5, 1, 256, src, 10000, dst, sizeof(dst));
  CHECK_GT(cb, 0);
  CHECK_EQ(HDR_TYPESIZE(dst), 1);
  CHECK_EQ(HDR_BLOCKSIZE(dst), 9984);
  CHECK_EQ(blosc2_decompress(dst, cb, out, sizeof(out)), 10000);
  CHECK_MEM(out, src, 10000);
  free(src);
}

static void test_user_blocksizes(void) {
  size_t n = 300000;
  uint8_t *src = malloc(n);
  fill_ramp32(src, n);
  static const int32_t bss[] = {4, 8, 12, 64, 1000, 4096, 65536, 100000, 300000, 1 << 20};
  for (size_t i = 0; i < sizeof(bss) / sizeof(bss[0]); i++) {
    for (int c = 0; c < N_ALL_CODECS; c += 2) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.typesize = 4;
      cp.blocksize = bss[i];
      cp.compcode = (uint8_t)ALL_CODECS[c];
      if (bss[i] < 1000 && c > 0) continue; /* keep it fast */
      uint8_t *chunk;
      roundtrip(cp, src, (int32_t)n, 1, &chunk);
      if (!HDR_IS_MEMCPYED(chunk)) {
        CHECK_EQ(HDR_BLOCKSIZE(chunk), bss[i] > (int32_t)n ? (int32_t)n : bss[i]);
      }
      free(chunk);
    }
  }
  free(src);
}

#ifndef B2RS_REFERENCE_BUG_BLOCKSIZE_TYPESIZE
/* a user blocksize that is not a multiple of typesize must give a decodable
   chunk whose header records the blocksize actually used */
static void test_blocksize_not_multiple(void) {
  size_t n = 100000;
  uint8_t *src = malloc(n);
  fill_ramp64(src, n);
  static const int32_t bss[] = {4097, 1001, 65535, 30};
  for (size_t i = 0; i < 4; i++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 8;
    cp.blocksize = bss[i];
    uint8_t *chunk;
    roundtrip(cp, src, (int32_t)n, 1, &chunk);
    CHECK_EQ(HDR_BLOCKSIZE(chunk) % 8, 0);
    free(chunk);
  }
  /* blocksize larger than an nbytes that is not a multiple of typesize */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  cp.blocksize = 200000;
  roundtrip(cp, src, 99999, 1, NULL);
  free(src);
}
#endif

/* automatic blocksizes (stune) are reproduced exactly */
static void test_auto_blocksize(void) {
  size_t n = 4000000;
  uint8_t *src = malloc(n);
  fill_ramp32(src, n);
  struct {
    int codec, clevel, ts, filter, split, nbytes, expect;
  } cases[] = {
      {BLOSC_BLOSCLZ, 5, 4, BLOSC_SHUFFLE, BLOSC_FORWARD_COMPAT_SPLIT, 1000000, 262144},
      {BLOSC_BLOSCLZ, 5, 4, BLOSC_NOSHUFFLE, BLOSC_FORWARD_COMPAT_SPLIT, 1000000, 131072},
      {BLOSC_BLOSCLZ, 9, 8, BLOSC_SHUFFLE, BLOSC_FORWARD_COMPAT_SPLIT, 4000000, 4000000},
      {BLOSC_BLOSCLZ, 9, 4, BLOSC_SHUFFLE, BLOSC_FORWARD_COMPAT_SPLIT, 4000000, 2097152},
      {BLOSC_LZ4, 1, 2, BLOSC_SHUFFLE, BLOSC_FORWARD_COMPAT_SPLIT, 1000000, 65536},
      {BLOSC_LZ4, 0, 2, BLOSC_SHUFFLE, BLOSC_FORWARD_COMPAT_SPLIT, 1000000, 8192},
      {BLOSC_ZSTD, 5, 4, BLOSC_SHUFFLE, BLOSC_FORWARD_COMPAT_SPLIT, 1000000, 262144},
      {BLOSC_ZSTD, 6, 4, BLOSC_SHUFFLE, BLOSC_FORWARD_COMPAT_SPLIT, 1000000, 524288},
      {BLOSC_ZSTD, 9, 4, BLOSC_SHUFFLE, BLOSC_FORWARD_COMPAT_SPLIT, 4000000, 1048576},
      {BLOSC_ZLIB, 3, 4, BLOSC_SHUFFLE, BLOSC_FORWARD_COMPAT_SPLIT, 1000000, 131072},
      {BLOSC_LZ4HC, 4, 8, BLOSC_BITSHUFFLE, BLOSC_FORWARD_COMPAT_SPLIT, 1000000, 262144},
      {BLOSC_BLOSCLZ, 5, 4, BLOSC_SHUFFLE, BLOSC_NEVER_SPLIT, 1000000, 131072},
      {BLOSC_ZLIB, 5, 4, BLOSC_SHUFFLE, BLOSC_ALWAYS_SPLIT, 1000000, 262144},
      {BLOSC_BLOSCLZ, 5, 3, BLOSC_SHUFFLE, BLOSC_FORWARD_COMPAT_SPLIT, 1000000, 196608},
      {BLOSC_BLOSCLZ, 5, 17, BLOSC_SHUFFLE, BLOSC_FORWARD_COMPAT_SPLIT, 1000000, 131070},
      {BLOSC_BLOSCLZ, 5, 4, BLOSC_SHUFFLE, BLOSC_FORWARD_COMPAT_SPLIT, 20000, 20000},
      {BLOSC_BLOSCLZ, 2, 1, BLOSC_SHUFFLE, BLOSC_FORWARD_COMPAT_SPLIT, 1000000, 32768},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    blosc2_cparams cp = cparams_nofilter(cases[i].codec, cases[i].clevel, cases[i].ts);
    cp.filters[5] = (uint8_t)cases[i].filter;
    cp.splitmode = cases[i].split;
    uint8_t *chunk;
    int cb = compress_with(cp, src, cases[i].nbytes, &chunk);
    CHECK_GT(cb, 0);
    if (HDR_BLOCKSIZE(chunk) != cases[i].expect) fprintf(stderr, "  auto blocksize case %zu\n", i);
    CHECK_EQ(HDR_BLOCKSIZE(chunk), cases[i].expect);
    free(chunk);
  }
  free(src);
}

static void test_splitmodes(void) {
  size_t n = 500000;
  uint8_t *src = malloc(n);
  fill_ramp32(src, n);
  for (int c = 0; c < N_ALL_CODECS; c++) {
    for (int mode = BLOSC_ALWAYS_SPLIT; mode <= BLOSC_FORWARD_COMPAT_SPLIT; mode++) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.compcode = (uint8_t)ALL_CODECS[c];
      cp.typesize = 4;
      cp.splitmode = mode;
      uint8_t *chunk;
      roundtrip(cp, src, (int32_t)n, 1, &chunk);
      bool expect_split = mode == BLOSC_ALWAYS_SPLIT ||
                          (mode != BLOSC_NEVER_SPLIT &&
                           (ALL_CODECS[c] == BLOSC_BLOSCLZ || ALL_CODECS[c] == BLOSC_LZ4 ||
                            ALL_CODECS[c] == BLOSC_ZSTD));
      CHECK_EQ(!HDR_DONT_SPLIT(chunk), expect_split);
      free(chunk);
    }
  }
  free(src);
}

static void test_nthreads_roundtrip(void) {
  size_t n = 3 * 1024 * 1024 + 123;
  uint8_t *src = malloc(n);
  fill_mixed(src, n, 31);
  for (int c = 0; c < N_ALL_CODECS; c++) {
    uint8_t *ref_chunk = NULL;
    int ref_cb = 0;
    for (int nt = 1; nt <= 4; nt *= 2) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.compcode = (uint8_t)ALL_CODECS[c];
      cp.typesize = 4;
      cp.clevel = 3;
      cp.nthreads = (int16_t)nt;
      cp.blocksize = 65536;
      uint8_t *chunk;
      int cb = roundtrip(cp, src, (int32_t)n, nt, &chunk);
      /* every chunk decodes with every thread count */
      for (int dt = 1; dt <= 4; dt *= 2) {
        uint8_t *out;
        CHECK_EQ(decompress_with(dt, chunk, cb, (int32_t)n, &out), (long long)n);
        CHECK_MEM(out, src, n);
        free(out);
      }
      if (nt == 1) {
        ref_chunk = chunk;
        ref_cb = cb;
      } else {
        /* same size: the blocks are the same, only their order may differ */
        CHECK_EQ(cb, ref_cb);
        free(chunk);
      }
    }
    free(ref_chunk);
  }
  free(src);
}

static void test_dict(void) {
  static const int codecs[] = {BLOSC_ZSTD, BLOSC_LZ4, BLOSC_LZ4HC};
  size_t n = 262144;
  uint8_t *src = malloc(n);
  fill_mixed(src, n, 5);
  for (int k = 0; k < 3; k++) {
    for (int nt = 1; nt <= 4; nt *= 2) {
      for (int clevel = 1; clevel <= 9; clevel += 4) {
        blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
        cp.compcode = (uint8_t)codecs[k];
        cp.use_dict = 1;
        cp.typesize = 4;
        cp.blocksize = 16384;
        cp.nthreads = (int16_t)nt;
        cp.clevel = (uint8_t)clevel;
        uint8_t *chunk;
        roundtrip(cp, src, (int32_t)n, nt, &chunk);
        CHECK_EQ(HDR_BLOSC2_FLAGS(chunk) & 0x01, 1);
        CHECK(!HDR_IS_MEMCPYED(chunk));
        /* the dictionary follows the bstarts table */
        int32_t nblocks = (int32_t)(n / 16384);
        int32_t dsize = rd_i32(chunk + 32 + 4 * nblocks);
        CHECK_GT(dsize, 0);
        CHECK_LE(dsize, BLOSC2_MAXDICTSIZE);
        if (codecs[k] == BLOSC_ZSTD) {
          static const uint8_t magic[4] = {0x37, 0xA4, 0x30, 0xEC};
          CHECK_MEM(chunk + 32 + 4 * nblocks + 4, magic, 4);
        }
        free(chunk);
      }
    }
    /* too small for a dictionary: flag stays clear */
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = (uint8_t)codecs[k];
    cp.use_dict = 1;
    cp.typesize = 4;
    uint8_t *chunk;
    roundtrip(cp, src, 4000, 1, &chunk);
    CHECK_EQ(HDR_BLOSC2_FLAGS(chunk) & 0x01, 0);
    free(chunk);
    /* clevel 0 disables the dictionary */
    cp.clevel = 0;
    roundtrip(cp, src, (int32_t)n, 1, &chunk);
    CHECK_EQ(HDR_BLOSC2_FLAGS(chunk) & 0x01, 0);
    free(chunk);
  }
  free(src);
}

#ifndef B2RS_REFERENCE_BUG_DICT_MEMCPY
/* incompressible data with a dictionary falls back to a memcpyed chunk,
   which must be readable (the reference keeps the dict flag: error -9) */
static void test_dict_memcpy_fallback(void) {
  static const int codecs[] = {BLOSC_ZSTD, BLOSC_LZ4, BLOSC_LZ4HC};
  size_t n = 262144;
  uint8_t *src = malloc(n);
  fill_random(src, n, 5);
  for (int k = 0; k < 3; k++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = (uint8_t)codecs[k];
    cp.use_dict = 1;
    cp.typesize = 4;
    cp.blocksize = 16384;
    uint8_t *chunk;
    int cb = roundtrip(cp, src, (int32_t)n, 1, &chunk);
    CHECK_EQ(cb, (long long)n + 32);
    CHECK(HDR_IS_MEMCPYED(chunk));
    free(chunk);
  }
  free(src);
}
#endif

static void test_trunc_prec(void) {
  size_t n = 40000;
  uint8_t *src = malloc(n);
  uint8_t *expect = malloc(n);
  /* float32 */
  static const int8_t p4[] = {10, 20, 23, 1, -3, -10, -22};
  for (size_t i = 0; i < sizeof(p4); i++) {
    fill_float32(src, n);
    int zeroed = p4[i] >= 0 ? 23 - p4[i] : -p4[i];
    uint32_t mask = ~((1u << zeroed) - 1u);
    memcpy(expect, src, n);
    for (size_t j = 0; j < n / 4; j++) {
      uint32_t v;
      memcpy(&v, expect + 4 * j, 4);
      v &= mask;
      memcpy(expect + 4 * j, &v, 4);
    }
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 4;
    cp.filters[0] = BLOSC_TRUNC_PREC;
    cp.filters_meta[0] = (uint8_t)p4[i];
    uint8_t *chunk;
    int cb = compress_with(cp, src, (int32_t)n, &chunk);
    CHECK_GT(cb, 0);
    CHECK_EQ(HDR_FILTER(chunk, 0), BLOSC_TRUNC_PREC);
    CHECK_EQ(HDR_FILTER_META(chunk, 0), (uint8_t)p4[i]);
    uint8_t *out;
    CHECK_EQ(decompress_with(1, chunk, cb, (int32_t)n, &out), (long long)n);
    CHECK_MEM(out, expect, n);
    free(out);
    free(chunk);
  }
  /* float64 */
  static const int8_t p8[] = {20, 52, 1, -3, -51};
  for (size_t i = 0; i < sizeof(p8); i++) {
    fill_float64(src, n);
    int zeroed = p8[i] >= 0 ? 52 - p8[i] : -p8[i];
    uint64_t mask = ~((1ull << zeroed) - 1ull);
    memcpy(expect, src, n);
    for (size_t j = 0; j < n / 8; j++) {
      uint64_t v;
      memcpy(&v, expect + 8 * j, 8);
      v &= mask;
      memcpy(expect + 8 * j, &v, 8);
    }
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 8;
    cp.compcode = BLOSC_ZSTD;
    cp.filters[4] = BLOSC_TRUNC_PREC;
    cp.filters_meta[4] = (uint8_t)p8[i];
    uint8_t *chunk;
    int cb = compress_with(cp, src, (int32_t)n, &chunk);
    CHECK_GT(cb, 0);
    uint8_t *out;
    CHECK_EQ(decompress_with(2, chunk, cb, (int32_t)n, &out), (long long)n);
    CHECK_MEM(out, expect, n);
    free(out);
    free(chunk);
  }
  /* invalid precisions and typesizes */
  struct {
    int ts;
    int8_t p;
  } bad[] = {{4, 0}, {4, 24}, {4, -23}, {4, 100}, {8, 0}, {8, 53}, {8, -52}, {2, 5}, {1, 3}, {16, 5}};
  fill_float32(src, n);
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = bad[i].ts;
    cp.filters[0] = BLOSC_TRUNC_PREC;
    cp.filters_meta[0] = (uint8_t)bad[i].p;
    uint8_t *chunk;
    int cb = compress_with(cp, src, (int32_t)n, &chunk);
    if (cb != BLOSC2_ERROR_FILTER_PIPELINE) fprintf(stderr, "  trunc bad case %zu\n", i);
    CHECK_EQ(cb, BLOSC2_ERROR_FILTER_PIPELINE);
    free(chunk);
  }
  free(src);
  free(expect);
}

#ifndef B2RS_REFERENCE_BUG_UNDEFINED_TAIL
/* delta: bytes beyond the last whole unit must be restored */
static void test_delta_tail(void) {
  static const int32_t sizes[] = {10001, 10003, 100005, 262145};
  static const int32_t ts[] = {2, 4, 8, 16};
  int32_t maxn = 262145;
  uint8_t *src = malloc((size_t)maxn);
  for (size_t s = 0; s < 4; s++) {
    for (size_t t = 0; t < 4; t++) {
      fill_ramp32(src, (size_t)sizes[s]);
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.typesize = ts[t];
      cp.filters[4] = BLOSC_DELTA;
      roundtrip(cp, src, sizes[s], 1, NULL);
      cp.filters[5] = BLOSC_BITSHUFFLE;
      roundtrip(cp, src, sizes[s], 1, NULL);
    }
  }
  free(src);
}

/* trunc_prec: bytes beyond the last whole element must be kept */
static void test_trunc_prec_tail(void) {
  size_t n = 40003;
  uint8_t *src = malloc(n);
  fill_float32(src, n);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.filters[0] = BLOSC_TRUNC_PREC;
  cp.filters_meta[0] = 23; /* keeps every bit */
  roundtrip(cp, src, (int32_t)n, 1, NULL);
  free(src);
}
#endif

/* pipelines with three or more filters and no delta round-trip */
static void test_pipeline_3_filters(void) {
  static const uint8_t pipes[][6] = {
      {BLOSC_SHUFFLE, BLOSC_BITSHUFFLE, BLOSC_SHUFFLE, 0, 0, 0},
      {0, BLOSC_BITSHUFFLE, 0, BLOSC_SHUFFLE, 0, BLOSC_BITSHUFFLE},
      {0, 0, 0, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE, BLOSC_SHUFFLE},
      {BLOSC_BITSHUFFLE, BLOSC_BITSHUFFLE, BLOSC_BITSHUFFLE, 0, 0, 0},
      {BLOSC_SHUFFLE, BLOSC_SHUFFLE, BLOSC_SHUFFLE, BLOSC_SHUFFLE, BLOSC_SHUFFLE, BLOSC_SHUFFLE},
  };
  size_t n = 100000;
  uint8_t *orig = malloc(n);
  uint8_t *src = malloc(n);
  fill_ramp32(orig, n);
  for (size_t p = 0; p < sizeof(pipes) / sizeof(pipes[0]); p++) {
    for (int bs = 0; bs <= 8192; bs += 8192) {
      /* the 6-shuffle pipeline with small blocks falls back to memcpy, which
         copies the input the reference has overwritten (see
         test_input_not_modified) */
      if (p == 4 && bs != 0) continue;
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.typesize = 4;
      cp.blocksize = bs;
      set_pipeline(&cp, pipes[p], NULL);
      memcpy(src, orig, n);
      uint8_t *chunk;
      int cb = compress_with(cp, src, (int32_t)n, &chunk);
      CHECK_GT(cb, 0);
      uint8_t *out;
      CHECK_EQ(decompress_with(1, chunk, cb, (int32_t)n, &out), (long long)n);
      CHECK_MEM(out, orig, n);
      free(out);
      free(chunk);
    }
  }
  free(src);
  free(orig);
}

#ifndef B2RS_REFERENCE_BUG_PIPELINE_INPUT
/* the compressor never writes into its input, whatever the pipeline */
static void test_input_not_modified(void) {
  static const uint8_t pipes[][6] = {
      {BLOSC_SHUFFLE, BLOSC_BITSHUFFLE, BLOSC_SHUFFLE, 0, 0, 0},
      {0, 0, 0, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE, BLOSC_SHUFFLE},
      {BLOSC_SHUFFLE, BLOSC_SHUFFLE, BLOSC_SHUFFLE, BLOSC_SHUFFLE, BLOSC_SHUFFLE, BLOSC_SHUFFLE},
      {0, 0, 0, 0, 0, BLOSC_SHUFFLE},
      {0, 0, 0, 0, BLOSC_DELTA, BLOSC_BITSHUFFLE},
  };
  size_t n = 100000;
  uint8_t *orig = malloc(n);
  uint8_t *src = malloc(n);
  fill_ramp32(orig, n);
  for (size_t p = 0; p < sizeof(pipes) / sizeof(pipes[0]); p++) {
    for (int nt = 1; nt <= 4; nt *= 4) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.typesize = 4;
      cp.blocksize = 8192;
      cp.nthreads = (int16_t)nt;
      set_pipeline(&cp, pipes[p], NULL);
      memcpy(src, orig, n);
      uint8_t *chunk;
      int cb = compress_with(cp, src, (int32_t)n, &chunk);
      CHECK_GT(cb, 0);
      CHECK_MEM(src, orig, n);
      uint8_t *out;
      CHECK_EQ(decompress_with(nt, chunk, cb, (int32_t)n, &out), (long long)n);
      CHECK_MEM(out, orig, n);
      free(out);
      free(chunk);
    }
  }
  free(src);
  free(orig);
}
#endif

#ifndef B2RS_REFERENCE_BUG_DELTA_PIPELINE
/* pipelines with 3+ filters including delta must round-trip */
static void test_pipeline_3_filters_delta(void) {
  static const uint8_t pipes[][6] = {
      {0, 0, 0, BLOSC_DELTA, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE},
      {BLOSC_SHUFFLE, BLOSC_DELTA, BLOSC_BITSHUFFLE, 0, 0, 0},
      {0, 0, 0, BLOSC_DELTA, BLOSC_SHUFFLE, BLOSC_DELTA},
      {BLOSC_DELTA, BLOSC_DELTA, BLOSC_DELTA, BLOSC_SHUFFLE, 0, 0},
      {BLOSC_BITSHUFFLE, BLOSC_SHUFFLE, BLOSC_DELTA, BLOSC_SHUFFLE, BLOSC_DELTA, BLOSC_BITSHUFFLE},
  };
  size_t n = 80000;
  uint8_t *orig = malloc(n);
  uint8_t *src = malloc(n);
  fill_ramp32(orig, n);
  for (size_t p = 0; p < sizeof(pipes) / sizeof(pipes[0]); p++) {
    for (int nt = 1; nt <= 4; nt *= 4) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.typesize = 4;
      cp.blocksize = 4000;
      cp.nthreads = (int16_t)nt;
      set_pipeline(&cp, pipes[p], NULL);
      memcpy(src, orig, n);
      uint8_t *chunk;
      int cb = compress_with(cp, src, (int32_t)n, &chunk);
      CHECK_GT(cb, 0);
      CHECK_MEM(src, orig, n); /* input untouched */
      uint8_t *out;
      CHECK_EQ(decompress_with(nt, chunk, cb, (int32_t)n, &out), (long long)n);
      CHECK_MEM(out, orig, n);
      free(out);
      free(chunk);
    }
  }
  free(src);
  free(orig);
}

#endif

/* registered filter plugins available in every build: bytedelta (35) and
   int_trunc (36) */
static void test_bytedelta_int_trunc(void) {
  size_t n = 100000;
  uint8_t *src = malloc(n);
  static const int32_t ts[] = {1, 2, 4, 8};
  for (int t = 0; t < 4; t++) {
    fill_mixed(src, n, 3);
    blosc2_cparams cp = cparams_nofilter(BLOSC_ZSTD, 5, ts[t]);
    cp.filters[4] = BLOSC_SHUFFLE;
    cp.filters[5] = BLOSC_FILTER_BYTEDELTA;
    cp.filters_meta[5] = (uint8_t)ts[t];
    uint8_t *chunk;
    roundtrip(cp, src, (int32_t)n, 1, &chunk);
    CHECK_EQ(HDR_FILTER(chunk, 5), BLOSC_FILTER_BYTEDELTA);
    free(chunk);
  }
  /* int_trunc: lossy, keeps the top p bits of each integer */
  fill_ramp32(src, n);
  blosc2_cparams cp = cparams_nofilter(BLOSC_BLOSCLZ, 5, 4);
  cp.filters[5] = BLOSC_FILTER_INT_TRUNC;
  cp.filters_meta[5] = 20;
  uint8_t *chunk;
  int cb = compress_with(cp, src, (int32_t)n, &chunk);
  CHECK_GT(cb, 0);
  uint8_t *out;
  CHECK_EQ(decompress_with(1, chunk, cb, (int32_t)n, &out), (long long)n);
  for (size_t j = 0; j < n / 4; j++) {
    uint32_t a, b;
    memcpy(&a, src + 4 * j, 4);
    memcpy(&b, out + 4 * j, 4);
    if (b != (a & ~((1u << 12) - 1u))) {
      CHECK_EQ(b, a & ~((1u << 12) - 1u));
      break;
    }
  }
  free(out);
  free(chunk);
  /* bytedelta with meta 0 needs a super-chunk typesize: refused without */
  cp = cparams_nofilter(BLOSC_BLOSCLZ, 5, 4);
  cp.filters[5] = BLOSC_FILTER_BYTEDELTA;
  cb = compress_with(cp, src, (int32_t)n, &chunk);
  CHECK_EQ(cb, BLOSC2_ERROR_FILTER_PIPELINE);
  free(chunk);
  free(src);
}

static void test_incompressible_fallback(void) {
  size_t n = 100000;
  uint8_t *src = malloc(n);
  fill_random(src, n, 17);
  for (int c = 0; c < N_ALL_CODECS; c++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = (uint8_t)ALL_CODECS[c];
    cp.typesize = 1;
    cp.clevel = 9;
    uint8_t *chunk;
    int cb = roundtrip(cp, src, (int32_t)n, 1, &chunk);
    CHECK_EQ(cb, (long long)n + 32);
    CHECK(HDR_IS_MEMCPYED(chunk));
    CHECK_MEM(chunk + 32, src, n);
    free(chunk);
    /* with a bigger destination the chunk may be a regular one with raw
       streams; it still decodes */
    blosc2_context *cctx = blosc2_create_cctx(cp);
    size_t cap = 2 * n;
    uint8_t *dst = gbuf(cap, 0);
    cb = blosc2_compress_ctx(cctx, src, (int32_t)n, dst, (int32_t)cap);
    CHECK_GT(cb, 0);
    CHECK_GUARD(dst, cap);
    uint8_t *out;
    CHECK_EQ(decompress_with(1, dst, cb, (int32_t)n, &out), (long long)n);
    CHECK_MEM(out, src, n);
    free(out);
    /* destination too small for even a memcpyed chunk: 0 */
    for (int32_t d = (int32_t)n + 31; d >= (int32_t)n + 25; d -= 3) {
      memset(dst, 0, cap);
      memset(dst + d, GUARD_BYTE, cap - (size_t)d);
      cb = blosc2_compress_ctx(cctx, src, (int32_t)n, dst, d);
      CHECK_EQ(cb, 0);
      for (size_t k = (size_t)d; k < cap; k++) {
        if (dst[k] != GUARD_BYTE) {
          CHECK(!"write past destsize");
          break;
        }
      }
    }
    free(dst);
    blosc2_free_ctx(cctx);
  }
  free(src);
}

/* compression into buffers smaller than nbytes + 32 but large enough for
   the compressed data */
static void test_tight_destination(void) {
  size_t n = 200000;
  uint8_t *src = malloc(n);
  fill_ramp32(src, n);
  for (int c = 0; c < N_ALL_CODECS; c++) {
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.compcode = (uint8_t)ALL_CODECS[c];
    cp.typesize = 4;
    uint8_t *chunk;
    int cb = compress_with(cp, src, (int32_t)n, &chunk);
    CHECK_GT(cb, 0);
    free(chunk);
    blosc2_context *cctx = blosc2_create_cctx(cp);
    /* exactly cbytes works */
    uint8_t *dst = gbuf((size_t)cb, 0);
    int cb2 = blosc2_compress_ctx(cctx, src, (int32_t)n, dst, cb);
    CHECK_EQ(cb2, cb);
    CHECK_GUARD(dst, (size_t)cb);
    uint8_t *out;
    CHECK_EQ(decompress_with(1, dst, cb2, (int32_t)n, &out), (long long)n);
    CHECK_MEM(out, src, n);
    free(out);
    free(dst);
    /* one byte less fails with 0, nothing written past the end */
    dst = gbuf((size_t)cb - 1, 0);
    cb2 = blosc2_compress_ctx(cctx, src, (int32_t)n, dst, cb - 1);
    CHECK_EQ(cb2, 0);
    CHECK_GUARD(dst, (size_t)cb - 1);
    free(dst);
    blosc2_free_ctx(cctx);
  }
  free(src);
}

static void test_decompress_dest_sizes(void) {
  size_t n = 100000;
  uint8_t *src = malloc(n);
  fill_ramp32(src, n);
  for (int c = 0; c < N_ALL_CODECS; c++) {
    for (int clevel = 0; clevel <= 5; clevel += 5) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.compcode = (uint8_t)ALL_CODECS[c];
      cp.typesize = 4;
      cp.clevel = (uint8_t)clevel;
      uint8_t *chunk;
      int cb = compress_with(cp, src, (int32_t)n, &chunk);
      CHECK_GT(cb, 0);
      uint8_t *out;
      /* too small by one */
      CHECK_EQ(decompress_with(1, chunk, cb, (int32_t)n - 1, &out), BLOSC2_ERROR_WRITE_BUFFER);
      CHECK_GUARD(out, n - 1);
      free(out);
      CHECK_EQ(decompress_with(4, chunk, cb, (int32_t)n - 1, &out), BLOSC2_ERROR_WRITE_BUFFER);
      CHECK_GUARD(out, n - 1);
      free(out);
      CHECK_EQ(decompress_with(1, chunk, cb, 0, &out), BLOSC2_ERROR_WRITE_BUFFER);
      free(out);
      /* larger destination: only nbytes written */
      CHECK_EQ(decompress_with(1, chunk, cb, (int32_t)n + 1000, &out), (long long)n);
      CHECK_MEM(out, src, n);
      CHECK_EQ(out[n], 0x5A);
      CHECK_EQ(out[n + 999], 0x5A);
      free(out);
      /* a source buffer longer than cbytes is fine */
      uint8_t *big = malloc((size_t)cb + 500);
      memcpy(big, chunk, (size_t)cb);
      memset(big + cb, 0xFF, 500);
      CHECK_EQ(decompress_with(1, big, cb + 500, (int32_t)n, &out), (long long)n);
      CHECK_MEM(out, src, n);
      free(out);
      free(big);
      free(chunk);
    }
  }
  free(src);
}

/* exact chunk bytes for BloscLZ (reproduced byte for byte by b2rs) */
static void test_blosclz_exact_ctx(void) {
  size_t n = 300000;
  uint8_t *src = malloc(n);
  struct {
    int data, clevel, ts, blocksize, split;
    uint8_t pipe[6];
    int expect_cb;
    uint64_t expect_hash;
  } cases[] = {
      {0, 5, 4, 0, BLOSC_FORWARD_COMPAT_SPLIT, {0, 0, 0, 0, 0, 1}, 2749, 0x2aa1841a8ee27028ULL},
      {1, 5, 4, 0, BLOSC_FORWARD_COMPAT_SPLIT, {0, 0, 0, 0, 0, 1}, 189383, 0x5ce5dfcd354fcf5dULL},
      {1, 9, 8, 0, BLOSC_FORWARD_COMPAT_SPLIT, {0, 0, 0, 0, 3, 1}, 224236, 0x81e17f3bd95d3ce8ULL},
      {2, 3, 4, 0, BLOSC_FORWARD_COMPAT_SPLIT, {0, 0, 0, 0, 0, 2}, 37406, 0x9f928d062dde5b9dULL},
      {2, 1, 4, 16384, BLOSC_NEVER_SPLIT, {0, 0, 0, 0, 0, 1}, 77405, 0x92972d432e2e0ac9ULL},
      {3, 7, 8, 0, BLOSC_ALWAYS_SPLIT, {0, 0, 0, 0, 0, 1}, 6880, 0x3cc8df68647f1eb9ULL},
      {3, 4, 2, 32768, BLOSC_FORWARD_COMPAT_SPLIT, {0, 0, 0, 0, 0, 0}, 192786, 0xc1d9bc1f41214301ULL},
      {1, 6, 1, 0, BLOSC_FORWARD_COMPAT_SPLIT, {0, 0, 0, 0, 0, 0}, 147077, 0xf50663a3cbbdd8e4ULL},
      {1, 8, 3, 0, BLOSC_FORWARD_COMPAT_SPLIT, {0, 0, 0, 0, 0, 1}, 189863, 0x97113eb3c4b56bcfULL},
      {0, 2, 16, 0, BLOSC_FORWARD_COMPAT_SPLIT, {0, 0, 0, 0, 3, 2}, 1721, 0x2129f028fa3ab7aeULL},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    switch (cases[i].data) {
      case 0: fill_ramp32(src, n); break;
      case 1: fill_mixed(src, n, 1234); break;
      case 2: fill_float32(src, n); break;
      default: fill_float64(src, n); break;
    }
    blosc2_cparams cp = cparams_nofilter(BLOSC_BLOSCLZ, cases[i].clevel, cases[i].ts);
    cp.blocksize = cases[i].blocksize;
    cp.splitmode = cases[i].split;
    set_pipeline(&cp, cases[i].pipe, NULL);
    uint8_t *chunk;
    int cb = roundtrip(cp, src, (int32_t)n, 1, &chunk);
    if (cb != cases[i].expect_cb) fprintf(stderr, "  blosclz exact case %zu\n", i);
    CHECK_EQ(cb, cases[i].expect_cb);
    CHECK_HASH(fnv1a(chunk, (size_t)cb), cases[i].expect_hash);
    free(chunk);
  }
  free(src);
}

/* the same with the global API (blosc2_compress) */
static void test_blosclz_exact_global(void) {
  size_t n = 123457;
  uint8_t *src = malloc(n);
  fill_mixed(src, n, 77);
  uint8_t *dst = gbuf(n + 32, 0);
  blosc1_set_compressor("blosclz");
  int cb = blosc2_compress(5, BLOSC_SHUFFLE, 4, src, (int32_t)n, dst, (int32_t)n + 32);
  CHECK_EQ(cb, 79236);
  CHECK_HASH(fnv1a(dst, (size_t)cb), 0x7236beccde7282e9ULL);
  cb = blosc2_compress(9, BLOSC_BITSHUFFLE, 2, src, (int32_t)n, dst, (int32_t)n + 32);
  CHECK_EQ(cb, 102982);
  CHECK_HASH(fnv1a(dst, (size_t)cb), 0x70ec8d274fdc5c25ULL);
  CHECK_GUARD(dst, n + 32);
  free(dst);
  free(src);
}

/* the header bytes that do not depend on the codec implementation are the
   same for every codec */
static void test_cbuffer_sizes_fields(void) {
  uint8_t src[5000];
  fill_ramp32(src, sizeof(src));
  uint8_t *chunk;
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  int cb = compress_with(cp, src, sizeof(src), &chunk);
  int32_t nb = 0;
  CHECK_EQ(blosc2_cbuffer_sizes(chunk, &nb, NULL, NULL), 0);
  CHECK_EQ(nb, 5000);
  int32_t cbs = 0;
  CHECK_EQ(blosc2_cbuffer_sizes(chunk, NULL, &cbs, NULL), 0);
  CHECK_EQ(cbs, cb);
  int32_t bs = 0;
  CHECK_EQ(blosc2_cbuffer_sizes(chunk, NULL, NULL, &bs), 0);
  CHECK_EQ(bs, 5000);
  CHECK_EQ(blosc2_cbuffer_sizes(chunk, NULL, NULL, NULL), 0);
  free(chunk);
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  blosc2_init();
  RUN(test_codec_filter_matrix);
  RUN(test_clevels);
  RUN(test_header_codec_fields);
  RUN(test_global_api_roundtrip);
  RUN(test_empty_and_tiny);
  RUN(test_zero_run_chunk);
  RUN(test_typesizes);
  RUN(test_typesize_over_255);
  RUN(test_user_blocksizes);
#ifndef B2RS_REFERENCE_BUG_BLOCKSIZE_TYPESIZE
  RUN(test_blocksize_not_multiple);
#endif
  RUN(test_auto_blocksize);
  RUN(test_splitmodes);
  RUN(test_nthreads_roundtrip);
  RUN(test_dict);
#ifndef B2RS_REFERENCE_BUG_DICT_MEMCPY
  RUN(test_dict_memcpy_fallback);
#endif
  RUN(test_trunc_prec);
#ifndef B2RS_REFERENCE_BUG_UNDEFINED_TAIL
  RUN(test_delta_tail);
  RUN(test_trunc_prec_tail);
#endif
  RUN(test_pipeline_3_filters);
#ifndef B2RS_REFERENCE_BUG_DELTA_PIPELINE
  RUN(test_pipeline_3_filters_delta);
#endif
#ifndef B2RS_REFERENCE_BUG_PIPELINE_INPUT
  RUN(test_input_not_modified);
#endif
  RUN(test_bytedelta_int_trunc);
  RUN(test_incompressible_fallback);
  RUN(test_tight_destination);
  RUN(test_decompress_dest_sizes);
  RUN(test_blosclz_exact_ctx);
  RUN(test_blosclz_exact_global);
  RUN(test_cbuffer_sizes_fields);
  blosc2_destroy();
  return TEST_SUMMARY();
}
