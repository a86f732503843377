/* src/lib/lazylib.h — loading a shared library at first use, so applets that never need it never pay for it. */
#ifndef RTK_LAZYLIB_H
#define RTK_LAZYLIB_H

#include <stdbool.h>
#include <stddef.h>

struct rtk_lazylib {
	const char *name;    /* "libgit2", for messages */
	const char *soname;  /* the exact SONAME the headers belong to */
	const char *package; /* the Debian package that provides it */
	void *handle;
	int status;          /* 0 untried, 1 loaded, -1 failed (the failure is remembered) */
};

/*
 * dlopen()s lib and resolves names[0..n) into api, a struct of exactly n function pointers in
 * the same order (api_size is its sizeof, checked). Returns 0, or RTK_EXIT_FAILURE with a message
 * naming the library and the package to install; api is untouched then. Calling it again is cheap.
 */
int rtk_lazylib_load(struct rtk_lazylib *lib, const char *const names[], size_t n, void *api, size_t api_size);

/* For a forwarding stub reached before its library was loaded: a bug in rtk, so abort loudly. */
_Noreturn void rtk_lazylib_not_loaded(const char *function);

/*
 * The forwarding stubs: for each X(ret, name, params, args) a function with the library's own
 * name and signature that calls through the resolved pointer. The name is parenthesised so a
 * header's function-like macro of the same name (curl's typecheck macros) is not expanded.
 */
#define RTK_LAZYLIB_SLOT(ret, name, params, args) ret(*name) params;
#define RTK_LAZYLIB_NAME(ret, name, params, args) #name,
#define RTK_LAZYLIB_STUB(api, ret, name, params, args)        \
	ret(name) params                                    \
	{                                                   \
		if (!api.name)                              \
			rtk_lazylib_not_loaded(#name);      \
		return api.name args;                       \
	}
#define RTK_LAZYLIB_STUB_VOID(api, ret, name, params, args)   \
	ret(name) params                                    \
	{                                                   \
		if (!api.name)                              \
			rtk_lazylib_not_loaded(#name);      \
		api.name args;                              \
	}

#endif
