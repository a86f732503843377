#!/usr/bin/env bash
# tests/cli/calibrate.sh — rtk calibrate: bad input, verdicts, groups, SVG, output contract.
. "$RTK_SRCDIR/tests/cli/lib.sh"

ok='{"confidence":0.5,"correct":true}'
E="rtk calibrate: input"

# --- every bad-input case names file:line and exits 2 ---------------------------------------------
testing "not JSON" "$RTK calibrate input 2>&1; echo \$?" \
	"$E:2: not a valid JSON object: expected a member name (column 2)\n2\n" "$ok\n{bad\n"
testing "not an object" "$RTK calibrate input 2>&1; echo \$?" \
	"$E:1: not a valid JSON object: expected '{' (column 1)\n2\n" "[0.5, true]\n"
testing "missing confidence" "$RTK calibrate input 2>&1; echo \$?" \
	"$E:2: no \"confidence\" member\n2\n" "$ok\n{\"correct\":true}\n"
testing "missing label" "$RTK calibrate input 2>&1; echo \$?" \
	"$E:1: no \"correct\" member\n2\n" "{\"confidence\":0.3}\n"
testing "confidence as a string" "$RTK calibrate input 2>&1; echo \$?" \
	"$E:1: \"confidence\" is a string, not a number in [0, 1]\n2\n" "{\"confidence\":\"0.5\",\"correct\":true}\n"
testing "confidence above 1" "$RTK calibrate input 2>&1; echo \$?" \
	"$E:3: \"confidence\" is 1.5, outside [0, 1]\n2\n" "$ok\n$ok\n{\"confidence\":1.5,\"correct\":true}\n"
testing "confidence below 0" "$RTK calibrate input 2>&1; echo \$?" \
	"$E:1: \"confidence\" is -0.01, outside [0, 1]\n2\n" "{\"confidence\":-0.01,\"correct\":false}\n"
testing "confidence overflowing a double" "$RTK calibrate input 2>&1; echo \$?" \
	"$E:1: \"confidence\" is 1e999, outside [0, 1]\n2\n" "{\"confidence\":1e999,\"correct\":false}\n"
testing "NaN, as Python writes it, is not JSON" "$RTK calibrate input 2>&1; echo \$?" \
	"$E:1: not a valid JSON object: expected a value (column 15)\n2\n" "{\"confidence\":NaN,\"correct\":true}\n"
testing "label neither boolean nor 0/1" "$RTK calibrate input 2>&1; echo \$?" \
	"$E:1: \"correct\" is 2, not true/false or 1/0\n2\n" "{\"confidence\":0.5,\"correct\":2}\n"
testing "label as a string" "$RTK calibrate input 2>&1; echo \$?" \
	"$E:1: \"correct\" is a string, not true/false or 1/0\n2\n" "{\"confidence\":0.5,\"correct\":\"yes\"}\n"
testing "group value an array" "$RTK calibrate --group-by agent input 2>&1; echo \$?" \
	"$E:1: \"agent\" is an array; a group must be a string, number or boolean\n2\n" \
	"{\"confidence\":0.5,\"correct\":1,\"agent\":[1]}\n"
testing "missing file names it and exits 1" "$RTK calibrate nope.jsonl 2>&1; echo \$?" \
	"rtk calibrate: nope.jsonl: No such file or directory\n1\n"
testing "stdin is named <stdin>" "$RTK calibrate 2>&1; echo \$?" \
	"rtk calibrate: <stdin>:2: not a valid JSON object: expected a value (column 15)\n2\n" "" "$ok\n{\"confidence\":}\n"
testing "the second file's line is named" "printf '%s\n' '$ok' > a; $RTK calibrate a input 2>&1; echo \$?" \
	"$E:1: no \"confidence\" member\n2\n" "{}\n"
testing "a bad line writes nothing to stdout" "$RTK calibrate input 2>/dev/null | wc -c" "0\n" "$ok\n{bad\n"

# --- options are checked ------------------------------------------------------------------------
for bad in "--high 1.5" "--high -0.1" "--alpha 0" "--alpha 0.5" "--delta 0" "--ci-level 1" "--bins 0" "--bins 101" "--min-per-class 0"; do
	testing "rejects $bad" "$RTK calibrate $bad input >/dev/null 2>&1; echo \$?" "2\n" "$ok\n"
done

# --- --skip-invalid counts what it skips --------------------------------------------------------
testing "--skip-invalid counts skipped lines" \
	"$RTK calibrate --skip-invalid --json input | jq -c '.input'" \
	"{\"rows\":2,\"skipped_invalid\":3,\"first_skipped\":\"input:2: not a valid JSON object: expected a member name (column 2)\"}\n" \
	"$ok\n{bad\n{\"confidence\":2,\"correct\":true}\n{\"confidence\":0.1,\"correct\":\"x\"}\n{\"confidence\":0.9,\"correct\":false}\n"
