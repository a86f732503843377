#!/usr/bin/env bash
# tests/cli/progress.sh — --progress / --no-progress on real runs: nothing on a pipe or in a file, a line
# rewritten in place on a real terminal (a pseudo-terminal), nothing before the delay, stdout untouched.
. "$(dirname "$0")/lib.sh"
export RTK RTK_SRCDIR

# Inputs shared by the cases: a corpus of 300000 rows (~10 MB, more than a few 1 MiB reads) and a
# history of 400 commits.
big="$SCRATCH_ROOT/big.jsonl"
awk 'BEGIN { for (i = 0; i < 300000; i++) printf "{\"confidence\":%.4f,\"correct\":%s}\n", i * 7919 % 10000 / 10000, i % 3 ? "true" : "false" }' >"$big"
printf '{"type":"object","properties":{"confidence":{"type":"number"}}}\n' >"$SCRATCH_ROOT/schema.json"
repo="$SCRATCH_ROOT/repo"
git init -q -b main "$repo" && /usr/bin/python3 "$RTK_SRCDIR/bench/git_history_gen.py" 400 60 3 | git -C "$repo" fast-import --quiet
export big repo SCHEMA="$SCRATCH_ROOT/schema.json"

# on_pty OUT ERR COMMAND...: runs COMMAND with stdout into OUT and stderr on a pseudo-terminal (isatty is
# true), everything the terminal showed into ERR. The terminal turns "\n" into "\r\n", as a real one does.
on_pty() {
	/usr/bin/python3 - "$@" <<'PY'
import os, pty, subprocess, sys
out, err, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
master, slave = pty.openpty()
with open(out, "wb") as o:
    p = subprocess.Popen(cmd, stdout=o, stderr=slave, stdin=subprocess.DEVNULL)
os.close(slave)
seen = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:  # EIO: every writer closed the terminal
        break
    if not chunk:
        break
    seen += chunk
open(err, "wb").write(seen)
sys.exit(p.wait())
PY
}
export -f on_pty

# --- (1) not a terminal: nothing, unless --progress ------------------------------------------------
testing "stderr to a file: no progress" \
	"RTK_PROGRESS_DELAY_MS=0 \$RTK calibrate --json \$big 2>err >/dev/null; wc -c <err" "0\n"
testing "stderr to a pipe: no progress" \
	"RTK_PROGRESS_DELAY_MS=0 \$RTK validate --schema \$SCHEMA \$big 2>&1 >/dev/null | wc -c" "0\n"
testing "--progress into a file: lines rewritten with \\\\r, a last one ending ', done.'" \
	"RTK_PROGRESS_DELAY_MS=0 \$RTK calibrate --progress --json \$big 2>err >/dev/null
	 grep -c \$'\\r' err; [ \$(tr '\\r' '\\n' <err | grep -c '^Reading corpus: ') -ge 2 ] && echo several
	 tail -c 60 err | tr '\\r' '|' | sed 's/.*|//'" \
	"1\nseveral\nReading corpus: 100% (10.7 MiB/10.7 MiB), done.\n"
# stdout is the same byte for byte, with and without the meter.
for a in "calibrate --json $big" "validate --json --schema $SCHEMA $big" "git-history --json --window 3650d --repo $repo" \
	"calibrate $big"; do
	testing "stdout the same with --progress: rtk ${a%% *}" \
		"RTK_PROGRESS_DELAY_MS=0 \$RTK $a --progress 2>err >with; \$RTK $a 2>&1 >without; cmp with without && test -s err && echo same" \
		"same\n"
done
testing "--progress and --no-progress together are a usage error" \
	"\$RTK calibrate --progress --no-progress \$big 2>&1 >/dev/null; echo \$?" \
	"rtk calibrate: --progress and --no-progress contradict each other: pick one\nTry 'rtk calibrate --help' for more information.\n2\n"

