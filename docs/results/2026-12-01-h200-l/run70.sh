# Session 15: the zero border against clamp, r = 1-4, vertical first (default) and the ring (HIST=0)
# at 8192^2 and 4096^2 (run 69 had the ring faster with clamp; run 61 slower with zero).
# The device tool: carry [".gpu"], command `timeout 580 bash docs/results/2026-12-01-h200-l/run70.sh`.
source scripts/device-run.sh run70 "coalesce"
run_sweep docs/results/2026-12-01-h200-l/plan70.txt
run_pack
