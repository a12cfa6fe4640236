#!/usr/bin/env bash
# Fuzzing b2rs with cargo-fuzz (the targets are in fuzz/, its own cargo workspace).
#
#   tools/fuzz.sh smoke [SECONDS]        build, then run every target SECONDS (default 8) on the
#                                        committed seeds; fails on a crash (the test command's
#                                        "fuzz-smoke" step)
#   tools/fuzz.sh run TARGET [SECONDS] [LIBFUZZER_ARGS...]
#                                        a long run (default 300 s) on fuzz/corpus/TARGET (kept,
#                                        git-ignored) plus the seeds; crashes go to
#                                        fuzz/artifacts/TARGET
#   tools/fuzz.sh curve LOG...           coverage growth of run logs: cov and ft when 25/50/75 %
#                                        of the executions were done, and at the end (a run has
#                                        plateaued when the last quarter added little)
#   tools/fuzz.sh seeds                  (re)make the seeds: fuzz/seeds.sh
#   tools/fuzz.sh list                   the targets
#
# cargo-fuzz is installed when missing (`cargo install cargo-fuzz --locked`). It needs -Z flags;
# they work on the stable toolchain through RUSTC_BOOTSTRAP=1 (the sanitizer runtimes ship with
# stable's rust-std), so no nightly is needed. FUZZ_SANITIZER (default address) picks the
# sanitizer (`none` is about twice as fast). Every crash input found must become a regression
# file in fuzz/regressions/TARGET/ (tests/fuzz_regressions.rs runs them in the normal suite).
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
export RUSTC_BOOTSTRAP=1
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"
SANITIZER="${FUZZ_SANITIZER:-address}"
TARGETS=(chunk_decompress chunk_roundtrip frame_decode sframe_decode metalayers b2nd_meta
    b2nd_array bloscpack)
# libFuzzer options of every run: one process, no leak detection on (the core is safe Rust;
# unfinished frames in a crash path are not leaks to report), memory capped
LIBFUZZER_OPTS=(-rss_limit_mb=2560 -malloc_limit_mb=2048 -timeout=20 -detect_leaks=0
    -print_final_stats=1)

ensure_cargo_fuzz() {
    if cargo fuzz --version >/dev/null 2>&1; then
        return 0
    fi
    echo "installing cargo-fuzz"
    cargo install cargo-fuzz --locked
}

build() {
    ensure_cargo_fuzz || return 1
    cargo fuzz build --sanitizer "$SANITIZER" 2>&1 | tail -n 3
    return "${PIPESTATUS[0]}"
}

# the final-stats lines of a log: executions, coverage, features, corpus
stats_of() { # log
    local execs cov ft corp
    execs="$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$1" | tail -n 1)"
    cov="$(grep -oE 'cov: [0-9]+' "$1" | tail -n 1 | cut -d' ' -f2)"
    ft="$(grep -oE 'ft: [0-9]+' "$1" | tail -n 1 | cut -d' ' -f2)"
    corp="$(grep -oE 'corp: [0-9]+/[0-9]+[a-zA-Z]*' "$1" | tail -n 1 | cut -d' ' -f2)"
    echo "execs=${execs:-?} cov=${cov:-?} ft=${ft:-?} corpus=${corp:-?}"
}

smoke() { # [seconds]
    local secs="${1:-8}" rc=0 t log tmp
    build || return 1
    tmp="$(mktemp -d)"
    for t in "${TARGETS[@]}"; do
        mkdir -p "$tmp/$t" "$tmp/artifacts-$t"
        log="$tmp/$t.log"
        local seeds=()
        [[ -d "fuzz/seeds/$t" ]] && seeds+=("fuzz/seeds/$t")
        [[ -d "fuzz/regressions/$t" ]] && seeds+=("fuzz/regressions/$t")
        if cargo fuzz run --sanitizer "$SANITIZER" "$t" "$tmp/$t" "${seeds[@]}" -- \
            "${LIBFUZZER_OPTS[@]}" -max_total_time="$secs" \
            -artifact_prefix="$tmp/artifacts-$t/" >"$log" 2>&1; then
            printf '  %-18s ok      %s\n' "$t" "$(stats_of "$log")"
        else
            rc=1
            printf '  %-18s FAILED  %s\n' "$t" "$(stats_of "$log")"
            grep -E 'panicked|ERROR: |SUMMARY|Test unit written' "$log" | head -n 12 | sed 's/^/      /'
            local a
            for a in "$tmp/artifacts-$t"/*; do
                [[ -f "$a" ]] || continue
                mkdir -p "fuzz/artifacts/$t"
                cp "$a" "fuzz/artifacts/$t/"
                echo "      crash input kept in fuzz/artifacts/$t/$(basename "$a")"
            done
        fi
    done
    rm -rf "$tmp"
    return $rc
}

run() { # target [seconds] [libfuzzer args...]
    local t="$1" secs="${2:-300}"
    shift
    [[ $# -gt 0 ]] && shift
    ensure_cargo_fuzz || return 1
    mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t" target/fuzz-logs
    local seeds=()
    [[ -d "fuzz/seeds/$t" ]] && seeds+=("fuzz/seeds/$t")
    [[ -d "fuzz/regressions/$t" ]] && seeds+=("fuzz/regressions/$t")
    local log="target/fuzz-logs/$t-$(date -u +%Y%m%dT%H%M%S).log"
    cargo fuzz run --sanitizer "$SANITIZER" "$t" "fuzz/corpus/$t" "${seeds[@]}" -- \
        "${LIBFUZZER_OPTS[@]}" -max_total_time="$secs" \
        -artifact_prefix="fuzz/artifacts/$t/" "$@" >"$log" 2>&1
    local rc=$?
    echo "$t: exit $rc $(stats_of "$log") (log: $log)"
    return $rc
}

curve() { # log...
    local log
    for log in "$@"; do
        awk -v name="$(basename "$log" .log)" '
            /^#[0-9]+/ && / cov: / {
                n = substr($1, 2) + 0
                for (i = 1; i <= NF; i++) {
                    if ($i == "cov:") c = $(i + 1)
                    if ($i == "ft:") f = $(i + 1)
                }
                k++; E[k] = n; C[k] = c; F[k] = f
            }
            END {
                if (k == 0) { printf "%-40s no coverage lines\n", name; exit }
                total = E[k]
                printf "%-40s execs=%d", name, total
                split("25 50 75", q, " ")
                for (j = 1; j <= 3; j++) {
                    at = total * q[j] / 100; c = C[1]; f = F[1]
                    for (i = 1; i <= k && E[i] <= at; i++) { c = C[i]; f = F[i] }
                    printf "  %s%%: cov=%s ft=%s", q[j], c, f
                }
                printf "  end: cov=%s ft=%s\n", C[k], F[k]
            }' "$log"
    done
}

case "${1:-}" in
curve) shift; curve "$@" ;;
smoke) smoke "${2:-8}" ;;
run) shift; run "$@" ;;
seeds) bash fuzz/seeds.sh ;;
list) printf '%s\n' "${TARGETS[@]}" ;;
*)
    sed -n '2,/^set -uo/p' "$0" | sed '$d'
    exit 2
    ;;
esac
