/*
 * adam_step - trusted reference: one Adam step (lr 1e-3, beta1 0.9,
 * beta2 0.999, eps 1e-8, bias corrected) evaluated in double from the
 * float inputs, each new p, m, v rounded to float once.
 */
#include <math.h>
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 4 || nparams != 2)
		return 1;
	int64_t n = params[0], step = params[1];
	if (n <= 0 || step < 1)
		return 2;
	for (int i = 0; i < 4; i++)
		if (args[i].dtype != ARENA_F32 || args[i].numel != n)
			return 2;
	float *p = args[0].data, *m = args[2].data, *v = args[3].data;
	const float *g = args[1].data;
	const double b1 = 0.9, b2 = 0.999, lr = 1e-3, eps = 1e-8;
	double bc1 = 1.0 - pow(b1, (double)step);
	double bc2 = 1.0 - pow(b2, (double)step);
	for (int64_t i = 0; i < n; i++) {
		double gi = g[i];
		double mi = b1 * (double)m[i] + (1.0 - b1) * gi;
		double vi = b2 * (double)v[i] + (1.0 - b2) * gi * gi;
		double pi = (double)p[i] - lr * (mi / bc1) / (sqrt(vi / bc2) + eps);
		m[i] = (float)mi;
		v[i] = (float)vi;
		p[i] = (float)pi;
	}
	return 0;
}
