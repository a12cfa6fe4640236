#!/usr/bin/env python3
"""Compare builds of b2bench: ../shared/bench/compare.py (reference C-Blosc2 vs. the libb2rs
drop-in), plus two modes of b2rs's own:

  --bins NAME=PATH,NAME=PATH,... --save DIR   run any number of b2bench binaries interleaved
                                              (round 1: each in turn, round 2: ...), saving
                                              every run's CSV as DIR/NAME-ROUND.csv
  --load DIR --pair A,B                       report B against A (as compare.py reports b2rs
                                              against ref) from the saved CSVs

e.g. the reference, b2rs before and after a change, 3 rounds of the full matrix:
  tools/bench_tri.py --bins ref=./b2bench-ref,old=./b2bench-old,new=./b2bench-b2rs \
      --save runs --rounds 3 --wait-idle 30 -- --size 16 --budget 1
  tools/bench_tri.py --load runs --pair ref,new;  tools/bench_tri.py --load runs --pair old,new

What follows is compare.py's own description.

Runs both binaries interleaved (ref, b2rs, ref, b2rs, ...) on the same
b2bench configuration, keeps the best throughput seen for every measurement,
and prints per configuration the b2rs/ref ratios of compression and
decompression throughput and of compressed size, a geometric mean per codec
and an overall geometric mean.  The last printed line is

    geomean decomp ratio X.XX, comp ratio Y.YY, size ratio Z.ZZ

(ratios > 1 mean b2rs is faster for throughput, and *larger* output for size).
If the b2rs binary is missing, only the reference is run and its absolute
figures are printed.

usage: compare.py [--ref PATH] [--b2rs PATH] [--rounds N] [--wait-idle SEC]
                  [--strict] [-- b2bench arguments...]   (default: -- --quick)

Standard library only.
"""
import argparse
import csv
import math
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MAIN_CODECS = ("BLOSCLZ", "LZ4", "LZ4HC", "ZLIB", "ZSTD")
# Zero-copy operations in C-Blosc2: timings are a few ns and meaningless as ratios.
NOISY_FILTERS = ("to_buffer|from_buffer",)


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "n/a"


def cpu_idle(interval=0.5):
    """Fraction of CPU time idle over `interval` seconds (Linux), or None."""
    def snap():
        with open("/proc/stat") as f:
            vals = [int(x) for x in f.readline().split()[1:]]
        return vals[3] + (vals[4] if len(vals) > 4 else 0), sum(vals)
    try:
        i0, t0 = snap()
        time.sleep(interval)
        i1, t1 = snap()
    except (OSError, ValueError, IndexError):
        return None
    return (i1 - i0) / max(1, t1 - t0)


def wait_idle(max_wait, threshold=0.9):
    """Wait up to max_wait seconds for the machine to be >= threshold idle."""
    deadline = time.monotonic() + max_wait
    while True:
        f = cpu_idle()
        if f is None or f >= threshold or time.monotonic() >= deadline:
            return f


def run_once(binary, args):
    """Run one b2bench; return (rows, rc, fail_lines, seconds)."""
    fd, path = tempfile.mkstemp(prefix="b2bench-", suffix=".csv")
    os.close(fd)
    cmd = [binary] + list(args) + ["--keep-going", "--csv", path]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True)
    secs = time.monotonic() - t0
    rows = []
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    finally:
        os.unlink(path)
    fails = [l for l in proc.stderr.splitlines() if l.startswith("FAIL")]
    if proc.returncode != 0 and not fails:
        fails = proc.stderr.strip().splitlines()[-5:] or ["exit status %d" % proc.returncode]
    return rows, proc.returncode, fails, secs


