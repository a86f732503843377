#!/bin/sh
# tests/agents/install.sh CACHE_DIR — installs the agent CLIs pinned in tests/agents/versions.txt into CACHE_DIR.
#
# Uses `npm install --prefix CACHE_DIR` (never a global install); the commands land in CACHE_DIR/node_modules/.bin
# (claude, codex, gemini). Idempotent: when every pinned version is already there and runs, npm is not called.
# Each CLI is then run with --version, and the line it prints must hold the pinned version.
#
# What each needs (npm picks the platform package through optionalDependencies, so optional packages must
# not be omitted):
#   @anthropic-ai/claude-code  a native executable (~400 MB ELF) from @anthropic-ai/claude-code-linux-x64
#                              (-linux-arm64, -linux-x64-musl, ...); its postinstall (install.cjs) links it to
#                              bin/claude.exe. package.json says node >= 22 (npm warns EBADENGINE on node 20),
#                              but the executable does not run node at all.
#   @openai/codex              bin/codex.js (node >= 16) execs the native musl binary from
#                              @openai/codex-linux-x64 (an alias of @openai/codex@VERSION-linux-x64).
#   @google/gemini-cli         plain JavaScript (bundle/gemini.js), node >= 20; node-pty and @github/keytar
#                              are optional native add-ons built by node-gyp (it falls back without them).
# Exit: 0 installed and working, 1 npm failed or a CLI does not run or reports another version.
set -eu
[ $# -eq 1 ] || { echo "usage: $0 CACHE_DIR" >&2; exit 2; }
cache=$1
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

# The pinned "package version" pairs, comments and blank lines left out.
pins=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$here/versions.txt")

# installed PACKAGE: the version in CACHE_DIR, or nothing.
installed() {
	f="$cache/node_modules/$1/package.json"
	[ -f "$f" ] && sed -n 's/^[[:space:]]*"version":[[:space:]]*"\([^"]*\)".*/\1/p' "$f" | head -1
}

missing=
specs=
while read -r pkg version; do
	specs="$specs $pkg@$version"
	[ "$(installed "$pkg")" = "$version" ] || missing="$missing $pkg@$version"
done <<EOT
$pins
EOT

if [ -n "$missing" ]; then
	echo "install.sh: installing$missing into $cache"
	# All packages in one call, so npm keeps every pin in CACHE_DIR/package.json and prunes none of them.
	# shellcheck disable=SC2086
	npm install --prefix "$cache" --save-exact --include=optional --no-audit --no-fund $specs
else
	echo "install.sh: pinned versions already in $cache"
fi

# Each must run and say its pinned version.
status=0
while read -r pkg version; do
	case $pkg in
	@anthropic-ai/claude-code) bin=claude ;;
	@openai/codex) bin=codex ;;
	@google/gemini-cli) bin=gemini ;;
	*) echo "install.sh: no command known for $pkg" >&2; status=1; continue ;;
	esac
	if out=$("$cache/node_modules/.bin/$bin" --version 2>&1) && printf '%s\n' "$out" | grep -qF "$version"; then
		echo "install.sh: $bin --version: $out"
	else
		echo "install.sh: $bin --version did not report $version: $out" >&2
		status=1
	fi
done <<EOT
$pins
EOT
exit $status
