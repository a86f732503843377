#!/usr/bin/env bash
# tests/agents/probe.sh — runs the real agent CLIs against the scripted model servers, case by case, and keeps what each did.
#
#   tests/agents/probe.sh [-c CACHE_DIR] [-o OUT_DIR] [-q] [CLIENT[/CASE[/MODE]] ...]
#
# CLIENT is claude, codex or gemini (all when none is named); CASE and MODE narrow the runs (see the lists
# below; `-l` prints them). CACHE_DIR holds the CLIs (tests/agents/install.sh CACHE_DIR is run first; default
# ~/.cache/rtk-agents/npm). Everything runs as root inside a network namespace holding only loopback
# (`unshare -n`, then `ip link set lo up`): a client reaching for any host but its scripted server on
# 127.0.0.1 fails at once. Each run gets a fresh git repository as the project (PLAN.md with a checklist),
# a fresh HOME (and CODEX_HOME) and TMPDIR, its own server and an environment built from nothing (env -i).
#
# OUT_DIR/CLIENT/CASE-MODE/ keeps, per run: cmd (environment and command line), script.json, requests.jsonl
# (the server's log), stdout, stderr, rc, seconds, PLAN.md.after, status (git status --short afterwards);
# resume cases add stdout.2, stderr.2, rc.2, seconds.2, cmd.2 for the second invocation; Claude's hook case
# keeps the Stop hook's stdin in hook-Stop.json. OUT_DIR/summary.jsonl gets one line per run found in OUT_DIR
# (tests/agents/summarise.py; runs of earlier calls with the same OUT_DIR included) and OUT_DIR/summary.md the
# tables made from it. Default OUT_DIR:
# ~/.cache/rtk-agents/probe-DATE (not under /tmp: Codex warns about a CODEX_HOME in a temporary folder).
#
# Cases (the model's script; "limited" means the client's own retries are capped, 2 retries, see tests/agents/clients.sh):
#   plan          the model edits PLAN.md with the client's file-edit tool (- [ ] -> - [x]) and creates
#                 hello.txt with its shell tool, then says it is done
#   429           HTTP 429 with retry-after: 1 on every request (limited)
#   429-default   the same with the client's default retries (text mode only; takes minutes for Claude)
#   429-bare      HTTP 429 without retry-after (text mode only, limited)
#   429-wait7     HTTP 429 with retry-after: 7 (Gemini: RetryInfo retryDelay 7s) (text mode only, limited):
#                 whether the client waits what the server asks
#   529           HTTP 529 overloaded on every request (limited)
#   529-default   the same with default retries (text mode only)
#   529-recover   two 529s, then a reply (limited: the client recovers by itself)
#   401           HTTP 401 on every request
#   stream-error  HTTP 200, then an error event inside the stream (Anthropic overloaded_error, Responses
#                 response.failed rate_limit_exceeded, Gemini UNAVAILABLE) on every request (limited)
#   words         the plan and the prompt talk about "rate limit" and "429", the model runs a command that
#                 prints a rate-limit error, and succeeds
#   resume        run 1 answers; run 2 resumes run 1's session by its id (read from run 1's JSON output,
#                 or its stderr banner) and its first request must carry run 1's conversation
#   resume-last   the same with the client's "most recent session" switch
#   hook          (claude) the plan case with a Stop hook in the project's .claude/settings.json
#   env           the model runs `env | sort > ../tool.env` with the client's shell tool: the variables a
#                 client adds to the environment of the commands it runs (what a nested agent would see)
#   usage-limit   (codex) HTTP 429 with ChatGPT's usage_limit_reached body (resets_at, resets_in_seconds)
# shellcheck disable=SC2034 # the CLIENT_modes variables are read through ${!name}
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$here/clients.sh"
cache=${XDG_CACHE_HOME:-$HOME/.cache}/rtk-agents/npm
out=
quiet=
list=
while getopts c:o:ql opt; do
	case $opt in
	c) cache=$OPTARG ;;
	o) out=$OPTARG ;;
	q) quiet=1 ;;
	l) list=1 ;;
	*) echo "usage: $0 [-c CACHE_DIR] [-o OUT_DIR] [-q] [-l] [CLIENT[/CASE[/MODE]] ...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))

