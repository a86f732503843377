/* tests/unit/test_out.c — the result envelope, JSON output and the markdown builder's tables. */
#include "unit.h"
#include "lib/err.h"
#include "lib/out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *render(const cJSON *r, enum rtk_out_format f, rtk_out_md_render_fn *fn)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	assert_int_equal(rtk_out_emit(r, f, fn, out), 0);
	fclose(out);
	return text;
}

static void envelope_has_schema_version_and_time(void **state)
{
	(void)state;
	setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
	cJSON *r = rtk_out_result_new("calibrate");
	assert_non_null(r);
	assert_string_equal(rtk_out_json_str(r, "schema"), "rtk.calibrate.v1");
	assert_string_equal(rtk_out_json_str(r, "generated_at"), "2023-11-14T22:13:20Z");
	assert_true(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(r, "parameters")));
	assert_true(strlen(rtk_out_json_str(r, "rtk_version")) > 0);
	char *text = render(r, RTK_OUT_FORMAT_JSON, NULL);
	cJSON *back = cJSON_Parse(text);
	assert_non_null(back);
	assert_true(cJSON_Compare(r, back, true));
	cJSON_Delete(back);
	cJSON_Delete(r);
	free(text);
	unsetenv("SOURCE_DATE_EPOCH");
}

static void render_table(const cJSON *r, struct rtk_out_md *md)
{
	(void)r;
	rtk_out_md_heading(md, 2, "Title %d", 7);
	struct rtk_out_md_table *t = rtk_out_md_table(md, "lrc", "name", "count", "mid");
	rtk_out_md_cell(t, "ä|b");
	rtk_out_md_cell(t, "%d", 12345);
	rtk_out_md_cell(t, "x");
	rtk_out_md_cell(t, "long name here");
	rtk_out_md_cell(t, "1");
	rtk_out_md_table_end(t); /* the short last row is padded */
	rtk_out_md_bullet(md, "one");
	rtk_out_md_end_list(md);
}

static void markdown_tables_align_and_escape(void **state)
{
	(void)state;
	cJSON *r = cJSON_CreateObject();
	char *text = render(r, RTK_OUT_FORMAT_MD, render_table);
	assert_string_equal(text,
			    "## Title 7\n\n"
			    "| name           | count | mid |\n"
			    "|----------------|------:|:---:|\n"
			    "| ä\\|b           | 12345 |  x  |\n"
			    "| long name here |     1 |     |\n"
			    "\n"
			    "- one\n\n");
	free(text);
	cJSON_Delete(r);
}

/* The text grows past its first block through every kind of append, and reads back whole. */
static void markdown_text_grows_and_reads_back(void **state)
{
	(void)state;
	struct rtk_out_md *md = rtk_out_md_new();
	char word[100];
	memset(word, 'w', sizeof(word) - 1);
	word[sizeof(word) - 1] = 0;
	size_t len;
	assert_string_equal(rtk_out_md_text(md, &len), "");
	assert_int_equal(len, 0);
	for (int i = 0; i < 50; i++) {
		rtk_out_md_para(md, "%d %s", i, word);
		rtk_out_md_bullet(md, "%s", word);
	}
	rtk_out_md_end_list(md);
	const char *text = rtk_out_md_text(md, &len);
	assert_false(rtk_out_md_failed(md));
	assert_int_equal(len, 50 * (2 + 99 + 2) + 40 * 1 + 50 * (2 + 99 + 1) + 1);
	assert_int_equal(strlen(text), len);
	assert_memory_equal(text, "0 www", 5);
	assert_non_null(strstr(text, "w\n49 www"));
	assert_string_equal(text + len - 4, "ww\n\n");
	rtk_out_md_free(md);
}

static void format_names(void **state)
{
	(void)state;
	enum rtk_out_format f;
	assert_int_equal(rtk_out_format_parse("json", &f), 0);
	assert_int_equal(f, RTK_OUT_FORMAT_JSON);
	assert_int_equal(rtk_out_format_parse("markdown", &f), 0);
	assert_int_equal(f, RTK_OUT_FORMAT_MD);
	assert_int_equal(rtk_out_format_parse("yaml", &f), RTK_EXIT_USAGE);
	assert_string_equal(rtk_error_message(), "--format takes json or md, not 'yaml'");
}

