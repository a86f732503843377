/* src/board/board_import.c — the native JSONL reader (the fast path: the benchmark's 4 million lines) and helpers every importer shares. */
#include "config.h"
#include "board_import.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/jsonl.h"
#include "lib/jsonscan.h"
#include "lib/progress.h"
#include "lib/timeutil.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

int board_import_parse_time(const char *text, size_t len, int64_t *out, const char *name, struct board_loc loc)
{
	char buf[64];
	int32_t nsec;

	if (len >= sizeof(buf) || memchr(text, '\0', len))
		return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: \"%s\" is not an ISO 8601 time", loc.file, loc.line, name);
	memcpy(buf, text, len);
	buf[len] = '\0';
	if (rtk_time_parse(buf, out, &nsec))
		return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: \"%s\": %s", loc.file, loc.line, name, rtk_error_message());
	return 0;
}

bool board_import_rule_has(const cJSON *rules, const char *member, const char *s)
{
	const cJSON *item;
	cJSON_ArrayForEach(item, cJSON_GetObjectItemCaseSensitive(rules, member))
		if (cJSON_IsString(item) && !strcasecmp(item->valuestring, s))
			return true;
	return false;
}

long board_import_line_after(const char *text, size_t off, size_t *at, long *line)
{
	if (off < *at) /* not increasing after all: count from the start */
		*at = 0, *line = 1;
	for (const char *p = text + *at; (p = memchr(p, '\n', (size_t)(text + off - p))); p++)
		++*line;
	*at = off;
	return *line;
}

long board_import_line_of(const char *text, size_t off)
{
	size_t at = 0;
	long line = 1;
	return board_import_line_after(text, off, &at, &line);
}

int board_import_element_offsets(const char *text, size_t len, const char *key, size_t **out, size_t *n)
{
	size_t cap = 0, count = 0, *offsets = NULL, key_len = key ? strlen(key) : 0, string_start = 0;
	int depth = 0, target_depth = -1;
	bool in_string = false, key_matches = false;

	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"') {
				in_string = false;
				/* At depth 1 a string is a member name or value; only a name followed by '[' matters. */
				if (depth == 1)
					key_matches = key && i - string_start - 1 == key_len &&
						      !memcmp(text + string_start + 1, key, key_len);
			}
			continue;
		}
		switch (c) {
		case '"':
			in_string = true;
			string_start = i;
			break;
		case '{':
		case '[':
			if (c == '{' && target_depth >= 0 && depth == target_depth) {
				if (RTK_ALLOC_GROW_FROM(offsets, count + 1, cap, 64)) {
					free(offsets);
					return RTK_EXIT_FAILURE;
				}
				offsets[count++] = i;
			}
			if (c == '[' && target_depth < 0 && ((!key && depth == 0) || (key && depth == 1 && key_matches)))
				target_depth = depth + 1;
			depth++;
			break;
		case '}':
		case ']':
			depth--;
			if (depth < target_depth)
				target_depth = -2; /* done: only the first matching array */
			break;
		case ',':
			if (depth == 1)
				key_matches = false;
			break;
		}
	}
	*out = offsets;
	*n = count;
	return 0;
}

/* ----- native JSONL ----- */

enum {
	F_TYPE, F_ID, F_COMPLETED_AT, F_COMPLETION, F_SOURCE, F_REFS,
	F_TASK, F_AT, F_KIND, F_POLARITY, F_EVIDENCE, F_VIA, F_COUNT
};

static const char *const field_names[F_COUNT] = {
	"type", "id", "completed_at", "completion", "source", "refs", "task", "at", "kind", "polarity", "evidence", "via",
};

static const char *kind_phrase(enum rtk_jsonscan_kind k)
{
	static const char *const names[] = { "missing", "null", "false", "true", "a number", "a string",
					     "an array", "an object" };
	return names[k];
}

/*
 * A string member's text: a pointer into the line when it has no escapes, else decoded into *owned
 * (which the caller frees). RTK_EXIT_USAGE when absent (if required) or not a string.
 */
