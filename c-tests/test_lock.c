/*
 * test_lock.c - opt-in file locking of disk-based frames (C-Blosc2 3.3.5):
 * blosc2_stdio_params.locking, the BLOSC_LOCKING environment variable, and
 * blosc2_schunk_lock / blosc2_schunk_unlock / blosc2_schunk_refresh.
 *
 * Checked: the sidecar lock file (`<name>.b2lock` next to a contiguous frame,
 * `.b2lock` inside a sparse frame directory): not made by creating a frame,
 * made (empty) by opening one, 16 bytes after the first write whose last 8
 * (little-endian) count the exclusive lock acquisitions; re-entrant lock
 * brackets; return codes; refresh returning 1 when another handle changed the
 * frame and 0 otherwise; a second process appending under the lock, seen by
 * the first after refresh (which waits for the writer's bracket to end).
 *
 * Not tested because the reference crashes: blosc2_schunk_lock(NULL).
 *
 * No reference bugs are compiled out here.
 */
#include "b2rs_test.h"

#include <blosc2/blosc2-stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#define N 100

static char t_paths[4][256];
static int t_next_path = 0;

static const char *tmp_path(const char *name) {
  char *p = t_paths[t_next_path++ % 4];
  snprintf(p, 256, "/tmp/b2rs_test_lock_%d_%s", (int)getpid(), name);
  return p;
}

/* Size of `path` (-1 when missing) and, for 16 bytes, the counter in `gen`. */
static long sidecar(const char *path, int64_t *gen) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  uint8_t b[32];
  size_t n = fread(b, 1, sizeof b, f);
  fclose(f);
  if (gen) {
    *gen = -1;
    if (n == 16) {
      int64_t g = 0;
      for (int i = 15; i >= 8; i--) g = (g << 8) | b[i];
      *gen = g;
      for (int i = 0; i < 8; i++)
        if (b[i] != 0) *gen = -2;
    }
  }
  return (long)n;
}

static void fill(int32_t *d, int32_t base) {
  for (int i = 0; i < N; i++) d[i] = base + i;
}

static blosc2_schunk *new_locked(const char *path, bool contiguous, blosc2_io *io) {
  blosc2_remove_urlpath(path);
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.contiguous = contiguous;
  st.urlpath = (char *)path;
  st.io = io;
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = sizeof(int32_t);
  st.cparams = &cp;
  return blosc2_schunk_new(&st);
}

static void check_sidecar_generations(bool contiguous) {
  const char *path = tmp_path(contiguous ? "gen.b2frame" : "gen.b2sframe");
  char lock[300];
  snprintf(lock, sizeof lock, contiguous ? "%s.b2lock" : "%s/.b2lock", path);
  remove(lock);
  blosc2_stdio_params sp = {.locking = true};
  blosc2_io io = BLOSC2_IO_DEFAULTS;
  io.params = &sp;
  blosc2_schunk *sc = new_locked(path, contiguous, &io);
  CHECK(sc != NULL);
  if (!sc) return;
  CHECK_EQ(sidecar(lock, NULL), -1); /* creating does not lock */

  int32_t d[N], o[N];
  fill(d, 0);
  int64_t g = 0;
  CHECK_EQ(blosc2_schunk_append_buffer(sc, d, sizeof d), 1);
  CHECK_EQ(sidecar(lock, &g), 16);
  CHECK_EQ(g, 1);

  /* A bracket: one exclusive acquisition, nested operations do not count. */
  CHECK_EQ(blosc2_schunk_lock(sc), 0);
  CHECK_EQ(blosc2_schunk_lock(sc), 0);
  CHECK_EQ(blosc2_schunk_append_buffer(sc, d, sizeof d), 2);
  CHECK_EQ(blosc2_schunk_append_buffer(sc, d, sizeof d), 3);
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 1, o, sizeof o), (int)sizeof o);
  sidecar(lock, &g);
  CHECK_EQ(g, 2);
  CHECK_EQ(blosc2_schunk_unlock(sc), 0);
  CHECK_EQ(blosc2_schunk_unlock(sc), 0);
  CHECK_EQ(blosc2_schunk_unlock(sc), 0); /* unbalanced: still 0 */
  sidecar(lock, &g);
  CHECK_EQ(g, 2);

  /* An empty bracket counts; reads do not. */
  CHECK_EQ(blosc2_schunk_lock(sc), 0);
  CHECK_EQ(blosc2_schunk_unlock(sc), 0);
  sidecar(lock, &g);
  CHECK_EQ(g, 3);
  CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 0, o, sizeof o), (int)sizeof o);
  CHECK_MEM(o, d, sizeof d);
  sidecar(lock, &g);
  CHECK_EQ(g, 3);

  CHECK_EQ(blosc2_vlmeta_add(sc, "x", (uint8_t *)"ab", 2, NULL), 0);
  sidecar(lock, &g);
  CHECK_EQ(g, 4);
  CHECK_EQ(blosc2_schunk_delete_chunk(sc, 0), 2);
  sidecar(lock, &g);
  CHECK_EQ(g, 5);
  CHECK_EQ(blosc2_schunk_refresh(sc), 0);
  blosc2_schunk_free(sc);
  blosc2_remove_urlpath(path);
  remove(lock);
}

