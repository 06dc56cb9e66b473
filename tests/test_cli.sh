#!/bin/sh
# The command-line contract: exit codes and one clear error line for every
# kind of bad input, the JSON fields, and the table of bench.
# Usage: test_cli.sh path/to/coalesce
CO=${1:?usage: test_cli.sh path/to/coalesce}
. "$(dirname "$0")/harness.sh"

# expect CODE PATTERN ARGS...: exit code CODE and stderr matching PATTERN
# (grep -E) on its line "coalesce: ..."; usage errors must be one line. (An OpenCL
# compiler may print its own lines, "1 error generated.", before ours.)
expect() {
    code=$1 pattern=$2
    shift 2
    "$CO" "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    first=$(head -n 1 "$tmp/err")
    lines=$(grep -vc '^  ' "$tmp/err")
    if [ "$got" -ne "$code" ]; then
        echo "FAIL coalesce $*: exit $got, expected $code; stderr: $first"
        fail=$((fail + 1))
    elif [ -n "$pattern" ] && ! grep -Eq -- "^coalesce: .*$pattern|^$pattern" "$tmp/err"; then
        echo "FAIL coalesce $*: stderr '$first' does not match '$pattern'"
        fail=$((fail + 1))
    elif [ "$code" -eq 2 ] && [ "$lines" -ne 1 ]; then
        echo "FAIL coalesce $*: $lines lines on stderr, expected one"
        fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
}

has_opencl=0
"$CO" devices --json | grep -q '"spec": "opencl:0"' && has_opencl=1

# Usage errors: exit 2, one line naming what was wrong and what is allowed.
expect 2 "no command given: use devices, list, run, bench, peak, il, tune, compare, report or help"
expect 2 "unknown command 'frobnicate'.*devices, list, run, bench, peak, il, tune, compare, report or help" frobnicate
expect 2 "run takes one WORKLOAD" run
expect 2 "unknown workload 'gemv' \(use gemm" run gemv
expect 2 "unknown option '--bogus' for gemm \(it takes size, m, n, k\)" run gemm --bogus 3
expect 2 "unknown option '-x'" run gemm -x
expect 2 "unknown device 'gpu9'.*present here: c, omp" run gemm --device gpu9
expect 3 "no device 'opencl:99' here \(present here: c, omp" run gemm --device opencl:99
expect 2 "unknown variant 'fastest' for gemm \(use c, omp" run gemm --device c --variant fastest
expect 3 "variant 'naive' of gemm does not run on c \(it runs on opencl, cuda, vulkan, opengl\)" run gemm --device c --variant naive
expect 2 "option --m needs a value" run gemm --m
expect 2 "--m must be a positive integer, got 'abc'" run gemm --device c --m abc
expect 2 "--n must be at least 1, got 0" run gemm --device c --n 0
expect 2 "--k must be a positive integer, got '-5'" run gemm --device c --k -5
expect 2 "--size must be a positive integer, got '1.5'" run gemm --device c --size 1.5
expect 2 "more than 2\^31-1 elements" run gemm --device c --m 100000 --k 100000 --n 1
expect 2 "--reps must be an integer in \[1, 1000\], got '0'" run gemm --reps 0
expect 2 "--seed must be an integer in \[0, 18446744073709551615\]" run gemm --seed x
expect 2 "--local must be X, XxY or XxYxZ" run gemm --local 16x
expect 2 "--local must be X, XxY or XxYxZ" run gemm --local 0x4
expect 2 "--param must be NAME=VALUE" run gemm --param TS
expect 2 "variant 'c' takes no parameters" run gemm --device c --variant c --param TS=4
expect 2 "--json and --csv exclude each other" bench --json --csv
expect 2 "unknown workload 'gemv'" bench gemv
expect 2 "unknown variant 'fastest'" bench gemm --variant fastest
expect 2 "devices takes only --json" devices extra

# Issue 26, each a defect that held: the regression tests.
# A long option value overflowed bench's set text (ASan: stack-buffer-overflow).
long_k="8$(printf '0%.0s' $(seq 250))"
expect 2 "unknown option '--zz' for gemm" bench gemm --device c --variant c --m 8 --n 8 --k "$long_k" --zz 1
expect 2 "make a set of over 255 characters" bench gemm --device c --variant c --m 8 --n 8 --k "$long_k"
expect 2 "the value of --k has 4001 characters, over the 4000" run gemm --device c --k "$(printf '1%.0s' $(seq 4001))"
expect 2 "device spec of 300 characters is over the 255" run gemm --device "$(printf 'c%.0s' $(seq 300))"
# A device named twice is selected once (it said "unknown device 'c'").
"$CO" run gemm --device c,c --size 4 --reps 1 --json >"$tmp/cc.json" 2>"$tmp/cc.err" &&
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert len(r["results"]) == 1 and r["results"][0]["device"]["spec"] == "c"' "$tmp/cc.json" &&
    pass=$((pass + 1)) || { echo "FAIL --device c,c: $(cat "$tmp/cc.err")"; fail=$((fail + 1)); }
