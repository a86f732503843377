/* tests/unit/test_riskfloor.c — the shipped surface table, weights and ties, the risk object, bad rules. */
#include "unit.h"
#include "lib/err.h"
#include "rules/riskfloor.h"
#include "lib/yamlx.h"

#include <stdlib.h>
#include <string.h>

static struct riskfloor *shipped(void)
{
	struct riskfloor *rf;
	assert_int_equal(riskfloor_load(&rf, NULL), 0);
	return rf;
}

static const char *surface_of(const struct riskfloor *rf, const char *path)
{
	return riskfloor_classify(rf, path, strlen(path)).name;
}

static void shipped_table_classifies_each_surface(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
		{ "apps/api/src/auth/guard.ts", "auth" },         { "src/Login.vue", "auth" },
		{ "lib/session_store.c", "auth" },                { "api/tokens.go", "auth" },
		{ "rbac/policy.yaml", "auth" },                   { "ops/credentials.env", "auth" },
		{ "k8s/secret.yaml", "auth" },                    { "src/permissions.py", "auth" },
		{ "prisma/schema.prisma", "data" },               { "db/migrations/001_init.up.sql", "data" },
		{ "src/user.entity.ts", "data" },                 { "src/repository/orders.ts", "data" },
		{ "scripts/seed.ts", "data" },                    { "query.SQL", "data" },
		{ "Dockerfile", "infra" },                        { ".woodpecker/ci.yml", "infra" },
		{ "docker-compose.yml", "infra" },                { "traefik/traefik.toml", "infra" },
		{ "charts/helm/values.yaml", "infra" },           { "infra/terraform/main.tf", "infra" },
		{ "deploy.sh", "infra" },                         { "k8s/ingress.yaml", "infra" },
		{ "package.json", "build" },                      { "tsconfig.base.json", "build" },
		{ "turbo.json", "build" },                        { "pnpm-lock.yaml", "build" },
		{ "jest.config.js", "build" },                    { ".eslintrc.cjs", "build" },
		{ "vite.config.ts", "build" },                    { "apps/web/src/App.tsx", "ui" },
		{ "src/styles/main.css", "ui" },                  { "src/components/Button.vue", "ui" },
		{ "apps/web/index.html", "ui" },                  { "src/math.spec.ts", "test" },
		{ "src/math.test.js", "test" },                   { "src/__tests__/math.js", "test" },
		{ "README.md", "docs" },                          { "docs/guide.txt", "docs" },
		{ "src/math.c", "none" },                         { "Makefile", "none" },
	};
	struct riskfloor *rf = shipped();
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const char *got = surface_of(rf, cases[i][0]);
		if (strcmp(got, cases[i][1]))
			fail_msg("%s: expected %s, got %s", cases[i][0], cases[i][1], got);
	}
	riskfloor_free(rf);
}

/* A file of prose (the shipped prose list) is docs whatever its words: a migration guide is no migration. */
static void prose_is_docs(void **state)
{
	(void)state;
	struct riskfloor *rf = shipped();
	assert_string_equal(surface_of(rf, "docs/migrations.md"), "docs");
	assert_string_equal(surface_of(rf, "release-content/migration-guides/entities.MD"), "docs");
	assert_string_equal(surface_of(rf, "src/auth/README.rst"), "docs");
	assert_string_equal(surface_of(rf, "src/auth/md.ts"), "auth"); /* the extension, not a word */
	assert_int_equal(riskfloor_prepare_patterns(rf), 0);
	assert_string_equal(riskfloor_classify_without(rf, "db/migrations/x.md", 18, 0).name, "docs");
	riskfloor_free(rf);
}

/* Without a docs surface, prose is of none. */
static void prose_without_docs_is_none(void **state)
{
	(void)state;
	struct riskfloor *rf = NULL;
	cJSON *rules = cJSON_Parse("{\"threshold\": 0.5, \"surfaces\": {\"data\": {\"weight\": 0.9, \"patterns\": [\"migrations?\"]}},"
				   " \"prose\": [\"\\\\.md$\"]}");
	assert_non_null(rules);
	assert_int_equal(riskfloor_compile(&rf, rules, "test"), 0);
	assert_string_equal(riskfloor_classify(rf, "migrations/a.md", 15).name, "none");
	assert_string_equal(riskfloor_classify(rf, "migrations/a.sql", 16).name, "data");
	riskfloor_free(rf);
	cJSON_Delete(rules);
}

