# Prepared in session 14, not run (no device time left): XSEG (box_ring's rows below a segment
# taken from the segment below, which publishes them, or in the last segment from the ring,
# instead of loaded and summed again; worked out to save ~1.5% at r = 64) against the default,
# in pairs, at r = 4-64; then the CUDA sliding tests (two XSEG sets among them).
# The device tool: carry [".gpu"], command `timeout 580 bash docs/results/2026-12-01-h200-l/run67.sh`.
source scripts/device-run.sh run67 "coalesce test_backends"
run_sweep docs/results/2026-12-01-h200-l/plan67.txt
run_tests boxfilter cuda sliding
run_pack
