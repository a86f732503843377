/* src/llm/reflect_settings.h — what a reflection run asks which model where, from flags, the environment and config files. */
#ifndef RTK_REFLECT_SETTINGS_H
#define RTK_REFLECT_SETTINGS_H

#include "rules/secrets.h"

#include <stdbool.h>

/* The shipped defaults, merged under the user's config file. */
#define REFLECT_SETTINGS_DEFAULTS "data/reflect.yaml"

/* What the caller was given; NULL for anything not given. */
struct reflect_settings_flags {
	const char *config;       /* the user config; NULL: ~/.config/rtk/config.yaml ($XDG_CONFIG_HOME first) when present */
	const char *api_key_file; /* the API key, alone in a file (trailing blanks dropped) */
	const char *base_url;     /* the OpenAI-compatible API base */
	const char *model;        /* a model id, or an alias from the config's llm.models */
	const char *secrets;      /* secret patterns merged over the shipped ones */
	const char *lang;         /* "zh" or "en": the prompt data/prompts/reflect.LANG.md; required */
	bool no_json_mode;        /* do not ask for response_format json_object */
};

/* The settings resolved; every pointer is owned and freed by reflect_settings_free. */
struct reflect_settings {
	char *base_url;           /* without trailing '/' */
	char *url;                /* base_url + "/chat/completions" */
	char *api_key;            /* NULL when none was found; wiped when freed */
	char *model_alias;        /* as given (flag, else llm.model, else gemini-flash) */
	char *model_id;           /* what the alias stands for in llm.models, else the alias itself */
	char *system_prompt;
	char *config_file;        /* the user config used, or NULL */
	char *lang;
	bool json_mode;
	char config_sha256[65];   /* of the merged config without llm.api_key */
	char secrets_sha256[65], prompt_sha256[65];
	struct secrets *secrets;
};

/*
 * Fills *s (zeroed by the caller) from f, then the environment, then the user config over
 * REFLECT_SETTINGS_DEFAULTS. The key comes from f->api_key_file, else RTK_LLM_API_KEY,
 * GEMINI_API_KEY, OPENAI_API_KEY, else llm.api_key; the base URL from f->base_url, else
 * RTK_LLM_BASE_URL, else llm.base_url. 0, RTK_EXIT_USAGE for a bad config (naming file:line) or
 * no base URL, or RTK_EXIT_FAILURE for a file that cannot be read. Call reflect_settings_free either way.
 */
int reflect_settings_load(struct reflect_settings *s, const struct reflect_settings_flags *f);

void reflect_settings_free(struct reflect_settings *s);

/* Overwrites every occurrence of the API key in text with asterisks (a key shorter than 4 is left). */
void reflect_settings_mask_key(const struct reflect_settings *s, char *text);

#endif
