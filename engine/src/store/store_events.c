/*
 * store_events.c - a run's events (arena/store.h): an append-only log
 * that `arena run` prints, the filesystem's events file streams, and
 * reports quote.
 */
#include "store_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- events ---------------------------------------------------------- */

int store_event_add(struct store *s, const char *run_id, const char *task_id,
		    const char *kind, const char *message, struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_prepare(s, "INSERT INTO events(run_id, ts, task_id, kind,"
			    " message) VALUES(?,?,?,?,?)", &st, err);

	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 2, now_wall());
	st_bind_text_or_null(st, 3, task_id);
	sqlite3_bind_text(st, 4, kind, -1, SQLITE_STATIC);
	st_bind_text_or_null(st, 5, message);
	return st_exec_stmt(s, st, "insert event", err);
}

int store_event_list(struct store *s, const char *run_id, int64_t after_id,
		     int max, struct store_event **out, int *n,
		     struct errbuf *err)
{
	sqlite3_stmt *st;
	struct store_event *arr = NULL;
	int cnt = 0, r;
	int rc = st_prepare(s, "SELECT id, ts, task_id, kind, message FROM events"
			    " WHERE run_id = ? AND id > ? ORDER BY id LIMIT ?",
			    &st, err);

	if (rc)
		return rc;
	sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, after_id);
	sqlite3_bind_int(st, 3, max);
	if (max > 0)
		arr = xcalloc((size_t)max, sizeof(*arr));
	while ((r = sqlite3_step(st)) == SQLITE_ROW && cnt < max) {
		arr[cnt].id = sqlite3_column_int64(st, 0);
		arr[cnt].ts = sqlite3_column_double(st, 1);
		arr[cnt].task_id = st_col_text(st, 2);
		arr[cnt].kind = st_col_text(st, 3);
		arr[cnt].message = st_col_text(st, 4);
		cnt++;
	}
	if (r != SQLITE_DONE && r != SQLITE_ROW) {
		rc = st_db_error(s, err, "list events");
		store_events_free(arr, cnt);
		arr = NULL;
		cnt = 0;
	}
	sqlite3_finalize(st);
	*out = arr;
	*n = cnt;
	return rc;
}

void store_events_free(struct store_event *ev, int n)
{
	for (int i = 0; i < n; i++) {
		free(ev[i].task_id);
		free(ev[i].kind);
		free(ev[i].message);
	}
	free(ev);
}
