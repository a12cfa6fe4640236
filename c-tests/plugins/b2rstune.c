/*
 * b2rstune.c - a tuner plugin built for C-Blosc2 3.3's private context layout, loaded at run
 * time by name (libblosc2_b2rstune.so, `info` below) by c-tests/test_runtime_plugins.c.
 *
 * Its decisions for the k-th chunk of a context are b2rstune_choice(k, mode) (the test
 * compresses the same data with those parameters and no tuner, and wants the same chunk). What
 * it saw is in the exported counters. `config` (cparams.tuner_params) selects a mode:
 *   NULL or 0  steer every chunk (init sets tuner_params, so next_cparams/update/free run):
 *              codec, clevel, filters, split mode and threads change, blocksize is 8192;
 *   5          the same, with a blocksize changing from chunk to chunk;
 *   1          init fails;
 *   2          no state: only next_blocksize runs, setting blocksize 8192;
 *   3          next_cparams fails on the second chunk;
 *   4          update fails on the first chunk.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "blosc2_context33.h"

typedef struct { char *init, *next_blocksize, *next_cparams, *update, *free; } tuner_info;

typedef struct {
  int compcode, clevel, blocksize, splitmode, nthreads;
  uint8_t filters[6], filters_meta[6];
} b2rstune_params;

/* calls: init, next_blocksize, next_cparams, update, free */
int b2rstune_calls[5];
/* what looked wrong in the context (a count), and the sizes update saw */
int b2rstune_bad;
int32_t b2rstune_cbytes[64];
int b2rstune_with_schunk;

typedef struct { int mode; int k; uint32_t magic; } state;

void b2rstune_choice(int k, int mode, b2rstune_params *p) {
  static const int codecs[4] = {1 /* LZ4 */, 5 /* ZSTD */, 0 /* BLOSCLZ */, 4 /* ZLIB */};
  memset(p, 0, sizeof *p);
  p->compcode = codecs[k % 4];
  p->clevel = 1 + k % 9;
  p->blocksize = mode == 5 ? 4096 << (k % 3) : 8192;
  p->splitmode = (k % 2) ? 2 /* NEVER */ : 1 /* ALWAYS */;
  p->filters[5] = (k % 2) ? 2 /* BITSHUFFLE */ : 1 /* SHUFFLE */;
  if (k % 3 == 0) p->filters[4] = 3; /* DELTA */
  p->nthreads = 1 + k % 2;
}

int b2rstune_init(void *config, blosc2_context33 *cctx, blosc2_context33 *dctx) {
  b2rstune_calls[0]++;
  int mode = config ? *(int *)config : 0;
  if (dctx != NULL || cctx == NULL || cctx->do_compress != 1) b2rstune_bad++;
  if (mode == 1) return -1;
  if (mode == 2) return 0;
  state *s = malloc(sizeof *s);
  if (s == NULL) return -1;
  s->mode = mode;
  s->k = 0;
  s->magic = 0xB2B2;
  cctx->tuner_params = s;
  return 0;
}

int b2rstune_next_blocksize(blosc2_context33 *c) {
  b2rstune_calls[1]++;
  if (c->tuner_params != NULL || c->sourcesize <= 0 || c->src == NULL) b2rstune_bad++;
  c->blocksize = 8192;
  return 0;
}

int b2rstune_next_cparams(blosc2_context33 *c) {
  b2rstune_calls[2]++;
  state *s = c->tuner_params;
  if (s == NULL || s->magic != 0xB2B2) {
    b2rstune_bad++;
    return -1;
  }
  /* the chunk about to be compressed, as the library describes it */
  if (c->src == NULL || c->dest == NULL || c->sourcesize != c->srcsize || c->sourcesize <= 0 ||
      c->destsize < c->sourcesize || c->typesize != 4 || c->tuner_id != 170)
    b2rstune_bad++;
  if (c->schunk != NULL) b2rstune_with_schunk++;
  /* what it decided for the previous chunk is still there */
  if (s->k > 0) {
    b2rstune_params prev;
    b2rstune_choice(s->k - 1, s->mode, &prev);
    if (c->compcode != prev.compcode || c->clevel != prev.clevel ||
        c->blocksize != prev.blocksize || c->nthreads != prev.nthreads ||
        memcmp(c->filters, prev.filters, 6) != 0)
      b2rstune_bad++;
  }
  if (s->mode == 3 && s->k == 1) return -1;
  b2rstune_params p;
  b2rstune_choice(s->k, s->mode, &p);
  c->compcode = p.compcode;
  c->compcode_meta = 0;
  c->clevel = p.clevel;
  c->blocksize = p.blocksize;
  c->splitmode = p.splitmode;
  memcpy(c->filters, p.filters, 6);
  memcpy(c->filters_meta, p.filters_meta, 6);
  c->new_nthreads = (int16_t)p.nthreads;
  return 0;
}

int b2rstune_update(blosc2_context33 *c, double ctime) {
  b2rstune_calls[3]++;
  state *s = c->tuner_params;
  if (s == NULL || ctime < 0 || c->src == NULL || c->destsize <= 0) b2rstune_bad++;
  if (s == NULL) return -1;
  if (s->k < 64) b2rstune_cbytes[s->k] = c->destsize;
  /* the thread count asked for was used */
  b2rstune_params p;
  b2rstune_choice(s->k, s->mode, &p);
  if (c->nthreads != p.nthreads) b2rstune_bad++;
  s->k++;
  if (s->mode == 4) return -1;
  return 0;
}

int b2rstune_free(blosc2_context33 *c) {
  b2rstune_calls[4]++;
  free(c->tuner_params);
  c->tuner_params = NULL;
  return 0;
}

tuner_info info = {"b2rstune_init", "b2rstune_next_blocksize", "b2rstune_next_cparams",
                   "b2rstune_update", "b2rstune_free"};
