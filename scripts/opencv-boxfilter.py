#!/usr/bin/env python3
"""OpenCV's cv2.boxFilter (normalize=True), the CPU anchor of `coalesce bench boxfilter`.

Timing: a WIDTHxHEIGHT image of --format (f32: uniform random values in (0, 1);
rgba8, gray8: random bytes 1..255), each radius, cv2.setNumThreads(N), median of
--reps runs after one warm-up; one JSON line per radius with the fields of
`coalesce bench boxfilter --json` that compare (workload, variant "opencv", device
"omp", width, height, radius, border, format, median_ms, gbps counting one read and
one write of the image).

  scripts/opencv-boxfilter.py --width 8192 --height 8192 --radius 1,4,16,64 --threads 16

Against coalesce's omp variant, interleaved (on a shared or noisy machine): --rounds
rounds, each one `COALESCE run boxfilter --device omp --reps REPS` (its median) and
then --reps OpenCV runs (their median) at every radius; one JSON line per radius
with both medians over the rounds and the median of the rounds' ratios
(opencv_ms / omp_ms, above 1: omp faster). Threads: OMP_NUM_THREADS for coalesce as
for OpenCV (--threads; 0: every core).

  scripts/opencv-boxfilter.py --against build/coalesce --format rgba8 --width 2048 \
      --height 1536 --radius 1,16,64 --rounds 7

Check: filter an image file with OpenCV and compare it with coalesce's output
(exit 1 if any channel differs by more than --tolerance, default 1):

  scripts/opencv-boxfilter.py --compare in.png out.png --radius 3 --border reflect101

Exits 0 with a message on stderr when cv2 is not installed (77 with --compare,
so a test can report itself skipped)."""
import argparse
import json
import statistics
import sys
import time

BORDERS = {"clamp": "BORDER_REPLICATE", "reflect101": "BORDER_REFLECT_101", "zero": "BORDER_CONSTANT"}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--width", type=int, default=8192)
    ap.add_argument("--height", type=int, default=8192)
    ap.add_argument("--radius", default="1,4,16,64", help="one radius or a comma-separated list")
    ap.add_argument("--border", choices=sorted(BORDERS), default="clamp")
    ap.add_argument("--format", choices=("f32", "rgba8", "gray8"), default="f32")
    ap.add_argument("--against", metavar="COALESCE", help="coalesce binary: time its omp "
                    "variant interleaved with OpenCV")
    ap.add_argument("--rounds", type=int, default=5, help="--against: rounds (default 5)")
    ap.add_argument("--threads", type=int, default=0, help="cv2.setNumThreads (0: OpenCV's default)")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--compare", nargs=2, metavar=("IN_PNG", "OUT_PNG"))
    ap.add_argument("--tolerance", type=int, default=1)
    a = ap.parse_args()
    try:
        import cv2
        import numpy as np
    except ImportError as e:
        print(f"opencv-boxfilter: skipped, cv2 is not installed ({e}); "
              "pip install opencv-python-headless", file=sys.stderr)
        return 77 if a.compare else 0
    try:
        radii = [int(r) for r in a.radius.split(",")]
    except ValueError:
        ap.error(f"--radius must be integers, got '{a.radius}'")
    if any(r < 0 for r in radii):
        ap.error("--radius must be >= 0")
    border = getattr(cv2, BORDERS[a.border])
    if a.compare:
        src = cv2.imread(a.compare[0], cv2.IMREAD_UNCHANGED)
        got = cv2.imread(a.compare[1], cv2.IMREAD_UNCHANGED)
        if src is None or got is None:
            print(f"opencv-boxfilter: cannot read {a.compare}", file=sys.stderr)
            return 2
        k = 2 * radii[0] + 1
        want = cv2.boxFilter(src, -1, (k, k), normalize=True, borderType=border)
        if want.shape != got.shape:
            print(f"opencv-boxfilter: shapes differ: OpenCV {want.shape}, coalesce {got.shape}",
                  file=sys.stderr)
            return 1
        diff = int(np.abs(want.astype(np.int32) - got.astype(np.int32)).max())
        print(json.dumps({"compare": a.compare, "radius": radii[0], "border": a.border,
                          "shape": list(got.shape), "max_abs_diff": diff}))
        return 0 if diff <= a.tolerance else 1
    if a.threads > 0:
        cv2.setNumThreads(a.threads)
    rng = np.random.default_rng(1)
    if a.format == "f32":
        img = rng.uniform(1e-7, 1.0, (a.height, a.width)).astype(np.float32)
    else:
        img = rng.integers(1, 256, (a.height, a.width, 4) if a.format == "rgba8" else
                           (a.height, a.width), dtype=np.uint8)
    if a.against:
        return against(a, cv2, img, radii, border)
    for r in radii:
        k = 2 * r + 1
        cv2.boxFilter(img, -1, (k, k), normalize=True, borderType=border)  # warm-up
        times = []
        for _ in range(a.reps):
            t0 = time.perf_counter()
            cv2.boxFilter(img, -1, (k, k), normalize=True, borderType=border)
            times.append((time.perf_counter() - t0) * 1e3)
        ms = statistics.median(times)
        print(json.dumps({"workload": "boxfilter", "variant": "opencv", "device": "omp",
                          "width": a.width, "height": a.height, "radius": r, "border": a.border,
                          "format": a.format, "threads": cv2.getNumThreads(), "reps": a.reps,
                          "median_ms": round(ms, 4), "min_ms": round(min(times), 4),
                          "gbps": round(2 * img.nbytes / (ms * 1e6), 3),
                          "opencv": cv2.__version__}), flush=True)
    return 0


