#!/usr/bin/env bash
# bench/hostile.sh — inputs an agent can hand the execution loops to slow them down (issue 27, item 21):
# a plan of 4,000 steps that depend on each other in reverse order, 2 million short output lines from a
# run-plan step and from a loop agent, and a loop plan with 1 million checklist items. Time and peak RSS,
# median of RUNS runs; run it with RTK=/path/to/an/older/rtk for the figures before a change.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_pkgs time git

RUNS=${RUNS:-3}
STEPS=${STEPS:-4000}
LINES=${LINES:-2000000}
ITEMS=${ITEMS:-1000000}
D=$OUT/hostile
mkdir -p "$D"
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@rtk.invalid GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@rtk.invalid

# A one-commit project for run-plan's sandbox, and a loop project whose plan has ITEMS items.
project=$D/project
if [ ! -d "$project/.git" ]; then
	mkdir -p "$project" && git -C "$project" init -q -b main && echo x > "$project/README" &&
		git -C "$project" add -A && git -C "$project" commit -qm init
fi
# loop_project DIR N: a repository whose plan.md has N open checklist items.
loop_project() {
	[ -d "$1/.git" ] && return 0
	mkdir -p "$1" && git -C "$1" init -q -b main
	"$PY" -c "import sys
print('# plan\n\n## Checklist\n')
for i in range(int(sys.argv[1])): print('- [ ] item number %d of the plan' % i)" "$2" > "$1/plan.md"
	git -C "$1" add -A && git -C "$1" commit -qm plan
}
loopdir=$D/loop-$ITEMS smalldir=$D/loop-3
loop_project "$loopdir" "$ITEMS"
loop_project "$smalldir" 3

# STEPS steps, step i depending on step i+1: the last step runs first, and every step waits on the next.
chain=$D/chain-$STEPS.yaml
{ printf 'new_plan:\n  steps:\n'
  for ((i = 0; i < STEPS; i++)); do
	if ((i + 1 < STEPS)); then printf '    - {id: s%d, commands: ["true"], depends_on: [s%d]}\n' "$i" $((i + 1))
	else printf '    - {id: s%d, commands: ["true"]}\n' "$i"; fi
  done; } > "$chain"
lines=$D/lines.yaml
printf 'new_plan:\n  steps:\n    - {id: lines, commands: ["seq %d"]}\n' "$LINES" > "$lines"

# rp PLAN: one run-plan run in a fresh state folder (exit code ignored: the figures are what counts).
rp() {
	rm -rf "$D/state" "$D/sb" "$D/latch"
	"$RTK" run-plan --project-root "$project" --plan "$1" --state-dir "$D/state" --sandbox-root "$D/sb" --latch "$D/latch" \
		--format json || true
}
# lp DIR AGENT: one loop round in DIR, the work tree reset first.
lp() {
	git -C "$1" reset -q --hard && git -C "$1" clean -qfdx
	(cd "$1" && "$RTK" loop --agent "$2" --plan plan.md --max-rounds 1 --format json) || true
}
export -f rp lp
export RTK D project

timed chain "$RUNS" "$D/chain.json" bash -c 'rp "$0"' "$chain"
timed lines "$RUNS" "$D/lines.json" bash -c 'rp "$0"' "$lines"
timed agent "$RUNS" "$D/agent.json" bash -c 'lp "$0" "$1"' "$smalldir" "seq $LINES"
timed items "$RUNS" "$D/items.json" bash -c 'lp "$0" true' "$loopdir"

cat <<EOF
## Hostile inputs to the execution loops (bench/hostile.sh)

$(machine_info)

| input | elapsed (median of $RUNS) | user | peak RSS |
| --- | ---: | ---: | ---: |
| run-plan, $STEPS steps depending on each other in reverse order | ${chain_t} s | ${chain_u} s | ${chain_rss} KiB |
| run-plan, one step printing $LINES short lines (seq) | ${lines_t} s | ${lines_u} s | ${lines_rss} KiB |
| loop, one round of an agent printing $LINES short lines (seq), 3-item plan | ${agent_t} s | ${agent_u} s | ${agent_rss} KiB |
| loop, one round (agent true) on a plan of $ITEMS checklist items | ${items_t} s | ${items_u} s | ${items_rss} KiB |
EOF
