/*
 * serve_api.c - the answers of `arena serve`'s API as JSON (docs/serve.md),
 * independent of HTTP: serve_http.c routes a request here and sends what
 * comes back.
 *
 * A batch is accepted whole or not at all: every item is checked against
 * its task (it exists and loads; its sources are exactly the task's
 * editable files) before one transaction queues them all.  The first
 * problem found is the answer, 400 with the field at fault.  A full queue
 * is 429 with Retry-After; a draining service 503.
 */
#include "serve_internal.h"
#include "serve_request.h"

#include <cJSON.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/task.h"

#define SERVE_RETRY_AFTER_S 5

void serve_reply_release(struct serve_reply *r)
{
	free(r->body);
	memset(r, 0, sizeof(*r));
}

static void reply_json(struct serve_reply *r, int status, cJSON *o)
{
	char *s = cJSON_PrintUnformatted(o);

	if (!s)
		abort(); /* out of memory, as xmalloc */
	r->status = status;
	r->body = xstrdup(s);
	cJSON_free(s);
	cJSON_Delete(o);
}

void serve_reply_error(struct serve_reply *r, int status, const char *field,
		       const char *fmt, ...)
{
	char msg[ERRBUF_SIZE];
	va_list ap;
	cJSON *o = cJSON_CreateObject(), *e = cJSON_CreateObject();

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (field)
		cJSON_AddStringToObject(e, "field", field);
	else
		cJSON_AddNullToObject(e, "field");
	cJSON_AddStringToObject(e, "message", msg);
	cJSON_AddItemToObject(o, "error", e);
	reply_json(r, status, o);
}

bool serve_id_valid(const char *id, char prefix)
{
	if (!id || id[0] != prefix || id[1] != '_' || strlen(id) != 18)
		return false;
	for (int i = 2; i < 18; i++)
		if (!((id[i] >= '0' && id[i] <= '9') ||
		      (id[i] >= 'a' && id[i] <= 'f')))
			return false;
	return true;
}

static char *new_id(char prefix)
{
	unsigned char b[8];
	char *id = xmalloc(19);

	random_bytes(b, sizeof(b));
	id[0] = prefix;
	id[1] = '_';
	for (int i = 0; i < 8; i++)
		snprintf(id + 2 + 2 * i, 3, "%02x", b[i]);
	return id;
}

/* The tasks a batch names, each loaded once. */
struct task_memo {
	struct task **t;
	int n;
};

static void memo_release(struct task_memo *m)
{
	for (int i = 0; i < m->n; i++)
		task_free(m->t[i]);
	free(m->t);
}

static int memo_task(struct serve *s, struct task_memo *m, const char *id,
		     const struct task **out, struct errbuf *err)
{
	struct task *t;
	int rc;

	for (int i = 0; i < m->n; i++)
		if (!strcmp(m->t[i]->id, id)) {
			*out = m->t[i];
			return 0;
		}
	rc = task_load(s->tasks_root, id, &t, err);
	if (rc)
		return rc;
	m->t = xrealloc(m->t, (size_t)(m->n + 1) * sizeof(*m->t));
	m->t[m->n++] = t;
	*out = t;
	return 0;
}

/* An item's sources are exactly its task's editable files. */
static bool check_item(struct serve *s, struct task_memo *m, int i,
		       const struct serve_item *it, struct serve_reply *r)
{
	const struct task *t;
	struct errbuf err;
	char field[400];

	errbuf_init(&err);
	snprintf(field, sizeof(field), "items[%d].task", i);
	if (memo_task(s, m, it->task_id, &t, &err)) {
		serve_reply_error(r, 400, field, "%s", errbuf_str(&err));
		return false;
	}
	for (int k = 0; k < it->nfiles; k++) {
		bool known = false;
		for (size_t j = 0; j < t->editable.n && !known; j++)
			known = !strcmp(t->editable.v[j], it->files[k].name);
		if (!known) {
			struct strbuf names = STRBUF_INIT;
			for (size_t j = 0; j < t->editable.n; j++)
				strbuf_addf(&names, "%s%s", j ? ", " : "",
					    t->editable.v[j]);
			snprintf(field, sizeof(field), "items[%d].sources.%s",
				 i, it->files[k].name);
			serve_reply_error(r, 400, field,
					  "task %s has no editable file "
					  "'%s'; its editable files are: %s",
					  t->id, it->files[k].name,
					  strbuf_str(&names));
			strbuf_release(&names);
			return false;
		}
	}
	for (size_t j = 0; j < t->editable.n; j++) {
		bool given = false;
		for (int k = 0; k < it->nfiles && !given; k++)
			given = !strcmp(t->editable.v[j], it->files[k].name);
		if (!given) {
			snprintf(field, sizeof(field), "items[%d].sources", i);
			serve_reply_error(r, 400, field,
					  "the editable file '%s' of task %s "
					  "is missing; give the text of every "
					  "editable file",
					  t->editable.v[j], t->id);
			return false;
		}
	}
	return true;
}

