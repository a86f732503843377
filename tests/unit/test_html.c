/* tests/unit/test_html.c — HTML pages and charts: text escaped, tables filled, one mark per datum, whole-file writes. */
#include "unit.h"
#include "lib/chart.h"
#include "lib/err.h"
#include "lib/html.h"

#include <math.h>

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void text_is_escaped_markup_is_not(void **state)
{
	(void)state;
	struct rtk_html h = { 0 };
	rtk_html_raw(&h, "<p>");
	rtk_html_text(&h, "%s & %d", "<script>\"'", 7);
	rtk_html_raw(&h, "</p>");
	assert_string_equal(h.out.s, "<p>&lt;script&gt;&quot;&#39; &amp; 7</p>");
	rtk_html_free(&h);
}

static void a_badge_never_takes_its_class_from_the_data(void **state)
{
	(void)state;
	struct rtk_html h = { 0 };
	rtk_html_badge(&h, "PASS");
	rtk_html_badge(&h, "x\" onclick=\"y");
	assert_string_equal(h.out.s, "<span class=\"badge badge-PASS\">PASS</span>"
				     "<span class=\"badge badge-SKIPPED\">x&quot; onclick=&quot;y</span>");
	rtk_html_free(&h);
}

static void a_short_row_is_filled(void **state)
{
	(void)state;
	struct rtk_html h = { 0 };
	rtk_html_table(&h, "t", "lr", "name", "n");
	rtk_html_cell(&h, "a<b");
	rtk_html_cell(&h, "%d", 1);
	rtk_html_cell(&h, "c");
	rtk_html_table_end(&h);
	assert_non_null(strstr(h.out.s, "<th>name</th><th class=\"r\">n</th>"));
	assert_non_null(strstr(h.out.s, "<tr><td>a&lt;b</td><td class=\"r\">1</td></tr>"));
	assert_non_null(strstr(h.out.s, "<tr><td>c</td><td class=\"r\"></td></tr>"));
	assert_int_equal(count(h.out.s, "<tr>"), 3);
	rtk_html_free(&h);
}

static void shares_draw_a_bar_per_value_and_an_error_bar_per_interval(void **state)
{
	(void)state;
	struct rtk_html h = { 0 };
	struct rtk_chart_share v[] = {
		{ .label = "a", .value = 0.5, .lo = 0.4, .hi = 0.6 },
		{ .label = "b", .value = 0.1, .lo = NAN, .hi = NAN },
		{ .label = "c", .value = NAN, .lo = NAN, .hi = NAN, .note = "0 of 0" },
	};
	rtk_chart_shares(&h, "s", "cap <1>", v, 3, 0.2, "rule");
	assert_int_equal(count(h.out.s, "class=\"mark bar\""), 2);
	assert_int_equal(count(h.out.s, "class=\"mark errorbar\""), 1);
	assert_non_null(strstr(h.out.s, "<figcaption>cap &lt;1&gt;</figcaption>"));
	assert_non_null(strstr(h.out.s, "n/a · 0 of 0"));
	assert_null(strstr(h.out.s, " width=\"440\""));
	assert_int_equal(count(h.out.s, "class=\"rule-line\""), 3); /* through each row's bar, not its words */
	rtk_html_free(&h);
}

static void reliability_skips_empty_bins_and_roc_is_one_line(void **state)
{
	(void)state;
	struct rtk_html h = { 0 };
	struct rtk_chart_bin bins[] = {
		{ .lo = 0, .hi = 0.5, .empty = true, .accuracy = NAN, .acc_lo = NAN, .acc_hi = NAN, .mean_confidence = NAN },
		{ .lo = 0.5, .hi = 1, .n = 4, .accuracy = 0.75, .acc_lo = 0.3, .acc_hi = 0.95, .mean_confidence = 0.8 },
	};
	struct rtk_stats_roc_point roc[] = { { INFINITY, 0, 0 }, { 0.9, 0.2, 0.6 }, { 0.5, 1, 1 } };
	rtk_chart_reliability(&h, "r", "cap", bins, 2);
	rtk_chart_roc(&h, "roc", "cap", roc, 3, 0.7, 0.8);
	rtk_chart_roc(&h, "none", "cap", NULL, 0, NAN, 0.8);
	assert_int_equal(count(h.out.s, "class=\"mark bar\""), 1);
	assert_int_equal(count(h.out.s, "class=\"mark errorbar\""), 1);
	assert_int_equal(count(h.out.s, "class=\"mark point\""), 1);
	assert_int_equal(count(h.out.s, "class=\"mark line\""), 1);
	assert_int_equal(count(h.out.s, "class=\"annot\""), 1);
	rtk_html_free(&h);
}

static void a_page_is_written_whole_or_not_at_all(void **state)
{
	(void)state;
	char dir[64], path[128], buf[64] = "";
	struct rtk_html h = { 0 };
	FILE *fp;
	assert_int_equal(unit_mkdtemp(dir, "html"), 0);
	snprintf(path, sizeof(path), "%s/r.html", dir);
	rtk_html_raw(&h, "page");
	assert_int_equal(rtk_html_write(&h, path), 0);
	assert_non_null(fp = fopen(path, "r"));
	assert_non_null(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	assert_string_equal(buf, "page");
	h.out.failed = true; /* as after a failed allocation: the old page stays */
	assert_int_equal(rtk_html_write(&h, path), RTK_EXIT_FAILURE);
	rtk_html_free(&h);
	assert_non_null(fp = fopen(path, "r"));
	assert_non_null(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	assert_string_equal(buf, "page");
	unit_remove_tree(dir);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(text_is_escaped_markup_is_not),
	cmocka_unit_test(a_badge_never_takes_its_class_from_the_data),
	cmocka_unit_test(a_short_row_is_filled),
	cmocka_unit_test(shares_draw_a_bar_per_value_and_an_error_bar_per_interval),
	cmocka_unit_test(reliability_skips_empty_bins_and_roc_is_one_line),
	cmocka_unit_test(a_page_is_written_whole_or_not_at_all),
};

RTK_UNIT_MAIN(tests)
