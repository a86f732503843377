/* src/applet.c — the applet table, expanded from applets/applets.def. */
#include "config.h"
#include "applet.h"

#include <string.h>

#define RTK_APPLET(id) extern const struct rtk_applet rtk_applet_##id;
#include "../applets/applets.def"
#undef RTK_APPLET

const struct rtk_applet *const rtk_applet_all[] = {
#define RTK_APPLET(id) &rtk_applet_##id,
#include "../applets/applets.def"
#undef RTK_APPLET
	NULL,
};

const struct rtk_applet *rtk_applet_find(const char *name)
{
	for (const struct rtk_applet *const *a = rtk_applet_all; *a; a++)
		if (!strcmp((*a)->name, name))
			return *a;
	return NULL;
}
