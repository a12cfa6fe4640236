/*
 * test_checksums.c - b2rs's opt-in chunk checksums from C (include/b2rs.h):
 * b2rs_schunk_enable_checksums, b2rs_schunk_has_checksums,
 * b2rs_schunk_verify_chunk. The checksums stay current through the C chunk
 * calls, the C mirror of the "b2rs_crc32c" vlmetalayer follows them, and a
 * byte flipped inside a chunk that still decodes is reported.
 *
 * The reference C-Blosc2 has no such functions: built with -DB2RS_REFERENCE
 * the program runs no test and prints "test_checksums: 0 passed, 0 failed".
 * tests/checksums.rs checks that the reference reads such frames unchanged.
 */
#include "b2rs_test.h"

#ifndef B2RS_REFERENCE
#include <b2rs.h>
#include <string.h>

#define N 1000

static blosc2_schunk *new_schunk(void) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.clevel = 0; /* memcpyed chunks: any flipped data byte still decodes */
  blosc2_storage st = {.contiguous = true, .cparams = &cp};
  return blosc2_schunk_new(&st);
}

static void append(blosc2_schunk *sc, int32_t seed) {
  int32_t d[N];
  for (int i = 0; i < N; i++) d[i] = seed * 7919 + i;
  CHECK_GE(blosc2_schunk_append_buffer(sc, d, sizeof d), 0);
}

static void all_intact(blosc2_schunk *sc) {
  for (int64_t n = 0; n < sc->nchunks; n++) CHECK_EQ(b2rs_schunk_verify_chunk(sc, n), 1);
}

/* The C mirror of the vlmetalayer holds what blosc2_vlmeta_get gives. */
static void mirror_current(blosc2_schunk *sc) {
  int i = blosc2_vlmeta_exists(sc, "b2rs_crc32c");
  CHECK_GE(i, 0);
  uint8_t *content = NULL;
  int32_t len = 0;
  CHECK_GE(blosc2_vlmeta_get(sc, "b2rs_crc32c", &content, &len), 0);
  /* {"version": 1, "crc32c": bin}: the bin holds 4 bytes per chunk at the end */
  CHECK_GE(len, 4 * (int32_t)sc->nchunks);
  uint8_t *mirror = malloc((size_t)len);
  CHECK_EQ(blosc2_decompress(sc->vlmetalayers[i]->content, sc->vlmetalayers[i]->content_len,
                             mirror, len),
           len);
  CHECK(memcmp(mirror, content, (size_t)len) == 0);
  free(mirror);
  free(content);
}

static void test_kept_current(void) {
  blosc2_schunk *sc = new_schunk();
  for (int s = 0; s < 3; s++) append(sc, s);
  CHECK_EQ(b2rs_schunk_has_checksums(sc), 0);
  CHECK_EQ(b2rs_schunk_verify_chunk(sc, 0), 0);
  CHECK_EQ(b2rs_schunk_enable_checksums(sc), 1);
  CHECK_EQ(b2rs_schunk_enable_checksums(sc), 0);
  CHECK_EQ(b2rs_schunk_has_checksums(sc), 1);
  all_intact(sc);
  mirror_current(sc);
  append(sc, 3);
  CHECK_GE(blosc2_schunk_delete_chunk(sc, 0), 0);
  uint8_t *chunk = NULL;
  bool needs_free = false;
  CHECK_GE(blosc2_schunk_get_chunk(sc, 2, &chunk, &needs_free), 0);
  CHECK_GE(blosc2_schunk_insert_chunk(sc, 0, chunk, true), 0);
  if (needs_free) free(chunk);
  CHECK_EQ(sc->nchunks, 4);
  all_intact(sc);
  mirror_current(sc);
  CHECK_EQ(b2rs_schunk_verify_chunk(sc, 4), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(b2rs_schunk_verify_chunk(sc, -1), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_LT(b2rs_schunk_verify_chunk(NULL, 0), 0);
  CHECK_LT(b2rs_schunk_enable_checksums(NULL), 0);
  CHECK_LT(b2rs_schunk_has_checksums(NULL), 0);
  blosc2_schunk_free(sc);
}

static void test_flipped_byte(void) {
  blosc2_schunk *sc = new_schunk();
  for (int s = 0; s < 4; s++) append(sc, s);
  CHECK_EQ(b2rs_schunk_enable_checksums(sc), 1);
  uint8_t *chunk = NULL;
  bool needs_free = false;
  int cb = blosc2_schunk_get_chunk(sc, 2, &chunk, &needs_free);
  CHECK_GT(cb, 0);
  uint8_t *copy = malloc((size_t)cb);
  memcpy(copy, chunk, (size_t)cb);
  if (needs_free) free(chunk);
  uint8_t *cframe = NULL;
  bool cframe_free = false;
  int64_t len = blosc2_schunk_to_buffer(sc, &cframe, &cframe_free);
  CHECK_GT(len, 0);
  uint8_t *buf = malloc((size_t)len);
  memcpy(buf, cframe, (size_t)len);
  if (cframe_free) free(cframe);
  uint8_t *at = NULL;
  for (int64_t i = 0; i + cb <= len && at == NULL; i++)
    if (memcmp(buf + i, copy, (size_t)cb) == 0) at = buf + i;
  CHECK(at != NULL);
  at[cb - 5] ^= 0x40; /* a data byte of the memcpyed chunk */
  blosc2_schunk *back = blosc2_schunk_from_buffer(buf, len, true);
  CHECK(back != NULL);
  int32_t out[N];
  CHECK_EQ(blosc2_schunk_decompress_chunk(back, 2, out, sizeof out), (int)sizeof out);
  CHECK_EQ(b2rs_schunk_verify_chunk(back, 0), 1);
  CHECK_EQ(b2rs_schunk_verify_chunk(back, 2), BLOSC2_ERROR_DATA);
  CHECK_EQ(b2rs_schunk_verify_chunk(back, 3), 1);
  blosc2_schunk_free(back);
  free(buf);
  free(copy);
  blosc2_schunk_free(sc);
}

#endif /* B2RS_REFERENCE */

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
#ifndef B2RS_REFERENCE
  blosc2_init();
  RUN(test_kept_current);
  RUN(test_flipped_byte);
  blosc2_destroy();
#endif
  return TEST_SUMMARY();
}
