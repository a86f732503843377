/* tests/unit/test_checklist.c — plans as agents write them: which boxes count, and what changed between two reads. */
#include "unit.h"
#include "loop/checklist.h"
#include "lib/err.h"
#include "lib/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* An expected item: its line, state and text. */
struct want_item {
	size_t line;
	enum checklist_state state;
	const char *text;
};

struct plan_case {
	const char *what;
	const char *plan;
	size_t open, done, skipped;
	struct want_item items[8]; /* up to the first item with line 0 */
	size_t first_open;         /* the line of the first open item, 0 for none */
};

static void check_plan(const struct plan_case *c)
{
	struct checklist cl;
	const struct checklist_item *first;
	size_t n = 0;

	print_message("case: %s\n", c->what);
	assert_int_equal(checklist_parse(c->plan, strlen(c->plan), &cl), 0);
	assert_int_equal(cl.problem, CHECKLIST_FOUND);
	while (n < 8 && c->items[n].line)
		n++;
	assert_int_equal(cl.n, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(cl.items[i].line, c->items[i].line);
		assert_string_equal(checklist_state_name(cl.items[i].state), checklist_state_name(c->items[i].state));
		assert_string_equal(cl.items[i].text, c->items[i].text);
	}
	assert_int_equal(cl.open, c->open);
	assert_int_equal(cl.done, c->done);
	assert_int_equal(cl.skipped, c->skipped);
	first = checklist_first_open(&cl);
	assert_int_equal(first ? first->line : 0, c->first_open);
	checklist_free(&cl);
}

#define O CHECKLIST_OPEN
#define D CHECKLIST_DONE
#define S CHECKLIST_SKIPPED

static const struct plan_case plans[] = {
	{ "a plan as loop's prompt has agents keep it",
	  "# Plan: login\n\nIntro mentioning - [ ] outside the section.\n\n## Checklist\n\n- [x] Set up the project\n"
	  "- [ ] Add login form\n- [SKIP] Add OAuth: provider sandbox is down\n- [X] Write README\n\n## Notes\n"
	  "- [ ] not in the section\n",
	  1, 2, 1,
	  { { 7, D, "Set up the project" }, { 8, O, "Add login form" }, { 9, S, "Add OAuth: provider sandbox is down" },
	    { 10, D, "Write README" } },
	  8 },
	{ "CRLF line ends: same lines, no \\r in texts",
	  "# Plan\r\n\r\n## Checklist\r\n- [x] one  \r\n- [ ] two\r\n\r\n## Next\r\n- [ ] out\r\n",
	  1, 1, 0, { { 4, D, "one" }, { 5, O, "two" } }, 5 },
	{ "nested items, other bullets, ### groups inside the section",
	  "## Checklist\n### Phase 1\n- [ ] Parent\n  - [x] child one\n  - [ ] child two\n    * [ ] grandchild\n"
	  "### Phase 2\n+ [x] plus bullet\n\t- [ ] tab-indented\n# Appendix\n- [ ] after a level-1 heading\n",
	  4, 2, 0,
	  { { 3, O, "Parent" }, { 4, D, "child one" }, { 5, O, "child two" }, { 6, O, "grandchild" },
	    { 8, D, "plus bullet" }, { 9, O, "tab-indented" } },
	  3 },
	{ "code fences in the section: backticks, tildes, info strings, longer runs",
	  "## Checklist\n- [ ] real one\n```md\n- [ ] in a fence\n## not a heading in a fence\n```\n~~~ text\n"
	  "- [x] tilde fence\n~~~\n````\n- [ ] four backticks\n```\n- [ ] a shorter run does not close\n````\n"
	  "  ```\n  - [ ] an indented fence in a list item\n  ```\n- [x] after the fences\n",
	  1, 1, 0, { { 2, O, "real one" }, { 18, D, "after the fences" } }, 2 },
	{ "an unclosed fence runs to the end",
	  "## Checklist\n- [ ] before\n```\n- [ ] never closed\n## Another\n- [ ] still code\n", 1, 0, 0,
	  { { 2, O, "before" } }, 2 },
	{ "inline code, dates, links and near-boxes are not items",
	  "## Checklist\nTick each with `- [x]` when done.\n`- [x] inline code at the start`\n- `[x]` code after the bullet\n"
	  "- [2026-11-20] a dated note\n- [link](https://example.com)\n- [x](https://example.com) a link named x\n"
	  "- [ ] fix `- [x]` parsing in `README`\n- []  empty box\n- [  ] two spaces\n-[ ] no blank after the bullet\n"
	  "1. [ ] ordered\n> - [ ] quoted\n- [x]done without a blank\n- [SKIPPED] not the keyword\n- [ ]\n",
	  2, 0, 0, { { 8, O, "fix `- [x]` parsing in `README`" }, { 16, O, "" } }, 8 },
	{ "HTML comments hide template items",
	  "## Checklist\n<!--\n- [ ] template item\n-->\n<!-- - [ ] one-line comment -->\n- [ ] real\n", 1, 0, 0,
	  { { 6, O, "real" } }, 6 },
	{ "heading spellings: case, closing #s, indentation",
	  "#Checklist\n    ## Checklist\n### Checklist\n## Checklist items\n- [ ] none of those\n   ##   CHECKLIST   ##\n"
	  "- [x] this one\n",
	  0, 1, 0, { { 7, D, "this one" } }, 0 },
	{ "only the first Checklist section",
	  "## Checklist\n- [ ] first\n## Done\n## Checklist\n- [ ] second section\n", 1, 0, 0, { { 2, O, "first" } }, 2 },
	{ "a byte order mark, skip in any case, NUL-free text kept as written",
	  "\xEF\xBB\xBF## Checklist\n- [skip] Flaky   e2e  \n* [Skip] docs\n- [ ] übersetzen · 日本語\n", 1, 0, 2,
	  { { 2, S, "Flaky   e2e" }, { 3, S, "docs" }, { 4, O, "übersetzen · 日本語" } }, 4 },
};

