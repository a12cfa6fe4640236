/*
 * test_instr.c - codec instrumentation (cparams.instr_codec, blosc2_flags
 * bit 0x80), as examples/instrument_codec.c and the btune plugin use it.
 *
 * Behaviours probed on the reference (C-Blosc2 3.3.5):
 *   - every stream a regular chunk would hold (a block is split in typesize
 *     streams unless splitting is off or it is the leftover block) becomes
 *     its length 16 and one blosc2_instr record {cratio, cspeed,
 *     filter_speed, flags[4]}; bstarts point at the records;
 *   - cratio = stream bytes / the bytes the stream takes in the regular
 *     chunk, its 4-byte length included: a zero run 4, another run 5 (the
 *     token), a compressed stream 4 + csize, a stream the codec cannot
 *     shrink 4 + its length; runs (found after the filters) have
 *     flags[0] = 1, flags[1..3] are 0; cspeed and filter_speed are positive
 *     (timings); this holds for every codec, filter, split mode, typesize
 *     and for 1 or 2 threads (same layout);
 *   - header: nbytes = 16 * the number of streams, blocksize = 16 * the
 *     streams of a full block, cbytes the chunk length, flags and filters as
 *     in a regular chunk, byte 31 = 0x80 (no special-zero chunk for zeros);
 *     100000 floats 0..99999, BloscLZ 5, shuffle: csize 140, nbytes 80,
 *     blocksize 64, bstarts 40 and 120; blosc2_cbuffer_sizes reports the
 *     header fields, blosc1_cbuffer_metainfo typesize 4 and flags 5;
 *   - decompression runs no filter: it returns nbytes and writes the
 *     records back to back, leaving the rest of dest untouched; a dest
 *     smaller than nbytes is -6; getitem reads the records as items
 *     (start 5, nitems 5 returns 20, beyond nbytes -12);
 *   - clevel 0 or fewer than 32 bytes: a memcpyed chunk of the data (flags
 *     0x07) with byte 31 0x80 and nbytes/blocksize counted as if blocks were
 *     split (the DONT_SPLIT bit is clear): 400000 bytes at clevel 0 (blocks
 *     of 8192) give nbytes 3088 (193 records), 31 bytes (a block of 28 and
 *     a leftover of 3) nbytes 80, 0 bytes nbytes 0, all blocksize 64;
 *     decompressing it is -3 (cbytes is not nbytes + 32) or -6 when dest is
 *     smaller than nbytes; getitem copies the data from after the header
 *     (-5 past cbytes);
 *   - a super-chunk takes the chunks as they are: nbytes the sum of their
 *     nbytes (80 + 80 + 64 for 400000, 400000 and 200000 bytes), chunksize
 *     80, decompress_chunk gives the records, a frame keeps them.
 *
 * Reference bugs compiled out with -DB2RS_REFERENCE (found by this test):
 *   B2RS_REFERENCE_BUG_INSTR_OVERFLOW  the codec compresses each stream
 *       into dest before the record replaces it, so a dest that holds the
 *       chunk but not the largest compressed stream at its place is written
 *       past (valgrind; 140-byte chunk, dest 6176 or less: -7 or a crash);
 *       b2rs compresses into scratch memory and returns 0 when the records
 *       do not fit.
 *   B2RS_REFERENCE_BUG_INSTR_DICT  with use_dict the dictionary is trained
 *       on the records (timings), the header loses the 0x80 bit (and gets
 *       0x10 in byte 28), so decompression unshuffles the records into
 *       garbage; b2rs does not use a dictionary for instrumented chunks.
 */
#include "b2rs_test.h"
#include <math.h>

#ifdef B2RS_REFERENCE
#define B2RS_REFERENCE_BUG_INSTR_OVERFLOW 1
#define B2RS_REFERENCE_BUG_INSTR_DICT 1
#endif

#define NFLOATS (100 * 1000)
#define NB (NFLOATS * 4)

static float g_floats[NFLOATS];

static void init_floats(void) {
  for (int i = 0; i < NFLOATS; i++) g_floats[i] = (float)i;
}

static int32_t rd32(const uint8_t *p) {
  int32_t v;
  memcpy(&v, p, 4);
  return v;
}

