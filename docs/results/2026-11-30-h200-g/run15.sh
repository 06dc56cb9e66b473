source .gpu/gpu-env.sh
export COALESCE_CACHE_DIR=$OUT/cache
make all > $OUT/build.log 2>&1 || { tail -20 $OUT/build.log; exit 1; }
n=0; bad=0
for dev in cuda opencl:gpu; do for r in 1 7 31 64; do for sz in "3 5" "100 37" "613 301"; do for fb in "f32 zero" "rgba8 reflect101"; do
  set -- $sz $fb
  out=$(timeout 20 build/coalesce run boxfilter --device $dev --variant sliding --param RING=1 --param PITCH=1 --width $1 --height $2 --radius $r --format $3 --border $4 --reps 1 2>&1)
  n=$((n+1)); echo "$out" | grep -q "verified" || { bad=$((bad+1)); echo "FAIL $dev r=$r $*: $(echo "$out" | grep -m1 -i 'wrong\|error')"; }
done; done; done; done
echo "ring PITCH=1 checks: $n runs, $bad not verified"
rm -rf $OUT/cache $OUT/build.log
