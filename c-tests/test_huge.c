/*
 * test_huge.c - a contiguous frame file larger than 4 GiB whose real chunks
 * lie past the 4 GiB mark, kept cheap on disk: the frame's chunks section
 * starts with a hole of 4 GiB + a bit (unreferenced bytes, which a frame may
 * hold, as after an update), followed by the chunks of a small frame made
 * through the API (zeros, data, uninit, data). Its offsets are moved past
 * 4 GiB and compressed into a new offsets chunk. The library opens it,
 * decodes every chunk, appends a data chunk and a zeros chunk (stored past
 * 4 GiB, with 64-bit offsets), reopens and decodes again; the REFERENCE
 * (python-blosc2, another process) reads the result too. Skipped loudly when
 * the filesystem of /tmp (or $B2RS_HUGE_DIR) has no sparse files.
 */
#include "b2rs_test.h"
#include "frame_check.h"

#include <fcntl.h>
#include <sys/stat.h>

#define NITEMS (256 * 1024) /* 1 MiB chunks */
#define GAP ((int64_t)4 * 1024 * 1024 * 1024 + 12345)

static uint32_t be32(const uint8_t *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static int64_t be64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = (v << 8) | p[i];
  return (int64_t)v;
}

static void put_be64(uint8_t *p, int64_t v) {
  for (int i = 7; i >= 0; i--) {
    p[i] = (uint8_t)(v & 0xFF);
    v = (int64_t)((uint64_t)v >> 8);
  }
}

static uint8_t *read_all(const char *path, int64_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  *len = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc((size_t)*len);
  if (fread(b, 1, (size_t)*len, f) != (size_t)*len) {
    free(b);
    b = NULL;
  }
  fclose(f);
  return b;
}

static int pwrite_all(int fd, const void *buf, size_t n, int64_t pos) {
  const uint8_t *p = buf;
  while (n > 0) {
    ssize_t w = pwrite(fd, p, n, (off_t)pos);
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
    pos += w;
  }
  return 0;
}

/* Check every chunk of `sc` against `pattern` ('z' zeros, 'u' anything,
   'd' data with the chunk's number as seed). */
static void check_chunks(blosc2_schunk *sc, const char *pattern) {
  CHECK_EQ(sc->nchunks, (int64_t)strlen(pattern));
  int32_t *buf = malloc(NITEMS * sizeof(int32_t));
  int32_t *exp = malloc(NITEMS * sizeof(int32_t));
  for (int64_t i = 0; i < sc->nchunks && pattern[i]; i++) {
    int rc = blosc2_schunk_decompress_chunk(sc, i, buf, NITEMS * sizeof(int32_t));
    CHECK_EQ(rc, NITEMS * (int)sizeof(int32_t));
    if (pattern[i] == 'z') {
      memset(exp, 0, NITEMS * sizeof(int32_t));
    } else if (pattern[i] == 'd') {
      fc_fill(exp, NITEMS, i);
    } else {
      continue;
    }
    CHECK(memcmp(buf, exp, NITEMS * sizeof(int32_t)) == 0);
  }
  free(buf);
  free(exp);
}

static int append_special(blosc2_schunk *sc, int uninit) {
  uint8_t chunk[BLOSC_EXTENDED_HEADER_LENGTH];
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  int rc = uninit ? blosc2_chunk_uninit(cp, NITEMS * 4, chunk, sizeof chunk)
                  : blosc2_chunk_zeros(cp, NITEMS * 4, chunk, sizeof chunk);
  if (rc < 0) return rc;
  return (int)blosc2_schunk_append_chunk(sc, chunk, true);
}

static int append_data(blosc2_schunk *sc) {
  int32_t *buf = malloc(NITEMS * sizeof(int32_t));
  fc_fill(buf, NITEMS, sc->nchunks);
  int rc = (int)blosc2_schunk_append_buffer(sc, buf, NITEMS * sizeof(int32_t));
  free(buf);
  return rc;
}

