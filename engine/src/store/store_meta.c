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
	int rc = st_one(s, &st, err, "select meta value",
			"SELECT value FROM meta WHERE key = ?", "s", key);

	if (rc == 0)
		*value = st_col_text(st, 0);
	sqlite3_finalize(st);
	return rc;
}

int store_meta_put(struct store *s, const char *key, const char *value,
		   struct errbuf *err)
{
	return st_exec(s, err, "insert meta value",
		       "INSERT OR REPLACE INTO meta(key, value) VALUES(?,?)",
		       "ss", key, value);
}
