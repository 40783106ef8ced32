/*
 * test_verdict.c - the evaluation's verdict (ev_verdict, eval.c): the
 * first one reached wins, and a check that ran in the background and
 * failed before a later step's verdict takes that verdict's place
 * (ev_verdict_supersede, for refpool.c) with nothing of the later one
 * left in the result: its status, its message, its integrity finding,
 * its effect on pass_correctness.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "evaluation.h"

/* A context in the timing phase of an evaluation whose candidate passed
 * correctness. */
static void timing_ctx(struct eval_ctx *x, struct task_result *r)
{
	memset(x, 0, sizeof(*x));
	result_init(r);
	x->res = r;
	x->phase = PH_TIMING;
	r->pass_correctness = true;
}

static void test_first_verdict_wins(void **s)
{
	struct eval_ctx x;
	struct task_result r;

	(void)s;
	timing_ctx(&x, &r);
	ev_verdict(&x, RS_INCORRECT, "first");
	ev_verdict(&x, RS_REJECTED, "second");
	assert_int_equal(r.status, RS_INCORRECT);
	assert_string_equal(r.correctness_error_message, "first");
	assert_null(r.speedup_calculation_error_message);
	assert_int_equal(r.integrity.n, 0);
	free(x.undo.field_was);
	result_release(&r);
}

/* A rejection reached on a later pair, then the background check of an
 * earlier pair that failed: the result is the check's alone. */
static void test_an_earlier_failure_supersedes_a_later_rejection(void **s)
{
	struct eval_ctx x;
	struct task_result r;

	(void)s;
	timing_ctx(&x, &r);
	ev_verdict(&x, RS_REJECTED, "later: %s", "forged claim");
	assert_int_equal(r.integrity.n, 1);
	ev_verdict_supersede(&x, RS_INCORRECT, "earlier: differs");
	assert_true(x.decided);
	assert_int_equal(r.status, RS_INCORRECT);
	assert_string_equal(r.correctness_error_message, "earlier: differs");
	assert_null(r.speedup_calculation_error_message);
	assert_int_equal(r.integrity.n, 0);
	assert_null(r.integrity.v[0]);
	assert_false(r.pass_correctness);
	free(x.undo.field_was);
	result_release(&r);
}

/* An incorrect verdict (which clears pass_correctness) superseded by a
 * reference's failure (infra_error, which does not): pass_correctness
 * is what it was before the later verdict. */
static void test_supersede_restores_what_the_later_verdict_changed(void **s)
{
	struct eval_ctx x;
	struct task_result r;

	(void)s;
	timing_ctx(&x, &r);
	ev_verdict(&x, RS_INCORRECT, "later: differs from baseline");
	assert_false(r.pass_correctness);
	ev_verdict_supersede(&x, RS_INFRA_ERROR, "the reference failed");
	assert_int_equal(r.status, RS_INFRA_ERROR);
	assert_null(r.correctness_error_message);
	assert_string_equal(r.speedup_calculation_error_message,
			    "the reference failed");
	assert_true(r.pass_correctness);
	free(x.undo.field_was);
	result_release(&r);
}

/* With no verdict yet, supersede is ev_verdict. */
static void test_supersede_without_a_verdict_sets_it(void **s)
{
	struct eval_ctx x;
	struct task_result r;

	(void)s;
	timing_ctx(&x, &r);
	ev_verdict_supersede(&x, RS_INCORRECT, "differs");
	assert_true(x.decided);
	assert_int_equal(r.status, RS_INCORRECT);
	assert_string_equal(r.correctness_error_message, "differs");
	free(x.undo.field_was);
	result_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_verdict_wins),
		cmocka_unit_test(
			test_an_earlier_failure_supersedes_a_later_rejection),
		cmocka_unit_test(
			test_supersede_restores_what_the_later_verdict_changed),
		cmocka_unit_test(test_supersede_without_a_verdict_sets_it),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
