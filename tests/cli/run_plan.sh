#!/usr/bin/env bash
# tests/cli/run_plan.sh — rtk run-plan on real projects and real processes: sandboxes, fail-fast, latch,
# blocker heuristics, timeouts, escapes, secrets, bwrap isolation, the re-plan loop, and every file's schema.
. "$(dirname "$0")/lib.sh"
export RTK RTK_SRCDIR

# A project and a place for everything run-plan writes, in the case's scratch folder:
#   project/  the project (tests/fixtures/sandbox-project.sh KIND)
#   state/    --state-dir     sb/  --sandbox-root     latch  --latch
setup_case() {
	bash "$RTK_SRCDIR/tests/fixtures/sandbox-project.sh" project "${1:-clean}" >/dev/null
}
rp() {
	"$RTK" run-plan --project-root project --state-dir state --sandbox-root sb --latch latch --plan plan.yaml "$@"
}
# step ID COMMAND... : one step of a plan (appended to plan.yaml after `plan`).
plan() {
	printf 'envelope: {command: planner, status: OK}\nnew_plan:\n  unified_goal: "%s"\n  steps:\n' "${1:-test goal}" > plan.yaml
}
step() {
	local id=$1 cmd
	shift
	printf '    - id: %s\n      commands:\n' "$id" >> plan.yaml
	for cmd in "$@"; do printf '        - %s\n' "$(jq -Rn --arg c "$cmd" '$c')" >> plan.yaml; done
}
export -f setup_case rp plan step

