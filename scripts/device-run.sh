# Helpers for a run on the GPU machine (the device tool), sourced by the run's command:
#   source scripts/device-run.sh run67 "coalesce test_backends"   # set up, record, build
#   run_sweep plan67.txt                                           # scripts/sweep.sh, verified
#   run_tests boxfilter cuda sliding                               # test_backends in 8 shards
#   run_goals                                                      # the box filter's goals' bench
#   run_npp                                                        # ... against NPP, f32 and RGBA8
#   run_pack                                                       # $OUT/run67.tgz
# Results go to $OUT/NAME (what the device tool brings back), kernels to /tmp/cocache.
source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=/tmp/cocache
RUN=${1:?usage: source scripts/device-run.sh NAME [TARGETS]}
O=$OUT/$RUN
mkdir -p "$O"
# The device's copy of .git can be stale: the log line and the changed files say what ran.
{ date -u +"%Y-%m-%d %H:%M UTC"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  git log --oneline -1; git status --short; } >"$O/machine.txt"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCOALESCE_NATIVE=ON >/dev/null &&
    cmake --build build --target ${2:-coalesce} -j "$(nproc)" >/tmp/build.log 2>&1 ||
    { tail -20 /tmp/build.log; exit 1; }

# One line a plan entry (sweep.txt), printed without the image options.
run_sweep() {
    VERIFY=1 REPS=${REPS:-10} scripts/sweep.sh "$1" >"$O/sweep${2:-}.txt" 2>&1
    sed 's/boxfilter --width //; s/  */ /g' "$O/sweep${2:-}.txt"
}

# test_backends WORKLOAD BACKEND VARIANT in 8 shards side by side (TIMEOUT each, default 200 s),
# every tunable set on every size set (COALESCE_TEST_FULL).
run_tests() {
    local k
    for k in 0 1 2 3 4 5 6 7; do
        COALESCE_TEST_FULL=1 timeout "${TIMEOUT:-200}" stdbuf -oL build/tests/test_backends "$1" "$2" "$3" $k/8 \
            >"$O/test-$2-$3-$k.txt" 2>&1 &
    done
    wait
    for k in 0 1 2 3 4 5 6 7; do echo "$2 $3 $k/8: $(tail -n 1 "$O/test-$2-$3-$k.txt")"; done
    grep -h FAIL "$O"/test-"$2"-"$3"-*.txt | head -5
}

# The box filter's bench at 8192^2, zero border: DEVICES, radii, a file-name prefix.
run_bench() {
    local r
    for r in $2; do
        build/coalesce bench boxfilter --device "$1" --variant sliding --reps 10 --json \
            --set "width=8192 height=8192 radius=$r border=zero" >"$O/bench-$1-${3:-}r$r.json" 2>/dev/null
        echo "$1 r=$r $(grep -o '"spec": "[a-z:0-9]*"\|"median": [0-9.]*\|"fraction": [0-9.]*\|"check": "[a-z]*"' \
            "$O/bench-$1-${3:-}r$r.json" | tr '\n' ' ')"
    done
}

# The box filter issue's goals: the copy ceiling, CUDA and NVIDIA OpenCL at r = 1, 4, 16, 64,
# PyTorch's avg_pool2d in the same run, CUDA again at r = 1 and 64.
run_goals() {
    build/coalesce peak --device cuda,opencl:gpu >"$O/peak.txt" 2>&1
    grep copy "$O/peak.txt"
    run_bench cuda,opencl:gpu "1 4 16 64"
    python3 scripts/torch-boxfilter.py --width 8192 --height 8192 --radius 1,4,16,64 >"$O/torch.txt" 2>&1
    grep -o '"radius": [0-9]*\|"median_ms": [0-9.]*' "$O/torch.txt" | tr '\n' ' '
    echo
    run_bench cuda "1 64" again-
}

# The box filter against NPP (issue 35): sliding and npp side by side at 8192^2, clamp (NPP's
# only border), float32 and RGBA8, r = 1 .. 256 (REPS runs each, default 10; 3 from r = 128,
# should NPP's cost grow with the window), every run verified; the copy ceiling first.
run_npp() {
    local f r reps
    build/coalesce peak --device cuda >"$O/peak-cuda.txt" 2>&1
    grep copy "$O/peak-cuda.txt"
    for f in f32 rgba8; do
        for r in 1 4 16 64 128 256; do
            reps=${REPS:-10}
            [ "$r" -ge 128 ] && reps=3
            build/coalesce bench boxfilter --device cuda --variant sliding,npp --reps "$reps" --json \
                --set "width=8192 height=8192 radius=$r border=clamp format=$f" \
                >"$O/npp-$f-r$r.json" 2>"$O/npp-$f-r$r.err"
            echo "$f r=$r $(grep -o '"variant": "[a-z]*"\|"median": [0-9.]*\|"fraction": [0-9.]*\|"check": "[a-z, ]*"' \
                "$O/npp-$f-r$r.json" | tr '\n' ' ')"
        done
    done
}

# Everything under $OUT/NAME as one file (the device tool brings back at most 8).
run_pack() { tar -C "$OUT" -czf "$OUT/$RUN.tgz" "$RUN" && rm -rf "$O"; }
