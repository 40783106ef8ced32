/*
 * gelu - trusted reference: the tanh-approximation GELU computed in double
 * and rounded to float once per element.
 */
#include <math.h>
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 1)
		return 1;
	int64_t n = params[0];
	if (n <= 0 || args[0].numel != n || args[1].numel != n ||
	    args[0].dtype != ARENA_F32 || args[1].dtype != ARENA_F32)
		return 2;
	const float *x = args[0].data;
	float *y = args[1].data;
	const double k0 = sqrt(2.0 / 3.14159265358979323846);
	for (int64_t i = 0; i < n; i++) {
		double v = x[i];
		y[i] = (float)(0.5 * v * (1.0 + tanh(k0 * (v + 0.044715 * v * v * v))));
	}
	return 0;
}
