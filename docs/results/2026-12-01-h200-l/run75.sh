# Session 16, run 75: plan75.txt by default and with COALESCE_CUDA_CARVEOUT=100.
# The device tool: carry [".gpu"], command `timeout 300 bash docs/results/2026-12-01-h200-l/run75.sh`.
source scripts/device-run.sh run75
run_sweep docs/results/2026-12-01-h200-l/plan75.txt
COALESCE_CUDA_CARVEOUT=100 run_sweep docs/results/2026-12-01-h200-l/plan75.txt -carveout100
run_pack
