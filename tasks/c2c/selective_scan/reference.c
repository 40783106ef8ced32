/*
 * selective_scan - trusted reference: the recurrence exactly as written,
 * in double from the float inputs (state, exponentials, products, gate),
 * each output rounded to float once.
 */
#include <math.h>
#include <stdlib.h>
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 8 || nparams != 3)
		return 1;
	int64_t dim = params[0], ns = params[1], len = params[2];
	if (dim <= 0 || ns <= 0 || len <= 0 || args[0].numel != dim * len ||
	    args[1].numel != dim * len || args[2].numel != dim * ns ||
	    args[3].numel != ns * len || args[4].numel != ns * len ||
	    args[5].numel != dim || args[6].numel != dim * len ||
	    args[7].numel != dim * len)
		return 2;
	const float *u = args[0].data, *delta = args[1].data, *A = args[2].data,
		    *B = args[3].data, *C = args[4].data, *D = args[5].data,
		    *z = args[6].data;
	float *out = args[7].data;
	double *h = malloc(sizeof(double) * (size_t)ns);
	if (!h)
		return 3;
	for (int64_t d = 0; d < dim; d++) {
		for (int64_t n = 0; n < ns; n++)
			h[n] = 0.0;
		for (int64_t t = 0; t < len; t++) {
			double dt = delta[d * len + t], x = u[d * len + t], y = 0.0;
			for (int64_t n = 0; n < ns; n++) {
				h[n] = exp(dt * A[d * ns + n]) * h[n] +
				       dt * B[n * len + t] * x;
				y += C[n * len + t] * h[n];
			}
			y += (double)D[d] * x;
			double g = z[d * len + t];
			out[d * len + t] = (float)(y * g / (1.0 + exp(-g)));
		}
	}
	free(h);
	return 0;
}
