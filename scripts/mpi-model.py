#!/usr/bin/env python3
"""The model of docs/MPI.md: expected strong-scaling speedup and efficiency of the distributed
workloads (coalesce-mpi) on P GPUs of one host, from the communication each moves per run
against the bandwidths it moves through.

  scripts/mpi-model.py [--link B] [--pcie B] [--mpi B] [--gpus 2,4,8] [--call S]

--link: device-to-device bandwidth a CUDA-aware MPI reaches (bytes/s per direction;
        absent: staged through host memory, as Debian's Open MPI does);
--pcie: host<->device copies from page-locked memory (default 55e9, the H200's measured);
--mpi:  MPI between two ranks' host buffers on the host (default 12e9: an assumption;
        measure it with `mpirun -np 2 coalesce-mpi link`, column "host");
--call: the fixed cost of one library call (default 30e-6 s; measure it as coalesce-mpi's
        -np 1 median less the single-device kernel median of the same invocation).
Single-GPU times T1 are the H200's (docs/results/): gemm reg2d 40 TFLOP/s, the box filter
at 16384^2 r = 16 4x its 8192^2 time (0.146 ms), the collider's grid 1.22 ms a step at 4M
balls (1M: 3263 steps/s), the ray tracer at 4K 4x 1080p (2508 frames/s), reduce 4.5 TB/s."""
import argparse
import math

HBM = 4e12      # the H200's copy bandwidth (docs/results/2026-12-01-h200-m.md)
A_MPI = 5e-6    # one MPI message on the host
A_COPY = 10e-6  # one host<->device copy


def grid(p):
    """gemm's process grid: R <= C, R x C = p, most square (tools/mpi/dist_gemm.c)."""
    r = max(i for i in range(1, math.isqrt(p) + 1) if p % i == 0)
    return r, p // r


def gemm(n, p, a):
    """SUMMA, square n: rank (i, j) receives A's panels of its rows from its grid row and B's
    of its columns from its grid column, 4 n^2 (R + C - 2) / P bytes, in 2 max(R, C) panels,
    each broadcast while the last one is multiplied; staged, the roots' panels come down
    (4 n^2 / P a matrix that is broadcast) and the received go up, on the critical path;
    each panel after the first adds C += P (12 n^2 / P bytes at HBM speed)."""
    t1 = 2 * n ** 3 / 40e12
    r, c = grid(p)
    panels = 2 * max(r, c)
    recv = 4 * n * n * (r + c - 2) / p
    sent = 4 * n * n * ((c > 1) + (r > 1)) / p
    comp = t1 / p
    axpby = (panels - 1) * 12 * n * n / p / HBM
    if a.link:
        wire = recv / a.link
        tx = wire / panels + max(0, wire - comp) * (panels - 1) / panels + panels * 2 * A_MPI
    else:
        wire = recv / a.mpi
        tx = (recv + sent) / a.pcie + wire / panels + max(0, wire - comp) * (panels - 1) / panels
        tx += panels * 2 * (A_COPY + A_MPI)
    return t1 + 2 * a.call, comp + tx + axpby + panels * a.call


def box(n, radius, p, a):
    """Row blocks: a rank receives (and sends) radius rows from each neighbour, 4 n bytes a
    row, and filters 2 radius rows more than its own; staged, down, over MPI and up."""
    t1 = 0.584e-3 * (n / 16384) ** 2
    halo = (2 if p > 2 else 1) * radius * n * 4
    comp = t1 / p * (1 + 2 * radius * p / n)
    if a.link:
        tx = halo / a.link + 2 * A_MPI
    else:
        tx = 2 * halo / a.pcie + halo / a.mpi + 4 * A_COPY + 2 * A_MPI
    return t1 + a.call, comp + tx + a.call


def collider(balls, p, a, resident):
    """Strips: today each step packs a rank's balls and ghosts on the host, copies them up
    (24 bytes a ball) and the result down (16), and exchanges ghosts and migrants (a few
    thousand balls, 32 bytes each); `resident`: the exchange done on the device (a
    compaction of the boundary balls; not built yet), only ghosts and migrants cross."""
    t1 = 1.22e-3 * balls / 4e6
    if resident:
        tx = 4 * 10e-6 + (2 * A_MPI if a.link else 5 * A_COPY + 2 * A_MPI)
    else:
        tx = 40 * balls / p / a.pcie + 2 * A_COPY + 2 * A_MPI
    return t1 + a.call, t1 / p + tx + a.call


def raytrace(p, a):
    """Bands of rows gathered into rank 0's frame (4K RGBA8, 33 MB): staged, every band
    comes down and the others' cross to rank 0 over MPI; the one-rank baseline brings its
    frame down too. A CUDA-aware MPI gathers into rank 0's device frame."""
    t1, frame = 1.6e-3, 3840 * 2160 * 4
    if a.link:
        return t1 + a.call, t1 / p + (p - 1) / p * frame / a.link + p * A_MPI + a.call
    base = t1 + frame / a.pcie
    return base + a.call, t1 / p + frame / p / a.pcie + (p - 1) / p * frame / a.mpi + p * A_MPI + a.call


def reduce_(n, p, a):
    """Blocks, then an MPI_Allreduce of one double (log2 P messages)."""
    t1 = 4 * n / 4.5e12
    return t1 + a.call, t1 / p + a.call + A_COPY + 2 * A_MPI * math.log2(p)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--link", type=float, default=None)
    ap.add_argument("--pcie", type=float, default=55e9)
    ap.add_argument("--mpi", type=float, default=12e9)
    ap.add_argument("--call", type=float, default=30e-6)
    ap.add_argument("--gpus", default="2,4,8")
    a = ap.parse_args()
    gpus = [int(x) for x in a.gpus.split(",")]
    how = f"CUDA-aware, device to device at {a.link / 1e9:g} GB/s" if a.link else \
        f"staged: PCIe {a.pcie / 1e9:g} GB/s, MPI on the host {a.mpi / 1e9:g} GB/s"
    print(f"{how}; a library call {a.call * 1e6:g} us\n")
    print("| workload | T1 (ms) | " + " | ".join(f"{p} GPUs" for p in gpus) + " |")
    print("|---|---|" + "---|" * len(gpus))
    rows = [("gemm 16384²", lambda p: gemm(16384, p, a)),
            ("gemm 8192²", lambda p: gemm(8192, p, a)),
            ("box filter 16384², r = 16", lambda p: box(16384, 16, p, a)),
            ("collider 4M balls, a step (as built)", lambda p: collider(4e6, p, a, False)),
            ("collider, exchange on the device", lambda p: collider(4e6, p, a, True)),
            ("ray tracer 4K", lambda p: raytrace(p, a)),
            ("reduce 2^28", lambda p: reduce_(2 ** 28, p, a))]
    for name, f in rows:
        cells = []
        for p in gpus:
            t1, tp = f(p)
            cells.append(f"{t1 / tp:.2f}x ({100 * t1 / tp / p:.0f}%)")
        print(f"| {name} | {f(gpus[0])[0] * 1e3:.3f} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
