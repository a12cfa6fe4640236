/*
 * test_plugins.c - user-registered codecs and filters (area 11:
 * blosc2_register_codec, blosc2_register_filter).
 *
 * User ids are 160..255; ids outside that range are refused
 * (register_codec: -8 BLOSC2_ERROR_CODEC_PARAM, register_filter: -1
 * BLOSC2_ERROR_FAILURE, as in the reference).  Registered codecs and filters
 * are used in round trips with 1 and 4 threads, in VL-block chunks, and the
 * parameters handed to the callbacks are checked.
 *
 * Not tested because the reference crashes: register_codec(NULL),
 * register_filter(NULL).  Not asserted (reference behaviour is odd):
 * blosc2_cbuffer_complib() on a user-codec chunk (NULL in the reference),
 * registering the same id twice (accepted).
 *
 * No reference bugs are compiled out here.
 */
#include "b2rs_test.h"

#define RLE_ID 200
#define RLE_META 111
#define XOR_ID 220
#define ADD_ID 161

static int enc_mode = 0, dec_mode = 0, fwd_mode = 0, bwd_mode = 0;
static long enc_calls = 0, dec_calls = 0, fwd_calls = 0, bwd_calls = 0;
static long bad_args = 0;

#define BUMP(x) __atomic_add_fetch(&(x), 1, __ATOMIC_RELAXED)

/* a byte run-length codec: (count, byte) pairs */
static int rle_encoder(const uint8_t *in, int32_t in_len, uint8_t *out, int32_t out_len, uint8_t meta,
                       blosc2_cparams *cparams, const void *chunk) {
  (void)chunk;
  BUMP(enc_calls);
  if (meta != RLE_META || cparams == NULL || cparams->compcode != RLE_ID ||
      cparams->compcode_meta != RLE_META || in_len <= 0 || out_len <= 0)
    BUMP(bad_args);
  if (enc_mode == 1) return -77;
  if (enc_mode == 2) return 0;
  int32_t o = 0;
  for (int32_t i = 0; i < in_len;) {
    uint8_t b = in[i];
    int32_t r = 1;
    while (i + r < in_len && in[i + r] == b && r < 255) r++;
    if (o + 2 > out_len) return 0;
    out[o++] = (uint8_t)r;
    out[o++] = b;
    i += r;
  }
  return o;
}

static int rle_decoder(const uint8_t *in, int32_t in_len, uint8_t *out, int32_t out_len, uint8_t meta,
                       blosc2_dparams *dparams, const void *chunk) {
  (void)chunk;
  BUMP(dec_calls);
  if (meta != RLE_META || dparams == NULL || in_len <= 0 || out_len <= 0) BUMP(bad_args);
  if (dec_mode == 1) return -77;
  int32_t o = 0;
  for (int32_t i = 0; i + 1 < in_len; i += 2) {
    for (int k = 0; k < in[i]; k++) {
      if (o >= out_len) return -1;
      out[o++] = in[i + 1];
    }
  }
  if (dec_mode == 2) return o - 1;
  return o;
}

/* XOR with the meta byte */
static int xor_forward(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta,
                       blosc2_cparams *cparams, uint8_t id) {
  BUMP(fwd_calls);
  if (id != XOR_ID || cparams == NULL || size <= 0) BUMP(bad_args);
  if (fwd_mode) return -77;
  for (int32_t i = 0; i < size; i++) dest[i] = src[i] ^ meta;
  return BLOSC2_ERROR_SUCCESS;
}

static int xor_backward(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta,
                        blosc2_dparams *dparams, uint8_t id) {
  BUMP(bwd_calls);
  if (id != XOR_ID || dparams == NULL || size <= 0) BUMP(bad_args);
  if (bwd_mode) return -77;
  for (int32_t i = 0; i < size; i++) dest[i] = src[i] ^ meta;
  return BLOSC2_ERROR_SUCCESS;
}

/* bytewise add of the meta byte (not an involution: checks direction) */
static int add_forward(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta,
                       blosc2_cparams *cparams, uint8_t id) {
  (void)cparams;
  if (id != ADD_ID) BUMP(bad_args);
  for (int32_t i = 0; i < size; i++) dest[i] = (uint8_t)(src[i] + meta);
  return 0;
}

