#!/usr/bin/env bash
# tests/cli/loop.sh — rtk loop on real repositories with fake agent processes (tests/fixtures/loop-agent.sh):
# done, breaker, suspicious ticks, a vanished plan, rate limits (stderr only), the clients' trouble read through
# their profiles (tests/fixtures/canned-client.sh: rate limit, transient, fatal, no false rate limit, tokens), fences and dates, stashes,
# skips, timeouts, the environment scrub, limits, signals, traces for rtk reflect, and every JSON's schema.
. "$(dirname "$0")/lib.sh"
. "$RTK_SRCDIR/tests/fixtures/gitrepo.sh" # identities for the agents' commits; no user git config
export RTK RTK_SRCDIR
FIX=$RTK_SRCDIR/tests/fixtures
# Rate-limit waits are scaled down (a minute becomes 0.6 s): the test-only knob rtk-loop(1) documents.
export RTK_TEST_WAIT_SCALE=0.01
unset RTK_AGENT CLAUDECODE CLAUDE_CODE_ENTRYPOINT

# project KIND: the repository in ./p (the agent's state in ./state), and cd into it.
project() {
	bash "$FIX/loop-project.sh" p "${1:-simple}" >/dev/null && cd p || return 1
	export LOOP_AGENT_STATE=$PWD/../state
}
# lp MODES [OPTIONS...]: rtk loop with the fake agent doing MODES ("tick commit"), JSON to ../out.json, exit code to ../rc.
lp() {
	local modes=$1
	shift
	"$RTK" loop --agent "bash $FIX/loop-agent.sh $modes" --json "$@" > ../out.json 2> ../err.txt
	echo $? > ../rc
}
# summary: exit code, stop reason, verdicts.
summary() {
	echo "$(cat ../rc) $(jq -r '.stop_reason + " " + ([.rounds[].verdict] | join(","))' ../out.json)"
}
export -f project lp summary
export FIX

# --- an agent that ticks one box and commits per round ------------------------------------------------
scratch
(cd "$SCRATCH" && project simple && lp "say tick code commit")
check "ticks and commits: exit 0 after 3 rounds" test "$(cd "$SCRATCH/p" && summary)" = "0 done progress,progress,progress"
conforms "a finished run's JSON conforms" "$SCRATCH/out.json" loop
check "each round names the item it worked on" test "$(jq -c '[.rounds[].item]' "$SCRATCH/out.json")" = '["Item 1 of the plan","Item 2 of the plan","Item 3 of the plan"]'
check "each round lists what it ticked" test "$(jq -c '[.rounds[].ticked[]]' "$SCRATCH/out.json")" = '["Item 1 of the plan","Item 2 of the plan","Item 3 of the plan"]'
check "each round lists its commit" test "$(jq -r '.rounds[].commits[]' "$SCRATCH/out.json" | tr '\n' ' ')" = "$(git -C "$SCRATCH/p" log --format=%H -3 --reverse | tr '\n' ' ')"
check "the commits are the agent's" test "$(git -C "$SCRATCH/p" log --format=%s -3 | tr '\n' '|')" = "feat: Item 3 of the plan|feat: Item 2 of the plan|feat: Item 1 of the plan|"
check "totals count rounds, commits, ticks" test "$(jq -c '.totals' "$SCRATCH/out.json")" = '{"rounds":3,"commits":3,"stashes":0,"ticked":3,"skipped":0,"rate_limit_waits":0,"backoffs":0,"tokens_used":null,"tokens":{"input":null,"output":null,"cache_read":null,"cache_write":null}}'
check "the final checklist is all done" test "$(jq -c '.checklist | [.open, .done, .skipped]' "$SCRATCH/out.json")" = '[0,3,0]'
check "the items outside ## Checklist are left alone" grep -q '^- \[ \] not an item: outside the section$' "$SCRATCH/p/docs/plans/plan.md"
log=$SCRATCH/p/$(jq -r '.rounds[1].log' "$SCRATCH/out.json")
check "each round's output is logged" test "$(cat "$log")" = "$(printf 'working on Item 2 of the plan\ndone with Item 2 of the plan')"
check "the logs stay out of git (no stash, nothing untracked)" test -z "$(git -C "$SCRATCH/p" status --porcelain)"
check "not on a terminal, it is not shown" bash -c "! grep -q '^\\[round' '$SCRATCH/err.txt'"
testing "markdown: a heading with the stop reason, a row per round" \
	"project simple && $RTK loop --agent 'bash $FIX/loop-agent.sh tick code commit' | sed -n '1p;7,8p' | sed 's/loop [0-9TZ]*-[0-9a-f]*/loop RUN/; s/  *[0-9.]* | *0 | progress/ S | 0 | progress/'" \
	"# loop RUN: done\n|     1 | Item 1 of the plan | S | 0 | progress |      1 |       0 |       1 | -     |\n|     2 | Item 2 of the plan | S | 0 | progress |      1 |       0 |       1 | -     |\n"

testing "on a terminal, the agent's output is shown on stderr with its round" \
	"project simple && script -qec \"$RTK loop --agent 'bash $FIX/loop-agent.sh say tick code commit' --max-rounds 1\" /dev/null | tr -d '\\r' | grep '^\\[round'" \
	"[round 1] working on Item 1 of the plan\n[round 1] done with Item 1 of the plan\n"
testing "an escape sequence in the agent's output is shown on the terminal, never sent" \
	"project simple && script -qec \"$RTK loop --agent 'bash $FIX/loop-agent.sh say-escape tick code commit' --max-rounds 1\" /dev/null | tr -d '\\r' | grep '^\\[round'" \
	"[round 1] title ^[]0;pwned^G set\n"

# --- the prompt ------------------------------------------------------------------------------------------
scratch
(cd "$SCRATCH" && project simple && lp "prompt" --max-rounds 1)
check "the prompt names the plan" grep -qx 'Read the plan at docs/plans/plan.md.' "$SCRATCH/state/prompt"
check "the prompt keeps {item} for the agent" grep -q 'feat: {item}' "$SCRATCH/state/prompt"
check "the prompt says what to do on 3 failures" grep -q 'SKIP' "$SCRATCH/state/prompt"
testing "--prompt: a template of one's own, its variables filled" \
	"project simple && printf 'Read the plan at {PLAN_FILE}.\nnext: {NEXT_ITEM} / round {ROUND} / {OTHER}\n' > ../t.txt && lp prompt --prompt ../t.txt --max-rounds 1 && sed -n 2p ../state/prompt" \
	"next: Item 1 of the plan / round 1 / {OTHER}\n"