static blosc2_instr rec_at(const uint8_t *p) {
  blosc2_instr r;
  memcpy(&r, p, sizeof(r));
  return r;
}

static bool speed_ok(float s) { return isfinite(s) && s > 0; }

static blosc2_cparams instr_params(int codec, int clevel, int filter, int split,
                                   int typesize, int nthreads) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.compcode = (uint8_t)codec;
  cp.clevel = (uint8_t)clevel;
  cp.typesize = typesize;
  cp.nthreads = (int16_t)nthreads;
  cp.splitmode = split;
  cp.instr_codec = true;
  for (int i = 0; i < BLOSC2_MAX_FILTERS; i++) cp.filters[i] = BLOSC_NOFILTER;
  if (filter == -1) {
    cp.filters[BLOSC2_MAX_FILTERS - 2] = BLOSC_DELTA;
    cp.filters[BLOSC2_MAX_FILTERS - 1] = BLOSC_SHUFFLE;
  } else {
    cp.filters[BLOSC2_MAX_FILTERS - 1] = (uint8_t)filter;
  }
  return cp;
}

static int comp_with(blosc2_cparams cp, const void *src, int32_t n,
                         uint8_t *dest, int32_t destsize) {
  blosc2_context *c = blosc2_create_cctx(cp);
  if (c == NULL) return -999;
  int cs = blosc2_compress_ctx(c, src, n, dest, destsize);
  blosc2_free_ctx(c);
  return cs;
}

static int dec_with(int nthreads, const uint8_t *src, int32_t n,
                           void *dest, int32_t destsize) {
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)nthreads;
  blosc2_context *d = blosc2_create_dctx(dp);
  int r = blosc2_decompress_ctx(d, src, n, dest, destsize);
  blosc2_free_ctx(d);
  return r;
}

/* The reference's probe: 100000 floats, BloscLZ 5, shuffle, typesize 4. */
static void test_floats_blosclz(void) {
  init_floats();
  static uint8_t out[NB + BLOSC2_MAX_OVERHEAD];
  static uint8_t dest[NB];
  for (int nthreads = 1; nthreads <= 2; nthreads++) {
    blosc2_cparams cp = instr_params(BLOSC_BLOSCLZ, 5, BLOSC_SHUFFLE,
                                     BLOSC_FORWARD_COMPAT_SPLIT, 4, nthreads);
    int cs = comp_with(cp, g_floats, NB, out, sizeof(out));
    CHECK_EQ(cs, 140);
    if (cs != 140) continue;
    static const uint8_t head[4] = {0x05, 0x01, 0x05, 0x04};
    CHECK(memcmp(out, head, 4) == 0);
    CHECK_EQ(rd32(out + 4), 80);
    CHECK_EQ(rd32(out + 8), 64);
    CHECK_EQ(rd32(out + 12), 140);
    CHECK_EQ(out[21], BLOSC_SHUFFLE);
    CHECK_EQ(out[31], 0x80);
    CHECK_EQ(rd32(out + 32), 40);
    CHECK_EQ(rd32(out + 36), 120);
    int32_t nb, cb, bs;
    CHECK_EQ(blosc2_cbuffer_sizes(out, &nb, &cb, &bs), 0);
    CHECK_EQ(nb, 80);
    CHECK_EQ(cb, 140);
    CHECK_EQ(bs, 64);
    size_t ts;
    int fl;
    blosc1_cbuffer_metainfo(out, &ts, &fl);
    CHECK_EQ(ts, 4);
    CHECK_EQ(fl, 5);
    /* neblock / (4 + stored bytes): 65536-byte streams, a 137856-byte one */
    const float want[5] = {65536.f / 4.f, 65536.f / 816.f, 65536.f / 6097.f,
                           65536.f / 311.f, 137856.f / 1431.f};
    for (int k = 0; k < 5; k++) {
      const uint8_t *p = out + 40 + 20 * k;
      CHECK_EQ(rd32(p), 16);
      blosc2_instr r = rec_at(p + 4);
      CHECK(r.cratio == want[k]);
      CHECK(speed_ok(r.cspeed));
      CHECK(speed_ok(r.filter_speed));
      CHECK_EQ(r.flags[0], k == 0);
      CHECK_EQ(r.flags[1] | r.flags[2] | r.flags[3], 0);
    }
    memset(dest, 0xff, sizeof(dest));
    CHECK_EQ(dec_with(nthreads, out, cs, dest, sizeof(dest)), 80);
    for (int k = 0; k < 5; k++) CHECK(memcmp(dest + 16 * k, out + 44 + 20 * k, 16) == 0);
    int untouched = 1;
    for (int i = 80; i < NB; i++) untouched &= dest[i] == 0xff;
    CHECK(untouched);
    CHECK_EQ(dec_with(nthreads, out, cs, dest, 79), -6);
    CHECK_EQ(dec_with(nthreads, out, cs, dest, 80), 80);

    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    blosc2_context *d = blosc2_create_dctx(dp);
    float sub[8];
    CHECK_EQ(blosc2_getitem_ctx(d, out, cs, 5, 5, sub, sizeof(sub)), 20);
    CHECK(memcmp(sub, out + 44 + 20 + 4, 12) == 0); /* items 5..7: record 1 from byte 4 */
    CHECK_EQ(blosc2_getitem_ctx(d, out, cs, 18, 3, sub, sizeof(sub)), -12);
    blosc2_free_ctx(d);
  }
}

