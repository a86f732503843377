/* src/loop/checklist.c — counting a plan's "## Checklist" boxes line by line, and pairing two reads by item text. */
#include "config.h"
#include "checklist.h"
#include "lib/alloc.h"
#include "lib/err.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* How many unused texts the reworded-item pass looks at for one item, so hostile plans stay linear. */
#define CHECKLIST_PREFIX_TRIES 64

const char *checklist_state_name(enum checklist_state state)
{
	switch (state) {
	case CHECKLIST_OPEN:
		return "open";
	case CHECKLIST_DONE:
		return "done";
	case CHECKLIST_SKIPPED:
		return "skipped";
	}
	RTK_BUG("unknown checklist state %d", (int)state);
}

void checklist_free(struct checklist *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->items[i].text);
	free(c->items);
	memset(c, 0, sizeof(*c));
}

const struct checklist_item *checklist_first_open(const struct checklist *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->items[i].state == CHECKLIST_OPEN)
			return &c->items[i];
	return NULL;
}

/* ---- one line --------------------------------------------------------------------------------- */

/* A line without its end of line: [s, s + n). */
struct line {
	const char *s;
	size_t n;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The line after its leading blanks; *indent gets their number (a tab counts one). */
static struct line unindent(struct line l, size_t *indent)
{
	size_t i = 0;

	while (i < l.n && is_blank(l.s[i]))
		i++;
	if (indent)
		*indent = i;
	return (struct line){ l.s + i, l.n - i };
}

static struct line trim_end(struct line l)
{
	while (l.n && (is_blank(l.s[l.n - 1]) || l.s[l.n - 1] == '\r'))
		l.n--;
	return l;
}

/* The run of c at the start of l. */
static size_t run_of(struct line l, char c)
{
	size_t n = 0;

	while (n < l.n && l.s[n] == c)
		n++;
	return n;
}

/* A fence opener (``` or ~~~, three or more; a backtick fence's info string has no backtick). */
static bool opens_fence(struct line l, char *fence, size_t *fence_len)
{
	struct line u = unindent(l, NULL);
	char c = u.n ? u.s[0] : '\0';
	size_t run;

	if (c != '`' && c != '~')
		return false;
	if ((run = run_of(u, c)) < 3 || (c == '`' && memchr(u.s + run, '`', u.n - run)))
		return false;
	*fence = c, *fence_len = run;
	return true;
}

static bool closes_fence(struct line l, char fence, size_t fence_len)
{
	struct line u = trim_end(unindent(l, NULL));
	size_t run = run_of(u, fence);

	return run >= fence_len && run == u.n;
}

static const char *find(struct line l, const char *what)
{
	size_t w = strlen(what);

	for (size_t i = 0; i + w <= l.n; i++)
		if (!memcmp(l.s + i, what, w))
			return l.s + i;
	return NULL;
}

/* An ATX heading's level (1-6), or 0; *title gets its text without the closing #s. */
static int heading_level(struct line l, struct line *title)
{
	size_t indent, level;
	struct line u = unindent(l, &indent);

	if (indent > 3 || (level = run_of(u, '#')) == 0 || level > 6 || (level < u.n && !is_blank(u.s[level])))
		return 0;
	*title = trim_end(unindent((struct line){ u.s + level, u.n - level }, NULL));
	/* "## Checklist ##": a closing run of #s counts only after a blank (or as the whole title). */
	size_t closing = 0;
	while (closing < title->n && title->s[title->n - 1 - closing] == '#')
		closing++;
	if (closing == title->n || is_blank(title->s[title->n - 1 - closing])) {
		title->n -= closing;
		*title = trim_end(*title);
	}
	return (int)level;
}

/* "- [x] text" at any indentation: true with *state and *text (the text trimmed) set. */
static bool item_line(struct line l, enum checklist_state *state, struct line *text)
{
	struct line u = unindent(l, NULL);
	size_t box;

	if (u.n < 2 || (u.s[0] != '-' && u.s[0] != '*' && u.s[0] != '+') || !is_blank(u.s[1]))
		return false;
	u = unindent((struct line){ u.s + 1, u.n - 1 }, NULL);
	if (u.n >= 3 && u.s[0] == '[' && u.s[2] == ']' && (u.s[1] == ' ' || u.s[1] == 'x' || u.s[1] == 'X')) {
		*state = u.s[1] == ' ' ? CHECKLIST_OPEN : CHECKLIST_DONE;
		box = 3;
	} else if (u.n >= 6 && !strncasecmp(u.s, "[skip]", 6)) {
		*state = CHECKLIST_SKIPPED;
		box = 6;
	} else {
		return false;
	}
	if (box < u.n && !is_blank(u.s[box]))
		return false; /* "- [x](url)" is a link, "- [ ]x" no box */
	*text = trim_end(unindent((struct line){ u.s + box, u.n - box }, NULL));
	return true;
}

/* ---- the plan ---------------------------------------------------------------------------------- */

/* Where the scan is: inside a fence, a comment, the section. */
struct scan {
	char fence;       /* '`' or '~' inside a fenced block, else 0 */
	size_t fence_len;
	bool comment;     /* inside <!-- ... --> */
	bool in_section;
};

static int add_item(struct checklist *c, enum checklist_state state, size_t line, struct line text)
{
	struct checklist_item *item;

	if (RTK_ALLOC_GROW(c->items, c->n + 1, c->cap))
		return RTK_EXIT_FAILURE;
	item = &c->items[c->n];
	if (!(item->text = malloc(text.n + 1)))
		return rtk_oom();
	memcpy(item->text, text.s, text.n);
	item->text[text.n] = '\0';
	item->state = state, item->line = line;
	c->n++;
	c->open += state == CHECKLIST_OPEN;
	c->done += state == CHECKLIST_DONE;
	c->skipped += state == CHECKLIST_SKIPPED;
	return 0;
}

/* Skips code and comments, follows headings, and adds the item on l if it is one in the section. */
static int scan_line(struct checklist *c, struct scan *s, struct line l, size_t lineno)
{
	struct line title, text;
	enum checklist_state state;
	const char *open;
	int level;

	if (s->fence) {
		if (closes_fence(l, s->fence, s->fence_len))
			s->fence = 0;
		return 0;
	}
	if (s->comment) {
		s->comment = find(l, "-->") == NULL;
		return 0;
	}
	if (opens_fence(l, &s->fence, &s->fence_len))
		return 0;
	if ((open = find(l, "<!--")) && unindent(l, NULL).s == open) {
		s->comment = !find((struct line){ open + 4, l.n - (size_t)(open + 4 - l.s) }, "-->");
		return 0;
	}
	if ((level = heading_level(l, &title))) {
		if (level <= 2) {
			bool checklist = level == 2 && title.n == 9 && !strncasecmp(title.s, "checklist", 9);
			s->in_section = checklist && !c->section_line; /* the first such section only */
			if (s->in_section)
				c->section_line = lineno;
		}
		return 0;
	}
	if (s->in_section && item_line(l, &state, &text))
		return add_item(c, state, lineno, text);
	return 0;
}

int checklist_parse(const char *text, size_t len, struct checklist *out)
{
	struct scan s = { 0 };
	size_t lineno = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
		text += 3, len -= 3;
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		struct line l = { p, nl ? (size_t)(nl - p) : (size_t)(end - p) };
		if (l.n && l.s[l.n - 1] == '\r')
			l.n--;
		if ((rc = scan_line(out, &s, l, ++lineno)))
			return rc;
		p = nl ? nl + 1 : end;
	}
	if (!out->section_line) {
		out->problem = CHECKLIST_NO_SECTION;
		return rtk_fail(RTK_EXIT_USAGE, "no \"## Checklist\" section: the plan needs that heading with items "
						"under it such as \"- [ ] first step\"");
	}
	if (!out->n) {
		out->problem = CHECKLIST_NO_ITEMS;
		return rtk_fail(RTK_EXIT_USAGE, "the \"## Checklist\" section (line %zu) has no items: add lines such as "
						"\"- [ ] first step\" (boxes in code blocks do not count)", out->section_line);
	}
	return 0;
}

