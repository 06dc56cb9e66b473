#!/bin/sh
# The shared library exports exactly the functions include/coalesce.h
# declares (CO_API), nothing internal and nothing of stb's; the static
# library defines no global stbi_* symbol a client's own stb would clash with.
#   test_symbols.sh LIBCOALESCE.so LIBCOALESCE.a INCLUDE/coalesce.h
set -eu
so=$1 archive=$2 header=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Declared: the preprocessed header (no comments), each "co_NAME (", less the
# header's own static inline helpers (compiled into the caller, not exported).
${CC:-cc} -E -P -x c "$header" | grep -o 'co_[a-z0-9_]*[[:space:]]*(' |
    sed 's/[[:space:](]//g' | sort -u >"$tmp/all"
${CC:-cc} -E -P -x c "$header" | grep -o 'static inline [a-z_ ]*[ *]co_[a-z0-9_]*[[:space:]]*(' |
    grep -o 'co_[a-z0-9_]*' | sort -u >"$tmp/inline"
comm -23 "$tmp/all" "$tmp/inline" >"$tmp/declared"
# Exported: defined dynamic symbols, without a symbol version; the linker's own
# markers (_init, _fini, _edata, _end, __bss_start) are in every library.
nm -D --defined-only "$so" | awk '{print $NF}' | sed 's/@.*//' |
    grep -v -x -e _init -e _fini -e _edata -e _end -e __bss_start | sort -u >"$tmp/exported"

fail=0
if [ ! -s "$tmp/declared" ]; then
    echo "FAIL: no co_ function found in $header"
    fail=1
fi
extra=$(comm -13 "$tmp/declared" "$tmp/exported")
if [ -n "$extra" ]; then
    echo "FAIL: $so exports $(echo "$extra" | wc -l) symbols the header does not declare:"
    echo "$extra" | head -20 | sed 's/^/  /'
    fail=1
fi
missing=$(comm -23 "$tmp/declared" "$tmp/exported")
if [ -n "$missing" ]; then
    echo "FAIL: declared in $header but not exported (CO_API missing?):"
    echo "$missing" | sed 's/^/  /'
    fail=1
fi
stb=$(nm --defined-only "$archive" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[A-Z]$/ && $3 ~ /^stbi/ {print $3}')
if [ -n "$stb" ]; then
    echo "FAIL: $archive defines global stb symbols: $(echo "$stb" | head -5 | tr '\n' ' ')"
    fail=1
fi
[ "$fail" = 0 ] && echo "ok: $(wc -l <"$tmp/exported") symbols exported, all declared in the header"
exit "$fail"
