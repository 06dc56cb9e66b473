#!/usr/bin/env python3
"""PyTorch's avg_pool2d as a box filter on the GPU, the anchor of the boxfilter goals.

torch.nn.functional.avg_pool2d(x, 2r+1, stride=1, padding=r, count_include_pad=True)
is the (2r+1)^2 mean with a zero border and the full divisor: coalesce's
`--border zero`. Float32 WIDTHxHEIGHT on cuda:0, CUDA events around each call
(torch_timing: the GPU busy while they are queued),
median of --reps after warm-up; one JSON line per radius with the fields of
`coalesce bench boxfilter --json` that compare (variant "torch-avg_pool2d",
median_ms, gbps counting one read and one write of the image).

  scripts/torch-boxfilter.py --width 8192 --height 8192 --radius 1,4,16,64

Exits 0 with a message on stderr where torch or CUDA is absent."""
import argparse
import json
import statistics
import sys

from torch_timing import times_ms


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--width", type=int, default=8192)
    ap.add_argument("--height", type=int, default=8192)
    ap.add_argument("--radius", default="1,4,16,64")
    ap.add_argument("--reps", type=int, default=20)
    a = ap.parse_args()
    try:
        import torch
        import torch.nn.functional as F
    except ImportError as e:
        print(f"torch-boxfilter: skipped, torch is not installed ({e})", file=sys.stderr)
        return 0
    if not torch.cuda.is_available():
        print("torch-boxfilter: skipped, torch sees no CUDA device", file=sys.stderr)
        return 0
    x = torch.rand(1, 1, a.height, a.width, device="cuda", dtype=torch.float32)
    for r in [int(v) for v in a.radius.split(",")]:
        k = 2 * r + 1
        run = lambda: F.avg_pool2d(x, k, stride=1, padding=r, count_include_pad=True)
        y = run()
        assert y.shape == x.shape
        times = times_ms(torch, run, a.reps)
        ms = statistics.median(times)
        print(json.dumps({"workload": "boxfilter", "variant": "torch-avg_pool2d", "device": "cuda:0",
                          "device_name": torch.cuda.get_device_name(0), "width": a.width,
                          "height": a.height, "radius": r, "border": "zero", "format": "f32",
                          "reps": a.reps, "median_ms": round(ms, 5), "min_ms": round(min(times), 5),
                          "gbps": round(2 * x.numel() * 4 / (ms * 1e6), 2),
                          "torch": torch.__version__}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
