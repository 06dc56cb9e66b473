source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=$OUT/cache
make all > $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
{ date -u +"%Y-%m-%d %H:%M UTC"; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader; git rev-parse --short HEAD; git status --short | head; } > $OUT/machine.txt
VERIFY=1 REPS=7 scripts/sweep.sh .gpu/plan19.txt 2>&1 | tee $OUT/sweep19.txt
build/tests/test_nvrtc > $OUT/test-nvrtc.txt 2>&1; tail -n 1 $OUT/test-nvrtc.txt
mkdir -p $OUT/tests
t() { (timeout 380 build/tests/test_backends "$@" > "$OUT/tests/$(echo "$*" | tr ' :' '-_').txt" 2>&1; echo "rc=$?" >> "$OUT/tests/$(echo "$*" | tr ' :' '-_').txt") & }
for dev in cuda opencl:gpu; do
  for w in gemm raytrace copy reduce grayscale collider; do t $w $dev; done
  for v in naive separable transpose image sliding; do t boxfilter $dev $v; done
done
wait
for f in $OUT/tests/*.txt; do echo "$(basename $f .txt): $(tail -2 $f | tr '\n' ' ')"; done
grep -h '^FAIL' $OUT/tests/*.txt | head -20
cd $OUT && tar czf tests19.tgz machine.txt sweep19.txt test-nvrtc.txt tests && rm -rf tests cache build.log
