#!/usr/bin/env bash
# tests/cli/git_history_generated.sh — rtk git-history and generated or vendored files (issue 25, item 2): never blamed,
# never a review surface, counted in the coverage line; on the repositories of tests/fixtures/git-history-generated.sh.
. "$RTK_SRCDIR/tests/cli/lib.sh"

F="$RTK_SRCDIR/tests/fixtures"
E="rtk git-history"

# repo CASE: builds the fixture repository for CASE once and prints its path.
repo() {
	local dir="$SCRATCH_ROOT/generated-$1"
	[ -d "$dir" ] || bash "$F/git-history-generated.sh" "$1" "$dir" >/dev/null 2>&1 || echo "fixture $1 failed" >&2
	echo "$dir"
}

# gh CASE JQ [CONFIG]: a command printing the JSON report of CASE's repository, filtered by JQ.
gh() {
	printf "cd '%s' && %q git-history --json %s | jq -c %q" "$(repo "$1")" "$RTK" "${3:+--config \$OLDPWD/input}" "$2"
}

failures='[.failures[] | [.culprit.subject, .remedy.subject, .S, .surface, .evidence.substantive_lines, .evidence.strength]]'

# The fix changes one code line, last written by the first feature, and regenerates 80 lines of docs and schema,
# last written by the second feature: blamed, the docs would make that feature the culprit and its schema a data
# surface. Neither is blamed, and the schema is no surface of the culprit that did write it.
testing "a fix regenerating docs and a schema: the culprit is the one its code line names, no surface" \
	"$(gh feature-and-docs "$failures")" \
	'[["feat: a timeout option","fix: the timeout was too short",false,"none",1,"strong"]]\n'
testing "the fix's generated files are counted, not blamed" \
	"$(gh feature-and-docs '[.coverage.generated.fix_files_not_blamed, .failures[0].evidence.blamed[0].lines]')" \
	'[2,["src/config.c:3"]]\n'
testing "a fix that only regenerates links nothing: unlinked, reason generated" \
	"$(gh generated-only '[.buckets.n, (.unlinked[] | [.remedy.subject, .reason_code, .reason]), .coverage.generated.fixes_only_generated]')" \
	'[0,["fix: the option reference was stale","generated","it changes no substantive line outside generated or vendored files (.gitattributes, data/rules/generated-files.yaml), whose lines name no culprit"],1]\n'
testing "a lock file is a shipped shape: a fix changing only it links nothing" \
	"$(gh lock-file '[.buckets.n, [.unlinked[] | .reason_code]]')" '[0,["generated"]]\n'
testing "the repository's linguist-generated=false overrides the shape: its lock file is blamed" \
	"$(gh lock-file-not-generated "$failures")" \
	'[["feat: the legacy build pads with left-pad","fix: the legacy build padded twice",false,"none",5,"strong"]]\n'

testing "gettext catalogues (*.po, *.pot) are a shipped shape: the fix is blamed on its code line's culprit alone" \
	"$(gh gettext '[.coverage.generated.fix_files_not_blamed, [.failures[] | [.culprit.subject, .remedy.subject, [.other_culprits[]?.subject]]]]')" \
	'[2,[["feat: a timeout message","fix: the timeout message did not say its unit",[]]]]\n'
testing "generated: {shapes: {gettext: false}}: the catalogues are blamed, on the later feature" \
	"$(gh gettext '[.coverage.generated.fix_files_not_blamed, [.failures[] | [.culprit.subject, [.other_culprits[]?.subject]]]]' config)" \
	'[0,[["feat: a retries message",[]]]]\n' "generated: {shapes: {gettext: false}}\n"


# --- the coverage line: how many files, by which source ----------------------------------------------------------
testing "coverage: tracked files generated or vendored, by .gitattributes (nested and root) and by shape" \
	"$(gh feature-and-docs '.coverage.generated')" \
	'{"files":3,"tracked_files":8,"by_attributes":2,"by_shapes":1,"attributes":["linguist-generated","linguist-vendored","-diff"],"attribute_lines_ignored":0,"fix_files_not_blamed":2,"fixes_only_generated":0}\n'
