/* src/githistory/message.c — what the rules of git-history read from a commit's message as the walk makes its
 * record: its kind (revert, reapply), its fix markers, and once the window is walked the commit convention its
 * subjects follow (data/rules/commit-conventions.yaml), the fix rule set and its fixes. */
#include "config.h"
#include "message.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

static bool matches(const struct rtk_re *re, const char *s)
{
	return re && s && rtk_re_matches(re, s, strlen(s));
}

/* The kinds (bits) whose tag lists name the word w[0..n), ignoring case. */
static unsigned kinds_of_word(const struct githistory_convention *k, const char *w, size_t n)
{
	unsigned bits = 0;
	for (unsigned j = 0; j < GITHISTORY_TAG_KINDS; j++) {
		const cJSON *t;
		if (!(k->kinds_listed & GITHISTORY_TAG_BIT(j)))
			continue;
		cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(k->kinds, githistory_rules_kind_name(j)))
			if (strlen(t->valuestring) == n && !strncasecmp(t->valuestring, w, n))
				bits |= GITHISTORY_TAG_BIT(j);
	}
	return bits;
}

bool githistory_message_header(const struct githistory_convention *k, const char *subject, size_t *text, unsigned *kinds)
{
	size_t a, b, ta = 0, tb, len = strlen(subject);
	*text = 0, *kinds = 0;
	if (!k->header || rtk_re_search(k->header, subject, len, 0, &a, &b) != 1 || a)
		return false;
	tb = b;
	if (k->tags && rtk_re_search(k->tags, subject, b, 0, &ta, &tb) != 1)
		ta = tb = 0; /* a header with no tags in it */
	/* The tags are the words of that span: letters, digits, '_' and '-'. */
	for (size_t i = ta; k->kinds_listed && i < tb;) {
		size_t j = i;
		while (j < tb && (isalnum((unsigned char)subject[j]) || subject[j] == '_' || subject[j] == '-'))
			j++;
		if (j > i)
			*kinds |= kinds_of_word(k, subject + i, j - i);
		i = j > i ? j : i + 1;
	}
	*text = b;
	/* A convention that lists kinds is followed only by a header holding one of its tags. */
	return !k->kinds_listed || *kinds;
}

bool githistory_message_follows(const struct githistory_convention *k, const struct githistory_commit *c)
{
	size_t text;
	unsigned kinds;
	return k->message ? matches(k->message, c->message) : githistory_message_header(k, c->subject, &text, &kinds);
}

/*
 * The free-form rules (fix.free_form) on the text given (a subject, or the text after its header) and the message:
 * a Fixes: trailer or words naming the commit that caused the problem; an issue reference alone makes no fix
 * (issue 25, item 3).
 */
static bool free_form(const struct githistory_rules *r, const struct githistory_commit *c, const char *text)
{
	return matches(r->free_subject, text) || matches(r->free_message, c->message);
}

/*
 * A fix under the convention in force (none: the free-form fallback): a tag of kind fix; a tag of another kind
 * decides it is none; a neutral tag leaves the text after the header to the free-form rules, a header of a
 * convention listing no kinds that text and the whole subject; a subject without the header goes to the
 * free-form rules when the convention says so (others: free-form). fix.subject in every case.
 */
static void classify_fix(const struct githistory_rules *r, struct githistory_commit *c)
{
	const struct githistory_convention *k = r->convention >= 0 ? &r->conv[r->convention] : NULL;
	const unsigned neutral = GITHISTORY_TAG_BIT(GITHISTORY_TAG_NEUTRAL);
	size_t text = 0;
	unsigned kinds = 0;
	bool header;

	/* A light record (the walk read its graph alone, no message yet) is no remedy of the window. */
	if (c->kind != GITHISTORY_KIND_OTHER || c->light || !c->subject)
		return;
	header = k && githistory_message_header(k, c->subject, &text, &kinds);
	c->fix_type = c->fix_free = false;
	if (header && (kinds & ~neutral))
		c->fix_type = kinds & GITHISTORY_TAG_BIT(GITHISTORY_TAG_FIX);
	else if (header)
		c->fix_free = free_form(r, c, c->subject + text) || (!k->kinds_listed && free_form(r, c, c->subject));
	else if (!k || k->others_free_form)
		c->fix_free = free_form(r, c, c->subject);
	if (c->fix_word || c->fix_type || c->fix_free)
		c->kind = GITHISTORY_KIND_FIX;
}