expect 0 "" run gemm --device c,omp,c --size 4 --reps 1
# Unknown options are unknown for every command ("--bogus needs a value" before).
expect 2 "unknown option '--bogus': peak takes only --device SPEC, --json, --force and -o FILE" peak --bogus
expect 2 "unknown option '--bogus': devices takes only --json" devices --bogus
expect 2 "unknown option '--bogus': list takes only a WORKLOAD" list --bogus
expect 2 "peak does not take --reps: peak takes only --device SPEC, --json, --force and -o FILE" peak --reps 3
expect 2 "devices does not take --device: devices takes only --json" devices --device c
expect 2 "list does not take --json: list takes only a WORKLOAD" list --json
expect 2 "unknown option '--bogus' for gemm" run gemm --bogus
# The whole uint64 range of --seed; one past it is refused.
expect 0 "" run gemm --device c --size 4 --reps 1 --seed 18446744073709551615
expect 2 "--seed must be an integer in \[0, 18446744073709551615\] \(2\^64-1\), got '18446744073709551616'" run gemm --device c --seed 18446744073709551616
# A --set without NAME=VALUE ran the default size.
expect 2 "--set word 'garbage' is not NAME=VALUE" bench gemm --device c --set garbage
expect 2 "--set '' is empty" bench gemm --device c --set ""
# Exit 3: the device or variant is unavailable here; bench skips what does not run.
expect 3 "nothing ran: no selected variant runs on the selected devices" bench gemm --device c --variant naive
expect 0 "" bench gemm --device c,omp --size 8 --reps 1
"$CO" --help | grep -Eq '^  3 +skipped' && "$CO" --help | grep -Eq '^  130 +interrupted' &&
    pass=$((pass + 1)) || { echo "FAIL --help has no exit-code table"; fail=$((fail + 1)); }
# Every code of --help's table is in the README's, with the same words.
"$CO" --help | sed -n '/^exit codes:/,$p' | grep -E '^  [0-9]+ ' | while read -r code text; do
    grep -Fq "| $code | $text |" "$(dirname "$0")/../README.md" || echo "$code"
done >"$tmp/codes" && [ ! -s "$tmp/codes" ] && pass=$((pass + 1)) ||
    { echo "FAIL README's exit-code table lacks codes $(cat "$tmp/codes")"; fail=$((fail + 1)); }
if [ $has_opencl = 1 ]; then
    # --param past long's range was echoed as 9223372036854775807.
    expect 2 "parameter TS=99999999999999999999 is out of range \[1, 512\]" run gemm --device opencl --variant tiled --param TS=99999999999999999999
    # A kernel directory that is not there: one warning, the built-in kernels.
    COALESCE_KERNEL_DIR="$tmp/no-such-dir" "$CO" bench gemm --device opencl --variant naive,tiled --size 8 --reps 1 \
        >/dev/null 2>"$tmp/kd.err" && [ "$(grep -c "COALESCE_KERNEL_DIR" "$tmp/kd.err")" -eq 1 ] &&
        grep -q "^coalesce: warning: COALESCE_KERNEL_DIR '$tmp/no-such-dir' is not a directory (No such file or directory); using the built-in kernels" "$tmp/kd.err" &&
        pass=$((pass + 1)) || { echo "FAIL COALESCE_KERNEL_DIR missing: $(cat "$tmp/kd.err")"; fail=$((fail + 1)); }
fi

# Limits checked before they bite: exit 1, naming the limit and its value.
# Three 46000^2 matrices (25 GB) exceed a 24 GiB machine; on a larger one
# the same command would start a days-long run, so it is skipped there.
mem_kb=$(awk '/^MemTotal/ {print $2}' /proc/meminfo)
if [ "${mem_kb:-0}" -lt 27000000 ]; then
    expect 1 "needs [0-9]+ bytes .*of host memory \(arrays .*\), over the" run gemm --device c --m 46000 --n 46000 --k 46000
else
    echo "skip host-memory limit test: $((mem_kb / 1048576)) GiB here is more than three matrices take"
