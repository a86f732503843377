# tests/cli/iterate_lib.sh — what tests/cli/iterate.sh and iterate_kill9.sh share: throwaway projects
# (tests/fixtures/iterate/make_project.sh) driven by scripted fake agents (fake_agent.sh), the test clock,
# schema checks of every .anima file, waits that poll a condition (lib.sh's eventually: no wait here
# has a deadline of its own, only the hang guard), and the agents' processes.
# Sourced after lib.sh.

FIX=$RTK_SRCDIR/tests/fixtures/iterate
SCHEMAS=$RTK_SRCDIR/schemas
export RTK_DATADIR=${RTK_DATADIR:-$RTK_SRCDIR}
export TZ=UTC
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset RTK_AGENT CLAUDECODE CLAUDE_CODE_ENTRYPOINT FAKE_DIR FAKE_DELAY FAKE_CONFIDENCE XDG_RUNTIME_DIR
# rtk's private folder (the records of the agents it started) in the scratch folder, not the user's
export XDG_STATE_HOME=$SCRATCH_ROOT/xdg-state
T0=1700000000 # 2023-11-14T22:13:20Z, also SOURCE_DATE_EPOCH (lib.sh)

# Background processes this script started (rtk iterate run, a check held open): ended at exit.
BG_PIDS=
# RTK_TEST_KEEP=1 keeps the scratch folders (projects, fake agents' prompts and snapshots) to look at.
trap 'for p in $BG_PIDS; do kill -KILL "$p" 2>/dev/null; done; reap_agents_all
	if [ -n "${RTK_TEST_KEEP:-}" ]; then echo "kept: $SCRATCH_ROOT"; else rm -rf "$SCRATCH_ROOT"; fi' EXIT

iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }

# new_case [make_project.sh OPTIONS]: a fresh scratch folder with the project $P (its fake agents' folder
# $F, outside it), the test clock $CLOCK at T0 in a folder of its own, and MAIN, main's commit.
new_case() {
	scratch
	P=$SCRATCH/p F=$SCRATCH/p.fake CLOCK=$SCRATCH/clock/now BG=
	mkdir -p "$SCRATCH/clock"
	set_clock "$T0"
	bash "$FIX/make_project.sh" "$P" "$@" >/dev/null || { fail "make_project.sh $*"; return 1; }
	MAIN=$(git -C "$P" rev-parse main)
	ALL_FAKES="$ALL_FAKES $F"
}
ALL_FAKES=
# another_project NAME [OPTIONS]: one more project $SCRATCH/NAME (fake agents in $SCRATCH/NAME.fake) in the case.
another_project() {
	local name=$1
	shift
	bash "$FIX/make_project.sh" "$SCRATCH/$name" "$@" >/dev/null || fail "make_project.sh $name $*"
	ALL_FAKES="$ALL_FAKES $SCRATCH/$name.fake"
}

# set_clock EPOCH: moves the test clock (written whole and renamed into place, as a clock would jump).
set_clock() {
	printf '%s\n' "$1" > "$CLOCK.new" && mv "$CLOCK.new" "$CLOCK"
}

# plan ROLE LINE...: the fake ROLE's actions, one per invocation (then its stateful default). FAKE: $F.
plan() {
	local role=$1
	shift
	printf '%s\n' "$@" > "${FAKE:-$F}/$role.plan"
}

