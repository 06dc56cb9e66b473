# Session 16, run 74: the sweep (plan74.txt: 320-column strips at r = 32-60; r = 64 in less
# shared memory or with fewer batches ahead), then the NVIDIA OpenCL sliding tests.
# The device tool: carry [".gpu"], command `timeout 580 bash docs/results/2026-12-01-h200-l/run74.sh`.
source scripts/device-run.sh run74 "coalesce test_backends"
run_sweep docs/results/2026-12-01-h200-l/plan74.txt
TIMEOUT=200 run_tests boxfilter opencl:gpu sliding
run_pack
