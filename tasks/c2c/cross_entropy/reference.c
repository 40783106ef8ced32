/*
 * cross_entropy - trusted reference: per row the maximum, the sum of
 * exponentials and the log-sum-exp in double; the loss and every gradient
 * element in double, rounded to float once.
 */
#include <math.h>
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 4 || nparams != 2)
		return 1;
	int64_t rows = params[0], vocab = params[1];
	if (rows <= 0 || vocab <= 0 || args[0].numel != rows * vocab ||
	    args[1].numel != rows || args[2].numel != rows ||
	    args[3].numel != rows * vocab)
		return 2;
	const float *x = args[0].data;
	const int32_t *labels = args[1].data;
	float *loss = args[2].data, *dx = args[3].data;
	for (int64_t r = 0; r < rows; r++) {
		const float *xr = x + r * vocab;
		int64_t lab = labels[r];
		if (lab < 0 || lab >= vocab)
			return 3;
		double m = -INFINITY, s = 0.0;
		for (int64_t v = 0; v < vocab; v++)
			m = fmax(m, (double)xr[v]);
		for (int64_t v = 0; v < vocab; v++)
			s += exp((double)xr[v] - m);
		double lse = m + log(s);
		loss[r] = (float)(lse - xr[lab]);
		for (int64_t v = 0; v < vocab; v++)
			dx[r * vocab + v] = (float)((exp((double)xr[v] - lse) -
						     (v == lab ? 1.0 : 0.0)) /
						    (double)rows);
	}
	return 0;
}