fi
# The reference and checks are counted before the first allocation: C (6.4 GB)
# fits the 24 GB host of issue 26, C and its two 12.8 GB reference planes do not.
COALESCE_MAX_HOST_BYTES=24000000000 expect 1 "gemm needs [0-9]+ bytes .*of host memory \(arrays .*, reference and checks 23\.8 GiB\)" run gemm --device c --m 40000 --n 40000 --k 1
if [ $has_opencl = 1 ]; then
    expect 2 "unknown parameter 'TX' for variant 'tiled' \(it takes TS\)" run gemm --device opencl --variant tiled --param TX=4
    expect 2 "parameter TS must be an integer, got 'big'" run gemm --device opencl --variant tiled --param TS=big
    expect 2 "parameter TS=0 is out of range" run gemm --device opencl --variant tiled --param TS=0
    expect 2 "wpt needs TS divisible by WPT" run gemm --device opencl --variant wpt --param TS=32 --param WPT=5
    max_wg=$("$CO" devices --json | python3 -c 'import json,sys; d=[x for x in json.load(sys.stdin)["results"] if x["spec"]=="opencl:0"][0]; print(d["max_work_group_size"])')
    expect 1 "work-group 128x128 = 16384 work-items is over the device's maximum work-group size $max_wg" run gemm --device opencl --variant tiled --param TS=128 --size 64
    expect 1 "insufficient local resources: the kernel needs [0-9]+ bytes of local memory, over the device's [0-9]+ \(local_mem_bytes" run gemm --device opencl --variant wpt --param TS=512 --param WPT=512 --size 64
    expect 1 "over the device's maximum (work-group size|work-item size)" run gemm --device opencl --variant naive --local 8192x1 --size 64
    expect 1 "sliding: QNT=1024 x QB=4 needs 393216 bytes of local memory, over (box_quad's limit|the device's local memory) of [0-9]+; lower QNT or QB" run boxfilter --device opencl --format rgba8 --radius 9 --width 500 --height 300 --param QUAD=1 --param QNT=1024 --param QB=4
    expect 2 "sets its work-group from its tile" run gemm --device opencl --variant tiled --local 8x8 --size 64
    # 8.5 GB per matrix, 25 GB in all: over PoCL's maximum allocation or, where PoCL reports
    # a larger one (it follows the host's free memory), over its global memory; refused before
    # allocating either way.
    expect 1 "(array A needs 8464000000 bytes.*maximum allocation|gemm needs [0-9]+ bytes .* of device memory)" run gemm --device opencl --variant naive --size 46000

    # A kernel that fails to build: exit 1 and its build log.
    mkdir -p "$tmp/k"
    cp "$(dirname "$0")/../kernels/dialect.h" "$tmp/k/"
    printf '__kernel void gemm_naive(const int M) { this is not C; }\n' >"$tmp/k/gemm.cl"
    COALESCE_KERNEL_DIR="$tmp/k" expect 1 "kernel gemm.cl failed to build" run gemm --device opencl --variant naive --size 8
    grep -q "error" "$tmp/err" || { echo "FAIL build log missing"; fail=$((fail + 1)); }
    # Our line first, the driver's lines ("1 error generated.") after it, in the log.
    case $(head -n 1 "$tmp/err") in "coalesce: kernel gemm.cl failed to build"*) ;;
    *) echo "FAIL build error: first stderr line '$(head -n 1 "$tmp/err")'"; fail=$((fail + 1)) ;; esac
    sed -n 2p "$tmp/err" | grep -qx "  build log:" || { echo "FAIL build log not marked"; fail=$((fail + 1)); }

    # A kernel that computes the wrong thing: exit 1, the error over the tolerance.
    sed 's/C\[(size_t)row \* N + col\] = acc;/C[(size_t)row * N + col] = acc * 1.001f;/' \
        "$(dirname "$0")/../kernels/gemm.cl" >"$tmp/k/gemm.cl"
    COALESCE_KERNEL_DIR="$tmp/k" expect 1 "gemm/naive on opencl:0: error .* is over the tolerance" run gemm --device opencl --variant naive --size 40
fi
if "$CO" devices --json | python3 -c 'import json,sys; assert [b for b in json.load(sys.stdin)["backends"] if b["name"] == "cuda" and not b["available"]]' 2>/dev/null; then
    expect 3 "device 'cuda' is unavailable: " run gemm --device cuda
fi

# Success: devices, run --json with its fields, bench's table.
expect 0 "" devices
expect 0 "" --help
"$CO" devices --json | python3 -m json.tool >/dev/null && pass=$((pass + 1)) || {
    echo "FAIL devices --json is not JSON"; fail=$((fail + 1)); }
"$CO" run gemm --device c --m 7 --n 5 --k 3 --json --seed 3 >"$tmp/run.json" && python3 - "$tmp/run.json" <<'PY' && pass=$((pass + 1)) || { echo "FAIL run --json fields"; fail=$((fail + 1)); }
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]  # docs/results-format.md
for key in ["workload", "variant", "device", "sizes", "verified", "error", "times_ms", "rates"]:
    assert key in r, key
assert r["workload"] == "gemm" and r["variant"] == "c" and r["device"]["spec"] == "c"
assert r["sizes"] == {"m": 7, "n": 5, "k": 3} and r["verified"] is True
assert r["error"] <= r["tolerance"] and r["times_ms"]["median"] > 0 and r["rates"]["gflops"]["value"] > 0
PY
"$CO" bench gemm --device c,omp --size 33,17 >"$tmp/bench.txt" 2>/dev/null &&
    [ "$(grep -c ' ok ' "$tmp/bench.txt")" -ge 5 ] && grep -q "size=33\|m=33" "$tmp/bench.txt" &&
    pass=$((pass + 1)) || { echo "FAIL bench table"; cat "$tmp/bench.txt"; fail=$((fail + 1)); }
"$CO" bench gemm --device c --csv --set "m=9 n=8 k=7" >"$tmp/bench.csv" &&
    head -1 "$tmp/bench.csv" | grep -q "^workload,variant,device,device_name,backend,sizes" && grep -q "m=9 n=8 k=7" "$tmp/bench.csv" &&
    pass=$((pass + 1)) || { echo "FAIL bench csv"; fail=$((fail + 1)); }

# raytrace: its options, its images, its limits, and a wrong kernel caught.
expect 2 "--precision must be one of float,double, got 'half'" \
    run raytrace --device c --precision half
expect 2 "--lights=0 is out of range \[1, 8\]" run raytrace --device c --lights 0
expect 2 "--spheres must be an integer" run raytrace --device c --spheres 2.5
expect 2 "--camera inside needs at least one sphere" \
    run raytrace --device c --camera inside --spheres 0
expect 0 "" run raytrace --device c --width 32 --height 24 --frames 2 --reps 1 \
    --output "$tmp/rt.png" --out-dir "$tmp/rt"
for f in "$tmp/rt.png" "$tmp/rt/frame_0000.png" "$tmp/rt/frame_0001.png"; do
    head -c 4 "$f" 2>/dev/null | grep -q PNG && pass=$((pass + 1)) || {
        echo "FAIL raytrace did not write $f"; fail=$((fail + 1)); }