static void highest_weight_wins_for_one_path(void **state)
{
	(void)state;
	struct riskfloor *rf = shipped();
	/* A test of auth code is auth (1.0), not test (0.2); a migration under docs/ is data, not docs. */
	assert_string_equal(surface_of(rf, "src/auth/login.spec.ts"), "auth");
	assert_string_equal(surface_of(rf, "docs/migrations/0001.sql"), "data");
	assert_string_equal(surface_of(rf, "apps/web/components/Deploy.tsx"), "infra");
	struct riskfloor_surface s = riskfloor_classify(rf, "apps/web/x.tsx", 14);
	assert_float_equal(s.weight, 0.4, 1e-12);
	assert_float_equal(riskfloor_threshold(rf), 0.5, 1e-12);
	assert_int_equal(strlen(riskfloor_sha256(rf)), 64);
	riskfloor_free(rf);
}

static void risk_object_names_the_surface_and_its_files(void **state)
{
	(void)state;
	struct riskfloor *rf = shipped();
	const char *paths[] = { "README.md", "src/auth/a.ts", "src/x.c", "src/session.ts" };
	cJSON *files, *risk = riskfloor_assess(rf, paths, 4, 0.5, &files);
	assert_non_null(risk);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(risk, "needs_review")));
	assert_float_equal(cJSON_GetObjectItem(risk, "score")->valuedouble, 1.0, 1e-12);
	assert_string_equal(cJSON_GetObjectItem(risk, "surface")->valuestring, "auth");
	assert_string_equal(cJSON_GetObjectItem(risk, "reason")->valuestring, "auth: src/auth/a.ts, src/session.ts");
	assert_int_equal(cJSON_GetArraySize(files), 4);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(files, 2), "surface")->valuestring, "none");
	assert_float_equal(riskfloor_max_weight(rf, paths, 4), 1.0, 1e-12);
	assert_float_equal(riskfloor_max_weight(rf, paths, 1), 0.1, 1e-12);
	cJSON_Delete(risk);
	cJSON_Delete(files);
	riskfloor_free(rf);
}

static void threshold_is_inclusive_and_empty_needs_no_review(void **state)
{
	(void)state;
	struct riskfloor *rf = shipped();
	const char *ui[] = { "a.tsx" };
	cJSON *r = riskfloor_assess(rf, ui, 1, 0.4, NULL);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(r, "needs_review")));
	cJSON_Delete(r);
	r = riskfloor_assess(rf, ui, 1, 0.41, NULL);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(r, "needs_review")));
	cJSON_Delete(r);
	/* No files: none, score 0, no review even at threshold 0. */
	r = riskfloor_assess(rf, NULL, 0, 0, NULL);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(r, "needs_review")));
	assert_string_equal(cJSON_GetObjectItem(r, "surface")->valuestring, "none");
	assert_float_equal(cJSON_GetObjectItem(r, "score")->valuedouble, 0, 0);
	cJSON_Delete(r);
	riskfloor_free(rf);
}

static void reason_lists_five_files_then_counts(void **state)
{
	(void)state;
	struct riskfloor *rf = shipped();
	const char *paths[] = { "a.md", "b.md", "c.md", "d.md", "e.md", "f.md", "g.md" };
	cJSON *r = riskfloor_assess(rf, paths, 7, 0.5, NULL);
	assert_string_equal(cJSON_GetObjectItem(r, "reason")->valuestring, "docs: a.md, b.md, c.md, d.md, e.md and 2 more");
	cJSON_Delete(r);
	riskfloor_free(rf);
}

static struct riskfloor *compile_yaml(const char *yaml, int expect_rc)
{
	cJSON *rules;
	struct riskfloor *rf = NULL;
	assert_int_equal(rtk_yaml_load(yaml, strlen(yaml), "t.yaml", &rules), 0);
	assert_int_equal(riskfloor_compile(&rf, rules, "t.yaml"), expect_rc);
	cJSON_Delete(rules);
	return rf;
}

