#!/usr/bin/env python3
"""Side-by-side run of ../shared/bench/b2ndgrow.c, tools/b2ndgrow_more.c and tools/b2nd_refbench.c
(C-Blosc2's own stacking and concatenate benchmarks) (growing B2ND arrays) against the reference C-Blosc2 and b2rs, in interleaved rounds; prints per operation the best time of each library,
the ratio reference / b2rs (> 1: b2rs faster) and whether the contents' hashes agree.

    python3 tools/b2ndgrow.py [--rounds N]

Needs `cargo build --release` and the reference in target/reference (tools/fetch-reference.sh).
"""
import argparse
import math
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build(tmp):
    shared = os.environ.get("B2RS_SHARED_DIR", os.path.join(ROOT, "..", "shared"))
    srcs = [os.path.join(shared, "bench", "b2ndgrow.c"), os.path.join(ROOT, "tools", "b2ndgrow_more.c"),
            os.path.join(ROOT, "tools", "b2nd_refbench.c")]
    ref = os.path.join(os.environ.get("B2RS_REF_DIR", os.path.join(ROOT, "target", "reference")), "blosc2")
    lib = os.path.join(tmp, "lib")
    os.makedirs(lib, exist_ok=True)
    so = os.path.join(ROOT, "target", "release", "libb2rs.so")
    for name in ("libb2rs.so", "libb2rs.so.0"):
        os.symlink(so, os.path.join(lib, name))
    exes = {"ref": [], "b2rs": []}
    for tag, inc, libdir, l in (("ref", os.path.join(ref, "include"), os.path.join(ref, "lib"), "blosc2"),
                                ("b2rs", os.path.join(ROOT, "include"), lib, "b2rs")):
        for k, src in enumerate(srcs):
            exe = os.path.join(tmp, f"b2ndgrow{k}-{tag}")
            subprocess.run(["cc", "-O2", "-I", inc, src, "-o", exe, "-L", libdir, "-l" + l,
                            "-Wl,-rpath," + libdir], check=True)
            exes[tag].append(exe)
    return exes


def run(exe, tmp):
    out = subprocess.run([exe], check=True, capture_output=True, text=True,
                         env=dict(os.environ, TMPDIR=tmp)).stdout
    rows = {}
    for line in out.splitlines():
        m = re.match(r"(\S+)\t(.*?) # ([0-9.]+) s", line)
        if m:
            rows[m.group(1)] = (m.group(2), float(m.group(3)))
        elif line.strip():
            print(exe, line, file=sys.stderr)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        exes = build(tmp)
        best = {"ref": {}, "b2rs": {}}
        content = {"ref": {}, "b2rs": {}}
        for r in range(args.rounds):
            order = ("ref", "b2rs") if r % 2 == 0 else ("b2rs", "ref")
            for tag in order:
                rows = {}
                for exe in exes[tag]:
                    rows.update(run(exe, tmp))
                for name, (what, t) in rows.items():
                    best[tag][name] = min(best[tag].get(name, math.inf), t)
                    content[tag][name] = what
        print(f"{'operation':16} {'reference s':>12} {'b2rs s':>10} {'ref/b2rs':>9}  same content")
        ratios = []
        for name in best["ref"]:
            a, b = best["ref"][name], best["b2rs"].get(name, math.inf)
            ratio = a / b if b > 0 else math.inf
            ratios.append(ratio)
            same = content["ref"][name] == content["b2rs"].get(name)
            print(f"{name:16} {a:12.4f} {b:10.4f} {ratio:9.2f}  {'yes' if same else 'NO'}")
        geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        print(f"geomean ref/b2rs {geo:.2f}, min {min(ratios):.2f} ({args.rounds} interleaved rounds, best of each)")


if __name__ == "__main__":
    main()
