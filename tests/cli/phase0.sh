#!/usr/bin/env bash
# tests/cli/phase0.sh — rtk phase0: verdicts from one config, the combined decision, a mistyped config refused before anything runs.
. "$RTK_SRCDIR/tests/cli/lib.sh"

S="$RTK_SRCDIR/data/samples"
# A config in the scratch folder pointing at the shipped samples (paths are relative to the config).
cfg() {
	cat > "$SCRATCH_ROOT/$1.yaml"
	echo "$SCRATCH_ROOT/$1.yaml"
}
both=$(cfg both <<EOF2
calibration:
  corpus: $S/calibration.jsonl
  group_by: agent
board:
  export: $S/board.jsonl
EOF2
)
testing "the summary has a row per experiment with its verdict and key figure" \
	"$RTK phase0 --json $both | jq -c '[.summary[] | [.experiment, .status, (if .key_figure then .key_figure.value * 1000 | round else null end)]]'" \
	'[["P1","INCONCLUSIVE",512],["P2","SKIPPED",null],["P3","PASS",232]]\n'
testing "each experiment's result is the applet's own" \
	"$RTK phase0 --json $both | jq -c '.experiments.calibrate.result.verdict == \$c.verdict and .experiments[\"board-history\"].result.verdict == \$b.verdict' --argjson c \"\$($RTK calibrate --json --group-by agent $S/calibration.jsonl)\" --argjson b \"\$($RTK board-history --json $S/board.jsonl)\"" \
	"true\n"
testing "no KILL but an INCONCLUSIVE: the decision stays open and names it" \
	"$RTK phase0 --json $both | jq -r '.decision.status + \": \" + .decision.text'" \
	"OPEN: Nothing says KILL, but P1, P2 gave no verdict either way (INCONCLUSIVE or skipped): the case for self-reflection rests on P3 only.\n"
testing "each experiment without a verdict names its next step; one with a verdict has none" \
	"$RTK phase0 --json $both | jq -c '[.summary[] | [.experiment, (.next_step | if . then .[0:40] else . end)]]'" \
	'[["P1","collect more tasks with a self-rated con"],["P2","add a git_history: section whose repo: n"],["P3",null]]\n'
only_p1=$(cfg only-p1 <<EOF2
calibration:
  corpus: $S/calibration.jsonl
EOF2
)
testing "no experiment with a verdict: no evidence either way, and the next steps in the markdown" \
	"$RTK phase0 $only_p1 | grep -e '^\*\*Decision' -e '^\*\*Next step' | cut -c1-80" \
	"**Decision: OPEN**: No evidence either way: P1, P2, P3 gave no verdict (INCONCLU\n**Next step for P1** (INCONCLUSIVE): collect more tasks with a self-rated confid\n**Next step for P2** (SKIPPED): add a git_history: section whose repo: names the\n**Next step for P3** (SKIPPED): add a board: section whose export: names the tas\n"
missing=$(cfg missing <<EOF2
calibration:
  corpus: no-such-corpus.jsonl
board:
  export: $S/board.jsonl
EOF2
)
testing "a missing input is an error naming the config's line, not a skip" \
	"$RTK phase0 --json $missing 2>&1 | sed 's|$SCRATCH_ROOT|DIR|g'; echo \${PIPESTATUS[0]}" \
	'rtk phase0: DIR/missing.yaml:2:3: calibration.corpus: DIR/no-such-corpus.jsonl: No such file or directory\n2\n'
testing "so is each missing file of a list, and a missing board timeline or rule file" \
	"printf 'calibration:\\n  corpus:\\n    - $S/calibration.jsonl\\n    - gone.jsonl\\n' > l.yaml; printf 'board:\\n  export: $S/board.jsonl\\n  config: rules.yaml\\n' > r.yaml; for c in l r; do $RTK phase0 \$c.yaml 2>&1; echo \$?; done" \
	'rtk phase0: l.yaml:4:7: calibration.corpus: ./gone.jsonl: No such file or directory\n2\nrtk phase0: r.yaml:3:3: board.config: ./rules.yaml: No such file or directory\n2\n'
# P2 on a real repository: 25 plain fixes, each a failure only self-reflection would have caught.
REPO="$SCRATCH_ROOT/fixes"
bash "$RTK_SRCDIR/tests/fixtures/git-history-repo.sh" many-plain-fixes "$REPO" >/dev/null
all=$(cfg all <<EOF2
calibration:
  corpus: $S/calibration.jsonl
git_history:
  repo: fixes
  window: 3650d
board:
  export: $S/board.jsonl
EOF2
)
testing "P2 runs on the repository the config names (relative to it), as git-history does" \
	"$RTK phase0 --json $all | jq -c '.experiments[\"git-history\"].result.verdict == \$g.verdict and .summary[1].status == \"PASS\"' --argjson g \"\$($RTK git-history --json --repo $REPO --window 3650d)\"" \
	"true\n"
