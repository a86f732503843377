#!/usr/bin/env bash
# tests/cli/iterate_watch.sh — rtk iterate watch in a real terminal: tmux, 80x24, a project made by
# hand. The header and both log columns show and follow changes to state.json and the logs, no line
# is wider than the pane, a resize redraws at the new width, escapes in logs never reach the
# terminal, and C-c ends it with 128+SIGINT, the cursor shown again below the last frame.
. "$(dirname "$0")/lib.sh"

if ! command -v tmux >/dev/null; then
	echo "SKIP: tmux is not installed (Debian package tmux): rtk iterate watch is not tried in a terminal"
	exit 77
fi

unset TMUX # a private server on its own socket, also when the tests run inside tmux
scratch
P=$SCRATCH/proj
SOCK=$SCRATCH/tmux.sock
OUT=$SCRATCH/out
# tmux needs a UTF-8 locale for what it shows; rtk's view does not care.
T() { LC_ALL=C.UTF-8 tmux -u -S "$SOCK" -f /dev/null "$@"; }
trap 'T kill-server 2>/dev/null; rm -rf "$SCRATCH_ROOT"' EXIT

# --- the project, by hand -------------------------------------------------------------------------------
mkdir -p "$P/.anima/milestones" "$P/.anima/logs/M1"
cat > "$P/.anima/config.json" <<'EOF'
{"wake_schedule":{"mode":"manual"},"developer_command":"true","acceptor_command":"true"}
EOF
state() { # state PHASE ROUND DEVELOPER_LOG ACCEPTOR_LOG, written atomically as rtk writes it
	printf '{"status":"awake","current_milestone":"M1","rate_limit_reset_at":null,"phase":"%s","round":%s,"developer_log":"%s","acceptor_log":"%s"}\n' \
		"$1" "$2" "$3" "$4" > "$P/.anima/.state.json.tmp" && mv "$P/.anima/.state.json.tmp" "$P/.anima/state.json"
}
state developer 2 .anima/logs/M1/round-2-developer.log .anima/logs/M1/round-1-acceptor.log
echo '["M1"]' > "$P/.anima/milestones/order.json"
cat > "$P/.anima/milestones/M1.json" <<'EOF'
{"status":"in_progress","base_commit":null,"iteration_count":1,"consecutive_rejections":0,"tokens_used":0,"cost_usd":0,"requires_human_review":false}
EOF
printf 'dev: reading the plan\ndev: writing src/feature.c\n' > "$P/.anima/logs/M1/round-2-developer.log"
printf 'REJECTED: the tests do not cover the error path\n' > "$P/.anima/logs/M1/round-1-acceptor.log"

# --- helpers --------------------------------------------------------------------------------------------
# screen: what the pane shows, wrapped lines joined (so a line wider than the pane shows as one).
screen() { T capture-pane -p -J -t w; }
# shows REGEX: the pane shows a line matching it.
shows() { screen | grep -Eq -- "$1"; }
# wait_screen REGEX: until the pane shows a line matching it (lib.sh's eventually: only the hang guard
# gives up, so a slow machine is waited for).
wait_screen() {
	eventually shows "$1" && return 0
	echo "    the pane never showed /$1/; it shows:" && screen | sed 's/^/    | /'
	return 1
}
# widest: the widest line of the pane in columns (wide characters count two), by Python's tables.
widest() {
	screen | python3 -c 'import sys, unicodedata as u
print(max([sum(2 if u.east_asian_width(c) in "WF" else 1 for c in l.rstrip("\n")) for l in sys.stdin] or [0]))'
}
# lacks REGEX: no line of the pane matches it.
lacks() { ! screen | grep -Eq -- "$1"; }
# no_colour: the pane's cells carry no colour or bold (capture-pane -e shows attributes as SGR escapes).
no_colour() { ! T capture-pane -p -e -t w | grep -q $'\033\\[[0-9;]*m'; }
# separator_columns: the columns where " | " starts on the log rows (ASCII on the left), as a set.
separator_columns() { screen | sed -n '3,$p' | grep -F ' |' | awk '{ print index($0, " |") - 1 }' | sort -u | tr '\n' ' '; }
cursor() { T display -p -t w "$1"; }

