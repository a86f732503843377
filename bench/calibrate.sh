#!/usr/bin/env bash
# bench/calibrate.sh — `rtk calibrate` on a 10-million-row JSONL corpus against a json + scikit-learn Python pipeline, time and peak memory.
#
# Usage: bench/calibrate.sh          (RTK=/path/to/rtk to measure another binary; default ./rtk at the repo top)
#   ROWS=10000000 PREFIX_ROWS=1000000 SEED=42   corpus size, the prefix for the memory check, generator seed
#   RTK_RUNS=5 PY_RUNS=3                        timed runs (the median is reported)
#   PROFILE=1                                   also profile rtk with callgrind on a PROFILE_ROWS (200000)-row prefix
# The corpus goes to bench/out/calibrate/ (about 480 MB) and is reused while it has the right line count.
# Writes bench/out/calibrate/results.md, the table for RESULTS.md.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

ROWS=${ROWS:-10000000}
PREFIX_ROWS=${PREFIX_ROWS:-1000000}
SEED=${SEED:-42}
RTK_RUNS=${RTK_RUNS:-5}
PY_RUNS=${PY_RUNS:-3}
PROFILE=${PROFILE:-0}
PROFILE_ROWS=${PROFILE_ROWS:-200000}
D="$OUT/calibrate"
mkdir -p "$D"

need_pkgs time jq build-essential python3 python3-numpy python3-sklearn
[ "$PROFILE" = 1 ] && need_pkgs valgrind

# --- the corpus ----------------------------------------------------------------------------------------
GEN_CMD="cc -O2 -o $D/calibrate_gen $BENCH_DIR/calibrate_gen.c"
$GEN_CMD
# The generator's hash is in the name, so a changed generator makes a new corpus.
GEN_ID=$(sha256sum "$BENCH_DIR/calibrate_gen.c" | cut -c1-8)
CORPUS="$D/corpus-$ROWS-seed$SEED-$GEN_ID.jsonl"
PREFIX="$D/corpus-$PREFIX_ROWS-seed$SEED-$GEN_ID.jsonl"

lines_ok() { [ -f "$1" ] && [ "$(wc -l < "$1")" -eq "$2" ]; }

if lines_ok "$CORPUS" "$ROWS"; then
	echo "calibrate: reusing $CORPUS" >&2
else
	echo "calibrate: generating $ROWS rows into $CORPUS" >&2
	rm -f "$D"/corpus-*.jsonl
	"$D/calibrate_gen" "$ROWS" "$SEED" > "$CORPUS.tmp"
	mv "$CORPUS.tmp" "$CORPUS"
fi
if lines_ok "$PREFIX" "$PREFIX_ROWS"; then
	echo "calibrate: reusing $PREFIX" >&2
else
	head -n "$PREFIX_ROWS" "$CORPUS" > "$PREFIX.tmp"
	mv "$PREFIX.tmp" "$PREFIX"
fi
CORPUS_BYTES=$(stat -c %s "$CORPUS")

cat "$CORPUS" "$PREFIX" > /dev/null

# --- sanity check: the same AUC from both ------------------------------------------------------------------
"$RTK" calibrate --json "$CORPUS" > "$D/rtk.json"
rtk_rows=$(jq '.input.rows' "$D/rtk.json")
rtk_auc=$(jq '.overall.all.auc' "$D/rtk.json")

# --- rtk ----------------------------------------------------------------------------------------------------
timed rtk "$RTK_RUNS" /dev/null "$RTK" calibrate --json "$CORPUS"
timed grp "$RTK_RUNS" /dev/null "$RTK" calibrate --json --group-by agent "$CORPUS"
timed pre "$RTK_RUNS" /dev/null "$RTK" calibrate --json "$PREFIX"

# --- the Python pipeline ------------------------------------------------------------------------------------
timed py "$PY_RUNS" "$D/peer.out" "$PY" "$BENCH_DIR/calibrate_peer.py" "$CORPUS"
py_rows=$(awk '$1 == "rows" { print $2 }' "$D/peer.out")
py_auc=$(awk '$1 == "auc" { print $2 }' "$D/peer.out")
SKLEARN=$("$PY" -c 'import sklearn, numpy, sys; print(f"Python {sys.version.split()[0]}, scikit-learn {sklearn.__version__}, NumPy {numpy.__version__}")')

