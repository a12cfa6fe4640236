# Helper of tests/schunk_interop.rs: Python blosc2 (the reference) writes or reads super-chunks
# of every storage kind. Usage: python3 schunk_interop.py write|read DIR
# Cases (the Rust side builds the same ones): codec index ci in CODECS, kind in KINDS;
#   d{ci}_{kind}: 10123 int32 items, chunks of 1000 items, metalayer, vlmetalayers
#   s{ci}_{kind}: 5000 zero items (fill_special, 5 chunks), chunk 2 updated with data
# Kinds: cf = contiguous file (.b2frame), sf = sparse directory (.b2dir), mem = in-memory
# contiguous frame serialised to a .cframe file, off = frame at offset 29 of a .host file.
# Large index (python3 schunk_interop.py bigwrite|bigread DIR): BIG_NCHUNKS chunks of 4 int32
# items, zeros but for the chunks BIG_SET (an offsets chunk of 1.6 MB, which b2rs reads
# lazily); C-Blosc2 builds it fast only as a special fill then updates (appending rewrites
# the whole index every time, and so does serialising an in-memory super-chunk):
#   big_py.b2frame: written by Python; b2rs then updates chunk 150000 to BIG_NEW and deletes
#   chunk 0, and bigread checks that; big_rs.b2frame: the same data written by b2rs.
import sys, os
import numpy as np
import blosc2

CODECS = [blosc2.Codec.BLOSCLZ, blosc2.Codec.LZ4, blosc2.Codec.LZ4HC, blosc2.Codec.ZLIB, blosc2.Codec.ZSTD]
KINDS = ["cf", "sf", "mem", "off"]
PREFIX = b"29 bytes before the frame...."
assert len(PREFIX) == 29
NITEMS = 10123
CHUNKSIZE = 4000


def data(ci):
    return ((np.arange(NITEMS, dtype=np.int64) * 7 + ci) % 1000).astype("<i4")


def chunk2(ci):
    return ((np.arange(1000, dtype=np.int64) * 3 + ci) % 500).astype("<i4")


def special_data(ci):
    d = np.zeros(5000, dtype="<i4")
    d[2000:3000] = chunk2(ci)
    return d


def meta1(ci):
    return b"\x01\x02\x03" + bytes([ci])


def vl1(ci):
    return b"vlmeta-" + str(ci).encode()


def vl2(ci):
    return bytes((i * 13 + ci) % 256 for i in range(300))


def path(d, name, kind):
    ext = {"cf": ".b2frame", "sf": ".b2dir", "mem": ".cframe", "off": ".host"}[kind]
    return os.path.join(d, name + ext)


def write(d):
    for ci, codec in enumerate(CODECS):
        for kind in KINDS:
            for case in "ds":
                name = f"{case}{ci}_{kind}"
                p = path(d, name, kind)
                kw = dict(cparams=blosc2.CParams(codec=codec, clevel=5, typesize=4))
                if kind in ("cf", "sf"):
                    kw["urlpath"] = p
                    kw["contiguous"] = kind == "cf"
                    blosc2.remove_urlpath(p)
                else:
                    kw["contiguous"] = True
                if case == "d":
                    s = blosc2.SChunk(chunksize=CHUNKSIZE, data=data(ci).tobytes(),
                                      meta={"meta1": meta1(ci)}, **kw)
                    s.vlmeta["vl1"] = vl1(ci)
                    s.vlmeta["vl2"] = vl2(ci)
                else:
                    s = blosc2.SChunk(chunksize=CHUNKSIZE, meta={"meta1": meta1(ci)}, **kw)
                    s.fill_special(5000, blosc2.SpecialValue.ZERO)
                    s.update_data(2, chunk2(ci).tobytes(), copy=True)
                    s.vlmeta["vl1"] = vl1(ci)
                if kind == "mem":
                    with open(p, "wb") as f:
                        f.write(s.to_cframe())
                elif kind == "off":
                    with open(p, "wb") as f:
                        f.write(PREFIX + s.to_cframe() + b"trailing bytes")


def read(d):
    n = 0
    for ci, codec in enumerate(CODECS):
        for kind in KINDS:
            for case in "ds":
                name = f"{case}{ci}_{kind}"
                p = path(d, name, kind)
                if kind in ("cf", "sf"):
                    s = blosc2.open(p)
                elif kind == "mem":
                    with open(p, "rb") as f:
                        s = blosc2.schunk_from_cframe(f.read(), copy=True)
                else:
                    s = blosc2.open(p, offset=len(PREFIX))
                want = data(ci) if case == "d" else special_data(ci)
                got = np.frombuffer(s[:], dtype="<i4")
                assert s.nchunks == (11 if case == "d" else 5), (name, s.nchunks)
                assert np.array_equal(got, want), name
                assert s.meta["meta1"] == meta1(ci), (name, s.meta["meta1"])
                assert s.vlmeta["vl1"] == vl1(ci), name
                if case == "d":
                    assert s.vlmeta["vl2"] == vl2(ci), name
                    assert len(s.vlmeta.getall()) == 2, name
                assert s.cparams.codec == codec, (name, s.cparams.codec)
                assert s.typesize == 4 or s.cparams.typesize == 4, name
                n += 1
    print("read", n, "cases")


BIG_NCHUNKS = 200_000
BIG_NEW = np.array([-1, -2, -3, -4], dtype="<i4")


BIG_SET = [0, 1, 77_777, 131_072, 150_000, BIG_NCHUNKS - 1]


def big_data():
    d = np.zeros(BIG_NCHUNKS * 4, dtype="<i4")
    for k in BIG_SET:
        d[k * 4:k * 4 + 4] = (np.arange(k * 4, k * 4 + 4) * 7) % 1000 + 1
    return d


def bigwrite(d):
    p = os.path.join(d, "big_py.b2frame")
    blosc2.remove_urlpath(p)
    s = blosc2.SChunk(chunksize=16, urlpath=p, contiguous=True,
                      cparams=blosc2.CParams(codec=blosc2.Codec.BLOSCLZ, typesize=4))
    s.fill_special(BIG_NCHUNKS * 4, blosc2.SpecialValue.ZERO)
    data = big_data()
    for k in BIG_SET:
        s.update_data(k, data[k * 4:k * 4 + 4].tobytes(), copy=True)
    assert s.nchunks == BIG_NCHUNKS


def bigread(d):
    want = big_data()
    s = blosc2.open(os.path.join(d, "big_rs.b2frame"))
    assert s.nchunks == BIG_NCHUNKS, s.nchunks
    assert np.array_equal(np.frombuffer(s[:], dtype="<i4"), want), "big_rs"
    s = blosc2.open(os.path.join(d, "big_py.b2frame"))
    assert s.nchunks == BIG_NCHUNKS - 1, s.nchunks
    want = want[4:].copy()
    want[149_999 * 4:150_000 * 4] = BIG_NEW
    assert np.array_equal(np.frombuffer(s[:], dtype="<i4"), want), "big_py changed by b2rs"
    print("bigread ok")


if __name__ == "__main__":
    {"write": write, "read": read, "bigwrite": bigwrite, "bigread": bigread}[sys.argv[1]](sys.argv[2])
