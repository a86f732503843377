/* tests/fuzz/fuzz_runplan_steps.c — libFuzzer harness: a plan step's output through run-plan's line path (src/runplan/runplan_steps.c: redaction, the log, the blocker's tail), and the $VARIABLES of env_status. */
#include "config.h"
#include "fuzz.h"
#include "runplan/runplan_internal.h"
#include "exec/proc.h"
#include "lib/err.h"
#include "lib/datadir.h"
#include "lib/fsutil.h"
#include "lib/re.h"
#include "lib/yamlx.h"

#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FUZZ_COMMAND "cat out.bin"
#define FUZZ_MAX_REPEAT 64

struct fuzz_env {
	char dir[PATH_MAX];
	char *sandbox_dir, *out, *run_dir;
	struct runplan_rules rules;
	struct sandbox sb;
	struct plan_step step;
	struct plan plan;
	size_t order;
	struct rtk_re *patterns[64], *allowlist; /* data/rules/secrets.yaml's, for lines past the cap */
	size_t npatterns;
};

/* What the step handed on, piece by piece (the terminal's view of it). */
struct fuzz_pieces {
	char **v;
	size_t *len, n, cap;
};

static char *fuzz_path(const char *dir, const char *rel)
{
	char *p = NULL;
	if (asprintf(&p, "%s/%s", dir, rel) < 0)
		RTK_BUG("out of memory");
	return p;
}

static int fuzz_remove(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)type, (void)ftw;
	return remove(path);
}

static struct fuzz_env *fuzz_env(void);

static void fuzz_cleanup(void)
{
	if (nftw(fuzz_env()->dir, fuzz_remove, 16, FTW_DEPTH | FTW_PHYS))
		fprintf(stderr, "fuzz: cannot remove %s\n", fuzz_env()->dir);
}

/* The shipped secret patterns on their own, to look for secrets in windows of a long line. */
static int fuzz_patterns(struct fuzz_env *e)
{
	char *path = rtk_data_path(SECRETS_RULES);
	cJSON *rules = NULL, *p;
	const char *allow;
	int rc = !path ? RTK_EXIT_FAILURE : rtk_yaml_load_file(path, &rules);
	free(path);
	if (rc)
		return rc;
	cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(rules, "patterns"))
		if (e->npatterns == 64 || (rc = rtk_re_compile(&e->patterns[e->npatterns++],
							      cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "regex")), 0, NULL)))
			break;
	if (!rc && (allow = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rules, "allowlist_pragma"))))
		rc = rtk_re_compile(&e->allowlist, allow, 0, NULL);
	cJSON_Delete(rules);
	return rc;
}

/*
 * A line past proc's cap went through the stream redactor, which finds any secret whose match
 * (with the context a pattern wants before it) spans at most SECRETS_STREAM_CARRY / 2 bytes: each
 * such match lies inside one of the windows [w, w + CARRY) for w a multiple of CARRY / 2, searched
 * from w with the line before it as context. What is left must be the redactor's own markers.
 */
/* Whether the rules themselves call text a secret: a pattern's shape is not enough under an entropy floor. */
static bool fuzz_is_secret(const struct fuzz_env *e, const char *text, size_t len)
{
	unsigned found = 0;
	char *c = secrets_redact(e->rules.secrets, text, len, 0, NULL, &found);
	if (!c)
		RTK_BUG("out of memory");
	free(c);
	return found > 0;
}

static void fuzz_check_long_line(const struct fuzz_env *e, const char *line, size_t len, size_t at)
{
	size_t step = SECRETS_STREAM_CARRY / 2, ms, me;
	if (e->allowlist && rtk_re_matches(e->allowlist, line, len))
		return;
	for (size_t i = 0; i < e->npatterns; i++)
		for (size_t w = 0; w < len; w += step) {
			size_t end = w + SECRETS_STREAM_CARRY < len ? w + SECRETS_STREAM_CARRY : len;
			size_t fs, fe;
			if (rtk_re_search(e->patterns[i], line, end, w, &ms, &me) != 1 || me <= ms ||
			    (me - ms >= 10 && !memcmp(line + ms, "[REDACTED:", 10)))
				continue;
			/*
			 * The window's end may cut a longer match short, and a prefix of a token can pass an
			 * entropy floor that the whole token does not: judge the match the whole line makes there.
			 */
			if (rtk_re_search(e->patterns[i], line, len, ms, &fs, &fe) == 1 && fs == ms) {
				if (fe > end && fe - ms > step)
					continue; /* longer than the redactor promises to see whole */
				me = fe;
			}
			if (fuzz_is_secret(e, line + ms, me - ms))
				RTK_BUG("a long log line (at byte %zu) holds a secret at %zu: %.*s", at, ms, (int)(me - ms < 100 ? me - ms : 100),
					line + ms);
		}
}

