/*
 * test_damaged.c - issue 9 ("Huge and damaged"): damaged files of every kind
 * fail with an error code and never crash, hang or read out of bounds.
 *
 * Good files are made with the C API: a contiguous file frame (six 6 KiB
 * chunks of BloscLZ, LZ4, Zstd, zlib and LZ4HC, a special zero chunk and a
 * short last chunk, one metalayer, two vlmetalayers), the same frame in
 * memory (blosc2_schunk_to_buffer), that frame appended at an offset of a
 * larger file (blosc2_schunk_append_file / blosc2_schunk_open_offset), a
 * sparse frame directory (chunks.b2frame + NNNNNNNN.chunk files) and a 2-D
 * b2nd array file.  Then they are damaged:
 *
 *   - truncated at every position of the header, of the offsets chunk and of
 *     the trailer (file frame, in-memory frame through
 *     blosc2_schunk_from_buffer with copy true and false, offset frame,
 *     sparse index file, b2nd file), and at every 997th in the chunks;
 *   - every byte of the header, of the offsets chunk and of the trailer set
 *     to 0, 0xFF, x^1, 0x80 and x^0x80 (file frame, copy false; x^0xFF and
 *     x^1 for the other targets; the first three values under valgrind);
 *   - the length fields (header_len, frame_len, nbytes, cbytes, typesize,
 *     blocksize, chunksize, trailer_len, the nbytes/blocksize/cbytes of the
 *     offsets chunk and of every chunk, the first and last bstarts of every
 *     chunk) set to 0, 1, -1, off-by-one, doubled, halved, negated, INT_MAX,
 *     INT_MIN and 2^32/2^40-sized values;
 *   - every 64-bit offset in the offsets chunk set to those values and to
 *     special-chunk codes (the offsets chunk is rebuilt);
 *   - 1 to 4 random bytes in the header/offsets/trailer or anywhere;
 *   - sparse frames: a missing, truncated or garbage chunk file, and its
 *     header's sizes damaged;
 *   - open_offset at offsets other than the frame's.
 *
 * Each damaged file is opened; when the open succeeds, everything is read
 * (every chunk through blosc2_schunk_decompress_chunk, get_chunk and
 * get_lazychunk + getitem, a slice, every metalayer and vlmetalayer; for
 * b2nd arrays, through b2nd_open and b2nd_from_cframe, b2nd_to_cbuffer and
 * b2nd_get_slice_cbuffer), each read giving a negative code or data within
 * its buffer (guard bytes), and then (b2rs only) the super-chunk is changed
 * (append, vlmeta update/add, meta update, delete, to_buffer).  The in-memory
 * frames sit in buffers of exactly their length, so that ASan sees any read
 * past them.  A hang is caught by alarm().  test_memory_limited limits the
 * address space and checks that damage asking for gigabytes is an error.
 *
 * Exact results asserted (as the reference C-Blosc2 3.3.5 does):
 *   - every truncation of every kind fails to open (NULL / negative);
 *   - a frame_len one more than the real length fails to open;
 *   - open_offset at any offset but the frame's gives NULL;
 *   - the good files open and read back exactly;
 *   - b2rs only: a wrong magic fails to open (the reference does not check
 *     it); b2nd_open and b2nd_from_cframe agree; a sparse frame with a
 *     damaged chunk file opens and its other chunks read back.
 *
 * Reference bugs compiled out with -DB2RS_REFERENCE (found by this test):
 *   B2RS_REFERENCE_BUG_DAMAGED_FRAME  a chunksize of 0 in a frame header
 *       crashes every open (SIGFPE); blosc2_schunk_from_buffer(copy=true)
 *       of a damaged frame crashes (SIGSEGV: it trusts the offsets and the
 *       chunks' cbytes); a sparse chunk file shorter than its header's
 *       cbytes is read past its end (heap-buffer-overflow); blosc2_vlmeta_get
 *       and chunk reads of damaged frames read out of bounds (valgrind,
 *       suppressed in tools/sanitize/valgrind.supp); changing a damaged
 *       frame crashes or reads uninitialised bytes.
 *
 * Environment: B2RS_DAMAGED_LOG=1 prints one line per case;
 * B2RS_DAMAGED_FORK=1 runs every case in a child of its own (a crash is
 * counted, not fatal: to survey a library); B2RS_DAMAGED_ONLY=substring runs
 * only the tests whose name contains it; B2RS_DAMAGED_KEEP=1 keeps the good
 * files.
 */
#include "b2rs_test.h"
#include "b2nd.h"

#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>

#ifdef B2RS_REFERENCE
#define B2RS_REFERENCE_BUG_DAMAGED_FRAME 1
#endif

#define TS 4
#define NITEMS 1536 /* int32 items per full chunk: 6 KiB */
#define CHUNK_BYTES (NITEMS * TS)
#define NCH 6
#define LAST_ITEMS 500 /* the short last chunk */
#define PREFIX_LEN 777 /* bytes before the frame in the offset file */

#define P_FILE "damaged_file.b2frame"
#define P_WORK "damaged_work.b2frame"
#define P_OFF "damaged_off.bin"
#define P_OFFW "damaged_offw.bin"
#define P_DIR "damaged_dir.b2frame"
#define P_DIRW "damaged_dirw.b2frame"
#define P_ND "damaged_arr.b2nd"
#define P_NDW "damaged_arrw.b2nd"

/* ------------------------------------------------------------------ */
/* good data                                                            */
/* ------------------------------------------------------------------ */

static uint8_t g_data[NCH][CHUNK_BYTES];
static int32_t g_nbytes[NCH];

static const int CODECS[NCH] = {BLOSC_BLOSCLZ, BLOSC_LZ4, BLOSC_ZSTD, -1, BLOSC_ZLIB, BLOSC_LZ4HC};

static void init_data(void) {
  fill_ramp32(g_data[0], CHUNK_BYTES);
  fill_mixed(g_data[1], CHUNK_BYTES, 11);
  fill_mixed(g_data[2], CHUNK_BYTES, 12);
  memset(g_data[3], 0, CHUNK_BYTES);
  fill_random(g_data[4], CHUNK_BYTES, 14);
  fill_ramp32(g_data[5], CHUNK_BYTES);
  for (int i = 0; i < NCH; i++) g_nbytes[i] = CHUNK_BYTES;
  g_nbytes[NCH - 1] = LAST_ITEMS * TS;
}

static int g_log = -1;
static int do_log(void) {
  if (g_log < 0) {
    const char *s = getenv("B2RS_DAMAGED_LOG");
    g_log = s != NULL && s[0] != '\0' && s[0] != '0';
  }
  return g_log;
}

/* fill a super-chunk with the six chunks, the metalayer and two
   vlmetalayers */
static int fill_schunk(blosc2_schunk *sc) {
  uint8_t meta[7] = {'D', 'A', 'M', 'A', 'G', 'E', 'D'};
  if (blosc2_meta_add(sc, "dmeta", meta, sizeof(meta)) < 0) return -1;
  for (int i = 0; i < NCH; i++) {
    uint8_t *chunk = malloc(CHUNK_BYTES + BLOSC2_MAX_OVERHEAD);
    int cb;
    if (CODECS[i] < 0) {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.typesize = TS;
      cb = blosc2_chunk_zeros(cp, g_nbytes[i], chunk, CHUNK_BYTES + BLOSC2_MAX_OVERHEAD);
    } else {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.typesize = TS;
      cp.compcode = (uint8_t)CODECS[i];
      cp.clevel = 5;
      cp.blocksize = 2048;
      cp.nthreads = 1;
      blosc2_context *cctx = blosc2_create_cctx(cp);
      cb = blosc2_compress_ctx(cctx, g_data[i], g_nbytes[i], chunk,
                               CHUNK_BYTES + BLOSC2_MAX_OVERHEAD);
      blosc2_free_ctx(cctx);
    }
    if (cb <= 0) {
      free(chunk);
      return -1;
    }
    int64_t n = blosc2_schunk_append_chunk(sc, chunk, true);
    free(chunk);
    if (n != i + 1) return -1;
  }
  if (blosc2_vlmeta_add(sc, "vla", (uint8_t *)"first vlmeta", 12, NULL) < 0) return -1;
  if (blosc2_vlmeta_add(sc, "vlbb", (uint8_t *)"the second variable-length metalayer", 36,
                        NULL) < 0)
    return -1;
  return 0;
}

