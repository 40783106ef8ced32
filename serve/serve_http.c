/*
 * serve_http.c - the HTTP side of `arena serve` on libmicrohttpd (no
 * hand-written HTTP parser): routes, the bearer token, the body cap and
 * the event stream of a batch (docs/serve.md).
 *
 *   GET  /v1/health                 open to all (no secret in it)
 *   POST /v1/batches                submit; 202 with the ids
 *   GET  /v1/batches/ID             the batch, every request's state
 *   GET  /v1/batches/ID/events      server-sent events, one per answer
 *   GET  /v1/results/ID             one request
 *
 * Threads: one per connection (MHD_USE_THREAD_PER_CONNECTION), so the
 * event stream may wait in its reader; every handler takes a store
 * handle from the pool for the time it needs it.  A body is read only
 * after the token was checked, and never beyond max_body: a declared
 * Content-Length over the cap is answered 413 before the body is read.
 *
 * Built only where libmicrohttpd is (ARENA_HAVE_MHD, the Makefile);
 * elsewhere serve_http_start says why `arena serve` cannot run.
 */
#include "serve_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef ARENA_HAVE_MHD

#include <arpa/inet.h>
#include <cJSON.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define SSE_POLL_MS 200
#define SSE_KEEPALIVE_S 10.0

static atomic_bool http_stopping;

struct conn {
	struct strbuf body;
	bool too_big;
	bool refused; /* a response was queued on the first call */
};

static enum MHD_Result send_reply(struct MHD_Connection *c,
				  struct serve_reply *r)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	char ra[16];

	resp = MHD_create_response_from_buffer(strlen(r->body), r->body,
					       MHD_RESPMEM_MUST_COPY);
	MHD_add_response_header(resp, "Content-Type", "application/json");
	if (r->retry_after > 0) {
		snprintf(ra, sizeof(ra), "%d", r->retry_after);
		MHD_add_response_header(resp, "Retry-After", ra);
	}
	if (r->status == 401)
		MHD_add_response_header(resp, "WWW-Authenticate", "Bearer");
	ret = MHD_queue_response(c, (unsigned)r->status, resp);
	MHD_destroy_response(resp);
	serve_reply_release(r);
	return ret;
}

/* Compares in time independent of where the strings differ. */
static bool token_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = la != lb;

	for (size_t i = 0; i < la; i++)
		d |= (unsigned char)(a[i] ^ b[i % (lb ? lb : 1)]);
	return d == 0;
}

static bool authorized(struct serve *s, struct MHD_Connection *c)
{
	const char *h;

	if (!s->token)
		return true;
	h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					MHD_HTTP_HEADER_AUTHORIZATION);
	if (!h || strncmp(h, "Bearer ", 7))
		return false;
	return token_equal(h + 7, s->token);
}

/* ---- the event stream of a batch ---- */

struct sse {
	struct serve *s;
	char id[19];
	int64_t seen; /* the last answer's done_seq sent */
	int sent, total;
	struct strbuf out;
	size_t off;
	double last;
	bool ended;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Appends the answers the stream has not sent; false when the store
 * could not be read. */
static bool sse_poll(struct sse *e)
{
	struct store_serve_req *v = NULL;
	struct store *st;
	struct errbuf err;
	int n = 0, rc;

	errbuf_init(&err);
	if ((rc = serve_store_take(e->s, &st, &err)) == 0) {
		rc = store_serve_batch_done_since(st, e->id, e->seen, &v, &n,
						  &e->total, &err);
		serve_store_put(e->s, st);
	}
	if (rc)
		return false;
	for (int i = 0; i < n; i++) {
		cJSON *o = serve_req_json(&v[i]);
		char *js = cJSON_PrintUnformatted(o);
		strbuf_addf(&e->out, "event: result\ndata: %s\n\n",
			    js ? js : "{}");
		cJSON_free(js);
		cJSON_Delete(o);
		if (v[i].done_seq > e->seen)
			e->seen = v[i].done_seq;
		e->sent++;
	}
	store_serve_reqs_free(v, n);
	return true;
}

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct sse *e = cls;