# --- ticks without commits: suspicious, then the breaker ---------------------------------------------------
scratch
(cd "$SCRATCH" && project five && lp "tick")
check "ticks without a code change: suspicious, breaker after 3 (exit 4)" test "$(cd "$SCRATCH/p" && summary)" = "4 no_progress suspicious,suspicious,suspicious"
# Round 3 was asked to do Item 3 (and ticked it): that is what the rounds were stuck on, not Item 4, which none touched.
check "the breaker names the item its last round worked on" test "$(jq -r .stuck_item "$SCRATCH/out.json")" = "Item 3 of the plan"
check "the breaker's message names it too" grep -q 'rtk loop: 3 rounds in a row made no progress; stuck on: Item 3 of the plan' "$SCRATCH/err.txt"
conforms "a breaker's JSON conforms" "$SCRATCH/out.json" loop
testing "a tick with an uncommitted code change is progress" \
	"project one && lp 'tick code' && summary" "0 done progress\n"
testing "a tick committed with no code change is suspicious" \
	"project five && lp 'tick commit' --no-progress-limit 1 && summary; jq -c '.rounds[0] | [(.commits | length), .files_changed]' ../out.json" \
	"4 no_progress suspicious\n[1,0]\n"

# --- an agent that lies: a checklist that reads as done without the work is no exit 0 (issues 26 and 27) ---
testing "every item ticked by a round that changed no code: exit 4 unverified, naming them" \
	"project simple && lp tickall && summary && jq -c '[.unbacked_ticks, .vanished_items]' ../out.json && tail -n 1 ../err.txt" \
	"4 unverified suspicious\n[[\"Item 1 of the plan\",\"Item 2 of the plan\",\"Item 3 of the plan\"],[]]\nrtk loop: the checklist reads as done, but not by work: 3 items ticked by rounds that changed no code: \"Item 1 of the plan\", \"Item 2 of the plan\", \"Item 3 of the plan\"; 0 items open at the start gone from the checklist\n"
testing "open items deleted: exit 4 unverified, naming what vanished" \
	"project simple && lp 'dropopen tick code' && summary && jq -c '[.unbacked_ticks, .vanished_items]' ../out.json" \
	"4 unverified progress\n[[],[\"Item 2 of the plan\",\"Item 3 of the plan\"]]\n"
testing "a ticked ## Checklist put above the real one: exit 4, every real item vanished" \
	"project simple && lp 'prepend code' && summary && jq -c '[(.vanished_items | length), .checklist.items[0].text]' ../out.json" \
	"4 unverified progress\n[3,\"Everything is done\"]\n"
testing "open items fenced away: exit 4, naming them" \
	"project simple && lp 'fence tick code' && summary && jq -c .vanished_items ../out.json" \
	"4 unverified progress\n[\"Item 2 of the plan\",\"Item 3 of the plan\"]\n"
testing "a HEAD reset to an older commit backs no tick, and the round says so" \
	"project simple && lp 'tick code commit' --max-rounds 1 >/dev/null; lp 'rewind tick' --no-progress-limit 1 && summary && jq -c '.rounds[0] | [.head_moved, .files_changed > 0]' ../out.json && grep -c 'no longer descends from' ../err.txt" \
	"4 no_progress suspicious\n[true,true]\n1\n"
testing "rtk's own .rtk/ is never a change, even when the agent deletes its .gitignore" \
	"project simple && lp 'unignore tick' --no-progress-limit 1 && summary && jq -c '.rounds[0].files_changed' ../out.json" \
	"4 no_progress suspicious\n0\n"
scratch
(cd "$SCRATCH" && project simple && lp tickall)
conforms "an unverified run's JSON conforms" "$SCRATCH/out.json" loop

# --- an agent confined to the project gains nothing outside it through rtk (issue 27) ----------------------
# (the agent's escaped process is reaped by rtk before it exits: its pid is gone at once, no wait)
testing "a process the agent started in a session of its own is ended with the round" \
	"project simple && lp 'escape tick code' --max-rounds 1; p=\$(cat ../state/escaped); if kill -0 \$p 2>/dev/null; then kill \$p; echo alive; else echo gone; fi" \
	"gone\n"
scratch
(cd "$SCRATCH" && project simple &&
	{ "$RTK" loop --agent "bash $FIX/loop-agent.sh escape slow" --json > ../out.json 2> ../err.txt & pid=$!; } &&
	eventually test -s ../state/grandchild && kill -TERM $pid; wait $pid; echo $? > ../rc)
check "SIGTERM to rtk ends what the agent started in a session of its own" bash -c "p=\$(cat '$SCRATCH/state/escaped'); ! kill -0 \$p 2>/dev/null || { kill \$p; false; }"
testing "the run's log folder linked outside by the agent: no log is made there, exit 1 saying why" \
	"project simple && lp 'linkrun tick code'; cat ../rc; ls -A ../state/outside | wc -l; grep -o 'round-2.log: .rtk/loop/[^ ]* is a symbolic link, and rtk follows no link inside .$' ../err.txt | sed 's|loop/[^/ ]*|loop/RUN|'" \
	"1\n0\nround-2.log: .rtk/loop/RUN is a symbolic link, and rtk follows no link inside .\n"

# --- an agent that does nothing ------------------------------------------------------------------------
testing "does nothing: exit 4 after 3 rounds" "project simple && lp say && summary" "4 no_progress no_progress,no_progress,no_progress\n"
testing "--no-progress-limit 1 stops at once" "project simple && lp say --no-progress-limit 1 && summary" "4 no_progress no_progress\n"
testing "a non-zero agent exit is logged and the loop goes on" \
	"project simple && lp 'tick code commit exit3' && summary && jq -c '[.rounds[].exit_code]' ../out.json" \
	"0 done progress,progress,progress\n[3,3,3]\n"

# --- the plan vanishes: fatal, exit 1 ----------------------------------------------------------------
scratch
(cd "$SCRATCH" && project simple && lp "delete")
check "a deleted plan is fatal after its round (exit 1)" test "$(cd "$SCRATCH/p" && summary)" = "1 plan_missing no_progress"
check "it says which plan vanished" grep -q '^rtk loop: the plan vanished or became unreadable after round 1: docs/plans/plan.md' "$SCRATCH/err.txt"
conforms "a vanished plan's JSON conforms" "$SCRATCH/out.json" loop

