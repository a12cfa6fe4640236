#!/usr/bin/env bash
# The test command of b2rs (what CI runs through .ci/run).
#
#   1. tools/fetch-reference.sh   reference C-Blosc2 3.3.5, python blosc2, cmake, pkg-config
#   2. cargo build --release        the library and the tool (workspace members . and cli/)
#   3. cargo test --release --doc, then cargo nextest run --release --workspace
#      (cargo test --release when nextest is not installed)
#   3a. tools/pyblosc2.sh           python-blosc2 4.14.1 built from its sdist on b2rs, its own
#                                   pytest suite checked against the reference build
#   3b. tools/fuzz.sh smoke         each fuzz target a few seconds (installs cargo-fuzz)
#   3c. the C tests again under ASan+UBSan and valgrind (B2RS_SANITIZE, see tests/c_api.rs)
#   3d. tools/loom.sh               the thread pool's synchronization model-checked with loom
#   3e. cargo nextest run           the tests again in the dev profile (overflow checks on)
#   3f. tools/neon.sh               the aarch64 NEON kernels, cross-built, tested under qemu
#   4. git diff --exit-code -- include/   (generated headers committed and up to date)
#   5. cargo clippy --workspace --all-targets -- -D warnings, the same on the core alone
#      (--no-default-features), tools/modcycles.py --check (no import cycles in src/),
#      RUSTDOCFLAGS="-D warnings" cargo doc --no-deps, tools/doc_coverage.sh --check (every
#      public item outside src/capi has an example)
#   6. cargo fmt --all --check
#
# Every step after the build runs even if an earlier one failed; the exit
# status is non-zero if any step failed.  The tests get B2RS_REF_DIR and
# B2RS_REF_INCLUDE.  The last line is the test count ("N passed, N failed").
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
REPO="$PWD"
export B2RS_REF_DIR="${B2RS_REF_DIR:-$REPO/target/reference}"
export B2RS_REF_INCLUDE="$B2RS_REF_DIR/blosc2/include"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
# pip may install console scripts (cmake) into the user base
PATH="$PATH:$(python3 -m site --user-base 2>/dev/null || echo "$HOME/.local")/bin"
export PATH

LOG_DIR="$REPO/target/test-logs"
mkdir -p "$LOG_DIR"

declare -a STEP_NAMES=() STEP_TIMES=() STEP_RESULTS=()
failed=0

step() { # name command...
    local name="$1"
    shift
    echo
    echo "=== $name: $*"
    local t0=$SECONDS
    "$@"
    local rc=$?
    local dt=$((SECONDS - t0))
    STEP_NAMES+=("$name")
    STEP_TIMES+=("$dt")
    if [[ $rc -eq 0 ]]; then
        STEP_RESULTS+=("ok")
    else
        STEP_RESULTS+=("FAILED (exit $rc)")
        failed=1
    fi
    echo "=== $name: $([[ $rc -eq 0 ]] && echo ok || echo "FAILED (exit $rc)") in ${dt}s"
    return $rc
}

summary() {
    echo
    echo "=== step times"
    local i total=0
    for i in "${!STEP_NAMES[@]}"; do
        printf '  %-12s %5ss  %s\n' "${STEP_NAMES[$i]}" "${STEP_TIMES[$i]}" "${STEP_RESULTS[$i]}"
        total=$((total + STEP_TIMES[$i]))
    done
    printf '  %-12s %5ss\n' total "$total"
}

# --- 1. reference and tools
if ! step fetch bash tools/fetch-reference.sh; then
    summary
    echo "tools/test.sh: cannot fetch the reference" >&2
    exit 1
fi
hash -r

