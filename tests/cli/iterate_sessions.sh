#!/usr/bin/env bash
# tests/cli/iterate_sessions.sh — rtk iterate's persistent Developer and Acceptor conversations (issue 26,
# item 4), with fake clients named claude, codex and an unknown one (tests/fixtures/fake-client.sh) that
# keep sessions the way the real ones do and record the session each run was given: the same Developer
# session resumed round to round, the Acceptor's reason reaching it, the stored sessions resumed after a
# kill -9, a client that cannot resume (or whose resume fails, Gemini CLI's with an exit code its profile
# calls fatal) getting a new conversation with the recovery context, session: fresh, and a session setting
# that is not one.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/iterate_lib.sh"

# use_client NAME ARGS...: the project's Developer and Acceptor become the fake client NAME (a link to
# fake-client.sh in $SCRATCH/bin) with ARGS; its runs are listed in $F/clients.
use_client() {
	local name=$1 cmd
	shift
	mkdir -p "$SCRATCH/bin"
	ln -sf "$RTK_SRCDIR/tests/fixtures/fake-client.sh" "$SCRATCH/bin/$name"
	cmd="FAKE_DIR='$F' exec '$SCRATCH/bin/$name' $*"
	jq --arg c "$cmd" '.developer_command = $c | .acceptor_command = $c' "$P/.anima/config.json" > "$P/.anima/config.new" &&
		mv "$P/.anima/config.new" "$P/.anima/config.json"
}
set_config() { # set_config JQ
	jq "$1" "$P/.anima/config.json" > "$P/.anima/config.new" && mv "$P/.anima/config.new" "$P/.anima/config.json"
}
# runs ROLE: that role's runs as "SESSION HOW" (new, resumed, refused), one a line, in order ("final" counts as acceptor).
runs() { awk -v r="$1" '$3 == r || (r == "acceptor" && $3 == "final") { print $4, $5 }' "$F/clients"; }
# sessions ROLE: the distinct sessions that role's runs were in, in order of first use.
sessions() { runs "$1" | awk '$2 != "refused" && !seen[$1]++ { print $1 }'; }
hows() { runs "$1" | awk '{ printf "%s%s", (NR > 1 ? " " : ""), $2 }'; }
# convo ID: the fake client's record of one conversation (every prompt and reply).
convo() { echo "$F/sessions/$1.txt"; }

# --- Claude Code's JSON mode: one Developer and one Acceptor conversation for the milestone ---------------
t_claude() {
	new_case --draft M2
	use_client claude -p --output-format json
	plan developer "feature alpha" "fix"
	plan acceptor "reject the greeting says helo, not hello (REASON-ALPHA)"
	ck --json
	is "the milestone completes: exit 0" "0 completed" "$(rc) $(ms M1 .status)"
	is "the Developer: one new session, then resumed every round" "new resumed resumed resumed resumed" "$(hows developer)"
	is "the Acceptor (and final acceptance): one new session, then resumed" "new resumed resumed resumed resumed" "$(hows acceptor)"
	dev=$(sessions developer) acc=$(sessions acceptor)
	is "one conversation each, and not the same one" "1 1 different" \
		"$(echo "$dev" | wc -l) $(echo "$acc" | wc -l) $([ "$dev" != "$acc" ] && echo different)"
	is "the resumed runs were given --resume with the stored id" "claude -p --output-format json --resume $dev" \
		"$(awk -v s="$dev" '$3 == "developer" && $5 == "resumed" { $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); print "claude " $0; exit }' "$F/clients")"
	has "the Acceptor's rejection reason reached the Developer's own conversation" "$(convo "$dev")" "REASON-ALPHA"
	# what each round's prompt holds: the first the whole brief, a continued one only what changed
	has "the first Developer prompt is the whole brief" "$F/prompts/001-developer.txt" "VISION-MARKER"
	hasnt "a continued Developer prompt does not send the files again" "$F/prompts/003-developer.txt" "VISION-MARKER"
	has "... says the conversation goes on" "$F/prompts/003-developer.txt" "This conversation goes on"
	has "... and quotes the Acceptor's reason" "$F/prompts/003-developer.txt" "REASON-ALPHA"
	has "... and the branch's commits" "$F/prompts/003-developer.txt" "feat: alpha"
	has "the first Acceptor prompt has the criteria" "$F/prompts/002-acceptor.txt" "# The milestone's acceptance criteria"
	hasnt "a continued Acceptor prompt does not repeat them" "$F/prompts/004-acceptor.txt" "# The milestone's acceptance criteria"
	has "... but has the new report" "$F/prompts/004-acceptor.txt" "<<<BEGIN DEVELOPER REPORT"
	is "the sessions are kept in the milestone's file" "$dev claude $acc claude" \
		"$(ms M1 '[.sessions.developer.id, .sessions.developer.client, .sessions.acceptor.id, .sessions.acceptor.client] | join(" ")')"
	is "... with the runs of each" "5 5" "$(ms M1 '[.sessions.developer.runs, .sessions.acceptor.runs] | join(" ")')"
	valid "persistent sessions: the files conform"
	snaps_valid "persistent sessions: every file the agents saw conforms"
	conforms "check --json conforms" "$SCRATCH/out" iterate
	is "the result lists each round's session and whether it was resumed" \
		"developer:$dev:false acceptor:$acc:false developer:$dev:true acceptor:$acc:true" \
		"$(jq -r '[.projects[0].pass.rounds[:4][] | "\(.role):\(.session_id):\(.resumed)"] | join(" ")' "$SCRATCH/out")"
	# the next milestone starts its own conversations
	new_case
	use_client claude -p --output-format json
	ck
	is "two milestones: each starts new conversations" "2 2" \
		"$(awk '$3 == "developer" && $5 == "new"' "$F/clients" | wc -l) $(awk '$3 == "acceptor" && $5 == "new"' "$F/clients" | wc -l)"
	is "... and keeps its own" "different" "$([ "$(ms M1 .sessions.developer.id)" != "$(ms M2 .sessions.developer.id)" ] && echo different)"
}

