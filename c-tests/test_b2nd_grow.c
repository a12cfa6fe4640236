/*
 * test_b2nd_grow.c - B2ND arrays that grow and change shape: b2nd_resize
 * (at the end and at chunk-aligned positions, growing and shrinking),
 * b2nd_insert, b2nd_append, b2nd_delete and b2nd_set_slice_cbuffer in
 * pseudo-random sequences, for ndim 1 to 8, on every storage kind (memory
 * sparse and contiguous, file, sparse directory, frame at an offset of a
 * file), compared
 * after every step with what the reference (C-Blosc2 3.3.5) gives: the
 * return code and a hash of the whole content (golden values recorded from
 * the reference with B2RS_GROW_RECORD=1, which prints the table).
 *
 * What the reference does (and the golden values pin down):
 *   - a dimension that grows inside an old edge chunk shows what that
 *     chunk's padding held: zeros when the chunk was written whole,
 *     the fill value after b2nd_full, and the old items after a shrink
 *     that left them in the padding; items in new chunks are zeros;
 *   - shrinking deletes the chunks that lie wholly in the removed range and
 *     keeps the edge chunks as they are.
 */
#include "b2rs_test.h"
#include "b2nd.h"

#include <sys/resource.h>
#include <sys/stat.h>

#define NSEQ 12
#define NSTEPS 14

