source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=$OUT/cache
{ date -u +"%Y-%m-%d %H:%M UTC"; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader; git rev-parse --short HEAD; } > $OUT/machine.txt
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build --target coalesce -j 16 > $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
VERIFY=1 REPS=7 scripts/sweep.sh .gpu/plan34.txt 2>&1 | tee $OUT/sweep34.txt
prof() { # NAME KERNEL RADIUS PARAMS...
  local name=$1 kern=$2 r=$3; shift 3; local ps=(); for p in "$@"; do ps+=(--param "$p"); done
  timeout 100 /usr/local/cuda/bin/ncu --clock-control none -k $kern -c 1 --section SpeedOfLight \
    --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio,smsp__inst_executed.sum,sm__cycles_active.avg \
    build/coalesce run boxfilter --device cuda --variant sliding --width 8192 --height 8192 --border zero --reps 1 --warmup 0 --no-verify --radius $r "${ps[@]}" > $OUT/ncu-$name.txt 2>&1
  echo "== $name r=$r $*"; grep -E "Duration|stalled_.*ratio|inst_executed.sum|cycles_active" $OUT/ncu-$name.txt | sed 's/  */ /g' | awk '$NF+0 >= 0.1 || !/stalled/'
}
rm -rf $OUT/cache $OUT/build.log
