/*
 * test_eval_refcache.c - the reference outputs shared across evaluations
 * (eval_refcache, arena/eval.h): a second candidate of the same task,
 * seed and cases is compared with the cached reference bytes instead of
 * a reference run, every check of the candidate is made as without the
 * cache (same verdicts, same reasons), a different seed, reference or
 * task package never hits another's entries, a damaged entry is found
 * and recomputed, and the cache keeps to its budget.  And evaluations
 * in flight together (eval_run_many), which share a cache: the verdicts
 * of one at a time, timing by turns.
 *
 * Host evaluations of tests/adversarial/task/vecpoly (3 visible cases,
 * 3 correctness trials each), correctness only.  A copy of the task
 * under /tmp is edited for the invalidation tests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena/eval.h"
#include "arena/result.h"
#include "arena/task.h"
#include "arena/util.h"
#include "eval_check.h"

/* 3 visible cases x 3 trials, and the baseline's agreement per case. */
#define VECPOLY_TRIALS 9
#define VECPOLY_FACTS (VECPOLY_TRIALS + 3)

static struct task *task;
static char *adv_root; /* tests/adversarial */
static char tmp_dir[] = "/tmp/arena-test-refcache-XXXXXX";
static char *cache_dir;

static int group_setup(void **state)
{
	struct errbuf err;
	const char *src = getenv("ARENA_SOURCE_DIR");

	(void)state;
	errbuf_init(&err);
	adv_root = src ? path_join(src, "tests/adversarial")
		       : xstrdup("tests/adversarial");
	if (task_load(adv_root, "task/vecpoly", &task, &err) != 0) {
		fprintf(stderr, "cannot load the test task: %s\n",
			errbuf_str(&err));
		return -1;
	}
	if (!mkdtemp(tmp_dir))
		return -1;
	cache_dir = path_join(tmp_dir, "cache");
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	task_free(task);
	free(adv_root);
	free(cache_dir);
	rm_rf(tmp_dir);
	return 0;
}

static void evaluate_task(const struct task *t, const char *cand,
			  struct eval_refcache *rc, uint64_t seed,
			  struct task_result *res)
{
	char *dir = xasprintf("%s/candidates/%s", adv_root, cand);
	struct eval_request req;

	eval_request_init(&req);
	req.task = t;
	req.candidate_dir = dir;
	req.cache_dir = cache_dir;
	req.seed = seed ? seed : 20261129;
	req.refcache = rc;
	req.skip_timing = true;
	req.timing.runner_timeout_s = 10;
	eval_checked(&req, cand, res);
	free(dir);
}

static void evaluate(const char *cand, struct eval_refcache *rc,
		     struct task_result *res)
{
	evaluate_task(task, cand, rc, 0, res);
}

static struct eval_refcache_stats stats(struct eval_refcache *rc)
{
	struct eval_refcache_stats st;

	eval_refcache_stats(rc, &st);
	return st;
}

static void test_second_candidate_takes_every_trial_from_the_cache(void **state)
{
	struct eval_refcache *rc = eval_refcache_new(256u << 20);
	struct task_result res;

	(void)state;
	evaluate("baseline_copy", rc, &res);
	expect(&res, RS_OK, NULL);
	result_release(&res);
	assert_int_equal(stats(rc).hits, 0);
	assert_int_equal(stats(rc).entries, VECPOLY_FACTS);

	evaluate("optimized", rc, &res);
	expect(&res, RS_OK, NULL);
	assert_true(res.pass_correctness);
	result_release(&res);
	assert_int_equal(stats(rc).hits, VECPOLY_FACTS);
	assert_int_equal(stats(rc).entries, VECPOLY_FACTS);
	eval_refcache_free(rc);
}

/* Candidates caught in the correctness phase: the same verdict and the
 * same stated reason with a warm cache as with none. */
static void test_verdicts_with_a_warm_cache_match_those_without(void **state)
{
	static const char *const cands[] = {
		"partial_write", "modify_input", "cache_pointer",
		"no_write",	 "nonzero_rc",	 "exact_first_calls",
		"segfault",	 "optimized",
	};
	struct eval_refcache *rc = eval_refcache_new(256u << 20);
	struct task_result warm, cold;

	(void)state;
	evaluate("baseline_copy", rc, &warm);
	result_release(&warm);
	for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
		uint64_t hits = stats(rc).hits;
		evaluate(cands[i], NULL, &cold);
		evaluate(cands[i], rc, &warm);
		/* The cache was read: the first trial at least. */
		assert_true(stats(rc).hits > hits);
		assert_int_equal(warm.status, cold.status);
		assert_int_equal(warm.pass_correctness, cold.pass_correctness);
		assert_string_equal(warm.correctness_error_message
					    ? warm.correctness_error_message
					    : "",
				    cold.correctness_error_message
					    ? cold.correctness_error_message
					    : "");
		result_release(&warm);
		result_release(&cold);
	}
	eval_refcache_free(rc);
}

