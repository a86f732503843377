#!/usr/bin/env bash
# tests/cli/applets_am.sh — applets.am is what tests/tools/gen_applets_am.sh makes of applets/applets.def;
# the generator maps an id to its four files (the command swaps _ for -), names those not yet there, and
# refuses a malformed line.
. "$RTK_SRCDIR/tests/cli/lib.sh"
gen="sh $RTK_SRCDIR/tests/tools/gen_applets_am.sh"

if out=$(cd "$RTK_SRCDIR" && sh tests/tools/gen_applets_am.sh | diff applets.am - 2>&1); then
	pass "applets.am matches applets/applets.def"
else
	fail "applets.am matches applets/applets.def" "run: sh tests/tools/gen_applets_am.sh >applets.am (make does it too)" "$out"
fi

testing "one id gives its source, man page, schema and CLI test" "$gen input 2>/dev/null | sed 1,2d" \
	"\nAPPLET_SOURCES = \\\\\n\tapplets/a_b.c \\\\\n\tapplets/c.c\n\nAPPLET_MANS = \\\\\n\tman/rtk-a-b.1 \\\\\n\tman/rtk-c.1\n\nAPPLET_SCHEMAS = \\\\\n\tschemas/rtk.a-b.v1.schema.json \\\\\n\tschemas/rtk.c.v1.schema.json\n\nAPPLET_CLI_TESTS = \\\\\n\ttests/cli/a_b.sh \\\\\n\ttests/cli/c.sh\n" \
	"/* a comment */\nRTK_APPLET(a_b)\nRTK_APPLET(c)\n"
testing "the files not there yet are named at once, on stderr" \
	"mkdir -p tree/applets tree/man && cp input tree/applets/applets.def && touch tree/man/rtk-a-b.1 && $gen tree/applets/applets.def 2>&1 >/dev/null; echo \$?" \
	"gen_applets_am.sh: warning: applets.def names a_b, but applets/a_b.c is missing (HACKING.md: Adding an applet)\ngen_applets_am.sh: warning: applets.def names a_b, but schemas/rtk.a-b.v1.schema.json is missing (HACKING.md: Adding an applet)\ngen_applets_am.sh: warning: applets.def names a_b, but tests/cli/a_b.sh is missing (HACKING.md: Adding an applet)\n0\n" \
	"RTK_APPLET(a_b)\n"
testing "a malformed entry is refused, not dropped" "$gen input 2>&1 >/dev/null; echo \$?" \
	"gen_applets_am.sh: input: not one RTK_APPLET(id) alone on its line:\n3:RTK_APPLET(b) /* b */\n1\n" \
	"RTK_APPLET(a)\n\nRTK_APPLET(b) /* b */\n"
testing "a list without applets is refused" "$gen input 2>&1 >/dev/null; echo \$?" \
	"gen_applets_am.sh: input names no applet (one RTK_APPLET(id) a line)\n1\n" "/* nothing */\n"
finish
