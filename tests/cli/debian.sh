#!/usr/bin/env bash
# tests/cli/debian.sh — debian/ kept in step with the tree: its version is configure.ac's, and it build-depends on what ./bootstrap installs.
. "$RTK_SRCDIR/tests/cli/lib.sh"

version=$(sed -n 's/^AC_INIT(\[rtk\], \[\([^]]*\)\].*/\1/p' "$RTK_SRCDIR/configure.ac")
testing "debian/changelog's version is configure.ac's" \
	"sed -n '1s/^rtk (\([^)]*\)) .*/\1/p' '$RTK_SRCDIR/debian/changelog'" "$version\n"

# Every package ./bootstrap installs is a Build-Depends, but for those make check does not use: the
# toolchain dpkg-buildpackage brings (build-essential, binutils; autoconf and automake come with
# debhelper's dh_autoreconf; gcc, libc6-dev and make with build-essential), valgrind (--enable-valgrind only), clang (make fuzz) and the packaging
# tools themselves; stress-ng loads the machine for CI's make check under load; munge, Slurm and GNU parallel
# serve make check-scale only.
not_build_deps="build-essential gcc libc6-dev make binutils autoconf automake valgrind clang dpkg-dev debhelper lintian stress-ng
munge slurmctld slurmd slurm-client parallel"
# A tier's list: the lines from NAME_PACKAGES=" to the closing quote.
tier() { sed -n "/^$1_PACKAGES=\"/,/\"\$/p" "$RTK_SRCDIR/bootstrap" | tr -d '"' | sed "s/^$1_PACKAGES=//" | tr ' ' '\n' | grep . | sort -u; }
build_tier=$(tier BUILD)
bootstrap=$( (tier BUILD; tier TEST) | sort -u)
check "bootstrap's build tier lists packages" test -n "$build_tier"
# README command 1 installs what building and running need, never the test tools (issue 28).
test_tools=$(grep -xE 'libcmocka-dev|python3.*|clang|valgrind|chromium|jq|zsh|fish|tmux|lintian|debhelper|stress-ng|systemd|cron' <<<"$build_tier" || true)
check "bootstrap's build tier holds no test tool" test -z "$test_tools"
[ -z "$test_tools" ] || echo "test tools in the build tier: $test_tools"
build_deps=$(sed -n '/^Build-Depends:/,/^[A-Z]/p' "$RTK_SRCDIR/debian/control" | sed 's/^Build-Depends://' |
	grep -o '^ *[a-z0-9][a-z0-9.+-]*' | tr -d ' ' | sort -u)
check "bootstrap lists packages" test -n "$bootstrap"
missing=$(comm -23 <(echo "$bootstrap") <(echo "$build_deps") | grep -vxF -f <(tr ' ' '\n' <<<"$not_build_deps") || true)
check "debian/control build-depends on every package bootstrap installs for make check" test -z "$missing"
[ -z "$missing" ] || echo "missing from Build-Depends: $missing"
# The other way: nothing in Build-Depends that bootstrap does not install (so make check here tests it).
extra=$(comm -13 <(echo "$bootstrap") <(echo "$build_deps") | grep -vx 'debhelper-compat' || true)
check "every Build-Depends is installed by bootstrap" test -z "$extra"
[ -z "$extra" ] || echo "not in bootstrap: $extra"
finish
