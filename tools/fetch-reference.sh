#!/usr/bin/env bash
# Fetch the reference C-Blosc2 3.3.5 (shipped in the PyPI wheel blosc2==4.14.1)
# and the tools the tests need.  Idempotent: quick when everything is there.
#
#   $B2RS_REF_DIR (default <repo>/target/reference) receives the unpacked wheel:
#     $B2RS_REF_DIR/blosc2/include/{blosc2.h,b2nd.h,blosc2/*.h}
#     $B2RS_REF_DIR/blosc2/lib/libblosc2.so{,.9}
#   python3: `import blosc2` at version 4.14.1; `import bloscpack` 0.16 with python-blosc 1.x
#   cmake on PATH (pip install cmake if missing)
#   moto (pip install moto[server], run as python3 -m moto.server) and boto3: the S3 server of
#   tests/remote.rs
#   pkg-config (apt-get, else PyPI's pkgconf; failure tolerated: the packaging test then skips
#   that part, except on CI where it fails)
#   clang-19 (apt-get; failure tolerated): tools/cc-pick compiles zstd and lz4 with it, the
#   measured faster compiler for both; without it they are compiled by cc like the rest
set -euo pipefail

WHEEL_VERSION=4.14.1
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REF="${B2RS_REF_DIR:-$REPO/target/reference}"
PY="${PYTHON:-python3}"

say() { echo "fetch-reference: $*"; }

# 1. reference wheel, unpacked
stamp="$REF/.blosc2-$WHEEL_VERSION"
if [[ -f "$stamp" && -f "$REF/blosc2/lib/libblosc2.so" && -f "$REF/blosc2/include/blosc2.h" ]]; then
    say "reference already unpacked in $REF"
else
    mkdir -p "$REF"
    dl="$REF/download"
    rm -rf "$dl"
    mkdir -p "$dl"
    say "downloading blosc2==$WHEEL_VERSION wheel"
    "$PY" -m pip download --quiet --no-deps --only-binary=:all: \
        "blosc2==$WHEEL_VERSION" -d "$dl"
    whl="$(ls "$dl"/blosc2-"$WHEEL_VERSION"-*.whl | head -n 1)"
    [[ -f "$whl" ]] || { say "no wheel downloaded"; exit 1; }
    rm -rf "$REF/blosc2"
    "$PY" - "$whl" "$REF" <<'EOF'
import sys, zipfile, os
whl, dest = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(whl) as z:
    for info in z.infolist():
        if info.filename.startswith("blosc2/include/") or info.filename.startswith("blosc2/lib/"):
            path = z.extract(info, dest)
            mode = (info.external_attr >> 16) & 0o777
            if mode:
                os.chmod(path, mode)
EOF
    [[ -e "$REF/blosc2/lib/libblosc2.so.9" ]] || cp "$REF/blosc2/lib/libblosc2.so" "$REF/blosc2/lib/libblosc2.so.9"
    [[ -f "$REF/blosc2/lib/libblosc2.so" && -f "$REF/blosc2/include/blosc2.h" ]] \
        || { say "wheel did not contain blosc2/lib/libblosc2.so and blosc2/include/blosc2.h"; exit 1; }
    rm -rf "$dl"
    touch "$stamp"
    say "unpacked $(basename "$whl") into $REF"
fi

# 2. python blosc2
if "$PY" -c "import blosc2; assert blosc2.__version__ == '$WHEEL_VERSION'" 2>/dev/null; then
    say "python blosc2 $WHEEL_VERSION already installed"
else
    say "pip install blosc2==$WHEEL_VERSION"
    "$PY" -m pip install --quiet "blosc2==$WHEEL_VERSION"
fi

# 3. python bloscpack 0.16 + python-blosc 1.x (tests/bloscpack.rs interop; without them those
#    tests are skipped with a message, except on CI where they fail)
BLOSCPACK_VERSION=0.16.0
PYBLOSC_VERSION=1.11.4
bp_check='import collections, collections.abc
for n in ("Mapping", "MutableMapping", "Sequence", "Iterable", "Callable"):
    hasattr(collections, n) or setattr(collections, n, getattr(collections.abc, n))
