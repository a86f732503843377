#!/usr/bin/env bash
# tests/cli/phase0_pool.sh — phase0 over many repositories: git_history.repos (paths, patterns, settings) and repos_file pooled
# into one P2 verdict with a row per repository; --shard pieces merged by rtk merge equal one process, byte for byte.
. "$RTK_SRCDIR/tests/cli/lib.sh"

S="$RTK_SRCDIR/data/samples"
FIX="$RTK_SRCDIR/tests/fixtures/git-history-repo.sh"
W="$SCRATCH_ROOT/org"
mkdir -p "$W/repos"
# Eight repositories with failures of different kinds (and sizes), one of them 25 failures all S by a
# pattern that matches every path (non-discriminating).
for c in fix-with-test fix-auth fix-plain message-revert agent-culprits author-classes fixes-trailer non-discriminating; do
	bash "$FIX" "$c" "$W/repos/$c" > /dev/null 2>&1 || fail "fixture $c"
done
printf 'repos/author-classes\n# a comment, and a blank line\n\n  repos/non-discriminating  \n' > "$W/more.txt"
cat > "$W/org.yaml" <<EOF
calibration:
  corpus: $S/calibration.jsonl
  group_by: agent
git_history:
  repos:
    - "repos/fix-*"
    - repos/message-revert
    - {path: repos/agent-culprits, window: 3650d}
    - repos/fixes-trailer
  repos_file: more.txt
  window: 3650d
board:
  export: $S/board.jsonl
  from: native
EOF
strip() { grep -v '"generated_at":' "$1"; }
cd "$W" || exit 1
$RTK phase0 --json org.yaml > one.json 2> one.err
testing "every repository is read: exit 0" "cd $W && $RTK phase0 --json org.yaml > /dev/null; echo \$?" "0\n"
conforms "the pooled phase0 output conforms to rtk.phase0.v1" "$W/one.json" phase0
jq '.experiments["git-history"].result' one.json > p2.json
conforms "its pooled P2 result conforms to rtk.git-history.v1" "$W/p2.json" git-history
testing "a row per repository, most failures first, ties by name; the pooled counts are the rows' sums" \
	"jq -c '[.repositories[] | [.repo, .buckets.n]], ([.repositories[].buckets.n] | add) == .buckets.n, .parameters' $W/p2.json" \
	'[["repos/non-discriminating",25],["repos/author-classes",24],["repos/agent-culprits",3],["repos/fixes-trailer",2],["repos/fix-auth",1],["repos/fix-plain",1],["repos/fix-with-test",1],["repos/message-revert",1]]\ntrue\n{"repositories":8,"unreadable":0}\n'
testing "the pooled verdict is the rule over the pooled failures, and names how many repositories" \
	"jq -r '.verdict.status + \": \" + .verdict.reason' $W/p2.json" \
	"PASS: bucket 3 (only self-reflection) holds 31 of 58 across 8 repositories, upper 95% bound 0.657 >= 0.15\n"
testing "each failure names its repository, in repository-name order" \
	"jq -r '[.failures[].repo] | unique == (. | unique) and (. == (. | sort))' $W/p2.json" "true\n"

# The pooled P2 equals rtk merge of each repository's own git-history result.
for c in fix-with-test fix-auth fix-plain message-revert agent-culprits author-classes fixes-trailer non-discriminating; do
	$RTK git-history --json --window 3650d --repo "repos/$c" > "gh-$c.json" 2>/dev/null || fail "git-history $c"
done
$RTK merge --json gh-*.json > gh-merged.json 2> gh.err || fail "merge of git-history results" "$(cat gh.err)"
check "rtk merge of one git-history result per repository = phase0's pooled P2, byte for byte" \
	cmp -s <(strip p2.json) <(jq '.' gh-merged.json | grep -v '"generated_at":')
conforms "merged git-history output conforms to rtk.merge.v1" "$W/gh-merged.json" merge

