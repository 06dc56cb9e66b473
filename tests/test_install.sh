#!/bin/sh
# Installs the build into a temporary prefix and uses it as a client would:
# the files in place (soname, man page, CLI), the version everywhere the
# same, the examples built and run through pkg-config (shared, and static
# with --static) and through find_package (shared and static), and the
# package's version file.
#   test_install.sh BUILD_DIR SOURCE_DIR [DEVICE]
# CFLAGS/LDFLAGS go to every example build (the sanitizers, for a sanitized
# library); DEVICE (default omp) is what the examples run on.
set -eu
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd) device=${3:-omp}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "FAIL: $*"; exit 1; }
step() { echo "-- $*"; }

step "cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; fail "install"; }
pc=$(find "$prefix" -name coalesce.pc)
[ -n "$pc" ] || fail "no coalesce.pc installed"
libdir=$(dirname "$(dirname "$pc")")
for f in include/coalesce.h bin/coalesce share/man/man1/coalesce.1; do
    [ -f "$prefix/$f" ] || fail "$f not installed"
done
for f in libcoalesce.a libcoalesce.so libcoalesce.so.0 cmake/coalesce/coalesceConfig.cmake \
         cmake/coalesce/coalesceConfigVersion.cmake cmake/coalesce/coalesceTargets.cmake; do
    [ -e "$libdir/$f" ] || fail "$libdir/$f not installed"
done

export PKG_CONFIG_PATH="$libdir/pkgconfig"
version=$(pkg-config --modversion coalesce)
step "version $version: soname, CLI, header, library"
soname=$(readelf -d "$libdir/libcoalesce.so" | sed -n 's/.*SONAME.*\[\(.*\)\]/\1/p')
[ "$soname" = libcoalesce.so.0 ] || fail "soname '$soname', expected libcoalesce.so.0"
[ -f "$libdir/libcoalesce.so.$version" ] || fail "libcoalesce.so.$version not installed"
cli=$("$prefix/bin/coalesce" --version)
[ "$cli" = "coalesce $version" ] || fail "coalesce --version says '$cli', coalesce.pc $version"
cat >"$tmp/version.c" <<'C'
#include <coalesce.h>
#include <stdio.h>
#include <string.h>
#define STR2(x) #x
#define STR(x) STR2(x)
int main(void) {
    const char *parts = STR(COALESCE_VERSION_MAJOR) "." STR(COALESCE_VERSION_MINOR) "." STR(
        COALESCE_VERSION_PATCH);
    printf("%s\n", co_version());
    return strcmp(co_version(), COALESCE_VERSION) || strcmp(parts, COALESCE_VERSION);
}
C
# shellcheck disable=SC2046,SC2086
${CC:-cc} -std=c11 ${CFLAGS:-} "$tmp/version.c" -o "$tmp/version" $(pkg-config --cflags --libs coalesce) ${LDFLAGS:-}
lib_version=$(LD_LIBRARY_PATH=$libdir "$tmp/version") || fail "header and library disagree: $lib_version"
[ "$lib_version" = "$version" ] || fail "co_version() says '$lib_version', coalesce.pc $version"

# Every example in DIR, on $device, from inside DIR (they write their pictures there).
run_examples() {
    (cd "$1" && LD_LIBRARY_PATH=$libdir ./sgemm "$device" &&
        LD_LIBRARY_PATH=$libdir ./image_pipeline "$device" &&
        [ -s pipeline_in.png ] && [ -s pipeline_out.png ] &&
        mkdir -p frames && LD_LIBRARY_PATH=$libdir ./collider_frames "$device" 6 frames &&
        [ -s frames/frame_005.png ]) || fail "examples in $1 ($2)"
}

step "examples through pkg-config (examples/Makefile), shared"
mkdir "$tmp/pc" "$tmp/pc-static"
make -s -C "$tmp/pc" -f "$src/examples/Makefile" VPATH="$src/examples" CFLAGS="-O2 -Wall -Wextra -Werror ${CFLAGS:-}" LDFLAGS="${LDFLAGS:-}"
readelf -d "$tmp/pc/sgemm" | grep -q 'NEEDED.*\[libcoalesce\.so\.0\]' || fail "sgemm does not need libcoalesce.so.0"
run_examples "$tmp/pc" "pkg-config shared"

step "examples through pkg-config --static"
make -s -C "$tmp/pc-static" -f "$src/examples/Makefile" VPATH="$src/examples" STATIC=1 CFLAGS="-O2 -Wall -Wextra -Werror ${CFLAGS:-}" LDFLAGS="${LDFLAGS:-}"
if readelf -d "$tmp/pc-static/sgemm" | grep -q 'NEEDED.*libcoalesce'; then fail "static sgemm needs libcoalesce.so"; fi
run_examples "$tmp/pc-static" "pkg-config static"

for kind in shared static; do
    step "examples through find_package(coalesce), $kind"
    static=OFF; [ "$kind" = static ] && static=ON
    cmake -S "$src/examples" -B "$tmp/cm-$kind" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCOALESCE_EXAMPLES_STATIC=$static -DCMAKE_C_FLAGS="${CFLAGS:-}" \
        -DCMAKE_EXE_LINKER_FLAGS="${LDFLAGS:-}" >"$tmp/cm.log" 2>&1 || { cat "$tmp/cm.log"; fail "configure examples ($kind)"; }
    cmake --build "$tmp/cm-$kind" >"$tmp/cm.log" 2>&1 || { cat "$tmp/cm.log"; fail "build examples ($kind)"; }
    run_examples "$tmp/cm-$kind" "find_package $kind"
done

step "the package's version file: 0.1 accepted, 1.0 refused"
mkdir "$tmp/ver"
cat >"$tmp/ver/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.20)
project(version_check LANGUAGES NONE)
find_package(coalesce ${WANT} QUIET)
if((coalesce_FOUND AND NOT EXPECT) OR (NOT coalesce_FOUND AND EXPECT))
  message(FATAL_ERROR "find_package(coalesce ${WANT}): found '${coalesce_FOUND}', expected ${EXPECT}")
endif()
CM
for want in "0.1 1" "$version 1" "1.0 0"; do
    # shellcheck disable=SC2086 # split "VERSION EXPECTED"
    set -- $want
    cmake -S "$tmp/ver" -B "$tmp/ver/b$1" -DCMAKE_PREFIX_PATH="$prefix" -DWANT="$1" -DEXPECT="$2" \
        >"$tmp/ver.log" 2>&1 || { cat "$tmp/ver.log"; fail "version file"; }
done
echo "ok: installed, examples built and run through pkg-config and find_package"
