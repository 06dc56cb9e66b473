# Session 12, run 48: ALIGN (each warp's loads from a multiple of 32 elements) against ALIGN=0 at
# radii whose halo is not a multiple of 32; the goals' bench twice; torch; the CUDA tests.
source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=/tmp/cocache
D=docs/results/2026-12-01-h200-l
O=$OUT/run48; mkdir -p $O
{ date -u +"%Y-%m-%d %H:%M UTC"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git rev-parse --short HEAD; } > $O/machine.txt
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build --target coalesce test_backends test_nvrtc -j 16 > /tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
build/coalesce peak --device cuda > $O/peak.txt 2>&1
bench() { for R in 1 4 16 64; do build/coalesce bench boxfilter --device cuda --variant sliding --reps 10 --json --set "width=8192 height=8192 radius=$R border=zero" > $O/bench$1-r$R.json 2>/dev/null; echo "$1 r=$R $(grep -o '"median_ms": [0-9.]*\|"fraction": [0-9.]*\|"check": "[a-z]*"' $O/bench$1-r$R.json | tr '\n' ' ')"; done; }
bench A
VERIFY=1 REPS=10 scripts/sweep.sh $D/plan48.txt > $O/sweep.txt 2>&1; sed 's/boxfilter --width 8192 --height 8192 --border zero//; s/  */ /g' $O/sweep.txt
python3 scripts/torch-boxfilter.py --width 8192 --height 8192 --radius 1,4,16,64 > $O/torch.txt 2>&1; grep -o '"radius": [0-9]*\|"median_ms": [0-9.]*' $O/torch.txt | tr '\n' ' '; echo
bench B
timeout 300 build/tests/test_nvrtc > $O/test-nvrtc.txt 2>&1 &
timeout 300 stdbuf -oL build/tests/test_backends boxfilter cuda sliding > $O/test-cuda-sliding.txt 2>&1 &
timeout 300 stdbuf -oL build/tests/test_backends boxfilter opencl:gpu sliding > $O/test-opencl-sliding.txt 2>&1 &
wait
for f in $O/test-*.txt; do echo "$f: $(tail -n 1 $f)"; done; grep -h FAIL $O/test-*.txt | head -5
tar -C $OUT -czf $OUT/run48.tgz run48 && rm -rf $O
