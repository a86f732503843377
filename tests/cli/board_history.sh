#!/usr/bin/env bash
# tests/cli/board_history.sh — rtk board-history: importers on hand-written exports, windows, dedupe, verdicts, bad input, output contract.
. "$RTK_SRCDIR/tests/cli/lib.sh"

FX="$RTK_SRCDIR/tests/fixtures/board"
E="rtk board-history: input"

# task ID COMPLETED_AT [COMPLETION] / signal TASK AT KIND: one native record.
task() { printf '{"type":"task","id":"%s","completed_at":"%s","completion":"%s","source":"s"}\n' "$1" "$2" "${3:-completed}"; }
signal() { printf '{"type":"signal","task":"%s","at":"%s","kind":"%s"}\n' "$1" "$2" "$3"; }
# board N_TASKS N_WITH_SIGNAL: N tasks completed on 2026-01-01, the first K reopened 3 days later, as of 2026-06-01.
board() {
	local i
	for ((i = 0; i < $1; i++)); do task "t$i" 2026-01-01T00:00:00Z; done
	for ((i = 0; i < $2; i++)); do signal "t$i" 2026-01-04T00:00:00Z reopened; done
}
bh() { "$RTK" board-history --as-of 2026-06-01 "$@"; }
export -f bh

# --- strings from the board are escaped in markdown (issue 27, finding 18) --------------------------------
testing "a source with HTML, a pipe and a newline stays one escaped cell: no tag, no forged heading" \
	"printf '{\"type\":\"task\",\"id\":\"t1\",\"completed_at\":\"2026-01-01T00:00:00Z\",\"completion\":\"completed\",\"source\":\"<img src=x>|evil\\\\n# Verdict: PASS\"}\\n' > b.jsonl && bh b.jsonl | grep -A4 '^## By source' | tail -n 1 | cut -d' ' -f1-6" \
	'| \\<img src=x\\>\\|evil^J\\# Verdict: PASS |\n'

# --- gh-issues: a reopened issue with its timeline ----------------------------------------------
gh="$RTK board-history --json --from gh-issues --timeline $FX/gh-timeline.jsonl $FX/gh-issues.json"
testing "gh: tasks by completion; the issue closed last is still in its window" \
	"$gh | jq -c .tasks" '{"read":6,"completed":5,"not_planned":1,"duplicate":0,"window_open":1,"eligible":4}\n'
testing "gh: the reopened issue is anchored at its first close, not closedAt" \
	"$gh --emit-native n.jsonl >/dev/null; jq -r 'select(.id == \"acme/widget#1\") | .completed_at' n.jsonl" "2026-01-10T16:00:00Z\n"
testing "gh: reopen, cross-referencing bug and verified label become signals; a plain PR reference does not" \
	"$gh --emit-native n.jsonl >/dev/null; jq -r 'select(.type == \"signal\") | .task + \" \" + .kind' n.jsonl" \
	"acme/widget#1 reopened\nacme/widget#2 followup_bug\nacme/widget#7 verified\n"
testing "gh: rates" "$gh | jq -c '[.base_rate.tasks, .negative_rate.tasks, .positive_only, .base_rate.of]'" "[3,2,1,4]\n"
testing "gh: closing PRs and referencing commits become refs" \
	"$gh --emit-native n.jsonl >/dev/null; jq -c 'select(.id == \"acme/widget#2\") | .refs' n.jsonl" \
	'{"commits":["9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c"],"prs":["https://github.com/acme/widget/pull/11"]}\n'
testing "gh: without a timeline the report says reopen history is unknown" \
	"$RTK board-history --json --from gh-issues $FX/gh-issues.json | jq -r '.input.notes[0]' | cut -c1-60" \
	"no issue timeline given: reopen history is unknown, so an is\n"
testing "gh: without a timeline the reopened issue is anchored at closedAt" \
	"$RTK board-history --from gh-issues $FX/gh-issues.json --emit-native n.jsonl >/dev/null; jq -r 'select(.id == \"acme/widget#1\") | .completed_at' n.jsonl" \
	"2026-01-20T16:02:11Z\n"
