#!/bin/sh
# coalesce report in headless Chromium: the page loads with no console
# errors, every chart is there (ids), a screenshot is not blank (PNG with
# many colours, python3-pil), and the figures in the page (data-*
# attributes, read from the DOM Chromium built) equal those in the JSON:
# the rooflines' points, the box filter's radii, the speedups, and (where
# PoCL is here) the tuning landscapes' candidates.
#   test_report.sh path/to/coalesce SOURCE_DIR     (exit 77: no chromium)
CO=${1:?usage: test_report.sh path/to/coalesce SOURCE_DIR}
SRC=${2:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
COALESCE_CACHE_DIR="$tmp/cache"
export COALESCE_CACHE_DIR
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
[ -n "$chrome" ] || { echo "SKIP: no chromium (make setup installs Debian's)"; exit 77; }
# Debian's python3-pil is in /usr/bin/python3's path, not always in another python3's.
PY=
for p in python3 /usr/bin/python3; do "$p" -c "import PIL" 2>/dev/null && PY=$p && break; done
[ -n "$PY" ] || { echo "SKIP: python3-pil is missing"; exit 77; }
fail=0
no() { echo "FAIL $*"; fail=1; }

"$CO" bench gemm --device c,omp --set size=32 --reps 2 -o "$tmp/gemm.json" >/dev/null 2>&1 || no "bench gemm"
"$CO" bench boxfilter --device c,omp --set "width=64 height=32 radius=1" --set "width=64 height=32 radius=4" \
    --reps 2 -o "$tmp/box.json" >/dev/null 2>&1 || no "bench boxfilter"
"$CO" peak --device c -o "$tmp/peak.json" >/dev/null 2>&1 || no "peak"
"$CO" run collider --device c --balls 30 --width 20 --height 20 --steps 2 --reps 1 --image "$tmp/col.png" >/dev/null || no "collider --image"
# Tuning landscapes: the thesis's tiles (one dimension: time against TS, TS=128
# over PoCL's work-group limit) and a sampled wpt search (against the order run).
tunes=
if "$CO" devices 2>/dev/null | grep -q "^opencl:0"; then
    "$CO" tune --preset thesis --device opencl --size 32 --budget 120 -o "$tmp/tune1.json" >/dev/null 2>&1 || no "tune thesis"
    "$CO" tune gemm --device opencl --variant wpt --size 64 --budget 3 --strategy random -o "$tmp/tune2.json" \
        >/dev/null 2>&1 || no "tune wpt"
    tunes="$tmp/tune1.json $tmp/tune2.json"
    for f in $tunes; do
        python3 -c 'import json,sys; [r] = json.load(open(sys.argv[1]))["results"]; assert r["candidates"]' "$f" ||
            no "$f has no search: $(cat "$f")"
    done
else
    echo "no OpenCL device: the tuning landscapes are not drawn"
fi
# shellcheck disable=SC2086
"$CO" report "$tmp/gemm.json" "$tmp/box.json" "$tmp/peak.json" $tunes --image "$tmp/col.png" -o "$tmp/report.html" ||
    no "report"
# Self-contained: nothing fetched.
grep -Eq "(src|href)=['\"]?(https?:|//)" "$tmp/report.html" && no "the page refers to the network"
"$CO" report "$tmp/gemm.json" 2>"$tmp/err"; [ $? -eq 2 ] && grep -q "needs -o" "$tmp/err" || no "report without -o"
"$CO" report "$tmp/nope.json" -o "$tmp/x.html" 2>"$tmp/err"; [ $? -eq 1 ] && grep -q "cannot read" "$tmp/err" || no "report of a missing file"

flags="--headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run --user-data-dir=$tmp/profile"
# shellcheck disable=SC2086
timeout 120 "$chrome" $flags --enable-logging=stderr --v=0 --dump-dom "file://$tmp/report.html" \
    >"$tmp/dom.html" 2>"$tmp/console.txt" || no "chromium --dump-dom"
# shellcheck disable=SC2086
timeout 120 "$chrome" $flags --window-size=1200,2000 --screenshot="$tmp/shot.png" "file://$tmp/report.html" \
    >/dev/null 2>&1 || no "chromium --screenshot"
grep -E "CONSOLE|Uncaught|SyntaxError|Refused to" "$tmp/console.txt" && no "console messages"
"$PY" - "$tmp" <<'PY' || fail=1
import html.parser, json, math, os, sys
tmp = sys.argv[1]
fail = []
class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(); self.els = []; self.body = {}; self.svg = {}
    def handle_starttag(self, tag, attrs):
        a = dict(attrs); a["_tag"] = tag; a["_svg"] = self.svg; self.els.append(a)
        if tag == "body": self.body = a
        if tag == "svg": self.svg = a
p = Page(); p.feed(open(os.path.join(tmp, "dom.html")).read())
ids = {e.get("id") for e in p.els}
for want in ["device-c", "device-omp", "roofline-c", "roofline-omp", "speedups", "boxfilter-radius",
             "anchors", "pictures", "picture-0"]:
    if want not in ids: fail.append(f"chart '{want}' is missing")
charts = sum(1 for e in p.els if "chart" in (e.get("class") or "").split())
if str(charts) != p.body.get("data-charts"):
    fail.append(f"the page's script counted {p.body.get('data-charts')} charts, the DOM has {charts}")
runs = []
for f in ["gemm.json", "box.json"]:
    runs += [r for r in json.load(open(os.path.join(tmp, f)))["results"] if r["status"] == "ok"]
def close(a, b): return math.isclose(float(a), b, rel_tol=1e-7)
def sizes(r): return " ".join(f"{k}={v:.15g}" if isinstance(v, (int, float)) else f"{k}={v}" for k, v in r["sizes"].items())
checked = 0
for e in p.els:
    if "data-gflops" in e and "data-ai" in e:     # a roofline point
        m = [r for r in runs if r["workload"] == e["data-workload"] and r["variant"] == e["data-variant"]
             and sizes(r) == e["data-sizes"] and "gflops" in r["rates"]
             and close(e["data-gflops"], r["rates"]["gflops"]["value"])
             and close(e["data-ai"], r["flops"] / r["bytes"])]
        checked += 1
        if not m: fail.append(f"roofline point {e} matches no result")
    elif "data-radius" in e:                      # box filter against radius
        m = [r for r in runs if r["workload"] == "boxfilter" and r["variant"] == e["data-variant"]
             and r["device"]["spec"] == e["data-device"] and close(e["data-radius"], r["sizes"]["radius"])
             and close(e["data-median-ms"], r["times_ms"]["median"])]
        checked += 1
        if not m: fail.append(f"radius point {e} matches no result")
    elif "data-speedup" in e:                     # thesis table: c's time over the device's
        c = [r for r in runs if r["workload"] == e["data-workload"] and r["variant"] == "c" and r["device"]["spec"] == "c"]
        d = [r for r in runs if r["workload"] == e["data-workload"] and r["variant"] == e["data-variant"]
             and r["device"]["spec"] == e["data-device"]]
        checked += 1
        if not any(close(e["data-speedup"], a["times_ms"]["median"] / b["times_ms"]["median"])
                   for a in c for b in d if a["sizes"] == b["sizes"]):
            fail.append(f"speedup {e} matches no pair of results")
# The landscapes: each candidate's mark against its search's JSON.
tunes = []
for f in ["tune1.json", "tune2.json"]:
    if os.path.exists(os.path.join(tmp, f)):
        tunes += [r for r in json.load(open(os.path.join(tmp, f)))["results"] if "candidates" in r]
def work_items(c):
    l = c["local"] or c["used_local"]
    return math.prod(v for v in l if v > 0) if l else -1
marks = 0
for e in p.els:
    if "cand" not in (e.get("class") or "").split():
        continue
    s = e["_svg"]
    m = [t for t in tunes if t["workload"] == s["data-workload"] and t["variant"] == s["data-variant"]
         and t["device"]["spec"] == s["data-device"] and sizes(t) == s["data-sizes"]]
    if len(m) != 1:
        fail.append(f"landscape {s.get('id')} matches {len(m)} searches"); continue
    t, i = m[0], int(e["data-index"])
    c = t["candidates"][i]
    axis = s["data-axis"]
    x = i if axis == "index" else work_items(c) if axis == "local" else c["params"][axis]
    ok = (e["data-status"] == c["status"] and close(e["data-x"], x)
          and (("data-median-ms" in e) == (c["median_ms"] is not None))
          and (c["median_ms"] is None or close(e["data-median-ms"], c["median_ms"]))
          and e["data-default"] == str(int(c["default"])) and e["data-best"] == str(int(c["best"]))
          and close(s["data-best-ms"], t["best_ms"]) and close(s["data-default-ms"], t["default_ms"])
          and s["data-candidates"] == str(len(t["candidates"])))
    if not ok: fail.append(f"candidate {e} does not match {c}")
    marks += 1
want = sum(len(t["candidates"]) for t in tunes)
if marks != want: fail.append(f"{marks} candidates drawn, {want} in the JSON")
if tunes:
    if "tune-0" not in ids or "tune-1" not in ids: fail.append("a landscape is missing")
    axes = {e["data-variant"]: e["data-axis"] for e in p.els if "tune" in (e.get("class") or "").split()}
    if axes != {"tiled": "TS", "wpt": "index"}: fail.append(f"the landscapes' axes: {axes}")
    checked += marks
if checked < 8: fail.append(f"only {checked} figures found in the page")
from PIL import Image
img = Image.open(os.path.join(tmp, "shot.png")).convert("RGB")
colours = img.getcolors(1 << 20)
if colours is None or len(colours) < 64: fail.append(f"the screenshot has {len(colours or [])} colours: blank?")
for f in fail: print("FAIL", f)
print(f"report: {checked} figures checked against the JSON, {len(ids)} ids")
sys.exit(1 if fail else 0)
PY
# --gif, decoded back: the collider's frames (one every --every steps of the
# last run, the legend's colours in the palette) and the ray tracer's (every
# frame, the last one the --output PNG up to the colour cube).
"$CO" run collider --device c --balls 40 --width 20 --height 15 --steps 20 --every 5 --reps 1 \
    --gif "$tmp/col.gif" >/dev/null || no "collider --gif"
"$CO" run raytrace --device c --width 48 --height 27 --frames 4 --reps 1 --gif "$tmp/rt.gif" \
    --output "$tmp/rt.png" >/dev/null || no "raytrace --gif"
"$PY" - "$tmp" <<'PY' || no "--gif decoded"
import os, sys
from PIL import Image, ImageSequence
tmp = sys.argv[1]
g = Image.open(os.path.join(tmp, "col.gif"))
assert g.format == "GIF" and g.info.get("loop") == 0, g.info
n = sum(1 for _ in ImageSequence.Iterator(g))
assert 4 <= n <= 5, f"collider: {n} frames for 20 steps every 5"
assert g.size == (320, 240), g.size
r = Image.open(os.path.join(tmp, "rt.gif"))
frames = [f.convert("RGB") for f in ImageSequence.Iterator(r)]
assert len(frames) == 4 and r.size == (48, 27), (len(frames), r.size)
png = Image.open(os.path.join(tmp, "rt.png")).convert("RGB")
diff = sum(abs(a - b) for p, q in zip(frames[-1].getdata(), png.getdata()) for a, b in zip(p, q))
assert diff / (48 * 27 * 3) < 30, f"the last GIF frame is not the PNG: mean difference {diff / (48 * 27 * 3):.1f}"
print("gif: collider", n, "frames; raytrace", len(frames), "frames")
PY
"$CO" run collider --device c --balls 10 --width 20 --height 20 --steps 10 --gif /proc/nope/x.gif >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "cannot write '/proc/nope/x.gif'" "$tmp/err" || no "--gif to an unwritable path: $(cat "$tmp/err")"
"$CO" run collider --device c --balls 10 --width 20 --height 20 --steps 100000 --every 1 --gif "$tmp/x.gif" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "raise --every" "$tmp/err" || no "--gif with too many frames: $(cat "$tmp/err")"

[ "$fail" -eq 0 ] && echo "report: ok"
exit "$fail"
