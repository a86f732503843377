/* src/git/git2api.c — the lazy libgit2 binding generated from GIT2API_FUNCTIONS. */
#include "config.h"
#include "git2api.h"
#include "lib/err.h"
#include "lib/lazylib.h"

#include <dlfcn.h>
#include <string.h>

#ifdef RTK_LAZY_LIBS
static struct {
#define X RTK_LAZYLIB_SLOT
	GIT2API_FUNCTIONS(X, X)
#undef X
} git2;

static const char *const git2_names[] = {
#define X RTK_LAZYLIB_NAME
	GIT2API_FUNCTIONS(X, X)
#undef X
};

static struct rtk_lazylib git2_lib = { "libgit2", RTK_GIT2_SONAME, RTK_GIT2_PACKAGE, NULL, 0 };

#define STUB(ret, name, params, args) RTK_LAZYLIB_STUB(git2, ret, name, params, args)
#define STUB_VOID(ret, name, params, args) RTK_LAZYLIB_STUB_VOID(git2, ret, name, params, args)
GIT2API_FUNCTIONS(STUB, STUB_VOID)

static int load_symbols(void)
{
	return rtk_lazylib_load(&git2_lib, git2_names, sizeof(git2_names) / sizeof(*git2_names), &git2, sizeof(git2));
}
#else
static int load_symbols(void)
{
	return 0;
}
#endif

/*
 * A partial clone made by older versions of git says so with extensions.partialclone (format version 1), which
 * libgit2 refuses to open unless told the extension is known. rtk reads such a clone's objects as they are
 * and counts the blobs it lacks (gitodb_missing_blobs); it never fetches them, so allowing it is safe.
 */
static void allow_partial_clones(void)
{
	static const char *extensions[] = { "partialclone" };
#ifdef RTK_LAZY_LIBS
	int (*opts)(int, ...);
	void *sym = git2_lib.handle ? dlsym(git2_lib.handle, "git_libgit2_opts") : NULL;
	if (sym) {
		memcpy(&opts, &sym, sizeof(opts)); /* memcpy: object and function pointers may not alias */
		opts(GIT_OPT_SET_EXTENSIONS, extensions, (size_t)1);
	}
#else
	git_libgit2_opts(GIT_OPT_SET_EXTENSIONS, extensions, (size_t)1);
#endif
}

int git2api_load(void)
{
	static int loaded;
	int rc;
	if (loaded)
		return 0;
	if ((rc = load_symbols()))
		return rc;
	if (git_libgit2_init() < 0)
		return rtk_fail(RTK_EXIT_FAILURE, "libgit2 failed to initialise: %s", git2api_error());
	allow_partial_clones();
	loaded = 1;
	return 0;
}

/* git_libgit2_opts(option, value) for an int option: variadic, so looked up rather than stubbed. */
static void git2api_set_int_option(int option, int value)
{
#ifdef RTK_LAZY_LIBS
	int (*opts)(int, ...);
	void *sym = git2_lib.handle ? dlsym(git2_lib.handle, "git_libgit2_opts") : NULL;
	if (sym) {
		memcpy(&opts, &sym, sizeof(opts)); /* memcpy: object and function pointers may not alias */
		opts(option, value);
	}
#else
	git_libgit2_opts(option, value);
#endif
}

void git2api_tune_for_history(void)
{
	git2api_set_int_option(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
}

void git2api_trust_new_objects(void)
{
	git2api_set_int_option(GIT_OPT_ENABLE_STRICT_OBJECT_CREATION, 0);
}

const char *git2api_error(void)
{
	const git_error *e = git_error_last();
	return e && e->message ? e->message : "unknown error";
}
