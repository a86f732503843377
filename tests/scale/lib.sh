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

# pooled_checks NAME PIECE...: the pieces are four shards, each with part of the failures, and the pool
# reaches the P2 verdict no repository reaches alone (so the comparison above compares something).
pooled_checks() {
	local name=$1
	shift
	testing "$name: four pieces, shards 0-3 of 4" \
		"jq -c '.shard' $* | sort" \
		'{"count":4,"index":0}\n{"count":4,"index":1}\n{"count":4,"index":2}\n{"count":4,"index":3}\n'
	testing "$name: the pool's P2 verdict, from failures of all eight repositories" \
		"jq -r '.summary[] | select(.experiment == \"P2\") | .status' $SCRATCH_ROOT/one.json" \
		'PASS\n'
}
