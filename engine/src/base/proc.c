/*
 * proc.c - running a child program with a deadline and captured output
 * (arena/proc.h), and the child's side of every spawn (proc_child_setup,
 * shared with proc_spawn in spawn.c).
 *
 * The child gets its own process group (so the whole tree it starts can be
 * killed), the parent-death signal, stdin from /dev/null, and
 * stdout+stderr on one pipe.  The parent polls the pipe until EOF and the
 * deadline; at the deadline it sends SIGKILL to the group.  Output beyond
 * out_max is read and dropped so a chatty child can never block on a full
 * pipe or grow our memory.
 */
#include "arena/proc.h"
#include "arena/confine.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

void proc_child_setup(pid_t parent, const char *stdin_path, int out_fd,
		      int err_fd, const char *cwd)
{
	int in_fd;

	setpgid(0, 0);
	/* Dies with the thread that forked it; and if that died before the
	 * signal was armed, now (parent 0: not checked). */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (parent && getppid() != parent)
		_exit(127);
	in_fd = open(stdin_path ? stdin_path : "/dev/null", O_RDONLY);
	if (in_fd < 0)
		in_fd = open("/dev/null", O_RDONLY);
	if (in_fd >= 0)
		dup2(in_fd, 0);
	dup2(out_fd, 1);
	dup2(err_fd, 2);
	if (cwd && chdir(cwd) != 0) {
		dprintf(2, "arena: cannot enter %s: %s\n", cwd,
			strerror(errno));
		_exit(127);
	}
}

void proc_child_limits(const struct proc_limits *lim)
{
	struct rlimit rl;

	if (!lim)
		return;
	if (lim->as_bytes) {
		rl.rlim_cur = rl.rlim_max = lim->as_bytes;
		setrlimit(RLIMIT_AS, &rl);
	}
	if (lim->data_bytes) {
		rl.rlim_cur = rl.rlim_max = lim->data_bytes;
		setrlimit(RLIMIT_DATA, &rl);
	}
	if (lim->cpu_s) {
		rl.rlim_cur = lim->cpu_s;
		rl.rlim_max = lim->cpu_s + 5;
		setrlimit(RLIMIT_CPU, &rl);
	}
	if (lim->fsize_bytes) {
		rl.rlim_cur = rl.rlim_max = lim->fsize_bytes;
		setrlimit(RLIMIT_FSIZE, &rl);
	}
}

void proc_child_close_from(int from)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)from, ~0u, 0) == 0)
		return;
#endif
	for (int fd = from; fd < 65536; fd++)
		close(fd);
}

int proc_run_capture(char *const argv[], const char *cwd, char *const envp[],
		     int timeout_ms, size_t out_max, struct proc_result *res,
		     struct errbuf *err)
{
	struct proc_capture c = {
		.argv = argv,
		.cwd = cwd,
		.envp = envp,
		.timeout_ms = timeout_ms,
		.out_max = out_max,
	};

	return proc_run(&c, res, err);
}

int proc_run(const struct proc_capture *c, struct proc_result *res,
	     struct errbuf *err)
{
	char *const *argv = c->argv;
	int timeout_ms = c->timeout_ms;
	size_t out_max = c->out_max;
	int pfd[2];
	uint64_t start = now_ns();
	struct strbuf out = STRBUF_INIT;
	size_t dropped = 0;
	pid_t pid, parent = getpid();

