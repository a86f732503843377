#!/usr/bin/env bash
# tests/cli/iterate.sh — rtk iterate on a real repository with two tiny scripted agents: one milestone from ready to completed, status, usage errors.
. "$(dirname "$0")/lib.sh"
. "$RTK_SRCDIR/tests/fixtures/gitrepo.sh"

scratch
P=$SCRATCH/p
mkdir -p "$P/.anima/milestones" "$P/.anima/memory"
git -C "$P" init -q -b main && echo hi > "$P/README" && git -C "$P" add README && git -C "$P" commit -qm init
# The Developer commits one feature per round, then says it is done; the Acceptor accepts everything.
cat > "$SCRATCH/dev.sh" <<'AGENT'
n=$(git rev-list --count HEAD)
if [ "$n" -ge 3 ]; then echo ALL_FEATURES_COMPLETE; echo "two features"; exit 0; fi
echo "f$n" > "f$n.txt" && git add "f$n.txt" && git commit -qm "feat: f$n"
printf 'Feature: f%s\nCommit: %s\nTests: none\nConfidence: 0.9\n' "$n" "$(git rev-parse HEAD)"
AGENT
echo 'cat >/dev/null; echo ACCEPTED' > "$SCRATCH/acc.sh"
cat > "$P/.anima/config.json" <<JSON
{"wake_schedule": {"mode": "manual"}, "developer_command": "sh $SCRATCH/dev.sh", "acceptor_command": "sh $SCRATCH/acc.sh"}
JSON
echo '["M0", "M1"]' > "$P/.anima/milestones/order.json"
echo '{"status": "draft"}' > "$P/.anima/milestones/M0.json"
echo '{"status": "ready"}' > "$P/.anima/milestones/M1.json"
printf '# M1\n## Features\n- f1\n- f2\n## Acceptance Criteria\n- both files exist\n' > "$P/.anima/milestones/M1.md"

# exits NAME CODE CMD...: the command exits with CODE; its output is kept in $OUT and $ERR.
OUT=$SCRATCH/out.json ERR=$SCRATCH/err.txt
exits() {
	local name=$1 want=$2 got
	shift 2
	"$@" > "$OUT" 2> "$ERR"
	got=$?
	if [ "$got" = "$want" ]; then pass "$name"; else fail "$name" "exit $got, wanted $want" "$(cat "$ERR")"; fi
}

exits "check runs the ready milestone to completed" 0 "$RTK" iterate check --project "$P" --json
cp "$OUT" "$SCRATCH/check.json"
conforms "check's JSON conforms" "$SCRATCH/check.json" iterate
check "M1 is completed, M0 (draft) untouched" test "$(jq -r '[.projects[0].milestones[].status] | join(",")' "$SCRATCH/check.json")" = "draft,completed"
check "rounds: dev, acc, dev, acc, dev (complete), final" test "$(jq -r '[.projects[0].pass.rounds[] | .role + ":" + .verdict] | join(",")' "$SCRATCH/check.json")" = \
	"developer:report,acceptor:accepted,developer:report,acceptor:accepted,developer:complete,final:accepted"
check "the work is on milestone/M1, main did not move" test "$(git -C "$P" rev-list --count milestone/M1):$(git -C "$P" rev-list --count main)" = "3:1"
check "the project sleeps afterwards" test "$(jq -r .status "$P/.anima/state.json")" = sleeping
check "two outcomes, both correct" test "$(jq -c '[.correct, .confidence]' "$P/.anima/outcomes.jsonl" | tr -d '\n')" = "[true,0.9][true,0.9]"
exits "calibrate reads outcomes.jsonl as it is" 0 "$RTK" calibrate --json "$P/.anima/outcomes.jsonl"
exits "status conforms" 0 "$RTK" iterate status --project "$P" --json
conforms "status's JSON conforms" "$OUT" iterate
exits "an unknown command is a usage error" 2 "$RTK" iterate frobnicate --project "$P"
exits "a folder without .anima is a usage error naming it" 2 "$RTK" iterate status --project "$SCRATCH"
echo '{"status": "readyy"}' > "$P/.anima/milestones/M0.json"
echo '["M0", "M1", "M2"]' > "$P/.anima/milestones/order.json"
exits "a milestone file with a bad status is a usage error naming the file" 2 "$RTK" iterate check --project "$P"
check "the message names the file" grep -q "milestones/M0.json" "$ERR"
finish
