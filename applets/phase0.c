/* applets/phase0.c — P1, P2 and P3 from one config file: one report, three verdicts, one decision. */
#include "config.h"
#include "applet.h"
#include "board/boardhistory.h"
#include "calibration/calibration.h"
#include "githistory/githistory.h"
#include "git/gitx.h"
#include "lib/alloc.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/html.h"
#include "lib/keycheck.h"
#include "lib/sha256.h"
#include "lib/timeutil.h"
#include "lib/yamlx.h"
#include "phase0/phase0.h"
#include "phase0/repolist.h"
#include "phase0/shard.h"
#include "githistory/pool.h"

#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool fail_on_kill;
static const char *html_path, *shard_spec;
static long shard_count;

static const struct rtk_opt options[] = {
	RTK_OPT_BOOL(0, "fail-on-kill", &fail_on_kill, "exit 3 when any experiment's verdict is KILL"),
	RTK_OPT_STRING(0, "html", &html_path, "FILE", "also write the report as one self-contained HTML page with its charts"),
	RTK_OPT_STRING(0, "shard", &shard_spec, "I/N", "run shard I of N (0-based; auto: from a Slurm array or an Indexed Job) and write "
		       "a piece for rtk merge"),
	RTK_OPT_INT(0, "shard-count", &shard_count, "N", "the number of shards, for --shard auto in a Kubernetes Indexed Job"),
	RTK_OPT_END(),
};

/*
 * Every key a config takes, for rtk_keycheck_tree: a number where the experiment wants a number (a
 * quoted one is read as the number), a string where it wants text (a number there is read as written,
 * so `window: 365` is refused like `window: "365"`).
 */
static const char known_keys[] =
	"calibration: {corpus: '', corpora: [''], group_by: '', high: 0, alpha: 0, ci_level: 0, delta: 0, min_per_class: 0, bins: 0}\n"
	"git_history: {repo: '', repos: [{path: '', rev: '', window: ''}], repos_file: '', window: '', since: '', until: '',"
	" rev: '', config: '', fix_window: ''}\n"
	"board: {export: '', exports: [''], repo: '', from: '', timeline: '', dir: '', config: '', within: '', as_of: '', kill_below: 0,"
	" min_tasks: 0}\n";

/* Paths in the config are relative to the config file's folder. */
struct config {
	const char *file;
	cJSON *root;
	struct rtk_yaml_marks *marks; /* where each setting is in the file, for messages */
	char *dir;
	char **owned; /* strings made here, freed at the end */
	size_t nowned;
};

static const char *config_path(struct config *c, const char *path)
{
	char *full;
	if (path[0] == '/' || !strcmp(path, "-"))
		return path;
	if (asprintf(&full, "%s/%s", c->dir, path) < 0)
		return NULL;
	char **more = realloc(c->owned, (c->nowned + 1) * sizeof(*more));
	if (!more) {
		free(full);
		return NULL;
	}
	c->owned = more;
	c->owned[c->nowned++] = full;
	return full;
}

static void config_free(struct config *c)
{
	for (size_t i = 0; i < c->nowned; i++)
		free(c->owned[i]);
	free(c->owned);
	free(c->dir);
	cJSON_Delete(c->root);
	rtk_yaml_marks_free(c->marks);
}

static const cJSON *section(const struct config *c, const char *name)
{
	return cJSON_GetObjectItemCaseSensitive(c->root, name);
}

static const char *str(const cJSON *obj, const char *name)
{
	return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(obj, name));
}

static void number(const cJSON *obj, const char *name, double *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
	if (cJSON_IsNumber(v))
		*out = v->valuedouble;
}

static void whole(const cJSON *obj, const char *name, long *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
	if (cJSON_IsNumber(v))
		*out = (long)v->valuedouble;
}

/* A section's list of input files (a string or a list of strings), resolved; NULL when out of memory. */
static char **input_files(struct config *c, const cJSON *sec, const char *name, int *n)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(sec, name), *item;
	int count = cJSON_IsString(v) ? 1 : cJSON_GetArraySize(v);
	char **files = calloc((size_t)count + 1, sizeof(*files));
	int i = 0;

	if (!files)
		return NULL;
	if (cJSON_IsString(v))
		files[i++] = (char *)config_path(c, v->valuestring);
	else
		cJSON_ArrayForEach(item, v)
			if (cJSON_IsString(item))
				files[i++] = (char *)config_path(c, item->valuestring);
	for (int k = 0; k < i; k++)
		if (!files[k]) {
			free(files);
			return NULL;
		}
	*n = i;
	return files;
}

