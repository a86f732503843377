/* tests/unit/test_msgref.c — a message naming another commit: sha prefixes as words, squash-merged pull request numbers. */
#include "unit.h"
#include "githistory/msgref.h"

#include <string.h>

#define HEX "eeb55c733ba9a83c51d08b1629dca6a5ec0f4b2b"

static void pull_request_of_a_subject(void **state)
{
	(void)state;
	const char *num = NULL;
	assert_int_equal(msgref_subject_pull_request("runtime: steal tasks from the LIFO slot (#7431)", &num), 4);
	assert_memory_equal(num, "7431", 4);
	assert_int_equal(msgref_subject_pull_request("x (#12)  \n", &num), 2);
	assert_int_equal(msgref_subject_pull_request("x (#)", &num), 0);
	assert_int_equal(msgref_subject_pull_request("x #12)", &num), 0);
	assert_int_equal(msgref_subject_pull_request("x (#12", &num), 0);
	assert_int_equal(msgref_subject_pull_request("x (12)", &num), 0);
	assert_int_equal(msgref_subject_pull_request("(#1234567890123)", &num), 0); /* 13 digits: no pull request */
	assert_int_equal(msgref_subject_pull_request("", &num), 0);
	assert_int_equal(msgref_subject_pull_request(NULL, &num), 0);
}

static void names_by_sha_prefix(void **state)
{
	(void)state;
	assert_true(msgref_names("This is a companion patch of eeb55c7 (x).", HEX, NULL));
	assert_true(msgref_names("follow-up of EEB55C733BA9", HEX, NULL));
	assert_true(msgref_names(HEX, HEX, NULL));
	assert_false(msgref_names("eeb55c", HEX, NULL));             /* six digits: too short */
	assert_false(msgref_names("xeeb55c733", HEX, NULL));         /* not a word */
	assert_false(msgref_names("eeb55c733g", HEX, NULL));         /* a longer word */
	assert_false(msgref_names("eeb55c734", HEX, NULL));          /* another commit */
	assert_false(msgref_names(HEX "0", HEX, NULL));              /* 41 digits */
}

static void names_by_pull_request(void **state)
{
	(void)state;
	const char *subject = "runtime: steal tasks from the LIFO slot (#7431)";
	assert_true(msgref_names("the test I added in #7431 spawns", HEX, subject));
	assert_true(msgref_names("#7431", HEX, subject));
	assert_false(msgref_names("see #74310", HEX, subject));      /* another number */
	assert_false(msgref_names("see x#7431", HEX, subject));      /* not a word */
	assert_false(msgref_names("see #7431", HEX, "no pull request here"));
	assert_false(msgref_names("", HEX, subject));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pull_request_of_a_subject),
		cmocka_unit_test(names_by_sha_prefix),
		cmocka_unit_test(names_by_pull_request),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
