source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=/tmp/cocache
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build --target coalesce -j 16 > /tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
VERIFY=1 REPS=7 scripts/sweep.sh .gpu/plan44.txt 2>&1 | tee $OUT/sweep44.txt
