/* tests/unit/test_reflect_settings.c — reflection settings from flags, the environment and real config files in a scratch folder. */
#include "unit.h"

#include "lib/datadir.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/sha256.h"
#include "llm/reflect_settings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fixture {
	char dir[64];
	struct reflect_settings s;
};

static int setup(void **state)
{
	static const char *const cleared[] = { "RTK_LLM_BASE_URL", "RTK_LLM_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY",
					       "XDG_CONFIG_HOME", NULL };
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || unit_mkdtemp(f->dir, "reflect-settings"))
		return -1;
	/* Nothing of the machine's own: no keys, no config, a home of our own. */
	for (const char *const *name = cleared; *name; name++)
		unsetenv(*name);
	setenv("HOME", f->dir, 1);
	if (!getenv("RTK_DATADIR"))
		setenv("RTK_DATADIR", getenv("RTK_SRCDIR") ? getenv("RTK_SRCDIR") : ".", 1);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	int rc = unit_remove_tree(f->dir);

	reflect_settings_free(&f->s);
	free(f);
	return rc;
}

/* Writes text to DIR/REL (its folder made) and gives the path (one of a ring of static buffers). */
static const char *put(const struct fixture *f, const char *rel, const char *text)
{
	static char ring[4][256];
	static int next;
	char *path = ring[next++ % 4], folder[256];

	snprintf(path, sizeof(ring[0]), "%s/%s", f->dir, rel);
	snprintf(folder, sizeof(folder), "%.*s", (int)(strrchr(path, '/') - path), path);
	assert_int_equal(rtk_fs_mkdir_p(folder, 0700), 0);
	assert_int_equal(rtk_fs_write_file_atomic(path, text, strlen(text)), 0);
	return path;
}

static int load(struct fixture *f, const struct reflect_settings_flags *flags)
{
	reflect_settings_free(&f->s);
	return reflect_settings_load(&f->s, flags);
}

static void shipped_defaults_without_a_config(void **state)
{
	struct fixture *f = *state;
	struct reflect_settings_flags flags = { .lang = "zh" };
	char *prompt_path = rtk_data_path("data/prompts/reflect.zh.md"), *prompt, sha[65];
	size_t len;

	assert_int_equal(load(f, &flags), 0);
	assert_string_equal(f->s.base_url, "https://generativelanguage.googleapis.com/v1beta/openai");
	assert_string_equal(f->s.url, "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions");
	assert_string_equal(f->s.model_alias, "gemini-flash");
	assert_string_equal(f->s.model_id, "gemini-2.5-flash");
	assert_null(f->s.api_key);
	assert_null(f->s.config_file);
	assert_true(f->s.json_mode);
	assert_string_equal(f->s.lang, "zh");
	assert_non_null(f->s.secrets);
	assert_int_equal(rtk_fs_read_file(prompt_path, &prompt, &len), 0);
	assert_string_equal(f->s.system_prompt, prompt);
	rtk_sha256_hex(prompt, len, sha);
	assert_string_equal(f->s.prompt_sha256, sha);
	free(prompt), free(prompt_path);
	/* A model not in the alias table is a model id of its own. */
	flags.model = "some-model-7";
	flags.no_json_mode = true;
	flags.lang = "en";
	assert_int_equal(load(f, &flags), 0);
	assert_string_equal(f->s.model_id, "some-model-7");
	assert_false(f->s.json_mode);
	assert_non_null(strstr(f->s.system_prompt, "You review a task"));
}