# --- the watch, in an 80x24 pane ------------------------------------------------------------------------
run="$(printf '%q iterate watch --project %q; echo $? > %q; exec sleep 600' "$RTK" "$P" "$OUT/rc")"
mkdir -p "$OUT"
T new-session -d -s w -x 80 -y 24 "bash -c $(printf '%q' "$run")"
check "the pane is 80x24" test "$(cursor '#{pane_width}x#{pane_height}')" = "80x24"

check "the header names the project, milestone and phase" wait_screen '^== proj M1: waiting for Developer'
check "the header counts round, iteration and rejections" wait_screen '^== proj M1: .*round 2, iter(ation)? 1/20, rej(ections)? 0'
check "the column titles name both agents' logs" wait_screen '^Developer: M1/round-2-developer\.log +\| Acceptor: M1/round-1-acceptor\.log$'
check "both logs side by side, the longer line cut at its column's 39" wait_screen '^dev: reading the plan +\| REJECTED: the tests do not cover the er$'
check "the Developer's later line, the Acceptor's column empty" wait_screen '^dev: writing src/feature\.c +\|$'
check "the separator is one column for every row (38 at 80 columns)" test "$(separator_columns)" = "38 "
check "the cursor is hidden while it runs" test "$(cursor '#{cursor_flag}')" = 0

# A log grows in place: the new line shows, escapes and all stripped.
printf 'dev: \033[1;31mmake check\033[0m passed\t(42 tests)\n' >> "$P/.anima/logs/M1/round-2-developer.log"
check "a line appended to the Developer's log shows" wait_screen '^dev: make check passed  \(42 tests\) +\|'
check "no colour reached the terminal" no_colour

# The state moves on: the Acceptor's turn, with a new log of its own.
# 8 columns and 20 ideographs of two: 15 fit the Acceptor's 39 columns, the 16th would straddle the edge.
printf 'reviewing feature.c\nreview: 漢漢漢漢漢漢漢漢漢漢漢漢漢漢漢漢漢漢漢漢\n' > "$P/.anima/logs/M1/round-2-acceptor.log"
state acceptor 2 .anima/logs/M1/round-2-developer.log .anima/logs/M1/round-2-acceptor.log
check "a new phase shows in the header" wait_screen '^== proj M1: waiting for Acceptor'
check "the Acceptor's column follows its new log" wait_screen '^dev: reading the plan +\| reviewing feature\.c$'
check "the old Acceptor log is gone from the screen" lacks REJECTED
check "no line is wider than 80 columns" test "$(widest)" -le 80
check "wide characters are cut whole inside their column" wait_screen '^dev: writing src/feature\.c +\| review: 漢漢漢漢漢漢漢漢漢漢漢漢漢漢漢$'

# A narrower terminal: redrawn at its width.
T resize-window -t w -x 60 -y 20
check "after a resize, the columns are cut at 28 and 29" wait_screen '^Developer: M1/round-2-develo \| Acceptor: M1/round-2-acceptor$'
check "after a resize, no line is wider than 60 columns" test "$(widest)" -le 60
check "after a resize, the header fits in shorter words" wait_screen '^== proj M1: waiting for Acceptor( \(stopped\))?; r(ound )?2 i(ter )?1/20'

# C-c: the watch ends, 128 + SIGINT, the cursor shown again and below the frame.
lines=$(screen | awk 'NF { n = NR } END { print n }')
T send-keys -t w C-c
eventually test -s "$OUT/rc"
check "C-c ends the watch with 130" test "$(cat "$OUT/rc" 2>/dev/null)" = 130
check "the cursor is shown again" test "$(cursor '#{cursor_flag}')" = 1
check "the cursor is below the last frame, at the start of a line (the echoed ^C cleared)" test "$(cursor '#{cursor_x},#{cursor_y}')" = "0,$lines"
check "the last frame stays on the screen" wait_screen '^== proj M1: waiting for Acceptor'

finish
