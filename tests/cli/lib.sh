# tests/cli/lib.sh — toybox-style CLI test helpers: one `testing` line per case.
#
#   testing NAME COMMAND EXPECTED [INPUT_FILE_CONTENT] [STDIN]
#
# COMMAND runs under bash in a fresh scratch folder; INPUT_FILE_CONTENT (if not empty) is written to
# ./input first, STDIN is piped in. EXPECTED is compared with stdout exactly; add "2>&1" or
# "; echo \$?" to the command to check messages and exit codes. Escapes (\n) in EXPECTED,
# INPUT_FILE_CONTENT and STDIN are interpreted by printf %b.
# Run from `make check` (RTK, RTK_SRCDIR set) or by hand: RTK=./rtk RTK_SRCDIR=. bash tests/cli/x.sh

set -u
: "${RTK:?RTK must name the rtk binary under test}"
: "${RTK_SRCDIR:?RTK_SRCDIR must name the source tree}"
export LC_ALL=C SOURCE_DATE_EPOCH=1700000000

TESTS_PASSED=0
TESTS_FAILED=0
SCRATCH_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/rtk-cli.XXXXXX")
trap 'rm -rf "$SCRATCH_ROOT"' EXIT

# A fresh empty folder for each case, so no case sees another's files.
scratch() {
	SCRATCH=$(mktemp -d "$SCRATCH_ROOT/case.XXXXXX")
}

pass() {
	TESTS_PASSED=$((TESTS_PASSED + 1))
	echo "PASS: $1"
}

fail() {
	TESTS_FAILED=$((TESTS_FAILED + 1))
	echo "FAIL: $1"
	shift
	[ $# -gt 0 ] && printf '%s\n' "$@" | sed 's/^/    /'
	return 0
}

testing() {
	local name=$1 cmd=$2 expected actual
	expected=$(printf '%b' "$3"; echo x)
	expected=${expected%x}
	scratch
	[ -n "${4:-}" ] && printf '%b' "$4" > "$SCRATCH/input"
	actual=$(cd "$SCRATCH" && printf '%b' "${5:-}" | bash -c "$cmd"; echo x)
	actual=${actual%x}
	if [ "$actual" = "$expected" ]; then
		pass "$name"
	else
		fail "$name" "command: $cmd" "--- expected" "$expected" "--- actual" "$actual"
	fi
}

# check NAME CONDITION-COMMAND... : passes when the command succeeds (for properties, not exact text).
check() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name" "failed: $*"; fi
}

# The closing line automake's log and CI read; non-zero exit when anything failed.
finish() {
	echo "$TESTS_PASSED passed, $TESTS_FAILED failed"
	[ "$TESTS_FAILED" -eq 0 ]
}

# conforms NAME JSON_FILE APPLET: the file validates against schemas/rtk.APPLET.v1.schema.json (draft
# 2020-12, formats asserted; $refs between shipped schemas resolved), checked by rtk's own validator so
# no output can drift from its contract.
conforms() {
	local name=$1 file=$2 schema="$RTK_SRCDIR/schemas/rtk.$3.v1.schema.json" out
	if out=$("$RTK" validate --assert-format --all --ref-dir "$RTK_SRCDIR/schemas" --schema "$schema" "$file" 2>&1); then
		pass "$name"
	else
		fail "$name" "$out"
	fi
}

# rows CONFIDENCE CORRECT COUNT: COUNT corpus lines with that confidence and label.
rows() {
	local i
	for ((i = 0; i < $3; i++)); do printf '{"confidence":%s,"correct":%s}\n' "$1" "$2"; done
}

# --- waiting on events, never on the clock ---------------------------------------------------------
# No test may fail because the machine is slow: a test waits for the event it needs (a file written, a
# process gone, a screen drawn), and HANG_GUARD seconds (RTK_TEST_HANG_GUARD, default 600) only stop a
# wait that would otherwise never end, when the code under test is broken.
HANG_GUARD=${RTK_TEST_HANG_GUARD:-600}

# eventually CMD...: CMD polled every 50 ms until it succeeds (0), or HANG_GUARD passes (1).
eventually() {
	local end=$((SECONDS + HANG_GUARD))
	until "$@" 2>/dev/null; do
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.05
	done
}

# gone PID: the process has ended (a zombie nobody reaps counts as ended: this machine's init may not
# reap orphans).
gone() { [ ! -e "/proc/$1" ] || grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }

# server_port DIR PID: the port a test server (tests/servers/llm_server.py --port-file DIR/port) listens
# on, once it has written it; empty when the server died first.
server_port() {
	eventually eval "[ -s '$1/port' ] || ! kill -0 $2"
	cat "$1/port" 2>/dev/null
}
# For the commands `testing` and `check` run in a shell of their own.
export HANG_GUARD
export -f eventually gone
