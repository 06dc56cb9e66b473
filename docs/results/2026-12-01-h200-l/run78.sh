# Run 78 (session 17): plan78.txt, strips of 192 columns at r = 40-64. The device tool: carry
# [".gpu"], command `timeout 580 bash docs/results/2026-12-01-h200-l/run78.sh`.
source scripts/device-run.sh run78 coalesce
run_sweep docs/results/2026-12-01-h200-l/plan78.txt
run_pack