testing "--skip-invalid does not hide a missing file" "$RTK calibrate --skip-invalid nope 2>&1; echo \$?" \
	"rtk calibrate: nope: No such file or directory\n1\n"

# --- input forms --------------------------------------------------------------------------------
testing "blank lines, CRLF, 1/0 labels, other members" \
	"$RTK calibrate --json input | jq -c '[.input.rows, .overall.all.n_correct, .overall.all.auc]'" "[3,2,0.75]\n" \
	"{\"confidence\":0.9,\"correct\":1,\"x\":{\"y\":[1,2]}}\r\n\n   \n{\"confidence\":0.2,\"correct\":0}\n{\"confidence\":0.2,\"correct\":true}"
testing "renamed fields" \
	"$RTK calibrate --json --confidence-field p --label-field ok input | jq -c '[.overall.all.n, .overall.all.auc]'" \
	"[2,1]\n" "{\"p\":0.9,\"ok\":true}\n{\"p\":0.1,\"ok\":false}\n"
testing "stdin as -" "$RTK calibrate --json - < input | jq -c '.parameters.files'" '["-"]\n' "$ok\n"
testing "files are read in turn" "cp input b; $RTK calibrate --json input b | jq '.input.rows'" "4\n" "$ok\n$ok\n"
testing "empty input is INCONCLUSIVE with n = 0" \
	"$RTK calibrate --json input | jq -c '[.input.rows, .verdict.status, .overall.all.auc]'" '[0,"INCONCLUSIVE",null]\n' "\n"

# --- the direction is never flipped -------------------------------------------------------------
testing "inverted confidence gives AUC 0, not 1" "$RTK calibrate --json input | jq '.overall.all.auc'" "0\n" \
	"{\"confidence\":0.9,\"correct\":false}\n{\"confidence\":0.1,\"correct\":true}\n"

# --- verdicts -----------------------------------------------------------------------------------
{ rows 0.85 true 10; rows 0.85 false 30; rows 0.95 true 35; rows 0.95 false 5; rows 0.3 false 20; } > "$SCRATCH_ROOT/pass.jsonl"
{ rows 0.85 true 500; rows 0.85 false 500; rows 0.95 true 500; rows 0.95 false 500; } > "$SCRATCH_ROOT/kill.jsonl"
{ rows 0.9 true 100; rows 0.9 false 100; rows 0.2 false 50; } > "$SCRATCH_ROOT/onevalue.jsonl"
{ rows 0.85 true 29; rows 0.85 false 20; rows 0.95 true 40; rows 0.95 false 9; } > "$SCRATCH_ROOT/few.jsonl"
testing "discriminating high rows PASS" "$RTK calibrate --json $SCRATCH_ROOT/pass.jsonl | jq -r .verdict.status" "PASS\n"
testing "flat high rows with a narrow interval KILL" "$RTK calibrate --json $SCRATCH_ROOT/kill.jsonl | jq -r .verdict.status" "KILL\n"
testing "KILL exits 0 without --fail-on-kill" "$RTK calibrate $SCRATCH_ROOT/kill.jsonl >/dev/null; echo \$?" "0\n"
testing "--fail-on-kill exits 3 on KILL" "$RTK calibrate --fail-on-kill $SCRATCH_ROOT/kill.jsonl >/dev/null; echo \$?" "3\n"
testing "--fail-on-kill exits 0 on PASS" "$RTK calibrate --fail-on-kill $SCRATCH_ROOT/pass.jsonl >/dev/null; echo \$?" "0\n"
testing "one distinct high value is INCONCLUSIVE" \
	"$RTK calibrate --json $SCRATCH_ROOT/onevalue.jsonl | jq -r '.verdict.status + \": \" + .verdict.reason'" \
	"INCONCLUSIVE: every high row has the same confidence, so nothing can be ranked\n"
testing "too few wrong-or-right high rows is INCONCLUSIVE" \
	"$RTK calibrate --json $SCRATCH_ROOT/few.jsonl | jq -r '.verdict.reason'" \
	"too few high rows: 69 right and 29 wrong, 30 of each needed\n"
testing "INCONCLUSIVE is never KILL, even with --fail-on-kill" \
	"$RTK calibrate --fail-on-kill $SCRATCH_ROOT/few.jsonl >/dev/null; echo \$?" "0\n"
