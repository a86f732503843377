#!/usr/bin/env bash
# tests/cli/merge.sh — rtk merge: pieces pooled give, byte for byte, the one-process result; mixed rules, versions and kinds fail.
. "$RTK_SRCDIR/tests/cli/lib.sh"

GEN="python3 $RTK_SRCDIR/tests/cli/merge_gen.py"
SEEDS=${RTK_MERGE_SEEDS:-25}

# strip FILE: the result as printed, less its generated_at line: the byte-for-byte comparison.
strip() { grep -v '^	"generated_at":' "$1"; }
# strip_input FILE: also without the names of the input files and the file:line of the first skipped one.
strip_input() { jq 'del(.generated_at, .parameters.files, .input.first_skipped)' "$1"; }

# property KIND SEED: a random input dealt into pieces; each piece through the applet, the pieces merged,
# compared with one run over the pieces (exactly, only generated_at aside) and one over the whole file
# (its one name in files and its line numbers in first_skipped aside).
property() {
	local kind=$1 seed=$2 d="$SCRATCH_ROOT/$1-$2" pieces=() p args
	mkdir -p "$d" && $GEN "$kind" "$seed" "$d" || { fail "$kind seed $seed: generator"; return; }
	read -r args < "$d/args"
	for p in "$d"/p*.jsonl; do
		pieces+=("$p")
		$RTK "$kind" --json $args "$p" > "${p%.jsonl}.json" 2> "$d/err" ||
			{ fail "$kind seed $seed: $p" "$(cat "$d/err")"; return; }
	done
	$RTK "$kind" --json $args "${pieces[@]}" > "$d/one.json" &&
		$RTK "$kind" --json $args "$d/whole.jsonl" > "$d/whole.json" &&
		$RTK merge --json "${pieces[@]/%.jsonl/.json}" > "$d/merged.json" 2> "$d/err" ||
		{ fail "$kind seed $seed ($args)" "$(cat "$d/err")"; return; }
	if ! cmp -s <(strip "$d/one.json") <(strip "$d/merged.json"); then
		fail "$kind seed $seed ($args, ${#pieces[@]} pieces): merged = one run over the pieces" \
			"$(diff <(strip "$d/one.json") <(strip "$d/merged.json") | head -20)"
	elif ! cmp -s <(strip_input "$d/whole.json") <(strip_input "$d/merged.json"); then
		fail "$kind seed $seed ($args): merged = one run over the whole file" \
			"$(diff <(strip_input "$d/whole.json") <(strip_input "$d/merged.json") | head -20)"
	else
		pass "$kind seed $seed ($args, ${#pieces[@]} pieces): merge is exact"
	fi
	# Merging merges: pieces of pieces pool the same (generated_at and the order of files aside, which is kept).
	if [ "${#pieces[@]}" -ge 2 ]; then
		local half=$(( ${#pieces[@]} / 2 )) all=("${pieces[@]/%.jsonl/.json}")
		$RTK merge --json "${all[@]:0:half}" > "$d/m1.json" && $RTK merge --json "${all[@]:half}" > "$d/m2.json" &&
			$RTK merge --json "$d/m1.json" "$d/m2.json" > "$d/mm.json" &&
			cmp -s <(strip "$d/mm.json") <(strip "$d/merged.json")
		check "$kind seed $seed: a merge of merges is the merge" test $? -eq 0
	fi
}

for seed in $(seq 1 "$SEEDS"); do
	property calibrate "$seed"
	property board-history "$seed"
done
cp "$SCRATCH_ROOT/calibrate-1/merged.json" "$SCRATCH_ROOT/cal-merged.json"
cp "$SCRATCH_ROOT/board-history-1/merged.json" "$SCRATCH_ROOT/board-merged.json"
conforms "a merged calibrate result conforms to rtk.merge.v1 (and so to rtk.calibrate.v1)" "$SCRATCH_ROOT/cal-merged.json" merge
conforms "a merged calibrate result conforms to rtk.calibrate.v1" "$SCRATCH_ROOT/cal-merged.json" calibrate
conforms "a merged board-history result conforms to rtk.merge.v1" "$SCRATCH_ROOT/board-merged.json" merge
conforms "a merged board-history result conforms to rtk.board-history.v1" "$SCRATCH_ROOT/board-merged.json" board-history

# --- the shipped samples, and markdown: the merge reads as the applet's own report -----------------
S=$RTK_SRCDIR/data/samples
head -150 "$S/calibration.jsonl" > "$SCRATCH_ROOT/c1.jsonl"
tail -n +151 "$S/calibration.jsonl" > "$SCRATCH_ROOT/c2.jsonl"
C="cd $SCRATCH_ROOT && $RTK calibrate --group-by agent"
testing "markdown of a merge is the applet's markdown over all the inputs" \
	"$C --json c1.jsonl > c1.json && $C --json c2.jsonl > c2.json && diff <($C c1.jsonl c2.jsonl) <($RTK merge c1.json c2.json) && echo same" \
	"same\n"
testing "one piece merges to itself" \
	"cd $SCRATCH_ROOT && diff <(grep -v generated_at c1.json) <($RTK merge --json c1.json | grep -v generated_at) && echo same" "same\n"
testing "--fail-on-kill exits 3 on a merged KILL" \
	"cd $SCRATCH_ROOT && $RTK calibrate --json --min-per-class 1 --delta 0.45 c1.jsonl > k1.json && $RTK calibrate --json --min-per-class 1 --delta 0.45 c2.jsonl > k2.json && $RTK merge --fail-on-kill k1.json k2.json > /dev/null; echo \$?" \
	"3\n"

# --- what may not be pooled: a clear error naming both files and the member, exit 2, nothing written --
mk() { # mk NAME APPLET ARGS...: the applet's JSON over the first sample half into NAME
	local name=$1 applet=$2
	shift 2
	(cd "$SCRATCH_ROOT" && $RTK "$applet" --json "$@" > "$name")
}
mk hi7.json calibrate --high 0.7 c2.jsonl
mk grp.json calibrate c2.jsonl
mk lbl.json calibrate --bins 5 c2.jsonl
mk b1.json board-history --as-of 2026-01-01T00:00:00Z "$S/board.jsonl"
mk b2.json board-history --as-of 2026-01-01T00:00:00Z --kill-below 0.5 "$S/board.jsonl"
mk b3.json board-history --as-of 2026-01-02T00:00:00Z "$S/board.jsonl"
mk b4.json board-history --within 10d --as-of 2026-01-01T00:00:00Z "$S/board.jsonl"
M="$RTK merge"
H="cd $SCRATCH_ROOT &&"
testing "different --high: the rule hash differs" "$H $M c1.json hi7.json 2>&1; echo \$?" \
	"rtk merge: c1.json and hi7.json differ in verdict.config_sha256: \"$(cd "$SCRATCH_ROOT" && jq -r .verdict.config_sha256 c1.json)\" against \"$(cd "$SCRATCH_ROOT" && jq -r .verdict.config_sha256 hi7.json)\"\n2\n"
testing "different --group-by" "$H $M c1.json grp.json 2>&1; echo \$?" \
	"rtk merge: c1.json and grp.json differ in parameters.group_by: \"agent\" against null\n2\n"
testing "different --bins" "$H $M grp.json lbl.json 2>&1; echo \$?" \
	"rtk merge: grp.json and lbl.json differ in parameters.bins: 10 against 5\n2\n"
testing "different rtk versions" "$H sed 's/\"rtk_version\":[^,]*/\"rtk_version\": \"0.0.1\"/' c2.json > old.json; $M c1.json old.json 2>&1; echo \$?" \
	"rtk merge: c1.json and old.json differ in rtk_version: \"$($RTK --version | awk '{print $2}')\" against \"0.0.1\"\n2\n"
testing "board: different --kill-below" "$H $M b1.json b2.json 2>&1 | sed 's/: \".*//'; echo \${PIPESTATUS[0]}" \
	"rtk merge: b1.json and b2.json differ in verdict.config_sha256\n2\n"
testing "board: different --within" "$H $M b1.json b4.json 2>&1 | sed 's/: \".*//'; echo \${PIPESTATUS[0]}" \
	"rtk merge: b1.json and b4.json differ in verdict.config_sha256\n2\n"
testing "board: a different given --as-of" "$H $M b1.json b3.json 2>&1; echo \$?" \
	"rtk merge: b1.json and b3.json differ in as_of: \"2026-01-01T00:00:00Z\" against \"2026-01-02T00:00:00Z\"\n2\n"
testing "calibrate and board-history pieces do not mix" "$H $M c1.json b1.json 2>&1; echo \$?" \
	"rtk merge: b1.json: a rtk.board-history.v1 result, not rtk.calibrate.v1 like c1.json\n2\n"
testing "a git-history piece is checked before it is pooled (tests/cli/phase0_pool.sh pools real ones)" "$H echo '{\"schema\":\"rtk.git-history.v1\"}' > g.json; $M g.json 2>&1; echo \$?" \
	"rtk merge: g.json: parameters.repo is missing\n2\n"
testing "another applet's result" "$H echo '{\"schema\":\"rtk.validate.v1\"}' > v.json; $M v.json 2>&1; echo \$?" \
	"rtk merge: v.json: a rtk.validate.v1 result; rtk merge pools calibrate, board-history, git-history and sharded phase0 results\n2\n"
testing "not JSON names the file and line" "$H printf '{\n\"schema\": }' > bad.json; $M c1.json bad.json 2>&1; echo \$?" \
	"rtk merge: bad.json:2: not valid JSON (column 11): expected a value\n2\n"
testing "a piece without value counts (an older rtk's)" "$H jq 'del(.overall.value_counts)' c2.json > nocounts.json; $M c1.json nocounts.json 2>&1; echo \$?" \
	"rtk merge: nocounts.json: overall has no value_counts to merge (made by an older rtk?)\n2\n"
testing "counts that disagree with input.rows" "$H jq '.input.rows += 1' c2.json > rows.json; $M c1.json rows.json 2>&1; echo \$?" \
	"rtk merge: rows.json: overall.value_counts hold 1050 rows, input.rows says 1051\n2\n"
testing "a hash that is not the thresholds'" "$H jq '.verdict.thresholds.min_per_class = 3 | .groups[].verdict.thresholds.min_per_class = 3' c1.json > forged.json; $M forged.json 2>&1 >/dev/null | cut -c1-70; echo \${PIPESTATUS[0]}" \
	"rtk merge: forged.json: verdict.config_sha256 $(cd "$SCRATCH_ROOT" && jq -r .verdict.config_sha256 c1.json | cut -c1-24)\n2\n"
testing "a missing piece exits 1" "$H $M c1.json nope.json 2>&1; echo \$?" \
	"rtk merge: nope.json: No such file or directory\n1\n"
testing "no pieces is a usage error" "$H $RTK merge 2>&1; echo \$?" \
	"rtk merge: takes the result files to merge (rtk calibrate, board-history, git-history or phase0 --shard, each with --json)\n2\n"
testing "an error writes nothing to stdout" "$H $M c1.json hi7.json 2>/dev/null | wc -c" "0\n"

finish