# The merge is exact however the results are grouped: random groupings of the eight results, each group
# merged, then the merged groups merged, equal the merge of all eight (and phase0's pooled P2).
RANDOM=29
for seed in 1 2 3 4 5 6; do
	rm -rf "grp-$seed" && mkdir "grp-$seed"
	for c in fix-with-test fix-auth fix-plain message-revert agent-culprits author-classes fixes-trailer non-discriminating; do
		f=gh-$c.json g=$((RANDOM % 3))
		mkdir -p "grp-$seed/$g" && cp "$f" "grp-$seed/$g/"
	done
	parts=()
	for g in "grp-$seed"/*/; do
		$RTK merge --json "$g"gh-*.json > "${g}merged.json" 2>/dev/null || fail "seed $seed: merge of $g"
		parts+=("${g}merged.json")
	done
	if $RTK merge --json "${parts[@]}" > "grp-$seed/all.json" 2> err && cmp -s <(strip gh-merged.json) <(strip "grp-$seed/all.json"); then
		pass "random grouping $seed (${#parts[@]} groups): the merge of merged groups is the merge of all"
	else
		fail "random grouping $seed: merge of merges" "$(cat err; diff <(strip gh-merged.json) <(strip "grp-$seed/all.json") | head)"
	fi
done
jq '.rtk_version = "0.0.9"' gh-fix-plain.json > old-version.json
jq '.verdict.config_sha256 = "0000" | .config_sha256 = "0000"' gh-fix-auth.json > other-rules.json
testing "git-history results of another rtk version or other rules are refused, naming both" \
	"cd $W && $RTK merge gh-message-revert.json old-version.json 2>&1; echo \$?; $RTK merge gh-message-revert.json other-rules.json 2>&1; echo \$?; $RTK merge gh-fix-plain.json gh-fix-plain.json 2>&1; echo \$?" \
	"rtk merge: gh-message-revert.json and old-version.json were made by different rtk versions (0.1.0, 0.0.9)\n2\nrtk merge: gh-message-revert.json and other-rules.json were made under different git-history rules (verdict.config_sha256 differs): pool results made with the same rules and rtk version\n2\nrtk merge: gh-fix-plain.json: repository repos/fix-plain is already in the pool (a repository may be in one piece only)\n2\n"

# --shard: every split, pieces given in any order, merged = one process (JSON and markdown).
$RTK phase0 org.yaml > one.md 2>/dev/null
for n in 1 2 3 5 9; do
	pieces=()
	for ((i = 0; i < n; i++)); do
		$RTK phase0 --shard "$i/$n" --json org.yaml > "piece-$n-$i.json" 2> err || fail "shard $i/$n" "$(cat err)"
		pieces+=("piece-$n-$i.json")
	done
	shuffled=($(printf '%s\n' "${pieces[@]}" | sort -r))
	if $RTK merge --json "${shuffled[@]}" > "merged-$n.json" 2> err && cmp -s <(strip one.json) <(strip "merged-$n.json"); then
		pass "$n shards, merged in reverse order: the one-process JSON, byte for byte"
	else
		fail "$n shards merged = one process" "$(cat err; diff <(strip one.json) <(strip "merged-$n.json") | head -20)"
	fi
	$RTK merge "${pieces[@]}" > "merged-$n.md" 2>/dev/null
	check "$n shards: the merged markdown is the one-process markdown" cmp -s <(strip one.md) <(strip "merged-$n.md")
done
conforms "a shard's piece conforms to rtk.phase0.v1" "$W/piece-3-1.json" phase0
testing "the split is by size: each repository in exactly one piece, calibration and the board each in one" \
	"jq -s -c '[.[].experiments[\"git-history\"].result.repositories | length] | add' $W/piece-3-*.json; jq -s -c '[.[].shard.holds[]] | sort' $W/piece-3-*.json" \
	'8\n["board-history","calibrate"]\n'
testing "--shard auto in a Slurm job array (SLURM_ARRAY_TASK_ID less SLURM_ARRAY_TASK_MIN) is --shard I/N" \
	"cd $W && SLURM_ARRAY_TASK_ID=5 SLURM_ARRAY_TASK_MIN=4 SLURM_ARRAY_TASK_COUNT=3 $RTK phase0 --shard auto --json org.yaml | grep -v generated_at | cmp -s - <(grep -v generated_at piece-3-1.json); echo \$?" \
	"0\n"
testing "--shard auto in a Kubernetes Indexed Job takes the count from --shard-count" \
	"cd $W && JOB_COMPLETION_INDEX=2 $RTK phase0 --shard auto --shard-count 3 --json org.yaml | grep -v generated_at | cmp -s - <(grep -v generated_at piece-3-2.json); echo \$?" \
	"0\n"
testing "--shard auto without a count, and outside any job array, says what to give" \
	"cd $W && JOB_COMPLETION_INDEX=1 $RTK phase0 --shard auto org.yaml 2>&1; echo \$?; env -u SLURM_ARRAY_TASK_ID -u JOB_COMPLETION_INDEX $RTK phase0 --shard auto org.yaml 2>&1; echo \$?" \
	"rtk phase0: --shard auto: JOB_COMPLETION_INDEX=1 is set, but not how many shards: give --shard-count N (the Job's completions)\n2\nrtk phase0: --shard auto: neither SLURM_ARRAY_TASK_ID (a Slurm job array) nor JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) is set; give --shard I/N\n2\n"
testing "a shard out of range is refused" \
	"cd $W && $RTK phase0 --shard 3/3 org.yaml 2>&1; echo \$?; $RTK phase0 --shard 1 org.yaml 2>&1; echo \$?" \
	"rtk phase0: --shard 3/3: I must be a whole number from 0 to 2 (shards count from 0)\n2\nrtk phase0: --shard 1: give I/N (the shard's 0-based index, the number of shards) or auto\n2\n"
testing "a missing or repeated shard, or a piece of another config, fails the merge naming it" \
	"cd $W && $RTK merge piece-3-0.json piece-3-2.json 2>&1; echo \$?; $RTK merge piece-3-0.json piece-3-1.json piece-3-1.json piece-3-2.json 2>&1; echo \$?; $RTK merge piece-3-0.json piece-2-1.json 2>&1; echo \$?; $RTK merge one.json 2>&1; echo \$?" \
	"rtk merge: shard 1 of 3 is missing: merge every piece of the run\n2\nrtk merge: piece-3-1.json and piece-3-1.json are both shard 1 of 3\n2\nrtk merge: piece-3-0.json is a piece of 3 shards, piece-2-1.json of 2\n2\nrtk merge: one.json: not a piece of a sharded run (no \"shard\" member): a whole phase0 result has nothing to merge\n2\n"
sed 's/window: 3650d$/window: 3000d/' org.yaml > other.yaml
$RTK phase0 --shard 1/3 --json other.yaml > other-1.json 2>/dev/null
testing "pieces of two configs are refused" \
	"cd $W && $RTK merge piece-3-0.json other-1.json piece-3-2.json 2>&1; echo \$?" \
	"rtk merge: piece-3-0.json and other-1.json were made from different configs (parameters.config_sha256 differs)\n2\n"
testing "--html goes with the merged report, not with a piece" \
	"cd $W && $RTK phase0 --shard 0/2 --html x.html org.yaml 2>&1; echo \$?; ls x.html 2>&1 | sed 's/.*x.html.*/no page/'" \
	"rtk phase0: --html with --shard: a piece is not the report; rtk merge the pieces first\n2\nno page\n"

