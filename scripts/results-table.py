#!/usr/bin/env python3
"""Markdown tables from `coalesce bench --json` documents (schema 1,
docs/results-format.md): per size, every variant on every device with
GFLOP/s (or GB/s), the ratio to the workload's anchor library on the same
device, and to cuBLAS where it ran."""
import json
import sys
from collections import defaultdict


def size_key(r):
    return " ".join(f"{k}={v}" for k, v in r["sizes"].items())


def main(path):
    doc = json.load(open(path))
    if doc.get("schema") != 1:
        sys.exit(f"{path}: not a schema 1 result document")
    by_size = defaultdict(list)
    for r in doc["results"]:
        if r.get("kind") == "run":
            by_size[(r["workload"], size_key(r))].append(r)
    for (workload, size), group in by_size.items():
        ok = [r for r in group if r["status"] in ("ok", "verify")]
        # The figure of the workload's bound: GFLOP/s against an FMA ceiling,
        # GB/s against a bandwidth one.
        compute = any((r["ceiling"] or {}).get("unit") == "GFLOP/s" for r in ok) or \
            not any("gbps" in r["rates"] for r in ok)
        rate = "gflops" if compute else "gbps"
        unit = "GFLOP/s" if compute else "GB/s"
        extra = [k for k in (ok[0]["rates"] if ok else {}) if k not in ("gflops", "gbps")]
        cublas = next((r for r in ok if r["variant"] == "cublas"), None)
        print(f"\n### {workload} {size}\n")
        cols = ["device", "variant", "verified", "median ms", unit, "of peak"]
        cols += [ok[0]["rates"][k]["unit"] for k in extra]
        cols += ["vs anchor (same device)"] + (["vs cuBLAS"] if cublas else [])
        print("| " + " | ".join(cols) + " |")
        print("|" + "---|" * len(cols))
        for r in group:
            spec = r["device"]["spec"]
            if r["status"] not in ("ok", "verify"):
                print(f"| {spec} | {r['variant']} | error: {r.get('message') or ''} |")
                continue
            median = r["times_ms"]["median"]
            figure = r["rates"].get(rate)
            cells = [spec, r["variant"], "yes" if r["verified"] else "NO", f"{median:.3f}",
                     f"{figure['value']:.1f}" if figure else "-",
                     f"{100 * r['fraction']:.0f}% {r['ceiling']['name']}" if r["fraction"] else "-"]
            cells += [f"{r['rates'][k]['value']:.4g}" if k in r["rates"] else "-" for k in extra]
            a = r["vs_anchor"]
            cells.append(f"{a['ratio']:.2f}x {a['anchor']}" if a else "-")
            if cublas:
                cells.append(f"{cublas['times_ms']['median'] / median:.2f}x")
            print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