static int add_backward(const uint8_t *src, uint8_t *dest, int32_t size, uint8_t meta,
                        blosc2_dparams *dparams, uint8_t id) {
  (void)dparams;
  if (id != ADD_ID) BUMP(bad_args);
  for (int32_t i = 0; i < size; i++) dest[i] = (uint8_t)(src[i] - meta);
  return 0;
}

static void register_all(void) {
  static blosc2_codec rle = {RLE_ID, "rle", RLE_ID, 1, rle_encoder, rle_decoder};
  CHECK_EQ(blosc2_register_codec(&rle), 0);
  static blosc2_filter xorf = {XOR_ID, "xor", 1, xor_forward, xor_backward};
  CHECK_EQ(blosc2_register_filter(&xorf), 0);
  static blosc2_filter addf = {ADD_ID, "add", 1, add_forward, add_backward};
  CHECK_EQ(blosc2_register_filter(&addf), 0);
}

static void fill_runs(uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(i / 1000);
}

static void test_register_ranges(void) {
  static const int bad[] = {0, 1, 5, 31, 32, 36, 100, 159};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    blosc2_codec c = {(uint8_t)bad[i], "badcodec", (uint8_t)bad[i], 1, rle_encoder, rle_decoder};
    CHECK_EQ(blosc2_register_codec(&c), BLOSC2_ERROR_CODEC_PARAM);
    blosc2_filter f = {(uint8_t)bad[i], "badfilter", 1, xor_forward, xor_backward};
    CHECK_EQ(blosc2_register_filter(&f), BLOSC2_ERROR_FAILURE);
  }
  static const int good[] = {160, 161, 200, 254, 255};
  for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
    blosc2_codec c = {(uint8_t)good[i], "goodcodec", (uint8_t)good[i], 1, rle_encoder, rle_decoder};
    CHECK_EQ(blosc2_register_codec(&c), 0);
    blosc2_filter f = {(uint8_t)good[i], "goodfilter", 1, xor_forward, xor_backward};
    CHECK_EQ(blosc2_register_filter(&f), 0);
  }
}

static void test_codec_names(void) {
  register_all();
  const char *name = NULL;
  CHECK_EQ(blosc2_compcode_to_compname(RLE_ID, &name), RLE_ID);
  CHECK_STR(name, "rle");
  CHECK_EQ(blosc2_compname_to_compcode("rle"), RLE_ID);
  /* unregistered user ids stay unknown */
  name = "x";
  CHECK_EQ(blosc2_compcode_to_compname(201, &name), -1);
  CHECK(name == NULL);
}

static void test_user_codec_roundtrip(void) {
  register_all();
  size_t n = 400000;
  uint8_t *src = malloc(n);
  fill_runs(src, n);
  for (int nt = 1; nt <= 4; nt *= 2) {
    for (int ts = 1; ts <= 4; ts *= 4) {
      blosc2_cparams cp = cparams_nofilter(RLE_ID, 5, ts);
      cp.compcode_meta = RLE_META;
      cp.nthreads = (int16_t)nt;
      cp.blocksize = 32768;
      enc_calls = dec_calls = bad_args = 0;
      uint8_t *chunk;
      int cb = compress_with(cp, src, (int32_t)n, &chunk);
      CHECK_GT(cb, 0);
      CHECK_LT(cb, (long long)n / 10);
      CHECK(!HDR_IS_MEMCPYED(chunk));
      CHECK_EQ(HDR_FORMAT(chunk), BLOSC_UDCODEC_FORMAT);
      CHECK_EQ(HDR_UDCOMPCODE(chunk), RLE_ID);
      CHECK_EQ(HDR_COMPCODE_META(chunk), RLE_META);
      CHECK_GT(enc_calls, 0);
      uint8_t *out;
      CHECK_EQ(decompress_with(nt, chunk, cb, (int32_t)n, &out), (long long)n);
      CHECK_MEM(out, src, n);
      free(out);
      CHECK_GT(dec_calls, 0);
      CHECK_EQ(bad_args, 0);
      /* getitem goes through the decoder too */
      blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
      uint8_t part[4000];
      CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, cb, 50000 / ts, 4000 / ts, part, sizeof(part)), 4000);
      CHECK_MEM(part, src + 50000, 4000);
      blosc2_free_ctx(dctx);
      free(chunk);
    }
  }
  free(src);
}

