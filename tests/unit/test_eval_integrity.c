/*
 * test_eval_integrity.c - the host evaluator against the attacks of
 * issue 10 (docs/evaluator.md, "Threat model"): work done outside the
 * timed window, claims the clock does not bind, candidates correct only
 * while watched, forged infrastructure errors - and honest optimized
 * candidates on c2c tasks, which every check must let through.
 *
 * Each test evaluates one directory of tests/adversarial/candidates/ (or
 * tests/adversarial/honest/) through eval_run(), as `arena eval` would,
 * and asserts the verdict and a phrase of its stated reason.  Where a
 * cheat is not named but merely gains nothing (its claims agree with the
 * accounting), the test asserts that its speedup is the baseline's.
 *
 * Paths as in test_eval.c: run from the repository root, or set
 * ARENA_SOURCE_DIR.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arena/eval.h"
#include "arena/result.h"
#include "arena/task.h"
#include "arena/util.h"
#include "candidate_variant.h"
#include "eval_check.h"

static struct task *vecpoly, *vecpoly_bias, *vecpoly_tiny, *gemm, *conv1d,
	*stencil2d;
static char *adv_root; /* tests/adversarial */
static char cache_dir[] = "/tmp/arena-test-integrity-XXXXXX";

static int load(const char *root, const char *id, struct task **t)
{
	struct errbuf err;

	errbuf_init(&err);
	if (task_load(root, id, t, &err) != 0) {
		fprintf(stderr, "cannot load %s: %s\n", id, errbuf_str(&err));
		return -1;
	}
	return 0;
}

static int group_setup(void **state)
{
	const char *src = getenv("ARENA_SOURCE_DIR");
	char *tasks = src ? path_join(src, "tasks") : xstrdup("tasks");
	int rc;

	(void)state;
	adv_root = src ? path_join(src, "tests/adversarial")
		       : xstrdup("tests/adversarial");
	rc = load(adv_root, "task/vecpoly", &vecpoly) ||
	     load(adv_root, "task/vecpoly_bias", &vecpoly_bias) ||
	     load(adv_root, "task/vecpoly_tiny", &vecpoly_tiny) ||
	     load(tasks, "c2c/gemm", &gemm) ||
	     load(tasks, "c2c/conv1d", &conv1d) ||
	     load(tasks, "c2c/stencil2d", &stencil2d);
	free(tasks);
	if (rc || !mkdtemp(cache_dir))
		return -1;
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	task_free(vecpoly);
	task_free(vecpoly_bias);
	task_free(vecpoly_tiny);
	task_free(gemm);
	task_free(conv1d);
	task_free(stencil2d);
	free(adv_root);
	rm_rf(cache_dir);
	return 0;
}

/* Evaluates <adv_root>/<sub> (sub itself when absolute) against t with
 * 3 blocks of at least min_pairs pairs, 0.4 s per case, at most
 * max_pairs pairs. */
static void evaluate_paired(struct task *t, const char *sub, int min_pairs,
			    int max_pairs, struct task_result *res)
{
	struct eval_request req;
	char *dir = sub[0] == '/' ? xstrdup(sub)
				  : xasprintf("%s/%s", adv_root, sub);

	eval_request_init(&req);
	req.task = t;
	req.candidate_dir = dir;
	req.cache_dir = cache_dir;
	req.seed = 20261201;
	req.timing.case_budget_s = 0.4;
	req.timing.blocks = 3;
	req.timing.min_pairs = min_pairs;
	req.timing.max_pairs = max_pairs;
	req.timing.runner_timeout_s = 20;
	eval_checked(&req, dir, res);
	free(dir);
}

/* With the budgets of test_eval.c: at least 5 pairs a block, 200 in
 * all. */
static void evaluate_on(struct task *t, const char *sub,
			struct task_result *res)
{
	evaluate_paired(t, sub, 5, 200, res);
}

static void evaluate(const char *cand, struct task_result *res)
{
	char *sub = xasprintf("candidates/%s", cand);

	evaluate_on(vecpoly, sub, res);
	free(sub);
}

static const char accounting[] =
	"reported times inconsistent with the controller's accounting";
static const char off_reference[] =
	"not within the task's tolerance of the reference's";

/* ---- class 1: work outside the timed window ------------------------------- */

