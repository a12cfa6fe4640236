/* Declarations of the blosc2.h functions that b2rs does not implement in src/capi/ yet.
 * Signatures copied from C-Blosc2 3.3 (BSD-3-Clause), Copyright (c) 2021 Blosc Development Team.
 *
 * build.rs pastes this file at the "@b2rs:pending" marker of include-parts/blosc2.h.in, leaving out
 * every declaration whose function is already exported from src/capi/ (cbindgen prints those), and
 * warns about such stale entries; tests/headers.rs fails until they are deleted from here.
 * Format: one declaration per blank-line-separated block; comments and blank lines are free. */

/* ---- 5. Variable-length-block (VL-blocks) chunks ---- */

BLOSC_EXPORT int blosc2_schunk_get_vlblock(blosc2_schunk *schunk, int64_t nchunk,
                                           int32_t nblock,
                                           uint8_t **dest, int32_t *destsize);

/* ---- 6. Special chunks (zeros / nans / uninit / repeatval) ---- */

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
