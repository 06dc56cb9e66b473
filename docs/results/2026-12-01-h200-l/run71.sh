# Session 15: bf_rows without a branch of its own for the zero border's columns outside the
# image (run 70: the ring 4% slower with the zero border than with clamp at r = 1-4, 8192^2):
# zero against clamp, the vertical-first pass (default to r = 3) against the ring (HIST=0),
# then the CUDA and NVIDIA OpenCL sliding tests.
# The device tool: carry [".gpu"], command `timeout 580 bash docs/results/2026-12-01-h200-l/run71.sh`.
source scripts/device-run.sh run71 "coalesce test_backends"
run_sweep docs/results/2026-12-01-h200-l/plan71.txt
TIMEOUT=120 run_tests boxfilter cuda sliding
TIMEOUT=100 run_tests boxfilter opencl:gpu sliding
run_pack
