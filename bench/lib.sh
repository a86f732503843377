# bench/lib.sh — helpers shared by the benchmark scripts (sourced, not run): peers, machine details, medians.
# shellcheck shell=bash

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(cd "$BENCH_DIR/.." && pwd)
# Generated data and results: bench/out/ (git-ignored), or $BENCH_OUT.
OUT=${BENCH_OUT:-$BENCH_DIR/out}
mkdir -p "$OUT"

# The binary under test: $RTK, default ./rtk at the repo top.
RTK=${RTK:-$TOP/rtk}
case $RTK in /*) ;; *) RTK="$PWD/$RTK" ;; esac
if [ ! -x "$RTK" ]; then
	echo "bench: no rtk binary at $RTK: build it (./bootstrap) or set RTK=/path/to/rtk" >&2
	exit 1
fi

# The source tree the binary was built from (its git work tree), for the commit and for rebuilds.
RTK_SRC=$(git -C "$(dirname "$RTK")" rev-parse --show-toplevel 2>/dev/null || echo "$TOP")

LOAD_AT_START=$(cut -d' ' -f1-3 /proc/loadavg)

# Debian's python3 (has python3-sklearn); a pyenv or venv python3 earlier on PATH does not.
# shellcheck disable=SC2034 # used by the scripts that source this
PY=/usr/bin/python3

# need_pkgs PKG... — install the Debian packages that are missing (as root), or print the command.
need_pkgs() {
	local missing="" p
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" = 0 ]; then
		echo "bench: installing$missing" >&2
		DEBIAN_FRONTEND=noninteractive apt-get update -qq
		# shellcheck disable=SC2086 # one word a package
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >&2
	else
		echo "bench: missing Debian packages; run:" >&2
		echo "  sudo apt-get install -y$missing" >&2
		exit 1
	fi
}

# machine_info — the machine details RESULTS.md records, as a markdown list.
machine_info() {
	local cpu mem hv cfg
	cpu=$(awk -F': *' '/^model name/ && !n { n = $2 } /^cpu family/ && !f { f = $2 } /^model\t/ && !m { m = $2 }
		/^cpu MHz/ && !h { h = $2 } END { printf "%s (family %s model %s, %.0f MHz)", n, f, m, h }' /proc/cpuinfo)
	hv=$(lscpu 2>/dev/null | sed -n 's/^Hypervisor vendor: *//p')
	mem=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)
	echo "- CPU: $cpu, nproc $(nproc)${hv:+, virtual machine ($hv)}"
	echo "- memory: $mem"
	echo "- kernel: $(uname -srm)"
	echo "- compiler: $(cc --version | head -1)"
	echo "- rtk: $("$RTK" --version 2>&1 | head -1), $RTK, built from $RTK_SRC at commit $(git -C "$RTK_SRC" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$RTK_SRC" diff --quiet HEAD -- src applets 2>/dev/null || echo ' (src or applets modified)')"
	if [ -f "$RTK_SRC/Makefile" ]; then
		cfg=$(sed -n "s/^ac_cs_config='\(.*\)'$/\1/p" "$RTK_SRC/config.status" 2>/dev/null || true)
		echo "- rtk build: CFLAGS \`$(sed -n 's/^CFLAGS = //p' "$RTK_SRC/Makefile")\`, configure options: ${cfg:-none}"
	fi
	echo "- load average (1, 5, 15 min) when the script started: $LOAD_AT_START; other work on the machine adds noise"
	echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
}

# psi_total — microseconds some runnable task has waited for a CPU since boot (/proc/pressure/cpu), 0 if
# the kernel has no PSI. Its growth over a run says how much other work competed with the run.
psi_total() {
	awk -F'total=' '/^some/ { print $2; found = 1 } END { if (!found) print 0 }' /proc/pressure/cpu 2>/dev/null || echo 0
}

# psi_share T0 T1 SECONDS — the share (%) of SECONDS some task waited for a CPU, from two psi_total readings.
psi_share() {
	awk -v a="$1" -v b="$2" -v s="$3" 'BEGIN { printf "%.0f%%", (s > 0 ? (b - a) / 1e6 / s * 100 : 0) }'
}

# median NUM... — the median of the numbers given (mean of the middle two for an even count).
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.6g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# max NUM... — the largest.
max() {
	printf '%s\n' "$@" | sort -g | tail -1
}

# timed KEY RUNS STDOUT CMD... — runs CMD RUNS times under GNU time with its standard output to STDOUT,
# after reading the input files once so every run reads from the page cache. Sets KEY_t (median elapsed s),
# elapsed from bash's $EPOCHREALTIME around each run (GNU time's %e has only 10 ms), KEY_u and KEY_s (median user and system s), KEY_rss (largest peak RSS, KiB), KEY_rss_all (each run's).
timed() {
	local key=$1 runs=$2 out=$3 i e=() u=() s=() m=() w=() t0 t1 p0 p1 et ut st mt
	shift 3
	echo "+ $* > $out   # x$runs" >&2
	for ((i = 0; i < runs; i++)); do
		p0=$(psi_total)
		t0=$EPOCHREALTIME
		/usr/bin/time -o "${D:?timed needs D, the output folder}/time.tmp" -f '%U %S %M' "$@" > "$out"
		t1=$EPOCHREALTIME
		p1=$(psi_total)
		et=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
		read -r ut st mt < <(tail -1 "$D/time.tmp")
		e+=("$et") u+=("$ut") s+=("$st") m+=("$mt") w+=("$(psi_share "$p0" "$p1" "$et")")
		echo "  run $((i + 1)): ${et}s elapsed, ${ut}s user, ${st}s sys, ${mt} KiB, CPU pressure ${w[-1]}" >&2
	done
	printf -v "${key}_t" '%s' "$(median "${e[@]}")"
	printf -v "${key}_u" '%s' "$(median "${u[@]}")"
	printf -v "${key}_s" '%s' "$(median "${s[@]}")"
	printf -v "${key}_rss" '%s' "$(max "${m[@]}")"
	printf -v "${key}_rss_all" '%s' "${m[*]}"
	printf -v "${key}_t_all" '%s' "${e[*]}"
	printf -v "${key}_psi_all" '%s' "${w[*]}"
}
