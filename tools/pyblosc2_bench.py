#!/usr/bin/env python3
"""python-blosc2's compute path on b2rs against the reference, side by side.

Runs each workload in a fresh process of each build of tools/pyblosc2.sh (target/pyblosc2/
run-b2rs and run-ref: the same python-blosc2 4.14.1 sdist, linked to b2rs or to C-Blosc2
3.3.5), alternating the builds round after round, and prints the best time of each and the
ratio reference / b2rs (> 1: b2rs faster).

    target/pyblosc2/venv/bin/python tools/pyblosc2_bench.py [--n 100_000_000] [--rounds 3]

Workloads (float64 arrays of N items, default chunking, in memory and in files):
  arange       blosc2.arange(N)
  lazyexpr     (a * a + b).compute()
  where        blosc2.where(a < 0.5 * N, a, b).compute()   (a lazy where over the array)
  slice        a[i:i+N//100] for 100 random i, then a[k::N//1000] for k in 0..5
  sum          a.sum()
"""

import argparse
import os
import subprocess
import sys
import tempfile

WORKLOAD = r"""
import os, sys, time, numpy as np, blosc2
n, where, kind = int(sys.argv[1]), sys.argv[2], sys.argv[3]
tmp = sys.argv[4]
def urlpath(name):
    if where == "mem":
        return {}
    p = os.path.join(tmp, name + ".b2nd")
    blosc2.remove_urlpath(p)
    return {"urlpath": p, "mode": "w"}
t0 = time.perf_counter()
if kind == "arange":
    a = blosc2.arange(0, n, dtype=np.float64, **urlpath("r"))
    t = time.perf_counter() - t0
else:
    a = blosc2.arange(0, n, dtype=np.float64, **urlpath("a"))
    b = blosc2.linspace(0, 1, n, dtype=np.float64, **urlpath("b"))
    t0 = time.perf_counter()
    if kind == "lazyexpr":
        r = (a * a + b).compute(**urlpath("r"))
        want = (n - 1.0) ** 2 + 1.0  # (fused or not: equal to a few ulps)
        assert abs(r[n - 1] - want) <= 1e-12 * want
    elif kind == "where":
        r = blosc2.where(a < 0.5 * n, a, b).compute(**urlpath("r"))
        assert r[0] == 0.0
    elif kind == "slice":
        rng = np.random.default_rng(1)
        m = max(1, n // 100)
        for i in rng.integers(0, n - m, 100):
            v = a[int(i) : int(i) + m]
            assert v[0] == float(i)
        for k in range(5):
            v = a[k :: max(1, n // 1000)]
            assert v[1] == float(k + max(1, n // 1000))
    elif kind == "sum":
        s = float(a.sum())
        assert s == float(n) * (n - 1) / 2
    t = time.perf_counter() - t0
print(t)
"""


def run(build, n, where, kind, tmp):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(build, "src")
    out = subprocess.run(
        [sys.executable, "-c", WORKLOAD, str(n), where, kind, tmp],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if out.returncode != 0:
        raise SystemExit(f"{build} {where} {kind} failed:\n{out.stderr[-2000:]}")
    return float(out.stdout.strip().splitlines()[-1])


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=lambda s: int(s.replace("_", "")), default=100_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--work", default=os.path.join(repo, "target", "pyblosc2"))
    ap.add_argument("--kinds", default="arange,lazyexpr,where,slice,sum")
    ap.add_argument("--where", default="mem,disk")
    a = ap.parse_args()
    builds = {"ref": os.path.join(a.work, "run-ref"), "b2rs": os.path.join(a.work, "run-b2rs")}
    print(f"N = {a.n:,} float64, best of {a.rounds} interleaved rounds (seconds)")
    print(f"{'workload':<10} {'storage':<7} {'reference':>10} {'b2rs':>10} {'ref/b2rs':>9}")
    ratios = []
    with tempfile.TemporaryDirectory(dir=a.work) as tmp:
        for where in a.where.split(","):
            for kind in a.kinds.split(","):
                best = {k: float("inf") for k in builds}
                for r in range(a.rounds):
                    order = list(builds) if r % 2 == 0 else list(builds)[::-1]
                    for k in order:
                        best[k] = min(best[k], run(builds[k], a.n, where, kind, tmp))
                ratio = best["ref"] / best["b2rs"]
                ratios.append(ratio)
                print(
                    f"{kind:<10} {where:<7} {best['ref']:>10.3f} {best['b2rs']:>10.3f} "
                    f"{ratio:>9.2f}",
                    flush=True,
                )
    g = 1.0
    for r in ratios:
        g *= r
    print(f"geomean ref/b2rs: {g ** (1 / len(ratios)):.2f}")


if __name__ == "__main__":
    main()