# --- Codex in text mode: the id is on stderr's banner, resumed with exec resume ID - ----------------------
t_codex() {
	new_case --draft M2
	use_client codex exec -
	plan acceptor "reject REASON-CODEX: the tests are missing"
	ck
	is "codex: completed" "0 completed" "$(rc) $(ms M1 .status)"
	is "codex: the Developer's conversation is resumed every round" "new resumed resumed resumed" "$(hows developer)"
	dev=$(sessions developer)
	check "codex: resumed with exec resume ID - (the prompt on stdin)" grep -qF "resumed exec resume $dev -" "$F/clients"
	has "codex: the reason reached the same conversation" "$(convo "$dev")" "REASON-CODEX"
	valid "codex: the files conform"
}

# --- kill -9 in the middle of a round: the restart resumes the stored conversations ----------------------
t_kill9() {
	new_case --draft M2
	use_client claude -p --output-format json
	plan developer "feature alpha" "$SLEEPER"
	plan acceptor "reject REASON-KILL: alpha prints nothing"
	bg_it check --project "$P"
	waitfor called 3 # the Developer's second round, resumed, is asleep
	kill -KILL "$BG"
	wait "$BG" 2>/dev/null
	BG=
	dev=$(sessions developer) acc=$(sessions acceptor)
	is "killed in round 2: the milestone's file keeps both sessions" "$dev $acc" "$(ms M1 '[.sessions.developer.id, .sessions.acceptor.id] | join(" ")')"
	valid "after kill -9, the files conform"
	ck
	is "the restart completes the milestone" "0 completed" "$(rc) $(ms M1 .status)"
	none_left "the killed round's agent was ended, not waited for"
	is "the Developer: still one conversation, resumed after the restart" "new resumed resumed resumed resumed" "$(hows developer)"
	is "the Acceptor: still one conversation, resumed after the restart" "$acc" "$(sessions acceptor)"
	is "no other Developer session was started" "$dev" "$(sessions developer)"
	has "the resumed Developer is told of the restart" "$F/prompts/004-developer.txt" "interrupted by a restart"
	has "... and given the rejection again, in its own conversation" "$F/prompts/004-developer.txt" "REASON-KILL"
	hasnt "... without the whole brief" "$F/prompts/004-developer.txt" "VISION-MARKER"
	valid "after the restart, the files conform"
}

# --- clients that cannot resume: a new conversation with the recovery context -----------------------------
t_unknown() {
	new_case --draft M2
	use_client myagent
	plan acceptor "reject REASON-UNKNOWN"
	ck
	is "unknown client: completed" "0 completed" "$(rc) $(ms M1 .status)"
	is "unknown client: a new run every time, never resumed" "- new|- new|- new|- new" "$(runs developer | tr '\n' '|' | sed 's/|$//')"
	has "its first prompt is the whole brief" "$F/prompts/001-developer.txt" "VISION-MARKER"
	hasnt "... with no note (there was no earlier conversation)" "$F/prompts/001-developer.txt" "# A new conversation"
	has "a later one is the whole brief again" "$F/prompts/003-developer.txt" "VISION-MARKER"
	has "... with the recovery note and why" "$F/prompts/003-developer.txt" "not a client rtk knows how to resume"
	has "... and the rejection" "$F/prompts/003-developer.txt" "REASON-UNKNOWN"
	has "the Acceptor's later prompt has the note too" "$F/prompts/004-acceptor.txt" "# A new conversation"
	is "no session is stored" "null null" "$(ms M1 '[.sessions.developer.id, .sessions.acceptor.id] | map(tostring) | join(" ")')"
	valid "unknown client: the files conform"

	# Claude Code in text mode names no session: the same, saying so
	new_case --draft M2
	use_client claude -p
	ck
	is "claude -p (text): completed, never resumed" "0 new new new new" "$(rc) $(hows developer)"
	has "... and told why" "$F/prompts/003-developer.txt" "the client reported no session id"
}

