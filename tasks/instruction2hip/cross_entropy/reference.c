/*
 * cross_entropy - trusted reference: max, sum of exponentials and the log
 * in double, rounded to float once per row.  A label outside
 * [0, classes) is an error.
 */
#include <math.h>
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 3 || nparams != 2)
		return 1;
	int64_t rows = params[0], classes = params[1];
	if (rows <= 0 || classes <= 0 || args[0].numel != rows * classes ||
	    args[1].numel != rows || args[2].numel != rows ||
	    args[0].dtype != ARENA_F32 || args[1].dtype != ARENA_I32 ||
	    args[2].dtype != ARENA_F32)
		return 2;
	const float *x = args[0].data;
	const int32_t *labels = args[1].data;
	float *loss = args[2].data;
	for (int64_t r = 0; r < rows; r++) {
		const float *xr = x + r * classes;
		if (labels[r] < 0 || labels[r] >= classes)
			return 3;
		double m = -INFINITY, s = 0.0;
		for (int64_t c = 0; c < classes; c++)
			m = fmax(m, (double)xr[c]);
		for (int64_t c = 0; c < classes; c++)
			s += exp((double)xr[c] - m);
		loss[r] = (float)(m + log(s) - (double)xr[labels[r]]);
	}
	return 0;
}
