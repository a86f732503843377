/* tests/unit/test_secrets.c — the shipped secret patterns against real-looking keys, and the scanner's rules. */
#include "unit.h"
#include "lib/datadir.h"
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

static void expect_as(struct secrets *s, unsigned flags, const char *in, const char *want, unsigned want_count)
{
	unsigned count;
	size_t len;
	char *out = secrets_redact(s, in, strlen(in), flags, &len, &count);
	assert_non_null(out);
	assert_string_equal(out, want);
	assert_int_equal(len, strlen(want));
	assert_int_equal(count, want_count);
	free(out);
}

/* Untrusted text, as nearly every caller has. */
static void expect(struct secrets *s, const char *in, const char *want, unsigned want_count)
{
	expect_as(s, 0, in, want, want_count);
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
	char *out = secrets_redact(s, "\xff\0 sk-abcdefghijklmnop1234", 26, 0, &len, &count);
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

/* The sha256 reported with the rules (run-plan's and reflect's secrets_sha256) covers every field of a rule. */
static void the_rules_sha256_covers_entropy_and_continues_until(void **state)
{
	(void)state;
	cJSON *rules, *p;
	char shipped_sha[65], sha[65];
	assert_int_equal(rtk_data_rules_load(SECRETS_RULES, NULL, NULL, &rules, shipped_sha), 0);
	assert_int_equal(rtk_data_json_sha256(rules, sha), 0);
	assert_string_equal(sha, shipped_sha);
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(rules, "patterns")) {
		cJSON *e = cJSON_GetObjectItemCaseSensitive(p, "entropy"), *u = cJSON_GetObjectItemCaseSensitive(p, "continues_until");
		if (e)
			cJSON_SetNumberValue(e, e->valuedouble + 0.5);
		if (u)
			cJSON_SetValuestring(u, "-----END-----");
	}
	assert_int_equal(rtk_data_json_sha256(rules, sha), 0);
	assert_string_not_equal(sha, shipped_sha);
	cJSON_Delete(rules);
}

/* A pattern that can match nothing (an override's mistake) is passed over where it does, and stops no other. */
static void an_empty_match_stops_nothing(void **state)
{
	(void)state;
	cJSON *rules;
	struct secrets *s;
	const char *y = "patterns:\n  - {name: empty, regex: 'z*'}\n  - {name: key, regex: 'k[0-9]+'}\n";
	assert_int_equal(rtk_yaml_load(y, strlen(y), "t", &rules), 0);
	assert_int_equal(secrets_compile(rules, "t", &s), 0);
	expect(s, "a k1 b zz k22", "a [REDACTED:key] b [REDACTED:empty] [REDACTED:key]", 3);
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
	/* printed bare, a short key with a known prefix is one too (known_prefix_token) */
	expect(s, "an sk-0123456789 in prose", "an [REDACTED:known_prefix_token] in prose", 1);
	expect(s, "https://mcp.tavily.com/mcp/?tavilyApiKey=tvly-abc",
	       "https://mcp.tavily.com/mcp/?tavilyApiKey=[REDACTED:url_credential]", 1);
	/* placeholders name a secret without holding one */
	expect(s, "TAVILY_API_KEY=${TAVILY_API_KEY}", "TAVILY_API_KEY=${TAVILY_API_KEY}", 0);
	expect(s, "BRAVE_API_KEY: <your key here>", "BRAVE_API_KEY: <your key here>", 0);
	expect(s, "curl 'https://x.io/?api_key=${KEY}'", "curl 'https://x.io/?api_key=${KEY}'", 0);
	secrets_free(s);
}

