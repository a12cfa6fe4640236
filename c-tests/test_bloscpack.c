/*
 * test_bloscpack.c - b2rs's own Bloscpack functions (include/b2rs.h):
 * b2rs_bloscpack_pack_bytes_to_bytes, _pack_bytes_to_file,
 * _pack_file_to_file, _unpack_bytes_from_bytes, _unpack_bytes_from_file,
 * _unpack_file_from_file, _get_info, _get_info_file, _get_metadata,
 * _get_metadata_file, _decompress_chunk, _decompress_chunk_file,
 * _append_file, _set_metadata_file, _get_params_defaults.
 *
 * The reference C-Blosc2 has no such functions: built with -DB2RS_REFERENCE
 * the program runs no test and prints "test_bloscpack: 0 passed, 0 failed".
 * Interoperability with the Python bloscpack package is tested by
 * tests/bloscpack.rs.
 */
#include "b2rs_test.h"

#ifndef B2RS_REFERENCE
#include <b2rs.h>

#define FILE_A "test_bloscpack_a.blp"
#define FILE_B "test_bloscpack_b.blp"
#define FILE_RAW "test_bloscpack_raw.bin"
#define FILE_OUT "test_bloscpack_out.bin"

static uint8_t *read_file(const char *path, long *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  *len = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc((size_t)*len + 1);
  size_t got = fread(b, 1, (size_t)*len, f);
  fclose(f);
  if ((long)got != *len) {
    free(b);
    return NULL;
  }
  return b;
}

static int write_file(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (f == NULL) return -1;
  size_t put = fwrite(data, 1, len, f);
  fclose(f);
  return put == len ? 0 : -1;
}

/* ------------------------------------------------------------------ */

static void test_defaults(void) {
  b2rs_bloscpack_params d = b2rs_bloscpack_get_params_defaults();
  b2rs_bloscpack_params h = B2RS_BLOSCPACK_PARAMS_DEFAULTS;
  CHECK_EQ(d.chunk_size, h.chunk_size);
  CHECK_EQ(d.chunk_size, 1 << 20);
  CHECK_EQ(d.checksum, h.checksum);
  CHECK_EQ(d.checksum, B2RS_BLOSCPACK_CHECKSUM_ADLER32);
  CHECK_EQ(d.offsets, h.offsets);
  CHECK_EQ(d.meta_checksum, h.meta_checksum);
  CHECK_EQ(d.meta_codec, h.meta_codec);
  CHECK_EQ(d.meta_codec, B2RS_BLOSCPACK_META_CODEC_ZLIB);
  CHECK_EQ(d.meta_level, h.meta_level);
  CHECK_EQ(d.max_app_chunks, h.max_app_chunks);
  CHECK_EQ(d.max_meta_size, h.max_meta_size);
  CHECK(d.cparams == NULL && h.cparams == NULL);
}