static blosc2_schunk *new_schunk(const char *urlpath, bool contiguous) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = TS;
  cp.nthreads = 1;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = 1;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  st.dparams = &dp;
  st.contiguous = contiguous;
  st.urlpath = (char *)urlpath;
  if (urlpath != NULL) blosc2_remove_urlpath(urlpath);
  blosc2_schunk *sc = blosc2_schunk_new(&st);
  if (sc == NULL) return NULL;
  if (fill_schunk(sc) < 0) {
    blosc2_schunk_free(sc);
    return NULL;
  }
  return sc;
}

/* ------------------------------------------------------------------ */
/* files                                                                */
/* ------------------------------------------------------------------ */

static uint8_t *read_file(const char *path, int64_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
  if (n > 0 && fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    fclose(f);
    return NULL;
  }
  fclose(f);
  *len = n;
  return b;
}

static int write_file(const char *path, const uint8_t *b, int64_t len) {
  FILE *f = fopen(path, "wb");
  if (f == NULL) return -1;
  size_t w = len > 0 ? fwrite(b, 1, (size_t)len, f) : 0;
  fclose(f);
  return w == (size_t)(len > 0 ? len : 0) ? 0 : -1;
}

static void copy_file(const char *from, const char *to) {
  int64_t n;
  uint8_t *b = read_file(from, &n);
  CHECK(b != NULL);
  if (b == NULL) return;
  CHECK_EQ(write_file(to, b, n), 0);
  free(b);
}

/* copy the sparse frame directory P_DIR to P_DIRW (index and chunk files) */
static void copy_dir(void) {
  blosc2_remove_urlpath(P_DIRW);
  mkdir(P_DIRW, 0755);
  DIR *d = opendir(P_DIR);
  CHECK(d != NULL);
  if (d == NULL) return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/%s", P_DIR, e->d_name);
    snprintf(b, sizeof b, "%s/%s", P_DIRW, e->d_name);
    copy_file(a, b);
  }
  closedir(d);
}

/* ------------------------------------------------------------------ */
/* frame layout                                                         */
/* ------------------------------------------------------------------ */

static int64_t rd_be(const uint8_t *p, int w) {
  uint64_t v = 0;
  for (int i = 0; i < w; i++) v = (v << 8) | p[i];
  if (w == 4) return (int32_t)(uint32_t)v;
  return (int64_t)v;
}

static void wr_be(uint8_t *p, int w, int64_t v) {
  for (int i = w - 1; i >= 0; i--) {
    p[i] = (uint8_t)v;
    v = (int64_t)((uint64_t)v >> 8);
  }
}

static void wr_le(uint8_t *p, int w, int64_t v) {
  for (int i = 0; i < w; i++) {
    p[i] = (uint8_t)v;
    v = (int64_t)((uint64_t)v >> 8);
  }
}

#define POS_HEADER_LEN 11
#define POS_FRAME_LEN 16
#define POS_NBYTES 30
#define POS_CBYTES 39
#define POS_TYPESIZE 48
#define POS_BLOCKSIZE 53
#define POS_CHUNKSIZE 58

typedef struct {
  int64_t len;       /* frame length */
  int32_t hlen;      /* header_len */
  int64_t cbytes;    /* header cbytes */
  int64_t off_start; /* the offsets chunk */
  int32_t off_cb;
  int64_t tr_start; /* the trailer */
  int32_t tr_len;
  int64_t nchunks;
  int64_t offsets[64];
} layout;

/* the layout of the frame of `len` bytes at `f` (sparse: the index file) */
static int parse_layout(const uint8_t *f, int64_t len, bool sparse, layout *L) {
  memset(L, 0, sizeof(*L));
  L->len = len;
  L->hlen = (int32_t)rd_be(f + POS_HEADER_LEN, 4);
  L->cbytes = rd_be(f + POS_CBYTES, 8);
  L->off_start = L->hlen + (sparse ? 0 : L->cbytes);
  L->off_cb = rd_i32(f + L->off_start + 12);
  L->tr_len = (int32_t)rd_be(f + len - 22, 4);
  L->tr_start = len - L->tr_len;
  CHECK_EQ(rd_be(f + POS_FRAME_LEN, 8), len);
  CHECK_EQ(L->off_start + L->off_cb, L->tr_start);
  int32_t nb = rd_i32(f + L->off_start + 4);
  L->nchunks = nb / 8;
  CHECK_LE(L->nchunks, 64);
  if (L->nchunks > 64 || L->off_start + L->off_cb != L->tr_start) return -1;
  int rc = blosc2_decompress(f + L->off_start, L->off_cb, L->offsets, (int32_t)sizeof(L->offsets));
  CHECK_EQ(rc, nb);
  return rc == nb ? 0 : -1;
}

/* the frame `f` with its offsets chunk replaced by one holding `offsets`
   (frame_len updated); returns the new length */
static int64_t rebuild_offsets(const uint8_t *f, const layout *L, const int64_t *offsets,
                               uint8_t *out, int64_t cap) {
  uint8_t chunk[64 * 8 + BLOSC2_MAX_OVERHEAD];
  int cb = blosc2_compress(5, BLOSC_SHUFFLE, 8, offsets, (int32_t)(L->nchunks * 8), chunk,
                           (int32_t)sizeof(chunk));
  if (cb <= 0) return -1;
  int64_t n = L->off_start + cb + L->tr_len;
  if (n > cap) return -1;
  memcpy(out, f, (size_t)L->off_start);
  memcpy(out + L->off_start, chunk, (size_t)cb);
  memcpy(out + L->off_start + cb, f + L->tr_start, (size_t)L->tr_len);
  wr_be(out + POS_FRAME_LEN, 8, n);
  return n;
}

/* ------------------------------------------------------------------ */
/* reading everything                                                   */
/* ------------------------------------------------------------------ */

static void getitem_chunk(blosc2_schunk *sc, const uint8_t *chunk, int cb) {
  if (cb <= 0 || chunk == NULL) return;
  uint8_t *out = gbuf(CHUNK_BYTES, 0);
  /* a few items in the first block and in the last one */
  int rc = blosc2_getitem_ctx(sc->dctx, chunk, cb, 3, 5, out, CHUNK_BYTES);
  CHECK_LE(rc, CHUNK_BYTES);
  rc = blosc2_getitem_ctx(sc->dctx, chunk, cb, LAST_ITEMS - 7, 7, out, CHUNK_BYTES);
  CHECK_LE(rc, CHUNK_BYTES);
  CHECK_GUARD(out, CHUNK_BYTES);
  free(out);
}

static void read_chunk(blosc2_schunk *sc, int64_t i) {
  uint8_t *out = gbuf(CHUNK_BYTES, 0);
  int rc = blosc2_schunk_decompress_chunk(sc, i, out, CHUNK_BYTES);
  CHECK_LE(rc, CHUNK_BYTES);
  CHECK_GUARD(out, CHUNK_BYTES);
  free(out);
  /* getitem on the chunk (frames: a copy of it), and on the lazy chunk
     (file frames: the header and block offsets only) */
  for (int lazy = 0; lazy <= 1; lazy++) {
    uint8_t *chunk = NULL;
    bool needs_free = false;
    rc = lazy ? blosc2_schunk_get_lazychunk(sc, i, &chunk, &needs_free)
              : blosc2_schunk_get_chunk(sc, i, &chunk, &needs_free);
    if (rc > 0 && (lazy || i == 0)) getitem_chunk(sc, chunk, rc);
    if (needs_free) free(chunk);
  }
}

