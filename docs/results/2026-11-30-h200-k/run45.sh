source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=/tmp/cocache
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > /dev/null && cmake --build build --target coalesce -j 16 > /tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 1; }
N=/usr/local/cuda/bin/ncu
src() { # NAME RADIUS PARAMS...
  local name=$1 r=$2; shift 2; local ps=(); for p in "$@"; do ps+=(--param "$p"); done
  timeout 60 $N --clock-control none -k box_ring -c 1 --section SourceCounters --section InstructionStats -f -o /tmp/$name \
    build/coalesce run boxfilter --device cuda --variant sliding --width 8192 --height 8192 --border zero --reps 1 --warmup 0 --no-verify --radius $r "${ps[@]}" > /tmp/$name.log 2>&1 || tail -3 /tmp/$name.log
  $N --import /tmp/$name.ncu-rep --page source --csv --print-source sass > $OUT/$name-sass.csv 2> /tmp/$name.err || { cat /tmp/$name.err | head -3; $N --import /tmp/$name.ncu-rep --page source --csv > $OUT/$name-sass.csv 2>&1; }
  $N --import /tmp/$name.ncu-rep --page details > $OUT/$name-details.txt 2>&1
  ls -la $OUT/$name-sass.csv; head -c 300 $OUT/$name-sass.csv; echo
}
src src64 64
src src32 32
