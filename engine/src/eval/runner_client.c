/*
 * runner_client.c - the controller's side of the runner protocol
 * (arena/runner_proto.h): starting arena-runner with its control socket
 * and sealed shared memory, waiting for its hello, loading its kernel,
 * killing and reaping it.  The requests and replies (one request / one
 * reply with a deadline, stopping and resuming it, counting its threads)
 * are runner_requests.c; runner_client.h is what the two share.
 *
 * Invariants:
 *   - a runner is in its own process group (pgid = pid) and dies with the
 *     thread that started it (PR_SET_PDEATHSIG), so no path - not even the
 *     controller being killed - leaves one running;
 *   - between requests a runner is SIGSTOPped, and the controller looks at
 *     its shared memory only then: a kernel cannot keep computing (or
 *     un-computing) while its outputs are read, nor run while another
 *     runner is timed;
 *   - before every request the channel must be empty and after every reply
 *     nothing may follow it: any extra byte (a forged line, a second reply)
 *     is a protocol violation;
 *   - the shared memory is a memfd sealed against growing and shrinking, so
 *     a runner cannot truncate it under the controller (which would turn
 *     the controller's next access into SIGBUS).
 *   - every request is charged: the runner's CPU time as the kernel
 *     accounts it (clock_getcpuclockid) is read while it is stopped,
 *     before the SIGCONT that resumes it for the request and after it is
 *     seen stopped again (r->cpu_ns), so whatever the process did while
 *     resumed - a signal handler, a hooked read, the call, the reply - is
 *     counted, and nothing else can run in it meanwhile; so is the time
 *     it waited for a CPU (/proc/<pid>/schedstat, r->delay_ns);
 *   - a host runner has no device: a device-error reply from it is a
 *     protocol violation, never an infrastructure error.
 * A runner's replies are claims; callers check what they can (times
 * against their own clock and the CPU accounting, outputs against the
 * reference).
 */
#include "runner_client.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct runner *runner_new(void)
{
	struct runner *r = xcalloc(1, sizeof(*r));

	r->sock = -1;
	r->schedstat_fd = -1;
	r->shm_fd = -1;
	r->passed_fd = -1;
	return r;
}

void rcl_sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/* Describes a wait status as a clause: "was killed by signal 11
 * (Segmentation fault)", "called exit(3)". */
static void describe_status(int st, char *buf, size_t n)
{
	if (WIFEXITED(st)) {
		if (WEXITSTATUS(st) == RP_EXIT_CHANNEL)
			snprintf(buf, n, "broke its control channel (fd %d) "
				 "and exited", RP_FD_CONTROL);
		else
			snprintf(buf, n, "called exit(%d)", WEXITSTATUS(st));
	} else if (WIFSIGNALED(st)) {
		int s = WTERMSIG(st);
		const char *why = "";
		if (s == SIGKILL)
			why = " - out of memory?";
		else if (s == SIGXCPU)
			why = " - CPU time limit";
		else if (s == SIGXFSZ)
			why = " - wrote more output than the log limit";
		else if (s == SIGSYS)
			why = " - a forbidden system call (creating threads or "
			      "processes, tracing or signalling other "
			      "processes)";
		snprintf(buf, n, "was killed by signal %d (%s)%s", s,
			 strsignal(s), why);
	} else {
		snprintf(buf, n, "ended with wait status %d", st);
	}
}

enum runner_fail rcl_fail_from_status(struct runner *r)
{
	describe_status(r->status, r->why, sizeof(r->why));
	if (WIFSIGNALED(r->status) && WTERMSIG(r->status) == SIGSYS)
		return RUNNER_FORBIDDEN;
	if (WIFEXITED(r->status) && WEXITSTATUS(r->status) == RP_EXIT_CHANNEL)
		return RUNNER_PROTOCOL;
	return RUNNER_DIED;
}

/* Kills the whole group.  Only called while the leader is unreaped: its
 * zombie keeps the group id from being reused. */
void rcl_kill_group(struct runner *r)
{
	if (r->pid > 0 && !r->reaped) {
		kill(-r->pid, SIGKILL);
		kill(r->pid, SIGKILL);
	}
}

/* Kills what is left of the group, then waits for the leader. */
void rcl_reap_blocking(struct runner *r)
{
	int st = 0;

	if (r->pid <= 0 || r->reaped)
		return;
	kill(-r->pid, SIGKILL);
	while (waitpid(r->pid, &st, 0) < 0) {
		if (errno != EINTR) {
			st = 0;
			break;
		}
	}
	r->status = st;
	r->reaped = true;
}

