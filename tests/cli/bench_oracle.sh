#!/usr/bin/env bash
# tests/cli/bench_oracle.sh — bench/oracle.sh on tests/fixtures/oracle-repo.sh, whose trailers give known answers.
. "$RTK_SRCDIR/tests/cli/lib.sh"

R="$SCRATCH_ROOT/oracle-repo"
bash "$RTK_SRCDIR/tests/fixtures/oracle-repo.sh" "$R" >/dev/null 2>&1 || echo "fixture oracle-repo failed" >&2
export BENCH_OUT="$SCRATCH_ROOT/out"
run="RTK=$RTK bash $RTK_SRCDIR/bench/oracle.sh $R 365d 30d 2>/dev/null"

# The expected figures are worked out by hand in the fixture's header.
testing "eight trailer fixes, nine named culprits, two ghosts, two shas dropped (unknown, not an ancestor)" \
	"$run | tail -1 | jq -c '[.trailer_fixes, .trailer_culprits, .ghost_fixes, .dropped_trailer_shas]'" '[8,9,2,2]\n'
testing "rtk --blame-only: 8 links, 6 right; precision 6/8 and recall 6/9 with their Wilson intervals" \
	"$run | tail -1 | jq -c '.rtk | [.linked, .correct, .truth, .precision, .precision_ci, .recall, .recall_ci]'" \
	'[8,6,9,0.75,[0.4093,0.9285],0.6667,[0.3542,0.8794]]\n'
testing "B-SZZ: 7 links (a tie gives both, a majority one), 5 right: precision 5/7, recall 5/9" \
	"$run | tail -1 | jq -c '.bszz | [.linked, .correct, .truth, .precision, .precision_ci, .recall, .recall_ci]'" \
	'[7,5,9,0.7143,[0.3589,0.9178],0.5556,[0.2667,0.8112]]\n'
testing "rtk's primary culprits alone: 7 links (five-b, the newer of a tie, for fix-five), 5 right" \
	"$run | tail -1 | jq -c '.rtk_primary | [.linked, .correct, .truth]'" '[7,5,9]\n'
testing "the per-fix detail names rtk's primary culprit" \
	"$run >/dev/null && jq -c 'select(.rtk | length == 2) | [(.rtk_primary | length), (.rtk_primary[0] as \$p | .rtk | index(\$p) != null)]' $BENCH_OUT/oracle/oracle-repo-365d-fw30d.fixes.jsonl" '[1,true]\n'
testing "without the ghost fixes: recall 5/7 and 5/7" \
	"$run | tail -1 | jq -c '[.rtk.recall_non_ghost, .bszz.recall_non_ghost]'" '[0.7143,0.7143]\n'
testing "what rtk did with each trailer fix: seven linked by blame, the ghost with split context unlinked as weak" \
	"$run | tail -1 | jq -c '.rtk.outcomes'" '{"linked:fix:blame":7,"unlinked:fix:weak":1}\n'
testing "a trailer in a paragraph above the sign-off is read (fix-four counts)" \
	"$run >/dev/null && jq -r 'select(.truth | length == 1) | .fix' $BENCH_OUT/oracle/oracle-repo-365d-fw30d.fixes.jsonl | xargs -n1 git -C $R log -1 --format=%s | grep -c '^four:'" '1\n'
testing "the markdown row" \
	"$run | sed -n 3p | sed 's/| [0-9.]* s | [0-9]* MiB |$/| T | M |/'" \
	'| oracle-repo | 365d (fix window 30d) | 8 | 0.750 (6/8; 0.41–0.93) | 0.667 (6/9; 0.35–0.88) | 0.714 (5/7; 0.36–0.92) | 0.556 (5/9; 0.27–0.81) | 2 | T | M |\n'
testing "rtk's time and peak memory are measured" \
	"$run | tail -1 | jq -c '[.rtk_runs, (.rtk_wall_seconds >= 0), (.rtk_peak_rss_kib > 0)]'" '[1,true,true]\n'
testing "a repository is required" "RTK=$RTK bash $RTK_SRCDIR/bench/oracle.sh >/dev/null 2>&1; echo \$?" '2\n'
testing "not a repository" "RTK=$RTK bash $RTK_SRCDIR/bench/oracle.sh . 2>&1; echo \$?" \
	"oracle: . is not a git repository\n2\n"
finish
