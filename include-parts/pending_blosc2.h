/* Declarations of the blosc2.h functions that b2rs does not implement in src/capi/ yet.
 * Signatures copied from C-Blosc2 3.3 (BSD-3-Clause), Copyright (c) 2021 Blosc Development Team.
 *
 * build.rs pastes this file at the "@b2rs:pending" marker of include-parts/blosc2.h.in, leaving out
 * every declaration whose function is already exported from src/capi/ (cbindgen prints those), and
 * warns about such stale entries; tests/headers.rs fails until they are deleted from here.
 * Format: one declaration per blank-line-separated block; comments and blank lines are free. */

/* ---- 1. Blosc1-style API (blosc1_*) ---- */

BLOSC_EXPORT int blosc1_compress(int clevel, int doshuffle, size_t typesize,
                                 size_t nbytes, const void* src, void* dest,
                                 size_t destsize);

BLOSC_EXPORT int blosc1_decompress(const void* src, void* dest, size_t destsize);

BLOSC_EXPORT int blosc1_getitem(const void* src, int start, int nitems, void* dest);

BLOSC_EXPORT const char* blosc1_get_compressor(void);

BLOSC_EXPORT int blosc1_set_compressor(const char* compname);

BLOSC_EXPORT void blosc1_cbuffer_sizes(const void* cbuffer, size_t* nbytes,
                                       size_t* cbytes, size_t* blocksize);

BLOSC_EXPORT int blosc1_cbuffer_validate(const void* cbuffer, size_t cbytes,
                                         size_t* nbytes);

BLOSC_EXPORT void blosc1_cbuffer_metainfo(const void* cbuffer, size_t* typesize,
                                          int* flags);

BLOSC_EXPORT int blosc1_get_blocksize(void);

BLOSC_EXPORT void blosc1_set_blocksize(size_t blocksize);

BLOSC_EXPORT void blosc1_set_splitmode(int splitmode);

/* ---- 2. Global init / config / library info ---- */

BLOSC_EXPORT const char *blosc2_error_string(int error_code);

BLOSC_EXPORT void blosc2_init(void);

BLOSC_EXPORT void blosc2_destroy(void);

BLOSC_EXPORT void blosc2_set_threads_callback(blosc_threads_callback callback, void *callback_data);

BLOSC_EXPORT int16_t blosc2_get_nthreads(void);

BLOSC_EXPORT int16_t blosc2_set_nthreads(int16_t nthreads);

BLOSC_EXPORT void blosc2_set_delta(int dodelta);

BLOSC_EXPORT int blosc2_compcode_to_compname(int compcode, const char** compname);

BLOSC_EXPORT int blosc2_compname_to_compcode(const char* compname);

BLOSC_EXPORT const char* blosc2_list_compressors(void);

BLOSC_EXPORT const char* blosc2_get_version_string(void);

BLOSC_EXPORT int blosc2_get_complib_info(const char* compname, char** complib,
                                         char** version);

BLOSC_EXPORT int blosc2_free_resources(void);

/* ---- 3. Contexts & cparams/dparams (and default getters) ---- */

BLOSC_EXPORT blosc2_context* blosc2_create_cctx(blosc2_cparams cparams);

BLOSC_EXPORT blosc2_context* blosc2_create_dctx(blosc2_dparams dparams);

BLOSC_EXPORT void blosc2_free_ctx(blosc2_context* context);

BLOSC_EXPORT int blosc2_ctx_get_cparams(blosc2_context *ctx, blosc2_cparams *cparams);

BLOSC_EXPORT int blosc2_ctx_get_dparams(blosc2_context *ctx, blosc2_dparams *dparams);

BLOSC_EXPORT int blosc2_set_maskout(blosc2_context *ctx, bool *maskout, int nblocks);

BLOSC_EXPORT blosc2_cparams blosc2_get_blosc2_cparams_defaults(void);

BLOSC_EXPORT blosc2_dparams blosc2_get_blosc2_dparams_defaults(void);

BLOSC_EXPORT blosc2_storage blosc2_get_blosc2_storage_defaults(void);