import blosc, bloscpack
assert bloscpack.__version__ == "'"$BLOSCPACK_VERSION"'" and blosc.__version__.startswith("1."), (bloscpack.__version__, blosc.__version__)'
if "$PY" -c "$bp_check" 2>/dev/null; then
    say "python bloscpack $BLOSCPACK_VERSION and python-blosc 1.x already installed"
else
    say "pip install bloscpack==$BLOSCPACK_VERSION blosc==$PYBLOSC_VERSION"
    if "$PY" -m pip install --quiet "bloscpack==$BLOSCPACK_VERSION" "blosc==$PYBLOSC_VERSION" \
        && "$PY" -c "$bp_check"; then
        say "python bloscpack installed"
    else
        say "WARNING: could not install python bloscpack/blosc; the interop tests of tests/bloscpack.rs will be skipped (they fail on CI)"
    fi
fi

# 3b. the codec and tuner plugins of C-Blosc2 from PyPI (tests/plugins_runtime.rs; without them
#     those tests are skipped with a message, except on CI where they fail). --no-deps: they
#     ask for blosc2, installed above at the reference's version.
PLUGIN_WHEELS="blosc2-openzl==0.0.1 blosc2-j2k==0.4.0 blosc2-htj2k==0.4.2 blosc2-btune==1.2.1"
plugins_check='import blosc2_openzl, blosc2_j2k, blosc2_htj2k, blosc2_btune'
if "$PY" -c "$plugins_check" 2>/dev/null; then
    say "python plugin wheels already installed"
else
    say "pip install --no-deps $PLUGIN_WHEELS"
    # shellcheck disable=SC2086
    if "$PY" -m pip install --quiet --no-deps $PLUGIN_WHEELS && "$PY" -c "$plugins_check"; then
        say "plugin wheels installed"
    else
        say "WARNING: could not install the plugin wheels; tests/plugins_runtime.rs will be skipped (it fails on CI)"
    fi
fi

# 3c. an S3-compatible server for tests/remote.rs (moto, started by the tests on 127.0.0.1)
#     and boto3, the independent client that uploads its test objects
MOTO_VERSION=5.2.1
moto_check='import boto3, moto.server'
if "$PY" -c "$moto_check" 2>/dev/null; then
    say "moto (server) and boto3 already installed"
else
    say "pip install moto[server]==$MOTO_VERSION"
    if "$PY" -m pip install --quiet "moto[server]==$MOTO_VERSION" && "$PY" -c "$moto_check"; then
        say "moto installed"
    else
        say "WARNING: could not install moto; tests/remote.rs skips its S3 test (it fails on CI)"
    fi
fi

# 4. cmake
if command -v cmake >/dev/null 2>&1 && cmake --version >/dev/null 2>&1; then
    say "cmake present ($(cmake --version | head -n 1))"
else
    say "pip install cmake"
    "$PY" -m pip install --quiet cmake
    hash -r
    command -v cmake >/dev/null 2>&1 || say "WARNING: cmake installed but not on PATH ($("$PY" -m site --user-base 2>/dev/null)/bin?)"
fi

# 5. pkg-config (tolerate failure)
if command -v pkg-config >/dev/null 2>&1; then
    say "pkg-config present"
else
    say "installing pkg-config with apt-get"
    if (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pkg-config) >/dev/null 2>&1; then
        say "pkg-config installed"
    elif "$PY" -m pip install --quiet pkgconf && hash -r && command -v pkg-config >/dev/null 2>&1; then
        # PyPI's pkgconf wheel provides a pkg-config command
        say "pkg-config installed from PyPI (pkgconf)"
    else
        say "WARNING: could not install pkg-config; the pkg-config tests of tests/packaging.rs will be skipped (they fail on CI)"
    fi
fi

# 6. clang-19 for zstd's and lz4's sources (tools/cc-pick; tolerate failure: they then build with cc)
if command -v clang-19 >/dev/null 2>&1; then
    say "clang-19 present"
else
    say "installing clang-19 with apt-get"
    if (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-19) >/dev/null 2>&1; then
        say "clang-19 installed"
    else
        say "WARNING: could not install clang-19; zstd is compiled by cc (slower Zstd compression, same bytes)"
    fi
fi
exit 0
