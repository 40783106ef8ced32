/*
 * test_store_faults.c - the store under injected faults, in the manner of
 * SQLite's own tests: every write, sync, read, lock and allocation that
 * sqlite makes while the store works is made to fail in turn, and after
 * each failure the store is reopened and checked for "nothing lost".
 *
 * How faults are injected, without a special sqlite build:
 *   - I/O: a VFS registered as the default wraps the system's one and
 *     fails the k-th xWrite, xSync, xTruncate or xRead (SQLITE_IOERR_*)
 *     when armed;
 *   - busy: the same VFS refuses the WAL write lock the first k times it
 *     is asked for (SQLITE_BUSY), as while another process writes;
 *   - allocation: sqlite's allocator (SQLITE_CONFIG_MALLOC, set before
 *     sqlite initialises) fails the k-th allocation when armed.  arena's
 *     own allocations abort by design (util.h), so only sqlite's can fail.
 *
 * "Nothing lost": what was committed before the fault is all there, every
 * write the store reported as done is there after reopening, the database
 * passes PRAGMA integrity_check, and the store works again once the fault
 * is gone.  A write that failed may be missing, but never half there.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "arena/store.h"

/* ---- the faulty VFS ---------------------------------------------------- */

enum fault { F_NONE, F_WRITE, F_SYNC, F_READ, F_TRUNCATE, F_BUSY, F_MALLOC };

static enum fault armed = F_NONE;
static long countdown;		/* the armed fault fires when it reaches 0 */
static long calls[F_MALLOC + 1];	/* calls seen per kind (counting run) */
static bool fired;

/* True when this call of kind k is to fail: the countdown-th call (once),
 * or for F_BUSY each of the first countdown calls. */
static bool hit(enum fault k)
{
	calls[k]++;
	if (armed != k || fired)
		return false;
	if (k == F_BUSY)
		return countdown-- > 0;
	if (--countdown > 0)
		return false;
	fired = true;
	return true;
}

static sqlite3_vfs *base_vfs;

struct ffile {
	sqlite3_file base;	/* pMethods = &fio */
	sqlite3_file *real;	/* the wrapped file, allocated after us */
};

static int f_close(sqlite3_file *f)
{
	struct ffile *ff = (struct ffile *)f;
	return ff->real->pMethods ? ff->real->pMethods->xClose(ff->real)
				  : SQLITE_OK;
}

static int f_read(sqlite3_file *f, void *b, int n, sqlite3_int64 off)
{
	struct ffile *ff = (struct ffile *)f;
	if (hit(F_READ))
		return SQLITE_IOERR_READ;
	return ff->real->pMethods->xRead(ff->real, b, n, off);
}

static int f_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 off)
{
	struct ffile *ff = (struct ffile *)f;
	if (hit(F_WRITE))
		return SQLITE_IOERR_WRITE;
	return ff->real->pMethods->xWrite(ff->real, b, n, off);
}

static int f_truncate(sqlite3_file *f, sqlite3_int64 size)
{
	struct ffile *ff = (struct ffile *)f;
	if (hit(F_TRUNCATE))
		return SQLITE_IOERR_TRUNCATE;
	return ff->real->pMethods->xTruncate(ff->real, size);
}

static int f_sync(sqlite3_file *f, int flags)
{
	struct ffile *ff = (struct ffile *)f;
	if (hit(F_SYNC))
		return SQLITE_IOERR_FSYNC;
	return ff->real->pMethods->xSync(ff->real, flags);
}

static int f_size(sqlite3_file *f, sqlite3_int64 *size)
{
	struct ffile *ff = (struct ffile *)f;
	return ff->real->pMethods->xFileSize(ff->real, size);
}

static int f_lock(sqlite3_file *f, int level)
{
	struct ffile *ff = (struct ffile *)f;
	return ff->real->pMethods->xLock(ff->real, level);
}

static int f_unlock(sqlite3_file *f, int level)
{
	struct ffile *ff = (struct ffile *)f;
	return ff->real->pMethods->xUnlock(ff->real, level);
}

static int f_check_lock(sqlite3_file *f, int *out)
{
	struct ffile *ff = (struct ffile *)f;
	return ff->real->pMethods->xCheckReservedLock(ff->real, out);
}

static int f_control(sqlite3_file *f, int op, void *arg)
{
	struct ffile *ff = (struct ffile *)f;
	return ff->real->pMethods->xFileControl(ff->real, op, arg);
}

static int f_sector(sqlite3_file *f)
{
	struct ffile *ff = (struct ffile *)f;
	return ff->real->pMethods->xSectorSize(ff->real);
}

