/*
 * runner_requests.c - requests to a runner and its replies
 * (arena/runner_proto.h): one request, one line back within the deadline,
 * nothing before it and nothing after it; the runner resumed (SIGCONT)
 * for the exchange and stopped (SIGSTOP) again before the controller
 * looks at its memory; the parsers of what it sends (lines, replies,
 * device errors), apart from the socket so that they can be fuzzed; and
 * the census of its threads and children.  Every request is charged: the
 * runner's CPU time as the kernel accounts it is read before the SIGCONT
 * that resumes it and after it is seen stopped again (r->cpu_ns), and so
 * is its wait for a CPU (r->delay_ns).  The invariants are in
 * runner_client.c's opening comment.
 */
#include "runner_client.h"
#include "arena/fd_pass.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

int runner_take_line(struct runner *r, bool allow_more, char **line,
		     enum runner_fail *f)
{
	char *nl = memchr(r->buf, '\n', r->blen);

	if (nl) {
		size_t used = (size_t)(nl - r->buf) + 1;
		if (used != r->blen && !allow_more) {
			char q1[80], q2[80];
			rcl_quote(r->buf, used - 1, q1, sizeof(q1));
			rcl_quote(nl + 1, r->blen - used, q2, sizeof(q2));
			*f = rcl_protocol(r, "sent more than one line for one "
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
		*f = rcl_protocol(r, "wrote a line longer than %d bytes",
			      RP_MAX_LINE);
		return -1;
	}
	return 0;
}

/* recv(2) of what the runner sent; for the keeper (r->takes_fds) with
 * any descriptor it sent along, the first kept in r->passed_fd (a
 * plain recv closes them). */
static ssize_t recv_some(struct runner *r, char *buf, size_t len)
{
	if (!r->takes_fds)
		return recv(r->sock, buf, len, MSG_DONTWAIT);
	return fd_pass_recv(r->sock, buf, len, MSG_DONTWAIT, &r->passed_fd);
}

/* How long a reader with r->spin_replies polls the channel before it
 * sleeps in poll(2): the replies of a timed GPU sample's requests come
 * within a few milliseconds, and a sleeping controller's wake-up is noise
 * in the clock that checks them. */
#define REPLY_SPIN_NS 5000000ull

/* Reads one line with the runner's deadline; line points into r->line and
 * stays valid until the next read.  Any byte after the line is a
 * violation. */
enum runner_fail rcl_read_line_more(struct runner *r, const char *what,
				char **line, bool allow_more)
{
	uint64_t start = now_ns();
	uint64_t deadline = start + (uint64_t)r->timeout_ms * 1000000ull;
	uint64_t spin_end = r->spin_replies ? start + REPLY_SPIN_NS : 0;
	enum runner_fail f = RUNNER_OK;

	for (;;) {
		int took = runner_take_line(r, allow_more, line, &f);
		if (took > 0)
			return RUNNER_OK;
		if (took < 0)
			return f;
		uint64_t now = now_ns();
		int64_t left = (int64_t)(deadline - now);
		if (left <= 0)
			return rcl_timeout_kill(r, what);
		if (now >= spin_end) {
			struct pollfd p = { .fd = r->sock, .events = POLLIN };
			int ms = (int)((left + 999999) / 1000000);
			int pr = poll(&p, 1, ms);
			if (pr < 0 && errno != EINTR)
				return rcl_protocol(r, "poll failed: %s",
						    strerror(errno));
			if (pr <= 0)
				continue;
		}
		ssize_t n =
			recv_some(r, r->buf + r->blen, RP_MAX_LINE - r->blen);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return rcl_after_eof(r);
		r->blen += (size_t)n;
	}
}

enum runner_fail rcl_read_line(struct runner *r, const char *what,
			       char **line)
{
	return rcl_read_line_more(r, what, line, false);
}

/* The channel must be empty before a request. */
static enum runner_fail check_quiet(struct runner *r)
{
	char tmp[128];
	ssize_t n;

	if (r->blen) {
		char q[80];
		rcl_quote(r->buf, r->blen, q, sizeof(q));
		return rcl_protocol(r, "wrote unexpected data: \"%s\"", q);
	}
	n = recv(r->sock, tmp, sizeof(tmp), MSG_DONTWAIT | MSG_PEEK);
	if (n == 0)
		return rcl_after_eof(r);
	if (n > 0) {
		char q[80];
		rcl_quote(tmp, (size_t)n, q, sizeof(q));
		return rcl_protocol(r, "wrote unexpected data on its control "
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
		return rcl_fail_from_status(r);
	if (r->stopped)
		return RUNNER_OK;
	kill(-r->pid, SIGSTOP);
	for (;;) {
		int c = rcl_poll_child(r, true);
		if (c == 2) {
			r->stopped = true;
			return RUNNER_OK;
		}
		if (c == 1)
			return rcl_fail_from_status(r);
		if (c < 0) {
			snprintf(r->why, sizeof(r->why),
				 "could not be waited for: %s", strerror(errno));
			rcl_kill_group(r);
			rcl_reap_blocking(r);
			return RUNNER_SYSTEM;
		}
		if (now_ns() > deadline)
			return rcl_timeout_kill(r, "stop when told to");
		if (++spins < 50)
			sched_yield();
		else
			rcl_sleep_us(20);
	}
}

/* Sends req (with descriptor fd, or -1) as one sendmsg. */
static ssize_t send_req(int sock, const char *req, size_t len, int fd)
{
	return fd_pass_send(sock, req, len, &fd, fd >= 0 ? 1 : 0);
}

/* Resumes the runner and sends req (with descriptor fd, or -1): the
 * first half of a request.  The runner's CPU time is read before it is
 * resumed (nothing it does from the SIGCONT on escapes the count), and
 * the controller's clock for the request starts once the channel was
 * found quiet. */
static enum runner_fail post(struct runner *r, const char *req, int fd)
{
	enum runner_fail f;
	size_t len = strlen(req), off = 0;

	if (r->reaped)
		return rcl_fail_from_status(r);
	r->cpu_mark = cpu_now(r);
	r->delay_mark = delay_now(r);
	r->cpu_ns = -1;
	r->delay_ns = -1;
	resume(r);
	if ((f = check_quiet(r)) != RUNNER_OK)
		return f;
	r->sent_at = now_ns();
	while (off < len) {
		/* The descriptor travels with the first byte. */
		ssize_t w = send_req(r->sock, req + off, len - off,
				     off == 0 ? fd : -1);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return rcl_after_eof(r);
		off += (size_t)w;
	}
	return RUNNER_OK;
}

/* The second half: the one-line reply (r->line, valid until the next
 * read), the controller's clock from the send to the reply (*wall_ns;
 * r->replied_at when it was read); the runner is left running. */
static enum runner_fail collect(struct runner *r, const char *what,
				char **reply, int64_t *wall_ns)
{
	enum runner_fail f = rcl_read_line(r, what, reply);

	r->replied_at = now_ns();
	if (wall_ns)
		*wall_ns = (int64_t)(r->replied_at - r->sent_at);
	return f;
}

enum runner_fail runner_stop(struct runner *r)
{
	enum runner_fail f = runner_pause(r);

	if (f != RUNNER_OK)
		return f;
	int64_t cpu1 = cpu_now(r), delay1 = delay_now(r);
	if (r->cpu_mark >= 0 && cpu1 >= r->cpu_mark)
		r->cpu_ns = cpu1 - r->cpu_mark;
	if (r->delay_mark >= 0 && delay1 >= r->delay_mark)
		r->delay_ns = delay1 - r->delay_mark;
	return RUNNER_OK;
}

/* Sends one request (with descriptor fd, or -1) and reads its one-line
 * reply; leaves the runner stopped. */
enum runner_fail rcl_transact_fd(struct runner *r, const char *req,
			     int fd, const char *what, char **reply,
			     int64_t *wall_ns)
{
	enum runner_fail f;

	if ((f = post(r, req, fd)) != RUNNER_OK ||
	    (f = collect(r, what, reply, wall_ns)) != RUNNER_OK)
		return f;
	/* *reply (r->line) stays valid: stopping reads nothing. */
	return runner_stop(r);
}

static enum runner_fail transact(struct runner *r, const char *req,
				 const char *what, char **reply,
				 int64_t *wall_ns)
{
	return rcl_transact_fd(r, req, -1, what, reply, wall_ns);
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
		/* "error <other text>" is malformed, never read on as the
		 * rest of a reply ("error ok 7" is not "ok 7"). */
		if (strncmp(p, seq, sl) != 0 || p[sl] != ' ')
			goto bad;
		p += sl + 1;
		if (runner_parse_device_error(p, &r->dev_sticky, r->dev_error,
					      sizeof(r->dev_error), r->why,
					      sizeof(r->why))) {
			if (r->gpu)
				return RUNNER_DEVICE;
			/* A host runner has no device to fail: the reply can
			 * only be forged. */
			char q[80];
			rcl_quote(line, strlen(line), q, sizeof(q));
			return rcl_protocol(r,
					    "sent a device-error reply "
					    "(\"%s\"), but a host runner has "
					    "no device",
					    q);
		}
		snprintf(r->why, sizeof(r->why), "refused: %.400s", p);
		return RUNNER_REFUSED;
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
	rcl_quote(line, strlen(line), q, sizeof(q));
	return rcl_protocol(r, "sent a malformed reply: \"%s\"", q);
}

/* Sends "<verb> <seq>[ <args>]" (post). */
static enum runner_fail post_request_fd(struct runner *r, const char *verb,
					const char *args, int fd)
{
	r->seq++;
	char *req = args ? xasprintf("%s %" PRIu64 " %s\n", verb, r->seq, args)
			 : xasprintf("%s %" PRIu64 "\n", verb, r->seq);
	enum runner_fail f = post(r, req, fd);
	free(req);
	return f;
}

static enum runner_fail post_request(struct runner *r, const char *verb,
				     const char *args)
{
	return post_request_fd(r, verb, args, -1);
}

/* Reads and parses the reply to the request posted last; the runner is
 * stopped after it unless keep_running. */
static enum runner_fail collect_reply(struct runner *r, const char *what,
				      int nvals, int64_t *vals,
				      int64_t *wall_ns, bool keep_running)
{
	char *line = NULL;
	enum runner_fail f = collect(r, what, &line, wall_ns);

	if (f == RUNNER_OK && !keep_running)
		f = runner_stop(r);
	if (f != RUNNER_OK)
		return f;
	return runner_parse_reply(r, line, nvals, vals);
}

static enum runner_fail request(struct runner *r, const char *verb,
				const char *args, const char *what, int nvals,
				int64_t *vals, int64_t *wall_ns)
{
	enum runner_fail f = post_request(r, verb, args);

	if (f != RUNNER_OK)
		return f;
	return collect_reply(r, what, nvals, vals, wall_ns, r->hold);
}

/* The reply to a layout or a sets request, posted last: where the
 * runner's buffers lie (GPU runners). */
static enum runner_fail collect_buffers(struct runner *r, const char *what)
{
	int64_t v[2] = { 0, 0 };
	enum runner_fail f =
		collect_reply(r, what, r->gpu ? 2 : 0, v, NULL, r->hold);

	if (f == RUNNER_OK) {
		r->dev_lo = v[0];
		r->dev_hi = v[1];
	}
	return f;
}

void runner_layout_all(struct runner *const *rs, int n, const char *proto,
		       enum runner_fail *fail)
{
	for (int i = 0; i < n; i++) {
		fail[i] = post_request(rs[i], "layout", proto);
		/* A GPU runner frees its argument sets for a new layout:
		 * one set until `sets` asks for more.  Staging for a stale
		 * count wrote a later, larger case's sets past the end of
		 * the shared memory (SIGSEGV on the H200, 2026-12-05). */
		rs[i]->nsets = 0;
	}
	for (int i = 0; i < n; i++)
		if (fail[i] == RUNNER_OK)
			fail[i] = collect_buffers(rs[i], "accept the layout");
}

void runner_sets_all(struct runner *const *rs, int n, int nsets,
		     size_t stride, enum runner_fail *fail)
{
	char a[64];

	snprintf(a, sizeof(a), "%d %zu", nsets, stride);
	for (int i = 0; i < n; i++)
		fail[i] = post_request(rs[i], "sets", a);
	for (int i = 0; i < n; i++) {
		if (fail[i] != RUNNER_OK)
			continue;
		fail[i] = collect_buffers(rs[i], "allocate the argument sets");
		if (fail[i] == RUNNER_OK)
			rs[i]->nsets = nsets;
	}
}

void runner_sets_lent(struct runner *const *rs, int n, int nsets, size_t stride,
		      const int *fds, const int64_t *bytes, bool pinned,
		      enum runner_fail *fail)
{
	for (int i = 0; i < n; i++) {
		struct runner *r = rs[i];
		r->seq++;
		char *req = xasprintf("sets %" PRIu64 " %d %zu %" PRId64 "%s\n",
				      r->seq, nsets, stride, bytes[i],
				      pinned ? " pinned" : "");
		fail[i] = post(r, req, fds[i]);
		free(req);
	}
	for (int i = 0; i < n; i++) {
		if (fail[i] != RUNNER_OK)
			continue;
		fail[i] = collect_buffers(rs[i], "map the argument sets lent");
		if (fail[i] == RUNNER_OK)
			rs[i]->nsets = nsets;
	}
}

enum runner_fail runner_keeper_lend(struct runner *k, int slot, int nsets,
				    size_t stride, const char *proto,
				    int shm_fd, int *fd, int64_t *bytes)
{
	int64_t v[1];
	enum runner_fail f;

	*fd = -1;
	if (k->passed_fd >= 0)
		close(k->passed_fd);
	k->passed_fd = -1;
	k->seq++;
	char *req = xasprintf("lend %" PRIu64 " %d %d %zu %s\n", k->seq, slot,
			      nsets, stride, proto);
	f = post(k, req, shm_fd);
	free(req);
	if (f == RUNNER_OK)
		f = collect_reply(k, "lend argument sets", 1, v, NULL, k->hold);
	*fd = k->passed_fd;
	k->passed_fd = -1;
	if (f == RUNNER_OK && (*fd < 0 || v[0] < 1))
		f = rcl_protocol(k, "lent sets without a descriptor");
	if (f != RUNNER_OK && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	if (f == RUNNER_OK)
		*bytes = v[0];
	return f;
}

enum runner_fail runner_keeper_compare(struct runner *k, int bslot, int cslot,
				       const char *place, const char *rules,
				       int64_t out[4])
{
	char *a = xasprintf("%d %d %s %s", bslot, cslot, place, rules);
	enum runner_fail f =
		request(k, "compare", a, "compare the sets", 4, out, NULL);

	free(a);
	return f;
}

enum runner_fail runner_keeper_take(struct runner *k, int slot,
				    const char *place, uint32_t mask, int set,
				    int to_fd)
{
	char a[96];

	snprintf(a, sizeof(a), "%d %s %" PRIu32 " %d", slot, place, mask, set);
	enum runner_fail f = post_request_fd(k, "take", a, to_fd);
	return f != RUNNER_OK
		       ? f
		       : collect_reply(k, "take a set", 0, NULL, NULL, k->hold);
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

enum runner_fail runner_gate_page(struct runner *r)
{
	int fd = memfd_create("arena-gate", MFD_CLOEXEC);
	void *p = MAP_FAILED;
	enum runner_fail f;

	if (fd < 0 || ftruncate(fd, RP_GATE_PAGE_BYTES) != 0 ||
	    (p = mmap(NULL, RP_GATE_PAGE_BYTES, PROT_READ | PROT_WRITE,
		      MAP_SHARED, fd, 0)) == MAP_FAILED) {
		snprintf(r->why, sizeof(r->why),
			 "could not be given a gate page: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return RUNNER_SYSTEM;
	}
	if ((f = post_request_fd(r, "gate", NULL, fd)) == RUNNER_OK)
		f = collect_reply(r, "map the gate page", 0, NULL, NULL,
				  r->hold);
	close(fd);
	if (f == RUNNER_OK) {
		r->gate_page = (volatile unsigned *)p;
		r->gate_state = 1;
	} else {
		munmap(p, RP_GATE_PAGE_BYTES);
		r->gate_state = -1;
	}
	return f;
}

/* The reply to a gated `time`, posted last: "armed <seq>" first, then
 * the token written, then the reply itself; *react_ns from the write to
 * the reply.  An error reply may come instead of "armed".  The reply may
 * also follow "armed" at once, in the same read: where the runner took
 * longer than the gate kernel's deadline to enqueue its calls (a fresh
 * runner's first launch, 51 ms on an H100), the gate opened by itself
 * and the batch ran before the token; the reaction is then small or
 * negative, and that sample's claim is bound by its whole request, as
 * a runner-opened gate's is. */
static enum runner_fail collect_gated(struct runner *r, uint32_t token,
				      int64_t *v, int64_t *wall_ns,
				      int64_t *react_ns)
{
	char *line = NULL, armed[48];
	enum runner_fail f =
		rcl_read_line_more(r, "arm its timed calls", &line, true);

	if (f != RUNNER_OK)
		return f;
	snprintf(armed, sizeof(armed), "armed %" PRIu64, r->seq);
	if (strcmp(line, armed) != 0) {
		f = r->hold ? RUNNER_OK : runner_stop(r);
		if (f == RUNNER_OK)
			f = runner_parse_reply(r, line, 3, v);
		return f == RUNNER_OK ? rcl_protocol(r, "answered a gated "
							"batch without arming "
							"it")
				      : f;
	}
	bool spin = r->spin_replies;
	r->spin_replies = spin || r->spin_gated;
	uint64_t opened = now_ns();
	__atomic_store_n(r->gate_page, token, __ATOMIC_RELEASE);
	f = collect_reply(r, "return", 3, v, wall_ns, r->hold);
	*react_ns = (int64_t)(r->replied_at - opened);
	r->spin_replies = spin;
	return f;
}

enum runner_fail runner_time_gpu(struct runner *r, int n, bool hold, bool gate,
				 int *rc, int64_t *claim_ns, int64_t *drain_ns,
				 int64_t *wall_ns, int64_t *react_ns)
{
	int64_t v[3];
	char a[48];
	enum runner_fail f;

	*react_ns = -1;
	if (gate && r->gate_state == 1) {
		if (++r->gate_token == 0)
			r->gate_token = 1;
		snprintf(a, sizeof(a), "%d gate %" PRIu32 "%s", n,
			 r->gate_token, r->captured ? " graph" : "");
		f = post_request(r, "time", a);
		if (f == RUNNER_OK)
			f = collect_gated(r, r->gate_token, v, wall_ns,
					  react_ns);
	} else {
		snprintf(a, sizeof(a), "%d%s%s", n, hold ? " hold" : "",
			 r->captured ? " graph" : "");
		f = request(r, "time", a, "return", 3, v, wall_ns);
	}
	r->captured = false;
	if (f == RUNNER_OK) {
		r->calls++;
		*rc = (int)v[0];
		*claim_ns = v[1];
		*drain_ns = v[2];
	}
	return f;
}

enum runner_fail runner_capture(struct runner *r, int n, const char *place)
{
	char a[48], yes[48], no[48], *line = NULL;
	enum runner_fail f;

	r->captured = false;
	snprintf(a, sizeof(a), "%d %s", n, place);
	if ((f = post_request(r, "capture", a)) != RUNNER_OK)
		return f;
	f = collect(r, "capture its timed calls", &line, NULL);
	if (f == RUNNER_OK && !r->hold)
		f = runner_stop(r);
	if (f != RUNNER_OK)
		return f;
	snprintf(yes, sizeof(yes), "ok %" PRIu64 " 1", r->seq);
	snprintf(no, sizeof(no), "ok %" PRIu64 " 0 ", r->seq);
	if (strcmp(line, yes) == 0) {
		r->captured = true;
		return RUNNER_OK;
	}
	if (strncmp(line, no, strlen(no)) == 0) {
		snprintf(r->why, sizeof(r->why), "%.400s", line + strlen(no));
		return RUNNER_OK;
	}
	f = runner_parse_reply(r, line, 0, NULL);
	return f != RUNNER_OK ? f
			      : rcl_protocol(r, "answered a capture without "
						"saying whether it captured");
}

enum runner_fail runner_fetch(struct runner *r, uint32_t mask, int k,
			      int64_t *wall_ns)
{
	char a[48];

	if (k < 0)
		snprintf(a, sizeof(a), "%" PRIu32, mask);
	else
		snprintf(a, sizeof(a), "%" PRIu32 " %d", mask, k);
	return request(r, "fetch", a, "copy the outputs back", 0, NULL,
		       wall_ns);
}

enum runner_fail runner_gen(struct runner *r, const char *spec,
			    int64_t *wall_ns)
{
	return request(r, "gen", spec && *spec ? spec : NULL, "draw the inputs",
		       0, NULL, wall_ns);
}

enum runner_fail runner_keeper_post(struct runner *k, const char *verb,
				    size_t flush_bytes)
{
	char a[32];

	snprintf(a, sizeof(a), "%zu", flush_bytes);
	return post_request(k, verb, strcmp(verb, "flush") == 0 ? a : NULL);
}

enum runner_fail runner_keeper_collect(struct runner *k, const char *what,
				       struct keeper_reply *o)
{
	int64_t v[3];
	enum runner_fail f =
		collect_reply(k, what, 3, v, &o->wall, k->hold);

	if (f == RUNNER_OK) {
		o->ns = v[0];
		o->busy = v[1] != 0;
		o->launched = v[2];
	}
	return f;
}

enum runner_fail runner_probe(struct runner *k, struct keeper_reply *o)
{
	enum runner_fail f = runner_keeper_post(k, "probe", 0);

	return f == RUNNER_OK ? runner_keeper_collect(k, "probe the device", o)
			      : f;
}

enum runner_fail runner_warm(struct runner *k, int64_t *ns)
{
	int64_t v[1];
	enum runner_fail f =
		request(k, "warm", NULL, "warm the device", 1, v, NULL);

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
		rcl_quote(line, strlen(line), q, sizeof(q));
		return rcl_protocol(r, "sent a malformed reply: \"%s\"", q);
	}
	return RUNNER_OK;
}

enum runner_fail runner_split(struct runner *r, int param, int threads,
			      uint32_t mask)
{
	char a[64];

	snprintf(a, sizeof(a), "%d %d %" PRIx32, param, threads, mask);
	return request(r, "split", a, "accept the split", 0, NULL, NULL);
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
