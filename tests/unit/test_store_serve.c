/*
 * test_store_serve.c - the queue of `arena serve` in the store
 * (engine/src/store/store_serve.c): priorities, leases, exactly-once
 * answers, twins of one evaluation key, backpressure, client keys, and a
 * queue that survives closing and reopening the store.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/store.h"

static char *tmp_store(void)
{
	char tmpl[] = "/tmp/arena-test-serve-XXXXXX";
	char *d = mkdtemp(tmpl);

	assert_non_null(d);
	return xstrdup(d);
}

/* A batch of n requests: ids "<batch>_<i>", keys from keys[i] (or a
 * distinct one per request), priorities from prio (or 0). */
static int add_batch(struct store *s, const char *batch, int n,
		     const char *const *keys, const int *prio,
		     const char *client_key, int max_pending, char **existing)
{
	struct store_serve_req *r = calloc((size_t)n, sizeof(*r));
	struct errbuf err;
	char *ex = NULL;
	int rc;

	errbuf_init(&err);
	for (int i = 0; i < n; i++) {
		r[i].id = xasprintf("%s_%d", batch, i);
		r[i].idx = i;
		r[i].task_id = xstrdup("c2c/saxpy");
		r[i].priority = prio ? prio[i] : 0;
		r[i].sources_json = xstrdup("{\"kernel.c\": \"int x;\"}");
		r[i].eval_key = keys ? xstrdup(keys[i])
				     : xasprintf("key-%s-%d", batch, i);
	}
	rc = store_serve_batch_add(s, batch, client_key, r, n, max_pending, &ex,
				   &err);
	if (existing)
		*existing = ex;
	else
		free(ex);
	for (int i = 0; i < n; i++)
		store_serve_req_release(&r[i]);
	free(r);
	return rc;
}

static void test_claim_takes_highest_priority_then_oldest(void **state)
{
	char *dir = tmp_store();
	struct store *s;
	struct errbuf err;
	struct store_serve_req q;
	int prio[3] = { 0, 5, 5 };

	errbuf_init(&err);
	assert_int_equal(store_open(dir, &s, &err), 0);
	assert_int_equal(add_batch(s, "b_1", 3, NULL, prio, NULL, 100, NULL),
			 0);
	assert_int_equal(store_serve_claim(s, "w", 60, &q, &err), 0);
	assert_string_equal(q.id, "b_1_1");
	assert_string_equal(q.state, "running");
	assert_non_null(q.sources_json);
	store_serve_req_release(&q);
	assert_int_equal(store_serve_claim(s, "w", 60, &q, &err), 0);
	assert_string_equal(q.id, "b_1_2");
	store_serve_req_release(&q);
	assert_int_equal(store_serve_claim(s, "w", 60, &q, &err), 0);
	assert_string_equal(q.id, "b_1_0");
	store_serve_req_release(&q);
	assert_int_equal(store_serve_claim(s, "w", 60, &q, &err), -ENOENT);
	store_close(s);
	rm_rf(dir);
	free(dir);
}

static void test_finish_answers_once_and_only_for_the_lease_owner(void **state)
{
	char *dir = tmp_store();
	struct store *s;
	struct errbuf err;
	struct store_serve_req q, got;

	errbuf_init(&err);
	assert_int_equal(store_open(dir, &s, &err), 0);
	assert_int_equal(add_batch(s, "b_1", 1, NULL, NULL, NULL, 100, NULL),
			 0);
	assert_int_equal(store_serve_claim(s, "w1", 60, &q, &err), 0);
	assert_int_equal(store_serve_finish(s, q.id, "w2", "{}", NULL, true,
					    NULL, &err),
			 -ESTALE);
	assert_int_equal(store_serve_finish(s, q.id, "w1", "{\"a\":1}", NULL,
					    true, NULL, &err),
			 0);
	/* A second answer, by anyone, changes nothing. */
	assert_int_equal(store_serve_finish(s, q.id, "w1", "{\"a\":2}", NULL,
					    true, NULL, &err),
			 -ESTALE);
	assert_int_equal(store_serve_get(s, q.id, &got, &err), 0);
	assert_string_equal(got.state, "done");
	assert_string_equal(got.result_json, "{\"a\":1}");
	assert_int_equal(got.answers, 1);
	assert_true(got.done_seq > 0);
	store_serve_req_release(&got);
	store_serve_req_release(&q);
	store_close(s);
	rm_rf(dir);
	free(dir);
}