/* ----- the config, checked whole before any experiment runs ----- */

/* "FILE:LINE:COLUMN" of v (of its section when v has no mark), into buf. */
static const char *at(const struct config *c, const cJSON *v, const cJSON *sec, char buf[static 512])
{
	unsigned long column = 0, line = rtk_yaml_line(c->marks, v, &column);
	if (!line)
		line = rtk_yaml_line(c->marks, sec, &column);
	snprintf(buf, 512, "%s:%lu:%lu", c->file, line, column);
	return buf;
}

/* Each path a section's key names (a string, or a list of them for corpus and export) must exist. */
static int check_paths(struct config *c, const char *name, const char *key)
{
	const cJSON *sec = section(c, name), *v = cJSON_GetObjectItemCaseSensitive(sec, key);
	const cJSON *item = cJSON_IsArray(v) ? v->child : v;
	struct stat st;
	char where[512];

	if (cJSON_IsNull(v)) /* named nothing: the experiment is skipped, saying so */
		return 0;
	for (; item; item = cJSON_IsArray(v) ? item->next : NULL) {
		const char *path;
		if (!cJSON_IsString(item))
			return rtk_fail(RTK_EXIT_USAGE, "%s: %s.%s must name files", at(c, item, sec, where), name, key);
		if (!(path = config_path(c, item->valuestring)))
			return rtk_oom();
		if (strcmp(path, "-") && stat(path, &st) != 0)
			return rtk_fail_errno(RTK_EXIT_USAGE, errno, "%s: %s.%s: %s", at(c, item, sec, where), name, key, path);
	}
	return 0;
}

/* A duration the experiment will parse, parsed now so that its error names the config's line. */
static int check_duration(struct config *c, const char *name, const char *key)
{
	const cJSON *sec = section(c, name), *v = cJSON_GetObjectItemCaseSensitive(sec, key);
	char where[512];
	int64_t seconds;

	if (cJSON_IsString(v) && rtk_time_duration_parse(v->valuestring, &seconds))
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s.%s: %s", at(c, v, sec, where), name, key, rtk_error_message());
	return 0;
}

/*
 * corpora: and exports: are the plural spellings of corpus: and export: (which take a list too): one
 * of the two, read under the singular name from here on.
 */
static int plural(struct config *c, const char *name, const char *one, const char *many)
{
	cJSON *sec = cJSON_GetObjectItemCaseSensitive(c->root, name), *v = cJSON_GetObjectItemCaseSensitive(sec, many);
	char where[512];
	if (!v)
		return 0;
	if (cJSON_GetObjectItemCaseSensitive(sec, one))
		return rtk_fail(RTK_EXIT_USAGE, "%s: %s.%s and %s.%s name the same files: give one of them", at(c, v, sec, where),
				name, one, name, many);
	char *key = strdup(one);
	if (!key)
		return rtk_oom();
	cJSON_free(v->string);
	v->string = key; /* the node keeps its address, so its mark still says where it is */
	return 0;
}

/* Unknown keys, mistyped values, durations and missing inputs: all before anything runs. */
static int check_config(struct config *c)
{
	static const char *const paths[][2] = {
		{ "calibration", "corpus" }, { "git_history", "repo" }, { "git_history", "repos_file" }, { "git_history", "config" }, { "board", "export" },
		{ "board", "repo" },         { "board", "timeline" },   { "board", "config" },
	};
	static const char *const durations[][2] = { { "git_history", "window" }, { "git_history", "fix_window" }, { "board", "within" } };
	cJSON *known;
	int rc;

	if ((rc = rtk_yaml_load(known_keys, strlen(known_keys), "phase0 keys", &known)))
		RTK_BUG("phase0's known keys do not parse: %s", rtk_error_message());
	rc = rtk_keycheck_tree(c->root, c->marks, c->file, known);
	cJSON_Delete(known);
	if (!rc)
		rc = plural(c, "calibration", "corpus", "corpora");
	if (!rc)
		rc = plural(c, "board", "export", "exports");
	for (size_t i = 0; !rc && i < sizeof(durations) / sizeof(durations[0]); i++)
		rc = check_duration(c, durations[i][0], durations[i][1]);
	for (size_t i = 0; !rc && i < sizeof(paths) / sizeof(paths[0]); i++)
		rc = check_paths(c, paths[i][0], paths[i][1]);
	return rc;
}