testing "markdown: the coverage line counts them" \
	"cd $(repo generated-only) && $RTK git-history | grep -o '3 of 8 tracked files are generated.*substance\\.'" \
	'3 of 8 tracked files are generated or vendored (2 by .gitattributes, 1 by data/rules/generated-files.yaml): never blamed, never a review surface; fixes changed 2 of them, and 1 fixes changed nothing else of substance.\n'

# --- the rules: in --config, hashed, refused when they cannot mean anything --------------------------------------------
# Without the attributes that mark the docs and the schema, the audit's error comes back: the later feature is the
# culprit by the 80 lines it regenerated, and the schema it regenerated makes it a data surface (S).
testing "generated in --config: only linguist-vendored counts, and the fix is blamed on the feature that regenerated" \
	"$(gh feature-and-docs '[.coverage.generated.files, [.failures[] | [.culprit.subject, .surface, .surface_path]]]' config)" \
	'[2,[["feat: a retries option","data","schemas/config.schema.json"]]]\n' "generated: {attributes: [linguist-vendored]}\n"
testing "a shape group set to false is dropped" \
	"$(gh lock-file '[.coverage.generated.by_shapes, .buckets.n]' config)" '[0,1]\n' "generated: {shapes: {lock-files: false}}\n"
testing "a negated shape is refused, naming the file" \
	"$RTK git-history --repo $(repo lock-file) --config input 2>&1; echo \$?" \
	"$E: input: generated.shapes.mine: '!*.lock': a negated pattern (.gitattributes allows none)\n2\n" \
	"generated: {shapes: {mine: ['!*.lock']}}\n"
testing "a folder shape is refused: it would match no file" \
	"$RTK git-history --repo $(repo lock-file) --config input 2>&1; echo \$?" \
	"$E: input: generated.shapes.mine: 'dist/': a pattern ending in '/' matches no file: write DIR/** for the files below DIR\n2\n" \
	"generated: {shapes: {mine: [dist/]}}\n"
testing "an attribute that is no attribute name is refused" \
	"$RTK git-history --repo $(repo lock-file) --config input 2>&1; echo \$?" \
	"$E: input: generated.attributes: 'linguist generated' is not an attribute (name or -name: letters, digits, '-', '.' and '_')\n2\n" \
	"generated: {attributes: [linguist generated]}\n"
testing "eight attributes are the most: they are read, a ninth is refused" \
	"$(gh lock-file '[(.coverage.generated.attributes | length), .coverage.generated.files]' config) &&
	 $RTK git-history --repo $(repo lock-file) --config <(echo 'generated: {attributes: [a, b, c, d, e, f, g, h, i]}') 2>&1 | sed 's|/dev/fd/[0-9]*|FILE|'" \
	"[8,3]\n$E: FILE: generated.attributes: more than 8 attributes\n" "generated: {attributes: [a, b, c, d, e, f, g, -diff]}\n"
testing "a misspelt key under generated is refused with its line" \
	"$RTK git-history --repo $(repo lock-file) --config input 2>&1 | sed 's/:  *did you mean.*//'; echo \${PIPESTATUS[0]}" \
	"$E: input:1:13: unknown key \`shape\` in \`generated\`\n2\n" "generated: {shape: {}}\n"
testing "the shipped generated-files table is hashed into config_sha256" \
	"cp -r $RTK_SRCDIR/data $RTK_SRCDIR/schemas . && sed -i 's/^    - yarn.lock\$/    - yarn.lock.x/' data/rules/generated-files.yaml &&
	 a=\$($RTK git-history --json --repo $(repo lock-file) | jq -r .config_sha256) &&
	 b=\$(RTK_DATADIR=\$PWD $RTK git-history --json --repo $(repo lock-file) | jq -r .config_sha256) && test \$a != \$b; echo \$?" '0\n'

for c in feature-and-docs generated-only lock-file lock-file-not-generated; do
	(cd "$(repo $c)" && "$RTK" git-history --json) > "$SCRATCH_ROOT/generated-$c.json"
	conforms "$c: JSON conforms to its schema" "$SCRATCH_ROOT/generated-$c.json" git-history
done
finish