# --- rate limits: stderr and the final event, never stdout's quotes --------------------------------------------
scratch
(cd "$SCRATCH" && project one && lp "limit-once tick code commit" --no-progress-limit 1)
check "a rate limit on stderr waits and does not count as no progress" test "$(cd "$SCRATCH/p" && summary)" = "0 done rate_limited,progress"
check "the wait is the minute it asked for, plus jitter" jq -e '.rounds[0].rate_limit | .source == "stderr" and .kind == "resume_at" and .wait_seconds >= 60 and .wait_seconds <= 66 and .resume_at == "2023-11-14T22:14:20Z"' "$SCRATCH/out.json"
check "the wait is announced" grep -q '^rtk loop: round 1: rate limited (hit_limit): waiting [0-9]* s$' "$SCRATCH/err.txt"
check "the rate-limited round's exit code is kept" test "$(jq '.rounds[0].exit_code' "$SCRATCH/out.json")" = 1
conforms "a rate-limited run's JSON conforms" "$SCRATCH/out.json" loop
# The waits on a meter (issue 16; forced onto the pipe with --progress): the agent's time, then the
# rate limit's; the rate-limited round's agent exited 1, so its line is left without ", done.".
testing "--progress: each round's wait and the rate limit's on a meter, ', done.' only for what succeeded" \
	"project one && export RTK_PROGRESS_DELAY_MS=0 && lp 'limit-once tick code commit' --no-progress-limit 1 --progress && summary
	 tr '\\r' '\\n' <../err.txt | grep -v '^\$' | sed 's/  *\$//; s/waiting [0-9]* s\$/waiting N s/' | uniq" \
	"0 done rate_limited,progress\nround 1: waiting for agent: 0s\nrtk loop: round 1: rate limited (hit_limit): waiting N s\nwaiting for the rate limit: 0s\nwaiting for the rate limit: 0s, done.\nround 2: waiting for agent: 0s\nround 2: waiting for agent: 0s, done.\n"
testing "a rate limit with no time waits the rules' default hour (scaled down further here)" \
	"project one && RTK_TEST_WAIT_SCALE=0.0001 lp 'limit-unknown-once tick code commit' --no-progress-limit 1 && summary && jq -c '.rounds[0].rate_limit | [.kind, .resume_at, .wait_seconds >= 3600 and .wait_seconds < 3630]' ../out.json" \
	"0 done rate_limited,progress\n[\"resume_unknown\",\"2023-11-14T23:13:20Z\",true]\n"
testing "a rate-limit phrase on stdout (a file the agent read) is not a rate limit" \
	"project simple && lp quote --no-progress-limit 2 && summary && jq -c '[.rounds[].rate_limit, .totals.rate_limit_waits]' ../out.json" \
	"4 no_progress no_progress,no_progress\n[null,null,0]\n"
testing "a final event that succeeded and quotes 'rate limit' is no rate limit; its tokens and duration are kept" \
	"project one && lp 'tick code commit event' && summary && jq -c '.rounds[0] | [.rate_limit, .tokens_used, .agent_duration_ms]' ../out.json" \
	"0 done progress\n[null,1234,4200]\n"
testing "a final event that is an error with a rate limit is one" \
	"project one && printf '%s\n' '{\"type\":\"result\",\"is_error\":true,\"result\":\"Claude AI usage limit reached|1700000030\"}' > ../event.json && printf '#!/bin/sh\ncat >/dev/null\necho working\ncat ../event.json\n' > ../agent && $RTK loop --agent 'sh ../agent' --max-rounds 1 --json > ../out.json 2>/dev/null; echo \$?; jq -c '.rounds[0] | [.verdict, .rate_limit.source, .rate_limit.resume_at]' ../out.json" \
	"5\n[\"rate_limited\",\"final_event\",\"2023-11-14T22:13:50Z\"]\n"
testing "a final event's rate limit quoting a key, JSON-escaped: its excerpt is redacted" \
	"project one && printf '%s\n' '{\"type\":\"result\",\"is_error\":true,\"result\":\"usage limit reached for \\u0073k-abcdefghijklmnop1234|1700000030\"}' > ../event.json && printf '#!/bin/sh\ncat >/dev/null\ncat ../event.json\n' > ../agent && $RTK loop --agent 'sh ../agent' --max-rounds 1 --json > ../out.json 2>/dev/null; jq -r '.rounds[0].rate_limit.excerpt' ../out.json; grep -rc 'abcdefghijklmnop1234' ../out.json" \
	"result: usage limit reached for [REDACTED:openai_key]|1700000030\n0\n"

# --- a key across proc's 64 KiB cut of a long line ---------------------------------------------------------
# The key starts just before the last 512 bytes of the first piece, which wait for the next one.
scratch
printf '%s\n' '#!/bin/sh' 'cat >/dev/null' \
	"head -c 65013 /dev/zero | tr '\\0' x; printf ,sk-proj-ABCDEFGH; printf 'IJKLMNOPQRSTUVWX,'; head -c 9000 /dev/zero | tr '\\0' y; echo" > "$SCRATCH/agent"
(cd "$SCRATCH" && project one && "$RTK" loop --agent 'sh ../agent' --max-rounds 1 --json > ../out.json 2> ../err.txt)
check "a key across the 64 KiB cut of a long line is redacted in the round log" \
	grep -q 'x,\[REDACTED:openai_key\],y' "$SCRATCH/p/$(jq -r '.rounds[0].log' "$SCRATCH/out.json")"
check "... and no piece of it reaches any file rtk wrote" bash -c "! grep -rq 'ABCDEF\|MNOPQR' '$SCRATCH/p' '$SCRATCH/out.json' '$SCRATCH/err.txt'"

# --- plans with fences, dates and links ---------------------------------------------------------------------
scratch
(cd "$SCRATCH" && project fenced && lp "tick code commit")
check "only the real items count: 2 rounds for 2 open items" test "$(cd "$SCRATCH/p" && summary)" = "0 done progress,progress"
check "the items worked on are the real ones" test "$(jq -c '[.rounds[].item]' "$SCRATCH/out.json")" = '["Add the login form","Write the login test"]'
check "the final checklist has the 3 real items" test "$(jq -c '[.checklist.items[] | [.line, .state]]' "$SCRATCH/out.json")" = '[[7,"done"],[17,"done"],[21,"done"]]'
check "the boxes in fences are untouched" test "$(grep -c '^- \[ \] an example inside a fence$' "$SCRATCH/p/docs/plans/plan.md")" = 1

