/* Declarations of the blosc2.h functions that b2rs does not implement in src/capi/ yet.
 * Signatures copied from C-Blosc2 3.3 (BSD-3-Clause), Copyright (c) 2021 Blosc Development Team.
 *
 * build.rs pastes this file at the "@b2rs:pending" marker of include-parts/blosc2.h.in, leaving out
 * every declaration whose function is already exported from src/capi/ (cbindgen prints those), and
 * warns about such stale entries; tests/headers.rs fails until they are deleted from here.
 * Format: one declaration per blank-line-separated block; comments and blank lines are free. */

