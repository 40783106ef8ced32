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
	int rc = st_one(s, &st, err, "count requests",
			"SELECT COUNT(*), COALESCE(SUM(state = 'running'), 0)"
			" FROM serve_requests WHERE state != 'done'",
			"");

	if (rc == 0) {
		*pending = sqlite3_column_int(st, 0);
		if (running)
			*running = sqlite3_column_int(st, 1);
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
	int rc = st_one(s, &st, err, "look up a batch key",
			"SELECT batch_id FROM serve_requests WHERE"
			" client_key = ? LIMIT 1",
			"s", key);

	if (rc == 0)
		*id = st_col_text(st, 0);
	sqlite3_finalize(st);
	return rc;
}

/* The next answer's place in the order of answers (within the caller's
 * transaction). */
static int next_done_seq(struct store *s, int64_t *seq, struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_one(s, &st, err, "number an answer",
			"SELECT COALESCE(MAX(done_seq), 0) + 1 FROM"
			" serve_requests",
			"");

	if (rc == 0)
		*seq = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc;
}

/* A request arrives queued, or done when the cache answered it at once
 * (then numbered in the order of answers; finished_at and done_seq bind
 * 0 for a queued one, which NULLIF stores as NULL). */
static int insert_req(struct store *s, const char *batch_id,
		      const char *client_key, const struct store_serve_req *q,
		      double now, int64_t *done_seq, struct errbuf *err)
{
	bool done = q->state && !strcmp(q->state, "done");
	int rc;

	if (done && (rc = next_done_seq(s, done_seq, err)) != 0)
		return rc;
	return st_exec(s, err, "insert a request",
		       "INSERT INTO serve_requests(id, batch_id, idx,"
		       " client_key, task_id, priority, quick, sources_json,"
		       " eval_key, state, created_at, finished_at, result_json,"
		       " error, answers, done_seq, cached) VALUES(?,?,?,?,?,?,"
		       "?,?,?,?,?,NULLIF(?, 0),?,?,?,NULLIF(?, 0),?)",
		       "ssissiisssddssiIi", q->id, batch_id, q->idx, client_key,
		       q->task_id, q->priority, q->quick,
		       done ? NULL : q->sources_json, q->eval_key,
		       done ? "done" : "queued", now, done ? now : 0.0,
		       done ? q->result_json : NULL, done ? q->error : NULL,
		       done ? 1 : 0, done ? *done_seq : (int64_t)0,
		       done && q->cached);
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

/* A request a worker may take at time :now: queued, or running under an
 * expired lease, and no live lease evaluating its key.  The one
 * condition of the idle check and of the claim. */
#define CLAIMABLE                                              \
	"(q.state = 'queued' OR (q.state = 'running' AND"      \
	" q.expires_at < :now)) AND NOT EXISTS (SELECT 1 FROM" \
	" serve_requests r WHERE r.eval_key = q.eval_key AND"  \
	" r.state = 'running' AND r.expires_at >= :now AND r.seq != q.seq)"

/* Whether a request waits that a worker may take: 0, -ENOENT or an
 * error.  A read: an idle service's workers poll with it, and only take
 * the write lock (the claim) when it finds one. */
static int claimable(struct store *s, double now, struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_one(s, &st, err, "look for a request to claim",
			"SELECT 1 FROM serve_requests q WHERE " CLAIMABLE
			" LIMIT 1",
			"d", now);

	sqlite3_finalize(st);
	return rc;
}

int store_serve_claim(struct store *s, const char *owner, double ttl_s,
		      struct store_serve_req *out, struct errbuf *err)
{
	sqlite3_stmt *st;
	double now = now_wall();
	int rc = claimable(s, now, err);

	if (rc)
		return rc;
	/* One statement: the inner SELECT and the UPDATE see the same
	 * snapshot under the write lock, so a row is claimed once (what the
	 * read above saw may be gone by now: then -ENOENT). */
	rc = st_one(s, &st, err, "claim a request",
		    "UPDATE serve_requests SET state = 'running', owner = ?1,"
		    " expires_at = ?2, started_at = :now WHERE seq = ("
		    " SELECT q.seq FROM serve_requests q WHERE " CLAIMABLE
		    " ORDER BY q.priority DESC, q.seq LIMIT 1)"
		    " RETURNING " REQ_COLS ", sources_json",
		    "sdd", owner, now + ttl_s, now);
	if (rc == 0) {
		req_from_row(st, 0, out);
		out->sources_json = st_col_text(st, 17);
		/* A RETURNING row comes before the commit: step on. */
		if ((rc = st_done(s, st, err, "claim a request")) != 0)
			store_serve_req_release(out);
	} else {
		sqlite3_finalize(st);
	}
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
	rc = st_one(s, &st, err, "answer a request",
		    "UPDATE serve_requests SET state = 'done',"
		    " result_json = ?, error = ?, answers = answers + 1,"
		    " finished_at = ?, done_seq = ?, sources_json = NULL,"
		    " owner = NULL, expires_at = NULL WHERE id = ? AND"
		    " state = 'running' AND owner = ? RETURNING eval_key",
		    "ssdIss", result_json, error, now, seq, id, owner);
	if (rc == 0) {
		key = st_col_text(st, 0);
		rc = st_done(s, st, err, "answer a request");
	} else {
		sqlite3_finalize(st);
	}
	if (rc == -ENOENT)
		rc = errf_code(err, ESTALE,
			       "request %s is no longer held by "
			       "this worker (its lease expired and another "
			       "worker took it)",
			       id);
	if (rc == 0 && cacheable && result_json) {
		/* The queued twins of this key: answered now, in the same
		 * place of the order of answers (they become visible in the
		 * same commit, so a reader that has seen done_seq N has
		 * seen every answer numbered N). */
		rc = st_exec(s, err, "answer queued twins",
			     "UPDATE serve_requests SET state = 'done',"
			     " result_json = ?1, answers = answers + 1,"
			     " cached = 1, finished_at = ?2, done_seq = ?3,"
			     " sources_json = NULL WHERE eval_key = ?4 AND"
			     " state = 'queued'",
			     "sdIs", result_json, now, seq, key);
		if (rc == 0 && also)
			*also = sqlite3_changes(s->db);
	}
	free(key);
	return tx_end(s, rc, err);
}

int store_serve_requeue(struct store *s, const char *id, const char *owner,
			struct errbuf *err)
{
	return st_exec(s, err, "requeue a request",
		       "UPDATE serve_requests SET state = 'queued',"
		       " owner = NULL, expires_at = NULL WHERE id = ? AND"
		       " state = 'running' AND owner = ?",
		       "ss", id, owner);
}

int store_serve_requeue_owner(struct store *s, const char *owner, int *n,
			      struct errbuf *err)
{
	int rc = st_exec(s, err, "requeue a worker's requests",
			 "UPDATE serve_requests SET state = 'queued',"
			 " owner = NULL, expires_at = NULL WHERE"
			 " state = 'running' AND owner = ?",
			 "s", owner);

	if (rc == 0 && n)
		*n = sqlite3_changes(s->db);
	return rc;
}

int store_serve_owners(struct store *s, struct strvec *owners,
		       struct errbuf *err)
{
	return st_strings(s, owners, err, "list request owners",
			  "SELECT DISTINCT owner FROM serve_requests WHERE"
			  " state = 'running' AND owner IS NOT NULL ORDER BY"
			  " owner",
			  "");
}

int store_serve_renew(struct store *s, const char *owner, double ttl_s,
		      struct errbuf *err)
{
	return st_exec(s, err, "renew request leases",
		       "UPDATE serve_requests SET expires_at = ? WHERE"
		       " state = 'running' AND owner = ?",
		       "ds", now_wall() + ttl_s, owner);
}

int store_serve_get(struct store *s, const char *id,
		    struct store_serve_req *out, struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_one(s, &st, err, "read a request",
			"SELECT " REQ_COLS " FROM serve_requests WHERE id = ?",
			"s", id);

	if (rc == 0)
		req_from_row(st, 0, out);
	sqlite3_finalize(st);
	return rc;
}

/* The rows of a query that st_query prepared (st is finalized): 0 with
 * *out and *n, or an error and nothing. */
static int reqs_from_rows(struct store *s, sqlite3_stmt *st, const char *what,
			  struct store_serve_req **out, int *n,
			  struct errbuf *err)
{
	struct store_serve_req *v = NULL;
	int cap = 0, k = 0, rc;

	while ((rc = st_next(s, st, err, what)) > 0) {
		if (k == cap) {
			cap = cap ? 2 * cap : 16;
			v = xrealloc(v, (size_t)cap * sizeof(*v));
		}
		req_from_row(st, 0, &v[k++]);
	}
	sqlite3_finalize(st);
	if (rc) {
		store_serve_reqs_free(v, k);
		return rc;
	}
	*out = v;
	*n = k;
	return 0;
}

int store_serve_batch(struct store *s, const char *batch_id,
		      struct store_serve_req **out, int *n, struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_query(s, &st, err, "read a batch",
			  "SELECT " REQ_COLS " FROM serve_requests WHERE"
			  " batch_id = ? ORDER BY idx",
			  "s", batch_id);

	*out = NULL;
	*n = 0;
	if (rc == 0)
		rc = reqs_from_rows(s, st, "read a batch", out, n, err);
	if (rc == 0 && *n == 0)
		rc = -ENOENT;
	return rc;
}

int store_serve_batch_done_since(struct store *s, const char *batch_id,
				 int64_t after, struct store_serve_req **out,
				 int *n, int *total, struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc;

	*out = NULL;
	*n = 0;
	*total = 0;
	/* One read transaction, so the count and the rows agree. */
	if (sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return st_db_error(s, err, "begin a read");
	rc = st_one(s, &st, err, "count a batch",
		    "SELECT COUNT(*) FROM serve_requests WHERE batch_id = ?",
		    "s", batch_id);
	if (rc == 0)
		*total = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (rc == 0 && *total == 0)
		rc = -ENOENT;
	if (rc == 0)
		rc = st_query(s, &st, err, "read a batch's answers",
			      "SELECT " REQ_COLS " FROM serve_requests"
			      " WHERE batch_id = ? AND state = 'done' AND"
			      " done_seq > ? ORDER BY done_seq, idx",
			      "sI", batch_id, after);
	if (rc == 0)
		rc = reqs_from_rows(s, st, "read a batch's answers", out, n,
				    err);
	sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
	return rc;
}