static void test_roundtrip_memory(void) {
  static const int32_t sizes[] = {0, 1, 31, 1000, 300001};
  static const int shuffles[] = {BLOSC_NOSHUFFLE, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE};
  static const int32_t typesizes[] = {1, 4, 8, 12};
  uint8_t *src = malloc(300001);
  fill_mixed(src, 300001, 3);
  for (int c = 0; c < N_ALL_CODECS; c++) {
    for (int s = 0; s < 3; s++) {
      for (int t = 0; t < 4; t++) {
        blosc2_cparams cp = cparams_nofilter(ALL_CODECS[c], (c + s + t) % 10, typesizes[t]);
        cp.filters[BLOSC2_MAX_FILTERS - 1] = (uint8_t)shuffles[s];
        b2rs_bloscpack_params p = B2RS_BLOSCPACK_PARAMS_DEFAULTS;
        p.cparams = &cp;
        p.chunk_size = 65536;
        p.checksum = (uint8_t)((c + s + t) % 9);
        for (int z = 0; z < 5; z++) {
          uint8_t *packed = NULL;
          int64_t n = b2rs_bloscpack_pack_bytes_to_bytes(src, sizes[z], &p, NULL, 0, &packed);
          CHECK_GT(n, 32);
          if (n <= 0) continue;
          b2rs_bloscpack_info info;
          CHECK_EQ(b2rs_bloscpack_get_info(packed, n, &info), 0);
          CHECK_EQ(info.format_version, 3);
          CHECK_EQ(info.nbytes, sizes[z]);
          CHECK_EQ(info.typesize, typesizes[t]);
          CHECK_EQ(info.checksum, p.checksum);
          CHECK_EQ(info.nchunks, sizes[z] == 0 ? 1 : (sizes[z] + 65535) / 65536);
          CHECK_EQ(info.max_app_chunks, 10 * info.nchunks);
          CHECK(info.offsets);
          CHECK(!info.metadata);
          CHECK_EQ(info.meta_size, -1);
          uint8_t *back = NULL;
          int64_t m = b2rs_bloscpack_unpack_bytes_from_bytes(packed, n, &back);
          CHECK_EQ(m, sizes[z]);
          CHECK(back != NULL);
          if (m == sizes[z] && back != NULL) CHECK_MEM(back, src, (size_t)m);
          /* every chunk by number */
          for (int64_t i = 0; i < info.nchunks; i++) {
            uint8_t *chunk = NULL;
            int64_t k = b2rs_bloscpack_decompress_chunk(packed, n, i, &chunk);
            int64_t want = i + 1 < info.nchunks ? info.chunk_size : info.last_chunk;
            CHECK_EQ(k, want);
            if (k == want) CHECK_MEM(chunk, src + i * 65536, (size_t)k);
            free(chunk);
          }
          free(back);
          free(packed);
        }
      }
    }
  }
  free(src);
}

