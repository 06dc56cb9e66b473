# Prepared at the end of session 13, not run (no device time left): is the ring (two groups of
# 256 columns a compute unit, 16-row batches, VEC) faster than the vertical-first pass with the
# window in registers (HIST) at r <= 16, where the default still takes the latter? Run 52 timed
# the ring at r = 24 in 0.1493 ms and run 48 at r = 20 in 0.1486, against 0.1700-0.1710 for r = 16
# by the vertical-first pass (runs 50-57). HIST=0 sends every radius to the ring's shapes.
# Then the CUDA sliding tests, in case the default changes.
source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=/tmp/cocache
O=$OUT/run59; mkdir -p $O
{ date -u +"%Y-%m-%d %H:%M UTC"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log --oneline -1; git status --short; } > $O/machine.txt
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build --target coalesce test_backends -j 16 > /tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
VERIFY=1 REPS=10 scripts/sweep.sh docs/results/2026-12-01-h200-l/plan59.txt > $O/sweep.txt 2>&1; sed 's/boxfilter --width 8192 --height 8192 --border zero//; s/  */ /g' $O/sweep.txt
tar -C $OUT -czf $OUT/run59.tgz run59 && rm -rf $O