	memset(res, 0, sizeof(*res));
	if (pipe2(pfd, O_CLOEXEC) != 0)
		return errf_code(err, errno, "pipe: %s", strerror(errno));
	pid = c->confine ? confine_clone(c->confine) : fork();
	if (pid < 0) {
		int e = errno;
		close(pfd[0]);
		close(pfd[1]);
		return errf_code(
			err, e, "%s: %s",
			c->confine ? "cannot create the sandbox's namespaces"
				   : "fork",
			strerror(e));
	}
	if (pid == 0) {
		/* In a PID namespace of its own the parent is outside:
		 * proc_child_setup's check of getppid() cannot hold. */
		proc_child_setup(c->confine ? 0 : parent, NULL, pfd[1], pfd[1],
				 c->confine ? NULL : c->cwd);
		proc_child_close_from(3);
		if (c->confine) {
			const char *what = "";
			int rc = confine_enter(c->confine, &what);
			if (rc || (c->cwd && chdir(c->cwd) != 0)) {
				dprintf(2,
					"arena: cannot enter the sandbox "
					"(%s: errno %d)\n",
					rc ? what : "cwd", rc ? -rc : errno);
				_exit(CONFINE_EXIT_FAILED);
			}
		}
		proc_child_limits(c->limits);
		if (c->envp)
			environ = (char **)c->envp;
		execvp(argv[0], argv);
		dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	close(pfd[1]);

	bool open_pipe = true;
	while (open_pipe) {
		int wait_ms = -1;
		if (timeout_ms > 0) {
			int64_t left = (int64_t)timeout_ms -
				       (int64_t)((now_ns() - start) / 1000000);
			if (left <= 0) {
				res->timed_out = true;
				kill(-pid, SIGKILL);
				break;
			}
			wait_ms = (int)left;
		}
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		int r = poll(&p, 1, wait_ms);
		if (r < 0 && errno != EINTR)
			break;
		if (r <= 0)
			continue;
		char buf[8192];
		ssize_t n = read(pfd[0], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			open_pipe = false;
			break;
		}
		size_t keep = out.len < out_max ? out_max - out.len : 0;
		if (keep > (size_t)n)
			keep = (size_t)n;
		strbuf_add(&out, buf, keep);
		dropped += (size_t)n - keep;
	}
	close(pfd[0]);
	/* The group may outlive the leader's pipe; kill leftovers once the
	 * leader is gone so no orphan keeps running. */
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	kill(-pid, SIGKILL);
	if (dropped)
		strbuf_addf(&out, "\n[... %zu more bytes of output dropped]\n",
			    dropped);
	res->status = status;
	res->output_len = out.len;
	res->output = strbuf_detach(&out);
	res->seconds = (double)(now_ns() - start) / 1e9;
	return 0;
}

void proc_result_release(struct proc_result *res)
{
	free(res->output);
	res->output = NULL;
}

void proc_describe_status(int status, char *buf, size_t n)
{
	if (WIFEXITED(status))
		snprintf(buf, n, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, n, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	else
		snprintf(buf, n, "ended with wait status %d", status);
}

/* Kills the children listed in one thread's children file (a line of
 * pids separated by spaces) and their groups; returns how many. */
static int kill_listed_children(const char *path)
{
	char buf[4096];
	int n = 0, fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;

	if (fd < 0)
		return 0;
	got = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (got <= 0)
		return 0;
	buf[got] = '\0';
	for (char *p = buf; *p;) {
		long v = 0;
		while (*p == ' ')
			p++;
		if (*p < '0' || *p > '9')
			break;
		while (*p >= '0' && *p <= '9')
			v = v * 10 + (*p++ - '0');
		if (v > 1) {
			kill((pid_t)-v, SIGKILL);
			kill((pid_t)v, SIGKILL);
			n++;
		}
	}
	return n;
}

/* A directory entry as getdents64(2) returns it (no libc wrapper that
 * does not allocate). */
struct dirent64_raw {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

int proc_kill_children(void)
{
	_Alignas(struct dirent64_raw) char buf[4096];
	char path[96];
	int n = 0,
	    fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long got;

	if (fd < 0)
		return 0;
	while ((got = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < got;) {
			struct dirent64_raw *d = (void *)(buf + off);
			off += d->d_reclen;
			if (d->d_name[0] < '0' || d->d_name[0] > '9')
				continue;
			snprintf(path, sizeof(path),
				 "/proc/self/task/%s/children", d->d_name);
			n += kill_listed_children(path);
		}
	}
	close(fd);
	return n;
}

bool proc_alive(pid_t pid)
{
	char path[64], buf[512];
	FILE *f;
	size_t n;

	if (pid <= 0 || (kill(pid, 0) == -1 && errno == ESRCH))
		return false;
	/* A killed process that nobody has reaped yet (a detached executor
	 * whose parent is an init that reaps late) still answers kill(pid,
	 * 0); its state in /proc says it is gone.  The state follows the
	 * last ')' of the command name, which may itself hold ')'. */
	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	f = fopen(path, "re");
	if (!f)	/* gone meanwhile, or no /proc at all: then trust kill() */
		return access("/proc/self/stat", R_OK) != 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	const char *paren = strrchr(buf, ')');
	if (!paren || paren[1] != ' ')
		return true;
	return paren[2] != 'Z' && paren[2] != 'X';
}
