/*
 * test_frame_share.c - blosc2_schunk_from_buffer(.., copy=false) reads the
 * caller's buffer in place and does not free it (C-Blosc2 sets
 * avoid_cframe_free); and the C struct mirrors (counters, metalayers,
 * vlmetalayers) follow the changes another handle made to a locked frame file
 * whenever an operation takes the lock.
 */
#include "b2rs_test.h"

#define N 5000

static void fill(int32_t *d, int seed) {
  for (int i = 0; i < N; i++) d[i] = seed * 100000 + i;
}

static blosc2_schunk *memory_frame(int nchunks) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = true, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  int32_t d[N];
  for (int i = 0; i < nchunks && sc; i++) {
    fill(d, i);
    blosc2_schunk_append_buffer(sc, d, sizeof d);
  }
  return sc;
}

/* The caller's buffer is used in place, lent back by to_buffer, and stays the
   caller's: freeing it after the super-chunk is no double free. */
static void test_from_buffer_lends(void) {
  blosc2_schunk *sc = memory_frame(4);
  CHECK(sc != NULL);
  if (!sc) return;
  uint8_t *cf;
  bool nf;
  int64_t len = blosc2_schunk_to_buffer(sc, &cf, &nf);
  CHECK_GT(len, 0);
  CHECK(!nf);
  uint8_t *mine = malloc((size_t)len);
  memcpy(mine, cf, (size_t)len);
  blosc2_schunk_free(sc);

  blosc2_schunk *s2 = blosc2_schunk_from_buffer(mine, len, false);
  CHECK(s2 != NULL);
  if (!s2) return;
  CHECK_EQ(s2->nchunks, 4);
  uint8_t *back;
  CHECK_EQ(blosc2_schunk_to_buffer(s2, &back, &nf), len);
  CHECK(back == mine);
  CHECK(!nf);
  CHECK_EQ(blosc2_schunk_frame_len(s2), len);
  int32_t d[N], o[N];
  for (int i = 0; i < 4; i++) {
    fill(d, i);
    CHECK_EQ(blosc2_schunk_decompress_chunk(s2, i, o, sizeof o), (int)sizeof o);
    CHECK_MEM(o, d, sizeof d);
  }
  /* A lazy chunk of a lent frame. */
  uint8_t *lazy;
  CHECK_GT(blosc2_schunk_get_lazychunk(s2, 1, &lazy, &nf), 0);
  if (nf) free(lazy);
  blosc2_schunk_free(s2);
  /* Still ours: readable and freed here. */
  CHECK_EQ(mine[0] != 0 || mine[1] != 0, true);
  free(mine);

  /* A bad buffer: NULL, and nothing freed. */
  uint8_t junk[200] = {0};
  CHECK(blosc2_schunk_from_buffer(junk, sizeof junk, false) == NULL);
}

/* b2rs copies a lent frame at its first change and never writes the caller's
   buffer. C-Blosc2 3.3.5 realloc()s the caller's buffer instead (so it must
   come from malloc, and the caller's pointer may dangle afterwards). */
static void test_from_buffer_copy_on_write(void) {
#ifndef B2RS_REFERENCE
  blosc2_schunk *sc = memory_frame(3);
  CHECK(sc != NULL);
  if (!sc) return;
  uint8_t *cf;
  bool nf;
  int64_t len = blosc2_schunk_to_buffer(sc, &cf, &nf);
  uint8_t *mine = malloc((size_t)len), *saved = malloc((size_t)len);
  memcpy(mine, cf, (size_t)len);
  memcpy(saved, cf, (size_t)len);
  blosc2_schunk_free(sc);

  blosc2_schunk *s2 = blosc2_schunk_from_buffer(mine, len, false);
  CHECK(s2 != NULL);
  if (!s2) return;
  int32_t d[N], o[N];
  fill(d, 3);
  CHECK_EQ(blosc2_schunk_append_buffer(s2, d, sizeof d), 4);
  CHECK_MEM(mine, saved, (size_t)len);
  uint8_t *back;
  int64_t len2 = blosc2_schunk_to_buffer(s2, &back, &nf);
  CHECK_GT(len2, len);
  CHECK(back != mine);
  for (int i = 0; i < 4; i++) {
    fill(d, i);
    CHECK_EQ(blosc2_schunk_decompress_chunk(s2, i, o, sizeof o), (int)sizeof o);
    CHECK_MEM(o, d, sizeof d);
  }
  /* Handing the buffer over: freed with the super-chunk. */
  blosc2_schunk_avoid_cframe_free(s2, false);
  blosc2_schunk_free(s2);
  free(saved);
#endif
}

