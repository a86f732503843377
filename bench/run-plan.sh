#!/usr/bin/env bash
# bench/run-plan.sh — rtk run-plan's costs against what a shell would do: sandbox creation on a 20,000-file
# repository (worktree mode against `git worktree add --detach`, copy mode against `cp -a`), and the
# per-step overhead of a 200-step plan of `true` against 200 `sh -c true` in a shell loop.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_pkgs time git

FILES=${FILES:-20000}
RUNS=${RUNS:-5}
STEPS=${STEPS:-200}
D=$OUT/run-plan
mkdir -p "$D"
repo=$D/repo-$FILES

# A repository of FILES files of ~1 KiB in 200 folders, committed: made once and reused.
if [ ! -f "$repo/.made" ]; then
	rm -rf "$repo"
	mkdir -p "$repo"
	(cd "$repo" && git init -q -b main . && git config user.email bench@rtk.invalid && git config user.name bench &&
		/usr/bin/python3 - "$FILES" <<'PY' && git add -A && git commit -qm files && touch .made && echo .made > .git/info/exclude
import os, sys
n = int(sys.argv[1])
for i in range(n):
    d = "pkg%03d" % (i % 200)
    os.makedirs(d, exist_ok=True)
    with open("%s/file%05d.c" % (d, i), "w") as f:
        f.write(("/* file %d */\nint f%d(int x) { return x + %d; }\n" % (i, i, i)) * 16)
PY
	)
fi
echo "bench: repository of $(git -C "$repo" ls-files | wc -l) files at $repo" >&2

one_step_plan=$D/one-step.yaml
printf 'new_plan:\n  steps:\n    - {id: only, commands: ["true"]}\n' > "$one_step_plan"
many_steps_plan=$D/many-steps.yaml
{ printf 'new_plan:\n  steps:\n'; for i in $(seq 1 "$STEPS"); do printf '    - {id: s%d, commands: ["true"]}\n' "$i"; done; } > "$many_steps_plan"

# rtk_sandbox MODE: one run of a one-step plan that keeps its sandbox, then the sandbox removed
# outside the timing (the peers' timings include no removal either).
rtk_sandbox() {
	rm -rf "$D/state" "$D/sb" "$D/latch"
	(cd "$repo" && "$RTK" run-plan --mode "$1" --keep-sandbox --plan "$one_step_plan" --state-dir "$D/state" \
		--sandbox-root "$D/sb" --latch "$D/latch" --format json)
}
cleanup_worktrees() {
	rm -rf "$D/sb" "$D/peer-wt" "$D/peer-cp"
	git -C "$repo" worktree prune
}
export -f rtk_sandbox
export RTK D repo one_step_plan


