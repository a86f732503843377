/* tests/unit/test_sandbox.c — run-plan's sandboxes on real projects: worktree, copy fallback, exclusions, escapes, patches. */
#include "unit.h"
#include "exec/sandbox.h"
#include "lib/err.h"

#include <unistd.h>

struct fixture {
	char dir[64];
	char project[128], root[128];
};

static const char *const default_excludes[] = { ".git/", ".claude/state/", ".claude/sandbox/", "node_modules/",
						"*.dll", NULL };

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (!f || unit_mkdtemp(f->dir, "sandbox"))
		return -1;
	snprintf(f->project, sizeof(f->project), "%s/project", f->dir);
	snprintf(f->root, sizeof(f->root), "%s/sandboxes", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	unit_remove_tree(f->dir);
	free(f);
	return 0;
}

static void make_project(const struct fixture *f, const char *kind)
{
	const char *src = getenv("RTK_SRCDIR") ? getenv("RTK_SRCDIR") : ".";
	assert_int_equal(run("bash '%s/tests/fixtures/sandbox-project.sh' '%s' %s >/dev/null 2>&1", src, f->project, kind), 0);
}

static struct sandbox *create(const struct fixture *f, enum sandbox_mode mode, const char *run_id)
{
	struct sandbox_spec spec = { f->project, f->root, run_id, mode, default_excludes };
	struct sandbox *sb;
	int rc = sandbox_create(&spec, &sb);
	if (rc)
		fail_msg("sandbox_create: %s", rtk_error_message());
	return sb;
}

static bool exists(const char *dir, const char *rel)
{
	char path[512];
	struct stat st;
	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return lstat(path, &st) == 0;
}

static void a_clean_repository_gets_a_detached_worktree(void **state)
{
	struct fixture *f = *state;
	make_project(f, "clean");
	struct sandbox *sb = create(f, SANDBOX_AUTO, "RUN-1");
	assert_int_equal(sb->mode, SANDBOX_WORKTREE);
	assert_null(sb->fallback);
	assert_true(exists(sb->dir, "src/deep/util.c"));
	assert_false(exists(sb->dir, ".claude/private/secrets/key.txt")); /* ignored, so never checked out */
	/* detached at the project's HEAD, and no branch left behind */
	assert_int_equal(run("test \"$(git -C '%s' rev-parse HEAD)\" = \"$(git -C '%s' rev-parse HEAD)\"", sb->dir, f->project), 0);
	assert_int_not_equal(run("git -C '%s' symbolic-ref -q HEAD >/dev/null", sb->dir), 0);
	assert_int_equal(run("test -z \"$(git -C '%s' branch --list 'rtk-*')\"", f->project), 0);
	assert_int_equal(run("git -C '%s' worktree list | grep -q RUN-1", f->project), 0);
	/* rtk wrote the files and the index itself: git sees a clean tree, links and modes as committed */
	assert_int_equal(run("cd '%s' && test -z \"$(git status --porcelain)\" && test -L main-link.c && "
			     "test \"$(readlink outside-link)\" = /etc/hostname && test -z \"$(git fsck --no-dangling --no-progress 2>&1)\"", sb->dir), 0);
	char root[256];
	snprintf(root, sizeof(root), "%s", sb->root);
	assert_int_equal(sandbox_remove(sb), 0);
	assert_false(exists(root, ""));
	assert_int_equal(run("test \"$(git -C '%s' worktree list | wc -l)\" = 1", f->project), 0);
	sandbox_free(sb);
}

