/* tests/unit/test_http.c — http_run against the real test server (tests/servers/llm_server.py) on 127.0.0.1. */
#include "unit.h"
#include "llm/curlapi.h"
#include "llm/http.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static pid_t server_pid;
static char dir[64], base_url[128], log_path[128];

/* Starts the server in a fresh folder and waits for it to write its port (renamed into place whole), or to
 * die first: an event either way, however slowly python starts; the hang guard only stops a server that
 * neither listens nor ends. */
static int start_server(void **state)
{
	char port_file[128], script[512], port[16] = "";
	const char *srcdir = getenv("RTK_SRCDIR");
	(void)state;

	strcpy(dir, "/tmp/rtk-test-http.XXXXXX");
	if (!mkdtemp(dir) || curlapi_load())
		return -1;
	snprintf(port_file, sizeof(port_file), "%s/port", dir);
	snprintf(log_path, sizeof(log_path), "%s/requests.jsonl", dir);
	snprintf(script, sizeof(script), "%s/tests/servers/llm_server.py", srcdir ? srcdir : ".");
	if ((server_pid = fork()) == 0) {
		execlp("python3", "python3", script, "--port-file", port_file, "--log", log_path, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < UNIT_HANG_GUARD_S * 100; i++) {
		FILE *f = fopen(port_file, "r");
		if (f) {
			if (!fgets(port, sizeof(port), f))
				port[0] = '\0';
			fclose(f);
			break;
		}
		if (waitpid(server_pid, NULL, WNOHANG) == server_pid) {
			fprintf(stderr, "test_http: the server (%s) ended before it listened\n", script);
			return -1;
		}
		usleep(10000);
	}
	if (!port[0])
		return -1;
	snprintf(base_url, sizeof(base_url), "http://127.0.0.1:%s/v1/chat/completions", port);
	return 0;
}

static int stop_server(void **state)
{
	char cmd[128];
	(void)state;
	kill(server_pid, SIGTERM);
	waitpid(server_pid, NULL, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

struct outcome {
	struct http_response resp[16];
	size_t order[16], count;
};

static void keep(size_t index, struct http_response *resp, void *user)
{
	struct outcome *o = user;
	o->resp[index] = *resp;
	resp->body = NULL;      /* kept: freed by the test */
	o->order[o->count++] = index;
}

static struct http_options options(double timeout_s, int retries)
{
	struct http_options opt = { .jobs = 4, .timeout_s = timeout_s, .retries = retries, .backoff_s = 0.1,
					.max_body = 1 << 20 };
	return opt;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One POST with body text; the response lands in o->resp[0]. */
static void post_one(struct outcome *o, const char *text, const struct http_options *opt)
{
	static const char *const headers[] = { "Content-Type: application/json", "Authorization: Bearer test-key", NULL };
	struct http_request req = { base_url, headers, text, strlen(text) };
	memset(o, 0, sizeof(*o));
	assert_int_equal(http_run(&req, 1, opt, keep, o), 0);
	assert_int_equal(o->count, 1);
}

static void clean_answer_and_what_was_sent(void **state)
{
	(void)state;
	struct outcome o;
	struct http_options opt = options(UNIT_HANG_GUARD_S, 3);
	char line[4096] = "";
	post_one(&o, "{\"note\": \"mode=preference lesson=hello\"}", &opt);
	assert_int_equal(o.resp[0].status, 200);
	assert_string_equal(o.resp[0].error, "");
	assert_int_equal(o.resp[0].attempts, 1);
	assert_non_null(strstr(o.resp[0].body, "Lesson hello"));
	assert_int_equal(strlen(o.resp[0].body), o.resp[0].body_len);
	free(o.resp[0].body);
	/* The server saw the POST, its headers and its body. */
	FILE *f = fopen(log_path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) && !strstr(line, "lesson=hello"))
		;
	fclose(f);
	assert_non_null(strstr(line, "\"path\": \"/v1/chat/completions\""));
	assert_non_null(strstr(line, "\"authorization\": \"Bearer test-key\""));
	assert_non_null(strstr(line, "\"content_type\": \"application/json\""));
}

static void refused_connection_is_an_error(void **state)
{
	(void)state;
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(addr);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	char url[128];
	struct outcome o = { 0 };
	struct http_options opt = options(5, 3);
	/* A port that was free a moment ago: nothing listens there now. */
	assert_int_equal(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&addr, &len), 0);
	close(fd);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/x", ntohs(addr.sin_port));
	struct http_request req = { url, NULL, "{}", 2 };
	assert_int_equal(http_run(&req, 1, &opt, keep, &o), 0);
	assert_int_equal(o.resp[0].status, 0);
	assert_non_null(strstr(o.resp[0].error, "connect"));
	assert_int_equal(o.resp[0].attempts, 1);
}

/* The server answers a stall after 20 s: the deadline's error and no status show the answer was not waited
 * for (no upper bound on the time taken: a slow machine may take longer to give up, never to answer). */
static void a_stalled_server_hits_the_deadline(void **state)
{
	(void)state;
	struct outcome o;
	struct http_options opt = options(1, 3);
	double start = now_s();
	post_one(&o, "mode=stall", &opt);
	double took = now_s() - start;
	assert_non_null(strstr(o.resp[0].error, "timed out after 1 s"));
	assert_int_equal(o.resp[0].status, 0);
	assert_int_equal(o.resp[0].attempts, 1);
	assert_true(took >= 0.9);
}

static void retry_after_seconds_date_and_gemini_delay_are_honoured(void **state)
{
	(void)state;
	static const char *const modes[] = { "mode=retry_after", "mode=gemini_delay", "mode=retry_date" };
	static const double least[] = { 0.95, 0.95, 0.9 };
	struct http_options opt = options(UNIT_HANG_GUARD_S, 3);
	for (int i = 0; i < 3; i++) {
		struct outcome o;
		double start = now_s();
		post_one(&o, modes[i], &opt);
		double took = now_s() - start;
		assert_int_equal(o.resp[0].status, 200);
		assert_int_equal(o.resp[0].attempts, 2);
		/* The first answer asked for a wait, and the second attempt came after it. */
		if (took < least[i])
			fail_msg("%s: retried after %.2f s", modes[i], took);
		free(o.resp[0].body);
	}
}

static void retries_are_counted_and_capped_by_the_deadline(void **state)
{
	(void)state;
	struct outcome o;
	struct http_options opt = options(UNIT_HANG_GUARD_S, 2);
	post_one(&o, "mode=always429", &opt);
	assert_int_equal(o.resp[0].status, 429);
	assert_int_equal(o.resp[0].attempts, 3);
	assert_string_equal(o.resp[0].error, "");
	free(o.resp[0].body);
	/* Retry-After: 3600 with at most 60 s left: the wait would pass the deadline, so no second attempt.
	 * (The deadline is far above any first answer's time, and the wait far above the deadline.) */
	opt = options(60, 3);
	post_one(&o, "mode=retry_after_hour lesson=deadline", &opt);
	assert_int_equal(o.resp[0].status, 429);
	assert_int_equal(o.resp[0].attempts, 1);
	free(o.resp[0].body);
	/* No retries asked for: none made. */
	opt = options(UNIT_HANG_GUARD_S, 0);
	post_one(&o, "mode=always429 lesson=none", &opt);
	assert_int_equal(o.resp[0].attempts, 1);
	free(o.resp[0].body);
}

static void a_huge_body_is_cut_off(void **state)
{
	(void)state;
	struct outcome o;
	struct http_options opt = options(UNIT_HANG_GUARD_S, 0);
	post_one(&o, "mode=huge", &opt);
	assert_string_equal(o.resp[0].error, "response body larger than 1048576 bytes");
	free(o.resp[0].body);
}

/*
 * Four at a time, shown by events at the server, not by the clock: each request waits there until the
 * fourth of its group of four has arrived (so fewer than four at once would never be answered: the
 * server gives up after the hang guard with a 504), and each answer says how many were in flight when
 * it arrived (never more than four, since a fifth is only sent once one of the four is answered).
 */
static void jobs_run_at_once(void **state)
{
	(void)state;
	static const char *const headers[] = { "Content-Type: text/plain", NULL };
	struct http_request reqs[8];
	char bodies[8][64];
	struct outcome o = { 0 };
	struct http_options opt = options(2 * UNIT_HANG_GUARD_S, 0);
	for (int i = 0; i < 8; i++) {
		snprintf(bodies[i], sizeof(bodies[i]), "mode=none barrier=4 lesson=job%d", i);
		reqs[i] = (struct http_request){ base_url, headers, bodies[i], strlen(bodies[i]) };
	}
	assert_int_equal(http_run(reqs, 8, &opt, keep, &o), 0);
	assert_int_equal(o.count, 8);
	for (int i = 0; i < 8; i++) {
		char want[32];
		const char *inflight;
		snprintf(want, sizeof(want), "Lesson job%d ", i);
		assert_int_equal(o.resp[i].status, 200);
		assert_non_null(strstr(o.resp[i].body, want));
		assert_non_null(inflight = strstr(o.resp[i].body, "inflight"));
		if (atoi(inflight + 8) < 1 || atoi(inflight + 8) > 4)
			fail_msg("job%d arrived with %d requests in flight, not 1 to 4", i, atoi(inflight + 8));
		free(o.resp[i].body);
	}
}

static void retry_after_and_retry_delay_parsing(void **state)
{
	(void)state;
	assert_true(http_retry_after("7", 0) == 7);
	assert_true(http_retry_after(" 2.5\r\n", 0) == 2.5);
	assert_true(http_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", 784111770) == 7);
	assert_true(http_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", 784111790) == 0);
	assert_true(http_retry_after("soon", 0) == -1);
	assert_true(http_retry_after("-3", 0) == -1);
	const char *g = "[{\"error\":{\"details\":[{\"@type\":\"x\"},{\"retryDelay\":\"12s\"}]}}]";
	assert_true(http_gemini_retry_delay(g, strlen(g)) == 12);
	assert_true(http_gemini_retry_delay("{\"retryDelay\":\"later\"}", 22) == -1);
	assert_true(http_gemini_retry_delay("not json retryDelay", 19) == -1);
	assert_true(http_gemini_retry_delay(NULL, 0) == -1);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(clean_answer_and_what_was_sent),
	cmocka_unit_test(refused_connection_is_an_error),
	cmocka_unit_test(a_stalled_server_hits_the_deadline),
	cmocka_unit_test(retry_after_seconds_date_and_gemini_delay_are_honoured),
	cmocka_unit_test(retries_are_counted_and_capped_by_the_deadline),
	cmocka_unit_test(a_huge_body_is_cut_off),
	cmocka_unit_test(jobs_run_at_once),
	cmocka_unit_test(retry_after_and_retry_delay_parsing),
};

int main(int argc, char **argv)
{
	if (argc > 1)
		cmocka_set_test_filter(argv[1]);
	return cmocka_run_group_tests_name(__FILE__, tests, start_server, stop_server);
}
