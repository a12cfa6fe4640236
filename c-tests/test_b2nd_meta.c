/*
 * test_b2nd_meta.c - the parts of area 12 of API.md that need no array:
 * the b2nd metalayer, the buffer copies and the array context.
 *
 * Functions covered: b2nd_serialize_meta, b2nd_deserialize_meta, the
 * header-inline b2nd_deserialize_meta_inline (must agree with both),
 * b2nd_copy_buffer2, b2nd_copy_buffer (deprecated), b2nd_create_ctx,
 * b2nd_free_ctx.
 *
 * Compiled out against the reference (B2RS_REFERENCE_BUG_B2ND_UNCHECKED):
 * the checks of arguments that the reference does not validate (it crashes
 * or reads/writes out of bounds, or writes a metalayer for ndim > 16 that it
 * cannot read back).
 */
#include "b2rs_test.h"
#include "b2nd.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* B2ND.md 4.2: the metalayer of testdata/b2nd/example_day_month_temp.b2nd */
static const uint8_t EXAMPLE[53] = {
    0x97, 0x00, 0x02, 0x92, 0xd3, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x90, 0xd3,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x92, 0xd2, 0x00, 0x00, 0x00, 0x6e,
    0xd2, 0x00, 0x00, 0x00, 0x03, 0x92, 0xd2, 0x00, 0x00, 0x00, 0x39, 0xd2, 0x00, 0x00,
    0x00, 0x03, 0x00, 0xdb, 0x00, 0x00, 0x00, 0x03, 0x7c, 0x75, 0x31};
#define EXAMPLE_DIMS_LEN 44

static void test_serialize_exact(void) {
  int64_t shape[2] = {400, 3};
  int32_t chunkshape[2] = {110, 3};
  int32_t blockshape[2] = {57, 3};
  uint8_t *smeta = NULL;
  CHECK_EQ(b2nd_serialize_meta(2, shape, chunkshape, blockshape, "|u1", 0, &smeta), 53);
  CHECK_MEM(smeta, EXAMPLE, 53);
  free(smeta);
  /* a NULL dtype is |u1 */
  smeta = NULL;
  CHECK_EQ(b2nd_serialize_meta(2, shape, chunkshape, blockshape, NULL, 0, &smeta), 53);
  CHECK_MEM(smeta, EXAMPLE, 53);
  free(smeta);
  /* dtype_format is written as is */
  smeta = NULL;
  CHECK_EQ(b2nd_serialize_meta(2, shape, chunkshape, blockshape, "<f8", 127, &smeta), 53);
  CHECK_EQ(smeta[44], 0x7f);
  CHECK_MEM(smeta + 50, "<f8", 3);
  free(smeta);
  /* a scalar needs no shape arrays */
  static const uint8_t scalar[15] = {0x97, 0x00, 0x00, 0x90, 0x90, 0x90, 0x00, 0xdb,
                                     0x00, 0x00, 0x00, 0x03, 0x3c, 0x66, 0x38};
  smeta = NULL;
  CHECK_EQ(b2nd_serialize_meta(0, NULL, NULL, NULL, "<f8", 0, &smeta), 15);
  CHECK_MEM(smeta, scalar, 15);
  free(smeta);
  /* 16 dimensions: 0x90 + 16 as array markers, as the reference */
  int64_t s16[16];
  int32_t c16[16], b16[16];
  for (int i = 0; i < 16; i++) {
    s16[i] = 2 + i;
    c16[i] = 2;
    b16[i] = 1;
  }
  smeta = NULL;
  CHECK_EQ(b2nd_serialize_meta(16, s16, c16, b16, "|b1", 0, &smeta), 3 + 1 + 9 * 16 + 2 * (1 + 5 * 16) + 1 + 5 + 3);
  CHECK_EQ(smeta[2], 16);
  CHECK_EQ(smeta[3], 0xa0);
  free(smeta);
}

