/*
 * eval_bridge.c - see eval_bridge.h.
 *
 * Threading: the bridge thread is the only one that calls l->evaluate
 * while the launcher's thread sits in proc_spawn (which touches neither the
 * engine nor the store), so evaluations never run concurrently with other
 * engine work of this process.  The trace has its own lock; the bridge's
 * own counters are under b->lock because the launcher reads them.
 */
#include "eval_bridge.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "mcp_server.h"

#define BRIDGE_READ_TIMEOUT_MS 10000

struct eval_bridge {
	const struct agent_launch *l;
	struct trace *trace;
	char *path;
	int listen_fd;
	int stop[2];
	pthread_t thread;
	bool joined;
	pthread_mutex_t lock;
	char *last_text;	/* last evaluate reply, or NULL */
	int evaluations;
	double best_score;
};

static int bridge_tool(struct eval_bridge *b, const char *name,
		       const cJSON *args, struct mcp_reply *out,
		       struct errbuf *err)
{
	const struct agent_launch *l = b->l;

	if (!strcmp(name, "show_task")) {
		out->text = task_doc_render(l->task);
		return 0;
	}
	if (!strcmp(name, "last_result")) {
		pthread_mutex_lock(&b->lock);
		out->text = b->last_text ? xstrdup(b->last_text) : NULL;
		pthread_mutex_unlock(&b->lock);
		if (!out->text)
			out->text = xstrdup("No evaluation yet in this "
					    "session; call evaluate.");
		return 0;
	}
	if (strcmp(name, "evaluate"))
		return -ENOENT;

	uint64_t t0 = now_ns();
	const cJSON *q = cJSON_GetObjectItemCaseSensitive(args, "quick");
	bool quick = cJSON_IsTrue(q);
	struct task_result r;
	struct errbuf eerr;

	if (!l->evaluate)
		return errf(err, "this run gives agents no evaluator");
	result_init(&r);
	errbuf_init(&eerr);
	if (l->evaluate(l->evaluate_ctx, NULL, quick, &r, &eerr) != 0) {
		out->text = xasprintf("The evaluator could not run: %s",
				      errbuf_str(&eerr));
		out->is_error = true;
		trace_evaluation(b->trace, "bridge", quick, &r,
				 errbuf_str(&eerr),
				 (double)(now_ns() - t0) / 1e9);
	} else {
		free(r.task_name);
		r.task_name = xstrdup(l->task->id);
		result_score(&r);
		mcp_reply_from_result(&r, quick, out);
		trace_evaluation(b->trace, "bridge", quick, &r, NULL,
				 (double)(now_ns() - t0) / 1e9);
		pthread_mutex_lock(&b->lock);
		b->evaluations++;
		if (r.status == RS_OK && r.score > b->best_score)
			b->best_score = r.score;
		free(b->last_text);
		b->last_text = xstrdup(out->text);
		pthread_mutex_unlock(&b->lock);
	}
	result_release(&r);
	return 0;
}

/* Reads one line (without the newline) of at most max bytes; NULL on
 * timeout, EOF first, or overflow. */
static char *read_line(int fd, size_t max)
{
	struct strbuf sb = STRBUF_INIT;
	char c[4096];

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (poll(&p, 1, BRIDGE_READ_TIMEOUT_MS) <= 0)
			break;
		ssize_t n = read(fd, c, sizeof(c));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		char *nl = memchr(c, '\n', (size_t)n);
		strbuf_add(&sb, c, nl ? (size_t)(nl - c) : (size_t)n);
		if (sb.len > max)
			break;
		if (nl)
			return strbuf_detach(&sb);
	}
	strbuf_release(&sb);
	return NULL;
}

/* Writes to a socket or pipe; a peer that went away is no signal
 * (MSG_NOSIGNAL): an agent closing its end must not kill arena. */
static void write_all(int fd, const char *s, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, s, n, MSG_NOSIGNAL);
		if (w < 0 && errno == ENOTSOCK)
			w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

