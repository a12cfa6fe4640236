/* Speed of the zfp library bundled in libblosc2.so 3.3.5 (its exported zfp_* symbols), on the
   same data as the zfp cases of benches/kernels.rs: best of N runs, GB/s of uncompressed data. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void *zfp_stream_open(void *); void zfp_stream_close(void *);
double zfp_stream_set_accuracy(void *, double);
unsigned zfp_stream_set_precision(void *, unsigned);
double zfp_stream_set_rate(void *, double, int, unsigned, int);
void *stream_open(void *, size_t); void stream_close(void *);
void zfp_stream_set_bit_stream(void *, void *); void zfp_stream_rewind(void *);
void *zfp_field_1d(void *, int, size_t);
void *zfp_field_2d(void *, int, size_t, size_t);
void *zfp_field_3d(void *, int, size_t, size_t, size_t);
void *zfp_field_4d(void *, int, size_t, size_t, size_t, size_t);
void zfp_field_free(void *);
size_t zfp_compress(void *, const void *); size_t zfp_decompress(void *, void *);

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

static void *field(void *data, int type, int nd, const size_t *s) {
  switch (nd) { case 1: return zfp_field_1d(data, type, s[0]);
    case 2: return zfp_field_2d(data, type, s[1], s[0]);
    case 3: return zfp_field_3d(data, type, s[2], s[1], s[0]);
    default: return zfp_field_4d(data, type, s[3], s[2], s[1], s[0]); }
}

static void setmode(void *z, int mode, int meta, int type, int nd, int ts) {
  if (mode == 0) zfp_stream_set_accuracy(z, pow(10, (signed char)meta));
  else if (mode == 1) zfp_stream_set_precision(z, meta + 3 + 2 * nd);
  else zfp_stream_set_rate(z, (double)meta / 100.0 * ts * 8, type, nd, 0);
}

static void run(const char *name, int ts, int nd, const size_t *shape, int mode, int meta) {
  size_t n = 1; for (int i = 0; i < nd; i++) n *= shape[i];
  size_t bytes = n * ts;
  void *src = malloc(bytes), *dst = malloc(bytes), *out = malloc(2 * bytes + 1024);
  for (size_t i = 0; i < n; i++) {
    double v = sin(i * 0.013) * 50 + cos(i * 0.0007) * 3 + 0.001 * (double)(i % 17);
    if (ts == 4) ((float *)src)[i] = (float)v; else ((double *)src)[i] = v;
  }
  int type = ts == 4 ? 3 : 4;
  double best_c = 1e9, best_d = 1e9; size_t csize = 0;
  for (int rep = 0; rep < 30; rep++) {
    void *z = zfp_stream_open(NULL); setmode(z, mode, meta, type, nd, ts);
    void *bs = stream_open(out, 2 * bytes + 1024); zfp_stream_set_bit_stream(z, bs); zfp_stream_rewind(z);
    void *f = field(src, type, nd, shape);
    double t0 = now(); csize = zfp_compress(z, f); double t1 = now();
    zfp_field_free(f); stream_close(bs); zfp_stream_close(z);
    if (t1 - t0 < best_c) best_c = t1 - t0;
    z = zfp_stream_open(NULL); setmode(z, mode, meta, type, nd, ts);
    bs = stream_open(out, csize); zfp_stream_set_bit_stream(z, bs); zfp_stream_rewind(z);
    f = field(dst, type, nd, shape);
    t0 = now(); zfp_decompress(z, f); t1 = now();
    zfp_field_free(f); stream_close(bs); zfp_stream_close(z);
    if (t1 - t0 < best_d) best_d = t1 - t0;
  }
  printf("zfp/%s: csize %zu  compress %.3f GB/s  decompress %.3f GB/s\n", name, csize,
         bytes / best_c / 1e9, bytes / best_d / 1e9);
  free(src); free(dst); free(out);
}

int main(void) {
  size_t s3[3] = {64, 64, 64}, s2[2] = {256, 256}, s1[1] = {262144}, s4[4] = {16, 16, 16, 16};
  run("acc-3/f32/3d", 4, 3, s3, 0, -3);
  run("prec10/f32/3d", 4, 3, s3, 1, 10);
  run("rate30/f32/3d", 4, 3, s3, 2, 30);
  run("acc-3/f64/2d", 8, 2, s2, 0, -3);
  run("prec10/f64/2d", 8, 2, s2, 1, 10);
  run("rate30/f64/2d", 8, 2, s2, 2, 30);
  run("acc-3/f32/1d", 4, 1, s1, 0, -3);
  run("rate30/f64/4d", 8, 4, s4, 2, 30);
  return 0;
}
