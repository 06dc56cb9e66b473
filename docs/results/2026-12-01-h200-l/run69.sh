# Session 15: float32 at r <= 3 on GPUs, the vertical-first pass (default) against the ring
# (HIST=0), by image size: runs 64-65 had the ring 5-10% faster at 1080p, 1-3% slower at 8192^2.
# The device tool: carry [".gpu"], command `timeout 580 bash docs/results/2026-12-01-h200-l/run69.sh`.
source scripts/device-run.sh run69 "coalesce"
run_sweep docs/results/2026-12-01-h200-l/plan69.txt
run_pack
