# Prepared in session 15, not run (no device time left): ZSTORE (the zero border's halo columns
# outside the image load column 0 like the rest and are zeroed where stored, a batch later, not
# by a branch of their own in bf_rows; run 70 had the ring 4% slower with the zero border than
# with clamp at r = 1-4, run 71's zeroing at the load made every load wait) against the default,
# in pairs, at r = 1-64 (r <= 3 through the ring, HIST=0); then the sliding tests.
# The device tool: carry [".gpu"], command `timeout 580 bash docs/results/2026-12-01-h200-l/run72.sh`.
source scripts/device-run.sh run72 "coalesce test_backends"
run_sweep docs/results/2026-12-01-h200-l/plan72.txt
TIMEOUT=120 run_tests boxfilter cuda sliding
TIMEOUT=100 run_tests boxfilter opencl:gpu sliding
run_pack