static void a_config_file_is_merged_over_the_defaults(void **state)
{
	struct fixture *f = *state;
	struct reflect_settings_flags flags = { .lang = "zh" };
	char defaults_sha[65];

	assert_int_equal(load(f, &flags), 0);
	memcpy(defaults_sha, f->s.config_sha256, sizeof(defaults_sha));
	flags.config = put(f, "c.yaml", "llm:\n  base_url: http://127.0.0.1:9/v1//\n  model: fast\n  models:\n    fast: my-model-1\n");
	assert_int_equal(load(f, &flags), 0);
	assert_string_equal(f->s.config_file, flags.config);
	assert_string_equal(f->s.base_url, "http://127.0.0.1:9/v1");
	assert_string_equal(f->s.url, "http://127.0.0.1:9/v1/chat/completions");
	assert_string_equal(f->s.model_alias, "fast");
	assert_string_equal(f->s.model_id, "my-model-1");
	assert_string_not_equal(f->s.config_sha256, defaults_sha);
	/* The shipped aliases are still there beside the user's. */
	flags.model = "gemini-pro";
	assert_int_equal(load(f, &flags), 0);
	assert_string_equal(f->s.model_id, "gemini-2.5-pro");
	/* A flag comes before the environment, which comes before the config. */
	setenv("RTK_LLM_BASE_URL", "http://from-env/v1", 1);
	assert_int_equal(load(f, &flags), 0);
	assert_string_equal(f->s.base_url, "http://from-env/v1");
	flags.base_url = "http://from-flag/v1/";
	assert_int_equal(load(f, &flags), 0);
	assert_string_equal(f->s.base_url, "http://from-flag/v1");
}

static void the_default_config_is_found_in_xdg_or_home(void **state)
{
	struct fixture *f = *state;
	struct reflect_settings_flags flags = { .lang = "zh" };
	char want[256];

	put(f, ".config/rtk/config.yaml", "llm:\n  models:\n    gemini-flash: from-home\n");
	assert_int_equal(load(f, &flags), 0);
	snprintf(want, sizeof(want), "%s/.config/rtk/config.yaml", f->dir);
	assert_string_equal(f->s.config_file, want);
	assert_string_equal(f->s.model_id, "from-home");
	put(f, "xdg/rtk/config.yaml", "llm:\n  models:\n    gemini-flash: from-xdg\n");
	snprintf(want, sizeof(want), "%s/xdg", f->dir);
	setenv("XDG_CONFIG_HOME", want, 1);
	assert_int_equal(load(f, &flags), 0);
	assert_string_equal(f->s.model_id, "from-xdg");
	/* An XDG folder without the file means no config at all, not the one in HOME. */
	snprintf(want, sizeof(want), "%s/empty-xdg", f->dir);
	setenv("XDG_CONFIG_HOME", want, 1);
	assert_int_equal(load(f, &flags), 0);
	assert_null(f->s.config_file);
	assert_string_equal(f->s.model_id, "gemini-2.5-flash");
}

static void the_key_comes_from_the_file_then_env_then_config(void **state)
{
	struct fixture *f = *state;
	struct reflect_settings_flags flags = { .lang = "zh" };
	char with_key_sha[65];

	flags.config = put(f, "k.yaml", "llm:\n  api_key: key-from-config\n");
	assert_int_equal(load(f, &flags), 0);
	assert_string_equal(f->s.api_key, "key-from-config");
	memcpy(with_key_sha, f->s.config_sha256, sizeof(with_key_sha));
	setenv("OPENAI_API_KEY", "key-openai", 1);
	assert_int_equal(load(f, &flags), 0);
	assert_string_equal(f->s.api_key, "key-openai");
	setenv("GEMINI_API_KEY", "key-gemini", 1);
	assert_int_equal(load(f, &flags), 0);
	assert_string_equal(f->s.api_key, "key-gemini");
	setenv("RTK_LLM_API_KEY", "key-rtk", 1);
	assert_int_equal(load(f, &flags), 0);
	assert_string_equal(f->s.api_key, "key-rtk");
	/* The file's trailing newline and blanks are not part of the key. */
	flags.api_key_file = put(f, "key.txt", "key-from-file \r\n");
	assert_int_equal(load(f, &flags), 0);
	assert_string_equal(f->s.api_key, "key-from-file");
	/* The key is not hashed: the same config without it has the same hash. */
	flags.config = put(f, "nokey.yaml", "llm: {}\n");
	assert_int_equal(load(f, &flags), 0);
	assert_string_equal(f->s.config_sha256, with_key_sha);
}