# yaml_conforms NAME FILE SCHEMA: a YAML file run-plan wrote, read by Debian's python3-yaml (timestamps
# kept as strings), conforms to schemas/SCHEMA.v1.schema.json by rtk's own validator.
yaml_conforms() {
	local name=$1 out
	if out=$(/usr/bin/python3 - "$2" <<'PY' > "$2.json" 2>&1 && "$RTK" validate --assert-format --all --ref-dir "$RTK_SRCDIR/schemas" --schema "$RTK_SRCDIR/schemas/$3.v1.schema.json" "$2.json" 2>&1
import json, sys, yaml
class Loader(yaml.SafeLoader):
    pass
Loader.yaml_implicit_resolvers = {k: [r for r in v if r[0] != "tag:yaml.org,2002:timestamp"]
                                  for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
print(json.dumps(yaml.load(open(sys.argv[1]), Loader=Loader)))
PY
	); then pass "$name"; else fail "$name" "$out"; fi
}

# --- a passing plan --------------------------------------------------------------------------------
scratch
(cd "$SCRATCH" && setup_case clean && plan "edit and check" &&
	step P-2 'grep -c changed README.md' && printf '      depends_on: [P-1]\n' >> plan.yaml &&
	step P-1 'echo changed >> README.md' 'printf "\\001\\002bin" > new.bin' 'echo to stderr >&2' &&
	rp --json > out.json; echo $? > rc)
check "a passing plan exits 0" test "$(cat "$SCRATCH/rc")" = 0
conforms "a passing run's JSON conforms" "$SCRATCH/out.json" run-plan
check "steps ran in dependency order" test "$(jq -c '[.steps[].id]' "$SCRATCH/out.json")" = '["P-1","P-2"]'
check "worktree mode on a clean repository" test "$(jq -r .sandbox.mode "$SCRATCH/out.json")" = worktree
run_dir=$SCRATCH/$(jq -r .run_dir "$SCRATCH/out.json")
check "the patch applies to the project" bash -c "cd '$SCRATCH/project' && git apply --check '$run_dir/changes.patch' && git apply '$run_dir/changes.patch' && grep -q changed README.md && test -f new.bin"
check "the log holds both streams and the commands" grep -q '^to stderr$' "$run_dir/logs/P-1.log"
check "the log shows each command" grep -q '^\$ echo changed >> README.md$' "$run_dir/logs/P-1.log"
check "summary.md names the goal and the steps" grep -q 'Goal: edit and check' "$run_dir/summary.md"
check "the state file starts with its envelope" test "$(head -1 "$SCRATCH/state/reflectloop/reflectloop.latest.yaml")" = envelope:
yaml_conforms "a passing run's state file conforms" "$SCRATCH/state/reflectloop/reflectloop.latest.yaml" reflectloop
check "no latch after a pass" test ! -e "$SCRATCH/latch"
check "the sandbox is gone and the worktree pruned" bash -c "test -z \"\$(ls '$SCRATCH/sb')\" && test \"\$(git -C '$SCRATCH/project' worktree list | wc -l)\" = 1"
testing "markdown names the run and its result" \
	"setup_case clean && plan && step A true && rp | head -1 | sed 's/plan [0-9TZ]*-[0-9a-f]*/plan RUN/'" \
	"# run-plan RUN: OK\n"

# --- a failing step: blocker, needs, latch, LATCHED, --unlatch --------------------------------------
fail_case() { # fail_case OUTPUT_LINE: a plan whose second step prints the line and fails; prints needs and rc
	setup_case clean && plan && step ok true && step bad "echo 'noise'; echo '$1'; exit 3" && step never true
	rp --json > out.json
	echo "$? $(jq -r '.needs, .error_code, ([.steps[].status] | join(","))' out.json | tr '\n' ' ')"
}
export -f fail_case
testing "a missing module needs RESEARCH" "fail_case 'ModuleNotFoundError: No module named yaml'" \
	"1 RESEARCH STEP_FAILED passed,failed,not_run \n"
testing "a failed assertion needs REPLAN" "fail_case 'AssertionError: 3 != 4'" "1 REPLAN STEP_FAILED passed,failed,not_run \n"
testing "'tests failed' needs REPLAN" "fail_case '2 tests failed'" "1 REPLAN STEP_FAILED passed,failed,not_run \n"
testing "an incompatible version needs RESEARCH" "fail_case 'gcc version 9 is incompatible'" "1 RESEARCH STEP_FAILED passed,failed,not_run \n"
testing "anything else needs RESEARCH" "fail_case 'segmentation fault'" "1 RESEARCH STEP_FAILED passed,failed,not_run \n"

scratch
(cd "$SCRATCH" && fail_case 'expected 3, got 4' > first && cp latch latch.copy &&
	rp --json > second.json; echo $? > second.rc; rp --unlatch --json > unlatch.json; echo $? > unlatch.rc)
blocker=$SCRATCH/state/thinking/blocker.latest.yaml
check "the blocker card is written" test -f "$blocker"
check "the blocker names the failing step" grep -q '^  id: bad$' "$blocker"
check "the blocker keeps the last log lines" grep -q -- '- expected 3, got 4' "$blocker"
check "the blocker says REPLAN" grep -q '^needs: REPLAN$' "$blocker"
yaml_conforms "the blocker card conforms" "$blocker" blocker
yaml_conforms "a failed run's state file conforms" "$SCRATCH/state/reflectloop/reflectloop.latest.yaml" reflectloop
check "the latch conforms" "$RTK" validate --assert-format --ref-dir "$RTK_SRCDIR/schemas" --schema "$RTK_SRCDIR/schemas/latch.v1.schema.json" "$SCRATCH/latch.copy"
check "the latch names the run" test "$(jq -r .run_id "$SCRATCH/latch.copy")" = "$(jq -r .run_id "$SCRATCH/out.json")"
check "a later run is LATCHED (exit 1)" test "$(cat "$SCRATCH/second.rc") $(jq -r .error_code "$SCRATCH/second.json")" = "1 LATCHED"
check "a LATCHED run ran nothing" test "$(jq -r '.steps | length' "$SCRATCH/second.json")" = 0
conforms "a LATCHED run's JSON conforms" "$SCRATCH/second.json" run-plan
check "--unlatch removes the latch" test ! -e "$SCRATCH/latch"
check "--unlatch prints what it held" test "$(cat "$SCRATCH/unlatch.rc") $(jq -r .latch.contents.error_code "$SCRATCH/unlatch.json")" = "0 STEP_FAILED"
conforms "--unlatch's JSON conforms" "$SCRATCH/unlatch.json" run-plan
testing "--unlatch without a latch says so" "rp --unlatch; echo \$?" "# run-plan: unlatch\n\nNo latch at latch.\n\n0\n"
testing "--unlatch on a FIFO planted as the latch: refused, not waited on (issue 27, item 22)" \
	"mkfifo latch && timeout $HANG_GUARD $RTK run-plan --latch latch --unlatch 2>&1; echo \$?; test -p latch && echo kept" \
	"rtk run-plan: latch: not a regular file (a FIFO)\n1\nkept\n"
testing "a latch set by another failure meanwhile keeps its reason; this run says so and replaces nothing (issue 27, item 22)" \
	"setup_case clean && plan && step bad \"printf '{\\\"reason\\\": \\\"the first failure\\\"}' > \$PWD/latch; exit 3\" && rp --json > o.json 2> err; echo \$? \$(jq -r .error_code o.json); jq -r .reason latch; grep -c 'set by another failure meanwhile: its reason is kept' err; jq -c '[.artifacts_written[] | select(. == \"latch\")]' o.json; ls | grep -c '^latch\\.'" \
	"1 STEP_FAILED\nthe first failure\n1\n[]\n0\n"
testing "the same run_id twice: the second run gets RUN_ID-2, the first run's summary.md stays (issue 27, item 22)" \
	"setup_case clean && printf 'new_plan:\n  run_id: nightly\n  steps:\n' > plan.yaml && step a 'echo one' && rp --json > one.json && sed -i 's/echo one/echo two/' plan.yaml && rp --json > two.json; jq -r .run_id one.json two.json; cd state/reflectloop/runs && head -1 nightly/summary.md nightly-2/summary.md && cat nightly/logs/a.log nightly-2/logs/a.log" \
	"nightly\nnightly-2\n==> nightly/summary.md <==\n# run-plan nightly\n\n==> nightly-2/summary.md <==\n# run-plan nightly-2\n$ echo one\none\n$ echo two\ntwo\n"
testing "a run_id longer than 48 characters is INVALID_PLAN, never cut (issue 27, item 22)" \
	"setup_case clean && printf 'new_plan:\n  run_id: %s\n  steps:\n' \$(printf 'r%.0s' \$(seq 64)) > plan.yaml && step a 'touch ran' && rp --json > o.json; echo \$? \$(jq -r .error_code o.json); ls state/reflectloop/runs 2>/dev/null | wc -l" \
	"1 INVALID_PLAN\n0\n"
testing "a plan past the size limit is INVALID_PLAN, refused unread (issue 27, item 16)" \
	"setup_case clean && truncate -s 65M plan.yaml && rp --json > o.json; echo \$? \$(jq -r .error_code o.json); jq -r .reason o.json" \
	"1 INVALID_PLAN\nplan.yaml: more than 67108864 bytes (see --max-line)\n"
testing "--rules: blocker.last_lines that is no whole number is refused (a string was cast from NaN, found by fuzz_runplan_rules)" \
	"for v in 100li 20.5 1e300 0; do printf 'blocker: {last_lines: %s}\\n' \$v > rules.yaml; rp --rules rules.yaml 2>&1; echo \$?; done" \
	"$(printf 'rtk run-plan: rules.yaml:1:11: `blocker.last_lines` must be a number, not "100li"\\n2\\n'; printf 'rtk run-plan: rules.yaml: blocker.last_lines must be a whole number from 1 to 1000\\n2\\n%.0s' 1 2 3)"
testing "--unlatch shows a hand-written latch whole, also when it starts with a number (found by fuzz_runplan_files)" \
	"mv input latch && rp --unlatch --json | jq -c .latch.contents" '"2 tests fail on main: do not run"\n' '2 tests fail on main: do not run'
testing "--unlatch prints valid JSON for a latch that is not UTF-8: U+FFFD for the bad byte (found by fuzz_runplan_files)" \
	"mv input latch && rp --unlatch --json | python3 -c 'import json, sys; print(ascii(json.loads(sys.stdin.buffer.read().decode())[\"latch\"][\"contents\"]))'" \
	"'caf\\\\ufffd closed'\n" 'caf\0351 closed'
testing "a step that printed bytes that are not UTF-8 still leaves its blocker card, U+FFFD for them (found by fuzz_runplan_files)" \
	"setup_case clean && plan && step bad \"printf 'caf\\\\351 au lait\\\\n'; exit 3\" && rp > /dev/null 2>&1; python3 -c 'import sys; print(ascii([l for l in open(sys.argv[1], encoding=\"utf-8\") if l.startswith(\"- caf\")]))' state/thinking/blocker.latest.yaml" \
	"['- caf\\\\ufffd au lait\\\\n']\n"

# --- plans that cannot run ---------------------------------------------------------------------------
testing "a missing plan is MISSING_PLAN" \
	"setup_case clean && rp --json > o.json; echo \$? \$(jq -r '.error_code, .status' o.json | tr '\n' ' '); jq -r .reason o.json" \
	"1 MISSING_PLAN ERROR\nplan.yaml: No such file or directory\n"
testing "malformed YAML is INVALID_PLAN with its line" \
	"setup_case clean && printf 'new_plan:\n  steps:\n    - id: a\n      commands: [x\n' > plan.yaml && rp --json > o.json; echo \$? \$(jq -r .error_code o.json); jq -r .reason o.json | cut -d: -f1-2" \
	"1 INVALID_PLAN\nplan.yaml:5\n"
testing "a duplicate id is INVALID_PLAN naming the step" \
	"setup_case clean && plan && step a true && step a false && rp --json > o.json; echo \$?; jq -r .reason o.json" \
	"1\nplan.yaml: step 'a' (step 2) repeats the id of step 1\n"
testing "a cycle is INVALID_PLAN naming it" \
	"setup_case clean && plan && step a true && printf '      depends_on: [b]\n' >> plan.yaml && step b true && printf '      depends_on: [a]\n' >> plan.yaml && rp --json > o.json; echo \$?; jq -r .reason o.json" \
	"1\nplan.yaml: step 'a' is part of a dependency cycle: a -> b -> a\n"
testing "an invalid plan writes the latch and the state file but runs nothing" \
	"setup_case clean && plan && step a 'touch ran' && step a true && rp >/dev/null 2>&1; test -e latch && test -f state/reflectloop/reflectloop.latest.yaml && ! find sb -name ran | grep -q .; echo \$?" \
	"0\n"

# --- the step timeout ends the whole group ---------------------------------------------------------
scratch
# Events, not the clock: the grandchild ignores TERM and writes finished only if it lives out its 120 s.
(cd "$SCRATCH" && setup_case clean && plan &&
	step slow "sh -c 'trap \"\" TERM; echo \$\$ > $SCRATCH/grandchild; sleep 120; touch $SCRATCH/finished' & wait" &&
	printf 'limits: {kill_grace: 1s}\n' > rules.yaml &&
	rp --json --step-timeout 1s --rules rules.yaml > out.json; echo $? > rc; test -e finished && echo finished > at-exit)
check "a step past its timeout fails the run" test "$(cat "$SCRATCH/rc") $(jq -r '.steps[0].status' "$SCRATCH/out.json")" = "1 timed_out"
check "the timeout does not wait for the step's child to finish" test ! -e "$SCRATCH/at-exit"
# (dead, or a zombie nobody reaps: this machine's init may not reap orphans)
check "a grandchild that ignores TERM is killed too" bash -c "eventually gone \$(cat '$SCRATCH/grandchild') && test ! -e '$SCRATCH/finished'"
check "the timeout says so in the reason" grep -q 'ran past its 1 s timeout' <(jq -r .reason "$SCRATCH/out.json")

# --- copy mode: fallback and exclusions --------------------------------------------------------------
scratch
(cd "$SCRATCH" && setup_case dirty && plan &&
	step look 'find . -path ./.git -prune -o -print | sort > /tmp/rtk-run-plan-listing.$PPID; cp /tmp/rtk-run-plan-listing.$PPID listing; rm -f /tmp/rtk-run-plan-listing.$PPID' &&
	rp --json --keep-sandbox --exclude 'README.*' > out.json; echo $? > rc)
listing=$(jq -r .sandbox.path "$SCRATCH/out.json")/listing
check "a dirty tree falls back to a copy" test "$(jq -r '.sandbox.mode + ": " + .sandbox.fallback' "$SCRATCH/out.json")" = "copy: the work tree has uncommitted changes"
check "the copy holds the uncommitted change" grep -q 'return 2' "$(jq -r .sandbox.path "$SCRATCH/out.json")/src/main.c"
for gone in ./.claude/state ./.claude/private/secrets ./node_modules ./src/deep/node_modules ./tools/helper.dll ./pipe.fifo ./README.md; do
	check "the copy leaves out $gone" bash -c "! grep -qx -- '$gone' '$listing'"
done
check "the copy keeps .claude/settings.json" grep -qx ./.claude/settings.json "$listing"
check "--keep-sandbox keeps it" test -d "$(jq -r .sandbox.path "$SCRATCH/out.json")"

# --- copy mode: the baseline leaves ignored files out ------------------------------------------------
# The copy holds them, the baseline commit (written as one pack) does not, the step's patch shows only
# what is not ignored, and git finds nothing wrong or left over (no dangling blob of an ignored file).
baseline_case() { # baseline_case HOME_SETUP FILES...: a plain project of FILES ("path=content"), copied
	mkdir -p project home && (cd home && eval "$1") && shift
	local f
	for f in "$@"; do mkdir -p "project/$(dirname "${f%%=*}")" && printf '%s\n' "${f#*=}" > "project/${f%%=*}"; done
	plan && step add 'echo new > added.c && echo junk > more.o'
	HOME=$PWD/home env -u XDG_CONFIG_HOME bash -c 'rp --json --keep-sandbox' > out.json; echo $? > rc
	sb=$(jq -r .sandbox.path out.json)
	git -C "$sb" ls-files > tracked
	git -C "$sb" fsck --strict --no-progress > fsck 2>&1 || echo "fsck failed" >> fsck
	git -C "$sb" status --porcelain --untracked-files=no > status
}
export -f baseline_case
scratch
(cd "$SCRATCH" && baseline_case true .gitignore='build/
*.log
*.o' src/a.c=a build/out.o=o sub/deep/x.log=log dup.c=same dup.log=same keep.txt=k)
check "ignored files: the run passes" test "$(cat "$SCRATCH/rc")" = 0
check "ignored files: the baseline holds the others" test "$(tr '\n' ' ' < "$SCRATCH/tracked")" = ".gitignore dup.c keep.txt src/a.c "
check "ignored files: they are copied all the same" test -f "$(jq -r .sandbox.path "$SCRATCH/out.json")/sub/deep/x.log"
check "ignored files: fsck finds nothing, no dangling blob" test ! -s "$SCRATCH/fsck"
check "ignored files: the tree is clean against the baseline" test ! -s "$SCRATCH/status"
check "ignored files: the patch holds the new file only" test "$(grep '^diff --git' "$SCRATCH"/state/reflectloop/runs/*/changes.patch)" = "diff --git a/added.c b/added.c"
scratch
(cd "$SCRATCH" && baseline_case 'mkdir -p .config/git && echo "*.tmp" > .config/git/ignore' a.c=a junk.tmp=t sub/more.tmp=t)
check "ignored by ~/.config/git/ignore: left out of the baseline" test "$(tr '\n' ' ' < "$SCRATCH/tracked")" = "a.c "
check "ignored by ~/.config/git/ignore: fsck finds nothing" test ! -s "$SCRATCH/fsck"
scratch
(cd "$SCRATCH" && baseline_case 'printf "[core]\n\texcludesFile = ~/my-ignores\n" > .gitconfig && echo "*.bak" > my-ignores && mkdir -p .config/git && echo "*.c" > .config/git/ignore' a.c=a old.bak=b)
check "ignored by core.excludesFile (and not the XDG file then)" test "$(tr '\n' ' ' < "$SCRATCH/tracked")" = "a.c "
check "ignored by core.excludesFile: fsck finds nothing" test ! -s "$SCRATCH/fsck"
scratch
(cd "$SCRATCH" && baseline_case true a.c=a b/c.txt=c)
check "nothing to ignore: every file in the baseline" test "$(tr '\n' ' ' < "$SCRATCH/tracked")" = "a.c b/c.txt "
check "nothing to ignore: the patch holds both new files" test "$(grep -c '^diff --git' "$SCRATCH"/state/reflectloop/runs/*/changes.patch)" = 2

# --- the patch when nothing changed, and when only git's own files did ---------------------------------
# An untouched sandbox gives an empty patch (found from the index's stat data, without a diff); a step
# that refreshes the index (git status) or stages a change still gets the real diff.
scratch
(cd "$SCRATCH" && setup_case clean && plan && step look 'cat README.md > /dev/null' && rp --json > wt.json &&
	plan && step look 'true' && rp --json --mode copy > cp.json &&
	plan && step st 'git status > /dev/null' && rp --json > st.json &&
	plan && step add 'echo more >> README.md && git add README.md && git status > /dev/null' && rp --json --mode copy > add.json)
patch_of() { cat "$SCRATCH/state/reflectloop/runs/$(jq -r .run_id "$SCRATCH/$1")/changes.patch"; }
check "worktree, nothing changed: the patch is empty" test -z "$(patch_of wt.json)"
check "copy, nothing changed: the patch is empty" test -z "$(patch_of cp.json)"
check "a step running git status: the patch is empty" test -z "$(patch_of st.json)"
check "a staged change is in the patch" test "$(patch_of add.json | grep '^[-+][^-+]')" = "+more"

# --- cwd escapes: exit 98, nothing run ---------------------------------------------------------------
escape_case() { # escape_case CWD [SETUP]: a plan whose second step runs in CWD
	setup_case clean && (cd project && eval "${2:-true}" && git add -A && git commit -qm link >/dev/null 2>&1; true)
	plan && step first 'touch ../first-ran' && step second true && printf '      cwd: "%s"\n' "$1" >> plan.yaml
	rp --json > o.json
	echo "$? $(jq -r '.error_code, (.steps | map(.status) | join(","))' o.json | tr '\n' ' ')$(find sb -name first-ran | wc -l)"
}
export -f escape_case
testing "a cwd with .. escapes (98, nothing run)" "escape_case ../.." "98 SANDBOX_ESCAPE not_run,escaped 0\n"
testing "an absolute cwd escapes" "escape_case /etc" "98 SANDBOX_ESCAPE not_run,escaped 0\n"
testing "a cwd through a link pointing out escapes" \
	"escape_case out 'ln -s /tmp out' && jq -r .reason o.json | grep -c 'outside the sandbox'" \
	"98 SANDBOX_ESCAPE not_run,escaped 0\n1\n"
testing "a link made by an earlier step is caught before its step" \
	"setup_case clean && plan && step mk 'ln -s /tmp out' && step use 'touch escaped-here' && printf '      cwd: out\n' >> plan.yaml && rp --json > o.json; echo \$? \$(jq -r '.steps | map(.status) | join(\",\")' o.json); test -e /tmp/escaped-here; echo \$?" \
	"98 passed,escaped\n1\n"

# --- many short lines (issue 27, item 21): each read's lines are redacted and written at once ---------
testing "200,000 short lines: the log holds every one in order, the blocker the last ones" \
	"setup_case clean && plan && step a 'seq 200000; exit 3' && rp --json > o.json; echo \$?; tail -n +2 state/reflectloop/runs/*/logs/a.log | cmp - <(seq 200000) && echo same; grep -A2 '^last_log_lines' state/thinking/blocker.latest.yaml | tail -2; grep -c '^- ' state/thinking/blocker.latest.yaml" \
	"1\nsame\n- \"199981\"\n- \"199982\"\n20\n"
testing "a secret among many lines of one read is still redacted and stops the step" \
	"setup_case clean && plan && step a \"seq 3000; printf 'key sk-%s%s\\\\n' abcdefghijklm nopqrstuvwx; seq 3000\" && rp --json > o.json; echo \$? \$(jq -r .error_code o.json); grep -c 'sk-abc' state/reflectloop/runs/*/logs/a.log; grep -c '^key \\[REDACTED:openai_key\\]$' state/reflectloop/runs/*/logs/a.log" \
	"99 SECRET_LEAK\n0\n1\n"

# --- secrets ----------------------------------------------------------------------------------------
testing "a secret in a command: 99, nothing run" \
	"setup_case clean && plan && step a 'touch ran' 'curl -H \"Authorization: Bearer abcdefghijklmnop\" x' && rp --json > o.json; echo \$? \$(jq -r .error_code o.json); find sb -name ran | wc -l; cat latch | jq -r .error_code" \
	"99 SECRET_LEAK\n0\nSECRET_LEAK\n"
testing "a secret elsewhere in the plan file: 99" \
	"setup_case clean && plan 'use sk-abcdefghijklmnopqrstuvwx for the call' && step a true && rp >/dev/null 2>&1; echo \$?" \
	"99\n"
# What the steps changed (changes.patch) is scanned as their output is: a key written into a tracked
# file, an environment dump, a file named like a token; in worktree and copy mode. The run is a
# SECRET_LEAK (99, latched) and the patch is written redacted, saying so, for reading only.
# patch_case MODE COMMAND: the exit code, error_code and whether the patch says it is redacted, then
# every file holding the key (nothing but the sandbox, which --keep-sandbox keeps as it is).
patch_case() {
	setup_case clean && plan && step a "$2" &&
		OPENAI_API_KEY=sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX rp --mode "$1" --json > o.json 2> e.txt
	echo "$? $(jq -r .error_code o.json) $(head -1 state/reflectloop/runs/*/changes.patch | cut -d, -f1)"
	grep -rl 'ABCDEFGHIJKLMNOP\|abcdefghijklmnopqrstuvwx' . --exclude-dir=project --exclude-dir=sb | sort
}
export -f patch_case
for mode in worktree copy; do
	testing "$mode mode: a key written into a tracked file: 99, the patch redacted" \
		"patch_case $mode 'echo \"key = \$OPENAI_API_KEY\" >> README.md'; grep -c '^+key = \[REDACTED:openai_key\]\$' state/reflectloop/runs/*/changes.patch" \
		"99 SECRET_LEAK # rtk run-plan: this patch held secrets\n1\n"
	testing "$mode mode: env > file: 99, the patch redacted" \
		"patch_case $mode 'env > env.txt'; grep -c '^+OPENAI_API_KEY=\[REDACTED:openai_key\]\$' state/reflectloop/runs/*/changes.patch" \
		"99 SECRET_LEAK # rtk run-plan: this patch held secrets\n1\n"
	testing "$mode mode: a file named like a token: 99, the name redacted" \
		"patch_case $mode \"touch sk-abcdefgh''ijklmnopqrstuvwx\"; grep -c '^diff --git a/\[REDACTED:openai_key\] b/\[REDACTED:openai_key\]\$' state/reflectloop/runs/*/changes.patch" \
		"99 SECRET_LEAK # rtk run-plan: this patch held secrets\n1\n"
	testing "$mode mode: a key in a binary file: 99, its binary hunk left out" \
		"patch_case $mode 'printf \"\\\\000key=%s\\\\n\" \"\$OPENAI_API_KEY\" > blob.bin'; grep -c 'GIT binary patch' state/reflectloop/runs/*/changes.patch" \
		"99 SECRET_LEAK # rtk run-plan: this patch held secrets\n0\n"
done
testing "a binary file without a key keeps its hunk, and the patch applies" \
	"patch_case worktree 'printf \"\\\\000\\\\001bin\" > blob.bin'; cd project && git apply --check ../state/reflectloop/runs/*/changes.patch && echo applies" \
	"0 null diff --git a/blob.bin b/blob.bin\napplies\n"

# A secret among the plan's strings, written plainly or through a YAML escape ("\x73k-" decodes to
# "sk-"), in a plan rtk cannot use or refuses: nothing it writes or prints about it may quote the key
# (the latch, the state file, summary, blocker, stdout as JSON and markdown, stderr).
# plan_case: the exit code and error_code, then every file but plan.yaml holding the decoded key.
plan_case() {
	rp --json > o.json 2> e.txt; echo "$? $(jq -r .error_code o.json)"
	rm -f latch && rp > o.md 2>> e.txt
	grep -rl 'abcdefghijklmnopqrstuvwx' . --exclude=plan.yaml --exclude-dir=project | sort
}
export -f plan_case
testing "an unknown dependency that is a key: 99, quoted nowhere" \
	"setup_case clean && plan && step a true && printf '      depends_on: [sk-abcdefghijklmnopqrstuvwx]\n' >> plan.yaml && plan_case" \
	"99 SECRET_LEAK\n"
testing "... written through a YAML escape" \
	"setup_case clean && plan && step a true && printf '      depends_on: [\"\\\\x73k-abcdefghijklmnopqrstuvwx\"]\n' >> plan.yaml && plan_case" \
	"99 SECRET_LEAK\n"
testing "a step id in a cycle that is a key: 99, quoted nowhere" \
	"setup_case clean && plan && step a true && printf '      depends_on: [sk-abcdefghijklmnopqrstuvwx]\n' >> plan.yaml && step sk-abcdefghijklmnopqrstuvwx true && printf '      depends_on: [a]\n' >> plan.yaml && plan_case" \
	"99 SECRET_LEAK\n"
testing "... written through a YAML escape" \
	"setup_case clean && plan && step a true && printf '      depends_on: [\"\\\\x73k-abcdefghijklmnopqrstuvwx\"]\n' >> plan.yaml && step '\"\\x73k-abcdefghijklmnopqrstuvwx\"' true && printf '      depends_on: [a]\n' >> plan.yaml && plan_case" \
	"99 SECRET_LEAK\n"
testing "a run_id that is a key: 99, quoted nowhere, nothing run" \
	"setup_case clean && printf 'new_plan:\n  run_id: sk-abcdefghijklmnopqrstuvwx\n  steps:\n' > plan.yaml && step a 'touch ran' && plan_case; find sb -name ran 2>/dev/null | wc -l" \
	"99 SECRET_LEAK\n0\n"
testing "... written through a YAML escape" \
	"setup_case clean && printf 'new_plan:\n  run_id: \"\\\\x73k-abcdefghijklmnopqrstuvwx\"\n  steps:\n' > plan.yaml && step a 'touch ran' && plan_case; find sb -name ran 2>/dev/null | wc -l" \
	"99 SECRET_LEAK\n0\n"
testing "a goal and a step id through YAML escapes: 99, quoted nowhere" \
	"setup_case clean && plan '\\x73k-abcdefghijklmnopqrstuvwx' && step '\"\\x74vly-abcdefghijklmnopqrstuvwx\"' true && plan_case" \
	"99 SECRET_LEAK\n"
scratch
(cd "$SCRATCH" && setup_case clean && plan &&
	step leak "echo before; printf 'token=sk-abcdefgh'; sleep 0.3; printf 'ijklmnopqrstuvwx\\\\n'; echo after; sleep 120; touch $SCRATCH/slept" "touch never" &&
	rp --json > out.json; echo $? > rc)
log=$SCRATCH/$(jq -r .run_dir "$SCRATCH/out.json")/logs/leak.log
check "a secret printed by a step ends the run with 99" test "$(cat "$SCRATCH/rc") $(jq -r '.error_code, .steps[0].status' "$SCRATCH/out.json" | tr '\n' ' ')" = "99 SECRET_LEAK secret_leak "
check "a secret split across two writes is redacted in the log" grep -q 'token=\[REDACTED:openai_key\]' "$log"
check "the joined secret reaches no file" bash -c "! grep -rq 'abcdefghijklmnop' '$SCRATCH/state' '$SCRATCH/latch'"
# (the step writes slept only if it lives out its 120 s sleep: an event, not a time limit)
check "the step is stopped at the secret (not waited for, no next command)" bash -c "! grep -qx after '$log' && test ! -e '$SCRATCH/slept' && test \$(jq '.steps[0].commands_run' '$SCRATCH/out.json') = 1"
# An ordinary long line cut at proc's 64 KiB: the key starts just before the last 512 bytes of the
# first piece, which wait for the next one, so neither piece alone holds it whole.
scratch
(cd "$SCRATCH" && setup_case clean && plan &&
	step long "head -c 65013 /dev/zero | tr '\\0' x; printf ,sk-proj-ABCDEFGH; printf 'IJKLMNOPQRSTUVWX,'; head -c 9000 /dev/zero | tr '\\0' y; echo" &&
	rp --json > out.json; echo $? > rc)
check "a key across the 64 KiB cut of a long line: 99" test "$(cat "$SCRATCH/rc") $(jq -r .error_code "$SCRATCH/out.json")" = "99 SECRET_LEAK"
check "... and no piece of it in the log (but its command) or any file" bash -c "! grep -rh 'ABCDEF\|MNOPQR' '$SCRATCH/state' '$SCRATCH/latch' | grep -qv '\\$ head'"
check "... the log has the line, the key redacted" grep -q 'x,\[REDACTED:openai_key\],y' "$SCRATCH/state/reflectloop/runs/"*/logs/long.log
testing "a \${VAR} in a command is not a secret" \
	"setup_case clean && plan && step a 'echo TAVILY_API_KEY=\${TAVILY_API_KEY}' && rp --json > o.json; echo \$? \$(jq -r .status o.json)" \
	"0 OK\n"
# The pragma is for files a person wrote: the plan may hold a fixture key, but what its step prints is
# a step's output, which it does not exempt (a step could print any pragma it likes).
testing "the allowlist pragma lets a plan's fixture key run, but not out of the step" \
	"setup_case clean && plan && step a 'echo \"sk-abcdefghijklmnopqrstuvwx # pragma: allowlist-secret why=FIXTURE\"' && rp --json > o.json; echo \$? \$(jq -r '.error_code, .steps[0].status' o.json); grep -c 'sk-abcdefghijklmnopqrstuvwx # pragma' state/reflectloop/runs/*/logs/a.log; grep -c '^\[REDACTED:openai_key\] # pragma' state/reflectloop/runs/*/logs/a.log" \
	"99 SECRET_LEAK secret_leak\n1\n1\n"
testing "a pragma with another why is no exemption" \
	"setup_case clean && plan && step a 'echo \"sk-abcdefghijklmnopqrstuvwx # pragma: allowlist-secret why=TRUST_ME\"' && rp --json > o.json; echo \$? \$(jq -r .error_code o.json)" \
	"99 SECRET_LEAK\n"
testing "env_status says SET or UNSET, never the value" \
	"setup_case clean && plan && step a 'echo \$RTK_TEST_SET_VAR \${RTK_TEST_UNSET_VAR:-x} \$HOME' && RTK_TEST_SET_VAR=hunter2 rp --json | jq -c .env_status" \
	'{"HOME":"<SET>","RTK_TEST_SET_VAR":"<SET>","RTK_TEST_UNSET_VAR":"<UNSET>"}\n'

# --- a sandbox root another user owns or can write is refused (issue 27) ------------------------------------
testing "a sandbox root everyone can write (not sticky): exit 1, nothing made in it" \
	"setup_case clean && plan && step a 'echo hi' && mkdir sb && chmod 777 sb && rp --json > o.json 2> err; echo \$? \$(jq -r .error_code o.json); ls -A sb | wc -l; sed \"s|\$PWD|DIR|\" err" \
	"1 SANDBOX_CREATE_FAILED\n0\nrtk run-plan: the sandbox root DIR/sb: writable by everyone (mode 0777) and not sticky: refusing to use it\n"
testing "a sticky shared sandbox root (like /tmp) is fine" \
	"setup_case clean && plan && step a 'echo hi' && mkdir sb && chmod 1777 sb && rp --json > o.json; echo \$? \$(jq -r .status o.json)" \
	"0 OK\n"
testing "the default sandbox root is the user's own" \
	"setup_case clean && plan && step a 'echo hi' && mkdir tmp && TMPDIR=\$PWD/tmp \"$RTK\" run-plan --project-root project --state-dir state --latch latch --plan plan.yaml --keep-sandbox --json | jq -r '.parameters.sandbox_root == \"'\$PWD'/tmp/reflectloop-'\$(id -u)'\"'; stat -c %a tmp/reflectloop-\$(id -u)" \
	"true\n700\n"

# --- no link below the state folder is followed (issue 27) ------------------------------------------------
testing "the state folder's reflectloop/ linked outside: nothing is written there, exit 1 saying why" \
	"setup_case clean && plan && step a 'echo hi' && mkdir -p state outside && ln -s ../outside state/reflectloop && rp --json > o.json 2> err; echo \$? \$(jq -r .error_code o.json); ls -A outside | wc -l; grep -c ': reflectloop is a symbolic link, and rtk follows no link inside state' err o.json" \
	"1 SANDBOX_CREATE_FAILED\n0\nerr:1\no.json:1\n"

# --- --isolate bwrap -----------------------------------------------------------------------------------
if ! command -v bwrap >/dev/null; then
	echo "SKIP: --isolate bwrap: bwrap is not installed (Debian package bubblewrap)"
elif ! bwrap --unshare-all --ro-bind / / true 2>/dev/null; then
	echo "SKIP: --isolate bwrap: this kernel refuses user namespaces to bwrap"
else
	testing "bwrap: writing to \$HOME fails the step" \
		"setup_case clean && plan && step w 'touch \"\$HOME/rtk-bwrap-test\"' && HOME=\$PWD/home && mkdir -p home && HOME=\$HOME rp --isolate bwrap --json > o.json; echo \$? \$(jq -r '.steps[0].status' o.json); test -e home/rtk-bwrap-test; echo \$?" \
		"1 failed\n1\n"
	outside=/var/tmp/rtk-bwrap-outside.$$
	testing "bwrap: writing outside the sandbox fails, inside works" \
		"setup_case clean && plan && step in 'touch inside' && step out 'touch $outside' && rp --isolate bwrap --json > o.json; echo \$? \$(jq -r '[.steps[].status] | join(\",\")' o.json); test -e $outside; echo \$?; rm -f $outside" \
		"1 passed,failed\n1\n"
	# The secrets folder is masked whatever the path to it: the project's by its absolute path, and through
	# a link in the project (.claude/private -> elsewhere), copied into the sandbox as a link. Neither /tmp
	# nor $HOME (both emptied under bwrap) may hold the project, or it would be hidden for another reason.
	base=$(mktemp -d /var/tmp/rtk-cli-secrets.XXXXXX)
	(cd "$base" && setup_case clean && plan && step a "cat $base/project/.claude/private/secrets/key.txt; true" &&
		rp --isolate bwrap --json > o.json; echo $? $(jq -r .sandbox.mode o.json) > rc)
	check "bwrap: the project's secrets folder is empty by its absolute path (no SECRET_LEAK)" test "$(cat "$base/rc")" = "0 worktree"
	check "... the step found nothing there" grep -q 'secrets/key.txt: No such file' "$base"/state/reflectloop/runs/*/logs/a.log
	rm -rf "$base"
	base=$(mktemp -d /var/tmp/rtk-cli-secrets.XXXXXX)
	(cd "$base" && setup_case clean && mkdir -p elsewhere/secrets && echo TOP-SECRET-WORDS > elsewhere/secrets/key.txt &&
		rm -rf project/.claude/private && ln -s "$base/elsewhere" project/.claude/private && plan &&
		step a "cat $base/elsewhere/secrets/key.txt; cat $base/project/.claude/private/secrets/key.txt; cat .claude/private/secrets/key.txt; true" &&
		rp --isolate bwrap --mode copy --json > o.json; echo $? $(jq -r .sandbox.mode o.json) > rc)
	check "bwrap: a .claude/private link to the secrets elsewhere, copied into the sandbox: the step ran" test "$(cat "$base/rc")" = "0 copy"
	check "... and the secrets folder is empty by every path to it" \
		bash -c "! grep -q TOP-SECRET-WORDS '$base'/state/reflectloop/runs/*/logs/a.log && test \$(grep -c 'key.txt: No such file' '$base'/state/reflectloop/runs/*/logs/a.log) = 3"
	rm -rf "$base"
	testing "bwrap: no network without --network" \
		"setup_case clean && plan && step net 'python3 -c \"import socket; s=socket.socket(); s.connect((\\\"127.0.0.1\\\", 9))\"' && rp --isolate bwrap --json > o.json; echo \$? \$(jq -r '.steps[0].status' o.json); grep -c 'Network is unreachable\|Connection refused' state/reflectloop/runs/*/logs/net.log" \
		"1 failed\n1\n"
	testing "bwrap: --network keeps loopback reachable (refused, not unreachable)" \
		"setup_case clean && plan && step net 'python3 -c \"import socket; s=socket.socket(); s.connect((\\\"127.0.0.1\\\", 9))\"' && rp --isolate bwrap --network --json > o.json; grep -c 'Connection refused' state/reflectloop/runs/*/logs/net.log" \
		"1\n"
fi
testing "a missing bwrap is SANDBOX_CREATE_FAILED, never unisolated" \
	"setup_case clean && plan && step a 'touch ran' && PATH=/nonexistent:/usr/bin/nonexistent \"$RTK\" run-plan --project-root project --state-dir state --sandbox-root sb --latch latch --plan plan.yaml --isolate bwrap --json > o.json; echo \$? \$(jq -r .error_code o.json); jq -r .reason o.json; find sb -name ran | wc -l" \
	"1 SANDBOX_CREATE_FAILED\n--isolate bwrap: bwrap is not installed (Debian package bubblewrap)\n0\n"

# --- the re-plan loop ---------------------------------------------------------------------------------
# The planner fixes the plan on its second call: the first re-plan writes a plan that fails again,
# the second one that passes.
cat > "$SCRATCH_ROOT/planner.sh" <<'EOF'
n=$(($(cat "$RTK_PLAN.calls" 2>/dev/null || echo 0) + 1)); echo $n > "$RTK_PLAN.calls"
test -f "$RTK_BLOCKER" || exit 9
if [ $n = 1 ]; then cmd='echo "AssertionError: still wrong"; exit 1'; else cmd='echo fixed'; fi
printf 'new_plan:\n  steps:\n    - id: try%s\n      commands: ["%s"]\n' "$n" "$(printf '%s' "$cmd" | sed 's/"/\\"/g')" > "$RTK_PLAN"
EOF
testing "re-plan: the planner fixes the plan on its second try" \
	"setup_case clean && plan && step first 'echo \"expected 1\"; exit 1' && rp --json --replan 'sh $SCRATCH_ROOT/planner.sh' > o.json; echo \$? \$(jq -r '[.attempts[] | .outcome + \"/\" + (.needs // \"-\")] | join(\" \")' o.json); test -e latch; echo \$?" \
	"0 STEP_FAILED/REPLAN STEP_FAILED/REPLAN OK/-\n1\n"
testing "re-plan: a planner that writes the same plan again stops the loop" \
	"setup_case clean && plan && step first 'exit 1' && cp plan.yaml keep.yaml && rp --json --replan 'cp ../keep.yaml \"\$RTK_PLAN\"' > o.json 2>err; echo \$? \$(jq -r '.attempts | length' o.json); grep -c 'already tried' err; test -e latch; echo \$?" \
	"1 1\n1\n0\n"
testing "re-plan: past --max-retries it is MAX_RETRIES with the latch left" \
	"setup_case clean && plan && step first 'exit 1' && rp --json --max-retries 1 --replan 'printf \"new_plan:\\n  steps:\\n    - {id: s\$RANDOM, commands: [\\\"exit 1\\\"]}\\n\" > \$RTK_PLAN' > o.json; echo \$? \$(jq -r '.error_code, (.attempts | length)' o.json | tr '\n' ' '); jq -r .error_code latch" \
	"1 MAX_RETRIES 2\nMAX_RETRIES\n"
testing "re-plan: a secret leak is never retried" \
	"setup_case clean && plan && step a 'echo sk-abcdefghijklmnopqrstuvwx' && rp --json --replan 'exit 0' > o.json; echo \$? \$(jq -r '.attempts | length' o.json)" \
	"99 1\n"
testing "re-plan: an agent's fatal trouble (Claude Code's 401) is one warning, not retried, and the run fails" \
	"setup_case clean && plan && step first 'exit 1' && mkdir -p bin fake && ln -s \"$RTK_SRCDIR/tests/fixtures/canned-client.sh\" bin/claude && printf '%s\\n' '{\"type\":\"result\",\"is_error\":true,\"api_error_status\":401,\"result\":\"Invalid API key · Fix external API key\"}' > fake/out && echo 1 > fake/rc && FAKE_CLIENT_DIR=\$PWD/fake rp --json --replan \"\$PWD/bin/claude -p --output-format json\" > o.json 2>err; echo \$? \$(jq -r '.attempts | length' o.json) \$(cat fake/calls); grep -c 'the re-plan agent (claude) reported fatal trouble, not retried: Invalid API key' err; grep -c 'Invalid API key' state/thinking/replan.log" \
	"1 1 1\n1\n1\n"
# What the fake client's second call does: write a plan that passes (sourced in the project, RTK_PLAN set).
cat > "$SCRATCH_ROOT/replan-work.sh" <<'EOF'
printf 'new_plan:\n  steps:\n    - {id: ok, commands: ["true"]}\n' > "$RTK_PLAN"
EOF
testing "re-plan: an agent's transient trouble (529) is backed off and retried; the planner then writes the plan" \
	"setup_case clean && plan && step first 'exit 1' && mkdir -p bin fake && ln -s \"$RTK_SRCDIR/tests/fixtures/canned-client.sh\" bin/codex && echo 'ERROR: unexpected status 529 <unknown status code>: The server is overloaded' > fake/err.1 && echo 1 > fake/rc.1 && cp \"$SCRATCH_ROOT/replan-work.sh\" fake/work.2 && RTK_TEST_WAIT_SCALE=0.001 FAKE_CLIENT_DIR=\$PWD/fake rp --json --replan \"\$PWD/bin/codex exec -\" > o.json 2>err; echo \$? \$(jq -r '[.attempts[].outcome] | join(\" \")' o.json) \$(cat fake/calls); grep -c 'reported transient trouble: ERROR: unexpected status 529' err" \
	"0 STEP_FAILED OK 2\n1\n"

# --- options -------------------------------------------------------------------------------------------
testing "a bad --mode is a usage error" "\"$RTK\" run-plan --mode fast 2>&1; echo \$?" \
	"rtk run-plan: --mode takes auto, worktree or copy, not 'fast'\n2\n"
testing "--network without bwrap is a usage error" "\"$RTK\" run-plan --network 2>&1; echo \$?" \
	"rtk run-plan: --network goes with --isolate bwrap\n2\n"
testing "a misspelt --rules key is an error naming its line and the key meant" \
	"printf 'limits:\\n  step_timeut: 1s\\n' > r.yaml; \"$RTK\" run-plan --rules r.yaml 2>&1; echo \$?" \
	"rtk run-plan: r.yaml:2:3: unknown key \`step_timeut\` in \`limits\`: did you mean \`step_timeout\`?\n2\n"
testing "a bad --step-timeout is a usage error" "\"$RTK\" run-plan --step-timeout soon 2>&1; echo \$?" \
	"rtk run-plan: --step-timeout: invalid duration \"soon\": expected a number and a unit, like 90d, 12h, 1w2d or P1DT2H; units: s, min, h, d, w, mo (30 days), y (365 days)\n2\n"
testing "a --step-timeout in bare m is refused as ambiguous" "\"$RTK\" run-plan --step-timeout 10m 2>&1; echo \$?" \
	"rtk run-plan: --step-timeout: invalid duration \"10m\": 'm' is ambiguous: write min for minutes or mo for months; units: s, min, h, d, w, mo (30 days), y (365 days)\n2\n"

finish
