/*
 * pyzygote.c - the Python runner's zygote, the controller's side
 * (docs/python.md): one trusted process per controller that has imported
 * torch and Triton and starts Python runners as copies of itself, so that
 * a runner starts in milliseconds instead of the seconds an import of
 * torch takes (5.6 s with a CUDA context on the H200).
 *
 * The zygote (engine/runner/python/zygote.py) makes each runner with
 * clone(CLONE_PARENT): the runner is this process's child, exactly as if
 * runner_launch() had forked it, so everything the controller does with a
 * runner - waiting, stopping, CPU accounting, the thread census, the
 * group kill - works unchanged.  What the fork's child does before exec
 * (process group, parent-death signal, descriptors, limits, environment)
 * the zygote's child does before it runs the runner.
 *
 * Parenthood: a runner's parent is the zygote's parent, and the kernel
 * ties a child's parent-death signal to the parent *thread*.  The zygote
 * is therefore forked by a thread of its own that lives as long as the
 * process (zygote_thread), never by an evaluation's thread, which may
 * end while the zygote's runners are still in use.
 *
 * One zygote per controller process, started at the first request for a
 * Python runner (pyzygote_prestart at the start of an evaluation with
 * Python roles, so that its import overlaps the build); requests are
 * serialised by a mutex.  A zygote that died is started again once per
 * request; when it cannot start, the runner is forked and exec'd as
 * before (slower, same checks).  $ARENA_PY_ZYGOTE=0 turns it off.
 */
#include "evaluation.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena/fd_pass.h"
#include "arena/paths.h"

#define ZYGOTE_START_MS 180000 /* importing torch on a loaded machine */
#define ZYGOTE_REPLY_MS 30000

static pthread_mutex_t zy_mu = PTHREAD_MUTEX_INITIALIZER;
static pid_t zy_pid; /* 0: none running */
static int zy_sock = -1;
static char zy_buf[512];
static size_t zy_len;

/* The thread that forks the zygote, for the life of the process. */
static pthread_once_t thr_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t thr_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t thr_cv = PTHREAD_COND_INITIALIZER;
static bool thr_want, thr_done, thr_ok;
static int thr_sock;
static pid_t thr_pid;

bool pyzygote_enabled(void)
{
	const char *e = getenv("ARENA_PY_ZYGOTE");

	return !(e && !strcmp(e, "0"));
}

/* Forks and execs the zygote with its channel on fd 3; the child end is
 * closed here.  Runs on zygote_thread. */
static pid_t fork_zygote(int *sock_out)
{
	int sv[2];
	char *script = path_join(paths_py_dir(), "arena_runner_py.py");
	const char *python = paths_python();
	char *argv[] = { (char *)python, (char *)"-B",	     (char *)"-E",
			 script,	 (char *)"--zygote", NULL };
	struct strvec env = STRVEC_INIT;
	pid_t parent = getpid(), pid;

	runner_env_for(&env, true);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		free(script);
		strvec_release(&env);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		/* Async-signal-safe calls only until exec. */
		int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (getppid() != parent || devnull < 0)
			_exit(127);
		sigset_t all;
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		int s = fcntl(sv[1], F_DUPFD, 10);
		if (s < 0 || dup2(devnull, 0) < 0 || dup2(devnull, 1) < 0 ||
		    dup2(devnull, 2) < 0 || dup2(s, 3) < 0)
			_exit(127);
		execve(python, argv, env.v);
		_exit(127);
	}
	close(sv[1]);
	free(script);
	strvec_release(&env);
	if (pid < 0) {
		close(sv[0]);
		return -1;
	}
	*sock_out = sv[0];
	return pid;
}

static void *zygote_thread(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&thr_mu);
	for (;;) {
		while (!thr_want)
			pthread_cond_wait(&thr_cv, &thr_mu);
		thr_want = false;
		thr_pid = fork_zygote(&thr_sock);
		thr_ok = thr_pid > 0;
		thr_done = true;
		pthread_cond_broadcast(&thr_cv);
	}
	return NULL;
}

static void thread_init(void)
{
	pthread_t t;
	pthread_attr_t a;

	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &a, zygote_thread, NULL) != 0)
		thr_ok = false;
	pthread_attr_destroy(&a);
}

/* Reads one line from the zygote within ms; 0 with it in line, -1 when
 * the zygote is gone or silent. */
