#!/usr/bin/env bash
# tests/cli/jsonscan_pow10.sh — src/lib/jsonscan_pow10.inc (the number reader's powers of ten) is what
# tests/tools/gen_jsonscan_pow10.py writes, so the table and the script that checks it never drift apart.
. "$RTK_SRCDIR/tests/cli/lib.sh"

if out=$(cd "$RTK_SRCDIR" && python3 tests/tools/gen_jsonscan_pow10.py | diff src/lib/jsonscan_pow10.inc - 2>&1); then
	pass "jsonscan_pow10.inc matches its generator"
else
	fail "jsonscan_pow10.inc matches its generator" \
		"run: python3 tests/tools/gen_jsonscan_pow10.py >src/lib/jsonscan_pow10.inc" "$out"
fi
finish
