#!/bin/sh
# coalesce il: the NVRTC path for every kernel of every variant that builds
# for CUDA (PTX produced; the summary's counts equal a count of the same
# instructions in the PTX text, made here with grep), the Vulkan path for
# every kernel with a shader (SPIR-V; its counts equal a count made here in
# Python from the rules of src/core/il_spirv.c's head), PoCL's path,
# --compare, and every error. Usage: test_il.sh path/to/coalesce
# Each path is skipped where its compiler or device is missing; exit 77
# (skipped) where none is here.
CO=${1:?usage: test_il.sh path/to/coalesce}
. "$(dirname "$0")/harness.sh"
# sort in byte order, as Python's sorted does (the H200's locale ordered the names otherwise)
export LC_ALL=C

# expect CODE PATTERN ARGS...: exit code and a stderr line matching PATTERN.
expect() {
    code=$1 pattern=$2
    shift 2
    "$CO" il "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    if [ "$got" -ne "$code" ]; then no "coalesce il $*: exit $got, expected $code: $(head -n 1 "$tmp/err")"
    elif [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$tmp/err"; then
        no "coalesce il $*: stderr '$(head -n 1 "$tmp/err")' does not match '$pattern'"
    else ok; fi
}

paths=0
nvrtc=yes
if ! "$CO" il copy --variant coalesced --device nvrtc --n 1024 >/dev/null 2>"$tmp/err"; then
    if grep -q "not found\|without the CUDA headers" "$tmp/err"; then echo "NVRTC skipped: $(cat "$tmp/err")"; nvrtc=no; fi
fi
"$CO" devices >"$tmp/devices" 2>&1
vulkan=no
grep -q '^vulkan:0 ' "$tmp/devices" && vulkan=yes || echo "Vulkan skipped: no Vulkan device here"

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

# The counts of SPIR-V assembly file $1, as "name value" lines: pointers'
# storage classes and value widths followed through the types the text
# declares.
spirv_counts() {
    python3 - "$1" <<'PY'
import sys
ptr, width, typ, fmul, nocontract = {}, {}, {}, set(), set()
c = dict.fromkeys(["ld_shared", "st_shared", "ld_local", "st_local", "fma", "barrier",
                   "shuffle", "branch"], 0)
wide = ["s", "v2", "v4"]
c.update({p + w: 0 for p in ("ldg_", "stg_") for w in wide})
space = {"StorageBuffer": "g", "PhysicalStorageBuffer": "g", "Workgroup": "s",
         "Function": "l", "Private": "l"}
votes = {"Elect", "All", "Any", "AllEqual", "Ballot", "InverseBallot", "BallotBitExtract",
         "BallotBitCount", "BallotFindLSB", "BallotFindMSB"}
def count(kind, w, store):
    key = {"g": ("stg_" if store else "ldg_") + wide[2 if w >= 4 else 1 if w >= 2 else 0],
           "s": "st_shared" if store else "ld_shared", "l": "st_local" if store else "ld_local"}
    if kind in key: c[key[kind]] += 1
for line in open(sys.argv[1]):
    t = line.split(";")[0].split()
    if not t: continue
    r, op, a = (t[0], t[2], t[3:]) if len(t) > 2 and t[1] == "=" else (None, t[0], t[1:])
    if op == "OpTypeVector": width[r] = int(a[1])
    elif op == "OpTypePointer": ptr[r] = (space.get(a[0]), a[1])
    elif r and not op.startswith("OpType") and op not in ("OpLabel", "OpExtInstImport", "OpString"):
        typ[r] = a[0]
    if op == "OpDecorate" and a[1:2] == ["NoContraction"]: nocontract.add(a[0])
    elif op == "OpLoad":
        kind = ptr.get(typ.get(a[1]), (None,))[0]
        count(kind, width.get(a[0], 1), False)
    elif op == "OpStore":
        kind, pointee = ptr.get(typ.get(a[0]), (None, None))
        count(kind, width.get(pointee, 1), True)
    elif op == "OpFMul": fmul.add(r)
    elif op in ("OpFAdd", "OpFSub"):
        if r not in nocontract and any(x in fmul and x not in nocontract for x in a[1:3]):
            c["fma"] += 1
    elif op == "OpExtInst" and a[2] == "Fma": c["fma"] += 1
    elif op == "OpControlBarrier": c["barrier"] += 1
    elif op.startswith("OpGroupNonUniform") and op[17:] not in votes: c["shuffle"] += 1
    elif op in ("OpBranchConditional", "OpSwitch"): c["branch"] += 1
for k in sorted(c): print(k, c[k])
PY
}

# every_variant DEVICE: `il --output --json` of every variant of every
# workload on DEVICE into $tmp/il-DEVICE/W-V (and W-V.json); the variants
# that do not run there must say why (host code, an anchor's library, not
# on that backend). "W V" for each that ran goes to $tmp/ran-DEVICE.
every_variant() {
    mkdir -p "$tmp/il-$1"
    for w in gemm raytrace copy reduce grayscale collider boxfilter dispatch; do
        case $w in
            gemm) size="--size 64" ;; copy | reduce) size="--n 4096" ;;
            raytrace) size="--width 64 --height 32" ;; grayscale) size="--width 64 --height 32" ;;
            collider) size="--balls 256" ;; boxfilter) size="--width 256 --height 128" ;;
            dispatch) size="" ;;
        esac
        for v in $("$CO" list | awk -v w="$w:" '$1 == w {on = 1; next} /^[a-z]/ {on = 0} on && /^    / {print $1}'); do
            out="$tmp/il-$1/$w-$v"
            # shellcheck disable=SC2086
            "$CO" il $w --variant $v --device $1 $size --output "$out" --json >"$out.json" 2>"$out.err"
            rc=$?
            if [ $rc -eq 0 ]; then echo "$w $v" >>"$tmp/ran-$1"
            elif [ $rc -eq 2 ] && grep -Eq "runs on the host|calls a library|does not run on|no variant that runs" "$out.err"; then ok
            else no "il $w --variant $v --device $1: exit $rc: $(head -n 1 "$out.err")"; fi
        done
    done
}

