#!/bin/sh
# tests/tools/gen_applets_am.sh [APPLETS.DEF] — prints applets.am, the four Makefile.am lists that name
# every applet's files, from applets/applets.def (automake cannot glob, so the lists are generated).
#
# An applet's id is its applets.def entry, RTK_APPLET(git_history); its command swaps _ for -. Then
#   applets/git_history.c  man/rtk-git-history.1  schemas/rtk.git-history.v1.schema.json  tests/cli/git_history.sh
# Makefile.am regenerates applets.am when applets.def changes; tests/cli/applets_am.sh fails when the
# committed copy differs from what this prints.
set -eu
def=${1:-applets/applets.def}

# A malformed entry would compile into rtk yet fall out of the lists: refuse it instead.
if bad=$(grep -n 'RTK_APPLET' "$def" | grep -v '^[0-9]*:RTK_APPLET([a-z][a-z0-9_]*)$'); then
	echo "gen_applets_am.sh: $def: not one RTK_APPLET(id) alone on its line:" >&2
	echo "$bad" >&2
	exit 1
fi
ids=$(sed -n 's/^RTK_APPLET(\([a-z0-9_]*\))$/\1/p' "$def")
if [ -z "$ids" ]; then
	echo "gen_applets_am.sh: $def names no applet (one RTK_APPLET(id) a line)" >&2
	exit 1
fi

# make would stop at the first missing file ("No rule to make target"): name them all at once.
top=$(dirname "$def")/..
for id in $ids; do
	cmd=$(printf '%s' "$id" | tr _ -)
	for f in "applets/$id.c" "man/rtk-$cmd.1" "schemas/rtk.$cmd.v1.schema.json" "tests/cli/$id.sh"; do
		[ -e "$top/$f" ] || echo "gen_applets_am.sh: warning: applets.def names $id, but $f is missing (HACKING.md: Adding an applet)" >&2
	done
done

# list NAME PREFIX SUFFIX DASHES: "NAME = \" then PREFIX<id>SUFFIX a line; DASHES=1 uses the command name.
list() {
	printf '\n%s =' "$1"
	for id in $ids; do
		name=$id
		[ "$4" = 1 ] && name=$(printf '%s' "$id" | tr _ -)
		printf ' \\\n\t%s%s%s' "$2" "$name" "$3"
	done
	printf '\n'
}

echo "# applets.am — generated from applets/applets.def by tests/tools/gen_applets_am.sh: do not edit."
echo "# Makefile.am includes it; make rewrites it when applets.def changes (commit the result)."
list APPLET_SOURCES applets/ .c 0
list APPLET_MANS man/rtk- .1 1
list APPLET_SCHEMAS schemas/rtk. .v1.schema.json 1
list APPLET_CLI_TESTS tests/cli/ .sh 0
