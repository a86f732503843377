#!/usr/bin/env bash
# tests/cli/multicall.sh — dispatch by name or link, --list, --install, --version, errors and exit codes.
. "$RTK_SRCDIR/tests/cli/lib.sh"

version=$(sed -n 's/^AC_INIT(\[rtk\], \[\([^]]*\)\].*/\1/p' "$RTK_SRCDIR/configure.ac")
testing "--version" "$RTK --version" "rtk $version\n"
testing "--list names calibrate" "$RTK --list | grep -x calibrate" "calibrate\n"
testing "unknown applet exits 127" "$RTK frobnicate 2>&1; echo \$?" \
	"rtk: 'frobnicate' is not an rtk applet (see 'rtk --list')\n127\n"
testing "help of an unknown applet exits 127" "$RTK help frobnicate 2>&1 >/dev/null; echo \$?" \
	"rtk: 'frobnicate' is not an rtk applet (see 'rtk --list')\n127\n"
testing "no applet is a usage error" "$RTK >/dev/null 2>&1; echo \$?" "2\n"
testing "--help lists applets and exits 0" "$RTK --help | grep -c '^  calibrate '; echo \$?" "1\n0\n"
testing "unknown option names itself and exits 2" "$RTK calibrate --nope 2>&1; echo \$?" \
	"rtk calibrate: unknown option '--nope'\nTry 'rtk calibrate --help' for more information.\n2\n"
testing "bad --format exits 2" "$RTK calibrate --format yaml </dev/null 2>&1; echo \$?" \
	"rtk calibrate: --format takes json or md, not 'yaml'\nTry 'rtk calibrate --help' for more information.\n2\n"
testing "--json with --format md is a contradiction, not silently JSON" "$RTK calibrate --json --format md </dev/null 2>&1; echo \$?" \
	"rtk calibrate: --json and --format md contradict each other: pick one\nTry 'rtk calibrate --help' for more information.\n2\n"
testing "--json with --format json agrees" "$RTK calibrate --json --format json '$RTK_SRCDIR/data/samples/calibration.jsonl' | head -c 1; echo" "{\n"

# A link named after the applet behaves exactly like rtk APPLET.
scratch
mkdir "$SCRATCH/bin"
"$RTK" --install -s "$SCRATCH/bin" 2>/dev/null
check "--install -s makes a symlink per applet" test -L "$SCRATCH/bin/calibrate"
sample="$RTK_SRCDIR/data/samples/calibration.jsonl"
check "a symlinked applet equals rtk APPLET" \
	test "$("$SCRATCH/bin/calibrate" --json "$sample")" = "$("$RTK" calibrate --json "$sample")"
check "a symlinked applet's --help equals rtk APPLET --help" \
	test "$("$SCRATCH/bin/calibrate" --help)" = "$("$RTK" calibrate --help)"
ln -s "$RTK" "$SCRATCH/bin/rtk-calibrate"
check "rtk-APPLET (make install's name in bindir) equals rtk APPLET" \
	test "$("$SCRATCH/bin/rtk-calibrate" --json "$sample")" = "$("$RTK" calibrate --json "$sample")"
testing "rtk-APPLET of no applet exits 127" "ln -s $RTK rtk-frobnicate && ./rtk-frobnicate 2>&1; echo \$?" \
	"rtk: 'rtk-frobnicate' is not an rtk applet (see 'rtk --list')\n127\n"
testing "--install leaves an existing file alone" \
	"mkdir b && touch b/calibrate && $RTK --install -s b 2>&1; test -f b/calibrate -a ! -L b/calibrate; echo \$?" \
	"rtk: b/calibrate exists, left alone\n0\n"
mkdir "$SCRATCH/hard"
"$RTK" --install "$SCRATCH/hard"
check "--install without -s makes hard links" test "$SCRATCH/hard/calibrate" -ef "$RTK"
# Hard links cannot cross file systems: one line with the way out, not a line per applet.
other=$(mktemp -d /dev/shm/rtk-install.XXXXXX 2>/dev/null || true)
if [ -n "$other" ] && [ "$(stat -c %d "$other")" != "$(stat -L -c %d "$RTK")" ]; then
	testing "--install across file systems says once to use -s" \
		"$RTK --install '$other' 2>&1 | sed 's|^rtk: cannot hard-link .* into [^:]*: [^;]*; |rtk: ...; |'; echo \${PIPESTATUS[0]}; ls '$other' | wc -l" \
		"rtk: ...; 'rtk --install -s $other' makes symbolic links\n1\n0\n"
