/*
 * fakewide - trusted reference: y = 2 x + 1 in double, rounded once.
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
	for (int64_t i = 0; i < n; i++)
		y[i] = (float)(2.0 * (double)x[i] + 1.0);
	return 0;
}
