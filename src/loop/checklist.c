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
	free(c->items);
	free(c->texts);
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

/* Where the scan is: inside a fence, a comment, the section; where the next item's text is kept. */
struct scan {
	char fence;       /* '`' or '~' inside a fenced block, else 0 */
	size_t fence_len;
	bool comment;     /* inside <!-- ... --> */
	bool in_section;
	char *keep;       /* in the plan's buffer, behind the line being scanned */
};

/*
 * The item's text is moved to the front of the plan's own buffer, into lines already scanned: it never
 * reaches its own line's end, which "- [ ]" before it keeps at least five bytes ahead. Up to a NUL in it,
 * which ends it as a string anyway, so the texts lie one after another and strlen steps from one to the next.
 */
static int add_item(struct checklist *c, struct scan *s, enum checklist_state state, size_t line, struct line text)
{
	struct checklist_item *item;
	size_t n = strnlen(text.s, text.n);

	if (RTK_ALLOC_GROW(c->items, c->n + 1, c->cap))
		return RTK_EXIT_FAILURE;
	item = &c->items[c->n];
	memmove(s->keep, text.s, n);
	s->keep[n] = '\0';
	item->text = s->keep;
	s->keep += n + 1;
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
		return add_item(c, s, state, lineno, text);
	return 0;
}

/* The buffer cut down to the texts kept at its front, and the items pointed at them again (realloc may move it). */
static void keep_texts(struct checklist *c, size_t kept, size_t len)
{
	char *fit = kept < len ? realloc(c->texts, kept) : NULL, *p;

	if (!fit)
		return; /* nothing to cut, or no smaller block to be had: the texts stay where they are */
	c->texts = p = fit;
	for (size_t i = 0; i < c->n; i++) {
		c->items[i].text = p;
		p += strlen(p) + 1;
	}
}

int checklist_parse(const char *text, size_t len, struct checklist *out)
{
	char *copy = malloc(len + 1);

	if (!copy) {
		memset(out, 0, sizeof(*out));
		return rtk_oom();
	}
	memcpy(copy, text, len);
	return checklist_parse_owned(copy, len, out);
}

int checklist_parse_owned(char *text, size_t len, struct checklist *out)
{
	struct scan s = { .keep = text };
	size_t lineno = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	out->texts = text;
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
	keep_texts(out, (size_t)(s.keep - out->texts), len);
	return 0;
}

/* ---- comparing two reads ----------------------------------------------------------------------- */

/*
 * The items of two reads from the first place their texts differ on (see checklist_diff), compared by
 * key: the text with blank runs as one space. A side none of whose texts has such a run (the usual
 * case) uses its texts as keys rather than copies; sorted holds after's indices by key.
 */
struct pairing {
	const struct checklist_item *before, *after;
	size_t n_before, n_after;
	char **before_key, **after_key; /* NULL: the texts are the keys */
	size_t *sorted;     /* after's item indices, by (key, index) */
	size_t *next_free;  /* union-find over sorted positions: the first unused one at or after i */
	size_t *match;      /* before's index -> after's index, SIZE_MAX when unpaired */
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

/* Whether normalise(s) would give s back: no tab, no blank at either end, no two blanks in a row. */
static bool is_normal(const char *s)
{
	if (*s == ' ')
		return false;
	for (; *s; s++)
		if (*s == '\t' || (*s == ' ' && (s[1] == ' ' || !s[1])))
			return false;
	return true;
}

static const char *before_key(const struct pairing *p, size_t b)
{
	return p->before_key ? p->before_key[b] : p->before[b].text;
}

static const char *after_key(const struct pairing *p, size_t a)
{
	return p->after_key ? p->after_key[a] : p->after[a].text;
}

/* Indices into after, by key and then by index (glibc's qsort_r passes the pairing as the context). */
static int compare_sorted(const void *a, const void *b, void *pairing)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(after_key(pairing, i), after_key(pairing, j));

	return c ? c : (i > j) - (i < j);
}

static void free_keys(char **keys, const struct checklist_item *items, size_t n)
{
	for (size_t i = 0; keys && i < n; i++)
		if (keys[i] != items[i].text)
			free(keys[i]);
	free(keys);
}

/* *keys: NULL when every text is its own key, else each text's key (the text itself where it is one). */
static int keys_of(const struct checklist_item *items, size_t n, char ***keys)
{
	size_t first = 0;

	*keys = NULL;
	while (first < n && is_normal(items[first].text))
		first++;
	if (first == n)
		return 0;
	if (!(*keys = calloc(n, sizeof(**keys))))
		return rtk_oom();
	for (size_t i = 0; i < n; i++)
		if (!((*keys)[i] = i < first || is_normal(items[i].text) ? items[i].text : normalise(items[i].text))) {
			free_keys(*keys, items, i);
			*keys = NULL;
			return rtk_oom();
		}
	return 0;
}

static void pairing_free(struct pairing *p)
{
	free_keys(p->before_key, p->before, p->n_before);
	free_keys(p->after_key, p->after, p->n_after);
	free(p->sorted), free(p->next_free), free(p->match);
}