# --- plans that cannot run: exit 2, saying what is missing ------------------------------------------------
testing "no ## Checklist" "project nolist && $RTK loop --agent true 2>&1; echo \$?" \
	"rtk loop: docs/plans/plan.md: no \"## Checklist\" section: the plan needs that heading with items under it such as \"- [ ] first step\"\n2\n"
testing "no open item" "project done && $RTK loop --agent true 2>&1; echo \$?" \
	"rtk loop: docs/plans/plan.md: no open item (\"- [ ] ...\") under ## Checklist: 1 done, 1 skipped, nothing to do\n2\n"
testing "no --plan and no docs/plans/.active" "project simple && rm docs/plans/.active && $RTK loop --agent true 2>&1; echo \$?" \
	"rtk loop: no plan: give --plan FILE, or name the plan in docs/plans/.active (docs/plans/.active: No such file or directory)\n2\n"
testing "--plan names another plan" "project simple && cp docs/plans/plan.md other.md && rm docs/plans/.active && lp 'tick code commit' --plan other.md && summary" \
	"0 done progress,progress,progress\n"
testing "no agent" "project simple && $RTK loop 2>&1; echo \$?" "rtk loop: no agent: give --agent 'COMMAND' or set RTK_AGENT\n2\n"
testing "RTK_AGENT is the default agent" "project one && RTK_AGENT='bash $FIX/loop-agent.sh tick code commit' $RTK loop --json | jq -r '.stop_reason, .parameters.agent'" \
	"done\nbash $FIX/loop-agent.sh tick code commit\n"
testing "loop.agent of the user config is the default after RTK_AGENT" \
	"project one && mkdir -p ../cfg/rtk && printf 'loop:\n  agent: bash $FIX/loop-agent.sh tick code commit\n' > ../cfg/rtk/config.yaml && XDG_CONFIG_HOME=\$PWD/../cfg $RTK loop --json | jq -r '.stop_reason, .parameters.agent'" \
	"done\nbash $FIX/loop-agent.sh tick code commit\n"
testing "not a git repository" "mkdir -p docs/plans && printf '## Checklist\n- [ ] a\n' > docs/plans/p.md && GIT_CEILING_DIRECTORIES=\$(dirname \$PWD) $RTK loop --plan docs/plans/p.md --agent true 2>&1; echo \$?" \
	"rtk loop: not a git repository: .\n2\n"
testing "a bad --round-timeout" "$RTK loop --agent true --round-timeout soon 2>&1; echo \$?" \
	"rtk loop: --round-timeout: invalid duration \"soon\": expected a number and a unit, like 90d, 12h, 1w2d or P1DT2H; units: s, min, h, d, w, mo (30 days), y (365 days)\n2\n"
testing "--round-timeout 30m is refused as ambiguous" "$RTK loop --agent true --round-timeout 30m 2>&1; echo \$?" \
	"rtk loop: --round-timeout: invalid duration \"30m\": 'm' is ambiguous: write min for minutes or mo for months; units: s, min, h, d, w, mo (30 days), y (365 days)\n2\n"

# --- a dirty tree is stashed, named, and can be restored --------------------------------------------------
scratch
(cd "$SCRATCH" && project one && echo 'dirty' >> README.md && echo new > untracked.txt &&
	lp "tick code commit")
run_id=$(jq -r .run_id "$SCRATCH/out.json")
stash=$(jq -r '.rounds[0].stash.commit' "$SCRATCH/out.json")
check "a dirty tree: the round still makes progress" test "$(cd "$SCRATCH/p" && summary)" = "0 done progress"
check "the stash is named after the round and the run" test "$(git -C "$SCRATCH/p" stash list --format=%s)" = "On main: rtk loop round 1 $run_id"
check "the stash holds the untracked file" git -C "$SCRATCH/p" cat-file -e "$stash^3:untracked.txt"
check "the restore command is printed" grep -q "^rtk loop: round 1: stashed 2 uncommitted changes as $stash; restore with: git stash apply $stash$" "$SCRATCH/err.txt"
check "the result records the stash" test "$(jq -c '[.rounds[0].stash.message, .rounds[0].stash.restore, .totals.stashes]' "$SCRATCH/out.json")" = "[\"rtk loop round 1 $run_id\",\"git stash apply $stash\",1]"
check "the restore command restores it" bash -c "cd '$SCRATCH/p' && git stash apply -q $stash && grep -q dirty README.md && test -f untracked.txt"
conforms "a stashing run's JSON conforms" "$SCRATCH/out.json" loop
testing "an uncommitted plan is not stashed away" \
	"project five && sed -i 's/- \[ \] Item 1/- [x] Item 1/' docs/plans/plan.md && lp 'tick code commit' --max-rounds 1 && summary && git stash list | wc -l && jq -c '.rounds[0].item' ../out.json" \
	"5 max_rounds progress\n0\n\"Item 2 of the plan\"\n"

# --- files an agent can plant (issue 27, item 16): never waited on -------------------------------------------
testing "a FIFO as the plan is refused, not waited on" \
	"project simple && rm docs/plans/plan.md && mkfifo docs/plans/plan.md && timeout $HANG_GUARD $RTK loop --agent true --plan docs/plans/plan.md 2>&1; echo \$?" \
	"rtk loop: docs/plans/plan.md: not a regular file (a FIFO)\n2\n"
testing "a FIFO as docs/plans/.active is refused, not waited on" \
	"project simple && rm -f docs/plans/.active && mkfifo docs/plans/.active && timeout $HANG_GUARD $RTK loop --agent true 2>&1; echo \$?" \
	"rtk loop: no plan: give --plan FILE, or name the plan in docs/plans/.active (docs/plans/.active: not a regular file (a FIFO))\n2\n"
testing "a plan the agent swaps for a FIFO ends the loop, not waited on" \
	"project simple && timeout $HANG_GUARD $RTK loop --agent 'bash $FIX/loop-agent.sh fifo-plan' --max-rounds 2 --json > ../out.json 2>/dev/null; echo \$? > ../rc; summary" \
	"1 plan_missing no_progress\n"

