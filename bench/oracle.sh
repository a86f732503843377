#!/usr/bin/env bash
# bench/oracle.sh — rtk's blame measured against the culprits developers named (Fixes: trailers), beside a B-SZZ baseline.
#
# Usage: bench/oracle.sh REPO [WINDOW] [FIX_WINDOW]
#   REPO        a git repository (a bare mirror is fine); its history must carry "Fixes: <sha>" lines
#   WINDOW      rtk's --window (default 365d)
#   FIX_WINDOW  rtk's --fix-window (default: rtk's own, 7d); the trailers often name commits older than that
#   RTK=/path/to/rtk   the binary measured (default ./rtk at the repo top)
#   REV=REF            the commit the window ends at (default HEAD)
#   RUNS=N             time N runs of rtk (the table gives the median wall time, the largest peak RSS)
#   JOBS=N             git blame processes the baseline runs at a time (default 2)
#   NAME=owner/name    the repository's name in the table (default: from /work/.mirror/owner+name/repo, else
#                      the folder's name)
#
# Runs `rtk git-history --json --blame-only` (no culprit a message names links: blame alone decides), then
# bench/oracle.py reads the window's Fixes: lines with git itself, resolves their shas, and scores rtk's links
# and a plain B-SZZ baseline (git blame -w at the fix's parent of every line it deletes or modifies, majority
# vote) against them: precision, recall, Wilson 95% intervals, ghost fixes. Prints a markdown table and one
# JSON line; keeps rtk's JSON, the time -v output and one line per trailer fix under bench/out/oracle/.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

if [ $# -lt 1 ] || [ $# -gt 3 ]; then
	sed -n '4,14s/^# \{0,1\}//p' "$0" >&2
	exit 2
fi
REPO=$1
WINDOW=${2:-365d}
FIX_WINDOW=${3:-}
REV=${REV:-HEAD}
RUNS=${RUNS:-1}
JOBS=${JOBS:-2}
git -C "$REPO" rev-parse --git-dir >/dev/null 2>&1 || { echo "oracle: $REPO is not a git repository" >&2; exit 2; }
REPO=$(cd "$REPO" && pwd)

# The name: owner/name from the mirror layout /work/.mirror/owner+name/repo, else the folder's name.
if [ -z "${NAME:-}" ]; then
	parent=$(basename "$(dirname "$REPO")")
	case $parent in *+*) NAME=${parent/+//} ;; *) NAME=$(basename "$REPO") ;; esac
fi

[ -x /usr/bin/time ] || { echo "oracle: /usr/bin/time not found: install the Debian package time" >&2; exit 2; }
D="$OUT/oracle"
mkdir -p "$D"
tag="${NAME//\//+}-$WINDOW${FIX_WINDOW:+-fw$FIX_WINDOW}"

args=(git-history --json --blame-only --no-progress --repo "$REPO" --rev "$REV" --window "$WINDOW")
[ -n "$FIX_WINDOW" ] && args+=(--fix-window "$FIX_WINDOW")
echo "+ rtk ${args[*]}   # x$RUNS" >&2

# Each run under GNU time -v: wall clock, CPU and peak RSS. The last run's JSON is the one scored (the runs
# give the same report: only generated_at differs).
times=()
for ((i = 1; i <= RUNS; i++)); do
	/usr/bin/time -v -o "$D/$tag.time.$i" "$RTK" "${args[@]}" > "$D/$tag.rtk.json"
	times+=(--time-file "$D/$tag.time.$i")
done

"$PY" "$BENCH_DIR/oracle.py" --repo "$REPO" --name "$NAME" --rtk-json "$D/$tag.rtk.json" "${times[@]}" \
	--window "$WINDOW" --fix-window "$FIX_WINDOW" --command "rtk ${args[*]}" --details "$D/$tag.fixes.jsonl" \
	--jobs "$JOBS"
