#!/usr/bin/env python3
"""Use b2rs from Python through ctypes (no compiler, no binding package).

    python3 ctypes_roundtrip.py [LIBRARY] [FRAME_PATH]

LIBRARY is libb2rs.so (default: $B2RS_LIB, else <prefix>/lib/libb2rs.so found
next to this checkout's target/release); FRAME_PATH (default roundtrip.b2frame)
receives a super-chunk written as a contiguous frame file, with a metalayer and
a vlmetalayer, that Python `blosc2` (or any C-Blosc2 program) can open:

    python3 -c "import blosc2; s = blosc2.open('roundtrip.b2frame'); print(s.nchunks)"

Prints "OK <compressed size> <frame length>" on success.  The C structs used
(blosc2_cparams, blosc2_dparams, blosc2_storage) are C-Blosc2 3.3's, filled
from the library's own defaults, so only the fields set below are named.
"""
import ctypes
import os
import struct
import sys

CHUNK_ITEMS = 100_000
NCHUNKS = 4
BLOSC2_MAX_OVERHEAD = 32
BLOSC_SHUFFLE = 1
BLOSC_ZSTD = 5


class CParams(ctypes.Structure):
    """blosc2_cparams (136 bytes); the fields this example sets, the rest kept opaque."""

    _fields_ = [
        ("compcode", ctypes.c_uint8),
        ("compcode_meta", ctypes.c_uint8),
        ("clevel", ctypes.c_uint8),
        ("use_dict", ctypes.c_int),
        ("typesize", ctypes.c_int32),
        ("nthreads", ctypes.c_int16),
        ("blocksize", ctypes.c_int32),
        ("splitmode", ctypes.c_int32),
        ("schunk", ctypes.c_void_p),
        ("filters", ctypes.c_uint8 * 6),
        ("filters_meta", ctypes.c_uint8 * 6),
        ("_rest", ctypes.c_uint8 * (136 - 44)),
    ]


class DParams(ctypes.Structure):
    """blosc2_dparams (40 bytes)."""

    _fields_ = [
        ("nthreads", ctypes.c_int16),
        ("schunk", ctypes.c_void_p),
        ("postfilter", ctypes.c_void_p),
        ("postparams", ctypes.c_void_p),
        ("typesize", ctypes.c_int32),
    ]


class Storage(ctypes.Structure):
    """blosc2_storage (40 bytes)."""

    _fields_ = [
        ("contiguous", ctypes.c_bool),
        ("urlpath", ctypes.c_char_p),
        ("cparams", ctypes.POINTER(CParams)),
        ("dparams", ctypes.POINTER(DParams)),
        ("io", ctypes.c_void_p),
    ]


def load(path):
    lib = ctypes.CDLL(path)
    lib.blosc2_get_version_string.restype = ctypes.c_char_p
    lib.blosc2_compress.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int32, ctypes.c_void_p,
                                    ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32]
    lib.blosc2_decompress.argtypes = [ctypes.c_void_p, ctypes.c_int32, ctypes.c_void_p,
                                      ctypes.c_int32]
    lib.blosc2_get_blosc2_cparams_defaults.restype = CParams
    lib.blosc2_get_blosc2_dparams_defaults.restype = DParams
    lib.blosc2_schunk_new.argtypes = [ctypes.POINTER(Storage)]
    lib.blosc2_schunk_new.restype = ctypes.c_void_p
    lib.blosc2_schunk_append_buffer.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int32]
    lib.blosc2_schunk_append_buffer.restype = ctypes.c_int64
    lib.blosc2_schunk_decompress_chunk.argtypes = [ctypes.c_void_p, ctypes.c_int64,
                                                   ctypes.c_void_p, ctypes.c_int32]
    lib.blosc2_meta_add.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p,
                                    ctypes.c_int32]
    lib.blosc2_vlmeta_add.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p,
                                      ctypes.c_int32, ctypes.POINTER(CParams)]
    lib.blosc2_schunk_free.argtypes = [ctypes.c_void_p]
    lib.blosc2_error_string.restype = ctypes.c_char_p
    return lib


def check(cond, what):
    if not cond:
        sys.exit(f"FAILED: {what}")


def default_library():
    if os.environ.get("B2RS_LIB"):
        return os.environ["B2RS_LIB"]
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, "..", "..", "target", "release", "libb2rs.so")


def chunk_data(n):
    """Deterministic int64 items of chunk n (the reader recomputes them)."""
    return struct.pack(f"<{CHUNK_ITEMS}q", *((n * 1_000_000 + (i % 997) * 3 + i // 4096)
                                             for i in range(CHUNK_ITEMS)))


def main():
    libpath = sys.argv[1] if len(sys.argv) > 1 else default_library()
    frame_path = sys.argv[2] if len(sys.argv) > 2 else "roundtrip.b2frame"
    lib = load(libpath)
    lib.blosc2_init()
    print("library", libpath, "C-Blosc2 API", lib.blosc2_get_version_string().decode())

    # 1. one chunk: compress, decompress
    src = chunk_data(0)
    comp = ctypes.create_string_buffer(len(src) + BLOSC2_MAX_OVERHEAD)
    csize = lib.blosc2_compress(5, BLOSC_SHUFFLE, 8, src, len(src), comp, len(comp))
    check(csize > 0, f"blosc2_compress returned {csize}")
    back = ctypes.create_string_buffer(len(src))
    dsize = lib.blosc2_decompress(comp, csize, back, len(back))
    check(dsize == len(src) and back.raw == src, f"blosc2_decompress returned {dsize}")

    # 2. a super-chunk stored as a contiguous frame file
    if os.path.exists(frame_path):
        os.remove(frame_path)
    cparams = lib.blosc2_get_blosc2_cparams_defaults()
    cparams.typesize = 8
    cparams.compcode = BLOSC_ZSTD
    cparams.clevel = 5
    cparams.nthreads = 1
    dparams = lib.blosc2_get_blosc2_dparams_defaults()
    storage = Storage(contiguous=True, urlpath=frame_path.encode(),
                      cparams=ctypes.pointer(cparams), dparams=ctypes.pointer(dparams))
    schunk = lib.blosc2_schunk_new(ctypes.byref(storage))
    check(schunk, "blosc2_schunk_new returned NULL")
    check(lib.blosc2_meta_add(schunk, b"origin", b"\xa6ctypes", 7) >= 0, "blosc2_meta_add")
    for n in range(NCHUNKS):
        data = chunk_data(n)
        r = lib.blosc2_schunk_append_buffer(schunk, data, len(data))
        check(r == n + 1, f"blosc2_schunk_append_buffer returned {r}")
    # vlmetalayers hold msgpack; Python blosc2 decodes them (0xa5 = str of 5 bytes)
    note = b"\xa5b2rs!"
    check(lib.blosc2_vlmeta_add(schunk, b"note", note, len(note), None) >= 0, "blosc2_vlmeta_add")
    out = ctypes.create_string_buffer(CHUNK_ITEMS * 8)
    r = lib.blosc2_schunk_decompress_chunk(schunk, NCHUNKS - 1, out, len(out))
    check(r == len(out) and out.raw == chunk_data(NCHUNKS - 1),
          f"blosc2_schunk_decompress_chunk returned {r}")
    check(lib.blosc2_schunk_free(schunk) == 0, "blosc2_schunk_free")
    lib.blosc2_destroy()
    print(f"OK {csize} {os.path.getsize(frame_path)}")


if __name__ == "__main__":
    main()