static void reply_receipt(struct serve_reply *r, int status, const char *batch,
			  struct store_serve_req *q, int n, bool existing)
{
	cJSON *o = cJSON_CreateObject(), *ids = cJSON_CreateArray();

	cJSON_AddStringToObject(o, "batch", batch);
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(ids, cJSON_CreateString(q[i].id));
	cJSON_AddItemToObject(o, "ids", ids);
	cJSON_AddBoolToObject(o, "existing", existing);
	reply_json(r, status, o);
}

void serve_api_submit(struct serve *s, const char *body, size_t len,
		      struct serve_reply *r)
{
	struct serve_batch_req b;
	struct serve_error e;
	struct task_memo memo = { 0 };
	struct store_serve_req *q = NULL;
	struct store *st = NULL;
	struct errbuf err;
	char *batch = NULL, *existing = NULL;
	int rc;

	errbuf_init(&err);
	if (s->draining) {
		serve_reply_error(r, 503, NULL,
				  "the service is shutting down; "
				  "submit again once it is back");
		r->retry_after = SERVE_RETRY_AFTER_S;
		return;
	}
	serve_error_init(&e);
	if (serve_request_parse(body, len, &b, &e)) {
		serve_reply_error(r, 400, e.field, "%s", errbuf_str(&e.err));
		goto out;
	}
	for (int i = 0; i < b.n; i++)
		if (!check_item(s, &memo, i, &b.items[i], r))
			goto out;
	batch = new_id('b');
	q = xcalloc((size_t)b.n, sizeof(*q));
	for (int i = 0; i < b.n; i++) {
		char key[65];
		serve_item_key(&b.items[i], key);
		q[i].id = new_id('r');
		q[i].idx = i;
		q[i].task_id = xstrdup(b.items[i].task_id);
		q[i].priority = b.items[i].priority;
		q[i].quick = b.items[i].quick;
		q[i].sources_json = serve_item_sources_json(&b.items[i]);
		q[i].eval_key = xstrdup(key);
	}
	if ((rc = serve_store_take(s, &st, &err)) == 0) {
		rc = store_serve_batch_add(st, batch, b.client_key, q, b.n,
					   s->o.max_queue, &existing, &err);
		if (rc == -EEXIST) {
			/* A batch this client key submitted before: its ids,
			 * nothing added. */
			struct store_serve_req *old = NULL;
			int n = 0;
			rc = store_serve_batch(st, existing, &old, &n, &err);
			if (rc == 0)
				reply_receipt(r, 200, existing, old, n, true);
			store_serve_reqs_free(old, n);
			if (rc == 0)
				goto out;
		}
	}
	if (rc == -EAGAIN) {
		serve_reply_error(r, 429, NULL, "%s", errbuf_str(&err));
		r->retry_after = SERVE_RETRY_AFTER_S;
	} else if (rc) {
		serve_reply_error(r, 500, NULL, "%s", errbuf_str(&err));
	} else {
		reply_receipt(r, 202, batch, q, b.n, false);
		pthread_mutex_lock(&s->mu);
		pthread_cond_broadcast(&s->wake);
		pthread_mutex_unlock(&s->mu);
	}
out:
	if (st)
		serve_store_put(s, st);
	if (q)
		for (int i = 0; i < b.n; i++)
			store_serve_req_release(&q[i]);
	free(q);
	free(batch);
	free(existing);
	memo_release(&memo);
	serve_batch_req_release(&b);
}

