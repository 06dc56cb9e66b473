#!/bin/sh
# The result format (docs/results-format.md): every command's --json is one
# document that docs/results.schema.json accepts (checked by
# tests/check_results.py with python3-jsonschema); -o FILE keeps the document
# while the table goes to the terminal, rewritten row by row; CSV has the
# rate columns; compare matches results; help and list say what each takes.
#   test_results.sh path/to/coalesce SOURCE_DIR
CO=${1:?usage: test_results.sh path/to/coalesce SOURCE_DIR}
SRC=${2:?usage: test_results.sh path/to/coalesce SOURCE_DIR}
. "$(dirname "$0")/harness.sh"
valid() { python3 "$SRC/tests/check_results.py" "$SRC/docs/results.schema.json" "$@"; }
py() { python3 -c "$@"; }

if ! python3 -c "import jsonschema" 2>/dev/null; then
    echo "SKIP: python3-jsonschema is missing (make setup)"; exit 77
fi

# Every command's JSON against the schema.
"$CO" devices --json >"$tmp/devices.json" && valid "$tmp/devices.json" && ok || no "devices --json"
"$CO" peak --device c --json >"$tmp/peak.json" 2>/dev/null && valid "$tmp/peak.json" && ok || no "peak --json"
"$CO" run gemm --device c --size 8 --reps 2 --json >"$tmp/run.json" && valid "$tmp/run.json" && ok || no "run --json"
"$CO" run gemm --device c --size 8 --reps 2 --no-verify --json >"$tmp/nv.json" && valid "$tmp/nv.json" &&
    py 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; assert r["error"] is None and not r["verified"]' "$tmp/nv.json" &&
    ok || no "run --no-verify --json: error null"
"$CO" run collider --device c --balls 40 --width 20 --height 20 --steps 5 --reps 1 --json >"$tmp/col.json" &&
    valid "$tmp/col.json" && py '
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
assert r["sizes"]["balls"] == 40, r["sizes"]
assert r["rates"]["ball_steps"]["unit"] == "ball-steps/s", r["rates"]
assert "gflops" not in r["rates"] and r["flops"] is None, r' "$tmp/col.json" && ok || no "collider --json: rates keyed by unit, no flops"
"$CO" run boxfilter --device c --width 33 --height 9 --radius 2 --reps 1 --json >"$tmp/box.json" &&
    valid "$tmp/box.json" && py '
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
assert r["flops"] is None and "gflops" not in r["rates"], r' "$tmp/box.json" && ok || no "boxfilter --json: gflops absent, not 0"
# The box filter's table prints "-" where GFLOP/s does not apply, never 0.00. Its GB/s
# applies and may read 0.00 (2376 bytes: any run over 0.48 ms, one preemption on a loaded
# machine), so the columns are matched, not every " 0.00 ".
"$CO" bench boxfilter --device c --variant c --set "width=33 height=9 radius=2" --reps 1 >"$tmp/box.txt" 2>/dev/null &&
    grep -Eq "ok +[0-9.]+ +- +[0-9.]+ " "$tmp/box.txt" && ok ||
    no "bench boxfilter: n/a printed as '-': $(cat "$tmp/box.txt")"
"$CO" bench gemm --device c,omp --set "size=8" --reps 2 --json >"$tmp/bench.json" 2>/dev/null && valid "$tmp/bench.json" &&
    py 'import json,sys; d=json.load(open(sys.argv[1])); assert d["command"]=="bench" and len(d["results"])>=3 and [x["spec"] for x in d["meta"]["devices"]]==["c","omp"]' "$tmp/bench.json" &&
    ok || no "bench --json: one document, every device used in meta"
# A failed run is a result too, with its message and no figures.
# (the brute force declines 10^6 balls: a row with its status and message)
"$CO" bench collider --device c --variant c --set "balls=100000 steps=100000" --reps 1 --no-verify --json >"$tmp/fail.json" 2>/dev/null
valid "$tmp/fail.json" && py 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; assert r["status"]=="unsupported" and r["message"] and "times_ms" not in r, r' "$tmp/fail.json" &&
    ok || no "bench with a declined run: its row in the schema"
if "$CO" devices | grep -q "^nvrtc\|^cuda "; then :; fi
if "$CO" il copy --device nvrtc --json >"$tmp/il.json" 2>/dev/null; then
    valid "$tmp/il.json" && ok || no "il --json"
elif "$CO" il copy --device opencl:cpu --variant vec4 --n 1024 --json >"$tmp/il.json" 2>/dev/null; then
    valid "$tmp/il.json" && ok || no "il --json (PoCL)"
