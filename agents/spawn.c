/*
 * spawn.c - see spawn.h.
 *
 * The parent reads the child's output through a pipe and copies it into
 * the log (up to SPAWN_LOG_MAX bytes; the rest is drained and counted), so
 * a program that prints megabytes never blocks and never fills the disk.
 * The deadline is enforced on the process group: an agent CLI's children
 * (shells, compilers, servers it started) die with it.  After the leader
 * exits the group is killed too, so nothing the agent left running in the
 * background can touch the workspace during evaluation.
 */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static void child_exec(const struct spawn_spec *spec, int out_fd)
{
	int in_fd;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	in_fd = open(spec->stdin_path ? spec->stdin_path : "/dev/null",
		     O_RDONLY);
	if (in_fd < 0)
		in_fd = open("/dev/null", O_RDONLY);
	dup2(in_fd, 0);
	dup2(out_fd, 1);
	dup2(out_fd, 2);
	if (spec->cwd && chdir(spec->cwd) != 0) {
		dprintf(2, "arena: cannot enter %s: %s\n", spec->cwd,
			strerror(errno));
		_exit(127);
	}
	for (size_t i = 0; spec->env_add && i < spec->env_add->n; i++)
		putenv(spec->env_add->v[i]);
	execvp(spec->argv[0], spec->argv);
	dprintf(2, "arena: cannot run %s: %s\n", spec->argv[0],
		strerror(errno));
	_exit(127);
}

/* Copies what is readable from fd into log (capped); false at EOF. */
static bool pump(int fd, FILE *log, size_t *total)
{
	char buf[16384];
	ssize_t n = read(fd, buf, sizeof(buf));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	if (n == 0)
		return false;
	if (log && *total < SPAWN_LOG_MAX) {
		size_t keep = SPAWN_LOG_MAX - *total;
		fwrite(buf, 1, (size_t)n < keep ? (size_t)n : keep, log);
	}
	*total += (size_t)n;
	return true;
}

int spawn_run(const struct spawn_spec *spec, struct spawn_result *res,
	      struct errbuf *err)
{
	int pfd[2], status = 0;
	FILE *log = NULL;
	uint64_t start = now_ns();
	double term_at = -1;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	if (spec->log_path) {
		log = fopen(spec->log_path, "ae");
		if (!log)
			return errf_code(err, errno, "%s: cannot open log: %s",
					 spec->log_path, strerror(errno));
	}
	if (pipe2(pfd, O_CLOEXEC) != 0) {
		int e = errno;
		if (log)
			fclose(log);
		return errf_code(err, e, "pipe: %s", strerror(e));
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;
		close(pfd[0]);
		close(pfd[1]);
		if (log)
			fclose(log);
		return errf_code(err, e, "fork: %s", strerror(e));
	}
	if (pid == 0)
		child_exec(spec, pfd[1]);
	setpgid(pid, pid);
	close(pfd[1]);

	bool reading = true, exited = false;
	while (!exited) {
		double elapsed = (double)(now_ns() - start) / 1e9;
		if (spec->timeout_s > 0 && elapsed >= spec->timeout_s &&
		    term_at < 0) {
			res->timed_out = true;
			kill(-pid, SIGTERM);
			term_at = elapsed;
		}
		if (term_at >= 0 && elapsed >= term_at + SPAWN_KILL_GRACE_S)
			kill(-pid, SIGKILL);
		if (reading) {
			struct pollfd p = { .fd = pfd[0], .events = POLLIN };
			if (poll(&p, 1, 100) > 0)
				reading = pump(pfd[0], log, &res->output_bytes);
		} else {
			usleep(20000);
		}
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			exited = true;
	}
	/* Drain what the leader wrote before exiting, without waiting for
	 * background processes that still hold the pipe. */
	int fl = fcntl(pfd[0], F_GETFL);
	fcntl(pfd[0], F_SETFL, fl | O_NONBLOCK);
	while (reading && pump(pfd[0], log, &res->output_bytes)) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		if (poll(&p, 1, 0) <= 0)
			break;
	}
	kill(-pid, SIGKILL);
	close(pfd[0]);
	if (log) {
		if (res->output_bytes > SPAWN_LOG_MAX)
			fprintf(log, "\n[arena: %zu bytes of output, the first "
				"%zu kept]\n", res->output_bytes, SPAWN_LOG_MAX);
		fclose(log);
	}
	res->status = status;
	res->seconds = (double)(now_ns() - start) / 1e9;
	return 0;
}
