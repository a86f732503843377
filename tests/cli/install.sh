#!/usr/bin/env bash
# tests/cli/install.sh — make install DESTDIR=...: rtk-APPLET links in bindir, bare names in
# $(pkglibexecdir)/bin, the bash completion; make uninstall then leaves no file or link behind.
. "$RTK_SRCDIR/tests/cli/lib.sh"

: "${RTK_BUILDDIR:?RTK_BUILDDIR must name the build tree}"
if [ ! -f "$RTK_BUILDDIR/Makefile" ]; then
	echo "SKIP: no Makefile in $RTK_BUILDDIR"
	finish
	exit 77
fi

# The build tree's own make, quiet, outside the make check that runs this test (no job server).
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$RTK_BUILDDIR" "$@"
}
# quiet TARGET...: runs make, its output shown only when it fails.
quiet() {
	mk "$@" >"$SCRATCH_ROOT/make.log" 2>&1 || { cat "$SCRATCH_ROOT/make.log"; return 1; }
}
var() {
	mk -f Makefile -f - print-var V="$1" <<'MK'
print-var:
	@echo '$($(V))'
MK
}
bindir=$(var bindir) appletbindir=$(var appletbindir) bashcompletiondir=$(var bashcompletiondir) man1dir=$(var man1dir)

scratch
dest=$SCRATCH/dest
check "make install DESTDIR=... succeeds" quiet install DESTDIR="$dest"
applets=$("$RTK" --list)
n=$(wc -l <<<"$applets")
bad=0
for a in $applets; do
	[ -L "$dest$bindir/rtk-$a" ] && [ "$(readlink "$dest$bindir/rtk-$a")" = rtk ] || { fail "bindir holds rtk-$a -> rtk"; bad=1; }
	[ -L "$dest$appletbindir/$a" ] && [ "$(readlink "$dest$appletbindir/$a")" = "$bindir/rtk" ] ||
		{ fail "$appletbindir holds $a -> $bindir/rtk"; bad=1; }
	[ ! -e "$dest$bindir/$a" ] || { fail "bindir holds no bare $a"; bad=1; }
done
[ "$bad" = 1 ] || pass "bindir holds rtk-APPLET and $appletbindir the bare name, for each of the $n applets"
testing "bindir holds rtk and the rtk-APPLET links only" "ls '$dest$bindir' | grep -v -c -x -e rtk -e 'rtk-.*'" "0\n"
sample="$RTK_SRCDIR/data/samples/calibration.jsonl"
check "installed rtk-calibrate equals rtk calibrate" \
	test "$("$dest$bindir/rtk-calibrate" --json "$sample")" = "$("$RTK" calibrate --json "$sample")"
# Installed elsewhere (as the Debian package puts them in /usr/libexec/rtk/bin), rtk(1) says where.
scratch
check "make install with another folder for the bare names succeeds" \
	quiet install DESTDIR="$SCRATCH/dest" appletbindir=/opt/rtk-bare/bin
testing "the installed rtk(1) names the folder this install put the bare names in" \
	"test -L '$SCRATCH/dest/opt/rtk-bare/bin/calibrate' && grep -c -F 'PATH:/opt/rtk-bare/bin\"' '$SCRATCH/dest$man1dir/rtk.1'" "1\n"
check "bash completion installed as bash-completion loads it" test -s "$dest$bashcompletiondir/rtk"
check "rtk-calibrate's completion is the same file" test "$dest$bashcompletiondir/rtk-calibrate" -ef "$dest$bashcompletiondir/rtk"
# bash-completion itself finds it by command name, in the data folders of XDG_DATA_DIRS.
loader=/usr/share/bash-completion/bash_completion
if [ -f "$loader" ]; then
	datadir=$(var datadir)
	for c in rtk rtk-iterate; do
		testing "bash-completion loads the completion of $c on demand" \
			"XDG_DATA_DIRS='$dest$datadir' bash --norc -c '. $loader; _completion_loader $c; complete -p $c'" \
			"complete -F _rtk $c\n"
	done
else
	echo "SKIP: bash-completion is not installed ($loader)"
fi

check "make uninstall DESTDIR=... succeeds" quiet uninstall DESTDIR="$dest"
testing "uninstall leaves no file or link" "find '$dest' ! -type d" ""
testing "uninstall removes the applet folder it made" "test -e '$dest$appletbindir'; echo \$?" "1\n"
finish