if [ $nvrtc = yes ]; then
    paths=$((paths + 1))
    checked=0
    every_variant nvrtc
    while read -r w v; do
        out="$tmp/il-nvrtc/$w-$v"
        for ptx in "$out"/"$v"-*.ptx; do
            case $ptx in *.program.ptx) continue ;; esac
            entry=$(basename "$ptx" .ptx)
            entry=${entry#"$v"-}
            name=$(echo "$entry" | sed -E 's/-[0-9]+$//')
            grep -q "\.entry $name(" "$ptx" || { no "$w/$v: no .entry $name in $ptx"; continue; }
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
                no "$w/$v $entry: summary and grep differ:"
                echo "$want" | sort >"$tmp/a"; echo "$got" | grep -v registers | sort >"$tmp/b"; diff "$tmp/a" "$tmp/b"
            elif [ "$(echo "$got" | awk '$1 == "registers" {print $2}')" -le 0 ]; then
                no "$w/$v $entry: no register count from ptxas"
            else ok; checked=$((checked + 1)); fi
        done
    done <"$tmp/ran-nvrtc"
    [ "$checked" -ge 20 ] && ok || no "only $checked kernels checked through NVRTC"

    # Seed 004's lesson: copy's scalar loads turn into 4-wide ones.
    "$CO" il copy --device nvrtc --n 4096 --compare coalesced vec4 >"$tmp/cmp" 2>&1 || no "--compare failed: $(cat "$tmp/cmp")"
    if grep -Eq '^global loads 4-wide +0 +1$' "$tmp/cmp" && grep -Eq '^global loads scalar +1 ' "$tmp/cmp"; then ok
    else no "--compare coalesced vec4 does not show 1 scalar -> 4-wide:"; cat "$tmp/cmp"; fi
    # One variant, two tunable sets: the tile's shared memory grows with TS.
    "$CO" il gemm --device nvrtc --size 64 --variant tiled --compare :TS=8 :TS=16 >"$tmp/cmp" 2>&1
    grep -Eq '^shared static \(B\) +544 +2112$' "$tmp/cmp" && ok || { no "--compare :TS=8 :TS=16:"; cat "$tmp/cmp"; }
    # Text output: the kernel's PTX and the summary.
    expect 0 "" copy --device nvrtc --variant vec4 --n 4096
    grep -q "ld.global.nc.v4" "$tmp/out" && grep -q "^  global loads 5 scalar, 0 2-wide, 1 4-wide" "$tmp/out" && ok || no "text output of copy/vec4"

    # SASS: where cuobjdump or nvdisasm is installed, else said so.
    "$CO" il copy --device nvrtc --variant vec4 --n 4096 --show sass >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc -eq 0 ]; then grep -q "LDG" "$tmp/out" && ok || no "SASS without LDG"
    elif [ $rc -eq 2 ] && grep -q "SASS not available: no nvdisasm/cuobjdump found" "$tmp/err"; then ok
    else no "--show sass: exit $rc: $(cat "$tmp/err")"; fi

    # Errors.
    expect 2 "unknown format 'spirv-x': nvrtc:sm_90 .* offers ptx sass" copy --device nvrtc --show spirv-x
    expect 2 "no format 'wg': nvrtc:sm_90 .* offers ptx sass" copy --device nvrtc --show wg
    expect 2 "no format 'spirv': nvrtc:sm_90 .* offers ptx sass" copy --device nvrtc --show spirv
    # --format is the workload's (the box filter's f32|rgba8|gray8); il's is --show.
    expect 2 "il shows a format with --show \(--format is the workload's option\): use '--show sass'" copy --device nvrtc --format sass
    expect 0 "" boxfilter --device nvrtc --format rgba8 --show ptx --radius 3 --width 64 --height 64
    grep -q "^kernel box_quad of kernels/boxfilter_quad.cl, built with '.*-DBF_U8=1 -DBF_CH=4 .*-DBF_RADIUS=3 " "$tmp/out" && ok || no "--format rgba8 did not reach the box filter: $(grep '^kernel' "$tmp/out")"
    expect 2 "--format must be one of f32,rgba8,gray8, got 'sassy'" boxfilter --device nvrtc --format sassy --width 64 --height 64
    expect 2 "variant 'omp' of copy runs on the host: its code is the host compiler's .*objdump -d" copy --device nvrtc --variant omp
    expect 2 "device 'omp' runs host code" copy --device omp
    expect 2 "variant 'cublas' of gemm calls a library" gemm --device nvrtc --variant cublas
    expect 2 "unknown variant 'nope' for copy" copy --device nvrtc --variant nope
    expect 2 "has no kernel 'nope' \(it builds copy_vec4\)" copy --device nvrtc --variant vec4 --kernel nope --n 64
    expect 2 "unknown target 'sm_x'" copy --device nvrtc:sm_x
    expect 2 "unknown target 'sm_4294967386'" copy --device nvrtc:sm_4294967386 # (not wrapped to sm_90)
    expect 2 "cannot compile for sm_9999 \(its targets: sm_[0-9]+ to sm_[0-9]+\)" copy --device nvrtc:sm_9999
    expect 2 "unknown option '--size' for copy" copy --device nvrtc --size 4
    expect 2 "--compare needs two runs" copy --device nvrtc --compare vec4
    mkdir -p "$tmp/k"
    cp "$(dirname "$0")/../kernels/dialect.h" "$tmp/k/"
    printf '__kernel void copy_vec4(const int n) { this is not C; }\n' >"$tmp/k/copy.cl"
    COALESCE_KERNEL_DIR="$tmp/k" expect 1 "kernel copy.cl failed to build" copy --device nvrtc --variant vec4 --n 64
