/*
 * spawn.c - proc_spawn (arena/proc.h): an agent program with its output
 * streamed to logs and a callback, under a deadline.
 *
 * The parent reads the child's output through a pipe and copies it into
 * the log (up to PROC_LOG_MAX bytes; the rest is drained and counted), so
 * a program that prints megabytes never blocks and never fills the disk.
 * When stdout is split from stderr (stdout_path / on_stdout), both pipes
 * are polled together, so a program that fills one while we wait on the
 * other cannot deadlock.  The deadline is enforced on the process group:
 * an agent CLI's children (shells, compilers, servers it started) die with
 * it.  After the leader exits the group is killed too, so nothing the
 * agent left running in the background can touch the workspace during
 * evaluation.
 */
#include "arena/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void child_exec(const struct proc_spec *spec, pid_t parent,
		       int out_fd, int err_fd)
{
	proc_child_setup(parent, spec->stdin_path, out_fd, err_fd, spec->cwd);
	if (spec->env_replace) {
		static char *const empty[] = { NULL };
		execvpe(spec->argv[0], spec->argv,
			spec->env_add ? spec->env_add->v : empty);
	} else {
		for (size_t i = 0; spec->env_add && i < spec->env_add->n; i++)
			putenv(spec->env_add->v[i]);
		execvp(spec->argv[0], spec->argv);
	}
	dprintf(2, "arena: cannot run %s: %s\n", spec->argv[0],
		strerror(errno));
	_exit(127);
}

/* One output stream of the child: where its bytes go. */
struct sink {
	int fd;			/* read end, -1 when closed */
	FILE *file;		/* capped copy, or NULL */
	size_t kept;		/* bytes written to file */
	size_t *total;		/* counters to add to (NULL-terminated) */
	size_t *total2;
	void (*cb)(void *ctx, const char *data, size_t n);
	void *cb_ctx;
};

/* Copies what is readable into the sink; false at EOF or error. */
static bool pump(struct sink *s)
{
	char buf[65536];
	ssize_t n = read(s->fd, buf, sizeof(buf));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	if (n == 0)
		return false;
	if (s->file && s->kept < PROC_LOG_MAX) {
		size_t keep = PROC_LOG_MAX - s->kept;
		if ((size_t)n < keep)
			keep = (size_t)n;
		fwrite(buf, 1, keep, s->file);
		s->kept += keep;
	}
	*s->total += (size_t)n;
	if (s->total2)
		*s->total2 += (size_t)n;
	if (s->cb)
		s->cb(s->cb_ctx, buf, (size_t)n);
	return true;
}

static void sink_close(struct sink *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

static void note_truncation(FILE *f, size_t total, size_t kept)
{
	if (f && total > kept)
		fprintf(f, "\n[arena: %zu bytes of output, the first %zu "
			"kept]\n", total, kept);
}

int proc_spawn(const struct proc_spec *spec, struct proc_spawn_result *res,
	      struct errbuf *err)
{
	bool split = spec->stdout_path || spec->on_stdout;
	double grace = spec->kill_grace_s > 0 ? spec->kill_grace_s
					      : PROC_KILL_GRACE_S;
	int efd[2], ofd[2] = { -1, -1 }, status = 0, rc = 0;
	FILE *log = NULL, *out = NULL;
	uint64_t start = now_ns();
	double term_at = -1;
	pid_t pid, parent = getpid();

	memset(res, 0, sizeof(*res));
	if (spec->log_path) {
		log = fopen(spec->log_path, "ae");
		if (!log)
			return errf_code(err, errno, "%s: cannot open log: %s",
					 spec->log_path, strerror(errno));
	}
	if (spec->stdout_path) {
		out = fopen(spec->stdout_path, "ae");
		if (!out) {
			rc = errf_code(err, errno, "%s: cannot open: %s",
				       spec->stdout_path, strerror(errno));
			goto out_files;
		}
	}
	if (pipe2(efd, O_CLOEXEC) != 0 ||
	    (split && pipe2(ofd, O_CLOEXEC) != 0)) {
		rc = errf_code(err, errno, "pipe: %s", strerror(errno));
		goto out_files;
	}
	pid = fork();
	if (pid < 0) {
		rc = errf_code(err, errno, "fork: %s", strerror(errno));
		close(efd[0]);
		close(efd[1]);
		if (split) {
			close(ofd[0]);
			close(ofd[1]);
		}
		goto out_files;
	}
	if (pid == 0)
		child_exec(spec, parent, split ? ofd[1] : efd[1], efd[1]);
	setpgid(pid, pid);
	close(efd[1]);
	if (split)
		close(ofd[1]);

	struct sink sinks[2] = {
		{ .fd = efd[0], .file = log, .total = &res->output_bytes },
		{ .fd = split ? ofd[0] : -1, .file = out,
		  .total = &res->output_bytes, .total2 = &res->stdout_bytes,
		  .cb = spec->on_stdout, .cb_ctx = spec->on_stdout_ctx },
	};
	bool exited = false;
	while (!exited) {
		double elapsed = (double)(now_ns() - start) / 1e9;
		if (spec->timeout_s > 0 && elapsed >= spec->timeout_s &&
		    term_at < 0) {
			res->timed_out = true;
			kill(-pid, SIGTERM);
			term_at = elapsed;
		}
		if (term_at >= 0 && elapsed >= term_at + grace)
			kill(-pid, SIGKILL);
		struct pollfd p[2];
		int np = 0;
		for (int i = 0; i < 2; i++)
			if (sinks[i].fd >= 0)
				p[np++] = (struct pollfd){ .fd = sinks[i].fd,
							   .events = POLLIN };
		if (np > 0) {
			if (poll(p, (nfds_t)np, 100) > 0)
				for (int i = 0, k = 0; i < 2; i++) {
					if (sinks[i].fd < 0)
						continue;
					if (p[k++].revents && !pump(&sinks[i]))
						sink_close(&sinks[i]);
				}
		} else {
			usleep(20000);
		}
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			exited = true;
	}
	/* Drain what the leader wrote before exiting, without waiting for
	 * background processes that still hold the pipes. */
	for (int i = 0; i < 2; i++) {
		struct sink *s = &sinks[i];
		if (s->fd < 0)
			continue;
		fcntl(s->fd, F_SETFL, fcntl(s->fd, F_GETFL) | O_NONBLOCK);
		for (;;) {
			struct pollfd p = { .fd = s->fd, .events = POLLIN };
			if (poll(&p, 1, 0) <= 0 || !pump(s))
				break;
		}
		sink_close(s);
	}
	kill(-pid, SIGKILL);
	note_truncation(log, split ? res->output_bytes - res->stdout_bytes
				   : res->output_bytes, sinks[0].kept);
	note_truncation(out, res->stdout_bytes, sinks[1].kept);
	res->status = status;
	res->seconds = (double)(now_ns() - start) / 1e9;
out_files:
	if (log)
		fclose(log);
	if (out)
		fclose(out);
	return rc;
}