static int f_chars(sqlite3_file *f)
{
	struct ffile *ff = (struct ffile *)f;
	return ff->real->pMethods->xDeviceCharacteristics(ff->real);
}

static int f_shm_map(sqlite3_file *f, int pg, int sz, int extend,
		     void volatile **p)
{
	struct ffile *ff = (struct ffile *)f;
	return ff->real->pMethods->xShmMap(ff->real, pg, sz, extend, p);
}

static int f_shm_lock(sqlite3_file *f, int off, int n, int flags)
{
	struct ffile *ff = (struct ffile *)f;
	/* The WAL write lock (slot 0) taken exclusively: what another
	 * process writing to the store holds. */
	if ((flags & SQLITE_SHM_LOCK) && (flags & SQLITE_SHM_EXCLUSIVE) &&
	    off == 0 && hit(F_BUSY))
		return SQLITE_BUSY;
	return ff->real->pMethods->xShmLock(ff->real, off, n, flags);
}

static void f_shm_barrier(sqlite3_file *f)
{
	struct ffile *ff = (struct ffile *)f;
	ff->real->pMethods->xShmBarrier(ff->real);
}

static int f_shm_unmap(sqlite3_file *f, int del)
{
	struct ffile *ff = (struct ffile *)f;
	return ff->real->pMethods->xShmUnmap(ff->real, del);
}

static const sqlite3_io_methods fio = {
	2, f_close, f_read, f_write, f_truncate, f_sync, f_size, f_lock,
	f_unlock, f_check_lock, f_control, f_sector, f_chars, f_shm_map,
	f_shm_lock, f_shm_barrier, f_shm_unmap, NULL, NULL,
};

static int v_open(sqlite3_vfs *v, const char *name, sqlite3_file *f,
		  int flags, int *out_flags)
{
	struct ffile *ff = (struct ffile *)f;
	int rc;

	(void)v;
	ff->real = (sqlite3_file *)(ff + 1);
	memset(ff->real, 0, (size_t)base_vfs->szOsFile);
	ff->base.pMethods = NULL;
	rc = base_vfs->xOpen(base_vfs, name, ff->real, flags, out_flags);
	if (ff->real->pMethods)
		ff->base.pMethods = &fio;
	return rc;
}

static int v_delete(sqlite3_vfs *v, const char *name, int sync)
{
	(void)v;
	return base_vfs->xDelete(base_vfs, name, sync);
}

static int v_access(sqlite3_vfs *v, const char *name, int flags, int *out)
{
	(void)v;
	return base_vfs->xAccess(base_vfs, name, flags, out);
}

static int v_full(sqlite3_vfs *v, const char *name, int n, char *out)
{
	(void)v;
	return base_vfs->xFullPathname(base_vfs, name, n, out);
}

static int v_random(sqlite3_vfs *v, int n, char *out)
{
	(void)v;
	return base_vfs->xRandomness(base_vfs, n, out);
}

static int v_sleep(sqlite3_vfs *v, int us)
{
	(void)v;
	return base_vfs->xSleep(base_vfs, us);
}

static int v_time(sqlite3_vfs *v, double *out)
{
	(void)v;
	return base_vfs->xCurrentTime(base_vfs, out);
}

static int v_last_error(sqlite3_vfs *v, int n, char *out)
{
	(void)v;
	return base_vfs->xGetLastError(base_vfs, n, out);
}

static int v_time64(sqlite3_vfs *v, sqlite3_int64 *out)
{
	(void)v;
	return base_vfs->xCurrentTimeInt64(base_vfs, out);
}

static sqlite3_vfs faulty = {
	2, 0, 0, NULL, "arena-faulty", NULL, v_open, v_delete, v_access,
	v_full, NULL, NULL, NULL, NULL, v_random, v_sleep, v_time,
	v_last_error, v_time64, NULL, NULL, NULL,
};

/* ---- the failing allocator --------------------------------------------- */

static sqlite3_mem_methods base_mem;

static void *m_malloc(int n)
{
	return hit(F_MALLOC) ? NULL : base_mem.xMalloc(n);
}

static void *m_realloc(void *p, int n)
{
	return hit(F_MALLOC) ? NULL : base_mem.xRealloc(p, n);
}

static void m_free(void *p)
{
	base_mem.xFree(p);
}

static int m_size(void *p)
{
	return base_mem.xSize(p);
}

static int m_roundup(int n)
{
	return base_mem.xRoundup(n);
}

static int m_init(void *p)
{
	return base_mem.xInit(p);
}

static void m_shutdown(void *p)
{
	base_mem.xShutdown(p);
}

