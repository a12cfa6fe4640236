#!/usr/bin/env bash
# python-blosc2 on b2rs: build python-blosc2 4.14.1 from its PyPI sdist against the b2rs of
# target/release (USE_SYSTEM_BLOSC2=1, pkg-config from a tools/install.sh prefix) and run its
# own pytest suite (pytest.ini's default selection, pytest-xdist), then check the outcome
# against the reference: the same sdist built against C-Blosc2 3.3.5 (the reference wheel's
# libblosc2.so, $B2RS_REF_DIR), where the suite collects the same tests.
#
#   tools/pyblosc2.sh [check]   everything below (the step of tools/test.sh)
#   tools/pyblosc2.sh build     the venv, the sdist and both builds only
#   tools/pyblosc2.sh test [pytest args]   the suite on the b2rs build only (after build)
#
# The check fails when a test collected on the reference build is not collected on b2rs, or
# fails, errors or crashes on b2rs, unless tools/pyblosc2-known-failures.txt lists it; every
# test listed there must fail on the reference build too (they are run there).
#
# Everything lives in target/pyblosc2/ (venv, sdist, builds, logs, junit files). python-blosc2's
# CMake fetches miniexpr, SLEEF and minicc from GitHub: the archives of ../shared/thirdparty are
# used instead (FETCHCONTENT_SOURCE_DIR_*). Needs the reference unpacked
# (tools/fetch-reference.sh) and target/release/libb2rs.so built.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SHARED="$(cd "$REPO/../shared" && pwd)"
REF="${B2RS_REF_DIR:-$REPO/target/reference}"
WORK="$REPO/target/pyblosc2"
VERSION=4.14.1
PY="${PYTHON:-python3}"
VENV="$WORK/venv"
KNOWN="$REPO/tools/pyblosc2-known-failures.txt"
JOBS="${B2RS_PYTEST_JOBS:-logical}"

say() { echo "pyblosc2: $*"; }

setup_venv() {
    local stamp="$VENV/.b2rs-requirements"
    if [[ -f "$stamp" ]] && cmp -s "$stamp" "$REPO/tools/pyblosc2-requirements.txt"; then
        say "venv ready ($VENV)"
        return
    fi
    rm -rf "$VENV"
    "$PY" -m venv "$VENV"
    say "installing the build and test dependencies"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check \
        -r "$REPO/tools/pyblosc2-requirements.txt"
    cp "$REPO/tools/pyblosc2-requirements.txt" "$stamp"
}

