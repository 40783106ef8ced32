/*
 * store_internal.h - what the store's files share (private to
 * engine/src/store): the handle and the statement helpers.
 *
 *   store.c          opening (schema, WAL, migrations), runs, attempts
 *   store_cache.c    the evaluation cache
 *   store_events.c   events
 *   store_leases.c   the leases of the work queue
 *   store_serve.c    the queue of `arena serve`
 */
#ifndef ARENA_STORE_INTERNAL_H
#define ARENA_STORE_INTERNAL_H

#include <sqlite3.h>

#include "arena/store.h"

struct store {
	char *root;
	sqlite3 *db;
};

/* The sqlite error of the last call as a sentence in err; -EBUSY when the
 * database was busy or locked, else -EIO. */
int st_db_error(struct store *s, struct errbuf *err, const char *what);
/* Column i as an owned string, or NULL. */
char *st_col_text(sqlite3_stmt *st, int i);
void st_bind_text_or_null(sqlite3_stmt *st, int i, const char *v);
int st_prepare(struct store *s, const char *sql, sqlite3_stmt **st,
	       struct errbuf *err);
/* Runs st to completion and finalizes it (see store.c). */
int st_exec_stmt(struct store *s, sqlite3_stmt *st, const char *what,
		 struct errbuf *err);
/* Binds (run_id, task_id, attempt) at first, first + 1, first + 2. */
void st_bind_attempt(sqlite3_stmt *st, int first, const char *run_id,
		     const char *task_id, int attempt);

#endif /* ARENA_STORE_INTERNAL_H */