fi

# tune's database as a document (the searches' documents: test_tune.sh).
"$CO" tune --list --json >"$tmp/tl.json" && valid "$tmp/tl.json" &&
    py 'import json,sys; d=json.load(open(sys.argv[1])); assert d["command"]=="tune" and d["results"]==[] and d["database"]' "$tmp/tl.json" &&
    ok || no "tune --list --json"

# -o FILE: the table on stdout, the document in the file (no temp file left).
"$CO" bench gemm --device c --set "size=8" --reps 1 -o "$tmp/o.json" >"$tmp/o.txt" 2>/dev/null &&
    grep -q "^gemm m=8 n=8 k=8" "$tmp/o.txt" && valid "$tmp/o.json" &&
    py 'import json,sys; assert len(json.load(open(sys.argv[1]))["results"]) >= 1' "$tmp/o.json" &&
    [ -z "$(ls "$tmp" | grep '\.tmp\.')" ] && ok || no "bench -o: table to stdout, JSON to the file"
"$CO" run gemm --device c --size 8 --reps 1 -o "$tmp/run-o.json" >"$tmp/run-o.txt" &&
    grep -q "verified" "$tmp/run-o.txt" && valid "$tmp/run-o.json" && ok || no "run -o"
"$CO" peak --device c -o "$tmp/peak-o.json" >/dev/null 2>&1 && valid "$tmp/peak-o.json" && ok || no "peak -o"
"$CO" run gemm --device c --size 8 -o /proc/nope/x.json >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "cannot write '/proc/nope/x.json'" "$tmp/err" && ok || no "-o to an unwritable path: $(cat "$tmp/err")"
"$CO" devices -o "$tmp/d.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "devices does not take -o" "$tmp/err" && ok || no "devices -o refused"
# Rows are kept as they end: a bench stopped by SIGINT keeps its finished rows in the file.
# The signal goes once the first row (size 8) is in the file, so the handler is in place, and
# four rows of 512 are left, so it stops a run: exit 130, the rows before it, none after.
python3 - "$CO" "$tmp" <<'PY' && ok || no "bench -o interrupted: the finished rows are in the file"
import json, os, signal, subprocess, sys, time
co, tmp = sys.argv[1], sys.argv[2]
path = os.path.join(tmp, "int.json")
err = open(os.path.join(tmp, "int.err"), "w+")
p = subprocess.Popen([co, "bench", "gemm", "--device", "c", "--variant", "c", "--size", "8,512,512,512,512",
                      "--reps", "3", "-o", path], stdout=subprocess.DEVNULL, stderr=err)
try:
    # The first row says when, not a time: loaded (ASan, another make test), it comes late.
    rows, deadline = [], time.monotonic() + 300
    while not rows and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
        try:
            rows = json.load(open(path))["results"]
        except (OSError, ValueError, KeyError):
            pass
    assert rows and p.poll() is None, ("no row, or the bench ended first", p.returncode)
    p.send_signal(signal.SIGINT)
    code = p.wait(timeout=300)
finally:
    if p.poll() is None:
        p.kill()
err.seek(0)
why = err.read()
doc = json.load(open(path))
assert code == 130 and "interrupted" in why, (code, why)
assert 1 <= len(doc["results"]) < 5 and all(r["status"] == "ok" for r in doc["results"]), doc["results"]
PY

# CSV: the same columns on every row, the rates included.
"$CO" bench collider --device c --variant c --set "balls=30 width=20 height=20 steps=3" --reps 1 --csv >"$tmp/c.csv" 2>/dev/null &&
    python3 - "$tmp/c.csv" <<'PY' && ok || no "csv: columns and rates"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and all(None not in r for r in rows), "ragged rows"
r = rows[0]
assert "ball-steps/s=" in r["rates"], r["rates"]
assert r["gflops"] == "" and r["tuned"] == "false", r
PY
"$CO" bench collider --device c --variant c --set "balls=100000 steps=100000" --reps 1 --no-verify --csv >"$tmp/f.csv" 2>/dev/null
python3 -c 'import csv,sys; rows=list(csv.reader(open(sys.argv[1]))); assert len(set(map(len, rows))) == 1, [len(r) for r in rows]' "$tmp/f.csv" &&
    ok || no "csv: a failed row has every column"

# compare: matched by workload, variant, device and sizes; the ratio; the spread.
python3 - "$tmp/bench.json" "$tmp/slow.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    if r["variant"] == "c":
        r["times_ms"]["median"] *= 3; r["times_ms"]["min"] *= 3
