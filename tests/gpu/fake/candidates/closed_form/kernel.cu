/* Honest, for task/fakeheavy: the k steps in closed form,
 * y = x (1 - 0.999^k), one pow per call instead of k steps per element. */
#include <math.h>
#include "arena/kernel.h"

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	int64_t n = params[0], k = params[1];
	const float *x = (const float *)args[0].data;
	float *y = (float *)args[1].data;
	double f = 1.0 - pow(0.999, (double)k);
	for (int64_t i = 0; i < n; i++)
		y[i] = (float)((double)x[i] * f);
	return 0;
}