static void test_work_in_a_sigcont_handler_is_charged_and_named(void **state)
{
	struct task_result res;

	(void)state;
	evaluate("sigcont_work", &res);
	expect(&res, RS_REJECTED, accounting);
	result_release(&res);
}

static void
test_work_in_the_runners_receive_path_is_charged_and_named(void **state)
{
	struct task_result res;

	(void)state;
	evaluate("recv_hook", &res);
	expect(&res, RS_REJECTED, accounting);
	result_release(&res);
}

static void test_most_of_the_work_moved_out_of_the_call_is_named(void **state)
{
	struct task_result res;

	(void)state;
	evaluate("recv_hook_partial", &res);
	expect(&res, RS_REJECTED, accounting);
	result_release(&res);
}

static void test_hidden_work_with_consistent_claims_gains_nothing(void **state)
{
	struct task_result res;

	(void)state;
	evaluate("hidden_work_consistent", &res);
	/* Its claims agree with the accounting, so nothing names it; the
	 * work it hid in a signal handler is charged all the same, and it
	 * runs the baseline's arithmetic: an A/A result.  Claimed, it would
	 * have been hundreds of x. */
	expect(&res, RS_OK, NULL);
	assert_true(res.speedup_ratio > 0.8 && res.speedup_ratio < 1.25);
	result_release(&res);
}

/* ---- class 2: claims the clock does not bind ------------------------------ */

static void test_clock_forged_on_most_calls_is_rejected(void **state)
{
	struct task_result res;

	(void)state;
	evaluate("clock_majority", &res);
	expect(&res, RS_REJECTED, accounting);
	result_release(&res);
}

/* clock_majority forging 40% of its calls: the median of (CPU time -
 * claim) stays the honest calls', and the share of calls beyond the
 * baseline's spread names it. */
static void test_clock_forged_on_a_minority_of_calls_is_rejected(void **state)
{
	struct task_result res;

	(void)state;
	char *src = path_join(adv_root, "candidates/clock_majority");
	char *dir = candidate_variant(src, "kernel.c", cache_dir,
				      "FORGED_PERCENT", 40);
	evaluate_on(vecpoly, dir, &res);
	expect(&res, RS_REJECTED, accounting);
	expect(&res, RS_REJECTED, "pairs the candidate's runner used more");
	result_release(&res);
	free(dir);
	free(src);
}

/* A candidate whose claims are shaved gains nothing: the speedup is the
 * controller's CPU accounting.  The claim check names it where the shave
 * clears max(20 us, 1%) and the noise; elsewhere the verdict is an A/A
 * one. */
static void expect_named_or_gaining_nothing(const char *candidate)
{
	struct task_result res;

	evaluate(candidate, &res);
	if (res.status == RS_REJECTED) {
		expect(&res, RS_REJECTED, accounting);
	} else {
		expect(&res, RS_OK, NULL);
		assert_true(res.speedup_ratio > 0.8 &&
			    res.speedup_ratio < 1.25);
	}
	result_release(&res);
}

/* 45 us off every claim (tests/adversarial/run.sh requires it named). */
static void
test_claims_shaved_under_the_old_allowance_gain_nothing(void **state)
{
	(void)state;
	expect_named_or_gaining_nothing("shave_old_allowance");
}

/* 4% off every claim. */
static void test_claims_shaved_under_the_allowance_gain_nothing(void **state)
{
	(void)state;
	expect_named_or_gaining_nothing("shave_new_allowance");
}

/* ---- class 3: correct only while watched ---------------------------------- */

static void test_exact_first_calls_then_approximate_is_incorrect(void **state)
{
	struct task_result res;

	(void)state;
	evaluate("exact_first_calls", &res);
	expect(&res, RS_INCORRECT, off_reference);
	assert_non_null(strstr(res.correctness_error_message, "timed call"));
	result_release(&res);
}

static void
test_phase_told_by_sibling_runners_is_hidden_or_incorrect(void **state)
{
	struct task_result res;

	(void)state;
	evaluate("phase_census", &res);
	/* Confined (docs/evaluator.md §2), a runner is alone in its PID
	 * namespace: the census finds no sibling, the candidate never thinks
	 * it is timed and stays exact.  Unconfined, it sees them, and its
	 * timed outputs are caught against the reference. */
	if (res.sandboxed)
		expect(&res, RS_OK, NULL);
	else
		expect(&res, RS_INCORRECT, off_reference);
	result_release(&res);
}

