#!/bin/sh
# coalesce-mpi: every distributed workload on 2 and 3 ranks (an odd count) on the CPU's
# devices, verified against the single-device reference, at sizes that do not divide among
# the ranks, with a rank that gets no rows (or columns, or balls); MPI on the buffers in
# place and staged through host memory; a failure on one rank (one line on stderr, the
# same exit code from every rank, no hang); a wrong result on one rank caught; the JSON
# document with the ranks and their devices; usage errors.
#   test_mpi.sh COALESCE-MPI MPIEXEC SOURCE_DIR
CM=${1:?usage: test_mpi.sh COALESCE-MPI MPIEXEC SOURCE_DIR}
MPIEXEC=${2:?usage}
SRC=${3:?usage}
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export COALESCE_CACHE_DIR="$tmp/cache"
# As root (CI containers) mpirun refuses to start without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI's own allocations outlive MPI_Finalize: LeakSanitizer would report
# them, not ours (the library's leaks are test_lib's and test_api's to find).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
# Ranks share this machine's cores: more ranks than cores are allowed.
MPIRUN="timeout 300 $MPIEXEC --oversubscribe"

has_opencl=0
"$(dirname "$CM")/coalesce" devices 2>/dev/null | grep -q '^opencl:0' && has_opencl=1

# ok NP ARGS...: every rank exits 0, rank 0 says the check passed.
ok() {
    np=$1
    shift
    $MPIRUN -np "$np" "$CM" run "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -ne 0 ] || ! grep -q "^  check     ok" "$tmp/out"; then
        echo "FAIL -np $np run $*: exit $got; $(grep -m1 coalesce-mpi "$tmp/err")"
        fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
}

# check_failure CODE PATTERN WHAT, after a run whose exit code is in rc: exit CODE, and
# exactly one line from coalesce-mpi on stderr, matching PATTERN (mpirun adds its own
# lines about the exit code).
check_failure() {
    lines=$(grep -c "^coalesce-mpi: " "$tmp/err")
    if [ "$rc" -ne "$1" ]; then
        echo "FAIL $3: exit $rc, expected $1; $(head -n 3 "$tmp/err")"
        fail=$((fail + 1))
    elif [ "$lines" -ne 1 ] || ! grep -Eq "^coalesce-mpi: .*$2" "$tmp/err"; then
        echo "FAIL $3: $lines lines from coalesce-mpi, expected one matching '$2':"
        grep "^coalesce-mpi" "$tmp/err" | head -n 5
        fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
}

for np in 2 3; do
    # gemm: SUMMA on 1 x np; blocks and panels that divide nothing.
    ok $np gemm --device omp --m 37 --n 29 --k 45 --reps 2
    ok $np gemm --device c --m 23 --n 31 --k 19 --panel 4 --staging host --reps 1
    # the box filter: clamp, reflect101 and zero; a radius larger than a block; RGBA8.
    ok $np boxfilter --device omp --width 37 --height 23 --radius 3 --reps 2
    ok $np boxfilter --device omp --width 19 --height 17 --radius 9 --border reflect101 --reps 1
    ok $np boxfilter --device c --width 21 --height 13 --radius 2 --border zero --format rgba8 \
        --staging host --reps 1
    # the collider: walls, periodic; the f64 reference (10 steps or fewer) and invariants.
    ok $np collider --device omp --balls 400 --width 50 --height 31 --steps 7 --reps 2
    ok $np collider --device omp --balls 150 --width 40 --height 23 --radius 0.4 --radius-max 1 \
        --speed 1.5 --dt 0.05 --boundary periodic --steps 25 --staging host --reps 1
    # the ray tracer: bands that do not divide; frames; a band of the frame given.
    ok $np raytrace --device omp --width 64 --height 47 --reps 2
    ok $np raytrace --device c --width 40 --height 30 --frames 2 --time 0.5 --staging host --reps 1
    ok $np raytrace --device omp --width 50 --height 40 --first-row 7 --rows 25 --reps 1
    # reduce: blocks that do not divide.
    ok $np reduce --device omp --n 100003 --reps 2
    ok $np reduce --device c --n 1001 --staging host --reps 1
done

# A rank with nothing: 3 ranks, 2 columns of C (grid 1 x 3), 2 rows of an image or a
# frame, 2 elements; a grid of 3 x 1; collider strips thinner than a contact (ghosts from
# two ranks away) and a strip with no ball.
ok 3 gemm --device omp --m 5 --n 2 --k 7 --reps 1
ok 3 gemm --device omp --m 33 --n 12 --k 17 --grid 3x1 --reps 1
ok 4 gemm --device omp --m 33 --n 21 --k 40 --reps 1
ok 3 boxfilter --device omp --width 23 --height 2 --radius 1 --reps 1
ok 3 raytrace --device omp --width 33 --height 2 --reps 1
ok 3 reduce --device omp --n 2 --reps 1
ok 3 collider --device omp --balls 60 --width 40 --height 3 --radius 0.5 --steps 6 --reps 1
ok 3 collider --device omp --balls 1 --width 10 --height 10 --steps 3 --reps 1

if [ $has_opencl = 1 ]; then # PoCL: a device whose buffers MPI cannot address (staged)
    ok 2 gemm --device opencl --m 40 --n 33 --k 29 --reps 1
    ok 3 boxfilter --device opencl --width 30 --height 20 --radius 7 --reps 1
    ok 2 collider --device opencl --balls 300 --width 40 --height 30 --steps 4 --reps 1
    ok 3 raytrace --device opencl --width 48 --height 20 --reps 1
    ok 3 reduce --device opencl --n 5000 --reps 1
