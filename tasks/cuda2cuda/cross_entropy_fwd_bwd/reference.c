/*
 * cross_entropy_fwd_bwd - trusted reference: per row the maximum, the sum
 * of exponentials and the log-sum-exp in double; the loss and every
 * gradient element computed in double and rounded to float once.
 */
#include <math.h>
#include <string.h>
#include "arena/kernel.h"

static double bf(uint16_t b)
{
	uint32_t u = (uint32_t)b << 16;
	float f;
	memcpy(&f, &u, sizeof(f));
	return f;
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 4 || nparams != 2)
		return 1;
	int64_t tokens = params[0], vocab = params[1];
	if (tokens <= 0 || vocab <= 0 || args[0].numel != tokens * vocab ||
	    args[1].numel != tokens || args[2].numel != tokens ||
	    args[3].numel != tokens * vocab)
		return 2;
	const uint16_t *x = args[0].data;
	const int32_t *labels = args[1].data;
	float *loss = args[2].data;
	float *dx = args[3].data;
	for (int64_t t = 0; t < tokens; t++) {
		const uint16_t *xr = x + t * vocab;
		int64_t lab = labels[t];
		if (lab < 0 || lab >= vocab)
			return 3;
		double m = -INFINITY, s = 0.0;
		for (int64_t v = 0; v < vocab; v++)
			m = fmax(m, bf(xr[v]));
		for (int64_t v = 0; v < vocab; v++)
			s += exp(bf(xr[v]) - m);
		double lse = m + log(s);
		loss[t] = (float)(lse - bf(xr[lab]));
		for (int64_t v = 0; v < vocab; v++) {
			double p = exp(bf(xr[v]) - lse);
			dx[t * vocab + v] =
				(float)((p - (v == lab ? 1.0 : 0.0)) / (double)tokens);
		}
	}
	return 0;
}