static void test_another_seed_misses_the_cache(void **state)
{
	struct eval_refcache *rc = eval_refcache_new(256u << 20);
	struct task_result res;

	(void)state;
	evaluate_task(task, "baseline_copy", rc, 0, &res);
	result_release(&res);
	evaluate_task(task, "baseline_copy", rc, 777, &res);
	expect(&res, RS_OK, NULL);
	result_release(&res);
	assert_int_equal(stats(rc).hits, 0);
	assert_int_equal(stats(rc).entries, 2 * VECPOLY_FACTS);
	eval_refcache_free(rc);
}

/* A copy of vecpoly under tmp_dir/<name>/task/vecpoly with `append`
 * added at the end of its file `file`, loaded. */
static struct task *edited_task(const char *name, const char *file,
				const char *append)
{
	static const char *const files[] = {
		"config.yaml",
		"held_out.yaml",
		"kernel.c",
		"reference.c",
	};
	char *root = path_join(tmp_dir, name);
	char *dir = xasprintf("%s/task/vecpoly", root);
	struct task *t = NULL;
	struct errbuf err;

	errbuf_init(&err);
	assert_int_equal(mkdir_p(dir, &err), 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *from =
			xasprintf("%s/task/vecpoly/%s", adv_root, files[i]);
		char *to = path_join(dir, files[i]);
		char *text = NULL;
		size_t len = 0;
		assert_int_equal(
			file_read_all(from, 1 << 20, &text, &len, &err), 0);
		struct strbuf sb = STRBUF_INIT;
		strbuf_add(&sb, text, len);
		if (!strcmp(files[i], file))
			strbuf_addstr(&sb, append);
		assert_int_equal(file_write_atomic(to, sb.buf, sb.len, &err),
				 0);
		strbuf_release(&sb);
		free(text);
		free(from);
		free(to);
	}
	if (task_load(root, "task/vecpoly", &t, &err) != 0)
		fail_msg("cannot load the edited task: %s", errbuf_str(&err));
	free(dir);
	free(root);
	return t;
}

static void test_a_changed_reference_misses_the_cache(void **state)
{
	struct eval_refcache *rc = eval_refcache_new(256u << 20);
	struct task *same = edited_task("same", "", "");
	struct task *t = edited_task("ref", "reference.c",
				     "/* another reference build */\n");
	struct task_result res;

	(void)state;
	evaluate_task(same, "baseline_copy", rc, 0, &res);
	result_release(&res);
	/* The control: an identical copy is the same reference. */
	evaluate_task(same, "optimized", rc, 0, &res);
	result_release(&res);
	assert_int_equal(stats(rc).hits, VECPOLY_FACTS);
	evaluate_task(t, "baseline_copy", rc, 0, &res);
	expect(&res, RS_OK, NULL);
	result_release(&res);
	assert_int_equal(stats(rc).hits, VECPOLY_FACTS);
	assert_int_equal(stats(rc).entries, 2 * VECPOLY_FACTS);
	task_free(t);
	task_free(same);
	eval_refcache_free(rc);
}

static void test_a_changed_task_config_misses_the_cache(void **state)
{
	struct eval_refcache *rc = eval_refcache_new(256u << 20);
	struct task *t =
		edited_task("config", "config.yaml", "# another definition\n");
	struct task_result res;

	(void)state;
	evaluate("baseline_copy", rc, &res);
	result_release(&res);
	evaluate_task(t, "baseline_copy", rc, 0, &res);
	expect(&res, RS_OK, NULL);
	result_release(&res);
	assert_int_equal(stats(rc).hits, 0);
	assert_int_equal(stats(rc).entries, 2 * VECPOLY_FACTS);
	task_free(t);
	eval_refcache_free(rc);
}

static void test_a_changed_baseline_is_checked_again(void **state)
{
	struct eval_refcache *rc = eval_refcache_new(256u << 20);
	struct task *t = edited_task("base", "kernel.c",
				     "/* another baseline build */\n");
	struct task_result res;

	(void)state;
	evaluate("baseline_copy", rc, &res);
	result_release(&res);
	evaluate_task(t, "baseline_copy", rc, 0, &res);
	expect(&res, RS_OK, NULL);
	result_release(&res);
	/* The reference is the same: its trials hit; the baseline's
	 * agreement with them is a fact about the old baseline. */
	assert_int_equal(stats(rc).hits, VECPOLY_TRIALS);
	assert_int_equal(stats(rc).entries, VECPOLY_FACTS + 3);
	task_free(t);
	eval_refcache_free(rc);
}

