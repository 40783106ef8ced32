/*
 * l2norm - trusted reference: the norm of each row in double, every
 * quotient in double, rounded to float once.
 */
#include <math.h>
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 2)
		return 1;
	int64_t rows = params[0], cols = params[1];
	if (rows <= 0 || cols <= 0 || args[0].numel != rows * cols ||
	    args[1].numel != rows * cols || args[0].dtype != ARENA_F32 ||
	    args[1].dtype != ARENA_F32)
		return 2;
	const float *x = args[0].data;
	float *y = args[1].data;
	for (int64_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		double ss = 0.0;
		for (int64_t c = 0; c < cols; c++)
			ss += (double)xr[c] * (double)xr[c];
		double norm = fmax(sqrt(ss), 1e-12);
		for (int64_t c = 0; c < cols; c++)
			y[r * cols + c] = (float)((double)xr[c] / norm);
	}
	return 0;
}