testing "gh: a timeline event without its issue number is refused with its line" \
	"$RTK board-history --from gh-issues --timeline input $FX/gh-issues.json 2>&1 | cut -c1-62; echo \${PIPESTATUS[0]}" \
	"$E:1: event names no issue: add \"issue_n\n2\n" \
	'{"event":"reopened","created_at":"2026-01-15T09:05:00Z"}\n'
testing "gh: events for an issue missing from the list are refused" \
	"$RTK board-history --from gh-issues --timeline input $FX/gh-issues.json 2>&1 | sed 's|$FX/||'; echo \${PIPESTATUS[0]}" \
	"$E:1: events for issue #42, which is not in gh-issues.json\n2\n" \
	'{"event":"reopened","created_at":"2026-01-15T09:05:00Z","issue_number":42}\n'
testing "gh: a bad issue is named by the line its object starts on" \
	"$RTK board-history --from gh-issues input 2>&1; echo \$?" \
	"$E:5: issue #2 is closed but has no \"closedAt\"\n2\n" \
	'[\n {"number":1,"state":"OPEN"},\n\n\n {"number":2,\n  "state":"CLOSED"}\n]\n'
testing "gh: not an array" "$RTK board-history --from gh-issues input 2>&1; echo \$?" \
	"$E:1: not a JSON array of issues (gh issue list --json ...)\n2\n" '{"number":1}\n'

# --- jira: a changelog with a reopen and a linked bug --------------------------------------------
jira="$RTK board-history --json --from jira $FX/jira-search.json"
testing "jira: tasks; Won't Do is not planned, a done-category status without history counts" \
	"$jira | jq -c .tasks" '{"read":4,"completed":3,"not_planned":1,"duplicate":0,"window_open":1,"eligible":2}\n'
testing "jira: first completion anchors, reopen (status and resolution in one history) counted once, linked bug dated by its creation" \
	"$jira --emit-native n.jsonl >/dev/null; jq -r '[.type, .id // .task, .completed_at // .at, .kind // .completion] | join(\" \")' n.jsonl | head -4" \
	"task SHOP-1 2026-01-05T16:20:00Z completed\nsignal SHOP-1 2026-01-09T08:45:00Z reopened\nsignal SHOP-1 2026-01-14T11:00:00Z followup_bug\ntask SHOP-2 2026-01-06T09:00:00Z not_planned\n"
testing "jira: rates and sources" "$jira | jq -c '[.base_rate.tasks, .negative_rate.tasks, .by_source[0].source]'" '[1,1,"jira:SHOP"]\n'
testing "jira: not search results" "$RTK board-history --from jira input 2>&1; echo \$?" \
	"$E:1: not Jira search results: no \"issues\" array\n2\n" '[]\n'
testing "jira: invalid JSON names line and column" "$RTK board-history --from jira input 2>&1; echo \$?" \
	"$E:2: not valid JSON (column 11): expected a value\n2\n" '{"issues":\n [{"key": }]}\n'

# --- git-data: task files done -> open -> done, a revert, in a real repository ---------------------
GD="$SCRATCH_ROOT/gitdata"
bash "$FX/../board-git-repo.sh" "$GD" >/dev/null
gd="$RTK board-history --json --from git-data"
testing "git-data: tasks by completion; other files and folders ignored" \
	"$gd $GD | jq -c .tasks" '{"read":4,"completed":3,"not_planned":1,"duplicate":0,"window_open":1,"eligible":2}\n'
testing "git-data: anchored at the first done; back to open is reopened; a revert of the completing commit is reverted" \
	"$gd $GD --emit-native n.jsonl >/dev/null; jq -r '[.type, .id // .task, .completed_at // .at, .kind // .completion] | join(\" \")' n.jsonl" \
	"task T-1 2026-01-03T00:00:01Z completed\nsignal T-1 2026-01-07T00:00:05Z reopened\ntask T-2 2026-01-04T00:00:02Z completed\nsignal T-2 2026-01-06T00:00:04Z reverted\ntask T-3 2026-01-05T00:00:03Z not_planned\ntask T-5 2026-02-10T00:00:07Z completed\n"