testing "200,000 short lines from the agent: the round log holds every one in order (issue 27, item 21)" \
	"project simple && lp 'many tick code commit' --max-rounds 1; summary; cmp \$(jq -r '.rounds[0].log' ../out.json) <(seq 200000) && echo same" \
	"5 max_rounds progress\nsame\n"

# --- plans of many items (issue 27, item 21): memory in proportion to the plan, time in proportion to the items ---
# big_plan DIR N: a repository DIR whose plan.md has N open items, as an agent may write one.
big_plan() {
	git init -q -b main "$1" && { printf '# plan\n\n## Checklist\n\n'; seq "$2" | sed 's/.*/- [ ] item number & of the plan/'; } > "$1/plan.md" &&
		git -C "$1" add plan.md && git -C "$1" commit -qm plan
}
# round_usage DIR AGENT RUNS: one round of rtk loop in DIR RUNS times, each on the plan as committed; prints the
# peak RSS (KiB) over the runs (and the least CPU time of one run, which no check reads: bench/ measures time). Under ASan, freed memory
# is given back at once rather than kept in quarantine, so the peak is rtk's own (with ASan's shadow).
round_usage() {
	python3 - "$@" <<'PY'
import os, resource, subprocess, sys
folder, agent, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
env = dict(os.environ, ASAN_OPTIONS=":".join(filter(None, [os.environ.get("ASAN_OPTIONS"), "quarantine_size_mb=0"])))
def cpu():
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime
best = None
for _ in range(runs):
    subprocess.run(["git", "checkout", "-q", "plan.md"], cwd=folder, check=True)
    subprocess.run(["git", "clean", "-qfdx"], cwd=folder, check=True)
    t0 = cpu()
    subprocess.run([os.environ["RTK"], "loop", "--agent", agent, "--plan", "plan.md",
                    "--max-rounds", "1", "--json"], cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t = cpu() - t0
    best = t if best is None or t < best else best
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "%.3f" % best)
PY
}
scratch
(cd "$SCRATCH" && big_plan one 1 && big_plan many 200000 && round_usage one true 1 > one.usage && round_usage many true 1 > many.usage)
read -r one_kib _ < "$SCRATCH/one.usage"
read -r many_kib _ < "$SCRATCH/many.usage"
plan_kib=$(($(stat -c %s "$SCRATCH/many/plan.md") / 1024))
# The plan is 7 MB. With every item as four cJSON nodes in the result a round took 12 times that more,
# without them still 10 times (the checklist read once more than needed, every text copied for the
# diff); now under 3 times (4 under ASan, whose shadow and redzones add their share).
check "a round on a plan of 200,000 items needs less than 6 times the plan's size more than on one item ($((many_kib - one_kib)) KiB for a $plan_kib KiB plan)" \
	test $((many_kib - one_kib)) -lt $((6 * plan_kib))
scratch
# Each unbacked tick was looked up by a scan of those before it (quadratic: 100,000 items took 10 s of CPU; now
# a map, 0.1 s). How long is bench/hostile.sh's to measure, not a test's (no test asserts time); this one holds
# that every tick of a large plan is still found.
(cd "$SCRATCH" && big_plan big 80000)
check "an agent ticking all of 80,000 items without a change: every tick is listed as unbacked" test "$(cd "$SCRATCH/big" && git checkout -q plan.md && git clean -qfdx && "$RTK" loop --agent "sed -i 's/^- \\[ \\]/- [x]/' plan.md" --plan plan.md --max-rounds 1 --json 2>/dev/null | jq -c '[.stop_reason, (.unbacked_ticks | length), .unbacked_ticks[79999], (.checklist.items | length)]')" = '["unverified",80000,"item number 80000 of the plan",80000]'

testing "a checklist item's HTML, link and escape sequences (OSC 52, clear screen) reach the markdown escaped and shown, never raw (issue 27, item 18)" \
	"project simple && printf '# p\\n\\n## Checklist\\n\\n- [ ] fix <img src=x onerror=y> \\033]52;c;ZXZpbA==\\007\\033[2J and [a](http://e)\\n' > evil.md && git add evil.md && git commit -qm evil && $RTK loop --agent true --plan evil.md --max-rounds 1 > ../md.txt 2>/dev/null; grep -c \$'\\033' ../md.txt; grep -c '\\\\<img' ../md.txt; grep -F -- '- [ ] fix \\<img src=x onerror=y\\> ^[\\]52;c;ZXZpbA==^G^[\\[2J and \\[a\\](http://e)' ../md.txt" \
	"0\n2\n- [ ] fix \\\\<img src=x onerror=y\\\\> ^[\\\\]52;c;ZXZpbA==^G^[\\\\[2J and \\\\[a\\\\](http://e)\n"

# The plan is never stashed (issue 27, item 14): not a new one in a new folder, not an edited one.
testing "a new, uncommitted plan in a new folder stays out of the stash and in place" \
	"project simple && mkdir newdir && cp docs/plans/plan.md newdir/plan.md && echo dirty >> README.md && lp 'tick code' --plan newdir/plan.md --max-rounds 1; summary; git ls-tree -r --name-only 'stash@{0}^3' 2>/dev/null; git diff --name-only 'stash@{0}^1' 'stash@{0}'; grep -c '^- \[x\]' newdir/plan.md; ls .rtk/loop/*/" \
	"5 max_rounds progress\nREADME.md\n1\nround-1.log\n"
testing "an edited plan stays out of the stash, so the stash applies cleanly after the agent's ticks" \
	"project simple && sed -i 's/- \[ \] Item 1/- [x] Item 1/' docs/plans/plan.md && echo dirty >> README.md && lp 'tick code' --max-rounds 1; summary; git diff --name-only 'stash@{0}^1' 'stash@{0}'; grep -c '^- \[x\]' docs/plans/plan.md; git stash apply -q && git diff --name-only | sort | tr '\n' ' '; echo" \
	"5 max_rounds progress\nREADME.md\n2\nREADME.md docs/plans/plan.md src/app.c \n"

# --- SKIP items --------------------------------------------------------------------------------------------
testing "skipped items are progress and end the loop" \
	"project simple && lp skip && summary && jq -c '[.totals.skipped, .checklist.skipped, .rounds[0].skipped[0]]' ../out.json" \
	"0 done progress,progress,progress\n[3,3,\"Item 1 of the plan: gave up after 3 attempts\"]\n"

