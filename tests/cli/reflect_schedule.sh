#!/usr/bin/env bash
# tests/cli/reflect_schedule.sh — rtk-reflect(1)'s crontab line and systemd user units: read from the man page, checked by cron's and systemd's own parsers, then run.
. "$RTK_SRCDIR/tests/cli/lib.sh"

MAN=$RTK_SRCDIR/man/rtk-reflect.1
UNITS=$RTK_SRCDIR/data/systemd

# The checkers are the real ones, so a missing one fails here rather than skipping: ./bootstrap
# installs cron (crontab -n, Debian's dry run) and systemd (systemd-analyze); Build-Depends lists both.
for tool in crontab:cron systemd-analyze:systemd python3:python3; do
	command -v "${tool%%:*}" >/dev/null ||
		{ fail "${tool%%:*} is installed (Debian package ${tool#*:}; ./bootstrap installs it)"; finish; exit 1; }
done

# unroff: the man page's text as it is typed into a crontab or a unit file (\- is -, \e is \).
unroff() { sed -e 's/\\-/-/g' -e 's/\\e/\\/g'; }
# manblock NAME: the lines between `.\" begin NAME` and the next `.\" end`, unroffed.
manblock() { awk -v n="$1" '$0 ~ /^\.\\" end/ { on = 0 } on { print } index($0, ".\\\" begin " n) == 1 { on = 1 }' "$MAN" | unroff; }

# --- the LLM: tests/servers/llm_server.py on a free port; the config file carries its URL and key -------
SERVER_DIR=$(mktemp -d "${TMPDIR:-/tmp}/rtk-llm.XXXXXX")
python3 "$RTK_SRCDIR/tests/servers/llm_server.py" --port-file "$SERVER_DIR/port" --log "$SERVER_DIR/requests.jsonl" &
SERVER_PID=$!
trap 'kill $SERVER_PID 2>/dev/null; wait $SERVER_PID 2>/dev/null; rm -rf "$SCRATCH_ROOT" "$SERVER_DIR"' EXIT
PORT=$(server_port "$SERVER_DIR" $SERVER_PID)

# home ID: a fresh $HOME as cron or systemd would give it: the config file the man page names (URL and
# key, since neither passes an environment), ~/agent/spool holding one trace, and `rtk` on a bin/ for PATH.
home() {
	scratch
	H=$SCRATCH/home
	mkdir -p "$H/.config/rtk" "$H/agent/spool" "$SCRATCH/bin"
	printf 'llm:\n  base_url: http://127.0.0.1:%s/v1\n  api_key: sk-schedTEST0123456789abcdef\n' "$PORT" >"$H/.config/rtk/config.yaml"
	chmod 600 "$H/.config/rtk/config.yaml"
	jq -cn --arg id "$1.mode=preference.lesson=scheduled" '{task_id: $id, user_message: "tidy the README",
		system_response: "done", user_feedback: "too long", tools_used: [], tokens_used: 10, model: "m", duration_ms: 1}' \
		>"$H/agent/spool/t.json"
	ln -s "$RTK" "$SCRATCH/bin/rtk"
}
# ran ID: the trace went through the spool: moved to done/, reflected on, routed under ~/agent/workspace.
ran() {
	[ -f "$H/agent/spool/done/t.json" ] && [ ! -e "$H/agent/spool/t.json" ] &&
		jq -e --arg id "$1.mode=preference.lesson=scheduled" 'select(.task_id == $id)' \
			"$H/agent/workspace/memory/user/reflections.jsonl" >/dev/null
}

jqtrue() { jq -e "$@" >/dev/null; }

# --- cron ---------------------------------------------------------------------------------------------
scratch
CRON=$SCRATCH/crontab
sed -n '/^\.\\" The crontab line/{n;p}' "$MAN" | unroff >"$CRON"
check "the man page has one crontab line, every 5 minutes" grep -qx '\*/5 \* \* \* \* rtk reflect --spool .*' "$CRON"
testing "crontab -n (cron's own parser, a dry run) accepts it" "crontab -n '$CRON' 2>&1; echo \$?" \
	"The syntax of the crontab file was successfully checked.\n0\n"
testing "crontab -n rejects a bad minute (the check is real)" \
	"sed 's|^\*/5|*/61x|' '$CRON' > bad; crontab -n bad >/dev/null 2>&1; echo \$?" "1\n"

# Its command, run as cron runs it: /bin/sh -c, HOME set, PATH=/usr/bin:/bin (here with rtk's bin/ first).
home cron
cmd=$(cut -d' ' -f6- "$CRON")
env -i HOME="$H" PATH="$SCRATCH/bin:/usr/bin:/bin" RTK_DATADIR="${RTK_DATADIR:-$RTK_SRCDIR}" /bin/sh -c "$cmd"
check "the cron command exits 0" test $? -eq 0
check "the cron command reflected on the spool and routed the lesson" ran cron
check "the cron command appended its JSON to ~/agent/reflect.json" \
	jqtrue '.results[0].status == "reflected"' "$H/agent/reflect.json"
