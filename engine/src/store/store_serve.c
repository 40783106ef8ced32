/*
 * store_serve.c - the queue of `arena serve` (arena/store.h,
 * docs/serve.md): evaluation requests that arrive in batches over the
 * network and wait in the store, so that a restart of the service loses
 * none of them.
 *
 * Life of a request: queued -> running (claimed under a lease: owner and
 * expiry, renewed by the worker) -> done (result or error).  Invariants:
 *   - a request is answered exactly once: only store_serve_finish moves
 *     it to done, only from running and only for the owner of its lease,
 *     in one statement, and it counts the answer (answers);
 *   - two workers never hold one request: a claim is one UPDATE whose
 *     WHERE re-reads the state it changes;
 *   - a request whose worker died is claimed again once its lease
 *     expires (or at once, store_serve_requeue_owner, when its owner is
 *     known dead);
 *   - requests with the same evaluation key are evaluated once: the claim
 *     skips keys that a live lease is evaluating, and a finish with a
 *     cacheable result answers the queued requests of its key.
 * Sources are dropped from a request once it is done: its result names
 * their hashes, and the client has the files.
 */
#include "store_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The columns every read takes, in this order (req_from_row). */
#define REQ_COLS                                                           \
	"id, batch_id, idx, task_id, priority, quick, eval_key, state, "   \
	"owner, created_at, started_at, finished_at, result_json, error, " \
	"answers, done_seq, cached"

void store_serve_req_release(struct store_serve_req *r)
{
	if (!r)
		return;
	free(r->id);
	free(r->batch_id);
	free(r->task_id);
	free(r->sources_json);
	free(r->eval_key);
	free(r->state);
	free(r->owner);
	free(r->result_json);
	free(r->error);
	memset(r, 0, sizeof(*r));
}

void store_serve_reqs_free(struct store_serve_req *r, int n)
{
	for (int i = 0; r && i < n; i++)
		store_serve_req_release(&r[i]);
	free(r);
}

static void req_from_row(sqlite3_stmt *st, int first, struct store_serve_req *r)
{
	int c = first;

	memset(r, 0, sizeof(*r));
	r->id = st_col_text(st, c++);
	r->batch_id = st_col_text(st, c++);
	r->idx = sqlite3_column_int(st, c++);
	r->task_id = st_col_text(st, c++);
	r->priority = sqlite3_column_int(st, c++);
	r->quick = sqlite3_column_int(st, c++) != 0;
	r->eval_key = st_col_text(st, c++);
	r->state = st_col_text(st, c++);
	r->owner = st_col_text(st, c++);
	r->created_at = sqlite3_column_double(st, c++);
	r->started_at = sqlite3_column_double(st, c++);
	r->finished_at = sqlite3_column_double(st, c++);
	r->result_json = st_col_text(st, c++);
	r->error = st_col_text(st, c++);
	r->answers = sqlite3_column_int(st, c++);
	r->done_seq = sqlite3_column_int64(st, c++);
	r->cached = sqlite3_column_int(st, c++) != 0;
}

/* A transaction on a handle only this thread uses (see store.h). */
static int tx_begin(struct store *s, struct errbuf *err)
{
	if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) !=
	    SQLITE_OK)
		return st_db_error(s, err, "begin a transaction");
	return 0;
}

static int tx_end(struct store *s, int rc, struct errbuf *err)
{
	if (rc == 0 &&
	    sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		rc = st_db_error(s, err, "commit");
	if (rc)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

static int count_pending(struct store *s, int *pending, int *running,
			 struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_prepare(s,
			    "SELECT COUNT(*), COALESCE(SUM(state = 'running'),"
			    " 0) FROM serve_requests WHERE state != 'done'",
			    &st, err);

	if (rc)
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW) {
		*pending = sqlite3_column_int(st, 0);
		if (running)
			*running = sqlite3_column_int(st, 1);
	} else {
		rc = st_db_error(s, err, "count requests");
	}
	sqlite3_finalize(st);
	return rc;
}

int store_serve_counts(struct store *s, int *pending, int *running,
		       struct errbuf *err)
{
	return count_pending(s, pending, running, err);
}

/* The batch id a client key already names: 0 and *id, -ENOENT, or an
 * error. */
static int batch_of_key(struct store *s, const char *key, char **id,
			struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_prepare(s,
			    "SELECT batch_id FROM serve_requests WHERE "
			    "client_key = ? LIMIT 1",
			    &st, err);
	int r;

	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW)
		*id = st_col_text(st, 0);
	else if (r == SQLITE_DONE)
		rc = -ENOENT;
	else
		rc = st_db_error(s, err, "look up a batch key");
	sqlite3_finalize(st);
	return rc;
}

