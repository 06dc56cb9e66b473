# Session 14, run 66: RGBA8 takes the ring at every radius on GPUs (runs 64-65); the CUDA sliding
# tests (RGBA8 at r = 0, 1, 2 now the ring there) and r = 0 / 1 timed.
source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=/tmp/cocache
O=$OUT/run66; mkdir -p $O
{ date -u +"%Y-%m-%d %H:%M UTC"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log --oneline -1; git status --short; } > $O/machine.txt
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build --target coalesce test_backends -j 16 > /tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
for k in 0 1 2 3 4 5 6 7; do timeout 170 stdbuf -oL build/tests/test_backends boxfilter cuda sliding $k/8 > $O/test-cuda-sliding-$k.txt 2>&1 & done; wait
for f in $O/test-*.txt; do echo "$(basename $f): $(tail -n 1 $f)"; done; grep -h FAIL $O/test-*.txt | head -5
VERIFY=1 REPS=10 scripts/sweep.sh docs/results/2026-12-01-h200-l/plan66.txt > $O/sweep.txt 2>&1; sed 's/boxfilter --width //; s/  */ /g' $O/sweep.txt
tar -C $OUT -czf $OUT/run66.tgz run66 && rm -rf $O
