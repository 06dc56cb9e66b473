# Session 15: QUAD (the ring's batch rows loaded and stored in local memory four columns at a
# time: 16-byte loads and stores, a quarter of the instructions) against the default, in pairs,
# at r = 4-64; then the CUDA and NVIDIA OpenCL sliding tests (two QUAD sets among them).
# The device tool: carry [".gpu"], command `timeout 580 bash docs/results/2026-12-01-h200-l/run68.sh`.
source scripts/device-run.sh run68 "coalesce test_backends"
run_sweep docs/results/2026-12-01-h200-l/plan68.txt
TIMEOUT=150 run_tests boxfilter cuda sliding
TIMEOUT=120 run_tests boxfilter opencl:gpu sliding
run_pack
