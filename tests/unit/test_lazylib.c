/* tests/unit/test_lazylib.c — libgit2 and libcurl through the lazy bindings, against a real repository and a real HTTP server. */
#include "unit.h"
#include "config.h"
#include "llm/curlapi.h"
#include "lib/err.h"
#include "git/git2api.h"
#include "lib/lazylib.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void git_opens_a_real_repository(void **state)
{
	(void)state;
	char dir[] = "/tmp/rtk-lazylib-XXXXXX", cmd[256], sub[300];
	git_repository *repo = NULL;
	int major, minor, rev;

	assert_non_null(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "git init -q '%s' && mkdir '%s/sub'", dir, dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(git2api_load(), 0);
	assert_int_equal(git2api_load(), 0); /* a second load is a no-op */
	assert_int_equal(git_libgit2_version(&major, &minor, &rev), 0);
	assert_true(major >= 1);

	/* Discovery from a subfolder finds the work tree above it, as git does. */
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	assert_int_equal(git_repository_open_ext(&repo, sub, 0, NULL), 0);
	snprintf(sub, sizeof(sub), "%s/", dir);
	assert_string_equal(git_repository_workdir(repo), sub);
	git_repository_free(repo);

	assert_true(git_repository_open_ext(&repo, "/", GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0);
	assert_true(strlen(git2api_error()) > 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* A one-shot HTTP server on 127.0.0.1 that records the request and answers 201 with a body. */
struct server {
	int listener;
	unsigned short port;
	char request[4096];
};

static void *serve_one(void *arg)
{
	struct server *s = arg;
	static const char reply[] = "HTTP/1.1 201 Created\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello";
	int c = accept(s->listener, NULL, NULL);
	size_t got = 0;
	if (c < 0)
		return NULL;
	while (got < sizeof(s->request) - 1 && !strstr(s->request, "\r\n\r\n")) {
		ssize_t n = read(c, s->request + got, sizeof(s->request) - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
		s->request[got] = '\0';
	}
	if (write(c, reply, sizeof(reply) - 1) < 0)
		perror("write");
	close(c);
	return NULL;
}

static size_t collect(char *data, size_t size, size_t n, void *user)
{
	strncat(user, data, size * n);
	return size * n;
}

static void curl_talks_to_a_real_server(void **state)
{
	(void)state;
	struct server s = { 0 };
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(addr);
	pthread_t thread;
	char url[64], body[64] = "";
	long status = 0;
	curl_off_t size = -1;
	struct curl_slist *headers;
	CURL *h;

	s.listener = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(bind(s.listener, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(listen(s.listener, 1), 0);
	assert_int_equal(getsockname(s.listener, (struct sockaddr *)&addr, &alen), 0);
	s.port = ntohs(addr.sin_port);
	assert_int_equal(pthread_create(&thread, NULL, serve_one, &s), 0);

	assert_int_equal(curlapi_load(), 0);
	assert_non_null(curl_version_info(CURLVERSION_NOW)->version);
	h = curl_easy_init();
	assert_non_null(h);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/probe", s.port);
	headers = curl_slist_append(NULL, "X-Rtk-Test: lazy");
	/* One option of each argument kind the forwarding stub must read correctly. */
	assert_int_equal(curl_easy_setopt(h, CURLOPT_URL, url), CURLE_OK);                   /* pointer */
	assert_int_equal(curl_easy_setopt(h, CURLOPT_TIMEOUT, 10L), CURLE_OK);               /* long */
	assert_int_equal(curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)1 << 20), CURLE_OK); /* off_t */
	assert_int_equal(curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect), CURLE_OK);     /* function */
	assert_int_equal(curl_easy_setopt(h, CURLOPT_WRITEDATA, body), CURLE_OK);
	assert_int_equal(curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers), CURLE_OK);
	assert_int_equal(curl_easy_perform(h), CURLE_OK);
	assert_int_equal(curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status), CURLE_OK);
	assert_int_equal(curl_easy_getinfo(h, CURLINFO_SIZE_DOWNLOAD_T, &size), CURLE_OK);
	pthread_join(thread, NULL);
	assert_int_equal(status, 201);
	assert_int_equal(size, 5);
	assert_string_equal(body, "hello");
	assert_non_null(strstr(s.request, "GET /probe HTTP/1.1\r\n"));
	assert_non_null(strstr(s.request, "X-Rtk-Test: lazy\r\n"));
	assert_string_equal(curl_easy_strerror(CURLE_OK), "No error");
	curl_slist_free_all(headers);
	curl_easy_cleanup(h);
	close(s.listener);
}

static void missing_library_names_the_package(void **state)
{
	(void)state;
#ifdef RTK_LAZY_LIBS
	struct rtk_lazylib lib = { "libnothing", "libnothing-rtk-test.so.9", "libnothing9", NULL, 0 };
	static const char *const names[] = { "nothing_at_all" };
	struct { void (*nothing_at_all)(void); } api = { NULL };
	rtk_error_clear();
	assert_int_equal(rtk_lazylib_load(&lib, names, 1, &api, sizeof(api)), RTK_EXIT_FAILURE);
	assert_non_null(strstr(rtk_error_message(), "cannot load libnothing"));
	assert_non_null(strstr(rtk_error_message(), "install the Debian package libnothing9"));
	/* The failure is remembered rather than retried on every call. */
	rtk_error_clear();
	assert_int_equal(rtk_lazylib_load(&lib, names, 1, &api, sizeof(api)), RTK_EXIT_FAILURE);
	assert_non_null(strstr(rtk_error_message(), "libnothing9"));
	assert_null(api.nothing_at_all);
#else
	/* Linked directly: there is no loader to fail; the libraries are the binary's own. */
	assert_int_equal(git2api_load(), 0);
#endif
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(git_opens_a_real_repository),
	cmocka_unit_test(curl_talks_to_a_real_server),
	cmocka_unit_test(missing_library_names_the_package),
};

RTK_UNIT_MAIN(tests)
