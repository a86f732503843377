/* src/lib/lazylib.c — dlopen() and symbol resolution behind src/git2api.c and src/curlapi.c. */
#include "config.h"
#include "lazylib.h"
#include "err.h"

#include <stdlib.h>
#include <string.h>

#ifdef RTK_LAZY_LIBS
#include <dlfcn.h>

int rtk_lazylib_load(struct rtk_lazylib *lib, const char *const names[], size_t n, void *api, size_t api_size)
{
	if (lib->status == 1)
		return 0;
	if (api_size != n * sizeof(void *))
		return rtk_fail(RTK_EXIT_FAILURE, "internal error: %s binding lists %zu names for %zu pointers",
				lib->name, n, api_size / sizeof(void *));
	if (lib->status == 0) {
		void **slots = calloc(n, sizeof(*slots));
		lib->status = -1;
		if (!slots)
			return rtk_oom();
		lib->handle = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
		if (!lib->handle) {
			free(slots);
			return rtk_fail(RTK_EXIT_FAILURE, "cannot load %s (%s): install the Debian package %s",
					lib->name, dlerror(), lib->package);
		}
		for (size_t i = 0; i < n; i++) {
			if (!(slots[i] = dlsym(lib->handle, names[i]))) {
				free(slots);
				return rtk_fail(RTK_EXIT_FAILURE, "%s (%s) lacks %s: install the Debian package %s",
						lib->name, lib->soname, names[i], lib->package);
			}
		}
		/* memcpy, not a cast: object and function pointers may not alias. */
		memcpy(api, slots, api_size);
		free(slots);
		lib->status = 1;
		return 0;
	}
	return rtk_fail(RTK_EXIT_FAILURE, "cannot load %s (%s): install the Debian package %s", lib->name,
			lib->soname, lib->package);
}
#endif

_Noreturn void rtk_lazylib_not_loaded(const char *function)
{
	RTK_BUG("%s called before its library was loaded", function);
}
