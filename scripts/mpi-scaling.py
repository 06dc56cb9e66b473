#!/usr/bin/env python3
"""Strong and weak scaling tables from coalesce-mpi documents (scripts/mpi-scaling.sh):
  mpi-scaling.py FILE.json...   (each WORKLOAD-MODE-NP.json)
Per workload and mode, a row per rank count: the distributed run's median time, compute,
communication (MPI, waiting included) and staging (host<->device copies for MPI), the share
of the time outside compute ((communication + staging) / time), the speedup over 1 rank and
the efficiency (strong: T1 / (N TN); weak: T1 / TN), and rank 0's single-device run of the
same problem, in the same invocation."""
import json
import os
import re
import sys


def load(path):
    doc = json.load(open(path))
    dist = [r for r in doc["results"] if r.get("role") == "distributed"]
    single = [r for r in doc["results"] if r.get("role") == "single-device"]
    if not dist:
        return None
    r = dist[0]
    m = r["mpi"]
    sizes = " ".join(f"{k}={v}" for k, v in r["sizes"].items())
    return {
        "np": m["ranks"],
        "sizes": sizes,
        "ms": r["times_ms"]["median"],
        "compute": m["compute_ms"],
        "comm": m["comm_ms"],
        "stage": m["staging_ms"],
        "share": m["comm_share"],
        "single": single[0]["times_ms"]["median"] if single else None,
        "ok": r.get("verified", False),
        "variant": r["variant"],
        "device": m["rank_devices"][0]["device"]["spec"],
        "date": doc["meta"]["date"],
        "host": doc["meta"]["host"],
        "cpu": doc["meta"]["cpu"],
    }


def main():
    groups = {}
    meta = None
    for path in sys.argv[1:]:
        name = re.match(r"(\w+)-(strong|weak)-(\d+)\.json$", os.path.basename(path))
        if not name:
            continue
        row = load(path)
        if row is None:
            continue
        meta = meta or row
        groups.setdefault((name.group(1), name.group(2)), []).append(row)
    if meta:
        print(f"{meta['date']}, host {meta['host']} ({meta['cpu']}), ranks on {meta['device']}\n")
    for (workload, mode), rows in sorted(groups.items()):
        rows.sort(key=lambda r: r["np"])
        base = rows[0] if rows[0]["np"] == 1 else None
        print(f"#### {workload}, {mode} scaling ({rows[0]['variant']})\n")
        print("| ranks | sizes | median ms | compute | comm | staging | outside compute | "
              "speedup | efficiency | single device ms | verified |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            speedup = eff = "-"
            if base:
                s = base["ms"] / r["ms"]
                e = s / r["np"] if mode == "strong" else base["ms"] / r["ms"]
                speedup = f"{s:.2f}x" if mode == "strong" else "-"
                eff = f"{100 * e:.0f}%"
            single = f"{r['single']:.3f}" if r["single"] else "-"
            print(f"| {r['np']} | {r['sizes']} | {r['ms']:.3f} | {r['compute']:.3f} | "
                  f"{r['comm']:.3f} | {r['stage']:.3f} | {100 * r['share']:.0f}% | {speedup} | "
                  f"{eff} | {single} | {'yes' if r['ok'] else 'NO'} |")
        print()


if __name__ == "__main__":
    main()