static const char *tmp_path(const char *name) {
  static char p[256];
  snprintf(p, sizeof p, "/tmp/b2rs_test_share_%d_%s", (int)getpid(), name);
  return p;
}

/* Another handle adds a vlmetalayer and a chunk to a locked frame file; an
   append through this handle takes the lock, sees the change, and the C
   struct shows the other handle's vlmetalayer and counters. */
static void test_mirrors_follow_lock(void) {
  const char *path = tmp_path("mirror.b2frame");
  char lock[300];
  snprintf(lock, sizeof lock, "%s.b2lock", path);
  blosc2_remove_urlpath(path);
  remove(lock);
  blosc2_stdio_params sp = {.locking = true};
  blosc2_io io = BLOSC2_IO_DEFAULTS;
  io.params = &sp;
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_storage st = {.contiguous = true, .urlpath = (char *)path, .cparams = &cp, .io = &io};
  blosc2_schunk *a = blosc2_schunk_new(&st);
  CHECK(a != NULL);
  if (!a) return;
  CHECK_EQ(blosc2_meta_add(a, "m", (uint8_t *)"abc", 3), 0);
  blosc2_schunk *b = blosc2_schunk_open_offset_udio(path, 0, &io);
  CHECK(b != NULL);
  if (!b) return;
  CHECK_EQ(b->nmetalayers, 1);
  CHECK_EQ(b->nvlmetalayers, 0);
  int32_t d[N];
  fill(d, 0);
  CHECK_EQ(blosc2_schunk_append_buffer(a, d, sizeof d), 1);
  CHECK_EQ(blosc2_vlmeta_add(a, "v", (uint8_t *)"hi", 2, NULL), 0);
  CHECK_EQ(b->nchunks, 0);
  fill(d, 1);
  CHECK_EQ(blosc2_schunk_append_buffer(b, d, sizeof d), 2);
  CHECK_EQ(b->nchunks, 2);
  CHECK_EQ(b->nbytes, 2 * (int64_t)sizeof d);
  CHECK_EQ(b->nvlmetalayers, 1);
  if (b->nvlmetalayers == 1) CHECK_STR(b->vlmetalayers[0]->name, "v");
  CHECK_EQ(b->nmetalayers, 1);
  uint8_t *content;
  int32_t clen;
  CHECK_EQ(blosc2_meta_get(b, "m", &content, &clen), 0);
  if (clen == 3) {
    CHECK_MEM(content, "abc", 3);
    free(content);
  }
  /* And back: `a` sees `b`'s chunk when it appends. */
  fill(d, 2);
  CHECK_EQ(blosc2_schunk_append_buffer(a, d, sizeof d), 3);
  CHECK_EQ(a->nchunks, 3);
  CHECK_EQ(a->nbytes, b->nbytes + (int64_t)sizeof d);
  int32_t o[N];
  fill(d, 1);
  CHECK_EQ(blosc2_schunk_decompress_chunk(a, 1, o, sizeof o), (int)sizeof o);
  CHECK_MEM(o, d, sizeof d);
  blosc2_schunk_free(b);
  blosc2_schunk_free(a);
  blosc2_remove_urlpath(path);
  remove(lock);
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  blosc2_init();
  RUN(test_from_buffer_lends);
  RUN(test_from_buffer_copy_on_write);
  RUN(test_mirrors_follow_lock);
  blosc2_destroy();
  return TEST_SUMMARY();
}