static void test_serialize_errors(void) {
  int64_t shape[2] = {400, 3};
  int32_t chunkshape[2] = {110, 3};
  int32_t blockshape[2] = {57, 3};
  uint8_t *smeta = (uint8_t *)&smeta;
  CHECK_EQ(b2nd_serialize_meta(2, shape, chunkshape, blockshape, "<f8", -1, &smeta),
           BLOSC2_ERROR_FAILURE);
  CHECK(smeta == (uint8_t *)&smeta);
  CHECK_LT(b2nd_serialize_meta(-1, shape, chunkshape, blockshape, "<f8", 0, &smeta), 0);
#ifndef B2RS_REFERENCE_BUG_B2ND_UNCHECKED
  int64_t s17[17] = {0};
  int32_t c17[17] = {0}, b17[17] = {0};
  CHECK_EQ(b2nd_serialize_meta(17, s17, c17, b17, "<f8", 0, &smeta), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(b2nd_serialize_meta(2, shape, chunkshape, blockshape, "<f8", 0, NULL),
           BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(b2nd_serialize_meta(2, NULL, chunkshape, blockshape, "<f8", 0, &smeta),
           BLOSC2_ERROR_NULL_POINTER);
  CHECK(smeta == (uint8_t *)&smeta);
#endif
}

/* Decode with the library and with the header-inline decoder; both must give the same. */
static int decode_both(const uint8_t *smeta, int32_t len, int with_dtype, int8_t *ndim,
                       int64_t *shape, int32_t *chunkshape, int32_t *blockshape, char **dtype,
                       int8_t *dtype_format) {
  int8_t ndim2 = -1;
  int64_t shape2[B2ND_MAX_DIM];
  int32_t chunkshape2[B2ND_MAX_DIM], blockshape2[B2ND_MAX_DIM];
  char *dtype2 = (char *)1;
  int8_t dtype_format2 = -1;
  int rc = b2nd_deserialize_meta(smeta, len, ndim, shape, chunkshape, blockshape,
                                 with_dtype ? dtype : NULL, with_dtype ? dtype_format : NULL);
  int rc2 = b2nd_deserialize_meta_inline(smeta, len, &ndim2, shape2, chunkshape2, blockshape2,
                                         with_dtype ? &dtype2 : NULL,
                                         with_dtype ? &dtype_format2 : NULL);
  CHECK_EQ(rc, rc2);
  if (rc >= 0 && rc2 >= 0) {
    CHECK_EQ(*ndim, ndim2);
    CHECK_MEM(shape, shape2, *ndim * sizeof(int64_t));
    CHECK_MEM(chunkshape, chunkshape2, *ndim * sizeof(int32_t));
    CHECK_MEM(blockshape, blockshape2, *ndim * sizeof(int32_t));
    if (with_dtype) {
      CHECK_EQ(*dtype_format, dtype_format2);
      CHECK((*dtype == NULL) == (dtype2 == NULL));
      if (*dtype != NULL && dtype2 != NULL) CHECK_STR(*dtype, dtype2);
    }
  }
  if (with_dtype && rc2 >= 0) free(dtype2);
  return rc;
}

static void test_deserialize_example(void) {
  int8_t ndim = -1, dtype_format = -1;
  int64_t shape[B2ND_MAX_DIM];
  int32_t chunkshape[B2ND_MAX_DIM], blockshape[B2ND_MAX_DIM];
  char *dtype = NULL;
  CHECK_EQ(decode_both(EXAMPLE, 53, 1, &ndim, shape, chunkshape, blockshape, &dtype, &dtype_format),
           53);
  CHECK_EQ(ndim, 2);
  CHECK_EQ(shape[0], 400);
  CHECK_EQ(shape[1], 3);
  CHECK_EQ(chunkshape[0], 110);
  CHECK_EQ(chunkshape[1], 3);
  CHECK_EQ(blockshape[0], 57);
  CHECK_EQ(blockshape[1], 3);
  CHECK_EQ(dtype_format, 0);
  CHECK_STR(dtype, "|u1");
  free(dtype);
  /* without dtype outputs the dtype part is not read */
  CHECK_EQ(decode_both(EXAMPLE, 53, 0, &ndim, shape, chunkshape, blockshape, NULL, NULL),
           EXAMPLE_DIMS_LEN);
  uint8_t bad[53];
  memcpy(bad, EXAMPLE, 53);
  bad[45] = 0xd9; /* not str32 */
  CHECK_EQ(decode_both(bad, 53, 0, &ndim, shape, chunkshape, blockshape, NULL, NULL),
           EXAMPLE_DIMS_LEN);
  CHECK_EQ(decode_both(bad, 53, 1, &ndim, shape, chunkshape, blockshape, &dtype, &dtype_format),
           BLOSC2_ERROR_FAILURE);
  CHECK(dtype == NULL);
  /* trailing bytes are ignored */
  uint8_t longer[60];
  memcpy(longer, EXAMPLE, 53);
  memset(longer + 53, 0xff, 7);
  CHECK_EQ(decode_both(longer, 60, 1, &ndim, shape, chunkshape, blockshape, &dtype, &dtype_format),
           53);
  free(dtype);
}

static void test_roundtrip_all_ndims(void) {
  const char *dtypes[] = {"<f8", "|S10", "[('a', '<i4'), ('b', '<f8')]", ""};
  for (int8_t nd = 0; nd <= B2ND_MAX_DIM; nd++) {
    int64_t shape[B2ND_MAX_DIM];
    int32_t chunkshape[B2ND_MAX_DIM], blockshape[B2ND_MAX_DIM];
    for (int i = 0; i < nd; i++) {
      shape[i] = ((int64_t)1 << 40) + i * 1000003;
      chunkshape[i] = 1000 + i;
      blockshape[i] = 10 + i;
    }
    const char *dt = dtypes[nd % 4];
    uint8_t *smeta = NULL;
    int len = b2nd_serialize_meta(nd, shape, chunkshape, blockshape, dt, (int8_t)(nd % 3), &smeta);
    CHECK_EQ(len, 3 + (1 + 9 * nd) + 2 * (1 + 5 * nd) + 1 + 5 + (int)strlen(dt));
    if (len < 0) continue;
    int8_t ndim = -1, dtype_format = -1;
    int64_t shape2[B2ND_MAX_DIM];
    int32_t chunkshape2[B2ND_MAX_DIM], blockshape2[B2ND_MAX_DIM];
    char *dtype = NULL;
    CHECK_EQ(decode_both(smeta, len, 1, &ndim, shape2, chunkshape2, blockshape2, &dtype,
                         &dtype_format),
             len);
    CHECK_EQ(ndim, nd);
    CHECK_MEM(shape2, shape, nd * sizeof(int64_t));
    CHECK_MEM(chunkshape2, chunkshape, nd * sizeof(int32_t));
    CHECK_MEM(blockshape2, blockshape, nd * sizeof(int32_t));
    CHECK_EQ(dtype_format, nd % 3);
    CHECK_STR(dtype, dt);
    free(dtype);
    free(smeta);
  }
}

static void test_truncated_everywhere(void) {
  int8_t ndim, dtype_format;
  int64_t shape[B2ND_MAX_DIM];
  int32_t chunkshape[B2ND_MAX_DIM], blockshape[B2ND_MAX_DIM];
  char *dtype;
  for (int32_t cut = 0; cut < 53; cut++) {
    dtype = (char *)1;
    int rc = decode_both(EXAMPLE, cut, 1, &ndim, shape, chunkshape, blockshape, &dtype,
                         &dtype_format);
    if (cut == EXAMPLE_DIMS_LEN) {
      /* a metalayer that ends after the block shape has no dtype (caterva style) */
      CHECK_EQ(rc, EXAMPLE_DIMS_LEN);
      CHECK(dtype == NULL);
      CHECK_EQ(dtype_format, 0);
    } else {
      CHECK_EQ(rc, BLOSC2_ERROR_FAILURE);
    }
    rc = decode_both(EXAMPLE, cut, 0, &ndim, shape, chunkshape, blockshape, NULL, NULL);
    CHECK_EQ(rc, cut >= EXAMPLE_DIMS_LEN ? EXAMPLE_DIMS_LEN : BLOSC2_ERROR_FAILURE);
  }
  CHECK_EQ(b2nd_deserialize_meta(EXAMPLE, -5, &ndim, shape, chunkshape, blockshape, &dtype,
                                 &dtype_format),
           BLOSC2_ERROR_FAILURE);
}

static void test_deserialize_malformed(void) {
  int8_t ndim, dtype_format;
  int64_t shape[B2ND_MAX_DIM];
  int32_t chunkshape[B2ND_MAX_DIM], blockshape[B2ND_MAX_DIM];
  char *dtype;
  uint8_t b[53];
  const uint8_t ndims[] = {17, 0x7f, 0x80, 0xff};
  for (int k = 0; k < 4; k++) {
    memcpy(b, EXAMPLE, 53);
    b[2] = ndims[k];
    CHECK_EQ(decode_both(b, 53, 1, &ndim, shape, chunkshape, blockshape, &dtype, &dtype_format),
             BLOSC2_ERROR_FAILURE);
  }
  memcpy(b, EXAMPLE, 53);
  b[46] = 0x80; /* negative dtype length */
  CHECK_EQ(decode_both(b, 53, 1, &ndim, shape, chunkshape, blockshape, &dtype, &dtype_format),
           BLOSC2_ERROR_FAILURE);
  memcpy(b, EXAMPLE, 53);
  b[49] = 4; /* dtype longer than the buffer */
  CHECK_EQ(decode_both(b, 53, 1, &ndim, shape, chunkshape, blockshape, &dtype, &dtype_format),
           BLOSC2_ERROR_FAILURE);
  /* random byte flips: never a crash, library and inline decoder agree */
  uint32_t x = 12345;
  for (int it = 0; it < 3000; it++) {
    memcpy(b, EXAMPLE, 53);
    for (int f = 0; f < 3; f++) {
      x = x * 1103515245u + 12345u;
      b[(x >> 8) % 53] ^= (uint8_t)(1u << ((x >> 20) % 8));
    }
    x = x * 1103515245u + 12345u;
    int32_t len = (int32_t)((x >> 8) % 54);
    dtype = NULL;
    int rc = decode_both(b, len, 1, &ndim, shape, chunkshape, blockshape, &dtype, &dtype_format);
    if (rc >= 0) {
      CHECK_LE(rc, len);
      CHECK_LE(ndim, B2ND_MAX_DIM);
      free(dtype);
    }
  }
  /* NULL arguments */
  CHECK_EQ(b2nd_deserialize_meta(NULL, 53, &ndim, shape, chunkshape, blockshape, &dtype,
                                 &dtype_format),
           BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(b2nd_deserialize_meta(EXAMPLE, 53, NULL, shape, chunkshape, blockshape, &dtype,
                                 &dtype_format),
           BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(b2nd_deserialize_meta(EXAMPLE, 53, &ndim, NULL, chunkshape, blockshape, &dtype,
                                 &dtype_format),
           BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(b2nd_deserialize_meta(EXAMPLE, 53, &ndim, shape, NULL, blockshape, &dtype,
                                 &dtype_format),
           BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(b2nd_deserialize_meta(EXAMPLE, 53, &ndim, shape, chunkshape, NULL, &dtype,
                                 &dtype_format),
           BLOSC2_ERROR_NULL_POINTER);
  /* only one of the dtype outputs: the dtype part is not read */
  dtype_format = 7;
  CHECK_EQ(b2nd_deserialize_meta(EXAMPLE, 53, &ndim, shape, chunkshape, blockshape, NULL,
                                 &dtype_format),
           EXAMPLE_DIMS_LEN);
  CHECK_EQ(dtype_format, 0);
}

static void test_caterva(void) {
  /* The legacy layout: fixarray of 5, no dtype. */
  uint8_t cat[EXAMPLE_DIMS_LEN];
  memcpy(cat, EXAMPLE, EXAMPLE_DIMS_LEN);
  cat[0] = 0x95;
  int8_t ndim = -1, dtype_format = -1;
  int64_t shape[B2ND_MAX_DIM];
  int32_t chunkshape[B2ND_MAX_DIM], blockshape[B2ND_MAX_DIM];
  char *dtype = (char *)1;
  CHECK_EQ(decode_both(cat, EXAMPLE_DIMS_LEN, 1, &ndim, shape, chunkshape, blockshape, &dtype,
                       &dtype_format),
           EXAMPLE_DIMS_LEN);
  CHECK_EQ(ndim, 2);
  CHECK_EQ(shape[0], 400);
  CHECK_EQ(blockshape[0], 57);
  CHECK(dtype == NULL);
  CHECK_EQ(dtype_format, 0);
}

/* ------------------------------------------------------------------ */

static uint32_t rng_state = 2463534242u;
static uint32_t rnd(uint32_t n) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 17;
  rng_state ^= rng_state << 5;
  return rng_state % n;
}

static void naive_copy(int ndim, int32_t itemsize, const uint8_t *src, const int64_t *sps,
                       const int64_t *ss, const int64_t *sst, uint8_t *dst, const int64_t *dps,
                       const int64_t *ds) {
  int64_t n = 1, shape[B2ND_MAX_DIM], sstr[B2ND_MAX_DIM], dstr[B2ND_MAX_DIM];
  for (int i = 0; i < ndim; i++) {
    shape[i] = sst[i] - ss[i];
    n *= shape[i];
  }
  sstr[ndim - 1] = dstr[ndim - 1] = 1;
  for (int i = ndim - 2; i >= 0; i--) {
    sstr[i] = sstr[i + 1] * sps[i + 1];
    dstr[i] = dstr[i + 1] * dps[i + 1];
  }
  for (int64_t k = 0; k < n; k++) {
    int64_t rem = k, so = 0, doff = 0;
    for (int i = ndim - 1; i >= 0; i--) {
      int64_t c = rem % shape[i];
      rem /= shape[i];
      so += (ss[i] + c) * sstr[i];
      doff += (ds[i] + c) * dstr[i];
    }
    memcpy(dst + doff * itemsize, src + so * itemsize, itemsize);
  }
}

static void test_copy_buffer_random(void) {
  for (int it = 0; it < 400; it++) {
    int ndim = 1 + rnd(6);
    int32_t itemsize = 1 + rnd(16);
    int64_t sps[8], ss[8], sst[8], dps[8], ds[8];
    int64_t sn = 1, dn = 1, cn = 1;
    for (int i = 0; i < ndim; i++) {
      sps[i] = 1 + rnd(ndim <= 2 ? 12 : 5);
      ss[i] = rnd((uint32_t)sps[i]);
      sst[i] = ss[i] + 1 + rnd((uint32_t)(sps[i] - ss[i]));
      int64_t n = sst[i] - ss[i];
      dps[i] = n + (rnd(3) == 0 ? 0 : rnd(3));
      ds[i] = rnd((uint32_t)(dps[i] - n + 1));
      sn *= sps[i];
      dn *= dps[i];
      cn *= n;
    }
    uint8_t *src = malloc(sn * itemsize);
    for (int64_t i = 0; i < sn * itemsize; i++) src[i] = (uint8_t)rnd(256);
    uint8_t *want = gbuf(dn * itemsize, 0x5a);
    uint8_t *got = gbuf(dn * itemsize, 0x5a);
    naive_copy(ndim, itemsize, src, sps, ss, sst, want, dps, ds);
    CHECK_EQ(b2nd_copy_buffer2((int8_t)ndim, itemsize, src, sps, ss, sst, got, dps, ds), 0);
    CHECK_MEM(got, want, dn * itemsize);
    CHECK_GUARD(got, dn * itemsize);
    /* the deprecated 8-bit itemsize variant */
    memset(got, 0x5a, dn * itemsize);
    CHECK_EQ(b2nd_copy_buffer((int8_t)ndim, (uint8_t)itemsize, src, sps, ss, sst, got, dps, ds), 0);
    CHECK_MEM(got, want, dn * itemsize);
    (void)cn;
    free(src);
    free(want);
    free(got);
  }
}

static void test_copy_buffer_edges(void) {
  uint8_t src[120], dst[120 + GUARD_LEN];
  for (int i = 0; i < 120; i++) src[i] = (uint8_t)i;
  memset(dst, 0xee, sizeof(dst));
  int64_t pad[3] = {4, 5, 6}, zero[3] = {0, 0, 0};
  /* empty copies touch nothing, even NULL buffers */
  int64_t s1[3] = {1, 1, 1}, e1[3] = {1, 5, 6};
  CHECK_EQ(b2nd_copy_buffer2(3, 1, NULL, pad, s1, e1, NULL, pad, zero), 0);
  CHECK_EQ(b2nd_copy_buffer2(3, 1, src, pad, s1, e1, dst, pad, zero), 0);
  CHECK_EQ(dst[0], 0xee);
  /* whole buffer */
  CHECK_EQ(b2nd_copy_buffer2(3, 1, src, pad, zero, pad, dst, pad, zero), 0);
  CHECK_MEM(dst, src, 120);
  CHECK_EQ(dst[120], 0xee);
  /* 1-D */
  int64_t p1[1] = {120}, a1[1] = {10}, b1[1] = {20}, d1[1] = {100};
  CHECK_EQ(b2nd_copy_buffer2(1, 1, src, p1, a1, b1, dst, p1, d1), 0);
  CHECK_MEM(dst + 100, src + 10, 10);
  CHECK_EQ(dst[120], 0xee);
  /* a large itemsize */
  int64_t pbig[1] = {2}, s0[1] = {0}, sb[1] = {1}, db[1] = {1};
  static uint8_t big_src[2 * 300], big_dst[2 * 300];
  memset(big_src, 7, sizeof(big_src));
  CHECK_EQ(b2nd_copy_buffer2(1, 300, big_src, pbig, s0, sb, big_dst, pbig, db), 0);
  CHECK_EQ(big_dst[300], 7);
  CHECK_EQ(big_dst[599], 7);
  CHECK_EQ(big_dst[299], 0);

#ifndef B2RS_REFERENCE_BUG_B2ND_UNCHECKED
  memset(dst, 0xee, sizeof(dst));
  int64_t bad_stop[3] = {4, 5, 7}, back[3] = {0, 5, 6}, neg[3] = {-1, 0, 0}, off[3] = {0, 0, 1};
  CHECK_EQ(b2nd_copy_buffer2(3, 1, src, pad, zero, bad_stop, dst, pad, zero),
           BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(b2nd_copy_buffer2(3, 1, src, pad, s1, back, dst, pad, zero), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(b2nd_copy_buffer2(3, 1, src, pad, neg, pad, dst, pad, zero), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(b2nd_copy_buffer2(3, 1, src, pad, zero, pad, dst, pad, off), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(b2nd_copy_buffer2(3, -1, src, pad, zero, pad, dst, pad, zero),
           BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(b2nd_copy_buffer2(17, 1, src, pad, zero, pad, dst, pad, zero),
           BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(b2nd_copy_buffer2(-1, 1, src, pad, zero, pad, dst, pad, zero),
           BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(b2nd_copy_buffer2(3, 1, NULL, pad, zero, pad, dst, pad, zero),
           BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(b2nd_copy_buffer2(3, 1, src, pad, zero, pad, NULL, pad, zero),
           BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(b2nd_copy_buffer2(3, 1, src, NULL, zero, pad, dst, pad, zero),
           BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(b2nd_copy_buffer2(3, 1, src, pad, zero, pad, dst, pad, NULL),
           BLOSC2_ERROR_NULL_POINTER);
  CHECK_EQ(dst[0], 0xee);
  /* ndim 0: one item */
  CHECK_EQ(b2nd_copy_buffer2(0, 4, src + 8, NULL, NULL, NULL, dst, NULL, NULL), 0);
  CHECK_MEM(dst, src + 8, 4);
  CHECK_EQ(dst[4], 0xee);
  /* overlapping buffers behave like memmove */
  uint8_t ov[20];
  for (int i = 0; i < 20; i++) ov[i] = (uint8_t)i;
  int64_t p20[1] = {20}, o0[1] = {0}, o10[1] = {10}, o5[1] = {5};
  CHECK_EQ(b2nd_copy_buffer2(1, 1, ov, p20, o0, o10, ov + 5, p20, o0), 0);
  for (int i = 0; i < 10; i++) CHECK_EQ(ov[5 + i], i);
  (void)o5;
#endif
}

/* ------------------------------------------------------------------ */

static void test_create_ctx(void) {
  int64_t shape[3] = {10, 20, 30};
  int32_t chunkshape[3] = {5, 10, 15};
  int32_t blockshape[3] = {2, 5, 5};
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  cparams.typesize = 4;
  blosc2_dparams dparams = BLOSC2_DPARAMS_DEFAULTS;
  blosc2_storage storage = {.contiguous = true, .urlpath = NULL, .cparams = &cparams,
                            .dparams = &dparams};
  b2nd_context_t *ctx =
      b2nd_create_ctx(&storage, 3, shape, chunkshape, blockshape, "<i4", 0, NULL, 0);
  CHECK(ctx != NULL);
  /* the caller's structures may change afterwards */
  cparams.typesize = -7;
  storage.cparams = NULL;
  CHECK_EQ(b2nd_free_ctx(ctx), 0);

  /* defaults everywhere */
  ctx = b2nd_create_ctx(NULL, 3, shape, chunkshape, blockshape, NULL, 0, NULL, 0);
  CHECK(ctx != NULL);
  CHECK_EQ(b2nd_free_ctx(ctx), 0);
  blosc2_storage empty = BLOSC2_STORAGE_DEFAULTS;
  ctx = b2nd_create_ctx(&empty, 0, NULL, NULL, NULL, NULL, 0, NULL, 0);
  CHECK(ctx != NULL);
  CHECK_EQ(b2nd_free_ctx(ctx), 0);

  /* urlpath and metalayers are copied */
  char *url = strdup("some/where.b2nd");
  char *name = strdup("m1");
  uint8_t *content = malloc(3);
  memcpy(content, "abc", 3);
  blosc2_metalayer metas[B2ND_MAX_METALAYERS];
  for (int i = 0; i < B2ND_MAX_METALAYERS; i++) {
    metas[i].name = name;
    metas[i].content = content;
    metas[i].content_len = 3;
  }
  storage.cparams = &cparams;
  cparams.typesize = 8;
  storage.urlpath = url;
  ctx = b2nd_create_ctx(&storage, 3, shape, chunkshape, blockshape, "<f8", 0, metas,
                        B2ND_MAX_METALAYERS);
  CHECK(ctx != NULL);
  free(url);
  free(name);
  free(content);
  CHECK_EQ(b2nd_free_ctx(ctx), 0);
  storage.urlpath = NULL;

  /* accepted as the reference does: zero chunk sizes, block > chunk, chunk > shape,
     a negative number of metalayers */
  int32_t zchunk[3] = {0, 10, 15}, zblock[3] = {0, 5, 5};
  ctx = b2nd_create_ctx(&storage, 3, shape, zchunk, zblock, NULL, 0, NULL, 0);
  CHECK(ctx != NULL);
  if (ctx) b2nd_free_ctx(ctx);
  int32_t bigblock[3] = {7, 10, 15};
  ctx = b2nd_create_ctx(&storage, 3, shape, chunkshape, bigblock, NULL, 0, NULL, 0);
  CHECK(ctx != NULL);
  if (ctx) b2nd_free_ctx(ctx);
  int32_t bigchunk[3] = {100, 10, 15};
  ctx = b2nd_create_ctx(&storage, 3, shape, bigchunk, blockshape, NULL, 0, NULL, -1);
  CHECK(ctx != NULL);
  if (ctx) b2nd_free_ctx(ctx);
  int64_t s16[16];
  int32_t c16[16], b16[16];
  for (int i = 0; i < 16; i++) {
    s16[i] = 2;
    c16[i] = 2;
    b16[i] = 1;
  }
  ctx = b2nd_create_ctx(&storage, 16, s16, c16, b16, NULL, 0, NULL, 0);
  CHECK(ctx != NULL);
  if (ctx) b2nd_free_ctx(ctx);
}

static void test_create_ctx_errors(void) {
  int64_t shape[17];
  int32_t chunkshape[17], blockshape[17];
  for (int i = 0; i < 17; i++) {
    shape[i] = 10;
    chunkshape[i] = 5;
    blockshape[i] = 2;
  }
  blosc2_cparams cparams = BLOSC2_CPARAMS_DEFAULTS;
  blosc2_storage storage = {.cparams = &cparams};
  CHECK(b2nd_create_ctx(&storage, 17, shape, chunkshape, blockshape, NULL, 0, NULL, 0) == NULL);
  CHECK(b2nd_create_ctx(&storage, -1, shape, chunkshape, blockshape, NULL, 0, NULL, 0) == NULL);
  CHECK(b2nd_create_ctx(&storage, 2, NULL, chunkshape, blockshape, NULL, 0, NULL, 0) == NULL);
  CHECK(b2nd_create_ctx(&storage, 2, shape, NULL, blockshape, NULL, 0, NULL, 0) == NULL);
  CHECK(b2nd_create_ctx(&storage, 2, shape, chunkshape, NULL, NULL, 0, NULL, 0) == NULL);
  shape[1] = -1;
  CHECK(b2nd_create_ctx(&storage, 2, shape, chunkshape, blockshape, NULL, 0, NULL, 0) == NULL);
  shape[1] = 10;
  chunkshape[1] = -5;
  CHECK(b2nd_create_ctx(&storage, 2, shape, chunkshape, blockshape, NULL, 0, NULL, 0) == NULL);
  chunkshape[1] = 5;
  blockshape[1] = -2;
  CHECK(b2nd_create_ctx(&storage, 2, shape, chunkshape, blockshape, NULL, 0, NULL, 0) == NULL);
  blockshape[1] = 0;
  CHECK(b2nd_create_ctx(&storage, 2, shape, chunkshape, blockshape, NULL, 0, NULL, 0) == NULL);
  blockshape[1] = 2;
  /* a block of more than INT32_MAX bytes: 2^28 items of 8 bytes (2^27 are fine) */
  int64_t bshape[1] = {(int64_t)1 << 28};
  int32_t bchunk[1] = {1 << 28}, bblock[1] = {1 << 28};
  cparams.typesize = 8;
  CHECK(b2nd_create_ctx(&storage, 1, bshape, bchunk, bblock, NULL, 0, NULL, 0) == NULL);
  bblock[0] = 1 << 27;
  b2nd_context_t *ctx = b2nd_create_ctx(&storage, 1, bshape, bchunk, bblock, NULL, 0, NULL, 0);
  CHECK(ctx != NULL);
  if (ctx) b2nd_free_ctx(ctx);
  cparams.typesize = -1;
  CHECK(b2nd_create_ctx(&storage, 2, shape, chunkshape, blockshape, NULL, 0, NULL, 0) == NULL);
  cparams.typesize = 8;
#ifndef B2RS_REFERENCE_BUG_B2ND_UNCHECKED
  blosc2_metalayer metas[B2ND_MAX_METALAYERS + 1];
  for (int i = 0; i <= B2ND_MAX_METALAYERS; i++) {
    metas[i].name = "m";
    metas[i].content = (uint8_t *)"abc";
    metas[i].content_len = 3;
  }
  CHECK(b2nd_create_ctx(&storage, 2, shape, chunkshape, blockshape, NULL, 0, metas,
                        B2ND_MAX_METALAYERS + 1) == NULL);
  CHECK(b2nd_create_ctx(&storage, 2, shape, chunkshape, blockshape, NULL, 0, NULL, 1) == NULL);
  metas[0].name = NULL;
  CHECK(b2nd_create_ctx(&storage, 2, shape, chunkshape, blockshape, NULL, 0, metas, 1) == NULL);
  metas[0].name = "m";
  metas[0].content = NULL;
  CHECK(b2nd_create_ctx(&storage, 2, shape, chunkshape, blockshape, NULL, 0, metas, 1) == NULL);
  metas[0].content_len = 0;
  ctx = b2nd_create_ctx(&storage, 2, shape, chunkshape, blockshape, NULL, 0, metas, 1);
  CHECK(ctx != NULL);
  if (ctx) b2nd_free_ctx(ctx);
  CHECK_EQ(b2nd_free_ctx(NULL), BLOSC2_ERROR_NULL_POINTER);
#endif
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  blosc2_init();
  RUN(test_serialize_exact);
  RUN(test_serialize_errors);
  RUN(test_deserialize_example);
  RUN(test_roundtrip_all_ndims);
  RUN(test_truncated_everywhere);
  RUN(test_deserialize_malformed);
  RUN(test_caterva);
  RUN(test_copy_buffer_random);
  RUN(test_copy_buffer_edges);
  RUN(test_create_ctx);
  RUN(test_create_ctx_errors);
  blosc2_destroy();
  return TEST_SUMMARY();
}
