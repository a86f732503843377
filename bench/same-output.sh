#!/usr/bin/env bash
# bench/same-output.sh OLD_RTK NEW_RTK [SRCDIR [TEST...]] — shows that two rtk binaries print the same thing:
# runs every CLI test script of SRCDIR (default: this tree), or only the TESTs named (loop for
# tests/cli/loop.sh), once with each binary behind a recording wrapper, and compares every call's
# arguments, stdout and exit status. Used when a change must not change behaviour (a refactor):
# "identical" means every applet's JSON and markdown on the shipped samples and on every test fixture,
# byte for byte; generated_at is left out, and so are scratch-folder names.
set -eu
old=$(realpath "$1") new=$(realpath "$2")
src=$(realpath "${3:-$(dirname "$0")/..}")
shift $(($# < 3 ? $# : 3))
tests=()
for t in "$@"; do tests+=("$src/tests/cli/$t.sh"); done
[ ${#tests[@]} -gt 0 ] || tests=("$src"/tests/cli/*.sh)
work=$(mktemp -d "${TMPDIR:-/tmp}/rtk-same.XXXXXX")
trap '[ -n "${SAME_KEEP:-}" ] || rm -rf "$work"' EXIT

# One record per call: a header with the arguments, stdout, and the exit status. Records go to one file
# per test script; stdin is passed through untouched.
cat > "$work/wrap" <<'WRAP'
#!/usr/bin/env bash
out=$(mktemp "$SAME_WORK/out.XXXXXX")
# A test that signals rtk (SIGTERM to a scheduler) signals this wrapper: pass it on, or the real rtk
# is orphaned and keeps running (iterate run holds an inotify instance until the machine runs out).
# A test that kills this wrapper with SIGKILL (iterate_kill9) meant to kill rtk: with --pdeathsig rtk dies
# with it rather than run on as an orphan (left behind, each held an inotify instance until none were left).
setpriv --pdeathsig KILL "$SAME_REAL" "$@" > "$out" <&0 &
child=$!
trap 'kill -TERM $child 2>/dev/null' TERM
trap 'kill -INT $child 2>/dev/null' INT
trap 'kill -HUP $child 2>/dev/null' HUP
while :; do
	wait $child
	rc=$?
	kill -0 $child 2>/dev/null || break
done
# Concurrent calls (reflect --jobs, pipelines) append whole records under a lock, never interleaved.
{ printf '=== rtk'; printf ' %q' "$@"; printf '\n'; cat "$out"; printf '\n--- exit %d\n' "$rc"; } > "$out.rec"
flock "$SAME_LOG.lock" sh -c 'cat "$1" >> "$2"' sh "$out.rec" "$SAME_LOG"
cat "$out"; rm -f "$out" "$out.rec"
exit "$rc"
WRAP
chmod +x "$work/wrap"

record() { # record NAME BINARY
	local t
	mkdir -p "$work/$1" "$work/$1-bin"
	# rtk dispatches on the name it is called by, so each binary is called as "rtk".
	ln -s "$2" "$work/$1-bin/rtk"
	set -- "$1" "$work/$1-bin/rtk"
	for t in "${tests[@]}"; do
		[ "$(basename "$t")" = lib.sh ] && continue
		SAME_REAL=$2 SAME_WORK=$work SAME_LOG="$work/$1/$(basename "$t" .sh).log" \
			RTK="$work/wrap" RTK_SRCDIR="$src" RTK_BUILDDIR="$(dirname "$2")" RTK_DATADIR="$src" \
			bash "$t" > "$work/$1/$(basename "$t" .sh).out" 2>&1 || true
		touch "$work/$1/$(basename "$t" .sh).log" # a test that never calls rtk leaves no log
		# Scratch folders and fixture repositories have random names; commit ids of fixture
		# repositories are fixed by their dates, so they stay.
		sed -i -E -e 's#/tmp/[A-Za-z0-9._-]+\.[A-Za-z0-9]{6}#TMP#g' -e 's#case\.[A-Za-z0-9]{6}#case#g' -e 's#"generated_at":[[:space:]]*"[^"]*"#"generated_at":""#g' \
			-e 's#(/[a-z_-]+)+/rtk-same\.[A-Za-z0-9]{6}#WORK#g' "$work/$1/$(basename "$t" .sh).log"
	done
}
record old "$old"
record again "$old"
record new "$new"
# Records are compared as multisets per test script (pipelines run calls concurrently). Loopback
# ports, elapsed milliseconds, the hash of a config that names such a port, and a loop's or run's id
# (a time and random digits), start time and duration are run-to-run noise;
# a record that still differs between two runs of the old binary is noise too, and only counted.
python3 - "$work" <<'PY'
import collections, os, re, sys
work = sys.argv[1]
def records(name):
    out = {}
    for f in sorted(os.listdir(os.path.join(work, name))):
        if not f.endswith(".log"): continue
        text = open(os.path.join(work, name, f), errors="replace").read()
        recs = []
        for r in re.split(r"(?m)^(?==== rtk )", text):
            if not r: continue
            if re.search(r"127\.0\.0\.1:\d+", r):
                r = re.sub(r'"config_sha256":\s*"[0-9a-f]+"', '"config_sha256":""', r)
            r = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", r)
            r = re.sub(r'"elapsed_ms":\s*\d+', '"elapsed_ms":0', r)
            r = re.sub(r"\d{8}T\d{6}Z-[0-9a-f]{6}", "RUN_ID", r)
            r = re.sub(r'"(started_at|duration_ms)":\s*("[^"]*"|\d+)', r'"\1":0', r)
            recs.append(r)
        out[f] = collections.Counter(recs)
    return out
old, again, new = records("old"), records("again"), records("new")
calls = noise = differ = 0
for f in old:
    stable = old[f] & again[f]
    noise += sum((old[f] - stable).values())
    calls += sum(old[f].values())
    missing = stable - new.get(f, collections.Counter())
    for r in missing:
        differ += 1
        if differ <= 5:
            print(f"{f}: the new binary never printed this record:\n{r[:1500]}")
        else:
            print(f"{f}: the new binary never printed the record of: {r.splitlines()[0]}")
print(f"{calls} calls over {len(old)} test scripts; {noise} differ between two runs of the old binary (left out)")
if differ:
    print(f"different output: {differ} records"); sys.exit(1)
print("same output")
PY
