#!/usr/bin/env bash
# tests/cli/validate.sh — rtk validate: reflection.v1, exit codes, error choice, output formats, semantics people get wrong.
. "$RTK_SRCDIR/tests/cli/lib.sh"

V="$RTK validate"
ok='{"schema":"reflection.v1","task_ref":"T-1","agent":"claude","session_id":"s1","repo":"rtk","timestamp":"2026-11-22T05:00:00Z","confidence":0.8,"most_likely_wrong":{"surface":"auth","description":"token refresh"},"known_not_in_diff":null,"risk":{"needs_review":true,"score":0.7,"surface":"auth","reason":"src/auth/ touched"},"files_changed":["src/auth/token.c"],"provenance":{"source":"stop-hook","reflection_attempt":1,"degraded":false,"reflection_mode":"solo"}}'
# the record with one substitution: reflection 's/FROM/TO/'
reflection() { printf '%s\n' "$ok" | sed "$1"; }
export ok
export -f reflection

# --- reflection.v1, found through the record's own "schema" member --------------------------------
testing "a valid reflection: silent, exit 0" "$V input; echo \$?" "0\n" "$ok\n"
testing "self-reports may all be null" \
	"reflection 's/\"confidence\":0.8/\"confidence\":null/; s/\"most_likely_wrong\":{[^}]*}/\"most_likely_wrong\":null/' > r.jsonl; $V r.jsonl; echo \$?" "0\n"
testing "1.0 is an integer" "reflection 's/\"reflection_attempt\":1/\"reflection_attempt\":1.0/' > r.jsonl; $V r.jsonl; echo \$?" "0\n"
testing "1.5 is not" "reflection 's/\"reflection_attempt\":1/\"reflection_attempt\":1.5/' > r.jsonl; $V r.jsonl; echo \$?" \
	"r.jsonl:1: /provenance/reflection_attempt: expected integer, got number (at /properties/provenance/properties/reflection_attempt/type)\n1\n"
testing "reflection_attempt 0 is below the minimum" "reflection 's/\"reflection_attempt\":1/\"reflection_attempt\":0/' > r.jsonl; $V r.jsonl" \
	"r.jsonl:1: /provenance/reflection_attempt: 0 is less than the minimum 1 (at /properties/provenance/properties/reflection_attempt/minimum)\n"
testing "confidence above 1" "reflection 's/0.8/1.2/' > r.jsonl; $V r.jsonl" \
	"r.jsonl:1: /confidence: 1.2 is greater than the maximum 1 (at /properties/confidence/maximum)\n"
testing "a missing required member" "reflection 's/\"repo\":\"rtk\",//' > r.jsonl; $V r.jsonl" \
	"r.jsonl:1: /: missing required property \"repo\" (at /required)\n"
testing "no other properties, at any level" "reflection 's/\"degraded\":false/\"degraded\":false,\"extra\":1/' > r.jsonl; $V r.jsonl" \
	"r.jsonl:1: /provenance/extra: property \"extra\" is not allowed (at /properties/provenance/additionalProperties)\n"
testing "a key with an escape sequence and a newline: shown on one line, never sent" \
	"printf '{\"a\\\\u001b]52;c;aGk=\\\\u0007\\\\nforged:1: x\": 1}' > i.json && printf '{\"additionalProperties\": false}' > s.json && $V --schema s.json i.json" \
	'i.json:1: /a^[]52;c;aGk=^G^Jforged:1: x: property "a^[]52;c;aGk=^G^Jforged:1: x" is not allowed (at /additionalProperties)\n'
"reflection 's/stop-hook/cron/' > r.jsonl; $V r.jsonl" \
	"r.jsonl:1: /provenance/source: is \"cron\", expected \"stop-hook\" (at /properties/provenance/properties/source/const)\n"
testing "oneOf: the branch that got furthest, not one error per branch" \
	"reflection 's/\"surface\":\"auth\",\"description\"/\"surface\":\"security\",\"description\"/' > r.jsonl; $V r.jsonl" \
	"r.jsonl:1: /most_likely_wrong/surface: is \"security\", not one of \"auth\", \"data\", \"infra\", \"ui\", \"build\", \"test\", \"docs\", \"none\" (at /properties/most_likely_wrong/oneOf/1/properties/surface/\$ref/enum)\n"
