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

#include "contain.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The program's environment, built before the fork (the child of a
 * threaded process may not allocate): env_add alone, or ours with
 * env_add's names replaced and added. */
static void build_env(const struct proc_spec *spec, struct strvec *out)
{
	if (!spec->env_replace) {
		for (char **e = environ; e && *e; e++) {
			size_t n = strcspn(*e, "=");
			bool replaced = false;
			for (size_t i = 0;
			     spec->env_add && i < spec->env_add->n; i++)
				replaced |= !strncmp(spec->env_add->v[i], *e,
						     n + 1);
			if (!replaced)
				strvec_push(out, *e);
		}
	}
	for (size_t i = 0; spec->env_add && i < spec->env_add->n; i++)
		strvec_push(out, spec->env_add->v[i]);
}

static void child_exec(const struct proc_spec *spec, pid_t parent, int out_fd,
		       int err_fd, char *const envp[])
{
	proc_child_setup(parent, spec->stdin_path, out_fd, err_fd, spec->cwd);
	proc_child_close_from(3);
	proc_child_limits(spec->limits);
	execvpe(spec->argv[0], spec->argv, envp);
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
	int efd[2], ofd[2] = { -1, -1 }, rep[2] = { -1, -1 }, status = 0,
		    rc = 0;
	FILE *log = NULL, *out = NULL;
	uint64_t start = now_ns();
	double term_at = -1, stop_at = -1, next_tick = 0.25;
	pid_t pid, parent = getpid();
	struct strvec env = STRVEC_INIT;
	struct contain_prep cprep;
	bool in_ns = false;

	memset(res, 0, sizeof(*res));
	build_env(spec, &env);
	if (spec->contain)
		contain_prepare(&cprep);
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
	if (spec->contain && pipe2(rep, O_CLOEXEC) != 0) {
		rc = errf_code(err, errno, "pipe: %s", strerror(errno));
		close(efd[0]);
		close(efd[1]);
		if (split) {
			close(ofd[0]);
			close(ofd[1]);
		}
		goto out_files;
	}
	pid = spec->contain ? contain_fork(&cprep, &in_ns) : fork();
	if (pid < 0) {
		rc = errf_code(err, errno, "fork: %s", strerror(errno));
		close(efd[0]);
		close(efd[1]);
		if (split) {
			close(ofd[0]);
			close(ofd[1]);
		}
		if (rep[0] >= 0) {
			close(rep[0]);
			close(rep[1]);
		}
		goto out_files;
	}
	if (pid == 0 && spec->contain) {
		/* The holder: the program's stdio set up, its report pipe
		 * kept (moved past the descriptors closed below). */
		proc_child_setup(in_ns ? 0 : parent, spec->stdin_path,
				 split ? ofd[1] : efd[1], efd[1], spec->cwd);
		int rfd = fcntl(rep[1], F_DUPFD, 3);
		proc_child_close_from(rfd + 1);
		for (int fd = 3; fd < rfd; fd++)
			close(fd);
		contain_run(&cprep, in_ns, rfd, spec->argv, env.v,
			    spec->limits);
	}
	if (pid == 0)
		child_exec(spec, parent, split ? ofd[1] : efd[1], efd[1],
			   env.v);
	setpgid(pid, pid);
	close(efd[1]);
	if (split)
		close(ofd[1]);
	if (rep[1] >= 0)
		close(rep[1]);
	if (spec->contain)
		res->contained = in_ns ? PROC_CONTAINED_NS
				       : PROC_CONTAINED_SUBREAPER;

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
		    term_at < 0 && stop_at < 0) {
			res->timed_out = true;
			kill(-pid, SIGTERM);
			term_at = elapsed;
		}
		if (spec->on_tick && elapsed >= next_tick && stop_at < 0) {
			const char *why = spec->on_tick(spec->on_tick_ctx);
			next_tick = elapsed + 0.25;
			if (why) {
				res->stopped = true;
				snprintf(res->stop_reason,
					 sizeof(res->stop_reason), "%s", why);
				stop_at = elapsed;
				/* The holder kills the program and sweeps;
				 * without one, the group goes. */
				kill(spec->contain ? pid : -pid,
				     spec->contain ? SIGUSR1 : SIGKILL);
			}
		}
		if (term_at >= 0 && elapsed >= term_at + grace) {
			/* A holder is told to kill (it sweeps what the group
			 * kill would miss); killing it would leave a
			 * subreaper's orphans to init. */
			if (spec->contain && elapsed < term_at + 3 * grace)
				kill(pid, SIGUSR1);
			else
				kill(-pid, SIGKILL);
		}
		if (stop_at >= 0 && elapsed >= stop_at + 3 * grace)
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
	if (rep[0] >= 0) {
		/* The program's own status, from its holder (which exits 0);
		 * a holder that was killed reports nothing, and its status
		 * stands. */
		struct contain_report cr;
		if (read(rep[0], &cr, sizeof(cr)) == (ssize_t)sizeof(cr)) {
			res->status = cr.status;
			res->leftovers = cr.leftovers;
		}
		close(rep[0]);
	}
	res->seconds = (double)(now_ns() - start) / 1e9;
out_files:
	strvec_release(&env);
	if (log)
		fclose(log);
	if (out)
		fclose(out);
	return rc;
}
