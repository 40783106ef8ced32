/*
 * fsv_spawn.c - the processes the daemon starts: run executors (detached,
 * so that runs keep going when the daemon dies) and evaluation workers
 * (children, so that an interrupted reader can stop its evaluation).
 *
 * Both run this same binary (/proc/self/exe) with the store and task root
 * the daemon uses, so a run launched through the mount executes exactly
 * as `arena resume RUN` would.  Between fork and exec the child only makes
 * async-signal-safe calls (the daemon is multithreaded): everything it
 * needs (argv, environment, paths) is prepared before the fork.  Every
 * descriptor above 2, /dev/fuse included, is closed at exec; signal
 * dispositions, the mask and the umask are reset to ordinary values.
 *
 * An executor is detached by a double fork and setsid(): its parent exits
 * at once, so it is reparented to init and belongs to no session of the
 * daemon.  A close-on-exec pipe carries two kinds of record back to the
 * daemon: the executor's pid (from its parent) and an exec failure (from
 * the executor); EOF means the exec happened.
 */
#include "fsv.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define SELF_EXE "/proc/self/exe"

void fsv_spawn_init(struct fsv *fs)
{
	char buf[PATH_MAX];
	ssize_t n = readlink(SELF_EXE, buf, sizeof(buf) - 1);
	size_t count = 0, k = 0;

	buf[n > 0 ? n : 0] = '\0';
	fs->exe = xstrdup(n > 0 ? buf : "arena");
	for (char **e = environ; *e; e++)
		count++;
	fs->envp = xcalloc(count + 2, sizeof(char *));
	for (char **e = environ; *e; e++)
		if (!str_starts_with(*e, "ARENA_MOUNT="))
			fs->envp[k++] = xstrdup(*e);
	fs->envp[k++] = xasprintf("ARENA_MOUNT=%s", fs->mountpoint);
	fs->envp[k] = NULL;
}

void fsv_spawn_release(struct fsv *fs)
{
	for (char **e = fs->envp; e && *e; e++)
		free(*e);
	free(fs->envp);
	free(fs->exe);
	fs->envp = NULL;
	fs->exe = NULL;
}

/* In the child, before exec: ordinary signals, mask and umask, and every
 * inherited descriptor above 2 closed at exec. */
static void child_reset(void)
{
	struct sigaction sa;
	sigset_t none;
	static const int sigs[] = { SIGPIPE, SIGINT, SIGTERM, SIGHUP };

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	umask(022);
	if (chdir("/") != 0)
		_exit(126);
	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
		for (int fd = 3; fd < 4096; fd++)
			fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/* What the executor's side reports on the pipe (one write each, smaller
 * than PIPE_BUF, so records never interleave). */
struct spawn_note {
	int kind;		/* NOTE_PID or NOTE_ERRNO */
	int value;
};
enum { NOTE_PID = 1, NOTE_ERRNO = 2 };

static void child_fail(int pipe_fd)
{
	struct spawn_note n = { NOTE_ERRNO, errno };

	if (write(pipe_fd, &n, sizeof(n)) < 0)
		_exit(127);
	_exit(127);
}

/* The grandchild: stdin from /dev/null, stdout and stderr appended to
 * log_path, then exec. */
static void exec_detached(const char *log_path, char *const argv[],
			  char *const envp[], int pipe_fd)
{
	int null_fd = open("/dev/null", O_RDONLY);
	int log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);

	if (null_fd < 0 || log_fd < 0)
		child_fail(pipe_fd);
	if (dup2(null_fd, 0) < 0 || dup2(log_fd, 1) < 0 || dup2(log_fd, 2) < 0)
		child_fail(pipe_fd);
	child_reset();
	execve(SELF_EXE, argv, envp);
	child_fail(pipe_fd);
}

