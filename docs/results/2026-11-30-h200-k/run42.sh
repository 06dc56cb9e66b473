source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=/tmp/cocache
make all > /tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
cmake --build build --target test_backends -j 16 > /dev/null
VERIFY=1 REPS=7 scripts/sweep.sh .gpu/plan42.txt 2>&1 | tee $OUT/sweep42.txt
timeout 330 stdbuf -oL build/tests/test_backends boxfilter opencl:gpu sliding > $OUT/test-opencl-sliding.txt 2>&1
tail -n 2 $OUT/test-opencl-sliding.txt