static int read_line(char *line, size_t n, int ms)
{
	uint64_t end = now_ns() + (uint64_t)ms * 1000000ull;

	for (;;) {
		char *nl = memchr(zy_buf, '\n', zy_len);
		if (nl) {
			size_t k = (size_t)(nl - zy_buf);
			snprintf(line, n, "%.*s", (int)k, zy_buf);
			memmove(zy_buf, nl + 1, zy_len - k - 1);
			zy_len -= k + 1;
			return 0;
		}
		int64_t left = (int64_t)(end - now_ns());
		if (left <= 0 || zy_len >= sizeof(zy_buf))
			return -1;
		struct pollfd p = { .fd = zy_sock, .events = POLLIN };
		int pr = poll(&p, 1, (int)(left / 1000000 + 1));
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			return -1;
		ssize_t r = recv(zy_sock, zy_buf + zy_len,
				 sizeof(zy_buf) - zy_len, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		zy_len += (size_t)r;
	}
}

/* Ends the zygote we have (if any).  With zy_mu held. */
static void zygote_drop(void)
{
	if (zy_sock >= 0)
		close(zy_sock);
	zy_sock = -1;
	zy_len = 0;
	if (zy_pid > 0) {
		int st;
		kill(-zy_pid, SIGKILL);
		while (waitpid(zy_pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	zy_pid = 0;
}

/* A running zygote, started when there is none.  With zy_mu held; 0 or
 * -1 with why. */
static int zygote_ensure(char *why, size_t n)
{
	char line[128];
	long hp = 0;

	if (zy_pid > 0) {
		int st;
		if (waitpid(zy_pid, &st, WNOHANG) == 0)
			return 0;
		zy_pid = 0; /* reaped */
		zygote_drop();
	}
	pthread_once(&thr_once, thread_init);
	pthread_mutex_lock(&thr_mu);
	thr_done = false;
	thr_want = true;
	pthread_cond_broadcast(&thr_cv);
	while (!thr_done)
		pthread_cond_wait(&thr_cv, &thr_mu);
	bool ok = thr_ok;
	zy_pid = ok ? thr_pid : 0;
	zy_sock = ok ? thr_sock : -1;
	pthread_mutex_unlock(&thr_mu);
	if (!ok) {
		snprintf(why, n, "could not start the zygote: %s",
			 strerror(errno));
		return -1;
	}
	if (read_line(line, sizeof(line), ZYGOTE_START_MS) != 0 ||
	    sscanf(line, "zygote %ld", &hp) != 1 || hp != (long)zy_pid) {
		snprintf(why, n,
			 "the zygote (%s %s/arena_runner_py.py "
			 "--zygote) did not start",
			 paths_python(), paths_py_dir());
		zygote_drop();
		return -1;
	}
	return 0;
}

void pyzygote_prestart(void)
{
	char why[256];

	if (!pyzygote_enabled())
		return;
	pthread_mutex_lock(&zy_mu);
	(void)zygote_ensure(why, sizeof(why));
	pthread_mutex_unlock(&zy_mu);
}

static void *prestart_thread(void *arg)
{
	(void)arg;
	pyzygote_prestart();
	return NULL;
}

void pyzygote_prestart_async(void)
{
	pthread_t t;
	pthread_attr_t a;

	if (!pyzygote_enabled())
		return;
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &a, prestart_thread, NULL) != 0)
		pyzygote_prestart();
	pthread_attr_destroy(&a);
}

static void json_str(struct strbuf *b, const char *s)
{
	strbuf_addch(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			strbuf_addf(b, "\\%c", c);
		else if (c < 0x20)
			strbuf_addf(b, "\\u%04x", c);
		else
			strbuf_addch(b, (char)c);
	}
	strbuf_addch(b, '"');
}

/* One request and its reply; with zy_mu held.  The pid, or -1. */
static pid_t zygote_request(const char *req, const int fds[5], char *why,
			    size_t n)
{
	size_t len = strlen(req);
	char line[512];
	long pid = 0;

	if (fd_pass_send(zy_sock, req, len, fds, 5) != (ssize_t)len) {
		snprintf(why, n, "the zygote is gone");
		return -1;
	}
	if (read_line(line, sizeof(line), ZYGOTE_REPLY_MS) != 0) {
		snprintf(why, n, "the zygote did not answer");
		return -1;
	}
	if (sscanf(line, "pid %ld", &pid) == 1 && pid > 0)
		return (pid_t)pid;
	snprintf(why, n, "the zygote refused: %.300s", line);
	return 0;
}

pid_t pyzygote_spawn(char *const argv[], char *const envp[], const int fds[5],
		     int cpu_s, uint64_t as_bytes, char *why, size_t n)
{
	struct strbuf req = STRBUF_INIT;
	pid_t pid = -1;

	strbuf_addstr(&req, "{\"argv\": [");
	for (int i = 0; argv[i]; i++) {
		if (i)
			strbuf_addstr(&req, ", ");
		json_str(&req, argv[i]);
	}
	strbuf_addstr(&req, "], \"env\": [");
	for (int i = 0; envp[i]; i++) {
		if (i)
			strbuf_addstr(&req, ", ");
		json_str(&req, envp[i]);
	}
	strbuf_addf(&req,
		    "], \"ppid\": %ld, \"cpu_s\": %d, \"as_bytes\": %llu}\n",
		    (long)getpid(), cpu_s, (unsigned long long)as_bytes);
	pthread_mutex_lock(&zy_mu);
	/* A zygote that died since the last request is started again,
	 * once. */
	for (int attempt = 0; attempt < 2 && pid < 0; attempt++) {
		if (zygote_ensure(why, n) != 0)
			break;
		pid = zygote_request(req.buf, fds, why, n);
		if (pid < 0)
			zygote_drop();
	}
	pthread_mutex_unlock(&zy_mu);
	strbuf_release(&req);
	return pid > 0 ? pid : -1;
}
