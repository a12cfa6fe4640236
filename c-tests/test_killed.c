/*
 * test_killed.c - a process appending to a frame on disk (contiguous file or
 * sparse directory) through the C API is SIGKILLed at random moments, several
 * rounds. After each kill the REFERENCE (python-blosc2, another process)
 * opens the frame and reads every chunk whose append had returned before the
 * kill (the child reports them through a pipe); then this library reopens the
 * frame and appends again, and the next round's child goes on from there.
 *
 * b2rs writes a new chunk so that a kill at any moment keeps every chunk
 * appended before (the header, which commits an append, is written after the
 * new offsets and trailer). C-Blosc2 3.3.5 overwrites the old offsets chunk
 * with the new chunk before writing the new header, so a kill inside
 * blosc2_schunk_append_buffer can leave a frame that does not open: built
 * against the reference (-DB2RS_REFERENCE) the child is killed only between
 * two appends (it waits for a go-ahead after each one), which is what the
 * reference guarantees.
 */
#include "b2rs_test.h"
#include "frame_check.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#define NITEMS 20000 /* int32 items per chunk: 80 KB, about 40 KB compressed */
#define ROUNDS 6

static char *tmp_path(const char *name) {
  static char p[256];
  snprintf(p, sizeof p, "/tmp/b2rs_test_killed_%d_%s", (int)getpid(), name);
  return p;
}

static void rm_rf(const char *path) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s.b2lock'", path, path);
  int rc = system(cmd);
  (void)rc;
}

/* The child: open the frame and append data chunks for ever, reporting the
   number of chunks after each append on `fd`. With `go >= 0`, it then waits
   for one byte on `go` before the next append. */
static void child_loop(const char *path, int fd, int go) {
  blosc2_init();
  blosc2_schunk *sc = blosc2_schunk_open(path);
  if (sc == NULL) _exit(10);
  int32_t *buf = malloc(NITEMS * sizeof(int32_t));
  for (;;) {
    int64_t n = sc->nchunks;
    fc_fill(buf, NITEMS, n);
    int64_t rc = blosc2_schunk_append_buffer(sc, buf, NITEMS * sizeof(int32_t));
    if (rc != n + 1) _exit(11);
    if (write(fd, &rc, sizeof rc) != sizeof rc) _exit(12);
    if (go >= 0) {
      char c;
      if (read(go, &c, 1) != 1) _exit(13);
    }
  }
}

/* Check with this library that chunks [0, upto) hold their data; chunks past
   it may hold anything (or fail to decode) but must not crash. Then drop
   them and append chunk `upto` again. Returns the number of chunks. */
static int64_t check_and_continue(const char *path, int64_t upto) {
  blosc2_schunk *sc = blosc2_schunk_open(path);
  CHECK(sc != NULL);
  if (sc == NULL) return -1;
  CHECK_GE(sc->nchunks, upto);
  int32_t *buf = malloc(NITEMS * sizeof(int32_t));
  int32_t *exp = malloc(NITEMS * sizeof(int32_t));
  for (int64_t i = 0; i < sc->nchunks; i++) {
    int rc = blosc2_schunk_decompress_chunk(sc, i, buf, NITEMS * sizeof(int32_t));
    fc_fill(exp, NITEMS, i);
    if (i < upto) {
      CHECK_EQ(rc, NITEMS * (int)sizeof(int32_t));
      CHECK(memcmp(buf, exp, sizeof(int32_t) * NITEMS) == 0);
    }
  }
  while (sc->nchunks > upto) {
    CHECK_EQ(blosc2_schunk_delete_chunk(sc, sc->nchunks - 1), sc->nchunks);
  }
  fc_fill(buf, NITEMS, upto);
  CHECK_EQ(blosc2_schunk_append_buffer(sc, buf, NITEMS * sizeof(int32_t)), upto + 1);
  int64_t n = sc->nchunks;
  blosc2_schunk_free(sc);
  free(buf);
  free(exp);
  return n;
}

static void killed_rounds(int contiguous) {
  const char *path = tmp_path(contiguous ? "k.b2frame" : "k.b2sframe");
  rm_rf(path);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.compcode = BLOSC_LZ4;
  cp.clevel = 5;
  cp.nthreads = 1;
  blosc2_storage st = {.contiguous = contiguous, .urlpath = (char *)path, .cparams = &cp};
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  CHECK(sc != NULL);
  if (sc == NULL) return;
  blosc2_schunk_free(sc);

  srand((unsigned)time(NULL) ^ (unsigned)getpid());
  int64_t done = 0; /* chunks known to be fully appended */
  for (int round = 0; round < ROUNDS; round++) {
    int fds[2], gofds[2] = {-1, -1};
    CHECK(pipe(fds) == 0);
#ifdef B2RS_REFERENCE
    CHECK(pipe(gofds) == 0);
#endif
    pid_t pid = t_fork();
    if (pid == 0) {
      close(fds[0]);
      if (gofds[1] >= 0) close(gofds[1]);
      child_loop(path, fds[1], gofds[0]);
    }
    close(fds[1]);
    if (gofds[0] >= 0) close(gofds[0]);
    int64_t reported = done;
#ifdef B2RS_REFERENCE
    /* Kill after a random number of appends, while the child waits. */
    int appends = 1 + rand() % 6;
    for (int k = 0; k < appends; k++) {
      int64_t v;
      if (read(fds[0], &v, sizeof v) != sizeof v) break;
      reported = v;
      if (k + 1 < appends && write(gofds[1], "g", 1) != 1) break;
    }
    kill(pid, SIGKILL);
#else
    /* Kill at a random moment: 2..60 ms after the start. */
    struct timespec ts = {0, (long)(2 + rand() % 58) * 1000000L};
    nanosleep(&ts, NULL);
    kill(pid, SIGKILL);
#endif
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    if (WIFEXITED(status)) fprintf(stderr, "child exited with %d\n", WEXITSTATUS(status));
    int64_t v;
    while (read(fds[0], &v, sizeof v) == sizeof v) reported = v;
    close(fds[0]);
    if (gofds[1] >= 0) close(gofds[1]);
    CHECK_GE(reported, done);

    /* The reference reads every chunk appended before the kill. */
    char *pattern = malloc((size_t)reported + 1);
    memset(pattern, 'd', (size_t)reported);
    pattern[reported] = '\0';
    CHECK(fc_reference_reads(path, NITEMS, pattern));
    free(pattern);

    /* This library reopens the frame and appends again. */
    int64_t n = check_and_continue(path, reported);
    CHECK_EQ(n, reported + 1);
    done = n;
    if (t_verbose()) fprintf(stderr, "round %d: %" PRId64 " chunks\n", round, done);
  }
  CHECK_GT(done, ROUNDS);
  rm_rf(path);
}

static void test_killed_cframe(void) { killed_rounds(1); }

static void test_killed_sframe(void) { killed_rounds(0); }

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  blosc2_init();
  RUN(test_killed_cframe);
  RUN(test_killed_sframe);
  blosc2_destroy();
  return TEST_SUMMARY();
}