/* A row of e->by_source (made on first use) for a source's own result; the result is deleted. */
static int add_source(struct phase0_experiment *e, const char *file, cJSON *result)
{
	cJSON *row = phase0_source_row(e->applet, file, result);
	cJSON_Delete(result);
	if (!row || (!e->by_source && !(e->by_source = cJSON_CreateArray()))) {
		cJSON_Delete(row);
		return rtk_oom();
	}
	cJSON_AddItemToArray(e->by_source, row);
	phase0_sort_sources(e->by_source);
	return 0;
}

/* One corpus of several on its own: its row in the table by source. */
static int calibration_source(const struct calibration_opts *o, char *file, struct phase0_experiment *e)
{
	struct calibration_corpus *corpus = calibration_corpus_new(o);
	struct calibration_analysis a = { 0 };
	cJSON *result = rtk_out_result_new("calibrate");
	int rc = corpus && result ? calibration_corpus_read(corpus, file) : rtk_oom();
	if (!rc)
		rc = calibration_report(corpus, 1, &file, result, &a);
	free(a.values);
	calibration_corpus_free(corpus);
	if (rc) {
		cJSON_Delete(result);
		return rc;
	}
	return add_source(e, file, result);
}

static int run_calibration(struct config *c, struct phase0_experiment *e)
{
	const cJSON *sec = section(c, "calibration");
	struct calibration_opts o = CALIBRATION_DEFAULTS;
	struct calibration_corpus *corpus = NULL;
	struct calibration_analysis overall = { 0 };
	char **files;
	int n = 0, rc = 0;

	if (!sec) {
		snprintf(e->skipped, sizeof(e->skipped), "no calibration section in the config");
		snprintf(e->next, sizeof(e->next), "add a calibration: section whose corpus: names the agents' self-rated "
			 "confidence with each task's outcome, one JSON object a line (rtk-calibrate(1); rtk capture's "
			 "records and rtk iterate's outcomes.jsonl are such corpora)");
		return 0;
	}
	if (!(files = input_files(c, sec, "corpus", &n)))
		return rtk_oom();
	if (!n) {
		snprintf(e->skipped, sizeof(e->skipped), "calibration.corpus names no file");
		snprintf(e->next, sizeof(e->next), "name the corpus file in calibration.corpus");
		free(files);
		return 0;
	}
	o.group_by = str(sec, "group_by");
	number(sec, "high", &o.high);
	number(sec, "alpha", &o.alpha);
	number(sec, "ci_level", &o.ci_level);
	number(sec, "delta", &o.delta);
	whole(sec, "min_per_class", &o.min_per_class);
	whole(sec, "bins", &o.bins);
	if ((rc = calibration_check_opts(&o)) || !(corpus = calibration_corpus_new(&o)))
		goto out;
	for (int i = 0; i < n && !rc; i++)
		rc = calibration_corpus_read(corpus, files[i]);
	if (!rc && !(e->result = rtk_out_result_new("calibrate")))
		rc = rtk_oom();
	if (!rc)
		rc = calibration_report(corpus, n, files, e->result, &overall);
	for (int i = 0; n > 1 && !rc && i < n; i++)
		rc = calibration_source(&o, files[i], e);
	if (!rc && html_path && overall.all.auc_available)
		rc = rtk_stats_roc_curve(overall.values, overall.k, &e->roc, &e->nroc);
out:
	if (rc == RTK_EXIT_USAGE)
		rc = rtk_fail(RTK_EXIT_USAGE, "calibration: %s", rtk_error_message());
	calibration_corpus_free(corpus);
	free(overall.values);
	free(files);
	return rc;
}