static void counts_items_as_documented(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(plans) / sizeof(plans[0]); i++)
		check_plan(&plans[i]);
}

static void missing_section_or_items_are_distinct(void **state)
{
	(void)state;
	struct checklist cl;
	const char *plan = "# Plan\n\n## Steps\n- [ ] a step in the wrong section\n";

	assert_int_equal(checklist_parse(plan, strlen(plan), &cl), RTK_EXIT_USAGE);
	assert_int_equal(cl.problem, CHECKLIST_NO_SECTION);
	assert_int_equal(cl.section_line, 0);
	assert_non_null(strstr(rtk_error_message(), "no \"## Checklist\" section"));
	checklist_free(&cl);

	plan = "# Plan\n\n## Checklist\nNothing yet.\n```\n- [ ] an example in a fence\n```\n## Next\n- [ ] elsewhere\n";
	assert_int_equal(checklist_parse(plan, strlen(plan), &cl), RTK_EXIT_USAGE);
	assert_int_equal(cl.problem, CHECKLIST_NO_ITEMS);
	assert_int_equal(cl.section_line, 3);
	assert_non_null(strstr(rtk_error_message(), "(line 3) has no items"));
	checklist_free(&cl);

	assert_int_equal(checklist_parse("", 0, &cl), RTK_EXIT_USAGE);
	assert_int_equal(cl.problem, CHECKLIST_NO_SECTION);
	checklist_free(&cl);

	/* Everything ticked is a found checklist with nothing open. */
	plan = "## Checklist\n- [x] a\n- [SKIP] b\n";
	assert_int_equal(checklist_parse(plan, strlen(plan), &cl), 0);
	assert_null(checklist_first_open(&cl));
	checklist_free(&cl);
}

/* Parses before and after, diffs them, and checks the counters. */
static void diff_plans(const char *before, const char *after, struct checklist *b, struct checklist *a,
		       struct checklist_diff *d)
{
	assert_int_equal(checklist_parse(before, strlen(before), b), 0);
	assert_int_equal(checklist_parse(after, strlen(after), a), 0);
	assert_int_equal(checklist_diff(b, a, d), 0);
}

static void release(struct checklist *b, struct checklist *a, struct checklist_diff *d)
{
	checklist_diff_free(d);
	checklist_free(b);
	checklist_free(a);
}

static void diff_by_text_not_line(void **state)
{
	(void)state;
	struct checklist b, a;
	struct checklist_diff d;

	/* Lines moved by a new paragraph and a new item; B ticked, C skipped with a reason. */
	diff_plans("## Checklist\n- [ ] A\n- [ ] B\n- [ ] C\n",
		   "# Plan\n\nNotes added.\n\n## Checklist\n- [ ] A\n- [ ] A2 new\n- [x] B\n- [SKIP] C: flaky upstream\n", &b, &a,
		   &d);
	assert_int_equal(d.ticked, 1);
	assert_int_equal(d.skipped, 1);
	assert_int_equal(d.added, 1);
	assert_int_equal(d.removed, 0);
	assert_int_equal(d.reopened, 0);
	assert_int_equal(d.n, 3);
	assert_null(d.changes[0].before);
	assert_string_equal(d.changes[0].after->text, "A2 new");
	assert_string_equal(d.changes[1].before->text, "B");
	assert_int_equal(d.changes[1].before->line, 3);
	assert_int_equal(d.changes[1].after->line, 8);
	assert_int_equal(d.changes[1].after->state, CHECKLIST_DONE);
	assert_string_equal(d.changes[2].before->text, "C");
	assert_int_equal(d.changes[2].after->state, CHECKLIST_SKIPPED);
	release(&b, &a, &d);

	/* The same plan twice: nothing changed. */
	diff_plans(plans[0].plan, plans[0].plan, &b, &a, &d);
	assert_int_equal(d.n, 0);
	assert_int_equal(d.ticked + d.skipped + d.added + d.removed + d.reopened, 0);
	release(&b, &a, &d);
}