/* Looks at the runner without blocking: 1 when it has ended (now reaped,
 * status kept), 2 when it is stopped (the stop event consumed), 0 when
 * neither, -1 on error. */
int rcl_poll_child(struct runner *r, bool want_stop)
{
	siginfo_t si;
	int st;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)r->pid, &si,
		   WEXITED | WNOHANG | WNOWAIT | (want_stop ? WSTOPPED : 0)) !=
	    0)
		return errno == EINTR ? 0 : -1;
	if (si.si_pid == 0)
		return 0;
	if (si.si_code == CLD_STOPPED) {
		waitpid(r->pid, &st, WUNTRACED | WNOHANG);
		return 2;
	}
	/* Ended: the zombie still holds the group id, so the group kill
	 * cannot hit a stranger. */
	kill(-r->pid, SIGKILL);
	while (waitpid(r->pid, &st, 0) < 0 && errno == EINTR)
		;
	r->status = st;
	r->reaped = true;
	return 1;
}

enum runner_fail rcl_timeout_kill(struct runner *r, const char *what)
{
	rcl_kill_group(r);
	rcl_reap_blocking(r);
	snprintf(r->why, sizeof(r->why), "did not %s within %.3g s", what,
		 r->timeout_ms / 1000.0);
	return RUNNER_TIMEOUT;
}

/* The channel hit EOF: the runner exited, or closed fd 3 and went on. */
enum runner_fail rcl_after_eof(struct runner *r)
{
	uint64_t end = now_ns() + 2000000000ull;

	while (!r->reaped) {
		int c = rcl_poll_child(r, false);
		if (c == 1)
			break;
		if (c < 0 || now_ns() > end) {
			rcl_kill_group(r);
			rcl_reap_blocking(r);
			snprintf(r->why, sizeof(r->why),
				 "closed its control channel (fd %d) but kept "
				 "running", RP_FD_CONTROL);
			return RUNNER_PROTOCOL;
		}
		rcl_sleep_us(200);
	}
	return rcl_fail_from_status(r);
}

enum runner_fail rcl_protocol(struct runner *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	rcl_kill_group(r);
	rcl_reap_blocking(r);
	return RUNNER_PROTOCOL;
}