/* The options every repository of the section shares; repo, rev and window are set per repository. */
static void git_history_opts(struct config *c, const cJSON *sec, struct githistory_opts *o)
{
	const char *s;
	*o = (struct githistory_opts)GITHISTORY_DEFAULTS;
	o->window = str(sec, "window");
	o->since = str(sec, "since");
	o->until = str(sec, "until");
	o->fix_window = str(sec, "fix_window");
	if ((s = str(sec, "rev")))
		o->rev = s;
	if ((s = str(sec, "config")))
		o->config = config_path(c, s);
}

static int run_git_history(struct config *c, struct phase0_experiment *e)
{
	const cJSON *sec = section(c, "git_history");
	struct githistory_opts o;
	const char *s;
	int rc;

	if (!sec) {
		snprintf(e->skipped, sizeof(e->skipped), "no git_history section in the config");
		snprintf(e->next, sizeof(e->next), "add a git_history: section whose repo: names the repository the agents "
			 "work in, with a window: of a year or more (window: 365d)");
		return 0;
	}
	git_history_opts(c, sec, &o);
	/* The folder exists (check_config); the config's own folder when none is named. */
	if (!(o.repo = config_path(c, (s = str(sec, "repo")) ? s : ".")))
		return rtk_oom();
	/* A folder that is not (in) a repository, as an unpacked tarball: the input is missing too. */
	git_repository *repo;
	if ((rc = gitx_open(&repo, o.repo)) == RTK_EXIT_USAGE) {
		snprintf(e->skipped, sizeof(e->skipped), "%s", rtk_error_message());
		snprintf(e->next, sizeof(e->next), "point git_history.repo at a clone of the repository, with its history");
		return 0;
	}
	if (rc)
		return rc;
	git_repository_free(repo);
	if ((rc = githistory_report(&o, &e->result)) == RTK_EXIT_USAGE)
		rc = rtk_fail(RTK_EXIT_USAGE, "git_history: %s", rtk_error_message());
	return rc;
}

/* ----- many repositories: git_history.repos and repos_file ----- */

/* Every repository the section names, in the order named; NULL-free list, or an error at the line. */
static int repo_list_read(struct config *c, const cJSON *sec, struct phase0_repolist *l)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(sec, "repos"), *item;
	const char *s;
	char where[512];
	int rc = 0;

	if ((s = str(sec, "repo")))
		rc = phase0_repolist_add(l, c->dir, s, NULL, NULL, c->file, rtk_yaml_line(c->marks, cJSON_GetObjectItemCaseSensitive(sec, "repo"), NULL));
	if (list && !cJSON_IsArray(list) && !cJSON_IsNull(list))
		return rtk_fail(RTK_EXIT_USAGE, "%s: git_history.repos must be a list", at(c, list, sec, where));
	const cJSON *items = cJSON_IsArray(list) ? list : NULL;
	cJSON_ArrayForEach(item, items) {
		unsigned long line = rtk_yaml_line(c->marks, item, NULL);
		if (rc)
			break;
		if (cJSON_IsString(item)) {
			rc = phase0_repolist_is_pattern(item->valuestring) ? phase0_repolist_glob(l, c->dir, item->valuestring, c->file, line)
							   : phase0_repolist_add(l, c->dir, item->valuestring, NULL, NULL, c->file, line);
		} else if (cJSON_IsObject(item) && (s = str(item, "path"))) {
			if (phase0_repolist_is_pattern(s))
				rc = rtk_fail(RTK_EXIT_USAGE, "%s: git_history.repos: a repository with its own rev or window is one "
					      "path, not a pattern (%s)", at(c, item, sec, where), s);
			else if (str(item, "window") && rtk_time_duration_parse(str(item, "window"), &(int64_t){ 0 }))
				rc = rtk_fail(RTK_EXIT_USAGE, "%s: git_history.repos: window: %s", at(c, item, sec, where), rtk_error_message());
			else
				rc = phase0_repolist_add(l, c->dir, s, str(item, "rev"), str(item, "window"), c->file, line);
		} else {
			rc = rtk_fail(RTK_EXIT_USAGE, "%s: git_history.repos: each item is a path, a pattern or {path: ..., rev: ..., "
				      "window: ...}", at(c, item, sec, where));
		}
	}
	if (!rc && (s = str(sec, "repos_file"))) {
		const char *file = config_path(c, s);
		rc = file ? phase0_repolist_read_file(l, file) : rtk_oom();
	}
	return rc;
}

