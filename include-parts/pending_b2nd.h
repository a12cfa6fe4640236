/* Declarations of the b2nd.h functions that b2rs does not implement in src/capi/ yet.
 * Signatures copied from C-Blosc2 3.3 (BSD-3-Clause), Copyright (c) 2021 Blosc Development Team.
 *
 * build.rs pastes this file at the "@b2rs:pending" marker of include-parts/b2nd.h.in, leaving out
 * every declaration whose function is already exported from src/capi/ (cbindgen prints those), and
 * warns about such stale entries; tests/headers.rs fails until they are deleted from here.
 * Format: one declaration per blank-line-separated block; comments and blank lines are free. */

/* ---- 12a. b2nd: context & constructors / destructors ---- */

BLOSC_EXPORT int b2nd_uninit(b2nd_context_t *ctx, b2nd_array_t **array);

BLOSC_EXPORT int b2nd_empty(b2nd_context_t *ctx, b2nd_array_t **array);

BLOSC_EXPORT int b2nd_zeros(b2nd_context_t *ctx, b2nd_array_t **array);

BLOSC_EXPORT int b2nd_nans(b2nd_context_t *ctx, b2nd_array_t **array);

BLOSC_EXPORT int b2nd_full(b2nd_context_t *ctx, b2nd_array_t **array, const void *fill_value);

BLOSC_EXPORT int b2nd_free(b2nd_array_t *array);

BLOSC_EXPORT int b2nd_from_schunk(blosc2_schunk *schunk, b2nd_array_t **array);

BLOSC_EXPORT int b2nd_copy(b2nd_context_t *ctx, const b2nd_array_t *src, b2nd_array_t **array);

/* ---- 12b. b2nd: from/to C buffers, cframes, files (save/open/serialize) ---- */

BLOSC_EXPORT int b2nd_to_cframe(const b2nd_array_t *array, uint8_t **cframe,
                                int64_t *cframe_len, bool *needs_free);

BLOSC_EXPORT int b2nd_from_cframe(uint8_t *cframe, int64_t cframe_len, bool copy, b2nd_array_t **array);

BLOSC_EXPORT int b2nd_open(const char *urlpath, b2nd_array_t **array);

BLOSC_EXPORT int b2nd_open_offset(const char *urlpath, b2nd_array_t **array, int64_t offset);

BLOSC_EXPORT int b2nd_save(const b2nd_array_t *array, char *urlpath);

BLOSC_EXPORT int64_t b2nd_save_append(const b2nd_array_t *array, const char *urlpath);

BLOSC_EXPORT int b2nd_from_cbuffer(b2nd_context_t *ctx, b2nd_array_t **array, const void *buffer, int64_t buffersize);

BLOSC_EXPORT int b2nd_to_cbuffer(const b2nd_array_t *array, void *buffer, int64_t buffersize);

/* ---- 12c. b2nd: slices, sparse & orthogonal selection ---- */

BLOSC_EXPORT int b2nd_get_sparse_cbuffer(const b2nd_array_t *array, int64_t ncoords,
                                         const int64_t *coords, void *buffer, int64_t buffersize);

BLOSC_EXPORT int b2nd_get_slice(b2nd_context_t *ctx, b2nd_array_t **array, const b2nd_array_t *src,
                                const int64_t *start, const int64_t *stop);

BLOSC_EXPORT int b2nd_get_slice_cbuffer(const b2nd_array_t *array, const int64_t *start, const int64_t *stop,
                                        void *buffer, const int64_t *buffershape, int64_t buffersize);

BLOSC_EXPORT int b2nd_set_slice_cbuffer(const void *buffer, const int64_t *buffershape, int64_t buffersize,
                                        const int64_t *start, const int64_t *stop, b2nd_array_t *array);

BLOSC_EXPORT int b2nd_get_orthogonal_selection(const b2nd_array_t *array, int64_t **selection,
                                               int64_t *selection_size, void *buffer,
                                               int64_t *buffershape, int64_t buffersize);

BLOSC_EXPORT int b2nd_set_orthogonal_selection(b2nd_array_t *array, int64_t **selection,
                                               int64_t *selection_size, const void *buffer,
                                               int64_t *buffershape, int64_t buffersize);

/* ---- 12d. b2nd: shape changes (resize/insert/append/delete/squeeze/expand/concatenate) ---- */

BLOSC_EXPORT int b2nd_squeeze_index(b2nd_array_t *array, b2nd_array_t **view, const bool *index);

BLOSC_EXPORT int b2nd_squeeze(b2nd_array_t *array, b2nd_array_t **view);

BLOSC_EXPORT int b2nd_expand_dims(const b2nd_array_t *array, b2nd_array_t **view, const bool *axis,
    const uint8_t final_dims);

BLOSC_EXPORT int b2nd_concatenate(b2nd_context_t *ctx, const b2nd_array_t *src1, const b2nd_array_t *src2,
                                  int8_t axis, bool copy, b2nd_array_t **array);

BLOSC_EXPORT int b2nd_resize(b2nd_array_t *array, const int64_t *new_shape, const int64_t *start);

BLOSC_EXPORT int b2nd_insert(b2nd_array_t *array, const void *buffer, int64_t buffersize,
                             int8_t axis, int64_t insert_start);

BLOSC_EXPORT int b2nd_append(b2nd_array_t *array, const void *buffer, int64_t buffersize,
                             int8_t axis);

BLOSC_EXPORT int b2nd_delete(b2nd_array_t *array, int8_t axis,
                             int64_t delete_start, int64_t delete_len);

/* ---- 12e. b2nd: metalayer helpers, refresh, buffer utilities ---- */

BLOSC_EXPORT int b2nd_print_meta(const b2nd_array_t *array);

BLOSC_EXPORT int b2nd_refresh(b2nd_array_t *array);
