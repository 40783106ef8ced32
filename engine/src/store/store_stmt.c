/*
 * store_stmt.c - the one way the store's files run a statement
 * (store_internal.h): prepare it with its parameters bound from a compact
 * spec, step it row by row or to the end, turn sqlite's errors into a
 * sentence and an errno.
 *
 * The SQL stays at the call site, whole; only the ceremony around it
 * (prepare, one bind call per parameter, the step loop, the error path,
 * finalize) lives here.
 *
 * Busy: every connection has a busy_timeout (store.c), so a statement
 * that meets another process's lock waits for it; what is still busy
 * after that comes back as -EBUSY, which callers may retry, and every
 * other failure as -EIO.
 *
 * Strings are bound SQLITE_STATIC: every bound string outlives its
 * statement (bind, step and finalize happen in one function), and a
 * static bind allocates nothing, so it cannot fail when memory is short
 * and leave a parameter NULL - which would turn an UPDATE into one that
 * matches no row, or keep a column's old value, and report success
 * (tests/unit/test_store_faults.c).
 */
#include "store_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

int st_db_error(struct store *s, struct errbuf *err, const char *what)
{
	int code = sqlite3_errcode(s->db);

	errf(err, "%s/arena.db: %s: %s", s->root, what, sqlite3_errmsg(s->db));
	return code == SQLITE_BUSY || code == SQLITE_LOCKED ? -EBUSY : -EIO;
}

char *st_col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? xstrdup((const char *)t) : NULL;
}

/* Binds parameters 1..strlen(spec) from ap (see st_query). */
static int bind_spec(struct store *s, sqlite3_stmt *st, const char *what,
		     const char *spec, va_list ap, struct errbuf *err)
{
	int n = (int)strlen(spec), r = SQLITE_OK;

	if (n != sqlite3_bind_parameter_count(st))
		return errf_code(err, EINVAL,
				 "%s/arena.db: %s: the statement takes %d "
				 "parameters but spec '%s' binds %d (a bug "
				 "in engine/src/store)",
				 s->root, what,
				 sqlite3_bind_parameter_count(st), spec, n);
	for (int i = 1; i <= n && r == SQLITE_OK; i++) {
		switch (spec[i - 1]) {
		case 's':
			r = sqlite3_bind_text(st, i, va_arg(ap, const char *),
					      -1, SQLITE_STATIC);
			break;
		case 'i':
			r = sqlite3_bind_int(st, i, va_arg(ap, int));
			break;
		case 'I':
			r = sqlite3_bind_int64(st, i, va_arg(ap, int64_t));
			break;
		case 'd':
			r = sqlite3_bind_double(st, i, va_arg(ap, double));
			break;
		default:
			return errf_code(err, EINVAL,
					 "%s/arena.db: %s: spec '%s' has '%c'"
					 " at %d; use s, i, I or d (a bug in "
					 "engine/src/store)",
					 s->root, what, spec, spec[i - 1], i);
		}
	}
	return r == SQLITE_OK ? 0 : st_db_error(s, err, what);
}

/* Prepares sql and binds spec's parameters from ap; *st is NULL on
 * failure. */
static int query_v(struct store *s, sqlite3_stmt **st, struct errbuf *err,
		   const char *what, const char *sql, const char *spec,
		   va_list ap)
{
	int rc;

	*st = NULL;
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
		return st_db_error(s, err, what);
	rc = bind_spec(s, *st, what, spec, ap, err);
	if (rc) {
		sqlite3_finalize(*st);
		*st = NULL;
	}
	return rc;
}

int st_query(struct store *s, sqlite3_stmt **st, struct errbuf *err,
	     const char *what, const char *sql, const char *spec, ...)
{
	va_list ap;
	int rc;

	va_start(ap, spec);
	rc = query_v(s, st, err, what, sql, spec, ap);
	va_end(ap);
	return rc;
}

int st_next(struct store *s, sqlite3_stmt *st, struct errbuf *err,
	    const char *what)
{
	int r = sqlite3_step(st);

	if (r == SQLITE_ROW)
		return 1;
	if (r == SQLITE_DONE)
		return 0;
	return st_db_error(s, err, what);
}

int st_one(struct store *s, sqlite3_stmt **st, struct errbuf *err,
	   const char *what, const char *sql, const char *spec, ...)
{
	va_list ap;
	int rc;

	va_start(ap, spec);
	rc = query_v(s, st, err, what, sql, spec, ap);
	va_end(ap);
	if (rc == 0)
		rc = st_next(s, *st, err, what);
	return rc == 1 ? 0 : rc == 0 ? -ENOENT : rc;
}

int st_strings(struct store *s, struct strvec *out, struct errbuf *err,
	       const char *what, const char *sql, const char *spec, ...)
{
	sqlite3_stmt *st;
	va_list ap;
	int rc;

	va_start(ap, spec);
	rc = query_v(s, &st, err, what, sql, spec, ap);
	va_end(ap);
	if (rc)
		return rc;
	while ((rc = st_next(s, st, err, what)) > 0)
		strvec_push(out, (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return rc;
}

/* A statement's changes are committed only when its last step returns
 * SQLITE_DONE, so a row back (RETURNING) is not yet success. */
int st_done(struct store *s, sqlite3_stmt *st, struct errbuf *err,
	    const char *what)
{
	int r, rc = 0;

	while ((r = sqlite3_step(st)) == SQLITE_ROW)
		;
	if (r != SQLITE_DONE)
		rc = st_db_error(s, err, what);
	sqlite3_finalize(st);
	return rc;
}

int st_exec(struct store *s, struct errbuf *err, const char *what,
	    const char *sql, const char *spec, ...)
{
	sqlite3_stmt *st;
	va_list ap;
	int rc;

	va_start(ap, spec);
	rc = query_v(s, &st, err, what, sql, spec, ap);
	va_end(ap);
	return rc ? rc : st_done(s, st, err, what);
}
