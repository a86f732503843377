#!/usr/bin/env bash
# tests/agents/check.sh — `make check-agents`: rtk loop, iterate, capture and run-plan --replan driving the real
# Claude Code, Codex CLI and Gemini CLI (pinned in versions.txt) against the scripted model servers of
# tests/servers/, every case inside a network namespace that holds only loopback.
#
#   tests/agents/check.sh [-c CACHE_DIR] [-o OUT_DIR] [-l] [CLIENT[/CASE[/MODE]] ...]
#
# CACHE_DIR holds the clients (install.sh installs the pinned versions there first; default
# ~/.cache/rtk-agents/npm). OUT_DIR keeps each case's folder (project, HOME, server log, rtk's output,
# stderr) for a look afterwards (default ./check-agents.out, emptied first). RTK is the rtk to test
# (default ./rtk beside this tree's data/). -l lists the cases. Exit 0 when every case passed, 1 when one
# failed or the network namespace could not be made (it never runs with the network).
#
# Cases, per client (MODE is text or json: the client's plain or structured output):
#   plan/json       rtk loop completes a one-item plan: exit 0, done, one round of progress, and tokens_used
#                   equal to what the server reported (input + output + cache read + cache write)
#   429/MODE        HTTP 429 on every request: every round rate_limited, none counted against the breaker
#                   (--no-progress-limit 1 --max-rounds 2: exit 5, not 4)
#   529/MODE        HTTP 529 on every request: transient_error, backed off, not counted (exit 5, not 4)
#   401/MODE        HTTP 401: exit 1 after one round, one line, the client run once
#   words/MODE      the plan, the prompt and a command's output talk about rate limits and 429: no false rate
#                   limit, exit 0
#   noop/json       the model ticks the item without changing any code: exit 4 (unverified)
#   hook/json       (claude) rtk capture registered as the Stop hook in .claude/settings.json gets the real
#                   payload and writes its reflection.v1
#   replan/json     rtk run-plan --replan with the real client writing the next plan
#   accept/json     rtk iterate: Developer report, Acceptor ACCEPTED, ALL_FEATURES_COMPLETE, final ACCEPTED; the
#                   milestone's text talks about rate limits (no false rate limit)
#   reject/text     rtk iterate: the Acceptor's REJECTED reason reaches the Developer's next round, then accepted
#   resume/MODE     (claude json, codex text and json, gemini json) rtk loop --continue-session: the first
#                   round names its session, the second resumes it with the profile's words, and the server's
#                   second request carries the first prompt and answer under the same session id (Gemini CLI
#                   sends its API no session id: its session store holds both rounds in that one conversation)
#   kill9/json      (claude, codex, gemini) rtk iterate with persistent sessions killed with -9 while the
#                   resumed Developer waits on the model (the server holds its request); the Acceptor's
#                   conversation is then deleted from the client's store. The restart ends the orphaned client,
#                   resumes the Developer's conversation (the server sees round 1 in it under the same session
#                   id; Gemini: in its stored conversation), and when the client refuses the lost Acceptor
#                   session (exit 1, Gemini 42; no session named) gives the Acceptor a new one with the whole brief
# The clients' own retries are capped (clients.sh, RETRIES 0) so that error cases take seconds; waits of
# rtk are scaled down with RTK_TEST_WAIT_SCALE.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/clients.sh"
cache=${XDG_CACHE_HOME:-$HOME/.cache}/rtk-agents/npm
out=$PWD/check-agents.out
list=
while getopts c:o:l opt; do
	case $opt in
	c) cache=$OPTARG ;;
	o) out=$OPTARG ;;
	l) list=1 ;;
	*) echo "usage: $0 [-c CACHE_DIR] [-o OUT_DIR] [-l] [CLIENT[/CASE[/MODE]] ...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
selectors=("$@")

CLIENTS="claude codex gemini"
CASES="plan/json 429/text 429/json 529/text 529/json 401/text 401/json words/text words/json noop/json hook/json replan/json accept/json reject/text resume/text resume/json kill9/json"