done
if [ $has_opencl = 1 ]; then
    expect 1 "constant memory every OpenCL device has" \
        run raytrace --device opencl --variant constant --spheres 2000 --width 8 --height 8
    # Shadows dropped from the kernel: the image differs from c's.
    mkdir -p "$tmp/rk"
    cp "$(dirname "$0")/../kernels/dialect.h" "$tmp/rk/"
    sed 's/if (rt_blocked(w, n, q, to, dist)) continue;//' \
        "$(dirname "$0")/../kernels/raytrace.cl" >"$tmp/rk/raytrace.cl"
    COALESCE_KERNEL_DIR="$tmp/rk" expect 1 "raytrace/global on opencl:0: error .* is over the tolerance" \
        run raytrace --device opencl --variant global --width 160 --height 90 --reps 1
fi

# copy, reduce, grayscale: sizes, files, a wrong kernel caught, PNG round trips.
expect 2 "--n must be at least 1, got 0" run copy --device c --n 0
expect 2 "--n must be a positive integer, got 'abc'" run reduce --device c --n abc
expect 2 "--row must be at least 1, got 0" run copy --device c --row 0
expect 2 "reduce --n 4294967296: at most 2\^31-1" run reduce --device c --n 4294967296
expect 2 "--input sets the image size" run grayscale --device c --input "$tmp/x.png" --width 4
expect 1 "cannot read image '/nonexistent.png'" run grayscale --device c --input /nonexistent.png
[ "$(wc -l <"$tmp/err")" -eq 1 ] && pass=$((pass + 1)) || {
    echo "FAIL --input /nonexistent.png: more than one line on stderr"; fail=$((fail + 1)); }
expect 1 "cannot write PNG '/nonexistent/g.png': directory '/nonexistent' is missing" run grayscale --device c --width 4 --height 3 --output /nonexistent/g.png
# -o through a symbolic link writes its target (the link stays); into a
# FIFO (or a device: /dev/null) in place, the document once, not a rename
# over it.
echo old >"$tmp/target.json"
ln -s target.json "$tmp/link.json"
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/from_fifo.json" &
reader=$!
"$CO" run copy --device c --n 3 -o "$tmp/link.json" >/dev/null 2>&1
linked=$?
"$CO" run copy --device c --n 3 -o "$tmp/fifo" >/dev/null 2>&1
piped=$?
[ $piped = 0 ] || kill $reader 2>/dev/null # (a run that never opened it)
wait $reader
[ $linked = 0 ] && [ $piped = 0 ] && [ -L "$tmp/link.json" ] && [ -p "$tmp/fifo" ] &&
    python3 -m json.tool "$tmp/target.json" >/dev/null &&
    python3 -m json.tool "$tmp/from_fifo.json" >/dev/null && pass=$((pass + 1)) || {
    echo "FAIL -o through a link or into a FIFO: the link, the FIFO or a document lost"
    fail=$((fail + 1)); }
# Several devices: one the variant does not run on is skipped, the others run;
# skipped (3) only where none runs it.
[ $has_opencl = 1 ] && expect 0 "" run copy --device c,opencl --variant coalesced --n 64
expect 3 "variant 'coalesced' of copy does not run on omp" run copy --device c,omp --variant coalesced --n 64
expect 0 "" run reduce --device c --n 1
expect 0 "" run copy --device omp --n 3
"$CO" run copy --device c --n 3 --no-verify >"$tmp/nv.txt" 2>&1 && grep -q "not verified (--no-verify)" "$tmp/nv.txt" &&
    ! grep -q WRONG "$tmp/nv.txt" && pass=$((pass + 1)) || {
    echo "FAIL run --no-verify: not reported as unverified"; cat "$tmp/nv.txt"; fail=$((fail + 1)); }
png="$(dirname "$0")/png_gray.py"
gray_devices="c"
[ $has_opencl = 1 ] && gray_devices="c opencl"
for ch in 4 3 1; do
    python3 "$png" make "$tmp/in$ch.png" 61 37 $ch $ch
    for d in $gray_devices; do
        rm -f "$tmp/out.png"
        "$CO" run grayscale --device $d --input "$tmp/in$ch.png" --output "$tmp/out.png" --json \
            >"$tmp/gray.json" && python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["results"][0]["sizes"]; assert (s["width"], s["height"]) == (61, 37), s' "$tmp/gray.json" &&
            python3 "$png" check "$tmp/in$ch.png" "$tmp/out.png" && pass=$((pass + 1)) || {
            echo "FAIL grayscale PNG round trip, $ch channels, on $d"; fail=$((fail + 1)); }
    done
done
"$CO" bench copy reduce grayscale --device c,omp --quick >"$tmp/bench2.txt" 2>/dev/null &&
    [ "$(sed '/^fastest per device/,$d' "$tmp/bench2.txt" | grep -c ' ok ')" -eq 6 ] &&
    [ "$(sed -n '/^fastest per device/,$p' "$tmp/bench2.txt" | grep -c ' ok ')" -eq 6 ] &&
    pass=$((pass + 1)) || {
    echo "FAIL bench copy reduce grayscale"; cat "$tmp/bench2.txt"; fail=$((fail + 1)); }