json.dump(d, open(sys.argv[2], "w"))
PY
"$CO" compare "$tmp/bench.json" "$tmp/slow.json" >"$tmp/cmp.txt" && grep -Eq "^gemm .* c +c .*3\.000x .*slower" "$tmp/cmp.txt" &&
    grep -q "changed beyond their spread" "$tmp/cmp.txt" && ok || no "compare: $(cat "$tmp/cmp.txt")"
"$CO" compare "$tmp/bench.json" "$tmp/slow.json" --json >"$tmp/cmp.json" && valid "$tmp/cmp.json" &&
    py 'import json,sys; d=json.load(open(sys.argv[1])); ch={r["variant"]:r["change"] for r in d["results"]}; assert ch["c"]=="slower" and d["meta"]["matched"]>=3, ch' "$tmp/cmp.json" &&
    ok || no "compare --json"
"$CO" compare "$tmp/bench.json" "$tmp/bench.json" --json | py 'import json,sys; assert all(r["change"]=="same" for r in json.load(sys.stdin)["results"])' &&
    ok || no "compare: a file with itself changes nothing"
# The spread decides: 5% slower is "slower" between tight runs (spread 0, the 2%
# threshold) and "same" between runs that spread 20% (min 0.8 of the median).
python3 - "$tmp/bench.json" "$tmp/tight.json" "$tmp/tight5.json" "$tmp/loose5.json" <<'PY'
import copy, json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    r["times_ms"]["min"] = r["times_ms"]["median"]
json.dump(d, open(sys.argv[2], "w"))
t, l = copy.deepcopy(d), copy.deepcopy(d)
for r in t["results"]:
    r["times_ms"]["median"] *= 1.05; r["times_ms"]["min"] = r["times_ms"]["median"]
for r in l["results"]:
    r["times_ms"]["median"] *= 1.05; r["times_ms"]["min"] = 0.8 * r["times_ms"]["median"]
json.dump(t, open(sys.argv[3], "w")); json.dump(l, open(sys.argv[4], "w"))
PY
"$CO" compare "$tmp/tight.json" "$tmp/tight5.json" --json | py 'import json,sys; assert {r["change"] for r in json.load(sys.stdin)["results"]} == {"slower"}' &&
    "$CO" compare "$tmp/tight.json" "$tmp/loose5.json" --json | py '
import json, sys
rs = json.load(sys.stdin)["results"]
assert {r["change"] for r in rs} == {"same"} and all(abs(r["threshold"] - 0.2) < 1e-9 for r in rs), rs' &&
    ok || no "compare: a change flagged only beyond the runs' spread"
echo '{"schema": 2, "results": []}' >"$tmp/s2.json"
"$CO" compare "$tmp/bench.json" "$tmp/s2.json" 2>"$tmp/err"; [ $? -eq 1 ] && grep -q "schema 2" "$tmp/err" && ok || no "compare: another schema"
"$CO" compare "$tmp/bench.json" 2>"$tmp/err"; [ $? -eq 2 ] && grep -q "two result files" "$tmp/err" && ok || no "compare: one file"

# Help: every command, both spellings; run --help is not "needs a value".
for c in devices list run bench peak il tune compare report; do
    "$CO" help $c >"$tmp/h1" 2>&1 && "$CO" $c --help >"$tmp/h2" 2>&1 && grep -q "usage: coalesce $c" "$tmp/h1" &&
        cmp -s "$tmp/h1" "$tmp/h2" && ok || no "help $c / $c --help: $(head -2 "$tmp/h2")"
done
"$CO" run gemm --device --help >/dev/null 2>&1 && ok || no "run gemm --device --help"
"$CO" help nope 2>"$tmp/err"; [ $? -eq 2 ] && grep -q "no help for 'nope'" "$tmp/err" && ok || no "help nope"
# list WORKLOAD: option help and defaults; tunables with range and both defaults.
"$CO" list gemm >"$tmp/list.txt" && grep -q -- "--size .*(default: 512)" "$tmp/list.txt" &&
    grep -Eq "TSM +.*4\.\.256 \(a power of two\), default 64, on GPUs 128" "$tmp/list.txt" &&
    grep -Eq "TS +tile edge.*1\.\.512, default 16" "$tmp/list.txt" && ok || no "list gemm: $(head -20 "$tmp/list.txt")"
"$CO" list nope 2>"$tmp/err"; [ $? -eq 2 ] && grep -q "unknown workload 'nope'" "$tmp/err" && ok || no "list nope"

summary results