/* A scratch sandbox whose one step prints out.bin, the shipped rules, and a run folder. */
static struct fuzz_env *fuzz_env(void)
{
	static struct fuzz_env e;
	static char *commands[] = { FUZZ_COMMAND };
	char tmpl[64];
	struct runplan_opts none = { 0 };
	if (e.sandbox_dir)
		return &e;
	snprintf(tmpl, sizeof(tmpl), "%s/rtk-fuzz-runplan-steps-XXXXXX", access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm");
	if (!mkdtemp(tmpl) || !realpath(tmpl, e.dir))
		RTK_BUG("mkdtemp: %s", strerror(errno));
	atexit(fuzz_cleanup);
	e.sandbox_dir = fuzz_path(e.dir, "sandbox");
	e.out = fuzz_path(e.sandbox_dir, "out.bin");
	e.run_dir = fuzz_path(e.dir, "run");
	if (rtk_fs_mkdir_p(e.sandbox_dir, 0755) || runplan_rules_load(&none, &e.rules) || fuzz_patterns(&e))
		RTK_BUG("cannot set up: %s", rtk_error_message());
	e.sb = (struct sandbox){ .mode = SANDBOX_COPY, .dir = e.sandbox_dir, .root = e.dir, .project = e.dir };
	e.step = (struct plan_step){ .id = "step", .commands = commands, .ncommands = 1 };
	e.plan = (struct plan){ .steps = &e.step, .nsteps = 1, .order = &e.order };
	return &e;
}

static void fuzz_on_line(void *user, const char *step_id, const char *line, size_t len)
{
	struct fuzz_pieces *p = user;
	(void)step_id;
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 64;
		if (!(p->v = realloc(p->v, p->cap * sizeof(*p->v))) || !(p->len = realloc(p->len, p->cap * sizeof(*p->len))))
			RTK_BUG("out of memory");
	}
	if (!(p->v[p->n] = malloc(len + 1)))
		RTK_BUG("out of memory");
	memcpy(p->v[p->n], line, len);
	p->v[p->n][len] = '\0';
	p->len[p->n++] = len;
}

/* How many secrets the shipped patterns find in text[0..len) taken as one line. */
static unsigned fuzz_secrets_in(const struct fuzz_env *e, const char *text, size_t len, char **clean, size_t *clean_len)
{
	unsigned found = 0;
	size_t n;
	char *c = secrets_redact(e->rules.secrets, text, len, 0, &n, &found);
	if (!c)
		RTK_BUG("out of memory");
	if (clean)
		*clean = c, *clean_len = n;
	else
		free(c);
	return found;
}

/*
 * The log as the step wrote it against the output: the command line, then each line of output, the
 * first that holds a secret redacted and last. No line of the log holds a secret, whatever the
 * output (redacting a line of it again changes nothing; past the cap, fuzz_check_long_line). Lines
 * no longer than proc's cap come whole and are checked exactly; a longer one comes in pieces
 * redacted as a stream, and is only checked for secrets.
 */
static void fuzz_check_log(const struct fuzz_env *e, const char *out, size_t size, const char *log, size_t log_len,
			   enum runplan_step_status status)
{
	const char *want_head = "$ " FUZZ_COMMAND "\n";
	size_t head = strlen(want_head), at, o = 0;
	bool long_lines = false, leaked = false;

