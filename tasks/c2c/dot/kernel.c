/*
 * dot - baseline: result[0] = sum_i x[i] * y[i] for float32 x, y of length
 * n, accumulated in double.
 *
 * ACC = 1 keeps one running sum, so every addition waits for the previous
 * one (the loop runs at the latency of an add, not its throughput).  ACC > 1
 * keeps ACC independent partial sums over interleaved elements and adds
 * them at the end; the products are exact in double either way, and the
 * result differs from ACC = 1 only by double rounding (~1e-16 relative).
 */
#include "arena/kernel.h"

#ifndef ACC
#define ACC 1
#endif

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 3 || nparams != 1)
		return 1;
	int64_t n = params[0];
	if (n <= 0)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != n ||
	    args[1].dtype != ARENA_F32 || args[1].numel != n ||
	    args[2].dtype != ARENA_F64 || args[2].numel != 1)
		return 3;
	const float *x = args[0].data;
	const float *y = args[1].data;
	double *result = args[2].data;
#if ACC > 1
	double acc[ACC] = {0};
	int64_t i = 0;
	for (; i + ACC <= n; i += ACC)
		for (int u = 0; u < ACC; u++)
			acc[u] += (double)x[i + u] * (double)y[i + u];
	for (; i < n; i++)
		acc[0] += (double)x[i] * (double)y[i];
	double s = 0.0;
	for (int u = 0; u < ACC; u++)
		s += acc[u];
	result[0] = s;
#else
	double s = 0.0;
	for (int64_t i = 0; i < n; i++)
		s += (double)x[i] * (double)y[i];
	result[0] = s;
#endif
	return 0;
}
