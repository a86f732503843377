# tests/scale/lib.sh — what the scale tests share: tests/cli/lib.sh's cases, the small organisation of
# tests/fixtures/org.sh in $ORG, and the check that pieces merged are the one-process run, byte for byte.
# Run from `make check-scale` (RTK, RTK_SRCDIR set) or by hand: RTK=$PWD/rtk RTK_SRCDIR=$PWD bash tests/scale/X.sh
. "$RTK_SRCDIR/tests/cli/lib.sh"
export RTK_DATADIR=${RTK_DATADIR:-$RTK_SRCDIR}
ORG=$SCRATCH_ROOT/org
bash "$RTK_SRCDIR/tests/fixtures/org.sh" "$ORG"

# What `rtk phase0` prints over the whole config in one process: the JSON less its generated_at lines (one
# per embedded experiment result), and the markdown.
if (cd "$ORG" && "$RTK" phase0 --json phase0.yaml >"$SCRATCH_ROOT/one.json.raw" && "$RTK" phase0 phase0.yaml >"$SCRATCH_ROOT/one.md"); then
	pass "rtk phase0 over the whole config in one process: exit 0"
else
	fail "rtk phase0 over the whole config in one process: exit 0"
fi
grep -v '"generated_at":' "$SCRATCH_ROOT/one.json.raw" >"$SCRATCH_ROOT/one.json"

# same_as_one_process NAME FILE.json|FILE.md: FILE (a merge of pieces) is the one-process run's output.
same_as_one_process() {
	local name=$1 file=$2 one=$SCRATCH_ROOT/one.${2##*.} got
	got=$(mktemp "$SCRATCH_ROOT/got.XXXXXX")
	grep -v '"generated_at":' "$file" >"$got"
	if [ -s "$got" ] && cmp -s "$one" "$got"; then
		pass "$name"
	else
		fail "$name" "$(diff -u "$one" "$got" | head -n 40)"
	fi
}

# pooled_checks NAME PIECE...: the pieces are shards 0-3 of 4, the eight repositories spread over them
# (each in one piece, no piece holding all), and the pool reaches the P2 verdict that no repository
# reaches alone: so the comparisons above compare a real pooling.
pooled_checks() {
	local name=$1 repos='.experiments["git-history"].result.repositories'
	shift
	testing "$name: four pieces, shards 0-3 of 4" \
		"jq -c '.shard | [.index, .count]' $* | sort" \
		'[0,4]\n[1,4]\n[2,4]\n[3,4]\n'
	testing "$name: the eight repositories spread over the pieces, each in one" \
		"jq -r '${repos}[].repo' $* | sort | tr '\\n' ' '; jq -s 'map($repos | length) | max < 8' $*" \
		'repos/r0 repos/r1 repos/r2 repos/r3 repos/r4 repos/r5 repos/r6 repos/r7 true\n'
	testing "$name: P2 PASS on the pool, INCONCLUSIVE on each repository alone" \
		"jq -c '[.experiments[\"git-history\"].result.verdict.status, ([${repos}[].status] | unique)]' $SCRATCH_ROOT/one.json" \
		'["PASS",["INCONCLUSIVE"]]\n'
}
