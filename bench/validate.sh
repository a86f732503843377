#!/usr/bin/env bash
# bench/validate.sh — `rtk validate` on 100,000 reflection.v1 records (JSONL) against ajv-cli, ajv over JSONL, and python3-jsonschema.
#
# Usage: bench/validate.sh          (RTK=/path/to/rtk to measure another binary; default ./rtk at the repo top)
#   ROWS=100000 SEED=42 RTK_RUNS=5 PEER_RUNS=3
# Peers: ajv 8 + ajv-formats + ajv-cli 5 from the npm registry (installed into bench/out/validate/), Debian's
# python3-jsonschema. Every validator asserts formats and prints one line per invalid record (ajv-cli: its
# error list). ajv-cli reads only whole JSON documents, so it gets the same records as one JSON array
# (validated by a wrapper schema whose items $ref reflection.v1); validate_peer_ajv.js runs ajv (the engine
# ajv-cli drives) over the JSONL itself, which is the like-for-like comparison.
# Writes bench/out/validate/results.md, the section for RESULTS.md.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

ROWS=${ROWS:-100000}
SEED=${SEED:-42}
RTK_RUNS=${RTK_RUNS:-5}
PEER_RUNS=${PEER_RUNS:-3}
D="$OUT/validate"
mkdir -p "$D"
SCHEMA="$TOP/schemas/reflection.v1.schema.json"
export RTK_DATADIR="$TOP"

need_pkgs time python3 python3-jsonschema
command -v node > /dev/null && command -v npm > /dev/null || { echo "validate: needs node and npm (Debian: nodejs npm)" >&2; exit 1; }
if [ ! -x "$D/node_modules/.bin/ajv" ]; then
	(cd "$D" && npm install --no-audit --no-fund ajv@8 ajv-cli@5 ajv-formats@3 >&2)
fi
AJV_VERSIONS=$(cd "$D" && node -e 'for (const p of ["ajv", "ajv-cli", "ajv-formats"]) process.stdout.write(p + " " + require("./node_modules/" + p + "/package.json").version + ", ")')

# --- the records ---------------------------------------------------------------------------------------------
GEN_ID=$(sha256sum "$BENCH_DIR/validate_gen.py" | cut -c1-8)
DATA="$D/reflections-$ROWS-seed$SEED-$GEN_ID.jsonl"
ARRAY="${DATA%.jsonl}.array.json"
if [ ! -f "$DATA" ] || [ "$(wc -l < "$DATA")" -ne "$ROWS" ]; then
	echo "validate: generating $ROWS records into $DATA" >&2
	rm -f "$D"/reflections-*
	"$PY" "$BENCH_DIR/validate_gen.py" "$ROWS" "$SEED" > "$DATA.tmp"
	mv "$DATA.tmp" "$DATA"
	{ echo '['; sed '$!s/$/,/' "$DATA"; echo ']'; } > "$ARRAY"
fi
echo '{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"array","items":{"$ref":"https://rtk.invalid/schemas/reflection.v1.schema.json"}}' > "$D/wrapper.json"
DATA_BYTES=$(stat -c %s "$DATA")

# timed KEY RUNS STDOUT CMD... — as in bench/calibrate.sh: median elapsed, user, sys; largest peak RSS.
timed() {
	local key=$1 runs=$2 out=$3 i e=() u=() s=() m=() t0 t1 et ut st mt
	shift 3
	echo "+ $* > $out   # x$runs" >&2
	for ((i = 0; i < runs; i++)); do
		t0=$EPOCHREALTIME
		/usr/bin/time -o "$D/time.tmp" -f '%U %S %M' "$@" > "$out" || true
		t1=$EPOCHREALTIME
		et=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
		read -r ut st mt < <(tail -1 "$D/time.tmp")
		e+=("$et") u+=("$ut") s+=("$st") m+=("$mt")
		echo "  run $((i + 1)): ${et}s elapsed, ${ut}s user, ${st}s sys, ${mt} KiB" >&2
	done
	printf -v "${key}_t" '%s' "$(median "${e[@]}")"
	printf -v "${key}_u" '%s' "$(median "${u[@]}")"
	printf -v "${key}_s" '%s' "$(median "${s[@]}")"
	printf -v "${key}_rss" '%s' "$(max "${m[@]}")"
	printf -v "${key}_t_all" '%s' "${e[*]}"
}

cat "$DATA" "$ARRAY" > /dev/null
timed rtk "$RTK_RUNS" "$D/rtk.out" "$RTK" validate --assert-format --schema "$SCHEMA" "$DATA"
timed ajvl "$PEER_RUNS" "$D/ajv.out" env NODE_PATH="$D/node_modules" node "$BENCH_DIR/validate_peer_ajv.js" "$SCHEMA" "$DATA"
timed ajvcli "$PEER_RUNS" "$D/ajvcli.out" bash -c '"$0" "$@" 2>&1' "$D/node_modules/.bin/ajv" validate --spec=draft2020 --strict=false --all-errors \
	-c ajv-formats -s "$D/wrapper.json" -r "$SCHEMA" -d "$ARRAY" --errors=line
