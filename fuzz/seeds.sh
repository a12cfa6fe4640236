#!/usr/bin/env bash
# (Re)make the seed corpora of the fuzz targets:
#   fuzz/seeds/TARGET/    committed, small: made by fuzz/seedgen (b2rs itself: chunks of every
#                         codec and filter pipeline, special and VL-block chunks, contiguous and
#                         sparse frames with metalayers, headers and trailers, b2nd metalayers
#                         and arrays, Bloscpack files)
#   fuzz/corpus/TARGET/   git-ignored, for long runs: also the files of ../shared/testdata (at
#                         most 64 KiB each: chunks from C-Blosc 1.x/2.x, reference frames and
#                         b2nd arrays) and, when `import blosc2` works, files the reference
#                         Python blosc2 writes
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
SHARED="${B2RS_SHARED:-../../shared}"
[[ -d "$SHARED/testdata" ]] || SHARED="../../shared"

rm -rf seeds
cargo run --quiet --release --manifest-path seedgen/Cargo.toml -- "$PWD/seeds"

put() { # target file...
    local t="$1"
    shift
    mkdir -p "corpus/$t"
    local f
    for f in "$@"; do
        [[ -f "$f" && $(stat -c %s "$f") -le 65536 ]] && cp "$f" "corpus/$t/"
    done
    return 0
}
for t in seeds/*/; do
    t="$(basename "$t")"
    mkdir -p "corpus/$t"
    cp seeds/"$t"/* "corpus/$t/"
done
if [[ -d "$SHARED/testdata" ]]; then
    put chunk_decompress "$SHARED"/testdata/compat/*.cdata
    put frame_decode "$SHARED"/testdata/corpus/*.b2frame "$SHARED"/testdata/compat/*.b2frame
    put b2nd_array "$SHARED"/testdata/b2nd/*.b2nd
fi
if python3 -c 'import blosc2' 2>/dev/null; then
    python3 - <<'PY' || echo "seeds.sh: the Python reference seeds failed (skipped)"
import os
import numpy as np
import blosc2

out = "corpus"
def put(t, name, b):
    os.makedirs(os.path.join(out, t), exist_ok=True)
    with open(os.path.join(out, t, name), "wb") as f:
        f.write(b)

a = np.arange(2000, dtype=np.int32)
for codec in [blosc2.Codec.BLOSCLZ, blosc2.Codec.LZ4, blosc2.Codec.ZSTD, blosc2.Codec.ZLIB]:
    for filt in [blosc2.Filter.SHUFFLE, blosc2.Filter.BITSHUFFLE, blosc2.Filter.BYTEDELTA]:
        c = blosc2.compress2(a, codec=codec, filters=[filt], typesize=4, clevel=5,
                             blocksize=2048)
        put("chunk_decompress", f"py-{codec.name}-{filt.name}.cdata", c)
sc = blosc2.SChunk(chunksize=2000, data=np.arange(1500, dtype=np.int32),
                   cparams={"typesize": 4})
sc.vlmeta["info"] = {"a": 1}
put("frame_decode", "py-schunk.b2frame", sc.to_cframe())
arr = blosc2.asarray(np.arange(60, dtype=np.float64).reshape(3, 4, 5), chunks=(2, 3, 4),
                     blocks=(1, 2, 2))
put("b2nd_array", "py-array.b2nd", arr.to_cframe())
PY
fi
du -sh seeds corpus | sed 's/^/seeds.sh: /'