static void number_helpers(void **state)
{
	(void)state;
	cJSON *o = cJSON_Parse("{\"a\": 1.5, \"b\": null, \"c\": [0.25, null], \"s\": \"x\"}");
	assert_true(rtk_out_json_num(o, "a") == 1.5);
	assert_true(isnan(rtk_out_json_num(o, "b")));
	assert_true(isnan(rtk_out_json_num(o, "missing")));
	assert_true(rtk_out_json_at(cJSON_GetObjectItem(o, "c"), 0) == 0.25);
	assert_true(isnan(rtk_out_json_at(cJSON_GetObjectItem(o, "c"), 1)));
	assert_string_equal(rtk_out_json_str(o, "s"), "x");
	assert_string_equal(rtk_out_json_str(o, "a"), "");
	assert_string_equal(rtk_out_md_num(NAN, 3), "n/a");
	assert_string_equal(rtk_out_md_num(0.12345, 3), "0.123");
	assert_string_equal(rtk_out_md_pvalue(0.00009), "< 0.0001");
	assert_string_equal(rtk_out_md_pvalue(0.0001), "0.0001");
	assert_string_equal(rtk_out_md_pvalue(NAN), "n/a");
	cJSON_Delete(o);
}

static void undefined_statistics_are_null(void **state)
{
	(void)state;
	cJSON *o = cJSON_CreateObject();
	rtk_out_json_add_number(o, "a", 0.25);
	rtk_out_json_add_number(o, "b", NAN);
	rtk_out_json_add_interval(o, "ci", 0.1, 0.3456);
	rtk_out_json_add_interval(o, "none", NAN, NAN);
	char *text = cJSON_PrintUnformatted(o);
	assert_string_equal(text, "{\"a\":0.25,\"b\":null,\"ci\":[0.1,0.3456],\"none\":[null,null]}");
	free(text);
	assert_string_equal(rtk_out_md_interval(o, "ci", 2), "0.10 – 0.35");
	assert_string_equal(rtk_out_md_interval(o, "none", 2), "n/a");
	assert_string_equal(rtk_out_md_interval(o, "missing", 2), "n/a");
	/* Several intervals in one printf each keep their own buffer. */
	char line[64];
	snprintf(line, sizeof(line), "%s | %s", rtk_out_md_interval(o, "ci", 1), rtk_out_md_interval(o, "ci", 3));
	assert_string_equal(line, "0.1 – 0.3 | 0.100 – 0.346");
	cJSON_Delete(o);
}

/* A run that stopped with a code still prints its result, and its reason survives the printing. */
static void emit_after_keeps_the_run_code_and_reason(void **state)
{
	(void)state;
	cJSON *r = cJSON_CreateObject();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	cJSON_AddStringToObject(r, "x", "y");
	rtk_fail(RTK_EXIT_NO_PROGRESS, "stuck on item 3");
	assert_int_equal(rtk_out_emit_after(r, RTK_OUT_FORMAT_JSON, NULL, f, RTK_EXIT_NO_PROGRESS), RTK_EXIT_NO_PROGRESS);
	assert_string_equal(rtk_error_message(), "stuck on item 3");
	rtk_error_clear();
	assert_int_equal(rtk_out_emit_after(r, RTK_OUT_FORMAT_JSON, NULL, f, 0), 0);
	fclose(f);
	int printed = 0;
	for (const char *p = buf; (p = strstr(p, "\"x\":\t\"y\"")); p++)
		printed++;
	assert_int_equal(printed, 2); /* once for each call */
	free(buf);
	cJSON_Delete(r);
}

static void flat_text_keeps_one_line_and_no_escapes(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "plain text, `code` and [a](b)", "plain text, `code` and [a](b)" },
		{ "t1\n## ERROR: forged\r\n", "t1 ## ERROR: forged  " },
		{ "clip\x1b]52;c;ZWNobyBoaQ==\x07 ok", "clip ]52;c;ZWNobyBoaQ==  ok" },
		{ "clear\x1b[2J\x1b[H", "clear [2J [H" },
		{ "c1 \xc2\x9b""31m csi", "c1  31m csi" },
		{ "tab\tdel\x7f", "tab del " },
		{ "caf\xc3\xa9 \xc2\xa0nbsp", "caf\xc3\xa9 \xc2\xa0nbsp" }, /* U+00A0 is no control */
		{ "", "" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = rtk_out_md_flat(cases[i].in);
		assert_non_null(got);
		assert_string_equal(got, cases[i].want);
		free(got);
	}
}

/* text folded at width, as a string (the caller frees it) */
static char *folded(const char *text, size_t width)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	assert_non_null(f);
	assert_int_equal(rtk_out_md_fold(text, strlen(text), width, f), 0);
	fclose(f);
	return buf;
}

