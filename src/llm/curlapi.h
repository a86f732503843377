/* src/llm/curlapi.h — the libcurl functions rtk uses, loaded at first use unless --disable-lazy-libs. */
#ifndef RTK_CURLAPI_H
#define RTK_CURLAPI_H

#include <curl/curl.h>

/*
 * X(ret, name, params, args) for functions returning a value, XV(...) for void ones. The variadic
 * curl_easy_setopt and curl_easy_getinfo are bound separately in curlapi.c.
 */
#define CURLAPI_FUNCTIONS(X, XV)                                                                          \
	X(CURLcode, curl_global_init, (long flags), (flags))                                          \
	X(curl_version_info_data *, curl_version_info, (CURLversion v), (v))                          \
	X(CURL *, curl_easy_init, (void), ())                                                         \
	XV(void, curl_easy_cleanup, (CURL * handle), (handle))                                        \
	X(CURLcode, curl_easy_perform, (CURL * handle), (handle))                                     \
	X(const char *, curl_easy_strerror, (CURLcode code), (code))                                  \
	X(struct curl_slist *, curl_slist_append, (struct curl_slist * list, const char *s), (list, s)) \
	XV(void, curl_slist_free_all, (struct curl_slist * list), (list))                              \
	X(time_t, curl_getdate, (const char *date, const time_t *unused), (date, unused))              \
	X(CURLM *, curl_multi_init, (void), ())                                                       \
	X(CURLMcode, curl_multi_cleanup, (CURLM * multi), (multi))                                    \
	X(CURLMcode, curl_multi_add_handle, (CURLM * multi, CURL *easy), (multi, easy))               \
	X(CURLMcode, curl_multi_remove_handle, (CURLM * multi, CURL *easy), (multi, easy))            \
	X(CURLMcode, curl_multi_perform, (CURLM * multi, int *running), (multi, running))             \
	X(CURLMcode, curl_multi_poll, (CURLM * multi, struct curl_waitfd *fds, unsigned int nfds,      \
				       int timeout_ms, int *numfds), (multi, fds, nfds, timeout_ms, numfds))   \
	X(CURLMsg *, curl_multi_info_read, (CURLM * multi, int *left), (multi, left))

/* Loads libcurl (once) and runs curl_global_init. 0, or RTK_EXIT_FAILURE naming the package to install. */
int curlapi_load(void);

#endif