# A second run (an empty spool, and a trace that is not JSON, which rtk reports on stderr): the log is
# still a stream of JSON documents jq reads, the messages in their own file.
echo 'not json' >"$H/agent/spool/bad.json"
env -i HOME="$H" PATH="$SCRATCH/bin:/usr/bin:/bin" RTK_DATADIR="${RTK_DATADIR:-$RTK_SRCDIR}" /bin/sh -c "$cmd"
check "two cron runs leave two JSON documents jq reads, stderr kept apart" \
	jqtrue -s 'length == 2 and all(.schema == "rtk.reflect.v1")' "$H/agent/reflect.json"
check "rtk's messages went to ~/agent/reflect.err" test -s "$H/agent/reflect.err"

# --- systemd ------------------------------------------------------------------------------------------
for u in rtk-reflect.service rtk-reflect.timer; do
	check "man page shows $u as shipped" cmp -s <(manblock "$u") <(tail -n +2 "$UNITS/$u")
done

# systemd-analyze verify loads the units as the user manager would (--user needs a runtime folder). The
# shipped ExecStart names a bare `rtk`, which systemd resolves through its fixed search path (/usr/bin,
# /usr/local/bin), so here it names the built rtk; tests/pkg/deb.sh verifies the shipped files as
# installed. --man=no: the Documentation= page is checked by help_man.sh, not through man-db.
scratch
mkdir -p "$SCRATCH/run" "$SCRATCH/units"
sed "s|^ExecStart=rtk |ExecStart=$RTK |" "$UNITS/rtk-reflect.service" >"$SCRATCH/units/rtk-reflect.service"
cp "$UNITS/rtk-reflect.timer" "$SCRATCH/units/"
verify() { XDG_RUNTIME_DIR=$SCRATCH/run systemd-analyze verify --user --man=no "$@" 2>&1; echo "exit $?"; }
out=$(verify "$SCRATCH/units/rtk-reflect.service" "$SCRATCH/units/rtk-reflect.timer")
check "systemd-analyze verify: the units load with no message" test "$out" = "exit 0"
mkdir "$SCRATCH/bad"
sed 's/^OnCalendar=/OnCalender=/' "$UNITS/rtk-reflect.timer" >"$SCRATCH/bad/rtk-reflect.timer"
cp "$SCRATCH/units/rtk-reflect.service" "$SCRATCH/bad/"
out=$(verify "$SCRATCH/bad/rtk-reflect.timer")
check "systemd-analyze verify reports a misspelt key (the check is real)" grep -q "Unknown key 'OnCalender'" <<<"$out"

# The timer's OnCalendar fires when the crontab's */5 does: minute 0, 5, 10, ... of every hour.
oncal=$(sed -n 's/^OnCalendar=//p' "$UNITS/rtk-reflect.timer")
testing "systemd-analyze calendar: the timer fires every 5 minutes on the minute" \
	"TZ=UTC systemd-analyze calendar --iterations=3 --base-time='2026-01-01 10:02:07 UTC' '$oncal' | sed -n 's/^ *\(Normalized form\|Next elapse\|Iter. #[0-9]\): //p'" \
	"*-*-* *:00/5:00\nThu 2026-01-01 10:05:00 UTC\nThu 2026-01-01 10:10:00 UTC\nThu 2026-01-01 10:15:00 UTC\n"

# The service's condition names the spool its command reads, and its command does what the cron line does:
# run with %h expanded and the user manager's environment (HOME, and a PATH systemd finds `rtk` on).
svc=$UNITS/rtk-reflect.service
check "ConditionPathIsDirectory= is the --spool folder" \
	test "$(sed -n 's/^ConditionPathIsDirectory=//p' "$svc")" = "$(sed -n 's/^ExecStart=.*--spool \([^ ]*\).*/\1/p' "$svc")"
home systemd
cmd=$(sed -n 's/^ExecStart=//p' "$svc")
env -i HOME="$H" PATH="$SCRATCH/bin:/usr/bin:/bin" RTK_DATADIR="${RTK_DATADIR:-$RTK_SRCDIR}" ${cmd//%h/$H} >"$SCRATCH/journal"
check "the service's ExecStart exits 0" test $? -eq 0
check "the service's ExecStart reflected on the spool and routed the lesson" ran systemd
check "its summary (what the journal gets) says 1 reflected" grep -q '1 trace: 1 reflected' "$SCRATCH/journal"

finish
