#!/usr/bin/env python3
"""A markdown table from `coalesce il ... --json` documents (schema 1, kind
"il": docs/results-format.md): a row per kernel with its registers, spills,
shared memory, occupancy, global loads by width (scalar/2-wide/4-wide),
FMAs and barriers, as the compiler output named in `format` counts them.

    scripts/il-table.py DIR_OR_FILE... > table.md

A directory is read for its *.json files, in name order. To make one for
every GPU variant (bash, from the repository root):

    mkdir -p il
    for w in $(build/coalesce list | awk '/^[a-z]+:/ {sub(":", "", $1); print $1}'); do
      for v in $(build/coalesce list | awk -v w="$w:" '$1 == w {on = 1; next} \\
                 /^[a-z]/ {on = 0} on && /^    / {print $1}'); do
        build/coalesce il $w --variant $v --device cuda --show sass --json > il/$w-$v.json \\
          2> il/$w-$v.err || rm il/$w-$v.json
      done
    done
    scripts/il-table.py il
"""
import json
import os
import sys


def documents(args):
    for a in args:
        if os.path.isdir(a):
            for name in sorted(os.listdir(a)):
                if name.endswith(".json"):
                    yield os.path.join(a, name)
        else:
            yield a


def cell(v, fmt="{}"):
    return "-" if v is None else fmt.format(v)


def row(r, k):
    res = [r["workload"], r["variant"], r["device"]["spec"], r["format"], k["entry"]]
    res.append(r["params"] or "-")
    res.append(cell(k["registers"]))
    spills = (k["spill_stores"], k["spill_loads"])
    res.append("-" if None in spills else f"{spills[0]} / {spills[1]}")
    shared = cell(k["shared_bytes"])
    if k["dynamic_local"]:
        shared += f" + {k['dynamic_local']} given"
    res.append(shared)
    occ = "-"
    if k["occupancy"] is not None:
        occ = f"{100 * k['occupancy']:.0f}%"
        if k["groups_per_cu"] is not None:
            occ += f" ({k['groups_per_cu']} groups)"
    res.append(occ)
    m = k["mix"]
    if m is None:
        res += ["-", "-", "-"]
    else:
        res += ["/".join(str(x) for x in m["ld_global"]), str(m["fma"]), str(m["barrier"])]
    return res


def main(args):
    if not args or args[0] in ("-h", "--help"):
        sys.exit(__doc__)
    cols = ["workload", "variant", "device", "format", "kernel", "tunables", "registers",
            "spills (B st / ld)", "shared (B)", "occupancy", "global loads s/2/4", "FMAs",
            "barriers"]
    rows = []
    for path in documents(args):
        try:
            doc = json.load(open(path))
        except (OSError, ValueError) as e:
            sys.exit(f"{path}: not a JSON document ({e})")
        if doc.get("schema") != 1:
            sys.exit(f"{path}: not a schema 1 result document")
        results = [r for r in doc["results"] if r.get("kind") == "il"]
        if not results:
            print(f"{path}: no il results, skipped", file=sys.stderr)
        for r in results:
            rows += [row(r, k) for k in r["kernels"]]
    if not rows:
        sys.exit("no il results in " + " ".join(args))
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for x in rows:
        print("| " + " | ".join(x) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