def fnum(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if v > 0 and math.isfinite(v) else None


def key_of(r):
    return (r["dataset"], r["codec"], r["filter"], int(r["clevel"]), int(r["nthreads"]))


def merge(acc, rows):
    """Keep the best (max) throughput per key; ratio from the first run."""
    for r in rows:
        k = key_of(r)
        cur = acc.setdefault(k, {"ratio": fnum(r["ratio"]), "comp": None, "decomp": None,
                                 "order": len(acc)})
        for col, name in (("comp_gbs", "comp"), ("decomp_gbs", "decomp")):
            v = fnum(r[col])
            if v is not None and (cur[name] is None or v > cur[name]):
                cur[name] = v
        ratio = fnum(r["ratio"])
        if ratio and cur["ratio"] and abs(ratio / cur["ratio"] - 1) > 1e-3:
            cur["ratio_unstable"] = True


def geomean(vals):
    vals = [v for v in vals if v is not None and v > 0 and math.isfinite(v)]
    if not vals:
        return None
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def fmt(v, w=7, p=3):
    return ("%*.*f" % (w, p, v)) if v is not None else ("%*s" % (w, "-"))


def div(a, b):
    return a / b if (a is not None and b) else None


def main():
    argv = sys.argv[1:]
    passthrough = None
    if "--" in argv:
        i = argv.index("--")
        argv, passthrough = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(
        usage="compare.py [--ref PATH] [--b2rs PATH] [--rounds N] [--wait-idle SEC] "
              "[--strict] [-- b2bench args (default: --quick)]",
        description=__doc__.split("\n")[0])
    ap.add_argument("--ref", default=os.path.join(HERE, "b2bench-ref"))
    ap.add_argument("--b2rs", default=os.path.join(HERE, "b2bench-b2rs"))
    ap.add_argument("--rounds", type=int, default=2,
                    help="number of A/B rounds (default 2: ref b2rs ref b2rs)")
    ap.add_argument("--wait-idle", type=float, default=0, metavar="SEC",
                    help="before each run, wait up to SEC s for the CPUs to be >= 90%% idle")
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 if b2rs fails, misses configurations or a run fails")
    ap.add_argument("--bins", default=None, help="name=path,name=path,... (run mode)")
    ap.add_argument("--save", default=None, help="save every run's CSV into DIR")
    ap.add_argument("--load", default=None, help="report from saved CSVs in DIR")
    ap.add_argument("--pair", default="ref,b2rs", help="A,B: report B/A")
    opts = ap.parse_args(argv)
    bargs = passthrough if passthrough else ["--quick"]
    if opts.bins:
        tri_run(opts, bargs)
        return
    if opts.load:
        tri_report(opts)
        return

    if not os.access(opts.ref, os.X_OK):
        print("reference binary %s not found (run make)" % opts.ref)
        sys.exit(1)
    have_b2rs = os.access(opts.b2rs, os.X_OK)
    bins = [("ref", opts.ref)] + ([("b2rs", opts.b2rs)] if have_b2rs else [])
    print("b2bench arguments: %s" % " ".join(bargs))
    if not have_b2rs:
        print("note: %s not found: running the reference only" % opts.b2rs)

    acc = {name: {} for name, _ in bins}
    fails = {name: [] for name, _ in bins}
    bad_rc = {name: 0 for name, _ in bins}
    for rnd in range(opts.rounds):
        for name, path in bins:
            idle = wait_idle(opts.wait_idle) if opts.wait_idle > 0 else cpu_idle(0.2)
            la = loadavg()
            rows, rc, fl, secs = run_once(path, bargs)
            print("round %d %-4s: %4d rows, rc=%d, %.1f s (before: loadavg %s, cpu idle %s)"
                  % (rnd + 1, name, len(rows), rc, secs, la,
                     "%.0f%%" % (100 * idle) if idle is not None else "n/a"))
            sys.stdout.flush()
            merge(acc[name], rows)
            if rc != 0:
                bad_rc[name] += 1
            for l in fl:
                if l not in fails[name]:
                    fails[name].append(l)

    report(acc, fails, bad_rc, have_b2rs, opts)


def tri_run(opts, bargs):
    bins = [tuple(b.split("=", 1)) for b in opts.bins.split(",")]
    os.makedirs(opts.save, exist_ok=True)
    print("b2bench arguments: %s" % " ".join(bargs))
    for rnd in range(opts.rounds):
        for name, path in bins:
            idle = wait_idle(opts.wait_idle) if opts.wait_idle > 0 else cpu_idle(0.2)
            la = loadavg()
            rows, rc, fl, secs = run_once(path, bargs)
            out = os.path.join(opts.save, "%s-%d.csv" % (name, rnd + 1))
            if rows:
                with open(out, "w", newline="") as f:
                    w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
                    w.writeheader()
                    w.writerows(rows)
            print("round %d %-4s: %4d rows, rc=%d, %.1f s (before: loadavg %s, cpu idle %s)"
                  % (rnd + 1, name, len(rows), rc, secs, la,
                     "%.0f%%" % (100 * idle) if idle is not None else "n/a"), flush=True)
            for l in fl:
                print("  %s: %s" % (name, l))


def tri_report(opts):
    import glob
    a, b = opts.pair.split(",")
    acc = {"ref": {}, "b2rs": {}}
    for role, name in (("ref", a), ("b2rs", b)):
        for p in sorted(glob.glob(os.path.join(opts.load, "%s-*.csv" % name))):
            with open(p, newline="") as f:
                merge(acc[role], list(csv.DictReader(f)))
    print("report: %s (as b2rs) / %s (as ref), from %s" % (b, a, opts.load))
    report(acc, {"ref": [], "b2rs": []}, {"ref": 0, "b2rs": 0}, True, opts)


def report(acc, fails, bad_rc, have_b2rs, opts):
    bins = [("ref", None), ("b2rs", None)]
    ref = acc["ref"]
    keys = sorted(ref, key=lambda k: ref[k]["order"])
    for name, _ in bins:
        for l in fails[name]:
            print("%s: %s" % (name, l))

    if not have_b2rs:
        print()
        print("%-15s %-14s %-22s %2s %2s %9s %9s %9s" % (
            "dataset", "codec", "filter", "cl", "nt", "ratio", "comp", "decomp"))
        for k in keys:
            v = ref[k]
            print("%-15s %-14s %-22s %2d %2d %9s %9s %9s" % (
                k[0], k[1], k[2], k[3], k[4], fmt(v["ratio"], 9, 2), fmt(v["comp"], 9),
                fmt(v["decomp"], 9)))
        print()
        main_keys = [k for k in keys if k[1] in MAIN_CODECS]
        for codec in MAIN_CODECS:
            ks = [k for k in main_keys if k[1] == codec]
            if ks:
                print("%-8s geomean: comp %7.3f GB/s, decomp %7.3f GB/s, ratio %7.2f (%d configs)" % (
                    codec, geomean(ref[k]["comp"] for k in ks) or 0,
                    geomean(ref[k]["decomp"] for k in ks) or 0,
                    geomean(ref[k]["ratio"] for k in ks) or 0, len(ks)))
        print("reference only: geomean decomp %.3f GB/s, comp %.3f GB/s, ratio %.2f" % (
            geomean(ref[k]["decomp"] for k in main_keys) or 0,
            geomean(ref[k]["comp"] for k in main_keys) or 0,
            geomean(ref[k]["ratio"] for k in main_keys) or 0))
        sys.exit(1 if (opts.strict and bad_rc["ref"]) else 0)

    b2 = acc["b2rs"]
    missing = [k for k in keys if k not in b2]
    extra = [k for k in b2 if k not in ref]

    def ratios(k):
        a, b = ref[k], b2[k]
        return (div(b["comp"], a["comp"]), div(b["decomp"], a["decomp"]),
                div(a["ratio"], b["ratio"]))   # size ratio = b2rs cbytes / ref cbytes

    print()
    print("ratios are b2rs/ref; throughput > 1 = b2rs faster, size > 1 = b2rs output larger")
    hdr = "%-15s %-14s %-22s %2s %2s | %7s %7s %7s | %7s %7s %7s | %6s %6s %6s" % (
        "dataset", "codec", "filter", "cl", "nt", "ratio", "comp", "decomp",
        "ratio", "comp", "decomp", "comp", "decomp", "size")
    print("%-61s | %-23s | %-23s | %s" % ("", "ref (GB/s)", "b2rs (GB/s)", "b2rs/ref"))
    print(hdr)
    for k in keys:
        if k not in b2:
            continue
        a, b = ref[k], b2[k]
        cr, dr, sr = ratios(k)
        print("%-15s %-14s %-22s %2d %2d | %7s %7s %7s | %7s %7s %7s | %6s %6s %6s%s" % (
            k[0], k[1], k[2], k[3], k[4],
            fmt(a["ratio"], 7, 2), fmt(a["comp"]), fmt(a["decomp"]),
            fmt(b["ratio"], 7, 2), fmt(b["comp"]), fmt(b["decomp"]),
            fmt(cr, 6, 2), fmt(dr, 6, 2), fmt(sr, 6, 3),
            "  (ratio varies between runs)" if b.get("ratio_unstable") else ""))
    if missing:
        print()
        print("%d configuration(s) missing in b2rs output (failed or unsupported):" % len(missing))
        for k in missing[:40]:
            print("  %s %s %s cl%d nt%d" % k)
        if len(missing) > 40:
            print("  ...")
    if extra:
        print("%d configuration(s) only in b2rs output" % len(extra))

    print()
    main_keys = [k for k in keys if k[1] in MAIN_CODECS and k in b2]
    for codec in MAIN_CODECS:
        ks = [k for k in main_keys if k[1] == codec]
        if not ks:
            continue
        rs = [ratios(k) for k in ks]
        print("%-8s geomean b2rs/ref: comp %5.2f, decomp %5.2f, size %6.3f  (%d configs)" % (
            codec, geomean(r[0] for r in rs) or float("nan"),
            geomean(r[1] for r in rs) or float("nan"),
            geomean(r[2] for r in rs) or float("nan"), len(ks)))
    ext = [k for k in keys if k[1] not in MAIN_CODECS and k in b2 and k[1] != "memcpy"
           and k[2] not in NOISY_FILTERS]
    if ext:
        rs = [ratios(k) for k in ext]
        print("%-8s geomean b2rs/ref: comp %5.2f, decomp %5.2f, size %6.3f  (%d rows; "
              "schunk/b2nd, zero-copy to_buffer|from_buffer excluded)" % (
                  "extras", geomean(r[0] for r in rs) or float("nan"),
                  geomean(r[1] for r in rs) or float("nan"),
                  geomean(r[2] for r in rs) or float("nan"), len(ext)))
    mc = [k for k in keys if k[1] == "memcpy" and k in b2]
    if mc:
        print("memcpy   geomean b2rs/ref: %5.2f  (same code in both binaries: "
              "deviation from 1.00 = measurement noise)" % (
                  geomean(ratios(k)[0] for k in mc) or float("nan")))
    if fails["b2rs"] or bad_rc["b2rs"]:
        print("WARNING: b2rs reported %d failure(s) (see FAIL lines above)"
              % max(len(fails["b2rs"]), bad_rc["b2rs"]))
    rs = [ratios(k) for k in main_keys]
    g = [geomean(r[i] for r in rs) for i in range(3)]
    print("geomean decomp ratio %.2f, comp ratio %.2f, size ratio %.2f" % (
        g[1] if g[1] is not None else float("nan"),
        g[0] if g[0] is not None else float("nan"),
        g[2] if g[2] is not None else float("nan")))
    bad = bool(fails["b2rs"] or bad_rc["b2rs"] or bad_rc["ref"] or missing)
    sys.exit(1 if (opts.strict and bad) else 0)


if __name__ == "__main__":
    main()
