# Session 17, run 79: the sweep (plan79.txt: the new r = 64 shape by border, format and size),
# the goals' bench (CUDA and NVIDIA OpenCL, PyTorch's avg_pool2d in the same run, CUDA again at
# r = 1 and 64), then the CUDA sliding tests.
# (Run as run73.sh's steps written out; run_goals, scripts/device-run.sh, does the same since.)
# The device tool: carry [".gpu"], command `timeout 580 bash docs/results/2026-12-01-h200-l/run79.sh`.
source scripts/device-run.sh run79 "coalesce test_backends"
run_sweep docs/results/2026-12-01-h200-l/plan79.txt
run_goals
TIMEOUT=200 run_tests boxfilter cuda sliding
run_pack
