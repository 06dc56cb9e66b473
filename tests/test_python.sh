#!/bin/sh
# The Python bindings' tests (python/tests) against the library just built.
# usage: test_python.sh LIBCOALESCE.so CLI
# Exit 77 (skipped) only where no python3 with numpy is found.
lib=$1 cli=$2
here=$(cd "$(dirname "$0")/.." && pwd)
py=
for p in "${PYTHON:-}" python3 /usr/bin/python3; do
    [ -n "$p" ] && "$p" -c "import numpy, pytest" 2>/dev/null && { py=$p; break; }
done
[ -n "$py" ] || { echo "skip: no python3 with numpy and pytest"; exit 77; }
# A sanitized library needs its runtimes loaded first, and python's own
# allocations are not ours to check for leaks.
preload=
for rt in libasan libubsan; do
    so=$(ldd "$lib" | awk -v r="$rt" '$1 ~ r {print $3; exit}')
    [ -n "$so" ] && preload="$preload $so"
done
export LD_PRELOAD="${preload# }" ASAN_OPTIONS="detect_leaks=0:protect_shadow_gap=0"
export COALESCE_LIBRARY=$lib COALESCE_CLI=$cli PYTHONPATH="$here/python${PYTHONPATH:+:$PYTHONPATH}"
exec "$py" -m pytest -q -p no:cacheprovider "$here/python/tests"
