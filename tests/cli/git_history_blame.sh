#!/usr/bin/env bash
# tests/cli/git_history_blame.sh — rtk git-history's blame rules of issue 25 item 7 on tests/fixtures/oracle-repo.sh:
# octopus merges followed, other culprits only with a comparable share, context judged by its share.
. "$RTK_SRCDIR/tests/cli/lib.sh"

E="rtk git-history"
R="$SCRATCH_ROOT/oracle-repo"
bash "$RTK_SRCDIR/tests/fixtures/oracle-repo.sh" "$R" >/dev/null 2>&1 || echo "fixture oracle-repo failed" >&2

# bo JQ: --blame-only (blame alone links: the trailers are the answers to check against), filtered by JQ.
bo() {
	printf "%q git-history --json --blame-only --repo %q --window 365d --fix-window 30d --config input | jq -c %q" \
		"$RTK" "$R" "$1"
}
# fix PREFIX: the fix whose subject starts PREFIX: its culprits' subjects, the rule that linked it, its strength.
fix() {
	bo "[.failures[] | select(.remedy.subject | startswith(\"$1:\")) | [([.culprit, .other_culprits[]] | map(.subject)), .rules[-1], .evidence.strength]]"
}

testing "an octopus merge's third parent is followed: the line came in through it" "$(fix nine)" \
	'[[["nine: set nine"],"blame","strong"]]\n' "{}\n"
testing "another culprit with fewer lines than the primary is not linked (blame.other_culprit_min_ratio 1)" "$(fix seven)" \
	'[[["seven: set seven_a"],"blame","strong"]]\n' "{}\n"
testing "a tie links both" "$(fix five)" \
	'[[["five: set five_b","five: set five_a"],"blame","strong"]]\n' "{}\n"
testing "a ghost fix whose context one commit last changed links it, strong (blame.context_evidence share)" "$(fix three)" \
	'[[["three: add three"],"blame-context","strong"]]\n' "{}\n"
testing "blame.other_culprit_min_ratio 0: every commit blame found is linked (seven-b beside seven-a)" \
	"$(bo '[.failures[] | select(.remedy.subject | startswith("seven:")) | [.culprit.subject, (.other_culprits[] | .subject)]]')" \
	'[["seven: set seven_a","seven: set seven_b"]]\n' "blame: {other_culprit_min_ratio: 0}\n"
testing "blame.other_culprit_min_ratio 0.5: one line of the primary's two is enough" \
	"$(bo '[.failures[] | select(.remedy.subject | startswith("seven:")) | (.other_culprits | length)]')" \
	'[1]\n' "blame: {other_culprit_min_ratio: 0.5}\n"
testing "context split three ways (a share of 0.33) is weak: unlinked, the reason says context lines" \
	"$(bo '[.unlinked[] | select(.remedy.subject | startswith("ten:")) | [.reason_code, (.reason | test("only 2 of its 6 context lines around what it adds \\(0.33, below blame.strong_min_share 0.5\\)$"))]]')" \
	'[["weak",true]]\n' "{}\n"
testing "blame.context_evidence weak: context never links, whatever its share (the ghost fix three unlinked)" \
	"$(bo '[.unlinked[] | select(.remedy.subject | test("^(three|ten):")) | [(.remedy.subject | split(":")[0]), .reason_code]] | sort')" \
	'[["ten","weak"],["three","weak"]]\n' "blame: {context_evidence: weak}\n"
testing "blame.context_evidence weak with weak_links link: the context links, marked weak" \
	"$(bo '[.failures[] | select(.remedy.subject | startswith("three:")) | [.culprit.subject, .evidence.strength, .evidence.why_weak]]')" \
	'[["three: add three","weak","it changes no earlier substantive line: the context of what it adds was blamed"]]\n' \
	"blame: {context_evidence: weak, weak_links: link}\n"
$RTK git-history --json --blame-only --repo "$R" --window 365d --fix-window 30d >"$SCRATCH_ROOT/blame.json"
conforms "the JSON conforms to its schema" "$SCRATCH_ROOT/blame.json" git-history
testing "blame.context_evidence must be share or weak" "$RTK git-history --repo $R --config input 2>&1; echo \$?" \
	"$E: input: blame.context_evidence must be share or weak\n2\n" "blame: {context_evidence: maybe}\n"
testing "blame.other_culprit_min_ratio must be in [0, 1]" "$RTK git-history --repo $R --config input 2>&1; echo \$?" \
	"$E: input: blame.other_culprit_min_ratio must be a number in [0, 1]\n2\n" "blame: {other_culprit_min_ratio: 2}\n"
finish
