/* tests/fuzz/fuzz_iterate_reply.c — libFuzzer harness: one agent reply through both of iterate's readers, the Developer's report or completion and the Acceptor's verdict. */
#include "config.h"
#include "fuzz.h"
#include "iterate/iterate_internal.h"
#include "lib/err.h"
#include "lib/utf8.h"

#include <stdlib.h>
#include <string.h>

#define FUZZ_REASON_MAX 8000

static bool fuzz_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* A text taken out of a reply: no longer than the reply, trimmed, no \r\n left. */
static void fuzz_check_text(const char *what, const char *s, size_t size)
{
	size_t n = strlen(s);

	if (n > size || (n && (fuzz_space(s[0]) || fuzz_space(s[n - 1]))) || strstr(s, "\r\n"))
		RTK_BUG("%s: %zu bytes from a %zu-byte reply, untrimmed or with CRLF", what, n, size);
}

/* A failure's reason: one non-empty line of valid UTF-8. */
static void fuzz_check_reason(const char *who)
{
	const char *m = rtk_error_message();

	if (!*m || strchr(m, '\n') || !rtk_utf8_valid(m, strlen(m)))
		RTK_BUG("%s: the failure's reason is empty, several lines or not UTF-8", who);
}

/* Whether the reply without its NUL bytes contains w (in any ASCII case when nocase). */
static bool fuzz_contains(const char *clean, const char *w, bool nocase)
{
	return nocase ? strcasestr(clean, w) != NULL : strstr(clean, w) != NULL;
}

static void fuzz_developer(const uint8_t *data, size_t size, const char *clean)
{
	struct iterate_dev_reply r;
	int rc = iterate_reply_developer((const char *)data, size, &r);

	if (rc && rc != RTK_EXIT_FAILURE)
		RTK_BUG("developer: return code %d", rc);
	if (rc) {
		if (r.complete || r.feature || r.commit || r.tests || r.lint || r.changes || r.notes || r.summary ||
		    r.confidence != -1)
			RTK_BUG("developer: a failure left something behind");
		fuzz_check_reason("developer");
		return;
	}
	if (r.complete) {
		if (!r.summary || r.feature || r.commit || r.tests || r.lint || r.changes || r.notes ||
		    r.confidence != -1 || r.confidence_unreadable)
			RTK_BUG("developer: a completion with fields or without a summary");
		if (!fuzz_contains(clean, "ALL_FEATURES_COMPLETE", false))
			RTK_BUG("developer: a completion without the marker");
		fuzz_check_text("summary", r.summary, size);
	} else {
		size_t n = r.commit ? strlen(r.commit) : 0;
		if (!r.feature || !*r.feature || !r.commit || r.summary)
			RTK_BUG("developer: a report without its Feature or Commit, or with a summary");
		if (n < 7 || n > 40 || strspn(r.commit, "0123456789abcdef") != n)
			RTK_BUG("developer: commit '%s' is not 7 to 40 lowercase hex digits", r.commit);
		if (!fuzz_contains(clean, r.commit, true))
			RTK_BUG("developer: commit '%s' is not in the reply", r.commit);
		if (!(r.confidence == -1 || (r.confidence >= 0 && r.confidence <= 1)) ||
		    (r.confidence_unreadable && r.confidence != -1))
			RTK_BUG("developer: confidence %g (unreadable: %d)", r.confidence, (int)r.confidence_unreadable);
		fuzz_check_text("feature", r.feature, size);
		const char *values[] = { r.tests, r.lint, r.changes, r.notes };
		for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++)
			if (values[i])
				fuzz_check_text("a field", values[i], size);
	}
	iterate_dev_reply_free(&r);
	if (r.feature || r.summary || r.confidence != -1)
		RTK_BUG("developer: a freed reply still holds something");
}

static void fuzz_acceptor(const uint8_t *data, size_t size, const char *clean)
{
	bool accepted = true;
	char *reason = (char *)"unset";
	int rc = iterate_reply_acceptor((const char *)data, size, &accepted, &reason);

	if (rc && rc != RTK_EXIT_FAILURE)
		RTK_BUG("acceptor: return code %d", rc);
	if (rc) {
		if (accepted || reason)
			RTK_BUG("acceptor: a failure with a verdict");
		fuzz_check_reason("acceptor");
		return;
	}
	if (accepted != !reason)
		RTK_BUG("acceptor: accepted %d with reason %s", (int)accepted, reason ? "set" : "NULL");
	if (accepted && !fuzz_contains(clean, "ACCEPTED", false))
		RTK_BUG("acceptor: accepted without ACCEPTED");
	if (reason) {
		size_t n = strlen(reason);
		if (!n || n > FUZZ_REASON_MAX || !fuzz_contains(clean, "REJECTED:", false))
			RTK_BUG("acceptor: a reason of %zu bytes", n);
		/* Cut at a character: valid UTF-8 in, valid UTF-8 out. */
		if (rtk_utf8_valid((const char *)data, size) && !rtk_utf8_valid(reason, n))
			RTK_BUG("acceptor: the reason of a UTF-8 reply is not UTF-8");
		fuzz_check_text("reason", reason, size);
		free(reason);
	}
}

/* The input is one reply; each reader gets all of it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *clean = malloc(size + 1);
	size_t n = 0;

	if (!clean)
		return 0;
	for (size_t i = 0; i < size; i++)
		if (data[i])
			clean[n++] = (char)data[i];
	clean[n] = '\0';
	fuzz_developer(data, size, clean);
	fuzz_acceptor(data, size, clean);
	free(clean);
	return 0;
}
