"""Helper of tests/zfp.rs: python-blosc2 (the reference) side of the ZFP interop tests.

  zfp_helper.py blocks DIR   write DIR/cases.txt and, per case, the raw chunks (LZ4 copy of the
                             same array), the reference's ZFP chunks and its decoded chunks, so
                             the Rust side can compare block streams and decoded values (the
                             cases of `write` plus some with NaN, infinities and subnormals).
  zfp_helper.py write DIR    write DIR/<case>.b2nd arrays with ZFP, DIR/<case>.orig (the original
                             values, raw bytes) and DIR/<case>.refdec (the reference's decoding);
                             print `<case> <codec> <meta> <dtype> <shape> <chunks> <blocks>` lines.
  zfp_helper.py read DIR     read every DIR/<case>.b2rs.b2nd written by b2rs; print one line per
                             case: `<case> <max abs error vs .orig> <1 if the values are exactly
                             DIR/<case>.b2rs.bin (b2rs' decoding)> <1 if exactly .refdec>`.
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


def data(shape, dtype, seed, special=False):
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    i = np.arange(n, dtype=np.float64)
    v = np.sin(i * 0.013) * 50 + np.cos(i * 0.0007) * 3 + rng.normal(0, 0.5, n)
    # some variety: a run of zeros, tiny and large magnitudes, negative values
    v[n // 5: n // 5 + 70] = 0
    v[n // 3: n // 3 + 40] *= 1e-25
    v[n // 2: n // 2 + 40] *= 1e3
    if special:
        # NaN, infinities, float32 subnormals, float64 subnormals (in float32: zeros)
        v[n // 7] = np.nan
        v[n // 6] = np.inf
        v[n // 4: n // 4 + 3] = -np.inf
        v[n // 8] = 1e-40
        v[n // 9: n // 9 + 30] = 1e-310
    return v.reshape(shape).astype(dtype)


def cases():
    for nd, (shape, chunks, blocks) in enumerate(GEOMS, start=1):
        for dt in ("f4", "f8"):
            for mname, codec, metas in MODES:
                for meta in metas:
                    name = f"{mname}{meta}_{nd}d_{dt}".replace("-", "m")
                    yield name, shape, chunks, blocks, dt, codec, meta


def special_cases():
    """Block-stream-only cases (no error bound): non-finite and subnormal values."""
    for nd in (1, 2, 4):
        shape, chunks, blocks = GEOMS[nd - 1]
        for dt in ("f4", "f8"):
            for mname, codec, meta in (("acc", blosc2.Codec.ZFP_ACC, -3),
                                       ("prec", blosc2.Codec.ZFP_PREC, 12),
                                       ("rate", blosc2.Codec.ZFP_RATE, 30)):
                name = f"special_{mname}{meta}_{nd}d_{dt}".replace("-", "m")
                yield name, shape, chunks, blocks, dt, codec, meta


def cparams(codec, meta):
    return {"codec": codec, "codec_meta": meta & 0xFF, "filters": [],
            "splitmode": blosc2.SplitMode.NEVER_SPLIT, "nthreads": 1}


def main():
    cmd, d = sys.argv[1], sys.argv[2]
    if cmd == "blocks":
        with open(os.path.join(d, "cases.txt"), "w") as f:
            allcases = [(c, False) for c in cases()] + [(c, True) for c in special_cases()]
            for k, ((name, shape, chunks, blocks, dt, codec, meta), sp) in enumerate(allcases):
                a = data(shape, dt, k, special=sp)
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
        j = lambda t: ",".join(map(str, t))
        for k, (name, shape, chunks, blocks, dt, codec, meta) in enumerate(cases()):
            a = data(shape, dt, k)
            with open(os.path.join(d, name + ".orig"), "wb") as f:
                f.write(a.tobytes())
            z = blosc2.asarray(a, chunks=chunks, blocks=blocks, cparams=cparams(codec, meta),
                               urlpath=os.path.join(d, name + ".b2nd"), mode="w")
            with open(os.path.join(d, name + ".refdec"), "wb") as f:
                f.write(z[...].tobytes())
            print(name, codec.value, meta & 0xFF, "<" + dt, j(shape), j(chunks), j(blocks))
    elif cmd == "read":
        for k, (name, shape, chunks, blocks, dt, codec, meta) in enumerate(cases()):
            p = os.path.join(d, name + ".b2rs.b2nd")
            if not os.path.exists(p):
                continue
            z = blosc2.open(p)
            got = z[...]
            assert got.shape == shape and got.dtype == np.dtype(dt), (name, got.shape, got.dtype)
            assert z.chunks == chunks and z.blocks == blocks, (name, z.chunks, z.blocks)
            assert z.schunk.cparams.codec == codec, (name, z.schunk.cparams.codec)
            a = np.fromfile(os.path.join(d, name + ".orig"), dtype=dt).reshape(shape)
            err = float(np.max(np.abs(got.astype(np.float64) - a.astype(np.float64))))
            ours = np.fromfile(os.path.join(d, name + ".b2rs.bin"), dtype=np.uint8)
            ref = np.fromfile(os.path.join(d, name + ".refdec"), dtype=np.uint8)
            raw = np.frombuffer(got.tobytes(), dtype=np.uint8)
            print(name, repr(err), int(np.array_equal(raw, ours)), int(np.array_equal(raw, ref)))
    else:
        raise SystemExit("unknown command " + cmd)


if __name__ == "__main__":
    main()
