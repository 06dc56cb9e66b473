#!/bin/sh
# The bad-input matrix: every command and workload given malformed, out of
# range, zero, negative or huge values, unknown names, conflicting flags and
# files that cannot be read or written. For each: the exit code, and the FIRST
# line on stderr, which must be "coalesce: " and name the problem (grep -E,
# anchored after "coalesce: "). Every case fails before any heavy work.
# Usage: test_bad_input.sh path/to/coalesce
# A case is one line: GUARD CODE REGEX ARGS..., read by the shell (quotes,
# $tmp and the long values below expand). GUARD: "-" always; "cl" where an
# OpenCL device is present; "nocuda" where the CUDA backend is unavailable.
# Exit codes (coalesce --help): 1 wrong result or device/file/limit error,
# 2 usage error, 3 skipped (device or variant unavailable here).
CO=${1:?usage: test_bad_input.sh path/to/coalesce}
. "$(dirname "$0")/harness.sh"
skip=0

# Files that are not PNGs, and values longer than the tool's buffers.
printf 'not a png\n' >"$tmp/notpng.png"
: >"$tmp/empty.png"
mkdir "$tmp/dir.png"
printf '\211PNG\r\n\032\n\0\0\0\rIHDR' >"$tmp/trunc.png"
long="8$(printf '0%.0s' $(seq 250))"     # 251 characters
huge="$(printf '1%.0s' $(seq 4001))"     # over the 4000 of any value
spec300="$(printf 'c%.0s' $(seq 300))"
many_opts="$(printf -- '--m 1 %.0s' $(seq 33))"
seventeen_opts="$(printf -- '--m 1 %.0s' $(seq 17))"

has_opencl=0
"$CO" devices --json 2>/dev/null | grep -q '"spec": "opencl:0"' && has_opencl=1
no_cuda=0
"$CO" devices --json 2>/dev/null | python3 -c 'import json,sys; assert [b for b in json.load(sys.stdin)["backends"] if b["name"] == "cuda" and not b["available"]]' 2>/dev/null && no_cuda=1

check() {
    guard=$1 code=$2 pattern=$3
    shift 3
    case $guard in
    cl) [ $has_opencl = 1 ] || { skip=$((skip + 1)); return; } ;;
    nocuda) [ $no_cuda = 1 ] || { skip=$((skip + 1)); return; } ;;
    esac
    "$CO" "$@" >/dev/null 2>"$tmp/err" </dev/null
    got=$?
    first=$(head -n 1 "$tmp/err")
    if [ "$got" -ne "$code" ]; then
        echo "FAIL coalesce $(echo "$*" | cut -c1-160): exit $got, expected $code; stderr: $(echo "$first" | cut -c1-200)"
        fail=$((fail + 1))
    elif ! printf '%s\n' "$first" | grep -Eq -- "^coalesce: $pattern"; then
        echo "FAIL coalesce $(echo "$*" | cut -c1-160): first stderr line '$(echo "$first" | cut -c1-200)' does not match 'coalesce: $pattern'"
        fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
}

while IFS= read -r line; do
    case $line in '' | '#'*) continue ;; esac
    eval "check $line"
