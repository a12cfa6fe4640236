/*
 * blosc2_context33.h - the fields of C-Blosc2 3.3's private `struct blosc2_context_s` that a
 * tuner plugin may read and write (sizeof 1344; offsets from ../shared/abi/context-layout-ref.tsv,
 * checked below). b2rs lays out the start of its contexts the same way, so a tuner built with
 * this header works with both libraries.
 */
#ifndef B2RS_BLOSC2_CONTEXT33_H
#define B2RS_BLOSC2_CONTEXT33_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  const uint8_t *src;          /* 0: the chunk's data (during next_* and update) */
  uint8_t *dest;               /* 8: where it goes */
  uint8_t header_flags[3];     /* 16 */
  int32_t sourcesize;          /* 20: bytes to compress */
  int32_t header_overhead;     /* 24 */
  int32_t nblocks;             /* 28 */
  int32_t leftover;            /* 32 */
  int32_t blocksize;           /* 36: in/out */
  int32_t header_blocksize;    /* 40 */
  int32_t splitmode;           /* 44: in/out */
  int32_t output_bytes;        /* 48 */
  int32_t srcsize;             /* 52 */
  int32_t destsize;            /* 56: room before compressing, the chunk's size in update */
  int32_t typesize;            /* 60: in/out */
  void *block_arrays[6];       /* 64 */
  int32_t special_type;        /* 112 */
  int compcode;                /* 116: in/out */
  uint8_t compcode_meta;       /* 120: in/out */
  int clevel;                  /* 124: in/out */
  int use_dict;                /* 128 */
  void *dict[4];               /* 136 */
  uint8_t filter_flags;        /* 168 */
  uint8_t filters[6];          /* 169: in/out */
  uint8_t filters_meta[6];     /* 175: in/out */
  uint8_t urfilters[643];      /* 181 (blosc2_filter[16] at 184) */
  void *prefilter;             /* 824 */
  void *postfilter;            /* 832 */
  void *preparams;             /* 840 */
  void *postparams;            /* 848 */
  void *block_maskout;         /* 856 */
  int block_maskout_nitems;    /* 864 */
  void *schunk;                /* 872: the super-chunk (blosc2_schunk *) or NULL */
  void *serial_context;        /* 880 */
  int do_compress;             /* 888 */
  void *tuner_params;          /* 896: the tuner's state; set by init to get next_cparams */
  int tuner_id;                /* 904 */
  void *codec_params;          /* 912 */
  void *filter_params[6];      /* 920 */
  int16_t nthreads;            /* 968 */
  int16_t new_nthreads;        /* 970: out: threads for the compression that follows */
} blosc2_context33;

_Static_assert(offsetof(blosc2_context33, sourcesize) == 20, "sourcesize");
_Static_assert(offsetof(blosc2_context33, blocksize) == 36, "blocksize");
_Static_assert(offsetof(blosc2_context33, splitmode) == 44, "splitmode");
_Static_assert(offsetof(blosc2_context33, srcsize) == 52, "srcsize");
_Static_assert(offsetof(blosc2_context33, destsize) == 56, "destsize");
_Static_assert(offsetof(blosc2_context33, typesize) == 60, "typesize");
_Static_assert(offsetof(blosc2_context33, compcode) == 116, "compcode");
_Static_assert(offsetof(blosc2_context33, compcode_meta) == 120, "compcode_meta");
_Static_assert(offsetof(blosc2_context33, clevel) == 124, "clevel");
_Static_assert(offsetof(blosc2_context33, filters) == 169, "filters");
_Static_assert(offsetof(blosc2_context33, filters_meta) == 175, "filters_meta");
_Static_assert(offsetof(blosc2_context33, prefilter) == 824, "prefilter");
_Static_assert(offsetof(blosc2_context33, block_maskout) == 856, "block_maskout");
_Static_assert(offsetof(blosc2_context33, schunk) == 872, "schunk");
_Static_assert(offsetof(blosc2_context33, tuner_params) == 896, "tuner_params");
_Static_assert(offsetof(blosc2_context33, tuner_id) == 904, "tuner_id");
_Static_assert(offsetof(blosc2_context33, nthreads) == 968, "nthreads");
_Static_assert(offsetof(blosc2_context33, new_nthreads) == 970, "new_nthreads");

#endif
