source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=$OUT/cache
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build --target coalesce -j 16 > $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
which ncu || ls /usr/local/cuda*/bin/ncu
prof() { # NAME RADIUS PARAMS...
  local name=$1 r=$2; shift 2; local ps=(); for p in "$@"; do ps+=(--param "$p"); done
  timeout 60 ncu --clock-control none -k box_ring -c 1 --section LaunchStats --section Occupancy --section WarpStateStats --section SpeedOfLight \
    build/coalesce run boxfilter --device cuda --variant sliding --width 8192 --height 8192 --border zero --reps 1 --warmup 0 --no-verify --radius $r "${ps[@]}" > $OUT/ncu-$name.txt 2>&1
  echo "== $name r=$r $*"; grep -E "Duration|Registers Per|Block Limit|Theoretical Occ|Achieved Occ|Waves Per|Grid Size|Block Size|Issued Warp|Stall Barrier|Dynamic Shared|Memory Throughput" $OUT/ncu-$name.txt | sed 's/  */ /g'
}
prof r1-256x32 1 RING=1 NT=256 BATCH=32
prof r1-256x16 1 RING=1 NT=256 BATCH=16
prof r1-128x16 1 RING=1 NT=128 BATCH=16
prof r1-512x16 1 RING=1 NT=512 BATCH=16
prof r64-256x32 64
rm -rf $OUT/cache $OUT/build.log
