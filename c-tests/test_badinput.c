/*
 * test_badinput.c - malformed input and bad parameters through the chunk
 * API (areas 1, 4, 5, 6): truncated chunks, every header field corrupted,
 * corrupted bstarts / stream sizes / VL block lengths, destinations too
 * small by one byte, NULL pointers (where the reference returns an error),
 * negative sizes, sizes above BLOSC2_MAX_BUFFERSIZE, invalid typesize /
 * clevel / codec / filter ids, plus a seeded random corruption sweep.
 *
 * For every case: the exact error code the reference returns is asserted
 * (tables below were learned by running the reference), nothing is written
 * past the destination (guard bytes), and nothing crashes (each test runs
 * in a forked child, see b2rs_test.h).  Where the reference *accepts* a
 * corrupted chunk whose corruption the spec says a reader may reject
 * (unknown version numbers, reserved flag bits, a too-small cbytes that the
 * reference ignores, the instrumented-codec bit), the table row is marked
 * non-strict: success with the full size or any negative error is accepted.
 *
 * Error codes learned from the reference (C-Blosc2 3.3.5):
 *   srcsize < header length (0..15, or 16..31 for extended headers): -5
 *   srcsize >= header but < cbytes, or cbytes field inconsistent:       -11
 *   destsize too small by one (decompress / getitem):                  -6
 *   compress: srcsize > BLOSC2_MAX_BUFFERSIZE, destsize < 32:           -35
 *   compress: clevel < 0 or > 9:                                        -8
 *   compress: typesize > BLOSC2_MAXTYPESIZE:                            -12
 *   compress_ctx: unknown codec id:                                     -7
 *   compress_ctx: unknown/unregistered filter id (32..36 unusable, 160+): -18
 *   create_cctx: filter id 5..31 or 37..159:                          NULL
 *   header typesize 0, blocksize <= 0 or > BLOSC2_MAXBLOCKSIZE:         -11
 *   invalid codec format in flags (2, 5, 7):                            -7
 *   run-length csize < -255:                                            -17
 *   lazy-chunk bit (byte 31 bit 3) in a buffer:                         -12
 *   VL chunk header inconsistent (nblocks, nbytes, bstarts, ulen):      -11
 *   blosc2_getitem_bytes_ctx with unaligned start/size:                -12
 *   NULL src with srcsize 0 (decompress, getitem):                      -5
 *   NULL dest with destsize 0 (decompress):                             -6
 *   NULL srcs/srcsizes/element (vlcompress), NULL chunk or nblocks
 *   (vlchunk_get_nblocks, vldecompress_*), NULL schunk (get_vlblock):  -12
 *
 * Not tested because the reference crashes (SIGSEGV/SIGFPE): NULL src or
 * dest with a non-zero size in compress/decompress/getitem, NULL outputs of
 * blosc1_cbuffer_sizes/metainfo/validate and blosc2_cbuffer_versions,
 * blosc2_cbuffer_complib(NULL), NULL contexts, NULL names
 * (set_compressor, compname_to_compcode, get_complib_info), NULL
 * compcode_to_compname output, typesize 0 (SIGFPE), NULL dest for
 * blosc2_chunk_* with a non-zero destsize, NULL prefilter/postfilter params
 * with a callback set, blosc2_register_codec/filter(NULL).
 *
 * Reference bugs compiled out with -DB2RS_REFERENCE (see b2rs_test.h):
 *   B2RS_REFERENCE_BUG_DICT_MEMCPY       one row of MEMCPY_CASES
 *   B2RS_REFERENCE_BUG_BLOSC1_SIZE_TRUNC two checks of test_compress_bad_sizes
 */
#include "b2rs_test.h"

#define N 100000

typedef struct {
  const char *field;
  int offset;
  int width;
  long long value;
  int expect0; /* regular/memcpyed: decompress_ctx 1 thread; VL: vldecompress_ctx */
  int expect1; /* regular/memcpyed: decompress_ctx 4 threads (any error code
                  is accepted where an error is expected); VL:
                  vldecompress_block_ctx(2) */
  int expect2; /* regular/memcpyed: getitem_ctx(5000, 100); VL: decompress_ctx */
  int strict;  /* 0: a non-negative expectation may also be any error */
} corruption;

