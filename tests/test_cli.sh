#!/bin/sh
# The command-line contract: exit codes and one clear error line for every
# kind of bad input, the JSON fields, and the table of bench.
# Usage: test_cli.sh path/to/coalesce
CO=${1:?usage: test_cli.sh path/to/coalesce}
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect CODE PATTERN ARGS...: exit code CODE and stderr matching PATTERN
# (grep -E) on its line "coalesce: ..."; usage errors must be one line. (An OpenCL
# compiler may print its own lines, "1 error generated.", before ours.)
expect() {
    code=$1 pattern=$2
    shift 2
    "$CO" "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    first=$(head -n 1 "$tmp/err")
    lines=$(grep -vc '^  ' "$tmp/err")
    if [ "$got" -ne "$code" ]; then
        echo "FAIL coalesce $*: exit $got, expected $code; stderr: $first"
        fail=$((fail + 1))
    elif [ -n "$pattern" ] && ! grep -Eq -- "^coalesce: .*$pattern|^$pattern" "$tmp/err"; then
        echo "FAIL coalesce $*: stderr '$first' does not match '$pattern'"
        fail=$((fail + 1))
    elif [ "$code" -eq 2 ] && [ "$lines" -ne 1 ]; then
        echo "FAIL coalesce $*: $lines lines on stderr, expected one"
        fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
}

has_opencl=0
"$CO" devices --json | grep -q '"spec": "opencl:0"' && has_opencl=1

# Usage errors: exit 2, one line naming what was wrong and what is allowed.
expect 2 "no command given: use devices, list, run or bench"
expect 2 "unknown command 'frobnicate'.*devices, list, run or bench" frobnicate
expect 2 "run takes one WORKLOAD" run
expect 2 "unknown workload 'gemv' \(use gemm" run gemv
expect 2 "unknown option '--bogus' for gemm \(it takes size, m, n, k\)" run gemm --bogus 3
expect 2 "unknown option '-x'" run gemm -x
expect 2 "unknown device 'gpu9'.*present here: c, omp" run gemm --device gpu9
expect 2 "unknown device 'opencl:99'" run gemm --device opencl:99
expect 2 "unknown variant 'fastest' for gemm \(use c, omp" run gemm --device c --variant fastest
expect 2 "variant 'naive' of gemm does not run on c \(it runs on opencl, cuda\)" run gemm --device c --variant naive
expect 2 "option --m needs a value" run gemm --m
expect 2 "--m must be a positive integer, got 'abc'" run gemm --device c --m abc
expect 2 "--n must be at least 1, got 0" run gemm --device c --n 0
expect 2 "--k must be a positive integer, got '-5'" run gemm --device c --k -5
expect 2 "--size must be a positive integer, got '1.5'" run gemm --device c --size 1.5
expect 2 "more than 2\^31-1 elements" run gemm --device c --m 100000 --k 100000 --n 1
expect 2 "--reps must be an integer in \[1, 1000\], got '0'" run gemm --reps 0
expect 2 "--seed must be a non-negative integer" run gemm --seed x
expect 2 "--local must be X, XxY or XxYxZ" run gemm --local 16x
expect 2 "--local must be X, XxY or XxYxZ" run gemm --local 0x4
expect 2 "--param must be NAME=VALUE" run gemm --param TS
expect 2 "variant 'c' takes no parameters" run gemm --device c --variant c --param TS=4
expect 2 "--json and --csv exclude each other" bench --json --csv
expect 2 "unknown workload 'gemv'" bench gemv
expect 2 "unknown variant 'fastest'" bench gemm --variant fastest
expect 2 "devices takes only --json" devices extra

