/*
 * test_store.c - the experiment store: run ids, attempts, the evaluation
 * cache, events, leases, and sharing one store between connections.
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
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "arena/store.h"

static char *tmp_store(void)
{
	char tmpl[] = "/tmp/arena-test-store-XXXXXX";
	char *d = mkdtemp(tmpl);

	assert_non_null(d);
	return xstrdup(d);
}

static void test_open_creates_db_and_runs_dir(void **state)
{
	char *dir = tmp_store();
	struct store *s;
	struct errbuf err;

	errbuf_init(&err);
	assert_int_equal(store_open(dir, &s, &err), 0);
	char *db = path_join(dir, "arena.db"), *runs = path_join(dir, "runs");
	assert_true(file_exists(db));
	assert_true(dir_exists(runs));
	store_close(s);
	free(db);
	free(runs);
	rm_rf(dir);
	free(dir);
}

static void test_run_ids_are_unique_within_one_second(void **state)
{
	char *dir = tmp_store();
	struct store *s;
	struct errbuf err;
	struct strvec ids = STRVEC_INIT;

	errbuf_init(&err);
	assert_int_equal(store_open(dir, &s, &err), 0);
	for (int i = 0; i < 5; i++) {
		struct store_run r = { .agent = (char *)"noop" };
		assert_int_equal(store_run_create(s, &r, "x", &err), 0);
		assert_true(store_run_id_valid(r.id));
		assert_false(strvec_contains(&ids, r.id));
		strvec_push(&ids, r.id);
		free(r.id);
	}
	struct strvec listed = STRVEC_INIT;
	assert_int_equal(store_run_list(s, &listed, &err), 0);
	assert_int_equal(listed.n, 5);
	strvec_release(&listed);
	strvec_release(&ids);
	store_close(s);
	rm_rf(dir);
	free(dir);
}

static void test_concurrent_processes_get_distinct_runs(void **state)
{
	char *dir = tmp_store();
	struct store *s;
	struct errbuf err;
	enum { N = 8 };

	errbuf_init(&err);
	assert_int_equal(store_open(dir, &s, &err), 0);
	store_close(s);
	for (int i = 0; i < N; i++) {
		if (fork() == 0) {
			struct store *cs;
			struct store_run r = { 0 };
			if (store_open(dir, &cs, NULL) ||
			    store_run_create(cs, &r, NULL, NULL))
				_exit(1);
			store_close(cs);
			_exit(0);
		}
	}
	for (int i = 0; i < N; i++) {
		int st;
		wait(&st);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	assert_int_equal(store_open(dir, &s, &err), 0);
	struct strvec listed = STRVEC_INIT;
	assert_int_equal(store_run_list(s, &listed, &err), 0);
	assert_int_equal(listed.n, N);
	strvec_release(&listed);
	store_close(s);
	rm_rf(dir);
	free(dir);
}

/* Processes that open one new store at the same moment all get it (the
 * switch to WAL and the schema meet each other's locks; the workers of
 * an A/A and concurrent check-tasks did).  40 rounds of 32: without the
 * retries at least one open failed in every run here. */
static void test_processes_opening_a_new_store_at_once_all_succeed(void **state)
{
	enum { ROUNDS = 40, N = 32 };

	(void)state;
	for (int round = 0; round < ROUNDS; round++) {
		char *dir = tmp_store();
		int go[2];
		assert_int_equal(pipe(go), 0);
		for (int i = 0; i < N; i++) {
			if (fork() == 0) {
				struct store *cs;
				char c;
				close(go[1]);
				/* all start when the pipe closes */
				(void)!read(go[0], &c, 1);
				if (store_open(dir, &cs, NULL))
					_exit(1);
				store_close(cs);
				_exit(0);
			}
		}
		close(go[0]);
		close(go[1]);
		for (int i = 0; i < N; i++) {
			int st;
			wait(&st);
			assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		}
		rm_rf(dir);
		free(dir);
	}
}

static void test_bad_suffix_is_rejected_with_reason(void **state)
{
	char *dir = tmp_store();
	struct store *s;
	struct errbuf err;
	struct store_run r = { 0 };

	errbuf_init(&err);
	assert_int_equal(store_open(dir, &s, &err), 0);
	assert_int_not_equal(store_run_create(s, &r, "../evil", &err), 0);
	assert_non_null(strstr(err.msg, "suffix"));
	store_close(s);
	rm_rf(dir);
	free(dir);
}

