#!/usr/bin/env bash
# tests/cli/capture.sh — rtk capture, the Stop hook: modes, self-report, no repository, lock, hostile ids, schema.
. "$RTK_SRCDIR/tests/cli/lib.sh"

F="$RTK_SRCDIR/tests/fixtures"
unset REFLECTION_MODE REFLECTION_DIR REFLECTION_INPUT REFLECTION_TASK_REF REFLECTION_AGENT
# SOURCE_DATE_EPOCH=1700000000 (lib.sh): every record is stamped 2023-11-14T22:13:20Z.
STAMP=20231114T221320Z

# A repository whose work tree stages an auth file, changes a doc, adds an untracked test and an
# ignored file. `testing` gives each case a fresh folder, so the repositories live beside them.
R="$SCRATCH_ROOT/repo"
bash "$F/risk-floor-repo.sh" "$R" >/dev/null
R2="$SCRATCH_ROOT/repo2"
bash "$F/risk-floor-repo.sh" "$R2" >/dev/null

# hook ENV... : runs the hook with the payload on stdin, records to ./out; prints stdout, then the exit code.
hook='run() { env REFLECTION_DIR=$PWD/out "$@" $RTK capture; echo "rc=$?"; }; run'
rec="out/s1-$STAMP.reflection.json"
summary="jq -c '[.task_ref, .agent, .repo, .files_changed, .risk.surface, .risk.needs_review, .provenance.degraded, .confidence, .provenance.reflection_attempt, .provenance.reflection_mode]' $rec"

# --- off -------------------------------------------------------------------------------------------
testing "mode unset: nothing written, nothing printed" \
	"$hook 2>&1; test -e out && echo wrote" "rc=0\n" "" "{\"session_id\":\"s1\",\"cwd\":\"$R\"}"
testing "mode off: nothing written" \
	"$hook REFLECTION_MODE=off 2>&1; test -e out && echo wrote" "rc=0\n" "" "{\"session_id\":\"s1\",\"cwd\":\"$R\"}"
testing "an unknown mode writes nothing and says so on stderr only" \
	"$hook REFLECTION_MODE=loud 2>err; test -e out && echo wrote; cat err" \
	"rc=0\nrtk capture: REFLECTION_MODE=loud is not off, solo or orchestrated: nothing recorded\n" "" "{\"cwd\":\"$R\"}"

# --- solo in a repository --------------------------------------------------------------------------
testing "solo without a self-report: mechanical fields, degraded, no stdout" \
	"$hook REFLECTION_MODE=solo REFLECTION_INPUT=\$PWD/none.json 2>&1; $summary" \
	'rc=0\n["repo@main","unknown","repo",["README.md","src/__tests__/math.test.js","src/auth/guard.ts"],"auth",true,true,null,1,"solo"]\n' \
	"" "{\"session_id\":\"s1\",\"cwd\":\"$R/src\",\"transcript_path\":\"/x\",\"stop_hook_active\":false,\"extra\":[1]}"
testing "the record's timestamp and session id" \
	"$hook REFLECTION_MODE=solo REFLECTION_INPUT=none >/dev/null 2>&1; jq -c '[.schema, .session_id, .timestamp, .provenance.source]' $rec" \
	'["reflection.v1","s1","2023-11-14T22:13:20Z","stop-hook"]\n' "" "{\"session_id\":\"s1\",\"cwd\":\"$R\"}"
testing "the lock is gone after a run, and the folder holds only the record" \
	"$hook REFLECTION_MODE=solo REFLECTION_INPUT=none >/dev/null 2>&1; ls -A out" \
	"s1-$STAMP.reflection.json\n" "" "{\"session_id\":\"s1\",\"cwd\":\"$R\"}"
