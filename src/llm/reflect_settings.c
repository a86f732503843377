/* src/llm/reflect_settings.c — what a reflection run asks which model where, from flags, the environment and config files. */
#include "config.h"
#include "reflect_settings.h"
#include "lib/datadir.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/out.h"
#include "lib/sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *reflect_settings_first_env(const char *const *names)
{
	for (; *names; names++) {
		const char *v = getenv(*names);
		if (v && *v)
			return v;
	}
	return NULL;
}

/* ~/.config/rtk/config.yaml ($XDG_CONFIG_HOME first), malloc'd, when it exists; else NULL. */
static char *reflect_settings_default_config(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char *path = NULL;
	int n = -1;
	if (xdg && *xdg)
		n = asprintf(&path, "%s/rtk/config.yaml", xdg);
	else if (home && *home)
		n = asprintf(&path, "%s/.config/rtk/config.yaml", home);
	if (n < 0 || access(path, F_OK) != 0) {
		free(n < 0 ? NULL : path);
		return NULL;
	}
	return path;
}

/* The key alone in a file: a trailing newline (or CRLF, or blanks) is not part of it. */
static int reflect_settings_read_key(const char *path, char **key)
{
	/* Like any other file option, "-" is a file of that name, not standard input. */
	int dash = !strcmp(path, "-");
	char *text;
	size_t len;
	int rc = rtk_fs_read_file(dash ? "./-" : path, &text, &len);

	if (rc && dash) {
		char *why = strdup(rtk_error_message() + 2);
		rc = why ? rtk_fail(rc, "%s", why) : rtk_oom();
		free(why);
	}
	if (rc)
		return rc;
	len = strlen(text);
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\r' || text[len - 1] == ' '))
		len--;
	*key = strndup(text, len);
	explicit_bzero(text, strlen(text));
	free(text);
	return *key ? 0 : rtk_oom();
}

/* The key from the flag, else the environment, else the config (config_key, already taken out of it). */
static int reflect_settings_key(struct reflect_settings *s, const struct reflect_settings_flags *f, const cJSON *config_key)
{
	static const char *const key_env[] = { "RTK_LLM_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY", NULL };
	const char *v;

	if (f->api_key_file)
		return reflect_settings_read_key(f->api_key_file, &s->api_key);
	if ((v = reflect_settings_first_env(key_env)))
		s->api_key = strdup(v);
	else if (cJSON_IsString(config_key) && *config_key->valuestring)
		s->api_key = strdup(config_key->valuestring);
	else
		return 0;
	return s->api_key ? 0 : rtk_oom();
}

/* Where to send requests, and which model to name in them. */
static int reflect_settings_endpoint(struct reflect_settings *s, const struct reflect_settings_flags *f, const cJSON *llm)
{
	static const char *const base_env[] = { "RTK_LLM_BASE_URL", NULL };
	const char *v = f->base_url ? f->base_url : reflect_settings_first_env(base_env);
	const char *model = rtk_out_json_str(llm, "model");

	s->base_url = strdup(v ? v : rtk_out_json_str(llm, "base_url"));
	s->model_alias = strdup(f->model ? f->model : *model ? model : "gemini-flash");
	v = s->model_alias ? rtk_out_json_str(cJSON_GetObjectItemCaseSensitive(llm, "models"), s->model_alias) : "";
	s->model_id = strdup(*v ? v : s->model_alias ? s->model_alias : "");
	if (!s->base_url || !s->model_alias || !s->model_id)
		return rtk_oom();
	if (!*s->base_url)
		return rtk_fail(RTK_EXIT_USAGE, "no base URL: give --base-url, RTK_LLM_BASE_URL or llm.base_url in the config");
	size_t blen = strlen(s->base_url);
	while (blen && s->base_url[blen - 1] == '/')
		s->base_url[--blen] = '\0';
	if (asprintf(&s->url, "%s/chat/completions", s->base_url) < 0) {
		s->url = NULL;
		return rtk_oom();
	}
	return 0;
}

/* The config: shipped defaults with the user's file merged on top, hashed without its key. */
static int reflect_settings_config(struct reflect_settings *s, const struct reflect_settings_flags *f)
{
	/* Beyond data/reflect.yaml's keys: the API key, model names the user picks, and rtk loop's agent
	 * (the same file; rtk-loop(1)). */
	static const char known_extra[] = "llm: {api_key: ~, models: {'*': ~}}\nloop: {agent: ~}\n";
	cJSON *config, *llm, *key;
	int rc;

	if (f->config && !(s->config_file = strdup(f->config)))
		return rtk_oom();
	if (!f->config)
		s->config_file = reflect_settings_default_config();
	if ((rc = rtk_data_rules_load(REFLECT_SETTINGS_DEFAULTS, s->config_file, known_extra, &config, s->config_sha256)))
		return rc;
	llm = cJSON_GetObjectItemCaseSensitive(config, "llm");
	/* The key never reaches the output, not even hashed: take it out before hashing what is left. */
	key = cJSON_DetachItemFromObjectCaseSensitive(llm, "api_key");
	if (!(rc = rtk_data_json_sha256(config, s->config_sha256)) && !(rc = reflect_settings_key(s, f, key)))
		rc = reflect_settings_endpoint(s, f, llm);
	cJSON_Delete(key);
	cJSON_Delete(config);
	return rc;
}

static int reflect_settings_prompt(struct reflect_settings *s)
{
	char rel[64], *path;
	size_t len;
	int rc;

	snprintf(rel, sizeof(rel), "data/prompts/reflect.%s.md", s->lang);
	if (!(path = rtk_data_path(rel)))
		return rtk_oom();
	rc = rtk_fs_read_file(path, &s->system_prompt, &len);
	free(path);
	if (rc)
		return rc;
	rtk_sha256_hex(s->system_prompt, strlen(s->system_prompt), s->prompt_sha256);
	return 0;
}

int reflect_settings_load(struct reflect_settings *s, const struct reflect_settings_flags *f)
{
	int rc;

	s->json_mode = !f->no_json_mode;
	if (!(s->lang = strdup(f->lang)))
		return rtk_oom();
	if ((rc = reflect_settings_config(s, f)) || (rc = reflect_settings_prompt(s)))
		return rc;
	return secrets_load(f->secrets, &s->secrets, s->secrets_sha256);
}

void reflect_settings_free(struct reflect_settings *s)
{
	if (s->api_key) {
		/* Do not leave the key lying in freed memory. */
		explicit_bzero(s->api_key, strlen(s->api_key));
		free(s->api_key);
	}
	free(s->base_url), free(s->url), free(s->model_alias), free(s->model_id), free(s->system_prompt);
	free(s->config_file), free(s->lang);
	secrets_free(s->secrets);
	memset(s, 0, sizeof(*s));
}

void reflect_settings_mask_key(const struct reflect_settings *s, char *text)
{
	size_t klen = s->api_key ? strlen(s->api_key) : 0;
	char *at;
	if (klen < 4 || !text)
		return;
	while ((at = strstr(text, s->api_key)))
		memset(at, '*', klen);
}