testing "git-data: the completing commit is a ref, the revert is the evidence" \
	"cd $GD && $gd --emit-native \$OLDPWD/n.jsonl >/dev/null && cd \$OLDPWD && jq -r 'select(.task == \"T-2\") | .evidence' n.jsonl | cut -c1-7; git -C $GD log --format=%h -1 --grep=Revert" \
	"$(git -C "$GD" log --format=%h -1 --grep=Revert)\n$(git -C "$GD" log --format=%h -1 --grep=Revert)\n"
testing "git-data: --dir names another folder" "$gd --dir src $GD | jq -c '[.tasks.read, .by_source[0].source]'" '[1,"git-data:src"]\n'
testing "git-data: a shallow clone says where history is cut, as git-history does (issue 15)" \
	"git clone -q --depth 1 file://$GD s && $RTK board-history --from git-data s 2>&1 | sed 's/at [0-9a-f]*;/at SHA;/'; echo \${PIPESTATUS[0]}" \
	"rtk board-history: shallow clone: history is cut at SHA; run git fetch --unshallow\n2\n"
testing "git-data: a task file that cannot be parsed is named path@commit:line" \
	"cp -r $GD r && cd r && printf 'id: T-7\\nstatus: [open\\n' > data/tasks/T-7.yaml && git add -A && git -c user.name=a -c user.email=a@b commit -qm bad && $RTK board-history --from git-data 2>&1 | sed 's/@[0-9a-f]*/@SHA/'; echo \${PIPESTATUS[0]}" \
	"rtk board-history: data/tasks/T-7.yaml@SHA:3:1: did not find expected ',' or ']' while parsing a flow sequence\n2\n"
testing "git-data: a task file without an id" \
	"cp -r $GD r && cd r && printf 'status: done\\n' > data/tasks/T-8.yaml && git add -A && git -c user.name=a -c user.email=a@b commit -qm bad && $RTK board-history --from git-data 2>&1 | sed 's/@[0-9a-f]*/@SHA/'; echo \${PIPESTATUS[0]}" \
	"rtk board-history: data/tasks/T-8.yaml@SHA: no \"id\" (a string or a number)\n2\n"
testing "git-data: a markdown task file of CR-only lines has no front matter (it read before the text, found by fuzz_board_gitdata)" \
	"cp -r $GD r && cd r && printf -- '---\\rid: T-9\\rstatus: done\\r---\\r' > data/tasks/T-9.md && git add -A && git -c user.name=a -c user.email=a@b commit -qm bad && $RTK board-history --from git-data 2>&1 | sed 's/@[0-9a-f]*/@SHA/'; echo \${PIPESTATUS[0]}" \
	"rtk board-history: data/tasks/T-9.md@SHA:1: no front matter (a first line --- and a closing ---)\n2\n"
testing "git-data: --skip-invalid counts bad task files" \
	"cp -r $GD r && cd r && printf 'status: done\\n' > data/tasks/T-8.yaml && git add -A && git -c user.name=a -c user.email=a@b commit -qm bad && $RTK board-history --json --skip-invalid --from git-data | jq -c '[.input.skipped_invalid, .tasks.read]'" \
	"[1,4]\n"
testing "git-data: not a repository exits 2" "mkdir plain; $RTK board-history --from git-data plain 2>&1; echo \$?" \
	"rtk board-history: not a git repository: plain\n2\n"
$gd "$GD" > "$SCRATCH_ROOT/gd.json"
conforms "git-data output conforms to rtk.board-history.v1" "$SCRATCH_ROOT/gd.json" board-history