/* ---- comparing two reads ----------------------------------------------------------------------- */

/* Item texts with blank runs as one space, for comparing; sorted holds after's indices by text. */
struct pairing {
	char **before_key, **after_key;
	size_t *sorted;     /* after's item indices, by (key, index) */
	size_t *next_free;  /* union-find over sorted positions: the first unused one at or after i */
	size_t *match;      /* before's index -> after's index, SIZE_MAX when unpaired */
	bool *after_paired;
};

static char *normalise(const char *s)
{
	char *key = malloc(strlen(s) + 1), *o = key;

	if (!key)
		return NULL;
	for (; *s; s++) {
		if (is_blank(*s)) {
			if (o != key && o[-1] != ' ')
				*o++ = ' ';
		} else {
			*o++ = *s;
		}
	}
	if (o != key && o[-1] == ' ')
		o--;
	*o = '\0';
	return key;
}

/* Indices into keys, by key and then by index (glibc's qsort_r passes keys as the context). */
static int compare_sorted(const void *a, const void *b, void *keys)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(((char **)keys)[i], ((char **)keys)[j]);

	return c ? c : (i > j) - (i < j);
}

static char **keys_of(const struct checklist *c)
{
	char **keys = calloc(c->n + 1, sizeof(*keys));

	for (size_t i = 0; keys && i < c->n; i++)
		if (!(keys[i] = normalise(c->items[i].text))) {
			while (i--)
				free(keys[i]);
			free(keys);
			return NULL;
		}
	return keys;
}

static void free_keys(char **keys, size_t n)
{
	for (size_t i = 0; keys && i < n; i++)
		free(keys[i]);
	free(keys);
}

static void pairing_free(struct pairing *p, const struct checklist *before, const struct checklist *after)
{
	free_keys(p->before_key, before->n);
	free_keys(p->after_key, after->n);
	free(p->sorted), free(p->next_free), free(p->match), free(p->after_paired);
}