# --- (2) a terminal: the line is shown by default, never with --no-progress -----------------------
testing "a terminal: the meter by default, the last line ending in a newline" \
	"RTK_PROGRESS_DELAY_MS=0 on_pty out err \$RTK validate --json --schema \$SCHEMA \$big
	 grep -c \$'\\r.' err; tail -c 7 err | cmp - <(printf 'done.\\r\\n') && echo newline; tr '\\r' '\\n' <err | grep -v '^\$' | tail -n 1 | sed 's/, [0-9.]* [KMG]*i*B\\/s//'" \
	"1\nnewline\nValidating: 100% (10.7 MiB/10.7 MiB), done.\n"
testing "a terminal with --no-progress: nothing" \
	"RTK_PROGRESS_DELAY_MS=0 on_pty out err \$RTK validate --no-progress --json --schema \$SCHEMA \$big; wc -c <err" "0\n"
testing "a terminal: stdout is still the result" \
	"RTK_PROGRESS_DELAY_MS=0 on_pty out err \$RTK calibrate --json \$big; \$RTK calibrate --json \$big | cmp - out && echo same" "same\n"

# --- (3) the delay: a run shorter than it prints nothing, even on a terminal ----------------------
# A run of two rows ends in a few milliseconds, a thousand times below the default 2 s, so no machine
# is too slow for it; with no delay the same run does draw its meter.
testing "a terminal, a run far shorter than the default 2 s delay: nothing (with no delay: the meter)" \
	"printf '{\"confidence\":0.5,\"correct\":true}\\n{\"confidence\":0.7,\"correct\":false}\\n' > tiny.jsonl
	 on_pty out err \$RTK calibrate tiny.jsonl; wc -c <err; RTK_PROGRESS_DELAY_MS=0 on_pty out err \$RTK calibrate tiny.jsonl; grep -c 'Reading corpus' err" \
	"0\n1\n"
testing "a terminal, a run shorter than the delay asked for: nothing" \
	"RTK_PROGRESS_DELAY_MS=3600000 on_pty out err \$RTK calibrate \$big; wc -c <err" "0\n"