static void test_a_damaged_entry_is_dropped_and_recomputed(void **state)
{
	struct eval_refcache *rc = eval_refcache_new(256u << 20);
	struct task_result res;

	(void)state;
	evaluate("baseline_copy", rc, &res);
	result_release(&res);
	assert_int_equal(eval_refcache_corrupt(rc, 0), 0);
	assert_int_equal(eval_refcache_corrupt(rc, 4), 0);
	evaluate("optimized", rc, &res);
	/* Had the damaged bytes been used, an honest candidate would be
	 * incorrect on them. */
	expect(&res, RS_OK, NULL);
	result_release(&res);
	assert_int_equal(stats(rc).corrupt, 2);
	assert_int_equal(stats(rc).hits, VECPOLY_FACTS - 2);
	/* Recomputed and put again. */
	assert_int_equal(stats(rc).entries, VECPOLY_FACTS);
	evaluate("optimized", rc, &res);
	expect(&res, RS_OK, NULL);
	result_release(&res);
	assert_int_equal(stats(rc).corrupt, 2);
	assert_int_equal(stats(rc).hits, 2 * VECPOLY_FACTS - 2);
	eval_refcache_free(rc);
}

static void test_the_cache_stays_within_its_budget(void **state)
{
	/* A trial of the small case holds 1 MiB of input and 2 MiB of
	 * reference memory: a 4 MiB budget keeps one, never more. */
	struct eval_refcache *rc = eval_refcache_new(4u << 20);
	struct task_result res;

	(void)state;
	evaluate("baseline_copy", rc, &res);
	expect(&res, RS_OK, NULL);
	result_release(&res);
	assert_true(stats(rc).bytes <= stats(rc).budget);
	assert_true(stats(rc).evictions > 0);
	evaluate("optimized", rc, &res);
	expect(&res, RS_OK, NULL);
	result_release(&res);
	assert_true(stats(rc).bytes <= stats(rc).budget);
	eval_refcache_free(rc);
}

/* ---- several evaluations in flight (eval_run_many) ---------------------- */

static void request_for(const char *cand, struct eval_refcache *rc,
			bool skip_timing, struct eval_request *req)
{
	eval_request_init(req);
	req->task = task;
	req->candidate_dir = xasprintf("%s/candidates/%s", adv_root, cand);
	req->cache_dir = cache_dir;
	req->seed = 20261129;
	req->refcache = rc;
	req->skip_timing = skip_timing;
	req->timing.case_budget_s = 0.2;
	req->timing.blocks = 2;
	req->timing.min_pairs = 5;
	req->timing.runner_timeout_s = 10;
}

static void test_verdicts_in_flight_match_one_at_a_time(void **state)
{
	static const char *const cands[] = {
		"baseline_copy", "partial_write", "modify_input",
		"optimized",	 "nonzero_rc",	  "cache_pointer",
	};
	enum { N = sizeof(cands) / sizeof(cands[0]) };
	struct eval_refcache *rc = eval_refcache_new(256u << 20);
	struct eval_request reqs[N];
	struct task_result res[N], one;
	int rcs[N];

	(void)state;
	for (int i = 0; i < N; i++)
		request_for(cands[i], rc, true, &reqs[i]);
	eval_run_many(reqs, N, 3, res, rcs, NULL);
	for (int i = 0; i < N; i++) {
		assert_int_equal(rcs[i], 0);
		evaluate(cands[i], NULL, &one);
		assert_int_equal(res[i].status, one.status);
		assert_string_equal(res[i].correctness_error_message
					    ? res[i].correctness_error_message
					    : "",
				    one.correctness_error_message
					    ? one.correctness_error_message
					    : "");
		result_release(&one);
		result_release(&res[i]);
		free((char *)reqs[i].candidate_dir);
	}
	assert_true(stats(rc).hits > 0);
	eval_refcache_free(rc);
}

/* Timed evaluations in flight take turns at the device lock: both are
 * timed and reach a verdict. */
static void test_timed_evaluations_in_flight_are_both_timed(void **state)
{
	struct eval_refcache *rc = eval_refcache_new(256u << 20);
	struct eval_request reqs[2];
	struct task_result res[2];
	int rcs[2];

	(void)state;
	request_for("baseline_copy", rc, false, &reqs[0]);
	request_for("optimized", rc, false, &reqs[1]);
	eval_run_many(reqs, 2, 2, res, rcs, NULL);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(rcs[i], 0);
		expect(&res[i], RS_OK, NULL);
		assert_true(res[i].pairs > 0);
		result_release(&res[i]);
		free((char *)reqs[i].candidate_dir);
	}
	eval_refcache_free(rc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_second_candidate_takes_every_trial_from_the_cache),
		cmocka_unit_test(
			test_verdicts_with_a_warm_cache_match_those_without),
		cmocka_unit_test(test_another_seed_misses_the_cache),
		cmocka_unit_test(test_a_changed_reference_misses_the_cache),
		cmocka_unit_test(test_a_changed_task_config_misses_the_cache),
		cmocka_unit_test(test_a_changed_baseline_is_checked_again),
		cmocka_unit_test(
			test_a_damaged_entry_is_dropped_and_recomputed),
		cmocka_unit_test(test_the_cache_stays_within_its_budget),
		cmocka_unit_test(test_verdicts_in_flight_match_one_at_a_time),
		cmocka_unit_test(
			test_timed_evaluations_in_flight_are_both_timed),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