/* In text a person wrote (SECRETS_TRUSTED), the pragma exempts its own line, with one of the whys listed. */
static void the_allowlist_pragma_exempts_its_line_only(void **state)
{
	(void)state;
	struct secrets *s = shipped();
	const unsigned T = SECRETS_TRUSTED;
	expect_as(s, T, "k = 'sk-abcdefghijklmnop1234'  # pragma: allowlist-secret why=TEST_VECTOR",
		  "k = 'sk-abcdefghijklmnop1234'  # pragma: allowlist-secret why=TEST_VECTOR", 0);
	expect_as(s, T, "DOCS: TAVILY_API_KEY=tvly-abcdefghijklmnop pragma: allowlist-secret why=DOCS_EXAMPLE",
		  "DOCS: TAVILY_API_KEY=tvly-abcdefghijklmnop pragma: allowlist-secret why=DOCS_EXAMPLE", 0);
	/* any other why is not an exemption, nor is a pragma on another line */
	expect_as(s, T, "sk-abcdefghijklmnop1234 # pragma: allowlist-secret why=BECAUSE",
		  "[REDACTED:openai_key] # pragma: allowlist-secret why=BECAUSE", 1);
	expect_as(s, T, "# pragma: allowlist-secret why=FIXTURE\nsk-abcdefghijklmnop1234\n",
		  "# pragma: allowlist-secret why=FIXTURE\n[REDACTED:openai_key]\n", 1);
	expect_as(s, T, "sk-abcdefghijklmnop1234 why=FIXTUREX pragma: allowlist-secret why=FIXTURES",
		  "[REDACTED:openai_key] why=FIXTUREX pragma: allowlist-secret why=FIXTURES", 1);
	secrets_free(s);
}

