#!/usr/bin/env python3
"""OpenCV's cv2.boxFilter (normalize=True), the CPU anchor of `coalesce bench boxfilter`.

Timing: float32 WIDTHxHEIGHT image of uniform random values in (0, 1), each radius,
cv2.setNumThreads(N), median of --reps runs after one warm-up; one JSON line per
radius with the fields of `coalesce bench boxfilter --json` that compare
(workload, variant "opencv", device "omp", width, height, radius, border, format,
median_ms, gbps counting one read and one write of the image).

  scripts/opencv-boxfilter.py --width 8192 --height 8192 --radius 1,4,16,64 --threads 16

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
    img = np.random.default_rng(1).uniform(1e-7, 1.0, (a.height, a.width)).astype(np.float32)
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
                          "format": "f32", "threads": cv2.getNumThreads(), "reps": a.reps,
                          "median_ms": round(ms, 4), "min_ms": round(min(times), 4),
                          "gbps": round(2 * img.nbytes / (ms * 1e6), 3),
                          "opencv": cv2.__version__}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