# A repository that cannot be read is a row with its error; the run goes on and exits 1, saying how many.
mkdir -p notrepo
cat > bad.yaml <<EOF
git_history:
  repos: [repos/fix-plain, repos/gone, notrepo]
  window: 3650d
EOF
testing "unreadable repositories are rows with their error, counted, and the run exits 1 at the end" \
	"cd $W && $RTK phase0 --json bad.yaml 2>err > out.json; echo \$?; cat err; jq -c '.experiments[\"git-history\"].result | [.parameters, [.repositories[] | [.repo, .status]]]' out.json" \
	'1\nrtk phase0: 2 of 3 repositories could not be read: their rows in the report say why\n[{"repositories":3,"unreadable":2},[["repos/fix-plain","INCONCLUSIVE"],["notrepo","ERROR"],["repos/gone","ERROR"]]]\n'
testing "the shard holding an unreadable repository exits 1 too, and so does their merge" \
	"cd $W && for i in 0 1 2; do $RTK phase0 --shard \$i/3 --json bad.yaml > b\$i.json 2>/dev/null; echo \$?; done | sort | tr '\n' ' '; echo; $RTK merge --json b0.json b1.json b2.json 2>&1 >/dev/null; echo \$?" \
	"0 1 1 \nrtk merge: 2 repositories could not be read: their rows in the report say why\n1\n"

