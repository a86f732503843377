/* src/llm/jsonextract.c — the first balanced JSON object in free text, for answers that wrap JSON in prose. */
#include "config.h"
#include "jsonextract.h"

#include <string.h>

size_t jsonextract_balanced_end(const char *text, size_t len, size_t start)
{
	size_t depth = 0;
	int in_string = 0;

	for (size_t i = start; i < len; i++) {
		char c = text[i];
		if (in_string) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = 0;
		} else if (c == '"') {
			in_string = 1;
		} else if (c == '{') {
			depth++;
		} else if (c == '}') {
			if (depth == 0)
				return 0;
			if (--depth == 0)
				return i + 1;
		}
	}
	return 0;
}

cJSON *jsonextract_object(const char *text, size_t len, size_t *at)
{
	cJSON *obj = cJSON_ParseWithLength(text, len);

	if (cJSON_IsObject(obj)) {
		size_t lead = 0; /* cJSON skips every byte up to ' ' (NULs too) before the object */
		while (lead < len && (unsigned char)text[lead] <= ' ')
			lead++;
		if (at)
			*at = lead; /* where the '{' is, as for an object found in prose (found by fuzz_jsonextract) */
		return obj;
	}
	cJSON_Delete(obj);
	/* Each '{' in turn: a brace in the prose before the real object must not hide it. */
	for (const char *open = memchr(text, '{', len); open; open = memchr(open + 1, '{', len - (size_t)(open + 1 - text))) {
		size_t start = (size_t)(open - text), end = jsonextract_balanced_end(text, len, start);
		if (!end)
			continue;
		obj = cJSON_ParseWithLength(text + start, end - start);
		if (cJSON_IsObject(obj)) {
			if (at)
				*at = start;
			return obj;
		}
		cJSON_Delete(obj);
		if (open + 1 >= text + len)
			break;
	}
	return NULL;
}