testing "--all lists every error, summaries included" \
	"reflection 's/\"surface\":\"auth\",\"description\"/\"surface\":\"x\",\"description\"/; s/\"degraded\":false/\"degraded\":0/' > r.jsonl; $V --all r.jsonl | cut -d' ' -f2" \
	"/most_likely_wrong:\n/most_likely_wrong/surface:\n/most_likely_wrong:\n/provenance/degraded:\n"
testing "0 is not false" "reflection 's/\"degraded\":false/\"degraded\":0/' > r.jsonl; $V r.jsonl" \
	"r.jsonl:1: /provenance/degraded: expected boolean, got number (at /properties/provenance/properties/degraded/type)\n"
testing "JSONL: each invalid line named, valid ones silent" \
	"{ echo '$ok'; reflection 's/0.8/2/'; echo; echo '$ok'; reflection 's/\"agent\":\"claude\"/\"agent\":7/'; } > r.jsonl; $V r.jsonl; echo \$?" \
	"r.jsonl:2: /confidence: 2 is greater than the maximum 1 (at /properties/confidence/maximum)\nr.jsonl:5: /agent: expected string, got number (at /properties/agent/type)\n1\n"
testing "stdin is JSON Lines named <stdin>" "$V; echo \$?" \
	"<stdin>:2: /confidence: 2 is greater than the maximum 1 (at /properties/confidence/maximum)\n1\n" "" "$ok\n$(printf '%s' "$ok" | sed 's/0.8/2/')\n"
testing "stdin may be one pretty-printed document" \
	"printf '%s\n' '$ok' | jq . | sed 's/\"rtk\"/false/' | $V; echo \$?" \
	"<stdin>:6: /repo: expected string, got boolean (at /properties/repo/type)\n1\n"
testing "a JSON document: the line of the failing value" \
	"printf '%s\n' '$ok' | jq . | sed 's/\"rtk\"/false/' > r.json; $V r.json" \
	"r.json:6: /repo: expected string, got boolean (at /properties/repo/type)\n"

# --- exit 2: unusable schema or unparsable instance ---------------------------------------------
testing "an instance that is not JSON: file:line, exit 2" "$V input 2>&1; echo \$?" \
	"rtk validate: input:2: not valid JSON (column 2): expected a member name\n2\n" "$ok\n{bad\n"
testing "no schema named and no --schema" "$V input 2>&1; echo \$?" \
	"rtk validate: input:1: no --schema given and the instance names none in \"schema\"\n2\n" "{\"a\":1}\n"
testing "a schema name rtk does not ship" "$V input 2>&1; echo \$?" \
	"rtk validate: input:1: rtk ships no schema named \"nope.v9\"\n2\n" "{\"schema\":\"nope.v9\"}\n"
testing "a schema name cannot walk out of schemas/" "$V input 2>&1; echo \$?" \
	"rtk validate: input:1: \"schema\": \"../x\" is not a schema name\n2\n" "{\"schema\":\"../x\"}\n"
testing "a schema that is not JSON" "echo '{\"type\":' > s.json; $V --schema s.json input 2>&1; echo \$?" \
	"rtk validate: s.json:2: not valid JSON (column 1): expected a value\n2\n" "{}\n"
testing "a bad regular expression" "echo '{\"pattern\":\"(a\"}' > s.json; $V --schema s.json input 2>&1 | sed 's/file:[^#]*#/SCHEMA#/'; echo \${PIPESTATUS[0]}" \
	"rtk validate: schema SCHEMA#: pattern: bad regular expression '(a': missing closing parenthesis at offset 2\n2\n" "\"x\"\n"
testing "a reference that does not resolve is never fetched" \
	"echo '{\"\$ref\":\"https://example.com/s.json\"}' > s.json; $V --schema s.json input 2>&1 | grep -c 'never fetches'; echo \${PIPESTATUS[0]}" "1\n2\n" "{}\n"
testing "a \$ref loop is found when compiling" \
	"echo '{\"\$defs\":{\"a\":{\"\$ref\":\"#/\$defs/b\"},\"b\":{\"\$ref\":\"#/\$defs/a\"}},\"\$ref\":\"#/\$defs/a\"}' > s.json; $V --schema s.json input 2>&1 | grep -o 'reference loop'; echo \${PIPESTATUS[0]}" \
	"reference loop\n2\n" "{}\n"
testing "a missing instance file is an I/O error: exit 1" "echo {} > s.json; $V --schema s.json nope.json 2>&1; echo \$?" \
	"rtk validate: nope.json: No such file or directory\n1\n"