timed py "$PEER_RUNS" "$D/py.out" "$PY" "$BENCH_DIR/validate_peer.py" "$SCHEMA" "$DATA"

# --- the validators agree on which records are invalid ------------------------------------------------------
rtk_bad=$(wc -l < "$D/rtk.out")
ajv_bad=$(wc -l < "$D/ajv.out")
py_bad=$(wc -l < "$D/py.out")
agree=$(cmp -s <(cut -d: -f2 "$D/rtk.out") <(cut -d: -f2 "$D/ajv.out") && echo "the same records" || echo "DIFFERENT records")
PYV=$("$PY" -c 'import jsonschema, sys; print(f"Python {sys.version.split()[0]}, jsonschema {jsonschema.__version__}")')
ratio() { awk -v p="$1" -v r="$2" 'BEGIN { printf "%.1f", p / r }'; }
cpu_ratio() { awk -v pu="$1" -v ps="$2" -v ru="$rtk_u" -v rs="$rtk_s" 'BEGIN { printf "%.1f", (pu + ps) / (ru + rs) }'; }
mb=$(awk -v b="$DATA_BYTES" 'BEGIN { printf "%.1f", b / 1e6 }')
{
	echo "Machine:"
	echo
	machine_info
	echo "- peers: $AJV_VERSIONS Node.js $(node --version); $PYV (Debian)"
	echo "- data: $ROWS reflection.v1 records, $mb MB, \`$DATA\` (seed $SEED), $rtk_bad invalid"
	echo
	echo "Commands (each run: elapsed from \$EPOCHREALTIME, user/sys/peak RSS from \`/usr/bin/time -f '%U %S %M'\`; files in the page cache):"
	echo
	echo '```sh'
	echo "$PY bench/validate_gen.py $ROWS $SEED > DATA.jsonl   # and the same records as one JSON array, DATA.array.json"
	echo "rtk validate --assert-format --schema schemas/reflection.v1.schema.json DATA.jsonl            # x$RTK_RUNS"
	echo "node bench/validate_peer_ajv.js schemas/reflection.v1.schema.json DATA.jsonl               # x$PEER_RUNS"
	echo "ajv validate --spec=draft2020 --strict=false --all-errors -c ajv-formats -s wrapper.json -r schemas/reflection.v1.schema.json -d DATA.array.json --errors=line  # x$PEER_RUNS"
	echo "$PY bench/validate_peer.py schemas/reflection.v1.schema.json DATA.jsonl              # x$PEER_RUNS"
	echo '```'
	echo
	echo "| command | median elapsed (s) | median user / sys (s) | peak RSS (KiB) | rtk is faster by (elapsed) | (CPU time) |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: |"
	echo "| \`rtk validate --assert-format\` (JSONL) | $rtk_t | $rtk_u / $rtk_s | $rtk_rss | — | — |"
	echo "| ajv-cli 5 (the records as one JSON array) | $ajvcli_t | $ajvcli_u / $ajvcli_s | $ajvcli_rss | **$(ratio "$ajvcli_t" "$rtk_t")×** | $(cpu_ratio "$ajvcli_u" "$ajvcli_s")× |"
	echo "| ajv 8 over the JSONL (\`validate_peer_ajv.js\`) | $ajvl_t | $ajvl_u / $ajvl_s | $ajvl_rss | **$(ratio "$ajvl_t" "$rtk_t")×** | $(cpu_ratio "$ajvl_u" "$ajvl_s")× |"
	echo "| python3-jsonschema (\`validate_peer.py\`) | $py_t | $py_u / $py_s | $py_rss | **$(ratio "$py_t" "$rtk_t")×** | $(cpu_ratio "$py_u" "$py_s")× |"
	echo
	echo "- targets: ≥ 5× ajv-cli end to end: $(awk -v a="$ajvcli_t" -v r="$rtk_t" 'BEGIN { print (a / r >= 5 ? "met" : "MISSED") }') (against ajv over the JSONL: $(awk -v a="$ajvl_t" -v r="$rtk_t" 'BEGIN { print (a / r >= 5 ? "met" : "MISSED") }')); ≥ 50× python-jsonschema: $(awk -v a="$py_t" -v r="$rtk_t" 'BEGIN { print (a / r >= 50 ? "met" : "MISSED") }')"
	echo "- elapsed of each run (s): rtk $rtk_t_all; ajv-cli $ajvcli_t_all; ajv JSONL $ajvl_t_all; Python $py_t_all"
	echo "- invalid records found: rtk $rtk_bad, ajv $ajv_bad ($agree as rtk), python3-jsonschema $py_bad"
	echo "  (Debian's python3-jsonschema checks date-time only when the rfc3339-validator module is installed, which Debian does not ship, so it misses the bad timestamps)"
} > "$D/results.md"
cat "$D/results.md"
