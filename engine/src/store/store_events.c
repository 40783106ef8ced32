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
	return st_exec(s, err, "insert event",
		       "INSERT INTO events(run_id, ts, task_id, kind, message)"
		       " VALUES(?,?,?,?,?)",
		       "sdsss", run_id, now_wall(), task_id, kind, message);
}

int store_event_list(struct store *s, const char *run_id, int64_t after_id,
		     int max, struct store_event **out, int *n,
		     struct errbuf *err)
{
	sqlite3_stmt *st;
	struct store_event *arr = NULL;
	int cnt = 0;
	int rc = st_query(s, &st, err, "list events",
			  "SELECT id, ts, task_id, kind, message FROM events"
			  " WHERE run_id = ? AND id > ? ORDER BY id LIMIT ?",
			  "sIi", run_id, after_id, max);

	if (rc)
		return rc;
	if (max > 0)
		arr = xcalloc((size_t)max, sizeof(*arr));
	while (cnt < max && (rc = st_next(s, st, err, "list events")) > 0) {
		arr[cnt].id = sqlite3_column_int64(st, 0);
		arr[cnt].ts = sqlite3_column_double(st, 1);
		arr[cnt].task_id = st_col_text(st, 2);
		arr[cnt].kind = st_col_text(st, 3);
		arr[cnt].message = st_col_text(st, 4);
		cnt++;
	}
	sqlite3_finalize(st);
	if (rc > 0) /* stopped at max (LIMIT has no bound when max < 0) */
		rc = 0;
	if (rc < 0) {
		store_events_free(arr, cnt);
		arr = NULL;
		cnt = 0;
	}
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
