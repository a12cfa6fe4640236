/*
 * The reader of the salvage measurement (tests/salvage.rs), as a user with damaged files
 * would write it: each damaged copy is opened (blosc2_schunk_open, else
 * blosc2_schunk_from_buffer with copy = true) and every chunk decompressed and compared
 * with the undamaged source's.  Reads lines "ID SOURCE cut POS" (the source cut to POS bytes)
 * or "ID SOURCE flip POS MASK" (byte POS xored with MASK) from the file argv[1]; each copy is
 * written to argv[2]/ID.b2frame and read in a child process.  Prints per copy "ID 0" (not
 * opened), "ID 1 STATUS" with a letter per chunk of the source (I intact, W wrong content
 * with rc > 0, F failed, - missing), or "ID CRASH n" / "ID HANG".
 */
#include <blosc2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
  char name[4096];
  uint8_t *bytes;
  int64_t len;
  int64_t nchunks;
  int32_t *nbytes;
  uint8_t **data;
} source_t;

static source_t g_src;

static uint8_t *read_file(const char *path, int64_t *len);

static int load_source(const char *path) {
  if (strcmp(g_src.name, path) == 0) return 0;
  for (int64_t i = 0; i < g_src.nchunks; i++) free(g_src.data[i]);
  free(g_src.bytes);
  free(g_src.data);
  free(g_src.nbytes);
  memset(&g_src, 0, sizeof g_src);
  blosc2_schunk *sc = blosc2_schunk_open(path);
  if (sc == NULL) return -1;
  snprintf(g_src.name, sizeof g_src.name, "%s", path);
  g_src.nchunks = sc->nchunks;
  g_src.nbytes = calloc((size_t)sc->nchunks, sizeof(int32_t));
  g_src.data = calloc((size_t)sc->nchunks, sizeof(uint8_t *));
  for (int64_t i = 0; i < sc->nchunks; i++) {
    uint8_t *chunk;
    bool needs_free;
    int cb = blosc2_schunk_get_chunk(sc, i, &chunk, &needs_free);
    int32_t nbytes = 0;
    if (cb < 0 || blosc2_cbuffer_sizes(chunk, &nbytes, NULL, NULL) < 0) return -1;
    if (needs_free) free(chunk);
    g_src.nbytes[i] = nbytes;
    g_src.data[i] = malloc((size_t)nbytes + 1);
    if (blosc2_schunk_decompress_chunk(sc, i, g_src.data[i], nbytes) != nbytes) return -1;
  }
  blosc2_schunk_free(sc);
  g_src.bytes = read_file(path, &g_src.len);
  return g_src.bytes == NULL ? -1 : 0;
}

static uint8_t *read_file(const char *path, int64_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  *len = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc((size_t)*len + 1);
  if (fread(b, 1, (size_t)*len, f) != (size_t)*len) {
    free(b);
    b = NULL;
  }
  fclose(f);
  return b;
}

static void read_copy(const char *id, const char *copy) {
  blosc2_schunk *sc = blosc2_schunk_open(copy);
  uint8_t *buf = NULL;
  if (sc == NULL) {
    int64_t len = 0;
    buf = read_file(copy, &len);
    if (buf != NULL && len > 0) sc = blosc2_schunk_from_buffer(buf, len, true);
  }
  if (sc == NULL) {
    printf("%s 0\n", id);
    free(buf);
    return;
  }
  char *status = calloc((size_t)g_src.nchunks + 1, 1);
  int32_t most = 0;
  for (int64_t i = 0; i < g_src.nchunks; i++)
    if (g_src.nbytes[i] > most) most = g_src.nbytes[i];
  uint8_t *out = malloc((size_t)most + 1);
  for (int64_t i = 0; i < g_src.nchunks; i++) {
    if (i >= sc->nchunks) {
      status[i] = '-';
      continue;
    }
    int rc = blosc2_schunk_decompress_chunk(sc, i, out, g_src.nbytes[i]);
    if (rc == g_src.nbytes[i] && memcmp(out, g_src.data[i], (size_t)rc) == 0)
      status[i] = 'I';
    else if (rc > 0)
      status[i] = 'W';
    else
      status[i] = 'F';
  }
  printf("%s 1 %s\n", id, status);
  free(out);
  free(status);
  blosc2_schunk_free(sc);
  free(buf);
}

static int write_copy(const char *path, const char *kind, int64_t pos, int mask) {
  FILE *f = fopen(path, "wb");
  if (f == NULL) return -1;
  int64_t len = g_src.len;
  if (strcmp(kind, "cut") == 0 && pos < len) len = pos;
  uint8_t *b = malloc((size_t)g_src.len + 1);
  memcpy(b, g_src.bytes, (size_t)g_src.len);
  if (strcmp(kind, "flip") == 0 && pos < len) b[pos] ^= (uint8_t)mask;
  size_t w = fwrite(b, 1, (size_t)len, f);
  free(b);
  fclose(f);
  return w == (size_t)len ? 0 : -1;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s LIST DIR\n", argv[0]);
    return 2;
  }
  FILE *list = fopen(argv[1], "r");
  if (list == NULL) return 2;
  blosc2_init();
  char line[8192], id[256], src[4096], kind[16];
  while (fgets(line, sizeof line, list) != NULL) {
    long long pos = 0;
    int mask = 0;
    if (sscanf(line, "%255s %4095s %15s %lld %d", id, src, kind, &pos, &mask) < 4) continue;
    if (load_source(src) < 0) {
      fprintf(stderr, "cannot read the source %s\n", src);
      return 1;
    }
    char copy[8192];
    snprintf(copy, sizeof copy, "%s/%s.b2frame", argv[2], id);
    if (write_copy(copy, kind, pos, mask) < 0) {
      fprintf(stderr, "cannot write %s\n", copy);
      return 1;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      alarm(30);
      read_copy(id, copy);
      fflush(stdout);
      _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    if (WIFSIGNALED(st)) {
      if (WTERMSIG(st) == SIGALRM)
        printf("%s HANG\n", id);
      else
        printf("%s CRASH %d\n", id, WTERMSIG(st));
    }
    unlink(copy);
  }
  fclose(list);
  blosc2_destroy();
  return 0;
}
