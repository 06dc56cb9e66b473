source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=$OUT/cache
{ date -u +"%Y-%m-%d %H:%M UTC"; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader; git rev-parse --short HEAD; } > $OUT/machine.txt
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build --target coalesce -j 16 > $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
VERIFY=1 REPS=7 scripts/sweep.sh .gpu/plan36.txt 2>&1 | tee $OUT/sweep36.txt
prof() { # NAME KERNEL RADIUS PARAMS...
  local name=$1 kern=$2 r=$3; shift 3; local ps=(); for p in "$@"; do ps+=(--param "$p"); done
  timeout 100 /usr/local/cuda/bin/ncu --clock-control none -k $kern -c 1 \
    --metrics smsp__inst_executed.sum,sm__cycles_active.avg,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,launch__registers_per_thread,gpu__time_duration.sum \
    build/coalesce run boxfilter --device cuda --variant sliding --width 8192 --height 8192 --border zero --reps 1 --warmup 0 --no-verify --radius $r "${ps[@]}" > $OUT/ncu-$name.txt 2>&1
  echo "== $name r=$r $*"; grep -E "inst_executed|cycles_active|local_op|conflicts|registers|duration" $OUT/ncu-$name.txt | sed 's/  */ /g'
}
prof r56-32 box_ring 56 RING=1 NT=256 BATCH=32
prof r48-32 box_ring 48 RING=1 NT=256 BATCH=32
rm -rf $OUT/cache $OUT/build.log
