/*
 * refchunk: a tiny command-line driver for the public C-Blosc2 chunk API.
 *
 * Built twice by tests/interop.rs: once against the reference C-Blosc2 3.3.5
 * (-lblosc2) and once against b2rs (-lb2rs).  Only the public API is used, so
 * the same source must compile unchanged against both header sets.
 *
 * Usage:
 *   refchunk compress   [OPTS] IN OUT
 *   refchunk decompress [--nthreads N] IN OUT
 *   refchunk getitem    [--nthreads N] START NITEMS IN OUT
 *   refchunk info       IN
 *   refchunk special    [OPTS] zeros|nans|uninit|repeatval NBYTES TYPESIZE OUT
 *   refchunk vlcompress [OPTS] OUT IN0 [IN1 ...]
 *   refchunk vldecompress [--nthreads N] IN OUT     (writes OUT.0, OUT.1, ...)
 *
 * OPTS: --codec N --clevel N --typesize N --filters f0,..,f5 --fmeta m0,..,m5
 *       --splitmode N --blocksize N --nthreads N --use-dict 0|1
 *       --destsize N (compress/vlcompress; default nbytes + BLOSC2_MAX_OVERHEAD)
 *       --value HEX  (special repeatval; default bytes 0x11,0x22,...)
 *
 * Exit status 0 on success.  On an API error the negative return code is
 * printed as "error: <what> returned <code>" and the exit status is 1.
 * Usage / I/O problems exit with status 2.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blosc2.h"

static void die_usage(const char *msg) {
  fprintf(stderr, "refchunk: %s\n", msg);
  fprintf(stderr,
          "usage: refchunk compress [OPTS] IN OUT | decompress [--nthreads N] IN OUT |\n"
          "       getitem [--nthreads N] START NITEMS IN OUT | info IN |\n"
          "       special [OPTS] zeros|nans|uninit|repeatval NBYTES TYPESIZE OUT |\n"
          "       vlcompress [OPTS] OUT IN... | vldecompress [--nthreads N] IN OUT\n");
  exit(2);
}

static int api_fail(const char *what, int rc) {
  printf("error: %s returned %d\n", what, rc);
  fflush(stdout);
  return 1;
}

static uint8_t *read_file(const char *path, int64_t *len) {
  FILE *f = fopen(path, "rb");
  if (f == NULL) {
    fprintf(stderr, "refchunk: cannot open %s\n", path);
    exit(2);
  }
  if (fseek(f, 0, SEEK_END) != 0) exit(2);
  long n = ftell(f);
  if (n < 0) exit(2);
  rewind(f);
  uint8_t *buf = malloc((size_t)n + 1);
  if (buf == NULL) exit(2);
  if (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    fprintf(stderr, "refchunk: short read on %s\n", path);
    exit(2);
  }
  fclose(f);
  *len = n;
  return buf;
}

static void write_file(const char *path, const void *buf, int64_t len) {
  FILE *f = fopen(path, "wb");
  if (f == NULL) {
    fprintf(stderr, "refchunk: cannot create %s\n", path);
    exit(2);
  }
  if (len > 0 && fwrite(buf, 1, (size_t)len, f) != (size_t)len) {
    fprintf(stderr, "refchunk: short write on %s\n", path);
    exit(2);
  }
  if (fclose(f) != 0) exit(2);
}

static long parse_long(const char *s) {
  char *end = NULL;
  long v = strtol(s, &end, 0);
  if (end == s || *end != '\0') die_usage("bad number");
  return v;
}

static void parse_list6(const char *s, uint8_t out[BLOSC2_MAX_FILTERS]) {
  char tmp[256];
  if (strlen(s) >= sizeof(tmp)) die_usage("list too long");
  strcpy(tmp, s);
  int i = 0;
  for (char *tok = strtok(tmp, ","); tok != NULL; tok = strtok(NULL, ",")) {
    if (i >= BLOSC2_MAX_FILTERS) die_usage("at most 6 list entries");
    long v = parse_long(tok);
    if (v < 0 || v > 255) die_usage("list entry out of range");
    out[i++] = (uint8_t)v;
  }
  for (; i < BLOSC2_MAX_FILTERS; i++) out[i] = 0;
}

typedef struct {
  blosc2_cparams cparams;
  int16_t nthreads;
  int64_t destsize; /* -1: default */
  uint8_t value[256];
  int value_len;    /* 0: default */
} opts_t;

