/*
 * store.c - the experiment store on sqlite (WAL) plus the runs/ tree.
 *
 * Schema (version 1):
 *   runs(id PK, created_at, config_path, config_yaml, agent, device,
 *        status, ntasks)
 *   attempts(run_id, task_id, attempt, state, agent_json, result_json,
 *            sources_hash, agent_starts, updated_at, variant, repeat;
 *            PK run,task,attempt) - attempt numbers the (repeat, agent
 *            variant) slots of a task within its run
 *   evaluations(key PK, task_id, sources_hash, device, result_json,
 *               created_at)
 *   events(id PK autoincrement, run_id, ts, task_id, kind, message)
 *   leases(run_id, task_id, attempt PK, owner, expires_at) - which worker
 *            process owns an attempt until when (added without a schema
 *            bump: CREATE IF NOT EXISTS gives older stores the table)
 *   serve_requests(seq PK, id UNIQUE, batch_id, idx, client_key, task_id,
 *            priority, quick, sources_json, eval_key, state, owner,
 *            expires_at, created_at, started_at, finished_at, result_json,
 *            error, answers, done_seq, cached) - the queue of `arena
 *            serve` (store_serve.c), added the same way
 *
 * Concurrency: WAL lets readers proceed while one writer writes; every
 * connection sets busy_timeout so writers from other processes wait instead
 * of failing.  Run ids are made unique by mkdir(2) of the run directory
 * (atomic across processes) followed by the INSERT.
 */
#include "store_internal.h"

#include <ctype.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* How long a statement waits for another connection's lock. */
#define STORE_BUSY_TIMEOUT_MS 30000

static const char *const schema_sql =
	"CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);"
	"CREATE TABLE IF NOT EXISTS runs("
	" id TEXT PRIMARY KEY, created_at REAL NOT NULL, config_path TEXT,"
	" config_yaml TEXT, agent TEXT, device TEXT, status TEXT NOT NULL,"
	" ntasks INTEGER NOT NULL DEFAULT 0);"
	"CREATE TABLE IF NOT EXISTS attempts("
	" run_id TEXT NOT NULL, task_id TEXT NOT NULL, attempt INTEGER NOT NULL,"
	" state TEXT NOT NULL, agent_json TEXT, result_json TEXT,"
	" sources_hash TEXT, agent_starts INTEGER NOT NULL DEFAULT 0,"
	" updated_at REAL, variant TEXT NOT NULL DEFAULT '',"
	" repeat INTEGER NOT NULL DEFAULT 1,"
	" PRIMARY KEY(run_id, task_id, attempt));"
	"CREATE TABLE IF NOT EXISTS evaluations("
	" key TEXT PRIMARY KEY, task_id TEXT NOT NULL, sources_hash TEXT,"
	" device TEXT, result_json TEXT NOT NULL, created_at REAL);"
	"CREATE INDEX IF NOT EXISTS evaluations_task ON evaluations(task_id);"
	"CREATE TABLE IF NOT EXISTS events("
	" id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL,"
	" ts REAL NOT NULL, task_id TEXT, kind TEXT NOT NULL, message TEXT);"
	"CREATE INDEX IF NOT EXISTS events_run ON events(run_id, id);"
	"CREATE TABLE IF NOT EXISTS leases("
	" run_id TEXT NOT NULL, task_id TEXT NOT NULL, attempt INTEGER NOT NULL,"
	" owner TEXT NOT NULL, expires_at REAL NOT NULL,"
	" PRIMARY KEY(run_id, task_id, attempt));"
	"CREATE TABLE IF NOT EXISTS trusted("
	" run_id TEXT NOT NULL, task_id TEXT NOT NULL, hash TEXT NOT NULL,"
	" PRIMARY KEY(run_id, task_id));"
	"CREATE TABLE IF NOT EXISTS serve_requests("
	" seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,"
	" batch_id TEXT NOT NULL, idx INTEGER NOT NULL, client_key TEXT,"
	" task_id TEXT NOT NULL, priority INTEGER NOT NULL DEFAULT 0,"
	" quick INTEGER NOT NULL DEFAULT 0, sources_json TEXT,"
	" eval_key TEXT NOT NULL, state TEXT NOT NULL, owner TEXT,"
	" expires_at REAL, created_at REAL NOT NULL, started_at REAL,"
	" finished_at REAL, result_json TEXT, error TEXT,"
	" answers INTEGER NOT NULL DEFAULT 0, done_seq INTEGER,"
	" cached INTEGER NOT NULL DEFAULT 0);"
	"CREATE INDEX IF NOT EXISTS serve_queue ON serve_requests(state,"
	" priority DESC, seq);"
	"CREATE INDEX IF NOT EXISTS serve_batch ON serve_requests(batch_id, idx);"
	"CREATE INDEX IF NOT EXISTS serve_key ON serve_requests(eval_key, state);"
	"CREATE INDEX IF NOT EXISTS serve_client ON serve_requests(client_key);"
	"CREATE INDEX IF NOT EXISTS serve_done ON serve_requests(done_seq);"
	"INSERT OR IGNORE INTO meta(key, value) VALUES('schema', '1');";

