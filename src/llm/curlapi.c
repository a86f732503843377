/* src/llm/curlapi.c — the lazy libcurl binding generated from CURLAPI_FUNCTIONS. */
#include "config.h"
#include "curlapi.h"
#include "lib/err.h"
#include "lib/lazylib.h"

#include <stdarg.h>
#include <string.h>

#ifdef RTK_LAZY_LIBS
#define VARIADIC(X) \
	X(CURLcode, curl_easy_setopt, (CURL *, CURLoption, ...), ()) \
	X(CURLcode, curl_easy_getinfo, (CURL *, CURLINFO, ...), ())

static struct {
#define X RTK_LAZYLIB_SLOT
	CURLAPI_FUNCTIONS(X, X)
	VARIADIC(X)
#undef X
} curl;

static const char *const curl_names[] = {
#define X RTK_LAZYLIB_NAME
	CURLAPI_FUNCTIONS(X, X)
	VARIADIC(X)
#undef X
};

static struct rtk_lazylib curl_lib = { "libcurl", RTK_CURL_SONAME, RTK_CURL_PACKAGE, NULL, 0 };

#define STUB(ret, name, params, args) RTK_LAZYLIB_STUB(curl, ret, name, params, args)
#define STUB_VOID(ret, name, params, args) RTK_LAZYLIB_STUB_VOID(curl, ret, name, params, args)
CURLAPI_FUNCTIONS(STUB, STUB_VOID)

/*
 * A variadic call cannot be forwarded as is, but curl encodes each option's argument type in its
 * number (CURLOPTTYPE_*), so the one argument can be read with its real type and passed on.
 */
CURLcode(curl_easy_setopt)(CURL *handle, CURLoption option, ...)
{
	CURLcode rc;
	va_list ap;
	if (!curl.curl_easy_setopt)
		rtk_lazylib_not_loaded("curl_easy_setopt");
	va_start(ap, option);
	if (option < CURLOPTTYPE_OBJECTPOINT)
		rc = (curl.curl_easy_setopt)(handle, option, va_arg(ap, long));
	else if (option >= CURLOPTTYPE_OFF_T && option < CURLOPTTYPE_BLOB)
		rc = (curl.curl_easy_setopt)(handle, option, va_arg(ap, curl_off_t));
	else
		rc = (curl.curl_easy_setopt)(handle, option, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

/* Every curl_easy_getinfo takes one pointer to where the answer goes. */
CURLcode(curl_easy_getinfo)(CURL *handle, CURLINFO info, ...)
{
	CURLcode rc;
	va_list ap;
	if (!curl.curl_easy_getinfo)
		rtk_lazylib_not_loaded("curl_easy_getinfo");
	va_start(ap, info);
	rc = (curl.curl_easy_getinfo)(handle, info, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

static int load_symbols(void)
{
	return rtk_lazylib_load(&curl_lib, curl_names, sizeof(curl_names) / sizeof(*curl_names), &curl, sizeof(curl));
}
#else
static int load_symbols(void)
{
	return 0;
}
#endif

int curlapi_load(void)
{
	static int loaded;
	int rc;
	if (loaded)
		return 0;
	if ((rc = load_symbols()))
		return rc;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return rtk_fail(RTK_EXIT_FAILURE, "libcurl failed to initialise");
	loaded = 1;
	return 0;
}
