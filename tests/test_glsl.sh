#!/bin/sh
# A GLSL backend (vulkan or opengl) from the command line: its limits in
# `devices`, a shader that does not compile (CO_ERR_BUILD: our line first,
# then shaderc's log), the SPIR-V cache, a machine without the API's driver
# (listed as unavailable, never a crash), device specs, the ray tracer's
# frames the reference's exactly, grids over the API's group count.
# Skipped (77) where the API has no device here.
# Usage: test_glsl.sh path/to/coalesce vulkan|opengl
CO=${1:?usage: test_glsl.sh path/to/coalesce vulkan|opengl}
API=${2:?usage: test_glsl.sh path/to/coalesce vulkan|opengl}
. "$(dirname "$0")/harness.sh"

# What differs between the two: the limits `devices` shows, the environment that hides the
# driver, and the name of the limit on the group count.
case $API in
vulkan)
    limits='Vulkan: maxComputeWorkGroupInvocations [0-9]*, maxComputeWorkGroupSize [0-9]*x[0-9]*x[0-9]*, maxComputeWorkGroupCount .*maxComputeSharedMemorySize [0-9]* B, subgroup [0-9]* (.*), timestampPeriod'
    no_driver() { VK_DRIVER_FILES=/nonexistent.json VK_ICD_FILENAMES=/nonexistent.json "$@"; }
    group_count=maxComputeWorkGroupCount Api=Vulkan ;;
opengl)
    limits='OpenGL: MAX_COMPUTE_WORK_GROUP_INVOCATIONS [0-9]*, MAX_COMPUTE_WORK_GROUP_SIZE [0-9]*x[0-9]*x[0-9]*, MAX_COMPUTE_WORK_GROUP_COUNT .*MAX_COMPUTE_SHARED_MEMORY_SIZE [0-9]* B, MAX_SHADER_STORAGE_BLOCK_SIZE [0-9]* B, subgroup [0-9]* (.*)'
    no_driver() { __EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent.json "$@"; }
    group_count=MAX_COMPUTE_WORK_GROUP_COUNT Api=OpenGL ;;
*) echo "test_glsl.sh: API is vulkan or opengl, not '$API'" >&2; exit 2 ;;
esac

"$CO" devices >"$tmp/devices" 2>&1
if ! grep -q "^$API:0 " "$tmp/devices"; then
    echo "skip: no $Api device here ($(grep "^$API" "$tmp/devices"))"
    exit 77
fi
grep -q "$limits" "$tmp/devices" && ok ||
    no "devices shows no $Api limits: $(grep -A5 "^$API:0" "$tmp/devices")"
"$CO" devices --json | grep -q "\"limits\": \"$limits" && ok ||
    no "devices --json has no $Api limits"

# A run compiles through shaderc and keeps the SPIR-V; the second run reads it.
"$CO" run copy --device $API --variant vec4 --n 1001 --reps 1 >"$tmp/out" 2>&1 && ok ||
    no "copy vec4 on $API: $(tail -1 "$tmp/out")"
n=$(ls "$tmp/cache/spirv" 2>/dev/null | wc -l)
[ "$n" -ge 1 ] && ok || no "no SPIR-V kept in the cache directory (cache/spirv: $n files)"
magic=$(printf '\003\002\043\007') # SPIR-V's magic number, little-endian
cat "$tmp/cache/spirv/"*.bin | grep -q "$magic" && ok || no "the cache entry holds no SPIR-V"
"$CO" run copy --device $API --variant vec4 --n 1001 --reps 1 >"$tmp/out" 2>&1 && ok ||
    no "copy vec4 from the SPIR-V cache: $(tail -1 "$tmp/out")"

# A shader that does not compile: exit 1, our line first, shaderc's log after it.
mkdir -p "$tmp/kernels"
printf '#if defined(ENTRY_copy_vec4)\nvoid main() { undefined_thing = 1; }\n#endif\n' >"$tmp/kernels/copy.comp"
COALESCE_KERNEL_DIR="$tmp/kernels" "$CO" run copy --device $API --variant vec4 --n 100 \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && ok || no "a broken shader exits $rc, expected 1"
head -1 "$tmp/err" | grep -q "^coalesce: shader copy.comp (entry copy_vec4) failed to build (shaderc" && ok ||
    no "a broken shader's first line: $(head -1 "$tmp/err")"
grep -q "copy.comp:2: error: 'undefined_thing'" "$tmp/err" && ok ||
    no "a broken shader's log names the file and line: $(cat "$tmp/err")"

# An entry point the shader lacks is a build error too, not a crash.
printf '#if defined(ENTRY_copy_other)\nvoid main() {}\n#endif\n' >"$tmp/kernels/copy.comp"
COALESCE_KERNEL_DIR="$tmp/kernels" "$CO" run copy --device $API --variant vec4 --n 100 \
    >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q "failed to build" "$tmp/err" && ok ||
    no "a shader without the entry: exit $rc, $(head -1 "$tmp/err")"

# The collider's reference check holds on a device: a shader that moves one ball's velocity by
# 5% of the top speed a step is a wrong result (the balls it leaves out as sensitive to rounding
# come from the input alone).
mkdir -p "$tmp/wrong"
sed 's|    o\[2 \* n + at\] = vx;|    o[2 * n + at] = at == 500 ? vx + 0.05 : vx;|' \
    "$(dirname "$0")/../kernels/collider.comp" >"$tmp/wrong/collider.comp"