static void test_user_codec_errors(void) {
  register_all();
  size_t n = 100000;
  uint8_t *src = malloc(n);
  fill_runs(src, n);
  blosc2_cparams cp = cparams_nofilter(RLE_ID, 5, 1);
  cp.compcode_meta = RLE_META;
  uint8_t *chunk, *out;
  int cb = compress_with(cp, src, (int32_t)n, &chunk);
  CHECK_GT(cb, 0);
  /* decoder fails */
  dec_mode = 1;
  CHECK_EQ(decompress_with(1, chunk, cb, (int32_t)n, &out), BLOSC2_ERROR_DATA);
  free(out);
  /* decoder returns a wrong length */
  dec_mode = 2;
  CHECK_EQ(decompress_with(1, chunk, cb, (int32_t)n, &out), BLOSC2_ERROR_DATA);
  free(out);
  dec_mode = 0;
  /* the chunk names a codec that is not registered */
  chunk[22] = 170;
  CHECK_EQ(decompress_with(1, chunk, cb, (int32_t)n, &out), BLOSC2_ERROR_CODEC_SUPPORT);
  free(out);
  free(chunk);
  /* encoder fails */
  enc_mode = 1;
  cb = compress_with(cp, src, (int32_t)n, &chunk);
  CHECK_EQ(cb, BLOSC2_ERROR_DATA);
  free(chunk);
  /* encoder cannot compress: memcpy fallback */
  enc_mode = 2;
  cb = compress_with(cp, src, (int32_t)n, &chunk);
  CHECK_EQ(cb, (long long)n + 32);
  CHECK(HDR_IS_MEMCPYED(chunk));
  CHECK_EQ(decompress_with(1, chunk, cb, (int32_t)n, &out), (long long)n);
  CHECK_MEM(out, src, n);
  free(out);
  free(chunk);
  enc_mode = 0;
  free(src);
}

static void test_user_filter_roundtrip(void) {
  register_all();
  size_t n = 300000;
  uint8_t *src = malloc(n);
  fill_mixed(src, n, 3);
  static const uint8_t pipes[][6] = {
      {0, 0, XOR_ID, 0, 0, 0},
      {0, 0, 0, 0, XOR_ID, BLOSC_SHUFFLE},
      {ADD_ID, 0, 0, 0, 0, BLOSC_BITSHUFFLE},
      {0, 0, 0, 0, ADD_ID, XOR_ID},
      {XOR_ID, ADD_ID, 0, 0, 0, 0},
  };
  for (size_t p = 0; p < sizeof(pipes) / sizeof(pipes[0]); p++) {
    for (int nt = 1; nt <= 4; nt *= 4) {
      for (int c = 0; c < N_ALL_CODECS; c += 2) {
        blosc2_cparams cp = cparams_nofilter(ALL_CODECS[c], 5, 4);
        memcpy(cp.filters, pipes[p], 6);
        for (int i = 0; i < 6; i++) cp.filters_meta[i] = pipes[p][i] >= 160 ? (uint8_t)(0x30 + i) : 0;
        cp.nthreads = (int16_t)nt;
        cp.blocksize = 65536;
        fwd_calls = bwd_calls = bad_args = 0;
        uint8_t *chunk;
        int cb = compress_with(cp, src, (int32_t)n, &chunk);
        CHECK_GT(cb, 0);
        for (int i = 0; i < 6; i++) {
          CHECK_EQ(HDR_FILTER(chunk, i), pipes[p][i]);
          CHECK_EQ(HDR_FILTER_META(chunk, i), cp.filters_meta[i]);
        }
        uint8_t *out;
        CHECK_EQ(decompress_with(nt, chunk, cb, (int32_t)n, &out), (long long)n);
        CHECK_MEM(out, src, n);
        free(out);
        CHECK_EQ(bad_args, 0);
        free(chunk);
      }
    }
  }
  free(src);
}

