#!/usr/bin/env bash
# bench/git_history.sh — `rtk git-history` on a 100,000-commit synthetic history against `git log --name-status`
# and a pygit2 walk over the same ranges, time and peak memory.
#
# Usage: bench/git_history.sh          (RTK=/path/to/rtk to measure another binary; default ./rtk at the repo top)
#   COMMITS=100000 FILES=20000 SEED=1   history size and generator seed
#   RUNS=3                              timed runs of each command (the median is reported)
#   PY_FULL_RUNS=1                      runs of the pygit2 peer over the whole history (about 25 min each; 0: skip)
#   PY_RUNS=$RUNS                       runs of the pygit2 peer over 90 days (about 2.5 min each)
# The repository goes to bench/out/git-history/repo-* (built with git fast-import from
# git_history_gen.py, about 1 minute) and is reused while the generator and sizes are the same.
# Writes bench/out/git-history/results.md, the table for RESULTS.md.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

COMMITS=${COMMITS:-100000}
FILES=${FILES:-20000}
SEED=${SEED:-1}
RUNS=${RUNS:-3}
PY_FULL_RUNS=${PY_FULL_RUNS:-1}
PY_RUNS=${PY_RUNS:-$RUNS}
D="$OUT/git-history"
mkdir -p "$D"

need_pkgs time jq git python3 python3-pygit2

# --- the repository --------------------------------------------------------------------------------------
GEN_ID=$(sha256sum "$BENCH_DIR/git_history_gen.py" | cut -c1-8)
REPO="$D/repo-$COMMITS-$FILES-seed$SEED-$GEN_ID"
if [ "$(git -C "$REPO" rev-list --count HEAD 2>/dev/null || echo 0)" -eq "$COMMITS" ]; then
	echo "git-history: reusing $REPO" >&2
else
	echo "git-history: generating $COMMITS commits over $FILES files into $REPO" >&2
	rm -rf "$D"/repo-*
	git init -q -b main "$REPO"
	"$PY" "$BENCH_DIR/git_history_gen.py" "$COMMITS" "$FILES" "$SEED" | git -C "$REPO" fast-import --done --quiet
	git -C "$REPO" checkout -q main
fi
HEAD_TIME=$(git -C "$REPO" log -1 --format=%ct)
SINCE_90=$((HEAD_TIME - 90 * 86400))
# Read every pack once so all runs start from the page cache.
cat "$REPO"/.git/objects/pack/* > /dev/null

# --- runs ---------------------------------------------------------------------------------------------------
cd "$REPO"
for range in 90d full; do
	if [ $range = 90d ]; then since=$SINCE_90; rtk_args=(--window 90d); else since=0; rtk_args=(--since 1970-01-01); fi
	timed "rtk_$range" "$RUNS" "$D/rtk-$range.json" "$RTK" git-history --json "${rtk_args[@]}"
	# The whole history has no --since: git reads --since=@0 as "no commits".
	if [ $range = 90d ]; then log_since=(--since=@$since); else log_since=(); fi
	timed "log_$range" "$RUNS" /dev/null git log --no-merges --name-status "${log_since[@]}" HEAD
	# The pygit2 peer diffs whole trees (libgit2's tree-to-tree diff does not skip unchanged subtrees
	# by id), about 14 ms a commit here: the whole history gets fewer runs.
	runs=$([ $range = full ] && echo "$PY_FULL_RUNS" || echo "$PY_RUNS")
	if [ "$runs" -gt 0 ]; then
		timed "py_$range" "$runs" "$D/py-$range.txt" "$PY" "$BENCH_DIR/git_history_peer.py" . "$since"
	else
		echo "not run" > "$D/py-$range.txt"
	fi
done

# --- results ------------------------------------------------------------------------------------------------
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
row() { # row RANGE NAME KEY COMMAND
	local t u s m
	t=$(eval echo "\$${3}_t") u=$(eval echo "\$${3}_u") s=$(eval echo "\$${3}_s") m=$(eval echo "\$${3}_rss")
	echo "| $1 | $2 | $t | $u | $s | $((m / 1024)) | $(ratio "$t" "$(eval echo "\$rtk_${1}_t")") | \`$4\` |"
}
{
	echo "Repository: $COMMITS commits (linear, one every 10 minutes from 2024-01-01), $FILES files, generator"
	echo "\`bench/git_history_gen.py $COMMITS $FILES $SEED\` (sha256 $GEN_ID...), $(du -sh "$REPO/.git" | cut -f1) packed by git fast-import."
	echo "90-day window: $(jq .input.commits_in_window "$D/rtk-90d.json") commits in the window, $(jq .input.commits_walked "$D/rtk-90d.json") walked with the look-back;"
	echo "rtk found $(jq .buckets.n "$D/rtk-90d.json") failures ($(jq '[.failures[] | select(.kind == "revert")] | length' "$D/rtk-90d.json") reverts), $(jq .input.unlinked "$D/rtk-90d.json") unlinked; the pygit2 peer counted (commits fixes reverts paths): $(cat "$D/py-90d.txt")."
	echo "Full history: rtk found $(jq .buckets.n "$D/rtk-full.json") failures over $(jq .input.commits_in_window "$D/rtk-full.json") commits; pygit2: $(cat "$D/py-full.txt")."
	echo
	echo "| range | command | median s | user s | sys s | peak RSS MiB | time / rtk | exact command |"
	echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"
	for range in 90d full; do
		if [ $range = 90d ]; then a="--window 90d"; s=$SINCE_90; else a="--since 1970-01-01"; s=0; fi
		row $range "rtk git-history (walk, detection, blame, report)" "rtk_$range" "rtk git-history --json $a"
		row $range "git log --name-status (walk and diff only)" "log_$range" "git log --no-merges --name-status $([ $range = 90d ] && echo "--since=@$s ")HEAD"
		if [ "$(cat "$D/py-$range.txt")" != "not run" ]; then
			row $range "pygit2 walk (diff and message match only)" "py_$range" "python3 bench/git_history_peer.py . $s"
		fi
	done
	echo
	machine_info
	echo "- runs: $RUNS of each ($PY_RUNS of the pygit2 peer over 90 days, $PY_FULL_RUNS over the whole history), median elapsed reported; peak RSS is the largest of the runs"
} > "$D/results.md"
cat "$D/results.md"
