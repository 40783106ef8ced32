/*
 * saxpy - trusted reference: y = alpha * x + y in double, rounded to float
 * once per element.
 */
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 3 || nparams != 1)
		return 1;
	int64_t n = params[0];
	if (n <= 0 || args[0].numel != 1 || args[1].numel != n ||
	    args[2].numel != n || args[0].dtype != ARENA_F32 ||
	    args[1].dtype != ARENA_F32 || args[2].dtype != ARENA_F32)
		return 2;
	double a = *(const float *)args[0].data;
	const float *x = args[1].data;
	float *y = args[2].data;
	for (int64_t i = 0; i < n; i++)
		y[i] = (float)(a * (double)x[i] + (double)y[i]);
	return 0;
}