static void markdown_folds_prose_only(void **state)
{
	(void)state;
	char *got = folded("# A heading that is longer than twenty\n\nOne two three four five six seven.\n\n"
			   "- a bullet with words enough to fold\n| a table row longer than twenty |\n"
			   "```\na fenced line longer than twenty characters\n```\n", 20);
	assert_string_equal(got, "# A heading that is longer than twenty\n\nOne two three four\nfive six seven.\n\n"
				 "- a bullet with\n  words enough to\n  fold\n| a table row longer than twenty |\n"
				 "```\na fenced line longer than twenty characters\n```\n");
	free(got);
	/* a word longer than the width stays whole; code points, not bytes, are counted */
	got = folded("short averyveryverylongwordindeed end\n", 10);
	assert_string_equal(got, "short\naveryveryverylongwordindeed\nend\n");
	free(got);
	got = folded("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\n", 9);
	assert_string_equal(got, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\n");
	free(got);
	/* the text's last line without a newline keeps none */
	got = folded("a b c d e f", 5);
	assert_string_equal(got, "a b c\nd e f\n");
	free(got);
}

/* A string from outside makes no markup: no HTML, link, heading or cell of its own, and no control character. */
static void escape_makes_no_markup_and_shows_controls(void **state)
{
	(void)state;
	static const struct { const char *in, *want; } cases[] = {
		{ "fix: <img src=x onerror=alert(1)>", "fix: \\<img src=x onerror=alert(1)\\>" },
		{ "see [the docs](http://evil.example)!", "see \\[the docs\\](http://evil.example)\\!" },
		{ "agent\n# Verdict: PASS", "agent^J\\# Verdict: PASS" },
		{ "a | b *c* _d_ `e` ~f~ &amp; \\", "a \\| b \\*c\\* \\_d\\_ \\`e\\` \\~f\\~ \\&amp; \\\\" },
		{ "copy \x1b]52;c;ZXZpbA==\x07 title \x1b]0;pwned\x07 clear \x1b[2J\x7f", "copy ^[\\]52;c;ZXZpbA==^G title ^[\\]0;pwned^G clear ^[\\[2J^?" },
		{ "csi \xc2\x9b" "31m, caf\xc3\xa9", "csi <U+009B>31m, caf\xc3\xa9" },
		{ "", "" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *got = rtk_out_md_escape(cases[i].in);
		assert_non_null(got);
		assert_string_equal(got, cases[i].want);
		free(got);
		assert_string_equal(rtk_out_md_esc(cases[i].in), cases[i].want);
	}
}

static void render_raw_controls(const cJSON *r, struct rtk_out_md *md)
{
	(void)r;
	rtk_out_md_para(md, "item: %s", "\x1b]52;c;ZXZpbA==\x07\x1b[2J\tkept\r");
}

/* Whatever a renderer let through, markdown reaches the terminal with every control but newline and tab shown. */
static void emitted_markdown_sends_no_control_characters(void **state)
{
	(void)state;
	cJSON *r = cJSON_CreateObject();
	char *text = render(r, RTK_OUT_FORMAT_MD, render_raw_controls);
	assert_string_equal(text, "item: ^[]52;c;ZXZpbA==^G^[[2J\tkept^M\n\n");
	free(text);
	cJSON_Delete(r);
}

static void render_escaped_cells(const cJSON *r, struct rtk_out_md *md)
{
	(void)r;
	struct rtk_out_md_table *t = rtk_out_md_table(md, "ll", "a", "b");
	struct rtk_out_cells c = rtk_out_md_cells(t);
	rtk_out_cell_text(&c, "x|y <img>");       /* from outside: escaped once, the pipe too */
	rtk_out_md_cell(t, "%s", rtk_out_md_esc("p|q")); /* escaped by the renderer: the cell adds no second backslash */
	rtk_out_md_cell(t, "odd\\\\|end");          /* two backslashes of the text's own, then a raw pipe: escaped */
	rtk_out_md_table_end(t);
}

/* A cell's pipe is escaped exactly once, whoever escaped the string before. */
static void cells_escape_a_pipe_once(void **state)
{
	(void)state;
	cJSON *r = cJSON_CreateObject();
	char *text = render(r, RTK_OUT_FORMAT_MD, render_escaped_cells);
	assert_string_equal(text,
			    "| a            | b    |\n"
			    "|--------------|------|\n"
			    "| x\\|y \\<img\\> | p\\|q |\n"
			    "| odd\\\\\\|end   |      |\n\n");
	free(text);
	cJSON_Delete(r);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(flat_text_keeps_one_line_and_no_escapes),
	cmocka_unit_test(escape_makes_no_markup_and_shows_controls),
	cmocka_unit_test(emitted_markdown_sends_no_control_characters),
	cmocka_unit_test(undefined_statistics_are_null),
	cmocka_unit_test(envelope_has_schema_version_and_time),
	cmocka_unit_test(markdown_tables_align_and_escape),
	cmocka_unit_test(cells_escape_a_pipe_once),
	cmocka_unit_test(markdown_text_grows_and_reads_back),
	cmocka_unit_test(format_names),
	cmocka_unit_test(number_helpers),
	cmocka_unit_test(emit_after_keeps_the_run_code_and_reason),
	cmocka_unit_test(markdown_folds_prose_only),
};

RTK_UNIT_MAIN(tests)
