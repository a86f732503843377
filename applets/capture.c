/* applets/capture.c — the agent Stop hook: writes one reflection.v1 record per stop, never fails, prints nothing. */
#include "config.h"
#include "applet.h"
#include "lib/datadir.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "git/gitx.h"
#include "lib/jsonv.h"
#include "rules/riskfloor.h"
#include "schema/schema.h"
#include "lib/timeutil.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The Stop payload is a few hundred bytes; anything past this is not a payload. */
#define PAYLOAD_MAX (1024 * 1024)
/* Its caller closes stdin at once; a hook must not hang a session on a pipe nobody closes. */
#define PAYLOAD_WAIT_MS 5000
#define SESSION_NAME_MAX 128

static bool print_settings, print_instructions;

static const struct rtk_opt options[] = {
	RTK_OPT_BOOL(0, "print-settings", &print_settings,
		     "print the Claude Code settings that turn capture on (REFLECTION_MODE) and register the hook"),
	RTK_OPT_BOOL(0, "print-instructions", &print_instructions,
		     "print the CLAUDE.md / AGENTS.md section that asks the agent for its self-report"),
	RTK_OPT_END(),
};

/* The env block too: a hook registered without REFLECTION_MODE records nothing, and says nothing (issue 28). */
static const char settings_snippet[] = "{\"env\":{\"REFLECTION_MODE\":\"solo\"},"
				       "\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"rtk capture\"}]}]}}\n";

/* The lock's path, for the signal handler: a killed hook still removes its sentinel. */
static char lock_path[PATH_MAX];

static void on_signal(int signo)
{
	(void)signo;
	if (lock_path[0])
		unlink(lock_path);
	_exit(0);
}

/* One line on stderr; the outcome stays exit 0. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("rtk capture: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* Standard input up to PAYLOAD_MAX bytes, waiting at most PAYLOAD_WAIT_MS for it; NULL when there is no
 * usable payload (a terminal, a read error, too big, too slow). */
static cJSON *read_payload(void)
{
	static char buf[PAYLOAD_MAX + 1];
	size_t len = 0;
	struct timespec start, now;

	if (isatty(STDIN_FILENO))
		return NULL;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		long waited = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
		struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
		if (waited >= PAYLOAD_WAIT_MS || poll(&p, 1, (int)(PAYLOAD_WAIT_MS - waited)) == 0) {
			say("no end to the payload on stdin after %d ms: taken as empty", PAYLOAD_WAIT_MS);
			return NULL;
		}
		ssize_t n = read(STDIN_FILENO, buf + len, sizeof(buf) - len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return NULL; /* a closed or unreadable stdin is an empty payload */
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > PAYLOAD_MAX) {
			say("payload on stdin is over %d bytes: taken as empty", PAYLOAD_MAX);
			return NULL;
		}
	}
	return cJSON_ParseWithLength(buf, len);
}

static const char *payload_string(const cJSON *payload, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(payload, name);
	return cJSON_IsString(v) && v->valuestring[0] ? v->valuestring : NULL;
}

static const char *env_or(const char *name, const char *fallback)
{
	const char *v = getenv(name);
	return v && *v ? v : fallback;
}

/* The last component of path, trailing slashes ignored, malloc'd. */
static char *base_name(const char *path)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	size_t b = n;
	while (b > 0 && path[b - 1] != '/')
		b--;
	return strndup(path + b, n - b ? n - b : 1);
}

/* What the run took place in: the repository (when cwd is in one), its root, name and branch. */
struct place {
	git_repository *repo; /* NULL outside a repository */
	char *root;           /* the work tree's top, else cwd, made absolute when possible */
	char *name;           /* root's last component: the record's "repo" */
	char *branch;         /* NULL outside a repository */
};

static int find_place(struct place *pl, const char *cwd)
{
	memset(pl, 0, sizeof(*pl));
	if (gitx_open(&pl->repo, cwd)) {
		/* Not a repository is the expected case here; anything else (no libgit2) deserves a line. */
		if (!strstr(rtk_error_message(), "not a git repository"))
			say("%s: recording without git facts", rtk_error_message());
		rtk_error_clear();
		pl->repo = NULL;
	}
	const char *top = pl->repo ? git_repository_workdir(pl->repo) : NULL;
	pl->root = realpath(top ? top : cwd, NULL);
	if (!pl->root && !(pl->root = strdup(top ? top : cwd)))
		return rtk_oom();
	if (!(pl->name = base_name(pl->root)))
		return rtk_oom();
	if (pl->repo && gitx_head_name(pl->repo, &pl->branch)) {
		say("%s", rtk_error_message());
		rtk_error_clear();
	}
	return 0;
}

static void place_free(struct place *pl)
{
	if (pl->repo)
		git_repository_free(pl->repo);
	free(pl->root);
	free(pl->name);
	free(pl->branch);
}

