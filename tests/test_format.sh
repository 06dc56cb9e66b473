#!/bin/sh
# One style: the C sources (src, tools, tests, include, examples) as .clang-format says.
# Kernels (kernels/*.cl, *.comp) are OpenCL C and GLSL behind the dialect's macros, which
# clang-format's C mode would reflow: they keep the style by hand.
# Usage: test_format.sh SOURCE_DIR
cd "${1:?usage: test_format.sh SOURCE_DIR}" || exit 1
command -v clang-format >/dev/null || { echo "skip: no clang-format (make setup installs it)"; exit 77; }
files=$(git ls-files 'src/*.c' 'src/*.h' 'tools/*.c' 'tools/*.h' 'tests/*.c' 'include/*.h' \
        'examples/*.c' 2>/dev/null)
[ -n "$files" ] || files=$(find src tools tests include examples -name '*.[ch]')
bad=0
for f in $files; do
    clang-format --dry-run --Werror --style=file "$f" >/dev/null 2>&1 ||
        { echo "FAIL $f: not in the style of .clang-format (run: clang-format -i $f)"; bad=$((bad + 1)); }
done
n=$(echo "$files" | wc -w)
echo "$((n - bad)) passed, $bad failed"
[ "$bad" = 0 ]