static int pairing_init(struct pairing *p, const struct checklist *before, const struct checklist *after)
{
	memset(p, 0, sizeof(*p));
	p->before_key = keys_of(before);
	p->after_key = keys_of(after);
	p->sorted = calloc(after->n + 1, sizeof(size_t));
	p->next_free = calloc(after->n + 1, sizeof(size_t));
	p->match = calloc(before->n + 1, sizeof(size_t));
	p->after_paired = calloc(after->n + 1, sizeof(bool));
	if (!p->before_key || !p->after_key || !p->sorted || !p->next_free || !p->match || !p->after_paired)
		return rtk_oom();
	for (size_t i = 0; i <= after->n; i++)
		p->sorted[i] = i, p->next_free[i] = i;
	for (size_t i = 0; i < before->n; i++)
		p->match[i] = SIZE_MAX;
	qsort_r(p->sorted, after->n, sizeof(size_t), compare_sorted, p->after_key);
	return 0;
}

/* The first unused sorted position at or after i (after->n when none), halving paths as it goes. */
static size_t first_free(struct pairing *p, size_t i)
{
	while (p->next_free[i] != i) {
		p->next_free[i] = p->next_free[p->next_free[i]];
		i = p->next_free[i];
	}
	return i;
}

/* The first sorted position whose key is not below key. */
static size_t lower_bound(const struct pairing *p, size_t n, const char *key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(p->after_key[p->sorted[mid]], key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void pair(struct pairing *p, size_t b, size_t pos)
{
	p->match[b] = p->sorted[pos];
	p->after_paired[p->sorted[pos]] = true;
	p->next_free[pos] = pos + 1;
}

/* "Add login" and "Add login (abc123)": after's key extends before's at a word's end. */
static bool extends(const char *after, const char *before, size_t n)
{
	unsigned char next = (unsigned char)after[n];

	return !strncmp(after, before, n) && n > 0 && next &&
	       !((next >= '0' && next <= '9') || (next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z'));
}

static void pair_items(struct pairing *p, size_t n_before, size_t n_after)
{
	for (size_t b = 0; b < n_before; b++) {
		size_t pos = first_free(p, lower_bound(p, n_after, p->before_key[b]));
		if (pos < n_after && !strcmp(p->after_key[p->sorted[pos]], p->before_key[b]))
			pair(p, b, pos);
	}
	for (size_t b = 0; b < n_before; b++) {
		size_t n = strlen(p->before_key[b]), pos = lower_bound(p, n_after, p->before_key[b]);
		if (p->match[b] != SIZE_MAX)
			continue;
		for (int tries = 0; tries < CHECKLIST_PREFIX_TRIES && (pos = first_free(p, pos)) < n_after; tries++, pos++) {
			const char *key = p->after_key[p->sorted[pos]];
			if (strncmp(key, p->before_key[b], n))
				break; /* sorted: past the texts that start with it */
			if (extends(key, p->before_key[b], n)) {
				pair(p, b, pos);
				break;
			}
		}
	}
}

static int add_change(struct checklist_diff *d, const struct checklist_item *before, const struct checklist_item *after)
{
	if (RTK_ALLOC_GROW(d->changes, d->n + 1, d->cap))
		return RTK_EXIT_FAILURE;
	d->changes[d->n++] = (struct checklist_change){ before, after };
	d->ticked += after && after->state == CHECKLIST_DONE && !(before && before->state == CHECKLIST_DONE);
	d->skipped += after && after->state == CHECKLIST_SKIPPED && !(before && before->state == CHECKLIST_SKIPPED);
	d->reopened += after && before && after->state == CHECKLIST_OPEN && before->state != CHECKLIST_OPEN;
	d->added += !before;
	d->removed += !after;
	return 0;
}

static int list_changes(struct checklist_diff *d, const struct pairing *p, const struct checklist *before,
			const struct checklist *after)
{
	/* after's index -> before's item, inverted from match */
	const struct checklist_item **from = calloc(after->n + 1, sizeof(*from));
	int rc = 0;

	if (!from)
		return rtk_oom();
	for (size_t b = 0; b < before->n; b++)
		if (p->match[b] != SIZE_MAX)
			from[p->match[b]] = &before->items[b];
	for (size_t a = 0; a < after->n && !rc; a++)
		if (!from[a] || from[a]->state != after->items[a].state)
			rc = add_change(d, from[a], &after->items[a]);
	for (size_t b = 0; b < before->n && !rc; b++)
		if (p->match[b] == SIZE_MAX)
			rc = add_change(d, &before->items[b], NULL);
	free(from);
	return rc;
}

int checklist_diff(const struct checklist *before, const struct checklist *after, struct checklist_diff *out)
{
	struct pairing p;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!(rc = pairing_init(&p, before, after))) {
		pair_items(&p, before->n, after->n);
		rc = list_changes(out, &p, before, after);
	}
	pairing_free(&p, before, after);
	return rc;
}

void checklist_diff_free(struct checklist_diff *d)
{
	free(d->changes);
	memset(d, 0, sizeof(*d));
}
