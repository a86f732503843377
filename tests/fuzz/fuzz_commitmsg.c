/* tests/fuzz/fuzz_commitmsg.c — libFuzzer harness: commit messages: trailers (the block and Fixes: lines anywhere), Conventional Commits headers, summaries, commit headers, references to other commits, a message's own words. */
#include "config.h"
#include "fuzz.h"
#include "git/gitodb.h"
#include "githistory/convcommit.h"
#include "githistory/msgref.h"
#include "githistory/ownwords.h"
#include "githistory/trailers.h"
#include "lib/err.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct fuzz_span {
	const char *start, *end;
};

static int fuzz_trailer(const char *key, size_t key_len, const char *value, size_t value_len, void *arg)
{
	const struct fuzz_span *s = arg;
	/* The key points into the message; the value is a copy (continuation lines joined). */
	if (!key_len || key < s->start || key + key_len > s->end || (value_len && !value) || memchr(key, '\n', key_len))
		RTK_BUG("a trailer key outside the message, or empty");
	return 0;
}

static int fuzz_fixes_line(const char *key, size_t key_len, const char *value, size_t value_len, void *arg)
{
	const struct fuzz_span *s = arg;
	size_t hex = 0;
	/* Both point into the message; the line is "Fixes:" at its start, the value a whole id of 8+ hex digits. */
	while (hex < value_len && isxdigit((unsigned char)value[hex]))
		hex++;
	if (key_len != 5 || strncasecmp(key, "fixes", 5) || key < s->start || value < key + 6 || value + value_len > s->end ||
	    (key > s->start && key[-1] != '\n') || key == s->start || hex < 8 || hex > 40 || memchr(value, '\n', value_len))
		RTK_BUG("a Fixes: line that is not a whole line with an id");
	return 0;
}

/* The patterns of the shipped rules' shape (template headings and lines, the revert's naming lines), compiled once. */
static const struct ownwords_rules *own_rules(void)
{
	static struct ownwords_rules w;
	static bool done;
	static struct rtk_re *re[4];
	static const char *const pat[4] = { "^(test(ing)?(\\s*(plan|done))?|tests?|checklist)$", "^\\s*[-*+]\\s+\\[[ xX]\\]",
					     "This reverts commit ([0-9a-f]{7,40})",
					     "reversing\\s+changes\\s+made\\s+to\\s+([0-9a-f]{7,40})" };
	if (!done) {
		for (size_t i = 0; i < 4; i++)
			if (rtk_re_compile(&re[i], pat[i], RTK_RE_CASELESS | RTK_RE_MULTILINE, NULL))
				RTK_BUG("a fixed pattern does not compile");
		w = (struct ownwords_rules){ re[0], re[1], { re[2], re[3] } };
		done = true;
	}
	return &w;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *msg = (const char *)data;
	struct fuzz_span span = { msg, msg + size };
	struct convcommit cc;
	trailers_foreach(msg, size, fuzz_trailer, &span);
	trailers_fixes_foreach(msg, size, fuzz_fixes_line, &span);
	if (convcommit_parse(msg, size, &cc)) {
		if (!cc.type_len || !cc.description_len || cc.type < msg || cc.description + cc.description_len > msg + size ||
		    (cc.scope_len && (cc.scope < msg || cc.scope + cc.scope_len > msg + size)))
			RTK_BUG("a header span outside the subject");
		convcommit_type_is(&cc, "fix");
	}
	char *summary = gitodb_summary(msg, size);
	if (summary && strlen(summary) > size)
		RTK_BUG("a summary longer than its message");
	free(summary);
	/* The same bytes as a subject and as a message naming commits (both want a NUL-terminated string). */
	char *text = malloc(size + 1);
	if (text) {
		const char *num = NULL;
		memcpy(text, data, size);
		text[size] = '\0';
		size_t nl = msgref_subject_pull_request(text, &num);
		if (nl && (num < text || num + nl > text + size || nl > 12))
			RTK_BUG("a pull request number outside the subject");
		/* A message always names the commit it spells out in full, and a subject's own pull request. */
		if (nl && !msgref_names(text, "0000000000000000000000000000000000000000", text))
			RTK_BUG("a subject does not name its own pull request");
		msgref_names(text, "0123456789abcdef0123456789abcdef01234567", NULL);
		free(text);
	}
	/* A message's own words: only bytes other than line breaks become spaces, and the count says how many. */
	char *own = malloc(size + 1);
	if (own) {
		memcpy(own, data, size);
		own[size] = '\0';
		for (int revert = 0; revert < 2; revert++) {
			size_t n = ownwords_blank(own, size, own_rules(), revert), changed = 0;
			for (size_t i = 0; i < size; i++) {
				if (own[i] != msg[i] && (own[i] != ' ' || msg[i] == '\n'))
					RTK_BUG("own words changed a byte into something other than a blank, or a line break");
				changed += own[i] != msg[i];
			}
			if (revert == 0 && n != changed)
				RTK_BUG("own words miscounted what it blanked");
		}
		free(own);
	}
	/* The same bytes as a commit object's content. */
	char *copy = malloc(size + 1);
	if (copy) {
		memcpy(copy, data, size);
		copy[size] = '\0';
		struct gitodb_object o = { GIT_OBJECT_COMMIT, size, copy };
		struct gitodb_commit c;
		unsigned char *parents = NULL;
		size_t cap = 0;
		if (!gitodb_commit_parse(&o, &c, &parents, &cap) &&
		    (c.message < copy || c.message + c.message_len != copy + size || c.author_time < 0 || c.commit_time < 0))
			RTK_BUG("a commit parsed outside its object or with a negative time");
		free(parents);
		free(copy);
	}
	rtk_error_clear();
	return 0;
}