# wanted CLIENT CASE/MODE: whether the case applies to the client and was asked for.
wanted() {
	case $2 in
	hook/*) [ "$1" = claude ] || return 1 ;;
	resume/text) [ "$1" = codex ] || return 1 ;; # Claude's and Gemini's text modes name no session; Codex's banner does
	esac
	[ ${#selectors[@]} -eq 0 ] && return 0
	local s
	for s in "${selectors[@]}"; do
		case "$1/$2" in "$s" | "$s"/*) return 0 ;; esac
	done
	return 1
}

if [ -n "$list" ]; then
	for c in $CLIENTS; do for k in $CASES; do wanted "$c" "$k" && echo "$c/$k"; done; done
	exit 0
fi

# --- into a network namespace with loopback only -------------------------------------------------------------
if [ -z "${RTK_AGENTS_NETNS:-}" ]; then
	"$here/install.sh" "$cache" >&2 || { echo "check-agents: the pinned clients could not be installed in $cache" >&2; exit 1; }
	if [ "$(id -u)" = 0 ]; then ns=(unshare -n); else ns=(unshare -rn); fi
	if ! "${ns[@]}" true 2>/dev/null; then
		echo "check-agents: cannot make a network namespace (${ns[*]} failed): the cases never run with the network" >&2
		exit 1
	fi
	rm -rf "$out" && mkdir -p "$out"
	out=$(cd "$out" && pwd) cache=$(cd "$cache" && pwd)
	exec "${ns[@]}" env RTK_AGENTS_NETNS=1 RTK="${RTK:-$top/rtk}" RTK_DATADIR="${RTK_DATADIR:-$top}" "$0" -c "$cache" -o "$out" "$@"
fi
ip link set lo up || { echo "check-agents: cannot bring up lo in the namespace" >&2; exit 1; }
links=$(ip -o link | awk -F': ' '{print $2}' | tr '\n' ' ')
[ "$links" = "lo " ] || { echo "check-agents: the namespace holds more than loopback: $links" >&2; exit 1; }
export RTK RTK_DATADIR
bin=$cache/node_modules/.bin
PY=/usr/bin/python3
passed=0 failed=0

# --- checks ----------------------------------------------------------------------------------------------------
ok() { passed=$((passed + 1)); echo "PASS: $CASE: $1"; }
bad() { failed=$((failed + 1)); echo "FAIL: $CASE: $1 (see $D)"; }
# is WHAT ACTUAL EXPECTED
is() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1: got '$2', wanted '$3'"; fi; }
# jqr FILTER: the filter on rtk's JSON output, compact.
jqr() { jq -c "$1" "$D/out.json" 2>/dev/null; }

# --- one case's world ------------------------------------------------------------------------------------------
PLAN_TEXT='# Plan

## Checklist

- [ ] create hello.txt
'
WORDS_PLAN='# Plan: survive the rate limit

Add rate limiting to the login endpoint. The API answers HTTP 429 Too Many Requests ("Error: rate limit
exceeded, try again in 5 minutes") when we call it too fast; the client must wait and retry.

## Checklist

- [ ] Add rate limiting to the login endpoint (retry on 429 rate limit errors)
'
TICK="sed -i 's/^- [[] []] /- [x] /' PLAN.md"
HELLO="printf 'hello\\\\n' > hello.txt"
NOISY="printf 'Error: rate limit exceeded (HTTP 429 Too Many Requests), try again in 5 minutes\\\\n'"

# world CLIENT CASE MODE: $D with a git project ($D/proj), HOME, TMPDIR; the server answering $D/script.json.
world() {
	D=$out/$1/$2-$3
	mkdir -p "$D/home" "$D/tmp" "$D/proj"
	git -C "$D/proj" init -q -b main
	git -C "$D/proj" config user.name "Scripted Model"
	git -C "$D/proj" config user.email "model@example.invalid"
	if [ "$2" = words ]; then printf '%s' "$WORDS_PLAN" >"$D/proj/PLAN.md"; else printf '%s' "$PLAN_TEXT" >"$D/proj/PLAN.md"; fi
	git -C "$D/proj" add -A && git -C "$D/proj" commit -qm "the plan"
}

# serve CLIENT: starts the client's server on $D/script.json; PORT and SPID set.
serve() {
	$PY -c 'import json,sys; json.load(open(sys.argv[1]))' "$D/script.json" || { bad "the script is not JSON"; return 1; }
	$PY "$top/tests/servers/$(client_server "$1")" --port-file "$D/port" --log "$D/requests.jsonl" --script "$D/script.json" &
	SPID=$!
	for _ in $(seq 600); do [ -s "$D/port" ] && break; sleep 0.05; done
	[ -s "$D/port" ] || { bad "the server did not start"; kill "$SPID"; return 1; }
	PORT=$(cat "$D/port")
	client_setup "$1" "$D" "$PORT" 0
}
unserve() { kill "$SPID" 2>/dev/null; wait "$SPID" 2>/dev/null; }

# agent_cmd CLIENT MODE: the command rtk runs (the invocations README.md and rtk-loop(1) give).
agent_cmd() {
	case $1/$2 in
	claude/text) echo "$bin/claude -p --dangerously-skip-permissions" ;;
	claude/json) echo "$bin/claude -p --dangerously-skip-permissions --output-format json" ;;
	codex/text) echo "$bin/codex exec -" ;;
	codex/json) echo "$bin/codex exec --json -" ;;
	gemini/text) echo "$bin/gemini --yolo --skip-trust" ;;
	gemini/json) echo "$bin/gemini --yolo --skip-trust --output-format json" ;;
	esac
}

# in_env CLIENT COMMAND...: COMMAND in the project with nothing but the client's environment (env -i).
in_env() {
	local client=$1
	shift
	# shellcheck disable=SC2046 # the NAME=VALUE words are meant to split
	(cd "$D/proj" && env -i PATH="$bin:/usr/local/bin:/usr/bin:/bin" LANG=C.UTF-8 TZ=UTC TMPDIR="$D/tmp" RTK_DATADIR="$RTK_DATADIR" \
		RTK_TEST_WAIT_SCALE=0.0001 GIT_CONFIG_NOSYSTEM=1 $(client_env "$client" "$D" "$PORT" 0) "$@")
}

# loop CLIENT MODE [OPTIONS]: rtk loop on PLAN.md with the client; JSON in $D/out.json, stderr in $D/err, exit code in RC.
loop() {
	local client=$1 mode=$2
	shift 2
	in_env "$client" timeout 600 "$RTK" loop --plan PLAN.md --agent "$(agent_cmd "$client" "$mode")" --json "$@" >"$D/out.json" 2>"$D/err"
	RC=$?
}

# Tool calls of each client's model: a shell command (the one tool all three have).
shell_call() { # CLIENT COMMAND
	case $1 in
	claude) printf '{"tool_use": {"name": "Bash", "input": {"command": "%s", "description": "run"}}}' "$2" ;;
	codex) printf '{"tool_use": {"name": "exec_command", "input": {"cmd": "%s"}}}' "$2" ;;
	gemini) printf '{"tool_use": {"name": "run_shell_command", "input": {"command": "%s", "description": "run"}}}' "$2" ;;
	esac
}

# The tokens the server reported for the requests it answered: what tokens_used must add up to.
server_tokens() {
	$PY - "$D/requests.jsonl" "$1" "$top/tests/servers" <<'EOF'
import json, sys
log, client, servers = sys.argv[1:4]
sys.path.insert(0, servers)
sys.dont_write_bytecode = True
total = 0
for line in open(log):
    r = json.loads(line)
    if r["answer"] not in ("text", "tool_use"):
        continue
    if client == "claude":
        import anthropic_server as s
        u = s.DEFAULT_USAGE
        total += u["input_tokens"] + u["output_tokens"] + u["cache_read_input_tokens"] + u["cache_creation_input_tokens"]
    elif client == "codex":
        import openai_responses_server as s
        total += s.DEFAULT_USAGE["total_tokens"]
    else:
        import gemini_server as s
        total += (s.DEFAULT_USAGE if r["kind"] == "main" else s.SIDE_USAGE)["totalTokenCount"]
print(total)
EOF
}

# --- the cases -----------------------------------------------------------------------------------------------------

case_plan() { # CLIENT MODE
	echo "[$(shell_call "$1" "$HELLO; $TICK"), {\"text\": \"Ticked the item and created hello.txt.\"}]" >"$D/script.json"
	serve "$1" || return
	loop "$1" "$2"
	unserve
	is "exit 0, done" "$RC $(jqr .stop_reason)" '0 "done"'
	is "one round of progress" "$(jqr '[.rounds[].verdict]')" '["progress"]'
	is "the profile chosen by the program" "$(jqr '[.agent_profile.name, .agent_profile.chosen_by]')" "[\"$1\",\"program\"]"
	is "tokens_used is what the server reported, the cache included" "$(jqr '.rounds[0].tokens_used')" "$(server_tokens "$1")"
	is "the cache is reported apart" "$(jqr '.rounds[0].tokens.cache_read > 0')" true
	[ -f "$D/proj/hello.txt" ] && ok "the client's own tool made hello.txt" || bad "no hello.txt"
}

# error CLIENT MODE STATUS: every request answered STATUS; loop with the breaker at 1 and two rounds.
case_error() {
	local status=$3 headers=
	[ "$status" = 429 ] && headers=', "headers": {"retry-after": "1"}'
	[ "$1/$status" = gemini/429 ] && headers=', "error": {"retry_delay": "1s"}'
	echo "[{\"status\": $status$headers, \"forever\": true}]" >"$D/script.json"
	serve "$1" || return
	loop "$1" "$2" --no-progress-limit 1 --max-rounds 2
	unserve
	case $status in
	429)
		is "exit 5 at --max-rounds, not 4: a 429 never counts" "$RC $(jqr .stop_reason)" '5 "max_rounds"'
		is "every round rate_limited" "$(jqr '[.rounds[].verdict]')" '["rate_limited","rate_limited"]'
		is "the trouble is a rate limit with its status" "$(jqr '[.rounds[0].trouble.kind, .rounds[0].trouble.status]')" '["rate_limit",429]' ;;
	529)
		is "exit 5 at --max-rounds, not 4: a 529 is transient, never counted" "$RC $(jqr .stop_reason)" '5 "max_rounds"'
		is "every round transient_error" "$(jqr '[.rounds[].verdict]')" '["transient_error","transient_error"]'
		is "backed off" "$(jqr '.totals.backoffs')" 2 ;;
	401)
		is "exit 1 at once: fatal" "$RC $(jqr .stop_reason)" '1 "fatal"'
		is "one round" "$(jqr '[.rounds[].verdict]')" '["fatal_error"]'
		is "one line on stderr" "$(grep -c . "$D/err")" 1
		is "the client ran once (one request)" "$(grep -c '"kind": "main"' "$D/requests.jsonl")" 1 ;;
	esac
}

case_words() {
	echo "[$(shell_call "$1" "$NOISY; $HELLO; $TICK"), {\"text\": \"Done: on a rate limit (HTTP 429 Too Many Requests) the client now waits and tries again in 5 minutes.\"}]" >"$D/script.json"
	serve "$1" || return
	loop "$1" "$2"
	unserve
	is "exit 0, done: no false rate limit" "$RC $(jqr .stop_reason)" '0 "done"'
	is "no trouble, no rate limit" "$(jqr '[.rounds[] | [.verdict, .trouble, .rate_limit]]')" '[["progress",null,null]]'
}

case_noop() {
	echo "[$(shell_call "$1" "$TICK"), {\"text\": \"Ticked it.\"}]" >"$D/script.json"
	serve "$1" || return
	loop "$1" "$2"
	unserve
	is "exit 4: ticks without code are not done" "$RC $(jqr .stop_reason)" '4 "unverified"'
	is "the tick is named" "$(jqr .unbacked_ticks)" '["create hello.txt"]'
}

case_hook() {
	mkdir -p "$D/proj/.claude"
	cat >"$D/proj/.claude/settings.json" <<EOF
{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "tee '$D/stop-payload.json' | REFLECTION_MODE=solo REFLECTION_AGENT=claude '$RTK' capture"}]}]}}
EOF
	git -C "$D/proj" add -A && git -C "$D/proj" commit -qm "the Stop hook"
	echo "[$(shell_call "$1" "$HELLO; $TICK"), {\"text\": \"Ticked the item and created hello.txt.\"}]" >"$D/script.json"
	serve "$1" || return
	loop "$1" "$2"
	unserve
	is "exit 0" "$RC" 0
	is "the hook got Claude Code's Stop payload" \
		"$(jq -c '[.hook_event_name, .stop_hook_active, (.session_id | length > 0), (.transcript_path | length > 0), .cwd == $cwd, .last_assistant_message]' --arg cwd "$D/proj" "$D/stop-payload.json" 2>/dev/null)" \
		'["Stop",false,true,true,true,"Ticked the item and created hello.txt."]'
	local sid r
	sid=$(jq -r .session_id "$D/stop-payload.json" 2>/dev/null)
	r=$(ls "$D/proj/.mosaic/reflections/$sid"-*.reflection.json 2>/dev/null | head -1)
	[ -n "$r" ] && ok "rtk capture wrote its reflection for the session" || bad "no reflection for session $sid"
	is "the reflection is valid reflection.v1" "$("$RTK" validate --schema "$RTK_DATADIR/schemas/reflection.v1.schema.json" "$r" >/dev/null 2>&1; echo $?)" 0
	is "it lists the files the round changed" "$(jq -c '.files_changed | index("hello.txt") != null' "$r" 2>/dev/null)" true
}

case_replan() {
	local plan_cmd prompt
	mkdir -p "$D/state"
	printf 'envelope: {command: planner, status: OK}\nnew_plan:\n  unified_goal: "greet"\n  steps:\n    - id: first\n      commands: ["test -f hello.txt"]\n' >"$D/proj/plan.yaml"
	git -C "$D/proj" add -A && git -C "$D/proj" commit -qm "a plan that fails"
	plan_cmd="printf 'new_plan:\\\\n  steps:\\\\n    - {id: fixed, commands: [pwd]}\\\\n' > \\\"\$RTK_PLAN\\\""
	echo "[$(shell_call "$1" "$plan_cmd"), {\"text\": \"Wrote the new plan.\"}]" >"$D/script.json"
	serve "$1" || return
	prompt='Read the blocker card at $RTK_BLOCKER and write a new plan to $RTK_PLAN.'
	case $1 in
	claude) plan_cmd="$bin/claude -p --dangerously-skip-permissions --output-format json \"$prompt\"" ;;
	codex) plan_cmd="$bin/codex exec --json \"$prompt\" </dev/null" ;;
	gemini) plan_cmd="$bin/gemini --yolo --skip-trust --output-format json -p \"$prompt\" </dev/null" ;;
	esac
	in_env "$1" timeout 600 "$RTK" run-plan --project-root . --state-dir "$D/state" --sandbox-root "$D/sb" --latch "$D/latch" \
		--plan plan.yaml --mode copy --replan "$plan_cmd" --max-retries 1 --json >"$D/out.json" 2>"$D/err"
	RC=$?
	unserve
	is "exit 0: the client's plan passed" "$RC $(jqr '[.attempts[].outcome]')" '0 ["STEP_FAILED","OK"]'
	is "the re-plan ran the real client (one conversation)" "$(grep -c '"kind": "main"' "$D/requests.jsonl")" 2
	is "the blocker card's path reached it" "$(grep -c 'thinking/blocker.latest.yaml' "$D/requests.jsonl" | awk '{print ($1 > 0)}')" 1
}

# iterate_project CLIENT MODE: one milestone, one feature, its text about rate limits; both roles are the client.
iterate_project() {
	bash "$top/tests/fixtures/iterate/make_project.sh" "$D/iproj" --order M1 >/dev/null || return 1
	rm -rf "$D/proj" && mv "$D/iproj" "$D/proj"
	printf '# M1\n\n## Goal\nAdd rate limiting to the login endpoint: on HTTP 429 Too Many Requests ("rate limit exceeded, try again in 5 minutes") the client waits.\n\n## Features\n- alpha\n\n## Acceptance Criteria\n- features/alpha.txt says hello\n' >"$D/proj/.anima/milestones/M1.md"
	local cmd
	cmd=$(agent_cmd "$1" "$2")
	jq --arg c "$cmd" '.developer_command = $c | .acceptor_command = $c' "$D/proj/.anima/config.json" >"$D/config.json" &&
		mv "$D/config.json" "$D/proj/.anima/config.json"
	git -C "$D/proj" add -A && git -C "$D/proj" commit -qm "one feature"
}
# The Developer's commit and the report naming its hash (the model reads it back from a file its tool wrote,
# in .git/ so that it is no change to the work tree; no $(...): Gemini CLI refuses command substitution).
dev_round() { # CLIENT TEXT [SHELL_PREFIX]
	local report="$D/proj/.git/report-$RANDOM.txt"
	echo "$(shell_call "$1" "${3:-}mkdir -p features; printf '$2\\\\n' > features/alpha.txt; git add features; git commit -qm 'feat: alpha'; printf '## Implementation Report\\\\nFeature: alpha\\\\n' > $report; git rev-parse HEAD | sed 's/^/Commit: /' >> $report; printf 'Tests: none\\\\nLint: none\\\\nChanges: features/alpha.txt\\\\nNotes: none\\\\nConfidence: 0.8\\\\n' >> $report"), {\"text_from\": \"$report\"},"
}

case_iterate() { # CLIENT MODE accept|reject
	iterate_project "$1" "$2" || { bad "no project"; return; }
	{
		echo "["
		if [ "$3" = reject ]; then
			dev_round "$1" hi
			echo '{"text": "REJECTED: features/alpha.txt must say hello, not hi"},'
		fi
		dev_round "$1" hello
		echo '{"text": "ACCEPTED"},'
		echo '{"text": "ALL_FEATURES_COMPLETE\n- feat: alpha\nSummary: alpha greets."},'
		echo '{"text": "ACCEPTED"}]'
	} >"$D/script.json"
	serve "$1" || return
	in_env "$1" timeout 900 "$RTK" iterate check --project . --json >"$D/out.json" 2>"$D/err"
	RC=$?
	unserve
	is "exit 0, the milestone completed" "$RC $(jqr '.projects[0].pass.milestones[0].status')" '0 "completed"'
	is "no round rate limited by the milestone's words" "$(jqr '[.projects[0].pass.rounds[] | select(.verdict == "rate_limited")] | length')" 0
	if [ "$3" = reject ]; then
		is "the verdicts" "$(jqr '[.projects[0].pass.rounds[] | .role + ":" + .verdict]')" \
			'["developer:report","acceptor:rejected","developer:report","acceptor:accepted","developer:complete","final:accepted"]'
		is "the rejection's reason reached the Developer's next round" \
			"$($PY -c 'import json,sys
reqs=[json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["kind"]=="main"]
print(sum("must say hello, not hi" in json.dumps(r["body"]) for r in reqs[3:]) > 0)' "$D/requests.jsonl")" True
	else
		is "the verdicts" "$(jqr '[.projects[0].pass.rounds[] | .role + ":" + .verdict]')" \
			'["developer:report","acceptor:accepted","developer:complete","final:accepted"]'
	fi
	# usage is in the JSON modes only
	[ "$2" = text ] || is "the milestone's tokens_used is what the server reported, the cache included" \
		"$(jq .tokens_used "$D/proj/.anima/milestones/M1.json")" "$(server_tokens "$1")"
	is "each round names the client's profile" "$(jqr "[.projects[0].pass.rounds[].agent_profile.name] | unique")" "[\"$1\"]"
}

# --- sessions (issue 26 item 4): the conversations rtk continues, with the client's own resume ------------------

# mains: the server's main requests as one JSON list of {n, answer, session, body}: the session id the client
# sent in its header (Claude Code's X-Claude-Code-Session-Id, Codex's session-id; Gemini CLI sends none: null)
# and the body as JSON text.
mains() {
	$PY - "$D/requests.jsonl" <<'EOF'
import json, sys
out = []
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["kind"] != "main":
        continue
    h = {k.lower(): v for k, v in r["headers"].items()}
    out.append({"n": r["n"], "answer": r["answer"], "session": h.get("x-claude-code-session-id") or h.get("session-id"),
                "body": json.dumps(r["body"], ensure_ascii=False)})
print(json.dumps(out))
EOF
}
# jqm FILTER: the filter on mains' list (in $D/mains.json), compact; first_after_held is the request after a held one.
jqm() { jq -c 'def first_after_held: .[(map(.answer) | index("held")) + 1]; '"$1" "$D/mains.json" 2>/dev/null; }

# store_file CLIENT ID: the file of the client's session store that holds conversation ID (nothing when it is gone).
# Gemini CLI names its file session-<time>-<the id's first 8 characters>.jsonl; the whole id is in its first line.
store_file() {
	case $1 in
	claude) find "$D/home/.claude/projects" -name "$2.jsonl" ;;
	codex) find "$D/codex/sessions" -name "*-$2.jsonl" ;;
	gemini) find "$D/home/.gemini/tmp" -path "*/chats/session-*-${2:0:8}.jsonl" -exec grep -l "^{\"sessionId\":\"$2\"" {} + ;;
	esac 2>/dev/null
}

# convs: Gemini CLI's stored conversations, which stand in for the session header it never sends, as one JSON
# list of {session, messages: [{type, text}]} (text: the content as JSON text). Each file is replayed as the
# client reads it: a line without "type" or "$set" (a file's first, and again at each resume) sets the metadata,
# {"$set": {...}} sets fields (the messages too), a message record is added or replaces the one with its id.
# A file without a message record of its own is left out: each resumed run first starts a file for the id
# named by the current minute, then writes to the conversation's file (FINDINGS.md, "Resuming").
convs() {
	$PY - "$D/home/.gemini/tmp" <<'EOF'
import glob, json, os, sys
out = []
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*", "chats", "session-*.jsonl"))):
    conv, records = {"messages": []}, 0
    for line in open(f):
        r = json.loads(line)
        if "$set" in r:
            conv.update(r["$set"])
        elif "type" in r and "id" in r:
            records += 1
            ids = [m.get("id") for m in conv["messages"]]
            if r["id"] in ids:
                conv["messages"][ids.index(r["id"])] = r
            else:
                conv["messages"].append(r)
        else:
            conv.update({k: v for k, v in r.items() if k != "messages"})
    if not records:
        continue
    out.append({"session": conv.get("sessionId"),
                "messages": [{"type": m.get("type"), "text": json.dumps(m.get("content"), ensure_ascii=False)}
                             for m in conv["messages"]]})
print(json.dumps(out))
EOF
}
# jqc FILTER: the filter on convs' list (in $D/convs.json), compact; conv(ID) is the messages of conversation ID.
jqc() { jq -c 'def conv($id): map(select(.session == $id)) | if length == 1 then .[0].messages else null end; '"$1" "$D/convs.json" 2>/dev/null; }

# resume: rtk loop --continue-session, two rounds. The first only answers (FIRST-ANSWER-ALPHA, no change), the
# second resumes it (the command rtk builds from the profile: --resume ID, exec resume ID -) and does the item.
# Gemini CLI names no session to its API, so its store shows the two rounds are one conversation.
case_resume() { # CLIENT MODE
	echo "[{\"text\": \"FIRST-ANSWER-ALPHA: I have read the plan.\"}, $(shell_call "$1" "$HELLO; $TICK"), {\"text\": \"Ticked the item and created hello.txt.\"}]" >"$D/script.json"
	serve "$1" || return
	loop "$1" "$2" --continue-session
	unserve
	mains >"$D/mains.json"
	local sid
	sid=$(jq -r '.rounds[0].session_id' "$D/out.json")
	is "exit 0, done in the second round" "$RC $(jqr '[.rounds[].verdict]')" '0 ["no_progress","progress"]'
	[ -n "$sid" ] && [ "$sid" != null ] && ok "the first round names its session ($sid)" || bad "the first round named no session"
	is "the second round resumed that session" "$(jqr '[.rounds[1].resumed, .rounds[1].session_id]')" "[true,\"$sid\"]"
	if [ "$1" = gemini ]; then
		convs >"$D/convs.json"
		is "the client kept both rounds in that stored conversation (no session id reaches its API)" \
			"$(jqc "[.[].session] == [\"$sid\"] and (conv(\"$sid\") | map(select(.type == \"user\" and (.text | contains(\"Read the plan at PLAN.md\")))) | length) == 2")" true
	else
		is "the client sent the resumed request under the same session id" "$(jqm '[.[].session] | unique')" "[\"$sid\"]"
	fi
	is "the resumed request carries the first prompt and answer, then the second prompt" \
		"$(jqm '.[1].body | [(split("Read the plan at PLAN.md") | length - 1), contains("FIRST-ANSWER-ALPHA")]')" '[2,true]'
}

# group_alive PGID: whether a process of that group still runs (a zombie does not: who reaps an orphan is
# the machine's init, not rtk).
group_alive() { ps -eo pgid=,stat= | awk -v g="$1" '$1 == g && $2 !~ /^Z/ { found = 1 } END { exit !found }'; }

# kill9: rtk iterate with persistent sessions (the default), both roles the client. Round 1: the Developer's
# report (its tool call carries ROUND1-TOOL-MARKER), the Acceptor's REJECTED. Round 2: the resumed Developer's
# request is held by the server until rtk is killed with -9 mid-round; the Acceptor's conversation is then
# deleted from the client's store. The restarted `rtk iterate check` must end the orphaned agent, resume the
# Developer's stored conversation (the server sees round 1 in it, under the same session id), and, when the
# client refuses the Acceptor's lost session (exit 1, no session named), give the Acceptor a new one.
case_kill9() { # CLIENT MODE
	iterate_project "$1" "$2" || { bad "no project"; return; }
	{
		echo "["
		dev_round "$1" hi ": ROUND1-TOOL-MARKER;"
		echo '{"text": "REJECTED: features/alpha.txt must say hello, not hi"},'
		echo '{"hold": true},'
		dev_round "$1" hello
		echo '{"text": "ACCEPTED"},'
		echo '{"text": "ALL_FEATURES_COMPLETE\n- feat: alpha\nSummary: alpha greets."},'
		echo '{"text": "ACCEPTED"}]'
	} >"$D/script.json"
	serve "$1" || return
	local job pid rec pgid dev acc store acc2 held refused
	# rtk's own pid (in_env runs it in subshells): the shell it replaces writes it first
	in_env "$1" sh -c 'echo $$ >"$0"; exec "$@"' "$D/rtk.pid" "$RTK" iterate check --project . --json >"$D/out1.json" 2>"$D/err1" &
	job=$!
	# a hang guard, not a time limit: the held request comes within seconds on a working rtk
	for _ in $(seq 3000); do
		pid=$(cat "$D/rtk.pid" 2>/dev/null)
		grep -q '"answer": "held"' "$D/requests.jsonl" 2>/dev/null && break
		[ -z "$pid" ] || kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if ! grep -q '"answer": "held"' "$D/requests.jsonl" 2>/dev/null; then
		[ -z "$pid" ] || kill -KILL "$pid" 2>/dev/null
		wait "$job"
		unserve
		bad "the second Developer round never reached the server"
		return
	fi
	rec=$(find "$D/home" -name '*.agent' 2>/dev/null | head -1)
	pgid=$(awk '{print $1}' "$rec" 2>/dev/null)
	kill -KILL "$pid"
	wait "$job" 2>/dev/null
	[ -n "$pgid" ] && [ "$pgid" != 0 ] && group_alive "$pgid" && ok "killed mid-round: the client ($pgid) is left waiting on the model" ||
		bad "no running agent recorded at the kill"
	dev=$(jq -r '.sessions.developer.id' "$D/proj/.anima/milestones/M1.json" 2>/dev/null)
	acc=$(jq -r '.sessions.acceptor.id' "$D/proj/.anima/milestones/M1.json" 2>/dev/null)
	mains >"$D/mains.json"
	if [ "$1" = gemini ]; then
		convs >"$D/convs.json"
		is "the held round was the Developer's, resumed in its stored conversation (its new prompt last)" \
			"$(jqc "conv(\"$dev\") | last | [.type, (.text | contains(\"must say hello, not hi\"))]")" '["user",true]'
		is "... and the held request carries round 1" "$(jqm 'map(select(.answer == "held"))[0].body | contains("ROUND1-TOOL-MARKER")')" true
	else
		held=$(jqm 'map(select(.answer == "held")) | .[0].session')
		is "the held round was the Developer's, resumed under its stored session" "$held" "\"$dev\""
	fi
	store=$(store_file "$1" "$acc")
	[ -n "$store" ] && rm -f $store && ok "the Acceptor's conversation is deleted from the client's store" ||
		bad "no stored conversation of the Acceptor ($acc) found"

	in_env "$1" timeout 900 "$RTK" iterate check --project . --json >"$D/out.json" 2>"$D/err"
	RC=$?
	unserve
	mains >"$D/mains.json"
	acc2=$(jq -r '.sessions.acceptor.id' "$D/proj/.anima/milestones/M1.json" 2>/dev/null)
	is "the restart completes the milestone" "$RC $(jqr '.projects[0].pass.milestones[0].status')" '0 "completed"'
	group_alive "$pgid" && bad "the killed round's client is still running" || ok "the restart ended the killed round's client"
	is "the restarted Developer round resumed the stored session" \
		"$(jqr '[.projects[0].pass.rounds[0] | .role, .resumed, .session_id]')" "[\"developer\",true,\"$dev\"]"
	if [ "$1" = gemini ]; then
		convs >"$D/convs.json"
		is "the client continued the stored conversation (one prompt about the restart in it)" \
			"$(jqc "conv(\"$dev\") | map(select(.type == \"user\" and (.text | contains(\"interrupted by a restart\")))) | length")" 1
	else
		is "the client sent it under the same session id" "$(jqm 'first_after_held.session')" "\"$dev\""
	fi
	is "it carries round 1 (the Developer's tool call, the Acceptor's reason) and the restart" \
		"$(jqm 'first_after_held.body | [contains("ROUND1-TOOL-MARKER"), contains("must say hello, not hi"), contains("interrupted by a restart")]')" \
		'[true,true,true]'
	is "the Developer kept one conversation" "$(jq -r '.sessions.developer.id' "$D/proj/.anima/milestones/M1.json")" "$dev"
	# an unknown session: Claude Code and Codex exit 1, Gemini CLI 42 (its FATAL_INPUT_ERROR, fatal in its profile)
	refused=1
	[ "$1" = gemini ] && refused=42
	grep -q "resuming session $acc failed: the client exited $refused without naming a session" "$D/err" &&
		ok "the client refused the lost Acceptor session (exit $refused, no session named)" || bad "no refused resume of $acc noted"
	[ -n "$acc2" ] && [ "$acc2" != null ] && [ "$acc2" != "$acc" ] && ok "the Acceptor got a new conversation ($acc2)" ||
		bad "the Acceptor's session after the restart: '$acc2' (before: $acc)"
	if [ "$1" = gemini ]; then
		is "... started with the whole brief and a note why" \
			"$(jqc "conv(\"$acc2\") | map(select(.type == \"user\") | .text) | join(\" \") | [contains(\"acceptance criteria\"), contains(\"resuming session $acc failed\")]")" '[true,true]'
	else
		is "... started with the whole brief and a note why" \
			"$(jqm "map(select(.session == \"$acc2\"))[0].body | [contains(\"acceptance criteria\"), contains(\"resuming session $acc failed\")]")" '[true,true]'
	fi
	is "the verdicts after the restart" "$(jqr '[.projects[0].pass.rounds[] | .role + ":" + .verdict]')" \
		'["developer:report","acceptor:accepted","developer:complete","final:accepted"]'
}

# --- run --------------------------------------------------------------------------------------------------------
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
for c in $CLIENTS; do
	for k in $CASES; do
		wanted "$c" "$k" || continue
		CASE=$c/$k
		name=${k%/*} mode=${k#*/}
		world "$c" "$name" "$mode"
		echo "check-agents: $CASE ..." >&2
		case $name in
		plan) case_plan "$c" "$mode" ;;
		429 | 529 | 401) case_error "$c" "$mode" "$name" ;;
		words) case_words "$c" "$mode" ;;
		noop) case_noop "$c" "$mode" ;;
		hook) case_hook "$c" "$mode" ;;
		replan) case_replan "$c" "$mode" ;;
		accept | reject) case_iterate "$c" "$mode" "$name" ;;
		resume) case_resume "$c" "$mode" ;;
		kill9) case_kill9 "$c" "$mode" ;;
		esac
	done
done
echo "check-agents: $passed passed, $failed failed (in $out)"
[ "$failed" = 0 ]