done <<'CASES'
- 2 "option --json takes no value, got .--json=1." devices --json --json=1
- 2 "unexpected argument .extra.: devices takes only --json" devices extra
- 2 "devices does not take --reps: devices takes only --json" devices --reps 3
- 2 "unknown option .-j." devices -j
- 2 "list does not take --json: list takes only a WORKLOAD" list --json
- 2 "list does not take --variant: list takes only a WORKLOAD" list --variant c
- 2 "unexpected argument .extra.: list takes only a WORKLOAD" list gemm extra
- 2 "unknown workload .nope." list nope
- 2 "unknown option .--bogus.: peak takes only --device SPEC, --json, --force and -o FILE" peak --bogus
- 2 "option --device needs a value" peak --device
- 2 "unknown device .gpu9.: use all, c, omp, opencl, opencl:N, opencl:cpu, " peak --device gpu9
- 2 "empty device spec" peak --device ""
- 2 "device spec .c,,omp. has an empty term: use SPEC\[,SPEC\.\.\.\]" peak --device c,,omp
- 2 "peak does not take --csv: peak takes only --device SPEC, --json, --force and -o FILE" peak --csv
- 2 "peak does not take --set: peak takes only --device SPEC, --json, --force and -o FILE" peak --set m=1
- 2 "peak does not take --quick: peak takes only --device SPEC, --json, --force and -o FILE" peak --quick
- 2 "peak does not take --no-verify: peak takes only --device SPEC, --json, --force and -o FILE" peak --no-verify
- 2 "option --json takes no value, got .--json=yes." peak --json=yes
- 2 "peak does not take --param: peak takes only --device SPEC, --json, --force and -o FILE" peak --param TS=4
- 2 "peak does not take --local: peak takes only --device SPEC, --json, --force and -o FILE" peak --local 8
- 2 "unexpected argument .gemm.: peak takes only --device SPEC, --json, --force and -o FILE" peak gemm
- 2 "run takes one WORKLOAD \(e\.g\. .coalesce run gemm.\), got none" run
- 2 "run takes one WORKLOAD \(e\.g\. .coalesce run gemm.\), got several" run gemm copy
- 2 "unknown workload .gemv. \(use gemm" run gemv
- 2 "unknown workload .. \(use gemm" run ""
- 2 "unknown option .--bogus. for gemm \(it takes size, m, n, k\)" run gemm --bogus
- 2 "unknown option .--bogus. for gemm \(it takes size, m, n, k\)" run gemm --bogus 3
- 2 "unknown option .-x." run gemm -x
- 2 "unknown option .--." run gemm --
- 2 "unknown option .--=3." run gemm --=3
- 2 "unknown option .---m. for gemm \(it takes size, m, n, k\)" run gemm ---m 3
- 2 "run does not take --set: --set and --quick are for bench" run gemm --set m=3
- 2 "run does not take --quick: --set and --quick are for bench" run gemm --quick
- 2 "--json and --csv exclude each other" run gemm --json --csv
- 2 "option --json takes no value, got .--json=1." run gemm --json=1
- 2 "option --device needs a value" run gemm --device
- 2 "empty device spec" run gemm --device ""
- 2 "unknown device .gpu9.: use all, c, omp, opencl, opencl:N, opencl:cpu, " run gemm --device gpu9
- 3 "(no device .opencl:99. here|device .opencl:99. is unavailable)" run gemm --device opencl:99
- 2 "unknown device .opencl:-1.: use all, c, omp, opencl, opencl:N" run gemm --device opencl:-1
- 2 "unknown device .opencl:.: use all, c, omp, opencl, opencl:N" run gemm --device opencl:
- 3 "(no device .opencl:99999999999999999999. here|device .opencl:[0-9]+. is unavailable)" run gemm --device opencl:99999999999999999999
- 2 "unknown device .:0.: use all, c, omp, opencl, opencl:N, opencl:cpu, op" run gemm --device :0
- 2 "device spec .c,. has an empty term: use SPEC\[,SPEC\.\.\.\]" run gemm --device c,
- 2 "device spec .,c. has an empty term: use SPEC\[,SPEC\.\.\.\]" run gemm --device ,c
- 2 "unknown device .all:0.: use all, c, omp, opencl, opencl:N, opencl:cpu," run gemm --device all:0
- 2 "unknown device .C.: use all, c, omp, opencl, opencl:N, opencl:cpu, ope" run gemm --device C
nocuda 3 "device .cuda:0. is unavailable: " run gemm --device cuda:0
- 2 "option --variant needs a value" run gemm --device c --variant
- 2 "unknown variant .fastest. for gemm \(use c, omp, openblas, naive, tiled" run gemm --device c --variant fastest
- 2 "unknown variant .. for gemm \(use c, omp, openblas, naive, tiled, wpt, " run gemm --device c --variant ""
- 2 "unknown variant .c,omp. for gemm \(use c, omp, openblas, naive, tiled, " run gemm --device c --variant c,omp
- 3 "variant .naive. of gemm does not run on c \(it runs on opencl, cuda, vulkan, opengl\)" run gemm --device c --variant naive
- 2 "--reps must be an integer in \[1, 1000\], got .0." run gemm --device c --reps 0
- 2 "--reps must be an integer in \[1, 1000\], got .1001." run gemm --device c --reps 1001
- 2 "--reps must be an integer in \[1, 1000\], got .-1." run gemm --device c --reps -1
- 2 "--reps must be an integer in \[1, 1000\], got .1\.5." run gemm --device c --reps 1.5
- 2 "--reps must be an integer in \[1, 1000\], got .abc." run gemm --device c --reps abc
- 2 "--reps must be an integer in \[1, 1000\], got .." run gemm --device c --reps ""
- 2 "--reps must be an integer in \[1, 1000\], got .99999999999999999999999." run gemm --device c --reps 99999999999999999999999
- 2 "--warmup must be an integer in \[0, 100\], got .101." run gemm --device c --warmup 101
- 2 "--warmup must be an integer in \[0, 100\], got .-1." run gemm --device c --warmup -1
- 2 "--warmup must be an integer in \[0, 100\], got .x." run gemm --device c --warmup x
- 2 "--seed must be an integer in \[0, 18446744073709551615\] \(2\^64-1\), got ." run gemm --device c --seed -1
- 2 "--seed must be an integer in \[0, 18446744073709551615\] \(2\^64-1\), got ." run gemm --device c --seed 1e3
- 2 "--seed must be an integer in \[0, 18446744073709551615\] \(2\^64-1\), got ." run gemm --device c --seed 0x10
- 2 "--seed must be an integer in \[0, 18446744073709551615\] \(2\^64-1\), got ." run gemm --device c --seed 18446744073709551616
- 2 "--seed must be an integer in \[0, 18446744073709551615\] \(2\^64-1\), got ." run gemm --device c --seed 99999999999999999999999999
- 2 "--seed must be an integer in \[0, 18446744073709551615\] \(2\^64-1\), got ." run gemm --device c --seed ""
- 2 "--local must be X, XxY or XxYxZ with integers in \[1, 1048576\], got .0." run gemm --device c --local 0
- 2 "--local must be X, XxY or XxYxZ with integers in \[1, 1048576\], got .16" run gemm --device c --local 16x
- 2 "--local must be X, XxY or XxYxZ with integers in \[1, 1048576\], got .x1" run gemm --device c --local x16
- 2 "--local must be X, XxY or XxYxZ with integers in \[1, 1048576\], got .16" run gemm --device c --local 16xx16
- 2 "--local must be X, XxY or XxYxZ with integers in \[1, 1048576\], got .1x" run gemm --device c --local 1x2x3x4
- 2 "--local must be X, XxY or XxYxZ with integers in \[1, 1048576\], got .20" run gemm --device c --local 2097152
- 2 "--local must be X, XxY or XxYxZ with integers in \[1, 1048576\], got .-4" run gemm --device c --local -4
- 2 "--local must be X, XxY or XxYxZ with integers in \[1, 1048576\], got .ax" run gemm --device c --local axb
- 2 "--local must be X, XxY or XxYxZ with integers in \[1, 1048576\], got .." run gemm --device c --local ""
- 2 "--param must be NAME=VALUE, got .TS." run gemm --device c --param TS
- 2 "--param must be NAME=VALUE, got .=4." run gemm --device c --param =4
- 2 "--param must be NAME=VALUE, got .." run gemm --device c --param ""
- 2 "variant .c. takes no parameters \(got .TS.\)" run gemm --device c --variant c --param TS=4
- 2 "option --m needs a value" run gemm --device c --m
- 2 "--m must be a positive integer, got .abc." run gemm --device c --m abc
- 2 "--m must be at least 1, got 0" run gemm --device c --m 0
- 2 "--m must be a positive integer, got .-5." run gemm --device c --m -5
- 2 "--m must be a positive integer, got .1\.5." run gemm --device c --m 1.5
- 2 "--m must be a positive integer, got .." run gemm --device c --m ""
- 2 "--m=99999999999999999999999 is too large \(at most 2\^40\)" run gemm --device c --m 99999999999999999999999
- 2 "--m=1099511627777 is too large \(at most 2\^40\)" run gemm --device c --m 1099511627777
- 2 "--n must be at least 1, got 0" run gemm --device c --n 0
- 2 "--k must be a positive integer, got .-1." run gemm --device c --k -1
- 2 "--size must be at least 1, got 0" run gemm --device c --size 0
- 2 "--size must be a positive integer, got .1\.5." run gemm --device c --size 1.5
- 2 "--size must be a positive integer, got .8,16." run gemm --device c --size 8,16
- 2 "--size must be a positive integer, got .1e3." run gemm --device c --size 1e3
- 2 "--size must be a positive integer, got . 8." run gemm --device c --size " 8"
- 2 "gemm 100000x1x100000: a matrix would have more than 2\^31-1 elements \(t" run gemm --device c --m 100000 --k 100000 --n 1
- 1 "boxfilter needs [0-9]+ bytes .* of host memory .*over the .* the host has" run boxfilter --device c --width 1048576 --height 1048576
- 2 "--n must be at least 1, got 0" run copy --device c --n 0
- 2 "--n must be a positive integer, got .abc." run copy --device c --n abc
- 2 "--n must be a positive integer, got .-1." run copy --device c --n -1
- 2 "--row must be at least 1, got 0" run copy --device c --row 0
- 2 "--row must be a positive integer, got .x." run copy --device c --row x
- 2 "copy --n 4294967296 --row 1024: at most 2\^31-1 \(the kernels take 32-bi" run copy --device c --n 4294967296
- 2 "unknown option .--m. for copy \(it takes n, row\)" run copy --device c --m 3
- 2 "--n=99999999999999999999 is too large \(at most 2\^40\)" run copy --device c --n 99999999999999999999
- 2 "--n must be at least 1, got 0" run reduce --device c --n 0
- 2 "--n must be a positive integer, got .abc." run reduce --device c --n abc
- 2 "reduce --n 4294967296: at most 2\^31-1 \(the kernels take a 32-bit int\)" run reduce --device c --n 4294967296
- 2 "--n must be a positive integer, got .-3." run reduce --device c --n -3
- 2 "unknown option .--row. for reduce \(it takes n\)" run reduce --device c --row 4
- 2 "--n must be a positive integer, got .1\.0." run reduce --device c --n 1.0
- 2 "--width must be at least 1, got 0" run grayscale --device c --width 0
- 2 "--height must be a positive integer, got .-1." run grayscale --device c --height -1
- 2 "--width must be a positive integer, got .abc." run grayscale --device c --width abc
- 2 "grayscale 1048576x1048576: at most 2\^31-1 per side and 2\^34 pixels" run grayscale --device c --width 1048576 --height 1048576
- 1 "cannot read image ./nonexistent\.png.: No such file or directory" run grayscale --device c --input /nonexistent.png
- 2 "--groups must be X, XxY or XxYxZ of 1\.\.65535 each, got .16x." run dispatch --device c --groups 16x
- 2 "--groups must be X, XxY or XxYxZ of 1\.\.65535 each, got .0x4." run dispatch --device c --groups 0x4
- 2 "--groups must be X, XxY or XxYxZ of 1\.\.65535 each, got .1x2x3x4." run dispatch --device c --groups 1x2x3x4
- 2 "dispatch of 65536x65536x1 work-items: at most 2\^24 in all" run dispatch --device c --groups 1024x1024 --local 64x64
- 2 "--show=-1 is out of range \[0, 1000\]" run dispatch --device c --show -1
- 1 "cannot read image .$tmp/notpng\.png.: unknown image type" run grayscale --device c --input $tmp/notpng.png
- 1 "cannot read image .$tmp/empty\.png.: unknown image type" run grayscale --device c --input $tmp/empty.png
- 1 "cannot read image .$tmp/dir\.png.: Is a directory" run grayscale --device c --input $tmp/dir.png
- 1 "cannot read image .$tmp/trunc\.png.: " run grayscale --device c --input $tmp/trunc.png
- 2 "--input sets the image size: drop --width/--height" run grayscale --device c --input $tmp/x.png --width 4
- 1 "cannot read image ..: No such file or directory" run grayscale --device c --input ""
- 1 "cannot write PNG ./nonexistent/g\.png.: directory ./nonexistent. is mis" run grayscale --device c --width 4 --height 3 --output /nonexistent/g.png
- 1 "cannot write PNG ./proc/nope/g\.png.: directory ./proc/nope. is missing" run grayscale --device c --width 4 --height 3 --output /proc/nope/g.png
- 1 "cannot write .$tmp/dir\.png.: Is a directory" run grayscale --device c --width 4 --height 3 --output $tmp/dir.png
- 2 "--output needs a file name" run grayscale --device c --width 4 --height 3 --output ""
- 2 "unknown option .--radius. for grayscale \(it takes width, height, input" run grayscale --device c --radius 3
- 2 "--width must be at least 1, got 0" run boxfilter --device c --width 0
- 2 "--height must be a positive integer, got .abc." run boxfilter --device c --height abc
- 2 "--radius=-1 is out of range \[0, 1048576\]" run boxfilter --device c --radius -1
- 2 "--radius must be an integer, got .1\.5." run boxfilter --device c --radius 1.5
- 2 "--radius must be a number, got .x." run boxfilter --device c --radius x
- 2 "--radius=99999999999 is out of range \[0, 1048576\]" run boxfilter --device c --radius 99999999999
- 2 "--radius=3000 is over rgba8's limit 2047: its sums are exact 32-bit integers" run boxfilter --device c --format rgba8 --radius 3000
- 2 "--border must be one of clamp,reflect101,zero, got .mirror." run boxfilter --device c --border mirror
- 2 "--border must be one of clamp,reflect101,zero, got .." run boxfilter --device c --border ""
- 2 "--format must be one of f32,rgba8,gray8, got .rgb." run boxfilter --device c --format rgb
- 1 "cannot read image ./nonexistent\.png.: No such file or directory" run boxfilter --device c --input /nonexistent.png
- 1 "cannot read image .$tmp/notpng\.png.: unknown image type" run boxfilter --device c --input $tmp/notpng.png
- 1 "cannot read image .$tmp/empty\.png.: unknown image type" run boxfilter --device c --input $tmp/empty.png
- 1 "cannot write ./nonexistent/b\.png.: No such file or directory" run boxfilter --device c --width 8 --height 8 --output /nonexistent/b.png
- 1 "cannot write ./proc/nope/b\.png.: No such file or directory" run boxfilter --device c --width 8 --height 8 --output /proc/nope/b.png
- 2 "boxfilter 1099511627776x1099511627776: width and height must be under 2\^28" run boxfilter --device c --width 1099511627776 --height 1099511627776
- 2 "unknown option .--n. for boxfilter \(it takes width, height, radius, bo" run boxfilter --device c --n 3
- 2 "--balls must be at least 1, got 0" run collider --device c --balls 0
- 2 "--balls must be a positive integer, got .-1." run collider --device c --balls -1
- 2 "--balls must be a positive integer, got .x." run collider --device c --balls x
- 2 "--balls must be a positive integer, got .1\.5." run collider --device c --balls 1.5
- 2 "--radius=0 is out of range \[" run collider --device c --radius 0
- 2 "--radius=-1 is out of range \[" run collider --device c --radius -1
- 2 "--radius must be a number, got .x." run collider --device c --radius x
- 2 "--radius-max=0\.1 is out of range \[" run collider --device c --radius 0.5 --radius-max 0.1
- 2 "--width=0 is out of range \[" run collider --device c --width 0
- 2 "--height=-5 is out of range \[" run collider --device c --height -5
- 2 "--speed=-1 is out of range \[" run collider --device c --speed -1
- 2 "--speed must be a number, got .x." run collider --device c --speed x
- 2 "--dt=0 is out of range \[" run collider --device c --dt 0
- 2 "--dt=-0\.1 is out of range \[" run collider --device c --dt -0.1
- 2 "collider: --speed x --dt = 1 moves a ball more than a quarter of its r" run collider --device c --balls 10 --dt 1
- 2 "--steps must be a positive integer, got .-1." run collider --device c --steps -1
- 2 "--steps must be a positive integer, got .x." run collider --device c --steps x
- 2 "--steps must be a positive integer, got .1\.5." run collider --device c --steps 1.5
- 2 "--boundary must be one of walls,periodic, got .bouncy." run collider --device c --boundary bouncy
- 2 "--scenario must be one of random,one,headon,unequal,glancing,wall,thre" run collider --device c --scenario nope
- 2 "--every must be at least 1, got 0" run collider --device c --every 0
- 2 "--every must be a positive integer, got .-1." run collider --device c --every -1
- 2 "collider: 20000 balls of radius up to 0\.5 do not fit apart in a 10 x 1" run collider --device c --width 10 --height 10
- 1 "cannot write ./nonexistent/s\.csv.: No such file or directory" run collider --device c --balls 10 --width 20 --height 20 --output /nonexistent/s.csv
- 1 "cannot write ./proc/nope/s\.csv.: No such file or directory" run collider --device c --balls 10 --width 20 --height 20 --output /proc/nope/s.csv
- 1 "cannot write ./nonexistent/i\.png.: No such file or directory" run collider --device c --balls 10 --width 20 --height 20 --image /nonexistent/i.png
- 1 "collider: cannot create the frames directory ./nonexistent/f.: No such" run collider --device c --balls 10 --width 20 --height 20 --frames /nonexistent/f
- 2 "--balls must be a positive integer, got .nan." run collider --device c --balls nan
- 2 "--dt must be a number, got .inf." run collider --device c --dt inf
- 2 "--dt must be a number, got .nan." run collider --device c --dt nan
- 2 "--width must be at least 1, got 0" run raytrace --device c --width 0
- 2 "--height must be a positive integer, got .x." run raytrace --device c --height x
- 2 "--spheres=-1 is out of range \[0, 4096\]" run raytrace --device c --spheres -1
- 2 "--spheres must be an integer, got .2\.5." run raytrace --device c --spheres 2.5
- 2 "--lights=0 is out of range \[1, 8\]" run raytrace --device c --lights 0
- 2 "--lights=9 is out of range \[1, 8\]" run raytrace --device c --lights 9
- 2 "--depth=-1 is out of range \[0, 64\]" run raytrace --device c --depth -1
- 2 "--depth=100 is out of range \[0, 64\]" run raytrace --device c --depth 100
- 2 "--time must be a number, got .x." run raytrace --device c --time x
- 2 "--time must be a number, got .nan." run raytrace --device c --time nan
- 2 "--frames must be at least 1, got 0" run raytrace --device c --frames 0
- 2 "--frames must be a positive integer, got .-1." run raytrace --device c --frames -1
- 2 "--precision must be one of float,double, got .half." run raytrace --device c --precision half
- 2 "--camera must be one of outside,inside, got .nope." run raytrace --device c --camera nope
- 2 "--camera inside needs at least one sphere \(--spheres 0\)" run raytrace --device c --camera inside --spheres 0
- 1 "cannot write ./nonexistent/r\.png.: No such file or directory" run raytrace --device c --width 8 --height 8 --output /nonexistent/r.png
- 1 "cannot write ./proc/nope/r\.png.: No such file or directory" run raytrace --device c --width 8 --height 8 --output /proc/nope/r.png
- 1 "cannot create directory ./nonexistent/a/b.: No such file or directory" run raytrace --device c --width 8 --height 8 --out-dir /nonexistent/a/b
- 1 "cannot create directory ./proc/nope.: No such file or directory" run raytrace --device c --width 8 --height 8 --out-dir /proc/nope
- 2 "raytrace 100000x100000: width and height are at most 32768" run raytrace --device c --width 100000 --height 100000
- 2 "unknown option .--radius. for raytrace \(it takes width, height, sphere" run raytrace --device c --radius 3
- 2 "unknown workload .gemv. \(use gemm" bench gemv
- 2 "unknown variant .fastest. \(see .coalesce list.\)" bench gemm --variant fastest
- 2 "--json and --csv exclude each other" bench gemm --json --csv
- 2 "--set word .garbage. is not NAME=VALUE \(in --set .garbage.\)" bench gemm --set garbage
- 2 "--set .. is empty: give NAME=VALUE words" bench gemm --set ""
- 2 "--set .   . is empty: give NAME=VALUE words" bench gemm --set "   "
- 2 "--set word .=3. is not NAME=VALUE \(in --set .=3.\)" bench gemm --set "=3"
- 2 "unknown option .--zz. for gemm \(it takes size, m, n, k\)" bench gemm --set "m=4 zz=1"
- 2 "--set and workload options \(--size\) exclude each other: put them in th" bench gemm --set m=4 --size 8
- 2 "unknown device .gpu9.: use all, c, omp, opencl, opencl:N, opencl:cpu, " bench gemm --device gpu9
- 3 "nothing ran: no selected variant runs on the selected devices here" bench gemm --device c --variant naive
nocuda 3 "device .cuda. is unavailable: " bench gemm --device cuda
- 2 "unknown option .--bogus. for gemm \(it takes size, m, n, k\)" bench --bogus 3
- 2 "--reps must be an integer in \[1, 1000\], got .0." bench gemm --reps 0
- 2 "unknown option .--size. for copy \(it takes n, row\)" bench gemm copy --size 8
- 2 "--local must be X, XxY or XxYxZ with integers in \[1, 1048576\], got .0." bench gemm --device c --m 4 --local 0
- 2 "--size lists at most 32 sizes" bench gemm --device c --size 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33
- 2 "unknown variant .. \(see .coalesce list.\)" bench gemm --device c --variant ,
- 2 "unknown command .frobnicate.: use devices, list, run, bench, peak, il, tune, compare, report or help" frobnicate
- 2 "unknown command .--bogus.: use devices, list, run, bench, peak, il, tune, compare, report or help" --bogus
- 2 "unknown command .-h2.: use devices, list, run, bench, peak, il, tune, compare, report or help" -h2
cl 2 "unknown parameter .TX. for variant .tiled. \(it takes TS\)" run gemm --device opencl --variant tiled --param TX=4
cl 2 "parameter TS must be an integer, got .big." run gemm --device opencl --variant tiled --param TS=big
cl 2 "parameter TS=0 is out of range \[1, 512\] \(tile edge: work-groups of TS " run gemm --device opencl --variant tiled --param TS=0
cl 2 "parameter TS=-8 is out of range \[1, 512\] \(tile edge: work-groups of TS" run gemm --device opencl --variant tiled --param TS=-8
cl 2 "parameter TS=99999999999999999999 is out of range \[1, 512\] \(tile edge:" run gemm --device opencl --variant tiled --param TS=99999999999999999999
cl 2 "parameter TS must be an integer, got .." run gemm --device opencl --variant tiled --param TS=
cl 2 "parameter TS must be an integer, got .0x10." run gemm --device opencl --variant tiled --param TS=0x10
cl 2 "wpt needs TS divisible by WPT \(TS=32, WPT=5\)" run gemm --device opencl --variant wpt --param TS=32 --param WPT=5
cl 1 "work-group 128x128 = 16384 work-items is over the device.s maximum wor" run gemm --device opencl --variant tiled --param TS=128 --size 64
cl 1 "insufficient local resources: the kernel needs 2099200 bytes of local " run gemm --device opencl --variant wpt --param TS=512 --param WPT=512 --size 64
cl 1 "work-group 8192x1: 8192 in dimension 0 is over the device.s maximum wo" run gemm --device opencl --variant naive --local 8192x1 --size 64
cl 1 "work-group 4096x4096 = 16777216 work-items is over the device.s maximu" run gemm --device opencl --variant naive --local 4096x4096 --size 64
cl 2 "variant .tiled. sets its work-group from its tile \(16x16 here\); change" run gemm --device opencl --variant tiled --local 8x8 --size 64
cl 1 "(array A needs 8464000000 bytes \(7\.9 GiB\), over the device.s maximum al|gemm needs [0-9]+ bytes \([0-9.]+ GiB\) of device memory)" run gemm --device opencl --variant naive --size 46000
cl 3 "variant .cublas. of gemm does not run on opencl:0 \(it runs on cuda\)" run gemm --device opencl --variant cublas
cl 3 "variant .shuffle. of reduce does not run on opencl:0 \(it runs on cuda\)" run reduce --device opencl --variant shuffle
cl 2 "variant .tree. sets its work-group from WG \(256 here\); change it with " run reduce --device opencl --variant tree --local 64
cl 2 "parameter WG=48 must be a power of two \(work-group size\)" run reduce --device opencl --variant tree --param WG=48
cl 2 "parameter WG=0 is out of range \[32, 1024\] \(work-group size\)" run reduce --device opencl --variant tree --param WG=0
cl 1 "work-group 8192: 8192 in dimension 0 is over the device.s maximum work" run copy --device opencl --variant coalesced --local 8192 --n 100
cl 2 "--local must be X, XxY or XxYxZ with integers in \[1, 1048576\], got .4x" run copy --device opencl --variant coalesced --local 4x4x4x4 --n 100
cl 2 "parameter WG=48 must be a power of two \(work-items per group\)" run collider --device opencl --variant grid --param WG=48
cl 2 "collider/grid takes its work-group size from WG \(64\): use --param WG=\." run collider --device opencl --variant grid --local 32 --balls 10 --width 20 --height 20
cl 2 "collider/brute needs SPLIT <= WG \(SPLIT=8, WG=4\)" run collider --device opencl --variant brute --param WG=4 --param SPLIT=8 --balls 10 --width 20 --height 20
cl 1 "variant .constant.: the scene of 2000 spheres is 96272 bytes, over the" run raytrace --device opencl --variant constant --spheres 2000 --width 8 --height 8
cl 2 "unknown parameter .NOPE. for variant .sliding." run boxfilter --device opencl --variant sliding --param NOPE=1
cl 3 "variant .c. of boxfilter does not run on opencl:0 \(it runs on c\)" run boxfilter --device opencl --variant c
cl 3 "variant .c. of grayscale does not run on opencl:0 \(it runs on c\)" run grayscale --device opencl --variant c
cl 3 "no device .opencl:gpu. here" run gemm --device opencl:gpu
cl 3 "no device .opencl:1. here" run gemm --device opencl:1
cl 3 "no device .opencl:7. here" peak --device opencl:7
cl 3 "nothing ran: no selected variant runs on the selected devices here" bench gemm --device opencl --variant c
- 2 "--size must be at least 1, got 0" bench gemm --device c --size 0
- 2 "--size must be a positive integer, got .x." bench gemm --device c --size x
- 2 "--size must be a positive integer, got .." bench gemm --device c --size ""
- 2 "--m must be a positive integer, got .-4." bench gemm --device c --set "m=-4 n=4 k=4"
- 2 "--n must be at least 1, got 0" bench copy --device c --set n=0
- 2 "--set word .n. is not NAME=VALUE" bench copy --device c --set "n"
- 2 "unknown option .--n. for raytrace" bench --device c --set n=4
- 2 "bench: the workload options make a set of over 255 characters" bench gemm --device c --m 8 --n 8 --k "$long"
- 2 "--set .m=8 k=[0-9]+\.\.\.. has 508 characters, over the 255 a set may have" bench gemm --device c --set "m=8 k=$long$long"
- 2 "--set .m=1 m=1 m=1 m=1 m=1 m=1 m=1 m=1 m=1 m=1 m=1 m=1 m=1 m=1 m=1 m=1 m=1. has over 16 words" bench gemm --device c --set "m=1 m=1 m=1 m=1 m=1 m=1 m=1 m=1 m=1 m=1 m=1 m=1 m=1 m=1 m=1 m=1 m=1"
- 2 "the value of --k has 4001 characters, over the 4000 a value may have" run gemm --device c --k "$huge"
- 2 "the value of --output has 4001 characters, over the 4000" run grayscale --device c --output "$huge"
- 2 "device spec of 300 characters is over the 255 a spec may have" run gemm --device "$spec300"
- 2 "--k=8[0-9]+ is too large \(at most 2\^40\)" run gemm --device c --k "$long"
- 2 "too many options \(at most 32\)" run gemm --device c $many_opts
- 2 "too many arguments \(at most 16\)" bench gemm gemm gemm gemm gemm gemm gemm gemm gemm gemm gemm gemm gemm gemm gemm gemm gemm
- 3 "collider: c over 20000 balls x 1000 steps is 4e\+11 pair tests a run \(over 2e\+11 on a CPU; about .* h a run\); use the grid variant" run collider --device c --variant c --steps 1000
- 2 "collider: --steps = 1\.09951e\+12 is over 10\^8" run collider --device c --variant c-grid --steps 1099511627776 --balls 10 --width 20 --height 20
- 2 "collider: --balls = 1\.09951e\+12 is over 2\^28" run collider --device c --balls 1099511627776
- 2 "--frames 1099511627776: at most 100000" run raytrace --device c --frames 1099511627776 --width 8 --height 8
- 2 "unknown device .cuda:x.: use all" run gemm --device cuda:x
- 2 "unknown device .c:-1.: use all" run gemm --device c:-1
- 2 "unknown device .gpu9.: use all" run gemm --device c,gpu9
- 2 "unknown option .--bogus.: devices takes only --json" devices --bogus
- 2 "unknown option .--bogus.: list takes only a WORKLOAD" list --bogus
- 2 "devices does not take --device: devices takes only --json" devices --device c
- 2 "option --reps needs a value" run gemm --device c --reps --seed 3
- 2 "unknown option .--zz. for gemm \(it takes size, m, n, k\)" bench gemm --device c --variant c --m 8 --n 8 --k "$long" --zz 1
- 2 "option --json takes no value, got .--json=." bench gemm --json=
- 2 "bench takes at most 16 workload options" bench gemm --device c $seventeen_opts
cl 2 "variant .naive. takes no parameters \(got .TS.\)" run gemm --device opencl --variant naive --param TS=8
cl 2 "parameter TS=9223372036854775808 is out of range \[1, 512\]" run gemm --device opencl --variant tiled --param TS=9223372036854775808
cl 2 "parameter TS=-99999999999999999999 is out of range \[1, 512\]" run gemm --device opencl --variant tiled --param TS=-99999999999999999999
cl 2 "unknown variant .nope. for copy" run copy --device opencl --variant nope
- 1 "cannot write ./dev/full.: No space left on device" run grayscale --device c --width 5 --height 3 --output /dev/full
- 1 "cannot write ./dev/full.: No space left on device" run raytrace --device c --width 8 --height 8 --output /dev/full
- 1 "cannot write ./dev/full.: No space left on device" run collider --device c --balls 10 --width 20 --height 20 --output /dev/full
- 1 "cannot write ./dev/full.: No space left on device" tune --list -o /dev/full
- 1 "cannot write .$tmp/dir\.png.: Is a directory" run gemm --device c --variant c --size 3 --reps 1 -o $tmp/dir.png
- 1 "cannot write .$tmp/nonexistent/t\.json.: No such file or directory" tune --export $tmp/nonexistent/t.json
- 2 "-o would write over one of the report's inputs: $tmp/notpng\.png" report $tmp/notpng.png -o $tmp/notpng.png
- 2 "--export needs a FILE \(the database as JSON\)" tune --export ""
cl 2 "--local 7x3: variant .coalesced. launches 1-dimensional work-groups \(give --local X\)" run copy --device opencl --variant coalesced --local 7x3 --n 100
cl 2 "--local 2x2x9: variant .naive. launches 2-dimensional work-groups \(give --local XxY\)" run gemm --device opencl --variant naive --local 2x2x9 --size 32
- 2 "collider: --frames with --steps 100000000 and --every 1 makes 100000001 PNG files, over 100000" run collider --device c --balls 10 --width 20 --height 20 --frames $tmp/fr --steps 100000000 --every 1
- 2 "collider: --scenario one sets --balls itself" run collider --device c --scenario one --balls 7
- 2 "collider: --scenario crowd sets --width itself" run collider --device c --scenario crowd --width 5
CASES

[ "$skip" -eq 0 ] || echo "skipped $skip cases: no OpenCL device here, or CUDA is present"
summary