/* Untrusted text (what a process printed; the default): whoever made it could write the pragma too. */
static void untrusted_text_gets_no_exemption_from_the_pragma(void **state)
{
	(void)state;
	struct secrets *s = shipped();
	expect(s, "k = 'sk-abcdefghijklmnop1234'  # pragma: allowlist-secret why=TEST_VECTOR",
	       "k = '[REDACTED:openai_key]'  # pragma: allowlist-secret why=TEST_VECTOR", 1);
	expect(s, "DOCS: TAVILY_API_KEY=tvly-abcdefghijklmnop pragma: allowlist-secret why=DOCS_EXAMPLE",
	       "DOCS: TAVILY_API_KEY=[REDACTED:tavily_key] pragma: allowlist-secret why=DOCS_EXAMPLE", 1);
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


/*
 * A key anywhere near the cut: the stream holds back the last SECRETS_STREAM_CARRY bytes, and the
 * key may start before them (an ordinary long line, minified JSON, cut at proc's 64 KiB). Whatever
 * the cut, no piece of the key comes out.
 */
static void a_stream_cut_anywhere_in_a_key_lets_none_of_it_out(void **state)
{
	(void)state;
	struct secrets *s = shipped();
	const char *key = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef0123"; /* pragma: allowlist-secret why=TEST_VECTOR */
	size_t klen = strlen(key);
	char line[4096];
	memset(line, 'x', sizeof(line));
	for (size_t i = 0; i < sizeof(line); i += 50)
		line[i] = ','; /* minified JSON: short runs, no newline */
	size_t at = 2000;
	line[at - 1] = '"';
	memcpy(line + at, key, klen);
	line[sizeof(line) - 1] = '\0';
	for (size_t cut = at - SECRETS_STREAM_CARRY - 8; cut <= at + klen + 8; cut++) {
		struct secrets_stream st = { .s = s };
		struct rtk_strbuf all = { 0 };
		size_t n1, n2;
		unsigned c1 = 0, c2 = 0;
		/* the cut falls SECRETS_STREAM_CARRY bytes after the split point of the first piece and on */
		size_t first = cut + SECRETS_STREAM_CARRY;
		char *p1 = secrets_stream_redact(&st, line, first, true, &n1, &c1);
		char *p2 = secrets_stream_redact(&st, line + first, strlen(line) - first, false, &n2, &c2);
		assert_non_null(p1);
		assert_non_null(p2);
		rtk_strbuf_put(&all, p1, n1);
		rtk_strbuf_put(&all, p2, n2);
		assert_int_equal(c1 + c2, 1);
		assert_null(strstr(all.s, "ABCDEFGH"));
		assert_null(strstr(all.s, "abcdef0123"));
		assert_non_null(strstr(all.s, "[REDACTED:openai_key]"));
		free(p1);
		free(p2);
		rtk_strbuf_free(&all);
		secrets_stream_free(&st);
	}
	secrets_free(s);
}

/* line (NUL-terminated) redacted as a stream cut at cut, then whole: the two must be the same text. */
static void assert_cut_redacts_as_whole(const struct secrets *s, const char *line, size_t cut, const char *whole)
{
	struct secrets_stream st = { .s = s };
	struct rtk_strbuf all = { 0 };
	size_t n1, n2;
	char *p1 = secrets_stream_redact(&st, line, cut, true, &n1, NULL);
	char *p2 = secrets_stream_redact(&st, line + cut, strlen(line) - cut, false, &n2, NULL);
	assert_non_null(p1);
	assert_non_null(p2);
	rtk_strbuf_put(&all, p1, n1);
	rtk_strbuf_put(&all, p2, n2);
	if (strcmp(all.s, whole))
		fail_msg("cut at %zu of a %zu-byte line: the stream let out other text than the whole line's redaction", cut, strlen(line));
	free(p1);
	free(p2);
	rtk_strbuf_free(&all);
	secrets_stream_free(&st);
}

/*
 * Keys and the names before them longer than SECRETS_STREAM_CARRY (a TAVILY_API_KEY= value of up to
 * 4 KiB, a name far from its "API_KEY=", spaces after "Bearer"), cut anywhere from before the name to
 * past the key's end: the stream lets out exactly what redacting the whole line gives, so no cut lets a
 * piece of a key through that the whole line would have hidden.
 */
static void a_stream_cut_anywhere_in_a_key_longer_than_the_carry_redacts_as_the_whole_line(void **state)
{
	(void)state;
	struct secrets *s = shipped();
	/* the name before each key: head, then pad spaces, then tail */
	static const struct { const char *head; size_t pad; const char *tail; } names[] = {
		{ "\"TAVILY_API_KEY=", 0, "" }, { "\"TAVILY_SEARCH_FOR_THE_PRODUCTION_ACCOUNT_API_KEY: ", 0, "" },
		{ "TAVILY ", 600, " API_KEY=" }, { "Authorization: Bearer", 600, "" }, { "aws_secret_access_key =", 600, "" },
	};
	static const size_t lengths[] = { 40, SECRETS_STREAM_CARRY + 88, 4096 };
	static char line[16384], name[1024];
	for (size_t k = 0; k < sizeof(names) / sizeof(*names); k++)
		for (size_t l = 0; l < sizeof(lengths) / sizeof(*lengths); l++) {
			size_t vlen = lengths[l], at = 6000, klen;
			snprintf(name, sizeof(name), "%s%*s%s", names[k].head, (int)names[k].pad, "", names[k].tail);
			memset(line, 'x', sizeof(line));
			for (size_t i = 0; i < sizeof(line); i += 50)
				line[i] = ','; /* minified JSON: short runs, no newline */
			memcpy(line + at, name, strlen(name));
			klen = strlen(name) + vlen;
			for (size_t i = 0; i < vlen; i++)
				line[at + strlen(name) + i] = "Q7w9ErT2yU4iO6pA8sD0fG1hJ3kL5zX"[i * 7 % 31];
			line[at + klen] = '"';
			line[sizeof(line) - 1] = '\0';
			char *whole = secrets_redact(s, line, strlen(line), 0, NULL, NULL);
			assert_non_null(whole);
			for (size_t cut = at - 8; cut <= at + klen + 8; cut += (cut % 61 == 0 ? 1 : 13))
				assert_cut_redacts_as_whole(s, line, cut, whole);
			free(whole);
		}
	secrets_free(s);
}

/* A match that outgrows SECRETS_STREAM_HOLD_MAX is not held forever: it and the rest of its line go out redacted. */
static void a_stream_match_longer_than_the_hold_ends_its_line_redacted(void **state)
{
	(void)state;
	struct secrets *s = shipped();
	struct secrets_stream st = { .s = s };
	size_t piece = 64 * 1024, out = 0, len;
	char *buf = malloc(piece + 1);
	unsigned count, total = 0;
	memset(buf, 'A', piece);
	buf[piece] = '\0';
	memcpy(buf, "Authorization: Bearer ", 22);
	for (size_t i = 0; i < 6; i++) {
		char *clean = secrets_stream_redact(&st, buf, piece, true, &len, &count);
		assert_non_null(clean);
		assert_null(memmem(clean, len, "AAAA", 4));
		out += len, total += count;
		free(clean);
		memset(buf, 'A', 22);
	}
	assert_true(out > 0); /* let out before the line ends: the hold is bounded */
	assert_true(st.carry.len <= SECRETS_STREAM_HOLD_MAX);
	char *clean = secrets_stream_redact(&st, "AAAA end", 8, false, &len, &count);
	assert_non_null(clean);
	assert_string_equal(clean, "[REDACTED:bearer_token]");
	free(clean);
	clean = secrets_stream_redact(&st, "next line", 9, false, &len, &count);
	assert_string_equal(clean, "next line"); /* the next line starts clean */
	assert_int_equal(count, 0);
	free(clean);
	assert_true(total >= 2);
	free(buf);
	secrets_stream_free(&st);
	secrets_free(s);
}

/* A stream is process output, which an agent or a step may make say anything: the pragma is no exemption there. */
static void a_stream_ignores_the_allowlist_pragma(void **state)
{
	(void)state;
	struct secrets *s = shipped();
	struct secrets_stream st = { .s = s };
	const char *line = "k = 'sk-abcdefghijklmnop1234'  # pragma: allowlist-secret why=TEST_VECTOR";
	unsigned count;
	size_t len;
	char *clean = secrets_stream_redact(&st, line, strlen(line), false, &len, &count);
	assert_string_equal(clean, "k = '[REDACTED:openai_key]'  # pragma: allowlist-secret why=TEST_VECTOR");
	assert_int_equal(count, 1);
	free(clean);
	secrets_stream_free(&st);
	secrets_free(s);
}

/*
 * One row per shipped rule: a true example (with what it becomes) and a false one, left alone. The
 * shapes follow gitleaks' default rules (token prefixes, lengths, entropy floors). Every key here is
 * made up; each line holding one carries the pragma, as test vectors in source files do.
 */
struct rule_case {
	const char *rule;
	const char *yes, *yes_want; /* redacted once, as the rule */
	const char *no;             /* matches no rule */
};

static const struct rule_case rule_cases[] = {
	{ "private_key",
	  "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx7Q2mZk9\nq+Hc0/abc=\n-----END RSA PRIVATE KEY-----\ntail", /* pragma: allowlist-secret why=TEST_VECTOR */
	  "[REDACTED:private_key]\ntail",
	  "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOC\n-----END PUBLIC KEY-----" },
	{ "openrouter_key", "k sk-or-v1-0123456789abcdef0123", "k [REDACTED:openrouter_key]", /* pragma: allowlist-secret why=TEST_VECTOR */
	  "the sk-or-v1 prefix" },
	{ "anthropic_key", "ANTHROPIC_API_KEY sk-ant-api03-AbCdEf0123456789_xyzXYZ-0123456789abcdef", /* pragma: allowlist-secret why=TEST_VECTOR */
	  "ANTHROPIC_API_KEY [REDACTED:anthropic_key]", "sk-ant-api03 keys start so" },
	{ "openai_key", "key sk-proj-Ab3dEf6hIj9kLm2nOp5q end", "key [REDACTED:openai_key] end", /* pragma: allowlist-secret why=TEST_VECTOR */
	  "see disk-usage-monitoring-tool and task-runner-pro-edition" },
	{ "tavily_key", "tvly-dev-AbCdEfGhIjKlMnOp1234", "[REDACTED:tavily_key]", /* pragma: allowlist-secret why=TEST_VECTOR */
	  "tvly-docs and tvly-dev" },
	{ "groq_key", "gsk_ABCDEFGHIJKLMNOPQRSTUVWX", "[REDACTED:groq_key]", "gsk_short" }, /* pragma: allowlist-secret why=TEST_VECTOR */
	{ "google_api_key", "AIzaSyA1234567890abcdefghijklmnopqrstu", "[REDACTED:google_api_key]", /* pragma: allowlist-secret why=TEST_VECTOR */
	  "AIzaSy-is-a-prefix" },
	{ "github_token", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "[REDACTED:github_token]", "ghp_ and gho_ tokens" }, /* pragma: allowlist-secret why=TEST_VECTOR */
	{ "github_token",
	  "GH_TOKEN=github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd", /* pragma: allowlist-secret why=TEST_VECTOR */
	  "GH_TOKEN=[REDACTED:github_token]", "a github_pat_ token" },
	{ "gitlab_token", "glpat-AbCdEf0123456789xYzW", "[REDACTED:gitlab_token]", /* pragma: allowlist-secret why=TEST_VECTOR */
	  "glpat-xxxxxxxxxxxxxxxxxxxx" },
	{ "aws_access_key", "aws AKIAZ2X7Q4RNB5VH3KDF ok", "aws [REDACTED:aws_access_key] ok", /* pragma: allowlist-secret why=TEST_VECTOR */
	  "AKIAAAAAAAAAAAAAAAAA and XAKIAZ2X7Q4RNB5VH3KDF" },
	{ "aws_secret_key", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKY", /* pragma: allowlist-secret why=TEST_VECTOR */
	  "aws_secret_access_key = [REDACTED:aws_secret_key]", "aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}" },
	{ "slack_token", "xoxb-1234567890123-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "[REDACTED:slack_token]", /* pragma: allowlist-secret why=TEST_VECTOR */
	  "xoxb-xxxxxxxxx-xxxxxxxxxx-xxxxxxxxxxxx" },
	{ "slack_webhook", "POST https://hooks.slack.com/services/T0ABCDEFG/B0ABCDEFG/AbCdEfGhIjKlMnOpQrStUvWx", /* pragma: allowlist-secret why=TEST_VECTOR */
	  "POST https://hooks.slack.com/services/[REDACTED:slack_webhook]", "see https://hooks.slack.com/services/ in the docs" },
	{ "stripe_key", "rk_live_AbCdEf0123456789GhIjKl", "[REDACTED:stripe_key]", "risk_test_environment_ready" }, /* pragma: allowlist-secret why=TEST_VECTOR */
	{ "npm_token", "//registry.npmjs.org/:_authToken npm_AbCdEf0123456789GhIjKlMnOpQrStUvWxYz", /* pragma: allowlist-secret why=TEST_VECTOR */
	  "//registry.npmjs.org/:_authToken [REDACTED:npm_token]", "npm_config_cache=/tmp/npm_cache_2024" },
	{ "huggingface_token", "HF hf_AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", "HF [REDACTED:huggingface_token]", /* pragma: allowlist-secret why=TEST_VECTOR */
	  "from huggingface_hub import hf_hub_download_with_retries" },
	{ "bearer_token", "Authorization: Bearer abc.def-123_XYZ", "Authorization: Bearer [REDACTED:bearer_token]", /* pragma: allowlist-secret why=TEST_VECTOR */
	  "a bearer x of news" },
	{ "jwt",
	  "id_token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c end", /* pragma: allowlist-secret why=TEST_VECTOR */
	  "id_token [REDACTED:jwt] end", "they eyed the keys.eyJ and more" },
	{ "url_password", "postgres://app:S3cr3tPa55@db.internal:5432/app", /* pragma: allowlist-secret why=TEST_VECTOR */
	  "postgres://app:[REDACTED:url_password]@db.internal:5432/app", "https://user:${DB_PASSWORD}@db and https://example.com:8443/a@b" },
	{ "url_credential", "GET /v1?q=1&api_key=s3cr3t&z=2", "GET /v1?q=1&api_key=[REDACTED:url_credential]&z=2", /* pragma: allowlist-secret why=TEST_VECTOR */
	  "curl 'https://x.io/?api_key=${KEY}'" },
	{ "search_api_credential", "export TAVILY_API_KEY=abcd1234efgh", "export TAVILY_API_KEY=[REDACTED:search_api_credential]", /* pragma: allowlist-secret why=TEST_VECTOR */
	  "TAVILY_API_KEY=${TAVILY_API_KEY}" },
	{ "key_after_assignment", "key: sk-0123456789", "key: [REDACTED:key_after_assignment]", "key: sk-short" }, /* pragma: allowlist-secret why=TEST_VECTOR */
	/* a short token with a known prefix, printed bare: no = or : before it */
	{ "known_prefix_token", "an sk-0123456789 in prose", "an [REDACTED:known_prefix_token] in prose", /* pragma: allowlist-secret why=TEST_VECTOR */
	  "sk-1111111111 and sk-learning-notes" },
};

/* Every rule of the shipped file has a row: a new rule comes with its examples. */
static void each_shipped_rule_has_a_row(void **state)
{
	(void)state;
	cJSON *rules;
	const cJSON *p;
	char sha[65];
	assert_int_equal(rtk_data_rules_load(SECRETS_RULES, NULL, NULL, &rules, sha), 0);
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(rules, "patterns")) {
		const char *name = cJSON_GetObjectItemCaseSensitive(p, "name")->valuestring;
		bool found = false;
		for (size_t i = 0; !found && i < sizeof(rule_cases) / sizeof(*rule_cases); i++)
			found = !strcmp(rule_cases[i].rule, name);
		print_message("rule %s\n", name);
		assert_true(found);
	}
	cJSON_Delete(rules);
}

