/* tests/unit/test_secrets.c — the shipped secret patterns against real-looking keys, and the scanner's rules. */
#include "unit.h"
#include "lib/err.h"
#include "rules/secrets.h"
#include "lib/strbuf.h"
#include "lib/yamlx.h"

#include <stdlib.h>
#include <string.h>

static struct secrets *shipped(void)
{
	struct secrets *s;
	char sha[65];
	assert_int_equal(secrets_load(NULL, &s, sha), 0);
	assert_int_equal(strlen(sha), 64);
	return s;
}

static void expect(struct secrets *s, const char *in, const char *want, unsigned want_count)
{
	unsigned count;
	size_t len;
	char *out = secrets_redact(s, in, strlen(in), &len, &count);
	assert_non_null(out);
	assert_string_equal(out, want);
	assert_int_equal(len, strlen(want));
	assert_int_equal(count, want_count);
	free(out);
}

static void shipped_patterns_catch_each_kind(void **state)
{
	(void)state;
	struct secrets *s = shipped();
	expect(s, "key sk-abcdefghijklmnop1234 end", "key [REDACTED:openai_key] end", 1);
	expect(s, "sk-or-v1-0123456789abcdef0123", "[REDACTED:openrouter_key]", 1);
	expect(s, "t=tvly-ABCDEFGHIJKLMNOPQRST", "t=[REDACTED:tavily_key]", 1);
	expect(s, "gsk_ABCDEFGHIJKLMNOPQRSTUVWX", "[REDACTED:groq_key]", 1);
	expect(s, "AIzaSyA1234567890abcdefghijklmnopqrstu", "[REDACTED:google_api_key]", 1);
	expect(s, "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[REDACTED:github_token]", 1);
	expect(s, "Authorization: Bearer eyJhbGciOi.J9.abc", "Authorization: Bearer [REDACTED:bearer_token]", 1);
	expect(s, "GET https://x.io/v1?q=1&api_key=s3cr3t&z=2 and ?token=abc#f",
	       "GET https://x.io/v1?q=1&api_key=[REDACTED:url_credential]&z=2 and ?token=[REDACTED:url_credential]#f", 2);
	/* Chinese text around a key is kept byte for byte. */
	expect(s, "密钥是sk-abcdefghijklmnop1234，别泄露", "密钥是[REDACTED:openai_key]，别泄露", 1);
	secrets_free(s);
}

static void ordinary_text_is_left_alone(void **state)
{
	(void)state;
	struct secrets *s = shipped();
	expect(s, "ask-me tasks sk-short bearer x the token economy", "ask-me tasks sk-short bearer x the token economy", 0);
	expect(s, "", "", 0);
	/* NUL bytes and invalid UTF-8 do not stop the scan. */
	unsigned count;
	size_t len;
	char *out = secrets_redact(s, "\xff\0 sk-abcdefghijklmnop1234", 26, &len, &count);
	assert_int_equal(count, 1);
	assert_int_equal(len, 3 + strlen("[REDACTED:openai_key]"));
	free(out);
	secrets_free(s);
}

static void first_listed_pattern_wins_at_one_place(void **state)
{
	(void)state;
	cJSON *rules;
	struct secrets *s;
	const char *y = "replacement: '<{name}>'\npatterns:\n  - {name: long, regex: 'abc+'}\n  - {name: short, regex: 'ab'}\n  - {name: later, regex: 'x+'}\n";
	assert_int_equal(rtk_yaml_load(y, strlen(y), "t", &rules), 0);
	assert_int_equal(secrets_compile(rules, "t", &s), 0);
	/* "abccc" is both, and the first-listed long one wins; the lone "ab" is only short. */
	expect(s, "xx abccc ab", "<later> <long> <short>", 3);
	cJSON_Delete(rules);
	secrets_free(s);
}

static void extra_patterns_add_to_the_list(void **state)
{
	(void)state;
	cJSON *rules;
	struct secrets *s;
	const char *y = "patterns:\n  - {name: a, regex: 'aaa'}\nextra_patterns:\n  - {name: b, regex: 'bbb'}\n";
	assert_int_equal(rtk_yaml_load(y, strlen(y), "t", &rules), 0);
	assert_int_equal(secrets_compile(rules, "t", &s), 0);
	expect(s, "aaa bbb", "[REDACTED:a] [REDACTED:b]", 2);
	cJSON_Delete(rules);
	secrets_free(s);
}

