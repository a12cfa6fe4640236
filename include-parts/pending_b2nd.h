/* Declarations of the b2nd.h functions that b2rs does not implement in src/capi/ yet.
 * Signatures copied from C-Blosc2 3.3 (BSD-3-Clause), Copyright (c) 2021 Blosc Development Team.
 *
 * build.rs pastes this file at the "@b2rs:pending" marker of include-parts/b2nd.h.in, leaving out
 * every declaration whose function is already exported from src/capi/ (cbindgen prints those), and
 * warns about such stale entries; tests/headers.rs fails until they are deleted from here.
 * Format: one declaration per blank-line-separated block; comments and blank lines are free. */

/* ---- 12a. b2nd: context & constructors / destructors ---- */

/* ---- 12b. b2nd: from/to C buffers, cframes, files (save/open/serialize) ---- */

/* ---- 12c. b2nd: slices, sparse & orthogonal selection ---- */

/* ---- 12d. b2nd: shape changes (resize/insert/append/delete/squeeze/expand/concatenate) ---- */

/* ---- 12e. b2nd: metalayer helpers, refresh, buffer utilities ---- */