# --- native: the window, at its boundaries -------------------------------------------------------
testing "a task completed exactly --within before as-of is eligible; a second later is still open" \
	"bh --json input | jq -c '[.tasks.eligible, .tasks.window_open]'" "[1,1]\n" \
	"$(task a 2026-05-02T00:00:00Z)\n$(task b 2026-05-02T00:00:01Z)\n"
testing "a signal exactly --within after completion counts; a second later does not; one before completion does not" \
	"bh --json input | jq -c '[.base_rate.tasks, .signals.after_window, .signals.before_completion]'" "[1,1,1]\n" \
	"$(task a 2026-01-01T00:00:00Z)\n$(task b 2026-01-01T00:00:00Z)\n$(signal a 2026-01-31T00:00:00Z reopened)\n$(signal b 2026-01-31T00:00:01Z reopened)\n$(signal b 2025-12-31T23:59:59Z reopened)\n"
testing "--within changes the window" \
	"bh --json --within 7d input | jq -c '[.base_rate.tasks, .signals.after_window, .verdict.thresholds.within_days]'" "[0,1,7]\n" \
	"$(task a 2026-01-01)\n$(signal a 2026-01-09 reopened)\n"
testing "--within 1mo is 30 days" \
	"bh --json --within 1mo input | jq -c '[.parameters.within_seconds, .verdict.thresholds.within_days]'" "[2592000,30]\n" \
	"$(task a 2026-01-01)\n"
testing "as-of defaults to the latest time in the data" \
	"$RTK board-history --json input | jq -c '[.as_of, .parameters.as_of_from, .tasks.window_open]'" \
	'["2026-02-15T00:00:00Z","latest in the data",1]\n' \
	"$(task a 2026-01-01)\n$(task b 2026-02-01)\n$(signal b 2026-02-15 verified)\n"
testing "--as-of now uses the clock (SOURCE_DATE_EPOCH here)" \
	"$RTK board-history --json --as-of now input | jq -r .as_of" "2023-11-14T22:13:20Z\n" "$(task a 2023-01-01)\n"
testing "offsets are honoured" "bh --json input | jq -c '[.base_rate.tasks]'" "[1]\n" \
	"$(task a 2026-01-01T00:00:00+02:00)\n$(signal a 2025-12-31T23:00:00Z reopened)\n"

# --- dedupe and outcomes ------------------------------------------------------------------------
testing "signals are deduplicated per task and kind" \
	"bh --json input | jq -c '[.signals.read, .signals.in_window, .signals.duplicates, (.by_kind[] | select(.tasks > 0) | [.kind, .tasks])]'" \
	'[4,2,2,["reopened",1],["ci_passed",1]]\n' \
	"$(task a 2026-01-01)\n$(signal a 2026-01-02 reopened)\n$(signal a 2026-01-03 reopened)\n$(signal a 2026-01-04 ci_passed)\n$(signal a 2026-01-02 reopened)\n"
testing "median time to first signal uses each task's earliest signal" \
	"bh --json input | jq -c '.time_to_first_signal'" '{"tasks":2,"median_seconds":345600,"median_days":4,"delays":[[172800,1],[518400,1]]}\n' \
	"$(task a 2026-01-01)\n$(task b 2026-01-01)\n$(signal a 2026-01-05 ci_failed)\n$(signal a 2026-01-03 verified)\n$(signal b 2026-01-07 incident)\n"
testing "--emit-outcomes: negative is wrong, positive only is right, no signal or open window is absent" \
	"bh --emit-outcomes out.jsonl input >/dev/null; cat out.jsonl" '{"id":"a","correct":false}\n{"id":"b","correct":true}\n' \
	"$(task a 2026-01-01)\n$(task b 2026-01-01)\n$(task c 2026-01-01)\n$(task d 2026-05-30)\n$(signal a 2026-01-02 verified)\n$(signal a 2026-01-03 rollback)\n$(signal b 2026-01-02 ci_passed)\n$(signal d 2026-05-31 reverted)\n"