# A file of paths takes patterns too, relative to the file's own folder.
mkdir -p lists && printf '../repos/fix-p*\n../repos/message-revert\r\n' > lists/some.txt
printf 'git_history:\n  repos_file: lists/some.txt\n  window: 3650d\n' > listed.yaml
testing "repos_file: a pattern and a CRLF line, relative to the file's folder" \
	"cd $W && $RTK phase0 --json listed.yaml | jq -c '[.experiments[\"git-history\"].result.repositories[].repo] | sort'" \
	'["../repos/fix-plain","../repos/message-revert"]\n'

# Mistakes in the list are refused before anything runs, at their line.
printf 'git_history:\n  repos:\n    - repos/fix-plain\n    - "nothing-*"\n' > nomatch.yaml
printf 'git_history:\n  repos:\n    - repos/fix-plain\n    - repos/fix-*\n' > twice.yaml
printf 'git_history:\n  repos:\n    - {path: repos/fix-plain, window: 3m}\n' > badwin.yaml
printf 'git_history:\n  repos:\n    - {path: repos/fix-plain, revv: main}\n' > badkey.yaml
printf 'git_history:\n  repos_file: nofile.txt\n' > nofile.yaml
testing "a pattern matching nothing, a repository listed twice, a bad window, a mistyped key, a missing file" \
	"cd $W && for f in nomatch twice badwin badkey nofile; do $RTK phase0 \$f.yaml 2>&1 | sed 's/: No such file.*/: No such file/'; echo \${PIPESTATUS[0]}; done" \
	"rtk phase0: nomatch.yaml:4: git_history.repos: nothing-* matches no folder\n2\nrtk phase0: twice.yaml:4: repository repos/fix-plain is listed twice (also twice.yaml:3)\n2\nrtk phase0: badwin.yaml:3:7: git_history.repos: window: invalid duration \"3m\": 'm' is ambiguous: write min for minutes or mo for months; units: s, min, h, d, w, mo (30 days), y (365 days)\n2\nrtk phase0: badkey.yaml:3:31: unknown key \`revv\` in \`git_history.repos[0]\`: did you mean \`rev\`?\n2\nrtk phase0: nofile.yaml:2:3: git_history.repos_file: ./nofile.txt: No such file\n2\n"

# Two corpora and two board exports: the pooled verdicts, and a table by source with each file's own figures.
head -700 "$S/calibration.jsonl" > api.jsonl; tail -n +701 "$S/calibration.jsonl" > web.jsonl
head -200 "$S/board.jsonl" > b-a.jsonl; tail -n +201 "$S/board.jsonl" > b-b.jsonl
cat > src.yaml <<EOF2
calibration:
  corpus: [web.jsonl, api.jsonl]
  group_by: agent
git_history:
  repos: [repos/fix-plain]
  window: 3650d