static const corruption REGULAR_CASES[] = {
    {"version", 0, 1, 0LL, 100000, 100000, 400, 0},
    {"version", 0, 1, 1LL, 100000, 100000, 400, 1},
    {"version", 0, 1, 2LL, 100000, 100000, 400, 1},
    {"version", 0, 1, 3LL, 100000, 100000, 400, 1},
    {"version", 0, 1, 4LL, 100000, 100000, 400, 1},
    {"version", 0, 1, 6LL, 100000, 100000, 400, 1},
    {"version", 0, 1, 7LL, 100000, 100000, 400, 0},
    {"version", 0, 1, 255LL, 100000, 100000, 400, 0},
    {"versionlz", 1, 1, 0LL, 100000, 100000, 400, 1},
    {"versionlz", 1, 1, 2LL, 100000, 100000, 400, 1},
    {"versionlz", 1, 1, 255LL, 100000, 100000, 400, 1},
    {"flags", 2, 1, 7LL, -3, -3, -5, 1},
    {"flags", 2, 1, 4LL, -3, -3, -17, 1},
    {"flags", 2, 1, 1LL, -3, -3, -17, 1},
    {"flags", 2, 1, 21LL, -3, -3, -3, 1},
    {"flags", 2, 1, 13LL, 100000, 100000, 400, 1},
    {"flags", 2, 1, 37LL, -3, -3, -3, 1},
    {"flags", 2, 1, 69LL, -7, -7, -7, 1},
    {"flags", 2, 1, 101LL, -3, -3, -3, 1},
    {"flags", 2, 1, 133LL, -3, -3, -3, 1},
    {"flags", 2, 1, 165LL, -7, -7, -7, 1},
    {"flags", 2, 1, 197LL, -7, -7, -7, 1},
    {"flags", 2, 1, 229LL, -7, -7, -7, 1},
    {"typesize", 3, 1, 0LL, -11, -11, -11, 1},
    {"typesize", 3, 1, 1LL, -3, -3, -3, 1},
    {"typesize", 3, 1, 2LL, -3, -3, -3, 1},
    {"typesize", 3, 1, 3LL, -3, -3, -3, 1},
    {"typesize", 3, 1, 8LL, -3, -3, -3, 1},
    {"typesize", 3, 1, 255LL, -3, -3, -12, 1},
    {"nbytes", 4, 4, 0LL, 0, 0, -12, 1},
    {"nbytes", 4, 4, 1LL, -6, -6, -12, 1},
    {"nbytes", 4, 4, 99999LL, -3, -3, 400, 1},
    {"nbytes", 4, 4, 99996LL, -3, -3, 400, 1},
    {"nbytes", 4, 4, 100004LL, -3, -3, 400, 1},
    {"nbytes", 4, 4, 200000LL, -6, -6, 400, 1},
    {"nbytes", 4, 4, -1LL, 0, 0, -12, 1},
    {"nbytes", 4, 4, 2147483647LL, -6, -6, -5, 1},
    {"nbytes", 4, 4, 2147483616LL, -6, -6, -5, 1},
    {"blocksize", 8, 4, 0LL, -11, -11, -11, 1},
    {"blocksize", 8, 4, -1LL, -11, -11, -11, 1},
    {"blocksize", 8, 4, 1LL, -5, -5, -5, 1},
    {"blocksize", 8, 4, 4LL, -5, -5, -5, 1},
    {"blocksize", 8, 4, 16383LL, -3, -3, -3, 1},
    {"blocksize", 8, 4, 16385LL, -3, -3, 400, 1},
    {"blocksize", 8, 4, 16380LL, -3, -3, -3, 1},
    {"blocksize", 8, 4, 32768LL, -3, -3, -3, 1},
    {"blocksize", 8, 4, 100000LL, -3, -3, -3, 1},
    {"blocksize", 8, 4, 100001LL, -3, -3, -3, 1},
    {"blocksize", 8, 4, 536866817LL, -11, -11, -11, 1},
    {"blocksize", 8, 4, 2147483647LL, -11, -11, -11, 1},
    {"cbytes", 12, 4, 0LL, -11, -11, -11, 1},
    {"cbytes", 12, 4, 15LL, -11, -11, -11, 1},
    {"cbytes", 12, 4, 16LL, -11, -11, -11, 1},
    {"cbytes", 12, 4, 31LL, -11, -11, -11, 1},
    {"cbytes", 12, 4, 32LL, 100000, 100000, 400, 0},
    {"cbytes", 12, 4, 2779LL, 100000, 100000, 400, 0},
    {"cbytes", 12, 4, 2781LL, -11, -11, -11, 1},
    {"cbytes", 12, 4, -1LL, -11, -11, -11, 1},
    {"cbytes", 12, 4, 2147483647LL, -11, -11, -11, 1},
    {"filters[0]", 16, 1, 2LL, 100000, 100000, 400, 1},
    {"filters[0]", 16, 1, 3LL, 100000, 100000, 400, 1},
    {"filters[0]", 16, 1, 4LL, 100000, 100000, 400, 1},
    {"filters[0]", 16, 1, 5LL, -1, -1, -1, 1},
    {"filters[0]", 16, 1, 31LL, -1, -1, -1, 1},
    {"filters[0]", 16, 1, 32LL, -1, -1, -1, 1},
    {"filters[0]", 16, 1, 35LL, -1, -1, -1, 1},
    {"filters[0]", 16, 1, 36LL, 100000, 100000, 400, 1},
    {"filters[0]", 16, 1, 37LL, -18, -18, -18, 1},
    {"filters[0]", 16, 1, 100LL, -18, -18, -18, 1},
    {"filters[0]", 16, 1, 159LL, -18, -18, -18, 1},
    {"filters[0]", 16, 1, 160LL, -18, -18, -18, 1},
    {"filters[0]", 16, 1, 255LL, -18, -18, -18, 1},
    {"filters[5]", 21, 1, 2LL, 100000, 100000, 400, 1},
    {"filters[5]", 21, 1, 3LL, 100000, 100000, 400, 1},
    {"filters[5]", 21, 1, 4LL, 100000, 100000, 400, 1},
    {"filters[5]", 21, 1, 5LL, -1, -1, -1, 1},
    {"filters[5]", 21, 1, 31LL, -1, -1, -1, 1},
    {"filters[5]", 21, 1, 32LL, -1, -1, -1, 1},
    {"filters[5]", 21, 1, 35LL, -1, -1, -1, 1},
    {"filters[5]", 21, 1, 36LL, 100000, 100000, 400, 1},
    {"filters[5]", 21, 1, 37LL, -18, -18, -18, 1},
    {"filters[5]", 21, 1, 100LL, -18, -18, -18, 1},
    {"filters[5]", 21, 1, 159LL, -18, -18, -18, 1},
    {"filters[5]", 21, 1, 160LL, -18, -18, -18, 1},
    {"filters[5]", 21, 1, 255LL, -18, -18, -18, 1},
    {"udcompcode", 22, 1, 0LL, 100000, 100000, 400, 1},
    {"udcompcode", 22, 1, 5LL, 100000, 100000, 400, 1},
    {"udcompcode", 22, 1, 32LL, 100000, 100000, 400, 1},
    {"udcompcode", 22, 1, 170LL, 100000, 100000, 400, 1},
    {"udcompcode", 22, 1, 255LL, 100000, 100000, 400, 1},
    {"compcode_meta", 23, 1, 77LL, 100000, 100000, 400, 1},
    {"filters_meta[5]", 29, 1, 2LL, 100000, 100000, 400, 1},
    {"filters_meta[5]", 29, 1, 3LL, 100000, 100000, 400, 1},
    {"filters_meta[5]", 29, 1, 5LL, 100000, 100000, 400, 1},
    {"filters_meta[5]", 29, 1, 255LL, 100000, 100000, 400, 1},
    {"flags2", 30, 1, 1LL, -5, -5, -12, 1},
    {"flags2", 30, 1, 2LL, 100000, 100000, 400, 0},
    {"flags2", 30, 1, 128LL, 100000, 100000, 400, 0},
    {"flags2", 30, 1, 255LL, -5, -5, -12, 1},
    {"blosc2_flags", 31, 1, 1LL, 100000, 100000, 400, 0},
    {"blosc2_flags", 31, 1, 2LL, 100000, 100000, 400, 1},
    {"blosc2_flags", 31, 1, 4LL, 100000, 100000, 400, 0},
    {"blosc2_flags", 31, 1, 8LL, -12, -12, -12, 1},
    {"blosc2_flags", 31, 1, 16LL, 100000, 100000, 400, 1},
    {"blosc2_flags", 31, 1, 32LL, 100000, 100000, 400, 1},
    {"blosc2_flags", 31, 1, 48LL, -11, -11, -11, 1},
    {"blosc2_flags", 31, 1, 64LL, 100000, 100000, 400, 1},
    {"blosc2_flags", 31, 1, 80LL, -3, -3, -29, 1},
    {"blosc2_flags", 31, 1, 96LL, -3, -3, -29, 1},
    {"blosc2_flags", 31, 1, 112LL, -3, -3, -29, 1},
    {"blosc2_flags", 31, 1, 128LL, 100000, 100000, 400, 0},
    {"bstarts[0]", 32, 4, 0LL, -3, -3, 400, 1},
    {"bstarts[0]", 32, 4, -1LL, -3, -3, 400, 1},
    {"bstarts[0]", 32, 4, 16LL, -3, -3, 400, 1},
    {"bstarts[0]", 32, 4, 31LL, -5, -5, 400, 1},
    {"bstarts[0]", 32, 4, 32LL, -3, -3, 400, 1},
    {"bstarts[0]", 32, 4, 52LL, -3, -3, 400, 1},
    {"bstarts[0]", 32, 4, 2780LL, -3, -3, 400, 1},
    {"bstarts[0]", 32, 4, 2779LL, -5, -5, 400, 1},
    {"bstarts[0]", 32, 4, 2880LL, -3, -3, 400, 1},
    {"bstarts[0]", 32, 4, 2147483647LL, -3, -3, 400, 1},
    {"bstarts[3]", 44, 4, 0LL, -3, -3, 400, 1},
    {"bstarts[3]", 44, 4, -1LL, -3, -3, 400, 1},
    {"bstarts[3]", 44, 4, 16LL, -3, -3, 400, 1},
    {"bstarts[3]", 44, 4, 31LL, -5, -5, 400, 1},
    {"bstarts[3]", 44, 4, 32LL, -3, -3, 400, 1},
    {"bstarts[3]", 44, 4, 52LL, -3, -3, 400, 1},
    {"bstarts[3]", 44, 4, 2780LL, -3, -3, 400, 1},
    {"bstarts[3]", 44, 4, 2779LL, -5, -5, 400, 1},
    {"bstarts[3]", 44, 4, 2880LL, -3, -3, 400, 1},
    {"bstarts[3]", 44, 4, 2147483647LL, -3, -3, 400, 1},
    {"csize[0]", 60, 4, 0LL, -5, -5, 400, 1},
    {"csize[0]", 60, 4, -1LL, -5, -5, 400, 1},
    {"csize[0]", 60, 4, -255LL, -5, -5, 400, 1},
    {"csize[0]", 60, 4, -256LL, -17, -17, 400, 1},
    {"csize[0]", 60, 4, 1LL, -3, -3, 400, 1},
    {"csize[0]", 60, 4, 4095LL, -5, -5, 400, 1},
    {"csize[0]", 60, 4, 4097LL, -5, -5, 400, 1},
    {"csize[0]", 60, 4, 16384LL, -5, -5, 400, 1},
    {"csize[0]", 60, 4, 2147483647LL, -5, -5, 400, 1},
    {"csize[0]", 60, 4, -2147483647LL, -17, -17, 400, 1},
};