static void bad_rules_are_named(void **state)
{
	(void)state;
	cJSON *rules;
	struct secrets *s;
	const char *y = "patterns:\n  - {name: broken, regex: 'a(b'}\n";
	assert_int_equal(rtk_yaml_load(y, strlen(y), "t", &rules), 0);
	assert_int_equal(secrets_compile(rules, "my.yaml", &s), RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "my.yaml: secret pattern broken"));
	cJSON_Delete(rules);
	y = "patterns: nope\n";
	assert_int_equal(rtk_yaml_load(y, strlen(y), "t", &rules), 0);
	assert_int_equal(secrets_compile(rules, "my.yaml", &s), RTK_EXIT_USAGE);
	cJSON_Delete(rules);
}

static void run_plan_patterns_catch_literals_not_placeholders(void **state)
{
	(void)state;
	struct secrets *s = shipped();
	expect(s, "export TAVILY_API_KEY=abcd1234efgh", "export TAVILY_API_KEY=[REDACTED:search_api_credential]", 1);
	expect(s, "BRAVE_SEARCH_API_KEY: \"BSAx9f8e7d6c\"", "BRAVE_SEARCH_API_KEY: \"[REDACTED:search_api_credential]\"", 1);
	expect(s, "DASHSCOPE_MCP_URL=https://mcp.example/sse?x=1",
	       "DASHSCOPE_MCP_URL=[REDACTED:search_api_credential]", 1);
	/* short keys count after : or =, where the generic sk- pattern wants 16 characters */
	expect(s, "key: sk-0123456789", "key: [REDACTED:key_after_assignment]", 1);
	expect(s, "t=tvly-abcdefghij", "t=[REDACTED:key_after_assignment]", 1);
	expect(s, "an sk-0123456789 in prose", "an sk-0123456789 in prose", 0);
	expect(s, "https://mcp.tavily.com/mcp/?tavilyApiKey=tvly-abc",
	       "https://mcp.tavily.com/mcp/?tavilyApiKey=[REDACTED:url_credential]", 1);
	/* placeholders name a secret without holding one */
	expect(s, "TAVILY_API_KEY=${TAVILY_API_KEY}", "TAVILY_API_KEY=${TAVILY_API_KEY}", 0);
	expect(s, "BRAVE_API_KEY: <your key here>", "BRAVE_API_KEY: <your key here>", 0);
	expect(s, "curl 'https://x.io/?api_key=${KEY}'", "curl 'https://x.io/?api_key=${KEY}'", 0);
	secrets_free(s);
}

static void the_allowlist_pragma_exempts_its_line_only(void **state)
{
	(void)state;
	struct secrets *s = shipped();
	expect(s, "k = 'sk-abcdefghijklmnop1234'  # pragma: allowlist-secret why=TEST_VECTOR",
	       "k = 'sk-abcdefghijklmnop1234'  # pragma: allowlist-secret why=TEST_VECTOR", 0);
	expect(s, "DOCS: TAVILY_API_KEY=tvly-abcdefghijklmnop pragma: allowlist-secret why=DOCS_EXAMPLE",
	       "DOCS: TAVILY_API_KEY=tvly-abcdefghijklmnop pragma: allowlist-secret why=DOCS_EXAMPLE", 0);
	/* any other why is not an exemption, nor is a pragma on another line */
	expect(s, "sk-abcdefghijklmnop1234 # pragma: allowlist-secret why=BECAUSE",
	       "[REDACTED:openai_key] # pragma: allowlist-secret why=BECAUSE", 1);
	expect(s, "# pragma: allowlist-secret why=FIXTURE\nsk-abcdefghijklmnop1234\n",
	       "# pragma: allowlist-secret why=FIXTURE\n[REDACTED:openai_key]\n", 1);
	expect(s, "sk-abcdefghijklmnop1234 why=FIXTUREX pragma: allowlist-secret why=FIXTURES",
	       "[REDACTED:openai_key] why=FIXTUREX pragma: allowlist-secret why=FIXTURES", 1);
	secrets_free(s);
}

