#!/usr/bin/env python3
"""Validate coalesce result documents against docs/results.schema.json
(python3-jsonschema), and the rules a schema cannot say: a run's rates are
keyed by unit, and figures that do not apply are null or absent, never 0.
  check_results.py SCHEMA FILE.json...   (FILE "-": stdin)"""
import json
import sys

import jsonschema


def check(doc, where):
    problems = []
    for i, r in enumerate(doc.get("results", [])):
        if r.get("kind") == "tune" and "candidates" in r:
            problems += check_tune(r, f"{where}: result {i}")
        if r.get("kind") != "run" or r.get("status") not in ("ok", "verify"):
            continue
        for key, rate in r["rates"].items():
            if key.replace("_", "-") + "/s" != rate["unit"] and key not in ("gflops", "gbps"):
                problems.append(f"{where}: result {i}: rate '{key}' has unit '{rate['unit']}'")
        if r["flops"] is None and "gflops" in r["rates"]:
            problems.append(f"{where}: result {i}: GFLOP/s without flops")
        if (r["ceiling"] is None) != (r["fraction"] is None):
            problems.append(f"{where}: result {i}: a fraction needs its ceiling")
    return problems


def check_tune(r, where):
    """A search: the default first and only there, the best flagged where the
    index says, every candidate that ran ok verified and timed, the choice
    no slower than the default side by side."""
    problems = []
    c = r["candidates"]
    if len(c) != r["candidates_run"]:
        problems.append(f"{where}: {len(c)} candidates, candidates_run {r['candidates_run']}")
    if [x["default"] for x in c] != [True] + [False] * (len(c) - 1):
        problems.append(f"{where}: the default must be candidate 0 and only it")
    flagged = [k for k, x in enumerate(c) if x["best"]]
    if flagged != ([] if r["best"] is None else [r["best"]]):
        problems.append(f"{where}: best {r['best']}, candidates flagged best {flagged}")
    for k, x in enumerate(c):
        if x["status"] == "ok" and (not x["verified"] or x["median_ms"] is None):
            problems.append(f"{where}: candidate {k} ok but not verified and timed")
        if x["status"] != "ok" and not x["message"]:
            problems.append(f"{where}: candidate {k} is '{x['status']}' without a message")
        for name in r["unread"]:  # not searched: held at the default's value
            if x["params"][name] != c[0]["params"][name]:
                problems.append(f"{where}: candidate {k} moves {name}, which is in unread")
    if r["best"] is not None:
        b = c[r["best"]]
        if b["status"] != "ok":
            problems.append(f"{where}: the best candidate is '{b['status']}'")
        if r["best_ms"] is None or r["default_ms"] is None or r["best_ms"] > r["default_ms"]:
            problems.append(f"{where}: best_ms {r['best_ms']} over default_ms {r['default_ms']}")
    return problems


def main():
    schema = json.load(open(sys.argv[1]))
    validator = jsonschema.Draft202012Validator(schema)
    bad = []
    for path in sys.argv[2:]:
        text = sys.stdin.read() if path == "-" else open(path).read()
        try:
            doc = json.loads(text)
        except ValueError as e:
            bad.append(f"{path}: not JSON: {e}")
            continue
        for e in sorted(validator.iter_errors(doc), key=lambda e: list(e.path))[:5]:
            bad.append(f"{path}: {'/'.join(map(str, e.path))}: {e.message[:300]}")
        bad += check(doc, path)
    for line in bad:
        print("FAIL", line)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