static const corruption MEMCPY_CASES[] = {
    {"flags", 2, 1, 5LL, -3, -3, -17, 1},
    {"flags", 2, 1, 6LL, -3, -3, 400, 1},
    {"flags", 2, 1, 23LL, 100000, 100000, 400, 1},
    {"flags", 2, 1, 103LL, 100000, 100000, 400, 1},
    {"flags", 2, 1, 199LL, 100000, 100000, 400, 1},
    {"typesize", 3, 1, 0LL, -11, -11, -11, 1},
    {"typesize", 3, 1, 1LL, 100000, 100000, 100, 1},
    {"typesize", 3, 1, 3LL, 100000, 100000, 300, 1},
    {"typesize", 3, 1, 8LL, 100000, 100000, 800, 1},
    {"typesize", 3, 1, 255LL, 100000, 100000, -12, 1},
    {"nbytes", 4, 4, 0LL, -3, -3, -12, 1},
    {"nbytes", 4, 4, 1LL, -3, -3, -12, 1},
    {"nbytes", 4, 4, 99999LL, -3, -3, 400, 1},
    {"nbytes", 4, 4, 99996LL, -3, -3, 400, 1},
    {"nbytes", 4, 4, 100004LL, -3, -3, 400, 1},
    {"nbytes", 4, 4, 200000LL, -6, -6, 400, 1},
    {"nbytes", 4, 4, -1LL, -3, -3, -12, 1},
    {"nbytes", 4, 4, 2147483647LL, -6, -6, 400, 1},
    {"blocksize", 8, 4, 0LL, -11, -11, -11, 1},
    {"blocksize", 8, 4, -1LL, -11, -11, -11, 1},
    {"blocksize", 8, 4, 1LL, 100000, 100000, 400, 1},
    {"blocksize", 8, 4, 4LL, 100000, 100000, 400, 1},
    {"blocksize", 8, 4, 16383LL, 100000, 100000, 400, 1},
    {"blocksize", 8, 4, 100000LL, 100000, 100000, 400, 1},
    {"blocksize", 8, 4, 100001LL, 100000, 100000, 400, 1},
    {"blocksize", 8, 4, 536866817LL, -11, -11, -11, 1},
    {"cbytes", 12, 4, 0LL, -11, -11, -11, 1},
    {"cbytes", 12, 4, 31LL, -11, -11, -11, 1},
    {"cbytes", 12, 4, 32LL, -3, -3, 400, 1},
    {"cbytes", 12, 4, 100031LL, -3, -3, 400, 1},
    {"cbytes", 12, 4, 100033LL, -11, -11, -11, 1},
    {"cbytes", 12, 4, -1LL, -11, -11, -11, 1},
    {"cbytes", 12, 4, 2147483647LL, -11, -11, -11, 1},
    {"filters[5]", 21, 1, 5LL, 100000, 100000, 400, 1},
    {"filters[5]", 21, 1, 37LL, 100000, 100000, 400, 1},
    {"filters[5]", 21, 1, 160LL, 100000, 100000, 400, 1},
    {"flags2", 30, 1, 1LL, -11, -11, -11, 1},
    {"flags2", 30, 1, 2LL, 100000, 100000, 400, 0},
#ifndef B2RS_REFERENCE_BUG_DICT_MEMCPY
    /* the dictionary flag is meaningless on a memcpyed chunk (the reference
       fails with -9) */
    {"blosc2_flags", 31, 1, 1LL, 100000, 100000, 400, 1},
#endif
    {"blosc2_flags", 31, 1, 8LL, -12, -12, -12, 1},
    {"blosc2_flags", 31, 1, 16LL, 100000, 100000, 400, 1},
    {"blosc2_flags", 31, 1, 48LL, -3, -3, -3, 1},
    {"blosc2_flags", 31, 1, 80LL, -3, -3, -29, 1},
    {"blosc2_flags", 31, 1, 128LL, 100000, 100000, 400, 0},
};