/* Whether the section asks for the pooled report (repos or repos_file), not one repository's. */
static bool pooled_git_history(const struct config *c)
{
	const cJSON *sec = section(c, "git_history");
	return cJSON_GetObjectItemCaseSensitive(sec, "repos") || cJSON_GetObjectItemCaseSensitive(sec, "repos_file");
}

/*
 * Each repository of the list whose shard is this one (mine NULL: every one) through git-history,
 * pooled: one that cannot be read is a row with its error; the run goes on.
 */
static int run_git_history_pooled(struct config *c, const struct phase0_repolist *l, const bool *mine, struct phase0_experiment *e)
{
	const cJSON *sec = section(c, "git_history");
	struct githistory_pool *pool = githistory_pool_new();
	struct githistory_opts o;
	int rc = 0;

	if (!pool)
		return RTK_EXIT_FAILURE;
	git_history_opts(c, sec, &o);
	for (size_t i = 0; i < l->n && !rc; i++) {
		const struct phase0_repolist_entry *r = &l->v[i];
		struct githistory_opts ro = o;
		cJSON *res = NULL;
		int one;
		if (mine && !mine[i])
			continue;
		ro.repo = r->path;
		if (r->rev)
			ro.rev = r->rev;
		if (r->window)
			ro.window = r->window;
		/* A repository that cannot be opened is its row's problem; anything else (the rules, a rev) is the config's. */
		git_repository *repo;
		if ((one = gitx_open(&repo, r->path))) {
			rc = githistory_pool_add_error(pool, r->name, rtk_error_message(), c->file);
			continue;
		}
		git_repository_free(repo);
		if ((one = githistory_report(&ro, &res)))
			rc = rtk_fail(one, "git_history: %s: %s", r->name, rtk_error_message());
		else
			rc = githistory_pool_add(pool, res, r->name, r->path);
		cJSON_Delete(res);
	}
	if (!rc && !(e->result = githistory_pool_report(pool)))
		rc = rtk_oom();
	githistory_pool_free(pool);
	return rc;
}

static int run_board(struct config *c, struct phase0_experiment *e)
{
	const cJSON *sec = section(c, "board");
	struct boardhistory_opts o = BOARDHISTORY_DEFAULTS;
	const char *s;
	char **files;
	int n = 0, rc;

	if (!sec) {
		snprintf(e->skipped, sizeof(e->skipped), "no board section in the config");
		snprintf(e->next, sizeof(e->next), "add a board: section whose export: names the task board's export "
			 "(native JSONL, `gh issue list --json ...`, Jira; rtk-board-history(1)) or whose repo: holds git-kept task files");
		return 0;
	}
	if (!(files = input_files(c, sec, str(sec, "repo") ? "repo" : "export", &n)))
		return rtk_oom();
	if (!n) {
		snprintf(e->skipped, sizeof(e->skipped), "board.export names no file");
		snprintf(e->next, sizeof(e->next), "name the board export in board.export");
		free(files);
		return 0;
	}
	if ((s = str(sec, "from")))
		o.from = s;
	if ((s = str(sec, "timeline")))
		o.timeline = config_path(c, s);
	if ((s = str(sec, "dir")))
		o.dir = s;
	if ((s = str(sec, "config")))
		o.config = config_path(c, s);
	o.within = str(sec, "within");
	o.as_of = str(sec, "as_of");
	number(sec, "kill_below", &o.kill_below);
	whole(sec, "min_tasks", &o.min_tasks);
	if (!(e->result = rtk_out_result_new("board-history")))
		rc = rtk_oom();
	else if ((rc = boardhistory_report(&o, n, files, e->result)) == RTK_EXIT_USAGE)
		rc = rtk_fail(RTK_EXIT_USAGE, "board: %s", rtk_error_message());
	for (int i = 0; n > 1 && !rc && !str(sec, "repo") && i < n; i++) {
		cJSON *one = rtk_out_result_new("board-history");
		if (!one)
			rc = rtk_oom();
		else if ((rc = boardhistory_report(&o, 1, &files[i], one)))
			cJSON_Delete(one);
		else
			rc = add_source(e, files[i], one);
	}
	free(files);
	return rc;
}
/* ----- shards ----- */

