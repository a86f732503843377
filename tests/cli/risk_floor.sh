#!/usr/bin/env bash
# tests/cli/risk_floor.sh — rtk risk-floor: paths from arguments, stdin and --diff; rules override; bad input.
. "$RTK_SRCDIR/tests/cli/lib.sh"

F="$RTK_SRCDIR/tests/fixtures"
q="jq -c '[.risk.needs_review, .risk.score, .risk.surface, .risk.reason]'"

# --- the surface table through the CLI --------------------------------------------------------------
testing "auth outweighs docs" "$RTK risk-floor --json src/auth/guard.ts README.md | $q" \
	'[true,1,"auth","auth: src/auth/guard.ts"]\n'
testing "docs alone needs no review" "$RTK risk-floor --json README.md docs/a.txt | $q" \
	'[false,0.1,"docs","docs: README.md, docs/a.txt"]\n'
testing "a build file passes the 0.5 floor" "$RTK risk-floor --json package.json src/x.c | $q" \
	'[true,0.6,"build","build: package.json"]\n'
testing "ui stays below it" "$RTK risk-floor --json apps/web/page.tsx | $q" '[false,0.4,"ui","ui: apps/web/page.tsx"]\n'
testing "patterns match whole words of a path: auth is not in author, token not in tokenizer" \
	"$RTK risk-floor --json src/author.c data/ruff-author-list.txt src/tokenizer.rs | jq -c '[.risk.surface, [.files[].surface]]'" \
	'["none",["none","none","none"]]\n'
testing "a word's edge is a separator or a camelCase step" \
	"$RTK risk-floor --json lib/user_auth.py src/AuthProvider.tsx app/migrations/0001.py | jq -c '[.files[].surface]'" \
	'["auth","auth","data"]\n'
testing "--rules patterns match words too" "$RTK risk-floor --json --rules input src/prepayments.c src/payments/x.c | jq -c '[.files[].surface]'" \
	'["none","data"]\n' "surfaces:\n  data: {patterns: [payments]}\n"
testing "a file of prose is docs whatever words its path holds (prose)" \
	"$RTK risk-floor --json release-content/migration-guides/entities.md src/auth/README.rst docs/auth/guard.ts | jq -c '[.risk.surface, [.files[].surface]]'" \
	'["auth",["docs","docs","auth"]]\n'
testing "--rules prose: [] turns it off: the guide's words count again" \
	"$RTK risk-floor --json --rules input release-content/migration-guides/entities.md | jq -c '[.files[].surface]'" \
	'["data"]\n' "prose: []\n"
testing "no path matches" "$RTK risk-floor --json src/math.c | $q" \
	'[false,0,"none","none: no path matches a risk surface"]\n'
testing "per-file surfaces in input order" \
	"$RTK risk-floor --json db/m.sql Dockerfile x.spec.ts | jq -c '[.files[] | [.path, .surface, .weight]]'" \
	'[["db/m.sql","data",0.9],["Dockerfile","infra",0.85],["x.spec.ts","test",0.2]]\n'

# --- stdin ------------------------------------------------------------------------------------------
testing "paths one a line on stdin, blank lines and CR ignored" \
	"$RTK risk-floor --json | jq -c '[.parameters.source, (.files | length), .risk.surface]'" \
	'["stdin",2,"infra"]\n' "" "README.md\r\n\n\nhelm/values.yaml\n"
testing "empty stdin: none, no review" "$RTK risk-floor --json </dev/null | $q" \
	'[false,0,"none","none: no files changed"]\n'
testing "markdown says yes or no first" "$RTK risk-floor src/login.ts | sed -n 3p" \
	'**Needs review: yes**: surface auth, score 1.00 (threshold 0.50).\n'

# --- threshold and rules ------------------------------------------------------------------------------
testing "--threshold raises the floor" "$RTK risk-floor --json --threshold 0.95 compose.yaml | $q" \
	'[false,0.85,"infra","infra: compose.yaml"]\n'
testing "--threshold is inclusive" "$RTK risk-floor --json --threshold 0.4 a.css | jq .risk.needs_review" 'true\n'
testing "--rules changes one surface's weight, keeps the rest" \
	"$RTK risk-floor --json --rules input a.css db/x.sql | jq -c '[.risk.surface, .risk.score, .parameters.rules]'" \
	'["ui",0.95,"input"]\n' "surfaces:\n  ui: {weight: 0.95}\n"
testing "--rules changes the digest" \
	"test \"\$($RTK risk-floor --json a | jq -r .config_sha256)\" != \"\$($RTK risk-floor --json --rules input a | jq -r .config_sha256)\"; echo \$?" \
	'0\n' "threshold: 0.3\n"
testing "--rules threshold is the default threshold" "$RTK risk-floor --json --rules input a.css | jq .risk.needs_review" \
	'true\n' "threshold: 0.3\n"

