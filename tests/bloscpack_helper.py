#!/usr/bin/env python3
"""Helper of tests/bloscpack.rs: drives the Python `bloscpack` package (0.16 with
python-blosc 1.x) to write and read Bloscpack files.

    bloscpack_helper.py check             print the versions (exit 1 if not importable)
    bloscpack_helper.py write PLAN DIR    write the cases of the JSON plan into DIR:
                                          NAME.blp, NAME.raw (expected data), NAME.meta
                                          (compact JSON of the metadata, if any)
    bloscpack_helper.py read PLAN DIR     unpack DIR/NAME.blp for every name of the plan:
                                          NAME.out and NAME.outmeta, or NAME.err
    bloscpack_helper.py append PLAN DIR   append DIR/NAME.add to DIR/NAME.blp in place
                                          (NAME.err on failure)
"""

import collections
import collections.abc
import io
import json
import os
import random
import sys
import traceback

# bloscpack 0.16 uses the aliases removed from `collections` in Python 3.10
for _name in ("Mapping", "MutableMapping", "Sequence", "MutableSequence", "Iterable",
              "Callable", "Set", "MutableSet", "Hashable"):
    if not hasattr(collections, _name):
        setattr(collections, _name, getattr(collections.abc, _name))

import blosc  # noqa: E402
import bloscpack  # noqa: E402
from bloscpack.append import append_fp  # noqa: E402


def make_data(kind, size, seed):
    """Deterministic test data (the same generator as tests/bloscpack.rs does not need to
    exist: the data is written to NAME.raw)."""
    rng = random.Random(seed)
    if kind == "random":
        return rng.randbytes(size)
    if kind == "cycle200":  # the worked example of BLOSCPACK.md 9
        return (bytes(range(200)) * (size // 200 + 1))[:size]
    if kind == "zeros":
        return bytes(size)
    if kind == "ramp":
        n = size // 4 + 1
        b = b"".join((i * 3 + seed).to_bytes(4, "little") for i in range(n))
        return b[:size]
    if kind == "text":
        words = [b"blosc", b"bloscpack", b"chunk", b"shuffle", b"the", b"of", b"a", b"zstd"]
        out = bytearray()
        while len(out) < size:
            out += rng.choice(words) + b" "
        return bytes(out[:size])
    # mixed: runs, ramps and noise
    out = bytearray()
    while len(out) < size:
        k = rng.randrange(4)
        n = rng.randrange(1, 3000)
        if k == 0:
            out += bytes([rng.randrange(256)]) * n
        elif k == 1:
            out += bytes((j * 7) & 0xFF for j in range(n))
        elif k == 2:
            out += rng.randbytes(n // 8 + 1)
        else:
            out += b"".join((j + seed).to_bytes(8, "little") for j in range(n // 8 + 1))
    return bytes(out[:size])


def dumps(obj):
    return json.dumps(obj, separators=(",", ":"))


def blosc_args_of(case):
    return bloscpack.BloscArgs(
        typesize=case.get("typesize", 8),
        clevel=case.get("clevel", 7),
        shuffle=case.get("shuffle", 1),
        cname=case.get("cname", "blosclz"),
    )


def write_case(case, d):
    name = case["name"]
    path = os.path.join(d, name + ".blp")
    data = make_data(case.get("kind", "mixed"), case["size"], case.get("seed", 1))
    bargs = blosc_args_of(case)
    pargs = {"offsets": case.get("offsets", True), "checksum": case.get("checksum", "adler32")}
    if case.get("max_app_chunks") is not None:
        pargs["max_app_chunks"] = case["max_app_chunks"]
    metadata = case.get("metadata")
    margs = None
    if metadata is not None:
        margs = {}
        for k in ("meta_checksum", "meta_codec", "meta_level", "max_meta_size"):
            if case.get(k) is not None:
                margs[k] = case[k]
        margs = bloscpack.MetadataArgs(**margs)
    if case.get("ndarray"):
        import numpy
        arr = numpy.frombuffer(data[: len(data) // 8 * 8], dtype="<f8").reshape(-1, 4)
        if case.get("fortran"):
            arr = numpy.asfortranarray(arr)
        bloscpack.pack_ndarray_to_file(arr, path, chunk_size=case.get("chunk_size", "1M"),
                                       blosc_args=bargs,
                                       bloscpack_args=bloscpack.BloscpackArgs(**pargs))
        data = arr.tobytes(order="A")
        with open(path, "rb") as f:
            metadata = bloscpack.file_io._read_beginning(f)[1]
    else:
        bloscpack.pack_bytes_to_file(data, path, chunk_size=case.get("chunk_size", "1M"),
                                     metadata=metadata, blosc_args=bargs,
                                     bloscpack_args=bloscpack.BloscpackArgs(**pargs),
                                     metadata_args=margs)
    for i, extra_size in enumerate(case.get("appends", [])):
        extra = make_data(case.get("kind", "mixed"), extra_size, case.get("seed", 1) + 100 + i)
        with open(path, "r+b") as f:
            append_fp(f, io.BytesIO(extra), len(extra),
                      blosc_args=dict(typesize=None, clevel=case.get("clevel", 7),
                                      shuffle=case.get("shuffle", 1),
                                      cname=case.get("cname", "blosclz")))
        data += extra
    with open(os.path.join(d, name + ".raw"), "wb") as f:
        f.write(data)
    if metadata is not None:
        with open(os.path.join(d, name + ".meta"), "w") as f:
            f.write(dumps(metadata))


def read_case(case, d):
    name = case["name"]
    path = os.path.join(d, name + ".blp")
    if case.get("ndarray"):
        arr = bloscpack.unpack_ndarray_from_file(path)
        with open(os.path.join(d, name + ".out"), "wb") as f:
            f.write(arr.tobytes(order="A"))
        with open(os.path.join(d, name + ".outmeta"), "w") as f:
            f.write(dumps({"dtype": repr(arr.dtype.str), "shape": list(arr.shape),
                           "order": "F" if arr.flags["F_CONTIGUOUS"] and arr.ndim > 1 else "C",
                           "container": "numpy"}))
        return
    data, metadata = bloscpack.unpack_bytes_from_file(path)
    with open(os.path.join(d, name + ".out"), "wb") as f:
        f.write(data)
    with open(os.path.join(d, name + ".outmeta"), "w") as f:
        f.write(dumps(metadata))


def append_case(case, d):
    name = case["name"]
    with open(os.path.join(d, name + ".add"), "rb") as f:
        extra = f.read()
    args = None
    if "cname" in case:
        args = dict(typesize=None, clevel=case.get("clevel", 7), shuffle=case.get("shuffle", 1),
                    cname=case["cname"])
    with open(os.path.join(d, name + ".blp"), "r+b") as f:
        append_fp(f, io.BytesIO(extra), len(extra), blosc_args=args)


def run_all(fn, plan, d):
    failures = 0
    for case in plan:
        try:
            fn(case, d)
        except Exception:  # reported to the Rust side through NAME.err
            failures += 1
            with open(os.path.join(d, case["name"] + ".err"), "w") as f:
                f.write(traceback.format_exc())
    return failures


def main(argv):
    if argv[1] == "check":
        print("bloscpack %s, python-blosc %s (c-blosc %s)"
              % (bloscpack.__version__, blosc.__version__, blosc.blosclib_version))
        return 0
    with open(argv[2]) as f:
        plan = json.load(f)
    fn = {"write": write_case, "read": read_case, "append": append_case}[argv[1]]
    failures = run_all(fn, plan, argv[3])
    print("%s: %d cases, %d failures" % (argv[1], len(plan), failures))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