static void diff_reworded_duplicates_and_blanks(void **state)
{
	(void)state;
	struct checklist b, a;
	struct checklist_diff d;

	/* Ticked with a note appended: the same item. A longer word is not. */
	diff_plans("## Checklist\n- [ ] Add login\n- [ ] Add log\n",
		   "## Checklist\n- [x] Add login (abc123)\n- [x] Add logging\n", &b, &a, &d);
	assert_int_equal(d.ticked, 2);
	assert_int_equal(d.added, 1);
	assert_int_equal(d.removed, 1);
	assert_int_equal(d.n, 3);
	assert_string_equal(d.changes[0].before->text, "Add login");
	assert_null(d.changes[1].before);
	assert_string_equal(d.changes[2].before->text, "Add log");
	assert_null(d.changes[2].after);
	release(&b, &a, &d);

	/* Duplicates pair in order; blank runs count as one space. */
	diff_plans("## Checklist\n- [ ] Write  tests\n- [ ] Write tests\n- [x] Ship\n",
		   "## Checklist\n- [x] Write tests\n- [ ] Write\ttests\n- [ ] Ship\n", &b, &a, &d);
	assert_int_equal(d.ticked, 1);
	assert_int_equal(d.reopened, 1);
	assert_int_equal(d.added + d.removed, 0);
	assert_int_equal(d.n, 2);
	assert_int_equal(d.changes[0].before->line, 2);
	assert_int_equal(d.changes[0].after->line, 2);
	assert_string_equal(d.changes[1].after->text, "Ship");
	release(&b, &a, &d);
}

/* Many identical items: the pairing stays near-linear (a scan from the start per item: 1.25e9 comparisons). */
static void diff_many_duplicates(void **state)
{
	(void)state;
	enum { N = 50000 };
	size_t size = N * 16 + 32;
	char *before = malloc(size), *after = malloc(size);
	struct checklist b, a;
	struct checklist_diff d;
	size_t bn, an;

	assert_non_null(before);
	assert_non_null(after);
	bn = (size_t)snprintf(before, size, "## Checklist\n");
	an = (size_t)snprintf(after, size, "## Checklist\n");
	for (int i = 0; i < N; i++) {
		bn += (size_t)snprintf(before + bn, size - bn, "- [ ] same\n");
		an += (size_t)snprintf(after + an, size - an, i == N - 1 ? "- [x] same\n" : "- [ ] same\n");
	}
	diff_plans(before, after, &b, &a, &d);
	assert_int_equal(b.n, N);
	assert_int_equal(d.ticked, 1);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.changes[0].before->line, N + 1);
	release(&b, &a, &d);
	free(before);
	free(after);
}

/* The items' texts lie one after another in the plan's own buffer, which the checklist keeps, cut to them. */
static void texts_kept_in_the_plans_buffer(void **state)
{
	(void)state;
	static const char plan[] = "\xEF\xBB\xBF# Plan\r\n\nA long paragraph of prose that is no item at all.\n\n## Checklist\r\n"
				   "- [x] one  \r\n  * [ ] two\tthree\n- [ ]\n- [SKIP] four: down\n- [ ] cut\0 after a NUL\n";
	static const char *const want[] = { "one", "two\tthree", "", "four: down", "cut" };
	struct checklist owned, copied;
	char *text = malloc(sizeof(plan) - 1);
	assert_non_null(text);
	memcpy(text, plan, sizeof(plan) - 1);
	assert_int_equal(checklist_parse_owned(text, sizeof(plan) - 1, &owned), 0);
	assert_int_equal(checklist_parse(plan, sizeof(plan) - 1, &copied), 0);
	assert_int_equal(owned.n, 5);
	assert_int_equal(copied.n, 5);
	for (size_t i = 0; i < owned.n; i++) {
		assert_string_equal(owned.items[i].text, want[i]);
		assert_string_equal(copied.items[i].text, want[i]);
		assert_int_equal(owned.items[i].line, copied.items[i].line);
		assert_ptr_equal(owned.items[i].text, i ? owned.items[i - 1].text + strlen(owned.items[i - 1].text) + 1 : owned.texts);
	}
	assert_int_equal(owned.items[4].line, 10);
	checklist_free(&owned); /* and the buffer with it: ASan and valgrind see nothing left */
	checklist_free(&copied);

	/* A plan without the section still hands its buffer over. */
	text = strdup("no checklist here\n");
	assert_non_null(text);
	assert_int_equal(checklist_parse_owned(text, strlen(text), &owned), RTK_EXIT_USAGE);
	checklist_free(&owned);
}

