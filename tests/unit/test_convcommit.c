/* tests/unit/test_convcommit.c — Conventional Commits headers: types, scopes, '!', what is not one. */
#include "unit.h"
#include "githistory/convcommit.h"

#include <string.h>

static bool parse(const char *s, struct convcommit *c)
{
	return convcommit_parse(s, strlen(s), c);
}

static void full_header(void **state)
{
	(void)state;
	struct convcommit c;
	assert_true(parse("fix(auth)!: reject expired tokens\n\nbody", &c));
	assert_int_equal(c.type_len, 3);
	assert_memory_equal(c.type, "fix", 3);
	assert_int_equal(c.scope_len, 4);
	assert_memory_equal(c.scope, "auth", 4);
	assert_true(c.breaking);
	assert_int_equal(c.description_len, strlen("reject expired tokens"));
	assert_true(convcommit_type_is(&c, "FIX"));
	assert_false(convcommit_type_is(&c, "fi"));
}

static void case_and_plain_forms(void **state)
{
	(void)state;
	struct convcommit c;
	assert_true(parse("HotFix: stop the bleeding", &c));
	assert_true(convcommit_type_is(&c, "hotfix"));
	assert_int_equal(c.scope_len, 0);
	assert_false(c.breaking);
	assert_true(parse("revert(api)!: drop v1", &c));
	assert_true(convcommit_type_is(&c, "revert"));
	assert_true(parse("feat-x_y: ok   \r", &c));
	assert_int_equal(c.description_len, 2);
}

static void not_headers(void **state)
{
	(void)state;
	struct convcommit c;
	static const char *const bad[] = {
		"fix the bug", "fix:no space", "fix: ", "fix():  x", "fix(a: x", "(a): x", ": x", "1fix: x",
		"fix(a)(b): x", "Revert \"fix: x\"", "fix !: x", "",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (parse(bad[i], &c))
			fail_msg("parsed \"%s\"", bad[i]);
	/* Only the first line counts. */
	assert_false(parse("update\nfix: x", &c));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(full_header),
	cmocka_unit_test(case_and_plain_forms),
	cmocka_unit_test(not_headers),
};

RTK_UNIT_MAIN(tests)