/* The next answer's place in the order of answers (within the caller's
 * transaction). */
static int next_done_seq(struct store *s, int64_t *seq, struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_prepare(s,
			    "SELECT COALESCE(MAX(done_seq), 0) + 1 FROM "
			    "serve_requests",
			    &st, err);

	if (rc)
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW)
		*seq = sqlite3_column_int64(st, 0);
	else
		rc = st_db_error(s, err, "number an answer");
	sqlite3_finalize(st);
	return rc;
}

static int insert_req(struct store *s, const char *batch_id,
		      const char *client_key, const struct store_serve_req *q,
		      double now, int64_t *done_seq, struct errbuf *err)
{
	sqlite3_stmt *st;
	bool done = q->state && !strcmp(q->state, "done");
	int rc = st_prepare(s,
			    "INSERT INTO serve_requests(id, batch_id, idx,"
			    " client_key, task_id, priority, quick,"
			    " sources_json, eval_key, state, created_at,"
			    " finished_at, result_json, error, answers,"
			    " done_seq, cached) VALUES(?,?,?,?,?,?,?,?,?,?,?,"
			    "?,?,?,?,?,?)",
			    &st, err);

	if (rc)
		return rc;
	if (done && (rc = next_done_seq(s, done_seq, err)) != 0) {
		sqlite3_finalize(st);
		return rc;
	}
	sqlite3_bind_text(st, 1, q->id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, batch_id, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, q->idx);
	st_bind_text_or_null(st, 4, client_key);
	sqlite3_bind_text(st, 5, q->task_id, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 6, q->priority);
	sqlite3_bind_int(st, 7, q->quick);
	st_bind_text_or_null(st, 8, done ? NULL : q->sources_json);
	sqlite3_bind_text(st, 9, q->eval_key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 10, done ? "done" : "queued", -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 11, now);
	if (done) {
		sqlite3_bind_double(st, 12, now);
		st_bind_text_or_null(st, 13, q->result_json);
		st_bind_text_or_null(st, 14, q->error);
		sqlite3_bind_int(st, 15, 1);
		sqlite3_bind_int64(st, 16, *done_seq);
		sqlite3_bind_int(st, 17, q->cached);
	} else {
		sqlite3_bind_null(st, 12);
		sqlite3_bind_null(st, 13);
		sqlite3_bind_null(st, 14);
		sqlite3_bind_int(st, 15, 0);
		sqlite3_bind_null(st, 16);
		sqlite3_bind_int(st, 17, 0);
	}
	return st_exec_stmt(s, st, "insert a request", err);
}

int store_serve_batch_add(struct store *s, const char *batch_id,
			  const char *client_key, struct store_serve_req *reqs,
			  int n, int max_pending, char **existing,
			  struct errbuf *err)
{
	double now = now_wall();
	int pending = 0, queued = 0, rc;
	int64_t seq = 0;

	*existing = NULL;
	for (int i = 0; i < n; i++)
		if (!reqs[i].state || strcmp(reqs[i].state, "done"))
			queued++;
	if ((rc = tx_begin(s, err)) != 0)
		return rc;
	if (client_key &&
	    (rc = batch_of_key(s, client_key, existing, err)) != -ENOENT) {
		if (rc == 0)
			rc = -EEXIST;
		return tx_end(s, rc, err);
	}
	rc = count_pending(s, &pending, NULL, err);
	if (rc == 0 && queued > 0 && pending + queued > max_pending)
		rc = errf_code(err, EAGAIN,
			       "the queue is full: %d requests "
			       "wait, at most %d may; try again later",
			       pending, max_pending);
	for (int i = 0; i < n && rc == 0; i++)
		rc = insert_req(s, batch_id, client_key, &reqs[i], now, &seq,
				err);
	return tx_end(s, rc, err);
}