static void test_attempt_state_and_fields_persist(void **state)
{
	char *dir = tmp_store();
	struct store *s;
	struct errbuf err;
	struct store_run r = { 0 };
	struct store_attempt a;

	errbuf_init(&err);
	assert_int_equal(store_open(dir, &s, &err), 0);
	assert_int_equal(store_run_create(s, &r, NULL, &err), 0);
	assert_int_equal(store_attempt_insert(s, r.id, "c2c/saxpy", 1, "", 1, &err), 0);
	/* Inserting twice is harmless (creation may be repeated). */
	assert_int_equal(store_attempt_insert(s, r.id, "c2c/saxpy", 1, "", 1, &err), 0);
	assert_int_equal(store_attempt_update(s, r.id, "c2c/saxpy", 1,
					      "agent_running", NULL, NULL, NULL,
					      true, &err), 0);
	assert_int_equal(store_attempt_update(s, r.id, "c2c/saxpy", 1, "done",
					      "{\"status\":\"completed\"}",
					      "{}", "abc", false, &err), 0);
	assert_int_equal(store_attempt_get(s, r.id, "c2c/saxpy", 1, &a, &err), 0);
	assert_string_equal(a.state, "done");
	assert_string_equal(a.sources_hash, "abc");
	assert_string_equal(a.agent_json, "{\"status\":\"completed\"}");
	assert_int_equal(a.agent_starts, 1);
	store_attempt_release(&a);
	assert_int_equal(store_attempt_get(s, r.id, "c2c/none", 1, &a, &err),
			 -ENOENT);
	free(r.id);
	store_close(s);
	rm_rf(dir);
	free(dir);
}

static void test_eval_cache_roundtrip_and_count(void **state)
{
	char *dir = tmp_store();
	struct store *s;
	struct errbuf err;
	char *json = NULL;
	int n = -1;

	errbuf_init(&err);
	assert_int_equal(store_open(dir, &s, &err), 0);
	assert_int_equal(store_eval_get(s, "k1", &json, &err), -ENOENT);
	assert_int_equal(store_eval_put(s, "k1", "c2c/dot", "h", "host",
					"{\"a\":1}", &err), 0);
	assert_int_equal(store_eval_get(s, "k1", &json, &err), 0);
	assert_string_equal(json, "{\"a\":1}");
	free(json);
	assert_int_equal(store_eval_count(s, "c2c/dot", &n, &err), 0);
	assert_int_equal(n, 1);
	store_close(s);
	rm_rf(dir);
	free(dir);
}

static void test_meta_values_persist_and_absent_is_enoent(void **state)
{
	char *dir = tmp_store();
	struct store *s;
	struct errbuf err;
	char *v = NULL;

	errbuf_init(&err);
	assert_int_equal(store_open(dir, &s, &err), 0);
	assert_int_equal(store_meta_get(s, "run_seed/run_x", &v, &err),
			 -ENOENT);
	assert_int_equal(store_meta_put(s, "run_seed/run_x", "42", &err), 0);
	assert_int_equal(store_meta_put(s, "run_seed/run_x", "43", &err), 0);
	store_close(s);
	/* Another process opening the store sees the last value. */
	assert_int_equal(store_open(dir, &s, &err), 0);
	assert_int_equal(store_meta_get(s, "run_seed/run_x", &v, &err), 0);
	assert_string_equal(v, "43");
	free(v);
	store_close(s);
	rm_rf(dir);
	free(dir);
}