static void test_phase_told_by_recurring_input_values_is_incorrect(void **state)
{
	struct task_result res;

	(void)state;
	evaluate("phase_inputs", &res);
	expect(&res, RS_INCORRECT, off_reference);
	result_release(&res);
}

static void
test_drift_within_the_baselines_tolerance_meets_random_checks(void **state)
{
	struct task_result res;

	(void)state;
	/* The baseline of vecpoly_bias sits 0.7e-5 off its reference, the
	 * candidate 0.7e-5 further: never beyond 1x of the baseline, so
	 * only the checks against the reference can see it. */
	evaluate_on(vecpoly_bias, "candidates/drift_unseen", &res);
	expect(&res, RS_INCORRECT, off_reference);
	result_release(&res);
}

/* drift_unseen exact for the first seven calls of its process: for the
 * first five pairs of each block (two warm-up calls, then five timed
 * ones), past a sure check drawn among the first five.  With
 * 6 pairs a block, no more and no fewer, the sixth is wrong in every
 * block, and only its closing check - a block's last pair, checked for
 * sure - is certain to see it (before it, 5 of 5 evaluations missed it,
 * docs/evaluator.md). */
static void test_drift_past_the_first_sure_checks_meets_the_closing_ones(
	void **state)
{
	struct task_result res;

	(void)state;
	char *src = path_join(adv_root, "candidates/drift_unseen");
	char *dir = candidate_variant(src, "kernel.c", cache_dir,
				      "EXACT_CALLS", 7);
	evaluate_paired(vecpoly_bias, dir, 6, 18, &res);
	expect(&res, RS_INCORRECT, off_reference);
	result_release(&res);
	free(dir);
	free(src);
}

/* ---- class 4: forged infrastructure errors -------------------------------- */

static void
test_device_error_from_a_host_runner_is_a_protocol_violation(void **state)
{
	struct task_result res;

	(void)state;
	evaluate("forge_device_error", &res);
	expect(&res, RS_REJECTED, "but a host runner has no device");
	assert_non_null(strstr(res.correctness_error_message,
			       "runner protocol violated"));
	result_release(&res);
}

/* ---- cases too short to time --------------------------------------------- */

static void test_cases_below_the_timing_floor_are_correctness_only(void **state)
{
	struct task_result res;

	(void)state;
	evaluate_on(vecpoly_tiny, "candidates/optimized", &res);
	expect(&res, RS_OK, "below the timing floor");
	assert_true(res.pass_correctness && res.candidate_accepted);
	assert_int_equal(res.valid_optimized_cases, 0);
	assert_true(res.speedup_ratio == 0);
	for (int i = 0; i < res.ncases; i++) {
		assert_true(res.cases[i].correct);
		assert_false(res.cases[i].timed);
		assert_true(res.cases[i].correctness_only);
		assert_non_null(strstr(res.cases[i].timing_note,
				       "timing floor of 20.0 us"));
	}
	/* Correct and untimed: AgentKernelArena's 120. */
	assert_true(res.score == 120);
	result_release(&res);
}

static void test_a_tasks_own_timing_floor_times_short_cases(void **state)
{
	struct task_result res;
	double floor = vecpoly_tiny->timing_floor_us;
	char *why = vecpoly_tiny->timing_floor_reason;

	(void)state;
	vecpoly_tiny->timing_floor_us = 0;
	vecpoly_tiny->timing_floor_reason = (char *)"a test of the override";
	evaluate_on(vecpoly_tiny, "candidates/optimized", &res);
	vecpoly_tiny->timing_floor_us = floor;
	vecpoly_tiny->timing_floor_reason = why;
	expect(&res, RS_OK, NULL);
	assert_int_equal(res.valid_optimized_cases, 2);
	for (int i = 0; i < res.ncases; i++) {
		assert_true(res.cases[i].timed);
		assert_false(res.cases[i].correctness_only);
	}
	result_release(&res);
}

/* Every kept floor decision (<cache>/timing-floor/<key>) overwritten
 * with text; returns how many there were. */
static int floor_records_set(const char *text)
{
	char *dir = xasprintf("%s/timing-floor", cache_dir);
	DIR *d = opendir(dir);
	struct dirent *e;
	struct errbuf err;
	int n = 0;

	errbuf_init(&err);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *path = xasprintf("%s/%s", dir, e->d_name);
		assert_int_equal(file_write_atomic_str(path, text, &err), 0);
		free(path);
		n++;
	}
	if (d)
		closedir(d);
	free(dir);
	return n;
}