/* What rtk redacted once comes through a second redaction as it is: no rule matches rtk's own marker. */
static void redacting_twice_changes_nothing(void **state)
{
	(void)state;
	struct secrets *s = shipped();
	static const char *const more[] = {
		"export TAVILY_API_KEY=sk-proj-Ab3dEf6hIj9kLm2nOp5qRsT end", /* pragma: allowlist-secret why=TEST_VECTOR */
		"TAVILY_MCP_URL: tvly-dev-AbCdEfGhIjKlMnOp1234", /* pragma: allowlist-secret why=TEST_VECTOR */
		"BRAVE_API_KEY=[REDACTED:openai_key] and DASHSCOPE_API_KEY: '[REDACTED:tavily_key]'",
		"GET /v1?api_key=[REDACTED:url_credential]&token=[REDACTED:bearer_token]",
	};
	for (size_t i = 0; i < sizeof(rule_cases) / sizeof(*rule_cases) + sizeof(more) / sizeof(*more); i++) {
		const char *in = i < sizeof(rule_cases) / sizeof(*rule_cases) ? rule_cases[i].yes : more[i - sizeof(rule_cases) / sizeof(*rule_cases)];
		size_t n1, n2;
		char *once = secrets_redact(s, in, strlen(in), 0, &n1, NULL);
		assert_non_null(once);
		char *twice = secrets_redact(s, once, n1, 0, &n2, NULL);
		assert_non_null(twice);
		if (n1 != n2 || memcmp(once, twice, n1))
			fail_msg("redacted again, \"%s\" became \"%s\"", once, twice);
		free(once);
		free(twice);
	}
	secrets_free(s);
}

