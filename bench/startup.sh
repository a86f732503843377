#!/usr/bin/env bash
# bench/startup.sh — start-up cost of rtk against a plain C hello-world, one linked with all five libraries, and rtk built with --disable-lazy-libs.
#
# Usage: bench/startup.sh            (RTK=/path/to/rtk to measure another binary; default ./rtk at the repo top)
#   RTK_EAGER=/path/to/rtk           use this --disable-lazy-libs build instead of cloning and building one
#   ROUNDS=5 RUNS=200 WARMUP=20      hyperfine rounds, and runs and warm-up runs per command in each round
# Writes bench/out/startup/: round-N.{json,md} (hyperfine's exports), hyperfine.json (pooled statistics)
# and results.md, the table for RESULTS.md.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

ROUNDS=${ROUNDS:-5}
RUNS=${RUNS:-200}
WARMUP=${WARMUP:-20}
RSS_RUNS=${RSS_RUNS:-5}
LIBS="libgit2 libcjson yaml-0.1 libpcre2-8 libcurl"
D="$OUT/startup"
mkdir -p "$D"

need_pkgs hyperfine time jq git build-essential pkg-config autoconf automake \
	libgit2-dev libcjson-dev libyaml-dev libpcre2-dev libcurl4-openssl-dev

# --- the baselines: the same hello-world plain, with the libraries rtk itself loads at start (as ldd
# lists them), and with all five libraries really loaded -------------------------------------------------
cat > "$D/hello.c" <<'EOF'
#include <stdio.h>
int main(void) { puts("hello"); return 0; }
EOF
HELLO_CMD="cc -O2 -o $D/hello $D/hello.c"
# shellcheck disable=SC2086,SC2046
HELLO_ALL_CMD="cc -O2 -o $D/hello-all $D/hello.c -Wl,--no-as-needed $(pkg-config --libs $LIBS)"
# The DT_NEEDED libraries of the rtk under test, less libc: what rtk pays at every start by design.
RTK_NEEDED=$(readelf -d "$RTK" | sed -n 's/.*Shared library: \[lib\([^].]*\)\.so.*/-l\1/p' | grep -v '^-lc$' | tr '\n' ' ')
HELLO_RTKLIBS_CMD="cc -O2 -o $D/hello-rtklibs $D/hello.c -Wl,--no-as-needed $RTK_NEEDED"
$HELLO_CMD
$HELLO_RTKLIBS_CMD
$HELLO_ALL_CMD

# --- rtk built with --disable-lazy-libs, from the same commit as the binary under test --------------
if [ -n "${RTK_EAGER:-}" ]; then
	EAGER=$RTK_EAGER
	EAGER_HOW="given as RTK_EAGER"
elif git -C "$RTK_SRC" rev-parse HEAD >/dev/null 2>&1; then
	want=$(git -C "$RTK_SRC" rev-parse HEAD)
	E="${TMPDIR:-/tmp}/rtk-bench-eager"
	EAGER="$E/rtk"
	if [ -x "$EAGER" ] && [ "$(git -C "$E" rev-parse HEAD 2>/dev/null)" = "$want" ] \
		&& grep -q -- '--disable-lazy-libs' "$E/config.status" 2>/dev/null; then
		echo "startup: reusing $EAGER (commit ${want:0:7})" >&2
	else
		echo "startup: building rtk --disable-lazy-libs at commit ${want:0:7} in $E (log: $D/eager-build.log)" >&2
		rm -rf "$E"
		git clone -q "$RTK_SRC" "$E"
		git -C "$E" checkout -q "$want"
		(cd "$E" && ./bootstrap --disable-lazy-libs) > "$D/eager-build.log" 2>&1
	fi
	EAGER_HOW="git clone of $RTK_SRC at ${want:0:7}, then \`./bootstrap --disable-lazy-libs\`"
else
	echo "startup: $RTK_SRC is not a git work tree and RTK_EAGER is not set: cannot build the eager binary" >&2
	exit 1
fi

# --- timing -------------------------------------------------------------------------------------------
NAMES=(hello hello-rtklibs hello-all "rtk --version" "rtk calibrate --help" "rtk(eager) --version")
CMDS=("$D/hello" "$D/hello-rtklibs" "$D/hello-all" "$RTK --version" "$RTK calibrate --help" "$EAGER --version")
BINS=("$D/hello" "$D/hello-rtklibs" "$D/hello-all" "$RTK" "$RTK" "$EAGER")