	for (;;) {
		if (e->off < e->out.len) {
			size_t k = e->out.len - e->off;
			if (k > max)
				k = max;
			memcpy(buf, e->out.buf + e->off, k);
			e->off += k;
			if (e->off == e->out.len) {
				strbuf_reset(&e->out);
				e->off = 0;
			}
			e->last = now_s();
			return (ssize_t)k;
		}
		if (e->ended)
			return MHD_CONTENT_READER_END_OF_STREAM;
		if (http_stopping) {
			strbuf_addstr(&e->out,
				      "event: end\ndata: "
				      "{\"reason\": \"the service is "
				      "shutting down; poll or reconnect "
				      "later\"}\n\n");
			e->ended = true;
			continue;
		}
		if (!sse_poll(e))
			return MHD_CONTENT_READER_END_WITH_ERROR;
		if (e->sent >= e->total) {
			strbuf_addf(&e->out,
				    "event: end\ndata: {\"batch\": "
				    "\"%s\", \"total\": %d}\n\n",
				    e->id, e->total);
			e->ended = true;
			continue;
		}
		if (e->out.len)
			continue;
		if (now_s() - e->last >= SSE_KEEPALIVE_S) {
			/* A comment: tells a vanished client apart. */
			strbuf_addstr(&e->out, ": keepalive\n\n");
			continue;
		}
		usleep(SSE_POLL_MS * 1000);
	}
}

static void sse_free(void *cls)
{
	struct sse *e = cls;

	strbuf_release(&e->out);
	free(e);
}

