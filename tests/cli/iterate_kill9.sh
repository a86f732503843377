#!/usr/bin/env bash
# tests/cli/iterate_kill9.sh — rtk iterate run killed with SIGKILL at random moments of scripted milestones
# (stateful fake agents: one feature a round, decided from the branch's commits), restarted after each
# kill, until at least RTK_KILL9_POINTS (default 24) kills have landed inside a milestone. After every
# kill, every .anima file conforms to its schema; after each project's last restart, both milestones
# are completed, main has not moved, every feature is committed once, no outcome line is written twice,
# no two agents ever ran at once, and no agent is left running. The seed is printed (RTK_KILL9_SEED
# replays a run).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/iterate_lib.sh"

SEED=${RTK_KILL9_SEED:-$(( $(date +%s) % 100000 ))}
POINTS=${RTK_KILL9_POINTS:-24}
MAX_KILLS=$((POINTS * 8)) # a bound, so that an engine that never progresses fails instead of hanging
RANDOM=$SEED
echo "seed: $SEED (RTK_KILL9_SEED=$SEED replays it)"

kills=0 mid=0 projects=0 bad_files= log=
features_of() { case $1 in M1) echo "feat: gamma|feat: beta|feat: alpha|" ;; M2) echo "feat: epsilon|feat: delta|" ;; esac; }
both_done() { ms_is M1 .status completed && ms_is M2 .status completed; }

# finish_project: one last run to the end, then the checks of a project that was killed many times.
finish_project() {
	local n=$projects
	bg_it run --project "$P"
	if ! waitfor both_done; then
		fail "project $n: the milestones finish after the last restart" "M1 $(ms M1 .status), M2 $(ms M2 .status), state $(st -c . 2>/dev/null || cat "$P/.anima/state.json")" "$(tail -5 "$SCRATCH/bg.err")"
	else
		pass "project $n: both milestones completed after its kills"
	fi
	waitfor sched_up # when the milestones were done before this run, it may not have started yet
	stop TERM "$BG"
	is "project $n: the last scheduler exits 0 on SIGTERM" 0 "$STOP_RC"
	is "project $n: state sleeping, no milestone" "sleeping null" "$(st .status) $(st .current_milestone)"
	valid "project $n: every file conforms at the end"
	is "project $n: main untouched" "$MAIN" "$(git -C "$P" rev-parse main)"
	for m in M1 M2; do
		is "project $n: each $m feature committed once" "$(features_of $m)" \
			"$(git -C "$P" log --format=%s "$(ms $m .base_commit)..milestone/$m" 2>&1 | tr '\n' '|')"
	done
	# A feature whose Developer was killed before its report is never reviewed alone (the restarted
	# Developer goes on to the next one), so how many lines there are depends on the kills; but each
	# line is a feature some Acceptor was given, none is written twice, and the milestones count them.
	touch "$P/.anima/outcomes.jsonl"
	is "project $n: no outcome line twice" "" "$(jq -r .task "$P/.anima/outcomes.jsonl" | sort | uniq -d)"
	is "project $n: each outcome is of a feature an Acceptor reviewed" "" \
		"$(jq -r '.task | sub("^M[12]/"; "")' "$P/.anima/outcomes.jsonl" | while read -r f; do
			grep -lxF "Feature: $f" "$F"/prompts/*-acceptor.txt >/dev/null || echo "$f"; done)"
	is "project $n: the milestones count the lines written" "$(wc -l < "$P/.anima/outcomes.jsonl")" \
		"$(( $(ms M1 '.outcomes_written // 0') + $(ms M2 '.outcomes_written // 0') ))"
	no_overlap "project $n: never two agents at once, orphans of killed schedulers included"
	none_left "project $n: no agent left running"
	snaps_valid "project $n: what each agent found conforms"
	announced "project $n: each agent, orphans included, started after its phase and round were written"
}

new_project() {
	projects=$((projects + 1))
	new_case --delay 0.04 --confidence 0.7
}

new_project
start=$(now_ms)
while [ "$mid" -lt "$POINTS" ] && [ "$kills" -lt "$MAX_KILLS" ]; do
	if both_done; then
		finish_project
		new_project
	fi
	bg_it run --project "$P"
	delay=$((RANDOM % 400 + 5))
	sleep "$(printf '0.%03d' "$delay")"
	kill -KILL "$BG" 2>/dev/null
	wait "$BG" 2>/dev/null
	BG=
	kills=$((kills + 1))
	where="$(st .status 2>/dev/null) $(st .current_milestone 2>/dev/null) $(st .phase 2>/dev/null) round $(st .round 2>/dev/null)"
	inside=
	if grep -q '"in_progress"' "$P"/.anima/milestones/M[12].json; then
		inside=1
		mid=$((mid + 1))
	fi
	log+="kill $kills (project $projects) after $delay ms: $where${inside:+ (inside a milestone)}"$'\n'
	if ! out=$(files_valid "$P"); then
		bad_files+="after kill $kills: $out"$'\n'
	fi
done
printf '%s' "$log"
echo "$kills kills, $mid inside a milestone, $projects projects, $(($(now_ms) - start)) ms"
check "at least $POINTS kills landed inside a milestone" test "$mid" -ge "$POINTS"
is "after every kill -9, every .anima file conforms to its schema" "" "$bad_files"
finish_project
finish