/* Parse options starting at argv[*i]; stops at the first non-option. */
static void parse_opts(int argc, char **argv, int *i, opts_t *o) {
  o->cparams = BLOSC2_CPARAMS_DEFAULTS;
  o->nthreads = 1;
  o->destsize = -1;
  o->value_len = 0;
  while (*i < argc && strncmp(argv[*i], "--", 2) == 0) {
    const char *k = argv[*i];
    if (*i + 1 >= argc) die_usage("option needs a value");
    const char *v = argv[*i + 1];
    *i += 2;
    if (strcmp(k, "--codec") == 0) {
      o->cparams.compcode = (uint8_t)parse_long(v);
    } else if (strcmp(k, "--clevel") == 0) {
      o->cparams.clevel = (uint8_t)parse_long(v);
    } else if (strcmp(k, "--typesize") == 0) {
      o->cparams.typesize = (int32_t)parse_long(v);
    } else if (strcmp(k, "--filters") == 0) {
      parse_list6(v, o->cparams.filters);
    } else if (strcmp(k, "--fmeta") == 0) {
      parse_list6(v, o->cparams.filters_meta);
    } else if (strcmp(k, "--splitmode") == 0) {
      o->cparams.splitmode = (int32_t)parse_long(v);
    } else if (strcmp(k, "--blocksize") == 0) {
      o->cparams.blocksize = (int32_t)parse_long(v);
    } else if (strcmp(k, "--nthreads") == 0) {
      o->nthreads = (int16_t)parse_long(v);
      o->cparams.nthreads = o->nthreads;
    } else if (strcmp(k, "--use-dict") == 0) {
      o->cparams.use_dict = (int)parse_long(v);
    } else if (strcmp(k, "--destsize") == 0) {
      o->destsize = parse_long(v);
    } else if (strcmp(k, "--value") == 0) {
      size_t n = strlen(v);
      if (n % 2 != 0 || n / 2 > sizeof(o->value) || n == 0) die_usage("bad --value");
      for (size_t j = 0; j < n / 2; j++) {
        char byte[3] = {v[2 * j], v[2 * j + 1], 0};
        char *end = NULL;
        long b = strtol(byte, &end, 16);
        if (*end != '\0') die_usage("bad --value");
        o->value[j] = (uint8_t)b;
      }
      o->value_len = (int)(n / 2);
    } else {
      die_usage("unknown option");
    }
  }
}

static int cmd_compress(int argc, char **argv) {
  int i = 2;
  opts_t o;
  parse_opts(argc, argv, &i, &o);
  if (argc - i != 2) die_usage("compress needs IN OUT");
  int64_t nbytes;
  uint8_t *src = read_file(argv[i], &nbytes);
  int64_t destsize = o.destsize >= 0 ? o.destsize : nbytes + BLOSC2_MAX_OVERHEAD;
  uint8_t *dest = malloc((size_t)destsize + 1);
  if (dest == NULL) return 2;
  blosc2_context *cctx = blosc2_create_cctx(o.cparams);
  if (cctx == NULL) return api_fail("blosc2_create_cctx", -1);
  int rc = blosc2_compress_ctx(cctx, src, (int32_t)nbytes, dest, (int32_t)destsize);
  blosc2_free_ctx(cctx);
  if (rc <= 0) return api_fail("blosc2_compress_ctx", rc);
  write_file(argv[i + 1], dest, rc);
  printf("cbytes=%d\n", rc);
  free(src);
  free(dest);
  return 0;
}

static blosc2_context *make_dctx(int16_t nthreads) {
  blosc2_dparams dparams = BLOSC2_DPARAMS_DEFAULTS;
  dparams.nthreads = nthreads;
  return blosc2_create_dctx(dparams);
}

