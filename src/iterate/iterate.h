/* src/iterate/iterate.h — rtk iterate's engine: developer/acceptor milestone rounds, wake schedules, rate-limit waits, restart recovery. */
#ifndef RTK_ITERATE_H
#define RTK_ITERATE_H

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/* A project under management keeps everything in this folder of its root. */
#define ITERATE_DIR ".anima"
/* The shipped prompts: {NAME} placeholders are filled in (see data/prompts/iterate-*.txt). */
#define ITERATE_PROMPT_DEVELOPER "data/prompts/iterate-developer.txt"
#define ITERATE_PROMPT_ACCEPTOR "data/prompts/iterate-acceptor.txt"
#define ITERATE_PROMPT_FINAL "data/prompts/iterate-final.txt"
/* The same, for an agent whose conversation of the milestone goes on (session: persistent). */
#define ITERATE_PROMPT_DEVELOPER_CONTINUE "data/prompts/iterate-developer-continue.txt"
#define ITERATE_PROMPT_ACCEPTOR_CONTINUE "data/prompts/iterate-acceptor-continue.txt"
#define ITERATE_PROMPT_FINAL_CONTINUE "data/prompts/iterate-final-continue.txt"

/* Called with a notice for people: a milestone started, a verdict, a pause, a rate-limit wait. */
typedef void (*iterate_note_fn)(void *user, const char *project, const char *text);

struct iterate_opts {
	iterate_note_fn on_note;       /* NULL: notices only go to the result */
	void *user;
	volatile sig_atomic_t *cancel; /* set by the caller's SIGINT/SIGTERM handler to the signal */
	bool progress;                 /* a meter while an agent runs (lib/progress.h): not for the scheduler's threads, whose lines would mix */
	const char *agent_profile;     /* a profile's name or file for both agents (--agent-profile); NULL: chosen by each command's program */
};

/*
 * One checking pass over the project at root: resume the milestone in progress (or rate-limited,
 * once its reset time has passed), else start the first ready milestone of order.json, and run
 * rounds until it is completed, paused, rate-limited or *cancel is set; then, when it completed,
 * check again. *result gets one rtk.iterate.v1 project object describing the pass. 0 when the pass
 * ran to a resting state (sleeping, completed, rate limited, nothing to do), RTK_EXIT_NO_PROGRESS
 * when it paused the project after consecutive rejections, RTK_EXIT_LIMIT when it paused it at
 * max_iterations_per_milestone, 128 + the signal when interrupted, RTK_EXIT_USAGE for a project
 * whose files are missing or invalid (naming the file), RTK_EXIT_FAILURE when another rtk iterate
 * holds the project or a round could not be run. *result may be NULL for the last two.
 */
int iterate_check(const char *root, const struct iterate_opts *o, cJSON **result);

/*
 * The scheduler: one thread per project, each checking at start and then on its project's
 * schedule (interval, daily times, or manual), when woken through iterate_wake, and when a
 * rate limit's reset time comes, until *cancel is set. Waits never poll: each thread sleeps in
 * poll() on an inotify watch of its .anima folder and a shutdown event, with the time to its next
 * wake as the timeout (with RTK_TEST_CLOCK, the clock file is watched instead). 0 after a clean
 * shutdown; RTK_EXIT_USAGE before starting when a project is unusable or held by another scheduler.
 */
int iterate_schedule(const char *const *roots, size_t n, const struct iterate_opts *o);

/*
 * Asks the scheduler of the project at root to check now (writes .anima/wake). *running says
 * whether a scheduler holds the project. 0, or the rtk_exit code.
 */
int iterate_wake(const char *root, bool *running);

/* One rtk.iterate.v1 project object: the project's state as its files show it, for status and watch. */
int iterate_status(const char *root, cJSON **out);

/*
 * rtk iterate watch: each project's status (iterate_status) and the last lines of its Developer's
 * and Acceptor's logs side by side (iterate_view_screen), written to out_fd until *cancel is set.
 * On a terminal the screen is redrawn in place with plain ANSI sequences, at the size TIOCGWINSZ
 * gives (re-read on SIGWINCH: a handler is installed while it runs and the old one put back), with
 * the cursor hidden and shown again on return. Anything else gets the screen again whenever it
 * changes, blocks separated by a blank line, no escape sequences, COLUMNS x LINES from the
 * environment or 80x24. Woken by inotify on each project's .anima folder, its logs and milestones
 * folders and the folders of its latest logs, at most 10 frames a second, and at least once a
 * second whatever inotify says. The caller's SIGINT/SIGTERM handler sets *cancel and interrupts
 * the wait (poll is never restarted). 0 when *cancel was set; the code of iterate_status when a
 * project's status cannot be read at the start (later, the reason is shown in its header);
 * RTK_EXIT_FAILURE when out_fd cannot be written.
 */
int iterate_watch(const char *const *roots, size_t n, int out_fd, volatile sig_atomic_t *cancel);

#endif
