#!/bin/sh
# coalesce il: the NVRTC path for every kernel of every variant that builds
# for CUDA (PTX produced; the summary's counts equal a count of the same
# instructions in the PTX text, made here with grep), PoCL's path, --compare,
# and every error. Usage: test_il.sh path/to/coalesce
# Exit 77 (skipped) where NVRTC cannot be opened.
CO=${1:?usage: test_il.sh path/to/coalesce}
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
COALESCE_CACHE_DIR="$tmp/cache"
export COALESCE_CACHE_DIR

ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

# expect CODE PATTERN ARGS...: exit code and a stderr line matching PATTERN.
expect() {
    code=$1 pattern=$2
    shift 2
    "$CO" il "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -ne "$code" ]; then bad "coalesce il $*: exit $got, expected $code: $(head -n 1 "$tmp/err")"
    elif [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$tmp/err"; then
        bad "coalesce il $*: stderr '$(head -n 1 "$tmp/err")' does not match '$pattern'"
    else ok; fi
}

if ! "$CO" il copy --variant coalesced --device nvrtc --n 1024 >/dev/null 2>"$tmp/err"; then
    if grep -q "not found\|without the CUDA headers" "$tmp/err"; then echo "skipped: $(cat "$tmp/err")"; exit 77; fi
fi

# PTX opcodes of a file, one a line (comments and predicates gone).
opcodes() {
    sed -e 's#//.*##' "$1" | grep -oE '^[[:space:]]*(@!?%p[0-9]+[[:space:]]+)?[a-z][a-z0-9_.]*' |
        sed -E 's/^[[:space:]]*(@!?%p[0-9]+[[:space:]]+)?//'
}
count() { grep -cE "$1" "$2"; }

# The summary's figures of kernel $2 in JSON file $1, as "name value" lines.
figures() {
    python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
seen = {}
for k in r["kernels"]:
    n = seen[k["entry"]] = seen.get(k["entry"], 0) + 1
    if k["entry"] + ("-%d" % n if n > 1 else "") != sys.argv[2]: continue
    m = k["mix"]
    for i, w in enumerate(["s", "v2", "v4"]):
        print("ldg_" + w, m["ld_global"][i]); print("stg_" + w, m["st_global"][i])
    for f in ["ld_shared", "st_shared", "ld_local", "st_local", "fma", "barrier", "shuffle", "branch"]:
        print(f, m[f])
    print("registers", k["registers"] if k["registers"] is not None else -1)
PY
}

# Every variant of every workload: through NVRTC where it builds for CUDA;
# the others must say why (host code, an anchor's library, not on CUDA).
checked=0
mkdir -p "$tmp/il"
for w in gemm raytrace copy reduce grayscale collider boxfilter; do
    case $w in
        gemm) size="--size 64" ;; copy | reduce) size="--n 4096" ;;
        raytrace) size="--width 64 --height 32" ;; grayscale) size="--width 64 --height 32" ;;
        collider) size="--balls 256" ;; boxfilter) size="--width 256 --height 128" ;;
    esac
    for v in $("$CO" list | awk -v w="$w:" '$1 == w {on = 1; next} /^[a-z]/ {on = 0} on && /^    / {print $1}'); do
        out="$tmp/il/$w-$v"
        # shellcheck disable=SC2086
        "$CO" il $w --variant $v --device nvrtc $size --output "$out" --json >"$out.json" 2>"$out.err"
        rc=$?
        if [ $rc -ne 0 ]; then
            if [ $rc -eq 2 ] && grep -Eq "runs on the host|calls a library|does not run on" "$out.err"; then ok
            else bad "il $w --variant $v --device nvrtc: exit $rc: $(head -n 1 "$out.err")"; fi
            continue
        fi
        for ptx in "$out"/"$v"-*.ptx; do
            case $ptx in *.program.ptx) continue ;; esac
            entry=$(basename "$ptx" .ptx)
            entry=${entry#"$v"-}
            name=$(echo "$entry" | sed -E 's/-[0-9]+$//')
            grep -q "\.entry $name(" "$ptx" || { bad "$w/$v: no .entry $name in $ptx"; continue; }
            opcodes "$ptx" >"$tmp/ops"
            ldg=$(count '^ldu?(\.[a-z0-9]+)*\.global(\.|$)' "$tmp/ops")
            ldg2=$(grep -E '^ldu?(\.[a-z0-9]+)*\.global(\.|$)' "$tmp/ops" | grep -cE '\.v2(\.|$)')
            ldg4=$(grep -E '^ldu?(\.[a-z0-9]+)*\.global(\.|$)' "$tmp/ops" | grep -cE '\.v[48](\.|$)')
            stg=$(count '^st(\.[a-z0-9]+)*\.global(\.|$)' "$tmp/ops")
            stg2=$(grep -E '^st(\.[a-z0-9]+)*\.global(\.|$)' "$tmp/ops" | grep -cE '\.v2(\.|$)')
            stg4=$(grep -E '^st(\.[a-z0-9]+)*\.global(\.|$)' "$tmp/ops" | grep -cE '\.v[48](\.|$)')
            want="ldg_s $((ldg - ldg2 - ldg4))
stg_s $((stg - stg2 - stg4))
ldg_v2 $ldg2
stg_v2 $stg2
ldg_v4 $ldg4
stg_v4 $stg4
ld_shared $(count '^ldu?(\.[a-z0-9]+)*\.shared(\.|$)' "$tmp/ops")
st_shared $(count '^st(\.[a-z0-9]+)*\.shared(\.|$)' "$tmp/ops")
ld_local $(count '^ldu?(\.[a-z0-9]+)*\.local(\.|$)' "$tmp/ops")
st_local $(count '^st(\.[a-z0-9]+)*\.local(\.|$)' "$tmp/ops")
fma $(count '^fma\.' "$tmp/ops")
barrier $(count '^(bar|barrier)(\.|$)' "$tmp/ops")
shuffle $(count '^shfl(\.|$)' "$tmp/ops")
branch $(count '^bra(\.|$)' "$tmp/ops")"
            got=$(figures "$out.json" "$entry")
            if [ "$(echo "$want" | sort)" != "$(echo "$got" | grep -v registers | sort)" ]; then
                bad "$w/$v $entry: summary and grep differ:"
                echo "$want" | sort >"$tmp/a"; echo "$got" | grep -v registers | sort >"$tmp/b"; diff "$tmp/a" "$tmp/b"
            elif [ "$(echo "$got" | awk '$1 == "registers" {print $2}')" -le 0 ]; then
                bad "$w/$v $entry: no register count from ptxas"
            else ok; checked=$((checked + 1)); fi
        done
    done
done
[ "$checked" -ge 20 ] && ok || bad "only $checked kernels checked through NVRTC"

# Seed 004's lesson: copy's scalar loads turn into 4-wide ones.
"$CO" il copy --device nvrtc --n 4096 --compare coalesced vec4 >"$tmp/cmp" 2>&1 || bad "--compare failed: $(cat "$tmp/cmp")"
if grep -Eq '^global loads 4-wide +0 +1$' "$tmp/cmp" && grep -Eq '^global loads scalar +1 ' "$tmp/cmp"; then ok
else bad "--compare coalesced vec4 does not show 1 scalar -> 4-wide:"; cat "$tmp/cmp"; fi
# One variant, two tunable sets: the tile's shared memory grows with TS.
"$CO" il gemm --device nvrtc --size 64 --variant tiled --compare :TS=8 :TS=16 >"$tmp/cmp" 2>&1
grep -Eq '^shared static \(B\) +544 +2112$' "$tmp/cmp" && ok || { bad "--compare :TS=8 :TS=16:"; cat "$tmp/cmp"; }
# Text output: the kernel's PTX and the summary.
expect 0 "" copy --device nvrtc --variant vec4 --n 4096
grep -q "ld.global.nc.v4" "$tmp/out" && grep -q "^  global loads 5 scalar, 0 2-wide, 1 4-wide" "$tmp/out" && ok || bad "text output of copy/vec4"

# SASS: where cuobjdump or nvdisasm is installed, else said so.
"$CO" il copy --device nvrtc --variant vec4 --n 4096 --format sass >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ]; then grep -q "LDG" "$tmp/out" && ok || bad "SASS without LDG"
elif [ $rc -eq 2 ] && grep -q "SASS not available: no nvdisasm/cuobjdump found" "$tmp/err"; then ok
else bad "--format sass: exit $rc: $(cat "$tmp/err")"; fi