if [ $has_opencl = 1 ]; then
    expect 3 "variant 'shuffle' of reduce does not run on opencl:0 \(it runs on cuda\)" run reduce --device opencl --variant shuffle
    expect 2 "sets its work-group from WG" run reduce --device opencl --variant tree --local 64
    expect 1 "work-group 8192 = 8192 work-items is over|work-item size" run copy --device opencl --variant coalesced --local 8192 --n 100
    # A vector copy without its scalar tail, a reduction without its tail: caught.
    mkdir -p "$tmp/ck"
    cp "$(dirname "$0")/../kernels/dialect.h" "$tmp/ck/"
    sed 's/else if (i == full)/else if (i == 0 \&\& 0)/' "$(dirname "$0")/../kernels/copy.cl" >"$tmp/ck/copy.cl"
    COALESCE_KERNEL_DIR="$tmp/ck" expect 1 "copy/vec4 on opencl:0: error 3 is over the tolerance 0" run copy --device opencl --variant vec4 --n 1023 --reps 1
    sed 's/if (tail < (size_t)n) acc += in\[tail\];//' "$(dirname "$0")/../kernels/reduce.cl" >"$tmp/ck/reduce.cl"
    COALESCE_KERNEL_DIR="$tmp/ck" expect 1 "reduce/multi on opencl:0: error .* is over the tolerance" run reduce --device opencl --variant multi --n 1027 --reps 1
    # The box filter's ring pass runs (RING=1): a wrong result of it is caught.
    sed 's/\*o = BF_NORM(\*v, radius);/*o = BF_NORM(*v, radius) + 1;/' "$(dirname "$0")/../kernels/boxfilter_fused.cl" >"$tmp/ck/boxfilter_fused.cl"
    grep -q 'BF_NORM(\*v, radius) + 1;' "$tmp/ck/boxfilter_fused.cl" || { echo "FAIL: the ring edit no longer applies to kernels/boxfilter_fused.cl"; fail=$((fail + 1)); }
    COALESCE_KERNEL_DIR="$tmp/ck" expect 1 "boxfilter/sliding on opencl:0: error .* is over the tolerance" run boxfilter --device opencl --variant sliding --param RING=1 --radius 9 --width 70 --height 40 --reps 1
    # RGBA8 at r <= 7 runs box_quad: a wrong result of it is caught (every mean one more).
    sed 's/uint win = hw \* 0x10001u;/uint win = (hw + w) * 0x10001u;/' "$(dirname "$0")/../kernels/boxfilter_quad.cl" >"$tmp/ck/boxfilter_quad.cl"
    grep -q 'uint win = (hw + w) \* 0x10001u;' "$tmp/ck/boxfilter_quad.cl" || { echo "FAIL: the box_quad edit no longer applies to kernels/boxfilter_quad.cl"; fail=$((fail + 1)); }
    COALESCE_KERNEL_DIR="$tmp/ck" expect 1 "boxfilter/sliding on opencl:0: error .* is over the tolerance" run boxfilter --device opencl --variant sliding --format rgba8 --radius 3 --width 70 --height 40 --reps 1
    # ... and its wide windows (r = 13 on PoCL): a leaving column one off is caught.
    sed 's/q_column(mine, i - 1 - QR, s, true)/q_column(mine, i - 2 - QR, s, true)/' "$(dirname "$0")/../kernels/boxfilter_quad.cl" >"$tmp/ck/boxfilter_quad.cl"
    grep -q 'i - 2 - QR, s, true' "$tmp/ck/boxfilter_quad.cl" || { echo "FAIL: the wide box_quad edit no longer applies to kernels/boxfilter_quad.cl"; fail=$((fail + 1)); }
    COALESCE_KERNEL_DIR="$tmp/ck" expect 1 "boxfilter/sliding on opencl:0: error .* is over the tolerance" run boxfilter --device opencl --variant sliding --format rgba8 --radius 13 --width 70 --height 40 --reps 1
    # The fused kernels take kernels/boxfilter_common.cl through #include (kernels.c expands
    # it), from the kernel directory where it is there: a broken one fails their build.
    mkdir -p "$tmp/ch"
    printf '#error the header from the kernel directory\n' >"$tmp/ch/boxfilter_common.cl"
    COALESCE_KERNEL_DIR="$tmp/ch" expect 1 "boxfilter_fused.cl failed to build" run boxfilter --device opencl --variant sliding --radius 2 --width 40 --height 30 --reps 1
    grep -q "the header from the kernel directory" "$tmp/err" && pass=$((pass + 1)) ||
        { echo "FAIL: the fused kernels' build did not read boxfilter_common.cl from COALESCE_KERNEL_DIR"; fail=$((fail + 1)); }
fi

# peak: positive, plausible ceilings on every kind of device, kept in the
# cache file; a corrupt file is measured again and rewritten; run reports
# its fraction of the matching ceiling.
expect 2 "peak takes only --device SPEC" peak gemm
expect 2 "peak takes only --device SPEC" peak --size 4
expect 2 "unknown device 'gpu9'" peak --device gpu9
peak_devices="c omp"
[ $has_opencl = 1 ] && peak_devices="c omp opencl"
for d in $peak_devices; do
    "$CO" peak --device $d --json >"$tmp/peak.json" 2>"$tmp/peak.err" &&
        python3 - "$tmp/peak.json" $d <<'PY' && pass=$((pass + 1)) || { echo "FAIL peak --device $d: $(cat "$tmp/peak.json" "$tmp/peak.err")"; fail=$((fail + 1)); }
import json, sys
p, dev = json.load(open(sys.argv[1]))["results"][0], sys.argv[2]
host = dev in ("c", "omp")
assert p["status"] == "ok" and p["device"]["spec"].startswith(dev), p
def within(key, lo, hi, may_be_null=False):
    v = p[key]
    assert (v is None and may_be_null) or (v is not None and lo <= v <= hi), (key, v)
