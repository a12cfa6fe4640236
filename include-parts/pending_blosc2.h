/* Declarations of the blosc2.h functions that b2rs does not implement in src/capi/ yet.
 * Signatures copied from C-Blosc2 3.3 (BSD-3-Clause), Copyright (c) 2021 Blosc Development Team.
 *
 * build.rs pastes this file at the "@b2rs:pending" marker of include-parts/blosc2.h.in, leaving out
 * every declaration whose function is already exported from src/capi/ (cbindgen prints those), and
 * warns about such stale entries; tests/headers.rs fails until they are deleted from here.
 * Format: one declaration per blank-line-separated block; comments and blank lines are free. */

/* ---- 8. Frames: to/from memory & files, sframes (directories), offsets, urlpaths ---- */

BLOSC_EXPORT blosc2_schunk* blosc2_schunk_from_buffer(uint8_t *cframe, int64_t len, bool copy);

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

/* ---- 10. I/O callbacks (blosc2_io) and built-in stdio / mmap backends ---- */

BLOSC_EXPORT int blosc2_register_io_cb(const blosc2_io_cb *io);

BLOSC_EXPORT blosc2_io_cb *blosc2_get_io_cb(uint8_t id);