# Errors.
expect 2 "unknown format 'spirv-x': nvrtc:sm_90 .* offers ptx sass" copy --device nvrtc --format spirv-x
expect 2 "no format 'wg': nvrtc:sm_90 .* offers ptx sass" copy --device nvrtc --format wg
expect 2 "variant 'omp' of copy runs on the host: its code is the host compiler's .*objdump -d" copy --device nvrtc --variant omp
expect 2 "device 'omp' runs host code" copy --device omp
expect 2 "variant 'cublas' of gemm calls a library" gemm --device nvrtc --variant cublas
expect 2 "unknown variant 'nope' for copy" copy --device nvrtc --variant nope
expect 2 "has no kernel 'nope' \(it builds copy_vec4\)" copy --device nvrtc --variant vec4 --kernel nope --n 64
expect 2 "unknown target 'sm_x'" copy --device nvrtc:sm_x
expect 2 "unknown option '--size' for copy" copy --device nvrtc --size 4
expect 2 "--compare needs two runs" copy --device nvrtc --compare vec4
mkdir -p "$tmp/k"
cp "$(dirname "$0")/../kernels/dialect.h" "$tmp/k/"
printf '__kernel void copy_vec4(const int n) { this is not C; }\n' >"$tmp/k/copy.cl"
COALESCE_KERNEL_DIR="$tmp/k" expect 1 "kernel copy.cl failed to build" copy --device nvrtc --variant vec4 --n 64

# PoCL: the work-group function it compiled for the launch, and its machine code.
if "$CO" devices 2>/dev/null | grep -q "Portable Computing Language"; then
    expect 0 "" copy --device opencl:cpu --variant vec4 --n 4096 --output "$tmp/pocl" --json
    wg="$tmp/pocl/vec4-copy_vec4.ll"
    v4=$(grep -cE '= load <(4|8|16) x |store <(4|8|16) x |@llvm\.masked\.(load|store)\.v(4|8|16)' "$wg")
    got=$(python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['results'][0]['kernels'][0]['mix']; print(m['ld_global'][2]+m['st_global'][2])" "$tmp/out")
    [ "$v4" -gt 0 ] && [ "$v4" = "$got" ] && ok || bad "PoCL wg: $got 4-wide in the summary, $v4 by grep in $wg"
    grep -q "^define .*@_pocl_kernel_copy_vec4(" "$wg" && ok || bad "PoCL wg text lacks the kernel"
    expect 0 "" copy --device opencl:cpu --variant vec4 --n 4096 --format asm
    grep -q "_pocl_kernel_copy_vec4" "$tmp/out" && ok || bad "PoCL asm lacks the kernel"
    expect 0 "" gemm --device opencl:cpu --variant tiled --size 64
    grep -q "max group .*preferred multiple" "$tmp/out" && ok || bad "PoCL resources missing"
    expect 2 "no format 'ptx': opencl:[0-9]+ .* offers wg ir asm" copy --device opencl:cpu --format ptx
fi

echo "il: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