testing "bad --draft" "$V --draft 4 input 2>&1; echo \$?" "rtk validate: --draft must be 2020-12 or 7\n2\n" "{}\n"
testing "bad --output" "$V --output verbose input 2>&1; echo \$?" "rtk validate: --output must be flag, basic or detailed\n2\n" "{}\n"

# --- --schema, drafts, registry -----------------------------------------------------------------
testing "draft-07 by \$schema: items array, additionalItems" \
	"echo '{\"\$schema\":\"http://json-schema.org/draft-07/schema#\",\"items\":[{\"type\":\"string\"}],\"additionalItems\":false}' > s.json; $V --schema s.json input" \
	"input:2: /1: item 1 is not allowed (only 1) (at /additionalItems)\n" "[\"a\"]\n[\"a\",1]\n"
testing "--draft 7 makes \$ref override its siblings" \
	"echo '{\"\$defs\":{\"s\":{\"type\":\"string\"}},\"\$ref\":\"#/\$defs/s\",\"maxLength\":1}' > s.json; $V --schema s.json input; echo \$?; $V --draft 7 --schema s.json input; echo \$?" \
	"input:1: /: is 2 characters long, longer than 1 (at /maxLength)\n1\n0\n" "\"ab\"\n"
testing "--ref-dir resolves a remote \$ref by \$id, offline" \
	"mkdir refs; echo '{\"\$id\":\"https://example.com/pos.json\",\"minimum\":0}' > refs/pos.json; echo '{\"\$ref\":\"https://example.com/pos.json\"}' > s.json; $V --ref-dir refs --schema s.json input" \
	"input:2: /: -1 is less than the minimum 0 (at /\$ref/minimum)\n" "1\n-1\n"
testing "the bundled metaschema checks a schema" \
	"echo '{\"\$ref\":\"https://json-schema.org/draft/2020-12/schema\"}' > meta.json; $V --schema meta.json input | cut -d' ' -f2-3" \
	"/type: is\n" "{\"type\":\"strin\"}\n{\"type\":\"string\"}\n"
testing "format annotates by default, asserts with --assert-format" \
	"echo '{\"format\":\"date-time\"}' > s.json; $V --schema s.json input; echo \$?; $V --assert-format --schema s.json input; echo \$?" \
	"0\ninput:1: /: \"2026-13-01T00:00:00Z\" is not a valid date-time (at /format)\n1\n" "\"2026-13-01T00:00:00Z\"\n"

