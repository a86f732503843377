#!/usr/bin/env bash
# bench/fresh-root.sh — README command 1 (or 2) timed on a fresh Debian root: packages installed, disk, seconds.
#
#   bench/fresh-root.sh [--tests] [ROOT]     as root; ROOT defaults to /var/tmp/rtk-fresh-root
#
# Makes a minimal Debian 12 root with debootstrap (--variant=minbase, as a container image is), installs git
# in it (the user needs it to clone rtk), clones this tree's HEAD into /rtk, then times `./bootstrap` and
# `./rtk phase0 data/samples/phase0.yaml` (README command 1), or with --tests `./bootstrap --tests` and
# `make check` (README command 2). Prints the packages the command installed, the size of /usr and the
# seconds each step took. Needs debootstrap and Debian's mirror; the root is removed at the end.
set -euo pipefail
tier=build
if [ "${1:-}" = --tests ]; then tier=tests; shift; fi
root=${1:-/var/tmp/rtk-fresh-root}
top=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" = 0 ] || { echo "fresh-root: run as root (debootstrap, chroot)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "fresh-root: install the Debian package debootstrap" >&2; exit 2; }

cleanup() { for m in dev/pts dev sys proc; do umount -l "$root/$m" 2>/dev/null || true; done; rm -rf "$root"; }
trap cleanup EXIT
cleanup
start=$(date +%s)
debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >/dev/null
echo "fresh-root: debootstrap --variant=minbase bookworm: $(($(date +%s) - start)) s"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc" && mount --rbind /sys "$root/sys" && mount --rbind /dev "$root/dev"
chroot "$root" sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends git ca-certificates >/dev/null 2>&1'
git clone -q "$top" "$root/rtk"
if [ "$tier" = build ]; then
	chroot "$root" sh -c 'cd /rtk && n0=$(dpkg -l | grep -c ^ii) && s=$(date +%s) &&
		./bootstrap >/tmp/bootstrap.log 2>&1 && b=$(date +%s) &&
		./rtk phase0 data/samples/phase0.yaml >/tmp/phase0.md && e=$(date +%s) &&
		echo "fresh-root: ./bootstrap: $((b - s)) s, $(($(dpkg -l | grep -c ^ii) - n0)) packages, /usr $(du -sh /usr | cut -f1)" &&
		echo "fresh-root: ./rtk phase0: $((e - b)) s; first output $((e - s)) s after the command started" &&
		head -3 /tmp/phase0.md'
else
	chroot "$root" sh -c 'cd /rtk && n0=$(dpkg -l | grep -c ^ii) && s=$(date +%s) &&
		./bootstrap --tests >/tmp/bootstrap.log 2>&1 && b=$(date +%s) &&
		echo "fresh-root: ./bootstrap --tests: $((b - s)) s, $(($(dpkg -l | grep -c ^ii) - n0)) packages, /usr $(du -sh /usr | cut -f1)" &&
		{ make check >/tmp/check.log 2>&1; rc=$?; } ; e=$(date +%s);
		echo "fresh-root: make check: exit $rc, $((e - b)) s: $(sed -n "s/^# PASS: *//p" test-suite.log) passed, $(sed -n "s/^# FAIL: *//p" test-suite.log) failed";
		grep -E "^(FAIL|ERROR):" /tmp/check.log; exit $rc'
fi
