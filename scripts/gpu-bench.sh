#!/bin/bash
# The GPU run: build, the whole test suite on the devices it benches (GPUS,
# CPUS and c: NVIDIA OpenCL, CUDA, omp, PoCL), the device ceilings, and every
# workload's benchmark with its anchors (cuBLAS, CLBlast, OpenBLAS, PyTorch,
# OpenCV) measured in the same run. Results (JSON, logs, markdown tables) go to OUT.
#
#   source .gpu/gpu-env.sh && scripts/gpu-bench.sh OUT [PHASE...]
# PHASES: build test peak gemm gemm-big memory image dispatch boxfilter collider raytrace
# (default: all but gemm-big)
set -uo pipefail
out=${1:-results}
shift || true
phases=${*:-build test peak gemm memory image dispatch boxfilter collider raytrace}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$(dirname "$0")/.."
co=./build/coalesce
reps=${REPS:-10}
gpus=${GPUS:-cuda,opencl:gpu,vulkan:gpu,opengl:gpu} # NVIDIA's Vulkan and OpenGL drivers (gpu-env.sh)
cpus=${CPUS-omp,opencl:cpu} # CPUS= leaves the CPU rows out
host=${cpus:+,${cpus%%,*}}  # omp alone, where PoCL would take too long
status=0
# The ceilings measured by this run (peak.json) stay with its results; the
# compiled CUDA kernels (cache/cuda) only while it runs.
export COALESCE_CACHE_DIR=$out/cache
trap 'rm -rf "$out/cache/cuda"' EXIT
# OpenBLAS 0.3.21 takes an unknown virtual CPU for a Prescott and uses SSE3
# kernels; name the real core so the anchor is fair.
if [ -z "${OPENBLAS_CORETYPE:-}" ]; then
    if grep -q avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SkylakeX
    elif grep -q avx2 /proc/cpuinfo; then export OPENBLAS_CORETYPE=Haswell; fi
fi