static void a_dirty_tree_falls_back_to_a_filtered_copy(void **state)
{
	struct fixture *f = *state;
	make_project(f, "dirty");
	struct sandbox *sb = create(f, SANDBOX_AUTO, "RUN-2");
	assert_int_equal(sb->mode, SANDBOX_COPY);
	assert_string_equal(sb->fallback, "the work tree has uncommitted changes");
	assert_true(exists(sb->dir, "src/deep/util.c"));
	assert_true(exists(sb->dir, ".claude/settings.json"));
	assert_int_equal(run("grep -q 'return 2' '%s/src/main.c'", sb->dir), 0); /* the uncommitted change came along */
	const char *left_out[] = { ".claude/state", ".claude/private/secrets", "node_modules", "src/deep/node_modules",
				   "tools/helper.dll", "pipe.fifo", NULL };
	for (const char **p = left_out; *p; p++)
		if (exists(sb->dir, *p))
			fail_msg("%s reached the sandbox", *p);
	/* symlinks stay links, also the one pointing out of the tree */
	char target[256];
	ssize_t n = readlink(strcat(strcpy(target, sb->dir), "/outside-link"), target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	assert_string_equal(target, "/etc/hostname");
	/* the baseline holds every file not ignored, and git sees the copy as clean against it */
	assert_int_equal(run("cd '%s' && test -z \"$(git status --porcelain)\" && git ls-files | grep -qx src/deep/util.c && "
			     "git ls-files | grep -qx main-link.c && test -z \"$(git fsck --no-dangling --no-progress 2>&1)\"", sb->dir), 0);
	/* a baseline commit exists, with the project's own .git left out */
	assert_int_equal(run("git -C '%s' cat-file -e %s", sb->dir, sb->baseline), 0);
	assert_int_equal(run("test \"$(git -C '%s' rev-parse --show-toplevel)\" = '%s'", sb->dir, sb->dir), 0);
	assert_int_equal(sandbox_remove(sb), 0);
	sandbox_free(sb);
}

static void changes_in_excluded_folders_keep_the_tree_clean(void **state)
{
	struct fixture *f = *state;
	make_project(f, "clean");
	/* run-plan's own state lands in the project: it must not force every later run into a copy */
	assert_int_equal(run("mkdir -p '%s/.claude/state/reflectloop/runs' && echo x > '%s/.claude/state/reflectloop/runs/new.yaml' && "
			     "echo y > '%s/.claude/state/reflectloop/old.yaml' && echo z > '%s/leftover.dll'",
			     f->project, f->project, f->project, f->project), 0);
	struct sandbox *sb = create(f, SANDBOX_AUTO, "RUN-12");
	assert_int_equal(sb->mode, SANDBOX_WORKTREE);
	sandbox_remove(sb);
	sandbox_free(sb);
	assert_int_equal(run("echo w > '%s/src/new.c'", f->project), 0);
	sb = create(f, SANDBOX_AUTO, "RUN-13");
	assert_int_equal(sb->mode, SANDBOX_COPY);
	sandbox_free(sb);
}

static void forced_worktree_on_a_dirty_tree_says_why_not(void **state)
{
	struct fixture *f = *state;
	struct sandbox_spec spec = { f->project, f->root, "RUN-3", SANDBOX_WORKTREE, default_excludes };
	struct sandbox *sb;
	make_project(f, "dirty");
	assert_int_equal(sandbox_create(&spec, &sb), RTK_EXIT_FAILURE);
	assert_non_null(strstr(rtk_error_message(), "uncommitted changes"));
	assert_false(exists(f->root, "RUN-3")); /* nothing left behind */
}

static void tracked_secrets_force_a_copy_that_leaves_them_out(void **state)
{
	struct fixture *f = *state;
	make_project(f, "secrets");
	struct sandbox *sb = create(f, SANDBOX_AUTO, "RUN-4");
	assert_int_equal(sb->mode, SANDBOX_COPY);
	assert_non_null(strstr(sb->fallback, ".claude/private/secrets/"));
	assert_false(exists(sb->dir, ".claude/private/secrets"));
	sandbox_free(sb);
	/* even with rules that exclude nothing */
	struct sandbox_spec spec = { f->project, f->root, "RUN-5", SANDBOX_COPY, NULL };
	if (sandbox_create(&spec, &sb))
		fail_msg("%s", rtk_error_message());
	assert_false(exists(sb->dir, ".claude/private/secrets"));
	assert_true(exists(sb->dir, "node_modules/pkg/index.js"));
	assert_int_equal(run("test \"$(git -C '%s' rev-list --count HEAD)\" = 1", sb->dir), 0); /* its own baseline, not the project's .git */
	sandbox_free(sb);
}

static void attributes_keep_libgit2s_checkout(void **state)
{
	struct fixture *f = *state;
	make_project(f, "clean");
	/* eol=crlf asks for CRLF on the way out: only libgit2's checkout converts, so the file shows which ran */
	assert_int_equal(run("cd '%s' && printf 'a\\nb\\n' > lines.txt && printf '*.txt eol=crlf\\n' > .gitattributes && "
			     "git add -A && git -c user.name=Dev -c user.email=dev@example.com commit -qm attrs", f->project), 0);
	struct sandbox *sb = create(f, SANDBOX_WORKTREE, "RUN-14");
	assert_int_equal(run("cd '%s' && test -z \"$(git status --porcelain)\" && grep -q $(printf '\\r') lines.txt", sb->dir), 0);
	sandbox_remove(sb);
	sandbox_free(sb);
}

static void a_plain_folder_gets_a_copy(void **state)
{
	struct fixture *f = *state;
	make_project(f, "plain");
	struct sandbox *sb = create(f, SANDBOX_AUTO, "RUN-6");
	assert_int_equal(sb->mode, SANDBOX_COPY);
	assert_string_equal(sb->fallback, "the project is not a git repository");
	assert_true(exists(sb->dir, "README.md"));
	sandbox_free(sb);
}

static void the_sandbox_root_may_not_be_inside_the_project(void **state)
{
	struct fixture *f = *state;
	char inside[256];
	make_project(f, "clean");
	snprintf(inside, sizeof(inside), "%s/.claude/sandbox", f->project);
	struct sandbox_spec spec = { f->project, inside, "RUN-7", SANDBOX_AUTO, default_excludes };
	struct sandbox *sb;
	assert_int_equal(sandbox_create(&spec, &sb), RTK_EXIT_FAILURE);
	assert_non_null(strstr(rtk_error_message(), "is inside the project"));
}

static void a_run_id_is_never_reused(void **state)
{
	struct fixture *f = *state;
	make_project(f, "plain");
	struct sandbox *sb = create(f, SANDBOX_COPY, "RUN-8"), *again;
	struct sandbox_spec spec = { f->project, f->root, "RUN-8", SANDBOX_COPY, NULL };
	assert_int_equal(sandbox_create(&spec, &again), RTK_EXIT_FAILURE);
	assert_non_null(strstr(rtk_error_message(), "File exists"));
	assert_true(exists(sb->dir, "README.md")); /* the first one is untouched */
	sandbox_free(sb);
}

static void cwds_that_leave_the_sandbox_are_escapes(void **state)
{
	struct fixture *f = *state;
	char *cwd;
	make_project(f, "clean");
	struct sandbox *sb = create(f, SANDBOX_AUTO, "RUN-9");
	assert_int_equal(run("ln -s /tmp '%s/src/out' && ln -s deep '%s/src/in'", sb->dir, sb->dir), 0);
	assert_int_equal(sandbox_resolve_cwd(sb, "../x", false, &cwd), RTK_EXIT_SANDBOX_ESCAPE);
	assert_int_equal(sandbox_resolve_cwd(sb, "src/../..", false, &cwd), RTK_EXIT_SANDBOX_ESCAPE);
	assert_int_equal(sandbox_resolve_cwd(sb, "/etc", false, &cwd), RTK_EXIT_SANDBOX_ESCAPE);
	assert_int_equal(sandbox_resolve_cwd(sb, "src/out", false, &cwd), RTK_EXIT_SANDBOX_ESCAPE);
	assert_non_null(strstr(rtk_error_message(), "outside the sandbox"));
	assert_null(cwd);
	assert_int_equal(sandbox_resolve_cwd(sb, "src/in", true, &cwd), 0); /* a link that stays inside */
	assert_true(strstr(cwd, "/src/deep") != NULL);
	free(cwd);
	assert_int_equal(sandbox_resolve_cwd(sb, NULL, true, &cwd), 0);
	assert_string_equal(cwd, sb->dir);
	free(cwd);
	assert_int_equal(sandbox_resolve_cwd(sb, "build/out", false, &cwd), 0); /* made by a later step */
	assert_null(cwd);
	assert_int_equal(sandbox_resolve_cwd(sb, "build/out", true, &cwd), RTK_EXIT_FAILURE);
	assert_int_equal(sandbox_resolve_cwd(sb, "..foo", false, &cwd), 0); /* a name, not a parent */
	/* opened: the folder checked, as a descriptor a step enters with fchdir (no path looked up again) */
	int fd;
	struct stat opened, deep;
	assert_int_equal(sandbox_open_cwd(sb, "src/in", &cwd, &fd), 0);
	assert_int_equal(fstat(fd, &opened), 0);
	assert_int_equal(stat(cwd, &deep), 0);
	assert_true(opened.st_ino == deep.st_ino && opened.st_dev == deep.st_dev);
	close(fd);
	free(cwd);
	assert_int_equal(sandbox_open_cwd(sb, "src/out", &cwd, &fd), RTK_EXIT_SANDBOX_ESCAPE);
	assert_int_equal(fd, -1);
	assert_null(cwd);
	sandbox_remove(sb);
	sandbox_free(sb);
}

/* Changes made in the sandbox come back as a patch git applies to the project as it was. */
static void check_patch_applies(const struct fixture *f, enum sandbox_mode mode, const char *kind, const char *run_id)
{
	char *patch, path[512];
	size_t len;
	make_project(f, kind);
	struct sandbox *sb = create(f, mode, run_id);
	assert_int_equal(run("cd '%s' && echo changed >> README.md && rm src/deep/util.c && mkdir -p new/dir && "
			     "echo fresh > new/dir/file.txt && printf '\\001\\000\\377x' > new/blob.bin && chmod +x src/main.c",
			     sb->dir), 0);
	struct rtk_strbuf binary = { 0 };
	assert_int_equal(sandbox_patch(sb, &patch, &len, &binary), 0);
	assert_true(len > 0 && strlen(patch) == len);
	assert_non_null(strstr(patch, "GIT binary patch"));
	/* the binary file's own bytes, for a scan the base85 in the patch would hide them from */
	assert_int_equal(binary.len, 5);
	assert_memory_equal(binary.s, "\001\000\377x\n", 5);
	rtk_strbuf_free(&binary);
	assert_non_null(strstr(patch, "new/dir/file.txt"));
	snprintf(path, sizeof(path), "%s/changes.patch", f->dir);
	FILE *fp = fopen(path, "w");
	fwrite(patch, 1, len, fp);
	fclose(fp);
	assert_int_equal(run("cd '%s' && git apply --check '%s' && git apply '%s'", f->project, path, path), 0);
	assert_int_equal(run("cmp -s '%s/new/blob.bin' '%s/new/blob.bin' && test ! -e '%s/src/deep/util.c' && test -x '%s/src/main.c'",
			     f->project, sb->dir, f->project, f->project), 0);
	free(patch);
	sandbox_remove(sb);
	sandbox_free(sb);
}

static void worktree_changes_come_back_as_a_patch(void **state)
{
	check_patch_applies(*state, SANDBOX_WORKTREE, "clean", "RUN-10");
}

static void copy_changes_come_back_as_a_patch(void **state)
{
	/* plain: the patch must apply with git apply outside a repository too */
	struct fixture *f = *state;
	check_patch_applies(f, SANDBOX_COPY, "dirty", "RUN-11");
}

static void exclusions_read_like_gitignore(void **state)
{
	(void)state;
	const char *const ex[] = { "node_modules/", "*.dll", ".claude/state/", "analyzedata/outputs/", NULL };
	assert_true(sandbox_excluded(ex, "node_modules", true));
	assert_true(sandbox_excluded(ex, "a/b/node_modules", true));
	assert_false(sandbox_excluded(ex, "node_modules", false)); /* a file of that name is not a folder */
	assert_true(sandbox_excluded(ex, "x.dll", false));
	assert_true(sandbox_excluded(ex, "bin/win/x.dll", false));
	assert_false(sandbox_excluded(ex, "x.dll.txt", false));
	assert_true(sandbox_excluded(ex, ".claude/state", true));
	assert_false(sandbox_excluded(ex, "sub/.claude/state", true)); /* anchored at the root */
	assert_false(sandbox_excluded(ex, ".claude/statement", true));
	assert_true(sandbox_excluded(ex, "analyzedata/outputs", true));
	assert_false(sandbox_excluded(ex, "analyzedata", true));
	assert_false(sandbox_excluded(NULL, "anything", true));
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
static const struct CMUnitTest tests[] = {
	T(a_clean_repository_gets_a_detached_worktree),
	T(a_dirty_tree_falls_back_to_a_filtered_copy),
	T(changes_in_excluded_folders_keep_the_tree_clean),
	T(forced_worktree_on_a_dirty_tree_says_why_not),
	T(tracked_secrets_force_a_copy_that_leaves_them_out),
	T(attributes_keep_libgit2s_checkout),
	T(a_plain_folder_gets_a_copy),
	T(the_sandbox_root_may_not_be_inside_the_project),
	T(a_run_id_is_never_reused),
	T(cwds_that_leave_the_sandbox_are_escapes),
	T(worktree_changes_come_back_as_a_patch),
	T(copy_changes_come_back_as_a_patch),
	T(exclusions_read_like_gitignore),
};

RTK_UNIT_MAIN(tests)
