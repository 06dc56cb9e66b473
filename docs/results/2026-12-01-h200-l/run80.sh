# Run 80 (session 17): the NVIDIA OpenCL sliding tests with b0970cc's test sets (a 32-row, VEC
# set added), and r = 57-64 by default after the change. The device tool: carry [".gpu"],
# command `timeout 580 bash docs/results/2026-12-01-h200-l/run80.sh`.
source scripts/device-run.sh run80 "coalesce test_backends"
run_sweep docs/results/2026-12-01-h200-l/plan80.txt
TIMEOUT=240 run_tests boxfilter opencl:gpu sliding
run_pack
