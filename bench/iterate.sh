#!/usr/bin/env bash
# bench/iterate.sh — an idle `rtk iterate run` over PROJECTS projects on interval schedules: CPU time used over
# IDLE seconds (it must not poll), the latency from `rtk iterate wake` to the check starting, and peak RSS.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
need_pkgs git

PROJECTS=${PROJECTS:-50}
IDLE=${IDLE:-60}
WAKES=${WAKES:-21}
D=$OUT/iterate
rm -rf "$D"
mkdir -p "$D"

# PROJECTS small repositories, each with an .anima of one draft milestone (a check finds nothing to do).
args=()
for i in $(seq 1 "$PROJECTS"); do
	p=$D/p$i
	mkdir -p "$p/.anima/milestones"
	git -C "$p" init -q -b main
	echo "$i" > "$p/README"
	git -C "$p" add README
	git -C "$p" -c user.name=bench -c user.email=bench@rtk.invalid commit -qm init
	printf '{"wake_schedule": {"mode": "interval", "interval_minutes": %d}, "developer_command": "true", "acceptor_command": "true"}\n' \
		$((30 + i)) > "$p/.anima/config.json"
	echo '["M1"]' > "$p/.anima/milestones/order.json"
	echo '{"status": "draft"}' > "$p/.anima/milestones/M1.json"
	args+=(--project "$p")
done

"$RTK" iterate run "${args[@]}" > "$D/run.md" 2> "$D/run.err" &
pid=$!
trap 'kill $pid 2>/dev/null || true' EXIT
# wait for every project's first check
for _ in $(seq 1 500); do
	n=$(cat "$D"/p*/.anima/state.json 2>/dev/null | grep -c '"checks":[[:space:]]*1' || true)
	[ "$n" = "$PROJECTS" ] && break
	sleep 0.02
done
[ "$n" = "$PROJECTS" ] || { echo "bench: the first checks did not all happen" >&2; exit 1; }

ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)
threads=$(ls "/proc/$pid/task" | wc -l)
t0=$(ticks)
sleep "$IDLE"
t1=$(ticks)
cpu_ms=$(( (t1 - t0) * 1000 / hz ))
ctx=$(awk '/voluntary_ctxt_switches/ {s += $2} END {print s}' /proc/$pid/status)

# Wake latency: from the start of `rtk iterate wake` (and from its exit) to state.json's write at the check's start.
"$PY" - "$RTK" "$D/p1" "$WAKES" > "$D/wake.txt" <<'PY'
import os, subprocess, sys, time, statistics
rtk, project, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
state = os.path.join(project, ".anima", "state.json")
full, after = [], []
for _ in range(n):
    before = os.stat(state).st_mtime_ns
    t0 = time.time_ns()
    subprocess.run([rtk, "iterate", "wake", "--project", project], check=True, stdout=subprocess.DEVNULL)
    t1 = time.time_ns()
    deadline = time.time() + 5
    while os.stat(state).st_mtime_ns == before:
        if time.time() > deadline:
            sys.exit("no check within 5 s of the wake")
    started = os.stat(state).st_mtime_ns
    full.append((started - t0) / 1e6)
    after.append(max(0, started - t1) / 1e6)
    time.sleep(0.2)  # let the check finish before the next wake
print("%.2f %.2f %.2f %.2f" % (statistics.median(full), max(full), statistics.median(after), max(after)))
PY
read -r wake_med wake_max after_med after_max < "$D/wake.txt"
rss_kb=$(awk '/VmHWM/ {print $2}' /proc/$pid/status)
kill -TERM $pid
wait $pid
trap - EXIT

echo "machine: $(nproc) cores, $(awk '/model name/ {$1=$2=$3=""; print; exit}' /proc/cpuinfo | sed 's/^ *//'), load at start $LOAD_AT_START"
echo "projects: $PROJECTS, threads: $threads"
echo "idle ${IDLE} s: CPU ${cpu_ms} ms (user+system), voluntary context switches so far: $ctx"
echo "wake -> check start: median ${wake_med} ms, max ${wake_max} ms (from the wake command's start); median ${after_med} ms, max ${after_max} ms (from its exit); $WAKES wakes"
echo "peak RSS: ${rss_kb} kB"