testing "solo with a self-report: its fields merged, ids from the environment" \
	"$hook REFLECTION_MODE=orchestrated REFLECTION_INPUT=input REFLECTION_AGENT=claude-opus REFLECTION_TASK_REF=ISSUE-3 2>&1; $summary; jq -c '[.most_likely_wrong, .known_not_in_diff]' $rec" \
	'rc=0\n["ISSUE-3","claude-opus","repo",["README.md","src/__tests__/math.test.js","src/auth/guard.ts"],"auth",true,false,0.7,2,"orchestrated"]\n[{"surface":"data","description":"the migration order"},"a rollback script"]\n' \
	'{"confidence":0.7,"most_likely_wrong":{"surface":"data","description":"the migration order"},"known_not_in_diff":"a rollback script","reflection_attempt":2,"notes":"ignored"}' \
	"{\"session_id\":\"s1\",\"cwd\":\"$R\"}"
testing "a self-report giving only confidence: the rest null, not degraded" \
	"$hook REFLECTION_MODE=solo REFLECTION_INPUT=input 2>&1; $summary" \
	'rc=0\n["repo@main","unknown","repo",["README.md","src/__tests__/math.test.js","src/auth/guard.ts"],"auth",true,false,0.4,1,"solo"]\n' \
	'{"confidence":0.4}' "{\"session_id\":\"s1\",\"cwd\":\"$R\"}"
testing "an empty self-report object is degraded" \
	"$hook REFLECTION_MODE=solo REFLECTION_INPUT=input 2>&1; jq -c '[.confidence, .provenance.degraded]' $rec" \
	'rc=0\n[null,true]\n' '{}' "{\"session_id\":\"s1\",\"cwd\":\"$R\"}"

# Defaults: output to REPO/.mosaic/reflections, self-report from REPO/.mosaic/reflection-input.json,
# and neither shows up as a changed file.
mkdir -p "$R2/.mosaic"
echo '{"confidence":0.9,"most_likely_wrong":null,"known_not_in_diff":null}' > "$R2/.mosaic/reflection-input.json"
testing "default folders, payload cwd, the hook's own files not counted as changes" \
	"REFLECTION_MODE=solo $RTK capture; echo rc=\$?; cd '$R2/.mosaic/reflections' && ls -A && jq -c '[.confidence, .provenance.degraded, .files_changed]' *.json" \
	"rc=0\ns2-$STAMP.reflection.json\n[0.9,false,[\"README.md\",\"src/__tests__/math.test.js\",\"src/auth/guard.ts\"]]\n" \
	"" "{\"session_id\":\"s2\",\"cwd\":\"$R2\"}"
testing "the sidecar folder ignores itself: git status does not list it" \
	"cat '$R2/.mosaic/.gitignore' | grep -v '^#'; git -C '$R2' status --porcelain --untracked-files=all | grep -c mosaic" \
	"*\n0\n"
printf 'mine\n' > "$R2/.mosaic/.gitignore"
testing "a .mosaic/.gitignore someone wrote is left alone" \
	"REFLECTION_MODE=solo $RTK capture; cat '$R2/.mosaic/.gitignore'" "mine\n" "" "{\"session_id\":\"s2b\",\"cwd\":\"$R2\"}"
testing "no cwd in the payload: the process's own directory" \
	"cd '$R/src/auth' && REFLECTION_MODE=solo REFLECTION_DIR=\$OLDPWD/out REFLECTION_INPUT=none $RTK capture; cd - >/dev/null; jq -c '[.repo, (.files_changed | length)]' out/s3-*.json" \
	'["repo",3]\n' "" '{"session_id":"s3"}'

# --- a bad self-report ---------------------------------------------------------------------------------
testing "a self-report that is not JSON: degraded, one line on stderr" \
	"$hook REFLECTION_MODE=solo REFLECTION_INPUT=input 2>err; $summary; sed \"s|\$PWD/||\" err" \
	"rc=0\n[\"repo@main\",\"unknown\",\"repo\",[\"README.md\",\"src/__tests__/math.test.js\",\"src/auth/guard.ts\"],\"auth\",true,true,null,1,\"solo\"]\nrtk capture: input is not JSON: recorded as degraded\n" \
	'{"confidence": 0.8,' "{\"session_id\":\"s1\",\"cwd\":\"$R\"}"