enum kind { RAMP, ZEROS, REP, NOISE, HALF };

static void fill(uint8_t *p, int n, enum kind k, int typesize) {
  uint32_t x = 2463534242u;
  for (int i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    switch (k) {
      case RAMP: p[i] = (uint8_t)((i / typesize) >> (8 * (i % typesize) % 24)); break;
      case ZEROS: p[i] = 0; break;
      case REP: p[i] = 7; break;
      case NOISE: p[i] = (uint8_t)x; break;
      case HALF: p[i] = i < n / 2 ? 0 : (uint8_t)x; break;
    }
  }
}

/*
 * The rule, checked against a regular chunk of the same data made by the
 * same library: the same blocks and streams, each record's cratio is the
 * stream's length over what it takes there (4 + csize, 4 for a zero run, 5
 * for another run), flags[0] marks the runs.
 */
static void check_against_regular(blosc2_cparams cp, const uint8_t *src, int n,
                                  enum kind k) {
  static uint8_t reg[2 * 1000 * 1000 + 64], ins[2 * 1000 * 1000 + 64];
  static uint8_t dest[2 * 1000 * 1000];
  blosc2_cparams rp = cp;
  rp.instr_codec = false;
  int rs = comp_with(rp, src, n, reg, n + BLOSC2_MAX_OVERHEAD);
  int cs = comp_with(cp, src, n, ins, n + BLOSC2_MAX_OVERHEAD);
  CHECK_GT(rs, 0);
  CHECK_GT(cs, 0);
  if (rs <= 0 || cs <= 0) return;
  int32_t rn = rd32(reg + 4), rbs = rd32(reg + 8);
  bool reg_memcpyed = reg[2] & BLOSC_MEMCPYED;
  bool reg_zero = ((reg[31] >> 4) & 7) == BLOSC2_SPECIAL_ZERO;
  int ts = cp.typesize;
  bool split = !(reg[2] & 0x10);
  int nblocks = (rn + rbs - 1) / rbs;
  bool leftover = rn % rbs != 0;
  int nstreams_total = leftover ? (nblocks - 1) * (split ? ts : 1) + 1
                                : nblocks * (split ? ts : 1);
  CHECK_EQ(ins[2], reg[2] & ~BLOSC_MEMCPYED);
  CHECK_EQ(ins[31], 0x80);
  CHECK_EQ(rd32(ins + 4), 16 * nstreams_total);
  CHECK_EQ(rd32(ins + 8), 16 * (split ? ts : 1));
  CHECK_EQ(rd32(ins + 12), cs);
  CHECK_EQ(cs, 32 + 4 * nblocks + 20 * nstreams_total);
  int bad = 0;
  int krec = 0;
  for (int j = 0; j < nblocks; j++) {
    bool left = leftover && j == nblocks - 1;
    int bsize = left ? rn % rbs : rbs;
    int ns = split && !left ? ts : 1;
    int neblock = bsize / ns;
    int rp_ = reg_memcpyed || reg_zero ? 0 : rd32(reg + 32 + 4 * j);
    int ip = rd32(ins + 32 + 4 * j);
    if (ip != 32 + 4 * nblocks + 20 * krec) bad |= 1;
    for (int s = 0; s < ns; s++, krec++) {
      int taken;
      bool run;
      if (reg_zero) {
        taken = 4;
        run = true;
      } else if (reg_memcpyed) {
        taken = neblock + 4; /* only incompressible data here */
        run = false;
      } else {
        int32_t c = rd32(reg + rp_);
        run = c <= 0;
        taken = c == 0 ? 4 : c < 0 ? 5 : 4 + c;
        rp_ += taken;
      }
      if (rd32(ins + ip) != 16) bad |= 2;
      blosc2_instr r = rec_at(ins + ip + 4);
      if (r.cratio != (float)neblock / (float)taken) bad |= 4;
      if (r.flags[0] != run || r.flags[1] || r.flags[2] || r.flags[3]) bad |= 8;
      if (!speed_ok(r.cspeed) || !speed_ok(r.filter_speed)) bad |= 16;
      ip += 20;
    }
  }
  if (bad) {
    fprintf(stderr, "codec %d filter %d split %d ts %d kind %d: bad %d\n", cp.compcode,
            cp.filters[5], cp.splitmode, ts, k, bad);
  }
  CHECK_EQ(bad, 0);
  int32_t nb = rd32(ins + 4);
  memset(dest, 0xff, (size_t)nb + 64);
  CHECK_EQ(dec_with(cp.nthreads, ins, cs, dest, nb + 64), nb);
  int same = 1;
  for (int i = 0; i < nb / 16; i++) {
    int jb = i; /* record i sits after the bstarts, 20 bytes apart */
    same &= memcmp(dest + 16 * i, ins + 32 + 4 * nblocks + 20 * jb + 4, 16) == 0;
  }
  CHECK(same);
  int untouched = 1;
  for (int i = nb; i < nb + 64; i++) untouched &= dest[i] == 0xff;
  CHECK(untouched);
}