# --- --diff against a real repository ------------------------------------------------------------------
# `testing` gives each case a fresh folder, so the repository lives beside them.
R="$SCRATCH_ROOT/risk-floor-repo"
bash "$F/risk-floor-repo.sh" "$R" >/dev/null
testing "--diff lists staged, unstaged and untracked files, not ignored ones" \
	"cd '$R/src' && $RTK risk-floor --json --diff | jq -c '[.parameters.source, .parameters.rev, [.files[].path], .risk.surface]'" \
	'["diff","HEAD",["README.md","src/__tests__/math.test.js","src/auth/guard.ts"],"auth"]\n'
testing "--diff REV includes the commits since REV" \
	"cd '$R' && $RTK risk-floor --json --diff HEAD~1 | jq -c '[.files[].path]'" \
	'["README.md","src/__tests__/math.test.js","src/auth/guard.ts","src/math.c"]\n'
testing "--diff with a bad revision" "cd '$R' && $RTK risk-floor --diff nope 2>&1; echo \$?" \
	"rtk risk-floor: bad revision 'nope'\n2\n"
testing "--diff outside a repository" "GIT_CEILING_DIRECTORIES=\$PWD/.. $RTK risk-floor --diff 2>&1; echo \$?" \
	"rtk risk-floor: not a git repository: .\n2\n"
testing "--diff takes one revision, not paths" "$RTK risk-floor --diff a b 2>&1; echo \$?" \
	"rtk risk-floor: --diff takes at most one revision, not paths\n2\n"
testing "--diff in a repository without commits sees every file" \
	"git init -q r && cd r && echo x > Dockerfile && $RTK risk-floor --json --diff | jq -c '[.files[].path]'" \
	'["Dockerfile"]\n'
testing "--diff with a clean tree: none" \
	"cd '$R' && git stash -q -u && $RTK risk-floor --json --diff | jq -c '[.risk.surface, .files]'" \
	'["none",[]]\n'

# --- bad input ------------------------------------------------------------------------------------------
testing "--threshold outside [0, 1]" "$RTK risk-floor --threshold 1.5 a 2>&1; echo \$?" \
	"rtk risk-floor: --threshold must be in [0, 1]\n2\n"
testing "--rules file missing" "$RTK risk-floor --rules nope.yaml a >/dev/null 2>&1; echo \$?" "1\n"
testing "--rules with an unknown surface" "$RTK risk-floor --rules input a 2>&1; echo \$?" \
	"rtk risk-floor: input:2:3: unknown key \`payments\` in \`surfaces\`: the known keys are \`auth\`, \`data\`, \`infra\`, \`build\`, \`ui\`, \`test\`, \`docs\`\n2\n" \
	"surfaces:\n  payments: {weight: 1, patterns: [pay]}\n"
testing "--rules with a misspelt key names its line and the key meant" "$RTK risk-floor --rules input a 2>&1; echo \$?" \
	"rtk risk-floor: input:4:5: unknown key \`wieght\` in \`surfaces.auth\`: did you mean \`weight\`?\n2\n" \
	"threshold: 0.5\nsurfaces:\n  auth:\n    wieght: 0.1\n"
testing "--rules: a quoted number is the number" "$RTK risk-floor --json --rules input src/auth/login.ts | jq -c '[.risk.score, .risk.needs_review]'" \
	"[0.3,false]\n" "threshold: '0.5'\nsurfaces:\n  auth: {weight: \"0.3\"}\n"
testing "--rules with a bad regex" "$RTK risk-floor --rules input a 2>&1 | sed 's/ at offset.*//'; echo \${PIPESTATUS[0]}" \
	"rtk risk-floor: input: surface auth: bad regular expression '[': missing terminating ] for character class\n2\n" \
	"surfaces:\n  auth: {patterns: ['[']}\n"
testing "--rules prose not a list" "$RTK risk-floor --rules input a 2>&1; echo \$?" \
	"rtk risk-floor: input: prose must be a list of patterns\n2\n" "prose: '\\\\.md\$'\n"
testing "--rules prose with a bad regex" "$RTK risk-floor --rules input a 2>&1 | sed 's/ at offset.*//'; echo \${PIPESTATUS[0]}" \
	"rtk risk-floor: input: prose: bad regular expression '(': missing closing parenthesis\n2\n" "prose: ['(']\n"
testing "--rules not YAML" "$RTK risk-floor --rules input a 2>&1; echo \$?" \
	"rtk risk-floor: input:2:1: did not find expected ',' or ']' while parsing a flow sequence\n2\n" "[a\n"

# --- output contract ----------------------------------------------------------------------------------
scratch
"$RTK" risk-floor --json src/auth/a.ts README.md > "$SCRATCH/out.json"
conforms "JSON output conforms to its schema" "$SCRATCH/out.json" risk-floor
"$RTK" risk-floor --json </dev/null > "$SCRATCH/empty.json"
conforms "empty input conforms to its schema" "$SCRATCH/empty.json" risk-floor
finish