testing "a confidence of 2 is not written: degraded instead, the reason on stderr" \
	"$hook REFLECTION_MODE=solo REFLECTION_INPUT=input 2>err; jq -c '[.confidence, .most_likely_wrong, .known_not_in_diff, .provenance.degraded]' $rec; cat err" \
	'rc=0\n[null,null,null,true]\nrtk capture: input: self-report does not fit reflection.v1 (/confidence: 2 is greater than the maximum 1): recorded as degraded\n' \
	'{"confidence":2,"known_not_in_diff":"x"}' "{\"session_id\":\"s1\",\"cwd\":\"$R\"}"
testing "an unknown surface or a bad attempt count is degraded too" \
	"$hook REFLECTION_MODE=solo REFLECTION_INPUT=input 2>/dev/null; jq -c '[.most_likely_wrong, .provenance.reflection_attempt, .provenance.degraded]' $rec" \
	'rc=0\n[null,1,true]\n' '{"most_likely_wrong":{"surface":"kernel","description":"x"},"reflection_attempt":0}' \
	"{\"session_id\":\"s1\",\"cwd\":\"$R\"}"
testing "a self-report that is a JSON array is degraded" \
	"$hook REFLECTION_MODE=solo REFLECTION_INPUT=input 2>&1; jq -c .provenance.degraded $rec" \
	'rtk capture: input is not a JSON object: recorded as degraded\nrc=0\ntrue\n' '[0.5]' "{\"session_id\":\"s1\",\"cwd\":\"$R\"}"

# --- outside a repository, odd payloads ------------------------------------------------------------------
testing "no git repository: a record with no files, degraded, named after the payload's cwd" \
	"mkdir w; export GIT_CEILING_DIRECTORIES=\$PWD; $hook REFLECTION_MODE=solo REFLECTION_INPUT=none 2>&1; jq -c '[.repo, .task_ref, .files_changed, .risk.surface, .provenance.degraded]' $rec" \
	'rc=0\n["w","w",[],"none",true]\n' "" '{"session_id":"s1","cwd":"w"}'
testing "an empty payload: session unknown, the process's directory" \
	"export GIT_CEILING_DIRECTORIES=\$PWD/..; $hook REFLECTION_MODE=solo REFLECTION_INPUT=none 2>&1; ls out" \
	"rc=0\nunknown-$STAMP.reflection.json\n" "" ""
testing "a payload that is not JSON counts as empty" \
	"export GIT_CEILING_DIRECTORIES=\$PWD/..; $hook REFLECTION_MODE=solo REFLECTION_INPUT=none 2>&1; ls out" \
	"rc=0\nunknown-$STAMP.reflection.json\n" "" "not json {"
testing "stdin closed: an empty payload" \
	"GIT_CEILING_DIRECTORIES=\$PWD/.. REFLECTION_MODE=solo REFLECTION_DIR=\$PWD/out REFLECTION_INPUT=none $RTK capture <&-; echo rc=\$?; ls out" \
	"rc=0\nunknown-$STAMP.reflection.json\n"
testing "a hostile session id stays inside the folder, kept as given in the record" \
	"mkdir -p a/b && cd a/b && $hook REFLECTION_MODE=solo REFLECTION_INPUT=none 2>&1; cd ../..; find . -name '*.json' | sort; jq -r .session_id a/b/out/*.json" \
	"rc=0\n./a/b/out/_._.._x-$STAMP.reflection.json\n../../x\n" "" "{\"session_id\":\"../../x\",\"cwd\":\"$R\"}"
testing "a session id with slashes, spaces and a newline" \
	"$hook REFLECTION_MODE=solo REFLECTION_INPUT=none 2>&1; ls out" \
	"rc=0\n_etc_passwd_a_b_c-$STAMP.reflection.json\n" "" "{\"session_id\":\"/etc/passwd a\\\\nb\\\\tc\",\"cwd\":\"$R\"}"

