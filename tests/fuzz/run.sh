#!/bin/sh
# tests/fuzz/run.sh — what `make fuzz` runs: builds librtk and each harness with clang, ASan and UBSan, then
# fuzzes each harness for FUZZ_SECONDS seconds from its seed corpus and regressions. Fails on any crash.
#
#   run.sh SRCDIR BUILDDIR SECONDS HARNESS...
#
# From the environment (make passes them): FUZZ_CC (clang), FUZZ_CFLAGS (extra flags), FUZZ_SOURCES (the
# library's .c files, relative to SRCDIR), FUZZ_DEP_CFLAGS and FUZZ_DEP_LIBS (cJSON, libyaml, pcre2, zlib).
# Work files go under BUILDDIR/tests/fuzz/: build/ (objects, binaries), work/HARNESS/ (the corpus grown
# by the runs), crashes/HARNESS/ (inputs that crashed: copy them into tests/fuzz/regressions/HARNESS/).
set -eu
srcdir=$1 builddir=$2 seconds=$3
shift 3
cc=${FUZZ_CC:-clang}
out=$builddir/tests/fuzz
obj=$out/build/obj
sanitize="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cflags="-g -O1 -std=gnu11 -D_GNU_SOURCE -I$builddir -I$srcdir/src -I$srcdir/tests/fuzz $sanitize ${FUZZ_DEP_CFLAGS:-} ${FUZZ_CFLAGS:-}"

if ! command -v "$cc" >/dev/null 2>&1; then
	echo "fuzz: $cc not found: install the Debian package clang (libFuzzer comes with it)" >&2
	exit 2
fi

# The library with coverage for libFuzzer (fuzzer-no-link: instrumented, but no main). A changed header
# rebuilds everything; a changed .c file only itself.
mkdir -p "$obj"
newest_header=$(find "$srcdir/src" -name '*.h' -newer "$obj/.stamp" 2>/dev/null | head -n 1 || true)
[ -f "$obj/.stamp" ] || newest_header=all
for src in ${FUZZ_SOURCES:?}; do
	case $src in *.c) ;; *) continue ;; esac
	o=$obj/$(echo "$src" | tr / _ | sed 's/\.c$/.o/')
	if [ -n "$newest_header" ] || [ ! -f "$o" ] || [ "$srcdir/$src" -nt "$o" ]; then
		echo "$srcdir/$src $o"
	fi
done | xargs -r -n 2 -P "${FUZZ_JOBS:-2}" sh -c "echo \"  FUZZCC   \$0\" && $cc $cflags -fsanitize=fuzzer-no-link -c \"\$0\" -o \"\$1\""
touch "$obj/.stamp"
# The archive from this list only, so objects of files since removed never link.
objects=$(for src in $FUZZ_SOURCES; do
	case $src in *.c) echo "$obj/$(echo "$src" | tr / _ | sed 's/\.c$/.o/')" ;; esac
done)
rm -f "$out/build/librtk-fuzz.a"
ar rcs "$out/build/librtk-fuzz.a" $objects

status=0
for h in "$@"; do
	echo "  FUZZLD   fuzz_$h"
	$cc $cflags -fsanitize=fuzzer "$srcdir/tests/fuzz/fuzz_$h.c" "$out/build/librtk-fuzz.a" \
		${FUZZ_DEP_LIBS:-} -lm -lpthread -ldl -o "$out/build/fuzz_$h"
	mkdir -p "$out/work/$h" "$out/crashes/$h"
	dict=
	[ -f "$srcdir/tests/fuzz/$h.dict" ] && dict="-dict=$srcdir/tests/fuzz/$h.dict"
	log=$out/work/$h.log
	# The grown corpus first (libFuzzer writes new inputs there), then the seeds and regressions.
	if RTK_DATADIR=$srcdir "$out/build/fuzz_$h" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$out/crashes/$h/" $dict \
		"$out/work/$h" "$srcdir/tests/fuzz/corpus/$h" "$srcdir/tests/fuzz/regressions/$h" >"$log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
		cov=$(sed -n 's/^#[0-9]*[[:space:]]*DONE[[:space:]]*\(cov: [0-9]*\).*\(corp: [0-9]*\).*/\1 edges, \2 inputs/p' "$log")
		echo "fuzz: $h: ${runs:-?} executions in ${seconds}s, no crash (${cov:-?})"
	else
		status=1
		echo "fuzz: $h: CRASH — see $log; the input is in $out/crashes/$h/:" >&2
		ls "$out/crashes/$h" >&2
		echo "fuzz: fix it, then copy the input into $srcdir/tests/fuzz/regressions/$h/ so make check replays it" >&2
	fi
done
exit $status