static int cmd_decompress(int argc, char **argv) {
  int i = 2;
  opts_t o;
  parse_opts(argc, argv, &i, &o);
  if (argc - i != 2) die_usage("decompress needs IN OUT");
  int64_t srcsize;
  uint8_t *src = read_file(argv[i], &srcsize);
  int32_t nbytes = 0, cbytes = 0, blocksize = 0;
  int rc = blosc2_cbuffer_sizes(src, &nbytes, &cbytes, &blocksize);
  if (rc < 0) return api_fail("blosc2_cbuffer_sizes", rc);
  /* zero-filled destination, so undefined bytes compare equal across runs */
  uint8_t *dest = calloc((size_t)nbytes + 1, 1);
  if (dest == NULL) return 2;
  blosc2_context *dctx = make_dctx(o.nthreads);
  if (dctx == NULL) return api_fail("blosc2_create_dctx", -1);
  rc = blosc2_decompress_ctx(dctx, src, (int32_t)srcsize, dest, nbytes);
  blosc2_free_ctx(dctx);
  if (rc < 0) return api_fail("blosc2_decompress_ctx", rc);
  if (rc != nbytes) {
    printf("error: blosc2_decompress_ctx returned %d, expected nbytes %d\n", rc, nbytes);
    return 1;
  }
  write_file(argv[i + 1], dest, nbytes);
  printf("nbytes=%d\n", nbytes);
  free(src);
  free(dest);
  return 0;
}

static int cmd_getitem(int argc, char **argv) {
  int i = 2;
  opts_t o;
  parse_opts(argc, argv, &i, &o);
  if (argc - i != 4) die_usage("getitem needs START NITEMS IN OUT");
  long start = parse_long(argv[i]);
  long nitems = parse_long(argv[i + 1]);
  int64_t srcsize;
  uint8_t *src = read_file(argv[i + 2], &srcsize);
  if (srcsize < BLOSC_MIN_HEADER_LENGTH) die_usage("input shorter than a header");
  int32_t typesize = src[3];
  if (nitems < 0) nitems = 0;
  int64_t destsize = (int64_t)nitems * typesize;
  uint8_t *dest = calloc((size_t)destsize + 1, 1);
  if (dest == NULL) return 2;
  blosc2_context *dctx = make_dctx(o.nthreads);
  if (dctx == NULL) return api_fail("blosc2_create_dctx", -1);
  int rc = blosc2_getitem_ctx(dctx, src, (int32_t)srcsize, (int)start, (int)nitems, dest,
                              (int32_t)destsize);
  blosc2_free_ctx(dctx);
  if (rc < 0) return api_fail("blosc2_getitem_ctx", rc);
  if (rc != destsize) {
    printf("error: blosc2_getitem_ctx returned %d, expected %lld\n", rc, (long long)destsize);
    return 1;
  }
  write_file(argv[i + 3], dest, destsize);
  printf("nbytes=%d\n", rc);
  free(src);
  free(dest);
  return 0;
}

