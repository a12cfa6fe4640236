// In-process A/B timing of two builds of the Blosc2 C API (the reference's libblosc2.so, b2rs's
// libb2rs.so, or two b2rs builds): both are dlopen'ed with RTLD_LOCAL | RTLD_DEEPBIND, so each
// resolves its own symbols, and the same calls on the same buffers alternate between them
// (chunk compression and decompression with blosc2_compress_ctx / blosc2_decompress_ctx, one
// thread, LZ4 and LZ4HC, 3 filters, clevels 1/5/9, 4 datasets of 8 MiB). Best time of each, as
// B/A ratios. On this project's noisy VMs the cross-process benchmark moves ±30% from one
// process to the next; in one process the same comparison repeats within a few percent.
// Only timings: the libraries never exchange a pointer they own (decompressed output is
// checked against the input; each decodes its own chunks).
//
//   cc -O2 -Iinclude tools/inproc-ab.c -o /tmp/inproc-ab -ldl -lm
//   ALIB=target/reference/blosc2/lib/libblosc2.so BLIB=target/release/libb2rs.so /tmp/inproc-ab
#define _GNU_SOURCE
#include <blosc2.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
typedef struct {
  int (*init)(void);
  blosc2_context *(*cctx)(blosc2_cparams);
  blosc2_context *(*dctx)(blosc2_dparams);
  int (*comp)(blosc2_context *, const void *, int32_t, void *, int32_t);
  int (*decomp)(blosc2_context *, const void *, int32_t, void *, int32_t);
} lib;
static void load(lib *l, const char *p) {
  void *h = dlopen(p, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
  if (!h) { fprintf(stderr, "%s\n", dlerror()); exit(1); }
#define S(f, n) *(void **)&l->f = dlsym(h, n); if (!l->f) { fprintf(stderr, "no %s\n", n); exit(1); }
  S(init, "blosc2_init") S(cctx, "blosc2_create_cctx") S(dctx, "blosc2_create_dctx")
  S(comp, "blosc2_compress_ctx") S(decomp, "blosc2_decompress_ctx")
}
#define CH (1 << 20)
#define NCH 8
static double now() { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
static void fill(int ds, uint8_t *p, size_t n) {
  uint64_t x = 88172645463325252ull;
  for (size_t i = 0; i < n / 8; i++) {
    uint64_t v;
    switch (ds) {
    case 0: ((int32_t *)p)[2 * i] = 6 * i; ((int32_t *)p)[2 * i + 1] = 6 * i + 3; continue;
    case 1: { double d = 1000.0 * sin(i * 1e-4) + i * 1e-3; memcpy(p + 8 * i, &d, 8); continue; }
    case 2: v = 1700000000000000ull + i * 1000 + (i % 7); memcpy(p + 8 * i, &v, 8); continue;
    default: x ^= x << 13; x ^= x >> 7; x ^= x << 17; memcpy(p + 8 * i, &x, 8); continue;
    }
  }
}
int main(int argc, char **argv) {
  lib L[2];
  load(&L[0], getenv("ALIB")); load(&L[1], getenv("BLIB"));
  L[0].init(); L[1].init();
  const char *names[] = {"int32_ramp", "float64_smooth", "int64_tstamp", "random"};
  int typesizes[] = {4, 8, 8, 8};
  int codecs[] = {BLOSC_LZ4, BLOSC_LZ4HC};
  const char *cn[] = {"LZ4", "LZ4HC"};
  size_t nb = (size_t)CH * NCH;
  uint8_t *src = malloc(nb), *dst = malloc(nb), *c[2];
  c[0] = malloc(nb + NCH * BLOSC2_MAX_OVERHEAD); c[1] = malloc(nb + NCH * BLOSC2_MAX_OVERHEAD);
  double lc = 0, ld = 0; int n = 0;
  for (int ds = 0; ds < 4; ds++) {
    fill(ds, src, nb);
    for (int ci = 0; ci < 2; ci++) for (int f = 0; f < 3; f++) for (int cl = 1; cl <= 9; cl += 4) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.compcode = codecs[ci]; cp.clevel = cl; cp.typesize = typesizes[ds]; cp.nthreads = 1;
      cp.filters[BLOSC2_MAX_FILTERS - 1] = f;
      blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS; dp.nthreads = 1;
      blosc2_context *cc[2] = {L[0].cctx(cp), L[1].cctx(cp)}, *dc[2] = {L[0].dctx(dp), L[1].dctx(dp)};
      int32_t off[2][NCH], len[2][NCH];
      double bc[2] = {1e9, 1e9}, bd[2] = {1e9, 1e9};
      int reps = (ci == 1 && cl > 1) ? 3 : 10;
      for (int r = 0; r < reps; r++) for (int k0 = 0; k0 < 2; k0++) {
        int k = (r & 1) ? 1 - k0 : k0;
        double t = now(); int32_t o = 0;
        for (int i = 0; i < NCH; i++) { int z = L[k].comp(cc[k], src + (size_t)i * CH, CH, c[k] + o, CH + BLOSC2_MAX_OVERHEAD); if (z <= 0) exit(3); off[k][i] = o; len[k][i] = z; o += z; }
        t = now() - t; if (t < bc[k]) bc[k] = t;
      }
      for (int r = 0; r < 3 * reps; r++) for (int k0 = 0; k0 < 2; k0++) {
        int k = (r & 1) ? 1 - k0 : k0;
        double t = now();
        for (int i = 0; i < NCH; i++) if (L[k].decomp(dc[k], c[k] + off[k][i], len[k][i], dst + (size_t)i * CH, CH) != CH) exit(4);
        t = now() - t; if (t < bd[k]) bd[k] = t;
        if (memcmp(dst, src, nb)) exit(5);
      }
      int64_t sz[2] = {0, 0}; for (int i = 0; i < NCH; i++) { sz[0] += len[0][i]; sz[1] += len[1][i]; }
      printf("%-15s %-6s f%d cl%d ratio %7.2f  A %7.3f / %7.3f  B %7.3f / %7.3f GB/s  B/A comp %.3f decomp %.3f size %.3f\n",
             names[ds], cn[ci], f, cl, (double)nb / sz[0], nb / bc[0] / 1e9, nb / bd[0] / 1e9, nb / bc[1] / 1e9, nb / bd[1] / 1e9,
             bc[0] / bc[1], bd[0] / bd[1], (double)sz[1] / sz[0]);
      lc += log(bc[0] / bc[1]); ld += log(bd[0] / bd[1]); n++;
    }
  }
  printf("geomean B/A comp %.3f decomp %.3f (%d configs)\n", exp(lc / n), exp(ld / n), n);
  return 0;
}