/* The floor's decision is this machine's first: kept and reused, so that
 * a case near the floor is not timed in one evaluation and not in the
 * next.  Shown by overwriting the kept decisions: "timed" times the
 * cases whose calls are far below the floor; a record that does not
 * parse is decided again (not timed) and written over. */
static void test_the_floor_decision_is_kept_per_machine(void **state)
{
	struct task_result res;

	(void)state;
	evaluate_on(vecpoly_tiny, "candidates/optimized", &res);
	expect(&res, RS_OK, "below the timing floor");
	int ncases = res.ncases;
	result_release(&res);
	assert_true(floor_records_set("timed 25000.0\n") >= ncases);

	evaluate_on(vecpoly_tiny, "candidates/optimized", &res);
	expect(&res, RS_OK, NULL);
	for (int i = 0; i < res.ncases; i++) {
		assert_true(res.cases[i].timed);
		assert_false(res.cases[i].correctness_only);
	}
	result_release(&res);

	floor_records_set("garbage\n");
	evaluate_on(vecpoly_tiny, "candidates/optimized", &res);
	expect(&res, RS_OK, "below the timing floor");
	for (int i = 0; i < res.ncases; i++)
		assert_true(res.cases[i].correctness_only);
	result_release(&res);
}

/* ---- honest candidates ---------------------------------------------------- */

static void honest(struct task *t, const char *name)
{
	struct task_result res;
	char *sub = xasprintf("honest/%s", name);

	evaluate_on(t, sub, &res);
	expect(&res, RS_OK, NULL);
	assert_true(res.candidate_accepted);
	assert_true(res.speedup_ratio > 1.2);
	assert_true(res.speedup_ci_lo > 1.0);
	assert_true(res.integrity.n == 0);
	result_release(&res);
	free(sub);
}

static void test_honest_tiled_gemm_is_accepted_and_faster(void **state)
{
	(void)state;
	honest(gemm, "gemm_tiled");
}

static void test_honest_blocked_conv1d_is_accepted_and_faster(void **state)
{
	(void)state;
	honest(conv1d, "conv1d_outs8");
}

static void test_honest_vectorized_stencil_is_accepted_and_faster(void **state)
{
	(void)state;
	honest(stencil2d, "stencil2d_vec8");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_work_in_a_sigcont_handler_is_charged_and_named),
		cmocka_unit_test(
			test_work_in_the_runners_receive_path_is_charged_and_named),
		cmocka_unit_test(
			test_most_of_the_work_moved_out_of_the_call_is_named),
		cmocka_unit_test(
			test_hidden_work_with_consistent_claims_gains_nothing),
		cmocka_unit_test(test_clock_forged_on_most_calls_is_rejected),
		cmocka_unit_test(
			test_clock_forged_on_a_minority_of_calls_is_rejected),
		cmocka_unit_test(
			test_claims_shaved_under_the_old_allowance_gain_nothing),
		cmocka_unit_test(
			test_claims_shaved_under_the_allowance_gain_nothing),
		cmocka_unit_test(
			test_exact_first_calls_then_approximate_is_incorrect),
		cmocka_unit_test(
			test_phase_told_by_sibling_runners_is_hidden_or_incorrect),
		cmocka_unit_test(
			test_phase_told_by_recurring_input_values_is_incorrect),
		cmocka_unit_test(
			test_drift_within_the_baselines_tolerance_meets_random_checks),
		cmocka_unit_test(
			test_drift_past_the_first_sure_checks_meets_the_closing_ones),
		cmocka_unit_test(
			test_device_error_from_a_host_runner_is_a_protocol_violation),
		cmocka_unit_test(
			test_cases_below_the_timing_floor_are_correctness_only),
		cmocka_unit_test(
			test_a_tasks_own_timing_floor_times_short_cases),
		cmocka_unit_test(test_the_floor_decision_is_kept_per_machine),
		cmocka_unit_test(test_honest_tiled_gemm_is_accepted_and_faster),
		cmocka_unit_test(
			test_honest_blocked_conv1d_is_accepted_and_faster),
		cmocka_unit_test(
			test_honest_vectorized_stencil_is_accepted_and_faster),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
