/* tests/suite/run_suite.c — runs the official JSON-Schema-Test-Suite through rtk's engine; pass/fail per file. */
#include "config.h"
#include "lib/err.h"
#include "lib/jsonv.h"
#include "schema/schema.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Optional files the goal leaves out: numbers beyond a double. */
static bool excluded(const char *name)
{
	return !strcmp(name, "bignum.json") || !strcmp(name, "float-overflow.json");
}

struct tally {
	unsigned long pass, fail;
};

/* The suite's remotes are served at http://localhost:1234/; here they are read from disk instead. */
static int add_remotes(struct schema_registry *reg, const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int rc = 0;
	if (!d)
		return rtk_fail(RTK_EXIT_USAGE, "%s: cannot open", dir);
	while (!rc && (e = readdir(d))) {
		char *path, *uri;
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		if (asprintf(&path, "%s/%s", dir, e->d_name) < 0 || asprintf(&uri, "%s%s", prefix, e->d_name) < 0)
			return rtk_fail(RTK_EXIT_FAILURE, "out of memory");
		if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
			char *sub;
			if (asprintf(&sub, "%s/", uri) >= 0) {
				rc = add_remotes(reg, path, sub);
				free(sub);
			}
		} else if (strstr(e->d_name, ".json")) {
			rc = schema_registry_add_file(reg, path, uri);
		}
		free(path);
		free(uri);
	}
	closedir(d);
	return rc;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_file(const char *path, const char *label, enum schema_draft draft, unsigned flags,
		     struct schema_registry *reg, struct tally *t, bool verbose)
{
	struct rtk_jsonv_doc *doc;
	struct tally f = { 0 };
	if (rtk_jsonv_load_file(path, &doc)) {
		printf("%-60s unreadable: %s\n", label, rtk_error_message());
		t->fail++;
		return;
	}
	const struct rtk_jsonv *cases = rtk_jsonv_root(doc);
	for (size_t i = 0; i < cases->len; i++) {
		const struct rtk_jsonv *c = &cases->u.items[i], *tests = rtk_jsonv_get(c, "tests");
		struct schema *s = NULL;
		int rc = schema_compile(&s, reg, rtk_jsonv_get(c, "schema"), NULL, draft, flags);
		for (size_t j = 0; tests && j < tests->len; j++) {
			const struct rtk_jsonv *test = &tests->u.items[j];
			bool expected = rtk_jsonv_get(test, "valid")->kind == RTK_JSONSCAN_TRUE, quick = false, full = false;
			if (!rc) {
				struct schema_errors errs = { 0 };
				quick = schema_is_valid(s, rtk_jsonv_get(test, "data"));
				full = schema_validate(s, rtk_jsonv_get(test, "data"), false, &errs);
				/* Error collection must agree with the quick check, and report an error exactly when invalid. */
				if (full != quick || (full != (errs.n == 0)))
					quick = !expected;
				schema_errors_clear(&errs);
			}
			if (!rc && quick == expected) {
				f.pass++;
			} else {
				f.fail++;
				if (verbose)
					printf("  FAIL %s: %s / %s%s%s\n", label, rtk_jsonv_get_string(c, "description"),
					       rtk_jsonv_get_string(test, "description"), rc ? ": schema not compiled: " : "",
					       rc ? rtk_error_message() : "");
			}
		}
		schema_free(s);
	}
	rtk_jsonv_doc_free(doc);
	printf("%-60s %5lu/%-5lu%s\n", label, f.pass, f.pass + f.fail, f.fail ? "  FAIL" : "");
	t->pass += f.pass;
	t->fail += f.fail;
}

/* Every *.json in dir (sorted); optional/format files assert formats. */
static void run_dir(const char *dir, const char *label, enum schema_draft draft, unsigned flags,
		    struct schema_registry *reg, struct tally *t, bool verbose)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;
	if (!d)
		return;
	while ((e = readdir(d)))
		if (strstr(e->d_name, ".json") && !excluded(e->d_name)) {
			names = realloc(names, (n + 1) * sizeof(*names));
			names[n++] = strdup(e->d_name);
		}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		char path[8192], lab[1024];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		snprintf(lab, sizeof(lab), "%s/%s", label, names[i]);
		run_file(path, lab, draft, flags, reg, t, verbose);
		free(names[i]);
	}
	free(names);
}

int main(int argc, char **argv)
{
	const char *suite = argc > 1 ? argv[1] : NULL;
	bool verbose = getenv("SUITE_VERBOSE") != NULL;
	static const struct {
		const char *dir;
		enum schema_draft draft;
	} drafts[] = { { "draft2020-12", SCHEMA_DRAFT_2020_12 }, { "draft7", SCHEMA_DRAFT_7 } };
	bool all_required = true;
	if (!suite) {
		fprintf(stderr, "usage: run_suite JSON-SCHEMA-TEST-SUITE-DIR (set RTK_DATADIR to rtk's source tree)\n");
		return 2;
	}
	struct schema_registry *reg = schema_registry_new();
	char remotes[4096];
	snprintf(remotes, sizeof(remotes), "%s/remotes", suite);
	if (!reg || schema_registry_add_bundled(reg) || add_remotes(reg, remotes, "http://localhost:1234/")) {
		fprintf(stderr, "run_suite: %s\n", rtk_error_message());
		return 2;
	}
	printf("JSON-Schema-Test-Suite (%s), rtk's engine\n", suite);
	struct tally totals[2][3] = { 0 };
	for (int k = 0; k < 2; k++) {
		char dir[4096], label[256];
		const char *sub[] = { "", "/optional", "/optional/format" };
		for (int part = 0; part < 3; part++) {
			snprintf(dir, sizeof(dir), "%s/tests/%s%s", suite, drafts[k].dir, sub[part]);
			snprintf(label, sizeof(label), "%s%s", drafts[k].dir, sub[part]);
			run_dir(dir, label, drafts[k].draft, part == 2 ? SCHEMA_ASSERT_FORMAT : 0, reg, &totals[k][part], verbose);
		}
	}
	printf("\n");
	for (int k = 0; k < 2; k++) {
		static const char *const parts[] = { "required", "optional (no bignum, float-overflow)", "optional/format" };
		for (int part = 0; part < 3; part++) {
			const struct tally *t = &totals[k][part];
			printf("%s %-38s %5lu/%lu\n", drafts[k].dir, parts[part], t->pass, t->pass + t->fail);
		}
		all_required &= totals[k][0].fail == 0;
	}
	schema_registry_free(reg);
	return all_required ? 0 : 1;
}
