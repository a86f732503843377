#!/usr/bin/env bash
# tests/cli/bench_org_gen.sh — bench/git_history_gen.py --repos (issue 29 item 5): the repositories bench/org-scale.sh
# measures must be the same for a seed, sized as asked, and full of failures rtk git-history finds and links.
. "$RTK_SRCDIR/tests/cli/lib.sh"

GEN="/usr/bin/python3 $RTK_SRCDIR/bench/git_history_gen.py"
A="$SCRATCH_ROOT/a" B="$SCRATCH_ROOT/b"
$GEN --repos 3 --seed 5 --out "$A" > "$SCRATCH_ROOT/a.txt" || echo "generator failed" >&2
$GEN --repos 1 --first 2 --seed 5 --out "$B" > "$SCRATCH_ROOT/b.txt" || echo "generator failed" >&2
for i in 0 1 2; do
	"$RTK" git-history --window 365d --json --repo "$A/repo-000$i" > "$SCRATCH_ROOT/gh-$i.json"
done

testing "one line per repository: its path, commits (the initial import and the year's), files" \
	"awk '{ print \$1, (\$2 > 1), (\$3 > 0) }' $SCRATCH_ROOT/a.txt | sed 's|$A/||'" \
	"repo-0000 1 1\nrepo-0001 1 1\nrepo-0002 1 1\n"
testing "the history holds the commits the line says, on main" \
	"for i in 0 1 2; do git -C $A/repo-000\$i rev-list --count main; done | paste -sd' '" \
	"$(awk '{ print $2 }' "$SCRATCH_ROOT/a.txt" | paste -sd' ')\n"
testing "repository I depends only on the seed and I: --first 2 makes the same repo-0002, commit for commit" \
	"git -C $B/repo-0002 rev-parse HEAD" "$(git -C "$A/repo-0002" rev-parse HEAD)\n"
testing "another seed, other repositories" \
	"$GEN --repos 1 --seed 6 --out o >/dev/null && [ \$(git -C o/repo-0000 rev-parse HEAD) != $(git -C "$A/repo-0000" rev-parse HEAD) ] && echo differ" "differ\n"
testing "commits drawn from --min-commits..--max-commits (one more: the initial import)" \
	"$GEN --repos 4 --min-commits 50 --max-commits 60 --out s | awk '{ print (\$2 >= 51 && \$2 <= 61) }' | paste -sd' '" "1 1 1 1\n"
testing "the year before HEAD: the window of 365 days holds every commit but the initial import" \
	"for i in 0 1 2; do jq '.input.commits_in_window' $SCRATCH_ROOT/gh-\$i.json; done | paste -sd' '" \
	"$(awk '{ print $2 - 1 }' "$SCRATCH_ROOT/a.txt" | paste -sd' ')\n"
testing "git-history finds fixes and reverts in every repository" \
	"jq -r '[([.failures[] | select(.kind == \"fix\")] | length > 5), ([.failures[] | select(.kind == \"revert\")] | length > 0)] | @tsv' $SCRATCH_ROOT/gh-*.json" \
	"true\ttrue\ntrue\ttrue\ntrue\ttrue\n"
testing "every Fixes: trailer and revert message names a commit of the repository (rtk links each as ground truth)" \
	"jq -r '.accuracy | [.fixes_trailers.remedies > 0, .fixes_trailers.truth_links == .fixes_trailers.remedies, .revert_messages.truth_links == .revert_messages.remedies] | @tsv' $SCRATCH_ROOT/gh-*.json" \
	"true\ttrue\ttrue\ntrue\ttrue\ttrue\ntrue\ttrue\ttrue\n"
testing "all three buckets are filled: tests under tests/, culprits under auth/ or migrations/, and neither" \
	"jq -s '[.[].buckets | .ci_bucket.count, .review_bucket.count, .reflection_bucket.count] as \$c | [\$c[0] + \$c[3] + \$c[6] > 0, \$c[1] + \$c[4] + \$c[7] > 0, \$c[2] + \$c[5] + \$c[8] > 0]' -c $SCRATCH_ROOT/gh-*.json" \
	"[true,true,true]\n"
testing "an unknown option is refused" "$GEN --repo 3 2>&1; echo \$?" "git_history_gen: unknown option --repo\n1\n"
testing "the large history's form is unchanged: COMMITS FILES SEED on stdout" \
	"$GEN 30 10 1 | grep -c '^commit refs/heads/main'" "30\n"
finish
