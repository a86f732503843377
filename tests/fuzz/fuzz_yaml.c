/* tests/fuzz/fuzz_yaml.c — libFuzzer harness: YAML to cJSON (anchors, aliases, depth, duplicate keys) and back through the emitter. */
#include "config.h"
#include "fuzz.h"
#include "lib/err.h"
#include "lib/yamlx.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cJSON *v = NULL, *again = NULL;
	char *text = NULL;
	size_t len;
	int rc = rtk_yaml_load((const char *)data, size, "fuzz.yaml", &v);
	if (rc && (v || !rtk_error_message()[0]))
		RTK_BUG("a failed load left a value or no reason");
	/* What loads emits, and the emitted YAML loads back as the same value (yamlx.h promises it). */
	if (!rc && !rtk_yaml_emit(v, &text, &len)) {
		if (rtk_yaml_load(text, len, "emitted.yaml", &again))
			RTK_BUG("emitted YAML does not load: %s\n%s", rtk_error_message(), text);
		if (!cJSON_Compare(v, again, 1))
			RTK_BUG("emitted YAML loads as another value:\n%s", text);
	}
	free(text);
	cJSON_Delete(v);
	cJSON_Delete(again);
	rtk_error_clear();
	return 0;
}
