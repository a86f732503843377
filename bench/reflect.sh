#!/usr/bin/env bash
# bench/reflect.sh — `rtk reflect --batch` wall time with --jobs N against a local server answering after 200 ms.
#
# Usage: bench/reflect.sh          (RTK=/path/to/rtk to measure another binary; default ./rtk at the repo top)
#   TRACES=200 DELAY=0.2 JOBS="4 8 16" RUNS=5   traces per batch, server delay, --jobs values, timed runs each
# The server is tests/servers/llm_server.py (python3 http.server, one thread per connection) on 127.0.0.1.
# The ideal wall time is TRACES x DELAY / N; the target is within 1.25x of it.
# Writes bench/out/reflect/results.md, the table for RESULTS.md.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

TRACES=${TRACES:-200}
DELAY=${DELAY:-0.2}
JOBS=${JOBS:-4 8 16}
RUNS=${RUNS:-5}
D="$OUT/reflect"
rm -rf "$D"
mkdir -p "$D"

need_pkgs time python3

python3 "$TOP/tests/servers/llm_server.py" --port-file "$D/port" --log "$D/requests.jsonl" --delay "$DELAY" &
SERVER=$!
trap 'kill $SERVER 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$D/port" ] && break; sleep 0.05; done
PORT=$(cat "$D/port")

python3 - "$TRACES" > "$D/batch.jsonl" <<'PY'
import json, sys
for i in range(int(sys.argv[1])):
    kind = ("error", "preference", "none")[i % 3]
    print(json.dumps({"task_id": "bench-%d.mode=%s.lesson=L%d" % (i, kind, i), "user_message": "请修复登录页面的错误",
                      "system_response": "已修改 src/login.c 第 42 行。" * 40, "user_feedback": None,
                      "tools_used": ["bash", "edit"], "tokens_used": 1800, "model": "agent", "duration_ms": 5400},
                     ensure_ascii=False))
PY

export RTK_LLM_BASE_URL=http://127.0.0.1:$PORT/v1 RTK_LLM_API_KEY=bench-key HOME=$D
{
	echo "| --jobs | ideal (s) | median wall (s) | runs (s) | ratio to ideal | peak RSS (KiB) |"
	echo "| ---: | ---: | ---: | --- | ---: | ---: |"
} > "$D/results.md"
for n in $JOBS; do
	times=() rss=()
	for r in $(seq "$RUNS"); do
		ws="$D/ws-$n-$r"
		/usr/bin/time -f '%e %M' -o "$D/time" "$RTK" reflect --json --jobs "$n" --workspace "$ws" --batch "$D/batch.jsonl" > "$D/out.json"
		read -r t m < "$D/time"
		got=$(grep -c '"status":	"reflected"' "$D/out.json" || true)
		[ "$got" -eq "$TRACES" ] || { echo "bench: run with --jobs $n reflected $got of $TRACES" >&2; exit 1; }
		times+=("$t") rss+=("$m")
		rm -rf "$ws"
	done
	ideal=$(awk -v n="$n" -v t="$TRACES" -v d="$DELAY" 'BEGIN { printf "%.2f", t * d / n }')
	med=$(median "${times[@]}")
	ratio=$(awk -v m="$med" -v i="$ideal" 'BEGIN { printf "%.3f", m / i }')
	echo "| $n | $ideal | $med | ${times[*]} | $ratio | $(max "${rss[@]}") |" >> "$D/results.md"
	echo "reflect: --jobs $n: median $med s, ideal $ideal s, ratio $ratio" >&2
done
{
	echo
	echo "Command: \`rtk reflect --json --jobs N --workspace WS --batch batch.jsonl\` ($TRACES traces, a fresh workspace"
	echo "each run), server \`tests/servers/llm_server.py --delay $DELAY\` on 127.0.0.1, $RUNS runs each."
	echo
	machine_info
} >> "$D/results.md"
cat "$D/results.md"
