#!/bin/sh
# The tuner's goals (issue 30) on one device: every variant of every workload
# (anchors excepted: the libraries have nothing to tune) tuned at the
# workload's bench sizes for the device's type, BUDGET seconds a search
# (default 10), then a table per variant and size: the default's and the
# tuned time, both timed side by side by tune itself at the end of its
# search, their ratio, the candidates run of the space, and the status.
#
#   scripts/tune-goals.sh DEVICE [BUDGET]
#
# Workloads and variants come from `coalesce list`, so new ones are picked up;
# a variant that does not run on DEVICE is skipped by tune. Each workload's
# searches are one `coalesce tune -o` document, $OUT/tune-WORKLOAD.json (its
# text tables beside it, .txt); `coalesce report $OUT/tune-*.json` draws their
# landscapes. Exit 0 when every search ran and every tuned time is at most
# its default's, 1 otherwise. Interrupted (Ctrl-C, or `timeout -s INT S` to
# hold it to S seconds), it prints the table of the searches that finished and
# exits 130.
#
# Environment: COALESCE (default the checkout's build/coalesce), OUT (default
# tune-goals-DEVICE), WORKLOADS (default: all, space-separated), EXCLUDE
# (workload/variant pairs to leave out, space-separated: "collider/brute"),
# TUNE_ARGS (more options for tune: "--reps 3"). The tuning database is the
# cache directory's (COALESCE_CACHE_DIR): the results are kept there.
set -u
DEVICE=${1:?usage: scripts/tune-goals.sh DEVICE [BUDGET]}
BUDGET=${2:-10}
CO=${COALESCE:-$(dirname "$0")/../build/coalesce}
OUT=${OUT:-tune-goals-$(echo "$DEVICE" | tr ':,' '--')}
EXCLUDE=${EXCLUDE:-}
TUNE_ARGS=${TUNE_ARGS:-}
HERE=$(dirname "$0")
[ -x "$CO" ] || { echo "tune-goals: no coalesce at $CO (set COALESCE)" >&2; exit 2; }
"$CO" devices 2>/dev/null | grep -q . || { echo "tune-goals: $CO devices failed" >&2; exit 2; }
mkdir -p "$OUT" || exit 2
rm -f "$OUT"/tune-*.json "$OUT"/tune-*.txt

# `coalesce list`: "WORKLOAD: summary", then "    VARIANT   summary" lines;
# an anchor's summary starts "anchor:".
list=$("$CO" list) || exit 2
workloads=${WORKLOADS:-$(echo "$list" | sed -n 's/^\([a-z0-9_-]*\): .*/\1/p')}
t0=$(date +%s)
status=0
stop=
trap 'stop=1' INT TERM # tune stops too (one process group): the table of what finished
for w in $workloads; do
    [ -z "$stop" ] || break
    variants=$(echo "$list" | awk -v w="$w" '
        /^[a-z0-9_-]+: / { inw = ($1 == w ":"); next }
        inw && /^  variants:/ { inv = 1; next }
        inw && inv && /^    [^ ]/ && $2 != "anchor:" { print $1 }' | while read -r v; do
            case " $EXCLUDE " in *" $w/$v "*) ;; *) printf '%s\n' "$v" ;; esac
        done | paste -sd, -)
    if [ -z "$variants" ]; then
        echo "tune-goals: no variants of '$w' in 'coalesce list'" >&2
        status=1
        continue
    fi
    echo "tuning $w ($variants) on $DEVICE, $BUDGET s a search..."
    # shellcheck disable=SC2086
    "$CO" tune "$w" --device "$DEVICE" --variant "$variants" --budget "$BUDGET" $TUNE_ARGS \
        -o "$OUT/tune-$w.json" >"$OUT/tune-$w.txt" 2>"$OUT/tune-$w.err"
    rc=$?
    grep -v "^coalesce: skipped: " "$OUT/tune-$w.err" >&2 # the variants not for DEVICE: in the table
    case $rc in
    0 | 3) ;; # 3: some variant does not run here
    130) stop=1 ;;
    *) status=1 ;;
    esac
done
echo "tuned in $(($(date +%s) - t0)) s${stop:+ (interrupted)}"
python3 "$HERE/tune-goals.py" "$DEVICE" "$OUT"/tune-*.json || status=1
[ -z "$stop" ] || exit 130
exit $status
