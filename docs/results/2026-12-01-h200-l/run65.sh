# Session 14: RGBA8 (run 64: the ring 1.4-1.9x faster than vertical first at r = 4-16) and 1080p
# at r = 1 and 3 with the ring (HIST=0) against the default.
source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=/tmp/cocache
O=$OUT/run65; mkdir -p $O
{ date -u +"%Y-%m-%d %H:%M UTC"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log --oneline -1; git status --short; } > $O/machine.txt
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build --target coalesce -j 16 > /tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
VERIFY=1 REPS=10 scripts/sweep.sh docs/results/2026-12-01-h200-l/plan65.txt > $O/sweep.txt 2>&1; sed 's/boxfilter --width //; s/  */ /g' $O/sweep.txt
tar -C $OUT -czf $OUT/run65.tgz run65 && rm -rf $O
