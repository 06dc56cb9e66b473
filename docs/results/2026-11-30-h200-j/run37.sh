source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=$OUT/cache
{ date -u +"%Y-%m-%d %H:%M UTC"; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader; git rev-parse --short HEAD; } > $OUT/machine.txt
make all > $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
cmake --build build --target test_backends test_nvrtc -j 16 > /dev/null
( build/tests/test_nvrtc > $OUT/test-nvrtc.txt 2>&1 ) &
build/coalesce peak --device cuda,opencl:gpu > $OUT/peak.txt 2>&1; grep copy $OUT/peak.txt
for R in 1 4 16 64; do build/coalesce bench boxfilter --device cuda,opencl:gpu --variant sliding --reps 10 --json --set "width=8192 height=8192 radius=$R border=zero" > $OUT/bench-r$R.json 2>$OUT/bench-r$R.err; echo "r=$R $(grep -o '"median_ms": [0-9.]*\|"fraction": [0-9.]*\|"check": "[a-z]*"' $OUT/bench-r$R.json | tr '\n' ' ')"; done
python3 scripts/torch-boxfilter.py --width 8192 --height 8192 --radius 1,16,64 > $OUT/torch.txt 2>&1; grep -o '"radius": [0-9]*\|"median_ms": [0-9.]*' $OUT/torch.txt | tr '\n' ' '; echo
wait
VERIFY=1 REPS=7 scripts/sweep.sh .gpu/plan37.txt 2>&1 | tee $OUT/sweep37.txt
timeout 320 stdbuf -oL build/tests/test_backends boxfilter cuda sliding > $OUT/test-cuda-sliding.txt 2>&1 &
timeout 320 stdbuf -oL build/tests/test_backends boxfilter opencl:gpu sliding > $OUT/test-opencl-sliding.txt 2>&1
wait
tail -n 1 $OUT/test-nvrtc.txt; tail -n 1 $OUT/test-cuda-sliding.txt $OUT/test-opencl-sliding.txt; grep -h "FAIL" $OUT/test-*.txt | head -5
rm -rf $OUT/cache $OUT/bench-r*.err $OUT/build.log