/* read everything; `chunks`: the chunks too (not only the metalayers) */
static void read_schunk(blosc2_schunk *sc, bool chunks) {
  int64_t n = chunks ? sc->nchunks : 0;
  int64_t lim = n < 12 ? n : 12;
  for (int64_t i = 0; i < lim; i++) read_chunk(sc, i);
  if (n > lim) read_chunk(sc, n - 1);
  if (chunks) {
    read_chunk(sc, n); /* one past the end */
    read_chunk(sc, -1);
  }
  /* a slice across the first chunks */
  int32_t ts = sc->typesize;
  if (chunks && ts >= 1 && ts <= 64 && sc->nbytes / ts > 2 * NITEMS + 10) {
    int64_t start = NITEMS - 5, stop = 2 * NITEMS + 10;
    size_t sz = (size_t)(stop - start) * (size_t)ts;
    uint8_t *buf = gbuf(sz, 0);
    int rc = blosc2_schunk_get_slice_buffer(sc, start, stop, buf);
    CHECK_LE(rc, 0);
    CHECK_GUARD(buf, sz);
    free(buf);
  }
  /* metalayers */
  int nm = sc->nmetalayers;
  for (int i = 0; i < nm && i < BLOSC2_MAX_METALAYERS; i++) {
    if (sc->metalayers[i] == NULL || sc->metalayers[i]->name == NULL) continue;
    uint8_t *content = NULL;
    int32_t clen = 0;
    if (blosc2_meta_get(sc, sc->metalayers[i]->name, &content, &clen) >= 0) free(content);
  }
  int nvl = sc->nvlmetalayers;
  if (nvl > 0 && nvl <= BLOSC2_MAX_VLMETALAYERS) {
    char **names = calloc((size_t)nvl, sizeof(char *));
    int got = blosc2_vlmeta_get_names(sc, names);
    for (int i = 0; i < got && i < nvl; i++) {
      if (names[i] == NULL) continue;
      uint8_t *content = NULL;
      int32_t clen = 0;
      if (blosc2_vlmeta_get(sc, names[i], &content, &clen) >= 0) free(content);
    }
    free(names);
  }
}

static int under_valgrind(void) {
  const char *p = getenv("LD_PRELOAD");
  return p != NULL && strstr(p, "vgpreload") != NULL;
}

/* big allocations (of arrays whose damaged shapes ask for gigabytes) are
   slow under valgrind (its calloc writes every byte) and ASan (it poisons
   their shadow memory) */
static int big_allocs_slow(void) {
#if defined(__SANITIZE_ADDRESS__)
  return 1;
#else
  return under_valgrind();
#endif
}

/* change the opened damaged super-chunk: append, update and add
   (vl)metalayers, delete a chunk, serialize: errors or success, no crash
   (not against the reference: it crashes or reads uninitialised bytes, and
   it reallocs the buffer of a copy == false frame, which this test frees) */
static void write_schunk(blosc2_schunk *sc) {
#ifdef B2RS_REFERENCE
  (void)sc;
  return;
#endif
  /* (under valgrind one case in four: the runtime stays near 30 s) */
  static unsigned calls = 0;
  if (under_valgrind() && calls++ % 4 != 0) return;
  int64_t rc = blosc2_schunk_append_buffer(sc, g_data[0], CHUNK_BYTES);
  (void)rc;
  uint8_t *out = gbuf(CHUNK_BYTES, 0);
  if (sc->nchunks > 0) {
    blosc2_schunk_decompress_chunk(sc, sc->nchunks - 1, out, CHUNK_BYTES);
  }
  free(out);
  blosc2_vlmeta_update(sc, "vla", (uint8_t *)"new", 3, NULL);
  blosc2_vlmeta_add(sc, "vlnew", (uint8_t *)"newer", 5, NULL);
  uint8_t m[7] = {1, 2, 3, 4, 5, 6, 7};
  blosc2_meta_update(sc, "dmeta", m, 7);
  if (sc->nchunks > 1) blosc2_schunk_delete_chunk(sc, 1);
  uint8_t *cframe = NULL;
  bool nf = false;
  int64_t n = blosc2_schunk_to_buffer(sc, &cframe, &nf);
  if (n > 0 && nf) free(cframe);
}

static void read_array(b2nd_array_t *a) {
  int nd = a->ndim;
  int64_t items = 1;
  bool ok = nd >= 0 && nd <= B2ND_MAX_DIM && a->sc != NULL;
  for (int i = 0; ok && i < nd; i++) {
    if (a->shape[i] < 0 || a->shape[i] > (1 << 16)) ok = false;
    else items *= a->shape[i];
    if (items > (1 << 16)) ok = false;
  }
  int32_t ts = a->sc != NULL ? a->sc->typesize : 0;
  /* (at most 64 KiB: bigger arrays made by the damage take long under
     valgrind) */
  if (ts < 1 || ts > 64 || items * ts > (1 << 16)) ok = false;
  /* a damaged chunkshape or blockshape can make chunks of up to 2 GiB (as
     the reference, b2nd_open accepts them and the reads fail): under
     valgrind and ASan, whose big allocations are slow, those are not read
     (test_memory_limited and the plain run cover them) */
  if (big_allocs_slow() && a->extchunknitems * ts > (1 << 24)) ok = false;
  if (ok) {
    size_t sz = (size_t)items * (size_t)ts;
    uint8_t *buf = gbuf(sz, 0);
    int rc = b2nd_to_cbuffer(a, buf, (int64_t)sz);
    CHECK_LE(rc, 0);
    CHECK_GUARD(buf, sz);
    free(buf);
    int64_t start[B2ND_MAX_DIM] = {0}, stop[B2ND_MAX_DIM] = {0}, bshape[B2ND_MAX_DIM] = {0};
    size_t ssz = (size_t)ts;
    for (int i = 0; i < nd; i++) {
      start[i] = a->shape[i] > 2 ? 1 : 0;
      stop[i] = a->shape[i] < 20 ? a->shape[i] : 20;
      bshape[i] = stop[i] - start[i];
      ssz *= (size_t)bshape[i];
    }
    buf = gbuf(ssz, 0);
    rc = b2nd_get_slice_cbuffer(a, start, stop, buf, bshape, (int64_t)ssz);
    CHECK_LE(rc, 0);
    CHECK_GUARD(buf, ssz);
    free(buf);
  }
  /* (b2nd_to_cbuffer read the chunks) */
  if (a->sc != NULL) read_schunk(a->sc, !ok);
}

/* change the opened damaged array: set a slice, resize, append, delete
   (b2rs only, as write_schunk) */
static void write_array(b2nd_array_t *a) {
#ifdef B2RS_REFERENCE
  (void)a;
  return;
#endif
  static unsigned calls = 0;
  if (under_valgrind() && calls++ % 4 != 0) return;
  int nd = a->ndim;
  if (nd < 1 || nd > B2ND_MAX_DIM || a->sc == NULL || a->sc->typesize != 4) return;
  /* (b2rs resizes through a copy of the whole array: damaged arrays of
     16 MiB to 1 TiB are left alone, they would take gigabytes; under
     valgrind and ASan, all those over 16 MiB.  Beyond 1 TiB the allocation
     fails at once: the changes must fail, as in test_memory_limited) */
  double bytes = 4.0;
  for (int i = 0; i < nd; i++) bytes *= a->shape[i] > 0 ? (double)a->shape[i] : 1.0;
  if (4.0 * (double)a->extchunknitems > bytes) bytes = 4.0 * (double)a->extchunknitems;
  if (bytes > (double)(1 << 24) && (big_allocs_slow() || bytes < 1099511627776.0)) return;
  int64_t start[B2ND_MAX_DIM] = {0}, stop[B2ND_MAX_DIM] = {0}, bshape[B2ND_MAX_DIM] = {0};
  int32_t buf[256] = {0};
  for (int i = 0; i < nd; i++) {
    stop[i] = a->shape[i] < 2 ? a->shape[i] : 2;
    bshape[i] = stop[i];
  }
  b2nd_set_slice_cbuffer(buf, bshape, sizeof(buf), start, stop, a);
  int64_t ns[B2ND_MAX_DIM];
  for (int i = 0; i < nd; i++) ns[i] = a->shape[i];
  ns[0] = (int64_t)((uint64_t)ns[0] + 3);
  b2nd_resize(a, ns, NULL);
  if (nd == 2 && a->shape[1] >= 0 && a->shape[1] <= 256) b2nd_append(a, buf, 4 * a->shape[1], 0);
  if (a->shape[0] > 2) b2nd_delete(a, 0, 0, 1);
}

/* ------------------------------------------------------------------ */
/* the damaged targets                                                  */
/* ------------------------------------------------------------------ */