# Limits checked before they bite: exit 1, naming the limit and its value.
expect 1 "needs [0-9]+ bytes of host memory.*more than 90% of the machine's" run gemm --device c --m 46000 --n 46000 --k 46000
if [ $has_opencl = 1 ]; then
    expect 2 "unknown parameter 'TX' for variant 'tiled' \(it takes TS\)" run gemm --device opencl --variant tiled --param TX=4
    expect 2 "parameter TS must be an integer, got 'big'" run gemm --device opencl --variant tiled --param TS=big
    expect 2 "parameter TS=0 is out of range" run gemm --device opencl --variant tiled --param TS=0
    expect 2 "wpt needs TS divisible by WPT" run gemm --device opencl --variant wpt --param TS=32 --param WPT=5
    max_wg=$("$CO" devices --json | python3 -c 'import json,sys; d=[x for x in json.load(sys.stdin)["devices"] if x["spec"]=="opencl:0"][0]; print(d["max_work_group_size"])')
    expect 1 "work-group 128x128 = 16384 work-items is over the device's maximum work-group size $max_wg" run gemm --device opencl --variant tiled --param TS=128 --size 64
    expect 1 "insufficient local resources: the kernel needs [0-9]+ bytes of local memory, over the device's [0-9]+ \(local_mem_bytes" run gemm --device opencl --variant wpt --param TS=512 --param WPT=512 --size 64
    expect 1 "over the device's maximum (work-group size|work-item size)" run gemm --device opencl --variant naive --local 8192x1 --size 64
    expect 2 "sets its work-group from its tile" run gemm --device opencl --variant tiled --local 8x8 --size 64
    # 6.4 GB per matrix: over PoCL's maximum allocation, refused before allocating.
    expect 1 "array A needs 6400000000 bytes.*maximum allocation" run gemm --device opencl --variant naive --size 40000

    # A kernel that fails to build: exit 1 and its build log.
    mkdir -p "$tmp/k"
    cp "$(dirname "$0")/../kernels/dialect.h" "$tmp/k/"
    printf '__kernel void gemm_naive(const int M) { this is not C; }\n' >"$tmp/k/gemm.cl"
    COALESCE_KERNEL_DIR="$tmp/k" expect 1 "kernel gemm.cl failed to build" run gemm --device opencl --variant naive --size 8
    grep -q "error" "$tmp/err" || { echo "FAIL build log missing"; fail=$((fail + 1)); }

    # A kernel that computes the wrong thing: exit 1, the error over the tolerance.
    sed 's/C\[(size_t)row \* N + col\] = acc;/C[(size_t)row * N + col] = acc * 1.001f;/' \
        "$(dirname "$0")/../kernels/gemm.cl" >"$tmp/k/gemm.cl"
    COALESCE_KERNEL_DIR="$tmp/k" expect 1 "gemm/naive on opencl:0: error .* is over the tolerance" run gemm --device opencl --variant naive --size 40
fi
if "$CO" devices --json | grep -q '"name": "cuda", "available": false'; then
    expect 1 "device 'cuda' is unavailable: " run gemm --device cuda
fi

# Success: devices, run --json with its fields, bench's table.
expect 0 "" devices
expect 0 "" --help
"$CO" devices --json | python3 -m json.tool >/dev/null && pass=$((pass + 1)) || {
    echo "FAIL devices --json is not JSON"; fail=$((fail + 1)); }
"$CO" run gemm --device c --m 7 --n 5 --k 3 --json --seed 3 >"$tmp/run.json" && python3 - "$tmp/run.json" <<'PY' && pass=$((pass + 1)) || { echo "FAIL run --json fields"; fail=$((fail + 1)); }
import json, sys
r = json.load(open(sys.argv[1]))
for key in ["workload", "variant", "device", "m", "n", "k", "verified", "error", "median_ms",
            "kernel_ms", "total_ms", "gflops"]:
    assert key in r, key
assert r["workload"] == "gemm" and r["variant"] == "c" and r["device"] == "c"
assert (r["m"], r["n"], r["k"]) == (7, 5, 3) and r["verified"] is True
assert r["error"] <= r["tolerance"] and r["median_ms"] > 0 and r["gflops"] > 0
PY
"$CO" bench gemm --device c,omp --size 33,17 >"$tmp/bench.txt" 2>/dev/null &&
    [ "$(grep -c ' ok ' "$tmp/bench.txt")" -ge 5 ] && grep -q "size=33\|m=33" "$tmp/bench.txt" &&
    pass=$((pass + 1)) || { echo "FAIL bench table"; cat "$tmp/bench.txt"; fail=$((fail + 1)); }
"$CO" bench gemm --device c --csv --set "m=9 n=8 k=7" >"$tmp/bench.csv" &&
    head -1 "$tmp/bench.csv" | grep -q "^workload,sizes,device" && grep -q "m=9 n=8 k=7" "$tmp/bench.csv" &&
    pass=$((pass + 1)) || { echo "FAIL bench csv"; fail=$((fail + 1)); }

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