/* Creates the sentinel; 1 when another capture holds it (or a crashed one left it), 0 when taken. */
static int take_lock(const char *dir)
{
	int rc = rtk_fs_mkdir_p(dir, 0777);
	if (rc)
		return rc;
	if (snprintf(lock_path, sizeof(lock_path), "%s/.capture.lock", dir) >= (int)sizeof(lock_path))
		return rtk_fail(RTK_EXIT_FAILURE, "%s: path too long", dir);
	int fd = open(lock_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0) {
		int err = errno;
		if (err == EEXIST) {
			/* Said, so that a lock a killed capture left behind can be found and removed. */
			say("%s exists: another capture is running (remove it if none is); nothing recorded", lock_path);
			lock_path[0] = '\0'; /* not ours: never remove it */
			return -1;
		}
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, err, "%s", lock_path);
		lock_path[0] = '\0';
		return rc;
	}
	close(fd);
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	return 0;
}

static void drop_lock(void)
{
	if (lock_path[0])
		unlink(lock_path);
	lock_path[0] = '\0';
}

/* The self-report's file parsed, or NULL (with why in *why; NULL when the file is simply absent). */
static cJSON *read_self_report(const char *path, const char **why)
{
	char *text;
	size_t len;
	struct stat st;
	/* A FIFO or device would hang the hook in open or read: only a regular file is a self-report. */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		*why = "is not a regular file";
		return NULL;
	}
	if (rtk_fs_read_file(path, &text, &len)) {
		rtk_error_clear();
		*why = access(path, F_OK) ? NULL : "cannot be read";
		return NULL;
	}
	cJSON *v = cJSON_ParseWithLength(text, len);
	free(text);
	*why = v ? NULL : "is not JSON";
	if (v && !cJSON_IsObject(v)) {
		cJSON_Delete(v);
		*why = "is not a JSON object";
		return NULL;
	}
	return v;
}

static cJSON *copy_or_null(const cJSON *report, const char *name)
{
	const cJSON *v = report ? cJSON_GetObjectItemCaseSensitive(report, name) : NULL;
	return v ? cJSON_Duplicate(v, true) : cJSON_CreateNull();
}

/* Sets the self-report members and provenance of rec from report (NULL: none, degraded). */
static void fill_self_report(cJSON *rec, const cJSON *report, const char *mode)
{
	static const char *const fields[] = { "confidence", "most_likely_wrong", "known_not_in_diff" };
	bool any = false;
	for (size_t i = 0; i < 3; i++) {
		cJSON_ReplaceItemInObjectCaseSensitive(rec, fields[i], copy_or_null(report, fields[i]));
		any |= report && cJSON_GetObjectItemCaseSensitive(report, fields[i]);
	}
	cJSON *prov = cJSON_CreateObject();
	cJSON_ReplaceItemInObjectCaseSensitive(rec, "provenance", prov);
	const cJSON *attempt = report ? cJSON_GetObjectItemCaseSensitive(report, "reflection_attempt") : NULL;
	cJSON_AddStringToObject(prov, "source", "stop-hook");
	cJSON_AddItemToObject(prov, "reflection_attempt", attempt ? cJSON_Duplicate(attempt, true) : cJSON_CreateNumber(1));
	cJSON_AddBoolToObject(prov, "degraded", !any);
	cJSON_AddStringToObject(prov, "reflection_mode", mode);
}

static bool under(const char *path, const char *folder, size_t n)
{
	return n && !strncmp(path, folder, n) && path[n] == '/';
}

/*
 * Drops the files rtk's own sidecar folders hold: .mosaic/ (the self-report, earlier records) and the
 * output folder when it lies inside the work tree, else every stop would list its own lock and records.
 */
static void drop_sidecar_files(struct gitx_paths *files, const char *root, const char *dir)
{
	char *abs = realpath(dir, NULL);
	size_t rl = strlen(root), n = 0;
	const char *rel = abs && under(abs, root, rl) ? abs + rl + 1 : NULL;
	for (size_t i = 0; i < files->n; i++) {
		if (under(files->v[i], ".mosaic", 7) || (rel && under(files->v[i], rel, strlen(rel))))
			free(files->v[i]);
		else
			files->v[n++] = files->v[i];
	}
	files->n = n;
	free(abs);
}

/* Validates text against reflection.v1; NULL when valid, else the first error, malloc'd. */
static char *check_record(const struct schema *s, const char *text)
{
	struct rtk_jsonv_doc *doc;
	size_t line, col;
	const char *what;
	char *msg = NULL;
	if (rtk_jsonv_parse(text, strlen(text), &doc, &line, &col, &what))
		return strdup("the record is not JSON");
	struct schema_errors errs = { 0 };
	if (!schema_validate(s, rtk_jsonv_root(doc), false, &errs)) {
		const struct schema_error *e = &errs.e[schema_errors_best(&errs)];
		if (asprintf(&msg, "%s: %s", e->instance_location[0] ? e->instance_location : "/", e->message) < 0)
			msg = strdup("invalid");
	}
	schema_errors_clear(&errs);
	rtk_jsonv_doc_free(doc);
	return msg;
}

