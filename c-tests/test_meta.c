/*
 * test_meta.c - area 9 of API.md: metalayers and variable-length metalayers
 * of in-memory super-chunks.
 *
 * Functions covered: blosc2_meta_add, blosc2_meta_update, the header-inline
 * blosc2_meta_exists and blosc2_meta_get (which read schunk->nmetalayers
 * and schunk->metalayers[] directly), blosc2_vlmeta_add, blosc2_vlmeta_update,
 * blosc2_vlmeta_get, blosc2_vlmeta_exists, blosc2_vlmeta_delete,
 * blosc2_vlmeta_get_names; the struct fields metalayers[], nmetalayers,
 * vlmetalayers[], nvlmetalayers and change_tick; metalayers seen by a user
 * codec through cparams->schunk; blosc2_schunk_copy of metalayers.
 *
 * Behaviours learned from the reference (C-Blosc2 3.3.5):
 *   - an existing name: -12 for add; a missing one: -16 (NOT_FOUND);
 *     a name longer than 31 bytes: -12 for exists/get/update/delete;
 *   - meta_update overwrites the start of the content and keeps its length;
 *   - in-memory super-chunks accept metalayers after the first chunk;
 *   - vlmetalayers are stored compressed (NULL cparams: the defaults, i.e.
 *     BloscLZ, typesize 8); an empty one reads back as NULL, length 0;
 *   - vlmeta_delete shifts the array and returns how many are left;
 *   - change_tick grows by one with every successful change.
 *
 * Reference bugs compiled out with -DB2RS_REFERENCE (found by these tests):
 *   B2RS_REFERENCE_BUG_META_UPDATE_LONGER  a longer meta_update is ignored but
 *       returns the index (FRAME.md 7 names it; b2rs: -12).
 *   B2RS_REFERENCE_BUG_META_NAME_LEN  meta_add / vlmeta_add accept a 32-byte
 *       name that exists/get then refuse (b2rs: -12 at add).
 *   B2RS_REFERENCE_BUG_META_OVERFLOW  a 17th metalayer writes past the
 *       metalayers array (crash; b2rs: -12).
 *   B2RS_REFERENCE_BUG_VLMETA_NULL  vlmeta_exists / vlmeta_delete /
 *       vlmeta_get_names crash with a NULL schunk or name (b2rs: -12).
 */
#include "b2rs_test.h"

#ifdef B2RS_REFERENCE
#define B2RS_REFERENCE_BUG_META_UPDATE_LONGER 1
#define B2RS_REFERENCE_BUG_META_NAME_LEN 1
#define B2RS_REFERENCE_BUG_META_OVERFLOW 1
#define B2RS_REFERENCE_BUG_VLMETA_NULL 1
#endif

static blosc2_schunk *new_schunk(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  return blosc2_schunk_new(&st);
}

static const char NAME31[] = "0123456789012345678901234567890";
static const char NAME32[] = "01234567890123456789012345678901";