BLOSC_EXPORT blosc2_io blosc2_get_blosc2_io_defaults(void);

BLOSC_EXPORT blosc2_stdio_mmap blosc2_get_blosc2_stdio_mmap_defaults(void);

/* ---- 4. Chunk compress / decompress / getitem / header inspection ---- */

BLOSC_EXPORT int blosc2_getitem(const void* src, int32_t srcsize, int start, int nitems,
                                void* dest, int32_t destsize);

BLOSC_EXPORT int blosc2_cbuffer_sizes(const void* cbuffer, int32_t* nbytes,
                                      int32_t* cbytes, int32_t* blocksize);

BLOSC_EXPORT void blosc2_cbuffer_versions(const void* cbuffer, int* version,
                                          int* versionlz);

BLOSC_EXPORT const char* blosc2_cbuffer_complib(const void* cbuffer);

BLOSC_EXPORT int blosc2_compress(int clevel, int doshuffle, int32_t typesize,
                                 const void* src, int32_t srcsize, void* dest,
                                 int32_t destsize);

BLOSC_EXPORT int blosc2_decompress(const void* src, int32_t srcsize,
                                   void* dest, int32_t destsize);

BLOSC_EXPORT int blosc2_compress_ctx(
        blosc2_context* context, const void* src, int32_t srcsize, void* dest,
        int32_t destsize);

BLOSC_EXPORT int blosc2_decompress_ctx(blosc2_context* context, const void* src,
                                       int32_t srcsize, void* dest, int32_t destsize);

BLOSC_EXPORT int blosc2_getitem_ctx(blosc2_context* context, const void* src,
                                    int32_t srcsize, int start, int nitems, void* dest,
                                    int32_t destsize);

BLOSC_EXPORT int blosc2_getitem_bytes_ctx(blosc2_context* context, const void* src,
                                          int32_t srcsize, int32_t start, int32_t nbytes,
                                          void* dest, int32_t destsize);

/* ---- 5. Variable-length-block (VL-blocks) chunks ---- */

BLOSC_EXPORT int blosc2_vlcompress_ctx(
        blosc2_context* context, const void* const* srcs, const int32_t* srcsizes,
        int32_t nblocks, void* dest, int32_t destsize);

BLOSC_EXPORT int blosc2_vldecompress_ctx(blosc2_context* context, const void* src,
                                         int32_t srcsize, void** dests,
                                         int32_t* destsizes, int32_t maxblocks);

BLOSC_EXPORT int blosc2_vlchunk_get_nblocks(const void* src, int32_t srcsize,
                                            int32_t* nblocks);

BLOSC_EXPORT int blosc2_vldecompress_block_ctx(blosc2_context* context,
                                               const void* src,
                                               int32_t srcsize,
                                               int32_t nblock,
                                               uint8_t** dest,
                                               int32_t* destsize);

BLOSC_EXPORT int blosc2_schunk_get_vlblock(blosc2_schunk *schunk, int64_t nchunk,
                                           int32_t nblock,
                                           uint8_t **dest, int32_t *destsize);

/* ---- 6. Special chunks (zeros / nans / uninit / repeatval) ---- */

BLOSC_EXPORT int blosc2_chunk_zeros(blosc2_cparams cparams, int32_t nbytes,
                                    void* dest, int32_t destsize);

BLOSC_EXPORT int blosc2_chunk_nans(blosc2_cparams cparams, int32_t nbytes,
                                   void* dest, int32_t destsize);

BLOSC_EXPORT int blosc2_chunk_repeatval(blosc2_cparams cparams, int32_t nbytes,
                                        void* dest, int32_t destsize, const void* repeatval);

BLOSC_EXPORT int blosc2_chunk_uninit(blosc2_cparams cparams, int32_t nbytes,
                                     void* dest, int32_t destsize);

BLOSC_EXPORT int64_t blosc2_schunk_fill_special(blosc2_schunk* schunk, int64_t nitems,
                                                int special_value, int32_t chunksize);

/* ---- 7. Super-chunk (schunk) create/append/insert/update/delete/get/reorder/copy ---- */