for key in ["copy_gbps", "read_gbps", "write_gbps"]:
    within(key, 0.1, 100000)
within("fma32_gflops", 0.1, 1e6)
within("fma64_gflops", 0.1, 1e6, True)
within("launch_us", 0.1, 1e5, dev == "c")
for key in ["h2d_gbps", "d2h_gbps", "h2d_pinned_gbps", "d2h_pinned_gbps"]:
    if host: assert p[key] is None, (key, p[key])  # no transfers on the host
    else: within(key, 0.1, 100000, "pinned" in key)
if dev == "c": assert p["launch_us"] is None
PY
done
python3 - "$COALESCE_CACHE_DIR/peak.json" $peak_devices <<'PY' && pass=$((pass + 1)) || { echo "FAIL peak cache file"; fail=$((fail + 1)); }
import json, sys
entries = json.load(open(sys.argv[1]))["devices"]
backends = sorted(e["key"].split("|")[0] for e in entries)
assert backends == sorted(sys.argv[2:]), backends  # one entry per device, rewritten in place
assert all(e["copy_gbps"] > 0 and e["fma32_gflops"] > 0 for e in entries)
PY
# Kept: the next run measures nothing and reports its fraction of the FMA ceiling.
"$CO" run gemm --device c --size 24 --json >"$tmp/frac.json" 2>"$tmp/frac.err" &&
    ! grep -q "measured the ceilings" "$tmp/frac.err" && python3 - "$tmp/frac.json" <<'PY' && pass=$((pass + 1)) || { echo "FAIL run gemm fraction (kept ceiling): $(cat "$tmp/frac.err")"; fail=$((fail + 1)); }
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
assert r["ceiling"]["name"] == "fma32" and r["ceiling"]["value"] > 0, r
assert 0 < r["fraction"] <= 1.5, r["fraction"]
assert abs(r["fraction"] - r["rates"]["gflops"]["value"] / r["ceiling"]["value"]) < 1e-3 * r["fraction"], r
PY
# Corrupt: garbage, a truncated entry, and c's entry with a negative figure.
python3 - "$COALESCE_CACHE_DIR/peak.json" <<'PY'
import sys
path = sys.argv[1]
lines = open(path).read().splitlines()
out = ["{garbage", '{"key": "c|', "\x01 not json at all"]
for l in lines:
    if l.startswith('{"key": "c|'):
        l = l.replace('"copy_gbps": ', '"copy_gbps": -')
    out.append(l)
open(path, "w").write("\n".join(out)[:-40])  # and the end cut off
PY
"$CO" run gemm --device c --size 24 --json >"$tmp/frac.json" 2>"$tmp/frac.err" &&
    grep -q "measured the ceilings of c first" "$tmp/frac.err" &&
    python3 - "$tmp/frac.json" "$COALESCE_CACHE_DIR/peak.json" <<'PY' && pass=$((pass + 1)) || { echo "FAIL corrupt peak cache: $(cat "$tmp/frac.err")"; fail=$((fail + 1)); }
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
assert 0 < r["fraction"] <= 1.5 and r["ceiling"]["name"] == "fma32", r
entries = json.load(open(sys.argv[2]))["devices"]  # valid JSON again
assert [e for e in entries if e["key"].startswith("c|") and e["copy_gbps"] > 0], entries
PY
# A cache that cannot be written costs a measurement, not the run.
COALESCE_CACHE_DIR=/proc/coalesce-no-such-dir "$CO" run gemm --device c --size 8 --json \
    >"$tmp/frac.json" 2>/dev/null && grep -q '"fraction": ' "$tmp/frac.json" &&
    pass=$((pass + 1)) || { echo "FAIL run with an unwritable peak cache"; fail=$((fail + 1)); }
"$CO" bench gemm --device c --size 16 >"$tmp/bench3.txt" 2>/dev/null &&
    grep -q "of peak" "$tmp/bench3.txt" && grep -Eq " [0-9.]+% " "$tmp/bench3.txt" &&
    pass=$((pass + 1)) || { echo "FAIL bench table without 'of peak'"; cat "$tmp/bench3.txt"; fail=$((fail + 1)); }