static int compile_reflection_schema(struct schema_registry **reg, struct schema **out)
{
	char *path = rtk_data_path("schemas/reflection.v1.schema.json");
	struct rtk_jsonv_doc *doc;
	int rc;
	*out = NULL;
	if (!path || !(*reg = schema_registry_new())) {
		free(path);
		return rtk_oom();
	}
	rc = rtk_jsonv_load_file(path, &doc);
	free(path);
	if (rc)
		return rc;
	if ((rc = schema_registry_add(*reg, NULL, doc)))
		return rc;
	return schema_compile(out, *reg, rtk_jsonv_root(doc), NULL, SCHEMA_DRAFT_2020_12, SCHEMA_ASSERT_FORMAT);
}

/* Builds, validates and writes the record; everything after the lock is taken. */
static int capture(const struct place *pl, const char *dir, const char *session, const char *mode)
{
	struct gitx_paths files = { 0 };
	struct riskfloor *rf = NULL;
	struct schema_registry *reg = NULL;
	struct schema *schema = NULL;
	cJSON *rec = NULL, *report = NULL, *risk;
	char *text = NULL, *invalid = NULL, *task_ref = NULL, *safe = NULL, *path = NULL, *input_default = NULL;
	char stamp[RTK_TIME_BUFSZ], compact[RTK_TIME_BUFSZ];
	const char *why = NULL;
	int rc;

	if (pl->repo) {
		if ((rc = gitx_changed_files(pl->repo, "HEAD", &files)))
			goto out;
		drop_sidecar_files(&files, pl->root, dir);
	}
	if ((rc = riskfloor_load(&rf, NULL)) || (rc = compile_reflection_schema(&reg, &schema)))
		goto out;
	if (asprintf(&input_default, "%s/.mosaic/reflection-input.json", pl->root) < 0) {
		input_default = NULL;
		rc = rtk_oom();
		goto out;
	}
	const char *input = env_or("REFLECTION_INPUT", input_default);
	report = read_self_report(input, &why);

	if (pl->branch ? asprintf(&task_ref, "%s@%s", pl->name, pl->branch) < 0 : !(task_ref = strdup(pl->name))) {
		task_ref = NULL;
		rc = rtk_oom();
		goto out;
	}
	int64_t now = rtk_time_now();
	rtk_time_format(now, stamp);
	/* The file name's stamp drops the separators: 20261122T050903Z sorts the same and needs no quoting. */
	size_t k = 0;
	for (const char *c = stamp; *c; c++)
		if (*c != '-' && *c != ':')
			compact[k++] = *c;
	compact[k] = '\0';

	if (!(rec = cJSON_CreateObject()) ||
	    !(risk = riskfloor_assess(rf, (const char *const *)files.v, files.n, riskfloor_threshold(rf), NULL))) {
		rc = rtk_oom();
		goto out;
	}
	cJSON_AddStringToObject(rec, "schema", "reflection.v1");
	cJSON_AddStringToObject(rec, "task_ref", env_or("REFLECTION_TASK_REF", task_ref));
	cJSON_AddStringToObject(rec, "agent", env_or("REFLECTION_AGENT", "unknown"));
	cJSON_AddStringToObject(rec, "session_id", session);
	cJSON_AddStringToObject(rec, "repo", pl->name);
	cJSON_AddStringToObject(rec, "timestamp", stamp);
	/* Placeholders first, so that the members come in the schema's order. */
	cJSON_AddNullToObject(rec, "confidence");
	cJSON_AddNullToObject(rec, "most_likely_wrong");
	cJSON_AddNullToObject(rec, "known_not_in_diff");
	cJSON_AddItemToObject(rec, "risk", risk);
	cJSON *list = cJSON_AddArrayToObject(rec, "files_changed");
	for (size_t i = 0; i < files.n; i++)
		cJSON_AddItemToArray(list, cJSON_CreateString(files.v[i]));
	cJSON_AddNullToObject(rec, "provenance");
	fill_self_report(rec, report, mode);

	if (!(text = cJSON_Print(rec))) {
		rc = rtk_oom();
		goto out;
	}
	if (report && (invalid = check_record(schema, text))) {
		/* The agent's self-report is malformed: keep the mechanical facts, drop what it said. */
		say("%s: self-report does not fit reflection.v1 (%s): recorded as degraded", input, invalid);
		free(invalid);
		fill_self_report(rec, NULL, mode);
		free(text);
		if (!(text = cJSON_Print(rec))) {
			rc = rtk_oom();
			goto out;
		}
	} else if (!report && why) {
		say("%s %s: recorded as degraded", input, why);
	}
	if ((invalid = check_record(schema, text))) {
		rc = rtk_fail(RTK_EXIT_FAILURE, "the record does not fit reflection.v1 (%s): nothing written", invalid);
		free(invalid);
		goto out;
	}
	if (!(safe = rtk_fs_safe_file_name(session, SESSION_NAME_MAX)) ||
	    asprintf(&path, "%s/%s-%s.reflection.json", dir, safe, compact) < 0) {
		path = NULL;
		rc = rtk_oom();
		goto out;
	}
	size_t len = strlen(text);
	text[len++] = '\n'; /* cJSON_Print's buffer has room: the NUL becomes the newline */
	rc = rtk_fs_write_file_atomic(path, text, len);
out:
	free(path);
	free(safe);
	free(text);
	free(task_ref);
	free(input_default);
	cJSON_Delete(rec);
	cJSON_Delete(report);
	schema_free(schema);
	schema_registry_free(reg);
	riskfloor_free(rf);
	gitx_paths_free(&files);
	return rc;
}

