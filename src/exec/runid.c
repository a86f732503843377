/* src/exec/runid.c — the ids of run-plan's and loop's runs (see runid.h). */
#include "config.h"
#include "runid.h"
#include "lib/timeutil.h"

#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

void runid_new(char out[RUNID_MAX])
{
	unsigned char r[3] = { 0 };
	char now[RTK_TIME_BUFSZ];
	size_t n = 0;
	if (getrandom(r, sizeof(r), 0) != sizeof(r)) {
		unsigned v = (unsigned)getpid() ^ (unsigned)time(NULL);
		memcpy(r, &v, sizeof(r));
	}
	rtk_time_format(rtk_time_now(), now);
	for (const char *p = now; *p && n < 20; p++)
		if (*p != '-' && *p != ':')
			out[n++] = *p; /* 2026-11-24T06:00:00Z -> 20261124T060000Z */
	snprintf(out + n, RUNID_MAX - n, "-%02x%02x%02x", r[0], r[1], r[2]);
}
