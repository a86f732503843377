/* src/exec/proc.h — the one place rtk starts programs: /bin/sh -c in a process group, lines out, a deadline. */
#ifndef RTK_PROC_H
#define RTK_PROC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/progress.h"
#include "lib/strbuf.h"

/*
 * run-plan, loop and iterate run shell steps and agent CLIs for minutes to days, unattended, so a run
 * must end however the command behaves: a deadline or a caller's "stop" ends the whole process group
 * (SIGTERM, then SIGKILL after a grace period), and proc_run returns even when some process keeps the
 * output pipes open. Nothing else in rtk calls fork or exec.
 *
 * Who frees what: proc never keeps or frees anything the caller passes in; a line handed to the
 * callback lives only until the callback returns (copy what you keep).
 */

#define PROC_LINE_MAX (64 * 1024) /* default longest piece handed to the callback (bytes, newline excluded) */
#define PROC_GRACE_MS 5000        /* default time between SIGTERM and SIGKILL */
#define PROC_LINGER_MS 500        /* after the shell exits, how long others may keep its output open */
#define PROC_DRAIN_MS 1000        /* after SIGKILL, how long a process outside the group may keep it open */
#define PROC_TICK_MS 100          /* how often the cancel flag and the meter are looked at when nothing wakes proc */

enum proc_stream { PROC_STDOUT = 1, PROC_STDERR = 2 };

/* What a line callback answers: go on, or stop the command now (its group is ended, TERM then KILL). */
enum proc_verdict { PROC_CONTINUE = 0, PROC_STOP = 1 };

/* Flags of a piece handed to the callback. */
enum {
	PROC_LINE_CUT = 1,    /* the line had no newline within the cap: it goes on in this stream's next piece */
	PROC_LINE_NO_EOL = 2, /* the stream ended after this piece without a final newline */
	/*
	 * More pieces of what was read with this one follow at once: a callback may gather lines and do
	 * its per-line work (redaction, a log write) once for all of them at the first piece without it,
	 * which comes before proc waits for the command again (see struct proc_batch).
	 */
	PROC_LINE_MORE = 4,
};

/*
 * Gets one line of stream, without its '\n' (a '\r' before it is kept: bytes are passed as written).
 * line[len] is '\0', but line may hold NULs of its own: len counts. A line longer than the cap comes
 * as several pieces, each but the last flagged PROC_LINE_CUT; their concatenation is the line.
 * Pieces of one stream come in order; the two streams interleave as the child's writes arrive.
 */
typedef enum proc_verdict (*proc_line_fn)(void *user, enum proc_stream stream, const char *line, size_t len,
					  unsigned flags);

/*
 * The line splitter, on its own so that it can be tested with any chunking of the bytes: the
 * lines and pieces it hands out depend only on the bytes fed, never on how they were split into
 * reads. Memory stays at max + 1 bytes whatever the input (a stream with no newline at all comes
 * out as max-byte pieces).
 */
struct proc_lines {
	enum proc_stream stream;
	char *buf; /* the unfinished line so far, max + 1 bytes with room for its NUL */
	size_t len, max;
};

/* Sets pl up for stream, pieces of at most max bytes (0: PROC_LINE_MAX). 0, or RTK_EXIT_FAILURE (no memory). */
int proc_lines_init(struct proc_lines *pl, enum proc_stream stream, size_t max);

/*
 * Hands fn every line that data[0..n) completes and every full max-byte piece, and keeps the rest
 * for the next call. PROC_STOP as soon as fn says so (the rest of data is dropped: feed no more).
 */
enum proc_verdict proc_lines_feed(struct proc_lines *pl, const char *data, size_t n, proc_line_fn fn,
				  void *user);

/* The stream ended: hands fn the unfinished line, if any, flagged PROC_LINE_NO_EOL. */
enum proc_verdict proc_lines_finish(struct proc_lines *pl, proc_line_fn fn, void *user);

void proc_lines_free(struct proc_lines *pl);

/*
 * Pieces gathered until a piece without PROC_LINE_MORE, so that what costs per call (redacting, a
 * write) is paid once per read instead of once per line: 2 million short lines cost one pass each.
 * text holds the pieces, each complete line followed by '\n' (a line that ended the stream without
 * one gets it too, as it would in a log); cut says the last piece is cut (PROC_LINE_CUT, no '\n').
 * At most one read's worth plus one piece is held. Start from { 0 }.
 */
struct proc_batch {
	struct rtk_strbuf text;
	bool cut;
};

/* Adds a piece (flags as the callback got them); true when the batch is complete and must be used now. */
bool proc_batch_add(struct proc_batch *b, const char *line, size_t len, unsigned flags);
/* Empties the batch for the next one, keeping its memory. */
void proc_batch_clear(struct proc_batch *b);
void proc_batch_free(struct proc_batch *b);