/* Quotes at most 60 bytes of s for a message, unprintables as '?'. */
void rcl_quote(const char *s, size_t len, char *out, size_t n)
{
	size_t j = 0, max = len < 60 ? len : 60;

	for (size_t i = 0; i < max && j + 2 < n; i++) {
		if (s[i] == '\n' && i + 1 == len)
			break;	/* a final newline is not worth showing */
		out[j++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	}
	if (len > max && j + 4 < n) {
		memcpy(out + j, "...", 3);
		j += 3;
	}
	out[j] = '\0';
}

/* ---- start-up --------------------------------------------------------- */

/* $ARENA_RUNNER_SPIN, for tests and measurements: "0" neither side
 * polls, "1" both, "runners" or "controller" that side alone.  Unset (or
 * anything else): the runners alone, where ev_cpus_to_spare().  On an
 * H100 (2026-12-06, docs/gpu.md "Nobody sleeps inside a span") the
 * runners' polling narrowed the `time` request's excess as much as both
 * sides' did, and only with the controller polling too did `gen`'s
 * spread blow up (4 of 8 timings against 0 of 12 in the other modes). */
static bool spin_side(const char *side)
{
	const char *force = getenv("ARENA_RUNNER_SPIN");

	if (force && (!strcmp(force, "0") || !strcmp(force, "1")))
		return *force == '1';
	if (force && (!strcmp(force, "runners") || !strcmp(force, "controller")))
		return !strcmp(force, side);
	return !strcmp(side, "runners") && ev_cpus_to_spare();
}

bool runner_may_spin(void)
{
	return spin_side("runners");
}

bool controller_may_spin(void)
{
	return spin_side("controller");
}

bool controller_spins_on_gate(void)
{
	const char *v = getenv("ARENA_GPU_GATE_SPIN");

	if (v && *v)
		return strcmp(v, "1") == 0;
	return ev_cpus_to_spare();
}

/* Environment for a runner: nothing of the controller's (API keys, seeds)
 * except sanitizer options. */
static void runner_env(struct strvec *env, bool gpu)
{
	const char *asan = getenv("ASAN_OPTIONS");
	const char *ubsan = getenv("UBSAN_OPTIONS");
	/* Device selection and where the driver's libraries live (and the
	 * test suite's fake device, gpu_rt_fake.h); nothing else of the
	 * controller's environment. */
	static const char *const gpu_pass[] = {
		"CUDA_VISIBLE_DEVICES",
		"HIP_VISIBLE_DEVICES",
		"ROCR_VISIBLE_DEVICES",
		"GPU_DEVICE_ORDINAL",
		"LD_LIBRARY_PATH",
		"ARENA_FAKE_GPU_DIR",
		"ARENA_FAKE_GPU_GEN_JITTER_US",
		"ARENA_FAKE_GPU_WAKE_JITTER_US",
		"ARENA_FAKE_GPU_NO_VMM",
		"ARENA_FAKE_GPU_NO_IMPORT",
		"ARENA_FAKE_GPU_NO_HOST_MAP",
		"ARENA_FAKE_GPU_GATE_EXPIRES",
		"ARENA_GPU_FLUSH_WARM",
		"ARENA_PY_LAUNCH_PROFILE",
	};

	strvec_push(env, "PATH=/usr/local/bin:/usr/bin:/bin");
	strvec_push(env, "LC_ALL=C");
	if (gpu) {
		for (size_t i = 0; i < ARRAY_SIZE(gpu_pass); i++) {
			const char *v = getenv(gpu_pass[i]);
			if (v)
				strvec_pushf(env, "%s=%s", gpu_pass[i], v);
		}
		/* The PTX JIT cache would be a file write, which Landlock
		 * refuses anyway. */
		strvec_push(env, "CUDA_CACHE_DISABLE=1");
		/* A kernel's module loads when its shared object does, not at
		 * its first launch: lazy loading waits for the device, and the
		 * ordering check holds the device's stream (gpu_gate.h). */
		strvec_push(env, "CUDA_MODULE_LOADING=EAGER");
		/* Requests awaited by polling (runner_io.h rio_set_spin). */
		if (runner_may_spin())
			strvec_pushf(env, "ARENA_RUNNER_SPIN_US=%d",
				     RUNNER_SPIN_US);
	}
	/* For sanitizer builds of the runner only (others ignore these): a
	 * kernel's crash must stay a signal the controller can name, and the
	 * leak checker's helper thread would trip the seccomp filter. */
	strvec_pushf(env, "ASAN_OPTIONS=%s%shandle_segv=0:handle_sigbus=0:"
		     "handle_sigfpe=0:handle_abort=0:detect_leaks=0:"
		     "intercept_memmem=0",
		     asan ? asan : "", asan && *asan ? ":" : "");
	if (ubsan)
		strvec_pushf(env, "UBSAN_OPTIONS=%s", ubsan);
}

void runner_env_for(struct strvec *env, bool gpu)
{
	runner_env(env, gpu);
}

static int move_high(int fd)
{
	return fd < 0 ? -1 : fcntl(fd, F_DUPFD, 10);
}

bool ev_gpu_runner_cpus(cpu_set_t *set)
{
	const char *v = getenv("ARENA_GPU_RUNNER_CPUS");

	return v && ev_cpu_list_parse(v, set) > 0;
}

/* Child side between fork and exec: async-signal-safe calls only. */
static void __attribute__((noreturn))
child_exec(pid_t parent, int sock, int memfd, int kfd, int devnull, int logfd,
	   const struct runner_spec *s, char *const argv[], char *const envp[])
{
	struct rlimit rl;
	sigset_t all;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	/* In a PID namespace of its own the parent is outside it and
	 * getppid() says 0: the check is for a plain fork only. */
	if (!s->confine && getppid() != parent)
		_exit(127);
	if (s->confine) {
		const char *what = "";
		int rc = confine_enter(s->confine, &what);
		if (rc) {
			/* System calls only: the step and the errno. */
			int fd = logfd >= 0 ? logfd : 2;
			char num[16];
			int k = (int)sizeof(num) - 1;
			num[k] = '\0';
			for (int v = -rc; k > 0 && (v || k == 15); v /= 10)
				num[--k] = (char)('0' + v % 10);
			(void)!write(
				fd,
				"arena-runner: cannot enter the sandbox: ", 40);
			(void)!write(fd, what, strlen(what));
			(void)!write(fd, ": errno ", 8);
			(void)!write(fd, num + k, strlen(num + k));
			(void)!write(fd, "\n", 1);
			_exit(CONFINE_EXIT_FAILED);
		}
	}
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	for (int sig = 1; sig < 32; sig++) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &sa, NULL);
	}
	sock = move_high(sock);
	memfd = move_high(memfd);
	kfd = move_high(kfd);
	devnull = move_high(devnull);
	logfd = move_high(logfd);
	if (sock < 0 || memfd < 0 || kfd < 0 || devnull < 0)
		_exit(127);
	if (logfd < 0)
		logfd = devnull;
	/* dup2 clears close-on-exec on the copies; the originals (all >= 10)
	 * keep it and vanish at exec. */
	if (dup2(devnull, 0) < 0 || dup2(logfd, 1) < 0 || dup2(logfd, 2) < 0 ||
	    dup2(sock, RP_FD_CONTROL) < 0 || dup2(memfd, RP_FD_SHM) < 0 ||
	    dup2(kfd, RP_FD_KERNEL) < 0)
		_exit(127);

	rl.rlim_cur = rl.rlim_max = 0;
	setrlimit(RLIMIT_CORE, &rl);
	/* A GPU runner lives through a whole evaluation and its driver may
	 * spin while it waits for the device. */
	rl.rlim_cur = s->gpu ? 7200 : 600;
	rl.rlim_max = rl.rlim_cur + 10;
	setrlimit(RLIMIT_CPU, &rl);
	/* What a runner may write to a file: its log.  Not the keeper's,
	 * which runs no candidate code and whose lent sets on the fake GPU
	 * are memfds, files the limit would cap (gpu_rt.h). */
	rl.rlim_cur = rl.rlim_max = 64ull << 20;
	if (strcmp(s->role, "keeper") != 0)
		setrlimit(RLIMIT_FSIZE, &rl);
	rl.rlim_cur = rl.rlim_max = 256;
	setrlimit(RLIMIT_NOFILE, &rl);
	if (s->as_limit) {
		rl.rlim_cur = rl.rlim_max = s->as_limit;
		setrlimit(RLIMIT_AS, &rl);
	}
	execve(argv[0], argv, envp);
	_exit(127);
}

