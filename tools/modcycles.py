#!/usr/bin/env python3
"""Import cycles between the source files of the library (`src/`, not `src/bin`).

Each file is a module (`src/a/b.rs` and `src/a/b/mod.rs` are `crate::a::b`). A file depends on
the module a path of its names: `use crate::x::y::{..}`, `super::..`, `self::..`, or an inline
`crate::x::y::f(..)`; the path resolves to the deepest module file it names. A module's own
submodules are not dependencies of it (declaring and re-exporting its parts is how a module is
built); everything else is, children's uses of their parent included. The check: no cycle in
that graph, i.e. a lower module never imports from a higher one.

usage: tools/modcycles.py [--check] [--graph]
  --check  exit 1 when there is a cycle (a step of tools/test.sh)
  --graph  print every file's dependencies
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")


def modules():
    """module path tuple -> file"""
    out = {}
    for dirpath, dirs, files in os.walk(ROOT):
        rel = os.path.relpath(dirpath, ROOT)
        if rel.split(os.sep)[0] == "bin":
            continue
        files = [f for f in files if f != "tests.rs"]
        parts = [] if rel == "." else rel.split(os.sep)
        for f in files:
            if not f.endswith(".rs"):
                continue
            if f in ("lib.rs",) and not parts:
                out[()] = os.path.join(dirpath, f)
            elif f == "mod.rs":
                out[tuple(parts)] = os.path.join(dirpath, f)
            else:
                out[tuple(parts + [f[:-3]])] = os.path.join(dirpath, f)
    return out


def strip_tests(src):
    """Drop inline `#[cfg(test)] mod x { .. }` modules: tests may use any module."""
    lines = src.split("\n")
    out, i = [], 0
    while i < len(lines):
        ln = lines[i]
        if ln.strip() == "#[cfg(test)]" and i + 1 < len(lines) and re.match(r"\s*(pub )?mod \w+ \{$", lines[i + 1]):
            indent = lines[i + 1][: len(lines[i + 1]) - len(lines[i + 1].lstrip())]
            j = i + 2
            while j < len(lines) and lines[j] != indent + "}":
                j += 1
            i = j + 1
            continue
        out.append(ln)
        i += 1
    return "\n".join(out)


def strip_comments(src):
    src = re.sub(r"//[^\n]*", "", src)
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    # string literals (roughly): drop their contents
    src = re.sub(r'"(\\.|[^"\\])*"', '""', src)
    return src


def expand_use(tree):
    """`a::{b, c::{d, e}}` -> ['a::b', 'a::c::d', 'a::c::e']"""
    tree = tree.strip()
    i = tree.find("{")
    if i < 0:
        return [tree.split(" as ")[0].strip()]
    prefix = tree[:i]
    body = tree[i + 1 : tree.rfind("}")]
    parts, depth, cur = [], 0, ""
    for ch in body:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    parts.append(cur)
    out = []
    for p in parts:
        if p.strip():
            for e in expand_use(p):
                out.append(prefix + e if e != "self" else prefix.rstrip(":"))
    return out


def resolve(path, here, mods, is_mod_rs):
    segs = [s for s in path.split("::") if s]
    if not segs:
        return None
    if segs[0] == "crate":
        base, segs = [], segs[1:]
    elif segs[0] in ("super", "self"):
        base = list(here)
        while segs and segs[0] in ("super", "self"):
            if segs[0] == "super":
                if not base:
                    return None
                base.pop()
            segs = segs[1:]
    else:
        # a path relative to the current module (a child module's name), or an external crate
        base = list(here)
        if not segs or tuple(base + [segs[0]]) not in mods:
            return None
    best = tuple(base) if tuple(base) in mods else None
    cur = list(base)
    for s in segs:
        cur.append(s)
        if tuple(cur) in mods:
            best = tuple(cur)
        else:
            break
    return best


def deps(mods):
    graph = {}
    for m, f in mods.items():
        src = strip_comments(strip_tests(open(f).read()))
        paths = []
        for u in re.finditer(r"\buse\s+([^;]+);", src):
            paths.extend(expand_use(u.group(1)))
        for p in re.finditer(r"\b((?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+)", src):
            paths.append(p.group(1))
        out = set()
        for p in paths:
            p = re.sub(r"\s+", "", p)
            if p.startswith("pub"):
                continue
            t = resolve(p, m, mods, f.endswith("mod.rs"))
            if t is None or t == m:
                continue
            if t[: len(m)] == m:  # own submodule
                continue
            out.add(t)
        graph[m] = out
    return graph


def sccs(graph):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def name(m):
    return "crate::" + "::".join(m) if m else "crate"


def main():
    mods = modules()
    graph = deps(mods)
    if "--graph" in sys.argv:
        for m in sorted(graph):
            print(name(m), "->", ", ".join(name(t) for t in sorted(graph[m])))
    cyc = sccs(graph)
    for c in cyc:
        print("cycle:", " <-> ".join(name(m) for m in c))
        for a in c:
            for b in sorted(graph[a]):
                if b in c:
                    print(f"    {name(a)} uses {name(b)}")
    if not cyc:
        print(f"no import cycles between the {len(mods)} files of src/ (src/bin apart)")
    if "--check" in sys.argv and cyc:
        sys.exit(1)


main()