else
	echo "SKIP: no other file system than $RTK's at /dev/shm to hard-link across"
fi
[ -n "$other" ] && rm -rf "$other"
testing "a mistyped applet: the one it is nearest to" "$RTK calibrat 2>&1; echo \$?" \
	"rtk: 'calibrat' is not an rtk applet; did you mean 'calibrate'? (see 'rtk --list')\n127\n"
testing "rtk help with a mistyped applet" "$RTK help git-histroy 2>&1; echo \$?" \
	"rtk: 'git-histroy' is not an rtk applet; did you mean 'git-history'? (see 'rtk --list')\n127\n"
testing "nothing near: no guess" "$RTK frobnicate 2>&1; echo \$?" "rtk: 'frobnicate' is not an rtk applet (see 'rtk --list')\n127\n"
testing "a mistyped option: the one it is nearest to" "$RTK git-history --windw 30d 2>&1 | head -1" \
	"rtk git-history: unknown option '--windw'; did you mean '--window'?\n"
testing "--install without a folder is a usage error" "$RTK --install 2>&1; echo \$?" \
	"rtk: usage: rtk --install [-s] DIR\n2\n"

# No file and a terminal on stdin: a usage hint at once, not a silent wait for a document (script(1) gives
# the command a pseudo-terminal; its own stdin is /dev/null, so a wait would end, not hang, the test).
for a in calibrate validate risk-floor; do
	testing "$a with no file and a terminal on stdin says what to give" \
		"script -qec '$RTK $a; echo rc=\$?' /dev/null </dev/null | tr -d '\r' | sed 's/: give .*//'" \
		"rtk $a: no $(case $a in calibrate) echo FILE.jsonl ;; validate) echo INSTANCE ;; *) echo PATH ;; esac) given and standard input is a terminal\nrc=2\n"
done
# Markdown on a terminal folds its prose to the terminal's width (80 when it has none, as script's);
# tables stay whole. Piped, it is written as it is (the same text, lines joined).
p0="$RTK_SRCDIR/data/samples/phase0.yaml"
testing "on a terminal, no prose line is wider than 80 columns" \
	"script -qec '$RTK phase0 $p0' /dev/null </dev/null | tr -d '\r' | grep -v '^|' | LC_ALL=C.UTF-8 wc -L | awk '{print (\$1 <= 80)}'" "1\n"
testing "piped, the same paragraphs are single long lines" \
	"$RTK phase0 $p0 | grep -v '^|' | LC_ALL=C.UTF-8 wc -L | awk '{print (\$1 > 200)}'" "1\n"
testing "folding keeps the words: the terminal's text joined is the piped text" \
	"diff <(script -qec '$RTK phase0 $p0' /dev/null </dev/null | tr -d '\r' | tr '\n' ' ' | tr -s ' ') <($RTK phase0 $p0 | tr '\n' ' ' | tr -s ' ') && echo same" "same\n"
testing "an empty pipe is still read, not refused" "$RTK risk-floor --json </dev/null | jq -c '.parameters.source'" '"stdin"\n'

# Output errors: a full disk is a failure with a message; a closed pipe is silent.
if [ -w /dev/full ]; then
	testing "write error on stdout fails" "$RTK --list >/dev/full 2>err; echo \$?; cat err" \
		"1\nrtk: write error on standard output: No space left on device\n"
	testing "applet write error on stdout fails" "$RTK calibrate '$sample' >/dev/full 2>err; echo \$?; cat err" \
		"1\nrtk calibrate: write error on standard output: No space left on device\n"
fi
testing "closed pipe is silent" "$RTK calibrate --json '$sample' 2>err | head -c 1; echo; cat err" "{\n"

# Applets that need neither libgit2 nor libcurl never load them.
if grep -q '^#define RTK_LAZY_LIBS 1' "$RTK_BUILDDIR/config.h"; then
	testing "rtk links neither libgit2 nor libcurl" "ldd $RTK | grep -c -E 'libgit2|libcurl'" "0\n"
	testing "calibrate loads neither libgit2 nor libcurl" \
		"LD_DEBUG=files $RTK calibrate '$sample' 2>&1 >/dev/null | grep -c -E 'libgit2|libcurl'" "0\n"
else
	# --disable-lazy-libs: a program that calls them links them (rtk itself only once an applet does).
	testing "without lazy libraries they are linked directly" \
		"ldd $RTK_BUILDDIR/tests/unit/test_lazylib | grep -o -E 'libgit2|libcurl' | sort -u" "libcurl\nlibgit2\n"
fi
finish