CLIENTS="claude codex gemini"
CASES="plan 429 429-default 429-bare 429-wait7 529 529-default 529-recover 401 stream-error words resume resume-last hook env usage-limit"
claude_modes="text json stream"
codex_modes="text json"
gemini_modes="text json stream"

# wanted CLIENT CASE MODE: whether the run is applicable and was asked for on the command line.
wanted() {
	case $2 in
	429-default | 429-bare | 429-wait7 | 529-default | 529-recover | env) [ "$3" = text ] || return 1 ;;
	stream-error | resume | resume-last | hook) [ "$3" = json ] || return 1 ;;
	esac
	case $2 in
	hook) [ "$1" = claude ] || return 1 ;;
	usage-limit) [ "$1" = codex ] || return 1 ;;
	esac
	[ ${#selectors[@]} -eq 0 ] && return 0
	local s
	for s in "${selectors[@]}"; do
		case "$1/$2/$3" in
		"$s" | "$s"/*) return 0 ;;
		esac
	done
	return 1
}
selectors=("$@")

if [ -n "$list" ]; then
	for c in $CLIENTS; do
		m=${c}_modes
		for k in $CASES; do for mode in ${!m}; do wanted "$c" "$k" "$mode" && echo "$c/$k/$mode"; done; done
	done
	exit 0
fi

# --- into a network namespace with loopback only ------------------------------------------------------------
if [ -z "${RTK_PROBE_NETNS:-}" ]; then
	[ "$(id -u)" = 0 ] || { echo "probe.sh: needs root (unshare -n)" >&2; exit 2; }
	"$here/install.sh" "$cache" >&2 || exit 1
	out=${out:-${XDG_CACHE_HOME:-$HOME/.cache}/rtk-agents/probe-$(date +%Y%m%d-%H%M%S)}
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	cache=$(cd "$cache" && pwd)
	exec unshare -n env RTK_PROBE_NETNS=1 "$0" -c "$cache" -o "$out" ${quiet:+-q} "$@"
fi
ip link set lo up || exit 1
bin=$cache/node_modules/.bin
PY=/usr/bin/python3
say() { [ -n "$quiet" ] || echo "$@" >&2; }
say "probe.sh: interfaces: $(ip -o link | awk -F': ' '{printf "%s ", $2}')"

# --- the project ---------------------------------------------------------------------------------------------

# project DIR CASE: a git repository with PLAN.md (one open item), committed.
project() {
	mkdir -p "$1"
	if [ "$2" = words ]; then
		cat >"$1/PLAN.md" <<'EOF'
# Plan: survive the rate limit

The API answers HTTP 429 Too Many Requests ("Error: rate limit exceeded, try again in 5 minutes") when we
call it too fast; the client must wait and retry.

## Checklist

- [ ] retry on 429 rate limit errors
EOF
	else
		printf '# Plan\n\n## Checklist\n\n- [ ] create hello.txt\n' >"$1/PLAN.md"
	fi
	git -C "$1" init -q
	git -C "$1" add PLAN.md
	git -C "$1" -c user.name=probe -c user.email=probe@example.invalid commit -qm "the plan"
}

prompt_of() {
	case $1 in
	words) echo "Read the plan at PLAN.md. The API keeps failing with HTTP 429 (rate limit exceeded); do the plan's first open item and tick it." ;;
	resume | resume-last) echo "Remember the word PINEAPPLE; I will ask for it later." ;;
	*) echo "Read the plan at PLAN.md. Do its first open item (create hello.txt) and tick it (- [ ] becomes - [x])." ;;
	esac
}
PROMPT2="Which word did I ask you to remember?"

# Shell commands the scripted model runs (no backslashes: they go into JSON as they are).
TICK="sed -i 's/^- [[] []] /- [x] /' PLAN.md"
HELLO="printf 'hello\\\\n' > hello.txt"
NOISY="printf 'Error: rate limit exceeded (HTTP 429 Too Many Requests), try again in 5 minutes\\\\n'"
WORDS_DONE="Done: on a rate limit (HTTP 429 Too Many Requests) the client now waits and tries again in 5 minutes."
ENV="env | sort > ../tool.env"

# error_script CASE: the script of the error cases, common to all clients but for the status details.
error_script() {
	case $1 in
	429 | 429-default) echo "[{\"status\": 429, \"headers\": {\"retry-after\": \"1\"}, ${E429:+$E429, }\"forever\": true}]" ;;
	429-bare) echo '[{"status": 429, "forever": true}]' ;;
	429-wait7) echo "[{\"status\": 429, \"headers\": {\"retry-after\": \"7\"}, ${E429:+$E429, }\"forever\": true}]" ;;
	529 | 529-default) echo '[{"status": 529, "forever": true}]' ;;
	529-recover) echo '[{"status": 529, "times": 2}, {"text": "Recovered after two overloaded answers."}]' ;;
	401) echo '[{"status": 401, "forever": true}]' ;;
	stream-error) echo "[{\"stream_error\": ${STREAM_ERROR:-null}, \"forever\": true}]" ;;
	resume | resume-last) echo '[{"text": "Noted: the word is PINEAPPLE."}, {"text": "You asked me to remember PINEAPPLE."}]' ;;
	*) return 1 ;;
	esac
}

# --- Claude Code ---------------------------------------------------------------------------------------------
claude_cmd() { # MODE [resume ID | resume-last]
	local a=("$bin/claude" -p --dangerously-skip-permissions)
	case $1 in
	json) a+=(--output-format json) ;;
	stream) a+=(--output-format stream-json --verbose) ;;
	esac
	case ${2:-} in
	resume) a+=(--resume "$3") ;;
	resume-last) a+=(--continue) ;;
	esac
	CMD=("${a[@]}")
}
claude_script() { # CASE PROJECT
	case $1 in
	plan | hook) cat <<EOF ;;
[{"tool_use": {"name": "Read", "input": {"file_path": "$2/PLAN.md"}}},
 {"tool_use": {"name": "Edit", "input": {"file_path": "$2/PLAN.md", "old_string": "- [ ] create hello.txt", "new_string": "- [x] create hello.txt"}}},
 {"tool_use": {"name": "Bash", "input": {"command": "$HELLO", "description": "Create hello.txt"}}},
 {"text": "Ticked the item and created hello.txt."}]
EOF
	words) cat <<EOF ;;
[{"tool_use": {"name": "Bash", "input": {"command": "$NOISY; $TICK", "description": "Retry on 429"}}},
 {"text": "$WORDS_DONE"}]
EOF
	env) echo "[{\"tool_use\": {\"name\": \"Bash\", \"input\": {\"command\": \"$ENV\", \"description\": \"env\"}}}, {\"text\": \"Done.\"}]" ;;
	stream-error) STREAM_ERROR='{"type": "overloaded_error", "message": "Overloaded"}' error_script "$1" ;;
	*) error_script "$1" ;;
	esac
}
claude_hook() { # DIR PROJECT: a Stop (and SessionEnd) hook that keeps its stdin
	mkdir -p "$2/.claude"
	cat >"$1/hook.sh" <<EOF
#!/bin/sh
# Keeps the hook's stdin (its JSON payload) and environment for the probe.
cat > "$1/hook-\$1.json"
env | sort > "$1/hook-\$1.env"
EOF
	chmod +x "$1/hook.sh"
	cat >"$2/.claude/settings.json" <<EOF
{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "$1/hook.sh Stop"}]}],
           "SessionEnd": [{"hooks": [{"type": "command", "command": "$1/hook.sh SessionEnd"}]}]}}
EOF
}
claude_session() { # DIR: the session id run 1 printed
	$PY - "$1/stdout" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    try:
        o = json.loads(line)
    except ValueError:
        continue
    if isinstance(o, dict) and o.get("session_id"):
        print(o["session_id"]); break
EOF
}

# --- Codex CLI -----------------------------------------------------------------------------------------------
codex_cmd() {
	local a=("$bin/codex" exec)
	[ "$1" = json ] && a+=(--json)
	case ${2:-} in
	resume) a+=(resume "$3") ;;
	resume-last) a+=(resume --last) ;;
	esac
	CMD=("${a[@]}" -)
}
codex_script() {
	case $1 in
	plan) cat <<EOF ;;
[{"tool_use": {"name": "exec_command", "input": {"cmd": "$HELLO"}}},
 {"tool_use": {"name": "apply_patch", "input": "*** Begin Patch\n*** Update File: PLAN.md\n@@\n-- [ ] create hello.txt\n+- [x] create hello.txt\n*** End Patch\n"}},
 {"text": "Ticked the item and created hello.txt."}]
EOF
	words) cat <<EOF ;;
[{"tool_use": {"name": "exec_command", "input": {"cmd": "$NOISY; $TICK"}}},
 {"text": "$WORDS_DONE"}]
EOF
	env) echo "[{\"tool_use\": {\"name\": \"exec_command\", \"input\": {\"cmd\": \"$ENV\"}}}, {\"text\": \"Done.\"}]" ;;
	# Codex waits the "try again in" of a response.failed message: 2 s keeps the case short.
	stream-error) STREAM_ERROR='{"code": "rate_limit_exceeded", "message": "Rate limit reached for gpt-5.5 in organization org-test on tokens per min (TPM): Limit 30000, Used 30000, Requested 500. Please try again in 2s."}' error_script "$1" ;;
	usage-limit) echo "[{\"status\": 429, \"error\": {\"type\": \"usage_limit_reached\", \"message\": \"The usage limit has been reached\", \"plan_type\": \"plus\", \"resets_at\": $(($(date +%s) + 3600)), \"resets_in_seconds\": 3600}, \"forever\": true}]" ;;
	*) error_script "$1" ;;
	esac
}
codex_session() { # the thread id: thread.started in --json mode, the banner's "session id:" on stderr in text mode
	sed -n 's/.*"thread_id":"\([^"]*\)".*/\1/p; s/^session id: //p' "$1/stdout" "$1/stderr" | head -1
}

# --- Gemini CLI ----------------------------------------------------------------------------------------------
gemini_cmd() {
	local a=("$bin/gemini" --yolo --skip-trust)
	case $1 in
	json) a+=(--output-format json) ;;
	stream) a+=(--output-format stream-json) ;;
	esac
	case ${2:-} in
	resume) a+=(--resume "$3") ;;
	resume-last) a+=(--resume latest) ;;
	esac
	CMD=("${a[@]}")
}
gemini_script() {
	case $1 in
	plan) cat <<EOF ;;
