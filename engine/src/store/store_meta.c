/*
 * store_meta.c - store-private values (arena/store.h): the meta table's
 * key-value pairs for what only the controller may know, such as a run's
 * secret seed (docs/statistics.md §7).  The store is out of every agent's
 * and candidate's reach (DESIGN.md §3.11), so a value kept here cannot be
 * read by the code it is about.
 */
#include "store_internal.h"

#include <errno.h>
#include <stdlib.h>

int store_meta_get(struct store *s, const char *key, char **value,
		   struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_prepare(s, "SELECT value FROM meta WHERE key = ?", &st,
			    err);
	int r;

	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	r = sqlite3_step(st);
	if (r == SQLITE_ROW)
		*value = st_col_text(st, 0);
	else if (r == SQLITE_DONE)
		rc = -ENOENT;
	else
		rc = st_db_error(s, err, "select meta value");
	sqlite3_finalize(st);
	return rc;
}

int store_meta_put(struct store *s, const char *key, const char *value,
		   struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_prepare(s, "INSERT OR REPLACE INTO meta(key, value) "
			    "VALUES(?,?)", &st, err);

	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	return st_exec_stmt(s, st, "insert meta value", err);
}
