#!/bin/sh
# Strong and weak scaling of the distributed workloads (coalesce-mpi) over 1, 2, 4 ... ranks:
# one `mpirun -np N coalesce-mpi run` a workload, mode and rank count, each verified, its
# document in OUT, then the tables (scripts/mpi-scaling.py): time, speedup, efficiency and
# the share of communication for each.
#   scripts/mpi-scaling.sh OUT [NP...]          (default NP: 1 2 4)
# Environment: CM (default build/coalesce-mpi), DEVICE (default omp: ranks share the CPU,
# each its cores' share; cuda: a GPU a rank), MPIRUN (default "mpirun --oversubscribe"),
# REPS (default 5), WORKLOADS (default "gemm boxfilter collider raytrace reduce"),
# SCALE (sizes x SCALE in each dimension that grows, default 1; GPUs want 4 to 16).
# Strong: the same problem on every rank count. Weak: the problem grows with the ranks so
# that each rank's part stays the same (gemm: m x n; the box filter, the ray tracer: the
# image's height; the collider: balls and the box's height; reduce: n).
set -eu
out=${1:?usage: scripts/mpi-scaling.sh OUT [NP...]}
shift
nps=${*:-1 2 4}
CM=${CM:-build/coalesce-mpi}
DEVICE=${DEVICE:-omp}
MPIRUN=${MPIRUN:-mpirun --oversubscribe}
REPS=${REPS:-5}
WORKLOADS=${WORKLOADS:-gemm boxfilter collider raytrace reduce}
S=${SCALE:-1}
mkdir -p "$out"
# As root (CI containers, the lent machines) mpirun refuses to start without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# sizes WORKLOAD MODE NP: the workload options of one run.
sizes() {
    w=$1 mode=$2 np=$3
    [ "$mode" = strong ] && np=1
    case $w in
    gemm) # weak: m x n grows with the ranks (k fixed)
        side=$(python3 -c "import math; print(round(1024 * $S * math.sqrt($np)))")
        echo "--m $side --n $side --k $((1024 * S))" ;;
    boxfilter) echo "--width $((4096 * S)) --height $((2048 * S * np)) --radius 16" ;;
    collider) # the default's density (20000 balls in 800 x 600), 10 steps (f64 reference)
        echo "--balls $((25000 * S * S * np)) --width $((900 * S)) --height $((700 * S * np)) --steps 10" ;;
    raytrace) echo "--width $((960 * S)) --height $((270 * S * np))" ;;
    reduce) echo "--n $(((1 << 23) * S * S * np))" ;;
    esac
}

for w in $WORKLOADS; do
    for mode in strong weak; do
        for np in $nps; do
            f="$out/$w-$mode-$np.json"
            # shellcheck disable=SC2046
            $MPIRUN -np "$np" "$CM" run "$w" --device "$DEVICE" --reps "$REPS" \
                $(sizes "$w" "$mode" "$np") --json -o "$f" >/dev/null 2>"$out/$w-$mode-$np.err" ||
                echo "failed: $w $mode -np $np: $(grep -m1 coalesce-mpi "$out/$w-$mode-$np.err")" >&2
        done
    done
done
python3 "$(dirname "$0")/mpi-scaling.py" "$out"/*.json | tee "$out/scaling.md"
