# Session 14: the ring from r = 4 (measured on float32, zero border, 8192^2) against the
# vertical-first pass (RING=0) for RGBA8, the clamp border and a 1080p image.
source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=/tmp/cocache
O=$OUT/run64; mkdir -p $O
{ date -u +"%Y-%m-%d %H:%M UTC"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log --oneline -1; git status --short; } > $O/machine.txt
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build --target coalesce -j 16 > /tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
VERIFY=1 REPS=10 scripts/sweep.sh docs/results/2026-12-01-h200-l/plan64.txt > $O/sweep.txt 2>&1; sed 's/boxfilter --width //; s/  */ /g' $O/sweep.txt
tar -C $OUT -czf $OUT/run64.tgz run64 && rm -rf $O