/* BLOSCPACK.md 9: the first 0x192 bytes are exactly those of bloscpack. */
static void test_worked_example(void) {
  uint8_t src[600];
  for (int i = 0; i < 600; i++) src[i] = (uint8_t)(i % 200);
  blosc2_cparams cp = cparams_nofilter(BLOSC_BLOSCLZ, 5, 1);
  b2rs_bloscpack_params p = B2RS_BLOSCPACK_PARAMS_DEFAULTS;
  p.cparams = &cp;
  p.chunk_size = 256;
  const char *meta = "{\"a\":1}";
  uint8_t *f = NULL;
  int64_t n = b2rs_bloscpack_pack_bytes_to_bytes(src, 600, &p, meta, (int64_t)strlen(meta), &f);
  CHECK_EQ(n, 1062);
  if (n != 1062) {
    free(f);
    return;
  }
  static const uint8_t head[0x40] = {
      0x62, 0x6c, 0x70, 0x6b, 0x03, 0x03, 0x01, 0x01, 0x00, 0x01, 0x00, 0x00, 0x58, 0x00,
      0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1e, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x4a, 0x53, 0x4f, 0x4e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
      0x00, 0x06, 0x07, 0x00, 0x00, 0x00, 0x46, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  CHECK_MEM(f, head, sizeof(head));
  CHECK_MEM(f + 0x40, meta, 7);
  for (int i = 0x47; i < 0x86; i++) CHECK_EQ(f[i], 0);
  static const uint8_t adler[4] = {0x09, 0x02, 0x2a, 0x08};
  CHECK_MEM(f + 0x86, adler, 4);
  static const uint8_t offs[24] = {0x92, 0x01, 0, 0, 0, 0, 0, 0, 0xa6, 0x02, 0, 0,
                                   0, 0, 0, 0, 0xba, 0x03, 0, 0, 0, 0, 0, 0};
  CHECK_MEM(f + 0x8a, offs, 24);
  for (int i = 0xa2; i < 0x192; i++) CHECK_EQ(f[i], 0xff);
  /* chunk 0: Blosc 1.x header (version 2), memcpyed, 256 -> 272 bytes */
  CHECK_EQ(f[0x192], 2);
  CHECK(HDR_IS_MEMCPYED(f + 0x192));
  CHECK_EQ(HDR_NBYTES(f + 0x192), 256);
  CHECK_EQ(HDR_CBYTES(f + 0x192), 272);
  CHECK_EQ(HDR_CBYTES(f + 0x3ba), 104);
  char *m = NULL;
  CHECK_EQ(b2rs_bloscpack_get_metadata(f, n, &m), 7);
  CHECK_STR(m, meta);
  free(m);
  free(f);
}

static void test_metadata(void) {
  uint8_t src[5000];
  fill_ramp32(src, sizeof(src));
  const char *meta = "{\"dtype\":\"'<i4'\",\"shape\":[1250],\"order\":\"C\",\"container\":\"numpy\"}";
  remove(FILE_B);
  b2rs_bloscpack_params p = B2RS_BLOSCPACK_PARAMS_DEFAULTS;
  p.chunk_size = 2000;
  p.meta_checksum = B2RS_BLOSCPACK_CHECKSUM_SHA256;
  p.max_meta_size = 400;
  int64_t n = b2rs_bloscpack_pack_bytes_to_file(src, sizeof(src), &p, meta, (int64_t)strlen(meta),
                                                FILE_A);
  CHECK_GT(n, 0);
  b2rs_bloscpack_info info;
  CHECK_EQ(b2rs_bloscpack_get_info_file(FILE_A, &info), 0);
  CHECK(info.metadata);
  CHECK_EQ(info.meta_size, (int64_t)strlen(meta));
  CHECK_EQ(info.max_meta_size, 400);
  CHECK_EQ(info.meta_checksum, B2RS_BLOSCPACK_CHECKSUM_SHA256);
  CHECK_EQ(info.nchunks, 3);
  CHECK_EQ(info.chunk_size, 2000);
  CHECK_EQ(info.last_chunk, 1000);
  char *m = NULL;
  CHECK_EQ(b2rs_bloscpack_get_metadata_file(FILE_A, &m), (int64_t)strlen(meta));
  CHECK_STR(m, meta);
  free(m);

  /* rewrite in place */
  const char *meta2 = "{\"dtype\":\"'<i4'\",\"shape\":[1250],\"note\":\"rewritten in place by b2rs\"}";
  CHECK_EQ(b2rs_bloscpack_set_metadata_file(FILE_A, meta2, (int64_t)strlen(meta2)), 0);
  long len = 0;
  uint8_t *f = read_file(FILE_A, &len);
  CHECK_EQ(len, n);
  m = NULL;
  CHECK_EQ(b2rs_bloscpack_get_metadata(f, len, &m), (int64_t)strlen(meta2));
  CHECK_STR(m, meta2);
  free(m);
  uint8_t *back = NULL;
  CHECK_EQ(b2rs_bloscpack_unpack_bytes_from_bytes(f, len, &back), (int64_t)sizeof(src));
  if (back) CHECK_MEM(back, src, sizeof(src));
  free(back);
  free(f);
  /* too large for the 400 reserved bytes (incompressible) */
  char big[1000];
  big[0] = '"';
  fill_random(big + 1, sizeof(big) - 2, 9);
  for (size_t i = 1; i < sizeof(big) - 1; i++) big[i] = (char)('a' + (uint8_t)big[i] % 26);
  big[sizeof(big) - 1] = '"';
  CHECK_EQ(b2rs_bloscpack_set_metadata_file(FILE_A, big, sizeof(big)), BLOSC2_ERROR_WRITE_BUFFER);

  /* no metadata */
  uint8_t *g = NULL;
  int64_t gn = b2rs_bloscpack_pack_bytes_to_bytes(src, 100, NULL, NULL, 0, &g);
  CHECK_GT(gn, 0);
  m = (char *)1;
  CHECK_EQ(b2rs_bloscpack_get_metadata(g, gn, &m), BLOSC2_ERROR_NOT_FOUND);
  CHECK_EQ(b2rs_bloscpack_set_metadata_file(FILE_B, "{}", 2), BLOSC2_ERROR_FILE_OPEN);
  free(g);
  remove(FILE_A);
}

static void test_files(void) {
  size_t size = 3 * 100000 + 17;
  uint8_t *src = malloc(size);
  fill_float64(src, size);
  CHECK_EQ(write_file(FILE_RAW, src, size), 0);
  blosc2_cparams cp = cparams_nofilter(BLOSC_ZSTD, 3, 8);
  cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE;
  b2rs_bloscpack_params p = B2RS_BLOSCPACK_PARAMS_DEFAULTS;
  p.cparams = &cp;
  p.chunk_size = 100000;
  p.checksum = B2RS_BLOSCPACK_CHECKSUM_SHA1;
  const char *meta = "{\"from\":\"file\"}";
  int64_t n = b2rs_bloscpack_pack_file_to_file(FILE_RAW, FILE_A, &p, meta, (int64_t)strlen(meta));
  CHECK_GT(n, 0);
  int64_t n2 = b2rs_bloscpack_pack_bytes_to_file(src, (int64_t)size, &p, meta,
                                                 (int64_t)strlen(meta), FILE_B);
  CHECK_EQ(n2, n);
  long la = 0, lb = 0;
  uint8_t *a = read_file(FILE_A, &la);
  uint8_t *b = read_file(FILE_B, &lb);
  CHECK_EQ(la, n);
  CHECK_EQ(lb, n);
  if (a && b && la == lb) CHECK_MEM(a, b, (size_t)la);
  uint8_t *mem = NULL;
  CHECK_EQ(b2rs_bloscpack_pack_bytes_to_bytes(src, (int64_t)size, &p, meta, (int64_t)strlen(meta),
                                              &mem),
           n);
  if (a && mem) CHECK_MEM(a, mem, (size_t)n);
  free(mem);
  free(a);
  free(b);

  CHECK_EQ(b2rs_bloscpack_unpack_file_from_file(FILE_A, FILE_OUT), (int64_t)size);
  long lo = 0;
  uint8_t *o = read_file(FILE_OUT, &lo);
  CHECK_EQ(lo, (long)size);
  if (o && lo == (long)size) CHECK_MEM(o, src, size);
  free(o);
  uint8_t *back = NULL;
  CHECK_EQ(b2rs_bloscpack_unpack_bytes_from_file(FILE_A, &back), (int64_t)size);
  if (back) CHECK_MEM(back, src, size);
  free(back);
  for (int64_t i = 3; i >= 0; i--) {
    uint8_t *c = NULL;
    int64_t k = b2rs_bloscpack_decompress_chunk_file(FILE_A, i, &c);
    CHECK_EQ(k, i == 3 ? 17 : 100000);
    if (k > 0) CHECK_MEM(c, src + i * 100000, (size_t)k);
    free(c);
  }
  uint8_t *c = NULL;
  CHECK_EQ(b2rs_bloscpack_decompress_chunk_file(FILE_A, 4, &c), BLOSC2_ERROR_INVALID_INDEX);
  CHECK_EQ(b2rs_bloscpack_decompress_chunk_file(FILE_A, -1, &c), BLOSC2_ERROR_INVALID_INDEX);
  /* an empty file */
  CHECK_EQ(write_file(FILE_RAW, src, 0), 0);
  CHECK_GT(b2rs_bloscpack_pack_file_to_file(FILE_RAW, FILE_B, NULL, NULL, 0), 0);
  back = NULL;
  CHECK_EQ(b2rs_bloscpack_unpack_bytes_from_file(FILE_B, &back), 0);
  CHECK(back != NULL);
  free(back);
  free(src);
  remove(FILE_A);
  remove(FILE_B);
  remove(FILE_RAW);
  remove(FILE_OUT);
}

static void test_append(void) {
  uint8_t src[12000];
  fill_mixed(src, sizeof(src), 5);
  b2rs_bloscpack_params p = B2RS_BLOSCPACK_PARAMS_DEFAULTS;
  p.chunk_size = 1000;
  p.max_app_chunks = 4;
  CHECK_GT(b2rs_bloscpack_pack_bytes_to_file(src, 2500, &p, NULL, 0, FILE_A), 0);
  /* 500 fill the last chunk, no new chunk */
  CHECK_EQ(b2rs_bloscpack_append_file(FILE_A, src + 2500, 500, NULL), 0);
  /* 2100 more: 3 new chunks */
  blosc2_cparams cp = cparams_nofilter(BLOSC_LZ4, 9, 4);
  cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_BITSHUFFLE;
  cp.nthreads = 2;
  CHECK_EQ(b2rs_bloscpack_append_file(FILE_A, src + 3000, 2100, &cp), 3);
  b2rs_bloscpack_info info;
  CHECK_EQ(b2rs_bloscpack_get_info_file(FILE_A, &info), 0);
  CHECK_EQ(info.nchunks, 6);
  CHECK_EQ(info.max_app_chunks, 1);
  CHECK_EQ(info.last_chunk, 100);
  CHECK_EQ(info.nbytes, 5100);
  /* 2000 more need 2 chunks, there is room for 1: refused, file unchanged */
  long l0 = 0, l1 = 0;
  uint8_t *before = read_file(FILE_A, &l0);
  CHECK_EQ(b2rs_bloscpack_append_file(FILE_A, src + 5100, 2000, NULL), BLOSC2_ERROR_CHUNK_APPEND);
  uint8_t *after = read_file(FILE_A, &l1);
  CHECK_EQ(l0, l1);
  if (before && after && l0 == l1) CHECK_MEM(before, after, (size_t)l0);
  free(before);
  free(after);
  CHECK_EQ(b2rs_bloscpack_append_file(FILE_A, src + 5100, 1900, NULL), 1);
  CHECK_EQ(b2rs_bloscpack_append_file(FILE_A, src + 7000, 0, NULL), 0);
  uint8_t *back = NULL;
  CHECK_EQ(b2rs_bloscpack_unpack_bytes_from_file(FILE_A, &back), 7000);
  if (back) CHECK_MEM(back, src, 7000);
  free(back);
  /* no offsets table: cannot append */
  p.offsets = false;
  CHECK_GT(b2rs_bloscpack_pack_bytes_to_file(src, 2500, &p, NULL, 0, FILE_B), 0);
  CHECK_EQ(b2rs_bloscpack_append_file(FILE_B, src, 10, NULL), BLOSC2_ERROR_INVALID_PARAM);
  uint8_t *chunk = NULL;
  CHECK_EQ(b2rs_bloscpack_decompress_chunk_file(FILE_B, 0, &chunk), BLOSC2_ERROR_INVALID_PARAM);
  remove(FILE_A);
  remove(FILE_B);
}

static void test_bad_params(void) {
  uint8_t src[100] = {0};
  uint8_t *d = NULL;
  b2rs_bloscpack_params p = B2RS_BLOSCPACK_PARAMS_DEFAULTS;
  CHECK_EQ(b2rs_bloscpack_pack_bytes_to_bytes(src, 100, &p, NULL, 0, NULL),
           BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(b2rs_bloscpack_pack_bytes_to_bytes(NULL, 100, &p, NULL, 0, &d),
           BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(b2rs_bloscpack_pack_bytes_to_bytes(src, -1, &p, NULL, 0, &d),
           BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(b2rs_bloscpack_pack_bytes_to_bytes(src, 100, &p, NULL, 5, &d),
           BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(b2rs_bloscpack_pack_bytes_to_file(src, 100, &p, NULL, 0, NULL),
           BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(b2rs_bloscpack_pack_bytes_to_file(src, 100, &p, NULL, 0, "/nonexistent/dir/x.blp"),
           BLOSC2_ERROR_FILE_OPEN);
  CHECK_EQ(b2rs_bloscpack_pack_file_to_file("/nonexistent/file", FILE_A, &p, NULL, 0),
           BLOSC2_ERROR_FILE_OPEN);
  p.checksum = 9;
  CHECK_EQ(b2rs_bloscpack_pack_bytes_to_bytes(src, 100, &p, NULL, 0, &d),
           BLOSC2_ERROR_INVALID_PARAM);
  p = B2RS_BLOSCPACK_PARAMS_DEFAULTS;
  p.meta_codec = 2;
  CHECK_EQ(b2rs_bloscpack_pack_bytes_to_bytes(src, 100, &p, "{}", 2, &d),
           BLOSC2_ERROR_INVALID_PARAM);
  p = B2RS_BLOSCPACK_PARAMS_DEFAULTS;
  p.chunk_size = 0;
  CHECK_EQ(b2rs_bloscpack_pack_bytes_to_bytes(src, 100, &p, NULL, 0, &d),
           BLOSC2_ERROR_INVALID_PARAM);
  p = B2RS_BLOSCPACK_PARAMS_DEFAULTS;
  p.max_app_chunks = -2;
  CHECK_EQ(b2rs_bloscpack_pack_bytes_to_bytes(src, 100, &p, NULL, 0, &d),
           BLOSC2_ERROR_INVALID_PARAM);
  p = B2RS_BLOSCPACK_PARAMS_DEFAULTS;
  p.max_meta_size = 1;
  CHECK_EQ(b2rs_bloscpack_pack_bytes_to_bytes(src, 100, &p, "{\"k\":1}", 7, &d),
           BLOSC2_ERROR_WRITE_BUFFER);
  /* Blosc parameters Blosc 1.x cannot read */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.filters[4] = BLOSC_DELTA;
  p = B2RS_BLOSCPACK_PARAMS_DEFAULTS;
  p.cparams = &cp;
  CHECK_EQ(b2rs_bloscpack_pack_bytes_to_bytes(src, 100, &p, NULL, 0, &d),
           BLOSC2_ERROR_INVALID_PARAM);
  cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 256;
  CHECK_EQ(b2rs_bloscpack_pack_bytes_to_bytes(src, 100, &p, NULL, 0, &d),
           BLOSC2_ERROR_INVALID_PARAM);
  cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = 32; /* NDLZ, a Blosc2 plugin codec */
  CHECK_EQ(b2rs_bloscpack_pack_bytes_to_bytes(src, 100, &p, NULL, 0, &d),
           BLOSC2_ERROR_INVALID_PARAM);
  CHECK(d == NULL);
  /* readers */
  b2rs_bloscpack_info info;
  char *m = NULL;
  CHECK_EQ(b2rs_bloscpack_unpack_bytes_from_bytes(src, 100, NULL), BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(b2rs_bloscpack_unpack_bytes_from_bytes(NULL, 100, &d), BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(b2rs_bloscpack_get_info(src, 100, NULL), BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(b2rs_bloscpack_get_metadata(src, 100, NULL), BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(b2rs_bloscpack_get_info_file(NULL, &info), BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(b2rs_bloscpack_get_info_file("/nonexistent/file.blp", &info), BLOSC2_ERROR_FILE_OPEN);
  CHECK_EQ(b2rs_bloscpack_unpack_bytes_from_file("/nonexistent/file.blp", &d),
           BLOSC2_ERROR_FILE_OPEN);
  CHECK_EQ(b2rs_bloscpack_unpack_file_from_file("/nonexistent/file.blp", FILE_OUT),
           BLOSC2_ERROR_FILE_OPEN);
  CHECK_EQ(b2rs_bloscpack_get_metadata_file("/nonexistent/file.blp", &m), BLOSC2_ERROR_FILE_OPEN);
  CHECK_EQ(b2rs_bloscpack_append_file("/nonexistent/file.blp", src, 1, NULL),
           BLOSC2_ERROR_FILE_OPEN);
  /* not a bloscpack file */
  CHECK_EQ(b2rs_bloscpack_unpack_bytes_from_bytes(src, 100, &d), BLOSC2_ERROR_INVALID_HEADER);
  CHECK_EQ(b2rs_bloscpack_get_info(src, 100, &info), BLOSC2_ERROR_INVALID_HEADER);
  CHECK(d == NULL && m == NULL);
}

static void test_corrupt_files(void) {
  uint8_t src[3000];
  fill_mixed(src, sizeof(src), 1);
  b2rs_bloscpack_params p = B2RS_BLOSCPACK_PARAMS_DEFAULTS;
  p.chunk_size = 1000;
  p.checksum = B2RS_BLOSCPACK_CHECKSUM_CRC32;
  uint8_t *f = NULL;
  const char *meta = "{\"k\":[1,2,3]}";
  int64_t n = b2rs_bloscpack_pack_bytes_to_bytes(src, sizeof(src), &p, meta, (int64_t)strlen(meta),
                                                 &f);
  CHECK_GT(n, 0);
  if (n <= 0) return;
  /* truncated at every position: an error, never a crash */
  for (int64_t cut = 0; cut < n; cut++) {
    uint8_t *d = NULL;
    int64_t r = b2rs_bloscpack_unpack_bytes_from_bytes(f, cut, &d);
    if (r >= 0) {
      T_FAIL_HDR();
      fprintf(stderr, "truncated at %lld: %lld\n", (long long)cut, (long long)r);
      t_failed++;
    }
    free(d);
  }
  uint8_t *d = NULL;
  CHECK_EQ(b2rs_bloscpack_unpack_bytes_from_bytes(f, 31, &d), BLOSC2_ERROR_READ_BUFFER);
  /* a flipped byte in each chunk: a checksum error */
  b2rs_bloscpack_info info;
  CHECK_EQ(b2rs_bloscpack_get_info(f, n, &info), 0);
  int64_t off0 = 32 + 32 + info.max_meta_size + 4 + 8 * (info.nchunks + info.max_app_chunks);
  uint8_t *g = malloc((size_t)n);
  memcpy(g, f, (size_t)n);
  g[off0 + 20] ^= 0x40;
  CHECK_EQ(b2rs_bloscpack_unpack_bytes_from_bytes(g, n, &d), BLOSC2_ERROR_DATA);
  CHECK_EQ(b2rs_bloscpack_decompress_chunk(g, n, 0, &d), BLOSC2_ERROR_DATA);
  uint8_t *c = NULL;
  CHECK_EQ(b2rs_bloscpack_decompress_chunk(g, n, 1, &c), 1000);
  free(c);
  /* a bad magic, version, offsets entry */
  memcpy(g, f, (size_t)n);
  g[0] = 'x';
  CHECK_EQ(b2rs_bloscpack_unpack_bytes_from_bytes(g, n, &d), BLOSC2_ERROR_INVALID_HEADER);
  memcpy(g, f, (size_t)n);
  g[4] = 9;
  CHECK_EQ(b2rs_bloscpack_unpack_bytes_from_bytes(g, n, &d), BLOSC2_ERROR_VERSION_SUPPORT);
  memcpy(g, f, (size_t)n);
  g[off0 - 8 * (info.nchunks + info.max_app_chunks) + 8] ^= 1;
  CHECK_EQ(b2rs_bloscpack_unpack_bytes_from_bytes(g, n, &d), BLOSC2_ERROR_INVALID_HEADER);
  /* random corruption: never a crash */
  t_seed(77);
  for (int it = 0; it < 2000; it++) {
    memcpy(g, f, (size_t)n);
    for (int k = 0; k < 3; k++) g[t_rand64() % (uint64_t)n] = (uint8_t)t_rand64();
    uint8_t *out = NULL;
    int64_t r = b2rs_bloscpack_unpack_bytes_from_bytes(g, n, &out);
    if (r >= 0) free(out);
    char *m = NULL;
    if (b2rs_bloscpack_get_metadata(g, n, &m) >= 0) free(m);
  }
  CHECK(d == NULL);
  free(g);
  free(f);
}

#endif /* B2RS_REFERENCE */

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
#ifndef B2RS_REFERENCE
  blosc2_init();
  RUN(test_defaults);
  RUN(test_roundtrip_memory);
  RUN(test_worked_example);
  RUN(test_metadata);
  RUN(test_files);
  RUN(test_append);
  RUN(test_bad_params);
  RUN(test_corrupt_files);
  blosc2_destroy();
#endif
  return TEST_SUMMARY();
}
