#!/usr/bin/env bash
# tests/cli/help_man.sh — every applet of applets/applets.def is in rtk and has all its parts: --help, a man
# page whose SYNOPSIS matches --help, a line in rtk(1) and README.md, a schema, a CLI test, a markdown
# renderer. Then each check is shown to fail on a scratch copy of the tree with that part taken away.
. "$RTK_SRCDIR/tests/cli/lib.sh"

# SYNOPSIS lines of a man page as plain text: font escapes and \- removed.
synopsis() {
	sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$1" | sed '1d;$d' | grep -v '^\.' |
		sed -e 's/\\f[BIRP]//g' -e 's/\\-/-/g'
}

# Usage lines of --help without their "usage:" / "or:" prefix.
usage_lines() {
	"$RTK" "$1" --help | sed -n -e 's/^usage: //p' -e 's/^   or: //p'
}

# Applets whose output for people is no rendered result, each for a reason:
#   capture   an agent's Stop hook: writes a reflection.v1 file and prints nothing
#   validate  prints one line per invalid instance as it meets them, a stream like a compiler's errors
no_markdown="capture validate"

# renders_md FILE: the applet hands rtk_out_emit (or rtk_out_emit_after) the format asked for (ctx->format) and a renderer the file
# defines, static void NAME(const cJSON *, struct rtk_out_md *). An applet that only prints JSON (rtk_out_emit
# with RTK_OUT_FORMAT_JSON or a NULL renderer, or cJSON_Print of its own) has no such call.
renders_md() {
	local text fn
	[ -f "$1" ] || return 1
	text=$(tr '\n\t' '  ' <"$1")
	fn=$(grep -o 'rtk_out_emit\(_after\)\?([^;]*ctx->format, *[A-Za-z_0-9]*' <<<"$text" | sed 's/.*, *//' | head -n 1)
	[ -n "$fn" ] && grep -q "static void $fn(const cJSON \*[a-z_]*, *struct rtk_out_md \*[a-z_]*)" <<<"$text"
}

ids=$(sed -n 's/^RTK_APPLET(\([a-z0-9_]*\))$/\1/p' "$RTK_SRCDIR/applets/applets.def")
check "applets.def names at least one applet" test -n "$ids"
want=$(printf '%s\n' $ids | tr _ -)
got=$("$RTK" --list)
if [ "$want" = "$got" ]; then pass "rtk --list names the applets of applets.def (each id with - for _)"
else fail "rtk --list names the applets of applets.def (each id with - for _)" "applets.def:" "$want" "rtk --list:" "$got"; fi