testing "thresholds are overridable and shown" \
	"$RTK calibrate --json --min-per-class 29 --high 0.9 --delta 0.1 $SCRATCH_ROOT/few.jsonl | jq -c '.verdict.thresholds'" \
	'{"high":0.9,"alpha":0.05,"ci_level":0.95,"equivalence_margin":0.1,"equivalence_ci_level":0.9,"min_per_class":29}\n'
a=$("$RTK" calibrate --json "$SCRATCH_ROOT/few.jsonl" | jq -r .verdict.config_sha256)
b=$("$RTK" calibrate --json "$SCRATCH_ROOT/pass.jsonl" | jq -r .verdict.config_sha256)
c=$("$RTK" calibrate --json --delta 0.04 "$SCRATCH_ROOT/pass.jsonl" | jq -r .verdict.config_sha256)
check "config_sha256 depends on the rule, not the data" test "$a" = "$b" -a "$b" != "$c" -a ${#a} -eq 64

# --- hand-checked numbers on the PASS corpus ---------------------------------------------------
# high rows: 0.85 -> 10 right/30 wrong, 0.95 -> 35 right/5 wrong. P = 45, N = 35.
# U = 35*30 (0.95 right over 0.85 wrong) + 0.5*(35*5 + 10*30) = 1050 + 237.5 = 1287.5; AUC = 1287.5/1575.
testing "high AUC by hand" "$RTK calibrate --json $SCRATCH_ROOT/pass.jsonl | jq '.overall.high.auc * 1575'" "1287.5\n"
testing "lift by hand" "$RTK calibrate --json $SCRATCH_ROOT/pass.jsonl | jq '.overall.lift | [.p_correct, .p_correct_high, .lift] | map(. * 10000 | round)'" \
	"[\n  4500,\n  5625,\n  12500\n]\n"

# --- groups -------------------------------------------------------------------------------------
sample="$RTK_SRCDIR/data/samples/calibration.jsonl"
testing "--group-by gives one section per value, in first-seen order" \
	"$RTK calibrate --json --group-by agent $sample | jq -c '[.groups[] | [.group, .all.n]]'" \
	'[["agent-a",600],["agent-b",600]]\n'
testing "group sections carry their own verdict" \
	"$RTK calibrate --json --group-by agent $sample | jq -r '.groups[] | .verdict.status' | wc -l" "2\n"
testing "rows without the group member go to (none)" \
	"$RTK calibrate --json --group-by agent input | jq -c '[.groups[].group]'" '["x","(none)","7"]\n' \
	"{\"confidence\":0.5,\"correct\":true,\"agent\":\"x\"}\n$ok\n{\"confidence\":0.5,\"correct\":true,\"agent\":7}\n"
testing "escaped group names are decoded" \
	"$RTK calibrate --json --group-by agent input | jq -r '.groups[].group'" "é-1\n" \
	"{\"confidence\":0.5,\"correct\":true,\"agent\":\"\\\\u00e9-1\"}\n"

# --- markdown -----------------------------------------------------------------------------------
testing "markdown leads with the verdict" "$RTK calibrate $SCRATCH_ROOT/pass.jsonl | sed -n 3p | cut -c1-17" "**Verdict: PASS**\n"
testing "markdown has the reliability table with empty bins flagged" \
	"$RTK calibrate $SCRATCH_ROOT/pass.jsonl | grep -c '| empty |'" "7\n"

# --- SVG ----------------------------------------------------------------------------------------
testing "--svg writes an SVG with both panels" \
	"$RTK calibrate --svg out.svg input >/dev/null && grep -c -e '<polyline' -e 'Reliability' out.svg && tail -1 out.svg" \
	"2\n</svg>\n" "$(cat "$SCRATCH_ROOT/pass.jsonl")\n"
check "the SVG is well-formed XML" /usr/bin/python3 -c "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])" "$SCRATCH/out.svg"
testing "bad input leaves no SVG behind" "$RTK calibrate --svg out.svg input 2>/dev/null; ls" "input\n" "$ok\n{bad\n"
testing "an SVG path in a missing folder fails with exit 1 and no output" \
	"$RTK calibrate --svg no/such/out.svg input 2>/dev/null; echo \$?" "1\n" "$ok\n"

# --- large files are read in parallel shares; the result must not depend on how they are cut ---
# RTK_TEST_SHARES forces the split that files over 8 MiB a core get, on small files and any machine.
{ for i in $(seq 1 40); do rows 0.$((i % 9 + 1)) $((i % 3 == 0)) 7; echo; rows 0.95 true $((i % 4)); done; } > "$SCRATCH_ROOT/shares.jsonl"
sed 's/"correct":1/"correct":true/; s/"correct":0/"correct":false/' "$SCRATCH_ROOT/shares.jsonl" > "$SCRATCH_ROOT/s.jsonl"
one=$(RTK_TEST_SHARES=1 "$RTK" calibrate --json --group-by correct "$SCRATCH_ROOT/s.jsonl")
for n in 2 3 7 8; do
	check "$n shares give the same result as one" \
		test "$(RTK_TEST_SHARES=$n "$RTK" calibrate --json --group-by correct "$SCRATCH_ROOT/s.jsonl")" = "$one"
done
lines=$(wc -l < "$SCRATCH_ROOT/s.jsonl")
{ cat "$SCRATCH_ROOT/s.jsonl"; echo '{"confidence":0.5,"correct":"late"}'; } > "$SCRATCH_ROOT/late.jsonl"
testing "a bad line in the last share is named by its line in the file" \
	"RTK_TEST_SHARES=4 $RTK calibrate $SCRATCH_ROOT/late.jsonl 2>&1 >/dev/null" \
	"rtk calibrate: $SCRATCH_ROOT/late.jsonl:$((lines + 1)): \"correct\" is a string, not true/false or 1/0\n"
{ head -n 100 "$SCRATCH_ROOT/s.jsonl"; echo '{bad'; tail -n +101 "$SCRATCH_ROOT/s.jsonl"; echo '{"confidence":0.5,"correct":"late"}'; } > "$SCRATCH_ROOT/two.jsonl"
testing "with two bad lines in different shares the first is named" \
	"RTK_TEST_SHARES=4 $RTK calibrate $SCRATCH_ROOT/two.jsonl 2>&1 >/dev/null" \
	"rtk calibrate: $SCRATCH_ROOT/two.jsonl:101: not a valid JSON object: expected a member name (column 2)\n"
testing "--skip-invalid over shares: every bad line counted, the first one named" \
	"RTK_TEST_SHARES=4 $RTK calibrate --json --skip-invalid $SCRATCH_ROOT/two.jsonl | jq -c '[.input.skipped_invalid, .input.first_skipped]'" \
	"[2,\"$SCRATCH_ROOT/two.jsonl:101: not a valid JSON object: expected a member name (column 2)\"]\n"
check "--skip-invalid over shares counts the same rows as one share" test \
	"$(RTK_TEST_SHARES=5 "$RTK" calibrate --json --skip-invalid "$SCRATCH_ROOT/two.jsonl" | jq .overall)" = \
	"$(RTK_TEST_SHARES=1 "$RTK" calibrate --json --skip-invalid "$SCRATCH_ROOT/two.jsonl" | jq .overall)"

# --- the output contract ------------------------------------------------------------------------
"$RTK" calibrate --json --group-by agent "$sample" > "$SCRATCH_ROOT/sample.json"
conforms "sample output conforms to rtk.calibrate.v1" "$SCRATCH_ROOT/sample.json" calibrate
printf '\n' | "$RTK" calibrate --json > "$SCRATCH_ROOT/empty.json"
conforms "empty-input output (nulls) conforms to rtk.calibrate.v1" "$SCRATCH_ROOT/empty.json" calibrate
"$RTK" calibrate --json --skip-invalid "$SCRATCH_ROOT/pass.jsonl" - <<<'{bad' > "$SCRATCH_ROOT/skip.json"
conforms "--skip-invalid output conforms to rtk.calibrate.v1" "$SCRATCH_ROOT/skip.json" calibrate
testing "JSON carries schema, version and a reproducible time" \
	"$RTK calibrate --json input | jq -c '[.schema, .generated_at]'" '["rtk.calibrate.v1","2023-11-14T22:13:20Z"]\n' "$ok\n"
# Issue 15: an input without newlines is refused at the line limit, not read until memory runs out.
testing "/dev/zero: refused at the default 64M line limit, naming the line" "$RTK calibrate /dev/zero 2>&1; echo \$?" \
	"rtk calibrate: /dev/zero:1: line longer than 67108864 bytes (see --max-line)\n2\n"
testing "--max-line: a longer line is named FILE:LINE" \
	"{ echo '$ok'; printf '{\"confidence\": 0.5, \"x\": \"%02000d\"}\n' 0; } > long.jsonl; $RTK calibrate --max-line 1K long.jsonl 2>&1; echo \$?" \
	"rtk calibrate: long.jsonl:2: line longer than 1024 bytes (see --max-line)\n2\n"
testing "--max-line: a bad size" "$RTK calibrate --max-line 10q input 2>&1; echo \$?" \
	"rtk calibrate: --max-line: invalid size \"10q\": expected BYTES, or a number with K, M or G\n2\n"
finish
