/* tests/fuzz/fuzz_checklist.c — libFuzzer harness: plans through the checklist counter and two through the diff. */
#include "config.h"
#include "fuzz.h"
#include "loop/checklist.h"
#include "lib/err.h"

#include <string.h>

/* Counts, line numbers and texts agree with the input, whatever it is; the texts lie one after another. */
static void fuzz_check_list(const struct checklist *c, int rc, const uint8_t *data, size_t size)
{
	size_t lines = 1, open = 0, done = 0, skipped = 0, last = 0;
	const struct checklist_item *first = checklist_first_open(c);

	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	if ((rc == 0) != (c->problem == CHECKLIST_FOUND) || (rc && rc != RTK_EXIT_USAGE) ||
	    (c->problem == CHECKLIST_FOUND && !c->n) || (c->problem == CHECKLIST_NO_SECTION && (c->n || c->section_line)) ||
	    (c->n && !c->section_line))
		RTK_BUG("rc %d, problem %d, %zu items, section at %zu", rc, (int)c->problem, c->n, c->section_line);
	for (size_t i = 0; i < c->n; i++) {
		const struct checklist_item *it = &c->items[i];
		if (it->line <= last || it->line <= c->section_line || it->line > lines || strchr(it->text, '\n'))
			RTK_BUG("item %zu: line %zu after %zu of %zu", i, it->line, last, lines);
		last = it->line;
		if (it->text != (i ? c->items[i - 1].text + strlen(c->items[i - 1].text) + 1 : c->texts))
			RTK_BUG("item %zu: its text is not kept right after the one before it", i); /* one block, in order */
		open += it->state == CHECKLIST_OPEN, done += it->state == CHECKLIST_DONE;
		skipped += it->state == CHECKLIST_SKIPPED;
		if (it->state == CHECKLIST_OPEN && !first)
			RTK_BUG("an open item but no first open one");
	}
	if (open != c->open || done != c->done || skipped != c->skipped || (first && first->state != CHECKLIST_OPEN))
		RTK_BUG("counts %zu/%zu/%zu, items say %zu/%zu/%zu", c->open, c->done, c->skipped, open, done, skipped);
}

/* Pairs are one to one: what is neither added nor removed is in both lists. */
static void fuzz_check_diff(const struct checklist *b, const struct checklist *a, const struct checklist_diff *d)
{
	size_t added = 0, removed = 0;

	for (size_t i = 0; i < d->n; i++) {
		const struct checklist_change *ch = &d->changes[i];
		if (!ch->before && !ch->after)
			RTK_BUG("an empty change");
		if (ch->before && ch->after && ch->before->state == ch->after->state)
			RTK_BUG("a change that changes nothing");
		added += !ch->before, removed += !ch->after;
	}
	if (added != d->added || removed != d->removed || a->n - added != b->n - removed || d->ticked > a->done ||
	    d->skipped > a->skipped || d->reopened > a->open)
		RTK_BUG("diff counts: %zu added, %zu removed, %zu -> %zu items", d->added, d->removed, b->n, a->n);
}

static void fuzz_diff(const struct checklist *b, const struct checklist *a)
{
	struct checklist_diff d;

	if (checklist_diff(b, a, &d) == 0) {
		fuzz_check_diff(b, a, &d);
		if (a == b && d.n)
			RTK_BUG("a plan differs from itself in %zu items", d.n);
	}
	checklist_diff_free(&d);
}

/* The input is one plan, or two separated by a NUL byte: before and after a round. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t first = nul ? (size_t)(nul - data) : size;
	struct checklist before, after;
	int rc;

	rc = checklist_parse((const char *)data, first, &before);
	if (rc != RTK_EXIT_FAILURE) {
		fuzz_check_list(&before, rc, data, first);
		fuzz_diff(&before, &before);
		if (nul) {
			size_t rest = size - first - 1;
			rc = checklist_parse((const char *)nul + 1, rest, &after);
			if (rc != RTK_EXIT_FAILURE) {
				fuzz_check_list(&after, rc, nul + 1, rest);
				fuzz_diff(&before, &after);
			}
			checklist_free(&after);
		}
	}
	checklist_free(&before);
	return 0;
}
