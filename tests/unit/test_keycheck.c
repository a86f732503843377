/* tests/unit/test_keycheck.c — config keys held to the known ones: the nearest key suggested, numbers and strings of one type each. */
#include "unit.h"
#include "lib/err.h"
#include "lib/keycheck.h"
#include "lib/yamlx.h"

#include <stdlib.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char known_yaml[] = "calibration: {corpus: ~, high: 0.8, min_per_class: 30}\n"
				 "git_history: {repo: '', window: 90d, fix_window: 7d}\n"
				 "surfaces: {'*': {weight: 1, patterns: []}}\n"
				 "signals: [{name: a, regex: b}, {name: c, form: d, regex: e}]\n";

/* Checks yaml against known_yaml: "" and the checked tree as compact JSON, or the message. */
static char *check(const char *yaml)
{
	cJSON *known, *doc;
	struct rtk_yaml_marks *marks;
	char *out;
	assert_int_equal(rtk_yaml_load(known_yaml, strlen(known_yaml), "known", &known), 0);
	assert_int_equal(rtk_yaml_load_marked(yaml, strlen(yaml), "c.yaml", &doc, &marks), 0);
	rtk_error_clear();
	if (rtk_keycheck_tree(doc, marks, "c.yaml", known))
		out = strdup(rtk_error_message());
	else
		out = cJSON_PrintUnformatted(doc);
	cJSON_Delete(doc);
	cJSON_Delete(known);
	rtk_yaml_marks_free(marks);
	return out;
}

#define assert_check(yaml, want)                   \
	do {                                       \
		char *got_ = check(yaml);          \
		assert_string_equal(got_, want);   \
		free(got_);                        \
	} while (0)

static void distance_counts_edits_and_swaps(void **state)
{
	static const struct { const char *a, *b; size_t d; } cases[] = {
		{ "window", "window", 0 }, { "windw", "window", 1 }, { "hihg", "high", 1 },
		{ "git_histroy", "git_history", 1 }, { "Window", "window", 0 }, { "", "abc", 3 },
		{ "kitten", "sitting", 3 }, { "ca", "abc", 3 }, { "fix-window", "fix_window", 1 },
	};
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		if (rtk_keycheck_distance(cases[i].a, cases[i].b) != cases[i].d)
			fail_msg("%s/%s: %zu, wanted %zu", cases[i].a, cases[i].b, rtk_keycheck_distance(cases[i].a, cases[i].b),
				 cases[i].d);
		assert_int_equal(rtk_keycheck_distance(cases[i].b, cases[i].a), cases[i].d);
	}
}

static void nearest_is_only_named_when_near(void **state)
{
	static const char *const names[] = { "calibration", "git_history", "board" };
	(void)state;
	assert_string_equal(rtk_keycheck_nearest("git_histroy", names, 3), "git_history");
	assert_string_equal(rtk_keycheck_nearest("boad", names, 3), "board");
	assert_string_equal(rtk_keycheck_nearest("Calibration", names, 3), "calibration");
	assert_null(rtk_keycheck_nearest("p2", names, 3));
	assert_null(rtk_keycheck_nearest("history", names, 3));
	assert_null(rtk_keycheck_nearest("x", names, 0));
}

static void known_keys_pass_unchanged(void **state)
{
	(void)state;
	assert_check("calibration:\n  corpus: [a, b]\n  high: 0.9\n", "{\"calibration\":{\"corpus\":[\"a\",\"b\"],\"high\":0.9}}");
	assert_check("surfaces:\n  auth: {weight: 0.5}\n  mine: {patterns: [x]}\n",
		     "{\"surfaces\":{\"auth\":{\"weight\":0.5},\"mine\":{\"patterns\":[\"x\"]}}}");
	assert_check("signals: [{name: x, form: epoch}]\n", "{\"signals\":[{\"name\":\"x\",\"form\":\"epoch\"}]}");
	assert_check("git_history:\n", "{\"git_history\":null}");
	assert_check("", "null");
}

static void an_unknown_key_names_its_line_and_the_nearest(void **state)
{
	(void)state;
	assert_check("calibration:\n  corpus: a\ngit_histroy:\n  window: 30d\n",
		     "c.yaml:3:1: unknown key `git_histroy`: did you mean `git_history`?");
	assert_check("git_history:\n  repo: .\n  windw: 365d\n",
		     "c.yaml:3:3: unknown key `windw` in `git_history`: did you mean `window`?");
	assert_check("calibration: {hihg: 0.9}\n", "c.yaml:1:15: unknown key `hihg` in `calibration`: did you mean `high`?");
	assert_check("calibration:\n  p1: x\n",
		     "c.yaml:2:3: unknown key `p1` in `calibration`: the known keys are `corpus`, `high`, `min_per_class`");
	assert_check("surfaces:\n  auth: {wieght: 1}\n", "c.yaml:2:10: unknown key `wieght` in `surfaces.auth`: did you mean `weight`?");
	assert_check("signals:\n  - name: x\n    frm: epoch\n",
		     "c.yaml:3:5: unknown key `frm` in `signals[0]`: did you mean `form`?");
	assert_check("'*': 1\n", "c.yaml:1:1: unknown key `*`: the known keys are `calibration`, `git_history`, `surfaces`, `signals`");
}

static void numbers_and_strings_have_one_type_each(void **state)
{
	(void)state;
	/* a quoted number is the number */
	assert_check("calibration: {high: \"0.9\", min_per_class: '30'}\n", "{\"calibration\":{\"high\":0.9,\"min_per_class\":30}}");
	/* a number where a string goes is the string as written */
	assert_check("git_history: {window: 365, repo: 0x1F, fix_window: 1e3}\n",
		     "{\"git_history\":{\"window\":\"365\",\"repo\":\"0x1F\",\"fix_window\":\"1e3\"}}");
	assert_check("calibration:\n  high: high\n", "c.yaml:2:3: `calibration.high` must be a number, not \"high\"");
	assert_check("calibration:\n  high: 0x10\n", "{\"calibration\":{\"high\":16}}");
	assert_check("calibration:\n  high: '0x10'\n", "c.yaml:2:3: `calibration.high` must be a number, not \"0x10\"");
	assert_check("calibration:\n  high: [1]\n", "c.yaml:2:3: `calibration.high` must be a number, not a list");
	assert_check("calibration:\n  high: true\n", "c.yaml:2:3: `calibration.high` must be a number, not true or false");
	assert_check("git_history: 90d\n", "c.yaml:1:1: `git_history` must be a mapping, not \"90d\"");
	assert_check("- a\n", "c.yaml:1:1: the file must be a mapping, not a list");
}

static void an_alias_copy_takes_the_line_of_its_alias(void **state)
{
	(void)state;
	assert_check("x: &a {windw: 1}\ngit_history: *a\n", "c.yaml:1:1: unknown key `x`: the known keys are `calibration`, "
		     "`git_history`, `surfaces`, `signals`");
	assert_check("git_history: &a {repo: r}\ncalibration: *a\n",
		     "c.yaml:2:1: unknown key `repo` in `calibration`: the known keys are `corpus`, `high`, `min_per_class`");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(distance_counts_edits_and_swaps),
	cmocka_unit_test(nearest_is_only_named_when_near),
	cmocka_unit_test(known_keys_pass_unchanged),
	cmocka_unit_test(an_unknown_key_names_its_line_and_the_nearest),
	cmocka_unit_test(numbers_and_strings_have_one_type_each),
	cmocka_unit_test(an_alias_copy_takes_the_line_of_its_alias),
};

RTK_UNIT_MAIN(tests)