# --- the round timeout kills the agent and its children ----------------------------------------------------------
scratch
(cd "$SCRATCH" && project simple && lp slow --round-timeout 1s --no-progress-limit 1; ls ../state > ../state-at-exit)
check "a round past --round-timeout is no progress" test "$(cd "$SCRATCH/p" && summary)" = "4 no_progress timed_out"
check "the round says it timed out and was killed" test "$(jq -c '.rounds[0] | [.timed_out, .exit_code]' "$SCRATCH/out.json")" = "[true,null]"
# Events, not the clock: the grandchild that ignores TERM writes grandchild-finished only if it lives out its 120 s.
check "the timeout does not wait for the agent's child to finish" bash -c "! grep -qx grandchild-finished '$SCRATCH/state-at-exit'"
check "a grandchild that ignores TERM is killed too" bash -c "eventually gone \$(cat '$SCRATCH/state/grandchild') && test ! -e '$SCRATCH/state/grandchild-finished'"
conforms "a timed-out run's JSON conforms" "$SCRATCH/out.json" loop

# --- the environment scrub ---------------------------------------------------------------------------------
scratch
(cd "$SCRATCH" && project one && CLAUDECODE=1 CLAUDE_CODE_ENTRYPOINT=cli CODEX_SANDBOX=seatbelt GEMINI_CLI=1 KEEP_ME=yes lp "env tick code commit")
check "CLAUDECODE and the like are removed from the agent's environment" bash -c "! grep -qE '^(CLAUDECODE|CLAUDE_CODE_ENTRYPOINT|CODEX_SANDBOX|GEMINI_CLI)=' '$SCRATCH/state/env'"
check "the rest of the environment is kept" grep -qx 'KEEP_ME=yes' "$SCRATCH/state/env"

# --- the agent's client, read through its profile (tests/fixtures/canned-client.sh prints what the real one does) --
# client NAME: ../bin/NAME is the fake client, its canned output in ../fake (FAKE_CLIENT_DIR).
client() {
	mkdir -p ../bin ../fake && ln -sf "$FIX/canned-client.sh" "../bin/$1" && export FAKE_CLIENT_DIR=$PWD/../fake
}
# tickwork: the work a round does (tick the first open item, change a file), for ../fake/work.
tickwork() {
	printf '%s\n' "sed -i '0,/- \[ \]/s//- [x]/' docs/plans/plan.md; echo x >> src/app.c" > "../fake/${1:-work}"
}
export -f client tickwork
CLAUDE_429='API Error: Request rejected (429) · This request would exceed the rate limit for your organization of 50 requests per minute. Please try again later.'
export CLAUDE_429
testing "Claude Code's text-mode 429 is on stdout: a rate limit, waited for, not counted; then the work goes on" \
	"project one && client claude && printf '%s\n' \"\$CLAUDE_429\" > ../fake/out.1 && echo 1 > ../fake/rc.1 && tickwork work.2 && RTK_TEST_WAIT_SCALE=0.0001 \$RTK loop --agent '../bin/claude -p --dangerously-skip-permissions' --no-progress-limit 1 --json > ../out.json 2> ../err.txt; echo \$?; jq -c '[.agent_profile.name, .agent_profile.chosen_by, [.rounds[].verdict], .rounds[0].trouble.kind, .rounds[0].trouble.source, .rounds[0].trouble.status, .rounds[0].rate_limit.kind, .totals.rate_limit_waits]' ../out.json" \
	"0\n[\"claude\",\"program\",[\"rate_limited\",\"progress\"],\"rate_limit\",\"stdout\",429,\"resume_unknown\",1]\n"
testing "Claude Code's 401 (JSON mode) stops at once with one line, exit 1, never retried" \
	"project one && client claude && printf '%s\n' '{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":true,\"api_error_status\":401,\"result\":\"Invalid API key · Fix external API key\",\"session_id\":\"1fc91bdd\",\"usage\":{\"input_tokens\":0,\"output_tokens\":0}}' > ../fake/out && echo 1 > ../fake/rc && \$RTK loop --agent '../bin/claude -p --output-format json' --json > ../out.json 2> ../err.txt; echo \$?; cat ../err.txt; jq -c '[.stop_reason, [.rounds[].verdict], .rounds[0].trouble.kind]' ../out.json; cat ../fake/calls" \
	"1\nrtk loop: round 1: the agent cannot work, not retried: claude: HTTP 401: Invalid API key · Fix external API key\n[\"fatal\",[\"fatal_error\"],\"fatal\"]\n1\n"
testing "Codex's transcript on stderr talks about rate limits: no false rate limit, the round is progress" \
	"project one && client codex && printf '%s\n' 'OpenAI Codex v0.171.0' 'user' 'Add rate limiting to the login endpoint: on HTTP 429 (rate limit exceeded) try again in 5 minutes.' 'exec' 'Error: rate limit exceeded (HTTP 429 Too Many Requests), try again in 5 minutes' 'tokens used' '900' > ../fake/err && echo 'Added rate limiting.' > ../fake/out && tickwork && \$RTK loop --agent '../bin/codex exec -' --json > ../out.json 2> ../err.txt; echo \$?; jq -c '[[.rounds[].verdict], .rounds[0].trouble, .rounds[0].rate_limit, .totals.rate_limit_waits]' ../out.json" \
	"0\n[[\"progress\"],null,null,0]\n"
testing "Codex's own ERROR: line on a failure is its rate limit (exit 1), read with its time" \
	"project one && client codex && printf '%s\n' 'user' 'Add rate limiting' 'ERROR: rate limit exceeded: Rate limit reached for gpt-5.5. Please try again in 2s.' > ../fake/err.1 && echo 1 > ../fake/rc.1 && tickwork work.2 && RTK_TEST_WAIT_SCALE=0.01 \$RTK loop --agent '../bin/codex exec -' --json > ../out.json 2> ../err.txt; echo \$?; jq -c '[[.rounds[].verdict], .rounds[0].rate_limit.source, .rounds[0].rate_limit.kind, .rounds[0].rate_limit.wait_seconds >= 2]' ../out.json" \
	"0\n[[\"rate_limited\",\"progress\"],\"stderr\",\"resume_at\",true]\n"
