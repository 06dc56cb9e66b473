source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=/tmp/cocache
make all > /tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
cmake --build build --target test_backends test_nvrtc -j 16 > /dev/null
VERIFY=1 REPS=7 scripts/sweep.sh .gpu/plan40.txt 2>&1 | tee $OUT/sweep40.txt
