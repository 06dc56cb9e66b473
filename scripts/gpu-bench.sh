#!/bin/bash
# The GPU run, in one command: build, run the whole test suite on every
# device present (NVIDIA OpenCL, CUDA, PoCL, c, omp), then bench gemm at
# 1024..8192 and one non-square size, every variant on cuda and NVIDIA
# OpenCL with cuBLAS, CLBlast and OpenBLAS in the same run. Writes JSON, the
# logs and a markdown table into OUT (default: results/).
#
# On the lent H200: source .gpu/gpu-env.sh && scripts/gpu-bench.sh "$OUT"
set -uo pipefail
out=${1:-results}
mkdir -p "$out"
cd "$(dirname "$0")/.."
status=0

echo "== machine"
{
    date -u +"%Y-%m-%d %H:%M UTC"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>/dev/null
    lscpu | grep -E "Model name|^CPU\(s\)" | sed 's/  */ /g'
    git rev-parse --short HEAD 2>/dev/null
} | tee "$out/machine.txt"

echo "== build"
make all >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
./build/coalesce devices | tee "$out/devices.txt"
./build/coalesce devices --json >"$out/devices.json"

if [ "${SKIP_TESTS:-0}" != 1 ]; then
    echo "== tests (sanitizer build, every device)"
    if make test >"$out/test.log" 2>&1; then
        grep -E "tests passed|passed, " "$out/test.log" | tail -5
    else
        status=1
        grep -E "FAIL|tests passed|failed" "$out/test.log" | tail -40
    fi
fi

echo "== bench gemm"
devices=${DEVICES:-cuda,opencl:gpu,omp}
sets=(--set "size=1024" --set "size=2048" --set "size=4096" --set "size=8192"
      --set "m=3000 n=5000 k=2000")
./build/coalesce bench gemm --device "$devices" "${sets[@]}" --reps "${REPS:-10}" \
    --json >"$out/gemm.json" 2>"$out/gemm.err" || status=1
tail -5 "$out/gemm.err"
python3 scripts/results-table.py "$out/gemm.json" | tee "$out/gemm.md"
exit $status