static const corruption VL_CASES[] = {
    {"version", 0, 1, 5LL, 5, 30000, 100000, 1},
    {"version", 0, 1, 7LL, 5, 30000, 100000, 0},
    {"version", 0, 1, 255LL, 5, 30000, 100000, 0},
    {"flags", 2, 1, 23LL, -11, -11, -11, 1},
    {"flags", 2, 1, 5LL, 5, 30000, 100000, 1},
    {"flags", 2, 1, 213LL, -7, -7, -7, 1},
    {"typesize", 3, 1, 0LL, -11, -11, -11, 1},
    {"typesize", 3, 1, 1LL, 5, 30000, 100000, 1},
    {"typesize", 3, 1, 8LL, 5, 30000, 100000, 1},
    {"nbytes", 4, 4, 0LL, -11, -11, -11, 1},
    {"nbytes", 4, 4, 99999LL, -11, -11, -11, 1},
    {"nbytes", 4, 4, 100001LL, -11, -11, -11, 1},
    {"nbytes", 4, 4, -1LL, -11, -11, -11, 1},
    {"nblocks", 8, 4, 0LL, -11, -11, -11, 1},
    {"nblocks", 8, 4, -1LL, -11, -11, -11, 1},
    {"nblocks", 8, 4, 1LL, -11, -11, -11, 1},
    {"nblocks", 8, 4, 4LL, -11, -11, -11, 1},
    {"nblocks", 8, 4, 6LL, -11, -11, -11, 1},
    {"nblocks", 8, 4, 100LL, -11, -11, -11, 1},
    {"nblocks", 8, 4, 1000000LL, -5, -5, -5, 1},
    {"cbytes", 12, 4, 0LL, -11, -11, -11, 1},
    {"cbytes", 12, 4, 31LL, -11, -11, -11, 1},
    {"cbytes", 12, 4, 32LL, -11, -11, -11, 1},
    {"cbytes", 12, 4, 2352LL, -3, 30000, -3, 1},
    {"cbytes", 12, 4, 2354LL, -11, -11, -11, 1},
    {"cbytes", 12, 4, -1LL, -11, -11, -11, 1},
    {"flags2", 30, 1, 0LL, -12, -12, -5, 1},
    {"flags2", 30, 1, 3LL, 5, 30000, 100000, 0},
    {"flags2", 30, 1, 129LL, 5, 30000, 100000, 0},
    {"blosc2_flags", 31, 1, 1LL, -5, -5, -5, 1},
    {"blosc2_flags", 31, 1, 8LL, -12, -12, -12, 1},
    {"blosc2_flags", 31, 1, 16LL, -11, -11, -11, 1},
    {"blosc2_flags", 31, 1, 128LL, 5, 30000, 100000, 0},
    {"bstarts[2]", 40, 4, 0LL, -11, -11, -11, 1},
    {"bstarts[2]", 40, 4, -1LL, -11, -11, -11, 1},
    {"bstarts[2]", 40, 4, 31LL, -11, -11, -11, 1},
    {"bstarts[2]", 40, 4, 52LL, -11, -11, -11, 1},
    {"bstarts[2]", 40, 4, 1432LL, -11, -11, -11, 1},
    {"bstarts[2]", 40, 4, 1433LL, -11, -11, -11, 1},
    {"bstarts[2]", 40, 4, 2353LL, -11, -11, -11, 1},
    {"bstarts[2]", 40, 4, 2350LL, -11, -11, -11, 1},
    {"bstarts[2]", 40, 4, 2147483647LL, -11, -11, -11, 1},
    {"ulen[2]", 885, 4, 0LL, -11, -11, -11, 1},
    {"ulen[2]", 885, 4, -1LL, -11, -11, -11, 1},
    {"ulen[2]", 885, 4, 1LL, -11, -11, -11, 1},
    {"ulen[2]", 885, 4, 29999LL, -11, -11, -11, 1},
    {"ulen[2]", 885, 4, 30001LL, -11, -11, -11, 1},
    {"ulen[2]", 885, 4, 2147483647LL, -11, -11, -11, 1},
};


static uint8_t *g_src;

static int make_regular(uint8_t **chunk) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.blocksize = 16384;
  return compress_with(cp, g_src, N, chunk);
}

static int make_memcpyed(uint8_t **chunk) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  cp.blocksize = 16384;
  cp.clevel = 0;
  return compress_with(cp, g_src, N, chunk);
}

static const int32_t VL_SIZES[5] = {10000, 20000, 30000, 30000, 10000};

static int make_vl(uint8_t **chunk) {
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  blosc2_context *cctx = blosc2_create_cctx(cp);
  const void *srcs[5] = {g_src, g_src + 10000, g_src + 30000, g_src + 60000, g_src + 90000};
  uint8_t *dst = gbuf(N + 200, 0);
  int cb = blosc2_vlcompress_ctx(cctx, srcs, VL_SIZES, 5, dst, N + 200);
  blosc2_free_ctx(cctx);
  *chunk = dst;
  return cb;
}

static void setup(void) {
  g_src = malloc(N);
  fill_ramp32(g_src, N);
}

/* run one entry point on a (corrupted) chunk; returns the rc */
static int run_regular(const uint8_t *chunk, int cb, int which) {
  int cap = N + 64;
  blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
  dp.nthreads = (int16_t)(which == 1 ? 4 : 1);
  blosc2_context *dctx = blosc2_create_dctx(dp);
  uint8_t *out = gbuf((size_t)cap, 0);
  int rc;
  if (which == 2) rc = blosc2_getitem_ctx(dctx, chunk, cb, 5000, 100, out, cap);
  else rc = blosc2_decompress_ctx(dctx, chunk, cb, out, cap);
  CHECK_GUARD(out, (size_t)cap);
  blosc2_free_ctx(dctx);
  free(out);
  return rc;
}