	if (log_len < head || memcmp(log, want_head, head))
		RTK_BUG("the log does not start with the command");
	for (at = 0; at < log_len;) {
		const char *eol = memchr(log + at, '\n', log_len - at);
		size_t len = (size_t)((eol ? eol : log + log_len) - (log + at));
		char *again;
		size_t again_len;
		/* a pattern may match its own [REDACTED:name]: redacting a clean line again changes nothing */
		if (len > PROC_LINE_MAX)
			fuzz_check_long_line(e, log + at, len, at);
		else if (fuzz_secrets_in(e, log + at, len, &again, &again_len) && (again_len != len || memcmp(again, log + at, len)))
			RTK_BUG("log line at byte %zu holds a secret: %.*s", at, (int)(len < 200 ? len : 200), log + at);
		if (len <= PROC_LINE_MAX)
			free(again);
		at += len + 1; /* the last line lacks its newline when a leak stopped the step in a cut piece */
	}
	for (size_t i = 0; i < size;) {
		const char *eol = memchr(out + i, '\n', size - i);
		size_t len = (size_t)((eol ? eol : out + size) - (out + i));
		long_lines |= len > PROC_LINE_MAX;
		i += len + 1;
	}
	if (long_lines) {
		if (status != RUNPLAN_STEP_PASSED && status != RUNPLAN_STEP_SECRET_LEAK)
			RTK_BUG("a step that printed long lines ended %s", runplan_step_status_name(status));
		return;
	}
	at = head;
	while (o < size && !leaked) {
		const char *eol = memchr(out + o, '\n', size - o);
		size_t len = (size_t)((eol ? eol : out + size) - (out + o)), clean_len;
		char *clean;
		leaked = fuzz_secrets_in(e, out + o, len, &clean, &clean_len) > 0;
		if (log_len - at < clean_len + 1 || memcmp(log + at, clean, clean_len) || log[at + clean_len] != '\n')
			RTK_BUG("output line at byte %zu is not logged as it is%s", o, leaked ? ", redacted" : "");
		at += clean_len + 1;
		o += len + 1;
		free(clean);
	}
	if (at != log_len)
		RTK_BUG("the log goes on for %zu bytes after the output%s", log_len - at, leaked ? "'s secret" : "");
	if (status != (leaked ? RUNPLAN_STEP_SECRET_LEAK : RUNPLAN_STEP_PASSED))
		RTK_BUG("the step ended %s; its output %s a secret", runplan_step_status_name(status), leaked ? "held" : "held no");
}

/* The pieces handed on hold no newline and, unredacted, stay within the cap; the tail is the last of them. */
static void fuzz_check_pieces(const struct runplan_attempt *a, const struct fuzz_pieces *p, bool leaked)
{
	size_t first = p->n > (size_t)a->rules->last_lines ? p->n - (size_t)a->rules->last_lines : 0;

	for (size_t i = 0; i < p->n; i++)
		if (memchr(p->v[i], '\n', p->len[i]) || (!leaked && p->len[i] > PROC_LINE_MAX + SECRETS_STREAM_CARRY))
			RTK_BUG("piece %zu of %zu bytes holds a newline or passes the cap", i, p->len[i]);
	if (a->tail.n != p->n - first || a->tail.n > a->tail.max)
		RTK_BUG("the tail holds %zu lines of %zu (at most %zu)", a->tail.n, p->n, a->tail.max);
	for (size_t i = 0; i < a->tail.n; i++)
		if (strncmp(a->tail.lines[i], p->v[first + i], p->len[first + i] + 1))
			RTK_BUG("tail line %zu is not the %zu-th piece handed on", i, first + i);
}

/* env_status names each $NAME and ${NAME the commands use, once, sorted, set or not as the environment has it. */
static void fuzz_check_env_status(const uint8_t *data, size_t size)
{
	char *text = strndup((const char *)data, size), *commands[64];
	size_t n = 0;
	struct plan_step step = { .id = "s", .commands = commands };
	struct plan p = { .steps = &step, .nsteps = 1 };
	cJSON *status, *v;
	const char *prev = NULL;

	if (!text)
		RTK_BUG("out of memory");
	for (char *line = text, *next; line && n < 64; line = next) {
		if ((next = strchr(line, '\n')))
			*next++ = '\0';
		commands[n++] = line;
	}
	step.ncommands = n;
	if (!(status = runplan_env_status(&p)))
		RTK_BUG("out of memory");
	cJSON_ArrayForEach(v, status) {
		const char *name = v->string, *set = getenv(name) ? "<SET>" : "<UNSET>";
		size_t len = strlen(name);
		bool used = false;
		if (!len || len > 127 || isdigit((unsigned char)name[0]) || strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") != len ||
		    (prev && strcmp(prev, name) >= 0) || strcmp(cJSON_GetStringValue(v), set))
			RTK_BUG("env_status has '%s' = %s after '%s'", name, cJSON_GetStringValue(v), prev ? prev : "");
		for (size_t c = 0; c < n && !used; c++)
			for (const char *d = strchr(commands[c], '$'); d && !used; d = strchr(d + 1, '$')) {
				const char *at = d + 1 + (d[1] == '{');
				used = !strncmp(at, name, len) && !(isalnum((unsigned char)at[len]) || at[len] == '_');
			}
		if (!used)
			RTK_BUG("env_status names '%s', which no command uses", name);
		prev = name;
	}
	for (size_t c = 0; c < n; c++)
		for (const char *d = strchr(commands[c], '$'); d; d = strchr(d + 1, '$')) {
			const char *at = d + 1 + (d[1] == '{');
			size_t len = 0;
			char name[128];
			if (!(isalpha((unsigned char)at[0]) || at[0] == '_'))
				continue;
			while (isalnum((unsigned char)at[len]) || at[len] == '_')
				len++;
			if (len >= sizeof(name))
				continue;
			memcpy(name, at, len);
			name[len] = '\0';
			if (!cJSON_GetObjectItemCaseSensitive(status, name))
				RTK_BUG("command %zu uses $%s, which env_status leaves out", c, name);
		}
	cJSON_Delete(status);
	free(text);
}

