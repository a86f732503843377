/* tests/fuzz/fuzz_time.c — libFuzzer harness: ISO 8601 times and durations (compact and ISO) as options and data give them. */
#include "config.h"
#include "fuzz.h"
#include "lib/err.h"
#include "lib/timeutil.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	int64_t t, d, back;
	int32_t ns;
	char buf[RTK_TIME_BUFSZ];
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (!rtk_time_parse(s, &t, &ns)) {
		if (ns < 0 || ns > 999999999)
			RTK_BUG("nanoseconds %d", ns);
		/* A parsed time formats and reads back as the same second (within the years it reads: a zone
		 * offset can carry 9999-12-31 into year 10000, which is printed but not read). */
		rtk_time_format(t, buf);
		if (strlen(buf) == 20 && (rtk_time_parse(buf, &back, NULL) || back != t))
			RTK_BUG("'%s' is %lld, formatted '%s'", s, (long long)t, buf);
	}
	if (!rtk_time_duration_parse(s, &d) && (d <= 0 || d > RTK_TIME_DURATION_MAX_SECONDS))
		RTK_BUG("duration '%s' is %lld seconds", s, (long long)d);
	free(s);
	rtk_error_clear();
	return 0;
}