static void
test_expired_lease_is_claimed_again_and_old_owner_loses(void **state)
{
	char *dir = tmp_store();
	struct store *s;
	struct errbuf err;
	struct store_serve_req q1, q2;

	errbuf_init(&err);
	assert_int_equal(store_open(dir, &s, &err), 0);
	assert_int_equal(add_batch(s, "b_1", 1, NULL, NULL, NULL, 100, NULL),
			 0);
	assert_int_equal(store_serve_claim(s, "dead", -1, &q1, &err), 0);
	assert_int_equal(store_serve_claim(s, "live", 60, &q2, &err), 0);
	assert_string_equal(q1.id, q2.id);
	assert_int_equal(store_serve_finish(s, q1.id, "dead", "{}", NULL, true,
					    NULL, &err),
			 -ESTALE);
	assert_int_equal(store_serve_finish(s, q2.id, "live", "{}", NULL, true,
					    NULL, &err),
			 0);
	store_serve_req_release(&q1);
	store_serve_req_release(&q2);
	store_close(s);
	rm_rf(dir);
	free(dir);
}

static void
test_twins_wait_for_one_evaluation_and_share_its_answer(void **state)
{
	char *dir = tmp_store();
	struct store *s;
	struct errbuf err;
	struct store_serve_req q, *v;
	const char *keys[3] = { "same", "same", "other" };
	int n, also = -1;

	errbuf_init(&err);
	assert_int_equal(store_open(dir, &s, &err), 0);
	assert_int_equal(add_batch(s, "b_1", 3, keys, NULL, NULL, 100, NULL),
			 0);
	assert_int_equal(store_serve_claim(s, "w1", 60, &q, &err), 0);
	assert_string_equal(q.id, "b_1_0");
	/* The twin is skipped while its key runs. */
	struct store_serve_req q2;
	assert_int_equal(store_serve_claim(s, "w2", 60, &q2, &err), 0);
	assert_string_equal(q2.id, "b_1_2");
	assert_int_equal(store_serve_finish(s, q.id, "w1", "{\"r\":1}", NULL,
					    true, &also, &err),
			 0);
	assert_int_equal(also, 1);
	assert_int_equal(store_serve_batch(s, "b_1", &v, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[1].state, "done");
	assert_true(v[1].cached);
	assert_int_equal(v[1].answers, 1);
	assert_string_equal(v[1].result_json, "{\"r\":1}");
	assert_string_equal(v[2].state, "running");
	store_serve_reqs_free(v, n);
	store_serve_req_release(&q);
	store_serve_req_release(&q2);
	store_close(s);
	rm_rf(dir);
	free(dir);
}

static void test_uncacheable_answer_leaves_twins_queued(void **state)
{
	char *dir = tmp_store();
	struct store *s;
	struct errbuf err;
	struct store_serve_req q, got;
	const char *keys[2] = { "k", "k" };
	int also = -1;

	errbuf_init(&err);
	assert_int_equal(store_open(dir, &s, &err), 0);
	assert_int_equal(add_batch(s, "b_1", 2, keys, NULL, NULL, 100, NULL),
			 0);
	assert_int_equal(store_serve_claim(s, "w", 60, &q, &err), 0);
	assert_int_equal(store_serve_finish(s, q.id, "w", NULL, "no runner",
					    false, &also, &err),
			 0);
	assert_int_equal(also, 0);
	assert_int_equal(store_serve_get(s, "b_1_1", &got, &err), 0);
	assert_string_equal(got.state, "queued");
	store_serve_req_release(&got);
	store_serve_req_release(&q);
	store_close(s);
	rm_rf(dir);
	free(dir);
}

static void test_full_queue_refuses_the_whole_batch(void **state)
{
	char *dir = tmp_store();
	struct store *s;
	struct errbuf err;
	int pending = -1, running = -1;

	errbuf_init(&err);
	assert_int_equal(store_open(dir, &s, &err), 0);
	assert_int_equal(add_batch(s, "b_1", 3, NULL, NULL, NULL, 4, NULL), 0);
	assert_int_equal(add_batch(s, "b_2", 2, NULL, NULL, NULL, 4, NULL),
			 -EAGAIN);
	assert_int_equal(store_serve_counts(s, &pending, &running, &err), 0);
	assert_int_equal(pending, 3);
	assert_int_equal(running, 0);
	assert_int_equal(add_batch(s, "b_3", 1, NULL, NULL, NULL, 4, NULL), 0);
	store_close(s);
	rm_rf(dir);
	free(dir);
}

static void test_client_key_makes_a_submission_idempotent(void **state)
{
	char *dir = tmp_store();
	struct store *s;
	struct errbuf err;
	char *ex = NULL;
	int pending = 0;

	errbuf_init(&err);
	assert_int_equal(store_open(dir, &s, &err), 0);
	assert_int_equal(add_batch(s, "b_1", 2, NULL, NULL, "ck", 100, &ex), 0);
	assert_null(ex);
	assert_int_equal(add_batch(s, "b_2", 2, NULL, NULL, "ck", 100, &ex),
			 -EEXIST);
	assert_string_equal(ex, "b_1");
	free(ex);
	assert_int_equal(store_serve_counts(s, &pending, NULL, &err), 0);
	assert_int_equal(pending, 2);
	store_close(s);
	rm_rf(dir);
	free(dir);
}

static void test_queue_survives_reopen_and_requeue_of_a_dead_owner(void **state)
{
	char *dir = tmp_store();
	struct store *s;
	struct errbuf err;
	struct store_serve_req q;
	struct strvec owners = STRVEC_INIT;
	int n = -1;

	errbuf_init(&err);
	assert_int_equal(store_open(dir, &s, &err), 0);
	assert_int_equal(add_batch(s, "b_1", 2, NULL, NULL, NULL, 100, NULL),
			 0);
	assert_int_equal(store_serve_claim(s, "gone:1:x", 60, &q, &err), 0);
	store_serve_req_release(&q);
	store_close(s);

	assert_int_equal(store_open(dir, &s, &err), 0);
	assert_int_equal(store_serve_owners(s, &owners, &err), 0);
	assert_int_equal((int)owners.n, 1);
	assert_string_equal(owners.v[0], "gone:1:x");
	assert_int_equal(store_serve_requeue_owner(s, "gone:1:x", &n, &err), 0);
	assert_int_equal(n, 1);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(store_serve_claim(s, "w", 60, &q, &err), 0);
		assert_int_equal(store_serve_finish(s, q.id, "w", "{}", NULL,
						    true, NULL, &err),
				 0);
		store_serve_req_release(&q);
	}
	assert_int_equal(store_serve_claim(s, "w", 60, &q, &err), -ENOENT);
	strvec_release(&owners);
	store_close(s);
	rm_rf(dir);
	free(dir);
}