int store_serve_claim(struct store *s, const char *owner, double ttl_s,
		      struct store_serve_req *out, struct errbuf *err)
{
	sqlite3_stmt *st;
	double now = now_wall();
	/* One statement: the inner SELECT and the UPDATE see the same
	 * snapshot under the write lock, so a row is claimed once. */
	int rc = st_prepare(
		s,
		"UPDATE serve_requests SET state = 'running', owner = ?1,"
		" expires_at = ?2, started_at = ?3 WHERE seq = ("
		"  SELECT q.seq FROM serve_requests q WHERE"
		"  (q.state = 'queued' OR (q.state = 'running' AND"
		"   q.expires_at < ?3)) AND NOT EXISTS ("
		"   SELECT 1 FROM serve_requests r WHERE r.eval_key = q.eval_key"
		"   AND r.state = 'running' AND r.expires_at >= ?3"
		"   AND r.seq != q.seq)"
		"  ORDER BY q.priority DESC, q.seq LIMIT 1)"
		" RETURNING " REQ_COLS ", sources_json",
		&st, err);
	int r;

	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, owner, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 2, now + ttl_s);
	sqlite3_bind_double(st, 3, now);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		req_from_row(st, 0, out);
		out->sources_json = st_col_text(st, 17);
		/* A RETURNING row comes before the commit: step on. */
		r = sqlite3_step(st);
		if (r != SQLITE_DONE) {
			store_serve_req_release(out);
			rc = st_db_error(s, err, "claim a request");
		}
	} else if (r == SQLITE_DONE) {
		rc = -ENOENT;
	} else {
		rc = st_db_error(s, err, "claim a request");
	}
	sqlite3_finalize(st);
	return rc;
}

int store_serve_finish(struct store *s, const char *id, const char *owner,
		       const char *result_json, const char *error,
		       bool cacheable, int *also, struct errbuf *err)
{
	sqlite3_stmt *st;
	char *key = NULL;
	double now = now_wall();
	int64_t seq;
	int rc;

	if (also)
		*also = 0;
	if ((rc = tx_begin(s, err)) != 0)
		return rc;
	if ((rc = next_done_seq(s, &seq, err)) != 0)
		return tx_end(s, rc, err);
	rc = st_prepare(s,
			"UPDATE serve_requests SET state = 'done',"
			" result_json = ?, error = ?, answers = answers + 1,"
			" finished_at = ?, done_seq = ?, sources_json = NULL,"
			" owner = NULL, expires_at = NULL WHERE id = ? AND"
			" state = 'running' AND owner = ? RETURNING eval_key",
			&st, err);
	if (rc)
		return tx_end(s, rc, err);
	st_bind_text_or_null(st, 1, result_json);
	st_bind_text_or_null(st, 2, error);
	sqlite3_bind_double(st, 3, now);
	sqlite3_bind_int64(st, 4, seq);
	sqlite3_bind_text(st, 5, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, owner, -1, SQLITE_STATIC);
	int r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		key = st_col_text(st, 0);
		r = sqlite3_step(st);
	}
	if (r != SQLITE_DONE)
		rc = st_db_error(s, err, "answer a request");
	else if (!key)
		rc = errf_code(err, ESTALE,
			       "request %s is no longer held by "
			       "this worker (its lease expired and another "
			       "worker took it)",
			       id);
	sqlite3_finalize(st);
	if (rc == 0 && cacheable && result_json) {
		/* The queued twins of this key: answered now, in the same
		 * place of the order of answers (they become visible in the
		 * same commit, so a reader that has seen done_seq N has
		 * seen every answer numbered N). */
		rc = st_prepare(s,
				"UPDATE serve_requests SET state = 'done',"
				" result_json = ?1, answers = answers + 1,"
				" cached = 1, finished_at = ?2, done_seq = ?3,"
				" sources_json = NULL WHERE eval_key = ?4 AND"
				" state = 'queued'",
				&st, err);
		if (rc == 0) {
			sqlite3_bind_text(st, 1, result_json, -1,
					  SQLITE_STATIC);
			sqlite3_bind_double(st, 2, now);
			sqlite3_bind_int64(st, 3, seq);
			sqlite3_bind_text(st, 4, key, -1, SQLITE_STATIC);
			rc = st_exec_stmt(s, st, "answer queued twins", err);
			if (rc == 0 && also)
				*also = sqlite3_changes(s->db);
		}
	}
	free(key);
	return tx_end(s, rc, err);
}

int store_serve_requeue(struct store *s, const char *id, const char *owner,
			struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_prepare(s,
			    "UPDATE serve_requests SET state = 'queued',"
			    " owner = NULL, expires_at = NULL WHERE id = ? AND"
			    " state = 'running' AND owner = ?",
			    &st, err);

	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, owner, -1, SQLITE_STATIC);
	return st_exec_stmt(s, st, "requeue a request", err);
}

int store_serve_requeue_owner(struct store *s, const char *owner, int *n,
			      struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_prepare(s,
			    "UPDATE serve_requests SET state = 'queued',"
			    " owner = NULL, expires_at = NULL WHERE"
			    " state = 'running' AND owner = ?",
			    &st, err);

	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, owner, -1, SQLITE_STATIC);
	rc = st_exec_stmt(s, st, "requeue a worker's requests", err);
	if (rc == 0 && n)
		*n = sqlite3_changes(s->db);
	return rc;
}

