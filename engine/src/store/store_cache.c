/*
 * store_cache.c - the evaluation cache of the store (arena/store.h):
 * results keyed by the evaluation's content key (eval_cache_key), so the
 * same sources of the same task on the same device are evaluated once;
 * and which trusted copy of each task a run uses (DESIGN.md §3.10).
 */
#include "store_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- evaluation cache ------------------------------------------------ */

int store_eval_get(struct store *s, const char *key, char **result_json,
		   struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_prepare(s, "SELECT result_json FROM evaluations WHERE key = ?",
			    &st, err);
	int r;

	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW)
		*result_json = st_col_text(st, 0);
	else if (r == SQLITE_DONE)
		rc = -ENOENT;
	else
		rc = st_db_error(s, err, "select evaluation");
	sqlite3_finalize(st);
	return rc;
}

int store_eval_put(struct store *s, const char *key, const char *task_id,
		   const char *sources_hash, const char *device,
		   const char *result_json, struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_prepare(s, "INSERT OR REPLACE INTO evaluations(key, task_id,"
			    " sources_hash, device, result_json, created_at)"
			    " VALUES(?,?,?,?,?,?)", &st, err);

	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, task_id, -1, SQLITE_STATIC);
	st_bind_text_or_null(st, 3, sources_hash);
	st_bind_text_or_null(st, 4, device);
	sqlite3_bind_text(st, 5, result_json, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 6, now_wall());
	return st_exec_stmt(s, st, "insert evaluation", err);
}

int store_eval_count(struct store *s, const char *task_id, int *n,
		     struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_prepare(s, "SELECT COUNT(*) FROM evaluations WHERE task_id = ?",
			    &st, err);

	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, task_id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		*n = sqlite3_column_int(st, 0);
	else
		rc = st_db_error(s, err, "count evaluations");
	sqlite3_finalize(st);
	return rc;
}

/* ---- trusted task copies ---------------------------------------------- */

int store_trusted_set(struct store *s, const char *run_id, const char *task_id,
		      const char *hash, struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_prepare(s,
			    "INSERT OR IGNORE INTO trusted(run_id, task_id,"
			    " hash) VALUES(?,?,?)",
			    &st, err);

	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, task_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, hash, -1, SQLITE_STATIC);
	return st_exec_stmt(s, st, "record a trusted copy", err);
}

int store_trusted_get(struct store *s, const char *run_id, const char *task_id,
		      char **hash, struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_prepare(s,
			    "SELECT hash FROM trusted WHERE run_id = ? AND"
			    " task_id = ?",
			    &st, err);
	int r;

	*hash = NULL;
	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, task_id, -1, SQLITE_STATIC);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW)
		*hash = st_col_text(st, 0);
	else if (r == SQLITE_DONE)
		rc = -ENOENT;
	else
		rc = st_db_error(s, err, "select a trusted copy");
	sqlite3_finalize(st);
	return rc;
}

char *store_trusted_root(struct store *s)
{
	return path_join(s->root, "trusted");
}