static int string_member(const struct rtk_jsonscan_field *f, bool required, const char **s, size_t *len,
			 char **owned, struct board_loc loc)
{
	*s = NULL, *len = 0;
	if (f->kind == RTK_JSONSCAN_NONE || (f->kind == RTK_JSONSCAN_NULL && !required)) {
		if (required)
			return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: no \"%s\" member", loc.file, loc.line, f->name);
		return 0;
	}
	if (f->kind != RTK_JSONSCAN_STRING)
		return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: \"%s\" is %s, not a string", loc.file, loc.line, f->name,
				kind_phrase(f->kind));
	if (!memchr(f->raw, '\\', f->raw_len)) {
		*s = f->raw + 1, *len = f->raw_len - 2;
	} else {
		if (rtk_jsonscan_decode_string(f->raw, f->raw_len, owned, len))
			return rtk_oom();
		*s = *owned;
	}
	if (required && *len == 0)
		return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: \"%s\" is empty", loc.file, loc.line, f->name);
	if (memchr(*s, '\0', *len))
		return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: \"%s\" holds a NUL character", loc.file, loc.line, f->name);
	return 0;
}

static int native_task(struct board *b, struct rtk_jsonscan_field *f, struct board_loc loc, char **owned)
{
	struct board_task_in t = { 0 };
	const char *s;
	size_t len;
	cJSON *refs = NULL;
	int rc, c;

	if ((rc = string_member(&f[F_ID], true, &t.id, &t.id_len, &owned[0], loc)) ||
	    (rc = string_member(&f[F_COMPLETED_AT], true, &s, &len, &owned[1], loc)) ||
	    (rc = board_import_parse_time(s, len, &t.completed_at, "completed_at", loc)))
		return rc;
	if ((rc = string_member(&f[F_COMPLETION], false, &s, &len, &owned[2], loc)))
		return rc;
	c = s ? board_completion_parse(s, len) : BOARD_COMPLETED;
	if (c < 0)
		return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: \"completion\" is \"%.*s\", not completed, not_planned or duplicate",
				loc.file, loc.line, (int)len, s);
	t.completion = (enum board_completion)c;
	if ((rc = string_member(&f[F_SOURCE], false, &t.source, &t.source_len, &owned[3], loc)))
		return rc;
	if (!t.source)
		t.source = "(none)", t.source_len = 6;
	if (f[F_REFS].kind != RTK_JSONSCAN_NONE && f[F_REFS].kind != RTK_JSONSCAN_OBJECT && f[F_REFS].kind != RTK_JSONSCAN_NULL)
		return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: \"refs\" is %s, not an object", loc.file, loc.line,
				kind_phrase(f[F_REFS].kind));
	/* refs only matter to --emit-native; parsing them for every task would cost the plain run. */
	if (f[F_REFS].kind == RTK_JSONSCAN_OBJECT && board_native_out_wanted(b)) {
		if (!(refs = cJSON_ParseWithLength(f[F_REFS].raw, f[F_REFS].raw_len)))
			return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: \"refs\" cannot be read", loc.file, loc.line);
		t.refs = refs;
	}
	rc = board_add_task(b, &t, loc);
	cJSON_Delete(refs);
	return rc;
}

static int native_signal(struct board *b, struct rtk_jsonscan_field *f, struct board_loc loc, char **owned)
{
	struct board_signal_in s = { 0 };
	const char *text;
	size_t len;
	int rc, kind;

	if ((rc = string_member(&f[F_TASK], true, &s.task, &s.task_len, &owned[0], loc)) ||
	    (rc = string_member(&f[F_AT], true, &text, &len, &owned[1], loc)) ||
	    (rc = board_import_parse_time(text, len, &s.at, "at", loc)) ||
	    (rc = string_member(&f[F_KIND], true, &text, &len, &owned[2], loc)))
		return rc;
	if ((kind = board_kind_parse(text, len)) < 0)
		return rtk_fail(RTK_EXIT_USAGE,
				"%s:%ld: \"kind\" is \"%.*s\", not reopened, reverted, followup_bug, ci_failed, incident, "
				"rollback, verified or ci_passed", loc.file, loc.line, (int)len, text);
	s.kind = (enum board_kind)kind;
	if ((rc = string_member(&f[F_POLARITY], false, &text, &len, &owned[3], loc)))
		return rc;
	if (text) {
		const char *want = board_kind_negative(s.kind) ? "neg" : "pos";
		if (len != 3 || memcmp(text, want, 3))
			return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: \"polarity\" is \"%.*s\", but a %s signal is %s",
					loc.file, loc.line, (int)len, text, board_kind_name(s.kind), want);
	}
	/* evidence and via are carried to --emit-native, as NUL-terminated copies. */
	if (board_native_out_wanted(b)) {
		if ((rc = string_member(&f[F_EVIDENCE], false, &text, &len, &owned[4], loc)))
			return rc;
		if (text && !owned[4] && !(owned[4] = strndup(text, len)))
			return rtk_oom();
		s.evidence = owned[4];
		if ((rc = string_member(&f[F_VIA], false, &text, &len, &owned[5], loc)))
			return rc;
		if (text && !owned[5] && !(owned[5] = strndup(text, len)))
			return rtk_oom();
		s.via = owned[5];
	}
	return board_add_signal(b, &s, loc);
}

