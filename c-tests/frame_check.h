/*
 * frame_check.h - helpers shared by test_killed.c and test_huge.c: the
 * deterministic chunk contents, and the check of a frame on disk by the
 * REFERENCE (python-blosc2, in a separate process).
 */
#ifndef B2RS_FRAME_CHECK_H
#define B2RS_FRAME_CHECK_H

#include "b2rs_test.h"

/* Item j of data chunk `seed` (int32 items of which 16 bits vary: compresses
   about 2x). */
T_UNUSED static int32_t fc_item(int64_t seed, int64_t j) {
  uint64_t x = (uint64_t)seed * 1000003u + (uint64_t)j;
  x ^= x >> 7;
  x *= 0x9E3779B97F4A7C15ull;
  x ^= x >> 29;
  return (int32_t)(x & 0xFFFF);
}

T_UNUSED static void fc_fill(int32_t *buf, int64_t n, int64_t seed) {
  for (int64_t j = 0; j < n; j++) buf[j] = fc_item(seed, j);
}

/* The python side: argv = path, items per chunk, pattern; pattern char k
   says what chunk k holds: 'z' zeros, 'u' anything (uninit), 'd' data with
   seed k. The frame must have at least len(pattern) chunks. */
static const char *fc_script =
    "import sys\n"
    "import numpy as np\n"
    "import blosc2\n"
    "path, n, pattern = sys.argv[1], int(sys.argv[2]), sys.argv[3]\n"
    "sc = blosc2.open(path, mode='r')\n"
    "assert sc.nchunks >= len(pattern), (sc.nchunks, len(pattern))\n"
    "j = np.arange(n, dtype=np.uint64)\n"
    "for k, c in enumerate(pattern):\n"
    "    b = sc.decompress_chunk(k)\n"
    "    assert len(b) == 4 * n, (k, len(b))\n"
    "    if c == 'z':\n"
    "        assert b == bytes(4 * n), k\n"
    "    elif c == 'd':\n"
    "        x = np.uint64(k * 1000003) + j\n"
    "        x ^= x >> np.uint64(7)\n"
    "        x = x * np.uint64(0x9E3779B97F4A7C15)\n"
    "        x ^= x >> np.uint64(29)\n"
    "        exp = (x & np.uint64(0xFFFF)).astype('<u4').tobytes()\n"
    "        assert b == exp, k\n"
    "print('reference read', sc.nchunks, 'chunks of', path)\n";

/* 1: python-blosc2 is there; 0: not (a loud SKIP is printed once). */
T_UNUSED static int fc_python_ok(void) {
  static int ok = -1;
  if (ok < 0) {
    const char *py = getenv("B2RS_PYTHON");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s -c 'import blosc2, numpy' >/dev/null 2>&1",
             py ? py : "python3");
    ok = system(cmd) == 0;
    if (!ok)
      fprintf(stderr, "SKIP: python3 with blosc2 and numpy is missing: the frames "
                      "are NOT checked by the reference\n");
  }
  return ok;
}

/* Have the reference read chunks [0, strlen(pattern)) of the frame at
   `path` in another process; returns 1 when it did and they match (also when
   python-blosc2 is missing, after the SKIP message). */
T_UNUSED static int fc_reference_reads(const char *path, int64_t nitems,
                                       const char *pattern) {
  if (!fc_python_ok()) return 1;
  char script[256];
  snprintf(script, sizeof script, "/tmp/b2rs_frame_check_%d.py", (int)getpid());
  FILE *f = fopen(script, "w");
  if (f == NULL) return 0;
  fputs(fc_script, f);
  fclose(f);
  const char *py = getenv("B2RS_PYTHON");
  size_t len = strlen(pattern) + strlen(path) + 1024;
  char *cmd = malloc(len);
  snprintf(cmd, len, "%s %s '%s' %" PRId64 " '%s' >&2", py ? py : "python3", script,
           path, nitems, pattern);
  /* An empty pattern is passed as ''. */
  int rc = system(cmd);
  free(cmd);
  unlink(script);
  return rc == 0;
}

#endif
