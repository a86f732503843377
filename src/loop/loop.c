/* src/loop/loop.c — rtk loop's rounds: plan check, stash, a fresh agent, the checklist counted again, a verdict, and when to stop. */
#include "config.h"
#include "loop_internal.h"
#include "checklist.h"
#include "exec/runid.h"
#include "lib/datadir.h"
#include "lib/err.h"
#include "lib/fsutil.h"
#include "lib/progress.h"
#include "lib/timeutil.h"
#include "llm/spool.h"
#include "schema/shipped.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


/* --- set-up ---------------------------------------------------------------------------------------- */

/* The plan: --plan, else the first line of docs/plans/.active. */
static int resolve_plan(struct loop_state *st)
{
	char *text;
	size_t len;
	if (st->o->plan)
		return (st->plan = strdup(st->o->plan)) ? 0 : rtk_oom();
	if (rtk_fs_read_regular(LOOP_ACTIVE_FILE, &text, &len))
		return rtk_fail(RTK_EXIT_USAGE, "no plan: give --plan FILE, or name the plan in %s (%s)", LOOP_ACTIVE_FILE,
				rtk_error_message());
	len = strcspn(text, "\r\n");
	while (len && (text[len - 1] == ' ' || text[len - 1] == '\t'))
		len--;
	text[len] = '\0';
	if (!len) {
		free(text);
		return rtk_fail(RTK_EXIT_USAGE, "no plan: %s is empty (it should hold the plan's path)", LOOP_ACTIVE_FILE);
	}
	st->plan = text;
	return 0;
}

/* The plan must have "## Checklist" with an open item before anything runs. */
static int check_plan(struct loop_state *st)
{
	struct checklist *cl = &st->start;
	char *text;
	size_t len;
	int rc = rtk_fs_read_regular(st->plan, &text, &len);
	if (rc)
		return rtk_fail(RTK_EXIT_USAGE, "%s", rtk_error_message());
	rc = checklist_parse_owned(text, len, cl);
	if (rc == RTK_EXIT_USAGE)
		rc = rtk_fail(rc, "%s: %s", st->plan, rtk_error_message());
	else if (!rc && !cl->open)
		rc = rtk_fail(RTK_EXIT_USAGE, "%s: no open item (\"- [ ] ...\") under ## Checklist: %zu done, %zu skipped, nothing to do",
			      st->plan, cl->done, cl->skipped);
	return rc;
}

static int open_repo(struct loop_state *st)
{
	git_repository *repo;
	struct loop_repo_mark m;
	int rc = gitx_open(&repo, NULL);
	if (rc)
		return rc;
	rc = loop_repo_mark(repo, &m);
	if (!rc)
		st->plan_rel = loop_repo_relpath(repo, st->plan); /* NULL: outside the repository, never in a diff */
	git_repository_free(repo);
	return rc;
}

static int load_prompt(struct loop_state *st)
{
	char *path = st->o->prompt ? strdup(st->o->prompt) : rtk_data_path(LOOP_PROMPT);
	size_t len;
	int rc = path ? rtk_fs_read_file(path, &st->prompt, &len) : rtk_oom();
	if (rc && st->o->prompt)
		rc = rtk_fail(RTK_EXIT_USAGE, "--prompt: %s", rtk_error_message());
	free(path);
	return rc;
}

/* .rtk/ keeps itself out of git (a .gitignore of "*"): logs are never stashed, committed or counted as changes. */
static int make_log_dir(struct loop_state *st)
{
	static const char ignore[] = "# written by rtk loop: nothing here belongs in git\n*\n";
	int rc;
	if (asprintf(&st->log_dir, "%s/%s", LOOP_LOG_ROOT, st->run_id) < 0)
		return st->log_dir = NULL, rtk_oom();
	/* within the project: an agent may have put a link anywhere in .rtk/ */
	if ((rc = rtk_fs_mkdir_within(".", st->log_dir, 0755)))
		return rc;
	if (access(".rtk/.gitignore", F_OK) != 0)
		return rtk_fs_write_file_atomic_within(".", ".rtk/.gitignore", ignore, sizeof(ignore) - 1);
	return 0;
}

