# Session 14: run 59 found the ring slow at r = 12 / 16 only; the segments (ring_segment) count
# the groups a compute unit holds by local memory alone (3 there), not by registers (2): 384
# groups on 264 slots. SEG=1024 gives 8 segments, 256 groups, as at r = 20.
source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=/tmp/cocache
O=$OUT/run60; mkdir -p $O
{ date -u +"%Y-%m-%d %H:%M UTC"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log --oneline -1; git status --short; } > $O/machine.txt
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build --target coalesce test_backends -j 16 > /tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
VERIFY=1 REPS=10 scripts/sweep.sh docs/results/2026-12-01-h200-l/plan60.txt > $O/sweep.txt 2>&1; sed 's/boxfilter --width 8192 --height 8192 --border zero//; s/  */ /g' $O/sweep.txt
tar -C $OUT -czf $OUT/run60.tgz run60 && rm -rf $O
