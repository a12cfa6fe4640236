"""Helper of tests/nd_plugins.rs: python-blosc2 (the reference) writes and reads b2nd arrays
made with the n-dimensional plugins (NDLZ codec, NDCELL and NDMEAN filters).

  python3 nd_plugins.py write DIR   -> DIR/<name>.b2nd (+ .src: input bytes, .dec: what the
                                       reference decodes), manifest on stdout (last field: ok,
                                       err = cannot decode, nowrite = cannot compress)
  python3 nd_plugins.py read DIR    -> reads DIR/manifest.txt (written by b2rs) and compares
"""
import sys, os
import numpy as np
import blosc2

C, F = blosc2.Codec, blosc2.Filter

# name, shape, chunks, blocks, dtype, codec, codec_meta, filters, filters_meta
CASES = [
    ("ndlz4_a", (40, 50), (20, 25), (10, 12), 'u1', C.NDLZ, 4, [], []),
    ("ndlz4_b", (64, 64), (32, 32), (16, 16), 'u1', C.NDLZ, 4, [], []),
    ("ndlz4_c", (37, 29), (16, 16), (7, 9), 'i1', C.NDLZ, 4, [F.SHUFFLE], [0]),
    ("ndlz4_d", (300, 200), (150, 100), (75, 50), 'u1', C.NDLZ, 4, [], []),
    ("ndlz8_a", (100, 70), (50, 35), (25, 17), 'u1', C.NDLZ, 8, [], []),
    ("ndlz8_b", (64, 64), (32, 32), (32, 32), 'u1', C.NDLZ, 8, [], []),
    ("ndlz8_c", (33, 47), (33, 47), (33, 47), 'u1', C.NDLZ, 8, [], []),
    ("ndlz8_d", (256, 256), (128, 128), (64, 64), 'u1', C.NDLZ, 8, [], []),
    ("ndcell1", (1000,), (200,), (50,), 'f4', C.ZSTD, 0, [F.NDCELL], [4]),
    ("ndcell2", (50, 60), (25, 30), (10, 12), 'i2', C.LZ4, 0, [F.NDCELL, F.SHUFFLE], [3, 0]),
    ("ndcell3", (20, 20, 20), (10, 10, 10), (5, 5, 5), 'f8', C.BLOSCLZ, 0, [F.NDCELL], [2]),
    ("ndcell4", (8, 9, 10, 11), (4, 5, 6, 7), (2, 3, 4, 5), 'u1', C.ZSTD, 0, [F.NDCELL], [2]),
    ("ndcell_ndlz", (40, 50), (20, 25), (8, 8), 'u1', C.NDLZ, 4, [F.NDCELL], [4]),
    ("ndmean1", (1000,), (500,), (100,), 'f4', C.ZSTD, 0, [F.NDMEAN, F.SHUFFLE], [4, 0]),
    ("ndmean2", (64, 64), (32, 32), (16, 16), 'f8', C.LZ4, 0, [F.NDMEAN], [4]),
    ("ndmean3", (16, 16, 16), (8, 8, 8), (4, 4, 4), 'f4', C.BLOSCLZ, 0, [F.NDMEAN, F.SHUFFLE], [3, 0]),
    ("ndmean2_cut", (30, 40), (30, 40), (10, 10), 'f8', C.ZSTD, 0, [F.NDMEAN], [3]),
    ("ndmean2_thin", (20, 20), (20, 20), (2, 10), 'f4', C.ZSTD, 0, [F.NDMEAN], [4]),
    ("ndmean4", (6, 7, 8, 9), (6, 7, 8, 9), (3, 7, 4, 9), 'f8', C.ZSTD, 0, [F.NDMEAN], [3]),
    # blocks smaller than a cell: NDLZ stores them raw, NDCELL cannot compress them
    ("ndlz4_tiny", (10, 10), (6, 6), (3, 3), 'u1', C.NDLZ, 4, [], []),
    ("ndlz8_small", (20, 20), (10, 10), (5, 10), 'u1', C.NDLZ, 8, [], []),
    ("ndcell_small", (10, 10), (6, 6), (3, 3), 'f4', C.LZ4, 0, [F.NDCELL], [4]),
    # NDLZ on a 3-D array, and on 2-byte items: the reference cannot compress them
    ("ndlz_3d", (8, 8, 8), (8, 8, 8), (4, 4, 4), 'u1', C.NDLZ, 4, [], []),
    ("ndlz_i2", (32, 32), (16, 16), (8, 8), 'i2', C.NDLZ, 4, [], []),
]


