source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=$OUT/cache
mkdir -p $OUT/r
{ date -u +"%Y-%m-%d %H:%M UTC"; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader; git rev-parse --short HEAD; } > $OUT/r/machine.txt
make all > $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
cmake --build build --target test_backends test_nvrtc -j 16 > /dev/null
gcc -shared -fPIC -O1 -o /tmp/dumpptx.so .gpu/dumpptx.c -ldl -lOpenCL
( build/tests/test_nvrtc > $OUT/r/test-nvrtc.txt 2>&1 ) &
build/coalesce peak --device cuda,opencl:gpu > $OUT/r/peak.txt 2>&1; grep copy $OUT/r/peak.txt
goal() { for R in 1 4 16 64; do build/coalesce bench boxfilter --device cuda,opencl:gpu --variant sliding --reps 10 --json --set "width=8192 height=8192 radius=$R border=zero" > $OUT/r/bench$1-r$R.json 2>$OUT/bench-r$R.err; echo "$1 r=$R $(grep -o '"median_ms": [0-9.]*\|"min_ms": [0-9.]*\|"fraction": [0-9.]*\|"check": "[a-z]*"' $OUT/r/bench$1-r$R.json | tr '\n' ' ')"; done; }
goal A
python3 scripts/torch-boxfilter.py --width 8192 --height 8192 --radius 1,4,16,64 > $OUT/r/torch.txt 2>&1; grep -o '"radius": [0-9]*\|"median_ms": [0-9.]*' $OUT/r/torch.txt | tr '\n' ' '; echo
wait
tail -n 1 $OUT/r/test-nvrtc.txt
VERIFY=1 REPS=7 scripts/sweep.sh .gpu/plan39.txt 2>&1 | tee $OUT/r/sweep39.txt
mkdir -p $OUT/ptx && DUMP_DIR=$OUT/ptx LD_PRELOAD=/tmp/dumpptx.so build/coalesce run boxfilter --device opencl:gpu --variant sliding --width 8192 --height 8192 --radius 1 --border zero --reps 3 | tail -2
goal B
python3 scripts/torch-boxfilter.py --width 8192 --height 8192 --radius 1 > $OUT/r/torch-B.txt 2>&1; grep -o '"radius": [0-9]*\|"median_ms": [0-9.]*' $OUT/r/torch-B.txt | tr '\n' ' '; echo
tar czf $OUT/run39.tgz -C $OUT r ptx cache
rm -rf $OUT/cache $OUT/r $OUT/ptx $OUT/bench-r*.err $OUT/build.log
