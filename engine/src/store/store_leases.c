/*
 * store_leases.c - the leases of the work queue (arena/store.h,
 * DESIGN.md section 9): a worker owns an attempt while its lease is live;
 * each operation is one statement, so two workers can never both win.
 */
#include "store_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- leases ---------------------------------------------------------- */

int store_lease_take(struct store *s, const char *run_id, const char *task_id,
		     int attempt, const char *owner, double ttl_s,
		     struct errbuf *err)
{
	sqlite3_stmt *st;
	double now = now_wall();
	/* One statement: a row comes back only when the lease is ours now
	 * (new, expired, or already ours), so two takers cannot both win. */
	int rc = st_prepare(s, "INSERT INTO leases(run_id, task_id, attempt, owner,"
			 " expires_at) VALUES(?,?,?,?,?)"
			 " ON CONFLICT(run_id, task_id, attempt) DO UPDATE SET"
			 " owner = excluded.owner,"
			 " expires_at = excluded.expires_at"
			 " WHERE leases.expires_at < ? OR leases.owner ="
			 " excluded.owner RETURNING owner", &st, err);
	int r;

	if (rc)
		return rc;
	st_bind_attempt(st, 1, run_id, task_id, attempt);
	sqlite3_bind_text(st, 4, owner, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 5, now + ttl_s);
	sqlite3_bind_double(st, 6, now);
	r = sqlite3_step(st);
	/* A RETURNING row comes before the commit: step on to DONE. */
	if (r == SQLITE_ROW && (r = sqlite3_step(st)) == SQLITE_DONE)
		rc = 0;
	else if (r == SQLITE_DONE)
		rc = errf_code(err, EBUSY, "%s #%d of run %s is leased by "
			       "another worker", task_id, attempt, run_id);
	else if ((rc = st_db_error(s, err, "take lease")) == -EBUSY)
		rc = -EIO;	/* -EBUSY means another owner's lease */
	sqlite3_finalize(st);
	return rc;
}

int store_lease_renew_all(struct store *s, const char *owner, double ttl_s,
			  struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_prepare(s, "UPDATE leases SET expires_at = ? WHERE owner = ?",
			    &st, err);

	if (rc)
		return rc;
	sqlite3_bind_double(st, 1, now_wall() + ttl_s);
	sqlite3_bind_text(st, 2, owner, -1, SQLITE_STATIC);
	return st_exec_stmt(s, st, "renew leases", err);
}

int store_lease_drop(struct store *s, const char *run_id, const char *task_id,
		     int attempt, const char *owner, struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_prepare(s, "DELETE FROM leases WHERE run_id = ? AND task_id = ?"
			    " AND attempt = ? AND owner = ?", &st, err);

	if (rc)
		return rc;
	st_bind_attempt(st, 1, run_id, task_id, attempt);
	sqlite3_bind_text(st, 4, owner, -1, SQLITE_STATIC);
	return st_exec_stmt(s, st, "drop lease", err);
}

int store_lease_owners(struct store *s, const char *run_id,
		       struct strvec *owners, struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_prepare(s, "SELECT DISTINCT owner FROM leases WHERE run_id = ?"
			    " AND expires_at >= ? ORDER BY owner", &st, err);
	int r;

	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 2, now_wall());
	while ((r = sqlite3_step(st)) == SQLITE_ROW)
		strvec_push(owners, (const char *)sqlite3_column_text(st, 0));
	if (r != SQLITE_DONE)
		rc = st_db_error(s, err, "list lease owners");
	sqlite3_finalize(st);
	return rc;
}

int store_lease_owner(struct store *s, const char *run_id, const char *task_id,
		      int attempt, char **owner, struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_prepare(s, "SELECT owner FROM leases WHERE run_id = ? AND"
			    " task_id = ? AND attempt = ?", &st, err);
	int r;

	*owner = NULL;
	if (rc)
		return rc;
	st_bind_attempt(st, 1, run_id, task_id, attempt);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW)
		*owner = st_col_text(st, 0);
	else if (r == SQLITE_DONE)
		rc = -ENOENT;
	else
		rc = st_db_error(s, err, "read lease");
	sqlite3_finalize(st);
	return rc;
}

int store_lease_take_from(struct store *s, const char *run_id,
			  const char *task_id, int attempt, const char *owner,
			  double ttl_s, const char *old_owner,
			  struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_prepare(s, "UPDATE leases SET owner = ?, expires_at = ? WHERE"
			    " run_id = ? AND task_id = ? AND attempt = ? AND"
			    " owner = ? RETURNING owner", &st, err);
	int r;

	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, owner, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 2, now_wall() + ttl_s);
	st_bind_attempt(st, 3, run_id, task_id, attempt);
	sqlite3_bind_text(st, 6, old_owner, -1, SQLITE_STATIC);
	r = sqlite3_step(st);
	/* A RETURNING row comes before the commit: step on to DONE. */
	if (r == SQLITE_ROW && (r = sqlite3_step(st)) == SQLITE_DONE)
		rc = 0;
	else if (r == SQLITE_DONE)
		rc = errf_code(err, EBUSY, "%s #%d of run %s changed hands",
			       task_id, attempt, run_id);
	else if ((rc = st_db_error(s, err, "take over lease")) == -EBUSY)
		rc = -EIO;	/* -EBUSY means the lease changed hands */
	sqlite3_finalize(st);
	return rc;
}