static void each_rule_has_a_true_and_a_false_example(void **state)
{
	(void)state;
	struct secrets *s = shipped();
	for (size_t i = 0; i < sizeof(rule_cases) / sizeof(*rule_cases); i++) {
		const struct rule_case *c = &rule_cases[i];
		char tag[64];
		print_message("rule %s\n", c->rule);
		snprintf(tag, sizeof(tag), "[REDACTED:%s]", c->rule);
		assert_non_null(strstr(c->yes_want, tag)); /* the row names the rule it tests */
		expect(s, c->yes, c->yes_want, 1);
		expect(s, c->no, c->no, 0);
	}
	secrets_free(s);
}

/* Things that look random but are no secret: ids, hashes, encodings. None is redacted. */
static void ids_hashes_and_encodings_are_left_alone(void **state)
{
	(void)state;
	struct secrets *s = shipped();
	static const char *const plain[] = {
		"commit 3f786850e387550fdab836ed7e6dc881de23001b (HEAD -> main)",
		"abbrev 3f78685 and tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
		"id 123e4567-e89b-12d3-a456-426614174000 and 550E8400-E29B-41D4-A716-446655440000",
		"sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"\"integrity\": \"sha512-z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNKHfuwvY7kxvUdBeoGlODJ6+SfaPg==\"",
		"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
		"docker pull ghcr.io/owner/image@sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"ssh git@github.com:owner/repo.git and https://github.com/owner/repo/pull/12",
		"run 20231114T221320Z-854cdb: step P-1 passed; see state/reflectloop/runs/20231114T221320Z-854cdb",
		"the AKIA prefix, eyJ and ey, hf_ and npm_, xoxb- and sk_live_ are documented",
		"max_tokens: 4096, tokenizer: cl100k_base, password: (none)",
		"-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUY\n-----END CERTIFICATE-----",
	};
	for (size_t i = 0; i < sizeof(plain) / sizeof(*plain); i++)
		expect(s, plain[i], plain[i], 0);
	secrets_free(s);
}

