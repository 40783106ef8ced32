/*
 * fakesplitbad - vecpoly's reference plus a term read from the first row
 * of the call: right for a whole call, wrong for every row range but the
 * first, so the task's reference.split declaration does not hold (the
 * GPU path's check of it, tests/unit/test_gpu_eval.c).
 */
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 1 || args[0].numel != params[0] ||
	    args[1].numel != params[0] || args[0].dtype != ARENA_F32 ||
	    args[1].dtype != ARENA_F32)
		return 1;
	int64_t n = params[0];
	const float *x = args[0].data;
	float *y = args[1].data;
	for (int64_t i = 0; i < n; i++) {
		double v = x[i];
		y[i] = (float)(1.0 + v * (1.0 + v * (0.5 + v * (1.0 / 6.0 +
							   v / 24.0))) +
			       1e-3 * (double)x[0]);
	}
	return 0;
}