fi

# The document: schema 1, the single-device run and the distributed one with its ranks.
$MPIRUN -np 3 "$CM" run gemm --device omp --m 30 --n 20 --k 10 --reps 1 --json -o "$tmp/doc.json" \
    >"$tmp/json" 2>"$tmp/err"
if python3 "$SRC/tests/check_results.py" "$SRC/docs/results.schema.json" "$tmp/json" "$tmp/doc.json" \
    >"$tmp/schema" 2>&1 && python3 - "$tmp/json" <<'EOF'; then
import json, sys
doc = json.load(open(sys.argv[1]))
roles = [r["role"] for r in doc["results"]]
assert roles == ["single-device", "distributed"], roles
m = doc["results"][1]["mpi"]
assert m["ranks"] == 3 and m["grid"] == "1x3", m
assert [r["rank"] for r in m["rank_devices"]] == [0, 1, 2]
assert all(r["device"]["spec"] == "omp" and r["device"]["backend"] == "omp" for r in m["rank_devices"])
assert doc["results"][1]["verified"] and doc["results"][1]["status"] == "ok"
EOF
    pass=$((pass + 1))
else
    echo "FAIL --json: $(cat "$tmp/schema") $(head -c 300 "$tmp/json")"
    fail=$((fail + 1))
fi

# A failure on one rank: rank 1's library call is over its memory limit. Every rank stops
# with exit 1 and rank 0 says which rank failed and why, once; the others do not hang.
for w in "gemm --m 64 --n 64 --k 64" "collider --balls 200 --width 40 --height 30 --steps 3" \
    "boxfilter --width 40 --height 30" "raytrace --width 40 --height 30" "reduce --n 1000"; do
    # shellcheck disable=SC2086
    timeout 300 $MPIEXEC --oversubscribe -np 1 "$CM" run $w --device omp --reps 1 : \
        -np 1 env COALESCE_MAX_HOST_BYTES=1 "$CM" run $w --device omp --reps 1 : \
        -np 1 "$CM" run $w --device omp --reps 1 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check_failure 1 "rank 1 \(omp\): .*COALESCE_MAX_HOST_BYTES" "one rank failing: $w"
done
# A wrong result on one rank (its reduce kernel drops the tail): the gathered result is
# caught against the single-device one that rank 0 made right.
if [ $has_opencl = 1 ]; then
    mkdir -p "$tmp/k"
    sed 's/if (tail < (size_t)n) acc += in\[tail\];//' "$SRC/kernels/reduce.cl" >"$tmp/k/reduce.cl"
    timeout 300 $MPIEXEC --oversubscribe -np 1 "$CM" run reduce --device opencl --n 2051 --reps 1 : \
        -np 1 env COALESCE_KERNEL_DIR="$tmp/k" "$CM" run reduce --device opencl --n 2051 --reps 1 \
        >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check_failure 1 "reduce on 2 ranks: error .* is over the tolerance" "a wrong rank"
fi

# Usage: rank 0 alone says it, every rank exits 2.
for args in "run" "run copy" "run gemm --bogus 3" "run gemm --grid 2x2" "run gemm --grid x"; do
    # shellcheck disable=SC2086
    $MPIRUN -np 3 "$CM" $args --device omp >"$tmp/out" 2>"$tmp/err"
    rc=$?
    check_failure 2 "." "usage: $args"
done
$MPIRUN -np 2 "$CM" run boxfilter --radius 3 --panel 4 >"$tmp/out" 2>"$tmp/err"
rc=$?
check_failure 2 "--panel is gemm's" "--panel on boxfilter"
$MPIRUN -np 2 "$CM" run collider --scenario three >"$tmp/out" 2>"$tmp/err"
rc=$?
check_failure 2 "collider --scenario is not distributed" "collider --scenario"
$MPIRUN -np 2 "$CM" run gemm --device omp --variant naive >"$tmp/out" 2>"$tmp/err"
rc=$?
check_failure 3 "rank 0 \(omp\): variant 'naive' of gemm does not run on omp" "a variant not here"
$MPIRUN -np 2 "$CM" ranks --device omp >"$tmp/out" 2>"$tmp/err" && grep -q "rank 1 .*omp" "$tmp/out" &&
    pass=$((pass + 1)) || { echo "FAIL ranks: $(cat "$tmp/out" "$tmp/err")"; fail=$((fail + 1)); }

# link: the bandwidth between two ranks' devices, every way the workloads move data.
$MPIRUN -np 2 "$CM" link --device omp --bytes 40000 >"$tmp/out" 2>"$tmp/err" &&
    grep -Eq "^ +32768 +[0-9]+ +[0-9]+ +[0-9]+$" "$tmp/out" && pass=$((pass + 1)) ||
    { echo "FAIL link: $(cat "$tmp/out" "$tmp/err")"; fail=$((fail + 1)); }
if [ $has_opencl = 1 ]; then
    $MPIRUN -np 2 "$CM" link --device opencl --bytes 40000 >"$tmp/out" 2>"$tmp/err" &&
        grep -Eq "^ +32768 +[0-9]+ +[0-9]+ +-$" "$tmp/out" && pass=$((pass + 1)) ||
        { echo "FAIL link on opencl: $(cat "$tmp/out" "$tmp/err")"; fail=$((fail + 1)); }
fi
$MPIRUN -np 1 "$CM" link --device omp >"$tmp/out" 2>"$tmp/err"
rc=$?
check_failure 2 "link needs 2 ranks" "link on one rank"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
