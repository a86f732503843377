#!/usr/bin/env bash
# tests/cli/reflect.sh — rtk reflect against the real test LLM server: request, verdicts, failures, routing, spool, concurrency.
. "$RTK_SRCDIR/tests/cli/lib.sh"

# --- the server: tests/servers/llm_server.py on a free 127.0.0.1 port, recording every request ---
SERVER_DIR=$(mktemp -d "${TMPDIR:-/tmp}/rtk-llm.XXXXXX")
python3 "$RTK_SRCDIR/tests/servers/llm_server.py" --port-file "$SERVER_DIR/port" --log "$SERVER_DIR/requests.jsonl" &
SERVER_PID=$!
trap 'kill $SERVER_PID 2>/dev/null; wait $SERVER_PID 2>/dev/null; rm -rf "$SCRATCH_ROOT" "$SERVER_DIR"' EXIT
PORT=$(server_port "$SERVER_DIR" $SERVER_PID)
REQUESTS=$SERVER_DIR/requests.jsonl

KEY=sk-TESTKEYdoNotLeak0123456789
unset GEMINI_API_KEY OPENAI_API_KEY RTK_LLM_API_KEY RTK_LLM_BASE_URL XDG_CONFIG_HOME
export HOME=$SERVER_DIR/home RTK_LLM_BASE_URL=http://127.0.0.1:$PORT/v1 RTK_LLM_API_KEY=$KEY
mkdir -p "$HOME"
export LC_ALL=C.UTF-8

# trace ID [FEEDBACK] [RESPONSE]: one trace as a JSON line; markers in ID choose the server's answer.
trace() {
	jq -cn --arg id "$1" --arg fb "${2:-}" --arg resp "${3:-done}" \
		'{task_id: $id, user_message: "fix the login bug", system_response: $resp,
		  user_feedback: (if $fb == "" then null else $fb end), tools_used: ["bash", "edit"],
		  tokens_used: 1200, model: "claude-x", duration_ms: 5300}'
}
# The last request the server recorded whose body mentions $1.
request_for() { jq -c --arg id "$1" 'select(.body.messages[1].content | split("\n")[0] | endswith(": " + $id))' "$REQUESTS" | tail -1; }
requests_count() { wc -l < "$REQUESTS"; }

# --- one trace, end to end: the request on the wire -------------------------------------------------
scratch
D=$SCRATCH
cd "$D"
LONG=$(python3 -c 'print("中" * 499 + "文字" + "x" * 50)')
jq -cn --arg resp "$LONG" --arg key "$KEY" '{task_id: "t1.mode=error.lesson=paths", user_message: "部署时用这个密钥 sk-abcdefghijklmnop1234 和 ghp_abcdefghijklmnopqrstuvwxyz0123456789",
	system_response: $resp, user_feedback: "不对，路径错了 https://x.io/a?token=abc123", tools_used: ["bash"], tokens_used: 900, model: "m", duration_ms: 42}' > t1.json