static void serve_one(struct eval_bridge *b, int fd)
{
	char *line = read_line(fd, EVAL_BRIDGE_REQUEST_MAX);
	cJSON *req = line ? cJSON_Parse(line) : NULL;
	cJSON *resp = cJSON_CreateObject();
	const cJSON *tool = cJSON_GetObjectItemCaseSensitive(req, "tool");
	const cJSON *args = cJSON_GetObjectItemCaseSensitive(req, "arguments");
	cJSON *empty = cJSON_CreateObject();
	struct mcp_reply reply = { 0 };
	struct errbuf err;

	errbuf_init(&err);
	if (!cJSON_IsString(tool)) {
		cJSON_AddStringToObject(resp, "error", "bad request: expected "
					"{\"tool\": NAME, \"arguments\": {}}");
	} else {
		int rc = bridge_tool(b, tool->valuestring,
				     cJSON_IsObject(args) ? args : empty,
				     &reply, &err);
		if (rc == -ENOENT) {
			cJSON_AddStringToObject(resp, "error", "unknown tool");
			cJSON_AddBoolToObject(resp, "unknown_tool", true);
		} else if (rc) {
			cJSON_AddStringToObject(resp, "error",
						errbuf_str(&err));
		} else {
			cJSON_AddStringToObject(resp, "text", reply.text ?
						reply.text : "");
			cJSON_AddBoolToObject(resp, "is_error",
					      reply.is_error);
			if (reply.structured) {
				cJSON_AddItemToObject(resp, "structured",
						      reply.structured);
				reply.structured = NULL;
			}
		}
	}
	char *s = cJSON_PrintUnformatted(resp);
	write_all(fd, s, strlen(s));
	write_all(fd, "\n", 1);
	free(s);
	mcp_reply_release(&reply);
	cJSON_Delete(empty);
	cJSON_Delete(resp);
	cJSON_Delete(req);
	free(line);
}

static void *bridge_main(void *arg)
{
	struct eval_bridge *b = arg;

	for (;;) {
		struct pollfd p[2] = {
			{ .fd = b->listen_fd, .events = POLLIN },
			{ .fd = b->stop[0], .events = POLLIN },
		};
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		if (!p[0].revents)
			continue;
		int fd = accept4(b->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		serve_one(b, fd);
		close(fd);
	}
	return NULL;
}

int eval_bridge_start(const struct agent_launch *l, struct trace *trace,
		      const char *socket_path, struct eval_bridge **out,
		      struct errbuf *err)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };
	struct eval_bridge *b;
	int fd, e;

	if (strlen(socket_path) >= sizeof(addr.sun_path))
		return errf_code(err, -ENAMETOOLONG, "%s: socket path too "
				 "long", socket_path);
	memcpy(addr.sun_path, socket_path, strlen(socket_path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errf_code(err, -errno, "socket: %s", strerror(errno));
	unlink(socket_path);
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) != 0 ||
	    listen(fd, 8) != 0) {
		e = errno;
		close(fd);
		return errf_code(err, -e, "%s: cannot listen: %s",
				 socket_path, strerror(e));
	}
	/* The sandboxed agent runs as another uid; the directory (0700, the
	 * caller's) is what guards the socket outside. */
	chmod(socket_path, 0666);
	b = xcalloc(1, sizeof(*b));
	b->l = l;
	b->trace = trace;
	b->path = xstrdup(socket_path);
	b->listen_fd = fd;
	pthread_mutex_init(&b->lock, NULL);
	if (pipe2(b->stop, O_CLOEXEC) != 0 ||
	    pthread_create(&b->thread, NULL, bridge_main, b) != 0) {
		e = errno ? errno : EAGAIN;
		close(fd);
		unlink(socket_path);
		free(b->path);
		pthread_mutex_destroy(&b->lock);
		free(b);
		return errf_code(err, -e, "cannot start the evaluation "
				 "bridge: %s", strerror(e));
	}
	*out = b;
	return 0;
}

void eval_bridge_stop_accepting(struct eval_bridge *b)
{
	if (!b || b->joined)
		return;
	write_all(b->stop[1], "x", 1);
	pthread_join(b->thread, NULL);
	b->joined = true;
}

void eval_bridge_stop(struct eval_bridge *b)
{
	if (!b)
		return;
	eval_bridge_stop_accepting(b);
	close(b->stop[0]);
	close(b->stop[1]);
	close(b->listen_fd);
	unlink(b->path);
	free(b->path);
	free(b->last_text);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

int eval_bridge_evaluations(struct eval_bridge *b, double *best_score)
{
	int n;

	pthread_mutex_lock(&b->lock);
	n = b->evaluations;
	if (best_score)
		*best_score = b->best_score;
	pthread_mutex_unlock(&b->lock);
	return n;
}