def data(shape, dt, seed):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dt)
    n = int(np.prod(shape))
    if dt.kind == 'f':
        base = np.sin(np.arange(n) / 17.0) * 100 + rng.normal(size=n)
        return base.astype(dt).reshape(shape)
    # image-like bytes: flat areas, repeated rows and cells, some noise
    idx = np.indices(shape)
    v = (idx[0] // 5 * 3 + idx[-1] // 4 * 7) % 23
    v = v + (idx[-1] % 4) * ((idx[0] // 8) % 2)
    noise = rng.integers(0, 256, size=shape)
    mask = rng.random(size=shape) < 0.05
    v = np.where(mask, noise, v)
    return (v % 256).astype(dt)


def cparams(codec, codec_meta, filters, filters_meta):
    f = list(filters) + [F.NOFILTER] * (6 - len(filters))
    fm = list(filters_meta) + [0] * (6 - len(filters_meta))
    return dict(codec=codec, codec_meta=codec_meta, clevel=5, filters=f, filters_meta=fm,
                nthreads=1)


def write(d):
    for k, (name, shape, chunks, blocks, dt, codec, cm, filters, fmeta) in enumerate(CASES):
        arr = data(shape, dt, k)
        path = os.path.join(d, f"{name}.b2nd")
        with open(path + '.src', 'wb') as f:
            f.write(arr.tobytes())
        j = lambda v: ",".join(str(getattr(x, "value", x)) for x in v)
        line = [name, j(shape), j(chunks), j(blocks), np.dtype(dt).str, str(codec.value),
                str(cm), j(filters), j(fmeta)]
        try:
            blosc2.asarray(arr, urlpath=path, mode='w', chunks=chunks, blocks=blocks,
                           cparams=cparams(codec, cm, filters, fmeta))
        except Exception:
            print(';'.join(line + ['nowrite']))
            continue
        try:
            dec = blosc2.open(path)[...]
            with open(path + '.dec', 'wb') as f:
                f.write(np.ascontiguousarray(dec).tobytes())
            status = 'ok'
        except Exception as e:
            status = 'err'
        print(';'.join(line + [status]))


def read(d):
    bad = n = 0
    for line in open(os.path.join(d, 'manifest.txt')):
        line = line.strip()
        if not line:
            continue
        name, status = line.split(';')
        ours = os.path.join(d, name + '.ours.b2nd')
        theirs = os.path.join(d, name + '.b2nd')
        try:
            got = np.ascontiguousarray(blosc2.open(ours)[...]).tobytes()
            st = 'ok'
        except Exception as e:
            st = 'err'
        n += 1
        problems = []
        if st != status:
            problems.append(f"status {st} != {status}")
        if st == 'ok':
            if got != open(ours + '.dec', 'rb').read():
                problems.append("differs from what b2rs decodes")
            if os.path.exists(theirs + '.dec') and got != open(theirs + '.dec', 'rb').read():
                problems.append("differs from the reference's own array")
        # chunk by chunk, the reference's super-chunk against ours
        # (keep the arrays alive while their super-chunks are used)
        aa, bb = blosc2.open(ours), blosc2.open(theirs)
        a, b = aa.schunk, bb.schunk
        same = a.nchunks == b.nchunks and all(
            a.get_chunk(i) == b.get_chunk(i) for i in range(a.nchunks))
        if not same:
            problems.append("chunks differ from the reference's")
        if problems:
            bad += 1
            print(name, problems)
    print(f"checked {n}, bad {bad}")
    sys.exit(1 if bad else 0)


if __name__ == '__main__':
    {'write': write, 'read': read}[sys.argv[1]](sys.argv[2])