# --- optional: where rtk's time goes --------------------------------------------------------------------
PROFILE_CMD=""
if [ "$PROFILE" = 1 ]; then
	head -n "$PROFILE_ROWS" "$CORPUS" > "$D/profile.jsonl"
	PROFILE_CMD="valgrind --tool=callgrind --callgrind-out-file=$D/callgrind.out $RTK calibrate --json $D/profile.jsonl > /dev/null"
	echo "+ $PROFILE_CMD" >&2
	valgrind --tool=callgrind --callgrind-out-file="$D/callgrind.out" "$RTK" calibrate --json "$D/profile.jsonl" > /dev/null 2> "$D/callgrind.log"
	callgrind_annotate "$D/callgrind.out" > "$D/callgrind-self.txt"
	callgrind_annotate --inclusive=yes "$D/callgrind.out" > "$D/callgrind-inclusive.txt"
fi
# profile_table FILE — the top functions of a callgrind_annotate listing, with instructions a row.
profile_table() {
	awk -v rows="$PROFILE_ROWS" '/file:function/ { on = 1; next } on && /^-+$/ { next } on && /^ *$/ { exit }
		on && n < 12 && match($0, /^ *[0-9,]+ +\( *[0-9.]+%\) +/) {
			head = substr($0, 1, RLENGTH); fn = substr($0, RLENGTH + 1); sub(/ \[.*$/, "", fn); sub(/^.*\//, "", fn)
			if (fn ~ /^\?\?\?:|below main|libc_start|^main\.c:main$/ || seen[fn]++) next
			ir = head; sub(/ *\(.*/, "", ir); gsub(/[ ,]/, "", ir); pct = head; sub(/^[^(]*\( */, "", pct); sub(/\).*/, "", pct)
			printf "%14s %7s %6.0f/row  %s\n", ir, pct, ir / rows, fn; n++ }' "$1"
}

auc_diff=$(awk -v a="$rtk_auc" -v b="$py_auc" 'BEGIN { d = a - b; if (d < 0) d = -d; printf "%.3g", d }')
auc_ok=$(awk -v a="$rtk_auc" -v b="$py_auc" 'BEGIN { d = a - b; if (d < 0) d = -d; print (d <= 1e-9 ? "agree" : "DISAGREE") }')
rows_ok=$([ "$rtk_rows" = "$ROWS" ] && [ "$py_rows" = "$ROWS" ] && echo agree || echo DISAGREE)
speedup=$(awk -v p="$py_t" -v r="$rtk_t" 'BEGIN { printf "%.1f", p / r }')
cpu_speedup=$(awk -v pu="$py_u" -v ps="$py_s" -v ru="$rtk_u" -v rs="$rtk_s" 'BEGIN { printf "%.1f", (pu + ps) / (ru + rs) }')
mb=$(awk -v b="$CORPUS_BYTES" 'BEGIN { printf "%.0f", b / 1e6 }')
thr() { awk -v n="$1" -v t="$2" -v b="$3" 'BEGIN { printf "%.1f M rows/s, %.0f MB/s", n / t / 1e6, b / t / 1e6 }'; }

{
	echo "Machine:"
	echo
	machine_info
	echo "- peer: $SKLEARN (Debian packages, $PY)"
	echo "- corpus: $ROWS rows, $mb MB, \`$CORPUS\` (seed $SEED); its first $PREFIX_ROWS rows for the memory check."
	echo "  Lines like \`$(head -1 "$CORPUS")\`; $(jq '.overall.all.distinct_values' "$D/rtk.json") distinct confidences, accuracy $(jq '.overall.all.accuracy * 1000 | round / 1000' "$D/rtk.json"), AUC $(jq '.overall.all.auc * 1000 | round / 1000' "$D/rtk.json")"
	echo "- every timed run reads a file already in the page cache (the script reads it once first)"
	echo
	echo "Commands:"
	echo
	echo '```sh'
	echo "# each timed run: elapsed = \$EPOCHREALTIME after - before; user, sys and peak RSS from GNU time"
	echo "$GEN_CMD"
	echo "$D/calibrate_gen $ROWS $SEED > CORPUS; head -n $PREFIX_ROWS CORPUS > PREFIX"
	echo "/usr/bin/time -o TIMEFILE -f '%U %S %M' $RTK calibrate --json CORPUS > /dev/null                   # x$RTK_RUNS"
	echo "/usr/bin/time -o TIMEFILE -f '%U %S %M' $RTK calibrate --json --group-by agent CORPUS > /dev/null  # x$RTK_RUNS"
	echo "/usr/bin/time -o TIMEFILE -f '%U %S %M' $RTK calibrate --json PREFIX > /dev/null                   # x$RTK_RUNS"
	echo "/usr/bin/time -o TIMEFILE -f '%U %S %M' $PY bench/calibrate_peer.py CORPUS                         # x$PY_RUNS"
	echo '```'
	echo
	echo "| command | rows | median elapsed (s) | median user / sys (s) | throughput | peak RSS (KiB, largest of the runs) |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: |"
	echo "| \`rtk calibrate --json\` | $ROWS | $rtk_t | $rtk_u / $rtk_s | $(thr "$ROWS" "$rtk_t" "$CORPUS_BYTES") | $rtk_rss |"
	echo "| \`rtk calibrate --json --group-by agent\` | $ROWS | $grp_t | $grp_u / $grp_s | $(thr "$ROWS" "$grp_t" "$CORPUS_BYTES") | $grp_rss |"
	echo "| \`rtk calibrate --json\` (prefix) | $PREFIX_ROWS | $pre_t | $pre_u / $pre_s | $(thr "$PREFIX_ROWS" "$pre_t" "$(stat -c %s "$PREFIX")") | $pre_rss |"
	echo "| \`calibrate_peer.py\` (json + scikit-learn) | $ROWS | $py_t | $py_u / $py_s | $(thr "$ROWS" "$py_t" "$CORPUS_BYTES") | $py_rss |"
	echo
	echo "- speed-up, Python median / rtk median: **${speedup}×** (target ≥ 20×: $(awk -v s="$speedup" 'BEGIN { print (s >= 20 ? "met" : "MISSED") }')); in CPU time (user + sys): ${cpu_speedup}×"
	echo "- elapsed of each run (s): rtk $rtk_t_all; --group-by $grp_t_all; prefix $pre_t_all; Python $py_t_all"
	echo "- CPU pressure during each run (share of the time some runnable task waited for a CPU, /proc/pressure/cpu;"
	echo "  near 0% on a quiet machine): rtk $rtk_psi_all; --group-by $grp_psi_all; prefix $pre_psi_all; Python $py_psi_all"
	echo "- memory against rows: rtk peak RSS $pre_rss KiB on $PREFIX_ROWS rows (runs: $pre_rss_all), $rtk_rss KiB on $ROWS rows (runs: $rtk_rss_all)"
	echo "- AUC: rtk $rtk_auc, scikit-learn $py_auc, |difference| $auc_diff: $auc_ok (tolerance 1e-9); rows: rtk $rtk_rows, Python $py_rows: $rows_ok"
	if [ "$PROFILE" = 1 ]; then
		echo
		echo "Profile of rtk, $PROFILE_ROWS-row prefix: \`$PROFILE_CMD\`, then \`callgrind_annotate\` (self cost) and"
		echo "\`callgrind_annotate --inclusive=yes\` (with callees); Ir = instructions executed:"
		echo
		echo '```'
		echo "self:"
		profile_table "$D/callgrind-self.txt"
		echo "inclusive:"
		profile_table "$D/callgrind-inclusive.txt"
		echo '```'
	fi
} > "$D/results.md"
cat "$D/results.md"
[ "$auc_ok" = agree ] && [ "$rows_ok" = agree ] || { echo "calibrate: rtk and scikit-learn DISAGREE" >&2; exit 1; }
