#!/bin/bash
# A parameter sweep: one `coalesce run` per line of a plan, a line of
# results per run (median kernel time and the fraction of the copy
# ceiling). The plan (a file, or - for standard input) has lines
#   DEVICE VARIANT "WORKLOAD OPTIONS" PARAM=V ...
# e.g.  cuda sliding "boxfilter --width 8192 --height 8192 --radius 4" BATCH=16 PF=2
# Environment: REPS (default 7), VERIFY=1 to check each result (default: not),
# COALESCE the binary (default build/coalesce).
#   scripts/sweep.sh PLAN
set -uo pipefail
plan=${1:?usage: scripts/sweep.sh PLAN}
co=${COALESCE:-$(dirname "$0")/../build/coalesce}
verify=--no-verify
[ "${VERIFY:-0}" = 1 ] && verify=
while read -r line; do
    case "$line" in '' | '#'*) continue ;; esac
    eval "set -- $line"
    device=$1 variant=$2 wl=$3
    shift 3
    params=()
    for p in "$@"; do params+=(--param "$p"); done
    # shellcheck disable=SC2086 # the workload options are words
    res=$($co run $wl --device "$device" --variant "$variant" --reps "${REPS:-7}" $verify \
        "${params[@]}" 2>&1)
    rc=$? # 1: a wrong result or a device error, 2: bad input
    ms=$(sed -n 's/.*median \([0-9.]*\) ms in kernels.*/\1/p' <<<"$res" | head -1)
    frac=$(sed -n 's/^ *\([0-9.]*\)% of the device.*/\1/p' <<<"$res" | head -1)
    if [ "$rc" = 0 ] && [ -n "$ms" ]; then
        printf '%-11s %-10s %-52s %-34s %9s ms %6s%%\n' "$device" "$variant" "$wl" "$*" "$ms" "$frac"
    else
        printf '%-11s %-10s %-52s %-34s failed: %s\n' "$device" "$variant" "$wl" "$*" \
            "$(grep -m1 -i 'error\|coalesce:\|wrong' <<<"$res")"
    fi
done < <(if [ "$plan" = - ]; then cat; else cat "$plan"; fi)