# boxfilter: option errors, and results equal OpenCV's cv2.boxFilter (RGBA8
# PNG in and out, +-1) where cv2 is installed.
expect 2 "--border must be one of clamp,reflect101,zero, got 'mirror'" run boxfilter --device c --border mirror
expect 2 "--format must be one of f32,rgba8,gray8, got 'rgb'" run boxfilter --device c --format rgb
expect 2 "--radius must be an integer, got '1.5'" run boxfilter --device c --radius 1.5
expect 2 "--radius=-1 is out of range \[0, " run boxfilter --device c --radius -1
expect 2 "--radius=3000 is over rgba8's limit 2047: its sums are exact 32-bit integers" run boxfilter --device c --format rgba8 --radius 3000
expect 2 "--radius=2048 is over gray8's limit 2047: its sums are exact 32-bit integers" run boxfilter --device c --format gray8 --radius 2048
expect 1 "cannot read image '$tmp/none.png'" run boxfilter --device c --input "$tmp/none.png"
"$CO" run boxfilter --device c --width 9 --height 4 --radius 2 --border zero --format rgba8 --json >"$tmp/box.json" &&
    python3 - "$tmp/box.json" <<'PY' && pass=$((pass + 1)) || { echo "FAIL boxfilter --json fields"; fail=$((fail + 1)); }
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
s = r["sizes"]
assert (s["width"], s["height"], s["radius"], s["border"], s["format"]) == (9, 4, 2, "zero", "rgba8")
assert r["verified"] is True and r["error"] <= r["tolerance"] == 0.5 and r["rates"]["gbps"]["value"] > 0
PY
if [ $has_opencl = 1 ]; then
    # A window sum off by 1e-4 (over float32's 1e-5) and an unwritten last row must fail.
    mkdir -p "$tmp/kb"
    cp "$(dirname "$0")/../kernels/dialect.h" "$tmp/kb/"
    sed 's/BF_RESULT(BF_KSUM(sum, comp), radius);/BF_RESULT(BF_KSUM(sum, comp) * 1.0001f, radius);/' "$(dirname "$0")/../kernels/boxfilter.cl" >"$tmp/kb/boxfilter.cl"
    COALESCE_KERNEL_DIR="$tmp/kb" expect 1 "boxfilter/naive on opencl:0: error .* is over the tolerance" run boxfilter --device opencl --variant naive --width 20 --height 9 --radius 2
    sed 's/    if (i >= W \* BF_CH || y >= H) return;/    if (i >= W * BF_CH || y >= H - 1) return;/' "$(dirname "$0")/../kernels/boxfilter.cl" >"$tmp/kb/boxfilter.cl"
    COALESCE_KERNEL_DIR="$tmp/kb" expect 1 "boxfilter/naive on opencl:0: error inf is over" run boxfilter --device opencl --variant naive --width 20 --height 9 --radius 2
fi
# The format follows the input: an RGBA PNG comes out RGBA (rgba8, said in
# the run's line), a gray one gray (gray8); --format still overrides.
python3 "$png" make "$tmp/box_rgba.png" 9 7 4 3 && python3 "$png" make "$tmp/box_g.png" 9 7 1 3
"$CO" run boxfilter --device c --input "$tmp/box_rgba.png" --output "$tmp/box_rgba_out.png" --radius 1 >"$tmp/out" 2>&1 && grep -q " format=rgba8" "$tmp/out" &&
    pass=$((pass + 1)) || { echo "FAIL boxfilter run boxfilter --device c --input "$tmp/box_rgba.png" --outpu...: no 'format=rgba8'"; fail=$((fail + 1)); }
python3 - "$(dirname "$0")" "$tmp/box_rgba_out.png" 4 <<'PY' && pass=$((pass + 1)) || { echo "FAIL boxfilter RGBA in, RGBA out"; fail=$((fail + 1)); }
import sys; sys.path.insert(0, sys.argv[1]); from png_gray import read_png
assert read_png(sys.argv[2])[2] == int(sys.argv[3])
PY
"$CO" run boxfilter --device c --input "$tmp/box_g.png" --output "$tmp/box_g_out.png" --radius 1 >"$tmp/out" 2>&1 && grep -q " format=gray8" "$tmp/out" &&
    pass=$((pass + 1)) || { echo "FAIL boxfilter run boxfilter --device c --input "$tmp/box_g.png" --radius 1...: no 'format=gray8'"; fail=$((fail + 1)); }
python3 - "$(dirname "$0")" "$tmp/box_g_out.png" 1 <<'PY' && pass=$((pass + 1)) || { echo "FAIL boxfilter gray in, gray out"; fail=$((fail + 1)); }
import sys; sys.path.insert(0, sys.argv[1]); from png_gray import read_png
assert read_png(sys.argv[2])[2] == int(sys.argv[3])
PY
"$CO" run boxfilter --device c --input "$tmp/box_g.png" --format f32 --radius 1 >"$tmp/out" 2>&1 && grep -q " format=f32" "$tmp/out" &&
    pass=$((pass + 1)) || { echo "FAIL boxfilter run boxfilter --device c --input "$tmp/box_g.png" --format f32...: no 'format=f32'"; fail=$((fail + 1)); }
"$CO" run boxfilter --device c --input "$tmp/box_rgba.png" --format f32 --radius 1 >"$tmp/out" 2>&1 && grep -q " format=f32" "$tmp/out" &&
    pass=$((pass + 1)) || { echo "FAIL boxfilter run boxfilter --device c --input "$tmp/box_rgba.png" --forma...: no 'format=f32'"; fail=$((fail + 1)); }
expect 2 "--radius=2048 is over rgba8's limit 2047" run boxfilter --device c --input "$tmp/box_rgba.png" --radius 2048
if python3 -c "import cv2" 2>/dev/null; then
    python3 - "$tmp" <<'PY'
