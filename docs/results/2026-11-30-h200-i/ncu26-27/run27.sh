source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=$OUT/cache
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build --target coalesce -j 16 > $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
prof() { # NAME RADIUS PARAMS...
  local name=$1 r=$2; shift 2; local ps=(); for p in "$@"; do ps+=(--param "$p"); done
  timeout 100 /usr/local/cuda/bin/ncu --clock-control none -k box_ring -c 1 --print-metric-instances values \
    --metrics sass__inst_executed_per_opcode,smsp__inst_executed.sum,gpu__time_duration.sum,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio \
    build/coalesce run boxfilter --device cuda --variant sliding --width 8192 --height 8192 --border zero --reps 1 --warmup 0 --no-verify --radius $r "${ps[@]}" > $OUT/ncu-$name.txt 2>&1
  echo "== $name r=$r $*"; grep -E "sass__inst|smsp__inst|duration|barrier" $OUT/ncu-$name.txt | sed 's/  */ /g'
}
prof r64-old32 64
prof r64-old16 64 RING=1 NT=256 BATCH=16 PF=1
prof r64-pipe16 64 RING=1 PIPE=1 NT=256 PF=1
rm -rf $OUT/cache $OUT/build.log
