/*
 * store_internal.h - what the store's files share (private to
 * engine/src/store): the handle and the statement helpers.
 *
 *   store.c          opening (schema, WAL, migrations), runs, attempts
 *   store_cache.c    the evaluation cache
 *   store_events.c   events
 *   store_leases.c   the leases of the work queue
 *   store_serve.c    the queue of `arena serve`
 *   store_meta.c     store-private values
 *   store_stmt.c     running a statement: bind, step, errors
 */
#ifndef ARENA_STORE_INTERNAL_H
#define ARENA_STORE_INTERNAL_H

#include <sqlite3.h>

#include "arena/store.h"

struct store {
	char *root;
	sqlite3 *db;
};

/* ---- statements (store_stmt.c) ----
 *
 * Every helper takes the SQL whole and binds its parameters, in order,
 * from spec, one letter per parameter and one argument per letter:
 *   s  const char *  (bound without a copy; NULL binds NULL)
 *   i  int (a bool too)
 *   I  int64_t
 *   d  double
 * A spec that does not match the statement's parameter count is refused
 * with -EINVAL.  Errors go to err as a sentence naming the store and
 * what was being done; a database busy or locked past the busy timeout
 * is -EBUSY, any other failure -EIO. */

/* The sqlite error of the last call as a sentence in err; -EBUSY when the
 * database was busy or locked, else -EIO. */
int st_db_error(struct store *s, struct errbuf *err, const char *what);
/* Column i as an owned string, or NULL. */
char *st_col_text(sqlite3_stmt *st, int i);
/* Runs a statement that returns no rows the caller wants (an INSERT,
 * UPDATE or DELETE; RETURNING rows are stepped over) to its end. */
int st_exec(struct store *s, struct errbuf *err, const char *what,
	    const char *sql, const char *spec, ...);
/* Prepares sql with its parameters bound: 0 and *st (the caller steps it
 * with st_next and finalizes it), or an error and *st NULL. */
int st_query(struct store *s, sqlite3_stmt **st, struct errbuf *err,
	     const char *what, const char *sql, const char *spec, ...);
/* Steps st: 1 on a row, 0 at the end, or an error. */
int st_next(struct store *s, sqlite3_stmt *st, struct errbuf *err,
	    const char *what);
/* st_query and its first step: 0 with *st on the row, -ENOENT when there
 * is none (err untouched), or an error.  The caller finalizes *st in
 * every case (sqlite3_finalize(NULL) is harmless). */
int st_one(struct store *s, sqlite3_stmt **st, struct errbuf *err,
	   const char *what, const char *sql, const char *spec, ...);
/* Runs a query and appends its first column, row by row, to out. */
int st_strings(struct store *s, struct strvec *out, struct errbuf *err,
	       const char *what, const char *sql, const char *spec, ...);
/* Steps st to its end (over any rows left) and finalizes it: a
 * statement's changes are committed only at SQLITE_DONE. */
int st_done(struct store *s, sqlite3_stmt *st, struct errbuf *err,
	    const char *what);

#endif /* ARENA_STORE_INTERNAL_H */