"$RTK" reflect --lang zh --json t1.json > out.json 2> err.txt
check "single ERROR trace exits 0" test $? -eq 0
conforms "single trace output conforms" out.json reflect
REQ=$(request_for t1.mode=error.lesson=paths)
check "request goes to BASE/chat/completions" test "$(jq -r .path <<<"$REQ")" = /v1/chat/completions
check "request carries the key as a bearer token" test "$(jq -r .authorization <<<"$REQ")" = "Bearer $KEY"
check "request asks for the default model's real id" test "$(jq -r .body.model <<<"$REQ")" = gemini-2.5-flash
check "request asks for JSON mode" test "$(jq -c .body.response_format <<<"$REQ")" = '{"type":"json_object"}'
check "with --lang zh the system prompt is the Chinese prompt file" test "$(jq -r '.body.messages[0].content' <<<"$REQ")" = "$(cat "$RTK_SRCDIR/data/prompts/reflect.zh.md")"
USER_MSG=$(jq -r '.body.messages[1].content' <<<"$REQ")
check "user message names the task" grep -qx '任务ID: t1.mode=error.lesson=paths' <<<"$USER_MSG"
RESP_LINE=$(grep '^系统回复（前500字）: ' <<<"$USER_MSG")
RESP_CUT=${RESP_LINE#系统回复（前500字）: }
check "system response cut to its first 500 characters" test "$RESP_CUT" = "$(python3 -c 'print("中" * 499 + "文")')"
check "the cut is valid UTF-8" python3 -c 'import sys; sys.argv[1].encode("utf-8")' "$RESP_CUT"
check "secrets in the trace are redacted before sending" grep -qF '用户消息: 部署时用这个密钥 [REDACTED:openai_key] 和 [REDACTED:github_token]' <<<"$USER_MSG"
check "URL credentials are redacted" grep -qF 'https://x.io/a?token=[REDACTED:url_credential]' <<<"$USER_MSG"
check "no raw secret reaches the server" bash -c "! grep -q 'sk-abcdefghijklmnop1234\|ghp_abcdef\|abc123' <<<'$USER_MSG'"
check "tools, tokens and duration are listed" grep -qzP '使用的工具: bash\n消耗tokens: 900\n耗时\(ms\): 42' <<<"$USER_MSG"

testing "verdict of the single trace" "jq -c '.results[0] | [.status, .verdict, .error]' '$D/out.json'" \
	'["reflected",{"type":"ERROR","outcome":"FAILURE","lesson":"Lesson paths","root_cause":"wrong_assumption","reusable_experience":"Check the assumption before acting on it."},null]\n'
check "ERROR goes to error_patterns.md" grep -qx '## Lesson paths' workspace/rules/experience/error_patterns.md
check "ERROR goes to error_log.jsonl" test "$(jq -r '[.task_id, .type, .root_cause] | join(" ")' workspace/memory/user/error_log.jsonl)" = "t1.mode=error.lesson=paths ERROR wrong_assumption"
check "every verdict goes to reflections.jsonl" test "$(jq -r '[.task_id, .model, .verdict.type, .error] | tostring' workspace/memory/user/reflections.jsonl)" = '["t1.mode=error.lesson=paths","gemini-2.5-flash","ERROR",null]'
check "ERROR does not touch preferences.md" test ! -e workspace/memory/user/preferences.md
cd - >/dev/null

# --- stdin, markdown, --lang en, --no-json-mode, config file and aliases -----------------------------
testing "the default prompt is the English one" \
	"$RTK reflect --dry-run --json input | jq -r '.parameters.lang, (.results[0].request.body.messages[0].content == \$p)' --rawfile p '$RTK_SRCDIR/data/prompts/reflect.en.md'" \
	"en\ntrue\n" "$(trace dflt)\n"
testing "a dry run without an API key says a real run needs one" \
	"RTK_LLM_API_KEY= GEMINI_API_KEY= OPENAI_API_KEY= $RTK reflect --dry-run input | grep -c 'No API key was found'" "1\n" "$(trace nokey)\n"
testing "stdin trace, markdown verdict" "$RTK reflect - --workspace ws | sed -n '5,7p'" \
	"## s1.mode=preference.lesson=shorter — PREFERENCE (PARTIAL)\n\nLesson shorter\n" "" "$(trace s1.mode=preference.lesson=shorter 'too long')\n"
testing "--lang en sends the English prompt and labels" \
	"$RTK reflect --lang en --no-json-mode --workspace ws - >/dev/null && jq -c 'select(.body.messages[1].content | startswith(\"Task ID: e1.mode=none\n\"))' '$REQUESTS' | tail -1 | jq -c '[(.body.messages[0].content | startswith(\"You review a task\")), (.body.messages[1].content | split(\"\n\") | .[0,3]), .body.response_format]'" \
	'[true,"Task ID: e1.mode=none","User feedback: none",null]\n' "" "$(trace e1.mode=none)\n"
testing "config file: base URL, alias table and --model" \
	"printf 'llm:\n  base_url: http://127.0.0.1:$PORT/v1/\n  model: fast\n  models:\n    fast: my-model-1\n' > c.yaml; RTK_LLM_BASE_URL= $RTK reflect --config c.yaml --json --workspace ws - | jq -c '.parameters | [.model, .model_id, .base_url, .config_file]'; grep -F 'ID: c1.mode=none\\n' '$REQUESTS' | tail -1 | jq -r .body.model" \
	"[\"fast\",\"my-model-1\",\"http://127.0.0.1:$PORT/v1\",\"c.yaml\"]\nmy-model-1\n" "" "$(trace c1.mode=none)\n"
testing "~/.config/rtk/config.yaml is read, flags win over it" \
	"mkdir -p h/.config/rtk; printf 'llm:\n  models:\n    gemini-flash: from-home-config\n' > h/.config/rtk/config.yaml; HOME=\$PWD/h $RTK reflect --json --workspace ws input | jq -r '.parameters.model_id'; HOME=\$PWD/h $RTK reflect --model other-id --json --workspace ws2 input | jq -r .parameters.model_id" \
	"from-home-config\nother-id\n" "$(trace h1.mode=none)\n"
testing "GEMINI_API_KEY is the fallback key, --api-key-file comes first" \
	"RTK_LLM_API_KEY= GEMINI_API_KEY=gem-key-1 $RTK reflect --workspace ws input >/dev/null; grep -F 'ID: k1.mode=none\\n' '$REQUESTS' | tail -1 | jq -r .authorization; echo file-key-2 > kf; $RTK reflect --api-key-file kf --workspace ws2 input >/dev/null; grep -F 'ID: k1.mode=none\\n' '$REQUESTS' | tail -1 | jq -r .authorization" \
	"Bearer gem-key-1\nBearer file-key-2\n" "$(trace k1.mode=none)\n"

testing "--secrets adds patterns; a credential in the base URL is shown redacted" \
	"printf 'extra_patterns:\n  - {name: ticket, regex: \"INTERNAL-[0-9]+\"}\n' > s.yaml; $RTK reflect --lang zh --secrets s.yaml --base-url 'http://127.0.0.1:$PORT/v1?key=abc' --dry-run --json input | jq -r '.parameters.base_url, (.results[0].request.body.messages[1].content | split(\"\n\")[1])'" \
	"http://127.0.0.1:$PORT/v1?key=[REDACTED:url_credential]\n用户消息: see [REDACTED:ticket] [REDACTED:openai_key]\n" \
	'{"task_id": "sx", "user_message": "see INTERNAL-4711 sk-abcdefghijklmnop1234", "system_response": "r"}\n'
testing "a bad config file is named with its line" "printf 'llm: [\n' > bad.yaml; $RTK reflect --config bad.yaml input 2>&1 | sed 's/:[0-9]*: .*/: .../'; echo \${PIPESTATUS[0]}" \
	"rtk reflect: bad.yaml:2: ...\n2\n" "$(trace x)\n"
testing "a misspelt config key is named with its line and the key meant" \
	"printf 'llm:\n  modle: fast\n' > typo.yaml; $RTK reflect --config typo.yaml input 2>&1; echo \$?" \
	"rtk reflect: typo.yaml:2:3: unknown key \`modle\` in \`llm\`: did you mean \`model\`?\n2\n" "$(trace x)\n"
testing "the config's own model names, api_key and rtk loop's agent are known keys" \
	"printf 'llm:\n  api_key: k\n  models:\n    mine: m-1\nloop:\n  agent: claude\n' > ok.yaml; $RTK reflect --config ok.yaml --model mine --dry-run --json input | jq -r .parameters.model_id" \
	"m-1\n" "$(trace x)\n"
testing "a misspelt key in --secrets is named" "printf 'extra_paterns: []\n' > s.yaml; $RTK reflect --secrets s.yaml input 2>&1; echo \$?" \
	"rtk reflect: s.yaml:1:1: unknown key \`extra_paterns\`: did you mean \`extra_patterns\`?\n2\n" "$(trace x)\n"
testing "a bad secret pattern is named" "printf 'patterns:\n  - {name: broken, regex: \"a(\"}\n' > s.yaml; $RTK reflect --secrets s.yaml input 2>&1 | cut -c1-60; echo \${PIPESTATUS[0]}" \
	"rtk reflect: s.yaml: secret pattern broken: bad regular expr\n2\n" "$(trace x)\n"
check "the sample trace conforms to trace.v1" "$RTK" validate --schema "$RTK_SRCDIR/schemas/trace.v1.schema.json" "$RTK_SRCDIR/data/samples/trace.json"

# --- --dry-run prints the request, the key masked, and sends nothing -----------------------------------
scratch
D=$SCRATCH
cd "$D"
trace d1.mode=error > d1.json
BEFORE=$(requests_count)
"$RTK" reflect --dry-run --json d1.json > out.json 2>err.txt
check "--dry-run exits 0" test $? -eq 0
conforms "--dry-run output conforms" out.json reflect
check "--dry-run sends nothing" test "$(requests_count)" -eq "$BEFORE"
check "--dry-run masks the key" test "$(jq -r '.results[0].request.headers.Authorization' out.json)" = "Bearer ****"
check "--dry-run shows the body" test "$(jq -r '.results[0].request.body.messages[1].content | split("\n")[0]' out.json)" = "Task ID: d1.mode=error"
check "--dry-run writes no workspace" test ! -e workspace
"$RTK" reflect --dry-run d1.json > out.md
check "--dry-run markdown holds the request, not the key" bash -c "grep -q 'Bearer \*\*\*\*' out.md && ! grep -q '$KEY' out.md"
cd - >/dev/null

# --- every failure gives the reflection_failed verdict with a reason ---------------------------------------
fails() { # NAME MODE EXPECTED-ERROR [OPTIONS]
	testing "failure: $1" \
		"$RTK reflect --json --workspace ws ${4:-} - > out.json; echo \$?; jq -c '.results[0] | [.status, .verdict.type, .verdict.outcome, .verdict.lesson, .error]' out.json; jq -c '[.verdict.lesson, .error]' ws/memory/user/reflections.jsonl" \
		"1\n[\"failed\",\"NONE\",\"SUCCESS\",\"reflection_failed\",\"$3\"]\n[\"reflection_failed\",\"$3\"]\n" "" "$(trace "f.mode=$2")\n"
}
fails "content without JSON" nojson "answer holds no JSON object"
fails "body not JSON" notjson_body "response is not JSON"
fails "error object" error_object "HTTP 400: API error (INVALID_ARGUMENT): API key not valid. Please pass a valid API key."
fails "error array" error_array "HTTP 400: API error (INVALID_ARGUMENT): Invalid JSON payload received."
fails "error object with HTTP 200" error_in_200 "API error: model overloaded"
fails "HTTP 500" http500 "HTTP 500: internal error"
fails "type outside the three" badtype 'answer has type \\"MAYBE\\", not ERROR, PREFERENCE or NONE'
fails "huge body" huge "response body larger than 4194304 bytes"
fails "429 until retries run out" always429 "HTTP 429: API error: quota exceeded (after 3 attempts)" "--retries 2"
fails "stalled server: the deadline fires" stall "timed out after 2 s (deadline)" "--timeout 2"
testing "connection refused" \
	"python3 -c 'import socket; s=socket.socket(); s.bind((\"127.0.0.1\",0)); print(s.getsockname()[1])' > p; $RTK reflect --base-url http://127.0.0.1:\$(cat p) --json --workspace ws - | jq -r '.results[0] | .error | test(\"onnect\")'; echo \${PIPESTATUS[0]}" \
	"true\n1\n" "" "$(trace r1)\n"
# The stalled server answers after 20 s: the deadline's error, not an answer, proves the stall was cut.
testing "a stall ends at the deadline: one attempt and the deadline's error, whatever --retries" \
	"$RTK reflect --timeout 1.5 --retries 3 --json --workspace ws - | jq -c '.results[0] | [.status, .attempts, .error]'" \
	'["failed",1,"timed out after 1.5 s (deadline)"]\n' "" "$(trace s.mode=stall)\n"

# --- answers that need work ------------------------------------------------------------------------------
answer() { # NAME MODE JQ EXPECTED
	testing "answer: $1" "$RTK reflect --json --workspace ws - | jq -c '.results[0] | $3'" "$4\n" "" "$(trace "a.mode=$2.lesson=x")\n"
}
answer "JSON inside prose and a code fence" prose '[.status, .verdict.type, .verdict.lesson]' '["reflected","ERROR","Lesson x"]'
answer "ERROR without a valid root cause is normalised" error_badcause '[.verdict.type, .verdict.root_cause, .verdict.normalised]' '["ERROR",null,true]'
answer "PREFERENCE never keeps a root cause" pref_with_cause '[.verdict.type, .verdict.root_cause, .verdict.normalised]' '["PREFERENCE",null,true]'
answer "a clean answer is not marked normalised" preference '[.verdict.type, .verdict.normalised]' '["PREFERENCE",null]'
answer "429 with Retry-After is retried" retry_after '[.status, .attempts, .elapsed_ms >= 900]' '["reflected",2,true]'
answer "503 with an HTTP-date Retry-After is retried" retry_date '[.status, .attempts]' '["reflected",2]'
answer "429 with a Gemini retryDelay is retried" gemini_delay '[.status, .attempts, .elapsed_ms >= 900]' '["reflected",2,true]'
testing "invalid UTF-8 in the answer is repaired, output stays valid JSON" \
	"$RTK reflect --json --workspace ws - > o.json; python3 -c 'import json,sys; d=json.load(open(\"o.json\", encoding=\"utf-8\")); print(d[\"results\"][0][\"verdict\"][\"lesson\"])'; python3 -c 'open(\"ws/memory/user/reflections.jsonl\", encoding=\"utf-8\").read()' && echo utf8-ok" \
	"bad\xef\xbf\xbd\xef\xbf\xbdbytes\nutf8-ok\n" "" "$(trace u.mode=badutf8)\n"

# --- routing of each type, and the same lesson recorded once --------------------------------------------------
scratch
D=$SCRATCH
cd "$D"
{ trace r.e1.mode=error.lesson=same; trace r.e2.mode=error.lesson=same; trace r.e3.mode=error.lesson=other
  trace r.p1.mode=preference.lesson=brief 'too long'; trace r.p2.mode=preference.lesson=brief 'still too long'
  trace r.n1.mode=none; trace r.f1.mode=http500; } > batch.jsonl
"$RTK" reflect --json --jobs 3 --batch batch.jsonl > out.json
check "a batch with one failure exits 1" test $? -eq 1
conforms "batch output conforms" out.json reflect
testing "batch summary" "jq -c .summary '$D/out.json'" \
	'{"traces":7,"reflected":6,"failed":1,"skipped":0,"invalid":0,"error":3,"preference":2,"none":1}\n'
testing "results keep the batch order and name the line" "jq -r '.results[] | .source + \" \" + .task_id' '$D/out.json' | sed -n '1p;7p'" \
	"batch.jsonl:1 r.e1.mode=error.lesson=same\nbatch.jsonl:7 r.f1.mode=http500\n"
check "the same ERROR lesson is written once" test "$(grep -c '^## ' workspace/rules/experience/error_patterns.md)" -eq 2
check "the same PREFERENCE lesson is written once" test "$(grep -c '^- Lesson brief (' workspace/memory/user/preferences.md)" -eq 1
check "error_log.jsonl has every ERROR" test "$(wc -l < workspace/memory/user/error_log.jsonl)" -eq 3
check "reflections.jsonl has every result, the failure too" test "$(jq -r .task_id workspace/memory/user/reflections.jsonl | sort | tr '\n' ' ')" = "r.e1.mode=error.lesson=same r.e2.mode=error.lesson=same r.e3.mode=error.lesson=other r.f1.mode=http500 r.n1.mode=none r.p1.mode=preference.lesson=brief r.p2.mode=preference.lesson=brief "
check "NONE and failures write no lesson" bash -c "! grep -rq 'r.n1\|r.f1' workspace/rules workspace/memory/user/preferences.md workspace/memory/user/error_log.jsonl"
BEFORE=$(requests_count)
"$RTK" reflect --json --batch batch.jsonl > again.json
check "a second batch run skips every task already reflected" test "$(jq -c '[.summary.skipped, .summary.reflected]' again.json)" = "[7,0]"
check "skipped traces are not sent" test "$(requests_count)" -eq "$BEFORE"
"$RTK" reflect --json --force --batch batch.jsonl > forced.json
check "--force reflects again" test "$(jq .summary.reflected forced.json)" -eq 6
check "--force still writes a lesson once" test "$(grep -c '^## ' workspace/rules/experience/error_patterns.md)" -eq 2
cd - >/dev/null

# --- spool: done/ and failed/ with the reason beside it ---------------------------------------------------------
scratch
D=$SCRATCH
cd "$D"
mkdir spool
trace sp1.mode=preference.lesson=spool > spool/a.json
trace sp2.mode=http500 > spool/b.json
echo '{"task_id": 7}' > spool/c.json
echo 'not json' > spool/d.json
echo 'ignored' > spool/notes.txt
"$RTK" reflect --json --spool spool > out.json
check "a spool with failures exits 1" test $? -eq 1
conforms "spool output conforms" out.json reflect
testing "spool results" "jq -c '.results[] | [.source, .status, .moved_to]' '$D/out.json'" \
	'["spool/a.json","reflected","spool/done/a.json"]\n["spool/b.json","failed","spool/failed/b.json"]\n["spool/c.json","invalid","spool/failed/c.json"]\n["spool/d.json","invalid","spool/failed/d.json"]\n'
check "handled files leave the spool" test "$(ls spool)" = "$(printf 'done\nfailed\nnotes.txt')"
testing "the reason sits beside each failed trace" "cat '$D'/spool/failed/*.error" \
	'HTTP 500: internal error\nspool/c.json: "task_id" must be a string\nspool/d.json: not valid JSON\n'
check "the failed trace itself is kept" cmp -s spool/failed/b.json <(trace sp2.mode=http500)
trace sp1.mode=preference.lesson=spool > spool/a.json
"$RTK" reflect --json --spool spool > again.json
testing "a trace already reflected is skipped and lands in done/ beside the first" \
	"jq -c '.results[] | [.status, .moved_to]' '$D/again.json'; ls '$D/spool/done'" \
	'["skipped","spool/done/a-1.json"]\na-1.json\na.json\n'
testing "claims stop short of the open-file limit; the rest waits in the spool" \
	"mkdir spool; for i in \$(seq 30); do echo '{\"task_id\":\"L'\$i'\",\"user_message\":\"u\",\"system_response\":\"r\"}' > spool/t\$i.json; done; (ulimit -n 20; $RTK reflect --dry-run --json --spool spool 2>&1 >out.json); jq -c .summary.traces out.json; ls spool | wc -l" \
	"rtk reflect: warning: spool: 25 files left for the next run (at most 5 a run with this open-file limit)\n5\n30\n"
testing "a FIFO and a symbolic link named *.json are set aside with a reason; the rest is handled (issue 15)" \
	"mkdir spool; echo hunter2-outside > outside.txt; ln -s \$PWD/outside.txt spool/a-link.json; mkfifo spool/b-fifo.json;
	 echo '{\"task_id\":\"F1\",\"user_message\":\"u\",\"system_response\":\"r\"}' > spool/c.json;
	 timeout $HANG_GUARD $RTK reflect --dry-run --json --spool spool 2>&1 >out.json; echo \$?; jq -c '[.summary.traces, (.results[] | .source)]' out.json;
	 cat spool/failed/*.error; grep -c hunter2 out.json" \
	"rtk reflect: warning: spool: 2 entries moved to failed/: not regular files\n0\n[1,\"spool/c.json\"]\nnot a regular file but a symbolic link: a spool item is a regular file\nnot a regular file but a FIFO: a spool item is a regular file\n0\n"
testing "an empty spool is fine" "mkdir spool; $RTK reflect --json --spool spool | jq -c .summary.traces; echo \${PIPESTATUS[0]}" "0\n0\n"
testing "a missing spool folder is an error" "$RTK reflect --spool nope 2>&1; echo \$?" "rtk reflect: nope: No such file or directory\n1\n"
cd - >/dev/null

# --- three spool runs at once share the files: each trace handled exactly once -----------------------------------
scratch
D=$SCRATCH
cd "$D"
mkdir spool
for i in $(seq 40); do trace "cs$i.mode=none.delay=0.05" > "spool/t$i.json"; done
pids=()
for p in 1 2 3; do "$RTK" reflect --json --jobs 2 --timeout "$HANG_GUARD" --spool spool > "out$p.json" & pids+=($!); done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
check "overlapping spool runs succeed" test $status -eq 0
check "every spool file is in done/ once" test "$(ls spool/done | wc -l)" -eq 40
check "each trace was reflected on by one run only" test "$(jq -r .task_id workspace/memory/user/reflections.jsonl | sort -u | wc -l) $(wc -l < workspace/memory/user/reflections.jsonl)" = "40 40"
check "the runs' results add up to 40" test "$(jq -s 'map(.summary.reflected) | add' out1.json out2.json out3.json)" -eq 40
cd - >/dev/null

# --- bad input ----------------------------------------------------------------------------------------------------
testing "no input names the forms" "$RTK reflect 2>&1; echo \$?" \
	"rtk reflect: give exactly one of TRACE.json, -, --batch FILE.jsonl or --spool DIR\n2\n"
testing "missing trace file" "$RTK reflect nope.json 2>&1; echo \$?" "rtk reflect: nope.json: No such file or directory\n1\n"
testing "trace without task_id" "$RTK reflect input 2>&1; echo \$?" "rtk reflect: input: no \"task_id\" member\n2\n" \
	'{"user_message": "x", "system_response": "y"}\n'
testing "trace that is not JSON" "$RTK reflect input 2>&1; echo \$?" "rtk reflect: input: not valid JSON\n2\n" '{"task_id": \n'
testing "bad feedback type" "$RTK reflect input 2>&1; echo \$?" "rtk reflect: input: \"user_feedback\" must be a string or null\n2\n" \
	'{"task_id": "a", "user_message": "x", "system_response": "y", "user_feedback": 3}\n'
testing "a bad batch line names it and nothing is sent" \
	"n=\$(wc -l < '$REQUESTS'); $RTK reflect --batch input 2>&1; echo \$?; test \$(wc -l < '$REQUESTS') -eq \$n && echo none-sent; test -e workspace || echo no-workspace" \
	"rtk reflect: input:2: \"tokens_used\" must be a number at least 0\n2\nnone-sent\nno-workspace\n" \
	"$(trace ok1)\n{\"task_id\":\"b\",\"user_message\":\"\",\"system_response\":\"\",\"tokens_used\":-1}\n"
for bad in "--lang fr" "--timeout 0" "--retries -1" "--jobs 0" "--jobs 1000"; do
	testing "rejects $bad" "$RTK reflect $bad input >/dev/null 2>&1; echo \$?" "2\n" "$(trace x)\n"
done
testing "both a file and --batch" "$RTK reflect --batch input input 2>&1 >/dev/null; echo \$?" \
	"rtk reflect: give exactly one of TRACE.json, -, --batch FILE.jsonl or --spool DIR\n2\n" "$(trace x)\n"

# --- the API key never reaches any output, file or message -----------------------------------------------------------
check "the key is in no workspace, spool, stdout or stderr file" bash -c "! grep -rlF -- '$KEY' '$SCRATCH_ROOT'"
check "the key is not in the config hash's input either (api_key_set only)" \
	bash -c "cd '$SCRATCH_ROOT' && printf 'llm:\n  api_key: $KEY-in-config\n' > kc.yaml && RTK_LLM_API_KEY= $RTK reflect --config kc.yaml --dry-run --json - <<<'$(trace kc1)' | jq -e '.parameters.api_key_set' >/dev/null && ! grep -rqF --exclude=kc.yaml -e '-in-config' ."

# --- 8 processes at once, 500 results each: 4000 whole lines, lessons once -------------------------------------------
scratch
D=$SCRATCH
cd "$D"
for p in $(seq 8); do
	python3 -c "
import json, sys
for i in range(500):
    print(json.dumps({'task_id': 'c%s-%d.mode=preference.lesson=L%d' % (sys.argv[1], i, i % 10), 'user_message': 'u', 'system_response': 'r'}))
" "$p" > "batch$p.jsonl"
done
pids=()
for p in $(seq 8); do "$RTK" reflect --json --jobs 4 --timeout "$HANG_GUARD" --batch "batch$p.jsonl" > "out$p.json" & pids+=($!); done
status=0
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
check "8 concurrent runs succeed" test $status -eq 0
check "reflections.jsonl holds 4000 lines" test "$(wc -l < workspace/memory/user/reflections.jsonl)" -eq 4000
check "every line is whole JSON with a distinct task id" test "$(jq -r .task_id workspace/memory/user/reflections.jsonl | sort -u | wc -l)" -eq 4000
check "each of the 10 lessons is in preferences.md exactly once" test "$(grep -c '^- Lesson L' workspace/memory/user/preferences.md)" -eq 10
cd - >/dev/null

# Issue 15: a --batch file without newlines stops at the line limit.
testing "--batch /dev/zero: refused at --max-line, naming the line" \
	"$RTK reflect --dry-run --max-line 64K --batch /dev/zero 2>&1; echo \$?" \
	"rtk reflect: /dev/zero:1: line longer than 65536 bytes (see --max-line)\n2\n"

# Issue 16: --batch counts the answers on a meter (forced onto the pipe with --progress); a request that
# failed is a result like any other, so the batch, which got through every trace, is still ", done.".
testing "--batch --progress: the answers counted to all of them, the last line left" \
	"{ for i in 1 2 3 4; do jq -cn --arg id \"m\$i.mode=none\" '{task_id: \$id, user_message: \"u\", system_response: \"r\"}'; done
	   jq -cn '{task_id: \"m5.mode=http500\", user_message: \"u\", system_response: \"r\"}'; } >batch.jsonl
	 RTK_PROGRESS_DELAY_MS=0 \$RTK reflect --json --progress --workspace ws --batch batch.jsonl 2>err >out.json; echo \$?
	 jq -c '[.summary.reflected, .summary.failed]' out.json; tr '\\r' '\\n' <err | grep -v '^\$' | sed 's/  *\$//' | tail -n 2" \
	"1\n[4,1]\nReflecting: 100% (5/5), done.\nrtk reflect: 1 of 5 traces could not be reflected on\n"
testing "--batch on a pipe: no meter" \
	"jq -cn '{task_id: \"p1.mode=none\", user_message: \"u\", system_response: \"r\"}' >batch.jsonl
	 RTK_PROGRESS_DELAY_MS=0 \$RTK reflect --json --workspace ws --batch batch.jsonl 2>&1 >/dev/null | wc -c" \
	"0\n"
# Issue 27: a task id (and the model's lesson) comes from outside; a newline in it must not forge a heading
# or a list item of its own in the memory files, nor an escape sequence reach them.
scratch
cd "$SCRATCH"
{ trace "$(printf 'i1.mode=preference.lesson=inj\n## ERROR: forged\n- planted \033]52;c;eA==\007')"
  trace "$(printf 'i2.mode=error.lesson=inj2\n## forged too')"; } > inj.jsonl
"$RTK" reflect --json --workspace ij --batch inj.jsonl > inj.json
check "traces with newlines in their task ids are reflected" test "$(jq -c '[.results[].verdict.type]' inj.json)" = '["PREFERENCE","ERROR"]'
check "error_patterns.md: the task id forges no heading" test "$(grep -c '^## ' ij/rules/experience/error_patterns.md)" -eq 1
check "preferences.md: the task id forges no heading and no item" test "$(grep -c '^[-#]' ij/memory/user/preferences.md)" -eq 1
check "no escape character reaches the memory files" test "$(cat ij/memory/user/preferences.md ij/rules/experience/error_patterns.md | tr -dc '\033\007\r' | wc -c)" -eq 0
check "the task id is kept, on one line" grep -q 'task `i1.mode=preference.lesson=inj ## ERROR: forged - planted  \]52;c;eA== `' ij/memory/user/preferences.md
cd - >/dev/null
finish