# --- the sentinel ---------------------------------------------------------------------------------------
testing "an existing lock: nothing written, the lock left alone" \
	"mkdir out && echo other > out/.capture.lock; $hook REFLECTION_MODE=solo REFLECTION_INPUT=none 2>err; ls -A out; cat out/.capture.lock; sed \"s|\$PWD/||\" err" \
	"rc=0\n.capture.lock\nother\nrtk capture: out/.capture.lock exists: another capture is running (remove it if none is); nothing recorded\n" "" "{\"session_id\":\"s1\",\"cwd\":\"$R\"}"
testing "a self-report that is a FIFO is not waited on: degraded" \
	"mkfifo fifo; $hook REFLECTION_MODE=solo REFLECTION_INPUT=fifo 2>&1; jq -c .provenance.degraded $rec; ls -A out" \
	"rtk capture: fifo is not a regular file: recorded as degraded\nrc=0\ntrue\ns1-$STAMP.reflection.json\n" "" \
	"{\"session_id\":\"s1\",\"cwd\":\"$R\"}"

# --- never fails, never prints -------------------------------------------------------------------------
testing "an unknown option still exits 0, with the message on stderr" \
	"$RTK capture --bogus 2>err; echo rc=\$?; head -1 err" "rc=0\nrtk capture: unknown option '--bogus'\n"
testing "a folder it cannot create: nothing written, exit 0" \
	"echo file > f; REFLECTION_MODE=solo REFLECTION_DIR=\$PWD/f/out $RTK capture 2>err; echo rc=\$?; test -s err && echo said" \
	"rc=0\nsaid\n" "" "{\"session_id\":\"s1\",\"cwd\":\"$R\"}"
testing "--print-settings prints the hook registration" \
	"$RTK capture --print-settings | jq -c .hooks.Stop[0].hooks[0]" '{"type":"command","command":"rtk capture"}\n'
testing "--print-settings turns capture on too: without REFLECTION_MODE the hook records nothing" \
	"$RTK capture --print-settings | jq -c .env" '{"REFLECTION_MODE":"solo"}\n'
# The instructions' own example, written where they say, makes a full (not degraded) record.
scratch
git clone -q "$R" "$SCRATCH/r"
mkdir -p "$SCRATCH/r/.mosaic"
"$RTK" capture --print-instructions | sed -n '/^```json$/,/^```$/p' | sed '1d;$d' > "$SCRATCH/r/.mosaic/reflection-input.json"
testing "--print-instructions: its example self-report, where it says, is recorded as it is" \
	"REFLECTION_MODE=solo $RTK capture 2>&1; jq -c '[.confidence, .most_likely_wrong.surface, .provenance.degraded]' '$SCRATCH'/r/.mosaic/reflections/i-*.json" \
	'[0.7,"auth",false]\n' "" "{\"session_id\":\"i\",\"cwd\":\"$SCRATCH/r\"}"
testing "--print-instructions names the file the hook reads" \
	"$RTK capture --print-instructions | grep -c '.mosaic/reflection-input.json'" "1\n"

# --- the record validates --------------------------------------------------------------------------------
scratch
(cd "$SCRATCH" && printf '{"session_id":"v","cwd":"%s"}' "$R" |
	REFLECTION_MODE=solo REFLECTION_DIR=out REFLECTION_INPUT=/nonexistent "$RTK" capture)
conforms "a degraded record conforms to rtk.capture.v1" "$SCRATCH/out/v-$STAMP.reflection.json" capture
echo '{"confidence":1,"most_likely_wrong":{"surface":"auth","description":"token expiry"},"known_not_in_diff":""}' > "$SCRATCH/self.json"
(cd "$SCRATCH" && printf '{"session_id":"w","cwd":"%s"}' "$R" |
	REFLECTION_MODE=orchestrated REFLECTION_DIR=out REFLECTION_INPUT=self.json "$RTK" capture)
conforms "a full record conforms to rtk.capture.v1" "$SCRATCH/out/w-$STAMP.reflection.json" capture
check "rtk validate finds reflection.v1 by the record's own schema member" \
	"$RTK" validate --assert-format "$SCRATCH/out/v-$STAMP.reflection.json" "$SCRATCH/out/w-$STAMP.reflection.json"
finish
