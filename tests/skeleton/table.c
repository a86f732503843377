/* tests/skeleton/table.c — the applet table of the skeleton's test program, in place of src/applet.c's:
 * applets/skeleton.c alone, so the skeleton runs through rtk's own dispatch without being in rtk. */
#include "config.h"
#include "applet.h"

#include <string.h>

extern const struct rtk_applet rtk_applet_skeleton;

const struct rtk_applet *const rtk_applet_all[] = { &rtk_applet_skeleton, NULL };

const struct rtk_applet *rtk_applet_find(const char *name)
{
	return strcmp(name, rtk_applet_skeleton.name) ? NULL : &rtk_applet_skeleton;
}