it() { RTK_TEST_CLOCK=$CLOCK timeout -k 5 "$HANG_GUARD" "$RTK" iterate "$@"; }
# ck [OPTIONS]: one `rtk iterate check` of $P; stdout, stderr and the exit code in $SCRATCH/{out,err,rc}.
ck() {
	RTK_TEST_CLOCK=$CLOCK timeout -k 5 "$HANG_GUARD" "$RTK" iterate check --project "$P" "$@" > "$SCRATCH/out" 2> "$SCRATCH/err"
	echo $? > "$SCRATCH/rc"
}
rc() { cat "$SCRATCH/rc"; }
# st JQ [PROJECT]: a member of state.json;  ms ID JQ [PROJECT]: of the milestone's file.
st() { jq -r "$1" "${2:-$P}/.anima/state.json"; }
ms() { jq -r "$2" "${3:-$P}/.anima/milestones/$1.json"; }
# calls [FAKE]: the agents invoked, "role:milestone:round" each, space-separated.
calls() { [ -e "${1:-$F}/calls" ] && awk '{ printf "%s%s:%s:%s", (NR > 1 ? " " : ""), $2, $3, $4 }' "${1:-$F}/calls"; }
ncalls() { if [ -e "${1:-$F}/calls" ]; then wc -l < "${1:-$F}/calls"; else echo 0; fi; }
# prompt N [FAKE]: the prompt of invocation N;  nth ROLE K: the file of that role's K-th invocation.
prompt() { cat "${2:-$F}"/prompts/"$(printf %03d "$1")"-*.txt; }
envof() { cat "${2:-$F}"/prompts/"$(printf %03d "$1")"-*.env; }
# is NAME EXPECTED ACTUAL: passes when they are equal, else shows both.
is() {
	if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "--- expected" "$2" "--- actual" "$3"; fi
}
# has NAME FILE TEXT: FILE holds TEXT (fixed string).
has() {
	if grep -qF -- "$3" "$2" 2>/dev/null; then pass "$1"; else fail "$1" "$2 does not hold: $3" "$(head -c 3000 "$2" 2>&1)"; fi
}
hasnt() {
	if ! grep -qF -- "$3" "$2" 2>/dev/null; then pass "$1"; else fail "$1" "$2 holds: $3"; fi
}

# waitfor CMD...: CMD polled until it succeeds (0), or the hang guard passes (1). While a background rtk
# (bg_it, $BG) is meant to run, its end is an event too: nothing more will happen, so a scheduler that
# could not start fails its test at once instead of at the hang guard.
bg_ended() { [ -n "${BG:-}" ] && ! alive "$BG"; }
cond_or_bg_ended() { "$@" 2>/dev/null || bg_ended; }
waitfor() {
	eventually cond_or_bg_ended "$@"
	"$@" 2>/dev/null
}
# settle: a short pause before asserting that something did NOT happen (a scheduler had a chance to act).
# It can let a slow machine miss a wrong check, never fail a right one.
settle() { sleep 0.4; }

