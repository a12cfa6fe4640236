#!/usr/bin/env python3
"""Check python-blosc2's suite on b2rs against the reference (tools/pyblosc2.sh).

Every test collected on the reference build must have run on b2rs and passed (or been
skipped), unless the known-failures file lists it; every listed test must fail on the
reference build too. Prints what differs; exits 1 then.
"""

import argparse
import sys
import xml.etree.ElementTree as ET


def split_nodeid(nodeid):
    """'a/b.py::C::t[x::y]' -> ['a/b.py', 'C', 't[x::y]'] (no split inside brackets)."""
    parts, cur, depth, i = [], "", 0, 0
    while i < len(nodeid):
        c = nodeid[i]
        if c == "[":
            depth += 1
        elif c == "]":
            depth -= 1
        if depth == 0 and nodeid.startswith("::", i):
            parts.append(cur)
            cur = ""
            i += 2
            continue
        cur += c
        i += 1
    parts.append(cur)
    return parts


def key_of_nodeid(nodeid):
    """The (classname, name) junit pytest writes for a node id."""
    parts = split_nodeid(nodeid)
    path = parts[0]
    if path.endswith(".py"):
        path = path[:-3]
    classname = ".".join([path.replace("/", ".")] + parts[1:-1])
    return classname, parts[-1]


def nodeid_of_key(key):
    return f"{key[0]}::{key[1]}"


def junit_results(path):
    """{(classname, name): 'passed'|'skipped'|'failed'|'error'}"""
    out = {}
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        print(f"cannot read {path}: {e}")
        return None
    for tc in root.iter("testcase"):
        key = (tc.get("classname", ""), tc.get("name", ""))
        state = "passed"
        for child in tc:
            if child.tag in ("failure", "error"):
                state = "failed" if child.tag == "failure" else "error"
                break
            if child.tag == "skipped":
                state = "skipped"
        # a test reported twice (a teardown error after a pass) keeps its worst state
        if out.get(key) in ("failed", "error"):
            continue
        out[key] = state
    return out


def collected(path):
    ids = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if "::" in line and not line.startswith(("=", "-")) and " " not in line.split("[")[0]:
                ids.append(line)
    return ids


def known_failures(path):
    out = {}
    with open(path) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            nodeid, _, reason = line.rstrip("\n").partition("\t")
            out[nodeid.strip()] = reason.strip()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--collected", required=True)
    ap.add_argument("--ours", required=True)
    ap.add_argument("--known", required=True)
    ap.add_argument("--ref-known", required=True)
    ap.add_argument("--pytest-rc", type=int, default=0)
    a = ap.parse_args()

    ref_ids = collected(a.collected)
    ours = junit_results(a.ours)
    known = known_failures(a.known)
    if ours is None:
        print(f"pyblosc2: FAILED: no results on b2rs (pytest exit status {a.pytest_rc})")
        return 1
    bad = []
    counts = {"passed": 0, "skipped": 0, "failed": 0, "error": 0, "missing": 0, "known": 0}
    for nodeid in ref_ids:
        state = ours.get(key_of_nodeid(nodeid), "missing")
        if state in ("passed", "skipped"):
            counts[state] += 1
            continue
        if nodeid in known:
            counts["known"] += 1
            continue
        counts[state] += 1
        bad.append((state, nodeid))
    print(
        f"pyblosc2: {len(ref_ids)} tests collected on the reference build; on b2rs "
        f"{counts['passed']} passed, {counts['skipped']} skipped, {counts['known']} known "
        f"failures (failing on the reference too), {counts['failed']} failed, "
        f"{counts['error']} errors, {counts['missing']} not run or not collected"
    )
    for state, nodeid in bad:
        print(f"  {state}: {nodeid}")

    # every known failure fails on the reference build
    ref_known = junit_results(a.ref_known) if known else {}
    wrong = []
    for nodeid, reason in known.items():
        if not reason:
            wrong.append(f"{nodeid}: no reason given")
            continue
        state = (ref_known or {}).get(key_of_nodeid(nodeid), "missing")
        if state not in ("failed", "error"):
            wrong.append(f"{nodeid}: {state} on the reference build (listed as failing there)")
    for w in wrong:
        print(f"  known-failures list: {w}")
    if bad or wrong:
        print("pyblosc2: FAILED")
        return 1
    print("pyblosc2: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