static void equal_weights_go_to_the_surface_listed_first(void **state)
{
	(void)state;
	struct riskfloor *rf = compile_yaml("threshold: 0.5\nsurfaces:\n"
					    "  docs: {weight: 0.7, patterns: [x]}\n"
					    "  ui: {weight: 0.7, patterns: [x]}\n"
					    "  test: {weight: 0.9, patterns: ['^x$']}\n", 0);
	assert_string_equal(surface_of(rf, "a-x"), "docs");
	assert_string_equal(surface_of(rf, "x"), "test");
	assert_string_equal(riskfloor_sha256(rf), "");
	riskfloor_free(rf);
}

static void bad_rules_are_usage_errors(void **state)
{
	(void)state;
	compile_yaml("threshold: 2\nsurfaces: {}\n", RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "threshold must be a number in [0, 1]"));
	compile_yaml("threshold: 0.5\nsurfaces: {secrets: {weight: 1, patterns: [x]}}\n", RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "unknown surface 'secrets'"));
	compile_yaml("threshold: 0.5\nsurfaces: {auth: {weight: 1.5, patterns: [x]}}\n", RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "auth: weight must be a number in [0, 1]"));
	compile_yaml("threshold: 0.5\nsurfaces: {auth: {weight: 1, patterns: []}}\n", RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "patterns must be a non-empty list"));
	compile_yaml("threshold: 0.5\nsurfaces: {auth: {weight: 1, patterns: ['(']}}\n", RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "t.yaml: surface auth: bad regular expression"));
	compile_yaml("threshold: 0.5\nsurfaces: {none: {weight: 1, patterns: [x]}}\n", RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "unknown surface 'none'"));
}

/* Patterns match whole words of a path (issue 25, item 6): never inside a word, as auth inside author. */
static void patterns_match_whole_words(void **state)
{
	(void)state;
	static const char *const cases[][2] = {
		/* a word's edge: '/', '.', '-', '_', the path's ends, a camelCase step */
		{ "src/auth.c", "auth" },                      { "auth", "auth" },
		{ "lib/user-auth.ts", "auth" },                { "lib/user_auth.py", "auth" },
		{ "src/UserAuth.tsx", "auth" },                { "src/AuthProvider.tsx", "auth" },
		{ "src/HTTPAuthGuard.java", "auth" },          { "src/OAuth.java", "auth" },
		{ "src/v2Auth.go", "auth" },                   { "SRC/AUTH/X.C", "auth" },
		/* inside a word: no match */
		{ "src/author.c", "none" },                    { "AUTHORS", "none" },
		{ "crates/ruff_linter/src/rules/flake8_todos/snapshots/ruff_linter__rules__flake8_todos__tests__missing-todo-author_TD002.py.snap",
		  "none" },
		{ "src/tokenizer.rs", "none" },               { "src/Tokenizer.java", "none" },
		{ "lib/composables/x.js", "none" },            { "src/reseeded.c", "none" },
		{ "packages/vitest/x.js", "none" },            { "q.sqlx", "none" },
		/* the forms the table names */
		{ "lib/authn.c", "auth" },                     { "lib/authz/policy.go", "auth" },
		{ "src/authentication.py", "auth" },           { "src/authorize.ts", "auth" },
		{ "oauth2/client.go", "auth" },                { "src/sessions.py", "auth" },
		{ "app/migrations/0001_initial.py", "data" },  { "db/seeders/users.php", "data" },
		{ "src/entities/user.ts", "data" },            { "src/repositories/users.ts", "data" },
		{ "schemas/user.json", "data" },               { "db.sqlite3", "data" },
		{ ".dockerignore", "infra" },                  { "k8s.d/deployment.yaml", "infra" },
		/* a docker folder's configuration is infra, its code is not */
		{ "docker/entrypoint.sh", "infra" },           { "ci/docker/daemon.json", "infra" },
		{ "core/remotes/docker/fetcher.go", "none" },  { "pkg/docker/client.c", "none" },
		{ "guide.mdx", "docs" },
		/* .NET's central package versions and build settings are build files; its projects' code is not */
		{ "Directory.Packages.props", "build" },     { "src/Directory.Build.props", "build" },
		{ "Directory.Build.targets", "build" },      { "global.json", "build" },
		{ "NuGet.config", "build" },                 { "src/Packages/Directory.cs", "none" },
	};
	struct riskfloor *rf = shipped();
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const char *got = surface_of(rf, cases[i][0]);
		if (strcmp(got, cases[i][1]))
			fail_msg("%s: expected %s, got %s", cases[i][0], cases[i][1], got);
	}
	riskfloor_free(rf);
}