# --- schemas ---------------------------------------------------------------------------------------------
vschema() { # vschema KIND FILE...: rtk validate against schemas/anima.KIND.v1; prints what fails
	"$RTK" validate --assert-format --all --ref-dir "$SCHEMAS" --schema "$SCHEMAS/anima.$1.v1.schema.json" "${@:2}" 2>&1
}
# files_valid DIR: every file of DIR/.anima that has a schema conforms to it.
files_valid() {
	local a=$1/.anima f rc=0 ms=()
	vschema config "$a/config.json" || rc=1
	[ ! -e "$a/state.json" ] || vschema state "$a/state.json" || rc=1
	vschema order "$a/milestones/order.json" || rc=1
	for f in "$a"/milestones/*.json; do [ "${f##*/}" = order.json ] || ms+=("$f"); done
	[ ${#ms[@]} -eq 0 ] || vschema milestone "${ms[@]}" || rc=1
	[ ! -s "$a/outcomes.jsonl" ] || vschema outcome "$a/outcomes.jsonl" || rc=1
	return $rc
}
valid() { # valid NAME [DIR]
	local out
	if out=$(files_valid "${2:-$P}"); then pass "$1"; else fail "$1" "$out"; fi
}
# snaps_valid NAME [FAKE]: state.json and every milestone file, as each agent found them, conform.
snaps_valid() {
	local fake=${2:-$F} out= s m=() st=()
	for s in "$fake"/snap/*/; do
		[ -e "$s/state.json" ] && st+=("$s/state.json")
		for f in "$s"/*.json; do [ "${f##*/}" = state.json ] || m+=("$f"); done
	done
	if [ ${#st[@]} -eq 0 ]; then fail "$1" "no agent ran"; return; fi
	out=$(vschema state "${st[@]}"; vschema milestone "${m[@]}") && pass "$1 (${#st[@]} agents)" || fail "$1" "$out"
}
# announced NAME [FAKE]: each agent was started after state.json and its milestone said so: status awake
# and in_progress, the agent's phase, the round it was given, the milestone it was given.
announced() {
	local fake=${2:-$F} n role m r b rest s bad=
	while read -r n role m r b rest; do
		s=$fake/snap/$n-$role
		jq -e --arg m "$m" --arg ph "$role" --argjson r "$r" \
			'.status == "awake" and .current_milestone == $m and .phase == $ph and .round == $r' "$s/state.json" >/dev/null ||
			bad+="$n $role $m round $r: state.json $(jq -c '{status, current_milestone, phase, round}' "$s/state.json")"$'\n'
		jq -e --arg ph "$role" --argjson r "$r" '.status == "in_progress" and .phase == $ph and .round == $r' "$s/$m.json" >/dev/null ||
			bad+="$n $role $m round $r: $m.json $(jq -c '{status, phase, round}' "$s/$m.json")"$'\n'
		[ "$b" = "milestone/$m" ] || bad+="$n $role: RTK_ITERATE_BRANCH=$b"$'\n'
	done < "$fake/calls"
	if [ -z "$bad" ]; then pass "$1"; else fail "$1" "$bad"; fi
}

# --- processes -------------------------------------------------------------------------------------------
# agents_of FAKE: the live processes whose environment holds FAKE_DIR=FAKE (fake agents and their children).
agents_of() {
	local e p
	for e in $(grep -lzxF "FAKE_DIR=$1" /proc/[0-9]*/environ 2>/dev/null); do
		p=${e#/proc/}
		p=${p%/environ}
		[ "$p" != "$$" ] && alive "$p" && echo "$p"
	done
	return 0
}
no_agents() { [ -z "$(agents_of "$1")" ]; }
# SLEEPER: the plan line of an agent that runs until it is killed. Were it not killed, it would write
# FAKE/slept after its 120 s and only then end, so a test learns from that file, not from the clock,
# whether rtk waited for it or left it running.
SLEEPER="sleep 120 touch slept"
# none_left NAME [FAKE]: no fake agent of the project is left, and none ran to its end: each was killed.
none_left() {
	local fake=${2:-$F}
	if ! eventually no_agents "$fake"; then
		fail "$1" "still running: $(agents_of "$fake" | xargs -r ps -o pid=,pgid=,args= -p)"
	elif [ -e "$fake/slept" ]; then
		fail "$1" "a sleeping agent was not killed: it ran to its end"
	else
		pass "$1"
	fi
}
# no_overlap NAME [FAKE]: no two agents of the project ever ran at once (the fake agents' lock says).
no_overlap() {
	local fake=${2:-$F}
	if [ ! -s "$fake/violations" ]; then pass "$1"; else fail "$1" "$(cat "$fake/violations")"; fi
}
# The agents a failing test may leave: ended by their pid at exit.
reap_agents_all() {
	local f p
	for f in $ALL_FAKES; do for p in $(agents_of "$f"); do kill -KILL "$p" 2>/dev/null; done; done
}

# bg_it ARGS...: `rtk iterate ARGS` in the background (BG: its pid, rtk's own), stdout and stderr to
# $SCRATCH/bg.{out,err}.
bg_it() {
	RTK_TEST_CLOCK=$CLOCK "$RTK" iterate "$@" > "$SCRATCH/bg.out" 2> "$SCRATCH/bg.err" &
	BG=$!
	BG_PIDS="$BG_PIDS $BG"
}
# alive PID: the process runs (a zombie does not).
alive() { [ -e "/proc/$1" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
# stop SIG PID: sends SIG to a child of this shell and waits for its end; STOP_RC: its exit code
# ("timeout" when it had not ended by the hang guard and had to be killed).
stop() {
	kill -"$1" "$2" 2>/dev/null
	if ! eventually eval "! alive $2"; then
		kill -KILL "$2" 2>/dev/null
		wait "$2" 2>/dev/null
		STOP_RC=timeout
	else
		wait "$2" 2>/dev/null
		STOP_RC=$?
	fi
	[ "$2" != "${BG:-}" ] || BG=
}
# sched_up [PROJECT]: an rtk iterate run holds the project (it has set up, signal handlers included).
sched_up() { [ "$(RTK_TEST_CLOCK=$CLOCK "$RTK" iterate status --project "${1:-$P}" --json | jq -r '.projects[0].scheduler')" = running ]; }
# called N [FAKE]: at least N agents were invoked.
called() { [ "$(ncalls "${2:-$F}")" -ge "$1" ]; }
# st_is JQ VALUE [PROJECT]: state.json's member is VALUE (for waitfor).
st_is() { [ "$(st "$1" "${3:-$P}")" = "$2" ]; }
ms_is() { [ "$(ms "$1" "$2" "${4:-$P}")" = "$3" ]; }