static int32_t le32(const uint8_t *p) {
  return (int32_t)((uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
                   ((uint32_t)p[3] << 24));
}

static void print_list6(const char *key, const uint8_t *p) {
  printf("%s=%u,%u,%u,%u,%u,%u\n", key, p[0], p[1], p[2], p[3], p[4], p[5]);
}

static int cmd_info(int argc, char **argv) {
  if (argc != 3) die_usage("info needs IN");
  int64_t len;
  uint8_t *src = read_file(argv[2], &len);
  if (len < BLOSC_MIN_HEADER_LENGTH) die_usage("input shorter than a header");
  int flags = src[2];
  printf("version=%u\n", src[0]);
  printf("versionlz=%u\n", src[1]);
  printf("flags=%d\n", flags);
  printf("typesize=%u\n", src[3]);
  printf("nbytes=%d\n", le32(src + 4));
  printf("blocksize=%d\n", le32(src + 8));
  printf("cbytes=%d\n", le32(src + 12));
  printf("memcpyed=%d\n", (flags & BLOSC_MEMCPYED) ? 1 : 0);
  printf("dont_split=%d\n", (flags & 0x10) ? 1 : 0);
  printf("compformat=%d\n", flags >> 5);
  int extended = (flags & 0x05) == 0x05;
  printf("extended=%d\n", extended);
  if (extended && len >= BLOSC_EXTENDED_HEADER_LENGTH) {
    print_list6("filters", src + 16);
    printf("codec=%u\n", src[22]);
    printf("compcode_meta=%u\n", src[23]);
    print_list6("filters_meta", src + 24);
    printf("blosc2_flags2=%u\n", src[30]);
    printf("blosc2_flags=%u\n", src[31]);
    printf("special=%u\n", (src[31] >> 4) & 0x7);
    printf("use_dict=%u\n", src[31] & 0x1);
    printf("vlblocks=%u\n", src[30] & 0x1);
  }
  /* cross-check with the library's view of the header */
  int32_t nbytes = 0, cbytes = 0, blocksize = 0;
  int rc = blosc2_cbuffer_sizes(src, &nbytes, &cbytes, &blocksize);
  if (rc < 0) return api_fail("blosc2_cbuffer_sizes", rc);
  printf("api_nbytes=%d\n", nbytes);
  printf("api_cbytes=%d\n", cbytes);
  printf("api_blocksize=%d\n", blocksize);
  free(src);
  return 0;
}

static int cmd_special(int argc, char **argv) {
  int i = 2;
  opts_t o;
  parse_opts(argc, argv, &i, &o);
  if (argc - i != 4) die_usage("special needs KIND NBYTES TYPESIZE OUT");
  const char *kind = argv[i];
  long nbytes = parse_long(argv[i + 1]);
  long typesize = parse_long(argv[i + 2]);
  o.cparams.typesize = (int32_t)typesize;
  int32_t destsize = BLOSC_EXTENDED_HEADER_LENGTH + (int32_t)typesize;
  uint8_t *dest = calloc((size_t)destsize + 1, 1);
  if (dest == NULL) return 2;
  int rc;
  if (strcmp(kind, "zeros") == 0) {
    rc = blosc2_chunk_zeros(o.cparams, (int32_t)nbytes, dest, destsize);
  } else if (strcmp(kind, "nans") == 0) {
    rc = blosc2_chunk_nans(o.cparams, (int32_t)nbytes, dest, destsize);
  } else if (strcmp(kind, "uninit") == 0) {
    rc = blosc2_chunk_uninit(o.cparams, (int32_t)nbytes, dest, destsize);
  } else if (strcmp(kind, "repeatval") == 0) {
    uint8_t *val = malloc((size_t)typesize + 1);
    if (val == NULL) return 2;
    for (long j = 0; j < typesize; j++) {
      val[j] = o.value_len > 0 ? o.value[j % o.value_len] : (uint8_t)(0x11 * (j + 1));
    }
    rc = blosc2_chunk_repeatval(o.cparams, (int32_t)nbytes, dest, destsize, val);
    free(val);
  } else {
    die_usage("special kind must be zeros|nans|uninit|repeatval");
    return 2;
  }
  if (rc < 0) return api_fail("blosc2_chunk_special", rc);
  write_file(argv[i + 3], dest, rc);
  printf("cbytes=%d\n", rc);
  free(dest);
  return 0;
}

static int cmd_vlcompress(int argc, char **argv) {
  int i = 2;
  opts_t o;
  parse_opts(argc, argv, &i, &o);
  if (argc - i < 2) die_usage("vlcompress needs OUT IN...");
  const char *out = argv[i];
  int32_t nblocks = argc - i - 1;
  const void **srcs = calloc((size_t)nblocks, sizeof(void *));
  int32_t *sizes = calloc((size_t)nblocks, sizeof(int32_t));
  if (srcs == NULL || sizes == NULL) return 2;
  int64_t total = 0;
  for (int32_t b = 0; b < nblocks; b++) {
    int64_t n;
    srcs[b] = read_file(argv[i + 1 + b], &n);
    sizes[b] = (int32_t)n;
    total += n;
  }
  int64_t destsize = o.destsize >= 0 ? o.destsize
                                     : total + BLOSC2_MAX_OVERHEAD + 8 * (int64_t)nblocks + 4096;
  uint8_t *dest = malloc((size_t)destsize + 1);
  if (dest == NULL) return 2;
  blosc2_context *cctx = blosc2_create_cctx(o.cparams);
  if (cctx == NULL) return api_fail("blosc2_create_cctx", -1);
  int rc = blosc2_vlcompress_ctx(cctx, srcs, sizes, nblocks, dest, (int32_t)destsize);
  blosc2_free_ctx(cctx);
  if (rc <= 0) return api_fail("blosc2_vlcompress_ctx", rc);
  write_file(out, dest, rc);
  printf("cbytes=%d\n", rc);
  for (int32_t b = 0; b < nblocks; b++) free((void *)srcs[b]);
  free(srcs);
  free(sizes);
  free(dest);
  return 0;
}

static int cmd_vldecompress(int argc, char **argv) {
  int i = 2;
  opts_t o;
  parse_opts(argc, argv, &i, &o);
  if (argc - i != 2) die_usage("vldecompress needs IN OUT");
  int64_t srcsize;
  uint8_t *src = read_file(argv[i], &srcsize);
  int32_t nblocks = 0;
  int rc = blosc2_vlchunk_get_nblocks(src, (int32_t)srcsize, &nblocks);
  if (rc < 0) return api_fail("blosc2_vlchunk_get_nblocks", rc);
  if (nblocks <= 0) return api_fail("blosc2_vlchunk_get_nblocks (nblocks)", nblocks);
  void **dests = calloc((size_t)nblocks, sizeof(void *));
  int32_t *sizes = calloc((size_t)nblocks, sizeof(int32_t));
  if (dests == NULL || sizes == NULL) return 2;
  blosc2_context *dctx = make_dctx(o.nthreads);
  if (dctx == NULL) return api_fail("blosc2_create_dctx", -1);
  rc = blosc2_vldecompress_ctx(dctx, src, (int32_t)srcsize, dests, sizes, nblocks);
  blosc2_free_ctx(dctx);
  if (rc < 0) return api_fail("blosc2_vldecompress_ctx", rc);
  if (rc != nblocks) {
    printf("error: blosc2_vldecompress_ctx returned %d, expected %d blocks\n", rc, nblocks);
    return 1;
  }
  size_t plen = strlen(argv[i + 1]) + 16;
  char *path = malloc(plen);
  if (path == NULL) return 2;
  for (int32_t b = 0; b < nblocks; b++) {
    snprintf(path, plen, "%s.%d", argv[i + 1], b);
    write_file(path, dests[b], sizes[b]);
    free(dests[b]);
  }
  printf("nblocks=%d\n", nblocks);
  free(path);
  free(dests);
  free(sizes);
  free(src);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) die_usage("missing subcommand");
  blosc2_init();
  const char *cmd = argv[1];
  int rc;
  if (strcmp(cmd, "compress") == 0) {
    rc = cmd_compress(argc, argv);
  } else if (strcmp(cmd, "decompress") == 0) {
    rc = cmd_decompress(argc, argv);
  } else if (strcmp(cmd, "getitem") == 0) {
    rc = cmd_getitem(argc, argv);
  } else if (strcmp(cmd, "info") == 0) {
    rc = cmd_info(argc, argv);
  } else if (strcmp(cmd, "special") == 0) {
    rc = cmd_special(argc, argv);
  } else if (strcmp(cmd, "vlcompress") == 0) {
    rc = cmd_vlcompress(argc, argv);
  } else if (strcmp(cmd, "vldecompress") == 0) {
    rc = cmd_vldecompress(argc, argv);
  } else {
    die_usage("unknown subcommand");
    rc = 2;
  }
  blosc2_destroy();
  return rc;
}