fetch_sources() {
    local sdist="$WORK/blosc2-$VERSION"
    if [[ ! -f "$sdist/pyproject.toml" ]]; then
        rm -rf "$sdist" "$WORK/download"
        mkdir -p "$WORK/download"
        say "downloading the blosc2==$VERSION sdist"
        "$VENV/bin/pip" download --quiet --disable-pip-version-check --no-deps \
            --no-binary blosc2 "blosc2==$VERSION" -d "$WORK/download"
        tar xzf "$WORK/download/blosc2-$VERSION.tar.gz" -C "$WORK"
    fi
    if [[ ! -d "$WORK/thirdparty/sleef" ]]; then
        rm -rf "$WORK/thirdparty"
        mkdir -p "$WORK/thirdparty"
        for f in "$SHARED"/thirdparty/*.tar.gz; do
            tar xzf "$f" -C "$WORK/thirdparty"
        done
    fi
}

# build_wheel NAME PKG_CONFIG_DIR: python-blosc2 linked to the blosc2.pc found there, installed
# with the suite into $WORK/run-NAME (src/ holds the package, where pytest.ini's testpaths
# name the modules whose doctests run)
build_wheel() {
    local name="$1" pcdir="$2" tp="$WORK/thirdparty"
    local out="$WORK/wheel-$name" run="$WORK/run-$name"
    rm -rf "$out" "$run"
    say "building python-blosc2 $VERSION on $name"
    (
        cd "$WORK/blosc2-$VERSION"
        PATH="$VENV/bin:$PATH" USE_SYSTEM_BLOSC2=1 PKG_CONFIG_PATH="$pcdir" \
            "$VENV/bin/pip" wheel --quiet --disable-pip-version-check --no-build-isolation \
            --no-deps -w "$out" . \
            -C cmake.define.FETCHCONTENT_FULLY_DISCONNECTED=ON \
            -C cmake.define.FETCHCONTENT_SOURCE_DIR_MINIEXPR="$tp/miniexpr" \
            -C cmake.define.FETCHCONTENT_SOURCE_DIR_SLEEF="$tp/sleef" \
            -C cmake.define.FETCHCONTENT_SOURCE_DIR_TINYCC="$tp/minicc" \
            -C cmake.define.CMAKE_INSTALL_RPATH_USE_LINK_PATH=ON \
            -C build-dir="$WORK/build-$name"
    )
    mkdir -p "$run"
    cp -r "$WORK/blosc2-$VERSION"/{pytest.ini,conftest.py,tests} "$run/"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps \
        --target "$run/src" "$out"/blosc2-*.whl
}

# blosc2_ext must load libb2rs and hold no copy of C-Blosc2
check_linkage() {
    local ext
    ext="$(ls "$WORK"/run-b2rs/src/blosc2/blosc2_ext*.so)"
    local libs
    libs="$(ldd "$ext")"
    echo "$libs" | grep -E 'libb2rs|blosc2' | sed 's/^/    /'
    if ! echo "$libs" | grep -q 'libb2rs\.so\.0 => .*prefix/lib/libb2rs\.so\.0'; then
        say "FAILED: blosc2_ext does not load libb2rs.so.0 from the install prefix"
        return 1
    fi
    if echo "$libs" | grep -q 'libblosc2'; then
        say "FAILED: blosc2_ext loads a libblosc2"
        return 1
    fi
    if nm -D --defined-only "$ext" | grep -qE ' T (blosc2_|blosc1_|b2nd_)'; then
        say "FAILED: blosc2_ext defines C-Blosc2 functions (a bundled copy)"
        return 1
    fi
    say "blosc2_ext loads libb2rs.so.0 and holds no copy of C-Blosc2"
}

# run_suite NAME JUNIT [pytest args]: the suite on a build, from its run directory
run_suite() {
    local name="$1" junit="$2"
    shift 2
    (
        cd "$WORK/run-$name"
        # a crashed worker can leave a file a later run would trip on
        find . -maxdepth 1 -mindepth 1 ! -name src ! -name tests ! -name pytest.ini \
            ! -name conftest.py -exec rm -rf {} +
        PATH="$VENV/bin:$PATH" PYTHONPATH="$PWD/src" timeout 2400 \
            "$VENV/bin/python" -m pytest -p no:cacheprovider -q -n "$JOBS" \
            --junitxml="$junit" "$@"
    )
}

build_all() {
    mkdir -p "$WORK"
    setup_venv
    fetch_sources
    bash "$REPO/tools/install.sh" --prefix "$WORK/prefix" >/dev/null
    build_wheel b2rs "$WORK/prefix/lib/pkgconfig"
    build_wheel ref "$REF/blosc2/lib/pkgconfig"
}

check() {
    build_all
    check_linkage
    say "collecting the suite on the reference build"
    (
        cd "$WORK/run-ref"
        PATH="$VENV/bin:$PATH" PYTHONPATH="$PWD/src" "$VENV/bin/python" -m pytest \
            -p no:cacheprovider -q --co -n 0 >"$WORK/collected-ref.txt" 2>&1
    ) || { say "FAILED: collecting on the reference build"; tail -20 "$WORK/collected-ref.txt"; return 1; }
    say "running the suite on b2rs"
    local rc=0
    run_suite b2rs "$WORK/junit-b2rs.xml" >"$WORK/log-b2rs.txt" 2>&1 || rc=$?
    tail -n 3 "$WORK/log-b2rs.txt"
    say "running the known failures on the reference build"
    grep -v '^#' "$KNOWN" | cut -f1 | grep . >"$WORK/known-ids.txt" || true
    rm -f "$WORK/junit-ref-known.xml"
    if [[ -s "$WORK/known-ids.txt" ]]; then
        run_suite ref "$WORK/junit-ref-known.xml" "@$WORK/known-ids.txt" \
            >"$WORK/log-ref-known.txt" 2>&1 || true
    fi
    "$VENV/bin/python" "$REPO/tools/pyblosc2_compare.py" --collected "$WORK/collected-ref.txt" \
        --ours "$WORK/junit-b2rs.xml" --known "$KNOWN" --ref-known "$WORK/junit-ref-known.xml" \
        --pytest-rc "$rc"
}

cmd="${1:-check}"
[[ $# -gt 0 ]] && shift
case "$cmd" in
    check) check ;;
    build) build_all ;;
    test) run_suite b2rs "$WORK/junit-b2rs.xml" "$@" ;;
    *) echo "usage: tools/pyblosc2.sh [check|build|test [pytest args]]" >&2; exit 2 ;;
esac
