/*
 * contain.c - the holder of an agent's processes (contain.h).
 *
 * Everything here after the fork runs in the child of a threaded process:
 * system calls, stack buffers and _exit only.  The agent is started with
 * a raw clone() rather than fork(), which would run the C library's fork
 * handlers and take its locks (held, perhaps, by threads that do not
 * exist in this child).
 */
#include "contain.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t raw_fork(unsigned long flags)
{
	return (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL,
			      NULL);
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t len = (ssize_t)strlen(s);

	if (fd < 0)
		return -1;
	ssize_t n = write(fd, s, (size_t)len);
	close(fd);
	return n == len ? 0 : -1;
}

static int write_maps(const struct contain_prep *cp)
{
	return write_file("/proc/self/setgroups", "deny") != 0 ||
			       write_file("/proc/self/uid_map", cp->uid_map) !=
				       0 ||
			       write_file("/proc/self/gid_map", cp->gid_map) !=
				       0
		       ? -1
		       : 0;
}

/* Whether a holder can be pid 1 of its own namespace here: the clone may
 * be allowed and the user namespace's maps still refused (an AppArmor
 * policy on unprivileged user namespaces), so both are tried once per
 * process. */
static pthread_once_t ns_once = PTHREAD_ONCE_INIT;
static bool ns_works;

static void ns_probe(void)
{
	struct contain_prep cp;
	int st = 0;

	memset(&cp, 0, sizeof(cp));
	cp.userns = geteuid() != 0;
	snprintf(cp.uid_map, sizeof(cp.uid_map), "%u %u 1\n",
		 (unsigned)geteuid(), (unsigned)geteuid());
	snprintf(cp.gid_map, sizeof(cp.gid_map), "%u %u 1\n",
		 (unsigned)getegid(), (unsigned)getegid());
	pid_t pid = raw_fork(CLONE_NEWPID | (cp.userns ? CLONE_NEWUSER : 0));
	if (pid == 0)
		_exit(cp.userns && write_maps(&cp) != 0 ? 1 : 0);
	if (pid < 0)
		return;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	ns_works = WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

void contain_prepare(struct contain_prep *cp)
{
	const char *mode = getenv("ARENA_CONTAIN");

	memset(cp, 0, sizeof(*cp));
	cp->userns = geteuid() != 0;
	pthread_once(&ns_once, ns_probe);
	/* ARENA_CONTAIN=subreaper: the fallback, on purpose (tests). */
	cp->no_ns = !ns_works || (mode && !strcmp(mode, "subreaper"));
	snprintf(cp->uid_map, sizeof(cp->uid_map), "%u %u 1\n",
		 (unsigned)geteuid(), (unsigned)geteuid());
	snprintf(cp->gid_map, sizeof(cp->gid_map), "%u %u 1\n",
		 (unsigned)getegid(), (unsigned)getegid());
}

pid_t contain_fork(const struct contain_prep *cp, bool *in_ns)
{
	pid_t pid = cp->no_ns ? -1
			      : raw_fork(CLONE_NEWPID |
					 (cp->userns ? CLONE_NEWUSER : 0));

	if (pid >= 0) {
		*in_ns = true;
		return pid;
	}
	*in_ns = false;
	return fork();
}

static volatile sig_atomic_t stop_now, term_now;

static void on_usr1(int sig)
{
	(void)sig;
	stop_now = 1;
}

static void on_term(int sig)
{
	(void)sig;
	term_now = 1;
}

void contain_run(const struct contain_prep *cp, bool in_ns, int report_fd,
		 char *const argv[], char *const envp[],
		 const struct proc_limits *limits)
{
	struct contain_report rep = { .status = 0, .leftovers = 0 };
	struct sigaction sa;
	sigset_t none;
	pid_t agent, w;
	int st;

	if (in_ns && cp->userns && write_maps(cp) != 0) {
		dprintf(2, "arena: cannot map the user namespace of the "
			   "agent's holder\n");
		_exit(127);
	}
	if (!in_ns)
		prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	agent = raw_fork(0);
	if (agent == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigaction(SIGUSR1, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		close(report_fd);
		proc_child_limits(limits);
		execvpe(argv[0], argv, envp);
		dprintf(2, "arena: cannot run %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	if (agent < 0) {
		rep.status = 127 << 8;
		(void)!write(report_fd, &rep, sizeof(rep));
		_exit(0);
	}
	/* Wait for the agent, reaping the orphans that come to us
	 * meanwhile; pass on a SIGTERM, act on SIGUSR1. */
	for (;;) {
		w = waitpid(-1, &st, 0);
		if (w == agent) {
			rep.status = st;
			break;
		}
		if (w < 0 && errno == ECHILD)
			break;
		if (term_now) {
			term_now = 0;
			kill(-agent, SIGTERM);
			kill(agent, SIGTERM);
		}
		if (stop_now) {
			kill(-agent, SIGKILL);
			kill(agent, SIGKILL);
		}
	}
	/* The sweep: nothing the agent started may run on. */
	if (in_ns)
		kill(-1, SIGKILL);
	for (;;) {
		if (!in_ns)
			proc_kill_children();
		w = waitpid(-1, &st, 0);
		if (w > 0) {
			rep.leftovers++;
			continue;
		}
		if (errno == EINTR)
			continue;
		break; /* ECHILD: alone */
	}
	(void)!write(report_fd, &rep, sizeof(rep));
	_exit(0);
}
