#!/usr/bin/env bash
# The aarch64 NEON shuffle and bitshuffle kernels (src/filters/*_neon.rs), which x86_64 builds
# do not compile: cross-built for aarch64-unknown-linux-gnu, linted with clippy, and their tests
# (every kernel against the generic code, typesizes 1-32 and more, odd lengths) run under
# qemu-aarch64.
#
# Installs what it needs when missing: the Rust target (rustup), qemu-user and the aarch64 GNU
# toolchain (apt-get, for the linker, libc and the C codecs). If an install fails the check is
# skipped with a WARNING (exit 0), as for the other optional tools of tools/test.sh; a failing
# test or lint fails the step.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

TARGET=aarch64-unknown-linux-gnu
skip() {
    echo "WARNING: $1; the NEON kernels are NOT tested"
    exit 0
}

if ! rustup target list --installed 2>/dev/null | grep -qx "$TARGET"; then
    echo "installing the Rust target $TARGET"
    rustup target add "$TARGET" >/dev/null 2>&1 || skip "rustup target add $TARGET failed"
fi
if ! command -v qemu-aarch64 >/dev/null 2>&1 ||
    ! command -v aarch64-linux-gnu-gcc >/dev/null 2>&1; then
    echo "installing qemu-user and gcc-aarch64-linux-gnu with apt-get"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        qemu-user gcc-aarch64-linux-gnu) >/dev/null 2>&1 ||
        skip "apt-get install qemu-user gcc-aarch64-linux-gnu failed"
fi

export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc

rc=0
cargo clippy -p b2rs --target "$TARGET" --target-dir target/aarch64 --lib --tests -- -D warnings || rc=1
cargo test -p b2rs --target "$TARGET" --target-dir target/aarch64 --lib -- filters:: || rc=1
exit $rc