static int run_vl(const uint8_t *chunk, int cb, int which) {
  int cap = N + 64;
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  uint8_t *out = gbuf((size_t)cap, 0);
  int rc;
  if (which == 0) {
    void *dests[8];
    int32_t dsizes[8];
    rc = blosc2_vldecompress_ctx(dctx, chunk, cb, dests, dsizes, 8);
    for (int i = 0; i < rc && i < 8; i++) free(dests[i]);
  } else if (which == 1) {
    uint8_t *b = NULL;
    int32_t bs = 0;
    rc = blosc2_vldecompress_block_ctx(dctx, chunk, cb, 2, &b, &bs);
    free(b);
  } else {
    rc = blosc2_decompress_ctx(dctx, chunk, cb, out, cap);
  }
  CHECK_GUARD(out, (size_t)cap);
  blosc2_free_ctx(dctx);
  free(out);
  return rc;
}

static void check_rc(const corruption *c, int which, int rc, int expect, bool multithreaded) {
  bool ok = rc == expect || (!c->strict && expect >= 0 && rc < 0);
  /* with several threads, which block's error is reported is a race: any
     error will do when an error is expected */
  if (multithreaded && expect < 0 && rc < 0) ok = true;
  if (!ok) {
    fprintf(stderr, "  corruption %s=%lld (entry %d): got %d, expected %d%s\n", c->field, c->value, which,
            rc, expect, c->strict ? "" : " or an error");
  }
  CHECK(ok);
}

static void run_table(const corruption *cases, size_t ncases, int (*make)(uint8_t **),
                      int (*run)(const uint8_t *, int, int), int mt_entry) {
  uint8_t *base;
  int cb = make(&base);
  CHECK_GT(cb, 0);
  for (size_t i = 0; i < ncases; i++) {
    const corruption *c = &cases[i];
    /* the corrupted chunk sits in a buffer of exactly cbytes bytes followed
       by guard bytes, so over-reads past the chunk hit the guard region
       (read-only checks cannot see them, but ASan builds can) */
    uint8_t *chunk = gbuf((size_t)cb, 0);
    memcpy(chunk, base, (size_t)cb);
    if (c->width == 1) chunk[c->offset] = (uint8_t)c->value;
    else wr_i32(chunk + c->offset, (int32_t)c->value);
    int expects[3] = {c->expect0, c->expect1, c->expect2};
    for (int w = 0; w < 3; w++) {
      int rc = run(chunk, cb, w);
      check_rc(c, w, rc, expects[w], w == mt_entry);
    }
    CHECK_GUARD(chunk, (size_t)cb);
    free(chunk);
  }
  free(base);
}

static void test_corrupt_regular_header(void) {
  setup();
  run_table(REGULAR_CASES, sizeof(REGULAR_CASES) / sizeof(REGULAR_CASES[0]), make_regular, run_regular, 1);
}

static void test_corrupt_memcpyed_header(void) {
  setup();
  run_table(MEMCPY_CASES, sizeof(MEMCPY_CASES) / sizeof(MEMCPY_CASES[0]), make_memcpyed, run_regular, 1);
}

static void test_corrupt_vl_header(void) {
  setup();
  run_table(VL_CASES, sizeof(VL_CASES) / sizeof(VL_CASES[0]), make_vl, run_vl, -1);
}

/* ------------------------------------------------------------------ */
/* truncation                                                           */
/* ------------------------------------------------------------------ */

static void check_truncations(const uint8_t *chunk, int cb, int32_t nbytes, int hlen) {
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  int32_t sizes[] = {0, 1, 2, 15, 16, 17, 31, 32, 33, cb / 2, cb - 2, cb - 1, -1, -100};
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
    int32_t s = sizes[i];
    if (s >= cb) continue;
    /* copy exactly s bytes so that nothing beyond is readable content */
    uint8_t *trunc = gbuf(s > 0 ? (size_t)s : 0, 0);
    if (s > 0) memcpy(trunc, chunk, (size_t)s);
    int expect = (s < hlen) ? BLOSC2_ERROR_READ_BUFFER : BLOSC2_ERROR_INVALID_HEADER;
    uint8_t *out = gbuf((size_t)nbytes, 0);
    int rc = blosc2_decompress_ctx(dctx, trunc, s, out, nbytes);
    if (rc != expect) fprintf(stderr, "  truncated to %d: got %d expected %d\n", s, rc, expect);
    CHECK_EQ(rc, expect);
    rc = blosc2_decompress(trunc, s, out, nbytes);
    CHECK_EQ(rc, expect);
    if (nbytes >= 8) {
      rc = blosc2_getitem_ctx(dctx, trunc, s, 0, 1, out, nbytes);
      CHECK_EQ(rc, expect);
      rc = blosc2_getitem(trunc, s, 0, 1, out, nbytes);
      CHECK_EQ(rc, expect);
    }
    CHECK_GUARD(out, (size_t)nbytes);
    CHECK_GUARD(trunc, s > 0 ? (size_t)s : 0);
    free(out);
    free(trunc);
  }
  blosc2_free_ctx(dctx);
}

static void test_truncated_chunks(void) {
  setup();
  uint8_t *chunk;
  int cb = make_regular(&chunk);
  check_truncations(chunk, cb, N, 32);
  free(chunk);
  cb = make_memcpyed(&chunk);
  check_truncations(chunk, cb, N, 32);
  free(chunk);
  /* run-of-value special chunk: 32 + 8 bytes */
  uint8_t sp[40];
  uint64_t v = 0x0102030405060708ULL;
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 8;
  CHECK_EQ(blosc2_chunk_repeatval(cp, 8000, sp, sizeof(sp), &v), 40);
  check_truncations(sp, 40, 8000, 32);
  /* zeros special chunk: 32 bytes */
  cp.typesize = 4;
  CHECK_EQ(blosc2_chunk_zeros(cp, 8000, sp, sizeof(sp)), 32);
  check_truncations(sp, 32, 8000, 32);
  /* dictionary chunk */
  blosc2_cparams dcp = BLOSC2_CPARAMS_DEFAULTS;
  dcp.typesize = 4;
  dcp.compcode = BLOSC_ZSTD;
  dcp.use_dict = 1;
  dcp.blocksize = 16384;
  fill_mixed(g_src, N, 3);
  cb = compress_with(dcp, g_src, N, &chunk);
  CHECK_EQ(HDR_BLOSC2_FLAGS(chunk) & 1, 1);
  check_truncations(chunk, cb, N, 32);
  free(chunk);
}

