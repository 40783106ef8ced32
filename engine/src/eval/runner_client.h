/*
 * runner_client.h - what the two files of the runner client share
 * (private to engine/src/eval): runner_client.c starts, waits for and
 * ends runner processes; runner_requests.c exchanges requests and replies
 * with them.  The client's interface is in eval_internal.h.
 */
#ifndef ARENA_RUNNER_CLIENT_H
#define ARENA_RUNNER_CLIENT_H

#include "eval_internal.h"

/* ---- runner_client.c: the process ------------------------------------- */

void rcl_sleep_us(long us);
/* The failure a reaped runner's wait status means (r->why set). */
enum runner_fail rcl_fail_from_status(struct runner *r);
/* Kills the whole group (only while the leader is unreaped). */
void rcl_kill_group(struct runner *r);
/* Kills what is left of the group, then waits for the leader. */
void rcl_reap_blocking(struct runner *r);
/* 1 ended (reaped), 2 stopped, 0 neither, -1 error; never blocks. */
int rcl_poll_child(struct runner *r, bool want_stop);
enum runner_fail rcl_timeout_kill(struct runner *r, const char *what);
/* The channel hit EOF: the runner exited, or closed it and went on. */
enum runner_fail rcl_after_eof(struct runner *r);
/* A protocol violation: r->why set, the runner killed and reaped. */
enum runner_fail rcl_protocol(struct runner *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* At most 60 bytes of s for a message, unprintables as '?'. */
void rcl_quote(const char *s, size_t len, char *out, size_t n);

/* ---- runner_requests.c: the channel ----------------------------------- */

/* One line with the runner's deadline (see runner_take_line). */
enum runner_fail rcl_read_line_more(struct runner *r, const char *what,
				    char **line, bool allow_more);
enum runner_fail rcl_read_line(struct runner *r, const char *what,
			       char **line);
/* One request (with descriptor fd, or -1), its one-line reply; leaves
 * the runner stopped. */
enum runner_fail rcl_transact_fd(struct runner *r, const char *req,
				 int fd, const char *what, char **reply,
				 int64_t *wall_ns);

#endif /* ARENA_RUNNER_CLIENT_H */