/* What to run and how. Start from { 0 }: every zero field is the documented default. */
struct proc_spec {
	const char *command;          /* run as /bin/sh -c command */
	const char *cwd;              /* working directory; NULL: the caller's */
	/*
	 * When not NULL, the working directory as a folder the caller opened (and checked): the child
	 * enters it with fchdir, so a link swapped in at cwd's path since the check leads nowhere; cwd
	 * then only names it in messages. The caller closes it.
	 */
	const int *cwd_fd;
	const char *const *env_unset; /* NULL-terminated names removed from the caller's environment, or NULL */
	const char *const *env_set;   /* NULL-terminated "NAME=VALUE" added, replacing any NAME, or NULL */
	const void *stdin_data;       /* fed to the command's stdin, then closed; NULL: stdin is /dev/null */
	size_t stdin_len;
	int64_t timeout_ms;           /* the deadline after which the group is ended; 0: none */
	int64_t grace_ms;             /* SIGTERM to SIGKILL; 0: PROC_GRACE_MS */
	size_t line_max;              /* longest piece handed to on_line; 0: PROC_LINE_MAX */
	proc_line_fn on_line;         /* NULL: output is read and counted, then dropped */
	void *user;                   /* passed to on_line and on_start */
	/*
	 * When not NULL, called once the shell has started, with its pid (also its process group id):
	 * a caller that may be killed itself records it, so that a restart can end a group left behind.
	 */
	void (*on_start)(void *user, pid_t pgid);
	/*
	 * When not NULL, a flag the caller's SIGINT/SIGTERM handler sets: once it is non-zero the group is
	 * ended and the result says interrupted. Seen at once when the signal interrupts proc's poll() in
	 * this thread, otherwise within PROC_TICK_MS.
	 */
	volatile sig_atomic_t *cancel;
	/* When not NULL, an elapsed-time meter (lib/progress.h) proc redraws every PROC_TICK_MS while the command runs. */
	struct rtk_progress *progress;
};

struct proc_result {
	int exit_code;       /* the shell's exit status 0-255, or -1 when a signal ended it */
	int signal;          /* the signal that ended the shell, or 0 */
	/* Why proc ended the group; at most one is true, the first cause: */
	bool timed_out;      /* the deadline passed */
	bool stopped;        /* on_line answered PROC_STOP */
	bool interrupted;    /* *cancel was set */
	bool leftovers;      /* the shell exited, but others kept its output open past PROC_LINGER_MS */
	int64_t duration_ms; /* wall time from start to the shell reaped (CLOCK_MONOTONIC) */
	uint64_t stdout_bytes, stderr_bytes;
	uint64_t stdin_bytes; /* how much of stdin_data the command took before it closed its stdin */
};

/*
 * Runs spec->command with /bin/sh -c as the leader of a new process group: stdin from stdin_data or
 * /dev/null, stdout and stderr through pipes read concurrently with poll() while stdin is fed, so
 * no amount of input or output can deadlock; no other descriptor of the caller reaches the child;
 * signal dispositions and mask reset to the defaults. Lines go to on_line as they complete.
 *
 * The group is ended (SIGTERM to every process in it, SIGKILL after grace_ms, or at once once the
 * shell has exited and the output is closed) when the deadline passes, on_line answers PROC_STOP,
 * or *cancel is set; after PROC_STOP nothing more is handed to on_line, in the other cases the
 * lines written while the group winds down still are. When the shell exits normally, processes it
 * left in the background holding its output are ended the same way after PROC_LINGER_MS
 * (result->leftovers). After SIGKILL, output held open by a process outside the group is waited
 * for at most PROC_DRAIN_MS. The shell is always reaped before proc_run returns.
 *
 * Nothing the command started outlives the run, where the kernel can tell: once the shell has
 * exited, what is left of its group is ended (TERM, then KILL at once), and rtk is made a child
 * subreaper (PR_SET_CHILD_SUBREAPER, for the whole process), so that a descendant that left the
 * group (setsid, a daemon's double fork) is handed to rtk when its parent dies; every such child
 * of rtk begun since the run started, other than a shell another thread's proc_run is running, is
 * killed and reaped before proc_run returns (a thread's run may so end another's escaped
 * descendants: none is meant to outlive its command). A process that left the group while its
 * parent lives on outside it is beyond reach; so is anything once rtk itself is killed by SIGKILL.
 * SIGPIPE from a child that closes its stdin early is absorbed; SIGCHLD must not be ignored by the
 * caller.
 *
 * 0 when the command ran, whatever its outcome (see *result); RTK_EXIT_FAILURE with a reason naming
 * what failed when it could not be started (a missing or unusable cwd, a malformed env_set entry, no
 * memory or descriptors, spawn failing) or its output could not be read; nothing is left running then.
 */
int proc_run(const struct proc_spec *spec, struct proc_result *result);

/* The status as a shell reports it in $?: the exit code, or 128 + the signal. */
int proc_result_shell_status(const struct proc_result *result);

/* Whether the command ran to its end and succeeded: exit 0, not ended by proc (a meter's ", done."). */
bool proc_result_ok(const struct proc_result *result);

#endif
