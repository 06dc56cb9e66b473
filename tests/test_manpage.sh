#!/bin/sh
# docs/coalesce.1 keeps up with the code: every COALESCE_* variable the
# library or the CLI reads, every command and every exit code is in it.
#   test_manpage.sh SOURCE_DIR
set -eu
src=$1 man=$1/docs/coalesce.1
fail=0
# COALESCE_POOLS_SET: the CLI's own marker that it re-executed itself.
vars=$(grep -rhoE 'getenv\("COALESCE_[A-Z0-9_]+"\)' "$src/src" "$src/tools" |
       sed 's/getenv("\(.*\)")/\1/' | grep -v -x COALESCE_POOLS_SET | sort -u)
[ -n "$vars" ] || { echo "FAIL: no getenv(\"COALESCE_...\") found under $src"; exit 1; }
for v in $vars; do
    grep -q "^\.B $v\$" "$man" || { echo "FAIL: $v is read by the code but not in $man (ENVIRONMENT)"; fail=1; }
done
for c in devices list run bench peak; do
    grep -q "^\.B $c\$\|^\.BI $c \|^\.BR $c " "$man" || { echo "FAIL: command $c not in $man"; fail=1; }
done
codes=$(sed -n 's/^ *EXIT_[A-Z]* = \([0-9]*\).*/\1/p' "$src/tools/coalesce.c")
[ -n "$codes" ] || { echo "FAIL: no EXIT_* codes found in tools/coalesce.c"; exit 1; }
for e in $codes; do
    sed -n '/^\.SH EXIT STATUS/,/^\.SH/p' "$man" | grep -q "^\.B $e\$" ||
        { echo "FAIL: exit code $e not in $man (EXIT STATUS)"; fail=1; }
done
if command -v groff >/dev/null; then
    w=$(groff -man -ww -z "$man" 2>&1)
    [ -z "$w" ] || { echo "FAIL: groff warns: $w"; fail=1; }
fi
[ "$fail" = 0 ] && echo "ok: $(echo "$vars" | wc -w) variables, 5 commands, $(echo "$codes" | wc -w) exit codes documented"
exit "$fail"