BLOSC_EXPORT blosc2_schunk* blosc2_schunk_new(blosc2_storage *storage);

BLOSC_EXPORT blosc2_schunk* blosc2_schunk_copy(blosc2_schunk *schunk, blosc2_storage *storage);

BLOSC_EXPORT int blosc2_schunk_lock(blosc2_schunk *schunk);

BLOSC_EXPORT int blosc2_schunk_unlock(blosc2_schunk *schunk);

BLOSC_EXPORT int blosc2_schunk_refresh(blosc2_schunk *schunk);

BLOSC_EXPORT int blosc2_schunk_free(blosc2_schunk *schunk);

BLOSC_EXPORT int64_t blosc2_schunk_append_chunk(blosc2_schunk *schunk, uint8_t *chunk, bool copy);

BLOSC_EXPORT int64_t blosc2_schunk_update_chunk(blosc2_schunk *schunk, int64_t nchunk, uint8_t *chunk, bool copy);

BLOSC_EXPORT int64_t blosc2_schunk_insert_chunk(blosc2_schunk *schunk, int64_t nchunk, uint8_t *chunk, bool copy);

BLOSC_EXPORT int64_t blosc2_schunk_delete_chunk(blosc2_schunk *schunk, int64_t nchunk);

BLOSC_EXPORT int64_t blosc2_schunk_append_buffer(blosc2_schunk *schunk, const void *src, int32_t nbytes);

BLOSC_EXPORT int blosc2_schunk_decompress_chunk(blosc2_schunk *schunk, int64_t nchunk, void *dest, int32_t nbytes);

BLOSC_EXPORT int blosc2_schunk_get_chunk(blosc2_schunk *schunk, int64_t nchunk, uint8_t **chunk,
                                         bool *needs_free);

BLOSC_EXPORT int blosc2_schunk_get_lazychunk(blosc2_schunk *schunk, int64_t nchunk, uint8_t **chunk,
                                             bool *needs_free);

BLOSC_EXPORT int blosc2_schunk_get_slice_buffer(blosc2_schunk *schunk, int64_t start, int64_t stop, void *buffer);

BLOSC_EXPORT int blosc2_schunk_get_sparse_buffer(blosc2_schunk *schunk, int64_t ncoords,
                                                 const int64_t* coords, void *buffer);

BLOSC_EXPORT int blosc2_schunk_set_slice_buffer(blosc2_schunk *schunk, int64_t start, int64_t stop, void *buffer);

BLOSC_EXPORT int blosc2_schunk_get_cparams(blosc2_schunk *schunk, blosc2_cparams **cparams);

BLOSC_EXPORT int blosc2_schunk_get_dparams(blosc2_schunk *schunk, blosc2_dparams **dparams);

BLOSC_EXPORT int blosc2_schunk_reorder_offsets(blosc2_schunk *schunk, int64_t *offsets_order);

BLOSC_EXPORT int64_t blosc2_get_slice_nchunks(blosc2_schunk* schunk, int64_t *start, int64_t *stop, int64_t **chunks_idx);

/* ---- 8. Frames: to/from memory & files, sframes (directories), offsets, urlpaths ---- */

BLOSC_EXPORT blosc2_schunk* blosc2_schunk_from_buffer(uint8_t *cframe, int64_t len, bool copy);

BLOSC_EXPORT void blosc2_schunk_avoid_cframe_free(blosc2_schunk *schunk, bool avoid_cframe_free);

BLOSC_EXPORT blosc2_schunk* blosc2_schunk_open(const char* urlpath);

BLOSC_EXPORT blosc2_schunk* blosc2_schunk_open_offset(const char* urlpath, int64_t offset);

BLOSC_EXPORT blosc2_schunk* blosc2_schunk_open_udio(const char* urlpath, const blosc2_io *udio);

BLOSC_EXPORT blosc2_schunk* blosc2_schunk_open_offset_udio(const char* urlpath, int64_t offset, const blosc2_io *udio);

BLOSC_EXPORT int64_t blosc2_schunk_to_buffer(blosc2_schunk* schunk, uint8_t** cframe, bool* needs_free);

