#!/usr/bin/env bash
# tests/cli/help_man.sh — every applet: --help works, its man page's SYNOPSIS matches --help, its schema exists.
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

applets=$("$RTK" --list)
check "at least one applet is listed" test -n "$applets"
for a in $applets; do
	help=$("$RTK" "$a" --help); rc=$?
	check "$a --help exits 0" test "$rc" -eq 0
	check "$a --help starts with its usage" test "${help%%$'\n'*}" != "" -a "${help#usage: rtk $a}" != "$help"
	man="$RTK_SRCDIR/man/rtk-$a.1"
	check "man/rtk-$a.1 exists" test -f "$man"
	if [ -f "$man" ]; then
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
	check "schemas/rtk.$a.v1.schema.json exists" test -f "$RTK_SRCDIR/schemas/rtk.$a.v1.schema.json"
	check "rtk help $a equals $a --help" test "$("$RTK" help "$a")" = "$help"
done
check "man/rtk.1 exists" test -f "$RTK_SRCDIR/man/rtk.1"
finish
