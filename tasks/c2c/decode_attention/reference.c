/*
 * decode_attention - trusted reference: scores, softmax and the weighted
 * sum of values in double from the float inputs, each output rounded to
 * float once.
 */
#include <math.h>
#include <stdlib.h>
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 4 || nparams != 4)
		return 1;
	int64_t heads = params[0], kv = params[1], d = params[2],
		ctx = params[3];
	if (heads <= 0 || kv <= 0 || heads % kv || d <= 0 || ctx <= 0 ||
	    args[0].numel != heads * d || args[1].numel != kv * ctx * d ||
	    args[2].numel != kv * ctx * d || args[3].numel != heads * d)
		return 2;
	const float *q = args[0].data, *k = args[1].data, *v = args[2].data;
	float *out = args[3].data;
	double *p = malloc(sizeof(double) * (size_t)ctx);
	double *acc = malloc(sizeof(double) * (size_t)d);
	if (!p || !acc) {
		free(p);
		free(acc);
		return 3;
	}
	for (int64_t h = 0; h < heads; h++) {
		int64_t g = h / (heads / kv);
		double m = -INFINITY, l = 0.0;
		for (int64_t t = 0; t < ctx; t++) {
			double s = 0.0;
			for (int64_t i = 0; i < d; i++)
				s += (double)q[h * d + i] * k[(g * ctx + t) * d + i];
			p[t] = s / sqrt((double)d);
			m = fmax(m, p[t]);
		}
		for (int64_t t = 0; t < ctx; t++) {
			p[t] = exp(p[t] - m);
			l += p[t];
		}
		for (int64_t i = 0; i < d; i++)
			acc[i] = 0.0;
		for (int64_t t = 0; t < ctx; t++)
			for (int64_t i = 0; i < d; i++)
				acc[i] += p[t] * v[(g * ctx + t) * d + i];
		for (int64_t i = 0; i < d; i++)
			out[h * d + i] = (float)(acc[i] / l);
	}
	free(p);
	free(acc);
	return 0;
}