import sys, cv2, numpy as np
rng = np.random.default_rng(7)
cv2.imwrite(sys.argv[1] + "/box_in.png", rng.integers(0, 256, (37, 100, 4), dtype=np.uint8))
cv2.imwrite(sys.argv[1] + "/box_tiny.png", rng.integers(0, 256, (3, 5, 4), dtype=np.uint8))
cv2.imwrite(sys.argv[1] + "/box_gray.png", rng.integers(0, 256, (29, 71), dtype=np.uint8))
PY
    expect 2 "--width/--height 99x37 differ from the --input image's 100x37" run boxfilter --device c --format rgba8 --input "$tmp/box_in.png" --width 99
    opencv="$(dirname "$0")/../scripts/opencv-boxfilter.py"
    for case in "box_in omp 3 reflect101" "box_in c 3 clamp" "box_in omp 7 zero" \
                "box_tiny omp 3 reflect101" "box_tiny c 4 clamp" "box_tiny omp 2 zero" \
                "box_gray omp 1 clamp" "box_gray omp 9 reflect101" "box_gray c 3 zero"; do
        set -- $case
        if "$CO" run boxfilter --device "$2" --input "$tmp/$1.png" \
               --output "$tmp/$1_out.png" --radius "$3" --border "$4" >/dev/null &&
           python3 "$opencv" --compare "$tmp/$1.png" "$tmp/$1_out.png" --radius "$3" --border "$4" >/dev/null; then
            pass=$((pass + 1))
        else
            echo "FAIL boxfilter $case differs from cv2.boxFilter"; fail=$((fail + 1))
        fi
    done
else
    echo "skip: boxfilter against OpenCV (python3 cv2 not installed: pip install opencv-python-headless)"
fi

# collider: options, the state file, frames, and its errors.
expect 2 "--balls must be at least 1" run collider --device c --balls 0
expect 2 "--boundary must be one of walls,periodic, got 'bouncy'" run collider --device c --boundary bouncy
expect 2 "--scenario must be one of random,one,headon" run collider --device c --scenario nope
expect 2 "20000 balls of radius up to 0.5 do not fit apart in a 10 x 10 box" run collider --device c --width 10 --height 10
expect 2 "moves a ball more than a quarter of its radius.*lower --dt" run collider --device c --balls 10 --dt 1
expect 2 "--radius-max=0.1 is out of range" run collider --device c --radius 0.5 --radius-max 0.1
expect 3 "c over 1000000 balls x 10 steps .* use the grid variant" run collider --device c --variant c --balls 1000000 --width 6000 --height 6000
"$CO" run collider --device c --variant c-grid --balls 50 --width 20 --height 20 --steps 10 --reps 1 \
    --output "$tmp/state.csv" --frames "$tmp/frames" --every 5 --image "$tmp/last.png" --json >"$tmp/col.json" &&
    [ "$(head -1 "$tmp/state.csv")" = "x,y,vx,vy,r,m" ] && [ "$(wc -l <"$tmp/state.csv")" -eq 51 ] &&
    [ -s "$tmp/frames/frame_000005.png" ] && [ -s "$tmp/frames/frame_000010.png" ] && [ -s "$tmp/last.png" ] &&
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; assert r["sizes"]["balls"]==50 and r["sizes"]["steps"]==10 and r["verified"]' "$tmp/col.json" &&
    pass=$((pass + 1)) || { echo "FAIL collider --output/--frames/--image"; fail=$((fail + 1)); }
# The f64 reference per ball holds up to 2^18 balls; beyond, a short run is checked by its
# invariants (at 10^6 balls the perturbed runs missed 2-4 rounding-decided balls).
"$CO" run collider --device omp --variant omp-grid --balls 262144 --width 2897 --height 2172 --steps 1 --reps 1 2>&1 |
    grep -q "verified (f64 reference+invariants check)" &&
    "$CO" run collider --device omp --variant omp-grid --balls 262145 --width 2897 --height 2172 --steps 1 --reps 1 2>&1 |
    grep -q "verified (invariants check)" && pass=$((pass + 1)) ||
    { echo "FAIL collider: the reference up to 2^18 balls, invariants beyond"; fail=$((fail + 1)); }
# --steps 0 writes the initial state: the same for every variant and device.
"$CO" run collider --device c --variant c --balls 30 --width 20 --height 20 --steps 0 --output "$tmp/s0a.csv" >/dev/null &&
    "$CO" run collider --device omp --variant omp-grid --balls 30 --width 20 --height 20 --steps 0 --output "$tmp/s0b.csv" >/dev/null &&
    cmp -s "$tmp/s0a.csv" "$tmp/s0b.csv" && pass=$((pass + 1)) || { echo "FAIL collider --steps 0"; fail=$((fail + 1)); }
if [ $has_opencl = 1 ]; then
    expect 2 "parameter WG=48 must be a power of two" run collider --device opencl --variant grid --param WG=48
    expect 2 "takes its work-group size from WG" run collider --device opencl --variant grid --local 32 --balls 10 --width 20 --height 20
    expect 2 "needs SPLIT <= WG" run collider --device opencl --variant brute --param WG=4 --param SPLIT=8 --balls 10 --width 20 --height 20
fi

# scripts/sweep.sh: a line of results per plan line, a failure named on its own line.
printf '%s\n' '# a comment' 'c c "boxfilter --width 40 --height 30 --radius 2" ' \
    'c c "boxfilter --width 40 --height 30" NOPE=1' |
    COALESCE=$CO REPS=1 VERIFY=1 "$(dirname "$0")/../scripts/sweep.sh" - >"$tmp/sweep.txt" &&
    [ "$(wc -l <"$tmp/sweep.txt")" -eq 2 ] &&
    grep -Eq '^c +c +boxfilter --width 40 --height 30 --radius 2 +[0-9.]+ ms' "$tmp/sweep.txt" &&
    grep -q "failed: coalesce: variant 'c' takes no parameters" "$tmp/sweep.txt" &&
    pass=$((pass + 1)) || { echo "FAIL scripts/sweep.sh: $(cat "$tmp/sweep.txt")"; fail=$((fail + 1)); }

summary