enum target { T_FILE, T_MEM_COPY, T_MEM_NOCOPY, T_OFFSET, T_INDEX, T_B2ND, NTARGETS };
static const char *const TARGET_NAMES[NTARGETS] = {"file", "mem-copy", "mem-nocopy",
                                                   "offset", "index", "b2nd"};

/* the good bytes of each target (frame at `base` in the buffer) */
static uint8_t *g_bytes[NTARGETS];
static int64_t g_len[NTARGETS];
static int64_t g_base[NTARGETS];
static layout g_layout[NTARGETS];

static long g_cases = 0;
static long g_opened = 0;

/* open the damaged bytes `b` as target `t`, read everything if it opens;
   returns 1 when it opened, 0 when the open failed */
static int try_target_body(enum target t, const uint8_t *b, int64_t len, const char *what,
                           int64_t pos, int64_t val);

static int g_fork_each = -1;

/* B2RS_DAMAGED_FORK=1: every case in a child of its own, a crash reported
   and counted instead of ending the test (to survey a library that crashes,
   such as the reference) */
static int try_target(enum target t, const uint8_t *b, int64_t len, const char *what, int64_t pos,
                      int64_t val) {
  if (g_fork_each < 0) {
    const char *s = getenv("B2RS_DAMAGED_FORK");
    g_fork_each = s != NULL && s[0] == '1';
  }
  if (!g_fork_each) return try_target_body(t, b, len, what, pos, val);
  pid_t pid = t_fork();
  if (pid == 0) {
    long f0 = t_failed;
    int r = try_target_body(t, b, len, what, pos, val);
    _exit(t_failed != f0 ? 3 : r);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_cases++;
  if (WIFSIGNALED(status)) {
    fprintf(stderr, "CASECRASH %s %s pos=%" PRId64 " val=%" PRId64 " len=%" PRId64 " signal %d\n",
            TARGET_NAMES[t], what, pos, val, len, WTERMSIG(status));
    t_failed++;
    return 0;
  }
  int r = WIFEXITED(status) ? WEXITSTATUS(status) : 3;
  if (r == 3) {
    t_failed++;
    return 0;
  }
  g_opened += r;
  return r;
}

static int try_target_body(enum target t, const uint8_t *b, int64_t len, const char *what,
                           int64_t pos, int64_t val) {
#ifdef B2RS_REFERENCE_BUG_DAMAGED_FRAME
  /* the cases that crash the reference */
  if (t == T_MEM_COPY && strcmp(what, "truncate") != 0 && strcmp(what, "good") != 0 &&
      strcmp(what, "offsets-unchanged") != 0)
    return 0;
  if (len >= g_base[t] + POS_CHUNKSIZE + 4 && rd_be(b + g_base[t] + POS_CHUNKSIZE, 4) == 0)
    return 0;
#endif
  g_cases++;
  if (do_log()) {
    fprintf(stderr, "case %s %s pos=%" PRId64 " val=%" PRId64 " len=%" PRId64 " ... ",
            TARGET_NAMES[t], what, pos, val, len);
  }
  int opened = 0;
  switch (t) {
    case T_FILE:
    case T_OFFSET: {
      const char *p = t == T_FILE ? P_WORK : P_OFFW;
      CHECK_EQ(write_file(p, b, len), 0);
      blosc2_schunk *sc =
          t == T_FILE ? blosc2_schunk_open(p) : blosc2_schunk_open_offset(p, PREFIX_LEN);
      if (sc != NULL) {
        opened = 1;
        read_schunk(sc, true);
        write_schunk(sc);
        blosc2_schunk_free(sc);
      }
      break;
    }
    case T_MEM_COPY:
    case T_MEM_NOCOPY: {
      /* exactly `len` bytes, so that reads past the end are caught by ASan */
      uint8_t *buf = malloc(len > 0 ? (size_t)len : 1);
      if (len > 0) memcpy(buf, b, (size_t)len);
      blosc2_schunk *sc = blosc2_schunk_from_buffer(buf, len, t == T_MEM_COPY);
      if (sc != NULL) {
        opened = 1;
        read_schunk(sc, true);
        if (t == T_MEM_NOCOPY) write_schunk(sc);
        blosc2_schunk_free(sc);
      }
      free(buf);
      break;
    }
    case T_INDEX: {
      CHECK_EQ(write_file(P_DIRW "/chunks.b2frame", b, len), 0);
      blosc2_schunk *sc = blosc2_schunk_open(P_DIRW);
      if (sc != NULL) {
        opened = 1;
        read_schunk(sc, true);
        /* (changes rewrite the chunk files: only for the random cases, with
           the directory restored after) */
        bool change = strncmp(what, "random", 6) == 0;
        if (change) write_schunk(sc);
        blosc2_schunk_free(sc);
        if (change) copy_dir();
      }
      break;
    }
    case T_B2ND: {
      CHECK_EQ(write_file(P_NDW, b, len), 0);
      b2nd_array_t *a = NULL;
      int rc = b2nd_open(P_NDW, &a);
      if (rc == 0 && a != NULL) {
        opened = 1;
        read_array(a);
        write_array(a);
        b2nd_free(a);
      } else {
        CHECK_LT(rc, 0);
      }
      /* the same bytes in memory, lent (b2nd_from_cframe, copy false): the
         same open result */
      uint8_t *buf = malloc(len > 0 ? (size_t)len : 1);
      if (len > 0) memcpy(buf, b, (size_t)len);
      a = NULL;
      rc = b2nd_from_cframe(buf, len, false, &a);
#ifndef B2RS_REFERENCE
      /* (the reference's file and memory readers check different things) */
      CHECK_EQ(rc == 0 && a != NULL, opened);
#endif
      if (rc == 0 && a != NULL) {
        read_array(a);
        b2nd_free(a);
      }
      free(buf);
      break;
    }
    default:
      break;
  }
  g_opened += opened;
  if (do_log()) fprintf(stderr, "%s\n", opened ? "opened" : "failed");
  return opened;
}


static void load_targets(void) {
  int64_t n;
  g_bytes[T_FILE] = read_file(P_FILE, &n);
  g_len[T_FILE] = n;
  g_bytes[T_MEM_COPY] = read_file(P_FILE, &n);
  g_len[T_MEM_COPY] = n;
  g_bytes[T_MEM_NOCOPY] = read_file(P_FILE, &n);
  g_len[T_MEM_NOCOPY] = n;
  g_bytes[T_OFFSET] = read_file(P_OFF, &n);
  g_len[T_OFFSET] = n;
  g_base[T_OFFSET] = PREFIX_LEN;
  g_bytes[T_INDEX] = read_file(P_DIR "/chunks.b2frame", &n);
  g_len[T_INDEX] = n;
  g_bytes[T_B2ND] = read_file(P_ND, &n);
  g_len[T_B2ND] = n;
  for (int t = 0; t < NTARGETS; t++) {
    if (g_bytes[t] == NULL) {
      fprintf(stderr, "cannot read the good file of %s\n", TARGET_NAMES[t]);
      exit(2);
    }
    int rc = parse_layout(g_bytes[t] + g_base[t], g_len[t] - g_base[t], t == T_INDEX,
                          &g_layout[t]);
    CHECK_EQ(rc, 0);
  }
  copy_dir();
}

static void free_targets(void) {
  for (int t = 0; t < NTARGETS; t++) free(g_bytes[t]);
}

/* ------------------------------------------------------------------ */
/* building the good files                                              */
/* ------------------------------------------------------------------ */

static void check_good_schunk(blosc2_schunk *sc, int64_t nchunks) {
  CHECK_EQ(sc->nchunks, nchunks);
  uint8_t *out = gbuf(CHUNK_BYTES, 0);
  for (int i = 0; i < NCH && i < sc->nchunks; i++) {
    int rc = blosc2_schunk_decompress_chunk(sc, i, out, CHUNK_BYTES);
    CHECK_EQ(rc, g_nbytes[i]);
    if (rc == g_nbytes[i]) CHECK_MEM(out, g_data[i], (size_t)rc);
  }
  free(out);
  uint8_t *content = NULL;
  int32_t len = 0;
  CHECK_GE(blosc2_meta_get(sc, "dmeta", &content, &len), 0);
  CHECK_EQ(len, 7);
  if (len == 7) CHECK_MEM(content, "DAMAGED", 7);
  free(content);
  CHECK_EQ(sc->nvlmetalayers, 2);
  content = NULL;
  CHECK_GE(blosc2_vlmeta_get(sc, "vlbb", &content, &len), 0);
  CHECK_EQ(len, 36);
  free(content);
}

#define ND_SHAPE0 50
#define ND_SHAPE1 40

static void make_files(void) {
  init_data();
  blosc2_remove_urlpath(P_WORK);
  blosc2_remove_urlpath(P_OFFW);
  blosc2_remove_urlpath(P_NDW);
  /* the file frame */
  blosc2_schunk *sc = new_schunk(P_FILE, true);
  CHECK(sc != NULL);
  if (sc == NULL) exit(2);
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_open(P_FILE);
  CHECK(sc != NULL);
  if (sc == NULL) exit(2);
  check_good_schunk(sc, NCH);
  /* the same frame at an offset of a larger file */
  uint8_t prefix[PREFIX_LEN];
  fill_random(prefix, PREFIX_LEN, 99);
  CHECK_EQ(write_file(P_OFF, prefix, PREFIX_LEN), 0);
  CHECK_EQ(blosc2_schunk_append_file(sc, P_OFF), PREFIX_LEN);
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_open_offset(P_OFF, PREFIX_LEN);
  CHECK(sc != NULL);
  if (sc != NULL) check_good_schunk(sc, NCH);
  blosc2_schunk_free(sc);
  /* the sparse frame */
  sc = new_schunk(P_DIR, false);
  CHECK(sc != NULL);
  if (sc == NULL) exit(2);
  blosc2_schunk_free(sc);
  sc = blosc2_schunk_open(P_DIR);
  CHECK(sc != NULL);
  if (sc != NULL) check_good_schunk(sc, NCH);
  blosc2_schunk_free(sc);
  /* the b2nd array */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.nthreads = 1;
  cp.compcode = BLOSC_ZSTD;
  blosc2_storage st = BLOSC2_STORAGE_DEFAULTS;
  st.cparams = &cp;
  st.contiguous = true;
  st.urlpath = P_ND;
  blosc2_remove_urlpath(P_ND);
  int64_t shape[2] = {ND_SHAPE0, ND_SHAPE1};
  int32_t cshape[2] = {16, 16};
  int32_t bshape[2] = {8, 8};
  b2nd_context_t *ctx = b2nd_create_ctx(&st, 2, shape, cshape, bshape, NULL, 0, NULL, 0);
  CHECK(ctx != NULL);
  if (ctx == NULL) exit(2);
  int32_t nd[ND_SHAPE0 * ND_SHAPE1];
  for (int i = 0; i < ND_SHAPE0 * ND_SHAPE1; i++) nd[i] = i * 7 - 3000;
  b2nd_array_t *a = NULL;
  CHECK_EQ(b2nd_from_cbuffer(ctx, &a, nd, sizeof(nd)), 0);
  b2nd_free(a);
  b2nd_free_ctx(ctx);
  a = NULL;
  CHECK_EQ(b2nd_open(P_ND, &a), 0);
  if (a != NULL) {
    int32_t back[ND_SHAPE0 * ND_SHAPE1];
    CHECK_EQ(b2nd_to_cbuffer(a, back, sizeof(back)), 0);
    CHECK_MEM(back, nd, sizeof(nd));
    b2nd_free(a);
  }
}

/* ------------------------------------------------------------------ */
/* tests                                                                */
/* ------------------------------------------------------------------ */

static void start(void) {
  alarm(600); /* a hang becomes a crash of this test */
  g_cases = 0;
  g_opened = 0;
  load_targets();
}

static void finish(const char *name) {
  printf("  %s: %ld cases, %ld opened\n", name, g_cases, g_opened);
  free_targets();
}

/* the good bytes of every target open and read back */
static void test_good_files(void) {
  start();
  for (int t = 0; t < NTARGETS; t++) {
    CHECK_EQ(try_target((enum target)t, g_bytes[t], g_len[t], "good", 0, 0), 1);
  }
  /* the in-memory frame of the file frame is the same bytes */
  blosc2_schunk *sc = blosc2_schunk_open(P_FILE);
  CHECK(sc != NULL);
  if (sc != NULL) {
    uint8_t *cframe = NULL;
    bool needs_free = false;
    int64_t n = blosc2_schunk_to_buffer(sc, &cframe, &needs_free);
    CHECK_EQ(n, g_len[T_FILE]);
    /* (the reference writes its current nthreads into bytes 63..67) */
    if (n == g_len[T_FILE]) {
      CHECK_MEM(cframe, g_bytes[T_FILE], 60);
      CHECK_MEM(cframe + 70, g_bytes[T_FILE] + 70, (size_t)n - 70);
    }
    if (needs_free) free(cframe);
    blosc2_schunk_free(sc);
  }
  /* copy true and false read the same data */
  for (int copy = 0; copy <= 1; copy++) {
    uint8_t *buf = malloc((size_t)g_len[T_FILE]);
    memcpy(buf, g_bytes[T_FILE], (size_t)g_len[T_FILE]);
    sc = blosc2_schunk_from_buffer(buf, g_len[T_FILE], copy);
    CHECK(sc != NULL);
    if (sc != NULL) check_good_schunk(sc, NCH);
    blosc2_schunk_free(sc);
    free(buf);
  }
  finish("good");
}

/* every truncation in the header, the offsets chunk and the trailer fails */
static void truncate_target(enum target t) {
  const layout *L = &g_layout[t];
  int64_t base = g_base[t];
  for (int64_t n = 0; n < g_len[t]; n++) {
    bool in_header = n <= base + L->hlen;
    bool in_tail = n >= base + L->off_start;
    /* before the frame (offset files): a few */
    if (base > 0 && n < base && n != 0 && n != 1 && n != base - 1) continue;
    if (!in_header && !in_tail) {
      /* in the chunks: a few */
      if ((n - base - L->hlen) % 997 != 1) continue;
    }
    int opened = try_target(t, g_bytes[t], n, "truncate", n, 0);
    if (opened) fprintf(stderr, "  %s truncated to %" PRId64 " bytes opened\n", TARGET_NAMES[t], n);
    CHECK_EQ(opened, 0);
  }
}

static void test_truncate_file(void) {
  start();
  truncate_target(T_FILE);
  finish("truncate file");
}

static void test_truncate_mem(void) {
  start();
  truncate_target(T_MEM_COPY);
  truncate_target(T_MEM_NOCOPY);
  finish("truncate mem");
}

static void test_truncate_offset(void) {
  start();
  /* offsets that are not where the frame starts */
  CHECK_EQ(write_file(P_OFFW, g_bytes[T_OFFSET], g_len[T_OFFSET]), 0);
  int64_t offs[] = {0, 1, PREFIX_LEN - 1, PREFIX_LEN + 1, g_len[T_OFFSET] - 1, g_len[T_OFFSET],
                    g_len[T_OFFSET] + 5, INT64_MAX, -1, INT64_MIN};
  for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
    blosc2_schunk *sc = blosc2_schunk_open_offset(P_OFFW, offs[i]);
    if (sc != NULL) fprintf(stderr, "  open_offset at %" PRId64 " opened\n", offs[i]);
    CHECK(sc == NULL);
    if (sc != NULL) blosc2_schunk_free(sc);
  }
  blosc2_schunk *sc = blosc2_schunk_open_offset(P_OFFW, PREFIX_LEN);
  CHECK(sc != NULL);
  blosc2_schunk_free(sc);
  truncate_target(T_OFFSET);
  finish("truncate offset");
}