static void test_events_are_listed_in_order_after_an_id(void **state)
{
	char *dir = tmp_store();
	struct store *s;
	struct errbuf err;
	struct store_event *ev;
	int n;

	errbuf_init(&err);
	assert_int_equal(store_open(dir, &s, &err), 0);
	for (int i = 0; i < 5; i++) {
		char msg[16];
		snprintf(msg, sizeof(msg), "m%d", i);
		assert_int_equal(store_event_add(s, "run_x", NULL, "k", msg,
						 &err), 0);
	}
	assert_int_equal(store_event_list(s, "run_x", 0, 3, &ev, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(ev[0].message, "m0");
	int64_t last = ev[2].id;
	store_events_free(ev, n);
	assert_int_equal(store_event_list(s, "run_x", last, 10, &ev, &n, &err),
			 0);
	assert_int_equal(n, 2);
	assert_string_equal(ev[0].message, "m3");
	store_events_free(ev, n);
	store_close(s);
	rm_rf(dir);
	free(dir);
}

static void test_run_id_validation(void **state)
{
	assert_true(store_run_id_valid("run_20261129_093000"));
	assert_true(store_run_id_valid("run_20261129_093000_ab-c.1"));
	assert_false(store_run_id_valid("run_2026112_093000"));
	assert_false(store_run_id_valid("run_20261129_093000_"));
	assert_false(store_run_id_valid("run_20261129_093000/../x"));
	assert_false(store_run_id_valid("latest"));
}


static void test_store_without_variant_column_is_migrated(void **state)
{
	char *dir = tmp_store();
	char *db = path_join(dir, "arena.db");
	sqlite3 *h;
	struct store *s;
	struct store_attempt a;
	struct errbuf err;

	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_exec(h,
		"CREATE TABLE attempts(run_id TEXT NOT NULL, task_id TEXT NOT "
		"NULL, attempt INTEGER NOT NULL, state TEXT NOT NULL, agent_json "
		"TEXT, result_json TEXT, sources_hash TEXT, agent_starts INTEGER "
		"NOT NULL DEFAULT 0, updated_at REAL, PRIMARY KEY(run_id, task_id,"
		" attempt));"
		"INSERT INTO attempts VALUES('run_x', 'c2c/t', 2, 'done', NULL, "
		"NULL, NULL, 0, 0);", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);
	errbuf_init(&err);
	assert_int_equal(store_open(dir, &s, &err), 0);
	assert_int_equal(store_attempt_get(s, "run_x", "c2c/t", 2, &a, &err), 0);
	assert_string_equal(a.variant, "");
	assert_int_equal(a.repeat, 2);
	store_attempt_release(&a);
	store_close(s);
	free(db);
	rm_rf(dir);
	free(dir);
}

/* Two connections (two worker processes) contend for one attempt: one
 * wins, the other is told it is busy until the winner's lease expires or
 * is dropped; renewing keeps it; a dead owner's lease can be taken over,
 * but only from that owner. */
static void test_leases_keep_workers_apart(void **state)
{
	char *dir = tmp_store();
	struct store *a, *b;
	struct errbuf err;
	char *owner = NULL;
	struct strvec owners = STRVEC_INIT;

	errbuf_init(&err);
	assert_int_equal(store_open(dir, &a, &err), 0);
	assert_int_equal(store_open(dir, &b, &err), 0);
	const char *run = "run_20261129_000000";
	assert_int_equal(store_lease_take(a, run, "c2c/saxpy", 1, "h:1:a", 30,
					  &err), 0);
	assert_int_equal(store_lease_take(b, run, "c2c/saxpy", 1, "h:2:b", 30,
					  &err), -EBUSY);
	assert_non_null(strstr(errbuf_str(&err), "leased by another worker"));
	/* Taking one's own again is fine; another attempt is free. */
	assert_int_equal(store_lease_take(a, run, "c2c/saxpy", 1, "h:1:a", 30,
					  &err), 0);
	assert_int_equal(store_lease_take(b, run, "c2c/dot", 1, "h:2:b", 30,
					  &err), 0);
	assert_int_equal(store_lease_owners(a, run, &owners, &err), 0);
	assert_int_equal(owners.n, 2);
	assert_string_equal(owners.v[0], "h:1:a");
	assert_string_equal(owners.v[1], "h:2:b");
	strvec_release(&owners);
	assert_int_equal(store_lease_owner(b, run, "c2c/saxpy", 1, &owner,
					   &err), 0);
	assert_string_equal(owner, "h:1:a");
	free(owner);
	/* Takeover only from the owner named. */
	assert_int_equal(store_lease_take_from(b, run, "c2c/saxpy", 1, "h:2:b",
					       30, "h:9:z", &err), -EBUSY);
	assert_int_equal(store_lease_take_from(b, run, "c2c/saxpy", 1, "h:2:b",
					       30, "h:1:a", &err), 0);
	assert_int_equal(store_lease_take(a, run, "c2c/saxpy", 1, "h:1:a", 30,
					  &err), -EBUSY);
	/* Dropping frees it; dropping someone else's lease does nothing. */
	assert_int_equal(store_lease_drop(a, run, "c2c/saxpy", 1, "h:1:a",
					  &err), 0);
	assert_int_equal(store_lease_take(a, run, "c2c/saxpy", 1, "h:1:a", 30,
					  &err), -EBUSY);
	assert_int_equal(store_lease_drop(b, run, "c2c/saxpy", 1, "h:2:b",
					  &err), 0);
	assert_int_equal(store_lease_take(a, run, "c2c/saxpy", 1, "h:1:a",
					  2.0, &err), 0);
	/* A renewed lease outlives its first term (2 s from the take, now
	 * 3.2 s), an unrenewed one ends; 0.8 s of slack either side for a
	 * busy machine's sleeps. */
	usleep(1200000);
	assert_int_equal(store_lease_renew_all(a, "h:1:a", 2.0, &err), 0);
	usleep(1200000);
	assert_int_equal(store_lease_take(b, run, "c2c/saxpy", 1, "h:2:b", 30,
					  &err), -EBUSY);
	usleep(1000000);
	assert_int_equal(store_lease_take(b, run, "c2c/saxpy", 1, "h:2:b", 30,
					  &err), 0);
	assert_int_equal(store_lease_owner(a, run, "c2c/nope", 1, &owner, &err),
			 -ENOENT);
	store_close(a);
	store_close(b);
	rm_rf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_creates_db_and_runs_dir),
		cmocka_unit_test(test_run_ids_are_unique_within_one_second),
		cmocka_unit_test(test_concurrent_processes_get_distinct_runs),
		cmocka_unit_test(
			test_processes_opening_a_new_store_at_once_all_succeed),
		cmocka_unit_test(test_bad_suffix_is_rejected_with_reason),
		cmocka_unit_test(test_attempt_state_and_fields_persist),
		cmocka_unit_test(test_eval_cache_roundtrip_and_count),
		cmocka_unit_test(test_meta_values_persist_and_absent_is_enoent),
		cmocka_unit_test(test_events_are_listed_in_order_after_an_id),
		cmocka_unit_test(test_run_id_validation),
		cmocka_unit_test(test_store_without_variant_column_is_migrated),
		cmocka_unit_test(test_leases_keep_workers_apart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