static int setup(struct loop_state *st)
{
	char sha[65];
	int rc;
	if (!st->o->agent || !*st->o->agent)
		return rtk_fail(RTK_EXIT_USAGE, "no agent: give --agent 'COMMAND' or set RTK_AGENT");
	if ((rc = profile_set_load(&st->profiles)) ||
	    (rc = profile_choose(st->profiles, st->o->agent, st->o->agent_profile, &st->profile, &st->profile_chosen_by)))
		return rc;
	if ((rc = resolve_plan(st)) || (rc = check_plan(st)) || (rc = open_repo(st)) || (rc = load_prompt(st)) ||
	    (rc = ratelimit_load(NULL, &st->rl, sha)) || (rc = secrets_load(NULL, &st->secrets, sha)))
		return rc;
	if (st->o->reflect_spool &&
	    ((rc = rtk_fs_mkdir_p(st->o->reflect_spool, 0755)) || (rc = shipped_schema_open("schemas/trace.v1.schema.json", &st->trace_schema))))
		return rc;
	runid_new(st->run_id);
	return make_log_dir(st);
}

/* --- one round ------------------------------------------------------------------------------------- */


/* Hands the caller's on_line each line of the round as it arrives. */
static void stream_line(void *user, const char *line, size_t len)
{
	const struct loop_round *r = user;
	r->o->on_line(r->o->user, r->n, line, len);
}

static void round_free(struct loop_round *r)
{
	checklist_diff_free(&r->diff);
	checklist_free(&r->read_before);
	checklist_free(&r->after);
	gitx_paths_free(&r->commits);
	agentrun_free(&r->io);
	agentrun_usage_free(&r->usage);
	free(r->item);
	free(r->log);
	free(r->trace);
}

static void note(struct loop_state *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct loop_state *st, const char *fmt, ...)
{
	char *text = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&text, fmt, ap) >= 0 && st->o->on_note)
		st->o->on_note(st->o->user, text);
	va_end(ap);
	free(text);
}