# --- 2. build
# The library the tests load (target/release/libb2rs.so) must be the one every later cargo
# command of this run finds fresh: the CMake consumer test runs `cargo build -p b2rs --lib` on
# the same target dir, and a different feature resolution there relinked the library while other
# tests were loading it (CI stop 47). Build the tests here, then check that command is a no-op.
build_all() {
    cargo build --release || return 1
    cargo test --release --workspace --no-run || return 1
    local out
    out=$(cargo build --release -p b2rs --lib 2>&1) || { echo "$out"; return 1; }
    if grep -q "Compiling b2rs" <<<"$out"; then
        echo "$out"
        echo "build: 'cargo build --release -p b2rs --lib' rebuilt the library after the workspace" \
             "build (features resolve differently, see the syn build-dependency in Cargo.toml;" \
             "or a source file changed while this script ran)" >&2
        return 1
    fi
}
if ! step build build_all; then
    summary
    echo "tools/test.sh: the release build failed" >&2
    exit 1
fi

# --- 3. tests
run_tests() {
    local log="$LOG_DIR/tests.log"
    : > "$log"
    rm -f target/release/interop-*.txt target/release/bloscpack-*.txt
    local rc=0
    # doctests first (nextest does not run them), so the runner's summary comes last
    cargo test --release --doc -p b2rs 2>&1 | tee -a "$log" || rc=1
    if cargo nextest --version >/dev/null 2>&1; then
        cargo nextest run --release --workspace --no-fail-fast 2>&1 | tee -a "$log"
        [[ ${PIPESTATUS[0]} -eq 0 ]] || rc=1
    else
        cargo test --release --workspace --no-fail-fast 2>&1 | tee -a "$log"
        [[ ${PIPESTATUS[0]} -eq 0 ]] || rc=1
    fi
    return $rc
}
step tests run_tests

# the interop ratio tables written by tests/interop.rs
for f in target/release/interop-summary.txt target/release/interop-vlblocks.txt \
    target/release/bloscpack-py2rs.txt target/release/bloscpack-rs2py.txt \
    target/release/bloscpack-appends.txt; do
    if [[ -f "$f" ]]; then
        echo
        echo "=== $f"
        cat "$f"
    fi
done

# --- 3a. python-blosc2 on b2rs: built from its PyPI sdist with USE_SYSTEM_BLOSC2=1 against the
# library just built (and against the reference), its own test suite run on both builds: every
# test the reference build collects must pass on b2rs but for the listed failures of both
step python bash tools/pyblosc2.sh check

# --- 3b. fuzz smoke: every fuzz target builds and runs a few seconds on its seeds without a
# crash (cargo-fuzz is installed when missing; B2RS_FUZZ_SMOKE_SECS sets the seconds per target)
step fuzz-smoke bash tools/fuzz.sh smoke "${B2RS_FUZZ_SMOKE_SECS:-8}"

# --- 3c. the C tests again under AddressSanitizer + UBSan and under valgrind memcheck
# (tests/c_api.rs, B2RS_SANITIZE).  For ASan the Rust library is built instrumented too
# (-Zsanitizer=address through RUSTC_BOOTSTRAP=1 on the stable toolchain; its runtime is the C
# compiler's libasan) in target/asan; without that build the C side alone is checked.
run_sanitized() {
    local rc=0 libdir=""
    local triple
    triple="$(rustc -vV | sed -n 's/^host: //p')"
    if RUSTC_BOOTSTRAP=1 RUSTFLAGS="-Zsanitizer=address" \
        cargo build -p b2rs --release --lib --target "$triple" --target-dir target/asan; then
        libdir="$REPO/target/asan/$triple/release"
    else
        echo "WARNING: no -Zsanitizer=address build of the library; ASan checks the C side only"
    fi
    # the programs linked to b2rs (the same programs' runs linked to the reference check
    # C-Blosc2's memory safety, not ours: they run in the tests step, unsanitized)
    local filter='binary(c_api) & test(/^ours::/)'
    B2RS_SANITIZE=asan B2RS_SANITIZE_LIBDIR="$libdir" \
        cargo nextest run --release --no-fail-fast -E "$filter" || rc=1
    if command -v valgrind >/dev/null 2>&1; then
        B2RS_SANITIZE=valgrind cargo nextest run --release --no-fail-fast -E "$filter" || rc=1
    else
        echo "WARNING: valgrind is not installed; the valgrind run is skipped"
    fi
    return $rc
}
if cargo nextest --version >/dev/null 2>&1; then
    step sanitize run_sanitized
