#!/usr/bin/env python3
"""PyTorch anchors for the copy and reduce goals, measured on the GPU next to
coalesce: the median time of dst.copy_(src) and of torch.sum(x) over float32
tensors of N elements (default 2^28), timed with CUDA events (torch_timing).

Prints one JSON line per anchor:
  {"workload": "copy", "anchor": "torch", "n": ..., "median_ms": ..., "gbps": ...}
GB/s use coalesce's byte models: copy 2*4*n, reduce 4*n + 4.
Without torch or a CUDA device it says so and exits 0 (nothing to measure).

Usage: scripts/torch-anchors.py [--n N] [--reps R]"""
import argparse
import json
import statistics
import sys

from torch_timing import times_ms


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1 << 28, help="elements (float32), default 2^28")
    ap.add_argument("--reps", type=int, default=20, help="timed repetitions, default 20")
    args = ap.parse_args()
    if args.n < 1 or args.reps < 1:
        print("torch-anchors: --n and --reps must be at least 1", file=sys.stderr)
        return 2
    try:
        import torch
    except ImportError:
        print("torch-anchors: PyTorch is not installed here; no anchors measured")
        return 0
    if not torch.cuda.is_available():
        print("torch-anchors: PyTorch sees no CUDA device here; no anchors measured")
        return 0
    dev = torch.device("cuda")
    gen = torch.Generator(device=dev).manual_seed(1)
    x = torch.rand(args.n, device=dev, dtype=torch.float32, generator=gen) * 2 - 1
    dst = torch.empty_like(x)
    name = torch.cuda.get_device_name(dev)
    runs = [
        ("copy", lambda: dst.copy_(x), 8.0 * args.n),
        ("reduce", lambda: torch.sum(x), 4.0 * args.n + 4),
    ]
    for workload, fn, nbytes in runs:
        ms = statistics.median(times_ms(torch, fn, args.reps))
        print(json.dumps({"workload": workload, "anchor": "torch", "n": args.n,
                          "median_ms": round(ms, 6), "gbps": round(nbytes / (ms * 1e6), 3),
                          "device": name, "torch": torch.__version__}))
    # The copy must really have copied (a cheap guard against a no-op).
    if not torch.equal(dst, x):
        print("torch-anchors: dst.copy_(x) did not copy", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