/* Several threads, each with its own connection, drain one queue: every
 * request is answered exactly once. */
struct drainer {
	const char *dir;
	char owner[16];
	int answered;
};

static void *drain(void *arg)
{
	struct drainer *d = arg;
	struct store *s;
	struct errbuf err;
	struct store_serve_req q;

	errbuf_init(&err);
	if (store_open(d->dir, &s, &err))
		return NULL;
	for (;;) {
		int rc = store_serve_claim(s, d->owner, 60, &q, &err);
		if (rc == -ENOENT)
			break;
		if (rc == -EBUSY)
			continue;
		if (rc)
			break;
		if (store_serve_finish(s, q.id, d->owner, "{}", NULL, true,
				       NULL, &err) == 0)
			d->answered++;
		store_serve_req_release(&q);
	}
	store_close(s);
	return NULL;
}

static void
test_concurrent_workers_answer_each_request_exactly_once(void **state)
{
	char *dir = tmp_store();
	struct store *s;
	struct errbuf err;
	struct store_serve_req *v;
	struct drainer d[4];
	pthread_t th[4];
	int n, total = 0;

	errbuf_init(&err);
	assert_int_equal(store_open(dir, &s, &err), 0);
	assert_int_equal(add_batch(s, "b_1", 200, NULL, NULL, NULL, 1000, NULL),
			 0);
	for (int i = 0; i < 4; i++) {
		d[i].dir = dir;
		snprintf(d[i].owner, sizeof(d[i].owner), "w%d", i);
		d[i].answered = 0;
		assert_int_equal(pthread_create(&th[i], NULL, drain, &d[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		total += d[i].answered;
	}
	assert_int_equal(total, 200);
	assert_int_equal(store_serve_batch(s, "b_1", &v, &n, &err), 0);
	for (int i = 0; i < n; i++) {
		assert_string_equal(v[i].state, "done");
		assert_int_equal(v[i].answers, 1);
	}
	store_serve_reqs_free(v, n);
	store_close(s);
	rm_rf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_claim_takes_highest_priority_then_oldest),
		cmocka_unit_test(
			test_finish_answers_once_and_only_for_the_lease_owner),
		cmocka_unit_test(
			test_expired_lease_is_claimed_again_and_old_owner_loses),
		cmocka_unit_test(
			test_twins_wait_for_one_evaluation_and_share_its_answer),
		cmocka_unit_test(test_uncacheable_answer_leaves_twins_queued),
		cmocka_unit_test(test_full_queue_refuses_the_whole_batch),
		cmocka_unit_test(test_client_key_makes_a_submission_idempotent),
		cmocka_unit_test(
			test_queue_survives_reopen_and_requeue_of_a_dead_owner),
		cmocka_unit_test(
			test_concurrent_workers_answer_each_request_exactly_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