static enum MHD_Result events(struct serve *s, struct MHD_Connection *c,
			      const char *id)
{
	struct serve_reply r = { 0 };
	struct store_serve_req *v = NULL;
	struct MHD_Response *resp;
	struct store *st;
	struct errbuf err;
	enum MHD_Result ret;
	int n = 0, total = 0, rc;

	errbuf_init(&err);
	if (!serve_id_valid(id, 'b')) {
		serve_reply_error(&r, 404, "batch",
				  "'%.40s' is not a batch "
				  "id (b_ and 16 hex digits)",
				  id);
		return send_reply(c, &r);
	}
	if ((rc = serve_store_take(s, &st, &err)) == 0) {
		rc = store_serve_batch_done_since(st, id, INT64_MAX, &v, &n,
						  &total, &err);
		serve_store_put(s, st);
	}
	store_serve_reqs_free(v, n);
	if (rc == -ENOENT) {
		serve_reply_error(&r, 404, "batch", "no batch %s", id);
		return send_reply(c, &r);
	}
	if (rc) {
		serve_reply_error(&r, 500, NULL, "%s", errbuf_str(&err));
		return send_reply(c, &r);
	}
	struct sse *e = xcalloc(1, sizeof(*e));
	e->s = s;
	snprintf(e->id, sizeof(e->id), "%s", id);
	e->last = now_s();
	strbuf_init(&e->out);
	resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384,
						 sse_read, e, sse_free);
	MHD_add_response_header(resp, "Content-Type", "text/event-stream");
	MHD_add_response_header(resp, "Cache-Control", "no-cache");
	ret = MHD_queue_response(c, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* ---- routing ---- */

static enum MHD_Result route(struct serve *s, struct MHD_Connection *c,
			     const char *url, const char *method,
			     struct conn *cn)
{
	struct serve_reply r = { 0 };
	bool get = !strcmp(method, "GET"), post = !strcmp(method, "POST");
	const char *p;

	if (!strcmp(url, "/v1/health")) {
		if (get)
			serve_api_health(s, &r);
		else
			serve_reply_error(&r, 405, NULL,
					  "/v1/health takes "
					  "GET");
	} else if (!authorized(s, c)) {
		serve_reply_error(&r, 401, "Authorization",
				  "this service "
				  "needs 'Authorization: Bearer <token>' "
				  "with the token it was started with");
	} else if (!strcmp(url, "/v1/batches")) {
		if (!post)
			serve_reply_error(&r, 405, NULL,
					  "/v1/batches takes "
					  "POST");
		else if (cn->too_big)
			serve_reply_error(&r, 413, NULL,
					  "the body is over "
					  "%zu bytes, the most this service "
					  "accepts",
					  s->o.max_body);
		else
			serve_api_submit(s, cn->body.buf, cn->body.len, &r);
	} else if (!strncmp(url, "/v1/batches/", 12)) {
		p = url + 12;
		const char *slash = strchr(p, '/');
		char id[64];
		if (!get) {
			serve_reply_error(&r, 405, NULL, "%s takes GET", url);
		} else if (!slash) {
			serve_api_batch(s, p, &r);
		} else if (!strcmp(slash, "/events") && slash - p < 64) {
			snprintf(id, sizeof(id), "%.*s", (int)(slash - p), p);
			return events(s, c, id);
		} else {
			serve_reply_error(&r, 404, NULL,
					  "no such endpoint: "
					  "%.200s",
					  url);
		}
	} else if (!strncmp(url, "/v1/results/", 12)) {
		if (get)
			serve_api_result(s, url + 12, &r);
		else
			serve_reply_error(&r, 405, NULL, "%s takes GET", url);
	} else {
		serve_reply_error(&r, 404, NULL,
				  "no such endpoint: %.200s; "
				  "the API is under /v1 (docs/serve.md)",
				  url);
	}
	return send_reply(c, &r);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_size, void **con_cls)
{
	struct serve *s = cls;
	struct conn *cn = *con_cls;

	if (!cn) {
		cn = xcalloc(1, sizeof(*cn));
		strbuf_init(&cn->body);
		*con_cls = cn;
		/* Refuse a body before reading it: no token, or a declared
		 * length over the cap. */
		if (!strcmp(method, "POST")) {
			struct serve_reply r = { 0 };
			const char *cl = MHD_lookup_connection_value(
				c, MHD_HEADER_KIND,
				MHD_HTTP_HEADER_CONTENT_LENGTH);
			if (!authorized(s, c))
				serve_reply_error(&r, 401, "Authorization",
						  "this service needs "
						  "'Authorization: Bearer "
						  "<token>' with the token it "
						  "was started with");
			else if (cl && strtoull(cl, NULL, 10) > s->o.max_body)
				serve_reply_error(&r, 413, NULL,
						  "the body is "
						  "over %zu bytes, the most "
						  "this service accepts",
						  s->o.max_body);
			if (r.body) {
				cn->refused = true;
				return send_reply(c, &r);
			}
		}
		return MHD_YES;
	}
	if (cn->refused) {
		*upload_size = 0;
		return MHD_YES;
	}
	if (*upload_size) {
		if (cn->body.len + *upload_size > s->o.max_body)
			cn->too_big = true;
		if (!cn->too_big)
			strbuf_add(&cn->body, upload, *upload_size);
		*upload_size = 0;
		return MHD_YES;
	}
	return route(s, c, url, method, cn);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
		      enum MHD_RequestTerminationCode toe)
{
	struct conn *cn = *con_cls;

	if (cn) {
		strbuf_release(&cn->body);
		free(cn);
		*con_cls = NULL;
	}
}

static int unix_listener(const char *path, struct errbuf *err)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct stat sb;
	int fd;

	if (strlen(path) >= sizeof(a.sun_path))
		return errf(err, "%s: a socket path must be under %zu bytes",
			    path, sizeof(a.sun_path));
	/* A socket left by a dead service is replaced; anything else at
	 * the path is not touched. */
	if (lstat(path, &sb) == 0) {
		if (!S_ISSOCK(sb.st_mode))
			return errf_code(err, EEXIST,
					 "%s exists and is not a "
					 "socket",
					 path);
		unlink(path);
	}
	memcpy(a.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errf_code(err, errno, "socket: %s", strerror(errno));
	mode_t old = umask(0177);
	int b = bind(fd, (struct sockaddr *)&a, sizeof(a));
	umask(old);
	if (b || listen(fd, 128)) {
		int e = errno;
		close(fd);
		return errf_code(err, e, "%s: cannot listen: %s", path,
				 strerror(e));
	}
	return fd;
}

int serve_http_start(struct serve *s, struct errbuf *err)
{
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD |
			 MHD_USE_THREAD_PER_CONNECTION;
	struct sockaddr_in a = { .sin_family = AF_INET };
	struct MHD_Daemon *d;

	http_stopping = false;
	if (s->socket_path) {
		int fd = unix_listener(s->socket_path, err);
		if (fd < 0)
			return fd;
		s->listen_fd = fd;
		d = MHD_start_daemon(flags, 0, NULL, NULL, handle, s,
				     MHD_OPTION_LISTEN_SOCKET, fd,
				     MHD_OPTION_NOTIFY_COMPLETED, completed,
				     NULL, MHD_OPTION_CONNECTION_LIMIT,
				     (unsigned)512,
				     MHD_OPTION_CONNECTION_TIMEOUT,
				     (unsigned)120, MHD_OPTION_END);
		snprintf(s->url, sizeof(s->url), "unix:%s", s->socket_path);
	} else {
		const char *h = strcmp(s->host, "localhost") ? s->host
							     : "127.0.0.1";
		if (inet_pton(AF_INET, h, &a.sin_addr) != 1)
			return errf(err,
				    "'%s' is not an IPv4 address to "
				    "listen on (e.g. 127.0.0.1 or 0.0.0.0)",
				    s->host);
		a.sin_port = htons((uint16_t)s->o.port);
		d = MHD_start_daemon(flags, (uint16_t)s->o.port, NULL, NULL,
				     handle, s, MHD_OPTION_SOCK_ADDR,
				     (struct sockaddr *)&a,
				     MHD_OPTION_NOTIFY_COMPLETED, completed,
				     NULL, MHD_OPTION_CONNECTION_LIMIT,
				     (unsigned)512,
				     MHD_OPTION_CONNECTION_TIMEOUT,
				     (unsigned)120, MHD_OPTION_END);
	}
	if (!d)
		return errf_code(err, EADDRINUSE,
				 "cannot listen on %s:%d "
				 "(in use, or not an address of this "
				 "machine)",
				 s->socket_path ? s->socket_path : s->host,
				 s->o.port);
	s->daemon = d;
	if (!s->socket_path) {
		const union MHD_DaemonInfo *i =
			MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
		snprintf(s->url, sizeof(s->url), "http://%s:%u", s->host,
			 i ? (unsigned)i->port : (unsigned)s->o.port);
	}
	return 0;
}

void serve_http_stop(struct serve *s)
{
	if (!s->daemon)
		return;
	http_stopping = true;
	MHD_stop_daemon(s->daemon);
	s->daemon = NULL;
	if (s->listen_fd >= 0) {
		/* MHD_stop_daemon closed the socket it was given. */
		s->listen_fd = -1;
		unlink(s->socket_path);
	}
}

#else /* !ARENA_HAVE_MHD */

int serve_http_start(struct serve *s, struct errbuf *err)
{
	(void)s;
	return errf_code(err, ENOTSUP,
			 "this arena was built without "
			 "libmicrohttpd, so `arena serve` cannot listen; "
			 "install libmicrohttpd-dev (scripts/deps.sh does) "
			 "and rebuild");
}

void serve_http_stop(struct serve *s)
{
	(void)s;
}

#endif