/* Sets the stop reason (the first one wins) with its exit code and words. */
static void stop(struct loop_state *st, const char *why, int exit, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void stop(struct loop_state *st, const char *why, int exit, const char *fmt, ...)
{
	va_list ap;
	if (st->stop)
		return;
	st->stop = why, st->exit = exit;
	va_start(ap, fmt);
	if (vasprintf(&st->reason, fmt, ap) < 0)
		st->reason = NULL;
	va_end(ap);
}

/* Reads and counts the plan; a plan gone or without its checklist ends the loop (exit 1, not a retry). */
static bool read_plan(struct loop_state *st, struct loop_round *r, struct checklist *cl, const char *when)
{
	char *text;
	size_t len;
	int rc = rtk_fs_read_regular(st->plan, &text, &len);
	if (rc) {
		stop(st, "plan_missing", RTK_EXIT_FAILURE, "the plan vanished or became unreadable %s round %ld: %s", when, r->n,
		     rtk_error_message());
		return false;
	}
	rc = checklist_parse_owned(text, len, cl);
	if (rc == RTK_EXIT_USAGE)
		stop(st, "plan_missing", RTK_EXIT_FAILURE, "%s %s round %ld: %s", st->plan, when, r->n, rtk_error_message());
	else if (rc)
		stop(st, "error", rc, "%s", rtk_error_message());
	return rc == 0;
}

/* A dirty work tree is stashed before the agent starts, so its diff is its own. */
static bool stash_if_dirty(struct loop_state *st, struct loop_round *r, git_repository *repo)
{
	char msg[128], *aside = NULL;
	size_t dirty;
	int rc = loop_repo_mark(repo, &r->mark);
	if (!rc)
		rc = loop_repo_changed(repo, "HEAD", st->plan_rel, &dirty);
	if (!rc && dirty) {
		snprintf(msg, sizeof(msg), "rtk loop round %ld %s", r->n, st->run_id);
		/* the plan waits in rtk's ignored folder while the stash is made */
		if (asprintf(&aside, "%s/plan-round-%ld.aside", st->log_dir, r->n) < 0)
			rc = rtk_oom(), aside = NULL;
		else if (!(rc = loop_repo_stash(repo, msg, st->plan, st->plan_rel, aside, r->stash))) {
			st->stashes++;
			note(st, "round %ld: stashed %zu uncommitted change%s as %s; restore with: git stash apply %s", r->n, dirty,
			     dirty == 1 ? "" : "s", r->stash, r->stash);
		}
	}
	free(aside);
	if (rc)
		stop(st, "error", rc, "round %ld: %s", r->n, rtk_error_message());
	return rc == 0;
}

/* Takes text off the unbacked list, where node holds it; out of memory, it stays listed for a person to look at. */
static void unback(struct loop_state *st, cJSON *node, const char *text)
{
	if (!rtk_strmap_put(st->unbacked_at, text, strlen(text), NULL))
		cJSON_Delete(cJSON_DetachItemViaPointer(st->unbacked, node));
}

/*
 * A tick is backed only by a round that showed progress (a change besides the plan, HEAD kept). An
 * item ticked by any other round stays unbacked until it is reopened, or ticked again by a round
 * that does show progress. Each item is looked up by its text in a map, not by a scan of the list: a
 * round that ticks a million items without a change is a million lookups, not half a million million.
 */
static void track_ticks(struct loop_state *st, const struct loop_round *r)
{
	for (size_t i = 0; i < r->diff.n; i++) {
		const struct checklist_change *c = &r->diff.changes[i];
		const char *text = c->after ? c->after->text : NULL;
		cJSON *node = text ? rtk_strmap_get(st->unbacked_at, text, strlen(text)) : NULL, *added;
		if (!text)
			continue;
		if (c->after->state == CHECKLIST_DONE && (!c->before || c->before->state != CHECKLIST_DONE)) {
			if (r->verdict != LOOP_PROGRESS && !node && (added = cJSON_CreateString(text))) {
				if (rtk_strmap_put(st->unbacked_at, text, strlen(text), added))
					cJSON_Delete(added); /* out of memory: the list goes without it, as without a node */
				else
					cJSON_AddItemToArray(st->unbacked, added);
			} else if (r->verdict == LOOP_PROGRESS && node) {
				unback(st, node, text);
			}
		} else if (c->after->state == CHECKLIST_OPEN && node) {
			unback(st, node, text);
		}
	}
}

/* Joins a string array for a message: "a", "b" (at most 3, then "and N more"). malloc'd, NULL when out of memory. */
static char *quoted_list(const cJSON *a)
{
	struct rtk_strbuf b = { 0 };
	int n = cJSON_GetArraySize(a), i = 0;
	for (const cJSON *e = a->child; e && i < 3; e = e->next, i++)
		rtk_strbuf_printf(&b, "%s\"%s\"", i ? ", " : "", e->valuestring);
	if (n > 3)
		rtk_strbuf_printf(&b, " and %d more", n - 3);
	return rtk_strbuf_take(&b);
}

/*
 * The checklist has no open item: done, unless a tick is unbacked or an item open at the start has
 * gone (deleted, fenced away, or hidden behind another "## Checklist" put above it). Then the loop
 * stops with exit 4 naming them; rtk does not reopen ticks in the plan, a person decides.
 */
static void finish(struct loop_state *st, const struct checklist *final, long rounds)
{
	struct checklist_diff d = { 0 };
	char *ticked = NULL, *gone = NULL;
	if (checklist_diff(&st->start, final, &d)) {
		checklist_diff_free(&d);
		return stop(st, "error", RTK_EXIT_FAILURE, "out of memory");
	}
	for (size_t i = 0; i < d.n; i++)
		if (!d.changes[i].after && d.changes[i].before->state == CHECKLIST_OPEN)
			cJSON_AddItemToArray(st->vanished, cJSON_CreateString(d.changes[i].before->text));
	checklist_diff_free(&d);
	if (!cJSON_GetArraySize(st->unbacked) && !cJSON_GetArraySize(st->vanished))
		return stop(st, "done", 0, "every item of the checklist is done or skipped after %ld round%s", rounds,
			    rounds == 1 ? "" : "s");
	ticked = quoted_list(st->unbacked), gone = quoted_list(st->vanished);
	stop(st, "unverified", RTK_EXIT_NO_PROGRESS, "the checklist reads as done, but not by work: %d item%s ticked by rounds "
	     "that changed no code%s%s; %d item%s open at the start gone from the checklist%s%s",
	     cJSON_GetArraySize(st->unbacked), cJSON_GetArraySize(st->unbacked) == 1 ? "" : "s", ticked && *ticked ? ": " : "", ticked ? ticked : "",
	     cJSON_GetArraySize(st->vanished), cJSON_GetArraySize(st->vanished) == 1 ? "" : "s", gone && *gone ? ": " : "", gone ? gone : "");
	free(ticked);
	free(gone);
}

static bool round_start(struct loop_state *st, struct loop_round *r)
{
	git_repository *repo;
	const struct checklist_item *first;
	int rc;
	r->started_at = rtk_time_now();
	/* the first round starts from the checklist the plan was just checked with: a million items are not held twice */
	if (r->n == 1) {
		r->before = &st->start;
	} else {
		if (!read_plan(st, r, &r->read_before, "before"))
			return false;
		r->before = &r->read_before;
		checklist_free(&st->final); /* the round's own reads replace it */
	}
	if (!(first = checklist_first_open(r->before))) {
		finish(st, r->before, r->n - 1);
		return false;
	}
	if (!(r->item = strdup(first->text)))
		return stop(st, "error", rtk_oom(), "out of memory"), false;
	if ((rc = gitx_open(&repo, NULL)))
		return stop(st, "error", rc, "%s", rtk_error_message()), false;
	bool ok = stash_if_dirty(st, r, repo);
	git_repository_free(repo);
	return ok;
}

static int open_log(struct loop_state *st, struct loop_round *r)
{
	int fd;
	if (asprintf(&r->log, "%s/round-%ld.log", st->log_dir, r->n) < 0)
		return r->log = NULL, -rtk_oom();
	/* the agent of the last round knew the run id (the prompt has it) and may have linked its folder away */
	if ((fd = rtk_fs_open_within(".", r->log, O_WRONLY | O_CREAT | O_EXCL, 0644)) < 0)
		return -rtk_fail(RTK_EXIT_FAILURE, "cannot create the round log: %s", rtk_error_message());
	return fd;
}

/* Adds a count to a total that starts absent (-1). */
static void add_count(double *total, double n)
{
	if (n >= 0)
		*total = (*total < 0 ? 0 : *total) + n;
}

static void add_tokens(struct loop_state *st, const struct agentrun_usage *u)
{
	add_count(&st->tokens.tokens, u->tokens);
	add_count(&st->tokens.input_tokens, u->input_tokens);
	add_count(&st->tokens.output_tokens, u->output_tokens);
	add_count(&st->tokens.cache_read_tokens, u->cache_read_tokens);
	add_count(&st->tokens.cache_write_tokens, u->cache_write_tokens);
}

/* One run of the agent for round r with command, its output into fd. 0 or agentrun_run's error. */
static int round_run(struct loop_state *st, struct loop_round *r, const char *command, const char *prompt, int fd)
{
	struct proc_spec spec = { .command = command, .env_unset = profile_env_scrub(st->profiles), .timeout_ms = st->o->round_timeout_ms,
				  .cancel = st->o->cancel, .stdin_data = prompt, .stdin_len = strlen(prompt) };
	char title[64];
	int rc;
	r->io = (struct agentrun){ .log_fd = fd, .profile = st->profile, .rl = st->rl, .redact = { .s = st->secrets } };
	if (st->o->on_line)
		r->io.on_line = stream_line, r->io.user = r;
	snprintf(title, sizeof(title), "round %ld: waiting for agent", r->n);
	if (!st->o->on_line) /* output streamed to the terminal shows progress by itself */
		spec.progress = rtk_progress_start_timer(title);
	rc = agentrun_run(&r->io, &spec, &r->pr);
	rtk_progress_stop(&spec.progress, !rc && proc_result_ok(&r->pr));
	return rc;
}

/*
 * With --continue-session, the command that resumes the conversation of the round before (malloc'd
 * into *resume), or NULL for a new one: the first round, a client rtk cannot resume, no session named.
 */
static int round_resume_command(struct loop_state *st, char **resume)
{
	const char *why;
	*resume = NULL;
	if (!st->o->continue_session || !st->session_id[0])
		return 0;
	return resume_command(st->profile, st->o->agent, st->session_id, resume, &why);
}

static bool round_agent(struct loop_state *st, struct loop_round *r)
{
	char *prompt = loop_prompt_render(st->prompt, st->plan, r->item, st->run_id, r->n), *resume = NULL;
	int fd = prompt ? open_log(st, r) : -rtk_oom(), rc = 0;
	if (fd < 0 || (rc = round_resume_command(st, &resume))) {
		free(prompt);
		if (fd >= 0)
			close(fd);
		return stop(st, "error", fd < 0 ? -fd : rc, "%s", rtk_error_message()), false;
	}
	r->resumed = resume != NULL;
	rc = round_run(st, r, resume ? resume : st->o->agent, prompt, fd);
	if (!rc && r->resumed && agentrun_resume_refused(&r->io, &r->pr)) {
		note(st, "round %ld: resuming session %s failed (the agent exited %d naming no session): the round starts a new conversation",
		     r->n, st->session_id, r->pr.exit_code);
		st->session_id[0] = '\0';
		r->resumed = false;
		agentrun_free(&r->io);
		rc = round_run(st, r, st->o->agent, prompt, fd);
	}
	if (!rc && st->o->continue_session && r->io.session_id[0])
		memcpy(st->session_id, r->io.session_id, sizeof(st->session_id));
	if (close(fd) && !rc)
		r->io.write_failed = true;
	free(resume);
	free(prompt);
	if (rc)
		return stop(st, "error", rc, "round %ld: the agent could not be started: %s", r->n, rtk_error_message()), false;
	if (r->io.write_failed)
		rtk_warn("round %ld: the log %s is incomplete (a write failed)", r->n, r->log);
	agentrun_final_event(&r->io, &r->usage);
	agentrun_usage_since(st->profile, r->resumed, &r->usage, st->usage_seen); /* Codex: a resumed thread's whole usage */
	add_tokens(st, &r->usage);
	return true;
}

/* After the agent: the checklist again, the commits and changes since the round began, the verdict. */
static bool round_judge(struct loop_state *st, struct loop_round *r)
{
	git_repository *repo;
	enum profile_trouble trouble = r->io.outcome.trouble;
	struct loop_facts f = { .interrupted = r->pr.interrupted, .timed_out = r->pr.timed_out,
				.rate_limited = trouble == PROFILE_TROUBLE_RATE_LIMIT, .transient = trouble == PROFILE_TROUBLE_TRANSIENT,
				.fatal = trouble == PROFILE_TROUBLE_FATAL };
	int rc;
	bool plan_ok = read_plan(st, r, &r->after, "after");
	if (plan_ok && checklist_diff(r->before, &r->after, &r->diff))
		return stop(st, "error", RTK_EXIT_FAILURE, "out of memory"), false;
	bool kept = true;
	if ((rc = gitx_open(&repo, NULL)) == 0) {
		if (!(rc = loop_repo_commits_since(repo, &r->mark.head, &r->commits)) &&
		    !(rc = loop_repo_changed(repo, r->mark.head_hex, st->plan_rel, &r->files_changed)))
			rc = loop_repo_head_kept(repo, &r->mark.head, &kept);
		git_repository_free(repo);
	}
	if (rc)
		return stop(st, "error", rc, "round %ld: %s", r->n, rtk_error_message()), false;
	/* A reset to an older commit changes files too, but undoing history is no work done. */
	if ((r->head_moved = !kept))
		note(st, "round %ld: HEAD no longer descends from %.12s, where the round began (a reset or a rewritten "
		     "commit): its changes back no tick", r->n, r->mark.head_hex);
	f.ticked = r->diff.ticked, f.skipped = r->diff.skipped, f.code_changed = r->files_changed > 0 && kept;
	r->verdict = plan_ok ? loop_judge(&f) : (f.interrupted ? LOOP_INTERRUPTED : LOOP_NO_PROGRESS);
	if (plan_ok)
		track_ticks(st, r);
	st->commits += r->commits.n, st->ticked += r->diff.ticked, st->skipped += r->diff.skipped;
	return plan_ok;
}

/* One trace for rtk reflect --spool, validated before it is written. A failure warns: the loop goes on. */
static void round_trace(struct loop_state *st, struct loop_round *r)
{
	char *feedback = loop_feedback(r->verdict, r->diff.ticked, r->diff.skipped, r->commits.n, r->pr.exit_code, r->pr.signal);
	struct loop_trace_in in = { st->run_id, r->n, r->item, r->io.tail.s, r->io.tail.len, feedback ? feedback : "",
				    r->usage.tokens, r->usage.duration_ms >= 0 ? r->usage.duration_ms : (double)r->pr.duration_ms, r->usage.model };
	cJSON *t = feedback ? loop_trace_build(&in, st->secrets, NULL) : NULL;
	char *text = t ? cJSON_PrintUnformatted(t) : NULL, *err = NULL, name[128];
	snprintf(name, sizeof(name), "%s-r%ld.json", st->run_id, r->n);
	if (!text)
		rtk_warn("round %ld: no trace written: out of memory", r->n);
	else if ((err = shipped_schema_check_text(st->trace_schema, text, strlen(text))))
		rtk_warn("round %ld: no trace written: it does not conform to trace.v1: %s", r->n, err);
	else if (spool_write(st->o->reflect_spool, name, text, strlen(text), &r->trace))
		rtk_warn("round %ld: no trace written: %s", r->n, rtk_error_message());
	free(err);
	free(text);
	free(feedback);
	cJSON_Delete(t);
}

/* Waits seconds (with a meter), and stops the loop when interrupted meanwhile. */
static void wait_out(struct loop_state *st, int64_t seconds, const char *title, const char *what)
{
	struct rtk_progress *meter = rtk_progress_start_timer(title);
	bool waited_out = agentrun_wait(seconds, st->o->cancel, meter);
	rtk_progress_stop(&meter, waited_out);
	if (!waited_out)
		stop(st, "interrupted", 128 + (int)*st->o->cancel, "interrupted while waiting for %s to pass", what);
}

/* A rate limit: wait until the time it gave (or the profile's default), plus a little jitter. */
static void round_wait(struct loop_state *st, struct loop_round *r)
{
	int64_t now = rtk_time_now(), wait = r->io.hit.resume_at > now ? r->io.hit.resume_at - now : 0;
	int64_t spread = wait / 10 < 30 ? wait / 10 + 1 : 30;
	r->wait_seconds = wait + (int64_t)(agentrun_random() % (uint32_t)spread);
	st->waits++;
	note(st, "round %ld: rate limited (%s): waiting %lld s", r->n, r->io.hit.signal, (long long)r->wait_seconds);
	wait_out(st, r->wait_seconds, "waiting for the rate limit", "a rate limit");
}

/* The client's trouble in words for a note or a stop: "claude: HTTP 529 (overloaded_error): API Error: ...". */
static char *trouble_words(const struct loop_state *st, const struct loop_round *r)
{
	const struct profile_outcome *o = &r->io.outcome;
	char *text = NULL, status[32] = "";
	if (o->status)
		snprintf(status, sizeof(status), "HTTP %d: ", o->status);
	if (asprintf(&text, "%s: %s%s%s%s%s", profile_name(st->profile), status, o->error_type ? o->error_type : "",
		     o->error_type ? ": " : "", o->excerpt, "") < 0)
		return NULL;
	return text;
}

/* Transient trouble: back off (doubling, capped, jittered), or stop once the profile's retries are used up. */
static void round_backoff(struct loop_state *st, struct loop_round *r)
{
	char *words = trouble_words(st, r);
	int64_t wait = profile_backoff_seconds(st->profile, ++st->transient_streak, agentrun_random());
	if (!wait) {
		stop(st, "transient_limit", RTK_EXIT_LIMIT, "round %ld: the agent's API kept failing for %u rounds in a row, "
		     "past the %s profile's %u retries (%s)", r->n, st->transient_streak, profile_name(st->profile),
		     profile_backoff_max_retries(st->profile), words ? words : "?");
	} else {
		r->wait_seconds = wait;
		st->backoffs++;
		note(st, "round %ld: transient error (%s): backing off %lld s (retry %u of %u)", r->n, words ? words : "?",
		     (long long)wait, st->transient_streak, profile_backoff_max_retries(st->profile));
		wait_out(st, wait, "backing off", "a backoff");
	}
	free(words);
}

static void round_decide(struct loop_state *st, struct loop_round *r)
{
	if (r->verdict == LOOP_INTERRUPTED || (st->o->cancel && *st->o->cancel))
		stop(st, "interrupted", 128 + (int)*st->o->cancel, "interrupted in round %ld: the agent's process group was stopped", r->n);
	if (r->io.outcome.trouble == PROFILE_TROUBLE_FATAL && !st->stop) {
		char *words = trouble_words(st, r);
		stop(st, "fatal", RTK_EXIT_FAILURE, "round %ld: the agent cannot work, not retried: %s", r->n, words ? words : "?");
		free(words);
	}
	if (loop_verdict_counts_against(r->verdict))
		st->streak++;
	else if (r->verdict == LOOP_PROGRESS)
		st->streak = 0;
	if (!r->after.open && r->after.n)
		finish(st, &r->after, r->n);
	if (st->streak >= st->o->no_progress_limit && !st->stop) {
		/* the item this round was asked to do, not whatever is open first once the round has changed the plan */
		st->stuck = r->item ? strdup(r->item) : NULL;
		stop(st, "no_progress", RTK_EXIT_NO_PROGRESS, "%ld rounds in a row made no progress; stuck on: %s", st->streak,
		     st->stuck ? st->stuck : "?");
	}
	if (r->io.outcome.trouble != PROFILE_TROUBLE_TRANSIENT)
		st->transient_streak = 0;
	else if (!st->stop)
		round_backoff(st, r);
	if (r->verdict == LOOP_RATE_LIMITED || (r->io.hit.kind != RATELIMIT_NONE && r->verdict == LOOP_PROGRESS))
		if (!st->stop)
			round_wait(st, r);
	if (st->o->max_rounds && r->n >= st->o->max_rounds)
		stop(st, "max_rounds", RTK_EXIT_LIMIT, "stopped at --max-rounds %ld with %zu item%s open", st->o->max_rounds,
		     r->after.open, r->after.open == 1 ? "" : "s");
}

/* --- the loop -------------------------------------------------------------------------------------- */

static void run_round(struct loop_state *st, long n)
{
	struct loop_round r = { .o = st->o, .n = n,
				.usage = { .tokens = -1, .input_tokens = -1, .output_tokens = -1, .cache_read_tokens = -1,
					   .cache_write_tokens = -1, .duration_ms = -1, .cost_usd = -1 } };
	bool ran = round_start(st, &r) && round_agent(st, &r);
	if (ran) {
		round_judge(st, &r);
		if (st->o->reflect_spool)
			round_trace(st, &r);
		round_decide(st, &r);
	}
	if (r.log)
		cJSON_AddItemToArray(st->rounds, loop_result_round(st, &r));
	if (r.after.n || r.read_before.n) { /* the first round's before is the start's, which loop_result falls back on */
		checklist_free(&st->final);
		st->final = r.after.n ? r.after : r.read_before;
		memset(r.after.n ? &r.after : &r.read_before, 0, sizeof(struct checklist));
	}
	round_free(&r);
}

static void state_free(struct loop_state *st)
{
	free(st->plan);
	free(st->plan_rel);
	free(st->log_dir);
	free(st->prompt);
	free(st->reason);
	free(st->stuck);
	ratelimit_free(st->rl);
	profile_set_free(st->profiles);
	secrets_free(st->secrets);
	shipped_schema_free(st->trace_schema);
	cJSON_Delete(st->rounds);
	cJSON_Delete(st->unbacked);
	rtk_strmap_free(st->unbacked_at);
	cJSON_Delete(st->vanished);
	checklist_free(&st->start);
	checklist_free(&st->final);
}

int loop_run(const struct loop_opts *o, cJSON **result)
{
	struct loop_state st = { .o = o, .rounds = cJSON_CreateArray(), .unbacked = cJSON_CreateArray(), .vanished = cJSON_CreateArray(),
				 .tokens = { .tokens = -1, .input_tokens = -1, .output_tokens = -1, .cache_read_tokens = -1,
					     .cache_write_tokens = -1, .duration_ms = -1, .cost_usd = -1 } };
	int rc;
	*result = NULL;
	st.unbacked_at = rtk_strmap_new();
	if (!st.rounds || !st.unbacked || !st.vanished || !st.unbacked_at) {
		state_free(&st);
		return rtk_oom();
	}
	if ((rc = setup(&st))) {
		state_free(&st);
		return rc;
	}
	if (o->continue_session && resume_unable(st.profile))
		note(&st, "--continue-session: %s: every round starts a new conversation", resume_unable(st.profile));
	for (long n = 1; !st.stop; n++)
		run_round(&st, n);
	rc = st.exit;
	*result = loop_result(&st);
	if (rc)
		rtk_fail(rc, "%s", st.reason ? st.reason : st.stop);
	state_free(&st);
	return rc;
}
