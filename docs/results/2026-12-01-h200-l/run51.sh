# Session 13, run 51: the ring's horizontal pass four columns at a time (VEC, on by default where
# the radius is compiled in) against VEC=2 (as before) at r = 24-64, the goals' bench before and
# after, and the CUDA / NVIDIA OpenCL sliding tests in shards (with the new VEC=1 test lines).
source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=/tmp/cocache
O=$OUT/run51; mkdir -p $O
{ date -u +"%Y-%m-%d %H:%M UTC"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git rev-parse --short HEAD; git status --short; } > $O/machine.txt
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build --target coalesce test_backends -j 16 > /tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
build/coalesce peak --device cuda > $O/peak.txt 2>&1; grep copy $O/peak.txt
bench() { for R in 1 4 16 64; do build/coalesce bench boxfilter --device cuda --variant sliding --reps 10 --json --set "width=8192 height=8192 radius=$R border=zero" > $O/bench$1-r$R.json 2>/dev/null; echo "$1 r=$R $(grep -o '"median_ms": [0-9.]*\|"fraction": [0-9.]*\|"check": "[a-z]*"' $O/bench$1-r$R.json | tr '\n' ' ')"; done; }
bench A
VERIFY=1 REPS=10 scripts/sweep.sh docs/results/2026-12-01-h200-l/plan51.txt > $O/sweep.txt 2>&1; sed 's/boxfilter --width 8192 --height 8192 --border zero//; s/  */ /g' $O/sweep.txt
for k in 0 1 2 3 4 5 6 7; do timeout 200 stdbuf -oL build/tests/test_backends boxfilter cuda sliding $k/8 > $O/test-cuda-sliding-$k.txt 2>&1 & done
for k in 0 1 2 3; do timeout 200 stdbuf -oL build/tests/test_backends boxfilter opencl:gpu sliding $k/4 > $O/test-opencl-sliding-$k.txt 2>&1 & done
wait
for f in $O/test-*.txt; do echo "$(basename $f): $(tail -n 1 $f)"; done; grep -h FAIL $O/test-*.txt | head -5
bench B
tar -C $OUT -czf $OUT/run51.tgz run51 && rm -rf $O