/* a user filter together with a user codec */
static void test_user_filter_and_codec(void) {
  register_all();
  size_t n = 200000;
  uint8_t *src = malloc(n);
  fill_runs(src, n);
  blosc2_cparams cp = cparams_nofilter(RLE_ID, 5, 2);
  cp.compcode_meta = RLE_META;
  cp.filters[3] = XOR_ID;
  cp.filters_meta[3] = 0xA5;
  cp.filters[5] = BLOSC_SHUFFLE;
  uint8_t *chunk, *out;
  int cb = compress_with(cp, src, (int32_t)n, &chunk);
  CHECK_GT(cb, 0);
  CHECK_LT(cb, (long long)n / 10);
  CHECK_EQ(decompress_with(2, chunk, cb, (int32_t)n, &out), (long long)n);
  CHECK_MEM(out, src, n);
  free(out);
  free(chunk);
  free(src);
}

static void test_user_filter_errors(void) {
  register_all();
  size_t n = 100000;
  uint8_t *src = malloc(n);
  fill_mixed(src, n, 4);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.filters[2] = XOR_ID;
  cp.filters_meta[2] = 0x77;
  uint8_t *chunk, *out;
  int cb = compress_with(cp, src, (int32_t)n, &chunk);
  CHECK_GT(cb, 0);
  /* backward fails: its error code is returned */
  bwd_mode = 1;
  CHECK_EQ(decompress_with(1, chunk, cb, (int32_t)n, &out), -77);
  free(out);
  bwd_mode = 0;
  /* the chunk names a filter that is not registered */
  chunk[18] = 221;
  CHECK_EQ(decompress_with(1, chunk, cb, (int32_t)n, &out), BLOSC2_ERROR_FILTER_PIPELINE);
  free(out);
  free(chunk);
  /* forward fails */
  fwd_mode = 1;
  cb = compress_with(cp, src, (int32_t)n, &chunk);
  CHECK_EQ(cb, BLOSC2_ERROR_FILTER_PIPELINE);
  free(chunk);
  fwd_mode = 0;
  /* unregistered filter ids are refused when compressing */
  cp.filters[2] = 222;
  cb = compress_with(cp, src, (int32_t)n, &chunk);
  CHECK_EQ(cb, BLOSC2_ERROR_FILTER_PIPELINE);
  free(chunk);
  free(src);
}

/* user codecs and filters in VL-block chunks */
static void test_user_plugins_vlblocks(void) {
  register_all();
  size_t n = 100000;
  uint8_t *src = malloc(n);
  fill_runs(src, n);
  blosc2_cparams cp = cparams_nofilter(RLE_ID, 5, 1);
  cp.compcode_meta = RLE_META;
  cp.filters[4] = XOR_ID;
  cp.filters_meta[4] = 0x3C;
  const void *srcs[3] = {src, src + 20000, src + 50000};
  int32_t sizes[3] = {20000, 30000, 50000};
  blosc2_context *cctx = blosc2_create_cctx(cp);
  uint8_t *dst = gbuf(n + 100, 0);
  int cb = blosc2_vlcompress_ctx(cctx, srcs, sizes, 3, dst, (int32_t)n + 100);
  CHECK_GT(cb, 0);
  CHECK_LT(cb, 5000);
  CHECK_GUARD(dst, n + 100);
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  void *dests[3];
  int32_t dsizes[3];
  CHECK_EQ(blosc2_vldecompress_ctx(dctx, dst, cb, dests, dsizes, 3), 3);
  for (int i = 0; i < 3; i++) {
    CHECK_EQ(dsizes[i], sizes[i]);
    CHECK_MEM(dests[i], srcs[i], (size_t)sizes[i]);
    free(dests[i]);
  }
  blosc2_free_ctx(cctx);
  blosc2_free_ctx(dctx);
  free(dst);
  free(src);
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  blosc2_init();
  RUN(test_register_ranges);
  RUN(test_codec_names);
  RUN(test_user_codec_roundtrip);
  RUN(test_user_codec_errors);
  RUN(test_user_filter_roundtrip);
  RUN(test_user_filter_and_codec);
  RUN(test_user_filter_errors);
  RUN(test_user_plugins_vlblocks);
  blosc2_destroy();
  return TEST_SUMMARY();
}
