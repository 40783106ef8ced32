/*
 * saxpy - baseline: y = alpha * x + y over float32 vectors of length n,
 * in place (y is inout), alpha a float32 scalar (a rank-0 argument).
 *
 * UNROLL = 1 is the plain loop.  Because x and y might alias and n is not
 * known to be a multiple of the vector width, gcc -O2 keeps it scalar.
 * UNROLL > 1 processes UNROLL elements per step through restrict pointers
 * with a compile-time inner trip count, which -O2 vectorizes; the tail is
 * done one element at a time.  Every value produces the same result.
 */
#include "arena/kernel.h"

#ifndef UNROLL
#define UNROLL 1
#endif

#if UNROLL > 1
static void saxpy_blocked(int64_t n, float alpha, const float *restrict x,
			  float *restrict y)
{
	int64_t i = 0;
	for (; i + UNROLL <= n; i += UNROLL)
		for (int u = 0; u < UNROLL; u++)
			y[i + u] = alpha * x[i + u] + y[i + u];
	for (; i < n; i++)
		y[i] = alpha * x[i] + y[i];
}
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
	if (args[0].dtype != ARENA_F32 || args[0].numel != 1 ||
	    args[1].dtype != ARENA_F32 || args[1].numel != n ||
	    args[2].dtype != ARENA_F32 || args[2].numel != n)
		return 3;
	float alpha = *(const float *)args[0].data;
	const float *x = args[1].data;
	float *y = args[2].data;
#if UNROLL > 1
	saxpy_blocked(n, alpha, x, y);
#else
	for (int64_t i = 0; i < n; i++)
		y[i] = alpha * x[i] + y[i];
#endif
	return 0;
}