[{"tool_use": {"name": "run_shell_command", "input": {"command": "$HELLO", "description": "Create hello.txt"}}},
 {"tool_use": {"name": "replace", "input": {"file_path": "$2/PLAN.md", "instruction": "Tick the item", "old_string": "- [ ] create hello.txt", "new_string": "- [x] create hello.txt"}}},
 {"text": "Ticked the item and created hello.txt."}]
EOF
	words) cat <<EOF ;;
[{"tool_use": {"name": "run_shell_command", "input": {"command": "$NOISY; $TICK", "description": "Retry on 429"}}},
 {"text": "$WORDS_DONE"}]
EOF
	env) echo "[{\"tool_use\": {\"name\": \"run_shell_command\", \"input\": {\"command\": \"$ENV\"}}}, {\"text\": \"Done.\"}]" ;;
	429 | 429-default) E429='"error": {"retry_delay": "1s"}' error_script "$1" ;;
	429-wait7) E429='"error": {"retry_delay": "7s"}' error_script "$1" ;;
	stream-error) STREAM_ERROR='{"code": 503}' error_script "$1" ;;
	*) error_script "$1" ;;
	esac
}
gemini_session() {
	$PY - "$1/stdout" <<'EOF'
import json, sys
text = open(sys.argv[1]).read()
objs = []
try:
    objs.append(json.loads(text))
except ValueError:
    for line in text.splitlines():
        try:
            objs.append(json.loads(line))
        except ValueError:
            pass
for o in objs:
    if isinstance(o, dict) and o.get("session_id"):
        print(o["session_id"]); break
EOF
}