testing "outcomes feed rtk calibrate once joined with confidence" \
	"bh --emit-outcomes out.jsonl input >/dev/null; jq -c '{confidence: (if .correct then 0.9 else 0.2 end), correct}' out.jsonl | $RTK calibrate --json | jq .input.rows" \
	"2\n" "$(task a 2026-01-01)\n$(task b 2026-01-01)\n$(signal a 2026-01-02 verified)\n$(signal b 2026-01-02 reverted)\n"
testing "not_planned and duplicate tasks are reported, never counted" \
	"bh --json input | jq -c '[.tasks.not_planned, .tasks.duplicate, .tasks.eligible, .base_rate.tasks]'" "[1,1,1,0]\n" \
	"$(task a 2026-01-01 not_planned)\n$(task b 2026-01-01 duplicate)\n$(task c 2026-01-01)\n$(signal a 2026-01-02 reopened)\n"
testing "a signal may come before its task" "bh --json input | jq -c '.base_rate.tasks'" "1\n" \
	"$(signal a 2026-01-02 reopened)\n$(task a 2026-01-01)\n"
testing "--emit-native round-trips" \
	"bh --json --emit-native n.jsonl input > a.json; bh --json n.jsonl > b.json; jq -c '[.tasks, .signals, .base_rate]' a.json | cmp - <(jq -c '[.tasks, .signals, .base_rate]' b.json) && wc -l < n.jsonl" \
	"3\n" "$(task a 2026-01-01)\n$(signal a 2026-01-02 reopened)\n$(task b 2026-01-01)\n"

# --- verdicts -----------------------------------------------------------------------------------
board 29 29 > "$SCRATCH_ROOT/few.jsonl"
board 30 0 > "$SCRATCH_ROOT/none.jsonl"
board 100 10 > "$SCRATCH_ROOT/rare.jsonl"
board 30 3 > "$SCRATCH_ROOT/some.jsonl"
testing "below 30 eligible tasks is INCONCLUSIVE, even with every task signalled" \
	"bh --json $SCRATCH_ROOT/few.jsonl | jq -r '.verdict.status + \": \" + .verdict.reason'" \
	"INCONCLUSIVE: only 29 eligible completed tasks, 30 needed\n"
testing "0 of 30: upper bound 0.114 < 0.20 is KILL" "bh --json $SCRATCH_ROOT/none.jsonl | jq -r '[.verdict.status, (.base_rate.ci[1] * 1000 | round)] | join(\" \")'" "KILL 114\n"
testing "10 of 100: upper bound 0.174 < 0.20 is KILL" "bh --json $SCRATCH_ROOT/rare.jsonl | jq -r '[.verdict.status, (.base_rate.ci[1] * 1000 | round)] | join(\" \")'" "KILL 174\n"
testing "3 of 30: upper bound 0.256 is PASS" "bh --json $SCRATCH_ROOT/some.jsonl | jq -r '[.verdict.status, (.base_rate.ci[1] * 1000 | round)] | join(\" \")'" "PASS 256\n"
testing "--kill-below moves the line" "bh --json --kill-below 0.26 $SCRATCH_ROOT/some.jsonl | jq -r .verdict.status" "KILL\n"
testing "--min-tasks moves the floor" "bh --json --min-tasks 29 $SCRATCH_ROOT/few.jsonl | jq -r .verdict.status" "PASS\n"
testing "--fail-on-kill exits 3 on KILL" "bh --fail-on-kill $SCRATCH_ROOT/none.jsonl >/dev/null; echo \$?" "3\n"
testing "--fail-on-kill exits 0 on INCONCLUSIVE" "bh --fail-on-kill $SCRATCH_ROOT/few.jsonl >/dev/null; echo \$?" "0\n"
testing "KILL without --fail-on-kill exits 0" "bh $SCRATCH_ROOT/none.jsonl >/dev/null; echo \$?" "0\n"
testing "--config overrides the shipped rules" \
	"printf 'verdict:\n  kill_below: 0.3\n' > c.yaml; bh --json --config c.yaml $SCRATCH_ROOT/some.jsonl | jq -c '[.verdict.status, .verdict.thresholds.kill_below]'" \
	'["KILL",0.3]\n'