/* Stores made before attempts had variant and repeat columns (schema 1
 * without them) gain them here; their attempts were all repeats of one
 * configuration, so repeat = attempt. */
static bool store_has_variant_column(struct store *s)
{
	sqlite3_stmt *st;
	bool has = false;

	if (sqlite3_prepare_v2(s->db, "PRAGMA table_info(attempts)", -1, &st,
			       NULL) != SQLITE_OK)
		return false;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *name = sqlite3_column_text(st, 1);
		if (name && !strcmp((const char *)name, "variant"))
			has = true;
	}
	sqlite3_finalize(st);
	return has;
}

static int store_migrate(struct store *s, struct errbuf *err)
{
	char *errmsg = NULL;

	if (store_has_variant_column(s))
		return 0;
	if (sqlite3_exec(s->db, "BEGIN IMMEDIATE;"
			 "ALTER TABLE attempts ADD COLUMN variant TEXT NOT NULL"
			 " DEFAULT '';"
			 "ALTER TABLE attempts ADD COLUMN repeat INTEGER NOT NULL"
			 " DEFAULT 1;"
			 "UPDATE attempts SET repeat = attempt;"
			 "COMMIT;", NULL, NULL, &errmsg) != SQLITE_OK) {
		int rc = errf_code(err, EIO, "%s/arena.db: cannot add attempt "
				   "variants to an older store: %s", s->root,
				   errmsg ? errmsg : "unknown error");
		sqlite3_free(errmsg);
		sqlite3_exec(s->db, "ROLLBACK;", NULL, NULL, NULL);
		/* Another process may have migrated it meanwhile. */
		return store_has_variant_column(s) ? 0 : rc;
	}
	return 0;
}

/* WAL mode and the schema.  Several processes opening one new store at
 * once (the workers of an A/A, concurrent `arena check-tasks`) can meet
 * SQLITE_BUSY here that the busy handler does not wait out: the switch to
 * WAL needs the database alone, and a schema transaction that began as a
 * reader cannot wait to become a writer.  Both are retried for up to 30 s. */
static int store_init_db(sqlite3 *db, char **errmsg)
{
	int rc = SQLITE_BUSY;

	for (int tries = 0; tries < 1500; tries++) {
		sqlite3_free(*errmsg);
		*errmsg = NULL;
		rc = sqlite3_exec(db,
				  "PRAGMA journal_mode=WAL;"
				  "PRAGMA synchronous=NORMAL;",
				  NULL, NULL, errmsg);
		if (rc == SQLITE_OK)
			rc = sqlite3_exec(db, schema_sql, NULL, NULL, errmsg);
		if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
			return rc;
		if (sqlite3_get_autocommit(db) == 0)
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		sqlite3_sleep(20);
	}
	return rc;
}