/* chunks with a 16-byte header (BLOSC_BLOSC1_COMPAT) */
static void test_truncated_blosc1_compat(void) {
  setup();
  setenv("BLOSC_BLOSC1_COMPAT", "1", 1);
  uint8_t *dst = gbuf(N + 32, 0);
  int cb = blosc1_compress(5, 1, 4, N, g_src, dst, N + 32);
  unsetenv("BLOSC_BLOSC1_COMPAT");
  CHECK_GT(cb, 0);
  CHECK(!HDR_IS_EXTENDED(dst));
  check_truncations(dst, cb, N, 16);
  free(dst);
}

static void test_truncated_vl(void) {
  setup();
  uint8_t *chunk;
  int cb = make_vl(&chunk);
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  int32_t sizes[] = {0, 1, 15, 16, 31, 32, 33, 51, 52, cb / 2, cb - 1};
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
    int32_t s = sizes[i];
    uint8_t *trunc = gbuf((size_t)s, 0);
    memcpy(trunc, chunk, (size_t)s);
    int expect = s < 32 ? BLOSC2_ERROR_READ_BUFFER : BLOSC2_ERROR_INVALID_HEADER;
    void *dests[8];
    int32_t dsizes[8];
    CHECK_EQ(blosc2_vldecompress_ctx(dctx, trunc, s, dests, dsizes, 8), expect);
    uint8_t *b = NULL;
    int32_t bs;
    CHECK_EQ(blosc2_vldecompress_block_ctx(dctx, trunc, s, 0, &b, &bs), expect);
    int32_t nb;
    int e2 = s < 32 ? BLOSC2_ERROR_READ_BUFFER : 0;
    CHECK_EQ(blosc2_vlchunk_get_nblocks(trunc, s, &nb), e2);
    CHECK_GUARD(trunc, (size_t)s);
    free(trunc);
  }
  blosc2_free_ctx(dctx);
  free(chunk);
}

/* ------------------------------------------------------------------ */
/* destination one byte too small, for every chunk shape                */
/* ------------------------------------------------------------------ */

static void check_small_dest(const uint8_t *chunk, int cb, int32_t nbytes) {
  for (int nt = 1; nt <= 4; nt *= 4) {
    blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
    dp.nthreads = (int16_t)nt;
    blosc2_context *dctx = blosc2_create_dctx(dp);
    uint8_t *out = gbuf((size_t)nbytes - 1, 0);
    CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, cb, out, nbytes - 1), BLOSC2_ERROR_WRITE_BUFFER);
    CHECK_GUARD(out, (size_t)nbytes - 1);
    CHECK_EQ(blosc2_decompress(chunk, cb, out, nbytes - 1), BLOSC2_ERROR_WRITE_BUFFER);
    CHECK_EQ(blosc1_decompress(chunk, out, (size_t)nbytes - 1), BLOSC2_ERROR_WRITE_BUFFER);
    CHECK_GUARD(out, (size_t)nbytes - 1);
    free(out);
    /* getitem of everything into a buffer one byte short */
    int32_t ts = HDR_TYPESIZE(chunk);
    out = gbuf((size_t)nbytes - 1, 0);
    CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, cb, 0, nbytes / ts, out, nbytes - 1),
             BLOSC2_ERROR_WRITE_BUFFER);
    CHECK_GUARD(out, (size_t)nbytes - 1);
    free(out);
    blosc2_free_ctx(dctx);
  }
}

static void test_dest_too_small_by_one(void) {
  setup();
  uint8_t *chunk;
  int cb = make_regular(&chunk);
  check_small_dest(chunk, cb, N);
  free(chunk);
  cb = make_memcpyed(&chunk);
  check_small_dest(chunk, cb, N);
  free(chunk);
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.typesize = 4;
  uint8_t sp[64];
  cb = blosc2_chunk_zeros(cp, N, sp, sizeof(sp));
  check_small_dest(sp, cb, N);
  cb = blosc2_chunk_nans(cp, N, sp, sizeof(sp));
  check_small_dest(sp, cb, N);
  uint32_t v = 0xdeadbeef;
  cb = blosc2_chunk_repeatval(cp, N, sp, sizeof(sp), &v);
  check_small_dest(sp, cb, N);
  cb = blosc2_chunk_uninit(cp, N, sp, sizeof(sp));
  check_small_dest(sp, cb, N);
  for (int c = 0; c < N_ALL_CODECS; c++) {
    cp.compcode = (uint8_t)ALL_CODECS[c];
    cb = compress_with(cp, g_src, N, &chunk);
    check_small_dest(chunk, cb, N);
    free(chunk);
  }
  /* VL chunk through the regular API */
  cb = make_vl(&chunk);
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  uint8_t *out = gbuf(N - 1, 0);
  CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, cb, out, N - 1), BLOSC2_ERROR_WRITE_BUFFER);
  CHECK_GUARD(out, N - 1);
  free(out);
  blosc2_free_ctx(dctx);
  free(chunk);
}

/* ------------------------------------------------------------------ */
/* compression parameters                                               */
/* ------------------------------------------------------------------ */