int store_serve_owners(struct store *s, struct strvec *owners,
		       struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_prepare(s,
			    "SELECT DISTINCT owner FROM serve_requests WHERE"
			    " state = 'running' AND owner IS NOT NULL ORDER BY"
			    " owner",
			    &st, err);
	int r;

	if (rc)
		return rc;
	while ((r = sqlite3_step(st)) == SQLITE_ROW)
		strvec_push(owners, (const char *)sqlite3_column_text(st, 0));
	if (r != SQLITE_DONE)
		rc = st_db_error(s, err, "list request owners");
	sqlite3_finalize(st);
	return rc;
}

int store_serve_renew(struct store *s, const char *owner, double ttl_s,
		      struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_prepare(s,
			    "UPDATE serve_requests SET expires_at = ? WHERE"
			    " state = 'running' AND owner = ?",
			    &st, err);

	if (rc)
		return rc;
	sqlite3_bind_double(st, 1, now_wall() + ttl_s);
	sqlite3_bind_text(st, 2, owner, -1, SQLITE_STATIC);
	return st_exec_stmt(s, st, "renew request leases", err);
}

int store_serve_get(struct store *s, const char *id,
		    struct store_serve_req *out, struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_prepare(s,
			    "SELECT " REQ_COLS " FROM serve_requests WHERE"
			    " id = ?",
			    &st, err);
	int r;

	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW)
		req_from_row(st, 0, out);
	else if (r == SQLITE_DONE)
		rc = -ENOENT;
	else
		rc = st_db_error(s, err, "read a request");
	sqlite3_finalize(st);
	return rc;
}

int store_serve_batch(struct store *s, const char *batch_id,
		      struct store_serve_req **out, int *n, struct errbuf *err)
{
	sqlite3_stmt *st;
	struct store_serve_req *v = NULL;
	int cap = 0, k = 0, r;
	int rc = st_prepare(s,
			    "SELECT " REQ_COLS " FROM serve_requests WHERE"
			    " batch_id = ? ORDER BY idx",
			    &st, err);

	*out = NULL;
	*n = 0;
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, batch_id, -1, SQLITE_STATIC);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		if (k == cap) {
			cap = cap ? 2 * cap : 16;
			v = xrealloc(v, (size_t)cap * sizeof(*v));
		}
		req_from_row(st, 0, &v[k++]);
	}
	if (r != SQLITE_DONE)
		rc = st_db_error(s, err, "read a batch");
	else if (k == 0)
		rc = -ENOENT;
	sqlite3_finalize(st);
	if (rc) {
		store_serve_reqs_free(v, k);
		return rc;
	}
	*out = v;
	*n = k;
	return 0;
}

int store_serve_batch_done_since(struct store *s, const char *batch_id,
				 int64_t after, struct store_serve_req **out,
				 int *n, int *total, struct errbuf *err)
{
	sqlite3_stmt *st;
	struct store_serve_req *v = NULL;
	int cap = 0, k = 0, r, rc;

	*out = NULL;
	*n = 0;
	*total = 0;
	/* One read transaction, so the count and the rows agree. */
	if (sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return st_db_error(s, err, "begin a read");
	rc = st_prepare(s,
			"SELECT COUNT(*) FROM serve_requests WHERE"
			" batch_id = ?",
			&st, err);
	if (rc == 0) {
		sqlite3_bind_text(st, 1, batch_id, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			*total = sqlite3_column_int(st, 0);
		else
			rc = st_db_error(s, err, "count a batch");
		sqlite3_finalize(st);
	}
	if (rc == 0 && *total == 0)
		rc = -ENOENT;
	if (rc == 0)
		rc = st_prepare(s,
				"SELECT " REQ_COLS " FROM serve_requests"
				" WHERE batch_id = ? AND state = 'done' AND"
				" done_seq > ? ORDER BY done_seq, idx",
				&st, err);
	if (rc == 0) {
		sqlite3_bind_text(st, 1, batch_id, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, after);
		while ((r = sqlite3_step(st)) == SQLITE_ROW) {
			if (k == cap) {
				cap = cap ? 2 * cap : 16;
				v = xrealloc(v, (size_t)cap * sizeof(*v));
			}
			req_from_row(st, 0, &v[k++]);
		}
		if (r != SQLITE_DONE)
			rc = st_db_error(s, err, "read a batch's answers");
		sqlite3_finalize(st);
	}
	sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
	if (rc) {
		store_serve_reqs_free(v, k);
		return rc;
	}
	*out = v;
	*n = k;
	return 0;
}
