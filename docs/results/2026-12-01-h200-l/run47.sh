# Session 12's first run: the ring's vertical sums normalised with one fma a row (run k + v k), timed;
# CHAINS and SPLIT=1 PART=32 at r = 64; the goals' bench twice; torch; the CUDA tests.
source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=/tmp/cocache
D=docs/results/2026-12-01-h200-l
{ date -u +"%Y-%m-%d %H:%M UTC"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git rev-parse --short HEAD; } > $OUT/machine47.txt
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build --target coalesce test_backends test_nvrtc -j 16 > /tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
build/coalesce peak --device cuda > $OUT/peak47.txt 2>&1
bench() { for R in 1 4 16 64; do build/coalesce bench boxfilter --device cuda --variant sliding --reps 10 --json --set "width=8192 height=8192 radius=$R border=zero" > $OUT/bench47$1-r$R.json 2>/dev/null; echo "$1 r=$R $(grep -o '"median_ms": [0-9.]*\|"fraction": [0-9.]*\|"check": "[a-z]*"' $OUT/bench47$1-r$R.json | tr '\n' ' ')"; done; }
bench A
VERIFY=1 REPS=10 scripts/sweep.sh $D/plan47.txt > $OUT/sweep47.txt 2>&1; cat $OUT/sweep47.txt
python3 scripts/torch-boxfilter.py --width 8192 --height 8192 --radius 1,4,16 > $OUT/torch47.txt 2>&1; grep -o '"radius": [0-9]*\|"median_ms": [0-9.]*' $OUT/torch47.txt | tr '\n' ' '; echo
bench B
timeout 240 build/tests/test_nvrtc > $OUT/test-nvrtc.txt 2>&1; tail -n 1 $OUT/test-nvrtc.txt
timeout 280 stdbuf -oL build/tests/test_backends boxfilter cuda sliding > $OUT/test-cuda-sliding.txt 2>&1; tail -n 1 $OUT/test-cuda-sliding.txt