static void test_compress_bad_sizes(void) {
  setup();
  uint8_t *dst = gbuf(N + 32, 0);
  /* too large */
  CHECK_EQ(blosc2_compress(5, 1, 4, g_src, BLOSC2_MAX_BUFFERSIZE + 1, dst, N + 32),
           BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED);
  CHECK_EQ(blosc2_compress(5, 1, 4, g_src, INT32_MAX, dst, N + 32), BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED);
  CHECK_EQ(blosc1_compress(5, 1, 4, (size_t)BLOSC2_MAX_BUFFERSIZE + 1, g_src, dst, N + 32),
           BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED);
#ifndef B2RS_REFERENCE_BUG_BLOSC1_SIZE_TRUNC
  /* (the reference truncates the size_t to 32 bits: 2^40 -> an empty chunk) */
  CHECK_EQ(blosc1_compress(5, 1, 4, (size_t)1 << 40, g_src, dst, N + 32), BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED);
  CHECK_EQ(blosc1_compress(5, 1, 4, ((size_t)1 << 32) + 100, g_src, dst, N + 32),
           BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED);
#endif
  blosc2_context *cctx = blosc2_create_cctx(BLOSC2_CPARAMS_DEFAULTS);
  CHECK_EQ(blosc2_compress_ctx(cctx, g_src, BLOSC2_MAX_BUFFERSIZE + 1, dst, N + 32),
           BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED);
  /* destination below the minimum overhead */
  CHECK_EQ(blosc2_compress(5, 1, 4, g_src, N, dst, 31), BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED);
  CHECK_EQ(blosc2_compress(5, 1, 4, g_src, N, dst, 0), BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED);
  CHECK_EQ(blosc2_compress(5, 1, 4, g_src, N, dst, -1), BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED);
  CHECK_EQ(blosc2_compress_ctx(cctx, g_src, N, dst, 31), BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED);
  CHECK_EQ(blosc2_compress_ctx(cctx, g_src, N, dst, INT32_MIN), BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED);
  /* 32 bytes: room for the header only -> cannot compress (0) */
  CHECK_EQ(blosc2_compress(5, 1, 4, g_src, N, dst, 32), 0);
  CHECK_EQ(blosc2_compress_ctx(cctx, g_src, N, dst, 33), 0);
  CHECK_GUARD(dst, N + 32);
  /* negative source size: the reference writes a header-only chunk (32);
     an error is better, but nothing may be written past 32 bytes either way */
  free(dst);
  dst = gbuf(32, 0);
  int rc = blosc2_compress(5, 1, 4, g_src, -1, dst, 32);
  CHECK(rc == 32 || rc < 0);
  rc = blosc2_compress_ctx(cctx, g_src, -5, dst, 32);
  CHECK(rc == 32 || rc < 0);
  rc = blosc1_compress(5, 1, 4, (size_t)-1, g_src, dst, 32);
  CHECK(rc == 32 || rc < 0 || rc == BLOSC2_ERROR_MAX_BUFSIZE_EXCEEDED);
  CHECK_GUARD(dst, 32);
  free(dst);
  blosc2_free_ctx(cctx);
}

static void test_compress_bad_params(void) {
  setup();
  uint8_t *dst = gbuf(N + 32, 0);
  CHECK_EQ(blosc2_compress(10, 1, 4, g_src, N, dst, N + 32), BLOSC2_ERROR_CODEC_PARAM);
  CHECK_EQ(blosc2_compress(-1, 1, 4, g_src, N, dst, N + 32), BLOSC2_ERROR_CODEC_PARAM);
  CHECK_EQ(blosc2_compress(100, 1, 4, g_src, N, dst, N + 32), BLOSC2_ERROR_CODEC_PARAM);
  CHECK_EQ(blosc2_compress(5, 1, BLOSC2_MAXTYPESIZE + 1, g_src, N, dst, N + 32), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_compress(5, 1, INT32_MAX, g_src, N, dst, N + 32), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc1_compress(5, 1, (size_t)BLOSC2_MAXTYPESIZE + 1, N, g_src, dst, N + 32),
           BLOSC2_ERROR_INVALID_PARAM);
  /* unknown shuffle modes and negative typesizes: no crash, nothing written
     past destsize (the reference produces an odd chunk) */
  int rc = blosc2_compress(5, 3, 4, g_src, N, dst, N + 32);
  CHECK_LE(rc, N + 32);
  rc = blosc2_compress(5, -1, 4, g_src, N, dst, N + 32);
  CHECK_LE(rc, N + 32);
  rc = blosc2_compress(5, 1, -1, g_src, N, dst, N + 32);
  CHECK_LE(rc, N + 32);
  CHECK_GUARD(dst, N + 32);
  /* contexts: negative blocksize is an error (the reference returns a
     meaningless negative number) */
  blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
  cp.blocksize = -1;
  uint8_t *chunk;
  rc = compress_with(cp, g_src, N, &chunk);
  CHECK_LT(rc, 0);
  free(chunk);
  free(dst);
}

