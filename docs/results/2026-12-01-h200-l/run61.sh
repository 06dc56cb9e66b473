# Session 14, the tree with ring_segment counting the shape's groups and the ring on GPUs from
# r = 3: the goal radii and r = 3 (vertical first against the ring), r = 20-64 as they are
# now, r = 64 with 32-row batches unpipelined.
source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=/tmp/cocache
O=$OUT/run61; mkdir -p $O
{ date -u +"%Y-%m-%d %H:%M UTC"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log --oneline -1; git status --short; } > $O/machine.txt
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build --target coalesce test_backends -j 16 > /tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
VERIFY=1 REPS=10 scripts/sweep.sh docs/results/2026-12-01-h200-l/plan61.txt > $O/sweep.txt 2>&1; sed 's/boxfilter --width 8192 --height 8192 --border zero//; s/  */ /g' $O/sweep.txt
for k in 0 1 2 3 4 5 6 7; do timeout 240 stdbuf -oL build/tests/test_backends boxfilter cuda sliding $k/8 > $O/test-cuda-sliding-$k.txt 2>&1 & done; wait
for f in $O/test-*.txt; do echo "$(basename $f): $(tail -n 1 $f)"; done; grep -h FAIL $O/test-*.txt | head -5
tar -C $OUT -czf $OUT/run61.tgz run61 && rm -rf $O