static int install_faults(void **state)
{
	static sqlite3_mem_methods mm;

	(void)state;
	if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &base_mem) != SQLITE_OK)
		return -1;
	mm = (sqlite3_mem_methods){ m_malloc, m_free, m_realloc, m_size,
				    m_roundup, m_init, m_shutdown, NULL };
	if (sqlite3_config(SQLITE_CONFIG_MALLOC, &mm) != SQLITE_OK ||
	    sqlite3_initialize() != SQLITE_OK)
		return -1;
	base_vfs = sqlite3_vfs_find(NULL);
	faulty.szOsFile = (int)sizeof(struct ffile) + base_vfs->szOsFile;
	faulty.mxPathname = base_vfs->mxPathname;
	return sqlite3_vfs_register(&faulty, 1) == SQLITE_OK ? 0 : -1;
}

/* ---- the workload and its check ---------------------------------------- */

#define RUN "run_20250101_000000"
#define WORK_OPS 6

/* On tmpfs when there is one: a thousand stores are created, and fsync
 * there costs nothing. */
static char *tmp_store(void)
{
	char shm[] = "/dev/shm/arena-test-faults-XXXXXX";
	char tmp[] = "/tmp/arena-test-faults-XXXXXX";
	char *d = dir_exists("/dev/shm") ? mkdtemp(shm) : NULL;

	if (!d)
		d = mkdtemp(tmp);

	assert_non_null(d);
	return xstrdup(d);
}

/* What was committed before any fault: a run row inserted by hand (its
 * id fixed, so that every iteration checks the same thing), two attempts,
 * an event and a cached evaluation. */
static void seed(const char *dir)
{
	struct store *s;
	struct errbuf err;
	sqlite3 *db;
	char *path = path_join(dir, "arena.db");

	errbuf_init(&err);
	assert_int_equal(store_open(dir, &s, &err), 0);
	store_close(s);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "INSERT INTO runs(id, created_at, "
				      "agent, status, ntasks) VALUES('" RUN
				      "', 1, 'noop', 'running', 2)", NULL,
				      NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	free(path);
	assert_int_equal(store_open(dir, &s, &err), 0);
	assert_int_equal(store_attempt_insert(s, RUN, "c2c/a", 1, "", 1, &err),
			 0);
	assert_int_equal(store_attempt_insert(s, RUN, "c2c/b", 1, "", 1, &err),
			 0);
	assert_int_equal(store_event_add(s, RUN, NULL, "created", "seed",
					 &err), 0);
	assert_int_equal(store_eval_put(s, "k0", "c2c/a", "h0", "host", "{}",
					&err), 0);
	store_close(s);
}

/* The writes a worker makes; done[i] says which the store reported as
 * done.  Returns how many were attempted (the open may fail first). */
static int work(const char *dir, bool done[WORK_OPS])
{
	struct store *s;
	struct errbuf err;
	int i = 0;

	memset(done, 0, WORK_OPS * sizeof(bool));
	errbuf_init(&err);
	if (store_open(dir, &s, &err) != 0) {
		assert_true(err.set);
		if (getenv("FAULTS_DEBUG"))
			print_message("open: %s\n", errbuf_str(&err));
		return 0;
	}
	done[i++] = store_attempt_update(s, RUN, "c2c/a", 1, "agent_running",
					 NULL, NULL, NULL, true, &err) == 0;
	done[i++] = store_lease_take(s, RUN, "c2c/a", 1, "host:1:x", 60.0,
				     &err) == 0;
	done[i++] = store_event_add(s, RUN, "c2c/a", "agent", "started",
				    &err) == 0;
	done[i++] = store_attempt_update(s, RUN, "c2c/a", 1, "done", "{}",
					 "{\"score\":1}", "h1", false,
					 &err) == 0;
	done[i++] = store_eval_put(s, "k1", "c2c/a", "h1", "host", "{}",
				   &err) == 0;
	done[i++] = store_run_set_status(s, RUN, "done", &err) == 0;
	for (int k = 0; k < i; k++)
		if (!done[k])
			assert_true(err.set);	/* a failure says why */
	store_close(s);
	return i;
}

