# Session 14: r = 64 (now the slowest goal radius) with wider strips, whose halo is a smaller
# share of the columns loaded: 384 columns fit local memory with 8-row batches unpipelined, 320
# pipelined; parts of 16 pixels with 8-row batches (fewer block sums a part start).
source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=/tmp/cocache
O=$OUT/run62; mkdir -p $O
{ date -u +"%Y-%m-%d %H:%M UTC"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log --oneline -1; git status --short; } > $O/machine.txt
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build --target coalesce -j 16 > /tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
VERIFY=1 REPS=10 scripts/sweep.sh docs/results/2026-12-01-h200-l/plan62.txt > $O/sweep.txt 2>&1; sed 's/boxfilter --width 8192 --height 8192 --border zero//; s/  */ /g' $O/sweep.txt
tar -C $OUT -czf $OUT/run62.tgz run62 && rm -rf $O