static uint64_t fnv(const void *p, size_t n, uint64_t h) {
  const uint8_t *b = p;
  for (size_t i = 0; i < n; i++) {
    h ^= b[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

static uint64_t g_rng;
static uint32_t rnd(uint32_t n) {
  g_rng = g_rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)((g_rng >> 33) % (n ? n : 1));
}

/* The geometry of sequence `seq`: ndim 1..8, small chunk and block shapes. */
static int8_t geometry(int seq, int64_t *shape, int32_t *cs, int32_t *bs) {
  int8_t ndim = (int8_t)(seq % 8 + 1);
  g_rng = 0x9e3779b97f4a7c15ULL * (uint64_t)(seq + 1);
  for (int i = 0; i < ndim; i++) {
    int big = ndim <= 2 ? 12 : ndim <= 4 ? 5 : 3;
    cs[i] = (int32_t)(1 + rnd(ndim <= 2 ? 5 : 3));
    bs[i] = (int32_t)(1 + rnd((uint32_t)cs[i]));
    shape[i] = (int64_t)rnd((uint32_t)big) + (seq % 5 == 4 && i == 0 ? 0 : 1);
  }
  return ndim;
}

static int64_t nitems_of(int8_t ndim, const int64_t *shape) {
  int64_t n = 1;
  for (int i = 0; i < ndim; i++) n *= shape[i];
  return n;
}

static uint64_t content_hash(b2nd_array_t *a, int *rc) {
  int64_t n = nitems_of(a->ndim, a->shape);
  int32_t *buf = malloc((size_t)(n > 0 ? n : 1) * 4);
  *rc = n > 0 ? b2nd_to_cbuffer(a, buf, n * 4) : 0;
  uint64_t h = fnv(a->shape, sizeof(int64_t) * a->ndim, 0xcbf29ce484222325ULL);
  if (*rc == 0) h = fnv(buf, (size_t)n * 4, h);
  free(buf);
  return h;
}

/* One step of sequence `seq` on `a`: returns its return code. */
static int step(b2nd_array_t *a, int8_t ndim, const int32_t *cs, int32_t *val) {
  int64_t shape[B2ND_MAX_DIM], start[B2ND_MAX_DIM];
  memcpy(shape, a->shape, sizeof shape);
  int axis = (int)rnd((uint32_t)ndim);
  int kind = (int)rnd(7);
  int64_t old = shape[axis];
  int64_t c = cs[axis];
  switch (kind) {
    case 0: { /* resize at the end, grow or shrink, every axis */
      int64_t ns[B2ND_MAX_DIM];
      for (int i = 0; i < ndim; i++) {
        int64_t d = (int64_t)rnd(2 * (uint32_t)cs[i] + 2) - cs[i];
        ns[i] = shape[i] + d < 0 ? 0 : shape[i] + d;
      }
      return b2nd_resize(a, ns, NULL);
    }
    case 1: { /* grow or shrink at a chunk-aligned start of one axis */
      int64_t ns[B2ND_MAX_DIM];
      memcpy(ns, shape, sizeof ns);
      for (int i = 0; i < ndim; i++) start[i] = shape[i];
      int64_t k = (int64_t)rnd(2) + 1;
      int64_t at = c * (int64_t)rnd((uint32_t)(old / c + 1));
      if (rnd(2) && old >= at + k * c) {
        ns[axis] = old - k * c;
      } else {
        ns[axis] = old + k * c;
      }
      start[axis] = at;
      return b2nd_resize(a, ns, start);
    }
    case 2:
    case 3: { /* append or insert a slab */
      int64_t n = (int64_t)rnd(2 * (uint32_t)c) + 1;
      if (kind == 3) n = c * ((int64_t)rnd(2) + 1);
      int64_t other = 1;
      for (int i = 0; i < ndim; i++) other *= i == axis ? 1 : shape[i];
      /* (the reference divides by zero when another dimension is empty) */
      if (other == 0) return 0;
      int64_t len = other * n;
      int32_t *buf = malloc((size_t)(len > 0 ? len : 1) * 4);
      for (int64_t i = 0; i < len; i++) buf[i] = (*val)++;
      int rc;
      if (kind == 2) {
        rc = b2nd_append(a, buf, len * 4, (int8_t)axis);
      } else {
        int64_t at = c * (int64_t)rnd((uint32_t)(old / c + 1));
        rc = b2nd_insert(a, buf, len * 4, (int8_t)axis, at);
      }
      free(buf);
      return rc;
    }
    case 4: { /* delete a chunk-aligned slab, or at the end */
      if (old == 0) return 0;
      if (rnd(2)) {
        int64_t n = (int64_t)rnd((uint32_t)old) + 1;
        return b2nd_delete(a, (int8_t)axis, old - n, n);
      }
      if (old < c) return 0;
      int64_t at = c * (int64_t)rnd((uint32_t)(old / c));
      int64_t n = c;
      if (at + n > old) return 0;
      return b2nd_delete(a, (int8_t)axis, at, n);
    }
    default: { /* write a random region */
      int64_t stop[B2ND_MAX_DIM], bsh[B2ND_MAX_DIM];
      int64_t n = 1;
      for (int i = 0; i < ndim; i++) {
        if (shape[i] == 0) return 0;
        start[i] = (int64_t)rnd((uint32_t)shape[i]);
        stop[i] = start[i] + (int64_t)rnd((uint32_t)(shape[i] - start[i])) + 1;
        bsh[i] = stop[i] - start[i];
        n *= bsh[i];
      }
      int32_t *buf = malloc((size_t)n * 4);
      for (int64_t i = 0; i < n; i++) buf[i] = (*val)++;
      int rc = b2nd_set_slice_cbuffer(buf, bsh, n * 4, start, stop, a);
      free(buf);
      return rc;
    }
  }
}

/* Golden values from the reference: per sequence and step, the return code and the hash
   (step 0: after creation). */
typedef struct {
  int rc;
  uint64_t hash;
} golden_t;

#include "test_b2nd_grow_golden.h"

static int recording(void) {
  const char *e = getenv("B2RS_GROW_RECORD");
  return e != NULL && e[0] == '1';
}

static void run_sequence(int seq, int kind) {
  int64_t shape[B2ND_MAX_DIM];
  int32_t cs[B2ND_MAX_DIM], bs[B2ND_MAX_DIM];
  int8_t ndim = geometry(seq, shape, cs, bs);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.compcode = BLOSC_LZ4;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  const char *path = kind == 2 ? "test_b2nd_grow.b2nd" : "test_b2nd_grow_dir.b2nd";
  st.contiguous = kind == 1 || kind == 2;
  /* (kind 4 starts in memory, then moves to an offset of a file) */
  st.urlpath = kind == 2 || kind == 3 ? (char *)path : NULL;
  if (st.urlpath) blosc2_remove_urlpath(st.urlpath);
  b2nd_context_t *ctx = b2nd_create_ctx(&st, ndim, shape, cs, bs, "<i4", 0, NULL, 0);
  CHECK(ctx != NULL);
  if (ctx == NULL) return;
  b2nd_array_t *a = NULL;
  int32_t val = 1;
  int rc;
  int64_t n = nitems_of(ndim, shape);
  switch (seq % 3) {
    case 0: {
      int32_t *buf = malloc((size_t)(n > 0 ? n : 1) * 4);
      for (int64_t i = 0; i < n; i++) buf[i] = val++;
      rc = b2nd_from_cbuffer(ctx, &a, buf, n * 4);
      free(buf);
      break;
    }
    case 1: {
      int32_t fill = -7;
      rc = b2nd_full(ctx, &a, &fill);
      break;
    }
    default:
      rc = b2nd_zeros(ctx, &a);
  }
  CHECK_EQ(rc, 0);
  if (a == NULL) {
    b2nd_free_ctx(ctx);
    return;
  }
  int64_t offset = 0;
  if (kind == 4) {
    /* a frame at an offset of a file: the array appended after a prefix, reopened there */
    const char *opath = "test_b2nd_grow_off.bin";
    FILE *f = fopen(opath, "wb");
    CHECK(f != NULL);
    if (f != NULL) {
      fwrite("prefix--", 1, 8, f);
      fclose(f);
    }
    offset = b2nd_save_append(a, opath);
    CHECK_EQ(offset, 8);
    b2nd_free(a);
    a = NULL;
    CHECK_EQ(b2nd_open_offset(opath, &a, offset), 0);
    if (a == NULL) {
      b2nd_free_ctx(ctx);
      return;
    }
  }
  /* the steps draw from the same generator whatever the storage */
  g_rng = 0x1234567ULL + (uint64_t)seq * 7919;
  for (int s = 0; s <= NSTEPS; s++) {
    int src = s == 0 ? 0 : step(a, ndim, cs, &val);
    if (src < 0) src = -1; /* the error code itself may differ; that it fails may not */
    int hrc;
    uint64_t h = content_hash(a, &hrc);
    if (recording()) {
      if (kind == 0) printf("  {%d, 0x%016llxULL},\n", src, (unsigned long long)h);
    } else {
      const golden_t *g = &GOLDEN[seq][s];
      if (src != g->rc || h != g->hash) {
        fprintf(stderr, "sequence %d (ndim %d, storage %d) step %d: rc %d hash %016llx, "
                "reference rc %d hash %016llx\n", seq, ndim, kind, s, src,
                (unsigned long long)h, g->rc, (unsigned long long)g->hash);
      }
      CHECK_EQ(src, g->rc);
      CHECK_HASH(h, g->hash);
      CHECK_EQ(hrc, 0);
    }
  }
  /* a file stays readable: reopened, it holds the same */
  if (st.urlpath != NULL && !recording()) {
    int hrc;
    uint64_t before = content_hash(a, &hrc);
    b2nd_free(a);
    a = NULL;
    CHECK_EQ(b2nd_open(st.urlpath, &a), 0);
    if (a != NULL) CHECK_HASH(content_hash(a, &hrc), before);
  }
  if (kind == 4 && !recording()) {
    int hrc;
    uint64_t before = content_hash(a, &hrc);
    b2nd_free(a);
    a = NULL;
    CHECK_EQ(b2nd_open_offset("test_b2nd_grow_off.bin", &a, offset), 0);
    if (a != NULL) CHECK_HASH(content_hash(a, &hrc), before);
  }
  b2nd_free(a);
  b2nd_free_ctx(ctx);
  if (st.urlpath) blosc2_remove_urlpath(st.urlpath);
  if (kind == 4) remove("test_b2nd_grow_off.bin");
}

static void test_sequences_memory(void) {
  if (recording()) printf("static const golden_t GOLDEN[NSEQ][NSTEPS + 1] = {\n");
  for (int seq = 0; seq < NSEQ; seq++) {
    if (recording()) printf(" {\n");
    run_sequence(seq, 0);
    if (recording()) printf(" },\n");
  }
  if (recording()) printf("};\n");
}

static void test_sequences_contiguous(void) {
  if (recording()) return;
  for (int seq = 0; seq < NSEQ; seq++) run_sequence(seq, 1);
}

static void test_sequences_file(void) {
  if (recording()) return;
  for (int seq = 0; seq < NSEQ; seq++) run_sequence(seq, 2);
}

static void test_sequences_dir(void) {
  if (recording()) return;
  for (int seq = 0; seq < NSEQ; seq++) run_sequence(seq, 3);
}

static void test_sequences_offset(void) {
  if (recording()) return;
  for (int seq = 0; seq < NSEQ; seq++) run_sequence(seq, 4);
}

static int under_valgrind(void) {
  const char *p = getenv("LD_PRELOAD");
  return p != NULL && strstr(p, "vgpreload") != NULL;
}

/* Growth costs the chunks it touches: appending 1 GiB of rows one slab at a time to an array
   (in memory and in a file) works in an address space capped 256 MiB above what the process
   has, and the array reads back. (An implementation that decodes the whole array on each
   change needs gigabytes here.) */
static void test_append_memory_bounded(void) {
#if defined(__SANITIZE_ADDRESS__)
  printf("  append under a memory cap: skipped under ASan\n");
  return;
#endif
  if (under_valgrind()) {
    printf("  append under a memory cap: skipped under valgrind\n");
    return;
  }
  long vm_kb = 0;
  FILE *stf = fopen("/proc/self/status", "r");
  char line[256];
  while (stf != NULL && fgets(line, sizeof line, stf) != NULL) {
    if (strncmp(line, "VmSize:", 7) == 0) vm_kb = strtol(line + 7, NULL, 10);
  }
  if (stf != NULL) fclose(stf);
  CHECK_GT(vm_kb, 0);
  struct rlimit rl;
  rl.rlim_cur = rl.rlim_max = (rlim_t)(vm_kb + 256 * 1024) * 1024;
  CHECK_EQ(setrlimit(RLIMIT_AS, &rl), 0);
  const int64_t cols = 4096, rows_per = 64, steps = 512; /* 512 x 64 x 4096 x 8 = 1 GiB */
  double *slab = malloc((size_t)(rows_per * cols) * 8);
  for (int kind = 0; kind < 2; kind++) {
    const char *path = "test_b2nd_grow_big.b2nd";
    blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
    cp.typesize = 8;
    cp.compcode = BLOSC_LZ4;
    blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
    st.cparams = &cp;
    st.contiguous = kind == 1;
    st.urlpath = kind == 1 ? (char *)path : NULL;
    blosc2_remove_urlpath(path);
    int64_t shape[2] = {0, cols};
    int32_t cs[2] = {(int32_t)rows_per, (int32_t)cols}, bs[2] = {8, (int32_t)cols};
    b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, cs, bs, "<f8", 0, NULL, 0);
    b2nd_array_t *a = NULL;
    CHECK_EQ(b2nd_zeros(ctx, &a), 0);
    int rc = 0;
    for (int64_t i = 0; i < steps && rc == 0 && a != NULL; i++) {
      for (int64_t k = 0; k < rows_per * cols; k++) slab[k] = (double)(i * 1000 + k % 7);
      rc = b2nd_append(a, slab, rows_per * cols * 8, 0);
    }
    CHECK_EQ(rc, 0);
    if (a != NULL) {
      CHECK_EQ(a->shape[0], rows_per * steps);
      CHECK_EQ(a->sc->nchunks, steps);
      /* a row of the last slab reads back */
      int64_t start[2] = {rows_per * steps - 1, 0}, stop[2] = {rows_per * steps, cols};
      int64_t bsh[2] = {1, cols};
      double *row = malloc((size_t)cols * 8);
      CHECK_EQ(b2nd_get_slice_cbuffer(a, start, stop, row, bsh, cols * 8), 0);
      CHECK(row[0] == (double)((steps - 1) * 1000) && row[8] == (double)((steps - 1) * 1000 + 1));
      free(row);
      /* and a chunk slab deleted in the middle, one inserted at the front */
      CHECK_EQ(b2nd_delete(a, 0, rows_per * 100, rows_per), 0);
      CHECK_EQ(b2nd_insert(a, slab, rows_per * cols * 8, 0, 0), 0);
      CHECK_EQ(a->shape[0], rows_per * steps);
      b2nd_free(a);
    }
    b2nd_free_ctx(ctx);
    blosc2_remove_urlpath(path);
  }
  free(slab);
}

int main(void) {
  blosc2_init();
  if (recording()) setenv("B2RS_TEST_NOFORK", "1", 1);
  RUN(test_sequences_memory);
  RUN(test_sequences_contiguous);
  RUN(test_sequences_file);
  RUN(test_sequences_dir);
  RUN(test_sequences_offset);
  if (!recording()) RUN(test_append_memory_bounded);
  blosc2_destroy();
  return TEST_SUMMARY();
}