# ROUNDS rounds of hyperfine over all the commands, pooled: other work on the machine then drifts over
# every command alike instead of over whichever one was running at the time.
HF_ARGS=(-N --warmup "$WARMUP" --runs "$RUNS")
for i in "${!CMDS[@]}"; do HF_ARGS+=(-n "${NAMES[$i]}" "${CMDS[$i]}"); done
HF_SHOWN=$(printf '%q ' hyperfine "${HF_ARGS[@]}")
rm -f "$D"/round-*.json "$D"/round-*.md
psi0=$(psi_total) hf0=$EPOCHREALTIME
for ((r = 1; r <= ROUNDS; r++)); do
	echo "+ $HF_SHOWN--export-json $D/round-$r.json --export-markdown $D/round-$r.md   # round $r of $ROUNDS" >&2
	hyperfine "${HF_ARGS[@]}" --export-json "$D/round-$r.json" --export-markdown "$D/round-$r.md" >&2
done
psi1=$(psi_total) hf1=$EPOCHREALTIME
# Pooled over the rounds, per command: every run's wall time (s).
jq -s '[range(0; .[0].results | length) as $i | [.[].results[$i].times[]] | sort
	| { n: length, min: .[0], median: (if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end),
	    mean: (add / length) } as $s | $s + { stddev: ((map((. - $s.mean) * (. - $s.mean)) | add) / ($s.n - 1) | sqrt) }]' \
	"$D"/round-*.json > "$D/hyperfine.json"

# Peak RSS: the median over RSS_RUNS runs of GNU time's %M (KiB).
rss_of() {
	local r=() i
	for ((i = 0; i < RSS_RUNS; i++)); do
		# shellcheck disable=SC2086
		/usr/bin/time -o "$D/time.tmp" -f '%M' $1 > /dev/null 2>&1
		r+=("$(tail -1 "$D/time.tmp")")
	done
	median "${r[@]}"
}

base=$(jq '.[0].median' "$D/hyperfine.json")
{
	echo "Machine:"
	echo
	machine_info
	echo "- hyperfine: $(hyperfine --version | sed 's/^hyperfine //'), \`-N\` (no shell), $ROUNDS rounds of $RUNS runs (after $WARMUP warm-up runs) per command, pooled: $((ROUNDS * RUNS)) runs each"
	echo "- rtk(eager): $EAGER_HOW"
	echo "- CPU pressure during the hyperfine rounds: $(psi_share "$psi0" "$psi1" "$(awk -v a="$hf0" -v b="$hf1" 'BEGIN { print b - a }')") of the time some runnable task waited for a CPU (/proc/pressure/cpu; near 0% on a quiet machine)"
	echo
	echo "Commands:"
	echo
	echo '```sh'
	echo "$HELLO_CMD"
	echo "$HELLO_RTKLIBS_CMD   # the libraries rtk's own ELF header names"
	echo "$HELLO_ALL_CMD"
	echo "$HF_SHOWN--export-json round-N.json --export-markdown round-N.md   # N = 1..$ROUNDS"
	echo "/usr/bin/time -o FILE -f '%M' COMMAND > /dev/null   # peak RSS: $RSS_RUNS runs each, median"
	echo "ldd BINARY | wc -l                                   # shared objects, counting the vDSO and the loader"
	echo '```'
	echo
	echo "| command | median (ms) | mean ± σ (ms) | min (ms) | × hello (median) | × hello (min) | peak RSS (KiB) | ldd objects |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	for i in "${!CMDS[@]}"; do
		read -r med mean sd min < <(jq -r ".[$i] | [.median, .mean, .stddev, .min] | map(. * 1000) | @tsv" "$D/hyperfine.json")
		ratio=$(jq -r ".[$i].median / $base" "$D/hyperfine.json")
		ratio_min=$(jq -r ".[$i].min / .[0].min" "$D/hyperfine.json")
		printf '| `%s` | %.3f | %.3f ± %.3f | %.3f | %.2f | %.2f | %s | %s |\n' "${NAMES[$i]}" "$med" "$mean" "$sd" "$min" "$ratio" "$ratio_min" \
			"$(rss_of "${CMDS[$i]}")" "$(ldd "${BINS[$i]}" | wc -l)"
	done
	echo
	echo "Target: \`rtk --version\` and \`rtk calibrate --help\` within 1.5× of hello (median):"
	for i in 3 4; do
		ratio=$(jq -r ".[$i].median / $base" "$D/hyperfine.json")
		printf -- '- `%s`: %.2f× — %s\n' "${NAMES[$i]}" "$ratio" "$(awk -v r="$ratio" 'BEGIN { print (r <= 1.5 ? "met" : "MISSED") }')"
	done
	echo
	echo "Shared libraries each rtk names (readelf -d, NEEDED):"
	echo
	echo "- rtk: $(readelf -d "$RTK" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')"
	echo "- rtk(eager): $(readelf -d "$EAGER" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | tr '\n' ' ')"
	if ! readelf -d "$EAGER" | grep -q 'libgit2\|libcurl'; then
		echo
		echo "Note: rtk(eager) names neither libgit2 nor libcurl: rtk links with \`-Wl,--as-needed\` and no code in this"
		echo "build calls them yet, so the linker dropped them and the eager build starts like the lazy one."
	fi
} > "$D/results.md"
cat "$D/results.md"