static void test_truncate_index(void) {
  start();
  truncate_target(T_INDEX);
  finish("truncate index");
}

static void test_truncate_b2nd(void) {
  start();
  truncate_target(T_B2ND);
  finish("truncate b2nd");
}

/* every byte of the header, the offsets chunk and the trailer set to a few
   values; `full`: all five values, else two */
static void flip_target(enum target t, bool full) {
  const layout *L = &g_layout[t];
  int64_t base = g_base[t];
  int64_t len = g_len[t];
  uint8_t *b = malloc((size_t)len);
  memcpy(b, g_bytes[t], (size_t)len);
  for (int64_t p = base; p < len; p++) {
    int64_t rel = p - base;
    if (rel >= L->hlen && rel < L->off_start) continue;
    uint8_t x = b[p];
    int vals[5] = {0, 0xFF, x ^ 1, 0x80, x ^ 0x80};
    /* (under valgrind, which runs this program some 20 times slower, the
       first three values: the sweep stays under 30 s there) */
    int nv = full ? (under_valgrind() ? 3 : 5) : 2;
    if (!full) {
      vals[0] = x ^ 0xFF;
      vals[1] = x ^ 1;
    }
    for (int k = 0; k < nv; k++) {
      if (vals[k] == x) continue;
      b[p] = (uint8_t)vals[k];
      int opened = try_target(t, b, len, "flip", rel, vals[k]);
#ifdef B2RS_REFERENCE
      /* the reference's blosc2_schunk_from_buffer checks "b2frame\0" (bytes 2-9; with a
         copy, bytes 0-1 matter at times too); its opens of a file never read the magic */
      bool mem = t == T_MEM_COPY || t == T_MEM_NOCOPY;
      if (rel < 10 && (!mem || rel >= 2)) CHECK_EQ(opened, mem ? 0 : 1);
#else
      /* b2rs never needs the magic to read a frame */
      if (rel < 10) CHECK_EQ(opened, 1);
#endif
      b[p] = x;
    }
  }
  free(b);
}