int fsv_spawn_executor(struct fsv *fs, const char *run_id, bool waiter,
		       pid_t *pid_out, struct errbuf *err)
{
	char *run_dir = xasprintf("%s/runs/%s", fs->store_dir, run_id);
	char *logs = path_join(run_dir, "logs");
	char *log_path = path_join(logs, "executor.log");
	char *argv[10];
	int k = 0, pipe_fds[2], rc = 0, e = 0, status;
	pid_t pid, executor = 0;

	rc = mkdir_p(logs, err);
	if (rc)
		goto out;
	argv[k++] = fs->exe;
	argv[k++] = (char *)"--store";
	argv[k++] = fs->store_dir;
	argv[k++] = (char *)"--tasks-dir";
	argv[k++] = fs->tasks_dir;
	if (waiter) {
		argv[k++] = (char *)"mount";
		argv[k++] = (char *)"--resume-waiter";
	} else {
		argv[k++] = (char *)"resume";
	}
	argv[k++] = (char *)run_id;
	argv[k] = NULL;
	if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
		rc = errf_code(err, errno, "cannot create a pipe: %s",
			       strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid == 0) {
		setsid();
		pid_t inner = fork();
		if (inner < 0)
			child_fail(pipe_fds[1]);
		if (inner > 0) {
			struct spawn_note n = { NOTE_PID, (int)inner };
			_exit(write(pipe_fds[1], &n, sizeof(n)) < 0);
		}
		exec_detached(log_path, argv, fs->envp, pipe_fds[1]);
	}
	close(pipe_fds[1]);
	if (pid < 0) {
		e = errno;
	} else {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		struct spawn_note n;
		ssize_t r;
		/* Until EOF: the executor's pid, and an exec failure if any
		 * (EOF without one: the exec happened). */
		for (;;) {
			while ((r = read(pipe_fds[0], &n, sizeof(n))) < 0 &&
			       errno == EINTR)
				;
			if (r != (ssize_t)sizeof(n))
				break;
			if (n.kind == NOTE_PID)
				executor = (pid_t)n.value;
			else if (n.kind == NOTE_ERRNO)
				e = n.value;
		}
	}
	close(pipe_fds[0]);
	if (!e && pid_out)
		*pid_out = executor;
	if (e)
		rc = errf_code(err, e, "cannot start an executor for run %s "
			       "(%s); write 'resume' to runs/%s/control to try "
			       "again", run_id, strerror(e), run_id);
out:
	free(log_path);
	free(logs);
	free(run_dir);
	return rc;
}

int fsv_spawn_worker(struct fsv *fs, const char *run_id, const char *dirname,
		     pid_t *pid_out, int *out_fd, struct errbuf *err)
{
	char *argv[] = {
		fs->exe, (char *)"--store", fs->store_dir,
		(char *)"--tasks-dir", fs->tasks_dir, (char *)"mount",
		(char *)"--eval-worker", (char *)run_id, (char *)dirname, NULL,
	};
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return errf_code(err, errno, "cannot create a pipe: %s",
				 strerror(errno));
	pid = fork();
	if (pid == 0) {
		/* Its own process group, so that cancelling kills the
		 * compilers and runners it started too. */
		setpgid(0, 0);
		int null_fd = open("/dev/null", O_RDONLY);
		if (null_fd < 0 || dup2(null_fd, 0) < 0 || dup2(fds[1], 1) < 0)
			_exit(126);
		child_reset();
		execve(SELF_EXE, argv, fs->envp);
		_exit(127);
	}
	close(fds[1]);
	if (pid < 0) {
		int e = errno;
		close(fds[0]);
		return errf_code(err, e, "cannot start an evaluation: %s",
				 strerror(e));
	}
	setpgid(pid, pid);	/* whichever of the two runs first */
	*pid_out = pid;
	*out_fd = fds[0];
	return 0;
}

char *fsv_workspace_view(void *mountpoint, const char *run_id,
			 const char *task_dirname)
{
	char *ws = xasprintf("%s/runs/%s/tasks/%s/workspace",
			     (const char *)mountpoint, run_id, task_dirname);

	if (dir_exists(ws))
		return ws;
	free(ws);
	return NULL;
}
