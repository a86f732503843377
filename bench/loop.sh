#!/usr/bin/env bash
# bench/loop.sh — rtk loop's own cost per round (read and count a 2,000-item checklist, check the work tree,
# start the agent, count again, look for commits and changes, report) against the original bash loop doing
# the same checks with grep and git. The agent is `true`, so only the loop's own work is timed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_pkgs time git

ITEMS=${ITEMS:-2000}
FILES=${FILES:-2000}
ROUNDS=${ROUNDS:-20}
RUNS=${RUNS:-5}
D=$OUT/loop
mkdir -p "$D"
repo=$D/repo-$FILES-$ITEMS

# A repository of FILES small files and a plan of ITEMS items (half done), committed: made once and reused.
if [ ! -f "$repo/.made" ]; then
	rm -rf "$repo"
	mkdir -p "$repo/docs/plans"
	(cd "$repo" && git init -q -b main . && git config user.email bench@rtk.invalid && git config user.name bench &&
		for d in $(seq 0 19); do mkdir -p "src/d$d"; done &&
		for i in $(seq 1 "$FILES"); do echo "int f$i;" > "src/d$((i % 20))/f$i.c"; done &&
		{ printf '# Plan\n\n## Checklist\n\n'; for i in $(seq 1 "$ITEMS"); do
			if [ $((i % 2)) = 0 ]; then printf -- '- [x] Item %d\n' "$i"; else printf -- '- [ ] Item %d\n' "$i"; fi
		done; printf '\n## Notes\n- [ ] not an item\n'; } > docs/plans/plan.md &&
		echo docs/plans/plan.md > docs/plans/.active &&
		git add -A && git commit -qm files && touch .made && printf '.made\n.bench/\n' > .git/info/exclude)
fi
echo "bench: $(git -C "$repo" ls-files | wc -l) files, $(grep -c '^- \[' "$repo/docs/plans/plan.md") plan lines at $repo" >&2

# rtk: N rounds of an agent that does nothing (the breaker stops it after N), markdown report to stdout.
rtk_rounds() {
	(cd "$repo" && "$RTK" loop --agent true --no-progress-limit "$1" --round-timeout 1min; test $? = 4)
}
# The original bash loop (a "Ralph loop") with the same checks per round, the same agent and a report.
bash_rounds() {
	(cd "$repo" && n=$1 plan=$(head -1 docs/plans/.active) run=bench-$$ streak=0 && mkdir -p ".bench/$run" &&
		count() { sed -n '/^## Checklist/,/^## [^C]/p' "$plan" | grep -v '^```' | grep -cE "^[[:space:]]*[-*+] \\[$1\\] " || true; } &&
		for ((i = 1; i <= n; i++)); do
			[ -r "$plan" ] || { echo "plan vanished" >&2; exit 1; }
			open_before=$(count ' ') done_before=$(count '[xX]')
			if [ -n "$(git status --porcelain)" ]; then git stash push -u -q -m "loop round $i $run"; fi
			head=$(git rev-parse HEAD)
			true < /dev/null > ".bench/$run/round-$i.log" 2>&1 || echo "agent exit $?" >&2
			[ -r "$plan" ] || { echo "plan vanished" >&2; exit 1; }
			open=$(count ' ') done=$(count '[xX]')
			commits=$(git rev-list --count "$head..HEAD")
			changed=$(git status --porcelain -- . ":!$plan" | wc -l)
			if [ "$done" -gt "$done_before" ] && [ "$changed" -gt 0 -o "$commits" -gt 0 ]; then streak=0; else streak=$((streak + 1)); fi
			echo "| $i | $open_before -> $open open | $done done | $commits commits | $changed changed |"
			[ "$open" = 0 ] && break
			[ "$streak" -ge "$n" ] && break
		done
		echo "stopped after $i rounds, $open open")
}
export -f rtk_rounds bash_rounds
export RTK repo

timed rtk1 "$RUNS" "$D/rtk-1.md" bash -c "rtk_rounds 1"
timed rtkN "$RUNS" "$D/rtk-$ROUNDS.md" bash -c "rtk_rounds $ROUNDS"
timed bash1 "$RUNS" "$D/bash-1.md" bash -c "bash_rounds 1"
timed bashN "$RUNS" "$D/bash-$ROUNDS.md" bash -c "bash_rounds $ROUNDS"
grep -q "^# loop .*: no_progress" "$D/rtk-$ROUNDS.md"
test "$(grep -c '^| *[0-9]* | Item' "$D/rtk-$ROUNDS.md")" = "$ROUNDS"
grep -q "^stopped after $ROUNDS rounds, $((ITEMS / 2)) open" "$D/bash-$ROUNDS.md"
rm -rf "$repo/.rtk" "$repo/.bench"

per_round() { awk -v a="$1" -v b="$2" -v n="$ROUNDS" 'BEGIN { printf "%.2f", (a - b) * 1000 / (n - 1) }'; }
ms() { awk -v a="$1" 'BEGIN { printf "%.1f", a * 1000 }'; }
rtk_round=$(per_round "$rtkN_t" "$rtk1_t")
bash_round=$(per_round "$bashN_t" "$bash1_t")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
{
	echo "### loop ($ITEMS-item plan, $FILES-file repository, medians of $RUNS runs)"
	echo
	machine_info
	echo
	echo "| what | rtk loop | bash loop (grep + git) | rtk / bash | target |"
	echo "| --- | ---: | ---: | ---: | --- |"
	echo "| one round, start to report | $(ms "$rtk1_t") ms, ${rtk1_rss} KiB | $(ms "$bash1_t") ms, ${bash1_rss} KiB | $(ratio "$rtk1_t" "$bash1_t") | ≤ 1 |"
	echo "| each further round ($ROUNDS-round run − 1-round run) / $((ROUNDS - 1)) | ${rtk_round} ms | ${bash_round} ms | $(ratio "$rtk_round" "$bash_round") | ≤ 1 |"
	echo "| $ROUNDS rounds | $(ms "$rtkN_t") ms, ${rtkN_rss} KiB | $(ms "$bashN_t") ms, ${bashN_rss} KiB | $(ratio "$rtkN_t" "$bashN_t") | ≤ 1 |"
	echo
	echo "Peak RSS is the largest of the runs (GNU time %M: for the bash loop, its largest single process)."
	echo "Each round, both: the plan read and its checklist counted, the work tree checked (stash when dirty),"
	echo "HEAD noted, the agent (\`true\`) run with its output logged, the checklist counted again, commits and"
	echo "changes since HEAD found, the breaker updated; at the end a report. rtk also redacts the log, diffs"
	echo "the checklists item by item and builds its result as JSON before printing the markdown. Commands (in $repo):"
	echo
	echo '```'
	echo "rtk loop --agent true --no-progress-limit N --round-timeout 1min      # N = 1 and $ROUNDS"
	echo "bash_rounds N   # bench/loop.sh: sed -n '/^## Checklist/,/^## [^C]/p' | grep -c; git status --porcelain;"
	echo "                # git rev-parse HEAD; git rev-list --count; git status --porcelain -- . ':!plan'"
	echo '```'
} | tee "$D/results.md"
