# Run 77 (session 17): ncu of the ring by radius, where the time goes at r = 64 against r = 1 and 32
# (one launch each, --clock-control none, default shapes; r = 64 also not pipelined), details and
# per-instruction SASS counters. The device tool: carry [".gpu"], command
# `timeout 580 bash docs/results/2026-12-01-h200-l/run77.sh`.
source scripts/device-run.sh run77 coalesce
prof() { # NAME RADIUS [PARAMS...]
    local name=$1 r=$2; shift 2
    local params=(); for p in "$@"; do params+=(--param "$p"); done
    timeout 150 ncu --clock-control none -k regex:box_ -c 1 \
        --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
        --section SchedulerStats --section MemoryWorkloadAnalysis --section InstructionStats \
        --section ComputeWorkloadAnalysis --section SourceCounters \
        -f -o "/tmp/$name" build/coalesce run boxfilter --device cuda --variant sliding \
        --width 8192 --height 8192 --border zero --reps 1 --warmup 0 --no-verify --radius "$r" \
        "${params[@]}" >"$O/$name-run.txt" 2>&1
    ncu -i "/tmp/$name.ncu-rep" --page details >"$O/$name-details.txt" 2>&1
    ncu -i "/tmp/$name.ncu-rep" --page source --csv --print-source sass >"$O/$name-sass.csv" 2>&1
    grep -E "Duration|Executed Ipc A|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|Registers Per|Shared Memory Config|Achieved Occupancy|L1/TEX Hit|L2 Hit|DRAM Throughput|Executed Instructions  " "$O/$name-details.txt" | sed "s/^/$name /"
}
prof r1 1
prof r32 32
prof r56 56
prof r64 64
prof r64np 64 PIPE=2
run_pack