has() { case " $phases " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# bench NAME ARGS...: JSON into OUT/NAME.json, a markdown table into OUT/NAME.md
bench() {
    local name=$1
    shift
    echo "== bench $name: $*"
    $co bench "$@" --reps "$reps" --json >"$out/$name.json" 2>"$out/$name.err" || status=1
    grep -v '^  ' "$out/$name.err" | tail -3
    python3 scripts/results-table.py "$out/$name.json" >"$out/$name.md" && cat "$out/$name.md"
}

{
    date -u +"%Y-%m-%d %H:%M UTC"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>/dev/null
    lscpu | grep -E "Model name|^CPU\(s\)" | sed 's/  */ /g'
    echo "OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-unset}"
    git rev-parse --short HEAD 2>/dev/null
} >"$out/machine.txt"
cat "$out/machine.txt"

if has build || [ ! -x $co ]; then
    echo "== build"
    make all >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
fi
$co devices >"$out/devices.txt" && cat "$out/devices.txt"

# Each workload and variant of test_backends on each device, a process each,
# side by side: a GPU's kernel builds (NVRTC, the OpenCL compiler) take one
# core each, and one process for everything runs past any sensible timeout.
workload_variants() {
    $co list | awk '/^[a-z]+:/ { w = substr($1, 1, length($1) - 1) } /^    [a-z0-9]+ / { print w, $1 }'
}
if has test; then
    echo "== tests ($gpus,${cpus:+$cpus,}c)"
    (cd build && ctest -j 4 --output-on-failure --timeout 500 -E "^backends_") >"$out/test.log" 2>&1 ||
        status=1
    grep -E "tests passed|Failed|FAIL" "$out/test.log" | tail -5
    mkdir -p "$out/tests"
    while read -r w v; do
        # the box filter's sliding has ~1460 cases a device (many builds): in shards
        shards=1
        [ "$w/$v" = boxfilter/sliding ] && shards=8
        for d in ${gpus//,/ } ${cpus//,/ } c; do
            for ((k = 0; k < shards; k++)); do
                log="$out/tests/$w-$v-${d//:/_}-$k.txt"
                (COALESCE_TEST_FULL=1 timeout 1200 ./build/tests/test_backends "$w" "$d" "$v" "$k/$shards" >"$log" 2>&1 ||
                    echo "exit $?" >>"$log") &
                while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n; done
            done
        done
    done < <(workload_variants)
    wait
    cat "$out"/tests/*.txt | awk '/ passed, / { p += $1; f += $3; s += $5 }
        END { printf "test_backends: %d passed, %d failed, %d skipped\n", p, f, s }' | tee -a "$out/test.log"
    if grep -q "^FAIL\|^exit " "$out"/tests/*.txt; then
        status=1
        grep "^FAIL\|^exit " "$out"/tests/*.txt | head -20
    fi
fi
if has peak; then
    echo "== peak"
    $co peak --device "$gpus,omp,c" --json >"$out/peak.json" 2>"$out/peak.err" || status=1
    $co peak --device "$gpus,omp,c" 2>/dev/null | tee "$out/peak.txt"
fi
if has gemm; then
    bench gemm gemm --device "$gpus$host" --set "size=1024" --set "size=2048" --set "size=4096" \
        --set "size=8192" --set "m=3000 n=5000 k=2000"
fi
if has gemm-big; then # the GPU goals' shapes (issue 34), best variants and anchors
    bench gemm-big gemm --device "$gpus" --variant warp,reg2d,clblast,cublas --set "size=4096" \
        --set "size=8192" --set "m=4097 n=4095 k=4093" --set "m=3000 n=5000 k=2000" \
        --set "size=1000" --set "size=512"
fi
if has memory; then
    bench copy copy --device "$gpus${cpus:+,$cpus}" --set "n=268435456"
    bench reduce reduce --device "$gpus${cpus:+,$cpus}" --set "n=268435456"
    python3 scripts/torch-anchors.py --n 268435456 >"$out/torch-memory.json" && cat "$out/torch-memory.json"
fi
if has image; then
    bench grayscale grayscale --device "$gpus${cpus:+,$cpus}" --set "width=3840 height=2160" \
        --set "width=8192 height=8192"
fi
if has dispatch; then # seed 002's grid on each API: how ids map to groups, then the rates
    for d in ${gpus//,/ }; do
        $co run dispatch --device "$d" --groups 16x8x4 --local 4x4x4 --reps 1 >"$out/dispatch-${d//:/_}.txt" 2>&1 ||
            status=1
    done
    cat "$out"/dispatch-*.txt
    bench dispatch dispatch --device "$gpus$host" --set "groups=4096x64 show=0" --set "groups=64x64x16 show=0"
fi
if has boxfilter; then
    sets=()
    for r in 1 4 16 64; do sets+=(--set "width=8192 height=8192 radius=$r border=zero"); done
    # naive and image are O(r^2): seconds a run at r=64 on 8192^2.
    bench boxfilter boxfilter --device "$gpus$host" --variant sliding,separable,transpose,omp \
        "${sets[@]}"
    python3 scripts/torch-boxfilter.py --width 8192 --height 8192 --radius 1,4,16,64 \
        >"$out/torch-boxfilter.json" && cat "$out/torch-boxfilter.json"
    python3 scripts/opencv-boxfilter.py --width 8192 --height 8192 --radius 1,4,16,64 \
        --threads "$(nproc)" --border zero >"$out/opencv-boxfilter.json" && cat "$out/opencv-boxfilter.json"
fi
if has collider; then
    # Seed 000's case (20,000 balls of diameter 1; its box taken as 800x600),
    # then a million balls at the same density.
    bench collider-seed collider --device "$gpus$host" --variant brute,grid,omp-grid \
        --set "balls=20000 radius=0.5 width=800 height=600 steps=100"
    bench collider-1m collider --device "$gpus$host" --variant grid,omp-grid \
        --set "balls=1000000 radius=0.5 width=5657 height=4243 steps=20"
fi
if has raytrace; then
    bench raytrace raytrace --device "$gpus${cpus:+,$cpus}" \
        --set "width=1920 height=1080 spheres=64 lights=2 depth=4"
fi
exit $status
