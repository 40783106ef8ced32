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
	int rc = st_one(s, &st, err, "select evaluation",
			"SELECT result_json FROM evaluations WHERE key = ?",
			"s", key);

	if (rc == 0)
		*result_json = st_col_text(st, 0);
	sqlite3_finalize(st);
	return rc;
}

int store_eval_put(struct store *s, const char *key, const char *task_id,
		   const char *sources_hash, const char *device,
		   const char *result_json, struct errbuf *err)
{
	return st_exec(s, err, "insert evaluation",
		       "INSERT OR REPLACE INTO evaluations(key, task_id,"
		       " sources_hash, device, result_json, created_at)"
		       " VALUES(?,?,?,?,?,?)",
		       "sssssd", key, task_id, sources_hash, device,
		       result_json, now_wall());
}

int store_eval_count(struct store *s, const char *task_id, int *n,
		     struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_one(s, &st, err, "count evaluations",
			"SELECT COUNT(*) FROM evaluations WHERE task_id = ?",
			"s", task_id);

	if (rc == 0)
		*n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc;
}

/* ---- trusted task copies ---------------------------------------------- */

int store_trusted_set(struct store *s, const char *run_id, const char *task_id,
		      const char *hash, struct errbuf *err)
{
	return st_exec(s, err, "record a trusted copy",
		       "INSERT OR IGNORE INTO trusted(run_id, task_id, hash)"
		       " VALUES(?,?,?)",
		       "sss", run_id, task_id, hash);
}

int store_trusted_get(struct store *s, const char *run_id, const char *task_id,
		      char **hash, struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_one(s, &st, err, "select a trusted copy",
			"SELECT hash FROM trusted WHERE run_id = ? AND"
			" task_id = ?",
			"ss", run_id, task_id);

	*hash = rc == 0 ? st_col_text(st, 0) : NULL;
	sqlite3_finalize(st);
	return rc;
}

char *store_trusted_root(struct store *s)
{
	return path_join(s->root, "trusted");
}