testing "a misspelt --config key is an error naming its line, not the default" \
	"printf 'verdict:\n  kill_belwo: 0.3\n' > c.yaml; bh --config c.yaml $SCRATCH_ROOT/some.jsonl 2>&1; echo \$?" \
	"rtk board-history: c.yaml:2:3: unknown key \`kill_belwo\` in \`verdict\`: did you mean \`kill_below\`?\n2\n"
testing "a --config window without a unit is refused, quoted or not" \
	"for w in 30 '\"30\"'; do printf 'window: %s\n' \"\$w\" > c.yaml; bh --config c.yaml $SCRATCH_ROOT/some.jsonl 2>&1; echo \$?; done" \
	"rtk board-history: window 30: invalid duration \"30\": missing unit after a number; units: s, min, h, d, w, mo (30 days), y (365 days)\n2\n\
rtk board-history: window 30: invalid duration \"30\": missing unit after a number; units: s, min, h, d, w, mo (30 days), y (365 days)\n2\n"
a=$(bh --json "$SCRATCH_ROOT/some.jsonl" | jq -r .verdict.config_sha256)
b=$(bh --json "$SCRATCH_ROOT/none.jsonl" | jq -r .verdict.config_sha256)
c=$(bh --json --kill-below 0.25 "$SCRATCH_ROOT/some.jsonl" | jq -r .verdict.config_sha256)
check "config_sha256 depends on the rules, not the data" test "$a" = "$b" -a "$a" != "$c" -a ${#a} -eq 64
testing "markdown leads with the verdict" "bh $SCRATCH_ROOT/some.jsonl | sed -n 3p | cut -c1-17" "**Verdict: PASS**\n"

# --- bad input: FILE:LINE and exit 2, or counted with --skip-invalid ------------------------------
t1=$(task a 2026-01-01)
testing "unknown format" "$RTK board-history --from trello input 2>&1; echo \$?" \
	"rtk board-history: --from must be native, gh-issues, jira or git-data, not 'trello'\n2\n" "$t1\n"
testing "not JSON" "bh input 2>&1; echo \$?" "$E:2: not a valid JSON object: expected a member name (column 2)\n2\n" "$t1\n{bad\n"
testing "unknown record type" "bh input 2>&1; echo \$?" "$E:1: unknown record type \"issue\", not \"task\" or \"signal\"\n2\n" '{"type":"issue"}\n'
testing "task without id" "bh input 2>&1; echo \$?" "$E:1: no \"id\" member\n2\n" '{"type":"task","completed_at":"2026-01-01"}\n'
testing "task without time" "bh input 2>&1; echo \$?" "$E:2: no \"completed_at\" member\n2\n" "$t1\n"'{"type":"task","id":"b"}\n'
testing "signal without time" "bh input 2>&1; echo \$?" "$E:2: no \"at\" member\n2\n" "$t1\n"'{"type":"signal","task":"a","kind":"reopened"}\n'
testing "unparsable date" "bh input 2>&1; echo \$?" \
	"$E:1: \"completed_at\": invalid time \"2026-02-30\": no such day in that month\n2\n" '{"type":"task","id":"a","completed_at":"2026-02-30"}\n'
testing "signal for an unknown task names its line" "bh input 2>&1; echo \$?" "$E:2: signal for unknown task zz\n2\n" \
	"$t1\n$(signal zz 2026-01-02 reopened)\n"
testing "unknown kind" "bh input 2>&1 | cut -c1-60; echo \${PIPESTATUS[0]}" "$E:2: \"kind\" is \"flaky\", not reopened,\n2\n" \
	"$t1\n$(signal a 2026-01-02 flaky)\n"
testing "polarity that contradicts the kind" "bh input 2>&1; echo \$?" \
	"$E:1: \"polarity\" is \"pos\", but a reverted signal is neg\n2\n" \
	'{"type":"signal","task":"a","at":"2026-01-02","kind":"reverted","polarity":"pos"}\n'
testing "a task listed twice" "bh input 2>&1; echo \$?" "$E:2: task a is listed twice\n2\n" "$t1\n$t1\n"
testing "bad input leaves no --emit-native or --emit-outcomes file" \
	"bh --emit-native n.jsonl --emit-outcomes o.jsonl input 2>/dev/null; ls" "input\n" "$t1\n{bad\n"
testing "--skip-invalid counts what it skips, unknown tasks included" \
	"bh --json --skip-invalid input | jq -c '[.input.skipped_invalid, .input.first_skipped, .tasks.read, .signals.read, .signals.unknown_task_skipped]'" \
	'[3,"input:2: not a valid JSON object: expected a member name (column 2)",1,1,1]\n' \
	"$t1\n{bad\n$(signal a 2026-01-02 reopened)\n{\"type\":\"task\",\"id\":\"b\",\"completed_at\":\"x\"}\n$(signal zz 2026-01-02 reopened)\n"
testing "a missing file exits 1" "bh nope.jsonl 2>&1; echo \$?" "rtk board-history: nope.jsonl: No such file or directory\n1\n"
for bad in "--kill-below 1.5" "--min-tasks 0" "--within 0d" "--within 3m" "--within 30" "--as-of yesterday" "--timeline x"; do
	testing "rejects $bad" "bh $bad input >/dev/null 2>&1; echo \$?" "2\n" "$t1\n"
done

# --- the output contract ------------------------------------------------------------------------
$gh > "$SCRATCH_ROOT/gh.json"
conforms "gh-issues output conforms to rtk.board-history.v1" "$SCRATCH_ROOT/gh.json" board-history
$jira > "$SCRATCH_ROOT/jira.json"
conforms "jira output conforms to rtk.board-history.v1" "$SCRATCH_ROOT/jira.json" board-history
printf '\n' | "$RTK" board-history --json > "$SCRATCH_ROOT/empty.json"
conforms "empty-input output (nulls) conforms to rtk.board-history.v1" "$SCRATCH_ROOT/empty.json" board-history
bh --json --skip-invalid - <<<'{bad' > "$SCRATCH_ROOT/skip.json"
conforms "--skip-invalid output conforms to rtk.board-history.v1" "$SCRATCH_ROOT/skip.json" board-history
$gh --emit-native "$SCRATCH_ROOT/native.jsonl" > /dev/null
$jira --emit-native "$SCRATCH_ROOT/native-jira.jsonl" > /dev/null
native_ok() {
	/usr/bin/python3 - "$RTK_SRCDIR/schemas/board.v1.schema.json" "$@" <<'PY'
import json, sys
import jsonschema
v = jsonschema.Draft202012Validator(json.load(open(sys.argv[1])))
bad = [(f, i) for f in sys.argv[2:] for i, l in enumerate(open(f), 1) if list(v.iter_errors(json.loads(l)))]
print(bad[:3]) if bad else None
sys.exit(1 if bad else 0)
PY
}
check "--emit-native output conforms to board.v1 line by line" native_ok "$SCRATCH_ROOT/native.jsonl" "$SCRATCH_ROOT/native-jira.jsonl"
check "the sample board conforms to board.v1" native_ok "$RTK_SRCDIR/data/samples/board.jsonl"
testing "JSON carries schema and a reproducible time" "bh --json input | jq -c '[.schema, .generated_at]'" \
	'["rtk.board-history.v1","2023-11-14T22:13:20Z"]\n' "$t1\n"
# Issue 15: inputs without newlines stop at the line limit.
testing "/dev/zero: refused at --max-line, naming the line" "$RTK board-history --max-line 64K /dev/zero 2>&1; echo \$?" \
	"rtk board-history: /dev/zero:1: line longer than 65536 bytes (see --max-line)\n2\n"
finish