# The timings, each median of RUNS runs with the page cache warm (the tree is read once first).
cat "$repo"/pkg*/* > /dev/null
# rtk and its peer take turns, run by run: this disk (ext4 with discard) slows down as files are made
# and deleted, and taking turns lets that drift fall on both alike.
declare -A el rs ps
one_run() { # one_run KEY OUT CMD...: one timed run after a cleanup; appends to el[KEY], rs[KEY] and ps[KEY]
	local key=$1 out=$2
	shift 2
	cleanup_worktrees
	timed one 1 "$out" "$@"
	el[$key]+="$one_t " rs[$key]+="$one_rss " ps[$key]+="$one_psi_all "
}
# paired KEY PEER: the median of KEY's run r over PEER's run r (runs taken in turns, so each pair saw
# about the same load), the figure to read on a shared machine.
paired() {
	local -a a b
	local r out=()
	read -ra a <<< "${el[$1]}"
	read -ra b <<< "${el[$2]}"
	for r in "${!a[@]}"; do out+=("$(awk -v x="${a[$r]}" -v y="${b[$r]}" 'BEGIN { printf "%.4f", x / y }')"); done
	printf '%.2f' "$(median "${out[@]}")"
}
# pressure KEY...: the range of CPU pressure over the runs of KEY...
pressure() {
	local k all=""
	for k in "$@"; do all+="${ps[$k]} "; done
	# shellcheck disable=SC2086 # numbers with % signs, separated by spaces
	printf '%s\n' $all | tr -d % | sort -n | sed -n '1p;$p' | paste -sd- | sed 's/$/%/'
}
for ((r = 0; r < RUNS; r++)); do
	one_run rtk_worktree "$D/rtk-worktree.json" bash -c "rtk_sandbox worktree"
	one_run git_wt /dev/null git -C "$repo" worktree add -q --detach "$D/peer-wt"
	one_run rtk_copy "$D/rtk-copy.json" bash -c "rtk_sandbox copy"
	one_run cp /dev/null cp -a "$repo" "$D/peer-cp"
done
for key in rtk_worktree git_wt rtk_copy cp; do
	# shellcheck disable=SC2086 # the lists are numbers separated by spaces
	printf -v "${key}_t" '%s' "$(median ${el[$key]})"
	# shellcheck disable=SC2086
	printf -v "${key}_rss" '%s' "$(max ${rs[$key]})"
done
cleanup_worktrees
jq -e '.status == "OK" and .sandbox.mode == "worktree"' "$D/rtk-worktree.json" > /dev/null
jq -e '.status == "OK" and .sandbox.mode == "copy"' "$D/rtk-copy.json" > /dev/null

# Per-step overhead: STEPS steps of `true` in copy mode on a tiny project, less a one-step run of the
# same; the shell loop runs `sh -c true` STEPS times.
tiny=$D/tiny
rm -rf "$tiny" && mkdir -p "$tiny" && echo x > "$tiny/README"
rtk_steps() { # rtk_steps PLAN
	rm -rf "$D/state" "$D/sb" "$D/latch"
	(cd "$tiny" && "$RTK" run-plan --mode copy --plan "$1" --state-dir "$D/state" --sandbox-root "$D/sb" --latch "$D/latch" --format json)
}
shell_loop() {
	local i
	for ((i = 0; i < STEPS; i++)); do sh -c true; done
}
export -f rtk_steps shell_loop
export tiny STEPS
# In turns too: the 200-step run, the one-step run, the shell loop.
for ((r = 0; r < RUNS; r++)); do
	one_run many "$D/rtk-steps.json" bash -c "rtk_steps $many_steps_plan"
	one_run single /dev/null bash -c "rtk_steps $one_step_plan"
	one_run loop /dev/null bash -c shell_loop
done
for key in many single loop; do
	# shellcheck disable=SC2086
	printf -v "${key}_t" '%s' "$(median ${el[$key]})"
done
jq -e --argjson n "$STEPS" '.status == "OK" and (.steps | length) == $n' "$D/rtk-steps.json" > /dev/null
per_step_ms=$(awk -v a="$many_t" -v b="$single_t" -v n="$STEPS" 'BEGIN { printf "%.3f", (a - b) * 1000 / (n - 1) }')
loop_ms=$(awk -v a="$loop_t" -v n="$STEPS" 'BEGIN { printf "%.3f", a * 1000 / n }')
# the per-step ratio run by run: (many - single) / (n - 1) over loop / n
read -ra m_all <<< "${el[many]}"
read -ra s_all <<< "${el[single]}"
read -ra l_all <<< "${el[loop]}"
step_pairs=()
for r in "${!m_all[@]}"; do
	step_pairs+=("$(awk -v a="${m_all[$r]}" -v b="${s_all[$r]}" -v l="${l_all[$r]}" -v n="$STEPS" 'BEGIN { printf "%.4f", ((a - b) / (n - 1)) / (l / n) }')")
done
step_paired=$(printf '%.2f' "$(median "${step_pairs[@]}")")

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
{
	echo "### run-plan ($FILES files, medians of $RUNS runs)"
	echo
	machine_info
	echo
	echo "| what | rtk | peer | rtk / peer (medians) | paired ratio | CPU pressure | target |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | --- |"
	echo "| worktree sandbox | ${rtk_worktree_t} s, ${rtk_worktree_rss} KiB | git worktree add --detach: ${git_wt_t} s, ${git_wt_rss} KiB | $(ratio "$rtk_worktree_t" "$git_wt_t") | $(paired rtk_worktree git_wt) | $(pressure rtk_worktree git_wt) | ≤ 1.2 |"
	echo "| copy sandbox (with its baseline commit) | ${rtk_copy_t} s, ${rtk_copy_rss} KiB | cp -a: ${cp_t} s, ${cp_rss} KiB | $(ratio "$rtk_copy_t" "$cp_t") | $(paired rtk_copy cp) | $(pressure rtk_copy cp) | ≤ 1.2 |"
	echo "| per step ($STEPS steps of \`true\`) | ${per_step_ms} ms | sh -c true in a loop: ${loop_ms} ms | $(ratio "$per_step_ms" "$loop_ms") | ${step_paired} | $(pressure many single loop) | ≤ 1.5 |"
	echo
	echo "Each row's rtk and peer runs alternated (rtk, peer, rtk, peer, ...), each after the last one's"
	echo "sandbox was removed; the paired ratio is the median of run r of rtk over run r of its peer, which"
	echo "saw about the same load (CPU pressure: the share of each run's time some task waited for a CPU)."
	echo "The rtk rows are whole runs of a one-step plan with --keep-sandbox (plan, sandbox, the step, logs,"
	echo "summary, patch, state file), so they hold more than the sandbox; the per-step row is (${STEPS}-step run"
	echo "− one-step run) / $((STEPS - 1)). Commands:"
	echo
	echo '```'
	echo "cd $repo && rtk run-plan --mode worktree|copy --keep-sandbox --plan one-step.yaml --state-dir ... --sandbox-root ... --latch ... --format json"
	echo "git -C $repo worktree add -q --detach DIR"
	echo "cp -a $repo DIR"
	echo "rtk run-plan --mode copy --plan many-steps.yaml ...   # $STEPS steps of true, on a one-file project"
	echo "for i in \$(seq $STEPS); do sh -c true; done"
	echo '```'
} | tee "$D/results.md"
