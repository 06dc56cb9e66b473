#!/usr/bin/env python3
"""Markdown tables from `coalesce bench --json` output: per size, every
variant on every device with GFLOP/s (or GB/s), the ratio to the workload's
anchor library on the same device, and to the best anchor of any device."""
import json
import sys
from collections import defaultdict


# Fields of a result that are not its sizes (coalesce bench --json).
RESULT_FIELDS = {"workload", "variant", "device", "device_name", "params", "local", "status",
                 "message", "verified", "check", "error", "tolerance", "reps", "median_ms",
                 "kernel_ms", "total_ms", "min_ms", "gflops", "gbps", "speedup_vs_c", "anchor",
                 "vs_anchor", "ceiling", "ceiling_name", "fraction"}


def size_key(r):
    return " ".join(f"{k}={v}" for k, v in r.items()
                    if k not in RESULT_FIELDS and "_per_s" not in k)


def main(path):
    rows = json.load(open(path))
    if isinstance(rows, dict):
        rows = [rows]
    by_size = defaultdict(list)
    for r in rows:
        by_size[(r["workload"], size_key(r))].append(r)
    for (workload, size), group in by_size.items():
        ok = [r for r in group if r.get("status") in ("ok", "verify")]
        # The figure of the workload's bound: GFLOP/s against an FMA ceiling,
        # GB/s against a bandwidth one.
        compute = any(r.get("ceiling_name", "").startswith("fma") for r in ok) or \
            not any("gbps" in r for r in ok)
        rate = "gflops" if compute else "gbps"
        unit = "GFLOP/s" if rate == "gflops" else "GB/s"
        rates = [k for k in (ok[0] if ok else {}) if k.endswith("_per_s")]
        cublas = next((r for r in ok if r["variant"] == "cublas"), None)
        print(f"\n### {workload} {size}\n")
        cols = ["device", "variant", "verified", "median ms", unit, "of peak"]
        cols += [k[:-len("_per_s")] + "/s" for k in rates]
        cols += ["vs anchor (same device)"] + (["vs cuBLAS"] if cublas else [])
        print("| " + " | ".join(cols) + " |")
        print("|" + "---|" * len(cols))
        for r in group:
            if r.get("status") not in ("ok", "verify"):
                print(f"| {r['device']} | {r['variant']} | error: {r.get('message', '')} |")
                continue
            cells = [r["device"], r["variant"], "yes" if r["verified"] else "NO",
                     f"{r['median_ms']:.3f}", f"{r.get(rate, 0):.1f}",
                     f"{100 * r['fraction']:.0f}% {r['ceiling_name']}" if "fraction" in r else "-"]
            cells += [f"{r[k]:.4g}" for k in rates]
            cells.append(f"{r['vs_anchor']:.2f}x {r['anchor']}" if "vs_anchor" in r else "-")
            if cublas:
                cells.append(f"{cublas['median_ms'] / r['median_ms']:.2f}x")
            print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
