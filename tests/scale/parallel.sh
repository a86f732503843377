#!/usr/bin/env bash
# tests/scale/parallel.sh — examples/scale/parallel-phase0.sh run for real (GNU parallel, 4 shards) over
# tests/fixtures/org.sh, equal to one-process phase0; and a piece missing from a merge refused (exit 2).
set -u
command -v parallel >/dev/null || {
	echo "tests/scale/parallel.sh: GNU parallel is missing: ./bootstrap --tests installs it (Debian's parallel)" >&2
	exit 1
}
. "$RTK_SRCDIR/tests/scale/lib.sh"
PATH="$(dirname "$RTK"):$PATH"
export PATH
cd "$ORG" || exit 1
if sh "$RTK_SRCDIR/examples/scale/parallel-phase0.sh" phase0.yaml; then
	pass "parallel-phase0.sh: four shards under GNU parallel, then rtk merge, exit 0"
else
	fail "parallel-phase0.sh: four shards under GNU parallel, then rtk merge, exit 0"
fi
pooled_checks "parallel" "$ORG"/piece-*.json
same_as_one_process "parallel: the merged JSON is the one-process rtk phase0 --json" "$ORG/phase0.json"
rtk merge piece-*.json >phase0.md
same_as_one_process "parallel: the merged markdown is the one-process rtk phase0" "$ORG/phase0.md"
testing "parallel: a merge missing a piece is refused, naming it, exit 2, nothing on stdout" \
	"cd $ORG && rtk merge --json piece-0.json piece-1.json piece-3.json 2>&1 >out.json; echo \$? \$(wc -c <out.json)" \
	'rtk merge: shard 2 of 4 is missing: merge every piece of the run\n2 0\n'
finish
