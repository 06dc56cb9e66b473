source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=/tmp/cocache
{ date -u +"%Y-%m-%d %H:%M UTC"; git rev-parse --short HEAD; } > $OUT/machine41.txt
make all > /tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
cmake --build build --target test_backends -j 16 > /dev/null
prof() { # NAME KERNEL RADIUS
  timeout 100 /usr/local/cuda/bin/ncu --clock-control none -k $2 -c 1 --section SpeedOfLight --section WarpStateStats \
    --metrics smsp__inst_executed.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,smsp__inst_executed_op_global_ld.sum,smsp__inst_executed_op_global_st.sum,sm__cycles_active.avg,launch__registers_per_thread,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__issue_active.avg.pct_of_peak_sustained_active \
    build/coalesce run boxfilter --device cuda --variant sliding --width 8192 --height 8192 --border zero --reps 1 --warmup 0 --no-verify --radius $3 > /tmp/ncu-$1.txt 2>&1
  echo "== $1"; grep -E "smsp__|sm__|launch__|l1tex__|Duration|DRAM Through|L2 Cache|Compute \(SM\)" /tmp/ncu-$1.txt | sed 's/  */ /g'
}
{ prof r1 box_fused 1; prof r32 box_ring 32; prof r64 box_ring 64; } > $OUT/ncu41.txt 2>&1
grep -E "^==|inst_executed|Duration|issue_active" $OUT/ncu41.txt
timeout 330 stdbuf -oL build/tests/test_backends boxfilter cuda sliding > $OUT/test-cuda-sliding.txt 2>&1 &
timeout 330 stdbuf -oL build/tests/test_backends boxfilter opencl:gpu sliding > $OUT/test-opencl-sliding.txt 2>&1 &
for w in copy reduce grayscale gemm collider raytrace; do timeout 300 build/tests/test_backends $w cuda; done > $OUT/test-cuda-others.txt 2>&1
wait
tail -n 1 $OUT/test-cuda-sliding.txt $OUT/test-opencl-sliding.txt; grep -h "passed\|FAIL" $OUT/test-cuda-others.txt | tail -12; grep -h "FAIL" $OUT/test-*.txt | head -5