cJSON *serve_req_json(const struct store_serve_req *q)
{
	cJSON *o = cJSON_CreateObject(), *res = NULL;

	cJSON_AddStringToObject(o, "id", q->id);
	cJSON_AddStringToObject(o, "batch", q->batch_id);
	cJSON_AddNumberToObject(o, "index", q->idx);
	cJSON_AddStringToObject(o, "task", q->task_id);
	cJSON_AddNumberToObject(o, "priority", q->priority);
	cJSON_AddBoolToObject(o, "quick", q->quick);
	cJSON_AddStringToObject(o, "state", q->state);
	cJSON_AddNumberToObject(o, "answers", q->answers);
	cJSON_AddBoolToObject(o, "shared", q->cached);
	cJSON_AddNumberToObject(o, "created_at", q->created_at);
	if (q->started_at > 0)
		cJSON_AddNumberToObject(o, "started_at", q->started_at);
	if (q->finished_at > 0)
		cJSON_AddNumberToObject(o, "finished_at", q->finished_at);
	if (q->result_json)
		res = cJSON_Parse(q->result_json);
	if (res)
		cJSON_AddItemToObject(o, "result", res);
	else
		cJSON_AddNullToObject(o, "result");
	if (q->error)
		cJSON_AddStringToObject(o, "error", q->error);
	else
		cJSON_AddNullToObject(o, "error");
	return o;
}

void serve_api_batch(struct serve *s, const char *id, struct serve_reply *r)
{
	struct store_serve_req *v = NULL;
	struct store *st;
	struct errbuf err;
	int n = 0, done = 0, rc;

	errbuf_init(&err);
	if (!serve_id_valid(id, 'b')) {
		serve_reply_error(r, 404, "batch",
				  "'%.40s' is not a batch id "
				  "(b_ and 16 hex digits)",
				  id);
		return;
	}
	if ((rc = serve_store_take(s, &st, &err)) == 0) {
		rc = store_serve_batch(st, id, &v, &n, &err);
		serve_store_put(s, st);
	}
	if (rc == -ENOENT) {
		serve_reply_error(r, 404, "batch", "no batch %s", id);
		return;
	}
	if (rc) {
		serve_reply_error(r, 500, NULL, "%s", errbuf_str(&err));
		return;
	}
	cJSON *o = cJSON_CreateObject(), *items = cJSON_CreateArray();
	for (int i = 0; i < n; i++) {
		done += !strcmp(v[i].state, "done");
		cJSON_AddItemToArray(items, serve_req_json(&v[i]));
	}
	cJSON_AddStringToObject(o, "batch", id);
	cJSON_AddNumberToObject(o, "total", n);
	cJSON_AddNumberToObject(o, "done", done);
	cJSON_AddItemToObject(o, "items", items);
	store_serve_reqs_free(v, n);
	reply_json(r, 200, o);
}

void serve_api_result(struct serve *s, const char *id, struct serve_reply *r)
{
	struct store_serve_req q;
	struct store *st;
	struct errbuf err;
	int rc;

	errbuf_init(&err);
	if (!serve_id_valid(id, 'r')) {
		serve_reply_error(r, 404, "id",
				  "'%.40s' is not a request id "
				  "(r_ and 16 hex digits)",
				  id);
		return;
	}
	if ((rc = serve_store_take(s, &st, &err)) == 0) {
		rc = store_serve_get(st, id, &q, &err);
		serve_store_put(s, st);
	}
	if (rc == -ENOENT) {
		serve_reply_error(r, 404, "id", "no request %s", id);
		return;
	}
	if (rc) {
		serve_reply_error(r, 500, NULL, "%s", errbuf_str(&err));
		return;
	}
	reply_json(r, 200, serve_req_json(&q));
	store_serve_req_release(&q);
}

void serve_api_health(struct serve *s, struct serve_reply *r)
{
	struct store *st;
	struct errbuf err;
	int pending = 0, running = 0, rc;

	errbuf_init(&err);
	if ((rc = serve_store_take(s, &st, &err)) == 0) {
		rc = store_serve_counts(st, &pending, &running, &err);
		serve_store_put(s, st);
	}
	if (rc) {
		serve_reply_error(r, 500, NULL, "%s", errbuf_str(&err));
		return;
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "ok", true);
	cJSON_AddBoolToObject(o, "draining", s->draining);
	cJSON_AddNumberToObject(o, "queued", pending - running);
	cJSON_AddNumberToObject(o, "running", running);
	cJSON_AddNumberToObject(o, "workers", s->nworkers);
	cJSON_AddNumberToObject(o, "busy", s->busy);
	cJSON_AddNumberToObject(o, "answered", s->answered);
	cJSON_AddNumberToObject(o, "max_queue", s->o.max_queue);
	reply_json(r, 200, o);
}
