/* tests/unit/test_datadir.c — finding shipped data, merging rule overrides, and the rules digest. */
#include "unit.h"
#include "lib/datadir.h"
#include "lib/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[] = "/tmp/rtk-datadir-XXXXXX";

static void write_file(const char *rel, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	char path[256];
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/data", dir);
	mkdir(path, 0755);
	setenv("RTK_DATADIR", dir, 1);
	write_file("data/r.yaml", "thresholds: {min: 20, share: 0.15}\npatterns: [a, b]\nname: shipped\n");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void env_names_the_folder(void **state)
{
	(void)state;
	assert_string_equal(rtk_data_dir(), dir);
	char *p = rtk_data_path("data/r.yaml");
	char want[256];
	snprintf(want, sizeof(want), "%s/data/r.yaml", dir);
	assert_string_equal(p, want);
	free(p);
}

static void overrides_merge_objects_and_replace_the_rest(void **state)
{
	(void)state;
	cJSON *rules;
	char sha_plain[65], sha_override[65], path[256];
	assert_int_equal(rtk_data_rules_load("data/r.yaml", NULL, NULL, &rules, sha_plain), 0);
	char *text = cJSON_PrintUnformatted(rules);
	assert_string_equal(text, "{\"thresholds\":{\"min\":20,\"share\":0.15},\"patterns\":[\"a\",\"b\"],\"name\":\"shipped\"}");
	free(text);
	cJSON_Delete(rules);

	write_file("user.yaml", "thresholds: {share: 0.2}\npatterns: [c]\nextra: 1\n");
	snprintf(path, sizeof(path), "%s/user.yaml", dir);
	assert_int_equal(rtk_data_rules_load("data/r.yaml", path, "extra: 0\n", &rules, sha_override), 0);
	text = cJSON_PrintUnformatted(rules);
	assert_string_equal(text, "{\"thresholds\":{\"min\":20,\"share\":0.2},\"patterns\":[\"c\"],\"name\":\"shipped\",\"extra\":1}");
	free(text);
	cJSON_Delete(rules);
	assert_int_equal(strlen(sha_plain), 64);
	assert_string_not_equal(sha_plain, sha_override);

	/* The digest is of the rules, not of the file's spelling. */
	write_file("same.yaml", "name:   'shipped'   # a comment\n");
	snprintf(path, sizeof(path), "%s/same.yaml", dir);
	char sha_same[65];
	assert_int_equal(rtk_data_rules_load("data/r.yaml", path, NULL, &rules, sha_same), 0);
	assert_string_equal(sha_same, sha_plain);
	cJSON_Delete(rules);
}

static void bad_override_is_named(void **state)
{
	(void)state;
	cJSON *rules;
	char sha[65], path[256];
	write_file("list.yaml", "- 1\n");
	snprintf(path, sizeof(path), "%s/list.yaml", dir);
	assert_int_equal(rtk_data_rules_load("data/r.yaml", path, NULL, &rules, sha), RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "list.yaml: a rule file must be a mapping"));
	assert_int_equal(rtk_data_rules_load("data/missing.yaml", NULL, NULL, &rules, sha), RTK_EXIT_FAILURE);
	assert_non_null(strstr(rtk_error_message(), "data/missing.yaml: No such file"));
}

static void unknown_override_keys_are_named_with_the_nearest(void **state)
{
	(void)state;
	cJSON *rules = NULL;
	char sha[65], path[256];
	snprintf(path, sizeof(path), "%s/typo.yaml", dir);

	write_file("typo.yaml", "name: mine\nthresholds:\n  shar: 0.2\n");
	assert_int_equal(rtk_data_rules_load("data/r.yaml", path, NULL, &rules, sha), RTK_EXIT_USAGE);
	assert_null(rules);
	assert_non_null(strstr(rtk_error_message(), "typo.yaml:3:3: unknown key `shar` in `thresholds`: did you mean `share`?"));

	/* a key only the reader knows (known_extra) is no typo, and a quoted number is the number */
	write_file("typo.yaml", "extra: [x]\nthresholds: {share: '0.2'}\n");
	assert_int_equal(rtk_data_rules_load("data/r.yaml", path, NULL, &rules, sha), RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "typo.yaml:1:1: unknown key `extra`: the known keys are `thresholds`, `patterns`, `name`"));
	assert_int_equal(rtk_data_rules_load("data/r.yaml", path, "extra: []\n", &rules, sha), 0);
	char *text = cJSON_PrintUnformatted(rules);
	assert_string_equal(text, "{\"thresholds\":{\"min\":20,\"share\":0.2},\"patterns\":[\"a\",\"b\"],\"name\":\"shipped\",\"extra\":[\"x\"]}");
	free(text);
	cJSON_Delete(rules);

	write_file("typo.yaml", "thresholds: {min: twenty}\n");
	assert_int_equal(rtk_data_rules_load("data/r.yaml", path, NULL, &rules, sha), RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "typo.yaml:1:14: `thresholds.min` must be a number, not \"twenty\""));
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(unknown_override_keys_are_named_with_the_nearest),
	cmocka_unit_test(env_names_the_folder),
	cmocka_unit_test(overrides_merge_objects_and_replace_the_rest),
	cmocka_unit_test(bad_override_is_named),
};

int main(int argc, char **argv)
{
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name(__FILE__, tests, setup, teardown);
}