static void test_rule_every_codec(void) {
  static uint8_t src[1000 * 1000];
  const int codecs[] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_LZ4HC, BLOSC_ZLIB, BLOSC_ZSTD};
  const int filters[] = {BLOSC_NOFILTER, BLOSC_SHUFFLE, BLOSC_BITSHUFFLE, -1};
  const int splits[] = {BLOSC_ALWAYS_SPLIT, BLOSC_NEVER_SPLIT, BLOSC_FORWARD_COMPAT_SPLIT};
  for (int k = RAMP; k <= HALF; k++) {
    fill(src, 400000, (enum kind)k, 4);
    for (int c = 0; c < 5; c++)
      for (int f = 0; f < 4; f++)
        for (int s = 0; s < 3; s++)
          check_against_regular(instr_params(codecs[c], 5, filters[f], splits[s], 4, 1),
                                src, 400000, (enum kind)k);
  }
  /* other typesizes, levels, threads and an explicit blocksize */
  fill(src, 999999, RAMP, 8);
  check_against_regular(instr_params(BLOSC_ZSTD, 9, BLOSC_SHUFFLE, BLOSC_ALWAYS_SPLIT, 8, 2),
                        src, 999992, RAMP);
  check_against_regular(instr_params(BLOSC_LZ4, 1, BLOSC_SHUFFLE, BLOSC_FORWARD_COMPAT_SPLIT,
                                     1, 1), src, 999999, RAMP);
  check_against_regular(instr_params(BLOSC_LZ4HC, 5, BLOSC_SHUFFLE, BLOSC_ALWAYS_SPLIT, 7, 1),
                        src, 999999, RAMP);
  check_against_regular(instr_params(BLOSC_BLOSCLZ, 5, BLOSC_SHUFFLE, BLOSC_ALWAYS_SPLIT, 16,
                                     2), src, 999999, RAMP);
  blosc2_cparams cp = instr_params(BLOSC_BLOSCLZ, 5, BLOSC_SHUFFLE, BLOSC_ALWAYS_SPLIT, 4, 1);
  cp.blocksize = 128;
  fill(src, 4096, RAMP, 4);
  check_against_regular(cp, src, 4096, RAMP);
  cp.blocksize = 10000;
  fill(src, 300000, HALF, 4);
  check_against_regular(cp, src, 300000, HALF);
}