/* A key split by a terminal's colour reset or a carriage return is still one key. */
static void ansi_escapes_and_carriage_returns_do_not_hide_a_key(void **state)
{
	(void)state;
	struct secrets *s = shipped();
	expect(s, "key sk-abcdefgh\x1b[0mijklmnop1234 end", "key [REDACTED:openai_key] end", 1); /* pragma: allowlist-secret why=TEST_VECTOR */
	expect(s, "\x1b[32msk-abcdefghijklmnop1234\x1b[0m ok", "\x1b[32m[REDACTED:openai_key]\x1b[0m ok", 1); /* pragma: allowlist-secret why=TEST_VECTOR */
	expect(s, "sk-abcdefgh\rijklmnop1234", "[REDACTED:openai_key]", 1); /* pragma: allowlist-secret why=TEST_VECTOR */
	expect(s, "TOKEN ghp_abcdefghij\x1b[1;31mklmnopqrstuvwxyz0123456789\r\n", "TOKEN [REDACTED:github_token]\r\n", 1); /* pragma: allowlist-secret why=TEST_VECTOR */
	/* a JSON-escaped line break before a key is no letter joined to it */
	expect(s, "{\"r\":\"line\\nAKIAZ2X7Q4RNB5VH3KDF\\tsk-0123456789\"}", /* pragma: allowlist-secret why=TEST_VECTOR */
	       "{\"r\":\"line\\n[REDACTED:aws_access_key]\\t[REDACTED:known_prefix_token]\"}", 2);
	expect(s, "plain \x1b[1mbold\x1b[0m\r\n", "plain \x1b[1mbold\x1b[0m\r\n", 0);
	/* a match stops where one of rtk's markers starts: the marker stays */
	expect(s, "BRAVE_API_KEY=xyz1[REDACTED:openai_key] end", "BRAVE_API_KEY=[REDACTED:search_api_credential][REDACTED:openai_key] end", 1);
	/* a lone ESC before a key goes with it (ESC then the marker's "[" would be a CSI); a colour stays */
	expect(s, "KEY=\x1bsk-abcdefghijklmnop1234", "KEY=[REDACTED:openai_key]", 1); /* pragma: allowlist-secret why=TEST_VECTOR */
	/* a CR also ends a key: joined, AKIA... runs into a letter and is no AWS key; both keys go */
	expect(s, "AKIAZ2X7Q4RNB5VH3KDF\rghp_abcdefghijklmnopqrstuvwxyz0123456789", /* pragma: allowlist-secret why=TEST_VECTOR */
	       "[REDACTED:aws_access_key]\r[REDACTED:github_token]", 2);
	expect(s, "progress 10%\rAKIAZ2X7Q4RNB5VH3KDF done\r\n", "progress 10%\r[REDACTED:aws_access_key] done\r\n", 1); /* pragma: allowlist-secret why=TEST_VECTOR */
	secrets_free(s);
}