testing "P2's key figure is the share only self-reflection would catch" \
	"$RTK phase0 --json $all | jq -c '.summary[1].key_figure | [.label, .value]'" \
	'["share of failures only self-reflection would catch",1]\n'
testing "a missing repository is an error naming the config's line" \
	"printf 'git_history:\\n  repo: nowhere\\n' > $SCRATCH_ROOT/norepo.yaml; $RTK phase0 --json $SCRATCH_ROOT/norepo.yaml 2>&1 | sed 's|$SCRATCH_ROOT/||g'; echo \${PIPESTATUS[0]}" \
	"rtk phase0: norepo.yaml:2:3: git_history.repo: nowhere: No such file or directory\n2\n"
mkdir -p "$SCRATCH_ROOT/plain"
plain=$(cfg plain <<EOF2
git_history:
  repo: plain
EOF2
)
testing "a folder that is not a repository (an unpacked tarball) skips P2 with the reason" \
	"$RTK phase0 --json $plain | jq -r '.summary[1].reason' | sed 's|$SCRATCH_ROOT/||'" "not a git repository: plain\n"
kill=$(cfg kill <<EOF2
board:
  export: $S/board.jsonl
  kill_below: 0.5
EOF2
)
testing "a KILL blocks and says which one" "$RTK phase0 --json $kill | jq -c '[.decision.status, .decision.blocking]'" '["BLOCKED",["P3"]]\n'
{ rows 0.85 true 10; rows 0.85 false 30; rows 0.95 true 35; rows 0.95 false 5; rows 0.3 false 20; } > "$SCRATCH_ROOT/pass.jsonl"
pass=$(cfg pass <<EOF2
calibration:
  corpus: pass.jsonl
git_history:
  repo: fixes
  window: 3650d
board:
  export: $S/board.jsonl
EOF2
)
testing "every experiment passing is JUSTIFIED" \
	"$RTK phase0 --json $pass | jq -r '[.summary[].status, .decision.status, .decision.text] | join(\" \")'" \
	"PASS PASS PASS JUSTIFIED Every experiment passed: self-reflection work is justified.\n"
testing "--fail-on-kill exits 3 when blocked" "$RTK phase0 --fail-on-kill $kill >/dev/null; echo \$?" "3\n"
testing "markdown leads with the decision and a summary table" \
	"$RTK phase0 $kill | sed -n '3p;5p' | cut -c1-40" "**Decision: BLOCKED**: Self-reflection w\n| experiment         | question         \n"
printf '{bad\n' > "$SCRATCH_ROOT/bad.jsonl"
bad=$(cfg bad <<EOF2
calibration:
  corpus: bad.jsonl
EOF2
)
testing "a bad corpus line is an error, not a skip (paths relative to the config)" \
	"$RTK phase0 $bad 2>&1 | sed 's|$SCRATCH_ROOT/||'; echo \${PIPESTATUS[0]}" \
	"rtk phase0: calibration: bad.jsonl:1: not a valid JSON object: expected a member name (column 2)\n2\n"

# --- a mistyped config stops before anything runs, naming its line (issue 28) ------------------------
testing "a misspelt section is an error with the section meant, not a SKIPPED experiment" \
	"printf 'calibration:\\n  corpus: $S/calibration.jsonl\\ngit_histroy:\\n  repo: fixes\\n' > c.yaml; $RTK phase0 c.yaml 2>&1; echo \$?" \
	"rtk phase0: c.yaml:3:1: unknown key \`git_histroy\`: did you mean \`git_history\`?\n2\n"
testing "a misspelt key is an error with the key meant, not the default" \
	"printf 'git_history:\\n  repo: $REPO\\n  windw: 365d\\n' > c.yaml; $RTK phase0 c.yaml 2>&1; echo \$?; printf 'calibration:\\n  corpus: $S/calibration.jsonl\\n  hihg: 0.9\\n' > d.yaml; $RTK phase0 d.yaml 2>&1; echo \$?" \
	"rtk phase0: c.yaml:3:3: unknown key \`windw\` in \`git_history\`: did you mean \`window\`?\n2\nrtk phase0: d.yaml:3:3: unknown key \`hihg\` in \`calibration\`: did you mean \`high\`?\n2\n"
