#!/usr/bin/env bash
# tests/cli/skeleton.sh — applets/skeleton.c, built into tests/skeleton/skeleton (not into rtk), still
# works: --help, a tiny input in markdown and JSON (valid against its schema), a bad value. So it cannot rot.
. "$RTK_SRCDIR/tests/cli/lib.sh"

S="$RTK_BUILDDIR/tests/skeleton/skeleton"
input='short\n\na line of 24 bytes here.\n'

testing "--help starts with the usage and lists each option" \
	"$S --help | sed -n -e 1p -e 's/^ *\(-., \)*\(--[a-z-]*\).*/\2/p'" \
	"usage: rtk skeleton [OPTIONS] FILE\n--skip-blank\n--max-long\n--title\n--width\n--format\n--json\n--progress\n--no-progress\n--help\n"
testing "markdown is the default" "$S --width 10 input" \
	"# Skeleton\n\n**input**: fine.\n\n| lines | longer than width | share |\n|------:|------------------:|------:|\n|     3 |                 1 |  0.33 |\n\n" \
	"$input"
testing "--json, with every kind of option" \
	"$S --json -b -w 10 --max-long 0.5 --title T input | jq -c 'del(.generated_at, .rtk_version)'" \
	'{"schema":"rtk.skeleton.v1","parameters":{"file":"input","skip_blank":true,"title":"T","width":10,"max_long":0.5},"lines":2,"long_lines":1,"long_share":0.5,"too_long":true}\n' \
	"$input"
testing "standard input as -, no lines: share null" "$S --json - | jq -c '[.lines, .long_share, .too_long]'" \
	'[0,null,false]\n'
testing "a bad value is a usage error" "$S --width 0 input 2>&1; echo \$?" \
	"rtk skeleton: --width must be at least 1\n2\n" "$input"
testing "a missing file fails" "$S nope >/dev/null 2>&1; echo \$?" "1\n"

scratch
printf '%b' "$input" > "$SCRATCH/input"
"$S" --json "$SCRATCH/input" > "$SCRATCH/out.json"
check "JSON output conforms to tests/skeleton/rtk.skeleton.v1.schema.json" \
	"$RTK" validate --assert-format --schema "$RTK_SRCDIR/tests/skeleton/rtk.skeleton.v1.schema.json" "$SCRATCH/out.json"
finish