/* A private key is redacted whole across the lines of one text, and to the text's end when it is cut off. */
static void a_private_key_block_goes_whole(void **state)
{
	(void)state;
	struct secrets *s = shipped();
	expect(s, "a\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAA\nAAAAAQAAADMAAAALc3NoLWVkMjU1MTkAAAAg\n-----END OPENSSH PRIVATE KEY-----\nz\n", /* pragma: allowlist-secret why=TEST_VECTOR */
	       "a\n[REDACTED:private_key]\nz\n", 1);
	expect(s, "head -3 id_rsa:\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7", /* pragma: allowlist-secret why=TEST_VECTOR */
	       "head -3 id_rsa:\n[REDACTED:private_key]", 1);
	secrets_free(s);
}

/*
 * In a stream of lines (a step that cats a key), the block goes on past the line holding its first
 * marker: every line up to the end marker is redacted.
 */
static void a_stream_redacts_a_private_key_line_by_line(void **state)
{
	(void)state;
	struct secrets *s = shipped();
	struct secrets_stream st = { .s = s };
	static const char *const lines[][2] = {
		{ "before", "before" },
		{ "-----BEGIN RSA PRIVATE KEY-----", "[REDACTED:private_key]" },
		{ "MIIEowIBAAKCAQEAx7Q2mZk9abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN", "[REDACTED:private_key]" }, /* pragma: allowlist-secret why=TEST_VECTOR */
		{ "q+Hc0/abc=", "[REDACTED:private_key]" },
		{ "-----END RSA PRIVATE KEY----- after", "[REDACTED:private_key] after" },
		{ "next", "next" },
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(*lines); i++) {
		size_t len;
		char *clean = secrets_stream_redact(&st, lines[i][0], strlen(lines[i][0]), false, &len, NULL);
		assert_non_null(clean);
		assert_string_equal(clean, lines[i][1]);
		free(clean);
	}
	secrets_stream_free(&st);
	secrets_free(s);
}