def opencv_ms(cv2, img, r, border, reps):
    k = 2 * r + 1
    cv2.boxFilter(img, -1, (k, k), normalize=True, borderType=border)  # warm-up
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        cv2.boxFilter(img, -1, (k, k), normalize=True, borderType=border)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def against(a, cv2, img, radii, border):
    """coalesce's omp and OpenCV in turns, --rounds times; medians and ratios."""
    import os
    import subprocess
    env = dict(os.environ)
    if a.threads > 0:
        env["OMP_NUM_THREADS"] = str(a.threads)
    got = {r: {"omp": [], "opencv": []} for r in radii}
    for _ in range(a.rounds):
        for r in radii:
            cmd = [a.against, "run", "boxfilter", "--device", "omp", "--variant", "omp",
                   "--width", str(a.width), "--height", str(a.height), "--radius", str(r),
                   "--border", a.border, "--format", a.format, "--reps", str(a.reps), "--json"]
            p = subprocess.run(cmd, capture_output=True, text=True, env=env)
            if p.returncode != 0:
                print(f"opencv-boxfilter: {' '.join(cmd)}: exit {p.returncode}: "
                      f"{p.stderr.strip()[:300]}", file=sys.stderr)
                return 1
            res = json.loads(p.stdout)["results"][0]
            got[r]["omp"].append(res["times_ms"]["median"])
            got[r]["opencv"].append(opencv_ms(cv2, img, r, border, a.reps))
    for r in radii:
        omp, ocv = got[r]["omp"], got[r]["opencv"]
        print(json.dumps({"workload": "boxfilter", "width": a.width, "height": a.height,
                          "radius": r, "border": a.border, "format": a.format,
                          "threads": cv2.getNumThreads(), "rounds": a.rounds, "reps": a.reps,
                          "omp_ms": round(statistics.median(omp), 3),
                          "opencv_ms": round(statistics.median(ocv), 3),
                          "ratio": round(statistics.median(o / c for o, c in zip(ocv, omp)), 3),
                          "omp_rounds": [round(x, 3) for x in omp],
                          "opencv_rounds": [round(x, 3) for x in ocv],
                          "opencv": cv2.__version__}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
