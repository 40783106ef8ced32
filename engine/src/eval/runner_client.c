/*
 * runner_client.c - the controller's side of the runner protocol
 * (engine/include/arena/runner_proto.h): starting arena-runner with its control
 * socket and sealed shared memory, one request / one reply with a
 * deadline, stopping and resuming it, counting its threads, killing it.
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
#include "eval_internal.h"

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
	return r;
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/* The runner's CPU time so far (user + system, every thread), in ns; -1
 * when the kernel will not say (the runner is gone). */
static int64_t cpu_now(const struct runner *r)
{
	struct timespec ts;

	if (!r->has_cpu_clock || clock_gettime(r->cpu_clock, &ts) != 0)
		return -1;
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* How long the runner has waited, runnable, for a CPU (the second field
 * of /proc/<pid>/schedstat, ns); -1 when the kernel keeps no such count.
 * On a loaded machine a call's own clock includes that wait and its CPU
 * time does not. */
static int64_t delay_now(const struct runner *r)
{
	char buf[128];
	unsigned long long run = 0, wait = 0;

	if (r->schedstat_fd < 0)
		return -1;
	ssize_t n = pread(r->schedstat_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu", &run, &wait) != 2 || run == 0)
		return -1;
	return (int64_t)wait;
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

static enum runner_fail fail_from_status(struct runner *r)
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
static void kill_group(struct runner *r)
{
	if (r->pid > 0 && !r->reaped) {
		kill(-r->pid, SIGKILL);
		kill(r->pid, SIGKILL);
	}
}

/* Kills what is left of the group, then waits for the leader. */
static void reap_blocking(struct runner *r)
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
static int poll_child(struct runner *r, bool want_stop)
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

static enum runner_fail timeout_kill(struct runner *r, const char *what)
{
	kill_group(r);
	reap_blocking(r);
	snprintf(r->why, sizeof(r->why), "did not %s within %.3g s", what,
		 r->timeout_ms / 1000.0);
	return RUNNER_TIMEOUT;
}

/* The channel hit EOF: the runner exited, or closed fd 3 and went on. */
static enum runner_fail after_eof(struct runner *r)
{
	uint64_t end = now_ns() + 2000000000ull;

	while (!r->reaped) {
		int c = poll_child(r, false);
		if (c == 1)
			break;
		if (c < 0 || now_ns() > end) {
			kill_group(r);
			reap_blocking(r);
			snprintf(r->why, sizeof(r->why),
				 "closed its control channel (fd %d) but kept "
				 "running", RP_FD_CONTROL);
			return RUNNER_PROTOCOL;
		}
		sleep_us(200);
	}
	return fail_from_status(r);
}

static enum runner_fail protocol(struct runner *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static enum runner_fail protocol(struct runner *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	kill_group(r);
	reap_blocking(r);
	return RUNNER_PROTOCOL;
}

/* Quotes at most 60 bytes of s for a message, unprintables as '?'. */
static void quote(const char *s, size_t len, char *out, size_t n)
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

int runner_take_line(struct runner *r, bool allow_more, char **line,
		     enum runner_fail *f)
{
	char *nl = memchr(r->buf, '\n', r->blen);

	if (nl) {
		size_t used = (size_t)(nl - r->buf) + 1;
		if (used != r->blen && !allow_more) {
			char q1[80], q2[80];
			quote(r->buf, used - 1, q1, sizeof(q1));
			quote(nl + 1, r->blen - used, q2, sizeof(q2));
			*f = protocol(r, "sent more than one line for one "
				      "request: \"%s\", then \"%s\"", q1, q2);
			return -1;
		}
		memcpy(r->line, r->buf, used - 1);
		r->line[used - 1] = '\0';
		memmove(r->buf, r->buf + used, r->blen - used);
		r->blen -= used;
		*line = r->line;
		return 1;
	}
	if (r->blen >= RP_MAX_LINE) {
		*f = protocol(r, "wrote a line longer than %d bytes",
			      RP_MAX_LINE);
		return -1;
	}
	return 0;
}

/* Reads one line with the runner's deadline; line points into r->line and
 * stays valid until the next read.  Any byte after the line is a
 * violation. */
static enum runner_fail read_line_more(struct runner *r, const char *what,
				       char **line, bool allow_more)
{
	uint64_t deadline = now_ns() + (uint64_t)r->timeout_ms * 1000000ull;
	enum runner_fail f = RUNNER_OK;

	for (;;) {
		int took = runner_take_line(r, allow_more, line, &f);
		if (took > 0)
			return RUNNER_OK;
		if (took < 0)
			return f;
		int64_t left = (int64_t)(deadline - now_ns());
		if (left <= 0)
			return timeout_kill(r, what);
		struct pollfd p = { .fd = r->sock, .events = POLLIN };
		int ms = (int)((left + 999999) / 1000000);
		int pr = poll(&p, 1, ms);
		if (pr < 0 && errno != EINTR)
			return protocol(r, "poll failed: %s", strerror(errno));
		if (pr <= 0)
			continue;
		ssize_t n = recv(r->sock, r->buf + r->blen,
				 RP_MAX_LINE - r->blen, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return after_eof(r);
		r->blen += (size_t)n;
	}
}

static enum runner_fail read_line(struct runner *r, const char *what,
				  char **line)
{
	return read_line_more(r, what, line, false);
}

/* The channel must be empty before a request. */
static enum runner_fail check_quiet(struct runner *r)
{
	char tmp[128];
	ssize_t n;

	if (r->blen) {
		char q[80];
		quote(r->buf, r->blen, q, sizeof(q));
		return protocol(r, "wrote unexpected data: \"%s\"", q);
	}
	n = recv(r->sock, tmp, sizeof(tmp), MSG_DONTWAIT | MSG_PEEK);
	if (n == 0)
		return after_eof(r);
	if (n > 0) {
		char q[80];
		quote(tmp, (size_t)n, q, sizeof(q));
		return protocol(r, "wrote unexpected data on its control "
				"channel: \"%s\"", q);
	}
	return RUNNER_OK;
}

static enum runner_fail resume(struct runner *r)
{
	if (r->stopped) {
		kill(-r->pid, SIGCONT);
		r->stopped = false;
	}
	return RUNNER_OK;
}

enum runner_fail runner_pause(struct runner *r)
{
	uint64_t deadline = now_ns() + 2000000000ull;
	int spins = 0;

	if (r->reaped)
		return fail_from_status(r);
	if (r->stopped)
		return RUNNER_OK;
	kill(-r->pid, SIGSTOP);
	for (;;) {
		int c = poll_child(r, true);
		if (c == 2) {
			r->stopped = true;
			return RUNNER_OK;
		}
		if (c == 1)
			return fail_from_status(r);
		if (c < 0) {
			snprintf(r->why, sizeof(r->why),
				 "could not be waited for: %s", strerror(errno));
			kill_group(r);
			reap_blocking(r);
			return RUNNER_SYSTEM;
		}
		if (now_ns() > deadline)
			return timeout_kill(r, "stop when told to");
		if (++spins < 50)
			sched_yield();
		else
			sleep_us(20);
	}
}

/* Sends req (with descriptor fd, or -1) as one sendmsg. */
static ssize_t send_req(int sock, const char *req, size_t len, int fd)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { (void *)req, len };
	struct msghdr m;

	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	if (fd >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		m.msg_control = ctl.b;
		m.msg_controllen = sizeof(ctl.b);
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(fd));
	}
	return sendmsg(sock, &m, MSG_NOSIGNAL);
}

/* Sends one request (with descriptor fd, or -1) and reads its one-line
 * reply; leaves the runner stopped. */
static enum runner_fail transact_fd(struct runner *r, const char *req,
				    int fd, const char *what, char **reply,
				    int64_t *wall_ns)
{
	enum runner_fail f;
	size_t len = strlen(req), off = 0;

	if (r->reaped)
		return fail_from_status(r);
	/* Read while it is still stopped: nothing it does from the SIGCONT
	 * on escapes the count. */
	int64_t cpu0 = cpu_now(r), delay0 = delay_now(r);
	r->cpu_ns = -1;
	r->delay_ns = -1;
	resume(r);
	if ((f = check_quiet(r)) != RUNNER_OK)
		return f;
	uint64_t t0 = now_ns();
	while (off < len) {
		/* The descriptor travels with the first byte. */
		ssize_t w = send_req(r->sock, req + off, len - off,
				     off == 0 ? fd : -1);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return after_eof(r);
		off += (size_t)w;
	}
	f = read_line(r, what, reply);
	if (wall_ns)
		*wall_ns = (int64_t)(now_ns() - t0);
	if (f != RUNNER_OK)
		return f;
	/* *reply (r->line) stays valid: pausing reads nothing. */
	if ((f = runner_pause(r)) != RUNNER_OK)
		return f;
	int64_t cpu1 = cpu_now(r), delay1 = delay_now(r);
	if (cpu0 >= 0 && cpu1 >= cpu0)
		r->cpu_ns = cpu1 - cpu0;
	if (delay0 >= 0 && delay1 >= delay0)
		r->delay_ns = delay1 - delay0;
	return RUNNER_OK;
}

static enum runner_fail transact(struct runner *r, const char *req,
				 const char *what, char **reply,
				 int64_t *wall_ns)
{
	return transact_fd(r, req, -1, what, reply, wall_ns);
}

enum runner_fail runner_parse_reply(struct runner *r, const char *line,
				    int nvals, int64_t *vals)
{
	char seq[32];
	const char *p = line;

	snprintf(seq, sizeof(seq), "%" PRIu64, r->seq);
	if (strncmp(p, "error ", 6) == 0) {
		p += 6;
		size_t sl = strlen(seq);
		if (strncmp(p, seq, sl) == 0 && p[sl] == ' ') {
			p += sl + 1;
			if (runner_parse_device_error(p, &r->dev_sticky,
						      r->dev_error,
						      sizeof(r->dev_error),
						      r->why, sizeof(r->why))) {
				if (r->gpu)
					return RUNNER_DEVICE;
				/* A host runner has no device to fail: the
				 * reply can only be forged. */
				char q[80];
				quote(line, strlen(line), q, sizeof(q));
				return protocol(r, "sent a device-error reply "
						"(\"%s\"), but a host runner has "
						"no device", q);
			}
			snprintf(r->why, sizeof(r->why), "refused: %.400s", p);
			return RUNNER_REFUSED;
		}
	}
	if (strncmp(p, "ok ", 3) != 0)
		goto bad;
	p += 3;
	size_t sl = strlen(seq);
	if (strncmp(p, seq, sl) != 0)
		goto bad;
	p += sl;
	for (int i = 0; i < nvals; i++) {
		char *end;
		if (*p != ' ')
			goto bad;
		p++;
		if (!(*p == '-' || (*p >= '0' && *p <= '9')))
			goto bad;
		errno = 0;
		long long v = strtoll(p, &end, 10);
		if (errno || end == p)
			goto bad;
		vals[i] = v;
		p = end;
	}
	if (*p != '\0')
		goto bad;
	return RUNNER_OK;
bad:;
	char q[80];
	quote(line, strlen(line), q, sizeof(q));
	return protocol(r, "sent a malformed reply: \"%s\"", q);
}

static enum runner_fail request(struct runner *r, const char *verb,
				const char *args, const char *what, int nvals,
				int64_t *vals, int64_t *wall_ns)
{
	char *line = NULL;
	enum runner_fail f;

	r->seq++;
	char *req = args ? xasprintf("%s %" PRIu64 " %s\n", verb, r->seq, args)
			 : xasprintf("%s %" PRIu64 "\n", verb, r->seq);
	f = transact(r, req, what, &line, wall_ns);
	free(req);
	if (f != RUNNER_OK)
		return f;
	return runner_parse_reply(r, line, nvals, vals);
}

enum runner_fail runner_layout(struct runner *r, const char *proto)
{
	return request(r, "layout", proto, "accept the layout", 0, NULL, NULL);
}

enum runner_fail runner_call(struct runner *r, int *rc)
{
	int64_t v[1];
	enum runner_fail f = request(r, "call", NULL, "return", 1, v, NULL);

	if (f == RUNNER_OK) {
		*rc = (int)v[0];
		r->calls++;
	}
	return f;
}

enum runner_fail runner_call_gated(struct runner *r, int64_t hold_us, int *rc,
				   int *order, int *late, int64_t *wall_ns)
{
	int64_t v[3];
	char a[32];

	snprintf(a, sizeof(a), "%" PRId64, hold_us);
	enum runner_fail f = request(r, "call", a, "return", 3, v, wall_ns);
	if (f == RUNNER_OK) {
		r->calls++;
		*rc = (int)v[0];
		*order = v[1] < -1 || v[1] > RP_MAX_ARGS ? -2 : (int)v[1];
		*late = v[2] < 0 || v[2] > RP_MAX_ARGS ? -2 : (int)v[2];
	}
	return f;
}

enum runner_fail runner_time(struct runner *r, int *rc, int64_t *claim_ns,
			     int64_t *wall_ns)
{
	int64_t v[2];
	enum runner_fail f = request(r, "time", NULL, "return", 2, v, wall_ns);

	if (f == RUNNER_OK) {
		*rc = (int)v[0];
		*claim_ns = v[1];
	}
	return f;
}

enum runner_fail runner_sets(struct runner *r, int n, size_t stride)
{
	char a[64];

	enum runner_fail f;

	snprintf(a, sizeof(a), "%d %zu", n, stride);
	f = request(r, "sets", a, "allocate the argument sets", 0, NULL, NULL);
	if (f == RUNNER_OK)
		r->nsets = n;
	return f;
}

enum runner_fail runner_time_gpu(struct runner *r, int n, int *rc,
				 int64_t *claim_ns, int64_t *drain_ns,
				 int64_t *wall_ns)
{
	int64_t v[3];
	char a[32];

	snprintf(a, sizeof(a), "%d", n);
	enum runner_fail f = request(r, "time", a, "return", 3, v, wall_ns);
	if (f == RUNNER_OK) {
		r->calls++;
		*rc = (int)v[0];
		*claim_ns = v[1];
		*drain_ns = v[2];
	}
	return f;
}

enum runner_fail runner_fetch(struct runner *r, uint32_t mask,
			      int64_t *wall_ns)
{
	char a[32];

	snprintf(a, sizeof(a), "%" PRIu32, mask);
	return request(r, "fetch", a, "copy the outputs back", 0, NULL,
		       wall_ns);
}

enum runner_fail runner_gen(struct runner *r, const char *spec,
			    int64_t *wall_ns)
{
	return request(r, "gen", spec && *spec ? spec : NULL,
		       "draw the inputs", 0, NULL, wall_ns);
}

enum runner_fail runner_keeper_flush(struct runner *r, size_t bytes,
				     int64_t *ns, int64_t *wall_ns)
{
	int64_t v[1];
	char a[32];

	snprintf(a, sizeof(a), "%zu", bytes);
	enum runner_fail f = request(r, "flush", a, "flush the cache", 1, v,
				     wall_ns);
	if (f == RUNNER_OK)
		*ns = v[0];
	return f;
}

enum runner_fail runner_probe(struct runner *r, int64_t *ns, int64_t *wall_ns)
{
	int64_t v[1];
	enum runner_fail f = request(r, "probe", NULL, "probe the device", 1, v,
				     wall_ns);

	if (f == RUNNER_OK)
		*ns = v[0];
	return f;
}

bool runner_parse_device_error(const char *msg, bool *sticky, char *name,
			       size_t name_len, char *why, size_t why_len)
{
	const char *p = msg;
	size_t n;

	if (strncmp(p, "device ", 7) != 0)
		return false;
	p += 7;
	if (strncmp(p, "sticky ", 7) == 0) {
		*sticky = true;
		p += 7;
	} else if (strncmp(p, "soft ", 5) == 0) {
		*sticky = false;
		p += 5;
	} else {
		return false;
	}
	n = strcspn(p, " ");
	if (n == 0 || n >= name_len)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((p[i] >= 'a' && p[i] <= 'z') ||
		      (p[i] >= 'A' && p[i] <= 'Z') ||
		      (p[i] >= '0' && p[i] <= '9') || p[i] == '_'))
			return false;
	memcpy(name, p, n);
	name[n] = '\0';
	p += n;
	while (*p == ' ')
		p++;
	snprintf(why, why_len, "hit a device error: %s %.360s", name, p);
	return true;
}

enum runner_fail runner_ping(struct runner *r)
{
	char *line = NULL;
	char want[40];
	enum runner_fail f;

	r->seq++;
	char *req = xasprintf("ping %" PRIu64 "\n", r->seq);
	f = transact(r, req, "answer", &line, NULL);
	free(req);
	if (f != RUNNER_OK)
		return f;
	snprintf(want, sizeof(want), "pong %" PRIu64, r->seq);
	if (strcmp(line, want) != 0) {
		char q[80];
		quote(line, strlen(line), q, sizeof(q));
		return protocol(r, "sent a malformed reply: \"%s\"", q);
	}
	return RUNNER_OK;
}

int runner_census(struct runner *r, int *threads, int *children)
{
	char path[64];
	DIR *d;
	struct dirent *e;

	*threads = 0;
	*children = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)r->pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		(*threads)++;
		char cpath[300], buf[256];
		snprintf(cpath, sizeof(cpath), "/proc/%d/task/%s/children",
			 (int)r->pid, e->d_name);
		int fd = open(cpath, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		for (char *p = buf; *p;) {
			while (*p == ' ' || *p == '\n')
				p++;
			if (!*p)
				break;
			(*children)++;
			while (*p && *p != ' ' && *p != '\n')
				p++;
		}
	}
	closedir(d);
	return 0;
}

/* ---- start-up --------------------------------------------------------- */

/* Environment for a runner: nothing of the controller's (API keys, seeds)
 * except sanitizer options. */
static void runner_env(struct strvec *env, bool gpu)
{
	const char *asan = getenv("ASAN_OPTIONS");
	const char *ubsan = getenv("UBSAN_OPTIONS");
	/* Device selection and where the driver's libraries live; nothing
	 * else of the controller's environment. */
	static const char *const gpu_pass[] = {
		"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES",
		"ROCR_VISIBLE_DEVICES", "GPU_DEVICE_ORDINAL",
		"LD_LIBRARY_PATH",
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

/* Child side between fork and exec: async-signal-safe calls only. */
static void __attribute__((noreturn))
child_exec(pid_t parent, int sock, int memfd, int kfd, int devnull, int logfd,
	   const struct runner_spec *s, char *const argv[], char *const envp[])
{
	struct rlimit rl;
	sigset_t all;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != parent)
		_exit(127);
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
	rl.rlim_cur = rl.rlim_max = 64ull << 20;
	setrlimit(RLIMIT_FSIZE, &rl);
	rl.rlim_cur = rl.rlim_max = 256;
	setrlimit(RLIMIT_NOFILE, &rl);
	if (s->as_limit) {
		rl.rlim_cur = rl.rlim_max = s->as_limit;
		setrlimit(RLIMIT_AS, &rl);
	}
	execve(s->runner_path, argv, envp);
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

	struct strvec args = STRVEC_INIT;
	strvec_push(&args, s->runner_path);
	for (size_t i = 0; s->pre_args && s->pre_args[i]; i++)
		strvec_push(&args, s->pre_args[i]);
	strvec_push(&args, r->deferred ? "-" : RP_KERNEL_PATH);
	strvec_push(&args, s->entry);
	if (s->device_arg)
		strvec_push(&args, s->device_arg);
	char **argv = args.v;
	runner_env(&env, s->gpu);
	pid_t parent = getpid();
	pid_t pid = -1;
	if (s->zygote) {
		/* A copy of the Python runner's zygote, made this process's
		 * child (pyzygote.c); if there is none, fork as usual. */
		int fds[5] = { sv[1], memfd, kfd, devnull,
			       s->log_fd >= 0 ? s->log_fd : devnull };
		char zwhy[400];
		pid = pyzygote_spawn(argv + s->zygote_skip, env.v, fds,
				     s->gpu ? 7200 : 600, s->as_limit, zwhy,
				     sizeof(zwhy));
		if (pid < 0 && s->log_fd >= 0)
			dprintf(s->log_fd, "arena: %s; the runner is started "
				"without it\n", zwhy);
	}
	if (pid < 0)
		pid = fork();
	if (pid < 0) {
		snprintf(r->why, sizeof(r->why), "could not fork: %s",
			 strerror(errno));
		strvec_release(&args);
		goto sys_fail;
	}
	if (pid == 0)
		child_exec(parent, sv[1], memfd, kfd, devnull, s->log_fd, s,
			   argv, env.v);
	setpgid(pid, pid);
	r->pid = pid;
	r->has_cpu_clock = clock_getcpuclockid(pid, &r->cpu_clock) == 0;
	{
		char sp[64];
		snprintf(sp, sizeof(sp), "/proc/%d/schedstat", (int)pid);
		r->schedstat_fd = open(sp, O_RDONLY | O_CLOEXEC);
	}
	r->sock = sv[0];
	snprintf(r->runner_path, sizeof(r->runner_path), "%s", s->runner_path);
	close(sv[1]);
	close(memfd);
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
	if (sscanf(line, "nodevice %ld %n", &hp, &off) == 1 && off > 0 &&
	    hp == (long)r->pid) {
		snprintf(r->why, sizeof(r->why),
			 "could not open its device: %.400s", line + off);
		kill_group(r);
		reap_blocking(r);
		return RUNNER_NODEVICE;
	}
	if (sscanf(line, "hello %ld %63s %c", &hp, mode, &extra) != 2 ||
	    hp != (long)r->pid) {
		char q[80];
		quote(line, strlen(line), q, sizeof(q));
		protocol(r, "did not greet as expected: \"%s\"", q);
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
	if ((f = read_line_more(r, "start", &line, true)) != RUNNER_OK) {
		if (f == RUNNER_DIED && WIFEXITED(r->status) &&
		    WEXITSTATUS(r->status) == 127) {
			snprintf(r->why, sizeof(r->why),
				 "could not be started from %s", r->runner_path);
			return RUNNER_SYSTEM;
		}
		return f;
	}
	if ((f = runner_parse_hello(r, line)) != RUNNER_OK)
		return f;
	if (r->deferred)
		return runner_pause(r);
	/* ready: after dlopen, i.e. after the kernel's constructors ran. */
	if ((f = read_line(r, "load the kernel", &line)) != RUNNER_OK)
		return f;
	if (strncmp(line, "error ", 6) == 0) {
		snprintf(r->why, sizeof(r->why), "%.480s", line + 6);
		kill_group(r);
		reap_blocking(r);
		return RUNNER_LOAD;
	}
	if (strcmp(line, "ready") != 0) {
		char q[80];
		quote(line, strlen(line), q, sizeof(q));
		return protocol(r, "sent \"%s\" instead of ready", q);
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
	f = transact_fd(r, req, kfd, "load the kernel", &line, NULL);
	free(req);
	close(kfd);
	if (f != RUNNER_OK)
		return f;
	f = runner_parse_reply(r, line, 0, NULL);
	/* The runner's own words: "cannot load the shared object: ...". */
	if (f == RUNNER_REFUSED) {
		memmove(r->why, r->why + strlen("refused: "),
			strlen(r->why) - strlen("refused: ") + 1);
		kill_group(r);
		reap_blocking(r);
		return RUNNER_LOAD;
	}
	if (f == RUNNER_OK)
		r->deferred = false;
	return f;
}

void runner_kill(struct runner *r)
{
	if (r)
		kill_group(r);
}

void runner_destroy(struct runner *r)
{
	if (!r)
		return;
	if (r->pid > 0 && !r->reaped) {
		kill_group(r);
		reap_blocking(r);
	}
	if (r->sock >= 0)
		close(r->sock);
	if (r->schedstat_fd >= 0)
		close(r->schedstat_fd);
	if (r->shm)
		munmap(r->shm, r->shm_size);
	free(r);
}
