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
	int rc = st_one(s, &st, err, "take lease",
			"INSERT INTO leases(run_id, task_id, attempt, owner,"
			" expires_at) VALUES(?,?,?,?,?)"
			" ON CONFLICT(run_id, task_id, attempt) DO UPDATE SET"
			" owner = excluded.owner,"
			" expires_at = excluded.expires_at"
			" WHERE leases.expires_at < ? OR leases.owner ="
			" excluded.owner RETURNING owner",
			"ssisdd", run_id, task_id, attempt, owner, now + ttl_s,
			now);

	/* A RETURNING row comes before the commit: step on to DONE. */
	if (rc == 0)
		rc = st_done(s, st, err, "take lease");
	else
		sqlite3_finalize(st);
	if (rc == -ENOENT)
		return errf_code(err, EBUSY,
				 "%s #%d of run %s is leased by another "
				 "worker",
				 task_id, attempt, run_id);
	return rc == -EBUSY ? -EIO : rc; /* -EBUSY means another's lease */
}

int store_lease_renew_all(struct store *s, const char *owner, double ttl_s,
			  struct errbuf *err)
{
	return st_exec(s, err, "renew leases",
		       "UPDATE leases SET expires_at = ? WHERE owner = ?", "ds",
		       now_wall() + ttl_s, owner);
}

int store_lease_drop(struct store *s, const char *run_id, const char *task_id,
		     int attempt, const char *owner, struct errbuf *err)
{
	return st_exec(s, err, "drop lease",
		       "DELETE FROM leases WHERE run_id = ? AND task_id = ?"
		       " AND attempt = ? AND owner = ?",
		       "ssis", run_id, task_id, attempt, owner);
}

int store_lease_owners(struct store *s, const char *run_id,
		       struct strvec *owners, struct errbuf *err)
{
	return st_strings(s, owners, err, "list lease owners",
			  "SELECT DISTINCT owner FROM leases WHERE run_id = ?"
			  " AND expires_at >= ? ORDER BY owner",
			  "sd", run_id, now_wall());
}

int store_lease_owner(struct store *s, const char *run_id, const char *task_id,
		      int attempt, char **owner, struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_one(s, &st, err, "read lease",
			"SELECT owner FROM leases WHERE run_id = ? AND"
			" task_id = ? AND attempt = ?",
			"ssi", run_id, task_id, attempt);

	*owner = rc == 0 ? st_col_text(st, 0) : NULL;
	sqlite3_finalize(st);
	return rc;
}

int store_lease_take_from(struct store *s, const char *run_id,
			  const char *task_id, int attempt, const char *owner,
			  double ttl_s, const char *old_owner,
			  struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_one(s, &st, err, "take over lease",
			"UPDATE leases SET owner = ?, expires_at = ? WHERE"
			" run_id = ? AND task_id = ? AND attempt = ? AND"
			" owner = ? RETURNING owner",
			"sdssis", owner, now_wall() + ttl_s, run_id, task_id,
			attempt, old_owner);

	/* A RETURNING row comes before the commit: step on to DONE. */
	if (rc == 0)
		rc = st_done(s, st, err, "take over lease");
	else
		sqlite3_finalize(st);
	if (rc == -ENOENT)
		return errf_code(err, EBUSY, "%s #%d of run %s changed hands",
				 task_id, attempt, run_id);
	return rc == -EBUSY ? -EIO : rc; /* -EBUSY means it changed hands */
}
