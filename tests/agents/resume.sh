#!/usr/bin/env bash
# tests/agents/resume.sh [-c CACHE] [claude|codex...] — do the real clients resume a session the way
# src/agent/resume.c rewrites their command, and fail the way rtk detects when they cannot? For each client
# (pinned in versions.txt, installed by install.sh into CACHE, default ~/.cache/rtk-agents/npm), against its
# scripted server (tests/servers/) on 127.0.0.1, in a fresh HOME and project:
#   1. a first run names its session (Claude: the result's session_id; Codex: the banner's "session id:");
#   2. the same command with rtk's resume words (--resume ID; exec resume ID -) answers in that session, and
#      the server's second request carries the first prompt and answer;
#   3. a resume of an id the client does not know exits non-zero and names no session (what rtk takes for
#      a failed resume, to start a new conversation).
# Prints one PASS/FAIL line per check and exits 1 when any failed, 2 when a client or python3 is missing.
# Not part of make check (it needs the npm clients); `make check-agents` can call it.
set -u
cache=${RTK_AGENTS_CACHE:-$HOME/.cache/rtk-agents/npm}
while getopts c: opt; do
	case $opt in
	c) cache=$OPTARG ;;
	*) echo "usage: $0 [-c CACHE] [claude|codex...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
top=$(cd "$(dirname "$0")/../.." && pwd)
bin=$cache/node_modules/.bin
command -v python3 >/dev/null || { echo "resume.sh: python3 is needed" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/rtk-resume.XXXXXX")
server_pid=
trap '[ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null; rm -rf "$work"' EXIT
failed=0
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; failed=1; }

# start_server SCRIPT_PY DIR: a scripted server answering three texts in turn; its port in DIR/port.
start_server() {
	printf '%s\n' '[{"text": "First answer.", "times": 1}, {"text": "Second answer.", "times": 1}, {"text": "Later answer.", "forever": true}]' > "$2/script.json"
	python3 "$top/tests/servers/$1" --port-file "$2/port" --log "$2/requests.jsonl" --script "$2/script.json" > "$2/server.log" 2>&1 &
	server_pid=$!
	for _ in $(seq 600); do [ -s "$2/port" ] && return 0; sleep 0.1; done
	return 1
}
stop_server() { kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; server_pid=; }
# second_request_carries DIR TEXT...: the server's second main request holds every TEXT.
second_request_carries() {
	local dir=$1
	shift
	python3 - "$dir/requests.jsonl" "$@" <<'EOF'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
main = [r for r in reqs if r.get("method") == "POST" and (r.get("body") or {}).get("tools")]
body = json.dumps(main[1]["body"]) if len(main) > 1 else ""
sys.exit(0 if all(t in body for t in sys.argv[2:]) else 1)
EOF
}

check_claude() {
	local d=$work/claude id out
	mkdir -p "$d/home" "$d/tmp" "$d/proj" && git -C "$d/proj" init -q . || return
	start_server anthropic_server.py "$d" || { fail "claude: the server did not start"; return; }
	run() {
		(cd "$d/proj" && env -i PATH="$PATH" HOME="$d/home" TMPDIR="$d/tmp" IS_SANDBOX=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
			DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 ANTHROPIC_BASE_URL="http://127.0.0.1:$(cat "$d/port")" \
			ANTHROPIC_API_KEY=sk-ant-test CLAUDE_CODE_MAX_RETRIES=0 "$bin/claude" -p --output-format json "$@")
	}
	out=$(echo "first prompt ALPHA-1" | run)
	id=$(printf '%s\n' "$out" | tail -1 | python3 -c 'import json,sys; print(json.load(sys.stdin).get("session_id", ""))' 2>/dev/null)
	[ -n "$id" ] && pass "claude: the first run names its session ($id)" || fail "claude: no session_id in: $out"
	out=$(echo "second prompt BRAVO-2" | run --resume "$id")
	[ "$(printf '%s\n' "$out" | tail -1 | python3 -c 'import json,sys; print(json.load(sys.stdin).get("session_id", ""))' 2>/dev/null)" = "$id" ] &&
		pass "claude: --resume ID answers in the same session" || fail "claude: --resume answered: $out"
	second_request_carries "$d" "ALPHA-1" "First answer." "BRAVO-2" && pass "claude: the resumed request carries the first prompt and answer" ||
		fail "claude: the resumed request does not carry the conversation"
	out=$(echo "third" | run --resume 11111111-2222-3333-4444-555555555555 2>"$d/err"); rc=$?
	[ "$rc" -ne 0 ] && ! printf '%s' "$out" | grep -q session_id && pass "claude: an unknown id: exit $rc, no session named ($(head -1 "$d/err"))" ||
		fail "claude: an unknown id gave exit $rc and: $out"
	stop_server
}

check_codex() {
	local d=$work/codex id
	mkdir -p "$d/home/codex" "$d/proj" && git -C "$d/proj" init -q . || return
	start_server openai_responses_server.py "$d" || { fail "codex: the server did not start"; return; }
	cat > "$d/home/codex/config.toml" <<EOF
model = "gpt-5.5"
model_provider = "scripted"
approval_policy = "never"
sandbox_mode = "danger-full-access"
[analytics]
enabled = false
[model_providers.scripted]
name = "scripted"
base_url = "http://127.0.0.1:$(cat "$d/port")/v1"
wire_api = "responses"
env_key = "OPENAI_API_KEY"
request_max_retries = 0
stream_max_retries = 0
EOF
	run() { (cd "$d/proj" && env -i PATH="$PATH" HOME="$d/home" CODEX_HOME="$d/home/codex" OPENAI_API_KEY=sk-test "$bin/codex" exec "$@"); }
	echo "first prompt ALPHA-1" | run - > "$d/out1" 2> "$d/err1"
	id=$(sed -n 's/^session id: //p' "$d/err1" | head -1)
	[ -n "$id" ] && pass "codex: the first run's banner names its session ($id)" || fail "codex: no session id on stderr"
	echo "second prompt BRAVO-2" | run resume "$id" - > "$d/out2" 2> "$d/err2"
	[ "$(sed -n 's/^session id: //p' "$d/err2" | head -1)" = "$id" ] && pass "codex: exec resume ID - answers in the same session" ||
		fail "codex: exec resume answered: $(cat "$d/out2" "$d/err2" | tail -3)"
	second_request_carries "$d" "ALPHA-1" "First answer." "BRAVO-2" && pass "codex: the resumed request carries the first prompt and answer" ||
		fail "codex: the resumed request does not carry the conversation"
	echo "third" | run resume 01a22074-1e2e-72f2-bb07-f1352948ad3e - > "$d/out3" 2> "$d/err3"; rc=$?
	[ "$rc" -ne 0 ] && ! grep -q '^session id:' "$d/err3" && pass "codex: an unknown id: exit $rc, no session named ($(grep -m1 '^Error' "$d/err3"))" ||
		fail "codex: an unknown id gave exit $rc"
	stop_server
}

for c in ${*:-claude codex}; do
	[ -x "$bin/$c" ] || { echo "resume.sh: $bin/$c is missing: run tests/agents/install.sh $cache" >&2; exit 2; }
	"check_$c"
done
exit $failed