static void check_nothing_lost(const char *dir, const bool done[WORK_OPS])
{
	struct store *s;
	struct store_attempt a, b;
	struct store_run r;
	struct store_event *ev;
	struct errbuf err;
	char *json = NULL, *owner = NULL, *path = path_join(dir, "arena.db");
	sqlite3 *db;
	sqlite3_stmt *st;
	int n;

	errbuf_init(&err);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1,
					    &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "ok");
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(path);

	assert_int_equal(store_open(dir, &s, &err), 0);
	/* the seed */
	assert_int_equal(store_run_get(s, RUN, &r, &err), 0);
	assert_int_equal(store_attempt_get(s, RUN, "c2c/b", 1, &b, &err), 0);
	assert_string_equal(b.state, "pending");
	assert_int_equal(store_eval_get(s, "k0", &json, &err), 0);
	free(json);
	assert_int_equal(store_event_list(s, RUN, 0, 100, &ev, &n, &err), 0);
	assert_true(n >= 1);
	assert_string_equal(ev[0].message, "seed");
	/* every write reported as done, and no half-written one */
	assert_int_equal(store_attempt_get(s, RUN, "c2c/a", 1, &a, &err), 0);
	if (done[3]) {
		assert_string_equal(a.state, "done");
		assert_string_equal(a.sources_hash, "h1");
		assert_non_null(a.result_json);
	} else if (!strcmp(a.state, "done")) {
		assert_string_equal(a.sources_hash, "h1");	/* all of it */
	}
	if (done[0])
		assert_int_equal(a.agent_starts, 1);
	if (done[1]) {
		assert_int_equal(store_lease_owner(s, RUN, "c2c/a", 1, &owner,
						   &err), 0);
		assert_string_equal(owner, "host:1:x");
		free(owner);
	}
	if (done[2])
		assert_int_equal(n, 2);
	if (done[4]) {
		assert_int_equal(store_eval_get(s, "k1", &json, &err), 0);
		free(json);
	}
	if (done[5])
		assert_string_equal(r.status, "done");
	store_events_free(ev, n);
	store_attempt_release(&a);
	store_attempt_release(&b);
	store_run_release(&r);
	/* and the store works again */
	assert_int_equal(store_event_add(s, RUN, NULL, "note", "after",
					 &err), 0);
	store_close(s);
}

/* Runs the workload once per fault point of kind k: the n-th call of that
 * kind fails, for every n the workload reaches. */
static void each_fault_point(enum fault k)
{
	bool done[WORK_OPS];
	long points;
	int failed_runs = 0;

	char *dir = tmp_store();
	seed(dir);
	calls[k] = 0;
	armed = F_NONE;
	assert_int_equal(work(dir, done), WORK_OPS);
	points = calls[k];
	rm_rf(dir);
	free(dir);
	assert_true(points > 0);
	for (long n = 1; n <= points; n++) {
		dir = tmp_store();
		seed(dir);
		fired = false;
		countdown = n;
		armed = k;
		int tried = work(dir, done);
		armed = F_NONE;
		for (int i = 0; i < tried; i++)
			failed_runs += !done[i];
		check_nothing_lost(dir, done);
		rm_rf(dir);
		free(dir);
	}
	/* The faults were felt: some write reported failure.  (Reads and
	 * allocations that sqlite can do without are allowed to pass.) */
	if (k == F_WRITE || k == F_SYNC)
		assert_true(failed_runs > 0);
	print_message("%ld fault points, %d writes reported failed\n", points,
		      failed_runs);
}

static void a_failed_write_loses_nothing_committed(void **state)
{
	(void)state;
	each_fault_point(F_WRITE);
}

static void a_failed_sync_loses_nothing_committed(void **state)
{
	(void)state;
	each_fault_point(F_SYNC);
}

static void a_failed_read_loses_nothing_committed(void **state)
{
	(void)state;
	each_fault_point(F_READ);
}

static void a_failed_truncate_loses_nothing_committed(void **state)
{
	(void)state;
	each_fault_point(F_TRUNCATE);
}

static void sqlite_out_of_memory_loses_nothing_committed(void **state)
{
	(void)state;
	each_fault_point(F_MALLOC);
}

/* Another process writing makes sqlite answer BUSY for the write lock;
 * the store's busy timeout waits it out and every write still lands. */
static void transient_busy_is_waited_out(void **state)
{
	bool done[WORK_OPS];
	char *dir = tmp_store();

	(void)state;
	seed(dir);
	fired = false;
	countdown = 20;		/* the first 20 write-lock attempts refused */
	calls[F_BUSY] = 0;
	armed = F_BUSY;
	assert_int_equal(work(dir, done), WORK_OPS);
	armed = F_NONE;
	assert_true(calls[F_BUSY] > 20);	/* refused, then granted */
	for (int i = 0; i < WORK_OPS; i++)
		assert_true(done[i]);
	check_nothing_lost(dir, done);
	rm_rf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_failed_write_loses_nothing_committed),
		cmocka_unit_test(a_failed_sync_loses_nothing_committed),
		cmocka_unit_test(a_failed_read_loses_nothing_committed),
		cmocka_unit_test(a_failed_truncate_loses_nothing_committed),
		cmocka_unit_test(sqlite_out_of_memory_loses_nothing_committed),
		cmocka_unit_test(transient_busy_is_waited_out),
	};

	return cmocka_run_group_tests(tests, install_faults, NULL);
}