/* The shared object, copied into a memfd sealed against every change. */
static int kernel_memfd(const char *path, char *why, size_t n)
{
	char *data = NULL;
	size_t len = 0;
	struct errbuf e;
	int fd;

	errbuf_init(&e);
	if (file_read_all(path, 1024u << 20, &data, &len, &e) != 0) {
		snprintf(why, n, "could not read the artifact: %s",
			 errbuf_str(&e));
		return -1;
	}
	fd = memfd_create("arena-kernel", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		snprintf(why, n, "memfd_create: %s", strerror(errno));
		free(data);
		return -1;
	}
	size_t off = 0;
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	free(data);
	if (off != len ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW |
					   F_SEAL_SEAL) != 0) {
		snprintf(why, n, "could not seal the kernel's copy: %s",
			 strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

enum runner_fail runner_launch(struct runner *r, const struct runner_spec *s)
{
	int sv[2] = { -1, -1 }, memfd = -1, devnull = -1, kfd = -1;
	struct strvec env = STRVEC_INIT;

	snprintf(r->role, sizeof(r->role), "%s", s->role);
	r->timeout_ms = s->timeout_ms > 0 ? s->timeout_ms : 10000;
	r->gpu = s->gpu;
	random_bytes(&r->seq, sizeof(r->seq));
	r->seq &= 0xffffffffffffull;	/* readable, still unguessable */

	memfd = memfd_create("arena-args", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (memfd < 0 || ftruncate(memfd, (off_t)s->shm_size) != 0 ||
	    fcntl(memfd, F_ADD_SEALS,
		  F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
		snprintf(r->why, sizeof(r->why),
			 "could not get %zu bytes of shared memory: %s",
			 s->shm_size, strerror(errno));
		goto sys_fail;
	}
	r->shm = mmap(NULL, s->shm_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      memfd, 0);
	if (r->shm == MAP_FAILED) {
		r->shm = NULL;
		snprintf(r->why, sizeof(r->why),
			 "could not map %zu bytes of shared memory: %s",
			 s->shm_size, strerror(errno));
		goto sys_fail;
	}
	r->shm_size = s->shm_size;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 ||
	    (devnull = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(r->why, sizeof(r->why), "could not set up: %s",
			 strerror(errno));
		goto sys_fail;
	}
	/* Deferred (no so_path): fd 5 is /dev/null until `load`. */
	r->deferred = !s->so_path;
	if (r->deferred)
		kfd = fcntl(devnull, F_DUPFD_CLOEXEC, 0);
	else
		kfd = kernel_memfd(s->so_path, r->why, sizeof(r->why));
	if (kfd < 0)
		goto sys_fail;

	/* A confined runner is the binary at its inside path; the Python
	 * runner (pre_args) is never confined this way (ev_launch: it has
	 * its own Landlock rules), nor started from the zygote when
	 * confined. */
	char *inside = s->confine ? confine_runner_inside(s->runner_path)
				  : NULL;
	struct strvec args = STRVEC_INIT;
	strvec_push(&args, inside ? inside : s->runner_path);
	for (size_t i = 0; s->pre_args && s->pre_args[i]; i++)
		strvec_push(&args, s->pre_args[i]);
	strvec_push(&args, r->deferred ? "-" : RP_KERNEL_PATH);
	strvec_push(&args, s->entry);
	if (s->device_arg)
		strvec_push(&args, s->device_arg);
	char threads[24];
	if (!s->gpu && s->threads > 1) {
		snprintf(threads, sizeof(threads), "threads=%d", s->threads);
		strvec_push(&args, threads);
	}
	char **argv = args.v;
	runner_env(&env, s->gpu);
	pid_t parent = getpid();
	pid_t pid = -1;
	if (s->zygote && !s->confine) {
		/* A copy of the Python runner's zygote, made this process's
		 * child (pyzygote.c); if there is none, fork as usual. */
		int fds[5] = { sv[1], memfd, kfd, devnull,
			       s->log_fd >= 0 ? s->log_fd : devnull };
		char zwhy[400];
		pid = pyzygote_spawn(argv + s->zygote_skip, env.v, fds,
				     s->gpu ? 7200 : 600, s->as_limit, zwhy,
				     sizeof(zwhy));
		if (pid < 0 && s->log_fd >= 0)
			dprintf(s->log_fd,
				"arena: %s; the runner is started "
				"without it\n",
				zwhy);
	}
	if (pid < 0)
		pid = s->confine ? confine_clone(s->confine) : fork();
	if (pid < 0) {
		snprintf(r->why, sizeof(r->why), "could not %s: %s",
			 s->confine ? "create its sandbox" : "fork",
			 strerror(errno));
		strvec_release(&args);
		free(inside);
		goto sys_fail;
	}
	if (pid == 0)
		child_exec(parent, sv[1], memfd, kfd, devnull, s->log_fd, s,
			   argv, env.v);
	free(inside);
	setpgid(pid, pid);
	cpu_set_t pin;
	if (s->gpu && ev_gpu_runner_cpus(&pin))
		(void)sched_setaffinity(pid, sizeof(pin), &pin);
	r->pid = pid;
	r->confined = s->confine != NULL;
	/* The kernel's accounting of the runner (runner_requests.c charges
	 * every request with it). */
	r->has_cpu_clock = clock_getcpuclockid(pid, &r->cpu_clock) == 0;
	{
		char sp[64];
		snprintf(sp, sizeof(sp), "/proc/%d/schedstat", (int)pid);
		r->schedstat_fd = open(sp, O_RDONLY | O_CLOEXEC);
	}
	r->sock = sv[0];
	snprintf(r->runner_path, sizeof(r->runner_path), "%s", s->runner_path);
	close(sv[1]);
	/* A runner's shared memory may be handed to the keeper, whose
	 * `take` writes a set there: a GPU timing runner's with its lent
	 * sets (gpu_sample.c), a host reference runner's for a reference
	 * check's inputs (refpool.c). */
	r->shm_fd = memfd;
	close(kfd);
	close(devnull);
	strvec_release(&env);
	strvec_release(&args);
	return RUNNER_OK;

sys_fail:
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	if (memfd >= 0)
		close(memfd);
	if (kfd >= 0)
		close(kfd);
	if (devnull >= 0)
		close(devnull);
	strvec_release(&env);
	return RUNNER_SYSTEM;
}

enum runner_fail runner_parse_hello(struct runner *r, const char *line)
{
	long hp = 0;
	char mode[64] = "";
	char extra;
	int off = 0;

	/* A GPU runner that cannot open its device says so instead of
	 * hello, still before any kernel code ran. */
	/* Its pid as it sees it: 1 in a PID namespace of its own. */
	long self = r->confined ? 1 : (long)r->pid;

	if (sscanf(line, "nodevice %ld %n", &hp, &off) == 1 && off > 0 &&
	    hp == self) {
		snprintf(r->why, sizeof(r->why),
			 "could not open its device: %.400s", line + off);
		rcl_kill_group(r);
		rcl_reap_blocking(r);
		return RUNNER_NODEVICE;
	}
	if (sscanf(line, "hello %ld %63s %c", &hp, mode, &extra) != 2 ||
	    hp != self) {
		char q[80];
		rcl_quote(line, strlen(line), q, sizeof(q));
		rcl_protocol(r, "did not greet as expected: \"%s\"", q);
		return RUNNER_SYSTEM;
	}
	r->sandboxed = strcmp(mode, "seccomp,landlock") == 0;
	return RUNNER_OK;
}

enum runner_fail runner_await(struct runner *r)
{
	enum runner_fail f;
	char *line = NULL;

	/* hello: written before the object is loaded; `ready` may follow
	 * in the same read. */
	if ((f = rcl_read_line_more(r, "start", &line, true)) != RUNNER_OK) {
		if (f == RUNNER_DIED && WIFEXITED(r->status) &&
		    WEXITSTATUS(r->status) == 127) {
			snprintf(r->why, sizeof(r->why),
				 "could not be started from %s", r->runner_path);
			return RUNNER_SYSTEM;
		}
		if (f == RUNNER_DIED && r->confined && WIFEXITED(r->status) &&
		    WEXITSTATUS(r->status) == CONFINE_EXIT_FAILED) {
			snprintf(r->why, sizeof(r->why),
				 "could not enter its "
				 "sandbox (its log says where it failed)");
			return RUNNER_SYSTEM;
		}
		return f;
	}
	if ((f = runner_parse_hello(r, line)) != RUNNER_OK)
		return f;
	if (r->deferred)
		return runner_pause(r);
	/* ready: after dlopen, i.e. after the kernel's constructors ran. */
	if ((f = rcl_read_line(r, "load the kernel", &line)) != RUNNER_OK)
		return f;
	if (strncmp(line, "error ", 6) == 0) {
		snprintf(r->why, sizeof(r->why), "%.480s", line + 6);
		rcl_kill_group(r);
		rcl_reap_blocking(r);
		return RUNNER_LOAD;
	}
	if (strcmp(line, "ready") != 0) {
		char q[80];
		rcl_quote(line, strlen(line), q, sizeof(q));
		return rcl_protocol(r, "sent \"%s\" instead of ready", q);
	}
	return runner_pause(r);
}

enum runner_fail runner_load(struct runner *r, const char *so_path)
{
	char *line = NULL, *req;
	enum runner_fail f;
	int kfd;

	if ((kfd = kernel_memfd(so_path, r->why, sizeof(r->why))) < 0)
		return RUNNER_SYSTEM;
	r->seq++;
	req = xasprintf("load %" PRIu64 "\n", r->seq);
	f = rcl_transact_fd(r, req, kfd, "load the kernel", &line, NULL);
	free(req);
	close(kfd);
	if (f != RUNNER_OK)
		return f;
	f = runner_parse_reply(r, line, 0, NULL);
	/* The runner's own words: "cannot load the shared object: ...". */
	if (f == RUNNER_REFUSED) {
		memmove(r->why, r->why + strlen("refused: "),
			strlen(r->why) - strlen("refused: ") + 1);
		rcl_kill_group(r);
		rcl_reap_blocking(r);
		return RUNNER_LOAD;
	}
	if (f == RUNNER_OK)
		r->deferred = false;
	return f;
}

void runner_kill(struct runner *r)
{
	if (r)
		rcl_kill_group(r);
}

void runner_destroy(struct runner *r)
{
	if (!r)
		return;
	if (r->pid > 0 && !r->reaped) {
		rcl_kill_group(r);
		rcl_reap_blocking(r);
	}
	if (r->sock >= 0)
		close(r->sock);
	if (r->schedstat_fd >= 0)
		close(r->schedstat_fd);
	if (r->shm_fd >= 0)
		close(r->shm_fd);
	if (r->passed_fd >= 0)
		close(r->passed_fd);
	if (r->shm)
		munmap(r->shm, r->shm_size);
	if (r->gate_page)
		munmap((void *)r->gate_page, RP_GATE_PAGE_BYTES);
	free(r);
}