/* The pairing of before's and after's items from the index same on. */
static int pairing_init(struct pairing *p, const struct checklist *before, const struct checklist *after, size_t same)
{
	memset(p, 0, sizeof(*p));
	/* a checklist that found no items may have no array to point into */
	p->before = before->items ? before->items + same : NULL, p->n_before = before->n - same;
	p->after = after->items ? after->items + same : NULL, p->n_after = after->n - same;
	if (keys_of(p->before, p->n_before, &p->before_key) || keys_of(p->after, p->n_after, &p->after_key))
		return RTK_EXIT_FAILURE;
	p->sorted = calloc(p->n_after + 1, sizeof(size_t));
	p->next_free = calloc(p->n_after + 1, sizeof(size_t));
	p->match = calloc(p->n_before + 1, sizeof(size_t));
	if (!p->sorted || !p->next_free || !p->match)
		return rtk_oom();
	for (size_t i = 0; i <= p->n_after; i++)
		p->sorted[i] = i, p->next_free[i] = i;
	for (size_t i = 0; i < p->n_before; i++)
		p->match[i] = SIZE_MAX;
	qsort_r(p->sorted, p->n_after, sizeof(size_t), compare_sorted, p);
	return 0;
}

/* The first unused sorted position at or after i (n_after when none), halving paths as it goes. */
static size_t first_free(struct pairing *p, size_t i)
{
	while (p->next_free[i] != i) {
		p->next_free[i] = p->next_free[p->next_free[i]];
		i = p->next_free[i];
	}
	return i;
}

/* The first sorted position whose key is not below key. */
static size_t lower_bound(const struct pairing *p, const char *key)
{
	size_t lo = 0, hi = p->n_after;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(after_key(p, p->sorted[mid]), key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void pair(struct pairing *p, size_t b, size_t pos)
{
	p->match[b] = p->sorted[pos];
	p->next_free[pos] = pos + 1;
}

/* "Add login" and "Add login (abc123)": after's key extends before's at a word's end. */
static bool extends(const char *after, const char *before, size_t n)
{
	unsigned char next = (unsigned char)after[n];

	return !strncmp(after, before, n) && n > 0 && next &&
	       !((next >= '0' && next <= '9') || (next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z'));
}

static void pair_items(struct pairing *p)
{
	for (size_t b = 0; b < p->n_before; b++) {
		size_t pos = first_free(p, lower_bound(p, before_key(p, b)));
		if (pos < p->n_after && !strcmp(after_key(p, p->sorted[pos]), before_key(p, b)))
			pair(p, b, pos);
	}
	for (size_t b = 0; b < p->n_before; b++) {
		const char *mine = before_key(p, b);
		size_t n = strlen(mine), pos = lower_bound(p, mine);
		if (p->match[b] != SIZE_MAX)
			continue;
		for (int tries = 0; tries < CHECKLIST_PREFIX_TRIES && (pos = first_free(p, pos)) < p->n_after; tries++, pos++) {
			const char *key = after_key(p, p->sorted[pos]);
			if (strncmp(key, mine, n))
				break; /* sorted: past the texts that start with it */
			if (extends(key, mine, n)) {
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

/* The changes: the first same items of after paired in place, the rest as p paired them. */
static int list_changes(struct checklist_diff *d, const struct pairing *p, const struct checklist *before,
			const struct checklist *after, size_t same)
{
	/* p's after index -> before's item, inverted from match */
	const struct checklist_item **from = calloc(p->n_after + 1, sizeof(*from));
	int rc = 0;

	if (!from)
		return rtk_oom();
	for (size_t b = 0; b < p->n_before; b++)
		if (p->match[b] != SIZE_MAX)
			from[p->match[b]] = &p->before[b];
	for (size_t a = 0; a < after->n && !rc; a++) {
		const struct checklist_item *was = a < same ? &before->items[a] : from[a - same];
		if (!was || was->state != after->items[a].state)
			rc = add_change(d, was, &after->items[a]);
	}
	for (size_t b = 0; b < p->n_before && !rc; b++)
		if (p->match[b] == SIZE_MAX)
			rc = add_change(d, &p->before[b], NULL);
	free(from);
	return rc;
}

/*
 * Items with equal texts at the same place from the top pair with each other: the first pass pairs
 * each item of before, in order, with the first unused one of after with its key, and for the k-th
 * item that is after's k-th (all before it used already). So only what follows them is sorted and
 * searched, and a round that ticks boxes without editing a text costs no more than the two reads.
 */
int checklist_diff(const struct checklist *before, const struct checklist *after, struct checklist_diff *out)
{
	struct pairing p;
	size_t same = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	while (same < before->n && same < after->n && !strcmp(before->items[same].text, after->items[same].text))
		same++;
	if (!(rc = pairing_init(&p, before, after, same))) {
		pair_items(&p);
		rc = list_changes(out, &p, before, after, same);
	}
	pairing_free(&p);
	return rc;
}

void checklist_diff_free(struct checklist_diff *d)
{
	free(d->changes);
	memset(d, 0, sizeof(*d));
}
