/* tests/fuzz/fuzz_jsonextract.c — libFuzzer harness: a JSON object found in an LLM's answer (prose, code fences, braces in strings). */
#include "config.h"
#include "fuzz.h"
#include "lib/err.h"
#include "llm/jsonextract.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	size_t at = 0;
	cJSON *o = jsonextract_object(text, size, &at);
	if (o && (!cJSON_IsObject(o) || at >= size || text[at] != '{'))
		RTK_BUG("found a non-object, or at %zu of %zu", at, size);
	cJSON_Delete(o);
	for (size_t i = 0; i < size && i < 64; i++)
		if (text[i] == '{') {
			size_t end = jsonextract_balanced_end(text, size, i);
			if (end && (end <= i || end > size || text[end - 1] != '}'))
				RTK_BUG("balanced end %zu from %zu", end, i);
		}
	rtk_error_clear();
	return 0;
}
