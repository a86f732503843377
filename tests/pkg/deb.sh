#!/usr/bin/env bash
# tests/pkg/deb.sh — CI's check of the Debian package: make deb (lintian clean), dpkg -i, three applets, the completion and units, libgit2 and libcurl missing, then dpkg --purge leaves nothing.
#
# Not part of make check (it installs into the system, so it needs root): .ci/run runs it after make
# check, from the configured tree: `bash tests/pkg/deb.sh` (RTK_BUILDDIR=DIR for another build tree).
# DEB_BUILD_OPTIONS=nocheck in the environment leaves out the make check inside the package build;
# RTK_DEB=FILE tries that package instead of building one.
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${RTK_BUILDDIR:=$top}"
export RTK=/usr/bin/rtk RTK_SRCDIR=$top RTK_BUILDDIR
. "$top/tests/cli/lib.sh"
unset RTK_DATADIR # the installed rtk finds its data by itself, in /usr/share/rtk
BUILT=$RTK_BUILDDIR/rtk
SHARE=/usr/share/rtk

if [ "$(id -u)" != 0 ]; then
	fail "tests/pkg/deb.sh runs as root: it installs the package with dpkg -i"
	finish
	exit 1
fi
if dpkg-query -W rtk >/dev/null 2>&1; then
	fail "rtk is not in dpkg's database before the test (remove it: dpkg --purge rtk)"
	finish
	exit 1
fi

# --- build: make deb (dpkg-buildpackage, then lintian with no error) ---------------------------------------
if [ -n "${RTK_DEB:-}" ]; then
	deb=$RTK_DEB # a package built before (make deb), when only the rest is being tried again
else
	start=$(date +%s)
	if ! make -C "$RTK_BUILDDIR" deb >"$SCRATCH_ROOT/deb.log" 2>&1; then
		tail -n 60 "$SCRATCH_ROOT/deb.log"
		fail "make deb builds the package and lintian reports no error"
		finish
		exit 1
	fi
	pass "make deb builds the package and lintian reports no error"
	echo "deb: make deb took $(($(date +%s) - start)) s${DEB_BUILD_OPTIONS:+ (DEB_BUILD_OPTIONS=$DEB_BUILD_OPTIONS)}"
	# lintian's findings (warnings; an error has already failed make deb), shown in CI's log.
	grep -E '^[EW]: ' "$SCRATCH_ROOT/deb.log" | sed 's/^/deb: lintian: /' || true
	deb=$(ls "$RTK_BUILDDIR"/deb/rtk_*_"$(dpkg --print-architecture)".deb)
fi
check "one rtk_VERSION_ARCH.deb to install" test "$(wc -w <<<"$deb")" = 1

# --- install ------------------------------------------------------------------------------------------------
trap 'dpkg --purge rtk >/dev/null 2>&1; rm -rf "$SCRATCH_ROOT"' EXIT
dpkg -i "$deb" >"$SCRATCH_ROOT/dpkg.log" 2>&1 || cat "$SCRATCH_ROOT/dpkg.log"
installed() { dpkg-query -W rtk >/dev/null 2>&1; }
check "dpkg -i installs it" installed
FILES=$(dpkg -L rtk)
version=$(sed -n 's/^AC_INIT(\[rtk\], \[\([^]]*\)\].*/\1/p' "$top/configure.ac")
testing "rtk --version is configure.ac's" "rtk --version" "rtk $version\n"
testing "the deb's version is configure.ac's" "dpkg-query -W -f='\${Version}\n' rtk" "$version\n"
# dlopen()ed libraries are invisible to dpkg-shlibdeps: Recommends names the packages of their SONAMEs.
lazy=$(sed -n 's/^#define RTK_\(GIT2\|CURL\)_PACKAGE "\(.*\)"$/\2/p' "$RTK_BUILDDIR/config.h" | sort | paste -sd' ')
testing "Recommends names the packages rtk dlopen()s" "dpkg-query -W -f='\${Recommends}\n' rtk | tr -d , | tr ' ' '\n' | sort | paste -sd' '" \
	"$lazy\n"

# --- three applets, by each of the installed names, on the data the package ships ----------------------------
testing "rtk-validate: the shipped sample trace keeps trace.v1" \
	"rtk-validate --schema $SHARE/schemas/trace.v1.schema.json $SHARE/data/samples/trace.json; echo \$?" "0\n"
testing "rtk validate: a trace without task_id does not" \
	"echo '{}' > t.json; rtk validate --schema $SHARE/schemas/trace.v1.schema.json t.json >/dev/null 2>&1; echo \$?" "1\n"
check "rtk calibrate on the shipped corpus prints what the build tree's rtk prints" test \
	"$(rtk calibrate --json "$SHARE/data/samples/calibration.jsonl" | jq -S 'del(.generated_at)')" = \
	"$(RTK_DATADIR=$top "$BUILT" calibrate --json "$SHARE/data/samples/calibration.jsonl" | jq -S 'del(.generated_at)')"
testing "risk-floor (the bare name in /usr/libexec/rtk/bin) reads the shipped rules" \
	"/usr/libexec/rtk/bin/risk-floor --json src/auth/login.c README.md | jq -c '[.risk.needs_review, .risk.surface, .config_sha256]'" \
	"$(RTK_DATADIR=$top "$BUILT" risk-floor --json src/auth/login.c README.md | jq -c '[.risk.needs_review, .risk.surface, .config_sha256]')\n"