t_resume_fails() {
	new_case --draft M2
	use_client claude -p --output-format json
	plan acceptor "touch forget reject REASON-GONE: try again"
	ck
	is "a lost session store: the milestone still completes" "0 completed" "$(rc) $(ms M1 .status)"
	is "the Developer: resumed, refused by the client, a new conversation, then that one resumed" \
		"new refused new resumed resumed" "$(hows developer)"
	first=$(sessions developer | head -1) second=$(sessions developer | sed -n 2p)
	check "the new conversation has a new id" test -n "$second" -a "$first" != "$second"
	has "the retry is the whole brief" "$F/prompts/003-developer.txt" "VISION-MARKER"
	has "... saying why there is a new conversation" "$F/prompts/003-developer.txt" "resuming session $first failed: the client exited 1"
	has "... with the rejection" "$F/prompts/003-developer.txt" "REASON-GONE"
	has "the reason is in the new conversation" "$(convo "$second")" "REASON-GONE"
	has "the failed resume is named on stderr" "$SCRATCH/err" "resuming session $first failed"
	is "the failed resume is not a failed round: 1 rejection, then accepted" "0" "$(ms M1 .consecutive_rejections)"
	is "the milestone keeps the new session" "$second" "$(ms M1 .sessions.developer.id)"
	is "the rounds: a failed resume is no extra round" "developer:1 acceptor:1 developer:2 acceptor:2 developer:3 acceptor:3 developer:4 final:4" \
		"$(calls | sed 's/:M1//g')"
	valid "failed resume: the files conform"
}

# Gemini CLI refuses a session it cannot find with exit 42, an exit code its profile calls fatal: still a
# refused resume (a new conversation), never an agent that cannot work
t_resume_fails_gemini() {
	new_case --draft M2
	use_client gemini --yolo --skip-trust --output-format json
	plan acceptor "touch forget reject REASON-GONE: try again"
	ck
	is "Gemini CLI, a lost session store (exit 42): the milestone still completes" "0 completed" "$(rc) $(ms M1 .status)"
	is "the Developer: resumed, refused by the client, a new conversation, then that one resumed" \
		"new refused new resumed resumed" "$(hows developer)"
	first=$(sessions developer | head -1) second=$(sessions developer | sed -n 2p)
	check "the new conversation has a new id" test -n "$second" -a "$first" != "$second"
	has "the retry is the whole brief, saying why" "$F/prompts/003-developer.txt" "resuming session $first failed: the client exited 42"
	has "... with the rejection" "$F/prompts/003-developer.txt" "REASON-GONE"
	hasnt "no agent that cannot work" "$SCRATCH/err" "cannot work"
	is "the milestone keeps the new session" "$second gemini" "$(ms M1 '[.sessions.developer.id, .sessions.developer.client] | join(" ")')"
}

# --- session: fresh, and a setting that is not one ----------------------------------------------------------
t_fresh() {
	new_case --draft M2
	use_client claude -p --output-format json
	set_config '.session = "fresh"'
	plan acceptor "reject REASON-FRESH"
	ck
	is "session: fresh: completed" "0 completed" "$(rc) $(ms M1 .status)"
	is "a new Developer session every round" "new new new new" "$(hows developer)"
	is "... each a different one" 4 "$(sessions developer | wc -l)"
	hasnt "no run was given --resume" "$F/clients" "--resume"
	has "every prompt is the whole brief" "$F/prompts/003-developer.txt" "VISION-MARKER"
	hasnt "... with no note of a lost conversation" "$F/prompts/003-developer.txt" "# A new conversation"
	has "... and the rejection" "$F/prompts/003-developer.txt" "REASON-FRESH"
	is "no session is stored" "null null" "$(ms M1 '[.sessions.developer.id, .sessions.acceptor.id] | map(tostring) | join(" ")')"
	valid "fresh: the files conform"

	new_case
	set_config '.session = "sometimes"'
	ck
	is "session: sometimes: exit 2, naming the file" "2 1" "$(rc) $(grep -c "config.json: invalid" "$SCRATCH/err")"
	is "... and nothing ran" 0 "$(ncalls)"
}

for t in ${RTK_TEST_ITERATE:-claude codex kill9 unknown resume_fails resume_fails_gemini fresh}; do
	echo "--- $t"
	"t_$t"
done
finish