# Every schema rtk ships is itself a valid draft 2020-12 schema, checked against the bundled metaschema.
for f in "$RTK_SRCDIR"/schemas/*.schema.json; do
	check "$(basename "$f") is a valid 2020-12 schema" "$RTK" validate --schema "$RTK_SRCDIR/schemas/meta/draft2020-12/schema.json" "$f"
done

# --- semantics people get wrong ------------------------------------------------------------------
schema_case() { # NAME SCHEMA INSTANCES(jsonl) EXPECTED-exit-codes-per-line
	local name=$1 schema=$2 lines=$3 want=$4
	testing "$name" "echo '$schema' > s.json; while IFS= read -r l; do printf '%s\n' \"\$l\" | $V --schema s.json >/dev/null; printf '%s' \$?; done < input; echo" "$want\n" "$lines"
}
schema_case "string length counts code points" '{"maxLength":2}' '"\\u00e9\\u00e9"\n"caf\\u00e9"\n"\\ud83d\\ude00\\ud83d\\ude00"\n' "010"
schema_case "1 == 1.0 in enum, but 0 != false and 1 != true" '{"enum":[1,0]}' '1.0\nfalse\ntrue\n0\n' "0110"
schema_case "object equality ignores key order" '{"const":{"a":1,"b":[1,2]}}' '{"b":[1,2.0],"a":1}\n{"a":1,"b":[2,1]}\n' "01"
schema_case "strings with NUL are compared whole" '{"const":"a\u0000b"}' '"a\\u0000b"\n"a"\n"a\\u0000c"\n' "011"
schema_case "property names are case-sensitive" '{"properties":{"Name":false}}' '{"name":1}\n{"Name":1}\n' "01"
schema_case "keys with NUL are distinct keys" '{"required":["a\u0000b"]}' '{"a\\u0000b":1}\n{"a":1}\n' "01"
schema_case "pattern: \$ only at the very end" '{"pattern":"^abc$"}' '"abc"\n"abc\\n"\n' "01"
schema_case "pattern searches, it does not match whole" '{"pattern":"b+"}' '"abbbc"\n"ac"\n' "01"
schema_case "pattern: \\d and \\w are ASCII" '{"pattern":"^\\d\\w$"}' '"1a"\n"\\u07c0a"\n"1\\u00e9"\n' "011"
schema_case "pattern: \\s is ECMA whitespace (U+FEFF, U+2029)" '{"pattern":"^\\s$"}' '"\\ufeff"\n"\\u2029"\n"x"\n' "001"
schema_case "pattern: \\p{Letter}" '{"pattern":"^\\p{Letter}+$"}' '"\\u00e9t\\u00e9"\n"1"\n' "01"
schema_case "unevaluatedProperties sees through allOf" '{"allOf":[{"properties":{"a":true}}],"unevaluatedProperties":false}' '{"a":1}\n{"a":1,"b":2}\n' "01"
schema_case "\$dynamicRef follows the dynamic scope" '{"$id":"https://x.test/root","$ref":"list","$defs":{"item":{"$dynamicAnchor":"item","type":"string"},"list":{"$id":"list","type":"array","items":{"$dynamicRef":"#item"},"$defs":{"item":{"$dynamicAnchor":"item"}}}}}' '["a"]\n[1]\n' "01"

# --- output formats -------------------------------------------------------------------------------
testing "--output flag: one line per instance" "$V --output flag input; echo \$?" "{\"valid\":true}\n{\"valid\":false}\n1\n" "$ok\n{\"schema\":\"reflection.v1\"}\n"
testing "--output basic: the 2020-12 basic format" \
	"reflection 's/0.8/2/' > r.jsonl; $V --output basic r.jsonl" \
	"{\"valid\":false,\"keywordLocation\":\"\",\"instanceLocation\":\"\",\"errors\":[{\"valid\":false,\"keywordLocation\":\"/properties/confidence/maximum\",\"absoluteKeywordLocation\":\"https://rtk.invalid/schemas/reflection.v1.schema.json#/properties/confidence/maximum\",\"instanceLocation\":\"/confidence\",\"error\":\"2 is greater than the maximum 1\"}]}\n"
testing "--output detailed keeps the oneOf summary above its branch's error" \
	"reflection 's/\"surface\":\"auth\",\"description\"/\"surface\":\"x\",\"description\"/' > r.jsonl; $V --output detailed r.jsonl | jq -c '.errors[] | [.keywordLocation, .instanceLocation, [.errors[].instanceLocation]]'" \
	"[\"/properties/most_likely_wrong/oneOf\",\"/most_likely_wrong\",[\"/most_likely_wrong/surface\"]]\n"
# The detailed tree follows the schema: /properties groups the failing members, $ref keeps its target's URI,
# anyOf keeps its message over its branch, items groups the two failing elements, a lone error is not wrapped.
D="$RTK_SRCDIR/tests/fixtures/detailed-schema.json"
U=https://rtk.invalid/tests/detailed
testing "--output detailed: the errors as a tree that follows the schema" \
	"$V --schema '$D' --output detailed input | jq -c ." \
	"{\"valid\":false,\"keywordLocation\":\"\",\"absoluteKeywordLocation\":\"$U#\",\"instanceLocation\":\"\",\"errors\":[\
{\"valid\":false,\"keywordLocation\":\"/properties\",\"absoluteKeywordLocation\":\"$U#/properties\",\"instanceLocation\":\"\",\"errors\":[\
{\"valid\":false,\"keywordLocation\":\"/properties/a/minimum\",\"absoluteKeywordLocation\":\"$U#/properties/a/minimum\",\"instanceLocation\":\"/a\",\"error\":\"1 is less than the minimum 3\"},\
{\"valid\":false,\"keywordLocation\":\"/properties/b/\$ref/properties\",\"absoluteKeywordLocation\":\"$U#/\$defs/pair/properties\",\"instanceLocation\":\"/b\",\"errors\":[\
{\"valid\":false,\"keywordLocation\":\"/properties/b/\$ref/properties/x/type\",\"absoluteKeywordLocation\":\"$U#/\$defs/pair/properties/x/type\",\"instanceLocation\":\"/b/x\",\"error\":\"expected string, got number\"},\
{\"valid\":false,\"keywordLocation\":\"/properties/b/\$ref/properties/y/type\",\"absoluteKeywordLocation\":\"$U#/\$defs/pair/properties/y/type\",\"instanceLocation\":\"/b/y\",\"error\":\"expected string, got number\"}]},\
{\"valid\":false,\"keywordLocation\":\"/properties/c/anyOf\",\"absoluteKeywordLocation\":\"$U#/properties/c/anyOf\",\"instanceLocation\":\"/c\",\"error\":\"matches none of the 2 schemas in anyOf\",\"errors\":[\
{\"valid\":false,\"keywordLocation\":\"/properties/c/anyOf/0/type\",\"absoluteKeywordLocation\":\"$U#/properties/c/anyOf/0/type\",\"instanceLocation\":\"/c\",\"error\":\"expected string, got number\"}]},\
{\"valid\":false,\"keywordLocation\":\"/properties/d\",\"absoluteKeywordLocation\":\"$U#/properties/d\",\"instanceLocation\":\"/d\",\"errors\":[\
{\"valid\":false,\"keywordLocation\":\"/properties/d/items/type\",\"absoluteKeywordLocation\":\"$U#/properties/d/items/type\",\"instanceLocation\":\"/d/1\",\"error\":\"expected string, got number\"},\
{\"valid\":false,\"keywordLocation\":\"/properties/d/items/type\",\"absoluteKeywordLocation\":\"$U#/properties/d/items/type\",\"instanceLocation\":\"/d/2\",\"error\":\"expected string, got number\"}]}]}]}\n\
{\"valid\":false,\"keywordLocation\":\"\",\"absoluteKeywordLocation\":\"$U#\",\"instanceLocation\":\"\",\"errors\":[\
{\"valid\":false,\"keywordLocation\":\"/required\",\"absoluteKeywordLocation\":\"$U#/required\",\"instanceLocation\":\"\",\"error\":\"missing required property \\\\\"z\\\\\"\"}]}\n" \
	'{"a":1,"b":{"x":1,"y":2},"c":5,"d":["s",1,2],"z":0}\n{"a":5}\n'
testing "--output detailed: a valid instance is a valid root unit" "$V --schema '$D' --output detailed input; echo \$?" \
	"{\"valid\":true,\"keywordLocation\":\"\",\"instanceLocation\":\"\"}\n0\n" '{"z":1}\n'
# Every detailed output must satisfy the output schema of the JSON-Schema-Test-Suite's output-tests
# (tests/fixtures/output-schema/output-schema.json, copied from its draft2020-12 folder, MIT licence), held to
# its "detailed" branch (output-schema/detailed.json): the whole schema's anyOf passes any {"valid":...} as "flag".
O="$RTK validate --assert-format --all --ref-dir $RTK_SRCDIR/tests/fixtures/output-schema --schema $RTK_SRCDIR/tests/fixtures/output-schema/detailed.json"
{
	printf '%s\n' '{"a":1,"b":{"x":1,"y":2},"c":5,"d":["s",1,2],"z":0}' '{"a":"x","b":{"x":"s","y":[]}}' '{"z":1}' '7' \
		'{"c":{"k":1},"d":[[],{}],"z":1,"b":{"y":1}}'
	printf '%s\n' "$ok" | sed 's/"surface":"auth","description"/"surface":"x","description"/'
} > "$SCRATCH_ROOT/detailed-in.jsonl"
{
	head -5 "$SCRATCH_ROOT/detailed-in.jsonl" | "$RTK" validate --schema "$D" --output detailed
	tail -1 "$SCRATCH_ROOT/detailed-in.jsonl" | "$RTK" validate --all --output detailed
	tail -1 "$SCRATCH_ROOT/detailed-in.jsonl" | "$RTK" validate --output detailed
	# a $ref inside a $ref: the unit between them cannot name its URI, so it hands its children up
	printf '%s\n' '{"$id":"https://rtk.invalid/n","properties":{"a":{"$ref":"#/$defs/o"}},"$defs":{"o":{"properties":{"b":{"$ref":"#/$defs/p"},"c":{"$ref":"#/$defs/p"}}},"p":{"properties":{"x":{"type":"string"},"y":{"type":"string"}}}}}' > "$SCRATCH_ROOT/nested-ref.json"
	printf '%s\n' '{"a":{"b":{"x":1,"y":1},"c":{"x":1}}}' | "$RTK" validate --schema "$SCRATCH_ROOT/nested-ref.json" --output detailed
} > "$SCRATCH_ROOT/detailed-out.jsonl"
check "--output detailed: one line per instance" test "$(wc -l < "$SCRATCH_ROOT/detailed-out.jsonl")" -eq 8
check "--output detailed: a unit below two \$refs keeps its URI, the one between them is left out" test \
	"$(tail -1 "$SCRATCH_ROOT/detailed-out.jsonl" | jq -c '[.errors[0].keywordLocation, [.errors[0].errors[] | [.keywordLocation, .absoluteKeywordLocation]]]')" = \
	'["/properties/a",[["/properties/a/$ref/properties/b/$ref/properties","https://rtk.invalid/n#/$defs/p/properties"],["/properties/a/$ref/properties/c/$ref/properties/x/type","https://rtk.invalid/n#/$defs/p/properties/x/type"]]]'
check "--output detailed satisfies the 2020-12 output schema" \
	$O "$SCRATCH_ROOT/detailed-out.jsonl"
# and it does catch a drift: a nested failing unit with neither "error" nor "errors", a $ref unit without its URI
head -1 "$SCRATCH_ROOT/detailed-out.jsonl" | jq -c 'del(.errors[0].errors[0].error)' > "$SCRATCH_ROOT/detailed-bad.jsonl"
head -1 "$SCRATCH_ROOT/detailed-out.jsonl" | jq -c 'del(.errors[0].errors[1].absoluteKeywordLocation)' >> "$SCRATCH_ROOT/detailed-bad.jsonl"
check "the output schema rejects both drifted units" \
	test "$($O --output flag "$SCRATCH_ROOT/detailed-bad.jsonl" | tr -d '\n')" = '{"valid":false}{"valid":false}'
# --output basic is held to the output schema's "basic" branch the same way (output-schema/basic.json).
B="$RTK validate --assert-format --all --ref-dir $RTK_SRCDIR/tests/fixtures/output-schema --schema $RTK_SRCDIR/tests/fixtures/output-schema/basic.json"
{
	head -5 "$SCRATCH_ROOT/detailed-in.jsonl" | "$RTK" validate --schema "$D" --all --output basic
	printf '%s\n' '{"a":{"b":{"x":1,"y":1},"c":{"x":1}}}' | "$RTK" validate --schema "$SCRATCH_ROOT/nested-ref.json" --output basic
} > "$SCRATCH_ROOT/basic-out.jsonl"
check "--output basic: one line per instance" test "$(wc -l < "$SCRATCH_ROOT/basic-out.jsonl")" -eq 6
check "--output basic satisfies the 2020-12 output schema" $B "$SCRATCH_ROOT/basic-out.jsonl"
testing "--json and --output together is a usage error" "$V --json --output flag input 2>&1; echo \$?" \
	"rtk validate: --output and --json are two different outputs: pick one\n2\n" "$ok\n"
{ printf '%s\n' "$ok"; printf '%s\n' "$ok" | sed 's/0.8/2/'; } > "$SCRATCH_ROOT/mixed.jsonl"
"$RTK" validate --json "$SCRATCH_ROOT/mixed.jsonl" > "$SCRATCH_ROOT/out.json"
check "--json exits 1 with an invalid instance, counts them" test "$(jq -c '[.instances,.valid,.invalid,.errors[0].line]' "$SCRATCH_ROOT/out.json")" = "[2,1,1,2]"
conforms "--json output conforms to rtk.validate.v1" "$SCRATCH_ROOT/out.json" validate
# conforms itself must catch a drift: an output with a member its schema does not know fails it.
jq '.extra = 1' "$SCRATCH_ROOT/out.json" > "$SCRATCH_ROOT/drift.json"
check "conforms catches an output that drifted from its schema" \
	bash -c "! '$RTK' validate --schema '$RTK_SRCDIR/schemas/rtk.validate.v1.schema.json' '$SCRATCH_ROOT/drift.json' >/dev/null"
# --- large files: one reader thread per core (RTK_TEST_SHARES forces the split on small files) --------
# 300 records, every fifth invalid in one of three ways, with blank lines; the first shipped-schema
# lookup and compile happen under the readers' lock.
{
	for i in $(seq 1 300); do
		case $((i % 15)) in
		5) reflection 's/0.8/2/' ;;
		10) reflection 's/"surface":"auth","description"/"surface":"x","description"/; s/"degraded":false/"degraded":0/' ;;
		0) reflection "s/\"repo\":\"rtk\",//; s/T-1/T-$i/" ;;
		7) echo ;;
		*) reflection "s/T-1/T-$i/" ;;
		esac
	done
} > "$SCRATCH_ROOT/many.jsonl"
# the same with a line that is not JSON at 280 (and another at 295), or a record naming no schema at 250
sed '280s/.*/{bad/; 295s/.*/[}/' "$SCRATCH_ROOT/many.jsonl" > "$SCRATCH_ROOT/late-bad.jsonl"
sed '12s/.*/{"x":/; 290s/.*/[}/' "$SCRATCH_ROOT/many.jsonl" > "$SCRATCH_ROOT/early-bad.jsonl"
sed '250s/.*/{"no":"schema"}/' "$SCRATCH_ROOT/many.jsonl" > "$SCRATCH_ROOT/late-noschema.jsonl"
# run NAME SHARES ARGS...: stdout, stderr and exit status into $SCRATCH_ROOT/NAME.SHARES.*
run_shares() {
	local name=$1 n=$2
	shift 2
	RTK_TEST_SHARES=$n "$RTK" validate "$@" > "$SCRATCH_ROOT/$name.$n.out" 2> "$SCRATCH_ROOT/$name.$n.err"
	echo $? > "$SCRATCH_ROOT/$name.$n.rc"
}
same_as_one_share() {
	local name=$1 n
	for n in 2 3 4; do
		cmp -s "$SCRATCH_ROOT/$name.1.out" "$SCRATCH_ROOT/$name.$n.out" &&
			cmp -s "$SCRATCH_ROOT/$name.1.err" "$SCRATCH_ROOT/$name.$n.err" &&
			cmp -s "$SCRATCH_ROOT/$name.1.rc" "$SCRATCH_ROOT/$name.$n.rc" || return 1
	done
}
S="--schema $RTK_SRCDIR/schemas/reflection.v1.schema.json"
# regular expressions too, searched by every reader at once: "T-" and 1 or 2 digits, session ids with an s
echo '{"properties":{"task_ref":{"pattern":"^T-[0-9]{1,2}$"}},"patternProperties":{"^sess":{"pattern":"s"}}}' > "$SCRATCH_ROOT/re.json"
R="--schema $SCRATCH_ROOT/re.json"
modes=("" "--all" "--output flag" "--output basic" "--output detailed" "--json" "--all --json" "$S" "$S --all --output basic" "$R" "$R --output basic")
for file in many late-bad early-bad late-noschema; do
	for m in "${!modes[@]}"; do
		for n in 1 2 3 4; do
			# shellcheck disable=SC2086 # the mode is several words
			run_shares "$file-$m" $n ${modes[$m]} "$SCRATCH_ROOT/$file.jsonl"
		done
		if [ "${modes[$m]}" != "${modes[$m]%--json}" ]; then # the envelope's generated_at may tick between runs
			for n in 1 2 3 4; do
				jq -S 'del(.generated_at)' "$SCRATCH_ROOT/$file-$m.$n.out" > "$SCRATCH_ROOT/$file-$m.$n.j" 2> /dev/null &&
					mv "$SCRATCH_ROOT/$file-$m.$n.j" "$SCRATCH_ROOT/$file-$m.$n.out"
			done
		fi
		check "$file.jsonl ${modes[$m]:-(default)}: 2, 3 and 4 readers print and exit as one" same_as_one_share "$file-$m"
	done
done
# What one reader prints, so that the comparisons above compare something.
check "one reader: the invalid records of many.jsonl, by line" test \
	"$(cut -d: -f2 "$SCRATCH_ROOT/many-0.1.out" | tr '\n' ' ')" = "$(seq 0 15 300 | awk '$1 > 0 { printf "%d %d %d ", $1 - 10, $1 - 5, $1 }')"
check "one reader: --output flag is a line per record, blank lines skipped" test "$(wc -l < "$SCRATCH_ROOT/many-2.1.out")" -eq 280
check "one reader: the records whose task_ref has three digits break the pattern" test \
	"$(cut -d: -f2 "$SCRATCH_ROOT/many-9.1.out" | tr '\n' ' ')" = "$(seq 100 300 | awk '$1 % 15 != 5 && $1 % 15 != 7 && $1 % 15 != 10 { printf "%d ", $1 }')"
check "one reader: --json counts" test "$(jq -c '[.instances, .invalid, .errors[-1].line]' "$SCRATCH_ROOT/many-5.1.out")" = "[280,60,300]"
check "late bad line: the first one named, exit 2" test \
	"$(cat "$SCRATCH_ROOT/late-bad-0.4.err" "$SCRATCH_ROOT/late-bad-0.4.rc")" = "rtk validate: $SCRATCH_ROOT/late-bad.jsonl:280: not valid JSON (column 2): expected a member name
2"
check "late bad line: the invalid records before it are printed, none after" test \
	"$(tail -1 "$SCRATCH_ROOT/late-bad-0.4.out" | cut -d: -f2)" = 275
check "early bad line: only what comes before it" test \
	"$(cat "$SCRATCH_ROOT/early-bad-2.4.out" | wc -l):$(cut -d: -f3- "$SCRATCH_ROOT/early-bad-2.4.err")" = "10:12: not valid JSON (column 6): expected a value"
check "a late record naming no schema: its line, exit 2" test \
	"$(cut -d: -f3- "$SCRATCH_ROOT/late-noschema-0.3.err"):$(cat "$SCRATCH_ROOT/late-noschema-0.3.rc")" = \
	'250: no --schema given and the instance names none in "schema":2'
# Issue 15: inputs without newlines stop at the line limit.
testing "/dev/zero: refused at --max-line" "$V --max-line 1M /dev/zero 2>&1; echo \$?" \
	"rtk validate: /dev/zero:1: line longer than 1048576 bytes (see --max-line)\n2\n"
testing "a JSONL line past --max-line is named FILE:LINE" \
	"printf '{}\n{\"x\": \"%03000d\"}\n' 0 > long.jsonl; $V --schema /dev/stdin --max-line 2K long.jsonl <<<'{}' 2>&1; echo \$?" \
	"rtk validate: long.jsonl:2: line longer than 2048 bytes (see --max-line)\n2\n"
testing "a pipe without newlines as one document: refused at --max-line" \
	"head -c 3000000 /dev/zero | $V --max-line 1M 2>&1; echo \$?" "rtk validate: <stdin>: more than 1048576 bytes (see --max-line)\n2\n"
# Issue 15: schemas are checked against their metaschema first, as ajv does.
testing "minLength -1: not a valid schema, exit 2 naming the keyword" \
	"echo '{\"minLength\": -1}' > s.json; $V --schema s.json <<<'\"x\"' 2>&1; echo \$?" \
	"rtk validate: s.json: not a valid schema: keyword \"minLength\" at /minLength: -1 is less than the minimum 0 (checked against https://json-schema.org/draft/2020-12/schema)\n2\n"
testing "minimum \"x\": not a valid schema" \
	"echo '{\"properties\": {\"n\": {\"minimum\": \"x\"}}}' > s.json; $V --schema s.json <<<'{}' 2>&1; echo \$?" \
	"rtk validate: s.json: not a valid schema: keyword \"minimum\" at /properties/n/minimum: expected number, got string (checked against https://json-schema.org/draft/2020-12/schema)\n2\n"
testing "maxContains -1: not a valid schema" \
	"echo '{\"maxContains\": -1}' > s.json; $V --schema s.json <<<'[]' 2>&1; echo \$?" \
	"rtk validate: s.json: not a valid schema: keyword \"maxContains\" at /maxContains: -1 is less than the minimum 0 (checked against https://json-schema.org/draft/2020-12/schema)\n2\n"
testing "a draft-07 schema is checked against draft-07's metaschema" \
	"echo '{\"\$schema\": \"http://json-schema.org/draft-07/schema#\", \"required\": \"a\"}' > s.json; $V --schema s.json <<<'{}' 2>&1; echo \$?" \
	"rtk validate: s.json: not a valid schema: keyword \"required\" at /required: expected array, got string (checked against http://json-schema.org/draft-07/schema)\n2\n"
testing "--no-schema-check: used as it is" \
	"echo '{\"minLength\": -1}' > s.json; $V --no-schema-check --schema s.json <<<'\"x\"' 2>&1; echo \$?" "0\n"
testing "a \$schema rtk does not bundle is not checked" \
	"echo '{\"\$schema\": \"http://json-schema.org/draft-04/schema#\", \"minLength\": -1}' > s.json; $V --schema s.json <<<'\"x\"' 2>&1; echo \$?" "0\n"
finish