# --- one run -------------------------------------------------------------------------------------------------

# invoke CLIENT MODE DIR SUFFIX PROMPT [resume ID | resume-last]: runs the client once in DIR/proj.
invoke() {
	local client=$1 mode=$2 d=$3 sfx=$4 prompt=$5
	shift 5
	"${client}_cmd" "$mode" "$@"
	local envs
	envs=$(client_env "$client" "$d" "$port" "$retries" | tr '\n' ' ')
	{
		echo "# environment (env -i, then these):"
		echo "PATH=$bin:/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 TMPDIR=$d/tmp $envs"
		echo "# command (in $d/proj, prompt on stdin):"
		printf '%q ' "${CMD[@]}"
		echo
		echo "# prompt:"
		echo "$prompt"
	} >"$d/cmd$sfx"
	local t0 t1
	t0=$(date +%s.%N)
	# shellcheck disable=SC2086
	(cd "$d/proj" && printf '%s\n' "$prompt" | env -i PATH="$bin:/usr/local/bin:/usr/bin:/bin" LANG=C.UTF-8 TMPDIR="$d/tmp" $envs \
		timeout 600 "${CMD[@]}" >"$d/stdout$sfx" 2>"$d/stderr$sfx")
	echo $? >"$d/rc$sfx"
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc >"$d/seconds$sfx"
}