static void test_memcpyed(void) {
  init_floats();
  static uint8_t out[NB + BLOSC2_MAX_OVERHEAD];
  static uint8_t dest[NB];
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_context *d = blosc2_create_dctx(dp);
  /* clevel 0 */
  blosc2_cparams cp = instr_params(BLOSC_BLOSCLZ, 0, BLOSC_SHUFFLE,
                                   BLOSC_FORWARD_COMPAT_SPLIT, 4, 1);
  int cs = comp_with(cp, g_floats, NB, out, sizeof(out));
  CHECK_EQ(cs, NB + 32);
  CHECK_EQ(out[2], 0x07);
  CHECK_EQ(rd32(out + 4), 3088);
  CHECK_EQ(rd32(out + 8), 64);
  CHECK_EQ(rd32(out + 12), NB + 32);
  CHECK_EQ(out[31], 0x80);
  CHECK(memcmp(out + 32, g_floats, NB) == 0);
  CHECK_EQ(dec_with(1, out, cs, dest, sizeof(dest)), -3);
  CHECK_EQ(dec_with(1, out, cs, dest, 3087), -6);
  float sub[5];
  CHECK_EQ(blosc2_getitem_ctx(d, out, cs, 5, 5, sub, sizeof(sub)), 20);
  CHECK(memcmp(sub, g_floats + 5, 20) == 0);

  /* fewer than 32 bytes: a block of 28 (split in 4) and a leftover of 3 */
  uint8_t small[31];
  fill(small, 31, NOISE, 4);
  cp.clevel = 5;
  cs = comp_with(cp, small, 31, out, 31 + 32);
  CHECK_EQ(cs, 63);
  CHECK_EQ(out[2], 0x07);
  CHECK_EQ(rd32(out + 4), 80);
  CHECK_EQ(rd32(out + 8), 64);
  CHECK_EQ(out[31], 0x80);
  CHECK_EQ(dec_with(1, out, cs, dest, 64), -6);
  CHECK_EQ(dec_with(1, out, cs, dest, 80), -3);
  uint8_t items[16];
  CHECK_EQ(blosc2_getitem_ctx(d, out, cs, 0, 4, items, sizeof(items)), 16);
  CHECK(memcmp(items, small, 16) == 0);
  CHECK_EQ(blosc2_getitem_ctx(d, out, cs, 5, 4, items, sizeof(items)), -5);

  /* empty input */
  cs = comp_with(cp, small, 0, out, 64);
  CHECK_EQ(cs, 32);
  CHECK_EQ(rd32(out + 4), 0);
  CHECK_EQ(rd32(out + 8), 64);
  CHECK_EQ(out[31], 0x80);

  /* 32 bytes and more compress: 40 bytes are one unsplit block */
  uint8_t forty[40];
  fill(forty, 40, NOISE, 4);
  cs = comp_with(cp, forty, 40, out, 72);
  CHECK_EQ(cs, 56);
  CHECK_EQ(out[2], 0x15);
  CHECK_EQ(rd32(out + 4), 16);
  CHECK_EQ(rd32(out + 8), 16);
  CHECK(rec_at(out + 40).cratio == 40.f / 44.f);
  blosc2_free_ctx(d);
}