static void test_flip_file(void) {
  start();
  flip_target(T_FILE, true);
  finish("flip file");
}

static void test_flip_mem(void) {
  start();
  /* (copy == true parses the frame as copy == false does: two values) */
  flip_target(T_MEM_COPY, false);
  flip_target(T_MEM_NOCOPY, true);
  finish("flip mem");
}

static void test_flip_offset(void) {
  start();
  flip_target(T_OFFSET, false);
  finish("flip offset");
}

static void test_flip_index(void) {
  start();
  flip_target(T_INDEX, false);
  finish("flip index");
}

static void test_flip_b2nd(void) {
  start();
  flip_target(T_B2ND, false);
  finish("flip b2nd");
}

/* length fields set to huge, negative and off-by-one values */
typedef struct {
  const char *name;
  int64_t pos; /* in the frame (negative: from its end) */
  int width;
  int big_endian;
} field;

static void set_values(int64_t orig, int width, int64_t *v, int *nv) {
  /* unsigned arithmetic: the offsets of special chunks are near INT64_MIN */
  uint64_t u = (uint64_t)orig;
  int n = 0;
  v[n++] = 0;
  v[n++] = 1;
  v[n++] = -1;
  v[n++] = (int64_t)(u - 1);
  v[n++] = (int64_t)(u + 1);
  v[n++] = (int64_t)(u * 2);
  v[n++] = orig / 2;
  v[n++] = (int64_t)(0 - u);
  if (width == 4) {
    v[n++] = INT32_MAX;
    v[n++] = INT32_MIN;
    v[n++] = INT32_MAX - 31;
  } else {
    v[n++] = INT64_MAX;
    v[n++] = INT64_MIN;
    v[n++] = (int64_t)(u + ((uint64_t)1 << 32));
    v[n++] = (int64_t)1 << 40;
    v[n++] = (int64_t)INT32_MAX + 1;
  }
  *nv = n;
}

static void corrupt_field(enum target t, const char *name, int64_t pos, int width, int be,
                          int64_t *expect_fail_plus1) {
  int64_t base = g_base[t];
  int64_t len = g_len[t];
  uint8_t *b = malloc((size_t)len);
  memcpy(b, g_bytes[t], (size_t)len);
  int64_t at = base + pos;
  int64_t orig = be ? rd_be(b + at, width) : (width == 4 ? rd_i32(b + at) : 0);
  if (!be && width == 8) memcpy(&orig, b + at, 8);
  int64_t vals[20];
  int nv;
  set_values(orig, width, vals, &nv);
  for (int k = 0; k < nv; k++) {
    if (vals[k] == orig) continue;
    if (be) wr_be(b + at, width, vals[k]);
    else wr_le(b + at, width, vals[k]);
    int opened = try_target(t, b, len, name, pos, vals[k]);
    if (expect_fail_plus1 != NULL && vals[k] == orig + 1) {
      if (opened) fprintf(stderr, "  %s %s = %" PRId64 " opened\n", TARGET_NAMES[t], name, vals[k]);
      CHECK_EQ(opened, 0);
      (*expect_fail_plus1)++;
    }
  }
  free(b);
}

static void corrupt_fields(enum target t) {
  const layout *L = &g_layout[t];
  int64_t n_plus1 = 0;
  corrupt_field(t, "header_len", POS_HEADER_LEN, 4, 1, NULL);
  /* a frame_len one byte longer than the frame fails */
  corrupt_field(t, "frame_len", POS_FRAME_LEN, 8, 1, &n_plus1);
  CHECK_EQ(n_plus1, 1);
  corrupt_field(t, "nbytes", POS_NBYTES, 8, 1, NULL);
  corrupt_field(t, "cbytes", POS_CBYTES, 8, 1, NULL);
  corrupt_field(t, "typesize", POS_TYPESIZE, 4, 1, NULL);
  corrupt_field(t, "blocksize", POS_BLOCKSIZE, 4, 1, NULL);
  corrupt_field(t, "chunksize", POS_CHUNKSIZE, 4, 1, NULL);
  corrupt_field(t, "trailer_len", L->len - 22, 4, 1, NULL);
  /* the offsets chunk's own header */
  corrupt_field(t, "offsets.nbytes", L->off_start + 4, 4, 0, NULL);
  corrupt_field(t, "offsets.blocksize", L->off_start + 8, 4, 0, NULL);
  corrupt_field(t, "offsets.cbytes", L->off_start + 12, 4, 0, NULL);
  /* the chunks (contiguous frames): nbytes, blocksize and cbytes of each
     (the b2nd file is the same frame format: its chunks are left alone to
     save time) */
  if (t != T_INDEX && t != T_B2ND) {
    for (int64_t i = 0; i < L->nchunks; i++) {
      int64_t off = L->offsets[i];
      if (off < 0 || off >= L->cbytes) continue; /* special */
      int64_t at = L->hlen + off;
      corrupt_field(t, "chunk.nbytes", at + 4, 4, 0, NULL);
      corrupt_field(t, "chunk.blocksize", at + 8, 4, 0, NULL);
      corrupt_field(t, "chunk.cbytes", at + 12, 4, 0, NULL);
      /* the first and the last block offsets (bstarts), read by lazy chunks */
      const uint8_t *c = g_bytes[t] + g_base[t] + at;
      int32_t nbytes = rd_i32(c + 4), bsize = rd_i32(c + 8);
      if ((c[2] & 0x02) == 0 && bsize > 0) {
        int32_t nblocks = (nbytes + bsize - 1) / bsize;
        corrupt_field(t, "chunk.bstarts[0]", at + 32, 4, 0, NULL);
        corrupt_field(t, "chunk.bstarts[n-1]", at + 32 + 4 * (nblocks - 1), 4, 0, NULL);
      }
    }
  }
}

static void test_fields_file(void) {
  start();
  corrupt_fields(T_FILE);
  finish("fields file");
}

static void test_fields_mem(void) {
  start();
  corrupt_fields(T_MEM_COPY);
  corrupt_fields(T_MEM_NOCOPY);
  finish("fields mem");
}

static void test_fields_offset_index(void) {
  start();
  corrupt_fields(T_OFFSET);
  corrupt_fields(T_INDEX);
  finish("fields offset/index");
}

static void test_fields_b2nd(void) {
  start();
  corrupt_fields(T_B2ND);
  finish("fields b2nd");
}

/* random damage: 1 to 4 bytes set to random values, in the header, the
   offsets chunk and the trailer, or anywhere (the chunks too) */