testing "rtk(1) names the folder the package put the bare names in" \
	"zcat /usr/share/man/man1/rtk.1.gz | grep -c /usr/libexec/rtk/bin" "2\n"
check "the folder rtk(1) names holds the bare names" test -x /usr/libexec/rtk/bin/calibrate
check "each applet has its rtk-APPLET link and man page" bash -c \
	'for a in $(rtk --list); do [ -L /usr/bin/rtk-$a ] && [ -f /usr/share/man/man1/rtk-$a.1.gz ] || exit 1; done'

# --- the bash completion, where bash-completion finds it by command name ---------------------------------------
testing "bash completes applet names from the installed script" \
	"bash --norc --noprofile -c 'source /usr/share/bash-completion/completions/rtk; COMP_WORDS=(rtk cal); COMP_CWORD=1
	 COMP_LINE=\"rtk cal\"; COMP_POINT=7; _rtk rtk cal rtk; printf \"%s\n\" \"\${COMPREPLY[@]}\"'" "calibrate\n"
testing "bash-completion's loader finds it for rtk-APPLET" \
	"bash --norc --noprofile -c 'source /usr/share/bash-completion/bash_completion; __load_completion rtk-calibrate && complete -p rtk-calibrate'" \
	"complete -F _rtk rtk-calibrate\n"

# --- the systemd user units as installed: clean, and not enabled for anyone ------------------------------------
mkdir -p "$SCRATCH_ROOT/run"
testing "systemd-analyze verify --user: the installed units (ExecStart's rtk found in /usr/bin)" \
	"XDG_RUNTIME_DIR='$SCRATCH_ROOT/run' systemd-analyze verify --user --man=no /usr/lib/systemd/user/rtk-reflect.service /usr/lib/systemd/user/rtk-reflect.timer 2>&1; echo \$?" \
	"0\n"
check "the timer is not enabled at install" test ! -e /etc/systemd/user/timers.target.wants/rtk-reflect.timer

# --- libgit2 and libcurl missing, as on a system without their packages ----------------------------------------
# without "PKG..." COMMAND...: runs COMMAND in a private mount namespace where the library folder of the
# packages' files is replaced by links to everything in it but those files, so dlopen() finds nothing.
without() {
	local pkgs=$1 libdir hide=""
	shift
	libdir=$(dirname "$(readlink -f "$(dpkg -L ${pkgs%% *} | grep -m1 '\.so\.')")")
	for p in $pkgs; do hide="$hide $(dpkg -L "$p" | grep "^$libdir/[^/]*$" | xargs -n1 basename)"; done
	mkdir -p "$SCRATCH_ROOT/ns/real" "$SCRATCH_ROOT/ns/view"
	unshare --mount --propagation private bash -c '
		libdir=$1 ns=$2 hide=$3; shift 3
		mount --bind "$libdir" "$ns/real" || exit 111
		for f in "$ns"/real/*; do ln -s "$f" "$ns/view/"; done
		for f in $hide; do rm -f "$ns/view/$f"; done
		mount --bind "$ns/view" "$libdir" || exit 111
		exec "$@"' without "$libdir" "$SCRATCH_ROOT/ns" "$hide" "$@"
	local status=$?
	rm -rf "$SCRATCH_ROOT/ns"
	return $status
}
export -f without
export SCRATCH_ROOT
git init -q "$SCRATCH_ROOT/repo" && git -C "$SCRATCH_ROOT/repo" -c user.name=t -c user.email=t@e \
	commit -q --allow-empty -m 'fix: a commit'
testing "git-history without libgit2-1.5: exit 1, naming the package to install" \
	"without libgit2-1.5 rtk git-history --repo '$SCRATCH_ROOT/repo' 2>&1 >/dev/null; echo \$?" \
	"rtk git-history: cannot load libgit2 (libgit2.so.1.5: cannot open shared object file: No such file or directory): install the Debian package libgit2-1.5\n1\n"
testing "git-history with libgit2 reads the same repository" \
	"rtk git-history --json --repo '$SCRATCH_ROOT/repo' | jq -r .schema" "rtk.git-history.v1\n"
testing "reflect without libcurl4: exit 1, naming the package to install" \
	"without libcurl4 rtk reflect --base-url http://127.0.0.1:9/v1 $SHARE/data/samples/trace.json 2>&1 >/dev/null; echo \$?" \
	"rtk reflect: cannot load libcurl (libcurl.so.4: cannot open shared object file: No such file or directory): install the Debian package libcurl4\n1\n"
testing "calibrate without either library works (it loads neither)" \
	"without 'libgit2-1.5 libcurl4' rtk calibrate --json $SHARE/data/samples/calibration.jsonl | jq -r .schema" \
	"rtk.calibrate.v1\n"

# --- purge: every file and folder of the package is gone ---------------------------------------------------------
dpkg --purge rtk >"$SCRATCH_ROOT/dpkg.log" 2>&1 || cat "$SCRATCH_ROOT/dpkg.log"
check "dpkg --purge removes it from dpkg's database" test "$(installed; echo $?)" = 1
left=$(while read -r f; do if [ -L "$f" ] || [ -f "$f" ]; then echo "$f"; fi; done <<<"$FILES")
check "no file or link of the package is left" test -z "$left"
left=$(ls -d /usr/share/rtk /usr/libexec/rtk /usr/share/doc/rtk /var/lib/systemd/deb-systemd-user-helper-enabled/*rtk* 2>/dev/null)
check "no folder or systemd state of the package is left" test -z "$left"
[ -z "$left" ] || echo "$left"
finish
