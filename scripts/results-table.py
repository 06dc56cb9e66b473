#!/usr/bin/env python3
"""Markdown tables from `coalesce bench --json` output: per size, every
variant on every device with GFLOP/s (or GB/s), the ratio to the workload's
anchor library on the same device, and to the best anchor of any device."""
import json
import sys
from collections import defaultdict


def size_key(r):
    return " ".join(f"{k}={r[k]}" for k in ("m", "n", "k", "n_", "width", "height") if k in r)


def main(path):
    rows = json.load(open(path))
    if isinstance(rows, dict):
        rows = [rows]
    by_size = defaultdict(list)
    for r in rows:
        by_size[(r["workload"], size_key(r))].append(r)
    for (workload, size), group in by_size.items():
        ok = [r for r in group if r.get("status") in ("ok", "verify")]
        rate = "gflops" if any("gflops" in r for r in ok) else "gbps"
        unit = "GFLOP/s" if rate == "gflops" else "GB/s"
        anchors = {r["device"]: r for r in ok if r.get("variant") in ("cublas", "clblast", "openblas")}
        cublas = next((r for r in ok if r["variant"] == "cublas"), None)
        print(f"\n### {workload} {size}\n")
        header = f"| device | variant | verified | median ms | {unit} | vs anchor (same device) |"
        if cublas:
            header += " vs cuBLAS |"
        print(header)
        print("|" + "---|" * (header.count("|") - 1))
        for r in group:
            if r.get("status") not in ("ok", "verify"):
                print(f"| {r['device']} | {r['variant']} | error: {r.get('message', '')} |")
                continue
            anchor = f"{r['vs_anchor']:.2f}x {r['anchor']}" if "vs_anchor" in r else "-"
            line = (f"| {r['device']} | {r['variant']} | {'yes' if r['verified'] else 'NO'} | "
                    f"{r['median_ms']:.3f} | {r.get(rate, 0):.1f} | {anchor} |")
            if cublas:
                line += f" {cublas['median_ms'] / r['median_ms']:.2f}x |"
            print(line)


if __name__ == "__main__":
    main(sys.argv[1])
