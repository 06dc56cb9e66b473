# Session 16, run 73: the sweep (plan73.txt: wider strips at r = 64, the ring against vertical
# first at r <= 3 with each border), the goals' bench (CUDA and NVIDIA OpenCL, PyTorch's
# avg_pool2d in the same run, CUDA again at r = 1 and 64), then the CUDA sliding tests.
# The device tool: carry [".gpu"], command `timeout 580 bash docs/results/2026-12-01-h200-l/run73.sh`.
source scripts/device-run.sh run73 "coalesce test_backends"
run_sweep docs/results/2026-12-01-h200-l/plan73.txt
build/coalesce peak --device cuda,opencl:gpu >"$O/peak.txt" 2>&1; grep copy "$O/peak.txt"
bench() { for R in $2; do build/coalesce bench boxfilter --device $1 --variant sliding --reps 10 --json --set "width=8192 height=8192 radius=$R border=zero" >"$O/bench-$1-$3r$R.json" 2>/dev/null; echo "$1 r=$R $(grep -o '"device": "[a-z:]*"\|"median_ms": [0-9.]*\|"fraction": [0-9.]*\|"check": "[a-z]*"' "$O/bench-$1-$3r$R.json" | tr '\n' ' ')"; done; }
bench cuda,opencl:gpu "1 4 16 64"
python3 scripts/torch-boxfilter.py --width 8192 --height 8192 --radius 1,4,16,64 >"$O/torch.txt" 2>&1
grep -o '"radius": [0-9]*\|"median_ms": [0-9.]*' "$O/torch.txt" | tr '\n' ' '; echo
bench cuda "1 64" again-
TIMEOUT=200 run_tests boxfilter cuda sliding
run_pack