/* The bytes of a section's files (a string or a list), for balancing. */
static uint64_t files_size(struct config *c, const cJSON *sec, const char *name)
{
	uint64_t sum = 0;
	int n = 0;
	char **files = sec ? input_files(c, sec, name, &n) : NULL;
	for (int i = 0; files && i < n; i++)
		sum += phase0_shard_input_size(files[i]);
	free(files);
	return sum;
}

/*
 * Which inputs shard index of count takes: calibration's corpora as one input, the board's exports as
 * one, each repository of a pooled git_history (or its one repository) as one. holds[i] says whether
 * experiment i is this shard's whole; *mine (pooled only) which repositories are its.
 */
static int shard_inputs(struct config *c, const struct phase0_repolist *repos, bool pooled, size_t index, size_t count,
			bool holds[PHASE0_NEXPERIMENTS], bool **mine)
{
	const cJSON *cal = section(c, "calibration"), *gh = section(c, "git_history"), *board = section(c, "board");
	size_t n = pooled ? repos->n + 2 : 3, *shard_of = calloc(n, sizeof(*shard_of));
	uint64_t *size = calloc(n, sizeof(*size));
	const char *s;
	int rc = 0;

	if (!shard_of || !size) {
		rc = rtk_oom();
		goto out;
	}
	size[0] = files_size(c, cal, "corpus");
	size[n - 1] = files_size(c, board, str(board, "repo") ? "repo" : "export");
	if (pooled)
		for (size_t i = 0; i < repos->n; i++)
			size[1 + i] = phase0_shard_input_size(repos->v[i].path);
	else if (gh)
		size[1] = phase0_shard_input_size(config_path(c, (s = str(gh, "repo")) ? s : "."));
	if ((rc = phase0_shard_assign(size, n, count, shard_of)))
		goto out;
	holds[0] = shard_of[0] == index;
	holds[1] = !pooled && shard_of[1] == index;
	holds[2] = shard_of[n - 1] == index;
	if (pooled) {
		if (!(*mine = calloc(repos->n + 1, sizeof(**mine)))) {
			rc = rtk_oom();
			goto out;
		}
		for (size_t i = 0; i < repos->n; i++)
			(*mine)[i] = shard_of[1 + i] == index;
	}
out:
	free(shard_of);
	free(size);
	return rc;
}

/* An experiment another shard runs: this piece says so; rtk merge takes it from that piece. */
static void elsewhere(struct phase0_experiment *e, size_t count)
{
	snprintf(e->skipped, sizeof(e->skipped), "another of the %zu shards runs it", count);
	snprintf(e->next, sizeof(e->next), "merge every shard's piece with rtk merge");
}

/* The report's markdown (src/phase0/phase0.c), as rtk merge writes it for pieces put back together. */
static void phase0_md(const cJSON *r, struct rtk_out_md *md)
{
	phase0_render_md(r, md);
}

/* The result as the pieces rtk merge reads will hold it: printed and read back, so both render alike. */
static int reread(cJSON **result)
{
	char *text = cJSON_PrintUnformatted(*result);
	cJSON *again = text ? cJSON_Parse(text) : NULL;
	free(text);
	if (!again)
		return rtk_oom();
	cJSON_Delete(*result);
	*result = again;
	return 0;
}

