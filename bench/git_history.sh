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
#   REAL_REPO=/work/.mirror/git+git/repo  a bare clone of git/git (the search tool's fetch brings one), measured
#                                       over one year (--window 365d) as two copies under bench/out/git-history/
#                                       (cp -a: the same packs and delta chains), one given a commit-graph
#   REAL_RUNS=5                         runs of each command on it, interleaved round by round (0: skip)
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

# --- a real repository: one year of git.git, without and with a commit-graph ---------------------------------
# The synthetic history is packed by fast-import (shallow delta chains, small trees); git.git has real packs
# with deep delta chains, a 400-entry root tree and ~850,000 objects, so it shows what reading costs.
REAL=${REAL_REPO:-/work/.mirror/git+git/repo}
REAL_RUNS=${REAL_RUNS:-5}
real_ok=0
if [ "$REAL_RUNS" -gt 0 ] && git -C "$REAL" rev-parse -q --verify HEAD >/dev/null 2>&1; then
	real_ok=1
	RP="$D/real-plain" RG="$D/real-graph"
	real_head=$(git -C "$REAL" rev-parse HEAD)
	if [ "$(git -C "$RP" rev-parse HEAD 2>/dev/null)" != "$real_head" ] || [ ! -f "$RG/objects/info/commit-graph" ]; then
		echo "git-history: copying $REAL (cp -a keeps its packs) and writing a commit-graph into the second copy" >&2
		rm -rf "$RP" "$RG"
		cp -a "$REAL" "$RP"
		rm -rf "$RP/objects/info/commit-graph" "$RP/objects/info/commit-graphs"
		cp -a "$RP" "$RG"
		git -C "$RG" commit-graph write --reachable
	fi
	cat "$RP"/objects/pack/* "$RG"/objects/pack/* > /dev/null
	REAL_SINCE=$(($(git -C "$RP" log -1 --format=%ct HEAD) - 365 * 86400))
	# real_once KEY OUT CMD...: one timed run, its figures appended to KEY's lists (rounds interleave commands).
	real_once() {
		local key=$1 out=$2
		shift 2
		timed one 1 "$out" "$@"
		eval "${key}_e+=(\"\$one_t\") ${key}_u+=(\"\$one_u\") ${key}_m+=(\"\$one_rss\") ${key}_p+=(\"\$one_psi_all\")"
	}
	for v in plain graph; do
		r=$([ $v = plain ] && echo "$RP" || echo "$RG")
		for k in rtk log py; do eval "real_${k}_${v}_e=() real_${k}_${v}_u=() real_${k}_${v}_m=() real_${k}_${v}_p=()"; done
	done
	for ((round = 1; round <= REAL_RUNS; round++)); do
		for v in plain graph; do
			r=$([ $v = plain ] && echo "$RP" || echo "$RG")
			real_once "real_rtk_$v" "$D/real-rtk-$v.json" "$RTK" git-history --json --window 365d --repo "$r"
			real_once "real_log_$v" /dev/null git -C "$r" log --no-merges --name-status --since=@"$REAL_SINCE" HEAD
			real_once "real_py_$v" "$D/real-py-$v.txt" "$PY" "$BENCH_DIR/git_history_peer.py" "$r" "$REAL_SINCE"
		done
	done
	# The commit-graph must change nothing but the time: the same report byte for byte (bar generated_at and the path).
	if cmp -s <(jq 'del(.generated_at, .parameters.repo)' "$D/real-rtk-plain.json") <(jq 'del(.generated_at, .parameters.repo)' "$D/real-rtk-graph.json"); then
		real_same="identical"
	else
		real_same="DIFFERENT"
	fi
fi

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
	if [ "$real_ok" = 1 ]; then
		echo
		echo "One year of git.git ($REAL at $(git -C "$RP" rev-parse --short=10 HEAD), $(git -C "$RP" count-objects -v | sed -n 's/^in-pack: //p') objects"
		echo "in $(du -sh "$RP/objects/pack" | cut -f1) of packs; \`--window 365d\`: $(jq .input.commits_in_window "$D/real-rtk-plain.json") commits in the window, $(jq .input.commits_walked "$D/real-rtk-plain.json") walked;"
		echo "rtk found $(jq .buckets.n "$D/real-rtk-plain.json") failures; the pygit2 peer counted (commits fixes reverts paths): $(cat "$D/real-py-plain.txt")."
		echo "Reports without and with a commit-graph: $real_same (generated_at and the repository path aside). $REAL_RUNS rounds, commands interleaved."
		echo
		echo "| repository | command | median s | user s | peak RSS MiB | time / rtk | user / rtk user | CPU pressure per run | exact command |"
		echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |"
		for v in plain graph; do
			r=$([ $v = plain ] && echo "$RP" || echo "$RG")
			rt=$(eval median "\${real_rtk_${v}_e[@]}") ru=$(eval median "\${real_rtk_${v}_u[@]}")
			for k in rtk log py; do
				e=$(eval median "\${real_${k}_${v}_e[@]}") u=$(eval median "\${real_${k}_${v}_u[@]}") m=$(eval max "\${real_${k}_${v}_m[@]}")
				p=$(eval echo "\${real_${k}_${v}_p[@]}")
				case $k in
				rtk) name="rtk git-history" cmd="rtk git-history --json --window 365d --repo $r" ;;
				log) name="git log --name-status" cmd="git -C $r log --no-merges --name-status --since=@$REAL_SINCE HEAD" ;;
				py) name="pygit2 walk" cmd="python3 bench/git_history_peer.py $r $REAL_SINCE" ;;
				esac
				echo "| git.git $([ $v = plain ] && echo "no commit-graph" || echo "commit-graph") | $name | $e | $u | $((m / 1024)) | $(ratio "$e" "$rt") | $(ratio "$u" "$ru") | $p | \`$cmd\` |"
			done
		done
	fi
	echo
	machine_info
	echo "- runs: $RUNS of each ($PY_RUNS of the pygit2 peer over 90 days, $PY_FULL_RUNS over the whole history), median elapsed reported; peak RSS is the largest of the runs"
} > "$D/results.md"
cat "$D/results.md"