grep -q "at == 500" "$tmp/wrong/collider.comp" && ok || no "the wrong collider shader was not made"
COALESCE_KERNEL_DIR="$tmp/wrong" "$CO" run collider --device $API --variant grid --balls 1000 \
    --width 80 --height 60 --steps 10 --reps 1 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && grep -q "collider/grid on $API:0: error .* is over the tolerance 1" "$tmp/err" &&
    ok || no "one wrong ball of 1000: exit $rc, $(head -1 "$tmp/err")"

# A shader takes a kernel header through #include "NAME.cl" (kernels.c expands it, from the
# kernel directory where it is there): the box filter's border rule from boxfilter_common.cl
# (RING=1: box_ring on any device, where its plan fits, as at this size).
mkdir -p "$tmp/ch"
printf '#error the header from the kernel directory\n' >"$tmp/ch/boxfilter_common.cl"
COALESCE_KERNEL_DIR="$tmp/ch" "$CO" run boxfilter --device $API --variant sliding --radius 2 \
    --width 40 --height 30 --param RING=1 --reps 1 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && head -1 "$tmp/err" | grep -q "^coalesce: shader boxfilter.comp (entry box_ring) failed" &&
    grep -q "boxfilter_common.cl:1: error: .*the header from the kernel directory" "$tmp/err" && ok ||
    no "boxfilter.comp with a broken boxfilter_common.cl: exit $rc, $(cat "$tmp/err")"

# box_ring's batches in flight (PF) are a call each, not an unrolled loop, whose copies spirv-opt
# leaves without `precise`: each batch's compensated sums keep their NoContraction.
no_contraction() {
    "$CO" il boxfilter --device $API --variant sliding --radius 2 --width 40 --height 30 \
        --param RING=1 --param PF="$1" 2>&1 | grep -c ' NoContraction'
}
one=$(no_contraction 1) three=$(no_contraction 3)
[ "$one" -gt 0 ] && [ "$three" -eq $((3 * one)) ] && ok ||
    no "box_ring's NoContraction decorations: $one with PF=1, $three with PF=3 (3 times as many expected)"

# The ray tracer rounds as the host's C does, so its frames are the reference's exactly (PSNR
# inf) at any scene time, whatever the driver's fma() and float sine do: the shader's own
# division, root, fma and sine against the reference's (raytrace.cl's RT_SIN, in double).
for t in 0.5 10.1; do
    for v in local global; do
        "$CO" run raytrace --device $API --variant $v --width 320 --height 200 --time $t --frames 2 \
            --reps 1 >"$tmp/out" 2>&1
        grep -q "verified (psnr inf " "$tmp/out" && ok ||
            no "raytrace $v at t = $t is not the reference's exactly: $(grep -m1 'verified\|WRONG\|rror' "$tmp/out")"
    done
done

# No driver: the loader finds none; the API is listed as unavailable with the reason.
no_driver "$CO" devices >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "^$API *unavailable: $Api: " "$tmp/out" && ok ||
    no "without a driver: exit $rc, $(grep "$API" "$tmp/out")"
no_driver "$CO" run copy --device $API >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 3 ] && grep -q "device '$API' is unavailable: $Api: " "$tmp/err" && ok ||
    no "run on $API without a driver: exit $rc, $(head -1 "$tmp/err")"

# Device specs: $API:N past the last is a skip (3), a malformed one a usage error (2).
"$CO" run copy --device $API:99 >/dev/null 2>&1
rc=$?
[ $rc -eq 3 ] && ok || no "--device $API:99 exits $rc, expected 3"
"$CO" run copy --device $API:x >/dev/null 2>&1
rc=$?
[ $rc -eq 2 ] && ok || no "--device $API:x exits $rc, expected 2"
"$CO" run copy --device "$API:$(grep -c "^$API:" "$tmp/devices" | awk '{print $1 - 1}')" --n 64 \
    --reps 1 >/dev/null 2>&1 && ok || no "the last $API:N does not run"
"$CO" run reduce --device $API --variant shuffle >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 3 ] && grep -q "does not run on $API:0 (it runs on cuda)" "$tmp/err" && ok ||
    no "reduce/shuffle on $API: exit $rc, $(head -1 "$tmp/err")"
# The anchor: the API's own copy (vkCmdCopyBuffer, glCopyNamedBufferSubData), timed on the device.
"$CO" run copy --device $API --variant api --n 1000 --reps 1 >"$tmp/out" 2>&1 && ok ||
    no "copy/api on $API: $(tail -1 "$tmp/out")"

# More groups than the group count allows: dispatches from base groups (x for copy, x and y
# for grayscale), verified; a shader that reads gl_NumWorkGroups is refused (a limit, exit 1)
# rather than split into a wrong answer.
"$CO" run copy --device $API --variant coalesced --local 64 --n 5000001 --reps 1 >"$tmp/out" 2>&1 &&
    ok || no "copy over 78126 groups: $(tail -1 "$tmp/out")"
"$CO" run grayscale --device $API --variant coalesced --local 1x1 --width 3 --height 70000 \
    --reps 1 >"$tmp/out" 2>&1 && ok || no "grayscale over 70000 rows of groups: $(tail -1 "$tmp/out")"
if grep -q "$group_count 65535x" "$tmp/devices"; then
    "$CO" run reduce --device $API --variant multi --param WG=32 --param GROUPS=70000 \
        --n 16777216 --reps 1 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] && grep -q "reads gl_NumWorkGroups, so its dispatch cannot be split" "$tmp/err" &&
        ok || no "reduce/multi over 65535 groups: exit $rc, $(head -1 "$tmp/err")"
fi

summary
