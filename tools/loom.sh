#!/usr/bin/env bash
# Model-check the thread pool's synchronization (src/chunk/pool_sync.rs) with loom:
# tests/loom_pool.rs under every interleaving up to a preemption bound.
#
# Built with --cfg loom in its own target dir (target/loom), so the normal build is not
# invalidated.  Extra arguments go to the test binary (e.g. a test name, --nocapture);
# LOOM_MAX_PREEMPTIONS, LOOM_LOG, LOOM_CHECKPOINT_FILE are read by loom.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR_LOOM:-$PWD/target/loom}"
RUSTFLAGS="--cfg loom" exec cargo test -p b2rs --release --test loom_pool -- "$@"