/* Feeds pieces (the last one not cut) and returns everything the stream let out, joined. */
static char *stream_all(struct secrets_stream *st, const char *const *pieces, unsigned *count)
{
	struct rtk_strbuf all = { 0 };
	*count = 0;
	for (size_t i = 0; pieces[i]; i++) {
		unsigned n = 0;
		size_t len;
		char *clean = secrets_stream_redact(st, pieces[i], strlen(pieces[i]), pieces[i + 1] != NULL, &len, &n);
		assert_non_null(clean);
		rtk_strbuf_put(&all, clean, len);
		*count += n;
		free(clean);
	}
	return rtk_strbuf_take(&all);
}

static void a_stream_finds_a_secret_cut_in_two(void **state)
{
	(void)state;
	struct secrets *s = shipped();
	struct secrets_stream st = { .s = s };
	char filler[600];
	unsigned count;
	memset(filler, 'x', sizeof(filler) - 1);
	filler[sizeof(filler) - 1] = '\0';
	/* the cut falls inside the key: neither piece alone holds a whole one */
	char first[700];
	snprintf(first, sizeof(first), "%s key=sk-abcdefgh", filler);
	const char *pieces[] = { first, "ijklmnopqrst tail", NULL };
	char *out = stream_all(&st, pieces, &count);
	assert_int_equal(count, 1);
	assert_null(strstr(out, "abcdefgh"));
	assert_non_null(strstr(out, "key=[REDACTED:"));
	assert_non_null(strstr(out, "tail"));
	assert_int_equal(strncmp(out, filler, sizeof(filler) - 1), 0); /* nothing else lost or moved */
	free(out);
	/* the carry is spent: a next line starts clean */
	const char *next[] = { "plain line", NULL };
	out = stream_all(&st, next, &count);
	assert_string_equal(out, "plain line");
	assert_int_equal(count, 0);
	free(out);
	secrets_stream_free(&st);
	secrets_free(s);
}

/* The held-back end of a cut piece starts inside a key: the part before it alone matches no pattern. */
static void a_stream_finds_a_secret_that_runs_into_the_held_back_end(void **state)
{
	(void)state;
	struct secrets *s = shipped();
	const char *token = "ghp_A1b2A1b2A1b2A1b2A1b2A1b2A1b2A1b2A1b2";
	char first[1001];
	unsigned count;
	for (size_t before = 1; before < strlen(token); before++) {
		struct secrets_stream st = { .s = s };
		/* the token starts `before` bytes ahead of the last SECRETS_STREAM_CARRY bytes of the piece */
		size_t at = sizeof(first) - 1 - SECRETS_STREAM_CARRY - before;
		memset(first, 'x', sizeof(first) - 1);
		first[sizeof(first) - 1] = '\0';
		memcpy(first + at, token, strlen(token));
		const char *pieces[] = { first, "yyyy tail", NULL };
		char *out = stream_all(&st, pieces, &count);
		assert_int_equal(count, 1);
		assert_null(strstr(out, "A1b2A1b2"));
		assert_non_null(strstr(out, "[REDACTED:github_token]"));
		assert_int_equal(strncmp(out, first, at), 0);
		assert_non_null(strstr(out, "yyyy tail"));
		free(out);
		secrets_stream_free(&st);
	}
	secrets_free(s);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(a_stream_finds_a_secret_cut_in_two),
	cmocka_unit_test(a_stream_finds_a_secret_that_runs_into_the_held_back_end),
	cmocka_unit_test(run_plan_patterns_catch_literals_not_placeholders),
	cmocka_unit_test(the_allowlist_pragma_exempts_its_line_only),
	cmocka_unit_test(shipped_patterns_catch_each_kind),
	cmocka_unit_test(ordinary_text_is_left_alone),
	cmocka_unit_test(first_listed_pattern_wins_at_one_place),
	cmocka_unit_test(extra_patterns_add_to_the_list),
	cmocka_unit_test(bad_rules_are_named),
};

RTK_UNIT_MAIN(tests)