static void test_meta_add_get(void) {
  blosc2_schunk *sc = new_schunk();
  int64_t tick = sc->change_tick;
  uint8_t content[5] = {'h', 'e', 'l', 'l', 'o'};
  CHECK_EQ(blosc2_meta_add(sc, "m0", content, 5), 0);
  CHECK_EQ(sc->nmetalayers, 1);
  CHECK_EQ(sc->change_tick, tick + 1);
  CHECK(sc->metalayers[0] != NULL);
  CHECK_STR(sc->metalayers[0]->name, "m0");
  CHECK_EQ(sc->metalayers[0]->content_len, 5);
  CHECK(sc->metalayers[0]->content != content);
  CHECK_MEM(sc->metalayers[0]->content, "hello", 5);
  content[0] = 'X'; /* the content was copied */
  CHECK_MEM(sc->metalayers[0]->content, "hello", 5);
  CHECK_EQ(blosc2_meta_add(sc, "m0", content, 5), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(sc->change_tick, tick + 1);
  CHECK_EQ(blosc2_meta_add(sc, NAME31, content, 1), 1);
  CHECK_EQ(blosc2_meta_add(sc, "", content, 2), 2);
  CHECK_EQ(blosc2_meta_add(sc, "empty", NULL, 0), 3);
  CHECK_EQ(sc->nmetalayers, 4);
  CHECK_EQ(sc->metalayers[3]->content_len, 0);
  CHECK_EQ(sc->change_tick, tick + 4);
  /* the header-inline functions */
  CHECK_EQ(blosc2_meta_exists(sc, "m0"), 0);
  CHECK_EQ(blosc2_meta_exists(sc, NAME31), 1);
  CHECK_EQ(blosc2_meta_exists(sc, ""), 2);
  CHECK_EQ(blosc2_meta_exists(sc, "nope"), BLOSC2_ERROR_NOT_FOUND);
  CHECK_EQ(blosc2_meta_exists(sc, NAME32), BLOSC2_ERROR_INVALID_PARAM);
  uint8_t *got = NULL;
  int32_t len = -1;
  CHECK_EQ(blosc2_meta_get(sc, "m0", &got, &len), 0);
  CHECK_EQ(len, 5);
  if (got) CHECK_MEM(got, "hello", 5);
  free(got);
  CHECK_EQ(blosc2_meta_get(sc, "", &got, &len), 2);
  CHECK_EQ(len, 2);
  if (got) CHECK_MEM(got, "Xe", 2);
  free(got);
  got = (uint8_t *)1;
  CHECK_EQ(blosc2_meta_get(sc, "empty", &got, &len), 3);
  CHECK_EQ(len, 0);
  CHECK(got == NULL);
  CHECK_EQ(blosc2_meta_get(sc, "nope", &got, &len), BLOSC2_ERROR_NOT_FOUND);
  blosc2_schunk_free(sc);
}

static void test_meta_update(void) {
  blosc2_schunk *sc = new_schunk();
  CHECK_EQ(blosc2_meta_add(sc, "a", (uint8_t *)"hello", 5), 0);
  CHECK_EQ(blosc2_meta_add(sc, "b", (uint8_t *)"12345678", 8), 1);
  uint8_t *old_content = sc->metalayers[0]->content;
  int64_t tick = sc->change_tick;
  CHECK_EQ(blosc2_meta_update(sc, "a", (uint8_t *)"HEL", 3), 0);
  CHECK_EQ(sc->change_tick, tick + 1);
  CHECK_EQ(sc->metalayers[0]->content_len, 5);
  CHECK_MEM(sc->metalayers[0]->content, "HELlo", 5);
  CHECK(sc->metalayers[0]->content == old_content);
  CHECK_EQ(blosc2_meta_update(sc, "b", (uint8_t *)"abcdefgh", 8), 1);
  uint8_t *got;
  int32_t len;
  CHECK_EQ(blosc2_meta_get(sc, "b", &got, &len), 1);
  CHECK_EQ(len, 8);
  CHECK_MEM(got, "abcdefgh", 8);
  free(got);
  CHECK_EQ(blosc2_meta_update(sc, "nope", (uint8_t *)"x", 1), BLOSC2_ERROR_NOT_FOUND);
  CHECK_EQ(blosc2_meta_update(sc, "a", (uint8_t *)"x", -1), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_meta_update(sc, NAME32, (uint8_t *)"x", 1), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_meta_update(sc, "a", NULL, 0), 0);
  CHECK_MEM(sc->metalayers[0]->content, "HELlo", 5);
#ifndef B2RS_REFERENCE_BUG_META_UPDATE_LONGER
  tick = sc->change_tick;
  CHECK_EQ(blosc2_meta_update(sc, "a", (uint8_t *)"HELLO WORLD", 11), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(sc->change_tick, tick);
  CHECK_EQ(sc->metalayers[0]->content_len, 5);
  CHECK_MEM(sc->metalayers[0]->content, "HELlo", 5);
#endif
  blosc2_schunk_free(sc);
}

static void test_meta_limits(void) {
  blosc2_schunk *sc = new_schunk();
  char name[16];
  for (int i = 0; i < BLOSC2_MAX_METALAYERS; i++) {
    snprintf(name, sizeof(name), "m%d", i);
    uint8_t v = (uint8_t)i;
    CHECK_EQ(blosc2_meta_add(sc, name, &v, 1), i);
  }
  CHECK_EQ(sc->nmetalayers, BLOSC2_MAX_METALAYERS);
  for (int i = 0; i < BLOSC2_MAX_METALAYERS; i++) {
    snprintf(name, sizeof(name), "m%d", i);
    CHECK_EQ(blosc2_meta_exists(sc, name), i);
    CHECK_EQ(sc->metalayers[i]->content[0], i);
  }
#ifndef B2RS_REFERENCE_BUG_META_OVERFLOW
  CHECK_EQ(blosc2_meta_add(sc, "one too many", (uint8_t *)"x", 1), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(sc->nmetalayers, BLOSC2_MAX_METALAYERS);
#endif
  blosc2_schunk_free(sc);
#ifndef B2RS_REFERENCE_BUG_META_NAME_LEN
  sc = new_schunk();
  CHECK_EQ(blosc2_meta_add(sc, NAME32, (uint8_t *)"x", 1), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vlmeta_add(sc, NAME32, (uint8_t *)"x", 1, NULL), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(sc->nmetalayers, 0);
  CHECK_EQ(sc->nvlmetalayers, 0);
  blosc2_schunk_free(sc);
#endif
}

static void test_meta_bad_input(void) {
  blosc2_schunk *sc = new_schunk();
  CHECK_EQ(blosc2_meta_add(NULL, "m", (uint8_t *)"ab", 2), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_meta_add(sc, NULL, (uint8_t *)"ab", 2), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_meta_add(sc, "m", NULL, 2), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_meta_add(sc, "m", (uint8_t *)"ab", -1), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_meta_update(NULL, "m", (uint8_t *)"ab", 2), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_meta_update(sc, NULL, (uint8_t *)"ab", 2), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_meta_exists(NULL, "m"), BLOSC2_ERROR_INVALID_PARAM);
  uint8_t *c;
  int32_t cl;
  CHECK_EQ(blosc2_meta_get(NULL, "m", &c, &cl), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(sc->nmetalayers, 0);
  CHECK_EQ(blosc2_vlmeta_add(NULL, "m", (uint8_t *)"ab", 2, NULL), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vlmeta_add(sc, NULL, (uint8_t *)"ab", 2, NULL), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vlmeta_add(sc, "m", NULL, 2, NULL), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vlmeta_add(sc, "m", (uint8_t *)"ab", -1, NULL), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vlmeta_update(NULL, "m", (uint8_t *)"ab", 2, NULL), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vlmeta_get(NULL, "m", &c, &cl), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vlmeta_get(sc, NULL, &c, &cl), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(sc->nvlmetalayers, 0);
  CHECK_EQ(blosc2_vlmeta_get_names(sc, NULL), 0);
#ifndef B2RS_REFERENCE_BUG_VLMETA_NULL
  char *names[4];
  CHECK_EQ(blosc2_vlmeta_exists(NULL, "m"), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vlmeta_exists(sc, NULL), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vlmeta_delete(NULL, "m"), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vlmeta_delete(sc, NULL), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vlmeta_get_names(NULL, names), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vlmeta_update(sc, NULL, (uint8_t *)"ab", 2, NULL), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vlmeta_add(sc, "v", (uint8_t *)"ab", 2, NULL), 0);
  CHECK_EQ(blosc2_vlmeta_get_names(sc, NULL), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vlmeta_get(sc, "v", NULL, &cl), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vlmeta_get(sc, "v", &c, NULL), BLOSC2_ERROR_INVALID_PARAM);
#endif
  blosc2_schunk_free(sc);
}

/* in-memory super-chunks take metalayers at any time */
static void test_meta_after_chunks(void) {
  blosc2_schunk *sc = new_schunk();
  int32_t data[1000];
  for (int i = 0; i < 1000; i++) data[i] = i;
  CHECK_EQ(blosc2_meta_add(sc, "before", (uint8_t *)"1234", 4), 0);
  CHECK_EQ(blosc2_schunk_append_buffer(sc, data, sizeof(data)), 1);
  CHECK_EQ(blosc2_meta_add(sc, "after", (uint8_t *)"5678", 4), 1);
  CHECK_EQ(blosc2_meta_update(sc, "before", (uint8_t *)"abcd", 4), 0);
  CHECK_EQ(blosc2_vlmeta_add(sc, "vl", (uint8_t *)"xyz", 3, NULL), 0);
  CHECK_EQ(sc->nmetalayers, 2);
  CHECK_EQ(sc->nvlmetalayers, 1);
  CHECK_EQ(sc->nchunks, 1);
  int32_t out[1000];
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 0, out, sizeof(out)), (int)sizeof(out));
  CHECK_MEM(out, data, sizeof(data));
  blosc2_schunk_free(sc);
}

static void test_vlmeta(void) {
  blosc2_schunk *sc = new_schunk();
  int32_t data[1000];
  for (int i = 0; i < 1000; i++) data[i] = i;
  int64_t tick = sc->change_tick;
  /* NULL cparams: BloscLZ, typesize 8 */
  CHECK_EQ(blosc2_vlmeta_add(sc, "v0", (uint8_t *)data, sizeof(data), NULL), 0);
  CHECK_EQ(sc->nvlmetalayers, 1);
  CHECK_EQ(sc->change_tick, tick + 1);
  blosc2_metalayer *m = sc->vlmetalayers[0];
  CHECK_STR(m->name, "v0");
  CHECK_EQ(HDR_CBYTES(m->content), m->content_len);
  CHECK_EQ(HDR_NBYTES(m->content), (int)sizeof(data));
  CHECK_EQ(HDR_TYPESIZE(m->content), 8);
  CHECK_EQ(HDR_FORMAT(m->content), codec_format(BLOSC_BLOSCLZ));
  CHECK_LT(m->content_len, (int)sizeof(data));
  /* given cparams */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = BLOSC_ZSTD;
  cp.typesize = 4;
  CHECK_EQ(blosc2_vlmeta_add(sc, "v1", (uint8_t *)data, sizeof(data), &cp), 1);
  m = sc->vlmetalayers[1];
  CHECK_EQ(HDR_TYPESIZE(m->content), 4);
  CHECK_EQ(HDR_FORMAT(m->content), codec_format(BLOSC_ZSTD));
  CHECK_EQ(blosc2_vlmeta_add(sc, "v2", (uint8_t *)"abc", 3, NULL), 2);
  CHECK_EQ(sc->vlmetalayers[2]->content_len, 32 + 3);
  CHECK_EQ(blosc2_vlmeta_add(sc, "v3", (uint8_t *)"abc", 0, NULL), 3);
  CHECK_EQ(sc->vlmetalayers[3]->content_len, 32);
  CHECK_EQ(blosc2_vlmeta_add(sc, "v0", (uint8_t *)"abc", 3, NULL), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(sc->nvlmetalayers, 4);
  CHECK_EQ(sc->change_tick, tick + 4);
  /* exists */
  CHECK_EQ(blosc2_vlmeta_exists(sc, "v0"), 0);
  CHECK_EQ(blosc2_vlmeta_exists(sc, "v3"), 3);
  CHECK_EQ(blosc2_vlmeta_exists(sc, "nope"), BLOSC2_ERROR_NOT_FOUND);
  CHECK_EQ(blosc2_vlmeta_exists(sc, NAME32), BLOSC2_ERROR_INVALID_PARAM);
  /* get */
  uint8_t *c = NULL;
  int32_t cl = -1;
  CHECK_EQ(blosc2_vlmeta_get(sc, "v1", &c, &cl), 1);
  CHECK_EQ(cl, (int)sizeof(data));
  if (c) CHECK_MEM(c, data, sizeof(data));
  free(c);
  c = (uint8_t *)1;
  CHECK_EQ(blosc2_vlmeta_get(sc, "v3", &c, &cl), 3);
  CHECK_EQ(cl, 0);
  CHECK(c == NULL);
  CHECK_EQ(blosc2_vlmeta_get(sc, "nope", &c, &cl), BLOSC2_ERROR_NOT_FOUND);
  CHECK_EQ(blosc2_vlmeta_get(sc, NAME32, &c, &cl), BLOSC2_ERROR_INVALID_PARAM);
  /* update: any size */
  tick = sc->change_tick;
  CHECK_EQ(blosc2_vlmeta_update(sc, "v2", (uint8_t *)data, sizeof(data), &cp), 2);
  CHECK_EQ(sc->change_tick, tick + 1);
  CHECK_EQ(HDR_NBYTES(sc->vlmetalayers[2]->content), (int)sizeof(data));
  CHECK_EQ(HDR_CBYTES(sc->vlmetalayers[2]->content), sc->vlmetalayers[2]->content_len);
  CHECK_EQ(blosc2_vlmeta_get(sc, "v2", &c, &cl), 2);
  CHECK_EQ(cl, (int)sizeof(data));
  if (c) CHECK_MEM(c, data, sizeof(data));
  free(c);
  CHECK_EQ(blosc2_vlmeta_update(sc, "v1", (uint8_t *)"z", 1, NULL), 1);
  CHECK_EQ(blosc2_vlmeta_get(sc, "v1", &c, &cl), 1);
  CHECK_EQ(cl, 1);
  if (c) CHECK_EQ(c[0], 'z');
  free(c);
  CHECK_EQ(blosc2_vlmeta_update(sc, "nope", (uint8_t *)"z", 1, NULL), BLOSC2_ERROR_NOT_FOUND);
  CHECK_EQ(sc->change_tick, tick + 2);
  /* names point into the super-chunk */
  char *names[8];
  CHECK_EQ(blosc2_vlmeta_get_names(sc, names), 4);
  for (int i = 0; i < 4; i++) CHECK(names[i] == sc->vlmetalayers[i]->name);
  CHECK_STR(names[0], "v0");
  CHECK_STR(names[3], "v3");
  /* delete shifts the others down */
  blosc2_metalayer *m2 = sc->vlmetalayers[2];
  CHECK_EQ(blosc2_vlmeta_delete(sc, "v1"), 3);
  CHECK_EQ(blosc2_vlmeta_delete(sc, "v1"), BLOSC2_ERROR_NOT_FOUND);
  CHECK_EQ(sc->nvlmetalayers, 3);
  CHECK(sc->vlmetalayers[1] == m2);
  CHECK_STR(sc->vlmetalayers[0]->name, "v0");
  CHECK_STR(sc->vlmetalayers[1]->name, "v2");
  CHECK_STR(sc->vlmetalayers[2]->name, "v3");
  CHECK_EQ(blosc2_vlmeta_exists(sc, "v3"), 2);
  CHECK_EQ(blosc2_vlmeta_get_names(sc, names), 3);
  CHECK_STR(names[1], "v2");
  CHECK_EQ(sc->change_tick, tick + 3);
  CHECK_EQ(blosc2_vlmeta_delete(sc, "v0"), 2);
  CHECK_EQ(blosc2_vlmeta_delete(sc, "v3"), 1);
  CHECK_EQ(blosc2_vlmeta_delete(sc, "v2"), 0);
  CHECK_EQ(sc->nvlmetalayers, 0);
  CHECK_EQ(blosc2_vlmeta_get_names(sc, names), 0);
  /* and add again */
  CHECK_EQ(blosc2_vlmeta_add(sc, "v1", (uint8_t *)"again", 5, NULL), 0);
  CHECK_EQ(blosc2_vlmeta_get(sc, "v1", &c, &cl), 0);
  CHECK_EQ(cl, 5);
  if (c) CHECK_MEM(c, "again", 5);
  free(c);
  blosc2_schunk_free(sc);
}

/* more variable-length metalayers than a frame could hold (memory only) */
static void test_vlmeta_many(void) {
  blosc2_schunk *sc = new_schunk();
  char name[32];
  for (int i = 0; i < 100; i++) {
    snprintf(name, sizeof(name), "vl%03d", i);
    int32_t v = i * 1000;
    CHECK_EQ(blosc2_vlmeta_add(sc, name, (uint8_t *)&v, 4, NULL), i);
  }
  CHECK_EQ(sc->nvlmetalayers, 100);
  for (int i = 99; i >= 0; i -= 7) {
    snprintf(name, sizeof(name), "vl%03d", i);
    uint8_t *c = NULL;
    int32_t cl = 0;
    CHECK_EQ(blosc2_vlmeta_get(sc, name, &c, &cl), i);
    CHECK_EQ(cl, 4);
    if (c) CHECK_EQ(rd_i32(c), i * 1000);
    free(c);
  }
  for (int i = 0; i < 100; i += 2) {
    snprintf(name, sizeof(name), "vl%03d", i);
    CHECK_EQ(blosc2_vlmeta_delete(sc, name), 99 - i / 2);
  }
  CHECK_EQ(sc->nvlmetalayers, 50);
  CHECK_STR(sc->vlmetalayers[0]->name, "vl001");
  CHECK_STR(sc->vlmetalayers[49]->name, "vl099");
  blosc2_schunk_free(sc);
}

/* a user codec finds the super-chunk (and its metalayers) in cparams->schunk */
static int g_seen_meta = -1;
static void *g_seen_schunk = NULL;

static int meta_encoder(const uint8_t *input, int32_t input_len, uint8_t *output, int32_t output_len,
                        uint8_t meta, blosc2_cparams *cparams, const void *chunk) {
  (void)meta;
  (void)chunk;
  g_seen_schunk = cparams->schunk;
  blosc2_schunk *sc = (blosc2_schunk *)cparams->schunk;
  if (sc != NULL) {
    uint8_t *c = NULL;
    int32_t cl = 0;
    if (blosc2_meta_get(sc, "codecmeta", &c, &cl) >= 0 && cl == 1) {
      g_seen_meta = c[0];
    }
    free(c);
  }
  if (output_len < input_len) return 0;
  memcpy(output, input, (size_t)input_len);
  return input_len;
}

static int meta_decoder(const uint8_t *input, int32_t input_len, uint8_t *output, int32_t output_len,
                        uint8_t meta, blosc2_dparams *dparams, const void *chunk) {
  (void)meta;
  (void)dparams;
  (void)chunk;
  if (output_len < input_len) return BLOSC2_ERROR_WRITE_BUFFER;
  memcpy(output, input, (size_t)input_len);
  return input_len;
}

static void test_codec_sees_schunk(void) {
  blosc2_codec codec;
  memset(&codec, 0, sizeof(codec));
  codec.compcode = 201;
  codec.compname = "metacodec";
  codec.complib = 201;
  codec.version = 1;
  codec.encoder = meta_encoder;
  codec.decoder = meta_decoder;
  CHECK_EQ(blosc2_register_codec(&codec), 0);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.compcode = 201;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  uint8_t v = 42;
  CHECK_EQ(blosc2_meta_add(sc, "codecmeta", &v, 1), 0);
  int32_t data[1000];
  for (int i = 0; i < 1000; i++) data[i] = i % 10;
  CHECK_EQ(blosc2_schunk_append_buffer(sc, data, sizeof(data)), 1);
  CHECK(g_seen_schunk == sc);
  CHECK_EQ(g_seen_meta, 42);
  int32_t out[1000];
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 0, out, sizeof(out)), (int)sizeof(out));
  CHECK_MEM(out, data, sizeof(data));
  blosc2_schunk_free(sc);
}

static void test_copy_meta(void) {
  blosc2_schunk *sc = new_schunk();
  for (int i = 0; i < 3; i++) {
    char name[8];
    snprintf(name, sizeof(name), "m%d", i);
    uint8_t v[3] = {(uint8_t)i, 1, 2};
    CHECK_EQ(blosc2_meta_add(sc, name, v, 3), i);
    snprintf(name, sizeof(name), "v%d", i);
    CHECK_EQ(blosc2_vlmeta_add(sc, name, v, 3, NULL), i);
  }
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  st.cparams = &cp;
  blosc2_schunk *c = blosc2_schunk_copy(sc, &st);
  CHECK(c != NULL);
  if (c) {
    CHECK_EQ(c->nmetalayers, 3);
    CHECK_EQ(c->nvlmetalayers, 3);
    for (int i = 0; i < 3; i++) {
      CHECK(c->metalayers[i] != sc->metalayers[i]);
      CHECK_STR(c->metalayers[i]->name, sc->metalayers[i]->name);
      CHECK_EQ(c->metalayers[i]->content_len, 3);
      CHECK_MEM(c->metalayers[i]->content, sc->metalayers[i]->content, 3);
      CHECK_STR(c->vlmetalayers[i]->name, sc->vlmetalayers[i]->name);
      uint8_t *got = NULL;
      int32_t len = 0;
      CHECK_EQ(blosc2_vlmeta_get(c, c->vlmetalayers[i]->name, &got, &len), i);
      CHECK_EQ(len, 3);
      if (got) CHECK_EQ(got[0], i);
      free(got);
    }
    /* independent copies */
    CHECK_EQ(blosc2_vlmeta_delete(c, "v0"), 2);
    CHECK_EQ(sc->nvlmetalayers, 3);
    blosc2_schunk_free(c);
  }
  blosc2_schunk_free(sc);
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  blosc2_init();
  RUN(test_meta_add_get);
  RUN(test_meta_update);
  RUN(test_meta_limits);
  RUN(test_meta_bad_input);
  RUN(test_meta_after_chunks);
  RUN(test_vlmeta);
  RUN(test_vlmeta_many);
  RUN(test_codec_sees_schunk);
  RUN(test_copy_meta);
  blosc2_destroy();
  return TEST_SUMMARY();
}
