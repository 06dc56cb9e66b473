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