# --- (4) real runs: counts that grow, each meter's last line left behind --------------------------
# The bytes a reader has read: every line drawn, in order, rises to the whole file.
testing "validate: the bytes read grow to the whole file" \
	"RTK_PROGRESS_DELAY_MS=0 \$RTK validate --progress --schema \$SCHEMA \$big 2>err >/dev/null
	 tr '\\r' '\\n' <err | sed -n 's/^Validating: *\\([0-9]*\\)% .*/\\1/p' | awk 'NR > 1 && \$1 < last { bad = 1 } { last = \$1; n++ }
	 END { print (bad ? \"shrank\" : \"grew\"), (n >= 2 ? \"several\" : \"one\"), last }'" \
	"grew several 100\n"
testing "git-history: commits walked and read, each meter's last line left" \
	"RTK_PROGRESS_DELAY_MS=0 \$RTK git-history --progress --window 3650d --repo \$repo 2>err >/dev/null
	 tr '\\r' '\\n' <err | grep -v '^\$' | grep -e ', done.' | sed 's/  *\$//'" \
	"Walking commits: 400, done.\nReading commits: 100% (400/400), done.\nBlaming fixes: 100% (14/14), done.\n"
# Blame is most of git-history's time on a long history (~6 s of ten years of git.git): its meter counts
# the window's fixes, as many as the report's fixes_matched, and rises to them.
testing "git-history: the blame meter counts the report's fixes" \
	"RTK_PROGRESS_DELAY_MS=0 \$RTK git-history --progress --json --window 3650d --repo \$repo 2>err >out
	 jq -r '.coverage.fixes_matched' out
	 tr '\\r' '\\n' <err | sed -n 's/^Blaming fixes: *[0-9]*% (\\([0-9]*\\)\\/\\([0-9]*\\)).*/\\1 \\2/p' |
	 awk 'NR > 1 && \$1 < last { bad = 1 } { last = \$1; total = \$2 } END { print (bad ? \"shrank\" : \"grew\"), last, total }'" \
	"14\ngrew 14 14\n"
testing "git-history: the walk counts up from its first commit" \
	"RTK_PROGRESS_DELAY_MS=0 \$RTK git-history --progress --window 3650d --repo \$repo 2>err >/dev/null; tr '\\r' '\\n' <err | head -n 1" \
	"Walking commits: 1\n"

# The execution loops' waits: an elapsed time while a step runs, on stderr; the result unchanged.
plan='envelope: {command: planner, status: OK}\nnew_plan:\n  unified_goal: "g"\n  steps:\n    - id: nap\n      commands:\n        - "sleep 0.3"\n'
# The seconds shown depend on the machine's speed: N stands for them.
testing "run-plan: the time a step has run, then its last line" \
	"bash \"\$RTK_SRCDIR/tests/fixtures/sandbox-project.sh\" project clean >/dev/null
	 RTK_PROGRESS_DELAY_MS=0 \$RTK run-plan --progress --project-root project --state-dir state --sandbox-root sb --latch latch --plan input --json 2>err >out
	 echo \$?; tr '\\r' '\\n' <err | grep -v '^\$' | sed -e 's/  *\$//' -e 's/: [0-9][0-9]*s/: Ns/' | uniq" \
	"0\nRunning step nap: Ns\nRunning step nap: Ns, done.\n" "$plan"
testing "run-plan on a pipe: no meter" \
	"bash \"\$RTK_SRCDIR/tests/fixtures/sandbox-project.sh\" project clean >/dev/null
	 RTK_PROGRESS_DELAY_MS=0 \$RTK run-plan --project-root project --state-dir state --sandbox-root sb --latch latch --plan input --json 2>&1 >out | wc -c" \
	"0\n" "$plan"

# stdin has no size: a count of bytes without a total, first of those read, then of those checked.
testing "validate on stdin: the bytes read, then the bytes checked, each rising to the whole input" \
	"RTK_PROGRESS_DELAY_MS=0 \$RTK validate --progress --schema \$SCHEMA - <\$big 2>err >/dev/null; echo \$?
	 tr '\\r' '\\n' <err | grep -v '^\$' | sed 's/, [0-9.]* [KMG]*i*B\\/s//' | grep ', done.'
	 tr '\\r' '\\n' <err | sed -n 's/^Validating: \\([0-9.]*\\) MiB.*/\\1/p' | awk 'NR > 1 && \$1 < last { bad = 1 } { last = \$1; n++ }
	 END { print (bad ? \"shrank\" : \"grew\"), (n >= 2 ? \"several\" : \"one\") }'" \
	"0\nReading stdin: 10.7 MiB, done.\nValidating: 10.7 MiB, done.\ngrew several\n"

# board-history's gh and Jira exports are one JSON document each: a count of the issues imported.
export FX="$RTK_SRCDIR/tests/fixtures/board"
testing "board-history --from gh-issues: the issues counted up to all of them" \
	"RTK_PROGRESS_DELAY_MS=0 \$RTK board-history --progress --json --from gh-issues \$FX/gh-issues.json 2>err >/dev/null
	 jq length \$FX/gh-issues.json; tr '\\r' '\\n' <err | grep -v '^\$' | sed 's/  *\$//' | sed -n '1p;\$p'" \
	"8\nReading issues: 1\nReading issues: 8, done.\n"
testing "board-history --from jira: the issues counted up to all of them" \
	"RTK_PROGRESS_DELAY_MS=0 \$RTK board-history --progress --json --from jira \$FX/jira-search.json 2>err >/dev/null
	 jq '.issues | length' \$FX/jira-search.json; tr '\\r' '\\n' <err | grep -v '^\$' | sed 's/  *\$//' | tail -n 1" \
	"5\nReading issues: 5, done.\n"

# --- (5) a run that fails part-way: its last line left as it stood, never ", done." ----------------
# git says "done" only of work that got done. A bad line halfway through the corpus (one reader, so the
# reading stops there): the count stops short of the whole file, and the error follows on its own line.
testing "calibrate failing halfway: the last line short of 100%, no ', done.', the error on its own line" \
	"{ head -n 150000 \$big; echo 'not json'; tail -n 150000 \$big; } >bad.jsonl
	 RTK_TEST_SHARES=1 RTK_PROGRESS_DELAY_MS=0 \$RTK calibrate --progress --json bad.jsonl 2>err >/dev/null; echo \$?
	 grep -c ', done' err; tr '\\r' '\\n' <err | grep -v '^\$' | tail -n 2 | sed 's/ *[0-9]*% (.*)\$/ N% (...)/'
	 tr '\\r' '\\n' <err | sed -n 's/^Reading corpus: *\\([0-9]*\\)%.*/\\1/p' | tail -n 1 | awk '{ print (\$1 < 100 ? \"short\" : \"whole\") }'" \
	"2\n0\nReading corpus: N% (...)\nrtk calibrate: bad.jsonl:150001: not a valid JSON object: expected '{' (column 1)\nshort\n"
testing "validate failing on a line that is not JSON: no ', done.'" \
	"{ cat \$big; echo 'not json'; } >bad.jsonl
	 RTK_PROGRESS_DELAY_MS=0 \$RTK validate --progress --schema \$SCHEMA bad.jsonl 2>err >/dev/null; echo \$?
	 tr '\\r' '\\n' <err | grep -q '^Validating: ' && echo shown; grep -c ', done' err" \
	"2\nshown\n0\n"
testing "validate finding invalid instances still finished its check: ', done.'" \
	"{ cat \$big; echo '{\"confidence\":\"high\"}'; } >invalid.jsonl
	 RTK_PROGRESS_DELAY_MS=0 \$RTK validate --progress --schema \$SCHEMA invalid.jsonl 2>err >/dev/null; echo \$?
	 tr '\\r' '\\n' <err | grep -c ', done.\$'" \
	"1\n1\n"
testing "validate on stdin failing on a line: read, ', done.'; checked, not" \
	"{ cat \$big; echo 'not json'; } | RTK_PROGRESS_DELAY_MS=0 \$RTK validate --progress --schema \$SCHEMA - 2>err >/dev/null; echo \$?
	 tr '\\r' '\\n' <err | grep -v '^\$' | sed 's/, [0-9.]* [KMG]*i*B\\/s//; s/  *\$//' | grep -e done -e '^rtk'
	 tr '\\r' '\\n' <err | grep -B1 '^rtk' | head -n 1 | sed 's/[0-9.]* MiB.*/N MiB/'" \
	"2\nReading stdin: 10.7 MiB, done.\nrtk validate: <stdin>:300001: not valid JSON (column 1): invalid literal\nValidating: N MiB\n"
testing "board-history --from gh-issues failing on the fourth issue: three counted, no ', done.'" \
	"jq '.[3].number = \"x\"' \$FX/gh-issues.json >bad.json
	 RTK_PROGRESS_DELAY_MS=0 \$RTK board-history --progress --json --from gh-issues bad.json 2>err >/dev/null; echo \$?
	 tr '\\r' '\\n' <err | grep -v '^\$' | sed 's/  *\$//' | tail -n 2 | cut -c1-40" \
	"2\nReading issues: 3\nrtk board-history: bad.json:60: issue wi\n"
plan_fails='envelope: {command: planner, status: OK}\nnew_plan:\n  unified_goal: "g"\n  steps:\n    - id: nap\n      commands:\n        - "sleep 0.3; exit 3"\n'
testing "run-plan: a step that fails leaves its time, not ', done.'" \
	"bash \"\$RTK_SRCDIR/tests/fixtures/sandbox-project.sh\" project clean >/dev/null
	 RTK_PROGRESS_DELAY_MS=0 \$RTK run-plan --progress --project-root project --state-dir state --sandbox-root sb --latch latch --plan input --json 2>err >out
	 echo \$?; tr '\\r' '\\n' <err | grep -v '^\$' | sed -e 's/  *\$//' -e 's/: [0-9][0-9]*s/: Ns/' | grep '^Running' | uniq" \
	"1\nRunning step nap: Ns\n" "$plan_fails"
finish