/* A pattern that matches a separator at its own edge needs no word around it: \.sql after a name, pnpm- before one. */
static void edges_of_separators(void **state)
{
	(void)state;
	struct riskfloor *rf = compile_yaml("threshold: 0.5\nsurfaces:\n"
					    "  data: {weight: 0.9, patterns: ['\\.sql', 'pnpm-', '/x/']}\n", 0);
	assert_string_equal(surface_of(rf, "db/init.sql"), "data");
	assert_string_equal(surface_of(rf, "pnpm-lock.yaml"), "data");
	assert_string_equal(surface_of(rf, "a/x/b"), "data");
	assert_string_equal(surface_of(rf, "db/init.sqlx"), "none");
	assert_string_equal(surface_of(rf, "apnpm-lock.yaml"), "none");
	riskfloor_free(rf);
}

/* A pattern closing a parenthesis it did not open is refused: it would reach into the alternation it joins. */
static void a_pattern_must_stand_alone(void **state)
{
	(void)state;
	compile_yaml("threshold: 0.5\nsurfaces: {auth: {weight: 1, patterns: ['a)|(b']}}\n", RTK_EXIT_USAGE);
	assert_non_null(strstr(rtk_error_message(), "t.yaml: surface auth: bad regular expression 'a)|(b'"));
}

static void patterns_one_by_one(void **state)
{
	(void)state;
	/* Numbered in classification order: auth (weight 1) first, then build. */
	struct riskfloor *rf = compile_yaml("threshold: 0.5\nsurfaces:\n"
					    "  build: {weight: 0.6, patterns: [vite, 'package\\.json']}\n"
					    "  auth: {weight: 1, patterns: [auth, login]}\n", 0);
	const char *surface;
	size_t hits[4] = { 0 };
	assert_int_equal(riskfloor_prepare_patterns(rf), 0);
	assert_int_equal(riskfloor_pattern_count(rf), 4);
	assert_string_equal(riskfloor_pattern(rf, 0, &surface), "auth");
	assert_string_equal(surface, "auth");
	assert_string_equal(riskfloor_pattern(rf, 3, &surface), "package\\.json");
	assert_string_equal(surface, "build");
	assert_null(riskfloor_pattern(rf, 4, NULL));
	static const char *const paths[] = { "packages/vite/src/auth.ts", "packages/vite/package.json", "docs/x.md" };
	for (size_t i = 0; i < 3; i++)
		riskfloor_pattern_hits(rf, paths[i], strlen(paths[i]), hits);
	assert_int_equal(hits[0], 1); /* auth */
	assert_int_equal(hits[1], 0); /* login */
	assert_int_equal(hits[2], 2); /* vite */
	assert_int_equal(hits[3], 1); /* package.json */
	/* Left out one at a time: the surface stands while another of its patterns matches. */
	const char *p = paths[1];
	assert_string_equal(riskfloor_classify_without(rf, p, strlen(p), 2).name, "build");
	assert_string_equal(riskfloor_classify_without(rf, p, strlen(p), 3).name, "build");
	p = "packages/vite/src/x.ts";
	assert_string_equal(riskfloor_classify_without(rf, p, strlen(p), 2).name, "none");
	assert_string_equal(riskfloor_classify_without(rf, p, strlen(p), 99).name, "build");
	p = paths[0];
	assert_string_equal(riskfloor_classify_without(rf, p, strlen(p), 0).name, "build");
	riskfloor_free(rf);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(patterns_one_by_one),
	cmocka_unit_test(shipped_table_classifies_each_surface),
	cmocka_unit_test(patterns_match_whole_words),
	cmocka_unit_test(edges_of_separators),
	cmocka_unit_test(a_pattern_must_stand_alone),
	cmocka_unit_test(highest_weight_wins_for_one_path),
	cmocka_unit_test(prose_is_docs),
	cmocka_unit_test(prose_without_docs_is_none),
	cmocka_unit_test(risk_object_names_the_surface_and_its_files),
	cmocka_unit_test(threshold_is_inclusive_and_empty_needs_no_review),
	cmocka_unit_test(reason_lists_five_files_then_counts),
	cmocka_unit_test(equal_weights_go_to_the_surface_listed_first),
	cmocka_unit_test(bad_rules_are_usage_errors),
};

RTK_UNIT_MAIN(tests)