run() { # CLIENT CASE MODE
	local client=$1 case=$2 mode=$3
	local d=$out/$client/$case-$mode
	rm -rf "$d"
	mkdir -p "$d/home" "$d/tmp"
	project "$d/proj" "$case"
	retries=2 # "limited": the client's own retries capped
	case $case in *-default | 401 | plan | words | resume*) retries= ;; esac
	"${client}_script" "$case" "$d/proj" >"$d/script.json"
	$PY -c 'import json,sys; json.load(open(sys.argv[1]))' "$d/script.json" || { echo "probe.sh: bad script for $client/$case" >&2; return 1; }
	$PY "$top/tests/servers/$(client_server "$client")" --port-file "$d/port" --log "$d/requests.jsonl" \
		--script "$d/script.json" &
	local spid=$!
	for _ in $(seq 100); do [ -s "$d/port" ] && break; sleep 0.1; done
	[ -s "$d/port" ] || { echo "probe.sh: $client/$case/$mode: the server did not start" >&2; kill "$spid"; return 1; }
	port=$(cat "$d/port")
	client_setup "$client" "$d" "$port" "$retries"
	[ "$case" = hook ] && claude_hook "$d" "$d/proj"
	say "probe.sh: $client/$case/$mode ..."
	invoke "$client" "$mode" "$d" "" "$(prompt_of "$case")"
	case $case in
	resume)
		local id
		id=$("${client}_session" "$d")
		echo "$id" >"$d/session"
		invoke "$client" "$mode" "$d" .2 "$PROMPT2" resume "$id" ;;
	resume-last) invoke "$client" "$mode" "$d" .2 "$PROMPT2" resume-last ;;
	esac
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	cp "$d/proj/PLAN.md" "$d/PLAN.md.after" 2>/dev/null
	git -C "$d/proj" status --short >"$d/status"
	say "probe.sh: $client/$case/$mode: rc $(cat "$d/rc") in $(cat "$d/seconds") s"
}

for c in $CLIENTS; do
	m=${c}_modes
	for k in $CASES; do
		for mode in ${!m}; do
			wanted "$c" "$k" "$mode" && run "$c" "$k" "$mode"
		done
	done
done
# The summary covers every run in OUT_DIR, this time's and those of earlier calls with the same OUT_DIR.
for c in $CLIENTS; do
	m=${c}_modes
	for k in $CASES; do
		for mode in ${!m}; do
			[ -f "$out/$c/$k-$mode/rc" ] && $PY "$here/summarise.py" "$out/$c/$k-$mode" "$c" "$k" "$mode"
		done
	done
done >"$out/summary.jsonl"
$PY "$here/summarise.py" --table "$out/summary.jsonl" >"$out/summary.md"
echo "$out"
