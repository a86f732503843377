#!/usr/bin/env bash
# bench/merge.sh — `rtk merge` of 1,000 calibrate pieces and 1,000 board-history pieces: median time and peak memory.
#
# Usage: bench/merge.sh      (RTK=/path/to/rtk to measure another binary; default ./rtk at the repo top)
#   PIECES=1000 ROWS=500 TASKS=300 SEED=7   pieces, corpus rows per calibrate piece, tasks per board piece
#   RUNS=5                                  timed runs of each merge (the median is reported)
# Three sets: calibrate pieces on a confidence grid (--group-by agent, what one repository's outcomes
# look like), calibrate pieces with continuous confidences (every row its own value: the largest
# value_counts), and board-history pieces (native boards, the as-of time of each its own latest).
# Writes bench/out/merge/results.md, the table for RESULTS.md.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

PIECES=${PIECES:-1000}
ROWS=${ROWS:-500}
TASKS=${TASKS:-300}
SEED=${SEED:-7}
RUNS=${RUNS:-5}
D="$OUT/merge"
rm -rf "$D" && mkdir -p "$D/grid" "$D/cont" "$D/board"

need_pkgs time

# The inputs: one python3 process (standard library) writes every corpus and board.
GEN_CMD="$PY - $PIECES $ROWS $TASKS $SEED $D"
$GEN_CMD <<'PY'
import json, random, sys, time
pieces, rows, tasks, seed, out = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
rng = random.Random(seed)
kinds = ["reopened", "reverted", "followup_bug", "ci_failed", "incident", "rollback", "verified", "ci_passed"]
iso = lambda t: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))
for p in range(pieces):
    with open("%s/grid/%04d.jsonl" % (out, p), "w") as f, open("%s/cont/%04d.jsonl" % (out, p), "w") as g:
        for _ in range(rows):
            c = rng.choice([0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1.0])
            f.write(json.dumps({"confidence": c, "correct": rng.random() < c, "agent": rng.choice("abcd")}) + "\n")
            c = rng.random()
            g.write(json.dumps({"confidence": c, "correct": rng.random() < c}) + "\n")
    with open("%s/board/%04d.jsonl" % (out, p), "w") as f:
        for i in range(tasks):
            done = 1700000000 + rng.randrange(365 * 86400)
            f.write(json.dumps({"type": "task", "id": "R%d-%d" % (p, i), "completed_at": iso(done), "completion": "completed",
                                "source": "repo-%d" % (p % 50), "refs": {"commits": [], "prs": []}}) + "\n")
            for _ in range(rng.choice([0, 0, 1, 2])):
                k = rng.choice(kinds)
                f.write(json.dumps({"type": "signal", "task": "R%d-%d" % (p, i), "at": iso(done + rng.randrange(40 * 86400)),
                                    "kind": k, "polarity": "pos" if k in ("verified", "ci_passed") else "neg"}) + "\n")
PY
for p in "$D"/grid/*.jsonl; do "$RTK" calibrate --json --group-by agent "$p" > "${p%.jsonl}.json"; done
for p in "$D"/cont/*.jsonl; do "$RTK" calibrate --json "$p" > "${p%.jsonl}.json"; done
for p in "$D"/board/*.jsonl; do "$RTK" board-history --json "$p" > "${p%.jsonl}.json"; done

# The merged results must be the one-process results (generated_at aside): a fast wrong merge is no merge.
for set in grid cont board; do
	case $set in grid) one=(calibrate --group-by agent) ;; cont) one=(calibrate) ;; board) one=(board-history) ;; esac
	"$RTK" "${one[@]}" --json "$D/$set"/*.jsonl | grep -v '"generated_at"' > "$D/$set.one"
	"$RTK" merge --json "$D/$set"/*.json | grep -v '"generated_at"' > "$D/$set.merged"
	cmp -s "$D/$set.one" "$D/$set.merged" || { echo "bench: merged $set differs from one run" >&2; exit 1; }
done

# median N... — the middle value (the lower of the two middle ones for an even count).
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

{
	echo "Machine:"
	echo
	machine_info
	echo "- pieces: $PIECES per set, made by \`rtk calibrate --json\` / \`rtk board-history --json\` from inputs written by bench/merge.sh's generator (seed $SEED): $ROWS rows per corpus, $TASKS tasks per board"
	echo "- every merged result was checked equal to one \`rtk calibrate\` / \`rtk board-history\` run over all the pieces' inputs (generated_at aside)"
	echo
	echo "Commands:"
	echo
	echo '```sh'
	echo "$GEN_CMD   # the corpora and boards"
	echo "rtk calibrate --json --group-by agent grid/NNNN.jsonl > grid/NNNN.json; rtk calibrate --json cont/NNNN.jsonl > cont/NNNN.json; rtk board-history --json board/NNNN.jsonl > board/NNNN.json"
	echo "/usr/bin/time -f '%e %U %S %M' $RTK merge --json SET/*.json > /dev/null   # x$RUNS per set"
	echo '```'
	echo
	echo "| pieces | bytes of pieces | distinct values or open tasks in the result | median elapsed (s) | median user / sys (s) | peak RSS (KiB, largest of the runs) |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: |"
} > "$D/results.md"
for set in grid cont board; do
	el=() us=() sy=() rss=0
	for _ in $(seq "$RUNS"); do
		read -r e u s m < <(/usr/bin/time -f '%e %U %S %M' "$RTK" merge --json "$D/$set"/*.json 2>&1 >/dev/null | tail -1)
		el+=("$e") us+=("$u") sy+=("$s")
		[ "$m" -gt "$rss" ] && rss=$m
	done
	bytes=$(cat "$D/$set"/*.json | wc -c)
	case $set in
	grid) label="$PIECES calibrate pieces, 8 confidence values, --group-by agent" size=$(jq '.overall.value_counts | length' "$D/$set.merged") ;;
	cont) label="$PIECES calibrate pieces, continuous confidences" size=$(jq '.overall.value_counts | length' "$D/$set.merged") ;;
	board) label="$PIECES board-history pieces" size=$(jq '.merge_data.open_tasks | length' "$D/$set.merged") ;;
	esac
	echo "| $label | $bytes | $size | $(median "${el[@]}") | $(median "${us[@]}") / $(median "${sy[@]}") | $rss |" >> "$D/results.md"
	echo "Elapsed runs ($set): ${el[*]}" >> "$D/elapsed.txt"
done
echo >> "$D/results.md"
cat "$D/elapsed.txt" >> "$D/results.md"
cat "$D/results.md"
