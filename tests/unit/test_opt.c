/* tests/unit/test_opt.c — the declarative option parser: forms, operands, errors and --help layout. */
#include "unit.h"
#include "lib/err.h"
#include "lib/opt.h"

#include <stdlib.h>
#include <string.h>

static struct {
	bool flag, other;
	const char *name;
	long count;
	double level;
	struct rtk_opt_list excludes;
} v;

static const struct rtk_opt table[] = {
	RTK_OPT_BOOL('f', "flag", &v.flag, "a flag"),
	RTK_OPT_BOOL('o', NULL, &v.other, "a short-only flag"),
	RTK_OPT_STRING('n', "name", &v.name, "NAME", "a name"),
	RTK_OPT_INT(0, "count", &v.count, "N", "a count"),
	RTK_OPT_DOUBLE(0, "level", &v.level, "L", "a level with a long help line"),
	RTK_OPT_LIST('x', "exclude", &v.excludes, "GLOB", "leave GLOB out (repeatable)"),
	RTK_OPT_END(),
};
static const struct rtk_opt *const tables[] = { table };

/* Parses a NULL-terminated list of words (the first is the program name). */
static int parse(int *argc, char **argv)
{
	memset(&v, 0, sizeof(v));
	rtk_error_clear();
	for (*argc = 0; argv[*argc]; (*argc)++)
		;
	return rtk_opt_parse(argc, argv, tables, 1);
}

static void all_forms_parse(void **state)
{
	(void)state;
	char *argv[] = { "x", "a", "--flag", "--name=alpha", "b", "--count", "42", "--level=0.25", "-", NULL };
	int argc;
	assert_int_equal(parse(&argc, argv), 0);
	assert_true(v.flag);
	assert_string_equal(v.name, "alpha");
	assert_int_equal(v.count, 42);
	assert_true(v.level == 0.25);
	assert_int_equal(argc, 3);
	assert_string_equal(argv[0], "a");
	assert_string_equal(argv[1], "b");
	assert_string_equal(argv[2], "-");
	assert_null(argv[3]);
}

static void short_forms_and_bundles(void **state)
{
	(void)state;
	char *argv[] = { "x", "-fo", "-nbeta", "-n", "gamma", NULL };
	int argc;
	assert_int_equal(parse(&argc, argv), 0);
	assert_true(v.flag);
	assert_true(v.other);
	assert_string_equal(v.name, "gamma"); /* the last one wins */
	assert_int_equal(argc, 0);

	char *bundled[] = { "x", "-fnzeta", NULL };
	assert_int_equal(parse(&argc, bundled), 0);
	assert_true(v.flag);
	assert_string_equal(v.name, "zeta");
}

static void double_dash_ends_options(void **state)
{
	(void)state;
	char *argv[] = { "x", "--", "--flag", "-n", NULL };
	int argc;
	assert_int_equal(parse(&argc, argv), 0);
	assert_false(v.flag);
	assert_int_equal(argc, 2);
	assert_string_equal(argv[0], "--flag");
	assert_string_equal(argv[1], "-n");
}

static void errors_name_the_option(void **state)
{
	(void)state;
	int argc;
	char *unknown[] = { "x", "--nope", NULL };
	assert_int_equal(parse(&argc, unknown), RTK_EXIT_USAGE);
	assert_string_equal(rtk_error_message(), "unknown option '--nope'");

	char *mistyped[] = { "x", "--cuont=3", NULL };
	assert_int_equal(parse(&argc, mistyped), RTK_EXIT_USAGE);
	assert_string_equal(rtk_error_message(), "unknown option '--cuont'; did you mean '--count'?");

	char *unknown_short[] = { "x", "-fz", NULL };
	assert_int_equal(parse(&argc, unknown_short), RTK_EXIT_USAGE);
	assert_string_equal(rtk_error_message(), "unknown option '-z'");

	char *missing[] = { "x", "--name", NULL };
	assert_int_equal(parse(&argc, missing), RTK_EXIT_USAGE);
	assert_string_equal(rtk_error_message(), "option '--name' needs a value (NAME)");

	char *bad_int[] = { "x", "--count=4x", NULL };
	assert_int_equal(parse(&argc, bad_int), RTK_EXIT_USAGE);
	assert_string_equal(rtk_error_message(), "--count takes a whole number, not '4x'");

	char *bad_double[] = { "x", "--level", "nan", NULL };
	assert_int_equal(parse(&argc, bad_double), RTK_EXIT_USAGE);
	assert_string_equal(rtk_error_message(), "--level takes a number, not 'nan'");

	char *valued_flag[] = { "x", "--flag=yes", NULL };
	assert_int_equal(parse(&argc, valued_flag), RTK_EXIT_USAGE);
	assert_string_equal(rtk_error_message(), "option '--flag' takes no value");

	/* No abbreviations: scripts must not change meaning when an option is added. */
	char *prefix[] = { "x", "--fla", NULL };
	assert_int_equal(parse(&argc, prefix), RTK_EXIT_USAGE);
}

static void help_lists_every_option(void **state)
{
	(void)state;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	rtk_opt_print_help(f, tables, 1);
	fclose(f);
	assert_non_null(strstr(text, "Options:\n"));
	assert_non_null(strstr(text, "  -f, --flag                a flag\n"));
	assert_non_null(strstr(text, "  -o                        a short-only flag\n"));
	assert_non_null(strstr(text, "  -n, --name NAME           a name\n"));
	assert_non_null(strstr(text, "      --count N             a count\n"));
	free(text);
}

static void list_options_collect_every_use(void **state)
{
	(void)state;
	char *argv[] = { "x", "--exclude", "*.dll", "op", "-xnode_modules/", "--exclude=a b", NULL };
	int argc;
	assert_int_equal(parse(&argc, argv), 0);
	assert_int_equal(v.excludes.n, 3);
	assert_string_equal(v.excludes.v[0], "*.dll");
	assert_string_equal(v.excludes.v[1], "node_modules/");
	assert_string_equal(v.excludes.v[2], "a b");
	assert_null(v.excludes.v[3]);
	assert_int_equal(argc, 1);
}

static void list_options_stop_at_their_limit(void **state)
{
	(void)state;
	char *argv[2 * RTK_OPT_LIST_MAX + 4] = { "x" };
	int argc, n = 1;
	for (int i = 0; i <= RTK_OPT_LIST_MAX; i++) {
		argv[n++] = "-x";
		argv[n++] = "g";
	}
	argv[n] = NULL;
	assert_int_equal(parse(&argc, argv), RTK_EXIT_USAGE);
	assert_string_equal(rtk_error_message(), "--exclude may be given at most 1024 times");
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(list_options_collect_every_use),
	cmocka_unit_test(list_options_stop_at_their_limit),
	cmocka_unit_test(all_forms_parse),
	cmocka_unit_test(short_forms_and_bundles),
	cmocka_unit_test(double_dash_ends_options),
	cmocka_unit_test(errors_name_the_option),
	cmocka_unit_test(help_lists_every_option),
};

RTK_UNIT_MAIN(tests)
