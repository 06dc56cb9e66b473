source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=$OUT/cache
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build --target coalesce -j 16 > $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
prof() { # NAME KERNEL RADIUS PARAMS...
  local name=$1 kern=$2 r=$3; shift 3; local ps=(); for p in "$@"; do ps+=(--param "$p"); done
  timeout 100 /usr/local/cuda/bin/ncu --clock-control none -k $kern -c 1 --section WarpStateStats --section SpeedOfLight --section InstructionStats \
    --metrics regex:smsp__average_warps_issue_stalled_.*_per_issue_active.ratio,smsp__inst_executed.sum,sm__cycles_active.avg \
    build/coalesce run boxfilter --device cuda --variant sliding --width 8192 --height 8192 --border zero --reps 1 --warmup 0 --no-verify --radius $r "${ps[@]}" > $OUT/ncu-$name.txt 2>&1
  echo "== $name r=$r $*"; grep -E "Duration|stalled_.*ratio|Issued Ipc|inst_executed.sum|Warp Cycles Per Issued" $OUT/ncu-$name.txt | sed 's/  */ /g' | awk '$NF+0 >= 0.05 || !/stalled/'
}
prof r64-ring box_ring 64
prof r64-pipe box_ring 64 RING=1 PIPE=1 NT=256 PF=1
prof r1-fused box_fused 1
rm -rf $OUT/cache $OUT/build.log