static void a_key_file_that_cannot_be_read_is_named(void **state)
{
	struct fixture *f = *state;
	struct reflect_settings_flags flags = { .lang = "zh" };
	char path[128], want[192];

	snprintf(path, sizeof(path), "%s/missing.txt", f->dir);
	flags.api_key_file = path;
	assert_int_equal(load(f, &flags), RTK_EXIT_FAILURE);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	assert_string_equal(rtk_error_message(), want);
	/* "-" is a file of that name, as for any other file option, and named "-". */
	flags.api_key_file = "-";
	assert_int_equal(load(f, &flags), RTK_EXIT_FAILURE);
	assert_string_equal(rtk_error_message(), "-: No such file or directory");
}

static void a_bad_config_is_named_with_its_line(void **state)
{
	struct fixture *f = *state;
	struct reflect_settings_flags flags = { .lang = "zh" };
	char want[192];

	flags.config = put(f, "bad.yaml", "llm:\n  base_url: [\n");
	assert_int_equal(load(f, &flags), RTK_EXIT_USAGE);
	snprintf(want, sizeof(want), "%s:3:", flags.config);
	assert_memory_equal(rtk_error_message(), want, strlen(want));
}

static void no_base_url_is_a_usage_error(void **state)
{
	struct fixture *f = *state;
	struct reflect_settings_flags flags = { .lang = "zh" };

	flags.config = put(f, "nourl.yaml", "llm:\n  base_url: \"\"\n");
	assert_int_equal(load(f, &flags), RTK_EXIT_USAGE);
	assert_string_equal(rtk_error_message(),
			    "no base URL: give --base-url, RTK_LLM_BASE_URL or llm.base_url in the config");
}

static void extra_secret_patterns_are_loaded(void **state)
{
	struct fixture *f = *state;
	struct reflect_settings_flags flags = { .lang = "zh" };
	char shipped_sha[65];

	assert_int_equal(load(f, &flags), 0);
	memcpy(shipped_sha, f->s.secrets_sha256, sizeof(shipped_sha));
	flags.secrets = put(f, "s.yaml", "extra_patterns:\n  - {name: ticket, regex: \"INTERNAL-[0-9]+\"}\n");
	assert_int_equal(load(f, &flags), 0);
	assert_string_not_equal(f->s.secrets_sha256, shipped_sha);
	char *out = secrets_redact(f->s.secrets, "see INTERNAL-4711", 17, 0, NULL, NULL);
	assert_string_equal(out, "see [REDACTED:ticket]");
	free(out);
}

static void the_key_is_masked_in_messages(void **state)
{
	struct fixture *f = *state;
	char text[] = "GET /x?key=sk-KEY1 failed: sk-KEY1 refused";
	char short_key[] = "ab: ab";

	f->s.api_key = strdup("sk-KEY1");
	reflect_settings_mask_key(&f->s, text);
	assert_string_equal(text, "GET /x?key=******* failed: ******* refused");
	/* A key too short to be one is not hunted for in ordinary text. */
	free(f->s.api_key);
	f->s.api_key = strdup("ab");
	reflect_settings_mask_key(&f->s, short_key);
	assert_string_equal(short_key, "ab: ab");
	reflect_settings_mask_key(&f->s, NULL);
}

#define TEST(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

static const struct CMUnitTest tests[] = {
	TEST(shipped_defaults_without_a_config),
	TEST(a_config_file_is_merged_over_the_defaults),
	TEST(the_default_config_is_found_in_xdg_or_home),
	TEST(the_key_comes_from_the_file_then_env_then_config),
	TEST(a_key_file_that_cannot_be_read_is_named),
	TEST(a_bad_config_is_named_with_its_line),
	TEST(no_base_url_is_a_usage_error),
	TEST(extra_secret_patterns_are_loaded),
	TEST(the_key_is_masked_in_messages),
};

RTK_UNIT_MAIN(tests)
