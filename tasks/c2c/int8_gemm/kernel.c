/*
 * int8_gemm - baseline: c = a_scale[i] * w_scale[j] * (a_i . w_j) for
 * int8 a [m, k] and w [n, k], int32 accumulation, float32 output.
 *
 * LANES = 1 is the textbook loop: for every (i, j) one int32 dot product
 * of two k-contiguous rows, one product at a time.  LANES > 1 keeps that
 * many independent int32 partial sums over fixed-width steps, which gcc
 * -O2 turns into SSE2 code (widening the int8 values to 16 and 32 bits).
 * Integer sums are exact, so all values give identical results.
 */
#include "arena/kernel.h"

#ifndef LANES
#define LANES 1
#endif

static int32_t dot_i8(const int8_t *restrict x, const int8_t *restrict y,
		      int64_t k)
{
#if LANES > 1
	int32_t lane[LANES] = {0};
	int64_t p = 0;
	for (; p + LANES <= k; p += LANES)
		for (int l = 0; l < LANES; l++)
			lane[l] += x[p + l] * y[p + l];
	int32_t s = 0;
	for (int l = 0; l < LANES; l++)
		s += lane[l];
	for (; p < k; p++)
		s += x[p] * y[p];
	return s;
#else
	int32_t s = 0;
	for (int64_t p = 0; p < k; p++)
		s += x[p] * y[p];
	return s;
#endif
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 5 || nparams != 3)
		return 1;
	int64_t m = params[0], n = params[1], k = params[2];
	/* int32 sums stay exact while 127 * 127 * k < 2^31. */
	if (m <= 0 || n <= 0 || k <= 0 || k > 131072)
		return 2;
	if (args[0].dtype != ARENA_I8 || args[0].numel != m * k ||
	    args[1].dtype != ARENA_I8 || args[1].numel != n * k ||
	    args[2].dtype != ARENA_F32 || args[2].numel != m ||
	    args[3].dtype != ARENA_F32 || args[3].numel != n ||
	    args[4].dtype != ARENA_F32 || args[4].numel != m * n)
		return 3;
	const int8_t *a = args[0].data, *w = args[1].data;
	const float *as = args[2].data, *ws = args[3].data;
	float *c = args[4].data;
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < n; j++)
			c[i * n + j] = (float)dot_i8(a + i * k, w + j * k, k) *
				       as[i] * ws[j];
	return 0;
}