testing "transient trouble (529) backs off, is not counted, and stops with exit 5 past the profile's retries" \
	"project one && client codex && sed 's/^  backoff: .*/  backoff: {first_seconds: 1, max_seconds: 2, max_retries: 2}/' \$RTK_SRCDIR/data/agents/codex.yaml > ../fast.yaml && printf '%s\n' '{\"type\":\"thread.started\",\"thread_id\":\"t1\"}' '{\"type\":\"turn.failed\",\"error\":{\"message\":\"unexpected status 529 <unknown status code>: The server is overloaded, please try again later\"}}' > ../fake/out && echo 1 > ../fake/rc && RTK_TEST_WAIT_SCALE=0.01 \$RTK loop --agent '../bin/codex exec --json -' --agent-profile ../fast.yaml --no-progress-limit 1 --json > ../out.json 2> ../err.txt; echo \$?; jq -c '[.stop_reason, [.rounds[].verdict], [.rounds[].trouble.status], .totals.backoffs, .agent_profile.chosen_by]' ../out.json; grep -c 'backing off' ../err.txt" \
	"5\n[\"transient_limit\",[\"transient_error\",\"transient_error\",\"transient_error\"],[529,529,529],2,\"option\"]\n2\n"
testing "a program that is not there is fatal: exit 1 after one round" \
	"project one && \$RTK loop --agent 'no-such-agent-cli -p' --json > ../out.json 2> ../err.txt; echo \$?; jq -c '[.stop_reason, .rounds[0].trouble.kind, .rounds[0].trouble.source, .rounds[0].exit_code]' ../out.json" \
	"1\n[\"fatal\",\"fatal\",\"exit_code\",127]\n"
testing "tokens_used counts the cache: Gemini's own total, its parts apart, and the run's totals" \
	"project one && client gemini && printf '%s\n' '{' '  \"session_id\": \"2d37c58d\",' '  \"response\": \"Done.\",' '  \"stats\": {\"models\": {\"gemini-3.8-flash\": {\"tokens\": {\"prompt\": 15360, \"candidates\": 90, \"total\": 15480, \"cached\": 15000, \"thoughts\": 30}}}}' '}' > ../fake/out && tickwork && \$RTK loop --agent '../bin/gemini --yolo --skip-trust --output-format json' --json > ../out.json 2> ../err.txt; echo \$?; jq -c '[.rounds[0].tokens_used, .rounds[0].tokens, .totals.tokens_used]' ../out.json" \
	"0\n[15480,{\"input\":360,\"output\":120,\"cache_read\":15000,\"cache_write\":null},15480]\n"
testing "--agent-profile names an unknown profile: a usage error listing the known ones" \
	"project one && \$RTK loop --agent 'claude -p' --agent-profile claud > /dev/null; echo \$?" \
	"2\n"
scratch
(cd "$SCRATCH" && project one && client claude && printf '%s\n' "$CLAUDE_429" > ../fake/out.1 && echo 1 > ../fake/rc.1 && tickwork work.2 &&
	RTK_TEST_WAIT_SCALE=0.0001 "$RTK" loop --agent '../bin/claude -p' --json > ../out.json 2> ../err.txt)
conforms "a run with the agent's trouble conforms" "$SCRATCH/out.json" loop

# --- limits and signals ----------------------------------------------------------------------------------------
testing "--max-rounds stops with exit 5" "project five && lp 'tick code commit' --max-rounds 2 && summary && jq .checklist.open ../out.json" \
	"5 max_rounds progress,progress\n3\n"
for sig in TERM:143 INT:130; do
	scratch
	(cd "$SCRATCH" && project simple &&
		{ "$RTK" loop --agent "bash $FIX/loop-agent.sh slow" --json > ../out.json 2> ../err.txt & pid=$!; } &&
		eventually test -s ../state/grandchild &&
		kill -"${sig%:*}" $pid; wait $pid; echo $? > ../rc)
	check "SIG${sig%:*} stops the loop with ${sig#*:}" test "$(cd "$SCRATCH/p" && summary)" = "${sig#*:} interrupted interrupted"
	check "SIG${sig%:*} stops the agent's group" bash -c "eventually gone \$(cat '$SCRATCH/state/grandchild') && test ! -e '$SCRATCH/state/grandchild-finished'"
	conforms "an interrupted run's JSON conforms (SIG${sig%:*})" "$SCRATCH/out.json" loop
done

# --- --continue-session: one conversation for the run (tests/fixtures/fake-client.sh linked as claude) -------
# clp AGENT [OPTIONS...]: rtk loop in $SCRATCH/p with the fake client doing "say tick code commit" ($SCRATCH/inner.sh
# when it exists); its runs in $SCRATCH/fake/clients, "N CLIENT ROLE SESSION HOW ARGS...".
clp() {
	local agent=$1
	shift
	mkdir -p "$SCRATCH/bin" && ln -sf "$FIX/fake-client.sh" "$SCRATCH/bin/claude"
	[ -e "$SCRATCH/inner.sh" ] || printf '#!/bin/sh\nexec bash "%s/loop-agent.sh" say tick code commit\n' "$FIX" > "$SCRATCH/inner.sh"
	(cd "$SCRATCH" && project simple && FAKE_DIR=$SCRATCH/fake FAKE_INNER="sh $SCRATCH/inner.sh" \
		"$RTK" loop --agent "$agent" --json "$@" > ../out.json 2> ../err.txt; echo $? > ../rc)
}
hows() { awk '{ printf "%s%s", (NR > 1 ? " " : ""), $5 }' "$SCRATCH/fake/clients"; }
scratch
clp "$SCRATCH/bin/claude -p --output-format json" --continue-session
sid=$(awk 'NR == 1 { print $4 }' "$SCRATCH/fake/clients")
check "--continue-session: done in 3 rounds" test "$(cd "$SCRATCH/p" && summary)" = "0 done progress,progress,progress"
check "--continue-session: one new session, then resumed each round" test "$(hows)" = "new resumed resumed"
check "... with --resume and the id the first round reported" grep -q " resumed -p --output-format json --resume $sid\$" "$SCRATCH/fake/clients"
check "... so the third round's conversation holds the first round's prompt" \
	test "$(grep -c '^--- prompt' "$SCRATCH/fake/sessions/$sid.txt")" = 3