fi

# --- 3d. the thread pool's hand-off and latch (src/chunk/pool_sync.rs) model-checked with loom
# (tests/loom_pool.rs, built with --cfg loom in target/loom): data races, deadlocks, lost wake-ups
step loom bash tools/loom.sh

# --- 3e. the tests again in the dev profile: its overflow checks turn an integer overflow that a
# release build wraps silently (sometimes into the right error by luck) into a failing test
# (the C programs linked to the reference use no code of this profile: not run again)
if cargo nextest --version >/dev/null 2>&1; then
    step overflow cargo nextest run --workspace --no-fail-fast -E 'not test(/^reference::/)'
fi

# --- 3f. the aarch64 NEON kernels, cross-built and run under qemu (installs the Rust target,
# qemu-user and the aarch64 GNU toolchain when missing)
step neon bash tools/neon.sh

# --- 4. generated headers committed
check_headers() {
    if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        echo "WARNING: not a git checkout; skipping the check that include/ is committed"
        return 0
    fi
    local rc=0
    git diff --exit-code --stat -- include/ || rc=1
    local untracked
    untracked="$(git ls-files --others --exclude-standard -- include/)"
    if [[ -n "$untracked" ]]; then
        echo "untracked generated headers (commit them):"
        echo "$untracked"
        rc=1
    fi
    [[ $rc -eq 0 ]] && echo "include/ is committed and up to date"
    return $rc
}
step headers check_headers

# --- 5. clippy
step clippy cargo clippy --workspace --all-targets -- -D warnings

# --- 5a. the safe core alone (`default-features = false`: no C API) builds without warnings
step core-alone cargo clippy -p b2rs --lib --no-default-features -- -D warnings

# --- 5a'. no import cycles between the files of src/ (a lower module never uses a higher one)
step cycles python3 tools/modcycles.py --check

# --- 5b. API documentation builds without warnings (broken or private intra-doc links)
step doc env RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --quiet

# --- 5c. every public item of the Rust API (outside src/capi) has a runnable example
step doc-coverage bash tools/doc_coverage.sh --check

# --- 6. formatting
step fmt cargo fmt --all --check

summary

# --- closing line: the test count
log="$LOG_DIR/tests.log"
passed=0
nfailed=0
skipped=0
if grep -qE '^ *Summary \[' "$log" 2>/dev/null; then
    line="$(grep -E '^ *Summary \[' "$log" | tail -n 1)"
    echo "$line"
    passed="$(sed -nE 's/.* ([0-9]+) passed.*/\1/p' <<<"$line")"
    nfailed="$(sed -nE 's/.* ([0-9]+) failed.*/\1/p' <<<"$line")"
    skipped="$(sed -nE 's/.* ([0-9]+) skipped.*/\1/p' <<<"$line")"
    # doctests
    while read -r p f; do
        passed=$((passed + p))
        nfailed=$((nfailed + f))
    done < <(sed -nE 's/^test result: [A-Za-z]+\. ([0-9]+) passed; ([0-9]+) failed.*/\1 \2/p' "$log")
elif [[ -f "$log" ]]; then
    while read -r p f i; do
        passed=$((passed + p))
        nfailed=$((nfailed + f))
        skipped=$((skipped + i))
    done < <(sed -nE 's/^test result: [A-Za-z]+\. ([0-9]+) passed; ([0-9]+) failed; ([0-9]+) ignored.*/\1 \2 \3/p' "$log")
fi
passed="${passed:-0}"
nfailed="${nfailed:-0}"
skipped="${skipped:-0}"
if [[ $failed -ne 0 ]]; then
    echo "tools/test.sh: FAILED (see the step times above)"
fi
echo "tests: ${passed} passed, ${nfailed} failed, ${skipped} skipped"
exit $failed
