/* Declarations of the blosc2/blosc2-stdio.h functions that b2rs does not implement in src/capi/ yet.
 * Signatures copied from C-Blosc2 3.3 (BSD-3-Clause), Copyright (c) 2021 Blosc Development Team.
 *
 * build.rs pastes this file at the "@b2rs:pending" marker of include-parts/blosc2-stdio.h.in, leaving out
 * every declaration whose function is already exported from src/capi/ (cbindgen prints those), and
 * warns about such stale entries; tests/headers.rs fails until they are deleted from here.
 * Format: one declaration per blank-line-separated block; comments and blank lines are free. */

/* ---- 10. I/O callbacks (blosc2_io) and built-in stdio / mmap backends ---- */

BLOSC_EXPORT void *blosc2_stdio_open(const char *urlpath, const char *mode, void* params);

BLOSC_EXPORT int blosc2_stdio_close(void *stream);

BLOSC_EXPORT int64_t blosc2_stdio_size(void *stream);

BLOSC_EXPORT int64_t blosc2_stdio_write(const void *ptr, int64_t size, int64_t nitems, int64_t position, void *stream);

BLOSC_EXPORT int64_t blosc2_stdio_read(void **ptr, int64_t size, int64_t nitems, int64_t position, void *stream);

BLOSC_EXPORT int blosc2_stdio_truncate(void *stream, int64_t size);

BLOSC_EXPORT int blosc2_stdio_destroy(void* params);

BLOSC_EXPORT void *blosc2_stdio_mmap_open(const char *urlpath, const char *mode, void* params);

BLOSC_EXPORT int blosc2_stdio_mmap_close(void *stream);

BLOSC_EXPORT int64_t blosc2_stdio_mmap_size(void *stream);

BLOSC_EXPORT int64_t blosc2_stdio_mmap_write(
  const void *ptr, int64_t size, int64_t nitems, int64_t position, void *stream);

BLOSC_EXPORT int64_t blosc2_stdio_mmap_read(void **ptr, int64_t size, int64_t nitems, int64_t position, void *stream);

BLOSC_EXPORT int blosc2_stdio_mmap_truncate(void *stream, int64_t size);

BLOSC_EXPORT int blosc2_stdio_mmap_destroy(void* params);