check "the rounds say so" test "$(jq -c '[.rounds[] | [.session_id == "'"$sid"'", .resumed]]' "$SCRATCH/out.json")" = '[[true,false],[true,true],[true,true]]'
check "the parameters say so" test "$(jq -c .parameters.continue_session "$SCRATCH/out.json")" = true
conforms "a --continue-session run's JSON conforms" "$SCRATCH/out.json" loop
scratch
clp "$SCRATCH/bin/claude -p --output-format json"
check "without it, a fresh session every round (the loop's point)" test "$(hows) $(awk '{ print $4 }' "$SCRATCH/fake/clients" | sort -u | wc -l)" = "new new new 3"
check "... never given --resume" bash -c "! grep -q -- --resume '$SCRATCH/fake/clients'"
check "... and the rounds say so" test "$(jq -c '[.rounds[].resumed]' "$SCRATCH/out.json") $(jq -c .parameters.continue_session "$SCRATCH/out.json")" = "[false,false,false] false"
scratch
printf '#!/bin/sh\n[ -e "$FAKE_DIR/forgot" ] || { touch "$FAKE_DIR/forgot" "$FAKE_DIR/forget"; }\nexec bash "%s/loop-agent.sh" say tick code commit\n' "$FIX" > "$SCRATCH/inner.sh"
clp "$SCRATCH/bin/claude -p --output-format json" --continue-session
check "a session the client lost: refused, the round runs again in a new one, which the next resumes" test "$(hows)" = "new refused new resumed"
check "... no round is lost to it" test "$(cd "$SCRATCH/p" && summary)" = "0 done progress,progress,progress"
check "... and it is named" grep -q "^rtk loop: round 2: resuming session .* failed (the agent exited 1 naming no session): the round starts a new conversation$" "$SCRATCH/err.txt"
scratch
printf '#!/bin/sh\n[ -e "$FAKE_DIR/forgot" ] || { touch "$FAKE_DIR/forgot" "$FAKE_DIR/forget"; }\nexec bash "%s/loop-agent.sh" say tick code commit\n' "$FIX" > "$SCRATCH/inner.sh"
mkdir -p "$SCRATCH/bin" && ln -sf "$FIX/fake-client.sh" "$SCRATCH/bin/gemini"
clp "$SCRATCH/bin/gemini --yolo --skip-trust --output-format json" --continue-session
check "Gemini CLI refuses a lost session with exit 42 (fatal in its profile): still a refused resume, the round runs again" \
	test "$(hows) $(cd "$SCRATCH/p" && summary)" = "new refused new resumed 0 done progress,progress,progress"
check "... and it is named" grep -q "^rtk loop: round 2: resuming session .* failed (the agent exited 42 naming no session): the round starts a new conversation$" "$SCRATCH/err.txt"
scratch
(cd "$SCRATCH" && project one && lp "tick code commit" --continue-session)
check "--continue-session with an agent rtk cannot resume: a note, and fresh rounds" \
	grep -q "^rtk loop: --continue-session: the agent is not a client rtk knows how to resume (the generic profile has no resume words): every round starts a new conversation$" "$SCRATCH/err.txt"

# --- --reflect-spool: one trace per round, consumed by rtk reflect --spool -----------------------------------------
SERVER_DIR=$(mktemp -d "${TMPDIR:-/tmp}/rtk-llm.XXXXXX")
python3 "$RTK_SRCDIR/tests/servers/llm_server.py" --port-file "$SERVER_DIR/port" --log "$SERVER_DIR/requests.jsonl" &
SERVER_PID=$!
trap 'kill $SERVER_PID 2>/dev/null; wait $SERVER_PID 2>/dev/null; rm -rf "$SCRATCH_ROOT" "$SERVER_DIR"' EXIT
server_port "$SERVER_DIR" $SERVER_PID >/dev/null
scratch
(cd "$SCRATCH" && project simple && lp "secret say tick code commit" --reflect-spool ../spool --max-rounds 2 &&
	cd .. && HOME=$SERVER_DIR RTK_LLM_BASE_URL=http://127.0.0.1:$(cat "$SERVER_DIR/port")/v1 RTK_LLM_API_KEY=sk-TESTKEYdoNotLeak0123456789 \
		"$RTK" reflect --json --spool spool --workspace ws > reflect.json; echo $? > reflect.rc)
run_id=$(jq -r .run_id "$SCRATCH/out.json")
check "a trace per round, named RUN_ID-rN.json" test "$(jq -r '.rounds[].trace' "$SCRATCH/out.json" | tr '\n' ' ')" = "../spool/$run_id-r1.json ../spool/$run_id-r2.json "
check "rtk reflect --spool consumed both traces" test "$(cat "$SCRATCH/reflect.rc") $(jq -c '[.results[].status]' "$SCRATCH/reflect.json") $(ls "$SCRATCH/spool/done" | tr '\n' ' ')" = "0 [\"reflected\",\"reflected\"] $run_id-r1.json $run_id-r2.json "
t1=$SCRATCH/spool/done/$run_id-r1.json
check "a trace conforms to trace.v1" "$RTK" validate --schema "$RTK_SRCDIR/schemas/trace.v1.schema.json" "$t1"
check "task_id, user_message and user_feedback" test "$(jq -c '[.task_id, .user_message, .user_feedback]' "$t1")" = "[\"$run_id-r1\",\"Item 1 of the plan\",\"progress: 1 ticked, 0 skipped, 1 commit\"]"
check "system_response is the agent's output, its secret redacted" test "$(jq -r .system_response "$t1")" = "$(printf 'using key [REDACTED:openai_key] for the API\nworking on Item 1 of the plan\ndone with Item 1 of the plan\n')"
check "no raw secret in the spool, the logs or the request" bash -c "! grep -rq 'sk-abcdefghijklmnop1234' '$SCRATCH/spool' '$SCRATCH/p/.rtk' '$SERVER_DIR/requests.jsonl'"
check "the request carried the trace" grep -q "$run_id-r2" "$SERVER_DIR/requests.jsonl"
conforms "a spooling run's JSON conforms" "$SCRATCH/out.json" loop
testing "system_response keeps the last 2,000 characters" \
	"project one && printf '#!/bin/sh\ncat >/dev/null\nfor i in \$(seq 500); do echo \"line \$i\"; done\n' > ../agent && $RTK loop --agent 'sh ../agent' --max-rounds 1 --reflect-spool ../spool >/dev/null 2>&1; jq -r '.system_response | length, (split(\"\n\") | .[-2])' ../spool/*.json" \
	"2000\nline 500\n"

finish