static void random_target(enum target t, int ncases, uint64_t seed) {
  if (under_valgrind()) ncases /= 2;
  const layout *L = &g_layout[t];
  int64_t base = g_base[t];
  int64_t len = g_len[t];
  int64_t meta_len = L->hlen + (L->len - L->off_start);
  uint8_t *b = malloc((size_t)len);
  t_seed(seed);
  for (int k = 0; k < ncases; k++) {
    memcpy(b, g_bytes[t], (size_t)len);
    int nb = 1 + (int)(t_rand64() % 4);
    bool anywhere = k % 3 == 0;
    int64_t first = 0;
    for (int j = 0; j < nb; j++) {
      int64_t rel;
      if (anywhere) {
        rel = (int64_t)(t_rand64() % (uint64_t)L->len);
      } else {
        rel = (int64_t)(t_rand64() % (uint64_t)meta_len);
        if (rel >= L->hlen) rel += L->off_start - L->hlen;
      }
      if (j == 0) first = rel;
      b[base + rel] = (uint8_t)t_rand64();
    }
    try_target(t, b, len, anywhere ? "random-anywhere" : "random", first, k);
  }
  free(b);
}

static void test_random_file_mem(void) {
  start();
  random_target(T_FILE, 200, 1);
  random_target(T_MEM_NOCOPY, 200, 2);
  random_target(T_MEM_COPY, 200, 3);
  finish("random file/mem");
}

static void test_random_others(void) {
  start();
  random_target(T_OFFSET, 100, 4);
  random_target(T_INDEX, 100, 5);
  random_target(T_B2ND, 100, 6);
  finish("random offset/index/b2nd");
}

/* every 64-bit offset set to huge, negative, off-by-one and special values */
static void corrupt_offsets(enum target t) {
  const layout *L = &g_layout[t];
  int64_t base = g_base[t];
  int64_t cap = g_len[t] + 1024;
  uint8_t *b = malloc((size_t)cap);
  memcpy(b, g_bytes[t], (size_t)base);
  for (int64_t i = 0; i < L->nchunks; i++) {
    int64_t orig = L->offsets[i];
    int64_t vals[24];
    int nv;
    set_values(orig, 8, vals, &nv);
    vals[nv++] = L->cbytes;          /* the offsets chunk */
    vals[nv++] = L->cbytes - 1;
    vals[nv++] = L->cbytes - 16;
    vals[nv++] = (int64_t)(0x80ULL << 56); /* a special offset with no special */
    vals[nv++] = (int64_t)(0x81ULL << 56);   /* zeros */
    vals[nv++] = (int64_t)(0x82ULL << 56);   /* nans */
    vals[nv++] = (int64_t)(0x84ULL << 56);   /* uninit */
    vals[nv++] = (int64_t)(0x83ULL << 56);   /* two at once */
    for (int k = 0; k < nv; k++) {
      if (vals[k] == orig) continue;
      int64_t offs[64];
      memcpy(offs, L->offsets, sizeof(offs));
      offs[i] = vals[k];
      int64_t n = rebuild_offsets(g_bytes[t] + base, L, offs, b + base, cap - base);
      CHECK_GT(n, 0);
      if (n <= 0) continue;
      try_target(t, b, base + n, "offset", i, vals[k]);
    }
  }
  /* the offsets rebuilt unchanged give the good frame */
  int64_t n = rebuild_offsets(g_bytes[t] + base, L, L->offsets, b + base, cap - base);
  CHECK_EQ(try_target(t, b, base + n, "offsets-unchanged", 0, 0), 1);
  free(b);
}

static void test_offsets_file(void) {
  start();
  corrupt_offsets(T_FILE);
  finish("offsets file");
}

static void test_offsets_mem(void) {
  start();
  corrupt_offsets(T_MEM_COPY);
  corrupt_offsets(T_MEM_NOCOPY);
  finish("offsets mem");
}

static void test_offsets_others(void) {
  start();
  corrupt_offsets(T_OFFSET);
  corrupt_offsets(T_INDEX);
  corrupt_offsets(T_B2ND);
  finish("offsets offset/index/b2nd");
}

/* sparse frames: missing, truncated and garbage chunk files */
static const char *g_sparse_what = "";

/* opens the damaged sparse frame and reads it; every chunk but `bad_chunk`
   reads back.  b2rs opens the frame (it reads the index only); the reference
   also reads the first chunk when opening, so damage to chunk 0 makes its
   open fail.  Returns 1 when the frame opened or may fail (the reference). */
static int open_dirw_read(int64_t bad_chunk, int expect_bad_fails) {
#ifdef B2RS_REFERENCE_BUG_DAMAGED_FRAME
  /* the reference reads past the end of a chunk file shorter than its
     header's cbytes (heap-buffer-overflow under ASan) */
  if (strcmp(g_sparse_what, "truncated") == 0 || strcmp(g_sparse_what, "header field") == 0)
    return 1;
#endif
  g_cases++;
  blosc2_schunk *sc = blosc2_schunk_open(P_DIRW);
#ifdef B2RS_REFERENCE
  if (sc == NULL && bad_chunk == 0) return 1;
  /* it may decode a truncated chunk file (it reads past the file's end into
     an uninitialised buffer) */
  expect_bad_fails = 0;
#endif
  if (do_log())
    fprintf(stderr, "case sparse chunk %" PRId64 " %s: %s\n", bad_chunk, g_sparse_what,
            sc != NULL ? "opened" : "failed");
  if (sc == NULL) return 0;
  g_opened++;
  read_schunk(sc, true);
  /* the undamaged chunks still read back */
  uint8_t *out = gbuf(CHUNK_BYTES, 0);
  for (int i = 0; i < NCH && i < sc->nchunks; i++) {
    int rc = blosc2_schunk_decompress_chunk(sc, i, out, CHUNK_BYTES);
    if (i == bad_chunk) {
      if (do_log()) fprintf(stderr, "  damaged chunk %d: %d\n", i, rc);
      if (expect_bad_fails) CHECK_LT(rc, 0);
      continue;
    }
    CHECK_EQ(rc, g_nbytes[i]);
    if (rc == g_nbytes[i]) CHECK_MEM(out, g_data[i], (size_t)rc);
  }
  CHECK_GUARD(out, CHUNK_BYTES);
  free(out);
  blosc2_schunk_free(sc);
  return 1;
}

static void test_sparse_chunk_files(void) {
  start();
  const layout *L = &g_layout[T_INDEX];
  for (int64_t i = 0; i < L->nchunks; i++) {
    int64_t fileno = L->offsets[i];
    if (fileno < 0) continue; /* special chunk: no file */
    char path[512], good[512];
    snprintf(path, sizeof path, "%s/%08X.chunk", P_DIRW, (unsigned)fileno);
    snprintf(good, sizeof good, "%s/%08X.chunk", P_DIR, (unsigned)fileno);
    int64_t clen;
    uint8_t *chunk = read_file(good, &clen);
    CHECK(chunk != NULL);
    if (chunk == NULL) continue;
    /* missing */
    unlink(path);
    g_sparse_what = "missing";
    CHECK_EQ(open_dirw_read(i, 1), 1);
    /* truncated */
    int64_t cuts[] = {0, 1, 15, 16, 31, 32, 33, clen / 2, clen - 1};
    for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
      if (cuts[k] >= clen) continue;
      CHECK_EQ(write_file(path, chunk, cuts[k]), 0);
      g_sparse_what = "truncated";
      CHECK_EQ(open_dirw_read(i, 1), 1);
    }
    /* garbage of the same length, shorter and longer */
    int64_t glens[] = {clen, 10, clen + 100};
    for (size_t k = 0; k < sizeof(glens) / sizeof(glens[0]); k++) {
      uint8_t *g = malloc((size_t)glens[k]);
      fill_random(g, (size_t)glens[k], 500 + (uint64_t)k + (uint64_t)i * 10);
      CHECK_EQ(write_file(path, g, glens[k]), 0);
      g_sparse_what = "garbage";
      CHECK_EQ(open_dirw_read(i, 0), 1);
      /* garbage behind a valid-looking header */
      if (glens[k] >= 32) {
        memcpy(g, chunk, 32);
        g_sparse_what = "garbage after the header";
        CHECK_EQ(write_file(path, g, glens[k]), 0);
        CHECK_EQ(open_dirw_read(i, 0), 1);
      }
      free(g);
    }
    /* the header's sizes */
    for (int f = 0; f < 3; f++) {
      int at = 4 + 4 * f;
      int64_t vals[20];
      int nv;
      set_values(rd_i32(chunk + at), 4, vals, &nv);
      for (int k = 0; k < nv; k++) {
        uint8_t *c = malloc((size_t)clen);
        memcpy(c, chunk, (size_t)clen);
        wr_le(c + at, 4, vals[k]);
        CHECK_EQ(write_file(path, c, clen), 0);
        g_sparse_what = "header field";
        CHECK_EQ(open_dirw_read(i, 0), 1);
        free(c);
      }
    }
    /* restored */
    CHECK_EQ(write_file(path, chunk, clen), 0);
    CHECK_EQ(open_dirw_read(-1, 0), 1);
    free(chunk);
  }
  finish("sparse chunk files");
}

