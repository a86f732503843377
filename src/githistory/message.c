/* src/githistory/message.c — what the rules of git-history read from a commit's message as the walk makes its
 * record: its kind (revert, reapply), its fix markers, and once the window is walked the fix rule set and its fixes. */
#include "config.h"
#include "message.h"
#include "convcommit.h"

#include <string.h>

static bool type_in(const struct convcommit *c, const cJSON *types)
{
	const cJSON *t;
	cJSON_ArrayForEach(t, types)
		if (cJSON_IsString(t) && convcommit_type_is(c, t->valuestring))
			return true;
	return false;
}

static bool matches(const struct rtk_re *re, const char *s)
{
	return s && rtk_re_matches(re, s, strlen(s));
}

/* A fix by the rule set in force: conventional types, or the free-form patterns; fix.subject in both. */
static void classify_fix(const struct githistory_rules *r, struct githistory_commit *c)
{
	if (c->kind != GITHISTORY_KIND_OTHER)
		return;
	if (r->fix_set == GITHISTORY_FIX_FREE_FORM)
		c->fix_free = matches(r->free_subject, c->subject) || matches(r->free_message, c->message);
	if (c->fix_word || (r->fix_set == GITHISTORY_FIX_CONVENTIONAL ? c->fix_type : c->fix_free))
		c->kind = GITHISTORY_KIND_FIX;
}

void githistory_message_read(const struct githistory_rules *r, struct githistory_commit *c)
{
	struct convcommit cc;
	bool conventional = convcommit_parse(c->subject, strlen(c->subject), &cc);
	c->conventional = conventional && type_in(&cc, r->known_types);
	c->fix_type = conventional && type_in(&cc, r->fix_types);
	c->fix_word = matches(r->fix_subject, c->subject);
	c->formatting = matches(r->formatting_subject, c->subject) || matches(r->formatting_author, c->author);
	if (matches(r->reapply_subject, c->subject))
		c->kind = GITHISTORY_KIND_REAPPLY;
	else if ((conventional && type_in(&cc, r->revert_types)) || matches(r->revert_subject, c->subject) ||
		 matches(r->reverts_commit, c->message))
		c->kind = GITHISTORY_KIND_REVERT;
	else if (r->fix_set != GITHISTORY_FIX_AUTO)
		classify_fix(r, c);
}

void githistory_message_fix_set(struct githistory_run *h)
{
	struct githistory_rules *r = &h->rules;
	h->window_nonmerges = h->window_conventional = 0;
	for (size_t i = 0; i < h->n; i++)
		if (h->v[i]->in_window && h->v[i]->nparents <= 1) {
			h->window_nonmerges++;
			h->window_conventional += h->v[i]->conventional;
		}
	if (r->fix_set == GITHISTORY_FIX_AUTO) {
		/* An empty window has no subjects to go by: the conventional rules, as before the choice existed. */
		double share = h->window_nonmerges ? (double)h->window_conventional / (double)h->window_nonmerges : 1;
		r->fix_set = share >= r->conventional_min_share ? GITHISTORY_FIX_CONVENTIONAL : GITHISTORY_FIX_FREE_FORM;
	}
	for (size_t i = 0; i < rtk_strmap_count(h->by_oid); i++)
		classify_fix(r, rtk_strmap_value_at(h->by_oid, i));
}

const char *githistory_message_fix_set_name(enum githistory_fix_set s)
{
	return s == GITHISTORY_FIX_FREE_FORM ? "free-form" : "conventional";
}