testing "a key far from any known one lists them" \
	"printf 'board:\\n  export: $S/board.jsonl\\n  p3: yes\\n' > c.yaml; $RTK phase0 c.yaml 2>&1; echo \$?" \
	"rtk phase0: c.yaml:3:3: unknown key \`p3\` in \`board\`: the known keys are \`export\`, \`exports\`, \`repo\`, \`from\`, \`timeline\`, \`dir\`, \`config\`, \`within\`, \`as_of\`, \`kill_below\`, \`min_tasks\`\n2\n"
testing "window: 365 is the same error as window: \"365\": a duration needs its unit, quoted or not" \
	"for w in 365 '\"365\"'; do printf 'git_history:\\n  repo: $REPO\\n  window: %s\\n' \"\$w\" > c.yaml; $RTK phase0 c.yaml 2>&1; echo \$?; done" \
	"rtk phase0: c.yaml:3:3: git_history.window: invalid duration \"365\": missing unit after a number; units: s, min, h, d, w, mo (30 days), y (365 days)\n2\n\
rtk phase0: c.yaml:3:3: git_history.window: invalid duration \"365\": missing unit after a number; units: s, min, h, d, w, mo (30 days), y (365 days)\n2\n"
testing "window: 3m is refused as ambiguous, with the config's line" \
	"printf 'board:\\n  export: $S/board.jsonl\\n  within: 3m\\n' > c.yaml; $RTK phase0 c.yaml 2>&1; echo \$?" \
	"rtk phase0: c.yaml:3:3: board.within: invalid duration \"3m\": 'm' is ambiguous: write min for minutes or mo for months; units: s, min, h, d, w, mo (30 days), y (365 days)\n2\n"
testing "a quoted number is the number: high: \"0.9\" is high: 0.9" \
	"for h in 0.9 '\"0.9\"'; do printf 'calibration:\\n  corpus: $S/calibration.jsonl\\n  high: %s\\n' \"\$h\" > c.yaml; $RTK phase0 --json c.yaml | jq -c '.experiments.calibrate.result.verdict.thresholds.high'; done" \
	"0.9\n0.9\n"
testing "a number that is not one is an error" \
	"printf 'board:\\n  export: $S/board.jsonl\\n  kill_below: low\\n' > c.yaml; $RTK phase0 c.yaml 2>&1; echo \$?" \
	"rtk phase0: c.yaml:3:3: \`board.kill_below\` must be a number, not \"low\"\n2\n"
testing "a config that is not YAML names its line" \
	"printf 'board: [\\\\n' > c.yaml; $RTK phase0 c.yaml 2>&1 | cut -c1-24; echo \${PIPESTATUS[0]}" "rtk phase0: c.yaml:2:1: \n2\n"
testing "a skipped experiment's reason quotes what it read escaped: no HTML in the markdown" \
	"mkdir -p 'x<img src=y>' && printf 'git_history:\\n  repo: \"x<img src=y>\"\\n' > c.yaml && $RTK phase0 c.yaml | grep -c 'x\\\\<img src=y\\\\>'" "2\n"
"$RTK" phase0 --json "$both" > "$SCRATCH_ROOT/p.json"
conforms "phase0 output conforms to rtk.phase0.v1" "$SCRATCH_ROOT/p.json" phase0
jq '.experiments.calibrate.result' "$SCRATCH_ROOT/p.json" > "$SCRATCH_ROOT/p1.json"
conforms "its P1 result conforms to rtk.calibrate.v1" "$SCRATCH_ROOT/p1.json" calibrate
jq '.experiments["board-history"].result' "$SCRATCH_ROOT/p.json" > "$SCRATCH_ROOT/p3.json"
conforms "its P3 result conforms to rtk.board-history.v1" "$SCRATCH_ROOT/p3.json" board-history
"$RTK" phase0 --json "$plain" > "$SCRATCH_ROOT/m.json"
conforms "output with a skipped experiment conforms to rtk.phase0.v1" "$SCRATCH_ROOT/m.json" phase0
"$RTK" phase0 --json "$all" > "$SCRATCH_ROOT/a.json"
conforms "output with all three conforms to rtk.phase0.v1" "$SCRATCH_ROOT/a.json" phase0
jq '.experiments["git-history"].result' "$SCRATCH_ROOT/a.json" > "$SCRATCH_ROOT/p2.json"
conforms "its P2 result conforms to rtk.git-history.v1" "$SCRATCH_ROOT/p2.json" git-history
finish