/* Sizes read from a damaged file can be huge: with little memory, the
   allocations they ask for fail, and that must be an error, not an abort
   (b2rs aborted on both cases below: a vlmetalayer whose chunk claims 2 GiB,
   a b2nd chunkshape flipped to 16 Mi items per chunk).  The address space
   of this test's process is limited to what it uses plus 256 MiB (not
   under ASan or valgrind, which need far more address space). */
static void test_memory_limited(void) {
  start();
#if defined(__SANITIZE_ADDRESS__)
  if (1) {
    printf("  memory limited: skipped under ASan\n");
    free_targets();
    return;
  }
#endif
  if (under_valgrind()) {
    printf("  memory limited: skipped under valgrind\n");
    free_targets();
    return;
  }
  long vm_kb = 0;
  FILE *st = fopen("/proc/self/status", "r");
  char line[256];
  while (st != NULL && fgets(line, sizeof line, st) != NULL) {
    if (strncmp(line, "VmSize:", 7) == 0) vm_kb = strtol(line + 7, NULL, 10);
  }
  if (st != NULL) fclose(st);
  CHECK_GT(vm_kb, 0);
  struct rlimit rl;
  rl.rlim_cur = rl.rlim_max = (rlim_t)(vm_kb + 256 * 1024) * 1024;
  CHECK_EQ(setrlimit(RLIMIT_AS, &rl), 0);
  /* a vlmetalayer chunk claiming 0x7FFFFF00 bytes (its content, "first
     vlmeta", is stored memcpyed after the 32-byte chunk header) */
  const uint8_t *f = g_bytes[T_FILE];
  int64_t len = g_len[T_FILE];
  int64_t q = -1;
  for (int64_t i = g_layout[T_FILE].tr_start; i + 12 <= len; i++) {
    if (memcmp(f + i, "first vlmeta", 12) == 0) q = i;
  }
  CHECK_GE(q, 32);
  if (q >= 32) {
    uint8_t *b = malloc((size_t)len);
    memcpy(b, f, (size_t)len);
    wr_le(b + q - 28, 4, 0x7FFFFF00);
    for (int copy = 0; copy <= 1; copy++) {
      uint8_t *buf = malloc((size_t)len);
      memcpy(buf, b, (size_t)len);
      /* (copy == true reads the vlmetalayers at once: NULL) */
      blosc2_schunk *sc = blosc2_schunk_from_buffer(buf, len, copy);
      if (sc != NULL) {
        uint8_t *content = NULL;
        int32_t clen = 0;
        int rc = blosc2_vlmeta_get(sc, "vla", &content, &clen);
        CHECK_LT(rc, 0);
        if (rc >= 0) free(content);
        blosc2_schunk_free(sc);
      }
      free(buf);
    }
    free(b);
  }
  /* chunkshape[1] of the b2nd metalayer flipped from 16 to 16777232 */
  uint8_t *b = malloc((size_t)g_len[T_B2ND]);
  memcpy(b, g_bytes[T_B2ND], (size_t)g_len[T_B2ND]);
  int64_t cs1 = -1;
  for (int64_t i = 0; i + 10 <= g_layout[T_B2ND].hlen; i++) {
    /* chunkshape is the msgpack 92 d2 00000010 d2 00000010 after the shape */
    static const uint8_t pat[] = {0x92, 0xd2, 0, 0, 0, 16, 0xd2, 0, 0, 0, 16};
    if (memcmp(b + i, pat, sizeof pat) == 0 && cs1 < 0) cs1 = i + 7;
  }
  CHECK_GT(cs1, 0);
  if (cs1 > 0) {
    b[cs1] = 1;
    CHECK_EQ(write_file(P_NDW, b, g_len[T_B2ND]), 0);
    b2nd_array_t *a = NULL;
    CHECK_EQ(b2nd_open(P_NDW, &a), 0);
    if (a != NULL) {
      CHECK_EQ(a->chunkshape[1], 16777232);
      int32_t out[ND_SHAPE0 * ND_SHAPE1];
      CHECK_LT(b2nd_to_cbuffer(a, out, sizeof(out)), 0);
      int64_t start[2] = {0, 0}, stop[2] = {2, 2}, bshape[2] = {2, 2};
      /* only the blocks of the slice are read (of a chunk whose other blocks the damaged
         shape would misplace): it succeeds, in both libraries */
      CHECK_EQ(b2nd_get_slice_cbuffer(a, start, stop, out, bshape, 16), 0);
      b2nd_free(a);
    }
  }
  /* shape[0] flipped from 50 to 2^32 + 50: a resize (which b2rs does
     through a copy of the whole array) must fail, not abort */
  memcpy(b, g_bytes[T_B2ND], (size_t)g_len[T_B2ND]);
  int64_t sh0 = -1;
  for (int64_t i = 0; i + 9 <= g_layout[T_B2ND].hlen; i++) {
    static const uint8_t pat[] = {0xd3, 0, 0, 0, 0, 0, 0, 0, ND_SHAPE0};
    if (memcmp(b + i, pat, sizeof pat) == 0 && sh0 < 0) sh0 = i + 4;
  }
  CHECK_GT(sh0, 0);
  if (sh0 > 0) {
    b[sh0] = 1;
    CHECK_EQ(write_file(P_NDW, b, g_len[T_B2ND]), 0);
    b2nd_array_t *a = NULL;
    int rc = b2nd_open(P_NDW, &a);
    if (rc == 0 && a != NULL) {
      CHECK_EQ(a->shape[0], ((int64_t)1 << 32) + ND_SHAPE0);
#ifndef B2RS_REFERENCE
      int64_t ns[2] = {a->shape[0] + 3, ND_SHAPE1};
      CHECK_LT(b2nd_resize(a, ns, NULL), 0);
#endif
      b2nd_free(a);
    }
  }
  free(b);
  finish("memory limited");
}

/* B2RS_DAMAGED_ONLY=substring: run only the tests whose name contains it */
static void run_if(const char *name, void (*fn)(void)) {
  const char *only = getenv("B2RS_DAMAGED_ONLY");
  if (only != NULL && only[0] != '\0' && strstr(name, only) == NULL) return;
  t_run(name, fn);
}
#undef RUN
#define RUN(fn) run_if(#fn, fn)

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  blosc2_init();
  make_files();
  RUN(test_good_files);
  RUN(test_truncate_file);
  RUN(test_truncate_mem);
  RUN(test_truncate_offset);
  RUN(test_truncate_index);
  RUN(test_truncate_b2nd);
  RUN(test_flip_file);
  RUN(test_flip_mem);
  RUN(test_flip_offset);
  RUN(test_flip_index);
  RUN(test_flip_b2nd);
  RUN(test_fields_file);
  RUN(test_fields_mem);
  RUN(test_fields_offset_index);
  RUN(test_fields_b2nd);
  RUN(test_offsets_file);
  RUN(test_offsets_mem);
  RUN(test_offsets_others);
  RUN(test_sparse_chunk_files);
  RUN(test_random_file_mem);
  RUN(test_random_others);
  RUN(test_memory_limited);
  /* B2RS_DAMAGED_KEEP=1 leaves the files behind */
  const char *keep = getenv("B2RS_DAMAGED_KEEP");
  if (keep == NULL || keep[0] != '1') {
    blosc2_remove_urlpath(P_FILE);
    blosc2_remove_urlpath(P_OFF);
    blosc2_remove_urlpath(P_DIR);
    blosc2_remove_urlpath(P_ND);
  }
  blosc2_remove_urlpath(P_WORK);
  blosc2_remove_urlpath(P_OFFW);
  blosc2_remove_urlpath(P_DIRW);
  blosc2_remove_urlpath(P_NDW);
  blosc2_destroy();
  return TEST_SUMMARY();
}
