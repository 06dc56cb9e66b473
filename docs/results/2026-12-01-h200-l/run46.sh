# Prepared at the end of the eleventh session, not run (no device time left): the -0 change timed.
source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=/tmp/cocache
{ date -u +"%Y-%m-%d %H:%M UTC"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; } > $OUT/machine46.txt
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build --target coalesce -j 16 > /tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
build/coalesce peak --device cuda > $OUT/peak46.txt 2>&1
for R in 1 4 16 64; do build/coalesce bench boxfilter --device cuda --variant sliding --reps 10 --json --set "width=8192 height=8192 radius=$R border=zero" > $OUT/bench46-r$R.json 2>/dev/null; echo "r=$R $(grep -o '"median_ms": [0-9.]*\|"fraction": [0-9.]*\|"check": "[a-z]*"' $OUT/bench46-r$R.json | tr '\n' ' ')"; done
VERIFY=1 REPS=10 scripts/sweep.sh docs/results/2026-12-01-h200-l/plan46.txt 2>&1 | tee $OUT/sweep46.txt
python3 scripts/torch-boxfilter.py --width 8192 --height 8192 --radius 1,16 > $OUT/torch46.txt 2>&1; grep -o '"radius": [0-9]*\|"median_ms": [0-9.]*' $OUT/torch46.txt | tr '\n' ' '