for id in $ids; do
	a=${id//_/-}
	help=$("$RTK" "$a" --help 2>&1); rc=$?
	check "$a --help exits 0" test "$rc" -eq 0
	check "$a --help starts with its usage" test "${help%%$'\n'*}" != "" -a "${help#usage: rtk $a}" != "$help"
	check "rtk help $a equals $a --help" test "$("$RTK" help "$a" 2>&1)" = "$help"
	man="$RTK_SRCDIR/man/rtk-$a.1"
	check "man/rtk-$a.1 exists" test -f "$man"
	if [ -f "$man" ] && [ "$rc" -eq 0 ]; then
		want=$(usage_lines "$a")
		got=$(synopsis "$man")
		if [ "$want" = "$got" ]; then pass "$a: man SYNOPSIS matches --help"
		else fail "$a: man SYNOPSIS matches --help" "--help:" "$want" "man:" "$got"; fi
		# Every long option --help names is documented in the man page.
		for opt in $("$RTK" "$a" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
			grep -q -- "${opt//-/\\\\-}" "$man" || fail "$a: man page documents $opt" "missing: $opt"
		done
		pass "$a: man page documents every option of --help"
	fi
	check "man/rtk.1 lists $a under APPLETS and SEE ALSO" test \
		"$(sed -n '/^\.SH APPLETS/,/^\.SH /p;/^\.SH "SEE ALSO"/,$p' "$RTK_SRCDIR/man/rtk.1" | grep -c "^\.BR rtk-$a (1)")" = 2
	check "README.md has a row and a section for $a" test \
		"$(grep -c -e "^| \`$a\` |" -e "^## \`rtk $a\` " "$RTK_SRCDIR/README.md")" = 2
	check "schemas/rtk.$a.v1.schema.json exists" test -f "$RTK_SRCDIR/schemas/rtk.$a.v1.schema.json"
	check "tests/cli/$id.sh exists" test -f "$RTK_SRCDIR/tests/cli/$id.sh"
	src="$RTK_SRCDIR/applets/$id.c"
	check "applets/$id.c exists" test -f "$src"
	if [[ " $no_markdown " == *" $a "* ]]; then
		# Listed as printing no markdown: fail once it does, so the list cannot go stale.
		! [ -f "$src" ] || ! renders_md "$src"
		check "$a prints no rendered markdown, as no_markdown says" test $? -eq 0
	else
		check "$a renders markdown (rtk_out_emit gets ctx->format and a renderer of applets/$id.c)" renders_md "$src"
	fi
done
check "man/rtk.1 exists" test -f "$RTK_SRCDIR/man/rtk.1"
check "applets/skeleton.c renders markdown, so a copy of it does too" renders_md "$RTK_SRCDIR/applets/skeleton.c"

# --- each check fails when its part is missing ----------------------------------------------------------
# broken CMD: copies the parts this test reads to ./tree, breaks one with CMD, runs this test on the copy
# and shows its exit code and the FAIL lines the intact tree does not have (the first case records
# those), so a part missing from the real tree fails above, once. The inner run skips this section.
broken() {
	mkdir -p tree/tests && cp -r "$RTK_SRCDIR/applets" "$RTK_SRCDIR/man" "$RTK_SRCDIR/schemas" "$RTK_SRCDIR/README.md" tree/ &&
		cp -r "$RTK_SRCDIR/tests/cli" tree/tests/ && chmod -R u+w tree && (cd tree && eval "$1") &&
		HELP_MAN_INNER=1 RTK_SRCDIR=$PWD/tree bash tree/tests/cli/help_man.sh >out
	echo "exit $?"
	grep '^FAIL' out | grep -vxFf "$intact_fails"
	[ "$1" != : ] || grep '^FAIL' out >"$intact_fails"
}
intact_fails=$SCRATCH_ROOT/intact-fails
: >"$intact_fails"
export -f broken
export RTK RTK_SRCDIR intact_fails

if [ -z "${HELP_MAN_INNER:-}" ]; then
	testing "an intact copy of the tree passes" "broken :" "exit 0\n"
	testing "no man page" "broken 'rm -f man/rtk-risk-floor.1'" \
		"exit 1\nFAIL: man/rtk-risk-floor.1 exists\n"
	testing "a SYNOPSIS that differs from --help" "broken \"sed -i '/^\\.SH SYNOPSIS/a rtk risk-floor --gone' man/rtk-risk-floor.1\"" \
		"exit 1\nFAIL: risk-floor: man SYNOPSIS matches --help\n"
	testing "not in rtk(1)'s SEE ALSO" "broken \"sed -i '/^\\.BR rtk-risk-floor (1),/d' man/rtk.1\"" \
		"exit 1\nFAIL: man/rtk.1 lists risk-floor under APPLETS and SEE ALSO\n"
	testing "no README section" "broken \"sed -i 's/^## \\\`rtk risk-floor\\\`/## risk-floor/' README.md\"" \
		"exit 1\nFAIL: README.md has a row and a section for risk-floor\n"
	testing "no schema" "broken 'rm -f schemas/rtk.risk-floor.v1.schema.json'" \
		"exit 1\nFAIL: schemas/rtk.risk-floor.v1.schema.json exists\n"
	testing "no CLI test" "broken 'rm -f tests/cli/risk_floor.sh'" "exit 1\nFAIL: tests/cli/risk_floor.sh exists\n"
	testing "an applet that prints only JSON" \
		"broken \"sed -i 's/rtk_out_emit(result, ctx->format, risk_floor_render_md/rtk_out_emit(result, RTK_OUT_FORMAT_JSON, NULL/' applets/risk_floor.c\"" \
		"exit 1\nFAIL: risk-floor renders markdown (rtk_out_emit gets ctx->format and a renderer of applets/risk_floor.c)\n"
	testing "a renderer the file does not define" \
		"broken \"sed -i 's/^static void risk_floor_render_md(/static void other_render_md(/' applets/risk_floor.c\"" \
		"exit 1\nFAIL: risk-floor renders markdown (rtk_out_emit gets ctx->format and a renderer of applets/risk_floor.c)\n"
	testing "an applet of applets.def with none of its parts" "broken 'echo \"RTK_APPLET(zz_new)\" >>applets/applets.def'" \
		"exit 1\nFAIL: rtk --list names the applets of applets.def (each id with - for _)\nFAIL: zz-new --help exits 0\nFAIL: zz-new --help starts with its usage\nFAIL: man/rtk-zz-new.1 exists\nFAIL: man/rtk.1 lists zz-new under APPLETS and SEE ALSO\nFAIL: README.md has a row and a section for zz-new\nFAIL: schemas/rtk.zz-new.v1.schema.json exists\nFAIL: tests/cli/zz_new.sh exists\nFAIL: applets/zz_new.c exists\nFAIL: zz-new renders markdown (rtk_out_emit gets ctx->format and a renderer of applets/zz_new.c)\n"
fi
finish