/*
 * .mosaic/.gitignore, written once when missing: the self-report and the records are rtk's sidecars,
 * never part of the change, so `git status` and `rtk risk-floor --diff` must not list them (issue 28).
 * One the user wrote is left alone.
 */
static void ignore_sidecar_folder(const char *root)
{
	static const char text[] = "# rtk capture's folder: the agent's self-report and the reflection records, never part of a change\n*\n";
	char *path = NULL;
	if (asprintf(&path, "%s/.mosaic/.gitignore", root) < 0)
		return;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd >= 0) {
		if (write(fd, text, sizeof(text) - 1) != (ssize_t)(sizeof(text) - 1))
			say("%s: %s", path, strerror(errno));
		close(fd);
	} else if (errno != EEXIST) {
		say("%s: %s", path, strerror(errno));
	}
	free(path);
}

/* A shipped text file, copied to out as it is. */
static int print_shipped(const char *rel, FILE *out)
{
	char *path = rtk_data_path(rel), *text = NULL;
	size_t len;
	int rc = path ? rtk_fs_read_file(path, &text, &len) : rtk_oom();
	if (!rc && fwrite(text, 1, len, out) != len)
		rc = rtk_fail_errno(RTK_EXIT_FAILURE, errno, "cannot write the instructions");
	free(text);
	free(path);
	return rc;
}

static int capture_run(int argc, char **argv, const struct rtk_applet_ctx *ctx)
{
	(void)argv;
	if (print_settings && print_instructions)
		return rtk_fail(RTK_EXIT_USAGE, "--print-settings and --print-instructions: one at a time");
	if (print_settings) {
		fputs(settings_snippet, ctx->out);
		return 0;
	}
	if (print_instructions)
		return print_shipped("data/prompts/capture-instructions.md", ctx->out);
	if (argc) {
		say("takes no operands: ignored");
	}
	const char *mode = getenv("REFLECTION_MODE");
	if (!mode || !*mode || !strcmp(mode, "off"))
		return 0;
	if (strcmp(mode, "solo") && strcmp(mode, "orchestrated")) {
		say("REFLECTION_MODE=%s is not off, solo or orchestrated: nothing recorded", mode);
		return 0;
	}

	cJSON *payload = read_payload();
	const char *session = payload_string(payload, "session_id");
	const char *cwd = payload_string(payload, "cwd");
	struct place pl;
	char *dir = NULL;
	int rc = find_place(&pl, cwd ? cwd : ".");
	if (!rc) {
		const char *given = env_or("REFLECTION_DIR", NULL);
		if (given ? !(dir = strdup(given)) : asprintf(&dir, "%s/.mosaic/reflections", pl.root) < 0) {
			dir = NULL;
			rc = rtk_oom();
		}
	}
	if (!rc && !(rc = take_lock(dir))) {
		if (!getenv("REFLECTION_DIR") || !*getenv("REFLECTION_DIR"))
			ignore_sidecar_folder(pl.root);
		rc = capture(&pl, dir, session ? session : "unknown", mode);
		drop_lock();
	} else if (rc == -1) {
		rc = 0; /* another capture is running (or re-fired us): leave it be */
	}
	free(dir);
	place_free(&pl);
	cJSON_Delete(payload);
	return rc; /* always_exit_zero: main prints the reason and exits 0 */
}

const struct rtk_applet rtk_applet_capture = {
	.name = "capture",
	.summary = "agent Stop hook: record a reflection.v1 of the session (never fails, prints nothing)",
	.usage = { "capture", "capture --print-settings", "capture --print-instructions", NULL },
	.options = options,
	.run = capture_run,
	.always_exit_zero = true,
};
