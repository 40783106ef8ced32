/* Cheat (issue 10, class 3), for task/vecpoly_bias: exact for the first
 * five calls of its process (the correctness trials in the correctness
 * runner; both warm-up calls and the first three timed calls in a block's
 * fresh runner), then a further 0.7e-5 (relative) off in the baseline's
 * direction: within 1x of the baseline's outputs on every timed call -
 * the comparison with the baseline never strays - but 1.4e-5 off the
 * reference, outside the task's tolerance wherever |y| > 2.5.  Only the
 * unannounced checks of timed calls against the reference see it:
 * incorrect. */
#include "arena/kernel.h"

#ifndef EXACT_CALLS /* test_eval_integrity builds it with 7 as well */
#define EXACT_CALLS 5
#endif

static int calls;

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	int64_t n = params[0];
	const float *x = args[0].data;
	float *y = args[1].data;
	double s = ++calls <= EXACT_CALLS ? 1.0 : 1.0 + 1.4e-5;

	for (int64_t i = 0; i < n; i++) {
		double v = x[i];
		double p = 1.0 +
			   v * (1.0 + v * (0.5 + v * (1.0 / 6.0 + v / 24.0)));
		y[i] = (float)(p * s);
	}
	return 0;
}
