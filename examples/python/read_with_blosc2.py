#!/usr/bin/env python3
"""Read the frame written by ctypes_roundtrip.py with Python `blosc2` (C-Blosc2 inside).

    python3 read_with_blosc2.py roundtrip.b2frame
"""
import sys

import blosc2

from ctypes_roundtrip import CHUNK_ITEMS, NCHUNKS, chunk_data

path = sys.argv[1] if len(sys.argv) > 1 else "roundtrip.b2frame"
s = blosc2.open(path)
assert s.nchunks == NCHUNKS, s.nchunks
assert s.typesize == 8 and s.chunksize == CHUNK_ITEMS * 8, (s.typesize, s.chunksize)
for n in range(NCHUNKS):
    assert s.decompress_chunk(n) == chunk_data(n), f"chunk {n} differs"
assert s.meta["origin"] == "ctypes", s.meta["origin"]
assert s.vlmeta["note"] == "b2rs!", s.vlmeta["note"]
print(f"OK blosc2 {blosc2.__version__} read {s.nchunks} chunks, cratio {s.cratio:.1f}")
