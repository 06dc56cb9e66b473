# Prepared at the end of session 12, not run: what holds r = 52-60 (15-20% slower than r = 64 with
# less work) and SPLIT=1 (slower with the same instructions spread over more warps), measured by
# ncu in one run; the goals' bench on both GPU backends (NVIDIA OpenCL not re-timed since the -0
# starts) with torch in the same run; SPLIT=1 against the default at r = 52-64 in one run (r = 56:
# 0.1927 with it in run 46, 0.1983 without in run 47, two machines).
source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=/tmp/cocache
O=$OUT/run50; mkdir -p $O
{ date -u +"%Y-%m-%d %H:%M UTC"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git rev-parse --short HEAD; } > $O/machine.txt
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build --target coalesce -j 16 > /tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
build/coalesce peak --device cuda,opencl:gpu > $O/peak.txt 2>&1; grep copy $O/peak.txt
goal() { for R in 1 4 16 64; do build/coalesce bench boxfilter --device cuda,opencl:gpu --variant sliding --reps 10 --json --set "width=8192 height=8192 radius=$R border=zero" > $O/bench$1-r$R.json 2>/dev/null; echo "$1 r=$R $(grep -o '"median_ms": [0-9.]*\|"fraction": [0-9.]*\|"check": "[a-z]*"' $O/bench$1-r$R.json | tr '\n' ' ')"; done; }
goal A
python3 scripts/torch-boxfilter.py --width 8192 --height 8192 --radius 1,4,16,64 > $O/torch.txt 2>&1; grep -o '"radius": [0-9]*\|"median_ms": [0-9.]*' $O/torch.txt | tr '\n' ' '; echo
prof() { # NAME RADIUS [PARAM=V ...]
  local n=$1 r=$2; shift 2; local p=(); for x in "$@"; do p+=(--param "$x"); done
  timeout 120 /usr/local/cuda/bin/ncu --clock-control none -k box_ring -c 1 --section SpeedOfLight --section WarpStateStats \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,sm__cycles_active.avg,launch__registers_per_thread,launch__grid_size,launch__block_size,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,lts__t_sectors_srcunit_tex_op_read.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio \
    build/coalesce run boxfilter --device cuda --variant sliding --width 8192 --height 8192 --border zero --reps 1 --warmup 0 --no-verify --radius $r "${p[@]}" > $O/ncu-$n.txt 2>&1
  echo "== $n"; grep -E "stalled|smsp__inst|bank|sectors|issue_active|dram__bytes|Duration|grid_size|block_size|registers" $O/ncu-$n.txt | sed 's/  */ /g'
}
{ prof r64 64; prof r64-split 64 SPLIT=1; prof r56 56; prof r60 60; } > $O/ncu.txt 2>&1
grep -E "^==|inst_executed.sum|Duration|issue_active|bank" $O/ncu.txt
VERIFY=1 REPS=10 scripts/sweep.sh docs/results/2026-12-01-h200-l/plan50.txt > $O/sweep.txt 2>&1; sed 's/boxfilter --width 8192 --height 8192 --border zero//; s/  */ /g' $O/sweep.txt
goal B
tar -C $OUT -czf $OUT/run50.tgz run50 && rm -rf $O
