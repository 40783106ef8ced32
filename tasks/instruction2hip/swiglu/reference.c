/*
 * swiglu - trusted reference: silu(gate) * up in double, rounded to float
 * once per element.
 */
#include <math.h>
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 2)
		return 1;
	int64_t rows = params[0], d = params[1];
	if (rows <= 0 || d <= 0 || args[0].numel != rows * 2 * d ||
	    args[1].numel != rows * d || args[0].dtype != ARENA_F32 ||
	    args[1].dtype != ARENA_F32)
		return 2;
	const float *x = args[0].data;
	float *y = args[1].data;
	for (int64_t r = 0; r < rows; r++)
		for (int64_t j = 0; j < d; j++) {
			double g = x[r * 2 * d + j], u = x[r * 2 * d + d + j];
			y[r * d + j] = (float)(g / (1.0 + exp(-g)) * u);
		}
	return 0;
}