/*
 * The input is what the step prints (cat of a file in the sandbox); a first line "*N" (N up to 64)
 * prints the rest N times, or of A NUL B NUL C, A then B N times then C, so that lines pass proc's
 * 64 KiB cap. Its lines are also the commands whose variables env_status lists.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_env *e = fuzz_env();
	struct fuzz_pieces pieces = { 0 };
	struct runplan_step_result result = { 0 };
	/* the run folder is below the state folder, as runplan.c makes it: logs are written within it */
	struct runplan_opts o = { .state_dir = e->dir, .step_timeout_ms = 5000, .on_line = fuzz_on_line, .user = &pieces };
	struct runplan_attempt a = { .o = &o, .rules = &e->rules, .run_dir = e->run_dir, .plan = &e->plan, .steps = &result,
				     .sb = &e->sb };
	size_t repeat = 1, size_out, log_len;
	char *out, *log;
	FILE *f;

	fuzz_check_env_status(data, size);
	/* "*N\n" then A NUL B NUL C prints A, B N times, C; without two NULs the whole rest N times */
	const uint8_t *pa = data, *pb = data, *pc = data + size;
	size_t alen = 0, blen = size, clen = 0;
	if (size > 2 && data[0] == '*' && isdigit(data[1])) {
		const uint8_t *eol = memchr(data, '\n', size), *end = data + size, *n1, *n2;
		repeat = strtoul((const char *)data + 1, NULL, 10);
		repeat = repeat < 1 ? 1 : repeat > FUZZ_MAX_REPEAT ? FUZZ_MAX_REPEAT : repeat;
		pb = eol ? eol + 1 : end, blen = (size_t)(end - pb);
		if ((n1 = memchr(pb, '\0', blen)) && (n2 = memchr(n1 + 1, '\0', (size_t)(end - n1 - 1)))) {
			pa = pb, alen = (size_t)(n1 - pb);
			pb = n1 + 1, blen = (size_t)(n2 - pb);
			pc = n2 + 1, clen = (size_t)(end - pc);
		}
	}
	size_out = alen + blen * repeat + clen;
	if (!(out = malloc(size_out + 1)) || !(f = fopen(e->out, "wb")))
		RTK_BUG("cannot write out.bin");
	memcpy(out, pa, alen);
	for (size_t i = 0; i < repeat; i++)
		memcpy(out + alen + i * blen, pb, blen);
	memcpy(out + alen + repeat * blen, pc, clen);
	if (fwrite(out, 1, size_out, f) != size_out || fclose(f))
		RTK_BUG("cannot write out.bin");

	a.written = cJSON_CreateArray();
	if (runplan_run_steps(&a) != a.exit || (result.status == RUNPLAN_STEP_PASSED) != (a.exit == 0) || !result.log)
		RTK_BUG("the step ended %s (exit %d): %s", runplan_step_status_name(result.status), a.exit, a.error ? a.error : "");
	if (result.status == RUNPLAN_STEP_SECRET_LEAK && (a.exit != RTK_EXIT_SECRET_LEAK || a.failed_step != &e->step))
		RTK_BUG("a leak that exits %d", a.exit);
	if (rtk_fs_read_file(result.log, &log, &log_len))
		RTK_BUG("no log: %s", rtk_error_message());
	fuzz_check_log(e, out, size_out, log, log_len, result.status);
	fuzz_check_pieces(&a, &pieces, result.status == RUNPLAN_STEP_SECRET_LEAK);
	if (unlink(result.log))
		RTK_BUG("cannot remove the log");

	free(log);
	free(out);
	for (size_t i = 0; i < pieces.n; i++)
		free(pieces.v[i]);
	free(pieces.v);
	free(pieces.len);
	runplan_tail_free(&a.tail);
	free(result.log);
	free(a.error);
	cJSON_Delete(a.written);
	rtk_error_clear();
	return 0;
}
