#!/usr/bin/env bash
# tests/fuzz/replay.sh — `make check` replays every fuzz harness's seeds and saved crash inputs through its
# replay driver (built with the normal compiler), so a fixed crash stays fixed in builds without clang.
set -u
: "${RTK_SRCDIR:?}" "${RTK_BUILDDIR:?}"
status=0
for dir in "$RTK_SRCDIR"/tests/fuzz/corpus/*/; do
	h=$(basename "$dir")
	replay=$RTK_BUILDDIR/tests/fuzz/replay_$h
	if [ ! -x "$replay" ]; then
		echo "FAIL: $h: no replay driver $replay (add it to FUZZ_REPLAYS in Makefile.am)"
		status=1
		continue
	fi
	if out=$(RTK_DATADIR=$RTK_SRCDIR "$replay" "$RTK_SRCDIR/tests/fuzz/regressions/$h" "$dir" 2>&1); then
		echo "PASS: $h: $out"
	else
		echo "FAIL: $h: $out"
		status=1
	fi
done
exit $status
