# Helpers for a run on the GPU machine (the device tool), sourced by a results script:
#   source scripts/device-run.sh run67 "coalesce test_backends"   # set up, record, build
#   run_sweep docs/results/.../plan67.txt                          # scripts/sweep.sh, verified
#   run_tests boxfilter cuda sliding                               # test_backends in 8 shards
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
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null &&
    cmake --build build --target ${2:-coalesce} -j "$(nproc)" >/tmp/build.log 2>&1 ||
    { tail -20 /tmp/build.log; exit 1; }

# One line a plan entry (sweep.txt), printed without the image options.
run_sweep() {
    VERIFY=1 REPS=${REPS:-10} scripts/sweep.sh "$1" >"$O/sweep${2:-}.txt" 2>&1
    sed 's/boxfilter --width //; s/  */ /g' "$O/sweep${2:-}.txt"
}

# test_backends WORKLOAD BACKEND VARIANT in 8 shards side by side (TIMEOUT each, default 200 s).
run_tests() {
    local k
    for k in 0 1 2 3 4 5 6 7; do
        timeout "${TIMEOUT:-200}" stdbuf -oL build/tests/test_backends "$1" "$2" "$3" $k/8 \
            >"$O/test-$2-$3-$k.txt" 2>&1 &
    done
    wait
    for k in 0 1 2 3 4 5 6 7; do echo "$2 $3 $k/8: $(tail -n 1 "$O/test-$2-$3-$k.txt")"; done
    grep -h FAIL "$O"/test-"$2"-"$3"-*.txt | head -5
}

# Everything under $OUT/NAME as one file (the device tool brings back at most 8).
run_pack() { tar -C "$OUT" -czf "$OUT/$RUN.tgz" "$RUN" && rm -rf "$O"; }