static void test_sidecar_cframe(void) { check_sidecar_generations(true); }
static void test_sidecar_sframe(void) { check_sidecar_generations(false); }

/* Two handles in one process: refresh is 1 once after the other's change. */
static void check_refresh(bool locking) {
  const char *path = tmp_path(locking ? "refresh_l.b2frame" : "refresh_n.b2frame");
  char lock[300];
  snprintf(lock, sizeof lock, "%s.b2lock", path);
  remove(lock);
  blosc2_stdio_params sp = {.locking = locking};
  blosc2_io io = BLOSC2_IO_DEFAULTS;
  io.params = &sp;
  blosc2_schunk *w = new_locked(path, true, &io);
  CHECK(w != NULL);
  if (!w) return;
  int32_t d[N], o[N];
  fill(d, 7);
  CHECK_EQ(blosc2_schunk_append_buffer(w, d, sizeof d), 1);
  blosc2_schunk *r = blosc2_schunk_open_offset_udio(path, 0, &io);
  CHECK(r != NULL);
  if (!r) return;
  CHECK_EQ(r->nchunks, 1);
  CHECK_EQ(blosc2_schunk_refresh(r), 0);
  CHECK_EQ(blosc2_schunk_append_buffer(w, d, sizeof d), 2);
  CHECK_EQ(r->nchunks, 1);
  CHECK_EQ(blosc2_schunk_refresh(r), 1);
  CHECK_EQ(r->nchunks, 2);
  CHECK_EQ(r->nbytes, w->nbytes);
  CHECK_EQ(r->cbytes, w->cbytes);
  CHECK_EQ(blosc2_schunk_refresh(r), 0);
  CHECK_EQ(blosc2_schunk_refresh(w), 0);
  CHECK_EQ(blosc2_schunk_decompress_chunk(r, 1, o, sizeof o), (int)sizeof o);
  CHECK_MEM(o, d, sizeof d);
  /* Chunk access checks the number against the counters as they are; slices
     and vlmetalayers see the other handle's changes. */
  CHECK_EQ(blosc2_schunk_append_buffer(w, d, sizeof d), 3);
  CHECK_EQ(blosc2_vlmeta_add(w, "v", (uint8_t *)"hi", 2, NULL), 0);
  CHECK_LT(blosc2_schunk_decompress_chunk(r, 2, o, sizeof o), 0);
  CHECK_EQ(r->nchunks, 2);
  int32_t all[3 * N];
  CHECK_EQ(blosc2_schunk_get_slice_buffer(r, 0, 3 * N, all), 0);
  CHECK_EQ(r->nchunks, 3);
  CHECK_MEM(all + 2 * N, d, sizeof d);
  CHECK_EQ(blosc2_vlmeta_exists(r, "v"), 0);
  CHECK_EQ(r->nvlmetalayers, 1);
  CHECK_EQ(blosc2_schunk_refresh(r), 0);
  CHECK_EQ(blosc2_schunk_decompress_chunk(r, 2, o, sizeof o), (int)sizeof o);
  /* lock/unlock on a handle without locking: no-ops returning 0. */
  CHECK_EQ(blosc2_schunk_lock(r), 0);
  CHECK_EQ(blosc2_schunk_unlock(r), 0);
  CHECK_EQ(sidecar(lock, NULL), locking ? 16 : -1);
  blosc2_schunk_free(r);
  blosc2_schunk_free(w);
  blosc2_remove_urlpath(path);
  remove(lock);
}

