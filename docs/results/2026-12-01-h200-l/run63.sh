# Session 14, run 63: the goals' bench on the tree with the ring on GPUs from r = 4 and its
# segments from the shape's groups (CUDA and NVIDIA OpenCL, the copy ceiling, PyTorch's
# avg_pool2d in the same run, CUDA again at r = 1, 64, 1, 64), then the sliding tests on both.
source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=/tmp/cocache
O=$OUT/run63; mkdir -p $O
{ date -u +"%Y-%m-%d %H:%M UTC"; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log --oneline -1; git status --short; } > $O/machine.txt
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build --target coalesce test_backends -j 16 > /tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
build/coalesce peak --device cuda,opencl:gpu > $O/peak.txt 2>&1; grep copy $O/peak.txt
bench() { for R in $2; do build/coalesce bench boxfilter --device $1 --variant sliding --reps 10 --json --set "width=8192 height=8192 radius=$R border=zero" > $O/bench-$1-$3r$R.json 2>/dev/null; echo "$1 r=$R $(grep -o '"device": "[a-z:]*"\|"median_ms": [0-9.]*\|"fraction": [0-9.]*\|"check": "[a-z]*"' $O/bench-$1-$3r$R.json | tr '\n' ' ')"; done; }
bench cuda,opencl:gpu "1 4 16 64"
python3 scripts/torch-boxfilter.py --width 8192 --height 8192 --radius 1,4,16,64 > $O/torch.txt 2>&1; grep -o '"radius": [0-9]*\|"median_ms": [0-9.]*' $O/torch.txt | tr '\n' ' '; echo
bench cuda "1 64" again1-; bench cuda "1 64" again2-
for k in 0 1 2 3 4 5 6 7; do timeout 200 stdbuf -oL build/tests/test_backends boxfilter cuda sliding $k/8 > $O/test-cuda-sliding-$k.txt 2>&1 & done; wait
for k in 0 1 2 3 4 5 6 7; do timeout 170 stdbuf -oL build/tests/test_backends boxfilter opencl:gpu sliding $k/8 > $O/test-opencl-sliding-$k.txt 2>&1 & done; wait
for f in $O/test-*.txt; do echo "$(basename $f): $(tail -n 1 $f)"; done; grep -h FAIL $O/test-*.txt | head -5
tar -C $OUT -czf $OUT/run63.tgz run63 && rm -rf $O
