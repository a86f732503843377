/* src/lazylib.c — dlopen() and symbol resolution behind src/git2api.c and src/curlapi.c. */
#include "config.h"
#include "lazylib.h"
#include "err.h"

#include <stdio.h>
#include <stdlib.h>

#ifdef RTK_LAZY_LIBS
#include <dlfcn.h>

int rtk_lazylib_load(struct rtk_lazylib *lib, const char *const names[], void **slots, size_t n)
{
	if (lib->status == 1)
		return 0;
	if (lib->status == 0) {
		lib->handle = dlopen(lib->soname, RTLD_NOW | RTLD_LOCAL);
		lib->status = -1;
		if (!lib->handle)
			return rtk_fail(RTK_EXIT_FAILURE, "cannot load %s (%s): install the Debian package %s",
					lib->name, dlerror(), lib->package);
		for (size_t i = 0; i < n; i++) {
			slots[i] = dlsym(lib->handle, names[i]);
			if (!slots[i])
				return rtk_fail(RTK_EXIT_FAILURE, "%s (%s) lacks %s: install the Debian package %s",
						lib->name, lib->soname, names[i], lib->package);
		}
		lib->status = 1;
		return 0;
	}
	return rtk_fail(RTK_EXIT_FAILURE, "cannot load %s (%s): install the Debian package %s", lib->name,
			lib->soname, lib->package);
}
#endif

_Noreturn void rtk_lazylib_not_loaded(const char *function)
{
	fprintf(stderr, "rtk: internal error: %s called before its library was loaded\n", function);
	abort();
}