/* The entropy floor: a match whose characters are too uniform (a placeholder) is no secret, and the search goes on after it. */
static void an_entropy_floor_passes_over_placeholders(void **state)
{
	(void)state;
	cJSON *rules;
	struct secrets *s;
	const char *y = "patterns:\n  - {name: t, regex: 'tok_[a-z]{8}', entropy: 2.5}\n";
	assert_int_equal(rtk_yaml_load(y, strlen(y), "t", &rules), 0);
	assert_int_equal(secrets_compile(rules, "t", &s), 0);
	expect(s, "tok_aaaaaaaa tok_abcdefgh", "tok_aaaaaaaa [REDACTED:t]", 1);
	expect(s, "tok_aaaaaaaabcdefgh", "tok_aaaaaaaabcdefgh", 0);
	cJSON_Delete(rules);
	secrets_free(s);
	y = "patterns:\n  - {name: t, regex: 'x', entropy: high}\n";
	assert_int_equal(rtk_yaml_load(y, strlen(y), "t", &rules), 0);
	assert_int_equal(secrets_compile(rules, "my.yaml", &s), RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "my.yaml: secret pattern t: \"entropy\""));
	cJSON_Delete(rules);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(each_rule_has_a_true_and_a_false_example),
	cmocka_unit_test(each_shipped_rule_has_a_row),
	cmocka_unit_test(ids_hashes_and_encodings_are_left_alone),
	cmocka_unit_test(ansi_escapes_and_carriage_returns_do_not_hide_a_key),
	cmocka_unit_test(a_private_key_block_goes_whole),
	cmocka_unit_test(a_stream_redacts_a_private_key_line_by_line),
	cmocka_unit_test(an_entropy_floor_passes_over_placeholders),
	cmocka_unit_test(a_stream_ignores_the_allowlist_pragma),
	cmocka_unit_test(a_stream_match_longer_than_the_hold_ends_its_line_redacted),
	cmocka_unit_test(a_stream_cut_anywhere_in_a_key_lets_none_of_it_out),
	cmocka_unit_test(redacting_twice_changes_nothing),
	cmocka_unit_test(a_stream_cut_anywhere_in_a_key_longer_than_the_carry_redacts_as_the_whole_line),
	cmocka_unit_test(a_stream_finds_a_secret_cut_in_two),
	cmocka_unit_test(run_plan_patterns_catch_literals_not_placeholders),
	cmocka_unit_test(the_allowlist_pragma_exempts_its_line_only),
	cmocka_unit_test(untrusted_text_gets_no_exemption_from_the_pragma),
	cmocka_unit_test(shipped_patterns_catch_each_kind),
	cmocka_unit_test(ordinary_text_is_left_alone),
	cmocka_unit_test(first_listed_pattern_wins_at_one_place),
	cmocka_unit_test(extra_patterns_add_to_the_list),
	cmocka_unit_test(an_empty_match_stops_nothing),
	cmocka_unit_test(the_rules_sha256_covers_entropy_and_continues_until),
	cmocka_unit_test(bad_rules_are_named),
};

RTK_UNIT_MAIN(tests)
