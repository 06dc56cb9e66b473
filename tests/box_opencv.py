#!/usr/bin/env python3
"""coalesce's boxfilter against OpenCV's cv2.boxFilter (normalize=True).

  box_opencv.py COALESCE

Random PNGs (gray and RGBA, odd sizes) go through `coalesce run boxfilter
--input X --output Y.raw` (the raw output: float32 or 8-bit values as
computed, not PNG-quantised) for every border at radii 0, 1, 5, the image's
size and far beyond, and are compared with cv2.boxFilter on the same values
(gray as gray8, its bytes, and with --format f32 as the bytes / 255 in
float32). Tolerances: float32 2^-20 of the data's scale (above coalesce's
model bound, below any wrong tap: one tap in a window of (2r+1)^2 moves the
mean by 1/(2r+1)^2 of a pixel); 8-bit +-1 (OpenCV rounds its fixed-point
mean, coalesce the exact one); r = 0 exact. Also checks that an RGBA PNG
comes out RGBA (format rgba8) without --format, and a gray one gray8. Exit 0 all agree, 1 one line per difference, 77 when cv2
or numpy is missing (ctest: skipped)."""
import json
import os
import subprocess
import sys
import tempfile

try:
    import cv2
    import numpy as np
except ImportError as e:
    print(f"skip: boxfilter against OpenCV needs python3 cv2 and numpy ({e})")
    sys.exit(77)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from png_gray import write_png  # noqa: E402

BORDERS = {"clamp": cv2.BORDER_REPLICATE, "reflect101": cv2.BORDER_REFLECT_101,
           "zero": cv2.BORDER_CONSTANT}


def run(co, args, env):
    p = subprocess.run([co, "run", "boxfilter", "--device", "c", "--reps", "1", "--json"] + args,
                       capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


def main(co):
    env = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0")
    rng = np.random.default_rng(26)
    fails, checks = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        env.setdefault("COALESCE_CACHE_DIR", tmp)
        for ch, (w, h), fmt in ((1, (31, 17), "gray8"), (1, (31, 17), "f32"),
                                (4, (23, 11), "rgba8")):
            px = rng.integers(0, 256, (h, w, ch), dtype=np.uint8)
            png = os.path.join(tmp, f"in{ch}.png")
            write_png(png, w, h, ch, px.tobytes())
            src = px[:, :, 0].astype(np.float32) / np.float32(255) if fmt == "f32" else \
                px[:, :, 0] if ch == 1 else px
            forced = ["--format", "f32"] if fmt == "f32" else []  # else the file's own
            for r in (0, 1, 5, max(w, h), 4 * max(w, h) + 3, 1000):
                for border, cvb in BORDERS.items():
                    out = os.path.join(tmp, "out.raw")
                    variants = ("c", "omp") if r < 100 else ("c",)
                    for variant in variants:
                        device = "omp" if variant == "omp" else "c"
                        rc, so, se = run(co, ["--device", device, "--variant", variant,
                                              "--input", png, "--output", out,
                                              "--radius", str(r), "--border", border] + forced,
                                         env)
                        what = f"{fmt} {w}x{h} r={r} {border} {variant}"
                        if rc != 0:
                            fails.append(f"{what}: exit {rc}: {se.strip().splitlines()[:1]}")
                            continue
                        ran = json.loads(so)["results"][0]["sizes"]["format"]
                        if ran != fmt:
                            fails.append(f"{what}: format {ran}, expected {fmt}")
                            continue
                        k = 2 * r + 1
                        want = cv2.boxFilter(src, -1, (k, k), normalize=True, borderType=cvb)
                        if fmt == "f32":
                            got = np.fromfile(out, dtype=np.float32).reshape(h, w)
                            diff = float(np.abs(got.astype(np.float64) - want).max())
                            tol = 0.0 if r == 0 else 2.0 ** -20
                        else:
                            got = np.fromfile(out, dtype=np.uint8).reshape(want.shape)
                            diff = float(np.abs(got.astype(np.int32) - want.astype(np.int32)).max())
                            tol = 0.0 if r == 0 else 1.0
                        checks += 1
                        if not diff <= tol:
                            fails.append(f"{what}: max |coalesce - cv2.boxFilter| = {diff:.3g} > {tol:.3g}")
    for f in fails:
        print("FAIL boxfilter vs OpenCV:", f)
    print(f"{checks - len(fails)} passed, {len(fails)} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
