#!/usr/bin/env bash
# tests/cli/calibrate_reference.sh — rtk calibrate's statistics against scikit-learn, scipy and numpy on random corpora.
. "$RTK_SRCDIR/tests/cli/lib.sh"

PY=/usr/bin/python3
if ! "$PY" -c 'import sklearn, scipy, numpy' 2>/dev/null; then
	# Not a silent pass: automake reports SKIP, and ./bootstrap installs these packages.
	echo "SKIP: needs Debian's python3-sklearn and python3-scipy (./bootstrap installs them)"
	exit 77
fi
ref="$RTK_SRCDIR/tests/reference"
scratch
for seed in 1 2 3 5 8 13 21 31; do
	"$PY" "$ref/stats_reference.py" "$seed" "$SCRATCH/c$seed.jsonl" > "$SCRATCH/want$seed.json"
	"$RTK" calibrate --json "$SCRATCH/c$seed.jsonl" > "$SCRATCH/got$seed.json"
	if out=$("$PY" "$ref/compare_calibrate.py" "$SCRATCH/want$seed.json" "$SCRATCH/got$seed.json"); then
		pass "seed $seed matches scikit-learn/scipy/numpy to 1e-9"
	else
		fail "seed $seed matches scikit-learn/scipy/numpy to 1e-9" "$out"
	fi
done
# Continuous confidences (a model's probabilities): 20,000 distinct values, past the counter's
# hash table into its sorted list, read by one thread and by two (whose counts are merged).
for seed in 7 9; do
	"$PY" "$ref/stats_reference.py" "$seed" "$SCRATCH/k$seed.jsonl" 10 0.8 continuous > "$SCRATCH/wantk$seed.json"
	for shares in 1 2; do
		RTK_TEST_SHARES=$shares "$RTK" calibrate --json "$SCRATCH/k$seed.jsonl" > "$SCRATCH/gotk$seed.json"
		if out=$("$PY" "$ref/compare_calibrate.py" "$SCRATCH/wantk$seed.json" "$SCRATCH/gotk$seed.json"); then
			pass "continuous seed $seed, $shares reader(s), matches scikit-learn/scipy/numpy to 1e-9"
		else
			fail "continuous seed $seed, $shares reader(s), matches scikit-learn/scipy/numpy to 1e-9" "$out"
		fi
	done
done
# Other bin counts and thresholds exercise other edges.
"$PY" "$ref/stats_reference.py" 4 "$SCRATCH/c.jsonl" 7 0.65 > "$SCRATCH/want.json"
"$RTK" calibrate --json --bins 7 --high 0.65 "$SCRATCH/c.jsonl" > "$SCRATCH/got.json"
if out=$("$PY" "$ref/compare_calibrate.py" "$SCRATCH/want.json" "$SCRATCH/got.json"); then
	pass "--bins 7 --high 0.65 matches the reference"
else
	fail "--bins 7 --high 0.65 matches the reference" "$out"
fi
finish
