# Sourced by the shell tests (. "$(dirname "$0")/harness.sh"): a temporary
# directory removed at exit, with the cache in it (measured ceilings and
# compiled kernels never land in the user's cache), and the counters.
#   ok / no MESSAGE    count a check that passed / print and count one that failed
#   summary [NAME]     print the counts; its status is the test's (0: none failed)
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
COALESCE_CACHE_DIR="$tmp/cache"
export COALESCE_CACHE_DIR
ok() { pass=$((pass + 1)); }
no() { echo "FAIL $*"; fail=$((fail + 1)); }
summary() {
    echo "${1:+$1: }$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
