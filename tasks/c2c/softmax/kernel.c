/*
 * softmax - baseline: row-wise softmax of a float32 matrix x [rows, cols]:
 * y[r][c] = exp(x[r][c] - max_r) / sum_c' exp(x[r][c'] - max_r).
 *
 * FUSE = 0 is the textbook three passes per row: find the maximum, sum the
 * exponentials, then compute every exponential a second time and divide by
 * the sum.  FUSE = 1 stores the exponentials in y during the summing pass
 * and scales them by 1/sum, so expf runs once per element instead of twice
 * and the per-element division becomes a multiplication.
 *
 * The row sum is accumulated in double in both variants: rows can hold a
 * million elements, and a float running sum of that many positive terms
 * drifts by ~1e-3 relative, which the tolerance does not allow.
 */
#include <math.h>
#include "arena/kernel.h"

#ifndef FUSE
#define FUSE 0
#endif

static void softmax_row(const float *x, float *y, int64_t cols)
{
	float m = x[0];
	for (int64_t c = 1; c < cols; c++)
		if (x[c] > m)
			m = x[c];
#if FUSE
	double s = 0.0;
	for (int64_t c = 0; c < cols; c++) {
		float e = expf(x[c] - m);
		y[c] = e;
		s += e;
	}
	float inv = (float)(1.0 / s);
	for (int64_t c = 0; c < cols; c++)
		y[c] *= inv;
#else
	double s = 0.0;
	for (int64_t c = 0; c < cols; c++)
		s += expf(x[c] - m);
	for (int64_t c = 0; c < cols; c++)
		y[c] = (float)(expf(x[c] - m) / s);
#endif
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 2)
		return 1;
	int64_t rows = params[0], cols = params[1];
	if (rows <= 0 || cols <= 0)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != rows * cols ||
	    args[1].dtype != ARENA_F32 || args[1].numel != rows * cols)
		return 3;
	const float *x = args[0].data;
	float *y = args[1].data;
	for (int64_t r = 0; r < rows; r++)
		softmax_row(x + r * cols, y + r * cols, cols);
	return 0;
}
