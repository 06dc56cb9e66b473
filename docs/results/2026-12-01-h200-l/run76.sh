# Prepared in session 16 (no device time left): HINTS=4 (the input's loads through the L2 only)
# against the default by radius (plan76.txt), and with 28 KB of L1 (plan76-carveout.txt); then the
# CUDA sliding tests (a test set has HINTS=4).
# The device tool: carry [".gpu"], command `timeout 580 bash docs/results/2026-12-01-h200-l/run76.sh`.
source scripts/device-run.sh run76 "coalesce test_backends"
run_sweep docs/results/2026-12-01-h200-l/plan76.txt
COALESCE_CUDA_CARVEOUT=100 run_sweep docs/results/2026-12-01-h200-l/plan76-carveout.txt -carveout100
TIMEOUT=200 run_tests boxfilter cuda sliding
run_pack