/* NULL pointers for which the reference returns an error or a value */
static void test_null_pointers(void) {
  setup();
  blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
  blosc2_context *cctx = blosc2_create_cctx(BLOSC2_CPARAMS_DEFAULTS);
  uint8_t out[100];
  uint8_t *chunk;
  int cb = make_regular(&chunk);
  /* NULL source with size 0 */
  CHECK_EQ(blosc2_decompress(NULL, 0, out, sizeof(out)), BLOSC2_ERROR_READ_BUFFER);
  CHECK_EQ(blosc2_decompress_ctx(dctx, NULL, 0, out, sizeof(out)), BLOSC2_ERROR_READ_BUFFER);
  CHECK_EQ(blosc2_getitem(NULL, 0, 0, 1, out, sizeof(out)), BLOSC2_ERROR_READ_BUFFER);
  CHECK_EQ(blosc2_getitem_ctx(dctx, NULL, 0, 0, 1, out, sizeof(out)), BLOSC2_ERROR_READ_BUFFER);
  /* NULL destination with size 0 */
  CHECK_EQ(blosc2_decompress(chunk, cb, NULL, 0), BLOSC2_ERROR_WRITE_BUFFER);
  CHECK_EQ(blosc2_decompress_ctx(dctx, chunk, cb, NULL, 0), BLOSC2_ERROR_WRITE_BUFFER);
  CHECK_EQ(blosc2_getitem(chunk, cb, 0, 0, NULL, 0), 0);
  CHECK_EQ(blosc2_getitem_ctx(dctx, chunk, cb, 0, 0, NULL, 0), 0);
  CHECK_EQ(blosc2_chunk_zeros(BLOSC2_CPARAMS_DEFAULTS, 800, NULL, 0), BLOSC2_ERROR_DATA);
  /* NULL source of zero length compresses to an empty chunk */
  uint8_t *dst = gbuf(64, 0);
  CHECK_EQ(blosc2_compress(5, 1, 4, NULL, 0, dst, 64), 32);
  CHECK_EQ(blosc2_compress_ctx(cctx, NULL, 0, dst, 64), 32);
  CHECK_EQ(HDR_NBYTES(dst), 0);
  CHECK_GUARD(dst, 64);
  free(dst);
  /* VL functions check their pointers */
  int32_t sizes[2] = {10, 20};
  const void *srcs[2] = {g_src, g_src + 10};
  const void *srcs_null[2] = {g_src, NULL};
  dst = gbuf(200, 0);
  CHECK_EQ(blosc2_vlcompress_ctx(cctx, NULL, sizes, 2, dst, 200), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vlcompress_ctx(cctx, srcs, NULL, 2, dst, 200), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vlcompress_ctx(cctx, srcs_null, sizes, 2, dst, 200), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_GUARD(dst, 200);
  int vcb = blosc2_vlcompress_ctx(cctx, srcs, sizes, 2, dst, 200);
  CHECK_GT(vcb, 0);
  int32_t nb;
  CHECK_EQ(blosc2_vlchunk_get_nblocks(NULL, 0, NULL), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vlchunk_get_nblocks(NULL, 100, &nb), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vlchunk_get_nblocks(dst, vcb, NULL), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vldecompress_ctx(dctx, NULL, 0, NULL, NULL, 4), BLOSC2_ERROR_INVALID_PARAM);
  CHECK_EQ(blosc2_vldecompress_block_ctx(dctx, NULL, 0, 0, NULL, NULL), BLOSC2_ERROR_INVALID_PARAM);
  uint8_t *b;
  int32_t bs;
  CHECK_EQ(blosc2_schunk_get_vlblock(NULL, 0, 0, &b, &bs), BLOSC2_ERROR_INVALID_PARAM);
  free(dst);
  /* raw shuffles of zero bytes */
  CHECK_EQ(blosc2_shuffle(4, 0, NULL, NULL), 0);
  free(chunk);
  blosc2_free_ctx(dctx);
  blosc2_free_ctx(cctx);
}

/* corrupted stream data of every codec: an error or the full size, never a
   crash or a write past the destination */
static void test_corrupt_streams_all_codecs(void) {
  setup();
  fill_mixed(g_src, N, 5);
  for (int c = 0; c < N_ALL_CODECS; c++) {
    for (int dict = 0; dict <= 1; dict++) {
      if (dict && (ALL_CODECS[c] == BLOSC_BLOSCLZ || ALL_CODECS[c] == BLOSC_ZLIB)) continue;
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.compcode = (uint8_t)ALL_CODECS[c];
      cp.typesize = 4;
      cp.blocksize = 16384;
      cp.use_dict = dict;
      uint8_t *base;
      int cb = compress_with(cp, g_src, N, &base);
      CHECK_GT(cb, 0);
      CHECK(!HDR_IS_MEMCPYED(base));
      int32_t nblocks = (N + 16383) / 16384;
      int first = 32 + 4 * nblocks;
      t_seed(1000 + (uint64_t)c * 10 + (uint64_t)dict);
      for (int k = 0; k < 150; k++) {
        uint8_t *chunk = gbuf((size_t)cb, 0);
        memcpy(chunk, base, (size_t)cb);
        int pos = first + (int)(t_rand64() % (uint64_t)(cb - first));
        chunk[pos] ^= (uint8_t)(1 + t_rand64() % 255);
        if (k % 3 == 0) {
          int pos2 = first + (int)(t_rand64() % (uint64_t)(cb - first));
          chunk[pos2] = (uint8_t)t_rand64();
        }
        for (int nt = 1; nt <= 2; nt++) {
          blosc2_dparams dp = BLOSC2_DPARAMS_DEFAULTS;
          dp.nthreads = (int16_t)nt;
          blosc2_context *dctx = blosc2_create_dctx(dp);
          uint8_t *out = gbuf(N, 0);
          int rc = blosc2_decompress_ctx(dctx, chunk, cb, out, N);
          CHECK(rc == N || rc < 0);
          CHECK_GUARD(out, N);
          rc = blosc2_getitem_ctx(dctx, chunk, cb, 7000, 3000, out, N);
          CHECK(rc == 12000 || rc < 0);
          CHECK_GUARD(out, N);
          free(out);
          blosc2_free_ctx(dctx);
        }
        free(chunk);
      }
      free(base);
    }
  }
}

/* random header + body corruptions of every chunk shape */
static void test_random_corruptions(void) {
  setup();
  for (int shape = 0; shape < 4; shape++) {
    uint8_t *base;
    int cb;
    if (shape == 0) cb = make_regular(&base);
    else if (shape == 1) cb = make_memcpyed(&base);
    else if (shape == 2) cb = make_vl(&base);
    else {
      blosc2_cparams cp = BLOSC2_CPARAMS_DEFAULTS;
      cp.typesize = 4;
      base = gbuf(36, 0);
      uint32_t v = 0x01020304;
      cb = blosc2_chunk_repeatval(cp, N, base, 36, &v);
    }
    CHECK_GT(cb, 0);
    t_seed(77 + (uint64_t)shape);
    for (int k = 0; k < 400; k++) {
      uint8_t *chunk = gbuf((size_t)cb, 0);
      memcpy(chunk, base, (size_t)cb);
      int nflips = 1 + (int)(t_rand64() % 3);
      for (int f = 0; f < nflips; f++) {
        /* bias towards the header and the bstarts table */
        int lim = (t_rand64() % 2) ? (cb < 64 ? cb : 64) : cb;
        int pos = (int)(t_rand64() % (uint64_t)lim);
        chunk[pos] = (uint8_t)t_rand64();
      }
      blosc2_context *dctx = blosc2_create_dctx(BLOSC2_DPARAMS_DEFAULTS);
      uint8_t *out = gbuf(N, 0);
      int rc = blosc2_decompress_ctx(dctx, chunk, cb, out, N);
      CHECK(rc <= N);
      CHECK_GUARD(out, N);
      rc = blosc2_getitem_ctx(dctx, chunk, cb, 100, 50, out, N);
      CHECK(rc <= N);
      CHECK_GUARD(out, N);
      if (shape == 2) {
        void *dests[8];
        int32_t dsizes[8];
        rc = blosc2_vldecompress_ctx(dctx, chunk, cb, dests, dsizes, 8);
        for (int i = 0; i < rc && i < 8; i++) free(dests[i]);
        uint8_t *b = NULL;
        int32_t bs;
        rc = blosc2_vldecompress_block_ctx(dctx, chunk, cb, 1, &b, &bs);
        free(b);
      }
      free(out);
      blosc2_free_ctx(dctx);
      CHECK_GUARD(chunk, (size_t)cb);
      free(chunk);
    }
    free(base);
  }
}

int main(int argc, char **argv) {
  TEST_BEGIN(argc, argv);
  blosc2_init();
  RUN(test_corrupt_regular_header);
  RUN(test_corrupt_memcpyed_header);
  RUN(test_corrupt_vl_header);
  RUN(test_truncated_chunks);
  RUN(test_truncated_blosc1_compat);
  RUN(test_truncated_vl);
  RUN(test_dest_too_small_by_one);
  RUN(test_compress_bad_sizes);
  RUN(test_compress_bad_params);
  RUN(test_null_pointers);
  RUN(test_corrupt_streams_all_codecs);
  RUN(test_random_corruptions);
  blosc2_destroy();
  return TEST_SUMMARY();
}
