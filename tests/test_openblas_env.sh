#!/bin/sh
# The OpenBLAS anchor on the library COALESCE_OPENBLAS names: its scipy_ prefix found and called
# with the right arguments (a verified result), an unprefixed one used instead of the linked
# OpenBLAS (a stand-in that is wrong on purpose fails verification), and a path that cannot be
# used (missing, or no cblas_sgemm) makes the variant unavailable with the reason (exit 3).
# Usage: test_openblas_env.sh path/to/coalesce FAKE_PREFIXED.so FAKE_WRONG.so
CO=${1:?usage: test_openblas_env.sh COALESCE FAKE_PREFIXED FAKE_WRONG}
good=${2:?} wrong=${3:?}
pass=0 fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export COALESCE_CACHE_DIR="$tmp/cache"
# check CODE PATTERN LIBRARY: exit code and a line of the output matching PATTERN
check() {
    COALESCE_OPENBLAS=$3 "$CO" run gemm --device omp --variant openblas --m 33 --n 17 --k 9 \
        --reps 1 >"$tmp/out" 2>&1
    got=$?
    if [ "$got" -ne "$1" ] || ! grep -Eq -- "$2" "$tmp/out"; then
        echo "FAIL COALESCE_OPENBLAS=$3: exit $got (expected $1), output: $(head -n 3 "$tmp/out")"
        fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
}
check 0 "verified" "$good"
check 1 "WRONG RESULT" "$wrong"
check 3 "COALESCE_OPENBLAS=$tmp/none.so cannot be opened" "$tmp/none.so"
check 3 "has neither cblas_sgemm nor scipy_cblas_sgemm" "$(dirname "$good")/libnothing.so"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