/* A revert by a tag of any convention listing revert tags (revert:, REV:), whichever convention is in force. */
static bool revert_tag(const struct githistory_rules *r, struct githistory_commit *c)
{
	for (size_t i = 0; i < r->nconv; i++) {
		const struct githistory_convention *k = &r->conv[i];
		size_t text;
		unsigned kinds;
		if ((k->kinds_listed & GITHISTORY_TAG_BIT(GITHISTORY_TAG_REVERT)) && githistory_message_header(k, c->subject, &text, &kinds) &&
		    (kinds & GITHISTORY_TAG_BIT(GITHISTORY_TAG_REVERT))) {
			c->revert_text = text < 65535 ? (unsigned short)text : 0;
			return true;
		}
	}
	return false;
}

void githistory_message_read(const struct githistory_rules *r, struct githistory_commit *c)
{
	c->fix_word = matches(r->fix_subject, c->subject);
	c->formatting = matches(r->formatting_subject, c->subject) || matches(r->formatting_author, c->author);
	if (matches(r->reapply_subject, c->subject))
		c->kind = GITHISTORY_KIND_REAPPLY;
	else if (revert_tag(r, c) || matches(r->revert_subject, c->subject) || matches(r->reverts_commit, c->message))
		c->kind = GITHISTORY_KIND_REVERT;
	else if (r->fix_set != GITHISTORY_FIX_AUTO)
		classify_fix(r, c);
}

void githistory_message_fix_set(struct githistory_run *h)
{
	struct githistory_rules *r = &h->rules;
	h->window_nonmerges = 0;
	for (size_t k = 0; k < r->nconv; k++)
		r->conv[k].subjects = 0;
	for (size_t i = 0; i < h->n; i++) {
		const struct githistory_commit *c = h->v[i];
		if (!c->in_window || c->nparents > 1)
			continue;
		h->window_nonmerges++;
		for (size_t k = 0; k < r->nconv; k++)
			r->conv[k].subjects += githistory_message_follows(&r->conv[k], c);
	}
	if (r->fix_set == GITHISTORY_FIX_AUTO) {
		/* The first convention whose share reaches its min_share, in the table's order. An empty window has no
		 * subjects to go by: the first convention, as the conventional rules were before the choice existed. */
		r->convention = -1;
		for (size_t k = 0; k < r->nconv && r->convention < 0; k++)
			if (!h->window_nonmerges || (double)r->conv[k].subjects / (double)h->window_nonmerges >= r->conv[k].min_share)
				r->convention = (int)k;
		r->fix_set = r->convention >= 0 && (r->conv[r->convention].kinds_listed & GITHISTORY_TAG_BIT(GITHISTORY_TAG_FIX))
				     ? GITHISTORY_FIX_CONVENTIONAL
				     : GITHISTORY_FIX_FREE_FORM;
	}
	for (size_t i = 0; i < rtk_strmap_count(h->by_oid); i++)
		classify_fix(r, rtk_strmap_value_at(h->by_oid, i));
}

const char *githistory_message_fix_set_name(enum githistory_fix_set s)
{
	return s == GITHISTORY_FIX_FREE_FORM ? "free-form" : "conventional";
}

char *githistory_message_own_words(const struct githistory_rules *r, const struct githistory_commit *c)
{
	char *m = strdup(c->message);
	if (m)
		ownwords_blank(m, strlen(m), &r->own, c->kind == GITHISTORY_KIND_REVERT || c->kind == GITHISTORY_KIND_REAPPLY);
	return m;
}