BLOSC_EXPORT int64_t blosc2_schunk_to_file(blosc2_schunk* schunk, const char* urlpath);

BLOSC_EXPORT int64_t blosc2_schunk_append_file(blosc2_schunk* schunk, const char* urlpath);

BLOSC_EXPORT int64_t blosc2_schunk_frame_len(blosc2_schunk* schunk);

BLOSC_EXPORT int64_t* blosc2_frame_get_offsets(blosc2_schunk *schunk);

BLOSC_EXPORT int blosc2_remove_dir(const char *path);

BLOSC_EXPORT int blosc2_remove_urlpath(const char *path);

BLOSC_EXPORT int blosc2_rename_urlpath(char* old_urlpath, char* new_path);

/* ---- 9. Metalayers & variable-length metalayers ---- */

BLOSC_EXPORT int blosc2_meta_add(blosc2_schunk *schunk, const char *name, uint8_t *content,
                                 int32_t content_len);

BLOSC_EXPORT int blosc2_meta_update(blosc2_schunk *schunk, const char *name, uint8_t *content,
                                    int32_t content_len);

BLOSC_EXPORT int blosc2_vlmeta_exists(blosc2_schunk *schunk, const char *name);

BLOSC_EXPORT int blosc2_vlmeta_add(blosc2_schunk *schunk, const char *name,
                                   uint8_t *content, int32_t content_len,
                                   blosc2_cparams *cparams);

BLOSC_EXPORT int blosc2_vlmeta_update(blosc2_schunk *schunk, const char *name,
                                      uint8_t *content, int32_t content_len,
                                      blosc2_cparams *cparams);

BLOSC_EXPORT int blosc2_vlmeta_get(blosc2_schunk *schunk, const char *name,
                                   uint8_t **content, int32_t *content_len);

BLOSC_EXPORT int blosc2_vlmeta_delete(blosc2_schunk *schunk, const char *name);

BLOSC_EXPORT int blosc2_vlmeta_get_names(blosc2_schunk *schunk, char **names);

/* ---- 10. I/O callbacks (blosc2_io) and built-in stdio / mmap backends ---- */

BLOSC_EXPORT int blosc2_register_io_cb(const blosc2_io_cb *io);

BLOSC_EXPORT blosc2_io_cb *blosc2_get_io_cb(uint8_t id);

/* ---- 11. Plugins: user codecs / filters / tuners ---- */

BLOSC_EXPORT int blosc2_register_tuner(blosc2_tuner *tuner);

BLOSC_EXPORT int blosc2_register_codec(blosc2_codec *codec);

BLOSC_EXPORT int blosc2_register_filter(blosc2_filter *filter);

/* ---- 13. Misc utilities (timing, index math, raw shuffles, header-private helpers) ---- */

BLOSC_EXPORT void blosc_set_timestamp(blosc_timestamp_t* timestamp);

BLOSC_EXPORT double blosc_elapsed_nsecs(blosc_timestamp_t start_time,
                                        blosc_timestamp_t end_time);

BLOSC_EXPORT double blosc_elapsed_secs(blosc_timestamp_t start_time,
                                       blosc_timestamp_t end_time);

BLOSC_EXPORT void blosc2_unidim_to_multidim(uint8_t ndim, int64_t *shape, int64_t i, int64_t *index);

BLOSC_EXPORT void blosc2_multidim_to_unidim(const int64_t *index, int8_t ndim, const int64_t *strides, int64_t *i);

BLOSC_EXPORT int32_t blosc2_shuffle(const int32_t typesize, const int32_t blocksize, const void* src,
                                    void* dest);

BLOSC_EXPORT int32_t blosc2_unshuffle(const int32_t typesize, const int32_t blocksize, const void* src,
                                      void* dest);

BLOSC_EXPORT int32_t blosc2_bitshuffle(const int32_t typesize, const int32_t blocksize, const void* src,
                                       void* dest);

BLOSC_EXPORT int32_t blosc2_bitunshuffle(const int32_t typesize, const int32_t blocksize, const void* src,
                                         void* dest);
