#!/usr/bin/env bash
# Documentation coverage of the Rust API, as rustdoc counts it
# (`rustdoc -Z unstable-options --show-coverage`, through RUSTC_BOOTSTRAP=1 on the stable
# toolchain).
#
#   tools/doc_coverage.sh           print the table: per file, the items rustdoc counts, how many
#                                   are documented, how many should have an example and how many
#                                   have one (a code block that is a doctest)
#   tools/doc_coverage.sh --check   the same, then exit non-zero unless every item outside
#                                   src/capi/ is documented and every such item that rustdoc
#                                   expects an example for has one
#
# src/capi/ is left out of the check: it is the C API (extern "C" functions, #[repr(C)] types and
# the C constants), documented for C callers in include/ and the C-Blosc2 docs, not the Rust API.
# Its rows are still printed. Modules, constants, statics, type aliases, struct fields and enum
# variants need no example (rustdoc does not count them); trait impls are not counted either.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

check=0
case "${1:-}" in
--check) check=1 ;;
"") ;;
*)
    echo "usage: $0 [--check]" >&2
    exit 2
    ;;
esac

json="$(RUSTC_BOOTSTRAP=1 cargo rustdoc -p b2rs --release --lib --quiet -- \
    -Z unstable-options --show-coverage --output-format json)"

CHECK="$check" python3 -c '
import json, os, sys

cov = json.loads(sys.stdin.read())
check = os.environ["CHECK"] == "1"
rows = sorted(cov.items())
w = max(len(f) for f, _ in rows + [("Total (outside src/capi)", None)])
head = f"| {{:<{w}}} | {{:>7}} | {{:>10}} | {{:>13}} | {{:>8}} |"
line = "+-" + "-" * w + "-+---------+------------+---------------+----------+"
print(line)
print(head.format("File", "Items", "Documented", "Need examples", "Examples"))
print(line)
tot = {"core": [0, 0, 0, 0], "capi": [0, 0, 0, 0]}
missing = []
for f, c in rows:
    v = [c["total"], c["with_docs"], c["total_examples"], c["with_examples"]]
    part = "capi" if f.startswith("src/capi/") else "core"
    tot[part] = [a + b for a, b in zip(tot[part], v)]
    mark = ""
    if part == "core" and (v[1] < v[0] or v[3] < v[2]):
        mark = "  <- missing"
        missing.append((f, v[0] - v[1], v[2] - v[3]))
    print(head.format(f, *v) + mark)
print(line)
print(head.format("Total (outside src/capi)", *tot["core"]))
print(head.format("Total (src/capi)", *tot["capi"]))
print(line)
if missing:
    print()
    for f, nodoc, noex in missing:
        print(f"{f}: {nodoc} undocumented, {noex} without an example")
if check and missing:
    n = sum(a + b for _, a, b in missing)
    print(f"doc_coverage: {n} items outside src/capi lack documentation or an example",
          file=sys.stderr)
    sys.exit(1)
if check:
    c = tot["core"]
    print(f"doc_coverage: ok: {c[1]}/{c[0]} items documented, {c[3]}/{c[2]} with examples "
          "(outside src/capi)")
' <<<"$json"