static void test_refresh_locking(void) { check_refresh(true); }
static void test_refresh_nolocking(void) { check_refresh(false); }

static void test_memory(void) {
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  blosc2_schunk *m = blosc2_schunk_new(&st);
  CHECK(m != NULL);
  if (!m) return;
  CHECK_EQ(blosc2_schunk_lock(m), 0);
  CHECK_EQ(blosc2_schunk_refresh(m), 0);
  CHECK_EQ(blosc2_schunk_unlock(m), 0);
  blosc2_schunk_free(m);
}

static void test_env(void) {
  const char *path = tmp_path("env.b2frame");
  char lock[300];
  snprintf(lock, sizeof lock, "%s.b2lock", path);
  remove(lock);
  blosc2_schunk *sc = new_locked(path, true, NULL);
  CHECK(sc != NULL);
  if (!sc) return;
  int32_t d[N];
  fill(d, 3);
  CHECK_EQ(blosc2_schunk_append_buffer(sc, d, sizeof d), 1);
  blosc2_schunk_free(sc);
  CHECK_EQ(sidecar(lock, NULL), -1);

  setenv("BLOSC_LOCKING", "1", 1);
  sc = blosc2_schunk_open(path);
  CHECK(sc != NULL);
  if (!sc) return;
  CHECK_EQ(sidecar(lock, NULL), 0); /* opening reads under the lock */
  CHECK_EQ(blosc2_schunk_append_buffer(sc, d, sizeof d), 2);
  int64_t g = 0;
  CHECK_EQ(sidecar(lock, &g), 16);
  CHECK_EQ(g, 1);
  blosc2_schunk_free(sc);

  remove(lock);
  setenv("BLOSC_LOCKING", "0", 1);
  sc = blosc2_schunk_open(path);
  CHECK(sc != NULL);
  if (!sc) return;
  CHECK_EQ(blosc2_schunk_append_buffer(sc, d, sizeof d), 3);
  CHECK_EQ(sidecar(lock, NULL), -1);
  blosc2_schunk_free(sc);

  setenv("BLOSC_LOCKING", "", 1);
  sc = blosc2_schunk_open(path);
  CHECK(sc != NULL);
  if (!sc) return;
  CHECK_EQ(blosc2_schunk_append_buffer(sc, d, sizeof d), 4);
  CHECK_EQ(sidecar(lock, NULL), -1);
  blosc2_schunk_free(sc);
  unsetenv("BLOSC_LOCKING");
  blosc2_remove_urlpath(path);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/*
 * A child process takes the lock, tells the parent, waits, appends two chunks
 * and unlocks. The parent's refresh, issued while the child holds the lock,
 * waits for the bracket to end and then sees both chunks.
 */
static void check_two_processes(bool contiguous) {
  const char *path = tmp_path(contiguous ? "fork.b2frame" : "fork.b2sframe");
  blosc2_stdio_params sp = {.locking = true};
  blosc2_io io = BLOSC2_IO_DEFAULTS;
  io.params = &sp;
  blosc2_schunk *sc = new_locked(path, contiguous, &io);
  CHECK(sc != NULL);
  if (!sc) return;
  int32_t d[N], o[N];
  fill(d, 0);
  CHECK_EQ(blosc2_schunk_append_buffer(sc, d, sizeof d), 1);
  blosc2_schunk_free(sc);

  blosc2_schunk *r = blosc2_schunk_open_offset_udio(path, 0, &io);
  CHECK(r != NULL);
  if (!r) return;
  CHECK_EQ(r->nchunks, 1);

  int fds[2];
  CHECK_EQ(pipe(fds), 0);
  fflush(NULL);
  pid_t pid = t_fork();
  if (pid == 0) {
    close(fds[0]);
    blosc2_schunk *w = blosc2_schunk_open_offset_udio(path, 0, &io);
    int rc = 0;
    if (!w || blosc2_schunk_lock(w) != 0) rc = 1;
    char c = 'L';
    if (write(fds[1], &c, 1) != 1) rc = 2;
    struct timespec ts = {0, 300 * 1000 * 1000};
    nanosleep(&ts, NULL);
    int32_t e[N];
    fill(e, 1000);
    if (w && blosc2_schunk_append_buffer(w, e, sizeof e) != 2) rc = 3;
    fill(e, 2000);
    if (w && blosc2_schunk_append_buffer(w, e, sizeof e) != 3) rc = 4;
    if (w && blosc2_schunk_unlock(w) != 0) rc = 5;
    if (w) blosc2_schunk_free(w);
    blosc2_schunk_free(r); /* the parent's handle, inherited: not left behind (valgrind) */
    _exit(rc);
  }
  CHECK(pid > 0);
  if (pid <= 0) return;
  close(fds[1]);
  char c = 0;
  CHECK_EQ(read(fds[0], &c, 1), 1);
  close(fds[0]);
  double t0 = now();
  CHECK_EQ(blosc2_schunk_refresh(r), 1);
  CHECK_GT((long)((now() - t0) * 1000), 100); /* waited for the writer (ms) */
  CHECK_EQ(r->nchunks, 3);
  fill(d, 2000);
  CHECK_EQ(blosc2_schunk_decompress_chunk(r, 2, o, sizeof o), (int)sizeof o);
  CHECK_MEM(o, d, sizeof d);
  CHECK_EQ(blosc2_schunk_refresh(r), 0);
  int status = -1;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);

  /* The other way round: the parent writes, a child reader sees it. */
  CHECK_EQ(blosc2_schunk_append_buffer(r, d, sizeof d), 4);
  fflush(NULL);
  pid = t_fork();
  if (pid == 0) {
    blosc2_schunk *x = blosc2_schunk_open_offset_udio(path, 0, &io);
    int rc = x && x->nchunks == 4 && blosc2_schunk_refresh(x) == 0 ? 0 : 1;
    /* no handle left behind (valgrind checks the child's leaks) */
    if (x) blosc2_schunk_free(x);
    blosc2_schunk_free(r);
    _exit(rc);
  }
  CHECK(pid > 0);
  if (pid <= 0) return;
  CHECK_EQ(waitpid(pid, &status, 0), pid);
  CHECK(WIFEXITED(status));
  CHECK_EQ(WEXITSTATUS(status), 0);

  blosc2_schunk_free(r);
  blosc2_remove_urlpath(path);
  char lock[300];
  snprintf(lock, sizeof lock, "%s.b2lock", path);
  remove(lock);
}

static void test_two_processes_cframe(void) { check_two_processes(true); }
static void test_two_processes_sframe(void) { check_two_processes(false); }

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  blosc2_init();
  RUN(test_sidecar_cframe);
  RUN(test_sidecar_sframe);
  RUN(test_refresh_locking);
  RUN(test_refresh_nolocking);
  RUN(test_memory);
  RUN(test_env);
  RUN(test_two_processes_cframe);
  RUN(test_two_processes_sframe);
  blosc2_destroy();
  return TEST_SUMMARY();
}