fi

# Vulkan: every kernel with a shader, its SPIR-V counted both ways.
if [ $vulkan = yes ]; then
    paths=$((paths + 1))
    checked=0
    every_variant vulkan
    while read -r w v; do
        out="$tmp/il-vulkan/$w-$v"
        for f in "$out"/"$v"-*.spvasm; do
            entry=$(basename "$f" .spvasm)
            entry=${entry#"$v"-}
            grep -q '^; SPIR-V$' "$f" && grep -q ' OpEntryPoint GLCompute ' "$f" ||
                { no "$w/$v $entry: no SPIR-V module in $f"; continue; }
            grep -q '^; driver statistics' "$f" || no "$w/$v $entry: no driver statistics line in $f"
            if [ "$(spirv_counts "$f")" = "$(figures "$out.json" "$entry" | grep -v registers | sort)" ]; then
                ok; checked=$((checked + 1))
            else
                no "$w/$v $entry: summary and the count of $f differ:"
                spirv_counts "$f" >"$tmp/a"; figures "$out.json" "$entry" | grep -v registers | sort >"$tmp/b"
                diff "$tmp/a" "$tmp/b"
            fi
        done
        ls "$out"/*.program.* >/dev/null 2>&1 && no "$w/$v: a .program file for SPIR-V"
    done <"$tmp/ran-vulkan"
    [ "$checked" -ge 12 ] && ok || no "only $checked Vulkan kernels checked"

    # Seed 004's lesson on Vulkan: copy's scalar loads turn 4-wide (the one
    # scalar load left in vec4 is the tail's).
    "$CO" il copy --device vulkan --n 4096 --compare coalesced vec4 >"$tmp/cmp" 2>&1 || no "--compare failed: $(cat "$tmp/cmp")"
    if grep -Eq '^global loads 4-wide +0 +1$' "$tmp/cmp" && grep -Eq '^global stores 4-wide +0 +1$' "$tmp/cmp" &&
        grep -Eq '^global loads scalar +1 +1$' "$tmp/cmp"; then ok
    else no "--compare coalesced vec4 on vulkan does not show the 4-wide load:"; cat "$tmp/cmp"; fi
    grep -q ' OpLoad %v4float ' "$tmp/il-vulkan/copy-vec4/vec4-copy_vec4.spvasm" && ok || no "copy_vec4's SPIR-V has no vec4 load"
    # The tiled GEMM's shared memory from its Workgroup variables: two tiles, one padded.
    "$CO" il gemm --device vulkan --size 64 --variant tiled --compare :TS=8 :TS=16 >"$tmp/cmp" 2>&1
    grep -Eq '^shared static \(B\) +544 +2112$' "$tmp/cmp" && ok || { no "gemm tiled --compare :TS=8 :TS=16:"; cat "$tmp/cmp"; }
    grep -Eq '^barriers +2 +2$' "$tmp/cmp" && ok || no "gemm tiled: not 2 barriers"
    # Shared arrays sized by specialisation constants, evaluated at the launch:
    # 256 floats and 4x3 vec4s at groups of 256 (1216 B); the one sized by
    # CO_LOCAL_BYTES is local memory given at launch, not static.
    mkdir -p "$tmp/spec"
    cat >"$tmp/spec/copy.comp" <<'EOF'
#if defined(ENTRY_copy_vec4)
layout(push_constant) uniform Args { int n; } args;
CO_BUFFER(0, readonly, float, src)
CO_BUFFER(1, writeonly, float, dst)
shared float s[gl_WorkGroupSize.x];
shared vec4 u[gl_WorkGroupSize.x / 64u][3];
shared float t[CO_LOCAL_BYTES / 4u];
void main() {
    const uint i = gl_GlobalInvocationID.x, l = gl_LocalInvocationID.x;
    s[l] = i < uint(args.n) ? src[i] : 0.0;
    u[l / 64u][l % 3u] = vec4(s[l]);
    t[0] = 1.0;
    barrier();
    if (i < uint(args.n)) dst[i] = s[gl_WorkGroupSize.x - 1u - l] + u[0][0].x + t[0];
}
#endif
EOF
    COALESCE_KERNEL_DIR="$tmp/spec" expect 0 "" copy --device vulkan --variant vec4 --n 4096
    grep -q "^  resources:.* 1216 B static shared/local" "$tmp/out" && ok || no "spec-sized shared arrays: $(grep resources "$tmp/out")"
    # reduce's subgroup variant: its subgroupAdd()s are the shuffles.
    expect 0 "" reduce --device vulkan --variant subgroup --n 100000 --json
    python3 -c "import json,sys; k=json.load(open(sys.argv[1]))['results'][0]['kernels'][0]; sys.exit(not (k['mix']['shuffle'] > 0 and k['shared_bytes'] >= 4 * 256))" "$tmp/out" &&
        ok || no "reduce subgroup: no shuffles or no shared memory in $(cat "$tmp/out")"

    # Text output: the module, the statistics (or why none), the summary.
    expect 0 "" copy --device vulkan --variant vec4 --n 4096
    grep -q "^kernel copy_vec4 of kernels/copy.comp" "$tmp/out" && ok || no "text output names no .comp"
    if grep -q '^; driver statistics (VK_KHR_pipeline_executable_properties' "$tmp/out"; then
        grep -q "^  resources: .*VK_KHR_pipeline_executable_properties" "$tmp/out" && ok || no "statistics shown but not used"
    else
        grep -q '^; driver statistics: none (the driver lacks VK_KHR_pipeline_executable_properties)' "$tmp/out" &&
            grep -q "^  resources: 0 B static shared/local, max group [0-9]*, (SPIR-V; no driver statistics" "$tmp/out" && ok ||
            no "no statistics and no reason: $(grep -e '^; driver' -e resources "$tmp/out")"
    fi

    # Errors: an unknown format names those offered, a format Vulkan lacks,
    # --format for il, a variant without a shader, one that does not build.
    expect 2 "unknown format 'spv': vulkan:0 .* offers spirv" copy --device vulkan --show spv
    expect 2 "no format 'ptx': vulkan:0 .* offers spirv" copy --device vulkan --show ptx
    expect 2 "use '--show spirv'" copy --device vulkan --format spirv
    expect 2 "does not run on vulkan:0" reduce --device vulkan --variant shuffle --n 4096
    expect 2 "has no kernel 'nope' \(it builds copy_vec4\)" copy --device vulkan --variant vec4 --kernel nope --n 64
    mkdir -p "$tmp/k"
    printf '#if defined(ENTRY_copy_vec4)\nvoid main() { this is not GLSL; }\n#endif\n' >"$tmp/k/copy.comp"
    COALESCE_KERNEL_DIR="$tmp/k" expect 1 "shader copy.comp \(entry copy_vec4\) failed to build" copy --device vulkan --variant vec4 --n 64
fi

# PoCL: the work-group function it compiled for the launch, and its machine code.
# Its IR is disassembled by llvm-dis, which a machine may lack (the H200
# machine has PoCL but no LLVM tools): then il says so, and this part is skipped.
if grep -q "Portable Computing Language" "$tmp/devices" &&
    "$CO" il copy --device opencl:cpu --variant vec4 --n 64 2>&1 >/dev/null | grep -q "LLVM IR not available"; then
    echo "skip PoCL: $("$CO" il copy --device opencl:cpu --variant vec4 --n 64 2>&1 >/dev/null | head -n 1)"
elif grep -q "Portable Computing Language" "$tmp/devices"; then
    paths=$((paths + 1))
    expect 0 "" copy --device opencl:cpu --variant vec4 --n 4096 --output "$tmp/pocl" --json
    wg="$tmp/pocl/vec4-copy_vec4.ll"
    v4=$(grep -cE '= load <(4|8|16) x |store <(4|8|16) x |@llvm\.masked\.(load|store)\.v(4|8|16)' "$wg")
    got=$(python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['results'][0]['kernels'][0]['mix']; print(m['ld_global'][2]+m['st_global'][2])" "$tmp/out")
    [ "$v4" -gt 0 ] && [ "$v4" = "$got" ] && ok || no "PoCL wg: $got 4-wide in the summary, $v4 by grep in $wg"
    grep -q "^define .*@_pocl_kernel_copy_vec4(" "$wg" && ok || no "PoCL wg text lacks the kernel"
    expect 0 "" copy --device opencl:cpu --variant vec4 --n 4096 --show asm
    grep -q "_pocl_kernel_copy_vec4" "$tmp/out" && ok || no "PoCL asm lacks the kernel"
    expect 0 "" gemm --device opencl:cpu --variant tiled --size 64
    grep -q "max group .*preferred multiple" "$tmp/out" && ok || no "PoCL resources missing"
    expect 2 "no format 'ptx': opencl:[0-9]+ .* offers wg ir asm" copy --device opencl:cpu --show ptx
    expect 2 "no format 'spirv': opencl:[0-9]+ .* offers wg ir asm" copy --device opencl:cpu --show spirv
fi

[ "$paths" -gt 0 ] || { echo "skipped: no NVRTC, Vulkan device or PoCL here"; exit 77; }
summary il
