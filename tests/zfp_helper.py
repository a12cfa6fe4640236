"""Helper of tests/zfp.rs: python-blosc2 (the reference) side of the ZFP interop tests.

  zfp_helper.py blocks DIR   write DIR/cases.txt and, per case, the raw chunks (LZ4 copy of the
                             same array), the reference's ZFP chunks and its decoded chunks, so
                             the Rust side can compare block streams and decoded values.
  zfp_helper.py write DIR    write DIR/<case>.b2nd arrays with ZFP, plus DIR/<case>.npy (the
                             original values) and DIR/<case>.dec.npy (the reference's decoding).
  zfp_helper.py read DIR     read every DIR/<case>.b2nd written by b2rs; print one line per case:
                             `<case> <max abs error vs DIR/<case>.npy> <bit-identical to <case>.b2rs.npy>`.
"""
import os
import sys

import numpy as np
import blosc2

GEOMS = [
    ((1001,), (300,), (37,)),
    ((50, 37), (20, 16), (9, 7)),
    ((20, 15, 11), (10, 8, 6), (5, 4, 6)),
    ((9, 8, 7, 6), (5, 5, 5, 5), (4, 5, 4, 5)),
]
MODES = [
    ("acc", blosc2.Codec.ZFP_ACC, [-3, -6, 0]),
    ("prec", blosc2.Codec.ZFP_PREC, [0, 10, 30]),
    ("rate", blosc2.Codec.ZFP_RATE, [10, 30, 70]),
]


def data(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    i = np.arange(n, dtype=np.float64)
    v = np.sin(i * 0.013) * 50 + np.cos(i * 0.0007) * 3 + rng.normal(0, 0.5, n)
    # some variety: a run of zeros, tiny and large magnitudes, negative values
    v[n // 5: n // 5 + 70] = 0
    v[n // 3: n // 3 + 40] *= 1e-25
    v[n // 2: n // 2 + 40] *= 1e20
    return v.reshape(shape).astype(dtype)


def cases():
    for nd, (shape, chunks, blocks) in enumerate(GEOMS, start=1):
        for dt in ("f4", "f8"):
            for mname, codec, metas in MODES:
                for meta in metas:
                    name = f"{mname}{meta}_{nd}d_{dt}".replace("-", "m")
                    yield name, shape, chunks, blocks, dt, codec, meta


def cparams(codec, meta):
    return {"codec": codec, "codec_meta": meta & 0xFF, "filters": [],
            "splitmode": blosc2.SplitMode.NEVER_SPLIT, "nthreads": 1}


def main():
    cmd, d = sys.argv[1], sys.argv[2]
    if cmd == "blocks":
        with open(os.path.join(d, "cases.txt"), "w") as f:
            for k, (name, shape, chunks, blocks, dt, codec, meta) in enumerate(cases()):
                a = data(shape, dt, k)
                z = blosc2.asarray(a, chunks=chunks, blocks=blocks, cparams=cparams(codec, meta))
                raw = blosc2.asarray(a, chunks=chunks, blocks=blocks,
                                     cparams={"codec": blosc2.Codec.LZ4, "filters": [], "nthreads": 1})
                nchunks = z.schunk.nchunks
                with open(os.path.join(d, name + ".raw"), "wb") as r, \
                        open(os.path.join(d, name + ".ref"), "wb") as c, \
                        open(os.path.join(d, name + ".dec"), "wb") as x:
                    lens = []
                    for i in range(nchunks):
                        r.write(raw.schunk.decompress_chunk(i))
                        ch = z.schunk.get_chunk(i)
                        lens.append(str(len(ch)))
                        c.write(ch)
                        x.write(z.schunk.decompress_chunk(i))
                f.write(f"{name} {codec.value} {meta & 0xFF} {int(dt[1])} "
                        f"{','.join(map(str, blocks))} {','.join(lens)}\n")
    elif cmd == "write":
        for k, (name, shape, chunks, blocks, dt, codec, meta) in enumerate(cases()):
            a = data(shape, dt, k)
            np.save(os.path.join(d, name + ".npy"), a)
            z = blosc2.asarray(a, chunks=chunks, blocks=blocks, cparams=cparams(codec, meta),
                               urlpath=os.path.join(d, name + ".b2nd"), mode="w")
            np.save(os.path.join(d, name + ".dec.npy"), z[...])
    elif cmd == "read":
        for k, (name, shape, chunks, blocks, dt, codec, meta) in enumerate(cases()):
            p = os.path.join(d, name + ".b2rs.b2nd")
            if not os.path.exists(p):
                continue
            z = blosc2.open(p)
            got = z[...]
            a = np.load(os.path.join(d, name + ".npy"))
            assert got.shape == a.shape and got.dtype == a.dtype, (name, got.shape, got.dtype)
            err = float(np.max(np.abs(got.astype(np.float64) - a.astype(np.float64))))
            ours = np.load(os.path.join(d, name + ".b2rs.npy"))
            same = bool(np.array_equal(got.view(np.uint8), ours.view(np.uint8)))
            print(name, repr(err), int(same))
    else:
        raise SystemExit("unknown command " + cmd)


if __name__ == "__main__":
    main()