int store_open(const char *dir, struct store **out, struct errbuf *err)
{
	struct store *s;
	char *runs, *dbpath, *errmsg = NULL;
	int rc;

	rc = mkdir_p(dir, err);
	if (rc)
		return rc;
	s = xcalloc(1, sizeof(*s));
	s->root = path_real(dir);
	if (!s->root) {
		rc = errf_code(err, errno, "%s: %s", dir, strerror(errno));
		free(s);
		return rc;
	}
	runs = path_join(s->root, "runs");
	rc = mkdir_p(runs, err);
	free(runs);
	if (rc) {
		free(s->root);
		free(s);
		return rc;
	}
	dbpath = path_join(s->root, "arena.db");
	if (sqlite3_open_v2(dbpath, &s->db,
			    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK) {
		rc = errf_code(err, EIO, "%s: cannot open: %s", dbpath,
			       s->db ? sqlite3_errmsg(s->db) : "out of memory");
		free(dbpath);
		store_close(s);
		return rc;
	}
	free(dbpath);
	sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
	if (store_init_db(s->db, &errmsg) != SQLITE_OK) {
		rc = errf_code(err, EIO, "%s/arena.db: cannot initialise: %s",
			       s->root, errmsg ? errmsg : "unknown error");
		sqlite3_free(errmsg);
		store_close(s);
		return rc;
	}
	rc = store_migrate(s, err);
	if (rc) {
		store_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	if (s->db)
		sqlite3_close(s->db);
	free(s->root);
	free(s);
}

int store_fence(struct store *s, int wait_ms, struct errbuf *err)
{
	int rc = 0;

	sqlite3_busy_timeout(s->db, wait_ms);
	if (sqlite3_exec(s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) !=
	    SQLITE_OK)
		rc = st_db_error(s, err, "take the write lock");
	sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
	return rc;
}

const char *store_root(const struct store *s)
{
	return s->root;
}

char *store_run_dir(const struct store *s, const char *run_id)
{
	return xasprintf("%s/runs/%s", s->root, run_id);
}

char *store_task_dirname(const char *task_id, int attempt)
{
	char *name = xstrdup(task_id);

	for (char *p = name; *p; p++)
		if (*p == '/')
			*p = '_';
	if (attempt > 1) {
		char *n = xasprintf("%s__r%d", name, attempt);
		free(name);
		name = n;
	}
	return name;
}

char *store_task_dir(const struct store *s, const char *run_id,
		     const char *task_id, int attempt)
{
	char *name = store_task_dirname(task_id, attempt);
	char *dir = xasprintf("%s/runs/%s/tasks/%s", s->root, run_id, name);

	free(name);
	return dir;
}

/* ---- runs ------------------------------------------------------------ */

void store_run_release(struct store_run *r)
{
	free(r->id);
	free(r->config_path);
	free(r->config_yaml);
	free(r->agent);
	free(r->device);
	free(r->status);
	memset(r, 0, sizeof(*r));
}

bool store_run_suffix_valid(const char *suffix)
{
	if (!suffix || !*suffix || strlen(suffix) > 64)
		return false;
	for (const char *p = suffix; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_' &&
		    *p != '-')
			return false;
	return suffix[0] != '.';
}

bool store_run_id_valid(const char *id)
{
	if (!id || strlen(id) < 19 || strlen(id) >= RUN_ID_MAX ||
	    !str_starts_with(id, "run_"))
		return false;
	for (int i = 4; i < 19; i++) {
		if (i == 12 ? id[i] != '_' : !isdigit((unsigned char)id[i]))
			return false;
	}
	if (id[19] == '\0')
		return true;
	return id[19] == '_' && store_run_suffix_valid(id + 20);
}

int store_run_create(struct store *s, struct store_run *r, const char *suffix,
		     struct errbuf *err)
{
	char stamp[16];
	sqlite3_stmt *st;
	int rc;

	if (suffix && !store_run_suffix_valid(suffix))
		return errf(err, "run suffix '%s' is not valid: use letters, "
			    "digits, '.', '_' and '-' (at most 64)", suffix);
	r->created_at = now_wall();
	time_stamp_compact(stamp, r->created_at);
	for (int n = 1; n < 1000; n++) {
		char *id, *dir;
		if (n == 1)
			id = suffix ? xasprintf("run_%s_%s", stamp, suffix)
				    : xasprintf("run_%s", stamp);
		else
			id = suffix ? xasprintf("run_%s_%s_%d", stamp, suffix, n)
				    : xasprintf("run_%s_%d", stamp, n);
		dir = store_run_dir(s, id);
		if (mkdir(dir, 0755) != 0) {
			int e = errno;
			free(dir);
			free(id);
			if (e == EEXIST)
				continue;
			return errf_code(err, e, "%s/runs: cannot create a run "
					 "directory: %s", s->root, strerror(e));
		}
		free(dir);
		rc = st_query(s, &st, err, "insert run",
			      "INSERT INTO runs(id, created_at, config_path,"
			      " config_yaml, agent, device, status, ntasks)"
			      " VALUES(?,?,?,?,?,?,?,?)",
			      "sdsssssi", id, r->created_at, r->config_path,
			      r->config_yaml, r->agent, r->device,
			      r->status ? r->status : "created", r->ntasks);
		if (rc) {
			free(id);
			return rc;
		}
		if (sqlite3_step(st) != SQLITE_DONE) {
			/* A row without a directory can only come from a
			 * crash between the two steps; try the next id. */
			int code = sqlite3_errcode(s->db);
			sqlite3_finalize(st);
			if (code == SQLITE_CONSTRAINT) {
				free(id);
				continue;
			}
			free(id);
			return st_db_error(s, err, "insert run");
		}
		sqlite3_finalize(st);
		free(r->id);
		r->id = id;
		return 0;
	}
	return errf_code(err, EEXIST, "%s/runs: no free run id for %s", s->root,
			 stamp);
}

int store_run_get(struct store *s, const char *id, struct store_run *out,
		  struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc =
		st_one(s, &st, err, "select run",
		       "SELECT id, created_at, config_path, config_yaml, agent,"
		       " device, status, ntasks FROM runs WHERE id = ?",
		       "s", id);

	memset(out, 0, sizeof(*out));
	if (rc == 0) {
		out->id = st_col_text(st, 0);
		out->created_at = sqlite3_column_double(st, 1);
		out->config_path = st_col_text(st, 2);
		out->config_yaml = st_col_text(st, 3);
		out->agent = st_col_text(st, 4);
		out->device = st_col_text(st, 5);
		out->status = st_col_text(st, 6);
		out->ntasks = sqlite3_column_int(st, 7);
	} else if (rc == -ENOENT) {
		rc = errf_code(err, ENOENT,
			       "no run '%s' in %s; 'arena status' "
			       "lists the runs",
			       id, s->root);
	}
	sqlite3_finalize(st);
	return rc;
}

int store_run_set_status(struct store *s, const char *id, const char *status,
			 struct errbuf *err)
{
	return st_exec(s, err, "update run status",
		       "UPDATE runs SET status = ? WHERE id = ?", "ss", status,
		       id);
}

int store_run_list(struct store *s, struct strvec *ids, struct errbuf *err)
{
	return st_strings(s, ids, err, "list runs",
			  "SELECT id FROM runs ORDER BY created_at, id", "");
}

int store_run_latest(struct store *s, char **id, struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_one(s, &st, err, "latest run",
			"SELECT id FROM runs ORDER BY created_at DESC, id DESC"
			" LIMIT 1",
			"");

	if (rc == 0)
		*id = st_col_text(st, 0);
	else if (rc == -ENOENT)
		rc = errf_code(err, ENOENT, "no runs yet in %s", s->root);
	sqlite3_finalize(st);
	return rc;
}

/* ---- attempts -------------------------------------------------------- */

void store_attempt_release(struct store_attempt *a)
{
	free(a->run_id);
	free(a->task_id);
	free(a->state);
	free(a->agent_json);
	free(a->result_json);
	free(a->sources_hash);
	free(a->variant);
	memset(a, 0, sizeof(*a));
}

void store_attempts_free(struct store_attempt *a, int n)
{
	for (int i = 0; i < n; i++)
		store_attempt_release(&a[i]);
	free(a);
}

int store_attempt_insert(struct store *s, const char *run_id,
			 const char *task_id, int attempt, const char *variant,
			 int repeat, struct errbuf *err)
{
	return st_exec(s, err, "insert attempt",
		       "INSERT OR IGNORE INTO attempts(run_id, task_id,"
		       " attempt, state, updated_at, variant, repeat)"
		       " VALUES(?,?,?,'pending',?,?,?)",
		       "ssidsi", run_id, task_id, attempt, now_wall(),
		       variant ? variant : "", repeat);
}

static void attempt_from_row(sqlite3_stmt *st, struct store_attempt *a)
{
	a->run_id = st_col_text(st, 0);
	a->task_id = st_col_text(st, 1);
	a->attempt = sqlite3_column_int(st, 2);
	a->state = st_col_text(st, 3);
	a->agent_json = st_col_text(st, 4);
	a->result_json = st_col_text(st, 5);
	a->sources_hash = st_col_text(st, 6);
	a->agent_starts = sqlite3_column_int(st, 7);
	a->updated_at = sqlite3_column_double(st, 8);
	a->variant = st_col_text(st, 9);
	a->repeat = sqlite3_column_int(st, 10);
}

#define ATTEMPT_COLS "run_id, task_id, attempt, state, agent_json," \
	" result_json, sources_hash, agent_starts, updated_at, variant, repeat"

int store_attempt_get(struct store *s, const char *run_id, const char *task_id,
		      int attempt, struct store_attempt *out,
		      struct errbuf *err)
{
	sqlite3_stmt *st;
	int rc = st_one(s, &st, err, "select attempt",
			"SELECT " ATTEMPT_COLS " FROM attempts WHERE run_id = ?"
			" AND task_id = ? AND attempt = ?",
			"ssi", run_id, task_id, attempt);

	memset(out, 0, sizeof(*out));
	if (rc == 0)
		attempt_from_row(st, out);
	else if (rc == -ENOENT)
		rc = errf_code(err, ENOENT,
			       "run %s has no task '%s' (attempt "
			       "%d)",
			       run_id, task_id, attempt);
	sqlite3_finalize(st);
	return rc;
}

int store_attempt_update(struct store *s, const char *run_id,
			 const char *task_id, int attempt, const char *state,
			 const char *agent_json, const char *result_json,
			 const char *sources_hash, bool bump_starts,
			 struct errbuf *err)
{
	return st_exec(s, err, "update attempt",
		       "UPDATE attempts SET state = ?,"
		       " agent_json = COALESCE(?, agent_json),"
		       " result_json = COALESCE(?, result_json),"
		       " sources_hash = COALESCE(?, sources_hash),"
		       " agent_starts = agent_starts + ?, updated_at = ?"
		       " WHERE run_id = ? AND task_id = ? AND attempt = ?",
		       "ssssidssi", state, agent_json, result_json,
		       sources_hash, bump_starts ? 1 : 0, now_wall(), run_id,
		       task_id, attempt);
}

int store_attempt_list(struct store *s, const char *run_id,
		       struct store_attempt **out, int *n, struct errbuf *err)
{
	sqlite3_stmt *st;
	struct store_attempt *arr = NULL;
	int cap = 0, cnt = 0;
	int rc = st_query(s, &st, err, "list attempts",
			  "SELECT " ATTEMPT_COLS " FROM attempts WHERE"
			  " run_id = ? ORDER BY task_id, attempt",
			  "s", run_id);

	if (rc)
		return rc;
	while ((rc = st_next(s, st, err, "list attempts")) > 0) {
		if (cnt == cap) {
			cap = cap ? cap * 2 : 16;
			arr = xrealloc(arr, (size_t)cap * sizeof(*arr));
		}
		memset(&arr[cnt], 0, sizeof(arr[cnt]));
		attempt_from_row(st, &arr[cnt++]);
	}
	sqlite3_finalize(st);
	if (rc) {
		store_attempts_free(arr, cnt);
		arr = NULL;
		cnt = 0;
	}
	*out = arr;
	*n = cnt;
	return rc;
}