static int phase0_run(int argc, char **argv, const struct rtk_applet_ctx *ctx)
{
	struct phase0_experiment e[PHASE0_NEXPERIMENTS];
	struct config c = { 0 };
	struct phase0_repolist repos = { 0 };
	cJSON *result = NULL;
	char *text = NULL, *copy = NULL, hex[65];
	size_t len, index = 0, count = 0;
	bool holds[PHASE0_NEXPERIMENTS] = { true, true, true }, *mine = NULL, pooled;
	int rc;

	phase0_experiments_init(e);
	if (argc != 1)
		return rtk_fail(RTK_EXIT_USAGE, "give one config file (YAML), not %d", argc);
	if (shard_count && (!shard_spec || shard_count < 1))
		return rtk_fail(RTK_EXIT_USAGE, "--shard-count N goes with --shard (auto or I/N), N at least 1");
	if (shard_spec && html_path)
		return rtk_fail(RTK_EXIT_USAGE, "--html with --shard: a piece is not the report; rtk merge the pieces first");
	if (shard_spec && (rc = phase0_shard_parse(shard_spec, shard_count, &index, &count)))
		return rc;
	c.file = argv[0];
	if ((rc = rtk_fs_read_file(argv[0], &text, &len)) || (rc = rtk_yaml_load_marked(text, len, argv[0], &c.root, &c.marks)))
		goto out;
	if (!cJSON_IsObject(c.root)) {
		rc = rtk_fail(RTK_EXIT_USAGE, "%s: the config must be a mapping", argv[0]);
		goto out;
	}
	rtk_sha256_hex(text, len, hex);
	if (!(copy = strdup(argv[0])) || !(c.dir = strdup(dirname(copy)))) {
		rc = rtk_oom();
		goto out;
	}
	if ((rc = check_config(&c)))
		goto out;
	pooled = pooled_git_history(&c);
	if (pooled && (rc = repo_list_read(&c, section(&c, "git_history"), &repos)))
		goto out;
	if (shard_spec && (rc = shard_inputs(&c, &repos, pooled, index, count, holds, &mine)))
		goto out;
	if (holds[0])
		rc = run_calibration(&c, &e[0]);
	else
		elsewhere(&e[0], count);
	if (!rc && pooled)
		rc = run_git_history_pooled(&c, &repos, mine, &e[1]);
	else if (!rc && holds[1])
		rc = run_git_history(&c, &e[1]);
	else if (!rc)
		elsewhere(&e[1], count);
	if (!rc && holds[2])
		rc = run_board(&c, &e[2]);
	else if (!rc)
		elsewhere(&e[2], count);
	if (rc)
		goto out;
	const cJSON *pooled_params = pooled ? cJSON_GetObjectItemCaseSensitive(e[1].result, "parameters") : NULL;
	size_t errors = (size_t)(pooled_params ? rtk_out_json_num(pooled_params, "unreadable") : 0);
	size_t tried = (size_t)(pooled_params ? rtk_out_json_num(pooled_params, "repositories") : 0);
	if (!(result = phase0_result(e, argv[0], hex))) {
		rc = rtk_oom();
		goto out;
	}
	if (shard_spec) {
		cJSON *s = cJSON_AddObjectToObject(result, "shard"), *list;
		cJSON_AddNumberToObject(s, "index", (double)index);
		cJSON_AddNumberToObject(s, "count", (double)count);
		list = cJSON_AddArrayToObject(s, "holds");
		for (size_t i = 0; list && i < PHASE0_NEXPERIMENTS; i++)
			if (holds[i] && !(i == 1 && pooled))
				cJSON_AddItemToArray(list, cJSON_CreateString(e[i].applet));
	}
	/* JSON prints the same either way (cJSON's numbers read back as they print); markdown and HTML round. */
	if ((ctx->format != RTK_OUT_FORMAT_JSON || html_path) && (rc = reread(&result)))
		goto out;
	if (html_path && (rc = phase0_write_html(result, e, html_path)))
		goto out;
	if ((rc = rtk_out_emit(result, ctx->format, phase0_md, ctx->out)))
		goto out;
	if (errors)
		rc = rtk_fail(RTK_EXIT_FAILURE, "%zu of %zu repositories could not be read: their rows in the report say why", errors,
			      tried);
	else if (fail_on_kill && strcmp(rtk_out_json_str(cJSON_GetObjectItemCaseSensitive(result, "decision"), "status"), "BLOCKED") == 0)
		rc = RTK_EXIT_KILL;
out:
	phase0_experiments_free(e);
	phase0_repolist_free(&repos);
	free(mine);
	cJSON_Delete(result);
	config_free(&c);
	free(copy);
	free(text);
	return rc;
}

const struct rtk_applet rtk_applet_phase0 = {
	.name = "phase0",
	.summary = "P1, P2 and P3 from one config: three verdicts and whether self-reflection is justified",
	.usage = { "phase0 [OPTIONS] CONFIG.yaml", NULL },
	.options = options,
	.run = phase0_run,
};
