#!/usr/bin/env python3
"""Summaries of a ../shared/bench compare.py output (`python3 tools/bench_summary.py OUT`):
the worst configurations, how many fall under 0.90, the largest size ratio, geomeans per thread
count, thread scaling per dataset and decompression as a fraction of memcpy."""
import math, re, sys, collections

rows = []
for line in open(sys.argv[1]):
    m = re.match(r'^(\S+)\s+(\S+)\s+(\S+)\s+(\d+)\s+(\d+) \|\s+(\S+)\s+(\S+)\s+(\S+) \|\s+(\S+)\s+(\S+)\s+(\S+) \|\s+(\S+)\s+(\S+)\s+(\S+)', line)
    if m:
        g = m.groups()
        try:
            rows.append(dict(ds=g[0], codec=g[1], filt=g[2], cl=int(g[3]), nt=int(g[4]),
                             ref_c=float(g[6]), ref_d=float(g[7]), b_c=float(g[9]), b_d=float(g[10]),
                             rc=float(g[11]), rd=float(g[12]), rs=float(g[13])))
        except ValueError:
            pass

def gm(v):
    v = [x for x in v if x > 0]
    return math.exp(sum(map(math.log, v)) / len(v)) if v else float('nan')

main = [r for r in rows if r['codec'] in ('BLOSCLZ', 'LZ4', 'LZ4HC', 'ZLIB', 'ZSTD') and r['filt'] in ('noshuffle', 'shuffle', 'bitshuffle')]
print("%d matrix rows" % len(main))
for k, name in (('rc', 'compression'), ('rd', 'decompression')):
    w = sorted(main, key=lambda r: r[k])
    print("worst %s:" % name)
    for r in w[:5]:
        print("  %.2f  %s %s %s cl%d nt%d" % (r[k], r['ds'], r['codec'], r['filt'], r['cl'], r['nt']))
    print("  below 0.90: %d of %d" % (sum(r[k] < 0.90 for r in main), len(main)))
print("size ratio max %.3f, above 1.02: %d" % (max(r['rs'] for r in main), sum(r['rs'] > 1.02 for r in main)))
print("per nthreads geomean comp/decomp:")
for nt in (1, 2):
    s = [r for r in main if r['nt'] == nt]
    print("  nt%d: %.2f / %.2f" % (nt, gm([r['rc'] for r in s]), gm([r['rd'] for r in s])))
print("thread scaling (2 threads / 1, geomean over codec x filter x clevel), decomp / comp:")
by = collections.defaultdict(dict)
for r in main:
    by[(r['ds'], r['codec'], r['filt'], r['cl'])][r['nt']] = r
for ds in dict.fromkeys(r['ds'] for r in main):
    pairs = [v for k, v in by.items() if k[0] == ds and 1 in v and 2 in v]
    f = lambda who, what: gm([p[2][who + what] / p[1][who + what] for p in pairs if p[1][who + what] > 0])
    print("  %-15s b2rs %.2f / %.2f   ref %.2f / %.2f" % (ds, f('b_', 'd'), f('b_', 'c'), f('ref_', 'd'), f('ref_', 'c')))

# Decompression as a fraction of memcpy (the memcpy rows of both binaries averaged).
mem = {}
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) >= 17 and p[5] == "|" and p[1] == "memcpy":
        mem[p[0]] = (float(p[8]) + float(p[12])) / 2
print("decompression / memcpy (geomean over codec x filter x clevel), b2rs / ref:")
for ds, m in mem.items():
    for nt in (1, 2):
        s = [r for r in main if r['ds'] == ds and r['nt'] == nt]
        if s:
            print("  %-15s nt%d  %.2f / %.2f" % (ds, nt, gm([r['b_d'] / m for r in s]), gm([r['ref_d'] / m for r in s])))