static void test_schunk(void) {
  init_floats();
  static float dest[NFLOATS];
  for (int contiguous = 0; contiguous < 2; contiguous++) {
    blosc2_cparams cp = instr_params(BLOSC_BLOSCLZ, 5, BLOSC_SHUFFLE,
                                     BLOSC_FORWARD_COMPAT_SPLIT, 4, 1);
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    blosc2_storage st = {.contiguous = contiguous, .cparams = &cp, .dparams = &dp};
    blosc2_schunk *sc = blosc2_schunk_new(&st);
    CHECK(sc != NULL);
    if (sc == NULL) continue;
    CHECK_EQ(blosc2_schunk_append_buffer(sc, g_floats, NB), 1);
    CHECK_EQ(sc->nbytes, 80);
    CHECK_EQ(sc->cbytes, 140);
    CHECK_EQ(sc->chunksize, 80);
    CHECK_EQ(blosc2_schunk_append_buffer(sc, g_floats, NB), 2);
    CHECK_EQ(blosc2_schunk_append_buffer(sc, g_floats, NB / 2), 3);
    CHECK_EQ(sc->nchunks, 3);
    CHECK_EQ(sc->nbytes, 224);
    memset(dest, 0xff, sizeof(dest));
    CHECK_EQ(blosc2_schunk_decompress_chunk(sc, 0, dest, sizeof(dest)), 80);
    CHECK(dest[0] == 16384.f);
    uint8_t *chunk;
    bool needs_free;
    CHECK_EQ(blosc2_schunk_get_chunk(sc, 1, &chunk, &needs_free), 140);
    if (needs_free) free(chunk);
    uint8_t *frame;
    bool frame_free;
    int64_t flen = blosc2_schunk_to_buffer(sc, &frame, &frame_free);
    CHECK_EQ(flen, 584);
    if (flen > 0) {
      blosc2_schunk *s2 = blosc2_schunk_from_buffer(frame, flen, true);
      CHECK(s2 != NULL);
      if (s2 != NULL) {
        CHECK_EQ(s2->nchunks, 3);
        CHECK_EQ(s2->nbytes, 224);
        CHECK_EQ(blosc2_schunk_decompress_chunk(s2, 2, dest, sizeof(dest)), 64);
        blosc2_schunk_free(s2);
      }
      if (frame_free) free(frame);
    }
    blosc2_schunk_free(sc);
  }
}

static void test_dict(void) {
  init_floats();
  static uint8_t out[NB + BLOSC2_MAX_OVERHEAD];
  static uint8_t dest[NB];
  blosc2_cparams cp = instr_params(BLOSC_ZSTD, 5, BLOSC_SHUFFLE,
                                   BLOSC_FORWARD_COMPAT_SPLIT, 4, 1);
  cp.use_dict = 1;
  int cs = comp_with(cp, g_floats, NB, out, sizeof(out));
  CHECK_GT(cs, 0);
  CHECK_EQ(rd32(out + 4), 80);
  CHECK_EQ(rd32(out + 8), 64);
#ifndef B2RS_REFERENCE_BUG_INSTR_DICT
  CHECK_EQ(cs, 140);
  CHECK_EQ(out[31], 0x80);
  CHECK_EQ(dec_with(1, out, cs, dest, sizeof(dest)), 80);
  CHECK(rec_at(dest).cratio == 16384.f);
  CHECK_EQ(dest[12], 1);
#else
  (void)dest;
#endif
}

static void test_small_dest(void) {
#ifndef B2RS_REFERENCE_BUG_INSTR_OVERFLOW
  init_floats();
  static uint8_t out[NB + 64];
  blosc2_cparams cp = instr_params(BLOSC_BLOSCLZ, 5, BLOSC_SHUFFLE,
                                   BLOSC_FORWARD_COMPAT_SPLIT, 4, 1);
  const int sizes[] = {32, 60, 100, 139, 140, 141, 5000, 6176};
  for (int i = 0; i < 8; i++) {
    memset(out, 0xee, sizeof(out));
    int cs = comp_with(cp, g_floats, NB, out, sizes[i]);
    CHECK_EQ(cs, sizes[i] >= 140 ? 140 : 0);
    int untouched = 1;
    for (int b = sizes[i]; b < NB + 64; b++) untouched &= out[b] == 0xee;
    CHECK(untouched);
  }
#endif
}

int main(void) {
  blosc2_init();
  RUN(test_floats_blosclz);
  RUN(test_rule_every_codec);
  RUN(test_memcpyed);
  RUN(test_schunk);
  RUN(test_dict);
  RUN(test_small_dest);
  blosc2_destroy();
  return TEST_SUMMARY();
}