static unsigned long next_rand(unsigned long *s)
{
	*s = *s * 6364136223846793005UL + 1442695040888963407UL;
	return *s >> 33;
}

/* A random item line from a few texts, so there are duplicates, reworded items and blank runs. */
static void random_item(struct rtk_strbuf *b, unsigned long *s)
{
	static const char *const boxes[] = { "[ ]", "[x]", "[SKIP]" };
	static const char *const texts[] = { "Add login", "Add login (abc123)", "Add  login", "Add\tlogin", "Add log", "Ship",
					     "Ship: later", "Write tests", "Write  tests", "x" };
	rtk_strbuf_printf(b, "- %s %s\n", boxes[next_rand(s) % 3], texts[next_rand(s) % 10]);
}

/*
 * The pairing takes the items equal from the top as pairs without searching: it must pair exactly as
 * the full search does. An item no other text can pair with put first in after makes it search all;
 * the changes must be the same but for that one (and after's lines one further down).
 */
static void diff_same_start_pairs_as_the_full_search(void **state)
{
	(void)state;
	int searched_from_middle = 0;
	for (unsigned long seed = 1; seed <= 2000; seed++) {
		unsigned long s = seed;
		struct rtk_strbuf before = { 0 }, after = { 0 }, forced = { 0 };
		struct checklist b, a, f;
		struct checklist_diff d, full;
		size_t n = next_rand(&s) % 12 + 1, keep = next_rand(&s) % (n + 1);
		rtk_strbuf_puts(&before, "## Checklist\n");
		rtk_strbuf_puts(&after, "## Checklist\n");
		rtk_strbuf_puts(&forced, "## Checklist\n- [ ] \x01 nothing pairs with this\n");
		for (size_t i = 0; i < n; i++) {
			size_t at = before.len;
			random_item(&before, &s);
			if (i < keep) /* the same text, its box ticked or not */
				rtk_strbuf_printf(&after, "- %s %s", next_rand(&s) % 2 ? "[x]" : "[ ]", strchr(before.s + at, ']') + 2);
		}
		for (size_t i = next_rand(&s) % 8 + !keep; i > 0; i--) /* after needs an item too */
			random_item(&after, &s);
		rtk_strbuf_puts(&forced, strchr(after.s, '\n') + 1);
		diff_plans(before.s, after.s, &b, &a, &d);
		assert_int_equal(checklist_parse(forced.s, forced.len, &f), 0);
		assert_int_equal(checklist_diff(&b, &f, &full), 0);
		assert_int_equal(full.n, d.n + 1);
		assert_null(full.changes[0].before);
		assert_ptr_equal(full.changes[0].after, &f.items[0]);
		for (size_t i = 0; i < d.n; i++) {
			const struct checklist_change *x = &d.changes[i], *y = &full.changes[i + 1];
			assert_ptr_equal(x->before, y->before);
			assert_int_equal(x->after ? (long)(x->after - a.items) : -1, y->after ? (long)(y->after - f.items) - 1 : -1);
		}
		assert_int_equal(full.added, d.added + 1);
		assert_int_equal(full.ticked + full.skipped + full.reopened + full.removed, d.ticked + d.skipped + d.reopened + d.removed);
		searched_from_middle += keep > 0 && keep < n && d.n;
		checklist_diff_free(&full);
		checklist_free(&f);
		release(&b, &a, &d);
		rtk_strbuf_free(&before), rtk_strbuf_free(&after), rtk_strbuf_free(&forced);
	}
	assert_true(searched_from_middle > 500);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(texts_kept_in_the_plans_buffer),
	cmocka_unit_test(diff_same_start_pairs_as_the_full_search),
	cmocka_unit_test(counts_items_as_documented),
	cmocka_unit_test(missing_section_or_items_are_distinct),
	cmocka_unit_test(diff_by_text_not_line),
	cmocka_unit_test(diff_reworded_duplicates_and_blanks),
	cmocka_unit_test(diff_many_duplicates),
};

RTK_UNIT_MAIN(tests)
