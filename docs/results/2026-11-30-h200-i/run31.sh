source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=$OUT/cache
{ date -u +"%Y-%m-%d %H:%M UTC"; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader; git rev-parse --short HEAD; } > $OUT/machine.txt
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build --target coalesce -j 16 > $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }

VERIFY=1 REPS=7 scripts/sweep.sh .gpu/plan31.txt 2>&1 | tee $OUT/sweep31.txt
wait

rm -rf $OUT/cache $OUT/build.log