static int native_line(void *ctx, const char *line, size_t len, struct board_loc loc)
{
	struct board *b = ctx;
	struct rtk_jsonscan_field f[F_COUNT];
	char *owned[6] = { 0 };
	const char *what;
	size_t column;
	int rc;

	for (int i = 0; i < F_COUNT; i++)
		f[i] = (struct rtk_jsonscan_field){ .name = field_names[i] };
	if (rtk_jsonscan_object(line, len, f, F_COUNT, &column, &what))
		return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: not a valid JSON object: %s (column %zu)", loc.file, loc.line,
				what, column);
	if (f[F_TYPE].kind != RTK_JSONSCAN_STRING)
		return f[F_TYPE].kind == RTK_JSONSCAN_NONE
			       ? rtk_fail(RTK_EXIT_USAGE, "%s:%ld: no \"type\" member", loc.file, loc.line)
			       : rtk_fail(RTK_EXIT_USAGE, "%s:%ld: \"type\" is %s, not \"task\" or \"signal\"", loc.file,
					  loc.line, kind_phrase(f[F_TYPE].kind));
	if (f[F_TYPE].raw_len == 6 && !memcmp(f[F_TYPE].raw, "\"task\"", 6))
		rc = native_task(b, f, loc, owned);
	else if (f[F_TYPE].raw_len == 8 && !memcmp(f[F_TYPE].raw, "\"signal\"", 8))
		rc = native_signal(b, f, loc, owned);
	else
		rc = rtk_fail(RTK_EXIT_USAGE, "%s:%ld: unknown record type %.*s, not \"task\" or \"signal\"", loc.file,
			      loc.line, (int)f[F_TYPE].raw_len, f[F_TYPE].raw);
	for (int i = 0; i < 6; i++)
		free(owned[i]);
	return rc;
}

int board_import_each_line(struct board *b, const char *path, bool skip_invalid, board_import_line_fn *each_line, void *ctx)
{
	struct rtk_jsonl *r;
	const char *line;
	size_t len;
	int rc = rtk_jsonl_open(&r, path);
	struct rtk_progress *progress;

	if (rc)
		return rc;
	progress = rtk_progress_start_bytes("Reading board", rtk_jsonl_size(r));
	rtk_jsonl_set_progress(r, progress);
	while (rtk_jsonl_next_line(r, &line, &len)) {
		struct board_loc loc = { rtk_jsonl_name(r), rtk_jsonl_lineno(r) };
		rc = each_line(ctx, line, len, loc);
		if (rc == RTK_EXIT_USAGE && skip_invalid) {
			board_note_skipped(b, rtk_error_message());
			rc = 0;
		}
		if (rc)
			break;
	}
	if (!rc)
		rc = rtk_jsonl_status(r);
	rtk_progress_stop(&progress, !rc);
	rtk_jsonl_close(r);
	return rc;
}

int board_import_native(struct board *b, const char *path, bool skip_invalid)
{
	return board_import_each_line(b, path, skip_invalid, native_line, b);
}

int board_import_load_json(const char *path, char **text, cJSON **root)
{
	size_t len, column;
	const char *what, *name = strcmp(path, "-") ? path : "<stdin>";
	int rc = rtk_fs_read_file(path, text, &len);

	*root = NULL;
	if (rc)
		return rc;
	if (rtk_jsonscan_value(*text, len, &column, &what)) {
		size_t off = column - 1 > len ? len : column - 1;
		const char *line_start = off ? memrchr(*text, '\n', off) : NULL;
		return rtk_fail(RTK_EXIT_USAGE, "%s:%ld: not valid JSON (column %zu): %s", name, board_import_line_of(*text, off),
				off - (line_start ? (size_t)(line_start - *text) + 1 : 0) + 1, what);
	}
	if (!(*root = cJSON_ParseWithLength(*text, len)))
		return rtk_fail(RTK_EXIT_USAGE, "%s: not valid JSON", name);
	return 0;
}