board:
  export: [b-a.jsonl, b-b.jsonl]
  from: native
EOF2
$RTK phase0 --json src.yaml > src.json 2>/dev/null
testing "calibration's table by source: a row per corpus, most rows first, each with its own AUC" \
	"cd $W && jq -c '.experiments.calibrate.by_source[] | [.source, .n, .key_figure.value == \$a.overall.high.auc or .key_figure.value == \$w.overall.high.auc]' src.json --argjson a \"\$($RTK calibrate --json --group-by agent api.jsonl)\" --argjson w \"\$($RTK calibrate --json --group-by agent web.jsonl)\"" \
	'["./api.jsonl",700,true]\n["./web.jsonl",500,true]\n'
testing "the pooled P1 verdict is the one over both corpora" \
	"cd $W && jq -r '.experiments.calibrate.result.overall.high.auc == \$whole.overall.high.auc' src.json --argjson whole \"\$($RTK calibrate --json --group-by agent $S/calibration.jsonl)\"" \
	"true\n"
testing "board-history's table by source: a row per export with its own rate" \
	"cd $W && jq -c '[.experiments[\"board-history\"].by_source[] | .source] | sort' src.json" \
	'["./b-a.jsonl","./b-b.jsonl"]\n'
conforms "a phase0 output with tables by source conforms to rtk.phase0.v1" "$W/src.json" phase0
$RTK phase0 src.yaml > src.md 2>/dev/null
for i in 0 1 2; do $RTK phase0 --shard $i/3 --json src.yaml > src-$i.json 2>/dev/null; done
check "with tables by source, three shards merged = one process" \
	cmp -s <(strip src.json) <($RTK merge --json src-2.json src-0.json src-1.json | grep -v '"generated_at":')
check "and the markdown, with its By source tables" \
	cmp -s <(strip src.md) <($RTK merge src-0.json src-1.json src-2.json | grep -v '"generated_at":')
sed -e 's/^  corpus: /  corpora: /' -e 's/^  export: /  exports: /' src.yaml > plural.yaml
testing "corpora: and exports: are corpus: and export: by their plural names" \
	"cd $W && diff <($RTK phase0 --json plural.yaml | jq -S 'del(.generated_at, .parameters) | walk(if type == \"object\" then del(.generated_at) else . end)') <(jq -S 'del(.generated_at, .parameters) | walk(if type == \"object\" then del(.generated_at) else . end)' src.json) && echo same" \
	"same\n"
printf 'calibration:\n  corpus: api.jsonl\n  corpora: [web.jsonl]\n' > both.yaml
testing "corpus: and corpora: together are refused at the line" \
	"cd $W && $RTK phase0 both.yaml 2>&1; echo \$?" \
	"rtk phase0: both.yaml:3:3: calibration.corpus and calibration.corpora name the same files: give one of them\n2\n"
testing "one corpus, one export: no table by source" \
	"cd $W && jq -c '[.experiments[] | has(\"by_source\")]' one.json" '[false,false,false]\n'

# The pooled KILL holds only if it survives each non-discriminating pattern disabled where it is one.
printf 'git_history:\n  repos: [repos/non-discriminating, repos/fix-with-test]\n  window: 3650d\n' > nd.yaml
testing "a pooled KILL resting on a pattern that does not discriminate in one repository is INCONCLUSIVE" \
	"cd $W && $RTK phase0 --json nd.yaml | jq -r '.experiments[\"git-history\"].result.verdict | .status + \": \" + .reason'" \
	"INCONCLUSIVE: KILL rests on the risk-floor pattern 'vite' (build), which does not discriminate in 1 of the 2 repositories: without it bucket 3 holds 25 of 26, upper 95% bound 0.993 >= 0.15\n"
testing "the same repository alone: its own verdict says the same" \
	"cd $W && jq -r '.verdict.status' gh-non-discriminating.json" "INCONCLUSIVE\n"
finish