static void test_huge_frame(void) {
  const char *dir = getenv("B2RS_HUGE_DIR");
  char small[512], big[512];
  snprintf(small, sizeof small, "%s/b2rs_huge_%d_small.b2frame", dir ? dir : "/tmp",
           (int)getpid());
  snprintf(big, sizeof big, "%s/b2rs_huge_%d_big.b2frame", dir ? dir : "/tmp",
           (int)getpid());

  /* 1. A small frame through the API: zeros, data, uninit, data. */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.compcode = BLOSC_LZ4;
  cp.nthreads = 1;
  blosc2_storage st = {.contiguous = true, .urlpath = small, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  CHECK(sc != NULL);
  if (sc == NULL) return;
  CHECK_EQ(append_special(sc, 0), 1);
  CHECK_EQ(append_data(sc), 2);
  CHECK_EQ(append_special(sc, 1), 3);
  CHECK_EQ(append_data(sc), 4);
  int64_t *offs = blosc2_frame_get_offsets(sc);
  CHECK(offs != NULL);
  if (offs == NULL) return;
  blosc2_schunk_free(sc);

  /* 2. Move its chunks past a hole of GAP bytes. */
  int64_t len = 0;
  uint8_t *f = read_all(small, &len);
  CHECK(f != NULL);
  if (f == NULL) return;
  int64_t hl = be32(f + 11), cbytes = be64(f + 39), flen = be64(f + 16);
  CHECK_EQ(flen, len);
  int32_t off_cbytes;
  memcpy(&off_cbytes, f + hl + cbytes + 12, 4);
  int64_t tr_pos = hl + cbytes + off_cbytes, tr_len = flen - tr_pos;
  CHECK_GT(tr_len, 0);
  int64_t new_offs[4];
  for (int i = 0; i < 4; i++) new_offs[i] = offs[i] < 0 ? offs[i] : offs[i] + GAP;
  free(offs);
  CHECK(new_offs[1] > ((int64_t)1 << 32) && new_offs[3] > new_offs[1]);
  uint8_t coff[sizeof new_offs + BLOSC2_MAX_OVERHEAD];
  blosc2_cparams ocp = BLOSC2_CPARAMS_DEFAULTS;
  ocp.typesize = 8;
  blosc2_context *cctx = blosc2_create_cctx(ocp);
  int coff_len =
      blosc2_compress_ctx(cctx, new_offs, sizeof new_offs, coff, sizeof coff);
  blosc2_free_ctx(cctx);
  CHECK_GT(coff_len, 0);
  int64_t new_cbytes = GAP + cbytes;
  int64_t new_flen = hl + new_cbytes + coff_len + tr_len;
  put_be64(f + 16, new_flen);
  put_be64(f + 39, new_cbytes);
  unlink(big);
  int fd = open(big, O_CREAT | O_TRUNC | O_WRONLY, 0644);
  CHECK(fd >= 0);
  if (fd < 0) return;
  CHECK(pwrite_all(fd, f, (size_t)hl, 0) == 0);
  CHECK(pwrite_all(fd, f + hl, (size_t)cbytes, hl + GAP) == 0);
  CHECK(pwrite_all(fd, coff, (size_t)coff_len, hl + new_cbytes) == 0);
  CHECK(pwrite_all(fd, f + tr_pos, (size_t)tr_len, hl + new_cbytes + coff_len) == 0);
  close(fd);
  free(f);
  unlink(small);
  struct stat sb;
  CHECK(stat(big, &sb) == 0);
  CHECK_EQ((int64_t)sb.st_size, new_flen);
  if ((int64_t)sb.st_blocks * 512 > ((int64_t)1 << 30)) {
    fprintf(stderr, "SKIP: %s is not sparse (%lld bytes allocated): the > 4 GiB frame "
                    "test did NOT run\n",
            big, (long long)sb.st_blocks * 512);
    unlink(big);
    return;
  }

  /* 3. Open, decode, append past 4 GiB, reopen. */
  sc = blosc2_schunk_open(big);
  CHECK(sc != NULL);
  if (sc == NULL) {
    unlink(big);
    return;
  }
  CHECK_EQ(sc->cbytes > GAP, true);
  check_chunks(sc, "zdud");
  CHECK_EQ(append_data(sc), 5);
  CHECK_EQ(append_special(sc, 0), 6);
  CHECK_EQ(append_data(sc), 7);
  check_chunks(sc, "zduddzd");
  offs = blosc2_frame_get_offsets(sc);
  CHECK(offs != NULL);
  if (offs != NULL) {
    CHECK(offs[4] > GAP && offs[6] > offs[4]);
    CHECK(offs[5] < 0);
    free(offs);
  }
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_open(big);
  CHECK(sc != NULL);
  if (sc != NULL) {
    check_chunks(sc, "zduddzd");
    CHECK(blosc2_schunk_frame_len(sc) > GAP);
    blosc2_schunk_free(sc);
  }

  /* 4. The reference reads it all. */
  CHECK(fc_reference_reads(big, NITEMS, "zduddzd"));
  unlink(big);
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  blosc2_init();
  RUN(test_huge_frame);
  blosc2_destroy();
  return TEST_SUMMARY();
}
