#!/usr/bin/env python3
"""The table of scripts/tune-goals.sh: one row per search of the `coalesce
tune` documents given (docs/results-format.md, "kind": "tune"): the default's
and the tuned time (tune's side-by-side timing at the end of the search),
default / tuned, candidates run of the space, status, the configuration
chosen. Exit 1 if a search failed or a tuned time is over its default's.
  tune-goals.py DEVICE FILE.json..."""
import json
import sys


def chosen(r):
    if r.get("best") is None:
        return "-"
    c = r["candidates"][r["best"]]
    if c["default"]:
        return "the default"
    words = [f"{k}={v}" for k, v in c["params"].items()]
    if c["local"]:
        words.append("local=" + "x".join(str(v) for v in c["local"] if v))
    return " ".join(words)


def main():
    device, files = sys.argv[1], sys.argv[2:]
    rows, skipped, bad, stopped = [], {}, [], []
    meta = None
    for path in files:
        doc = json.load(open(path))
        meta = meta or doc["meta"]
        for r in doc["results"]:
            if r["kind"] != "tune":
                continue
            what = f"{r['workload']}/{r['variant']}"
            sizes = " ".join(f"{k}={v}" for k, v in r["sizes"].items())
            if r["status"] == "unsupported" and "candidates" not in r:
                skipped.setdefault(r["workload"], []).append(r["variant"])
                continue
            if r["status"] == "interrupted":
                stopped.append(f"{what} {sizes}")
                rows.append((what, sizes, None, None, None, "-", r["status"], "-"))
                continue
            if "candidates" not in r or r["status"] != "ok":
                bad.append(f"{what} {sizes}: {r['status']}: {r['message']}")
                rows.append((what, sizes, None, None, None, "-", r["status"], "-"))
                continue
            d, t = r["default_ms"], r["best_ms"]
            if t > d:
                bad.append(f"{what} {sizes}: tuned {t:.4g} ms over the default's {d:.4g} ms")
            # candidates of the space (a work-group probe the variant refused is run, not in it)
            ran = f"{round(r['covered'] * r['space'])}/{r['space']:.0f} ({100 * r['covered']:.3g}%)"
            rows.append((what, sizes, d, t, d / t, ran, r["status"], chosen(r)))
    if meta:
        names = ", ".join(f"{d['spec']} {d['name']} (driver {d['driver']})" for d in meta["devices"])
        print(f"\ntune-goals on {device}: {names}; coalesce {meta['coalesce']} {meta['commit'] or ''},"
              f" {meta['date']}, host {meta['host']}")
    head = ("variant", "sizes", "default ms", "tuned ms", "ratio", "run/space", "status", "chosen")
    print(f"{head[0]:<22} {head[1]:<44} {head[2]:>11} {head[3]:>11} {head[4]:>6}  {head[5]:<26} "
          f"{head[6]:<8} {head[7]}")
    for what, sizes, d, t, ratio, ran, st, ch in rows:
        fig = (lambda x, f: format(x, f) if x is not None else format("-", ">" + f.split(".")[0]))
        print(f"{what:<22} {sizes[:44]:<44} {fig(d, '11.4f')} {fig(t, '11.4f')} "
              f"{fig(ratio, '6.2f')}  {ran:<26} {st:<8} {ch}")
    if skipped:
        print(f"not on {device}: " + "; ".join(f"{w} {', '.join(v)}" for w, v in skipped.items()))
    ok = sum(1 for r in rows if r[2] is not None)
    if stopped:
        print(f"interrupted, not counted: {', '.join(stopped)}")
    if bad:
        print(f"{len(bad)} of {len(rows)} searches FAIL the goal (tuned <= default, every search ran):")
        for line in bad:
            print("  " + line)
        return 1
    print(f"all {ok} searches that finished: tuned <= default (timed side by side by tune)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
