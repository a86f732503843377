/* tests/unit/test_ownwords.c — a message's own words: template sections, checkboxes and comments blanked, and a
 * revert's quoted subject; lengths and line breaks kept. */
#include "unit.h"
#include "githistory/ownwords.h"

#include <stdlib.h>
#include <string.h>

static struct rtk_re *headings, *lines, *reverts, *reversing;
static struct ownwords_rules rules;

static int setup(void **state)
{
	(void)state;
	unsigned f = RTK_RE_CASELESS | RTK_RE_MULTILINE | RTK_RE_UTF;
	if (rtk_re_compile(&headings, "^(test(ing)?(\\s*(plan|done))?|tests?|checklist)$", f, NULL) ||
	    rtk_re_compile(&lines, "^\\s*[-*+]\\s+\\[[ xX]\\]", f, NULL) ||
	    rtk_re_compile(&reverts, "This reverts commit ([0-9a-f]{7,40})", f, NULL) ||
	    rtk_re_compile(&reversing, "reversing\\s+changes\\s+made\\s+to\\s+([0-9a-f]{7,40})", f, NULL))
		return -1;
	rules = (struct ownwords_rules){ headings, lines, { reverts, reversing } };
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	rtk_re_free(headings);
	rtk_re_free(lines);
	rtk_re_free(reverts);
	rtk_re_free(reversing);
	return 0;
}

static char out[2048];

/* The message with what is not its own words blanked, each run of blanks holding a blanked byte shown as '~'. */
static const char *own(const char *msg, bool revert)
{
	size_t len = strlen(msg), k = 0;
	char *m = strdup(msg);
	assert_non_null(m);
	ownwords_blank(m, len, &rules, revert);
	for (size_t i = 0; i < len; i++) { /* the length and every line break stay */
		assert_true((m[i] == '\n') == (msg[i] == '\n'));
		assert_true(m[i] == msg[i] || m[i] == ' ');
	}
	for (size_t i = 0; i < len && k + 2 < sizeof(out);) {
		size_t j = i;
		bool changed = false;
		while (j < len && m[j] == ' ')
			changed |= msg[j] != ' ', j++;
		if (j > i && changed) {
			out[k++] = '~';
			i = j;
		} else if (j > i) {
			while (i < j && k + 2 < sizeof(out))
				out[k++] = m[i++];
		} else
			out[k++] = m[i++];
	}
	out[k] = '\0';
	free(m);
	return out;
}

static void template_sections(void **state)
{
	(void)state;
	/* ruff's template: ATX headings, the Test Plan section up to the next heading */
	assert_string_equal(own("Fix x (#1)\n\n## Summary\n\nThe parser crashed.\n\n## Test Plan\n\nRan CI.\n\n## Notes\n\nNone.\n", false),
			    "Fix x (#1)\n\n## Summary\n\nThe parser crashed.\n\n~\n\n~\n\n## Notes\n\nNone.\n");
	/* setext headings, as a squash merge writes them; the underline goes too */
	assert_string_equal(own("x\n\nSummary\n--\n\nBroke it.\n\nTest Plan\n--\n\ncargo test\n", false),
			    "x\n\nSummary\n--\n\nBroke it.\n\n~\n~\n\n~\n");
	/* a thematic break ends a section; bold and label headings; "Testing: text" is that line alone */
	assert_string_equal(own("x\n\n**Testing**\nran the tests\n\n---\nkept\n\nTest Plan:\nunit tests\n", false),
			    "x\n\n~\n~\n\n---\nkept\n\n~\n~\n");
	assert_string_equal(own("x\n\nTesting: ran the build\nThe test was wrong.\n", false), "x\n\n~\nThe test was wrong.\n");
	/* a heading of another name is kept; "#123" is no heading */
	assert_string_equal(own("x\n\n## Tests broke\n#123 test\n", false), "x\n\n## Tests broke\n#123 test\n");
}

static void checkboxes_and_comments(void **state)
{
	(void)state;
	assert_string_equal(own("x\n\n- [x] Tests added\n- [ ] CI green\n* The build broke.\n", false),
			    "x\n\n~\n~\n* The build broke.\n");
	assert_string_equal(own("x\n\n<!-- How was this tested? -->\nReal words.\n<!-- unclosed test", false),
			    "x\n\n~\nReal words.\n~");
	assert_string_equal(own("x\n\n## Checklist\n\n- [x] tests\n\n## Why\n\nci broke\n", false),
			    "x\n\n~\n\n~\n\n## Why\n\nci broke\n");
}

static void revert_quotes(void **state)
{
	(void)state;
	assert_string_equal(own("Revert \"ci: run the tests\"\n\nThis reverts commit 0123456789abcdef.\n\nIt broke the docs.\n", true),
			    "Revert~\n\n~\n\nIt broke the docs.\n");
	assert_string_equal(own("Revert \"Merge x\"\n\nThis reverts commit 0123456, reversing\nchanges made to 89abcdef.\n", true),
			    "Revert~\n\n~\n~\n");
	/* a quote in the body is no subject; not a revert: nothing of it goes */
	assert_string_equal(own("REV: \"MAINT: build\" (#31311)\n\nthe \"ci\" job\n", true), "REV:~(#31311)\n\nthe \"ci\" job\n");
	assert_string_equal(own("Revert \"ci: x\"\n\nThis reverts commit 0123456.\n", false), "Revert \"ci: x\"\n\nThis reverts commit 0123456.\n");
}

static void odd_input(void **state)
{
	(void)state;
	assert_string_equal(own("", true), "");
	assert_string_equal(own("\n\n\n", true), "\n\n\n");
	assert_string_equal(own("## Test Plan", false), "~");
	assert_string_equal(own("x\n--", false), "x\n--");
	assert_string_equal(own("\"", true), "\"");
	assert_string_equal(own("<!--", false), "~");
	struct ownwords_rules none = { NULL, NULL, { NULL, NULL } };
	char m[] = "x\n\n## Test Plan\n- [ ] y\n";
	assert_int_equal(ownwords_blank(m, strlen(m), &none, true), 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_setup_teardown(template_sections, setup, teardown),
	cmocka_unit_test_setup_teardown(checkboxes_and_comments, setup, teardown),
	cmocka_unit_test_setup_teardown(revert_quotes, setup, teardown),
	cmocka_unit_test_setup_teardown(odd_input, setup, teardown),
};

RTK_UNIT_MAIN(tests)
